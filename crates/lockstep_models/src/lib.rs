//! Library semantics for lockstep, as data.
//!
//! The analyses need to know what a handful of JDK methods mean for
//! concurrency: which calls start a new thread of control and which method
//! of which operand it runs ([`threads`]), which calls order threads
//! ([`ordering`], as release/acquire hand-offs in [`handoff`]), which calls acquire or release locks ([`locks`]), which
//! types are safe to share ([`safety`]), which calls read or write a
//! non-thread-safe container ([`containers`]), which results are views of
//! or iterators over a thread-safe one ([`views`]), and which calls hint at thread
//! confinement ([`confinement`]), which values a thread owns or cannot go
//! stale ([`ownership`]), which application code Swing's threading rule
//! puts on the event dispatch thread ([`gui`]), what natives and intrinsics do to the
//! heap for the points-to analysis ([`heap`]), and which JDK classes the
//! analyses summarise instead of entering ([`boundary`]). Keeping all of this in one crate of static
//! tables means a detector never hard-codes a JDK name, and a missing model
//! is fixed in one place.
//!
//! Every table is keyed by the JDK class or interface that *declares* the
//! method. A call site names the static type of its receiver instead
//! (`ThreadPoolExecutor.submit`, `MyMap.put`), so each lookup comes in two
//! forms: an exact one (`thread_starts(class, ..)`) and one that takes an
//! "is `sub` a subtype of `sup`" callback (`thread_starts_via(class, .., &is_subtype)`),
//! which the program model answers from its class hierarchy. Entries for a
//! more specific class come first and exact matches win over inherited ones,
//! so `ReentrantReadWriteLock$ReadLock.lock` is a read lock even though it
//! also implements `Lock.lock`.
//!
//! What is deliberately *not* here: any analysis. The crate does not know
//! about class files, IR or call graphs; it does not decide which object a
//! task operand refers to, or whether a lock is held. It also does not
//! model reflection, `MethodHandle` invocation, JNI, class loading, or
//! third-party libraries (Guava's `ListeningExecutorService` is covered only
//! through its `ExecutorService` supertype).

pub mod atomics;
pub mod blocking;
pub mod boundary;
pub mod callbacks;
pub mod confinement;
pub mod containers;
pub mod content;
pub mod gui;
pub mod handoff;
pub mod heap;
pub mod hierarchy;
pub mod locks;
pub mod ordering;
pub mod ownership;
pub mod recorder;
pub mod safety;
mod table;
pub mod threads;
pub mod views;

pub use atomics::{atomic_access, atomic_boolean_call, is_atomic_class, AtomicAccess, BooleanCall};
pub use blocking::{all_blocking_models, blocking_call_via, BlockingKind, BlockingModel};
pub use boundary::{is_summarized_class, summarized_prefixes, summarized_result_implementation};
pub use callbacks::{
    all_caller_context_methods, runs_in_caller_context, runs_in_caller_context_as_member,
    CallerContextMethod,
};
pub use confinement::{confinement_hint, ConfinementHint};
pub use containers::{
    container_access, container_access_via, container_family, container_family_via,
    may_be_thread_safe_container, stores_argument_via, thread_safe_container_access,
    thread_safe_container_family, ContainerAccess, ContainerFamily,
};
pub use content::{
    content_class, content_classes, content_op, cursor_op, param_role, view_class, Callback,
    ContentClass, ContentKind, ContentOp, CursorKind, CursorOp, KeyLookup, ParamRole,
};
pub use handoff::{handoff, monitor_handoff, HandOff, Side, Subject, COMPLETION_STAGE};
pub use heap::{
    all_receiver_results, heap_effects, is_reflective_call, keeps_object_contexts,
    returns_receiver, vm_static_fields, HeapEffect, HeapModel, ReceiverResult, VmStaticField,
    JVM_ALLOCATED,
};
pub use hierarchy::{is_jdk_subtype, jdk_supertypes};
pub use locks::{
    builds_lock_parts, builds_synchronized_wrapper, is_concurrent_field_type, is_plain_lock_class,
    lock_effect, lock_effect_via, monitor_wait_argument, read_write_view, LockEffect, LockMode,
    LOCK_INTERFACE, READ_WRITE_LOCK, READ_WRITE_VIEW_OWNER_FIELD,
};
pub use ordering::{ordering_effect, ordering_effect_via, OrderingEffect};
pub use ownership::{
    is_current_thread_call, is_keyed_lookup_via, is_thread_owned_via, is_value_class, owned_result,
    owned_result_via, touches_no_shared_memory_via, Ownership,
};
pub use safety::{
    factory_result, is_immutable_class, is_self_synchronized, is_thread_safe_class,
    is_thread_safe_via, thread_safety, thread_safety_via, FactoryResult, ThreadSafety,
};
pub use threads::{
    thread_start, thread_start_via, thread_starts, thread_starts_via, Async, EntryMethod,
    LaunchKind, Repeat, TaskLaunch, TaskShape, OUTSIDE_TASK, THREAD_CLASS,
};
pub use views::{view_effect, ViewEffect};

/// Which descriptors an entry matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Desc {
    /// Every overload.
    Any,
    /// Exactly this method descriptor.
    Exact(&'static str),
    /// Exactly these parameters, whatever the return type: `"(Ljava/lang/Runnable;)"`.
    /// Subtypes narrow return types covariantly (`ForkJoinPool.submit`
    /// returns a `ForkJoinTask`), and a call compiled against the subtype
    /// carries the narrower descriptor.
    Params(&'static str),
}

impl Desc {
    /// Does the method descriptor `desc` match?
    pub fn matches(self, desc: &str) -> bool {
        match self {
            Desc::Any => true,
            Desc::Exact(d) => d == desc,
            Desc::Params(p) => desc.starts_with(p),
        }
    }
}

/// Which value of a call an entry talks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The receiver (`this` of the callee).
    Receiver,
    /// Declared argument `n`, 0-based, not counting the receiver.
    Arg(u8),
    /// The value the call returns.
    Result,
}

/// The JDK's own packages. Models apply to calls *into* these; code *in*
/// them is library internals that the models summarise (an analysis may
/// choose not to look inside).
pub fn is_jdk_class(internal_name: &str) -> bool {
    const PREFIXES: &[&str] = &["java/", "javax/", "jdk/", "sun/", "com/sun/"];
    PREFIXES.iter().any(|p| internal_name.starts_with(p))
}

#[cfg(test)]
mod tests;
