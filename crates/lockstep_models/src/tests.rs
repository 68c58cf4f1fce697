//! Unit tests of the lookups, with a small hand-written hierarchy standing
#![cfg_attr(rustfmt, rustfmt_skip)]
//! in for the program model's.

use crate::*;

/// `sub <: sup` for a few JDK and user types.
fn is_subtype(sub: &str, sup: &str) -> bool {
    const EDGES: &[(&str, &str)] = &[
        ("java/util/concurrent/ThreadPoolExecutor", "java/util/concurrent/AbstractExecutorService"),
        ("java/util/concurrent/AbstractExecutorService", "java/util/concurrent/ExecutorService"),
        ("java/util/concurrent/ExecutorService", "java/util/concurrent/Executor"),
        ("java/util/concurrent/ScheduledThreadPoolExecutor", "java/util/concurrent/ThreadPoolExecutor"),
        ("java/util/concurrent/ScheduledThreadPoolExecutor", "java/util/concurrent/ScheduledExecutorService"),
        ("java/util/concurrent/ScheduledExecutorService", "java/util/concurrent/ExecutorService"),
        ("java/util/concurrent/ForkJoinPool", "java/util/concurrent/AbstractExecutorService"),
        ("java/util/concurrent/CompletableFuture", "java/util/concurrent/CompletionStage"),
        ("java/util/concurrent/CompletableFuture", "java/util/concurrent/Future"),
        ("app/MyThread", "java/lang/Thread"),
        ("app/MyMap", "java/util/HashMap"),
        ("java/util/HashMap", "java/util/AbstractMap"),
        ("java/util/AbstractMap", "java/util/Map"),
        ("java/util/ArrayList", "java/util/List"),
        ("java/util/List", "java/util/Collection"),
        ("java/util/concurrent/ConcurrentHashMap", "java/util/concurrent/ConcurrentMap"),
        ("java/util/concurrent/ConcurrentMap", "java/util/Map"),
        ("java/util/concurrent/LinkedBlockingQueue", "java/util/concurrent/BlockingQueue"),
        ("app/MyQueue", "java/util/concurrent/BlockingQueue"),
        ("java/util/concurrent/BlockingQueue", "java/util/Queue"),
        ("java/util/Queue", "java/util/Collection"),
        ("java/util/concurrent/locks/ReentrantLock", "java/util/concurrent/locks/Lock"),
        ("java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock", "java/util/concurrent/locks/Lock"),
        ("java/util/concurrent/locks/ReentrantReadWriteLock", "java/util/concurrent/locks/ReadWriteLock"),
        ("app/Counter", "java/lang/Object"),
    ];
    if sub == sup || sup == "java/lang/Object" {
        return true;
    }
    EDGES
        .iter()
        .any(|&(a, b)| a == sub && (b == sup || is_subtype(b, sup)))
}

#[test]
fn thread_start_exact_and_via_hierarchy() {
    let t = thread_start("java/lang/Thread", "start", "()V").unwrap();
    assert_eq!(t.kind, LaunchKind::ThreadStart);
    assert_eq!(t.task, Operand::Receiver);
    assert_eq!(t.shape, TaskShape::Thread);
    assert_eq!(t.entry.candidates, &[("run", "()V")]);
    assert!(thread_start("app/MyThread", "start", "()V").is_none());
    assert!(thread_start_via("app/MyThread", "start", "()V", &is_subtype).is_some());
    assert!(thread_start("java/lang/Thread", "start", "(I)V").is_none());

    let tpe = "java/util/concurrent/ThreadPoolExecutor";
    let sub = thread_start_via(tpe, "submit", "(Ljava/util/concurrent/Callable;)Ljava/util/concurrent/Future;", &is_subtype).unwrap();
    assert_eq!(sub.entry.interface, "java/util/concurrent/Callable");
    assert_eq!(sub.entry.candidates[0], ("call", "()Ljava/lang/Object;"));
    let sub = thread_start_via(tpe, "submit", "(Ljava/lang/Runnable;)Ljava/util/concurrent/Future;", &is_subtype).unwrap();
    assert_eq!(sub.entry.name(), "run");
    let ex = thread_start_via(tpe, "execute", "(Ljava/lang/Runnable;)V", &is_subtype).unwrap();
    assert_eq!((ex.kind, ex.task), (LaunchKind::Executor, Operand::Arg(0)));
    let all = thread_start_via(tpe, "invokeAll", "(Ljava/util/Collection;)Ljava/util/List;", &is_subtype).unwrap();
    assert_eq!(all.shape, TaskShape::Collection);
}

#[test]
fn periodic_and_once() {
    let stpe = "java/util/concurrent/ScheduledThreadPoolExecutor";
    let d = "(Ljava/lang/Runnable;JJLjava/util/concurrent/TimeUnit;)Ljava/util/concurrent/ScheduledFuture;";
    assert_eq!(thread_start_via(stpe, "scheduleAtFixedRate", d, &is_subtype).unwrap().repeat, Repeat::Periodic);
    let d = "(Ljava/lang/Runnable;JLjava/util/concurrent/TimeUnit;)Ljava/util/concurrent/ScheduledFuture;";
    assert_eq!(thread_start_via(stpe, "schedule", d, &is_subtype).unwrap().repeat, Repeat::Once);
    assert_eq!(thread_start("java/util/Timer", "schedule", "(Ljava/util/TimerTask;J)V").unwrap().repeat, Repeat::Once);
    let t = thread_start("java/util/Timer", "schedule", "(Ljava/util/TimerTask;JJ)V").unwrap();
    assert_eq!((t.repeat, t.entry.interface), (Repeat::Periodic, "java/util/TimerTask"));
}

#[test]
fn completable_future_models() {
    let cf = "java/util/concurrent/CompletableFuture";
    let r = thread_start(cf, "runAsync", "(Ljava/lang/Runnable;)Ljava/util/concurrent/CompletableFuture;").unwrap();
    assert!(r.is_static);
    assert_eq!(r.entry.name(), "run");
    let s = thread_start(cf, "supplyAsync", "(Ljava/util/function/Supplier;Ljava/util/concurrent/Executor;)Ljava/util/concurrent/CompletableFuture;").unwrap();
    assert_eq!(s.entry.interface, "java/util/function/Supplier");
    let c = thread_start_via(cf, "thenCombineAsync", "(Ljava/util/concurrent/CompletionStage;Ljava/util/function/BiFunction;)Ljava/util/concurrent/CompletableFuture;", &is_subtype).unwrap();
    assert_eq!((c.task, c.entry.interface), (Operand::Arg(1), "java/util/function/BiFunction"));
    let a = thread_start_via(cf, "thenApply", "(Ljava/util/function/Function;)Ljava/util/concurrent/CompletableFuture;", &is_subtype).unwrap();
    assert_eq!(a.asynchronous, Async::Maybe);
}

#[test]
fn fork_join_specific_model_wins() {
    let fjp = "java/util/concurrent/ForkJoinPool";
    let v = thread_starts_via(fjp, "submit", "(Ljava/util/concurrent/ForkJoinTask;)Ljava/util/concurrent/ForkJoinTask;", &is_subtype);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].entry.candidates[0].0, "compute");
    let v = thread_starts_via(fjp, "submit", "(Ljava/lang/Runnable;)Ljava/util/concurrent/ForkJoinTask;", &is_subtype);
    assert_eq!((v.len(), v[0].class), (1, "java/util/concurrent/ExecutorService"));
    let both = thread_starts("java/util/concurrent/ForkJoinTask", "invokeAll", "(Ljava/util/concurrent/ForkJoinTask;Ljava/util/concurrent/ForkJoinTask;)V");
    assert_eq!(both.iter().map(|t| t.task).collect::<Vec<_>>(), vec![Operand::Arg(0), Operand::Arg(1)]);
}

#[test]
fn every_launch_is_well_formed() {
    for t in threads::all_launches() {
        assert!(!t.entry.candidates.is_empty(), "{t:?}");
        if let Desc::Exact(d) | Desc::Params(d) = t.desc {
            assert!(d.starts_with('('), "{t:?}");
        }
        if let Desc::Params(d) = t.desc {
            assert!(d.ends_with(')'), "{t:?}");
        }
    }
}

#[test]
fn lock_effects() {
    let rl = "java/util/concurrent/locks/ReentrantLock";
    assert_eq!(lock_effect_via(rl, "lock", "()V", &is_subtype), Some(LockEffect::Lock(LockMode::Exclusive)));
    assert_eq!(lock_effect(rl, "lock", "()V"), None);
    assert_eq!(lock_effect_via(rl, "tryLock", "()Z", &is_subtype), Some(LockEffect::LockedIfTrue(LockMode::Exclusive)));
    assert_eq!(lock_effect_via(rl, "tryLock", "(JLjava/util/concurrent/TimeUnit;)Z", &is_subtype), Some(LockEffect::LockedIfTrue(LockMode::Exclusive)));
    assert_eq!(lock_effect_via(rl, "unlock", "()V", &is_subtype), Some(LockEffect::Unlock(LockMode::Exclusive)));
    let rd = "java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock";
    assert_eq!(lock_effect_via(rd, "lock", "()V", &is_subtype), Some(LockEffect::Lock(LockMode::Read)));
    let rw = "java/util/concurrent/locks/ReentrantReadWriteLock";
    assert_eq!(lock_effect_via(rw, "writeLock", "()Ljava/util/concurrent/locks/ReentrantReadWriteLock$WriteLock;", &is_subtype), Some(LockEffect::WriteView));
    let sl = "java/util/concurrent/locks/StampedLock";
    assert_eq!(lock_effect(sl, "writeLock", "()J"), Some(LockEffect::Lock(LockMode::Write)));
    assert_eq!(lock_effect(sl, "unlockRead", "(J)V"), Some(LockEffect::Unlock(LockMode::Read)));
    assert_eq!(lock_effect(sl, "tryOptimisticRead", "()J"), Some(LockEffect::OptimisticRead));
    assert_eq!(lock_effect_via("app/Counter", "wait", "(J)V", &is_subtype), Some(LockEffect::MonitorWait));
    assert_eq!(lock_effect_via("app/Counter", "notifyAll", "()V", &is_subtype), Some(LockEffect::MonitorNotify));
    assert_eq!(lock_effect("java/util/concurrent/locks/Condition", "await", "()V"), Some(LockEffect::ConditionAwait));
    assert_eq!(lock_effect("app/Counter", "lock", "()V"), None);
}

#[test]
fn lock_parts_are_built_by_lock_constructors_and_view_getters() {
    use crate::builds_lock_parts;
    let rw = "java/util/concurrent/locks/ReentrantReadWriteLock";
    assert!(builds_lock_parts(rw, "<init>"));
    assert!(builds_lock_parts(rw, "readLock"));
    assert!(builds_lock_parts("java/util/concurrent/locks/ReentrantReadWriteLock$WriteLock", "<init>"));
    assert!(builds_lock_parts("java/util/concurrent/locks/ReentrantReadWriteLock$FairSync", "<init>"));
    assert!(!builds_lock_parts(rw, "isFair"));
    assert!(!builds_lock_parts("java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock", "lock"));
    assert!(!builds_lock_parts("java/util/HashMap", "<init>"));
    assert!(!builds_lock_parts("app/locks/MyLock", "<init>"));
}

#[test]
fn synchronized_wrappers_are_built_by_the_collections_factories() {
    use crate::builds_synchronized_wrapper;
    assert!(builds_synchronized_wrapper("java/util/Collections", "synchronizedMap"));
    assert!(builds_synchronized_wrapper("java/util/Collections", "synchronizedList"));
    assert!(builds_synchronized_wrapper("java/util/Collections", "synchronizedNavigableSet"));
    assert!(builds_synchronized_wrapper("java/util/Collections$SynchronizedMap", "<init>"));
    assert!(builds_synchronized_wrapper("java/util/Collections$SynchronizedRandomAccessList", "<init>"));
    assert!(!builds_synchronized_wrapper("java/util/Collections", "unmodifiableMap"));
    assert!(!builds_synchronized_wrapper("java/util/Collections$SynchronizedMap", "put"));
    assert!(!builds_synchronized_wrapper("java/util/Collections$UnmodifiableMap", "<init>"));
    assert!(!builds_synchronized_wrapper("app/Collections", "synchronizedMap"));
}

#[test]
fn ordering_effects() {
    assert_eq!(ordering_effect_via("app/MyThread", "join", "()V", &is_subtype), Some(OrderingEffect::JoinThread));
    assert_eq!(ordering_effect_via("java/util/concurrent/CompletableFuture", "join", "()Ljava/lang/Object;", &is_subtype), Some(OrderingEffect::AwaitFuture));
    assert_eq!(ordering_effect_via("java/util/concurrent/ThreadPoolExecutor", "shutdown", "()V", &is_subtype), Some(OrderingEffect::Shutdown));
    assert_eq!(ordering_effect("java/util/concurrent/CountDownLatch", "countDown", "()V"), Some(OrderingEffect::LatchCountDown));
}

#[test]
fn thread_safety_lookups() {
    assert_eq!(thread_safety("java/util/concurrent/ConcurrentHashMap"), Some(ThreadSafety::Concurrent));
    assert_eq!(thread_safety("java/util/concurrent/atomic/AtomicInteger"), Some(ThreadSafety::Atomic));
    assert_eq!(thread_safety("java/util/concurrent/atomic/sub/X"), None);
    assert_eq!(thread_safety("java/util/Vector"), Some(ThreadSafety::SelfSynchronized));
    assert_eq!(thread_safety("java/util/Collections$SynchronizedMap"), Some(ThreadSafety::SelfSynchronized));
    assert!(is_self_synchronized("java/lang/StringBuffer"));
    assert!(!is_self_synchronized("java/lang/StringBuilder"));
    assert_eq!(thread_safety("java/lang/String"), Some(ThreadSafety::Immutable));
    assert_eq!(thread_safety("java/time/LocalDate"), Some(ThreadSafety::Immutable));
    assert_eq!(thread_safety("java/lang/ThreadLocal"), Some(ThreadSafety::ThreadLocal));
    assert!(!is_thread_safe_class("java/util/HashMap"));
    assert!(!is_thread_safe_class("app/MyQueue"));
    assert!(is_thread_safe_via("app/MyQueue", &is_subtype));
    assert!(!is_thread_safe_via("app/MyThread", &is_subtype));
    assert_eq!(factory_result("java/util/Collections", "synchronizedList", "(Ljava/util/List;)Ljava/util/List;"), Some(FactoryResult::ThreadSafe(ThreadSafety::SelfSynchronized)));
    assert_eq!(factory_result("java/util/Collections", "unmodifiableMap", "(Ljava/util/Map;)Ljava/util/Map;"), Some(FactoryResult::UnmodifiableView));
    assert_eq!(factory_result("java/util/List", "of", "()Ljava/util/List;"), Some(FactoryResult::ThreadSafe(ThreadSafety::Immutable)));
    assert_eq!(factory_result("java/util/Collections", "sort", "(Ljava/util/List;)V"), None);
}

#[test]
fn container_lookups() {
    assert_eq!(container_access("java/util/HashMap", "put"), Some(ContainerAccess::Write));
    assert_eq!(container_access("java/util/HashMap", "get"), Some(ContainerAccess::Read));
    assert_eq!(container_access("java/util/Map", "computeIfAbsent"), Some(ContainerAccess::Write));
    assert_eq!(container_access("java/util/ArrayList", "set"), Some(ContainerAccess::Write));
    assert_eq!(container_access("java/util/List", "iterator"), Some(ContainerAccess::Read));
    assert_eq!(container_access("java/util/HashMap", "frobnicate"), None);
    assert_eq!(container_access("app/MyMap", "put"), None);
    assert_eq!(container_access_via("app/MyMap", "put", &is_subtype), Some(ContainerAccess::Write));
    assert_eq!(container_access_via("java/util/concurrent/ConcurrentHashMap", "put", &is_subtype), None);
    assert_eq!(container_access_via("java/util/concurrent/LinkedBlockingQueue", "offer", &is_subtype), None);
    assert_eq!(container_family("java/lang/StringBuilder"), Some(ContainerFamily::StringBuilder));
    assert_eq!(container_access("java/lang/StringBuilder", "append"), Some(ContainerAccess::Write));
}

#[test]
fn confinement_hints() {
    assert_eq!(confinement_hint("java/lang/Thread", "currentThread", "()Ljava/lang/Thread;"), Some(ConfinementHint::CurrentThread));
    assert_eq!(confinement_hint("java/lang/ThreadLocal", "get", "()Ljava/lang/Object;"), Some(ConfinementHint::ThreadLocalValue));
    assert_eq!(confinement_hint("app/X", "get", "()Ljava/lang/Object;"), None);
    assert!(is_jdk_class("java/lang/Thread"));
    assert!(!is_jdk_class("javalike/X"));
}
