//! The fast solver against the naive reference solver (identical results,
//! in structural keys), its call graph against RTA's (a subset), and its
//! determinism (same result whatever the thread count and run).

mod common;
use common::*;

use std::collections::BTreeSet;

use lockstep_pointsto::{reference, Canonical, Config, PointsTo, SiteKey};
use lockstep_program::{entry_points, rta, EntryPoints, Program};

const FIXTURES: &[(&str, &str, bool)] = &[
    ("separate", include_str!("fixtures/separate.java"), false),
    ("heap", include_str!("fixtures/heap.java"), false),
    ("threads", include_str!("fixtures/threads.java"), false),
    ("library", include_str!("fixtures/library.java"), true),
    ("callbacks", include_str!("fixtures/callbacks.java"), false),
    ("builders", include_str!("fixtures/builders.java"), false),
    ("copies", include_str!("fixtures/copies.java"), false),
];

fn configs() -> Vec<(&'static str, Config)> {
    vec![
        ("insensitive", Config::insensitive()),
        ("2-obj", two_obj()),
        (
            "1-obj, JDK with contexts",
            Config {
                max_contexts_per_method: None,
                max_contexts: None,
                max_library_contexts: None,
                ..Config::object(1, 0)
            },
        ),
    ]
}

/// Where two results differ, for the failure message.
fn difference(fast: &Canonical, slow: &Canonical) -> String {
    let mut out = String::new();
    let only = |a: &BTreeSet<String>, b: &BTreeSet<String>| -> Vec<String> {
        a.difference(b).take(8).cloned().collect()
    };
    let reach = |c: &Canonical| c.reachable.iter().map(|r| format!("{r:?}")).collect();
    let edges = |c: &Canonical| c.edges.iter().map(|r| format!("{r:?}")).collect();
    let (rf, rs) = (reach(fast), reach(slow));
    out.push_str(&format!(
        "reachable only fast: {:?}\nreachable only reference: {:?}\n",
        only(&rf, &rs),
        only(&rs, &rf)
    ));
    let (ef, es) = (edges(fast), edges(slow));
    out.push_str(&format!(
        "edges only fast: {:?}\nedges only reference: {:?}\n",
        only(&ef, &es),
        only(&es, &ef)
    ));
    let mut n = 0;
    for (k, v) in &fast.pts {
        if slow.pts.get(k) != Some(v) && n < 8 {
            n += 1;
            out.push_str(&format!(
                "pts differ at {k:?}:\n  fast {v:?}\n  ref  {:?}\n",
                slow.pts.get(k)
            ));
        }
    }
    for (k, v) in &slow.pts {
        if !fast.pts.contains_key(k) && n < 16 {
            n += 1;
            out.push_str(&format!("only in reference: {k:?}: {v:?}\n"));
        }
    }
    out
}

fn check_same(p: &Program, entries: &EntryPoints, what: &str, config: Config) {
    // The naive solver does not implement the JDK container models
    // (`Config::container_models`, on by default): compare without them.
    // The models are checked against expectations and for determinism in
    // `pointsto.rs`.
    let config = Config {
        container_models: false,
        ..config
    };
    let fast = PointsTo::solve(p, entries, config).canonical();
    let slow = reference::solve(p, entries, config);
    assert!(
        fast == slow,
        "{what}, {}: fast and reference solvers differ\n{}",
        config.describe(),
        difference(&fast, &slow)
    );
    assert!(!fast.pts.is_empty() && fast.reachable.len() > 1);
}

#[test]
fn fast_solver_equals_reference_on_fixtures() {
    // Over a cut-down JDK (see `small_jdk`): the naive solver cannot afford
    // the ten thousand JDK methods even a small program reaches.
    on_every_fixture(check_same);
}

/// Runs `check` on every fixture (over the cut-down JDK) in every
/// configuration of [`configs`].
fn on_every_fixture(check: fn(&Program, &EntryPoints, &str, Config)) {
    for (name, src, open) in FIXTURES {
        let p = small_program(src);
        let entries = entry_points(&p, *open);
        for (label, config) in configs() {
            check(&p, &entries, &format!("{name} ({label})"), config);
        }
    }
}

#[test]
fn fast_solver_equals_reference_on_a_real_jar() {
    // The whole jar as an open program, over the cut-down JDK.
    let Some(p) = program_of_jar_with(
        "/usr/share/java/commons-pool.jar",
        small_jdk_provider(small_jdk),
    ) else {
        println!("note: no commons-pool.jar; skipping");
        return;
    };
    let entries = entry_points(&p, true);
    assert!(entries.methods.len() > 100);
    check_same(&p, &entries, "commons-pool", Config::insensitive());
    check_same(&p, &entries, "commons-pool", two_obj());
}

/// Variables sharing a pointer (`Config::share_equal_slots`) get exactly
/// the sets they get with a pointer each, in every context, and nothing
/// else changes (call graph, fields, statics). Without bounds on contexts
/// the solution does not depend on the order of work, so it must be equal.
fn check_sharing_changes_nothing(p: &Program, entries: &EntryPoints, what: &str, config: Config) {
    let shared = PointsTo::solve(p, entries, config);
    let apart = PointsTo::solve(
        p,
        entries,
        Config {
            share_equal_slots: false,
            ..config
        },
    );
    let heap = |c: lockstep_pointsto::Canonical| {
        let pts: Vec<_> = c
            .pts
            .into_iter()
            .filter(|(k, _)| !matches!(k, lockstep_pointsto::CanonPtr::Var(..)))
            .collect();
        (c.reachable, c.edges, pts)
    };
    assert!(
        heap(shared.canonical()) == heap(apart.canonical()),
        "{what}, {}: sharing slots changed the call graph or the heap",
        config.describe()
    );
    let (vs, va) = (shared.canonical_vars(), apart.canonical_vars());
    let differ: Vec<_> = va
        .iter()
        .filter(|(k, v)| vs.get(*k) != Some(*v))
        .take(4)
        .collect();
    assert!(
        differ.is_empty() && vs.len() == va.len(),
        "{what}, {}: variables' sets differ: {differ:?}",
        config.describe()
    );
    assert!(!vs.is_empty());
}

#[test]
fn shared_slots_give_every_variable_its_own_set() {
    on_every_fixture(check_sharing_changes_nothing);
    if let Some(p) = program_of_jar_with(
        "/usr/share/java/commons-pool.jar",
        small_jdk_provider(small_jdk),
    ) {
        let entries = entry_points(&p, true);
        check_sharing_changes_nothing(&p, &entries, "commons-pool", Config::insensitive());
        check_sharing_changes_nothing(&p, &entries, "commons-pool", two_obj());
    }
}

/// A container model's callbacks made once per site on the contents of
/// every container reaching it (`Config::gather_callback_contents`) give
/// the solution of one callback per container: the same method contexts,
/// call edges and points-to sets (contexts unbounded, so the order of work
/// does not matter). Returns the model's calls with and without.
fn check_gathering_changes_nothing(
    p: &Program,
    entries: &EntryPoints,
    what: &str,
    config: Config,
) -> (usize, usize) {
    let gathered = PointsTo::solve(p, entries, config);
    let apart = PointsTo::solve(
        p,
        entries,
        Config {
            gather_callback_contents: false,
            ..config
        },
    );
    let (g, a) = (gathered.canonical(), apart.canonical());
    assert!(
        g == a,
        "{what}, {}: gathering the callbacks' contents changed the solution: {}",
        config.describe(),
        difference(&g, &a)
    );
    (
        gathered.stats().model_callbacks,
        apart.stats().model_callbacks,
    )
}

#[test]
fn container_callbacks_once_per_site_change_nothing() {
    let nested = ("nested", include_str!("fixtures/nested.java"), false);
    for (name, src, open) in FIXTURES.iter().chain([&nested]) {
        let p = small_program(src);
        let entries = entry_points(&p, *open);
        for (label, config) in configs() {
            check_gathering_changes_nothing(&p, &entries, &format!("{name} ({label})"), config);
        }
    }
    // With the whole JDK: the nested containers' callbacks reach the
    // models again (a set's lists' `hashCode` is a list's `hashCode`),
    // once per site instead of once per list.
    let p = program(include_str!("fixtures/nested.java"));
    let entries = entry_points(&p, false);
    let (gathered, apart) = check_gathering_changes_nothing(&p, &entries, "nested", two_obj());
    assert!(
        gathered < apart,
        "nested: {gathered} calls back gathered, {apart} apart"
    );
    if let Some(p) = program_of_jar_with(
        "/usr/share/java/commons-pool.jar",
        small_jdk_provider(small_jdk),
    ) {
        let entries = entry_points(&p, true);
        check_gathering_changes_nothing(&p, &entries, "commons-pool", two_obj());
    }
}

/// Every points-to call edge is an RTA edge, with two explained kinds of
/// exceptions: (1) a started plain `Thread` runs `Thread.run` (whose code
/// calls the `Runnable` given to the constructor) where RTA jumps to the
/// `Runnable` directly, so the launch edge goes to `Thread.run` and the
/// edges below it start in a method RTA does not reach; (2) receivers RTA
/// does not model: harness objects of open programs, opaque results of
/// natives, objects the JVM makes, and what follows from them; (3) calls
/// declared on `MethodHandle`/`VarHandle`, which RTA does not dispatch.
fn check_subset_of_rta(p: &Program, entries: &EntryPoints) -> usize {
    let r = PointsTo::solve(p, entries, Config::default());
    let g = rta(p, entries);
    let mut unexplained = Vec::new();
    let mut explained = 0;
    for e in &r.call_graph().edges {
        if g.edges.binary_search(e).is_ok() {
            continue;
        }
        let plain_thread_run = e.kind == lockstep_program::EdgeKind::TaskLaunch
            && &*p.class(p.method(e.callee).class).name == "java/lang/Thread"
            && g.callees_at(e.caller, e.site)
                .iter()
                .any(|x| x.kind == lockstep_program::EdgeKind::TaskLaunch);
        let below_thread_run = is_below_plain_thread_run(p, &r, &g, e.caller);
        if plain_thread_run || below_thread_run {
            explained += 1;
            continue;
        }
        // RTA resolves every virtual call declared on `MethodHandle` or
        // `VarHandle` by name, without dispatch (meant for the
        // signature-polymorphic natives); points-to dispatches them.
        let declared_on_handle = p
            .body(e.caller)
            .and_then(|b| match &b.stmts.get(e.site.index())?.kind {
                lockstep_ir::StmtKind::Invoke { call, .. } => Some(call.method.class.clone()),
                _ => None,
            })
            .is_some_and(|c| {
                matches!(
                    &*c,
                    "java/lang/invoke/MethodHandle" | "java/lang/invoke/VarHandle"
                )
            });
        if declared_on_handle {
            explained += 1;
            continue;
        }
        // (4) The container models' calls back into the program (a key's
        // `hashCode`, a functional argument, `toArray` of a container
        // copied from; `Config::container_models`) leave from the
        // container call's own site, where RTA's edge, and points-to's
        // own, goes into a method of a modelled JDK container.
        let modelled_site = g.callees_at(e.caller, e.site).iter().any(|x| {
            is_modelled_container_method(p, x.callee)
                && r.call_graph().edges.binary_search(x).is_ok()
        }) || is_cursor_method(p, e.callee);
        if modelled_site {
            explained += 1;
            continue;
        }
        let caller_outside_rta = !g.is_reachable(e.caller);
        let special_receiver = p
            .body(e.caller)
            .and_then(|b| match &b.stmts.get(e.site.index())?.kind {
                lockstep_ir::StmtKind::Invoke { call, .. } => call.receiver.as_ref()?.var(),
                _ => None,
            })
            .map(|v| {
                r.var(e.caller, v).iter().any(|o| {
                    let info = r.object(o).unwrap();
                    let known_to_rta = match info.site {
                        SiteKey::Alloc { method, .. }
                        | SiteKey::Lambda { method, .. }
                        | SiteKey::ConstructorRef { method, .. } => g.is_reachable(*method),
                        // Merged per class: RTA knows the class if it is live.
                        // A copy has its original's class.
                        SiteKey::Library(t)
                        | SiteKey::Exception(t)
                        | SiteKey::Copy { ty: t, .. } => {
                            p.class_by_name(t).is_none_or(|c| g.is_instantiated(c))
                        }
                        // JVM-made in RTA too.
                        SiteKey::StringConstant | SiteKey::ClassLiteral(_) => true,
                        SiteKey::Opaque(_)
                        | SiteKey::Vm(_)
                        | SiteKey::Entry(_)
                        | SiteKey::External { .. }
                        | SiteKey::Constant(_)
                        | SiteKey::ContainerPart { .. } => false,
                        // Never objects.
                        SiteKey::Main(_)
                        | SiteKey::OverBudget
                        | SiteKey::OverBudgetCaller(_)
                        | SiteKey::Modelled => false,
                    };
                    !known_to_rta
                })
            })
            .unwrap_or(false);
        if caller_outside_rta || special_receiver {
            explained += 1;
        } else {
            unexplained.push(format!(
                "{} @{} -> {} ({:?})",
                p.method_name(e.caller),
                e.site.0,
                p.method_name(e.callee),
                e.kind
            ));
        }
    }
    assert!(
        unexplained.is_empty(),
        "{} points-to edges not in RTA: {:#?}",
        unexplained.len(),
        &unexplained[..unexplained.len().min(20)]
    );
    explained
}

/// Is `m` declared by a JDK container class the content models know, or
/// by one of its supertypes (`AbstractMap`, `Collection`, `Map`, ...)?
fn is_modelled_container_method(p: &Program, m: lockstep_program::MethodId) -> bool {
    let declaring = p.method(m).class;
    lockstep_models::content::content_classes().iter().any(|c| {
        p.class_by_name(c.class)
            .is_some_and(|k| k == declaring || p.supertypes(k).contains(&declaring))
    })
}

/// Is `m` a method of the interfaces the container models' cursors stand
/// for (`Iterator.next`, `Map$Entry.getValue`, ...)? A call on a cursor
/// gets an edge to the method the call names, where RTA's go to the JDK's
/// iterator and entry classes.
fn is_cursor_method(p: &Program, m: lockstep_program::MethodId) -> bool {
    matches!(
        &*p.class(p.method(m).class).name,
        "java/util/Iterator"
            | "java/util/ListIterator"
            | "java/util/Map$Entry"
            | "java/util/Spliterator"
    ) && p.method(m).is_abstract()
}

/// Is `m` reached (outside RTA) only through `Thread.run` of a plain thread?
fn is_below_plain_thread_run(
    p: &Program,
    r: &lockstep_pointsto::PointsToResult,
    g: &lockstep_program::CallGraph,
    m: lockstep_program::MethodId,
) -> bool {
    let mut seen = BTreeSet::new();
    let mut work = vec![m];
    while let Some(x) = work.pop() {
        if !seen.insert(x) {
            continue;
        }
        if &*p.class(p.method(x).class).name == "java/lang/Thread" && &*p.method(x).name == "run" {
            continue;
        }
        if g.is_reachable(x) {
            // Reachable in RTA by its own means: not explained by Thread.run.
            if x == m {
                return false;
            }
            continue;
        }
        let callers: Vec<_> = r.call_graph().callers(x).map(|e| e.caller).collect();
        if callers.is_empty() {
            return false;
        }
        work.extend(callers);
    }
    true
}

#[test]
fn call_edges_are_a_subset_of_rta() {
    for (name, src, open) in FIXTURES {
        if *open {
            continue;
        }
        let p = program(src);
        let entries = entry_points(&p, false);
        let explained = check_subset_of_rta(&p, &entries);
        println!("{name}: {explained} edges explained by objects RTA does not model");
    }
}

#[test]
fn call_edges_are_strictly_a_subset_of_rta_on_the_small_jdk() {
    // Without natives, MethodHandles and harness objects in play, nothing
    // needs explaining but the plain-thread launch and the container
    // models' edges from calls on their cursors.
    for (name, src, open) in FIXTURES {
        if *open {
            continue;
        }
        let p = small_program(src);
        let entries = entry_points(&p, false);
        let r = PointsTo::solve(&p, &entries, Config::default());
        let g = rta(&p, &entries);
        for e in &r.call_graph().edges {
            let plain_thread = &*p.class(p.method(e.callee).class).name == "java/lang/Thread"
                || &*p.class(p.method(e.caller).class).name == "java/lang/Thread";
            assert!(
                plain_thread || g.edges.binary_search(e).is_ok() || is_cursor_method(&p, e.callee),
                "{name}: {} @{} -> {} not in RTA",
                p.method_name(e.caller),
                e.site.0,
                p.method_name(e.callee)
            );
        }
        assert!(r.call_graph().edges.len() > 10);
    }
}

#[test]
fn call_edges_are_a_subset_of_rta_on_a_real_jar() {
    let Some(p) = program_of_jar("/usr/share/java/commons-pool.jar") else {
        println!("note: no commons-pool.jar; skipping");
        return;
    };
    let entries = entry_points(&p, true);
    let explained = check_subset_of_rta(&p, &entries);
    println!("commons-pool: {explained} edges explained by harness or opaque objects");
}

#[test]
fn results_do_not_depend_on_threads_or_runs() {
    let src = include_str!("fixtures/threads.java");
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            // A fresh program each time: library classes load (and get ids)
            // in the order the analysis asks for them.
            let p = program(src);
            let entries = entry_points(&p, false);
            let r = PointsTo::solve(&p, &entries, Config::default());
            let mut stats = r.stats().clone();
            stats.millis = 0;
            (r.canonical(), stats, r.call_graph().edges.len())
        })
    };
    let one = run(1);
    let two = run(2);
    let again = run(2);
    assert!(one == two, "1 vs 2 threads differ");
    assert!(two == again, "two runs differ");
}
