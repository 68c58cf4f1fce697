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
//!
//! A second shape keeps one thread alive by clearing the field when the
//! thread ends (hsqldb's `HsqlTimer`, whose one runner thread runs every
//! scheduled task of the timer):
//!
//! ```java
//! synchronized void restart() {
//!     if (runnerThread == null) {
//!         runnerThread = factory.newThread(runner);
//!         runnerThread.start();
//!     }
//! }
//! synchronized void clearThread() { runnerThread = null; }
//! // in the runner's run(): try { ... } finally { clearThread(); }
//! ```
//!
//! The start runs only when the field is `null` (or asks `isAlive()`, as
//! above); a test whose other branch also starts guards nothing. Every
//! other store into the field is a `null` stored into `this`'s field by a
//! non-public `synchronized` method of the owner that only the started
//! thread's entry calls, on the owner, as its last action (nothing but
//! returns and throws after the call); the starting method is
//! `synchronized` too. The old thread then clears the field under the
//! owner's lock after all its work, and a new thread starts only under
//! that lock after it sees the field cleared: the threads run one after
//! another. A clear by a `stop()` other code calls, or one followed by
//! more work, is a new thread starting while the old one still runs, as
//! is a clear without the lock (jgroups' `Merger$MergeTask`).

use lockstep_ir::{Body, Cond, ConstValue, Operand, Rvalue, StmtId, StmtKind, VarId};
use lockstep_models::{LaunchKind, TaskShape};
use lockstep_pointsto::{ObjectId, PointsToResult, ThreadStart};
use lockstep_program::{MethodId, Program};

use crate::lock_paths::FieldName;

/// `Thread.isAlive()`.
const IS_ALIVE: (&str, &str) = ("isAlive", "()Z");

/// The thread field and its owner when start `t` follows the idiom.
///
/// `entries`: the methods the started thread enters (its task's `run`).
pub fn one_alive_thread(
    program: &Program,
    pt: &PointsToResult,
    t: &ThreadStart,
    entries: &[MethodId],
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
    let asks_alive = body.stmts.iter().any(|s| match &s.kind {
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
    if !asks_alive && !started_only_when_null(&body, this, &field, t.site) {
        return None;
    }
    let owner = crate::util::single_object(&pt.var_in(t.caller.method, t.caller.context, this))?;
    let stores = stores_elsewhere(program, t.caller.method, &field);
    // A clear by the thread itself keeps one alive only when the start and
    // the clear exclude each other under the owner's lock.
    let cleared_last = stores.is_empty()
        || (program.method(t.caller.method).is_synchronized()
            && stores
                .iter()
                .all(|&m| cleared_last_by_thread(program, pt, m, owner, entries)));
    cleared_last.then_some((owner, field))
}

/// Is the start at `site` reached only on the branch where a value read
/// from `this.field` is `null` (`if (runner == null) { ...; start }`)?
/// A test whose other branch also reaches the start guards nothing.
fn started_only_when_null(body: &Body, this: VarId, field: &FieldName, site: StmtId) -> bool {
    let of_field = |o: &Operand| {
        o.var()
            .and_then(|v| field_of_this(body, this, v))
            .is_some_and(|f| &f == field)
    };
    let Some(&start_block) = body.block_of.get(site.index()) else {
        return false;
    };
    body.stmts.iter().enumerate().any(|(i, s)| {
        let StmtKind::If {
            cond,
            lhs,
            rhs,
            target,
        } = &s.kind
        else {
            return false;
        };
        let tested = (of_field(lhs) && is_null(body, rhs)) || (of_field(rhs) && is_null(body, lhs));
        let Some(&at) = body.block_of.get(i) else {
            return false;
        };
        let fall_through = body
            .blocks
            .get(at.index())
            .and_then(|b| b.succs.first().copied());
        let when_null = match cond {
            Cond::Eq => Some(*target),
            Cond::Ne => fall_through,
            _ => None,
        };
        tested
            && when_null.is_some_and(|n| {
                fall_through != Some(*target)
                    && !reached_without(body, start_block.index(), at.index(), n.index())
            })
    })
}

/// Is block `goal` reachable from the entry without taking the edge
/// `from → to`?
fn reached_without(body: &Body, goal: usize, from: usize, to: usize) -> bool {
    let mut seen = vec![false; body.blocks.len()];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if b >= seen.len() || seen[b] {
            continue;
        }
        seen[b] = true;
        if b == goal {
            return true;
        }
        for n in crate::util::successors(body, b) {
            if !(b == from && n == to) {
                stack.push(n);
            }
        }
    }
    false
}

/// Is `o` the constant `null` (directly or through a variable that only
/// holds it)?
fn is_null(body: &Body, o: &Operand) -> bool {
    match o {
        Operand::Const(ConstValue::Null) => true,
        Operand::Const(_) => false,
        Operand::Var(v) => matches!(
            crate::util::unique_def_of(body, *v),
            Some(StmtKind::Assign {
                value: Rvalue::Use(Operand::Const(ConstValue::Null)),
                ..
            })
        ),
    }
}

/// Is method `m` (which stores into the thread field) a clear by the
/// thread itself at its end: a non-public `synchronized` instance method
/// that stores only `null` into fields of `this` and is called only from
/// the thread's entry methods, on the owner, as their last action?
fn cleared_last_by_thread(
    program: &Program,
    pt: &PointsToResult,
    m: MethodId,
    owner: ObjectId,
    entries: &[MethodId],
) -> bool {
    let data = program.method(m);
    if data.is_static() || data.is_public() || !data.is_synchronized() {
        return false;
    }
    let Some(body) = program.body(m) else {
        return false;
    };
    let Some(&this) = body.params.first() else {
        return false;
    };
    let only_nulls_into_this = body.stmts.iter().all(|s| match &s.kind {
        StmtKind::FieldStore { object, value, .. } => {
            object.var() == Some(this) && is_null(&body, value)
        }
        _ => true,
    });
    if !only_nulls_into_this {
        return false;
    }
    let clear = Clear {
        class: &program.class(data.class).name,
        name: &data.name,
        descriptor: &data.descriptor,
    };
    let mut called = false;
    for c in program.application_classes() {
        for &caller in &program.class(c).methods {
            let Some(cb) = program.body(caller) else {
                continue;
            };
            for (i, s) in cb.stmts.iter().enumerate() {
                let StmtKind::Invoke { call, .. } = &s.kind else {
                    continue;
                };
                let related = |a: &str, b: &str| a == b || program.is_subtype_name(a, b);
                let may_reach = clear.named_by(call)
                    && (related(&call.method.class, clear.class)
                        || related(clear.class, &call.method.class));
                if !may_reach {
                    continue;
                }
                let on_owner = call
                    .receiver
                    .as_ref()
                    .and_then(Operand::var)
                    .is_some_and(|r| crate::util::single_object(&pt.var(caller, r)) == Some(owner));
                let last = entries.contains(&caller)
                    && on_owner
                    && *call.method.class == *clear.class
                    && clear.nothing_after(&cb, i);
                if !last {
                    return false;
                }
                called = true;
            }
        }
    }
    called
}

/// The clearing method, by name.
struct Clear<'a> {
    class: &'a str,
    name: &'a str,
    descriptor: &'a str,
}

impl Clear<'_> {
    /// Does `call` name a method of the clear's name and descriptor (of
    /// any class: an override is a call of it too; the callers check
    /// that the classes are related)?
    fn named_by(&self, call: &lockstep_ir::Call) -> bool {
        *call.method.name == *self.name && *call.method.descriptor == *self.descriptor
    }

    /// Does nothing but copying, branching, returning or throwing follow
    /// the call at statement `at` on every path (normal and exceptional)
    /// from it? A path that reaches another call of the clear (the copy
    /// of a `finally` on the exceptional path) ends there: that call is
    /// checked on its own.
    fn nothing_after(&self, body: &Body, at: usize) -> bool {
        let Some(&start) = body.block_of.get(at) else {
            return false;
        };
        match self.rest_of_block(body, start.index(), at + 1) {
            Tail::Work => return false,
            Tail::Clears => return true,
            Tail::Inert => {}
        }
        let mut seen = vec![false; body.blocks.len()];
        let mut stack = crate::util::successors(body, start.index());
        while let Some(b) = stack.pop() {
            if b >= seen.len() || seen[b] {
                continue;
            }
            seen[b] = true;
            if b == start.index() {
                return false;
            }
            let first = body.blocks.get(b).map_or(0, |bl| bl.first.index());
            match self.rest_of_block(body, b, first) {
                Tail::Work => return false,
                Tail::Clears => {}
                Tail::Inert => stack.extend(crate::util::successors(body, b)),
            }
        }
        true
    }

    /// What the statements of block `b` from `from` on do.
    fn rest_of_block(&self, body: &Body, b: usize, from: usize) -> Tail {
        let Some(block) = body.blocks.get(b) else {
            return Tail::Work;
        };
        let mut read = false;
        for i in from.max(block.first.index())..block.end.index() {
            let Some(st) = body.stmts.get(i) else {
                return Tail::Work;
            };
            match &st.kind {
                StmtKind::Invoke { call, .. } if self.named_by(call) => return Tail::Clears,
                // The receiver of a clear is read before it (`Outer.this`);
                // a read not followed by a clear is work.
                StmtKind::Assign {
                    value: Rvalue::FieldLoad { .. },
                    ..
                } => read = true,
                StmtKind::Assign {
                    value: Rvalue::Use(_) | Rvalue::CaughtException,
                    ..
                }
                | StmtKind::Goto(_)
                | StmtKind::If { .. }
                | StmtKind::Return(_)
                | StmtKind::Throw(_)
                | StmtKind::Nop => {}
                _ => return Tail::Work,
            }
        }
        if read {
            Tail::Work
        } else {
            Tail::Inert
        }
    }
}

/// What the rest of a block does after a clear.
enum Tail {
    /// Only copies, branches, returns and throws.
    Inert,
    /// Reaches another call of the clear (after such statements and reads).
    Clears,
    /// Anything else.
    Work,
}

/// The methods of application code other than `starter` that store into
/// `field` (`thread = null` in the task's `finally`, a `stop()` that
/// forgets the thread): unless each is the thread's own last clear, a
/// new thread may start while the old one still runs. In id order.
fn stores_elsewhere(program: &Program, starter: MethodId, field: &FieldName) -> Vec<MethodId> {
    let mut out = Vec::new();
    for c in program.application_classes() {
        for &m in &program.class(c).methods {
            let stores = m != starter
                && program.body(m).is_some_and(|body| {
                    body.stmts.iter().any(|s| {
                        matches!(&s.kind, StmtKind::FieldStore { field: f, .. }
                            if f.name == field.1 && f.class == field.0)
                    })
                });
            if stores {
                out.push(m);
            }
        }
    }
    out.sort_unstable();
    out
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
