//! `StackMapTable` frames with absolute offsets: decoded, moved, re-encoded.
//!
//! Probes never change the frame *contents* at an original instruction
//! boundary, so rewriting the table only moves each frame to its
//! instruction's new offset, moves `uninitialized(offset)` entries to their
//! `new` instruction's new offset, and re-picks the compact frame form the
//! new offset delta allows (a `same_frame` whose delta grew past 63 becomes
//! `same_frame_extended`, and so on).

use crate::raw::{put_u16, Cursor};
use crate::Error;

/// One verification type; `Object` holds its pool index, `Uninitialized` its offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VType {
    Simple(u8),
    Object(u16),
    Uninitialized(u32),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Form {
    Same,
    SameLocals1(VType),
    Chop(u8),
    Append(Vec<VType>),
    Full(Vec<VType>, Vec<VType>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    pub offset: u32,
    pub form: Form,
}

fn read_vtype(c: &mut Cursor<'_>) -> Result<VType, Error> {
    let tag = c.u8()?;
    Ok(match tag {
        0..=6 => VType::Simple(tag),
        7 => VType::Object(c.u16()?),
        8 => VType::Uninitialized(u32::from(c.u16()?)),
        _ => return Err(Error::new(format!("bad verification type tag {tag}"))),
    })
}

fn read_vtypes(c: &mut Cursor<'_>, n: usize) -> Result<Vec<VType>, Error> {
    (0..n).map(|_| read_vtype(c)).collect()
}

/// Decodes a `StackMapTable` body into frames at absolute offsets.
pub(crate) fn decode(body: &[u8]) -> Result<Vec<Frame>, Error> {
    let mut c = Cursor::new(body);
    let n = c.u16()?;
    let mut frames = Vec::with_capacity(usize::from(n));
    let mut previous: Option<u32> = None;
    for _ in 0..n {
        let t = c.u8()?;
        let (delta, form) = match t {
            0..=63 => (u32::from(t), Form::Same),
            64..=127 => (u32::from(t - 64), Form::SameLocals1(read_vtype(&mut c)?)),
            247 => {
                let d = c.u16()?;
                (u32::from(d), Form::SameLocals1(read_vtype(&mut c)?))
            }
            248..=250 => (u32::from(c.u16()?), Form::Chop(251 - t)),
            251 => (u32::from(c.u16()?), Form::Same),
            252..=254 => {
                let d = c.u16()?;
                (
                    u32::from(d),
                    Form::Append(read_vtypes(&mut c, usize::from(t - 251))?),
                )
            }
            255 => {
                let d = c.u16()?;
                let nl = c.u16()?;
                let locals = read_vtypes(&mut c, usize::from(nl))?;
                let ns = c.u16()?;
                (
                    u32::from(d),
                    Form::Full(locals, read_vtypes(&mut c, usize::from(ns))?),
                )
            }
            _ => return Err(Error::new(format!("reserved stack map frame type {t}"))),
        };
        let offset = match previous {
            None => delta,
            Some(p) => p
                .checked_add(delta)
                .and_then(|o| o.checked_add(1))
                .ok_or_else(|| Error::new("stack map offset overflow"))?,
        };
        previous = Some(offset);
        frames.push(Frame { offset, form });
    }
    if !c.at_end() {
        return Err(Error::new("trailing bytes in StackMapTable"));
    }
    Ok(frames)
}

fn write_vtype(out: &mut Vec<u8>, v: VType) -> Result<(), Error> {
    match v {
        VType::Simple(t) => out.push(t),
        VType::Object(i) => {
            out.push(7);
            put_u16(out, i);
        }
        VType::Uninitialized(o) => {
            out.push(8);
            put_u16(
                out,
                u16::try_from(o).map_err(|_| Error::new("uninitialized offset > 65535"))?,
            );
        }
    }
    Ok(())
}

fn write_vtypes(out: &mut Vec<u8>, vs: &[VType]) -> Result<(), Error> {
    put_u16(out, crate::raw::len_u16(vs.len(), "frame entries")?);
    vs.iter().try_for_each(|&v| write_vtype(out, v))
}

/// Encodes frames (sorted by offset, strictly increasing) as a table body.
pub(crate) fn encode(frames: &[Frame]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    put_u16(
        &mut out,
        crate::raw::len_u16(frames.len(), "stack map frames")?,
    );
    let mut previous: Option<u32> = None;
    for f in frames {
        let delta = match previous {
            None => f.offset,
            Some(p) => f
                .offset
                .checked_sub(p)
                .and_then(|d| d.checked_sub(1))
                .ok_or_else(|| Error::new("stack map frames out of order"))?,
        };
        previous = Some(f.offset);
        let d16 = u16::try_from(delta).map_err(|_| Error::new("stack map delta > 65535"))?;
        match &f.form {
            Form::Same if delta <= 63 => out.push(delta as u8),
            Form::Same => {
                out.push(251);
                put_u16(&mut out, d16);
            }
            Form::SameLocals1(v) if delta <= 63 => {
                out.push(64 + delta as u8);
                write_vtype(&mut out, *v)?;
            }
            Form::SameLocals1(v) => {
                out.push(247);
                put_u16(&mut out, d16);
                write_vtype(&mut out, *v)?;
            }
            Form::Chop(k) => {
                out.push(251 - k);
                put_u16(&mut out, d16);
            }
            Form::Append(vs) => {
                let k = u8::try_from(vs.len()).map_err(|_| Error::new("bad append frame"))?;
                out.push(251 + k);
                put_u16(&mut out, d16);
                vs.iter().try_for_each(|&v| write_vtype(&mut out, v))?;
            }
            Form::Full(locals, stack) => {
                out.push(255);
                put_u16(&mut out, d16);
                write_vtypes(&mut out, locals)?;
                write_vtypes(&mut out, stack)?;
            }
        }
    }
    Ok(out)
}

/// Moves every frame and `uninitialized` entry: `unit` maps an original
/// instruction offset to the start of its probed unit (where frames go),
/// `insn` to the new offset of the instruction itself (where `new` is).
pub(crate) fn relocate(
    frames: &mut [Frame],
    unit: &dyn Fn(u32) -> Option<u32>,
    insn: &dyn Fn(u32) -> Option<u32>,
) -> Result<(), Error> {
    let fix = |v: &mut VType| -> Result<(), Error> {
        if let VType::Uninitialized(o) = v {
            *o = insn(*o).ok_or_else(|| Error::new("uninitialized entry not at an instruction"))?;
        }
        Ok(())
    };
    for f in frames.iter_mut() {
        f.offset =
            unit(f.offset).ok_or_else(|| Error::new("stack map frame not at an instruction"))?;
        match &mut f.form {
            Form::Same | Form::Chop(_) => {}
            Form::SameLocals1(v) => fix(v)?,
            Form::Append(vs) => vs.iter_mut().try_for_each(fix)?,
            Form::Full(l, s) => l.iter_mut().chain(s.iter_mut()).try_for_each(fix)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_grow_into_extended_forms() {
        let frames = vec![
            Frame {
                offset: 5,
                form: Form::Same,
            },
            Frame {
                offset: 9,
                form: Form::SameLocals1(VType::Simple(1)),
            },
            Frame {
                offset: 20,
                form: Form::Append(vec![VType::Object(3)]),
            },
            Frame {
                offset: 30,
                form: Form::Full(vec![VType::Uninitialized(2)], vec![]),
            },
            Frame {
                offset: 31,
                form: Form::Chop(1),
            },
        ];
        let bytes = encode(&frames).unwrap();
        assert_eq!(decode(&bytes).unwrap(), frames);
        let mut moved = frames.clone();
        relocate(&mut moved, &|o| Some(o * 10), &|o| Some(o * 10 + 1)).unwrap();
        assert_eq!(moved[1].offset, 90);
        assert_eq!(
            moved[3].form,
            Form::Full(vec![VType::Uninitialized(21)], vec![])
        );
        let again = decode(&encode(&moved).unwrap()).unwrap();
        assert_eq!(again, moved);
        assert!(decode(&[0, 1, 200]).is_err());
    }
}
