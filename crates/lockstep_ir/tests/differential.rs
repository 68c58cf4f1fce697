//! Differential test of the lowering: pure int/long functions compiled by
//! javac are run by the JVM and by a small interpreter over lockstep's IR
//! (stack simulation, local splitting, exceptional edges all take part);
//! every result must agree.

mod common;

use std::collections::HashMap;
use std::process::Command;

use common::compile_java;
use lockstep_ir::*;

#[derive(Clone, Debug, PartialEq)]
enum Val {
    I(i32),
    J(i64),
    Ref(usize),
    Null,
}

enum Obj {
    Ints(Vec<i32>),
    Longs(Vec<i64>),
    Exc(&'static str),
}

struct Vm<'a> {
    bodies: HashMap<&'a str, &'a Body>,
    heap: Vec<Obj>,
    steps: u64,
}

fn is_a(class: &str, catch: &str) -> bool {
    let chain: &[&str] = match class {
        "java/lang/ArithmeticException" => &[
            "java/lang/ArithmeticException",
            "java/lang/RuntimeException",
        ],
        "java/lang/ArrayIndexOutOfBoundsException" => &[
            "java/lang/ArrayIndexOutOfBoundsException",
            "java/lang/IndexOutOfBoundsException",
            "java/lang/RuntimeException",
        ],
        _ => &[
            "java/lang/NegativeArraySizeException",
            "java/lang/RuntimeException",
        ],
    };
    chain.contains(&catch) || catch == "java/lang/Exception" || catch == "java/lang/Throwable"
}

impl<'a> Vm<'a> {
    fn exc(&mut self, class: &'static str) -> Val {
        self.heap.push(Obj::Exc(class));
        Val::Ref(self.heap.len() - 1)
    }

    fn op(&self, vars: &[Option<Val>], o: &Operand) -> Val {
        match o {
            Operand::Var(v) => vars[v.index()]
                .clone()
                .unwrap_or_else(|| panic!("{v} read before written")),
            Operand::Const(ConstValue::Int(i)) => Val::I(*i),
            Operand::Const(ConstValue::Long(l)) => Val::J(*l),
            Operand::Const(ConstValue::Null) => Val::Null,
            Operand::Const(c) => panic!("unsupported constant {c:?}"),
        }
    }

    /// Runs `name` with `args`; `Err` is an exception escaping it.
    fn call(&mut self, name: &str, args: Vec<Val>) -> Result<Val, Val> {
        let body = *self
            .bodies
            .get(name)
            .unwrap_or_else(|| panic!("no method {name}"));
        let mut vars: Vec<Option<Val>> = vec![None; body.vars.len()];
        for (p, a) in body.params.iter().zip(args) {
            vars[p.index()] = Some(a);
        }
        let mut caught = Val::Null;
        let mut b = 0usize;
        let mut s = body.blocks[0].first.index();
        loop {
            self.steps += 1;
            assert!(self.steps < 50_000_000, "runaway");
            if s >= body.blocks[b].end.index() {
                b += 1;
                s = body.blocks[b].first.index();
                continue;
            }
            // `Some(exception)` when the statement throws.
            let mut thrown: Option<Val> = None;
            let mut jump: Option<BlockId> = None;
            match &body.stmts[s].kind {
                StmtKind::Assign { dst, value } => {
                    let v = match value {
                        Rvalue::Use(a) => Ok(self.op(&vars, a)),
                        Rvalue::Neg(a) => Ok(match self.op(&vars, a) {
                            Val::I(x) => Val::I(x.wrapping_neg()),
                            Val::J(x) => Val::J(x.wrapping_neg()),
                            v => panic!("neg {v:?}"),
                        }),
                        Rvalue::Binary(o, a, c) => {
                            self.binary(*o, self.op(&vars, a), self.op(&vars, c))
                        }
                        Rvalue::Convert(to, a) => Ok(match (to, self.op(&vars, a)) {
                            (ConvertTo::Long, Val::I(x)) => Val::J(i64::from(x)),
                            (ConvertTo::Int, Val::J(x)) => Val::I(x as i32),
                            (ConvertTo::Byte, Val::I(x)) => Val::I(i32::from(x as i8)),
                            (ConvertTo::Char, Val::I(x)) => Val::I(i32::from(x as u16)),
                            (ConvertTo::Short, Val::I(x)) => Val::I(i32::from(x as i16)),
                            (t, v) => panic!("convert {t:?} {v:?}"),
                        }),
                        Rvalue::Compare(CompareOp::LCmp, a, c) => {
                            match (self.op(&vars, a), self.op(&vars, c)) {
                                (Val::J(x), Val::J(y)) => Ok(Val::I(x.cmp(&y) as i32)),
                                v => panic!("lcmp {v:?}"),
                            }
                        }
                        Rvalue::NewArray(d, dims) => match (&**d, self.op(&vars, &dims[0])) {
                            (_, Val::I(n)) if n < 0 => {
                                Err(self.exc("java/lang/NegativeArraySizeException"))
                            }
                            ("[I", Val::I(n)) => {
                                self.heap.push(Obj::Ints(vec![0; n as usize]));
                                Ok(Val::Ref(self.heap.len() - 1))
                            }
                            ("[J", Val::I(n)) => {
                                self.heap.push(Obj::Longs(vec![0; n as usize]));
                                Ok(Val::Ref(self.heap.len() - 1))
                            }
                            (d, _) => panic!("new {d}"),
                        },
                        Rvalue::ArrayLength(a) => match self.op(&vars, a) {
                            Val::Ref(r) => Ok(Val::I(match &self.heap[r] {
                                Obj::Ints(v) => v.len() as i32,
                                Obj::Longs(v) => v.len() as i32,
                                Obj::Exc(_) => panic!("length of an exception"),
                            })),
                            v => panic!("length of {v:?}"),
                        },
                        Rvalue::ArrayLoad { array, index, .. } => {
                            match (self.op(&vars, array), self.op(&vars, index)) {
                                (Val::Ref(r), Val::I(i)) => match &self.heap[r] {
                                    Obj::Ints(v) if (i as usize) < v.len() && i >= 0 => {
                                        Ok(Val::I(v[i as usize]))
                                    }
                                    Obj::Longs(v) if (i as usize) < v.len() && i >= 0 => {
                                        Ok(Val::J(v[i as usize]))
                                    }
                                    _ => Err(self.exc("java/lang/ArrayIndexOutOfBoundsException")),
                                },
                                v => panic!("aload {v:?}"),
                            }
                        }
                        Rvalue::CaughtException => Ok(caught.clone()),
                        r => panic!("unsupported {r:?}"),
                    };
                    match v {
                        Ok(v) => vars[dst.index()] = Some(v),
                        Err(e) => thrown = Some(e),
                    }
                }
                StmtKind::ArrayStore {
                    array,
                    index,
                    value,
                    ..
                } => {
                    let (a, i, v) = (
                        self.op(&vars, array),
                        self.op(&vars, index),
                        self.op(&vars, value),
                    );
                    let (Val::Ref(r), Val::I(i)) = (a, i) else {
                        panic!("astore")
                    };
                    let ok = match (&mut self.heap[r], v) {
                        (Obj::Ints(xs), Val::I(x)) if i >= 0 && (i as usize) < xs.len() => {
                            xs[i as usize] = x;
                            true
                        }
                        (Obj::Longs(xs), Val::J(x)) if i >= 0 && (i as usize) < xs.len() => {
                            xs[i as usize] = x;
                            true
                        }
                        _ => false,
                    };
                    if !ok {
                        thrown = Some(self.exc("java/lang/ArrayIndexOutOfBoundsException"));
                    }
                }
                StmtKind::Invoke { result, call } => {
                    assert_eq!(call.kind, CallKind::Static, "{:?}", call.method);
                    let args: Vec<Val> = call.args.iter().map(|a| self.op(&vars, a)).collect();
                    match self.call(&call.method.name, args) {
                        Ok(v) => {
                            if let Some(r) = result {
                                vars[r.index()] = Some(v);
                            }
                        }
                        Err(e) => thrown = Some(e),
                    }
                }
                StmtKind::If {
                    cond,
                    lhs,
                    rhs,
                    target,
                } => {
                    let (l, r) = (self.op(&vars, lhs), self.op(&vars, rhs));
                    let taken = match (l, r) {
                        (Val::I(x), Val::I(y)) => match cond {
                            Cond::Eq => x == y,
                            Cond::Ne => x != y,
                            Cond::Lt => x < y,
                            Cond::Ge => x >= y,
                            Cond::Gt => x > y,
                            Cond::Le => x <= y,
                        },
                        (x, y) => match cond {
                            Cond::Eq => x == y,
                            Cond::Ne => x != y,
                            _ => panic!("ref comparison {cond:?}"),
                        },
                    };
                    jump = Some(if taken {
                        *target
                    } else {
                        BlockId(b as u32 + 1)
                    });
                }
                StmtKind::Goto(t) => jump = Some(*t),
                StmtKind::Switch {
                    key,
                    cases,
                    default,
                } => {
                    let Val::I(k) = self.op(&vars, key) else {
                        panic!("switch")
                    };
                    jump = Some(
                        cases
                            .iter()
                            .find(|(c, _)| *c == k)
                            .map_or(*default, |(_, t)| *t),
                    );
                }
                StmtKind::Return(v) => {
                    return Ok(v.as_ref().map_or(Val::Null, |v| self.op(&vars, v)))
                }
                StmtKind::Throw(v) => thrown = Some(self.op(&vars, v)),
                k => panic!("unsupported {k:?}"),
            }
            if let Some(e) = thrown {
                let Val::Ref(r) = e else {
                    panic!("throw of {e:?}")
                };
                let Obj::Exc(class) = self.heap[r] else {
                    panic!("not an exception")
                };
                let handler = body.blocks[b]
                    .exceptional
                    .iter()
                    .find(|edge| edge.catch.as_deref().is_none_or(|c| is_a(class, c)));
                match handler {
                    Some(edge) => {
                        caught = e;
                        jump = Some(edge.handler);
                    }
                    None => return Err(e),
                }
            }
            match jump {
                Some(t) => {
                    b = t.index();
                    s = body.blocks[b].first.index();
                }
                None => s += 1,
            }
        }
    }

    fn binary(&mut self, op: ArithOp, a: Val, c: Val) -> Result<Val, Val> {
        Ok(match (a, c) {
            (Val::I(x), Val::I(y)) => Val::I(match op {
                ArithOp::Add => x.wrapping_add(y),
                ArithOp::Sub => x.wrapping_sub(y),
                ArithOp::Mul => x.wrapping_mul(y),
                ArithOp::Div | ArithOp::Rem if y == 0 => {
                    return Err(self.exc("java/lang/ArithmeticException"))
                }
                ArithOp::Div => x.wrapping_div(y),
                ArithOp::Rem => x.wrapping_rem(y),
                ArithOp::Shl => x.wrapping_shl(y as u32 & 31),
                ArithOp::Shr => x.wrapping_shr(y as u32 & 31),
                ArithOp::Ushr => ((x as u32) >> (y as u32 & 31)) as i32,
                ArithOp::And => x & y,
                ArithOp::Or => x | y,
                ArithOp::Xor => x ^ y,
            }),
            (Val::J(x), Val::I(y)) if matches!(op, ArithOp::Shl | ArithOp::Shr | ArithOp::Ushr) => {
                Val::J(match op {
                    ArithOp::Shl => x.wrapping_shl(y as u32 & 63),
                    ArithOp::Shr => x.wrapping_shr(y as u32 & 63),
                    _ => ((x as u64) >> (y as u32 & 63)) as i64,
                })
            }
            (Val::J(x), Val::J(y)) => Val::J(match op {
                ArithOp::Add => x.wrapping_add(y),
                ArithOp::Sub => x.wrapping_sub(y),
                ArithOp::Mul => x.wrapping_mul(y),
                ArithOp::Div | ArithOp::Rem if y == 0 => {
                    return Err(self.exc("java/lang/ArithmeticException"))
                }
                ArithOp::Div => x.wrapping_div(y),
                ArithOp::Rem => x.wrapping_rem(y),
                ArithOp::And => x & y,
                ArithOp::Or => x | y,
                ArithOp::Xor => x ^ y,
                _ => panic!("long shift by long"),
            }),
            v => panic!("binary {op:?} {v:?}"),
        })
    }
}

fn show(v: &Val) -> String {
    match v {
        Val::I(i) => i.to_string(),
        Val::J(l) => l.to_string(),
        v => format!("{v:?}"),
    }
}

#[test]
fn ir_interpreter_agrees_with_the_jvm() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/Calc.java"
    ))
    .unwrap();
    let classes = compile_java(&[("Calc.java", &src)]);
    let class = classes.iter().find(|c| &*c.this_class == "Calc").unwrap();
    let bodies: Vec<Body> = common::lower_all(std::slice::from_ref(class));

    // What the JVM says.
    let fixture = lockstep_testkit::compile(
        &[lockstep_testkit::SourceFile::new("Calc.java", src.as_str())],
        &lockstep_testkit::CompileOptions::default(),
    )
    .unwrap();
    let java = std::env::var("JAVA_HOME").map_or("java".to_string(), |h| format!("{h}/bin/java"));
    let out = Command::new(java)
        .arg("-cp")
        .arg(&fixture.classes_dir)
        .arg("Calc")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = String::from_utf8(out.stdout).unwrap();

    let mut vm = Vm {
        bodies: bodies.iter().map(|b| (&*b.name, b)).collect(),
        heap: Vec::new(),
        steps: 0,
    };
    let mut checked = 0;
    for line in expected.lines() {
        let (call, want) = line.split_once('=').unwrap();
        let (name, arg) = call.trim_end_matches(')').split_once('(').unwrap();
        let a: i32 = arg.parse().unwrap();
        if name == "arrays" && a < 0 {
            continue;
        }
        let got = vm
            .call(name, vec![Val::I(a)])
            .unwrap_or_else(|e| panic!("{call} threw {e:?}"));
        assert_eq!(show(&got), want, "{call}");
        checked += 1;
    }
    assert!(checked > 150, "only {checked} results compared");
}
