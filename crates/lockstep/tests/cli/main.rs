//! End-to-end tests of the `lockstep` binary: the bundled example in every
//! output format, every kind of input, damaged inputs, determinism, rule
//! selection, the auxiliary commands, the hidden debug commands and the
//! README's Maven recipe (needs `scripts/install-test-deps.sh`).
//!
//! Fixtures are compiled with javac through `lockstep_testkit` (cached by
//! content). Runs that need the JDK's call graph take seconds in a debug
//! build, so most tests use `--no-jdk`; the example is analysed with the
//! JDK once and shared (`common::example_json_with_jdk`).

mod budget;
mod common;
mod determinism;
mod example;
mod inputs;
mod java_classpaths;
mod living_with_findings;
mod loud;
mod malformed;
mod maven;
mod messages;
mod options;
mod rules_debug;
mod sources;
