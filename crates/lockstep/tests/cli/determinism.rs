//! Output is byte-identical whatever the number of worker threads, the
//! order of the inputs, or the run.

use std::ffi::OsStr;
use std::fmt::Write;
use std::path::Path;

use lockstep_testkit::{compile, CompileOptions, CompiledFixture, SourceFile};

use crate::common::*;

fn check_stdout(paths: &[&Path], extra: &[&str]) -> String {
    let mut args: Vec<&OsStr> = vec!["check".as_ref()];
    args.extend(paths.iter().map(|p| p.as_os_str()));
    args.extend(extra.iter().map(OsStr::new));
    let run = lockstep(&args);
    assert!(
        run.code == 0 || run.code == 1,
        "exit {}: {}",
        run.code,
        run.stderr
    );
    run.stdout
}

#[test]
fn example_json_is_identical_for_any_thread_count() {
    // With the JDK: the call graph over thousands of JDK methods and the
    // per-method detector work are where scheduling could leak into output.
    let dir = example_dir();
    let first = &example_json_with_jdk().stdout;
    for threads in ["1", "2"] {
        let again = check_stdout(&[&dir], &["--format", "json", "-q", "-j", threads]);
        assert!(
            &again == first,
            "-j {threads} differs from the default run:\n{again}\n---\n{first}"
        );
    }
}

/// Splits the example into two class directories (Point and Zone; Stock and
/// Warehouse), so each holds part of the program.
fn split_example(tmp: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let fixture = example();
    let a = tmp.join("a");
    let b = tmp.join("b");
    for class in &fixture.classes {
        let half = if class.ends_with("/Point") || class.ends_with("/Zone") {
            &a
        } else {
            &b
        };
        let target = half.join(format!("{class}.class"));
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(fixture.class_path(class), target).unwrap();
    }
    (a, b)
}

#[test]
fn input_order_does_not_change_the_output() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = split_example(tmp.path());
    for format in ["json", "text", "sarif"] {
        let ab = check_stdout(&[&a, &b], &["--format", format, "--no-jdk"]);
        let ba = check_stdout(&[&b, &a], &["--format", format, "--no-jdk"]);
        assert_eq!(
            ab, ba,
            "{format}: the order of the inputs shows in the output"
        );
    }
    // And split or not, the findings are those of the whole directory.
    let (_, split) = check_json(&[a.as_os_str(), b.as_os_str(), "--no-jdk".as_ref()]);
    let (_, whole) = check_json(&[example_dir().as_os_str(), "--no-jdk".as_ref()]);
    assert_eq!(findings(&split), findings(&whole));
    assert_eq!(split["summary"], whole["summary"]);
}

/// Many classes, each with a reacquired lock, started from many threads:
/// enough findings for their order to matter.
fn many_findings() -> CompiledFixture {
    let mut sources = vec![SourceFile::new(
        "t/many/Cell.java",
        "package t.many;\n\
         public class Cell {\n\
             private int v;\n\
             public synchronized int get() { return v; }\n\
             public synchronized void set(int n) { v = n; }\n\
         }\n",
    )];
    let mut main = String::from(
        "package t.many;\npublic class Main {\n    public static void main(String[] args) {\n        Cell c = new Cell();\n",
    );
    for i in 0..24 {
        // Spread over two packages and with the finding at different lines.
        let pkg = if i % 2 == 0 { "t.many" } else { "t.many.sub" };
        let padding = "\n".repeat(i % 5);
        sources.push(SourceFile::new(
            format!("{}/Worker{i}.java", pkg.replace('.', "/")),
            format!(
                "package {pkg};\n\
                 public class Worker{i} implements Runnable {{\n\
                     private final t.many.Cell cell;\n\
                     public Worker{i}(t.many.Cell cell) {{ this.cell = cell; }}\n{padding}\
                     public synchronized int sum() {{\n\
                         int a = cell.get();\n\
                         int b = cell.get();\n\
                         return a + b;\n\
                     }}\n\
                     public synchronized boolean same() {{ return cell.get() == cell.get(); }}\n\
                     public void run() {{ cell.set(sum()); same(); }}\n\
                 }}\n"
            ),
        ));
        // Called directly too: without the JDK, `Thread.start` is not known
        // to start anything, and only reachable methods are analysed.
        let _ = writeln!(
            main,
            "        {pkg}.Worker{i} w{i} = new {pkg}.Worker{i}(c);\n        new Thread(w{i}).start();\n        w{i}.run();"
        );
    }
    main.push_str("    }\n}\n");
    sources.push(SourceFile::new("t/many/Main.java", main));
    compile(&sources, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn many_findings_are_identical_across_threads_runs_and_orders() {
    let fixture = many_findings();
    let dir = fixture.classes_dir.as_path();
    let reference = check_stdout(&[dir], &["--format", "json", "--no-jdk", "-j", "1"]);
    let report: serde_json::Value = serde_json::from_str(&reference).unwrap();
    assert_eq!(findings(&report).len(), 48, "two per worker");
    for threads in ["2", "2", "4"] {
        let again = check_stdout(&[dir], &["--format", "json", "--no-jdk", "-j", threads]);
        assert!(again == reference, "-j {threads} differs from -j 1");
    }
    // Class files one by one, in reverse order: the same classes from the
    // same files (problems name those files), so the same bytes.
    let mut files = fixture.class_files();
    files.reverse();
    let paths: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    let reversed = check_stdout(&paths, &["--format", "json", "--no-jdk", "-j", "2"]);
    assert!(
        reversed == reference,
        "reversed class files differ from the directory"
    );
}

/// Every rule, data-race and its points-to analysis included, gives the
/// same bytes for any thread count and input order: detectors start as
/// soon as the facts they read are ready, beside the facts still being
/// computed (reacquired-lock beside the race and lock-order facts), so
/// the thread count decides what runs at the same time.
#[test]
fn all_rules_are_identical_across_threads_and_input_orders() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = split_example(tmp.path());
    let first = check_stdout(
        &[&a, &b],
        &["--format", "json", "-q", "--select", "all", "-j", "1"],
    );
    assert!(first.contains("\"data-race\""), "{first}");
    assert!(first.contains("\"reacquired-lock\""), "{first}");
    for threads in ["2", "4"] {
        let again = check_stdout(
            &[&b, &a],
            &["--format", "json", "-q", "--select", "all", "-j", threads],
        );
        assert_eq!(
            first, again,
            "-j {threads} or the input order shows in the output"
        );
    }
}

/// A main that reaches nothing and public classes with synchronized
/// methods: hundreds of library-harness entries, one thread root each,
/// enough for the race facts to search the roots in groups on several
/// threads (`reach`) beside ownership's per-node pass.
fn many_roots() -> CompiledFixture {
    let mut sources = vec![SourceFile::new(
        "t/roots/Main.java",
        "package t.roots;\npublic class Main {\n    public static void main(String[] args) {}\n}\n",
    )];
    for k in 0..3 {
        let mut class = format!(
            "package t.roots;\npublic class Shared{k} {{\n    private int a;\n    private int b;\n    private final java.util.List<Integer> list = new java.util.ArrayList<>();\n"
        );
        for i in 0..110 {
            let _ = writeln!(
                class,
                "    public synchronized void locked{i}() {{ a = b + {i}; list.add(a); }}\n    public void plain{i}(Shared{k} other) {{ b = a; other.a = {i}; helper{}(); }}",
                i % 7
            );
        }
        for h in 0..7 {
            let _ = writeln!(class, "    private void helper{h}() {{ b += {h}; }}");
        }
        class.push_str("}\n");
        sources.push(SourceFile::new(format!("t/roots/Shared{k}.java"), class));
    }
    compile(&sources, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// With more than 512 thread roots the race facts split their searches
/// over the threads; the output is the same for any count and order.
#[test]
fn many_roots_are_identical_across_threads_and_input_orders() {
    let fixture = many_roots();
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for class in &fixture.classes {
        let half = if class.ends_with("/Shared1") { &a } else { &b };
        let target = half.join(format!("{class}.class"));
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(fixture.class_path(class), target).unwrap();
    }
    let args = |threads| {
        [
            "--format", "json", "-q", "--select", "all", "--stats", "-j", threads,
        ]
    };
    let run = |paths: &[&Path], threads| {
        let mut all: Vec<&OsStr> = vec!["check".as_ref()];
        all.extend(paths.iter().map(|p| p.as_os_str()));
        let extra = args(threads);
        all.extend(extra.iter().map(OsStr::new));
        let run = lockstep(&all);
        assert!(
            run.code == 0 || run.code == 1,
            "exit {}: {}",
            run.code,
            run.stderr
        );
        (run.stdout, run.stderr)
    };
    let (first, stats) = run(&[&a, &b], "1");
    assert!(first.contains("\"data-race\""), "{first}");
    let roots: usize = stats
        .lines()
        .find_map(|l| l.strip_prefix("thread roots: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no thread roots in {stats}"));
    assert!(roots > 512, "{roots} roots: too few to split the searches");
    for threads in ["2", "4"] {
        let (again, _) = run(&[&b, &a], threads);
        assert_eq!(
            first, again,
            "-j {threads} or the input order shows in the output"
        );
    }
}
