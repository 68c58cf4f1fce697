//! Hand-offs keyed on the task object itself, `StampedLock` stamps and
//! shutdown hooks (the probes planned by `lockstep_instrument`'s
//! `handoffs`):
//!
//! - a `TimerTask` or `ForkJoinTask` handed over releases `TASK_START` on
//!   the task; its body (`run`, `compute`, `exec`, probed in its class)
//!   acquires it at entry and releases `TASK_END` (and its pool's
//!   `EXECUTOR`) at exit; `join`/`invoke`/`invokeAll` acquire `TASK_END`.
//!   Arrays and collections of tasks are listed through JNI *before* the
//!   thread's buffer is entered (`toArray()` may run probed code);
//!   `tryComplete` and its kin release the end of the task and of each
//!   `CountedCompleter` up its chain of completers (`getCompleter()`);
//! - `ExecutorService.invokeAll`/`invokeAny` get a new list of hand-off
//!   wrappers in place of their collection of tasks;
//! - a `StampedLock` stamp's low bits say its mode; an optimistic read
//!   section (`tryOptimisticRead` … `validate`) is recorded as holding the
//!   read side: a validated section saw no write, so its reads are ordered
//!   after the last write unlock and before the next write lock;
//! - a shutdown hook thread begins after its registration and after every
//!   thread end and `exit` call recorded so far ([`key::PROGRAM_END`]).

use std::ffi::CString;
use std::sync::OnceLock;

use jni_sys::{jclass, jmethodID, jobject, jobjectArray, jvalue, JNIEnv};
use lockstep_instrument::{CallEvent, StampTarget, TaskArg, CONVERTED};
use lockstep_models::recorder::{
    stamp_mode, StampMode, COLLECTION_INTERFACE, COUNTED_COMPLETER_CLASS, GET_COMPLETER_METHOD,
};
use lockstep_trace::LockKind;

use crate::natives::{acquire, lock_event, release};
use crate::state::{key, lock, Recorder, ThreadBuf};
use crate::threads::{object, with_buf};

/// A JDK method resolved on first use (bootstrap classes: ids stay valid).
struct JdkMethod {
    class: &'static str,
    name: &'static str,
    desc: &'static str,
    id: OnceLock<usize>,
}

impl JdkMethod {
    const fn new(class: &'static str, name: &'static str, desc: &'static str) -> JdkMethod {
        JdkMethod {
            class,
            name,
            desc,
            id: OnceLock::new(),
        }
    }

    unsafe fn get(&self, env: *mut JNIEnv) -> Option<jmethodID> {
        if let Some(&m) = self.id.get() {
            return Some(m as jmethodID);
        }
        let (name, desc) = (CString::new(self.name).ok()?, CString::new(self.desc).ok()?);
        let class = find_class(env, self.class)?;
        let m = ((**env).v1_4.GetMethodID)(env, class, name.as_ptr(), desc.as_ptr());
        ((**env).v1_4.DeleteLocalRef)(env, class);
        if m.is_null() {
            ((**env).v1_4.ExceptionClear)(env);
            return None;
        }
        Some(*self.id.get_or_init(|| m as usize) as jmethodID)
    }
}

unsafe fn find_class(env: *mut JNIEnv, name: &str) -> Option<jclass> {
    let name = CString::new(name).ok()?;
    let class = ((**env).v1_4.FindClass)(env, name.as_ptr());
    if class.is_null() {
        ((**env).v1_4.ExceptionClear)(env);
        return None;
    }
    Some(class)
}

static TO_ARRAY: JdkMethod =
    JdkMethod::new(COLLECTION_INTERFACE, "toArray", "()[Ljava/lang/Object;");
static LIST_NEW: JdkMethod = JdkMethod::new(LIST_CLASS, "<init>", "(I)V");
static LIST_ADD: JdkMethod = JdkMethod::new(LIST_CLASS, "add", "(Ljava/lang/Object;)Z");

/// The list `invokeAll`'s tasks are wrapped into.
const LIST_CLASS: &str = "java/util/ArrayList";

/// `invokeAll(tasks)`/`invokeAny(tasks)` on executor `recv`: a new list of
/// one wrapper per task (each linked to the executor, its start released),
/// or `tasks` itself when the list cannot be built.
pub unsafe fn wrap_all(
    r: &Recorder,
    env: *mut JNIEnv,
    recv: jobject,
    tasks: jobject,
    site: u32,
) -> jobject {
    let (Some(new), Some(add)) = (LIST_NEW.get(env), LIST_ADD.get(env)) else {
        return tasks;
    };
    let Some(class) = find_class(env, LIST_CLASS) else {
        return tasks;
    };
    let items = tasks_of(env, tasks, TaskArg::Collection);
    let size = jvalue {
        i: items.len().try_into().unwrap_or(i32::MAX),
    };
    let list = ((**env).v1_4.NewObjectA)(env, class, new, &size);
    ((**env).v1_4.DeleteLocalRef)(env, class);
    let mut ok = !list.is_null();
    for task in items {
        let wrapper = if ok {
            crate::natives::new_wrapper(env, task)
        } else {
            std::ptr::null_mut()
        };
        ok = ok && !wrapper.is_null();
        if ok {
            with_buf(r, env, |b| {
                crate::natives::hand_off_wrapper(r, env, b, recv, wrapper, site)
            });
            let arg = jvalue { l: wrapper };
            ((**env).v1_4.CallBooleanMethodA)(env, list, add, &arg);
            ok = !((**env).v1_4.ExceptionCheck)(env);
            ((**env).v1_4.DeleteLocalRef)(env, wrapper);
        }
        ((**env).v1_4.DeleteLocalRef)(env, task);
    }
    if ok {
        return list;
    }
    ((**env).v1_4.ExceptionClear)(env);
    tasks
}

/// The tasks an argument names, as local references the caller deletes.
unsafe fn tasks_of(env: *mut JNIEnv, arg: jobject, shape: TaskArg) -> Vec<jobject> {
    let array: jobjectArray = match shape {
        TaskArg::One => return vec![((**env).v1_4.NewLocalRef)(env, arg)],
        TaskArg::Array => arg,
        TaskArg::Collection => {
            let Some(m) = TO_ARRAY.get(env) else {
                return Vec::new();
            };
            let a = ((**env).v1_4.CallObjectMethodA)(env, arg, m, std::ptr::null());
            if ((**env).v1_4.ExceptionCheck)(env) {
                ((**env).v1_4.ExceptionClear)(env);
                return Vec::new();
            }
            a
        }
    };
    if array.is_null() {
        return Vec::new();
    }
    let n = ((**env).v1_4.GetArrayLength)(env, array).max(0);
    let tasks = (0..n)
        .map(|i| ((**env).v1_4.GetObjectArrayElement)(env, array, i))
        .filter(|t| !t.is_null())
        .collect();
    if ((**env).v1_4.ExceptionCheck)(env) {
        ((**env).v1_4.ExceptionClear)(env);
    }
    if shape == TaskArg::Collection {
        ((**env).v1_4.DeleteLocalRef)(env, array);
    }
    tasks
}

/// `SubmitTasks`/`TasksEnded` with (receiver, argument); `ShutdownHook`
/// with (runtime, hook). Returns false for other events.
pub unsafe fn object_arg_event(
    r: &Recorder,
    env: *mut JNIEnv,
    recv: jobject,
    arg: jobject,
    event: CallEvent,
    site: u32,
) -> bool {
    let (shape, submit) = match event {
        CallEvent::SubmitTasks(s) => (s, true),
        CallEvent::TasksEnded(s) => (s, false),
        CallEvent::ShutdownHook => {
            with_buf(r, env, |b| {
                let hook = object(r, env, b, arg);
                lock(&r.links).hooks.insert(hook);
                release(r, b, hook, key::SHUTDOWN_HOOK, site);
            });
            return true;
        }
        _ => return false,
    };
    for task in tasks_of(env, arg, shape) {
        with_buf(r, env, |b| {
            let id = object(r, env, b, task);
            if !submit {
                acquire(r, b, id, key::TASK_END, site);
                return;
            }
            if !recv.is_null() {
                let pool = object(r, env, b, recv);
                lock(&r.links).executors.insert(id, pool);
            }
            release(r, b, id, key::TASK_START, site);
        });
        ((**env).v1_4.DeleteLocalRef)(env, task);
    }
    true
}

static GET_COMPLETER: JdkMethod = JdkMethod::new(
    COUNTED_COMPLETER_CLASS,
    GET_COMPLETER_METHOD.0,
    GET_COMPLETER_METHOD.1,
);

/// How far up a chain of completers [`complete_chain`] goes (a guard
/// against a cycle; real chains are as deep as the task tree).
const MAX_CHAIN: usize = 4096;

/// `task` may complete (`tryComplete`, `complete`, ...): its end is
/// released, and when it is a `CountedCompleter` so is each completer's up
/// to the root (whose `join` returns once they all completed). The chain
/// is read through JNI before the thread's buffer is entered.
pub unsafe fn complete_chain(r: &Recorder, env: *mut JNIEnv, task: jobject, site: u32) {
    if task.is_null() {
        return;
    }
    let mut chain = vec![((**env).v1_4.NewLocalRef)(env, task)];
    let completer_class = find_class(env, COUNTED_COMPLETER_CLASS);
    if let (Some(class), Some(get)) = (completer_class, GET_COMPLETER.get(env)) {
        while chain.len() < MAX_CHAIN {
            let Some(&last) = chain.last() else { break };
            if !((**env).v1_4.IsInstanceOf)(env, last, class) {
                break;
            }
            let next = ((**env).v1_4.CallObjectMethodA)(env, last, get, std::ptr::null());
            if ((**env).v1_4.ExceptionCheck)(env) {
                ((**env).v1_4.ExceptionClear)(env);
                break;
            }
            if next.is_null() {
                break;
            }
            chain.push(next);
        }
        ((**env).v1_4.DeleteLocalRef)(env, class);
    }
    for t in chain {
        with_buf(r, env, |b| {
            let id = object(r, env, b, t);
            release(r, b, id, key::TASK_END, site);
        });
        ((**env).v1_4.DeleteLocalRef)(env, t);
    }
}

/// A task body begins (`begin`) or ends on `task`.
pub fn task_body(r: &Recorder, b: &mut ThreadBuf, task: u64, begin: bool, site: u32) {
    if begin {
        acquire(r, b, task, key::TASK_START, site);
        return;
    }
    release(r, b, task, key::TASK_END, site);
    let pool = lock(&r.links).executors.get(&task).copied();
    if let Some(p) = pool {
        release(r, b, p, key::EXECUTOR, site);
    }
}

/// The lock kind of a stamp mode (an optimistic section holds the read side).
fn stamp_kind(mode: StampMode) -> LockKind {
    match mode {
        StampMode::Write => LockKind::Write,
        StampMode::Read | StampMode::Optimistic => LockKind::Read,
    }
}

fn target_mode(t: StampTarget) -> StampMode {
    match t {
        StampTarget::Write => StampMode::Write,
        StampTarget::Read => StampMode::Read,
        StampTarget::Optimistic => StampMode::Optimistic,
    }
}

/// `StampedLock` events with an `int` (see `CallEvent`) on lock `l`;
/// `ProgramExit`. Returns false for other events.
pub fn int_event(r: &Recorder, b: &mut ThreadBuf, l: u64, v: i32, e: CallEvent, site: u32) -> bool {
    let bits = v as u32;
    match e {
        CallEvent::StampUnlock => match stamp_mode(bits) {
            StampMode::Optimistic => {}
            m => lock_event(r, b, l, stamp_kind(m), site, false),
        },
        CallEvent::StampValidate => {
            if stamp_mode(bits) == StampMode::Optimistic {
                lock_event(r, b, l, LockKind::Read, site, false);
            }
        }
        CallEvent::OptimisticRead => {
            if v != 0 {
                lock_event(r, b, l, LockKind::Read, site, true);
            }
        }
        CallEvent::StampConvert(to) => {
            if v & CONVERTED == 0 {
                return true;
            }
            let from = stamp_kind(stamp_mode(bits & 0xFF));
            let to = stamp_kind(target_mode(to));
            if from != to {
                lock_event(r, b, l, from, site, false);
                lock_event(r, b, l, to, site, true);
            }
        }
        CallEvent::ProgramExit => program_end(r, b, site),
        _ => return false,
    }
    true
}

/// The thread ends or calls `exit`: shutdown hooks begin after this.
pub fn program_end(r: &Recorder, b: &mut ThreadBuf, site: u32) {
    release(r, b, key::PROGRAM_OBJECT, key::PROGRAM_END, site);
}

/// A thread begins: a shutdown hook thread (`thread` is the id of its
/// object) acquires its registration and the end of the program.
pub fn thread_begins(r: &Recorder, b: &mut ThreadBuf, thread: u64) {
    if !lock(&r.links).hooks.contains(&thread) {
        return;
    }
    let site = r.task_site;
    acquire(r, b, thread, key::SHUTDOWN_HOOK, site);
    acquire(r, b, key::PROGRAM_OBJECT, key::PROGRAM_END, site);
}
