//! Loading the program: read the application inputs, parse them in
//! parallel, and set up the lazily-read libraries (JDK, `-cp`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lockstep_classfile::ClassFile;
use lockstep_classpath::{Library, Origin, Problem};
use lockstep_program::ClassProvider;
use lockstep_report::InputProblem;
use rayon::prelude::*;

use crate::args::InputArgs;

/// What loading produced: parsed application classes (in input order), the
/// library provider, and every problem met on the way.
pub struct Loaded {
    pub app: Vec<(String, ClassFile)>,
    /// Where each application class came from, keyed by the origin string
    /// in `app` (`lib/app.jar!com/x/A.class`), so that problems the program
    /// model reports by that string can name the file and the entry apart.
    pub origins: HashMap<String, Origin>,
    pub libraries: Libraries,
    pub problems: Vec<InputProblem>,
    /// Bytes of application class files read.
    pub app_bytes: u64,
    /// The JDK used, if any.
    pub jdk: Option<PathBuf>,
}

/// A fatal input error: nothing could be analysed.
pub struct InputError(pub String);

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

pub fn load(input: &InputArgs) -> Result<Loaded, InputError> {
    for p in &input.paths {
        if !p.exists() {
            return Err(InputError(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    let read_options = crate::classpaths::read_options(input);
    let read = lockstep_classpath::read_inputs_with(&input.paths, &read_options);
    let mut problems: Vec<InputProblem> = read.problems.iter().map(problem_of).collect();
    if read.classes.is_empty() {
        return Err(InputError(no_classes_message(&problems)));
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
    for (origin, result) in parsed {
        match result {
            Ok(class) => {
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
    if app.is_empty() {
        // Class bytes were found but none of them parsed: nothing to analyse.
        return Err(InputError(no_classes_message(&problems)));
    }

    let mut libs = Vec::new();
    let library_paths = crate::classpaths::library_paths(input, &read.libraries);
    if !library_paths.is_empty() {
        let (lib, lib_problems) = Library::open_with(&library_paths, &read_options);
        problems.extend(lib_problems.iter().map(problem_of));
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
            Err(p) => {
                if input.jdk.is_some() {
                    return Err(InputError(p.to_string()));
                }
                problems.push(problem_of(&p));
            }
        }
    }
    Ok(Loaded {
        app,
        origins,
        libraries: Libraries {
            libs: Arc::new(libs),
        },
        problems,
        app_bytes,
        jdk,
    })
}

fn no_classes_message(problems: &[InputProblem]) -> String {
    let detail = problems
        .iter()
        .map(|p| format!("\n  {}: {}", p.display_path(), p.message))
        .collect::<String>();
    format!("no class files could be read from the given paths{detail}")
}

/// The problem for something the program model reported about the class
/// read from `origin` (an application origin string, or a class name for a
/// library class): file and archive entry apart, as in the JSON contract.
pub fn program_problem(
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

/// Whether a path looks like a JDK runtime image given as an application input.
#[allow(dead_code)]
pub fn is_jdk_image(path: &Path) -> bool {
    matches!(
        lockstep_classpath::detect_kind(path),
        Ok(lockstep_classpath::InputKind::JImage)
    )
}
