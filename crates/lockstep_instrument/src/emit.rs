//! Probe byte sequences.
//!
//! Every probe ends in an `invokestatic` of one of the runtime's natives
//! ([`Native`]) with the probe id as last argument. Sequences are built here
//! from a handful of opcodes so the stack effect of each is easy to check
//! by eye: each helper's comment shows the operand stack before → after.

use lockstep_classfile::Kind;

use crate::pool::Pool;
use crate::runtime::RT_CLASS;
use crate::{Error, Probe};

pub(crate) const DUP: u8 = 0x59;
pub(crate) const DUP2: u8 = 0x5c;
pub(crate) const DUP2_X1: u8 = 0x5d;
pub(crate) const POP2: u8 = 0x58;
pub(crate) const SWAP: u8 = 0x5f;
pub(crate) const ACONST_NULL: u8 = 0x01;
pub(crate) const ALOAD_0: u8 = 0x2a;
pub(crate) const ATHROW: u8 = 0xbf;
pub(crate) const SIPUSH: u8 = 0x11;
pub(crate) const BIPUSH: u8 = 0x10;
pub(crate) const POP: u8 = 0x57;
pub(crate) const ICONST_0: u8 = 0x03;
pub(crate) const LCONST_0: u8 = 0x09;
pub(crate) const L2I: u8 = 0x88;
pub(crate) const LCMP: u8 = 0x94;
pub(crate) const IMUL: u8 = 0x68;
pub(crate) const ISHL: u8 = 0x78;
pub(crate) const IAND: u8 = 0x7e;
pub(crate) const IOR: u8 = 0x80;
const LDC_W: u8 = 0x13;
const INVOKESTATIC: u8 = 0xb8;
const WIDE: u8 = 0xc4;

/// The runtime's natives, by argument shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Native {
    /// `e(int probe)`: events without an object.
    E,
    /// `o(Object, int probe)`.
    O,
    /// `oi(Object, int, int probe)`: arrays (array, index) and int results.
    OI,
    /// `oo(Object, Object, int probe)`: object results.
    OO,
    /// `w(Object receiver, Object task, int probe) -> Object`: hand-off wrapper.
    W,
}

impl Native {
    pub(crate) fn name_and_descriptor(self) -> (&'static str, &'static str) {
        match self {
            Native::E => ("e", "(I)V"),
            Native::O => ("o", "(Ljava/lang/Object;I)V"),
            Native::OI => ("oi", "(Ljava/lang/Object;II)V"),
            Native::OO => ("oo", "(Ljava/lang/Object;Ljava/lang/Object;I)V"),
            Native::W => (
                "w",
                "(Ljava/lang/Object;Ljava/lang/Object;I)Ljava/lang/Object;",
            ),
        }
    }
}

/// Collects probes of one class and emits their bytes.
pub(crate) struct Emitter<'p> {
    pub pool: &'p mut Pool,
    pub first_probe: u32,
    pub probes: Vec<Probe>,
}

impl Emitter<'_> {
    /// Registers a probe and returns its id.
    pub(crate) fn register(&mut self, probe: Probe) -> Result<u32, Error> {
        let id = u32::try_from(self.probes.len())
            .ok()
            .and_then(|n| self.first_probe.checked_add(n))
            .filter(|&id| id <= i32::MAX as u32)
            .ok_or_else(|| Error::new("probe ids exhausted"))?;
        self.probes.push(probe);
        Ok(id)
    }

    /// `… → …, id` (3 bytes either way).
    pub(crate) fn push_id(&mut self, out: &mut Vec<u8>, id: u32) -> Result<(), Error> {
        if let Ok(small) = i16::try_from(id) {
            out.push(SIPUSH);
            out.extend_from_slice(&small.to_be_bytes());
        } else {
            let v = i32::try_from(id).map_err(|_| Error::new("probe id too large"))?;
            let index = self.pool.integer(v)?;
            out.push(LDC_W);
            out.extend_from_slice(&index.to_be_bytes());
        }
        Ok(())
    }

    /// Pushes the probe id and calls the native: its arguments before the id
    /// must already be on the stack.
    pub(crate) fn call(&mut self, out: &mut Vec<u8>, native: Native, id: u32) -> Result<(), Error> {
        self.push_id(out, id)?;
        let (name, desc) = native.name_and_descriptor();
        let m = self.pool.method(RT_CLASS, name, desc, false)?;
        out.push(INVOKESTATIC);
        out.extend_from_slice(&m.to_be_bytes());
        Ok(())
    }

    /// `ldc` of a class constant (for static `synchronized` methods).
    pub(crate) fn ldc_class(&mut self, out: &mut Vec<u8>, class: &str) -> Result<(), Error> {
        let index = self.pool.class(class)?;
        out.push(LDC_W);
        out.extend_from_slice(&index.to_be_bytes());
        Ok(())
    }
}

/// Which local-variable opcode family a value kind uses.
fn local_opcode(kind: Kind, store: bool) -> u8 {
    let base = match kind {
        Kind::Int => 0,
        Kind::Long => 1,
        Kind::Float => 2,
        Kind::Double => 3,
        Kind::Ref => 4,
    };
    if store {
        0x36 + base
    } else {
        0x15 + base
    }
}

/// `xload slot` / `xstore slot`, with `wide` above 255.
pub(crate) fn local(out: &mut Vec<u8>, kind: Kind, slot: u16, store: bool) {
    let op = local_opcode(kind, store);
    if let Ok(small) = u8::try_from(slot) {
        out.extend_from_slice(&[op, small]);
    } else {
        out.extend_from_slice(&[WIDE, op]);
        out.extend_from_slice(&slot.to_be_bytes());
    }
}

/// The value kind of a field descriptor's first type (`I`, `J`, `Lx;`, `[I`…).
pub(crate) fn kind_of(desc: &str) -> Option<Kind> {
    Some(match desc.as_bytes().first()? {
        b'I' | b'Z' | b'B' | b'C' | b'S' => Kind::Int,
        b'J' => Kind::Long,
        b'F' => Kind::Float,
        b'D' => Kind::Double,
        b'L' | b'[' => Kind::Ref,
        _ => return None,
    })
}

/// Parameter kinds and the return kind (`None` for `V`) of a method descriptor.
pub(crate) fn signature(desc: &str) -> Option<(Vec<Kind>, Option<Kind>)> {
    let rest = desc.strip_prefix('(')?;
    let close = rest.find(')')?;
    let (params, ret) = (&rest[..close], &rest[close + 1..]);
    let mut kinds = Vec::new();
    let b = params.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        while b.get(i) == Some(&b'[') {
            i += 1;
        }
        match b.get(i)? {
            b'L' => i += params[i..].find(';')? + 1,
            _ => i += 1,
        }
        kinds.push(kind_of(&params[start..])?);
    }
    let ret = if ret == "V" {
        None
    } else {
        Some(kind_of(ret)?)
    };
    Some((kinds, ret))
}

/// `long → long, int`: the int is the sign of the long (`0` when it is zero).
pub(crate) fn long_is_nonzero(out: &mut Vec<u8>) {
    out.extend_from_slice(&[DUP2, LCONST_0, LCMP]);
}

/// Slots a kind takes in the local-variable array.
pub(crate) fn slots(kind: Kind) -> u16 {
    if kind.is_wide() {
        2
    } else {
        1
    }
}

/// Puts a copy of the object below a freshly computed value on top:
/// `obj, value → value, obj` (value of the given kind, obj consumed by the caller's
/// probe afterwards). Used after `getfield` when `dup` saved the object.
pub(crate) fn swap_under(out: &mut Vec<u8>, value: Kind) {
    if value.is_wide() {
        // obj, v2 → v2, obj, v2 → v2, obj
        out.extend_from_slice(&[DUP2_X1, POP2]);
    } else {
        out.push(SWAP);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_split_into_kinds() {
        let (p, r) = signature("(I[JLjava/lang/String;DZ)J").unwrap();
        assert_eq!(
            p,
            vec![Kind::Int, Kind::Ref, Kind::Ref, Kind::Double, Kind::Int]
        );
        assert_eq!(r, Some(Kind::Long));
        assert_eq!(signature("()V").unwrap(), (vec![], None));
        assert!(signature("(Q)V").is_none());
    }

    #[test]
    fn wide_locals_above_255() {
        let mut v = vec![];
        local(&mut v, Kind::Ref, 300, true);
        assert_eq!(v, vec![0xc4, 0x3a, 0x01, 0x2c]);
        v.clear();
        local(&mut v, Kind::Long, 4, false);
        assert_eq!(v, vec![0x16, 4]);
    }
}
