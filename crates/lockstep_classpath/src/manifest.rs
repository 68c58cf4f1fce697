//! The two attributes of a jar's `META-INF/MANIFEST.MF` that change which
//! classes a class path holds: `Class-Path` (more jars, relative to this
//! one) and `Multi-Release` (versioned classes under `META-INF/versions`).
//!
//! Only the main section is read. Lines are joined as the manifest format
//! says (a line starting with one space continues the previous one); names
//! are matched case-insensitively, as `java.util.jar.Attributes` does.
//! Nothing else of the manifest (signatures, per-entry sections) is known.

/// The manifest's entry name in a jar.
pub(crate) const MANIFEST: &str = "META-INF/MANIFEST.MF";

/// What the main section of a manifest says about the class path.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Manifest {
    /// `Class-Path` entries as written: relative URLs, `%20`-decoded.
    pub class_path: Vec<String>,
    /// `Multi-Release: true`.
    pub multi_release: bool,
}

/// Reads the main section of a manifest; anything malformed is skipped
/// (the JVM, too, ignores what it cannot use here).
pub(crate) fn parse(bytes: &[u8]) -> Manifest {
    let text = String::from_utf8_lossy(bytes);
    let mut manifest = Manifest::default();
    for (name, value) in main_attributes(&text) {
        if name.eq_ignore_ascii_case("Class-Path") {
            manifest.class_path = value.split_whitespace().map(percent_decode).collect();
        } else if name.eq_ignore_ascii_case("Multi-Release") {
            manifest.multi_release = value.trim().eq_ignore_ascii_case("true");
        }
    }
    manifest
}

/// `(name, value)` of each attribute of the main section (up to the first
/// blank line), continuation lines joined.
fn main_attributes(text: &str) -> Vec<(String, String)> {
    let mut attributes: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            break;
        }
        if let Some(more) = line.strip_prefix(' ') {
            if let Some((_, value)) = attributes.last_mut() {
                value.push_str(more);
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            let value = value.strip_prefix(' ').unwrap_or(value);
            attributes.push((name.trim().to_string(), value.to_string()));
        }
    }
    attributes
}

/// Decodes `%XX` escapes of a URL path (jar tools write spaces as `%20`);
/// a malformed escape is kept as written.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| s.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_path_with_continuation_and_escapes() {
        let m = parse(
            b"Manifest-Version: 1.0\r\nclass-path: lib/a.jar lib/my%20b\r\n .jar ../c.jar\r\nMulti-Release: TRUE\r\n\r\nName: x\r\nClass-Path: no.jar\r\n",
        );
        assert_eq!(m.class_path, ["lib/a.jar", "lib/my b.jar", "../c.jar"]);
        assert!(m.multi_release);
    }

    #[test]
    fn malformed_is_skipped() {
        assert_eq!(parse(b"\xff\xfe garbage\n%zz"), Manifest::default());
        assert_eq!(parse(b"Class-Path: a%2").class_path, ["a%2"]);
    }
}
