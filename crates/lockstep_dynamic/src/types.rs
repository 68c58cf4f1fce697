//! Type discovery (paper 004 §4, paper 003 slides 36–37 and 50): race-free
//! types for field declarations, guessed from what runs did, for the static
//! analysis to check (`lockstep check --types`).
//!
//! Each trace is replayed in its merged order with the held locks of every
//! thread ([`crate::context`]). Per variable (one field of one object, or a
//! static field) it keeps the thread that first touched it, whether a
//! second thread touched it since (*shared*: the variable escaped), whether
//! it was written once shared, and the monitors held at every access and at
//! every write once shared. Per declaration (class and field name) these are
//! intersected over all objects and all traces, and the owner is the first
//! rule of slide 50 that applies:
//!
//! 1. no object's field was shared → `thisThread`;
//! 2. none was written once shared → `readonly`;
//! 3. every shared access held the accessed object's own monitor →
//!    `guarded_by this` (the paper's `self`);
//! 4. every shared access held one class object's monitor →
//!    `guarded_by C.class` (the object record names the class a class
//!    object stands for; in traces of older recorders only a static
//!    `synchronized` method's entry names it);
//! 5. the same two for writes only → `write_guarded_by`;
//! 6. otherwise no owner.
//!
//! What the trace cannot express is left out, not guessed: a `final` field
//! holding the lock (final fields are not recorded, so which object one
//! holds is unknown), `java.util.concurrent` locks (only monitors guard
//! here), array elements (the trace has no allocation sites), and `unique` (a static
//! property of references). The types file is JSON, format
//! `lockstep-types` version 1 (`docs/types-format.md`).

use std::collections::{BTreeMap, BTreeSet};

use lockstep_trace::{method_flags, Event, FieldId, LockKind, Merger, ObjId, ThreadId, Trace};
use serde_json::{json, Value};

use crate::context::{Context, Tid};
use crate::fast_hash::FastMap;

/// The types file's format name and version.
pub const FORMAT: &str = "lockstep-types";
/// The version this code writes and reads.
pub const VERSION: u64 = 1;

/// The JVM's `static` access flag.
const ACC_STATIC: u32 = 0x0008;
/// The class name the recorder gives a class object.
const CLASS_OBJECT: &str = "java/lang/Class";

/// Who protects a field: the paper's owners.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Owner {
    /// Never accessed by two threads (per object).
    ThisThread,
    /// Not written once shared.
    ReadOnly,
    /// This lock held at every access once shared.
    GuardedBy(GuardName),
    /// This lock held at every write once shared (reads unprotected).
    WriteGuardedBy(GuardName),
    /// No owner the runs support.
    None,
}

/// A lock expressible at the field's declaration.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum GuardName {
    /// The accessed object's own monitor.
    This,
    /// The monitor of a class object; the class in dotted binary form.
    Class(String),
}

impl GuardName {
    /// As the types file writes it: `this` or `pkg.Foo.class`.
    pub fn as_json(&self) -> String {
        match self {
            GuardName::This => "this".into(),
            GuardName::Class(c) => format!("{c}.class"),
        }
    }

    fn parse(s: &str) -> Option<GuardName> {
        if s == "this" {
            return Some(GuardName::This);
        }
        let class = s.strip_suffix(".class")?;
        (!class.is_empty()).then(|| GuardName::Class(class.to_string()))
    }

    /// As Java source writes it in `@GuardedBy`: `this`, `Foo.class`.
    fn annotation(&self) -> String {
        match self {
            GuardName::This => "this".into(),
            GuardName::Class(c) => {
                let simple = c.rsplit(['.', '$']).next().unwrap_or(c);
                format!("{simple}.class")
            }
        }
    }
}

impl Owner {
    fn kind(&self) -> &'static str {
        match self {
            Owner::ThisThread => "thisThread",
            Owner::ReadOnly => "readonly",
            Owner::GuardedBy(_) => "guarded_by",
            Owner::WriteGuardedBy(_) => "write_guarded_by",
            Owner::None => "none",
        }
    }

    fn guard(&self) -> Option<&GuardName> {
        match self {
            Owner::GuardedBy(g) | Owner::WriteGuardedBy(g) => Some(g),
            _ => None,
        }
    }
}

/// What the runs showed about one field declaration, over every object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldSummary {
    /// Field descriptor (`I`, `Ljava/lang/String;`).
    pub descriptor: String,
    /// A static field.
    pub is_static: bool,
    /// Objects (variables) whose field was accessed (1 for a static).
    pub objects: u64,
    /// Of those, the ones a second thread accessed.
    pub shared_objects: u64,
    /// Accesses recorded.
    pub accesses: u64,
    /// Some object's field was written once shared.
    pub written_shared: bool,
    /// Candidate guards held at every access once shared (`None`: no
    /// shared access, every guard is a candidate).
    pub all: Option<BTreeSet<GuardName>>,
    /// The same for writes.
    pub writes: Option<BTreeSet<GuardName>>,
}

impl FieldSummary {
    /// Adds another object's (or another trace's) summary of the same field.
    fn merge(&mut self, other: &FieldSummary) {
        self.objects += other.objects;
        self.shared_objects += other.shared_objects;
        self.accesses += other.accesses;
        self.written_shared |= other.written_shared;
        intersect_into(&mut self.all, &other.all);
        intersect_into(&mut self.writes, &other.writes);
    }

    /// The owner: the first rule of slide 50 that applies.
    pub fn owner(&self) -> Owner {
        if self.shared_objects == 0 {
            return Owner::ThisThread;
        }
        if !self.written_shared {
            return Owner::ReadOnly;
        }
        if let Some(g) = first(&self.all) {
            return Owner::GuardedBy(g);
        }
        match first(&self.writes) {
            Some(g) => Owner::WriteGuardedBy(g),
            None => Owner::None,
        }
    }
}

/// `this` first, then class literals by name.
fn first(set: &Option<BTreeSet<GuardName>>) -> Option<GuardName> {
    set.as_ref().and_then(|s| s.iter().next().cloned())
}

fn intersect_into(acc: &mut Option<BTreeSet<GuardName>>, other: &Option<BTreeSet<GuardName>>) {
    match (acc.as_mut(), other) {
        (_, None) => {}
        (None, Some(o)) => *acc = Some(o.clone()),
        (Some(a), Some(o)) => a.retain(|g| o.contains(g)),
    }
}

/// The discovered types of every field the traces accessed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Discovery {
    /// Traces read.
    pub traces: u64,
    /// Per (class in dotted binary form, field name).
    pub fields: BTreeMap<(String, String), FieldSummary>,
    /// Field ids accessed whose field record was missing (not typed).
    pub unnamed_fields: u64,
}

impl Discovery {
    /// Fields that got an owner, and all fields.
    pub fn typed(&self) -> (usize, usize) {
        let typed = self
            .fields
            .values()
            .filter(|f| f.owner() != Owner::None)
            .count();
        (typed, self.fields.len())
    }

    /// The versioned JSON types file.
    pub fn to_json(&self) -> String {
        let (typed, total) = self.typed();
        let fields: Vec<Value> = self
            .fields
            .iter()
            .map(|((class, name), f)| field_json(class, name, f))
            .collect();
        let doc = json!({
            "format": FORMAT,
            "version": VERSION,
            "traces": self.traces,
            "summary": { "fields": total, "typed": typed, "share": share(typed, total) },
            "fields": fields,
        });
        let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Suggested annotations, one line per field, and the share typed.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for ((class, name), f) in &self.fields {
            let owner = f.owner();
            out.push_str(&format!(
                "{class}.{name}: {}  ({} objects, {} shared, {} accesses)\n",
                suggestion(&owner),
                f.objects,
                f.shared_objects,
                f.accesses
            ));
        }
        let (typed, total) = self.typed();
        out.push_str(&format!(
            "{typed} of {total} fields typed ({:.1}%) from {} trace(s)\n",
            share(typed, total) * 100.0,
            self.traces
        ));
        if self.unnamed_fields > 0 {
            out.push_str(&format!(
                "note: {} accessed field ids had no field record and were not typed\n",
                self.unnamed_fields
            ));
        }
        out
    }
}

fn share(typed: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        ((typed as f64 / total as f64) * 10000.0).round() / 10000.0
    }
}

fn names(set: &Option<BTreeSet<GuardName>>) -> Value {
    match set {
        None => Value::Null,
        Some(s) => s.iter().map(GuardName::as_json).collect(),
    }
}

fn field_json(class: &str, name: &str, f: &FieldSummary) -> Value {
    let owner = f.owner();
    json!({
        "class": class,
        "field": name,
        "descriptor": f.descriptor,
        "static": f.is_static,
        "owner": owner.kind(),
        "guard": owner.guard().map(GuardName::as_json),
        "objects": f.objects,
        "shared_objects": f.shared_objects,
        "accesses": f.accesses,
        "candidates": { "all": names(&f.all), "writes": names(&f.writes) },
    })
}

/// The annotation a developer would write for `owner`.
fn suggestion(owner: &Owner) -> String {
    match owner {
        Owner::ThisThread => "thread-confined (@ThreadConfined: one thread per object)".into(),
        Owner::ReadOnly => {
            "read-only once shared (make it final, or document @Immutable/@ReadOnly)".into()
        }
        Owner::GuardedBy(g) => format!("@GuardedBy(\"{}\")", g.annotation()),
        Owner::WriteGuardedBy(g) => {
            format!("writes @GuardedBy(\"{}\"), reads unlocked", g.annotation())
        }
        Owner::None => "no guard (inconsistent or no locks)".into(),
    }
}

/// Discovers the types of the fields the traces accessed.
pub fn discover(traces: &[Trace]) -> Discovery {
    let mut out = Discovery::default();
    for trace in traces {
        out.traces += 1;
        let mut replay = Replay::default();
        replay.name_class_objects(trace);
        let mut merger = Merger::new();
        for c in &trace.chunks {
            merger.push_events(c.thread, c.index, &c.events);
        }
        merger.finish();
        merger.drain_ready(|thread, e| replay.event(thread, e, trace));
        replay.summarize(trace, &mut out);
    }
    out
}

/// One variable's state in one trace.
#[derive(Debug)]
struct VarState {
    first: Tid,
    shared: bool,
    written_shared: bool,
    accesses: u64,
    /// Monitors held at every access once shared (`None`: none yet).
    all: Option<Vec<ObjId>>,
    /// Monitors held at every write once shared.
    writes: Option<Vec<ObjId>>,
}

/// Replays one trace.
#[derive(Debug, Default)]
struct Replay {
    ctx: Context,
    tids: FastMap<ThreadId, Tid>,
    vars: BTreeMap<(FieldId, ObjId), VarState>,
    /// Class objects named by a static `synchronized` method's entry:
    /// lock → internal class name.
    class_objects: FastMap<ObjId, String>,
    /// Per thread: the previous event (to pair a method entry with its
    /// monitor acquisition).
    previous: FastMap<Tid, Event>,
    held: Vec<ObjId>,
}

impl Replay {
    fn tid(&mut self, thread: ThreadId) -> Tid {
        let next = self.tids.len() as Tid;
        let t = *self.tids.entry(thread).or_insert(next);
        self.ctx.ensure(t);
        t
    }

    fn event(&mut self, thread: ThreadId, e: &Event, trace: &Trace) {
        let t = self.tid(thread);
        self.ctx.step(t, e);
        if let Some(prev) = self.previous.insert(t, *e) {
            self.name_class_object(&prev, e, trace);
        }
        let (obj, field, write) = match *e {
            Event::Read { obj, field, .. } => (obj, field, false),
            Event::Write { obj, field, .. } => (obj, field, true),
            _ => return,
        };
        if trace.tables.fields.get(&field).is_some_and(|f| f.is_final) {
            return;
        }
        self.held.clear();
        let locks = self.ctx.locksets.get(self.ctx.threads[t as usize].locks);
        self.held.extend(
            locks
                .iter()
                .filter(|(_, k)| *k == LockKind::Monitor)
                .map(|(l, _)| *l),
        );
        self.held.dedup();
        self.access(t, field, obj, write);
    }

    /// Class objects whose object record names the class they stand for
    /// (recorders since the `represents` field): every `C.class` lock,
    /// `synchronized (C.class)` blocks included.
    fn name_class_objects(&mut self, trace: &Trace) {
        for o in trace.tables.objects.values() {
            if let (CLASS_OBJECT, Some(c)) = (o.class.as_str(), &o.represents) {
                self.class_objects.insert(o.id, c.clone());
            }
        }
    }

    /// Older traces: a static `synchronized` method's entry followed at once by a
    /// monitor acquisition of a class object names that object (the
    /// recorder's prologue: method entry, then the method's monitor).
    fn name_class_object(&mut self, prev: &Event, e: &Event, trace: &Trace) {
        let (method, lock) = match (*prev, *e) {
            (
                Event::Enter { method },
                Event::Acquire {
                    lock,
                    kind: LockKind::Monitor,
                    ..
                },
            ) => (method, lock),
            _ => return,
        };
        let Some(m) = trace.tables.methods.get(&method) else {
            return;
        };
        let wanted = ACC_STATIC | method_flags::SYNCHRONIZED;
        let is_class_object = trace
            .tables
            .objects
            .get(&lock)
            .is_some_and(|o| o.class == CLASS_OBJECT);
        if m.flags.is_some_and(|f| f & wanted == wanted) && is_class_object {
            self.class_objects
                .entry(lock)
                .or_insert_with(|| m.class.clone());
        }
    }

    fn access(&mut self, t: Tid, field: FieldId, obj: ObjId, write: bool) {
        let st = self.vars.entry((field, obj)).or_insert(VarState {
            first: t,
            shared: false,
            written_shared: false,
            accesses: 0,
            all: None,
            writes: None,
        });
        st.accesses += 1;
        st.shared |= st.first != t;
        if !st.shared {
            return;
        }
        st.written_shared |= write;
        narrow(&mut st.all, &self.held);
        if write {
            narrow(&mut st.writes, &self.held);
        }
    }

    /// Folds this trace's variables into per-declaration summaries.
    fn summarize(&self, trace: &Trace, out: &mut Discovery) {
        let mut unnamed = BTreeSet::new();
        let mut per_trace: BTreeMap<(String, String), FieldSummary> = BTreeMap::new();
        for (&(field, obj), st) in &self.vars {
            let Some(f) = trace.tables.fields.get(&field) else {
                unnamed.insert(field);
                continue;
            };
            let summary = FieldSummary {
                descriptor: f.descriptor.clone(),
                is_static: f.is_static,
                objects: 1,
                shared_objects: u64::from(st.shared),
                accesses: st.accesses,
                written_shared: st.written_shared,
                all: st.all.as_ref().map(|l| self.guards(l, obj)),
                writes: st.writes.as_ref().map(|l| self.guards(l, obj)),
            };
            let key = (dotted(&f.class), f.name.clone());
            match per_trace.get_mut(&key) {
                Some(s) => s.merge(&summary),
                None => {
                    per_trace.insert(key, summary);
                }
            }
        }
        for (key, s) in per_trace {
            match out.fields.get_mut(&key) {
                Some(prev) => prev.merge(&s),
                None => {
                    out.fields.insert(key, s);
                }
            }
        }
        out.unnamed_fields += unnamed.len() as u64;
    }

    /// The held monitors `locks` as guards expressible for a field of `obj`.
    fn guards(&self, locks: &[ObjId], obj: ObjId) -> BTreeSet<GuardName> {
        locks
            .iter()
            .filter_map(|l| {
                if obj != 0 && *l == obj {
                    Some(GuardName::This)
                } else {
                    self.class_objects
                        .get(l)
                        .map(|c| GuardName::Class(dotted(c)))
                }
            })
            .collect()
    }
}

/// Intersects a variable's lock set with the locks held now.
fn narrow(set: &mut Option<Vec<ObjId>>, held: &[ObjId]) {
    match set {
        None => *set = Some(held.to_vec()),
        Some(s) => s.retain(|l| held.contains(l)),
    }
}

/// `pkg/Outer$Inner` → `pkg.Outer$Inner`.
fn dotted(internal: &str) -> String {
    internal.replace('/', ".")
}

/// One field's type as a types file gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedField {
    /// Declaring class, dotted binary form.
    pub class: String,
    /// Field name.
    pub field: String,
    /// A static field.
    pub is_static: bool,
    /// The discovered owner.
    pub owner: Owner,
}

/// Reads a types file (format `lockstep-types`, version 1). Unknown keys
/// are ignored (later versions add, never change); a wrong format or
/// version, or a field entry without its class, name or owner, is an error
/// naming the entry.
pub fn parse(text: &str) -> Result<Vec<TypedField>, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if doc.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(format!("not a types file (\"format\" is not \"{FORMAT}\")"));
    }
    match doc.get("version").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(v) => return Err(format!("unsupported types file version {v}")),
        None => return Err("no \"version\"".into()),
    }
    let fields = doc
        .get("fields")
        .and_then(Value::as_array)
        .ok_or("no \"fields\" array")?;
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| parse_field(f).map_err(|e| format!("fields[{i}]: {e}")))
        .collect()
}

fn parse_field(f: &Value) -> Result<TypedField, String> {
    let text = |key: &str| {
        f.get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| format!("no \"{key}\" string"))
    };
    let class = text("class")?;
    let field = text("field")?;
    let kind = text("owner")?;
    let guard = || {
        let g = text("guard")?;
        GuardName::parse(&g).ok_or_else(|| format!("guard \"{g}\" is neither this nor C.class"))
    };
    let owner = match kind.as_str() {
        "thisThread" => Owner::ThisThread,
        "readonly" => Owner::ReadOnly,
        "guarded_by" => Owner::GuardedBy(guard()?),
        "write_guarded_by" => Owner::WriteGuardedBy(guard()?),
        "none" => Owner::None,
        other => return Err(format!("unknown owner \"{other}\"")),
    };
    Ok(TypedField {
        class,
        field,
        is_static: f.get("static").and_then(Value::as_bool).unwrap_or(false),
        owner,
    })
}
