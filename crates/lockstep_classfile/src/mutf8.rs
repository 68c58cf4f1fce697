//! Modified UTF-8 (JVMS §4.4.7) to Rust strings.
//!
//! Class files store text in "modified" UTF-8: NUL is the two bytes
//! `C0 80`, and characters outside the BMP are a surrogate pair, each half
//! encoded as three bytes (six in all). Everything else is ordinary UTF-8
//! limited to three-byte sequences.
//!
//! Decoding never fails: anything malformed (a stray continuation byte, a
//! truncated sequence, a lone surrogate, a raw `00` or `F0`–`FF` byte)
//! becomes U+FFFD, as `String::from_utf8_lossy` would do. Like Java's own
//! `DataInputStream.readUTF`, we accept over-long two- and three-byte forms.
//! This module knows nothing about where the bytes came from.

use std::sync::Arc;

/// Decodes modified UTF-8, replacing malformed sequences with U+FFFD.
pub fn decode_modified_utf8(bytes: &[u8]) -> String {
    match fast_path(bytes) {
        Some(s) => s.to_owned(),
        None => slow_path(bytes),
    }
}

/// Like [`decode_modified_utf8`], straight into the shared form the
/// constant pool keeps (one allocation on the common path).
pub(crate) fn decode_arc(bytes: &[u8]) -> Arc<str> {
    match fast_path(bytes) {
        Some(s) => Arc::from(s),
        None => Arc::from(slow_path(bytes)),
    }
}

/// Most class-file strings are ASCII. Standard UTF-8 without NUL bytes and
/// without four-byte sequences decodes identically under both schemes, and
/// `from_utf8` already rejects the surrogate halves and `C0 80` that only
/// modified UTF-8 uses, so those take the slow path.
#[inline]
fn fast_path(bytes: &[u8]) -> Option<&str> {
    // Branch-free so it vectorises: every byte in 0x01..=0x7F means plain
    // ASCII with no raw NUL.
    let plain = bytes
        .iter()
        .fold(true, |ok, &b| ok & (b.wrapping_sub(1) < 0x7F));
    if plain {
        // SAFETY: every byte is in 0x01..=0x7F, and any sequence of ASCII
        // bytes is valid UTF-8.
        #[allow(unsafe_code)]
        return Some(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    let s = std::str::from_utf8(bytes).ok()?;
    if bytes.iter().any(|&b| b == 0 || b >= 0xF0) {
        return None;
    }
    Some(s)
}

#[inline]
fn cont(b: Option<&u8>) -> Option<u32> {
    match b {
        Some(&b) if b & 0xC0 == 0x80 => Some(u32::from(b & 0x3F)),
        _ => None,
    }
}

/// The 16-bit unit of a three-byte sequence at `i`, if well formed.
fn three(bytes: &[u8], i: usize) -> Option<u32> {
    let b0 = *bytes.get(i)?;
    if b0 & 0xF0 != 0xE0 {
        return None;
    }
    let b1 = cont(bytes.get(i.checked_add(1)?))?;
    let b2 = cont(bytes.get(i.checked_add(2)?))?;
    Some((u32::from(b0 & 0x0F) << 12) | (b1 << 6) | b2)
}

fn slow_path(bytes: &[u8]) -> String {
    const REPLACEMENT: char = '\u{FFFD}';
    let mut out = String::with_capacity(bytes.len());
    let mut i = 0usize;
    while let Some(&b0) = bytes.get(i) {
        let (ch, len) = match b0 {
            0x01..=0x7F => (char::from(b0), 1),
            0xC0..=0xDF => match cont(bytes.get(i + 1)) {
                Some(b1) => {
                    let cp = (u32::from(b0 & 0x1F) << 6) | b1;
                    (char::from_u32(cp).unwrap_or(REPLACEMENT), 2)
                }
                None => (REPLACEMENT, 1),
            },
            0xE0..=0xEF => match three(bytes, i) {
                Some(hi @ 0xD800..=0xDBFF) => match three(bytes, i + 3) {
                    Some(lo @ 0xDC00..=0xDFFF) => {
                        let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        (char::from_u32(cp).unwrap_or(REPLACEMENT), 6)
                    }
                    // A high surrogate without its partner.
                    _ => (REPLACEMENT, 3),
                },
                // A low surrogate on its own.
                Some(0xDC00..=0xDFFF) => (REPLACEMENT, 3),
                Some(unit) => (char::from_u32(unit).unwrap_or(REPLACEMENT), 3),
                None => (REPLACEMENT, 1),
            },
            // NUL written raw, a stray continuation byte, or F0..FF.
            _ => (REPLACEMENT, 1),
        };
        out.push(ch);
        i += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_and_bmp() {
        assert_eq!(
            decode_modified_utf8(b"java/lang/Object"),
            "java/lang/Object"
        );
        assert_eq!(decode_modified_utf8("héllo €".as_bytes()), "héllo €");
        assert_eq!(decode_modified_utf8(b""), "");
    }

    #[test]
    fn nul_and_surrogate_pairs() {
        assert_eq!(decode_modified_utf8(&[b'a', 0xC0, 0x80, b'b']), "a\0b");
        // U+1F600 as the surrogate pair D83D DE00, each half in 3 bytes.
        let smile = [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80];
        assert_eq!(decode_modified_utf8(&smile), "\u{1F600}");
        assert_eq!(&*decode_arc(&smile), "\u{1F600}");
    }

    #[test]
    fn malformed_is_replaced_not_rejected() {
        // Lone high surrogate, then ASCII.
        assert_eq!(decode_modified_utf8(&[0xED, 0xA0, 0xBD, b'x']), "\u{FFFD}x");
        // Lone low surrogate.
        assert_eq!(decode_modified_utf8(&[0xED, 0xB8, 0x80]), "\u{FFFD}");
        // Truncated sequences and forbidden bytes.
        assert_eq!(decode_modified_utf8(&[0xE2, 0x82]), "\u{FFFD}\u{FFFD}");
        assert_eq!(decode_modified_utf8(&[0xC3]), "\u{FFFD}");
        assert_eq!(
            decode_modified_utf8(&[0x00, 0x80, 0xFF]),
            "\u{FFFD}\u{FFFD}\u{FFFD}"
        );
        // A standard four-byte sequence is not modified UTF-8.
        assert!(decode_modified_utf8("\u{1F600}".as_bytes())
            .chars()
            .all(|c| c == '\u{FFFD}'));
    }
}
