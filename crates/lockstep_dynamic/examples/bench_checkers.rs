//! Benchmark (not a test): a synthetic multi-threaded trace, encoded with
//! the real encoder, decoded, then checked by each checker.
//! `cargo run --release -p lockstep_dynamic --example bench_checkers -- [MILLION_EVENTS] [ROUNDS]`
//! Prints bytes per event on disk and events per second of decoding, of
//! merging alone and of merging + checking (offline: chunks borrowed from
//! the decoded trace), in wall time and in the thread's CPU time.

use std::time::Instant;

use lockstep_dynamic::{check_stream, CheckerSet, Engine, Options};
use lockstep_trace::{read_bytes, ChunkEncoder, Event, Header, LockKind, Merger, TraceWriter};

const THREADS: u32 = 8;
const LOCKS: u64 = 4;
const CHUNK_EVENTS: u64 = 16 * 1024;

/// Deterministic xorshift.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Interleaves threads in blocks; each block is a locked update of a shared
/// object, unlocked accesses to thread-owned objects, a read of a shared
/// read-only table, and method entry/exit.
fn generate(total: u64) -> Vec<u8> {
    let mut w = TraceWriter::new(Vec::new(), &Header::default()).unwrap();
    let mut enc: Vec<ChunkEncoder> = (0..THREADS).map(ChunkEncoder::new).collect();
    let mut seqs = [0u64; LOCKS as usize];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut n = 0u64;
    for t in 0..THREADS {
        enc[t as usize].push(&Event::ThreadBegin { parent: None });
    }
    while n < total {
        for t in 0..THREADS {
            let e = &mut enc[t as usize];
            let r = rng.next();
            let lock = 1 + r % LOCKS;
            let shared = 100 + lock;
            let own = 1000 + u64::from(t) * 64 + (r >> 8) % 64;
            let site = ((r >> 20) % 200) as u32;
            let s = &mut seqs[(lock - 1) as usize];
            e.push(&Event::Enter { method: site / 4 });
            e.push(&Event::Acquire {
                lock,
                seq: *s,
                kind: LockKind::Monitor,
                site,
            });
            e.push(&Event::Read {
                obj: shared,
                field: 1,
                site: site + 1,
            });
            e.push(&Event::Write {
                obj: shared,
                field: 1,
                site: site + 2,
            });
            e.push(&Event::Release {
                lock,
                seq: *s + 1,
                kind: LockKind::Monitor,
                site: site + 3,
            });
            *s += 2;
            for k in 0..4u32 {
                e.push(&Event::Read {
                    obj: own,
                    field: k,
                    site: site + 4,
                });
                e.push(&Event::Write {
                    obj: own,
                    field: k,
                    site: site + 5,
                });
            }
            e.push(&Event::ArrayRead {
                array: 50,
                index: ((r >> 30) % 1024) as u32,
                site: site + 6,
            });
            e.push(&Event::Exit { method: site / 4 });
            n += 15;
            if e.len() >= CHUNK_EVENTS {
                w.chunk(&e.take_chunk().unwrap()).unwrap();
            }
        }
    }
    for e in &mut enc {
        e.push(&Event::ThreadEnd);
        if let Some(c) = e.take_chunk() {
            w.chunk(&c).unwrap();
        }
    }
    w.finish().unwrap()
}

/// CPU time of the calling thread in seconds (Linux `schedstat`; 0 when
/// unavailable): on a loaded machine it shows the work done, where wall time
/// also counts the time other processes held the cores.
fn thread_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// Runs `f` and returns (wall seconds, CPU seconds).
fn timed(f: impl FnOnce()) -> (f64, f64) {
    let (t, c) = (Instant::now(), thread_cpu_seconds());
    f();
    (t.elapsed().as_secs_f64(), thread_cpu_seconds() - c)
}

fn checkers(lockset: bool, happens_before: bool) -> Options {
    Options {
        checkers: CheckerSet {
            lockset,
            happens_before,
        },
        ..Options::default()
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let millions: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    // Optional: only the measures whose names contain this (for profiling).
    let only = args.next().unwrap_or_default();
    let (gen, _) = timed(|| drop(generate(millions * 1_000_000)));
    let bytes = generate(millions * 1_000_000);
    let trace = read_bytes(&bytes);
    let events = trace.event_count();
    println!(
        "events: {events}, trace bytes: {}, bytes/event: {:.2}, encode: {:.1} M events/s",
        bytes.len(),
        bytes.len() as f64 / events as f64,
        events as f64 / gen / 1e6
    );
    let names = [
        "decode",
        "merge only",
        "happens-before",
        "lockset",
        "both",
        "hb streaming",
    ];
    let mut times: Vec<Vec<(f64, f64)>> = vec![Vec::new(); names.len()];
    let mut findings = vec![0; names.len()];
    // Rounds interleave the measures, so a burst of load on the shared
    // machine does not fall on one of them only.
    for _ in 0..rounds {
        for (i, name) in names.iter().enumerate() {
            if !name.contains(only.as_str()) {
                continue;
            }
            let t = match *name {
                "decode" => timed(|| assert_eq!(read_bytes(&bytes).event_count(), events)),
                "merge only" => timed(|| {
                    let mut m = Merger::new();
                    let mut n = 0u64;
                    for c in &trace.chunks {
                        m.push_events(c.thread, c.index, &c.events);
                        m.drain_ready(|_, _| n += 1);
                    }
                    assert_eq!(n, events);
                }),
                // Bytes to findings: decode, merge and check in one pass.
                "hb streaming" => timed(|| {
                    let out = check_stream(&bytes[..], &checkers(false, true));
                    assert_eq!(out.stats.events, events);
                    findings[i] = out.findings.len();
                }),
                _ => {
                    let opts = match *name {
                        "happens-before" => checkers(false, true),
                        "lockset" => checkers(true, false),
                        _ => checkers(true, true),
                    };
                    timed(|| {
                        let mut engine = Engine::new(&opts);
                        for c in &trace.chunks {
                            engine.record_chunk(c);
                        }
                        findings[i] = engine.finish().findings.len();
                    })
                }
            };
            times[i].push(t);
        }
    }
    println!("{rounds} interleaved rounds; M events/s, best and median of wall time, best of thread CPU time:");
    for (i, name) in names.iter().enumerate() {
        if times[i].is_empty() {
            continue;
        }
        let rate = |s: f64| events as f64 / s / 1e6;
        let mut wall: Vec<f64> = times[i].iter().map(|t| t.0).collect();
        wall.sort_by(f64::total_cmp);
        let cpu = times[i].iter().map(|t| t.1).fold(f64::INFINITY, f64::min);
        println!(
            "{name:>15}: wall best {:6.1}, median {:6.1}; cpu best {:6.1}{}",
            rate(wall[0]),
            rate(wall[wall.len() / 2]),
            rate(cpu),
            if i >= 2 {
                format!("  ({} findings)", findings[i])
            } else {
                String::new()
            }
        );
    }
}
