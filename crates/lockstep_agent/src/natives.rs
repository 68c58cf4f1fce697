//! The natives of `lockstep/rt/Rec`: one probe execution → trace events.
//!
//! Each native looks its probe up (one atomic load), turns the objects it
//! got into ids (JVMTI tags) and pushes events to the calling thread's
//! buffer. Acquire-side events are pushed after the operation (the probe
//! runs after it) and release-side events before, so the per-variable `seq`
//! order matches the order in which the operations took effect.

use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, Ordering};

use jni_sys::{jclass, jint, jmethodID, jobject, JNIEnv};
use lockstep_instrument::{CallEvent, LockSide, ProbeEvent, SyncKind};
use lockstep_trace::{Event, LockKind};

use crate::handoffs;
use crate::ident::{self, Identity};
use crate::reentry::Edge;
use crate::state::{key, lock, ProbeSlot, Recorder, ResolvedField, ThreadBuf, RECORDER};
use crate::threads::{object, object_as, thread_id_for_tag, with_buf};

/// Global refs to `java.lang.Thread` and the hand-off wrapper class, and
/// the wrapper's constructor, set at VM init.
pub static THREAD_CLASS: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
pub static TASK_CLASS: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
/// `java.util.concurrent.Executor`: an application class's `execute(Runnable)`
/// is a hand-off only on one.
pub static EXECUTOR_CLASS: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());
pub static TASK_INIT: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

fn recorder_and_probe(probe: jint) -> Option<(&'static Recorder, &'static ProbeSlot)> {
    let r = RECORDER.get()?;
    let p = r.probes.get(u32::try_from(probe).ok()?)?;
    Some((r, p))
}

fn field_of(r: &Recorder, p: &ProbeSlot) -> Option<ResolvedField> {
    if let Some(f) = p.field.get() {
        return Some(*f);
    }
    let f = match &p.event {
        ProbeEvent::FieldRead(f) | ProbeEvent::FieldWrite(f) => r.resolve_field(f)?,
        _ => return None,
    };
    Some(*p.field.get_or_init(|| f))
}

fn sync_key(k: SyncKind) -> u32 {
    match k {
        SyncKind::Latch => key::LATCH,
        SyncKind::Barrier => key::BARRIER,
        SyncKind::Semaphore => key::SEMAPHORE,
        SyncKind::Queue => key::QUEUE,
        SyncKind::Exchange => key::EXCHANGE,
        SyncKind::Phaser => key::PHASER,
        SyncKind::Future => key::TASK_END,
        SyncKind::Executor => key::EXECUTOR,
        SyncKind::Atomic => key::ATOMIC,
        SyncKind::TaskStart => key::TASK_START,
    }
}

pub(crate) fn release(r: &Recorder, b: &mut ThreadBuf, obj: u64, key: u32, site: u32) {
    let seq = r.next_seq(obj, key);
    r.push(
        b,
        &Event::SyncRelease {
            obj,
            key,
            seq,
            site,
        },
    );
}

pub(crate) fn acquire(r: &Recorder, b: &mut ThreadBuf, obj: u64, key: u32, site: u32) {
    let seq = r.next_seq(obj, key);
    r.push(
        b,
        &Event::SyncAcquire {
            obj,
            key,
            seq,
            site,
        },
    );
}

pub(crate) fn lock_event(
    r: &Recorder,
    b: &mut ThreadBuf,
    lock_id: u64,
    kind: LockKind,
    site: u32,
    acq: bool,
) {
    let seq = r.next_seq(lock_id, u32::MAX);
    let e = if acq {
        Event::Acquire {
            lock: lock_id,
            seq,
            kind,
            site,
        }
    } else {
        Event::Release {
            lock: lock_id,
            seq,
            kind,
            site,
        }
    };
    r.push(b, &e);
}

/// The lock and kind a `java.util.concurrent.locks` call on `obj` means:
/// a read/write view is reported as its read-write lock.
fn juc_lock(r: &Recorder, obj: u64, side: LockSide) -> (u64, LockKind) {
    if let Some(&(rw, write)) = lock(&r.links).views.get(&obj) {
        return (
            rw,
            if write {
                LockKind::Write
            } else {
                LockKind::Read
            },
        );
    }
    let kind = match side {
        LockSide::Exclusive => LockKind::Exclusive,
        LockSide::Read => LockKind::Read,
        LockSide::Write => LockKind::Write,
    };
    (obj, kind)
}

/// `e(int probe)`: method entry/exit, static field accesses, class init.
pub unsafe extern "system" fn e(env: *mut JNIEnv, _c: jclass, probe: jint) {
    let Some((r, p)) = recorder_and_probe(probe) else {
        return;
    };
    with_buf(r, env, |b| match &p.event {
        ProbeEvent::MethodEnter => {
            r.push(b, &Event::Enter { method: p.member });
            if let Some(edge) = b.container_calls.enter() {
                callback_edge(r, b, edge, p.site);
            }
        }
        ProbeEvent::MethodExit => {
            if let Some(edge) = b.container_calls.exit() {
                callback_edge(r, b, edge, p.site);
            }
            r.push(b, &Event::Exit { method: p.member });
        }
        // A method proven atomic: no transaction boundary, unless a
        // container calls it back (the atomicity log tells the callback's
        // acquire by the `Enter` right before it).
        ProbeEvent::AtomicEnter => {
            if let Some(edge) = b.container_calls.enter() {
                r.push(b, &Event::Enter { method: p.member });
                callback_edge(r, b, edge, p.site);
            }
        }
        ProbeEvent::AtomicExit => {
            let (callback, edge) = b.container_calls.exit_of_callback();
            if let Some(edge) = edge {
                callback_edge(r, b, edge, p.site);
            }
            if callback {
                r.push(b, &Event::Exit { method: p.member });
            }
        }
        ProbeEvent::ClassInit => {
            r.push(b, &Event::ClassInit { class: p.member });
            let class = key::class_object(p.member);
            release(r, b, class, key::CLASS_INIT, p.site);
        }
        ProbeEvent::FieldRead(_) | ProbeEvent::FieldWrite(_) => field_access(r, b, p, 0),
        _ => {}
    });
}

/// The acquire (release) of a container by a method it calls back, inside
/// the callback's enter (exit) so the atomicity log sees it as the
/// callback's, not as the container call's own.
fn callback_edge(r: &Recorder, b: &mut ThreadBuf, edge: Edge, site: u32) {
    match edge {
        Edge::Acquire(c) => acquire(r, b, c, key::COLLECTION, site),
        Edge::Release(c) => release(r, b, c, key::COLLECTION, site),
    }
}

/// A call on a container that may be thread-safe begins: the pre-call
/// acquire (and release of a write), and, when the container is
/// thread-safe, the thread is noted inside it ([`crate::reentry`]).
fn container_call(
    r: &Recorder,
    b: &mut ThreadBuf,
    id: u64,
    write: bool,
    known_safe: bool,
    site: u32,
) {
    let root = r.container_views.root(id);
    acquire(r, b, root, key::COLLECTION, site);
    if write {
        release(r, b, root, key::COLLECTION, site);
    }
    if known_safe || r.container_views.is_thread_safe(root) {
        b.container_calls.call(root, write);
    }
}

/// The id of an array (arrays never carry the id field: their JVMTI tag),
/// through the thread's cache of the array each probe saw last.
unsafe fn array_id(
    r: &Recorder,
    env: *mut JNIEnv,
    b: &mut ThreadBuf,
    probe: jint,
    array: jobject,
) -> u64 {
    if let Some(id) = b.arrays.get(env, probe, array) {
        return id;
    }
    let id = object_as(r, env, b, array, Identity::Tag);
    b.arrays.put(env, probe, array, id);
    id
}

/// The id of the object a probe got, through the probe's identity cache
/// (a field access on an application class sees only instances of that
/// class, the verifier checked it, so the first object's answer holds).
unsafe fn probed_object(
    r: &Recorder,
    env: *mut JNIEnv,
    b: &mut ThreadBuf,
    p: &ProbeSlot,
    obj: jobject,
) -> u64 {
    let how = ident::identify(r, env, obj, Some((&p.ident, p.exact_type)));
    object_as(r, env, b, obj, how)
}

fn field_access(r: &Recorder, b: &mut ThreadBuf, p: &ProbeSlot, obj: u64) {
    let Some(f) = field_of(r, p) else { return };
    let write = matches!(p.event, ProbeEvent::FieldWrite(_));
    if let Some(class) = f.class {
        class_used(r, b, class, write, p.site);
    }
    if f.is_final {
        // Never races (the JMM's final-field guarantee); a `static final`
        // read still acquired the class's initialization above.
        return;
    }
    match (f.volatile, write) {
        (true, true) => release(r, b, obj, f.id, p.site),
        (true, false) => acquire(r, b, obj, f.id, p.site),
        (false, true) => r.push(
            b,
            &Event::Write {
                obj,
                field: f.id,
                site: p.site,
            },
        ),
        (false, false) => r.push(
            b,
            &Event::Read {
                obj,
                field: f.id,
                site: p.site,
            },
        ),
    }
}

/// A static field of `class` is accessed: the thread's first read of one
/// acquires the class's initialization (the JVM ran `<clinit>` before it,
/// and its probe released). A write probe runs before `putstatic` may
/// trigger the initialization, so writes acquire without marking the class
/// as used: a later read acquires again.
fn class_used(r: &Recorder, b: &mut ThreadBuf, class: u32, write: bool, site: u32) {
    let (word, bit) = ((class / 64) as usize, 1u64 << (class % 64));
    if b.classes_used.get(word).is_some_and(|w| w & bit != 0) {
        return;
    }
    acquire(r, b, key::class_object(class), key::CLASS_INIT, site);
    if !write {
        if b.classes_used.len() <= word {
            b.classes_used.resize(word + 1, 0);
        }
        b.classes_used[word] |= bit;
    }
}

/// `o(Object, int probe)`: instance fields, monitors, call events on a receiver.
pub unsafe extern "system" fn o(env: *mut JNIEnv, _c: jclass, obj: jobject, probe: jint) {
    let Some((r, p)) = recorder_and_probe(probe) else {
        return;
    };
    if obj.is_null() && !matches!(p.event, ProbeEvent::Call { .. }) {
        return;
    }
    if let ProbeEvent::Call {
        event: CallEvent::ViewStep,
        ..
    } = p.event
    {
        view_step(r, env, obj, p.site);
        return;
    }
    if let ProbeEvent::Call {
        event: CallEvent::CompleteChain,
        ..
    } = p.event
    {
        handoffs::complete_chain(r, env, obj, p.site);
        return;
    }
    with_buf(r, env, |b| {
        let id = probed_object(r, env, b, p, obj);
        let site = p.site;
        match &p.event {
            ProbeEvent::FieldRead(_) | ProbeEvent::FieldWrite(_) => field_access(r, b, p, id),
            ProbeEvent::MonitorEnter => lock_event(r, b, id, LockKind::Monitor, site, true),
            ProbeEvent::MonitorExit => lock_event(r, b, id, LockKind::Monitor, site, false),
            ProbeEvent::TaskBegin => handoffs::task_body(r, b, id, true, site),
            ProbeEvent::TaskEnd => handoffs::task_body(r, b, id, false, site),
            ProbeEvent::Call { event, .. } => call_event(r, env, b, obj, id, *event, site),
            _ => {}
        }
    });
}

unsafe fn call_event(
    r: &Recorder,
    env: *mut JNIEnv,
    b: &mut ThreadBuf,
    obj: jobject,
    id: u64,
    ev: CallEvent,
    site: u32,
) {
    if id == 0 {
        return;
    }
    match ev {
        CallEvent::ThreadStart => {
            let tc = THREAD_CLASS.load(Ordering::Acquire);
            if tc.is_null() || !((**env).v1_4.IsInstanceOf)(env, obj, tc as jclass) {
                return;
            }
            let (child, _) = thread_id_for_tag(r, id, Some(b.id), Some(site));
            r.push(b, &Event::ThreadStart { child, site });
        }
        CallEvent::ThreadJoin => {
            let tc = THREAD_CLASS.load(Ordering::Acquire);
            if tc.is_null() || !((**env).v1_4.IsInstanceOf)(env, obj, tc as jclass) {
                return;
            }
            if r.jvmti.thread_state(obj) & crate::jvmti::THREAD_STATE_TERMINATED != 0 {
                let (child, _) = thread_id_for_tag(r, id, None, None);
                r.push(b, &Event::ThreadJoin { child, site });
            }
        }
        CallEvent::Lock(side) => {
            let (l, k) = juc_lock(r, id, side);
            lock_event(r, b, l, k, site, true);
        }
        CallEvent::Unlock(side) => {
            let (l, k) = juc_lock(r, id, side);
            lock_event(r, b, l, k, site, false);
        }
        CallEvent::WaitPre => {
            r.push(b, &Event::Wait { lock: id, site });
            lock_event(r, b, id, LockKind::Monitor, site, false);
        }
        CallEvent::WaitPost => lock_event(r, b, id, LockKind::Monitor, site, true),
        CallEvent::Notify { all } | CallEvent::Signal { all } => {
            let l = lock(&r.links).conditions.get(&id).copied().unwrap_or(id);
            r.push(b, &Event::Notify { lock: l, all, site });
        }
        CallEvent::AwaitPre => {
            let l = lock(&r.links).conditions.get(&id).copied().unwrap_or(id);
            let (l, k) = juc_lock(r, l, LockSide::Exclusive);
            r.push(b, &Event::Wait { lock: l, site });
            lock_event(r, b, l, k, site, false);
        }
        CallEvent::AwaitPost => {
            let l = lock(&r.links).conditions.get(&id).copied().unwrap_or(id);
            let (l, k) = juc_lock(r, l, LockSide::Exclusive);
            lock_event(r, b, l, k, site, true);
        }
        CallEvent::ContainerCall { write, known_safe } => {
            container_call(r, b, id, write, known_safe, site)
        }
        CallEvent::ContainerReturn => {
            b.container_calls.returned();
            acquire(r, b, r.container_views.root(id), key::COLLECTION, site)
        }
        CallEvent::Release(k) => release(r, b, id, sync_key(k), site),
        CallEvent::Acquire(SyncKind::Future) => {
            // A future of a wrapped task, or a task object (`ForkJoinTask`)
            // whose body released its end on itself.
            let task = lock(&r.links).futures.get(&id).copied().unwrap_or(id);
            acquire(r, b, task, key::TASK_END, site);
        }
        CallEvent::Acquire(k) => acquire(r, b, id, sync_key(k), site),
        CallEvent::ContainerRead => {
            let obj = r.container_views.root(id);
            r.push(b, &Event::ContainerRead { obj, site })
        }
        CallEvent::ContainerWrite => {
            let obj = r.container_views.root(id);
            r.push(b, &Event::ContainerWrite { obj, site })
        }
        _ => {}
    }
}

/// An iterator step on `obj`: when it iterates a thread-safe container,
/// acquire the container. Objects never identified (tag 0: every iterator
/// of a plain collection) cannot be mapped views, so they cost one tag
/// look-up and no id or event.
unsafe fn view_step(r: &Recorder, env: *mut JNIEnv, obj: jobject, site: u32) {
    if obj.is_null() || !r.container_views.may_have_views() {
        return;
    }
    let tag = r.jvmti.get_tag(obj);
    if tag == 0 {
        return;
    }
    let Some(root) = r.container_views.root_of_view(tag as u64) else {
        return;
    };
    with_buf(r, env, |b| acquire(r, b, root, key::COLLECTION, site));
}

/// `result` is a view of (or an iterator over) `recv`: map it to the
/// container when that is thread-safe. The result gets an id only then.
unsafe fn container_view(
    r: &Recorder,
    env: *mut JNIEnv,
    b: &mut ThreadBuf,
    recv: jobject,
    res: jobject,
    known_safe: bool,
) {
    let recv_id = object(r, env, b, recv);
    if recv_id == 0 {
        return;
    }
    if let Some(root) = r.container_views.container_for(recv_id, known_safe) {
        let res_id = object(r, env, b, res);
        r.container_views.map(res_id, root);
    }
}

/// `oi(Object, int, int probe)`: array accesses (array, index) and int results.
pub unsafe extern "system" fn oi(env: *mut JNIEnv, _c: jclass, obj: jobject, v: jint, probe: jint) {
    let Some((r, p)) = recorder_and_probe(probe) else {
        return;
    };
    if let ProbeEvent::Call {
        event: CallEvent::ProgramExit,
        ..
    } = p.event
    {
        with_buf(r, env, |b| handoffs::program_end(r, b, p.site));
        return;
    }
    if obj.is_null() {
        return;
    }
    with_buf(r, env, |b| {
        let id = match &p.event {
            ProbeEvent::ArrayRead | ProbeEvent::ArrayWrite => array_id(r, env, b, probe, obj),
            _ => probed_object(r, env, b, p, obj),
        };
        let site = p.site;
        match &p.event {
            ProbeEvent::ArrayRead => r.push(
                b,
                &Event::ArrayRead {
                    array: id,
                    index: v as u32,
                    site,
                },
            ),
            ProbeEvent::ArrayWrite => r.push(
                b,
                &Event::ArrayWrite {
                    array: id,
                    index: v as u32,
                    site,
                },
            ),
            ProbeEvent::Call {
                event: CallEvent::TryLock(side),
                ..
            } if v != 0 => {
                let (l, k) = juc_lock(r, id, *side);
                lock_event(r, b, l, k, site, true);
            }
            ProbeEvent::Call {
                event: CallEvent::AcquireIfTrue(k),
                ..
            } if v != 0 => acquire(r, b, id, sync_key(*k), site),
            ProbeEvent::Call { event, .. } => {
                handoffs::int_event(r, b, id, v, *event, site);
            }
            _ => {}
        }
    });
}

/// `oo(Object receiver, Object result, int probe)`: calls whose result matters.
pub unsafe extern "system" fn oo(
    env: *mut JNIEnv,
    _c: jclass,
    recv: jobject,
    res: jobject,
    probe: jint,
) {
    let Some((r, p)) = recorder_and_probe(probe) else {
        return;
    };
    if res.is_null() {
        return;
    }
    let ProbeEvent::Call { event, .. } = &p.event else {
        return;
    };
    if *event == CallEvent::Cloned {
        if !((**env).v1_4.IsSameObject)(env, recv, res) {
            ident::forget_copied_id(r, env, res);
        }
        return;
    }
    if let CallEvent::ContainerView { known_safe } = *event {
        with_buf(r, env, |b| container_view(r, env, b, recv, res, known_safe));
        return;
    }
    if handoffs::object_arg_event(r, env, recv, res, *event, p.site) {
        return;
    }
    with_buf(r, env, |b| {
        let recv_id = object(r, env, b, recv);
        let res_id = object(r, env, b, res);
        let mut links = lock(&r.links);
        match event {
            CallEvent::ReadView => {
                links.views.insert(res_id, (recv_id, false));
            }
            CallEvent::WriteView => {
                links.views.insert(res_id, (recv_id, true));
            }
            CallEvent::NewCondition => {
                let (l, _) = links
                    .views
                    .get(&recv_id)
                    .copied()
                    .unwrap_or((recv_id, true));
                links.conditions.insert(res_id, l);
            }
            CallEvent::FutureOf if b.last_wrapper != 0 => {
                links.futures.insert(res_id, b.last_wrapper);
                b.last_wrapper = 0;
            }
            _ => {}
        }
    });
}

/// `w(Object receiver, Object task, int probe) -> Object`: wraps a task
/// handed to an executor so its start and end are recorded.
pub unsafe extern "system" fn w(
    env: *mut JNIEnv,
    _c: jclass,
    recv: jobject,
    task: jobject,
    probe: jint,
) -> jobject {
    let Some((r, p)) = recorder_and_probe(probe) else {
        return task;
    };
    if task.is_null() {
        return task;
    }
    if !is_executor_call(env, p, recv) {
        // Not a hand-off: its result must not be taken for a task's future.
        with_buf(r, env, |b| b.last_wrapper = 0);
        return task;
    }
    if let ProbeEvent::Call {
        event: CallEvent::WrapTasks,
        ..
    } = p.event
    {
        return handoffs::wrap_all(r, env, recv, task, p.site);
    }
    let wrapper = new_wrapper(env, task);
    if wrapper.is_null() {
        return task;
    }
    with_buf(r, env, |b| {
        b.last_wrapper = hand_off_wrapper(r, env, b, recv, wrapper, p.site);
    });
    wrapper
}

/// A new hand-off wrapper of `task`, or null (no exception left pending).
pub(crate) unsafe fn new_wrapper(env: *mut JNIEnv, task: jobject) -> jobject {
    let class = TASK_CLASS.load(Ordering::Acquire);
    let init = TASK_INIT.load(Ordering::Acquire);
    if class.is_null() || init.is_null() {
        return std::ptr::null_mut();
    }
    let wrapper = ((**env).v1_4.NewObject)(env, class as jclass, init as jmethodID, task);
    if wrapper.is_null() {
        ((**env).v1_4.ExceptionClear)(env);
    }
    wrapper
}

/// Is the wrapped call a hand-off? Calls on JDK types are (the rewriter
/// matched them by type); a call on an application class only when the
/// receiver is a `java.util.concurrent.Executor`.
unsafe fn is_executor_call(env: *mut JNIEnv, p: &ProbeSlot, recv: jobject) -> bool {
    let ProbeEvent::Call { owner, .. } = &p.event else {
        return false;
    };
    if lockstep_models::is_jdk_class(owner) {
        return true;
    }
    let exec = EXECUTOR_CLASS.load(Ordering::Acquire);
    !recv.is_null() && !exec.is_null() && ((**env).v1_4.IsInstanceOf)(env, recv, exec as jclass)
}

/// A wrapper handed to executor `recv` (may be null): linked to it, its
/// start released. Returns the wrapper's id.
pub(crate) unsafe fn hand_off_wrapper(
    r: &Recorder,
    env: *mut JNIEnv,
    b: &mut ThreadBuf,
    recv: jobject,
    wrapper: jobject,
    site: u32,
) -> u64 {
    let wid = object(r, env, b, wrapper);
    if !recv.is_null() {
        let exec = object(r, env, b, recv);
        lock(&r.links).executors.insert(wid, exec);
    }
    release(r, b, wid, key::TASK_START, site);
    wid
}

/// `t(Object wrapper, int phase)`: the wrapped task begins (0) or ends (1).
pub unsafe extern "system" fn t(env: *mut JNIEnv, _c: jclass, wrapper: jobject, phase: jint) {
    let Some(r) = RECORDER.get() else { return };
    with_buf(r, env, |b| {
        let wid = object(r, env, b, wrapper);
        let site = r.task_site;
        if phase == 0 {
            acquire(r, b, wid, key::TASK_START, site);
        } else {
            release(r, b, wid, key::TASK_END, site);
            let exec = lock(&r.links).executors.get(&wid).copied();
            if let Some(e) = exec {
                release(r, b, e, key::EXECUTOR, site);
            }
        }
    });
}
