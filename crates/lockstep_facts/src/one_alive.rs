//! One thread alive at a time: a thread kept in a field and started again
//! only when the one there has ended.
//!
//! ```java
//! if (runner == null || !runner.isAlive()) {
//!     runner = new Thread(this, "receiver");
//!     runner.start();
//! }
//! ```
//!
//! (jgroups' `StompConnection.startRunner`, `TP$TransferQueueBundler.start`.)
//! The start may run many times, but each new thread replaces one that
//! has ended: the threads of that start, on one owner object, run one
//! after another and never race with each other. The idiom is recognised
//! when the started thread is read from a field of `this`, the same
//! method asks `isAlive()` of a thread read from that field, and no other
//! method stores into the field (jgroups' `Merger$MergeTask` clears its
//! `thread` in the task's `finally` and in `stop()`: a new task may start
//! while the old one ends, so it is not one thread).
//!
//! Assumptions (the same as for single-threaded executors): the owner is
//! the one abstract object `this` denotes in the starting context, taken
//! as one run-time object; when `this` may be several objects (two
//! receivers made at two sites, each with its thread) nothing is assumed. The check-then-start itself is not proven atomic:
//! if two threads may call the starting method at once, the accesses to
//! the field race and are reported as such.

use lockstep_ir::{Body, Operand, Rvalue, StmtKind, VarId};
use lockstep_models::{LaunchKind, TaskShape};
use lockstep_pointsto::{ObjectId, PointsToResult, ThreadStart};
use lockstep_program::{MethodId, Program};

use crate::lock_paths::FieldName;

/// `Thread.isAlive()`.
const IS_ALIVE: (&str, &str) = ("isAlive", "()Z");

/// The thread field and its owner when start `t` follows the idiom.
pub fn one_alive_thread(
    program: &Program,
    pt: &PointsToResult,
    t: &ThreadStart,
) -> Option<(ObjectId, FieldName)> {
    if t.launch.kind != LaunchKind::ThreadStart || t.launch.shape != TaskShape::Thread {
        return None;
    }
    let body = program.body(t.caller.method)?;
    if body.is_static {
        return None;
    }
    let this = *body.params.first()?;
    let StmtKind::Invoke { call, .. } = &body.stmts.get(t.site.index())?.kind else {
        return None;
    };
    let thread = call.receiver.as_ref()?.var()?;
    let field = field_of_this(&body, this, thread)?;
    let checked = body.stmts.iter().any(|s| match &s.kind {
        StmtKind::Invoke { call, .. } => {
            (&*call.method.name, &*call.method.descriptor) == IS_ALIVE
                && call
                    .receiver
                    .as_ref()
                    .and_then(Operand::var)
                    .and_then(|v| field_of_this(&body, this, v))
                    .is_some_and(|f| f == field)
        }
        _ => false,
    });
    if !checked {
        return None;
    }
    if stored_elsewhere(program, t.caller.method, &field) {
        return None;
    }
    let owner = crate::util::single_object(&pt.var_in(t.caller.method, t.caller.context, this))?;
    Some((owner, field))
}

/// Does application code other than method `starter` store into `field`
/// (`thread = null` in the task's `finally`, a `stop()` that forgets the
/// thread)? Then a new thread may start while the old one still runs.
fn stored_elsewhere(program: &Program, starter: MethodId, field: &FieldName) -> bool {
    program.application_classes().any(|c| {
        program.class(c).methods.iter().any(|&m| {
            m != starter
                && program.body(m).is_some_and(|body| {
                    body.stmts.iter().any(|s| {
                        matches!(&s.kind, StmtKind::FieldStore { field: f, .. }
                            if f.name == field.1 && f.class == field.0)
                    })
                })
        })
    })
}

/// The field of `this` that `v` is read from (its one definition):
/// (class, name).
fn field_of_this(body: &Body, this: VarId, v: VarId) -> Option<FieldName> {
    let StmtKind::Assign {
        value: Rvalue::FieldLoad { object, field },
        ..
    } = crate::util::unique_def_of(body, v)?
    else {
        return None;
    };
    (object.var() == Some(this)).then(|| (field.class.clone(), field.name.clone()))
}
