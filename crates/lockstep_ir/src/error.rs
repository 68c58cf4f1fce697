//! The error of a failed lowering.
//!
//! Lowering fails only when the bytecode cannot mean anything (stack
//! underflow, a branch into the middle of an instruction, a local read
//! before any write...): code a verifier would reject. Oddities that still
//! have a meaning (unstructured locking, inlining budget exceeded) are
//! recorded in `Body::notes` instead.

use std::fmt;

/// Why a method could not be lowered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerError {
    /// Byte offset of the offending instruction, when one is to blame.
    pub pc: Option<u32>,
    pub message: String,
}

impl LowerError {
    pub(crate) fn at(pc: u32, message: impl Into<String>) -> LowerError {
        LowerError {
            pc: Some(pc),
            message: message.into(),
        }
    }

    pub(crate) fn new(message: impl Into<String>) -> LowerError {
        LowerError {
            pc: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pc {
            Some(pc) => write!(f, "at pc {pc}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for LowerError {}
