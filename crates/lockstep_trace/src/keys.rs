//! `key`s of `SyncRelease`/`SyncAcquire` events that are not a volatile
//! field's id (documented in `docs/trace-format.md`). They sit far above
//! any field id. Checkers need some of them: a [`COLLECTION`] edge counts
//! only when the object is a thread-safe container, and a class's
//! initialization hangs on the pseudo-object [`class_object`].

/// `CountDownLatch.countDown` → `await`.
pub const LATCH: u32 = 0xFFFF_FF00;
/// `CyclicBarrier`/`Phaser` await (both sides).
pub const BARRIER: u32 = 0xFFFF_FF01;
/// `Semaphore.release` → `acquire`.
pub const SEMAPHORE: u32 = 0xFFFF_FF02;
/// `BlockingQueue` put → take.
pub const QUEUE: u32 = 0xFFFF_FF03;
/// `Exchanger.exchange` (both sides).
pub const EXCHANGE: u32 = 0xFFFF_FF04;
/// `Phaser.arrive`.
pub const PHASER: u32 = 0xFFFF_FF05;
/// A read, write or read-modify-write of an atomic variable
/// (`java.util.concurrent.atomic`, `VarHandle`), on the receiver.
pub const ATOMIC: u32 = 0xFFFF_FF06;
/// A write (release) or read (acquire) call on a JDK container: an edge
/// only when the object's class is a thread-safe container (the recorder
/// emits it for calls whose static type may be one, e.g. `Map.put`).
pub const COLLECTION: u32 = 0xFFFF_FF07;
/// The end of a class's `<clinit>` (release) and a thread's first use of
/// one of its static fields (acquire), on [`class_object`] of the class.
pub const CLASS_INIT: u32 = 0xFFFF_FF08;
/// A task handed to an executor starts running.
pub const TASK_START: u32 = 0xFFFF_FF10;
/// A task ended (→ `Future.get`).
pub const TASK_END: u32 = 0xFFFF_FF11;
/// Every task of an executor ended (`awaitTermination`, `invokeAll`).
pub const EXECUTOR: u32 = 0xFFFF_FF12;
/// `Runtime.addShutdownHook(hook)` (release, on the hook thread) → the
/// hook thread begins (acquire).
pub const SHUTDOWN_HOOK: u32 = 0xFFFF_FF13;
/// A thread ended or the program called `System.exit` (release) → a
/// shutdown hook thread begins (acquire), on [`PROGRAM_OBJECT`].
pub const PROGRAM_END: u32 = 0xFFFF_FF14;

/// The pseudo-object the program's end hangs on ([`PROGRAM_END`]): just
/// below the class pseudo-objects, far above any object id.
pub const PROGRAM_OBJECT: crate::ObjId = CLASS_OBJECT_BIT - 1;

/// Object ids at and above this bit name classes, not objects.
const CLASS_OBJECT_BIT: u64 = 1 << 62;

/// The pseudo-object a class's initialization edges hang on.
pub fn class_object(class: crate::ClassId) -> crate::ObjId {
    CLASS_OBJECT_BIT | u64::from(class)
}
