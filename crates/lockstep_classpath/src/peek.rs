//! The one piece of class-file structure this crate knows: enough of the
//! constant pool to read `this_class`, so that a loose `.class` file named
//! on a library path can be indexed under its real name.
//!
//! It validates nothing else; the parser crate owns the format. Any
//! malformed input gives `None`.

/// The internal name (`com/x/A`) a class file declares, if it can be read.
pub(crate) fn this_class_name(bytes: &[u8]) -> Option<String> {
    let mut r = Reader { bytes, pos: 0 };
    if r.u32()? != 0xCAFE_BABE {
        return None;
    }
    r.skip(4)?; // minor, major
    let count = r.u16()?;
    // Byte ranges of Utf8 entries and name indices of Class entries, by
    // constant-pool index.
    let mut utf8: Vec<Option<(usize, usize)>> = vec![None; usize::from(count)];
    let mut class_names: Vec<Option<u16>> = vec![None; usize::from(count)];
    let mut index = 1usize;
    while index < usize::from(count) {
        let tag = r.u8()?;
        let mut width = 1;
        match tag {
            1 => {
                let len = usize::from(r.u16()?);
                let start = r.pos;
                r.skip(len)?;
                *utf8.get_mut(index)? = Some((start, len));
            }
            7 => *class_names.get_mut(index)? = Some(r.u16()?),
            8 | 16 | 19 | 20 => r.skip(2)?,
            15 => r.skip(3)?,
            3 | 4 | 9 | 10 | 11 | 12 | 17 | 18 => r.skip(4)?,
            5 | 6 => {
                r.skip(8)?;
                width = 2;
            }
            _ => return None,
        }
        index += width;
    }
    r.skip(2)?; // access flags
    let this_class = usize::from(r.u16()?);
    let name_index = usize::from((*class_names.get(this_class)?)?);
    let (start, len) = (*utf8.get(name_index)?)?;
    let raw = bytes.get(start..start + len)?;
    // Modified UTF-8 equals UTF-8 for every name javac emits in practice.
    Some(String::from_utf8_lossy(raw).into_owned())
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    fn skip(&mut self, n: usize) -> Option<()> {
        self.take(n).map(|_| ())
    }

    fn u8(&mut self) -> Option<u8> {
        self.take(1)?.first().copied()
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal class: constant pool [_, Utf8 "a/B", Class #1, Long, Utf8 "x"].
    fn class_bytes() -> Vec<u8> {
        let mut b = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61, 0, 6];
        b.extend_from_slice(&[1, 0, 3]);
        b.extend_from_slice(b"a/B");
        b.extend_from_slice(&[7, 0, 1]);
        b.extend_from_slice(&[5, 0, 0, 0, 0, 0, 0, 0, 1]);
        b.extend_from_slice(&[1, 0, 1, b'x']);
        b.extend_from_slice(&[0, 0x21, 0, 2]);
        b
    }

    #[test]
    fn reads_this_class() {
        assert_eq!(this_class_name(&class_bytes()).as_deref(), Some("a/B"));
    }

    #[test]
    fn malformed_is_none() {
        let good = class_bytes();
        for len in 0..good.len() {
            assert_eq!(this_class_name(&good[..len]), None);
        }
        let mut bad = good.clone();
        *bad.last_mut().unwrap() = 1; // this_class points at a Utf8
        assert_eq!(this_class_name(&bad), None);
    }
}
