//! Lock effects of JDK calls (RacerD-style `Lock | Unlock | LockedIfTrue`),
//! plus monitor `wait/notify` and `Condition` semantics.
//!
//! Modelled: `java.util.concurrent.locks.Lock` (and through it
//! `ReentrantLock`), the read and write views of `ReadWriteLock` /
//! `ReentrantReadWriteLock`, `StampedLock` (write/read/optimistic read,
//! stamps, `asReadLock`/`asWriteLock` views), `Object.wait/notify/notifyAll`
//! and `Condition.await*/signal*`.
//!
//! The subject of every effect is the receiver; the view effects
//! ([`LockEffect::ReadView`], [`LockEffect::WriteView`],
//! [`LockEffect::NewCondition`]) describe the *result* in terms of the
//! receiver. Which object a lock operand denotes, and whether a `tryLock`
//! result was tested, is the analysis' business.
//!
//! Besides the effects, which JDK methods build a lock's parts
//! ([`builds_lock_parts`]) or make a `Collections.synchronized*` wrapper
//! ([`builds_synchronized_wrapper`]): the points-to analysis runs those in
//! their receiver's (a factory: its caller's) context whatever its bound
//! on contexts, so that each lock is named by the object that made it,
//! not by the JDK's allocation site.
//!
//! Not modelled: `StampedLock.tryConvertTo*` (treated as unknown),
//! `LockSupport`, `Semaphore` used as a mutex (see [`crate::ordering`]),
//! `synchronized` (the IR has monitor regions).

use crate::table::{Keyed, Table};
use crate::Desc;

/// Which side of a lock an effect concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LockMode {
    /// A mutual-exclusion lock (`Lock.lock`, monitors).
    Exclusive,
    /// The shared side of a read-write lock.
    Read,
    /// The exclusive side of a read-write lock.
    Write,
    /// Whatever mode the stamp was acquired in (`StampedLock.unlock(stamp)`).
    Stamp,
}

/// What a call does to the receiver lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockEffect {
    /// Acquires the receiver (blocks until it does).
    Lock(LockMode),
    /// Releases the receiver.
    Unlock(LockMode),
    /// Acquires the receiver if and only if the call returns `true` (`tryLock`).
    LockedIfTrue(LockMode),
    /// Acquires the receiver if and only if the returned stamp is non-zero
    /// (`StampedLock.tryWriteLock`).
    LockedIfNonZero(LockMode),
    /// Returns the read view of the receiver lock (`ReadWriteLock.readLock()`,
    /// `StampedLock.asReadLock()`): locking the result read-locks the receiver.
    ReadView,
    /// Returns the write view of the receiver lock.
    WriteView,
    /// `StampedLock.tryOptimisticRead`: no lock; a later `validate` tells
    /// whether a writer intervened.
    OptimisticRead,
    /// `StampedLock.validate(stamp)`.
    Validate,
    /// `Object.wait*`: releases the receiver's monitor, waits, re-acquires it.
    MonitorWait,
    /// `Object.notify/notifyAll`.
    MonitorNotify,
    /// `Lock.newCondition()`: the result is a condition bound to the receiver lock.
    NewCondition,
    /// `Condition.await*`: releases the condition's lock, waits, re-acquires it.
    ConditionAwait,
    /// `Condition.signal/signalAll`.
    ConditionSignal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LockModel {
    pub class: &'static str,
    pub name: &'static str,
    pub desc: Desc,
    pub effect: LockEffect,
}

impl Keyed for LockModel {
    fn key(&self) -> (&'static str, &'static str, Desc) {
        (self.class, self.name, self.desc)
    }
}

const fn m(class: &'static str, name: &'static str, desc: Desc, effect: LockEffect) -> LockModel {
    LockModel {
        class,
        name,
        desc,
        effect,
    }
}

use Desc::{Any, Exact};
use LockEffect::*;
use LockMode::*;

const LOCK: &str = "java/util/concurrent/locks/Lock";
const RRWL_R: &str = "java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock";
const RRWL_W: &str = "java/util/concurrent/locks/ReentrantReadWriteLock$WriteLock";
const SL: &str = "java/util/concurrent/locks/StampedLock";
const COND: &str = "java/util/concurrent/locks/Condition";
const TRY_TIMED: &str = "(JLjava/util/concurrent/TimeUnit;)Z";

#[rustfmt::skip]
static MODELS: &[LockModel] = &[
    // Views of ReentrantReadWriteLock first: they also implement Lock.
    m(RRWL_R, "lock", Exact("()V"), Lock(Read)),
    m(RRWL_R, "lockInterruptibly", Exact("()V"), Lock(Read)),
    m(RRWL_R, "tryLock", Exact("()Z"), LockedIfTrue(Read)),
    m(RRWL_R, "tryLock", Exact(TRY_TIMED), LockedIfTrue(Read)),
    m(RRWL_R, "unlock", Exact("()V"), Unlock(Read)),
    m(RRWL_W, "lock", Exact("()V"), Lock(Write)),
    m(RRWL_W, "lockInterruptibly", Exact("()V"), Lock(Write)),
    m(RRWL_W, "tryLock", Exact("()Z"), LockedIfTrue(Write)),
    m(RRWL_W, "tryLock", Exact(TRY_TIMED), LockedIfTrue(Write)),
    m(RRWL_W, "unlock", Exact("()V"), Unlock(Write)),
    m(RRWL_W, "newCondition", Any, NewCondition),
    m(LOCK, "lock", Exact("()V"), Lock(Exclusive)),
    m(LOCK, "lockInterruptibly", Exact("()V"), Lock(Exclusive)),
    m(LOCK, "tryLock", Exact("()Z"), LockedIfTrue(Exclusive)),
    m(LOCK, "tryLock", Exact(TRY_TIMED), LockedIfTrue(Exclusive)),
    m(LOCK, "unlock", Exact("()V"), Unlock(Exclusive)),
    m(LOCK, "newCondition", Any, NewCondition),
    m("java/util/concurrent/locks/ReadWriteLock", "readLock", Any, ReadView),
    m("java/util/concurrent/locks/ReadWriteLock", "writeLock", Any, WriteView),
    m(SL, "writeLock", Exact("()J"), Lock(Write)),
    m(SL, "writeLockInterruptibly", Exact("()J"), Lock(Write)),
    m(SL, "readLock", Exact("()J"), Lock(Read)),
    m(SL, "readLockInterruptibly", Exact("()J"), Lock(Read)),
    m(SL, "tryWriteLock", Any, LockedIfNonZero(Write)),
    m(SL, "tryReadLock", Any, LockedIfNonZero(Read)),
    m(SL, "unlockWrite", Exact("(J)V"), Unlock(Write)),
    m(SL, "unlockRead", Exact("(J)V"), Unlock(Read)),
    m(SL, "unlock", Exact("(J)V"), Unlock(Stamp)),
    m(SL, "tryUnlockWrite", Exact("()Z"), Unlock(Write)),
    m(SL, "tryUnlockRead", Exact("()Z"), Unlock(Read)),
    m(SL, "tryOptimisticRead", Exact("()J"), OptimisticRead),
    m(SL, "validate", Exact("(J)Z"), Validate),
    m(SL, "asReadLock", Any, ReadView),
    m(SL, "asWriteLock", Any, WriteView),
    m("java/lang/Object", "wait", Any, MonitorWait),
    m("java/lang/Object", "notify", Exact("()V"), MonitorNotify),
    m("java/lang/Object", "notifyAll", Exact("()V"), MonitorNotify),
    m(COND, "await", Any, ConditionAwait),
    m(COND, "awaitNanos", Any, ConditionAwait),
    m(COND, "awaitUninterruptibly", Any, ConditionAwait),
    m(COND, "awaitUntil", Any, ConditionAwait),
    m(COND, "signal", Exact("()V"), ConditionSignal),
    m(COND, "signalAll", Exact("()V"), ConditionSignal),
];

static TABLE: Table<LockModel> = Table::new(MODELS);

/// The lock effect of a call declared exactly on `class`.
pub fn lock_effect(class: &str, name: &str, desc: &str) -> Option<LockEffect> {
    TABLE
        .lookup(class, name, Some(desc), None)
        .first()
        .map(|m| m.effect)
}

/// The lock effect of a call on `class` or a supertype. Entries for the
/// read-write lock views come before `Lock`'s, so a call on a static type
/// that is (a subtype of) a view gets the view's mode.
pub fn lock_effect_via(
    class: &str,
    name: &str,
    desc: &str,
    is_subtype: &dyn Fn(&str, &str) -> bool,
) -> Option<LockEffect> {
    TABLE
        .lookup(class, name, Some(desc), Some(is_subtype))
        .first()
        .map(|m| m.effect)
}

/// Every lock model.
pub fn all_lock_models() -> &'static [LockModel] {
    TABLE.entries()
}

/// JDK calls that wait on the monitor of an argument rather than of their
/// receiver, with that argument's index: `TimeUnit.timedWait(obj, t)` is
/// `obj.wait(ms, ns)` with the unit converted (Guava's
/// `DirectExecutorService.awaitTermination` waits this way, so its
/// `notifyAll()` has a waiter). The wait is always timed.
pub fn monitor_wait_argument(class: &str, name: &str, desc: &str) -> Option<usize> {
    match (class, name, desc) {
        ("java/util/concurrent/TimeUnit", "timedWait", "(Ljava/lang/Object;J)V") => Some(0),
        _ => None,
    }
}

/// The `java.util.concurrent.locks.Lock` interface: application classes
/// that implement it are locks whose code is analysed (their own
/// `lock()`), the JDK's are modelled.
pub const LOCK_INTERFACE: &str = "java/util/concurrent/locks/Lock";

/// Package of the JDK's locks and their synchronizers, internal form.
pub const LOCKS_PACKAGE: &str = "java/util/concurrent/locks/";

/// Types a `java.util.concurrent` lock object is a subtype of: the lock
/// interfaces and the synchronizer a read-write lock's views are named by.
pub const LOCK_OBJECT_TYPES: [&str; 3] = [
    LOCK_INTERFACE,
    "java/util/concurrent/locks/ReadWriteLock",
    "java/util/concurrent/locks/AbstractQueuedSynchronizer",
];

/// The base of the JDK's synchronizers with an exclusive owner (the `Sync`
/// of `ReentrantLock` and `ReentrantReadWriteLock`): a thread parked with
/// one as its `Thread.parkBlocker` waits for the thread in its
/// `exclusiveOwnerThread` field (what hang dumps read).
pub const OWNABLE_SYNCHRONIZER: &str = "java/util/concurrent/locks/AbstractOwnableSynchronizer";

/// A read or write view of a `ReentrantReadWriteLock` (the objects
/// `readLock()` and `writeLock()` return), and which mode it takes. Both
/// views of one lock share its `sync` field.
pub fn read_write_view(class: &str) -> Option<LockMode> {
    match class {
        "java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock" => Some(LockMode::Read),
        "java/util/concurrent/locks/ReentrantReadWriteLock$WriteLock" => Some(LockMode::Write),
        _ => None,
    }
}

/// The field of a read-write lock view that names the lock it views: its
/// synchronizer, which the lock holds in a field of the same name.
pub const READ_WRITE_VIEW_OWNER_FIELD: &str = "sync";

/// The JDK's read-write lock, whose constructor allocates its synchronizer
/// and both views: a view is named by the object of this class holding
/// its synchronizer (the application's allocation).
pub const READ_WRITE_LOCK: &str = "java/util/concurrent/locks/ReentrantReadWriteLock";

/// Is this class a plain lock object, made with `new` for nothing but
/// locking: `Object` (a monitor), `ReentrantLock`, `ReentrantReadWriteLock`?
/// Points-to gives the harness's receiver of a class the plain locks its
/// constructors store into `this` (`private final Object mutex = new
/// Object()`), so that its entries' locks name an object.
pub fn is_plain_lock_class(class: &str) -> bool {
    matches!(
        class,
        "java/lang/Object" | "java/util/concurrent/locks/ReentrantLock" | READ_WRITE_LOCK
    )
}

/// Does a JDK lock-class method build or hand out the parts of the lock
/// it is called on: a constructor of a class of
/// `java.util.concurrent.locks` (a `ReentrantReadWriteLock` allocates its
/// synchronizer and both views in its constructor, a view copies the
/// lock's `sync`), or a read-write lock's view getter? The analysis names a
/// lock's views by their synchronizer ([`READ_WRITE_VIEW_OWNER_FIELD`]),
/// so these methods must run in their receiver's context whatever the
/// points-to bound on contexts: in the one over-budget context every
/// read-write lock of the program would share one synchronizer and be one
/// lock (hsqldb: a false lock-order cycle between `SchemaManager`'s and
/// `TransactionManagerCommon`'s locks). There are a handful of them per
/// lock object.
pub fn builds_lock_parts(class: &str, name: &str) -> bool {
    class.starts_with(LOCKS_PACKAGE)
        && matches!(
            name,
            "<init>" | "readLock" | "writeLock" | "asReadLock" | "asWriteLock" | "asReadWriteLock"
        )
}

/// The factories of `java.util.Collections` whose result is a new
/// synchronized wrapper, a lock in its own right (`synchronized (map)` on
/// a `Collections.synchronizedMap(...)`, the wrapper's methods locking
/// its `mutex`, itself).
const SYNCHRONIZED_FACTORIES: &[&str] = &[
    "synchronizedCollection",
    "synchronizedList",
    "synchronizedSet",
    "synchronizedSortedSet",
    "synchronizedNavigableSet",
    "synchronizedMap",
    "synchronizedSortedMap",
    "synchronizedNavigableMap",
];

/// Does a JDK method make a synchronized wrapper of `java.util.Collections`
/// (`Collections.synchronizedMap` and its siblings) or build one (the
/// constructors of `Collections$Synchronized*`, which set its `mutex` to
/// itself)? The wrapper is allocated inside the JDK factory, so where the
/// factory runs in one shared context (past the points-to bound on
/// contexts, as on every large program) every synchronized wrapper of the
/// program is one abstract object and one lock (ActiveMQ: a queue's and a
/// topic's message store locked their `messageTable` maps, and the two
/// made one false lock-order cycle). Like [`builds_lock_parts`], these run
/// in their caller's (or receiver's) context whatever the bound, so that
/// each wrapper is named by the object that made it; there is one such
/// call per wrapper made.
pub fn builds_synchronized_wrapper(class: &str, name: &str) -> bool {
    match class {
        "java/util/Collections" => SYNCHRONIZED_FACTORIES.contains(&name),
        _ => class.starts_with("java/util/Collections$Synchronized") && name == "<init>",
    }
}

/// Does a field of this descriptor hold a `java.util.concurrent` object
/// (a sign that its class is meant for concurrent use)?
pub fn is_concurrent_field_type(descriptor: &str) -> bool {
    descriptor.starts_with("Ljava/util/concurrent/")
}
