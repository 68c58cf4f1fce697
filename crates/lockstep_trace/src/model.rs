//! The trace's data model: identifiers, events and the tables that give
//! them names. Shared by the writer (inside the JVM agent), the readers and
//! the checkers.

/// A recorded thread, dense from 0 in order of first appearance.
pub type ThreadId = u32;
/// A unique object identity for the whole run (JVMTI tag); 0 = none/static.
pub type ObjId = u64;
/// Index in the site table (a code location).
pub type SiteId = u32;
/// Index in the field table.
pub type FieldId = u32;
/// Index in the method table.
pub type MethodId = u32;
/// Index in the class table.
pub type ClassId = u32;

/// Which kind of lock an `Acquire`/`Release` concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LockKind {
    /// A Java monitor (`monitorenter`, `synchronized` method).
    Monitor,
    /// An exclusive `java.util.concurrent.locks.Lock` (e.g. `ReentrantLock`).
    Exclusive,
    /// The read view of a read-write lock (the lock object is the RW lock).
    Read,
    /// The write view of a read-write lock.
    Write,
}

impl LockKind {
    /// Every kind, in encoding order.
    pub const ALL: [LockKind; 4] = [
        LockKind::Monitor,
        LockKind::Exclusive,
        LockKind::Read,
        LockKind::Write,
    ];

    /// The 2-bit code used in the encoding.
    pub fn code(self) -> u8 {
        match self {
            LockKind::Monitor => 0,
            LockKind::Exclusive => 1,
            LockKind::Read => 2,
            LockKind::Write => 3,
        }
    }

    /// The kind for a 2-bit code.
    pub fn from_code(code: u8) -> LockKind {
        LockKind::ALL[usize::from(code & 3)]
    }
}

/// One recorded event, in the program order of the thread of its chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// In the parent, just before the child can run.
    ThreadStart { child: ThreadId, site: SiteId },
    /// First event of every thread.
    ThreadBegin { parent: Option<ThreadId> },
    /// Last event of every thread.
    ThreadEnd,
    /// In the joiner, after a `join` that returned with the child terminated.
    ThreadJoin { child: ThreadId, site: SiteId },
    /// A lock acquisition (reentrant ones included); `seq` is the lock's own counter.
    Acquire {
        lock: ObjId,
        seq: u64,
        kind: LockKind,
        site: SiteId,
    },
    /// A lock release (reentrant ones included).
    Release {
        lock: ObjId,
        seq: u64,
        kind: LockKind,
        site: SiteId,
    },
    /// `wait` (or `Condition.await`) on `lock`; surrounded by Release/Acquire.
    Wait { lock: ObjId, site: SiteId },
    /// `notify`/`notifyAll` (or `signal`/`signalAll`).
    Notify {
        lock: ObjId,
        all: bool,
        site: SiteId,
    },
    /// The releasing side of any other happens-before edge (volatile write, countDown, put, submit...).
    SyncRelease {
        obj: ObjId,
        key: u32,
        seq: u64,
        site: SiteId,
    },
    /// The acquiring side (volatile read, await, take, task run start...).
    SyncAcquire {
        obj: ObjId,
        key: u32,
        seq: u64,
        site: SiteId,
    },
    /// A plain field read (`obj` = 0 for a static field).
    Read {
        obj: ObjId,
        field: FieldId,
        site: SiteId,
    },
    /// A plain field write (`obj` = 0 for a static field).
    Write {
        obj: ObjId,
        field: FieldId,
        site: SiteId,
    },
    /// An array element read.
    ArrayRead {
        array: ObjId,
        index: u32,
        site: SiteId,
    },
    /// An array element write.
    ArrayWrite {
        array: ObjId,
        index: u32,
        site: SiteId,
    },
    /// A reading call on a JDK collection.
    ContainerRead { obj: ObjId, site: SiteId },
    /// A writing call on a JDK collection.
    ContainerWrite { obj: ObjId, site: SiteId },
    /// Method entry.
    Enter { method: MethodId },
    /// Method exit, normal or exceptional.
    Exit { method: MethodId },
    /// A class's static initializer finished.
    ClassInit { class: ClassId },
}

/// The trace's first record: what was run, by which JVM.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    /// The format version the file was written in (the writer always writes
    /// [`crate::FORMAT_VERSION`]; the reader fills in what it found).
    pub format_version: u16,
    /// JVM name and version, e.g. `OpenJDK 64-Bit Server VM 17.0.15`.
    pub jvm: String,
    /// The command line that was run.
    pub command: String,
    /// The lockstep version that recorded it.
    pub recorder: String,
    /// Start time, milliseconds since the Unix epoch (0 when unknown).
    pub start_unix_ms: u64,
}

/// A code location.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Site {
    /// Class in internal form, `pkg/Cls`.
    pub class: String,
    /// Method name.
    pub method: String,
    /// Method descriptor.
    pub descriptor: String,
    /// Source line, when the class has a line table.
    pub line: Option<u32>,
    /// Source file name, when known.
    pub file: Option<String>,
}

/// A field.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Field {
    /// Declaring class, internal form.
    pub class: String,
    /// Field name.
    pub name: String,
    /// Field descriptor.
    pub descriptor: String,
    /// `static`.
    pub is_static: bool,
    /// `volatile`.
    pub is_volatile: bool,
    /// `final`: its accesses never race (the Java memory model makes a
    /// constructed object's final fields visible through any publication).
    pub is_final: bool,
}

/// A method.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Method {
    /// Declaring class, internal form.
    pub class: String,
    /// Method name.
    pub name: String,
    /// Method descriptor.
    pub descriptor: String,
    /// The JVM access flags (`public` 0x0001, `synchronized` 0x0020, …)
    /// and [`method_flags::ATOMIC`]; `None` in traces whose recorder wrote none.
    pub flags: Option<u32>,
}

/// Bits of [`Method::flags`].
pub mod method_flags {
    /// `public`.
    pub const PUBLIC: u32 = 0x0001;
    /// `synchronized`.
    pub const SYNCHRONIZED: u32 = 0x0020;
    /// Annotated `@Atomic` (any package), above the JVM's 16 flag bits.
    pub const ATOMIC: u32 = 1 << 16;
}

/// A class.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Class {
    /// Internal form, `pkg/Cls`.
    pub name: String,
}

/// A thread; a later record for the same id replaces an earlier one (renames).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ThreadInfo {
    /// The thread's id.
    pub id: ThreadId,
    /// `Thread.getName()`.
    pub name: String,
    /// The thread that started it, if recorded.
    pub parent: Option<ThreadId>,
    /// Where it was started, if recorded.
    pub start_site: Option<SiteId>,
}

/// An object the recorder tagged.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ObjectInfo {
    /// The object's id.
    pub id: ObjId,
    /// Its class, internal form (arrays as descriptors, `[I`).
    pub class: String,
    /// Where it was allocated, when known.
    pub alloc_site: Option<SiteId>,
    /// For a `java.lang.Class` object: the class it stands for (internal
    /// form), so a `synchronized (C.class)` lock can be named. An optional
    /// trailing field of the object record (absent in older traces).
    pub represents: Option<String>,
}

/// One frame of a hang dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A location in the site table.
    Site(SiteId),
    /// A frame the recorder could only describe as text.
    Text(String),
}

/// One thread's state in a hang dump.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ThreadDump {
    /// The thread.
    pub thread: ThreadId,
    /// Its name.
    pub name: String,
    /// JVM thread state, e.g. `BLOCKED`.
    pub state: String,
    /// Innermost frame first.
    pub frames: Vec<Frame>,
    /// Locks it holds.
    pub holds: Vec<ObjId>,
    /// The lock it waits for, if any.
    pub waits_for: Option<ObjId>,
}

/// Every thread's state when the recorder gave up waiting (`--timeout`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hang {
    /// One dump per live thread.
    pub threads: Vec<ThreadDump>,
}

/// A run of events of one thread, in program order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chunk {
    /// The thread that produced them.
    pub thread: ThreadId,
    /// The chunk's index among that thread's chunks (0, 1, 2...): a gap means lost events.
    pub index: u32,
    /// The events.
    pub events: Vec<Event>,
}
