//! What a call does to a lock, for every static lock consumer: the one
//! place that turns a call site into a lock effect and the value the
//! lock is (`lockstep_facts`' held locks and lock order, stale-value,
//! non-atomic-method and the entry points all ask here).
//!
//! Two kinds of calls have a lock effect:
//! - a modelled JDK call (`lockstep_models::locks`): the lock is the
//!   receiver;
//! - a call to a *lock wrapper* of the program ([`wrappers`]): a method
//!   whose body only takes or releases the lock held in a field of its
//!   receiver (hsqldb's `LobManager.lock()`: `writeLock.lock();`). Its
//!   call has the inner call's effect on that field of the call's
//!   receiver. A wrapper that returns a *handle* whose `close()` releases
//!   the same lock (jetty's `Locker.lock()`, used as
//!   `try (Locker.Lock l = _locker.lock()) {…}`) makes `close()` on the
//!   handle an unlock of that field of the wrapper call's receiver.

use std::sync::Arc;

use lockstep_ir::{Body, Call, CallKind, MemberRef, Operand, Rvalue, StmtKind, VarId};
use lockstep_models::{LockEffect, LockMode};

use crate::Program;

pub use crate::wrappers::{LockWrappers, Wrapper};

/// A field by declaring class and name.
pub type FieldName = (Arc<str>, Arc<str>);

/// The lock effect of a call by its method reference alone (the JDK
/// models, through the program's class hierarchy): `wait`/`notify` on
/// any object, `lock()` of a `java.util.concurrent` lock, `await` of a
/// condition. No wrapper: what a call of the program's own code does is
/// [`lock_call`]'s business.
pub fn call_effect(program: &Program, m: &MemberRef) -> Option<LockEffect> {
    lockstep_models::lock_effect_via(&m.class, &m.name, &m.descriptor, &|a, b| {
        program.is_subtype_name(a, b)
    })
}

/// [`call_effect`] of a call on a `java.util.concurrent` lock: the JDK's
/// locks, or an application class implementing `Lock` called through
/// its `Lock` methods.
pub fn juc_effect(program: &Program, call: &Call) -> Option<LockEffect> {
    let m = &call.method;
    if !lockstep_models::is_jdk_class(&m.class) && !m.class.starts_with('[') {
        let is_lock = program.is_subtype_name(&m.class, lockstep_models::LOCK_INTERFACE);
        if !is_lock {
            return None;
        }
    }
    call_effect(program, m)
}

/// A call's effect on a `java.util.concurrent` lock and where that lock is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockCall {
    pub effect: LockEffect,
    /// The variable the lock is reached from: the receiver of a JDK lock
    /// call, the receiver of a wrapper call (or, for a handle's
    /// `close()`, of the call that made the handle).
    pub base: VarId,
    /// The field of `base`'s object that holds the lock (wrappers), by
    /// declaring class and name; `None`: `base` is the lock.
    pub field: Option<FieldName>,
}

impl LockCall {
    /// Was the lock reached through a wrapper (a field of `base`)?
    pub fn is_wrapped(&self) -> bool {
        self.field.is_some()
    }
}

/// The lock effect of `call` in `body`, and on which lock: a modelled
/// `java.util.concurrent` call ([`juc_effect`]) on its receiver, or a
/// call of a lock wrapper or of a wrapper handle's `close()`.
pub fn lock_call(program: &Program, body: &Body, call: &Call) -> Option<LockCall> {
    let Some(Operand::Var(recv)) = call.receiver.as_ref() else {
        return None;
    };
    if let Some(effect) = juc_effect(program, call) {
        return Some(LockCall {
            effect,
            base: *recv,
            field: None,
        });
    }
    wrapped_call(program, body, call, *recv)
}

/// [`lock_call`] for a call of the program's lock wrappers.
fn wrapped_call(program: &Program, body: &Body, call: &Call, recv: VarId) -> Option<LockCall> {
    let wrappers = program.lock_wrappers();
    if wrappers.is_empty() {
        return None;
    }
    if let Some(w) = wrappers.exact(program, call) {
        return Some(LockCall {
            effect: w.effect,
            base: recv,
            field: Some(w.field.clone()),
        });
    }
    handle_close(program, body, call, recv)
}

/// `h.close()` where `h` is the handle a wrapper call `r.lock()` returned
/// (through copies and casts): an unlock of the wrapper's field of `r`.
fn handle_close(program: &Program, body: &Body, call: &Call, recv: VarId) -> Option<LockCall> {
    if &*call.method.name != "close" || &*call.method.descriptor != "()V" {
        return None;
    }
    let def = origin_call(body, recv)?;
    let Some(Operand::Var(maker)) = def.receiver.as_ref() else {
        return None;
    };
    let w = program.lock_wrappers().exact(program, def)?;
    let handle = w.handle.as_ref()?;
    if !program.lock_wrappers().closes_exactly(program, handle) {
        return None;
    }
    let LockEffect::Lock(mode) = w.effect else {
        return None;
    };
    Some(LockCall {
        effect: LockEffect::Unlock(mode),
        base: *maker,
        field: Some(w.field.clone()),
    })
}

/// The call whose result `v` holds, through copies and casts.
fn origin_call(body: &Body, v: VarId) -> Option<&Call> {
    let mut cur = v;
    for _ in 0..8 {
        let def = (*body.unique_def.get(cur.index())?)?;
        match &body.stmts.get(def.index())?.kind {
            StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(src)) | Rvalue::Cast(Operand::Var(src), _),
                ..
            } => cur = *src,
            StmtKind::Invoke { call, .. } if call.kind != CallKind::Static => return Some(call),
            _ => return None,
        }
    }
    None
}

/// The mode a lock effect takes or releases in, if it does.
pub fn effect_mode(e: LockEffect) -> Option<LockMode> {
    match e {
        LockEffect::Lock(m)
        | LockEffect::Unlock(m)
        | LockEffect::LockedIfTrue(m)
        | LockEffect::LockedIfNonZero(m) => Some(m),
        _ => None,
    }
}
