//! `lockstep rules` and the hidden `lockstep debug` commands.

use crate::common::*;

#[test]
fn rules_lists_every_rule_with_its_default() {
    let run = lockstep(["rules"]);
    run.expect_code(0);
    let lines: Vec<Vec<&str>> = run
        .stdout
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let heads: Vec<(&str, &str)> = lines.iter().map(|l| (l[0], l[1])).collect();
    assert_eq!(
        heads,
        [
            ("blocking-under-lock", "on"),
            ("data-race", "off"),
            ("deadlock", "off"),
            ("non-atomic-method", "off"),
            ("reacquired-lock", "off"),
            ("reacquired-lock-pair", "off"),
            ("stale-value", "off"),
            ("wait-notify", "on")
        ],
        "{}",
        run.stdout
    );
    assert!(lines.iter().all(|l| l.len() > 3), "each with a summary");
}

#[test]
fn rules_shows_the_docs_of_one_rule() {
    let run = lockstep(["rules", "reacquired-lock"]);
    run.expect_code(0);
    assert!(
        run.stdout.starts_with("# reacquired-lock\n"),
        "{}",
        run.stdout
    );
    for section in ["## What it finds", "## How to fix it", "## Known limits"] {
        assert!(run.stdout.contains(section), "{section}");
    }
    let run = lockstep(["rules", "data-race"]);
    run.expect_code(0);
    for section in ["## What it finds", "## How to fix it", "## Known limits"] {
        assert!(run.stdout.contains(section), "data-race: {section}");
    }
    let run = lockstep(["rules", "reacquired-lock-pair"]);
    run.expect_code(0);
    assert!(
        run.stdout.contains("reacquired-lock-pair"),
        "{}",
        run.stdout
    );

    let run = lockstep(["rules", "nope"]);
    run.expect_code(2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: unknown rule `nope` (known rules: all, blocking-under-lock, data-race, deadlock, non-atomic-method, reacquired-lock, reacquired-lock-pair, stale-value, wait-notify)\n"
    );
}

#[test]
fn help_and_version() {
    let run = lockstep(["--version"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        format!("lockstep {}\n", env!("CARGO_PKG_VERSION"))
    );
    let run = lockstep(["check", "--help"]);
    run.expect_code(0);
    for flag in ["--format", "--select", "--ignore", "--stats", "--no-jdk"] {
        assert!(run.stdout.contains(flag), "{flag}");
    }
    // `debug` is hidden.
    let run = lockstep(["--help"]);
    run.expect_code(0);
    assert!(!run.stdout.contains("debug"), "{}", run.stdout);
}

#[test]
fn debug_ir_prints_the_method() {
    let dir = example_dir();
    let run = lockstep([
        "debug".as_ref(),
        "ir".as_ref(),
        dir.as_os_str(),
        "--no-jdk".as_ref(),
        "--method".as_ref(),
        "com.example.inventory.Zone.contains".as_ref(),
    ]);
    run.expect_code(0);
    let out = &run.stdout;
    assert!(
        out.starts_with(
            "method com/example/inventory/Zone.contains(Lcom/example/inventory/Point;)Z synchronized\n"
        ),
        "{out}"
    );
    assert!(out.contains("  monitors:\n"), "{out}");
    assert!(out.contains("m0: synchronized method on this"), "{out}");
    assert!(
        out.contains("<com/example/inventory/Point.getX()I>"),
        "{out}"
    );
    assert!(
        out.contains("<com/example/inventory/Point.getY()I>"),
        "{out}"
    );
    assert!(!out.contains("invalid IR"), "{out}");
    // Only `contains`, not `containsAtomically`.
    assert_eq!(out.matches("\nmethod ").count() + 1, 1, "{out}");

    // A whole class: every method.
    let run = lockstep([
        "debug".as_ref(),
        "ir".as_ref(),
        dir.as_os_str(),
        "--no-jdk".as_ref(),
        "-m".as_ref(),
        "com.example.inventory.Zone".as_ref(),
    ]);
    run.expect_code(0);
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("method "))
            .count(),
        3,
        "<init>, contains, containsAtomically"
    );

    for missing in [
        "com.example.inventory.Zone.nope",
        "com.example.Nope",
        "java.lang.Object",
    ] {
        let run = lockstep([
            "debug".as_ref(),
            "ir".as_ref(),
            dir.as_os_str(),
            "--no-jdk".as_ref(),
            "--method".as_ref(),
            missing.as_ref(),
        ]);
        run.expect_code(2);
        assert!(
            run.stderr.contains("error: no "),
            "{missing}: {}",
            run.stderr
        );
    }
}

#[test]
fn debug_callgraph_has_the_zone_edges() {
    let dir = example_dir();
    let run = lockstep([
        "debug".as_ref(),
        "callgraph".as_ref(),
        dir.as_os_str(),
        "--no-jdk".as_ref(),
    ]);
    run.expect_code(0);
    let zone = example_source("Zone.java");
    for (getter, call) in [("getX", "p.getX()"), ("getY", "p.getY()")] {
        let edge = format!(
            "com.example.inventory.Zone.contains(Lcom/example/inventory/Point;)Z:{} -> com.example.inventory.Point.{getter}()I [Virtual]",
            line_of(&zone, call)
        );
        assert!(
            run.stdout.lines().any(|l| l == edge),
            "{edge}\n{}",
            run.stdout
        );
    }
    assert!(
        run.stdout
            .starts_with(
                "# Rta, entry points: 6 (main methods, and the library harness for what no main reaches)\n"
            ),
        "{}",
        run.stdout
    );
    // CHA has at least the same edge.
    let run = lockstep([
        "debug".as_ref(),
        "callgraph".as_ref(),
        dir.as_os_str(),
        "--no-jdk".as_ref(),
        "--cha".as_ref(),
    ]);
    run.expect_code(0);
    assert!(run.stdout.starts_with("# Cha"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("Zone.contains(Lcom/example/inventory/Point;)Z:"),
        "{}",
        run.stdout
    );
}

#[test]
fn debug_threads_lists_the_roots_started_in_main() {
    // The shared facts' thread roots (points-to): `new Thread(r).start()`
    // runs the `Runnable` the thread was made with (here a lambda), the
    // executors run the lambdas.
    let dir = example_dir();
    let run = lockstep(["debug".as_ref(), "threads".as_ref(), dir.as_os_str()]);
    run.expect_code(0);
    let warehouse = example_source("Warehouse.java");
    let main = "com.example.inventory.Warehouse.main([Ljava/lang/String;)V";
    let mut lines: Vec<&str> = run.stdout.lines().collect();
    lines.sort();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    let picker = format!(
        "com.example.inventory.Warehouse.lambda$main$0(Lcom/example/inventory/Stock;)V started at {main}:{} [ThreadStart] many task: new java/lang/Thread @ Warehouse.main:",
        line_of(&warehouse, "t.start()")
    );
    // Started inside a loop: many threads run it at once.
    assert!(lines[0].starts_with(&picker), "{}", lines[0]);
    for (line, (lambda, call)) in lines[1..].iter().zip([
        (
            "lambda$main$1(Lcom/example/inventory/Stock;)V",
            "pool.execute(",
        ),
        (
            "lambda$main$2(Lcom/example/inventory/Point;)V",
            "pool.submit(",
        ),
    ]) {
        let at = line_of(&warehouse, call);
        let want = format!(
            "com.example.inventory.Warehouse.{lambda} started at {main}:{at} [Executor] task: lambda @ Warehouse.main:{at}"
        );
        assert_eq!(*line, want);
    }
}
