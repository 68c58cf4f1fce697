//! Thread roots per start site: a plain `Thread` runs the `Runnable` it
//! was constructed with, and nothing else.
//!
//! `new Thread(task).start()` launches the JDK's `Thread.run`, which
//! calls `target.run()`. The points-to analysis runs `Thread`'s methods
//! per receiver object only while its context bounds last; on large
//! programs the constructor and `run` of many threads share one context,
//! where every thread's `target` holds every runnable of the program, and
//! each such start would run every task (h2: every race attributed to one
//! start site; `TcpServer`'s connection thread running `Server.run`).
//!
//! The constructor call is in application code, next to the allocation:
//! the `Runnable` arguments of the `<init>` call on the new object name
//! the thread's task (points-to in the allocating method). A root whose
//! entry is `Thread.run` enters instead the methods `Thread.run` calls
//! that run one of those tasks. When no argument names a task (a thread
//! made by a JDK factory, a `Runnable` that points-to does not see), the
//! entry stays `Thread.run`, with every callee it has.

use lockstep_classfile::descriptor::param_types;
use lockstep_ir::{Body, Call, Operand, Rvalue, StmtKind, VarId};
use lockstep_models::threads::{RUNNABLE, THREAD, THREAD_CLASS};
use lockstep_pointsto::{MethodContext, ObjectId, PointsToResult, SiteKey, ThreadStart};
use lockstep_program::Program;

use crate::threads::{runs_task_object, Graph};

/// The descriptor type of a `Runnable` constructor argument.
fn runnable_descriptor() -> String {
    format!("L{};", RUNNABLE.interface)
}

/// The entry nodes of start `t`, given its launch entries `entries`:
/// each `Thread.run` entry of a thread object constructed with known
/// tasks is replaced by the callees of that node that run one of them.
pub fn narrow_to_targets(
    program: &Program,
    pt: &PointsToResult,
    graph: &Graph,
    t: &ThreadStart,
    entries: Vec<u32>,
) -> Vec<u32> {
    let is_thread_run = |n: u32| {
        graph.nodes.get(n as usize).is_some_and(|mc| {
            let d = program.method(mc.method);
            &*d.name == THREAD.name()
                && &*d.descriptor == THREAD.descriptor()
                && &*program.class(d.class).name == THREAD_CLASS
        })
    };
    if !entries.iter().any(|&n| is_thread_run(n)) {
        return entries;
    }
    let made_with = constructor_tasks(program, pt, t.task);
    if made_with.is_empty() {
        return entries;
    }
    // A thread a factory made (one allocation for every thread of the
    // program) is narrowed further by the `Runnable` the starting code
    // gave the factory, when that one reaches the constructor.
    let given = site_tasks(program, pt, t);
    let tasks = if !given.is_empty() && given.iter().all(|o| made_with.binary_search(o).is_ok()) {
        given
    } else {
        made_with
    };
    let mut out: Vec<u32> = Vec::new();
    for n in entries {
        if !is_thread_run(n) {
            out.push(n);
            continue;
        }
        let callees = graph
            .callees
            .get(n as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let runs: Vec<u32> = callees
            .iter()
            .map(|&(_, c)| c)
            .filter(|&c| {
                graph
                    .nodes
                    .get(c as usize)
                    .is_some_and(|&mc: &MethodContext| {
                        tasks.iter().any(|&o| runs_task_object(program, pt, mc, o))
                    })
            })
            .collect();
        if runs.is_empty() {
            out.push(n);
        } else {
            out.extend(runs);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The `Runnable`s the starting method handed to the call that made the
/// started thread (`t = factory.newThread(this, name); t.start()`, also
/// through a field of `this` it stores the thread in), points-to in the
/// starting context; empty when the thread's origin is not such a call.
fn site_tasks(program: &Program, pt: &PointsToResult, t: &ThreadStart) -> Vec<ObjectId> {
    let Some(body) = program.body(t.caller.method) else {
        return Vec::new();
    };
    let Some(StmtKind::Invoke { call, .. }) = body.stmts.get(t.site.index()).map(|s| &s.kind)
    else {
        return Vec::new();
    };
    let Some(thread) = call.receiver.as_ref().and_then(Operand::var) else {
        return Vec::new();
    };
    let origin = stored_from(&body, thread).unwrap_or(thread);
    let Some(def) = body.unique_def.get(origin.index()).copied().flatten() else {
        return Vec::new();
    };
    let Some(StmtKind::Invoke { call: made_by, .. }) = body.stmts.get(def.index()).map(|s| &s.kind)
    else {
        return Vec::new();
    };
    let mut tasks: Vec<ObjectId> = runnable_args(made_by)
        .into_iter()
        .flat_map(|v| {
            pt.var_in(t.caller.method, t.caller.context, v)
                .iter()
                .collect::<Vec<_>>()
        })
        .collect();
    tasks.sort_unstable();
    tasks.dedup();
    tasks
}

/// When `v` is read from a field of `this` that the body stores exactly
/// one value into: that value.
fn stored_from(body: &Body, v: VarId) -> Option<VarId> {
    let this = *body.params.first()?;
    let StmtKind::Assign {
        value: Rvalue::FieldLoad { object, field },
        ..
    } = crate::util::unique_def_of(body, v)?
    else {
        return None;
    };
    if body.is_static || object.var() != Some(this) {
        return None;
    }
    let mut stores = body.stmts.iter().filter_map(|s| match &s.kind {
        StmtKind::FieldStore {
            object: o,
            field: f,
            value,
        } if o.var() == Some(this) && f.name == field.name && f.class == field.class => value.var(),
        _ => None,
    });
    let first = stores.next()?;
    stores.next().is_none().then_some(first)
}

/// The variables a call passes as `Runnable` arguments.
fn runnable_args(call: &Call) -> Vec<VarId> {
    let runnable = runnable_descriptor();
    let Some(params) = param_types(&call.method.descriptor) else {
        return Vec::new();
    };
    params
        .iter()
        .zip(&call.args)
        .filter(|(ty, _)| **ty == runnable)
        .filter_map(|(_, arg)| arg.var())
        .collect()
}

/// The objects passed as `Runnable` arguments to the constructor call on
/// thread object `thread`, at its allocation in application or library
/// code (merged over the allocating method's contexts); empty when the
/// allocation or the call is not found.
fn constructor_tasks(program: &Program, pt: &PointsToResult, thread: ObjectId) -> Vec<ObjectId> {
    let Some(info) = pt.object(thread) else {
        return Vec::new();
    };
    let SiteKey::Alloc { method, stmt, .. } = info.site else {
        return Vec::new();
    };
    let Some(body) = program.body(*method) else {
        return Vec::new();
    };
    let Some(StmtKind::Assign { dst, .. }) = body.stmts.get(stmt.index()).map(|s| &s.kind) else {
        return Vec::new();
    };
    let mut tasks: Vec<ObjectId> = Vec::new();
    for s in &body.stmts {
        let StmtKind::Invoke { call, .. } = &s.kind else {
            continue;
        };
        let on_new = call.receiver.as_ref().and_then(Operand::var) == Some(*dst);
        if &*call.method.name == "<init>" && on_new {
            for v in runnable_args(call) {
                tasks.extend(pt.var(*method, v).iter());
            }
        }
    }
    tasks.sort_unstable();
    tasks.dedup();
    tasks
}
