//! Which code blocks are transactions (paper 003, slide 27's heuristic) and
//! the run cut into transaction instances.
//!
//! A method is a transaction when it is public or `synchronized` and its
//! class's objects were used by several threads in this run (a field of one
//! was accessed by two threads, or one was locked by two threads, or a
//! static field of the class was shared, or two threads ran its methods), when it is annotated `@Atomic`
//! (any package; the method record's flags), or when it matches a
//! `--atomic` pattern ([`AtomicSpec::patterns`]; the hook where methods the
//! static `non-atomic-method` rule wants atomic can be added too).
//! Constructors, class initializers, `main`, thread bodies (`run`) and
//! compiler-made methods (`lambda$…`, `access$…`) never are by default. A
//! trace whose method records carry no flags (older recorders) counts every
//! method of a shared class.
//!
//! Nested transactions count once: a transaction opens at the outermost
//! entry of a transaction method and closes at its exit. Every access made
//! outside a transaction is a unary transaction of its own: it can
//! interfere with transactions but is never reported.

use lockstep_trace::{method_flags, Method, MethodId, Tables};

use crate::atomic_log::{AtomicLog, LogKind};
use crate::context::Tid;
use crate::fast_hash::{FastMap, FastSet};
use crate::race::VarKind;

/// Which atomicity checkers run, and the extra transactions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AtomicSpec {
    /// Reduction with the on-line classification (slide 17).
    pub reduction_online: bool,
    /// Reduction with the off-line classification (slide 17).
    pub reduction_offline: bool,
    /// 1v/2v blocks, pairwise and multi-transaction (slides 18–24).
    pub blocks: bool,
    /// Conflict serializability of the observed run (Velodrome-style).
    pub serializability: bool,
    /// `pkg.Class.method` patterns (`*` matches any run of characters)
    /// naming more transactions.
    pub patterns: Vec<String>,
}

impl AtomicSpec {
    /// Every checker, no patterns.
    pub fn all() -> Self {
        AtomicSpec {
            reduction_online: true,
            reduction_offline: true,
            blocks: true,
            serializability: true,
            patterns: Vec::new(),
        }
    }

    /// Is any checker on?
    pub fn any(&self) -> bool {
        self.reduction_online || self.reduction_offline || self.blocks || self.serializability
    }
}

/// One transaction instance: a thread's events from the outermost entry of
/// a transaction method to its exit, or one access outside any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Txn {
    /// The thread.
    pub thread: Tid,
    /// The method; `None` for a unary transaction.
    pub method: Option<MethodId>,
    /// Indices into the log, in program order.
    pub events: Vec<u32>,
}

/// Is `m` a transaction by default when its class is shared (paper 003's
/// heuristic: public or `synchronized`, and not a constructor, class
/// initializer, entry point or compiler-made method)?
fn transaction_by_default(m: &Method) -> bool {
    let name = m.name.as_str();
    let excluded = matches!(name, "<init>" | "<clinit>" | "main" | "run")
        || name.starts_with("lambda$")
        || name.starts_with("access$");
    let visible = m
        .flags
        .is_none_or(|f| f & (method_flags::PUBLIC | method_flags::SYNCHRONIZED) != 0);
    visible && !excluded
}

fn annotated_atomic(m: &Method) -> bool {
    m.flags.is_some_and(|f| f & method_flags::ATOMIC != 0)
}

/// Internal class names (`pkg/Cls`) whose objects or statics were used by
/// several threads in the run.
pub fn shared_classes<'t>(log: &AtomicLog, tables: &'t Tables) -> FastSet<&'t str> {
    let object_class = |obj| tables.objects.get(&obj).map(|o| o.class.as_str());
    let mut out = FastSet::default();
    for shadow in log.vars.iter().flatten().filter(|s| s.shared()) {
        let class = match shadow.var.kind() {
            VarKind::Field(_) if shadow.var.obj != 0 => object_class(shadow.var.obj),
            VarKind::Field(f) => tables.fields.get(&f).map(|fd| fd.class.as_str()),
            VarKind::Element(_) | VarKind::Container => None,
        };
        out.extend(class);
    }
    for (&lock, users) in &log.lock_users {
        if users.is_none() {
            out.extend(object_class(lock));
        }
    }
    out.extend(classes_entered_by_several_threads(log, tables));
    out
}

/// Classes with methods entered by two threads or more. A class whose
/// state is all `final` (a `final` map, say) has no field access in the
/// trace (final fields are not recorded) and may take no lock, yet two
/// threads running its methods use one of its objects or its statics.
fn classes_entered_by_several_threads<'t>(log: &AtomicLog, tables: &'t Tables) -> Vec<&'t str> {
    let mut first: FastMap<&'t str, Option<Tid>> = FastMap::default();
    for e in &log.events {
        let LogKind::Enter(m) = e.kind else {
            continue;
        };
        let Some(method) = tables.methods.get(&m) else {
            continue;
        };
        let seen = first.entry(method.class.as_str()).or_insert(Some(e.thread));
        if *seen != Some(e.thread) {
            *seen = None;
        }
    }
    let mut out: Vec<&str> = first
        .into_iter()
        .filter(|(_, t)| t.is_none())
        .map(|(c, _)| c)
        .collect();
    out.sort_unstable();
    out
}

/// The transaction methods of the trace's method table.
pub fn transaction_methods(
    log: &AtomicLog,
    tables: &Tables,
    spec: &AtomicSpec,
) -> FastSet<MethodId> {
    let shared = shared_classes(log, tables);
    tables
        .methods
        .iter()
        .filter(|(_, m)| {
            let by_pattern = || {
                let full = format!("{}.{}", m.class.replace('/', "."), m.name);
                spec.patterns
                    .iter()
                    .any(|p| lockstep_report::glob_matches(p, &full))
            };
            (shared.contains(m.class.as_str()) && transaction_by_default(m))
                || annotated_atomic(m)
                || by_pattern()
        })
        .map(|(&id, _)| id)
        .collect()
}

/// Per thread: the open transaction and the call depth.
#[derive(Debug, Default)]
struct Cut {
    depth: u32,
    open: Option<(u32, usize)>,
}

/// Cuts the log into transactions (outermost transaction methods) and
/// unary transactions (accesses and lock events outside any), in the
/// order they open. Also gives each log event its transaction.
pub fn split(log: &AtomicLog, methods: &FastSet<MethodId>) -> (Vec<Txn>, Vec<u32>) {
    let mut txns: Vec<Txn> = Vec::new();
    let mut of_event = vec![u32::MAX; log.events.len()];
    let mut cuts: FastMap<Tid, Cut> = FastMap::default();
    for (i, e) in log.events.iter().enumerate() {
        let cut = cuts.entry(e.thread).or_default();
        let mut close = false;
        match e.kind {
            LogKind::Enter(m) => {
                cut.depth = cut.depth.saturating_add(1);
                if cut.open.is_none() && methods.contains(&m) {
                    cut.open = Some((cut.depth, txns.len()));
                    txns.push(Txn {
                        thread: e.thread,
                        method: Some(m),
                        events: Vec::new(),
                    });
                }
            }
            LogKind::Exit(_) => {
                close = matches!(cut.open, Some((d, _)) if d == cut.depth);
                cut.depth = cut.depth.saturating_sub(1);
            }
            _ => {}
        }
        let index = match cut.open {
            Some((_, t)) => t,
            None if matches!(e.kind, LogKind::Enter(_) | LogKind::Exit(_)) => continue,
            None => {
                txns.push(Txn {
                    thread: e.thread,
                    method: None,
                    events: Vec::new(),
                });
                txns.len() - 1
            }
        };
        txns[index].events.push(i as u32);
        of_event[i] = index as u32;
        if close {
            cut.open = None;
        }
    }
    (txns, of_event)
}
