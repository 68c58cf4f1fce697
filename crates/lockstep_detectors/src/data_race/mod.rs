//! `data-race`: two threads may access the same memory location at the
//! same time, at least one access writes, and no common lock orders them
//! (paper 002's pipeline, with object-sensitive points-to,
//! `java.util.concurrent` locks, thread escape and start/join ordering).
//!
//! - [`threads`]: thread roots, what they reach, which run more than once,
//!   start/join ordering;
//! - [`local_locks`]: the locks a body must hold before each statement;
//! - [`locks`]: those locks as abstract objects per context, and locks
//!   held on entry to every method context;
//! - [`accesses`]: the field, array and container accesses of application
//!   code, and the ones that cannot race;
//! - [`annotations`]: `@GuardedBy`, `@ThreadSafe`, `@NotThreadSafe`, `@Immutable`;
//! - [`analysis`]: escape, per-context accesses and the racing pairs;
//! - this module: the rule and its findings.
//!
//! Only application code is searched for accesses; JDK code is traversed
//! (callbacks, thread starts, locks of `synchronized` JDK methods) but its
//! own fields are the business of its container and thread-safety models.

use lockstep_facts::accesses::{Kind, Target};
use lockstep_facts::local_locks;
use lockstep_facts::threads::{Graph, Root};
use lockstep_facts::{Access, Memory, Race, RaceFacts, Verdict};
use lockstep_models::LockMode;
use lockstep_pointsto::{ObjectId, PointsToResult};
use lockstep_program::{MethodId, Program};
use lockstep_report::{Confidence, Finding, Flow, Related, Severity};

use crate::util::{location, lock_text, object_text, position, short_method, Frame};
use crate::{Context, Detector, Needs, Output, RuleId, RuleMeta};

pub static DATA_RACE: RuleMeta = RuleMeta {
    id: RuleId::DataRace,
    name: "DataRace",
    summary: "two threads may access a field or array element at the same time, one of them writing, without a common lock",
    default_enabled: false,
    docs: include_str!("docs.md"),
};

/// The detector.
pub struct DataRace;

impl Detector for DataRace {
    fn rules(&self) -> &'static [RuleId] {
        &[RuleId::DataRace]
    }

    fn needs(&self) -> Needs {
        Needs::RaceFacts
    }

    fn run(&self, cx: &Context<'_>) -> Output {
        if !cx.is_enabled(RuleId::DataRace) {
            return Output::default();
        }
        let pt = cx.facts.points_to();
        let facts = cx.facts.races();
        let mut reporter = Reporter {
            program: cx.program,
            pt,
            graph: &facts.graph,
            roots: &facts.roots,
            reach: &facts.reach,
            open: cx.open_program(),
            paths: Default::default(),
            unlocked_paths: Default::default(),
            method_nodes: None,
            site_locks: Default::default(),
        };
        let mut findings = Vec::new();
        let mut skipped = crate::budget::Skipped {
            skipped: 0,
            total: facts.races.len(),
        };
        for r in &facts.races {
            if cx.budget.expired() {
                skipped.skipped += 1;
                continue;
            }
            findings.push(crate::util::readable(reporter.finding(r)));
        }
        let explanation = match &cx.options.explain_field {
            Some(field) => explain(cx.program, facts, field),
            None => Vec::new(),
        };
        Output {
            findings,
            explanation,
            cuts: skipped
                .cut(RuleId::DataRace, "racing accesses not reported")
                .into_iter()
                .collect(),
            ..Output::default()
        }
    }
}

/// `--explain FIELD`: every pair of accesses of the field with the
/// verdict, and the accesses that were set aside, as text lines.
fn explain(p: &Program, facts: &RaceFacts, field: &str) -> Vec<String> {
    let Some(ex) = &facts.explanation else {
        return Vec::new();
    };
    let at = |memory: Memory, m: MethodId, s: lockstep_ir::StmtId, k: Kind| {
        format!(
            "{} in {} ({})",
            access_text(memory, k),
            short_method(p, m),
            position(p, m, Some(s))
        )
    };
    let mut lines = vec![format!("accesses of `{field}`:")];
    if ex.pairs.is_empty() && ex.exempt.is_empty() {
        lines.push("  none reached from a thread root".into());
    }
    for pair in &ex.pairs {
        let (first, second) = (pair.first, pair.second);
        lines.push(format!(
            "  {} / {}: {}",
            at(pair.memory, first.0, first.1, first.2),
            at(pair.memory, second.0, second.1, second.2),
            verdict_text(&pair.verdict)
        ));
    }
    for (memory, m, s, k, why) in &ex.exempt {
        lines.push(format!("  {}: cannot race: {why}", at(*memory, *m, *s, *k)));
    }
    for chain in &ex.escapes {
        lines.push(format!("  shared object: {chain}"));
    }
    lines
}

/// `read`, `write`, or what an access does to the array or container the
/// field holds (the wording of findings on them).
fn access_text(memory: Memory, k: Kind) -> &'static str {
    match (memory, k) {
        (Memory::Field, k) => k.as_str(),
        (Memory::Elements, Kind::Read) => "read of an element",
        (Memory::Elements, Kind::Write) => "write of an element",
        (Memory::Contents, Kind::Read) => "read of the contents",
        (Memory::Contents, Kind::Write) => "modification of the contents",
    }
}

fn verdict_text(v: &Verdict) -> String {
    match v {
        Verdict::Race => "RACE".to_string(),
        Verdict::CommonLock(l) => format!("safe: both hold {l}"),
        Verdict::GuardedBy => "safe: both hold the lock named by @GuardedBy".into(),
        Verdict::NotConcurrent => {
            "safe: never run by two threads at once (same thread, or ordered by start/join)".into()
        }
        Verdict::NoCommonObject => "safe: no common object".into(),
        Verdict::OnceGate => {
            "safe: both run past one once-gate (a flag tested and set under a lock)".into()
        }
        Verdict::HandedOver => {
            "safe: one runs before the object's queue put, the other through the value a take returned".into()
        }
        Verdict::NoIntent => {
            "not reported: concurrent only through an assumed outside caller, and nothing shows the field or either method is meant for concurrent use (no access of it holds a lock, neither method takes a lock, no @GuardedBy or @ThreadSafe)".into()
        }
    }
}

struct Reporter<'a> {
    program: &'a Program,
    pt: &'a PointsToResult,
    graph: &'a Graph,
    roots: &'a [Root],
    /// Per node, the roots that reach it (the race facts' `reach`).
    reach: &'a [Vec<u32>],
    open: bool,
    /// BFS parents per root, computed as far as asked.
    paths: std::collections::HashMap<u32, LazyBfs>,
    /// The same, through call sites where the caller holds no lock.
    unlocked_paths: std::collections::HashMap<u32, LazyBfs>,
    /// The nodes of each method, for [`Reporter::node_of_root`] (built on
    /// first use).
    method_nodes: Option<std::collections::HashMap<MethodId, Vec<u32>>>,
    /// Locks each application body holds, for [`Reporter::site_locked`].
    site_locks: std::cell::RefCell<
        std::collections::HashMap<MethodId, Option<std::sync::Arc<local_locks::BodyLocks>>>,
    >,
}

use crate::util::LazyBfs;

impl Reporter<'_> {
    fn root_label(&self, r: u32) -> String {
        crate::util::root_label(self.program, self.pt, self.roots, self.open, r)
    }

    /// How the code of `node` names the lock it holds at statement
    /// `site`, with where: "`synchronized (session)` in
    /// Command.executeUpdate (Command.java:252)". `None` when it holds none.
    fn lock_at(&self, node: u32, site: lockstep_ir::StmtId) -> Option<String> {
        if !self.site_locked(node, site) {
            return None;
        }
        let m = self.graph.nodes[node as usize].method;
        let place = format!(
            "{} ({})",
            short_method(self.program, m),
            position(self.program, m, Some(site))
        );
        if !self.program.is_application(self.program.method(m).class) {
            return Some(format!("the monitor of the synchronized {place}"));
        }
        let body = self.program.body(m)?;
        let locks = self.site_locks.borrow().get(&m).cloned().flatten()?;
        let named = locks.at(site).last()?;
        let name = named.display(&body);
        Some(match named {
            local_locks::LocalLock::SyncMethod => {
                format!("the monitor of the synchronized {place}")
            }
            local_locks::LocalLock::Monitor { .. } => format!("`synchronized ({name})` in {place}"),
            local_locks::LocalLock::Juc { path, mode, .. } => {
                let lock = path.to_string();
                let lock = lock.strip_prefix("this.").unwrap_or(&lock);
                match mode {
                    LockMode::Read => format!("the read lock of `{lock}`, taken in {place}"),
                    LockMode::Write => format!("the write lock of `{lock}`, taken in {place}"),
                    _ => format!("the lock `{lock}`, taken in {place}"),
                }
            }
        })
    }

    /// A lock `a` runs under that is not among the locks identified for
    /// it: when it holds no identified lock, yet its own statement is
    /// inside a lock region of its method, or every call path from its
    /// root (`r`) passes a call made under a lock (the call nearest to the
    /// access is named). The lock is there, but which object it is could
    /// not be told apart (a monitor on an object of many possible
    /// allocations): it may or may not be the lock of the other access.
    fn unidentified_lock(&mut self, r: u32, node: u32, a: &Access) -> Option<String> {
        if !a.locks.is_empty() {
            return None;
        }
        if let Some(own) = self.lock_at(node, a.stmt) {
            return Some(own);
        }
        let key = if self.open { u32::MAX } else { r };
        let graph = self.graph;
        let mut bfs = self
            .unlocked_paths
            .remove(&key)
            .unwrap_or_else(|| LazyBfs::new(graph, &self.sources(r)));
        let unlocked = bfs.reach(graph, node, |n, site| self.site_locked(n, site));
        self.unlocked_paths.insert(key, bfs);
        if unlocked {
            return None;
        }
        // From the access up to the root: the nearest call under a lock.
        self.hops_to(r, node)
            .into_iter()
            .find_map(|(up, site)| self.lock_at(up, site))
    }

    /// `node`, or, when root `r` does not reach it, the first node of the
    /// same method that `r` reaches (in node order): an access stands for
    /// its statement in every context, and its root may reach the method
    /// in another context than the node the access was kept with. The
    /// path and the enclosing locks shown are then ones the root runs.
    fn node_of_root(&mut self, r: u32, node: u32) -> u32 {
        let reaches = |n: u32| self.reach.get(n as usize).is_some_and(|rs| rs.contains(&r));
        if self.open || reaches(node) {
            return node;
        }
        let graph = self.graph;
        let index = self.method_nodes.get_or_insert_with(|| {
            let mut by_method: std::collections::HashMap<MethodId, Vec<u32>> =
                std::collections::HashMap::new();
            for (i, n) in graph.nodes.iter().enumerate() {
                by_method.entry(n.method).or_default().push(i as u32);
            }
            by_method
        });
        let method = graph.nodes[node as usize].method;
        let reach = self.reach;
        index
            .get(&method)
            .and_then(|nodes| {
                nodes
                    .iter()
                    .copied()
                    .find(|&n| reach.get(n as usize).is_some_and(|rs| rs.contains(&r)))
            })
            .unwrap_or(node)
    }

    /// The calls (caller node, call site) on the shortest path from root
    /// `r` to `node`, nearest to `node` first.
    fn hops_to(&mut self, r: u32, node: u32) -> Vec<(u32, lockstep_ir::StmtId)> {
        let key = if self.open { u32::MAX } else { r };
        if !self.paths.contains_key(&key) {
            let bfs = LazyBfs::new(self.graph, &self.sources(r));
            self.paths.insert(key, bfs);
        }
        let Some(bfs) = self.paths.get_mut(&key) else {
            return Vec::new();
        };
        if !bfs.reach(self.graph, node, |_, _| false) {
            return Vec::new();
        }
        let parents = bfs.parents();
        let mut hops = Vec::new();
        let mut cur = node;
        // Bounded: parents form a tree, but a damaged one must not loop.
        for _ in 0..=64 {
            match parents.get(cur as usize).copied() {
                Some(Some((up, site))) if up != u32::MAX => {
                    hops.push((up, site));
                    cur = up;
                }
                _ => break,
            }
        }
        hops
    }

    /// Does the code of `node` hold a lock of its own at call site `site`?
    fn site_locked(&self, node: u32, site: lockstep_ir::StmtId) -> bool {
        let m = self.graph.nodes[node as usize].method;
        let data = self.program.method(m);
        if !self.program.is_application(data.class) {
            return data.is_synchronized();
        }
        let mut cache = self.site_locks.borrow_mut();
        let locks = cache.entry(m).or_insert_with(|| {
            self.program
                .body(m)
                .map(|b| std::sync::Arc::new(local_locks::analyse(self.program, &b)))
        });
        locks.as_ref().is_some_and(|l| !l.at(site).is_empty())
    }

    /// The call path from root `r` to `node`: `A.main (A.java:3) → B.run`.
    /// For an access that holds no lock, a path on which no caller holds
    /// one either is preferred (the path that makes the access unprotected).
    fn path(&mut self, r: u32, node: u32, unlocked: bool) -> Vec<Frame> {
        let key = if self.open { u32::MAX } else { r };
        let graph = self.graph;
        if unlocked {
            // Taken out of the cache while it runs: `cut` reads `self`.
            let mut bfs = self
                .unlocked_paths
                .remove(&key)
                .unwrap_or_else(|| LazyBfs::new(graph, &self.sources(r)));
            let reached = bfs.reach(graph, node, |n, site| self.site_locked(n, site));
            let frames =
                reached.then(|| crate::util::call_frames(self.program, graph, bfs.parents(), node));
            self.unlocked_paths.insert(key, bfs);
            if let Some(frames) = frames {
                return frames;
            }
        }
        if !self.paths.contains_key(&key) {
            let bfs = LazyBfs::new(graph, &self.sources(r));
            self.paths.insert(key, bfs);
        }
        let Some(bfs) = self.paths.get_mut(&key) else {
            return Vec::new();
        };
        bfs.reach(graph, node, |_, _| false);
        crate::util::call_frames(self.program, graph, bfs.parents(), node)
    }

    /// Where the paths of root `r` start: its entries (every root's, in
    /// an open program).
    fn sources(&self, r: u32) -> Vec<u32> {
        if self.open {
            self.roots.iter().flat_map(|x| x.entries.clone()).collect()
        } else {
            self.roots
                .get(r as usize)
                .map(|x| x.entries.clone())
                .unwrap_or_default()
        }
    }

    /// What an access holds, for messages: its identified locks, or the
    /// lock it runs under that was not identified
    /// ([`Reporter::unidentified_lock`]).
    fn held_text(&self, a: &Access, objects: &[ObjectId], unidentified: Option<&str>) -> String {
        match unidentified {
            Some(lock) => format!(
                "no lock known to be shared: it runs under {lock}, on an object that may not be the same for both accesses"
            ),
            None => self.locks_text(a, objects),
        }
    }

    fn locks_text(&self, a: &Access, objects: &[ObjectId]) -> String {
        if a.locks.is_empty() {
            "no lock".to_string()
        } else {
            let names: Vec<String> = crate::util::distinct_locks(self.pt, objects, &a.locks)
                .into_iter()
                .map(|l| lock_text(self.program, self.pt, l))
                .collect();
            names.join(", ")
        }
    }

    /// The name of what races: `pkg.Cls.field`, the field holding an
    /// array or container, or the allocation site.
    fn field_name(&self, r: &Race) -> (String, String) {
        let holder = r.first.holder.clone().or_else(|| r.second.holder.clone());
        match &r.target {
            Target::Field { class, name } | Target::Static { class, name } => {
                let full = format!("{}.{}", crate::util::dotted(class), name);
                let simple = format!("{}.{}", lockstep_ir::simple_class_name(class), name);
                (full, format!("`{simple}`"))
            }
            Target::Element | Target::Container => {
                let what = if r.target == Target::Element {
                    "the elements of"
                } else {
                    "the contents of"
                };
                match holder {
                    Some((class, name)) => {
                        let full = format!("{}.{}", crate::util::dotted(&class), name);
                        let simple = format!("{}.{}", lockstep_ir::simple_class_name(&class), name);
                        (full, format!("{what} `{simple}`"))
                    }
                    None => {
                        let site = r
                            .objects
                            .first()
                            .map(|o| object_text(self.program, self.pt, *o))
                            .unwrap_or_else(|| "an object".into());
                        (site.clone(), format!("{what} {site}"))
                    }
                }
            }
        }
    }

    /// The finding's confidence (the criteria are in `docs.md`): high when
    /// both threads are real and the field's owner shows it is meant to be
    /// locked (one access locked, the other not, or `@GuardedBy`); low
    /// when the race needs an assumed outside caller and nothing says the
    /// field is meant to be locked.
    fn confidence(&self, r: &Race) -> Confidence {
        let real = |root| crate::util::real_root(self.roots, root);
        let (real1, real2) = (real(r.roots.0), real(r.roots.1));
        let locked_elsewhere = r.first.locks.is_empty() != r.second.locks.is_empty()
            || r.others.iter().any(|(a, _)| !a.locks.is_empty());
        let any_lock = !r.first.locks.is_empty()
            || !r.second.locks.is_empty()
            || r.others.iter().any(|(a, _)| !a.locks.is_empty());
        if real1 && real2 {
            if locked_elsewhere || r.guard.is_some() {
                Confidence::High
            } else {
                Confidence::Medium
            }
        } else if any_lock || r.guard.is_some() {
            // An assumed caller on some side: only the code's own locking
            // says the field is meant to be shared.
            Confidence::Medium
        } else {
            Confidence::Low
        }
    }

    fn finding(&mut self, r: &Race) -> Finding {
        let p = self.program;
        let (field, what) = self.field_name(r);
        let field_for_notes = field.clone();
        let kind = match (r.first.kind, r.second.kind) {
            (Kind::Write, Kind::Write) => "write/write",
            _ => "read/write",
        };
        let access_word = |k: Kind| match (&r.target, k) {
            (Target::Container, Kind::Write) => "modification",
            (Target::Container, Kind::Read) => "read",
            (_, k) => k.as_str(),
        };
        let first_root = self.root_label(r.roots.0);
        let second_root = self.root_label(r.roots.1);
        let node1 = self.node_of_root(r.roots.0, r.first.node);
        let node2 = self.node_of_root(r.roots.1, r.second.node);
        let unidentified1 = self.unidentified_lock(r.roots.0, node1, &r.first);
        let unidentified2 = self.unidentified_lock(r.roots.1, node2, &r.second);
        let same_site = r.first.method == r.second.method && r.first.stmt == r.second.stmt;
        let message = if same_site && first_root == second_root {
            // One statement racing with itself: say so once.
            format!(
                "data race ({kind}) on {what}: the {} in {} may run in two threads at the same time ({first_root}), with no common lock",
                access_word(r.first.kind),
                short_method(p, r.first.method),
            )
        } else {
            format!(
                "data race ({kind}) on {what}: {} in {} by {first_root} may run at the same time as the {} in {} ({}) by {second_root}, with no common lock",
                access_word(r.first.kind),
                short_method(p, r.first.method),
                access_word(r.second.kind),
                short_method(p, r.second.method),
                position(p, r.second.method, Some(r.second.stmt)),
            )
        };
        let mut f = Finding::new(
            DATA_RACE.id,
            Severity::Warning,
            message,
            location(p, r.first.method, Some(r.first.stmt)),
        )
        .with_field(field);
        f = f.with_related(
            location(p, r.second.method, Some(r.second.stmt)),
            format!(
                "{} of {what} by {second_root}, holding {}",
                access_word(r.second.kind),
                self.held_text(&r.second, &r.objects, unidentified2.as_deref())
            ),
        );
        const MAX_OTHERS: usize = 8;
        for (other, root) in r.others.iter().take(MAX_OTHERS) {
            let label = self.root_label(*root);
            f = f.with_related(
                location(p, other.method, Some(other.stmt)),
                format!(
                    "also races: {} by {label}, holding {}",
                    access_word(other.kind),
                    self.locks_text(other, &r.objects)
                ),
            );
        }
        if r.others.len() > MAX_OTHERS {
            f = f.with_note(format!(
                "{} more accesses race with this one (use --explain {field_for_notes} to list them)",
                r.others.len() - MAX_OTHERS
            ));
        }
        f = f.with_confidence(self.confidence(r));
        f = f.with_note(format!(
            "this {} holds {}",
            access_word(r.first.kind),
            self.held_text(&r.first, &r.objects, unidentified1.as_deref())
        ));
        if !r.objects.is_empty() && !matches!(r.target, Target::Static { .. }) {
            let objs: Vec<String> = r
                .objects
                .iter()
                .take(3)
                .map(|o| object_text(p, self.pt, *o))
                .collect();
            let more = if r.objects.len() > 3 { ", ..." } else { "" };
            f = f.with_note(format!("object: {}{more}", objs.join("; ")));
        }
        let frames1 = self.path(r.roots.0, node1, r.first.locks.is_empty());
        let frames2 = self.path(r.roots.1, node2, r.second.locks.is_empty());
        let path1 = crate::util::render_frames(&frames1);
        let path2 = crate::util::render_second_path(&frames1, &frames2);
        f = f.with_note(format!(
            "path to the {}: {path1}",
            access_word(r.first.kind)
        ));
        f = f.with_note(format!(
            "path to the {}: {path2}",
            access_word(r.second.kind)
        ));
        // The same two paths, structured, for SARIF thread flows.
        let full_path2 = crate::util::render_frames(&frames2);
        for (access, root, path) in [
            (&r.first, &first_root, &path1),
            (&r.second, &second_root, &full_path2),
        ] {
            let step = Related::new(
                location(p, access.method, Some(access.stmt)),
                format!("{} of {what}; path: {path}", access_word(access.kind)),
            );
            f = f.with_flow(Flow::new(root.clone(), vec![step]));
        }
        if let Some(g) = &r.guard {
            f = f.with_note(format!("the field is annotated @GuardedBy(\"{g}\")"));
        }
        let help = match &r.target {
            Target::Container => "guard every use of the container with one lock, or use a concurrent collection",
            _ => "guard both accesses with the same lock, or make the field volatile or atomic if the accesses are independent",
        };
        f.with_help(help)
    }
}
