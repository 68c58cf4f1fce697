//! Harness for the detector tests: compile a Java fixture with the testkit
//! (cached by content), build a workspace over the JDK
//! (`lockstep_testkit_program`) in library mode
//! (`open = true`: every public method is an entry point, so fixtures need
//! no `main`), run one detector the way `lockstep check` does, and compare
//! the findings with the `// expect:` comments of the fixture.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use lockstep_detectors::{Context, Detector, Options, RuleSet};
use lockstep_driver::{CheckSettings, Quiet, Workspace};
use lockstep_report::Finding;
use lockstep_testkit::{
    assert_expectations, compile_dir, ActualFinding, CompileOptions, CompiledFixture, Expectation,
};

/// `tests/fixtures/<path>`.
pub fn fixture_dir(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

/// Compiles every `.java` file under `tests/fixtures/<path>` (cached).
pub fn compile_fixture(path: &str) -> CompiledFixture {
    let dir = fixture_dir(path);
    compile_dir(&dir, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("javac failed for {}: {e}", dir.display()))
}

/// The fixture's classes as the application, over the JDK.
pub fn workspace_of(fixture: &CompiledFixture) -> Workspace {
    Workspace::from_classes(
        lockstep_testkit_program::parse_fixture(fixture),
        lockstep_testkit_program::jdk_provider(),
    )
}

/// Runs `detector` on the fixture with exactly the rules `rules` enabled,
/// as `lockstep check --open --select RULES` would (the driver also drops
/// findings of rules that are not enabled).
pub fn run_detector(
    fixture: &CompiledFixture,
    detector: &dyn Detector,
    rules: &[&str],
    options: &Options,
) -> Vec<Finding> {
    run_detector_in_mode(fixture, detector, rules, options, true)
}

/// [`run_detector`] as `lockstep check` without `--open` (`open = false`):
/// the fixture's `main` methods are the entry points (a fixture without
/// one is still analysed as a library).
pub fn run_detector_in_mode(
    fixture: &CompiledFixture,
    detector: &dyn Detector,
    rules: &[&str],
    options: &Options,
    open: bool,
) -> Vec<Finding> {
    let mut findings = with_context(fixture, rules, options, open, |cx| {
        detector.run(cx).findings
    });
    findings.retain(|f| rules.contains(&f.rule.as_str()));
    findings
}

/// Runs `f` on the detector context `lockstep check` builds for the
/// fixture (`open` as `--open`), with exactly `rules` enabled.
#[allow(dead_code)]
pub fn with_context<T>(
    fixture: &CompiledFixture,
    rules: &[&str],
    options: &Options,
    open: bool,
    f: impl FnOnce(&Context<'_>) -> T,
) -> T {
    let rules: RuleSet = rules
        .iter()
        .map(|r| r.parse().unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let settings = CheckSettings {
        rules,
        open,
        options: options.clone(),
        ..CheckSettings::default()
    };
    workspace_of(fixture).with_context(&settings, &mut Quiet, |session| f(&session.context))
}

/// The findings of `detector` on the fixture, closed, with exactly
/// `rules` enabled and `points_to` as the points-to analysis' settings.
pub fn run_with_points_to(
    fixture: &CompiledFixture,
    detector: &dyn Detector,
    rules: &[&str],
    points_to: lockstep_pointsto::Config,
) -> Vec<Finding> {
    let settings = CheckSettings {
        rules: rules
            .iter()
            .map(|r| r.parse().unwrap_or_else(|e| panic!("{e}")))
            .collect::<RuleSet>(),
        open: false,
        points_to,
        ..CheckSettings::default()
    };
    let mut findings = workspace_of(fixture)
        .with_context(&settings, &mut Quiet, |s| detector.run(&s.context).findings);
    findings.retain(|f| rules.contains(&f.rule.as_str()));
    findings
}

/// The findings as the testkit compares them (file base name and line).
pub fn actual(findings: &[Finding]) -> Vec<ActualFinding> {
    findings
        .iter()
        .map(|f| ActualFinding {
            file: f.location.file.clone(),
            line: f.location.line,
            rule: f.rule.clone(),
            message: format!("{} [in {}]", f.message, method_of(f)),
        })
        .collect()
}

/// `pkg.Class.method` of a finding's primary location.
pub fn method_of(f: &Finding) -> String {
    format!(
        "{}.{}",
        f.location.class,
        f.location.method.as_deref().unwrap_or("?")
    )
}

/// The fixture's expectations about the rules in `rules` (expectations about
/// rules that are not enabled in this run cannot be met, so they are dropped).
pub fn expectations_for(fixture: &CompiledFixture, rules: &[&str]) -> Vec<Expectation> {
    fixture
        .expectations()
        .into_iter()
        .filter(|e| rules.contains(&e.rule.as_str()))
        .collect()
}

/// Compiles `tests/fixtures/<path>`, runs `detector` with `rules` and
/// `options`, and asserts the findings match the fixture's comments exactly
/// (no missing, forbidden or unexpected finding). Returns the findings for
/// further checks.
pub fn check_fixture(
    path: &str,
    detector: &dyn Detector,
    rules: &[&str],
    options: &Options,
) -> Vec<Finding> {
    check_fixture_in_mode(path, detector, rules, options, true)
}

/// [`check_fixture`] with the entry mode chosen (see [`run_detector_in_mode`]).
pub fn check_fixture_in_mode(
    path: &str,
    detector: &dyn Detector,
    rules: &[&str],
    options: &Options,
    open: bool,
) -> Vec<Finding> {
    let fixture = compile_fixture(path);
    let expected = expectations_for(&fixture, rules);
    assert!(
        !expected.is_empty(),
        "fixture {path} has no expectations for {rules:?}"
    );
    let findings = run_detector_in_mode(&fixture, detector, rules, options, open);
    assert_expectations(&expected, &actual(&findings));
    findings
}

/// The 1-based line of the only line of `file` (a base name) in the fixture
/// that contains `marker`.
pub fn line_of(fixture: &CompiledFixture, file: &str, marker: &str) -> u32 {
    let source = fixture
        .sources
        .iter()
        .find(|s| s.file_name() == file)
        .unwrap_or_else(|| panic!("no source {file}"));
    let mut hits = source
        .text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker))
        .map(|(i, _)| i as u32 + 1);
    let line = hits
        .next()
        .unwrap_or_else(|| panic!("`{marker}` not in {file}"));
    assert!(hits.next().is_none(), "`{marker}` is not unique in {file}");
    line
}

/// Every finding, one per line, for failure messages.
pub fn dump(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(|f| {
            format!(
                "{} {}:{} [{}] {}\n  related: {:?}\n  notes: {:?}",
                f.rule,
                f.location.file.as_deref().unwrap_or("?"),
                f.location.line.unwrap_or(0),
                method_of(f),
                f.message,
                f.related
                    .iter()
                    .map(|r| format!(
                        "{}:{} {} — {}",
                        r.location.file.as_deref().unwrap_or("?"),
                        r.location.line.unwrap_or(0),
                        r.location.method.as_deref().unwrap_or("?"),
                        r.message
                    ))
                    .collect::<Vec<_>>(),
                f.notes
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The only finding whose primary location is `method`.
pub fn finding_in<'a>(findings: &'a [Finding], method: &str) -> &'a Finding {
    let hits: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.location.method.as_deref() == Some(method))
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "expected one finding in `{method}`, got:\n{}",
        dump(findings)
    );
    hits[0]
}
