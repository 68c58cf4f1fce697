//! Per-thread buffers and thread identities.
//!
//! A JVM thread gets its id the first time it is seen: at `Thread.start()`
//! in its parent (so the parent and start site are known), or else at its
//! JVMTI `ThreadStart` event or first event (threads of JDK pools, native
//! code, the main thread). The thread's buffer lives in a Rust thread-local
//! and is also registered globally so `VMDeath` and hang dumps can flush it
//! (see [`crate::owned`] for how the two sides stay apart without a lock).

use std::cell::RefCell;
use std::sync::Arc;

use jni_sys::{jclass, jobject, JNIEnv};
use lockstep_trace::{Event, ObjectInfo, ThreadId, ThreadInfo};

use crate::ident;
use crate::owned::OwnedBuf;
use crate::state::{lock, Recorder, ThreadBuf};

thread_local! {
    static LOCAL: RefCell<Option<Arc<OwnedBuf>>> = const { RefCell::new(None) };
}

const OBJECT_BLOCK: u64 = 1024;

/// A fresh object id from the thread's reserved block.
pub fn fresh_object(r: &Recorder, b: &mut ThreadBuf) -> u64 {
    if b.next_obj >= b.end_obj {
        b.next_obj = r.reserve_objects(OBJECT_BLOCK);
        b.end_obj = b.next_obj + OBJECT_BLOCK;
    }
    let id = b.next_obj;
    b.next_obj += 1;
    id
}

/// The id of `obj` (see [`crate::ident`]), assigned and described in the
/// trace on first sight.
pub unsafe fn object(r: &Recorder, env: *mut JNIEnv, b: &mut ThreadBuf, obj: jobject) -> u64 {
    let how = ident::identify(r, env, obj, None);
    object_as(r, env, b, obj, how)
}

/// [`object`] with the identity already decided (by a probe's cache).
pub unsafe fn object_as(
    r: &Recorder,
    env: *mut JNIEnv,
    b: &mut ThreadBuf,
    obj: jobject,
    how: ident::Identity,
) -> u64 {
    if obj.is_null() {
        return 0;
    }
    let (id, new) = ident::object_id(r, env, obj, how, &mut || fresh_object(r, b));
    if new && !env.is_null() {
        let class = ((**env).v1_4.GetObjectClass)(env, obj);
        let name = if class.is_null() {
            String::new()
        } else {
            r.jvmti.class_name(class)
        };
        if !class.is_null() {
            ((**env).v1_4.DeleteLocalRef)(env, class);
        }
        r.container_views.note_class(id, &name);
        // A class object (a `synchronized (C.class)` lock, say) names the
        // class it stands for: the object is itself a `jclass`.
        let represents = (name == "java/lang/Class")
            .then(|| r.jvmti.class_name(obj as jclass))
            .filter(|c| !c.is_empty());
        let info = ObjectInfo {
            id,
            class: name,
            alloc_site: None,
            represents,
        };
        r.write(|w| w.object(&info));
    }
    id
}

/// Assigns (or finds) the id of a thread object; `parent` and `site` are
/// recorded when the id is new.
pub fn thread_id_for_tag(
    r: &Recorder,
    tag: u64,
    parent: Option<ThreadId>,
    site: Option<u32>,
) -> (ThreadId, bool) {
    let mut t = lock(&r.threads);
    if let Some(&id) = t.by_tag.get(&tag) {
        return (id, false);
    }
    let id = t.next;
    t.next += 1;
    t.by_tag.insert(tag, id);
    t.parents.insert(id, (parent, site));
    (id, true)
}

/// Runs `f` with the calling thread's buffer, creating it (and the
/// thread's `ThreadBegin`) on first use. Does nothing after `VMDeath`.
pub unsafe fn with_buf<T>(
    r: &Recorder,
    env: *mut JNIEnv,
    f: impl FnOnce(&mut ThreadBuf) -> T,
) -> Option<T> {
    if r.dead.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    // Fast path: the thread's buffer, borrowed without touching its refcount.
    let mut f = Some(f);
    let found = LOCAL.with(|l| {
        let slot = l.borrow();
        let buf = slot.as_ref()?;
        let f = f.take()?;
        Some(buf.enter(&r.dead).map(|mut g| f(&mut g)))
    });
    if let Some(done) = found {
        return done;
    }
    let buf = begin_thread(r, env);
    let f = f.take()?;
    let mut g = buf.enter(&r.dead)?;
    Some(f(&mut g))
}

unsafe fn begin_thread(r: &Recorder, env: *mut JNIEnv) -> Arc<OwnedBuf> {
    let thread = r.jvmti.current_thread();
    let mut scratch = ThreadBuf::new(0);
    let tag = object(r, env, &mut scratch, thread);
    let (id, _) = thread_id_for_tag(r, tag, None, None);
    let (parent, start_site) = lock(&r.threads)
        .parents
        .get(&id)
        .copied()
        .unwrap_or((None, None));
    let name = if thread.is_null() {
        String::new()
    } else {
        r.jvmti.thread_name(thread)
    };
    r.register_thread_info(&ThreadInfo {
        id,
        name,
        parent,
        start_site,
    });
    let mut b = ThreadBuf {
        next_obj: scratch.next_obj,
        end_obj: scratch.end_obj,
        ..ThreadBuf::new(id)
    };
    b.enc.push(&Event::ThreadBegin { parent });
    crate::handoffs::thread_begins(r, &mut b, tag);
    let buf = Arc::new(OwnedBuf::new(b));
    lock(&r.threads).buffers.push(buf.clone());
    LOCAL.with(|l| *l.borrow_mut() = Some(buf.clone()));
    if !thread.is_null() && !env.is_null() {
        ((**env).v1_4.DeleteLocalRef)(env, thread);
    }
    buf
}

/// The calling thread ends: its last event, its chunk written, its buffer unregistered.
pub unsafe fn end_thread(r: &Recorder, env: *mut JNIEnv) {
    let Some(buf) = LOCAL.with(|l| l.borrow_mut().take()) else {
        // A thread that never recorded anything: nothing to close.
        return;
    };
    // After the trace ended the finisher has flushed this buffer.
    let chunk = buf.enter(&r.dead).and_then(|mut b| {
        b.arrays.clear(env);
        crate::handoffs::program_end(r, &mut b, r.task_site);
        b.enc.push(&Event::ThreadEnd);
        b.enc.take_chunk()
    });
    if let Some(c) = chunk {
        r.write(|w| w.chunk(&c));
    }
    lock(&r.threads).buffers.retain(|b| !Arc::ptr_eq(b, &buf));
}
