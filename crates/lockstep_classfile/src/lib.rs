//! Class-file reading for lockstep.
//!
//! [`parse`] turns the bytes of one class file into a [`ClassFile`]. It
//! never panics: malformed input gives a [`ParseError`] describing what is
//! wrong and where; a malformed optional attribute is dropped with a
//! warning in [`ClassFile::warnings`]. [`parse_with`] can skip instruction
//! decoding for fast indexing.
//!
//! The crate reads class-file versions 45–69 (Java 1.0 to 25). It decodes
//! and checks structure — constant-pool kinds, instruction boundaries,
//! branch targets, exception ranges — but does not verify types or stack
//! shapes, and does not load or link other classes.
//!
//! Attributes read: `Code` (with `LineNumberTable`, `LocalVariableTable`),
//! `Exceptions`, `SourceFile`, `Signature`, `ConstantValue`,
//! `InnerClasses`, `EnclosingMethod`, `NestHost`, `NestMembers`, `Record`,
//! `BootstrapMethods`, and `Runtime(In)Visible(Parameter)Annotations`.
//! Everything else (`StackMapTable`, `LocalVariableTypeTable`, type
//! annotations, `Module`, `PermittedSubclasses`, ...) is skipped by length.
//! `Code` and `BootstrapMethods` are structural: if malformed, `parse`
//! fails. The others are optional: if malformed, they are dropped with a
//! warning naming the member.
//!
//! Deliberately lenient: `jsr`/`ret` in version 51+ classes are accepted
//! with a warning; the count byte of `invokeinterface`, switch padding
//! bytes, `lookupswitch` key order and constant kinds allowed only in later
//! versions are not checked; malformed modified UTF-8 becomes U+FFFD.
//!
//! Module map: `reader` (bounds-checked cursor), `mutf8` (modified UTF-8),
//! `pool` (constant pool), `cx` (per-class state, attribute plumbing),
//! `class` (top level, structural vs optional attributes), `attributes`
//! (small attributes), `code` (bytecode), `annotations`, and `model` (the
//! data types other crates use).
//!
//! Performance note for binaries: parsing allocates one `Arc<str>` per
//! `Utf8` constant and one vector per method; a faster global allocator
//! (e.g. mimalloc) in the *binary* helps. This library sets none.

// The one `unsafe` block (an ASCII fast path in `mutf8`) is allowed
// locally; anything else must be argued for the same way.
#![deny(unsafe_code)]
// No input may make the parser panic; let clippy hold us to it.
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo
    )
)]

mod annotations;
mod attributes;
mod class;
mod code;
mod cx;
pub mod descriptor;
mod error;
pub mod model;
mod mutf8;
mod pool;
mod reader;

pub use class::{java_release, MAX_MAJOR_VERSION, MIN_MAJOR_VERSION};
pub use error::ParseError;
pub use model::*;
pub use mutf8::decode_modified_utf8;

/// What [`parse_with`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions {
    /// Decode instructions into [`Code::insns`] and check branch targets
    /// and exception ranges against instruction boundaries. When `false`,
    /// `insns` is left empty and exception ranges are only checked against
    /// `code_length`; everything else (pool, members, tables) is read as
    /// usual. For fast indexing of large class paths.
    pub decode_code: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { decode_code: true }
    }
}

impl ParseOptions {
    /// Everything except instruction decoding.
    pub fn index_only() -> Self {
        ParseOptions { decode_code: false }
    }
}

/// Parses one class file, decoding every method's instructions.
pub fn parse(bytes: &[u8]) -> Result<ClassFile, ParseError> {
    parse_with(bytes, &ParseOptions::default())
}

/// Parses one class file with the given options.
pub fn parse_with(bytes: &[u8], opts: &ParseOptions) -> Result<ClassFile, ParseError> {
    class::parse_class(bytes, opts)
}
