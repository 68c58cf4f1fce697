//! The raw layout of a class file, kept byte-exact where we do not change it.
//!
//! The semantic reader (`lockstep_classfile`) resolves the constant pool and
//! decodes instructions but drops the bytes of attributes it does not need.
//! Rewriting needs the opposite: every attribute kept verbatim except the
//! `Code` attributes we patch, and a constant pool we can append to. This
//! module reads that outer structure (bounds-checked, no panics) and writes
//! it back.

use crate::Error;

/// A bounds-checked big-endian cursor over input bytes.
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Cursor { data, pos: 0 }
    }
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| Error::new("length overflow"))?;
        let s = self
            .data
            .get(self.pos..end)
            .ok_or_else(|| Error::new(format!("truncated at byte {}", self.pos)))?;
        self.pos = end;
        Ok(s)
    }
    pub(crate) fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.bytes(1)?[0])
    }
    pub(crate) fn u16(&mut self) -> Result<u16, Error> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    pub(crate) fn u32(&mut self) -> Result<u32, Error> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(crate) fn at_end(&self) -> bool {
        self.pos == self.data.len()
    }
}

/// One attribute, name by constant-pool index, body verbatim.
#[derive(Debug, Clone)]
pub(crate) struct RawAttr {
    pub name: u16,
    pub body: Vec<u8>,
}

#[derive(Debug, Clone)]
pub(crate) struct RawMember {
    pub access: u16,
    pub name: u16,
    pub descriptor: u16,
    pub attrs: Vec<RawAttr>,
}

/// The outer structure of a class file.
#[derive(Debug, Clone)]
pub(crate) struct RawClass {
    pub minor: u16,
    pub major: u16,
    /// Number of pool slots including slot 0 (the `constant_pool_count`).
    pub pool_count: u16,
    /// The pool entries' bytes, verbatim.
    pub pool_bytes: Vec<u8>,
    /// Bytes from `access_flags` through the interfaces, verbatim.
    pub header: Vec<u8>,
    pub fields: Vec<RawMember>,
    pub methods: Vec<RawMember>,
    pub attrs: Vec<RawAttr>,
}

pub(crate) fn read_attrs(c: &mut Cursor<'_>) -> Result<Vec<RawAttr>, Error> {
    let n = c.u16()?;
    let mut out = Vec::with_capacity(usize::from(n).min(64));
    for _ in 0..n {
        let name = c.u16()?;
        let len = c.u32()? as usize;
        out.push(RawAttr {
            name,
            body: c.bytes(len)?.to_vec(),
        });
    }
    Ok(out)
}

fn read_members(c: &mut Cursor<'_>) -> Result<Vec<RawMember>, Error> {
    let n = c.u16()?;
    let mut out = Vec::with_capacity(usize::from(n).min(1024));
    for _ in 0..n {
        let access = c.u16()?;
        let name = c.u16()?;
        let descriptor = c.u16()?;
        let attrs = read_attrs(c)?;
        out.push(RawMember {
            access,
            name,
            descriptor,
            attrs,
        });
    }
    Ok(out)
}

/// Skips one constant-pool entry; returns how many slots it takes.
fn skip_pool_entry(c: &mut Cursor<'_>) -> Result<u16, Error> {
    let tag = c.u8()?;
    let (len, slots) = match tag {
        1 => (c.u16()? as usize, 1),
        3 | 4 => (4, 1),
        5 | 6 => (8, 2),
        7 | 8 | 16 | 19 | 20 => (2, 1),
        9 | 10 | 11 | 12 | 17 | 18 => (4, 1),
        15 => (3, 1),
        other => return Err(Error::new(format!("unknown constant-pool tag {other}"))),
    };
    c.bytes(len)?;
    Ok(slots)
}

impl RawClass {
    pub(crate) fn read(bytes: &[u8]) -> Result<RawClass, Error> {
        let mut c = Cursor::new(bytes);
        if c.u32()? != 0xCAFE_BABE {
            return Err(Error::new("not a class file (bad magic)"));
        }
        let minor = c.u16()?;
        let major = c.u16()?;
        let pool_count = c.u16()?;
        let pool_start = c.pos();
        let mut slot = 1u16;
        while slot < pool_count {
            slot = slot.saturating_add(skip_pool_entry(&mut c)?);
        }
        let pool_bytes = bytes
            .get(pool_start..c.pos())
            .ok_or_else(|| Error::new("constant pool out of range"))?
            .to_vec();
        let header_start = c.pos();
        c.bytes(6)?;
        let n_interfaces = c.u16()?;
        c.bytes(usize::from(n_interfaces) * 2)?;
        let header = bytes
            .get(header_start..c.pos())
            .ok_or_else(|| Error::new("class header out of range"))?
            .to_vec();
        let fields = read_members(&mut c)?;
        let methods = read_members(&mut c)?;
        let attrs = read_attrs(&mut c)?;
        if !c.at_end() {
            return Err(Error::new("trailing bytes after the class attributes"));
        }
        Ok(RawClass {
            minor,
            major,
            pool_count,
            pool_bytes,
            header,
            fields,
            methods,
            attrs,
        })
    }

    pub(crate) fn write(&self) -> Result<Vec<u8>, Error> {
        let mut out = Vec::with_capacity(self.pool_bytes.len() + 4096);
        out.extend_from_slice(&0xCAFE_BABEu32.to_be_bytes());
        put_u16(&mut out, self.minor);
        put_u16(&mut out, self.major);
        put_u16(&mut out, self.pool_count);
        out.extend_from_slice(&self.pool_bytes);
        out.extend_from_slice(&self.header);
        for members in [&self.fields, &self.methods] {
            put_u16(&mut out, len_u16(members.len(), "member count")?);
            for m in members {
                put_u16(&mut out, m.access);
                put_u16(&mut out, m.name);
                put_u16(&mut out, m.descriptor);
                write_attrs(&mut out, &m.attrs)?;
            }
        }
        write_attrs(&mut out, &self.attrs)?;
        Ok(out)
    }
}

pub(crate) fn write_attrs(out: &mut Vec<u8>, attrs: &[RawAttr]) -> Result<(), Error> {
    put_u16(out, len_u16(attrs.len(), "attribute count")?);
    for a in attrs {
        put_u16(out, a.name);
        let len = u32::try_from(a.body.len()).map_err(|_| Error::new("attribute too long"))?;
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&a.body);
    }
    Ok(())
}

pub(crate) fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub(crate) fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub(crate) fn len_u16(n: usize, what: &str) -> Result<u16, Error> {
    u16::try_from(n).map_err(|_| Error::new(format!("{what} exceeds 65535")))
}
