//! [`ParseError`]: what is wrong with a class file, where, and in which part.
//!
//! Errors are built only on the failure path (`#[cold]`), so the happy path
//! pays nothing for the context strings. The context is assembled from the
//! inside out: the instruction decoder knows the pc, the Code parser adds
//! `Code`, the method loop adds `method run()V`. This module knows nothing
//! about class-file structure itself.

use std::fmt;

/// A class file that cannot be read.
///
/// `offset` is the absolute byte offset in the input where the problem was
/// found; `context` names the part of the class (`method run()V, Code`);
/// `message` says what is wrong. `Display` renders
/// `at byte 1234 in method run()V, Code: invalid branch target 9999 ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub offset: usize,
    pub context: String,
    pub message: String,
}

impl ParseError {
    #[cold]
    pub(crate) fn new(offset: usize, message: impl Into<String>) -> Self {
        ParseError {
            offset,
            context: String::new(),
            message: message.into(),
        }
    }

    /// Wraps the error in an outer context: `Code` inside `method run()V`
    /// becomes `method run()V, Code`.
    #[cold]
    pub(crate) fn within(mut self, outer: impl fmt::Display) -> Self {
        self.context = if self.context.is_empty() {
            outer.to_string()
        } else {
            format!("{outer}, {}", self.context)
        };
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.context.is_empty() {
            write!(f, "at byte {}: {}", self.offset, self.message)
        } else {
            write!(
                f,
                "at byte {} in {}: {}",
                self.offset, self.context, self.message
            )
        }
    }
}

impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_nests_context() {
        let e = ParseError::new(1234, "invalid branch target 9999 (code length 120)")
            .within("Code")
            .within("method run()V");
        assert_eq!(
            e.to_string(),
            "at byte 1234 in method run()V, Code: invalid branch target 9999 (code length 120)"
        );
        assert_eq!(ParseError::new(0, "empty").to_string(), "at byte 0: empty");
    }
}
