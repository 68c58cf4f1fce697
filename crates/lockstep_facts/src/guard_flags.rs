//! Guard flags: a lock order taken only after a boolean flag was seen
//! `true`, where the flag is set only inside the critical section of the
//! other order, which runs at most once.
//!
//! ```java
//! synchronized void init() {             // the runtime's lock R
//!     if (!initialized) {                // tested under R ...
//!         factory.initMacros();          // ... takes the factory F, and there sets `autoReload`
//!         initialized = true;            // ... set under R on every path: once per runtime
//!     }
//! }
//! Directive get() {                      // in the factory
//!     if (autoReload) {                  // seen true ...
//!         synchronized (this) { rsvc.getTemplate(); }   // ... then F → R
//!     }
//! }
//! ```
//!
//! Velocity 1.7's `VelocimacroFactory.getVelocimacro` is written this way.
//! A thread past the guard saw a value some thread stored inside the
//! first order's critical section of `F`; that section runs only inside
//! a one-shot block of `R`'s holder, which has therefore already taken
//! `F` for the only time. No thread can later hold `R` while waiting for
//! `F` on that order, so the two orders cannot deadlock each other.
//!
//! Three facts, each narrow:
//! - *Guards* ([`seen_at`]): the boolean fields of `this` (or static
//!   fields) whose loaded value was tested non-zero on every path to a
//!   statement (a forward must-analysis per body; the test is a history
//!   fact, so later stores do not undo it).
//! - *Writers* ([`Index`]): every application store of the flag (by name)
//!   that may store a non-zero value is inside the monitor region that
//!   the other order's acquisition opens (or, one level, inside a private
//!   method of the same class called on `this` only from there). A
//!   constructor or static initializer storing anything but `false`
//!   disqualifies the flag (a field initializer `= true`).
//! - *Once* ([`Once`]): the other order's acquisition statement is
//!   reached only with a boolean field `g` of `this` seen `false` under
//!   the monitor of `this` held since the test, `g` is set `true` on
//!   every normal path from the statement before that monitor is left,
//!   and no application code outside constructors and static
//!   initializers stores anything else into `g`; or every in-program
//!   caller of its method context calls it at such a statement (a few
//!   calls up).
//!
//! Assumed (see the rule's docs): the flag and the locks belong to one
//! pair of objects (the flag's owner is not matched with the lock
//! objects); the critical section is entered only through the one-shot
//! order (a harness or outside caller running that section directly, as
//! an open program's harness may for a public method, is not counted);
//! exceptions leaving the one-shot block are not followed.

use std::sync::Arc;

use lockstep_ir::{
    AccessPath, Body, Cond, ConstValue, MemberRef, Operand, Rvalue, StmtId, StmtKind, VarId,
};
use lockstep_program::{MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::block_solver::{self, Forward, HandlerSees};
use crate::once_gate::is_receiver;

/// A boolean field as the code names it: the class of the reference,
/// its name, static or not. Stores are matched by name and by a class
/// related either way in the hierarchy (a reference through a subclass
/// names the same field).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Flag {
    pub class: Arc<str>,
    pub name: Arc<str>,
    pub is_static: bool,
}

impl Flag {
    /// May a store of `other` write this flag?
    pub(crate) fn may_be(&self, program: &Program, other: &Flag) -> bool {
        self.name == other.name
            && self.is_static == other.is_static
            && (program.is_subtype_name(&self.class, &other.class)
                || program.is_subtype_name(&other.class, &self.class))
    }

    /// The key stores are indexed by.
    fn key(&self) -> (Arc<str>, bool) {
        (self.name.clone(), self.is_static)
    }
}

/// A critical section: the method and the `monitorenter` opening it
/// (`None`: a `synchronized` method's whole body).
pub type Section = (MethodId, Option<StmtId>);

/// Flags tested before a statement, with the value seen (`true`: non-zero).
pub type Tested = Vec<(Flag, bool)>;

/// One store of a flag: the flag as named, the method and statement, the
/// value is the constant `false`, the store is into `this`.
type Store = (Flag, MethodId, StmtId, bool, bool);

/// What every path to a statement saw: flags with the value tested.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Seen {
    /// Variables holding a flag's loaded value.
    vars: Vec<(VarId, Flag)>,
    /// Flags tested, with the outcome (`true`: non-zero).
    facts: Tested,
}

impl Seen {
    fn meet(&self, other: &Seen) -> Seen {
        Seen {
            vars: self
                .vars
                .iter()
                .filter(|v| other.vars.contains(v))
                .cloned()
                .collect(),
            facts: self
                .facts
                .iter()
                .filter(|f| other.facts.contains(f))
                .cloned()
                .collect(),
        }
    }
}

/// The flags tested before every statement of a body (`None`: unreached),
/// or `None` when the body tests no flag (or the solver gave up).
pub fn seen_at(body: &Body) -> Option<Vec<Option<Tested>>> {
    if !body
        .stmts
        .iter()
        .any(|s| flag_load_kind(body, &s.kind).is_some())
    {
        return None;
    }
    let nb = body.blocks.len();
    let mut flow = SeenFlow { body };
    let at_entry = block_solver::solve(
        body,
        &mut flow,
        Seen::default(),
        HandlerSees::BeforeEach,
        nb.saturating_mul(16),
    )?;
    let mut before: Vec<Option<Tested>> = vec![None; body.stmts.len()];
    for (b, entry) in at_entry.iter().enumerate() {
        let Some(mut st) = entry.clone() else {
            continue;
        };
        let Some(block) = body.blocks.get(b) else {
            continue;
        };
        for s in block.first.0..block.end.0 {
            if let Some(slot) = before.get_mut(s as usize) {
                *slot = Some(st.facts.clone());
            }
            step(body, StmtId(s), &mut st);
        }
    }
    Some(before)
}

struct SeenFlow<'b> {
    body: &'b Body,
}

impl Forward for SeenFlow<'_> {
    type State = Seen;

    fn meet_into(&self, into: &mut Seen, from: &Seen) -> bool {
        let met = into.meet(from);
        crate::block_solver::replace_if_changed(into, met)
    }

    fn step(&mut self, s: StmtId, st: &mut Seen) {
        step(self.body, s, st);
    }

    fn edge(&mut self, block: usize, succ: usize, st: &Seen) -> Option<Seen> {
        let b = self.body.blocks.get(block)?;
        let last = b.end.0.checked_sub(1).filter(|&l| l >= b.first.0)?;
        let StmtKind::If {
            cond,
            lhs: Operand::Var(v),
            rhs: Operand::Const(ConstValue::Int(0)),
            target,
        } = &self.body.stmts.get(last as usize)?.kind
        else {
            return None;
        };
        let flag = st
            .vars
            .iter()
            .find(|(x, _)| x == v)
            .map(|(_, f)| f.clone())?;
        let taken = target.index() == succ;
        let nonzero = match cond {
            Cond::Eq => !taken,
            Cond::Ne => taken,
            _ => return None,
        };
        let mut out = st.clone();
        out.facts.retain(|(f, _)| *f != flag);
        out.facts.push((flag, nonzero));
        out.facts.sort();
        Some(out)
    }
}

/// The effect of one statement: loads name their variable; a lock taken
/// or released ends what was seen `false` (a test counts for [`Once`]
/// only under the lock held since), as does a store of the flag.
fn step(body: &Body, s: StmtId, st: &mut Seen) {
    let Some(stmt) = body.stmts.get(s.index()) else {
        return;
    };
    match &stmt.kind {
        StmtKind::Assign { dst, value } => {
            st.vars.retain(|(v, _)| v != dst);
            if let Some(flag) = flag_load(body, value) {
                st.vars.push((*dst, flag));
            }
        }
        StmtKind::MonitorEnter(_) | StmtKind::MonitorExit(_) => {
            st.facts.retain(|(_, value)| *value);
        }
        StmtKind::FieldStore { field, .. } | StmtKind::StaticStore { field, .. }
            if is_boolean(field) =>
        {
            st.facts
                .retain(|(f, value)| *value || *f.name != *field.name || f.class != field.class);
        }
        _ => {}
    }
}

fn flag_load_kind(body: &Body, kind: &StmtKind) -> Option<Flag> {
    match kind {
        StmtKind::Assign { value, .. } => flag_load(body, value),
        _ => None,
    }
}

/// A load of a boolean field of `this`, or of a static boolean field.
fn flag_load(body: &Body, value: &Rvalue) -> Option<Flag> {
    match value {
        Rvalue::FieldLoad {
            object: Operand::Var(o),
            field,
        } if is_boolean(field) && is_receiver(body, *o) => Some(flag_of(field, false)),
        Rvalue::StaticLoad(field) if is_boolean(field) => Some(flag_of(field, true)),
        _ => None,
    }
}

fn is_boolean(field: &MemberRef) -> bool {
    &*field.descriptor == "Z"
}

fn flag_of(field: &MemberRef, is_static: bool) -> Flag {
    Flag {
        class: field.class.clone(),
        name: field.name.clone(),
        is_static,
    }
}

/// A store into a boolean field: the flag, the stored value, and whether
/// it is into `this` (always, for a static).
fn flag_store<'s>(body: &Body, kind: &'s StmtKind) -> Option<(Flag, &'s Operand, bool)> {
    match kind {
        StmtKind::FieldStore {
            object,
            field,
            value,
        } if is_boolean(field) => {
            let own = matches!(object, Operand::Var(o) if is_receiver(body, *o));
            Some((flag_of(field, false), value, own))
        }
        StmtKind::StaticStore { field, value } if is_boolean(field) => {
            Some((flag_of(field, true), value, true))
        }
        _ => None,
    }
}

fn is_const(value: &Operand, c: i32) -> bool {
    matches!(value, Operand::Const(ConstValue::Int(x)) if *x == c)
}

/// Every application store of the flags asked for.
#[derive(Debug, Default)]
pub struct Index {
    /// Per field name (and static or not): `(flag, method, statement,
    /// value is constant false, into this)`.
    stores: FxHashMap<(Arc<str>, bool), Vec<Store>>,
    /// Per private method storing a flag: its call sites on `this`
    /// (`None` in the list: a call on another object).
    calls: FxHashMap<MethodId, Vec<Option<(MethodId, StmtId)>>>,
}

impl Index {
    /// Scans every application body for stores of boolean fields (guard
    /// flags and the one-shot tests' flags, found later, alike), and for
    /// calls of the private methods storing them.
    pub fn scan(program: &Program) -> Index {
        let mut idx = Index::default();
        let methods: Vec<MethodId> = program
            .application_classes()
            .flat_map(|c| program.class(c).methods.to_vec())
            .collect();
        for &m in &methods {
            let Some(body) = program.body(m) else {
                continue;
            };
            for (i, stmt) in body.stmts.iter().enumerate() {
                if let Some((flag, value, own)) = flag_store(&body, &stmt.kind) {
                    idx.stores.entry(flag.key()).or_default().push((
                        flag,
                        m,
                        StmtId(i as u32),
                        is_const(value, 0),
                        own,
                    ));
                }
            }
        }
        let setters: FxHashMap<(&str, &str, &str), MethodId> = idx
            .stores
            .values()
            .flatten()
            .map(|&(_, m, ..)| m)
            .filter(|&m| program.method(m).is_private())
            .map(|m| {
                let d = program.method(m);
                ((&*program.class(d.class).name, &*d.name, &*d.descriptor), m)
            })
            .collect();
        if setters.is_empty() {
            return idx;
        }
        for &m in &methods {
            let Some(body) = program.body(m) else {
                continue;
            };
            for (i, stmt) in body.stmts.iter().enumerate() {
                let StmtKind::Invoke { call, .. } = &stmt.kind else {
                    continue;
                };
                let called = (
                    &*call.method.class,
                    &*call.method.name,
                    &*call.method.descriptor,
                );
                if let Some(&setter) = setters.get(&called) {
                    let on_this = matches!(call.receiver, Some(Operand::Var(r)) if is_this(&body, r))
                        || program.method(setter).is_static();
                    idx.calls
                        .entry(setter)
                        .or_default()
                        .push(on_this.then_some((m, StmtId(i as u32))));
                }
            }
        }
        idx
    }

    /// Is every store of `flag` that may make it `true` inside `section`
    /// (directly, or in a private method of its class called on `this`
    /// only from inside it)? `false` when the flag has no such store.
    pub fn set_only_inside(&self, program: &Program, flag: &Flag, section: Section) -> bool {
        let Some(stores) = self.stores.get(&flag.key()) else {
            return false;
        };
        let mut any = false;
        for (f, m, s, is_false, own) in stores {
            let (m, s, is_false, own) = (*m, *s, *is_false, *own);
            if !flag.may_be(program, f) {
                continue;
            }
            let data = program.method(m);
            if data.is_constructor() || data.is_class_initializer() {
                if is_false {
                    continue;
                }
                return false;
            }
            if is_false {
                continue;
            }
            if !own {
                return false;
            }
            any = true;
            if inside(program, (m, s), section) {
                continue;
            }
            if !data.is_private() || m == section.0 {
                return false;
            }
            let Some(calls) = self.calls.get(&m) else {
                // A private setter nobody calls never runs.
                continue;
            };
            let all_inside = calls
                .iter()
                .all(|c| c.is_some_and(|at| inside(program, at, section)));
            if !all_inside {
                return false;
            }
        }
        any
    }

    /// Is `flag` never stored anything but `true` outside constructors and
    /// static initializers?
    pub fn only_set_true(&self, program: &Program, flag: &Flag) -> bool {
        let Some(stores) = self.stores.get(&flag.key()) else {
            return true;
        };
        stores.iter().all(|(f, m, s, _, _)| {
            let (m, s) = (*m, *s);
            if !flag.may_be(program, f) {
                return true;
            }
            let data = program.method(m);
            data.is_constructor()
                || data.is_class_initializer()
                || program
                    .body(m)
                    .and_then(|b| {
                        b.stmts
                            .get(s.index())
                            .and_then(|st| flag_store(&b, &st.kind).map(|(_, v, _)| is_const(v, 1)))
                    })
                    .unwrap_or(false)
        })
    }
}

/// Is `v` the receiver, or a copy of it?
fn is_this(body: &Body, v: VarId) -> bool {
    is_receiver(body, v) || matches!(lockstep_ir::access_path(body, v), AccessPath::This)
}

/// Is statement `at` inside the critical section?
fn inside(program: &Program, at: (MethodId, StmtId), section: Section) -> bool {
    if at.0 != section.0 {
        return false;
    }
    let Some(enter) = section.1 else {
        return true;
    };
    let Some(body) = program.body(at.0) else {
        return false;
    };
    body.regions_held_before(at.1).iter().any(|r| {
        body.monitors
            .get(r.index())
            .is_some_and(|mr| mr.enter == Some(enter))
    })
}

/// Statements that run at most once per object of their method's
/// receiver (or once in the program, for a static flag): see the module
/// docs.
#[derive(Default)]
pub struct Once {
    seen: FxHashMap<MethodId, Option<Arc<Vec<Option<Tested>>>>>,
}

impl Once {
    /// The flags tested on every path to `s` of `method` (cached per body).
    fn facts(&mut self, program: &Program, method: MethodId, s: StmtId) -> Tested {
        let seen = match self.seen.get(&method) {
            Some(v) => v.clone(),
            None => {
                let v = program.body(method).and_then(|b| seen_at(&b)).map(Arc::new);
                self.seen.insert(method, v.clone());
                v
            }
        };
        seen.as_ref()
            .and_then(|v| v.get(s.index()).cloned().flatten())
            .unwrap_or_default()
    }

    /// Is `s` of `method` past a one-shot test (local only)?
    pub fn local(&mut self, program: &Program, index: &Index, method: MethodId, s: StmtId) -> bool {
        let facts = self.facts(program, method, s);
        if facts.is_empty() {
            return false;
        }
        let Some(body) = program.body(method) else {
            return false;
        };
        facts.iter().any(|(g, value)| {
            !*value
                && holds_owner_lock(&body, s, g.is_static)
                && set_before_leaving(&body, s, g)
                && index.only_set_true(program, g)
        })
    }
}

/// Does the body hold, before `s`, the monitor a flag of its kind is
/// tested under (`this` for an instance flag, a class for a static one)?
fn holds_owner_lock(body: &Body, s: StmtId, is_static: bool) -> bool {
    body.regions_held_before(s).iter().any(|r| {
        body.monitors.get(r.index()).is_some_and(|m| {
            matches!(
                (&m.lock, is_static),
                (AccessPath::This, false) | (AccessPath::ClassLiteral(_), true)
            )
        })
    })
}

/// Is `g` stored `true` (into `this`) on every normal path from just after
/// `s` before the method returns, throws or releases a monitor?
fn set_before_leaving(body: &Body, s: StmtId, g: &Flag) -> bool {
    let Some(start) = body.blocks.iter().position(|b| b.first <= s && s < b.end) else {
        return false;
    };
    let mut stack: Vec<(usize, u32)> = vec![(start, s.0 + 1)];
    let mut visited: FxHashSet<usize> = FxHashSet::default();
    while let Some((b, from)) = stack.pop() {
        let Some(block) = body.blocks.get(b) else {
            return false;
        };
        let mut set = false;
        for i in from..block.end.0 {
            let Some(stmt) = body.stmts.get(i as usize) else {
                return false;
            };
            if let Some((f, v, own)) = flag_store(body, &stmt.kind) {
                if f == *g && own && is_const(v, 1) {
                    set = true;
                    break;
                }
            }
            if matches!(
                stmt.kind,
                StmtKind::Return(_) | StmtKind::Throw(_) | StmtKind::MonitorExit(_)
            ) {
                return false;
            }
        }
        if set {
            continue;
        }
        if block.succs.is_empty() {
            return false;
        }
        for succ in &block.succs {
            if visited.insert(succ.index()) {
                stack.push((
                    succ.index(),
                    body.blocks.get(succ.index()).map_or(0, |x| x.first.0),
                ));
            }
        }
    }
    true
}

/// An acquisition's site: method and statement.
type SiteKey = (MethodId, Option<StmtId>);

/// The guard-flag facts of one check, for [`GuardFacts::excludes`].
#[derive(Debug, Default)]
pub struct GuardFacts {
    /// Per acquisition site: the flags seen `true` on every path to it.
    guards: FxHashMap<SiteKey, Vec<Flag>>,
    /// Per one-shot acquisition (node, statement, the section it opens):
    /// the guard flags set only inside that section.
    sets: FxHashMap<(u32, Option<StmtId>, Section), Vec<Flag>>,
}

impl GuardFacts {
    /// The section an acquisition opens: the statement taking the lock,
    /// in the callee when it is taken below a call.
    pub fn section(a: &crate::lock_order::Acquisition) -> Section {
        a.via
            .last()
            .copied()
            .unwrap_or((a.site.method, a.site.stmt))
    }

    /// Can `second` run only after a flag was seen `true` that only the
    /// one-shot critical section of `first` sets? Then `first` has taken
    /// its lock for the only time before `second` starts, and the two
    /// cannot wait for each other.
    pub fn excludes(
        &self,
        first: &crate::lock_order::Acquisition,
        second: &crate::lock_order::Acquisition,
    ) -> bool {
        let Some(set) = self
            .sets
            .get(&(first.site.node, first.site.stmt, Self::section(first)))
        else {
            return false;
        };
        self.guards
            .get(&(second.site.method, second.site.stmt))
            .is_some_and(|g| g.iter().any(|f| set.contains(f)))
    }

    /// Is there nothing to exclude?
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }
}

/// Computes the guard facts of the acquisitions; `once_at` says whether a
/// node's statement (or entry) runs only past a one-shot test, its own or
/// its callers' ([`Once::local`] is the local test it builds on).
pub fn compute(
    program: &Program,
    acqs: &[crate::lock_order::Acquisition],
    mut once_at: impl FnMut(&mut Once, &Index, u32, Option<StmtId>) -> bool,
) -> GuardFacts {
    let mut once = Once::default();
    let mut guards: FxHashMap<SiteKey, Vec<Flag>> = FxHashMap::default();
    for a in acqs.iter().filter(|a| !a.held.is_empty()) {
        let Some(s) = a.site.stmt else { continue };
        let key = (a.site.method, a.site.stmt);
        if guards.contains_key(&key) {
            continue;
        }
        let facts = once.facts(program, a.site.method, s);
        let seen: Vec<Flag> = facts
            .into_iter()
            .filter(|(_, v)| *v)
            .map(|(f, _)| f)
            .collect();
        guards.insert(key, seen);
    }
    guards.retain(|_, g| !g.is_empty());
    if guards.is_empty() {
        return GuardFacts::default();
    }
    let flags: FxHashSet<Flag> = guards.values().flatten().cloned().collect();
    let index = Index::scan(program);
    let mut sorted: Vec<Flag> = flags.into_iter().collect();
    sorted.sort();
    let mut by_section: FxHashMap<Section, Vec<Flag>> = FxHashMap::default();
    let mut sets = FxHashMap::default();
    for a in acqs.iter().filter(|a| !a.held.is_empty() && !a.reentrant()) {
        let section = GuardFacts::section(a);
        let set = by_section
            .entry(section)
            .or_insert_with(|| {
                sorted
                    .iter()
                    .filter(|f| index.set_only_inside(program, f, section))
                    .cloned()
                    .collect()
            })
            .clone();
        let key = (a.site.node, a.site.stmt, section);
        if set.is_empty() || sets.contains_key(&key) {
            continue;
        }
        if once_at(&mut once, &index, a.site.node, a.site.stmt) {
            sets.insert(key, set);
        }
    }
    GuardFacts { guards, sets }
}
