//! Calls that hint at thread confinement: values that belong to the
//! current thread by construction.
//!
//! Modelled: `Thread.currentThread()` (the result is the running thread),
//! `ThreadLocal.get/set/remove/withInitial`, `ThreadLocalRandom.current()`.
//! Not modelled: confinement by convention (objects never published), which
//! is an escape analysis' job.

/// What a call says about confinement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfinementHint {
    /// The result is the current thread (`Thread.currentThread()`).
    CurrentThread,
    /// The result is the calling thread's own value of the receiver `ThreadLocal`.
    ThreadLocalValue,
    /// Sets or clears the calling thread's own value of the receiver `ThreadLocal`.
    ThreadLocalUpdate,
    /// The result is a per-thread object (`ThreadLocalRandom.current()`).
    PerThreadInstance,
}

/// The confinement hint of a call (declaring class, exact).
pub fn confinement_hint(class: &str, name: &str, desc: &str) -> Option<ConfinementHint> {
    use ConfinementHint::*;
    let thread_local = matches!(
        class,
        "java/lang/ThreadLocal" | "java/lang/InheritableThreadLocal"
    );
    match (class, name) {
        ("java/lang/Thread", "currentThread") if desc == "()Ljava/lang/Thread;" => {
            Some(CurrentThread)
        }
        (_, "get") if thread_local => Some(ThreadLocalValue),
        (_, "set" | "remove") if thread_local => Some(ThreadLocalUpdate),
        ("java/util/concurrent/ThreadLocalRandom", "current") => Some(PerThreadInstance),
        _ => None,
    }
}
