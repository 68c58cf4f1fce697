//! Points-to analysis for lockstep: which abstract objects each reference
//! may denote, with the call graph refined by it.
//!
//! Andersen-style (inclusion-based) and field-sensitive: an abstract object
//! is an allocation site with a heap context; every object has one pointer
//! per field, arrays one for all their elements (paper 002 §3.2.5); static
//! fields are global pointers. Object-sensitive by default (2-object
//! contexts, 1-object heap contexts; paper 002 §3.2.7–3.2.8 explains why a
//! race detector needs it: an insensitive analysis merges every `this`).
//! The call graph is built on the fly: virtual calls dispatch on the
//! receiver's objects, lambdas run their implementation method on the
//! values they captured, modelled thread starts (`Thread.start`,
//! executors: `lockstep_models`) run the task's entry method on the task
//! object, so thread objects and static fields are roots of what is
//! shared.
//!
//! - [`PointsTo::solve`] runs the fast solver (a worklist with difference
//!   propagation and type masks) and returns a [`PointsToResult`] with the
//!   queries (variables, fields, statics, access paths, aliasing, call
//!   graph per method and per context, contexts, allocation sites, thread
//!   starts, statistics).
//! - [`reference::solve`] is a naive fixed-point solver over the same rules,
//!   kept for tests: the fast solver must produce exactly its result.
//! - [`Config`] chooses the sensitivity and the bounds for big programs.
//! - Each method's template gives one pointer to the variables that always
//!   hold the same objects (`equal_slots`: two loads of one field from
//!   one pointer, plain copies): the same solution with fewer pointers
//!   and edges ([`PointsToResult::canonical_vars`] checks it in tests).
//!
//! What it does not know: reflection, `MethodHandle` and `VarHandle`
//! invocation in general (only the `lockstep_models::heap` models), JNI
//! callbacks, serialization, the elements of task collections given to
//! `invokeAll`, thread starts inside the JDK (as RTA), objects a native
//! method returns beyond one object of its declared type. Values from
//! outside the analysed code are abstract objects, one per declaration
//! (`external`): instance methods entered by the library harness run on
//! one harness object per class; every reference parameter of an entry
//! holds an external object of its own declaration and declared type
//! (harness arguments of different parameters do not alias, nor with
//! anything the program allocates, unless the analysed code stores one
//! where the other is read); a reference field of an application class
//! that no analysed code stores into (set by reflection, deserialization,
//! an injector) or that is annotated `@Inject`, `@Autowired` or
//! `@Resource` holds an external object of its declared type, so calls,
//! locks and container accesses through it are seen.
//!
//! Invariants: no panic on any input (unresolvable classes and methods,
//! missing bodies and malformed descriptors are skipped or made opaque);
//! the result is a pure function of program, entry points and
//! configuration (one thread; worklists in first-seen order; parallel
//! lowering only warms the body cache); the call edges are a subset of
//! RTA's, except, with [`Config::container_models`] (the default), the
//! container models' calls back into the program (a key's `hashCode`, a
//! comparator, a functional argument), which leave from the container
//! call's own site (RTA's edge from that site enters the JDK method that
//! would make them), and calls on the models' iterators and entries,
//! whose edge goes to the interface method they name (`Iterator.next`;
//! RTA's go to the JDK's iterator classes); no I/O.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo
    )
)]

mod app_containers;
mod breakdown;
mod config;
mod equal_slots;
mod external;
mod facts;
mod filters;
mod hybrid;
mod ids;
mod initializers;
mod intern;
mod keys;
mod pts;
mod raw;
pub mod reference;
mod result;
mod rules;
mod solver;
mod tables;
mod types;

pub use breakdown::PackageFacts;
pub use config::{Config, LibraryContexts, MemoryProbe, Sensitivity, SolveBudget, SolveMemory};
pub use keys::{alloc_type, FieldKey, SiteKey};
pub use result::{
    AllocInfo, BudgetCut, CanonObj, CanonPtr, Canonical, ContextCallEdge, ContextId, MethodContext,
    ObjectId, ObjectInfo, ObjectSet, PointsToResult, PtaCallGraph, Stats, ThreadStart,
};

use lockstep_program::{EntryPoints, Program};

/// The analysis' entry point.
pub struct PointsTo;

impl PointsTo {
    /// Solves points-to for the part of `program` reachable from `entries`.
    /// Library classes load lazily as the analysis reaches them.
    pub fn solve(program: &Program, entries: &EntryPoints, config: Config) -> PointsToResult {
        let raw = solver::Solver::new(program, config).solve(entries);
        PointsToResult::new(raw, config)
    }
}
