//! JDK facts the run-time recorder needs beyond the shared tables: where
//! a task that is an abstract class (a `TimerTask`, a `ForkJoinTask`, a `CountedCompleter`)
//! begins and ends, which calls on an application subclass of
//! `ForkJoinTask` are the JDK's inherited final methods, what a
//! `StampedLock` stamp says about the mode it holds, and which calls end
//! the program (so shutdown hooks run after them).
//!
//! The static side sees these through [`crate::threads`] (entry methods
//! found through the class hierarchy); the recorder's rewriter sees one
//! class at a time and loads none, so it matches methods by name and
//! descriptor here and lets the recorder key the edges on the task object.

use crate::threads::{FORK_JOIN_TASK, TIMER_TASK};

/// The JDK classes whose subclasses are tasks: a `TimerTask` handed to a
/// `Timer`, and the `ForkJoinTask` family (abstract classes, not
/// functional interfaces, so no wrapper can stand in for them).
pub const TASK_CLASSES: [&str; 5] = [
    TIMER_TASK.interface,
    FORK_JOIN_TASK.interface,
    "java/util/concurrent/RecursiveTask",
    "java/util/concurrent/RecursiveAction",
    "java/util/concurrent/CountedCompleter",
];

/// Is an instance method `name desc` of a class whose direct superclass is
/// `super_class` possibly the body of a task (`TimerTask.run()`,
/// `ForkJoinTask.exec()`, `compute()` of the `ForkJoinTask` subclasses,
/// whatever their covariant return type)? A class that extends `Object`
/// directly or extends `Thread` is never a task of this kind; any other
/// superclass may reach a task class through application classes, which
/// the rewriter cannot see, so the answer is "maybe" and the recorder's
/// edges, keyed on the object, order nothing for a non-task.
pub fn may_be_task_body(super_class: &str, name: &str, desc: &str) -> bool {
    if super_class == "java/lang/Object" || super_class == crate::threads::THREAD_CLASS {
        return false;
    }
    let timer = TIMER_TASK.candidates.contains(&(name, desc));
    let fork_join = FORK_JOIN_TASK
        .candidates
        .iter()
        .any(|(n, d)| *n == name && (*d == desc || (name == "compute" && desc.starts_with("()"))));
    timer || fork_join
}

/// How a call on a `ForkJoinTask` orders the task it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ForkJoinCall {
    /// `fork()`: the receiver's start.
    Fork,
    /// `join()`, `invoke()`, `quietlyJoin()`, `quietlyInvoke()`: returns
    /// after the receiver's end (`invoke` also starts it).
    Await { starts: bool },
    /// Static `invokeAll(..)`: starts each task of the arguments and
    /// returns after each ended.
    InvokeAll,
    /// `complete(value)`, and a `CountedCompleter`'s `tryComplete()`,
    /// `propagateCompletion()`, `quietlyCompleteRoot()`: may complete the
    /// receiver and, for a `CountedCompleter`, each of its completers up
    /// to the root, whose `join` then returns.
    Complete,
}

/// `CountedCompleter`, whose completion runs up the chain of completers.
pub const COUNTED_COMPLETER_CLASS: &str = "java/util/concurrent/CountedCompleter";
/// The getter of a `CountedCompleter`'s completer (`null` at the root).
pub const GET_COMPLETER_METHOD: (&str, &str) =
    ("getCompleter", "()Ljava/util/concurrent/CountedCompleter;");

const FJT: &str = "java/util/concurrent/ForkJoinTask";

/// The inherited final methods of `ForkJoinTask` as compiled against an
/// application subclass (`invokevirtual app/Fib.fork()`, or the unqualified
/// `invokeAll(a, b)` inside one, compiled as `invokestatic app/Fib.invokeAll`).
/// Their descriptors name `ForkJoinTask` or are distinctive enough; the
/// recorder keys the edges on the objects, so a look-alike method of a
/// non-task orders nothing.
#[rustfmt::skip]
static INHERITED: &[(&str, &str, ForkJoinCall)] = &[
    ("fork", "()Ljava/util/concurrent/ForkJoinTask;", ForkJoinCall::Fork),
    ("join", "()Ljava/lang/Object;", ForkJoinCall::Await { starts: false }),
    ("quietlyJoin", "()V", ForkJoinCall::Await { starts: false }),
    ("invoke", "()Ljava/lang/Object;", ForkJoinCall::Await { starts: true }),
    ("quietlyInvoke", "()V", ForkJoinCall::Await { starts: true }),
    ("invokeAll", "(Ljava/util/concurrent/ForkJoinTask;Ljava/util/concurrent/ForkJoinTask;)V", ForkJoinCall::InvokeAll),
    ("invokeAll", "([Ljava/util/concurrent/ForkJoinTask;)V", ForkJoinCall::InvokeAll),
    ("invokeAll", "(Ljava/util/Collection;)Ljava/util/Collection;", ForkJoinCall::InvokeAll),
    ("complete", "(Ljava/lang/Object;)V", ForkJoinCall::Complete),
    ("tryComplete", "()V", ForkJoinCall::Complete),
    ("propagateCompletion", "()V", ForkJoinCall::Complete),
    ("quietlyCompleteRoot", "()V", ForkJoinCall::Complete),
];

/// The fork/join meaning of a call of `owner.name desc`: on `ForkJoinTask`
/// or one of its JDK subclasses by name, or on any other class by the
/// inherited methods' exact descriptors (see [`INHERITED`]).
pub fn fork_join_call(owner: &str, name: &str, desc: &str) -> Option<ForkJoinCall> {
    let exact = INHERITED
        .iter()
        .find(|(n, d, _)| *n == name && *d == desc)
        .map(|e| e.2);
    if exact.is_some() || !TASK_CLASSES[1..].contains(&owner) {
        return exact;
    }
    // Through a JDK task type the descriptor may be narrowed (`RecursiveTask.join()`
    // is still `()Ljava/lang/Object;`), so match the name.
    INHERITED.iter().find(|(n, _, _)| *n == name).map(|e| e.2)
}

/// The class [`fork_join_call`]'s answers are about.
pub const FORK_JOIN_TASK_CLASS: &str = FJT;

/// The pool whose `invoke(task)` runs a task and returns its result.
pub const FORK_JOIN_POOL_CLASS: &str = "java/util/concurrent/ForkJoinPool";

/// Does this task launch return only after the task ended
/// (`ForkJoinPool.invoke`)? The other launches of a task object return at once.
pub fn returns_after_task(owner: &str, name: &str) -> bool {
    owner == FORK_JOIN_POOL_CLASS && name == "invoke"
}

/// `java.util.Collection`, whose `toArray()` lists the tasks of a
/// collection argument (`ForkJoinTask.invokeAll(Collection)`).
pub const COLLECTION_INTERFACE: &str = "java/util/Collection";

/// A `StampedLock` stamp's low bits: bit 7 is the write bit (a write stamp
/// has it), bits 0–6 count readers (a read stamp has at least one), and an
/// optimistic stamp (`tryOptimisticRead`) has neither. Stable in the JDK
/// since `StampedLock` appeared (Java 8) through JDK 25. Zero is no stamp.
pub const STAMP_WRITE_BIT: u32 = 0x80;
/// The reader-count bits of a stamp.
pub const STAMP_READER_BITS: u32 = 0x7F;

/// What a `StampedLock` stamp holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StampMode {
    Write,
    Read,
    /// An optimistic read: nothing is held; `validate` says whether a
    /// writer intervened.
    Optimistic,
}

/// The mode of a non-zero stamp from its low 32 bits.
pub fn stamp_mode(low_bits: u32) -> StampMode {
    if low_bits & STAMP_WRITE_BIT != 0 {
        StampMode::Write
    } else if low_bits & STAMP_READER_BITS != 0 {
        StampMode::Read
    } else {
        StampMode::Optimistic
    }
}

/// The mode a `StampedLock.tryConvertTo*` call converts a stamp to, or `None`.
pub fn stamp_conversion(owner: &str, name: &str) -> Option<StampMode> {
    if owner != "java/util/concurrent/locks/StampedLock" {
        return None;
    }
    match name {
        "tryConvertToWriteLock" => Some(StampMode::Write),
        "tryConvertToReadLock" => Some(StampMode::Read),
        "tryConvertToOptimisticRead" => Some(StampMode::Optimistic),
        _ => None,
    }
}

/// Calls that end the program (`System.exit`, `Runtime.exit`,
/// `Runtime.halt`): the JVM starts the shutdown hooks after them (`halt`
/// runs none, which orders nothing wrongly).
pub fn ends_program(owner: &str, name: &str, desc: &str) -> bool {
    let class = matches!(owner, "java/lang/System" | "java/lang/Runtime");
    class && matches!(name, "exit" | "halt") && desc == "(I)V"
}

/// `Runtime.addShutdownHook(Thread)`: the hook thread starts when the
/// program ends (after every non-daemon thread ended, or `exit`).
pub fn registers_shutdown_hook(owner: &str, name: &str, desc: &str) -> bool {
    owner == "java/lang/Runtime" && name == "addShutdownHook" && desc == "(Ljava/lang/Thread;)V"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_bodies_by_name_and_superclass() {
        assert!(may_be_task_body("java/util/TimerTask", "run", "()V"));
        assert!(may_be_task_body(
            "java/util/concurrent/RecursiveTask",
            "compute",
            "()Ljava/lang/Integer;"
        ));
        assert!(may_be_task_body("app/Base", "exec", "()Z"));
        assert!(!may_be_task_body("java/lang/Object", "run", "()V"));
        assert!(!may_be_task_body("java/lang/Thread", "run", "()V"));
        assert!(!may_be_task_body("app/Base", "compute", "(I)V"));
        assert!(!may_be_task_body("app/Base", "exec", "()V"));
    }

    #[test]
    fn inherited_fork_join_methods_on_application_classes() {
        let fork = fork_join_call("app/Fib", "fork", "()Ljava/util/concurrent/ForkJoinTask;");
        assert_eq!(fork, Some(ForkJoinCall::Fork));
        let all = fork_join_call(
            "app/Fib",
            "invokeAll",
            "([Ljava/util/concurrent/ForkJoinTask;)V",
        );
        assert_eq!(all, Some(ForkJoinCall::InvokeAll));
        assert_eq!(fork_join_call("app/Fib", "fork", "()V"), None);
        assert_eq!(
            fork_join_call("app/Fib", "get", "()Ljava/lang/Object;"),
            None
        );
    }

    #[test]
    fn stamps_tell_their_mode() {
        assert_eq!(stamp_mode(0x180), StampMode::Write);
        assert_eq!(stamp_mode(0x101), StampMode::Read);
        assert_eq!(stamp_mode(0x100), StampMode::Optimistic);
        assert_eq!(
            stamp_conversion(
                "java/util/concurrent/locks/StampedLock",
                "tryConvertToReadLock"
            ),
            Some(StampMode::Read)
        );
    }

    #[test]
    fn program_end_and_hooks() {
        assert!(ends_program("java/lang/System", "exit", "(I)V"));
        assert!(!ends_program("java/lang/System", "exit", "()V"));
        assert!(registers_shutdown_hook(
            "java/lang/Runtime",
            "addShutdownHook",
            "(Ljava/lang/Thread;)V"
        ));
    }
}
