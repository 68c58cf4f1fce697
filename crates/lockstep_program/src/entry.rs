//! Entry points: where execution of the analysed program may begin.
//!
//! One model for any input. Every `public static void main(String[])` of
//! an application class starts a program (with the static initializers
//! that run first, which the call graph adds by itself). What no main
//! reaches (by RTA from the mains) in classes with concurrent intent is
//! analysed as a library in the same run: its entry methods are driven by
//! an open-program harness, "any caller", repeatedly and concurrently
//! (paper 002 §4.5.3). Unreached classes without concurrent intent are
//! skipped (in an open program their unlocked accesses are not reported
//! either, and entering them cost jfreechart minutes instead of seconds).
//! Without a main, or with `--open`, the whole application is a library.
//!
//! The library harness enters, in each application class:
//! - every public or protected method (constructors included) of a public
//!   class — the paper's harness;
//! - every non-private method of a class with *concurrent intent*,
//!   whatever the class's visibility: annotated `@ThreadSafe`, taking a
//!   lock (`synchronized`, a `java.util.concurrent` lock), holding a
//!   volatile, atomic or concurrent field, or reached from a thread the
//!   program starts (package-private classes are used by the public ones
//!   and by their own threads, so a client reaches them);
//! - every `<clinit>`.
//!
//! `@ThreadSafe` classes are entries in every mode: their non-private
//! methods are harness entries when no main reaches them, and thread
//! roots of their own (any caller) in the contexts a main reaches them in
//! (`lockstep_facts`). Abstract and native methods have no body and are
//! never entries.
//!
//! This module does not decide how often entries run; the thread-root
//! analysis treats every harness entry as callable repeatedly and
//! concurrently, and the mains as one thread each.

use std::collections::BTreeSet;

use lockstep_classfile::{access, Annotation};
use lockstep_ir::{Body, StmtKind};

use crate::callgraph::{rta, CallGraph, EdgeKind};
use crate::program::{ClassId, MethodId, Program};

/// Which harness produced the entry points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryMode {
    /// The `main` methods of the application reach every class with code
    /// (and `@ThreadSafe` classes, if any, are entered by the harness).
    Main,
    /// The `main` methods, plus the library harness for what they do not reach.
    MainAndLibrary,
    /// The library harness for every class, because it was asked for.
    Open,
    /// Like `Open`, because no application class has a `main` method.
    OpenNoMain,
}

impl EntryMode {
    /// Is the whole program a library (no main thread)?
    pub fn is_open(self) -> bool {
        matches!(self, EntryMode::Open | EntryMode::OpenNoMain)
    }

    pub fn describe(self) -> &'static str {
        match self {
            EntryMode::Main => "main methods",
            EntryMode::MainAndLibrary => {
                "main methods, and the library harness for what no main reaches"
            }
            EntryMode::Open => "open program (the library harness for every class)",
            EntryMode::OpenNoMain => {
                "open program (no main method found: the library harness for every class)"
            }
        }
    }
}

/// What the entry points cover, for the summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scope {
    /// `main` methods (each one program).
    pub mains: usize,
    /// Application classes with a method a main reaches (by RTA).
    pub program_classes: usize,
    /// Application classes no main reaches with a harness entry other
    /// than their static initializer.
    pub library_classes: usize,
}

/// Entry points and the mode that chose them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoints {
    pub mode: EntryMode,
    /// Every entry, sorted by id (application classes are numbered in
    /// name order, so this is class-name order, then class-file order).
    pub methods: Vec<MethodId>,
    /// The entries of the library harness ("any caller", repeatedly and
    /// concurrently), sorted; a subset of `methods`. All of them in open
    /// modes; the rest of `methods` are mains.
    pub harness: Vec<MethodId>,
    pub scope: Scope,
}

impl EntryPoints {
    /// Custom entry points (tests, or a CLI option naming methods): all
    /// harness entries in open modes, all mains otherwise.
    pub fn from_methods(mode: EntryMode, mut methods: Vec<MethodId>) -> EntryPoints {
        methods.sort_unstable();
        methods.dedup();
        let harness = if mode.is_open() {
            methods.clone()
        } else {
            Vec::new()
        };
        EntryPoints {
            mode,
            methods,
            harness,
            scope: Scope::default(),
        }
    }

    /// Is `m` entered by the library harness (rather than being a main)?
    pub fn is_harness(&self, m: MethodId) -> bool {
        self.harness.binary_search(&m).is_ok()
    }

    /// The entries that are mains (not harness entries), sorted.
    pub fn mains(&self) -> impl Iterator<Item = MethodId> + '_ {
        self.methods
            .iter()
            .copied()
            .filter(|&m| !self.is_harness(m))
    }
}

const MAIN_DESC: &str = "([Ljava/lang/String;)V";

/// The entry points of `program`: its `main` methods and the library
/// harness for what they do not reach; the library harness for every
/// class when `open` is asked for or there is no main.
pub fn entry_points(program: &Program, open: bool) -> EntryPoints {
    let mains = main_methods(program);
    if open || mains.is_empty() {
        return library_entry_points(program, open);
    }
    let from_mains = rta(
        program,
        &EntryPoints::from_methods(EntryMode::Main, mains.clone()),
    );
    let threaded = thread_reached_classes(program, &from_mains);
    let mut harness = Vec::new();
    let mut library_classes = 0;
    let mut program_classes = 0;
    for c in program.application_classes() {
        let reached = program
            .class(c)
            .methods
            .iter()
            .any(|&m| from_mains.is_reachable(m));
        program_classes += usize::from(reached);
        let intent = is_thread_safe_class(program, c)
            || threaded.contains(&c)
            || concurrent_intent(program, c);
        if !intent {
            // Its unlocked accesses would not be reported (as in an open
            // program), and entering it costs like analysing a library.
            continue;
        }
        let before = harness.len();
        // What a main reaches runs in the main's contexts; the thread-root
        // analysis makes reached methods of `@ThreadSafe` classes roots there.
        harness.extend(
            library_entries(program, c, intent)
                .into_iter()
                .filter(|&m| !from_mains.is_reachable(m)),
        );
        let entered = harness[before..]
            .iter()
            .any(|&m| !program.method(m).is_class_initializer());
        library_classes += usize::from(entered && !reached);
    }
    harness.sort_unstable();
    harness.dedup();
    let mode = if harness.is_empty() {
        EntryMode::Main
    } else {
        EntryMode::MainAndLibrary
    };
    let mut methods = mains.clone();
    methods.extend(harness.iter().copied());
    methods.sort_unstable();
    methods.dedup();
    EntryPoints {
        mode,
        methods,
        harness,
        scope: Scope {
            mains: mains.len(),
            program_classes,
            library_classes,
        },
    }
}

/// The library harness for every application class. Concurrent intent
/// by thread starts is judged on the call graph of the paper's harness
/// (public methods of public classes).
fn library_entry_points(program: &Program, open: bool) -> EntryPoints {
    let mode = if open {
        EntryMode::Open
    } else {
        EntryMode::OpenNoMain
    };
    let public: Vec<MethodId> = program
        .application_classes()
        .flat_map(|c| library_entries(program, c, false))
        .collect();
    let threaded = thread_reached_classes(
        program,
        &rta(program, &EntryPoints::from_methods(mode, public)),
    );
    let mut methods = Vec::new();
    let mut library_classes = 0;
    for c in program.application_classes() {
        let intent = threaded.contains(&c) || concurrent_intent(program, c);
        let before = methods.len();
        methods.extend(library_entries(program, c, intent));
        let entered = methods[before..]
            .iter()
            .any(|&m| !program.method(m).is_class_initializer());
        library_classes += usize::from(entered);
    }
    let mut entries = EntryPoints::from_methods(mode, methods);
    entries.scope.library_classes = library_classes;
    entries
}

/// `public static void main(String[])` of application classes.
fn main_methods(program: &Program) -> Vec<MethodId> {
    program
        .application_classes()
        .filter_map(|c| program.class(c).declared_method("main", MAIN_DESC))
        .filter(|&m| {
            let md = program.method(m);
            md.is_static() && md.is_public()
        })
        .collect()
}

/// The harness entries of class `c`: its `<clinit>`, and its public and
/// protected methods when the class is public, or every non-private
/// method when the class shows concurrent intent. Never a compiler-made
/// accessor (`access$000`: synthetic, not a bridge): only the class's own
/// nest calls it, in the places the source shows (often under a lock the
/// accessor does not take itself).
fn library_entries(program: &Program, c: ClassId, intent: bool) -> Vec<MethodId> {
    let info = program.class(c);
    info.methods
        .iter()
        .copied()
        .filter(|&m| {
            let md = program.method(m);
            let accessor = md.access_flags & access::SYNTHETIC != 0 && !md.is_bridge();
            if md.is_abstract() || md.is_native() || accessor {
                return false;
            }
            let visible = info.is_public() && (md.is_public() || md.is_protected());
            let intended = intent && !md.is_private();
            md.is_class_initializer() || visible || intended
        })
        .collect()
}

/// Is the annotation list holding one of this simple name (any package,
/// so jcip's, JSR 305's and Error Prone's `@ThreadSafe` all count)?
pub fn has_annotation(annotations: &[Annotation], simple_name: &str) -> bool {
    annotations.iter().any(|a| {
        let d = a.type_descriptor.trim_end_matches(';');
        d.rsplit('/').next().map(|s| s.trim_start_matches('L')) == Some(simple_name)
    })
}

/// Annotations of dependency injection: a field carrying one gets its
/// value from outside the analysed code (`@Inject`, `@Autowired`, `@Resource`).
pub fn is_injected(annotations: &[Annotation]) -> bool {
    ["Inject", "Autowired", "Resource"]
        .iter()
        .any(|n| has_annotation(annotations, n))
}

fn is_thread_safe_class(program: &Program, c: ClassId) -> bool {
    has_annotation(&program.class(c).file.annotations, "ThreadSafe")
}

/// Does the code of a class show it is meant for concurrent use: a
/// `volatile` or `java.util.concurrent` field, a `synchronized` method or
/// block, or a call that takes a `java.util.concurrent` lock? (Thread
/// reachability and `@ThreadSafe` are judged by the callers.)
fn concurrent_intent(program: &Program, c: ClassId) -> bool {
    shows_concurrent_use(program, c, &mut |_, b| takes_lock(program, b))
}

/// Signs in a class's own declarations and code that it is meant for
/// concurrent use: a `volatile` or concurrent field, a `synchronized`
/// method, a monitor, or a body in which `takes_lock` finds a lock
/// acquisition (callers decide how to look for one).
pub fn shows_concurrent_use(
    program: &Program,
    c: ClassId,
    takes_lock: &mut dyn FnMut(MethodId, &Body) -> bool,
) -> bool {
    let info = program.class(c);
    let concurrent_field = info.file.fields.iter().any(|f| {
        f.access_flags & access::VOLATILE != 0
            || lockstep_models::is_concurrent_field_type(&f.descriptor)
    });
    concurrent_field
        || info.methods.iter().any(|&m| {
            program.method(m).is_synchronized()
                || program
                    .body(m)
                    .is_some_and(|b| !b.monitors.is_empty() || takes_lock(m, &b))
        })
}

/// Does the body call a modelled lock acquisition (`lock()` of a
/// `java.util.concurrent` lock or one of its views)?
pub fn takes_lock(program: &Program, body: &Body) -> bool {
    body.stmts.iter().any(|s| match &s.kind {
        StmtKind::Invoke { call, .. } => matches!(
            crate::lock_calls::call_effect(program, &call.method),
            Some(lockstep_models::LockEffect::Lock(_))
        ),
        _ => false,
    })
}

/// Application classes with a method that a modelled thread start of the
/// call graph runs (its task entries and what they call).
fn thread_reached_classes(program: &Program, cg: &CallGraph) -> BTreeSet<ClassId> {
    let mut seen: BTreeSet<MethodId> = BTreeSet::new();
    let mut todo: Vec<MethodId> = cg
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::TaskLaunch)
        .map(|e| e.callee)
        .collect();
    while let Some(m) = todo.pop() {
        if !seen.insert(m) {
            continue;
        }
        todo.extend(
            cg.callees(m)
                .iter()
                .map(|e| e.callee)
                .filter(|c| !seen.contains(c)),
        );
    }
    seen.into_iter()
        .map(|m| program.method(m).class)
        .filter(|&c| program.is_application(c))
        .collect()
}
