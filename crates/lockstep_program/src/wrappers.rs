//! Lock wrapper methods of the program: methods whose whole body takes or
//! releases one `java.util.concurrent` lock held in a field of `this`
//! (`void lock() { writeLock.lock(); }`), and the handles such a method
//! returns when their `close()` releases the same lock (jetty's
//! `Locker.lock()` returns `_unlock`, an inner-class object whose
//! `close()` calls `Locker.this._lock.unlock()`).
//!
//! A body is a wrapper when, apart from copies, casts, reads of fields
//! of `this` and the return, it makes exactly one call: a modelled
//! `lock()`/`lockInterruptibly()`/`unlock()` (or a read-write lock's view
//! then one of those) on `this.f`. A handle's `close()` may read the
//! lock through the handle's enclosing instance (`this$0.f`), directly
//! or through javac's static `access$NNN` accessor. A handle is
//! recognised when the wrapper returns a field of `this` whose class
//! declares such a `close()` on a field of the same name, reached
//! through a field typed as the wrapper's class: the handle is assumed
//! to be made by the object it unlocks (an inner-class instance its
//! outer object creates, as in jetty).
//!
//! A call counts as a wrapper call only when it resolves to exactly the
//! wrapper in the program's class hierarchy: a `private`, `final` or
//! `invokespecial` target, a method of a `final` class, or a virtual call
//! on an application class no application subclass of which overrides
//! the method (the class-hierarchy view the call graphs take; in open
//! mode a subclass outside the inputs is not seen). Interface calls and
//! static wrappers are not wrappers (no field of a receiver to name).
//!
//! The table is built once from application classes alone: it loads no
//! class (the JDK lock classes are matched by the models' static
//! hierarchy), so when it is built does not change class ids.

use std::sync::Arc;

use lockstep_classfile::access;
use lockstep_ir::{Body, Call, CallKind, MemberRef, Operand, Rvalue, StmtKind, VarId};
use lockstep_models::{LockEffect, LockMode};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::lock_calls::FieldName;
use crate::{ClassId, MethodId, Program};

/// What a call of a wrapper does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrapper {
    /// `Lock(mode)` or `Unlock(mode)`.
    pub effect: LockEffect,
    /// The field of the receiver holding the lock.
    pub field: FieldName,
    /// The class of the handle the wrapper returns, when that handle's
    /// `close()` releases the same lock.
    pub handle: Option<Arc<str>>,
}

/// The program's lock wrappers (see the module doc).
#[derive(Debug, Default)]
pub struct LockWrappers {
    by_method: FxHashMap<MethodId, Wrapper>,
    /// Names of wrappers and `close`: calls of other names are no wrapper calls.
    names: FxHashSet<Arc<str>>,
    /// Application classes declaring each (name, descriptor) of `names`.
    declarers: FxHashMap<(Arc<str>, Arc<str>), Vec<ClassId>>,
    /// Handle classes whose `close()` releases their outer object's lock.
    handles: FxHashSet<Arc<str>>,
}

impl LockWrappers {
    /// No wrapper in the program?
    pub fn is_empty(&self) -> bool {
        self.by_method.is_empty()
    }

    /// Every wrapper, in method id order (for tests and `debug`).
    pub fn all(&self) -> Vec<(MethodId, &Wrapper)> {
        let mut v: Vec<(MethodId, &Wrapper)> =
            self.by_method.iter().map(|(m, w)| (*m, w)).collect();
        v.sort_by_key(|x| x.0);
        v
    }

    /// The wrapper `call` runs, when it resolves to exactly one.
    pub fn exact(&self, program: &Program, call: &Call) -> Option<&Wrapper> {
        let m = &call.method;
        if !self.names.contains(&m.name)
            || matches!(call.kind, CallKind::Interface | CallKind::Static)
        {
            return None;
        }
        let target = self.resolve_exactly(program, m, call.kind == CallKind::Special)?;
        self.by_method.get(&target)
    }

    /// Is `handle.close()` one of the recognised handle `close()`s, and
    /// not overridden below `handle`?
    pub fn closes_exactly(&self, program: &Program, handle: &Arc<str>) -> bool {
        if !self.handles.contains(handle) {
            return false;
        }
        let close = MemberRef {
            class: handle.clone(),
            name: Arc::from("close"),
            descriptor: Arc::from("()V"),
        };
        self.resolve_exactly(program, &close, false).is_some()
    }

    /// The application method a call of `m` runs, when the hierarchy
    /// leaves one choice.
    fn resolve_exactly(&self, program: &Program, m: &MemberRef, special: bool) -> Option<MethodId> {
        let r = app_class(program, &m.class)?;
        let (c, target) = declared_above(program, r, &m.name, &m.descriptor)?;
        let md = program.method(target);
        let class_final = program.class(c).file.access_flags & access::FINAL != 0;
        if special || md.is_private() || md.access_flags & access::FINAL != 0 || class_final {
            return Some(target);
        }
        let key = (m.name.clone(), m.descriptor.clone());
        let overridden = self
            .declarers
            .get(&key)
            .into_iter()
            .flatten()
            .any(|&d| d != c && app_strict_subclass(program, d, r));
        (!overridden).then_some(target)
    }
}

/// The application class named `name` (no loading).
fn app_class(program: &Program, name: &str) -> Option<ClassId> {
    program
        .loaded_class(name)
        .filter(|&c| program.is_application(c))
}

/// The first declaration of `name desc` in `r` or its application
/// superclasses, with its class; `None` when it is abstract or static.
fn declared_above(
    program: &Program,
    r: ClassId,
    name: &str,
    desc: &str,
) -> Option<(ClassId, MethodId)> {
    let mut cur = r;
    for _ in 0..64 {
        let info = program.class(cur);
        if info.is_interface() {
            return None;
        }
        if let Some(m) = info.declared_method(name, desc) {
            let md = program.method(m);
            return (!md.is_abstract() && !md.is_static()).then_some((cur, m));
        }
        cur = app_class(program, info.file.super_class.as_deref()?)?;
    }
    None
}

/// Is `d` a strict subclass of `r` through application classes?
fn app_strict_subclass(program: &Program, d: ClassId, r: ClassId) -> bool {
    let mut cur = d;
    for _ in 0..64 {
        let Some(s) = program
            .class(cur)
            .file
            .super_class
            .as_deref()
            .and_then(|s| app_class(program, s))
        else {
            return false;
        };
        if s == r {
            return true;
        }
        cur = s;
    }
    false
}

/// A value of a small body: a chain of fields read from its root
/// (`this`, or the first parameter of a static accessor), possibly a
/// read-write lock's view of it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sym {
    fields: Vec<MemberRef>,
    view: Option<LockMode>,
}

/// What a small body does: its one lock effect and on what, and what it returns.
#[derive(Debug, Default)]
struct Shape {
    effect: Option<(LockEffect, Sym)>,
    returns: Option<Sym>,
}

/// Bodies longer than this are no wrappers (javac's are 3 to 6 statements).
const MAX_STMTS: usize = 12;

/// The shape of `body` when it is only field reads from its first
/// parameter, at most one lock call, accessor calls (`depth` deep) and
/// the return.
fn shape(program: &Program, body: &Body, depth: u8) -> Option<Shape> {
    if body.stmts.len() > MAX_STMTS || !body.monitors.is_empty() {
        return None;
    }
    let root = *body.params.first()?;
    let mut sym: FxHashMap<VarId, Sym> = FxHashMap::default();
    sym.insert(
        root,
        Sym {
            fields: Vec::new(),
            view: None,
        },
    );
    let mut out = Shape::default();
    let of =
        |sym: &FxHashMap<VarId, Sym>, op: &Operand| op.var().and_then(|v| sym.get(&v).cloned());
    for s in &body.stmts {
        match &s.kind {
            StmtKind::Assign { dst, value } => {
                let v = match value {
                    Rvalue::Use(op) | Rvalue::Cast(op, _) => of(&sym, op)?,
                    Rvalue::FieldLoad { object, field } => {
                        let mut v = of(&sym, object)?;
                        if v.view.is_some() {
                            return None;
                        }
                        v.fields.push(field.clone());
                        v
                    }
                    _ => return None,
                };
                sym.insert(*dst, v);
            }
            StmtKind::Invoke { result, call } => {
                let got = invoke(program, call, &sym, depth, &mut out)?;
                if let (Some(r), Some(v)) = (result, got) {
                    sym.insert(*r, v);
                }
            }
            StmtKind::Return(Some(op)) => out.returns = Some(of(&sym, op)?),
            StmtKind::Return(None) | StmtKind::Goto(_) | StmtKind::Nop => {}
            _ => return None,
        }
    }
    Some(out)
}

/// One call of a small body: a view getter or a lock call on a known
/// value (at most one lock call), or a static accessor. Returns the
/// value of the call's result, if known.
fn invoke(
    program: &Program,
    call: &Call,
    sym: &FxHashMap<VarId, Sym>,
    depth: u8,
    out: &mut Shape,
) -> Option<Option<Sym>> {
    let m = &call.method;
    if call.kind == CallKind::Static {
        // javac's `access$NNN(outer)` returning a field of its argument.
        if depth == 0 || !m.name.starts_with("access$") {
            return None;
        }
        let arg = call.args.first()?.var().and_then(|v| sym.get(&v))?.clone();
        let c = app_class(program, &m.class)?;
        let target = program.class(c).declared_method(&m.name, &m.descriptor)?;
        let body = program.body(target)?;
        let inner = shape(program, &body, depth - 1)?;
        if inner.effect.is_some() {
            return None;
        }
        let got = inner.returns?;
        let mut v = arg;
        if v.view.is_some() || got.view.is_some() {
            return None;
        }
        v.fields.extend(got.fields);
        return Some(Some(v));
    }
    let recv = call
        .receiver
        .as_ref()?
        .var()
        .and_then(|v| sym.get(&v))?
        .clone();
    let effect = lockstep_models::lock_effect_via(
        &m.class,
        &m.name,
        &m.descriptor,
        &lockstep_models::is_jdk_subtype,
    )?;
    match effect {
        LockEffect::ReadView | LockEffect::WriteView if recv.view.is_none() => {
            let mode = if effect == LockEffect::ReadView {
                LockMode::Read
            } else {
                LockMode::Write
            };
            Some(Some(Sym {
                fields: recv.fields,
                view: Some(mode),
            }))
        }
        LockEffect::Lock(mode) | LockEffect::Unlock(mode)
            if out.effect.is_none() && &*m.descriptor == "()V" =>
        {
            let mode = recv.view.unwrap_or(mode);
            let effect = match effect {
                LockEffect::Lock(_) => LockEffect::Lock(mode),
                _ => LockEffect::Unlock(mode),
            };
            out.effect = Some((effect, recv));
            Some(None)
        }
        _ => None,
    }
}

/// The declaring class of the field `f` names, among application
/// classes (its own class when it is not found there).
fn declaring(program: &Program, f: &MemberRef) -> Arc<str> {
    let mut cur = app_class(program, &f.class);
    for _ in 0..64 {
        let Some(c) = cur else { break };
        let info = program.class(c);
        if info
            .file
            .fields
            .iter()
            .any(|x| x.name == f.name && x.access_flags & access::STATIC == 0)
        {
            return info.name.clone();
        }
        cur = info
            .file
            .super_class
            .as_deref()
            .and_then(|s| app_class(program, s));
    }
    f.class.clone()
}

/// The class a reference field descriptor names (`Lp/C;` → `p/C`).
fn class_of_descriptor(desc: &str) -> Option<&str> {
    desc.strip_prefix('L')?.strip_suffix(';')
}

/// Does `handle` declare a `close()` releasing its enclosing `outer`
/// instance's field `lock` (`this.this$0.lock`, directly or through an
/// accessor)?
fn closes(program: &Program, handle: &str, outer: &str, lock: &str) -> bool {
    let Some(h) = app_class(program, handle) else {
        return false;
    };
    let Some(m) = program.class(h).declared_method("close", "()V") else {
        return false;
    };
    let Some(body) = program.body(m) else {
        return false;
    };
    let Some(s) = shape(program, &body, 1) else {
        return false;
    };
    match s.effect {
        Some((LockEffect::Unlock(_), sym)) => match sym.fields.as_slice() {
            [o, f] => class_of_descriptor(&o.descriptor) == Some(outer) && &*f.name == lock,
            _ => false,
        },
        _ => false,
    }
}

/// The wrapper `m` (of class `c`) is, if it is one.
fn wrapper_of(program: &Program, c: ClassId, m: MethodId) -> Option<Wrapper> {
    let md = program.method(m);
    if md.is_static() || md.is_abstract() || md.is_constructor() || !md.descriptor.starts_with("()")
    {
        return None;
    }
    let body = program.body(m)?;
    let s = shape(program, &body, 0)?;
    let (effect, sym) = s.effect?;
    let [f] = sym.fields.as_slice() else {
        return None;
    };
    let field = (declaring(program, f), f.name.clone());
    let class = &program.class(c).name;
    let handle = match (effect, s.returns) {
        (LockEffect::Lock(_), Some(ret)) if ret.view.is_none() => match ret.fields.as_slice() {
            [g] => class_of_descriptor(&g.descriptor)
                .filter(|h| closes(program, h, class, &f.name))
                .map(Arc::from),
            _ => None,
        },
        _ => None,
    };
    Some(Wrapper {
        effect,
        field,
        handle,
    })
}

impl LockWrappers {
    /// Finds the wrappers of the program's application classes.
    pub(crate) fn build(program: &Program) -> LockWrappers {
        let mut w = LockWrappers::default();
        for c in program.application_classes() {
            let info = program.class(c);
            if info.is_interface() {
                continue;
            }
            for &m in &info.methods {
                if let Some(found) = wrapper_of(program, c, m) {
                    if let Some(h) = &found.handle {
                        w.handles.insert(h.clone());
                    }
                    w.by_method.insert(m, found);
                }
            }
        }
        if w.by_method.is_empty() {
            return w;
        }
        w.names = w
            .by_method
            .keys()
            .map(|&m| program.method(m).name.clone())
            .collect();
        w.names.insert(Arc::from("close"));
        for c in program.application_classes() {
            for &m in &program.class(c).methods {
                let md = program.method(m);
                if w.names.contains(&md.name) {
                    w.declarers
                        .entry((md.name.clone(), md.descriptor.clone()))
                        .or_default()
                        .push(c);
                }
            }
        }
        w
    }
}
