//! Memory accesses of application code: instance and static field reads
//! and writes, array element reads and writes, and calls on
//! non-thread-safe JDK containers (a read or a write of the container's
//! contents, RacerD's container model), each with what it touches.
//!
//! Accesses that cannot race are dropped here, each for a stated reason
//! (kept for `--explain`): `final` and `volatile` fields (JLS §17.4–17.5),
//! the object under construction in its constructor and its constructor
//! helpers, arrays the constructor allocates into its fields, static
//! fields in their class initializer and what it allocates into its
//! `static final` fields ([`crate::initialization`]), fields of classes annotated `@Immutable` or
//! `@NotThreadSafe`, and containers whose dynamic type is thread-safe.

use std::sync::Arc;

use lockstep_classfile::access;
use lockstep_ir::{
    access_path, AccessPath, Body, MemberRef, Operand, Rvalue, StmtId, StmtKind, VarId,
};
use lockstep_models::{ContainerAccess, ContainerFamily};
use lockstep_program::{MethodId, Program};
use rustc_hash::FxHashMap;

use crate::annotations::{class_policy, guarded_by};
use crate::initialization::{filled_by_class_init, filled_by_constructor, InitFacts};

/// What memory an access touches (the object, when there is one, is
/// decided per context).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// An instance field, by declaring class and name.
    Field { class: Arc<str>, name: Arc<str> },
    /// A static field, by declaring class and name.
    Static { class: Arc<str>, name: Arc<str> },
    /// The elements of an array object.
    Element,
    /// The contents of a JDK container.
    Container,
}

/// Read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Read,
    Write,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
        }
    }
}

/// One access statement of a method, before contexts.
#[derive(Debug, Clone)]
pub struct AccessStmt {
    pub stmt: StmtId,
    pub target: Target,
    pub kind: Kind,
    /// The variable holding the accessed object (none for statics).
    pub base: Option<VarId>,
    /// The field the object was read from, for naming arrays and
    /// containers (`pkg.Cls.items`).
    pub holder: Option<(Arc<str>, Arc<str>)>,
    /// The `@GuardedBy` expression of the field, if annotated.
    pub guard: Option<String>,
    /// The access path of the base, for matching `@GuardedBy`.
    pub base_path: Option<AccessPath>,
    /// For container calls: the method's name and descriptor (the call
    /// is an access only when it dispatches to JDK code).
    pub callee: Option<(Arc<str>, Arc<str>)>,
}

/// Why an access cannot race.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Exempt {
    Final,
    Volatile,
    Constructor,
    ClassInit,
    Immutable,
    NotThreadSafe,
    /// The object was allocated by this method and not yet handed out.
    Owned,
}

impl Exempt {
    pub fn describe(self) -> &'static str {
        match self {
            Exempt::Final => "the field is final",
            Exempt::Volatile => "the field is volatile",
            Exempt::Constructor => "the object is under construction",
            Exempt::ClassInit => "class initialization happens before every use",
            Exempt::Immutable => "the class is annotated @Immutable",
            Exempt::NotThreadSafe => "the class is annotated @NotThreadSafe",
            Exempt::Owned => "the object was just allocated by this method and not yet published",
        }
    }
}

/// Facts about a field, resolved once.
#[derive(Debug, Clone)]
pub struct FieldFacts {
    pub declaring: Arc<str>,
    pub is_final: bool,
    pub is_volatile: bool,
    pub guard: Option<String>,
    pub immutable_class: bool,
    pub not_thread_safe_class: bool,
}

/// Resolves field references to their declarations (cached), and keeps
/// the initialization facts of [`crate::initialization`].
#[derive(Default)]
pub struct FieldTable {
    cache: FxHashMap<(Arc<str>, Arc<str>), Option<FieldFacts>>,
    init: InitFacts,
    /// What a call `class.name` does to a container, per (class, name):
    /// the model asks the hierarchy about a dozen supertypes, and every
    /// call statement of every body asks. A class's answer never changes
    /// once it is loaded, and the first ask loads what it always loaded.
    container_calls: FxHashMap<(Arc<str>, Arc<str>), Option<ContainerAccess>>,
    /// The container family of a class, for the container calls.
    families: FxHashMap<Arc<str>, Option<ContainerFamily>>,
}

impl FieldTable {
    pub fn facts(&mut self, program: &Program, f: &MemberRef) -> Option<FieldFacts> {
        let key = (f.class.clone(), f.name.clone());
        if let Some(v) = self.cache.get(&key) {
            return v.clone();
        }
        let facts = (|| {
            let c = program.class_by_name(&f.class)?;
            let decl = program.resolve_field(c, &f.name, &f.descriptor)?;
            let info = program.class(decl);
            let field = info
                .file
                .fields
                .iter()
                .find(|x| x.name == f.name && x.descriptor == f.descriptor)?;
            let policy = class_policy(&info.file.annotations);
            Some(FieldFacts {
                declaring: info.name.clone(),
                is_final: field.access_flags & access::FINAL != 0,
                is_volatile: field.access_flags & access::VOLATILE != 0,
                guard: guarded_by(&field.annotations),
                immutable_class: policy.immutable,
                not_thread_safe_class: policy.not_thread_safe,
            })
        })();
        self.cache.insert(key, facts.clone());
        facts
    }

    /// [`lockstep_models::container_access_via`] of a call, cached.
    fn container_access(&mut self, program: &Program, m: &MemberRef) -> Option<ContainerAccess> {
        let key = (m.class.clone(), m.name.clone());
        if let Some(&v) = self.container_calls.get(&key) {
            return v;
        }
        let is_subtype = |a: &str, b: &str| program.is_subtype_name(a, b);
        let v = lockstep_models::container_access_via(&m.class, &m.name, &is_subtype);
        self.container_calls.insert(key, v);
        v
    }

    /// [`lockstep_models::container_family_via`] of a class, cached.
    fn container_family(&mut self, program: &Program, class: &Arc<str>) -> Option<ContainerFamily> {
        if let Some(&v) = self.families.get(class) {
            return v;
        }
        let is_subtype = |a: &str, b: &str| program.is_subtype_name(a, b);
        let v = lockstep_models::container_family_via(class, &is_subtype);
        self.families.insert(class.clone(), v);
        v
    }
}

/// Does the path start at `this`?
fn rooted_at_this(p: &AccessPath) -> bool {
    match p {
        AccessPath::This => true,
        AccessPath::Field(b, _) | AccessPath::Element(b, _) | AccessPath::OuterThis(b, _) => {
            rooted_at_this(b)
        }
        _ => false,
    }
}

/// Is `v` an object this method allocated and has not yet handed out
/// before statement `at`? (RacerD's ownership, almost intraprocedural:
/// the variable's only definition is a `new`, or a call to an application
/// factory that returns one ([`returns_fresh`]), and no earlier statement stores
/// it, passes it to a call other than its constructor, returns or throws
/// it. Statement order stands for execution order, which loops can defeat.)
fn owned_before(program: &Program, body: &Body, v: VarId, at: StmtId) -> bool {
    // Through copies (`int[] t = tmp` after an array initializer) to the
    // variable the allocation defines.
    let mut root = v;
    for _ in 0..8 {
        let Some(Some(def)) = body.unique_def.get(root.index()) else {
            return false;
        };
        match body.stmts.get(def.index()).map(|s| &s.kind) {
            Some(StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(src)) | Rvalue::Cast(Operand::Var(src), _),
                ..
            }) if *src != root => root = *src,
            _ => break,
        }
    }
    let Some(Some(def)) = body.unique_def.get(root.index()) else {
        return false;
    };
    let fresh = match body.stmts.get(def.index()).map(|s| &s.kind) {
        Some(StmtKind::Assign {
            value: Rvalue::New(_) | Rvalue::NewArray(..),
            ..
        }) => true,
        Some(StmtKind::Invoke { call, .. }) => returns_fresh(program, call),
        _ => false,
    };
    fresh && not_published_between(body, root, *def, at)
}

/// No statement after `def` and before `at` stores `v` (or a copy of it),
/// passes it to a call other than its constructor, returns or throws it.
fn not_published_between(body: &Body, v: VarId, def: StmtId, at: StmtId) -> bool {
    if def.0 >= at.0 {
        return false;
    }
    let mut aliases: Vec<VarId> = vec![v];
    let Some(between) = body.stmts.get(def.index() + 1..at.index()) else {
        return false;
    };
    for s in between {
        let is_v = |o: &Operand| o.var().is_some_and(|x| aliases.contains(&x));
        let escapes = match &s.kind {
            StmtKind::FieldStore { value, .. }
            | StmtKind::StaticStore { value, .. }
            | StmtKind::ArrayStore { value, .. } => is_v(value),
            StmtKind::Invoke { call, .. } => {
                call.args.iter().any(is_v)
                    || (call.receiver.as_ref().is_some_and(is_v) && &*call.method.name != "<init>")
            }
            StmtKind::InvokeDynamic { call, .. } => call.args.iter().any(is_v),
            StmtKind::Return(Some(o)) | StmtKind::Throw(o) => is_v(o),
            StmtKind::Assign {
                dst,
                value: Rvalue::Use(o) | Rvalue::Cast(o, _),
            } => {
                if is_v(o) {
                    aliases.push(*dst);
                }
                false
            }
            _ => false,
        };
        if escapes {
            return false;
        }
    }
    true
}

/// Is the call a static or private application factory whose every
/// `return` hands back an object it just allocated and did not publish
/// (`Utils.newSmallArrayList()`)? One level deep.
fn returns_fresh(program: &Program, call: &lockstep_ir::Call) -> bool {
    if !matches!(
        call.kind,
        lockstep_ir::CallKind::Static | lockstep_ir::CallKind::Special
    ) || &*call.method.name == "<init>"
    {
        return false;
    }
    let Some(c) = program.class_by_name(&call.method.class) else {
        return false;
    };
    if !program.is_application(c) {
        return false;
    }
    let Some(m) = program.resolve_method(c, &call.method.name, &call.method.descriptor) else {
        return false;
    };
    let Some(callee) = program.body(m) else {
        return false;
    };
    let mut any = false;
    for (i, st) in callee.stmts.iter().enumerate() {
        if let StmtKind::Return(Some(op)) = &st.kind {
            let Some(r) = op.var() else { return false };
            let def_is_alloc = matches!(
                callee
                    .unique_def
                    .get(r.index())
                    .copied()
                    .flatten()
                    .and_then(|d| callee.stmts.get(d.index()))
                    .map(|s| &s.kind),
                Some(StmtKind::Assign {
                    value: Rvalue::New(_) | Rvalue::NewArray(..),
                    ..
                })
            );
            // The allocation must not be handed out before the return.
            if !def_is_alloc || !owned_before_alloc(&callee, r, StmtId(i as u32)) {
                return false;
            }
            any = true;
        }
    }
    any
}

/// [`owned_before`] for a variable already known to be a fresh allocation.
fn owned_before_alloc(body: &Body, v: VarId, at: StmtId) -> bool {
    let Some(Some(def)) = body.unique_def.get(v.index()) else {
        return false;
    };
    not_published_between(body, v, *def, at)
}

/// Why an element access made while initializing cannot race: the array
/// was allocated into `this.f` by this constructor, or into a `static
/// final` field by this class initializer.
fn initializing(
    program: &Program,
    body: &Body,
    base_path: Option<&AccessPath>,
    at: StmtId,
    in_init: bool,
    in_clinit: bool,
) -> Option<Exempt> {
    let p = base_path?;
    if in_init && filled_by_constructor(body, p, at) {
        Some(Exempt::Constructor)
    } else if in_clinit && filled_by_class_init(program, body, p) {
        Some(Exempt::ClassInit)
    } else {
        None
    }
}

/// The field a variable was loaded from, if its unique definition is a field or static load.
pub fn holder_of(
    body: &Body,
    v: VarId,
    fields: &mut FieldTable,
    program: &Program,
) -> Option<(Arc<str>, Arc<str>)> {
    let def = (*body.unique_def.get(v.index())?)?;
    match &body.stmts.get(def.index())?.kind {
        StmtKind::Assign {
            value: Rvalue::FieldLoad { field, .. } | Rvalue::StaticLoad(field),
            ..
        } => {
            let declaring = fields
                .facts(program, field)
                .map(|f| f.declaring)
                .unwrap_or_else(|| field.class.clone());
            Some((declaring, field.name.clone()))
        }
        StmtKind::Assign {
            value: Rvalue::Cast(Operand::Var(src), _) | Rvalue::Use(Operand::Var(src)),
            ..
        } if *src != v => holder_of(body, *src, fields, program),
        _ => None,
    }
}

/// An access that cannot race, with the reason.
pub type ExemptAccess = (StmtId, Target, Kind, Exempt);

/// The accesses of a body and the exempt ones.
pub type BodyAccesses = (Vec<AccessStmt>, Vec<ExemptAccess>);

/// The accesses of one application method body, and the exempt ones.
pub fn collect(
    program: &Program,
    method: MethodId,
    body: &Body,
    fields: &mut FieldTable,
) -> BodyAccesses {
    let mut out = Vec::new();
    let mut exempt = Vec::new();
    let data = program.method(method);
    // Constructor helpers run on the object under construction too.
    let in_init = fields.init.runs_in_constructor(program, method);
    let in_clinit = data.is_class_initializer();
    for (i, stmt) in body.stmts.iter().enumerate() {
        let s = StmtId(i as u32);
        let (field, object, kind, is_static): (Option<&MemberRef>, Option<&Operand>, Kind, bool) =
            match &stmt.kind {
                StmtKind::FieldStore { object, field, .. } => {
                    (Some(field), Some(object), Kind::Write, false)
                }
                StmtKind::StaticStore { field, .. } => (Some(field), None, Kind::Write, true),
                StmtKind::Assign {
                    value: Rvalue::FieldLoad { object, field },
                    ..
                } => (Some(field), Some(object), Kind::Read, false),
                StmtKind::Assign {
                    value: Rvalue::StaticLoad(field),
                    ..
                } => (Some(field), None, Kind::Read, true),
                StmtKind::ArrayStore { array, .. } => (None, Some(array), Kind::Write, false),
                StmtKind::Assign {
                    value: Rvalue::ArrayLoad { array, .. },
                    ..
                } => (None, Some(array), Kind::Read, false),
                StmtKind::Invoke { call, .. } => {
                    let Some(Operand::Var(recv)) = call.receiver.as_ref() else {
                        continue;
                    };
                    let m = &call.method;
                    let Some(acc) = fields.container_access(program, m) else {
                        continue;
                    };
                    let kind = match acc {
                        ContainerAccess::Read => Kind::Read,
                        ContainerAccess::Write => Kind::Write,
                    };
                    let path = access_path(body, *recv);
                    // A builder reached through a call result is a
                    // chained `append` on a local temporary: the points-to
                    // analysis merges the `this` every `append` returns.
                    let builder = fields.container_family(program, &m.class)
                        == Some(ContainerFamily::StringBuilder);
                    let holder = holder_of(body, *recv, fields, program);
                    if builder && holder.is_none() {
                        // Builders passed around as parameters or chained
                        // are almost always thread-confined temporaries.
                        continue;
                    }
                    if owned_before(program, body, *recv, s) {
                        exempt.push((s, Target::Container, kind, Exempt::Owned));
                        continue;
                    }
                    if in_init && rooted_at_this(&path) {
                        exempt.push((s, Target::Container, kind, Exempt::Constructor));
                        continue;
                    }
                    if in_clinit && filled_by_class_init(program, body, &path) {
                        exempt.push((s, Target::Container, kind, Exempt::ClassInit));
                        continue;
                    }
                    out.push(AccessStmt {
                        stmt: s,
                        target: Target::Container,
                        kind,
                        base: Some(*recv),
                        holder,
                        guard: None,
                        base_path: Some(path),
                        callee: Some((m.name.clone(), m.descriptor.clone())),
                    });
                    continue;
                }
                _ => continue,
            };
        let base = object.and_then(|o| o.var());
        if object.is_some() && base.is_none() {
            continue; // a constant (null) base throws
        }
        let base_path = base.map(|b| access_path(body, b));
        if base.is_some_and(|b| owned_before(program, body, b, s)) {
            let target = match (field, is_static) {
                (None, _) => Target::Element,
                (Some(f), _) => Target::Field {
                    class: fields
                        .facts(program, f)
                        .map(|x| x.declaring)
                        .unwrap_or_else(|| f.class.clone()),
                    name: f.name.clone(),
                },
            };
            exempt.push((s, target, kind, Exempt::Owned));
            continue;
        }
        let Some(field) = field else {
            // Array element.
            if let Some(why) =
                initializing(program, body, base_path.as_ref(), s, in_init, in_clinit)
            {
                exempt.push((s, Target::Element, kind, why));
                continue;
            }
            let b = base.unwrap_or(VarId(0));
            out.push(AccessStmt {
                stmt: s,
                target: Target::Element,
                kind,
                base,
                holder: holder_of(body, b, fields, program),
                guard: None,
                base_path,
                callee: None,
            });
            continue;
        };
        let facts = fields.facts(program, field);
        let declaring = facts
            .as_ref()
            .map(|f| f.declaring.clone())
            .unwrap_or_else(|| field.class.clone());
        let target = if is_static {
            Target::Static {
                class: declaring.clone(),
                name: field.name.clone(),
            }
        } else {
            Target::Field {
                class: declaring.clone(),
                name: field.name.clone(),
            }
        };
        let why = match &facts {
            Some(f) if f.is_final => Some(Exempt::Final),
            Some(f) if f.is_volatile => Some(Exempt::Volatile),
            Some(f) if f.immutable_class => Some(Exempt::Immutable),
            Some(f) if f.not_thread_safe_class => Some(Exempt::NotThreadSafe),
            _ if in_init && !is_static && base_path.as_ref().is_some_and(rooted_at_this) => {
                Some(Exempt::Constructor)
            }
            _ if in_clinit && is_static && declaring == body.class => Some(Exempt::ClassInit),
            _ if in_clinit
                && base_path
                    .as_ref()
                    .is_some_and(|p| filled_by_class_init(program, body, p)) =>
            {
                Some(Exempt::ClassInit)
            }
            _ => None,
        };
        if let Some(why) = why {
            exempt.push((s, target, kind, why));
            continue;
        }
        out.push(AccessStmt {
            stmt: s,
            target,
            kind,
            base,
            holder: None,
            guard: facts.and_then(|f| f.guard),
            base_path,
            callee: None,
        });
    }
    (out, exempt)
}
