//! `data-race` with the JDK containers summarised as content models
//! (`lockstep_pointsto::Config::container_models`): per-call containers in
//! a program with more containers than the points-to bound keep their
//! items to themselves (silent), the same calls on static containers
//! race (reported), and the known false positive of `storage_past_bound`
//! (a per-call map's item reached through the `HashMap` nodes shared past
//! the bound) is gone while its shared twin stays reported.

mod common;

use common::{actual, compile_fixture, dump, expectations_for, line_of, run_with_points_to};
use lockstep_detectors::data_race::DataRace;
use lockstep_report::Finding;
use lockstep_testkit::{assert_expectations, CompiledFixture};

const RULES: &[&str] = &["data-race"];

fn models() -> lockstep_pointsto::Config {
    lockstep_pointsto::Config {
        container_models: true,
        ..lockstep_pointsto::Config::default()
    }
}

fn races(fixture: &CompiledFixture, points_to: lockstep_pointsto::Config) -> Vec<Finding> {
    run_with_points_to(fixture, &DataRace, RULES, points_to)
}

fn on_line(findings: &[Finding], line: u32) -> usize {
    findings
        .iter()
        .filter(|f| f.location.line == Some(line))
        .count()
}

/// Per-call list, map, set, tree map, deque, copy and lazily filled map
/// past the bound: with the models, none of their items races.
#[test]
fn per_call_containers_keep_their_items() {
    let fixture = compile_fixture("data_race/container_models");
    let findings = races(&fixture, models());
    assert_expectations(&expectations_for(&fixture, RULES), &actual(&findings));
}

/// Without the models the same program reports the per-call map's item
/// (the reason for them): past the bound every map shares its nodes.
#[test]
fn without_models_the_per_call_map_item_is_reached_from_the_static_map() {
    let fixture = compile_fixture("data_race/container_models");
    let findings = races(&fixture, lockstep_pointsto::Config::default());
    let line = line_of(&fixture, "Session.java", "byName.get(\"a\").size++;");
    assert_eq!(on_line(&findings, line), 1, "{}", dump(&findings));
}

/// The twin: the same calls on static containers race, items and contents.
#[test]
fn shared_containers_race() {
    let fixture = compile_fixture("data_race/container_models_shared");
    let findings = races(&fixture, models());
    assert_expectations(&expectations_for(&fixture, RULES), &actual(&findings));
}

/// `storage_past_bound`'s known false positive (the per-call map's item)
/// is silent with the models; the other expectations hold as they are.
#[test]
fn storage_past_bound_map_item_is_silent() {
    let fixture = compile_fixture("data_race/storage_past_bound");
    let findings = races(&fixture, models());
    let fp = line_of(&fixture, "Storage.java", "byName.get(\"a\").count++;");
    assert_eq!(on_line(&findings, fp), 0, "{}", dump(&findings));
    let expected: Vec<_> = expectations_for(&fixture, RULES)
        .into_iter()
        .filter(|e| e.line != fp)
        .collect();
    let rest: Vec<Finding> = findings
        .into_iter()
        .filter(|f| f.location.line != Some(fp))
        .collect();
    assert_expectations(&expected, &actual(&rest));
}

/// `storage_past_bound`'s twin stays reported with the models.
#[test]
fn storage_past_bound_shared_stays_reported() {
    let fixture = compile_fixture("data_race/storage_past_bound_shared");
    let findings = races(&fixture, models());
    assert_expectations(&expectations_for(&fixture, RULES), &actual(&findings));
}
