//! Encoding/decoding round trips over generated event sequences, truncation
//! at every byte offset, corruption, and the merger's ordering guarantees.

use lockstep_trace::*;

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Mostly small values, sometimes extremes, to exercise every varint length.
    fn id(&mut self) -> u64 {
        match self.below(8) {
            0 => u64::MAX - self.below(3),
            1 => self.next(),
            _ => self.below(300),
        }
    }
    fn id32(&mut self) -> u32 {
        match self.below(8) {
            0 => u32::MAX - self.below(3) as u32,
            1 => self.next() as u32,
            _ => self.below(300) as u32,
        }
    }
}

fn random_event(r: &mut Rng) -> Event {
    let kind = LockKind::ALL[r.below(4) as usize];
    match r.below(19) {
        0 => Event::ThreadStart {
            child: r.id32(),
            site: r.id32(),
        },
        1 => Event::ThreadBegin { parent: None },
        2 => Event::ThreadBegin {
            parent: Some(r.id32()),
        },
        3 => Event::ThreadEnd,
        4 => Event::ThreadJoin {
            child: r.id32(),
            site: r.id32(),
        },
        5 => Event::Acquire {
            lock: r.id(),
            seq: r.id(),
            kind,
            site: r.id32(),
        },
        6 => Event::Release {
            lock: r.id(),
            seq: r.id(),
            kind,
            site: r.id32(),
        },
        7 => Event::Wait {
            lock: r.id(),
            site: r.id32(),
        },
        8 => Event::Notify {
            lock: r.id(),
            all: r.below(2) == 0,
            site: r.id32(),
        },
        9 => Event::SyncRelease {
            obj: r.id(),
            key: r.id32(),
            seq: r.id(),
            site: r.id32(),
        },
        10 => Event::SyncAcquire {
            obj: r.id(),
            key: r.id32(),
            seq: r.id(),
            site: r.id32(),
        },
        11 => Event::Read {
            obj: r.id(),
            field: r.id32(),
            site: r.id32(),
        },
        12 => Event::Write {
            obj: r.id(),
            field: r.id32(),
            site: r.id32(),
        },
        13 => Event::ArrayRead {
            array: r.id(),
            index: r.id32(),
            site: r.id32(),
        },
        14 => Event::ArrayWrite {
            array: r.id(),
            index: r.id32(),
            site: r.id32(),
        },
        15 => Event::ContainerRead {
            obj: r.id(),
            site: r.id32(),
        },
        16 => Event::ContainerWrite {
            obj: r.id(),
            site: r.id32(),
        },
        17 => Event::Enter { method: r.id32() },
        _ => {
            if r.below(2) == 0 {
                Event::Exit { method: r.id32() }
            } else {
                Event::ClassInit { class: r.id32() }
            }
        }
    }
}

fn header() -> Header {
    Header {
        format_version: FORMAT_VERSION,
        jvm: "test VM".into(),
        command: "java Main".into(),
        recorder: "0.1.0".into(),
        start_unix_ms: 1_700_000_000_000,
    }
}

/// A small trace holding every record kind.
fn small_trace() -> (Vec<u8>, Vec<Vec<Event>>) {
    let mut w = TraceWriter::new(Vec::new(), &header()).unwrap();
    w.site(
        0,
        &Site {
            class: "p/Main".into(),
            method: "run".into(),
            descriptor: "()V".into(),
            line: Some(12),
            file: Some("Main.java".into()),
        },
    )
    .unwrap();
    w.field(
        0,
        &Field {
            class: "p/Main".into(),
            name: "count".into(),
            descriptor: "I".into(),
            is_static: false,
            is_volatile: false,
            is_final: true,
        },
    )
    .unwrap();
    w.method(
        0,
        &Method {
            class: "p/Main".into(),
            name: "run".into(),
            descriptor: "()V".into(),
            flags: Some(method_flags::PUBLIC | method_flags::ATOMIC),
        },
    )
    .unwrap();
    w.class(
        0,
        &Class {
            name: "p/Main".into(),
        },
    )
    .unwrap();
    w.thread(&ThreadInfo {
        id: 0,
        name: "main".into(),
        parent: None,
        start_site: None,
    })
    .unwrap();
    w.object(&ObjectInfo {
        id: 7,
        class: "p/Main".into(),
        alloc_site: Some(0),
        represents: None,
    })
    .unwrap();
    w.object(&ObjectInfo {
        id: 8,
        class: "p/Main".into(),
        alloc_site: None,
        represents: None,
    })
    .unwrap();
    w.object(&ObjectInfo {
        id: 9,
        class: "java/lang/Class".into(),
        alloc_site: None,
        represents: Some("p/Counter".into()),
    })
    .unwrap();
    let mut enc = ChunkEncoder::new(0);
    let events = vec![
        Event::ThreadBegin { parent: None },
        Event::Enter { method: 0 },
        Event::Acquire {
            lock: 7,
            seq: 0,
            kind: LockKind::Monitor,
            site: 0,
        },
        Event::Write {
            obj: 7,
            field: 0,
            site: 0,
        },
        Event::Release {
            lock: 7,
            seq: 1,
            kind: LockKind::Monitor,
            site: 0,
        },
        Event::Exit { method: 0 },
        Event::ThreadEnd,
    ];
    for e in &events {
        enc.push(e);
    }
    w.chunk(&enc.take_chunk().unwrap()).unwrap();
    w.note("a note").unwrap();
    w.hang(&Hang {
        threads: vec![ThreadDump {
            thread: 0,
            name: "main".into(),
            state: "BLOCKED".into(),
            frames: vec![Frame::Site(0), Frame::Text("x.y(Z.java)".into())],
            holds: vec![7],
            waits_for: Some(8),
        }],
    })
    .unwrap();
    (w.finish().unwrap(), vec![events])
}

#[test]
fn generated_event_sequences_round_trip() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..200 {
        let threads = 1 + r.below(4) as u32;
        let mut w = TraceWriter::new(Vec::new(), &header()).unwrap();
        let mut expected: Vec<Vec<Event>> = vec![Vec::new(); threads as usize];
        let mut encoders: Vec<ChunkEncoder> = (0..threads).map(ChunkEncoder::new).collect();
        for _ in 0..r.below(400) {
            let t = r.below(u64::from(threads)) as usize;
            let e = random_event(&mut r);
            encoders[t].push(&e);
            expected[t].push(e);
            if r.below(50) == 0 {
                if let Some(c) = encoders[t].take_chunk() {
                    w.chunk(&c).unwrap();
                }
            }
        }
        for enc in &mut encoders {
            if let Some(c) = enc.take_chunk() {
                w.chunk(&c).unwrap();
            }
            assert!(enc.take_chunk().is_none());
        }
        let bytes = w.finish().unwrap();
        let trace = read_bytes(&bytes);
        assert!(
            trace.problems.is_empty(),
            "case {case}: {:?}",
            trace.problems
        );
        assert!(!trace.truncated);
        let mut got: Vec<Vec<Event>> = vec![Vec::new(); threads as usize];
        let mut next_index = vec![0u32; threads as usize];
        for c in &trace.chunks {
            assert_eq!(c.index, next_index[c.thread as usize], "case {case}");
            next_index[c.thread as usize] += 1;
            got[c.thread as usize].extend_from_slice(&c.events);
        }
        assert_eq!(got, expected, "case {case}");
    }
}

#[test]
fn every_record_kind_round_trips() {
    let (bytes, events) = small_trace();
    let t = read_bytes(&bytes);
    assert!(t.problems.is_empty(), "{:?}", t.problems);
    assert_eq!(t.header, Some(header()));
    assert_eq!(t.chunks.len(), 1);
    assert_eq!(t.chunks[0].events, events[0]);
    assert_eq!(t.tables.sites[&0].line, Some(12));
    assert_eq!(t.tables.fields[&0].name, "count");
    assert!(t.tables.fields[&0].is_final, "the final flag round-trips");
    assert_eq!(t.tables.methods[&0].name, "run");
    assert_eq!(t.tables.classes[&0].name, "p/Main");
    assert_eq!(t.tables.threads[&0].name, "main");
    assert_eq!(
        t.tables.objects[&8].class, "p/Main",
        "interned class name resolves"
    );
    assert_eq!(t.tables.objects[&7].alloc_site, Some(0));
    // A class object names the class it stands for; others name none.
    assert_eq!(
        t.tables.objects[&9].represents.as_deref(),
        Some("p/Counter")
    );
    assert_eq!(t.tables.objects[&7].represents, None);
    assert_eq!(t.notes, vec!["a note".to_string()]);
    assert_eq!(t.hangs[0].threads[0].waits_for, Some(8));
    assert_eq!(
        t.hangs[0].threads[0].frames[1],
        Frame::Text("x.y(Z.java)".into())
    );
}

/// Truncating at every offset never panics, yields a prefix of the records
/// and says where the trace was cut.
#[test]
fn truncation_at_every_offset_yields_a_prefix() {
    let (bytes, _) = small_trace();
    let full = read_bytes(&bytes);
    let full_records: Vec<Record> = StreamReader::new(&bytes[..]).map(|r| r.unwrap()).collect();
    for cut in 0..bytes.len() {
        let t = read_bytes(&bytes[..cut]);
        assert!(t.truncated, "cut {cut}");
        assert_eq!(t.problems.len(), 1, "cut {cut}: {:?}", t.problems);
        let p = &t.problems[0];
        assert!(p.message.contains("truncated"), "cut {cut}: {p}");
        assert!(p.offset <= cut as u64);
        let got: Vec<Record> = StreamReader::new(&bytes[..cut])
            .filter_map(Result::ok)
            .collect();
        assert_eq!(got[..], full_records[..got.len()], "cut {cut}");
        assert!(t.chunks.len() <= full.chunks.len());
    }
}

#[test]
fn streaming_decoder_accepts_bytes_one_at_a_time() {
    let (bytes, _) = small_trace();
    let mut d = Decoder::new();
    let mut records = Vec::new();
    for b in &bytes {
        d.feed(std::slice::from_ref(b));
        while let Some(r) = d.next_record() {
            records.push(r.unwrap());
        }
    }
    assert!(d.finish().is_none());
    let all: Vec<Record> = StreamReader::new(&bytes[..]).map(|r| r.unwrap()).collect();
    assert_eq!(records, all);
}

#[test]
fn wrong_magic_and_future_version_are_clear_errors() {
    let t = read_bytes(b"PK\x03\x04 not a trace");
    assert!(t.truncated);
    assert!(t.problems[0].message.contains("not a lockstep trace"));
    let mut bytes = small_trace().0;
    bytes[8] = 9;
    let t = read_bytes(&bytes);
    assert!(
        t.problems[0]
            .message
            .contains("unsupported trace format version 9"),
        "{}",
        t.problems[0]
    );
    assert_eq!(t.problems[0].offset, 8);
}

/// Flipping any single byte never panics; every record still read is one of
/// the originals or reported with an offset.
#[test]
fn single_byte_corruption_never_panics() {
    let (bytes, _) = small_trace();
    for i in 0..bytes.len() {
        for v in [0u8, 0x7f, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] = v;
            let t = read_bytes(&b);
            for p in &t.problems {
                assert!(p.offset <= b.len() as u64, "{p}");
            }
        }
    }
}

#[test]
fn unknown_record_is_skipped_with_a_note() {
    let (mut bytes, _) = small_trace();
    bytes.pop(); // the end record's length byte
    bytes.pop(); // and tag: appended again below
    let at = bytes.len();
    bytes.extend_from_slice(&[0x7e, 2, 0xaa, 0xbb]);
    let note_rec = [&[tag::NOTE, 6, 5][..], b"after"].concat();
    bytes.extend_from_slice(&note_rec);
    bytes.extend_from_slice(&[tag::END, 0]);
    let t = read_bytes(&bytes);
    assert!(!t.truncated);
    assert_eq!(t.problems.len(), 1);
    assert_eq!(t.problems[0].offset, at as u64);
    assert!(t.problems[0].message.contains("unknown record tag 0x7e"));
    assert_eq!(t.notes.last().map(String::as_str), Some("after"));
}

fn chunk(thread: ThreadId, index: u32, events: Vec<Event>) -> Chunk {
    Chunk {
        thread,
        index,
        events,
    }
}

/// The merged order respects program order and each lock's seq order, even
/// when a later-flushed thread's chunk comes first in the file.
#[test]
fn merger_orders_by_per_lock_seq_and_start_join() {
    let acq = |seq| Event::Acquire {
        lock: 5,
        seq,
        kind: LockKind::Monitor,
        site: 0,
    };
    let rel = |seq| Event::Release {
        lock: 5,
        seq,
        kind: LockKind::Monitor,
        site: 0,
    };
    let main = vec![
        Event::ThreadBegin { parent: None },
        Event::ThreadStart { child: 1, site: 0 },
        acq(2),
        Event::Write {
            obj: 9,
            field: 0,
            site: 1,
        },
        rel(3),
        Event::ThreadJoin { child: 1, site: 0 },
        Event::Read {
            obj: 9,
            field: 0,
            site: 2,
        },
        Event::ThreadEnd,
    ];
    let child = vec![
        Event::ThreadBegin { parent: Some(0) },
        acq(0),
        Event::Write {
            obj: 9,
            field: 0,
            site: 3,
        },
        rel(1),
        Event::ThreadEnd,
    ];
    // The child's chunk comes first in the file, as if flushed first.
    let (order, notes) = merge_chunks(vec![chunk(1, 0, child.clone()), chunk(0, 0, main.clone())]);
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(order.len(), main.len() + child.len());
    let pos = |t: ThreadId, e: Event| order.iter().position(|x| *x == (t, e)).unwrap();
    assert!(
        pos(0, Event::ThreadStart { child: 1, site: 0 })
            < pos(1, Event::ThreadBegin { parent: Some(0) })
    );
    assert!(pos(1, rel(1)) < pos(0, acq(2)));
    assert!(pos(1, Event::ThreadEnd) < pos(0, Event::ThreadJoin { child: 1, site: 0 }));
    let mains: Vec<Event> = order.iter().filter(|x| x.0 == 0).map(|x| x.1).collect();
    assert_eq!(mains, main, "program order kept");
}

#[test]
fn merger_waits_online_and_resolves_gaps_at_the_end() {
    let acq = |seq| Event::Acquire {
        lock: 5,
        seq,
        kind: LockKind::Exclusive,
        site: 0,
    };
    let mut m = Merger::new();
    m.push_chunk(chunk(
        0,
        0,
        vec![
            acq(2),
            Event::Write {
                obj: 1,
                field: 0,
                site: 0,
            },
        ],
    ));
    assert!(m.next_event().is_none(), "seq 2 waits for 0 and 1");
    m.push_chunk(chunk(1, 0, vec![acq(0)]));
    assert_eq!(m.next_event(), Some((1, acq(0))));
    assert!(m.next_event().is_none(), "seq 1 is still missing");
    m.finish();
    assert_eq!(m.next_event(), Some((0, acq(2))));
    assert!(matches!(m.next_event(), Some((0, Event::Write { .. }))));
    assert!(m.next_event().is_none());
    let notes = m.take_notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("lock 5: operations 1..1 missing"),
        "{notes:?}"
    );
}

#[test]
fn merger_notes_a_missing_chunk() {
    let (_, notes) = merge_chunks(vec![
        chunk(0, 0, vec![Event::ThreadBegin { parent: None }]),
        chunk(0, 2, vec![Event::ThreadEnd]),
    ]);
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("chunk 2 follows chunk 0"), "{notes:?}");
}

/// Typical field-access-heavy events take well under 8 bytes each.
#[test]
fn typical_events_are_compact() {
    let mut enc = ChunkEncoder::new(0);
    let mut n = 0u64;
    for i in 0..10_000u64 {
        let obj = 1000 + (i % 4);
        enc.push(&Event::Acquire {
            lock: 50,
            seq: 2 * i,
            kind: LockKind::Monitor,
            site: 10,
        });
        enc.push(&Event::Read {
            obj,
            field: 3,
            site: 11,
        });
        enc.push(&Event::Write {
            obj,
            field: 3,
            site: 12,
        });
        enc.push(&Event::Release {
            lock: 50,
            seq: 2 * i + 1,
            kind: LockKind::Monitor,
            site: 13,
        });
        n += 4;
    }
    let bytes = enc.take_chunk().unwrap().len() as f64 / n as f64;
    assert!(bytes <= 5.0, "{bytes} bytes per event");
}
