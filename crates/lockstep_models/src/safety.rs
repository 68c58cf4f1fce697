//! Types whose instances may be shared between threads without external
//! locking, and factory methods whose results are such instances.
//!
//! Modelled: the `java.util.concurrent` collections and every
//! `BlockingQueue`/`BlockingDeque`/`ConcurrentMap`/`TransferQueue`
//! implementation, `java.util.concurrent.atomic.*`, the self-synchronized
//! legacy classes (`Vector`, `Stack`, `Hashtable`, `Properties`,
//! `StringBuffer`, `Collections$Synchronized*`), `ThreadLocal`, immutable
//! value types (`String`, boxed primitives, `BigInteger`, `BigDecimal`,
//! `java.time` values, `UUID`, `Optional`, ...), and the factories
//! `Collections.synchronized*`, `Collections.unmodifiable*` (a read-only
//! *view*: still racy when the backing collection is written),
//! `List/Set/Map.of/copyOf`, `Collections.empty*/singleton*`,
//! `ConcurrentHashMap.newKeySet`.
//!
//! "Thread-safe" here means each call is atomic with respect to others on
//! the same object; compound actions (check-then-act on a
//! `ConcurrentHashMap`) are still the atomicity detectors' concern. A user
//! subclass of a thread-safe class inherits the classification; its own
//! methods are not vetted.

use crate::table::name_matches;

/// Why calls on a type are not races.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadSafety {
    /// Lock-free or internally locked concurrent data structure (`java.util.concurrent`).
    Concurrent,
    /// Every public method is `synchronized` on the object (`Vector`, `Hashtable`, ...).
    SelfSynchronized,
    /// `java.util.concurrent.atomic.*`.
    Atomic,
    /// State never changes after construction.
    Immutable,
    /// Each thread sees its own value.
    ThreadLocal,
}

#[rustfmt::skip]
const CONCURRENT: &[&str] = &[
    "java/util/concurrent/ConcurrentHashMap",
    "java/util/concurrent/ConcurrentHashMap$KeySetView",
    "java/util/concurrent/ConcurrentSkipListMap",
    "java/util/concurrent/ConcurrentSkipListSet",
    "java/util/concurrent/ConcurrentLinkedQueue",
    "java/util/concurrent/ConcurrentLinkedDeque",
    "java/util/concurrent/CopyOnWriteArrayList",
    "java/util/concurrent/CopyOnWriteArraySet",
    "java/util/concurrent/LinkedBlockingQueue",
    "java/util/concurrent/LinkedBlockingDeque",
    "java/util/concurrent/ArrayBlockingQueue",
    "java/util/concurrent/PriorityBlockingQueue",
    "java/util/concurrent/DelayQueue",
    "java/util/concurrent/SynchronousQueue",
    "java/util/concurrent/LinkedTransferQueue",
    "java/util/concurrent/CountDownLatch",
    "java/util/concurrent/CyclicBarrier",
    "java/util/concurrent/Semaphore",
    "java/util/concurrent/Phaser",
    "java/util/concurrent/Exchanger",
    "java/util/concurrent/CompletableFuture",
    "java/util/concurrent/FutureTask",
    "java/util/concurrent/ThreadPoolExecutor",
    "java/util/concurrent/ScheduledThreadPoolExecutor",
    "java/util/concurrent/ForkJoinPool",
    "java/util/concurrent/locks/ReentrantLock",
    "java/util/concurrent/locks/ReentrantReadWriteLock",
    "java/util/concurrent/locks/StampedLock",
    "java/util/Random",
];

/// Interfaces whose every implementation is documented thread-safe.
const CONCURRENT_INTERFACES: &[&str] = &[
    "java/util/concurrent/BlockingQueue",
    "java/util/concurrent/BlockingDeque",
    "java/util/concurrent/TransferQueue",
    "java/util/concurrent/ConcurrentMap",
    "java/util/concurrent/ConcurrentNavigableMap",
    "java/util/concurrent/ExecutorService",
    "java/util/concurrent/locks/Lock",
    "java/util/concurrent/locks/ReadWriteLock",
    "java/util/concurrent/locks/Condition",
];

const SELF_SYNCHRONIZED: &[&str] = &[
    "java/util/Vector",
    "java/util/Stack",
    "java/util/Hashtable",
    "java/util/Properties",
    "java/lang/StringBuffer",
    "java/util/Collections$Synchronized*",
    // Every print/write synchronizes on the stream itself (or its `lock`).
    "java/io/PrintStream",
    "java/io/PrintWriter",
];

const ATOMIC: &[&str] = &["java/util/concurrent/atomic/"];

#[rustfmt::skip]
const IMMUTABLE: &[&str] = &[
    "java/lang/String",
    "java/lang/Boolean", "java/lang/Byte", "java/lang/Character", "java/lang/Short",
    "java/lang/Integer", "java/lang/Long", "java/lang/Float", "java/lang/Double",
    "java/lang/Number", "java/lang/Void", "java/lang/Class", "java/lang/Enum", "java/lang/Record",
    "java/math/BigInteger", "java/math/BigDecimal",
    "java/util/UUID", "java/util/Optional", "java/util/OptionalInt", "java/util/OptionalLong",
    "java/util/OptionalDouble", "java/util/Locale", "java/util/regex/Pattern",
    "java/net/URI", "java/net/InetAddress", "java/nio/file/Path",
    "java/time/", // LocalDate, Instant, Duration, ZoneId, formatters...
    "java/util/ImmutableCollections$*",
    "java/util/Collections$Empty*",
    "java/util/Collections$Singleton*",
    "java/util/Collections$CopiesList",
];

const THREAD_LOCAL: &[&str] = &[
    "java/lang/ThreadLocal",
    "java/lang/InheritableThreadLocal",
    "java/lang/ThreadLocal$SuppliedThreadLocal",
    "java/util/concurrent/ThreadLocalRandom",
];

/// The thread-safety of `class` itself (no hierarchy).
pub fn thread_safety(class: &str) -> Option<ThreadSafety> {
    if name_matches(SELF_SYNCHRONIZED, class) {
        Some(ThreadSafety::SelfSynchronized)
    } else if name_matches(ATOMIC, class) {
        Some(ThreadSafety::Atomic)
    } else if name_matches(THREAD_LOCAL, class) {
        Some(ThreadSafety::ThreadLocal)
    } else if name_matches(CONCURRENT, class) || name_matches(CONCURRENT_INTERFACES, class) {
        Some(ThreadSafety::Concurrent)
    } else if name_matches(IMMUTABLE, class) {
        Some(ThreadSafety::Immutable)
    } else {
        None
    }
}

/// The thread-safety of `class`, also when it inherits it: a subtype of a
/// listed class or of a thread-safe interface (`BlockingQueue`, ...).
pub fn thread_safety_via(
    class: &str,
    is_subtype: &dyn Fn(&str, &str) -> bool,
) -> Option<ThreadSafety> {
    if let Some(s) = thread_safety(class) {
        return Some(s);
    }
    // Only exact names can be asked of the hierarchy; prefix patterns
    // (packages, `Collections$Synchronized*`) name JDK classes that are
    // matched above or have no application subclasses worth the scan.
    let groups: [(&[&str], ThreadSafety); 5] = [
        (SELF_SYNCHRONIZED, ThreadSafety::SelfSynchronized),
        (THREAD_LOCAL, ThreadSafety::ThreadLocal),
        (CONCURRENT, ThreadSafety::Concurrent),
        (CONCURRENT_INTERFACES, ThreadSafety::Concurrent),
        (IMMUTABLE, ThreadSafety::Immutable),
    ];
    for (names, safety) in groups {
        for sup in names {
            if !sup.ends_with('*') && !sup.ends_with('/') && is_subtype(class, sup) {
                return Some(safety);
            }
        }
    }
    // Atomics: the classes are final or abstract JDK ones (Striped64 family);
    // a subclass of `Number` is not thereby atomic, so no hierarchy check.
    None
}

/// Are calls on instances of `class` (exactly) free of data races?
pub fn is_thread_safe_class(class: &str) -> bool {
    thread_safety(class).is_some()
}

/// Like [`is_thread_safe_class`], through the hierarchy.
pub fn is_thread_safe_via(class: &str, is_subtype: &dyn Fn(&str, &str) -> bool) -> bool {
    thread_safety_via(class, is_subtype).is_some()
}

/// JDK classes that synchronize every method on the object itself (paper
/// 000 §5.2 filters race witnesses inside these: the race is the caller's).
pub fn is_self_synchronized(class: &str) -> bool {
    name_matches(SELF_SYNCHRONIZED, class)
}

/// Classes whose instances never change after construction.
pub fn is_immutable_class(class: &str) -> bool {
    name_matches(IMMUTABLE, class)
}

/// What a factory method returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FactoryResult {
    /// A thread-safe object of the given kind (`Collections.synchronizedMap` → `SelfSynchronized`).
    ThreadSafe(ThreadSafety),
    /// A read-only view of the argument: reads through it race with writes
    /// to the backing collection, but the view itself is never written.
    UnmodifiableView,
}

const COLLECTIONS: &str = "java/util/Collections";

/// The kind of object a static factory returns, if it is one of the modelled factories.
pub fn factory_result(class: &str, name: &str, _desc: &str) -> Option<FactoryResult> {
    use FactoryResult::*;
    match (class, name) {
        (COLLECTIONS, n) if n.starts_with("synchronized") => {
            Some(ThreadSafe(ThreadSafety::SelfSynchronized))
        }
        (COLLECTIONS, n) if n.starts_with("unmodifiable") => Some(UnmodifiableView),
        (COLLECTIONS, n)
            if n.starts_with("empty") || n.starts_with("singleton") || n == "nCopies" =>
        {
            Some(ThreadSafe(ThreadSafety::Immutable))
        }
        ("java/util/List" | "java/util/Set" | "java/util/Map", "of" | "copyOf")
        | ("java/util/Map", "ofEntries" | "entry") => Some(ThreadSafe(ThreadSafety::Immutable)),
        ("java/util/concurrent/ConcurrentHashMap", "newKeySet") => {
            Some(ThreadSafe(ThreadSafety::Concurrent))
        }
        ("java/lang/ThreadLocal", "withInitial") => Some(ThreadSafe(ThreadSafety::ThreadLocal)),
        _ => None,
    }
}
