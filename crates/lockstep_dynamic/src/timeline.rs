//! The run as Chrome trace-event JSON (Perfetto, `chrome://tracing`): one
//! track per thread, each lock held as a duration event, the two accesses of
//! every race as instant events. Time is the event's position in the merged
//! order (one "microsecond" per event), so the output is deterministic.

use lockstep_trace::{Event, LockKind, ObjId, ThreadId};
use serde_json::{json, Value};

use crate::context::LockStep;
use crate::findings::{object_name, thread_name, View};
use crate::race::Race;

/// At most this many lock intervals are kept (the rest are counted).
const MAX_INTERVALS: usize = 1_000_000;

#[derive(Debug, Clone, Copy)]
struct Interval {
    thread: ThreadId,
    lock: ObjId,
    kind: LockKind,
    begin: u64,
    end: u64,
}

/// Collects what the timeline shows while events are checked.
#[derive(Debug, Default)]
pub struct TimelineRecorder {
    open: Vec<(ThreadId, ObjId, LockKind, u64)>,
    done: Vec<Interval>,
    dropped: u64,
    last_at: u64,
}

impl TimelineRecorder {
    /// Notes a lock taken or released.
    pub fn step(&mut self, thread: ThreadId, _e: &Event, step: LockStep, at: u64) {
        self.last_at = at;
        match step {
            LockStep::Acquired(lock, kind) => self.open.push((thread, lock, kind, at)),
            LockStep::Released(lock, kind) => {
                if let Some(i) = self
                    .open
                    .iter()
                    .rposition(|o| o.0 == thread && o.1 == lock && o.2 == kind)
                {
                    let (thread, lock, kind, begin) = self.open.remove(i);
                    if self.done.len() < MAX_INTERVALS {
                        self.done.push(Interval {
                            thread,
                            lock,
                            kind,
                            begin,
                            end: at,
                        });
                    } else {
                        self.dropped += 1;
                    }
                }
            }
            LockStep::None => {}
        }
    }

    /// The JSON document (locks still held at the end close at the last event).
    pub fn render(mut self, races: &[Race], view: &View) -> String {
        let end = self.last_at;
        for (thread, lock, kind, begin) in std::mem::take(&mut self.open) {
            self.done.push(Interval {
                thread,
                lock,
                kind,
                begin,
                end,
            });
        }
        let mut events: Vec<Value> = Vec::new();
        for (t, &id) in view.threads.iter().enumerate() {
            events.push(json!({
                "ph": "M", "name": "thread_name", "pid": 1, "tid": id,
                "args": { "name": thread_name(view, t as u32) },
            }));
        }
        self.done.sort_by_key(|i| (i.begin, i.thread, i.lock));
        for i in &self.done {
            let mode = match i.kind {
                LockKind::Read => " (read)",
                LockKind::Write => " (write)",
                _ => "",
            };
            events.push(json!({
                "ph": "X", "cat": "lock", "pid": 1, "tid": i.thread,
                "name": format!("holds {}{mode}", object_name(view.tables, i.lock)),
                "ts": i.begin, "dur": i.end - i.begin,
            }));
        }
        for (n, race) in races.iter().enumerate() {
            for (label, acc) in [("first", &race.first), ("second", &race.second)] {
                let tid = view.threads.get(acc.thread as usize).copied().unwrap_or(0);
                let site = crate::findings::site_location(view.tables, acc.site);
                events.push(json!({
                    "ph": "i", "s": "t", "cat": "race", "pid": 1, "tid": tid,
                    "name": format!("race {} ({label} access: {})", n + 1, if acc.write { "write" } else { "read" }),
                    "ts": acc.at,
                    "args": { "at": format!("{} ({})", site.display_method(), site.position()) },
                }));
            }
        }
        let mut doc = json!({ "traceEvents": events, "displayTimeUnit": "ns" });
        if self.dropped > 0 {
            doc["otherData"] = json!({ "droppedLockIntervals": self.dropped });
        }
        doc.to_string()
    }
}

/// Concatenates several runs' timelines, one process id per run.
pub fn concat(docs: &[String]) -> String {
    let mut events: Vec<Value> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let Ok(mut v) = serde_json::from_str::<Value>(d) else {
            continue;
        };
        if let Some(Value::Array(list)) = v.get_mut("traceEvents") {
            for mut e in list.drain(..) {
                e["pid"] = json!(i + 1);
                events.push(e);
            }
        }
    }
    json!({ "traceEvents": events, "displayTimeUnit": "ns" }).to_string()
}
