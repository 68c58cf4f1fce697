//! Type discovery on hand-built traces, written through the real
//! `TraceWriter`/`ChunkEncoder` and read back (encode → read → merge →
//! discover), and the types file read back by `types::parse`.

use lockstep_dynamic::types::{discover, parse, GuardName, Owner};
use lockstep_trace::*;

const FIELD: FieldId = 0;
const STATIC: FieldId = 1;
const OBJ: ObjId = 7;
const CLASS_OBJ: ObjId = 50;
/// A static synchronized method of `app/Reg` and a plain static method.
const SYNC_STATIC: MethodId = 3;
const PLAIN_STATIC: MethodId = 4;

/// One trace: per thread, its events (thread 0 starts the others first).
struct Run {
    threads: Vec<Vec<Event>>,
    seq: std::collections::HashMap<ObjId, u64>,
    /// The class `CLASS_OBJ`'s object record says it stands for (`None`:
    /// a trace of a recorder before that field).
    represents: Option<String>,
}

impl Run {
    fn new(n: u32) -> Self {
        let mut main = vec![Event::ThreadBegin { parent: None }];
        let mut threads = vec![];
        for child in 1..n {
            main.push(Event::ThreadStart { child, site: 0 });
        }
        threads.push(main);
        for _ in 1..n {
            threads.push(vec![Event::ThreadBegin { parent: Some(0) }]);
        }
        Run {
            threads,
            seq: Default::default(),
            represents: None,
        }
    }

    fn push(&mut self, t: usize, e: Event) -> &mut Self {
        self.threads[t].push(e);
        self
    }

    fn lock(&mut self, t: usize, lock: ObjId, acquire: bool) -> &mut Self {
        let s = self.seq.entry(lock).or_insert(0);
        let seq = *s;
        *s += 1;
        let (kind, site) = (LockKind::Monitor, 0);
        self.push(
            t,
            if acquire {
                Event::Acquire {
                    lock,
                    seq,
                    kind,
                    site,
                }
            } else {
                Event::Release {
                    lock,
                    seq,
                    kind,
                    site,
                }
            },
        )
    }

    fn access(&mut self, t: usize, obj: ObjId, field: FieldId, write: bool) -> &mut Self {
        let site = 0;
        self.push(
            t,
            if write {
                Event::Write { obj, field, site }
            } else {
                Event::Read { obj, field, site }
            },
        )
    }

    /// `access` inside `synchronized (lock)`.
    fn locked(&mut self, t: usize, lock: ObjId, obj: ObjId, field: FieldId, w: bool) -> &mut Self {
        self.lock(t, lock, true)
            .access(t, obj, field, w)
            .lock(t, lock, false)
    }

    /// `access` of the static field in a static method (`synchronized`
    /// or not) that locks the class object on entry.
    fn in_static(&mut self, t: usize, method: MethodId, write: bool) -> &mut Self {
        self.push(t, Event::Enter { method })
            .lock(t, CLASS_OBJ, true)
            .access(t, 0, STATIC, write)
            .lock(t, CLASS_OBJ, false)
            .push(t, Event::Exit { method })
    }

    fn trace(&self) -> Trace {
        let mut w = TraceWriter::new(Vec::new(), &Header::default()).unwrap();
        let field = |name: &str, is_static| Field {
            class: "app/Box".into(),
            name: name.into(),
            descriptor: "I".into(),
            is_static,
            ..Field::default()
        };
        w.field(FIELD, &field("value", false)).unwrap();
        w.field(STATIC, &field("total", true)).unwrap();
        let method = |name: &str, flags| Method {
            class: "app/Reg".into(),
            name: name.into(),
            descriptor: "()V".into(),
            flags: Some(flags),
        };
        w.method(SYNC_STATIC, &method("add", 0x0029)).unwrap();
        w.method(PLAIN_STATIC, &method("peek", 0x0009)).unwrap();
        w.object(&ObjectInfo {
            id: CLASS_OBJ,
            class: "java/lang/Class".into(),
            alloc_site: None,
            represents: self.represents.clone(),
        })
        .unwrap();
        for (t, events) in self.threads.iter().enumerate() {
            let mut enc = ChunkEncoder::new(t as ThreadId);
            for e in events {
                enc.push(e);
            }
            if let Some(bytes) = enc.take_chunk() {
                w.chunk(&bytes).unwrap();
            }
        }
        read_bytes(&w.finish().unwrap())
    }
}

fn owner_of(traces: &[Trace], name: &str) -> Owner {
    let d = discover(traces);
    d.fields
        .get(&("app.Box".to_string(), name.to_string()))
        .unwrap_or_else(|| panic!("{name} not typed: {d:#?}"))
        .owner()
}

#[test]
fn accesses_before_a_second_thread_comes_do_not_count() {
    // The creating thread writes unlocked (initialization), then both
    // threads lock the object itself.
    let mut r = Run::new(2);
    r.access(0, OBJ, FIELD, true)
        .locked(1, OBJ, OBJ, FIELD, true)
        .locked(0, OBJ, OBJ, FIELD, false);
    assert_eq!(
        owner_of(&[r.trace()], "value"),
        Owner::GuardedBy(GuardName::This)
    );
}

#[test]
fn writes_under_a_lock_and_unlocked_reads_are_write_guarded() {
    let mut r = Run::new(2);
    r.locked(0, OBJ, OBJ, FIELD, true)
        .access(1, OBJ, FIELD, false)
        .locked(1, OBJ, OBJ, FIELD, true);
    assert_eq!(
        owner_of(&[r.trace()], "value"),
        Owner::WriteGuardedBy(GuardName::This)
    );
}

#[test]
fn a_lock_other_than_the_object_or_a_named_class_is_no_guard() {
    let mut r = Run::new(2);
    r.locked(0, 99, OBJ, FIELD, true)
        .locked(1, 99, OBJ, FIELD, true);
    assert_eq!(owner_of(&[r.trace()], "value"), Owner::None);
}

#[test]
fn a_class_object_is_named_by_a_static_synchronized_methods_entry() {
    let mut r = Run::new(2);
    r.in_static(0, SYNC_STATIC, true)
        .in_static(1, SYNC_STATIC, true);
    assert_eq!(
        owner_of(&[r.trace()], "total"),
        Owner::GuardedBy(GuardName::Class("app.Reg".into()))
    );
}

#[test]
fn a_class_object_locked_only_by_blocks_is_named_by_its_object_record() {
    // `synchronized (Reg.class)` in a method that is not static
    // synchronized: the object record says which class the lock stands for.
    let mut r = Run::new(2);
    r.represents = Some("app/Reg".into());
    r.in_static(0, PLAIN_STATIC, true)
        .in_static(1, PLAIN_STATIC, true);
    assert_eq!(
        owner_of(&[r.trace()], "total"),
        Owner::GuardedBy(GuardName::Class("app.Reg".into()))
    );
}

#[test]
fn known_limitation_older_traces_do_not_name_a_class_object_locked_only_by_blocks() {
    // A trace of a recorder before the object record's `represents` field
    // calls the lock `java/lang/Class`, not which class; no guard is guessed.
    let mut r = Run::new(2);
    r.in_static(0, PLAIN_STATIC, true)
        .in_static(1, PLAIN_STATIC, true);
    assert_eq!(owner_of(&[r.trace()], "total"), Owner::None);
}

#[test]
fn owners_are_intersected_over_traces_and_survive_the_types_file() {
    let mut guarded = Run::new(2);
    guarded
        .locked(0, OBJ, OBJ, FIELD, true)
        .locked(1, OBJ, OBJ, FIELD, true);
    let mut read_only = Run::new(2);
    read_only
        .access(0, OBJ, FIELD, true)
        .access(1, OBJ, FIELD, false);
    let one = guarded.trace();
    assert_eq!(
        owner_of(std::slice::from_ref(&one), "value"),
        Owner::GuardedBy(GuardName::This)
    );
    assert_eq!(owner_of(&[read_only.trace()], "value"), Owner::ReadOnly);
    // Together: written once shared under the lock (first run), read
    // unlocked (second run): only the writes keep the guard.
    let both = [one, read_only.trace()];
    let d = discover(&both);
    assert_eq!(d.traces, 2);
    assert_eq!(
        owner_of(&both, "value"),
        Owner::WriteGuardedBy(GuardName::This)
    );
    // The JSON round trip keeps every owner.
    let fields = parse(&discover(&[guarded.trace()]).to_json()).unwrap();
    assert_eq!(fields.len(), 1);
    assert_eq!(fields[0].class, "app.Box");
    assert_eq!(fields[0].owner, Owner::GuardedBy(GuardName::This));
    // Same input, same bytes.
    assert_eq!(
        discover(&both).to_json(),
        discover(&both).to_json(),
        "deterministic"
    );
}

#[test]
fn bad_types_files_are_errors_that_say_what_is_wrong() {
    let err = |text: &str| parse(text).unwrap_err();
    assert!(err("{").starts_with("not JSON"));
    assert!(err(r#"{"format": "other", "version": 1}"#).contains("not a types file"));
    assert_eq!(
        err(r#"{"format": "lockstep-types", "version": 2, "fields": []}"#),
        "unsupported types file version 2"
    );
    assert_eq!(
        err(
            r#"{"format": "lockstep-types", "version": 1, "fields": [{"class": "a.B", "field": "x", "owner": "guarded_by", "guard": "lock"}]}"#
        ),
        "fields[0]: guard \"lock\" is neither this nor C.class"
    );
    assert_eq!(
        err(
            r#"{"format": "lockstep-types", "version": 1, "fields": [{"class": "a.B", "owner": "readonly"}]}"#
        ),
        "fields[0]: no \"field\" string"
    );
    // Unknown keys are ignored (later versions add).
    let ok = parse(r#"{"format": "lockstep-types", "version": 1, "extra": 1, "fields": [{"class": "a.B", "field": "x", "owner": "thisThread", "new": []}]}"#).unwrap();
    assert_eq!(ok[0].owner, Owner::ThisThread);
}
