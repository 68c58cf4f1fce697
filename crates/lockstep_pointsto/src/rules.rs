//! The analysis' semantics that both solvers share: interned sites, fields
//! and types; method templates; virtual dispatch on an abstract object;
//! which context a callee runs in and which heap context an allocation
//! gets; what a lambda object's methods run; what JDK models add. The
//! solvers differ only in how they reach the fixed point, so testing the
//! fast one against the naive one tests the propagation machinery, and the
//! rules here are written once.

use std::sync::Arc;

use lockstep_classfile::access;
use lockstep_ir::StmtId;
use lockstep_models::{
    builds_lock_parts, builds_synchronized_wrapper, is_jdk_class, keeps_object_contexts,
    runs_in_caller_context, runs_in_caller_context_as_member, HeapEffect,
};
use lockstep_program::{ClassId, MethodId, Program};
use rustc_hash::FxHashMap;

use crate::app_containers;
use crate::config::{Config, LibraryContexts};
use crate::external::Externals;
use crate::facts::{self, Fact, LambdaFact, Template};
use crate::ids::{FieldId, SiteId, TypeId};
use crate::keys::{FieldKey, SiteKey};
use crate::tables::Tables;
use crate::types::TypeKey;

/// How the methods of a class get contexts ([`Rules::receiver_gets_context`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ContextPolicy {
    /// The empty context: JDK code outside the library setting.
    Never,
    /// Their receiver's (or caller's) context: application code, and the
    /// JDK under `LibraryContexts::All`.
    Always,
    /// The JDK containers under `LibraryContexts::Containers`: only on
    /// receivers that belong to the application.
    ApplicationReceivers,
}

/// The lock objects a class's constructors store into `this`: the
/// constructor, the field and the allocation site
/// ([`Rules::constructor_locks`]).
pub(crate) type ConstructorLocks = Arc<[(MethodId, FieldId, SiteId)]>;

/// Shared semantics over one program and configuration.
pub(crate) struct Rules<'p> {
    pub p: &'p Program,
    pub cfg: Config,
    /// Context depth and heap-context depth.
    pub k: usize,
    pub h: usize,
    pub t: Tables,
    templates: FxHashMap<MethodId, Option<Arc<Template>>>,
    lambdas: FxHashMap<(MethodId, StmtId), Arc<LambdaFact>>,
    dispatch_cache: FxHashMap<(TypeId, u32), Option<MethodId>>,
    /// Per class, once: how its methods get contexts.
    context_policy: FxHashMap<ClassId, ContextPolicy>,
    caller_context: FxHashMap<MethodId, bool>,
    /// Per method, once: is it an application container's
    /// ([`Rules::is_app_container_method`])?
    app_containers: FxHashMap<MethodId, bool>,
    app_sites: FxHashMap<SiteId, bool>,
    field_types: FxHashMap<FieldId, Option<TypeId>>,
    field_owners: FxHashMap<FieldId, Option<ClassId>>,
    effects: FxHashMap<MethodId, Arc<[HeapEffect]>>,
    receiver_results: FxHashMap<MethodId, bool>,
    anywhere: FxHashMap<TypeId, Arc<[FieldId]>>,
    class_types: FxHashMap<ClassId, TypeId>,
    externals: Externals,
    /// Per class: the lock objects its constructors store into `this`.
    constructor_locks: FxHashMap<ClassId, ConstructorLocks>,
    /// Methods whose templates were asked for (for prefetching).
    pub templates_built: usize,
}

impl<'p> Rules<'p> {
    pub(crate) fn new(p: &'p Program, cfg: Config) -> Rules<'p> {
        let (k, h) = cfg.depths();
        Rules {
            p,
            cfg,
            k,
            h,
            t: Tables::new(p, cfg.merge_exceptions),
            templates: FxHashMap::default(),
            lambdas: FxHashMap::default(),
            dispatch_cache: FxHashMap::default(),
            context_policy: FxHashMap::default(),
            caller_context: FxHashMap::default(),
            app_containers: FxHashMap::default(),
            app_sites: FxHashMap::default(),
            field_types: FxHashMap::default(),
            field_owners: FxHashMap::default(),
            effects: FxHashMap::default(),
            receiver_results: FxHashMap::default(),
            anywhere: FxHashMap::default(),
            class_types: FxHashMap::default(),
            externals: Externals::default(),
            constructor_locks: FxHashMap::default(),
            templates_built: 0,
        }
    }

    /// The template of `m`, built on first request. `None` for methods
    /// without code and for methods with heap models, whose models replace
    /// their bodies.
    pub(crate) fn template(&mut self, m: MethodId) -> Option<Arc<Template>> {
        if let Some(t) = self.templates.get(&m) {
            return t.clone();
        }
        if !self.effects(m).is_empty() {
            self.templates.insert(m, None);
            return None;
        }
        // JDK code that never gets contexts allocates by type.
        let merge = self.cfg.merge_library_objects
            && is_jdk_class(&self.p.class(self.p.method(m).class).name)
            && !self.class_gets_context(m)
            && !self.runs_in_caller_context(m);
        let share = self.cfg.share_equal_slots;
        let built = facts::build(self.p, &mut self.t, m, merge).map(|mut t| {
            if share {
                crate::equal_slots::share_equal_slots(&mut t);
            }
            Arc::new(t)
        });
        self.templates_built += 1;
        if let Some(t) = &built {
            for l in &t.lambdas {
                self.lambdas.insert(l.site, l.clone());
            }
        }
        self.templates.insert(m, built.clone());
        built
    }

    /// Has `m`'s template been built already?
    pub(crate) fn has_template(&self, m: MethodId) -> bool {
        self.templates.contains_key(&m)
    }

    /// The lambda fact of a lambda type.
    pub(crate) fn lambda_of_type(&self, ty: TypeId) -> Option<&Arc<LambdaFact>> {
        match self.t.types.key(ty) {
            TypeKey::Lambda(m, s) => self.lambdas.get(&(*m, *s)),
            _ => None,
        }
    }

    pub(crate) fn class_type(&mut self, c: ClassId) -> TypeId {
        if let Some(&t) = self.class_types.get(&c) {
            return t;
        }
        let t = self.t.types.class(c);
        self.class_types.insert(c, t);
        t
    }

    pub(crate) fn is_subtype(&mut self, sub: TypeId, sup: TypeId) -> bool {
        self.t.types.is_subtype(self.p, sub, sup)
    }

    /// May an object of type `ty` be the receiver of a call declared in `class`?
    pub(crate) fn receiver_ok(&mut self, ty: TypeId, class: ClassId) -> bool {
        let sup = self.class_type(class);
        self.is_subtype(ty, sup)
    }

    /// Does an object of type `ty` pass a filter (any of `types`)?
    pub(crate) fn accepts(&mut self, ty: TypeId, types: &[TypeId]) -> bool {
        types.iter().any(|&t| self.is_subtype(ty, t))
    }

    /// The declared type of field `f` (of an object of type `obj_ty`, for
    /// array elements: the component type), when it says more than
    /// `Object`: only such objects can be stored there, so the solvers drop
    /// others. This matters for stores the analysis over-approximates
    /// (`Unsafe` writes at unknown offsets, which may hit any field).
    pub(crate) fn field_type(&mut self, f: FieldId, obj_ty: Option<TypeId>) -> Option<TypeId> {
        match self.t.fields.key(f).clone() {
            FieldKey::Element => {
                let TypeKey::Array(desc) = self.t.types.key(obj_ty?).clone() else {
                    return None;
                };
                let component = desc.get(1..)?;
                if component == "Ljava/lang/Object;" {
                    return None;
                }
                self.t.types.of_descriptor(self.p, component)
            }
            FieldKey::Field { class, name } => {
                if let Some(t) = self.field_types.get(&f) {
                    return *t;
                }
                let ty = self.p.class_by_name(&class).and_then(|c| {
                    let desc = self
                        .p
                        .class(c)
                        .file
                        .fields
                        .iter()
                        .find(|fi| fi.name == name)
                        .map(|fi| fi.descriptor.clone())?;
                    if &*desc == "Ljava/lang/Object;" {
                        return None;
                    }
                    self.t.types.of_descriptor(self.p, &desc)
                });
                self.field_types.insert(f, ty);
                ty
            }
            FieldKey::Capture(_) | FieldKey::Anywhere => None,
        }
    }

    /// The class declaring field `f`, when it is a declared field whose class
    /// loads: only its instances have the field, so a load or store through
    /// a pointer that also holds other objects skips those.
    pub(crate) fn field_owner(&mut self, f: FieldId) -> Option<ClassId> {
        if let Some(o) = self.field_owners.get(&f) {
            return *o;
        }
        let owner = match self.t.fields.key(f) {
            FieldKey::Field { class, .. } => self.p.class_by_name(class),
            _ => None,
        };
        self.field_owners.insert(f, owner);
        owner
    }

    /// Virtual method selection on an object of type `ty` (not a lambda)
    /// for the signature `sig` ([`Tables::sig`]).
    pub(crate) fn dispatch(&mut self, ty: TypeId, sig: u32) -> Option<MethodId> {
        if let Some(&r) = self.dispatch_cache.get(&(ty, sig)) {
            return r;
        }
        let (name, desc) = self.t.sigs.key(sig).clone();
        let r = self
            .t
            .types
            .dispatch_class(ty)
            .and_then(|c| self.p.dispatch(c, &name, &desc));
        self.dispatch_cache.insert((ty, sig), r);
        r
    }

    /// The method a lambda object runs for `name desc` when that is not
    /// its functional method: a default method of its interface, or Object's.
    pub(crate) fn lambda_other(
        &mut self,
        lf: &LambdaFact,
        name: &str,
        desc: &str,
    ) -> Option<MethodId> {
        let target = match lf.interface {
            Some(i) => self.p.resolve_interface_method(i, name, desc),
            None => self
                .t
                .types
                .object()
                .and_then(|o| self.p.dispatch(o, name, desc)),
        };
        target.filter(|&t| {
            let md = self.p.method(t);
            !md.is_abstract() && !md.is_static()
        })
    }

    /// Does `m`'s class get contexts under the library setting (before
    /// looking at the receiver)?
    fn class_gets_context(&mut self, m: MethodId) -> bool {
        self.context_policy(m) != ContextPolicy::Never
    }

    /// How the methods of `m`'s class get contexts, worked out once per
    /// class (asked for every receiver object of every call).
    fn context_policy(&mut self, m: MethodId) -> ContextPolicy {
        if self.k == 0 {
            return ContextPolicy::Never;
        }
        let class = self.p.method(m).class;
        if let Some(&policy) = self.context_policy.get(&class) {
            return policy;
        }
        let name = &self.p.class(class).name;
        let policy = if !is_jdk_class(name) {
            ContextPolicy::Always
        } else {
            match self.cfg.library {
                LibraryContexts::All => ContextPolicy::Always,
                LibraryContexts::Containers if keeps_object_contexts(name) => {
                    ContextPolicy::ApplicationReceivers
                }
                LibraryContexts::Containers | LibraryContexts::None => ContextPolicy::Never,
            }
        };
        self.context_policy.insert(class, policy);
        policy
    }

    /// Is `m` JDK code (by its class's name, as every JDK rule here)?
    pub(crate) fn is_jdk_method(&self, m: MethodId) -> bool {
        is_jdk_class(&self.p.class(self.p.method(m).class).name)
    }

    /// Does `m` run in its caller's context as a member of a listed JDK
    /// package or class (stream pipelines), not by its own name?
    pub(crate) fn is_caller_context_member(&mut self, m: MethodId) -> bool {
        self.runs_in_caller_context(m)
            && runs_in_caller_context_as_member(&self.p.class(self.p.method(m).class).name)
    }

    /// Do `m`'s contexts count against the JDK share of the bound
    /// ([`Config::max_library_contexts`])? JDK methods do, except those
    /// running in their caller's context: their copies are the caller's,
    /// keeping application callers apart as the caller's own context does.
    pub(crate) fn spends_library_share(&mut self, m: MethodId) -> bool {
        is_jdk_class(&self.p.class(self.p.method(m).class).name) && !self.runs_in_caller_context(m)
    }

    /// Is `m` a JDK lock method that builds or hands out its receiver's
    /// parts (`lockstep_models::builds_lock_parts`), a JDK method making
    /// a synchronized wrapper (`lockstep_models::builds_synchronized_wrapper`:
    /// `Collections.synchronizedMap` and the wrappers' constructors), or, with
    /// [`Config::constructors_per_object`], a constructor of an application
    /// class? Those keep their receiver's context (a static factory: its
    /// caller's) over the bounds on contexts, so that each lock of the
    /// application keeps a synchronizer and views of its own, each
    /// synchronized wrapper is allocated in the context of the method that
    /// asked for it (its heap context names the object that made it, not
    /// the shared over-budget context), and each object keeps the fields
    /// its own construction stored. (Other JDK constructors stay bounded:
    /// the JDK containers' other methods are, so per-object constructors
    /// would keep apart only what `add` merges again.)
    pub(crate) fn exempt_from_bounds(&mut self, m: MethodId) -> bool {
        let md = self.p.method(m);
        let class = &self.p.class(md.class).name;
        if is_jdk_class(class) {
            builds_lock_parts(class, &md.name) || builds_synchronized_wrapper(class, &md.name)
        } else if self.cfg.constructors_per_object && &*md.name == "<init>" {
            true
        } else {
            self.cfg.containers_per_object && self.is_app_container_method(m)
        }
    }

    /// Is `m` a method of an application container that keeps its
    /// receiver's context over the bounds ([`crate::app_containers`])?
    /// Decided once per method.
    fn is_app_container_method(&mut self, m: MethodId) -> bool {
        if let Some(&b) = self.app_containers.get(&m) {
            return b;
        }
        let b = app_containers::keeps_receiver_context(self.p, m);
        self.app_containers.insert(m, b);
        b
    }

    /// Does `m` run in the context of the method calling it, whatever its
    /// receiver (`lockstep_models::callbacks`: JDK code that calls back
    /// into what its caller hands it)? Only when JDK code gets contexts at all.
    pub(crate) fn runs_in_caller_context(&mut self, m: MethodId) -> bool {
        if self.k == 0 || self.cfg.library == LibraryContexts::None {
            return false;
        }
        if let Some(&b) = self.caller_context.get(&m) {
            return b;
        }
        let md = self.p.method(m);
        let class = &self.p.class(md.class).name;
        let b = runs_in_caller_context(class, &md.name, &md.descriptor);
        self.caller_context.insert(m, b);
        b
    }

    /// The lock objects the constructors of `class` (and of its
    /// application superclasses) store into fields of `this`: a `new` of
    /// a plain lock class (`Object`, `ReentrantLock`,
    /// `ReentrantReadWriteLock`) stored straight into a field, as in
    /// `private final Object mutex = new Object()`. The harness's receiver
    /// object of a class stands for an object some outside caller made,
    /// so one of its constructors ran on it; when every `new` of the
    /// class is reached from a `main`, no constructor runs on the
    /// harness's object, its lock fields point nowhere, and its entries'
    /// locks name no object (jgroups' `Queue`). Each comes with the
    /// constructor that makes it, so the solvers give it the heap context
    /// that constructor would on the harness's object. Only the lock objects are
    /// given to it: running the whole constructors on every harness
    /// object costs h2 40% more points-to facts and merges contexts past
    /// their bounds (measured in session 20).
    pub(crate) fn constructor_locks(&mut self, class: ClassId) -> ConstructorLocks {
        if let Some(found) = self.constructor_locks.get(&class) {
            return found.clone();
        }
        let p = self.p;
        let mut out = Vec::new();
        for &k in p.superclasses(class) {
            if !p.class(k).is_application {
                break;
            }
            for &m in &p.class(k).methods {
                if !p.method(m).is_constructor() {
                    continue;
                }
                if let Some(t) = self.template(m) {
                    out.extend(
                        self.lock_stores(&t)
                            .into_iter()
                            .map(|(f, site)| (m, f, site)),
                    );
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        let found: ConstructorLocks = out.into();
        self.constructor_locks.insert(class, found.clone());
        found
    }

    /// `this.f = new L()` stores of template `t` whose `L` is a plain lock
    /// class.
    fn lock_stores(&self, t: &Template) -> Vec<(FieldId, SiteId)> {
        let Some(this) = t.this_slot else {
            return Vec::new();
        };
        let allocated: FxHashMap<u32, SiteId> = t
            .facts
            .iter()
            .filter_map(|f| match f {
                Fact::New { dst, site } if self.is_plain_lock(*site) => Some((*dst, *site)),
                _ => None,
            })
            .collect();
        t.facts
            .iter()
            .filter_map(|f| match f {
                Fact::Store { base, field, src } if *base == this => {
                    allocated.get(src).map(|&site| (*field, site))
                }
                _ => None,
            })
            .collect()
    }

    fn is_plain_lock(&self, site: SiteId) -> bool {
        let name = self.t.types.name(self.p, self.site_type(site));
        lockstep_models::is_plain_lock_class(&name)
    }

    /// The context of a static entry method (`main`): none when the
    /// analysis has no contexts, else its class's `SiteKey::Main`. Not
    /// the empty context, which the JDK code without contexts runs in: the
    /// JDK methods `main` calls that run in their caller's context would
    /// otherwise share their copy (and its callbacks) with the whole JDK.
    pub(crate) fn static_entry_context(&mut self, m: MethodId) -> Option<SiteId> {
        if self.k == 0 {
            return None;
        }
        let class = self.p.class(self.p.method(m).class).name.clone();
        Some(self.t.named_site(self.p, SiteKey::Main(class)))
    }

    /// Is the static method `m` analysed in its caller's context (rather
    /// than the empty one)?
    pub(crate) fn static_gets_context(&mut self, m: MethodId) -> bool {
        self.class_gets_context(m)
    }

    /// Does `callee`, called on an object of site `site` whose heap context
    /// is empty or not, run in that object's context (rather than the
    /// empty one)? Application code always does; JDK code per
    /// [`LibraryContexts`], where `Containers` asks in addition that the
    /// receiver belong to the application: allocated in application code,
    /// or in a method running in a context, or a harness object. JDK-internal
    /// collections then share one context, so the JDK's own bookkeeping is
    /// not cloned per collection.
    pub(crate) fn receiver_gets_context(
        &mut self,
        callee: MethodId,
        site: SiteId,
        heap_empty: bool,
    ) -> bool {
        match self.context_policy(callee) {
            ContextPolicy::Never => false,
            ContextPolicy::Always => true,
            ContextPolicy::ApplicationReceivers => !heap_empty || self.site_in_application(site),
        }
    }

    /// Are the site's objects from outside the analysed code (the
    /// harness's, an external declaration's, an opaque result)?
    pub(crate) fn is_outside_site(&self, site: SiteId) -> bool {
        matches!(
            self.t.sites.key(site),
            SiteKey::Entry(_) | SiteKey::External { .. } | SiteKey::Opaque(_)
        )
    }

    /// Is the site an allocation in non-JDK code or a harness object?
    pub(crate) fn site_in_application(&mut self, site: SiteId) -> bool {
        if let Some(&b) = self.app_sites.get(&site) {
            return b;
        }
        let b = match self.t.sites.key(site) {
            SiteKey::Alloc { method, .. }
            | SiteKey::Lambda { method, .. }
            | SiteKey::ConstructorRef { method, .. } => {
                !is_jdk_class(&self.p.class(self.p.method(*method).class).name)
            }
            SiteKey::Entry(_) | SiteKey::External { .. } => true,
            _ => false,
        };
        self.app_sites.insert(site, b);
        b
    }

    /// Do `Unsafe` accesses at untracked offsets that `caller` makes in the
    /// empty context reach only objects the JDK made? They do when the
    /// analysis has contexts and the caller is JDK code: JDK code running
    /// without contexts sees, through its shared variables, every object
    /// any JDK-internal caller handed it, and an untracked-offset store on
    /// each writes every reference field of each, so one
    /// `putReference(o, offset, v)` would store every such object into
    /// every field of every application object (on h2, an h2 server
    /// thread became the `onClose` action of every stream the JDK closes).
    /// The JDK writes application fields at offsets only through field
    /// updaters and `VarHandle`s, which application code calls, in its own
    /// contexts.
    pub(crate) fn unsafe_skips_application(&mut self, caller: MethodId, empty: bool) -> bool {
        self.k > 0 && empty && is_jdk_class(&self.p.class(self.p.method(caller).class).name)
    }

    /// The heap effects modelled for `m` (after dispatch).
    pub(crate) fn effects(&mut self, m: MethodId) -> Arc<[HeapEffect]> {
        if let Some(e) = self.effects.get(&m) {
            return e.clone();
        }
        let md = self.p.method(m);
        let class = &self.p.class(md.class).name;
        let e: Arc<[HeapEffect]> = lockstep_models::heap_effects(class, &md.name, &md.descriptor)
            .into_iter()
            .map(|h| h.effect)
            .collect();
        self.effects.insert(m, e.clone());
        e
    }

    /// Does `m` (after dispatch) return its receiver
    /// (`lockstep_models::returns_receiver`)? Then a call's result is the
    /// receiver object bound to that call, not the callee's return value,
    /// and the body stays analysed.
    pub(crate) fn returns_receiver(&mut self, m: MethodId) -> bool {
        if let Some(&b) = self.receiver_results.get(&m) {
            return b;
        }
        let md = self.p.method(m);
        let b = !md.is_static()
            && lockstep_models::returns_receiver(&self.p.class(md.class).name, &md.descriptor);
        self.receiver_results.insert(m, b);
        b
    }

    /// Does `m` (after dispatch) return a shallow copy of its receiver
    /// (`HeapEffect::CopiesReceiver`, `Object.clone`)?
    pub(crate) fn copies_receiver(&mut self, m: MethodId) -> bool {
        self.effects(m).contains(&HeapEffect::CopiesReceiver)
    }

    /// The fields an offset-addressed `Unsafe` access on an object of type
    /// `ty` may touch: the elements of an array; every instance reference
    /// field of a class (and the catch-all field) otherwise.
    pub(crate) fn anywhere_fields(&mut self, ty: TypeId) -> Arc<[FieldId]> {
        if let Some(f) = self.anywhere.get(&ty) {
            return f.clone();
        }
        let mut keys = Vec::new();
        let ids: Arc<[FieldId]> = match self.t.types.key(ty).clone() {
            TypeKey::Array(_) => Arc::from(vec![self.t.element()]),
            other => {
                if let TypeKey::Class(c) = other {
                    for &k in self.p.superclasses(c) {
                        let info = self.p.class(k);
                        for f in &info.file.fields {
                            let is_static = f.access_flags & access::STATIC != 0;
                            let is_ref =
                                f.descriptor.starts_with('L') || f.descriptor.starts_with('[');
                            if !is_static && is_ref {
                                keys.push(FieldKey::Field {
                                    class: info.name.clone(),
                                    name: f.name.clone(),
                                });
                            }
                        }
                    }
                }
                let mut ids: Vec<FieldId> = keys.into_iter().map(|k| self.t.field(k)).collect();
                ids.push(self.t.anywhere());
                Arc::from(ids)
            }
        };
        self.anywhere.insert(ty, ids.clone());
        ids
    }

    /// The site of the external object field `f` holds in an object of
    /// type `obj_ty` (`None` for static fields), if any
    /// ([`crate::external`]): only objects that have the field get one.
    pub(crate) fn external_field_site(
        &mut self,
        f: FieldId,
        obj_ty: Option<TypeId>,
    ) -> Option<SiteId> {
        let site = self.externals.field_site(self.p, &mut self.t, f)?;
        if let (Some(ty), Some(owner)) = (obj_ty, self.field_owner(f)) {
            if !self.receiver_ok(ty, owner) {
                return None;
            }
        }
        Some(site)
    }

    /// The runtime type of a site's objects.
    pub(crate) fn site_type(&self, s: SiteId) -> TypeId {
        self.t.site_ty[s.index()]
    }

    /// The declared return type of `m` when it is a reference.
    pub(crate) fn return_type(&self, m: MethodId) -> Option<Arc<str>> {
        let d = &self.p.method(m).descriptor;
        lockstep_classfile::descriptor::return_type(d).and_then(facts::ref_type_name)
    }
}

/// The context a method called on an object runs in: the object's site,
/// then its heap context, cut to `k` elements.
pub(crate) fn receiver_context<T: Clone>(k: usize, site: &T, heap: &[T]) -> Vec<T> {
    let mut c = Vec::with_capacity(k);
    if k > 0 {
        c.push(site.clone());
        c.extend(heap.iter().take(k - 1).cloned());
    }
    c
}

/// The heap context of an object allocated in a method running in `ctx`.
pub(crate) fn heap_context<T: Clone>(h: usize, ctx: &[T]) -> Vec<T> {
    ctx.iter().take(h).cloned().collect()
}
