//! Object identity: the injected id field where an object has one, JVMTI
//! tags for the rest.
//!
//! The rewriter adds `long lockstep$id` ([`lockstep_instrument::ID_FIELD`])
//! to the topmost application class of each hierarchy, so an object has at
//! most one such field and whether it has one depends only on its class.
//! Reading it is a JNI `GetLongField` (HotSpot serves it from a fast
//! accessor without a state transition), where a JVMTI `GetTag` takes the
//! tag map's global mutex: that mutex was about a third of the recording
//! time. JDK objects (arrays, collections, locks, threads of JDK classes)
//! keep their JVMTI tag. Both kinds of id come from the same counter, so
//! ids stay unique per object; `identityHashCode` is never used.
//!
//! Which of the two an object uses is decided per class, the same way at
//! every probe, so one object never gets two ids. A probe caches the answer
//! for the first class it saw ([`SiteIdent`]) and checks later objects
//! against it with one JNI call (or none, when the verifier already
//! guarantees the object's type: field accesses on an application class).

use std::ffi::CString;

use jni_sys::{jclass, jfieldID, jobject, JNIEnv};

use crate::state::{lock, Recorder};

/// A JNI global reference to a class and the id field it declares.
#[derive(Clone, Copy)]
pub struct IdField {
    /// The topmost application class: a local reference from a resolution,
    /// a global one when a probe caches it (kept for the recorder's
    /// lifetime: it pins that class's loader).
    root: jclass,
    field: jfieldID,
}

// Global references and field ids are valid in every thread.
unsafe impl Send for IdField {}
unsafe impl Sync for IdField {}

/// What a probe learned about the objects it sees.
#[derive(Clone, Copy)]
pub enum SiteIdent {
    /// The first object carried the id field. `exact`: every object at
    /// this probe is an instance of `root` (no check needed).
    Field { id: IdField, exact: bool },
    /// The first object had no id field; `class` is its class (global
    /// reference), `exact`: no object at this probe can have one.
    Tag { class: jclass, exact: bool },
}

unsafe impl Send for SiteIdent {}
unsafe impl Sync for SiteIdent {}

/// How one object is identified.
#[derive(Clone, Copy)]
pub enum Identity {
    Field(jfieldID),
    Tag,
    /// A tagged object keeps its tag (objects with the id field are never
    /// tagged); an untagged one of another class than `class` is resolved.
    TagUnlessNew {
        class: jclass,
    },
}

/// The object's identity, through the probe's cache when it has one.
/// `exact`: the probe's static type makes the first answer hold for all.
pub unsafe fn identify(
    r: &Recorder,
    env: *mut JNIEnv,
    obj: jobject,
    site: Option<(&std::sync::OnceLock<SiteIdent>, bool)>,
) -> Identity {
    let Some((cache, exact)) = site else {
        return resolved(r, env, obj);
    };
    match cache.get() {
        Some(SiteIdent::Field { id, exact: true }) => Identity::Field(id.field),
        Some(SiteIdent::Field { id, .. }) if ((**env).v1_4.IsInstanceOf)(env, obj, id.root) => {
            Identity::Field(id.field)
        }
        Some(SiteIdent::Field { .. }) => resolved(r, env, obj),
        Some(SiteIdent::Tag { exact: true, .. }) => Identity::Tag,
        Some(SiteIdent::Tag { class, .. }) => Identity::TagUnlessNew { class: *class },
        None => {
            let found = resolve(r, env, obj);
            let learned = match found {
                Some(id) => globalize(env, id.root).map(|root| SiteIdent::Field {
                    id: IdField { root, ..id },
                    exact,
                }),
                None => class_ref(env, obj).map(|class| SiteIdent::Tag { class, exact }),
            };
            if let Some(l) = learned {
                if cache.set(l).is_err() {
                    // Another thread was first; this global reference is spare.
                    release(env, l);
                }
            }
            finish_resolved(env, found)
        }
    }
}

/// The identity of `obj` without a cache (rare events, first sights).
unsafe fn resolved(r: &Recorder, env: *mut JNIEnv, obj: jobject) -> Identity {
    let found = resolve(r, env, obj);
    finish_resolved(env, found)
}

/// `obj` was just made by `Object.clone`, which copied the object-id field
/// of the original: clear it, so the copy gets an id of its own at its
/// first probe (a shared id made the copy's private writes look like
/// writes of the published original: h2's copy-on-write B-tree pages).
/// Tags are not copied by `clone`, so tagged objects need nothing.
pub unsafe fn forget_copied_id(r: &Recorder, env: *mut JNIEnv, obj: jobject) {
    if let Identity::Field(field) = resolved(r, env, obj) {
        ((**env).v1_4.SetLongField)(env, obj, field, 0);
    }
}

/// The identity a resolution gave; its local class reference is dropped.
unsafe fn finish_resolved(env: *mut JNIEnv, found: Option<IdField>) -> Identity {
    match found {
        Some(f) => {
            ((**env).v1_4.DeleteLocalRef)(env, f.root);
            Identity::Field(f.field)
        }
        None => Identity::Tag,
    }
}

unsafe fn globalize(env: *mut JNIEnv, local: jclass) -> Option<jclass> {
    let g = ((**env).v1_4.NewGlobalRef)(env, local);
    (!g.is_null()).then_some(g)
}

unsafe fn release(env: *mut JNIEnv, l: SiteIdent) {
    let class = match l {
        SiteIdent::Field { id, .. } => id.root,
        SiteIdent::Tag { class, .. } => class,
    };
    ((**env).v1_4.DeleteGlobalRef)(env, class);
}

unsafe fn same_class(env: *mut JNIEnv, obj: jobject, class: jclass) -> bool {
    let c = ((**env).v1_4.GetObjectClass)(env, obj);
    let same = !c.is_null() && ((**env).v1_4.IsSameObject)(env, c, class);
    ((**env).v1_4.DeleteLocalRef)(env, c);
    same
}

unsafe fn class_ref(env: *mut JNIEnv, obj: jobject) -> Option<jclass> {
    let c = ((**env).v1_4.GetObjectClass)(env, obj);
    if c.is_null() {
        return None;
    }
    let g = ((**env).v1_4.NewGlobalRef)(env, c);
    ((**env).v1_4.DeleteLocalRef)(env, c);
    (!g.is_null()).then_some(g)
}

/// The id field of `obj`'s class and the class declaring it (a local
/// reference), if any: the class chain the hook recorded says how many
/// superclass steps up the field's declaring class is.
unsafe fn resolve(r: &Recorder, env: *mut JNIEnv, obj: jobject) -> Option<IdField> {
    if env.is_null() || obj.is_null() {
        return None;
    }
    let class = ((**env).v1_4.GetObjectClass)(env, obj);
    if class.is_null() {
        return None;
    }
    let name = r.jvmti.class_name(class);
    let found = match root_depth(r, &name) {
        Depth::Steps(n) => root_at(env, class, n).and_then(|root| field_in(env, root)),
        Depth::Unknown => field_in(env, class).map(|f| IdField { root: class, ..f }),
        Depth::None => None,
    };
    if found.is_none_or(|f| f.root != class) {
        ((**env).v1_4.DeleteLocalRef)(env, class);
    }
    found
}

enum Depth {
    /// The field's declaring class is this many superclass steps up.
    Steps(usize),
    /// No class of the chain declares it.
    None,
    /// The chain is not fully known (a class the hook never saw, e.g. a
    /// hidden class): ask JNI.
    Unknown,
}

fn root_depth(r: &Recorder, class: &str) -> Depth {
    if class.starts_with('[') || lockstep_instrument::never_instrumented(class) {
        return Depth::None;
    }
    let t = lock(&r.tables);
    let mut name = class;
    for steps in 0..256 {
        let Some(entry) = t.class_entries.get(name) else {
            return Depth::Unknown;
        };
        if entry.id_field {
            return Depth::Steps(steps);
        }
        match entry.super_class.as_deref() {
            Some(s) if !lockstep_instrument::never_instrumented(s) => name = s,
            _ => return Depth::None,
        }
    }
    Depth::Unknown
}

/// The class `steps` superclasses above `class` (a local reference).
unsafe fn root_at(env: *mut JNIEnv, class: jclass, steps: usize) -> Option<jclass> {
    let mut c = class;
    for _ in 0..steps {
        let up = ((**env).v1_4.GetSuperclass)(env, c);
        if c != class {
            ((**env).v1_4.DeleteLocalRef)(env, c);
        }
        if up.is_null() {
            return None;
        }
        c = up;
    }
    Some(c)
}

/// The id field as seen from `class` (declared there or inherited); a
/// missing field is not an error (the pending exception is cleared).
unsafe fn field_in(env: *mut JNIEnv, class: jclass) -> Option<IdField> {
    let name = CString::new(lockstep_instrument::ID_FIELD).ok()?;
    let field = ((**env).v1_4.GetFieldID)(env, class, name.as_ptr(), c"J".as_ptr());
    if ((**env).v1_4.ExceptionCheck)(env) {
        ((**env).v1_4.ExceptionClear)(env);
        return None;
    }
    (!field.is_null()).then_some(IdField { root: class, field })
}

/// The id of `obj` by its identity; `fresh` makes a new id (the object is
/// then described in the trace by the caller). Returns `(id, new)`.
pub unsafe fn object_id(
    r: &Recorder,
    env: *mut JNIEnv,
    obj: jobject,
    how: Identity,
    fresh: &mut dyn FnMut() -> u64,
) -> (u64, bool) {
    match how {
        Identity::Field(field) => {
            let get = (**env).v1_4.GetLongField;
            let v = get(env, obj, field);
            if v != 0 {
                return (v as u64, false);
            }
            // Serialise first assignments: two threads seeing 0 at once
            // must agree on one id.
            let _g = r.assign_lock();
            let v = get(env, obj, field);
            if v != 0 {
                return (v as u64, false);
            }
            let id = fresh();
            ((**env).v1_4.SetLongField)(env, obj, field, id as i64);
            (id, true)
        }
        Identity::Tag => r.tag_id(obj, fresh),
        Identity::TagUnlessNew { class } => {
            let tag = r.jvmti.get_tag(obj);
            if tag != 0 {
                return (tag as u64, false);
            }
            let how = if same_class(env, obj, class) {
                Identity::Tag
            } else {
                resolved(r, env, obj)
            };
            object_id(r, env, obj, how, fresh)
        }
    }
}

/// Slots of a thread's [`ArrayCache`] (a power of two).
const ARRAY_SLOTS: usize = 64;
/// After this many misses in a row a slot stops following its probe's
/// arrays (each refresh costs two JNI reference operations) ...
const MISS_LIMIT: u32 = 4;
/// ... except on every this-many-th miss, to notice a probe that settles.
const RETRY_EVERY: u32 = 64;

#[derive(Clone, Copy)]
struct ArraySlot {
    probe: i32,
    /// A weak global reference to the array this probe saw last.
    array: jobject,
    id: u64,
    misses: u32,
}

/// The array each array probe saw last in this thread, with its id: a loop
/// reading one array asks JNI "same object?" (no lock) instead of looking
/// the JVMTI tag up (the tag map's global mutex) on every element.
pub struct ArrayCache {
    slots: Box<[ArraySlot; ARRAY_SLOTS]>,
}

// Weak global references are valid in every thread; the cache is used by
// its own thread only.
unsafe impl Send for ArrayCache {}

impl Default for ArrayCache {
    fn default() -> Self {
        let empty = ArraySlot {
            probe: -1,
            array: std::ptr::null_mut(),
            id: 0,
            misses: 0,
        };
        ArrayCache {
            slots: Box::new([empty; ARRAY_SLOTS]),
        }
    }
}

impl ArrayCache {
    /// The id `probe` cached for `array`, if it is the array it saw last.
    pub unsafe fn get(&mut self, env: *mut JNIEnv, probe: i32, array: jobject) -> Option<u64> {
        let s = &mut self.slots[probe as usize % ARRAY_SLOTS];
        if s.probe == probe
            && !s.array.is_null()
            && ((**env).v1_4.IsSameObject)(env, array, s.array)
        {
            s.misses = 0;
            return Some(s.id);
        }
        None
    }

    /// Remembers `array` (id `id`) as what `probe` saw last, unless the
    /// probe keeps seeing different arrays.
    pub unsafe fn put(&mut self, env: *mut JNIEnv, probe: i32, array: jobject, id: u64) {
        let s = &mut self.slots[probe as usize % ARRAY_SLOTS];
        if s.probe == probe {
            s.misses = s.misses.saturating_add(1);
            if s.misses > MISS_LIMIT && !s.misses.is_multiple_of(RETRY_EVERY) {
                return;
            }
        } else {
            s.misses = 0;
        }
        let weak = ((**env).v1_4.NewWeakGlobalRef)(env, array);
        if weak.is_null() {
            return;
        }
        if !s.array.is_null() {
            ((**env).v1_4.DeleteWeakGlobalRef)(env, s.array);
        }
        *s = ArraySlot {
            probe,
            array: weak,
            id,
            misses: s.misses,
        };
    }

    /// Drops every weak reference (the thread ends).
    pub unsafe fn clear(&mut self, env: *mut JNIEnv) {
        for s in self.slots.iter_mut() {
            if !s.array.is_null() && !env.is_null() {
                ((**env).v1_4.DeleteWeakGlobalRef)(env, s.array);
            }
            s.array = std::ptr::null_mut();
            s.probe = -1;
        }
    }
}
