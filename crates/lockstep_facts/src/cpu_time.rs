//! CPU time of the calling thread, for `--stats`: what a piece of work
//! cost apart from the time its thread spent waiting (for facts, for the
//! loading window, for other threads' parts of a parallel loop).
//!
//! Work measured with [`own`] may run other measured work nested on the
//! same thread (a rayon worker waiting in a parallel loop runs other
//! jobs, a detector computes a shared fact on first use): each level
//! reports its own time, without what was nested in it, so that no
//! second is counted twice.

use std::cell::Cell;
use std::time::Duration;

thread_local! {
    /// CPU time of the measured work that ended on this thread inside
    /// the innermost [`own`] still running.
    static NESTED: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// The CPU time the calling thread has used (zero where the clock is not
/// available: the figures are statistics, never input to an analysis).
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through a pointer to a
    // live, properly aligned local.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    let secs = u64::try_from(ts.tv_sec).unwrap_or(0);
    let nanos = u32::try_from(ts.tv_nsec).unwrap_or(0);
    Duration::new(secs, nanos)
}

/// Runs `f` and returns its value with the CPU time this thread spent in
/// it, less the time of measured work nested in it (which reports its
/// own).
pub fn own<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let outer = NESTED.with(|n| n.replace(Duration::ZERO));
    let started = thread_cpu();
    let value = f();
    let total = thread_cpu().saturating_sub(started);
    let nested = NESTED.with(|n| n.replace(outer + total));
    (value, total.saturating_sub(nested))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spins until the thread has used at least `d` of CPU.
    fn burn(d: Duration) {
        let start = thread_cpu();
        while thread_cpu().saturating_sub(start) < d {
            std::hint::black_box(0u64);
        }
    }

    #[test]
    fn nested_work_is_not_counted_twice() {
        let ((_, inner), outer) = own(|| {
            burn(Duration::from_millis(5));
            own(|| burn(Duration::from_millis(20)))
        });
        assert!(inner >= Duration::from_millis(20), "{inner:?}");
        assert!(outer >= Duration::from_millis(5), "{outer:?}");
        assert!(outer < Duration::from_millis(20), "{outer:?}");
    }

    #[test]
    fn waiting_costs_no_cpu() {
        let (_, cpu) = own(|| std::thread::sleep(Duration::from_millis(30)));
        assert!(cpu < Duration::from_millis(30), "{cpu:?}");
    }
}
