//! Application containers past the bound on contexts per method
//! (`lockstep_pointsto::Config::containers_per_object`, off by default):
//! the program's own lists keep their elements apart when their methods
//! run in their receiver's context; without, past the bound every list's
//! array gets every list's elements. Issue 14, hsqldb's `HsqlArrayList`.

mod common;

use common::{actual, compile_fixture, dump, expectations_for, line_of, run_with_points_to};
use lockstep_detectors::data_race::DataRace;
use lockstep_report::Finding;
use lockstep_testkit::{assert_expectations, CompiledFixture};

const RULES: &[&str] = &["data-race"];

fn per_object() -> lockstep_pointsto::Config {
    lockstep_pointsto::Config {
        containers_per_object: true,
        ..lockstep_pointsto::Config::default()
    }
}

fn races(fixture: &CompiledFixture, points_to: lockstep_pointsto::Config) -> Vec<Finding> {
    run_with_points_to(fixture, &DataRace, RULES, points_to)
}

/// Off by default: on hsqldb it costs 30% more points-to facts for two
/// fewer data races (BENCHMARKS.md, "Application containers past the bound").
#[test]
fn off_by_default() {
    assert!(!lockstep_pointsto::Config::default().containers_per_object);
}

/// With the option each session's list holds only its own item, and the
/// list's own fields are no longer shared with the lists kept in a static.
#[test]
fn per_object_lists_keep_their_items() {
    let fixture = compile_fixture("data_race/app_list_past_bound");
    let findings = races(&fixture, per_object());
    assert_expectations(&expectations_for(&fixture, RULES), &actual(&findings));
}

/// Known false positive of the default: the session's item is reached from
/// the static lists through the array the over-budget copy of `add` shares.
#[test]
fn by_default_the_session_item_is_reached_from_the_static_lists() {
    let fixture = compile_fixture("data_race/app_list_past_bound");
    let findings = races(&fixture, lockstep_pointsto::Config::default());
    let line = line_of(&fixture, "Bags.java", "((Item) mine.get(0)).count++;");
    let on_line = findings
        .iter()
        .filter(|f| f.location.line == Some(line))
        .count();
    assert_eq!(on_line, 1, "{}", dump(&findings));
}

/// The twin: the shared item races through the static list and through a
/// session's list filled with it.
#[test]
fn shared_item_races() {
    let fixture = compile_fixture("data_race/app_list_past_bound_shared");
    let findings = races(&fixture, per_object());
    assert_expectations(&expectations_for(&fixture, RULES), &actual(&findings));
}

/// The twin by default: both items race too (with, besides, the merged
/// lists' own fields, the default's known false positives).
#[test]
fn shared_item_races_by_default() {
    let fixture = compile_fixture("data_race/app_list_past_bound_shared");
    let findings = races(&fixture, lockstep_pointsto::Config::default());
    for marker in [
        "((Item) kept.get(0)).count++;",
        "((Item) mine.get(0)).count++;",
    ] {
        let line = line_of(&fixture, "Bags.java", marker);
        let on_line = findings
            .iter()
            .filter(|f| f.location.line == Some(line))
            .count();
        assert_eq!(on_line, 1, "{marker}\n{}", dump(&findings));
    }
}
