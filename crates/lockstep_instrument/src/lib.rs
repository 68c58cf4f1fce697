//! Bytecode instrumentation for lockstep's run-time recorder.
//!
//! [`instrument`] takes the bytes of one class file and returns the bytes of
//! the same class with *probes*: short, straight-line instruction sequences
//! that call the static natives of the runtime class [`RT_CLASS`] and leave
//! the operand stack exactly as it was at every original instruction
//! boundary. Because of that, no stack map frame has to be recomputed: only
//! offsets move (code, branch targets, `StackMapTable` deltas and
//! `uninitialized(offset)` entries, exception table, line and local-variable
//! tables). The one new frame is the catch-all handler appended to record
//! the exceptional exit of a method (and the release of a `synchronized`
//! method's monitor); its frame holds only `this` (or nothing) plus the
//! throwable, which every point of the covered range satisfies.
//!
//! Each probe passes an `int` probe id; [`Instrumented::probes`] says, for
//! every id from `first_probe` on, where it is (class, method, line) and what
//! it records. The crate does no I/O and loads no class.
//!
//! [`instrument_guided`] also takes a [`Guidance`]: the access
//! instructions the static analysis proved race-free, left unprobed.
//!
//! Module map: `raw` (outer class-file layout, verbatim bytes), `pool`
//! (appending constants), `plan` (which probe goes before/after which
//! instruction), `emit` (probe byte sequences), `layout` (offsets, branch
//! widening, exception/line/variable tables), `stackmap` (frame offsets),
//! `runtime` (the bytes of the runtime classes the probes call), `guidance`
//! (the static analysis' race-free accesses and their file format).

mod emit;
pub mod guidance;
mod handoffs;
mod layout;
mod plan;
mod pool;
mod raw;
pub mod runtime;
mod stackmap;

use std::fmt;

pub use guidance::{Guidance, GUIDANCE_HEADER, GUIDANCE_HEADER_2};
pub use runtime::{RT_CLASS, TASK_CLASS};

/// The value `StampConvert` adds to the stamp bits when the conversion succeeded.
pub const CONVERTED: i32 = 0x100;

/// Name of the object-id field added to the topmost application class of a
/// hierarchy (descriptor `J`, `private transient synthetic`: excluded from
/// the default `serialVersionUID` and from default serialization). `0`
/// until the recorder assigns the object its id.
pub const ID_FIELD: &str = "lockstep$id";

/// Package prefixes of classes the recorder never rewrites (the JDK and
/// lockstep's own runtime). A class whose superclass starts with one of
/// these is the topmost application class of its hierarchy.
pub const NEVER_INSTRUMENTED: &[&str] =
    &["java/", "javax/", "jdk/", "sun/", "com/sun/", "lockstep/"];

/// Is `class` (internal name) one the recorder never rewrites?
pub fn never_instrumented(class: &str) -> bool {
    NEVER_INSTRUMENTED.iter().any(|p| class.starts_with(p))
}

/// Why a class (or method) could not be instrumented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub message: String,
}

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// What to record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Method entry and exit (normal and exceptional).
    pub methods: bool,
    /// Field reads and writes (plain and volatile, instance and static).
    pub fields: bool,
    /// Array element reads and writes.
    pub arrays: bool,
    /// Monitors, `synchronized` methods, and modelled JDK calls (threads,
    /// locks, wait/notify, hand-offs, collections).
    pub sync: bool,
    /// Give every object of an application class an id field ([`ID_FIELD`]),
    /// declared by the topmost application class of its hierarchy (the one
    /// whose superclass is a JDK class), so the recorder reads an object's
    /// identity from the object instead of looking up a JVMTI tag.
    pub id_field: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            methods: true,
            fields: true,
            arrays: true,
            sync: true,
            id_field: true,
        }
    }
}

/// A code location (the trace's own site type, so the recorder writes it as is).
pub use lockstep_trace::Site;

/// A field as referenced by an instruction.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldRef {
    /// The class named in the instruction (the declaring class or a subclass).
    pub owner: String,
    pub name: String,
    pub descriptor: String,
    pub is_static: bool,
}

/// Which side of a lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockSide {
    Exclusive,
    Read,
    Write,
}

/// Which kind of happens-before edge a JDK synchronizer makes; the
/// recorder turns it into a `key` of a `SyncRelease`/`SyncAcquire`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SyncKind {
    Latch,
    Barrier,
    Semaphore,
    Queue,
    Exchange,
    Phaser,
    /// A future's completion (`get`, `join`).
    Future,
    /// Every task of an executor has finished (`awaitTermination`, `invokeAll`).
    Executor,
    /// A volatile-like access of an atomic variable (`AtomicReference.set`, ...).
    Atomic,
    /// A task object (`ForkJoinTask.fork`) is handed to another thread.
    TaskStart,
}

/// How a call's task argument names its tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskArg {
    /// The argument is the task.
    One,
    /// An array of tasks.
    Array,
    /// A collection of tasks.
    Collection,
}

/// What a `StampedLock.tryConvertTo*` call converts its stamp to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StampTarget {
    Write,
    Read,
    Optimistic,
}

/// What a call-site probe records. `Pre` probes run before the call with
/// the receiver; `Post` probes run after it returned normally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallEvent {
    /// Pre: the receiver is a `Thread` about to be started (checked at run time).
    ThreadStart,
    /// Post: `join` returned (the recorder checks the thread terminated).
    ThreadJoin,
    /// Post: the receiver lock was acquired.
    Lock(LockSide),
    /// Pre: the receiver lock is about to be released.
    Unlock(LockSide),
    /// Post with the `boolean` result: acquired if true.
    TryLock(LockSide),
    /// Post with the result: the result is the read (write) view of the receiver.
    ReadView,
    WriteView,
    /// Post with the result: the result is a condition of the receiver lock.
    NewCondition,
    /// Pre / post of `Object.wait*`.
    WaitPre,
    WaitPost,
    Notify {
        all: bool,
    },
    /// Pre / post of `Condition.await*`.
    AwaitPre,
    AwaitPost,
    Signal {
        all: bool,
    },
    /// Pre: release side of a synchronizer on the receiver.
    Release(SyncKind),
    /// Post: acquire side.
    Acquire(SyncKind),
    /// Post with the `boolean` result: acquire side if true.
    AcquireIfTrue(SyncKind),
    ContainerRead,
    ContainerWrite,
    /// Pre: a call on a container that is (or may be, checked at run time)
    /// thread-safe begins: acquire the container (the call runs callbacks
    /// such as `equals` on what other threads put), release it first when
    /// the call writes, and note that the thread is inside the call, so
    /// that application code it calls back acquires again on entry (and,
    /// in a writing call, releases on exit). `known_safe`: the receiver's
    /// static type is a thread-safe container.
    ContainerCall {
        write: bool,
        known_safe: bool,
    },
    /// Post: the call on the container returned: acquire what it read.
    ContainerReturn,
    /// The task argument handed to an executor (or `CompletableFuture`) is
    /// wrapped by the runtime; the wrapper records the hand-off.
    HandOff,
    /// Post with the result: the future returned for the task just handed off.
    FutureOf,
    /// Post with the result: the result is a view of (or an iterator over)
    /// the receiver container; `known_safe`: the receiver's static type is a
    /// thread-safe container (else the recorder checks its run-time class).
    ContainerView {
        known_safe: bool,
    },
    /// An iterator step: acquires the iterated container's sync variable
    /// when the receiver is a view of a thread-safe container.
    ViewStep,
    /// Post with the result of `clone()`: `Object.clone` copied the
    /// receiver's object-id field ([`ID_FIELD`]) into the new object, which
    /// must get an id of its own (unless the result is the receiver).
    Cloned,

    /// Pre with (receiver, argument): the task(s) of the argument (a
    /// `TimerTask`, `ForkJoinTask`, or an array or collection of them) are
    /// handed to another thread: each one's start is released.
    SubmitTasks(TaskArg),
    /// Post with (receiver, argument): the call returned after the task(s)
    /// of the argument ended (`ForkJoinPool.invoke`, `invokeAll`).
    TasksEnded(TaskArg),
    /// Pre with (receiver, the stamp's low 32 bits): `StampedLock.unlock(stamp)`
    /// releases the mode the stamp holds.
    StampUnlock,
    /// Pre with (receiver, the stamp's low 32 bits): `StampedLock.validate`;
    /// an optimistic stamp's read section ends.
    StampValidate,
    /// Post with (receiver, result != 0): `tryOptimisticRead` began a read section.
    OptimisticRead,
    /// Post with (receiver, the argument stamp's low 8 bits | (result != 0) << 8):
    /// `tryConvertTo*`.
    StampConvert(StampTarget),
    /// Pre with (receiver, the hook thread): `Runtime.addShutdownHook`.
    ShutdownHook,
    /// Pre with (receiver or null, status): `System.exit`, `Runtime.exit`/`halt`.
    ProgramExit,
    /// Pre: the receiver task (and, for a `CountedCompleter`, each of its
    /// completers) may complete: its end is released.
    CompleteChain,
    /// The collection of tasks handed to `invokeAll`/`invokeAny` is
    /// replaced by a list of the runtime's wrappers, one per task.
    WrapTasks,
}

/// What a probe records.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ProbeEvent {
    MethodEnter,
    MethodExit,
    /// Entry / exit of a method the static analysis proved atomic
    /// ([`Guidance::is_atomic`]): no transaction boundary. The recorder
    /// keeps the frame's depth for container callbacks and records the
    /// entry and exit only when a thread-safe container calls it back.
    AtomicEnter,
    AtomicExit,
    /// Before a field write / after a field read (volatility is resolved by
    /// the recorder, which sees every declaring class).
    FieldRead(FieldRef),
    FieldWrite(FieldRef),
    ArrayRead,
    ArrayWrite,
    /// `monitorenter` done, or a `synchronized` method entered.
    MonitorEnter,
    /// `monitorexit` about to run, or a `synchronized` method leaving.
    MonitorExit,
    /// `<clinit>` finished.
    ClassInit,
    /// With `this`: a method that may be a task's body (`TimerTask.run`,
    /// `ForkJoinTask.compute`/`exec`) begins / ends (normally or not).
    TaskBegin,
    TaskEnd,
    Call {
        owner: String,
        name: String,
        descriptor: String,
        event: CallEvent,
    },
}

/// One probe: its id is `first_probe` plus its index in [`Instrumented::probes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub site: Site,
    pub event: ProbeEvent,
}

/// A field declared by the instrumented class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDecl {
    pub name: String,
    pub descriptor: String,
    pub is_static: bool,
    pub is_volatile: bool,
    /// `final`: accesses never race (the recorder drops them; the rewriter
    /// does not even probe the class's own final instance fields).
    pub is_final: bool,
}

/// A method declared by the instrumented class, with what the run-time
/// atomicity checkers need to pick transactions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodDecl {
    pub name: String,
    pub descriptor: String,
    /// JVM access flags, plus `lockstep_trace::method_flags::ATOMIC` when
    /// annotated `@Atomic` (any package, visible or not).
    pub flags: u32,
}

/// The result of [`instrument`].
#[derive(Debug, Clone)]
pub struct Instrumented {
    /// The new class bytes; `None` when nothing was probed (use the original).
    pub bytes: Option<Vec<u8>>,
    pub class: String,
    pub super_class: Option<String>,
    pub fields: Vec<FieldDecl>,
    /// Its methods (with or without code).
    pub methods: Vec<MethodDecl>,
    pub probes: Vec<Probe>,
    /// Whether the new bytes declare [`ID_FIELD`].
    pub id_field: bool,
    /// Methods left alone and why.
    pub notes: Vec<String>,
}

/// Instruments one class. Probe ids start at `first_probe`. A method that
/// cannot be instrumented safely is left unchanged with a note; a class
/// that cannot be read at all is an error (load it unchanged).
pub fn instrument(
    bytes: &[u8],
    first_probe: u32,
    options: &Options,
) -> Result<Instrumented, Error> {
    layout::instrument_class(bytes, first_probe, options, &Guidance::default())
}

/// [`instrument`] guided by the static analysis: the field and array
/// access instructions `guidance` names get no probe (instance fields and
/// array elements only; static fields and every synchronization probe
/// stay), and the methods it proves atomic get [`ProbeEvent::AtomicEnter`]
/// and [`ProbeEvent::AtomicExit`] instead of method events, or none when
/// their only other probes are monitors.
pub fn instrument_guided(
    bytes: &[u8],
    first_probe: u32,
    options: &Options,
    guidance: &Guidance,
) -> Result<Instrumented, Error> {
    layout::instrument_class(bytes, first_probe, options, guidance)
}
