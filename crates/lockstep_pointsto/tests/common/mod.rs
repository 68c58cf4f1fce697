//! Shared helpers: the program set-up of `lockstep_testkit_program`, plus
//! what points-to tests need on top: a small JDK for the naive reference
//! solver, variables by name, solving, and objects described readably.

// Each test binary uses a different part of these helpers.
#![allow(dead_code, unused_imports)]

use std::collections::BTreeSet;
use std::path::Path;

use lockstep_ir::VarId;
use lockstep_pointsto::{Config, ObjectSet, PointsTo, PointsToResult};
use lockstep_program::{entry_points, ClassProvider, EntryPoints, MethodId, Program};
pub use lockstep_testkit_program::{compile_sources, jdk_provider, method, program_of};

/// A JDK cut down to the classes `keep` accepts: the rest does not load,
/// so calls into it are unresolved. The reference solver is naive; on the
/// full JDK even a small program reaches ten thousand methods.
pub fn small_jdk_provider(keep: fn(&str) -> bool) -> Box<dyn ClassProvider> {
    lockstep_testkit_program::jdk_provider_keeping(keep)
}

/// A few `java.lang` classes (the string builders among them) and the packages `java.util`,
/// `java.util.concurrent(.atomic)` and `java.util.function`, and nothing else.
pub fn small_jdk(name: &str) -> bool {
    const KEEP: &[&str] = &[
        "java/lang/Object",
        "java/lang/String",
        "java/lang/Runnable",
        "java/lang/Thread",
        "java/lang/Iterable",
        "java/lang/Comparable",
        "java/lang/CharSequence",
        "java/lang/Cloneable",
        "java/io/Serializable",
        "java/lang/Throwable",
        "java/lang/Exception",
        "java/lang/RuntimeException",
        "java/lang/IndexOutOfBoundsException",
        "java/lang/System",
        "java/lang/Class",
        "java/lang/Appendable",
        "java/lang/AbstractStringBuilder",
        "java/lang/StringBuilder",
        "java/lang/StringBuffer",
        "java/util/Collection",
        "java/util/List",
        "java/util/AbstractCollection",
        "java/util/AbstractList",
        "java/util/ArrayList",
        "java/util/RandomAccess",
        "java/util/Arrays",
        "java/util/Objects",
        "java/util/Iterator",
        "java/util/ArrayList$Itr",
        "java/util/function/Supplier",
        "java/util/concurrent/Callable",
        "java/util/concurrent/atomic/AtomicReference",
    ];
    // Whole packages: the collections and concurrency utilities.
    let in_package = |pkg: &str| {
        name.strip_prefix(pkg)
            .is_some_and(|rest| !rest.contains('/'))
    };
    KEEP.contains(&name)
        || in_package("java/util/")
        || in_package("java/util/concurrent/")
        || in_package("java/util/concurrent/atomic/")
        || in_package("java/util/function/")
}

/// A program of one source file over the [`small_jdk`].
pub fn small_program(src: &str) -> Program {
    let fixture = compile_sources(&[("Main.java", src)]);
    lockstep_testkit_program::program_of_with(&fixture, small_jdk_provider(small_jdk))
}

/// A program of one source file `Main.java`.
pub fn program(src: &str) -> Program {
    program_of(&compile_sources(&[("Main.java", src)]))
}

/// The classes of a jar as the application, over the JDK.
pub fn program_of_jar(path: &str) -> Option<Program> {
    program_of_jar_with(path, jdk_provider())
}

/// The classes of a jar as the application, over `library`.
pub fn program_of_jar_with(path: &str, library: Box<dyn ClassProvider>) -> Option<Program> {
    lockstep_testkit_program::program_of_jar_with(Path::new(path), library)
}

/// The variable named `name` (from the local variable table) of `m`.
pub fn var(p: &Program, m: MethodId, name: &str) -> VarId {
    let body = p.body(m).expect("body");
    let found: Vec<usize> = body
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.name.as_deref() == Some(name))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(found.len(), 1, "variable {name} in {}", p.method_name(m));
    VarId(found[0] as u32)
}

pub fn solve(p: &Program, open: bool, config: Config) -> PointsToResult {
    let entries = entry_points(p, open);
    PointsTo::solve(p, &entries, config)
}

pub fn entries(p: &Program, open: bool) -> EntryPoints {
    entry_points(p, open)
}

/// The type names of the objects in a set (sorted, deduplicated).
pub fn types(r: &PointsToResult, set: &ObjectSet) -> BTreeSet<String> {
    set.iter()
        .map(|o| r.object(o).expect("object").type_name.to_string())
        .collect()
}

/// The type names of the application objects (`Main…`) in a set.
pub fn app_types(r: &PointsToResult, set: &ObjectSet) -> BTreeSet<String> {
    types(r, set)
        .into_iter()
        .filter(|t| t.starts_with("Main"))
        .collect()
}

/// Readable descriptions of the objects in a set.
pub fn describe(p: &Program, r: &PointsToResult, set: &ObjectSet) -> Vec<String> {
    set.iter().map(|o| r.describe_object(p, o)).collect()
}

/// Object sensitivity with no bound on contexts, JDK containers with contexts:
/// the default without the order-dependent bound (comparable with the reference solver).
pub fn two_obj() -> Config {
    Config {
        max_contexts_per_method: None,
        max_contexts: None,
        max_library_contexts: None,
        ..Config::default()
    }
}

/// The default with one context per method: every further context of a
/// method is the over-budget copy (tests of what runs past the bound).
pub fn one_context_per_method() -> Config {
    Config {
        max_contexts_per_method: Some(1),
        ..Config::default()
    }
}

/// `Set` of strings from string literals.
pub fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}
