//! Tests of `reacquired-lock` and `reacquired-lock-pair` (Roberson &
//! Boyapati, "A Static Analysis for Automatic Detection of Atomicity
//! Violations in Java Programs"). Each fixture under
//! `tests/fixtures/reacquired_lock/` states what is reported with
//! `// expect:` comments; see `tests/common/mod.rs` for how it is run.

mod common;

use common::{
    check_fixture, check_fixture_in_mode, compile_fixture, dump, finding_in, line_of, run_detector,
};
use lockstep_detectors::reacquired_lock::{ReacquiredLock, PAIR_RULE, RULE};
use lockstep_detectors::Options;
use lockstep_report::Finding;

const SINGLE: &[&str] = &["reacquired-lock"];
const BOTH: &[&str] = &["reacquired-lock", "reacquired-lock-pair"];

fn check(case: &str, rules: &[&str], options: &Options) -> Vec<Finding> {
    check_fixture(
        &format!("reacquired_lock/{case}"),
        &ReacquiredLock,
        rules,
        options,
    )
}

fn check_default(case: &str) -> Vec<Finding> {
    check(case, SINGLE, &Options::default())
}

#[test]
fn rule_metadata() {
    assert_eq!(RULE.id.as_str(), "reacquired-lock");
    assert!(!RULE.default_enabled, "off until its sample reaches 80%");
    assert_eq!(PAIR_RULE.id.as_str(), "reacquired-lock-pair");
    assert!(!PAIR_RULE.default_enabled, "the variant is opt-in (§2.3)");
    let default = lockstep_detectors::RuleSet::from_selection(&[], &[]).unwrap();
    assert!(!default.contains(RULE.id));
    assert!(!default.contains(PAIR_RULE.id));
}

/// Figure 1 and the variations of §2.1 and §3.1: `contains`, the if/else,
/// the loop over one object, the loop over `pts[i]`, the fix.
#[test]
fn paper_example() {
    check_default("paper_example");
}

/// What one finding says: rule, message, location, related locations.
#[test]
fn finding_details() {
    let fixture = compile_fixture("reacquired_lock/paper_example");
    let findings = run_detector(&fixture, &ReacquiredLock, SINGLE, &Options::default());
    let f = finding_in(&findings, "contains");
    let second_line = line_of(
        &fixture,
        "Line.java",
        "double r2 = point.distanceTo(end); // expect:",
    );
    let first_line = second_line - 1;

    assert_eq!(f.rule, "reacquired-lock");
    assert_eq!(f.location.class, "Line");
    assert_eq!(f.location.method.as_deref(), Some("contains"));
    assert_eq!(f.location.descriptor.as_deref(), Some("(LLocation;)Z"));
    assert_eq!(f.location.file.as_deref(), Some("Line.java"));
    assert_eq!(f.location.line, Some(second_line));
    assert_eq!(f.lock.as_deref(), Some("point"));
    // The witness, the context, and where the two acquisitions are reached.
    assert!(f.message.contains("`point`"), "{}", f.message);
    assert!(f.message.contains("`this` is held"), "{}", f.message);
    assert!(f.message.contains("synchronized method"), "{}", f.message);
    assert!(
        f.message.contains(&format!(
            "(Line.java:{first_line}, Line.java:{second_line})"
        )),
        "{}",
        f.message
    );

    // Context acquisition, first acquisition, second acquisition.
    assert_eq!(f.related.len(), 3, "{}", dump(&findings));
    let context = &f.related[0];
    assert_eq!(context.location.class, "Line");
    assert_eq!(context.location.method.as_deref(), Some("contains"));
    assert!(
        context.message.contains("`this` is held from here"),
        "{}",
        context.message
    );
    for (related, ordinal) in [(&f.related[1], "first"), (&f.related[2], "second")] {
        // The deepest site: entering the synchronized `distanceTo` locks `point`.
        assert_eq!(related.location.class, "Location");
        assert_eq!(related.location.method.as_deref(), Some("distanceTo"));
        assert_eq!(related.location.file.as_deref(), Some("Location.java"));
        assert!(
            related
                .message
                .contains(&format!("{ordinal} acquisition of `point`")),
            "{}",
            related.message
        );
        assert!(
            related.message.contains("Location.distanceTo"),
            "{}",
            related.message
        );
    }
    // The paths from the context method to both acquisitions.
    let notes = f.notes.join("\n");
    assert!(
        notes.contains(&format!("Line.contains (Line.java:{first_line})")),
        "{notes}"
    );
    assert!(
        notes.contains(&format!("Line.contains (Line.java:{second_line})")),
        "{notes}"
    );
    // The fix takes `point` once rather than nesting it inside `this`.
    assert!(
        notes.contains("help: do both steps in one acquisition of `point`")
            && !notes.contains("synchronized (point)"),
        "{notes}"
    );
}

/// Two runs on fresh programs give identical findings, in the same order.
#[test]
fn findings_are_deterministic() {
    let fixture = compile_fixture("reacquired_lock/paper_example");
    let first = run_detector(&fixture, &ReacquiredLock, BOTH, &Options::default());
    let second = run_detector(&fixture, &ReacquiredLock, BOTH, &Options::default());
    assert!(!first.is_empty());
    assert_eq!(first, second);
}

/// Figures 4 and 5 (§3.2): reported in `m1` with `this.b` as the witness
/// and `this.a` as the context; `m2` holds nothing.
#[test]
fn call_chain_of_figure_4() {
    let findings = check_default("call_chain");
    let f = finding_in(&findings, "m1");
    assert_eq!(f.lock.as_deref(), Some("this.b"));
    assert!(
        f.message.contains("`this.b` is locked and unlocked twice"),
        "{}",
        f.message
    );
    assert!(f.message.contains("`this.a` is held"), "{}", f.message);
    assert_eq!(f.related.len(), 3);
    // The witness is acquired in m5, reached through m2 -> m3 and m2 -> m4.
    assert_eq!(f.related[1].location.method.as_deref(), Some("m5"));
    assert_eq!(f.related[2].location.method.as_deref(), Some("m5"));
    let notes = f.notes.join("\n");
    assert!(
        notes.contains("Chain.m3") && notes.contains("Chain.m4"),
        "{notes}"
    );
}

/// Potential witnesses of lock-free helpers are confirmed by a synchronized
/// caller (FINAL propagation, §4.4), one warning per second-acquisition
/// location (§4.5).
#[test]
fn helpers() {
    let fixture = compile_fixture("reacquired_lock/helpers");
    let findings = check_default("helpers");
    // Reported in the synchronized caller; the path leads to the helper's
    // second acquisition.
    let f = finding_in(&findings, "useSum");
    assert_eq!(f.lock.as_deref(), Some("q"));
    let helper_second = line_of(&fixture, "Helpers.java", "int y = p.getY();");
    let notes = f.notes.join("\n");
    assert!(
        notes.contains(&format!("Helpers.sum (Helpers.java:{helper_second})")),
        "{notes}"
    );
    assert_eq!(f.related[2].location.method.as_deref(), Some("getY"));

    // Callee locks translated to the caller (TRANSLATELOCK, Fig. 7).
    for (method, lock) in [
        ("depositTwice", "a.lock"),
        ("firstSlotTwice", "a.slots[0]"),
        ("slotTwice", "a.slots[i]"),
    ] {
        assert_eq!(finding_in(&findings, method).lock.as_deref(), Some(lock));
    }

    let f = finding_in(&findings, "touchTwice");
    assert_eq!(f.lock.as_deref(), Some("o"));
    assert!(f.message.contains("`this.lock` is held"), "{}", f.message);
    assert_eq!(f.related[1].location.method.as_deref(), Some("touch"));
}

/// Reentrant locking of the context, nested blocks, static contexts.
#[test]
fn context_locks() {
    let findings = check_default("locks");
    // The innermost block is the context.
    let f = finding_in(&findings, "innerContext");
    assert_eq!(f.lock.as_deref(), Some("c"));
    assert!(f.message.contains("`b` is held"), "{}", f.message);
    assert!(f.message.contains("synchronized block at Nested.java:"));
    // The enclosing instance of an inner class as the witness.
    let f = finding_in(&findings, "getTwice");
    assert_eq!(f.lock.as_deref(), Some("Outer.this"));
    assert_eq!(f.location.class, "Outer$Inner");
    // `*` (a locking expression over the size bound) as the context.
    let f = finding_in(&findings, "starContext");
    assert_eq!(f.lock.as_deref(), Some("p"));
    // A static synchronized method holds the class; the witness is a static field.
    let f = finding_in(&findings, "twice");
    assert_eq!(f.lock.as_deref(), Some("StaticContext.LOCK"));
    assert!(
        f.message.contains("`StaticContext.class` is held"),
        "{}",
        f.message
    );
}

/// §3.3: a witness reaching a method boundary is reported there even if
/// every caller holds it.
#[test]
fn method_boundary() {
    check_default("boundary");
}

/// Assignments unmark the locks that depend on what was assigned.
#[test]
fn assignments_unmark() {
    check_default("unmarking");
}

/// The variant is silent unless enabled...
#[test]
fn pair_variant_off_by_default() {
    let findings = check("pair_variant", SINGLE, &Options::default());
    assert!(findings.iter().all(|f| f.rule == "reacquired-lock"));
}

/// ... and reports two different locks in sequence when it is (§2.3, §4.6).
#[test]
fn pair_variant_enabled() {
    let findings = check("pair_variant", BOTH, &Options::default());
    let f = finding_in(&findings, "twoLocks");
    assert_eq!(f.rule, "reacquired-lock-pair");
    assert_eq!(f.lock.as_deref(), Some("b"));
    assert!(
        f.message.contains("`a` and then `b`") && f.message.contains("`this` is held"),
        "{}",
        f.message
    );
    assert!(f.related[1].message.contains("first acquisition of `a`"));
    assert!(f.related[2].message.contains("second acquisition of `b`"));
    // The pair rule alone reports only the pair.
    let fixture = compile_fixture("reacquired_lock/pair_variant");
    let only_pairs = run_detector(
        &fixture,
        &ReacquiredLock,
        &["reacquired-lock-pair"],
        &Options::default(),
    );
    assert_eq!(only_pairs.len(), 1, "{}", dump(&only_pairs));
    assert_eq!(only_pairs[0].rule, "reacquired-lock-pair");
}

/// No rule enabled: nothing to do.
#[test]
fn no_rule_enabled() {
    let fixture = compile_fixture("reacquired_lock/paper_example");
    let findings = run_detector(&fixture, &ReacquiredLock, &[], &Options::default());
    assert!(findings.is_empty(), "{}", dump(&findings));
}

/// `StringBuffer` and `Vector` witnesses are filtered by default (§5.2)...
#[test]
fn library_witnesses_filtered() {
    check_default("library_filtered");
}

/// Application locks reached through JDK callbacks (a key's synchronized
/// `hashCode` inside `HashMap.get`) are reported; the same callback cannot
/// lock an argument whose static type rules the class out; a thread start
/// is not a call.
///
/// With the JDK container content models (the default) the key's lock in
/// `HashMap.get` is a known false negative (the fixture's `known-fn`): the
/// models call `hashCode`/`equals` back from the `get` call's own site,
/// and the rule does not map the callback's receiver to the key. Without
/// the models the finding and its path are as before.
#[test]
fn callbacks_through_the_library() {
    check_default("callbacks");
    let fixture = common::compile_fixture("reacquired_lock/callbacks");
    let bytecode = lockstep_pointsto::Config {
        container_models: false,
        ..lockstep_pointsto::Config::default()
    };
    let findings = common::run_with_points_to(&fixture, &ReacquiredLock, SINGLE, bytecode);
    let f = finding_in(&findings, "twoLookups");
    assert_eq!(f.lock.as_deref(), Some("key"));
    let deepest = &f.related[2].location;
    assert_eq!(deepest.class, "Key");
    // `HashMap.get` locks the key in `hash(key)` and in `key.equals(k)`.
    assert!(
        matches!(deepest.method.as_deref(), Some("hashCode" | "equals")),
        "{deepest:?}"
    );
}

/// ... and reported with `include_library_witnesses`.
#[test]
fn library_witnesses_included() {
    let findings = check(
        "library_included",
        SINGLE,
        &Options {
            include_library_witnesses: true,
            ..Options::default()
        },
    );
    let f = finding_in(&findings, "buffer");
    assert_eq!(f.lock.as_deref(), Some("sb"));
    assert_eq!(f.related[2].location.class, "java.lang.StringBuffer");
    let f = finding_in(&findings, "vector");
    assert_eq!(f.lock.as_deref(), Some("v"));
    assert_eq!(f.related[2].location.class, "java.util.Vector");
}

/// Documented limits (docs.md "Known limits"), pinned as known false
/// positives and negatives.
#[test]
fn known_limits() {
    check_default("limits");
}

/// A helper that takes 34 different locks and then one lock twice: the
/// pair variant forms hundreds of two-lock pairs there, and the bound on
/// pairs per method must not let them crowd out the same-lock pair, so
/// `reacquired-lock` reports the same with or without the variant on.
#[test]
fn pair_variant_never_hides_a_same_lock_finding() {
    let single = check("many_locks", SINGLE, &Options::default());
    let fixture = compile_fixture("reacquired_lock/many_locks");
    let both = run_detector(&fixture, &ReacquiredLock, BOTH, &Options::default());
    let same_lock: Vec<&Finding> = both.iter().filter(|f| f.rule == RULE.id.as_str()).collect();
    assert_eq!(
        same_lock,
        single.iter().collect::<Vec<_>>(),
        "with the pair variant on:\n{}",
        dump(&both)
    );
    assert!(
        both.iter().any(|f| f.rule == PAIR_RULE.id.as_str()),
        "the variant reports pairs of two locks too:\n{}",
        dump(&both)
    );
}

/// A lock expression that is, in every context, the same single object
/// as the held lock (`command.session` is `this`) is re-entered, not
/// re-acquired; the same code on another session's command is reported.
#[test]
fn held_lock_reentered_under_another_name() {
    check_fixture_in_mode(
        "reacquired_lock/reentered",
        &ReacquiredLock,
        SINGLE,
        &Options::default(),
        false,
    );
}

/// A callee that locks the session twice, called inside a block that
/// already holds the session (h2's `JdbcConnection.setAutoCommit`): both
/// acquisitions are re-entries, for that block and for every block around
/// it. The same call without the inner block is reported.
#[test]
fn reentries_inside_an_inner_block_stay_reentries_outside_it() {
    check_default("inner_block");
}

/// A lock acquired only on the way to a throw (hsqldb builds each
/// exception message under a lock) is not followed by the caller's later
/// acquisitions: silent. Reported where the caller catches the exception
/// and goes on, or where both acquisitions are on the normal path.
#[test]
fn acquisitions_on_the_way_to_a_throw() {
    check_default("exception_paths");
}

/// A helper every caller shares (`Printer.describe(o)` calling
/// `o.toString()`) reaches a synchronized `toString` that only one
/// caller's argument has. For the caller that passes another class, the
/// acquisition down that path cannot lock what the witness names (the
/// points-to sets are disjoint): silent. The caller that passes the
/// synchronized class is reported.
#[test]
fn acquisitions_that_cannot_lock_the_named_object() {
    // Closed: from `main`, where the arguments are known objects.
    check_fixture_in_mode(
        "reacquired_lock/merged_calls",
        &ReacquiredLock,
        SINGLE,
        &Options::default(),
        false,
    );
}

/// A JDK map's summary merges every map's keys (`HashMap.hash` "locks
/// `key.members`" because some map's keys are groups). A caller whose
/// own map's copy never reaches the group's lock (context call graph),
/// or whose key has no such field, is silent; the callers that pass a
/// group are reported.
#[test]
fn library_summaries_follow_the_callers_contexts() {
    // Closed: from `main`, so each map's `HashMap` copy sees only its keys.
    check_fixture_in_mode(
        "reacquired_lock/library_contexts",
        &ReacquiredLock,
        SINGLE,
        &Options::default(),
        false,
    );
}
