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
use lockstep_ir::{Operand, StmtKind};
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
    let tasks = constructor_tasks(program, pt, t.task);
    if tasks.is_empty() {
        return entries;
    }
    let mut out: Vec<u32> = Vec::new();
    for n in entries {
        if !is_thread_run(n) {
            out.push(n);
            continue;
        }
        let runs: Vec<u32> = graph.callees[n as usize]
            .iter()
            .map(|&(_, c)| c)
            .filter(|&c| {
                let mc: MethodContext = graph.nodes[c as usize];
                tasks.iter().any(|&o| runs_task_object(program, pt, mc, o))
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
    let runnable = runnable_descriptor();
    let mut tasks: Vec<ObjectId> = Vec::new();
    for s in &body.stmts {
        let StmtKind::Invoke { call, .. } = &s.kind else {
            continue;
        };
        if &*call.method.name != "<init>"
            || call.receiver.as_ref().and_then(|r| r.var()) != Some(*dst)
        {
            continue;
        }
        let Some(params) = param_types(&call.method.descriptor) else {
            continue;
        };
        for (ty, arg) in params.iter().zip(&call.args) {
            if *ty != runnable {
                continue;
            }
            if let Operand::Var(v) = arg {
                tasks.extend(pt.var(*method, *v).iter());
            }
        }
    }
    tasks.sort_unstable();
    tasks.dedup();
    tasks
}
