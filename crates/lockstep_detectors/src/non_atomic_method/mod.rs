//! `non-atomic-method`: a method that should run as one indivisible step
//! lets another thread run in the middle of it (papers 003 and 004:
//! atomicity by Lipton's reduction, with race-free types inferred
//! statically and atomicity types inferred as a least fixed point).
//!
//! - [`atomicity`]: the atomicity lattice and its operations;
//! - [`guards`]: race-free types per field, from the `data-race` facts;
//! - [`declared`]: types discovered from runs (`check --types`), checked
//!   against the same facts, accepted ones replacing the inferred guard;
//! - [`transfer`]: each method's operations and its transfer function;
//! - [`inference`]: the fixed point, and the held locks at every call site;
//! - this module: which methods must be atomic, warnings, clustering, and
//!   the `--explain-atomicity` overview.

pub mod atomicity;
pub mod declared;
pub mod guards;
pub mod inference;
pub mod transfer;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use lockstep_ir::{AccessPath, Body};
use lockstep_pointsto::{ObjectId, PointsToResult};
use lockstep_program::{EdgeKind, MethodId, Program};
use lockstep_report::{Confidence, Finding, Severity};
use rustc_hash::FxHashSet;

use self::atomicity::Basic;
use self::inference::{Inference, Reached};
use self::transfer::{Builder, LockVar, Op, OpKind, Summary, Witness};
use crate::util::{location, position, short_method};
use crate::{Context, Detector, Needs, Output, RuleId, RuleMeta};
use lockstep_facts::annotations::named;
use lockstep_facts::concurrent_intent;
use lockstep_facts::threads::in_loop;

pub static NON_ATOMIC_METHOD: RuleMeta = RuleMeta {
    id: RuleId::NonAtomicMethod,
    name: "NonAtomicMethod",
    summary: "a method that should run as one step lets other threads run between its operations",
    default_enabled: false,
    docs: include_str!("docs.md"),
};

/// The detector.
pub struct NonAtomicMethod;

impl Detector for NonAtomicMethod {
    fn rules(&self) -> &'static [RuleId] {
        &[RuleId::NonAtomicMethod]
    }

    fn needs(&self) -> Needs {
        Needs::RaceFacts
    }

    fn run(&self, cx: &Context<'_>) -> Output {
        if !cx.is_enabled(RuleId::NonAtomicMethod) {
            return Output::default();
        }
        let overview = analyse(cx);
        // The verdicts on declared types are always shown: they are what
        // `--types` asked for.
        let mut explanation = overview.declared.clone();
        if cx.options.explain_atomicity {
            explanation.extend(overview.explain_lines());
        }
        Output {
            stats: overview.stats.lines(),
            explanation,
            findings: overview.findings,
            ..Output::default()
        }
    }
}

/// Why a method must be atomic.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// Annotated `@Atomic`.
    Annotated,
    /// `run()` (or the entry) of a thread's task.
    TaskEntry,
    /// Called directly by a thread's task entry.
    CalledByTask,
    /// `synchronized`, in a class whose instances are shared.
    Synchronized,
    /// Public, in a class whose instances are shared between threads.
    SharedApi,
}

impl Reason {
    fn describe(&self) -> &'static str {
        match self {
            Reason::Annotated => "it is annotated @Atomic",
            Reason::TaskEntry => "it is the entry of a thread's task",
            Reason::CalledByTask => "a thread's task calls it",
            Reason::Synchronized => "it is synchronized",
            Reason::SharedApi => {
                "it is public and its class's instances are shared between threads"
            }
        }
    }
}

/// What `--explain-atomicity` shows about one method.
#[derive(Debug, Clone)]
pub struct MethodVerdict {
    pub method: String,
    pub atomicity: String,
    /// Reached from an entry or a call site.
    pub reached: bool,
    /// Atomic with the locks held at every call site it is reached from.
    pub atomic_everywhere: bool,
    pub must_be_atomic: bool,
}

/// Counts for `--stats` and BENCHMARKS.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub methods: usize,
    pub reached: usize,
    pub atomic_everywhere: usize,
    pub must_be_atomic: usize,
    pub warnings_before_clustering: usize,
    pub warnings: usize,
    pub evaluations: usize,
    pub fields: usize,
    /// Time to infer guards and atomicities and report (no I/O; for
    /// `--stats` only; the race facts are timed by the driver).
    pub inference_time: std::time::Duration,
}

impl Stats {
    /// Percentage of reached methods proven atomic at every call site.
    pub fn atomic_share(&self) -> f64 {
        percent(self.atomic_everywhere, self.reached)
    }

    /// The `--stats` lines.
    pub fn lines(&self) -> Vec<String> {
        vec![
            format!(
                "atomicity: {} of {} reached methods proven atomic at every call site ({:.1}%), {} must be atomic, {} warnings ({} before clustering), {} fields typed, {} method evaluations",
                self.atomic_everywhere,
                self.reached,
                self.atomic_share(),
                self.must_be_atomic,
                self.warnings,
                self.warnings_before_clustering,
                self.fields,
                self.evaluations
            ),
            format!(
                "atomicity time: {:.1} ms guards and atomicity inference",
                self.inference_time.as_secs_f64() * 1000.0
            ),
        ]
    }
}

/// Everything the analysis concluded.
pub struct Overview {
    pub findings: Vec<Finding>,
    /// `pkg.Cls.field` → guard.
    pub fields: Vec<(String, String)>,
    pub methods: Vec<MethodVerdict>,
    pub stats: Stats,
    /// One line per declared type (`check --types`): accepted or refuted.
    pub declared: Vec<String>,
    /// The reached methods proven atomic at every call site, in the
    /// analysis' order (what `lockstep run --static` leaves out of the
    /// transactions).
    pub atomic_methods: Vec<MethodId>,
}

impl Overview {
    /// `--explain-atomicity`: guards, then methods, as text lines.
    pub fn explain_lines(&self) -> Vec<String> {
        let mut lines = vec!["guards (race-free types) of fields:".to_string()];
        for (f, g) in &self.fields {
            lines.push(format!("  {f}: {g}"));
        }
        lines.push("atomicity of methods (reached from a thread or an entry point):".into());
        for m in self.methods.iter().filter(|m| m.reached) {
            let verdict = if m.atomic_everywhere {
                "atomic at every call site"
            } else {
                "NOT atomic at some call site"
            };
            let must = if m.must_be_atomic {
                ", must be atomic"
            } else {
                ""
            };
            lines.push(format!("  {}: {} ({verdict}{must})", m.method, m.atomicity));
        }
        let s = &self.stats;
        lines.push(format!(
            "{} of {} reached methods proven atomic at every call site ({:.0}%)",
            s.atomic_everywhere,
            s.reached,
            s.atomic_share()
        ));
        lines
    }
}

fn percent(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        a as f64 * 100.0 / b as f64
    }
}

/// Runs the whole analysis.
pub fn analyse(cx: &Context<'_>) -> Overview {
    let program = cx.program;
    let pt = cx.facts.points_to();
    let out = cx.facts.races();
    let started = std::time::Instant::now();
    let mut guards = guards::infer(program, pt, &out.buckets, &out.racy);
    let declared_lines = declared::check(
        program,
        pt,
        &out.buckets,
        &cx.options.declared_types,
        &mut guards,
    );
    let mut builder = Builder::new(program, pt, &guards, &out.shared);
    let mut methods = Vec::new();
    for c in program.application_classes() {
        for &m in &program.class(c).methods {
            let d = program.method(m);
            if !d.is_abstract() && !d.is_native() {
                methods.push(m);
            }
        }
    }
    builder.scan_owner_locks(&methods);
    let skeletons: Vec<_> = methods
        .iter()
        .filter_map(|&m| builder.skeleton(m))
        .collect();
    let owned = std::mem::take(&mut builder.owned_fields);
    drop(builder);
    for key in owned {
        if let Some(g @ guards::Guard::ThisThread) = guards.fields.get_mut(&key) {
            *g = guards::Guard::Unique;
        }
    }
    let mut inf = Inference::solve(skeletons);
    let entries = entries(program, pt, &inf);
    inf.propagate(&entries);
    let targets = targets(cx, pt, &out.shared, &inf);

    // Warnings: a must-be-atomic method that is not atomic with the locks
    // held where it is reached.
    let mut warnings: Vec<Warning> = Vec::new();
    for (&i, reason) in &targets {
        let summary = &inf.summaries[i];
        let bad = inf.reach[i]
            .iter()
            .find(|(&mask, _)| !summary.eval_mask(mask).is_atomic());
        let Some((&mask, &how)) = bad else { continue };
        let (label, fix) = label_of(program, pt, &inf, i, mask);
        warnings.push(Warning {
            index: i,
            mask,
            how,
            reason: reason.clone(),
            label,
            fix,
        });
    }
    let before = warnings.len();
    let warnings = cluster(&inf, warnings);

    let mut reporter = Reporter {
        program,
        pt,
        inf: &inf,
        open: cx.open_program(),
    };
    let findings: Vec<Finding> = warnings
        .iter()
        .map(|w| crate::util::readable(reporter.finding(w)))
        .collect();

    // The overview.
    let mut methods = Vec::new();
    let mut stats = Stats {
        methods: inf.skeletons.len(),
        evaluations: inf.evaluations,
        warnings_before_clustering: before,
        warnings: findings.len(),
        must_be_atomic: targets.len(),
        ..Stats::default()
    };
    let mut atomic_methods = Vec::new();
    for (i, sk) in inf.skeletons.iter().enumerate() {
        let summary = &inf.summaries[i];
        let reached = !inf.reach[i].is_empty();
        let atomic_everywhere = inf.reach[i]
            .keys()
            .all(|&mask| summary.eval_mask(mask).is_atomic());
        if reached {
            stats.reached += 1;
            if atomic_everywhere {
                stats.atomic_everywhere += 1;
                atomic_methods.push(sk.method);
            }
        }
        methods.push(MethodVerdict {
            method: crate::util::short_method(program, sk.method),
            atomicity: summary.atom.render(&|v: &LockVar| v.describe()),
            reached,
            atomic_everywhere,
            must_be_atomic: targets.contains_key(&i),
        });
    }
    let fields: Vec<(String, String)> = guards
        .fields
        .iter()
        .map(|((c, n), g)| (format!("{}.{n}", crate::util::dotted(c)), g.describe_in(c)))
        .collect();
    stats.fields = fields.len();
    stats.inference_time = started.elapsed();
    Overview {
        findings,
        fields,
        methods,
        stats,
        declared: declared_lines,
        atomic_methods,
    }
}

/// Methods called with no lock held: harness and thread entries, code
/// the JDK calls back, and reachable methods with no analysed caller.
fn entries(program: &Program, pt: &PointsToResult, inf: &Inference) -> Vec<usize> {
    let cg = pt.call_graph();
    let roots: FxHashSet<MethodId> = pt.entries().methods.iter().copied().collect();
    let mut tasks: FxHashSet<MethodId> = FxHashSet::default();
    for t in pt.thread_starts() {
        for mc in pt.thread_entries(t) {
            tasks.insert(mc.method);
        }
    }
    let mut out = Vec::new();
    for (i, sk) in inf.skeletons.iter().enumerate() {
        let m = sk.method;
        if !cg.is_reachable(m) {
            continue;
        }
        let entry = roots.contains(&m)
            || tasks.contains(&m)
            || inf.callers[i].is_empty()
            || cg.callers(m).any(|e| {
                e.kind == EdgeKind::TaskLaunch
                    || !program.is_application(program.method(e.caller).class)
            });
        if entry {
            out.push(i);
        }
    }
    out
}

/// The methods that must be atomic (slide 27's heuristic, thread tasks,
/// and `@Atomic`).
fn targets(
    cx: &Context<'_>,
    pt: &PointsToResult,
    shared: &[bool],
    inf: &Inference,
) -> BTreeMap<usize, Reason> {
    let program = cx.program;
    // Classes with a shared instance (the object's class and its superclasses).
    let mut shared_classes: FxHashSet<Arc<str>> = FxHashSet::default();
    let mut types: BTreeSet<&str> = BTreeSet::new();
    for o in pt.objects() {
        if shared.get(o.0 as usize).copied().unwrap_or(false) {
            if let Some(info) = pt.object(o) {
                types.insert(info.type_name);
            }
        }
    }
    for t in types {
        let mut cur: Option<Arc<str>> = Some(Arc::from(t));
        let mut depth = 0;
        while let Some(name) = cur {
            depth += 1;
            if depth > 32 || !shared_classes.insert(name.clone()) {
                break;
            }
            cur = program
                .class_by_name(&name)
                .and_then(|c| program.class(c).file.super_class.clone());
        }
    }
    let mut out: BTreeMap<usize, Reason> = BTreeMap::new();
    let mut task_entries: Vec<usize> = Vec::new();
    for t in pt.thread_starts() {
        for mc in pt.thread_entries(t) {
            if let Some(&i) = inf.index.get(&mc.method) {
                task_entries.push(i);
            }
        }
    }
    let mut intent: rustc_hash::FxHashMap<lockstep_program::ClassId, bool> = Default::default();
    for (i, sk) in inf.skeletons.iter().enumerate() {
        let m = sk.method;
        let d = program.method(m);
        let info = program.class(d.class);
        if generated(program, m) || d.is_class_initializer() {
            continue;
        }
        let annotations = info
            .file
            .methods
            .get(d.index)
            .map(|mi| &mi.annotations[..])
            .unwrap_or(&[]);
        if named(annotations, "Atomic").is_some() {
            out.insert(i, Reason::Annotated);
            continue;
        }
        let is_main = d.is_static() && &*d.name == "main";
        if is_main {
            continue;
        }
        let class_shared = shared_classes.contains(&info.name)
            && (cx.facts.settings().every_class
                || *intent.entry(d.class).or_insert_with(|| {
                    concurrent_intent(program, d.class, &mut |_, b| {
                        lockstep_program::takes_lock(program, b)
                    })
                }));
        if d.is_synchronized() && (d.is_static() || class_shared) {
            out.insert(i, Reason::Synchronized);
        } else if class_shared && d.is_public() && !d.is_static() {
            out.insert(i, Reason::SharedApi);
        }
    }
    for &i in &task_entries {
        // A worker loop is a sequence of transactions, not one: the
        // methods it calls are checked instead.
        if !generated(program, inf.skeletons[i].method) && !has_loop(&inf.skeletons[i].body) {
            out.entry(i).or_insert(Reason::TaskEntry);
        }
    }
    for &i in &task_entries {
        for &j in &inf.callees[i] {
            let m = inf.skeletons[j].method;
            if program.method(m).is_constructor() || generated(program, m) {
                continue;
            }
            out.entry(j).or_insert(Reason::CalledByTask);
        }
    }
    out
}

/// Does the body have a loop (a branch back to an earlier block)?
fn has_loop(body: &Body) -> bool {
    body.blocks
        .iter()
        .enumerate()
        .any(|(b, block)| block.succs.iter().any(|s| s.index() <= b))
}

/// Code javac writes, not the developer: bridges, accessors, lambda bodies.
fn generated(program: &Program, m: MethodId) -> bool {
    let d = program.method(m);
    d.is_bridge()
        || d.access_flags & lockstep_classfile::access::SYNTHETIC != 0
        || d.name.starts_with("lambda$")
        || d.name.starts_with("access$")
}

/// What a warning is about, for clustering: the lock whose absence
/// breaks atomicity, or (when no single lock helps) the place of the window.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Lock(Vec<ObjectId>),
    Window(MethodId, lockstep_ir::StmtId),
}

struct Warning {
    index: usize,
    mask: usize,
    how: Reached,
    reason: Reason,
    label: Label,
    /// The lock that, held across the method, would make it atomic.
    fix: Option<String>,
}

fn label_of(
    program: &Program,
    pt: &PointsToResult,
    inf: &Inference,
    i: usize,
    mask: usize,
) -> (Label, Option<String>) {
    let summary = &inf.summaries[i];
    let sk = &inf.skeletons[i];
    for (p, v) in summary.vars.iter().enumerate() {
        let LockVar::Held(path) = v else { continue };
        if mask & (1 << p) != 0 {
            continue;
        }
        if summary.eval_mask(mask | (1 << p)).is_atomic() {
            let mut objs = path_objects(program, pt, sk.method, &sk.body, path);
            objs.sort();
            objs.dedup();
            if !objs.is_empty() {
                return (Label::Lock(objs), Some(path.to_string()));
            }
        }
    }
    let label = match summary.witnesses.get(mask).cloned().flatten() {
        Some(w) => {
            let w = w.innermost();
            Label::Window(w.first.method, w.first.stmt)
        }
        None => Label::Window(sk.method, lockstep_ir::StmtId(0)),
    };
    (label, None)
}

/// The abstract objects a lock path may name in method `m`.
fn path_objects(
    program: &Program,
    pt: &PointsToResult,
    m: MethodId,
    body: &Body,
    p: &AccessPath,
) -> Vec<ObjectId> {
    match p {
        AccessPath::This => body
            .params
            .first()
            .map(|&v| pt.var(m, v).iter().collect())
            .unwrap_or_default(),
        AccessPath::Param(i, _) => {
            let off = usize::from(!body.is_static);
            body.params
                .get(*i as usize + off)
                .map(|&v| pt.var(m, v).iter().collect())
                .unwrap_or_default()
        }
        AccessPath::Static(c, n) => pt.static_field(program, c, n).iter().collect(),
        AccessPath::Field(b, n) | AccessPath::OuterThis(b, n) => {
            let name: &str = if matches!(p, AccessPath::OuterThis(..)) {
                "this$0"
            } else {
                n
            };
            let mut out = Vec::new();
            for o in path_objects(program, pt, m, body, b) {
                for (k, set) in pt.fields_of(o) {
                    if let lockstep_pointsto::FieldKey::Field { name: f, .. } = k {
                        if &**f == name {
                            out.extend(set.iter());
                        }
                    }
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// Most methods one clustering search discovers before it gives up.
const CLUSTER_SEARCH: usize = 20_000;

/// §8: warnings with the same label form clusters along the call graph;
/// only the lowest methods of each are reported.
fn cluster(inf: &Inference, warnings: Vec<Warning>) -> Vec<Warning> {
    let mut groups: BTreeMap<Label, Vec<usize>> = BTreeMap::new();
    for (k, w) in warnings.iter().enumerate() {
        groups.entry(w.label.clone()).or_default().push(k);
    }
    let mut drop: FxHashSet<usize> = FxHashSet::default();
    // Per method: how many of the current `a`'s partners are warnings in it.
    let mut partners = vec![0u32; inf.methods()];
    for members in groups.values() {
        if members.len() < 2 {
            continue;
        }
        for &a in members {
            // `a` goes when what it reaches holds another member still
            // kept: one search for all of them, stopped at the first.
            let others: Vec<usize> = members
                .iter()
                .filter(|&&b| b != a && !drop.contains(&b))
                .map(|&b| warnings[b].index)
                .collect();
            if others.is_empty() {
                continue;
            }
            for &m in &others {
                partners[m] += 1;
            }
            if inf.meets_callee(warnings[a].index, CLUSTER_SEARCH, |m| partners[m] > 0) {
                drop.insert(a);
            }
            for &m in &others {
                partners[m] -= 1;
            }
        }
    }
    warnings
        .into_iter()
        .enumerate()
        .filter(|(k, _)| !drop.contains(k))
        .map(|(_, w)| w)
        .collect()
}

struct Reporter<'a> {
    program: &'a Program,
    pt: &'a PointsToResult,
    inf: &'a Inference,
    /// Library mode: "shared between threads" is then an assumption.
    open: bool,
}

/// A lock variable for messages, without the analysis' notation: a
/// thread-local object is named as such rather than as `thisThread(p)`.
fn lock_var_text(v: &LockVar) -> String {
    match v {
        LockVar::Held(p) => format!("`{p}`"),
        LockVar::Local(p) => format!("`{p}` only when it is not shared"),
    }
}

impl Reporter<'_> {
    /// The finding's confidence (criteria in `docs.md`): high when the
    /// method must be atomic by its author's word (`@Atomic`) or breaks a
    /// `@GuardedBy`; low when it must be atomic only because a library's
    /// public method is assumed to be called from several threads.
    fn confidence(&self, w: &Warning, witness: Option<&Witness>) -> Confidence {
        if matches!(w.reason, Reason::Annotated) || witness.is_some_and(|wt| wt.error) {
            Confidence::High
        } else if self.open && matches!(w.reason, Reason::SharedApi) {
            Confidence::Low
        } else {
            Confidence::Medium
        }
    }

    fn op_text(&self, op: &OpKind) -> String {
        match op {
            OpKind::Read(f) => format!("reads `{f}`"),
            OpKind::Write(f) => format!("writes `{f}`"),
            OpKind::Call(m) => format!("calls `{m}()`"),
            OpKind::Acquire(l) => format!("acquires `{l}`"),
            OpKind::Release(l) => format!("releases `{l}`"),
        }
    }

    /// One operation, with where the window lies inside it.
    fn op_long(&self, op: &Op) -> String {
        let mut text = self.op_text(&op.kind);
        if let Some(inner) = &op.inner {
            let w = inner.innermost();
            text.push_str(&format!(
                ", which {} then {} in {}",
                self.op_text(&w.first.kind),
                self.op_text(&w.second.kind),
                short_method(self.program, w.first.method)
            ));
        }
        text
    }

    fn finding(&mut self, w: &Warning) -> Finding {
        let p = self.program;
        let sk = &self.inf.skeletons[w.index];
        let summary: &Summary = &self.inf.summaries[w.index];
        let m = sk.method;
        let witness: Option<Arc<Witness>> = summary.witnesses.get(w.mask).cloned().flatten();
        let basic = summary.eval_mask(w.mask);
        let name = short_method(p, m);
        let (message, stmt) = match &witness {
            Some(wt) if wt.error => (
                format!(
                    "`{name}` breaks its locking discipline: it {} without the lock its field's @GuardedBy names",
                    self.op_long(&wt.second)
                ),
                Some(wt.second.stmt),
            ),
            Some(wt) if wt.first.stmt == wt.second.stmt && wt.first.inner.is_some() => (
                format!(
                    "`{name}` is not atomic: it {}; another thread can run in between",
                    self.op_long(&wt.first)
                ),
                Some(wt.first.stmt),
            ),
            Some(wt) if wt.first.stmt == wt.second.stmt => {
                let why = if matches!(wt.first.kind, OpKind::Read(_)) && basic == Basic::Cmpd
                    && !in_loop(&sk.body, wt.first.stmt)
                {
                    "; a `long` or `double` read without the lock may see half of a write".to_string()
                } else {
                    " in a loop; another thread can run between the iterations".to_string()
                };
                (format!("`{name}` is not atomic: it {}{why}", self.op_text(&wt.first.kind)), Some(wt.first.stmt))
            }
            Some(wt) if matches!((&wt.first.kind, &wt.second.kind), (OpKind::Acquire(a), OpKind::Acquire(b)) if a == b) => (
                format!(
                    "`{name}` is not atomic: it {}, releases it, then acquires it again; another thread can take it in between",
                    self.op_text(&wt.first.kind)
                ),
                Some(wt.first.stmt),
            ),
            Some(wt) => (
                format!(
                    "`{name}` is not atomic: it {} then {}; another thread can run in between",
                    self.op_text(&wt.first.kind),
                    self.op_text(&wt.second.kind)
                ),
                Some(wt.first.stmt),
            ),
            None => (
                format!("`{name}` is not atomic: another thread can run between its operations on shared state"),
                None,
            ),
        };
        let mut f = Finding::new(
            NON_ATOMIC_METHOD.id,
            Severity::Warning,
            message,
            location(p, m, stmt),
        );
        if let Some(wt) = &witness {
            if wt.error {
                f = f.with_related(
                    location(p, m, Some(wt.second.stmt)),
                    format!("unguarded: {}", self.op_long(&wt.second)),
                );
            } else if wt.first.stmt == wt.second.stmt {
                // One operation that is not atomic by itself (a torn read,
                // a non-atomic callee) or that a loop repeats.
                f = f.with_related(
                    location(p, m, Some(wt.first.stmt)),
                    format!(
                        "not atomic by itself or when repeated: {}",
                        self.op_long(&wt.first)
                    ),
                );
            } else {
                f = f.with_related(
                    location(p, m, Some(wt.first.stmt)),
                    format!("before the window: {}", self.op_long(&wt.first)),
                );
                f = f.with_related(
                    location(p, m, Some(wt.second.stmt)),
                    format!("after the window: {}", self.op_long(&wt.second)),
                );
            }
        }
        f = f.with_confidence(self.confidence(w, witness.as_deref()));
        f = f.with_note(format!("must be atomic because {}", w.reason.describe()));
        match w.how {
            Reached::Entry => {
                f = f.with_note("not atomic when called with no lock held".to_string());
            }
            Reached::Call(c, s, caller_mask) => {
                let caller = self.inf.skeletons[c].method;
                let cs = &self.inf.summaries[c];
                let held: Vec<String> = cs
                    .vars
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| caller_mask & (1 << k) != 0)
                    .map(|(_, v)| lock_var_text(v))
                    .collect();
                let held = if held.is_empty() {
                    String::new()
                } else {
                    format!(" (its callers hold {})", held.join(", "))
                };
                f = f.with_note(format!(
                    "not atomic where {} calls it ({}){held}",
                    short_method(p, caller),
                    position(p, caller, Some(s))
                ));
            }
        }
        if let (Some(fix), Label::Lock(objs)) = (&w.fix, &w.label) {
            let what = objs
                .first()
                .map(|o| format!(" ({})", crate::util::object_text(p, self.pt, *o)))
                .unwrap_or_default();
            f = f.with_note(format!(
                "holding `{fix}`{what} across the method would make it atomic"
            ));
        }
        f.with_help("hold one lock across the operations (a synchronized block around both), or replace them with one operation of a thread-safe type")
    }
}
