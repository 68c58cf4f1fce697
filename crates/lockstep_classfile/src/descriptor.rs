//! Field and method descriptors (JVMS §4.3.2–4.3.3): the one parser every
//! layer uses, for lowering (parameter lists, stack categories), the
//! program model (parameter and return types) and the reports (readable
//! parameter lists).
//!
//! Descriptors come from untrusted class files. Nothing here panics: a
//! malformed descriptor gives `None`, and the caller decides whether that
//! is an error (lowering) or text shown verbatim (reports). Class names are
//! not checked unless asked ([`is_valid_class_name`]).

/// The JVM's limit on array dimensions (JVMS §4.3.2).
pub const MAX_ARRAY_DIMENSIONS: usize = 255;

/// Length of the single field descriptor at the start of `s`, or `None`
/// when `s` does not start with one.
pub fn field_len(s: &str) -> Option<usize> {
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

/// Is all of `s` a sequence of field descriptors?
fn all_fields(mut s: &str) -> bool {
    while !s.is_empty() {
        match field_len(s).and_then(|n| s.get(n..)) {
            Some(rest) => s = rest,
            None => return false,
        }
    }
    true
}

/// Is `ret` a return descriptor: `V` or exactly one field descriptor?
fn is_return(ret: &str) -> bool {
    ret == "V" || field_len(ret) == Some(ret.len())
}

/// The parameter part (between the parentheses) and the rest of a method
/// descriptor, unchecked.
fn split(desc: &str) -> Option<(&str, &str)> {
    let rest = desc.strip_prefix('(')?;
    let close = rest.find(')')?;
    Some((rest.get(..close)?, rest.get(close + 1..)?))
}

/// The parameter descriptors and the return descriptor (`V` for void) of a
/// method descriptor, both checked.
pub fn method_sig(desc: &str) -> Option<(Params<'_>, &str)> {
    let (params, ret) = split(desc)?;
    if !is_return(ret) || !all_fields(params) {
        return None;
    }
    Some((Params { rest: params }, ret))
}

/// The number of parameters and the return descriptor, checked, in one
/// pass (lowering asks this at every call).
pub fn param_count(desc: &str) -> Option<(usize, &str)> {
    let mut rest = desc.strip_prefix('(')?;
    let mut n = 0;
    loop {
        if let Some(r) = rest.strip_prefix(')') {
            return is_return(r).then_some((n, r));
        }
        let l = field_len(rest)?;
        rest = rest.get(l..)?;
        n += 1;
    }
}

/// The parameter descriptors of a method descriptor, in order; the return
/// descriptor is not checked.
pub fn param_types(desc: &str) -> Option<Vec<&str>> {
    let (params, _) = split(desc)?;
    all_fields(params).then(|| Params { rest: params }.collect())
}

/// The return descriptor (`V` for void), unchecked but non-empty.
pub fn return_type(desc: &str) -> Option<&str> {
    let close = desc.find(')')?;
    desc.get(close + 1..).filter(|r| !r.is_empty())
}

/// Iterator over the parameter descriptors of a checked method descriptor.
#[derive(Clone, Debug)]
pub struct Params<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Params<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        let n = field_len(self.rest)?;
        let (head, tail) = (self.rest.get(..n)?, self.rest.get(n..)?);
        self.rest = tail;
        Some(head)
    }
}

/// The internal class name of an object field descriptor
/// (`Ljava/lang/Runnable;` → `java/lang/Runnable`). Arrays and primitives
/// give `None`.
pub fn class_of(field_desc: &str) -> Option<&str> {
    field_desc.strip_prefix('L')?.strip_suffix(';')
}

/// Is this field descriptor a category-2 (`long`/`double`) value?
pub fn is_wide(desc: &str) -> bool {
    matches!(desc, "J" | "D")
}

/// The Java name of a primitive descriptor character (`I` → `int`).
pub fn primitive_name(code: u8) -> Option<&'static str> {
    Some(match code {
        b'B' => "byte",
        b'C' => "char",
        b'D' => "double",
        b'F' => "float",
        b'I' => "int",
        b'J' => "long",
        b'S' => "short",
        b'Z' => "boolean",
        _ => return None,
    })
}

/// The number of leading `[` of a field descriptor and the element
/// descriptor after them: `[[I` → `(2, "I")`.
pub fn array_dims(field_desc: &str) -> (usize, &str) {
    let element = field_desc.trim_start_matches('[');
    (field_desc.len() - element.len(), element)
}

/// Is `internal` a class name in internal form (JVMS §4.2.1): non-empty
/// `/`-separated segments without `.`, `;`, `[`, `(` or `)`?
pub fn is_valid_class_name(internal: &str) -> bool {
    !(internal.split('/').any(str::is_empty) || internal.contains(['.', ';', '[', '(', ')']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_signatures() {
        let (p, r) = method_sig("(IJLjava/lang/String;[[D)V").unwrap();
        assert_eq!(
            p.collect::<Vec<_>>(),
            vec!["I", "J", "Ljava/lang/String;", "[[D"]
        );
        assert_eq!(r, "V");
        assert!(method_sig("(I").is_none());
        assert!(method_sig("(Q)V").is_none());
        assert!(method_sig("()Ljava/lang/String").is_none());
        assert!(method_sig("(I)VV").is_none());
        assert_eq!(method_sig("()[I").unwrap().1, "[I");
        assert_eq!(param_count("(IJLjava/lang/String;[[D)V"), Some((4, "V")));
        assert_eq!(param_count("()[I"), Some((0, "[I")));
        assert_eq!(param_count("(I"), None);
        assert_eq!(param_count("(Q)V"), None);
        assert_eq!(param_count("(I)Q"), None);
    }

    #[test]
    fn parameter_and_return_types() {
        assert_eq!(
            param_types("(I[JLjava/lang/String;[[Lx;D)V").unwrap(),
            vec!["I", "[J", "Ljava/lang/String;", "[[Lx;", "D"]
        );
        assert_eq!(param_types("()V").unwrap(), Vec::<&str>::new());
        // The return type is not this function's business.
        assert_eq!(param_types("(I)Q").unwrap(), vec!["I"]);
        assert!(param_types("(Q)V").is_none());
        assert!(param_types("(Lx").is_none());
        assert_eq!(
            return_type("()Ljava/lang/Runnable;"),
            Some("Ljava/lang/Runnable;")
        );
        assert_eq!(return_type("()"), None);
        assert_eq!(class_of("Ljava/lang/Runnable;"), Some("java/lang/Runnable"));
        assert_eq!(class_of("[Lx;"), None);
    }

    #[test]
    fn pieces() {
        assert_eq!(field_len("[[Lx;I"), Some(5));
        assert_eq!(field_len("[é"), None);
        assert_eq!(field_len(""), None);
        assert_eq!(array_dims("[[I"), (2, "I"));
        assert_eq!(array_dims("Lx;"), (0, "Lx;"));
        assert_eq!(primitive_name(b'Z'), Some("boolean"));
        assert_eq!(primitive_name(b'L'), None);
        assert!(is_wide("J") && is_wide("D") && !is_wide("I"));
        assert!(is_valid_class_name("java/lang/String"));
        assert!(is_valid_class_name("é/ü"));
        for bad in ["", "java//String", "java/lang/", "java.lang.String", "a[b"] {
            assert!(!is_valid_class_name(bad), "{bad}");
        }
    }
}
