//! Tests of `non-atomic-method`: atomicity inference by Lipton reduction
//! (Sasturkar, Agarwal, Wang & Stoller, "Automated Type-Based Analysis of
//! Data Races and Atomicity", §2.3, §5, §8; Stoller's slides 11-14 and
//! 31-40). A method that must be atomic is reported when some path through
//! it, evaluated with the locks held at one of its call sites, does not
//! match R* N? L* (right movers, at most one non-mover, left movers). Each
//! fixture under `tests/fixtures/non_atomic_method/` states what is
//! reported with `// expect:` comments on the line of the operation that
//! opens the non-atomic window (known false positives carry `(FP: ...)`,
//! known false negatives `// known-fn:`); see `tests/common/mod.rs` for how
//! it is run.
//!
//! Closed fixtures (`open = false`) have a `main` and are analysed from it:
//! threads are the main thread plus every started task. Open fixtures
//! (`open = true`) are libraries: every public method may run concurrently
//! with every other one.

mod common;

use common::{check_fixture_in_mode, compile_fixture, dump, finding_in, line_of, with_context};
use lockstep_detectors::non_atomic_method::NonAtomicMethod;
use lockstep_detectors::{Detector, Options};
use lockstep_report::Finding;

const RULES: &[&str] = &["non-atomic-method"];

/// Closed program: `main` is the entry point.
const CLOSED: bool = false;
/// Open program: every public method is an entry point.
const OPEN: bool = true;

fn check(case: &str, open: bool) -> Vec<Finding> {
    check_fixture_in_mode(
        &format!("non_atomic_method/{case}"),
        &NonAtomicMethod,
        RULES,
        &Options::default(),
        open,
    )
}

/// The line of `file` holding `marker` (once) in the fixture `case`.
fn line(case: &str, file: &str, marker: &str) -> u32 {
    let fixture = compile_fixture(&format!("non_atomic_method/{case}"));
    line_of(&fixture, file, marker)
}

/// The finding has a related location in `file` at `line`.
fn assert_related_at(findings: &[Finding], f: &Finding, file: &str, line: u32) {
    assert!(
        f.related
            .iter()
            .any(|r| r.location.file.as_deref() == Some(file) && r.location.line == Some(line)),
        "expected a related location at {file}:{line}:\n{}",
        dump(findings)
    );
}

/// Some text of the finding (message, notes, related messages or related
/// locations) mentions `needle`.
fn mentions(f: &Finding, needle: &str) -> bool {
    f.message.contains(needle)
        || f.notes.iter().any(|n| n.contains(needle))
        || f.related.iter().any(|r| {
            r.message.contains(needle)
                || r.location.class.contains(needle)
                || r.location
                    .method
                    .as_deref()
                    .is_some_and(|m| m.contains(needle))
        })
}

#[test]
fn rule_metadata() {
    let rules = NonAtomicMethod.rules();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].as_str(), "non-atomic-method");
    assert!(lockstep_detectors::rule("non-atomic-method").is_some());
}

/// Paper (EPAJ Fig. 3-4): the unsynchronized TStack/TNode are atomic at
/// every call site: on thread-local stacks (s1, s2) their accesses are
/// movers, on the shared s3 the Workers hold the lock on s3. Silent.
#[test]
fn tstack() {
    let findings = check("tstack", CLOSED);
    assert!(findings.is_empty(), "{}", dump(&findings));
}

/// Slides (Acct): `deposit` reads and writes `balance` unlocked; one
/// account is thread-local, the other is only deposited into under
/// `synchronized (this)`. Silent.
#[test]
fn acct() {
    let findings = check("acct", CLOSED);
    assert!(findings.is_empty(), "{}", dump(&findings));
}

/// Slides (Vector's copy constructor): `src.size()` then
/// `src.toArray(...)`, two synchronized calls on a shared object, are not
/// atomic. Reported at `src.size()`, with the `src.toArray` call among the
/// related locations; the locked `copy()` is silent.
#[test]
fn copy_constructor() {
    let case = "copy_constructor";
    let findings = check(case, CLOSED);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    let f = &findings[0];
    assert_eq!(f.rule, "non-atomic-method");
    assert_eq!(f.location.class, "copyctor.Store");
    assert_eq!(
        f.location.line,
        Some(line(case, "Store.java", "int n = src.size();"))
    );
    let to_array = line(case, "Store.java", "Object[] items = src.toArray(");
    assert_related_at(&findings, f, "Store.java", to_array);
}

/// Check-then-act: `if (task.isValid()) task.execute();` with no lock is
/// not atomic (reported at `isValid()`, in `runTask`, not in `run`); the
/// same inside `synchronized (task)` is atomic.
#[test]
fn check_then_act() {
    let findings = check("check_then_act", CLOSED);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    let f = finding_in(&findings, "runTask");
    assert_eq!(f.location.class, "checkact.Worker");
    // The other side of the window, `task.execute()`, comes after the check.
    let check_line = f.location.line.expect("a line");
    assert!(
        f.related
            .iter()
            .any(|r| r.location.method.as_deref() == Some("runTask")
                && r.location.line.is_some_and(|l| l > check_line)),
        "expected a related location at `task.execute()`:\n{}",
        dump(&findings)
    );
}

/// A transfer split over two `synchronized (lock)` blocks is R..L R..L:
/// reported at the first block, with the second block among the related
/// locations. One block around both updates, and the locked `total()`,
/// are silent.
#[test]
fn split_transfer() {
    let case = "split_transfer";
    let findings = check(case, CLOSED);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    let f = finding_in(&findings, "transfer");
    assert_eq!(
        f.location.line,
        Some(line(case, "Accounts.java", "// debit block"))
    );
    let credit = line(case, "Accounts.java", "// credit block");
    assert_related_at(&findings, f, "Accounts.java", credit);
}

/// The split transfer with a `ReentrantLock`: `lock()`/`unlock()` count
/// like monitors. Two lock sections in a row are reported at the first
/// `lock.lock()`; one section is silent.
#[test]
fn juc_lock() {
    let case = "juc_lock";
    let findings = check(case, CLOSED);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    let f = finding_in(&findings, "transfer");
    assert_eq!(
        f.location.line,
        Some(line(case, "Accounts.java", "// debit section"))
    );
    let credit = line(case, "Accounts.java", "// credit section");
    assert_related_at(&findings, f, "Accounts.java", credit);
}

/// Readonly fields (final, or written only in the constructor) of a shared
/// object and fields of a thread-local object are movers: any number of
/// accesses in a row is atomic. Silent.
#[test]
fn thread_local_readonly() {
    let findings = check("thread_local_readonly", CLOSED);
    assert!(findings.is_empty(), "{}", dump(&findings));
}

/// A racy read of a `long` or `double` field is `cmpd` (it may tear), so
/// a getter returning one is not atomic by itself; a racy `int` read is
/// one non-mover, atomic. Reported in `total()` and `peak()` only.
#[test]
fn long_double() {
    let findings = check("long_double", CLOSED);
    assert_eq!(findings.len(), 2, "{}", dump(&findings));
    for method in ["total", "peak"] {
        let f = finding_in(&findings, method);
        assert_eq!(f.location.class, "longdouble.Meter");
    }
}

/// Conditional atomicity: `incTwice` is atomic where the Counter's lock is
/// held (LockingClient) and not where it is not (BareClient). One warning,
/// in `incTwice`, that names the unlocked call site; nothing in either
/// client's `run`.
#[test]
fn conditional_sites() {
    let findings = check("conditional_sites", CLOSED);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    let f = finding_in(&findings, "incTwice");
    assert_eq!(f.location.class, "conditional.Counter");
    assert!(
        mentions(f, "BareClient"),
        "the finding should name the unlocked call site (BareClient.run):\n{}",
        dump(&findings)
    );
}

/// `@Atomic` (the fixture's own annotation, class retention) makes a
/// private helper of an unshared class required to be atomic: its two
/// synchronized calls on a shared Bin are reported. The un-annotated twin
/// with the same body is not required to be atomic: silent.
#[test]
fn annotated_atomic() {
    let case = "annotated_atomic";
    let findings = check(case, CLOSED);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    let f = finding_in(&findings, "moveAnnotated");
    assert_eq!(f.location.class, "annotated.Mover");
}

/// Clustering (EPAJ §8): `takeTwo` is non-atomic only through
/// `takeIfAny`, for the same lock; only the lowest method, `takeIfAny`, is
/// reported: exactly one finding.
#[test]
fn clustering() {
    let case = "clustering";
    let findings = check(case, CLOSED);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    let f = finding_in(&findings, "takeIfAny");
    assert_eq!(
        f.location.line,
        Some(line(case, "Inventory.java", "if (count() > 0)"))
    );
}

/// Open mode: `set(get() + 1)` on a self-synchronized library class is a
/// lost update (reported at `get()`); inside `synchronized (this)` it is
/// atomic.
#[test]
fn open_library() {
    let findings = check("open_library", OPEN);
    assert_eq!(findings.len(), 1, "{}", dump(&findings));
    let f = finding_in(&findings, "increment");
    assert_eq!(f.location.class, "library.Gauge");
}

/// Guard inference (point 1 of the rule): every field of the shared
/// `Account` gets the race-free type its accesses show: final and
/// constructor-only fields are readonly, synchronized-method fields are
/// guarded by the object itself, a `synchronized (lock)` field by
/// `this.lock`, a static by the static lock, the inner class's field by
/// the enclosing instance, a field written under the lock but read
/// without it is write-guarded, a field of an object that never leaves
/// its thread is thisThread, one only written right after allocation is
/// unique; `@GuardedBy` wins over inference, and an access that breaks it
/// is `error` (reported). And the atomicities these guards give: `fee`
/// is a mover when its lock is held, atomic otherwise.
#[test]
fn guards_are_inferred_per_field() {
    check("guards", CLOSED);
    let fixture = compile_fixture("non_atomic_method/guards");
    let overview = with_context(&fixture, RULES, &Options::default(), CLOSED, |cx| {
        lockstep_detectors::non_atomic_method::analyse(cx)
    });
    let guard = |field: &str| -> String {
        overview
            .fields
            .iter()
            .find(|(f, _)| f == field)
            .map(|(_, g)| g.clone())
            .unwrap_or_else(|| panic!("no guard for {field}: {:#?}", overview.fields))
    };
    assert_eq!(guard("guards.Account.limit"), "readonly");
    assert_eq!(guard("guards.Account.configured"), "readonly");
    assert_eq!(guard("guards.Account.bySelf"), "guarded_by self");
    assert_eq!(guard("guards.Account.byField"), "guarded_by this.lock");
    assert_eq!(guard("guards.Account.opened"), "guarded_by Account.LOCK");
    assert_eq!(
        guard("guards.Account.writesLocked"),
        "write_guarded_by self"
    );
    assert_eq!(guard("guards.Account.open"), "volatile");
    assert_eq!(
        guard("guards.Account$Audit.entries"),
        "guarded_by Account.this"
    );
    assert_eq!(guard("guards.Scratch.used"), "thisThread");
    assert_eq!(guard("guards.Ticket.id"), "unique");
    // A declared guard wins over the inferred one (`self`), and breaking
    // it is `error`.
    assert_eq!(
        guard("guards.Account.declared"),
        "guarded_by @GuardedBy(\"lock\")"
    );
    let method = |name: &str| {
        overview
            .methods
            .iter()
            .find(|m| m.method == name)
            .unwrap_or_else(|| panic!("no method {name}"))
            .clone()
    };
    assert_eq!(
        method("Account.fee").atomicity,
        "this.lock ? mover : atomic"
    );
    assert_eq!(method("Account.limits").atomicity, "const");
    assert!(method("Account.peek").atomic_everywhere);
    let declared = method("Account.bumpDeclared");
    assert!(
        declared.atomicity.contains("this.lock ? mover"),
        "{declared:?}"
    );
    assert!(declared.atomicity.contains("error"), "{declared:?}");
    assert!(!declared.atomic_everywhere);
    assert!(overview.stats.reached > 0);
    assert!(overview.stats.atomic_everywhere <= overview.stats.reached);
    assert!(overview
        .explain_lines()
        .iter()
        .any(|l| l.contains("proven atomic")));
}
