//! The `--timeout` watchdog: after the given time, a hang record with every
//! thread's stack and monitors, then the trace is ended so `lockstep run`
//! can stop the JVM and report what was seen (and rebuild a deadlock from
//! the held and awaited locks).
//!
//! Monitors come from JVMTI (owned and contended monitors). A thread parked
//! in a `java.util.concurrent` lock has no contended monitor; its
//! `Thread.parkBlocker` is the lock's synchronizer, and when that is an
//! `AbstractOwnableSynchronizer` with an exclusive owner, the dump says the
//! thread waits for the synchronizer and the owner holds it (what
//! `ThreadMXBean` reports as owned synchronizers). Read holds of read-write
//! locks have no owner and are not in the dump.

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use jni_sys::{jclass, jfieldID, jobject, JNIEnv};
use lockstep_models::locks::OWNABLE_SYNCHRONIZER;
use lockstep_models::threads::THREAD_CLASS;
use lockstep_trace::{Frame, Hang, ThreadDump, ThreadId};

use crate::state::{Recorder, ThreadBuf, RECORDER};
use crate::threads::{object, thread_id_for_tag};
use crate::VM;

pub(crate) fn start_watchdog(secs: u64) {
    let _ = std::thread::Builder::new()
        .name("lockstep-watchdog".to_owned())
        .spawn(move || {
            std::thread::sleep(Duration::from_secs(secs));
            let Some(r) = RECORDER.get() else { return };
            if r.dead.load(Ordering::SeqCst) {
                return;
            }
            unsafe { dump(r, secs) };
        });
}

fn state_name(s: i32) -> String {
    let names = [
        (0x0400, "BLOCKED"),
        (0x0010, "WAITING"),
        (0x0080, "TIMED_WAITING"),
        (0x0004, "RUNNABLE"),
        (0x0002, "TERMINATED"),
    ];
    names
        .iter()
        .find(|(bit, _)| s & bit != 0)
        .map(|(_, n)| (*n).to_owned())
        .unwrap_or_else(|| "NEW".to_owned())
}

unsafe fn dump(r: &Recorder, secs: u64) {
    let vm = VM.load(Ordering::Acquire);
    if vm.is_null() {
        return;
    }
    let mut env: *mut c_void = ptr::null_mut();
    if ((**vm).v1_4.AttachCurrentThreadAsDaemon)(vm, &mut env, ptr::null_mut()) != 0 {
        return;
    }
    let env = env as *mut JNIEnv;
    let j = r.jvmti;
    let mut scratch = ThreadBuf::new(u32::MAX);
    let parking = Parking::resolve(env);
    let mut owned: Vec<(jobject, u64)> = Vec::new();
    let mut threads = Vec::new();
    for t in j.all_threads() {
        let name = j.thread_name(t);
        if name == "lockstep-watchdog" {
            continue;
        }
        let thread_tag = object(r, env, &mut scratch, t);
        let (id, _) = thread_id_for_tag(r, thread_tag, None, None);
        let frames = j
            .stack_trace(t, 64)
            .into_iter()
            .map(|f| Frame::Text(j.describe_frame(f)))
            .collect();
        let holds = j
            .owned_monitors(t)
            .into_iter()
            .map(|m| object(r, env, &mut scratch, m))
            .collect();
        let waiting = j.contended_monitor(t);
        let mut waits_for = (!waiting.is_null()).then(|| object(r, env, &mut scratch, waiting));
        if waits_for.is_none() {
            if let Some((sync, owner)) = parking.as_ref().and_then(|p| p.owned_blocker(env, t)) {
                let sync = object(r, env, &mut scratch, sync);
                waits_for = Some(sync);
                owned.push((owner, sync));
            }
        }
        threads.push(ThreadDump {
            thread: id,
            name,
            state: state_name(j.thread_state(t)),
            frames,
            holds,
            waits_for,
        });
    }
    for (owner, sync) in owned {
        let tag = object(r, env, &mut scratch, owner);
        let (owner, _) = thread_id_for_tag(r, tag, None, None);
        give(&mut threads, owner, sync);
    }
    r.note(&format!(
        "timeout: the program ran longer than {secs} s; thread dump recorded and the run stopped"
    ));
    r.write(|w| w.hang(&Hang { threads }));
    crate::finish(r);
    let _ = env;
}

/// Records that thread `owner` holds the synchronizer `sync`.
fn give(threads: &mut [ThreadDump], owner: ThreadId, sync: u64) {
    if let Some(d) = threads.iter_mut().find(|d| d.thread == owner) {
        if !d.holds.contains(&sync) {
            d.holds.push(sync);
        }
    }
}

/// The JNI handles needed to read who owns a parked thread's blocker.
struct Parking {
    park_blocker: jfieldID,
    synchronizer: jclass,
    owner: jfieldID,
}

impl Parking {
    /// Looks up `Thread.parkBlocker` and
    /// `AbstractOwnableSynchronizer.exclusiveOwnerThread` (`None` if a JDK
    /// lacks them).
    unsafe fn resolve(env: *mut JNIEnv) -> Option<Parking> {
        let thread = find_class(env, THREAD_CLASS)?;
        let park_blocker = field(env, thread, c"parkBlocker", c"Ljava/lang/Object;")?;
        let synchronizer = find_class(env, OWNABLE_SYNCHRONIZER)?;
        let owner = field(
            env,
            synchronizer,
            c"exclusiveOwnerThread",
            c"Ljava/lang/Thread;",
        )?;
        Some(Parking {
            park_blocker,
            synchronizer,
            owner,
        })
    }

    /// The synchronizer `t` is parked on and its exclusive owner, if any.
    unsafe fn owned_blocker(&self, env: *mut JNIEnv, t: jobject) -> Option<(jobject, jobject)> {
        let blocker = ((**env).v1_4.GetObjectField)(env, t, self.park_blocker);
        if blocker.is_null() || !((**env).v1_4.IsInstanceOf)(env, blocker, self.synchronizer) {
            return None;
        }
        let owner = ((**env).v1_4.GetObjectField)(env, blocker, self.owner);
        (!owner.is_null() && !((**env).v1_4.IsSameObject)(env, owner, t))
            .then_some((blocker, owner))
    }
}

unsafe fn find_class(env: *mut JNIEnv, name: &str) -> Option<jclass> {
    let name = std::ffi::CString::new(name).ok()?;
    let c = ((**env).v1_4.FindClass)(env, name.as_ptr());
    if c.is_null() {
        ((**env).v1_4.ExceptionClear)(env);
        return None;
    }
    Some(c)
}

unsafe fn field(
    env: *mut JNIEnv,
    class: jclass,
    name: &std::ffi::CStr,
    sig: &std::ffi::CStr,
) -> Option<jfieldID> {
    let f = ((**env).v1_4.GetFieldID)(env, class, name.as_ptr(), sig.as_ptr());
    if f.is_null() {
        ((**env).v1_4.ExceptionClear)(env);
        return None;
    }
    Some(f)
}
