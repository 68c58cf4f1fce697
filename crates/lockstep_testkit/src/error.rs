//! Why a compile did not produce classes.

use std::fmt;
use std::io;

/// Why a compile did not produce classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileError {
    /// No usable javac (see [`javac()`]).
    NoJavac(String),
    /// A source file's path is unusable, or two sources share a path.
    InvalidSource {
        /// The offending path as given.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// [`compile_dir`] found no `.java` files, or `compile` got an empty list.
    NoSources(String),
    /// Reading the fixture or writing the cache failed.
    Io {
        /// What was being done, with the path.
        context: String,
        /// The OS error.
        message: String,
    },
    /// javac ran and rejected the sources.
    Javac {
        /// The command line, for reproducing by hand.
        command: String,
        /// Exit code, if javac exited normally.
        status: Option<i32>,
        /// javac's stderr and stdout: the diagnostics.
        output: String,
    },
}

impl CompileError {
    pub(crate) fn io(context: impl Into<String>, err: io::Error) -> CompileError {
        CompileError::Io {
            context: context.into(),
            message: err.to_string(),
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::NoJavac(msg) => write!(f, "no javac: {msg}"),
            CompileError::InvalidSource { path, reason } => {
                write!(f, "invalid source `{path}`: {reason}")
            }
            CompileError::NoSources(what) => write!(f, "no Java sources: {what}"),
            CompileError::Io { context, message } => write!(f, "{context}: {message}"),
            CompileError::Javac {
                command,
                status,
                output,
            } => {
                let status = status.map_or("killed by a signal".to_string(), |c| {
                    format!("exit code {c}")
                });
                write!(f, "javac failed ({status})\n$ {command}\n{output}")
            }
        }
    }
}

impl std::error::Error for CompileError {}
