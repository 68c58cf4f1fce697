//! The program model of lockstep: which classes there are, how calls
//! resolve and what is reachable.
//!
//! - [`Program`]: application classes (parsed, handed over by the caller)
//!   plus library classes loaded lazily through a [`ClassProvider`];
//!   hierarchy queries, JVMS method resolution and virtual dispatch; method
//!   bodies lowered to IR on first use and cached.
//! - [`entry_points`]: `main` methods, or the open-program harness.
//! - [`cha`] / [`rta`]: call graphs over application and reached library
//!   code, with lambdas and modelled thread starts.
//!
//! Thread roots are not computed here: the shared facts
//! (`lockstep_facts::threads`) find them from points-to, one notion for
//! every rule.
//!
//! The crate knows nothing of the file system (bytes come through the
//! provider) nor of any detector; library semantics come from
//! `lockstep_models`.

mod arena;
pub mod boundary;
pub mod callgraph;
pub mod cfg;
pub mod entry;
mod hierarchy;
pub mod lambda;
pub mod lock_calls;
mod lower;
pub mod program;
pub mod provider;
pub mod reach_profile;
mod tasks;
mod window;
mod wrappers;

use std::fmt;

pub use boundary::callback_calls;
pub use callgraph::{
    cha, edges_at, edges_from, rta, Algorithm, CallEdge, CallGraph, CallGraphStats, CalleeIndex,
    EdgeKind, LambdaSite, TaskStartSite,
};
pub use entry::{
    entry_points, has_annotation, is_injected, shows_concurrent_use, takes_lock, EntryMode,
    EntryPoints, Scope,
};
pub use lambda::{decode_lambda, LambdaShape};
pub use lock_calls::{call_effect, juc_effect, lock_call, LockCall, LockWrappers, Wrapper};
pub use program::{
    ClassId, ClassInfo, LowerStats, MethodData, MethodId, Problem, Program, ProgramStats,
};
pub use provider::{ClassProvider, NoLibrary};
pub use reach_profile::{package_of, reach_by_package, PackageReach};

/// Everything `--stats` prints about the program model.
#[derive(Debug, Clone)]
pub struct Stats {
    pub program: ProgramStats,
    pub entry_mode: Option<EntryMode>,
    pub cha: Option<CallGraphStats>,
    pub rta: Option<CallGraphStats>,
}

impl Stats {
    pub fn collect(program: &Program, cha: Option<&CallGraph>, rta: Option<&CallGraph>) -> Stats {
        Stats {
            program: program.stats(),
            entry_mode: rta.or(cha).map(|g| g.entries.mode),
            cha: cha.map(CallGraph::stats),
            rta: rta.map(CallGraph::stats),
        }
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.program;
        writeln!(
            f,
            "classes: {} application, {} library loaded",
            p.application_classes, p.library_classes
        )?;
        writeln!(
            f,
            "methods: {} loaded, {} bodies lowered ({} statements), {} lowering failures",
            p.methods, p.bodies_lowered, p.statements_lowered, p.lowering_failures
        )?;
        if let Some(mode) = self.entry_mode {
            writeln!(f, "entry points: {}", mode.describe())?;
        }
        for g in [self.cha, self.rta].into_iter().flatten() {
            writeln!(
                f,
                "{:?}: {} entries, {} reachable methods, {} call edges, {} live classes, {} lambda sites, {} unresolved calls, {} ms",
                g.algorithm,
                g.entries,
                g.reachable,
                g.edges,
                g.live_classes,
                g.lambda_sites,
                g.unresolved_calls,
                g.millis
            )?;
        }
        write!(f, "problems: {}", p.problems)
    }
}
