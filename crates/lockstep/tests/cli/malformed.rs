//! Damaged and missing inputs: problems are reported with the file (and
//! entry) and the rest is analysed; nothing readable at all is exit 2; no
//! input ever makes lockstep panic.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::*;

const STOCK: &str = "com/example/inventory/Stock.class";

/// Deterministic "random" bytes (xorshift64).
fn noise(len: usize, mut state: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// A copy of the example's classes in a fresh temporary directory.
fn example_copy(tmp: &Path) -> PathBuf {
    let dir = tmp.join("classes");
    copy_tree(&example_dir(), &dir);
    dir
}

/// The problems of a report whose `file` is `path`.
fn problems_for<'a>(report: &'a Value, path: &Path) -> Vec<&'a Value> {
    let path = path.display().to_string();
    problems(report)
        .iter()
        .filter(|p| p["file"] == path.as_str())
        .collect()
}

/// The example's one finding is still reported.
#[track_caller]
fn assert_zone_still_found(report: &Value) {
    let classes: Vec<&str> = findings(report)
        .iter()
        .map(|f| f["class"].as_str().unwrap())
        .collect();
    assert_eq!(classes, ["com.example.inventory.Zone"]);
}

#[test]
fn garbage_and_truncated_class_files_are_problems() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = example_copy(tmp.path());
    let pkg = dir.join("com/example/inventory");
    // CAFEBABE, version 61.0 (Java 17), then noise where the constant pool should be.
    let mut garbage = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61];
    garbage.extend(noise(500, 0x9E37_79B9_7F4A_7C15));
    let garbage_path = pkg.join("Garbage.class");
    std::fs::write(&garbage_path, garbage).unwrap();
    let stock = std::fs::read(dir.join(STOCK)).unwrap();
    let truncated_path = pkg.join("Truncated.class");
    std::fs::write(&truncated_path, &stock[..stock.len() / 2]).unwrap();

    let (run, report) = check_json(&[dir.as_os_str(), "--no-jdk".as_ref()]);
    run.expect_code(1);
    for bad in [&garbage_path, &truncated_path] {
        let found = problems_for(&report, bad);
        assert_eq!(
            found.len(),
            1,
            "{}: {:#?}",
            bad.display(),
            problems(&report)
        );
        assert_eq!(found[0]["entry"], Value::Null);
        assert!(!found[0]["message"].as_str().unwrap().is_empty());
    }
    assert_zone_still_found(&report);
    assert_eq!(report["summary"]["classes"], 4, "the four good classes");
    assert_eq!(
        report["summary"]["problems"],
        problems(&report).len() as u64
    );

    // The text report lists them as errors and counts them in the summary.
    let run = lockstep(["check".as_ref(), dir.as_os_str(), "--no-jdk".as_ref()]);
    run.expect_code(1);
    let line = format!("error: {}: ", garbage_path.display());
    assert!(run.stdout.contains(&line), "{}", run.stdout);
    assert!(
        run.stdout.contains("inputs could not be read."),
        "{}",
        run.stdout
    );
}

#[test]
fn unsupported_class_file_version_is_a_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = example_copy(tmp.path());
    let stock = dir.join(STOCK);
    let mut bytes = std::fs::read(&stock).unwrap();
    // major_version lives in bytes 6-7: 70 is Java 26, one past what lockstep reads.
    bytes[6..8].copy_from_slice(&70u16.to_be_bytes());
    std::fs::write(&stock, &bytes).unwrap();

    let (run, report) = check_json(&[dir.as_os_str(), "--no-jdk".as_ref()]);
    run.expect_code(1);
    let found = problems_for(&report, &stock);
    assert_eq!(found.len(), 1, "{:#?}", problems(&report));
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.contains("unsupported class file version 70"),
        "{message}"
    );
    assert_zone_still_found(&report);
    assert_eq!(report["summary"]["classes"], 3);

    // On its own nothing can be analysed: that is an input error, exit 2.
    let run = lockstep(["check".as_ref(), stock.as_os_str(), "--no-jdk".as_ref()]);
    run.expect_code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("error: no class files could be read from "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(
            "{}: at byte 6: unsupported class file version 70",
            stock.display()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn truncated_jar_is_a_problem_naming_the_jar() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole.jar");
    make_jar(&example_dir(), &whole, false);
    let bytes = std::fs::read(&whole).unwrap();
    let half = tmp.path().join("half.jar");
    std::fs::write(&half, &bytes[..bytes.len() / 2]).unwrap();

    // Alone: nothing readable, exit 2, the jar named on stderr.
    let run = lockstep(["check".as_ref(), half.as_os_str(), "--no-jdk".as_ref()]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains(&format!("{}: truncated zip", half.display())),
        "{}",
        run.stderr
    );

    // Next to good classes: a problem in the report, the rest analysed.
    let dir = example_dir();
    let (run, report) = check_json(&[half.as_os_str(), dir.as_os_str(), "--no-jdk".as_ref()]);
    run.expect_code(1);
    let found = problems_for(&report, &half);
    assert_eq!(found.len(), 1, "{:#?}", problems(&report));
    assert_eq!(found[0]["entry"], Value::Null);
    assert!(
        found[0]["message"].as_str().unwrap().contains("truncated"),
        "{}",
        found[0]
    );
    assert_zone_still_found(&report);
}

#[test]
fn corrupt_jar_entry_names_the_jar_and_the_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let jar = tmp.path().join("stored.jar");
    // Stored (uncompressed), so Stock.class's bytes appear verbatim.
    make_jar(&example_dir(), &jar, true);
    let mut bytes = std::fs::read(&jar).unwrap();
    let stock = std::fs::read(example_dir().join(STOCK)).unwrap();
    let at = bytes
        .windows(stock.len())
        .position(|w| w == stock.as_slice())
        .expect("the stored jar holds Stock.class verbatim");
    bytes[at + stock.len() / 2] ^= 0xFF;
    std::fs::write(&jar, &bytes).unwrap();

    let (run, report) = check_json(&[jar.as_os_str(), "--no-jdk".as_ref()]);
    run.expect_code(1);
    let found: Vec<&Value> = problems_for(&report, &jar)
        .into_iter()
        .filter(|p| p["entry"] == STOCK)
        .collect();
    assert_eq!(found.len(), 1, "{:#?}", problems(&report));
    let message = found[0]["message"].as_str().unwrap();
    assert!(message.contains("CRC mismatch"), "{message}");
    assert_zone_still_found(&report);
    assert_eq!(report["summary"]["classes"], 3, "all but Stock");
}

#[test]
fn unreadable_file_next_to_good_input_is_a_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let text = tmp.path().join("notes.txt");
    std::fs::write(&text, "not a class file\n").unwrap();
    let dir = example_dir();
    let (run, report) = check_json(&[dir.as_os_str(), text.as_os_str(), "--no-jdk".as_ref()]);
    run.expect_code(1);
    let found = problems_for(&report, &text);
    assert_eq!(found.len(), 1, "{:#?}", problems(&report));
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("not a class file, jar, jmod, directory or JDK image"),
        "{}",
        found[0]
    );
    assert_zone_still_found(&report);
}

#[test]
fn nonexistent_path_is_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no/such/classes");
    let dir = example_dir();
    let run = lockstep(["check".as_ref(), dir.as_os_str(), missing.as_os_str()]);
    run.expect_code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains(&format!(
            "error: {}: no such file or directory",
            missing.display()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn directory_without_class_files_is_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("sub")).unwrap();
    std::fs::write(tmp.path().join("sub/README.txt"), "nothing here").unwrap();
    let run = lockstep([
        "check".as_ref(),
        tmp.path().as_os_str(),
        "--no-jdk".as_ref(),
    ]);
    run.expect_code(2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("error: no class files could be read from "),
        "{}",
        run.stderr
    );
}

#[test]
fn usage_errors_are_exit_2() {
    let dir = example_dir();
    let dir = dir.as_os_str();
    for flag in ["--select", "--ignore"] {
        let run = lockstep(["check".as_ref(), dir, flag.as_ref(), "nope".as_ref()]);
        run.expect_code(2);
        assert!(
            run.stderr.contains(
                "unknown rule `nope` (known rules: all, blocking-under-lock, data-race, deadlock, non-atomic-method, reacquired-lock, reacquired-lock-pair, stale-value, wait-notify)"
            ),
            "{flag}: {}",
            run.stderr
        );
        assert_eq!(run.stdout, "");
    }

    let run = lockstep(["check".as_ref(), dir, "--format".as_ref(), "nope".as_ref()]);
    run.expect_code(2);
    assert!(run.stderr.contains("'nope'"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("[possible values: text, concise, json, sarif, github]"),
        "{}",
        run.stderr
    );

    // No paths, no subcommand, an unknown flag.
    for args in [
        vec!["check"],
        vec![],
        vec!["check", "--frobnicate", "x"],
        vec!["check", "--jdk", "/x", "--no-jdk", "y"],
    ] {
        let run = lockstep(&args);
        run.expect_code(2);
        assert!(
            run.stderr.contains("Usage: lockstep"),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(run.stdout, "", "{args:?}");
    }

    // An explicit --jdk that is not a JDK is an input error, not a warning.
    let tmp = tempfile::tempdir().unwrap();
    let run = lockstep([
        "check".as_ref(),
        dir,
        "--jdk".as_ref(),
        tmp.path().as_os_str(),
    ]);
    run.expect_code(2);
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
}
