//! `ClassFileLoadHook`: which classes are rewritten, and registering what
//! the rewriter created.

use std::ffi::{c_char, c_uchar, CStr};
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use jni_sys::{jclass, jint, jobject, JNIEnv};

use crate::jvmti::JvmtiEnv;
use crate::state::{lock, ClassEntry, FieldFlags, ProbeTable, Recorder, RECORDER};
use crate::READY;

/// The next free probe id; held while a class is rewritten so ids are
/// handed out in one block per class.
static NEXT_PROBE: Mutex<u32> = Mutex::new(0);

use lockstep_instrument::never_instrumented;

fn matches(name: &str, pattern: &str) -> bool {
    if pattern.ends_with('/') {
        name.starts_with(pattern)
    } else {
        name == pattern
            || name
                .strip_prefix(pattern)
                .is_some_and(|rest| rest.starts_with('/'))
    }
}

/// Is `name` an application class to record?
pub(crate) fn wanted(r: &Recorder, name: &str) -> bool {
    if never_instrumented(name) {
        return false;
    }
    if !r.options.include.is_empty() && !r.options.include.iter().any(|p| matches(name, p)) {
        return false;
    }
    !r.options.exclude.iter().any(|p| matches(name, p))
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "system" fn class_file_load_hook(
    _j: JvmtiEnv,
    _env: *mut JNIEnv,
    redefined: jclass,
    loader: jobject,
    name: *const c_char,
    _pd: jobject,
    len: jint,
    data: *const c_uchar,
    new_len: *mut jint,
    new_data: *mut *mut c_uchar,
) {
    if !READY.load(Ordering::Acquire)
        || name.is_null()
        || loader.is_null()
        || !redefined.is_null()
        || data.is_null()
    {
        return;
    }
    let Some(r) = RECORDER.get() else { return };
    let name = CStr::from_ptr(name).to_string_lossy();
    if never_instrumented(&name) {
        return;
    }
    let bytes = std::slice::from_raw_parts(data, len.max(0) as usize);
    let result = std::panic::catch_unwind(|| rewrite(r, &name, bytes));
    let Ok(Some(out)) = result else {
        if result.is_err() {
            r.note(&format!(
                "{name}: the rewriter panicked; class loaded unchanged"
            ));
        }
        return;
    };
    let p = r.jvmti.allocate(out.len());
    if p.is_null() {
        return;
    }
    std::ptr::copy_nonoverlapping(out.as_ptr(), p, out.len());
    *new_len = out.len() as jint;
    *new_data = p;
}

fn remember_class(
    r: &Recorder,
    class: &str,
    super_class: Option<String>,
    fields: Vec<FieldFlags>,
    id_field: bool,
) {
    lock(&r.tables).class_entries.insert(
        class.to_owned(),
        ClassEntry {
            super_class,
            fields,
            id_field,
        },
    );
}

fn rewrite(r: &Recorder, name: &str, bytes: &[u8]) -> Option<Vec<u8>> {
    if !wanted(r, name) {
        // Still learn its fields, so references through subclasses resolve.
        if let Ok(c) =
            lockstep_classfile::parse_with(bytes, &lockstep_classfile::ParseOptions::index_only())
        {
            let fields = c
                .fields
                .iter()
                .map(|f| FieldFlags {
                    name: f.name.to_string(),
                    descriptor: f.descriptor.to_string(),
                    is_volatile: f.access_flags & 0x0040 != 0,
                    is_final: f.access_flags & 0x0010 != 0,
                })
                .collect();
            remember_class(r, name, c.super_class.map(|s| s.to_string()), fields, false);
        }
        return None;
    }
    let mut next = lock(&NEXT_PROBE);
    let result = lockstep_instrument::instrument_guided(
        bytes,
        *next,
        &r.options.instrument,
        &r.options.guidance,
    );
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            r.note(&format!("{name}: not instrumented: {e}"));
            return None;
        }
    };
    let fields = out
        .fields
        .iter()
        .map(|f| FieldFlags {
            name: f.name.clone(),
            descriptor: f.descriptor.clone(),
            is_volatile: f.is_volatile,
            is_final: f.is_final,
        })
        .collect();
    let count = out.probes.len() as u32;
    let fits = next.saturating_add(count) <= ProbeTable::capacity();
    // Recorded before the class is defined, so no instance exists yet.
    remember_class(
        r,
        &out.class,
        out.super_class.clone(),
        fields,
        fits && out.id_field,
    );
    for n in &out.notes {
        r.note(n);
    }
    if !fits {
        r.note(&format!("{name}: probe table full; class loaded unchanged"));
        return None;
    }
    r.remember_method_flags(&out.class, &out.methods);
    r.register_probes(*next, &out.probes);
    *next += count;
    out.bytes
}
