//! Objects that come from outside the analysed code, one abstract object
//! per declaration.
//!
//! - A reference field declared in an application class that no analysed
//!   code stores into (set by reflection, deserialization or a dependency
//!   injector), or that is annotated as injected (`@Inject`, `@Autowired`,
//!   `@Resource`), holds an *external* object of its declared type in
//!   every instance (and for a static field, in the class). Calls, locks
//!   and container accesses through it are then seen: `mLock.lock()` on an
//!   injected `ReentrantLock` names one lock object, a `HashMap` in an
//!   injected field is one map that threads can race on.
//! - Every reference parameter of an entry method holds an external
//!   object of its own: harness arguments of different parameters do not
//!   alias (only what the analysed code does with them can make them).
//!
//! The object is the same for every instance of the field's class (one
//! per declaration, no heap context). Fields whose value is a compile-time
//! constant (`ConstantValue`) and array-typed fields get none.

use std::sync::Arc;

use lockstep_ir::StmtKind;
use lockstep_program::{is_injected, MethodId, Program};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::facts::{field_key, ref_type_name};
use crate::ids::{FieldId, SiteId};
use crate::keys::{FieldKey, SiteKey};
use crate::tables::Tables;

/// Which fields hold an external object, decided once per field.
#[derive(Default)]
pub(crate) struct Externals {
    /// Fields stored into by application code (computed on first use).
    stored: Option<FxHashSet<FieldKey>>,
    sites: FxHashMap<FieldId, Option<SiteId>>,
}

impl Externals {
    /// The external object's site of field `f`, if it has one.
    pub(crate) fn field_site(&mut self, p: &Program, t: &mut Tables, f: FieldId) -> Option<SiteId> {
        if let Some(&s) = self.sites.get(&f) {
            return s;
        }
        let key = t.fields.key(f).clone();
        let site = self
            .external_type(p, &key)
            .map(|(origin, ty)| t.named_site(p, SiteKey::External { origin, ty }));
        self.sites.insert(f, site);
        site
    }

    /// `(origin, declared type)` of a field that gets an external object.
    fn external_type(&mut self, p: &Program, key: &FieldKey) -> Option<(Arc<str>, Arc<str>)> {
        let FieldKey::Field { class, name } = key else {
            return None;
        };
        let c = p.class_by_name(class)?;
        let info = p.class(c);
        if !info.is_application {
            return None;
        }
        let field = info.file.fields.iter().find(|fi| fi.name == *name)?;
        if !field.descriptor.starts_with('L') || field.constant_value.is_some() {
            return None;
        }
        let ty = ref_type_name(&field.descriptor)?;
        let injected = is_injected(&field.annotations);
        if !injected && self.stored(p).contains(key) {
            return None;
        }
        Some((Arc::from(format!("{class}.{name}")), ty))
    }

    fn stored(&mut self, p: &Program) -> &FxHashSet<FieldKey> {
        self.stored.get_or_insert_with(|| stored_fields(p))
    }
}

/// Every field that a store of application code names (after resolution).
fn stored_fields(p: &Program) -> FxHashSet<FieldKey> {
    let mut out = FxHashSet::default();
    for c in p.application_classes() {
        for &m in &p.class(c).methods {
            let Some(body) = p.body(m) else {
                continue;
            };
            for s in &body.stmts {
                match &s.kind {
                    StmtKind::FieldStore { field, .. } | StmtKind::StaticStore { field, .. } => {
                        out.insert(field_key(p, field));
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// The external object of parameter `i` (0 = first declared parameter)
/// of entry method `m`, declared with type `ty`.
pub(crate) fn parameter_key(p: &Program, m: MethodId, i: usize, ty: Arc<str>) -> SiteKey {
    let md = p.method(m);
    let origin = format!(
        "{}.{}{}#{i}",
        p.class(md.class).name,
        md.name,
        md.descriptor
    );
    SiteKey::External {
        origin: Arc::from(origin),
        ty,
    }
}

/// The key of the objects an array from outside holds, when `key` is such
/// an array: the harness's object, or an external object of the same
/// declaration, of the component type.
pub(crate) fn element_key(key: &SiteKey) -> Option<SiteKey> {
    match key {
        SiteKey::Entry(ty) => Some(SiteKey::Entry(component(ty)?)),
        SiteKey::External { origin, ty } => Some(SiteKey::External {
            origin: Arc::from(format!("{origin}[]")),
            ty: component(ty)?,
        }),
        _ => None,
    }
}

/// `[Lpkg/C;` → `pkg/C`, `[[I` → `[I`; `None` for non-arrays and `[I`.
fn component(ty: &str) -> Option<Arc<str>> {
    ref_type_name(ty.strip_prefix('[')?)
}
