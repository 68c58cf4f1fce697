//! lockstep's JVMTI agent: the recording half of `lockstep run`.
//!
//! Loaded with `-agentpath:<lib>=trace=<path>[,timeout=<secs>][,include=<pkgs>][,exclude=<pkgs>][,methods=0][,static=<file>]`
//! (`<pkgs>` are `:`-separated package patterns such as `com.example.*`;
//! `<file>` is a guidance file of `lockstep run --static`, the accesses
//! the static analysis proved race-free, which get no probe: format in
//! `lockstep_instrument::guidance`; a file that cannot be read or parsed
//! stops the JVM with a message naming it).
//! At VM init it defines the runtime classes `lockstep/rt/Rec` and
//! `lockstep/rt/Task` in the bootstrap loader (so classes of every loader
//! see them) and registers `Rec`'s natives. `ClassFileLoadHook` then runs
//! `lockstep_instrument` on every application class (not the JDK's, not
//! lockstep's, not hidden classes, which never reach the hook; lambda
//! bodies stay methods of their host class and are instrumented there).
//! Events go to per-thread buffers (`threads`) and are flushed as chunks to
//! one `lockstep_trace::TraceWriter` on the trace path (a FIFO read by
//! `lockstep run`, or a file): the JVM holds at most one buffer per thread.
//! `VMDeath` (normal exit, `System.exit`, uncaught exceptions, OOM) flushes
//! everything and ends the trace; with `timeout`, a watchdog writes a hang
//! record (every thread's stack, held and awaited monitors) and ends the
//! trace so `lockstep run` can stop the JVM and report.
//!
//! Module map: `jvmti` (hand-written JVMTI table), `state` (shared tables,
//! probes, ids, counters), `threads` (buffers and thread ids), `natives`
//! (probe → events), `hook` (class rewriting), `hang` (the watchdog).

#![allow(clippy::missing_safety_doc)]

mod handoffs;
mod hang;
mod hook;
mod ident;
mod jvmti;
mod natives;
mod owned;
mod state;
mod threads;
mod views;

use std::ffi::{c_char, c_void, CStr, CString};
use std::fs::OpenOptions;
use std::io::BufWriter;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use jni_sys::{jint, JNIEnv, JNINativeMethod, JavaVM};

use crate::jvmti::jthread;
use lockstep_trace::{Header, TraceWriter};

use crate::jvmti::JvmtiEnv;
use crate::state::{Options, Recorder, RECORDER};

/// Set once the runtime classes are defined: before that, no class is rewritten.
pub(crate) static READY: AtomicBool = AtomicBool::new(false);
pub(crate) static VM: AtomicPtr<JavaVM> = AtomicPtr::new(ptr::null_mut());

fn parse_options(text: &str) -> Result<Options, String> {
    let mut o = Options {
        trace: String::new(),
        timeout_secs: None,
        include: Vec::new(),
        exclude: Vec::new(),
        instrument: lockstep_instrument::Options::default(),
        guidance: lockstep_instrument::Guidance::default(),
    };
    for part in text.split(',').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let patterns = || {
            v.split(':')
                .filter(|s| !s.is_empty())
                .map(pattern_prefix)
                .collect()
        };
        match k {
            "trace" => o.trace = v.to_owned(),
            "timeout" => {
                o.timeout_secs = Some(v.parse().map_err(|_| format!("bad timeout `{v}`"))?)
            }
            "include" => o.include = patterns(),
            "exclude" => o.exclude = patterns(),
            "methods" => o.instrument.methods = v != "0",
            "ids" => o.instrument.id_field = v != "0",
            "static" => o.guidance = read_guidance(v)?,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if o.trace.is_empty() {
        return Err("missing trace=<path>".to_owned());
    }
    Ok(o)
}

/// Reads the guidance file of `static=<path>`.
fn read_guidance(path: &str) -> Result<lockstep_instrument::Guidance, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the guidance file {path}: {e}"))?;
    lockstep_instrument::Guidance::parse(&text).map_err(|e| format!("{path}: {e}"))
}

/// Pipe capacity asked for when the trace is a pipe (`lockstep run`).
const PIPE_BYTES: libc::c_int = 1 << 20;

/// When the trace is a pipe, asks for a 1 MiB buffer instead of the
/// default 64 KiB: the online checker reads in bursts, and with a small
/// pipe every recording thread that flushes a chunk waits for it. Failure
/// (not a pipe, above `/proc/sys/fs/pipe-max-size`) leaves it as it was.
fn widen_pipe(file: &std::fs::File) {
    use std::os::fd::AsRawFd;
    let is_pipe = file
        .metadata()
        .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_fifo(&m.file_type()));
    if is_pipe {
        // SAFETY: fcntl on a descriptor we own, integer argument.
        unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_BYTES) };
    }
}

/// `com.example.*` → `com/example/` (a package prefix); `com.example.Main`
/// → `com/example/Main` (a class or package name).
fn pattern_prefix(p: &str) -> String {
    let p = p.trim_end_matches('*').replace('.', "/");
    p.trim_end_matches('/').to_owned() + if p.ends_with('/') { "/" } else { "" }
}

#[no_mangle]
pub unsafe extern "system" fn Agent_OnLoad(
    vm: *mut JavaVM,
    options: *mut c_char,
    _reserved: *mut c_void,
) -> jint {
    let text = if options.is_null() {
        String::new()
    } else {
        CStr::from_ptr(options).to_string_lossy().into_owned()
    };
    match load(vm, &text) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("lockstep agent: {e}");
            1
        }
    }
}

unsafe fn load(vm: *mut JavaVM, text: &str) -> Result<(), String> {
    let options = parse_options(text)?;
    let jvmti = Jvmti::from_vm(vm).ok_or("no JVMTI 1.2 environment")?;
    VM.store(vm, Ordering::Release);
    use crate::jvmti::*;
    let rc = jvmti.add_capabilities(&[
        CAN_TAG_OBJECTS,
        CAN_GET_OWNED_MONITOR_INFO,
        CAN_GET_CURRENT_CONTENDED_MONITOR,
        CAN_GET_SOURCE_FILE_NAME,
        CAN_GET_LINE_NUMBERS,
    ]);
    if rc != 0 {
        return Err(format!("JVMTI capabilities refused (error {rc})"));
    }
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&options.trace)
        .map_err(|e| format!("cannot open trace {}: {e}", options.trace))?;
    widen_pipe(&file);
    let header = Header {
        format_version: lockstep_trace::FORMAT_VERSION,
        jvm: String::new(),
        command: String::new(),
        recorder: format!("lockstep {}", env!("CARGO_PKG_VERSION")),
        start_unix_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0),
    };
    let writer = TraceWriter::new(BufWriter::with_capacity(1 << 16, file), &header)
        .map_err(|e| format!("cannot write trace: {e}"))?;
    owned::init();
    let _ = RECORDER.set(Recorder::new(jvmti, options, writer));
    let cb = Callbacks {
        vm_init: Some(vm_init),
        vm_death: Some(vm_death),
        thread_start: Some(thread_start),
        thread_end: Some(thread_end),
        class_file_load_hook: Some(hook::class_file_load_hook),
        rest: [ptr::null(); 32],
    };
    if jvmti.set_callbacks(&cb) != 0 {
        return Err("cannot set JVMTI callbacks".to_owned());
    }
    for ev in [
        EVENT_VM_INIT,
        EVENT_VM_DEATH,
        EVENT_THREAD_START,
        EVENT_THREAD_END,
        EVENT_CLASS_FILE_LOAD_HOOK,
    ] {
        if jvmti.enable(ev) != 0 {
            return Err(format!("cannot enable JVMTI event {ev}"));
        }
    }
    Ok(())
}

unsafe fn define(env: *mut JNIEnv, name: &str, bytes: &[u8]) -> jni_sys::jclass {
    let Ok(cname) = CString::new(name) else {
        return ptr::null_mut();
    };
    let c = ((**env).v1_4.DefineClass)(
        env,
        cname.as_ptr(),
        ptr::null_mut(),
        bytes.as_ptr().cast(),
        bytes.len() as jint,
    );
    if c.is_null() {
        ((**env).v1_4.ExceptionDescribe)(env);
        ((**env).v1_4.ExceptionClear)(env);
    }
    c
}

unsafe fn define_runtime(env: *mut JNIEnv) -> Result<(), String> {
    let rec_bytes = lockstep_instrument::runtime::rec_class().map_err(|e| e.to_string())?;
    let rec = define(env, lockstep_instrument::RT_CLASS, &rec_bytes);
    if rec.is_null() {
        return Err("cannot define lockstep/rt/Rec".to_owned());
    }
    let natives: &[(&str, *mut c_void)] = &[
        ("e", natives::e as *mut c_void),
        ("o", natives::o as *mut c_void),
        ("oi", natives::oi as *mut c_void),
        ("oo", natives::oo as *mut c_void),
        ("w", natives::w as *mut c_void),
        ("t", natives::t as *mut c_void),
    ];
    let table = lockstep_instrument::runtime::natives();
    let mut strings = Vec::new();
    let mut methods = Vec::new();
    for (name, desc) in &table {
        let f = natives
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| *f)
            .ok_or("native missing")?;
        let n = CString::new(*name).map_err(|e| e.to_string())?;
        let d = CString::new(*desc).map_err(|e| e.to_string())?;
        methods.push(JNINativeMethod {
            name: n.as_ptr() as *mut c_char,
            signature: d.as_ptr() as *mut c_char,
            fnPtr: f,
        });
        strings.push((n, d));
    }
    if ((**env).v1_4.RegisterNatives)(env, rec, methods.as_ptr(), methods.len() as jint) != 0 {
        ((**env).v1_4.ExceptionClear)(env);
        return Err("cannot register natives".to_owned());
    }
    let task_bytes = lockstep_instrument::runtime::task_class().map_err(|e| e.to_string())?;
    let task = define(env, lockstep_instrument::TASK_CLASS, &task_bytes);
    if task.is_null() {
        return Err("cannot define lockstep/rt/Task".to_owned());
    }
    let init = ((**env).v1_4.GetMethodID)(
        env,
        task,
        c"<init>".as_ptr(),
        c"(Ljava/lang/Object;)V".as_ptr(),
    );
    let thread_name =
        CString::new(lockstep_models::threads::THREAD_CLASS).map_err(|e| e.to_string())?;
    let thread = ((**env).v1_4.FindClass)(env, thread_name.as_ptr());
    if init.is_null() || thread.is_null() {
        ((**env).v1_4.ExceptionClear)(env);
        return Err("cannot find runtime members".to_owned());
    }
    natives::TASK_CLASS.store(
        ((**env).v1_4.NewGlobalRef)(env, task).cast(),
        Ordering::Release,
    );
    natives::TASK_INIT.store(init.cast(), Ordering::Release);
    natives::THREAD_CLASS.store(
        ((**env).v1_4.NewGlobalRef)(env, thread).cast(),
        Ordering::Release,
    );
    let executor_name =
        CString::new(lockstep_models::threads::EXECUTOR_INTERFACE).map_err(|e| e.to_string())?;
    let executor = ((**env).v1_4.FindClass)(env, executor_name.as_ptr());
    if executor.is_null() {
        ((**env).v1_4.ExceptionClear)(env);
        return Err("cannot find java.util.concurrent.Executor".to_owned());
    }
    natives::EXECUTOR_CLASS.store(
        ((**env).v1_4.NewGlobalRef)(env, executor).cast(),
        Ordering::Release,
    );
    Ok(())
}

unsafe extern "system" fn vm_init(_j: JvmtiEnv, env: *mut JNIEnv, _thread: jthread) {
    let Some(r) = RECORDER.get() else { return };
    match define_runtime(env) {
        Ok(()) => READY.store(true, Ordering::Release),
        Err(e) => r.note(&format!("recorder disabled: {e}")),
    }
    threads::with_buf(r, env, |_| ());
    if let Some(secs) = r.options.timeout_secs {
        hang::start_watchdog(secs);
    }
}

unsafe extern "system" fn thread_start(_j: JvmtiEnv, env: *mut JNIEnv, _thread: jthread) {
    if let Some(r) = RECORDER.get() {
        threads::with_buf(r, env, |_| ());
    }
}

unsafe extern "system" fn thread_end(_j: JvmtiEnv, env: *mut JNIEnv, _thread: jthread) {
    if let Some(r) = RECORDER.get() {
        threads::end_thread(r, env);
    }
}

/// Ends the trace: every buffer flushed, the end record written, the file closed.
pub(crate) fn finish(r: &Recorder) {
    r.stop_and_flush_all();
    let w = state::lock(&r.writer).take();
    if let Some(w) = w {
        let _ = w.finish();
    }
}

unsafe extern "system" fn vm_death(_j: JvmtiEnv, env: *mut JNIEnv) {
    if let Some(r) = RECORDER.get() {
        threads::end_thread(r, env);
        finish(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_and_patterns() {
        let o = parse_options("trace=/tmp/x,timeout=5,include=com.a.*:org.b,methods=0").unwrap();
        assert_eq!(o.trace, "/tmp/x");
        assert_eq!(o.timeout_secs, Some(5));
        assert_eq!(o.include, vec!["com/a/".to_owned(), "org/b".to_owned()]);
        assert!(!o.instrument.methods);
        assert!(parse_options("timeout=5").is_err());
        assert!(parse_options("trace=x,bogus=1").is_err());
    }

    #[test]
    fn static_guidance_is_read_and_bad_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("g.txt");
        std::fs::write(&good, "lockstep-guidance 1\nskip\ta/A\tm\t()V\t4,9\n").unwrap();
        let o = parse_options(&format!("trace=/tmp/x,static={}", good.display())).unwrap();
        assert_eq!(o.guidance.len(), 2);
        let bad = dir.path().join("bad.txt");
        std::fs::write(&bad, "hello\n").unwrap();
        let e = parse_options(&format!("trace=/tmp/x,static={}", bad.display())).err();
        assert!(e.is_some_and(|e| e.contains("bad.txt")));
        let e = parse_options("trace=/tmp/x,static=/nonexistent/g").err();
        assert!(e.is_some_and(|e| e.contains("/nonexistent/g")));
    }
}
