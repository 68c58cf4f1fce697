//! Failing loudly: an analysis that did not happen, or saw less than it
//! was given, never ends in a quiet "No findings". No JDK, inputs with no
//! analysable class, class-path entries that gave nothing, missing
//! dependencies counted apart from unreadable inputs, `--fail-on-problems`,
//! and an unwritable `-o` refused up front.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use lockstep_testkit::{compile, CompileOptions, SourceFile};

use crate::common::*;

/// A program whose `App` extends `dep.Base` and starts a thread that
/// races on a field; `dep.Base` is compiled too, so a test can leave it out.
fn app_with_dependency() -> PathBuf {
    let sources = [
        SourceFile::new(
            "dep/Base.java",
            "package dep; public class Base { protected int shared; }",
        ),
        SourceFile::new(
            "app/App.java",
            "package app;
             public class App extends dep.Base {
                 public static void main(String[] args) {
                     App a = new App();
                     new Thread(() -> a.shared++).start();
                     a.shared++;
                 }
             }",
        ),
    ];
    compile(&sources, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .classes_dir
}

/// The application classes of [`app_with_dependency`] without `dep.Base`.
fn app_without_dependency(tmp: &Path) -> PathBuf {
    let dir = tmp.join("app-only");
    copy_tree(&app_with_dependency(), &dir);
    std::fs::remove_dir_all(dir.join("dep")).unwrap();
    dir
}

fn args<'a>(items: &[&'a OsStr]) -> Vec<&'a OsStr> {
    let mut all = vec![OsStr::new("check")];
    all.extend_from_slice(items);
    all
}

#[test]
fn no_jdk_found_is_exit_2_and_says_how_to_fix_it() {
    let tmp = tempfile::tempdir().unwrap();
    let empty_bin = tmp.path().join("bin");
    std::fs::create_dir(&empty_bin).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .args(["check".as_ref(), example_dir().as_os_str()])
        .env("JAVA_HOME", tmp.path().join("no-such-jdk"))
        .env("PATH", &empty_bin)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty(), "no report for an analysis not made");
    assert!(stderr.contains("error: no JDK found"), "{stderr}");
    for fix in ["--jdk DIR", "JAVA_HOME", "--no-jdk"] {
        assert!(stderr.contains(fix), "{fix} missing from: {stderr}");
    }
}

#[test]
fn an_input_with_nothing_to_analyse_is_exit_2_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    // Beside a good input, the empty one still fails the run.
    let run = lockstep(args(&[
        example_dir().as_os_str(),
        empty.as_os_str(),
        "--no-jdk".as_ref(),
    ]));
    run.expect_code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains(&format!(
            "error: no class files could be read from {}",
            empty.display()
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("holds no class to analyse"),
        "{}",
        run.stderr
    );

    let missing = tmp.path().join("nope.jar");
    let run = lockstep(args(&[missing.as_os_str(), "--no-jdk".as_ref()]));
    run.expect_code(2);
    assert!(
        run.stderr.contains(&missing.display().to_string()),
        "{}",
        run.stderr
    );
}

#[test]
fn a_jar_whose_only_class_is_corrupt_is_exit_2_naming_the_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let classes = tmp.path().join("classes/p");
    std::fs::create_dir_all(&classes).unwrap();
    std::fs::write(classes.join("Broken.class"), [0xCA, 0xFE, 0xBA, 0xBE, 0, 0]).unwrap();
    let jar = tmp.path().join("broken.jar");
    make_jar(&tmp.path().join("classes"), &jar, false);
    let run = lockstep(args(&[jar.as_os_str(), "--no-jdk".as_ref()]));
    run.expect_code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains(&format!("{}!p/Broken.class: ", jar.display())),
        "{}",
        run.stderr
    );
}

#[test]
fn a_directory_whose_class_files_cannot_be_read_is_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("classes");
    std::fs::create_dir(&dir).unwrap();
    // A dangling symlink cannot be read, even by root (chmod would not stop root).
    std::os::unix::fs::symlink(tmp.path().join("gone"), dir.join("A.class")).unwrap();
    let run = lockstep(args(&[dir.as_os_str(), "--no-jdk".as_ref()]));
    run.expect_code(2);
    assert!(
        run.stderr.contains("no class files could be read from"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&dir.display().to_string()),
        "{}",
        run.stderr
    );
}

#[test]
fn a_module_info_only_jmod_is_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = compile(
        &[SourceFile::new("module-info.java", "module only.info {}")],
        &CompileOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let jmod = tmp.path().join("only.jmod");
    make_jmod(&fixture.classes_dir, &jmod);
    let run = lockstep(args(&[jmod.as_os_str(), "--no-jdk".as_ref()]));
    run.expect_code(2);
    assert!(
        run.stderr.contains(&format!(
            "{}: holds no class to analyse (no class files, or only module-info",
            jmod.display()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn class_path_entries_that_give_nothing_are_loud_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty-lib");
    std::fs::create_dir(&empty).unwrap();
    let nope = tmp.path().join("nope.jar");
    let cp = format!("{}:{}", nope.display(), empty.display());
    let run = lockstep(args(&[
        example_dir().as_os_str(),
        "--no-jdk".as_ref(),
        "-cp".as_ref(),
        cp.as_ref(),
    ]));
    run.expect_code(1);
    assert!(
        run.stderr.contains(&format!(
            "warning: class-path entry {} does not exist",
            nope.display()
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(
            "warning: class-path entry {} holds no class files",
            empty.display()
        )),
        "{}",
        run.stderr
    );
    // The missing entry is an unreadable input in the report.
    let (_, report) = check_json(&[
        example_dir().as_os_str(),
        "--no-jdk".as_ref(),
        "-cp".as_ref(),
        cp.as_ref(),
    ]);
    assert_eq!(report["summary"]["unreadable"], 1, "{report:#}");
    assert_eq!(problems(&report)[0]["kind"], "unreadable");
}

#[test]
fn thousands_of_bad_entries_are_summarized_in_text_and_all_kept_in_json() {
    let tmp = tempfile::tempdir().unwrap();
    let classes = tmp.path().join("classes");
    copy_tree(&example_dir(), &classes);
    let bad_dir = classes.join("bad");
    std::fs::create_dir(&bad_dir).unwrap();
    for i in 0..40 {
        std::fs::write(bad_dir.join(format!("B{i:02}.class")), [0xCA, 0xFE]).unwrap();
    }
    let jar = tmp.path().join("app.jar");
    make_jar(&classes, &jar, false);
    let run = lockstep(args(&[jar.as_os_str(), "--no-jdk".as_ref()]));
    run.expect_code(1);
    let shown = run
        .stdout
        .lines()
        .filter(|l| l.starts_with(&format!("error: {}!bad/", jar.display())))
        .count();
    assert_eq!(shown, 5, "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!(
            "error: ... and 35 more in {} (all are listed in --format json)",
            jar.display()
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("; 40 inputs could not be read."),
        "{}",
        run.stdout
    );
    let (_, report) = check_json(&[jar.as_os_str(), "--no-jdk".as_ref()]);
    assert_eq!(problems(&report).len(), 40);
    assert_eq!(report["summary"]["unreadable"], 40);
    assert_eq!(report["summary"]["missing_classes"], 0);
}

#[test]
fn missing_dependencies_are_counted_apart_warned_about_and_can_fail_ci() {
    let tmp = tempfile::tempdir().unwrap();
    let app = app_without_dependency(tmp.path());
    let (run, report) = check_json(&[app.as_os_str()]);
    assert_ne!(run.code, 2, "{}", run.stderr);
    assert_eq!(report["summary"]["unreadable"], 0, "{report:#}");
    assert_eq!(report["summary"]["missing_classes"], 1, "{report:#}");
    assert_eq!(problems(&report)[0]["kind"], "missing-class");

    let run = lockstep(args(&[app.as_os_str()]));
    assert!(
        run.stdout
            .contains("; 1 referenced class missing from the class path."),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("could not be read"), "{}", run.stdout);
    assert!(
        run.stdout.contains("warning: ")
            && run.stdout.contains("dep.Base is not on the class path"),
        "{}",
        run.stdout
    );
    // One of one application class needs it: the prominent warning.
    assert!(
        run.stderr
            .contains("warning: 1 of 1 application classes extend or implement")
            && run.stderr.contains("most needed packages: dep (1)")
            && run.stderr.contains("with -cp"),
        "{}",
        run.stderr
    );

    let run = lockstep(args(&[app.as_os_str(), "--fail-on-problems".as_ref()]));
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("--fail-on-problems: 0 unreadable input(s), 1 class(es) missing"),
        "{}",
        run.stderr
    );
    // With the dependency the same switch passes the problem check.
    let full = app_with_dependency();
    let dep_only = tmp.path().join("dep-only");
    copy_tree(&full, &dep_only);
    std::fs::remove_dir_all(dep_only.join("app")).unwrap();
    let run = lockstep(args(&[
        app.as_os_str(),
        "-cp".as_ref(),
        dep_only.as_os_str(),
        "--fail-on-problems".as_ref(),
    ]));
    assert_ne!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stderr.contains("warning:"), "{}", run.stderr);
}

#[test]
fn fail_on_problems_can_be_set_in_the_config_file() {
    let tmp = tempfile::tempdir().unwrap();
    let app = app_without_dependency(tmp.path());
    std::fs::write(
        tmp.path().join("lockstep.toml"),
        "inputs = [\"app-only\"]\nfail-on-problems = true\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .arg("check")
        .current_dir(tmp.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(app.is_dir());
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--fail-on-problems"), "{stderr}");
}

#[test]
fn an_unwritable_output_is_refused_before_the_analysis() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("no-such-dir/report.json");
    let run = lockstep(args(&[
        example_dir().as_os_str(),
        "--no-jdk".as_ref(),
        "--stats".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]));
    run.expect_code(2);
    assert!(
        run.stderr.starts_with(&format!(
            "error: cannot write the report: {}",
            out.display()
        )),
        "{}",
        run.stderr
    );
    // Refused before any phase ran: no statistics were printed.
    assert!(!run.stderr.contains("statistics"), "{}", run.stderr);
    // A directory is refused too.
    let run = lockstep(args(&[
        example_dir().as_os_str(),
        "--no-jdk".as_ref(),
        "-o".as_ref(),
        tmp.path().as_os_str(),
    ]));
    run.expect_code(2);
    assert!(run.stderr.contains("is a directory"), "{}", run.stderr);
}
