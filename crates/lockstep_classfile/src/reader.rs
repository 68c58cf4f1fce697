//! A bounds-checked, big-endian byte cursor.
//!
//! Every read either succeeds or returns a [`ParseError`] carrying the
//! absolute file offset; nothing here can panic or overflow. A sub-reader
//! ([`Reader::sub`]) covers exactly one attribute's declared length, so an
//! attribute parser can never read into its neighbour, and remembers its
//! position in the whole file so its errors still point at the right byte.
//! The reader knows nothing about what the bytes mean.

use crate::error::ParseError;

#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    /// Invariant: `pos <= data.len()`.
    pos: usize,
    /// Absolute file offset of `data[0]`.
    base: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            base: 0,
        }
    }

    /// Absolute offset of the next byte in the file.
    #[inline]
    pub(crate) fn offset(&self) -> usize {
        self.base.saturating_add(self.pos)
    }

    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// How many elements to pre-allocate for `count` items of at least
    /// `min_size` bytes each: never more than the remaining bytes could
    /// hold, so a forged count cannot make us allocate gigabytes.
    #[inline]
    pub(crate) fn capacity_for(&self, count: usize, min_size: usize) -> usize {
        count.min(self.remaining() / min_size.max(1))
    }

    #[inline]
    fn take<const N: usize>(&mut self) -> Result<[u8; N], ParseError> {
        match self.data.get(self.pos..).and_then(|r| r.first_chunk::<N>()) {
            Some(chunk) => {
                // Cannot overflow: the chunk exists, so pos + N <= len.
                self.pos += N;
                Ok(*chunk)
            }
            None => Err(self.eof(N)),
        }
    }

    #[inline]
    pub(crate) fn u8(&mut self) -> Result<u8, ParseError> {
        let [b] = self.take::<1>()?;
        Ok(b)
    }

    #[inline]
    pub(crate) fn u16(&mut self) -> Result<u16, ParseError> {
        Ok(u16::from_be_bytes(self.take()?))
    }

    #[inline]
    pub(crate) fn u32(&mut self) -> Result<u32, ParseError> {
        Ok(u32::from_be_bytes(self.take()?))
    }

    #[inline]
    pub(crate) fn u64(&mut self) -> Result<u64, ParseError> {
        Ok(u64::from_be_bytes(self.take()?))
    }

    /// The next `n` bytes.
    #[inline]
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], ParseError> {
        let slice = self
            .pos
            .checked_add(n)
            .and_then(|end| self.data.get(self.pos..end));
        match slice {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(self.eof(n)),
        }
    }

    /// A reader over exactly the next `n` bytes; this reader skips them.
    pub(crate) fn sub(&mut self, n: usize) -> Result<Reader<'a>, ParseError> {
        let base = self.offset();
        let data = self.bytes(n)?;
        Ok(Reader { data, pos: 0, base })
    }

    #[cold]
    fn eof(&self, wanted: usize) -> ParseError {
        ParseError::new(
            self.offset(),
            format!(
                "unexpected end of data: needed {wanted} byte{}, {} left",
                if wanted == 1 { "" } else { "s" },
                self.remaining()
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_reports_offsets() {
        let data = [0xCA, 0xFE, 0xBA, 0xBE, 0, 1, 2];
        let mut r = Reader::new(&data);
        assert_eq!(r.u32().ok(), Some(0xCAFE_BABE));
        let mut sub = r
            .sub(2)
            .map_err(|e| e.to_string())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sub.offset(), 4);
        assert_eq!(sub.u16().ok(), Some(1));
        let e = sub.u8().err().map(|e| e.offset);
        assert_eq!(e, Some(6));
        assert_eq!(r.remaining(), 1);
        assert!(r.u16().is_err());
        assert!(r.bytes(usize::MAX).is_err());
        assert_eq!(r.capacity_for(1000, 1), 1);
    }
}
