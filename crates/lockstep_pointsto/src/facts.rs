//! From a method's IR to its points-to constraints ("facts"), once per
//! method, shared by every context the method runs in and by both solvers.
//!
//! Only reference values matter. Each reference-typed IR variable gets a
//! *slot*; constants and the inner arrays of multi-dimensional allocations
//! get extra slots; the returned value gets one slot that every `return`
//! copies into. Statements become:
//!
//! | IR | fact |
//! | --- | --- |
//! | `v = new C`, `v = newarray` | `New` (one site per dimension, inner arrays stored as elements) |
//! | `v = "s"`, `v = C.class`, other constants | `Const` (context-free object) |
//! | `v = w` | `Copy` |
//! | `v = (T) w`, `v = caught` | `Filter` / `Catch` (by the cast or catch types) |
//! | `v = w.f`, `v = w[i]` | `Load` (arrays: the one element field) |
//! | `w.f = v`, `w[i] = v` | `Store` |
//! | `v = C.f`, `C.f = v` | `StaticLoad`, `StaticStore` (+ class initialisation) |
//! | calls | `Call`: target resolved as far as the static types allow |
//! | `invokedynamic` (lambda) | `Lambda`: a lambda object holding its captured values |
//! | other `invokedynamic` | `Const` of an opaque object of the result type |
//! | `throw v` | `Throw` |
//!
//! Resolution (classes, methods, fields) happens here, in the order the
//! solver asks for templates, so library classes load in a fixed order.

use std::sync::Arc;

use lockstep_classfile::descriptor;
use lockstep_ir::{
    BlockId, Body, Call, CallKind, ConstValue, MemberRef, Operand, Rvalue, StmtId, StmtKind, Type,
};
use lockstep_models::{is_jdk_class, Async, Operand as ModelOperand, TaskLaunch, TaskShape};
use lockstep_program::lambda::ref_kind;
use lockstep_program::{
    callback_calls, decode_lambda, ClassId, EdgeKind, LambdaShape, MethodId, Program,
};
use rustc_hash::FxHashMap;

use crate::ids::{FieldId, SiteId, Slot, TypeId, NO_SLOT};
use crate::keys::{FieldKey, SiteKey};
use crate::tables::Tables;

/// What `ldc` of a method type or handle gives, and the root class (JVMS
/// §5.1): language facts, not library models.
const OBJECT: &str = "java/lang/Object";
const METHOD_TYPE: &str = "java/lang/invoke/MethodType";
const METHOD_HANDLE: &str = "java/lang/invoke/MethodHandle";

/// The constraints of one method, independent of context.
pub(crate) struct Template {
    pub method: MethodId,
    pub slots: u32,
    /// Slot of each IR variable (`NO_SLOT` for non-references).
    pub var_slot: Arc<[Slot]>,
    /// The declared type of each slot when it says more than `Object`:
    /// only objects of that type can be there at run time, so the solver
    /// drops others (which only imprecision elsewhere brings in).
    pub slot_types: Vec<Option<TypeId>>,
    pub this_slot: Option<Slot>,
    /// Slots of the declared parameters (not `this`).
    pub params: Vec<Option<Slot>>,
    /// The slot every `return` copies into.
    pub ret: Option<Slot>,
    pub facts: Vec<Fact>,
    pub calls: Vec<CallFact>,
    pub lambdas: Vec<Arc<LambdaFact>>,
}

#[derive(Debug, Clone)]
pub(crate) enum Fact {
    /// An allocation: the object gets the method's heap context.
    New {
        dst: Slot,
        site: SiteId,
    },
    /// A context-free object (constants, opaque results).
    Const {
        dst: Slot,
        site: SiteId,
    },
    Copy {
        dst: Slot,
        src: Slot,
    },
    /// A copy keeping only objects of one of the types (casts).
    Filter {
        dst: Slot,
        src: Slot,
        types: Arc<[TypeId]>,
    },
    Load {
        dst: Slot,
        base: Slot,
        field: FieldId,
    },
    Store {
        base: Slot,
        field: FieldId,
        src: Slot,
    },
    StaticLoad {
        dst: Slot,
        field: FieldId,
    },
    StaticStore {
        field: FieldId,
        src: Slot,
    },
    /// Class initialisation is triggered (`new`, static access, static call).
    Init(ClassId),
    /// Index into [`Template::calls`].
    Call(u32),
    /// Index into [`Template::lambdas`].
    Lambda(u32),
    Throw {
        src: Slot,
    },
    /// A handler's exception variable; `None`: catches everything.
    Catch {
        dst: Slot,
        types: Option<Arc<[TypeId]>>,
    },
}

/// How a call site's target is found.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// Static and special calls: resolved statically.
    Direct(MethodId),
    /// Virtual and interface calls: selected on each receiver object,
    /// which must be a subtype of `class`.
    Virtual {
        class: ClassId,
        name: Arc<str>,
        desc: Arc<str>,
        /// [`Tables::sig`] of `name desc`.
        sig: u32,
    },
    /// The class or method does not resolve.
    Unresolved,
}

#[derive(Debug, Clone)]
pub(crate) struct CallFact {
    pub stmt: StmtId,
    pub kind: EdgeKind,
    pub recv: Option<Slot>,
    pub args: Vec<Option<Slot>>,
    pub result: Option<Slot>,
    pub target: Target,
    /// Declared return type when it is a reference (for opaque results).
    pub ret_type: Option<Arc<str>>,
    /// Thread-start models matching this call (non-JDK callers only).
    pub launches: Vec<LaunchFact>,
}

/// A modelled thread start at a call: the task operand and what runs.
#[derive(Debug, Clone)]
pub(crate) struct LaunchFact {
    pub launch: &'static TaskLaunch,
    pub task: Slot,
    pub shape: TaskShape,
    /// The type declaring the entry method (`Runnable`), when it loads.
    pub interface: Option<ClassId>,
    /// Applies only when the receiver is an object from outside the
    /// analysed code that selects no method ([`lockstep_models::OUTSIDE_TASK`]).
    pub outside: bool,
}

/// How a lambda object's functional method runs its implementation.
#[derive(Debug, Clone)]
pub(crate) enum LambdaImpl {
    /// A static method: captured values, then the call's arguments.
    Static(MethodId),
    /// A private instance method (`invokespecial`): the first value is the receiver.
    Special(MethodId),
    /// A virtual method reference (`this::work`, `String::length`): the
    /// first value is the receiver, the method selected on it.
    Virtual {
        class: ClassId,
        name: Arc<str>,
        desc: Arc<str>,
        sig: u32,
    },
    /// A constructor reference (`Foo::new`): a new object, then its constructor.
    Constructor {
        init: MethodId,
    },
    Unresolved,
}

#[derive(Debug, Clone)]
pub(crate) struct LambdaFact {
    pub site: (MethodId, StmtId),
    pub dst: Option<Slot>,
    pub captures: Vec<Option<Slot>>,
    pub shape: LambdaShape,
    /// The site of the lambda objects.
    pub obj_site: SiteId,
    /// The site of the objects a constructor reference creates.
    pub ctor_site: Option<SiteId>,
    /// The functional interface, when it loads.
    pub interface: Option<ClassId>,
    pub imp: LambdaImpl,
}

/// Builds the template of `m`; `None` without a body (abstract, native,
/// lowering failed).
pub(crate) fn build(
    p: &Program,
    tables: &mut Tables,
    m: MethodId,
    merge_allocations: bool,
) -> Option<Template> {
    let body = p.body(m)?;
    let md = p.try_method(m)?;
    let in_jdk = is_jdk_class(&p.class(md.class).name);
    let mut var_slot = vec![NO_SLOT; body.vars.len()];
    let mut slots: u32 = 0;
    let mut slot_types: Vec<Option<TypeId>> = Vec::new();
    for (i, v) in body.vars.iter().enumerate() {
        if matches!(v.ty, Type::Ref(_) | Type::Null) {
            var_slot[i] = slots;
            slots += 1;
            slot_types.push(match &v.ty {
                Type::Ref(Some(t)) if &**t != OBJECT => Some(tables.types.named(p, t)),
                _ => None,
            });
        }
    }
    let slot_of =
        |v: lockstep_ir::VarId| var_slot.get(v.index()).copied().filter(|&s| s != NO_SLOT);
    let mut params = body.params.iter().map(|&v| slot_of(v));
    let this_slot = if body.is_static {
        None
    } else {
        params.next().flatten()
    };
    let params: Vec<Option<Slot>> = params.collect();
    let returns_ref = descriptor::return_type(&body.descriptor)
        .is_some_and(|r| r.starts_with('L') || r.starts_with('['));
    let ret = returns_ref.then(|| {
        slots += 1;
        slots - 1
    });
    let mut b = Builder {
        p,
        t: tables,
        method: m,
        body: &body,
        var_slot: &var_slot,
        slots,
        facts: Vec::new(),
        calls: Vec::new(),
        lambdas: Vec::new(),
        in_jdk,
        merge_allocations,
    };
    if p.is_summarized(m) {
        b.summarized(ret);
    } else {
        let catches = catch_types(&body, b.p, b.t);
        for (i, stmt) in body.stmts.iter().enumerate() {
            let site = StmtId(i as u32);
            b.stmt(site, &stmt.kind, ret, &catches);
        }
    }
    let Builder {
        slots,
        facts,
        calls,
        lambdas,
        ..
    } = b;
    Some(Template {
        method: m,
        slots,
        var_slot: Arc::from(var_slot),
        slot_types,
        this_slot,
        params,
        ret,
        facts,
        calls,
        lambdas,
    })
}

/// For each handler block, the types it catches (`None`: everything).
fn catch_types(
    body: &Body,
    p: &Program,
    t: &mut Tables,
) -> FxHashMap<BlockId, Option<Arc<[TypeId]>>> {
    let mut by_handler: FxHashMap<BlockId, Option<Vec<TypeId>>> = FxHashMap::default();
    for block in &body.blocks {
        for e in &block.exceptional {
            let entry = by_handler
                .entry(e.handler)
                .or_insert_with(|| Some(Vec::new()));
            match (&e.catch, entry.as_mut()) {
                (None, _) => *entry = None,
                (Some(c), Some(v)) => {
                    let ty = t.types.named(p, c);
                    if !v.contains(&ty) {
                        v.push(ty);
                    }
                }
                (Some(_), None) => {}
            }
        }
    }
    by_handler
        .into_iter()
        .map(|(b, v)| (b, v.map(Arc::from)))
        .collect()
}

struct Builder<'a, 'p> {
    p: &'p Program,
    t: &'a mut Tables,
    method: MethodId,
    body: &'a Body,
    var_slot: &'a [Slot],
    slots: u32,
    facts: Vec<Fact>,
    calls: Vec<CallFact>,
    lambdas: Vec<Arc<LambdaFact>>,
    in_jdk: bool,
    /// Allocate one object per type ([`crate::Config::merge_library_objects`]).
    merge_allocations: bool,
}

impl Builder<'_, '_> {
    fn new_slot(&mut self) -> Slot {
        self.slots += 1;
        self.slots - 1
    }

    fn var(&self, v: lockstep_ir::VarId) -> Option<Slot> {
        self.var_slot
            .get(v.index())
            .copied()
            .filter(|&s| s != NO_SLOT)
    }

    /// A method behind the JDK boundary (`lockstep_program::boundary`):
    /// its callbacks (calls on its parameters) and an opaque object of its
    /// declared return type as its result, nothing else of its body.
    fn summarized(&mut self, ret: Option<Slot>) {
        let body = self.body;
        for (site, call) in callback_calls(body) {
            self.call(site, None, call);
        }
        let ty = descriptor::return_type(&body.descriptor)
            .and_then(ref_type_name)
            .map(|declared| self.summarized_result_type(declared));
        if let (Some(dst), Some(ty)) = (ret, ty) {
            let site = self.t.named_site(self.p, SiteKey::Opaque(ty));
            self.facts.push(Fact::Const { dst, site });
        }
    }

    /// The type of the opaque object a summarised method returns: the
    /// JDK implementation the boundary names for an abstract `declared`
    /// type (as RTA makes live), else `declared`.
    fn summarized_result_type(&self, declared: Arc<str>) -> Arc<str> {
        match self.p.summarized_implementation(&declared) {
            Some(c) => self.p.class(c).name.clone(),
            None => declared,
        }
    }

    /// The slot holding an operand's value; constants get a fresh slot
    /// holding their object. `None` for primitives and `null`.
    fn operand(&mut self, op: &Operand) -> Option<Slot> {
        match op {
            Operand::Var(v) => self.var(*v),
            Operand::Const(c) => {
                let site = const_site(c)?;
                let site = self.t.named_site(self.p, site);
                let dst = self.new_slot();
                self.facts.push(Fact::Const { dst, site });
                Some(dst)
            }
        }
    }

    /// `dst = op`.
    fn assign_operand(&mut self, dst: Slot, op: &Operand) {
        match op {
            Operand::Var(v) => {
                if let Some(src) = self.var(*v) {
                    self.facts.push(Fact::Copy { dst, src });
                }
            }
            Operand::Const(c) => {
                if let Some(site) = const_site(c) {
                    let site = self.t.named_site(self.p, site);
                    self.facts.push(Fact::Const { dst, site });
                }
            }
        }
    }

    fn field(&mut self, f: &MemberRef) -> FieldId {
        let key = field_key(self.p, f);
        self.t.field(key)
    }

    fn init_class_of_field(&mut self, f: &MemberRef) {
        if let Some(c) = self.p.class_by_name(&f.class) {
            let declaring = self.p.resolve_field(c, &f.name, &f.descriptor).unwrap_or(c);
            self.facts.push(Fact::Init(declaring));
        }
    }

    fn stmt(
        &mut self,
        site: StmtId,
        kind: &StmtKind,
        ret: Option<Slot>,
        catches: &FxHashMap<BlockId, Option<Arc<[TypeId]>>>,
    ) {
        match kind {
            StmtKind::Assign { dst, value } => self.assign(site, *dst, value, catches),
            StmtKind::FieldStore {
                object,
                field,
                value,
            } => {
                let key = self.field(field);
                if let (Some(base), Some(src)) = (self.operand(object), self.operand(value)) {
                    self.facts.push(Fact::Store {
                        base,
                        field: key,
                        src,
                    });
                }
            }
            StmtKind::StaticStore { field, value } => {
                self.init_class_of_field(field);
                let key = self.field(field);
                if let Some(src) = self.operand(value) {
                    self.facts.push(Fact::StaticStore { field: key, src });
                }
            }
            StmtKind::ArrayStore { array, value, .. } => {
                if let (Some(base), Some(src)) = (self.operand(array), self.operand(value)) {
                    self.facts.push(Fact::Store {
                        base,
                        field: self.t.element(),
                        src,
                    });
                }
            }
            StmtKind::Invoke { result, call } => self.call(site, *result, call),
            StmtKind::InvokeDynamic { result, call } => {
                let dst = result.and_then(|r| self.var(r));
                match decode_lambda(call) {
                    Some(shape) => self.lambda(site, dst, &call.args, shape),
                    None => {
                        // String concatenation, records' ObjectMethods,
                        // switch bootstraps...: a value of the result type
                        // made by code the analysis does not see.
                        let ty = descriptor::return_type(&call.descriptor).and_then(ref_type_name);
                        if let (Some(dst), Some(ty)) = (dst, ty) {
                            let site = self.t.named_site(self.p, SiteKey::Opaque(ty));
                            self.facts.push(Fact::Const { dst, site });
                        }
                    }
                }
            }
            StmtKind::Return(Some(op)) => {
                if let Some(r) = ret {
                    self.assign_operand(r, op);
                }
            }
            StmtKind::Throw(op) => {
                if let Some(src) = self.operand(op) {
                    self.facts.push(Fact::Throw { src });
                }
            }
            StmtKind::MonitorEnter(_)
            | StmtKind::MonitorExit(_)
            | StmtKind::If { .. }
            | StmtKind::Goto(_)
            | StmtKind::Switch { .. }
            | StmtKind::Return(None)
            | StmtKind::Ret { .. }
            | StmtKind::Nop => {}
        }
    }

    fn assign(
        &mut self,
        site: StmtId,
        dst: lockstep_ir::VarId,
        value: &Rvalue,
        catches: &FxHashMap<BlockId, Option<Arc<[TypeId]>>>,
    ) {
        // Side effects that do not depend on the destination being a reference.
        match value {
            Rvalue::New(c) => {
                if let Some(cls) = self.p.class_by_name(c) {
                    self.facts.push(Fact::Init(cls));
                }
            }
            Rvalue::StaticLoad(f) => self.init_class_of_field(f),
            _ => {}
        }
        let Some(d) = self.var(dst) else {
            return;
        };
        let method = self.method;
        match value {
            Rvalue::Use(op) => self.assign_operand(d, op),
            Rvalue::Cast(op, ty) => {
                if let Some(src) = self.operand(op) {
                    let t = self.t.types.named(self.p, ty);
                    self.facts.push(Fact::Filter {
                        dst: d,
                        src,
                        types: Arc::from(vec![t]),
                    });
                }
            }
            Rvalue::New(c) => {
                let ty = self.t.types.named(self.p, c);
                let is_exception = self.t.merge_exceptions
                    && match (self.p.class_by_name(c), self.t.throwable) {
                        (Some(cls), Some(t)) => self.p.is_subtype(cls, t),
                        _ => false,
                    };
                if is_exception {
                    let site = self.t.site(SiteKey::Exception(c.clone()), ty);
                    self.facts.push(Fact::Const { dst: d, site });
                } else if self.merge_allocations {
                    let site = self.t.site(SiteKey::Library(c.clone()), ty);
                    self.facts.push(Fact::Const { dst: d, site });
                } else {
                    let (method, stmt) = self.t.initializer_sites.canonical(self.p, method, site);
                    let key = SiteKey::Alloc {
                        method,
                        stmt,
                        dim: 0,
                    };
                    let site = self.t.site(key, ty);
                    self.facts.push(Fact::New { dst: d, site });
                }
            }
            Rvalue::NewArray(desc, dims) => {
                let ty = self.t.types.named(self.p, desc);
                // A zero-length array can never hold an element: it keeps its
                // own site (the JDK shares such arrays as "empty" markers,
                // `ArrayList`'s `DEFAULTCAPACITY_EMPTY_ELEMENTDATA`), and
                // stores into it are dropped instead of reaching every list.
                let empty = matches!(dims.first(), Some(Operand::Const(ConstValue::Int(0))));
                let key = if self.merge_allocations && !empty {
                    SiteKey::Library(desc.clone())
                } else {
                    SiteKey::Alloc {
                        method,
                        stmt: site,
                        dim: 0,
                    }
                };
                let outer_site = self.t.site(key, ty);
                if empty {
                    self.t.mark_empty_array(outer_site);
                }
                self.facts.push(Fact::New {
                    dst: d,
                    site: outer_site,
                });
                // `multianewarray` with n lengths creates n levels of arrays.
                let mut outer = d;
                for level in 1..dims.len().min(255) {
                    // The inner arrays exist when the type at this depth is an array.
                    if desc.as_bytes().get(level) != Some(&b'[') {
                        break;
                    }
                    let inner = self.new_slot();
                    let inner_desc = desc.get(level..).unwrap_or("");
                    let ty = self.t.types.named(self.p, inner_desc);
                    let key = if self.merge_allocations {
                        SiteKey::Library(Arc::from(inner_desc))
                    } else {
                        SiteKey::Alloc {
                            method,
                            stmt: site,
                            dim: level as u8,
                        }
                    };
                    let inner_site = self.t.site(key, ty);
                    self.facts.push(Fact::New {
                        dst: inner,
                        site: inner_site,
                    });
                    self.facts.push(Fact::Store {
                        base: outer,
                        field: self.t.element(),
                        src: inner,
                    });
                    outer = inner;
                }
            }
            Rvalue::FieldLoad { object, field } => {
                let key = self.field(field);
                if let Some(base) = self.operand(object) {
                    self.facts.push(Fact::Load {
                        dst: d,
                        base,
                        field: key,
                    });
                }
            }
            Rvalue::StaticLoad(f) => {
                let key = self.field(f);
                self.facts.push(Fact::StaticLoad { dst: d, field: key });
            }
            Rvalue::ArrayLoad { array, .. } => {
                if let Some(base) = self.operand(array) {
                    self.facts.push(Fact::Load {
                        dst: d,
                        base,
                        field: self.t.element(),
                    });
                }
            }
            Rvalue::CaughtException => {
                let block = self.body.block_of.get(site.index()).copied();
                let types = block.and_then(|b| catches.get(&b).cloned()).flatten();
                self.facts.push(Fact::Catch { dst: d, types });
            }
            Rvalue::Binary(..)
            | Rvalue::Neg(_)
            | Rvalue::Convert(..)
            | Rvalue::Compare(..)
            | Rvalue::InstanceOf(..)
            | Rvalue::ArrayLength(_) => {}
        }
    }

    fn call(&mut self, site: StmtId, result: Option<lockstep_ir::VarId>, call: &Call) {
        let p = self.p;
        let member = &call.method;
        // Methods on arrays (`clone`, Object's) resolve as on Object.
        let class = if member.class.starts_with('[') {
            self.t.types.object()
        } else {
            p.class_by_name(&member.class)
        };
        let resolve = |cls: ClassId| {
            if call.interface_ref {
                p.resolve_interface_method(cls, &member.name, &member.descriptor)
            } else {
                p.resolve_method(cls, &member.name, &member.descriptor)
            }
        };
        let (kind, target) = match (call.kind, class) {
            (_, None) => (edge_kind(call.kind), Target::Unresolved),
            (CallKind::Static | CallKind::Special, Some(cls)) => match resolve(cls) {
                Some(t) => {
                    if call.kind == CallKind::Static {
                        self.facts.push(Fact::Init(p.method(t).class));
                    }
                    (edge_kind(call.kind), Target::Direct(t))
                }
                None => (edge_kind(call.kind), Target::Unresolved),
            },
            (CallKind::Virtual | CallKind::Interface, Some(cls)) => (
                edge_kind(call.kind),
                Target::Virtual {
                    class: cls,
                    name: member.name.clone(),
                    desc: member.descriptor.clone(),
                    sig: self.t.sig(&member.name, &member.descriptor),
                },
            ),
        };
        let recv = call.receiver.as_ref().and_then(|r| self.operand(r));
        let args: Vec<Option<Slot>> = call.args.iter().map(|a| self.operand(a)).collect();
        let result = result.and_then(|r| self.var(r));
        let ret_type = descriptor::return_type(&member.descriptor).and_then(ref_type_name);
        let mut launches = Vec::new();
        if !self.in_jdk {
            let models = lockstep_models::thread_starts_via(
                &member.class,
                &member.name,
                &member.descriptor,
                &|a, b| p.is_subtype_name(a, b),
            );
            for l in models {
                if l.asynchronous != Async::Always {
                    // Runs through ordinary calls the analysis follows anyway.
                    continue;
                }
                let task = match l.task {
                    ModelOperand::Receiver => recv,
                    ModelOperand::Arg(i) => args.get(usize::from(i)).copied().flatten(),
                    ModelOperand::Result => None,
                };
                if let Some(task) = task {
                    launches.push(LaunchFact {
                        launch: l,
                        task,
                        shape: l.shape,
                        interface: p.class_by_name(l.entry.interface),
                        outside: false,
                    });
                }
            }
            if launches.is_empty() {
                if let Target::Virtual { class, .. } = &target {
                    launches = outside_tasks(p, resolve(*class), member, &args);
                }
            }
        }
        let index = self.calls.len() as u32;
        self.calls.push(CallFact {
            stmt: site,
            kind,
            recv,
            args,
            result,
            target,
            ret_type,
            launches,
        });
        self.facts.push(Fact::Call(index));
    }

    fn lambda(&mut self, site: StmtId, dst: Option<Slot>, args: &[Operand], shape: LambdaShape) {
        let p = self.p;
        let captures: Vec<Option<Slot>> = args.iter().map(|a| self.operand(a)).collect();
        let h = &shape.implementation;
        let hclass = p.class_by_name(&h.member.class);
        let resolve = |hc: ClassId| {
            if h.is_interface || h.kind == ref_kind::INVOKE_INTERFACE {
                p.resolve_interface_method(hc, &h.member.name, &h.member.descriptor)
            } else {
                p.resolve_method(hc, &h.member.name, &h.member.descriptor)
            }
        };
        let imp = match (h.kind, hclass) {
            (_, None) => LambdaImpl::Unresolved,
            (ref_kind::INVOKE_VIRTUAL | ref_kind::INVOKE_INTERFACE, Some(hc)) => {
                LambdaImpl::Virtual {
                    class: hc,
                    name: h.member.name.clone(),
                    desc: h.member.descriptor.clone(),
                    sig: self.t.sig(&h.member.name, &h.member.descriptor),
                }
            }
            (ref_kind::INVOKE_STATIC, Some(hc)) => {
                self.facts.push(Fact::Init(hc));
                resolve(hc).map_or(LambdaImpl::Unresolved, LambdaImpl::Static)
            }
            (ref_kind::INVOKE_SPECIAL, Some(hc)) => {
                resolve(hc).map_or(LambdaImpl::Unresolved, LambdaImpl::Special)
            }
            (ref_kind::NEW_INVOKE_SPECIAL, Some(hc)) => {
                self.facts.push(Fact::Init(hc));
                resolve(hc).map_or(LambdaImpl::Unresolved, |init| LambdaImpl::Constructor {
                    init,
                })
            }
            // Field handles and anything else: not a method to run.
            _ => LambdaImpl::Unresolved,
        };
        let interface = p.class_by_name(&shape.interface);
        let mut implements: Vec<ClassId> = interface.into_iter().collect();
        implements.extend(shape.markers.iter().filter_map(|m| p.class_by_name(m)));
        let ty = self.t.types.lambda(p, (self.method, site), &implements);
        let method = self.method;
        let obj_site = self.t.site(SiteKey::Lambda { method, stmt: site }, ty);
        let ctor_site = match &imp {
            LambdaImpl::Constructor { init } => {
                let cty = self.t.types.class(p.method(*init).class);
                Some(
                    self.t
                        .site(SiteKey::ConstructorRef { method, stmt: site }, cty),
                )
            }
            _ => None,
        };
        let index = self.lambdas.len() as u32;
        self.lambdas.push(Arc::new(LambdaFact {
            site: (method, site),
            dst,
            captures,
            shape,
            obj_site,
            ctor_site,
            interface,
            imp,
        }));
        self.facts.push(Fact::Lambda(index));
    }
}

fn edge_kind(k: CallKind) -> EdgeKind {
    match k {
        CallKind::Static => EdgeKind::Static,
        CallKind::Special => EdgeKind::Special,
        CallKind::Virtual => EdgeKind::Virtual,
        CallKind::Interface => EdgeKind::Interface,
    }
}

/// The object a constant operand denotes; `None` for `null` and numbers.
fn const_site(c: &ConstValue) -> Option<SiteKey> {
    match c {
        ConstValue::String(_) => Some(SiteKey::StringConstant),
        ConstValue::Class(name) => Some(SiteKey::ClassLiteral(name.clone())),
        ConstValue::MethodType(_) => Some(SiteKey::Constant(Arc::from(METHOD_TYPE))),
        ConstValue::MethodHandle(_) => Some(SiteKey::Constant(Arc::from(METHOD_HANDLE))),
        ConstValue::Dynamic { descriptor, .. } => ref_type_name(descriptor).map(SiteKey::Constant),
        ConstValue::Null
        | ConstValue::Int(_)
        | ConstValue::Long(_)
        | ConstValue::Float(_)
        | ConstValue::Double(_) => None,
    }
}

/// `Lpkg/C;` → `pkg/C`, `[I` → `[I`; primitives and `V` → `None`.
/// The tasks a call of an abstract method of the program's own type
/// hands over: each argument declared as a `Runnable` or a subtype of it
/// ([`lockstep_models::OUTSIDE_TASK`]; the solvers start them only when
/// the receiver is an object from outside that selects no method).
fn outside_tasks(
    p: &Program,
    method: Option<MethodId>,
    member: &MemberRef,
    args: &[Option<Slot>],
) -> Vec<LaunchFact> {
    let launch = &lockstep_models::OUTSIDE_TASK;
    if is_jdk_class(&member.class) || !method.is_some_and(|m| p.method(m).is_abstract()) {
        return Vec::new();
    }
    let Some(params) = descriptor::param_types(&member.descriptor) else {
        return Vec::new();
    };
    let interface = p.class_by_name(launch.entry.interface);
    params
        .iter()
        .zip(args)
        .filter_map(|(ty, arg)| {
            let ty = ref_type_name(ty)?;
            let task = (*arg)?;
            p.is_subtype_name(&ty, launch.entry.interface)
                .then_some(LaunchFact {
                    launch,
                    task,
                    shape: launch.shape,
                    interface,
                    outside: true,
                })
        })
        .collect()
}

pub(crate) fn ref_type_name(desc: &str) -> Option<Arc<str>> {
    if desc.starts_with('[') {
        return Some(Arc::from(desc));
    }
    desc.strip_prefix('L')?.strip_suffix(';').map(Arc::from)
}

/// The key of a field reference: its declaring class after resolution
/// (the class named at the access when resolution fails).
pub(crate) fn field_key(p: &Program, f: &MemberRef) -> FieldKey {
    let class = p
        .class_by_name(&f.class)
        .and_then(|c| p.resolve_field(c, &f.name, &f.descriptor))
        .map(|c| p.class(c).name.clone())
        .unwrap_or_else(|| f.class.clone());
    FieldKey::Field {
        class,
        name: f.name.clone(),
    }
}
