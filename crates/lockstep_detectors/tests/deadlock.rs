//! Tests of `deadlock`: two threads may take two locks in opposite orders.
//! Each fixture under `tests/fixtures/deadlock/` holds a bug and its
//! correct twin, with `// expect: deadlock` on the primary location of
//! each cycle (the first acquisition) and `// expect-not:` on the twin;
//! known misses are `// known-fn:`. All fixtures are closed programs:
//! their `main` starts the threads.

mod common;

use common::{
    actual, check_fixture_in_mode, compile_fixture, dump, expectations_for, run_with_points_to,
};
use lockstep_detectors::deadlock::Deadlock;
use lockstep_detectors::Options;
use lockstep_report::Finding;
use lockstep_testkit::assert_expectations;

const RULES: &[&str] = &["deadlock"];

fn check(case: &str) -> Vec<Finding> {
    check_fixture_in_mode(
        &format!("deadlock/{case}"),
        &Deadlock,
        RULES,
        &Options::default(),
        false,
    )
}

/// Every finding names both acquisitions as related locations, with
/// their threads, draws the cycle and both call paths in notes, and gives
/// one thread flow per side of the cycle (SARIF `threadFlows`).
fn assert_complete(findings: &[Finding]) {
    for f in findings {
        assert_eq!(f.flows.len(), 2, "{}", dump(findings));
        assert!(
            f.flows
                .iter()
                .all(|fl| fl.steps.len() == 1 && fl.steps[0].message.contains("waits for")),
            "{}",
            dump(findings)
        );
        assert_eq!(f.related.len(), 2, "{}", dump(findings));
        assert!(
            f.related.iter().all(|r| r.message.contains("waits for")),
            "{}",
            dump(findings)
        );
        assert!(
            f.notes.iter().any(|n| n.starts_with("cycle: thread A")),
            "{}",
            dump(findings)
        );
        assert!(
            notes_starting(f, "path of thread").len() == 2,
            "{}",
            dump(findings)
        );
    }
}

/// The notes of `f` that start with `prefix`.
fn notes_starting<'f>(f: &'f Finding, prefix: &str) -> Vec<&'f String> {
    f.notes.iter().filter(|n| n.starts_with(prefix)).collect()
}

#[test]
fn nested_blocks_in_two_classes() {
    let findings = check("nested_blocks");
    assert_complete(&findings);
    let f = &findings[0];
    assert!(
        f.message.contains("Locks.FIRST") || f.notes.iter().any(|n| n.contains("Locks.FIRST")),
        "{}",
        dump(&findings)
    );
}

#[test]
fn synchronized_methods_calling_back() {
    assert_complete(&check("sync_methods"));
}

#[test]
fn this_then_parameter() {
    assert_complete(&check("helper_param"));
}

#[test]
fn static_helper_with_swapped_arguments() {
    assert_complete(&check("static_helper"));
}

#[test]
fn field_monitors_and_gate_lock() {
    assert_complete(&check("field_monitors"));
}

#[test]
fn class_lock_against_instance_lock() {
    assert_complete(&check("class_vs_instance"));
}

#[test]
fn outer_monitor_against_inner_this() {
    assert_complete(&check("outer_inner"));
}

#[test]
fn private_methods_reached_from_public_ones() {
    assert_complete(&check("private_methods"));
}

#[test]
fn reentrant_locks_reentrancy_and_try_lock() {
    assert_complete(&check("reentrant_lock"));
}

/// A lock order whose first lock is taken by a wrapper method.
#[test]
fn lock_taken_by_a_wrapper() {
    let findings = check("lock_wrapper");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// hsqldb's #51 shape: the wrapper takes the LOB lock before the
/// logger's monitor, so the acquisition under the monitor is a re-entry;
/// the twin without the wrapper call is a cycle.
#[test]
fn wrapper_lock_taken_first() {
    let findings = check("wrapper_first");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// Known limit: the order between two `Vector`s is inside the JDK
/// (`Vector.equals` → `AbstractList.equals` → the other vector's
/// synchronized `listIterator`); today it is not found.
#[test]
fn vector_equals_known_limit() {
    let findings = check("vector_equals");
    assert!(findings.is_empty(), "{}", dump(&findings));
}

#[test]
fn same_thread_both_orders_is_silent() {
    let findings = check("same_thread");
    assert!(findings.is_empty(), "{}", dump(&findings));
}

/// An order taken on one path only: the helper is also called with no
/// lock held, so no lock is held on every path into it; the lock summary
/// of the helper gives the order at the call site that holds the lock.
#[test]
fn order_on_one_path_through_a_helper() {
    let findings = check("one_path_helper");
    assert_complete(&findings);
    assert!(
        findings[0].message.contains("in a call to"),
        "{}",
        dump(&findings)
    );
}

/// A helper locking its parameter, called from one context with two
/// objects: the lock is decided at each call site from the argument.
#[test]
fn lock_summary_translated_through_a_parameter() {
    assert_complete(&check("param_summary"));
}

/// Two objects of one allocation site locked one inside the other,
/// named `this` and a parameter: reported at low confidence; an open call
/// and a child-then-parent walk are silent.
#[test]
fn two_objects_of_one_site_through_a_parameter() {
    let findings = check("same_site");
    assert_complete(&findings);
    assert!(
        findings
            .iter()
            .all(|f| f.confidence == lockstep_report::Confidence::Low),
        "{}",
        dump(&findings)
    );
}

/// The shape of log4j 1.2's `callAppenders`/`doAppend` deadlock: the
/// root category (the loop variable is one object in its context) against
/// the appender, closed by a message whose `toString` logs.
#[test]
fn category_loop_like_log4j() {
    let findings = check("category_loop");
    assert_complete(&findings);
    assert!(
        findings[0].message.contains("Chatty.toString"),
        "{}",
        dump(&findings)
    );
}

/// A read-write lock is named by its application allocation: two locks
/// allocated by two classes are two locks (their synchronizers and views
/// are made inside the JDK constructor), one lock taken both ways is a
/// cycle.
#[test]
fn read_write_locks_named_by_their_allocation() {
    let findings = check("read_write_owner");
    assert_complete(&findings);
    assert!(
        findings[0]
            .message
            .contains("the read lock of the ReentrantReadWriteLock created in Catalog.<init>"),
        "{}",
        dump(&findings)
    );
}

/// The same when the points-to analysis is over its bound on method
/// contexts before it reaches the locks' constructors (hsqldb: every
/// `ReentrantReadWriteLock` of the program was one abstract lock, whose
/// views and synchronizer the over-budget context allocated): the JDK's
/// lock classes keep their receivers' contexts whatever the bound.
#[test]
fn read_write_locks_apart_over_the_context_bound() {
    check_over_the_context_bound("read_write_owner");
}

/// Checks a fixture's expectations with points-to over its bound on
/// contexts from the start (one context in all), as on large programs.
fn check_over_the_context_bound(case: &str) {
    let fixture = compile_fixture(&format!("deadlock/{case}"));
    let points_to = lockstep_pointsto::Config {
        max_contexts_per_method: None,
        max_contexts: Some(1),
        ..lockstep_pointsto::Config::default()
    };
    let findings = run_with_points_to(&fixture, &Deadlock, RULES, points_to);
    assert_expectations(&expectations_for(&fixture, RULES), &actual(&findings));
    assert_complete(&findings);
}

/// A lock allocated in a constructor and kept in the constructed object's
/// fields belongs to that object (hsqldb's `DataFileCache`): the data
/// file's lock against the schema's is a cycle when both sides take the
/// data file's, and none when one side takes a session cache's.
#[test]
fn owned_locks_told_apart_by_their_owners() {
    let findings = check("owned_lock");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// The same over the points-to context bound, where (as in hsqldb) every
/// cache's lock is one abstract object: the owners (the caches whose
/// field holds the lock) still tell the session cache's lock from the
/// data file's.
#[test]
fn owned_locks_told_apart_over_the_context_bound() {
    check_over_the_context_bound("owned_lock");
}

/// ActiveMQ 5.17.2's `MemoryMessageStore` (sample #68): the monitor of a
/// `Collections.synchronizedMap` each store makes. Within the bounds
/// each map is the store's.
#[test]
fn synchronized_wrappers_named_by_their_owners() {
    let findings = check("sync_wrapper_per_owner");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// The same past the bound on contexts (ActiveMQ): the factory that
/// allocates the wrapper, and the wrapper's constructor, run in their
/// caller's (receiver's) context whatever the bound, so the queue's
/// store's map and the topic's store's map stay two locks. In the one
/// over-budget context they were one abstract object.
#[test]
fn synchronized_wrappers_apart_over_the_context_bound() {
    check_over_the_context_bound("sync_wrapper_per_owner");
}

/// log4j 1.2's `Hierarchy.resetConfiguration` (sample #31): holding
/// `this.ht`, callees lock `this.ht` of the same object again (re-entries,
/// silent); another hierarchy's table taken inside is a cycle. The lock
/// summaries' entry paths behind this are checked in
/// `lockstep_facts/tests/lock_summary.rs`; the false cycle itself needed
/// log4j's contexts (the `--open` run of log4j is the regression check,
/// `docs/deadlock-sample.md`).
#[test]
fn reentry_through_callees_and_another_objects_table() {
    let findings = check("path_reentry");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// log4j 1.2's `FilteredLogTableModel.trimOldestRecords` (sample #32), as
/// an open program: a protected method every in-program caller reaches
/// with the model's monitor held is entered by the harness with it held
/// (a gate lock around both orders): silent. The twin's public
/// `compact()` calls it without the monitor: reported.
#[test]
fn protected_method_behind_its_callers_gate_lock() {
    assert_one_cycle_in_open_fixture("deadlock/protocol_gate");
}

#[test]
fn component_called_under_its_owners_lock_through_a_back_link() {
    // Velocity's shape: the factory's `rsvc` is the runtime that built it,
    // so the runtime `init()` holds is the one the factory calls back. Main
    // reported the `Runtime`/`Factory` cycles (contexts that merge three
    // runtimes of one site); the loose twin, whose factory a public method
    // also enters bare, keeps its one real cycle.
    assert_one_cycle_in_open_fixture("deadlock/owner_gate");
}

#[test]
fn back_link_through_a_field_of_an_interface_type() {
    // Velocity 1.7's types (sample #33–#36): the factory's `rsvc` is
    // declared as an interface, and a field of that name is also set
    // outside constructors, so the path of the runtime's re-entry one
    // call further (`this.rsvc.factory.rsvc`) is no entry path. Main
    // reported 9 cycles here, 4 on the false `Runtime`/`Factory` pair;
    // the loose twin keeps its one real cycle.
    let findings = assert_one_cycle_in_open_fixture("deadlock/interface_back_link");
    assert!(
        findings[0].location.class == "ifacelink.LooseRuntime",
        "{}",
        dump(&findings)
    );
}

/// derby 10.14's network client (session 24's population, #69): the
/// harness called `Logical.close()` (pooled, then logical) on a `Caching`
/// receiver, whose class overrides `close()` with a `synchronized` method
/// calling `super.close()`: an outside `close()` on it runs the override,
/// holding the logical connection first, so the pooled → logical order
/// is a re-entry there (silent). The twin's base class inverts the pair
/// on its own receiver (`reset()`): reported.
#[test]
fn harness_runs_no_overridden_method_on_a_subclass_receiver() {
    let findings = assert_one_cycle_in_open_fixture("deadlock/overridden_entry");
    assert!(
        findings[0].location.class == "overridden.LooseLogical",
        "{}",
        dump(&findings)
    );
}

/// h2 2.1.214's `MVStore` (sample #52–#54): a method every caller of
/// which holds the store lock, one of them through the true branch of a
/// timed `tryLock`, takes the chunk lock and re-enters the store lock
/// through calls: no chunk → store order (silent). The loose twin enters
/// the same shape without the store lock (reported).
#[test]
fn store_lock_held_through_a_timed_try_lock() {
    let findings = check("timed_try_lock");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// A lock object the acquiring thread still owns (made by it, not yet
/// published: c3p0's `createPool` locking the pool its constructor
/// builds) is one no other thread can hold: no order through it
/// (silent). The twin publishes the pool into the factory before
/// locking it (reported).
#[test]
fn lock_of_an_object_no_other_thread_can_hold() {
    let findings = check("fresh_lock");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// c3p0's `C3P0Registry.reregister(this)` from its data sources'
/// constructors (sample #46): a constructor the outside caller runs is
/// run on an object it has just made, and a static method's context
/// inherited from that constructor is not the outside caller's own entry,
/// so the registry's class lock then the new source's monitor is no
/// order against `close()` (silent), although the constructor first
/// hands `this` to a JDK `PropertyChangeSupport` that keeps it in itself.
/// The twin registers again from a public method, on a source another
/// thread may be closing (reported).
#[test]
fn registering_a_source_while_constructing_it() {
    let findings = assert_one_cycle_in_open_fixture("deadlock/registering_constructor");
    let paths = notes_starting(&findings[0], "path of thread");
    assert!(
        paths.iter().any(|n| n.contains("Reregistering.refresh"))
            && paths.iter().all(|n| !n.contains("Source")),
        "{}",
        dump(&findings)
    );
}

/// commons-configuration's `SystemConfiguration.setSystemProperties`
/// (sample #40): one allocation site reached in two contexts (the
/// outside caller's own call of the static method, and a builder's) is
/// two abstract objects that the report describes alike. Their two
/// cycles are one finding, which lists the second one's paths as well.
#[test]
fn cycles_described_alike_are_one_finding() {
    let findings = check_fixture_in_mode(
        "deadlock/one_site_two_contexts",
        &Deadlock,
        RULES,
        &Options::default(),
        true,
    );
    let through_build: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.notes.iter().any(|n| n.contains("Factory.build")))
        .collect();
    assert_eq!(through_build.len(), 1, "{}", dump(&findings));
    let also = notes_starting(through_build[0], "also path of thread");
    assert!(
        also.len() == 2 && also.iter().all(|n| n.contains("Builder.run")),
        "{}",
        dump(&findings)
    );
}

/// Checks an open-program fixture and expects exactly one cycle (the
/// buggy twin's) with every field of the finding filled in.
fn assert_one_cycle_in_open_fixture(fixture: &str) -> Vec<Finding> {
    let findings = check_fixture_in_mode(fixture, &Deadlock, RULES, &Options::default(), true);
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    findings
}

/// A lock object still the acquiring thread's own although its
/// constructor stored `this` into an object it made and keeps (c3p0's
/// `this.rpes = new ResourcePoolEventSupport(this)`), locked through a
/// synchronized method other threads also call on published objects:
/// silent. The twin registers the support in a static list before
/// locking (reported).
#[test]
fn lock_of_an_object_held_only_by_its_own_parts() {
    let findings = check("back_pointer");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// Lock fields initialised in their declarations, in a class with two
/// constructors: javac copies each initializer into both, and the
/// harness's one receiver runs both. The copies are one allocation site,
/// so `this.first` names one lock and the opposite orders are reported
/// (main missed them: two objects, no lock); the twin's one order stays
/// silent.
#[test]
fn lock_fields_initialised_in_their_declarations() {
    assert_one_cycle_in_open_fixture("deadlock/initializer_copies");
}

/// JGroups' `AckMcastSenderWindow`: entries handed to a scheduler of the
/// program's own interface that an outside caller supplies run on a
/// thread of their own, on the entries `add` made; that thread holds an
/// entry and calls `remove`, which takes `msgs` then every entry, as a
/// caller of `suspect` does: reported. The twin calls `remove` after
/// releasing the entry: silent.
#[test]
fn task_handed_to_an_outside_scheduler() {
    assert_one_cycle_in_open_fixture("deadlock/outside_scheduler");
}

/// Velocity's shape: the factory calls back into the runtime (factory,
/// then runtime) only after seeing a flag true that only the runtime's
/// one-shot `init()` sets, inside the factory's critical section it takes
/// (runtime, then factory): silent. The twins set the flag outside that
/// section, or run `init()`'s body on every call (both reported).
#[test]
fn order_behind_a_flag_set_once_by_the_other_order() {
    let findings = check("guard_flag");
    assert_complete(&findings);
    assert_eq!(findings.len(), 2, "{}", dump(&findings));
}

/// commons-dbcp's `AbandonedTrace` (#42, #43): a walk down a tree of
/// traces holds a parent's list and takes each child's, lists of one
/// allocation site. Every child joins a parent older than itself (its
/// constructor's argument, or the connection its constructor stored), so
/// the walk follows creation order: silent. The twin's public `adopt`
/// adds any node to any node, an older one to its own child included
/// (reported).
#[test]
fn tree_walked_parent_first() {
    let findings = check("trace_tree");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// ActiveMQ's `Queue.addSubscription`: an order whose path needs a
/// `boolean` field `false` at one test and `true` at a later one, with no
/// store between, does not run (silent); the twins store the flag between
/// the tests, or test it once (reported).
#[test]
fn order_needing_a_flag_both_ways() {
    let findings = check("retested_flag");
    assert_complete(&findings);
    assert_eq!(findings.len(), 2, "{}", dump(&findings));
}

/// hsqldb's closing protocol: the session manager's monitor is taken only
/// after the closing thread set the database's state to `CLOSING`, and the
/// registry is taken under it only while the state is `ONLINE` (silent);
/// the twin also closes the manager from a public `restart()` while the
/// database is `ONLINE` (reported).
#[test]
fn order_needing_a_state_its_thread_has_left() {
    let findings = check("closing_state");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// ActiveMQ's `ActiveMQConnection.close`: a flag the closing thread set
/// holding the connection's monitor, every write of which is made under
/// that monitor, is still set in its callees, so `getScheduler` throws
/// before its lock (silent, `AtomicBoolean` and `boolean`); the twin also
/// clears the flag without the monitor (reported).
#[test]
fn order_past_a_flag_set_under_a_held_monitor() {
    let findings = check("closing_flag");
    assert_complete(&findings);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
}

/// A call passing a constant that the callee's test of that parameter
/// rules out is no way to the lock behind the test (jcifs's `logoff`
/// sending with a `null` response, Tomcat's `expire(notify, false)`);
/// nor is a chain that already holds the lock (a re-entry). The twins
/// pass a value the test lets through: reported, with the path through
/// the call that passes it.
#[test]
fn constant_arguments_close_paths_to_locks() {
    let findings = check("constant_argument");
    assert_complete(&findings);
    assert_eq!(findings.len(), 2, "{}", dump(&findings));
    let flush = findings
        .iter()
        .filter(|f| f.notes.iter().any(|n| n.contains("Transport.flush")))
        .count();
    assert_eq!(flush, 1, "{}", dump(&findings));
    assert!(
        findings
            .iter()
            .all(|f| f.notes.iter().all(|n| !n.contains("logoff"))),
        "{}",
        dump(&findings)
    );
    let timed: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.message.contains("TimedSession"))
        .collect();
    assert_eq!(timed.len(), 1, "{}", dump(&findings));
    let paths = notes_starting(timed[0], "path of thread");
    assert!(
        paths
            .iter()
            .any(|n| n.contains("TimedSession.expire (Sessions.java"))
            && paths.iter().all(|n| !n.contains("expireFromPeer")),
        "{}",
        dump(&findings)
    );
}

/// One cycle in the code of a package-private class and its public
/// subclass (commons-net's `Telnet` and `TelnetClient`): the outside
/// caller's objects are one per class, and the two cycles they make,
/// alike but for that class, are one finding. Another class's cycle at
/// its own places stays a finding of its own.
#[test]
fn cycles_alike_but_for_the_outside_objects_class_are_one_finding() {
    let findings = check_fixture_in_mode(
        "deadlock/outside_subclass",
        &Deadlock,
        RULES,
        &Options::default(),
        true,
    );
    assert_complete(&findings);
    assert_eq!(findings.len(), 2, "{}", dump(&findings));
    let base: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.message.contains("Base.respond"))
        .collect();
    assert_eq!(base.len(), 1, "{}", dump(&findings));
}
