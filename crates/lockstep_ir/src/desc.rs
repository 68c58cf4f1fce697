//! Field and method descriptors, as far as lowering needs them: the
//! parameter list of a method, the category (one or two stack words) of a
//! value, and the IR [`Type`] a descriptor denotes.
//!
//! It does not check that class names are well formed (the class-file
//! parser owns that); a malformed descriptor makes the caller fail with a
//! `LowerError` rather than guess.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::ir::Type;

/// Length of the single field descriptor at the start of `s`, or `None`.
fn one_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while b.get(i) == Some(&b'[') {
        i += 1;
    }
    match b.get(i)? {
        b'B' | b'C' | b'D' | b'F' | b'I' | b'J' | b'S' | b'Z' => Some(i + 1),
        b'L' => {
            // A byte loop: descriptors are short, and `str::find` costs more to set up.
            let semi = b.get(i..)?.iter().position(|&c| c == b';')?;
            Some(i + semi + 1)
        }
        _ => None,
    }
}

/// The parameter descriptors and the return descriptor (`V` for void) of a method descriptor.
pub(crate) fn method_sig(desc: &str) -> Option<(Params<'_>, &str)> {
    let rest = desc.strip_prefix('(')?;
    let close = rest.find(')')?;
    let params = rest.get(..close)?;
    let ret = rest.get(close + 1..)?;
    if ret != "V" && one_len(ret)? != ret.len() {
        return None;
    }
    // Check the parameter list once so the iterator can simply stop at the end.
    let mut p = params;
    while !p.is_empty() {
        let n = one_len(p)?;
        p = p.get(n..)?;
    }
    Some((Params { rest: params }, ret))
}

/// The number of parameters and the return descriptor, in one pass.
pub(crate) fn param_count(desc: &str) -> Option<(usize, &str)> {
    let mut rest = desc.strip_prefix('(')?;
    let mut n = 0;
    loop {
        if let Some(r) = rest.strip_prefix(')') {
            if r != "V" && one_len(r)? != r.len() {
                return None;
            }
            return Some((n, r));
        }
        let l = one_len(rest)?;
        rest = rest.get(l..)?;
        n += 1;
    }
}

/// Iterator over the parameter descriptors of a checked method descriptor.
#[derive(Clone)]
pub(crate) struct Params<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Params<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        let n = one_len(self.rest)?;
        let (head, tail) = (self.rest.get(..n)?, self.rest.get(n..)?);
        self.rest = tail;
        Some(head)
    }
}

/// Is this field descriptor a category-2 (`long`/`double`) value?
pub(crate) fn is_wide(desc: &str) -> bool {
    matches!(desc, "J" | "D")
}

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
    if one_len(elem)? != elem.len() {
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
            Some(b'B') => "byte".into(),
            Some(b'C') => "char".into(),
            Some(b'D') => "double".into(),
            Some(b'F') => "float".into(),
            Some(b'I') => "int".into(),
            Some(b'J') => "long".into(),
            Some(b'S') => "short".into(),
            Some(b'Z') => "boolean".into(),
            _ => elem.into(),
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
    fn sigs() {
        let (p, r) = method_sig("(IJLjava/lang/String;[[D)V").unwrap();
        assert_eq!(
            p.collect::<Vec<_>>(),
            vec!["I", "J", "Ljava/lang/String;", "[[D"]
        );
        assert_eq!(r, "V");
        assert!(method_sig("(I").is_none());
        assert!(method_sig("(Q)V").is_none());
        assert!(method_sig("()Ljava/lang/String").is_none());
        assert_eq!(method_sig("()[I").unwrap().1, "[I");
        assert_eq!(param_count("(IJLjava/lang/String;[[D)V"), Some((4, "V")));
        assert_eq!(param_count("()[I"), Some((0, "[I")));
        assert_eq!(param_count("(I"), None);
        assert_eq!(param_count("(Q)V"), None);
    }

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
