//! The atomicity transfer function of one method (paper 004 §5): the
//! operations of its body that matter for reduction, each with its
//! atomicity in the method's own lock expressions, and the evaluation of
//! the body from its callees' atomicities.
//!
//! The typing rules of the paper are syntax-directed; bytecode is a
//! control-flow graph with unstructured `monitorenter`/`monitorexit` and
//! `lock()`/`unlock()` calls. So the body is evaluated by Lipton's
//! reduction directly, per set of locks held on entry: along every path,
//! acquires are right movers, releases left movers, each step of
//! atomicity `const`/`mover` a both-mover and each `atomic` step a
//! non-mover, and the path is atomic when it matches `R* N? L*`. For
//! structured code this computes what the rules compute (`S(l, a)` for a
//! `synchronized` block, sequential composition along a path, join at
//! merges, iterative closure around loops); the per-lockset results form
//! the method's conditional atomicity.
//!
//! Lock expressions ([`LockVar`]) are access paths rooted at `this`, a
//! parameter, a static field or a class literal, through fields; a call
//! instantiates the callee's with the receiver and arguments. `Local(p)`
//! is the paper's `thisThread` owner made a condition: "the object `p`
//! names is not shared" (true at a call site whose argument the points-to
//! analysis proves thread-local), under which every access to it moves.

use std::sync::Arc;

use lockstep_ir::{AccessPath, Body, Operand, StmtId, StmtKind, VarId};
use lockstep_models::{LockEffect, ThreadSafety};
use lockstep_pointsto::PointsToResult;
use lockstep_program::{EdgeKind, MethodId, Program};

use super::atomicity::{Atomicity, Basic, Subst, MAX_VARS};
use super::guards::{Guard, GuardLock, Guards};
use lockstep_facts::accesses::{self, Exempt, FieldTable, Kind, Target};
use lockstep_facts::local_locks;

/// Most lock variables one method's atomicity is computed over (each
/// doubles the evaluations of its body).
pub const TRANSFER_VARS: usize = 4;
const _: () = assert!(TRANSFER_VARS <= MAX_VARS);

/// A lock expression in some method's scope.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LockVar {
    /// The lock of the object the path names is held.
    Held(AccessPath),
    /// The object the path names is thread-local (`thisThread`).
    Local(AccessPath),
}

impl LockVar {
    pub fn describe(&self) -> String {
        match self {
            LockVar::Held(p) => p.to_string(),
            LockVar::Local(p) => format!("thisThread({p})"),
        }
    }
}

pub type Atom = Atomicity<LockVar>;

/// What an operation is, for messages.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpKind {
    Read(String),
    Write(String),
    /// A call, by `Class.method`.
    Call(String),
    Acquire(String),
    Release(String),
}

/// One operation of a witness; `inner` is the callee's own witness when
/// the window lies inside the called method.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Op {
    pub method: MethodId,
    pub stmt: StmtId,
    pub kind: OpKind,
    pub inner: Option<Arc<Witness>>,
}

/// Why a path is not atomic: the operation that opens the window and
/// the one after it that cannot be moved next to it. For `error`, the
/// access that breaks its field's locking discipline (both the same).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Witness {
    pub first: Op,
    pub second: Op,
    pub error: bool,
}

impl Witness {
    /// The innermost witness (where the window really is).
    pub fn innermost(self: &Arc<Self>) -> Arc<Witness> {
        let mut cur = self.clone();
        for _ in 0..32 {
            let next = match (&cur.first.inner, &cur.second.inner) {
                (Some(i), _) if cur.first.stmt == cur.second.stmt => i.clone(),
                _ => break,
            };
            cur = next;
        }
        cur
    }
}

/// A call to analysed code.
#[derive(Debug, Clone)]
pub struct CallSite {
    pub callees: Vec<MethodId>,
    /// The atomicity of the rest of the statement (JDK targets, the
    /// container access the call is).
    pub fixed: Atom,
    /// The receiver's path and whether its object is thread-local.
    pub this: Option<(AccessPath, bool)>,
    pub args: Vec<(AccessPath, bool)>,
    /// Paths of the locks this method holds at the call.
    pub held: Vec<AccessPath>,
    /// The caller is a constructor and the receiver is its `this`.
    pub ctor_this: bool,
}

#[derive(Debug, Clone)]
pub enum EventKind {
    Step(Atom),
    Call(CallSite),
    /// `lock` is the variable when the path is a lock expression;
    /// `local` says the method already holds it here (reentrant).
    Acquire {
        lock: Option<LockVar>,
        local: bool,
    },
    Release {
        lock: Option<LockVar>,
        local: bool,
    },
}

#[derive(Debug, Clone)]
pub struct Event {
    pub stmt: StmtId,
    pub kind: EventKind,
    pub op: OpKind,
}

/// The operations of one body, computed once.
pub struct Skeleton {
    pub method: MethodId,
    pub body: Arc<Body>,
    pub events: Vec<Event>,
    /// Per statement: its event.
    pub event_at: Vec<Option<u32>>,
    /// The lock of a `synchronized` method.
    pub sync_lock: Option<LockVar>,
    /// The control-flow graph reduced to what the reduction automaton
    /// reads, so that each of a method's many evaluations walks events,
    /// not statements.
    pub flow: Vec<FlowBlock>,
}

/// One basic block as the automaton sees it.
#[derive(Debug, Clone, Default)]
pub struct FlowBlock {
    /// Its events, in statement order.
    pub events: Vec<u32>,
    /// It ends the method (no successor, or a return or throw in it).
    pub exit: bool,
    /// Normal successors, then exceptional handlers, as in the body.
    pub succs: Vec<u32>,
}

/// The blocks of `body` with their events (`event_at` per statement).
fn flow_of(body: &Body, event_at: &[Option<u32>]) -> Vec<FlowBlock> {
    body.blocks
        .iter()
        .map(|block| {
            let mut out = FlowBlock {
                exit: block.succs.is_empty(),
                ..FlowBlock::default()
            };
            for s in block.stmt_ids() {
                if let Some(Some(e)) = event_at.get(s.index()) {
                    out.events.push(*e);
                }
                if let Some(stmt) = body.stmts.get(s.index()) {
                    if matches!(stmt.kind, StmtKind::Return(_) | StmtKind::Throw(_)) {
                        out.exit = true;
                    }
                }
            }
            out.succs = block
                .succs
                .iter()
                .chain(block.exceptional.iter().map(|e| &e.handler))
                .map(|b| b.index() as u32)
                .collect();
            out
        })
        .collect()
}

/// The result of evaluating a body.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The lock variables it was evaluated over (sorted).
    pub vars: Vec<LockVar>,
    pub atom: Atom,
    /// Per held-set mask over `vars`: why it is not atomic, if it is not.
    pub witnesses: Vec<Option<Arc<Witness>>>,
}

impl Summary {
    pub fn constant() -> Summary {
        Summary {
            vars: Vec::new(),
            atom: Atom::constant(),
            witnesses: vec![None],
        }
    }

    pub fn mask_of(&self, held: impl Fn(&LockVar) -> bool) -> usize {
        let mut mask = 0;
        for (i, v) in self.vars.iter().enumerate() {
            if held(v) {
                mask |= 1 << i;
            }
        }
        mask
    }

    pub fn eval_mask(&self, mask: usize) -> Basic {
        self.atom.eval(|v| {
            self.vars
                .iter()
                .position(|x| x == v)
                .is_some_and(|i| mask & (1 << i) != 0)
        })
    }
}

/// Does a path name a lock expression of the method's scope?
pub fn in_scope(p: &AccessPath) -> bool {
    match p {
        AccessPath::This
        | AccessPath::Param(..)
        | AccessPath::Static(..)
        | AccessPath::ClassLiteral(_) => true,
        AccessPath::Field(b, _) | AccessPath::OuterThis(b, _) => in_scope(b),
        _ => false,
    }
}

/// A callee path instantiated at a call site.
fn rebase(
    p: &AccessPath,
    this: Option<&AccessPath>,
    args: &[(AccessPath, bool)],
) -> Option<AccessPath> {
    match p {
        AccessPath::This => this.cloned(),
        AccessPath::Param(i, _) => args.get(*i as usize).map(|a| a.0.clone()),
        AccessPath::Static(..) | AccessPath::ClassLiteral(_) => Some(p.clone()),
        AccessPath::Field(b, n) => Some(AccessPath::Field(
            Arc::new(rebase(b, this, args)?),
            n.clone(),
        )),
        AccessPath::OuterThis(b, c) => Some(AccessPath::OuterThis(
            Arc::new(rebase(b, this, args)?),
            c.clone(),
        )),
        _ => None,
    }
}

/// A callee's lock variable seen from a call site.
pub fn subst_at(v: &LockVar, site: &CallSite) -> Subst<LockVar> {
    let this = site.this.as_ref().map(|t| &t.0);
    match v {
        LockVar::Held(p) => {
            let Some(q) = rebase(p, this, &site.args) else {
                return Subst::NotHeld;
            };
            if site.held.contains(&q) || (site.ctor_this && q == AccessPath::This) {
                Subst::Held
            } else if in_scope(&q) {
                Subst::Var(LockVar::Held(q))
            } else {
                Subst::NotHeld
            }
        }
        LockVar::Local(p) => {
            let (q, local) = match p {
                AccessPath::This => match &site.this {
                    Some((q, l)) => (q.clone(), *l || site.ctor_this),
                    None => return Subst::NotHeld,
                },
                AccessPath::Param(i, _) => match site.args.get(*i as usize) {
                    Some((q, l)) => (q.clone(), *l),
                    None => return Subst::NotHeld,
                },
                _ => return Subst::NotHeld,
            };
            if local {
                Subst::Held
            } else if matches!(q, AccessPath::This | AccessPath::Param(..)) {
                Subst::Var(LockVar::Local(q))
            } else {
                Subst::NotHeld
            }
        }
    }
}

/// Builds skeletons: the facts shared by every body.
pub struct Builder<'a> {
    pub program: &'a Program,
    pub pt: &'a PointsToResult,
    pub guards: &'a Guards,
    pub shared: &'a [bool],
    fields: FieldTable,
    /// Fields accessed on objects their creator has not handed out yet.
    pub owned_fields: std::collections::BTreeSet<super::guards::FieldName>,
    /// Fields holding thread-safe JDK objects, with the locks (relative to
    /// the object holding the field) that every call on them holds; `None`
    /// once some call holds none of them.
    owner_locks: rustc_hash::FxHashMap<super::guards::FieldName, Option<Vec<GuardLock>>>,
    /// Each body's local locks, computed once for both passes.
    body_locks: rustc_hash::FxHashMap<MethodId, Arc<local_locks::BodyLocks>>,
    /// [`lockstep_models::thread_safety_via`] per class: every JDK call
    /// asks the hierarchy about a dozen supertypes, and the answer of a
    /// loaded class never changes (the first ask loads what it did).
    safety: std::cell::RefCell<rustc_hash::FxHashMap<Arc<str>, Option<ThreadSafety>>>,
}

/// `held` relative to `holder`: the holder itself, one of its fields, a
/// static or a class literal.
fn relative_to(holder: &AccessPath, held: &AccessPath) -> Option<GuardLock> {
    match held {
        h if h == holder => Some(GuardLock::Itself),
        AccessPath::Field(b, g) if **b == *holder => Some(GuardLock::Field(g.clone())),
        AccessPath::Static(c, n) => Some(GuardLock::Static(c.clone(), n.clone())),
        AccessPath::ClassLiteral(c) => Some(GuardLock::Class(c.clone())),
        _ => None,
    }
}

impl<'a> Builder<'a> {
    pub fn new(
        program: &'a Program,
        pt: &'a PointsToResult,
        guards: &'a Guards,
        shared: &'a [bool],
    ) -> Self {
        Builder {
            program,
            pt,
            guards,
            shared,
            fields: FieldTable::default(),
            owned_fields: Default::default(),
            owner_locks: Default::default(),
            body_locks: Default::default(),
            safety: Default::default(),
        }
    }

    /// The thread safety of a class through its hierarchy, cached.
    fn thread_safety(&self, class: &Arc<str>) -> Option<ThreadSafety> {
        if let Some(&known) = self.safety.borrow().get(class) {
            return known;
        }
        let is_subtype = |a: &str, b: &str| self.program.is_subtype_name(a, b);
        let safety = lockstep_models::thread_safety_via(class, &is_subtype);
        self.safety.borrow_mut().insert(class.clone(), safety);
        safety
    }

    fn locks_of(&mut self, m: MethodId, body: &Body) -> Arc<local_locks::BodyLocks> {
        self.body_locks
            .entry(m)
            .or_insert_with(|| Arc::new(local_locks::analyse(self.program, body)))
            .clone()
    }

    /// The receiver of a call: the field it was loaded from and the path
    /// of the object holding that field (none for statics).
    fn receiver_holder(
        &mut self,
        body: &Body,
        call: &lockstep_ir::Call,
    ) -> Option<(super::guards::FieldName, Option<AccessPath>)> {
        let Some(Operand::Var(r)) = call.receiver.as_ref() else {
            return None;
        };
        let holder = accesses::holder_of(body, *r, &mut self.fields, self.program)?;
        let base = match body.access_path(*r) {
            AccessPath::Field(b, _) => Some(Arc::unwrap_or_clone(b)),
            _ => None,
        };
        Some((holder, base))
    }

    fn thread_safe_receiver(&self, call: &lockstep_ir::Call) -> bool {
        lockstep_models::is_jdk_class(&call.method.class)
            && matches!(
                self.thread_safety(&call.method.class),
                Some(
                    ThreadSafety::SelfSynchronized
                        | ThreadSafety::Atomic
                        | ThreadSafety::Concurrent
                )
            )
    }

    /// Pre-pass over every body: which fields hold thread-safe JDK objects
    /// that are only ever called holding a common lock of their owner (a
    /// pool's `Stack` used only in the pool's synchronized methods). Calls
    /// on those move: no other thread can call in between.
    pub fn scan_owner_locks(&mut self, methods: &[MethodId]) {
        for &m in methods {
            let Some(body) = self.program.body(m) else {
                continue;
            };
            let in_ctor = self.program.method(m).is_constructor();
            let locks = self.locks_of(m, &body);
            for (i, stmt) in body.stmts.iter().enumerate() {
                let StmtKind::Invoke { call, .. } = &stmt.kind else {
                    continue;
                };
                if &*call.method.name == "<init>" || !self.thread_safe_receiver(call) {
                    continue;
                }
                let Some((field, base)) = self.receiver_holder(&body, call) else {
                    continue;
                };
                // The constructor's object is not shared yet.
                if in_ctor && base == Some(AccessPath::This) {
                    continue;
                }
                let here: Vec<GuardLock> = locks
                    .at(StmtId(i as u32))
                    .iter()
                    .filter_map(|l| {
                        let p = l.path(&body);
                        match &base {
                            Some(b) => relative_to(b, &p),
                            None => relative_to(&AccessPath::Unknown, &p),
                        }
                    })
                    .collect();
                let slot = self
                    .owner_locks
                    .entry(field)
                    .or_insert_with(|| Some(here.clone()));
                if let Some(prev) = slot {
                    prev.retain(|l| here.contains(l));
                    if prev.is_empty() {
                        *slot = None;
                    }
                }
            }
        }
    }

    /// Is every object variable `v` may hold unshared (and is there one)?
    fn thread_local_var(&self, m: MethodId, v: VarId) -> bool {
        let set = self.pt.var(m, v);
        !set.is_empty()
            && set
                .iter()
                .all(|o| !self.shared.get(o.0 as usize).copied().unwrap_or(true))
    }

    fn operand_info(&self, m: MethodId, body: &Body, op: &Operand) -> (AccessPath, bool) {
        let path = body.operand_path(op);
        let local = match op {
            Operand::Var(v) => self.thread_local_var(m, *v),
            _ => false,
        };
        (path, local)
    }

    /// The path a guard names for an access whose object is `base`.
    fn guard_path(
        &self,
        lock: &GuardLock,
        base: Option<&AccessPath>,
        class: &str,
    ) -> Option<AccessPath> {
        match lock {
            GuardLock::Itself => base.cloned(),
            GuardLock::Field(g) => {
                let b = base?.clone();
                if g.starts_with("this$") {
                    let outer = self.field_descriptor(class, g).and_then(|d| {
                        d.strip_prefix('L')
                            .and_then(|x| x.strip_suffix(';'))
                            .map(Arc::<str>::from)
                    })?;
                    Some(AccessPath::OuterThis(Arc::new(b), outer))
                } else {
                    Some(AccessPath::Field(Arc::new(b), g.clone()))
                }
            }
            GuardLock::Static(c, n) => Some(AccessPath::Static(c.clone(), n.clone())),
            GuardLock::Class(c) => Some(AccessPath::ClassLiteral(c.clone())),
            GuardLock::Annotated(text) => {
                let t = text.trim();
                let t = t.strip_prefix("this.").unwrap_or(t);
                if t == "this" || t == "itself" {
                    return base.cloned();
                }
                if let Some(cls) = t.strip_suffix(".class") {
                    return Some(AccessPath::ClassLiteral(self.resolve_simple(cls, class)));
                }
                if let Some((cls, f)) = t.split_once('.') {
                    if !f.contains('.') && !f.contains('(') {
                        return Some(AccessPath::Static(
                            self.resolve_simple(cls, class),
                            Arc::from(f),
                        ));
                    }
                    return None;
                }
                if t.contains('(') {
                    return None;
                }
                let is_static = self
                    .program
                    .class_by_name(class)
                    .and_then(|c| {
                        self.program
                            .class(c)
                            .file
                            .fields
                            .iter()
                            .find(|f| f.name.as_ref() == t)
                            .map(|f| f.access_flags & lockstep_classfile::access::STATIC != 0)
                    })
                    .unwrap_or(false);
                if is_static {
                    Some(AccessPath::Static(Arc::from(class), Arc::from(t)))
                } else {
                    Some(AccessPath::Field(Arc::new(base?.clone()), Arc::from(t)))
                }
            }
        }
    }

    /// A simple class name in a `@GuardedBy`, resolved next to `class`.
    fn resolve_simple(&self, simple: &str, class: &str) -> Arc<str> {
        if lockstep_ir::simple_class_name(class) == simple {
            return Arc::from(class);
        }
        let package = class.rsplit_once('/').map(|(p, _)| p).unwrap_or("");
        let candidate = if package.is_empty() {
            simple.to_string()
        } else {
            format!("{package}/{simple}")
        };
        Arc::from(candidate.as_str())
    }

    fn field_descriptor(&self, class: &str, name: &str) -> Option<String> {
        let c = self.program.class_by_name(class)?;
        self.program
            .class(c)
            .file
            .fields
            .iter()
            .find(|f| f.name.as_ref() == name)
            .map(|f| f.descriptor.to_string())
    }

    /// The skeleton of an application method with a body.
    pub fn skeleton(&mut self, m: MethodId) -> Option<Skeleton> {
        let body = self.program.body(m)?;
        let data = self.program.method(m);
        let in_ctor = data.is_constructor();
        let locks = self.locks_of(m, &body);
        let held_paths =
            |s: StmtId| -> Vec<AccessPath> { locks.at(s).iter().map(|l| l.path(&body)).collect() };
        let (acc, exempt) = accesses::collect(self.program, m, &body, &mut self.fields);
        let mut step: Vec<Option<(Atom, OpKind)>> = vec![None; body.stmts.len()];
        let mut add = |s: StmtId, a: Atom, op: OpKind| {
            if let Some(slot) = step.get_mut(s.index()) {
                *slot = Some(match slot.take() {
                    None => (a, op),
                    Some((prev, prev_op)) => (prev.join(&a), prev_op),
                });
            }
        };
        let name_of = |t: &Target| -> String {
            match t {
                Target::Field { class, name } | Target::Static { class, name } => {
                    format!("{}.{}", lockstep_ir::simple_class_name(class), name)
                }
                Target::Element => "an array element".into(),
                Target::Container => "a collection".into(),
            }
        };
        let op_of = |t: &Target, k: Kind| match k {
            Kind::Read => OpKind::Read(name_of(t)),
            Kind::Write => OpKind::Write(name_of(t)),
        };
        for (_, t, _, why) in &exempt {
            if let (Exempt::Owned, Target::Field { class, name }) = (why, t) {
                self.owned_fields.insert((class.clone(), name.clone()));
            }
        }
        for (s, t, k, why) in &exempt {
            // A volatile field of an object no other thread can see yet
            // (the constructor's `this`, a thread-local object) moves.
            let unshared = || {
                let object = match body.stmts.get(s.index()).map(|x| &x.kind) {
                    Some(StmtKind::FieldStore { object, .. })
                    | Some(StmtKind::Assign {
                        value: lockstep_ir::Rvalue::FieldLoad { object, .. },
                        ..
                    }) => Some(object),
                    _ => None,
                };
                object.is_some_and(|o| {
                    (in_ctor && body.operand_path(o) == AccessPath::This)
                        || o.var().is_some_and(|v| self.thread_local_var(m, v))
                })
            };
            let a = match why {
                Exempt::Volatile if unshared() => Basic::Mover,
                Exempt::Volatile => Basic::Atomic,
                Exempt::Final if *k == Kind::Read => Basic::Const,
                _ => Basic::Mover,
            };
            add(*s, Atom::basic(a), op_of(t, *k));
        }
        for a in &acc {
            let held = held_paths(a.stmt);
            let base = a.base_path.clone();
            let local = a.base.is_some_and(|b| self.thread_local_var(m, b))
                || (in_ctor && matches!(base, Some(AccessPath::This)));
            if local {
                add(a.stmt, Atom::basic(Basic::Mover), op_of(&a.target, a.kind));
                continue;
            }
            let racy_step = |desc: Option<String>| -> Basic {
                // JLS 17.7: a racy read of a long or double may see half
                // of a write.
                if a.kind == Kind::Read && desc.as_deref().is_some_and(|d| d == "J" || d == "D") {
                    Basic::Cmpd
                } else {
                    Basic::Atomic
                }
            };
            let atom = match &a.target {
                Target::Field { class, name } | Target::Static { class, name } => {
                    let guard = self.guards.of(class, name).cloned();
                    let unguarded = || racy_step(self.field_descriptor(class, name));
                    let when = |lock: &GuardLock, otherwise: Basic| -> Atom {
                        match self.guard_path(lock, base.as_ref(), class) {
                            Some(p) if held.contains(&p) => Atom::basic(Basic::Mover),
                            Some(p) if in_scope(&p) => {
                                Atom::guarded(LockVar::Held(p), Basic::Mover, otherwise)
                            }
                            _ => Atom::basic(otherwise),
                        }
                    };
                    let racy = self.guards.racy_stmts.contains(&(m, a.stmt));
                    match guard {
                        Some(Guard::ReadOnly) => Atom::basic(if a.kind == Kind::Read {
                            Basic::Const
                        } else {
                            Basic::Mover
                        }),
                        // An inferred guard holds, by construction, at every
                        // access other threads see, whatever path names the
                        // lock: race-free accesses move, racing ones do not
                        // (slide 14). Only a declared guard can be broken.
                        Some(Guard::GuardedBy(GuardLock::Annotated(text))) => {
                            when(&GuardLock::Annotated(text), Basic::Error)
                        }
                        Some(Guard::ThisThread | Guard::Unique) => Atom::basic(Basic::Mover),
                        Some(Guard::Volatile) => Atom::basic(Basic::Atomic),
                        // A racing access under its field's (write) guard
                        // is still a mover when the caller or the method
                        // holds that lock: EPAJ's rule for guarded accesses.
                        Some(Guard::GuardedBy(l) | Guard::WriteGuardedBy(l)) if racy => {
                            when(&l, unguarded())
                        }
                        Some(_) | None => {
                            Atom::basic(if racy { unguarded() } else { Basic::Mover })
                        }
                    }
                }
                Target::Element | Target::Container => {
                    if self.guards.racy_stmts.contains(&(m, a.stmt)) {
                        Atom::basic(Basic::Atomic)
                    } else {
                        Atom::basic(Basic::Mover)
                    }
                }
            };
            // The object may be thread-local at some call sites.
            let atom = match &base {
                Some(p @ (AccessPath::This | AccessPath::Param(..)))
                    if atom.worst() > Basic::Mover =>
                {
                    Atom::cond(LockVar::Local(p.clone()), &Atom::basic(Basic::Mover), &atom)
                }
                _ => atom,
            };
            add(a.stmt, atom, op_of(&a.target, a.kind));
        }

        let mut events: Vec<Event> = Vec::new();
        let mut event_at: Vec<Option<u32>> = vec![None; body.stmts.len()];
        for (i, stmt) in body.stmts.iter().enumerate() {
            let s = StmtId(i as u32);
            let access = step.get_mut(i).and_then(Option::take);
            let held = held_paths(s);
            let lock_var = |p: &AccessPath| -> Option<LockVar> {
                in_scope(p).then(|| LockVar::Held(p.clone()))
            };
            let event = match &stmt.kind {
                StmtKind::MonitorEnter(op) => {
                    let p = body.operand_path(op);
                    Some(Event {
                        stmt: s,
                        op: OpKind::Acquire(p.to_string()),
                        kind: EventKind::Acquire {
                            lock: lock_var(&p),
                            local: held.contains(&p) || (in_ctor && p == AccessPath::This),
                        },
                    })
                }
                StmtKind::MonitorExit(op) => {
                    let p = body.operand_path(op);
                    let times = held.iter().filter(|h| **h == p).count();
                    Some(Event {
                        stmt: s,
                        op: OpKind::Release(p.to_string()),
                        kind: EventKind::Release {
                            lock: lock_var(&p),
                            local: times >= 2 || (in_ctor && p == AccessPath::This),
                        },
                    })
                }
                StmtKind::Invoke { call, .. } => {
                    self.call_event(m, &body, s, call, &held, in_ctor, access.clone())
                }
                StmtKind::InvokeDynamic { .. } => None,
                _ => None,
            };
            let event = match (event, access) {
                (Some(e), _) => Some(e),
                (None, Some((a, op))) => Some(Event {
                    stmt: s,
                    kind: EventKind::Step(a),
                    op,
                }),
                (None, None) => None,
            };
            if let Some(e) = event {
                // Steps that touch no mutable state need no event.
                if matches!(&e.kind, EventKind::Step(a) if a.worst() <= Basic::Const) {
                    continue;
                }
                event_at[i] = Some(events.len() as u32);
                events.push(e);
            }
        }
        let sync_lock = data.is_synchronized().then(|| {
            if body.is_static {
                LockVar::Held(AccessPath::ClassLiteral(body.class.clone()))
            } else {
                LockVar::Held(AccessPath::This)
            }
        });
        let flow = flow_of(&body, &event_at);
        Some(Skeleton {
            method: m,
            body,
            events,
            event_at,
            sync_lock,
            flow,
        })
    }

    /// The event of a call statement.
    #[allow(clippy::too_many_arguments)]
    fn call_event(
        &mut self,
        m: MethodId,
        body: &Body,
        s: StmtId,
        call: &lockstep_ir::Call,
        held: &[AccessPath],
        in_ctor: bool,
        access: Option<(Atom, OpKind)>,
    ) -> Option<Event> {
        let target = &call.method;
        let op = OpKind::Call(format!(
            "{}.{}",
            lockstep_ir::simple_class_name(&target.class),
            target.name
        ));
        // java.util.concurrent locks and monitor waits.
        // A lock wrapper's call (`lobManager.lock()`) is its inner call
        // on the receiver's field.
        let wrapped =
            lockstep_program::lock_call(self.program, body, call).filter(|l| l.is_wrapped());
        let effect = match &wrapped {
            Some(l) => Some(l.effect),
            None => lockstep_program::call_effect(self.program, target),
        };
        if let Some(effect) = effect {
            // `rw.readLock().lock()` is named by the read-write lock, as
            // the data-race analysis names it.
            let p = match (&wrapped, call.receiver.as_ref()) {
                (Some(l), _) => local_locks::call_lock_name(self.program, body, l).0,
                (None, Some(Operand::Var(r))) => local_locks::lock_name(self.program, body, *r).0,
                _ => AccessPath::Unknown,
            };
            let lock = in_scope(&p).then(|| LockVar::Held(p.clone()));
            return match effect {
                LockEffect::Lock(_)
                | LockEffect::LockedIfTrue(_)
                | LockEffect::LockedIfNonZero(_) => Some(Event {
                    stmt: s,
                    op: OpKind::Acquire(p.to_string()),
                    kind: EventKind::Acquire {
                        lock,
                        local: held.contains(&p),
                    },
                }),
                LockEffect::Unlock(_) => Some(Event {
                    stmt: s,
                    op: OpKind::Release(p.to_string()),
                    kind: EventKind::Release { lock, local: false },
                }),
                LockEffect::MonitorWait | LockEffect::ConditionAwait => Some(Event {
                    stmt: s,
                    op,
                    kind: EventKind::Step(Atom::basic(Basic::Atomic)),
                }),
                _ => None,
            };
        }
        let edges = self.pt.call_graph().callees_at(m, s);
        let mut callees: Vec<MethodId> = Vec::new();
        let mut fixed = access.map(|(a, _)| a).unwrap_or_else(Atom::constant);
        let mut jdk = edges.is_empty();
        for e in edges {
            if e.kind == EdgeKind::TaskLaunch {
                // A thread start (the paper's fork): one atomic step.
                fixed = fixed.join(&Atom::basic(Basic::Atomic));
                continue;
            }
            let cd = self.program.method(e.callee);
            if self.program.is_application(cd.class) {
                if !callees.contains(&e.callee) {
                    callees.push(e.callee);
                }
            } else {
                jdk = true;
            }
        }
        let this = call
            .receiver
            .as_ref()
            .map(|r| self.operand_info(m, body, r));
        if jdk && lockstep_models::is_jdk_class(&target.class) {
            let owned_by_lock = self.thread_safe_receiver(call)
                && self
                    .receiver_holder(body, call)
                    .and_then(|(f, _)| self.owner_locks.get(&f).cloned().flatten())
                    .is_some_and(|l| !l.is_empty());
            if !owned_by_lock {
                fixed = fixed.join(&self.jdk_call(call, this.as_ref(), held));
            }
        }
        callees.sort();
        if callees.is_empty() {
            if fixed.worst() <= Basic::Mover {
                return None;
            }
            return Some(Event {
                stmt: s,
                op,
                kind: EventKind::Step(fixed),
            });
        }
        let args: Vec<(AccessPath, bool)> = call
            .args
            .iter()
            .map(|a| self.operand_info(m, body, a))
            .collect();
        let ctor_this = in_ctor && matches!(this, Some((AccessPath::This, _)));
        Some(Event {
            stmt: s,
            op,
            kind: EventKind::Call(CallSite {
                callees,
                fixed,
                this,
                args,
                held: held.to_vec(),
                ctor_this,
            }),
        })
    }

    /// A call into the JDK: one atomic step on a thread-safe object
    /// (a mover when the caller holds a self-synchronized object's lock,
    /// or the object is thread-local); anything else is a mover (JDK
    /// state the program never reads back, or a container access, which
    /// is judged as an access).
    fn jdk_call(
        &self,
        call: &lockstep_ir::Call,
        this: Option<&(AccessPath, bool)>,
        held: &[AccessPath],
    ) -> Atom {
        let Some((path, local)) = this else {
            return Atom::basic(Basic::Mover);
        };
        // A constructor runs on an object no other thread has yet.
        if *local || &*call.method.name == "<init>" {
            return Atom::basic(Basic::Mover);
        }
        match self.thread_safety(&call.method.class) {
            Some(ThreadSafety::SelfSynchronized) => {
                if held.contains(path) {
                    Atom::basic(Basic::Mover)
                } else if in_scope(path) {
                    Atom::guarded(LockVar::Held(path.clone()), Basic::Mover, Basic::Atomic)
                } else {
                    Atom::basic(Basic::Atomic)
                }
            }
            Some(ThreadSafety::Atomic | ThreadSafety::Concurrent) => Atom::basic(Basic::Atomic),
            _ => Atom::basic(Basic::Mover),
        }
    }
}

/// How an event acts on the reduction pattern under one held set.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Move {
    Both(Basic),
    Right,
    Left,
    Non,
    Compound,
    Error,
}

fn classify(b: Basic) -> Move {
    match b {
        Basic::Const | Basic::Mover => Move::Both(b),
        Basic::Atomic => Move::Non,
        Basic::Cmpd => Move::Compound,
        Basic::Error => Move::Error,
    }
}

/// The reduction automaton's state on a path.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct State {
    /// Past the commit point (only left movers may follow).
    post: bool,
    worst: Basic,
    /// First event that is not a both-mover.
    opener: Option<u32>,
    /// The two events that could not be reduced.
    fail: Option<(u32, u32)>,
    /// The first event that broke its field's locking discipline.
    error: Option<u32>,
}

impl State {
    const START: State = State {
        post: false,
        worst: Basic::Const,
        opener: None,
        fail: None,
        error: None,
    };

    fn join(&self, o: &State) -> State {
        let min = |a: Option<u32>, b: Option<u32>| match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        };
        State {
            post: self.post || o.post,
            worst: self.worst.join(o.worst),
            opener: min(self.opener, o.opener),
            fail: match (self.fail, o.fail) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, None) => x,
                (None, y) => y,
            },
            error: min(self.error, o.error),
        }
    }

    fn step(&mut self, e: u32, mv: Move) {
        let fail = |st: &mut State, a: u32| {
            st.worst = st.worst.join(Basic::Cmpd);
            st.fail.get_or_insert((a, e));
        };
        match mv {
            Move::Both(b) => self.worst = self.worst.join(b),
            Move::Right | Move::Non => {
                if self.post {
                    let a = self.opener.unwrap_or(e);
                    fail(self, a);
                } else {
                    self.worst = self.worst.join(Basic::Atomic);
                    self.opener.get_or_insert(e);
                    if mv == Move::Non {
                        self.post = true;
                    }
                }
            }
            Move::Left => {
                self.worst = self.worst.join(Basic::Atomic);
                self.opener.get_or_insert(e);
                self.post = true;
            }
            Move::Compound => fail(self, e),
            Move::Error => {
                self.worst = Basic::Error;
                self.error.get_or_insert(e);
            }
        }
    }
}

/// What a call evaluates to, given the callees' summaries.
pub fn call_atom(site: &CallSite, summary: &dyn Fn(MethodId) -> Option<Arc<Summary>>) -> Atom {
    let mut acc = site.fixed.clone();
    for &c in &site.callees {
        let Some(s) = summary(c) else { continue };
        acc = acc.join(&s.atom.substitute(|v| subst_at(v, site)));
    }
    acc
}

/// The callee mask a caller's held set induces at a call site.
pub fn callee_mask(
    callee: &Summary,
    site: &CallSite,
    caller_held: &dyn Fn(&LockVar) -> bool,
) -> usize {
    callee.mask_of(|v| match subst_at(v, site) {
        Subst::Held => true,
        Subst::NotHeld => false,
        Subst::Var(w) => caller_held(&w),
    })
}

/// Evaluates a body (the transfer function `f_m`).
pub fn evaluate(sk: &Skeleton, summary: &dyn Fn(MethodId) -> Option<Arc<Summary>>) -> Summary {
    // Each event's atomicity in the method's lock variables.
    let atoms: Vec<Option<Atom>> = sk
        .events
        .iter()
        .map(|e| match &e.kind {
            EventKind::Step(a) => Some(a.clone()),
            EventKind::Call(site) => Some(call_atom(site, summary)),
            _ => None,
        })
        .collect();
    let mut vars: Vec<LockVar> = Vec::new();
    for (e, a) in sk.events.iter().zip(&atoms) {
        if let Some(a) = a {
            vars.extend(a.vars().iter().cloned());
        }
        if let EventKind::Acquire {
            lock: Some(l),
            local: false,
        }
        | EventKind::Release {
            lock: Some(l),
            local: false,
        } = &e.kind
        {
            vars.push(l.clone());
        }
    }
    vars.sort();
    vars.dedup();
    vars.truncate(TRANSFER_VARS);
    let n = 1usize << vars.len();
    let mut table = Vec::with_capacity(n);
    let mut witnesses = Vec::with_capacity(n);
    for mask in 0..n {
        let held = |v: &LockVar| {
            vars.iter()
                .position(|x| x == v)
                .is_some_and(|i| mask & (1 << i) != 0)
        };
        let moves: Vec<Move> = sk
            .events
            .iter()
            .zip(&atoms)
            .map(|(e, a)| match (&e.kind, a) {
                (EventKind::Acquire { lock, local }, _) => {
                    if *local || lock.as_ref().is_some_and(held) {
                        Move::Both(Basic::Mover)
                    } else {
                        Move::Right
                    }
                }
                (EventKind::Release { lock, local }, _) => {
                    if *local || lock.as_ref().is_some_and(held) {
                        Move::Both(Basic::Mover)
                    } else {
                        Move::Left
                    }
                }
                (_, Some(a)) => classify(a.eval(held)),
                (_, None) => Move::Both(Basic::Mover),
            })
            .collect();
        let end = run(sk, &moves);
        table.push(end.worst);
        let pair = match (end.worst, end.error) {
            (Basic::Error, Some(e)) => Some((e, e, true)),
            _ => end.fail.map(|(a, b)| (a, b, false)),
        };
        witnesses.push(if end.worst.is_atomic() {
            None
        } else {
            pair.map(|(a, b, error)| Arc::new(witness(sk, a, b, error, &held, summary)))
        });
    }
    let mut atom = Atom::from_table(vars.clone(), table);
    if let Some(l) = &sk.sync_lock {
        atom = atom.sync(l.clone());
    }
    Summary {
        vars,
        atom,
        witnesses,
    }
}

fn witness(
    sk: &Skeleton,
    a: u32,
    b: u32,
    error: bool,
    held: &dyn Fn(&LockVar) -> bool,
    summary: &dyn Fn(MethodId) -> Option<Arc<Summary>>,
) -> Witness {
    let op = |i: u32| -> Op {
        let e = &sk.events[i as usize];
        let inner = match &e.kind {
            EventKind::Call(site) => site.callees.iter().find_map(|&c| {
                let s = summary(c)?;
                let mask = callee_mask(&s, site, held);
                s.witnesses.get(mask).cloned().flatten()
            }),
            _ => None,
        };
        Op {
            method: sk.method,
            stmt: e.stmt,
            kind: e.op.clone(),
            inner,
        }
    };
    Witness {
        first: op(a),
        second: op(b),
        error,
    }
}

/// Runs the automaton over the control-flow graph; the join of the
/// states at every exit.
fn run(sk: &Skeleton, moves: &[Move]) -> State {
    let flow = &sk.flow;
    let nb = flow.len();
    if nb == 0 {
        return State::START;
    }
    let mut input: Vec<Option<State>> = vec![None; nb];
    input[0] = Some(State::START);
    let mut work: Vec<usize> = vec![0];
    let mut queued = vec![false; nb];
    queued[0] = true;
    let mut exit: Option<State> = None;
    let mut steps = 0usize;
    let limit = 64 * (nb + 8);
    while let Some(b) = work.pop() {
        queued[b] = false;
        steps += 1;
        if steps > limit {
            // Give up soundly: not atomic.
            let mut st = exit.unwrap_or(State::START);
            st.worst = st.worst.join(Basic::Cmpd);
            return st;
        }
        let Some(mut st) = input[b] else { continue };
        let block = &flow[b];
        for &e in &block.events {
            if let Some(mv) = moves.get(e as usize) {
                st.step(e, *mv);
            }
        }
        if block.exit {
            exit = Some(match exit {
                None => st,
                Some(x) => x.join(&st),
            });
        }
        for &succ in &block.succs {
            let i = succ as usize;
            let Some(slot) = input.get_mut(i) else {
                continue;
            };
            let new = match slot {
                None => st,
                Some(old) => old.join(&st),
            };
            if *slot != Some(new) {
                *slot = Some(new);
                if !queued[i] {
                    queued[i] = true;
                    work.push(i);
                }
            }
        }
    }
    exit.unwrap_or(State::START)
}
