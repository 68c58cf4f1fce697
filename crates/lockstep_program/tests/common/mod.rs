//! Shared helpers for the integration tests: the program set-up of
//! `lockstep_testkit_program` (compile Java sources with the testkit,
//! cached; build a `Program` over the JDK) and source-line lookup.

// Each test binary uses a different part of these helpers.
#![allow(dead_code, unused_imports)]

use lockstep_program::{MethodId, Program};
pub use lockstep_testkit_program::{compile_sources, jdk_provider, method, program_of};

/// A program of `(path, text)` sources over the JDK.
pub fn program(sources: &[(&str, &str)]) -> Program {
    program_of(&compile_sources(sources))
}

/// `Class.name` of a method, for readable assertions.
pub fn name(p: &Program, m: MethodId) -> String {
    lockstep_testkit_program::method_name(p, m)
}

/// The 1-based line of the first line of `text` containing `marker`.
pub fn line_of(text: &str, marker: &str) -> u32 {
    text.lines()
        .position(|l| l.contains(marker))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("marker {marker:?} not found"))
}
