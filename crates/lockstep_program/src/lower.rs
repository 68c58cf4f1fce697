//! The one place that calls the IR lowering, so the rest of the crate
//! sees lowering failures as plain messages.
//!
//! Each thread keeps one `Lowerer` so scratch buffers are reused across the
//! many methods a call-graph build lowers (rayon workers and the caller
//! alike). Its interner only holds class names, bounded by the program.

use std::cell::RefCell;

use lockstep_classfile::{ClassFile, MethodInfo};
use lockstep_ir::{Body, Lowerer};

thread_local! {
    static LOWERER: RefCell<Lowerer> = RefCell::new(Lowerer::new());
}

pub(crate) fn lower(class: &ClassFile, method: &MethodInfo) -> Result<Body, String> {
    LOWERER
        .with(|l| match l.try_borrow_mut() {
            Ok(mut lowerer) => lowerer.lower_method(class, method),
            // Re-entrant use (cannot happen today): use a fresh lowerer.
            Err(_) => Lowerer::new().lower_method(class, method),
        })
        .map_err(|e| e.to_string())
}
