//! Where a call graph's reach goes: reachable methods and their statements
//! per package, and for each package the shortest call chain from an entry
//! point to its first method, so a user (or the next developer) sees which
//! application call drags in which part of the JDK (`lockstep debug reach`).

use std::collections::{BTreeMap, VecDeque};

use rustc_hash::FxHashMap;

use crate::callgraph::CallGraph;
use crate::program::{MethodId, Program};

/// The reach of one package (`java/util/regex`, `(default)` for none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageReach {
    pub package: String,
    /// Reachable methods declared in the package.
    pub methods: usize,
    /// Their IR statements (0 for methods without a body).
    pub statements: usize,
    /// The shortest chain of calls from an entry point to the package's
    /// nearest method (entry first); from a class initializer when no
    /// entry's calls reach the package.
    pub path: Vec<MethodId>,
}

/// Every package with a reachable method, most statements first (ties by
/// name, so the order is a function of the call graph).
pub fn reach_by_package(p: &Program, cg: &CallGraph) -> Vec<PackageReach> {
    let parents = shortest_parents(cg);
    let mut by_package: BTreeMap<String, PackageReach> = BTreeMap::new();
    for &m in &cg.reachable {
        let package = package_of(&p.class(p.method(m).class).name).to_string();
        let statements = p.body(m).map_or(0, |b| b.stmts.len());
        let path = path_to(&parents, m);
        let entry = by_package
            .entry(package.clone())
            .or_insert_with(|| PackageReach {
                package,
                methods: 0,
                statements: 0,
                path: Vec::new(),
            });
        entry.methods += 1;
        entry.statements += statements;
        let rank = |path: &[MethodId]| (!from_entry(cg, path), path.len());
        if entry.path.is_empty() || rank(&path) < rank(&entry.path) {
            entry.path = path;
        }
    }
    let mut out: Vec<PackageReach> = by_package.into_values().collect();
    out.sort_by(|a, b| {
        b.statements
            .cmp(&a.statements)
            .then_with(|| a.package.cmp(&b.package))
    });
    out
}

/// The package part of an internal class name.
pub fn package_of(class: &str) -> &str {
    match class.rsplit_once('/') {
        Some((pkg, _)) => pkg,
        None => "(default)",
    }
}

/// Breadth-first parents from the entries, then from the class
/// initializers not reached that way (they have no incoming edges), edges
/// in their sorted order: the first parent found wins, so the tree is
/// deterministic and a method is explained by calls whenever calls reach it.
fn shortest_parents(cg: &CallGraph) -> FxHashMap<MethodId, Option<MethodId>> {
    let mut parent: FxHashMap<MethodId, Option<MethodId>> = FxHashMap::default();
    for roots in [&cg.entries.methods, &cg.class_inits] {
        let mut queue: VecDeque<MethodId> = VecDeque::new();
        for &m in roots.iter() {
            if parent.insert(m, None).is_none() {
                queue.push_back(m);
            }
        }
        while let Some(m) = queue.pop_front() {
            for e in cg.callees(m) {
                if let std::collections::hash_map::Entry::Vacant(v) = parent.entry(e.callee) {
                    v.insert(Some(m));
                    queue.push_back(e.callee);
                }
            }
        }
    }
    parent
}

/// Does the chain start at an entry point (not at a class initializer)?
fn from_entry(cg: &CallGraph, path: &[MethodId]) -> bool {
    path.first().is_some_and(|m| cg.entries.methods.contains(m))
}

fn path_to(parents: &FxHashMap<MethodId, Option<MethodId>>, m: MethodId) -> Vec<MethodId> {
    let mut path = vec![m];
    let mut at = m;
    while let Some(Some(p)) = parents.get(&at) {
        if path.contains(p) {
            break;
        }
        path.push(*p);
        at = *p;
    }
    path.reverse();
    path
}
