//! The thread roots of a program as the shared facts see them (for
//! `lockstep debug threads`): one notion of thread roots for every rule.

use lockstep_facts::threads::RootKind;
use lockstep_facts::SharedFacts;
use lockstep_program::{entry_points, MethodId};

use crate::load::Workspace;

/// A thread started by the program.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct StartedThread {
    /// The methods the thread starts in (task entries; one per context merged).
    pub entries: Vec<MethodId>,
    /// The method that starts it and the line of the start.
    pub started_in: MethodId,
    pub line: Option<u32>,
    /// The modelled launch (`ThreadStart`, `Executor`, ...).
    pub launch: String,
    /// The task object the thread runs (allocation site or lambda).
    pub task: String,
    /// May run more than once at the same time (started in a loop, from
    /// code that runs many times, or periodic).
    pub many: bool,
}

impl Workspace {
    /// The threads the program starts, from its mains and the library
    /// harness for what they do not reach (with `open` or without a main,
    /// from the library harness alone).
    pub fn started_threads(&self, open: bool) -> Vec<StartedThread> {
        let program = &self.program;
        program.lower_all_application();
        let entries = entry_points(program, open);
        let facts = SharedFacts::new(
            program,
            &entries,
            lockstep_facts::Settings {
                open_program: entries.mode.is_open(),
                ..lockstep_facts::Settings::default()
            },
        );
        let pt = facts.points_to();
        let races = facts.races();
        let mut out = Vec::new();
        for root in &races.roots {
            let RootKind::Start(i) = root.kind else {
                continue;
            };
            let Some(t) = pt.thread_starts().get(i) else {
                continue;
            };
            let mut methods: Vec<MethodId> = root
                .entries
                .iter()
                .map(|&n| races.graph.nodes[n as usize].method)
                .collect();
            methods.sort();
            methods.dedup();
            out.push(StartedThread {
                entries: methods,
                started_in: t.caller.method,
                line: lockstep_facts::util::line_of(program, t.caller.method, Some(t.site)),
                launch: format!("{:?}", t.launch.kind),
                task: pt.describe_object(program, t.task),
                many: root.multi,
            });
        }
        out.sort();
        out.dedup();
        out
    }
}
