//! Both checkers on random well-formed runs (the trace crate's generator),
//! their chunks interleaved across threads in a random order: checking the
//! bytes as they stream in (`check_stream`, chunks moved into the merger)
//! and checking the read trace (`check_traces`, chunks borrowed) give the
//! same findings (up to order) and timeline; and so does an engine fed event by event
//! from `Merger::next_event` with the same arrival pattern (the order the
//! batch path `drain_ready` must reproduce).

#[path = "../../lockstep_trace/tests/support/random_run.rs"]
mod random_run;

use lockstep_dynamic::{check_stream, check_traces, Engine, Options};
use lockstep_trace::{read_bytes, Chunk, ChunkEncoder, Header, Merger, Record, TraceWriter};
use random_run::{random_chunks, random_run, shuffle_across_threads, Rng};

/// The bytes of a trace holding `chunks` in this order.
fn encode(chunks: &[Chunk]) -> Vec<u8> {
    let mut w = TraceWriter::new(Vec::new(), &Header::default()).unwrap();
    for c in chunks {
        let mut enc = ChunkEncoder::new(c.thread);
        // Advance the encoder's chunk index to this chunk's.
        for _ in 0..c.index {
            enc.push(&lockstep_trace::Event::ThreadEnd);
            enc.take_chunk();
        }
        for e in &c.events {
            enc.push(e);
        }
        w.chunk(&enc.take_chunk().unwrap()).unwrap();
    }
    w.finish().unwrap()
}

/// Checks `chunks` (in arrival order) with an engine fed one event at a
/// time from a separate merger drained with `next_event` after each chunk.
fn check_event_by_event(chunks: &[Chunk], opts: &Options) -> lockstep_dynamic::Outcome {
    let mut engine = Engine::new(opts);
    engine.record(Record::Header(Header::default()));
    let mut merger = Merger::new();
    for c in chunks {
        merger.push_chunk(c.clone());
        while let Some((t, e)) = merger.next_event() {
            engine.event(t, &e);
        }
    }
    merger.finish();
    assert!(merger.next_event().is_none(), "nothing was lost");
    engine.finish()
}

#[test]
fn streaming_offline_and_event_by_event_agree_on_random_runs() {
    let mut r = Rng(0x0123_4567_89ab_cdef);
    let opts = Options {
        timeline: true,
        ..Options::default()
    };
    let (mut racy_runs, mut hb_races) = (0, 0);
    for case in 0..80 {
        let threads = 2 + r.below(4) as u32;
        let run = random_run(&mut r, threads, 300);
        let max = 1 + r.below(60);
        let chunks = random_chunks(&mut r, &run, max);
        let chunks = shuffle_across_threads(&mut r, chunks);
        let bytes = encode(&chunks);
        let offline = check_traces(&[read_bytes(&bytes)], &opts);
        let online = check_stream(&bytes[..], &opts);
        let reference = check_event_by_event(&chunks, &opts);
        // `check_traces` sorts findings (it merges several traces); one
        // engine lists them in order of detection.
        assert_eq!(online.findings, reference.findings, "case {case}");
        assert_eq!(online.timeline, reference.timeline, "case {case}");
        let mut sorted = online.findings.clone();
        sorted.sort();
        assert_eq!(offline.findings, sorted, "case {case}");
        assert_eq!(offline.timeline, online.timeline, "case {case}");
        assert_eq!(offline.stats.events, run.global.len() as u64);
        assert!(online.notes.is_empty(), "case {case}: {:?}", online.notes);
        racy_runs += usize::from(!offline.findings.is_empty());
        hb_races += offline
            .findings
            .iter()
            .filter(|f| f.notes.iter().any(|n| n.contains("happens-before")))
            .count();
    }
    assert!(
        racy_runs > 20,
        "the generator makes racy runs ({racy_runs})"
    );
    assert!(hb_races > 20, "and happens-before races ({hb_races})");
}
