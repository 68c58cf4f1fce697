//! Field initializers copied into every constructor share one allocation
//! site.
//!
//! `javac` compiles `private final Object lock = new Object();` into each
//! constructor that calls `super(...)`: a class with three constructors
//! has three `new Object` statements for one field. Keyed by statement,
//! they were three abstract objects, so `this.lock` pointed to three
//! objects and no lock consumer could name the one lock an instance
//! holds (`synchronized (lock)` resolved to nothing: jgroups'
//! `AckMcastSenderWindow.msgs`, with three constructors, lost both of its
//! lock orders and a real deadlock).
//!
//! Each instance runs exactly one constructor, so the copies never meet
//! in one object: giving them one site merges nothing that any one
//! instance tells apart. Only the plain shape is merged — `x = new T`,
//! `x.<init>(constants…)`, `this.f = x` with `f` a field of the class —
//! and only copies with the same type, constructor, constant arguments
//! and field (the n-th such allocation stored into `f` in one constructor
//! matches the n-th in another), so whatever reads an allocation's
//! statement back (a thread pool's size argument) reads the same code.

use std::sync::Arc;

use lockstep_ir::{Body, Operand, Rvalue, StmtId, StmtKind};
use lockstep_program::{ClassId, MethodId, Program};
use rustc_hash::FxHashMap;

/// What makes two initializer copies the same: the field, the allocated
/// type, the constructor's descriptor and arguments, and the ordinal
/// among the allocations of the same field, type and arguments.
type CopyKey = (Arc<str>, Arc<str>, Arc<str>, String, u32);

/// A copy's key without its ordinal.
type CopyShape = (Arc<str>, Arc<str>, Arc<str>, String);

/// Per later copy (constructor, statement): the first copy's.
type CopyMap = FxHashMap<(MethodId, StmtId), (MethodId, StmtId)>;

/// Per constructor statement that allocates a copy of a field initializer
/// other than the first: the statement of the first copy (the earliest
/// constructor in declaration order that has it).
#[derive(Default)]
pub(crate) struct InitializerSites {
    classes: FxHashMap<ClassId, Arc<CopyMap>>,
}

impl InitializerSites {
    /// The allocation site statement `(m, s)` is keyed by: the first copy
    /// of the same field initializer, or itself.
    pub(crate) fn canonical(&mut self, p: &Program, m: MethodId, s: StmtId) -> (MethodId, StmtId) {
        let Some(md) = p.try_method(m) else {
            return (m, s);
        };
        if &*md.name != "<init>" {
            return (m, s);
        }
        let map = self
            .classes
            .entry(md.class)
            .or_insert_with(|| Arc::new(class_copies(p, md.class)));
        map.get(&(m, s)).copied().unwrap_or((m, s))
    }
}

/// The later copies of the class's field initializers, each mapped to
/// its first copy; empty for a class with fewer than two constructors.
fn class_copies(p: &Program, class: ClassId) -> FxHashMap<(MethodId, StmtId), (MethodId, StmtId)> {
    let mut out = FxHashMap::default();
    let info = p.class(class);
    let constructors: Vec<MethodId> = info
        .methods
        .iter()
        .copied()
        .filter(|&m| p.try_method(m).is_some_and(|md| &*md.name == "<init>"))
        .collect();
    if constructors.len() < 2 {
        return out;
    }
    let mut first: FxHashMap<CopyKey, (MethodId, StmtId)> = FxHashMap::default();
    for m in constructors {
        let Some(body) = p.body(m) else {
            continue;
        };
        for (key, s) in initializer_allocations(&body, &info.name) {
            match first.get(&key) {
                Some(&canon) => {
                    out.insert((m, s), canon);
                }
                None => {
                    first.insert(key, (m, s));
                }
            }
        }
    }
    out
}

/// The allocations of constructor `body` of class `class` that are
/// stored straight into a field of `this` with a constructor taking only
/// constants, each with its key.
fn initializer_allocations(body: &Body, class: &str) -> Vec<(CopyKey, StmtId)> {
    let Some(&this) = body.params.first() else {
        return Vec::new();
    };
    if body.is_static {
        return Vec::new();
    }
    let mut seen: FxHashMap<CopyShape, u32> = FxHashMap::default();
    let mut out = Vec::new();
    for (i, stmt) in body.stmts.iter().enumerate() {
        let StmtKind::Assign {
            dst,
            value: Rvalue::New(ty),
        } = &stmt.kind
        else {
            continue;
        };
        let x = Operand::Var(*dst);
        let Some((desc, args)) = constant_init(body, &x) else {
            continue;
        };
        let Some(field) = stored_into_this(body, &x, &Operand::Var(this), class) else {
            continue;
        };
        let base = (field, ty.clone(), desc, args);
        let n = seen.entry(base.clone()).or_insert(0);
        let (field, ty, desc, args) = base;
        out.push(((field, ty, desc, args, *n), StmtId(i as u32)));
        *n += 1;
    }
    out
}

/// The descriptor and constant arguments of the one `<init>` call on
/// `x`; `None` when there is not exactly one or an argument is not a
/// constant.
fn constant_init(body: &Body, x: &Operand) -> Option<(Arc<str>, String)> {
    let mut found = None;
    for stmt in &body.stmts {
        let StmtKind::Invoke { call, .. } = &stmt.kind else {
            continue;
        };
        if &*call.method.name != "<init>" || call.receiver.as_ref() != Some(x) {
            continue;
        }
        if found.is_some() || call.args.iter().any(|a| a.var().is_some()) {
            return None;
        }
        found = Some((call.method.descriptor.clone(), format!("{:?}", call.args)));
    }
    found
}

/// The name of the field of `class` that the one store of `x` into
/// `this` writes; `None` when `x` is stored anywhere else or not once.
fn stored_into_this(body: &Body, x: &Operand, this: &Operand, class: &str) -> Option<Arc<str>> {
    let mut found = None;
    for stmt in &body.stmts {
        let StmtKind::FieldStore {
            object,
            field,
            value,
        } = &stmt.kind
        else {
            continue;
        };
        if value != x {
            continue;
        }
        if object != this || &*field.class != class || found.is_some() {
            return None;
        }
        found = Some(field.name.clone());
    }
    found
}
