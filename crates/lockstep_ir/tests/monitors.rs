//! Monitor regions of javac's `synchronized` shapes, asserted precisely:
//! enter and exit statements, parent links, and the innermost region held
//! before the statements inside.

mod common;

use common::{class, compile_fixture, lower};
use lockstep_ir::*;

fn sync_class() -> Vec<lockstep_classfile::ClassFile> {
    compile_fixture("Sync.java")
}

fn stmts_where(body: &Body, f: impl Fn(&StmtKind) -> bool) -> Vec<StmtId> {
    (0..body.stmts.len() as u32)
        .map(StmtId)
        .filter(|s| f(&body.stmts[s.index()].kind))
        .collect()
}

fn field_stores(body: &Body, name: &str) -> Vec<StmtId> {
    stmts_where(
        body,
        |k| matches!(k, StmtKind::FieldStore { field, .. } if &*field.name == name),
    )
}

fn held(body: &Body, s: StmtId) -> Option<MonitorId> {
    body.held_before[s.index()]
}

/// The chain of regions held before `s`, innermost first.
fn chain(body: &Body, s: StmtId) -> Vec<u32> {
    let mut out = Vec::new();
    let mut cur = held(body, s);
    while let Some(m) = cur {
        out.push(m.0);
        cur = body.monitors[m.index()].parent;
    }
    out
}

fn check_exits_are_monitorexits(body: &Body) {
    for (i, m) in body.monitors.iter().enumerate() {
        for e in &m.exits {
            assert!(
                matches!(body.stmts[e.index()].kind, StmtKind::MonitorExit(_)),
                "m{i} exit s{}",
                e.0
            );
            assert_eq!(
                held(body, *e),
                Some(MonitorId(i as u32)),
                "a monitorexit is inside the region it releases"
            );
        }
        if let Some(e) = m.enter {
            assert!(matches!(
                body.stmts[e.index()].kind,
                StmtKind::MonitorEnter(_)
            ));
            assert_eq!(
                held(body, e),
                m.parent,
                "a monitorenter is outside its own region"
            );
        }
    }
}

#[test]
fn nested_blocks() {
    let classes = sync_class();
    let body = lower(class(&classes, "Sync"), "nested");
    assert!(body.notes.is_empty(), "{:?}", body.notes);
    assert_eq!(body.monitors.len(), 2);
    let (outer, inner) = (&body.monitors[0], &body.monitors[1]);
    assert_eq!(outer.kind, MonitorKind::Block);
    assert_eq!(outer.lock.to_string(), "a");
    assert_eq!(outer.lock, AccessPath::Param(0, Some("a".into())));
    assert_eq!(inner.lock, AccessPath::Param(1, Some("b".into())));
    assert_eq!(outer.parent, None);
    assert_eq!(inner.parent, Some(MonitorId(0)));
    assert_eq!(outer.lock_var, Some(body.params[1]));
    assert_eq!(inner.lock_var, Some(body.params[2]));
    // Normal exit and the exit in the catch-all handler, for each.
    assert_eq!(outer.exits.len(), 2);
    assert_eq!(inner.exits.len(), 2);
    check_exits_are_monitorexits(&body);
    let store = field_stores(&body, "count");
    assert_eq!(store.len(), 1);
    assert_eq!(chain(&body, store[0]), vec![1, 0]);
    let enters = stmts_where(&body, |k| matches!(k, StmtKind::MonitorEnter(_)));
    assert_eq!(enters, vec![outer.enter.unwrap(), inner.enter.unwrap()]);
    assert_eq!(held(&body, enters[0]), None);
    assert_eq!(held(&body, enters[1]), Some(MonitorId(0)));
    let ret = stmts_where(&body, |k| matches!(k, StmtKind::Return(_)));
    assert_eq!(ret.len(), 1);
    assert_eq!(held(&body, ret[0]), None);
    // The rethrow after the inner handler's exit still holds the outer lock.
    let throws = stmts_where(&body, |k| matches!(k, StmtKind::Throw(_)));
    let holding: Vec<Vec<u32>> = throws.iter().map(|t| chain(&body, *t)).collect();
    assert_eq!(holding, vec![vec![0], vec![]]);
}

#[test]
fn try_finally_inside_synchronized() {
    let classes = sync_class();
    let body = lower(class(&classes, "Sync"), "tryFinally");
    assert!(body.notes.is_empty(), "{:?}", body.notes);
    assert_eq!(body.monitors.len(), 1);
    let m = &body.monitors[0];
    assert_eq!(m.lock.to_string(), "this.lock");
    assert_eq!(m.exits.len(), 2);
    check_exits_are_monitorexits(&body);
    // count++ once, total++ on the normal and the exceptional path: all inside.
    let stores: Vec<StmtId> = [field_stores(&body, "count"), field_stores(&body, "total")].concat();
    assert_eq!(stores.len(), 3);
    for s in stores {
        assert_eq!(held(&body, s), Some(MonitorId(0)));
    }
    // The exits release the variable javac saved the lock in: a copy of the enter's operand.
    for e in &m.exits {
        let StmtKind::MonitorExit(Operand::Var(v)) = &body.stmts[e.index()].kind else {
            panic!()
        };
        assert_ne!(Some(*v), m.lock_var);
        assert_eq!(body.access_path(*v), m.lock);
    }
}

#[test]
fn return_inside_synchronized() {
    let classes = sync_class();
    let body = lower(class(&classes, "Sync"), "returnInside");
    assert!(body.notes.is_empty(), "{:?}", body.notes);
    assert_eq!(body.monitors.len(), 1);
    let m = &body.monitors[0];
    assert_eq!(m.lock, AccessPath::This);
    assert_eq!(m.lock_var, Some(body.params[0]));
    // The early return, the normal end, the exception handler.
    assert_eq!(m.exits.len(), 3);
    check_exits_are_monitorexits(&body);
    for r in stmts_where(&body, |k| matches!(k, StmtKind::Return(_))) {
        assert_eq!(held(&body, r), None, "returns happen after the exit");
    }
    let loads = stmts_where(&body, |k| {
        matches!(
            k,
            StmtKind::Assign {
                value: Rvalue::FieldLoad { .. },
                ..
            }
        )
    });
    assert_eq!(loads.len(), 2);
    for l in loads {
        assert_eq!(held(&body, l), Some(MonitorId(0)));
    }
}

#[test]
fn throw_inside_synchronized() {
    let classes = sync_class();
    let body = lower(class(&classes, "Sync"), "throwInside");
    assert!(body.notes.is_empty(), "{:?}", body.notes);
    let m = &body.monitors[0];
    assert_eq!(m.lock, AccessPath::Static("Sync".into(), "LOCK".into()));
    assert_eq!(m.lock.to_string(), "Sync.LOCK");
    assert_eq!(m.exits.len(), 2);
    check_exits_are_monitorexits(&body);
    let throws = stmts_where(&body, |k| matches!(k, StmtKind::Throw(_)));
    // `throw new IllegalStateException()` inside, the handler's rethrow outside.
    let holding: Vec<Option<MonitorId>> = throws.iter().map(|t| held(&body, *t)).collect();
    assert_eq!(holding, vec![Some(MonitorId(0)), None]);
    // The throw inside leaves through the catch-all handler that releases the lock.
    let inner_throw = throws[0];
    let b = body.block_of[inner_throw.index()];
    let handler = body.blocks[b.index()].exceptional[0].handler;
    let handler_stmts: Vec<StmtId> = body.blocks[handler.index()].stmt_ids().collect();
    assert!(handler_stmts.iter().any(|s| m.exits.contains(s)));
}

#[test]
fn synchronized_method_with_block() {
    let classes = sync_class();
    let body = lower(class(&classes, "Sync"), "syncMethod");
    assert!(body.notes.is_empty(), "{:?}", body.notes);
    assert_eq!(body.monitors.len(), 2);
    let m0 = &body.monitors[0];
    assert_eq!(m0.kind, MonitorKind::SynchronizedMethod);
    assert_eq!(m0.lock, AccessPath::This);
    assert_eq!(
        (m0.enter, m0.exits.len(), m0.parent, m0.lock_var),
        (None, 0, None, None)
    );
    let m1 = &body.monitors[1];
    assert_eq!(m1.kind, MonitorKind::Block);
    assert_eq!(m1.parent, Some(MonitorId(0)));
    check_exits_are_monitorexits(&body);
    for s in 0..body.stmts.len() {
        assert!(
            chain(&body, StmtId(s as u32)).ends_with(&[0]),
            "m0 is held everywhere"
        );
    }
    let store = field_stores(&body, "count");
    assert_eq!(chain(&body, store[0]), vec![1, 0]);
}

#[test]
fn static_synchronized_method() {
    let classes = sync_class();
    let body = lower(class(&classes, "Sync"), "staticSync");
    assert_eq!(body.monitors.len(), 1);
    assert_eq!(
        body.monitors[0].lock,
        AccessPath::ClassLiteral("Sync".into())
    );
    assert_eq!(body.monitors[0].lock.to_string(), "Sync.class");
    assert!(body.held_before.iter().all(|h| *h == Some(MonitorId(0))));
}

#[test]
fn break_out_of_synchronized_in_loop() {
    let classes = sync_class();
    let body = lower(class(&classes, "Sync"), "loopInside");
    assert!(body.notes.is_empty(), "{:?}", body.notes);
    assert_eq!(body.monitors.len(), 1);
    let m = &body.monitors[0];
    // The break, the normal end of the body, the exception handler.
    assert_eq!(m.exits.len(), 3);
    check_exits_are_monitorexits(&body);
    let store = field_stores(&body, "count");
    assert_eq!(held(&body, store[0]), Some(MonitorId(0)));
    // The loop increment runs outside the lock.
    let incs = stmts_where(&body, |k| {
        matches!(
            k,
            StmtKind::Assign {
                value: Rvalue::Binary(ArithOp::Add, _, Operand::Const(ConstValue::Int(1))),
                ..
            }
        )
    });
    assert_eq!(incs.len(), 1);
    assert_eq!(held(&body, incs[0]), None);
}
