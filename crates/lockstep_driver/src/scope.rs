//! What a check entered, for the summary line: programs (one per main),
//! classes entered as a library, classes nothing reaches.

use lockstep_program::{CallGraph, EntryPoints, Program};
use lockstep_report::Scope;

/// The scope of a check from its entry points and the call graph built
/// from them (a class is skipped when it has code and the call graph
/// reaches none of its methods).
pub(crate) fn scope(program: &Program, entries: &EntryPoints, cg: &CallGraph) -> Scope {
    let skipped = program
        .application_classes()
        .filter(|&c| {
            let methods = &program.class(c).methods;
            let has_code = methods.iter().any(|&m| {
                let md = program.method(m);
                !md.is_abstract() && !md.is_native()
            });
            has_code && !methods.iter().any(|&m| cg.is_reachable(m))
        })
        .count();
    Scope {
        programs: entries.scope.mains as u64,
        library_classes: entries.scope.library_classes as u64,
        skipped_classes: skipped as u64,
    }
}
