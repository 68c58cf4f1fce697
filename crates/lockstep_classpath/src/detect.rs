//! Deciding what kind of input a path is, from its magic bytes.
//!
//! Extensions are only a fallback (a `.jar` that does not start with a zip
//! local header may still be a zip with a prefix, e.g. a "fully executable"
//! Spring Boot jar with a launch script in front). It does not open or
//! validate the container beyond its first four bytes.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::{io_message, InputKind, Origin, Problem};

const CLASS_MAGIC: [u8; 4] = [0xCA, 0xFE, 0xBA, 0xBE];
const ZIP_LOCAL: [u8; 4] = *b"PK\x03\x04";
/// An empty zip is just an end-of-central-directory record.
const ZIP_EMPTY: [u8; 4] = *b"PK\x05\x06";
const JMOD_MAGIC: [u8; 4] = *b"JM\x01\x00";
/// 0xCAFEDADA written little-endian (x86, aarch64)...
const JIMAGE_LE: [u8; 4] = [0xDA, 0xDA, 0xFE, 0xCA];
/// ...and big-endian (images built on s390x/ppc64).
const JIMAGE_BE: [u8; 4] = [0xCA, 0xFE, 0xDA, 0xDA];

/// Decides what `path` is: a directory, or by its first bytes a class
/// file, jar/zip, jmod or JDK runtime image.
///
/// Errors: "no such file or directory", "empty file", or "not a class file,
/// jar, jmod, directory or JDK image (starts with 0x1F8B0800)".
pub fn detect_kind(path: &Path) -> Result<InputKind, Problem> {
    let problem = |message: String| Problem::new(Origin::file(path), message);
    let meta = std::fs::metadata(path).map_err(|e| problem(io_message(&e)))?;
    if meta.is_dir() {
        return Ok(InputKind::Directory);
    }
    if !meta.is_file() {
        // A FIFO or device could block or never end; nothing sensible
        // lives there.
        return Err(problem("not a regular file or directory".to_string()));
    }
    let mut file = File::open(path).map_err(|e| problem(io_message(&e)))?;
    let mut head = [0u8; 4];
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(problem(io_message(&e))),
        }
    }
    let head = head.get(..filled).unwrap_or(&[]);
    kind_from_head(head, path).map_err(problem)
}

/// The decision on already-read leading bytes (shared with tests).
pub(crate) fn kind_from_head(head: &[u8], path: &Path) -> Result<InputKind, String> {
    if head.is_empty() {
        return Err("empty file".to_string());
    }
    match head {
        h if h.starts_with(&CLASS_MAGIC) => return Ok(InputKind::ClassFile),
        h if h.starts_with(&ZIP_LOCAL) || h.starts_with(&ZIP_EMPTY) => return Ok(InputKind::Jar),
        h if h.starts_with(&JMOD_MAGIC) => return Ok(InputKind::Jmod),
        [b'J', b'M', major, minor] => {
            return Err(format!("unsupported jmod version {major}.{minor}"));
        }
        h if h.starts_with(&JIMAGE_LE) || h.starts_with(&JIMAGE_BE) => {
            return Ok(InputKind::JImage)
        }
        _ => {}
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if matches!(ext.as_deref(), Some("jar" | "zip" | "war" | "ear")) {
        // Let the zip reader look for the end-of-central-directory record:
        // it either finds a zip behind a prefix or reports it as truncated.
        return Ok(InputKind::Jar);
    }
    let hex: String = head.iter().map(|b| format!("{b:02X}")).collect();
    Err(format!(
        "not a class file, jar, jmod, directory or JDK image (starts with 0x{hex})"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_wins_over_extension() {
        let p = Path::new("x.txt");
        assert_eq!(kind_from_head(&CLASS_MAGIC, p), Ok(InputKind::ClassFile));
        assert_eq!(kind_from_head(b"PK\x03\x04", p), Ok(InputKind::Jar));
        assert_eq!(kind_from_head(b"PK\x05\x06", p), Ok(InputKind::Jar));
        assert_eq!(kind_from_head(b"JM\x01\x00", p), Ok(InputKind::Jmod));
        assert_eq!(kind_from_head(&JIMAGE_LE, p), Ok(InputKind::JImage));
        assert_eq!(kind_from_head(&JIMAGE_BE, p), Ok(InputKind::JImage));
        assert!(kind_from_head(b"JM\x02\x00", p)
            .unwrap_err()
            .contains("unsupported jmod version 2.0"));
    }

    #[test]
    fn unknown_bytes_are_described() {
        let err = kind_from_head(&[0x1F, 0x8B, 0x08, 0x00], Path::new("a.tgz")).unwrap_err();
        assert_eq!(
            err,
            "not a class file, jar, jmod, directory or JDK image (starts with 0x1F8B0800)"
        );
        assert_eq!(
            kind_from_head(&[], Path::new("a")).unwrap_err(),
            "empty file"
        );
        assert!(kind_from_head(b"ab", Path::new("a"))
            .unwrap_err()
            .contains("0x6162)"));
        // A .jar with a script prefix is still tried as a zip.
        assert_eq!(
            kind_from_head(b"#!/b", Path::new("app.JAR")),
            Ok(InputKind::Jar)
        );
    }
}
