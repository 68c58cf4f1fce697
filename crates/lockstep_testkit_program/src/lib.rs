//! Test support over the program model, shared by the integration tests of
//! `lockstep_program`, `lockstep_pointsto` and the layers above: the JDK as
//! a class library, Java sources compiled with `lockstep_testkit` (cached by
//! content) and built into a [`Program`], jars as applications, and methods
//! found by name.
//!
//! Only tests use it (as a dev-dependency), so it panics with a readable
//! message instead of returning errors: a fixture that does not compile or
//! a missing JDK is a broken test set-up, not a result.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use lockstep_classfile::ClassFile;
use lockstep_classpath::Library;
use lockstep_program::{ClassProvider, MethodId, Program};
use lockstep_testkit::{compile, CompileOptions, CompiledFixture, SourceFile};

/// The JDK's classes, indexed once per test binary: `$LOCKSTEP_TEST_JDK`,
/// else the JDK `lockstep_classpath::find_jdk` finds (`$JAVA_HOME`, `PATH`).
pub fn jdk() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(|| {
        let home = match std::env::var_os("LOCKSTEP_TEST_JDK") {
            Some(h) => PathBuf::from(h),
            None => lockstep_classpath::find_jdk(None).unwrap_or_else(|p| panic!("no JDK: {p}")),
        };
        Library::jdk(&home).unwrap_or_else(|p| panic!("cannot read the JDK: {p}"))
    })
}

/// The whole [`jdk`] as a program's library.
pub fn jdk_provider() -> Box<dyn ClassProvider> {
    jdk_provider_keeping(|_| true)
}

/// The [`jdk`] cut down to the classes `keep` accepts: the rest does not
/// load, so calls into it are unresolved.
pub fn jdk_provider_keeping(keep: fn(&str) -> bool) -> Box<dyn ClassProvider> {
    let lib = jdk();
    Box::new(move |name: &str| {
        if !keep(name) {
            return None;
        }
        lib.load(name)
            .map(|r| r.map(|c| c.bytes).map_err(|p| p.to_string()))
    })
}

/// Compiles `(path, text)` sources with default options.
pub fn compile_sources(sources: &[(&str, &str)]) -> CompiledFixture {
    let files: Vec<SourceFile> = sources
        .iter()
        .map(|(p, t)| SourceFile::new(*p, *t))
        .collect();
    compile(&files, &CompileOptions::default()).unwrap_or_else(|e| panic!("javac: {e}"))
}

/// The fixture's classes, parsed, named `<internal name>.class` as a
/// program's application classes are.
pub fn parse_fixture(fixture: &CompiledFixture) -> Vec<(String, ClassFile)> {
    fixture
        .classes
        .iter()
        .map(|c| {
            let bytes = fixture
                .read_class(c)
                .unwrap_or_else(|e| panic!("reading class {c}: {e}"));
            let file = lockstep_classfile::parse(&bytes)
                .unwrap_or_else(|e| panic!("parsing class {c}: {e}"));
            (format!("{c}.class"), file)
        })
        .collect()
}

/// A program of the fixture's classes over `library`.
pub fn program_of_with(fixture: &CompiledFixture, library: Box<dyn ClassProvider>) -> Program {
    Program::new(parse_fixture(fixture), library)
}

/// A program of the fixture's classes over the [`jdk`].
pub fn program_of(fixture: &CompiledFixture) -> Program {
    program_of_with(fixture, jdk_provider())
}

/// The classes of a jar as the application, over `library`; `None` when
/// the jar is not there (the corpora are optional).
pub fn program_of_jar_with(path: &Path, library: Box<dyn ClassProvider>) -> Option<Program> {
    if !path.exists() {
        return None;
    }
    let (lib, problems) = Library::open(&[path.to_path_buf()]);
    assert!(problems.is_empty(), "{problems:?}");
    let names: Vec<String> = lib.class_names().map(str::to_string).collect();
    let app = names
        .iter()
        .filter_map(|n| {
            let bytes = lib.load(n)?.ok()?;
            let file = lockstep_classfile::parse(&bytes.bytes).ok()?;
            Some((bytes.origin.to_string(), file))
        })
        .collect();
    Some(Program::new(app, library))
}

/// The method `name` of class `class`: the first declared with that name,
/// or exactly `name(desc)` when `name` contains a `(`.
pub fn method(p: &Program, class: &str, name: &str) -> MethodId {
    let c = p
        .class_by_name(class)
        .unwrap_or_else(|| panic!("no class {class}"));
    let info = p.class(c);
    let found = match name.split_once('(') {
        Some((simple, _)) => info.declared_method(simple, &name[simple.len()..]),
        None => info.declared_methods_named(name).min(),
    };
    found.unwrap_or_else(|| panic!("no method {class}.{name}"))
}

/// `Class.name` of a method, for readable assertions.
pub fn method_name(p: &Program, m: MethodId) -> String {
    let md = p.method(m);
    format!("{}.{}", p.class(md.class).name, md.name)
}
