//! Call probes for the hand-offs a wrapper cannot carry, and for the
//! calls whose meaning sits in a `long` or in an argument:
//!
//! - tasks that are objects of an abstract class (`TimerTask`,
//!   `ForkJoinTask`): the call releases the task's start on the task
//!   object itself, and the task's body (probed in its class, see
//!   `layout`) acquires it and releases its end; `join`/`invoke`/`invokeAll`
//!   acquire the end; `complete`/`tryComplete` release it (for a
//!   `CountedCompleter`, the recorder walks up its completers);
//! - `StampedLock`: `try*Lock` (a zero stamp is a failure), `unlock(stamp)`
//!   (the stamp says the mode), optimistic reads, `tryConvertTo*`;
//! - shutdown hooks: their registration and the calls that end the program.
//!
//! The facts come from `lockstep_models` (`recorder`, `threads`, `locks`).

use lockstep_classfile::InvokeKind;
use lockstep_models::recorder::{
    ends_program, fork_join_call, registers_shutdown_hook, returns_after_task, stamp_conversion,
    ForkJoinCall, StampMode,
};
use lockstep_models::{
    is_jdk_subtype, lock_effect_via, thread_starts_via, LaunchKind, LockEffect, LockMode, Operand,
    TaskShape,
};

use crate::plan::CallPlan;
use crate::{CallEvent, LockSide, StampTarget, SyncKind, TaskArg};

/// Adds the probes of this module's calls to `plan` (left empty for others).
pub(crate) fn task_calls(
    plan: &mut CallPlan,
    kind: InvokeKind,
    owner: &str,
    name: &str,
    desc: &str,
) {
    if let Some(call) = fork_join_call(owner, name, desc) {
        fork_join_calls(plan, kind, call, desc);
        return;
    }
    if !lockstep_models::is_jdk_class(owner) {
        return;
    }
    if registers_shutdown_hook(owner, name, desc) {
        plan.pre_args.push((0, CallEvent::ShutdownHook));
    } else if ends_program(owner, name, desc) {
        plan.pre_args.push((0, CallEvent::ProgramExit));
    } else if kind != InvokeKind::Static {
        stamped_lock_calls(plan, owner, name, desc);
    }
    if plan.is_empty() {
        task_object_launches(plan, owner, name, desc);
    }
}

/// The shape of a task argument.
fn task_arg(shape: TaskShape) -> Option<TaskArg> {
    match shape {
        TaskShape::Functional => Some(TaskArg::One),
        TaskShape::Array => Some(TaskArg::Array),
        TaskShape::Collection => Some(TaskArg::Collection),
        _ => None,
    }
}

/// `Timer.schedule*` and `ForkJoinPool.submit/execute/invoke` of a task
/// object: its start is released on the task (no wrapper: a `TimerTask`
/// or `ForkJoinTask` is a class, so nothing else can be passed in its place).
fn task_object_launches(plan: &mut CallPlan, owner: &str, name: &str, desc: &str) {
    for launch in thread_starts_via(owner, name, desc, &is_jdk_subtype) {
        if !matches!(launch.kind, LaunchKind::Timer | LaunchKind::ForkJoin) {
            continue;
        }
        let (Operand::Arg(n), Some(arg)) = (launch.task, task_arg(launch.shape)) else {
            continue;
        };
        let n = usize::from(n);
        plan.pre_args.push((n, CallEvent::SubmitTasks(arg)));
        if returns_after_task(owner, name) {
            plan.post_args.push((n, CallEvent::TasksEnded(arg)));
        }
    }
}

/// Calls of `ForkJoinTask`'s final methods, on a JDK or application class.
fn fork_join_calls(plan: &mut CallPlan, kind: InvokeKind, call: ForkJoinCall, desc: &str) {
    match call {
        ForkJoinCall::Fork if kind != InvokeKind::Static => {
            plan.pre.push(CallEvent::Release(SyncKind::TaskStart));
        }
        ForkJoinCall::Await { starts } if kind != InvokeKind::Static => {
            if starts {
                plan.pre.push(CallEvent::Release(SyncKind::TaskStart));
            }
            plan.post.push(CallEvent::Acquire(SyncKind::Future));
        }
        ForkJoinCall::Complete if kind != InvokeKind::Static => {
            plan.pre.push(CallEvent::CompleteChain);
        }
        ForkJoinCall::InvokeAll if kind == InvokeKind::Static => {
            let args: &[(usize, TaskArg)] = if desc.starts_with("([") {
                &[(0, TaskArg::Array)]
            } else if desc.starts_with("(Ljava/util/Collection;") {
                &[(0, TaskArg::Collection)]
            } else {
                &[(0, TaskArg::One), (1, TaskArg::One)]
            };
            for &(n, arg) in args {
                plan.pre_args.push((n, CallEvent::SubmitTasks(arg)));
                plan.post_args.push((n, CallEvent::TasksEnded(arg)));
            }
        }
        _ => {}
    }
}

/// `StampedLock` calls the shared lock probes cannot express: their stamp
/// is a `long` result or argument.
fn stamped_lock_calls(plan: &mut CallPlan, owner: &str, name: &str, desc: &str) {
    if let Some(to) = stamp_conversion(owner, name) {
        let target = match to {
            StampMode::Write => StampTarget::Write,
            StampMode::Read => StampTarget::Read,
            StampMode::Optimistic => StampTarget::Optimistic,
        };
        plan.post_args.push((0, CallEvent::StampConvert(target)));
        return;
    }
    let Some(effect) = lock_effect_via(owner, name, desc, &is_jdk_subtype) else {
        return;
    };
    let side = |m: LockMode| match m {
        LockMode::Read => Some(LockSide::Read),
        LockMode::Write => Some(LockSide::Write),
        _ => None,
    };
    match effect {
        LockEffect::LockedIfNonZero(m) if desc.ends_with(")J") => {
            plan.post.extend(side(m).map(CallEvent::TryLock));
        }
        LockEffect::Unlock(LockMode::Stamp) => plan.pre_args.push((0, CallEvent::StampUnlock)),
        LockEffect::OptimisticRead => plan.post.push(CallEvent::OptimisticRead),
        LockEffect::Validate => plan.pre_args.push((0, CallEvent::StampValidate)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::call_plan;

    use super::*;

    const SL: &str = "java/util/concurrent/locks/StampedLock";

    #[test]
    fn timer_and_pool_release_the_task_argument() {
        let p = call_plan(
            InvokeKind::Virtual,
            "java/util/Timer",
            "schedule",
            "(Ljava/util/TimerTask;JJ)V",
        );
        assert_eq!(p.pre_args, vec![(0, CallEvent::SubmitTasks(TaskArg::One))]);
        assert!(p.wrap_arg.is_none() && p.post_args.is_empty());
        let fjp = lockstep_models::recorder::FORK_JOIN_POOL_CLASS;
        let p = call_plan(
            InvokeKind::Virtual,
            fjp,
            "invoke",
            "(Ljava/util/concurrent/ForkJoinTask;)Ljava/lang/Object;",
        );
        assert_eq!(p.post_args, vec![(0, CallEvent::TasksEnded(TaskArg::One))]);
    }

    #[test]
    fn fork_join_methods_on_application_subclasses() {
        let fork = call_plan(
            InvokeKind::Virtual,
            "app/Fib",
            "fork",
            "()Ljava/util/concurrent/ForkJoinTask;",
        );
        assert_eq!(fork.pre, vec![CallEvent::Release(SyncKind::TaskStart)]);
        let join = call_plan(
            InvokeKind::Virtual,
            "app/Fib",
            "join",
            "()Ljava/lang/Object;",
        );
        assert_eq!(join.post, vec![CallEvent::Acquire(SyncKind::Future)]);
        let all = call_plan(
            InvokeKind::Static,
            "app/Fib",
            "invokeAll",
            "([Ljava/util/concurrent/ForkJoinTask;)V",
        );
        assert_eq!(
            all.pre_args,
            vec![(0, CallEvent::SubmitTasks(TaskArg::Array))]
        );
        assert_eq!(
            all.post_args,
            vec![(0, CallEvent::TasksEnded(TaskArg::Array))]
        );
        assert!(call_plan(
            InvokeKind::Virtual,
            "app/Fib",
            "get",
            "()Ljava/lang/Object;"
        )
        .is_empty());
        let done = call_plan(InvokeKind::Virtual, "app/Leafy", "tryComplete", "()V");
        assert_eq!(done.pre, vec![CallEvent::CompleteChain]);
    }

    #[test]
    fn stamped_lock_stamps() {
        let w = call_plan(InvokeKind::Virtual, SL, "tryWriteLock", "()J");
        assert_eq!(w.post, vec![CallEvent::TryLock(LockSide::Write)]);
        let u = call_plan(InvokeKind::Virtual, SL, "unlock", "(J)V");
        assert_eq!(u.pre_args, vec![(0, CallEvent::StampUnlock)]);
        let o = call_plan(InvokeKind::Virtual, SL, "tryOptimisticRead", "()J");
        assert_eq!(o.post, vec![CallEvent::OptimisticRead]);
        let v = call_plan(InvokeKind::Virtual, SL, "validate", "(J)Z");
        assert_eq!(v.pre_args, vec![(0, CallEvent::StampValidate)]);
        let c = call_plan(InvokeKind::Virtual, SL, "tryConvertToWriteLock", "(J)J");
        assert_eq!(
            c.post_args,
            vec![(0, CallEvent::StampConvert(StampTarget::Write))]
        );
        let lock = call_plan(InvokeKind::Virtual, SL, "writeLock", "()J");
        assert_eq!(lock.post, vec![CallEvent::Lock(LockSide::Write)]);
    }

    #[test]
    fn executor_invoke_all_wraps_its_collection() {
        let p = call_plan(
            InvokeKind::Interface,
            "java/util/concurrent/ExecutorService",
            "invokeAll",
            "(Ljava/util/Collection;)Ljava/util/List;",
        );
        assert_eq!((p.wrap_arg, p.wrap_all), (Some(0), true));
        assert_eq!(p.post, vec![CallEvent::Acquire(SyncKind::Executor)]);
    }

    #[test]
    fn shutdown_hooks_and_exit() {
        let h = call_plan(
            InvokeKind::Virtual,
            "java/lang/Runtime",
            "addShutdownHook",
            "(Ljava/lang/Thread;)V",
        );
        assert_eq!(h.pre_args, vec![(0, CallEvent::ShutdownHook)]);
        let e = call_plan(InvokeKind::Static, "java/lang/System", "exit", "(I)V");
        assert_eq!(e.pre_args, vec![(0, CallEvent::ProgramExit)]);
    }
}
