//! Tests of `stale-value` (Artho, Havelund & Biere, "Using Block-local
//! Atomicity to Detect Stale-value Concurrency Errors"). Each fixture under
//! `tests/fixtures/stale_value/` states what is reported with `// expect:`
//! comments (known false positives carry `(FP: ...)`, known false negatives
//! `// known-fn:`); see `tests/common/mod.rs` for how it is run.

mod common;

use common::{check_fixture, compile_fixture, dump, finding_in, line_of, run_detector};
use lockstep_detectors::stale_value::{StaleValue, RULE};
use lockstep_detectors::Options;
use lockstep_report::{render_json, Finding, Report};

const RULES: &[&str] = &["stale-value"];

fn check(case: &str) -> Vec<Finding> {
    check_fixture(
        &format!("stale_value/{case}"),
        &StaleValue,
        RULES,
        &Options::default(),
    )
}

fn findings_of(case: &str) -> Vec<Finding> {
    let fixture = compile_fixture(&format!("stale_value/{case}"));
    run_detector(&fixture, &StaleValue, RULES, &Options::default())
}

#[test]
fn rule_metadata() {
    assert_eq!(RULE.id.as_str(), "stale-value");
    assert_eq!(RULE.name, "StaleValue");
    assert!(!RULE.default_enabled, "opt-in, like reacquired-lock-pair");
    let default = lockstep_detectors::RuleSet::from_selection(&[], &[]).unwrap();
    assert!(!default.contains(RULE.id));
    let selected =
        lockstep_detectors::RuleSet::from_selection(&["stale-value".into()], &[]).unwrap();
    assert!(selected.contains(RULE.id));
    assert!(lockstep_detectors::rule("stale-value").is_some());
    assert!(RULE.docs.starts_with("# stale-value\n"), "{}", RULE.docs);
    for section in [
        "## What it finds",
        "## Why it matters",
        "## How to fix it",
        "## Known limits",
        "Double check",
        "snapshot",
        "Hand-over",
    ] {
        assert!(RULE.docs.contains(section), "docs lack `{section}`");
    }
}

/// Fig. 2 (lost update through a local), Fig. 4 (no flow between the
/// iterations of a loop: silent), a loop with flow, values used only
/// inside their block, static fields.
#[test]
fn lost_update_and_loops() {
    check("lost_update");
}

/// The result of a synchronized getter fed into a synchronized setter;
/// the caller holding the lock across both calls; helpers; builders;
/// callees that lock only for side effects; fresh objects.
#[test]
fn getters_and_setters() {
    let findings = check("getter_setter");
    let f = finding_in(&findings, "deposit");
    assert!(
        f.message
            .starts_with("value returned by `a.getBalance()` at Bank.java:"),
        "{}",
        f.message
    );
    assert!(
        f.message
            .contains("computed while `Account.getBalance` held `a`"),
        "{}",
        f.message
    );
    assert_eq!(f.lock.as_deref(), Some("a"));
    assert_eq!(f.field, None, "a call result is not a field");
    // A `boolean` argument reads as the source writes it, not as the `int`
    // the bytecode passes.
    let f = finding_in(&findings, "depositRounded");
    assert!(
        f.message
            .starts_with("value returned by `a.balanceRounded(true)` at Bank.java:"),
        "{}",
        f.message
    );
    let f = finding_in(&findings, "deposit");
    // The call, then where the callee acquires the lock.
    assert_eq!(f.related.len(), 2, "{}", dump(&findings));
    assert_eq!(f.related[0].location.method.as_deref(), Some("deposit"));
    assert!(f.related[0].message.contains("is called here"));
    assert_eq!(f.related[1].location.class, "Account");
    assert_eq!(f.related[1].location.method.as_deref(), Some("getBalance"));
    // Through a helper: the witness is still the synchronized getter.
    let f = finding_in(&findings, "depositViaHelper");
    assert!(
        f.message
            .starts_with("value returned by `balanceOf(a)` at Bank.java:")
            && f.message
                .contains("computed while `Account.getBalance` held `a`"),
        "{}",
        f.message
    );
    assert_eq!(f.related[1].location.method.as_deref(), Some("getBalance"));
}

/// §4: nested blocks. Inner values are stale once the inner lock is
/// released, even with the outer one held; outer values are current in
/// inner blocks; reentrant acquisitions open no block.
#[test]
fn nested_locks() {
    let findings = check("nested");
    let f = finding_in(&findings, "innerThenOuter");
    assert_eq!(f.lock.as_deref(), Some("this.inner"));
    assert_eq!(f.field.as_deref(), Some("Nested.b"));
}

/// §4: `wait()` releases and re-acquires the monitor, also from a helper.
#[test]
fn wait_makes_values_stale() {
    let findings = check("wait");
    let f = finding_in(&findings, "addWhenReady");
    assert!(
        f.message
            .contains("after `wait()` released `this` at Waiter.java:"),
        "{}",
        f.message
    );
    assert!(f.related[1].message.contains("`wait()` releases `this`"));
    let f = finding_in(&findings, "waitInHelper");
    assert!(f.message.contains("after `pause()` released `this`"));
}

/// Exceptions leaving a block (and a `finally` unlocking a
/// `java.util.concurrent` lock) end its protection; a handler inside the
/// block still holds the lock.
#[test]
fn exceptions_leaving_a_block() {
    let fixture = compile_fixture("stale_value/exceptions");
    let findings = check("exceptions");
    let f = finding_in(&findings, "exceptionLeavesBlock");
    // The release on the exceptional path: the `monitorexit` of the
    // compiler's catch-all handler, on the block's closing line.
    let read = line_of(
        &fixture,
        "Transfer.java",
        "v = balance; // read inside the block",
    );
    let end = f.related[1].location.line.unwrap();
    assert!(end > read, "released at {end}, read at {read}");
    assert!(f.related[1].message.contains("`lock` is released here"));
}

/// `ReentrantLock`, read-write locks through their views, reentrancy of
/// `lock()`, `Condition.await()`, getters and setters that lock.
#[test]
fn java_util_concurrent_locks() {
    let findings = check("juc");
    let f = finding_in(&findings, "lostUpdate");
    assert_eq!(f.lock.as_deref(), Some("this.lock"));
    assert_eq!(f.field.as_deref(), Some("Locks.count"));
    let f = finding_in(&findings, "readThenWrite");
    assert_eq!(f.lock.as_deref(), Some("this.rw"));
    assert!(
        f.message.contains("while holding `rw` (read lock)"),
        "{}",
        f.message
    );
    let f = finding_in(&findings, "awaitMakesStale");
    assert!(
        f.message.contains("`await()` released `lock`"),
        "{}",
        f.message
    );
}

/// Footnote 3: one warning per stale value.
#[test]
fn one_warning_per_stale_value() {
    check("one_warning");
}

/// `final` fields cannot go stale; what calls read through them can;
/// array elements and mutable references can.
#[test]
fn final_fields() {
    check("final_fields");
}

/// Double checks (Fig. 6), logged snapshots (§5.3), hand-over protocols
/// (Fig. 5), method-local analysis, and collections typed by interface.
#[test]
fn known_limits() {
    check("limits");
}

/// The finding in `method` says `needle`.
fn assert_message(findings: &[Finding], method: &str, needle: &str) {
    let f = finding_in(findings, method);
    assert!(f.message.contains(needle), "{method}: {}", f.message);
}

/// Issue 14, point 7: values that are fresh, immutable or owned by the
/// caller after the call are not stale: removed elements, defensive copies
/// and new objects, `String`s, boxed values, enums and records of immutable
/// components, `BigInteger`, `java.time`, exceptions (whose `getCause` locks
/// the exception). Each has a twin that is still reported: an element left
/// in its container, the shared object itself, a mutable enum or record, a
/// count, a mutable object from a synchronized getter. A per-thread
/// registry's entry for the calling thread (`get(Thread.currentThread())`,
/// log4j's `NDC`) is the caller's; the same table's entry by a shared key
/// is not.
#[test]
fn fresh_immutable_and_owned_values() {
    let findings = check("ownership");
    // The twins name the call and the lock as before.
    assert_message(
        &findings,
        "touchSession",
        "computed while `Hashtable.get` held `sessions`",
    );
    assert_message(
        &findings,
        "appendIfEmpty",
        "`StringBuffer.length` held `log`",
    );
    // A boxed snapshot written back into the table or field it was read
    // from is a lost update, and says so.
    assert_message(
        &findings,
        "increment",
        "is used at Immutable.java:118 to update `counters` again after the call released `counters`; an update another thread made to `counters` in between is lost",
    );
    assert_message(&findings, "incrementLegacy", "to update `legacy` again");
    // The same with an exception read from a shared field (the twin of
    // `rethrow`): exceptions are snapshots too.
    assert_message(
        &findings,
        "record",
        "to update `failure` again after `this` was released",
    );
    assert_message(
        &findings,
        "hit",
        "to update `hits` again after `this` was released at Immutable.java:145",
    );
}

/// The real stale values of the classified sample (docs/stale-value-sample.md)
/// as regression checks: log4j 1.2's `Vector` loop bounded by a `size()`
/// read once (`AppenderAttachableImpl`) and the count it returns to
/// `Category.callAppenders`, commons-pool's eviction decision, jgroups'
/// `(low, high)` pair, TuxGuitar's `canRedo()`/`redo()`.
#[test]
fn true_findings_of_the_sample_stay_reported() {
    let findings = check("true_findings");
    assert_message(
        &findings,
        "callAppenders",
        "computed while `Vector.size` held",
    );
}

/// The false causes of the second sample (docs/stale-value-sample-2.md),
/// each with a twin that is still reported: `List` calls dispatched to a
/// synchronized `Vector` subclass of the program alone, values computed
/// from immutable ones inside a callee, JDK interfaces implemented by the
/// JDK's providers, interface calls to implementations the call graph saw
/// no object of, the count a channel's `read` returns, and a buffer a
/// method of the program polled from a pool (h2's `getWriteBuffer`).
#[test]
fn false_causes_of_the_second_sample() {
    let findings = check("precision2");
    assert_message(
        &findings,
        "viewEmpty",
        "computed while `Dispatch$ReadOnlyVector.isEmpty` held `view`",
    );
    assert_message(
        &findings,
        "record",
        "computed while `Implemented$SharedSeries.count` held `s`",
    );
    // A plugin interface without an implementation: unknown code, silent
    // by default and reported in the sound mode.
    let fixture = compile_fixture("stale_value/precision2");
    let distinct = Options {
        unknown_callees: lockstep_detectors::stale_value::UnknownCallees::Distinct,
        ..Options::default()
    };
    let sound = run_detector(&fixture, &StaleValue, RULES, &distinct);
    assert_message(
        &sound,
        "loaded",
        "`Providers.Plugin.load` is unknown code (no class the program creates implements it)",
    );
}

/// Session 20 (stale-value sample 5 #4): a program's `Vector` subclass
/// whose methods lock the vector they wrap is a target of every `Vector`
/// call in the call graph; points-to says a vector made as a plain
/// `new Vector()` (a local, or a helper's parameter every caller fills
/// so) runs `Vector`'s methods only, which lock this thread's own vector:
/// silent. The twins, on a view of the shared vector, stay reported,
/// naming the view's method.
#[test]
fn calls_dispatch_by_the_receivers_objects() {
    let findings = check("dispatch");
    assert_message(
        &findings,
        "lastOfView",
        "computed while `Wrapped$GuardedView.size` held",
    );
    assert_message(
        &findings,
        "parseView",
        "computed while `Wrapped$GuardedView.size` held",
    );
}

/// Reservations (session 13): a critical section that updates what it
/// read hands the value to its thread (a claimed id, `next++`, a won
/// flag, a popped node, a drained count); the twins (a peeked id, a plain
/// getter, a lazily created connection another method resets, a
/// get-or-create on a registry whose entries are replaced, the lost
/// update, check-then-act and the `Vector` loop) stay reported.
#[test]
fn reservations_are_not_stale() {
    let findings = check("reservations");
    assert_message(
        &findings,
        "registered",
        "computed while `Reservations.lookup` held `this`",
    );
    assert_message(&findings, "lengths", "computed while `Vector.size` held");
}

/// Sample 3's superfluous inner locks (session 14): a lookup taking the
/// read side of a read-write lock, called while the write side is held
/// (through view fields, hsqldb's `SchemaManager.dropIndex`, or through
/// the lock), is silent; the same lookup without the write side, under
/// another object's write side, or through view fields reassigned later,
/// and the `Vector` loop, stay reported.
#[test]
fn write_side_covers_read_side() {
    let findings = check("rw_views");
    assert_message(
        &findings,
        "dropAfterLookup",
        "computed while `Catalog.find` held `readLock`",
    );
    assert_message(&findings, "underWriteSide", "`Swapped.lookup` held");
}

/// Everything a finding carries, for the lost update of Fig. 2.
#[test]
fn finding_details() {
    let fixture = compile_fixture("stale_value/lost_update");
    let findings = run_detector(&fixture, &StaleValue, RULES, &Options::default());
    let f = finding_in(&findings, "inc");
    let read = line_of(
        &fixture,
        "Counter.java",
        "tmp = shared.field; // the read of Fig. 2",
    );
    let stale = line_of(&fixture, "Counter.java", "tmp++; // expect: stale-value");
    let release = read + 1;

    assert_eq!(f.rule, "stale-value");
    assert_eq!(f.severity, lockstep_report::Severity::Warning);
    assert_eq!(f.location.class, "Counter");
    assert_eq!(f.location.method.as_deref(), Some("inc"));
    assert_eq!(f.location.descriptor.as_deref(), Some("()V"));
    assert_eq!(f.location.file.as_deref(), Some("Counter.java"));
    assert_eq!(f.location.line, Some(stale));
    assert_eq!(f.field.as_deref(), Some("Counter$Shared.field"));
    assert_eq!(f.lock.as_deref(), Some("this.lock"));
    assert_eq!(
        f.message,
        format!(
            "value of `shared.field` read at Counter.java:{read} while holding `lock` is used at Counter.java:{stale} after `lock` was released at Counter.java:{release}; another thread may have changed `shared.field` in between"
        )
    );
    // The read, then the end of its block.
    assert_eq!(f.related.len(), 2, "{}", dump(&findings));
    assert_eq!(f.related[0].location.method.as_deref(), Some("inc"));
    assert_eq!(f.related[0].location.line, Some(read));
    assert_eq!(
        f.related[0].message,
        "`shared.field` is read here while holding `lock`"
    );
    assert_eq!(f.related[1].location.line, Some(release));
    assert_eq!(f.related[1].message, "`lock` is released here");
    assert!(
        f.notes.iter().any(|n| n.starts_with("help: ")),
        "{:?}",
        f.notes
    );

    // The static field under the class lock.
    let f = finding_in(&findings, "addTotal");
    assert_eq!(f.field.as_deref(), Some("Counter.total"));
    assert_eq!(f.lock.as_deref(), Some("Counter.class"));
}

/// The JSON contract: rule, class, method and line of the stale use, the
/// field, and `related` entries for the read and the end of its block.
#[test]
fn json_output() {
    let fixture = compile_fixture("stale_value/lost_update");
    let findings = run_detector(&fixture, &StaleValue, RULES, &Options::default());
    let read = line_of(
        &fixture,
        "Counter.java",
        "tmp = shared.field; // the read of Fig. 2",
    );
    let stale = line_of(&fixture, "Counter.java", "tmp++; // expect: stale-value");
    let mut report = Report::new("test");
    report.findings = findings
        .into_iter()
        .filter(|f| f.location.method.as_deref() == Some("inc"))
        .collect();
    let json = render_json(&report);
    // Compare without layout: drop all whitespace outside strings is not
    // needed, the keys and values are distinctive enough.
    let flat: String = json.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        "\"rule\": \"stale-value\"".to_string(),
        "\"class\": \"Counter\"".to_string(),
        "\"method\": \"inc\"".to_string(),
        format!("\"line\": {stale}"),
        "\"field\": \"Counter$Shared.field\"".to_string(),
        "\"lock\": \"this.lock\"".to_string(),
        format!("\"line\": {read}"),
        "\"message\": \"`shared.field` is read here while holding `lock`\"".to_string(),
        "\"message\": \"`lock` is released here\"".to_string(),
    ] {
        assert!(flat.contains(&needle), "`{needle}` not in\n{json}");
    }
}

/// Two runs on fresh programs give identical findings, in the same order.
#[test]
fn findings_are_deterministic() {
    let first = findings_of("getter_setter");
    let second = findings_of("getter_setter");
    assert!(!first.is_empty());
    assert_eq!(first, second);
}

/// Not enabled: nothing to do.
#[test]
fn no_rule_enabled() {
    let fixture = compile_fixture("stale_value/lost_update");
    let findings = run_detector(&fixture, &StaleValue, &[], &Options::default());
    assert!(findings.is_empty(), "{}", dump(&findings));
}

/// The fixture `unknown` without its class `Missing`: a class missing from
/// the class path.
fn unknown_fixture() -> lockstep_testkit::CompiledFixture {
    let mut fixture = compile_fixture("stale_value/unknown");
    let before = fixture.classes.len();
    fixture.classes.retain(|c| c != "Missing");
    assert_eq!(fixture.classes.len(), before - 1, "{:?}", fixture.classes);
    fixture
}

/// The sound mode (`--unknown-callees distinct`, §4–§5.1): unknown,
/// native and reflective callees are assumed to take a distinct lock, so
/// their results are stale once used; JDK natives, implemented interfaces,
/// annotation elements and JDK code the call graph did not reach are known
/// not to lock.
#[test]
fn unknown_callees() {
    let fixture = unknown_fixture();
    let expected = common::expectations_for(&fixture, RULES);
    let distinct = Options {
        unknown_callees: lockstep_detectors::stale_value::UnknownCallees::Distinct,
        ..Options::default()
    };
    let findings = run_detector(&fixture, &StaleValue, RULES, &distinct);
    lockstep_testkit::assert_expectations(&expected, &common::actual(&findings));

    let f = finding_in(&findings, "noImplementation");
    let read = line_of(&fixture, "Unknown.java", "int v = store.get();");
    let stale = line_of(&fixture, "Unknown.java", "store.put(v + 1);");
    assert_eq!(
        f.message,
        format!(
            "value returned by `store.get()` at Unknown.java:{read} is used at Unknown.java:{stale}; `Unknown.Store.get` is unknown code (no class the program creates implements it), so it is assumed to have been read under a lock of the callee's own, released before the call returned; another thread may have changed it in between"
        )
    );
    assert_eq!(f.lock, None, "no lock can be named");
    assert_eq!(f.field, None);
    assert_eq!(f.related.len(), 1, "{}", dump(&findings));
    assert_eq!(f.related[0].location.line, Some(read));

    for (method, why) in [
        ("missingStatic", "(not on the class path)"),
        ("missingInstance", "(not on the class path)"),
        (
            "nativeCall",
            "`Unknown.nativeCount` is unknown code (a native method)",
        ),
        (
            "reflective",
            "(a reflective call, which may run any method)",
        ),
        (
            "insideBlock",
            "(no class the program creates implements it)",
        ),
    ] {
        let f = finding_in(&findings, method);
        assert!(f.message.contains(why), "{method}: {}", f.message);
    }

    // Through a helper: the unknown call inside it is the related place.
    let f = finding_in(&findings, "viaHelper");
    let inner = line_of(&fixture, "Unknown.java", "return store.get();");
    assert!(
        f.message.contains(&format!(
            "it is the result of `Unknown.Store.get` in `Unknown.handedOn` at Unknown.java:{inner}, unknown code"
        )),
        "{}",
        f.message
    );
    assert_eq!(f.related.len(), 2, "{}", dump(&findings));
    assert_eq!(f.related[1].location.method.as_deref(), Some("handedOn"));
    assert_eq!(f.related[1].location.line, Some(inner));
}

/// With `UnknownCallees::Local`, the default since session 13, unknown
/// code is taken not to lock: "unknown" is not reported as stale, so the
/// fixture's seven unknown-code findings are gone, and the command line's
/// default (`Options::default()`) is this one.
#[test]
fn unknown_callees_as_local_operations() {
    use lockstep_detectors::stale_value::{Configured, Settings, UnknownCallees};
    let fixture = unknown_fixture();
    let local = Configured(Settings {
        unknown_callees: UnknownCallees::Local,
    });
    let findings = run_detector(&fixture, &local, RULES, &Options::default());
    assert!(findings.is_empty(), "{}", dump(&findings));
    assert_eq!(Settings::default().unknown_callees, UnknownCallees::Local);
    let findings = run_detector(&fixture, &StaleValue, RULES, &Options::default());
    assert!(findings.is_empty(), "{}", dump(&findings));
    let sound = Configured(Settings {
        unknown_callees: UnknownCallees::Distinct,
    });
    let findings = run_detector(&fixture, &sound, RULES, &Options::default());
    assert_eq!(findings.len(), 7, "{}", dump(&findings));
}

/// Sample 3's thread-confined and fresh values, by the shared facts
/// (points-to and thread-local objects, session 17): a configurator's own
/// `Hashtable`, a new `Vector` a getter built, a list that is always
/// `null`, and a message this thread made, read under a shared lock, are
/// silent; their twins (the configurator in a static field, the getter
/// handing out its own `Vector`, the protocol's provided list, a message
/// kept in a field) stay reported.
#[test]
fn thread_local_and_fresh_values_are_not_stale() {
    let findings = check("confined");
    assert_message(
        &findings,
        "parse",
        "computed while `Hashtable.get` held `bag`",
    );
    // Both the holder's result and the `Vector`'s size are reported there.
    assert!(
        findings
            .iter()
            .any(|f| f.location.method.as_deref() == Some("countMembers")
                && f.message
                    .contains("computed while `Results.getMembers` held `this`")),
        "{}",
        dump(&findings)
    );
    assert_message(&findings, "decryptLast", "read at Decryptor.java");
}

/// The two configurators have the same code: only the one another thread
/// can reach (through the static field) is reported.
#[test]
fn confined_twins_differ_only_in_sharing() {
    let findings = findings_of("confined");
    let parse: Vec<_> = findings
        .iter()
        .filter(|f| f.location.method.as_deref() == Some("parse"))
        .collect();
    assert_eq!(parse.len(), 1, "{}", dump(&findings));
    assert_eq!(
        parse[0].location.class,
        "Configurators$SharedConfigurator",
        "{}",
        dump(&findings)
    );
}
