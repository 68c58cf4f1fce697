//! Interned allocation sites, fields, types and call signatures, built once
//! per solve and shared by the method templates and the rules.

use std::sync::Arc;

use lockstep_ir::StmtId;
use lockstep_program::{ClassId, MethodId, Program};
use rustc_hash::FxHashSet;

use crate::ids::{FieldId, SiteId, TypeId};
use crate::intern::Interner;
use crate::keys::{FieldKey, SiteKey};
use crate::types::Types;

/// The root of exception classes (JVMS §2.10): a language fact.
const THROWABLE: &str = "java/lang/Throwable";

/// Interned sites, fields and types.
pub(crate) struct Tables {
    pub types: Types,
    pub sites: Interner<SiteKey, SiteId>,
    /// The runtime type of each site's objects.
    pub site_ty: Vec<TypeId>,
    pub fields: Interner<FieldKey, FieldId>,
    /// Method signatures (`name`, `descriptor`) of virtual calls.
    pub sigs: Interner<(Arc<str>, Arc<str>)>,
    /// Allocate exceptions as one object per class ([`Config::merge_exceptions`]).
    pub merge_exceptions: bool,
    /// `java.lang.Throwable`, when it loads.
    pub throwable: Option<ClassId>,
    /// Sites of zero-length arrays, whose element field holds nothing.
    empty_arrays: FxHashSet<SiteId>,
    /// The one site of each field initializer's copies in the constructors.
    pub initializer_sites: crate::initializers::InitializerSites,
}

impl Tables {
    pub(crate) fn new(p: &Program, merge_exceptions: bool) -> Tables {
        let mut fields = Interner::default();
        // Fixed ids: 0 the array element, 1 the unsafe "anywhere" field.
        fields.intern(FieldKey::Element);
        fields.intern(FieldKey::Anywhere);
        Tables {
            types: Types::new(p),
            sites: Interner::default(),
            site_ty: Vec::new(),
            fields,
            sigs: Interner::default(),
            merge_exceptions,
            throwable: p.class_by_name(THROWABLE),
            empty_arrays: FxHashSet::default(),
            initializer_sites: Default::default(),
        }
    }

    pub(crate) fn mark_empty_array(&mut self, s: SiteId) {
        self.empty_arrays.insert(s);
    }

    /// Can nothing be stored into field `f` of the objects of site `s`
    /// (the elements of a zero-length array)?
    pub(crate) fn holds_nothing(&self, s: SiteId, f: FieldId) -> bool {
        f == self.element() && self.empty_arrays.contains(&s)
    }

    pub(crate) fn sig(&mut self, name: &Arc<str>, desc: &Arc<str>) -> u32 {
        self.sigs.intern((name.clone(), desc.clone())).0
    }

    pub(crate) fn element(&self) -> FieldId {
        FieldId::ELEMENT
    }

    pub(crate) fn anywhere(&self) -> FieldId {
        FieldId::ANYWHERE
    }

    pub(crate) fn field(&mut self, key: FieldKey) -> FieldId {
        self.fields.intern(key).0
    }

    /// A site whose objects have type `ty`.
    pub(crate) fn site(&mut self, key: SiteKey, ty: TypeId) -> SiteId {
        let (id, new) = self.sites.intern(key);
        if new {
            self.site_ty.push(ty);
        }
        id
    }

    /// The site of the copies `Object.clone` makes at `stmt` of `method`
    /// of receivers of type `ty` (`SiteKey::Copy`).
    pub(crate) fn copy_site(
        &mut self,
        p: &Program,
        method: MethodId,
        stmt: StmtId,
        ty: TypeId,
    ) -> SiteId {
        let key = SiteKey::Copy {
            method,
            stmt,
            ty: self.types.name(p, ty),
        };
        self.site(key, ty)
    }

    /// A site whose type is implied by its key (constants, opaque, VM and harness objects).
    pub(crate) fn named_site(&mut self, p: &Program, key: SiteKey) -> SiteId {
        if let Some(id) = self.sites.get(&key) {
            return id;
        }
        let name: Arc<str> = match &key {
            SiteKey::Constant(t)
            | SiteKey::Opaque(t)
            | SiteKey::Vm(t)
            | SiteKey::Entry(t)
            | SiteKey::Main(t)
            | SiteKey::Exception(t)
            | SiteKey::Library(t)
            | SiteKey::External { ty: t, .. }
            | SiteKey::ContainerPart { ty: t, .. } => t.clone(),
            other => Arc::from(other.constant_class().unwrap_or("java/lang/Object")),
        };
        let ty = self.types.named(p, &name);
        self.site(key, ty)
    }

    /// Site keys, site type names and the interned fields (looked up by
    /// key in queries), for the result.
    pub(crate) fn into_result_tables(
        self,
        p: &Program,
    ) -> (Vec<SiteKey>, Vec<Arc<str>>, Interner<FieldKey, FieldId>) {
        let site_types = self
            .site_ty
            .iter()
            .map(|&t| self.types.name(p, t))
            .collect();
        (self.sites.into_keys(), site_types, self.fields)
    }
}
