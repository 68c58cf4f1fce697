//! Lowering of JVM bytecode to lockstep's IR.
//!
//! [`ir`] holds the data model. [`lower_method`] / [`lower_class`] (or a
//! reusable [`Lowerer`]) turn a parsed method into a [`Body`]. The passes
//! live in private modules: `flat` (virtual instructions, with `jsr`/`ret`
//! subroutines inlined per call site, see `jsr`), `cfg` (basic blocks),
//! `stack` (stack simulation to three-address code), `split` (local
//! splitting), `types`, `monitors` (monitor regions) and `paths`
//! ([`access_path`]); `lower` drives them. [`validate`] checks a body
//! against the invariants of [`ir`]; [`dump`] renders it as text;
//! [`lower_fuzz_entry`] is the hook for a fuzz target.
//!
//! The crate knows one method at a time: calls stay symbolic, no other class
//! is loaded.
//!
//! No input may make lowering panic: indices derived from the bytecode are
//! checked (`get`, checked arithmetic), and clippy holds the library to it.

#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo
    )
)]

pub mod ir;

mod cfg;
mod desc;
mod dump;
mod error;
mod flat;
mod jsr;
mod lower;
mod monitors;
mod paths;
mod split;
mod stack;
mod types;
mod validate;
mod visit;

pub use desc::simple_class_name;
pub use dump::{dump, render_stmt};
pub use error::LowerError;
pub use ir::*;
pub use lower::{lower_class, lower_method, Lowerer};
pub use paths::{access_path, operand_path};
pub use validate::{validate, validate_structure};

/// Parses `bytes` as a class file and lowers every method, ignoring the
/// results: an entry point for fuzzing (lowering must never panic).
pub fn lower_fuzz_entry(bytes: &[u8]) {
    if let Ok(class) = lockstep_classfile::parse(bytes) {
        let mut lowerer = Lowerer::new();
        for (_, body) in lowerer.lower_class(&class) {
            if let Ok(body) = body {
                let _ = validate(&body);
                let _ = dump(&body);
            }
        }
    }
}
