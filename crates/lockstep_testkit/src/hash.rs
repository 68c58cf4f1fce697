//! A small, stable content hash for cache keys.
//!
//! The key names directories on disk that outlive one build, so the hash must
//! give the same answer across Rust versions and platforms. std's
//! `DefaultHasher` makes no such promise, hence FNV-1a with 128-bit state,
//! which is a dozen lines and needs no dependency. It is not collision
//! resistant against an adversary, which a local test cache does not need.

/// FNV-1a, 128-bit variant (offset basis and prime from the FNV reference).
#[derive(Debug, Clone)]
pub(crate) struct KeyHasher {
    state: u128,
}

const FNV128_OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
const FNV128_PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

impl KeyHasher {
    pub(crate) fn new() -> Self {
        KeyHasher {
            state: FNV128_OFFSET,
        }
    }

    fn bytes(&mut self, data: &[u8]) {
        for &b in data {
            self.state ^= u128::from(b);
            self.state = self.state.wrapping_mul(FNV128_PRIME);
        }
    }

    /// Adds one named field. Every field is tagged and length-prefixed so
    /// that moving bytes from one field into the next (`"ab","c"` versus
    /// `"a","bc"`) cannot produce the same key.
    pub(crate) fn field(&mut self, tag: &str, value: &[u8]) {
        self.bytes(&(tag.len() as u64).to_le_bytes());
        self.bytes(tag.as_bytes());
        self.bytes(&(value.len() as u64).to_le_bytes());
        self.bytes(value);
    }

    pub(crate) fn finish_hex(&self) -> String {
        format!("{:032x}", self.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(data: &[u8]) -> String {
        let mut h = KeyHasher::new();
        h.bytes(data);
        h.finish_hex()
    }

    #[test]
    fn matches_reference_vectors() {
        // Published FNV-1a 128 test vectors.
        assert_eq!(raw(b""), "6c62272e07bb014262b821756295c58d");
        assert_eq!(raw(b"a"), "d228cb696f1a8caf78912b704e4a8964");
    }

    #[test]
    fn fields_are_unambiguous() {
        let mut a = KeyHasher::new();
        a.field("x", b"ab");
        a.field("x", b"c");
        let mut b = KeyHasher::new();
        b.field("x", b"a");
        b.field("x", b"bc");
        assert_ne!(a.finish_hex(), b.finish_hex());
    }
}
