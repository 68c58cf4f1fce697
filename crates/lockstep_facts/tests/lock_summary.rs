//! Lock summaries name a callee's lock by its entry path, mapped to the
//! caller's names at each call (log4j's `Hierarchy.resetConfiguration`,
//! sample #31 of `docs/deadlock-sample.md`): a call on `this` keeps
//! `this.ht`, a call on a parameter makes it `other.ht`, and a field
//! written after construction has no path.

use lockstep_facts::lock_summary;
use lockstep_facts::locks::LockResolver;
use lockstep_facts::{Settings, SharedFacts};
use lockstep_program::{entry_points, Program};
use lockstep_testkit_program::{compile_sources, program_of};

const HIERARCHY: &str = r#"
import java.util.Hashtable;

public class Main {
    static class Hierarchy {
        static final Hashtable SHARED = new Hashtable();
        Hashtable ht;
        Hashtable spare = SHARED;

        Hierarchy() {
            ht = new Hashtable();
        }

        int size() {
            return ht.size();
        }

        void shutdown() {
            synchronized (ht) {
                size();
            }
        }

        void resetConfiguration() {
            synchronized (ht) {
                shutdown();
            }
        }

        void resetInto(Hierarchy other) {
            synchronized (ht) {
                other.shutdown();
            }
        }

        void swap() {
            spare = SHARED;
        }

        void lockSpare() {
            synchronized (spare) {
                swap();
            }
        }

        void resetSpare() {
            synchronized (ht) {
                lockSpare();
            }
        }
    }

    public static void main(String[] args) {
        Hierarchy a = new Hierarchy();
        Hierarchy b = new Hierarchy();
        new Thread(() -> a.resetConfiguration()).start();
        new Thread(() -> a.resetInto(b)).start();
        new Thread(() -> b.resetSpare()).start();
    }
}
"#;

/// The entry paths (as source text) of the locks the callee `callee` may
/// take, seen from every call to it in method `caller`.
fn paths_at(program: &Program, caller: &str, callee: &str) -> Vec<Option<String>> {
    let entries = entry_points(program, false);
    let facts = SharedFacts::new(program, &entries, Settings::default());
    let races = facts.races();
    let mut resolver = LockResolver::new(program, facts.points_to());
    let sums = lock_summary::compute(program, races, &mut resolver);
    let graph = &races.graph;
    let name = |n: u32| {
        program
            .method(graph.nodes[n as usize].method)
            .name
            .to_string()
    };
    let mut out = Vec::new();
    for node in 0..graph.len() as u32 {
        if name(node) != caller {
            continue;
        }
        for &(site, c) in &graph.callees[node as usize] {
            if name(c) != callee {
                continue;
            }
            for l in sums.at_call(program, races, &mut resolver, (node, site, c)) {
                out.push(l.caller_path.map(|p| p.to_string()));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn hierarchy() -> Program {
    program_of(&compile_sources(&[("Main.java", HIERARCHY)]))
}

#[test]
fn a_call_on_this_keeps_the_callee_path() {
    let program = hierarchy();
    // `shutdown` locks `this.ht` itself and, through `size()`, the
    // table's own monitor (`Hashtable.size` is synchronized) by the same
    // path.
    assert_eq!(
        paths_at(&program, "resetConfiguration", "shutdown"),
        vec![Some("this.ht".to_string())]
    );
}

#[test]
fn a_call_on_a_parameter_roots_the_path_there() {
    let program = hierarchy();
    assert_eq!(
        paths_at(&program, "resetInto", "shutdown"),
        vec![Some("other.ht".to_string())]
    );
}

#[test]
fn a_field_written_after_construction_has_no_path() {
    let program = hierarchy();
    // `spare` is assigned by `swap()` too: `this.spare` at the
    // acquisition need not be the object another read of it gives (here it
    // is one object, so the lock is still known, but by no path).
    assert_eq!(paths_at(&program, "resetSpare", "lockSpare"), vec![None]);
}
