//! Pretty-printing of JVM method descriptors as Java parameter lists.
//!
//! Users read `contains(Point)`, not `contains(Lcom/example/Point;)Z`, so
//! human-facing renderers turn descriptors into Java-like type lists. Class
//! types are shortened to their simple binary name (`String`, `Outer$Inner`):
//! the enclosing class is already printed in full next to it, and overloads
//! rarely differ only by package. Descriptors come from untrusted class
//! files, so anything malformed is shown verbatim instead of failing.

/// Renders the parameter list of a method descriptor as Java types:
/// `(ILjava/lang/String;[J)V` becomes `(int, String, long[])`.
///
/// The return type is validated but not shown (it is noise next to a method
/// name). A malformed descriptor is returned unchanged.
pub fn pretty_params(descriptor: &str) -> String {
    match parse_params(descriptor) {
        Some(params) => format!("({})", params.join(", ")),
        None => descriptor.to_owned(),
    }
}

/// Parses `(<field types>)<return type>` into pretty parameter type names, or
/// `None` if the text is not a well-formed method descriptor.
fn parse_params(descriptor: &str) -> Option<Vec<String>> {
    let rest = descriptor.strip_prefix('(')?;
    let mut params = Vec::new();
    let mut rest = rest;
    loop {
        if let Some(after) = rest.strip_prefix(')') {
            // The return type is parsed only to reject malformed text.
            let tail = match after.strip_prefix('V') {
                Some(tail) => tail,
                None => parse_field_type(after)?.1,
            };
            return tail.is_empty().then_some(params);
        }
        let (ty, tail) = parse_field_type(rest)?;
        params.push(ty);
        rest = tail;
    }
}

/// Parses one field type at the start of `text`, returning its Java spelling
/// and the unparsed remainder.
fn parse_field_type(text: &str) -> Option<(String, &str)> {
    // The JVM caps array dimensions at 255; counting them first keeps the
    // parser iterative, so hostile input cannot recurse deeply.
    let dims = text.bytes().take_while(|&b| b == b'[').count();
    if dims > 255 {
        return None;
    }
    let text = &text[dims..];
    let first = text.chars().next()?;
    let (base, rest) = match first {
        'B' => ("byte".to_owned(), &text[1..]),
        'C' => ("char".to_owned(), &text[1..]),
        'D' => ("double".to_owned(), &text[1..]),
        'F' => ("float".to_owned(), &text[1..]),
        'I' => ("int".to_owned(), &text[1..]),
        'J' => ("long".to_owned(), &text[1..]),
        'S' => ("short".to_owned(), &text[1..]),
        'Z' => ("boolean".to_owned(), &text[1..]),
        'L' => {
            let end = text.find(';')?;
            let internal = &text[1..end];
            // Every `/`-separated segment must be a non-empty unqualified name.
            if internal.split('/').any(str::is_empty) || internal.contains(['.', '[', '(', ')']) {
                return None;
            }
            let simple = internal.rsplit('/').next().unwrap_or(internal);
            (simple.to_owned(), &text[end + 1..])
        }
        _ => return None,
    };
    Some((format!("{base}{}", "[]".repeat(dims)), rest))
}

#[cfg(test)]
mod tests {
    use super::pretty_params;

    #[test]
    fn primitives_objects_and_arrays() {
        assert_eq!(
            pretty_params("(ILjava/lang/String;[J)V"),
            "(int, String, long[])"
        );
        assert_eq!(
            pretty_params("(BCDFIJSZ)I"),
            "(byte, char, double, float, int, long, short, boolean)"
        );
        assert_eq!(
            pretty_params("([[Ljava/lang/Object;[Z)[I"),
            "(Object[][], boolean[])"
        );
    }

    #[test]
    fn empty_and_inner_and_default_package() {
        assert_eq!(pretty_params("()V"), "()");
        assert_eq!(
            pretty_params("(Lcom/example/Outer$Inner;LTop;)Ljava/util/List;"),
            "(Outer$Inner, Top)"
        );
    }

    #[test]
    fn malformed_descriptors_fall_back_to_raw_text() {
        for raw in [
            "",
            "(",
            ")V",
            "I",
            "(I",
            "(I)",
            "(I)VV",
            "(Q)V",
            "(Ljava/lang/String)V",
            "(L;)V",
            "(Ljava/lang/)V",
            "(Ljava.lang.String;)V",
            "(Ljava//String;)V",
            "([)V",
            "(I)[",
            "(I)V trailing",
            "(é)V",
            "(Lé/ü;)V",
        ] {
            let pretty = pretty_params(raw);
            // "(Lé/ü;)V" is actually valid: non-ASCII class names are legal.
            if raw == "(Lé/ü;)V" {
                assert_eq!(pretty, "(ü)");
            } else {
                assert_eq!(pretty, raw, "{raw:?} should fall back");
            }
        }
    }

    #[test]
    fn array_dimension_limit() {
        let ok = format!("({}I)V", "[".repeat(255));
        assert!(pretty_params(&ok).ends_with("[])"));
        let too_deep = format!("({}I)V", "[".repeat(256));
        assert_eq!(pretty_params(&too_deep), too_deep);
    }

    #[test]
    fn never_panics_on_prefixes_and_noise() {
        // Every prefix of valid descriptors, including cuts inside multi-byte
        // characters' neighbours, plus deterministic pseudo-random noise over
        // the descriptor alphabet.
        let samples = [
            "(ILjava/lang/String;[J)V",
            "([[Lcom/é/Outer$Inner;Z)[Ljava/lang/Object;",
        ];
        for sample in samples {
            for (cut, _) in sample.char_indices() {
                let _ = pretty_params(&sample[..cut]);
            }
        }
        let alphabet: Vec<char> = "()[;/LIJZBCSDFVé$x".chars().collect();
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..5000 {
            let mut text = String::new();
            for _ in 0..(state % 12) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let index = usize::try_from(state >> 33).unwrap_or(0) % alphabet.len();
                text.push(alphabet[index]);
            }
            state = state.wrapping_add(0x1234_5678);
            let _ = pretty_params(&text);
        }
    }
}
