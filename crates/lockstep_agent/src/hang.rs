//! The `--timeout` watchdog: after the given time, a hang record with every
//! thread's stack and monitors, then the trace is ended so `lockstep run`
//! can stop the JVM and report what was seen.

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use jni_sys::JNIEnv;
use lockstep_trace::{Frame, Hang, ThreadDump};

use crate::state::{Recorder, ThreadBuf, RECORDER};
use crate::threads::{fresh_object, thread_id_for_tag};
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
    let mut scratch = ThreadBuf {
        id: u32::MAX,
        enc: lockstep_trace::ChunkEncoder::new(u32::MAX),
        last_wrapper: 0,
        next_obj: 0,
        end_obj: 0,
        classes_used: Vec::new(),
    };
    let mut tag = |obj| r.object_id(obj, &mut || fresh_object(r, &mut scratch)).0;
    let mut threads = Vec::new();
    for t in j.all_threads() {
        let name = j.thread_name(t);
        if name == "lockstep-watchdog" {
            continue;
        }
        let (id, _) = thread_id_for_tag(r, tag(t), None, None);
        let frames = j
            .stack_trace(t, 64)
            .into_iter()
            .map(|f| Frame::Text(j.describe_frame(f)))
            .collect();
        let holds = j.owned_monitors(t).into_iter().map(&mut tag).collect();
        let waiting = j.contended_monitor(t);
        let waits_for = (!waiting.is_null()).then(|| tag(waiting));
        threads.push(ThreadDump {
            thread: id,
            name,
            state: state_name(j.thread_state(t)),
            frames,
            holds,
            waits_for,
        });
    }
    r.note(&format!(
        "timeout: the program ran longer than {secs} s; thread dump recorded and the run stopped"
    ));
    r.write(|w| w.hang(&Hang { threads }));
    crate::finish(r);
    let _ = env;
}
