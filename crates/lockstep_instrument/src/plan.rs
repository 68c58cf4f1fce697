//! Which call sites get probes, and which.
//!
//! The decisions come from `lockstep_models` (the same tables the static
//! analyses use), so both halves of lockstep agree on what locks, starts a
//! thread, hands off a task or touches a collection. The rewriter sees only
//! the static receiver type of a call and loads no class, so subtyping is
//! answered from a short list of the JDK's own concrete classes; calls on
//! an application subclass of `Thread` are matched by name and checked at
//! run time by the recorder.

use lockstep_classfile::InvokeKind;
use lockstep_models::threads::{EntryMethod, CALLABLE, RUNNABLE, SUPPLIER, THREAD_CLASS};
use lockstep_models::{
    atomic_access, container_access_via, is_jdk_class, lock_effect_via,
    may_be_thread_safe_container, ordering_effect_via, thread_safe_container_access,
    thread_starts_via, view_effect, AtomicAccess, ContainerAccess, LaunchKind, LockEffect,
    LockMode, Operand, OrderingEffect, TaskShape, ViewEffect,
};

use crate::{CallEvent, LockSide, SyncKind};

/// What to do around one call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CallPlan {
    /// Probes before the call, on the receiver.
    pub pre: Vec<CallEvent>,
    /// Probes after a normal return, on the receiver (and the result when
    /// the event needs it).
    pub post: Vec<CallEvent>,
    /// The argument (0-based) replaced by the runtime's hand-off wrapper.
    pub wrap_arg: Option<usize>,
    /// The wrapped argument is a collection of tasks (`invokeAll`): it is
    /// replaced by a list of wrappers ([`CallEvent::WrapTasks`]).
    pub wrap_all: bool,
    /// Probes before the call on (receiver, argument n).
    pub pre_args: Vec<(usize, CallEvent)>,
    /// Probes after a normal return on (receiver, argument n).
    pub post_args: Vec<(usize, CallEvent)>,
}

impl CallPlan {
    pub(crate) fn is_empty(&self) -> bool {
        self.pre.is_empty()
            && self.post.is_empty()
            && self.wrap_arg.is_none()
            && self.pre_args.is_empty()
            && self.post_args.is_empty()
    }
}

/// Does the post event need the call's result?
pub(crate) fn needs_result(e: CallEvent) -> bool {
    matches!(
        e,
        CallEvent::TryLock(_)
            | CallEvent::ReadView
            | CallEvent::WriteView
            | CallEvent::NewCondition
            | CallEvent::AcquireIfTrue(_)
            | CallEvent::FutureOf
            | CallEvent::ContainerView { .. }
            | CallEvent::Cloned
            | CallEvent::OptimisticRead
    )
}

pub(crate) use lockstep_models::is_jdk_subtype;

fn side(mode: LockMode) -> Option<LockSide> {
    match mode {
        LockMode::Exclusive => Some(LockSide::Exclusive),
        LockMode::Read => Some(LockSide::Read),
        LockMode::Write => Some(LockSide::Write),
        // StampedLock stamps are not modelled by the recorder yet.
        LockMode::Stamp => None,
    }
}

/// The probes for a call of `owner.name desc`, or an empty plan.
pub(crate) fn call_plan(kind: InvokeKind, owner: &str, name: &str, desc: &str) -> CallPlan {
    let mut plan = modelled_call_plan(kind, owner, name, desc);
    if kind != InvokeKind::Static && name == "clone" && desc.starts_with("()L") {
        plan.post.push(CallEvent::Cloned);
    }
    plan
}

/// The probes the JDK models call for around `owner.name desc`.
fn modelled_call_plan(kind: InvokeKind, owner: &str, name: &str, desc: &str) -> CallPlan {
    let mut plan = CallPlan::default();
    if owner.starts_with("lockstep/") || owner.starts_with('[') {
        return plan;
    }
    let instance = kind != InvokeKind::Static;
    let app_or_thread = owner == THREAD_CLASS || !is_jdk_class(owner);
    if instance && name != "<init>" {
        thread_calls(&mut plan, owner, name, desc, app_or_thread);
        object_monitor_calls(&mut plan, name, desc);
    }
    if !plan.is_empty() {
        return plan;
    }
    if name != "<init>" {
        crate::handoffs::task_calls(&mut plan, kind, owner, name, desc);
    }
    if !plan.is_empty() {
        return plan;
    }
    if !is_jdk_class(owner) {
        if instance && name != "<init>" {
            app_executor_calls(&mut plan, name, desc);
        }
        return plan;
    }
    if instance {
        lock_calls(&mut plan, owner, name, desc);
        ordering_calls(&mut plan, owner, name, desc);
    }
    hand_off_calls(&mut plan, owner, name, desc);
    if plan.is_empty() && instance && name != "<init>" {
        atomic_calls(&mut plan, owner, name);
    }
    if plan.is_empty() && instance && name != "<init>" {
        container_calls(&mut plan, owner, name);
    }
    if instance && name != "<init>" {
        view_calls(&mut plan, owner, name, desc);
    }
    plan
}

/// Views and iterators of thread-safe containers stand for their container
/// (`lockstep_models::views`): the call making one tells the recorder whose
/// view the result is, and each iterator step acquires the container.
fn view_calls(plan: &mut CallPlan, owner: &str, name: &str, desc: &str) {
    match view_effect(owner, name, desc) {
        Some(ViewEffect::MakesView { known_safe }) => {
            plan.post.push(CallEvent::ContainerView { known_safe })
        }
        Some(ViewEffect::Step { before: true }) => plan.pre.push(CallEvent::ViewStep),
        Some(ViewEffect::Step { before: false }) => plan.post.push(CallEvent::ViewStep),
        None => {}
    }
}

/// The release side of a hand-off goes before the call (nothing the call
/// publishes can be seen before it), the acquire side after it (it sees
/// what the call read).
fn release_and_acquire(plan: &mut CallPlan, release: bool, acquire: bool, kind: SyncKind) {
    if release {
        plan.pre.push(CallEvent::Release(kind));
    }
    if acquire {
        plan.post.push(CallEvent::Acquire(kind));
    }
}

/// Atomic variables order like volatiles, on the receiver (a failed
/// `compareAndSet` still reads, so its acquire is unconditional).
fn atomic_calls(plan: &mut CallPlan, owner: &str, name: &str) {
    let Some(access) = atomic_access(owner, name) else {
        return;
    };
    let (release, acquire) = match access {
        AtomicAccess::Read => (false, true),
        AtomicAccess::Write => (true, false),
        AtomicAccess::Update => (true, true),
    };
    release_and_acquire(plan, release, acquire, SyncKind::Atomic);
}

/// Container calls: a thread-safe container's (by static type) are
/// hand-offs, not accesses — a write releases and acquires (it may return
/// what it replaced), a read acquires. A call through an interface
/// (`Map.put`) is recorded as an access *and* as a hand-off; the checker
/// keeps the one the object's run-time class calls for.
fn container_calls(plan: &mut CallPlan, owner: &str, name: &str) {
    if let Some(access) = thread_safe_container_access(owner, name) {
        container_hand_off(plan, access == ContainerAccess::Write, true);
        return;
    }
    let Some(access) = container_access_via(owner, name, &is_jdk_subtype) else {
        return;
    };
    let write = access == ContainerAccess::Write;
    plan.pre.push(if write {
        CallEvent::ContainerWrite
    } else {
        CallEvent::ContainerRead
    });
    if may_be_thread_safe_container(owner) {
        container_hand_off(plan, write, false);
    }
}

/// The hand-off of a call on a thread-safe container: an acquire before
/// the call (and a release when it writes), an acquire after it. The
/// recorder also knows the thread is inside the call in between: the
/// container calls back into the program (`equals`/`hashCode`/`compareTo`
/// of stored keys, a `forEach` action, a `computeIfAbsent` function), and
/// a callback reads what other threads put, possibly while the call was
/// already running (jgroups' `UUID.equals` inside `ConcurrentHashMap.get`).
fn container_hand_off(plan: &mut CallPlan, write: bool, known_safe: bool) {
    plan.pre
        .push(CallEvent::ContainerCall { write, known_safe });
    plan.post.push(CallEvent::ContainerReturn);
}

fn thread_calls(plan: &mut CallPlan, _owner: &str, name: &str, desc: &str, app_or_thread: bool) {
    if !app_or_thread {
        return;
    }
    match (name, desc) {
        ("start", "()V") => plan.pre.push(CallEvent::ThreadStart),
        ("join", "()V" | "(J)V" | "(JI)V") => plan.post.push(CallEvent::ThreadJoin),
        _ => {}
    }
}

/// `wait`/`notify` are final methods of `Object`: whatever the static type.
fn object_monitor_calls(plan: &mut CallPlan, name: &str, desc: &str) {
    match (name, desc) {
        ("wait", "()V" | "(J)V" | "(JI)V") => {
            plan.pre.push(CallEvent::WaitPre);
            plan.post.push(CallEvent::WaitPost);
        }
        ("notify", "()V") => plan.pre.push(CallEvent::Notify { all: false }),
        ("notifyAll", "()V") => plan.pre.push(CallEvent::Notify { all: true }),
        _ => {}
    }
}

fn lock_calls(plan: &mut CallPlan, owner: &str, name: &str, desc: &str) {
    let Some(effect) = lock_effect_via(owner, name, desc, &is_jdk_subtype) else {
        return;
    };
    match effect {
        LockEffect::Lock(m) => plan.post.extend(side(m).map(CallEvent::Lock)),
        LockEffect::Unlock(m) => plan.pre.extend(side(m).map(CallEvent::Unlock)),
        LockEffect::LockedIfTrue(m) => plan.post.extend(side(m).map(CallEvent::TryLock)),
        LockEffect::ReadView if desc.ends_with(";") => plan.post.push(CallEvent::ReadView),
        LockEffect::WriteView if desc.ends_with(";") => plan.post.push(CallEvent::WriteView),
        LockEffect::NewCondition => plan.post.push(CallEvent::NewCondition),
        LockEffect::ConditionAwait => {
            plan.pre.push(CallEvent::AwaitPre);
            plan.post.push(CallEvent::AwaitPost);
        }
        LockEffect::ConditionSignal => plan.pre.push(CallEvent::Signal {
            all: name == "signalAll",
        }),
        _ => {}
    }
}

fn ordering_calls(plan: &mut CallPlan, owner: &str, name: &str, desc: &str) {
    let Some(effect) = ordering_effect_via(owner, name, desc, &is_jdk_subtype) else {
        return;
    };
    let returns_bool = desc.ends_with(")Z");
    let acquire = |k| {
        if returns_bool {
            CallEvent::AcquireIfTrue(k)
        } else {
            CallEvent::Acquire(k)
        }
    };
    use OrderingEffect::*;
    match effect {
        JoinThread => plan.post.push(CallEvent::ThreadJoin),
        AwaitFuture => plan.post.push(CallEvent::Acquire(SyncKind::Future)),
        AwaitTerminationIfTrue | AwaitTermination | InvokeAllCompleted => {
            plan.post.push(acquire(SyncKind::Executor))
        }
        LatchCountDown => plan.pre.push(CallEvent::Release(SyncKind::Latch)),
        LatchAwait => plan.post.push(acquire(SyncKind::Latch)),
        BarrierAwait => {
            plan.pre.push(CallEvent::Release(SyncKind::Barrier));
            plan.post.push(CallEvent::Acquire(SyncKind::Barrier));
        }
        PhaserArrive => plan.pre.push(CallEvent::Release(SyncKind::Phaser)),
        SemaphoreAcquire => plan.post.push(acquire(SyncKind::Semaphore)),
        SemaphoreRelease => plan.pre.push(CallEvent::Release(SyncKind::Semaphore)),
        Exchange => {
            plan.pre.push(CallEvent::Release(SyncKind::Exchange));
            plan.post.push(CallEvent::Acquire(SyncKind::Exchange));
        }
        QueuePut => plan.pre.push(CallEvent::Release(SyncKind::Queue)),
        QueueTake => plan.post.push(CallEvent::Acquire(SyncKind::Queue)),
        // The run-time checkers do not model the event dispatch thread.
        Shutdown | InvokeAndWaitCompleted => {}
    }
}

/// Task interfaces the runtime's wrapper implements.
pub(crate) const WRAPPABLE: [&EntryMethod; 3] = [&RUNNABLE, &CALLABLE, &SUPPLIER];

/// Is a parameter descriptor (`Lpkg/Cls;`) one of the wrappable task interfaces?
fn is_wrappable(param: &str) -> bool {
    let class = param.strip_prefix('L').and_then(|p| p.strip_suffix(';'));
    class.is_some_and(|c| WRAPPABLE.iter().any(|e| e.interface == c))
}

fn hand_off_calls(plan: &mut CallPlan, owner: &str, name: &str, desc: &str) {
    for launch in thread_starts_via(owner, name, desc, &is_jdk_subtype) {
        if let (LaunchKind::InvokeAll, TaskShape::Collection, Operand::Arg(n)) =
            (launch.kind, launch.shape, launch.task)
        {
            plan.wrap_arg = Some(usize::from(n));
            plan.wrap_all = true;
            return;
        }
        let wrappable_kind = matches!(
            launch.kind,
            LaunchKind::Executor | LaunchKind::CompletableFuture | LaunchKind::ScheduledExecutor
        );
        let Operand::Arg(n) = launch.task else {
            continue;
        };
        if !wrappable_kind || launch.shape != TaskShape::Functional {
            continue;
        }
        let n = usize::from(n);
        if param_descriptor(desc, n).is_some_and(is_wrappable) {
            plan.wrap_arg = Some(n);
            plan.pre.push(CallEvent::HandOff);
            if desc.ends_with(';') {
                plan.post.push(CallEvent::FutureOf);
            }
            return;
        }
    }
}

// The JDK executor type whose methods stand for those of an application
// class: every hand-off method of `Executor`, `ExecutorService` and
// `ScheduledExecutorService` is declared by (or inherited into) it.
use lockstep_models::threads::EXECUTOR_MODEL_CLASS as EXECUTOR_MODEL;

/// A call of an executor method (`execute(Runnable)`, `submit`,
/// `schedule`...) on an application class, such as jgroups'
/// `ThreadManagerThreadPoolExecutor extends ThreadPoolExecutor`: the task
/// is wrapped as for a JDK executor, and the recorder's wrapper checks at
/// run time that the receiver is a `java.util.concurrent.Executor` (else it
/// hands the task on unwrapped and records nothing).
fn app_executor_calls(plan: &mut CallPlan, name: &str, desc: &str) {
    hand_off_calls(plan, EXECUTOR_MODEL, name, desc);
}

/// The descriptor of parameter `n` of a method descriptor.
fn param_descriptor(desc: &str, n: usize) -> Option<&str> {
    let params = desc.strip_prefix('(')?.split(')').next()?;
    let b = params.as_bytes();
    let mut i = 0;
    let mut index = 0;
    while i < b.len() {
        let start = i;
        while b.get(i) == Some(&b'[') {
            i += 1;
        }
        if *b.get(i)? == b'L' {
            i += params[i..].find(';')? + 1;
        } else {
            i += 1;
        }
        if index == n {
            return params.get(start..i);
        }
        index += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_on_concrete_types_are_found() {
        let p = call_plan(
            InvokeKind::Virtual,
            "java/util/concurrent/locks/ReentrantLock",
            "lock",
            "()V",
        );
        assert_eq!(p.post, vec![CallEvent::Lock(LockSide::Exclusive)]);
        let p = call_plan(
            InvokeKind::Virtual,
            "java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock",
            "unlock",
            "()V",
        );
        assert_eq!(p.pre, vec![CallEvent::Unlock(LockSide::Read)]);
    }

    #[test]
    fn thread_subclass_start_and_wait_overloads() {
        let p = call_plan(InvokeKind::Virtual, "app/Worker", "start", "()V");
        assert_eq!(p.pre, vec![CallEvent::ThreadStart]);
        let p = call_plan(InvokeKind::Virtual, "app/Worker", "wait", "(JI)V");
        assert_eq!(p.post, vec![CallEvent::WaitPost]);
        assert!(call_plan(InvokeKind::Virtual, "java/util/Timer", "start", "()V").is_empty());
    }

    #[test]
    fn executor_submit_wraps_the_task() {
        let p = call_plan(
            InvokeKind::Interface,
            "java/util/concurrent/ExecutorService",
            "submit",
            "(Ljava/util/concurrent/Callable;)Ljava/util/concurrent/Future;",
        );
        assert_eq!(p.wrap_arg, Some(0));
        assert_eq!(p.post, vec![CallEvent::FutureOf]);
    }

    #[test]
    fn collections_and_latches() {
        let p = call_plan(
            InvokeKind::Virtual,
            "java/util/ArrayList",
            "add",
            "(Ljava/lang/Object;)Z",
        );
        assert_eq!(p.pre, vec![CallEvent::ContainerWrite]);
        let p = call_plan(
            InvokeKind::Virtual,
            "java/util/concurrent/CountDownLatch",
            "await",
            "()V",
        );
        assert_eq!(p.post, vec![CallEvent::Acquire(SyncKind::Latch)]);
        assert_eq!(param_descriptor("(IJLa/B;[[I)V", 3), Some("[[I"));
    }

    #[test]
    fn atomics_release_before_and_acquire_after_the_call() {
        let r = "java/util/concurrent/atomic/AtomicReference";
        let cas = call_plan(
            InvokeKind::Virtual,
            r,
            "compareAndSet",
            "(Ljava/lang/Object;Ljava/lang/Object;)Z",
        );
        assert_eq!(cas.pre, vec![CallEvent::Release(SyncKind::Atomic)]);
        assert_eq!(cas.post, vec![CallEvent::Acquire(SyncKind::Atomic)]);
        let get = call_plan(InvokeKind::Virtual, r, "get", "()Ljava/lang/Object;");
        assert!(get.pre.is_empty());
        assert_eq!(get.post, vec![CallEvent::Acquire(SyncKind::Atomic)]);
        let set = call_plan(
            InvokeKind::Virtual,
            "java/util/concurrent/atomic/AtomicLong",
            "lazySet",
            "(J)V",
        );
        assert_eq!(set.pre, vec![CallEvent::Release(SyncKind::Atomic)]);
        assert!(set.post.is_empty());
        let plain = call_plan(
            InvokeKind::Virtual,
            "java/lang/invoke/VarHandle",
            "get",
            "(LA;)I",
        );
        assert!(plain.is_empty());
    }

    #[test]
    fn thread_safe_containers_hand_off_and_interfaces_record_both() {
        let chm = "java/util/concurrent/ConcurrentHashMap";
        let put = call_plan(
            InvokeKind::Virtual,
            chm,
            "put",
            "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
        );
        assert_eq!(
            put.pre,
            vec![CallEvent::ContainerCall {
                write: true,
                known_safe: true
            }]
        );
        assert_eq!(put.post, vec![CallEvent::ContainerReturn]);
        let get = call_plan(
            InvokeKind::Interface,
            "java/util/Map",
            "get",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
        );
        assert_eq!(
            get.pre,
            vec![
                CallEvent::ContainerRead,
                CallEvent::ContainerCall {
                    write: false,
                    known_safe: false
                }
            ]
        );
        assert_eq!(get.post, vec![CallEvent::ContainerReturn]);
        let hash = call_plan(
            InvokeKind::Virtual,
            "java/util/HashMap",
            "get",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
        );
        assert_eq!(hash.pre, vec![CallEvent::ContainerRead]);
        assert!(hash.post.is_empty());
    }

    #[test]
    fn views_of_concurrent_maps_are_mapped_and_iterator_steps_acquire() {
        let head = call_plan(
            InvokeKind::Virtual,
            "java/util/concurrent/ConcurrentSkipListMap",
            "headMap",
            "(Ljava/lang/Object;Z)Ljava/util/concurrent/ConcurrentNavigableMap;",
        );
        assert_eq!(
            head.post.last(),
            Some(&CallEvent::ContainerView { known_safe: true })
        );
        assert!(needs_result(CallEvent::ContainerView { known_safe: true }));
        let iter = call_plan(
            InvokeKind::Interface,
            "java/util/Set",
            "iterator",
            "()Ljava/util/Iterator;",
        );
        assert_eq!(
            iter.post.last(),
            Some(&CallEvent::ContainerView { known_safe: false })
        );
        let next = call_plan(
            InvokeKind::Interface,
            "java/util/Iterator",
            "next",
            "()Ljava/lang/Object;",
        );
        assert_eq!(next.post, vec![CallEvent::ViewStep]);
        let each = call_plan(
            InvokeKind::Interface,
            "java/util/Iterator",
            "forEachRemaining",
            "(Ljava/util/function/Consumer;)V",
        );
        assert_eq!(each.pre, vec![CallEvent::ViewStep]);
        // A HashMap's views are not mapped (the checkers treat them as reads).
        let plain = call_plan(
            InvokeKind::Virtual,
            "java/util/HashMap",
            "values",
            "()Ljava/util/Collection;",
        );
        assert!(!plain
            .post
            .iter()
            .any(|e| matches!(e, CallEvent::ContainerView { .. })));
    }
}
