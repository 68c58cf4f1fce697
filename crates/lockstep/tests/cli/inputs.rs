//! Every kind of input: class directories, single class files, jars, jmods,
//! and libraries on `-cp`.

use std::ffi::OsStr;
use std::path::PathBuf;

use lockstep_testkit::{compile, compile_snippet, read_java_dir, CompileOptions, SourceFile};
use serde_json::{json, Value};

use crate::common::*;

/// The example compiled as a module (`jmod create` wants a module-info).
fn modular_example() -> lockstep_testkit::CompiledFixture {
    let mut sources = read_java_dir(&workspace_root().join("examples/inventory/src")).unwrap();
    sources.push(SourceFile::new(
        "module-info.java",
        "module com.example.inventory { }\n",
    ));
    compile(&sources, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn directory_class_files_jar_and_jmod_give_the_same_findings() {
    let fixture = modular_example();
    let tmp = tempfile::tempdir().unwrap();
    let jar = tmp.path().join("inventory.jar");
    let jmod = tmp.path().join("inventory.jmod");
    make_jar(&fixture.classes_dir, &jar, false);
    make_jmod(&fixture.classes_dir, &jmod);

    let class_files = fixture.class_files();
    assert_eq!(class_files.len(), 5, "4 classes and module-info");
    let inputs: Vec<(&str, Vec<PathBuf>)> = vec![
        ("directory", vec![fixture.classes_dir.clone()]),
        ("class files", class_files),
        ("jar", vec![jar]),
        ("jmod", vec![jmod]),
    ];
    let mut reference: Option<(Value, Value)> = None;
    for (what, paths) in inputs {
        let mut args: Vec<&OsStr> = paths.iter().map(|p| p.as_os_str()).collect();
        args.push("--no-jdk".as_ref());
        let (run, report) = check_json(&args);
        run.expect_code(1);
        let found = &report["findings"];
        assert_eq!(found.as_array().unwrap().len(), 1, "{what}: {found:#}");
        assert_eq!(found[0]["class"], "com.example.inventory.Zone", "{what}");
        let counts = json!([report["summary"]["classes"], report["summary"]["methods"]]);
        match &reference {
            None => reference = Some((found.clone(), counts)),
            Some((want, want_counts)) => {
                assert_eq!(found, want, "{what}: findings differ from the directory's");
                assert_eq!(&counts, want_counts, "{what}: classes and methods");
            }
        }
    }
}

#[test]
fn a_class_without_locks_has_no_findings() {
    let fixture = compile_snippet(PLAIN).unwrap_or_else(|e| panic!("{e}"));
    let class = fixture.class_path("t.plain.Plain");
    for input in [&fixture.classes_dir, &class] {
        let (run, report) = check_json(&[input.as_os_str(), "--no-jdk".as_ref()]);
        run.expect_code(0);
        assert_eq!(findings(&report), &Vec::<Value>::new());
        assert_eq!(report["summary"]["findings"], 0);
        assert_eq!(report["summary"]["classes"], 1);
        assert_eq!(report["summary"]["methods"], 3, "<init>, next, main");
    }
    let run = lockstep([
        "check".as_ref(),
        class.as_os_str(),
        "--no-jdk".as_ref(),
        "--format".as_ref(),
        "concise".as_ref(),
    ]);
    run.expect_code(0);
    assert!(
        run.stdout
            .lines()
            .last()
            .unwrap()
            .starts_with("No findings in 1 class, 3 methods"),
        "{}",
        run.stdout
    );
}

const CELL: &str = "package t.lib;\n\
public class Cell {\n\
    private int v;\n\
    public synchronized int get() { return v; }\n\
    public synchronized void set(int n) { v = n; }\n\
}\n";

const BASE: &str = "package t.lib;\n\
public class Base {\n\
    public synchronized int twice(Cell c) { return c.get() + c.get(); }\n\
}\n";

const DERIVED: &str = "package t.lib;\n\
public class Derived extends Base {\n\
    public synchronized int sum(Cell c) {\n\
        return c.get() + c.get();\n\
    }\n\
    public static void main(String[] args) {\n\
        Derived d = new Derived();\n\
        Cell c = new Cell();\n\
        new Thread(() -> c.set(2)).start();\n\
        System.out.println(d.sum(c) + d.twice(c));\n\
    }\n\
}\n";

/// `Derived` and `Cell` in `app.jar`, their superclass `Base` in `base.jar`.
struct SplitProgram {
    _tmp: tempfile::TempDir,
    app_jar: PathBuf,
    base_jar: PathBuf,
}

fn split_program() -> SplitProgram {
    let fixture = compile(
        &[
            SourceFile::new("t/lib/Cell.java", CELL),
            SourceFile::new("t/lib/Base.java", BASE),
            SourceFile::new("t/lib/Derived.java", DERIVED),
        ],
        &CompileOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tmp = tempfile::tempdir().unwrap();
    let app = tmp.path().join("app");
    let lib = tmp.path().join("lib");
    for class in &fixture.classes {
        let dir = if class == "t/lib/Base" { &lib } else { &app };
        let target = dir.join(format!("{class}.class"));
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(fixture.class_path(class), target).unwrap();
    }
    let app_jar = tmp.path().join("app.jar");
    let base_jar = tmp.path().join("base.jar");
    make_jar(&app, &app_jar, false);
    make_jar(&lib, &base_jar, false);
    SplitProgram {
        _tmp: tmp,
        app_jar,
        base_jar,
    }
}

#[test]
fn program_problems_in_a_jar_name_the_jar_and_the_entry() {
    let p = split_program();
    let (run, report) = check_json(&[p.app_jar.as_os_str(), "--no-jdk".as_ref()]);
    run.expect_code(1);
    let missing_base: Vec<&Value> = problems(&report)
        .iter()
        .filter(|p| p["message"].as_str().unwrap().contains("t.lib.Base is not"))
        .collect();
    assert_eq!(
        missing_base,
        [&json!({
            "file": p.app_jar.display().to_string(),
            "entry": "t/lib/Derived.class",
            "message": "t.lib.Base is not on the class path (1 class extends or implements it); add the jar that defines it with -cp",
            "kind": "missing-class",
        })]
    );
    for problem in problems(&report) {
        assert!(
            !problem["file"].as_str().unwrap().contains('!'),
            "the entry is not glued to the file: {problem}"
        );
    }
}

#[test]
fn classpath_libraries_are_read_but_not_reported_on() {
    let p = split_program();
    let (run, report) = check_json(&[
        p.app_jar.as_os_str(),
        "-cp".as_ref(),
        p.base_jar.as_os_str(),
        "--no-jdk".as_ref(),
    ]);
    run.expect_code(1);
    // Base (on -cp) resolves now...
    assert!(
        !problems(&report)
            .iter()
            .any(|p| p["message"].as_str().unwrap().contains("t/lib/Base of")),
        "{:#?}",
        problems(&report)
    );
    // ...and its own reacquired lock is not reported: only the application is.
    let found = findings(&report);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["class"], "t.lib.Derived");
    assert_eq!(found[0]["method"], "sum");
    assert_eq!(report["summary"]["classes"], 2, "Derived and Cell");

    // Given as an application input, Base is reported on like the rest.
    let (run, report) = check_json(&[
        p.app_jar.as_os_str(),
        p.base_jar.as_os_str(),
        "--no-jdk".as_ref(),
    ]);
    run.expect_code(1);
    let classes: Vec<&str> = findings(&report)
        .iter()
        .map(|f| f["class"].as_str().unwrap())
        .collect();
    assert_eq!(classes, ["t.lib.Base", "t.lib.Derived"]);
}

#[test]
fn missing_super_types_are_grouped_by_missing_class() {
    // Two classes extend one class that is not given: one problem naming it.
    let lib = compile(
        &[
            SourceFile::new("t/lib/Base.java", "package t.lib; public class Base {}\n"),
            SourceFile::new(
                "t/app/A.java",
                "package t.app; public class A extends t.lib.Base {}\n",
            ),
            SourceFile::new(
                "t/app/B.java",
                "package t.app; public class B extends t.lib.Base {}\n",
            ),
        ],
        &CompileOptions::default(),
    )
    .expect("compile");
    let app = tempfile::tempdir().expect("tempdir");
    for name in ["A", "B"] {
        let from = lib.classes_dir.join(format!("t/app/{name}.class"));
        let to_dir = app.path().join("t/app");
        std::fs::create_dir_all(&to_dir).expect("mkdir");
        std::fs::copy(&from, to_dir.join(format!("{name}.class"))).expect("copy");
    }
    let run = lockstep([
        "check".as_ref(),
        "--no-jdk".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        app.path().as_os_str(),
    ]);
    run.expect_code(0);
    let report = run.json();
    let problems = report["problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 1, "{problems:#?}");
    let message = problems[0]["message"].as_str().expect("message");
    assert!(
        message
            .starts_with("t.lib.Base is not on the class path (2 classes extend or implement it)"),
        "{message}"
    );
}
