//! Gate locks of non-public harness entries: the open-program harness
//! enters protected methods of public classes and non-private methods of
//! classes with concurrent intent directly, "any caller". For a method
//! that is not public, the callers outside the program are subclasses or
//! classes of its package, which extend the program's own code. When
//! every caller of such a method *in the program* calls it on `this`
//! while holding a lock of `this` (the object's monitor, or a lock in a
//! field that keeps its value), the method is part of a locking protocol
//! (log4j's `FilteredLogTableModel.trimOldestRecords`, protected, reached
//! only from the `synchronized` `addLogRecord`): the harness is taken to
//! follow it, entering the method with those locks held
//! ([`gate_entry_locks`]: per node of the context call graph, the gate
//! locks held on entry — resolved in the harness's context at the
//! method's entries and passed down to every callee that every caller
//! enters with them, as the entry locksets are).
//!
//! The locks every caller holds are a greatest fixpoint over methods
//! (not contexts): a method's gate is the intersection, over its
//! in-program call sites on `this`, of the locks the caller holds there
//! (its body's, named by an entry path of `this`) and the caller's own
//! gate. Public methods, roots other than such harness entries, and
//! methods called on another object than the caller's `this` have none.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

use lockstep_ir::{AccessPath, Body, StmtId, StmtKind};
use lockstep_models::LockMode;
use lockstep_pointsto::PointsToResult;
use lockstep_program::{MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::RaceFacts;
use crate::local_locks::{self, BodyLocks, LocalLock};
use crate::locks::{intersect, union, HeldLock, LockObject, LockResolver};
use crate::threads::RootKind;

/// Locks named by paths from `this`; `None`: not constrained yet (top).
type Gate = Option<BTreeSet<AccessPath>>;

/// Per node of the race facts' context call graph, the locks held on
/// entry when the gated harness entries are entered with their gates
/// held (sorted; empty for every node no gated entry reaches, whose entry
/// locksets are those of the race facts).
pub fn gate_entry_locks(
    program: &Program,
    pt: &PointsToResult,
    races: &RaceFacts,
    resolver: &mut LockResolver<'_>,
) -> Vec<Vec<HeldLock>> {
    let gates = gated_methods(program, races, resolver);
    let n = races.graph.len();
    if gates.is_empty() {
        return vec![Vec::new(); n];
    }
    let mut seeds: Vec<Option<Vec<HeldLock>>> = vec![None; n];
    for r in &races.roots {
        let gate = match r.kind {
            RootKind::Harness(m) => gates.get(&m),
            _ => None,
        };
        for &e in &r.entries {
            let locks = gate.map_or_else(Vec::new, |g| resolve_gate(program, pt, races, e, g));
            meet(&mut seeds[e as usize], &locks);
        }
    }
    let gated: Vec<u32> = races
        .roots
        .iter()
        .filter(|r| matches!(r.kind, RootKind::Harness(m) if gates.contains_key(&m)))
        .flat_map(|r| r.entries.iter().copied())
        .collect();
    let inside = reached_from(races, &gated);
    let callers = node_callers(races);
    let mut sites = HeldAtSite::default();
    // A must-analysis over the nodes the gated entries reach, from top
    // (`None`); callers outside that part keep their race-facts entry.
    let mut at: Vec<Option<Vec<HeldLock>>> = vec![None; n];
    let mut work: VecDeque<u32> = gated.iter().copied().collect();
    let mut queued = vec![false; n];
    while let Some(node) = work.pop_front() {
        queued[node as usize] = false;
        // No lock held on entry is the bottom: it cannot change again.
        if at[node as usize].as_ref().is_some_and(Vec::is_empty) {
            continue;
        }
        let mut next = seeds[node as usize].clone();
        for &(caller, site) in &callers[node as usize] {
            if next.as_ref().is_some_and(Vec::is_empty) {
                break;
            }
            let entry: &[HeldLock] = if inside[caller as usize] {
                match &at[caller as usize] {
                    Some(v) => v,
                    None => continue,
                }
            } else {
                match races.entry_locks.get(caller as usize) {
                    Some(Some(v)) => v,
                    _ => continue,
                }
            };
            let held = sites.held(program, races, resolver, caller, site);
            match &mut next {
                None => next = Some(union(entry, &held)),
                Some(v) => v.retain(|l| entry.contains(l) || held.contains(l)),
            }
        }
        if next.is_some() && next != at[node as usize] {
            at[node as usize] = next;
            for &(_, c) in &races.graph.callees[node as usize] {
                if inside[c as usize] && !queued[c as usize] {
                    queued[c as usize] = true;
                    work.push_back(c);
                }
            }
        }
    }
    at.into_iter().map(Option::unwrap_or_default).collect()
}

/// Marks the nodes reachable from `from` over the call graph.
fn reached_from(races: &RaceFacts, from: &[u32]) -> Vec<bool> {
    let mut seen = vec![false; races.graph.len()];
    let mut work: Vec<u32> = from.to_vec();
    while let Some(n) = work.pop() {
        if std::mem::replace(&mut seen[n as usize], true) {
            continue;
        }
        work.extend(races.graph.callees[n as usize].iter().map(|&(_, c)| c));
    }
    seen
}

/// Per node: its (caller node, call site) pairs.
fn node_callers(races: &RaceFacts) -> Vec<Vec<(u32, StmtId)>> {
    let mut out: Vec<Vec<(u32, StmtId)>> = vec![Vec::new(); races.graph.len()];
    for (n, callees) in races.graph.callees.iter().enumerate() {
        for &(site, c) in callees {
            out[c as usize].push((n as u32, site));
        }
    }
    out
}

/// Each body with the locks it holds before each statement (cached per
/// method; only the bodies asked for are lowered).
#[derive(Default)]
struct BodyCache {
    bodies: FxHashMap<MethodId, Option<BodyWithLocks>>,
}

/// A body and the locks it holds before each statement.
type BodyWithLocks = (Arc<Body>, Arc<BodyLocks>);

impl BodyCache {
    fn get(&mut self, program: &Program, m: MethodId) -> Option<BodyWithLocks> {
        self.bodies
            .entry(m)
            .or_insert_with(|| {
                let body = program.body(m)?;
                let locks = Arc::new(local_locks::analyse(program, &body));
                Some((body, locks))
            })
            .clone()
    }
}

/// The locks a caller's body holds at a call site, resolved in the
/// caller's context (cached per node and site).
#[derive(Default)]
struct HeldAtSite {
    cache: FxHashMap<(u32, StmtId), Vec<HeldLock>>,
    bodies: BodyCache,
}

impl HeldAtSite {
    fn held(
        &mut self,
        program: &Program,
        races: &RaceFacts,
        resolver: &mut LockResolver<'_>,
        node: u32,
        site: StmtId,
    ) -> Vec<HeldLock> {
        if let Some(v) = self.cache.get(&(node, site)) {
            return v.clone();
        }
        let mc = races.graph.nodes[node as usize];
        let data = program.method(mc.method);
        // Lock orders count JDK code's `synchronized` methods only
        // (`lock_order`), so a JDK body is lowered only when it is one.
        let jdk = !program.is_application(data.class);
        let wanted = !jdk || data.is_synchronized();
        let v = match wanted
            .then(|| self.bodies.get(program, mc.method))
            .flatten()
        {
            Some((body, locks)) => {
                let counted: Vec<LocalLock> = locks
                    .at(site)
                    .iter()
                    .filter(|l| !jdk || matches!(l, LocalLock::SyncMethod))
                    .cloned()
                    .collect();
                let mut v = resolver.resolve(mc.method, mc.context, &body, &counted);
                v.sort();
                v.dedup();
                v
            }
            None => Vec::new(),
        };
        self.cache.insert((node, site), v.clone());
        v
    }
}

/// Intersects `slot` with `locks` (`None` is top).
fn meet(slot: &mut Option<Vec<HeldLock>>, locks: &[HeldLock]) {
    *slot = Some(match slot.take() {
        None => locks.to_vec(),
        Some(prev) => intersect(&prev, locks),
    });
}

/// A gate's paths as locks of one entry node (those that denote one object there).
fn resolve_gate(
    program: &Program,
    pt: &PointsToResult,
    races: &RaceFacts,
    node: u32,
    gate: &BTreeSet<AccessPath>,
) -> Vec<HeldLock> {
    let mc = races.graph.nodes[node as usize];
    let mut out: Vec<HeldLock> = Vec::new();
    for path in gate {
        let one = pt
            .path(program, mc.method, Some(mc.context), path)
            .and_then(|set| crate::util::single_object(&set));
        if let Some(o) = one {
            let lock = HeldLock {
                object: LockObject::Object(o),
                mode: LockMode::Exclusive,
            };
            out = union(&out, std::slice::from_ref(&lock));
        }
    }
    out
}

/// The non-public harness entries every in-program caller enters with
/// monitors of their `this` held, with those monitors' paths.
fn gated_methods(
    program: &Program,
    races: &RaceFacts,
    resolver: &mut LockResolver<'_>,
) -> FxHashMap<MethodId, BTreeSet<AccessPath>> {
    let non_public_entry = races
        .roots
        .iter()
        .any(|r| matches!(r.kind, RootKind::Harness(m) if !program.method(m).is_public()));
    if !non_public_entry {
        return FxHashMap::default();
    }
    let callers = method_callers(races);
    let candidates = candidates(program, races);
    let mut gates: FxHashMap<MethodId, Gate> = candidates.iter().map(|&m| (m, None)).collect();
    let mut sites = SiteLocks::default();
    let mut changed = true;
    while changed {
        changed = false;
        for &m in &candidates {
            let gate = gate_of(program, resolver, &mut sites, &gates, callers.get(&m));
            if gates.get(&m) != Some(&gate) {
                gates.insert(m, gate);
                changed = true;
            }
        }
    }
    let harness: FxHashSet<MethodId> = races
        .roots
        .iter()
        .filter_map(|r| match r.kind {
            RootKind::Harness(m) => Some(m),
            _ => None,
        })
        .collect();
    gates
        .into_iter()
        .filter(|(m, _)| harness.contains(m))
        .filter_map(|(m, g)| g.filter(|s| !s.is_empty()).map(|s| (m, s)))
        .collect()
}

/// Per method: its in-program call sites (caller method, statement), sorted.
fn method_callers(races: &RaceFacts) -> FxHashMap<MethodId, Vec<(MethodId, StmtId)>> {
    let graph = &races.graph;
    let mut out: FxHashMap<MethodId, Vec<(MethodId, StmtId)>> = FxHashMap::default();
    for (n, callees) in graph.callees.iter().enumerate() {
        let caller = graph.nodes[n].method;
        for &(site, c) in callees {
            out.entry(graph.nodes[c as usize].method)
                .or_default()
                .push((caller, site));
        }
    }
    for v in out.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    out
}

/// Instance methods of application code that only the program's own
/// code, or the harness as a non-public entry, enters (sorted).
fn candidates(program: &Program, races: &RaceFacts) -> Vec<MethodId> {
    let mut fixed: FxHashSet<MethodId> = FxHashSet::default();
    for r in &races.roots {
        match r.kind {
            RootKind::Harness(m) if !program.method(m).is_public() => {}
            _ => fixed.extend(
                r.entries
                    .iter()
                    .map(|&n| races.graph.nodes[n as usize].method),
            ),
        }
    }
    let mut out: Vec<MethodId> = races
        .graph
        .nodes
        .iter()
        .map(|n| n.method)
        .filter(|m| !fixed.contains(m))
        .filter(|&m| {
            let data = program.method(m);
            !data.is_static() && !data.is_constructor() && program.is_application(data.class)
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The gate of a method from its call sites (`None` sites: no caller in
/// the program, so no gate).
fn gate_of(
    program: &Program,
    resolver: &mut LockResolver<'_>,
    sites: &mut SiteLocks,
    gates: &FxHashMap<MethodId, Gate>,
    callers: Option<&Vec<(MethodId, StmtId)>>,
) -> Gate {
    let callers = callers.filter(|c| !c.is_empty())?;
    let mut out: Gate = None;
    for &(caller, site) in callers {
        let here = match gates.get(&caller) {
            // A caller nobody constrains yet adds nothing to remove.
            Some(None) => continue,
            Some(Some(g)) => {
                let mut set = sites.held_on_this(program, resolver, caller, site);
                set.extend(g.iter().cloned());
                set
            }
            None => sites.held_on_this(program, resolver, caller, site),
        };
        out = Some(match out {
            None => here,
            Some(prev) => prev.intersection(&here).cloned().collect(),
        });
        if out.as_ref().is_some_and(BTreeSet::is_empty) {
            break;
        }
    }
    out
}

/// The locks a caller holds at a call on its own `this`, by entry paths
/// from `this` (cached per call site).
#[derive(Default)]
struct SiteLocks {
    cache: FxHashMap<(MethodId, StmtId), BTreeSet<AccessPath>>,
    bodies: BodyCache,
}

impl SiteLocks {
    fn held_on_this(
        &mut self,
        program: &Program,
        resolver: &mut LockResolver<'_>,
        caller: MethodId,
        site: StmtId,
    ) -> BTreeSet<AccessPath> {
        if let Some(v) = self.cache.get(&(caller, site)) {
            return v.clone();
        }
        // JDK bodies are not lowered for this: their blocks take part in
        // no lock order, and a call on `this` from the JDK is no protocol.
        let app = program.is_application(program.method(caller).class);
        let v = match app.then(|| self.bodies.get(program, caller)).flatten() {
            Some((body, locks)) => held_at_call_on_this(resolver, &body, &locks, site),
            _ => BTreeSet::new(),
        };
        self.cache.insert((caller, site), v.clone());
        v
    }
}

/// What [`SiteLocks::held_on_this`] computes, for one body.
fn held_at_call_on_this(
    resolver: &mut LockResolver<'_>,
    body: &Body,
    locks: &BodyLocks,
    site: StmtId,
) -> BTreeSet<AccessPath> {
    let Some(StmtKind::Invoke { call, .. }) = body.stmts.get(site.index()).map(|s| &s.kind) else {
        return BTreeSet::new();
    };
    let on_this = call
        .receiver
        .as_ref()
        .is_some_and(|r| lockstep_ir::operand_path(body, r) == AccessPath::This);
    if body.is_static || !on_this {
        return BTreeSet::new();
    }
    locks
        .at(site)
        .iter()
        .filter(|l| !matches!(l, LocalLock::Juc { .. }))
        .map(|l| l.path(body))
        .filter(|p| from_this(p) && crate::lock_summary::entry_path(resolver, body, p))
        .collect()
}

/// Is the path `this` or a chain of fields from it?
fn from_this(p: &AccessPath) -> bool {
    match p {
        AccessPath::This => true,
        AccessPath::Field(base, _) | AccessPath::OuterThis(base, _) => from_this(base),
        _ => false,
    }
}
