//! Values that cannot go stale (issue 14, point 7): a value that is fresh,
//! immutable or owned by the caller is the same whenever it is used, so
//! using it after the lock it was read under was released is no stale use.
//!
//! - values of immutable types: the JDK's (`String`, boxed primitives,
//!   `BigInteger`, `java.time`..., from the models layer) and the program's
//!   enums and records whose fields are all `final` and themselves of
//!   immutable types;
//! - exceptions, which belong to the thread that throws and catches them;
//! - results of calls that hand ownership to the caller: elements removed
//!   from a container, data read from a stream, defensive copies
//!   (`lockstep_models::ownership`), and methods of the program that return
//!   a new object (see `summary::Summary::returns_fresh`).
//!
//! A primitive read under a lock is still tracked: `int n = v.size()` is the
//! classic stale value. So is a reference to a mutable object. And an
//! immutable value is a snapshot, not exempt: written back into the place
//! it was read from, it is a lost update (`write_back`).

use std::collections::HashSet;
use std::sync::{Arc, RwLock};

use rustc_hash::FxHashMap;

use lockstep_ir::{Body, Call, Rvalue, StmtId, StmtKind, Type};
use lockstep_program::{ClassId, Program};

/// `ACC_FINAL` and `ACC_STATIC` of the class file format.
const ACC_FINAL: u16 = 0x0010;
const ACC_STATIC: u16 = 0x0008;

/// At most this many rounds of the fixed point over the program's enums
/// and records (each round removes at least one candidate).
const MAX_ROUNDS: usize = 64;

/// The program's immutable enums and records, computed once per run.
#[derive(Debug, Default)]
pub struct ValueTypes {
    app: HashSet<Arc<str>>,
    /// [`ValueTypes::is_immune`] per class name, as asked: the same few
    /// types recur in every method's variables (the answer walks the
    /// class hierarchy). Shared by the methods analysed in parallel.
    memo: RwLock<FxHashMap<Arc<str>, bool>>,
}

impl ValueTypes {
    /// Enums and records of the program whose instance fields are all
    /// `final` and of primitive or immutable types (a fixed point: a record
    /// of records is immutable when its components are).
    pub fn compute(program: &Program) -> ValueTypes {
        let mut app: HashSet<Arc<str>> = program
            .application_classes()
            .filter(|&c| is_enum_or_record(program, c))
            .map(|c| program.class(c).name.clone())
            .collect();
        for _ in 0..MAX_ROUNDS {
            let before = app.len();
            let snapshot = ValueTypes {
                app: app.clone(),
                ..ValueTypes::default()
            };
            app.retain(|name| {
                program
                    .class_by_name(name)
                    .is_some_and(|c| fields_immutable(program, &snapshot, c))
            });
            if app.len() == before {
                break;
            }
        }
        ValueTypes {
            app,
            ..ValueTypes::default()
        }
    }

    /// Does a value of type `class` never go stale: an immutable value or
    /// an exception?
    pub fn is_immune(&self, program: &Program, class: &str) -> bool {
        // A poisoned lock only means another use panicked: its map is
        // still a valid memo.
        let known = self
            .memo
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(class)
            .copied();
        if let Some(immune) = known {
            return immune;
        }
        let immune = self.immune_uncached(program, class);
        self.memo
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(Arc::from(class), immune);
        immune
    }

    fn immune_uncached(&self, program: &Program, class: &str) -> bool {
        if class.starts_with('[') {
            // Arrays are mutable.
            return false;
        }
        // A `Class` object never changes (the models layer leaves it out
        // of its value types because it names class-wide locks, which is
        // no concern for the values this rule tracks): a class loaded by
        // name, by a registry or by reflection is as current later.
        lockstep_models::is_value_class(class)
            || class == "java/lang/Class"
            || self.app.contains(class)
            || lockstep_models::is_thread_owned_via(class, &|a, b| program.is_subtype_name(a, b))
    }

    /// For each variable of `body`: does it only ever hold values that
    /// cannot go stale? Its type is immutable, or it is cast to an
    /// immutable type (`(Integer) table.get(key)`: javac's temporary
    /// before the cast is typed `Object`).
    pub fn immune_vars(&self, program: &Program, body: &Body) -> Vec<bool> {
        let mut out: Vec<bool> = body
            .vars
            .iter()
            .map(|v| match &v.ty {
                Type::Ref(Some(class)) => self.is_immune(program, class),
                _ => false,
            })
            .collect();
        for stmt in &body.stmts {
            match &stmt.kind {
                StmtKind::Assign {
                    value: Rvalue::Cast(op, class),
                    ..
                } => {
                    if let Some(slot) = op.var().and_then(|v| out.get_mut(v.index())) {
                        *slot |= self.is_immune(program, class);
                    }
                }
                // A call's result by its declared type (a stack temporary
                // may be typed less precisely: `find(name).newInstance()`).
                StmtKind::Invoke {
                    call,
                    result: Some(r),
                } => {
                    let immune = returned_class(&call.method.descriptor)
                        .is_some_and(|c| self.is_immune(program, c));
                    if let Some(slot) = out.get_mut(r.index()) {
                        *slot |= immune;
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// The class a method descriptor returns (`(I)Ljava/lang/String;` ->
/// `java/lang/String`); `None` for primitives, arrays and `void`.
fn returned_class(descriptor: &str) -> Option<&str> {
    let (_, ret) = descriptor.rsplit_once(')')?;
    ret.strip_prefix('L')?.strip_suffix(';')
}

/// Does the call hand its result to the caller (a removal, a read from a
/// stream, a defensive copy, a per-thread registry's entry for the calling
/// thread)? Library semantics, from the models layer.
pub fn owned_call(program: &Program, body: &Body, call: &Call) -> bool {
    let m = &call.method;
    let is_subtype = |a: &str, b: &str| program.is_subtype_name(a, b);
    lockstep_models::owned_result_via(&m.class, &m.name, &m.descriptor, &is_subtype).is_some()
        || (lockstep_models::is_keyed_lookup_via(&m.class, &m.name, &m.descriptor, &is_subtype)
            && call
                .args
                .first()
                .is_some_and(|key| is_current_thread(body, key)))
}

/// Is `op` the result of `Thread.currentThread()` (through copies)?
fn is_current_thread(body: &Body, op: &lockstep_ir::Operand) -> bool {
    defining_call(body, op)
        .and_then(|s| body.stmts.get(s.index()))
        .is_some_and(|s| match &s.kind {
            StmtKind::Invoke { call, .. } => {
                lockstep_models::is_current_thread_call(&call.method.class, &call.method.name)
            }
            _ => false,
        })
}

fn is_enum_or_record(program: &Program, c: ClassId) -> bool {
    let name = &program.class(c).name;
    program.is_subtype_name(name, "java/lang/Enum")
        || program.is_subtype_name(name, "java/lang/Record")
}

/// Are the instance fields of `c` and of its program superclasses all
/// `final` and of primitive or immutable types?
fn fields_immutable(program: &Program, known: &ValueTypes, c: ClassId) -> bool {
    program
        .superclasses(c)
        .iter()
        .copied()
        .filter(|&k| program.class(k).is_application)
        .flat_map(|k| program.class(k).file.fields.iter())
        .filter(|f| f.access_flags & ACC_STATIC == 0)
        .all(|f| {
            f.access_flags & ACC_FINAL != 0 && descriptor_immutable(program, known, &f.descriptor)
        })
}

fn descriptor_immutable(program: &Program, known: &ValueTypes, desc: &str) -> bool {
    match desc.strip_prefix('L').and_then(|d| d.strip_suffix(';')) {
        Some(class) => known.is_immune(program, class),
        // Primitives; arrays are mutable.
        None => !desc.starts_with('['),
    }
}

/// How many copies `is_fresh_value` follows back to a definition.
const MAX_COPIES: usize = 16;

/// Is `op` a new object made in this method: an allocation, an owned
/// call's result (`list.toArray()`, `q.poll()`), through copies and casts,
/// or `null`? A variable with several definitions (`r = null; ... r = new
/// LinkedList()`) is fresh when each of them is.
pub fn is_fresh_value(program: &Program, body: &Body, op: &lockstep_ir::Operand) -> bool {
    match op {
        lockstep_ir::Operand::Const(lockstep_ir::ConstValue::Null) => true,
        _ => op
            .var()
            .is_some_and(|v| fresh_var(program, body, v, MAX_COPIES)),
    }
}

fn fresh_var(program: &Program, body: &Body, v: lockstep_ir::VarId, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    if let Some(def) = definition(body, v) {
        return fresh_def(program, body, def, depth);
    }
    // Several definitions (or none: a parameter).
    let mut defs = body
        .stmts
        .iter()
        .filter(|s| s.kind.def() == Some(v))
        .peekable();
    defs.peek().is_some() && defs.all(|s| fresh_def(program, body, &s.kind, depth))
}

fn fresh_def(program: &Program, body: &Body, def: &StmtKind, depth: usize) -> bool {
    match def {
        StmtKind::Assign { value, .. } => match value {
            Rvalue::New(_) | Rvalue::NewArray(..) => true,
            Rvalue::Use(next) | Rvalue::Cast(next, _) => match next {
                lockstep_ir::Operand::Const(lockstep_ir::ConstValue::Null) => true,
                _ => next
                    .var()
                    .is_some_and(|w| fresh_var(program, body, w, depth - 1)),
            },
            _ => false,
        },
        StmtKind::Invoke { call, .. } => owned_call(program, body, call),
        _ => false,
    }
}

/// The call statement whose result `op` is, through copies and casts of
/// variables with one definition.
pub fn defining_call(body: &Body, op: &lockstep_ir::Operand) -> Option<StmtId> {
    let mut v = op.var()?;
    for _ in 0..MAX_COPIES {
        let s = body.unique_def.get(v.index()).copied().flatten()?;
        match &body.stmts.get(s.index())?.kind {
            StmtKind::Invoke { .. } => return Some(s),
            StmtKind::Assign {
                value: Rvalue::Use(next) | Rvalue::Cast(next, _),
                ..
            } => v = next.var()?,
            _ => return None,
        }
    }
    None
}

/// The statement that defines `v`, when it has exactly one.
fn definition(body: &Body, v: lockstep_ir::VarId) -> Option<&StmtKind> {
    let s = body.unique_def.get(v.index()).copied().flatten()?;
    body.stmts.get(s.index()).map(|d| &d.kind)
}
