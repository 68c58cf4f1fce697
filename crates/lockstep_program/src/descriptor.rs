//! Just enough descriptor parsing for the program model: parameter types,
//! return type and the class named by a field descriptor.
//!
//! Malformed descriptors give `None`; nothing here panics or validates
//! class-name syntax (the class-file parser owns that).

/// Length of the field descriptor at the start of `s`.
fn one_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while b.get(i) == Some(&b'[') {
        i += 1;
    }
    match b.get(i)? {
        b'B' | b'C' | b'D' | b'F' | b'I' | b'J' | b'S' | b'Z' => Some(i + 1),
        b'L' => Some(i + s.get(i..)?.find(';')? + 1),
        _ => None,
    }
}

/// The parameter descriptors of a method descriptor, in order.
pub fn param_types(desc: &str) -> Option<Vec<&str>> {
    let rest = desc.strip_prefix('(')?;
    let close = rest.find(')')?;
    let mut params = rest.get(..close)?;
    let mut out = Vec::new();
    while !params.is_empty() {
        let n = one_len(params)?;
        out.push(params.get(..n)?);
        params = params.get(n..)?;
    }
    Some(out)
}

/// The return descriptor (`V` for void).
pub fn return_type(desc: &str) -> Option<&str> {
    let close = desc.find(')')?;
    desc.get(close + 1..).filter(|r| !r.is_empty())
}

/// The internal class name of an object field descriptor (`Ljava/lang/Runnable;` → `java/lang/Runnable`).
/// Arrays and primitives give `None`.
pub fn class_of(field_desc: &str) -> Option<&str> {
    field_desc.strip_prefix('L')?.strip_suffix(';')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!(
            param_types("(I[JLjava/lang/String;[[Lx;D)V").unwrap(),
            vec!["I", "[J", "Ljava/lang/String;", "[[Lx;", "D"]
        );
        assert_eq!(param_types("()V").unwrap(), Vec::<&str>::new());
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
}
