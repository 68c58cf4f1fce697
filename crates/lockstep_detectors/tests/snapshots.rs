//! Every Java fixture of every rule, discovered from `tests/fixtures/<rule>/`,
//! checked the way `lockstep check --select <rule> <classes>` checks it
//! (its `main`s as entry points, or the library harness without one), and
//! its rendered text report compared with `tests/snapshots/`. Review a
//! changed snapshot as a change of what users read (`INSTA_UPDATE=always`
//! rewrites them; `cargo insta review` shows the differences).

mod common;

use std::path::Path;

use common::{compile_fixture, workspace_of};
use lockstep_detectors::{RuleId, RuleSet};
use lockstep_driver::{CheckSettings, Quiet};
use lockstep_report::{render, OutputFormat, RenderOptions};

/// The fixture directories of one rule family, in name order.
fn cases(family: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(family);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Checks every fixture of `family` with `rules` and snapshots the text report.
fn snapshot_family(family: &str, rules: &[RuleId]) {
    let cases = cases(family);
    assert!(!cases.is_empty(), "no fixtures for {family}");
    for case in cases {
        let fixture = compile_fixture(&format!("{family}/{case}"));
        let settings = CheckSettings {
            rules: rules.iter().copied().collect::<RuleSet>(),
            ..CheckSettings::default()
        };
        let outcome = workspace_of(&fixture).check(&settings, &mut Quiet);
        let text = render(
            &outcome.report,
            OutputFormat::Text,
            &RenderOptions::default(),
        );
        insta::with_settings!({
            snapshot_path => "snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(format!("{family}__{case}"), text);
        });
    }
}

#[test]
fn data_race_fixtures() {
    snapshot_family("data_race", &[RuleId::DataRace]);
}

#[test]
fn non_atomic_method_fixtures() {
    snapshot_family("non_atomic_method", &[RuleId::NonAtomicMethod]);
}

#[test]
fn reacquired_lock_fixtures() {
    snapshot_family(
        "reacquired_lock",
        &[RuleId::ReacquiredLock, RuleId::ReacquiredLockPair],
    );
}

#[test]
fn stale_value_fixtures() {
    snapshot_family("stale_value", &[RuleId::StaleValue]);
}

#[test]
fn deadlock_fixtures() {
    snapshot_family("deadlock", &[RuleId::Deadlock]);
}

#[test]
fn wait_notify_fixtures() {
    snapshot_family("wait_notify", &[RuleId::WaitNotify]);
}

#[test]
fn blocking_under_lock_fixtures() {
    snapshot_family("blocking_under_lock", &[RuleId::BlockingUnderLock]);
}
