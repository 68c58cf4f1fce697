//! Runtime types of abstract objects and the subtype test the analysis
//! filters with (casts, catch clauses, dispatch receivers).
//!
//! A type is a loaded class, an array descriptor, the synthetic class of a
//! lambda site, or a class name that does not load. Subtyping follows JVMS
//! §4.10.1.2 / §6.5 `checkcast`: classes by the program's hierarchy;
//! arrays covariantly on reference components, invariantly on primitive
//! ones, and below `Object`, `Cloneable` and `Serializable`; a lambda
//! object below its functional interface, its marker interfaces and
//! `Object`. Whenever a class cannot be loaded the test answers `true`:
//! filtering must never drop an object the program could hold.

use std::sync::Arc;

use lockstep_ir::StmtId;
use lockstep_program::{ClassId, MethodId, Program};
use rustc_hash::FxHashMap;

use crate::ids::TypeId;
use crate::intern::Interner;

/// The supertypes every array has (JVMS §4.10.1.2): language facts, not library models.
const ARRAY_SUPERTYPES: &[&str] = &[
    "java/lang/Object",
    "java/lang/Cloneable",
    "java/io/Serializable",
];
const OBJECT: &str = "java/lang/Object";

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum TypeKey {
    Class(ClassId),
    /// An array descriptor (`[I`, `[Ljava/lang/String;`).
    Array(Arc<str>),
    /// The class of the lambda objects of one `invokedynamic` site.
    Lambda(MethodId, StmtId),
    /// A class name that does not load.
    Unknown(Arc<str>),
}

pub(crate) struct Types {
    keys: Interner<TypeKey, TypeId>,
    /// Supertypes of each lambda type (interface, markers and theirs, `Object`), sorted.
    lambda_supers: FxHashMap<TypeId, Vec<ClassId>>,
    subtype_cache: FxHashMap<(TypeId, TypeId), bool>,
    object: Option<ClassId>,
}

impl Types {
    pub(crate) fn new(p: &Program) -> Types {
        Types {
            keys: Interner::default(),
            lambda_supers: FxHashMap::default(),
            subtype_cache: FxHashMap::default(),
            object: p.class_by_name(OBJECT),
        }
    }

    pub(crate) fn object(&self) -> Option<ClassId> {
        self.object
    }

    pub(crate) fn key(&self, t: TypeId) -> &TypeKey {
        self.keys.key(t)
    }

    pub(crate) fn class(&mut self, c: ClassId) -> TypeId {
        self.keys.intern(TypeKey::Class(c)).0
    }

    /// The type named by an internal class name or an array descriptor.
    pub(crate) fn named(&mut self, p: &Program, name: &str) -> TypeId {
        let key = if name.starts_with('[') {
            TypeKey::Array(Arc::from(name))
        } else {
            match p.class_by_name(name) {
                Some(c) => TypeKey::Class(c),
                None => TypeKey::Unknown(Arc::from(name)),
            }
        };
        self.keys.intern(key).0
    }

    /// The type of a field descriptor (`Ljava/lang/String;`, `[I`), `None` for primitives.
    pub(crate) fn of_descriptor(&mut self, p: &Program, desc: &str) -> Option<TypeId> {
        if desc.starts_with('[') {
            return Some(self.named(p, desc));
        }
        let class = desc.strip_prefix('L')?.strip_suffix(';')?;
        Some(self.named(p, class))
    }

    /// The type of a lambda site's objects, given the classes it implements.
    pub(crate) fn lambda(
        &mut self,
        p: &Program,
        site: (MethodId, StmtId),
        implements: &[ClassId],
    ) -> TypeId {
        let (t, new) = self.keys.intern(TypeKey::Lambda(site.0, site.1));
        if new {
            let mut supers: Vec<ClassId> = Vec::new();
            for &i in implements {
                supers.extend_from_slice(p.supertypes(i));
            }
            supers.extend(self.object);
            supers.sort_unstable();
            supers.dedup();
            self.lambda_supers.insert(t, supers);
        }
        t
    }

    /// Is a value of type `sub` assignable to `sup`? `true` when `sup` does
    /// not load; an object of a class that does not load is taken as a
    /// plain `Object` (see [`Types::class_supers`]).
    pub(crate) fn is_subtype(&mut self, p: &Program, sub: TypeId, sup: TypeId) -> bool {
        if sub == sup {
            return true;
        }
        if let Some(&r) = self.subtype_cache.get(&(sub, sup)) {
            return r;
        }
        let r = self.compute(p, sub, sup);
        self.subtype_cache.insert((sub, sup), r);
        r
    }

    fn compute(&self, p: &Program, sub: TypeId, sup: TypeId) -> bool {
        match (self.keys.key(sub), self.keys.key(sup)) {
            (_, TypeKey::Unknown(_)) => true,
            (TypeKey::Unknown(_), TypeKey::Class(b)) => Some(*b) == self.object,
            (TypeKey::Unknown(_), _) => false,
            (TypeKey::Class(a), TypeKey::Class(b)) => p.is_subtype(*a, *b),
            (TypeKey::Array(_), TypeKey::Class(b)) => {
                ARRAY_SUPERTYPES.contains(&&*p.class(*b).name)
            }
            (TypeKey::Array(a), TypeKey::Array(b)) => array_assignable(p, a, b),
            (TypeKey::Lambda(..), TypeKey::Class(b)) => self
                .lambda_supers
                .get(&sub)
                .is_some_and(|s| s.binary_search(b).is_ok()),
            (TypeKey::Lambda(..), _) => false,
            (TypeKey::Class(_), _) => false,
            (TypeKey::Array(_), _) => false,
        }
    }

    /// The classes and interfaces an object of type `t` is an instance of
    /// (itself included). An object of a class that does not load (a
    /// missing optional dependency, such as JTS's `Geometry` for h2) is
    /// taken as an instance of `Object` only: letting it through every
    /// filter made one such object reach every cast in the program
    /// (h2: a `Geometry` held as a `ReentrantLock`, a `List`, a `Map`...).
    /// Filters naming a class that does not load still keep every object.
    pub(crate) fn class_supers(&self, p: &Program, t: TypeId) -> Vec<ClassId> {
        match self.keys.key(t) {
            TypeKey::Class(c) => p.supertypes(*c).to_vec(),
            TypeKey::Array(_) => ARRAY_SUPERTYPES
                .iter()
                .filter_map(|n| p.class_by_name(n))
                .collect(),
            TypeKey::Lambda(..) => self.lambda_supers.get(&t).cloned().unwrap_or_default(),
            TypeKey::Unknown(_) => self.object.into_iter().collect(),
        }
    }

    /// The class to select virtual methods from for an object of type `t`:
    /// its class, `Object` for arrays, `None` for lambdas and unknown classes.
    pub(crate) fn dispatch_class(&self, t: TypeId) -> Option<ClassId> {
        match self.keys.key(t) {
            TypeKey::Class(c) => Some(*c),
            TypeKey::Array(_) => self.object,
            TypeKey::Lambda(..) | TypeKey::Unknown(_) => None,
        }
    }

    /// The internal name or descriptor of a type, for messages.
    pub(crate) fn name(&self, p: &Program, t: TypeId) -> Arc<str> {
        match self.keys.key(t) {
            TypeKey::Class(c) => p.class(*c).name.clone(),
            TypeKey::Array(d) | TypeKey::Unknown(d) => d.clone(),
            TypeKey::Lambda(m, s) => Arc::from(format!("lambda@{}#{}", p.method_name(*m), s.0)),
        }
    }
}

/// JVMS `checkcast` between two array descriptors.
fn array_assignable(p: &Program, sub: &str, sup: &str) -> bool {
    let (Some(a), Some(b)) = (sub.strip_prefix('['), sup.strip_prefix('[')) else {
        return false;
    };
    component_assignable(p, a, b)
}

fn component_assignable(p: &Program, a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(b'['), Some(b'[')) => array_assignable(p, a, b),
        (Some(b'['), Some(b'L')) => {
            let sup = b.get(1..b.len().saturating_sub(1)).unwrap_or("");
            ARRAY_SUPERTYPES.contains(&sup) || p.class_by_name(sup).is_none()
        }
        (Some(b'L'), Some(b'L')) => {
            let sub = a.get(1..a.len().saturating_sub(1)).unwrap_or("");
            let sup = b.get(1..b.len().saturating_sub(1)).unwrap_or("");
            if sup == OBJECT {
                return true;
            }
            match (p.class_by_name(sub), p.class_by_name(sup)) {
                (Some(x), Some(y)) => p.is_subtype(x, y),
                _ => true,
            }
        }
        // A primitive component only matches itself (handled above).
        _ => false,
    }
}
