//! `data-race` on a program larger than the points-to bound on method
//! contexts (`lockstep_pointsto::Config::max_contexts`), lowered here to the
//! fixture's size: with the JDK's share of the bound capped
//! (`max_library_contexts`; not by default, see BENCHMARKS.md "Context
//! budget"), JDK containers reached first
//! cannot spend the contexts the application's own calls need, so objects
//! two threads hand to a JDK callback stay apart; without the cap they meet
//! in the one over-budget context and race.

mod common;

use common::{actual, compile_fixture, dump, expectations_for, line_of, run_with_points_to};
use lockstep_detectors::data_race::DataRace;
use lockstep_report::Finding;
use lockstep_testkit::{assert_expectations, CompiledFixture};

const RULES: &[&str] = &["data-race"];
const FIXTURE: &str = "data_race/context_budget";

/// The data races of the fixture, closed, with `points_to` as the analysis' settings.
fn races(fixture: &CompiledFixture, points_to: lockstep_pointsto::Config) -> Vec<Finding> {
    run_with_points_to(fixture, &DataRace, RULES, points_to)
}

/// A bound of `max` method contexts, `library` of them at most for the
/// JDK, with the JDK containers' bytecode analysed (no content models:
/// what spends the bound here is their methods' contexts).
fn bounded(max: u32, library: Option<u32>) -> lockstep_pointsto::Config {
    lockstep_pointsto::Config {
        max_contexts_per_method: None,
        max_contexts: Some(max),
        max_library_contexts: library,
        container_models: false,
        ..lockstep_pointsto::Config::default()
    }
}

/// The lowered bound: fewer contexts than the fixture needs.
const BOUND: u32 = 40;

#[test]
fn capped_jdk_share_keeps_each_threads_callback_objects_apart() {
    let fixture = compile_fixture(FIXTURE);
    let findings = races(&fixture, bounded(BOUND, Some(BOUND / 4)));
    assert_expectations(&expectations_for(&fixture, RULES), &actual(&findings));
}

/// Today's behaviour without the cap, kept as the reason for it: the main
/// thread's label races with itself through the over-budget context.
#[test]
fn without_the_jdk_share_the_over_budget_context_merges_them() {
    let fixture = compile_fixture(FIXTURE);
    let findings = races(&fixture, bounded(BOUND, None));
    let main_label = line_of(&fixture, "Budget.java", "renders++; // expect-not");
    assert!(
        findings.iter().any(|f| f.location.line == Some(main_label)),
        "{}",
        dump(&findings)
    );
}

/// With the container content models (the default) the containers'
/// methods spend no contexts: the same bound without the cap keeps the
/// threads' objects apart.
#[test]
fn container_models_leave_the_bound_to_the_application() {
    let fixture = compile_fixture(FIXTURE);
    let config = lockstep_pointsto::Config {
        container_models: true,
        ..bounded(BOUND, None)
    };
    let findings = races(&fixture, config);
    assert_expectations(&expectations_for(&fixture, RULES), &actual(&findings));
}

/// Within the default bound the fixture is small: no merging either way.
#[test]
fn the_default_bound_fits_the_fixture() {
    let fixture = compile_fixture(FIXTURE);
    let findings = races(&fixture, lockstep_pointsto::Config::default());
    assert_expectations(&expectations_for(&fixture, RULES), &actual(&findings));
}
