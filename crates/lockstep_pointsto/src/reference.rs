//! The reference solver: the same rules as the fast solver (the `rules` module,
//! the method templates, the models), evaluated the naive way. Every round
//! re-applies every fact of every reached method context to the full
//! points-to sets, with structural keys in ordered maps, until a round
//! changes nothing. No worklist, no difference propagation, no deferred
//! edges, no deduplication of calls: just the inference rules, so that it
//! can be read against the documentation and trusted as an oracle.
//!
//! It is slow (rounds × program size) and meant for tests on small
//! programs. It does not implement [`Config::max_contexts_per_method`] or
//! [`Config::max_contexts`], whose effect depends on the order in which
//! contexts appear: compare with the bounds off.

use std::collections::{BTreeMap, BTreeSet};

use lockstep_ir::StmtId;
use lockstep_models::{HeapEffect, Operand as ModelOperand, TaskShape};
use lockstep_program::{EdgeKind, EntryPoints, MethodId, Program};

use crate::config::Config;
use crate::facts::{Fact, LambdaFact, LambdaImpl, Target};
use crate::ids::{FieldId, SiteId, Slot, TypeId};
use crate::keys::{FieldKey, SiteKey};
use crate::result::{CanonObj, CanonPtr, Canonical};
use crate::rules::{heap_context, receiver_context, Rules};

type Ctx = Vec<SiteId>;
type Obj = (SiteId, Ctx);

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum P {
    Var(MethodId, Ctx, Slot),
    Field(Obj, FieldId),
    Static(FieldId),
    Exc,
}

/// A lambda invocation: site, lambda object, arguments, result.
type ActiveLambda = (MethodId, Ctx, StmtId, Obj, Vec<Option<P>>, Option<P>);

/// A call site in a method context, and how it calls.
#[derive(Clone)]
struct Site {
    method: MethodId,
    ctx: Ctx,
    stmt: StmtId,
    kind: EdgeKind,
}

struct Ref<'p> {
    r: Rules<'p>,
    reach: BTreeSet<(MethodId, Ctx)>,
    pts: BTreeMap<P, BTreeSet<Obj>>,
    edges: BTreeSet<(MethodId, Ctx, StmtId, EdgeKind, MethodId, Ctx)>,
    changed: bool,
    /// Lambda invocations in progress: a method reference whose receiver is
    /// (through a loop) the lambda itself would otherwise recurse forever.
    active: Vec<ActiveLambda>,
}

/// Solves with the naive evaluation and returns the result in structural keys.
pub fn solve(program: &Program, entries: &EntryPoints, config: Config) -> Canonical {
    let mut s = Ref {
        r: Rules::new(program, config),
        reach: BTreeSet::new(),
        pts: BTreeMap::new(),
        edges: BTreeSet::new(),
        changed: true,
        active: Vec::new(),
    };
    while s.changed {
        s.changed = false;
        s.seed(entries);
        let reached: Vec<(MethodId, Ctx)> = s.reach.iter().cloned().collect();
        for (m, c) in reached {
            s.method(m, &c);
        }
    }
    s.canonical()
}

impl Ref<'_> {
    fn get(&self, p: &P) -> Vec<Obj> {
        self.pts
            .get(p)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn ty(&self, o: &Obj) -> TypeId {
        self.r.site_type(o.0)
    }

    /// `o ∈ pts(p)`, if `p`'s declared type admits it.
    fn add(&mut self, p: &P, o: Obj) {
        let declared = match p {
            P::Var(m, _, slot) => self
                .r
                .template(*m)
                .and_then(|t| t.slot_types.get(*slot as usize).copied().flatten()),
            P::Field(base, f) => {
                if self.r.t.holds_nothing(base.0, *f) {
                    return;
                }
                let bt = self.ty(base);
                self.r.field_type(*f, Some(bt))
            }
            P::Static(f) => self.r.field_type(*f, None),
            P::Exc => None,
        };
        if let Some(t) = declared {
            let ty = self.ty(&o);
            if !self.r.accepts(ty, &[t]) {
                return;
            }
        }
        if self.pts.entry(p.clone()).or_default().insert(o) {
            self.changed = true;
        }
    }

    /// `pts(from) ⊆ pts(to)`.
    fn add_all(&mut self, to: &P, from: &P) {
        for o in self.get(from) {
            self.add(to, o);
        }
    }

    fn reach(&mut self, m: MethodId, c: Ctx) {
        if self.reach.insert((m, c)) {
            self.changed = true;
        }
    }

    fn initialize(&mut self, class: lockstep_program::ClassId) {
        let p = self.r.p;
        for &k in p.superclasses(class) {
            if let Some(ci) = p.class(k).declared_method("<clinit>", "()V") {
                self.reach(ci, Vec::new());
            }
        }
    }

    fn callee_ctx(&mut self, callee: MethodId, o: &Obj) -> Ctx {
        if self.r.receiver_gets_context(callee, o.0, o.1.is_empty()) {
            receiver_context(self.r.k, &o.0, &o.1)
        } else {
            Vec::new()
        }
    }

    /// The object from outside of a key; arrays hold the object of their
    /// component type from the same place.
    fn outside_obj(&mut self, key: SiteKey) -> Obj {
        let element = crate::external::element_key(&key);
        let site = self.r.t.named_site(self.r.p, key);
        let o = (site, Vec::new());
        if let Some(inner) = element {
            let e = self.r.t.element();
            let io = self.outside_obj(inner);
            self.add(&P::Field(o.clone(), e), io);
        }
        o
    }

    /// Field `g` of `o` (`None`: a static field), with the external
    /// object it holds when no analysed code assigns it.
    fn field_of(&mut self, o: Option<&Obj>, g: FieldId) -> P {
        let ty = o.map(|o| self.ty(o));
        let ptr = match o {
            Some(o) => P::Field(o.clone(), g),
            None => P::Static(g),
        };
        if let Some(site) = self.r.external_field_site(g, ty) {
            self.add(&ptr, (site, Vec::new()));
        }
        ptr
    }

    fn seed(&mut self, entries: &EntryPoints) {
        let p = self.r.p;
        for f in lockstep_models::vm_static_fields() {
            let field = self.r.t.field(FieldKey::Field {
                class: f.class.into(),
                name: f.name.into(),
            });
            let site = self.r.t.named_site(p, SiteKey::Vm(f.value_class.into()));
            self.add(&P::Static(field), (site, Vec::new()));
        }
        for &m in &entries.methods {
            let Some(md) = p.try_method(m) else {
                continue;
            };
            self.initialize(md.class);
            let this = (!md.is_static()).then(|| {
                let name = p.class(md.class).name.clone();
                let o = self.outside_obj(SiteKey::Entry(name));
                for &(ctor, f, site) in self.r.constructor_locks(md.class).iter() {
                    let ctx = self.callee_ctx(ctor, &o);
                    let h = heap_context(self.r.h, &ctx);
                    self.add(&P::Field(o.clone(), f), (site, h));
                }
                o
            });
            let ctx = match (&this, self.r.static_entry_context(m)) {
                (Some(o), _) => self.callee_ctx(m, o),
                (None, Some(site)) => vec![site],
                (None, None) => Vec::new(),
            };
            self.reach(m, ctx.clone());
            let Some(t) = self.r.template(m) else {
                continue;
            };
            if let (Some(o), Some(s)) = (this, t.this_slot) {
                self.add(&P::Var(m, ctx.clone(), s), o);
            }
            let params =
                lockstep_classfile::descriptor::param_types(&md.descriptor).unwrap_or_default();
            for (i, d) in params.into_iter().enumerate() {
                if let (Some(ty), Some(Some(s))) = (crate::facts::ref_type_name(d), t.params.get(i))
                {
                    let o = self.outside_obj(crate::external::parameter_key(p, m, i, ty));
                    self.add(&P::Var(m, ctx.clone(), *s), o);
                }
            }
        }
    }

    /// The fields an access through `f` touches on `o` (offset-addressed
    /// `Unsafe` accesses expand).
    fn fields_for(&mut self, o: &Obj, f: FieldId) -> Vec<FieldId> {
        if f == self.r.t.anywhere() {
            let ty = self.ty(o);
            self.r.anywhere_fields(ty).to_vec()
        } else {
            vec![f]
        }
    }

    /// Does `o` have field `f` (declared fields only on instances of their class)?
    fn has_field(&mut self, o: &Obj, f: FieldId) -> bool {
        match self.r.field_owner(f) {
            Some(c) => {
                let ty = self.ty(o);
                self.r.receiver_ok(ty, c)
            }
            None => true,
        }
    }

    fn load(&mut self, dst: &P, base: &P, f: FieldId) {
        self.load_from(dst, base, f, false);
    }

    /// `load`, skipping application objects when `internal`
    /// ([`Rules::unsafe_skips_application`]).
    fn load_from(&mut self, dst: &P, base: &P, f: FieldId, internal: bool) {
        for o in self.get(base) {
            if !self.has_field(&o, f) || (internal && self.r.site_in_application(o.0)) {
                continue;
            }
            for g in self.fields_for(&o, f) {
                let field = self.field_of(Some(&o), g);
                self.add_all(dst, &field);
            }
        }
    }

    fn store(&mut self, base: &P, f: FieldId, src: &P) {
        self.store_into(base, f, src, false);
    }

    /// `store`, skipping application objects when `internal`.
    fn store_into(&mut self, base: &P, f: FieldId, src: &P, internal: bool) {
        for o in self.get(base) {
            if !self.has_field(&o, f) || (internal && self.r.site_in_application(o.0)) {
                continue;
            }
            for g in self.fields_for(&o, f) {
                let field = self.field_of(Some(&o), g);
                self.add_all(&field, src);
            }
        }
    }

    /// Applies every fact of `m` in context `c`.
    fn method(&mut self, m: MethodId, c: &Ctx) {
        let Some(t) = self.r.template(m) else {
            return;
        };
        let var = |s: Slot| P::Var(m, c.clone(), s);
        for fact in &t.facts {
            match fact {
                Fact::New { dst, site } => {
                    let h = heap_context(self.r.h, c);
                    self.add(&var(*dst), (*site, h));
                }
                Fact::Const { dst, site } => self.add(&var(*dst), (*site, Vec::new())),
                Fact::Copy { dst, src } => self.add_all(&var(*dst), &var(*src)),
                Fact::Filter { dst, src, types } => {
                    for o in self.get(&var(*src)) {
                        let ty = self.ty(&o);
                        if self.r.accepts(ty, types) {
                            self.add(&var(*dst), o);
                        }
                    }
                }
                Fact::Load { dst, base, field } => self.load(&var(*dst), &var(*base), *field),
                Fact::Store { base, field, src } => self.store(&var(*base), *field, &var(*src)),
                Fact::StaticLoad { dst, field } => {
                    let field = self.field_of(None, *field);
                    self.add_all(&var(*dst), &field)
                }
                Fact::StaticStore { field, src } => {
                    let field = self.field_of(None, *field);
                    self.add_all(&field, &var(*src))
                }
                Fact::Init(class) => self.initialize(*class),
                Fact::Call(i) => self.call(m, c, &t, *i),
                Fact::Lambda(i) => {
                    let Some(lf) = t.lambdas.get(*i as usize) else {
                        continue;
                    };
                    let l = (lf.obj_site, heap_context(self.r.h, c));
                    if let Some(d) = lf.dst {
                        self.add(&var(d), l.clone());
                    }
                    for (i, cap) in lf.captures.iter().enumerate() {
                        if let Some(cs) = cap {
                            let f = self.r.t.field(FieldKey::Capture(i as u16));
                            self.add_all(&P::Field(l.clone(), f), &var(*cs));
                        }
                    }
                }
                Fact::Throw { src } => {
                    if self.r.cfg.exceptions {
                        self.add_all(&P::Exc, &var(*src));
                    }
                }
                Fact::Catch { dst, types } => {
                    if self.r.cfg.exceptions {
                        for o in self.get(&P::Exc) {
                            let ty = self.ty(&o);
                            if types.as_ref().is_none_or(|t| self.r.accepts(ty, t)) {
                                self.add(&var(*dst), o);
                            }
                        }
                    }
                }
            }
        }
    }

    fn call(&mut self, m: MethodId, c: &Ctx, t: &crate::facts::Template, i: u32) {
        let Some(call) = t.calls.get(i as usize) else {
            return;
        };
        let var = |s: Slot| P::Var(m, c.clone(), s);
        let site = Site {
            method: m,
            ctx: c.clone(),
            stmt: call.stmt,
            kind: call.kind,
        };
        let args: Vec<Option<P>> = call.args.iter().map(|a| a.map(var)).collect();
        let recv = call.recv.map(var);
        let result = call.result.map(var);
        let mut outside = false;
        match &call.target {
            Target::Direct(callee) if call.kind == EdgeKind::Static => {
                let ctx = if self.r.static_gets_context(*callee) {
                    c.clone()
                } else {
                    Vec::new()
                };
                self.edge(
                    &site,
                    *callee,
                    ctx,
                    None,
                    recv.as_ref(),
                    &args,
                    result.as_ref(),
                );
            }
            Target::Direct(callee) => {
                let class = self.r.p.method(*callee).class;
                for o in recv.as_ref().map(|r| self.get(r)).unwrap_or_default() {
                    let ty = self.ty(&o);
                    if self.r.receiver_ok(ty, class) {
                        let ctx = self.callee_ctx(*callee, &o);
                        self.edge(
                            &site,
                            *callee,
                            ctx,
                            Some(o),
                            recv.as_ref(),
                            &args,
                            result.as_ref(),
                        );
                    }
                }
            }
            Target::Virtual {
                class,
                name,
                desc,
                sig,
            } => {
                for o in recv.as_ref().map(|r| self.get(r)).unwrap_or_default() {
                    let ty = self.ty(&o);
                    // The solver's `outside_launch`: an outside receiver
                    // that selects no method starts the handed tasks.
                    if self.r.receiver_ok(ty, *class)
                        && self.r.lambda_of_type(ty).is_none()
                        && self.r.dispatch(ty, *sig).is_none()
                        && self.r.is_outside_site(o.0)
                    {
                        outside = true;
                    }
                }
                for o in recv.as_ref().map(|r| self.get(r)).unwrap_or_default() {
                    let ty = self.ty(&o);
                    if !self.r.receiver_ok(ty, *class) {
                        continue;
                    }
                    if let Some(lf) = self.r.lambda_of_type(ty).cloned() {
                        self.lambda(
                            &site,
                            &o,
                            &lf,
                            name,
                            desc,
                            recv.as_ref(),
                            &args,
                            result.as_ref(),
                        );
                    } else if let Some(callee) = self.r.dispatch(ty, *sig) {
                        let ctx = self.callee_ctx(callee, &o);
                        self.edge(
                            &site,
                            callee,
                            ctx,
                            Some(o),
                            recv.as_ref(),
                            &args,
                            result.as_ref(),
                        );
                    }
                }
            }
            Target::Unresolved => {
                if let (Some(r), Some(ty)) = (&result, &call.ret_type) {
                    let s = self.r.t.named_site(self.r.p, SiteKey::Opaque(ty.clone()));
                    self.add(r, (s, Vec::new()));
                }
            }
        }
        for l in &call.launches {
            if l.outside && !outside {
                continue;
            }
            let task = var(l.task);
            let tasks: Vec<Obj> = match l.shape {
                TaskShape::Functional | TaskShape::Thread => self.get(&task),
                TaskShape::Array => {
                    let e = self.r.t.element();
                    let mut v = Vec::new();
                    for a in self.get(&task) {
                        v.extend(self.get(&P::Field(a, e)));
                    }
                    v
                }
                TaskShape::Collection => Vec::new(),
            };
            let site = Site {
                kind: EdgeKind::TaskLaunch,
                ..site.clone()
            };
            for o in tasks {
                let ty = self.ty(&o);
                if let Some(i) = l.interface {
                    if !self.r.receiver_ok(ty, i) {
                        continue;
                    }
                }
                if let Some(lf) = self.r.lambda_of_type(ty).cloned() {
                    if let Some((n, d)) = l
                        .launch
                        .entry
                        .candidates
                        .iter()
                        .find(|(n, d)| lf.shape.implements(n, d))
                    {
                        let (n, d) = ((*n).into(), (*d).into());
                        self.lambda(&site, &o, &lf, &n, &d, None, &[], None);
                    }
                } else {
                    for (n, d) in l.launch.entry.candidates {
                        let sig = self.r.t.sig(&(*n).into(), &(*d).into());
                        if let Some(callee) = self.r.dispatch(ty, sig) {
                            let ctx = self.callee_ctx(callee, &o);
                            self.edge(&site, callee, ctx, Some(o.clone()), None, &[], None);
                            break;
                        }
                    }
                }
            }
        }
    }

    /// A call of `name desc` on lambda object `l`.
    #[allow(clippy::too_many_arguments)]
    fn lambda(
        &mut self,
        site: &Site,
        l: &Obj,
        lf: &LambdaFact,
        name: &std::sync::Arc<str>,
        desc: &std::sync::Arc<str>,
        recv: Option<&P>,
        args: &[Option<P>],
        result: Option<&P>,
    ) {
        if !lf.shape.implements(name, desc) {
            if let Some(t) = self.r.lambda_other(lf, name, desc) {
                let ctx = self.callee_ctx(t, l);
                self.edge(site, t, ctx, Some(l.clone()), recv, args, result);
            }
            return;
        }
        // Re-entering with the same arguments adds nothing the outer
        // invocation does not.
        let key = (
            site.method,
            site.ctx.clone(),
            site.stmt,
            l.clone(),
            args.to_vec(),
            result.cloned(),
        );
        if self.active.contains(&key) {
            return;
        }
        self.active.push(key);
        self.lambda_body(site, l, lf, args, result);
        self.active.pop();
    }

    /// The implementation of lambda object `l` for its functional method.
    fn lambda_body(
        &mut self,
        site: &Site,
        l: &Obj,
        lf: &LambdaFact,
        args: &[Option<P>],
        result: Option<&P>,
    ) {
        let mut actuals: Vec<Option<P>> = Vec::new();
        for i in 0..lf.captures.len() {
            let f = self.r.t.field(FieldKey::Capture(i as u16));
            actuals.push(Some(P::Field(l.clone(), f)));
        }
        actuals.extend(args.iter().cloned());
        match &lf.imp {
            LambdaImpl::Static(t) => {
                let ctx = self.callee_ctx(*t, l);
                self.edge(site, *t, ctx, None, None, &actuals, result);
            }
            LambdaImpl::Special(_) | LambdaImpl::Virtual { .. } => {
                let Some(Some(receiver)) = actuals.first().cloned() else {
                    return;
                };
                let rest = actuals.get(1..).unwrap_or(&[]).to_vec();
                for r in self.get(&receiver) {
                    let ty = self.ty(&r);
                    match &lf.imp {
                        LambdaImpl::Special(t) => {
                            let class = self.r.p.method(*t).class;
                            if self.r.receiver_ok(ty, class) {
                                let ctx = self.callee_ctx(*t, &r);
                                self.edge(site, *t, ctx, Some(r), None, &rest, result);
                            }
                        }
                        LambdaImpl::Virtual {
                            class,
                            name,
                            desc,
                            sig,
                        } => {
                            if !self.r.receiver_ok(ty, *class) {
                                continue;
                            }
                            if let Some(inner) = self.r.lambda_of_type(ty).cloned() {
                                self.lambda(site, &r, &inner, name, desc, None, &rest, result);
                            } else if let Some(t) = self.r.dispatch(ty, *sig) {
                                let ctx = self.callee_ctx(t, &r);
                                self.edge(site, t, ctx, Some(r), None, &rest, result);
                            }
                        }
                        _ => {}
                    }
                }
            }
            LambdaImpl::Constructor { init } => {
                let Some(ctor_site) = lf.ctor_site else {
                    return;
                };
                let n = (ctor_site, l.1.clone());
                if let Some(r) = result {
                    self.add(r, n.clone());
                }
                let ctx = self.callee_ctx(*init, &n);
                self.edge(site, *init, ctx, Some(n), None, &actuals, None);
            }
            LambdaImpl::Unresolved => {}
        }
    }

    /// A call edge from `site` to `callee` in `ctx`.
    #[allow(clippy::too_many_arguments)]
    fn edge(
        &mut self,
        site: &Site,
        callee: MethodId,
        ctx: Ctx,
        this: Option<Obj>,
        recv: Option<&P>,
        args: &[Option<P>],
        result: Option<&P>,
    ) {
        let ctx = if self.r.runs_in_caller_context(callee) {
            site.ctx.clone()
        } else {
            ctx
        };
        self.reach(callee, ctx.clone());
        let e = (
            site.method,
            site.ctx.clone(),
            site.stmt,
            site.kind,
            callee,
            ctx.clone(),
        );
        if self.edges.insert(e) {
            self.changed = true;
        }
        let effects = self.r.effects(callee);
        // A builder's `append` returns the object it was called on.
        let returns_receiver = self.r.returns_receiver(callee);
        if let (true, Some(o), Some(r)) = (returns_receiver, this.clone(), result) {
            self.add(r, o);
        }
        // `clone` returns a copy of the object it was called on.
        if let (false, Some(o), Some(r)) = (returns_receiver, this.clone(), result) {
            if self.r.copies_receiver(callee) {
                self.copy(site, &o, r);
            }
        }
        match self.r.template(callee) {
            Some(t) => {
                for (a, q) in args.iter().zip(&t.params) {
                    if let (Some(a), Some(q)) = (a, q) {
                        self.add_all(&P::Var(callee, ctx.clone(), *q), a);
                    }
                }
                if let (Some(r), Some(ret)) = (result, t.ret) {
                    if !returns_receiver {
                        self.add_all(r, &P::Var(callee, ctx.clone(), ret));
                    }
                }
                if let (Some(o), Some(s)) = (this.clone(), t.this_slot) {
                    self.add(&P::Var(callee, ctx.clone(), s), o);
                }
            }
            None => {
                let defines_result = returns_receiver
                    || effects.iter().any(|e| {
                        matches!(
                            e,
                            HeapEffect::ReturnsReceiver
                                | HeapEffect::CopiesReceiver
                                | HeapEffect::ReturnsVmObject { .. }
                                | HeapEffect::LoadsAnywhere { .. }
                                | HeapEffect::LoadsField { .. }
                        )
                    });
                if let (false, Some(r), Some(ty)) =
                    (defines_result, result, self.r.return_type(callee))
                {
                    let s = self.r.t.named_site(self.r.p, SiteKey::Opaque(ty));
                    self.add(r, (s, Vec::new()));
                }
            }
        }
        let operand = |op: ModelOperand| -> Option<P> {
            match op {
                ModelOperand::Receiver => recv.cloned(),
                ModelOperand::Arg(i) => args.get(usize::from(i)).cloned().flatten(),
                ModelOperand::Result => result.cloned(),
            }
        };
        let internal = self
            .r
            .unsafe_skips_application(site.method, site.ctx.is_empty());
        for e in effects.iter() {
            match *e {
                HeapEffect::ReturnsReceiver => {
                    if let (Some(r), Some(res)) = (recv, result) {
                        self.add_all(res, r);
                    }
                }
                HeapEffect::CopiesReceiver => {}
                HeapEffect::CopiesElements { from, to } => {
                    if let (Some(a), Some(b)) = (operand(from), operand(to)) {
                        let el = self.r.t.element();
                        for x in self.get(&a) {
                            for y in self.get(&b) {
                                self.add_all(&P::Field(y, el), &P::Field(x.clone(), el));
                            }
                        }
                    }
                }
                HeapEffect::ReturnsVmObject { class } => {
                    if let Some(res) = result {
                        let s = self.r.t.named_site(self.r.p, SiteKey::Vm(class.into()));
                        self.add(res, (s, Vec::new()));
                    }
                }
                HeapEffect::StoresAnywhere { object, value } => {
                    if let (Some(o), Some(v)) = (operand(object), operand(value)) {
                        let f = self.r.t.anywhere();
                        self.store_into(&o, f, &v, internal);
                    }
                }
                HeapEffect::LoadsAnywhere { object } => {
                    if let (Some(o), Some(res)) = (operand(object), result) {
                        let f = self.r.t.anywhere();
                        self.load_from(res, &o, f, internal);
                    }
                }
                HeapEffect::StoresField {
                    object,
                    field,
                    value,
                } => {
                    if let (Some(o), Some(v)) = (operand(object), operand(value)) {
                        let f = self.model_field(callee, field);
                        self.store(&o, f, &v);
                    }
                }
                HeapEffect::LoadsField { object, field } => {
                    if let (Some(o), Some(res)) = (operand(object), result) {
                        let f = self.model_field(callee, field);
                        self.load(res, &o, f);
                    }
                }
            }
        }
    }

    /// `Object.clone` called from `site` on `o`: the copy of `o` made at
    /// the call (with the caller's heap context) into `result`, and every
    /// field of `o` into the same field of the copy.
    fn copy(&mut self, site: &Site, o: &Obj, result: &P) {
        let ty = self.ty(o);
        let cs = self.r.t.copy_site(self.r.p, site.method, site.stmt, ty);
        let n = (cs, heap_context(self.r.h, &site.ctx));
        self.add(result, n.clone());
        let fields: Vec<FieldId> = self
            .pts
            .keys()
            .filter_map(|p| match p {
                P::Field(x, f) if x == o => Some(*f),
                _ => None,
            })
            .collect();
        for f in fields {
            let to = self.field_of(Some(&n), f);
            self.add_all(&to, &P::Field(o.clone(), f));
        }
    }

    fn model_field(&mut self, callee: MethodId, name: &str) -> FieldId {
        let p = self.r.p;
        let class = p.class(p.method(callee).class).name.clone();
        self.r.t.field(FieldKey::Field {
            class,
            name: name.into(),
        })
    }

    fn canon_ctx(&self, c: &Ctx) -> Vec<SiteKey> {
        c.iter().map(|&s| self.r.t.sites.key(s).clone()).collect()
    }

    fn canon_obj(&self, o: &Obj) -> CanonObj {
        (self.r.t.sites.key(o.0).clone(), self.canon_ctx(&o.1))
    }

    fn canonical(&self) -> Canonical {
        let mut out = Canonical::default();
        for (m, c) in &self.reach {
            out.reachable.insert((*m, self.canon_ctx(c)));
        }
        for (m, c, s, k, t, tc) in &self.edges {
            out.edges
                .insert((*m, self.canon_ctx(c), *s, *k, *t, self.canon_ctx(tc)));
        }
        for (p, set) in &self.pts {
            if set.is_empty() {
                continue;
            }
            let key = match p {
                P::Var(m, c, s) => CanonPtr::Var(*m, self.canon_ctx(c), *s),
                P::Field(o, f) => {
                    CanonPtr::Field(self.canon_obj(o), self.r.t.fields.key(*f).clone())
                }
                P::Static(f) => CanonPtr::Static(self.r.t.fields.key(*f).clone()),
                P::Exc => CanonPtr::Exc,
            };
            out.pts
                .insert(key, set.iter().map(|o| self.canon_obj(o)).collect());
        }
        out
    }
}
