//! Settings of the analysis: which contexts methods and objects get, how
//! much of the JDK gets them, and the bounds that keep big programs cheap.
//!
//! Contexts follow Milanova et al.'s object sensitivity as Smaragdakis et
//! al. formulate it ("Pick your contexts well", POPL 2011): an instance
//! method called on object `o` runs in the context made of `o`'s
//! allocation site followed by `o`'s heap context, cut to `k` sites; a
//! static method runs in its caller's context; an object allocated in a
//! method running in context `c` gets the first `heap` sites of `c` as its
//! heap context. `k = 0` is Andersen's context-insensitive analysis.

use std::time::Instant;

/// How methods and objects are told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sensitivity {
    /// One context for everything (Andersen).
    Insensitive,
    /// `k`-object-sensitive with a `heap`-object heap context (`heap < k`
    /// is the usual choice; `heap` is capped at `k`).
    Object { k: u8, heap: u8 },
}

/// Which JDK methods get contexts (application and other library code always does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LibraryContexts {
    /// Every JDK method: most precise, most expensive.
    All,
    /// Only the classes `lockstep_models::keeps_object_contexts` names
    /// (collections, concurrent collections, executors, `Thread`), and only
    /// on receivers that belong to the application (allocated in
    /// application code, or in a method running in a context, or harness
    /// objects); the rest of the JDK, and the JDK's own collections, run
    /// context-insensitively and allocate without heap context.
    Containers,
    /// No JDK method: the JDK is analysed context-insensitively.
    None,
}

/// A budget for one solve (`check --max-time`, `--max-memory`): past
/// `contexts` (or once the process's memory reaches the memory share's
/// first mark), no new method context is created (calls that would need
/// one run in the over-budget context, as over the bounds, callbacks
/// included); past `stop` (or the second mark), the solver stops
/// propagating and returns what it has, short of the fixed point. Either
/// cut is recorded in [`crate::Stats::budget_cut`]. Without a budget
/// nothing is cut and the result is a pure function of its inputs; with
/// one, it depends on the machine's speed and memory use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SolveBudget {
    pub contexts: Option<Instant>,
    pub stop: Option<Instant>,
    pub memory: Option<SolveMemory>,
}

/// The memory share of a [`SolveBudget`]: resident bytes past which no new
/// context is made (`contexts_at`) and the solve stops (`stop_at`), as
/// `probe` reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SolveMemory {
    pub probe: MemoryProbe,
    pub contexts_at: u64,
    pub stop_at: u64,
}

/// Reads the process's resident memory in bytes (`None` where it cannot be
/// read). The analyses do no I/O: the command line gives the function.
/// Probes compare equal and hash alike whatever function they hold (a
/// budget's identity is its marks, not how memory is measured).
#[derive(Clone, Copy)]
pub struct MemoryProbe(pub fn() -> Option<u64>);

impl MemoryProbe {
    /// The resident memory now, in bytes.
    pub fn read(self) -> Option<u64> {
        (self.0)()
    }
}

impl std::fmt::Debug for MemoryProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemoryProbe")
    }
}

impl PartialEq for MemoryProbe {
    fn eq(&self, _: &MemoryProbe) -> bool {
        true
    }
}

impl Eq for MemoryProbe {}

impl std::hash::Hash for MemoryProbe {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// Settings of [`crate::PointsTo::solve`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Config {
    pub sensitivity: Sensitivity,
    pub library: LibraryContexts,
    /// Once a method has this many contexts, calls that would give it a new
    /// one run it in the one over-budget context instead (merging them, apart
    /// from the JDK code analysed without contexts). `None`: no bound.
    /// Neither bound applies to the JDK lock methods that build a lock's
    /// parts (`lockstep_models::builds_lock_parts`): each application lock
    /// keeps a synchronizer and views of its own; nor to the factories and
    /// constructors of `Collections`' synchronized wrappers
    /// (`lockstep_models::builds_synchronized_wrapper`): each wrapper is
    /// named by the object whose method made it. A JDK callback
    /// (`lockstep_models::callbacks`) past a bound, or called from the
    /// over-budget context, runs in a context of its calling method instead
    /// (`SiteKey::OverBudgetCaller`), so callers do not share its copy.
    /// The fallback depends on the order in which contexts appear, which is
    /// fixed, so results stay deterministic.
    pub max_contexts_per_method: Option<u32>,
    /// Once this many method contexts other than the empty one exist, new
    /// ones are merged into the over-budget context too: a bound on the whole
    /// analysis for very large programs (deterministic like the per-method one).
    pub max_contexts: Option<u32>,
    /// Of those, at most this many for JDK methods (containers; not the
    /// methods running in their caller's context, whose copies are the
    /// caller's): the rest of the bound is kept for application code, whose
    /// contexts tell the program's own objects and calls apart, when JDK
    /// containers reached first would otherwise spend it. JDK contexts over
    /// this share run in the over-budget context too. `None`: no share.
    pub max_library_contexts: Option<u32>,
    /// A JDK method that runs in its caller's context
    /// (`lockstep_models::callbacks`), called from the over-budget context
    /// on an object that belongs to the application, runs in that object's
    /// context instead, outside the bounds: the over-budget copy of
    /// `Object.toString` then no longer calls every printed object's
    /// `hashCode`. Off by default: on jgroups it costs 53% more points-to
    /// facts and 2.7× the CPU, and changes no finding on the five measured
    /// programs (BENCHMARKS.md, "Callbacks per receiver").
    pub callbacks_per_receiver: bool,
    /// Constructors of application classes run in their receiver's
    /// context whatever the bounds (as the JDK lock constructors do): over
    /// the per-method bound every object of a class built past it shared
    /// one copy of `<init>`, so each object's fields got every argument of
    /// every construction (hsqldb's `HashSet(int, ObjectComparator)`: every
    /// set's `comparator`). The copies are bounded by the abstract objects
    /// of the class (the heap context bounds those), and `super(..)` and
    /// `this(..)` calls, on the same receiver, get the same context.
    pub constructors_per_object: bool,
    /// Instance methods of application containers (classes holding
    /// references in an array field, and their nested classes) run in
    /// their receiver's context whatever the bounds, like the constructors
    /// above: past the per-method bound one copy of `add` stored every
    /// list's elements into every list's array (hsqldb's `HsqlArrayList`,
    /// `BaseHashMap`). The methods are recognised by their bodies
    /// (`app_containers`). Off by default: on hsqldb it costs 30% more
    /// points-to facts and removes two data races of 3,878; the 350 on
    /// `Expression.dataType` stay (BENCHMARKS.md, "Application containers
    /// past the bound").
    pub containers_per_object: bool,
    /// A call past the context bounds made by a thread task's own method
    /// (a method a modelled thread start enters, or an application
    /// `run()`/`call()`) runs its callee in a context of that calling
    /// method (`SiteKey::OverBudgetCaller`, as the JDK callbacks do)
    /// instead of the one over-budget context every call past the bounds
    /// shares. There a parameter held what every over-budget caller
    /// passed: on hsqldb the checkpoint timer's
    /// `executeCompiledStatement(cs, …)` got the 249 statements of every
    /// session, so the timer "ran" them all (issue 14, cause 5 of
    /// `docs/data-race-sample-2.md`). What those copies allocate keeps the
    /// over-budget heap context, so they multiply no objects.
    pub past_bound_calls_per_caller: bool,
    /// With [`Config::past_bound_calls_per_caller`], a context per calling
    /// method for the calls past the bounds of every application method,
    /// not only of thread tasks. Off: on hsqldb it costs 2.9× the
    /// points-to facts and 14× the CPU (BENCHMARKS.md, "Calls past the
    /// bound from thread tasks").
    pub past_bound_calls_all: bool,
    /// Track thrown and caught objects: one pointer holds every thrown
    /// object, and a handler's variable gets those matching its catch
    /// types. (Per-method exception flow costs about as much as the rest of
    /// the analysis on JDK code and, with exception objects merged per
    /// class, adds little.)
    pub exceptions: bool,
    /// One abstract object per exception class instead of per allocation
    /// site (Doop's default heap abstraction for exceptions): exception
    /// objects rarely matter to concurrency, and the JDK allocates thousands.
    pub merge_exceptions: bool,
    /// JDK methods that run without contexts allocate one abstract object
    /// per type instead of one per site. They run in one context anyway,
    /// so their objects only separate JDK internals from each other; what
    /// the application allocates, and what JDK containers allocate for
    /// application objects, keeps its sites. Types decide dispatch, so the
    /// call graph is unaffected; it is the biggest saving on large programs.
    pub merge_library_objects: bool,
    /// When to stop adding contexts and when to stop solving; `None`: never.
    pub budget: Option<SolveBudget>,
    /// Summarise the non-thread-safe JDK containers (`lockstep_models::
    /// content`) instead of analysing their bytecode: each container
    /// object holds its elements (keys, values) in synthetic fields of its
    /// own whatever the context bounds, views and iterators are objects
    /// per container sharing them, and the calls back into application
    /// code (`hashCode`, `equals`, `compareTo`, comparators, functional
    /// arguments) are made from the container call's site. On by default
    /// since session 19 (BENCHMARKS.md, "JDK container models by default").
    pub container_models: bool,
    /// Variables of one method that always hold the same objects (two
    /// loads of one field from one pointer, a plain copy) share one
    /// pointer (`equal_slots`): the same solution with fewer pointers and
    /// edges (hsqldb: 25% fewer points-to facts, 40% less solving time).
    /// Off only to check that claim (`tests/solvers.rs`).
    pub share_equal_slots: bool,
    /// A container model's call back into the program that passes one
    /// container's contents (its elements' `hashCode` for a set of lists,
    /// `equals` against the keys on a lookup, `compareTo` on a sort, a
    /// functional argument's `accept`) is made once per call site, on what
    /// every container reaching the site holds, not once per container:
    /// the callee's context depends on its receiver object only, so the
    /// solution is the same (`tests/solvers.rs`), but generic code whose
    /// container pointers hold thousands of containers made hundreds of
    /// millions of dispatches (guava 31 `--open`: 655 M, 70 s of a 76 s
    /// check; BENCHMARKS.md, "Container callbacks once per site"). Off
    /// only to check that claim.
    pub gather_callback_contents: bool,
}

impl Default for Config {
    /// 2-object-sensitive with a 1-object heap context; JDK classes outside
    /// containers and threads context-insensitive; at most 16 contexts per
    /// method and 10,000 in all. No separate JDK share: measured on h2 and
    /// jgroups (BENCHMARKS.md, "Context budget"), the JDK takes a quarter of
    /// the bound and capping it changes next to nothing.
    fn default() -> Config {
        Config {
            sensitivity: Sensitivity::Object { k: 2, heap: 1 },
            library: LibraryContexts::Containers,
            max_contexts_per_method: Some(16),
            max_contexts: Some(10_000),
            max_library_contexts: None,
            callbacks_per_receiver: false,
            constructors_per_object: true,
            containers_per_object: false,
            past_bound_calls_per_caller: true,
            past_bound_calls_all: false,
            exceptions: true,
            merge_exceptions: true,
            merge_library_objects: true,
            budget: None,
            container_models: true,
            share_equal_slots: true,
            gather_callback_contents: true,
        }
    }
}

impl Config {
    /// Context-insensitive (Andersen): the cheap setting for very large programs.
    pub fn insensitive() -> Config {
        Config {
            sensitivity: Sensitivity::Insensitive,
            library: LibraryContexts::None,
            max_contexts_per_method: None,
            max_contexts: None,
            max_library_contexts: None,
            callbacks_per_receiver: false,
            constructors_per_object: true,
            containers_per_object: false,
            past_bound_calls_per_caller: false,
            past_bound_calls_all: false,
            exceptions: true,
            merge_exceptions: true,
            merge_library_objects: true,
            budget: None,
            container_models: true,
            share_equal_slots: true,
            gather_callback_contents: true,
        }
    }

    /// `k`-object-sensitive with a `heap`-object heap context everywhere,
    /// JDK included, without a bound on contexts.
    pub fn object(k: u8, heap: u8) -> Config {
        Config {
            sensitivity: Sensitivity::Object { k, heap },
            library: LibraryContexts::All,
            max_contexts_per_method: None,
            max_contexts: None,
            max_library_contexts: None,
            callbacks_per_receiver: false,
            constructors_per_object: true,
            containers_per_object: false,
            past_bound_calls_per_caller: false,
            past_bound_calls_all: false,
            exceptions: true,
            merge_exceptions: true,
            merge_library_objects: true,
            budget: None,
            container_models: true,
            share_equal_slots: true,
            gather_callback_contents: true,
        }
    }

    /// The context depth `k` and heap depth (both 0 when insensitive).
    pub fn depths(&self) -> (usize, usize) {
        match self.sensitivity {
            Sensitivity::Insensitive => (0, 0),
            Sensitivity::Object { k, heap } => (k as usize, heap.min(k) as usize),
        }
    }

    /// A short description for statistics and benchmark tables.
    pub fn describe(&self) -> String {
        let (k, h) = self.depths();
        let mut s = if k == 0 {
            "insensitive".to_string()
        } else {
            format!("{k}-obj/{h}-heap")
        };
        if k > 0 {
            s.push_str(match self.library {
                LibraryContexts::All => ", JDK with contexts",
                LibraryContexts::Containers => ", JDK containers with contexts",
                LibraryContexts::None => ", JDK without contexts",
            });
            if let Some(n) = self.max_contexts_per_method {
                s.push_str(&format!(", ≤{n} contexts/method"));
            }
            if let Some(n) = self.max_contexts {
                s.push_str(&format!(", ≤{n} contexts"));
            }
            if let Some(n) = self.max_library_contexts {
                s.push_str(&format!(" (≤{n} of them JDK)"));
            }
        }
        if self.callbacks_per_receiver {
            s.push_str(", callbacks per receiver");
        }
        if k > 0 && !self.constructors_per_object {
            s.push_str(", constructors within the bounds");
        }
        if k > 0 && self.containers_per_object {
            s.push_str(", application containers per object");
        }
        if !self.container_models {
            s.push_str(", no container models");
        }
        if !self.share_equal_slots {
            s.push_str(", a pointer per variable");
        }
        if !self.gather_callback_contents {
            s.push_str(", container callbacks per container");
        }
        if !self.exceptions {
            s.push_str(", no exceptions");
        }
        if !self.merge_library_objects {
            s.push_str(", JDK objects per site");
        }
        if !self.merge_exceptions {
            s.push_str(", exception objects per site");
        }
        s
    }
}
