//! Parsing `// expect:` comments and checking findings against them.

use std::path::Path;

use lockstep_testkit::{
    check_expectations, check_expectations_lenient, expectations, read_java_dir, try_expectations,
    ActualFinding, Expectation, KnownLimit, SourceFile,
};

fn parse(text: &str) -> Vec<Expectation> {
    expectations(&[SourceFile::new("com/x/Counter.java", text)])
}

fn parse_c(text: &str) -> Vec<Expectation> {
    expectations(&[SourceFile::new("C.java", text)])
}

/// `(line, rule, negative)` triples, for compact assertions.
fn summary(e: &[Expectation]) -> Vec<(u32, &str, bool)> {
    e.iter()
        .map(|e| (e.line, e.rule.as_str(), e.negative))
        .collect()
}

fn at(line: u32, rule: &str) -> ActualFinding {
    ActualFinding::new("Counter.java", line, rule, format!("{rule} message"))
}

const COUNTER: &str = "\
class Counter {                          // 1
    int count;                           // 2
    void inc() { count++; }              // expect: data-race
    synchronized void ok() { count++; }  // expect-not: data-race

    // expect: data-race, lock-order
    /* a block comment line is skipped too */

    void both() { count++; }             // 8
    void twice() { count++; count--; }   // expect: data-race x2
    // known-fn: data-race  escapes through a lambda
    void lambda() { Runnable r = () -> count++; }
    void fp() { count++; }               // expect: data-race  (FP: guarded by start())
}
";

#[test]
fn parses_trailing_preceding_multiple_negative_and_known() {
    let e = parse(COUNTER);
    assert_eq!(
        summary(&e),
        [
            (3, "data-race", false),
            (4, "data-race", true),
            (9, "data-race", false),
            (9, "lock-order", false),
            (10, "data-race", false),
            (12, "data-race", true),
            (13, "data-race", false),
        ]
    );
    assert!(e.iter().all(|e| e.file == "Counter.java"));
    assert!(e.iter().all(|e| e.source_path == "com/x/Counter.java"));
    assert_eq!(
        e[2].comment_line, 6,
        "preceding-line comment remembers its own line"
    );
    assert_eq!(e[4].count, Some(2));
    assert_eq!(e[0].count, None);

    let known_fn = &e[5];
    assert_eq!(known_fn.known, Some(KnownLimit::FalseNegative));
    assert_eq!(known_fn.note.as_deref(), Some("escapes through a lambda"));
    let fp = &e[6];
    assert_eq!(fp.known, Some(KnownLimit::FalsePositive));
    assert_eq!(fp.note.as_deref(), Some("(FP: guarded by start())"));
    assert_eq!(e[0].known, None);
    assert_eq!(
        fp.to_string(),
        "Counter.java:13: expect: data-race (FP: guarded by start())"
    );
}

#[test]
fn strings_and_block_comments_do_not_hold_directives() {
    let e = parse(
        "class C {\n\
         String s = \"// expect: nope\";\n\
         /* // expect: nope */ int x;\n\
         String u = \"http://a\"; int y; // expect: yes\n\
         }\n",
    );
    assert_eq!(summary(&e), [(4, "yes", false)]);
}

#[test]
fn stacked_comments_and_annotations() {
    let e = parse(
        "class C {\n\
         // expect: a\n\
         \n\
         // expect-not: b\n\
         @Deprecated\n\
         void m() {}\n\
         }\n",
    );
    // Both apply to the annotation line, the next line with code.
    assert_eq!(summary(&e), [(5, "a", false), (5, "b", true)]);
}

#[test]
fn two_directives_in_one_comment() {
    let e = parse("class C { int x; } // expect: a // expect-not: b\n");
    assert_eq!(summary(&e), [(1, "a", false), (1, "b", true)]);
}

#[test]
fn malformed_directives_are_reported_not_ignored() {
    let src = |text: &str| [SourceFile::new("A.java", text)];
    let err = try_expectations(&src("class A {} // expect data-race\n")).unwrap_err();
    assert!(
        err.contains("A.java:1") && err.contains("followed by `:`"),
        "{err}"
    );
    let err = try_expectations(&src("class A {} // expect:\n")).unwrap_err();
    assert!(err.contains("rule name"), "{err}");
    let err = try_expectations(&src("class A {}\n// expect: dangling\n\n")).unwrap_err();
    assert!(
        err.contains("A.java:2") && err.contains("not followed by a code line"),
        "{err}"
    );
    // Ordinary prose is fine.
    assert!(
        try_expectations(&src("class A {} // expected to be fast\n"))
            .unwrap()
            .is_empty()
    );
}

#[test]
#[should_panic(expected = "malformed expectation comments")]
fn expectations_panics_on_malformed() {
    parse("class C {} // expect-not data-race\n");
}

#[test]
fn fixture_dir_expectations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/two_file_package");
    let sources = read_java_dir(&dir).unwrap();
    let e = expectations(&sources);
    assert_eq!(
        summary(&e),
        [
            (8, "data-race", false),
            (12, "data-race", true),
            (16, "data-race", false)
        ]
    );
}

#[test]
fn check_passes_when_findings_match() {
    let e = parse(COUNTER);
    let actual = vec![
        at(3, "data-race"),
        at(9, "data-race"),
        at(9, "lock-order"),
        at(10, "data-race"),
        at(10, "data-race"),
        at(13, "data-race"),
        // A bare rule accepts several findings.
        at(3, "data-race"),
    ];
    check_expectations(&e, &actual).unwrap();
    // Files are compared by base name.
    let mut qualified = actual.clone();
    for a in &mut qualified {
        a.file = Some("com/x/Counter.java".to_string());
    }
    check_expectations(&e, &qualified).unwrap();
}

#[test]
fn check_reports_a_readable_diff() {
    let e = parse(COUNTER);
    let actual = vec![
        // 3 missing
        at(4, "data-race"), // forbidden
        at(9, "data-race"),
        at(9, "lock-order"),
        at(10, "data-race"), // only one of x2
        at(12, "data-race"), // known FN now found
        at(13, "data-race"),
        at(2, "deadlock"), // unexpected
        ActualFinding {
            file: None,
            line: None,
            rule: "data-race".into(),
            message: "somewhere".into(),
        },
    ];
    let report = check_expectations(&e, &actual).unwrap_err();
    println!("{report}");
    let expected_lines = [
        "fixture expectations not met (1 missing, 2 unexpected, 1 forbidden, 1 wrong count, 1 known limits changed)",
        "missing findings (expected, not reported):",
        "  - Counter.java:3: data-race",
        "wrong number of findings (`rule xN` expectations):",
        "  # Counter.java:10: data-race: expected 2, found 1:",
        "      data-race message",
        "unexpected findings (reported, not expected):",
        "  + Counter.java:2: deadlock: deadlock message",
        "  + <no file>:?: data-race: somewhere",
        "forbidden findings (on an `expect-not` line):",
        "  ! Counter.java:4: data-race: data-race message",
        "known false negative is now found: update the fixture (`known-fn: rule` -> `expect: rule`):",
        "  + Counter.java:12: data-race: data-race message",
    ];
    assert_eq!(report.lines().collect::<Vec<_>>(), expected_lines);
}

#[test]
fn fixed_false_positive_asks_for_a_fixture_update() {
    let e = parse_c("class C {} // expect: data-race (FP: benign)\n");
    let report = check_expectations(&e, &[]).unwrap_err();
    assert!(
        report.contains("known false positive no longer reported")
            && report.contains("C.java:1: data-race")
            && !report.contains("missing findings"),
        "{report}"
    );
}

#[test]
fn lenient_ignores_only_unmentioned_rules() {
    let e = parse_c("class C {\n  int x; // expect: data-race\n}\n");
    let unrelated = ActualFinding::new("C.java", 1, "deadlock", "other rule");
    let stray_race = ActualFinding::new("C.java", 3, "data-race", "stray");
    let hit = ActualFinding::new("C.java", 2, "data-race", "hit");

    assert!(check_expectations(&e, &[hit.clone(), unrelated.clone()]).is_err());
    check_expectations_lenient(&e, &[hit.clone(), unrelated.clone()]).unwrap();
    let report = check_expectations_lenient(&e, &[hit, unrelated, stray_race]).unwrap_err();
    assert!(report.contains("C.java:3: data-race: stray"), "{report}");
    assert!(!report.contains("deadlock"), "{report}");
    // Missing findings still fail in lenient mode.
    assert!(check_expectations_lenient(&e, &[]).is_err());
}

#[test]
fn no_expectations_and_no_findings_pass() {
    check_expectations(&[], &[]).unwrap();
    assert!(check_expectations(&[], &[at(1, "x")]).is_err());
    check_expectations_lenient(&[], &[at(1, "x")]).unwrap();
}
