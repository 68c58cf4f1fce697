//! The constant pool: read every entry, then resolve every reference.
//!
//! Resolution takes two passes because entries may refer forwards (a
//! `Fieldref` at #3 naming a `NameAndType` at #40). Pass one reads raw
//! entries, decoding each `Utf8` once into an `Arc<str>`; pass two resolves
//! names by cloning those `Arc`s, so every `Class`, `MemberRef`, field name
//! and descriptor shares the `Utf8` entry's allocation. Pass two also
//! checks kinds (a `Fieldref`'s class must be a `Class`, a `MethodHandle`'s
//! reference a member of the right sort) and reports bad indices with both
//! ends of the reference.
//!
//! Besides the resolved pool, parsing keeps the raw tag of every slot so the
//! instruction decoder can check operand kinds with one byte load. This
//! module does not know which constants a given version may contain (a
//! `Dynamic` in a Java 8 class is accepted) nor check descriptor syntax.

use std::sync::Arc;

use crate::error::ParseError;
use crate::model::{Constant, ConstantPool, MemberRef};
use crate::mutf8;
use crate::reader::Reader;

/// Constant-pool tags (JVMS §4.4). Slot 0 and the second slot of a
/// `Long`/`Double` get [`tag::NONE`].
pub(crate) mod tag {
    pub const NONE: u8 = 0;
    pub const UTF8: u8 = 1;
    pub const INTEGER: u8 = 3;
    pub const FLOAT: u8 = 4;
    pub const LONG: u8 = 5;
    pub const DOUBLE: u8 = 6;
    pub const CLASS: u8 = 7;
    pub const STRING: u8 = 8;
    pub const FIELDREF: u8 = 9;
    pub const METHODREF: u8 = 10;
    pub const INTERFACE_METHODREF: u8 = 11;
    pub const NAME_AND_TYPE: u8 = 12;
    pub const METHOD_HANDLE: u8 = 15;
    pub const METHOD_TYPE: u8 = 16;
    pub const DYNAMIC: u8 = 17;
    pub const INVOKE_DYNAMIC: u8 = 18;
    pub const MODULE: u8 = 19;
    pub const PACKAGE: u8 = 20;

    /// A set of tags, for "one of these kinds" checks.
    pub const fn bit(t: u8) -> u32 {
        1 << (t & 31)
    }

    /// Constants `ldc`/`ldc_w` may load.
    pub const LOADABLE_1: u32 = bit(INTEGER)
        | bit(FLOAT)
        | bit(STRING)
        | bit(CLASS)
        | bit(METHOD_TYPE)
        | bit(METHOD_HANDLE)
        | bit(DYNAMIC);
    /// Constants `ldc2_w` may load.
    pub const LOADABLE_2: u32 = bit(LONG) | bit(DOUBLE) | bit(DYNAMIC);
    /// Static arguments of a bootstrap method.
    pub const LOADABLE_ANY: u32 = LOADABLE_1 | LOADABLE_2;

    pub fn name(t: u8) -> &'static str {
        match t {
            UTF8 => "Utf8",
            INTEGER => "Integer",
            FLOAT => "Float",
            LONG => "Long",
            DOUBLE => "Double",
            CLASS => "Class",
            STRING => "String",
            FIELDREF => "Fieldref",
            METHODREF => "Methodref",
            INTERFACE_METHODREF => "InterfaceMethodref",
            NAME_AND_TYPE => "NameAndType",
            METHOD_HANDLE => "MethodHandle",
            METHOD_TYPE => "MethodType",
            DYNAMIC => "Dynamic",
            INVOKE_DYNAMIC => "InvokeDynamic",
            MODULE => "Module",
            PACKAGE => "Package",
            _ => "unusable slot",
        }
    }

    /// `"Class"`, `"Methodref or InterfaceMethodref"`, ... for messages.
    pub fn names(set: u32) -> String {
        let mut out = String::new();
        for t in 1..=20u8 {
            if set & bit(t) != 0 {
                if !out.is_empty() {
                    out.push_str(" or ");
                }
                out.push_str(name(t));
            }
        }
        out
    }
}

/// The resolved pool plus what later stages need to check references.
pub(crate) struct Pool {
    pub constants: ConstantPool,
    /// Raw tag of every slot (same length as `constants.entries`).
    pub tags: Vec<u8>,
    /// File offset of every entry, for error messages.
    pub offsets: Vec<u32>,
}

/// Pass one stores every entry it can complete (`Utf8`, numbers) straight
/// into the final vector, and the raw indices of the others in `links`
/// (`Class` → `(name, 0)`, `Fieldref` → `(class, name_and_type)`, ...).
/// Pass two replaces those placeholders in place, so there is no second
/// vector of raw entries and no string is ever copied.
pub(crate) fn parse_pool(r: &mut Reader<'_>) -> Result<Pool, ParseError> {
    let count_at = r.offset();
    let count = usize::from(r.u16()?);
    if count == 0 {
        return Err(ParseError::new(
            count_at,
            "constant_pool_count is 0; it must be at least 1",
        ));
    }
    // The smallest entry is 3 bytes; don't trust the count beyond that.
    let cap = r.capacity_for(count, 3).saturating_add(1);
    let mut entries: Vec<Constant> = Vec::with_capacity(cap);
    let mut links: Vec<(u16, u16)> = Vec::with_capacity(cap);
    let mut tags: Vec<u8> = Vec::with_capacity(cap);
    let mut offsets: Vec<u32> = Vec::with_capacity(cap);
    let offset32 = |at: usize| u32::try_from(at).unwrap_or(u32::MAX);
    entries.push(Constant::Unusable);
    links.push((0, 0));
    tags.push(tag::NONE);
    offsets.push(offset32(count_at));

    while entries.len() < count {
        let at = r.offset();
        let index = entries.len();
        let t = r
            .u8()
            .map_err(|e| e.within(format_args!("constant #{index}")))?;
        read_entry(r, t, at, index, &mut entries, &mut links)
            .map_err(|e| e.within(format_args!("constant #{index} ({})", tag::name(t))))?;
        tags.push(t);
        offsets.push(offset32(at));
        if matches!(t, tag::LONG | tag::DOUBLE) {
            if entries.len() >= count {
                return Err(ParseError::new(
                    at,
                    format!(
                        "constant #{index} ({}) takes two slots but is the last entry of a pool of size {count}",
                        tag::name(t)
                    ),
                ));
            }
            entries.push(Constant::Unusable);
            links.push((0, 0));
            tags.push(tag::NONE);
            offsets.push(offset32(at));
        }
    }

    let resolver = Resolver {
        tags: &tags,
        links: &links,
        offsets: &offsets,
    };
    for i in 0..entries.len() {
        resolver.resolve(i, &mut entries)?;
    }
    Ok(Pool {
        constants: ConstantPool { entries },
        tags,
        offsets,
    })
}

/// Reads one entry's body and pushes it (with its raw indices, for
/// entries that refer to others) straight onto the vectors: building the
/// `Constant` on the stack and copying it costs a store-forwarding stall
/// per entry.
fn read_entry(
    r: &mut Reader<'_>,
    t: u8,
    at: usize,
    index: usize,
    entries: &mut Vec<Constant>,
    links: &mut Vec<(u16, u16)>,
) -> Result<(), ParseError> {
    match t {
        tag::UTF8 => {
            let len = usize::from(r.u16()?);
            entries.push(Constant::Utf8(mutf8::decode_arc(r.bytes(len)?)));
            links.push((0, 0));
        }
        tag::INTEGER => {
            entries.push(Constant::Integer(r.u32()? as i32));
            links.push((0, 0));
        }
        tag::FLOAT => {
            entries.push(Constant::Float(f32::from_bits(r.u32()?)));
            links.push((0, 0));
        }
        tag::LONG => {
            entries.push(Constant::Long(r.u64()? as i64));
            links.push((0, 0));
        }
        tag::DOUBLE => {
            entries.push(Constant::Double(f64::from_bits(r.u64()?)));
            links.push((0, 0));
        }
        tag::CLASS | tag::STRING | tag::METHOD_TYPE | tag::MODULE | tag::PACKAGE => {
            links.push((r.u16()?, 0));
            entries.push(Constant::Unusable);
        }
        tag::FIELDREF
        | tag::METHODREF
        | tag::INTERFACE_METHODREF
        | tag::NAME_AND_TYPE
        | tag::DYNAMIC
        | tag::INVOKE_DYNAMIC => {
            let a = r.u16()?;
            links.push((a, r.u16()?));
            entries.push(Constant::Unusable);
        }
        tag::METHOD_HANDLE => {
            let kind = r.u8()?;
            links.push((u16::from(kind), r.u16()?));
            entries.push(Constant::Unusable);
        }
        _ => {
            return Err(ParseError::new(
                at,
                format!("constant #{index} has unknown tag {t}"),
            ))
        }
    }
    Ok(())
}

struct Resolver<'r> {
    tags: &'r [u8],
    links: &'r [(u16, u16)],
    offsets: &'r [u32],
}

impl Resolver<'_> {
    /// Replaces the placeholder at `i` by its resolved form; entries pass
    /// one completed are left alone. Writes in place for the same reason
    /// `read_entry` pushes in place.
    fn resolve(&self, i: usize, entries: &mut [Constant]) -> Result<(), ParseError> {
        let t = self.tags.get(i).copied().unwrap_or(tag::NONE);
        let (a, b) = self.links.get(i).copied().unwrap_or((0, 0));
        let resolved = match t {
            tag::CLASS => Constant::Class(self.utf8(entries, i, a)?),
            tag::STRING => Constant::String(self.utf8(entries, i, a)?),
            tag::METHOD_TYPE => Constant::MethodType(self.utf8(entries, i, a)?),
            tag::MODULE => Constant::Module(self.utf8(entries, i, a)?),
            tag::PACKAGE => Constant::Package(self.utf8(entries, i, a)?),
            tag::NAME_AND_TYPE => Constant::NameAndType {
                name: self.utf8(entries, i, a)?,
                descriptor: self.utf8(entries, i, b)?,
            },
            tag::DYNAMIC | tag::INVOKE_DYNAMIC => {
                let (name, descriptor) = self.name_and_type(entries, i, b)?;
                if t == tag::DYNAMIC {
                    Constant::Dynamic {
                        bootstrap_index: a,
                        name,
                        descriptor,
                    }
                } else {
                    Constant::InvokeDynamic {
                        bootstrap_index: a,
                        name,
                        descriptor,
                    }
                }
            }
            tag::FIELDREF | tag::METHODREF | tag::INTERFACE_METHODREF => {
                let class = self.class(entries, i, a)?;
                let (name, descriptor) = self.name_and_type(entries, i, b)?;
                let m = MemberRef {
                    class,
                    name,
                    descriptor,
                };
                match t {
                    tag::FIELDREF => Constant::FieldRef(m),
                    tag::METHODREF => Constant::MethodRef(m),
                    _ => Constant::InterfaceMethodRef(m),
                }
            }
            tag::METHOD_HANDLE => {
                let kind = a as u8;
                // JVMS §4.4.8: kinds 1-4 are field accesses, 5-9 invocations.
                let allowed = match kind {
                    1..=4 => tag::bit(tag::FIELDREF),
                    5 | 8 => tag::bit(tag::METHODREF),
                    6 | 7 => tag::bit(tag::METHODREF) | tag::bit(tag::INTERFACE_METHODREF),
                    9 => tag::bit(tag::INTERFACE_METHODREF),
                    _ => {
                        return Err(self.error(
                            i,
                            format!(
                                "constant #{i} (MethodHandle) has invalid reference kind {kind}"
                            ),
                        ))
                    }
                };
                self.expect(i, b, allowed)?;
                Constant::MethodHandle { kind, reference: b }
            }
            _ => return Ok(()),
        };
        if let Some(slot) = entries.get_mut(i) {
            *slot = resolved;
        }
        Ok(())
    }

    fn expect(&self, from: usize, idx: u16, allowed: u32) -> Result<(), ParseError> {
        match self.tags.get(usize::from(idx)) {
            Some(&t) if tag::bit(t) & allowed != 0 && t != tag::NONE => Ok(()),
            _ => Err(self.bad_ref(from, idx, allowed)),
        }
    }

    #[inline]
    fn utf8(&self, entries: &[Constant], from: usize, idx: u16) -> Result<Arc<str>, ParseError> {
        match entries.get(usize::from(idx)) {
            Some(Constant::Utf8(s)) => Ok(s.clone()),
            _ => Err(self.bad_ref(from, idx, tag::bit(tag::UTF8))),
        }
    }

    fn class(&self, entries: &[Constant], from: usize, idx: u16) -> Result<Arc<str>, ParseError> {
        self.expect(from, idx, tag::bit(tag::CLASS))?;
        let (name, _) = self.links.get(usize::from(idx)).copied().unwrap_or((0, 0));
        self.utf8(entries, usize::from(idx), name)
    }

    fn name_and_type(
        &self,
        entries: &[Constant],
        from: usize,
        idx: u16,
    ) -> Result<(Arc<str>, Arc<str>), ParseError> {
        self.expect(from, idx, tag::bit(tag::NAME_AND_TYPE))?;
        let (n, d) = self.links.get(usize::from(idx)).copied().unwrap_or((0, 0));
        let at = usize::from(idx);
        Ok((self.utf8(entries, at, n)?, self.utf8(entries, at, d)?))
    }

    #[cold]
    fn error(&self, at: usize, message: String) -> ParseError {
        let offset = self.offsets.get(at).copied().unwrap_or(0);
        ParseError::new(offset as usize, message)
    }

    #[cold]
    fn bad_ref(&self, from: usize, idx: u16, expected: u32) -> ParseError {
        let from_kind = tag::name(self.tags.get(from).copied().unwrap_or(tag::NONE));
        let expected = tag::names(expected);
        let what = describe_slot(self.tags, idx);
        self.error(
            from,
            format!("constant #{from} ({from_kind}) refers to {what}; expected {expected}"),
        )
    }
}

/// A human-readable description of what `idx` holds, for error messages
/// outside the pool ("#40, past the end of the pool (size 30)").
pub(crate) fn describe_slot(tags: &[u8], idx: u16) -> String {
    match tags.get(usize::from(idx)) {
        _ if idx == 0 => "#0, which is never a valid index".to_string(),
        None => format!("#{idx}, past the end of the pool (size {})", tags.len()),
        Some(&tag::NONE) => format!("#{idx}, the unusable second slot of a Long or Double"),
        Some(&t) => format!("#{idx}, a {}", tag::name(t)),
    }
}
