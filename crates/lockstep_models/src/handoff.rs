//! Hand-offs between threads, as data: for each ordering call of
//! [`crate::ordering`], which side of a happens-before edge it is
//! (release, acquire, or both) and on which object the edge hangs (the
//! receiver as a thread, a future, an executor or a synchronizer; or the
//! call itself, when it returns only after its tasks are done).
//!
//! The facts match a release with an acquire when both name the same
//! abstract object; this module only says what each call means.

use crate::locks::LockEffect;
use crate::ordering::OrderingEffect;

/// Which side of a happens-before edge a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// Everything before the call happens before the matching acquire.
    Release,
    /// Everything after the call happens after the matching release.
    Acquire,
    /// Both (barriers, exchangers).
    Both,
    /// Orders nothing (`shutdown`): listed so it is not mistaken for a wait.
    Neither,
}

/// The object a hand-off hangs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subject {
    /// The receiver is a thread: the acquire sees the end of its `run()`.
    Thread,
    /// The receiver is the future a task launch returned: the acquire sees
    /// the end of that task.
    Future,
    /// The receiver is an executor: the acquire sees the end of every
    /// task submitted to it before the call.
    Executor,
    /// The call itself launches tasks and returns when they are done
    /// (`invokeAll`): what follows it sees the end of its tasks.
    OwnTasks,
    /// The receiver is a latch, barrier or phaser: its acquire returns
    /// only when every party has released it (the count is assumed to be
    /// the number of parties).
    Latch,
    /// The receiver is a monitor or condition: a `wait` in a loop on a
    /// flag returns after the `notify` of the thread that set the flag
    /// under the same lock.
    Monitor,
    /// The receiver is a semaphore, queue or exchanger: one release is
    /// seen by the one acquire it lets through, not by every acquire.
    Channel,
}

/// What one ordering call means as a hand-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HandOff {
    pub side: Side,
    pub subject: Subject,
    /// The acquire holds only if the call returned `true`
    /// (`awaitTermination`, timed `await`).
    pub if_true: bool,
}

const fn h(side: Side, subject: Subject) -> HandOff {
    HandOff {
        side,
        subject,
        if_true: false,
    }
}

/// The interface of `CompletableFuture`'s stages: a stage made from the
/// future of a task (`thenApply`, ...) ends after the task, so waiting for
/// it waits for the task too.
pub const COMPLETION_STAGE: &str = "java/util/concurrent/CompletionStage";

/// The hand-off an ordering call makes.
pub fn handoff(effect: OrderingEffect) -> HandOff {
    use OrderingEffect::*;
    use Side::*;
    use Subject::*;
    match effect {
        JoinThread => h(Acquire, Thread),
        AwaitFuture => h(Acquire, Future),
        AwaitTerminationIfTrue => HandOff {
            if_true: true,
            ..h(Acquire, Executor)
        },
        AwaitTermination => h(Acquire, Executor),
        Shutdown => h(Neither, Executor),
        InvokeAllCompleted | InvokeAndWaitCompleted => h(Acquire, OwnTasks),
        LatchCountDown | PhaserArrive => h(Release, Latch),
        LatchAwait => h(Acquire, Latch),
        BarrierAwait => h(Both, Latch),
        SemaphoreRelease | QueuePut => h(Release, Channel),
        SemaphoreAcquire | QueueTake => h(Acquire, Channel),
        Exchange => h(Both, Channel),
    }
}

/// The hand-off a lock-model call makes: `wait`/`await` acquire what the
/// `notify`/`signal` on the same monitor released; other lock calls are
/// locks, not hand-offs.
pub fn monitor_handoff(effect: LockEffect) -> Option<HandOff> {
    match effect {
        LockEffect::MonitorWait | LockEffect::ConditionAwait => {
            Some(h(Side::Acquire, Subject::Monitor))
        }
        LockEffect::MonitorNotify | LockEffect::ConditionSignal => {
            Some(h(Side::Release, Subject::Monitor))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ordering::{all_ordering_models, ordering_effect};

    #[test]
    fn joins_and_gets_acquire_the_end_of_a_task() {
        let join = ordering_effect("java/lang/Thread", "join", "()V").map(handoff);
        assert_eq!(join, Some(h(Side::Acquire, Subject::Thread)));
        let get = ordering_effect("java/util/concurrent/Future", "get", "()Ljava/lang/Object;")
            .map(handoff);
        assert_eq!(get, Some(h(Side::Acquire, Subject::Future)));
    }

    #[test]
    fn latch_count_down_releases_and_await_acquires() {
        let latch = "java/util/concurrent/CountDownLatch";
        let down = ordering_effect(latch, "countDown", "()V").map(handoff);
        let wait = ordering_effect(latch, "await", "()V").map(handoff);
        assert_eq!(down.map(|x| x.side), Some(Side::Release));
        assert_eq!(wait.map(|x| x.side), Some(Side::Acquire));
        assert_eq!(wait.map(|x| x.subject), Some(Subject::Latch));
        let take = ordering_effect(
            "java/util/concurrent/BlockingQueue",
            "take",
            "()Ljava/lang/Object;",
        );
        assert_eq!(take.map(handoff), Some(h(Side::Acquire, Subject::Channel)));
    }

    #[test]
    fn wait_acquires_and_notify_releases_a_monitor() {
        let wait = crate::lock_effect("java/lang/Object", "wait", "()V").and_then(monitor_handoff);
        let notify =
            crate::lock_effect("java/lang/Object", "notifyAll", "()V").and_then(monitor_handoff);
        let lock = crate::lock_effect("java/util/concurrent/locks/Lock", "lock", "()V");
        assert_eq!(wait, Some(h(Side::Acquire, Subject::Monitor)));
        assert_eq!(notify, Some(h(Side::Release, Subject::Monitor)));
        assert!(lock.is_some() && lock.and_then(monitor_handoff).is_none());
    }

    /// `invokeAndWait` returns after its own task ran, like `invokeAll`.
    #[test]
    fn invoke_and_wait_waits_for_its_own_task() {
        for class in ["javax/swing/SwingUtilities", "java/awt/EventQueue"] {
            let e = ordering_effect(class, "invokeAndWait", "(Ljava/lang/Runnable;)V");
            assert_eq!(e.map(handoff), Some(h(Side::Acquire, Subject::OwnTasks)));
        }
    }

    #[test]
    fn only_await_termination_depends_on_its_result() {
        let conditional: Vec<_> = all_ordering_models()
            .iter()
            .filter(|m| handoff(m.effect).if_true)
            .map(|m| m.name)
            .collect();
        assert_eq!(conditional, ["awaitTermination"]);
    }
}
