//! lockstep's trace format: what the run-time recorder writes and the
//! run-time checkers read (`docs/trace-format.md` documents it byte by byte).
//!
//! - [`model`]: identifiers, [`Event`]s and the name tables.
//! - [`writer`]: [`ChunkEncoder`] (one per recording thread) and [`TraceWriter`].
//! - [`reader`]: the push [`Decoder`], the pulling [`StreamReader`] and [`read`].
//! - [`merge`]: the [`Merger`] that orders all threads' events.
//! - [`fast_hash`]: the integer hasher of the merger's (and the checkers') maps.
//!
//! A trace is the magic [`MAGIC`], a little-endian `u16` [`FORMAT_VERSION`],
//! then framed records (`tag`, varint length, payload). Readers never panic:
//! truncation and corruption come back as [`TraceError`]s naming byte offsets.

pub mod codec;
pub mod fast_hash;
pub mod keys;
pub mod merge;
pub mod model;
mod pool;
pub mod reader;
pub mod varint;
pub mod writer;

pub use merge::{merge_chunks, Merger};
pub use model::*;
pub use reader::{read, read_bytes, Decoder, Record, StreamReader, Tables, Trace, TraceError};
pub use writer::{ChunkEncoder, TraceWriter};

/// The first eight bytes of every trace.
pub const MAGIC: [u8; 8] = *b"LSTRACE\n";

/// The format version this crate writes (and the highest it reads).
pub const FORMAT_VERSION: u16 = 1;

/// Largest record payload a reader accepts; a larger length means corruption.
pub const MAX_RECORD_LEN: u64 = 256 * 1024 * 1024;

/// Record tags (first byte of every record).
pub mod tag {
    /// [`crate::Header`].
    pub const HEADER: u8 = 0x01;
    /// A chunk of one thread's events.
    pub const CHUNK: u8 = 0x02;
    /// A site definition.
    pub const SITE: u8 = 0x03;
    /// A field definition.
    pub const FIELD: u8 = 0x04;
    /// A method definition.
    pub const METHOD: u8 = 0x05;
    /// A class definition.
    pub const CLASS: u8 = 0x06;
    /// A thread definition or rename.
    pub const THREAD: u8 = 0x07;
    /// An object description.
    pub const OBJECT: u8 = 0x08;
    /// A recorder note.
    pub const NOTE: u8 = 0x09;
    /// A hang dump.
    pub const HANG: u8 = 0x0a;
    /// The end of a cleanly finished trace (empty payload).
    pub const END: u8 = 0x0b;
}
