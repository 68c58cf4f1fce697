//! Rules `reacquired-lock` and `reacquired-lock-pair` (paper 000): while a
//! lock is held, another lock is acquired and released twice (or two locks
//! one after the other). See `docs.md` beside this file.

pub mod analysis;
mod identity;
mod lock_table;
pub mod locks;
mod small_map;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use lockstep_facts::lock_identity::{self, ContextObject};
use lockstep_ir::{AccessPath, Body, MonitorKind, StmtId, VarId};
use lockstep_pointsto::{PointsToResult, PtaCallGraph};
use lockstep_program::{EdgeKind, MethodId, Program};
use lockstep_report::{Confidence, Finding, Severity};
use rustc_hash::FxHashMap;

use crate::util::{location, position, short_method};
use crate::{Context, Detector, Needs, Output, RuleId, RuleMeta};
use analysis::{Analysis, Chain, Hop, LockProgram, Settings, Witness};

pub static RULE: RuleMeta = RuleMeta {
    id: RuleId::ReacquiredLock,
    name: "ReacquiredLock",
    summary: "While a lock is held, another lock is acquired and released twice, so the block is not atomic",
    // Off: 12 of 30 sampled warnings were true (40%, below the 80% bar of
    // default rules; samples 2 and 4), and all but one true one were
    // benign (`docs/reacquired-lock-sample-2.md`).
    default_enabled: false,
    docs: include_str!("docs.md"),
};

pub static PAIR_RULE: RuleMeta = RuleMeta {
    id: RuleId::ReacquiredLockPair,
    name: "ReacquiredLockPair",
    summary: "While a lock is held, two other locks are acquired and released one after the other",
    default_enabled: false,
    docs: include_str!("pair_docs.md"),
};

pub struct ReacquiredLock;

struct ProgramView<'a> {
    program: &'a Program,
    /// The points-to call graph: it resolves a virtual call by the objects
    /// its receiver may hold. RTA (every instantiated class with the
    /// method) sent `map.get()` on a `HashMap` field into any application
    /// class implementing `Map`: 18 of 25 sampled findings were false on
    /// such edges (`docs/reacquired-lock-sample.md`).
    graph: &'a PtaCallGraph,
    /// Decides when two lock expressions are one object (must-alias).
    pt: &'a PointsToResult,
    /// What each held lock expression of a method points to per context
    /// (`lock_identity::context_objects`), resolved once: the witnesses
    /// of a method share the few locks held around them. Behind a lock
    /// because the program view is shared with the parallel per-method
    /// analysis; only the sequential re-entry check uses it.
    objects: Mutex<ObjectsMemo>,
    /// The same for taken locks, filled one context at a time as
    /// [`LockProgram::same_lock`] asks: a lock is compared with every
    /// lock held around it, in every block of the method.
    taken: Mutex<TakenMemo>,
}

/// Per (method, lock expression): its [`ContextObject`]s.
type ObjectsMemo = FxHashMap<(MethodId, AccessPath), Arc<[ContextObject]>>;

/// Per (method, lock expression): its [`ContextObject`] in each context
/// resolved so far.
type TakenMemo = FxHashMap<(MethodId, AccessPath), Vec<Option<ContextObject>>>;

impl ProgramView<'_> {
    /// [`ContextObject`]s of `path` in `m`, from the memo or resolved now.
    fn context_objects(&self, m: MethodId, path: &AccessPath) -> Arc<[ContextObject]> {
        // A poisoned lock only means another use panicked: its map is
        // still a valid memo.
        let mut memo = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        memo.entry((m, path.clone()))
            .or_insert_with(|| {
                lock_identity::context_objects(self.program, self.pt, m, path).into()
            })
            .clone()
    }
}

impl LockProgram for ProgramView<'_> {
    type M = MethodId;
    fn body(&self, m: MethodId) -> Option<Arc<Body>> {
        self.program.body(m)
    }
    fn callees(&self, m: MethodId, site: StmtId) -> Vec<MethodId> {
        let mut v: Vec<MethodId> = self
            .graph
            .callees_at(m, site)
            .iter()
            .filter(|e| is_call(e.kind))
            .map(|e| e.callee)
            .collect();
        v.sort();
        v.dedup();
        v
    }
    fn callers(&self, m: MethodId) -> Vec<(MethodId, StmtId)> {
        let mut v: Vec<(MethodId, StmtId)> = self
            .graph
            .callers(m)
            .filter(|e| is_call(e.kind))
            .map(|e| (e.caller, e.site))
            .collect();
        v.sort();
        v.dedup();
        v
    }
    fn access_path(&self, body: &Body, var: VarId) -> AccessPath {
        lockstep_ir::access_path(body, var)
    }
    fn declaring_class(&self, m: MethodId) -> Arc<str> {
        self.program
            .class(self.program.method(m).class)
            .name
            .clone()
    }
    fn meet(&self, known: &Arc<str>, declared: &Arc<str>) -> Option<Arc<str>> {
        let p = self.program;
        if known == declared || known.starts_with('[') || declared.starts_with('[') {
            return Some(known.clone());
        }
        if p.is_subtype_name(known, declared) {
            return Some(known.clone());
        }
        if p.is_subtype_name(declared, known) {
            return Some(declared.clone());
        }
        let (Some(k), Some(d)) = (p.class_by_name(known), p.class_by_name(declared)) else {
            return Some(known.clone());
        };
        if p.class(k).is_interface() || p.class(d).is_interface() {
            return Some(known.clone());
        }
        None
    }
    /// Both expressions point to the same single object in every context
    /// of `m` (`lockstep_facts::lock_identity::must_alias`). The held lock
    /// (one of the few around a witness) is resolved once per method;
    /// the taken lock only as far as the held one leaves the answer open.
    fn same_lock(&self, m: MethodId, held: &AccessPath, taken: &AccessPath) -> bool {
        let held = self.context_objects(m, held);
        let contexts = self.pt.contexts_of(m);
        let mut memo = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        let known = memo
            .entry((m, taken.clone()))
            .or_insert_with(|| vec![None; contexts.len()]);
        lock_identity::same_object_everywhere_lazy(&held, |i| {
            if let Some(Some(object)) = known.get(i) {
                return *object;
            }
            let object = match contexts.get(i) {
                Some(&c) => lock_identity::context_object(self.program, self.pt, m, c, taken),
                None => ContextObject::Unresolved,
            };
            if let Some(slot) = known.get_mut(i) {
                *slot = Some(object);
            }
            object
        })
    }
    fn is_library(&self, m: MethodId) -> bool {
        !self
            .program
            .class(self.program.method(m).class)
            .is_application
    }
}

/// Whether a call-graph edge runs the callee inside the caller. A thread
/// start runs its task in another thread, outside the caller's locks.
fn is_call(kind: EdgeKind) -> bool {
    kind != EdgeKind::TaskLaunch
}

impl Detector for ReacquiredLock {
    fn rules(&self) -> &'static [RuleId] {
        &[RuleId::ReacquiredLock, RuleId::ReacquiredLockPair]
    }

    /// Its call graph, receivers and lock identities come from points-to.
    fn needs(&self) -> Needs {
        Needs::PointsTo
    }

    fn run(&self, cx: &Context<'_>) -> Output {
        let single = cx.is_enabled(RuleId::ReacquiredLock);
        let pairs = cx.is_enabled(RuleId::ReacquiredLockPair);
        if !single && !pairs {
            return Output::default();
        }
        let view = ProgramView {
            program: cx.program,
            graph: cx.facts.points_to().call_graph(),
            pt: cx.facts.points_to(),
            objects: Mutex::default(),
            taken: Mutex::default(),
        };
        let methods = view.graph.reachable.clone();
        let analysis = Analysis::new(
            &view,
            &methods,
            Settings {
                pairs,
                library_internal_locks: cx.options.include_library_witnesses,
                budget: cx.budget,
            },
        );
        let mut identity = identity::LockIdentity::new(cx.program, cx.facts.points_to());
        let mut found = analysis.witnesses();
        // The witnesses that may be reported, per location of the second
        // acquisition (§4.5: one warning each), with their rank.
        let mut candidates: BTreeMap<WitnessKey, Vec<Ranked>> = BTreeMap::new();
        for (index, w) in std::mem::take(&mut found.witnesses).into_iter().enumerate() {
            if !cx
                .program
                .class(cx.program.method(w.method).class)
                .is_application
            {
                continue;
            }
            let same = w.pair.0 == w.pair.1;
            if (same && !single) || (!same && !pairs) {
                continue;
            }
            if !cx.options.include_library_witnesses
                && (in_self_synchronized_class(cx.program, &w.entry.second)
                    || library_internal(cx.program, &w.entry.first)
                    || library_internal(cx.program, &w.entry.second)
                    || (acquired_in_library(cx.program, &w.entry.first)
                        && acquired_in_library(cx.program, &w.entry.second)))
            {
                continue;
            }
            candidates
                .entry((same, w.entry.formed_at))
                .or_default()
                .push((rank(&w), index, w));
        }
        // Per location, the best-ranked witness (then the first found) that
        // passes the costly checks: the same choice as checking every
        // witness and keeping the best survivor, with the checks asked of
        // the few witnesses tried rather than of all.
        let mut reentries = analysis::Reentries::default();
        let mut best: BTreeMap<WitnessKey, Witness<MethodId>> = BTreeMap::new();
        for (key, mut group) in candidates {
            group.sort_unstable_by(|x, y| (&x.0, x.1).cmp(&(&y.0, y.1)));
            let chosen = group.into_iter().map(|(_, _, w)| w).find(|w| {
                // A lock held around the witness under another name: both
                // acquisitions are re-entries.
                !analysis.reenters_held(w, &mut reentries)
                    // An acquisition down a call path that cannot lock what
                    // the witness names (the call graph merged other
                    // callers' objects).
                    && identity.may_lock(w.method, &w.pair.0, &w.entry.first)
                    && identity.may_lock(w.method, &w.pair.1, &w.entry.second)
                    && identity.may_run_together(&w.entry.first, &w.entry.second)
            });
            if let Some(w) = chosen {
                best.insert(key, w);
            }
        }
        // Different second-acquisition sites can surface at one statement
        // (recursion): one finding per rule, location and lock.
        let mut seen = std::collections::BTreeSet::new();
        let findings: Vec<Finding> = best
            .into_values()
            .map(|w| crate::util::readable(finding(cx.program, &w)))
            .filter(|f| seen.insert((f.rule.clone(), format!("{:?}", f.location), f.lock.clone())))
            .collect();
        let mut stats = Vec::new();
        if found.bounded_methods > 0 {
            stats.push(format!(
                "reacquired-lock-pair: in {} method(s) a block released more than {} lock pairs; \
                 only the first {} of each block were checked",
                found.bounded_methods,
                analysis::MAX_PAIRS_PER_BLOCK,
                analysis::MAX_PAIRS_PER_BLOCK
            ));
        }
        Output {
            findings,
            stats,
            cuts: cuts(&found, single, pairs),
            ..Output::default()
        }
    }
}

/// What the budget cut, for each enabled rule: methods not analysed at
/// all, and (pair rule) methods whose pair search stopped early.
fn cuts(found: &analysis::Witnesses<MethodId>, single: bool, pairs: bool) -> Vec<crate::Cut> {
    let mut out = Vec::new();
    let rules = [
        (single, RuleId::ReacquiredLock),
        (pairs, RuleId::ReacquiredLockPair),
    ];
    for (_, rule) in rules.iter().filter(|(on, _)| *on) {
        out.extend(
            found
                .skipped
                .cut(*rule, "methods that take locks not analysed"),
        );
    }
    if pairs && found.pairs_cut_methods > 0 {
        out.push(crate::Cut::new(
            RuleId::ReacquiredLockPair,
            format!(
                "the pair search stopped early in {} method(s)",
                found.pairs_cut_methods
            ),
        ));
    }
    out
}

/// Where a warning is reported: one per rule kind (same lock or a pair)
/// and location of the second acquisition.
type WitnessKey = (bool, Hop<MethodId>);

/// A witness with its [`rank`] and its place in the analysis's order.
type Ranked = (Rank, usize, Witness<MethodId>);

/// How close a witness is to its second acquisition (smaller is better).
type Rank = (bool, usize, MethodId, u32, String);

fn rank(w: &Witness<MethodId>) -> Rank {
    (
        w.method != w.entry.formed_at.method,
        w.entry.second.len(),
        w.method,
        w.context.0,
        format!("{:?}", w.pair),
    )
}

fn in_self_synchronized_class(program: &Program, chain: &Chain<MethodId>) -> bool {
    chain.iter().any(|hop| {
        let class = &program.class(program.method(hop.method).class).name;
        // Nested classes (`Vector`'s enumeration locks `Vector.this`) count as their outer class.
        let outer = class.split('$').next().unwrap_or(class);
        lockstep_models::is_self_synchronized(class) || lockstep_models::is_self_synchronized(outer)
    })
}

/// The lock is taken inside library code (a JDK class locking itself or
/// its internals). When both acquisitions are, the application only calls
/// two operations of a library object that synchronizes internally: the
/// encapsulated use of §5.2, and under the class-hierarchy call graph often
/// not even that object (`Iterator.hasNext` reaching every live JDK
/// iterator that locks itself).
fn acquired_in_library(program: &Program, chain: &Chain<MethodId>) -> bool {
    chain.last().is_some_and(|deep| {
        !program
            .class(program.method(deep.method).class)
            .is_application
    })
}

/// An acquisition made by library code on behalf of other library code
/// (`HashMap.get` calling a key's synchronized `hashCode`): neither the
/// acquiring method nor its caller is application code. Such locks are
/// private to the library or reached only through the call graph's
/// imprecise callbacks (every live class's `hashCode`), so they are not
/// reported as witnesses.
fn library_internal(program: &Program, chain: &Chain<MethodId>) -> bool {
    let is_library = |m: MethodId| !program.class(program.method(m).class).is_application;
    let n = chain.len();
    match (chain.get(n.wrapping_sub(1)), chain.get(n.wrapping_sub(2))) {
        (Some(deep), Some(caller)) => is_library(deep.method) && is_library(caller.method),
        _ => false,
    }
}

/// How a chain reads: `Point.getX (Point.java:14) <- Zone.contains (Zone.java:20)`, deepest first.
fn describe_chain(program: &Program, chain: &Chain<MethodId>) -> String {
    let mut parts = Vec::new();
    for hop in chain.iter().rev() {
        let what = match hop.stmt {
            None => format!(
                "{} (synchronized method)",
                short_method(program, hop.method)
            ),
            Some(s) => format!(
                "{} ({})",
                short_method(program, hop.method),
                position(program, hop.method, Some(s))
            ),
        };
        parts.push(what);
    }
    parts.join(" <- ")
}

fn deepest(chain: &Chain<MethodId>) -> Option<Hop<MethodId>> {
    chain.last().copied()
}

fn acquisition_note(program: &Program, hop: Hop<MethodId>, lock: &str, ordinal: &str) -> String {
    match hop.stmt {
        None => format!(
            "{ordinal} acquisition of `{lock}`: entering synchronized method {}",
            short_method(program, hop.method)
        ),
        Some(_) => format!("{ordinal} acquisition of `{lock}`"),
    }
}

/// How sure one acquisition is (criteria in `docs.md`): high when it is
/// in application code; medium when application code calls a
/// synchronized JDK method; low when JDK code reaches it through JDK
/// calls, where the call graph is widest.
fn confidence(program: &Program, chain: &Chain<MethodId>) -> Confidence {
    let in_jdk: Vec<bool> = chain
        .iter()
        .map(|h| !program.is_application(program.method(h.method).class))
        .collect();
    match in_jdk.iter().position(|&jdk| jdk) {
        None => Confidence::High,
        Some(i) if i + 1 == in_jdk.len() => Confidence::Medium,
        Some(_) => Confidence::Low,
    }
}

fn finding(program: &Program, w: &Witness<MethodId>) -> Finding {
    let body = program.body(w.method);
    let region = body
        .as_ref()
        .and_then(|b| b.monitors.get(w.context.index()).cloned());
    let context_lock = region
        .as_ref()
        .map(|r| r.lock.to_string())
        .unwrap_or_else(|| "?".into());
    let context_desc = match region.as_ref().map(|r| r.kind) {
        Some(MonitorKind::SynchronizedMethod) => "synchronized method".to_string(),
        _ => format!(
            "synchronized block at {}",
            position(program, w.method, region.as_ref().and_then(|r| r.enter))
        ),
    };
    let (a, b) = (w.pair.0.to_string(), w.pair.1.to_string());
    let first = deepest(&w.entry.first);
    let second = deepest(&w.entry.second);
    // The message cites where the block reaches each acquisition (the call
    // or `synchronized` statement in the context method); when both go
    // through the same statement (the pattern is inside one callee), it
    // cites the deepest sites instead. `related` always gives the deepest.
    let same_local = w.entry.first.first() == w.entry.second.first();
    let cite = |c: &Chain<MethodId>| {
        let hop = if same_local { c.last() } else { c.first() };
        hop.map(|h| position(program, h.method, h.stmt))
            .unwrap_or_default()
    };
    let first_pos = cite(&w.entry.first);
    let second_pos = cite(&w.entry.second);
    let local_second =
        w.entry
            .second
            .first()
            .and_then(|h| if h.method == w.method { h.stmt } else { None });
    let same = w.pair.0 == w.pair.1;
    let (rule, message, help) = if same {
        (
            RULE.id,
            format!(
                "`{b}` is locked and unlocked twice ({first_pos}, {second_pos}) while `{context_lock}` is held ({context_desc}): the state `{b}` guards can change between the two acquisitions, so this block does not see one consistent `{b}` although `{context_lock}` is held"
            ),
            format!("do both steps in one acquisition of `{b}` (one method of its class, or one block synchronized on it, that does both), or use the first result without asking `{b}` again; holding `{context_lock}` keeps the two steps together only if every thread that changes what `{b}` guards holds `{context_lock}` too"),
        )
    } else {
        (
            PAIR_RULE.id,
            format!(
                "`{a}` and then `{b}` are locked and unlocked one after the other ({first_pos}, {second_pos}) while `{context_lock}` is held ({context_desc}): the state `{a}` guards can change while `{b}` is used, so the block does not see `{a}` and `{b}` consistent with each other"
            ),
            format!("if the block relies on `{a}` and `{b}` agreeing, let one lock guard both (the same lock in every method that updates either), rather than nesting a lock on `{b}` inside one on `{a}`"),
        )
    };
    let mut f = Finding::new(
        rule,
        Severity::Warning,
        message,
        location(program, w.method, local_second),
    )
    .with_lock(b.clone())
    // `Confidence` orders most confident first: `max` is the weaker side.
    .with_confidence(confidence(program, &w.entry.first).max(confidence(program, &w.entry.second)));
    let context_loc = location(program, w.method, region.as_ref().and_then(|r| r.enter));
    f = f.with_related(
        context_loc,
        format!("`{context_lock}` is held from here ({context_desc})"),
    );
    if let Some(h) = first {
        f = f.with_related(
            location(program, h.method, h.stmt),
            acquisition_note(program, h, &a, "first"),
        );
    }
    if let Some(h) = second {
        f = f.with_related(
            location(program, h.method, h.stmt),
            acquisition_note(program, h, &b, "second"),
        );
    }
    if w.entry.first.len() > 1 {
        f = f.with_note(format!(
            "first acquisition path: {}",
            describe_chain(program, &w.entry.first)
        ));
    }
    if w.entry.second.len() > 1 {
        f = f.with_note(format!(
            "second acquisition path: {}",
            describe_chain(program, &w.entry.second)
        ));
    }
    f.with_help(help)
}
