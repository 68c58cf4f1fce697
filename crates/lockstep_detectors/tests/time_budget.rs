//! Time budgets (`check --max-time`) inside the rules: with a deadline
//! that has already passed, every rule that looks at the budget skips all
//! of its work, reports nothing, and says what it left out; without one,
//! the same fixtures give their findings and no cut. (A deadline passing
//! mid-run cuts part of the work, which depends on timing and is not
//! tested here; `--max-time 0` is the deterministic case.)

mod common;

use std::time::Instant;

use common::{compile_fixture, with_context};
use lockstep_detectors::data_race::DataRace;
use lockstep_detectors::reacquired_lock::ReacquiredLock;
use lockstep_detectors::stale_value::StaleValue;
use lockstep_detectors::{Budget, Context, Cut, Detector, Options, Output, RuleId};

/// `detector` on `fixture` (open, `rules` enabled), with `budget`.
fn run(fixture: &str, detector: &dyn Detector, rules: &[&str], budget: Budget) -> Output {
    let fixture = compile_fixture(fixture);
    with_context(&fixture, rules, &Options::default(), true, |cx| {
        let cx = Context { budget, ..*cx };
        detector.run(&cx)
    })
}

/// The rule finds something without a budget; with a spent budget it
/// finds nothing and cuts, for each of `cut`'s rules, all of its work
/// (`n of n <what>`, `n` positive, read from the run).
fn assert_cut_by_a_spent_budget(
    fixture: &str,
    detector: &dyn Detector,
    rules: &[&str],
    cut: &[(RuleId, &str)],
) {
    let full = run(fixture, detector, rules, Budget::unlimited());
    assert!(!full.findings.is_empty(), "{fixture}: no findings to cut");
    assert!(full.cuts.is_empty(), "{fixture}: {:?}", full.cuts);
    let spent = run(fixture, detector, rules, Budget::until(Instant::now()));
    assert!(spent.findings.is_empty(), "{fixture}: {:?}", spent.findings);
    let expected: Vec<Cut> = cut
        .iter()
        .map(|(rule, what)| all_of(&spent, *rule, what))
        .collect();
    assert_eq!(spent.cuts, expected, "{fixture}");
}

/// `n of n <what>`: everything of `what` was skipped (`n` from the run
/// itself, checked to be positive).
fn all_of(out: &Output, rule: RuleId, what: &str) -> Cut {
    let cut = out
        .cuts
        .iter()
        .find(|c| c.rule == rule)
        .unwrap_or_else(|| panic!("no cut of {rule}: {:?}", out.cuts));
    let n = cut.what.split(' ').next().unwrap_or_default();
    assert!(n.parse::<usize>().is_ok_and(|n| n > 0), "{cut:?}");
    Cut::new(rule, format!("{n} of {n} {what}"))
}

#[test]
fn reacquired_lock_skips_every_method_once_the_budget_is_spent() {
    let what = "methods that take locks not analysed";
    assert_cut_by_a_spent_budget(
        "reacquired_lock/pair_variant",
        &ReacquiredLock,
        &["reacquired-lock", "reacquired-lock-pair"],
        &[
            (RuleId::ReacquiredLock, what),
            (RuleId::ReacquiredLockPair, what),
        ],
    );
}

#[test]
fn stale_value_skips_every_method_once_the_budget_is_spent() {
    assert_cut_by_a_spent_budget(
        "stale_value/lost_update",
        &StaleValue,
        &["stale-value"],
        &[(RuleId::StaleValue, "application methods not analysed")],
    );
}

#[test]
fn data_race_reports_no_race_once_the_budget_is_spent() {
    assert_cut_by_a_spent_budget(
        "data_race/racing_main",
        &DataRace,
        &["data-race"],
        &[(RuleId::DataRace, "racing accesses not reported")],
    );
}
