//! Class hierarchy, method resolution and dispatch on javac-compiled fixtures.

mod common;
use common::*;
use lockstep_program::*;

const SRC: &str = r#"
interface A { default String m() { return "A"; } }
interface B extends A { default String m() { return "B"; } }
interface C extends A { }
class D implements B, C { }
interface I1 { default void d() {} }
interface I2 { default void d() {} }
class E implements I1, I2 { public void d() { I1.super.d(); } }
abstract class Base {
    abstract void f();
    void g() { f(); }
    private void p() {}
    static void s() {}
    public String toString() { return "b"; }
}
class Sub extends Base { void f() {} void h() { super.g(); } }
class Sub2 extends Sub { }
public class Main {
    public static void main(String[] args) {
        new D().m();
        new E().d();
        new Sub2().h();
        Base.s();
    }
}
"#;

fn fixture() -> Program {
    program(&[("Main.java", SRC)])
}

fn id(p: &Program, c: &str) -> ClassId {
    p.class_by_name(c).unwrap()
}

#[test]
fn subtyping_and_superclass_chain() {
    let p = fixture();
    let (a, d, sub2, base) = (id(&p, "A"), id(&p, "D"), id(&p, "Sub2"), id(&p, "Base"));
    assert!(p.is_subtype(d, a));
    assert!(!p.is_subtype(a, d));
    assert!(p.is_subtype(sub2, base));
    assert!(p.is_subtype_name("D", "java/lang/Object"));
    assert!(p.is_subtype_name("A", "java/lang/Object"));
    let chain: Vec<&str> = p
        .superclasses(sub2)
        .iter()
        .map(|&c| &*p.class(c).name)
        .collect();
    assert_eq!(chain, vec!["Sub2", "Sub", "Base", "java/lang/Object"]);
    assert!(p.is_application(d));
    assert!(!p.is_application(id(&p, "java/lang/Object")));
    // Application classes are numbered first, in name order.
    let names: Vec<&str> = p.application_classes().map(|c| &*p.class(c).name).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

#[test]
fn default_methods_and_diamonds() {
    let p = fixture();
    let sig = "()Ljava/lang/String;";
    let d = id(&p, "D");
    // B.m is more specific than A.m (B extends A): it wins through the diamond D → B, C → A.
    assert_eq!(p.dispatch(d, "m", sig), Some(method(&p, "B", "m")));
    assert_eq!(p.resolve_method(d, "m", sig), Some(method(&p, "B", "m")));
    assert_eq!(
        p.resolve_interface_method(id(&p, "C"), "m", sig),
        Some(method(&p, "A", "m"))
    );
    // E overrides both conflicting defaults.
    assert_eq!(
        p.dispatch(id(&p, "E"), "d", "()V"),
        Some(method(&p, "E", "d"))
    );
    assert_eq!(
        p.resolve_interface_method(id(&p, "I1"), "d", "()V"),
        Some(method(&p, "I1", "d"))
    );
    // Object's methods through an interface and a class.
    let hash = p.dispatch(d, "hashCode", "()I").unwrap();
    assert_eq!(name(&p, hash), "java/lang/Object.hashCode");
    let ts = p
        .resolve_interface_method(id(&p, "A"), "toString", "()Ljava/lang/String;")
        .unwrap();
    assert_eq!(name(&p, ts), "java/lang/Object.toString");
}

#[test]
fn abstract_private_static_and_inherited() {
    let p = fixture();
    let (base, sub, sub2) = (id(&p, "Base"), id(&p, "Sub"), id(&p, "Sub2"));
    assert_eq!(p.dispatch(sub2, "f", "()V"), Some(method(&p, "Sub", "f")));
    assert_eq!(
        p.dispatch(base, "f", "()V"),
        None,
        "abstract: nothing to select"
    );
    assert_eq!(
        p.resolve_method(base, "f", "()V"),
        Some(method(&p, "Base", "f"))
    );
    assert_eq!(
        p.resolve_method(sub2, "g", "()V"),
        Some(method(&p, "Base", "g"))
    );
    assert_eq!(
        p.resolve_method(sub2, "s", "()V"),
        Some(method(&p, "Base", "s"))
    );
    assert_eq!(
        p.dispatch(sub2, "s", "()V"),
        None,
        "static methods are not selected"
    );
    assert_eq!(
        p.resolve_method(base, "p", "()V"),
        Some(method(&p, "Base", "p"))
    );
    assert_eq!(
        p.dispatch(sub, "p", "()V"),
        None,
        "private methods are not inherited"
    );
    assert_eq!(p.dispatch(base, "p", "()V"), Some(method(&p, "Base", "p")));
    let ts = p
        .dispatch(sub2, "toString", "()Ljava/lang/String;")
        .unwrap();
    assert_eq!(name(&p, ts), "Base.toString");
    assert_eq!(p.dispatch(sub2, "nosuch", "()V"), None);
}

#[test]
fn super_calls_are_special_edges() {
    let p = fixture();
    let g = rta(&p, &entry_points(&p, false));
    let h = method(&p, "Sub", "h");
    let to_g: Vec<_> = g
        .callees(h)
        .iter()
        .filter(|e| e.callee == method(&p, "Base", "g"))
        .collect();
    assert_eq!(to_g.len(), 1);
    assert_eq!(to_g[0].kind, EdgeKind::Special);
    let ed = method(&p, "E", "d");
    assert!(g
        .callees(ed)
        .iter()
        .any(|e| e.callee == method(&p, "I1", "d") && e.kind == EdgeKind::Special));
    // g() calls the abstract f(): dispatch goes to the live Sub2's inherited Sub.f.
    let base_g = method(&p, "Base", "g");
    let targets: Vec<String> = g
        .callees(base_g)
        .iter()
        .map(|e| name(&p, e.callee))
        .collect();
    assert_eq!(targets, vec!["Sub.f"]);
    // The static call Base.s() runs Base's initialiser chain (none declared) and reaches s.
    assert!(g.is_reachable(method(&p, "Base", "s")));
}

#[test]
fn missing_super_types_are_problems_not_panics() {
    let fx = compile_sources(&[(
        "W.java",
        "public class W extends Thread implements Runnable { public void run() {} }",
    )]);
    let app = fx
        .classes
        .iter()
        .map(|c| {
            (
                c.clone(),
                lockstep_classfile::parse(&fx.read_class(c).unwrap()).unwrap(),
            )
        })
        .collect();
    let p = Program::new(app, Box::new(NoLibrary));
    let w = p.class_by_name("W").unwrap();
    assert_eq!(p.super_class(w), None);
    assert!(p.interfaces(w).is_empty());
    assert_eq!(p.supertypes(w), &[w]);
    assert_eq!(p.dispatch(w, "start", "()V"), None);
    let problems = p.problems();
    assert!(
        problems.iter().any(|pr| pr
            .message
            .contains("superclass java/lang/Thread of W not found")),
        "{problems:?}"
    );
    // RTA on a world without a JDK still terminates and reaches what it can.
    let g = rta(&p, &entry_points(&p, true));
    assert!(g.is_reachable(method(&p, "W", "run")));
}

#[test]
fn duplicate_and_garbage_application_classes() {
    let fx = compile_sources(&[("Dup.java", "public class Dup { }")]);
    let bytes = fx.read_class("Dup").unwrap();
    let a = lockstep_classfile::parse(&bytes).unwrap();
    let p = Program::new(
        vec![
            ("first.class".into(), a.clone()),
            ("second.class".into(), a),
        ],
        Box::new(|name: &str| (name == "Broken").then(|| Ok(vec![0xca, 0xfe, 0xba, 0xbe, 0, 0]))),
    );
    assert_eq!(p.application_classes().count(), 1);
    assert_eq!(
        &*p.class(p.class_by_name("Dup").unwrap()).origin,
        "first.class"
    );
    assert_eq!(p.class_by_name("Broken"), None);
    assert_eq!(p.class_by_name("[I"), None);
    let problems = p.problems();
    assert!(problems
        .iter()
        .any(|pr| pr.origin == "second.class" && pr.message.contains("duplicate")));
    assert!(problems
        .iter()
        .any(|pr| pr.origin == "Broken" && pr.message.contains("cannot parse")));
}

#[test]
fn lowering_is_lazy_cached_and_parallel() {
    let p = fixture();
    let m = method(&p, "Sub", "h");
    assert!(!p.method(m).is_lowered());
    let b1 = p.body(m).unwrap();
    let b2 = p.body(m).unwrap();
    assert!(std::sync::Arc::ptr_eq(&b1, &b2));
    assert!(p.body(method(&p, "Base", "f")).is_none(), "abstract");
    let stats = p.lower_all_application();
    assert_eq!(stats.failed, 0);
    assert!(stats.lowered >= 10 && stats.statements > 0, "{stats:?}");
    assert!(p.stats().bodies_lowered >= stats.lowered);
}

#[test]
fn program_is_shared_across_threads() {
    fn assert_sync<T: Sync>() {}
    assert_sync::<Program>();
    assert_sync::<CallGraph>();
    let p = fixture();
    // Lazy loading and lowering from several threads at once.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let t = p
                    .class_by_name("java/util/concurrent/ConcurrentHashMap")
                    .unwrap();
                assert!(
                    p.is_subtype_name("java/util/concurrent/ConcurrentHashMap", "java/util/Map")
                );
                let put = p
                    .dispatch(
                        t,
                        "put",
                        "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
                    )
                    .unwrap();
                assert!(p.body(put).is_some());
            });
        }
    });
    let n = p
        .loaded_classes()
        .filter(|&c| &*p.class(c).name == "java/util/concurrent/ConcurrentHashMap")
        .count();
    assert_eq!(n, 1, "loaded once");
}
