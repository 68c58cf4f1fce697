//! Initialization that happens before an object or class is published
//! (issue 14, point 6), beyond the constructor's and `<clinit>`'s own
//! statements on `this` and the class's statics:
//!
//! - **constructor helpers**: a private instance method called only by
//!   constructors of its class (or by other such helpers), always on
//!   `this`, runs on the object under construction;
//! - **arrays a constructor allocates**: `this.items = new T[n]` followed
//!   by `items[i] = ...` in the same constructor fills an array no other
//!   thread can see yet;
//! - **arrays and objects a static initializer allocates**: the elements
//!   and contents of a `static final` field of the class that its
//!   `<clinit>` stores only fresh allocations into (javac's
//!   `$SwitchMap$...` arrays, lookup tables) are written before any other
//!   thread can use the class (JLS §12.4.2).
//!
//! Statement order stands for execution order, as in the constructor
//! exemption of [`super::accesses`].

use lockstep_classfile::access;
use lockstep_ir::{AccessPath, Body, ConstValue, Operand, Rvalue, StmtId, StmtKind, VarId};
use lockstep_program::{ClassId, MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

/// Constructor helpers per class (cached).
#[derive(Debug, Default)]
pub struct InitFacts {
    helpers: FxHashMap<ClassId, FxHashSet<MethodId>>,
}

impl InitFacts {
    /// Does `m` run only on an object under construction: a constructor,
    /// or a private helper only constructors (transitively) call on `this`?
    pub fn runs_in_constructor(&mut self, program: &Program, m: MethodId) -> bool {
        let data = program.method(m);
        if data.is_constructor() {
            return true;
        }
        if !data.is_private() || data.is_static() {
            return false;
        }
        let class = data.class;
        self.helpers
            .entry(class)
            .or_insert_with(|| constructor_helpers(program, class))
            .contains(&m)
    }
}

/// A call of a private method of the class: by which method, on `this`?
struct PrivateCall {
    caller: MethodId,
    on_this: bool,
}

/// The private instance methods of `class` reached only from its
/// constructors on `this`, through calls of one another.
fn constructor_helpers(program: &Program, class: ClassId) -> FxHashSet<MethodId> {
    let info = program.class(class);
    let name = info.name.clone();
    let candidates: Vec<MethodId> = info
        .methods
        .iter()
        .copied()
        .filter(|&m| {
            let d = program.method(m);
            d.is_private() && !d.is_static() && !d.is_constructor()
        })
        .collect();
    if candidates.is_empty() {
        return FxHashSet::default();
    }
    let mut calls: FxHashMap<MethodId, Vec<PrivateCall>> = FxHashMap::default();
    // Taken by reference (a lambda, a method reference): it may run anywhere.
    let mut referenced: FxHashSet<MethodId> = FxHashSet::default();
    let of = |n: &str, d: &str| {
        candidates.iter().copied().find(|&m| {
            let x = program.method(m);
            &*x.name == n && &*x.descriptor == d
        })
    };
    for c in nest_of(program, &name) {
        for &caller in &program.class(c).methods {
            let Some(body) = program.body(caller) else {
                continue;
            };
            let this = (!body.is_static)
                .then(|| body.params.first().copied())
                .flatten();
            for s in &body.stmts {
                match &s.kind {
                    StmtKind::Invoke { call, .. } if call.method.class == name => {
                        if let Some(m) = of(&call.method.name, &call.method.descriptor) {
                            let on_this = c == class
                                && this.is_some()
                                && call.receiver.as_ref().and_then(Operand::var) == this;
                            calls
                                .entry(m)
                                .or_default()
                                .push(PrivateCall { caller, on_this });
                        }
                    }
                    StmtKind::InvokeDynamic { call, .. } => {
                        for a in &call.bootstrap_args {
                            if let ConstValue::MethodHandle(h) = a {
                                if h.member.class == name {
                                    referenced.extend(of(&h.member.name, &h.member.descriptor));
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    // Greatest fixpoint: start from every called candidate, drop those
    // with a call from elsewhere.
    let mut helpers: FxHashSet<MethodId> = candidates
        .iter()
        .copied()
        .filter(|m| calls.contains_key(m) && !referenced.contains(m))
        .collect();
    loop {
        let before = helpers.len();
        let keep: Vec<MethodId> = helpers
            .iter()
            .copied()
            .filter(|m| {
                calls.get(m).is_some_and(|cs| {
                    cs.iter().all(|c| {
                        c.on_this
                            && (program.method(c.caller).is_constructor()
                                || helpers.contains(&c.caller))
                    })
                })
            })
            .collect();
        helpers = keep.into_iter().collect();
        if helpers.len() == before {
            return helpers;
        }
    }
}

/// Is the private static `class.name` stored by no method of the class's
/// nest but `class`'s own `<clinit>`?
fn stored_only_by_class_init(program: &Program, class: &str, name: &str) -> bool {
    nest_of(program, class).into_iter().all(|c| {
        let info = program.class(c);
        info.methods.iter().all(|&m| {
            let own_init = &*info.name == class && program.method(m).is_class_initializer();
            own_init
                || program.body(m).is_none_or(|b| {
                    !b.stmts.iter().any(|s| {
                        matches!(&s.kind, StmtKind::StaticStore { field, .. }
                            if &*field.name == name && &*field.class == class)
                    })
                })
        })
    })
}

/// The application classes that may call a private method of `class`:
/// its nest (the top-level class and the classes nested in it, by
/// javac's `Outer$Inner` naming).
pub fn nest_of(program: &Program, class: &str) -> Vec<ClassId> {
    let top = class.split('$').next().unwrap_or(class);
    let nested = format!("{top}$");
    program
        .application_classes()
        .filter(|&c| {
            let n = &*program.class(c).name;
            n == top || n.starts_with(&nested)
        })
        .collect()
}

/// Is `v` defined (through copies and casts) by an allocation?
pub(crate) fn allocated(body: &Body, v: VarId) -> bool {
    let mut cur = v;
    for _ in 0..8 {
        let def = crate::util::unique_def_of(body, cur);
        match def {
            Some(StmtKind::Assign {
                value: Rvalue::New(_) | Rvalue::NewArray(..),
                ..
            }) => return true,
            Some(StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(src)) | Rvalue::Cast(Operand::Var(src), _),
                ..
            }) if *src != cur => cur = *src,
            _ => return false,
        }
    }
    false
}

/// In a constructor (or constructor helper): is the object at `base_path`
/// an array or object this body allocated into `this.f` before `at`? Every
/// store of `this.f` in the body stores a fresh allocation, and one comes
/// before `at`.
pub fn filled_by_constructor(body: &Body, base_path: &AccessPath, at: StmtId) -> bool {
    let AccessPath::Field(base, name) = base_path else {
        return false;
    };
    if **base != AccessPath::This {
        return false;
    }
    let this = body.params.first().copied();
    let mut before = false;
    for (i, s) in body.stmts.iter().enumerate() {
        let StmtKind::FieldStore {
            object,
            field,
            value,
        } = &s.kind
        else {
            continue;
        };
        if field.name != *name || object.var() != this {
            continue;
        }
        if !value.var().is_some_and(|v| allocated(body, v)) {
            return false;
        }
        before |= i < at.index();
    }
    before
}

/// In `<clinit>`: is `base_path` a static field of this class that only
/// this initializer stores, and only fresh allocations? (`final`, or
/// `private` and stored by no other method of the class's nest: jgroups'
/// `private static Map PRIMITIVE_TYPES`, filled in `<clinit>`.) Until the
/// initializer ends no other thread can use the class (JLS §12.4.2), so
/// what it writes into those objects is written before any other thread
/// can read them.
pub fn filled_by_class_init(program: &Program, body: &Body, base_path: &AccessPath) -> bool {
    let AccessPath::Static(class, name) = base_path else {
        return false;
    };
    if *class != body.class {
        return false;
    }
    let flags = program.class_by_name(class).and_then(|c| {
        program
            .class(c)
            .file
            .fields
            .iter()
            .find(|f| f.name == *name && f.access_flags & access::STATIC != 0)
            .map(|f| f.access_flags)
    });
    let only_here = match flags {
        Some(f) if f & access::FINAL != 0 => true,
        Some(f) if f & access::PRIVATE != 0 => stored_only_by_class_init(program, class, name),
        _ => false,
    };
    if !only_here {
        return false;
    }
    let mut stored = false;
    for s in &body.stmts {
        let StmtKind::StaticStore { field, value } = &s.kind else {
            continue;
        };
        if field.name != *name || field.class != *class {
            continue;
        }
        if !value.var().is_some_and(|v| allocated(body, v)) {
            return false;
        }
        stored = true;
    }
    stored
}
