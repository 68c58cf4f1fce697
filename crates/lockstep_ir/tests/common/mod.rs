//! Shared helpers: compile Java fixtures with javac (through the testkit's
//! cache), lower methods and check them with the validator.

#![allow(dead_code)]

pub mod build;

use lockstep_classfile::ClassFile;
use lockstep_ir::{dump, lower_method, validate, Body};
use lockstep_testkit::{compile, CompileOptions, SourceFile};

/// Compiles one or more `(file name, source)` pairs and parses every class produced.
pub fn compile_java(sources: &[(&str, &str)]) -> Vec<ClassFile> {
    let sources: Vec<SourceFile> = sources
        .iter()
        .map(|(n, t)| SourceFile::new(*n, *t))
        .collect();
    let fixture = compile(&sources, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("javac failed: {e}"));
    fixture
        .class_files()
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap();
            lockstep_classfile::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        })
        .collect()
}

/// The fixture file `tests/fixtures/<name>`, compiled.
pub fn compile_fixture(name: &str) -> Vec<ClassFile> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    compile_java(&[(name, &text)])
}

pub fn class<'a>(classes: &'a [ClassFile], name: &str) -> &'a ClassFile {
    classes
        .iter()
        .find(|c| &*c.this_class == name)
        .unwrap_or_else(|| panic!("no class {name}"))
}

/// Lowers the (first) method called `name` and checks the result with `validate`.
pub fn lower(class: &ClassFile, name: &str) -> Body {
    let m = class
        .methods
        .iter()
        .find(|m| &*m.name == name)
        .unwrap_or_else(|| panic!("no method {name} in {}", class.this_class));
    let body =
        lower_method(class, m).unwrap_or_else(|e| panic!("{}.{name}: {e}", class.this_class));
    if let Err(errs) = validate(&body) {
        panic!(
            "{}.{name} is invalid:\n{}\n{}",
            class.this_class,
            errs.join("\n"),
            dump(&body)
        );
    }
    body
}

/// Lowers every method with code of every class, validating each.
pub fn lower_all(classes: &[ClassFile]) -> Vec<Body> {
    let mut out = Vec::new();
    for c in classes {
        for (i, r) in lockstep_ir::lower_class(c) {
            let body = r.unwrap_or_else(|e| panic!("{}.{}: {e}", c.this_class, c.methods[i].name));
            if let Err(errs) = validate(&body) {
                panic!(
                    "{}.{} is invalid:\n{}\n{}",
                    c.this_class,
                    body.name,
                    errs.join("\n"),
                    dump(&body)
                );
            }
            out.push(body);
        }
    }
    out
}
