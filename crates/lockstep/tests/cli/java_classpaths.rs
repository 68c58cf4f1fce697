//! Class paths as Java teams write them, end to end: a Spring Boot jar
//! whose dependency is a nested jar, `-cp 'dir/*'` and `--module-path`.
//! The archives are made by the JDK's `jar` tool in the test.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use lockstep_testkit::{compile, CompileOptions, SourceFile};
use serde_json::Value;

use crate::common::*;

const BASE: &str = "package t.dep;\n\
public class Base {\n\
    public synchronized int twice(Object o) { return o.hashCode() * 2; }\n\
}\n";

const CELL: &str = "package t.app;\n\
public class Cell {\n\
    private int v;\n\
    public synchronized int get() { return v; }\n\
    public synchronized void set(int n) { v = n; }\n\
}\n";

const APP: &str = "package t.app;\n\
public class App extends t.dep.Base {\n\
    public synchronized int sum(Cell c) { return c.get() + c.get(); }\n\
    public static void main(String[] args) {\n\
        Cell c = new Cell();\n\
        new Thread(() -> c.set(2)).start();\n\
        System.out.println(new App().sum(c));\n\
    }\n\
}\n";

/// `app/` (App, Cell) and `dep/dep.jar` (Base), under one temporary dir.
struct Program {
    tmp: tempfile::TempDir,
    app: PathBuf,
    dep_jar: PathBuf,
}

fn program() -> Program {
    let fixture = compile(
        &[
            SourceFile::new("t/dep/Base.java", BASE),
            SourceFile::new("t/app/Cell.java", CELL),
            SourceFile::new("t/app/App.java", APP),
        ],
        &CompileOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tmp = tempfile::tempdir().unwrap();
    let app = tmp.path().join("app");
    let dep = tmp.path().join("dep-classes");
    for class in &fixture.classes {
        let dir = if class.starts_with("t/dep/") {
            &dep
        } else {
            &app
        };
        let target = dir.join(format!("{class}.class"));
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(fixture.class_path(class), target).unwrap();
    }
    let dep_jar = tmp.path().join("dep/dep.jar");
    std::fs::create_dir_all(dep_jar.parent().unwrap()).unwrap();
    make_jar(&dep, &dep_jar, false);
    Program { tmp, app, dep_jar }
}

fn missing_base(report: &Value) -> bool {
    problems(report)
        .iter()
        .any(|p| p["message"].as_str().unwrap().contains("t.dep.Base is not"))
}

/// The one finding expected on App, and that Base resolved.
#[track_caller]
fn assert_analysed_with_dependency(args: &[&OsStr]) {
    let mut all = args.to_vec();
    all.push("--no-jdk".as_ref());
    let (run, report) = check_json(&all);
    run.expect_code(1);
    assert!(!missing_base(&report), "{:#?}", problems(&report));
    let found = findings(&report);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["class"], "t.app.App");
    assert_eq!(report["summary"]["classes"], 2, "App and Cell, not Base");
}

fn spring_boot_jar(p: &Program) -> PathBuf {
    let root = p.tmp.path().join("boot");
    copy_tree(&p.app, &root.join("BOOT-INF/classes"));
    let lib = root.join("BOOT-INF/lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::copy(&p.dep_jar, lib.join("dep.jar")).unwrap();
    let jar = p.tmp.path().join("app-boot.jar");
    // Spring Boot stores nested jars uncompressed.
    make_jar(&root, &jar, true);
    jar
}

#[test]
fn spring_boot_jar_brings_its_nested_libraries() {
    let p = program();
    // Without its dependency, Base is missing.
    let (_, report) = check_json(&[p.app.as_os_str(), "--no-jdk".as_ref()]);
    assert!(missing_base(&report));
    let boot = spring_boot_jar(&p);
    assert_analysed_with_dependency(&[boot.as_os_str()]);
}

#[test]
fn wildcard_directory_and_module_path() {
    let p = program();
    let dir: &Path = p.dep_jar.parent().unwrap();
    let wildcard = dir.join("*");
    assert_analysed_with_dependency(&[p.app.as_os_str(), "-cp".as_ref(), wildcard.as_os_str()]);
    assert_analysed_with_dependency(&[p.app.as_os_str(), "-cp".as_ref(), dir.as_os_str()]);
    assert_analysed_with_dependency(&[
        p.app.as_os_str(),
        "--module-path".as_ref(),
        dir.as_os_str(),
    ]);
}
