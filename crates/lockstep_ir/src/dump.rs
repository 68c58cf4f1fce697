//! A stable, readable text form of a [`Body`], for debugging (`lockstep
//! debug ir`) and snapshot tests.
//!
//! Layout: a header line, the variables with types and origins, notes, the
//! monitor regions, then each block (`B3 [handler …] <- preds -> succs !>
//! handlers`) with one statement per line: id, source line, pc, the
//! statement, and the innermost monitor held before it. Variables print as
//! `v3` or `v3(name)`; members as `<class.name:descriptor>`. The format is
//! for people; tools should read the `Body` itself.

use std::fmt::Write;

use crate::ir::*;

fn var(body: &Body, v: VarId) -> String {
    match body.vars.get(v.index()).and_then(|i| i.name.as_deref()) {
        Some(n) => format!("v{}({n})", v.0),
        None => format!("v{}", v.0),
    }
}

fn constant(c: &ConstValue) -> String {
    match c {
        ConstValue::Null => "null".into(),
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Long(l) => format!("{l}L"),
        ConstValue::Float(f) => format!("{f:?}f"),
        ConstValue::Double(d) => format!("{d:?}d"),
        ConstValue::String(s) => format!("\"{}\"", s.escape_debug()),
        ConstValue::Class(c) => format!("{c}.class"),
        ConstValue::MethodType(d) => format!("methodtype {d}"),
        ConstValue::MethodHandle(h) => handle(h),
        ConstValue::Dynamic { name, descriptor } => format!("condy {name}:{descriptor}"),
    }
}

fn handle(h: &MethodHandle) -> String {
    let kind = match h.kind {
        1 => "getfield",
        2 => "getstatic",
        3 => "putfield",
        4 => "putstatic",
        5 => "invokevirtual",
        6 => "invokestatic",
        7 => "invokespecial",
        8 => "newinvokespecial",
        9 => "invokeinterface",
        _ => "?",
    };
    format!("handle {kind} {}", member(&h.member))
}

fn member(m: &MemberRef) -> String {
    if m.descriptor.starts_with('(') {
        format!("<{}.{}{}>", m.class, m.name, m.descriptor)
    } else {
        format!("<{}.{}:{}>", m.class, m.name, m.descriptor)
    }
}

fn op(body: &Body, o: &Operand) -> String {
    match o {
        Operand::Var(v) => var(body, *v),
        Operand::Const(c) => constant(c),
    }
}

fn ops(body: &Body, os: &[Operand]) -> String {
    os.iter()
        .map(|o| op(body, o))
        .collect::<Vec<_>>()
        .join(", ")
}

fn arith(a: ArithOp) -> &'static str {
    match a {
        ArithOp::Add => "+",
        ArithOp::Sub => "-",
        ArithOp::Mul => "*",
        ArithOp::Div => "/",
        ArithOp::Rem => "%",
        ArithOp::Shl => "<<",
        ArithOp::Shr => ">>",
        ArithOp::Ushr => ">>>",
        ArithOp::And => "&",
        ArithOp::Or => "|",
        ArithOp::Xor => "^",
    }
}

fn cond(c: Cond) -> &'static str {
    match c {
        Cond::Eq => "==",
        Cond::Ne => "!=",
        Cond::Lt => "<",
        Cond::Ge => ">=",
        Cond::Gt => ">",
        Cond::Le => "<=",
    }
}

/// The text of a type, as the dump prints it.
pub(crate) fn type_text(t: &Type) -> String {
    match t {
        Type::Int => "int".into(),
        Type::Long => "long".into(),
        Type::Float => "float".into(),
        Type::Double => "double".into(),
        Type::Ref(Some(c)) => c.to_string(),
        Type::Ref(None) => "ref".into(),
        Type::Null => "null".into(),
        Type::ReturnAddress => "retaddr".into(),
    }
}

fn rvalue(body: &Body, r: &Rvalue) -> String {
    match r {
        Rvalue::Use(a) => op(body, a),
        Rvalue::Binary(o, a, b) => format!("{} {} {}", op(body, a), arith(*o), op(body, b)),
        Rvalue::Neg(a) => format!("-{}", op(body, a)),
        Rvalue::Convert(to, a) => {
            let t = match to {
                ConvertTo::Int => "int",
                ConvertTo::Long => "long",
                ConvertTo::Float => "float",
                ConvertTo::Double => "double",
                ConvertTo::Byte => "byte",
                ConvertTo::Char => "char",
                ConvertTo::Short => "short",
            };
            format!("({t}) {}", op(body, a))
        }
        Rvalue::Compare(c, a, b) => {
            let n = match c {
                CompareOp::LCmp => "lcmp",
                CompareOp::FCmpL => "fcmpl",
                CompareOp::FCmpG => "fcmpg",
                CompareOp::DCmpL => "dcmpl",
                CompareOp::DCmpG => "dcmpg",
            };
            format!("{n} {}, {}", op(body, a), op(body, b))
        }
        Rvalue::InstanceOf(a, c) => format!("{} instanceof {c}", op(body, a)),
        Rvalue::Cast(a, c) => format!("({c}) {}", op(body, a)),
        Rvalue::New(c) => format!("new {c}"),
        Rvalue::NewArray(d, dims) => format!("new {d}({})", ops(body, dims)),
        Rvalue::FieldLoad { object, field } => format!("{}.{}", op(body, object), member(field)),
        Rvalue::StaticLoad(f) => member(f),
        Rvalue::ArrayLoad { array, index, .. } => {
            format!("{}[{}]", op(body, array), op(body, index))
        }
        Rvalue::ArrayLength(a) => format!("{}.length", op(body, a)),
        Rvalue::CaughtException => "caught".into(),
    }
}

/// The text of one statement, as the dump prints it (without id, line or pc).
pub fn render_stmt(body: &Body, s: &Stmt) -> String {
    let assign = |r: &Option<VarId>| {
        r.map(|v| format!("{} = ", var(body, v)))
            .unwrap_or_default()
    };
    match &s.kind {
        StmtKind::Assign { dst, value } => format!("{} = {}", var(body, *dst), rvalue(body, value)),
        StmtKind::FieldStore {
            object,
            field,
            value,
        } => {
            format!(
                "{}.{} = {}",
                op(body, object),
                member(field),
                op(body, value)
            )
        }
        StmtKind::StaticStore { field, value } => {
            format!("{} = {}", member(field), op(body, value))
        }
        StmtKind::ArrayStore {
            array,
            index,
            value,
            ..
        } => {
            format!(
                "{}[{}] = {}",
                op(body, array),
                op(body, index),
                op(body, value)
            )
        }
        StmtKind::Invoke { result, call } => {
            let kind = match call.kind {
                CallKind::Virtual => "virtual",
                CallKind::Interface => "interface",
                CallKind::Special => "special",
                CallKind::Static => "static",
            };
            let recv = call
                .receiver
                .as_ref()
                .map(|r| format!("{}.", op(body, r)))
                .unwrap_or_default();
            format!(
                "{}{kind} {recv}{}({})",
                assign(result),
                member(&call.method),
                ops(body, &call.args)
            )
        }
        StmtKind::InvokeDynamic { result, call } => {
            let bargs = call
                .bootstrap_args
                .iter()
                .map(constant)
                .collect::<Vec<_>>()
                .join(", ");
            format!(
                "{}invokedynamic {}{}({}) bootstrap {} [{}]",
                assign(result),
                call.name,
                call.descriptor,
                ops(body, &call.args),
                member(&call.bootstrap.member),
                bargs
            )
        }
        StmtKind::MonitorEnter(a) => format!("monitorenter {}", op(body, a)),
        StmtKind::MonitorExit(a) => format!("monitorexit {}", op(body, a)),
        StmtKind::If {
            cond: c,
            lhs,
            rhs,
            target,
        } => {
            format!(
                "if {} {} {} goto B{}",
                op(body, lhs),
                cond(*c),
                op(body, rhs),
                target.0
            )
        }
        StmtKind::Goto(t) => format!("goto B{}", t.0),
        StmtKind::Switch {
            key,
            cases,
            default,
        } => {
            let cs = cases
                .iter()
                .map(|(k, b)| format!("{k}: B{}", b.0))
                .collect::<Vec<_>>()
                .join(", ");
            format!("switch {} [{cs}] default B{}", op(body, key), default.0)
        }
        StmtKind::Return(None) => "return".into(),
        StmtKind::Return(Some(a)) => format!("return {}", op(body, a)),
        StmtKind::Throw(a) => format!("throw {}", op(body, a)),
        StmtKind::Ret { address, targets } => {
            let ts = targets
                .iter()
                .map(|t| format!("B{}", t.0))
                .collect::<Vec<_>>()
                .join(", ");
            format!("ret {} -> {ts}", var(body, *address))
        }
        StmtKind::Nop => "nop".into(),
    }
}

/// The whole body as text; see the module documentation for the layout.
pub fn dump(body: &Body) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "method {}.{}{}",
        body.class, body.name, body.descriptor
    );
    if body.is_static {
        out.push_str(" static");
    }
    if body.is_synchronized {
        out.push_str(" synchronized");
    }
    out.push('\n');
    out.push_str("  vars:\n");
    for (i, v) in body.vars.iter().enumerate() {
        let origin = match v.origin {
            VarOrigin::This => "this".to_string(),
            VarOrigin::Param(n) => format!("param {n}"),
            VarOrigin::Local(n) => format!("local {n}"),
            VarOrigin::Stack(n) => format!("stack {n}"),
            VarOrigin::Temp => "temp".to_string(),
        };
        let _ = writeln!(
            out,
            "    {}: {} [{origin}]",
            var(body, VarId(i as u32)),
            type_text(&v.ty)
        );
    }
    for n in &body.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    if !body.monitors.is_empty() {
        out.push_str("  monitors:\n");
        for (i, m) in body.monitors.iter().enumerate() {
            let _ = write!(out, "    m{i}: ");
            match m.kind {
                MonitorKind::SynchronizedMethod => {
                    let _ = write!(out, "synchronized method on {}", m.lock);
                }
                MonitorKind::Block => {
                    let _ = write!(out, "block on {}", m.lock);
                    if let Some(v) = m.lock_var {
                        let _ = write!(out, " [{}]", var(body, v));
                    }
                    let enter = m
                        .enter
                        .map(|s| format!("s{}", s.0))
                        .unwrap_or_else(|| "-".into());
                    let exits = m
                        .exits
                        .iter()
                        .map(|s| format!("s{}", s.0))
                        .collect::<Vec<_>>()
                        .join(" ");
                    let _ = write!(out, " (enter {enter}, exits {exits})");
                }
            }
            if let Some(p) = m.parent {
                let _ = write!(out, " in m{}", p.0);
            }
            out.push('\n');
        }
    }
    // Which blocks are handlers, and of what.
    let mut caught: Vec<Vec<String>> = vec![Vec::new(); body.blocks.len()];
    for b in &body.blocks {
        for e in &b.exceptional {
            let c = e.catch.as_deref().unwrap_or("any").to_string();
            if let Some(list) = caught.get_mut(e.handler.index()) {
                if !list.contains(&c) {
                    list.push(c);
                }
            }
        }
    }
    for (i, b) in body.blocks.iter().enumerate() {
        let _ = write!(out, "  B{i}");
        if i == 0 {
            out.push_str(" [entry]");
        }
        if let Some(c) = caught.get(i).filter(|c| !c.is_empty()) {
            let _ = write!(out, " [handler {}]", c.join(" | "));
        }
        if !b.preds.is_empty() {
            let ps: Vec<String> = b
                .preds
                .iter()
                .map(|p| {
                    let normal = body
                        .blocks
                        .get(p.index())
                        .is_some_and(|pb| pb.succs.iter().any(|s| s.index() == i));
                    if normal {
                        format!("B{}", p.0)
                    } else {
                        format!("B{}(exc)", p.0)
                    }
                })
                .collect();
            let _ = write!(out, " <- {}", ps.join(", "));
        }
        if !b.succs.is_empty() {
            let ss: Vec<String> = b.succs.iter().map(|s| format!("B{}", s.0)).collect();
            let _ = write!(out, " -> {}", ss.join(", "));
        }
        if !b.exceptional.is_empty() {
            let es: Vec<String> = b
                .exceptional
                .iter()
                .map(|e| format!("B{}({})", e.handler.0, e.catch.as_deref().unwrap_or("any")))
                .collect();
            let _ = write!(out, " !> {}", es.join(", "));
        }
        out.push('\n');
        for s in b.stmt_ids() {
            let Some(stmt) = body.stmts.get(s.index()) else {
                continue;
            };
            let line = stmt
                .line
                .map(|l| format!("L{l}"))
                .unwrap_or_else(|| "L?".into());
            let _ = write!(
                out,
                "    s{:<4} {:<6} pc{:<6} {}",
                s.0,
                line,
                stmt.pc,
                render_stmt(body, stmt)
            );
            if let Some(m) = body.held_before.get(s.index()).copied().flatten() {
                let _ = write!(out, "    [m{}]", m.0);
            }
            out.push('\n');
        }
    }
    out
}
