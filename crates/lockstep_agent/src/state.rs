//! The recorder's shared state: trace writer, tables, probes, threads,
//! object ids and per-variable sequence counters.
//!
//! Hot paths (one event) touch only the calling thread's own buffer (no
//! lock: see [`crate::owned`]; a dump or `VMDeath` flushes it from another
//! thread), the probe table (append-only, read with one atomic load), and
//! for synchronization events one shard of the sequence counters. Everything
//! else (interning sites and fields, assigning thread ids) happens once per
//! probe, class or thread under ordinary locks.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use lockstep_instrument::{FieldRef, Probe, ProbeEvent};
use lockstep_trace::fast_hash::FastMap;
use lockstep_trace::{ChunkEncoder, Event, Field, Method, Site, ThreadId, ThreadInfo, TraceWriter};

use crate::jvmti::Jvmti;

/// Flush a thread's buffer when it holds this many encoded bytes.
pub const FLUSH_BYTES: usize = 64 * 1024;
const SEGMENT: usize = 4096;
const SEGMENTS: usize = 8192;
const SEQ_SHARDS: usize = 64;

/// Keys of `SyncRelease`/`SyncAcquire` for edges that are not volatile
/// fields (whose key is their field id): part of the trace contract.
pub use lockstep_trace::keys as key;

/// How a field probe resolved its field (once, at first execution).
#[derive(Debug, Clone, Copy)]
pub struct ResolvedField {
    pub id: u32,
    pub volatile: bool,
    /// `final`: its accesses are not recorded (they never race).
    pub is_final: bool,
    /// The declaring class's id, for static fields (class-init edges).
    pub class: Option<u32>,
}

pub struct ProbeSlot {
    pub site: u32,
    pub event: ProbeEvent,
    /// Enter/Exit: method id; ClassInit: class id.
    pub member: u32,
    pub field: OnceLock<ResolvedField>,
    /// How the objects this probe sees are identified (learned from the first).
    pub ident: OnceLock<crate::ident::SiteIdent>,
    /// Every object this probe sees is an instance of one application
    /// class (a field access on it: the verifier checked the type), so
    /// the first object's identity kind holds for all.
    pub exact_type: bool,
}

/// Append-only probe table readable without locks.
pub struct ProbeTable {
    segments: Vec<OnceLock<Box<[OnceLock<ProbeSlot>]>>>,
}

impl ProbeTable {
    fn new() -> Self {
        ProbeTable {
            segments: (0..SEGMENTS).map(|_| OnceLock::new()).collect(),
        }
    }
    pub fn get(&self, id: u32) -> Option<&ProbeSlot> {
        let id = id as usize;
        self.segments
            .get(id / SEGMENT)?
            .get()?
            .get(id % SEGMENT)?
            .get()
    }
    fn set(&self, id: u32, slot: ProbeSlot) -> bool {
        let id = id as usize;
        let Some(seg) = self.segments.get(id / SEGMENT) else {
            return false;
        };
        let seg = seg.get_or_init(|| (0..SEGMENT).map(|_| OnceLock::new()).collect());
        seg[id % SEGMENT].set(slot).is_ok()
    }
    pub fn capacity() -> u32 {
        (SEGMENT * SEGMENTS) as u32
    }
}

/// A class seen by the hook: its superclass and fields, to resolve field
/// references made through subclasses and find volatile ones.
#[derive(Default)]
pub struct ClassEntry {
    pub super_class: Option<String>,
    pub fields: Vec<FieldFlags>,
    /// The rewriter added the object-id field to this class.
    pub id_field: bool,
}

/// A field a class declares, with the flags the recorder needs.
pub struct FieldFlags {
    pub name: String,
    pub descriptor: String,
    pub is_volatile: bool,
    pub is_final: bool,
}

type SiteKey = (String, String, String, Option<u32>, Option<String>);

fn site_key(s: &Site) -> SiteKey {
    (
        s.class.clone(),
        s.method.clone(),
        s.descriptor.clone(),
        s.line,
        s.file.clone(),
    )
}

#[derive(Default)]
pub struct Tables {
    /// Site → id, keyed by (class, method, descriptor, line, file).
    pub sites: HashMap<SiteKey, u32>,
    pub fields: HashMap<(String, String, String), u32>,
    pub methods: HashMap<(String, String, String), u32>,
    /// Access flags (and `@Atomic`) of instrumented methods, written with
    /// their method record.
    pub method_flags: HashMap<(String, String, String), u32>,
    pub classes: HashMap<String, u32>,
    pub class_entries: HashMap<String, ClassEntry>,
}

/// One recording thread's buffer.
pub struct ThreadBuf {
    pub id: ThreadId,
    pub enc: ChunkEncoder,
    /// The last hand-off wrapper created by this thread (for `FutureOf`).
    pub last_wrapper: u64,
    /// Object ids reserved for this thread: `next..end`.
    pub next_obj: u64,
    pub end_obj: u64,
    /// The array each array probe saw last, with its id.
    pub arrays: crate::ident::ArrayCache,
    /// One bit per class id: this thread has acquired the class's
    /// initialization (its first read of one of the class's static fields).
    pub classes_used: Vec<u64>,
    /// The thread-safe container calls this thread is inside (callbacks
    /// from them acquire the container again).
    pub container_calls: crate::reentry::ContainerCalls,
}

impl ThreadBuf {
    /// An empty buffer of thread `id`.
    pub fn new(id: ThreadId) -> ThreadBuf {
        ThreadBuf {
            id,
            enc: ChunkEncoder::new(id),
            last_wrapper: 0,
            next_obj: 0,
            end_obj: 0,
            arrays: crate::ident::ArrayCache::default(),
            classes_used: Vec::new(),
            container_calls: Default::default(),
        }
    }
}

#[derive(Default)]
pub struct Threads {
    pub next: ThreadId,
    /// Thread object tag → thread id (assigned at `start()` or first sight).
    pub by_tag: HashMap<u64, ThreadId>,
    pub parents: HashMap<ThreadId, (Option<ThreadId>, Option<u32>)>,
    pub buffers: Vec<Arc<crate::owned::OwnedBuf>>,
}

/// Links between objects learned from calls.
#[derive(Default)]
pub struct Links {
    /// RW-lock view → (RW lock, is write view).
    pub views: HashMap<u64, (u64, bool)>,
    /// Condition → its lock.
    pub conditions: HashMap<u64, u64>,
    /// Future → hand-off wrapper.
    pub futures: HashMap<u64, u64>,
    /// Hand-off wrapper (or task object) → executor (or pool).
    pub executors: HashMap<u64, u64>,
    /// Threads registered as shutdown hooks.
    pub hooks: std::collections::HashSet<u64>,
}

pub struct Options {
    pub trace: String,
    pub timeout_secs: Option<u64>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub instrument: lockstep_instrument::Options,
    /// The accesses the static analysis proved race-free (`static=<path>`).
    pub guidance: lockstep_instrument::Guidance,
}

pub struct Recorder {
    pub jvmti: Jvmti,
    pub options: Options,
    pub writer: Mutex<Option<TraceWriter<BufWriter<File>>>>,
    pub probes: ProbeTable,
    pub tables: Mutex<Tables>,
    pub threads: Mutex<Threads>,
    pub links: Mutex<Links>,
    /// Views and iterators of thread-safe containers → their container.
    pub container_views: crate::views::ContainerViews,
    seqs: Vec<SeqShard>,
    next_obj: AtomicU64,
    /// Serialises the first id of an object (JVMTI has no compare-and-set
    /// on tags, JNI none on fields).
    tag_lock: Mutex<()>,
    pub dead: AtomicBool,
    /// The site used for events of the runtime's own task wrapper.
    pub task_site: u32,
}

pub static RECORDER: OnceLock<Recorder> = OnceLock::new();

/// One shard of the sequence counters, on its own cache line (threads
/// counting different locks do not contend for a line), hashed with the
/// integer hasher (SipHash was a tenth of the time of a lock event).
#[derive(Default)]
#[repr(align(64))]
struct SeqShard(Mutex<FastMap<(u64, u32), u64>>);

impl Recorder {
    pub fn new(jvmti: Jvmti, options: Options, writer: TraceWriter<BufWriter<File>>) -> Recorder {
        let r = Recorder {
            jvmti,
            options,
            writer: Mutex::new(Some(writer)),
            probes: ProbeTable::new(),
            tables: Mutex::new(Tables::default()),
            threads: Mutex::new(Threads::default()),
            links: Mutex::new(Links::default()),
            container_views: Default::default(),
            seqs: (0..SEQ_SHARDS).map(|_| SeqShard::default()).collect(),
            next_obj: AtomicU64::new(1),
            tag_lock: Mutex::new(()),
            dead: AtomicBool::new(false),
            task_site: 0,
        };
        let site = Site {
            class: lockstep_instrument::TASK_CLASS.to_owned(),
            method: "run".to_owned(),
            descriptor: "()V".to_owned(),
            line: None,
            file: None,
        };
        let task_site = r.site_id(&site);
        Recorder { task_site, ..r }
    }

    /// Runs `f` on the writer unless the trace is closed; I/O errors close it
    /// (the reader went away: the program keeps running unrecorded).
    pub fn write(&self, f: impl FnOnce(&mut TraceWriter<BufWriter<File>>) -> std::io::Result<()>) {
        let mut w = lock(&self.writer);
        if let Some(writer) = w.as_mut() {
            if f(writer).is_err() {
                *w = None;
            }
        }
    }

    pub fn note(&self, text: &str) {
        self.write(|w| w.note(text));
    }

    /// The next sequence number of a synchronization variable.
    pub fn next_seq(&self, obj: u64, key: u32) -> u64 {
        let shard =
            (obj.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(key)) as usize % SEQ_SHARDS;
        let mut m = lock(&self.seqs[shard].0);
        let c = m.entry((obj, key)).or_insert(0);
        let s = *c;
        *c += 1;
        s
    }

    /// A block of fresh object ids.
    pub fn reserve_objects(&self, n: u64) -> u64 {
        self.next_obj.fetch_add(n, Ordering::Relaxed)
    }

    /// Held while an object gets its first id.
    pub fn assign_lock(&self) -> std::sync::MutexGuard<'_, ()> {
        lock(&self.tag_lock)
    }

    /// The object's JVMTI tag, tagging it on first sight. `fresh` gets a new id.
    pub unsafe fn tag_id(
        &self,
        obj: jni_sys::jobject,
        fresh: &mut dyn FnMut() -> u64,
    ) -> (u64, bool) {
        if obj.is_null() {
            return (0, false);
        }
        let tag = self.jvmti.get_tag(obj);
        if tag != 0 {
            return (tag as u64, false);
        }
        let _g = lock(&self.tag_lock);
        let tag = self.jvmti.get_tag(obj);
        if tag != 0 {
            return (tag as u64, false);
        }
        let id = fresh();
        self.jvmti.set_tag(obj, id as i64);
        (id, true)
    }

    pub fn site_id(&self, site: &Site) -> u32 {
        let key = site_key(site);
        let mut t = lock(&self.tables);
        if let Some(&id) = t.sites.get(&key) {
            return id;
        }
        let id = t.sites.len() as u32;
        t.sites.insert(key, id);
        drop(t);
        self.write(|w| w.site(id, site));
        id
    }

    pub fn method_id(&self, class: &str, name: &str, desc: &str) -> u32 {
        let mut t = lock(&self.tables);
        let key = (class.to_owned(), name.to_owned(), desc.to_owned());
        if let Some(&id) = t.methods.get(&key) {
            return id;
        }
        let id = t.methods.len() as u32;
        let flags = t.method_flags.get(&key).copied();
        t.methods.insert(key, id);
        drop(t);
        let m = Method {
            class: class.to_owned(),
            name: name.to_owned(),
            descriptor: desc.to_owned(),
            flags,
        };
        self.write(|w| w.method(id, &m));
        id
    }

    pub fn class_id(&self, class: &str) -> u32 {
        let mut t = lock(&self.tables);
        if let Some(&id) = t.classes.get(class) {
            return id;
        }
        let id = t.classes.len() as u32;
        t.classes.insert(class.to_owned(), id);
        drop(t);
        let c = lockstep_trace::Class {
            name: class.to_owned(),
        };
        self.write(|w| w.class(id, &c));
        id
    }

    /// Resolves a field reference to its declaring class (walking the
    /// superclasses the hook has seen). `None` when the owner is an
    /// application class not seen yet (try again later).
    pub fn resolve_field(&self, f: &FieldRef) -> Option<ResolvedField> {
        let mut t = lock(&self.tables);
        let mut class = f.owner.clone();
        let mut found = None;
        for _ in 0..64 {
            let Some(entry) = t.class_entries.get(&class) else {
                break;
            };
            if let Some(d) = entry
                .fields
                .iter()
                .find(|d| d.name == f.name && d.descriptor == f.descriptor)
            {
                found = Some((class.clone(), d.is_volatile, d.is_final));
                break;
            }
            match &entry.super_class {
                Some(s) => class = s.clone(),
                None => break,
            }
        }
        let (declaring, volatile, is_final) = match found {
            Some(x) => x,
            None if lockstep_models::is_jdk_class(&class)
                || t.class_entries.contains_key(&f.owner) =>
            {
                (class, false, false)
            }
            None => return None,
        };
        let key = (declaring.clone(), f.name.clone(), f.descriptor.clone());
        if let Some(&id) = t.fields.get(&key) {
            drop(t);
            let class = f.is_static.then(|| self.class_id(&declaring));
            return Some(ResolvedField {
                id,
                volatile,
                is_final,
                class,
            });
        }
        let id = t.fields.len() as u32;
        t.fields.insert(key, id);
        drop(t);
        let field = Field {
            class: declaring,
            name: f.name.clone(),
            descriptor: f.descriptor.clone(),
            is_static: f.is_static,
            is_volatile: volatile,
            is_final,
        };
        self.write(|w| w.field(id, &field));
        let class = f.is_static.then(|| self.class_id(&field.class));
        Some(ResolvedField {
            id,
            volatile,
            is_final,
            class,
        })
    }

    /// Remembers the flags of one instrumented class's methods (before its
    /// probes are registered: the method records carry them).
    pub fn remember_method_flags(&self, class: &str, methods: &[lockstep_instrument::MethodDecl]) {
        let mut t = lock(&self.tables);
        for m in methods {
            let key = (class.to_owned(), m.name.clone(), m.descriptor.clone());
            t.method_flags.insert(key, m.flags);
        }
    }

    /// Registers the probes of one instrumented class (ids from `first`).
    pub fn register_probes(&self, first: u32, probes: &[Probe]) {
        for (i, p) in probes.iter().enumerate() {
            let site = self.site_id(&p.site);
            let member = match &p.event {
                ProbeEvent::MethodEnter
                | ProbeEvent::MethodExit
                | ProbeEvent::AtomicEnter
                | ProbeEvent::AtomicExit => {
                    self.method_id(&p.site.class, &p.site.method, &p.site.descriptor)
                }
                ProbeEvent::ClassInit => self.class_id(&p.site.class),
                _ => 0,
            };
            let slot = ProbeSlot {
                site,
                event: p.event.clone(),
                member,
                field: OnceLock::new(),
                ident: OnceLock::new(),
                exact_type: match &p.event {
                    ProbeEvent::FieldRead(f) | ProbeEvent::FieldWrite(f) => {
                        !lockstep_instrument::never_instrumented(&f.owner)
                    }
                    _ => false,
                },
            };
            self.probes.set(first + i as u32, slot);
        }
    }

    pub fn register_thread_info(&self, info: &ThreadInfo) {
        self.write(|w| w.thread(info));
    }

    /// Stops recording (`dead`) and writes every registered buffer's
    /// pending chunk; events after this are not recorded.
    pub fn stop_and_flush_all(&self) {
        self.dead.store(true, Ordering::SeqCst);
        let buffers: Vec<_> = lock(&self.threads).buffers.clone();
        let chunks = crate::owned::OwnedBuf::after_stop(&buffers, |b| b.enc.take_chunk());
        for c in chunks.into_iter().flatten() {
            self.write(|w| w.chunk(&c));
        }
        self.write(|w| w.flush());
    }

    /// Pushes one event to a buffer, flushing it when full.
    pub fn push(&self, buf: &mut ThreadBuf, e: &Event) {
        buf.enc.push(e);
        if buf.enc.encoded_len() >= FLUSH_BYTES {
            if let Some(c) = buf.enc.take_chunk() {
                self.write(|w| w.chunk(&c));
            }
        }
    }
}

/// Locks a mutex, ignoring poisoning (a panic elsewhere must not stop recording).
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
