//! Access paths of locks, as the source names them.

mod common;

use common::{class, compile_fixture, lower};
use lockstep_ir::*;
use std::sync::Arc;

fn lock_of(class_name: &str, method: &str) -> AccessPath {
    let classes = compile_fixture("Paths.java");
    let body = lower(class(&classes, class_name), method);
    assert!(body.notes.is_empty(), "{:?}", body.notes);
    let blocks: Vec<&MonitorRegion> = body
        .monitors
        .iter()
        .filter(|m| m.kind == MonitorKind::Block)
        .collect();
    assert_eq!(blocks.len(), 1, "{}", dump(&body));
    assert_eq!(blocks[0].exits.len(), 2);
    blocks[0].lock.clone()
}

fn field(base: AccessPath, name: &str) -> AccessPath {
    AccessPath::Field(Arc::new(base), name.into())
}

#[test]
fn synchronized_this() {
    let p = lock_of("Paths", "onThis");
    assert_eq!(p, AccessPath::This);
    assert_eq!(p.to_string(), "this");
}

#[test]
fn synchronized_param() {
    let p = lock_of("Paths", "onParam");
    assert_eq!(p, AccessPath::Param(0, Some("lock".into())));
    assert_eq!(p.to_string(), "lock");
}

#[test]
fn synchronized_field_of_this() {
    let p = lock_of("Paths", "onField");
    assert_eq!(p, field(AccessPath::This, "lock"));
    assert_eq!(p.to_string(), "this.lock");
}

#[test]
fn synchronized_static_field() {
    let p = lock_of("Paths", "onStatic");
    assert_eq!(p, AccessPath::Static("Paths".into(), "LOCK".into()));
    assert_eq!(p.to_string(), "Paths.LOCK");
}

#[test]
fn synchronized_array_element() {
    let p = lock_of("Paths", "onElement");
    let pts = AccessPath::Param(0, Some("pts".into()));
    let i = AccessPath::Param(1, Some("i".into()));
    assert_eq!(p, AccessPath::Element(Arc::new(pts.clone()), Arc::new(i)));
    assert_eq!(p.to_string(), "pts[i]");
    let q = lock_of("Paths", "onConstElement");
    assert_eq!(
        q,
        AccessPath::Element(Arc::new(pts), Arc::new(AccessPath::IntConst(0)))
    );
    assert_eq!(q.to_string(), "pts[0]");
}

#[test]
fn synchronized_field_chain() {
    let p = lock_of("Paths", "onChain");
    assert_eq!(
        p,
        field(field(AccessPath::Param(0, Some("p".into())), "f"), "g")
    );
    assert_eq!(p.to_string(), "p.f.g");
}

#[test]
fn synchronized_class_literal() {
    let p = lock_of("Paths", "onClassLiteral");
    assert_eq!(p, AccessPath::ClassLiteral("Paths".into()));
    assert_eq!(p.to_string(), "Paths.class");
}

#[test]
fn synchronized_local_allocation() {
    let p = lock_of("Paths", "onLocal");
    assert!(
        matches!(&p, AccessPath::Local(_, Some(n)) if &**n == "o"),
        "{p:?}"
    );
    assert_eq!(p.to_string(), "o");
}

#[test]
fn synchronized_outer_this_from_inner_class() {
    let p = lock_of("Paths$Inner", "onOuter");
    assert_eq!(
        p,
        AccessPath::OuterThis(Arc::new(AccessPath::This), "Paths".into())
    );
    assert_eq!(p.to_string(), "Paths.this");
    let q = lock_of("Paths$Inner", "onOuterField");
    assert_eq!(q.to_string(), "Paths.this.lock");
}

#[test]
fn static_synchronized_method_locks_the_class() {
    let classes = compile_fixture("Paths.java");
    let body = lower(class(&classes, "Paths"), "staticSync");
    assert_eq!(body.monitors.len(), 1);
    assert_eq!(body.monitors[0].kind, MonitorKind::SynchronizedMethod);
    assert_eq!(
        body.monitors[0].lock,
        AccessPath::ClassLiteral("Paths".into())
    );
}

#[test]
fn display_of_unnamed_and_nested_names() {
    assert_eq!(AccessPath::Param(2, None).to_string(), "p2");
    assert_eq!(
        AccessPath::Static("com/x/Outer$Inner".into(), "LOCK".into()).to_string(),
        "Outer.Inner.LOCK"
    );
    assert_eq!(
        AccessPath::ClassLiteral("[I".into()).to_string(),
        "int[].class"
    );
    assert_eq!(AccessPath::Local(VarId(7), None).to_string(), "v7");
    assert_eq!(AccessPath::Unknown.to_string(), "?");
    let deep = AccessPath::OuterThis(
        Arc::new(AccessPath::OuterThis(
            Arc::new(AccessPath::This),
            "a/Outer$Mid".into(),
        )),
        "a/Outer".into(),
    );
    assert_eq!(deep.to_string(), "Outer.this");
}

#[test]
fn paths_of_reads_inside() {
    let classes = compile_fixture("Paths.java");
    let body = lower(class(&classes, "Paths"), "onChain");
    // Every field load's value has a path rooted at the parameter or `this`.
    let mut seen = Vec::new();
    for s in &body.stmts {
        if let StmtKind::Assign {
            dst,
            value: Rvalue::FieldLoad { .. },
        } = &s.kind
        {
            seen.push(body.access_path(*dst).to_string());
        }
    }
    assert_eq!(seen, vec!["p.f", "p.f.g"]);
}
