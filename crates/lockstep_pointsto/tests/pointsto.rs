//! What the analysis finds on small Java programs: object sensitivity,
//! arrays, static fields, lambdas, thread starts, JDK models, harness
//! objects of open programs, access paths.

mod common;
use common::*;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use lockstep_ir::AccessPath;
use lockstep_pointsto::{Config, ContextId, SiteKey};
use lockstep_program::EdgeKind;

/// Two boxes, two counters, two threads: the thesis' §3.2.7 situation.
const SEPARATE: &str = include_str!("fixtures/separate.java");

#[test]
fn object_sensitivity_separates_two_this_objects() {
    let p = program(SEPARATE);
    let main = method(&p, "Main", "main");
    let (x, y) = (var(&p, main, "x"), var(&p, main, "y"));

    let ci = solve(&p, false, Config::insensitive());
    assert_eq!(
        types(&ci, &ci.var(main, x)),
        set(&["Main$Item", "Main$Other"])
    );
    assert_eq!(
        types(&ci, &ci.var(main, y)),
        set(&["Main$Item", "Main$Other"])
    );
    assert!(ci.may_alias_vars(main, x, main, y));

    let os = solve(&p, false, Config::default());
    assert_eq!(types(&os, &os.var(main, x)), set(&["Main$Item"]));
    assert_eq!(types(&os, &os.var(main, y)), set(&["Main$Other"]));
    assert!(!os.may_alias_vars(main, x, main, y));

    // `Box.set` runs in one context per box; `this` is one object in each.
    let set_m = method(&p, "Main$Box", "set");
    let this = p.body(set_m).unwrap().params[0];
    let ctxs = os.contexts_of(set_m);
    assert_eq!(ctxs.len(), 2, "{ctxs:?}");
    for c in ctxs {
        assert_eq!(os.var_in(set_m, c, this).len(), 1);
    }
    assert_eq!(ci.contexts_of(set_m), vec![ContextId::EMPTY]);
    assert_eq!(ci.var(set_m, this).len(), 2);
}

#[test]
fn threads_on_separate_objects_are_told_apart() {
    let p = program(SEPARATE);
    let run = method(&p, "Main$Counter", "run");
    let this = p.body(run).unwrap().params[0];
    let path = AccessPath::Field(Arc::new(AccessPath::This), "lock".into());
    // Insensitive: one context, both counters in `this`, one lock object
    // (one allocation site). Object-sensitive: a context per counter, one
    // counter and one lock in each, the two locks apart.
    for (config, contexts) in [(Config::insensitive(), 1usize), (Config::default(), 2)] {
        let r = solve(&p, false, config);
        // Both threads are started and run `Counter.run` on their counter.
        let starts: Vec<_> = r
            .thread_starts()
            .iter()
            .filter(|t| p.method(t.caller.method).name.as_ref() == "main")
            .collect();
        assert_eq!(starts.len(), 2, "{starts:?}");
        for t in &starts {
            assert_eq!(
                r.object(t.task).unwrap().type_name.as_ref(),
                "java/lang/Thread"
            );
        }
        assert!(r.call_graph().is_reachable(run));
        assert_eq!(r.contexts_of(run).len(), contexts);
        let mut locks = lockstep_pointsto::ObjectSet::new();
        for c in r.contexts_of(run) {
            let lock = r.path(&p, run, Some(c), &path).unwrap();
            assert_eq!(lock.len(), 1, "{}", config.describe());
            assert_eq!(r.var_in(run, c, this).len(), 3 - contexts);
            locks.union_with(&lock);
        }
        assert_eq!(locks.len(), contexts);
    }
}

#[test]
fn jdk_containers_keep_application_lists_apart() {
    let p = program(SEPARATE);
    let main = method(&p, "Main", "main");
    let (e1, e2) = (var(&p, main, "e1"), var(&p, main, "e2"));
    let os = solve(&p, false, Config::default());
    assert_eq!(types(&os, &os.var(main, e1)), set(&["Main$Item"]));
    assert_eq!(types(&os, &os.var(main, e2)), set(&["Main$Other"]));
    // Without contexts, analysing the lists' bytecode, every list shares
    // one element array (and so does the JDK).
    let bytecode = Config {
        container_models: false,
        ..Config::insensitive()
    };
    let ci = solve(&p, false, bytecode);
    let merged = types(&ci, &ci.var(main, e1));
    assert!(merged.contains("Main$Item") && merged.contains("Main$Other"));
    // The content models (the default) keep each list's elements even then.
    let cm = solve(&p, false, Config::insensitive());
    assert_eq!(types(&cm, &cm.var(main, e1)), set(&["Main$Item"]));
    assert_eq!(types(&cm, &cm.var(main, e2)), set(&["Main$Other"]));
}

const HEAP: &str = include_str!("fixtures/heap.java");

#[test]
fn arrays_statics_lambdas_and_models() {
    let p = program(HEAP);
    let main = method(&p, "Main", "main");
    let r = solve(&p, false, Config::default());
    let t = |name: &str| types(&r, &r.var(main, var(&p, main, name)));
    // One element field per array object, arrays apart.
    assert_eq!(t("fromArr"), set(&["Main$A", "Main$B"]));
    assert_eq!(t("fromArr2"), set(&["Main$C"]));
    assert_eq!(t("row"), set(&["[I"]));
    // Static fields are global.
    assert_eq!(t("fromStatic"), set(&["Main$D"]));
    assert_eq!(
        types(&r, &r.static_field(&p, "Main", "shared")),
        set(&["Main$D"])
    );
    // Lambdas: captured values, method references, constructor references.
    assert_eq!(t("fromLambda"), set(&["Main$E"]));
    assert_eq!(t("fromRef"), set(&["Main$F"]));
    assert_eq!(t("fromCtor"), set(&["Main$G"]));
    // JDK models: arraycopy, clone, Unsafe (ConcurrentHashMap), VarHandle (AtomicReference).
    assert_eq!(t("copied"), set(&["Main$H"]));
    assert_eq!(t("fromClone"), set(&["Main$H"]));
    // `Unsafe` accesses at untracked offsets may touch any field of the
    // right type: a map's values may include the JVM's thread object
    // (`TreeBin.waiter`), but no other application object.
    assert_eq!(
        app_types(&r, &r.var(main, var(&p, main, "fromMap"))),
        set(&["Main$I"])
    );
    assert!(t("fromAtomic").contains("Main$A"), "{:?}", t("fromAtomic"));
    // Objects the JVM makes, constants, opaque results.
    let current = r.var(main, var(&p, main, "current"));
    assert!(current
        .iter()
        .any(|o| matches!(r.object(o).unwrap().site, SiteKey::Vm(_))));
    assert_eq!(t("out"), set(&["java/io/PrintStream"]));
    assert_eq!(t("concat"), set(&["java/lang/String"]));
    let klass = r.var(main, var(&p, main, "klass"));
    assert_eq!(klass.len(), 1);
    assert_eq!(
        r.object(klass.iter().next().unwrap()).unwrap().site,
        &SiteKey::ClassLiteral("java/lang/String".into())
    );
    // Allocation sites carry their line.
    let a = r
        .var(main, var(&p, main, "fromArr2"))
        .iter()
        .next()
        .unwrap();
    let info = r.alloc_info(&p, a).unwrap();
    assert_eq!(
        (info.method, info.type_name.as_ref()),
        (Some(main), "Main$C")
    );
    assert!(info.line.is_some());
}

const BUILDERS: &str = include_str!("fixtures/builders.java");

/// A builder's `append`/`insert`/`reverse`/... returns the builder it was
/// called on (`lockstep_models::returns_receiver`), also where one context
/// of `append` is shared by several builders (one context per method here,
/// so the second and third receivers share the over-budget one); the
/// body stays analysed (`append(Object)` still calls `Label.toString`).
/// The twin: an application `Chain.add` returning `this` has no model, and
/// its chained calls on the receivers sharing a context hold both.
#[test]
fn builders_return_their_receiver() {
    let p = program(BUILDERS);
    let main = method(&p, "Main", "main");
    let r = solve(&p, false, one_context_per_method());
    let v = |name: &str| r.var(main, var(&p, main, name));
    for (result, builder) in [
        ("r1", "sb1"),
        ("r2", "sb2"),
        ("r3", "sb3"),
        ("q1", "sb1"),
        ("q2", "sb2"),
        ("q3", "sb3"),
        ("b1", "buf1"),
        ("b2", "buf2"),
        ("b3", "buf3"),
    ] {
        assert_eq!(v(result).len(), 1, "{result}");
        assert_eq!(v(result), v(builder), "{result} is {builder}");
    }
    assert!(!types(&r, &v("s")).iter().any(|t| t.contains("Builder")));
    let to_string = method(&p, "Main$Label", "toString");
    assert!(r.call_graph().is_reachable(to_string));
    // The application's own fluent class merges past the bound.
    let (c2, c3) = (v("c2"), v("c3"));
    assert_eq!(v("k1"), v("c1"));
    for k in ["k2", "k3"] {
        let held = v(k);
        assert!(
            c2.iter().chain(c3.iter()).all(|o| held.contains(o)),
            "{k} holds both receivers of the shared context"
        );
    }
}

const THREADS: &str = include_str!("fixtures/threads.java");

#[test]
fn thread_objects_are_roots() {
    let p = program(THREADS);
    let r = solve(&p, false, Config::default());
    let main = method(&p, "Main", "main");
    let d = r.var(main, var(&p, main, "d"));
    assert_eq!(d.len(), 1);
    // The worker's `run` sees the main thread's Data through its field.
    let run = method(&p, "Main$Worker", "run");
    let data = AccessPath::Field(Arc::new(AccessPath::This), "data".into());
    assert_eq!(r.path(&p, run, None, &data).unwrap(), d);
    // Every start site reaches its task, and each task's entry runs.
    let mut kinds: Vec<String> = r
        .thread_starts()
        .iter()
        .filter(|t| t.caller.method == main)
        .map(|t| r.object(t.task).unwrap().type_name.to_string())
        .collect();
    kinds.sort();
    kinds.dedup();
    assert!(kinds.contains(&"Main$Worker".to_string()), "{kinds:?}");
    assert!(kinds.contains(&"Main$Task".to_string()), "{kinds:?}");
    assert!(kinds.iter().any(|k| k.starts_with("lambda@")), "{kinds:?}");
    assert!(kinds.contains(&"java/lang/Thread".to_string()), "{kinds:?}");
    let call = method(&p, "Main$Task", "call");
    assert!(r.call_graph().is_reachable(call));
    let launches: Vec<_> = r
        .call_graph()
        .callees(main)
        .iter()
        .filter(|e| e.kind == EdgeKind::TaskLaunch)
        .map(|e| p.method_name(e.callee))
        .collect();
    assert!(
        launches.iter().any(|n| n.starts_with("Main$Task.call")),
        "{launches:?}"
    );
    assert!(
        launches.iter().any(|n| n.starts_with("Main.lambda$main$")),
        "{launches:?}"
    );
    for t in r.thread_starts() {
        assert!(!r.thread_entries(t).is_empty());
    }
    // The lambda run by `new Thread(..)` captured `d`.
    let lambda_bodies: Vec<_> = r
        .call_graph()
        .reachable
        .iter()
        .copied()
        .filter(|&m| p.method(m).name.starts_with("lambda$main$"))
        .collect();
    assert_eq!(lambda_bodies.len(), 2);
    for m in lambda_bodies {
        let param = p.body(m).unwrap().params[0];
        assert_eq!(r.var(m, param), d);
    }
}

const LIBRARY: &str = include_str!("fixtures/library.java");

#[test]
fn open_programs_run_entries_on_harness_objects() {
    let p = program(LIBRARY);
    let r = solve(&p, true, Config::default());
    let put = method(&p, "Main$Pool", "put");
    let take = method(&p, "Main$Pool", "take");
    let body = p.body(put).unwrap();
    let this = r.var(put, body.params[0]);
    assert_eq!(this.len(), 1);
    let o = this.iter().next().unwrap();
    assert_eq!(
        r.object(o).unwrap().site,
        &SiteKey::Entry("Main$Pool".into())
    );
    // The parameter is an external object of its own declaration, stored
    // into the receiver and read back by another entry.
    let param = r.var(put, body.params[1]);
    assert_eq!(
        r.object(param.iter().next().unwrap()).unwrap().site,
        &SiteKey::External {
            origin: "Main$Pool.put(Ljava/lang/Object;)V#0".into(),
            ty: "java/lang/Object".into()
        }
    );
    assert_eq!(r.field(o, "Main$Pool", "last"), param);
    let ret = r
        .path(
            &p,
            take,
            None,
            &AccessPath::Field(Arc::new(AccessPath::This), "last".into()),
        )
        .unwrap();
    assert_eq!(ret, param);
    // The array allocated by the constructor holds the parameter.
    let slots = r.field(o, "Main$Pool", "slots");
    assert_eq!(slots.len(), 1);
    assert_eq!(r.elements(slots.iter().next().unwrap()), param);
    assert!(r.may_alias_paths(
        &p,
        (put, &AccessPath::Param(0, None)),
        (
            take,
            &AccessPath::Field(Arc::new(AccessPath::This), "last".into())
        )
    ));
}

#[test]
fn statistics_and_contexts_are_reported() {
    let p = program(SEPARATE);
    let r = solve(&p, false, Config::default());
    let s = r.stats();
    assert!(s.reachable_methods > 10 && s.objects > 5 && s.pointers > 10);
    assert_eq!(s.reachable_methods, r.call_graph().reachable.len());
    assert!(s.method_contexts >= s.reachable_methods);
    let set_m = method(&p, "Main$Box", "set");
    for c in r.contexts_of(set_m) {
        let sites = r.context(c);
        assert!(!sites.is_empty());
        assert!(sites[0].is_allocation());
    }
    for mc in r.method_contexts() {
        assert!(r.call_graph().is_reachable(mc.method));
        for e in r.context_callees(mc) {
            assert_eq!(e.caller, mc);
            assert!(r.context_callers(e.callee).any(|x| x == e));
        }
    }
    // `main` runs in a context of its own, not the JDK's empty one.
    let main = method(&p, "Main", "main");
    let entry = r.entry_contexts();
    assert_eq!(entry.len(), 1);
    assert_eq!(entry[0].method, main);
    assert_eq!(
        r.context(entry[0].context),
        vec![&SiteKey::Main("Main".into())]
    );
}

/// Callers of `String.valueOf` and `Iterable.forEach` handing them objects of their own.
const CALLBACKS: &str = include_str!("fixtures/callbacks.java");

/// The application types the first parameter (`this` of an instance
/// method) of `class.method` holds, per context in which it holds any.
fn first_param_app_types(
    p: &lockstep_program::Program,
    config: Config,
    class: &str,
    method_spec: &str,
) -> Vec<BTreeSet<String>> {
    let r = solve(p, false, config);
    let m = method(p, class, method_spec);
    let x = p.body(m).unwrap().params[0];
    let mut per_context: Vec<BTreeSet<String>> = r
        .contexts_of(m)
        .into_iter()
        .map(|c| app_types(&r, &r.var_in(m, c, x)))
        .filter(|t| !t.is_empty())
        .collect();
    per_context.sort();
    per_context
}

/// The application types the parameter of `String.valueOf(Object)` holds,
/// per context in which it holds any.
fn value_of_params(p: &lockstep_program::Program, config: Config) -> Vec<BTreeSet<String>> {
    first_param_app_types(
        p,
        config,
        "java/lang/String",
        "valueOf(Ljava/lang/Object;)Ljava/lang/String;",
    )
}

#[test]
fn jdk_callback_methods_run_in_their_callers_context() {
    let p = program(CALLBACKS);
    // Default: one copy of `valueOf` per calling `Printer`, each with its object.
    assert_eq!(
        value_of_params(&p, Config::default()),
        vec![set(&["Main$Named"]), set(&["Main$Other"])]
    );
    // JDK without contexts: one copy, every caller's object in it.
    let no_jdk_contexts = Config {
        library: lockstep_pointsto::LibraryContexts::None,
        ..Config::default()
    };
    assert_eq!(
        value_of_params(&p, no_jdk_contexts),
        vec![set(&["Main$Named", "Main$Other"])]
    );
}

#[test]
fn iterable_for_each_runs_in_its_callers_context() {
    let p = program(CALLBACKS);
    let r = solve(&p, false, Config::default());
    let for_each = method(&p, "java/lang/Iterable", "forEach");
    let main = method(&p, "Main", "main");
    let main_ctx = r.contexts_of(main);
    assert_eq!(main_ctx.len(), 1);
    assert_eq!(r.contexts_of(for_each), main_ctx);
}

#[test]
fn static_entries_run_outside_the_jdks_empty_context() {
    let p = program(CALLBACKS);
    let main = method(&p, "Main", "main");
    let r = solve(&p, false, Config::default());
    let ctxs = r.contexts_of(main);
    assert_eq!(ctxs.len(), 1);
    assert_ne!(ctxs[0], ContextId::EMPTY);
    assert_eq!(r.context(ctxs[0]), vec![&SiteKey::Main("Main".into())]);
    // Without contexts there is only the empty one.
    let ci = solve(&p, false, Config::insensitive());
    assert_eq!(ci.contexts_of(main), vec![ContextId::EMPTY]);
}

/// JDK containers reached before application code, and a bound too small for both.
const BUDGET: &str = include_str!("fixtures/budget.java");

/// A bound of `max` method contexts, `library` of them at most for JDK
/// methods, no per-method bound (the containers' sites stay apart).
/// Constructors within the bounds: the printers' constructors count
/// against the bound as the test's arithmetic expects (outside them, the
/// bound of 16 is no longer spent before `show`). The containers'
/// bytecode is analysed (no content models): what spends the bound here
/// is their JDK methods' contexts.
fn bounded(max: u32, library: Option<u32>) -> Config {
    Config {
        max_contexts_per_method: None,
        max_contexts: Some(max),
        max_library_contexts: library,
        constructors_per_object: false,
        container_models: false,
        ..Config::default()
    }
}

/// Is every context of `Printer.show` the over-budget one?
fn show_over_budget(p: &lockstep_program::Program, config: Config) -> bool {
    let r = solve(p, false, config);
    let show = method(p, "Main$Printer", "show");
    let ctxs = r.contexts_of(show);
    assert!(!ctxs.is_empty(), "show unreached");
    ctxs.iter()
        .all(|&c| r.context(c) == vec![&SiteKey::OverBudget])
}

#[test]
fn the_jdk_share_of_the_bound_keeps_contexts_for_application_code() {
    let p = program(BUDGET);
    // Unbounded: one copy of `valueOf` per printer.
    let apart = vec![set(&["Main$Named"]), set(&["Main$Other"])];
    assert_eq!(value_of_params(&p, two_obj()), apart);
    // The JDK containers reached first spend a bound of 16: the printers
    // run over budget, and so does their copy of `valueOf`, merged.
    let jdk_first = bounded(16, None);
    assert!(show_over_budget(&p, jdk_first));
    assert_eq!(
        value_of_params(&p, jdk_first),
        vec![set(&["Main$Named", "Main$Other"])]
    );
    // The same bound with at most 4 JDK contexts: the printers keep theirs,
    // and so do their copies of `valueOf` (running in the caller's context,
    // they count as the caller's, not against the JDK share).
    let shared = bounded(16, Some(4));
    assert!(!show_over_budget(&p, shared));
    assert_eq!(value_of_params(&p, shared), apart);
    let r = solve(&p, false, shared);
    assert!(r.stats().budget_fallbacks > 0, "the share was not reached");
}

/// An object of a class that does not load (here `SimpleDateFormat`, cut
/// from the small JDK, as a missing optional dependency is from a real
/// classpath) stored in an `Object` field next to a list.
const MISSING_CLASS: &str = r#"
public class Main {
    static Object any;
    public static void main(String[] args) {
        any = new java.text.SimpleDateFormat();
        if (args.length > 0) {
            any = new java.util.ArrayList<String>();
        }
        java.util.ArrayList<?> list = (java.util.ArrayList<?>) any;
        Object plain = any;
        System.out.println(list.size() + "" + plain);
    }
}
"#;

#[test]
fn objects_of_classes_that_do_not_load_pass_only_object_filters() {
    let p = small_program(MISSING_CLASS);
    let main = method(&p, "Main", "main");
    let r = solve(&p, false, Config::default());
    let plain = types(&r, &r.var(main, var(&p, main, "plain")));
    assert!(
        plain.iter().any(|t| t.contains("SimpleDateFormat")),
        "an `Object` variable keeps the object of the missing class: {plain:?}"
    );
    let list = types(&r, &r.var(main, var(&p, main, "list")));
    assert!(
        list.iter().all(|t| t.contains("ArrayList")) && !list.is_empty(),
        "a cast to a class that loads keeps only its instances: {list:?}"
    );
}

/// Objects printed through `Object.toString` by callers in a shared context.
const SHARED_CALLERS: &str = include_str!("fixtures/shared_callers.java");

/// The application types the `this` of `Object.toString` holds, per context
/// in which it holds any.
fn object_to_string_receivers(
    p: &lockstep_program::Program,
    config: Config,
) -> Vec<BTreeSet<String>> {
    first_param_app_types(
        p,
        config,
        "java/lang/Object",
        "toString()Ljava/lang/String;",
    )
}

#[test]
fn jdk_callbacks_from_the_over_budget_context_can_run_per_application_receiver() {
    let p = program(SHARED_CALLERS);
    let shared = one_context_per_method();
    // Known limitation of the default (the setting costs too much on big
    // programs): one over-budget copy of `Object.toString` for both printers.
    assert_eq!(
        object_to_string_receivers(&p, shared),
        vec![set(&["Main$Blue", "Main$Green"]), set(&["Main$Red"])]
    );
    let one_per_method = Config {
        callbacks_per_receiver: true,
        ..shared
    };
    // The printers past the bound run in the over-budget context, but the
    // copy of `Object.toString` each of their objects reaches is its own.
    let r = solve(&p, false, one_per_method);
    let show = method(&p, "Main$Printer", "show");
    assert!(r
        .contexts_of(show)
        .iter()
        .any(|&c| r.context(c) == vec![&SiteKey::OverBudget]));
    assert_eq!(
        object_to_string_receivers(&p, one_per_method),
        vec![
            set(&["Main$Blue"]),
            set(&["Main$Green"]),
            set(&["Main$Red"])
        ]
    );
    // Unbounded, each printer's context has its own copy anyway.
    assert_eq!(
        object_to_string_receivers(&p, two_obj()),
        vec![
            set(&["Main$Blue"]),
            set(&["Main$Green"]),
            set(&["Main$Red"])
        ]
    );
}

const GRAPHICS: &str = r#"
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;

public class Main {
    public static void main(String[] args) {
        BufferedImage img = new BufferedImage(2, 2, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        Object hint = g.getRenderingHints();
    }
}
"#;

/// A summarised method (`BufferedImage.createGraphics`, behind the JDK
/// boundary) declared to return the abstract `Graphics2D` returns an
/// object of the JDK implementation the boundary names, as RTA makes
/// live, so calls on it resolve; its own result is opaque in turn.
#[test]
fn summarised_abstract_results_are_their_jdk_implementation() {
    let p = program(GRAPHICS);
    let main = method(&p, "Main", "main");
    let r = solve(&p, false, Config::default());
    let t = |name: &str| types(&r, &r.var(main, var(&p, main, name)));
    assert_eq!(t("g"), set(&["sun/java2d/SunGraphics2D"]));
    assert_eq!(t("hint"), set(&["java/awt/RenderingHints"]));
}

const BREAKDOWN: &str = r#"
package app.store;

public class Main {
    Object item;
    public static void main(String[] args) {
        Main m = new Main();
        m.item = new StringBuilder("x");
        Object same = m.item;
        System.out.println(same);
    }
}
"#;

/// `facts_by_package` (the `--stats` breakdown) accounts for every
/// variable and object-field fact of the run, most facts first: the
/// application package holds its variables' facts and the field facts of
/// the objects its methods allocated (`Main.item`, the builder's own).
#[test]
fn facts_by_package_account_for_variables_and_fields() {
    let p = program(BREAKDOWN);
    let r = solve(&p, false, Config::default());
    let rows = r.facts_by_package(&p);
    let s = r.stats();
    let total: u64 = rows.iter().map(|r| r.facts()).sum();
    assert_eq!(total, s.var_facts + s.field_facts);
    assert!(rows.windows(2).all(|w| w[0].facts() >= w[1].facts()));
    let app = rows
        .iter()
        .find(|r| r.package == "app/store")
        .expect("the application package");
    // `m`, `this` of the constructor, the builder, `same` (at least).
    assert!(app.var_facts >= 4, "{app:?}");
    let allocated_here: usize = r
        .objects()
        .filter(|&o| {
            r.alloc_info(&p, o)
                .and_then(|a| a.method)
                .is_some_and(|m| p.class(p.method(m).class).name.starts_with("app/store/"))
        })
        .flat_map(|o| r.fields_of(o))
        .map(|(_, set)| set.len())
        .sum();
    assert!(allocated_here >= 1, "Main.item");
    assert_eq!(app.field_facts, allocated_here as u64);
    assert_eq!(app.method_contexts, 2, "main and the constructor");
    let classes = r.facts_by_class(&p);
    let main = classes
        .iter()
        .find(|r| r.package == "app/store/Main")
        .expect("the class");
    assert_eq!(
        (main.var_facts, main.field_facts),
        (app.var_facts, app.field_facts)
    );
}

const LISTENER: &str = r#"
import java.awt.event.ActionEvent;
import java.awt.event.ActionListener;
import javax.swing.JButton;

public class Main {
    int clicks;
    public static void main(String[] args) {
        Main m = new Main();
        JButton button = new JButton("count");
        button.addActionListener(new ActionListener() {
            public void actionPerformed(ActionEvent e) { m.clicks++; }
        });
        new Thread(() -> { m.clicks = 0; }).start();
    }
}
"#;

/// Known limitation (today's behaviour, issue 20 point 2): there is no
/// listener-list model, so a listener added to a Swing component is not
/// run by the event thread: its `actionPerformed` is not reached and the
/// race on `clicks` with the started thread cannot be seen. Summarising
/// `javax.swing`/`java.awt` (BENCHMARKS.md, "points-to cost (session 13)")
/// needs that model first.
#[test]
fn known_limitation_swing_listeners_are_not_run_by_the_event_thread() {
    let p = program(LISTENER);
    let r = solve(&p, false, Config::default());
    let listener = method(&p, "Main$1", "actionPerformed");
    assert!(!r.call_graph().is_reachable(listener));
    assert_eq!(r.thread_starts().len(), 1, "the Thread only");
}

/// Different methods past the bound calling the same JDK callback.
const OVER_BUDGET_CALLERS: &str = include_str!("fixtures/over_budget_callers.java");

/// Per context of `StringBuilder.append(Object)` that holds application
/// objects: the context's sites and the application types of the argument.
fn appended_per_context(
    p: &lockstep_program::Program,
    r: &lockstep_pointsto::PointsToResult,
) -> Vec<(Vec<SiteKey>, BTreeSet<String>)> {
    let append = method(
        p,
        "java/lang/StringBuilder",
        "append(Ljava/lang/Object;)Ljava/lang/StringBuilder;",
    );
    let arg = p.body(append).unwrap().params[1];
    let mut out: Vec<(Vec<SiteKey>, BTreeSet<String>)> = r
        .contexts_of(append)
        .into_iter()
        .map(|c| {
            let sites = r.context(c).into_iter().cloned().collect();
            (sites, app_types(r, &r.var_in(append, c, arg)))
        })
        .filter(|(_, t)| !t.is_empty())
        .collect();
    out.sort();
    out
}

#[test]
fn jdk_callbacks_from_the_over_budget_context_run_per_calling_method() {
    let p = program(OVER_BUDGET_CALLERS);
    let r = solve(&p, false, one_context_per_method());
    let owner = method(&p, "Main$Owner", "toString");
    let printer = method(&p, "Main$ViewPrinter", "show");
    let mixed = method(&p, "Main$Mixed", "show");
    assert_run_over_the_bound(&p, &r, &[owner, printer, mixed]);
    let over = |m| vec![SiteKey::OverBudgetCaller(m)];
    let by_context: BTreeMap<Vec<SiteKey>, BTreeSet<String>> =
        appended_per_context(&p, &r).into_iter().collect();
    // The over-budget copies of `Owner.toString` and `ViewPrinter.show`
    // each have a copy of `append(Object)` of their own: the second owner's
    // address never meets the vector of members.
    assert_eq!(by_context[&over(owner)], set(&["Main$UuidAddress"]));
    assert_eq!(by_context[&over(printer)], set(&["Main$Members"]));
    // The twin: `Mixed.show` hands `append(Object)` addresses and members;
    // past the bound its calls share one copy of the callback per calling
    // method, which keeps every kind any of them passes (sound).
    assert_eq!(
        by_context[&over(mixed)],
        set(&["Main$IpAddress", "Main$Members", "Main$UuidAddress"])
    );
    // No shared over-budget copy of the callback is left.
    assert!(!by_context.contains_key(&vec![SiteKey::OverBudget]));
    // Unbounded: one copy per receiver, each with its own object.
    let all = appended_per_context(&p, &solve(&p, false, two_obj()));
    assert!(all.iter().all(|(_, t)| t.len() == 1), "{all:?}");
}

/// Holders that store what `Objects.requireNonNull` returns, past the bound.
const OVER_BUDGET_CHECKS: &str = include_str!("fixtures/over_budget_checks.java");

/// `Objects.requireNonNull` returns its argument. Called past the bound,
/// it ran in the one over-budget context every call past the bounds
/// shares, so every holder's field got every object any of them checked
/// (on h2 the synchronized wrappers' `c`, set through the check, held the
/// parser's per-statement lists, which then looked published). As a JDK
/// method that runs in its caller's context, each calling method past the
/// bound has a copy of its own.
#[test]
fn identity_checks_past_the_bound_run_per_calling_method() {
    let p = program(OVER_BUDGET_CHECKS);
    let r = solve(&p, false, one_context_per_method());
    let key_set = method(&p, "Main$KeyHolder", "set");
    let value_set = method(&p, "Main$ValueHolder", "set");
    assert_run_over_the_bound(&p, &r, &[key_set, value_set]);
    let field_types = |class: &str| -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for o in r.objects() {
            let Some(info) = r.object(o) else { continue };
            if info.type_name.as_ref() != class {
                continue;
            }
            for (_, pts) in r.fields_of(o) {
                out.extend(app_types(&r, &pts));
            }
        }
        out
    };
    assert_eq!(field_types("Main$KeyHolder"), set(&["Main$Key"]));
    assert_eq!(field_types("Main$ValueHolder"), set(&["Main$Value"]));
}

/// Each of `methods` has the over-budget copy among its contexts.
fn assert_run_over_the_bound(
    p: &lockstep_program::Program,
    r: &lockstep_pointsto::PointsToResult,
    methods: &[lockstep_program::MethodId],
) {
    for &m in methods {
        assert!(
            r.contexts_of(m)
                .iter()
                .any(|&c| r.context(c) == vec![&SiteKey::OverBudget]),
            "{} runs over the bound",
            p.method_name(m)
        );
    }
}

/// JDK code and application code past the bound calling a stream pipeline.
const JDK_OVER_BUDGET_CALLERS: &str = include_str!("fixtures/jdk_over_budget_callers.java");

#[test]
fn pipelines_called_by_jdk_code_past_the_bound_share_the_over_budget_copy() {
    let p = program(JDK_OVER_BUDGET_CALLERS);
    let r = solve(&p, false, one_context_per_method());
    let pipeline = method(
        &p,
        "java/util/stream/StreamSupport",
        "stream(Ljava/util/Spliterator;Z)Ljava/util/stream/Stream;",
    );
    let stream = method(&p, "java/util/Collection", "stream");
    let count = method(&p, "Main$Counter", "count");
    assert_run_over_the_bound(&p, &r, &[stream, count]);
    let contexts: Vec<Vec<SiteKey>> = r
        .contexts_of(pipeline)
        .into_iter()
        .map(|c| r.context(c).into_iter().cloned().collect())
        .collect();
    // The JDK caller's over-budget copy calls the one over-budget copy of
    // the pipeline, not a copy of its own.
    assert!(
        contexts.contains(&vec![SiteKey::OverBudget]),
        "{contexts:?}"
    );
    let per_jdk_caller = vec![SiteKey::OverBudgetCaller(stream)];
    assert!(!contexts.contains(&per_jdk_caller), "{contexts:?}");
    // The twin: the application's caller past the bound keeps its copy.
    let per_app_caller = vec![SiteKey::OverBudgetCaller(count)];
    assert!(contexts.contains(&per_app_caller), "{contexts:?}");
    assert!(r.stats().shared_pipeline_calls > 0);
}

/// A solve with a time budget whose instants `contexts` and `stop` are
/// either already past (`true`) or an hour away.
fn budgeted(contexts_past: bool, stop_past: bool) -> Config {
    let now = std::time::Instant::now();
    let later = now + std::time::Duration::from_secs(3600);
    Config {
        budget: Some(lockstep_pointsto::SolveBudget {
            contexts: Some(if contexts_past { now } else { later }),
            stop: Some(if stop_past { now } else { later }),
            memory: None,
        }),
        ..Config::default()
    }
}

#[test]
fn a_spent_time_budget_stops_the_solve_and_says_so() {
    let p = program(SEPARATE);
    let full = solve(&p, false, Config::default());
    assert_eq!(full.stats().budget_cut, None);
    let cut = solve(&p, false, budgeted(true, true));
    let what = cut.stats().budget_cut.expect("the budget cut points-to");
    // Stopped at the first look at the clock, with pointers still queued.
    assert!(what.unpropagated.is_some_and(|n| n > 0), "{what:?}");
    assert!(what.contexts_merged.is_some(), "{what:?}");
    assert!(cut.stats().points_to_facts < full.stats().points_to_facts);
    let words = what.describe();
    assert!(words.starts_with("points-to no new contexts"), "{words}");
    assert!(words.contains("stopped before its fixed point"), "{words}");
}

#[test]
fn a_spent_context_share_merges_new_contexts_and_the_solve_completes() {
    let p = program(SEPARATE);
    let full = solve(&p, false, Config::default());
    let cut = solve(&p, false, budgeted(true, false));
    let what = cut.stats().budget_cut.expect("the budget cut contexts");
    assert_eq!(what.unpropagated, None, "the solve ran to its fixed point");
    assert!(what.contexts_merged.is_some_and(|n| n > 0), "{what:?}");
    assert!(cut.stats().method_contexts < full.stats().method_contexts);
    // Every context made after the cut is the over-budget one.
    let over = cut
        .method_contexts()
        .into_iter()
        .filter(|mc| cut.context(mc.context) == vec![&SiteKey::OverBudget])
        .count();
    assert!(over > 0);
}

#[test]
fn a_time_budget_not_reached_changes_nothing() {
    let p = program(SEPARATE);
    let full = solve(&p, false, Config::default());
    let budgeted = solve(&p, false, budgeted(false, false));
    assert_eq!(budgeted.stats().budget_cut, None);
    assert_eq!(budgeted.canonical(), full.canonical());
}

/// A memory budget whose probe reports `resident` bytes, with marks at
/// 100 and 200 bytes.
fn memory_budgeted(probe: fn() -> Option<u64>) -> Config {
    Config {
        budget: Some(lockstep_pointsto::SolveBudget {
            contexts: None,
            stop: None,
            memory: Some(lockstep_pointsto::SolveMemory {
                probe: lockstep_pointsto::MemoryProbe(probe),
                contexts_at: 100,
                stop_at: 200,
            }),
        }),
        ..Config::default()
    }
}

#[test]
fn a_memory_budget_past_both_marks_stops_the_solve() {
    let p = program(SEPARATE);
    let full = solve(&p, false, Config::default());
    let cut = solve(&p, false, memory_budgeted(|| Some(250)));
    let what = cut
        .stats()
        .budget_cut
        .expect("the memory budget cut points-to");
    assert!(what.unpropagated.is_some_and(|n| n > 0), "{what:?}");
    assert!(what.contexts_merged.is_some(), "{what:?}");
    assert!(cut.stats().points_to_facts < full.stats().points_to_facts);
}

#[test]
fn a_memory_budget_past_the_first_mark_only_merges_contexts() {
    let p = program(SEPARATE);
    let full = solve(&p, false, Config::default());
    let cut = solve(&p, false, memory_budgeted(|| Some(150)));
    let what = cut
        .stats()
        .budget_cut
        .expect("the memory budget cut contexts");
    assert_eq!(what.unpropagated, None, "the solve ran to its fixed point");
    assert!(what.contexts_merged.is_some_and(|n| n > 0), "{what:?}");
    assert!(cut.stats().method_contexts < full.stats().method_contexts);
}

#[test]
fn a_memory_budget_not_reached_or_unreadable_changes_nothing() {
    let p = program(SEPARATE);
    let full = solve(&p, false, Config::default());
    for probe in [(|| Some(50)) as fn() -> Option<u64>, || None] {
        let budgeted = solve(&p, false, memory_budgeted(probe));
        assert_eq!(budgeted.stats().budget_cut, None);
        assert_eq!(budgeted.canonical(), full.canonical());
    }
}

const COPIES: &str = include_str!("fixtures/copies.java");

/// `Object.clone` makes a shallow copy (`HeapEffect::CopiesReceiver`): a
/// new object per call site whose elements and fields hold the
/// original's, and which writes into the copy do not reach. Before, the
/// result was the receiver itself, and `fromOriginal` held `B`.
#[test]
fn clone_makes_a_shallow_copy() {
    let p = program(COPIES);
    let main = method(&p, "Main", "main");
    let r = solve(&p, false, Config::default());
    let t = |name: &str| types(&r, &r.var(main, var(&p, main, name)));
    assert_eq!(t("fromOriginal"), set(&["Main$A"]));
    assert_eq!(t("fromCopy"), set(&["Main$A", "Main$B"]));
    assert_eq!(t("leftOfCopy"), set(&["Main$C"]));
    assert_eq!(t("rightOfOriginal"), set(&[]));
    assert_eq!(t("rightOfCopy"), set(&["Main$D"]));
    let copy = r.var(main, var(&p, main, "copy"));
    assert_eq!(copy.len(), 1);
    let info = r.object(copy.iter().next().unwrap()).unwrap();
    assert!(
        matches!(info.site, SiteKey::Copy { ty, .. } if &**ty == "[Ljava/lang/Object;"),
        "{:?}",
        info.site
    );
    assert!(info.site.is_allocation());
}

/// The boxes of `copies.java` and what each holds, in `main`'s order.
fn boxes_hold(p: &lockstep_program::Program, config: Config) -> Vec<BTreeSet<String>> {
    let main = method(p, "Main", "main");
    let r = solve(p, false, config);
    ["inFirst", "inSecond", "inThird", "inFourth"]
        .iter()
        .map(|n| types(&r, &r.var(main, var(p, main, n))))
        .collect()
}

/// Constructors of application classes run in their receiver's context
/// past the bound on contexts per method (`Config::constructors_per_object`),
/// `super(..)` and `this(..)` included: with one context per method, each
/// box still holds only its own argument. Without it, every box built
/// past the bound shares one copy of `Box.<init>` and holds the arguments
/// of all of them.
#[test]
fn constructors_run_per_object_past_the_bound() {
    let p = program(COPIES);
    let own = boxes_hold(&p, one_context_per_method());
    assert_eq!(
        own,
        vec![
            set(&["Main$A"]),
            set(&["Main$B"]),
            set(&["Main$C"]),
            set(&["Main$D", "[Ljava/lang/Object;"])
        ]
    );
    let merged = boxes_hold(
        &p,
        Config {
            constructors_per_object: false,
            ..one_context_per_method()
        },
    );
    assert!(merged[1].contains("Main$C"), "{merged:?}");
    assert_eq!(boxes_hold(&p, two_obj()), own);
}

const CONTENT: &str = include_str!("fixtures/content.java");

/// The settings of the container-model tests: past the bound from the
/// second context of every method, where the JDK containers' bytecode
/// shares one copy of their storage.
fn models(on: bool) -> Config {
    Config {
        container_models: on,
        ..one_context_per_method()
    }
}

/// With the container models each map, list and view holds its own
/// contents whatever the bound: `m2.get(k)` gives `m2`'s values only, and
/// entries, key sets, values, copies, arrays, `forEach` with a method
/// reference and streams give what was put in.
#[test]
fn container_models_keep_contents_per_container() {
    let p = program(CONTENT);
    let main = method(&p, "Main", "main");
    let r = solve(&p, false, models(true));
    let of = |name: &str| app_types(&r, &r.var(main, var(&p, main, name)));
    assert_eq!(of("got"), set(&["Main$Value"]));
    assert_eq!(of("fromOther"), set(&["Main$Other"]));
    assert_eq!(of("viaEntry"), set(&["Main$Value"]));
    assert_eq!(of("viaKeys"), set(&["Main$Key"]));
    assert_eq!(of("copied"), set(&["Main$Value"]));
    assert_eq!(of("asList"), set(&["Main$Other"]));
    assert_eq!(of("inArray"), set(&["Main$Value"]));
    assert_eq!(of("streamed"), set(&["Main$Value"]));
    assert!(r.stats().modelled_calls > 0);
    assert!(!r.stats().config.contains("container models"));
    assert!(solve(&p, false, models(false))
        .stats()
        .config
        .contains("no container models"));
}

/// The models call the application back as the containers' bytecode
/// does: keys' `hashCode`/`equals`, `compareTo` of a sorted set's
/// elements, a `LinkedHashMap` subclass's `removeEldestEntry`.
#[test]
fn container_models_call_the_application_back() {
    let p = program(CONTENT);
    let r = solve(&p, false, models(true));
    for (class, name) in [
        ("Main$Key", "hashCode"),
        ("Main$Key", "equals"),
        ("Main$Ranked", "compareTo"),
        ("Main$Bounded", "removeEldestEntry"),
    ] {
        let m = method(&p, class, name);
        assert!(r.call_graph().is_reachable(m), "{class}.{name}");
    }
}

/// Without the models the same program past the bound mixes the maps:
/// the reason for them.
#[test]
fn without_container_models_maps_past_the_bound_share_their_storage() {
    let p = program(CONTENT);
    let main = method(&p, "Main", "main");
    let r = solve(&p, false, models(false));
    let from_other = app_types(&r, &r.var(main, var(&p, main, "fromOther")));
    assert!(from_other.contains("Main$Value"), "{from_other:?}");
}

/// A model stands for library code: when the application itself declares
/// a modelled class (the JDK analysed as the program), that class runs its
/// bytecode, so past the bound its maps share their storage again, while
/// the library's other containers stay modelled.
#[test]
fn container_models_leave_the_applications_own_containers_alone() {
    let fixture = compile_sources(&[("Main.java", CONTENT)]);
    let mut app = lockstep_testkit_program::parse_fixture(&fixture);
    let bytes = lockstep_testkit_program::jdk()
        .load("java/util/HashMap")
        .expect("the JDK has java.util.HashMap")
        .expect("java.util.HashMap reads");
    let file = lockstep_classfile::parse(&bytes.bytes).expect("java.util.HashMap parses");
    app.push(("java/util/HashMap.class".to_string(), file));
    let p = lockstep_program::Program::new(app, lockstep_testkit_program::jdk_provider());
    let main = method(&p, "Main", "main");
    let r = solve(&p, false, models(true));
    let from_other = app_types(&r, &r.var(main, var(&p, main, "fromOther")));
    assert!(from_other.contains("Main$Value"), "{from_other:?}");
    assert!(
        r.stats().modelled_calls > 0,
        "ArrayList and TreeSet stay modelled"
    );
}

/// The models keep the result a pure function of its inputs, run twice.
#[test]
fn container_models_are_deterministic() {
    let p = program(CONTENT);
    let a = solve(&p, false, models(true)).canonical();
    let b = solve(&p, false, models(true)).canonical();
    assert_eq!(a, b);
}

const INITIALIZERS: &str = include_str!("fixtures/initializers.java");

/// javac copies a field initializer into every constructor that calls
/// `super(...)`: the copies are one allocation site, so the harness's
/// receiver, which runs every constructor, holds one lock in `lock` and
/// one list in `items`. An allocation whose constructor takes a
/// non-constant argument (`new StringBuilder(n)`) keeps its own site.
#[test]
fn field_initializer_copies_are_one_site() {
    let p = program(INITIALIZERS);
    let r = solve(&p, true, Config::default());
    let objects_of = |name: &str| {
        let m = method(&p, "Main$Guarded", name);
        let this = p.body(m).unwrap().params[0];
        let receivers = r.var(m, this);
        assert_eq!(receivers.len(), 1);
        let o = receivers.iter().next().unwrap();
        r.field(o, "Main$Guarded", name)
    };
    assert_eq!(
        objects_of("lock").len(),
        1,
        "{:?}",
        describe(&p, &r, &objects_of("lock"))
    );
    assert_eq!(objects_of("items").len(), 1);
    assert_eq!(objects_of("part").len(), 2);
}

/// A `Runnable` of the program's own task type handed to an abstract
/// method of a program interface, called on an object from outside
/// (a harness parameter): the task runs in a start of its own on the
/// object handed over (`lockstep_models::OUTSIDE_TASK`). A call whose
/// receiver the program makes and whose class has the method is an
/// ordinary call: no start.
#[test]
fn tasks_handed_to_an_outside_scheduler_start() {
    let src = r#"
public class Main {
    public interface Scheduler {
        interface Task extends Runnable {}
        void schedule(Task t);
    }
    static class Inline implements Scheduler {
        public void schedule(Task t) {}
    }
    static class Job implements Scheduler.Task {
        public void run() {}
    }
    public static class Window {
        private final Scheduler timer;
        private final Scheduler inline = new Inline();
        public Window(Scheduler timer) { this.timer = timer; }
        public void add() { timer.schedule(new Job()); }
        public void local() { inline.schedule(new Job()); }
    }
}
"#;
    let p = program(src);
    let r = solve(&p, true, Config::default());
    let starts: Vec<_> = r
        .thread_starts()
        .iter()
        .filter(|t| t.launch.kind == lockstep_models::LaunchKind::Outside)
        .collect();
    assert_eq!(starts.len(), 1, "{starts:?}");
    assert_eq!(&*p.method(starts[0].caller.method).name, "add");
    let task = r.object(starts[0].task).unwrap();
    assert!(
        matches!(task.site, SiteKey::Alloc { .. }),
        "{:?}",
        task.site
    );
}
