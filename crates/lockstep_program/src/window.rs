//! The loading window: one thread at a time may claim the right to load
//! library classes, so that work running beside it cannot change the ids
//! its loads get.
//!
//! Library classes get ids in the order they are first asked for
//! (`program`'s determinism note). A sequential phase that loads classes
//! and orders its work by ids (points-to, the race and lock-order facts)
//! gives the same result only if nothing else loads a class while it
//! runs. The driver runs such phases inside [`Program::exclusive_loading`]
//! and lets detectors run beside them: a detector that needs a class not
//! loaded yet waits until the window closes, so every class the phases
//! load gets the id it gets when they run alone, and the detectors' own
//! loads come after them, as when the detectors start after the facts.
//!
//! Waiting never holds a lock of the program: `class_by_name` waits before
//! it takes the load lock, and the hierarchy caches compute their value
//! before they publish it (`hierarchy`), so the owner never waits for a
//! thread that waits for it. The owner must not wait for other rayon jobs
//! while the window is open (a job stolen onto its stack would load as the
//! owner): `Program::prefetch_bodies` lowers on the calling thread then.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::{self, ThreadId};

use crate::program::Program;

/// Which thread owns the loading window, if any.
#[derive(Debug, Default)]
pub(crate) struct LoadingWindow {
    owner: Mutex<Option<ThreadId>>,
    closed: Condvar,
}

impl LoadingWindow {
    fn owner(&self) -> MutexGuard<'_, Option<ThreadId>> {
        self.owner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the current thread owns the window.
    pub(crate) fn owned_here(&self) -> bool {
        *self.owner() == Some(thread::current().id())
    }

    /// Blocks while another thread owns the window; returns the guard
    /// of the (then free or own) window.
    fn wait_turn(&self) -> MutexGuard<'_, Option<ThreadId>> {
        let me = thread::current().id();
        let mut owner = self.owner();
        while owner.is_some_and(|o| o != me) {
            owner = self.closed.wait(owner).unwrap_or_else(|e| e.into_inner());
        }
        owner
    }

    /// Blocks while another thread owns the window (before a load).
    pub(crate) fn wait_to_load(&self) {
        drop(self.wait_turn());
    }
}

/// Closes the window when the owner's work ends, even by a panic.
struct Close<'a>(&'a LoadingWindow);

impl Drop for Close<'_> {
    fn drop(&mut self) {
        *self.0.owner() = None;
        self.0.closed.notify_all();
    }
}

impl Program {
    /// Runs `f` on this thread as the only thread that may load library
    /// classes meanwhile: other threads asking for a class not loaded yet
    /// wait until `f` returns. Nested calls on the owning thread just run
    /// `f`. `f` must not wait for rayon jobs of other work (see the module
    /// documentation).
    pub fn exclusive_loading<T>(&self, f: impl FnOnce() -> T) -> T {
        let window = self.loading_window();
        if window.owned_here() {
            return f();
        }
        *window.wait_turn() = Some(thread::current().id());
        let _close = Close(window);
        f()
    }
}
