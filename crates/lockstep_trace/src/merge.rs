//! The [`Merger`]: one global order of all threads' events, consistent with
//! each thread's program order and with every synchronization variable's own
//! `seq` counter, plus thread start (a child's `ThreadBegin` after its
//! parent's `ThreadStart`) and join (a `ThreadJoin` after the child's
//! `ThreadEnd`).
//!
//! It works on a stream: chunks are pushed as they arrive and events come
//! out as soon as they are ordered. An event that waits for another thread's
//! event not yet read blocks its thread only. When the input has ended
//! ([`Merger::finish`]) and every remaining thread is blocked, a gap (events
//! lost, e.g. a buffer not flushed before a crash) is resolved by taking the
//! smallest waiting `seq`, with a note.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use crate::model::{Chunk, Event, ObjId, ThreadId};

/// Key of a lock's counter in the `(object, key)` space of sync variables:
/// above every `u32` key, so locks and `SyncRelease`/`SyncAcquire` keys of
/// one object never share a counter.
const LOCK_KEY: u64 = 1 << 32;

/// At most this many gap notes are kept; the rest are counted.
const MAX_NOTES: usize = 20;

/// What a thread's next event waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// A sync variable's counter to reach `seq`.
    Seq {
        var: (ObjId, u64),
        seq: u64,
        now: u64,
    },
    /// The parent's `ThreadStart` of this thread.
    Start,
    /// The child's `ThreadEnd`.
    End(ThreadId),
}

struct Lane {
    thread: ThreadId,
    events: VecDeque<Event>,
    next_chunk: u32,
}

/// Merges per-thread chunks into one order; see the module docs.
#[derive(Default)]
pub struct Merger {
    lanes: Vec<Lane>,
    lane_of: BTreeMap<ThreadId, usize>,
    counters: HashMap<(ObjId, u64), u64>,
    started: HashSet<ThreadId>,
    ended: HashSet<ThreadId>,
    cursor: usize,
    finished: bool,
    notes: Vec<String>,
    notes_dropped: usize,
    queued: usize,
}

impl Merger {
    /// An empty merger.
    pub fn new() -> Self {
        Self::default()
    }

    fn note(&mut self, text: String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(text);
        } else {
            self.notes_dropped += 1;
        }
    }

    /// Adds a chunk (chunks of one thread must come in program order).
    pub fn push_chunk(&mut self, chunk: Chunk) {
        let lane = match self.lane_of.get(&chunk.thread) {
            Some(&l) => l,
            None => {
                let l = self.lanes.len();
                self.lane_of.insert(chunk.thread, l);
                // Keep lanes visited in thread-id order for a deterministic merge.
                self.lanes.push(Lane {
                    thread: chunk.thread,
                    events: VecDeque::new(),
                    next_chunk: 0,
                });
                self.reorder_lanes();
                self.lane_of[&chunk.thread]
            }
        };
        let expected = self.lanes[lane].next_chunk;
        if chunk.index != expected {
            self.note(format!(
                "thread {}: chunk {} follows chunk {} (events lost or out of order)",
                chunk.thread,
                chunk.index,
                i64::from(expected) - 1
            ));
        }
        self.lanes[lane].next_chunk = chunk.index.wrapping_add(1);
        self.queued += chunk.events.len();
        self.lanes[lane].events.extend(chunk.events);
    }

    fn reorder_lanes(&mut self) {
        let current = self.lanes.get(self.cursor).map(|l| l.thread);
        self.lanes.sort_by_key(|l| l.thread);
        self.lane_of = self
            .lanes
            .iter()
            .enumerate()
            .map(|(i, l)| (l.thread, i))
            .collect();
        self.cursor = current
            .and_then(|t| self.lane_of.get(&t).copied())
            .unwrap_or(0);
    }

    /// Declares the end of input: from now on gaps are resolved.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// Events pushed but not yet returned.
    pub fn pending(&self) -> usize {
        self.queued
    }

    /// Notes about gaps and reorderings (call after draining).
    pub fn take_notes(&mut self) -> Vec<String> {
        let mut notes = std::mem::take(&mut self.notes);
        if self.notes_dropped > 0 {
            notes.push(format!("{} more merge notes omitted", self.notes_dropped));
            self.notes_dropped = 0;
        }
        notes
    }

    /// What `e`, the next event of `thread`, waits for, if anything.
    #[inline]
    fn blocker(&self, thread: ThreadId, e: &Event) -> Option<Wait> {
        let (var, seq) = match *e {
            Event::Acquire { lock, seq, .. } | Event::Release { lock, seq, .. } => {
                ((lock, LOCK_KEY), seq)
            }
            Event::SyncAcquire { obj, key, seq, .. } | Event::SyncRelease { obj, key, seq, .. } => {
                ((obj, u64::from(key)), seq)
            }
            Event::ThreadBegin { parent: Some(_) } => {
                return (!self.started.contains(&thread)).then_some(Wait::Start)
            }
            Event::ThreadJoin { child, .. } => {
                return (!self.ended.contains(&child)).then_some(Wait::End(child))
            }
            _ => return None,
        };
        let now = self.counters.get(&var).copied().unwrap_or(0);
        (seq > now).then_some(Wait::Seq { var, seq, now })
    }

    /// Records the effect of emitting `e` from `thread`.
    #[inline]
    fn emitted(&mut self, thread: ThreadId, e: &Event) {
        match *e {
            Event::Acquire { lock, seq, .. } | Event::Release { lock, seq, .. } => {
                self.advance((lock, LOCK_KEY), seq)
            }
            Event::SyncAcquire { obj, key, seq, .. } | Event::SyncRelease { obj, key, seq, .. } => {
                self.advance((obj, u64::from(key)), seq)
            }
            Event::ThreadStart { child, .. } => {
                self.started.insert(child);
            }
            Event::ThreadEnd => {
                self.ended.insert(thread);
            }
            _ => {}
        }
    }

    #[inline]
    fn advance(&mut self, var: (ObjId, u64), seq: u64) {
        let c = self.counters.entry(var).or_insert(0);
        *c = (*c).max(seq.saturating_add(1));
    }

    /// The next event in the merged order, or `None` when every remaining
    /// event waits for input not pushed yet (or nothing is left).
    pub fn next_event(&mut self) -> Option<(ThreadId, Event)> {
        if self.queued == 0 {
            return None;
        }
        loop {
            let n = self.lanes.len();
            for step in 0..n {
                let l = (self.cursor + step) % n;
                let lane = &self.lanes[l];
                let Some(&e) = lane.events.front() else {
                    continue;
                };
                if self.blocker(lane.thread, &e).is_none() {
                    let thread = lane.thread;
                    self.lanes[l].events.pop_front();
                    self.queued -= 1;
                    self.cursor = l;
                    self.emitted(thread, &e);
                    return Some((thread, e));
                }
            }
            if !self.finished || !self.resolve_gap() {
                return None;
            }
        }
    }

    /// Unblocks the thread whose wait is the smallest, with a note; false
    /// when nothing is blocked.
    fn resolve_gap(&mut self) -> bool {
        let mut best: Option<(u64, usize, Wait)> = None;
        for (l, lane) in self.lanes.iter().enumerate() {
            let Some(e) = lane.events.front() else {
                continue;
            };
            if let Some(w) = self.blocker(lane.thread, e) {
                let cost = match w {
                    Wait::Seq { seq, now, .. } => seq - now,
                    Wait::Start | Wait::End(_) => 0,
                };
                if best.is_none_or(|(c, _, _)| cost < c) {
                    best = Some((cost, l, w));
                }
            }
        }
        let Some((_, l, w)) = best else {
            return false;
        };
        let thread = self.lanes[l].thread;
        match w {
            Wait::Seq { var, seq, now } => {
                self.counters.insert(var, seq);
                let what = if var.1 == LOCK_KEY {
                    format!("lock {}", var.0)
                } else {
                    format!("sync variable ({}, {})", var.0, var.1)
                };
                self.note(format!(
                    "merge: {what}: operations {now}..{} missing (thread {thread} continues with {seq}); events were lost",
                    seq - 1
                ));
            }
            Wait::Start => {
                self.started.insert(thread);
                self.note(format!(
                    "merge: thread {thread} began but its parent's start event is missing"
                ));
            }
            Wait::End(child) => {
                self.ended.insert(child);
                self.note(format!(
                    "merge: thread {thread} joined thread {child} whose end event is missing"
                ));
            }
        }
        true
    }
}

/// Merges whole chunks (offline): every event in one global order.
pub fn merge_chunks(
    chunks: impl IntoIterator<Item = Chunk>,
) -> (Vec<(ThreadId, Event)>, Vec<String>) {
    let mut m = Merger::new();
    for c in chunks {
        m.push_chunk(c);
    }
    m.finish();
    let mut out = Vec::with_capacity(m.pending());
    while let Some(x) = m.next_event() {
        out.push(x);
    }
    (out, m.take_notes())
}
