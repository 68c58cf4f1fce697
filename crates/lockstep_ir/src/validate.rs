//! The IR validator: checks a [`Body`] against the invariants documented in
//! [`crate::ir`], plus internal consistency (succs/preds, `block_of`,
//! `unique_def`, `held_before` against the monitor regions, a few type
//! sanity checks). Tests run it after every lowering; analyses may rely on
//! everything it checks.
//!
//! It does not re-derive the lowering (it cannot tell a wrong-but-consistent
//! body from a right one): it checks that the parts agree with each other.

use lockstep_classfile::descriptor;

use crate::ir::*;

struct Checker<'a> {
    body: &'a Body,
    errors: Vec<String>,
}

impl Checker<'_> {
    fn err(&mut self, msg: String) {
        if self.errors.len() < 100 {
            self.errors.push(msg);
        }
    }
}

fn is_ref_like(t: &Type) -> bool {
    matches!(t, Type::Ref(_) | Type::Null)
}

/// Checks every invariant of `body`; the error list names each violation.
pub fn validate(body: &Body) -> Result<(), Vec<String>> {
    check(body, true)
}

/// [`validate`] without the type sanity checks: what must hold even for
/// bytecode no verifier would accept (lowering does not type-check).
pub fn validate_structure(body: &Body) -> Result<(), Vec<String>> {
    check(body, false)
}

fn check(body: &Body, types: bool) -> Result<(), Vec<String>> {
    let mut c = Checker {
        body,
        errors: Vec::new(),
    };
    if !check_tables(&mut c) {
        return Err(c.errors);
    }
    check_partition(&mut c);
    for (b, bl) in body.blocks.iter().enumerate() {
        check_block_edges(&mut c, b, bl);
    }
    check_preds(&mut c);
    check_vars(&mut c);
    if types {
        check_types(&mut c);
    }
    check_monitors(&mut c);
    if c.errors.is_empty() {
        Ok(())
    } else {
        Err(c.errors)
    }
}

/// The per-statement and per-variable tables have the right lengths, and
/// there is a block; `false` when there is none (nothing else can be checked).
fn check_tables(c: &mut Checker<'_>) -> bool {
    let body = c.body;
    let (ns, nv, nb) = (body.stmts.len(), body.vars.len(), body.blocks.len());
    if body.held_before.len() != ns {
        c.err(format!(
            "held_before has {} entries for {ns} statements",
            body.held_before.len()
        ));
    }
    if body.block_of.len() != ns {
        c.err(format!(
            "block_of has {} entries for {ns} statements",
            body.block_of.len()
        ));
    }
    if body.unique_def.len() != nv {
        c.err(format!(
            "unique_def has {} entries for {nv} variables",
            body.unique_def.len()
        ));
    }
    if nb == 0 {
        c.err("no blocks".into());
        return false;
    }
    true
}

/// Blocks partition the statements in order, and `block_of` agrees.
fn check_partition(c: &mut Checker<'_>) {
    let body = c.body;
    let ns = body.stmts.len();
    let mut expected = 0u32;
    for (b, bl) in body.blocks.iter().enumerate() {
        if bl.first.0 != expected || bl.end.0 < bl.first.0 {
            c.err(format!(
                "B{b}: statements s{}..s{} do not continue at s{expected}",
                bl.first.0, bl.end.0
            ));
        }
        expected = bl.end.0;
        for s in bl.stmt_ids() {
            if body.block_of.get(s.index()) != Some(&BlockId(b as u32)) {
                c.err(format!("block_of[s{}] is not B{b}", s.0));
            }
        }
    }
    if expected as usize != ns {
        c.err(format!("blocks cover {expected} of {ns} statements"));
    }
}

/// Block `b`'s terminator is its last statement, and its successors and
/// handlers are in range and match the terminator.
fn check_block_edges(c: &mut Checker<'_>, b: usize, bl: &Block) {
    let body = c.body;
    let nb = body.blocks.len();
    let in_range = |t: BlockId| t.index() < nb;
    let ids: Vec<StmtId> = bl.stmt_ids().collect();
    for (k, s) in ids.iter().enumerate() {
        let Some(stmt) = body.stmts.get(s.index()) else {
            continue;
        };
        if stmt.kind.is_terminator() && k + 1 != ids.len() {
            c.err(format!(
                "B{b}: terminator s{} is not the last statement",
                s.0
            ));
        }
        let mut bad = false;
        stmt.kind.for_each_target(|t| bad |= !in_range(t));
        if bad {
            c.err(format!("s{}: branch target out of range", s.0));
        }
    }
    let last = ids.last().and_then(|s| body.stmts.get(s.index()));
    let mut want: Vec<BlockId> = Vec::new();
    let next = BlockId(b as u32 + 1);
    match last.map(|s| &s.kind) {
        Some(k) if k.is_terminator() => {
            if matches!(k, StmtKind::If { .. }) {
                want.push(next);
                if !in_range(next) {
                    c.err(format!("B{b}: conditional branch falls off the last block"));
                }
            }
            k.for_each_target(|t| want.push(t));
        }
        _ => {
            if in_range(next) {
                want.push(next);
            } else {
                c.err(format!("B{b}: the last block falls through"));
            }
        }
    }
    if matches!(last.map(|s| &s.kind), Some(StmtKind::If { .. })) && bl.succs.first() != Some(&next)
    {
        c.err(format!(
            "B{b}: the fall-through of a conditional branch must be the first successor"
        ));
    }
    let mut got = bl.succs.clone();
    want.sort_unstable();
    want.dedup();
    got.sort_unstable();
    let len = got.len();
    got.dedup();
    if got.len() != len {
        c.err(format!("B{b}: duplicate successors"));
    }
    if got != want {
        c.err(format!(
            "B{b}: successors {:?} do not match the terminator ({:?})",
            bl.succs, want
        ));
    }
    for e in &bl.exceptional {
        if !in_range(e.handler) {
            c.err(format!("B{b}: handler B{} out of range", e.handler.0));
        }
    }
}

/// Predecessors are exactly the inverse of successors and handler edges.
fn check_preds(c: &mut Checker<'_>) {
    let body = c.body;
    let nb = body.blocks.len();
    let mut preds: Vec<Vec<BlockId>> = vec![Vec::new(); nb];
    for (b, bl) in body.blocks.iter().enumerate() {
        for t in bl
            .succs
            .iter()
            .chain(bl.exceptional.iter().map(|e| &e.handler))
        {
            if let Some(p) = preds.get_mut(t.index()) {
                p.push(BlockId(b as u32));
            }
        }
    }
    for (b, p) in preds.iter_mut().enumerate() {
        p.sort_unstable();
        p.dedup();
        if body.blocks.get(b).map(|bl| &bl.preds) != Some(p) {
            c.err(format!(
                "B{b}: preds {:?} should be {:?}",
                body.blocks.get(b).map(|bl| &bl.preds),
                p
            ));
        }
    }
    if body.blocks.first().is_some_and(|b| !b.preds.is_empty()) {
        c.err("the entry block B0 has predecessors".into());
    }
}

/// Variables: in range, defined, `unique_def` right, parameters first.
fn check_vars(c: &mut Checker<'_>) {
    let body = c.body;
    let nv = body.vars.len();
    let mut defs = vec![0u32; nv];
    let mut first_def: Vec<Option<StmtId>> = vec![None; nv];
    let mut used = vec![false; nv];
    for (i, s) in body.stmts.iter().enumerate() {
        if let Some(v) = s.kind.def() {
            match defs.get_mut(v.index()) {
                Some(d) => {
                    *d += 1;
                    if let Some(f) = first_def.get_mut(v.index()) {
                        f.get_or_insert(StmtId(i as u32));
                    }
                }
                None => c.err(format!("s{i}: defines {v}, out of range")),
            }
        }
        let mut out_of_range = None;
        s.kind.for_each_use(|v| match used.get_mut(v.index()) {
            Some(u) => *u = true,
            None => out_of_range = Some(v),
        });
        if let Some(v) = out_of_range {
            c.err(format!("s{i}: uses {v}, out of range"));
        }
        // At most one heap access or call: guaranteed by the types (operands
        // are variables or constants), so there is nothing nested to find.
    }
    let is_param = |v: usize| body.params.iter().any(|p| p.index() == v);
    for p in &body.params {
        if p.index() >= nv {
            c.err(format!("parameter {p} out of range"));
        } else if defs.get(p.index()).copied().unwrap_or(0) > 0 {
            c.err(format!("parameter {p} has a defining statement"));
        }
    }
    for v in 0..nv {
        let d = defs.get(v).copied().unwrap_or(0);
        if used.get(v).copied().unwrap_or(false) && d == 0 && !is_param(v) {
            c.err(format!("v{v} is used but never defined"));
        }
        let want = if d == 1 && !is_param(v) {
            first_def.get(v).copied().flatten()
        } else {
            None
        };
        if body.unique_def.get(v).copied().flatten() != want {
            c.err(format!(
                "unique_def[v{v}] is {:?}, should be {want:?}",
                body.unique_def.get(v)
            ));
        }
        let info = body.vars.get(v);
        if matches!(
            info.map(|i| i.origin),
            Some(VarOrigin::This | VarOrigin::Param(_))
        ) && !is_param(v)
        {
            c.err(format!(
                "v{v} has a parameter origin but is not a parameter"
            ));
        }
    }
    if !body.is_static {
        let this_ok = body
            .params
            .first()
            .and_then(|p| body.vars.get(p.index()))
            .map(|i| i.origin)
            == Some(VarOrigin::This);
        if !this_ok {
            c.err("an instance method's first parameter must be `this`".into());
        }
    }
}

/// The type of an operand: a variable's type or a constant's.
fn operand_type(body: &Body, o: &Operand) -> Option<Type> {
    Some(match o {
        Operand::Var(v) => body.vars.get(v.index())?.ty.clone(),
        Operand::Const(ConstValue::Null) => Type::Null,
        Operand::Const(ConstValue::Int(_)) => Type::Int,
        Operand::Const(ConstValue::Long(_)) => Type::Long,
        Operand::Const(ConstValue::Float(_)) => Type::Float,
        Operand::Const(ConstValue::Double(_)) => Type::Double,
        Operand::Const(ConstValue::Dynamic { descriptor, .. }) => {
            match descriptor.as_bytes().first() {
                Some(b'J') => Type::Long,
                Some(b'F') => Type::Float,
                Some(b'D') => Type::Double,
                Some(b'L' | b'[') => Type::Ref(None),
                _ => Type::Int,
            }
        }
        Operand::Const(_) => Type::Ref(None),
    })
}

/// Does a value of type `t` fit a field/parameter/return descriptor?
/// Primitive kinds must match exactly; references only need to be references.
fn fits(desc: &str, t: &Type) -> bool {
    match desc.as_bytes().first() {
        Some(b'J') => *t == Type::Long,
        Some(b'F') => *t == Type::Float,
        Some(b'D') => *t == Type::Double,
        Some(b'L' | b'[') => is_ref_like(t),
        Some(b'V') => false,
        _ => *t == Type::Int,
    }
}

fn kind_fits(k: ArrayKind, t: &Type) -> bool {
    match k {
        ArrayKind::Long => *t == Type::Long,
        ArrayKind::Float => *t == Type::Float,
        ArrayKind::Double => *t == Type::Double,
        ArrayKind::Ref => is_ref_like(t),
        _ => *t == Type::Int,
    }
}

/// Type sanity: operands whose kind the statement fixes (array indices are
/// ints, stored values fit the field, call arguments fit the descriptor,
/// ...). A stack-simulation slip (an operand taken from the wrong depth)
/// nearly always shows up here.
fn check_types(c: &mut Checker<'_>) {
    let body = c.body;
    let ty = |o: &Operand| operand_type(body, o);
    let mut errs: Vec<String> = Vec::new();
    let int = is_int;
    let refl = is_ref_like;
    let ret_desc = body
        .descriptor
        .rsplit(')')
        .next()
        .unwrap_or("V")
        .to_string();
    for (i, s) in body.stmts.iter().enumerate() {
        match &s.kind {
            StmtKind::Assign { dst, value } => check_assign_types(&mut errs, body, i, *dst, value),
            StmtKind::FieldStore {
                object,
                field,
                value,
            } => {
                want(&mut errs, body, i, object, "field object", &refl);
                want(&mut errs, body, i, value, "stored value", &|t: &Type| {
                    fits(&field.descriptor, t)
                });
            }
            StmtKind::StaticStore { field, value } => {
                want(&mut errs, body, i, value, "stored value", &|t: &Type| {
                    fits(&field.descriptor, t)
                });
            }
            StmtKind::ArrayStore {
                array,
                index,
                value,
                kind,
            } => {
                want(&mut errs, body, i, array, "array", &refl);
                want(&mut errs, body, i, index, "array index", &int);
                want(&mut errs, body, i, value, "stored element", &|t: &Type| {
                    kind_fits(*kind, t)
                });
            }
            StmtKind::Invoke { call, result } => {
                check_call_types(&mut errs, body, i, call, *result)
            }
            StmtKind::InvokeDynamic { call, .. } => {
                if let Some((params, _)) = descriptor::method_sig(&call.descriptor) {
                    for (a, p) in call.args.iter().zip(params) {
                        want(&mut errs, body, i, a, "argument", &|t: &Type| fits(p, t));
                    }
                }
            }
            StmtKind::MonitorEnter(a) | StmtKind::MonitorExit(a) => {
                want(&mut errs, body, i, a, "lock", &refl)
            }
            StmtKind::Throw(a) => want(&mut errs, body, i, a, "thrown value", &refl),
            StmtKind::If { lhs, rhs, .. } => {
                if let (Some(a), Some(b)) = (ty(lhs), ty(rhs)) {
                    let ok =
                        (a == Type::Int && b == Type::Int) || (is_ref_like(&a) && is_ref_like(&b));
                    if !ok {
                        errs.push(format!("s{i}: branch compares {a:?} with {b:?}"));
                    }
                }
            }
            StmtKind::Switch { key, .. } => want(&mut errs, body, i, key, "switch key", &int),
            StmtKind::Return(Some(a)) => {
                want(&mut errs, body, i, a, "returned value", &|t: &Type| {
                    fits(&ret_desc, t)
                })
            }
            StmtKind::Return(None) if ret_desc != "V" => {
                errs.push(format!(
                    "s{i}: return without a value from a non-void method"
                ));
            }
            StmtKind::Ret { address, .. }
                if body.vars.get(address.index()).map(|i| &i.ty) != Some(&Type::ReturnAddress) =>
            {
                errs.push(format!(
                    "s{i}: ret address {address} is not a return address"
                ));
            }
            _ => {}
        }
    }
    for e in errs {
        c.err(e);
    }
}

/// Reports an operand whose type is known and not `ok`.
fn want(
    errs: &mut Vec<String>,
    body: &Body,
    i: usize,
    o: &Operand,
    what: &str,
    ok: &dyn Fn(&Type) -> bool,
) {
    if let Some(t) = operand_type(body, o) {
        if !ok(&t) {
            errs.push(format!("s{i}: {what} {} has type {t:?}", render_op(o)));
        }
    }
}

fn is_int(t: &Type) -> bool {
    *t == Type::Int
}

/// The operand types of an assignment fit its value, and the value fits
/// the destination.
fn check_assign_types(errs: &mut Vec<String>, body: &Body, i: usize, dst: VarId, value: &Rvalue) {
    let (int, refl) = (is_int, is_ref_like);
    let ty = |o: &Operand| operand_type(body, o);
    let dt = body.vars.get(dst.index()).map(|v| v.ty.clone());
    match value {
        Rvalue::FieldLoad { object, field } => {
            want(errs, body, i, object, "field object", &refl);
            if let Some(dt) = &dt {
                if !fits(&field.descriptor, dt) {
                    errs.push(format!(
                        "s{i}: {dst} does not fit field {}",
                        field.descriptor
                    ));
                }
            }
        }
        Rvalue::ArrayLoad { array, index, kind } => {
            want(errs, body, i, array, "array", &refl);
            want(errs, body, i, index, "array index", &int);
            if let Some(dt) = &dt {
                if !kind_fits(*kind, dt) {
                    errs.push(format!("s{i}: {dst} does not fit the array element kind"));
                }
            }
        }
        Rvalue::ArrayLength(a) => want(errs, body, i, a, "array", &refl),
        Rvalue::NewArray(_, dims) => dims
            .iter()
            .for_each(|d| want(errs, body, i, d, "array length", &int)),
        Rvalue::Binary(op, a, b) => {
            if let Some(dt) = dt.clone() {
                want(errs, body, i, a, "left operand", &|t: &Type| *t == dt);
                let shift = matches!(op, ArithOp::Shl | ArithOp::Shr | ArithOp::Ushr);
                if shift {
                    want(errs, body, i, b, "shift distance", &int);
                } else {
                    want(errs, body, i, b, "right operand", &|t: &Type| *t == dt);
                }
            }
        }
        Rvalue::Neg(a) => {
            if let Some(dt) = dt.clone() {
                want(errs, body, i, a, "operand", &|t: &Type| *t == dt);
            }
        }
        Rvalue::Compare(_, a, b) => {
            if let (Some(ta), Some(tb)) = (ty(a), ty(b)) {
                if ta != tb {
                    errs.push(format!("s{i}: comparison of {ta:?} with {tb:?}"));
                }
            }
        }
        Rvalue::InstanceOf(a, _) | Rvalue::Cast(a, _) => want(errs, body, i, a, "operand", &refl),
        _ => {}
    }
}

/// A call's receiver and arguments fit its descriptor, and so does its result.
fn check_call_types(
    errs: &mut Vec<String>,
    body: &Body,
    i: usize,
    call: &Call,
    result: Option<VarId>,
) {
    if let Some(r) = &call.receiver {
        want(errs, body, i, r, "receiver", &is_ref_like);
    }
    if let Some((params, ret)) = descriptor::method_sig(&call.method.descriptor) {
        let params: Vec<&str> = params.collect();
        if params.len() != call.args.len() {
            errs.push(format!(
                "s{i}: {} arguments for {} parameters",
                call.args.len(),
                params.len()
            ));
        }
        for (a, p) in call.args.iter().zip(params) {
            want(errs, body, i, a, "argument", &|t: &Type| fits(p, t));
        }
        if let Some(r) = result {
            if let Some(rt) = body.vars.get(r.index()).map(|v| v.ty.clone()) {
                if !fits(ret, &rt) {
                    errs.push(format!("s{i}: result {r} does not fit {ret}"));
                }
            }
        }
    }
}

fn render_op(o: &Operand) -> String {
    match o {
        Operand::Var(v) => v.to_string(),
        Operand::Const(k) => format!("{k:?}"),
    }
}

fn check_monitors(c: &mut Checker<'_>) {
    let body = c.body;
    let nm = body.monitors.len();
    let ns = body.stmts.len();
    // Regions: kinds, parents, enters, exits.
    let mut enter_of: Vec<Option<MonitorId>> = vec![None; ns];
    let mut exit_of: Vec<Option<MonitorId>> = vec![None; ns];
    for (i, r) in body.monitors.iter().enumerate() {
        let id = MonitorId(i as u32);
        if let Some(p) = r.parent {
            if p.index() >= nm {
                c.err(format!("m{i}: parent m{} out of range", p.0));
                continue;
            }
        }
        // Acyclic parent chain.
        let mut cur = r.parent;
        let mut steps = 0;
        while let Some(p) = cur {
            steps += 1;
            if p == id || steps > nm {
                c.err(format!("m{i}: cyclic parent chain"));
                break;
            }
            cur = region_parent(body, p);
        }
        match r.kind {
            MonitorKind::SynchronizedMethod => check_method_region(c, i, r),
            MonitorKind::Block => check_block_region(c, id, r, &mut enter_of, &mut exit_of),
        }
    }
    if body.is_synchronized
        && body.monitors.first().map(|m| m.kind) != Some(MonitorKind::SynchronizedMethod)
    {
        c.err("a synchronized method needs region m0".into());
    }
    check_held(c, &enter_of);
    check_monitor_flow(c, &enter_of, &exit_of);
}

/// The region enclosing region `m`, if any.
fn region_parent(body: &Body, m: MonitorId) -> Option<MonitorId> {
    body.monitors.get(m.index()).and_then(|r| r.parent)
}

/// Region `i`, of a synchronized method: m0, without enter, exits, parent
/// or lock variable, locking `this` or the class.
fn check_method_region(c: &mut Checker<'_>, i: usize, r: &MonitorRegion) {
    let body = c.body;
    if i != 0 || !body.is_synchronized {
        c.err(format!(
            "m{i}: a synchronized-method region must be m0 of a synchronized method"
        ));
    }
    if r.enter.is_some() || !r.exits.is_empty() || r.parent.is_some() || r.lock_var.is_some() {
        c.err(format!(
            "m{i}: a synchronized-method region has no enter, exits, parent or lock variable"
        ));
    }
    let want = if body.is_static {
        AccessPath::ClassLiteral(body.class.clone())
    } else {
        AccessPath::This
    };
    if r.lock != want {
        c.err(format!("m{i}: synchronized-method lock should be {want}"));
    }
}

/// Block region `id`: its enter and exits are monitor instructions of it
/// alone, entered under its parent and exited inside it.
fn check_block_region(
    c: &mut Checker<'_>,
    id: MonitorId,
    r: &MonitorRegion,
    enter_of: &mut [Option<MonitorId>],
    exit_of: &mut [Option<MonitorId>],
) {
    let body = c.body;
    let nm = body.monitors.len();
    let i = id.0;
    let parent = |m: MonitorId| region_parent(body, m);
    let Some(e) = r.enter else {
        c.err(format!("m{i}: a block region needs its monitorenter"));
        return;
    };
    match body.stmts.get(e.index()).map(|s| &s.kind) {
        Some(StmtKind::MonitorEnter(op)) => {
            if op.var() != r.lock_var {
                c.err(format!(
                    "m{i}: lock_var does not match the monitorenter operand"
                ));
            }
        }
        _ => c.err(format!("m{i}: enter s{} is not a monitorenter", e.0)),
    }
    if let Some(slot) = enter_of.get_mut(e.index()) {
        if slot.is_some() {
            c.err(format!("s{}: enter of two regions", e.0));
        }
        *slot = Some(id);
    }
    if body.held_before.get(e.index()).copied().flatten() != r.parent {
        c.err(format!(
            "m{i}: the monitor held before its enter s{} is not its parent",
            e.0
        ));
    }
    for x in &r.exits {
        if !matches!(
            body.stmts.get(x.index()).map(|s| &s.kind),
            Some(StmtKind::MonitorExit(_))
        ) {
            c.err(format!("m{i}: exit s{} is not a monitorexit", x.0));
        }
        if let Some(slot) = exit_of.get_mut(x.index()) {
            if slot.is_some() {
                c.err(format!("s{}: exit of two regions", x.0));
            }
            *slot = Some(id);
        }
        // Inside the region: it is held before the exit (innermost,
        // unless an unstructured exit releases an outer region).
        let mut cur = body.held_before.get(x.index()).copied().flatten();
        let mut steps = 0;
        while cur.is_some_and(|m| m != id) && steps <= nm {
            cur = cur.and_then(parent);
            steps += 1;
        }
        if cur != Some(id) {
            c.err(format!("m{i}: exit s{} is not inside the region", x.0));
        }
    }
}

/// Every monitorenter has a region, `held_before` is in range, and a
/// synchronized method's monitor is held everywhere.
fn check_held(c: &mut Checker<'_>, enter_of: &[Option<MonitorId>]) {
    let body = c.body;
    let nm = body.monitors.len();
    for (i, s) in body.stmts.iter().enumerate() {
        if matches!(s.kind, StmtKind::MonitorEnter(_))
            && enter_of.get(i).copied().flatten().is_none()
        {
            c.err(format!("s{i}: monitorenter without a region"));
        }
        let h = body.held_before.get(i).copied().flatten();
        if let Some(m) = h {
            if m.index() >= nm {
                c.err(format!("held_before[s{i}] = m{} out of range", m.0));
            }
        }
        if body.is_synchronized {
            // The method's monitor is held everywhere.
            let mut cur = h;
            let mut found = false;
            let mut steps = 0;
            while let Some(m) = cur {
                if m.0 == 0 {
                    found = true;
                    break;
                }
                steps += 1;
                if steps > nm {
                    break;
                }
                cur = region_parent(body, m);
            }
            if !found {
                c.err(format!(
                    "s{i}: the synchronized method's monitor m0 is not held"
                ));
            }
        }
    }
}

/// The monitor state flows statement to statement within a block, and
/// agrees across edges (unless lowering reported unstructured locking).
fn check_monitor_flow(
    c: &mut Checker<'_>,
    enter_of: &[Option<MonitorId>],
    exit_of: &[Option<MonitorId>],
) {
    let body = c.body;
    let parent = |m: MonitorId| region_parent(body, m);
    let after = |s: usize| -> Option<MonitorId> {
        if let Some(r) = enter_of.get(s).copied().flatten() {
            return Some(r);
        }
        if let Some(r) = exit_of.get(s).copied().flatten() {
            return parent(r);
        }
        body.held_before.get(s).copied().flatten()
    };
    // Within a block, the state flows statement to statement.
    for bl in &body.blocks {
        for s in bl.first.index()..bl.end.index().saturating_sub(1) {
            if body.held_before.get(s + 1).copied().flatten() != after(s) {
                c.err(format!("held_before[s{}] does not follow from s{s}", s + 1));
            }
        }
    }
    // Across edges, unless the lowering already reported unstructured locking.
    let unstructured = body
        .notes
        .iter()
        .any(|n| n.contains("locking") || n.contains("monitorexit"));
    if unstructured {
        return;
    }
    for (b, bl) in body.blocks.iter().enumerate() {
        if bl.first == bl.end {
            continue;
        }
        let end_state = after(bl.end.index() - 1);
        for s in &bl.succs {
            if let Some(sb) = body.blocks.get(s.index()) {
                if sb.first != sb.end
                    && body.held_before.get(sb.first.index()).copied().flatten() != end_state
                {
                    c.err(format!(
                        "B{b} -> B{}: monitor state differs at the merge",
                        s.0
                    ));
                }
            }
        }
        for e in &bl.exceptional {
            if let Some(hb) = body.blocks.get(e.handler.index()) {
                if hb.first == hb.end {
                    continue;
                }
                let hs = body.held_before.get(hb.first.index()).copied().flatten();
                if bl
                    .stmt_ids()
                    .any(|s| body.held_before.get(s.index()).copied().flatten() != hs)
                {
                    c.err(format!(
                        "B{b} !> B{}: monitor state differs at the handler",
                        e.handler.0
                    ));
                }
            }
        }
    }
}
