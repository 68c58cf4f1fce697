//! `deadlock`: two threads may each hold one lock while waiting for the
//! lock the other holds (a lock-order cycle of length two).
//!
//! Reads the lock-order facts (`lockstep_facts::lock_order`): every
//! acquisition with the locks held just before it. Each acquisition of
//! `L2` while holding `L1` is an edge `L1 → L2` of the lock-order graph
//! (re-acquiring a held lock adds none). A pair of edges `A → B` and
//! `B → A` is reported when their acquisitions may run in two threads at
//! the same time (two roots not ordered by start/join, or one root that
//! runs more than once), each holder's mode excludes the other's request
//! (two readers of a read-write lock do not block each other), and no
//! third lock held at both acquisitions gates them. One finding per pair
//! of locks: the first edge in sorted order that qualifies is the witness.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use lockstep_facts::guard_flags::GuardFacts;
use lockstep_facts::guarded_reach::GuardedReach;
use lockstep_facts::lock_identity::{may_be_same, owner_class};
use lockstep_facts::lock_order::Acquisition;
use lockstep_facts::locks::{HeldLock, LockObject};
use lockstep_facts::param_guards::Guards;
use lockstep_facts::threads::{concurrent_roots, Root};
use lockstep_pointsto::PointsToResult;
use lockstep_program::Program;
use lockstep_report::{Confidence, Finding, Flow, Related, Severity};

use crate::util::{location, position, root_label, short_method, RootPaths};
use crate::{Context, Detector, Needs, Output, RuleId, RuleMeta};

pub static RULE: RuleMeta = RuleMeta {
    id: RuleId::Deadlock,
    name: "Deadlock",
    summary:
        "two threads may take the same two locks in opposite orders and wait for each other forever",
    default_enabled: false,
    docs: include_str!("docs.md"),
};

/// Witnesses tried per pair of opposite edges (bounds the work on large programs).
const MAX_WITNESSES: usize = 64;

/// The detector.
pub struct Deadlock;

impl Detector for Deadlock {
    fn rules(&self) -> &'static [RuleId] {
        &[RuleId::Deadlock]
    }

    fn needs(&self) -> Needs {
        Needs::GuardFlags
    }

    fn run(&self, cx: &Context<'_>) -> Output {
        if !cx.is_enabled(RuleId::Deadlock) {
            return Output::default();
        }
        let races = cx.facts.races();
        let order = cx.facts.lock_order();
        let edges = lock_order_edges(&order.acquisitions);
        let pt = cx.facts.points_to();
        let owned = owned_locks(&order.acquisitions);
        let mut check = RootCheck {
            paths: RootPaths::new(cx.program, &races.graph, &races.roots, cx.open_program()),
            reach: GuardedReach::new(cx.program, &races.graph, order.guards.clone()),
            roots: &races.roots,
            open: cx.open_program(),
            known: HashMap::new(),
        };
        let mut cycles = two_cycles(&edges, &mut check, (pt, &owned, cx.facts.guard_flags()));
        cycles.extend(self_cycles(&order.acquisitions, &mut check));
        let mut reporter = Reporter {
            program: cx.program,
            pt: cx.facts.points_to(),
            roots: &races.roots,
            open: cx.open_program(),
            paths: check.paths,
            reach: check.reach,
            acquisitions: &order.acquisitions,
        };
        let findings = merge_indistinguishable(
            cycles
                .iter()
                .map(|c| crate::util::readable(reporter.finding(c)))
                .collect(),
        );
        Output {
            findings,
            explanation: Vec::new(),
            stats: vec![format!(
                "deadlock: {} acquisitions, {} lock-order edges, {} cycles",
                order.acquisitions.len(),
                edges.len(),
                cycles.len()
            )],
            ..Output::default()
        }
    }
}

/// Cycles whose findings read alike in everything but their call paths
/// (the same locks as described, taken at the same places, by the same
/// threads: objects of one allocation site that differ only by the
/// context that made them, as commons-configuration's per-call
/// configurations made from the harness and from a builder) are one
/// finding for the reader: the first, in the cycles' order, keeps the
/// others' paths and flows.
///
/// Objects the harness passes in are one per class, so one cycle in the
/// code of a class shows once per class whose objects may run it (commons-
/// net's `Telnet` and its subclass `TelnetClient`): findings that differ
/// only in the class of such an object are one finding too.
fn merge_indistinguishable(findings: Vec<Finding>) -> Vec<Finding> {
    let mut merged: Vec<Finding> = Vec::with_capacity(findings.len());
    for f in findings {
        let first = |x: &Finding| x.notes.first().map(|n| any_outside_class(n));
        let same = merged.iter_mut().find(|m| {
            any_outside_class(&m.message) == any_outside_class(&f.message)
                && m.location == f.location
                && m.related.len() == f.related.len()
                && m.related.iter().zip(&f.related).all(|(x, y)| {
                    x.location == y.location
                        && any_outside_class(&x.message) == any_outside_class(&y.message)
                })
                && first(m) == first(&f)
        });
        match same {
            Some(m) => {
                // Paths the finding already shows (as its own or as an
                // earlier `also`) are not repeated.
                let paths = f.notes.iter().filter(|n| n.starts_with("path of thread"));
                let also: Vec<String> = paths
                    .filter(|n| !m.notes.iter().any(|x| x == *n))
                    .map(|n| format!("also {n}"))
                    .filter(|n| !m.notes.contains(n))
                    .collect();
                let help = m.notes.iter().position(|n| n.starts_with("help: "));
                let at = help.unwrap_or(m.notes.len());
                m.notes.splice(at..at, also);
                // A flow the finding shows already, but for the class of
                // an outside caller's object, is not shown again.
                let shown = |fl: &Flow, m: &Finding| {
                    m.flows.iter().any(|x| {
                        x.label == fl.label
                            && x.steps.len() == fl.steps.len()
                            && x.steps.iter().zip(&fl.steps).all(|(a, b)| {
                                a.location == b.location
                                    && any_outside_class(&a.message)
                                        == any_outside_class(&b.message)
                            })
                    })
                };
                for fl in f.flows {
                    if !shown(&fl, m) {
                        m.flows.push(fl);
                    }
                }
            }
            None => merged.push(f),
        }
    }
    merged
}

/// `text` with the class of every object the harness passes in left out:
/// `a TelnetClient passed in by a caller` reads `an object passed in by a
/// caller`.
fn any_outside_class(text: &str) -> String {
    const PASSED: &str = " passed in by a caller";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(PASSED) {
        let before = &rest[..i];
        let ty = before
            .rfind(|c: char| !(c.is_alphanumeric() || "._$[]<>".contains(c)))
            .map_or(0, |k| k + 1);
        let head = &before[..ty];
        let article = ["a ", "an "].iter().find(|a| head.ends_with(*a));
        match article {
            Some(a) if ty < before.len() => {
                out.push_str(&head[..head.len() - a.len()]);
                out.push_str("an object");
            }
            _ => out.push_str(before),
        }
        out.push_str(PASSED);
        rest = &rest[i + PASSED.len()..];
    }
    out.push_str(rest);
    out
}

/// One edge `held → acquired` with the lock as held and its acquisition.
type Witness<'a> = (&'a HeldLock, &'a Acquisition);

/// The lock-order graph: (held, acquired) → witnesses, in sorted order.
fn lock_order_edges(
    acqs: &[Acquisition],
) -> BTreeMap<(&LockObject, &LockObject), Vec<Witness<'_>>> {
    let mut edges: BTreeMap<(&LockObject, &LockObject), Vec<Witness<'_>>> = BTreeMap::new();
    for a in acqs.iter().filter(|a| !a.reentrant()) {
        for h in &a.held {
            edges
                .entry((&h.object, &a.lock.object))
                .or_default()
                .push((h, a));
        }
    }
    // A statement taking the lock itself is the clearest witness; locks
    // taken in callees come after it (stable: sorted order otherwise).
    for witnesses in edges.values_mut() {
        witnesses.sort_by_key(|(_, a)| a.via.len());
    }
    edges
}

/// A reported cycle: thread `roots.0` runs `first`, `roots.1` runs `second`.
struct Cycle<'a> {
    first: Witness<'a>,
    second: Witness<'a>,
    roots: (u32, u32),
}

/// The pairs of opposite edges that may deadlock, one per pair of locks.
fn two_cycles<'a>(
    edges: &BTreeMap<(&'a LockObject, &'a LockObject), Vec<Witness<'a>>>,
    check: &mut RootCheck<'_>,
    (pt, owned, guards): (&PointsToResult, &BTreeSet<&LockObject>, &GuardFacts),
) -> Vec<Cycle<'a>> {
    let mut out = Vec::new();
    for ((x, y), forward) in edges {
        if x >= y {
            continue;
        }
        let Some(backward) = edges.get(&(*y, *x)) else {
            continue;
        };
        // Two objects of one class: the same code may reach "both" only
        // because the analysis cannot tell the objects apart (a session's
        // `database` is every database); a caller choosing the objects
        // through a parameter is the evidence that two really meet.
        // Locks of one allocation site owned by objects of one class are
        // as hard to tell apart as their owners.
        let same_class = same_class(pt, x, y);
        let same_site = same_site(pt, x, y);
        'pair: for &(h1, a1) in forward.iter().take(MAX_WITNESSES) {
            for &(h2, a2) in backward.iter().take(MAX_WITNESSES) {
                let need_param = same_class || same_site && owned_by_one_class(pt, a1, a2);
                if need_param && !(a1.through_param || a2.through_param) {
                    continue;
                }
                if !closes((h1, a1), (h2, a2), owned) {
                    continue;
                }
                // Both orders walk from an object to a younger one (a
                // tree built parent-first): creation order is one global
                // order of the two locks.
                if descends((h1, a1)) && descends((h2, a2)) {
                    continue;
                }
                // One order runs only after a flag that only the other
                // order's one-shot critical section sets was seen true.
                if guards.excludes(a1, a2) || guards.excludes(a2, a1) {
                    continue;
                }
                if let Some(roots) = deadlocks((h1, a1), (h2, a2), check) {
                    out.push(Cycle {
                        first: (h1, a1),
                        second: (h2, a2),
                        roots,
                    });
                    break 'pair;
                }
            }
        }
    }
    out
}

/// Are two lock objects objects of one class outside the JDK? (Dedicated
/// lock objects, `new Object()` or a `ReentrantLock`, are JDK classes: two
/// of them are told apart by their fields, not confused by the analysis.)
fn same_class(pt: &PointsToResult, x: &LockObject, y: &LockObject) -> bool {
    let class = |o: &LockObject| match o {
        LockObject::Object(id) => pt.object(*id).map(|i| i.type_name.clone()),
        _ => None,
    };
    match (class(x), class(y)) {
        (Some(a), Some(b)) => a == b && !lockstep_models::is_jdk_class(&a),
        _ => false,
    }
}

/// The lock objects some acquisition reads from an owned field
/// (`lockstep_facts::lock_identity`).
fn owned_locks(acqs: &[Acquisition]) -> BTreeSet<&LockObject> {
    acqs.iter()
        .filter(|a| a.owners.is_some())
        .map(|a| &a.lock.object)
        .collect()
}

/// Does each side acquire the lock the other side holds? An owned lock
/// is one run-time object for two acquisitions only when their owners may
/// be one object: the `DataFileCache` lock of a session's result cache
/// is not the lock of the database's data file, though one allocation
/// site makes both. An owned lock held only on entry (taken by a caller)
/// has no owners here: the caller's call site, which holds it itself, is
/// the witness of that order.
fn closes(w1: Witness<'_>, w2: Witness<'_>, owned: &BTreeSet<&LockObject>) -> bool {
    let meets = |(_, a): Witness<'_>, (h, b): Witness<'_>| match b.owners_of_held(&h.object) {
        Some(held) => may_be_same(a.owners.as_ref(), held),
        None => !owned.contains(&h.object),
    };
    meets(w1, w2) && meets(w2, w1)
}

/// Does the acquisition take a lock of an object younger than the owner
/// of the held lock (`lockstep_facts::age_order`)?
fn descends((h, a): Witness<'_>) -> bool {
    a.descends_from.contains(&h.object)
}

/// Are the two acquired locks owned by objects of one application class
/// (h2's `MVStore.storeLock` of two stores, jgroups' `service_state` of
/// two multiplexers)?
fn owned_by_one_class(pt: &PointsToResult, a1: &Acquisition, a2: &Acquisition) -> bool {
    let class = |a: &Acquisition| a.owners.as_ref().and_then(|o| owner_class(pt, o));
    match (class(a1), class(a2)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// Are two lock objects made by one allocation site (in two heap
/// contexts)?
fn same_site(pt: &PointsToResult, x: &LockObject, y: &LockObject) -> bool {
    match (x, y) {
        (LockObject::Object(a), LockObject::Object(b)) => match (pt.object(*a), pt.object(*b)) {
            (Some(p), Some(q)) => p.site == q.site,
            _ => false,
        },
        _ => false,
    }
}

/// One abstract lock taken inside itself under two names, one of them a
/// parameter (`synchronized (this) { synchronized (other) ... }` with both
/// from one allocation site): two threads running the code with the two
/// objects swapped deadlock. One finding per lock object.
fn self_cycles<'a>(acqs: &'a [Acquisition], check: &mut RootCheck<'_>) -> Vec<Cycle<'a>> {
    let mut out: Vec<Cycle<'a>> = Vec::new();
    for a in acqs.iter().filter(|a| a.distinct_alias) {
        if out.iter().any(|c| c.first.1.lock.object == a.lock.object) {
            continue;
        }
        let Some(h) = a.held.iter().find(|h| h.object == a.lock.object) else {
            continue;
        };
        // The code only walks to younger objects: swapped, the objects
        // would have to be older than each other.
        if descends((h, a)) {
            continue;
        }
        if let Some(roots) = deadlocks((h, a), (h, a), check) {
            out.push(Cycle {
                first: (h, a),
                second: (h, a),
                roots,
            });
        }
    }
    out
}

/// Can thread 1 (holding `h1`, acquiring `a1`) and thread 2 (holding
/// `h2`, acquiring `a2`) block each other? Returns their roots.
fn deadlocks(
    (h1, a1): Witness<'_>,
    (h2, a2): Witness<'_>,
    check: &mut RootCheck<'_>,
) -> Option<(u32, u32)> {
    if !h1.excludes(&a2.lock) || !h2.excludes(&a1.lock) {
        return None;
    }
    let cycle = [&h1.object, &h2.object];
    let gated = a1
        .held
        .iter()
        .filter(|g| !cycle.contains(&&g.object))
        .any(|g| a2.held.iter().any(|o| g.excludes(o)));
    if gated {
        return None;
    }
    let pair = concurrent_roots(
        check.open,
        check.roots,
        (&a1.site.roots, &a1.site.ordered),
        (&a2.site.roots, &a2.site.ordered),
    )?;
    if check.passes(pair.0, a1) && check.passes(pair.1, a2) {
        return Some(pair);
    }
    let roots1 = check.passing_roots(a1);
    let roots2 = check.passing_roots(a2);
    concurrent_roots(
        check.open,
        check.roots,
        (&roots1, &a1.site.ordered),
        (&roots2, &a2.site.ordered),
    )
}

/// Which roots of an acquisition reach it along calls that can all be
/// made ([`RootPaths::passes`]): a thread whose only ways to the lock
/// pass a constant that a test on the way rules out never takes it there.
struct RootCheck<'a> {
    paths: RootPaths<'a>,
    reach: GuardedReach<'a>,
    roots: &'a [Root],
    open: bool,
    /// Per site node, guards and root: does a path pass (cached)?
    known: HashMap<(u32, Guards, u32), bool>,
}

impl RootCheck<'_> {
    /// Does a path from root `r` to `a` pass ([`RootPaths::passes`])?
    /// Every entry is one source for the paths of an open program.
    fn passes(&mut self, r: u32, a: &Acquisition) -> bool {
        let r = if self.open { u32::MAX } else { r };
        let key = (a.site.node, a.guards.clone(), r);
        if let Some(&known) = self.known.get(&key) {
            return known;
        }
        let first = a.site.roots.first().copied().unwrap_or(0);
        let root = if self.open { first } else { r };
        let pass = self.paths.passes(root, a.site.node, &self.reach, &a.guards);
        self.known.insert(key, pass);
        pass
    }

    /// The roots of `a` that pass.
    fn passing_roots(&mut self, a: &Acquisition) -> Vec<u32> {
        let roots = a.site.roots.clone();
        roots
            .iter()
            .copied()
            .filter(|&r| self.passes(r, a))
            .collect()
    }
}

struct Reporter<'a> {
    program: &'a Program,
    pt: &'a PointsToResult,
    roots: &'a [Root],
    open: bool,
    paths: RootPaths<'a>,
    reach: GuardedReach<'a>,
    acquisitions: &'a [Acquisition],
}

impl Reporter<'_> {
    fn lock_name(&self, a: &Acquisition) -> String {
        format!(
            "`{}` ({})",
            a.named,
            crate::util::lock_text(self.program, self.pt, &a.lock)
        )
    }

    /// Where the acquisition happens: its statement, or for a lock taken
    /// by a callee the call and the path down to the acquisition.
    fn at(&self, a: &Acquisition) -> String {
        let here = position(self.program, a.site.method, a.site.stmt);
        match a.via.last() {
            None => here,
            Some(&(m, stmt)) => {
                let calls: Vec<String> = a
                    .via
                    .iter()
                    .map(|&(m, _)| short_method(self.program, m))
                    .collect();
                format!(
                    "{here}, in a call to {} at {}",
                    calls.join(" → "),
                    position(self.program, m, stmt)
                )
            }
        }
    }

    /// For a lock a callee takes, where (` (…, in a call to …)`), so that
    /// a lock named from the callee's `this` reads as the callee's; empty
    /// for a lock the method takes itself.
    fn callee_at(&self, a: &Acquisition) -> String {
        if a.via.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.at(a))
        }
    }

    /// Where the thread took the lock it holds: the last acquisition of
    /// it earlier in the same method context, else its callers did.
    fn held_at(&self, h: &HeldLock, a: &Acquisition) -> String {
        let earlier = self
            .acquisitions
            .iter()
            .rev()
            .filter(|b| b.site.node == a.site.node && b.lock.object == h.object && b.via.is_empty())
            .find(|b| match (b.site.stmt, a.site.stmt) {
                (None, _) => true,
                (Some(x), Some(y)) => x < y,
                (Some(_), None) => false,
            });
        match earlier {
            Some(b) => format!("{} ({})", self.lock_name(b), self.at(b)),
            None => format!(
                "{} (taken by a caller of {})",
                crate::util::lock_text(self.program, self.pt, h),
                short_method(self.program, a.site.method)
            ),
        }
    }

    /// The finding's confidence (criteria in `docs.md`): high when both
    /// threads of the cycle are real threads of the program, low when
    /// both are only assumed callers of a library.
    fn confidence(&self, c: &Cycle<'_>) -> Confidence {
        if std::ptr::eq(c.first.1, c.second.1) {
            return Confidence::Low;
        }
        let real = |r| crate::util::real_root(self.roots, r);
        match (real(c.roots.0), real(c.roots.1)) {
            (true, true) => Confidence::High,
            (false, false) => Confidence::Low,
            _ => Confidence::Medium,
        }
    }

    fn finding(&mut self, c: &Cycle<'_>) -> Finding {
        let p = self.program;
        let ((h1, a1), (h2, a2)) = (c.first, c.second);
        let t1 = root_label(p, self.pt, self.roots, self.open, c.roots.0);
        let t2 = root_label(p, self.pt, self.roots, self.open, c.roots.1);
        let held1 = self.held_at(h1, a1);
        let held2 = self.held_at(h2, a2);
        let message = if std::ptr::eq(a1, a2) {
            format!(
                "potential deadlock: {} in {} takes {} while holding {}, another object of the same allocation site; {} running the same code with the two objects swapped takes them in the opposite order",
                t1,
                short_method(p, a1.site.method),
                self.lock_name(a1),
                held1,
                t2,
            )
        } else {
            format!(
            "potential deadlock: {} in {}{} takes {} while holding {}, and {} in {} ({}) takes them in the opposite order",
            t1,
            short_method(p, a1.site.method),
            self.callee_at(a1),
            self.lock_name(a1),
            crate::util::lock_text(p, self.pt, h1),
            t2,
            short_method(p, a2.site.method),
            self.at(a2),
        )
        };
        let mut f = Finding::new(
            RULE.id,
            Severity::Warning,
            message,
            location(p, a1.site.method, a1.site.stmt),
        )
        .with_lock(crate::util::lock_text(p, self.pt, &a1.lock))
        .with_confidence(self.confidence(c));
        for (t, a, held) in [(&t1, a1, &held1), (&t2, a2, &held2)] {
            f = f.with_related(
                location(p, a.site.method, a.site.stmt),
                format!("{t} waits for {} holding {held}", self.lock_name(a)),
            );
        }
        f = f.with_note(format!(
            "cycle: thread A ({t1}) holds {held1}, waits for {} ({}); thread B ({t2}) holds {held2}, waits for {} ({})",
            self.lock_name(a1),
            self.at(a1),
            self.lock_name(a2),
            self.at(a2),
        ));
        let path1 = self.paths.guarded_path(
            (c.roots.0, a1.site.node),
            a1.entry_chain.as_deref(),
            &self.reach,
            &a1.guards,
        );
        let path2 = self.paths.guarded_path(
            (c.roots.1, a2.site.node),
            a2.entry_chain.as_deref(),
            &self.reach,
            &a2.guards,
        );
        f = f.with_note(format!("path of thread A: {path1}"));
        f = f.with_note(format!("path of thread B: {path2}"));
        // One thread flow per side of the cycle (SARIF `threadFlows`).
        for (t, a, held, path) in [(&t1, a1, &held1, &path1), (&t2, a2, &held2, &path2)] {
            let step = Related::new(
                location(p, a.site.method, a.site.stmt),
                format!(
                    "holds {held}, waits for {}; path: {path}",
                    self.lock_name(a)
                ),
            );
            f = f.with_flow(Flow::new(t.clone(), vec![step]));
        }
        f.with_help(
            "take the two locks in one global order everywhere, or guard both sequences with one common lock",
        )
    }
}
