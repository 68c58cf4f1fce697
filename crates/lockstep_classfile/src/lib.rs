//! Class-file reading for lockstep.
//!
//! `parse(bytes)` turns the bytes of one class file into a [`ClassFile`]. It
//! never panics: malformed input gives a [`ParseError`] describing what is
//! wrong and where; a malformed optional attribute is dropped with a warning.

pub mod model;

pub use model::*;
