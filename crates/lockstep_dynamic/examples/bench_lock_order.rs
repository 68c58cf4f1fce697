//! Benchmark (not a test) of the `deadlock` checker (lock-order graph).
//! `cargo run --release -p lockstep_dynamic --example bench_lock_order -- [TRACE...]`
//! Without traces: a synthetic run of 8 threads taking two or three of 256
//! monitors nested in random orders (many cycles: the search's worst
//! case), fed to the engine with the deadlock checker alone, the race
//! checkers alone, and all. With traces (`lockstep run --trace`): the same
//! three over each saved trace. Prints events, graph size, `deadlock`
//! findings and seconds (best of 3).

use std::time::Instant;

use lockstep_dynamic::{check_traces, CheckerSet, Engine, Options, Outcome};
use lockstep_trace::{Event, LockKind, Trace};

const THREADS: u32 = 8;
const LOCKS: u64 = 256;

fn options(races: bool, deadlocks: bool) -> Options {
    Options {
        checkers: CheckerSet {
            lockset: races,
            happens_before: races,
        },
        deadlocks,
        ..Options::default()
    }
}

const MODES: [(&str, bool, bool); 3] = [
    ("deadlock", false, true),
    ("races", true, false),
    ("all", true, true),
];

/// The synthetic run as `(thread, event)` in a global order.
fn synthetic(blocks: u64) -> Vec<(u32, Event)> {
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut out = Vec::new();
    for t in 0..THREADS {
        out.push((t, Event::ThreadBegin { parent: None }));
    }
    for _ in 0..blocks {
        let t = (next() % u64::from(THREADS)) as u32;
        let depth = 2 + next() % 2;
        let locks: Vec<u64> = (0..depth).map(|_| 1 + next() % LOCKS).collect();
        for (i, &lock) in locks.iter().enumerate() {
            let site = (lock * 4 + i as u64) as u32;
            let kind = LockKind::Monitor;
            out.push((
                t,
                Event::Acquire {
                    lock,
                    seq: 0,
                    kind,
                    site,
                },
            ));
        }
        out.push((
            t,
            Event::Write {
                obj: 10_000 + locks[0],
                field: 1,
                site: 9,
            },
        ));
        for &lock in locks.iter().rev() {
            let kind = LockKind::Monitor;
            out.push((
                t,
                Event::Release {
                    lock,
                    seq: 0,
                    kind,
                    site: 0,
                },
            ));
        }
    }
    out
}

fn best_of_3(mut f: impl FnMut() -> Outcome) -> (Outcome, f64) {
    let mut best = f64::MAX;
    let mut out = Outcome::default();
    for _ in 0..3 {
        let start = Instant::now();
        out = f();
        best = best.min(start.elapsed().as_secs_f64());
    }
    (out, best)
}

fn print(name: &str, mode: &str, out: &Outcome, secs: f64) {
    let g = out.stats.lock_graph;
    let deadlocks = out.findings.iter().filter(|f| f.rule == "deadlock").count();
    println!(
        "{name} {mode}: {} events, graph {} locks / {} pairs / {} edges, {deadlocks} deadlock findings, {secs:.3} s",
        out.stats.events, g.locks, g.pairs, g.edges
    );
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        let events = synthetic(1_000_000);
        for (mode, races, deadlocks) in MODES {
            let (out, secs) = best_of_3(|| {
                let mut e = Engine::new(&options(races, deadlocks));
                for (t, ev) in &events {
                    e.event(*t, ev);
                }
                e.finish()
            });
            print("synthetic", mode, &out, secs);
        }
        return;
    }
    for p in paths {
        let file = std::fs::File::open(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
        let trace: Trace = lockstep_trace::read(std::io::BufReader::new(file));
        let traces = [trace];
        for (mode, races, deadlocks) in MODES {
            let (out, secs) = best_of_3(|| check_traces(&traces, &options(races, deadlocks)));
            print(&p, mode, &out, secs);
        }
    }
}
