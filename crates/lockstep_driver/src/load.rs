//! Loading a workspace: read the application inputs, parse them in
//! parallel, and set up the lazily-read libraries (JDK, `-cp`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lockstep_classfile::ClassFile;
use lockstep_classpath::{Library, Origin, Problem};
use lockstep_program::{ClassProvider, Program};
use lockstep_report::InputProblem;
use rayon::prelude::*;

/// What to analyse and with which libraries.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// The application: class files, class directories, jars, jmods, a JDK image.
    pub paths: Vec<PathBuf>,
    /// Libraries read for their behaviour, never reported on.
    pub classpath: Vec<PathBuf>,
    /// The JDK to load lazily (default: `$JAVA_HOME`, else the `java` on `PATH`).
    pub jdk: Option<PathBuf>,
    /// Load no JDK.
    pub no_jdk: bool,
}

/// A loaded program, ready to check: parsed application classes (in input
/// order), the library provider, and every problem met on the way.
pub struct Workspace {
    pub(crate) program: Program,
    /// Where each application class came from, keyed by the origin string
    /// (`lib/app.jar!com/x/A.class`), so that problems the program model
    /// reports by that string can name the file and the entry apart.
    pub(crate) origins: HashMap<String, Origin>,
    pub(crate) problems: Vec<InputProblem>,
    pub(crate) app_classes: u64,
    pub(crate) app_methods: u64,
    /// Bytes of application class files read.
    pub(crate) app_bytes: u64,
    /// The JDK used, if any.
    pub(crate) jdk: Option<PathBuf>,
    /// Warnings found while loading (class-path entries that gave nothing).
    pub(crate) load_warnings: Vec<String>,
}

/// A fatal input error: nothing could be analysed.
#[derive(Debug, Clone)]
pub struct LoadError(pub String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Workspace {
    /// Reads `inputs`. Damaged classes and entries become problems; only an
    /// input that does not exist, or nothing readable, is an error.
    pub fn load(inputs: &Inputs) -> Result<Workspace, LoadError> {
        load(inputs)
    }

    /// A workspace over classes already parsed (tests, embedders).
    pub fn from_classes(app: Vec<(String, ClassFile)>, libraries: Box<dyn ClassProvider>) -> Self {
        Workspace::new(app, HashMap::new(), libraries, Vec::new(), 0, None)
    }

    fn new(
        app: Vec<(String, ClassFile)>,
        origins: HashMap<String, Origin>,
        libraries: Box<dyn ClassProvider>,
        problems: Vec<InputProblem>,
        app_bytes: u64,
        jdk: Option<PathBuf>,
    ) -> Self {
        let app_classes = app.len() as u64;
        let app_methods = app.iter().map(|(_, c)| c.methods.len() as u64).sum();
        Workspace {
            program: Program::new(app, libraries),
            origins,
            problems,
            app_classes,
            app_methods,
            app_bytes,
            jdk,
            load_warnings: Vec::new(),
        }
    }

    /// The program model.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Problems met while reading the inputs.
    pub fn input_problems(&self) -> &[InputProblem] {
        &self.problems
    }

    /// The JDK in use, if any.
    pub fn jdk(&self) -> Option<&Path> {
        self.jdk.as_deref()
    }
}

pub fn problem_of(p: &Problem) -> InputProblem {
    let ip = InputProblem::new(p.origin.container.display().to_string(), p.message.clone());
    match &p.origin.entry {
        Some(e) => ip.with_entry(e.clone()),
        None => ip,
    }
}

fn origin_problem(origin: &Origin, message: String) -> InputProblem {
    problem_of(&Problem::new(origin.clone(), message))
}

fn load(input: &Inputs) -> Result<Workspace, LoadError> {
    for p in &input.paths {
        if !p.exists() {
            return Err(LoadError(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    let read_options = crate::classpaths::read_options(input);
    let read = lockstep_classpath::read_inputs_with(&input.paths, &read_options);
    let mut problems: Vec<InputProblem> = read.problems.iter().map(problem_of).collect();
    if read.classes.is_empty() {
        let all: Vec<&Path> = input.paths.iter().map(PathBuf::as_path).collect();
        return Err(LoadError(no_classes_message_for(&all, &problems)));
    }
    let app_bytes = read.classes.iter().map(|c| c.bytes.len() as u64).sum();
    let parsed: Vec<_> = read
        .classes
        .par_iter()
        .map(|c| (c.origin.clone(), lockstep_classfile::parse(&c.bytes)))
        .collect();
    let mut app = Vec::with_capacity(parsed.len());
    let mut origins = HashMap::new();
    let mut seen = HashSet::new();
    let mut analysable = AnalysableCount::new(&input.paths);
    for (origin, result) in parsed {
        match result {
            Ok(class) => {
                analysable.count(&origin, &class);
                for w in &class.warnings {
                    problems.push(origin_problem(&origin, format!("warning: {w}")));
                }
                // The first definition of a class wins, as on a class path.
                if seen.insert(class.this_class.clone()) {
                    let key = origin.to_string();
                    origins.insert(key.clone(), origin);
                    app.push((key, class));
                }
            }
            Err(e) => problems.push(origin_problem(&origin, e.to_string())),
        }
    }
    // Nothing to analyse at all (only corrupt classes, only `module-info`)
    // would make "No findings" a lie; so would an input that gave nothing
    // and met no problem (an empty directory): say which and why. An
    // input with problems beside good ones is reported, not fatal.
    let empty = analysable.empty_inputs();
    let silent: Vec<&Path> = empty
        .iter()
        .copied()
        .filter(|path| {
            !problems
                .iter()
                .any(|p| Path::new(&p.file).starts_with(path))
        })
        .filter(|path| !analysable.read_from(path))
        .collect();
    if empty.len() == input.paths.len() {
        return Err(LoadError(no_classes_message_for(&empty, &problems)));
    }
    if !silent.is_empty() {
        return Err(LoadError(no_classes_message_for(&silent, &problems)));
    }

    let mut libs = Vec::new();
    let mut load_warnings = Vec::new();
    let library_paths = crate::classpaths::library_paths(input, &read.libraries);
    if !library_paths.is_empty() {
        let (lib, lib_problems) = Library::open_with(&library_paths, &read_options);
        problems.extend(lib_problems.iter().map(problem_of));
        load_warnings.extend(crate::warnings::missing_classpath_entries(&input.classpath));
        load_warnings.extend(crate::warnings::empty_classpath_entries(
            &input.classpath,
            &lib,
        ));
        libs.push(lib);
    }
    let mut jdk = None;
    if !input.no_jdk {
        match lockstep_classpath::find_jdk(input.jdk.as_deref()) {
            Ok(home) => match Library::jdk(&home) {
                Ok(lib) => {
                    // The JDK comes first, as the bootstrap class loader does.
                    libs.insert(0, lib);
                    jdk = Some(home);
                }
                Err(p) => problems.push(problem_of(&p)),
            },
            Err(p) if input.jdk.is_some() => return Err(LoadError(p.to_string())),
            // Without JDK classes threads, locks and collections are
            // unknown: the analysis would find next to nothing, silently.
            Err(p) => return Err(LoadError(no_jdk_message(&p))),
        }
    }
    let libraries = Box::new(Libraries {
        libs: Arc::new(libs),
    });
    let mut workspace = Workspace::new(app, origins, libraries, problems, app_bytes, jdk);
    workspace.load_warnings = load_warnings;
    Ok(workspace)
}

fn no_jdk_message(problem: &Problem) -> String {
    format!(
        "no JDK found ({problem}).\n\
         lockstep reads the JDK's classes (Thread, locks, collections) to analyse a program.\n\
         Fix: give one with --jdk DIR, or set JAVA_HOME to a JDK, or put `java` on PATH;\n\
         or analyse without JDK classes with --no-jdk (much less precise)"
    )
}

/// Counts, per input path, the classes read from it that can be analysed
/// (anything but `module-info` and `package-info`), and whether any class
/// at all was read from it.
struct AnalysableCount<'a> {
    inputs: &'a [PathBuf],
    counts: Vec<u64>,
    read: Vec<bool>,
}

impl<'a> AnalysableCount<'a> {
    fn new(inputs: &'a [PathBuf]) -> Self {
        AnalysableCount {
            inputs,
            counts: vec![0; inputs.len()],
            read: vec![false; inputs.len()],
        }
    }

    fn count(&mut self, origin: &Origin, class: &ClassFile) {
        let Some(i) = self
            .inputs
            .iter()
            .position(|input| origin.container.starts_with(input))
        else {
            return;
        };
        self.read[i] = true;
        let name = class.this_class.rsplit('/').next().unwrap_or("");
        if name != "module-info" && name != "package-info" {
            self.counts[i] += 1;
        }
    }

    /// Whether any class (even `module-info`) was read from `path`.
    fn read_from(&self, path: &Path) -> bool {
        self.inputs
            .iter()
            .zip(&self.read)
            .any(|(input, read)| input == path && *read)
    }

    /// The inputs no analysable class came from.
    fn empty_inputs(&self) -> Vec<&'a Path> {
        self.inputs
            .iter()
            .zip(&self.counts)
            .filter(|(_, n)| **n == 0)
            .map(|(p, _)| p.as_path())
            .collect()
    }
}

/// "No class files could be read" for `empty` inputs, each with why: its
/// problems (the first few), or what it held.
fn no_classes_message_for(empty: &[&Path], problems: &[InputProblem]) -> String {
    let mut detail = String::new();
    for path in empty {
        let own: Vec<&InputProblem> = problems
            .iter()
            .filter(|p| Path::new(&p.file).starts_with(path))
            .collect();
        if own.is_empty() {
            detail.push_str(&format!(
                "\n  {}: holds no class to analyse (no class files, or only module-info/package-info)",
                path.display()
            ));
            continue;
        }
        for p in own.iter().take(PROBLEMS_NAMED) {
            detail.push_str(&format!("\n  {}: {}", p.display_path(), p.message));
        }
        if own.len() > PROBLEMS_NAMED {
            detail.push_str(&format!(
                "\n  ... and {} more in {}",
                own.len() - PROBLEMS_NAMED,
                path.display()
            ));
        }
    }
    format!("no class files could be read from {}{detail}", list(empty))
}

/// Problems named per input in a fatal error.
const PROBLEMS_NAMED: usize = 5;

fn list(paths: &[&Path]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

/// The problem for something the program model reported about the class
/// read from `origin` (an application origin string, or a class name for a
/// library class): file and archive entry apart, as in the JSON contract.
pub(crate) fn program_problem(
    origins: &HashMap<String, Origin>,
    origin: &str,
    message: String,
) -> InputProblem {
    match origins.get(origin) {
        Some(o) => origin_problem(o, message),
        None => InputProblem::new(origin, message),
    }
}

/// The libraries in lookup order (JDK first, then `-cp`).
#[derive(Clone)]
pub struct Libraries {
    libs: Arc<Vec<Library>>,
}

impl ClassProvider for Libraries {
    fn load(&self, internal_name: &str) -> Option<Result<Vec<u8>, String>> {
        for lib in self.libs.iter() {
            if let Some(r) = lib.load(internal_name) {
                return Some(r.map(|c| c.bytes).map_err(|p| p.to_string()));
            }
        }
        None
    }
}
