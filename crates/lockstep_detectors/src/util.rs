//! Small helpers shared by detectors: turning program positions into
//! report locations, naming thread roots and drawing call paths from them.

use lockstep_facts::threads::{Graph, Root, RootKind};
use lockstep_ir::StmtId;
use lockstep_pointsto::PointsToResult;
use lockstep_program::{MethodId, Program};
use lockstep_report::Location;

pub use lockstep_facts::util::{dotted, line_of};

/// Simple name of a method for messages: `Outer$Inner.name`.
pub fn short_method(program: &Program, m: MethodId) -> String {
    let data = program.method(m);
    let class = &program.class(data.class).name;
    let simple = class.rsplit('/').next().unwrap_or(class);
    format!("{simple}.{}", data.name)
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

/// BFS parent edges of the context call graph, per node (see `Graph::bfs`).
pub type Parents = Vec<Option<(u32, StmtId)>>;

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
        RootKind::Harness(_) => "any caller (open program)".to_string(),
        RootKind::ThreadSafeApi(m) => {
            format!("any caller of @ThreadSafe {}", short_method(program, *m))
        }
        RootKind::Start(i) => match pt.thread_starts().get(*i) {
            Some(t) => format!(
                "the thread started by {}.{}() at {}",
                lockstep_ir::simple_class_name(t.launch.class),
                t.launch.name,
                position(program, t.caller.method, Some(t.site))
            ),
            None => "a thread".into(),
        },
    };
    if root.multi && !open && !matches!(root.kind, RootKind::ThreadSafeApi(_)) {
        label.push_str(" (more than once)");
    }
    label
}

/// The call chain to `node` along BFS parents: `A.main (A.java:3) → B.run`.
pub fn call_chain(program: &Program, graph: &Graph, parent: &Parents, node: u32) -> String {
    let mut chain: Vec<String> = Vec::new();
    let mut cur = node;
    let mut guard = 0;
    chain.push(short_method(program, graph.nodes[node as usize].method));
    while let Some(Some((up, site))) = parent.get(cur as usize).copied() {
        if up == u32::MAX || guard > 64 {
            break;
        }
        guard += 1;
        let m = graph.nodes[up as usize].method;
        chain.push(format!(
            "{} ({})",
            short_method(program, m),
            position(program, m, Some(site))
        ));
        cur = up;
    }
    chain.reverse();
    chain.join(" → ")
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
}
