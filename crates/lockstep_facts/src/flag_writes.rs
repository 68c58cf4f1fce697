//! Writes of the state fields [`crate::field_states`] follows, and whether
//! each is made under its writer's own monitor.
//!
//! ```java
//! synchronized (this) {                  // the connection's monitor ...
//!     if (closed.get()) return;
//!     closing.set(true);                 // ... held at every write of `closing`
//!     for (Session s : sessions) s.dispose();   // → ... → getScheduler():
//! }                                      //    if (isClosing()) throw ...;
//! ```
//!
//! A flag every write of which (outside its object's constructors) stores
//! into the writer's own field while it holds its own monitor cannot be
//! changed by another thread while a thread that wrote it still holds
//! that monitor: the value the thread stored is the value it reads there
//! (ActiveMQ 5.17.2's `ActiveMQConnection.close` sets `closing` before it
//! disposes its sessions, and `getScheduler` throws before taking
//! `schedulerLock` when the connection is closing). A store of another
//! object's flag, of a static flag, an `AtomicBoolean` handed out, or a
//! call that may change it (`compareAndSet`, `getAndSet`) is a write
//! without that monitor.
//!
//! A flag is a field of an int-like or `boolean` type, or an
//! `AtomicBoolean` field (whose value `get` reads and `set` stores:
//! [`lockstep_models::atomic_boolean_call`]).

use lockstep_ir::{
    AccessPath, Body, Call, ConstValue, MemberRef, MonitorId, Operand, Rvalue, StmtId, StmtKind,
    VarId,
};
use lockstep_models::atomics::is_atomic_boolean_field;
use lockstep_models::{atomic_boolean_call, BooleanCall};
use rustc_hash::FxHashMap;

use crate::guard_flags::Flag;
use crate::once_gate::is_receiver;

/// One write of a flag in a body: the flag as named, and whether the
/// writer stores into its own object's field holding its own monitor (or
/// builds the object in its constructor).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Write {
    pub flag: Flag,
    pub under_own_monitor: bool,
}

/// The `AtomicBoolean` field a reference names, as a flag.
pub(crate) fn atomic_flag(field: &MemberRef, is_static: bool) -> Option<Flag> {
    is_atomic_boolean_field(&field.descriptor).then(|| Flag {
        class: field.class.clone(),
        name: field.name.clone(),
        is_static,
    })
}

/// The `AtomicBoolean` field a load reads (its reference), and whether it
/// is read from the body's receiver.
pub(crate) fn loaded_atomic(body: &Body, value: &Rvalue) -> Option<(Flag, bool)> {
    match value {
        Rvalue::FieldLoad { object, field } => {
            let own = matches!(object, Operand::Var(v) if is_receiver(body, *v));
            Some((atomic_flag(field, false)?, own))
        }
        Rvalue::StaticLoad(field) => Some((atomic_flag(field, true)?, false)),
        _ => None,
    }
}

/// What a call on an `AtomicBoolean` does to its value.
pub(crate) fn boolean_call(call: &Call) -> Option<BooleanCall> {
    let args: Vec<Option<i32>> = call
        .args
        .iter()
        .map(|a| match a {
            Operand::Const(ConstValue::Int(c)) => Some(*c),
            _ => None,
        })
        .collect();
    atomic_boolean_call(&call.method.class, &call.method.name, &args)
}

/// The innermost region on the body's own monitor (`synchronized (this)`
/// or a `synchronized` instance method) held before `s`.
pub(crate) fn own_monitor_held(body: &Body, s: StmtId) -> Option<MonitorId> {
    body.regions_held_before(s).into_iter().rev().find(|r| {
        body.monitors
            .get(r.index())
            .is_some_and(|m| m.lock == AccessPath::This)
    })
}

/// Every write of a flag in `body` (of a method that is a constructor
/// when `constructor`): plain stores of the int-like and `boolean`
/// fields `plain` names, and `AtomicBoolean` fields changed by a call,
/// replaced, or handed out (a write somewhere else, without a monitor).
pub(crate) fn writes(
    body: &Body,
    constructor: bool,
    plain: impl Fn(&StmtKind) -> Option<Flag>,
) -> Vec<Write> {
    let mut out = Vec::new();
    let mut refs: FxHashMap<VarId, (Flag, bool)> = FxHashMap::default();
    for (i, stmt) in body.stmts.iter().enumerate() {
        let s = StmtId(i as u32);
        let own_held = constructor || own_monitor_held(body, s).is_some();
        let mut write = |flag: Flag, under_own_monitor: bool| {
            out.push(Write {
                flag,
                under_own_monitor,
            })
        };
        if let Some(flag) = plain(&stmt.kind) {
            let own = matches!(&stmt.kind, StmtKind::FieldStore { object: Operand::Var(v), .. } if is_receiver(body, *v));
            write(flag, own && own_held);
        }
        let escapes = |ops: &[&Operand]| {
            ops.iter()
                .filter_map(|o| match o {
                    Operand::Var(v) => refs.get(v).cloned(),
                    Operand::Const(_) => None,
                })
                .collect::<Vec<_>>()
        };
        let mut handed: Vec<(Flag, bool)> = Vec::new();
        match &stmt.kind {
            StmtKind::Assign { dst, value } => {
                refs.remove(dst);
                if let Some(r) = loaded_atomic(body, value) {
                    refs.insert(*dst, r);
                } else if let Rvalue::Use(Operand::Var(x)) | Rvalue::Cast(Operand::Var(x), _) =
                    value
                {
                    if let Some(r) = refs.get(x).cloned() {
                        refs.insert(*dst, r);
                    }
                }
            }
            StmtKind::FieldStore {
                object,
                field,
                value,
            } => {
                if let Some(flag) = atomic_flag(field, false) {
                    let own = matches!(object, Operand::Var(v) if is_receiver(body, *v));
                    write(flag, own && constructor);
                }
                handed = escapes(&[value]);
            }
            StmtKind::StaticStore { field, value } => {
                if let Some(flag) = atomic_flag(field, true) {
                    write(flag, false);
                }
                handed = escapes(&[value]);
            }
            StmtKind::ArrayStore { value, .. } | StmtKind::Return(Some(value)) => {
                handed = escapes(&[value]);
            }
            StmtKind::Invoke { call, .. } => {
                let on_flag = match &call.receiver {
                    Some(Operand::Var(r)) => refs.get(r).cloned(),
                    _ => None,
                };
                if let Some((flag, own)) = on_flag {
                    if !matches!(
                        boolean_call(call),
                        Some(BooleanCall::Read | BooleanCall::Keeps)
                    ) {
                        write(flag, own && own_held);
                    }
                }
                handed = escapes(&call.args.iter().collect::<Vec<_>>());
            }
            StmtKind::InvokeDynamic { call, .. } => {
                handed = escapes(&call.args.iter().collect::<Vec<_>>());
            }
            _ => {}
        }
        for (flag, _) in handed {
            write(flag, false);
        }
    }
    out
}
