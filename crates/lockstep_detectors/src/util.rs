//! Small helpers shared by detectors: turning program positions into
//! report locations, naming thread roots, objects and locks the way a Java
//! developer reads them (no analysis internals: no heap contexts, no
//! slash-separated class names), and drawing call paths from thread roots
//! with JDK frames folded.

use lockstep_facts::guarded_reach::{Chain, GuardedReach};
use lockstep_facts::locks::{HeldLock, LockObject};
use lockstep_facts::threads::{Graph, Root, RootKind, SerialThread};
use lockstep_ir::StmtId;
use lockstep_models::LockMode;
use lockstep_pointsto::{ObjectId, PointsToResult, SiteKey};
use lockstep_program::{MethodId, Program};
use lockstep_report::{Finding, Location};

pub use lockstep_facts::util::{dotted, line_of};

/// Simple name of a method for messages: `Outer$Inner.name`.
pub fn short_method(program: &Program, m: MethodId) -> String {
    let data = program.method(m);
    let class = &program.class(data.class).name;
    let simple = class.rsplit('/').next().unwrap_or(class);
    match lambda_host(&data.name) {
        Some(host) => format!("a lambda in {simple}.{host}"),
        None => format!("{simple}.{}", data.name),
    }
}

/// The method a compiler-generated lambda body was written in:
/// `lambda$main$1` → `main`, `lambda$new$0` → `<init>`, `lambda$static$2`
/// → `<clinit>` (javac's naming; other compilers' names are kept as they are).
fn lambda_host(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("lambda$")?;
    let (host, counter) = rest.rsplit_once('$')?;
    if host.is_empty() || !counter.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match host {
        "new" => "<init>",
        "static" => "<clinit>",
        h => h,
    })
}

/// A report location for a statement of a method (`None`: the method itself).
pub fn location(program: &Program, m: MethodId, stmt: Option<StmtId>) -> Location {
    let data = program.method(m);
    let class = program.class(data.class);
    let mut loc = Location::in_method(
        dotted(&class.name),
        data.name.to_string(),
        data.descriptor.to_string(),
    );
    if let Some(file) = &class.file.source_file {
        loc = loc.with_file(file.to_string());
    }
    if let Some(line) = line_of(program, m, stmt) {
        loc = loc.with_line(line);
    }
    loc
}

/// `File.java:12`, or the class name when the line is unknown.
pub fn position(program: &Program, m: MethodId, stmt: Option<StmtId>) -> String {
    let loc = location(program, m, stmt);
    match (&loc.file, loc.line) {
        (Some(f), Some(l)) => format!("{f}:{l}"),
        (Some(f), None) => f.clone(),
        _ => loc.class.clone(),
    }
}

/// Whether root `r` is a thread the program really runs (a `main`, a
/// started thread or task, a `@ThreadSafe` API), not an entry that only
/// the open-program analysis assumes (a library's public methods).
pub fn real_root(roots: &[Root], r: u32) -> bool {
    roots
        .get(r as usize)
        .is_some_and(|root| !matches!(root.kind, RootKind::Harness(_)))
}

/// BFS parent edges of the context call graph, per node (see `Graph::bfs`).
pub type Parents = Vec<Option<(u32, StmtId)>>;

/// A breadth-first search of the context call graph from fixed sources
/// that runs only as far as the paths asked for need. Nodes are visited
/// in the order of `Graph::bfs` and a parent never changes once set, so
/// every path it gives is the one the full search gives; a finding near
/// its root no longer pays for a search of everything the root reaches.
pub struct LazyBfs {
    parent: Parents,
    queue: std::collections::VecDeque<u32>,
}

impl LazyBfs {
    /// The search from `sources`, in order, before any node is expanded.
    pub fn new(graph: &Graph, sources: &[u32]) -> LazyBfs {
        let mut parent: Parents = vec![None; graph.nodes.len()];
        let mut queue = std::collections::VecDeque::new();
        for &s in sources {
            if let Some(slot @ None) = parent.get_mut(s as usize) {
                *slot = Some((u32::MAX, StmtId(0)));
                queue.push_back(s);
            }
        }
        LazyBfs { parent, queue }
    }

    /// Expands nodes until `node` is reached or nothing more can be,
    /// skipping the call sites `cut` says to skip (the same `cut` at every
    /// call on one search); whether `node` is reached.
    pub fn reach(&mut self, graph: &Graph, node: u32, cut: impl Fn(u32, StmtId) -> bool) -> bool {
        while !self.reached(node) {
            let Some(n) = self.queue.pop_front() else {
                return false;
            };
            let Some(callees) = graph.callees.get(n as usize) else {
                continue;
            };
            for &(site, c) in callees {
                if cut(n, site) {
                    continue;
                }
                if let Some(slot @ None) = self.parent.get_mut(c as usize) {
                    *slot = Some((n, site));
                    self.queue.push_back(c);
                }
            }
        }
        true
    }

    fn reached(&self, node: u32) -> bool {
        self.parent.get(node as usize).is_some_and(Option::is_some)
    }

    /// The parents found so far (complete for every node reached).
    pub fn parents(&self) -> &Parents {
        &self.parent
    }
}

/// A thread root for messages: `the main thread`, `the thread started by
/// Thread.start() at Main.java:12 (more than once)`.
pub fn root_label(
    program: &Program,
    pt: &PointsToResult,
    roots: &[Root],
    open: bool,
    r: u32,
) -> String {
    let Some(root) = roots.get(r as usize) else {
        return "some thread".into();
    };
    let mut label = match &root.kind {
        RootKind::Main => "the main thread".to_string(),
        // A library's entries are all entered together, so no one entry
        // method names this thread.
        RootKind::Harness(_) if root.serial == Some(SerialThread::EventDispatch) => {
            // Swing's rule: it calls GUI code on the one event thread.
            return "any caller from outside the analysed code, on the event dispatch thread"
                .to_string();
        }
        RootKind::Harness(_) => "any caller from outside the analysed code".to_string(),
        RootKind::ThreadSafeApi(m) => {
            format!("any caller of @ThreadSafe {}", short_method(program, *m))
        }
        RootKind::Start(i) => match pt.thread_starts().get(*i) {
            Some(t) => {
                let (class, name) = launch_method(program, t);
                format!(
                    "the thread started by {}.{}() at {}",
                    lockstep_ir::simple_class_name(&class),
                    name,
                    position(program, t.caller.method, Some(t.site))
                )
            }
            None => "a thread".into(),
        },
    };
    if root.multi && !open && !matches!(root.kind, RootKind::ThreadSafeApi(_)) {
        label.push_str(" (more than once)");
    }
    label
}

/// The class and method that launched a thread: the model's, or for a
/// task handed to an outside scheduler (whose model names no method) the
/// method the call names.
fn launch_method(program: &Program, t: &lockstep_pointsto::ThreadStart) -> (String, String) {
    let model = (t.launch.class.to_string(), t.launch.name.to_string());
    if t.launch.kind != lockstep_models::LaunchKind::Outside {
        return model;
    }
    let called =
        program
            .body(t.caller.method)
            .and_then(|b| match &b.stmts.get(t.site.index())?.kind {
                lockstep_ir::StmtKind::Invoke { call, .. } => {
                    Some((call.method.class.to_string(), call.method.name.to_string()))
                }
                _ => None,
            });
    called.unwrap_or(model)
}

/// One frame of a call path: `A.main (A.java:3)`, whether it is
/// application code (other frames are folded when shown), and whether it
/// is the JDK's (the rest of the non-application frames are libraries on
/// the class path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub text: String,
    pub application: bool,
    pub jdk: bool,
}

/// The frames from a root to `node` along BFS parents, root first.
pub fn call_frames(program: &Program, graph: &Graph, parent: &Parents, node: u32) -> Vec<Frame> {
    let frame = |m: MethodId, site: Option<StmtId>| Frame {
        text: match site {
            Some(s) => format!(
                "{} ({})",
                short_method(program, m),
                position(program, m, Some(s))
            ),
            // Two lambdas of one method read alike: the last frame of a
            // lambda says where it starts, so two paths ending in
            // different lambdas are not shown as "the same path".
            None if lambda_host(&program.method(m).name).is_some() => {
                format!(
                    "{} ({})",
                    short_method(program, m),
                    position(program, m, None)
                )
            }
            None => short_method(program, m),
        },
        application: program.is_application(program.method(m).class),
        jdk: lockstep_models::is_jdk_class(&program.class(program.method(m).class).name),
    };
    let mut chain: Vec<Frame> = hops_to(parent, node)
        .into_iter()
        .map(|(up, site)| frame(graph.nodes[up as usize].method, Some(site)))
        .collect();
    chain.push(frame(graph.nodes[node as usize].method, None));
    chain
}

/// Frames joined by arrows, each run of two or more JDK frames folded
/// into `… N JDK frames …` (the application frames are what a developer
/// acts on; one JDK frame is shown, as it names the callback). A run with
/// classes of libraries on the class path (Tomcat's catalina classes for
/// catalina-ha) reads `… N library frames …`.
pub fn render_frames(frames: &[Frame]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < frames.len() {
        let run = frames[i..].iter().take_while(|f| !f.application).count();
        if run >= 2 {
            let all_jdk = frames[i..i + run].iter().all(|f| f.jdk);
            let kind = if all_jdk { "JDK" } else { "library" };
            parts.push(format!("… {run} {kind} frames …"));
            i += run;
        } else {
            parts.push(frames[i].text.clone());
            i += 1;
        }
    }
    parts.join(" → ")
}

/// The second of two paths shown so it differs where it differs: when
/// it starts with the same calls as `first`, those are replaced by
/// `(same as above up to X)`.
pub fn render_second_path(first: &[Frame], second: &[Frame]) -> String {
    let common = first.iter().zip(second).take_while(|(a, b)| a == b).count();
    // Keep at least the last frame, and fold only a prefix that is a
    // real shared path (two frames or more).
    let common = common.min(second.len().saturating_sub(1));
    if first == second {
        return "the same path".into();
    }
    if common < 2 {
        return render_frames(second);
    }
    let shared = &second[common - 1];
    format!(
        "(same as above up to {}) → {}",
        shared.text,
        render_frames(&second[common..])
    )
}

/// The call chain to `node` along BFS parents: `A.main (A.java:3) → B.run`.
pub fn call_chain(program: &Program, graph: &Graph, parent: &Parents, node: u32) -> String {
    render_frames(&call_frames(program, graph, parent, node))
}

/// A Java type for messages from an internal name or array descriptor:
/// `org/h2/Foo` → `Foo`, `[I` → `int[]`.
pub fn java_type(type_name: &str) -> String {
    lockstep_ir::simple_class_name(type_name)
}

/// An abstract object as a developer names it: `the ConsoleAppender
/// created at BasicConfigurator.java:47`. Heap contexts are left out:
/// they tell objects of one site apart for the analysis, not for a reader.
pub fn object_text(program: &Program, pt: &PointsToResult, o: ObjectId) -> String {
    let Some(info) = pt.object(o) else {
        return "an object".into();
    };
    let ty = java_type(info.type_name);
    match info.site {
        SiteKey::Alloc { method, stmt, .. } => format!(
            "the {ty} created in {} ({})",
            short_method(program, *method),
            position(program, *method, Some(*stmt))
        ),
        SiteKey::Lambda { method, stmt } | SiteKey::ConstructorRef { method, stmt } => format!(
            "the lambda created in {} ({})",
            short_method(program, *method),
            position(program, *method, Some(*stmt))
        ),
        SiteKey::Copy { method, stmt, .. } => format!(
            "the copy of {} made by clone() in {} ({})",
            with_article(&ty),
            short_method(program, *method),
            position(program, *method, Some(*stmt))
        ),
        SiteKey::StringConstant => "a string constant".into(),
        SiteKey::ClassLiteral(c) => format!("{}.class", dotted(c)),
        SiteKey::Entry(_) => format!("{} passed in by a caller", with_article(&ty)),
        SiteKey::External { origin, .. } => format!(
            "{} set outside the analysed code ({})",
            with_article(&ty),
            readable_origin(origin)
        ),
        // Contexts only, never objects; named for completeness.
        SiteKey::Main(_)
        | SiteKey::OverBudget
        | SiteKey::OverBudgetCaller(_)
        | SiteKey::Modelled => with_article(&ty),
        SiteKey::ContainerPart { part, .. } => format!("the {part} of a JDK container"),
        SiteKey::Exception(_) => format!("a new {ty}"),
        SiteKey::Library(_) => format!("{} created inside the JDK", with_article(&ty)),
        SiteKey::Constant(_) | SiteKey::Opaque(_) | SiteKey::Vm(_) => with_article(&ty),
    }
}

/// Where an external value comes from, in Java terms: `pkg/C.f` →
/// `field pkg.C.f`, `pkg/C.m(desc)#1` → `parameter 1 of pkg.C.m`.
fn readable_origin(origin: &str) -> String {
    let dotted_origin = dotted(origin);
    match dotted_origin.split_once('(') {
        Some((method, rest)) => {
            let index = rest.rsplit_once('#').map(|(_, i)| i).unwrap_or("?");
            format!("parameter {index} of {method}")
        }
        None => format!("field {}", dotted_origin.trim_end_matches("[]")),
    }
}

/// `a Foo`, `an Account`.
fn with_article(noun: &str) -> String {
    let vowel = noun.starts_with(|c: char| "AEIOUaeiou".contains(c));
    format!("{} {noun}", if vowel { "an" } else { "a" })
}

/// A held lock for messages: the monitor of an object (see
/// [`object_text`]), a class literal, or one side of a read-write lock
/// (`the write lock in the accessed object's `lock``).
pub fn lock_text(program: &Program, pt: &PointsToResult, l: &HeldLock) -> String {
    let side = match l.mode {
        LockMode::Read => Some("the read lock"),
        LockMode::Write => Some("the write lock"),
        _ => None,
    };
    match (&l.object, side) {
        (LockObject::Class(c), None) => format!("{}.class", dotted(c)),
        (LockObject::Class(c), Some(side)) => format!("{side} of {}.class", dotted(c)),
        (LockObject::Object(o), None) => format!("the lock of {}", object_text(program, pt, *o)),
        (LockObject::Object(o), Some(side)) => {
            format!("{side} of {}", read_write_lock_text(program, pt, *o))
        }
        (LockObject::OfAccessed { fields, .. }, side) if fields.is_empty() => {
            format!(
                "{} of the accessed object itself",
                side.unwrap_or("the lock")
            )
        }
        (LockObject::OfAccessed { fields, .. }, side) => {
            let names: Vec<&str> = fields.iter().map(|(_, n)| &**n).collect();
            format!(
                "{} in the accessed object's `{}`",
                side.unwrap_or("the lock"),
                names.join(".")
            )
        }
        (LockObject::OfOwner { up, down, .. }, None) => {
            lockstep_facts::locks::owner_lock_text(up, down)
        }
        (LockObject::OfOwner { up, down, .. }, Some(side)) => {
            format!(
                "{side} of {}",
                lockstep_facts::locks::owner_lock_text(up, down)
            )
        }
    }
}

/// A read-write lock is known by its internal `sync` object, which the
/// JDK allocates: name the lock's class then, not the JDK's allocation.
fn read_write_lock_text(program: &Program, pt: &PointsToResult, o: ObjectId) -> String {
    let Some(info) = pt.object(o) else {
        return object_text(program, pt, o);
    };
    let made_by_jdk = match info.site {
        SiteKey::Alloc { method, .. } => !program.is_application(program.method(*method).class),
        SiteKey::Library(_) => true,
        _ => false,
    };
    if !made_by_jdk {
        return object_text(program, pt, o);
    }
    let outer = info.type_name.split('$').next().unwrap_or(info.type_name);
    with_article(&java_type(outer))
}

/// The locks of an access for messages, each named once: a lock held
/// both by access path (`the lock in the accessed object's `lock``) and
/// as the abstract object that path reaches from `objects` (the racing
/// objects) is the same lock, named by its path.
pub fn distinct_locks<'a>(
    pt: &PointsToResult,
    objects: &[ObjectId],
    locks: &'a [HeldLock],
) -> Vec<&'a HeldLock> {
    let by_path: Vec<(LockMode, Vec<ObjectId>)> = locks
        .iter()
        .filter_map(|l| match &l.object {
            LockObject::OfAccessed { fields, monitor } => {
                Some((l.mode, path_objects(pt, objects, fields, *monitor)))
            }
            _ => None,
        })
        .collect();
    let named = |mode: LockMode| {
        locks
            .iter()
            .any(|l| l.mode == mode && matches!(l.object, LockObject::Object(_)))
    };
    locks
        .iter()
        .filter(|l| match l.object {
            LockObject::Object(o) => !by_path
                .iter()
                .any(|(mode, objs)| *mode == l.mode && objs.contains(&o)),
            // The owner's lock, when the owner's lock is also held as an
            // object, is mostly that object: named once, by the object.
            LockObject::OfOwner { .. } => !named(l.mode),
            _ => true,
        })
        .collect()
}

/// The objects a chain of fields reaches from `objects`; for a
/// `java.util.concurrent` lock also its `sync` (how a read-write lock's
/// views are named).
fn path_objects(
    pt: &PointsToResult,
    objects: &[ObjectId],
    fields: &[lockstep_facts::lock_paths::FieldName],
    monitor: bool,
) -> Vec<ObjectId> {
    let mut current: Vec<ObjectId> = objects.to_vec();
    for (class, name) in fields {
        current = current
            .iter()
            .flat_map(|&o| pt.field(o, class, name).iter().collect::<Vec<_>>())
            .collect();
    }
    if !monitor {
        let syncs: Vec<ObjectId> = current
            .iter()
            .filter_map(|&o| pt.object(o).map(|info| (o, info.type_name.clone())))
            .flat_map(|(o, ty)| {
                pt.field(o, &ty, lockstep_models::READ_WRITE_VIEW_OWNER_FIELD)
                    .iter()
                    .collect::<Vec<_>>()
            })
            .collect();
        current.extend(syncs);
    }
    current.sort();
    current.dedup();
    current
}

/// Call paths from thread roots, with the BFS of each root computed once.
pub struct RootPaths<'a> {
    program: &'a Program,
    graph: &'a Graph,
    roots: &'a [Root],
    open: bool,
    parents: std::collections::HashMap<u32, Parents>,
}

impl<'a> RootPaths<'a> {
    pub fn new(program: &'a Program, graph: &'a Graph, roots: &'a [Root], open: bool) -> Self {
        RootPaths {
            program,
            graph,
            roots,
            open,
            parents: Default::default(),
        }
    }

    /// The call path from root `r` to `node` (any entry of an open program).
    pub fn path(&mut self, r: u32, node: u32) -> String {
        let key = if self.open { u32::MAX } else { r };
        let (graph, roots, open) = (self.graph, self.roots, self.open);
        let parent = self.parents.entry(key).or_insert_with(|| {
            let sources: Vec<u32> = if open {
                roots.iter().flat_map(|x| x.entries.clone()).collect()
            } else {
                roots
                    .get(r as usize)
                    .map(|x| x.entries.clone())
                    .unwrap_or_default()
            };
            graph.bfs(&sources, |_, _| false)
        });
        call_chain(self.program, graph, parent, node)
    }

    /// Does some path from root `r` (any entry of an open program) reach
    /// `node` along calls that can all be made, with `guards` on its
    /// method's parameters ([`GuardedReach::passes`])? The shortest path
    /// first; else a search (a search cut short counts as a yes).
    pub fn passes(
        &mut self,
        r: u32,
        node: u32,
        reach: &GuardedReach<'_>,
        guards: &lockstep_facts::param_guards::Guards,
    ) -> bool {
        self.path(r, node);
        let key = if self.open { u32::MAX } else { r };
        let Some(parent) = self.parents.get(&key) else {
            return true;
        };
        if parent.get(node as usize).copied().flatten().is_none() {
            // Not reached from the root at all: not this test's business.
            return true;
        }
        if reach.passes(&hops_to(parent, node), node, guards) {
            return true;
        }
        let sources = self.sources(r);
        reach.chain(|n| sources.contains(&n), node, guards) != Chain::None
    }

    /// The entries of root `r` (of every root, for an open program).
    fn sources(&self, r: u32) -> std::collections::HashSet<u32> {
        if self.open {
            self.roots.iter().flat_map(|x| x.entries.clone()).collect()
        } else {
            self.roots
                .get(r as usize)
                .map(|x| x.entries.iter().copied().collect())
                .unwrap_or_default()
        }
    }

    /// [`Self::path`] for a statement of `node` that needs `guards` on its
    /// method's parameters, made only of calls that can be made: each
    /// passes no constant that a test of the callee on the way rules out
    /// ([`lockstep_facts::guarded_reach`]). The plain path when it passes;
    /// else `chain` (an acquisition's [`Acquisition::entry_chain`]) after
    /// the path to its first caller, when that passes; else a shortest
    /// chain from root `r` that passes; else the plain path.
    ///
    /// [`Acquisition::entry_chain`]: lockstep_facts::lock_order::Acquisition::entry_chain
    pub fn guarded_path(
        &mut self,
        (r, node): (u32, u32),
        chain: Option<&[(u32, StmtId)]>,
        reach: &GuardedReach<'_>,
        guards: &lockstep_facts::param_guards::Guards,
    ) -> String {
        let plain = self.path(r, node);
        let key = if self.open { u32::MAX } else { r };
        let hops = self
            .parents
            .get(&key)
            .map(|p| hops_to(p, node))
            .unwrap_or_default();
        if reach.passes(&hops, node, guards) {
            return plain;
        }
        if let Some(c) = chain {
            if let Some((text, hops)) = self.render_chain(r, node, c) {
                if reach.passes(&hops, node, guards) {
                    return text;
                }
            }
        }
        let sources = self.sources(r);
        if let Chain::Found(c) = reach.chain(|n| sources.contains(&n), node, guards) {
            if let Some((text, _)) = self.render_chain(r, node, &c) {
                return text;
            }
        }
        plain
    }

    /// A chain of calls (each caller with its call site, the first one
    /// first) down to `node`, after the path from root `r` to its first
    /// caller, as [`Self::path`] writes paths, with all its calls;
    /// `None` when root `r` does not reach the first caller, or the chain
    /// meets that path.
    fn render_chain(
        &mut self,
        r: u32,
        node: u32,
        chain: &[(u32, StmtId)],
    ) -> Option<(String, Vec<(u32, StmtId)>)> {
        let Some(&(first, _)) = chain.first() else {
            let text = self.path(r, node);
            let key = if self.open { u32::MAX } else { r };
            let hops = self.parents.get(&key).map(|p| hops_to(p, node));
            return Some((text, hops.unwrap_or_default()));
        };
        // The path from the root to the chain's first caller.
        self.path(r, first);
        let key = if self.open { u32::MAX } else { r };
        let mut parent: Parents = self.parents.get(&key)?.clone();
        parent.get(first as usize).copied().flatten()?;
        let mut prefix = std::collections::HashSet::new();
        let mut at = first;
        while let Some(Some((p, _))) = parent.get(at as usize) {
            if *p == u32::MAX || !prefix.insert(at) {
                break;
            }
            at = *p;
        }
        let below: Vec<u32> = chain
            .iter()
            .skip(1)
            .map(|&(n, _)| n)
            .chain([node])
            .collect();
        if below.iter().any(|n| prefix.contains(n) || *n == at) {
            // The chain meets the path from the root: no single chain.
            return None;
        }
        for &n in &below {
            parent[n as usize] = None;
        }
        for (&(caller, site), &callee) in chain.iter().zip(&below) {
            if parent[callee as usize].is_some() {
                // The chain passes a context twice (with other guards).
                return None;
            }
            parent[callee as usize] = Some((caller, site));
        }
        let hops = hops_to(&parent, node);
        Some((call_chain(self.program, self.graph, &parent, node), hops))
    }
}

/// The calls from the root down to `node` along BFS parents: each caller
/// with its call site, the root's first.
fn hops_to(parent: &Parents, node: u32) -> Vec<(u32, StmtId)> {
    let mut hops = Vec::new();
    let mut cur = node;
    // Bounded: parents form a tree, but a damaged one must not loop.
    for _ in 0..=64 {
        let Some(Some((up, site))) = parent.get(cur as usize).copied() else {
            break;
        };
        if up == u32::MAX {
            break;
        }
        hops.push((up, site));
        cur = up;
    }
    hops.reverse();
    hops
}

/// The finding with every unnamed bytecode local (`v29`, left where the
/// class file has no local variable table) written as `<local>`, so
/// `v29.database` reads `<local>.database`: the field is what matters, and
/// the slot number means nothing in the source.
pub fn readable(mut f: Finding) -> Finding {
    f.message = hide_locals(&f.message);
    f.lock = f.lock.as_deref().map(hide_locals);
    for related in &mut f.related {
        related.message = hide_locals(&related.message);
    }
    for note in &mut f.notes {
        *note = hide_locals(note);
    }
    for flow in &mut f.flows {
        for step in &mut flow.steps {
            step.message = hide_locals(&step.message);
        }
    }
    f
}

/// `v` followed by digits, as a whole word, becomes `<local>`.
fn hide_locals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('v') {
        let (before, from) = rest.split_at(i);
        out.push_str(before);
        let digits = from[1..].bytes().take_while(u8::is_ascii_digit).count();
        let prev = out.chars().next_back();
        let next = from[1 + digits..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        if digits > 0 && !word(prev) && !word(next) && prev != Some('.') {
            out.push_str("<local>");
        } else {
            out.push_str(&from[..1 + digits]);
        }
        rest = &from[1 + digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::{hide_locals, lambda_host};

    #[test]
    fn lambda_bodies_are_named_by_their_host_method() {
        assert_eq!(lambda_host("lambda$main$1"), Some("main"));
        assert_eq!(lambda_host("lambda$new$0"), Some("<init>"));
        assert_eq!(lambda_host("lambda$static$12"), Some("<clinit>"));
        assert_eq!(lambda_host("lambda$run$x"), None);
        assert_eq!(lambda_host("lambda$$0"), None);
        assert_eq!(lambda_host("run"), None);
    }

    #[test]
    fn unnamed_locals_are_hidden() {
        assert_eq!(
            hide_locals("`v29.database` and f(v3)"),
            "`<local>.database` and f(<local>)"
        );
        assert_eq!(hide_locals("v2v vector this.v1 v"), "v2v vector this.v1 v");
    }
}
