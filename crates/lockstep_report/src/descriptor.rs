//! Pretty-printing of JVM method descriptors as Java parameter lists.
//!
//! Users read `contains(Point)`, not `contains(Lcom/example/Point;)Z`, so
//! human-facing renderers turn descriptors into Java-like type lists. Class
//! types are shortened to their simple binary name (`String`, `Outer$Inner`):
//! the enclosing class is already printed in full next to it, and overloads
//! rarely differ only by package. Descriptors come from untrusted class
//! files, so anything malformed is shown verbatim instead of failing. The
//! parsing is `lockstep_classfile`'s; this module only renders.

use lockstep_classfile::descriptor as desc;

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

/// The pretty parameter type names of a method descriptor, or `None` if the
/// text is not a well-formed method descriptor.
fn parse_params(descriptor: &str) -> Option<Vec<String>> {
    let (params, ret) = desc::method_sig(descriptor)?;
    // The return type is rendered only to reject malformed text.
    if ret != "V" {
        render_field_type(ret)?;
    }
    params.map(render_field_type).collect()
}

/// The Java spelling of one field descriptor, or `None` if it has too many
/// array dimensions or names a malformed class.
fn render_field_type(field: &str) -> Option<String> {
    let (dims, element) = desc::array_dims(field);
    if dims > desc::MAX_ARRAY_DIMENSIONS {
        return None;
    }
    let base = match desc::class_of(element) {
        Some(internal) => {
            if !desc::is_valid_class_name(internal) {
                return None;
            }
            internal.rsplit('/').next().unwrap_or(internal)
        }
        None => desc::primitive_name(*element.as_bytes().first()?)?,
    };
    Some(format!("{base}{}", "[]".repeat(dims)))
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
