//! Where library classes come from.
//!
//! The program model never touches the file system: the CLI (or a test)
//! hands it a [`ClassProvider`] that returns class-file bytes by internal
//! name. Library classes are asked for lazily, the first time a super type,
//! a resolution or the call graph needs them.

/// Class-file bytes by internal name (`java/lang/Thread`).
pub trait ClassProvider: Sync {
    /// `None` when the provider has no such class; `Some(Err(message))`
    /// when it has one but cannot read it.
    fn load(&self, internal_name: &str) -> Option<Result<Vec<u8>, String>>;
}

/// A provider with no classes (for closed-world tests and application-only runs).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoLibrary;

impl ClassProvider for NoLibrary {
    fn load(&self, _internal_name: &str) -> Option<Result<Vec<u8>, String>> {
        None
    }
}

/// Any `Fn(&str) -> Option<Result<Vec<u8>, String>>` is a provider.
impl<F> ClassProvider for F
where
    F: Fn(&str) -> Option<Result<Vec<u8>, String>> + Sync,
{
    fn load(&self, internal_name: &str) -> Option<Result<Vec<u8>, String>> {
        self(internal_name)
    }
}
