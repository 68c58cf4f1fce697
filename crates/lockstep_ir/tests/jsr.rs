//! `jsr`/`ret` subroutines (class files before Java 6), in hand-built
//! major-46 classes: a `finally` and a synchronized block whose exit is a
//! subroutine are inlined per call site; a recursive subroutine falls back
//! to the conservative `Ret`.

mod common;

use common::build::*;
use lockstep_classfile::{access, ArithOp, IfKind, Insn, InvokeKind, Kind};
use lockstep_ir::*;

fn lower_ok(class: &lockstep_classfile::ClassFile) -> Body {
    let body = lower_method(class, &class.methods[0]).unwrap_or_else(|e| panic!("{e}"));
    if let Err(errs) = validate(&body) {
        panic!("invalid:\n{}\n{}", errs.join("\n"), dump(&body));
    }
    body
}

/// `static int f(int x) { int r; try { r = x + 1; } finally { counter++; } return r; }` as javac 1.4 compiled it.
fn try_finally_class() -> lockstep_classfile::ClassFile {
    let mut cp = Cp::default();
    let counter = cp.field("T", "counter", "I");
    let insns = vec![
        (0, Insn::Load(Kind::Int, 0)),
        (1, Insn::IConst(1)),
        (2, Insn::Arith(Kind::Int, ArithOp::Add)),
        (3, Insn::Store(Kind::Int, 1)),
        (4, Insn::Jsr(16)),
        (7, Insn::Load(Kind::Int, 1)),
        (8, Insn::Return(Some(Kind::Int))),
        (9, Insn::Store(Kind::Ref, 2)),
        (10, Insn::Jsr(16)),
        (13, Insn::Load(Kind::Ref, 2)),
        (14, Insn::AThrow),
        (15, Insn::Nop),
        (16, Insn::Store(Kind::Ref, 3)),
        (17, Insn::GetStatic(counter)),
        (20, Insn::IConst(1)),
        (21, Insn::Arith(Kind::Int, ArithOp::Add)),
        (22, Insn::PutStatic(counter)),
        (25, Insn::Ret(3)),
    ];
    let code = code(2, 4, insns, vec![handler(0, 4, 9, None)]);
    one_method(cp, "f", "(I)I", access::STATIC, code)
}

#[test]
fn finally_subroutine_is_inlined_per_call_site() {
    let class = try_finally_class();
    let body = lower_ok(&class);
    assert!(body.notes.is_empty(), "{:?}", body.notes);
    // Two copies of the subroutine body: one per jsr.
    let stores = body.stmts.iter().filter(
        |s| matches!(&s.kind, StmtKind::StaticStore { field, .. } if &*field.name == "counter"),
    );
    assert_eq!(stores.count(), 2);
    assert!(!body
        .stmts
        .iter()
        .any(|s| matches!(s.kind, StmtKind::Ret { .. })));
    // The normal copy returns to `return r`, the exceptional copy to the rethrow.
    let ret = body
        .stmts
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Return(Some(_))))
        .unwrap();
    let thr = body
        .stmts
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Throw(_)))
        .unwrap();
    let preds_of = |s: usize| body.blocks[body.block_of[s].index()].preds.clone();
    assert_eq!(preds_of(ret).len(), 1);
    assert_eq!(preds_of(thr).len(), 1);
    assert_ne!(preds_of(ret), preds_of(thr));
    insta::assert_snapshot!("jsr_try_finally", dump(&body));
}

/// `void g(Object lock) { synchronized (lock) { work(); } }` with the monitor exit in a subroutine.
fn sync_subroutine_class() -> lockstep_classfile::ClassFile {
    let mut cp = Cp::default();
    let work = cp.method("T", "work", "()V");
    let insns = vec![
        (0, Insn::Load(Kind::Ref, 1)),
        (1, Insn::Dup),
        (2, Insn::Store(Kind::Ref, 2)),
        (3, Insn::MonitorEnter),
        (4, Insn::Load(Kind::Ref, 0)),
        (5, Insn::Invoke(InvokeKind::Virtual, work)),
        (8, Insn::Jsr(19)),
        (11, Insn::Return(None)),
        (12, Insn::Store(Kind::Ref, 3)),
        (13, Insn::Jsr(19)),
        (16, Insn::Load(Kind::Ref, 3)),
        (17, Insn::AThrow),
        (18, Insn::Nop),
        (19, Insn::Store(Kind::Ref, 4)),
        (21, Insn::Load(Kind::Ref, 2)),
        (22, Insn::MonitorExit),
        (23, Insn::Ret(4)),
    ];
    let code = code(2, 5, insns, vec![handler(4, 8, 12, None)]);
    one_method(cp, "g", "(Ljava/lang/Object;)V", 0, code)
}

#[test]
fn synchronized_exit_in_subroutine() {
    let class = sync_subroutine_class();
    let body = lower_ok(&class);
    assert!(body.notes.is_empty(), "{:?}", body.notes);
    assert_eq!(body.monitors.len(), 1);
    let m = &body.monitors[0];
    assert_eq!(m.lock.to_string(), "p0");
    // One monitorexit per inlined copy of the subroutine: the normal and the exceptional path.
    assert_eq!(m.exits.len(), 2);
    for e in &m.exits {
        assert_eq!(body.held_before[e.index()], Some(MonitorId(0)));
    }
    let call = body
        .stmts
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Invoke { .. }))
        .unwrap();
    assert_eq!(body.held_before[call], Some(MonitorId(0)));
    let ret = body
        .stmts
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Return(None)))
        .unwrap();
    assert_eq!(body.held_before[ret], None);
    let thr = body
        .stmts
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Throw(_)))
        .unwrap();
    assert_eq!(body.held_before[thr], None);
    insta::assert_snapshot!("jsr_synchronized_exit", dump(&body));
}

/// A subroutine that (invalidly) calls itself cannot be inlined: `ret` jumps to every return point.
#[test]
fn recursive_subroutine_falls_back_to_ret() {
    let cp = Cp::default();
    let insns = vec![
        (0, Insn::Jsr(5)),
        (3, Insn::Return(None)),
        (4, Insn::Nop),
        (5, Insn::Store(Kind::Ref, 1)),
        (6, Insn::Load(Kind::Int, 0)),
        (
            7,
            Insn::If(IfKind::IntZero(lockstep_classfile::Cond::Eq), 13),
        ),
        (10, Insn::Jsr(5)),
        (13, Insn::Ret(1)),
    ];
    let class = one_method(cp, "h", "(I)V", access::STATIC, code(1, 2, insns, vec![]));
    let body = lower_ok(&class);
    assert!(
        body.notes.iter().any(|n| n.contains("not inlined")),
        "{:?}",
        body.notes
    );
    let rets: Vec<&StmtKind> = body
        .stmts
        .iter()
        .map(|s| &s.kind)
        .filter(|k| matches!(k, StmtKind::Ret { .. }))
        .collect();
    assert_eq!(rets.len(), 1);
    let StmtKind::Ret { address, targets } = rets[0] else {
        unreachable!()
    };
    assert_eq!(targets.len(), 2);
    assert_eq!(body.vars[address.index()].ty, Type::ReturnAddress);
}

/// Nested subroutines: a `finally` whose body has its own `finally`.
#[test]
fn nested_subroutines() {
    let mut cp = Cp::default();
    let a = cp.method("T", "a", "()V");
    let b = cp.method("T", "b", "()V");
    let insns = vec![
        (0, Insn::Jsr(5)), // outer finally
        (3, Insn::Return(None)),
        (4, Insn::Nop),
        (5, Insn::Store(Kind::Ref, 0)), // outer subroutine
        (6, Insn::Invoke(InvokeKind::Static, a)),
        (9, Insn::Jsr(14)), // inner finally
        (12, Insn::Ret(0)),
        (13, Insn::Nop),
        (14, Insn::Store(Kind::Ref, 1)), // inner subroutine
        (15, Insn::Invoke(InvokeKind::Static, b)),
        (18, Insn::Ret(1)),
    ];
    let class = one_method(cp, "n", "()V", access::STATIC, code(1, 2, insns, vec![]));
    let body = lower_ok(&class);
    assert!(body.notes.is_empty(), "{:?}", body.notes);
    let calls: Vec<String> = body
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Invoke { call, .. } => Some(call.method.name.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(calls, vec!["a", "b"]);
    assert!(
        matches!(body.stmts.last().unwrap().kind, StmtKind::Return(None))
            || body
                .stmts
                .iter()
                .any(|s| matches!(s.kind, StmtKind::Return(None)))
    );
}
