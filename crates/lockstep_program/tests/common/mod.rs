//! Shared helpers for the integration tests: compile Java sources with the
//! testkit (cached), parse them, and build a `Program` over the JDK.

#![allow(dead_code)]

use std::path::Path;
use std::sync::OnceLock;

use lockstep_classpath::Library;
use lockstep_program::{ClassProvider, MethodId, Program};
use lockstep_testkit::{compile, CompileOptions, CompiledFixture, SourceFile};

pub const JDK_HOME: &str = "/usr/lib/jvm/java-17-openjdk-amd64";

/// The JDK's classes, indexed once per test binary.
pub fn jdk() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(|| {
        let home = std::env::var("LOCKSTEP_TEST_JDK").unwrap_or_else(|_| JDK_HOME.to_string());
        Library::jdk(Path::new(&home)).expect("a JDK for tests")
    })
}

pub fn jdk_provider() -> Box<dyn ClassProvider> {
    let lib = jdk();
    Box::new(move |name: &str| {
        lib.load(name)
            .map(|r| r.map(|c| c.bytes).map_err(|p| p.to_string()))
    })
}

/// Compiles `(path, text)` sources and returns the fixture.
pub fn compile_sources(sources: &[(&str, &str)]) -> CompiledFixture {
    let files: Vec<SourceFile> = sources
        .iter()
        .map(|(p, t)| SourceFile::new(*p, *t))
        .collect();
    compile(&files, &CompileOptions::default()).unwrap_or_else(|e| panic!("javac: {e}"))
}

/// A program of the fixture's classes over the JDK.
pub fn program_of(fixture: &CompiledFixture) -> Program {
    let app = fixture
        .classes
        .iter()
        .map(|c| {
            let bytes = fixture.read_class(c).expect("class file");
            let file = lockstep_classfile::parse(&bytes).expect("parse");
            (format!("{c}.class"), file)
        })
        .collect();
    Program::new(app, jdk_provider())
}

pub fn program(sources: &[(&str, &str)]) -> Program {
    program_of(&compile_sources(sources))
}

/// The method `name` (first with that name, or exactly `name(desc)` when
/// `name` contains a `(`) of class `class`.
pub fn method(p: &Program, class: &str, name: &str) -> MethodId {
    let c = p
        .class_by_name(class)
        .unwrap_or_else(|| panic!("no class {class}"));
    let info = p.class(c);
    let found = match name.find('(') {
        Some(i) => info.declared_method(&name[..i], &name[i..]),
        None => info.declared_methods_named(name).min(),
    };
    found.unwrap_or_else(|| panic!("no method {class}.{name}"))
}

/// `Class.name` of a method, for readable assertions.
pub fn name(p: &Program, m: MethodId) -> String {
    let md = p.method(m);
    format!("{}.{}", p.class(md.class).name, md.name)
}

/// The 1-based line of the first line of `text` containing `marker`.
pub fn line_of(text: &str, marker: &str) -> u32 {
    text.lines()
        .position(|l| l.contains(marker))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("marker {marker:?} not found"))
}
