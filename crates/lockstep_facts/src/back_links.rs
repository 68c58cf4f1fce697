//! Back links: a component an owner builds with `new C(this)` and keeps
//! in its field `f`, where `C`'s constructor stores that argument into a
//! `final` field `g`. Whatever object `x.f` is at run time, its `g` is
//! `x` (every store of `f` in the program is such a construction, on the
//! constructor's own `this`). Velocity's `RuntimeInstance` builds its
//! `vmFactory` with `new VelocimacroFactory(this)`, whose `rsvc` is final.
//!
//! Lock orders use it for the locks a method context holds on entry by
//! name: when every call into a context is made on `H.f` while the
//! caller holds the monitor of `H` (`synchronized` method, `H` = `this`,
//! or a `synchronized (H)` block), the callee holds the monitor of its
//! own `this.g` from entry, whatever abstract objects the context merges
//! (several owners of one allocation site, in one context: the entry
//! lockset, an intersection of objects, is empty there). A callee that
//! takes `this.g` again re-enters it ([`held_paths`]).
//!
//! Not modelled: reflection, deserialization and `Unsafe` writing a field
//! (the analysis does not see those stores), as in [`crate::lock_identity`].

use std::sync::Arc;

use lockstep_classfile::{access, FieldInfo};
use lockstep_ir::{AccessPath, Body, ConstValue, Operand, Rvalue, StmtId, StmtKind, VarId};
use lockstep_program::Program;
use rustc_hash::FxHashMap;

use crate::local_locks::{BodyLocks, LocalLock};
use crate::locks::LockResolver;

/// Per field name: the back-link fields of the objects stored in it
/// (sorted; empty: not a back-linked field). Cached.
#[derive(Default)]
pub(crate) struct BackLinks {
    links: FxHashMap<Arc<str>, Arc<[Arc<str>]>>,
}

impl BackLinks {
    /// The names `g` such that every object ever stored in a field named
    /// `f` has `g` pointing at the object whose field it is.
    fn of(&mut self, resolver: &mut LockResolver<'_>, f: &Arc<str>) -> Arc<[Arc<str>]> {
        if let Some(v) = self.links.get(f) {
            return v.clone();
        }
        let v: Arc<[Arc<str>]> = compute(resolver, f).into();
        self.links.insert(f.clone(), v.clone());
        v
    }

    /// The paths `this.g` the callee of a call holds from entry, as one
    /// caller makes the call at `site` of `body` (holding `locks` there):
    /// the receiver is `H.f` for a back-linked field `f` and the body
    /// holds the monitor of `H` (sorted).
    pub(crate) fn held_paths(
        &mut self,
        resolver: &mut LockResolver<'_>,
        body: &Body,
        locks: &BodyLocks,
        site: StmtId,
    ) -> Vec<AccessPath> {
        let Some(StmtKind::Invoke { call, .. }) = body.stmts.get(site.index()).map(|s| &s.kind)
        else {
            return Vec::new();
        };
        let Some(receiver) = &call.receiver else {
            return Vec::new();
        };
        let AccessPath::Field(owner, f) = lockstep_ir::operand_path(body, receiver) else {
            return Vec::new();
        };
        let held = locks.at(site).iter().any(|l| {
            !matches!(l, LocalLock::Juc { .. })
                && l.path(body) == *owner
                && crate::lock_summary::entry_path(resolver, body, &owner)
        });
        if !held {
            return Vec::new();
        }
        let this = Arc::new(AccessPath::This);
        self.of(resolver, &f)
            .iter()
            .map(|g| AccessPath::Field(this.clone(), g.clone()))
            .collect()
    }
}

impl BackLinks {
    /// `path` with every `x.f.g` (`g` a back link of `f`) shortened to `x`.
    pub(crate) fn normalize(
        &mut self,
        resolver: &mut LockResolver<'_>,
        path: &AccessPath,
    ) -> AccessPath {
        match path {
            AccessPath::Field(base, g) => {
                let base = self.normalize(resolver, base);
                if let AccessPath::Field(owner, f) = &base {
                    if self.of(resolver, f).contains(g) {
                        return (**owner).clone();
                    }
                }
                AccessPath::Field(Arc::new(base), g.clone())
            }
            AccessPath::OuterThis(base, c) => {
                AccessPath::OuterThis(Arc::new(self.normalize(resolver, base)), c.clone())
            }
            other => other.clone(),
        }
    }
}

/// The class a path's value is declared with: the body's class for
/// `this`, a field's declared type for a field of a typed path.
fn path_class(program: &Program, body: &Body, path: &AccessPath) -> Option<Arc<str>> {
    match path {
        AccessPath::This if !body.is_static => Some(body.class.clone()),
        AccessPath::Field(base, name) => {
            let class = path_class(program, body, base)?;
            let desc = field_of(program, &class, name)?.descriptor.clone();
            let inner = desc.strip_prefix('L')?.strip_suffix(';')?;
            Some(Arc::from(inner))
        }
        _ => None,
    }
}

/// Is `base.name` a `final` field, by the declared type of `base`?
pub(crate) fn final_field_at(
    program: &Program,
    body: &Body,
    base: &AccessPath,
    name: &str,
) -> bool {
    path_class(program, body, base)
        .and_then(|c| field_of(program, &c, name))
        .is_some_and(|f| f.access_flags & access::FINAL != 0)
}

/// [`BackLinks::of`], uncached: the back-link fields common to every
/// store of `f` (none when a store is anything else).
fn compute(resolver: &mut LockResolver<'_>, f: &Arc<str>) -> Vec<Arc<str>> {
    let program = resolver.program;
    let stores = resolver.field_stores_of(f);
    let mut out: Option<Vec<Arc<str>>> = None;
    for (m, s) in stores {
        let Some(body) = program.body(m) else {
            return Vec::new();
        };
        if !program.method(m).is_constructor() {
            return Vec::new();
        }
        // A field initializer's `null` holds no object (a call on it
        // throws): it constrains nothing.
        if null_store_on_this(&body, s) {
            continue;
        }
        let here = store_links(program, &body, s);
        out = Some(match out {
            None => here,
            Some(prev) => prev.into_iter().filter(|g| here.contains(g)).collect(),
        });
        if out.as_ref().is_some_and(Vec::is_empty) {
            break;
        }
    }
    out.unwrap_or_default()
}

/// Is statement `s` `this.f = null`?
fn null_store_on_this(body: &Body, s: usize) -> bool {
    matches!(
        body.stmts.get(s).map(|s| &s.kind),
        Some(StmtKind::FieldStore { object, value: Operand::Const(ConstValue::Null), .. })
            if !body.is_static && object.var() == body.params.first().copied()
    )
}

/// For a constructor's statement `this.f = v` with `v = new C(.., this, ..)`
/// built here: the final fields of `C` its constructor sets to that `this`.
fn store_links(program: &Program, body: &Body, s: usize) -> Vec<Arc<str>> {
    let Some(StmtKind::FieldStore { object, value, .. }) = body.stmts.get(s).map(|s| &s.kind)
    else {
        return Vec::new();
    };
    let this = body.params.first().copied();
    if body.is_static || object.var() != this {
        return Vec::new();
    }
    let Some(v) = value.var() else {
        return Vec::new();
    };
    let Some(StmtKind::Assign {
        value: Rvalue::New(class),
        ..
    }) = crate::util::unique_def_of(body, v)
    else {
        return Vec::new();
    };
    let Some((ctor, k)) = this_argument(body, v, this) else {
        return Vec::new();
    };
    let Some(id) = program.class_by_name(class) else {
        return Vec::new();
    };
    let Some(target) = program.class(id).declared_method("<init>", &ctor) else {
        return Vec::new();
    };
    program
        .body(target)
        .map(|b| final_fields_set_from(program, &b, k))
        .unwrap_or_default()
}

/// The constructor descriptor of the `<init>` call on `v` and the
/// position (among the call's arguments) where it passes `this`.
fn this_argument(body: &Body, v: VarId, this: Option<VarId>) -> Option<(Arc<str>, usize)> {
    let this = this?;
    body.stmts.iter().find_map(|st| match &st.kind {
        StmtKind::Invoke { call, .. }
            if &*call.method.name == "<init>"
                && call.receiver.as_ref().and_then(|r| r.var()) == Some(v) =>
        {
            let k = call.args.iter().position(|a| a.var() == Some(this))?;
            Some((call.method.descriptor.clone(), k))
        }
        _ => None,
    })
}

/// Constructors followed through `this(..)` / `super(..)` delegation
/// (h2's `MVMap(store, id, ..)` hands `store` to the constructor that
/// keeps it).
const MAX_DELEGATION: u8 = 4;

/// The `final` instance fields of the constructor's class it stores its
/// argument `k` into, on `this`, itself or through the constructor it
/// delegates to (sorted).
fn final_fields_set_from(program: &Program, ctor: &Body, k: usize) -> Vec<Arc<str>> {
    let mut out = fields_set_from(program, ctor, k, MAX_DELEGATION);
    out.retain(|g| own_final_field(program, &ctor.class, g));
    out.sort();
    out.dedup();
    out
}

/// The instance fields constructor `ctor` stores its argument `k` into,
/// on `this`, directly or through `this(..)`/`super(..)` (`depth` more
/// delegations followed).
fn fields_set_from(program: &Program, ctor: &Body, k: usize, depth: u8) -> Vec<Arc<str>> {
    let (Some(&this), Some(&arg)) = (ctor.params.first(), ctor.params.get(k + 1)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for st in &ctor.stmts {
        match &st.kind {
            StmtKind::FieldStore {
                object,
                field,
                value,
            } if object.var() == Some(this) && value.var() == Some(arg) => {
                out.push(field.name.clone());
            }
            StmtKind::Invoke { call, .. }
                if depth > 0
                    && &*call.method.name == "<init>"
                    && call.receiver.as_ref().and_then(|r| r.var()) == Some(this) =>
            {
                let target = program
                    .class_by_name(&call.method.class)
                    .and_then(|id| {
                        program
                            .class(id)
                            .declared_method("<init>", &call.method.descriptor)
                    })
                    .and_then(|m| program.body(m));
                for (j, a) in call.args.iter().enumerate() {
                    if let (Some(b), Some(arg_var)) = (&target, a.var()) {
                        if arg_var == arg {
                            out.extend(fields_set_from(program, b, j, depth - 1));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Is `name` a `final` instance field declared in `class` or a superclass
/// (the first declaration found, as the JVM resolves it)?
fn own_final_field(program: &Program, class: &str, name: &str) -> bool {
    field_of(program, class, name).is_some_and(|f| f.access_flags & access::FINAL != 0)
}

/// The instance field `name` of `class` or its first superclass declaring it.
fn field_of<'p>(program: &'p Program, class: &str, name: &str) -> Option<&'p FieldInfo> {
    let id = program.class_by_name(class)?;
    program.superclasses(id).iter().find_map(|&c| {
        program
            .class(c)
            .file
            .fields
            .iter()
            .find(|f| &*f.name == name && f.access_flags & access::STATIC == 0)
    })
}
