//! The IR [`Type`]s descriptors denote, with interned class names, and
//! readable class names. Parsing descriptors is `lockstep_classfile`'s
//! [`descriptor`] module; a malformed descriptor makes the caller fail with
//! a `LowerError` rather than guess.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use lockstep_classfile::descriptor;

use crate::ir::Type;

/// FNV-1a: class names are short and not attacker-chosen in a way that
/// matters here (a collision flood only slows one run), and SipHash showed
/// up in profiles.
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Interns class names so that the many `Type::Ref`s of a class share storage.
///
/// Cleared by the owner when it grows, so memory stays bounded over a long run.
#[derive(Default)]
pub(crate) struct Interner {
    set: HashSet<Arc<str>, BuildHasherDefault<Fnv>>,
}

impl Interner {
    pub(crate) fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.set.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        self.set.insert(a.clone());
        a
    }

    pub(crate) fn maybe_clear(&mut self) {
        if self.set.len() > 50_000 {
            self.set.clear();
        }
    }

    /// The IR type of a field descriptor (also return descriptors other than `V`).
    pub(crate) fn type_of(&mut self, desc: &str) -> Type {
        match desc.as_bytes().first() {
            Some(b'J') => Type::Long,
            Some(b'F') => Type::Float,
            Some(b'D') => Type::Double,
            Some(b'L') => {
                let name = desc.get(1..desc.len().saturating_sub(1)).unwrap_or("");
                if name.is_empty() {
                    Type::Ref(None)
                } else {
                    Type::Ref(Some(self.get(name)))
                }
            }
            Some(b'[') => Type::Ref(Some(self.get(desc))),
            _ => Type::Int,
        }
    }
}

/// The element type of an array type descriptor (`[I` → `Int`, `[[I` → `Ref([I)`).
pub(crate) fn element_type(array_desc: &str, interner: &mut Interner) -> Option<Type> {
    let elem = array_desc.strip_prefix('[')?;
    if descriptor::field_len(elem)? != elem.len() {
        return None;
    }
    Some(interner.type_of(elem))
}

/// The array descriptor whose elements are of class `name` (`anewarray`):
/// `java/lang/String` → `[Ljava/lang/String;`, `[I` → `[[I`.
pub(crate) fn array_of_class(name: &str) -> String {
    if name.starts_with('[') {
        format!("[{name}")
    } else {
        format!("[L{name};")
    }
}

/// The simple source name of a class: `com/x/Outer$Inner` → `Outer.Inner`,
/// `[I` → `int[]`, `[Ljava/lang/String;` → `String[]`.
pub fn simple_class_name(name: &str) -> String {
    if let Some(elem) = name.strip_prefix('[') {
        let inner = match elem.as_bytes().first() {
            Some(b'L') => {
                simple_class_name(elem.get(1..elem.len().saturating_sub(1)).unwrap_or(elem))
            }
            Some(b'[') => simple_class_name(elem),
            Some(&code) => descriptor::primitive_name(code).map_or_else(|| elem.into(), Into::into),
            None => elem.into(),
        };
        return format!("{inner}[]");
    }
    let simple = name.rsplit('/').next().unwrap_or(name);
    simple.replace('$', ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(simple_class_name("com/x/Outer$Inner"), "Outer.Inner");
        assert_eq!(simple_class_name("[I"), "int[]");
        assert_eq!(simple_class_name("[[Ljava/lang/String;"), "String[][]");
        assert_eq!(simple_class_name("Foo"), "Foo");
        let mut i = Interner::default();
        assert_eq!(
            element_type("[[I", &mut i),
            Some(Type::Ref(Some("[I".into())))
        );
        assert_eq!(
            element_type("[Ljava/lang/String;", &mut i),
            Some(Type::Ref(Some("java/lang/String".into())))
        );
        assert_eq!(element_type("[J", &mut i), Some(Type::Long));
        assert_eq!(array_of_class("[I"), "[[I");
    }
}
