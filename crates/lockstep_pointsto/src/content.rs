//! Content models of the non-thread-safe JDK containers
//! ([`crate::Config::container_models`]; the data in
//! `lockstep_models::content`).
//!
//! A call whose receiver object is a modelled container (an instance of a
//! modelled class or of a subclass), dispatched to a method the JDK
//! declares on that class or above it, is not analysed from bytecode when
//! the model knows the method: its effect is a few constraints on the
//! receiver object's synthetic fields (`<container>.elements`, `.values`,
//! `.comparator`), so each container object has contents of its own
//! whatever the context bounds. A method the application overrides runs
//! its own bytecode; a method the model does not know (`size`, `stream`,
//! the `AbstractCollection` helpers iterating `this`) runs the JDK's,
//! whose calls on `this` reach the model again.
//!
//! Views are objects per container (their heap context is the
//! container's receiver context) that share its contents through
//! two-way copy edges and hold it in `<container>.owner`, so escape
//! reaches the elements through them: key sets, values and entry sets
//! are containers of a modelled class; iterators, entries and
//! spliterators are *cursors*, typed by their interface, every call on
//! which the model answers.
//!
//! Only library classes are modelled: a modelled class the application
//! itself declares (the JDK analysed as the program) runs its bytecode.
//!
//! Calls back into the program (a key's `hashCode`/`equals`/`compareTo`,
//! the comparator, functional arguments, `toArray`/`entrySet` on
//! containers the model does not know, to copy from them) are made from
//! the container call's own site: such edges are not RTA's (whose edge
//! from that site goes into the JDK method), which is the one exception
//! to "call edges ⊆ RTA's". The call still has its edge to the JDK method
//! it dispatched to, in the [`SiteKey::Modelled`] context, which has no
//! facts, so the call graph's consumers see the same JDK callee as
//! without models.

use std::sync::Arc;

use lockstep_models::{
    content_class, content_op, cursor_op, param_role, view_class, Callback, ContentClass,
    ContentKind, ContentOp, CursorKind, CursorOp, KeyLookup, ParamRole,
};
use lockstep_program::{ClassId, MethodId};
use rustc_hash::{FxHashMap, FxHashSet};

use super::{Site, Solver, Use, NO_FILTER};
use crate::facts;
use crate::ids::{CtxId, FieldId, MCtxId, ObjId, PtrId, SiteId, TypeId};
use crate::keys::{FieldKey, SiteKey};
use crate::raw::PtrKind;
use lockstep_ir::StmtId;
use lockstep_program::EdgeKind;

/// The class name of the synthetic content fields (no class loads by it,
/// so every object has them and no type filters them).
const CONTAINER: &str = "<container>";

/// A call the model makes: `name desc` on every object of `recv`.
pub(super) struct ModelCall {
    site: Site,
    name: Arc<str>,
    desc: Arc<str>,
    sig: u32,
    recv: PtrId,
    /// Shared: every receiver object of the call reads them.
    args: Arc<[Option<PtrId>]>,
    result: Option<PtrId>,
}

type ModelCallKey = (
    MCtxId,
    StmtId,
    EdgeKind,
    u32,
    PtrId,
    Vec<Option<PtrId>>,
    Option<PtrId>,
);

/// Contents of every object of a pointer copied into a container's fields.
pub(super) struct CopyJob {
    site: Site,
    keys: PtrId,
    values: Option<PtrId>,
}

/// The models' state in the solver.
#[derive(Default)]
pub(super) struct Content {
    calls: Vec<ModelCall>,
    call_ids: FxHashMap<ModelCallKey, u32>,
    copies: Vec<CopyJob>,
    copy_ids: FxHashMap<(PtrId, PtrId, Option<PtrId>), u32>,
    cursors: FxHashMap<SiteId, CursorKind>,
    /// (view, container) pairs already linked.
    linked: FxHashSet<(ObjId, ObjId)>,
    classes: FxHashMap<TypeId, Option<(ClassId, ContentClass)>>,
    model_ctx: Option<CtxId>,
    /// Calls whose effect came from the model.
    pub(super) modelled_calls: u64,
    /// The synthetic content fields by name (asked for on every modelled
    /// call).
    fields: FxHashMap<&'static str, FieldId>,
    /// The same fields as a set.
    field_ids: FxHashSet<FieldId>,
    /// Per (call site, callback, argument position, content field): the
    /// pointer that gathers that content field of every container the
    /// site's calls pass there ([`Solver::funnel`]).
    funnels: FxHashMap<(Site, u32, usize, FieldId), PtrId>,
}

/// The synthetic fields of a container object.
#[derive(Clone, Copy)]
struct Parts {
    keys: PtrId,
    values: PtrId,
}

impl Content {
    /// Distinct calls the models made back into the program.
    pub(super) fn callbacks(&self) -> usize {
        self.calls.len()
    }
}

impl Solver<'_> {
    pub(super) fn content_field(&mut self, name: &'static str) -> FieldId {
        if let Some(&f) = self.content.fields.get(name) {
            return f;
        }
        let f = self.r.t.field(FieldKey::Field {
            class: Arc::from(CONTAINER),
            name: Arc::from(name),
        });
        self.content.fields.insert(name, f);
        self.content.field_ids.insert(f);
        f
    }

    /// The pointer of synthetic field `name` of `o`.
    fn part(&mut self, o: ObjId, name: &'static str) -> PtrId {
        let f = self.content_field(name);
        self.field_ptr(o, f)
    }

    fn parts(&mut self, o: ObjId) -> Parts {
        Parts {
            keys: self.part(o, "elements"),
            values: self.part(o, "values"),
        }
    }

    /// The modelled class `ty` is an instance of, if any. A model stands
    /// for library code only: when the analysed application is the JDK
    /// itself (a `java.base` jmod), its containers are the subject of the
    /// check and run their own bytecode.
    fn content_class_of(&mut self, ty: TypeId) -> Option<(ClassId, ContentClass)> {
        if let Some(c) = self.content.classes.get(&ty) {
            return *c;
        }
        let p = self.r.p;
        let found = self.r.t.types.dispatch_class(ty).and_then(|c| {
            p.superclasses(c).iter().find_map(|&k| {
                let cc = content_class(&p.class(k).name)?;
                (!p.is_application(k)).then_some((k, *cc))
            })
        });
        self.content.classes.insert(ty, found);
        found
    }

    /// Is `o` a cursor (iterator, entry, spliterator) the model made?
    pub(super) fn cursor_kind(&self, o: ObjId) -> Option<CursorKind> {
        if self.content.cursors.is_empty() {
            return None;
        }
        let site = self.objs.key(o).0;
        self.content.cursors.get(&site).copied()
    }

    /// The effect of `callee` (after dispatch) on container `o`, if the
    /// model gives it: `true` when it did (the call is then not analysed).
    pub(super) fn model_call(
        &mut self,
        site: Site,
        o: ObjId,
        callee: MethodId,
        args: &[Option<PtrId>],
        result: Option<PtrId>,
    ) -> bool {
        let ty = self.obj_ty(o);
        let Some((class, cc)) = self.content_class_of(ty) else {
            return false;
        };
        let p = self.r.p;
        let md = p.method(callee);
        // Only what the JDK declares on the modelled class or above it:
        // an override the application (or a JDK subclass) declares runs.
        let declaring = md.class;
        if declaring != class
            && (Some(declaring) == self.r.t.types.object()
                || !p.supertypes(class).contains(&declaring))
        {
            return false;
        }
        let Some(op) = content_op(cc.kind, &md.name, &md.descriptor) else {
            return false;
        };
        let desc = md.descriptor.clone();
        self.content.modelled_calls += 1;
        self.modelled_edge(site, callee);
        self.apply_content_op(site, o, cc, op, &desc, args, result);
        true
    }

    /// The call graph's edge from `site` to the modelled JDK method.
    fn modelled_edge(&mut self, site: Site, callee: MethodId) {
        let ctx = match self.content.model_ctx {
            Some(c) => c,
            None => {
                let s = self.r.t.named_site(self.r.p, SiteKey::Modelled);
                let c = self.ctx(vec![s]);
                self.content.model_ctx = Some(c);
                c
            }
        };
        let mc = self.modelled_mctx(callee, ctx);
        if self
            .cs_edge_set
            .insert((site.caller, site.stmt, site.kind, mc))
        {
            self.cs_edges.push((site.caller, site.stmt, site.kind, mc));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_content_op(
        &mut self,
        site: Site,
        o: ObjId,
        cc: ContentClass,
        op: ContentOp,
        desc: &str,
        args: &[Option<PtrId>],
        result: Option<PtrId>,
    ) {
        let map = cc.kind == ContentKind::Map;
        let parts = self.parts(o);
        // What `get`-like methods return: a map's values, a collection's elements.
        let main = if map { parts.values } else { parts.keys };
        let roles: Vec<ParamRole> = lockstep_classfile::descriptor::param_types(desc)
            .unwrap_or_default()
            .into_iter()
            .map(|t| param_role(facts::ref_type_name(t).as_deref()))
            .collect();
        let with_role = |role: ParamRole| -> Vec<PtrId> {
            roles
                .iter()
                .zip(args)
                .filter(|(r, _)| **r == role)
                .filter_map(|(_, a)| *a)
                .collect()
        };
        let elements = with_role(ParamRole::Element);
        let arg = |i: usize| args.get(i).copied().flatten();
        let first = elements.first().copied();
        let values = map.then_some(parts.values);
        match op {
            ContentOp::Construct | ContentOp::StoreAll => {
                for src in with_role(ParamRole::Source) {
                    self.copy_contents(site, src, parts.keys, values);
                }
                for cmp in with_role(ParamRole::Comparator) {
                    let c = self.part(o, "comparator");
                    self.add_edge(cmp, c, NO_FILTER);
                }
            }
            ContentOp::Store { new_key } => {
                if map {
                    if let Some(k) = first {
                        if new_key {
                            self.add_edge(k, parts.keys, NO_FILTER);
                        }
                        self.lookup(site, o, cc, k);
                    }
                    for &v in elements.iter().skip(1) {
                        self.add_edge(v, parts.values, NO_FILTER);
                    }
                    if new_key {
                        self.after_insertion(site, o);
                    }
                } else {
                    for &e in &elements {
                        self.add_edge(e, parts.keys, NO_FILTER);
                    }
                    if let (Some(k), KeyLookup::Hash | KeyLookup::Sorted) = (first, cc.lookup) {
                        self.lookup(site, o, cc, k);
                    }
                }
                self.copy_to(main, result);
            }
            ContentOp::Lookup => {
                if let Some(k) = first {
                    self.lookup(site, o, cc, k);
                }
            }
            ContentOp::Get { lookup } | ContentOp::GetKey { lookup } => {
                if let (true, Some(k)) = (lookup, first) {
                    self.lookup(site, o, cc, k);
                }
                let from = if matches!(op, ContentOp::GetKey { .. }) {
                    parts.keys
                } else {
                    main
                };
                self.copy_to(from, result);
            }
            ContentOp::GetOrDefault => {
                if let Some(k) = first {
                    self.lookup(site, o, cc, k);
                }
                self.copy_to(main, result);
                if let (Some(d), Some(r)) = (elements.get(1), result) {
                    self.add_edge(*d, r, NO_FILTER);
                }
            }
            ContentOp::GetEntry { lookup } => {
                if let (true, Some(k)) = (lookup, first) {
                    self.lookup(site, o, cc, k);
                }
                let e = self.cursor(o, CursorKind::Entry, false);
                self.obj_to(e, result);
            }
            ContentOp::Same => self.obj_to(o, result),
            ContentOp::KeySet | ContentOp::Values | ContentOp::EntrySet => {
                let declared = return_type(desc);
                let v = self.view(o, op, &declared);
                self.obj_to(v, result);
            }
            ContentOp::Iterator => {
                let list = desc.ends_with(")Ljava/util/ListIterator;");
                let c = self.cursor(o, CursorKind::Iterator, list);
                self.obj_to(c, result);
            }
            ContentOp::Spliterator => {
                let c = self.cursor(o, CursorKind::Spliterator, false);
                self.obj_to(c, result);
            }
            ContentOp::ToArray => {
                let a = self.content_array(o);
                self.obj_to(a, result);
                let el = self.r.t.element();
                for a in args.iter().flatten() {
                    if desc.starts_with("([") {
                        self.add_use(*a, Use::Store(el, parts.keys));
                        self.copy_to(*a, result);
                    }
                }
            }
            ContentOp::ForEach => {
                if let Some(f) = arg(0) {
                    if map {
                        let a = [Some(parts.keys), Some(parts.values)];
                        self.callback(site, f, lockstep_models::content::BI_ACCEPT, &a, None);
                    } else {
                        let a = [Some(parts.keys)];
                        self.callback(site, f, lockstep_models::content::ACCEPT, &a, None);
                    }
                }
            }
            ContentOp::RemoveIf => {
                if let Some(f) = arg(0) {
                    let a = [Some(parts.keys)];
                    self.callback(site, f, lockstep_models::content::TEST, &a, None);
                }
            }
            ContentOp::ReplaceAll => {
                if let Some(f) = arg(0) {
                    if map {
                        let a = [Some(parts.keys), Some(parts.values)];
                        let cb = lockstep_models::content::BI_APPLY;
                        self.callback(site, f, cb, &a, Some(parts.values));
                    } else {
                        let a = [Some(parts.keys)];
                        let cb = lockstep_models::content::APPLY;
                        self.callback(site, f, cb, &a, Some(parts.keys));
                    }
                }
            }
            ContentOp::Sort => {
                // `sort(null)` sorts by the elements' natural order.
                let a = [Some(parts.keys)];
                let cb = lockstep_models::content::COMPARE_TO;
                self.callback(site, parts.keys, cb, &a, None);
                if let Some(f) = arg(0) {
                    let a = [Some(parts.keys), Some(parts.keys)];
                    self.callback(site, f, lockstep_models::content::COMPARE, &a, None);
                }
            }
            ContentOp::ComputeIfAbsent | ContentOp::Compute | ContentOp::Merge => {
                self.compute(site, o, cc, op, args, result);
            }
            ContentOp::Comparator => {
                let c = self.part(o, "comparator");
                self.copy_to(c, result);
            }
            ContentOp::HashElements => {
                let cb = lockstep_models::content::HASH_CODE;
                self.callback(site, parts.keys, cb, &[], None);
            }
        }
    }

    /// A `LinkedHashMap` asks itself `removeEldestEntry(eldest)` after
    /// each insertion: a subclass's override (a bounded cache) runs.
    fn after_insertion(&mut self, site: Site, o: ObjId) {
        let (name, desc) = lockstep_models::content::REMOVE_ELDEST;
        let ty = self.obj_ty(o);
        let sig = self.r.t.sig(&Arc::from(name), &Arc::from(desc));
        let Some(t) = self.r.dispatch(ty, sig) else {
            return;
        };
        if self.r.is_jdk_method(t) {
            return;
        }
        let this = self.new_ptr(PtrKind::Temp);
        self.add_obj(this, o);
        let e = self.cursor(o, CursorKind::Entry, false);
        let eldest = self.new_ptr(PtrKind::Temp);
        self.add_obj(eldest, e);
        self.callback(site, this, (name, desc), &[Some(eldest)], None);
    }

    /// `computeIfAbsent`, `compute`/`computeIfPresent` and `merge` of a map.
    fn compute(
        &mut self,
        site: Site,
        o: ObjId,
        cc: ContentClass,
        op: ContentOp,
        args: &[Option<PtrId>],
        result: Option<PtrId>,
    ) {
        let parts = self.parts(o);
        let arg = |i: usize| args.get(i).copied().flatten();
        let Some(k) = arg(0) else {
            return;
        };
        self.lookup(site, o, cc, k);
        self.add_edge(k, parts.keys, NO_FILTER);
        self.after_insertion(site, o);
        let v = Some(parts.values);
        match op {
            ContentOp::ComputeIfAbsent => {
                if let Some(f) = arg(1) {
                    let cb = lockstep_models::content::APPLY;
                    self.callback(site, f, cb, &[Some(k)], v);
                }
            }
            ContentOp::Compute => {
                if let Some(f) = arg(1) {
                    let cb = lockstep_models::content::BI_APPLY;
                    self.callback(site, f, cb, &[Some(k), v], v);
                }
            }
            _ => {
                if let Some(given) = arg(1) {
                    self.add_edge(given, parts.values, NO_FILTER);
                }
                if let Some(f) = arg(2) {
                    let cb = lockstep_models::content::BI_APPLY;
                    self.callback(site, f, cb, &[v, arg(1)], v);
                }
            }
        }
        self.copy_to(parts.values, result);
    }

    /// The calls a container makes on key `k` to find it.
    fn lookup(&mut self, site: Site, o: ObjId, cc: ContentClass, k: PtrId) {
        let keys = Some(self.part(o, "elements"));
        match cc.lookup {
            KeyLookup::Hash => {
                self.callback(site, k, lockstep_models::content::HASH_CODE, &[], None);
                self.callback(site, k, lockstep_models::content::EQUALS, &[keys], None);
            }
            KeyLookup::Sorted => {
                self.callback(site, k, lockstep_models::content::COMPARE_TO, &[keys], None);
                let c = self.part(o, "comparator");
                let cb = lockstep_models::content::COMPARE;
                self.callback(site, c, cb, &[Some(k), keys], None);
            }
            KeyLookup::Equality => {
                self.callback(site, k, lockstep_models::content::EQUALS, &[keys], None);
            }
            KeyLookup::Identity => {}
        }
    }

    fn copy_to(&mut self, from: PtrId, result: Option<PtrId>) {
        if let Some(r) = result {
            self.add_edge(from, r, NO_FILTER);
        }
    }

    fn obj_to(&mut self, o: ObjId, result: Option<PtrId>) {
        if let Some(r) = result {
            self.add_obj(r, o);
        }
    }

    /// The context that tells the model's objects of container `o` apart:
    /// its receiver context (its site and heap context).
    fn part_ctx(&mut self, o: ObjId) -> CtxId {
        self.recv_ctx(o)
    }

    /// A model object of `o` made at `part` of type `ty`, and whether
    /// it is newly linked to `o`.
    fn part_obj(&mut self, o: ObjId, part: &'static str, ty: &str) -> (ObjId, bool) {
        let key = SiteKey::ContainerPart {
            part,
            ty: Arc::from(ty),
        };
        let site = self.r.t.named_site(self.r.p, key);
        let ctx = self.part_ctx(o);
        let v = self.obj(site, ctx);
        let new = self.content.linked.insert((v, o));
        if new {
            let owner = self.part(v, "owner");
            self.add_obj(owner, o);
        }
        (v, new)
    }

    fn link(&mut self, a: PtrId, b: PtrId) {
        self.add_edge(a, b, NO_FILTER);
        self.add_edge(b, a, NO_FILTER);
    }

    /// A key set, values or entry set of map `o`: a container of a
    /// modelled class sharing `o`'s keys or values, or holding its entry.
    fn view(&mut self, o: ObjId, op: ContentOp, declared: &str) -> ObjId {
        let (part, class) = match op {
            ContentOp::KeySet => ("keySet", view_class(declared)),
            ContentOp::Values => ("values", view_class(declared)),
            _ => ("entrySet", view_class(declared)),
        };
        let (v, new) = self.part_obj(o, part, class);
        if new {
            let (mine, theirs) = (self.parts(v), self.parts(o));
            match op {
                ContentOp::KeySet => self.link(mine.keys, theirs.keys),
                ContentOp::Values => self.link(mine.keys, theirs.values),
                _ => {
                    let e = self.cursor(o, CursorKind::Entry, false);
                    self.add_obj(mine.keys, e);
                }
            }
        }
        v
    }

    /// An iterator, spliterator or entry of container `o`, sharing its
    /// elements (an entry: its keys and values).
    fn cursor(&mut self, o: ObjId, kind: CursorKind, list: bool) -> ObjId {
        let part = match kind {
            CursorKind::Iterator if list => "listIterator",
            CursorKind::Iterator => "iterator",
            CursorKind::Entry => "entry",
            CursorKind::Spliterator => "spliterator",
        };
        let (c, new) = self.part_obj(o, part, kind.interface(list));
        if new {
            let site = self.objs.key(c).0;
            self.content.cursors.insert(site, kind);
            let (mine, theirs) = (self.parts(c), self.parts(o));
            self.link(mine.keys, theirs.keys);
            if kind == CursorKind::Entry {
                self.link(mine.values, theirs.values);
            }
        }
        c
    }

    /// The array `toArray()` of container `o` returns.
    fn content_array(&mut self, o: ObjId) -> ObjId {
        let (a, new) = self.part_obj(o, "toArray", lockstep_models::content::OBJECT_ARRAY);
        if new {
            let keys = self.part(o, "elements");
            let el = self.r.t.element();
            let fp = self.field_ptr(a, el);
            self.add_edge(keys, fp, NO_FILTER);
        }
        a
    }

    /// The call graph's edge from `site`, a call of `name desc` declared on
    /// `class` whose receiver is a cursor, to the JDK method it names
    /// (`Iterator.next`, `Map$Entry.getValue`, ...): without it the call
    /// would have no callee, and readers of the call graph would take the
    /// value it returns for one the calling code made or read itself
    /// (`lockstep_facts::instance_confined` looks for results of JDK
    /// calls). Into the [`SiteKey::Modelled`] context, as for containers.
    pub(super) fn cursor_edge(&mut self, site: Site, class: ClassId, name: &str, desc: &str) {
        let p = self.r.p;
        let named = std::iter::once(class)
            .chain(p.supertypes(class).iter().copied())
            .find_map(|k| p.class(k).declared_method(name, desc));
        if let Some(m) = named {
            self.modelled_edge(site, m);
        }
    }

    /// A call on cursor `c` (the model answers every one).
    pub(super) fn cursor_call(
        &mut self,
        site: Site,
        c: ObjId,
        kind: CursorKind,
        name: &str,
        args: &[Option<PtrId>],
        result: Option<PtrId>,
    ) {
        let Some(op) = cursor_op(kind, name) else {
            return;
        };
        self.content.modelled_calls += 1;
        let parts = self.parts(c);
        match op {
            CursorOp::Next => self.copy_to(parts.keys, result),
            CursorOp::Value => self.copy_to(parts.values, result),
            CursorOp::SetValue => {
                if let Some(Some(v)) = args.first() {
                    self.add_edge(*v, parts.values, NO_FILTER);
                }
                self.copy_to(parts.values, result);
            }
            CursorOp::Store => {
                if let Some(Some(v)) = args.last() {
                    self.add_edge(*v, parts.keys, NO_FILTER);
                }
            }
            CursorOp::ForEach => {
                if let Some(Some(f)) = args.first() {
                    let a = [Some(parts.keys)];
                    self.callback(site, *f, lockstep_models::content::ACCEPT, &a, None);
                }
            }
            CursorOp::Same => self.obj_to(c, result),
        }
    }

    /// `name desc` called on every object of `recv` from `site` (once per
    /// distinct call).
    fn callback(
        &mut self,
        site: Site,
        recv: PtrId,
        (name, desc): Callback,
        args: &[Option<PtrId>],
        result: Option<PtrId>,
    ) {
        let (name, desc): (Arc<str>, Arc<str>) = (Arc::from(name), Arc::from(desc));
        let sig = self.r.t.sig(&name, &desc);
        let recv = self.funnel(site, sig, 0, recv);
        let args: Vec<Option<PtrId>> = args
            .iter()
            .enumerate()
            .map(|(i, a)| a.map(|p| self.funnel(site, sig, i + 1, p)))
            .collect();
        let args = &args[..];
        let key = (
            site.caller,
            site.stmt,
            site.kind,
            sig,
            recv,
            args.to_vec(),
            result,
        );
        if self.content.call_ids.contains_key(&key) {
            return;
        }
        let id = self.content.calls.len() as u32;
        self.content.call_ids.insert(key, id);
        self.content.calls.push(ModelCall {
            site,
            name,
            desc,
            sig,
            recv,
            args: Arc::from(args),
            result,
        });
        self.add_use(recv, Use::ModelCall(id));
    }

    /// The pointer a callback from `site` reads in place of `p` (the
    /// receiver, position 0, or an argument) when `p` is a content field
    /// of one container: one pointer per site, callback, position and
    /// field gathers that field of every container the site's calls
    /// reach. The callee's context depends on its receiver object only,
    /// so the callee gets the same objects either way; but a call on a
    /// site whose container pointer holds thousands of containers is
    /// made once, not once per container (each making the call on every
    /// object of its contents: on generic libraries, hundreds of millions
    /// of dispatches).
    fn funnel(&mut self, site: Site, sig: u32, position: usize, p: PtrId) -> PtrId {
        if !self.r.cfg.gather_callback_contents {
            return p;
        }
        let Some(PtrKind::Field(_, f)) = self.kinds.get(p.index()).copied() else {
            return p;
        };
        if !self.content.field_ids.contains(&f) {
            return p;
        }
        let key = (site, sig, position, f);
        let gather = match self.content.funnels.get(&key) {
            Some(&g) => g,
            None => {
                let g = self.new_ptr(PtrKind::Temp);
                self.content.funnels.insert(key, g);
                g
            }
        };
        self.add_edge(p, gather, NO_FILTER);
        gather
    }

    /// A call the model makes gets receiver object `o`.
    pub(super) fn model_call_on(&mut self, id: u32, o: ObjId) {
        // Runs once per receiver object of every call the model makes
        // (millions on large generic libraries): only what each path
        // needs is taken out of the call, the names only where they
        // are read.
        let Some(mc) = self.content.calls.get(id as usize) else {
            return;
        };
        let (site, sig, recv, result) = (mc.site, mc.sig, mc.recv, mc.result);
        let args = Arc::clone(&mc.args);
        let args = &args[..];
        let ty = self.obj_ty(o);
        if let Some(lf) = self.r.lambda_of_type(ty).cloned() {
            let (name, desc) = self.model_call_name(id);
            let args = args.to_vec();
            self.lambda_invoke(site, o, &lf, &name, &desc, Some(recv), args, result);
            return;
        }
        if let Some(kind) = self.cursor_kind(o) {
            let (name, _) = self.model_call_name(id);
            self.cursor_call(site, o, kind, &name, args, result);
            return;
        }
        let Some(t) = self.r.dispatch(ty, sig) else {
            return;
        };
        if self.model_call(site, o, t, args, result) {
            return;
        }
        let ctx = self.callee_ctx(t, o);
        let via = self.via(args, result);
        self.connect(site, t, ctx, Some(o), Some(recv), args, result, via);
    }

    /// The name and descriptor of the model's call `id`.
    fn model_call_name(&self, id: u32) -> (Arc<str>, Arc<str>) {
        self.content
            .calls
            .get(id as usize)
            .map(|mc| (mc.name.clone(), mc.desc.clone()))
            .unwrap_or_else(|| (Arc::from(""), Arc::from("")))
    }

    /// The contents of every container `src` holds copied into `keys`
    /// (and a map's values into `values`).
    fn copy_contents(&mut self, site: Site, src: PtrId, keys: PtrId, values: Option<PtrId>) {
        if self.content.copy_ids.contains_key(&(src, keys, values)) {
            return;
        }
        let id = self.content.copies.len() as u32;
        self.content.copy_ids.insert((src, keys, values), id);
        self.content.copies.push(CopyJob { site, keys, values });
        self.add_use(src, Use::Copy(id));
    }

    /// Copy `id` gets source object `s`: a modelled container's (or
    /// view's) fields directly; any other container through the calls
    /// the JDK's own copy would make (`toArray()`, or a map's
    /// `entrySet().toArray()` and each entry's `getKey()`/`getValue()`).
    pub(super) fn copy_on(&mut self, id: u32, s: ObjId) {
        let Some(cp) = self.content.copies.get(id as usize) else {
            return;
        };
        let (site, keys, values) = (cp.site, cp.keys, cp.values);
        let ty = self.obj_ty(s);
        if self.cursor_kind(s).is_some() || self.content_class_of(ty).is_some() {
            let theirs = self.parts(s);
            self.add_edge(theirs.keys, keys, NO_FILTER);
            if let Some(v) = values {
                self.add_edge(theirs.values, v, NO_FILTER);
            }
            return;
        }
        let t = self.new_ptr(PtrKind::Temp);
        self.add_obj(t, s);
        let el = self.r.t.element();
        match values {
            Some(v) => {
                let entries = self.new_ptr(PtrKind::Temp);
                let cb = lockstep_models::content::ENTRY_SET;
                self.callback(site, t, cb, &[], Some(entries));
                let array = self.new_ptr(PtrKind::Temp);
                let cb = lockstep_models::content::TO_ARRAY;
                self.callback(site, entries, cb, &[], Some(array));
                let entry = self.new_ptr(PtrKind::Temp);
                self.add_use(array, Use::Load(el, entry));
                let cb = lockstep_models::content::GET_KEY;
                self.callback(site, entry, cb, &[], Some(keys));
                let cb = lockstep_models::content::GET_VALUE;
                self.callback(site, entry, cb, &[], Some(v));
            }
            None => {
                let array = self.new_ptr(PtrKind::Temp);
                let cb = lockstep_models::content::TO_ARRAY;
                self.callback(site, t, cb, &[], Some(array));
                self.add_use(array, Use::Load(el, keys));
            }
        }
    }
}

/// The declared return type of a descriptor (its internal name).
fn return_type(desc: &str) -> String {
    lockstep_classfile::descriptor::return_type(desc)
        .and_then(facts::ref_type_name)
        .map(|t| t.to_string())
        .unwrap_or_default()
}
