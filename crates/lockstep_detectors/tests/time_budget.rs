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

/// The rule finds something without a budget, and with a spent budget
/// finds nothing and reports exactly `cuts`.
fn assert_cut_by_a_spent_budget(
    fixture: &str,
    detector: &dyn Detector,
    rules: &[&str],
    cuts: &[Cut],
) {
    let full = run(fixture, detector, rules, Budget::unlimited());
    assert!(!full.findings.is_empty(), "{fixture}: no findings to cut");
    assert!(full.cuts.is_empty(), "{fixture}: {:?}", full.cuts);
    let cut = run(fixture, detector, rules, Budget::until(Instant::now()));
    assert!(cut.findings.is_empty(), "{fixture}: {:?}", cut.findings);
    assert_eq!(cut.cuts, cuts, "{fixture}");
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
    let fixture = "reacquired_lock/pair_variant";
    let rules = &["reacquired-lock", "reacquired-lock-pair"];
    let spent = run(
        fixture,
        &ReacquiredLock,
        rules,
        Budget::until(Instant::now()),
    );
    let what = "methods that take locks not analysed";
    let expected = vec![
        all_of(&spent, RuleId::ReacquiredLock, what),
        all_of(&spent, RuleId::ReacquiredLockPair, what),
    ];
    assert_cut_by_a_spent_budget(fixture, &ReacquiredLock, rules, &expected);
}

#[test]
fn stale_value_skips_every_method_once_the_budget_is_spent() {
    let fixture = "stale_value/lost_update";
    let rules = &["stale-value"];
    let spent = run(fixture, &StaleValue, rules, Budget::until(Instant::now()));
    let expected = vec![all_of(
        &spent,
        RuleId::StaleValue,
        "application methods not analysed",
    )];
    assert_cut_by_a_spent_budget(fixture, &StaleValue, rules, &expected);
}

#[test]
fn data_race_reports_no_race_once_the_budget_is_spent() {
    let fixture = "data_race/racing_main";
    let rules = &["data-race"];
    let spent = run(fixture, &DataRace, rules, Budget::until(Instant::now()));
    let expected = vec![all_of(
        &spent,
        RuleId::DataRace,
        "racing accesses not reported",
    )];
    assert_cut_by_a_spent_budget(fixture, &DataRace, rules, &expected);
}
