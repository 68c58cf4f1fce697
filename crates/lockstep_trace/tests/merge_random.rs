//! The merger on random well-formed runs: its order is a valid global
//! order (program order, every sync variable's `seq` order, start before
//! begin, end before join); the batch path (`drain_ready`) and the
//! one-event path (`next_event`) agree event by event, offline and online,
//! with and without lost chunks; chunk boundaries do not change the order.

#[path = "support/random_run.rs"]
mod random_run;

use std::collections::HashMap;

use lockstep_trace::{merge_chunks, Chunk, Event, Merger, ThreadId};
use random_run::{random_chunks, random_run, shuffle_across_threads, Rng};

/// Checks that `order` is a valid interleaving of `threads`.
fn assert_valid(order: &[(ThreadId, Event)], threads: &[Vec<Event>]) {
    let mut pos = vec![0usize; threads.len()];
    let mut seqs: HashMap<(u64, u64), u64> = HashMap::new();
    let mut started = vec![false; threads.len()];
    let mut ended = vec![false; threads.len()];
    for (i, &(t, e)) in order.iter().enumerate() {
        let t = t as usize;
        assert_eq!(
            threads[t].get(pos[t]),
            Some(&e),
            "event {i}: program order of thread {t}"
        );
        pos[t] += 1;
        let var = match e {
            Event::Acquire { lock, seq, .. } | Event::Release { lock, seq, .. } => {
                Some(((lock, 1 << 32), seq))
            }
            Event::SyncAcquire { obj, key, seq, .. } | Event::SyncRelease { obj, key, seq, .. } => {
                Some(((obj, u64::from(key)), seq))
            }
            Event::ThreadStart { child, .. } => {
                started[child as usize] = true;
                None
            }
            Event::ThreadBegin { parent: Some(_) } => {
                assert!(started[t], "event {i}: thread {t} begins before its start");
                None
            }
            Event::ThreadEnd => {
                ended[t] = true;
                None
            }
            Event::ThreadJoin { child, .. } => {
                assert!(
                    ended[child as usize],
                    "event {i}: join before the end of {child}"
                );
                None
            }
            _ => None,
        };
        if let Some((var, seq)) = var {
            let next = seqs.entry(var).or_insert(0);
            assert_eq!(seq, *next, "event {i}: seq order of {var:?}");
            *next += 1;
        }
    }
    for (t, events) in threads.iter().enumerate() {
        assert_eq!(pos[t], events.len(), "every event of thread {t} comes out");
    }
}

/// Pushes `chunks` one by one, taking what is ready after each (online),
/// with the batch path or the one-event path.
fn online(chunks: &[Chunk], batch: bool) -> (Vec<(ThreadId, Event)>, Vec<String>) {
    let mut m = Merger::new();
    let mut out = Vec::new();
    let take = |m: &mut Merger, out: &mut Vec<(ThreadId, Event)>| {
        if batch {
            m.drain_ready(|t, e| out.push((t, *e)));
        } else {
            while let Some(x) = m.next_event() {
                out.push(x);
            }
        }
    };
    for (i, c) in chunks.iter().enumerate() {
        if i % 2 == 0 {
            m.push_chunk(c.clone());
        } else {
            m.push_events(c.thread, c.index, &c.events);
        }
        take(&mut m, &mut out);
    }
    m.finish();
    take(&mut m, &mut out);
    (out, m.take_notes())
}

#[test]
fn merged_order_is_valid_and_both_paths_agree() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..200 {
        let threads = 1 + r.below(5) as u32;
        let steps = 20 + r.below(400) as usize;
        let run = random_run(&mut r, threads, steps);
        let max = 1 + r.below(40);
        let chunks = random_chunks(&mut r, &run, max);
        let (offline, notes) = merge_chunks(chunks.clone());
        assert!(notes.is_empty(), "case {case}: {notes:?}");
        assert_valid(&offline, &run.threads);
        let shuffled = shuffle_across_threads(&mut r, chunks);
        let (one, one_notes) = online(&shuffled, false);
        let (batch, batch_notes) = online(&shuffled, true);
        assert_valid(&batch, &run.threads);
        assert_eq!(one, batch, "case {case}: next_event and drain_ready orders");
        assert_eq!(one_notes, batch_notes);
    }
}

#[test]
fn chunk_boundaries_do_not_change_the_offline_order() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    for case in 0..100 {
        let threads = 2 + r.below(4) as u32;
        let run = random_run(&mut r, threads, 300);
        let fine = merge_chunks(random_chunks(&mut r, &run, 3)).0;
        let coarse = merge_chunks(random_chunks(&mut r, &run, 200)).0;
        assert_eq!(fine, coarse, "case {case}");
    }
}

#[test]
fn lost_chunks_are_resolved_the_same_way_by_both_paths() {
    let mut r = Rng(0xdead_beef_cafe_f00d);
    for case in 0..200 {
        let threads = 2 + r.below(4) as u32;
        let run = random_run(&mut r, threads, 300);
        let mut chunks = random_chunks(&mut r, &run, 30);
        // A chunk followed by another of its thread, so the gap is visible.
        let inner: Vec<usize> = (0..chunks.len() - 1)
            .filter(|&i| chunks[i].thread == chunks[i + 1].thread)
            .collect();
        if inner.is_empty() {
            continue;
        }
        chunks.remove(inner[r.below(inner.len() as u64) as usize]);
        let chunks = shuffle_across_threads(&mut r, chunks);
        let (one, one_notes) = online(&chunks, false);
        let (batch, batch_notes) = online(&chunks, true);
        assert_eq!(one, batch, "case {case}");
        assert_eq!(one_notes, batch_notes, "case {case}");
        assert!(
            !one_notes.is_empty(),
            "case {case}: the lost chunk is noted"
        );
        let kept: usize = chunks.iter().map(|c| c.events.len()).sum();
        assert_eq!(
            one.len(),
            kept,
            "case {case}: every remaining event comes out"
        );
    }
}
