//! Benchmark (not a test): a synthetic multi-threaded trace, encoded with
//! the real encoder, decoded, then checked by each checker.
//! `cargo run --release -p lockstep_dynamic --example bench_checkers -- [MILLION_EVENTS]`
//! Prints bytes per event on disk and events per second (merge + check).

use std::time::Instant;

use lockstep_dynamic::{CheckerSet, Engine, Options};
use lockstep_trace::{read_bytes, ChunkEncoder, Event, Header, LockKind, Record, TraceWriter};

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

fn main() {
    let millions: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let t0 = Instant::now();
    let bytes = generate(millions * 1_000_000);
    let gen = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let trace = read_bytes(&bytes);
    let decode = t1.elapsed().as_secs_f64();
    let events = trace.event_count();
    println!(
        "events: {events}, trace bytes: {}, bytes/event: {:.2}",
        bytes.len(),
        bytes.len() as f64 / events as f64
    );
    println!(
        "encode: {:.1} M events/s, decode: {:.1} M events/s",
        events as f64 / gen / 1e6,
        events as f64 / decode / 1e6
    );
    for (name, set) in [
        (
            "happens-before",
            CheckerSet {
                lockset: false,
                happens_before: true,
            },
        ),
        (
            "lockset",
            CheckerSet {
                lockset: true,
                happens_before: false,
            },
        ),
        ("both", CheckerSet::ALL),
    ] {
        let opts = Options {
            checkers: set,
            ..Options::default()
        };
        let t = Instant::now();
        let mut engine = Engine::new(&opts);
        for c in &trace.chunks {
            engine.record(Record::Chunk(c.clone()));
        }
        let out = engine.finish();
        let s = t.elapsed().as_secs_f64();
        println!(
            "{name:>15}: {:.1} M events/s (merge + check; {} findings)",
            events as f64 / s / 1e6,
            out.findings.len()
        );
    }
}
