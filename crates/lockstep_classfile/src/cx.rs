//! Per-class parsing state shared by the attribute, code and annotation
//! parsers: the resolved pool, the options, the warnings collected so far,
//! and scratch space reused from method to method.
//!
//! It also holds the generic attribute plumbing: reading an attribute
//! header into a sub-reader of exactly its declared length, and running an
//! *optional* attribute's parser so that a failure drops just that
//! attribute with a warning. Which attributes are optional is decided by
//! the callers, not here.

use std::fmt;
use std::sync::Arc;

use crate::error::ParseError;
use crate::model::{Constant, ConstantPool};
use crate::pool::{describe_slot, tag};
use crate::reader::Reader;

/// Which member an attribute belongs to, for messages. Borrowed, so naming
/// costs nothing unless a message is actually written.
#[derive(Clone, Copy)]
pub(crate) enum Owner<'x> {
    Class(&'x str),
    Field(&'x str, &'x str),
    Method(&'x str, &'x str),
}

impl fmt::Display for Owner<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Owner::Class(name) => write!(f, "class {name}"),
            Owner::Field(name, desc) => write!(f, "field {name} {desc}"),
            Owner::Method(name, desc) => write!(f, "method {name}{desc}"),
        }
    }
}

pub(crate) struct Cx<'p> {
    pub pool: &'p ConstantPool,
    pub tags: &'p [u8],
    pub major: u16,
    pub decode_code: bool,
    pub warnings: Vec<String>,
    /// Instruction-start bitmap, reused by every Code attribute.
    pub boundaries: Vec<u64>,
}

/// An attribute header: its name and a reader over exactly its body.
pub(crate) struct Attr<'p, 'a> {
    pub name: &'p str,
    pub body: Reader<'a>,
    /// Offset of the attribute header, for messages.
    pub offset: usize,
}

impl<'p> Cx<'p> {
    /// The string at `idx` if it is a `Utf8` entry. The result borrows the
    /// pool, not the context, so it can be held while warnings are added.
    #[inline]
    pub fn utf8(&self, idx: u16) -> Option<&'p Arc<str>> {
        match self.pool.entries.get(usize::from(idx)) {
            Some(Constant::Utf8(s)) => Some(s),
            _ => None,
        }
    }

    /// The `Utf8` entry at `idx`, or an error naming `what` refers to it.
    pub fn expect_utf8(&self, idx: u16, at: usize, what: &str) -> Result<&'p Arc<str>, ParseError> {
        self.utf8(idx)
            .ok_or_else(|| self.bad_index(idx, at, what, tag::bit(tag::UTF8)))
    }

    /// The class name at `idx`, which must be a `Class` entry.
    pub fn expect_class(
        &self,
        idx: u16,
        at: usize,
        what: &str,
    ) -> Result<&'p Arc<str>, ParseError> {
        match self.pool.entries.get(usize::from(idx)) {
            Some(Constant::Class(s)) => Ok(s),
            _ => Err(self.bad_index(idx, at, what, tag::bit(tag::CLASS))),
        }
    }

    /// Index 0 means "none"; anything else must be a `Class`.
    pub fn optional_class(
        &self,
        idx: u16,
        at: usize,
        what: &str,
    ) -> Result<Option<&'p Arc<str>>, ParseError> {
        if idx == 0 {
            Ok(None)
        } else {
            self.expect_class(idx, at, what).map(Some)
        }
    }

    /// Checks that `idx` is one of the kinds in `allowed` (a [`tag::bit`] set).
    #[inline]
    pub fn expect_kind(
        &self,
        idx: u16,
        allowed: u32,
        at: usize,
        what: &str,
    ) -> Result<(), ParseError> {
        match self.tags.get(usize::from(idx)) {
            Some(&t) if t != tag::NONE && tag::bit(t) & allowed != 0 => Ok(()),
            _ => Err(self.bad_index(idx, at, what, allowed)),
        }
    }

    #[cold]
    pub fn bad_index(&self, idx: u16, at: usize, what: &str, expected: u32) -> ParseError {
        ParseError::new(
            at,
            format!(
                "{what} refers to {}; expected {}",
                describe_slot(self.tags, idx),
                tag::names(expected)
            ),
        )
    }

    #[cold]
    pub fn warn(&mut self, owner: Owner<'_>, message: impl fmt::Display) {
        self.warnings.push(format!("{owner}: {message}"));
    }

    /// Reads one attribute header and splits off its body. A name that is
    /// not a `Utf8` or a length past the end of the enclosing structure is
    /// malformed structure, hence an error.
    pub fn attribute<'a>(&self, r: &mut Reader<'a>) -> Result<Attr<'p, 'a>, ParseError> {
        let offset = r.offset();
        let name_idx = r.u16()?;
        let name = self.expect_utf8(name_idx, offset, "attribute name")?;
        let len = r.u32()?;
        let remaining = r.remaining();
        let body = match usize::try_from(len) {
            Ok(n) if n <= remaining => r.sub(n)?,
            _ => {
                return Err(ParseError::new(
                    offset,
                    format!(
                        "attribute {name} declares length {len} but only {remaining} bytes remain"
                    ),
                ))
            }
        };
        Ok(Attr { name, body, offset })
    }

    /// Runs the parser of an optional attribute over its whole body. If it
    /// fails, or leaves bytes unread (the declared length must be exact),
    /// the attribute is dropped with a warning naming `owner`.
    pub fn optional<'a, T>(
        &mut self,
        owner: Owner<'_>,
        mut attr: Attr<'p, 'a>,
        parse: impl FnOnce(&Self, &mut Reader<'a>) -> Result<T, ParseError>,
    ) -> Option<T> {
        match parse(self, &mut attr.body) {
            Ok(v) if attr.body.remaining() == 0 => Some(v),
            Ok(_) => {
                let left = attr.body.remaining();
                self.warn(
                    owner,
                    format_args!(
                        "dropped {} attribute at byte {}: {left} bytes left over after its content",
                        attr.name, attr.offset
                    ),
                );
                None
            }
            Err(e) => {
                self.warn(
                    owner,
                    format_args!("dropped malformed {} attribute: {e}", attr.name),
                );
                None
            }
        }
    }
}
