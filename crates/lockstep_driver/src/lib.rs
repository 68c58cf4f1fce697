//! lockstep as a library: the one pipeline every front end uses.
//!
//! [`Workspace::load`] reads the application inputs and sets up the
//! lazily-read libraries (JDK, class path); [`Workspace::check`] lowers
//! the application, builds the entry points and the RTA call graph, hands
//! the detectors one [`lockstep_detectors::Context`] whose shared facts
//! (points-to, race facts) are computed at most once, and returns an
//! [`Outcome`]: the normalized report, the explanations asked for, and
//! statistics. The CLI, the debug commands and the test harnesses all go
//! through here.
//!
//! Architecture invariant: the driver reads files only through
//! `lockstep_classpath` and never prints; progress is reported to a
//! [`Progress`] the caller supplies.

mod check;
mod classpaths;
mod load;
mod problems;
mod roots;
mod scope;
mod warnings;

pub use check::{CheckSettings, DetectorTime, Outcome, Session};
pub use load::{problem_of, Inputs, LoadError, Workspace};
pub use roots::StartedThread;

/// Receives the name of each phase as it starts (for progress display and
/// per-phase timing).
pub trait Progress {
    fn phase(&mut self, name: &'static str);
}

/// A [`Progress`] that ignores phases.
pub struct Quiet;

impl Progress for Quiet {
    fn phase(&mut self, _: &'static str) {}
}
