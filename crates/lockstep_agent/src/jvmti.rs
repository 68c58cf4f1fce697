//! A hand-written slice of the JVMTI function table and event structures.
//!
//! Only what the recorder calls. Slot numbers are the 1-based function
//! numbers of `jvmti.h` (JVMTI 1.2, unchanged through JDK 25). Capabilities
//! are C bit-fields, lowest bit first in each 32-bit word.
//! `SetEventNotificationMode` is a C variadic function and is called
//! through a variadic function-pointer type.

use std::ffi::{c_char, c_int, c_uchar, c_void, CStr};
use std::ptr;

use jni_sys::{jclass, jint, jlong, jmethodID, jobject, JNIEnv, JavaVM};

#[allow(non_camel_case_types)]
pub type jthread = jobject;

pub type JvmtiEnv = *mut *const *const c_void;

pub const VERSION_1_2: jint = 0x3001_0200;
pub const EVENT_VM_INIT: c_int = 50;
pub const EVENT_VM_DEATH: c_int = 51;
pub const EVENT_THREAD_START: c_int = 52;
pub const EVENT_THREAD_END: c_int = 53;
pub const EVENT_CLASS_FILE_LOAD_HOOK: c_int = 54;
pub const THREAD_STATE_TERMINATED: jint = 0x0002;

pub const CAN_TAG_OBJECTS: u32 = 0;
pub const CAN_GET_OWNED_MONITOR_INFO: u32 = 5;
pub const CAN_GET_CURRENT_CONTENDED_MONITOR: u32 = 6;
pub const CAN_GET_SOURCE_FILE_NAME: u32 = 11;
pub const CAN_GET_LINE_NUMBERS: u32 = 12;

#[repr(C)]
pub struct ThreadInfo {
    pub name: *mut c_char,
    pub priority: jint,
    pub is_daemon: u8,
    pub thread_group: jobject,
    pub context_class_loader: jobject,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct FrameInfo {
    pub method: jmethodID,
    pub location: jlong,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct LineEntry {
    pub start_location: jlong,
    pub line_number: jint,
}

pub type VmInitFn = unsafe extern "system" fn(JvmtiEnv, *mut JNIEnv, jthread);
pub type VmDeathFn = unsafe extern "system" fn(JvmtiEnv, *mut JNIEnv);
pub type ThreadFn = unsafe extern "system" fn(JvmtiEnv, *mut JNIEnv, jthread);
pub type ClassFileLoadHookFn = unsafe extern "system" fn(
    JvmtiEnv,
    *mut JNIEnv,
    jclass,
    jobject,
    *const c_char,
    jobject,
    jint,
    *const c_uchar,
    *mut jint,
    *mut *mut c_uchar,
);

/// `jvmtiEventCallbacks` from event 50 (VMInit) to 86: 37 pointers.
#[repr(C)]
pub struct Callbacks {
    pub vm_init: Option<VmInitFn>,
    pub vm_death: Option<VmDeathFn>,
    pub thread_start: Option<ThreadFn>,
    pub thread_end: Option<ThreadFn>,
    pub class_file_load_hook: Option<ClassFileLoadHookFn>,
    pub rest: [*const c_void; 32],
}

/// A JVMTI environment pointer; JVMTI environments may be used from any thread.
#[derive(Clone, Copy)]
pub struct Jvmti(pub JvmtiEnv);
unsafe impl Send for Jvmti {}
unsafe impl Sync for Jvmti {}

macro_rules! slot {
    ($self:expr, $n:expr, $ty:ty) => {{
        let table: *const *const c_void = *$self.0;
        std::mem::transmute::<*const c_void, $ty>(*table.add($n - 1))
    }};
}

impl Jvmti {
    /// The JVMTI environment of `vm`.
    pub unsafe fn from_vm(vm: *mut JavaVM) -> Option<Jvmti> {
        let mut env: *mut c_void = ptr::null_mut();
        let rc = ((**vm).v1_4.GetEnv)(vm, &mut env, VERSION_1_2);
        (rc == 0 && !env.is_null()).then_some(Jvmti(env as JvmtiEnv))
    }

    pub unsafe fn add_capabilities(&self, bits: &[u32]) -> jint {
        let mut caps = [0u32; 4];
        for b in bits {
            caps[(b / 32) as usize] |= 1 << (b % 32);
        }
        let f = slot!(
            self,
            142,
            unsafe extern "C" fn(JvmtiEnv, *const [u32; 4]) -> jint
        );
        f(self.0, &caps)
    }

    pub unsafe fn set_callbacks(&self, cb: &Callbacks) -> jint {
        let f = slot!(
            self,
            122,
            unsafe extern "C" fn(JvmtiEnv, *const Callbacks, jint) -> jint
        );
        f(self.0, cb, std::mem::size_of::<Callbacks>() as jint)
    }

    pub unsafe fn enable(&self, event: c_int) -> jint {
        let f = slot!(
            self,
            2,
            unsafe extern "C" fn(JvmtiEnv, c_int, c_int, jthread, ...) -> jint
        );
        f(self.0, 1, event, ptr::null_mut())
    }

    pub unsafe fn get_tag(&self, obj: jobject) -> jlong {
        let f = slot!(
            self,
            106,
            unsafe extern "C" fn(JvmtiEnv, jobject, *mut jlong) -> jint
        );
        let mut tag = 0;
        if f(self.0, obj, &mut tag) != 0 {
            return 0;
        }
        tag
    }

    pub unsafe fn set_tag(&self, obj: jobject, tag: jlong) {
        let f = slot!(
            self,
            107,
            unsafe extern "C" fn(JvmtiEnv, jobject, jlong) -> jint
        );
        f(self.0, obj, tag);
    }

    pub unsafe fn allocate(&self, size: usize) -> *mut c_uchar {
        let f = slot!(
            self,
            46,
            unsafe extern "C" fn(JvmtiEnv, jlong, *mut *mut c_uchar) -> jint
        );
        let mut p = ptr::null_mut();
        if f(self.0, size as jlong, &mut p) != 0 {
            return ptr::null_mut();
        }
        p
    }

    pub unsafe fn deallocate(&self, p: *mut c_void) {
        if p.is_null() {
            return;
        }
        let f = slot!(
            self,
            47,
            unsafe extern "C" fn(JvmtiEnv, *mut c_void) -> jint
        );
        f(self.0, p);
    }

    /// Takes a JVMTI-allocated C string.
    pub unsafe fn take_string(&self, p: *mut c_char) -> String {
        if p.is_null() {
            return String::new();
        }
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        self.deallocate(p.cast());
        s
    }

    pub unsafe fn current_thread(&self) -> jthread {
        let f = slot!(
            self,
            18,
            unsafe extern "C" fn(JvmtiEnv, *mut jthread) -> jint
        );
        let mut t = ptr::null_mut();
        f(self.0, &mut t);
        t
    }

    pub unsafe fn thread_state(&self, t: jthread) -> jint {
        let f = slot!(
            self,
            17,
            unsafe extern "C" fn(JvmtiEnv, jthread, *mut jint) -> jint
        );
        let mut s = 0;
        f(self.0, t, &mut s);
        s
    }

    pub unsafe fn thread_name(&self, t: jthread) -> String {
        let f = slot!(
            self,
            9,
            unsafe extern "C" fn(JvmtiEnv, jthread, *mut ThreadInfo) -> jint
        );
        let mut info = ThreadInfo {
            name: ptr::null_mut(),
            priority: 0,
            is_daemon: 0,
            thread_group: ptr::null_mut(),
            context_class_loader: ptr::null_mut(),
        };
        if f(self.0, t, &mut info) != 0 {
            return String::new();
        }
        self.take_string(info.name)
    }

    /// `Lpkg/Cls;` → `pkg/Cls`; arrays stay descriptors.
    pub unsafe fn class_name(&self, c: jclass) -> String {
        let f = slot!(
            self,
            48,
            unsafe extern "C" fn(JvmtiEnv, jclass, *mut *mut c_char, *mut *mut c_char) -> jint
        );
        let mut sig = ptr::null_mut();
        if f(self.0, c, &mut sig, ptr::null_mut()) != 0 {
            return String::new();
        }
        let s = self.take_string(sig);
        match s.strip_prefix('L').and_then(|s| s.strip_suffix(';')) {
            Some(n) => n.to_owned(),
            None => s,
        }
    }

    pub unsafe fn all_threads(&self) -> Vec<jthread> {
        let f = slot!(
            self,
            4,
            unsafe extern "C" fn(JvmtiEnv, *mut jint, *mut *mut jthread) -> jint
        );
        let (mut n, mut p) = (0, ptr::null_mut());
        let rc = f(self.0, &mut n, &mut p);
        self.take_array(rc, n, p)
    }

    pub unsafe fn owned_monitors(&self, t: jthread) -> Vec<jobject> {
        let f = slot!(
            self,
            10,
            unsafe extern "C" fn(JvmtiEnv, jthread, *mut jint, *mut *mut jobject) -> jint
        );
        let (mut n, mut p) = (0, ptr::null_mut());
        let rc = f(self.0, t, &mut n, &mut p);
        self.take_array(rc, n, p)
    }

    /// Copies and frees a JVMTI-allocated array of `n` elements (empty on error).
    unsafe fn take_array<T: Copy>(&self, rc: jint, n: jint, p: *mut T) -> Vec<T> {
        if rc != 0 || p.is_null() {
            return Vec::new();
        }
        let v = std::slice::from_raw_parts(p, n.max(0) as usize).to_vec();
        self.deallocate(p.cast());
        v
    }

    pub unsafe fn contended_monitor(&self, t: jthread) -> jobject {
        let f = slot!(
            self,
            11,
            unsafe extern "C" fn(JvmtiEnv, jthread, *mut jobject) -> jint
        );
        let mut m = ptr::null_mut();
        f(self.0, t, &mut m);
        m
    }

    pub unsafe fn stack_trace(&self, t: jthread, max: usize) -> Vec<FrameInfo> {
        let f = slot!(
            self,
            104,
            unsafe extern "C" fn(JvmtiEnv, jthread, jint, jint, *mut FrameInfo, *mut jint) -> jint
        );
        let mut frames = vec![
            FrameInfo {
                method: ptr::null_mut(),
                location: 0
            };
            max
        ];
        let mut n = 0;
        if f(self.0, t, 0, max as jint, frames.as_mut_ptr(), &mut n) != 0 {
            return Vec::new();
        }
        frames.truncate(n.max(0) as usize);
        frames
    }

    /// `pkg.Cls.method` and its line at `location`, for hang dumps.
    pub unsafe fn describe_frame(&self, fr: FrameInfo) -> String {
        let name_f = slot!(
            self,
            64,
            unsafe extern "C" fn(
                JvmtiEnv,
                jmethodID,
                *mut *mut c_char,
                *mut *mut c_char,
                *mut *mut c_char,
            ) -> jint
        );
        let class_f = slot!(
            self,
            65,
            unsafe extern "C" fn(JvmtiEnv, jmethodID, *mut jclass) -> jint
        );
        let lines_f = slot!(
            self,
            70,
            unsafe extern "C" fn(JvmtiEnv, jmethodID, *mut jint, *mut *mut LineEntry) -> jint
        );
        let mut name = ptr::null_mut();
        name_f(
            self.0,
            fr.method,
            &mut name,
            ptr::null_mut(),
            ptr::null_mut(),
        );
        let name = self.take_string(name);
        let mut class = ptr::null_mut();
        class_f(self.0, fr.method, &mut class);
        let class = if class.is_null() {
            String::new()
        } else {
            self.class_name(class).replace('/', ".")
        };
        let (mut n, mut table) = (0, ptr::null_mut());
        let mut line = None;
        if lines_f(self.0, fr.method, &mut n, &mut table) == 0 && !table.is_null() {
            let entries = std::slice::from_raw_parts(table, n.max(0) as usize);
            line = entries
                .iter()
                .filter(|e| e.start_location <= fr.location)
                .max_by_key(|e| e.start_location)
                .map(|e| e.line_number);
            self.deallocate(table.cast());
        }
        match line {
            Some(l) => format!("{class}.{name}(line {l})"),
            None => format!("{class}.{name}"),
        }
    }
}
