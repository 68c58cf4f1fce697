//! Once-gates: a boolean flag tested and set under a lock, with an early
//! exit when it is already set, lets at most one thread past the gate.
//!
//! ```java
//! synchronized (this) {
//!     if (closing) return;   // the test, under the lock
//!     closing = true;        // the set, still under the same lock
//! }
//! systemSession = null;      // past the gate: one thread per object
//! ```
//!
//! h2's `Database.closeImpl` is written this way; the path-insensitive
//! pair search saw the writes after the gate race with themselves in two
//! closer threads. The statements of a method past such a gate run at most
//! once per receiver (an instance flag of `this` under `synchronized
//! (this)`) or at most once in the program (a static flag under a class
//! lock), provided the flag never goes back to `false`: no application
//! code stores anything but `true` into it, except constructors and static
//! initializers, and the gate itself while it still holds the lock since
//! its test (h2 clears `closing` for an event listener and sets it again
//! before leaving the block).
//!
//! Per method, a forward must-analysis over the CFG tracks one flag: the
//! variables holding its value loaded under the lock, the branch on which
//! it was `false`, the store of `true` while the lock is still held, and
//! the release of that lock (the gate is passed). A store of another value
//! after the gate closes it again. Two accesses of one gate's statements
//! past the gate do not race: for an instance gate only accesses of the
//! receiver's own fields (their base is `this`), for a static gate any.
//!
//! The same holds for a claim on an `AtomicBoolean` field, with no lock:
//!
//! ```java
//! if (!started.compareAndSet(false, true)) return;   // or: if (started.getAndSet(true)) return;
//! receiver = new Thread(this); receiver.start();     // past the gate: one thread per object
//! ```
//!
//! and a claim the other way (`closed`/`open` as `compareAndSet(true,
//! false)`), provided the field holds one `AtomicBoolean` for the
//! object's life (stored only by constructors and static initializers)
//! and no application code moves it back: every use of a value loaded
//! from the field outside constructors is a read, a claim to the same
//! value or a store of it (`lockstep_models::atomics::keeps_boolean_claim`);
//! any other use, a store of the other value or the object passed on,
//! drops the gate.
//!
//! Known limits: the lock must be `this` (instance flags) or a class
//! literal (static flags); a callee that `wait`s on the lock between the
//! test and the set would open the gate (none is looked for); the
//! methods a gate calls are covered only when every in-program call of
//! them is made from past that one gate, on its own object
//! ([`Gates::extend_to_callees`]): a helper also called elsewhere, or
//! called on another object, is not.

use std::sync::Arc;

use lockstep_ir::{
    AccessPath, Body, Cond, ConstValue, MemberRef, MonitorId, Operand, Rvalue, StmtId, StmtKind,
    VarId,
};
use lockstep_program::{MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

use lockstep_models::atomics::{boolean_claim, is_atomic_boolean_field, keeps_boolean_claim};

use crate::block_solver::{self, Forward, HandlerSees};

/// A boolean flag: declaring class, name, static or not.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Flag {
    pub class: Arc<str>,
    pub name: Arc<str>,
    pub is_static: bool,
    /// An `AtomicBoolean` field claimed by a call, not a `boolean` under a
    /// lock: the value the claim moves it to.
    pub atomic: Option<bool>,
}

/// Where a path stands with respect to the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    /// No gate on this path (yet).
    Open,
    /// The flag was seen `false` under the lock, still held since.
    SeenFalse,
    /// ... and set to `true`, the lock still held.
    Set,
    /// ... and the lock released: past the gate.
    Past,
}

/// The state before a statement on every path (a must-analysis).
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    phase: Phase,
    flag: Option<Flag>,
    /// The region whose lock guards the test and the set.
    region: Option<MonitorId>,
    /// Variables holding the flag's value loaded under that lock (for an
    /// atomic flag: the `AtomicBoolean` loaded from the field).
    flag_vars: Vec<VarId>,
    /// Variables holding the result of a claim on an atomic flag, with the
    /// result that means the claim was won.
    claim_vars: Vec<(VarId, bool)>,
}

impl State {
    fn open() -> State {
        State {
            phase: Phase::Open,
            flag: None,
            region: None,
            flag_vars: Vec::new(),
            claim_vars: Vec::new(),
        }
    }

    /// The meet of two paths: the weaker phase, and only what both agree on.
    fn meet(&self, other: &State) -> State {
        if self.flag != other.flag || self.region != other.region {
            return State::open();
        }
        State {
            phase: self.phase.min(other.phase),
            flag: self.flag.clone(),
            region: self.region,
            flag_vars: self
                .flag_vars
                .iter()
                .copied()
                .filter(|v| other.flag_vars.contains(v))
                .collect(),
            claim_vars: self
                .claim_vars
                .iter()
                .copied()
                .filter(|v| other.claim_vars.contains(v))
                .collect(),
        }
    }
}

/// One method's gate: its flag and the statements past it.
#[derive(Debug, Clone)]
pub struct MethodGate {
    pub flag: Flag,
    pub past: FxHashSet<StmtId>,
    /// Statements that store something other than `true` into the flag
    /// while the gate's lock is held since the test (they keep the gate).
    pub inner_resets: FxHashSet<StmtId>,
}

/// The once-gates of the program, per method.
#[derive(Debug, Default)]
pub struct Gates {
    by_method: FxHashMap<MethodId, MethodGate>,
    /// Methods run only from past a gate, on the gate method's receiver
    /// (for a static gate, on any): the gate's method, per callee.
    callees: FxHashMap<MethodId, MethodId>,
}

impl Gates {
    /// The gate `stmt` of `method` is past, if any: `(gate id, is_static)`
    /// with the gate id the method's.
    pub fn past(&self, method: MethodId, stmt: StmtId) -> Option<&MethodGate> {
        self.by_method
            .get(&method)
            .filter(|g| g.past.contains(&stmt))
    }

    /// The gate `stmt` of `method` runs past, directly or because every
    /// call of `method` is made from past it ([`Self::extend_to_callees`]):
    /// the gate's method (its identity) and the gate.
    pub fn gate_of(&self, method: MethodId, stmt: StmtId) -> Option<(MethodId, &MethodGate)> {
        if let Some(g) = self.past(method, stmt) {
            return Some((method, g));
        }
        let gate = *self.callees.get(&method)?;
        self.by_method.get(&gate).map(|g| (gate, g))
    }

    /// Extends the gates to the methods they call: a method all of whose
    /// in-program calls are made from past one gate, on the gate method's
    /// own receiver (or from a method already so extended, on its
    /// receiver), runs past that gate too, on the same object. Calls on
    /// `this` keep the object; for a static gate any call does. Methods a
    /// thread root enters (thread bodies, the harness's entries, `main`),
    /// constructors and static initializers are never extended: something
    /// outside the gate runs them. A least fixpoint, so recursion among the
    /// callees leaves them out.
    pub fn extend_to_callees(
        &mut self,
        program: &Program,
        calls: &[(MethodId, StmtId, MethodId)],
        entered: &FxHashSet<MethodId>,
    ) {
        if self.by_method.is_empty() {
            return;
        }
        let mut sites: FxHashMap<MethodId, Vec<(MethodId, StmtId)>> = FxHashMap::default();
        for &(caller, s, callee) in calls {
            sites.entry(callee).or_default().push((caller, s));
        }
        let mut candidates: Vec<MethodId> = sites
            .keys()
            .copied()
            .filter(|m| !entered.contains(m) && !self.by_method.contains_key(m))
            .filter(|&m| {
                let d = program.method(m);
                !d.is_constructor() && !d.is_class_initializer() && program.is_application(d.class)
            })
            .collect();
        candidates.sort_unstable();
        loop {
            let mut changed = false;
            for &m in &candidates {
                if self.callees.contains_key(&m) {
                    continue;
                }
                if let Some(gate) =
                    self.common_gate(program, sites.get(&m).map_or(&[][..], Vec::as_slice))
                {
                    self.callees.insert(m, gate);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// The one gate every call site in `sites` is past with a receiver
    /// that keeps the gate's object, if there is one.
    fn common_gate(&self, program: &Program, sites: &[(MethodId, StmtId)]) -> Option<MethodId> {
        let mut common = None;
        for &(caller, s) in sites {
            let (gate, g) = self.gate_of(caller, s)?;
            let body = program.body(caller)?;
            if !g.flag.is_static && !calls_on_receiver(&body, s) {
                return None;
            }
            if common.is_some_and(|c| c != gate) {
                return None;
            }
            common = Some(gate);
        }
        common
    }

    pub fn is_empty(&self) -> bool {
        self.by_method.is_empty()
    }
}

/// The gates of `methods` (application methods with bodies), with those
/// whose flag some other code may reset dropped.
pub fn find(program: &Program, methods: &[MethodId]) -> Gates {
    let mut by_method = FxHashMap::default();
    for &m in methods {
        let Some(body) = program.body(m) else {
            continue;
        };
        if body.monitors.is_empty() && !loads_atomic_flag(&body) {
            continue;
        }
        if let Some(g) = method_gate(&body) {
            by_method.insert(m, g);
        }
    }
    if by_method.is_empty() {
        return Gates::default();
    }
    let flags: FxHashSet<Flag> = by_method.values().map(|g| g.flag.clone()).collect();
    let mut reset = reset_flags(program, &flags, &by_method);
    reset.extend(reset_atomic_flags(program, &flags));
    by_method.retain(|_, g| !reset.contains(&g.flag));
    Gates {
        by_method,
        callees: FxHashMap::default(),
    }
}

/// Is the call at `s` made on the caller's own receiver?
fn calls_on_receiver(body: &Body, s: StmtId) -> bool {
    match body.stmts.get(s.index()).map(|st| &st.kind) {
        Some(StmtKind::Invoke { call, .. }) => call
            .receiver
            .as_ref()
            .and_then(Operand::var)
            .is_some_and(|v| is_receiver(body, v)),
        _ => false,
    }
}

/// The flags some application code stores a value other than `true`
/// into, outside constructors, static initializers and the gates' own
/// locked blocks.
fn reset_flags(
    program: &Program,
    flags: &FxHashSet<Flag>,
    gates: &FxHashMap<MethodId, MethodGate>,
) -> FxHashSet<Flag> {
    let mut reset = FxHashSet::default();
    for (m, body) in bodies_outside_initializers(program) {
        for (i, stmt) in body.stmts.iter().enumerate() {
            let Some((flag, value)) = flag_store(&stmt.kind) else {
                continue;
            };
            if !flags.contains(&flag) || is_true(value) {
                continue;
            }
            let kept = gates
                .get(&m)
                .is_some_and(|g| g.flag == flag && g.inner_resets.contains(&StmtId(i as u32)));
            if !kept {
                reset.insert(flag);
            }
        }
    }
    reset
}

/// The bodies of application methods other than constructors and static
/// initializers (where a flag may be set up freely before the object or
/// class is in use).
fn bodies_outside_initializers(
    program: &Program,
) -> impl Iterator<Item = (MethodId, Arc<Body>)> + '_ {
    program.application_classes().flat_map(move |c| {
        program.class(c).methods.iter().filter_map(move |&m| {
            let data = program.method(m);
            if data.is_constructor() || data.is_class_initializer() {
                return None;
            }
            program.body(m).map(|b| (m, b))
        })
    })
}

/// A store into a boolean field: the flag and the stored value.
fn flag_store(kind: &StmtKind) -> Option<(Flag, &Operand)> {
    match kind {
        StmtKind::FieldStore { field, value, .. } if is_boolean(field) => {
            Some((flag_of(field, false), value))
        }
        StmtKind::StaticStore { field, value } if is_boolean(field) => {
            Some((flag_of(field, true), value))
        }
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
        atomic: None,
    }
}

/// The atomic flag a load reads (of `this` for an instance field), if it
/// loads an `AtomicBoolean` field.
fn atomic_flag_load(body: &Body, value: &Rvalue) -> Option<Flag> {
    let (field, is_static) = match value {
        Rvalue::FieldLoad {
            object: Operand::Var(o),
            field,
        } if is_receiver(body, *o) => (field, false),
        Rvalue::StaticLoad(field) => (field, true),
        _ => return None,
    };
    // The direction is not known until the claim ([`step`]).
    is_atomic_boolean_field(&field.descriptor).then(|| Flag {
        atomic: Some(true),
        ..flag_of(field, is_static)
    })
}

/// Does the body load an `AtomicBoolean` field of `this` or a static one?
fn loads_atomic_flag(body: &Body) -> bool {
    body.stmts.iter().any(|st| match &st.kind {
        StmtKind::Assign { value, .. } => atomic_flag_load(body, value).is_some(),
        _ => false,
    })
}

/// The integer constants of a call's arguments (`None`: not a constant).
fn const_args(args: &[Operand]) -> Vec<Option<i32>> {
    args.iter()
        .map(|a| match a {
            Operand::Const(ConstValue::Int(i)) => Some(*i),
            _ => None,
        })
        .collect()
}

/// The atomic flags that application code outside constructors and
/// static initializers may set back to `false`: it stores another object
/// into the field, calls something on a loaded value that does not keep
/// a `false` → `true` flag, or lets the loaded value go elsewhere.
fn reset_atomic_flags(program: &Program, flags: &FxHashSet<Flag>) -> FxHashSet<Flag> {
    let mut atomic: FieldDirections = FxHashMap::default();
    for f in flags {
        if let Some(to) = f.atomic {
            let key = (f.class.clone(), f.name.clone(), f.is_static);
            atomic.entry(key).or_default().push(to);
        }
    }
    let mut reset = FxHashSet::default();
    if atomic.is_empty() {
        return reset;
    }
    for (_, body) in bodies_outside_initializers(program) {
        reset_in_body(&body, &atomic, &mut reset);
    }
    reset
}

/// Per atomic flag field (class, name, static): the values its claims
/// move it to.
type FieldDirections = FxHashMap<(Arc<str>, Arc<str>, bool), Vec<bool>>;

/// The flags of one field, one per direction its claims take.
fn flags_of(atomic: &FieldDirections, field: &MemberRef, is_static: bool) -> Vec<Flag> {
    let key = (field.class.clone(), field.name.clone(), is_static);
    atomic.get(&key).map_or_else(Vec::new, |dirs| {
        dirs.iter()
            .map(|&to| Flag {
                atomic: Some(to),
                ..flag_of(field, is_static)
            })
            .collect()
    })
}

/// [`reset_atomic_flags`] for one body.
fn reset_in_body(body: &Body, atomic: &FieldDirections, reset: &mut FxHashSet<Flag>) {
    let mut loaded: FxHashMap<VarId, Vec<Flag>> = FxHashMap::default();
    for st in &body.stmts {
        match &st.kind {
            StmtKind::Assign {
                dst,
                value: Rvalue::FieldLoad { field, .. },
            } => {
                let fs = flags_of(atomic, field, false);
                if !fs.is_empty() {
                    loaded.insert(*dst, fs);
                }
            }
            StmtKind::Assign {
                dst,
                value: Rvalue::StaticLoad(field),
            } => {
                let fs = flags_of(atomic, field, true);
                if !fs.is_empty() {
                    loaded.insert(*dst, fs);
                }
            }
            StmtKind::FieldStore { field, .. } => reset.extend(flags_of(atomic, field, false)),
            StmtKind::StaticStore { field, .. } => reset.extend(flags_of(atomic, field, true)),
            _ => {}
        }
    }
    if loaded.is_empty() {
        return;
    }
    let escape = |v: VarId, reset: &mut FxHashSet<Flag>| {
        if let Some(fs) = loaded.get(&v) {
            reset.extend(fs.iter().cloned());
        }
    };
    for st in &body.stmts {
        let StmtKind::Invoke { call, .. } = &st.kind else {
            st.kind.for_each_use(|v| escape(v, reset));
            continue;
        };
        let receiver = call.receiver.as_ref().and_then(Operand::var);
        if let Some(fs) = receiver.and_then(|v| loaded.get(&v)) {
            let args = const_args(&call.args);
            for f in fs {
                let to = f.atomic.unwrap_or(true);
                if !keeps_boolean_claim(&call.method.class, &call.method.name, &args, to) {
                    reset.insert(f.clone());
                }
            }
        }
        for a in call.args.iter().filter_map(Operand::var) {
            escape(a, reset);
        }
    }
}

fn is_true(value: &Operand) -> bool {
    matches!(value, Operand::Const(ConstValue::Int(1)))
}

/// The gate of one body, if a path passes one.
fn method_gate(body: &Body) -> Option<MethodGate> {
    let before = solve(body)?;
    let mut past = FxHashSet::default();
    let mut inner_resets = FxHashSet::default();
    let mut flag = None;
    for (i, st) in before.iter().enumerate() {
        let Some(st) = st else { continue };
        let s = StmtId(i as u32);
        if st.phase == Phase::Past {
            past.insert(s);
            flag = flag.or_else(|| st.flag.clone());
        }
        if matches!(st.phase, Phase::SeenFalse | Phase::Set) {
            if let Some((f, value)) = body.stmts.get(i).and_then(|x| flag_store(&x.kind)) {
                if Some(&f) == st.flag.as_ref() && !is_true(value) {
                    inner_resets.insert(s);
                }
            }
        }
    }
    let flag = flag?;
    // Only one flag per method: statements past another flag's gate are
    // not kept (rare; the first wins, in statement order).
    past.retain(|s| {
        before
            .get(s.index())
            .and_then(|st| st.as_ref())
            .is_some_and(|st| st.flag.as_ref() == Some(&flag))
    });
    Some(MethodGate {
        flag,
        past,
        inner_resets,
    })
}

/// The analysis of one body for [`block_solver::solve`]: whether a block
/// ever ended with a gate open is noted on the way.
struct GateFlow<'b> {
    body: &'b Body,
    any_gate: bool,
}

impl Forward for GateFlow<'_> {
    type State = State;

    fn meet_into(&self, into: &mut State, from: &State) -> bool {
        let met = into.meet(from);
        crate::block_solver::replace_if_changed(into, met)
    }

    fn step(&mut self, s: StmtId, st: &mut State) {
        step(self.body, s, st);
    }

    fn edge(&mut self, block: usize, succ: usize, st: &State) -> Option<State> {
        let b = self.body.blocks.get(block)?;
        let last = (b.first.0 < b.end.0).then(|| StmtId(b.end.0 - 1));
        Some(branch(self.body, last, succ, st))
    }

    fn after_block(&mut self, _block: usize, st: &State) {
        self.any_gate |= st.phase != Phase::Open;
    }
}

/// The state before every statement (`None`: unreachable), or `None`
/// when no statement is past a gate's test.
fn solve(body: &Body) -> Option<Vec<Option<State>>> {
    let nb = body.blocks.len();
    if nb == 0 {
        return None;
    }
    let mut flow = GateFlow {
        body,
        any_gate: false,
    };
    let at_entry = block_solver::solve(
        body,
        &mut flow,
        State::open(),
        HandlerSees::BeforeEach,
        nb.saturating_mul(16),
    )?;
    if !flow.any_gate {
        return None;
    }
    let mut before: Vec<Option<State>> = vec![None; body.stmts.len()];
    for (b, entry) in at_entry.iter().enumerate() {
        let Some(mut st) = entry.clone() else {
            continue;
        };
        let block = &body.blocks[b];
        for s in block.first.0..block.end.0 {
            if let Some(slot) = before.get_mut(s as usize) {
                *slot = Some(st.clone());
            }
            step(body, StmtId(s), &mut st);
        }
    }
    Some(before)
}

/// The state on the edge to block `succ`: a branch on the flag's value
/// tells on which edge it was `false`.
fn branch(body: &Body, last: Option<StmtId>, succ: usize, st: &State) -> State {
    let Some(StmtKind::If {
        cond,
        lhs: Operand::Var(v),
        rhs: Operand::Const(ConstValue::Int(0)),
        target,
    }) = last
        .and_then(|s| body.stmts.get(s.index()))
        .map(|s| &s.kind)
    else {
        return st.clone();
    };
    if st.phase != Phase::Open {
        return st.clone();
    }
    let taken = target.index() == succ;
    if let Some(&(_, won)) = st.claim_vars.iter().find(|(c, _)| c == v) {
        // The result is compared with zero (`false`): on which edge is it `true`?
        let result_true = match cond {
            Cond::Ne => taken,
            Cond::Eq => !taken,
            _ => return st.clone(),
        };
        let mut out = st.clone();
        if result_true == won {
            out.phase = Phase::Past;
            out.flag_vars.clear();
            out.claim_vars.clear();
        }
        return out;
    }
    if !st.flag_vars.contains(v) || st.flag.as_ref().is_some_and(|f| f.atomic.is_some()) {
        return st.clone();
    }
    let flag_false = match cond {
        Cond::Eq => taken,
        Cond::Ne => !taken,
        _ => false,
    };
    let mut out = st.clone();
    if flag_false {
        out.phase = Phase::SeenFalse;
    }
    out
}

/// The effect of one statement.
fn step(body: &Body, s: StmtId, st: &mut State) {
    let Some(stmt) = body.stmts.get(s.index()) else {
        return;
    };
    match &stmt.kind {
        StmtKind::Assign { dst, value } => {
            st.flag_vars.retain(|v| v != dst);
            st.claim_vars.retain(|(v, _)| v != dst);
            if st.phase == Phase::Open {
                if let Some(flag) = atomic_flag_load(body, value) {
                    if st.flag.as_ref() != Some(&flag) {
                        st.flag = Some(flag);
                        st.region = None;
                        st.flag_vars.clear();
                        st.claim_vars.clear();
                    }
                    st.flag_vars.push(*dst);
                    return;
                }
                if let Some((flag, region)) = flag_load(body, s, value) {
                    if st.flag.as_ref() != Some(&flag) || st.region != Some(region) {
                        st.flag = Some(flag);
                        st.region = Some(region);
                        st.flag_vars.clear();
                    }
                    st.flag_vars.push(*dst);
                }
            }
        }
        StmtKind::FieldStore { .. } | StmtKind::StaticStore { .. } => {
            let Some((flag, value)) = flag_store(&stmt.kind) else {
                return;
            };
            if st.flag.as_ref() != Some(&flag) || !store_on_receiver(body, &stmt.kind) {
                return;
            }
            st.phase = match (st.phase, is_true(value)) {
                (Phase::SeenFalse | Phase::Set, true) if holds(body, s, st.region) => Phase::Set,
                (Phase::SeenFalse | Phase::Set, false) => Phase::SeenFalse,
                (Phase::Past, false) => Phase::Open,
                (p, _) => p,
            };
        }
        StmtKind::Invoke {
            result: Some(r),
            call,
        } => {
            st.flag_vars.retain(|v| v != r);
            st.claim_vars.retain(|(v, _)| v != r);
            let on_flag = call
                .receiver
                .as_ref()
                .and_then(Operand::var)
                .is_some_and(|v| st.flag_vars.contains(&v));
            if st.phase == Phase::Open
                && on_flag
                && st.flag.as_ref().is_some_and(|f| f.atomic.is_some())
            {
                let args = const_args(&call.args);
                if let Some((won, to)) = boolean_claim(&call.method.class, &call.method.name, &args)
                {
                    st.claim_vars.push((*r, won));
                    if let Some(f) = st.flag.as_mut() {
                        f.atomic = Some(to);
                    }
                }
            }
        }
        StmtKind::MonitorExit(_) if releases(body, s, st.region) => {
            st.phase = match st.phase {
                Phase::Set => Phase::Past,
                Phase::SeenFalse => Phase::Open,
                p => p,
            };
            st.flag_vars.clear();
        }
        _ => {}
    }
}

/// A load of a boolean flag under a lock that fits it: an instance field
/// of `this` under `synchronized (this)`, a static field under a class
/// literal's lock. The flag and the region.
fn flag_load(body: &Body, s: StmtId, value: &Rvalue) -> Option<(Flag, MonitorId)> {
    let flag = match value {
        Rvalue::FieldLoad {
            object: Operand::Var(o),
            field,
        } if is_boolean(field) && is_receiver(body, *o) => flag_of(field, false),
        Rvalue::StaticLoad(field) if is_boolean(field) => flag_of(field, true),
        _ => return None,
    };
    let region = body.regions_held_before(s).into_iter().find(|&r| {
        body.monitors.get(r.index()).is_some_and(|m| {
            m.enter.is_some()
                && matches!(
                    (&m.lock, flag.is_static),
                    (AccessPath::This, false) | (AccessPath::ClassLiteral(_), true)
                )
        })
    })?;
    Some((flag, region))
}

/// Is the store's object the receiver (always, for a static)?
fn store_on_receiver(body: &Body, kind: &StmtKind) -> bool {
    match kind {
        StmtKind::FieldStore {
            object: Operand::Var(o),
            ..
        } => is_receiver(body, *o),
        StmtKind::StaticStore { .. } => true,
        _ => false,
    }
}

/// Is `v` the method's receiver (`this`, never reassigned: def-use webs
/// give a reassigned slot another variable)?
pub(crate) fn is_receiver(body: &Body, v: VarId) -> bool {
    !body.is_static && body.params.first() == Some(&v)
}

/// Is `region`'s lock held before `s`?
fn holds(body: &Body, s: StmtId, region: Option<MonitorId>) -> bool {
    region.is_some_and(|r| body.regions_held_before(s).contains(&r))
}

/// Does `s` release `region`?
pub(crate) fn releases(body: &Body, s: StmtId, region: Option<MonitorId>) -> bool {
    region.is_some_and(|r| {
        body.monitors
            .get(r.index())
            .is_some_and(|m| m.exits.contains(&s))
    })
}
