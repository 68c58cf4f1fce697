//! `--source-path` and `--source-root` on the bundled example: the text
//! report shows the marked source lines, SARIF and `github` locations are
//! relative to the source root.

use crate::common::*;

#[test]
fn the_example_finding_shows_its_source_and_repository_relative_paths() {
    let src = workspace_root().join("examples/inventory/src");
    let classes = example_dir();
    let run = lockstep([
        "check".as_ref(),
        classes.as_os_str(),
        "--no-jdk".as_ref(),
        "--source-path".as_ref(),
        src.as_os_str(),
    ]);
    run.expect_code(1);
    let zone = std::fs::read_to_string(src.join("com/example/inventory/Zone.java")).unwrap();
    // The `-->` line names Zone.java:N; the snippet below it shows line N.
    let arrow = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("--> Zone.java:"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let line: usize = arrow
        .split(':')
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let code = zone.lines().nth(line - 1).unwrap().trim();
    assert!(
        run.stdout.contains(&format!("{line} |")) && run.stdout.contains(code),
        "line {line} `{code}` not shown:\n{}",
        run.stdout
    );
    // Without sources nothing of the code is shown.
    let plain = lockstep([
        "check".as_ref(),
        classes.as_os_str(),
        "--no-jdk".as_ref(),
        "--source-path".as_ref(),
        "/nonexistent".as_ref(),
    ]);
    assert!(
        !plain.stdout.contains(&format!("{line} |")),
        "{}",
        plain.stdout
    );

    let root = workspace_root();
    let run = lockstep([
        "check".as_ref(),
        classes.as_os_str(),
        "--no-jdk".as_ref(),
        "--source-path".as_ref(),
        src.as_os_str(),
        "--source-root".as_ref(),
        root.as_os_str(),
        "--format".as_ref(),
        "github".as_ref(),
    ]);
    assert!(
        run.stdout
            .contains("file=examples/inventory/src/com/example/inventory/Zone.java,line="),
        "{}",
        run.stdout
    );
}
