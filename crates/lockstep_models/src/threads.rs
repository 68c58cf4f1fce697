//! Calls that start a new thread of control: which operand is the task, and
//! which method of it runs there.
//!
//! Modelled: `Thread.start` (the receiver's `run()`, or the `Runnable` given
//! to its constructor: [`TaskShape::Thread`]), virtual threads and
//! `Thread.Builder.start`, `Runtime.addShutdownHook`, `Executor.execute`,
//! `ExecutorService.submit/invokeAll/invokeAny`, `CompletionService.submit`,
//! `ScheduledExecutorService.schedule*` (periodic ones repeat),
//! `CompletableFuture.runAsync/supplyAsync/completeAsync`, the
//! `CompletionStage.*Async` combinators, `java.util.Timer.schedule*`
//! (`TimerTask.run`, repeating when given a period), `ForkJoinTask.fork` and
//! `invokeAll`, `ForkJoinPool.submit/execute/invoke` of a `ForkJoinTask`,
//! Swing's `invokeLater`/`invokeAndWait` and `SwingWorker.execute`.
//!
//! The non-`Async` `CompletionStage` combinators (`thenApply`, ...) are listed
//! with [`Async::Maybe`]: their function runs in whichever thread completes
//! the stage, which is the caller when the stage is already complete and a
//! pool thread otherwise. Whether to treat them as thread starts is the
//! analysis' call.
//!
//! Not modelled: `ThreadFactory.newThread` (creates, does not start),
//! `Thread.Builder.unstarted`, parallel streams, `Executors.callable`
//! wrappers, thread starts inside third-party libraries, reflection.

use crate::table::{Keyed, Table};
use crate::{Desc, Operand};

/// The method a task runs, on the task object's dynamic class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryMethod {
    /// The type that declares the entry method (`java/lang/Runnable`).
    pub interface: &'static str,
    /// `(name, descriptor)` pairs to try in order on the task's class; the
    /// first one that dispatches to a concrete method is the entry.
    /// (`ForkJoinTask`s are entered through `compute()`, whose descriptor
    /// depends on the subclass, and only failing that through `exec()`.)
    pub candidates: &'static [(&'static str, &'static str)],
}

impl EntryMethod {
    /// The first candidate's name.
    pub fn name(&self) -> &'static str {
        self.candidates.first().map(|c| c.0).unwrap_or("")
    }
    /// The first candidate's descriptor.
    pub fn descriptor(&self) -> &'static str {
        self.candidates.first().map(|c| c.1).unwrap_or("")
    }
}

pub const RUNNABLE: EntryMethod = EntryMethod {
    interface: "java/lang/Runnable",
    candidates: &[("run", "()V")],
};
pub const THREAD: EntryMethod = EntryMethod {
    interface: "java/lang/Thread",
    candidates: &[("run", "()V")],
};
pub const CALLABLE: EntryMethod = EntryMethod {
    interface: "java/util/concurrent/Callable",
    candidates: &[("call", "()Ljava/lang/Object;")],
};
pub const SUPPLIER: EntryMethod = EntryMethod {
    interface: "java/util/function/Supplier",
    candidates: &[("get", "()Ljava/lang/Object;")],
};
pub const FUNCTION: EntryMethod = EntryMethod {
    interface: "java/util/function/Function",
    candidates: &[("apply", "(Ljava/lang/Object;)Ljava/lang/Object;")],
};
pub const CONSUMER: EntryMethod = EntryMethod {
    interface: "java/util/function/Consumer",
    candidates: &[("accept", "(Ljava/lang/Object;)V")],
};
pub const BIFUNCTION: EntryMethod = EntryMethod {
    interface: "java/util/function/BiFunction",
    candidates: &[(
        "apply",
        "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
    )],
};
pub const BICONSUMER: EntryMethod = EntryMethod {
    interface: "java/util/function/BiConsumer",
    candidates: &[("accept", "(Ljava/lang/Object;Ljava/lang/Object;)V")],
};
pub const TIMER_TASK: EntryMethod = EntryMethod {
    interface: "java/util/TimerTask",
    candidates: &[("run", "()V")],
};
pub const FORK_JOIN_TASK: EntryMethod = EntryMethod {
    interface: "java/util/concurrent/ForkJoinTask",
    candidates: &[
        ("compute", "()Ljava/lang/Object;"),
        ("compute", "()V"),
        ("exec", "()Z"),
    ],
};
pub const SWING_WORKER: EntryMethod = EntryMethod {
    interface: "javax/swing/SwingWorker",
    candidates: &[("doInBackground", "()Ljava/lang/Object;")],
};

/// How a task is launched (for reporting and for analyses that treat kinds differently).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LaunchKind {
    /// `Thread.start()`.
    ThreadStart,
    /// `Thread.startVirtualThread`, `Thread.Builder.start`.
    ThreadBuilder,
    /// `Runtime.addShutdownHook`: runs at JVM exit, concurrently with other hooks.
    ShutdownHook,
    /// `Executor.execute`, `ExecutorService.submit`, `CompletionService.submit`.
    Executor,
    /// `ExecutorService.invokeAll/invokeAny`: a collection of `Callable`s.
    InvokeAll,
    /// `ScheduledExecutorService.schedule*`.
    ScheduledExecutor,
    /// `CompletableFuture.runAsync/supplyAsync`, `CompletionStage.*Async`.
    CompletableFuture,
    /// Non-async `CompletionStage` combinators (see [`Async::Maybe`]).
    CompletionCallback,
    /// `java.util.Timer.schedule*`.
    Timer,
    /// `ForkJoinTask.fork/invokeAll`, `ForkJoinPool.submit/execute/invoke`.
    ForkJoin,
    /// Swing/AWT event dispatch thread, `SwingWorker`.
    EventDispatch,
    /// A `Runnable` handed to an abstract method of the program's own
    /// type, called on an object from outside the analysed code
    /// ([`OUTSIDE_TASK`]).
    Outside,
}

/// A task handed to a scheduler the analysis cannot follow: a
/// `Runnable` (or a subtype, the program's own task interface) passed to
/// an abstract method of a program type, called on an object from outside
/// the analysed code (a harness parameter, a field nobody assigns, an
/// opaque result). Whoever implements that method may run the task on a
/// thread of its own, as the JDK executors above do, so the analysis runs
/// the task's `run()` in a root of its own on the objects handed over,
/// repeatedly (a timer may run it again). Not in the table: the points-to
/// analysis applies it to such calls itself, knowing the receiver;
/// `class` and `name` are empty, the call names the method.
pub static OUTSIDE_TASK: TaskLaunch = TaskLaunch {
    class: "",
    name: "",
    desc: Desc::Any,
    kind: LaunchKind::Outside,
    task: Operand::Arg(0),
    shape: TaskShape::Functional,
    entry: &RUNNABLE,
    repeat: Repeat::Periodic,
    asynchronous: Async::Always,
    is_static: false,
};

/// What the task operand is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskShape {
    /// An object whose entry method (dispatched on its dynamic class) runs.
    Functional,
    /// A `java.lang.Thread`: its dynamic class's `run()`, which for a plain
    /// `Thread` runs the `Runnable` given to its constructor.
    Thread,
    /// A `Collection` of tasks (elements not tracked by the model).
    Collection,
    /// An array of tasks.
    Array,
}

/// Whether the task surely runs in another thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Async {
    Always,
    /// May run in the calling thread instead (non-async `CompletionStage` combinators).
    Maybe,
}

/// Whether one launch may run the task more than once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Repeat {
    Once,
    /// `scheduleAtFixedRate`, `scheduleWithFixedDelay`, `Timer.schedule` with a period.
    Periodic,
}

/// One thread-start model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TaskLaunch {
    /// Declaring JDK class or interface (internal name).
    pub class: &'static str,
    pub name: &'static str,
    pub desc: Desc,
    pub kind: LaunchKind,
    /// Which value is the task.
    pub task: Operand,
    pub shape: TaskShape,
    /// What runs.
    pub entry: &'static EntryMethod,
    pub repeat: Repeat,
    pub asynchronous: Async,
    /// Whether the method is `static` (`runAsync`, `startVirtualThread`, ...).
    pub is_static: bool,
}

impl Keyed for TaskLaunch {
    fn key(&self) -> (&'static str, &'static str, Desc) {
        (self.class, self.name, self.desc)
    }
}

#[allow(clippy::too_many_arguments)]
const fn l(
    class: &'static str,
    name: &'static str,
    desc: Desc,
    kind: LaunchKind,
    task: Operand,
    shape: TaskShape,
    entry: &'static EntryMethod,
    repeat: Repeat,
) -> TaskLaunch {
    TaskLaunch {
        class,
        name,
        desc,
        kind,
        task,
        shape,
        entry,
        repeat,
        asynchronous: Async::Always,
        is_static: false,
    }
}

const fn static_(mut t: TaskLaunch) -> TaskLaunch {
    t.is_static = true;
    t
}

const fn maybe(mut t: TaskLaunch) -> TaskLaunch {
    t.asynchronous = Async::Maybe;
    t
}

use Desc::{Any, Exact, Params};
use LaunchKind::*;
use Operand::{Arg, Receiver};
use Repeat::{Once, Periodic};
use TaskShape::{Array, Collection, Functional, Thread};

const EXEC: &str = "java/util/concurrent/Executor";
const ES: &str = "java/util/concurrent/ExecutorService";
const CS: &str = "java/util/concurrent/CompletionService";
const SES: &str = "java/util/concurrent/ScheduledExecutorService";
const CF: &str = "java/util/concurrent/CompletableFuture";
const STAGE: &str = "java/util/concurrent/CompletionStage";
const FJT: &str = "java/util/concurrent/ForkJoinTask";
const FJP: &str = "java/util/concurrent/ForkJoinPool";
const TIMER: &str = "java/util/Timer";

#[rustfmt::skip]
static LAUNCHES: &[TaskLaunch] = &[
    // --- threads
    l("java/lang/Thread", "start", Exact("()V"), ThreadStart, Receiver, Thread, &THREAD, Once),
    static_(l("java/lang/Thread", "startVirtualThread", Params("(Ljava/lang/Runnable;)"), ThreadBuilder, Arg(0), Functional, &RUNNABLE, Once)),
    l("java/lang/Thread$Builder", "start", Params("(Ljava/lang/Runnable;)"), ThreadBuilder, Arg(0), Functional, &RUNNABLE, Once),
    l("java/lang/Runtime", "addShutdownHook", Exact("(Ljava/lang/Thread;)V"), ShutdownHook, Arg(0), Thread, &THREAD, Once),
    // --- ForkJoinPool before ExecutorService: its ForkJoinTask overloads are more specific
    l(FJP, "submit", Params("(Ljava/util/concurrent/ForkJoinTask;)"), ForkJoin, Arg(0), Functional, &FORK_JOIN_TASK, Once),
    l(FJP, "execute", Params("(Ljava/util/concurrent/ForkJoinTask;)"), ForkJoin, Arg(0), Functional, &FORK_JOIN_TASK, Once),
    l(FJP, "invoke", Params("(Ljava/util/concurrent/ForkJoinTask;)"), ForkJoin, Arg(0), Functional, &FORK_JOIN_TASK, Once),
    l(FJT, "fork", Params("()"), ForkJoin, Receiver, Functional, &FORK_JOIN_TASK, Once),
    // `invokeAll(t1, t2)` runs one of the two in the caller; either may be forked.
    static_(l(FJT, "invokeAll", Params("(Ljava/util/concurrent/ForkJoinTask;Ljava/util/concurrent/ForkJoinTask;)"), ForkJoin, Arg(0), Functional, &FORK_JOIN_TASK, Once)),
    static_(l(FJT, "invokeAll", Params("(Ljava/util/concurrent/ForkJoinTask;Ljava/util/concurrent/ForkJoinTask;)"), ForkJoin, Arg(1), Functional, &FORK_JOIN_TASK, Once)),
    static_(l(FJT, "invokeAll", Params("([Ljava/util/concurrent/ForkJoinTask;)"), ForkJoin, Arg(0), Array, &FORK_JOIN_TASK, Once)),
    static_(l(FJT, "invokeAll", Params("(Ljava/util/Collection;)"), ForkJoin, Arg(0), Collection, &FORK_JOIN_TASK, Once)),
    // --- executors
    l(EXEC, "execute", Params("(Ljava/lang/Runnable;)"), Executor, Arg(0), Functional, &RUNNABLE, Once),
    l(ES, "submit", Params("(Ljava/util/concurrent/Callable;)"), Executor, Arg(0), Functional, &CALLABLE, Once),
    l(ES, "submit", Params("(Ljava/lang/Runnable;)"), Executor, Arg(0), Functional, &RUNNABLE, Once),
    l(ES, "submit", Params("(Ljava/lang/Runnable;Ljava/lang/Object;)"), Executor, Arg(0), Functional, &RUNNABLE, Once),
    l(ES, "invokeAll", Any, InvokeAll, Arg(0), Collection, &CALLABLE, Once),
    l(ES, "invokeAny", Any, InvokeAll, Arg(0), Collection, &CALLABLE, Once),
    l(CS, "submit", Params("(Ljava/util/concurrent/Callable;)"), Executor, Arg(0), Functional, &CALLABLE, Once),
    l(CS, "submit", Params("(Ljava/lang/Runnable;Ljava/lang/Object;)"), Executor, Arg(0), Functional, &RUNNABLE, Once),
    l(SES, "schedule", Params("(Ljava/lang/Runnable;JLjava/util/concurrent/TimeUnit;)"), ScheduledExecutor, Arg(0), Functional, &RUNNABLE, Once),
    l(SES, "schedule", Params("(Ljava/util/concurrent/Callable;JLjava/util/concurrent/TimeUnit;)"), ScheduledExecutor, Arg(0), Functional, &CALLABLE, Once),
    l(SES, "scheduleAtFixedRate", Any, ScheduledExecutor, Arg(0), Functional, &RUNNABLE, Periodic),
    l(SES, "scheduleWithFixedDelay", Any, ScheduledExecutor, Arg(0), Functional, &RUNNABLE, Periodic),
    // --- CompletableFuture
    static_(l(CF, "runAsync", Any, CompletableFuture, Arg(0), Functional, &RUNNABLE, Once)),
    static_(l(CF, "supplyAsync", Any, CompletableFuture, Arg(0), Functional, &SUPPLIER, Once)),
    l(CF, "completeAsync", Any, CompletableFuture, Arg(0), Functional, &SUPPLIER, Once),
    l(STAGE, "thenApplyAsync", Any, CompletableFuture, Arg(0), Functional, &FUNCTION, Once),
    l(STAGE, "thenAcceptAsync", Any, CompletableFuture, Arg(0), Functional, &CONSUMER, Once),
    l(STAGE, "thenRunAsync", Any, CompletableFuture, Arg(0), Functional, &RUNNABLE, Once),
    l(STAGE, "thenCombineAsync", Any, CompletableFuture, Arg(1), Functional, &BIFUNCTION, Once),
    l(STAGE, "thenAcceptBothAsync", Any, CompletableFuture, Arg(1), Functional, &BICONSUMER, Once),
    l(STAGE, "runAfterBothAsync", Any, CompletableFuture, Arg(1), Functional, &RUNNABLE, Once),
    l(STAGE, "applyToEitherAsync", Any, CompletableFuture, Arg(1), Functional, &FUNCTION, Once),
    l(STAGE, "acceptEitherAsync", Any, CompletableFuture, Arg(1), Functional, &CONSUMER, Once),
    l(STAGE, "runAfterEitherAsync", Any, CompletableFuture, Arg(1), Functional, &RUNNABLE, Once),
    l(STAGE, "thenComposeAsync", Any, CompletableFuture, Arg(0), Functional, &FUNCTION, Once),
    l(STAGE, "handleAsync", Any, CompletableFuture, Arg(0), Functional, &BIFUNCTION, Once),
    l(STAGE, "whenCompleteAsync", Any, CompletableFuture, Arg(0), Functional, &BICONSUMER, Once),
    l(STAGE, "exceptionallyAsync", Any, CompletableFuture, Arg(0), Functional, &FUNCTION, Once),
    l(STAGE, "exceptionallyComposeAsync", Any, CompletableFuture, Arg(0), Functional, &FUNCTION, Once),
    maybe(l(STAGE, "thenApply", Any, CompletionCallback, Arg(0), Functional, &FUNCTION, Once)),
    maybe(l(STAGE, "thenAccept", Any, CompletionCallback, Arg(0), Functional, &CONSUMER, Once)),
    maybe(l(STAGE, "thenRun", Any, CompletionCallback, Arg(0), Functional, &RUNNABLE, Once)),
    maybe(l(STAGE, "thenCombine", Any, CompletionCallback, Arg(1), Functional, &BIFUNCTION, Once)),
    maybe(l(STAGE, "thenAcceptBoth", Any, CompletionCallback, Arg(1), Functional, &BICONSUMER, Once)),
    maybe(l(STAGE, "runAfterBoth", Any, CompletionCallback, Arg(1), Functional, &RUNNABLE, Once)),
    maybe(l(STAGE, "applyToEither", Any, CompletionCallback, Arg(1), Functional, &FUNCTION, Once)),
    maybe(l(STAGE, "acceptEither", Any, CompletionCallback, Arg(1), Functional, &CONSUMER, Once)),
    maybe(l(STAGE, "runAfterEither", Any, CompletionCallback, Arg(1), Functional, &RUNNABLE, Once)),
    maybe(l(STAGE, "thenCompose", Any, CompletionCallback, Arg(0), Functional, &FUNCTION, Once)),
    maybe(l(STAGE, "handle", Any, CompletionCallback, Arg(0), Functional, &BIFUNCTION, Once)),
    maybe(l(STAGE, "whenComplete", Any, CompletionCallback, Arg(0), Functional, &BICONSUMER, Once)),
    maybe(l(STAGE, "exceptionally", Any, CompletionCallback, Arg(0), Functional, &FUNCTION, Once)),
    // --- java.util.Timer
    l(TIMER, "schedule", Exact("(Ljava/util/TimerTask;J)V"), Timer, Arg(0), Functional, &TIMER_TASK, Once),
    l(TIMER, "schedule", Exact("(Ljava/util/TimerTask;Ljava/util/Date;)V"), Timer, Arg(0), Functional, &TIMER_TASK, Once),
    l(TIMER, "schedule", Exact("(Ljava/util/TimerTask;JJ)V"), Timer, Arg(0), Functional, &TIMER_TASK, Periodic),
    l(TIMER, "schedule", Exact("(Ljava/util/TimerTask;Ljava/util/Date;J)V"), Timer, Arg(0), Functional, &TIMER_TASK, Periodic),
    l(TIMER, "scheduleAtFixedRate", Any, Timer, Arg(0), Functional, &TIMER_TASK, Periodic),
    // --- Swing / AWT
    static_(l("javax/swing/SwingUtilities", "invokeLater", Exact("(Ljava/lang/Runnable;)V"), EventDispatch, Arg(0), Functional, &RUNNABLE, Once)),
    static_(l("javax/swing/SwingUtilities", "invokeAndWait", Exact("(Ljava/lang/Runnable;)V"), EventDispatch, Arg(0), Functional, &RUNNABLE, Once)),
    static_(l("java/awt/EventQueue", "invokeLater", Exact("(Ljava/lang/Runnable;)V"), EventDispatch, Arg(0), Functional, &RUNNABLE, Once)),
    static_(l("java/awt/EventQueue", "invokeAndWait", Exact("(Ljava/lang/Runnable;)V"), EventDispatch, Arg(0), Functional, &RUNNABLE, Once)),
    l("javax/swing/SwingWorker", "execute", Exact("()V"), EventDispatch, Receiver, Functional, &SWING_WORKER, Once),
];

static TABLE: Table<TaskLaunch> = Table::new(LAUNCHES);

/// Every thread-start model (for documentation and exhaustive tests).
pub fn all_launches() -> &'static [TaskLaunch] {
    TABLE.entries()
}

/// Models declared exactly on `class` for `name`/`desc` (several for
/// `ForkJoinTask.invokeAll(t1, t2)`, whose two arguments are both tasks).
pub fn thread_starts(class: &str, name: &str, desc: &str) -> Vec<&'static TaskLaunch> {
    TABLE.lookup(class, name, Some(desc), None)
}

/// Like [`thread_starts`], but also matching models declared on supertypes
/// of `class` (`is_subtype(sub, sup)`); models of the most specific
/// declaring class come first and hide those of its supertypes.
pub fn thread_starts_via(
    class: &str,
    name: &str,
    desc: &str,
    is_subtype: &dyn Fn(&str, &str) -> bool,
) -> Vec<&'static TaskLaunch> {
    let all = TABLE.lookup(class, name, Some(desc), Some(is_subtype));
    most_specific(all, is_subtype)
}

/// The first model for a call, if any.
pub fn thread_start(class: &str, name: &str, desc: &str) -> Option<&'static TaskLaunch> {
    thread_starts(class, name, desc).into_iter().next()
}

/// The first model for a call through the hierarchy, if any.
pub fn thread_start_via(
    class: &str,
    name: &str,
    desc: &str,
    is_subtype: &dyn Fn(&str, &str) -> bool,
) -> Option<&'static TaskLaunch> {
    thread_starts_via(class, name, desc, is_subtype)
        .into_iter()
        .next()
}

/// Keeps the entries of the most specific declaring class: when
/// `ForkJoinPool.submit(ForkJoinTask)` and `ExecutorService.submit(..)` both
/// match, only the first survives. Entries of the same class are all kept.
fn most_specific(
    all: Vec<&'static TaskLaunch>,
    is_subtype: &dyn Fn(&str, &str) -> bool,
) -> Vec<&'static TaskLaunch> {
    let Some(first) = all.first() else {
        return all;
    };
    let mut best = first.class;
    for e in &all {
        if e.class != best && is_subtype(e.class, best) {
            best = e.class;
        }
    }
    all.into_iter().filter(|e| e.class == best).collect()
}

/// `java.lang.Thread`: a class whose `run()` is the task unless a subclass
/// overrides it.
pub const THREAD_CLASS: &str = "java/lang/Thread";

/// `java.util.concurrent.Executor`: an application class's `execute(Runnable)`
/// is a hand-off only on an instance of it (checked by the recorder).
pub const EXECUTOR_INTERFACE: &str = "java/util/concurrent/Executor";

/// The JDK executor whose hand-off methods stand for those of an
/// application executor class (it declares or inherits every method of
/// `Executor`, `ExecutorService` and `ScheduledExecutorService`).
pub const EXECUTOR_MODEL_CLASS: &str = "java/util/concurrent/ScheduledThreadPoolExecutor";

/// Whether the tasks a launch starts run one after another on one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serial {
    /// Every such task runs on the one event dispatch thread.
    EventDispatchThread,
    /// The tasks run on the receiver (an executor or timer); they are
    /// serial when that receiver is single-threaded
    /// ([`is_single_thread_class`], [`ONE_THREAD_POOL_ARGUMENT`]).
    ReceiverIfSingleThreaded,
    /// Each task may run beside the others.
    Never,
}

/// How the tasks of `launch` are serialized.
pub fn serial(launch: &TaskLaunch) -> Serial {
    match launch.kind {
        // `SwingWorker.execute` runs `doInBackground` on a worker thread.
        LaunchKind::EventDispatch if launch.is_static => Serial::EventDispatchThread,
        LaunchKind::Executor
        | LaunchKind::ScheduledExecutor
        | LaunchKind::InvokeAll
        | LaunchKind::Timer => Serial::ReceiverIfSingleThreaded,
        _ => Serial::Never,
    }
}

/// Classes whose every object runs its tasks on a single thread: a
/// `Timer` has one background thread; `Executors.newSingleThreadExecutor`
/// returns its pool wrapped in a class of its own (renamed in JDK 21).
const SINGLE_THREAD_CLASSES: &[&str] = &[
    "java/util/Timer",
    "java/util/concurrent/Executors$FinalizableDelegatedExecutorService",
    "java/util/concurrent/Executors$AutoShutdownDelegatedExecutorService",
];

/// Is every object of class `class` single-threaded? Subclasses of
/// `Timer` are (`is_subtype(sub, sup)`).
pub fn is_single_thread_class(class: &str, is_subtype: &dyn Fn(&str, &str) -> bool) -> bool {
    SINGLE_THREAD_CLASSES
        .iter()
        .any(|c| *c == class || (*c == "java/util/Timer" && is_subtype(class, c)))
}

/// Pool classes made single-threaded by a constructor argument equal to
/// one, and that argument's index: `ThreadPoolExecutor`'s
/// `maximumPoolSize`, `ScheduledThreadPoolExecutor`'s `corePoolSize` (its
/// pool never grows past the core size).
pub const ONE_THREAD_POOL_ARGUMENT: &[(&str, usize)] = &[
    ("java/util/concurrent/ThreadPoolExecutor", 1),
    ("java/util/concurrent/ScheduledThreadPoolExecutor", 0),
];
