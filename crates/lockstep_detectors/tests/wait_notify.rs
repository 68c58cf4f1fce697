//! Tests of `wait-notify` and `blocking-under-lock`. Each fixture under
//! `tests/fixtures/wait_notify/` and `tests/fixtures/blocking_under_lock/`
//! holds a bug and its correct twin, with `// expect:` and
//! `// expect-not:` comments. The fixtures are libraries (open programs):
//! every public method is an entry point.

mod common;

use common::{check_fixture_in_mode, dump};
use lockstep_detectors::wait_notify::WaitNotify;
use lockstep_detectors::Options;
use lockstep_report::{Finding, Severity};

fn check(family: &str, case: &str, rule: &str) -> Vec<Finding> {
    check_fixture_in_mode(
        &format!("{family}/{case}"),
        &WaitNotify,
        &[rule],
        &Options::default(),
        true,
    )
}

fn wait_notify(case: &str) -> Vec<Finding> {
    check("wait_notify", case, "wait-notify")
}

#[test]
fn unheld_monitor_is_an_error() {
    let findings = wait_notify("unheld_monitor");
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    assert_eq!(findings[0].severity, Severity::Error);
    assert!(findings[0].message.contains("IllegalMonitorStateException"));
}

#[test]
fn wait_under_a_second_lock() {
    let findings = wait_notify("nested_lockout");
    assert!(
        findings[0].message.contains("nested monitor lock-out"),
        "{}",
        dump(&findings)
    );
}

#[test]
fn wait_not_in_a_loop() {
    wait_notify("not_in_loop");
}

/// A helper whose wait is not a loop of its own, called in a loop by
/// every caller, is silent; the same helper with one caller that does
/// not loop is reported (JGroups' `Promise.doWait`).
#[test]
fn wait_in_a_helper_called_in_loops() {
    let findings = wait_notify("caller_loop");
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// An `await` forwarded to the program's own `Condition` implementation
/// is its code, not a JDK wait (JGroups' `Locking.down`).
#[test]
fn await_on_the_programs_own_condition() {
    let findings = wait_notify("app_condition");
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// A notify whose class waits on the same name in a method the
/// analysis does not reach is no lost wake-up; one whose class waits
/// only on another object is.
#[test]
fn notify_with_an_unreached_waiter_of_its_class() {
    let findings = wait_notify("unreached_waiter");
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    assert_eq!(findings[0].severity, Severity::Note, "{}", dump(&findings));
}

#[test]
fn notify_where_notify_all_is_needed() {
    let findings = wait_notify("notify_all");
    assert!(
        findings
            .iter()
            .all(|f| f.message.contains("different conditions")),
        "{}",
        dump(&findings)
    );
}

#[test]
fn lost_wake_up_both_ways() {
    let findings = wait_notify("lost_wakeup");
    let severities: Vec<Severity> = findings.iter().map(|f| f.severity).collect();
    assert!(
        severities.contains(&Severity::Warning),
        "{}",
        dump(&findings)
    );
    assert!(severities.contains(&Severity::Note), "{}", dump(&findings));
}

#[test]
fn condition_await_not_in_a_loop() {
    wait_notify("condition_await");
}

#[test]
fn blocking_calls_under_a_lock() {
    let findings = check("blocking_under_lock", "calls", "blocking-under-lock");
    assert!(
        findings.iter().all(|f| f.severity == Severity::Note),
        "{}",
        dump(&findings)
    );
}

/// `TimeUnit.timedWait(obj, t)` is a wait on `obj`: the `notifyAll()`
/// it waits for is no lost wake-up (Guava's `DirectExecutorService`), and
/// a call without `obj`'s monitor throws like `obj.wait()`.
#[test]
fn time_unit_timed_wait_waits_on_its_argument() {
    let findings = wait_notify("timed_wait");
    assert_eq!(findings.len(), 2, "{}", dump(&findings));
    assert!(
        findings.iter().any(|f| f.severity == Severity::Error
            && f.message.contains("IllegalMonitorStateException")
            && f.message.contains("TimeUnit.timedWait() in")
            && f.message.contains("without holding its argument's monitor")),
        "{}",
        dump(&findings)
    );
}
