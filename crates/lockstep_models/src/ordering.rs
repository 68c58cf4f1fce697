//! Calls that order the actions of threads (happens-before edges), kept as
//! data for analyses that want to prune races between a task and the code
//! that waits for it, or code that runs before the task starts.
//!
//! Modelled: `Thread.join*`, `Future.get*`, `CompletableFuture.join/get/getNow`,
//! `ExecutorService.awaitTermination` (ordering only when it returns true),
//! `shutdown`/`shutdownNow`/`close` (no ordering by themselves: listed so an
//! analysis does not mistake them for a join), `invokeAll` (returns after
//! every task is done), `invokeAndWait` (returns after its task ran on the
//! event dispatch thread), `CountDownLatch`, `CyclicBarrier`, `Phaser`,
//! `Semaphore`, `Exchanger`, blocking-queue hand-off (`put`/`take`).
//!
//! Not modelled: `LockSupport.park/unpark`, `Object.wait/notify` (see
//! [`crate::locks`]), `volatile` fields (the IR knows field flags), and the
//! happens-before of `Thread.start` itself (every thread-start model implies it).

use crate::table::{Keyed, Table};
use crate::Desc;

/// What an ordering call means. The subject is the receiver in every case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderingEffect {
    /// `Thread.join*`: the receiver thread has terminated (for the timed
    /// forms, only if it is no longer alive afterwards).
    JoinThread,
    /// `Future.get*`, `CompletableFuture.join`: the receiver's task has completed.
    AwaitFuture,
    /// `ExecutorService.awaitTermination`: every task submitted to the
    /// receiver has completed *if the call returned `true`*.
    AwaitTerminationIfTrue,
    /// `ExecutorService.close()` (JDK 19+): waits for every task.
    AwaitTermination,
    /// `shutdown`/`shutdownNow`: stops accepting tasks, orders nothing.
    Shutdown,
    /// `ExecutorService.invokeAll`: every task of the argument has completed on return.
    InvokeAllCompleted,
    /// `SwingUtilities.invokeAndWait`, `EventQueue.invokeAndWait`: the task
    /// the call hands to the event dispatch thread has run on return.
    InvokeAndWaitCompleted,
    /// `CountDownLatch.countDown` (release side).
    LatchCountDown,
    /// `CountDownLatch.await` (acquire side; timed form: only if it returned `true`).
    LatchAwait,
    /// `CyclicBarrier.await`, `Phaser.arriveAndAwaitAdvance`/`awaitAdvance*`: both sides.
    BarrierAwait,
    /// `Phaser.arrive`/`arriveAndDeregister` (release side).
    PhaserArrive,
    /// `Semaphore.acquire*`/`tryAcquire*` (acquire side).
    SemaphoreAcquire,
    /// `Semaphore.release` (release side).
    SemaphoreRelease,
    /// `Exchanger.exchange`: both sides.
    Exchange,
    /// `BlockingQueue.put/offer/add`, `TransferQueue.transfer` (release side of a hand-off).
    QueuePut,
    /// `BlockingQueue.take/poll` (acquire side: sees everything before the matching put).
    QueueTake,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OrderingModel {
    pub class: &'static str,
    pub name: &'static str,
    pub desc: Desc,
    pub effect: OrderingEffect,
}

impl Keyed for OrderingModel {
    fn key(&self) -> (&'static str, &'static str, Desc) {
        (self.class, self.name, self.desc)
    }
}

const fn o(class: &'static str, name: &'static str, effect: OrderingEffect) -> OrderingModel {
    OrderingModel {
        class,
        name,
        desc: Desc::Any,
        effect,
    }
}

use OrderingEffect::*;
const ES: &str = "java/util/concurrent/ExecutorService";
const BQ: &str = "java/util/concurrent/BlockingQueue";
const PH: &str = "java/util/concurrent/Phaser";

#[rustfmt::skip]
static MODELS: &[OrderingModel] = &[
    o("java/lang/Thread", "join", JoinThread),
    o("java/util/concurrent/CompletableFuture", "join", AwaitFuture),
    o("java/util/concurrent/CompletableFuture", "get", AwaitFuture),
    o("java/util/concurrent/ForkJoinTask", "join", AwaitFuture),
    o("java/util/concurrent/ForkJoinTask", "get", AwaitFuture),
    o("java/util/concurrent/ForkJoinTask", "invoke", AwaitFuture),
    o("java/util/concurrent/Future", "get", AwaitFuture),
    o("java/util/concurrent/Future", "resultNow", AwaitFuture),
    o(ES, "awaitTermination", AwaitTerminationIfTrue),
    o(ES, "close", AwaitTermination),
    o(ES, "shutdown", Shutdown),
    o(ES, "shutdownNow", Shutdown),
    o(ES, "invokeAll", InvokeAllCompleted),
    o("javax/swing/SwingUtilities", "invokeAndWait", InvokeAndWaitCompleted),
    o("java/awt/EventQueue", "invokeAndWait", InvokeAndWaitCompleted),
    o("java/util/concurrent/CountDownLatch", "countDown", LatchCountDown),
    o("java/util/concurrent/CountDownLatch", "await", LatchAwait),
    o("java/util/concurrent/CyclicBarrier", "await", BarrierAwait),
    o(PH, "arriveAndAwaitAdvance", BarrierAwait),
    o(PH, "awaitAdvance", BarrierAwait),
    o(PH, "awaitAdvanceInterruptibly", BarrierAwait),
    o(PH, "arrive", PhaserArrive),
    o(PH, "arriveAndDeregister", PhaserArrive),
    o("java/util/concurrent/Semaphore", "acquire", SemaphoreAcquire),
    o("java/util/concurrent/Semaphore", "acquireUninterruptibly", SemaphoreAcquire),
    o("java/util/concurrent/Semaphore", "tryAcquire", SemaphoreAcquire),
    o("java/util/concurrent/Semaphore", "release", SemaphoreRelease),
    o("java/util/concurrent/Exchanger", "exchange", Exchange),
    o(BQ, "put", QueuePut),
    o(BQ, "offer", QueuePut),
    o(BQ, "add", QueuePut),
    o("java/util/concurrent/TransferQueue", "transfer", QueuePut),
    o("java/util/concurrent/TransferQueue", "tryTransfer", QueuePut),
    o(BQ, "take", QueueTake),
    o(BQ, "poll", QueueTake),
    o("java/util/concurrent/BlockingDeque", "takeFirst", QueueTake),
    o("java/util/concurrent/BlockingDeque", "takeLast", QueueTake),
    o("java/util/concurrent/BlockingDeque", "putFirst", QueuePut),
    o("java/util/concurrent/BlockingDeque", "putLast", QueuePut),
];

static TABLE: Table<OrderingModel> = Table::new(MODELS);

/// The ordering effect of a call declared exactly on `class`.
pub fn ordering_effect(class: &str, name: &str, desc: &str) -> Option<OrderingEffect> {
    TABLE
        .lookup(class, name, Some(desc), None)
        .first()
        .map(|m| m.effect)
}

/// The ordering effect of a call on `class` or one of its supertypes.
pub fn ordering_effect_via(
    class: &str,
    name: &str,
    desc: &str,
    is_subtype: &dyn Fn(&str, &str) -> bool,
) -> Option<OrderingEffect> {
    TABLE
        .lookup(class, name, Some(desc), Some(is_subtype))
        .first()
        .map(|m| m.effect)
}

/// Every ordering model.
pub fn all_ordering_models() -> &'static [OrderingModel] {
    TABLE.entries()
}
