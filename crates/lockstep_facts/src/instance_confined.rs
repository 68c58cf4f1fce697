//! Objects confined to each instance of a repeated thread start, even when
//! other threads can reach them (issue 14, point 4).
//!
//! [`crate::instances`] keeps apart the threads of a start that runs more
//! than once when each gets its own objects and nothing another thread
//! reaches holds them. A server that starts one thread per connection
//! usually also lists each connection in a registry (h2's
//! `TcpServer.running`) that another thread iterates to stop them: the
//! connection object escapes, so does everything it holds, and the
//! connection threads race "with themselves" on the objects each made for
//! itself.
//!
//! Between two threads of one start, what matters is not whether *some*
//! thread can reach an object but whether *another instance* of the start
//! can obtain it. A thread obtains an object by allocating it, from the
//! launch (its own task), or by reading it out of the heap. Let P be the
//! task and the objects it holds (through fields, transitively) that each
//! start makes afresh: allocated by the starting method on every path
//! between two starts, by the constructor of an object of P (its heap
//! context is that object), or by code that no other root runs. P is
//! confined to the instances of the start when
//! - no code the start's threads run reads an object of P out of an object
//!   outside P (an application load of a field or element from an object
//!   outside P that holds it), except out of its *own receiver*: the
//!   object the launch handed it (the task, or the `Runnable` a `Thread`
//!   runs) and `this` in methods it calls only as `this.m()` from there
//!   (h2's `TcpServer.cancelStatement` reads other connections out of the
//!   registry, so a connection is not in P, but the objects a connection
//!   thread reads only out of its own connection are); nor as the result
//!   of a call into JDK code, or an argument JDK code passes back into the
//!   thread's code, when some object outside P holds it (the JDK code may
//!   have fetched it there); and no object of P is in a static field or
//!   thrown;
//! - no code stores an object of P into a candidate object, except a
//!   constructor storing into the object it builds an object it has just
//!   allocated; the starting method's code storing one the starting method
//!   made for this start (`new Thread(task)`, `task.setThread(thread)`);
//!   the start's own threads storing into objects of P or into their own
//!   receiver (JDK code only values it received as parameters or just
//!   allocated).
//!
//! Then the objects of P an instance touches are those it was launched
//! with or made itself, so two instances never share one: the start does
//! not race with itself on P. Its pairs with *other* roots are unchanged
//! (the thread that stops the connections still races with them on what
//! it touches). P shrinks until both rules hold (dropping an object makes
//! it "outside P" for the rest); when another thread stores an object of
//! P into the task, nothing is kept (the launch may not hand each thread
//! its own receiver).
//!
//! Assumed, as in [`crate::instances`]: the starting method stores the
//! objects it makes for a start only into objects made for the same start
//! (a local that keeps an object across iterations is not told apart).
//!
//! Known limit: the objects a connection reaches through objects made by
//! code other roots also run (h2's per-connection session, made by
//! `Engine.createSession`, which the embedded and web front ends call too)
//! are not in P, so per-statement objects hanging off a session are not
//! covered.

use lockstep_ir::{Body, Rvalue, StmtId, StmtKind, VarId};
use std::sync::Arc;

use lockstep_pointsto::{FieldKey, ObjectId, ObjectSet};
use lockstep_program::MethodId;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::Analysis;
use crate::instances::{PerInstance, RepeatedStart};
use crate::threads::{Graph, Root};

/// A place where code may hand an object of a candidate set to a thread,
/// or put one into another.
#[derive(Debug)]
enum Flow {
    /// Application code in `node` reads `got` out of a field or element of
    /// `from`; `on_this`: out of the receiver of `node`.
    Load {
        node: u32,
        from: ObjectSet,
        got: Vec<ObjectId>,
        on_this: bool,
    },
    /// A call of application code in `node` into JDK code returns `got`.
    JdkResult { node: u32, got: Vec<ObjectId> },
    /// JDK code (`caller`) calls application code `callee` with `got`
    /// among its arguments.
    Callback {
        caller: u32,
        callee: u32,
        got: Vec<ObjectId>,
    },
    /// Code in `node` stores `value` into `into`; `copied`: JDK code
    /// storing a value it neither received as a parameter nor just
    /// allocated (it may have read it anywhere).
    Store {
        node: u32,
        into: Vec<ObjectId>,
        value: Vec<ObjectId>,
        by: StoreBy,
        copied: bool,
        on_this: bool,
    },
}

/// Which constructor stores are harmless to the instances (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StoreBy {
    /// A constructor storing into `this` an object it has just allocated.
    ConstructorNew,
    /// A constructor storing something else into `this`.
    Constructor,
    Other,
}

/// The fields (by name) and other slots (array elements, captures,
/// `Unsafe` slots) through which some object holds a candidate: loads and
/// stores of other fields cannot move one.
#[derive(Debug, Default)]
struct Slots {
    names: FxHashSet<Arc<str>>,
    other: bool,
}

impl Slots {
    fn add(&mut self, key: &FieldKey) {
        match key {
            FieldKey::Field { name, .. } => {
                if !self.names.contains(name) {
                    self.names.insert(name.clone());
                }
            }
            _ => self.other = true,
        }
    }

    /// May the field `name` (`None`: an array element) hold a candidate?
    fn may_hold(&self, name: Option<&str>) -> bool {
        name.map_or(self.other, |n| self.names.contains(n))
    }
}

/// What the confinement of every start is judged on.
struct Facts {
    flows: Vec<Flow>,
    /// Per node: its callers, and whether each calls it on its own
    /// receiver (`this.m()`).
    callers: Vec<Vec<(u32, bool)>>,
    /// Per candidate: the objects with a field or element that may hold it.
    holders: FxHashMap<ObjectId, Vec<ObjectId>>,
    /// Candidates in a static field or thrown: any thread may obtain them.
    unshareable: FxHashSet<ObjectId>,
}

impl Analysis<'_> {
    /// Adds to `out` the objects confined to the instances of each
    /// repeated start (module docs); `reach` gives the roots reaching each
    /// node.
    pub(crate) fn confine_to_instances(
        &self,
        roots: &[Root],
        reach: &[Vec<u32>],
        out: &mut PerInstance,
    ) {
        let starts = self.repeated_starts(roots);
        if starts.is_empty() {
            return;
        }
        let candidates: Vec<Vec<ObjectId>> = starts
            .iter()
            .map(|s| self.instance_candidates(s, reach))
            .collect();
        let mut all = ObjectSet::new();
        for &o in candidates.iter().flatten() {
            all.insert(o);
        }
        let (holders, slots) = self.holders_of(&all);
        let (flows, callers) = self.flows(&all, &slots);
        let facts = Facts {
            flows,
            callers,
            holders,
            unshareable: self.in_statics_or_thrown(&all),
        };
        let here = runs_here(&starts, reach);
        for (s, cands) in starts.iter().zip(candidates) {
            let fresh: FxHashSet<ObjectId> = cands
                .iter()
                .copied()
                .filter(|&o| s.fresh(self.pt, o))
                .collect();
            let parent = self
                .graph
                .node(s.start.caller)
                .map_or_else(Vec::new, |n| callees_closure(&self.graph, n));
            let start = Start {
                s,
                fresh: &fresh,
                parent: &parent,
                entries: roots.get(s.root as usize).map_or(&[], |x| &x.entries),
                callees: &self.graph.callees,
                here: here.get(&s.root).map_or(&[], Vec::as_slice),
            };
            let own = confined(&start, cands, &facts, reach);
            for o in own {
                out.add(o, s.root);
            }
        }
    }

    /// The task of `s` and the objects it holds, transitively, that each
    /// start makes afresh.
    fn instance_candidates(&self, s: &RepeatedStart, reach: &[Vec<u32>]) -> Vec<ObjectId> {
        let task = s.start.task;
        let mut seen: FxHashSet<ObjectId> = FxHashSet::default();
        seen.insert(task);
        let mut out = vec![task];
        let mut stack = vec![task];
        let mut only_here: FxHashMap<MethodId, bool> = FxHashMap::default();
        while let Some(o) = stack.pop() {
            for (_, set) in self.pt.fields_of(o) {
                for x in set.iter() {
                    if seen.contains(&x) {
                        continue;
                    }
                    let made_here = s.fresh(self.pt, x)
                        || self.made_by_constructor_of(x, o)
                        || self.allocated_only_by(x, s.root, reach, &mut only_here);
                    if made_here {
                        seen.insert(x);
                        out.push(x);
                        stack.push(x);
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Is `x` allocated by a method every reached context of which only
    /// root `r` reaches (cached per method in `only_here`)?
    fn allocated_only_by(
        &self,
        x: ObjectId,
        r: u32,
        reach: &[Vec<u32>],
        only_here: &mut FxHashMap<MethodId, bool>,
    ) -> bool {
        let Some((m, _)) = self.pt.object(x).and_then(|i| i.site.location()) else {
            return false;
        };
        *only_here.entry(m).or_insert_with(|| {
            let mut reached = false;
            for c in self.pt.contexts_of(m) {
                let mc = lockstep_pointsto::MethodContext {
                    method: m,
                    context: c,
                };
                let Some(n) = self.graph.node(mc) else {
                    continue;
                };
                match reach.get(n as usize).map(Vec::as_slice) {
                    Some([]) | None => {}
                    Some([only]) if *only == r => reached = true,
                    Some(_) => return false,
                }
            }
            reached
        })
    }

    /// For each object of `all`: the objects with a field or element that
    /// may hold it.
    /// Also returns the slots through which objects hold them.
    fn holders_of(&self, all: &ObjectSet) -> (FxHashMap<ObjectId, Vec<ObjectId>>, Slots) {
        let mut out: FxHashMap<ObjectId, Vec<ObjectId>> = FxHashMap::default();
        let mut slots = Slots::default();
        for o in self.pt.objects() {
            for (key, set) in self.pt.fields_of(o) {
                for x in among(&set, all) {
                    slots.add(key);
                    let list = out.entry(x).or_default();
                    if list.last() != Some(&o) {
                        list.push(o);
                    }
                }
            }
        }
        (out, slots)
    }

    /// The candidates held by a static field or thrown somewhere.
    fn in_statics_or_thrown(&self, all: &ObjectSet) -> FxHashSet<ObjectId> {
        let mut out: FxHashSet<ObjectId> = among(&self.pt.thrown(), all).into_iter().collect();
        for (_, set) in self.pt.static_fields() {
            out.extend(among(&set, all));
        }
        out
    }

    /// Every flow of the program that involves an object of `all`.
    /// Every flow of the program that involves an object of `all`, and
    /// the callers of every node (with whether each call is on `this`).
    fn flows(&self, all: &ObjectSet, slots: &Slots) -> (Vec<Flow>, Vec<Vec<(u32, bool)>>) {
        let mut flows = Vec::new();
        let mut callers: Vec<Vec<(u32, bool)>> = vec![Vec::new(); self.graph.nodes.len()];
        let jdk_callers = self.jdk_callers();
        for (n, mc) in self.graph.nodes.iter().enumerate() {
            let Some(body) = self.program.body(mc.method) else {
                continue;
            };
            let app = self
                .program
                .is_application(self.program.method(mc.method).class);
            let node = n as u32;
            let instance = !self.program.method(mc.method).is_static();
            let on_this = |v: VarId| instance && v == VarId(0);
            for &(site, callee) in self.graph.callees.get(n).into_iter().flatten() {
                if let Some(list) = callers.get_mut(callee as usize) {
                    list.push((node, on_this_call(&body, site, on_this)));
                }
            }
            let pts = |v: VarId| self.pt.var_in(mc.method, mc.context, v);
            let among = |v: VarId| among(&pts(v), all);
            for (i, stmt) in body.stmts.iter().enumerate() {
                let site = StmtId(i as u32);
                match &stmt.kind {
                    StmtKind::Assign { dst, value } if app => {
                        let from = match value {
                            Rvalue::FieldLoad { object, field } => {
                                object.var().filter(|_| slots.may_hold(Some(&field.name)))
                            }
                            Rvalue::ArrayLoad { array, .. } => {
                                array.var().filter(|_| slots.may_hold(None))
                            }
                            _ => None,
                        };
                        let Some(from) = from else { continue };
                        let got = among(*dst);
                        if !got.is_empty() {
                            flows.push(Flow::Load {
                                node,
                                from: pts(from),
                                got,
                                on_this: on_this(from),
                            });
                        }
                    }
                    StmtKind::Invoke {
                        result: Some(v), ..
                    } if app && self.calls_jdk(node, site) => {
                        let got = among(*v);
                        if !got.is_empty() {
                            flows.push(Flow::JdkResult { node, got });
                        }
                    }
                    StmtKind::FieldStore {
                        object,
                        value,
                        field,
                    } if slots.may_hold(Some(&field.name)) => {
                        let (Some(base), Some(v)) = (object.var(), value.var()) else {
                            continue;
                        };
                        flows.extend(self.store_flow(node, &body, app, base, v, all));
                    }
                    StmtKind::ArrayStore {
                        array: object,
                        value,
                        ..
                    } if slots.may_hold(None) => {
                        let (Some(base), Some(v)) = (object.var(), value.var()) else {
                            continue;
                        };
                        flows.extend(self.store_flow(node, &body, app, base, v, all));
                    }
                    _ => {}
                }
            }
            if app {
                for &caller in jdk_callers.get(&node).into_iter().flatten() {
                    let got: Vec<ObjectId> = body.params.iter().flat_map(|&p| among(p)).collect();
                    if got.is_empty() {
                        continue;
                    }
                    flows.push(Flow::Callback {
                        caller,
                        callee: node,
                        got,
                    });
                }
            }
        }
        (flows, callers)
    }

    /// The store of `value` into `base` in `node`, when both may be
    /// candidates of `all`.
    fn store_flow(
        &self,
        node: u32,
        body: &Body,
        app: bool,
        base: VarId,
        value: VarId,
        all: &ObjectSet,
    ) -> Option<Flow> {
        let mc = self.graph.nodes[node as usize];
        let among =
            |v: VarId| -> Vec<ObjectId> { among(&self.pt.var_in(mc.method, mc.context, v), all) };
        let stored = among(value);
        if stored.is_empty() {
            return None;
        }
        let into = among(base);
        if into.is_empty() {
            return None;
        }
        let instance = !self.program.method(mc.method).is_static();
        Some(Flow::Store {
            node,
            into,
            value: stored,
            by: self.store_by(mc.method, body, base, value),
            copied: !app && !body.params.contains(&value) && !defined_by_new(body, value),
            on_this: instance && base == VarId(0),
        })
    }

    /// Per application node: the JDK nodes that call it.
    fn jdk_callers(&self) -> FxHashMap<u32, Vec<u32>> {
        let mut out: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        for (c, callees) in self.graph.callees.iter().enumerate() {
            let caller = self.graph.nodes[c].method;
            if self
                .program
                .is_application(self.program.method(caller).class)
            {
                continue;
            }
            for &(_, callee) in callees {
                let list = out.entry(callee).or_default();
                if list.last() != Some(&(c as u32)) {
                    list.push(c as u32);
                }
            }
        }
        out
    }

    /// Does the call at `site` of `node` reach JDK code?
    fn calls_jdk(&self, node: u32, site: StmtId) -> bool {
        let Some(callees) = self.graph.callees.get(node as usize) else {
            return false;
        };
        // Sorted by site.
        let from = callees.partition_point(|(s, _)| *s < site);
        callees[from..]
            .iter()
            .take_while(|(s, _)| *s == site)
            .any(|&(_, c)| {
                let m = self.graph.nodes[c as usize].method;
                !self.program.is_application(self.program.method(m).class)
            })
    }

    /// Is this a constructor storing into `this` (`base`), and `value` an
    /// object it has just allocated (defined only by a `new`)?
    fn store_by(&self, m: MethodId, body: &Body, base: VarId, value: VarId) -> StoreBy {
        if !self.program.method(m).is_constructor() || base != VarId(0) {
            StoreBy::Other
        } else if defined_by_new(body, value) {
            StoreBy::ConstructorNew
        } else {
            StoreBy::Constructor
        }
    }
}

/// Is `v` defined only by a `new` (an object this call just allocated)?
fn defined_by_new(body: &Body, v: VarId) -> bool {
    let def = body.unique_def.get(v.0 as usize).copied().flatten();
    def.and_then(|d| body.stmts.get(d.index()))
        .is_some_and(|s| {
            matches!(
                &s.kind,
                StmtKind::Assign {
                    value: Rvalue::New(_) | Rvalue::NewArray(..),
                    ..
                }
            )
        })
}

/// One repeated start as [`confined`] judges it.
struct Start<'a, 'p> {
    s: &'a RepeatedStart<'p>,
    /// Its candidates the starting method makes for each start.
    fresh: &'a FxHashSet<ObjectId>,
    /// Per node: does the starting method's code reach it (the parent,
    /// around the start)?
    parent: &'a [bool],
    /// The root's entry nodes.
    entries: &'a [u32],
    /// The call graph's callees per node.
    callees: &'a [Vec<(StmtId, u32)>],
    /// Per node: does the root reach it?
    here: &'a [bool],
}

/// Per root of `starts`, per node: does the root reach the node? (One
/// pass over `reach`, whose lists can be long.)
fn runs_here(starts: &[RepeatedStart], reach: &[Vec<u32>]) -> FxHashMap<u32, Vec<bool>> {
    let mut out: FxHashMap<u32, Vec<bool>> = starts
        .iter()
        .map(|s| (s.root, vec![false; reach.len()]))
        .collect();
    for (n, roots) in reach.iter().enumerate() {
        for r in roots {
            if let Some(v) = out.get_mut(r) {
                v[n] = true;
            }
        }
    }
    out
}

/// The objects of `set` that are in `all`, walking the smaller of the two.
fn among(set: &ObjectSet, all: &ObjectSet) -> Vec<ObjectId> {
    if !set.intersects(all) {
        Vec::new()
    } else if set.len() <= all.len() {
        set.iter().filter(|&o| all.contains(o)).collect()
    } else {
        all.iter().filter(|&o| set.contains(o)).collect()
    }
}

/// Per node: is it `from` or one of its callees, transitively?
fn callees_closure(graph: &Graph, from: u32) -> Vec<bool> {
    let mut seen = vec![false; graph.nodes.len()];
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        match seen.get_mut(n as usize) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        stack.extend(graph.callees[n as usize].iter().map(|&(_, c)| c));
    }
    seen
}

/// Does the call at `site` run on the caller's own receiver (`this.m()`)?
fn on_this_call(body: &Body, site: StmtId, on_this: impl Fn(VarId) -> bool) -> bool {
    let Some(stmt) = body.stmts.get(site.index()) else {
        return false;
    };
    match &stmt.kind {
        StmtKind::Invoke { call, .. } => call
            .receiver
            .as_ref()
            .and_then(|r| r.var())
            .is_some_and(on_this),
        _ => false,
    }
}

/// Per node: does every thread of a root run it on the receiver it was
/// launched with (an entry), or only through `this.m()` calls from such
/// nodes? A greatest fixpoint over the nodes the root reaches (`here`).
fn own_receivers(
    entries: &[u32],
    callers: &[Vec<(u32, bool)>],
    callees: &[Vec<(StmtId, u32)>],
    here: &[bool],
) -> Vec<bool> {
    let runs_here = |n: u32| here.get(n as usize) == Some(&true);
    let mut own: Vec<bool> = here.to_vec();
    let holds = |own: &[bool], n: usize| {
        let mut callers_here = callers[n].iter().filter(|(c, _)| runs_here(*c)).peekable();
        let entered = entries.contains(&(n as u32)) || callers_here.peek().is_some();
        entered && callers_here.all(|&(c, this)| this && own[c as usize])
    };
    // A node that loses its own receiver may make its callees lose theirs.
    let mut work: Vec<usize> = Vec::new();
    for n in 0..own.len() {
        if own[n] && !holds(&own, n) {
            own[n] = false;
            work.push(n);
        }
    }
    while let Some(n) = work.pop() {
        for &(_, c) in callees.get(n).into_iter().flatten() {
            let c = c as usize;
            if own.get(c) == Some(&true) && !holds(&own, c) {
                own[c] = false;
                work.push(c);
            }
        }
    }
    own
}

/// The candidates of start `s` that stay confined to its instances: the
/// greatest subset both rules of the module docs hold for (empty when the
/// task itself is not confined).
fn confined(
    start: &Start,
    candidates: Vec<ObjectId>,
    facts: &Facts,
    reach: &[Vec<u32>],
) -> Vec<ObjectId> {
    let s = start.s;
    let r = s.root;
    let all: FxHashSet<ObjectId> = candidates.iter().copied().collect();
    let mut own: FxHashSet<ObjectId> = candidates
        .into_iter()
        .filter(|o| !facts.unshareable.contains(o))
        .collect();
    let runs_here = |n: u32| start.here.get(n as usize) == Some(&true);
    let only_here = |n: u32| reach.get(n as usize).is_some_and(|v| v == &[r]);
    let own_this = own_receivers(start.entries, &facts.callers, start.callees, start.here);
    let concerns = |objects: &[ObjectId]| objects.iter().any(|o| all.contains(o));
    // The flows that can drop one of this start's candidates.
    let flows: Vec<&Flow> = facts
        .flows
        .iter()
        .filter(|f| match f {
            Flow::Load { node, got, .. } | Flow::JdkResult { node, got } => {
                runs_here(*node) && concerns(got)
            }
            Flow::Callback { caller, got, .. } => runs_here(*caller) && concerns(got),
            Flow::Store { into, value, .. } => concerns(into) && concerns(value),
        })
        .collect();
    let on_own = |n: &u32, on_this: &bool| *on_this && own_this.get(*n as usize) == Some(&true);
    // Another thread stored one of these objects into the task: the
    // launch may not hand each thread its own receiver.
    let mut tampered = false;
    loop {
        let mut dropped: Vec<ObjectId> = Vec::new();
        let inside = |o: &ObjectId| own.contains(o);
        // Held by `from` outside P: a load from `from` may yield it.
        let held_outside = |x: &ObjectId, from: &ObjectSet| {
            facts
                .holders
                .get(x)
                .is_some_and(|hs| hs.iter().any(|h| !inside(h) && from.contains(*h)))
        };
        // Some object outside P holds it: JDK code may have fetched it
        // from there.
        let obtainable = |x: &ObjectId| {
            facts
                .holders
                .get(x)
                .is_some_and(|hs| hs.iter().any(|h| !inside(h)))
        };
        for f in &flows {
            match f {
                Flow::Load {
                    node,
                    from,
                    got,
                    on_this,
                } if runs_here(*node) && !on_own(node, on_this) => {
                    dropped.extend(got.iter().filter(|o| inside(o) && held_outside(o, from)));
                }
                Flow::JdkResult { node, got } if runs_here(*node) => {
                    dropped.extend(got.iter().filter(|o| inside(o) && obtainable(o)));
                }
                Flow::Callback {
                    caller,
                    callee,
                    got,
                } if runs_here(*caller) => {
                    let launch = start.entries.contains(callee);
                    dropped.extend(got.iter().filter(|o| {
                        inside(o) && obtainable(o) && !(launch && **o == s.start.task)
                    }));
                }
                Flow::Store {
                    node,
                    into,
                    value,
                    by,
                    copied,
                    on_this,
                } if into.iter().any(|o| all.contains(o)) => {
                    // Harmless: a constructor keeping what it made; the
                    // parent linking the objects made for this start
                    // (`new Thread(task)`, `task.setThread(thread)`); the
                    // start's own thread storing into its own objects.
                    let fine = |o: &ObjectId| {
                        !*copied
                            && (*by == StoreBy::ConstructorNew
                                || (start.parent.get(*node as usize) == Some(&true)
                                    && start.fresh.contains(o))
                                || (only_here(*node)
                                    && (into.iter().all(|i| !all.contains(i) || inside(i))
                                        || on_own(node, on_this))))
                    };
                    let count = dropped.len();
                    dropped.extend(value.iter().filter(|o| inside(o) && !fine(o)));
                    tampered |= dropped.len() > count && into.contains(&s.start.task);
                }
                _ => {}
            }
        }
        if dropped.is_empty() {
            break;
        }
        for o in dropped {
            own.remove(&o);
        }
    }
    if tampered {
        return Vec::new();
    }
    let mut v: Vec<ObjectId> = own.into_iter().collect();
    v.sort_unstable();
    v
}
