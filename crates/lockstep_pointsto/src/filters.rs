//! Type filters with object masks.
//!
//! A filter keeps the objects of any of a list of types: a variable's
//! declared type, a cast, the types a handler catches. Propagation through
//! a filter is a word-wise intersection with the filter's *mask*, the set
//! of every object created so far whose type passes. Masks grow with the
//! objects: a new object type is matched once against the filters naming
//! one of its supertypes (an index by class), and a new filter once
//! against the object types below the classes it names, so maintenance
//! costs about the size of the hierarchy above each type, not the product
//! of types and filters.

use std::sync::Arc;

use lockstep_program::ClassId;
use rustc_hash::FxHashMap;

use crate::ids::TypeId;
use crate::intern::Interner;
use crate::pts::Mask;
use crate::rules::Rules;
use crate::types::TypeKey;

pub(crate) struct Filters {
    lists: Interner<Arc<[TypeId]>>,
    pub(crate) masks: Vec<Mask>,
    single: FxHashMap<TypeId, u32>,
    objs_of_type: FxHashMap<TypeId, Vec<u32>>,
    filters_of_type: FxHashMap<TypeId, Vec<u32>>,
    /// For each class, the object types seen so far that are below it.
    types_below: FxHashMap<ClassId, Vec<TypeId>>,
    /// Array object types seen so far (array filters check them one by one).
    array_types: Vec<TypeId>,
    /// Filters by the classes they name.
    by_class: FxHashMap<ClassId, Vec<u32>>,
    /// Filters naming an array or an unknown class.
    other_filters: Vec<u32>,
    /// The filter with no type, which keeps nothing.
    nothing: Option<u32>,
}

impl Filters {
    pub(crate) fn new() -> Filters {
        Filters {
            lists: Interner::default(),
            masks: Vec::new(),
            single: FxHashMap::default(),
            objs_of_type: FxHashMap::default(),
            filters_of_type: FxHashMap::default(),
            types_below: FxHashMap::default(),
            array_types: Vec::new(),
            by_class: FxHashMap::default(),
            other_filters: Vec::new(),
            nothing: None,
        }
    }

    /// Registers a new object `o` of type `ty`, adding it to the masks that keep it.
    pub(crate) fn add_object(&mut self, r: &mut Rules<'_>, o: u32, ty: TypeId) {
        if !self.objs_of_type.contains_key(&ty) {
            let mut keep: Vec<u32> = Vec::new();
            for s in r.t.types.class_supers(r.p, ty) {
                self.types_below.entry(s).or_default().push(ty);
                if let Some(fs) = self.by_class.get(&s) {
                    keep.extend_from_slice(fs);
                }
            }
            for &f in &self.other_filters {
                if r.accepts(ty, self.lists.key(f)) {
                    keep.push(f);
                }
            }
            if matches!(r.t.types.key(ty), TypeKey::Array(_)) {
                self.array_types.push(ty);
            }
            keep.sort_unstable();
            keep.dedup();
            self.filters_of_type.insert(ty, keep);
            self.objs_of_type.insert(ty, Vec::new());
        }
        if let Some(v) = self.objs_of_type.get_mut(&ty) {
            v.push(o);
        }
        if let Some(fs) = self.filters_of_type.get(&ty) {
            for &f in fs {
                self.masks[f as usize].insert(o);
            }
        }
    }

    /// The filter keeping objects of any of `types`.
    pub(crate) fn filter(&mut self, r: &mut Rules<'_>, types: &Arc<[TypeId]>) -> u32 {
        let (f, new) = self.lists.intern(types.clone());
        if !new {
            return f;
        }
        if types.is_empty() {
            self.nothing = Some(f);
            self.masks.push(Mask::new());
            return f;
        }
        let mut accepted: Vec<TypeId> = Vec::new();
        let mut other = false;
        for &t in types.iter() {
            match r.t.types.key(t).clone() {
                TypeKey::Class(c) => {
                    self.by_class.entry(c).or_default().push(f);
                    if let Some(v) = self.types_below.get(&c) {
                        accepted.extend_from_slice(v);
                    }
                }
                TypeKey::Array(_) => {
                    other = true;
                    for &a in &self.array_types {
                        if r.is_subtype(a, t) {
                            accepted.push(a);
                        }
                    }
                }
                TypeKey::Unknown(_) | TypeKey::Lambda(..) => {
                    other = true;
                    accepted.extend(self.objs_of_type.keys().copied());
                }
            }
        }
        if other {
            self.other_filters.push(f);
        }
        accepted.sort_unstable();
        accepted.dedup();
        let mut mask = Mask::new();
        for ty in accepted {
            if let Some(v) = self.filters_of_type.get_mut(&ty) {
                v.push(f);
            }
            if let Some(objs) = self.objs_of_type.get(&ty) {
                for &o in objs {
                    mask.insert(o);
                }
            }
        }
        self.masks.push(mask);
        f
    }

    /// The filter keeping nothing.
    pub(crate) fn nothing(&mut self, r: &mut Rules<'_>) -> u32 {
        self.filter(r, &Arc::from(Vec::new()))
    }

    /// The filter of a single type.
    pub(crate) fn single(&mut self, r: &mut Rules<'_>, ty: TypeId) -> u32 {
        if let Some(&f) = self.single.get(&ty) {
            return f;
        }
        let f = self.filter(r, &Arc::from(vec![ty]));
        self.single.insert(ty, f);
        f
    }
}
