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
//!
//! The owner may still spread a loop over threads: [`Program::map_in_order`]
//! runs the units of a loop on the owner and on helper threads of its own
//! (plain threads, which run nothing else), handing out units in index
//! order. Such a *section* lets a unit load only once every unit before it
//! has ended, so the loads happen in the order of the sequential loop and
//! get its ids; a unit that would load earlier waits. The lowest unit not
//! ended never waits (every unit before it has ended), so the section
//! always progresses.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::{self, ThreadId};

use crate::program::Program;

/// Who may load now: the window's owner, and during a section the threads
/// running its units.
#[derive(Debug, Default)]
pub(crate) struct LoadingWindow {
    state: Mutex<State>,
    /// Notified when the window closes or a section's ended prefix grows.
    changed: Condvar,
}

#[derive(Debug, Default)]
struct State {
    owner: Option<ThreadId>,
    section: Option<Section>,
    /// Threads waiting to load in a section (whom a grown prefix wakes).
    waiting: usize,
}

/// The units of the owner's parallel loop: who runs which, which ended.
#[derive(Debug, Default)]
struct Section {
    /// The unit each of the section's threads runs now (a few threads).
    running: Vec<(ThreadId, usize)>,
    /// The next unit to hand out.
    next: usize,
    /// How many units there are.
    len: usize,
    /// Which units ended.
    ended: Vec<bool>,
    /// Every unit below this one ended.
    prefix: usize,
}

impl State {
    /// May the current thread `me` load now, is it a thread of the window
    /// at all (owner or section thread)?
    fn may_load(&self, me: ThreadId) -> (bool, bool) {
        if let Some(section) = &self.section {
            if let Some(&(_, unit)) = section.running.iter().find(|(t, _)| *t == me) {
                return (section.prefix >= unit, true);
            }
        }
        match self.owner {
            None => (true, false),
            Some(o) => (o == me, o == me),
        }
    }
}

impl LoadingWindow {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed.wait(guard).unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the current thread owns the window or runs a unit of its
    /// section.
    pub(crate) fn owned_here(&self) -> bool {
        self.state().may_load(thread::current().id()).1
    }

    /// Blocks until the current thread may load (before a load).
    pub(crate) fn wait_to_load(&self) {
        let me = thread::current().id();
        let mut state = self.state();
        while !state.may_load(me).0 {
            state.waiting += 1;
            state = self.wait(state);
            state.waiting -= 1;
        }
    }

    /// Blocks while another thread owns the window, then makes the
    /// current thread its owner.
    fn claim(&self) {
        let me = thread::current().id();
        let mut state = self.state();
        while state.owner.is_some_and(|o| o != me) {
            state = self.wait(state);
        }
        state.owner = Some(me);
    }

    /// The next unit of the section for the current thread, if any is
    /// left; the unit it ran before (if any) ended.
    fn next_unit(&self, ended: Option<usize>) -> Option<usize> {
        let me = thread::current().id();
        let mut state = self.state();
        let waiting = state.waiting > 0;
        let section = state.section.as_mut()?;
        if let Some(e) = ended.and_then(|u| section.ended.get_mut(u)) {
            *e = true;
            let before = section.prefix;
            while section.ended.get(section.prefix).copied().unwrap_or(false) {
                section.prefix += 1;
            }
            if section.prefix != before && waiting {
                self.changed.notify_all();
            }
        }
        section.running.retain(|(t, _)| *t != me);
        if section.next >= section.len {
            return None;
        }
        let unit = section.next;
        section.next += 1;
        section.running.push((me, unit));
        Some(unit)
    }
}

/// Closes the window when the owner's work ends, even by a panic.
struct Close<'a>(&'a LoadingWindow);

impl Drop for Close<'_> {
    fn drop(&mut self) {
        self.0.state().owner = None;
        self.0.changed.notify_all();
    }
}

impl LoadingWindow {
    /// After a unit panicked: hand out no more units and let every waiting
    /// unit load, so the section's threads end and the panic reaches the
    /// owner.
    fn abandon_section(&self) {
        if let Some(section) = self.state().section.as_mut() {
            section.len = section.next;
            section.prefix = usize::MAX;
        }
        self.changed.notify_all();
    }
}

/// Abandons the section if the unit being run panics.
struct UnitGuard<'a>(&'a LoadingWindow);

impl Drop for UnitGuard<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.abandon_section();
        }
    }
}

/// Ends the section when the owner's loop ends, even by a panic.
struct EndSection<'a>(&'a LoadingWindow);

impl Drop for EndSection<'_> {
    fn drop(&mut self) {
        self.0.state().section = None;
        self.0.changed.notify_all();
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
        window.claim();
        let _close = Close(window);
        f()
    }

    /// How many threads [`Program::map_in_order`] spreads a loop over: one
    /// inside another such loop (whose units run their loops in sequence),
    /// so a step run as one of its units takes its sequential course.
    pub fn parallelism(&self) -> usize {
        if self.loading_window().state().section.is_some() {
            return 1;
        }
        rayon::current_num_threads()
    }

    /// `items.iter().map(f).collect()`, with the units spread over as many
    /// threads as rayon's pool has (the calling thread and plain helper
    /// threads, none of them running other work meanwhile), inside the
    /// loading window: a unit loads a class only after every unit before
    /// it has ended, so the classes get the ids of the sequential loop and
    /// the results are those of it when `f` reads nothing the other units
    /// change. With one thread, or from inside another such loop, it is
    /// the sequential loop.
    pub fn map_in_order<T, R, F>(&self, items: &[T], f: F) -> Vec<R>
    where
        T: Sync,
        R: Send,
        F: Fn(&T) -> R + Sync,
    {
        let threads = self.parallelism().min(items.len());
        let window = self.loading_window();
        let nested = window.state().section.is_some();
        if threads <= 1 || nested {
            return self.exclusive_loading(|| items.iter().map(&f).collect());
        }
        self.exclusive_loading(|| {
            window.state().section = Some(Section {
                len: items.len(),
                ended: vec![false; items.len()],
                ..Section::default()
            });
            let _end = EndSection(window);
            let work = || {
                let mut done = Vec::new();
                let mut last = None;
                while let Some(unit) = window.next_unit(last) {
                    let Some(item) = items.get(unit) else { break };
                    let guard = UnitGuard(window);
                    done.push((unit, f(item)));
                    drop(guard);
                    last = Some(unit);
                }
                done
            };
            let mut parts = thread::scope(|s| {
                let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
                let mut parts = vec![work()];
                for h in helpers {
                    match h.join() {
                        Ok(p) => parts.push(p),
                        Err(panic) => std::panic::resume_unwind(panic),
                    }
                }
                parts
            });
            let mut all: Vec<(usize, R)> = parts.drain(..).flatten().collect();
            all.sort_unstable_by_key(|(unit, _)| *unit);
            all.into_iter().map(|(_, r)| r).collect()
        })
    }
}
