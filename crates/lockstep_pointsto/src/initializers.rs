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

use lockstep_ir::{Body, Operand, Rvalue, StmtId, StmtKind, VarId};
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
    let uses = VarUses::index(body, this, class);
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
        let Some((desc, args)) = uses.constant_init(*dst) else {
            continue;
        };
        let Some(field) = uses.stored_into_this(*dst) else {
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

/// What a constructor body does with each variable that an initializer
/// copy could live in: its `<init>` calls and the field stores of it,
/// gathered in one pass so that each `new` is judged without rescanning
/// the body (a constructor with hundreds of initializers was quadratic).
#[derive(Default)]
struct VarUses {
    /// Per receiver variable: the `<init>` calls on it.
    inits: FxHashMap<VarId, Uses<(Arc<str>, String)>>,
    /// Per stored variable: the field stores of it.
    stores: FxHashMap<VarId, Uses<Arc<str>>>,
}

/// How many uses of one kind a variable has, and what the first one says
/// (`None` when it disqualifies the variable).
struct Uses<T> {
    count: u32,
    first: Option<T>,
}

impl<T: Clone> Uses<T> {
    /// Counts one more use of the variable; the first use's meaning is
    /// kept.
    fn add(map: &mut FxHashMap<VarId, Uses<T>>, x: VarId, meaning: impl FnOnce() -> Option<T>) {
        map.entry(x)
            .and_modify(|u| u.count += 1)
            .or_insert_with(|| Uses {
                count: 1,
                first: meaning(),
            });
    }

    /// The meaning of the one use; `None` when there is not exactly one
    /// or it disqualifies the variable.
    fn only(&self) -> Option<T> {
        if self.count == 1 {
            self.first.clone()
        } else {
            None
        }
    }
}

impl VarUses {
    /// Indexes `body`'s `<init>` calls by receiver and its field stores
    /// by stored value; a store counts as an initializer store only into
    /// `this` and a field of `class`.
    fn index(body: &Body, this: VarId, class: &str) -> VarUses {
        let mut uses = VarUses::default();
        for stmt in &body.stmts {
            match &stmt.kind {
                StmtKind::Invoke { call, .. } if &*call.method.name == "<init>" => {
                    let Some(Operand::Var(x)) = call.receiver.as_ref() else {
                        continue;
                    };
                    Uses::add(&mut uses.inits, *x, || {
                        // A variable argument disqualifies the call.
                        (!call.args.iter().any(|a| a.var().is_some()))
                            .then(|| (call.method.descriptor.clone(), format!("{:?}", call.args)))
                    });
                }
                StmtKind::FieldStore {
                    object,
                    field,
                    value: Operand::Var(x),
                } => {
                    Uses::add(&mut uses.stores, *x, || {
                        (*object == Operand::Var(this) && &*field.class == class)
                            .then(|| field.name.clone())
                    });
                }
                _ => {}
            }
        }
        uses
    }

    /// The descriptor and constant arguments of the one `<init>` call on
    /// `x`; `None` when there is not exactly one or an argument is not a
    /// constant.
    fn constant_init(&self, x: VarId) -> Option<(Arc<str>, String)> {
        self.inits.get(&x)?.only()
    }

    /// The name of the field of the class that the one store of `x` into
    /// `this` writes; `None` when `x` is stored anywhere else or not once.
    fn stored_into_this(&self, x: VarId) -> Option<Arc<str>> {
        self.stores.get(&x)?.only()
    }
}
