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

use std::collections::{BTreeMap, VecDeque};

use crate::fast_hash::{FastMap, FastSet};
use crate::model::{Chunk, Event, ObjId, ThreadId};
use crate::pool::BufferPool;

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

/// A thread's pending events: its chunks' buffers as pushed (never copied
/// event by event), the first one read from `head`.
struct Lane {
    thread: ThreadId,
    buffers: VecDeque<Vec<Event>>,
    /// Position in the front buffer; always inside it when there is one.
    head: usize,
    next_chunk: u32,
}

impl Lane {
    /// The unread events of the front buffer (empty when nothing is pending).
    #[inline]
    fn front_run(&self) -> &[Event] {
        self.buffers.front().map_or(&[], |b| &b[self.head..])
    }

    /// Consumes `n` events of the front run; an emptied buffer is returned.
    #[inline]
    fn consume(&mut self, n: usize) -> Option<Vec<Event>> {
        self.head += n;
        let front_len = self.buffers.front().map_or(0, Vec::len);
        if self.head < front_len {
            return None;
        }
        self.head = 0;
        self.buffers.pop_front()
    }
}

/// What has been emitted so far, as far as ordering is concerned: each
/// sync variable's counter and which threads were started and have ended.
#[derive(Default)]
struct Progress {
    counters: FastMap<(ObjId, u64), u64>,
    started: FastSet<ThreadId>,
    ended: FastSet<ThreadId>,
}

impl Progress {
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
}

/// Merges per-thread chunks into one order; see the module docs.
#[derive(Default)]
pub struct Merger {
    lanes: Vec<Lane>,
    lane_of: BTreeMap<ThreadId, usize>,
    progress: Progress,
    cursor: usize,
    finished: bool,
    notes: Vec<String>,
    notes_dropped: usize,
    queued: usize,
    /// Emptied buffers, reused by [`Merger::push_events`] or passed on
    /// ([`Merger::take_spare`]).
    spare: BufferPool,
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

    /// Adds a chunk (chunks of one thread must come in program order); its
    /// event buffer is queued as it is, not copied.
    pub fn push_chunk(&mut self, chunk: Chunk) {
        let lane = self.lane_for(chunk.thread, chunk.index);
        self.enqueue(lane, chunk.events);
    }

    /// Adds a borrowed chunk's events (copied into a reused buffer; the
    /// caller keeps the chunk): the same as [`push_chunk`](Merger::push_chunk)
    /// of a clone.
    pub fn push_events(&mut self, thread: ThreadId, index: u32, events: &[Event]) {
        let lane = self.lane_for(thread, index);
        let mut buffer = self.spare.take();
        buffer.extend_from_slice(events);
        self.enqueue(lane, buffer);
    }

    fn enqueue(&mut self, lane: usize, events: Vec<Event>) {
        if events.is_empty() {
            self.recycle(events);
            return;
        }
        self.queued += events.len();
        self.lanes[lane].buffers.push_back(events);
    }

    fn recycle(&mut self, buffer: Vec<Event>) {
        self.spare.give(buffer);
    }

    /// An emptied event buffer, if one is kept: give it to the decoder
    /// ([`crate::Decoder::recycle`]) so that the next chunk reuses it.
    pub fn take_spare(&mut self) -> Option<Vec<Event>> {
        self.spare.take_kept()
    }

    /// The lane of `thread` (created on first sight), noting a chunk index
    /// that does not follow the previous one.
    fn lane_for(&mut self, thread: ThreadId, index: u32) -> usize {
        let lane = match self.lane_of.get(&thread) {
            Some(&l) => l,
            None => {
                let l = self.lanes.len();
                self.lane_of.insert(thread, l);
                // Keep lanes visited in thread-id order for a deterministic merge.
                self.lanes.push(Lane {
                    thread,
                    buffers: VecDeque::new(),
                    head: 0,
                    next_chunk: 0,
                });
                self.reorder_lanes();
                self.lane_of[&thread]
            }
        };
        let expected = self.lanes[lane].next_chunk;
        if index != expected {
            self.note(format!(
                "thread {thread}: chunk {index} follows chunk {} (events lost or out of order)",
                i64::from(expected) - 1
            ));
        }
        self.lanes[lane].next_chunk = index.wrapping_add(1);
        lane
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

    /// The next event in the merged order, or `None` when every remaining
    /// event waits for input not pushed yet (or nothing is left).
    pub fn next_event(&mut self) -> Option<(ThreadId, Event)> {
        let mut out = None;
        self.emit(&mut |thread, e: &Event| {
            out = Some((thread, *e));
            false
        });
        out
    }

    /// Hands every event that can be ordered now to `f`, in exactly the
    /// order repeated [`next_event`](Merger::next_event) calls would return
    /// them, but a run of one thread's unblocked events at a time (no
    /// per-event lane scan): the checkers' hot path.
    pub fn drain_ready(&mut self, mut f: impl FnMut(ThreadId, &Event)) {
        self.emit(&mut |thread, e: &Event| {
            f(thread, e);
            true
        });
    }

    /// The merge loop: emits ordered events to `f` while it returns true.
    /// Each round continues with the lane of the last event (the cursor),
    /// then the next lanes in thread order; when every lane is blocked and
    /// the input has ended, a gap is resolved.
    #[inline]
    fn emit(&mut self, f: &mut impl FnMut(ThreadId, &Event) -> bool) {
        while self.queued > 0 {
            let (n, cursor) = (self.lanes.len(), self.cursor);
            let mut ran = None;
            for l in (0..n).map(|step| (cursor + step) % n) {
                let (taken, more) = self.run_lane(l, f);
                if taken > 0 {
                    ran = Some((l, more));
                    break;
                }
            }
            match ran {
                Some((l, more)) => {
                    self.cursor = l;
                    if !more {
                        return;
                    }
                }
                None if self.finished && self.resolve_gap() => {}
                None => return,
            }
        }
    }

    /// Emits lane `l`'s events from the front until one is blocked, the
    /// front buffer ends or `f` says stop; returns how many, and whether to
    /// go on.
    #[inline]
    fn run_lane(
        &mut self,
        l: usize,
        f: &mut impl FnMut(ThreadId, &Event) -> bool,
    ) -> (usize, bool) {
        let lane = &mut self.lanes[l];
        let thread = lane.thread;
        let mut taken = 0;
        let mut more = true;
        for e in lane.front_run() {
            if self.progress.blocker(thread, e).is_some() {
                break;
            }
            self.progress.emitted(thread, e);
            taken += 1;
            if !f(thread, e) {
                more = false;
                break;
            }
        }
        if taken > 0 {
            self.queued -= taken;
            if let Some(emptied) = lane.consume(taken) {
                self.recycle(emptied);
            }
        }
        (taken, more)
    }

    /// Unblocks the thread whose wait is the smallest, with a note; false
    /// when nothing is blocked.
    fn resolve_gap(&mut self) -> bool {
        let mut best: Option<(u64, usize, Wait)> = None;
        for (l, lane) in self.lanes.iter().enumerate() {
            let Some(e) = lane.front_run().first() else {
                continue;
            };
            if let Some(w) = self.progress.blocker(lane.thread, e) {
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
                self.progress.counters.insert(var, seq);
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
                self.progress.started.insert(thread);
                self.note(format!(
                    "merge: thread {thread} began but its parent's start event is missing"
                ));
            }
            Wait::End(child) => {
                self.progress.ended.insert(child);
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
