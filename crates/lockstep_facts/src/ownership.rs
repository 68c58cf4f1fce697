//! Ownership (RacerD's, per method context): an object this thread made
//! and has not yet handed to anyone else cannot race, whatever other
//! objects of its allocation site do.
//!
//! Escape ([`crate::escape`]) asks whether an abstract object is *ever*
//! reachable by another thread; an allocation site stands for the objects
//! of every call, so one object of the site that is published (h2 keeps
//! its parsed commands in a per-session cache) makes every access to every
//! object of the site shared, including those a parser makes on its own
//! objects while it builds them. Ownership is the temporal half: at each
//! statement, which variables hold an object that is still the thread's
//! own.
//!
//! Per node of the context call graph (a method in one context), a forward
//! must-analysis over the CFG says which variables are owned before each
//! statement:
//! - a `new` (object or array) is owned, and so is the copy a JDK
//!   `clone()` or `Arrays.copyOf` returns (`super.clone()`, an array's
//!   `clone()`: a new object only the caller holds); copies and casts
//!   keep ownership;
//! - a field, element or container read of an owned object is owned when
//!   that object's slot only ever received owned values while its holder
//!   was owned (an owned container holds owned objects: a per-call
//!   `Parser` and the `Select` it keeps in a field);
//! - a parameter is owned when every caller passes an owned value (a
//!   greatest fixpoint over the context call graph; root entries and
//!   callbacks from JDK code pass nothing owned); a call's result is owned
//!   when every callee returns an owned value;
//! - except that the open-program harness follows the program's own
//!   protocol for *build-only* methods (issue 14 point 4): an instance
//!   method that the analysed code calls, always on an owned receiver (an
//!   object its caller is still building or uses for one call only, like
//!   log4j's `DOMConfigurator.configure` making a configurator per call),
//!   with no other caller, no thread of the program entering it and no
//!   `@ThreadSafe` on its class (a promise to every caller), gets
//!   an owned receiver (fresh when every program call passes it fresh)
//!   from the harness too: the outside caller is taken to use such an
//!   object within one call, as the program does, not to share it between
//!   threads. One unowned program call makes the method judged as before;
//! - and the harness enters a constructor the one way Java allows, `new
//!   C(..)`: its receiver is owned and fresh on entry, an object the
//!   outside caller has just made and no other thread can hold yet;
//! - a value is published, and with it everything reachable from it (the
//!   variables of the method that may point there lose ownership), when it
//!   is stored into a static field or into a field, element or container
//!   of an object that is not owned, thrown, captured by a lambda, passed
//!   to JDK code that may keep it (anything but the container model and a
//!   few calls that keep nothing), or passed to an application method that
//!   publishes that parameter.
//!
//! Objects published anywhere (and the seeds of escape: statics, tasks,
//! objects made outside the program) are never owned when loaded or
//! accessed, so a second path to a published object does not count as
//! owned; except through a *fresh* variable ([`crate::fresh`]), whose
//! object no other path reaches yet: its facts (entry freshness per
//! parameter, which parameters a node keeps fresh, whether it returns a
//! fresh value) are part of the same fixpoint. A fresh object stays fresh
//! while it is held only by fresh objects (a constructor's `this` inside
//! the helper object it makes and keeps: [`crate::fresh`]).
//!
//! Known limit (RacerD's too): an object kept in an owned container and
//! published only through *another* object in another method is still
//! taken as owned when read back from the owned container.
//!
//! A worklist: after a first round over every node, a round re-analyses
//! only the nodes that read a fact that changed (the `published` or
//! `mixed` facts of an object one of their variables may point to, a
//! callee's summary, their own parameters' entry ownership and
//! freshness), in the same order. What a caller passes reaches its
//! callees as soon as its pass is done, so a callee later in the order
//! is analysed with it in the same round. Every fact only loses (owned
//! becomes not owned, nothing published becomes published), so the
//! result is the greatest fixpoint that re-analysing every node every
//! round reaches, in fewer rounds.
//!
//! Bounded: reachability from a published value stops at
//! [`MAX_REACH`] objects (past it, every variable of the method loses
//! ownership and every parameter counts as published), and the fixpoint
//! stops at [`MAX_ROUNDS`] (past it, nothing is owned).

use std::sync::Arc;

use lockstep_ir::{Body, Call, ConstValue, Operand, Rvalue, StmtId, StmtKind, VarId};
use lockstep_models::ContainerAccess;
use lockstep_pointsto::ObjectId;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::Analysis;
use crate::block_solver::{self, Forward};
use crate::fresh;
use crate::threads::{Root, RootKind};
use lockstep_program::Program;

/// Objects visited from one published value before giving up.
const MAX_REACH: usize = 512;
/// Rounds of the whole-program fixpoint before giving up.
const MAX_ROUNDS: usize = 40;

/// A slot of an object that can hold a reference.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Slot {
    Field(Arc<str>),
    Element,
    Contents,
}

/// The result: per node, the statements whose accessed object is owned,
/// and the nodes whose receiver is owned on entry.
#[derive(Debug, Default)]
pub struct Owned(FxHashSet<(u32, StmtId)>, FxHashSet<u32>);

impl Owned {
    /// Is the object that `stmt` of `node` accesses (field, element or
    /// container), calls a method on, or locks (`synchronized (x)`) owned
    /// by the running thread there?
    pub fn at(&self, node: u32, stmt: StmtId) -> bool {
        self.0.contains(&(node, stmt))
    }

    /// Is the receiver of `node` (`this` of an instance method) owned by
    /// the running thread on entry: every caller passes an object no
    /// other thread can reach yet (the monitor a `synchronized` method
    /// takes on entry is then one no other thread can hold)?
    pub fn receiver_at_entry(&self, node: u32) -> bool {
        self.1.contains(&node)
    }
}

/// The whole-program facts the nodes share (each moves only towards
/// "less owned", so the iteration ends).
struct Facts {
    /// Objects published somewhere (or made outside the program).
    published: Vec<bool>,
    /// (object, slot) that received a value not owned while it was owned.
    mixed: FxHashSet<(ObjectId, Slot)>,
    /// Per node and parameter: the node may publish it.
    publishes: Vec<Vec<bool>>,
    /// Per node: every value it returns is owned.
    returns_owned: Vec<bool>,
    /// Per node and parameter: every caller passes an owned value.
    entry: Vec<Vec<bool>>,
    /// Deserialization hooks only the JDK calls: their receiver is the
    /// object the deserializer just made ([`crate::fresh`]).
    fresh_receiver: FxHashSet<u32>,
    /// Per node and parameter: every caller passes a fresh value.
    entry_fresh: Vec<Vec<bool>>,
    /// Per node and parameter: the node keeps the parameter fresh (stores
    /// it nowhere, returns it not, hands it only to callees that keep it).
    keeps_fresh: Vec<Vec<bool>>,
    /// Per node and parameter: the node keeps the parameter fresh or
    /// stores it only into fields of its receiver while the receiver is
    /// fresh ([`crate::fresh`], "held by its own parts"): the caller's
    /// variable stays fresh while the receiver it passed does.
    keeps_tethered: Vec<Vec<bool>>,
    /// Per node: every value it returns is fresh and none of its parameters.
    returns_fresh: Vec<bool>,
    /// Per node: a method of application code (fixed: looked up once,
    /// not per call edge and visit).
    app: Vec<bool>,
}

/// What one pass over a node found.
#[derive(Default)]
struct NodeOut {
    /// Per call site, sorted: is each argument (receiver first) owned,
    /// then is each fresh (over every visit of the site)? Twice as many
    /// bits as operands.
    args: Vec<(StmtId, Vec<bool>)>,
    publishes: Vec<bool>,
    returns_owned: bool,
    /// Per parameter: the node may make it not fresh.
    unfreshes: Vec<bool>,
    /// Per parameter: the node stores it into a field of its fresh
    /// receiver (kept fresh only while the receiver is).
    tethers: Vec<bool>,
    returns_fresh: bool,
    published: Vec<ObjectId>,
    mixed: Vec<(ObjectId, Slot)>,
    owned_bases: Vec<StmtId>,
    /// The receiver is owned on entry (recorded with `owned_bases`).
    owned_receiver: bool,
}

impl NodeOut {
    /// Before a pass over a node with `params` parameters: nothing found yet.
    fn start(params: usize) -> NodeOut {
        NodeOut {
            publishes: vec![false; params],
            returns_owned: true,
            unfreshes: vec![false; params],
            tethers: vec![false; params],
            returns_fresh: true,
            ..NodeOut::default()
        }
    }

    /// A node given up on: it may publish every parameter, returns
    /// nothing owned.
    fn given_up(params: usize) -> NodeOut {
        NodeOut {
            publishes: vec![true; params],
            unfreshes: vec![true; params],
            tethers: vec![false; params],
            ..NodeOut::default()
        }
    }
}

impl Analysis<'_> {
    /// Ownership of every reached application node (`reached[n]`: some
    /// root reaches node `n`; `seeds`: the objects escape starts from).
    pub(crate) fn ownership(&self, roots: &[Root], reached: &[bool], seeds: &[bool]) -> Owned {
        let n = self.graph.len();
        let app: Vec<bool> = (0..n as u32).map(|x| self.is_app_node(x)).collect();
        let nodes: Vec<u32> = (0..n as u32)
            .filter(|&x| reached.get(x as usize).copied().unwrap_or(false) && app[x as usize])
            .collect();
        let mut bodies = Bodies(vec![None; n]);
        for &x in &nodes {
            bodies.0[x as usize] = self.program.body(self.graph.nodes[x as usize].method);
        }
        let params = |x: u32| bodies.get(&x).map_or(0, |b| b.params.len());
        let mut facts = Facts {
            published: seeds.to_vec(),
            mixed: FxHashSet::default(),
            publishes: (0..n as u32).map(|x| vec![false; params(x)]).collect(),
            returns_owned: vec![true; n],
            entry: (0..n as u32).map(|x| vec![true; params(x)]).collect(),
            fresh_receiver: FxHashSet::default(),
            entry_fresh: (0..n as u32).map(|x| vec![true; params(x)]).collect(),
            keeps_fresh: (0..n as u32).map(|x| vec![true; params(x)]).collect(),
            keeps_tethered: (0..n as u32).map(|x| vec![true; params(x)]).collect(),
            returns_fresh: vec![true; n],
            app,
        };
        let root_entries: Vec<u32> = roots
            .iter()
            .flat_map(|r| r.entries.iter().copied())
            .collect();
        let harness_entries = harness_only_entries(roots);
        facts.fresh_receiver = self.deserialized_receivers(&nodes, &root_entries);
        let by_name = self.edges_by_name(&bodies);
        let mut analysed = vec![false; n];
        for &x in &nodes {
            analysed[x as usize] = true;
        }
        let entry_methods: FxHashSet<lockstep_program::MethodId> = harness_entries
            .iter()
            .map(|&r| self.graph.nodes[r as usize].method)
            .collect();
        let candidates: Vec<bool> = self
            .graph
            .nodes
            .iter()
            .map(|node| entry_methods.contains(&node.method))
            .collect();
        let mut is_root_entry = vec![false; n];
        for &r in &root_entries {
            if let Some(e) = is_root_entry.get_mut(r as usize) {
                *e = true;
            }
        }
        let known = Known {
            candidates: &candidates,
            analysed: &analysed,
            is_root_entry: &is_root_entry,
            nodes: &nodes,
            bodies: &bodies,
            root_entries: &root_entries,
            harness_entries: &harness_entries,
            by_name: &by_name,
        };
        self.close_entries(&mut facts, &known, None);
        let mut outs: Outs = Outs((0..n).map(|_| None).collect());
        let mut deps = Dependents::new(&self.graph.callees);
        // Every node is analysed in the first round; later rounds analyse
        // only the nodes a changed fact they read makes dirty, in the same
        // order: a clean node would give the out it gave before, which
        // changes nothing, so the result is that of analysing every node
        // every round.
        let mut dirty = vec![true; n];
        let mut reach = ReachCache::default();
        // What every caller hands its callees: the callers without a pass
        // from the start, each analysed caller's as soon as it has one.
        let mut gathered = self.fixed_incoming(&facts, &known, |c| bodies.contains_key(&c));
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for &x in &nodes {
                if !std::mem::take(&mut dirty[x as usize]) {
                    continue;
                }
                let Some(body) = bodies.get(&x) else { continue };
                let (out, read) = self.analyse_node(x, body, &facts, false, &mut reach, None);
                deps.note_reads(x, &read);
                let changes = merge(&mut facts, x, &out);
                changed |= changes.any();
                deps.mark(&changes, x, &mut dirty);
                let args_changed = outs.get(&x).map(|o| &o.args) != Some(&out.args);
                outs.0[x as usize] = Some(out);
                if !args_changed {
                    continue;
                }
                if let Some(out) = outs.get(&x) {
                    // What `x` now passes reaches its callees at once, so
                    // those later in this round's order are analysed with
                    // it (the same greatest fixpoint, in fewer rounds).
                    changed |= self.hand_on(&mut gathered, &mut facts, &known, x, out, &mut dirty);
                }
            }
            // The naive version: gathering every caller's latest pass
            // gives the same (checked in debug builds, so by every fixture
            // test).
            debug_assert!(self.gather(&facts, &known, &outs) == gathered);
            let closed = self.close_entries(&mut facts, &known, Some(&gathered));
            changed |= !closed.is_empty();
            for x in closed {
                dirty[x as usize] = true;
            }
            if !changed {
                return self.record_owned(&nodes, &bodies, &facts, &mut reach);
            }
        }
        Owned::default()
    }

    /// The access statements whose base is owned, per node, once the
    /// facts are final: each node replayed on its own. With several
    /// threads the nodes are spread over them (gathered in node order),
    /// each reading the fixpoint's caches and adding to a cache of its
    /// own; with one, in node order with the fixpoint's caches.
    fn record_owned(
        &self,
        nodes: &[u32],
        bodies: &Bodies,
        facts: &Facts,
        warm: &mut ReachCache,
    ) -> Owned {
        let mut owned = Owned::default();
        if self.program.parallelism() <= 1 {
            for &x in nodes {
                if let Some(body) = bodies.get(&x) {
                    let (out, _) = self.analyse_node(x, body, facts, true, warm, None);
                    owned.0.extend(out.owned_bases.iter().map(|&s| (x, s)));
                    if out.owned_receiver {
                        owned.1.insert(x);
                    }
                }
            }
            return owned;
        }
        let warm = &*warm;
        let per_node = self.program.map_in_order(nodes, |&x| {
            let Some(body) = bodies.get(&x) else {
                return (Vec::new(), false);
            };
            let mut own = ReachCache::default();
            let (out, _) = self.analyse_node(x, body, facts, true, &mut own, Some(warm));
            (out.owned_bases, out.owned_receiver)
        });
        for (&x, (bases, receiver)) in nodes.iter().zip(per_node) {
            owned.0.extend(bases.into_iter().map(|s| (x, s)));
            if receiver {
                owned.1.insert(x);
            }
        }
        owned
    }

    /// The nodes of deserialization hooks that only JDK code calls and no
    /// root enters: the deserializer calls them on the object it made.
    fn deserialized_receivers(&self, nodes: &[u32], root_entries: &[u32]) -> FxHashSet<u32> {
        let hooks: FxHashSet<u32> = nodes
            .iter()
            .copied()
            .filter(|&x| !root_entries.contains(&x))
            .filter(|&x| {
                let m = self.program.method(self.graph.nodes[x as usize].method);
                !m.is_static() && fresh::is_deserialization_hook(&m.name, &m.descriptor)
            })
            .collect();
        if hooks.is_empty() {
            return hooks;
        }
        let mut called_by_application = FxHashSet::default();
        for caller in 0..self.graph.len() as u32 {
            if !self.is_app_node(caller) {
                continue;
            }
            for &(_, callee) in &self.graph.callees[caller as usize] {
                if hooks.contains(&callee) {
                    called_by_application.insert(callee);
                }
            }
        }
        hooks
            .into_iter()
            .filter(|x| !called_by_application.contains(x))
            .collect()
    }

    fn is_app_node(&self, x: u32) -> bool {
        let m = self.graph.nodes[x as usize].method;
        self.program.is_application(self.program.method(m).class)
    }

    /// Parameters owned (and fresh) on entry: false at root entries and
    /// wherever a caller that is not analysed (JDK code, a callback) or a
    /// call that does not map its arguments reaches the node; otherwise
    /// the intersection of what the analysed callers pass. Returns the
    /// nodes whose entry facts changed, in node order.
    fn close_entries(
        &self,
        facts: &mut Facts,
        known: &Known<'_>,
        gathered: Option<&Incoming>,
    ) -> Vec<u32> {
        let (nodes, bodies, root_entries) = (known.nodes, known.bodies, known.root_entries);
        let n = self.graph.len();
        let Incoming {
            mut incoming,
            mut unknown,
            program_called,
        } = match gathered {
            // Before the first pass: every caller's edges.
            None => {
                let mut all = Incoming::empty(n);
                for caller in 0..n as u32 {
                    let analysed = known.analysed.get(caller as usize).copied();
                    let first = if analysed.unwrap_or(false) {
                        Passes::Optimistic
                    } else {
                        Passes::Unknown
                    };
                    self.add_edges(&mut all, facts, known, caller, first);
                }
                all
            }
            // What the callers' latest passes hand on.
            Some(g) => g.clone(),
        };
        let protocol = self.build_only_receivers(known, &incoming, &unknown, &program_called);
        for &r in root_entries {
            let harness_only = known.harness_entries.binary_search(&r).is_ok();
            let method = self.graph.nodes[r as usize].method;
            // The outside caller enters a constructor the one way Java
            // allows, `new C(..)`: on an object it has just made, which no
            // other thread can hold yet (c3p0's data sources lock
            // themselves in `C3P0Registry.reregister(this)` while being
            // built).
            let built = harness_only && self.program.method(method).is_constructor();
            let passes = if built {
                Some(true)
            } else {
                protocol.get(&method).copied()
            };
            match passes {
                Some(fresh) if harness_only => {
                    let params = bodies.get(&r).map_or(0, |b| b.params.len());
                    // The harness passes a receiver like the program's
                    // own calls do: owned (and fresh when they pass it
                    // fresh); every other argument is unknown.
                    let passed: Vec<bool> = (0..2 * params)
                        .map(|i| i == 0 || (fresh && i == params))
                        .collect();
                    match &mut incoming[r as usize] {
                        Some(old) => {
                            and_into(old, &passed);
                        }
                        slot @ None => *slot = Some(passed),
                    }
                }
                _ => {
                    if let Some(u) = unknown.get_mut(r as usize) {
                        *u = true;
                    }
                }
            }
        }
        let mut changed = Vec::new();
        for &x in nodes {
            let node = x;
            let x = x as usize;
            let passed = |i: usize| {
                !unknown[x]
                    && incoming[x]
                        .as_ref()
                        .is_none_or(|v| v.get(i).copied().unwrap_or(false))
            };
            let params = facts.entry[x].len();
            for i in 0..params {
                for (e, bit) in [
                    (&mut facts.entry[x][i], i),
                    (&mut facts.entry_fresh[x][i], params + i),
                ] {
                    if *e && !passed(bit) {
                        *e = false;
                        if changed.last() != Some(&node) {
                            changed.push(node);
                        }
                    }
                }
            }
        }
        changed
    }

    /// What the callers without a pass (not analysed, or without a body:
    /// `passes` is false) hand their callees: the same every round.
    fn fixed_incoming(
        &self,
        facts: &Facts,
        known: &Known<'_>,
        passes: impl Fn(u32) -> bool,
    ) -> Incoming {
        let n = self.graph.len();
        let mut fixed = Incoming::empty(n);
        for caller in 0..n as u32 {
            let analysed = known.analysed.get(caller as usize).copied();
            if analysed.unwrap_or(false) && passes(caller) {
                continue;
            }
            self.add_edges(&mut fixed, facts, known, caller, Passes::Unknown);
        }
        fixed
    }

    /// What every caller hands its callees, from scratch: the fixed part
    /// and every caller's latest pass (`outs`).
    fn gather(&self, facts: &Facts, known: &Known<'_>, outs: &Outs) -> Incoming {
        let mut current = self.fixed_incoming(facts, known, |c| outs.get(&c).is_some());
        for &caller in known.nodes {
            if let Some(out) = outs.get(&caller) {
                self.add_edges(&mut current, facts, known, caller, Passes::Out(out));
            }
        }
        current
    }

    /// Meets what `caller` passes now (`out`) into what its callees are
    /// handed (`gathered`), and into the entry facts of those callees
    /// that no root enters (a root's entry waits for the end of the
    /// round, where [`Analysis::close_entries`] also applies the
    /// harness's protocol). Passes only lose bits from round to round,
    /// so meeting each new pass into what was gathered gives what
    /// gathering every caller's latest pass gives. Callees whose entry
    /// facts changed are made dirty; did any change?
    fn hand_on(
        &self,
        gathered: &mut Incoming,
        facts: &mut Facts,
        known: &Known<'_>,
        caller: u32,
        out: &NodeOut,
        dirty: &mut [bool],
    ) -> bool {
        self.add_edges(gathered, facts, known, caller, Passes::Out(out));
        let mut changed = false;
        let mut callees: Vec<u32> = self.graph.callees[caller as usize]
            .iter()
            .map(|&(_, c)| c)
            .collect();
        callees.sort_unstable();
        callees.dedup();
        for callee in callees {
            let c = callee as usize;
            let analysed = known.analysed.get(c).copied().unwrap_or(false);
            if !analysed || known.is_root_entry.get(c).copied().unwrap_or(true) {
                continue;
            }
            let unknown = gathered.unknown[c];
            let incoming = gathered.incoming[c].as_deref();
            let passed =
                |i: usize| !unknown && incoming.is_none_or(|v| v.get(i).copied().unwrap_or(false));
            let params = facts.entry[c].len();
            let mut lost = false;
            for i in 0..params {
                for (e, bit) in [
                    (&mut facts.entry[c][i], i),
                    (&mut facts.entry_fresh[c][i], params + i),
                ] {
                    if *e && !passed(bit) {
                        *e = false;
                        lost = true;
                    }
                }
            }
            if lost {
                dirty[c] = true;
                changed = true;
            }
        }
        changed
    }

    /// Folds what `caller` passes along each of its call edges into `into`.
    fn add_edges(
        &self,
        into: &mut Incoming,
        facts: &Facts,
        known: &Known<'_>,
        caller: u32,
        passes: Passes<'_>,
    ) {
        for (k, &(site, callee)) in self.graph.callees[caller as usize].iter().enumerate() {
            self.add_edge(into, facts, known, (caller, k, site, callee), passes);
        }
    }

    /// Folds what `caller` passes along its `k`th call edge (at `site`,
    /// to `callee`) into `into`.
    fn add_edge(
        &self,
        into: &mut Incoming,
        facts: &Facts,
        known: &Known<'_>,
        (caller, k, site, callee): (u32, usize, StmtId, u32),
        passes: Passes<'_>,
    ) {
        let bodies = known.bodies;
        let out = match passes {
            Passes::Out(o) => Some(o),
            _ => None,
        };
        let by_name = known.by_name.get(caller as usize);
        {
            let passed = out.and_then(|o| {
                o.args
                    .binary_search_by_key(&site, |(s, _)| *s)
                    .ok()
                    .map(|i| o.args[i].1.as_slice())
            });
            let maps = bodies.get(&callee).is_some_and(|b| {
                passed
                    .as_ref()
                    .is_some_and(|p| p.len() == 2 * b.params.len())
                    && by_name.and_then(|b| b.get(k)).copied().unwrap_or(false)
            });
            match (passed, maps) {
                (Some(p), true) => {
                    into.program_called[callee as usize] = true;
                    let slot = &mut into.incoming[callee as usize];
                    match slot {
                        None => *slot = Some(p.to_vec()),
                        Some(old) => {
                            for (o, v) in old.iter_mut().zip(p) {
                                *o &= *v;
                            }
                        }
                    }
                }
                // Before the first pass every analysed caller passes
                // owned values (the optimistic start).
                (None, _) if matches!(passes, Passes::Optimistic) => {
                    into.program_called[callee as usize] = true;
                }
                // The deserializer passes the object it just made.
                (None, _) if facts.fresh_receiver.contains(&callee) => {
                    let params = bodies.get(&callee).map_or(0, |b| b.params.len());
                    // The receiver, owned and fresh.
                    let passed: Vec<bool> =
                        (0..2 * params).map(|i| i == 0 || i == params).collect();
                    let slot = &mut into.incoming[callee as usize];
                    match slot {
                        None => *slot = Some(passed),
                        Some(old) => {
                            and_into(old, &passed);
                        }
                    }
                }
                _ => into.unknown[callee as usize] = true,
            }
        }
    }

    /// The *build-only* methods (the program's protocol for them, issue
    /// 14 point 4): instance methods, constructors aside, that analysed
    /// application code calls and that every such call passes an owned
    /// receiver (an object its caller is still building, like h2's
    /// `CreateTrigger` setting up the `TriggerObject` it made), with no
    /// caller outside the analysed code and no thread root of the program
    /// entering them, in a class not annotated `@ThreadSafe`. The
    /// open-program harness is taken to call them the same way, on an
    /// object of its own call. Per method: whether every call also passes
    /// the receiver fresh.
    fn build_only_receivers(
        &self,
        known: &Known<'_>,
        incoming: &[Option<Vec<bool>>],
        unknown: &[bool],
        program_called: &[bool],
    ) -> FxHashMap<lockstep_program::MethodId, bool> {
        // Per method: (some program call, every one owned, every one
        // fresh, a caller outside the analysed code or a real root).
        let mut per: FxHashMap<lockstep_program::MethodId, (bool, bool, bool, bool)> =
            FxHashMap::default();
        // Only the methods of harness-only entries are asked about: the
        // other methods' nodes are skipped (a method's answer gathers its
        // own nodes only).
        let candidate = |x: u32| known.candidates.get(x as usize).copied().unwrap_or(false);
        for &r in known.root_entries {
            if known.harness_entries.binary_search(&r).is_err() && candidate(r) {
                let m = self.graph.nodes[r as usize].method;
                per.entry(m).or_insert((false, true, true, false)).3 = true;
            }
        }
        for (x, node) in self.graph.nodes.iter().enumerate() {
            let called = program_called.get(x).copied().unwrap_or(false);
            let outside = unknown.get(x).copied().unwrap_or(false);
            if (!called && !outside) || !candidate(x as u32) {
                continue;
            }
            let params = known.bodies.get(&(x as u32)).map_or(0, |b| b.params.len());
            let e = per.entry(node.method).or_insert((false, true, true, false));
            e.0 |= called;
            e.3 |= outside;
            if let Some(Some(p)) = incoming.get(x) {
                e.1 &= p.first().copied().unwrap_or(false);
                e.2 &= p.get(params).copied().unwrap_or(false);
            }
        }
        per.into_iter()
            .filter(|&(m, (called, owned, _, outside))| {
                let data = self.program.method(m);
                // A `@ThreadSafe` class promises safety to every caller,
                // whatever the program's own use.
                let promised = crate::annotations::class_policy(
                    &self.program.class(data.class).file.annotations,
                )
                .thread_safe;
                called
                    && owned
                    && !outside
                    && !promised
                    && !data.is_static()
                    && !data.is_constructor()
                    && !data.is_class_initializer()
            })
            .map(|(m, (_, _, fresh, _))| (m, fresh))
            .collect()
    }

    /// Per caller with a body, per call edge (in the graph's order): is
    /// it a call of the callee's own name ([`Self::calls_by_name`])?
    /// Computed once: every round of the fixpoint asks it of every edge.
    fn edges_by_name(&self, bodies: &Bodies) -> Vec<Vec<bool>> {
        (0..self.graph.len() as u32)
            .map(|caller| {
                if !bodies.contains_key(&caller) {
                    return Vec::new();
                }
                self.graph.callees[caller as usize]
                    .iter()
                    .map(|&(site, callee)| {
                        bodies.contains_key(&callee) && self.calls_by_name(caller, site, callee)
                    })
                    .collect()
            })
            .collect()
    }

    /// Is the edge `caller`→`callee` at `site` a call of the callee's own
    /// name (so arguments map to parameters)?
    fn calls_by_name(&self, caller: u32, site: StmtId, callee: u32) -> bool {
        let Some(body) = self.program.body(self.graph.nodes[caller as usize].method) else {
            return false;
        };
        let target = self
            .program
            .method(self.graph.nodes[callee as usize].method);
        match body.stmts.get(site.index()).map(|s| &s.kind) {
            Some(StmtKind::Invoke { call, .. }) => {
                call.method.name == target.name && call.method.descriptor == target.descriptor
            }
            _ => false,
        }
    }

    /// One pass of the must-analysis over a node's CFG, with the objects
    /// whose shared facts (`published`, `mixed`) it may have read: the
    /// points-to set of every variable it looked at (`None`: not looked at).
    fn analyse_node(
        &self,
        x: u32,
        body: &Body,
        facts: &Facts,
        record: bool,
        reach: &mut ReachCache,
        warm: Option<&ReachCache>,
    ) -> (NodeOut, Vec<Option<Vec<ObjectId>>>) {
        // `record`: also list the access statements whose base is owned.
        let mut w = NodeWalk {
            a: self,
            x,
            body,
            facts,
            in_ctor: self
                .program
                .method(self.graph.nodes[x as usize].method)
                .name
                .as_ref()
                == "<init>",
            pts: vec![None; body.vars.len()],
            out: NodeOut::start(body.params.len()),
            record: false,
            reach,
            warm,
            callees: &self.graph.callees[x as usize],
            site_args: Vec::new(),
            copies: None,
            holds: None,
            quiet: Vec::new(),
            published_here: vec![false; body.vars.len()],
            hits_here: Vec::new(),
        };
        let nb = body.blocks.len();
        if nb == 0 {
            return (w.out, w.pts);
        }
        let vars = body.vars.len();
        let mut start = fresh::top_state(vars);
        for (i, p) in body.params.iter().enumerate() {
            let owned = facts.entry[x as usize].get(i).copied().unwrap_or(false);
            if let Some(s) = start.get_mut(p.index()) {
                *s = owned;
            }
            let made_by_deserializer = i == 0 && facts.fresh_receiver.contains(&x);
            let passed_fresh = facts.entry_fresh[x as usize]
                .get(i)
                .copied()
                .unwrap_or(false);
            fresh::set_fresh(
                &mut start,
                vars,
                *p,
                owned && (made_by_deserializer || passed_fresh),
            );
        }
        // A must-analysis (states only lose ownership), so it ends;
        // past 64 visits per block, give up on this node (pathological).
        let solved = block_solver::solve(
            body,
            &mut w,
            start,
            block_solver::HandlerSees::AfterEach,
            nb.saturating_mul(64),
        );
        let Some(at_entry) = solved else {
            w.out = NodeOut::given_up(body.params.len());
            return (w.out, w.pts);
        };
        if record {
            w.note_receiver(&at_entry);
            // Replay every block once with its final entry state: a
            // statement's base counts as owned only in that state.
            w.record = true;
            for (b, entry) in at_entry.iter().enumerate() {
                let Some(mut state) = entry.clone() else {
                    continue;
                };
                let block = &body.blocks[b];
                for s in block.first.0..block.end.0 {
                    w.step_stmt(StmtId(s), &mut state);
                }
            }
        }
        w.out.args = w.site_args;
        (w.out, w.pts)
    }
}

/// Per node of the context call graph: the body of an analysed node
/// (indexed by node: the fixpoint looks bodies up per call edge, every
/// round).
struct Bodies(Vec<Option<Arc<Body>>>);

impl Bodies {
    fn get(&self, x: &u32) -> Option<&Arc<Body>> {
        self.0.get(*x as usize)?.as_ref()
    }

    fn contains_key(&self, x: &u32) -> bool {
        self.get(x).is_some()
    }
}

/// What callers hand each node, gathered over call edges: per node, the
/// intersection of the argument bits passed (owned, then fresh; `None`:
/// no caller with known arguments), whether a caller of unknown
/// arguments reaches it, and whether an analysed caller calls it.
#[derive(Clone, PartialEq, Debug)]
struct Incoming {
    incoming: Vec<Option<Vec<bool>>>,
    unknown: Vec<bool>,
    program_called: Vec<bool>,
}

impl Incoming {
    fn empty(n: usize) -> Incoming {
        Incoming {
            incoming: vec![None; n],
            unknown: vec![false; n],
            program_called: vec![false; n],
        }
    }
}

/// What a caller passes along its edges: what its pass found, owned
/// values (an analysed caller before the first pass), or nothing known.
#[derive(Clone, Copy)]
enum Passes<'o> {
    Out(&'o NodeOut),
    Optimistic,
    Unknown,
}

/// Per node: its latest pass (indexed by node, like [`Bodies`]).
struct Outs(Vec<Option<NodeOut>>);

impl Outs {
    fn get(&self, x: &u32) -> Option<&NodeOut> {
        self.0.get(*x as usize)?.as_ref()
    }
}

/// What the closing of entry facts reads that never changes: the
/// analysed nodes, their bodies, the roots' entries and, per call edge,
/// whether it calls the callee by its own name.
struct Known<'k> {
    nodes: &'k [u32],
    bodies: &'k Bodies,
    root_entries: &'k [u32],
    /// Sorted: the entries of harness roots that no other root enters.
    harness_entries: &'k [u32],
    /// Per node: one of `nodes`.
    analysed: &'k [bool],
    /// Per node: the entry of a root (`root_entries`).
    is_root_entry: &'k [bool],
    /// Per node: its method is that of a harness-only entry (the
    /// methods [`Analysis::build_only_receivers`] is asked about).
    candidates: &'k [bool],
    by_name: &'k [Vec<bool>],
}

/// Which nodes read which shared facts, so that a change re-examines only
/// them: the nodes that looked at an object (its `published` flag, its
/// `mixed` slots), and the callers of a node (its `publishes` and
/// `returns_owned`).
struct Dependents {
    by_object: FxHashMap<ObjectId, Vec<u32>>,
    /// Per node, the objects it is registered under.
    registered: Vec<FxHashSet<ObjectId>>,
    /// Per node, the variables whose points-to sets are registered (a
    /// variable's set does not change between passes).
    registered_vars: Vec<Vec<bool>>,
    callers: Vec<Vec<u32>>,
}

impl Dependents {
    fn new(callees: &[Vec<(StmtId, u32)>]) -> Dependents {
        let mut callers: Vec<Vec<u32>> = vec![Vec::new(); callees.len()];
        for (caller, list) in callees.iter().enumerate() {
            for &(_, callee) in list {
                if let Some(c) = callers.get_mut(callee as usize) {
                    c.push(caller as u32);
                }
            }
        }
        for c in &mut callers {
            c.dedup();
        }
        Dependents {
            by_object: FxHashMap::default(),
            registered: vec![FxHashSet::default(); callees.len()],
            registered_vars: vec![Vec::new(); callees.len()],
            callers,
        }
    }

    /// Node `x` read the facts of the objects of these points-to sets
    /// (per variable; `None`: not read).
    fn note_reads(&mut self, x: u32, read: &[Option<Vec<ObjectId>>]) {
        let (Some(seen), Some(vars)) = (
            self.registered.get_mut(x as usize),
            self.registered_vars.get_mut(x as usize),
        ) else {
            return;
        };
        if vars.len() < read.len() {
            vars.resize(read.len(), false);
        }
        for (v, set) in read.iter().enumerate() {
            let Some(set) = set else { continue };
            if std::mem::replace(&mut vars[v], true) {
                continue;
            }
            for &o in set {
                if seen.insert(o) {
                    self.by_object.entry(o).or_default().push(x);
                }
            }
        }
    }

    /// Marks dirty the nodes that read what `changes` (made by node `x`) changed.
    fn mark(&self, changes: &Changes, x: u32, dirty: &mut [bool]) {
        let mut set = |y: u32| {
            if let Some(d) = dirty.get_mut(y as usize) {
                *d = true;
            }
        };
        for o in &changes.objects {
            for &y in self.by_object.get(o).map_or(&[][..], Vec::as_slice) {
                set(y);
            }
        }
        if changes.summary {
            for &y in self.callers.get(x as usize).map_or(&[][..], Vec::as_slice) {
                set(y);
            }
        }
    }
}

/// What one merge changed: the objects whose `published` or `mixed`
/// facts changed, and whether the node's own summary (`publishes`,
/// `returns_owned`, `keeps_fresh`, `returns_fresh`) did.
#[derive(Default)]
struct Changes {
    objects: Vec<ObjectId>,
    summary: bool,
}

impl Changes {
    fn any(&self) -> bool {
        self.summary || !self.objects.is_empty()
    }
}

/// `into &= from`; did `into` change? (Without branches, so that the
/// compiler can do many bits at once: the solver meets a node's states
/// at every edge.)
/// The entries of harness roots that no other root enters, sorted.
fn harness_only_entries(roots: &[Root]) -> Vec<u32> {
    let of = |harness: bool| -> FxHashSet<u32> {
        roots
            .iter()
            .filter(|r| matches!(r.kind, RootKind::Harness(_)) == harness)
            .flat_map(|r| r.entries.iter().copied())
            .collect()
    };
    let real = of(false);
    let mut v: Vec<u32> = of(true).into_iter().filter(|x| !real.contains(x)).collect();
    v.sort_unstable();
    v
}

fn and_into(into: &mut [bool], from: &[bool]) -> bool {
    let mut changed = false;
    for (a, &b) in into.iter_mut().zip(from) {
        changed |= *a & !b;
        *a &= b;
    }
    changed
}

/// Do two sets of objects, each in increasing order (as points-to sets
/// come), share one? A binary search per object of a much smaller set
/// (a fresh variable's few objects against everything a publication
/// reached), else a merge.
fn meets(a: &[ObjectId], b: &[ObjectId]) -> bool {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.len().saturating_mul(16) < large.len() {
        return small.iter().any(|o| large.binary_search(o).is_ok());
    }
    crate::util::sorted_slices_meet(a, b)
}

/// Folds a node's pass into the shared facts; what changed?
fn merge(facts: &mut Facts, x: u32, out: &NodeOut) -> Changes {
    let mut changes = Changes::default();
    for &o in &out.published {
        if let Some(p) = facts.published.get_mut(o.0 as usize) {
            if !*p {
                changes.objects.push(o);
            }
            *p = true;
        }
    }
    for m in &out.mixed {
        if facts.mixed.insert(m.clone()) {
            changes.objects.push(m.0);
        }
    }
    if let Some(p) = facts.publishes.get_mut(x as usize) {
        for (a, &b) in p.iter_mut().zip(&out.publishes) {
            changes.summary |= b && !*a;
            *a |= b;
        }
    }
    if let Some(r) = facts.returns_owned.get_mut(x as usize) {
        changes.summary |= *r && !out.returns_owned;
        *r &= out.returns_owned;
    }
    if let Some(k) = facts.keeps_fresh.get_mut(x as usize) {
        let lost = out.unfreshes.iter().zip(&out.tethers).map(|(u, t)| u | t);
        for (a, b) in k.iter_mut().zip(lost) {
            changes.summary |= b && *a;
            *a &= !b;
        }
    }
    if let Some(k) = facts.keeps_tethered.get_mut(x as usize) {
        for (a, &b) in k.iter_mut().zip(&out.unfreshes) {
            changes.summary |= b && *a;
            *a &= !b;
        }
    }
    if let Some(r) = facts.returns_fresh.get_mut(x as usize) {
        changes.summary |= *r && !out.returns_fresh;
        *r &= out.returns_fresh;
    }
    changes
}

/// What published values reach, and the container model's answers,
/// shared by every walk of one ownership run (they depend on points-to
/// facts and the program only, which do not change).
#[derive(Default)]
struct ReachCache {
    /// Per object: the objects its followed fields hold.
    successors: FxHashMap<ObjectId, Box<[ObjectId]>>,
    /// Per set of roots: what they reach (`None`: past [`MAX_REACH`]).
    reached: FxHashMap<Vec<ObjectId>, Option<Arc<ObjectBits>>>,
    /// Per called method (class, name): the container model's access.
    container_access: FxHashMap<(Arc<str>, Arc<str>), Option<ContainerAccess>>,
    /// Per (node, variable) published there: what the publication reaches.
    publish_hits: FxHashMap<(u32, u32), Arc<PublishHits>>,
    /// Per (node, set of published objects): the node's variables hit.
    roots_hits: FxHashMap<(u32, Arc<[ObjectId]>), RootsHits>,
}

/// What publishing one variable of one node does, whatever the state.
struct PublishHits {
    /// The variable's objects (published themselves).
    roots: Arc<[ObjectId]>,
    reached: Reached,
}

/// What a publication reaches, in the variables of its node.
enum Reached {
    /// The variables and parameters that may point into what the roots
    /// reach.
    Within(HitVars),
    /// Past [`MAX_REACH`]: per variable, may it point to one of the roots?
    Past { meets_roots: Arc<[bool]> },
}

/// What publishing a set of objects hits in the variables of one node
/// ([`NodeWalk::roots_hits`]).
#[derive(Clone)]
enum RootsHits {
    /// The variables (by index, ascending) that may point into what the
    /// objects reach.
    Within(Arc<[u32]>),
    /// Past [`MAX_REACH`]: per variable, may it point to one of them?
    Past(Arc<[bool]>),
}

/// The variables (by index) and parameters (by position) of a node that
/// may point into what a publication reaches.
struct HitVars {
    vars: Arc<[u32]>,
    params: Vec<u32>,
}

/// A set of objects as bits by object id: a publication tests every
/// owned variable's points-to set against what it reached.
struct ObjectBits(Vec<u64>);

impl ObjectBits {
    fn of(set: &FxHashSet<ObjectId>) -> ObjectBits {
        let top = set.iter().map(|o| o.0 as usize).max().unwrap_or(0);
        let mut words = vec![0u64; top / 64 + 1];
        for o in set {
            words[o.0 as usize / 64] |= 1 << (o.0 % 64);
        }
        ObjectBits(words)
    }

    fn contains(&self, o: &ObjectId) -> bool {
        self.0
            .get(o.0 as usize / 64)
            .is_some_and(|w| w & (1 << (o.0 % 64)) != 0)
    }
}

/// The walk over one node's statements.
struct NodeWalk<'w, 'a> {
    a: &'w Analysis<'a>,
    x: u32,
    body: &'w Body,
    facts: &'w Facts,
    /// The node is a constructor: its `this` may be held by the parts it
    /// makes and keeps ([`crate::fresh`], "held by its own parts").
    in_ctor: bool,
    /// Points-to sets of variables in this node, on demand.
    pts: Vec<Option<Vec<ObjectId>>>,
    out: NodeOut,
    record: bool,
    reach: &'w mut ReachCache,
    /// A cache filled before this walk, read only (`reach` takes what
    /// it lacks).
    warm: Option<&'w ReachCache>,
    /// The node's call edges, sorted by site (then callee).
    callees: &'w [(StmtId, u32)],
    /// Per call site, sorted by site: the intersection over its visits
    /// (a node has tens of sites: a sorted list, not a hash map).
    site_args: Vec<(StmtId, Vec<bool>)>,
    /// Variables that are copies of one another ([`fresh::copy_classes`]).
    copies: Option<fresh::CopyClasses>,
    /// Per variable: the variables whose objects it may hold in a field
    /// while both are fresh ([`NodeWalk::held_members`]).
    holds: Option<Vec<Vec<VarId>>>,
    /// Points-to sets of every variable, filled on the first publication
    /// this walk has not met before ([`NodeWalk::pts_quiet`]).
    quiet: Vec<Box<[ObjectId]>>,
    /// Variables this walk has published (their objects are in
    /// `out.published` already).
    published_here: Vec<bool>,
    /// Per variable: what publishing it hits, once looked up in this
    /// walk (a walk visits blocks many times; the run's cache is large).
    hits_here: Vec<Option<Arc<PublishHits>>>,
}

/// JDK calls that keep none of their arguments (nor the receiver).
fn keeps_nothing(class: &str, name: &str) -> bool {
    matches!(
        name,
        "hashCode"
            | "identityHashCode"
            | "equals"
            | "toString"
            | "getClass"
            | "compareTo"
            | "length"
            | "size"
            | "isEmpty"
            | "contains"
            | "containsKey"
            | "indexOf"
            | "hasNext"
            | "hasPrevious"
            | "hasMoreElements"
            | "nextIndex"
            | "previousIndex"
    ) || class == "java/util/Objects"
        // Strings are immutable and keep no argument (`String.join`
        // reads a parse's list of expected tokens and keeps nothing).
        || class == "java/lang/String"
        || class == "java/lang/StringBuilder"
        || class == "java/lang/StringBuffer"
}

/// Does the JDK constructor `call` names keep its operand `i` (receiver
/// first) only in the object it builds: is every use of that parameter in
/// its body a store into a field of its own `this`, or a test against
/// `null`? (`PropertyChangeSupport(source)` and `EventObject(source)`
/// keep their source so.) Such a part holds what it is given the way an
/// application part that stores it does ([`crate::fresh`], "held by its
/// own parts").
fn library_ctor_keeps_in_receiver(program: &Program, call: &Call, i: usize) -> bool {
    if call.method.name.as_ref() != "<init>" || i == 0 {
        return false;
    }
    let Some(class) = program.class_by_name(&call.method.class) else {
        return false;
    };
    let Some(m) = program
        .class(class)
        .declared_method("<init>", &call.method.descriptor)
    else {
        return false;
    };
    let Some(body) = program.body(m) else {
        return false;
    };
    let (Some(&this), Some(&param)) = (body.params.first(), body.params.get(i)) else {
        return false;
    };
    // The part itself must stay where it is made: `this` only reads and
    // writes its own fields and calls `Object`'s constructor.
    let part_stays = body.stmts.iter().all(|stmt| {
        !uses(&stmt.kind, this)
            || match &stmt.kind {
                StmtKind::FieldStore {
                    object: Operand::Var(o),
                    value,
                    ..
                } => *o == this && value.var() != Some(this),
                StmtKind::Assign {
                    value: Rvalue::FieldLoad { .. },
                    ..
                } => true,
                StmtKind::Invoke { call, .. } => {
                    call.method.name.as_ref() == "<init>"
                        && call.method.class.as_ref() == "java/lang/Object"
                }
                _ => false,
            }
    });
    part_stays
        && body.stmts.iter().all(|stmt| match &stmt.kind {
            StmtKind::FieldStore {
                object: Operand::Var(o),
                value,
                ..
            } => value.var() != Some(param) || *o == this,
            StmtKind::If { lhs, rhs, .. } => {
                let tests = |a: &Operand, b: &Operand| {
                    a.var() == Some(param) && matches!(b, Operand::Const(ConstValue::Null))
                };
                tests(lhs, rhs) || tests(rhs, lhs) || !uses(&stmt.kind, param)
            }
            kind => !uses(kind, param),
        })
}

/// Does the statement read `v`?
fn uses(kind: &StmtKind, v: VarId) -> bool {
    let mut found = false;
    kind.for_each_use(|u| found |= u == v);
    found
}

/// `x.start()` of a thread: the JDK runs `x.run()` in another thread.
fn starts_thread(call: &Call) -> bool {
    call.method.name.as_ref() == "start" && call.method.descriptor.as_ref() == "()V"
}

/// JDK container and iterator calls that return an element of the receiver.
fn reads_contents(name: &str) -> bool {
    matches!(
        name,
        "get"
            | "getFirst"
            | "getLast"
            | "peek"
            | "peekFirst"
            | "peekLast"
            | "poll"
            | "pollFirst"
            | "pollLast"
            | "pop"
            | "element"
            | "first"
            | "last"
            | "iterator"
            | "listIterator"
            | "next"
            | "previous"
            | "values"
            | "keySet"
            | "entrySet"
            | "getKey"
            | "getValue"
            | "remove"
            | "removeFirst"
            | "removeLast"
    )
}

impl Forward for NodeWalk<'_, '_> {
    type State = Vec<bool>;

    fn meet_into(&self, into: &mut Vec<bool>, from: &Vec<bool>) -> bool {
        and_into(into, from)
    }

    fn step(&mut self, s: StmtId, state: &mut Vec<bool>) {
        self.step_stmt(s, state);
    }
}

impl NodeWalk<'_, '_> {
    fn pts_of(&mut self, v: VarId) -> &[ObjectId] {
        let i = v.index();
        if self.pts.get(i).is_some_and(Option::is_none) {
            let mc = self.a.graph.nodes[self.x as usize];
            let set: Vec<ObjectId> = self.a.pt.var_in(mc.method, mc.context, v).iter().collect();
            self.pts[i] = Some(set);
        }
        self.pts.get(i).and_then(|p| p.as_deref()).unwrap_or(&[])
    }

    fn owned(&self, state: &[bool], v: VarId) -> bool {
        state.get(v.index()).copied().unwrap_or(false)
    }

    fn none_published(&mut self, v: VarId) -> bool {
        let published = &self.facts.published;
        let set = self.pts_of(v).to_vec();
        set.iter()
            .all(|o| !published.get(o.0 as usize).copied().unwrap_or(true))
    }

    /// Is a value read from `slot` of the owned `base` owned (into `dst`)?
    fn read_owned(&mut self, state: &[bool], base: VarId, slot: Slot, dst: VarId) -> bool {
        if !self.owned(state, base) {
            return false;
        }
        let holders = self.pts_of(base).to_vec();
        let mixed = &self.facts.mixed;
        holders.iter().all(|&o| !mixed.contains(&(o, slot.clone()))) && self.none_published(dst)
    }

    /// A store of `value` into `slot` of `base`.
    fn store(&mut self, state: &mut [bool], base: VarId, slot: Slot, value: &Operand) {
        let Some(v) = value.var() else { return };
        if matches!(slot, Slot::Field(_)) && self.ctor_this(base) && self.fresh_owned(state, base) {
            // Held by a fresh object: `v`'s object is reachable only
            // through `v` and through `base`'s, which no other path
            // reaches yet; `v` stays fresh until `base` stops being fresh
            // (`unfresh` follows the field from holder to member). A
            // parameter so stored is kept fresh for a caller whose
            // receiver (the object under construction) stays fresh.
            for i in self.params_copied_by(v) {
                self.out.tethers[i] = true;
            }
        } else {
            self.unfresh(state, v);
        }
        if !self.owned(state, base) {
            self.publish(state, v);
        } else if !self.owned(state, v) {
            let holders = self.pts_of(base).to_vec();
            self.out
                .mixed
                .extend(holders.into_iter().map(|o| (o, slot.clone())));
        }
    }

    fn set(&self, state: &mut [bool], v: VarId, owned: bool) {
        if let Some(s) = state.get_mut(v.index()) {
            *s = owned;
        }
        fresh::set_fresh(state, self.body.vars.len(), v, false);
    }

    fn fresh(&self, state: &[bool], v: VarId) -> bool {
        fresh::is_fresh(state, self.body.vars.len(), v)
    }

    /// Is `v` owned and fresh in `state`?
    fn fresh_owned(&self, state: &[bool], v: VarId) -> bool {
        self.owned(state, v) && self.fresh(state, v)
    }

    /// Is `v` the `this` of a constructor (or a copy of it)? Only a
    /// constructor's object is taken to be held by its own parts: the
    /// parts it stores into its fields, and the parts it is handed to
    /// (`new Part(this)`).
    fn ctor_this(&mut self, v: VarId) -> bool {
        self.in_ctor && !self.body.is_static && self.params_copied_by(v).first() == Some(&0)
    }

    /// `v` may now be inside another object: neither it nor any copy of
    /// it is fresh any more; and when it was fresh, neither are the
    /// objects it held in its fields while fresh (they are now reachable
    /// through it), nor what those held.
    fn unfresh(&mut self, state: &mut [bool], v: VarId) {
        let vars = self.body.vars.len();
        let mut work = vec![v];
        let mut seen: FxHashSet<VarId> = FxHashSet::default();
        while let Some(u) = work.pop() {
            if !seen.insert(u) {
                continue;
            }
            let was_fresh = self.fresh_owned(state, u);
            let copies = self
                .copies
                .get_or_insert_with(|| fresh::copy_classes(self.body));
            for &c in copies.of(u) {
                fresh::set_fresh(state, vars, c, false);
            }
            fresh::set_fresh(state, vars, u, false);
            for i in self.params_copied_by(u) {
                self.out.unfreshes[i] = true;
            }
            if was_fresh {
                work.extend(self.held_members(u));
            }
        }
    }

    /// The variables whose objects `u` (or a copy of it) may hold in a
    /// field: stored by `u.f = m`, or handed to a call on `u` whose
    /// callee stores that parameter into its receiver (the callee keeps
    /// it only tethered: [`Facts::keeps_tethered`]). Computed once per
    /// walk from the body and the summaries the walk reads, which do not
    /// change during it.
    fn held_members(&mut self, u: VarId) -> Vec<VarId> {
        if self.holds.is_none() {
            let holds = self.member_edges();
            self.holds = Some(holds);
        }
        self.holds
            .as_ref()
            .and_then(|h| h.get(u.index()))
            .cloned()
            .unwrap_or_default()
    }

    /// A reference read from a field of the fresh `base` into `dst` may
    /// be one of the members `base` holds, under a name the walk does not
    /// tie to it: such members (by points-to) are fresh no more.
    fn load_from_holder(&mut self, state: &mut [bool], base: VarId, dst: VarId) {
        if !self.fresh_owned(state, base) {
            return;
        }
        let members = self.held_members(base);
        if members.is_empty() {
            return;
        }
        let read: FxHashSet<ObjectId> = self.pts_of(dst).iter().copied().collect();
        for m in members {
            if self.pts_of(m).iter().any(|o| read.contains(o)) {
                self.unfresh(state, m);
            }
        }
    }

    /// Per variable, the members it may hold ([`NodeWalk::held_members`]).
    fn member_edges(&mut self) -> Vec<Vec<VarId>> {
        let body = self.body;
        let mut edges: Vec<(VarId, VarId)> = Vec::new();
        for (i, stmt) in body.stmts.iter().enumerate() {
            match &stmt.kind {
                StmtKind::FieldStore {
                    object: Operand::Var(b),
                    value: Operand::Var(m),
                    ..
                } if self.ctor_this(*b) => edges.push((*b, *m)),
                StmtKind::Invoke { call, .. } if call.method.name.as_ref() == "<init>" => {
                    let Some(Operand::Var(r)) = call.receiver else {
                        continue;
                    };
                    let site = StmtId(i as u32);
                    for (j, arg) in call.args.iter().enumerate() {
                        if let Operand::Var(m) = arg {
                            if self.ctor_this(*m) && self.tethered_at(call, site, j + 1) {
                                edges.push((r, *m));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        let copies = self.copies.get_or_insert_with(|| fresh::copy_classes(body));
        let mut holds: Vec<Vec<VarId>> = vec![Vec::new(); body.vars.len()];
        for (b, m) in edges {
            for &c in copies.of(b) {
                if let Some(h) = holds.get_mut(c.index()) {
                    h.push(m);
                }
            }
        }
        holds
    }

    /// Does some application callee of `call` at `site` store operand `i`
    /// (receiver first) into its receiver rather than keep it fresh?
    fn tethered_at(&self, call: &Call, site: StmtId, i: usize) -> bool {
        let facts = self.facts;
        let holds = |k: &[Vec<bool>], c: u32| {
            k.get(c as usize)
                .and_then(|k| k.get(i))
                .copied()
                .unwrap_or(false)
        };
        let edges = edges_at(self.callees, site);
        let library = edges.is_empty() || edges.iter().any(|&(_, c)| !self.a.is_app_node(c));
        if library && library_ctor_keeps_in_receiver(self.a.program, call, i) {
            return true;
        }
        edges.iter().any(|&(_, c)| {
            self.a.is_app_node(c)
                && self.is_called_by_name(call, c)
                && !holds(&facts.keeps_fresh, c)
                && holds(&facts.keeps_tethered, c)
        })
    }

    /// The parameters `v` is a copy of (or is).
    fn params_copied_by(&mut self, v: VarId) -> Vec<usize> {
        let body = self.body;
        let copies = self.copies.get_or_insert_with(|| fresh::copy_classes(body));
        let class = copies.of(v);
        body.params
            .iter()
            .enumerate()
            .filter(|&(_, &p)| p == v || class.contains(&p))
            .map(|(i, _)| i)
            .collect()
    }

    /// `return v`: the summary's `returns_owned` and `returns_fresh`; a
    /// returned parameter is not kept fresh (the caller gets a second
    /// reference to it).
    fn ret(&mut self, state: &mut [bool], v: VarId) {
        if !self.owned(state, v) {
            self.out.returns_owned = false;
        }
        let params = self.params_copied_by(v);
        let fresh_made_here = self.owned(state, v) && self.fresh(state, v) && params.is_empty();
        if !fresh_made_here {
            self.out.returns_fresh = false;
        }
        for i in params {
            self.out.unfreshes[i] = true;
        }
    }

    /// `v` is handed to code that may keep it where other threads see it:
    /// it and everything it reaches are published.
    fn publish(&mut self, state: &mut [bool], v: VarId) {
        let hits = self.publish_hits(v);
        if let Some(done) = self.published_here.get_mut(v.index()) {
            if !std::mem::replace(done, true) {
                self.out.published.extend(hits.roots.iter().copied());
            }
        }
        self.set(state, v, false);
        let hit = match &hits.reached {
            Reached::Within(hit) => hit,
            Reached::Past { meets_roots } => {
                self.publish_everything_but_fresh(state, meets_roots);
                return;
            }
        };
        // Only the owned bits: the fresh bits after them mean nothing
        // once their variable is not owned.
        for &u in hit.vars.iter() {
            if let Some(owned) = state.get_mut(u as usize) {
                *owned = false;
            }
        }
        for &i in &hit.params {
            if let Some(p) = self.out.publishes.get_mut(i as usize) {
                *p = true;
            }
        }
    }

    /// A cached answer: from the warm cache, else from this walk's own.
    fn cached<T>(&self, get: impl Fn(&ReachCache) -> Option<T>) -> Option<T> {
        self.warm.and_then(&get).or_else(|| get(self.reach))
    }

    /// What publishing `v` in this node reaches, computed once per node
    /// and variable for the whole run: a node is walked many times (each
    /// visit of a block, each round), and `v`'s points-to set, what it
    /// reaches and the points-to sets of the node's variables never change.
    fn publish_hits(&mut self, v: VarId) -> Arc<PublishHits> {
        if let Some(Some(known)) = self.hits_here.get(v.index()) {
            return known.clone();
        }
        let hits = self.publish_hits_cached(v);
        if self.hits_here.len() < self.body.vars.len() {
            self.hits_here.resize(self.body.vars.len(), None);
        }
        if let Some(slot) = self.hits_here.get_mut(v.index()) {
            *slot = Some(hits.clone());
        }
        hits
    }

    /// [`Self::publish_hits`] from the run's caches, or computed.
    fn publish_hits_cached(&mut self, v: VarId) -> Arc<PublishHits> {
        let key = (self.x, v.0);
        if let Some(known) = self.cached(|c| c.publish_hits.get(&key).cloned()) {
            return known;
        }
        let roots: Arc<[ObjectId]> = self.pts_quiet_of(v).into();
        let reached = match self.roots_hits(&roots) {
            RootsHits::Within(vars) => {
                // A parameter is a variable: it is hit when its variable
                // is (`vars` is sorted), or when it is `v` itself.
                let params = (0..self.body.params.len() as u32)
                    .filter(|&i| {
                        let p = self.body.params[i as usize];
                        p == v || vars.binary_search(&p.0).is_ok()
                    })
                    .collect();
                Reached::Within(HitVars { vars, params })
            }
            RootsHits::Past(meets_roots) => Reached::Past { meets_roots },
        };
        let hits = Arc::new(PublishHits { roots, reached });
        self.reach.publish_hits.insert(key, hits.clone());
        hits
    }

    /// The points-to set of `v` without noting it as read (as
    /// [`Self::pts_quiet`] has it, without filling every variable's).
    fn pts_quiet_of(&self, v: VarId) -> Vec<ObjectId> {
        if let Some(p) = self.quiet.get(v.index()) {
            return p.to_vec();
        }
        if let Some(Some(known)) = self.pts.get(v.index()) {
            return known.clone();
        }
        if v.index() >= self.body.vars.len() {
            return Vec::new();
        }
        let mc = self.a.graph.nodes[self.x as usize];
        self.a.pt.var_in(mc.method, mc.context, v).iter().collect()
    }

    /// The variables of this node that publishing the objects `roots`
    /// hits, computed once per node and set of roots for the run: the
    /// variables of a node that publish equal sets (copies of one
    /// another, values of one allocation) share one answer, and each
    /// answer tests the points-to set of every variable of the node.
    fn roots_hits(&mut self, roots: &Arc<[ObjectId]>) -> RootsHits {
        let key = (self.x, roots.clone());
        if let Some(known) = self.cached(|c| c.roots_hits.get(&key).cloned()) {
            return known;
        }
        self.pts_quiet();
        let quiet = std::mem::take(&mut self.quiet);
        let pts = |u: u32| quiet.get(u as usize).map_or(&[][..], |p| &p[..]);
        let hits = match self.reach(roots) {
            Some(reach) => {
                let meets_reach = |set: &[ObjectId]| set.iter().any(|o| reach.contains(o));
                RootsHits::Within(
                    (0..quiet.len() as u32)
                        .filter(|&u| meets_reach(pts(u)))
                        .collect(),
                )
            }
            None => RootsHits::Past(
                (0..quiet.len() as u32)
                    .map(|u| meets(pts(u), roots))
                    .collect(),
            ),
        };
        self.quiet = quiet;
        self.reach.roots_hits.insert(key, hits.clone());
        hits
    }

    /// Fills the points-to set of every variable (once per walk) without
    /// noting them as read: publishing reads no shared fact of the
    /// objects it tests (only the points-to facts, which do not change),
    /// so it makes the node depend on none of them.
    fn pts_quiet(&mut self) {
        if !self.quiet.is_empty() {
            return;
        }
        let mc = self.a.graph.nodes[self.x as usize];
        self.quiet = (0..self.body.vars.len() as u32)
            .map(|u| match self.pts.get(u as usize) {
                Some(Some(known)) => known.as_slice().into(),
                _ => self
                    .a
                    .pt
                    .var_in(mc.method, mc.context, VarId(u))
                    .iter()
                    .collect(),
            })
            .collect();
    }

    /// Publishing past [`MAX_REACH`]: every variable loses ownership but
    /// the fresh ones that cannot hold a published object (a fresh object
    /// sits in no other object, so only its copies reach it: they may
    /// point where the published value does), and every parameter counts
    /// as published (`meets_roots`: per variable, may it point to one of
    /// the published roots?).
    fn publish_everything_but_fresh(&mut self, state: &mut [bool], meets_roots: &[bool]) {
        let vars = self.body.vars.len();
        let mut keep: Vec<bool> = (0..vars)
            .map(|u| {
                let meets = meets_roots.get(u).copied().unwrap_or(true);
                fresh::is_fresh(state, vars, VarId(u as u32)) && !meets
            })
            .collect();
        // A fresh object held by a holder the published value may reach
        // is reached through the holder: not kept either.
        let mut work: Vec<usize> = (0..vars)
            .filter(|&u| meets_roots.get(u).copied().unwrap_or(true))
            .collect();
        while let Some(h) = work.pop() {
            for m in self.held_members(VarId(h as u32)) {
                if let Some(k) = keep.get_mut(m.index()) {
                    if std::mem::replace(k, false) {
                        work.push(m.index());
                    }
                }
            }
        }
        for (u, &k) in keep.iter().enumerate() {
            if !k {
                self.set(state, VarId(u as u32), false);
            }
        }
        self.out.publishes.iter_mut().for_each(|p| *p = true);
    }

    /// The objects reachable from `roots` through the fields escape
    /// follows; `None` past [`MAX_REACH`] (computed once per set of roots).
    fn reach(&mut self, roots: &[ObjectId]) -> Option<Arc<ObjectBits>> {
        if let Some(known) = self.cached(|c| c.reached.get(roots).cloned()) {
            return known;
        }
        let found = self
            .reach_from(roots)
            .map(|set| Arc::new(ObjectBits::of(&set)));
        self.reach.reached.insert(roots.to_vec(), found.clone());
        found
    }

    /// [`Self::reach`], computed.
    fn reach_from(&mut self, roots: &[ObjectId]) -> Option<FxHashSet<ObjectId>> {
        let mut seen: FxHashSet<ObjectId> = roots.iter().copied().collect();
        let mut stack: Vec<ObjectId> = roots.to_vec();
        while let Some(o) = stack.pop() {
            let a = self.a;
            let next = match self.warm.and_then(|w| w.successors.get(&o)) {
                Some(known) => known,
                None => self
                    .reach
                    .successors
                    .entry(o)
                    .or_insert_with(|| a.followed_objects(o)),
            };
            for &y in next.iter() {
                if seen.insert(y) {
                    if seen.len() > MAX_REACH {
                        return None;
                    }
                    stack.push(y);
                }
            }
        }
        Some(seen)
    }

    /// Records the base of an access statement when it is owned.
    fn note_base(&mut self, s: StmtId, state: &[bool], base: Option<VarId>) {
        if let Some(b) = base {
            if self.record
                && self.owned(state, b)
                && (self.fresh(state, b) || self.none_published(b))
            {
                self.out.owned_bases.push(s);
            }
        }
    }

    /// Records whether `this` is owned at the entry of an instance method
    /// (as accesses count it: owned, and fresh or of no published object).
    fn note_receiver(&mut self, at_entry: &[Option<Vec<bool>>]) {
        let (false, Some(&this), Some(Some(state))) = (
            self.body.is_static,
            self.body.params.first(),
            at_entry.first(),
        ) else {
            return;
        };
        self.out.owned_receiver =
            self.owned(state, this) && (self.fresh(state, this) || self.none_published(this));
    }

    fn step_stmt(&mut self, s: StmtId, state: &mut [bool]) {
        let Some(stmt) = self.body.stmts.get(s.index()) else {
            return;
        };
        match &stmt.kind {
            StmtKind::Assign { dst, value } => self.assign(s, state, *dst, value),
            StmtKind::FieldStore {
                object,
                field,
                value,
            } => {
                self.note_base(s, state, object.var());
                if let Some(b) = object.var() {
                    self.store(state, b, Slot::Field(field.name.clone()), value);
                }
            }
            StmtKind::ArrayStore { array, value, .. } => {
                self.note_base(s, state, array.var());
                if let Some(b) = array.var() {
                    self.store(state, b, Slot::Element, value);
                }
            }
            StmtKind::StaticStore { value, .. } | StmtKind::Throw(value) => {
                if let Some(v) = value.var() {
                    self.publish(state, v);
                }
            }
            // The monitor a thread takes on an object it owns is one no
            // other thread can hold (`lock_order` drops such acquisitions).
            StmtKind::MonitorEnter(op) => self.note_base(s, state, op.var()),
            StmtKind::Invoke { result, call } => {
                self.note_base(s, state, call.receiver.as_ref().and_then(Operand::var));
                self.invoke(s, state, *result, call);
            }
            StmtKind::InvokeDynamic { result, call } => {
                for v in call.args.iter().filter_map(Operand::var) {
                    self.publish(state, v);
                }
                if let Some(r) = result {
                    self.set(state, *r, false);
                }
            }
            StmtKind::Return(Some(Operand::Var(v))) => self.ret(state, *v),
            StmtKind::Return(Some(Operand::Const(c))) if *c != ConstValue::Null => {
                self.out.returns_fresh = false;
            }
            _ => {}
        }
    }

    fn assign(&mut self, s: StmtId, state: &mut [bool], dst: VarId, value: &Rvalue) {
        let owned = match value {
            Rvalue::New(_) | Rvalue::NewArray(..) => true,
            Rvalue::Use(Operand::Var(v)) | Rvalue::Cast(Operand::Var(v), _) => {
                self.owned(state, *v)
            }
            Rvalue::Use(Operand::Const(_)) | Rvalue::Cast(Operand::Const(_), _) => true,
            Rvalue::FieldLoad { object, field } => {
                self.note_base(s, state, object.var());
                if let Some(b) = object.var() {
                    self.load_from_holder(state, b, dst);
                }
                object.var().is_some_and(|b| {
                    self.read_owned(state, b, Slot::Field(field.name.clone()), dst)
                })
            }
            Rvalue::ArrayLoad { array, .. } => {
                self.note_base(s, state, array.var());
                array
                    .var()
                    .is_some_and(|b| self.read_owned(state, b, Slot::Element, dst))
            }
            _ => false,
        };
        let fresh = match value {
            Rvalue::New(_) | Rvalue::NewArray(..) => true,
            Rvalue::Use(Operand::Var(v)) | Rvalue::Cast(Operand::Var(v), _) => {
                self.fresh(state, *v)
            }
            _ => false,
        };
        self.set(state, dst, owned);
        fresh::set_fresh(state, self.body.vars.len(), dst, owned && fresh);
    }

    fn invoke(&mut self, s: StmtId, state: &mut [bool], result: Option<VarId>, call: &Call) {
        let operands: Vec<&Operand> = call.receiver.iter().chain(call.args.iter()).collect();
        let mut passed: Vec<bool> = operands
            .iter()
            .map(|o| o.var().is_none_or(|v| self.owned(state, v)))
            .collect();
        passed.extend(self.passed_fresh(state, &operands));
        match self.site_args.binary_search_by_key(&s, |(t, _)| *t) {
            Ok(i) => {
                and_into(&mut self.site_args[i].1, &passed);
            }
            Err(i) => self.site_args.insert(i, (s, passed)),
        }
        let edges = edges_at(self.callees, s);
        let is_app = |c: u32| self.facts.app.get(c as usize).copied().unwrap_or(false);
        let mut app: Vec<u32> = edges
            .iter()
            .map(|&(_, c)| c)
            .filter(|&c| is_app(c))
            .collect();
        let some_jdk = edges.iter().any(|&(_, c)| !is_app(c));
        // A container call's application callees not called by their own
        // name are the container models' calls back (a key's `hashCode`,
        // a comparator; `lockstep_pointsto::Config::container_models`):
        // they receive the key, not the call's operands, and keep nothing.
        if !app.is_empty() && self.container_access(call).is_some() {
            app.retain(|&c| self.is_called_by_name(call, c));
        }
        let mut result_owned = true;
        let mut to_publish: Vec<VarId> = Vec::new();
        for &c in &app {
            result_owned &= self
                .facts
                .returns_owned
                .get(c as usize)
                .copied()
                .unwrap_or(false);
            let publishes = self
                .facts
                .publishes
                .get(c as usize)
                .filter(|p| p.len() == operands.len());
            for (i, o) in operands.iter().enumerate() {
                let Some(v) = o.var() else { continue };
                if publishes.is_none_or(|p| p.get(i).copied().unwrap_or(true)) {
                    to_publish.push(v);
                }
            }
        }
        let by_name: Vec<u32> = app
            .iter()
            .copied()
            .filter(|&c| self.is_called_by_name(call, c))
            .collect();
        let mut made_fresh = !app.is_empty()
            && by_name.len() == app.len()
            && by_name.iter().all(|&c| {
                let returns = self.facts.returns_fresh.get(c as usize);
                returns.copied().unwrap_or(false)
            });
        let library = some_jdk || edges.is_empty();
        if library {
            let (owned, publish) = self.library_call(state, call);
            result_owned &= owned;
            to_publish.extend(publish);
            made_fresh = app.is_empty()
                && (fresh::makes_fresh_object(&call.method.class, &call.method.name)
                    || fresh::is_jdk_copy(
                        &call.method.class,
                        &call.method.name,
                        &call.method.descriptor,
                    ));
        }
        self.unfresh_operands(state, call, &app, &by_name, library);
        to_publish.sort_unstable();
        to_publish.dedup();
        for v in to_publish {
            self.publish(state, v);
        }
        if let Some(r) = result {
            let owned = made_fresh || (result_owned && self.none_published(r));
            self.set(state, r, owned);
            fresh::set_fresh(state, self.body.vars.len(), r, made_fresh);
        }
    }

    /// After a call, its arguments may sit inside other objects (a
    /// container's contents, a callee's fields), and application callees
    /// may have stored their receiver too: an operand stays fresh only
    /// when every application callee (`app`, those of them that are
    /// called by their own name: `by_name`) keeps that parameter fresh
    /// and, for a call into the library, when it is the receiver or the
    /// call keeps nothing.
    fn unfresh_operands(
        &mut self,
        state: &mut [bool],
        call: &Call,
        app: &[u32],
        by_name: &[u32],
        library: bool,
    ) {
        // A call that keeps nothing may still return an operand (an
        // identity like `requireNonNull`): its result would be an alias.
        let returns_reference = call.method.descriptor.ends_with(';')
            || call
                .method
                .descriptor
                .rsplit(')')
                .next()
                .is_some_and(|r| r.starts_with('['));
        let library_keeps_args = !library
            || (keeps_nothing(&call.method.class, &call.method.name) && !returns_reference);
        let operands: Vec<Option<VarId>> = call
            .receiver
            .iter()
            .chain(call.args.iter())
            .map(Operand::var)
            .collect();
        let has_receiver = call.receiver.is_some();
        let receiver = if has_receiver { operands[0] } else { None };
        for (i, v) in operands.iter().enumerate() {
            let Some(v) = *v else { continue };
            let is_receiver = has_receiver && i == 0;
            // A parameter the callee stores into its receiver stays fresh
            // while the receiver does (the receiver, first in the loop,
            // has lost its freshness already if a callee keeps it not).
            let holder_fresh = !is_receiver
                && call.method.name.as_ref() == "<init>"
                && self.ctor_this(v)
                && receiver.is_some_and(|r| self.fresh_owned(state, r));
            let facts = self.facts;
            let kept_by_app = by_name.len() == app.len()
                && by_name.iter().all(|&c| {
                    let keeps = |k: Option<&Vec<bool>>| {
                        k.is_some_and(|k| k.len() == operands.len() && k[i])
                    };
                    keeps(facts.keeps_fresh.get(c as usize))
                        || (holder_fresh && keeps(facts.keeps_tethered.get(c as usize)))
                });
            // `Thread.start()` hands its receiver to the new thread (which
            // runs its `run()`): what the receiver holds is fresh no more.
            if library && is_receiver && starts_thread(call) && self.fresh_owned(state, v) {
                for m in self.held_members(v) {
                    self.unfresh(state, m);
                }
            }
            let tethered_by_library =
                library && holder_fresh && library_ctor_keeps_in_receiver(self.a.program, call, i);
            if tethered_by_library {
                // As below: the part holds `this`, which this
                // constructor's callers cannot follow.
                for p in self.params_copied_by(v) {
                    self.out.tethers[p] = true;
                }
                continue;
            }
            let kept_by_library = is_receiver || library_keeps_args;
            if !(kept_by_app && kept_by_library) {
                self.unfresh(state, v);
            } else if holder_fresh
                && !by_name.iter().all(|&c| {
                    let keeps = self.facts.keeps_fresh.get(c as usize);
                    keeps.is_some_and(|k| k.len() == operands.len() && k[i])
                })
            {
                // `this` is now held by a part: this constructor's callers
                // cannot follow the part, so for them `this` is not kept
                // fresh (as when it was stored anywhere else).
                for p in self.params_copied_by(v) {
                    self.out.tethers[p] = true;
                }
            }
        }
    }

    /// Is each operand (receiver first) fresh when passed? An operand
    /// passed twice (or with a copy of it) is not: the callee would hold
    /// the object under two parameters.
    fn passed_fresh(&mut self, state: &[bool], operands: &[&Operand]) -> Vec<bool> {
        let vars: Vec<Option<VarId>> = operands.iter().map(|o| o.var()).collect();
        let body = self.body;
        let copies = self.copies.get_or_insert_with(|| fresh::copy_classes(body));
        let n = body.vars.len();
        vars.iter()
            .enumerate()
            .map(|(i, v)| {
                v.is_some_and(|v| {
                    let class = copies.of(v);
                    state.get(v.index()).copied().unwrap_or(false)
                        && fresh::is_fresh(state, n, v)
                        && !vars
                            .iter()
                            .enumerate()
                            .any(|(j, u)| j != i && u.is_some_and(|u| u == v || class.contains(&u)))
                })
            })
            .collect()
    }

    /// Does `call` name `callee`'s method (so operands map to parameters,
    /// unlike a callback the JDK makes on the call's behalf)?
    fn is_called_by_name(&self, call: &Call, callee: u32) -> bool {
        let target = self
            .a
            .program
            .method(self.a.graph.nodes[callee as usize].method);
        call.method.name == target.name && call.method.descriptor == target.descriptor
    }

    /// The container model's access of a called method (once per method
    /// and ownership run: the model walks supertypes by name).
    fn container_access(&mut self, call: &Call) -> Option<ContainerAccess> {
        let key = (call.method.class.clone(), call.method.name.clone());
        if let Some(known) = self.cached(|c| c.container_access.get(&key).copied()) {
            return known;
        }
        let program = self.a.program;
        let is_subtype = |x: &str, y: &str| program.is_subtype_name(x, y);
        let access = lockstep_models::container_access_via(&key.0, &key.1, &is_subtype);
        self.reach.container_access.insert(key, access);
        access
    }

    /// A call into code this analysis does not walk: is the result owned,
    /// and which operands may it keep?
    fn library_call(&mut self, state: &[bool], call: &Call) -> (bool, Vec<VarId>) {
        let class: &str = &call.method.class;
        let name: &str = &call.method.name;
        let recv = call.receiver.as_ref().and_then(Operand::var);
        let args: Vec<VarId> = call.args.iter().filter_map(Operand::var).collect();
        if name == "<init>" {
            // A part the constructor's fresh `this` is handed to, and that
            // keeps it only in itself, holds it as a field of the part
            // would: not a publication while the part is the thread's own.
            let receiver_fresh = recv.is_some_and(|r| self.fresh_owned(state, r));
            let published = call
                .args
                .iter()
                .enumerate()
                .filter_map(|(j, a)| {
                    let v = a.var()?;
                    let kept = receiver_fresh
                        && self.ctor_this(v)
                        && library_ctor_keeps_in_receiver(self.a.program, call, j + 1);
                    (!kept).then_some(v)
                })
                .collect();
            return (false, published);
        }
        // A copy keeps no reference to its original (it holds the
        // original's field values, which points-to gives it).
        if keeps_nothing(class, name) || fresh::is_jdk_copy(class, name, &call.method.descriptor) {
            return (false, Vec::new());
        }
        if let Some(r) = recv {
            if reads_contents(name) {
                let owned = self.owned(state, r) && {
                    let holders = self.pts_of(r).to_vec();
                    holders
                        .iter()
                        .all(|&o| !self.facts.mixed.contains(&(o, Slot::Contents)))
                };
                return (owned, Vec::new());
            }
            let access = self.container_access(call);
            if access == Some(ContainerAccess::Read) {
                return (false, Vec::new());
            }
            if access == Some(ContainerAccess::Write) {
                if !self.owned(state, r) {
                    return (false, args);
                }
                let unowned: Vec<VarId> = args
                    .iter()
                    .copied()
                    .filter(|&a| !self.owned(state, a))
                    .collect();
                if !unowned.is_empty() {
                    let holders = self.pts_of(r).to_vec();
                    self.out
                        .mixed
                        .extend(holders.into_iter().map(|o| (o, Slot::Contents)));
                }
                return (false, Vec::new());
            }
        }
        let mut all = args;
        all.extend(recv);
        (false, all)
    }
}

/// The call edges of statement `site` in a node's edges sorted by site.
fn edges_at(callees: &[(StmtId, u32)], site: StmtId) -> &[(StmtId, u32)] {
    let lo = callees.partition_point(|&(t, _)| t < site);
    let hi = callees.partition_point(|&(t, _)| t <= site);
    callees.get(lo..hi).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u32]) -> Vec<ObjectId> {
        v.iter().copied().map(ObjectId).collect()
    }

    #[test]
    fn meeting_states_clears_bits_and_tells_whether_any_changed() {
        let mut into = vec![true, true, false, false];
        assert!(and_into(&mut into, &[true, false, true, false]));
        assert_eq!(into, vec![true, false, false, false]);
        assert!(!and_into(&mut into, &[true, false, true, true]));
        assert_eq!(into, vec![true, false, false, false]);
    }

    #[test]
    fn sorted_sets_meet_only_on_a_shared_object() {
        assert!(meets(&ids(&[1, 4, 9]), &ids(&[2, 3, 9])));
        assert!(meets(&ids(&[5]), &ids(&[0, 5, 7])));
        assert!(!meets(&ids(&[1, 4, 9]), &ids(&[2, 3, 8, 10])));
        assert!(!meets(&ids(&[]), &ids(&[1])));
        let many: Vec<u32> = (0..100).map(|x| 2 * x).collect();
        assert!(meets(&ids(&[7, 38]), &ids(&many)), "by binary search");
        assert!(!meets(&ids(&many), &ids(&[7, 39])), "either side");
    }
}
