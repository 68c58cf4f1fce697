//! A thread's event buffer without a lock on the hot path.
//!
//! Only the owning thread writes its buffer while the program runs; another
//! thread reads it once, when the trace ends (`VMDeath`, hang dump). A mutex
//! per event cost two locked instructions, about a seventh of the recording
//! time of a lock-heavy program. Instead the owner marks the buffer *busy*
//! with a plain store, separated from its read of the recorder's `dead`
//! flag by a compiler fence only; the finishing thread sets `dead` and then
//! calls `membarrier(2)`, which runs a full memory barrier on every running
//! thread, so either the owner sees `dead` (and leaves the buffer alone
//! from then on) or the finisher sees `busy` (and waits for it to clear).
//! This is the asymmetric pairing `membarrier` exists for. Where the call
//! is unavailable the owner uses a real fence instead (one, where the
//! mutex had two).

use std::cell::UnsafeCell;
use std::sync::atomic::{compiler_fence, fence, AtomicBool, AtomicU8, Ordering};

use crate::state::ThreadBuf;

const MEMBARRIER_CMD_QUERY: libc::c_int = 0;
const MEMBARRIER_CMD_GLOBAL: libc::c_int = 1;

/// 0 = not probed yet, 1 = `membarrier` works, 2 = it does not.
static MEMBARRIER: AtomicU8 = AtomicU8::new(0);

fn membarrier_available() -> bool {
    match MEMBARRIER.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            // SAFETY: a query command, no memory passed.
            let mask = unsafe {
                libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_QUERY, 0 as libc::c_int)
            };
            let ok = mask > 0 && mask & libc::c_long::from(MEMBARRIER_CMD_GLOBAL) != 0;
            MEMBARRIER.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
            ok
        }
    }
}

/// Call once before any thread records: decides which fence owners use.
pub fn init() {
    membarrier_available();
}

/// The owner's side of the pairing: orders its `busy` store before its
/// `dead` load.
#[inline]
fn owner_fence() {
    if MEMBARRIER.load(Ordering::Relaxed) == 1 {
        compiler_fence(Ordering::SeqCst);
    } else {
        fence(Ordering::SeqCst);
    }
}

/// The finisher's side: after it, every owner either saw `dead` or its
/// `busy` store is visible.
fn finisher_fence() {
    fence(Ordering::SeqCst);
    if membarrier_available() {
        // SAFETY: a global barrier command, no memory passed.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_membarrier,
                MEMBARRIER_CMD_GLOBAL,
                0 as libc::c_int,
            )
        };
        if rc != 0 {
            // Owners skipped their fence: give them time to see `dead`.
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// One thread's buffer, written by its thread and read once at the end.
pub struct OwnedBuf {
    busy: AtomicBool,
    cell: UnsafeCell<ThreadBuf>,
}

// The busy/dead protocol above makes the accesses exclusive.
unsafe impl Sync for OwnedBuf {}
unsafe impl Send for OwnedBuf {}

/// The owner's access; clears `busy` when dropped.
pub struct Access<'a> {
    owned: &'a OwnedBuf,
}

impl std::ops::Deref for Access<'_> {
    type Target = ThreadBuf;
    fn deref(&self) -> &ThreadBuf {
        // SAFETY: exclusive while `busy` is set and `dead` was not seen.
        unsafe { &*self.owned.cell.get() }
    }
}

impl std::ops::DerefMut for Access<'_> {
    fn deref_mut(&mut self) -> &mut ThreadBuf {
        // SAFETY: as for `deref`.
        unsafe { &mut *self.owned.cell.get() }
    }
}

impl Drop for Access<'_> {
    fn drop(&mut self) {
        self.owned.busy.store(false, Ordering::Release);
    }
}

impl OwnedBuf {
    pub fn new(b: ThreadBuf) -> OwnedBuf {
        OwnedBuf {
            busy: AtomicBool::new(false),
            cell: UnsafeCell::new(b),
        }
    }

    /// The owning thread's access, or `None` once recording stopped.
    /// Must only be called by the thread the buffer belongs to.
    #[inline]
    pub fn enter<'a>(&'a self, dead: &AtomicBool) -> Option<Access<'a>> {
        self.busy.store(true, Ordering::Relaxed);
        owner_fence();
        if dead.load(Ordering::Relaxed) {
            self.busy.store(false, Ordering::Release);
            return None;
        }
        Some(Access { owned: self })
    }

    /// The finisher's access to every buffer, after `dead` was set.
    pub fn after_stop<T>(
        buffers: &[std::sync::Arc<OwnedBuf>],
        mut f: impl FnMut(&mut ThreadBuf) -> T,
    ) -> Vec<T> {
        finisher_fence();
        buffers
            .iter()
            .map(|b| {
                while b.busy.load(Ordering::Acquire) {
                    std::thread::yield_now();
                }
                // SAFETY: the owner saw `dead` or finished its last access.
                f(unsafe { &mut *b.cell.get() })
            })
            .collect()
    }
}
