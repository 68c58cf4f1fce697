//! The process's resident memory, for `check --max-memory`: the probe the
//! analyses call (they do no I/O themselves). Linux only: it reads
//! `VmRSS` from `/proc/self/status`; elsewhere it reads nothing and the
//! budget never counts as reached.
//!
//! Detectors ask once per unit of work, from every worker thread, so a
//! reading is kept for a few milliseconds and shared: the file is read at
//! most a few hundred times a second, whatever the thread count.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long one reading stands for the current memory.
const FRESH_FOR: Duration = Duration::from_millis(5);

/// Nanoseconds since [`epoch`] of the last reading, and its value in bytes
/// (`u64::MAX`: unreadable).
static READ_AT: AtomicU64 = AtomicU64::new(0);
static RESIDENT: AtomicU64 = AtomicU64::new(u64::MAX);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Whether resident memory can be read on this machine at all.
pub fn readable() -> bool {
    read_resident().is_some()
}

/// The resident memory in bytes, as of at most [`FRESH_FOR`] ago.
pub fn resident() -> Option<u64> {
    let now = u64::try_from(epoch().elapsed().as_nanos()).unwrap_or(u64::MAX);
    let at = READ_AT.load(Ordering::Relaxed);
    let fresh = at != 0 && now.saturating_sub(at) < FRESH_FOR.as_nanos() as u64;
    if !fresh {
        let value = read_resident().unwrap_or(u64::MAX);
        RESIDENT.store(value, Ordering::Relaxed);
        READ_AT.store(now.max(1), Ordering::Relaxed);
    }
    match RESIDENT.load(Ordering::Relaxed) {
        u64::MAX => None,
        bytes => Some(bytes),
    }
}

fn read_resident() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    vm_rss(&status)
}

/// `VmRSS:    123456 kB` in a `/proc/<pid>/status` text, in bytes.
fn vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let mut words = line["VmRSS:".len()..].split_whitespace();
    let kib: u64 = words.next()?.parse().ok()?;
    (words.next()? == "kB").then_some(kib)?.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_vm_rss_in_bytes() {
        let status = "Name:\tlockstep\nVmPeak:\t  900 kB\nVmRSS:\t    2048 kB\nThreads:\t3\n";
        assert_eq!(vm_rss(status), Some(2048 * 1024));
    }

    #[test]
    fn a_status_without_vm_rss_reads_nothing() {
        assert_eq!(vm_rss("Name:\tx\nVmPeak:\t900 kB\n"), None);
        assert_eq!(vm_rss("VmRSS:\tlots\n"), None);
        assert_eq!(vm_rss("VmRSS:\t12 MB\n"), None);
    }

    #[test]
    fn this_process_uses_some_memory() {
        if cfg!(target_os = "linux") {
            let bytes = resident().expect("readable on Linux");
            assert!(bytes > 1 << 20, "{bytes}");
        }
    }
}
