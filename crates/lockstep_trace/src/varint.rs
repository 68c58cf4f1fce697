//! LEB128 varints and zigzag deltas: the building blocks of every record.
//!
//! The writing side appends to a `Vec<u8>` without allocating per value; the
//! reading side is a bounds-checked cursor that reports what it expected and
//! where, never panics.

/// Appends `v` as an unsigned LEB128 varint (1–10 bytes).
#[inline]
pub fn put_u64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends a `u32` as a varint.
#[inline]
pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    put_u64(out, u64::from(v));
}

/// Zigzag-maps a signed delta so that small magnitudes give small varints.
#[inline]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Appends the wrapping difference `v - prev` as a zigzag varint.
#[inline]
pub fn put_delta(out: &mut Vec<u8>, prev: u64, v: u64) {
    put_u64(out, zigzag(v.wrapping_sub(prev) as i64));
}

/// Appends a length-prefixed UTF-8 string.
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u64(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends an optional `u32` as `0` (none) or `v + 1` in a `u64` varint.
pub fn put_opt_u32(out: &mut Vec<u8>, v: Option<u32>) {
    put_u64(out, v.map_or(0, |v| u64::from(v) + 1));
}

/// Appends an optional `u64` as a flag byte and the value.
pub fn put_opt_u64(out: &mut Vec<u8>, v: Option<u64>) {
    match v {
        None => out.push(0),
        Some(v) => {
            out.push(1);
            put_u64(out, v);
        }
    }
}

/// Appends an optional string as a flag byte and the string.
pub fn put_opt_str(out: &mut Vec<u8>, v: Option<&str>) {
    match v {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
    }
}

/// Why a payload could not be decoded: what was expected at which offset
/// (relative to the start of the payload; the reader adds the record's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Offset inside the payload where decoding stopped.
    pub at: usize,
    /// What was expected there.
    pub expected: &'static str,
}

/// A bounds-checked reading cursor over one record's payload.
pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    /// Current offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// True when every byte was consumed.
    pub fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn fail<T>(&self, expected: &'static str) -> Result<T, DecodeError> {
        Err(DecodeError {
            at: self.pos,
            expected,
        })
    }

    /// One byte.
    #[inline]
    pub fn u8(&mut self, expected: &'static str) -> Result<u8, DecodeError> {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => self.fail(expected),
        }
    }

    /// An unsigned varint of at most 10 bytes that fits in a `u64`.
    #[inline]
    pub fn u64(&mut self, expected: &'static str) -> Result<u64, DecodeError> {
        // Most operands (deltas, small ids) take one byte.
        if let Some(&b) = self.bytes.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u64::from(b));
            }
        }
        self.u64_multi(expected)
    }

    /// [`Cursor::u64`] beyond the one-byte case.
    fn u64_multi(&mut self, expected: &'static str) -> Result<u64, DecodeError> {
        let mut v: u64 = 0;
        let mut shift = 0u32;
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return self.fail(expected);
            };
            if shift == 63 && b > 1 {
                return self.fail(expected);
            }
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
            shift += 7;
            if shift > 63 {
                return self.fail(expected);
            }
        }
    }

    /// A varint that must fit in a `u32`.
    #[inline]
    pub fn u32(&mut self, expected: &'static str) -> Result<u32, DecodeError> {
        let start = self.pos;
        let v = self.u64(expected)?;
        u32::try_from(v).map_err(|_| DecodeError {
            at: start,
            expected,
        })
    }

    /// A zigzag delta applied (wrapping) to `prev`.
    #[inline]
    pub fn delta(&mut self, prev: u64, expected: &'static str) -> Result<u64, DecodeError> {
        Ok(prev.wrapping_add(unzigzag(self.u64(expected)?) as u64))
    }

    /// A zigzag delta applied to a `u32` `prev`; the result must fit in `u32`.
    #[inline]
    pub fn delta32(&mut self, prev: u32, expected: &'static str) -> Result<u32, DecodeError> {
        let start = self.pos;
        let v = self.delta(u64::from(prev), expected)?;
        u32::try_from(v).map_err(|_| DecodeError {
            at: start,
            expected,
        })
    }

    /// A length-prefixed UTF-8 string.
    pub fn str(&mut self, expected: &'static str) -> Result<String, DecodeError> {
        let len = self.u64(expected)?;
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| self.pos.checked_add(l))
            .filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return self.fail(expected);
        };
        match std::str::from_utf8(&self.bytes[self.pos..end]) {
            Ok(s) => {
                self.pos = end;
                Ok(s.to_owned())
            }
            Err(_) => self.fail(expected),
        }
    }

    /// An optional `u32` written by [`put_opt_u32`].
    pub fn opt_u32(&mut self, expected: &'static str) -> Result<Option<u32>, DecodeError> {
        let start = self.pos;
        match self.u64(expected)? {
            0 => Ok(None),
            v => u32::try_from(v - 1).map(Some).map_err(|_| DecodeError {
                at: start,
                expected,
            }),
        }
    }

    /// An optional `u64` written by [`put_opt_u64`].
    pub fn opt_u64(&mut self, expected: &'static str) -> Result<Option<u64>, DecodeError> {
        match self.u8(expected)? {
            0 => Ok(None),
            1 => self.u64(expected).map(Some),
            _ => self.fail(expected),
        }
    }

    /// An optional string written by [`put_opt_str`].
    pub fn opt_str(&mut self, expected: &'static str) -> Result<Option<String>, DecodeError> {
        match self.u8(expected)? {
            0 => Ok(None),
            1 => self.str(expected).map(Some),
            _ => self.fail(expected),
        }
    }

    /// A count of following items, bounded by the bytes left (each item takes
    /// at least one byte), so a corrupt count cannot make the reader allocate.
    pub fn count(&mut self, expected: &'static str) -> Result<usize, DecodeError> {
        let start = self.pos;
        let n = self.u64(expected)?;
        let left = (self.bytes.len() - self.pos) as u64;
        if n > left {
            return Err(DecodeError {
                at: start,
                expected,
            });
        }
        Ok(n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_at_boundaries() {
        let values = [0u64, 1, 127, 128, 16383, 16384, u32::MAX as u64, u64::MAX];
        let mut out = Vec::new();
        for &v in &values {
            put_u64(&mut out, v);
        }
        let mut c = Cursor::new(&out);
        for &v in &values {
            assert_eq!(c.u64("v").unwrap(), v);
        }
        assert!(c.at_end());
    }

    #[test]
    fn zigzag_round_trips_extremes() {
        for v in [0i64, 1, -1, 63, -64, i64::MAX, i64::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }

    #[test]
    fn overlong_varint_is_an_error() {
        let bytes = [0xffu8; 11];
        assert!(Cursor::new(&bytes).u64("v").is_err());
        let bytes = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert!(Cursor::new(&bytes).u64("v").is_err());
    }
}
