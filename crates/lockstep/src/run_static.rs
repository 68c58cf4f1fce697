//! `lockstep run --static` and `--evidence-for`: the static half of a run.
//!
//! `--static PATHS`: before the program starts, the data-race facts of the
//! static analysis (closed mode from the program's mains, or open for a
//! library; every class judged, `--open-every-class`) say which field and
//! array access instructions can never be part of a race. Those go to the
//! agent as a guidance file (`lockstep_instrument::guidance`) and get no
//! probe (paper 004 §9). What counts as proven, so the run's checkers lose
//! nothing they could report:
//!
//! - the method is reached from a thread root of the analysis (code the
//!   analysis never saw, reflection say, keeps every probe), and in every
//!   context it is reached in, the accessed object is one the program
//!   allocates (an empty points-to set, or an object made inside the
//!   library, which the race facts do not track as shared, is no proof);
//! - no statement at that bytecode offset is in a racing pair (the facts'
//!   `racy` set: every pair without a common lock, a declared guard or a
//!   start/join order);
//! - an instance field that resolves, is not `volatile` (a volatile access
//!   is a synchronization event of the happens-before checker) and whose
//!   class is not `@Immutable`/`@NotThreadSafe` (promises, not proofs), or
//!   an array element; static fields always keep their probes (their reads
//!   order the reader after class initialization);
//! - with the block-based or serializability checkers, which judge
//!   lock-protected accesses too, only accesses no other thread can see
//!   (outside every bucket of shared accesses).
//!
//! With an atomicity checker, the methods `non-atomic-method` proves atomic
//! at every call site are listed too: their entry and exit are no
//! transaction boundary in the run. The guidance is cached between runs
//! (`crate::guidance_cache`).
//!
//! `--evidence-for PATHS`: the static check of those classes (rules
//! `data-race`, `deadlock` and `non-atomic-method`), its findings marked
//! with the run's trace as `check --evidence` does. Both flags share one
//! loaded workspace when they name the same paths.

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use lockstep_detectors::{Options, RuleId, RuleSet};
use lockstep_driver::{CheckSettings, Inputs, Quiet, Workspace};
use lockstep_facts::accesses::FieldTable;
use lockstep_instrument::Guidance;
use lockstep_ir::{MemberRef, Operand, Rvalue, StmtId, StmtKind};
use lockstep_pointsto::{ContextId, PointsToResult, SiteKey};
use lockstep_program::{MethodId, Program};
use lockstep_report::Report;

use crate::args::RunArgs;

/// What the static analysis left out of the run.
#[derive(Debug, Default)]
pub struct GuidanceStats {
    /// Instance-field and array access instructions in reached methods.
    pub accesses: usize,
    /// Of those, proven race-free and left without a probe.
    pub skipped: usize,
    /// Methods proven atomic (listed only for the atomicity checkers).
    pub atomic: usize,
    /// Methods whose monitor events the checkers do not need
    /// ([`crate::elide_monitors`]; only without an atomicity checker).
    pub monitors: usize,
}

/// What the run's checkers need from the guidance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuideFor {
    /// Keep every access other threads can see (block-based and
    /// serializability checkers).
    pub shared_kept: bool,
    /// List the methods proven atomic (any atomicity checker).
    pub atomic: bool,
    /// List the methods whose monitors need no events (only the race and
    /// deadlock checkers run: the reductions read every acquire and
    /// release).
    pub monitors: bool,
}

impl GuideFor {
    /// The guidance the checkers of `args` need.
    pub fn of(args: &RunArgs) -> GuideFor {
        let spec = crate::args::atomic_spec(&args.atomicity, &args.atomic);
        let atomic =
            spec.blocks || spec.serializability || spec.reduction_online || spec.reduction_offline;
        GuideFor {
            shared_kept: spec.blocks || spec.serializability,
            atomic,
            monitors: !atomic,
        }
    }

    /// The options as the cache key names them.
    fn key(self) -> String {
        format!(
            "shared_kept={} atomic={} monitors={}",
            self.shared_kept, self.atomic, self.monitors
        )
    }
}

/// The libraries of a run: the `java` command's class path (`-cp`,
/// `-classpath`, `--class-path`, `-jar`), less the application `paths`.
fn libraries(paths: &[PathBuf], jvm_args: &[OsString]) -> Vec<PathBuf> {
    java_classpath(jvm_args)
        .into_iter()
        .filter(|p| !paths.contains(p))
        .collect()
}

/// Loads `paths` as the application, the `java` command's class path
/// less `paths` as libraries.
pub fn load(paths: &[PathBuf], jvm_args: &[OsString]) -> Result<Workspace, String> {
    let classpath = libraries(paths, jvm_args);
    Workspace::load(&Inputs {
        paths: paths.to_vec(),
        classpath,
        jdk: None,
        no_jdk: false,
    })
    .map_err(|e| format!("--static/--evidence-for: {e}"))
}

/// The class-path entries of a `java` command line.
pub fn java_classpath(jvm_args: &[OsString]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut args = jvm_args.iter().map(|a| a.to_string_lossy());
    while let Some(a) = args.next() {
        match &*a {
            "-cp" | "-classpath" | "--class-path" => {
                if let Some(v) = args.next() {
                    out.extend(v.split(':').filter(|s| !s.is_empty()).map(PathBuf::from));
                }
            }
            "-jar" => {
                out.extend(args.next().map(|v| PathBuf::from(&*v)));
                break;
            }
            // The main class: the rest are the program's arguments.
            s if !s.starts_with('-') => break,
            _ => {}
        }
    }
    out
}

fn settings(rules: RuleSet) -> CheckSettings {
    CheckSettings {
        rules,
        options: Options {
            // Open programs: every class's pairs, not only those of classes
            // meant for concurrent use (a dropped pair is not a proof).
            open_every_class: true,
            ..Options::default()
        },
        ..CheckSettings::default()
    }
}

/// The guidance of `--static` for the checkers of `want`.
pub fn guidance(ws: &Workspace, want: GuideFor) -> (Guidance, GuidanceStats) {
    let mut rules = RuleSet::empty();
    rules.insert(RuleId::DataRace);
    ws.with_context(&settings(rules), &mut Quiet, |s| {
        let program = s.context.program;
        let races = s.context.facts.races();
        let mut kept: HashSet<(MethodId, StmtId)> = races.racy.iter().copied().collect();
        if want.shared_kept {
            let shared = races.buckets.values().flatten();
            kept.extend(shared.map(|a| (a.method, a.stmt)));
        }
        // The contexts each method is reached in.
        let mut contexts: BTreeMap<MethodId, Vec<ContextId>> = BTreeMap::new();
        for (node, roots) in races.graph.nodes.iter().zip(&races.reach) {
            if !roots.is_empty() {
                contexts.entry(node.method).or_default().push(node.context);
            }
        }
        let mut cx = GuideCx {
            program,
            pt: s.context.facts.points_to(),
            kept,
            fields: FieldTable::default(),
        };
        let mut g = Guidance::default();
        let mut stats = GuidanceStats::default();
        for (m, ctxs) in &contexts {
            stats.accesses += cx.guide_method(*m, ctxs, &mut g);
        }
        if want.atomic {
            for m in s.proven_atomic_methods() {
                let data = program.method(m);
                let class = &program.class(data.class).name;
                g.atomic_method(class, &data.name, &data.descriptor);
            }
        }
        if want.monitors {
            stats.monitors = crate::elide_monitors::elide(program, cx.pt, &contexts, &mut g);
        }
        stats.skipped = g.len();
        stats.atomic = g.atomic_len();
        (g, stats)
    })
}

/// What deciding one method's accesses needs.
struct GuideCx<'a> {
    program: &'a Program,
    pt: &'a PointsToResult,
    /// Access statements that stay probed whatever else holds.
    kept: HashSet<(MethodId, StmtId)>,
    fields: FieldTable,
}

impl GuideCx<'_> {
    /// Adds the race-free access instructions of `m` (reached in
    /// `contexts`) to `g`; returns how many access instructions `m` has.
    fn guide_method(&mut self, m: MethodId, contexts: &[ContextId], g: &mut Guidance) -> usize {
        let program = self.program;
        let data = program.method(m);
        if !program.is_application(data.class) {
            return 0;
        }
        let Some(body) = program.body(m) else {
            return 0;
        };
        // Per offset: may it be skipped? (`jsr` copies repeat offsets:
        // every copy must be race-free.)
        let mut by_pc: BTreeMap<u32, bool> = BTreeMap::new();
        for (i, stmt) in body.stmts.iter().enumerate() {
            let Some((base, field)) = access_of(&stmt.kind) else {
                continue;
            };
            let proven = !self.kept.contains(&(m, StmtId(i as u32)))
                && field.is_none_or(|f| self.plain_field(f))
                && contexts.iter().all(|&c| self.known_objects(m, c, base));
            *by_pc.entry(stmt.pc).or_insert(true) &= proven;
        }
        let class = &program.class(data.class).name;
        for (&pc, _) in by_pc.iter().filter(|(_, &skip)| skip) {
            g.skip_access(class, &data.name, &data.descriptor, pc);
        }
        by_pc.len()
    }

    /// A field that resolves, is not volatile and whose class makes no
    /// promise (`@Immutable`, `@NotThreadSafe`) in place of a proof.
    fn plain_field(&mut self, f: &MemberRef) -> bool {
        self.fields
            .facts(self.program, f)
            .is_some_and(|f| !f.is_volatile && !f.immutable_class && !f.not_thread_safe_class)
    }

    /// Does the access base point only to objects the program allocates?
    /// An empty set (code the analysis could not see) or an object made
    /// inside the library (which the race facts treat as not shared) is
    /// no proof.
    fn known_objects(&self, m: MethodId, c: ContextId, base: &Operand) -> bool {
        let Some(v) = base.var() else {
            return false;
        };
        let set = self.pt.var_in(m, c, v);
        !set.is_empty()
            && set.iter().all(|o| {
                self.pt
                    .object(o)
                    .is_some_and(|i| !matches!(i.site, SiteKey::Library(_)))
            })
    }
}

/// The base operand and, for a field, the field of an instance-field or
/// array access statement; `None` for any other statement.
fn access_of(kind: &StmtKind) -> Option<(&Operand, Option<&MemberRef>)> {
    match kind {
        StmtKind::Assign {
            value: Rvalue::FieldLoad { object, field },
            ..
        }
        | StmtKind::FieldStore { object, field, .. } => Some((object, Some(field))),
        StmtKind::Assign {
            value: Rvalue::ArrayLoad { array, .. },
            ..
        }
        | StmtKind::ArrayStore { array, .. } => Some((array, None)),
        _ => None,
    }
}

/// What `--static` prepared for the run.
#[derive(Default)]
pub struct Guided {
    /// The guidance file for the agent's `static=` option.
    pub guidance_file: Option<PathBuf>,
    /// The workspace loaded for it, kept for `--evidence-for`.
    workspace: Option<Workspace>,
}

/// `--static`: the guidance (from the cache, or computed by analysing
/// the classes and then cached), written into `scratch`; says on stderr
/// how much it leaves out and whether the cache was used.
pub fn before_run(args: &RunArgs, jvm_args: &[OsString], scratch: &Path) -> Result<Guided, String> {
    if args.static_paths.is_empty() {
        return Ok(Guided::default());
    }
    let want = GuideFor::of(args);
    let entry = cache_entry(args, jvm_args, want);
    let cached = entry
        .as_ref()
        .ok()
        .and_then(|p| crate::guidance_cache::read(p));
    let (text, stats, workspace, how) = match (cached, &entry) {
        (Some((text, stats)), Ok(p)) => (
            text,
            stats,
            None,
            format!("from the cache ({})", p.display()),
        ),
        (_, entry) => {
            let ws = load(&args.static_paths, jvm_args)?;
            let (g, stats) = guidance(&ws, want);
            let text = g.to_text();
            let how = match entry {
                Ok(p) => match crate::guidance_cache::write(p, &text, &stats) {
                    Ok(()) => format!("computed, cached in {}", p.display()),
                    Err(e) => format!("computed, not cached: {e}"),
                },
                Err(why) => format!("computed, not cached: {why}"),
            };
            (text, stats, Some(ws), how)
        }
    };
    let file = scratch.join("guidance.txt");
    std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
    if !args.quiet {
        eprintln!("lockstep: static guidance: {how}");
        eprintln!(
            "lockstep: static guidance: {} of {} field and array access instructions proven race-free, left without probes",
            stats.skipped, stats.accesses
        );
        if want.atomic {
            eprintln!(
                "lockstep: static guidance: {} methods proven atomic, not transactions",
                stats.atomic
            );
        }
        if want.monitors {
            eprintln!(
                "lockstep: static guidance: {} methods lock only monitors the checkers do not need, left without monitor probes",
                stats.monitors
            );
        }
    }
    Ok(Guided {
        guidance_file: Some(file),
        workspace,
    })
}

/// The cache entry of this run's guidance, or why there is none.
fn cache_entry(args: &RunArgs, jvm_args: &[OsString], want: GuideFor) -> Result<PathBuf, String> {
    if crate::guidance_cache::disabled(args.no_cache) {
        return Err("the cache is off (--no-cache or LOCKSTEP_NO_CACHE)".into());
    }
    let classpath = libraries(&args.static_paths, jvm_args);
    let key = crate::guidance_cache::key(&args.static_paths, &classpath, &want.key())?;
    Ok(crate::guidance_cache::entry_path(&key))
}

/// `--evidence-for`: the static findings of those classes marked with the
/// run's trace (the workspace of `--static` when the paths are the same).
pub fn after_run(
    args: &RunArgs,
    jvm_args: &[OsString],
    guided: Guided,
    trace: &Path,
) -> Result<Report, String> {
    let traces = crate::evidence::read_traces(&[trace.to_path_buf()])?;
    let ws = match guided.workspace {
        Some(ws) if args.static_paths == args.evidence_for => ws,
        _ => load(&args.evidence_for, jvm_args)?,
    };
    let mut report = findings(&ws);
    crate::evidence::apply(&mut report, &traces, args.quiet);
    Ok(report)
}

/// The static findings `--evidence-for` marks: `data-race`, `deadlock`
/// and `non-atomic-method` (the rules a run can confirm), closed mode.
pub fn findings(ws: &Workspace) -> Report {
    let mut rules = RuleSet::empty();
    for r in [RuleId::DataRace, RuleId::Deadlock, RuleId::NonAtomicMethod] {
        rules.insert(r);
    }
    let settings = CheckSettings {
        rules,
        ..CheckSettings::default()
    };
    ws.check(&settings, &mut Quiet).report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn class_path_of_a_java_command() {
        let cp = java_classpath(&args(&["-Xmx1g", "-cp", "a.jar:b", "Main", "-cp", "x"]));
        assert_eq!(cp, vec![PathBuf::from("a.jar"), PathBuf::from("b")]);
        let cp = java_classpath(&args(&["-jar", "app.jar", "-cp", "x"]));
        assert_eq!(cp, vec![PathBuf::from("app.jar")]);
        assert!(java_classpath(&args(&["Main"])).is_empty());
    }
}
