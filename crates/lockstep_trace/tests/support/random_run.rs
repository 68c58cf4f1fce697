//! Random but well-formed runs for property tests: a simulated program
//! whose threads start and join, take monitors and read-write locks
//! (properly nested, only when free), publish through sync variables
//! (`SyncRelease`/`SyncAcquire` with per-variable `seq`s) and access shared
//! and private fields and arrays. Shared with `lockstep_dynamic`'s tests
//! through `#[path]`.

#![allow(dead_code)]

use std::collections::HashMap;

use lockstep_trace::{Chunk, Event, LockKind, ObjId, ThreadId};

/// A small deterministic generator (xorshift), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One generated run: each thread's events in program order, and the
/// order in which they really happened.
pub struct Run {
    pub threads: Vec<Vec<Event>>,
    pub global: Vec<(ThreadId, Event)>,
}

struct Sim {
    run: Run,
    seqs: HashMap<(ObjId, u64), u64>,
    /// Holder of each lock object (kind, thread, readers count).
    holders: HashMap<ObjId, (LockKind, Vec<ThreadId>)>,
    held: Vec<Vec<(ObjId, LockKind)>>,
}

const LOCK_SPACE: u64 = 1 << 32;

impl Sim {
    fn emit(&mut self, t: ThreadId, e: Event) {
        self.run.threads[t as usize].push(e);
        self.run.global.push((t, e));
    }

    fn next_seq(&mut self, var: (ObjId, u64)) -> u64 {
        let s = self.seqs.entry(var).or_insert(0);
        *s += 1;
        *s - 1
    }

    fn try_lock(&mut self, r: &mut Rng, t: ThreadId) {
        let lock = 10 + r.below(3);
        let kind = match r.below(4) {
            0 | 1 => LockKind::Monitor,
            2 => LockKind::Read,
            _ => LockKind::Write,
        };
        if self.held[t as usize].iter().any(|h| h.0 == lock) {
            return;
        }
        let free = match self.holders.get(&lock) {
            None => true,
            Some((k, hs)) => hs.is_empty() || (*k == LockKind::Read && kind == LockKind::Read),
        };
        if !free {
            return;
        }
        let entry = self.holders.entry(lock).or_insert((kind, Vec::new()));
        entry.0 = kind;
        entry.1.push(t);
        self.held[t as usize].push((lock, kind));
        let seq = self.next_seq((lock, LOCK_SPACE));
        let site = r.below(50) as u32;
        self.emit(
            t,
            Event::Acquire {
                lock,
                seq,
                kind,
                site,
            },
        );
    }

    fn unlock(&mut self, r: &mut Rng, t: ThreadId) {
        let Some((lock, kind)) = self.held[t as usize].pop() else {
            return;
        };
        if let Some((_, hs)) = self.holders.get_mut(&lock) {
            hs.retain(|&h| h != t);
        }
        let seq = self.next_seq((lock, LOCK_SPACE));
        let site = r.below(50) as u32;
        self.emit(
            t,
            Event::Release {
                lock,
                seq,
                kind,
                site,
            },
        );
    }

    fn step(&mut self, r: &mut Rng, t: ThreadId) {
        let site = r.below(60) as u32;
        let shared = 100 + r.below(4);
        let e = match r.below(12) {
            0 => return self.try_lock(r, t),
            1 => return self.unlock(r, t),
            2 | 3 => {
                let (obj, key) = (200, r.below(2) as u32);
                let seq = self.next_seq((obj, u64::from(key)));
                if r.below(2) == 0 {
                    Event::SyncRelease {
                        obj,
                        key,
                        seq,
                        site,
                    }
                } else {
                    Event::SyncAcquire {
                        obj,
                        key,
                        seq,
                        site,
                    }
                }
            }
            4 => Event::Read {
                obj: shared,
                field: r.below(2) as u32,
                site,
            },
            5 => Event::Write {
                obj: shared,
                field: r.below(2) as u32,
                site,
            },
            6 => Event::Write {
                obj: 1000 + u64::from(t),
                field: 0,
                site,
            },
            7 => Event::Read {
                obj: 0,
                field: 7,
                site,
            },
            8 => Event::ArrayWrite {
                array: 300,
                index: r.below(3) as u32,
                site,
            },
            9 => Event::ArrayRead {
                array: 300,
                index: r.below(3) as u32,
                site,
            },
            10 => Event::Enter {
                method: r.below(5) as u32,
            },
            _ => Event::Exit {
                method: r.below(5) as u32,
            },
        };
        self.emit(t, e);
    }
}

/// A run of `threads` threads (thread 0 starts and joins the others) with
/// about `steps` events.
pub fn random_run(r: &mut Rng, threads: u32, steps: usize) -> Run {
    let n = threads as usize;
    let mut sim = Sim {
        run: Run {
            threads: vec![Vec::new(); n],
            global: Vec::new(),
        },
        seqs: HashMap::new(),
        holders: HashMap::new(),
        held: vec![Vec::new(); n],
    };
    sim.emit(0, Event::ThreadBegin { parent: None });
    let mut live = vec![0];
    let mut unstarted: Vec<ThreadId> = (1..threads).rev().collect();
    let mut ended = Vec::new();
    for _ in 0..steps {
        if r.below(20) == 0 {
            if let Some(child) = unstarted.pop() {
                sim.emit(0, Event::ThreadStart { child, site: 1 });
                sim.emit(child, Event::ThreadBegin { parent: Some(0) });
                live.push(child);
                continue;
            }
        }
        let t = live[r.below(live.len() as u64) as usize];
        if t != 0 && r.below(60) == 0 {
            while !sim.held[t as usize].is_empty() {
                sim.unlock(r, t);
            }
            sim.emit(t, Event::ThreadEnd);
            live.retain(|&x| x != t);
            ended.push(t);
            continue;
        }
        sim.step(r, t);
    }
    for t in live.clone().into_iter().filter(|&t| t != 0) {
        while !sim.held[t as usize].is_empty() {
            sim.unlock(r, t);
        }
        sim.emit(t, Event::ThreadEnd);
        ended.push(t);
    }
    for child in ended {
        sim.emit(0, Event::ThreadJoin { child, site: 2 });
    }
    while !sim.held[0].is_empty() {
        sim.unlock(r, 0);
    }
    sim.emit(0, Event::ThreadEnd);
    sim.run
}

/// Each thread's events cut into chunks of random sizes (1 to `max`),
/// ordered by thread, so a thread's later chunks come before another
/// thread's earlier ones (as a recorder flushing full buffers writes them).
pub fn random_chunks(r: &mut Rng, run: &Run, max: u64) -> Vec<Chunk> {
    let mut out = Vec::new();
    for (t, events) in run.threads.iter().enumerate() {
        let mut index = 0;
        let mut rest = events.as_slice();
        while !rest.is_empty() {
            let k = (1 + r.below(max) as usize).min(rest.len());
            out.push(Chunk {
                thread: t as ThreadId,
                index,
                events: rest[..k].to_vec(),
            });
            rest = &rest[k..];
            index += 1;
        }
    }
    out
}

/// The chunks interleaved across threads in a random order that keeps each
/// thread's chunks in index order (as several flushing threads would).
pub fn shuffle_across_threads(r: &mut Rng, chunks: Vec<Chunk>) -> Vec<Chunk> {
    let mut per: Vec<std::collections::VecDeque<Chunk>> = Vec::new();
    for c in chunks {
        let t = c.thread as usize;
        if per.len() <= t {
            per.resize_with(t + 1, Default::default);
        }
        per[t].push_back(c);
    }
    let mut out = Vec::new();
    loop {
        let nonempty: Vec<usize> = (0..per.len()).filter(|&t| !per[t].is_empty()).collect();
        if nonempty.is_empty() {
            return out;
        }
        let t = nonempty[r.below(nonempty.len() as u64) as usize];
        out.extend(per[t].pop_front());
    }
}
