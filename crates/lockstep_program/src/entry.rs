//! Entry points: where execution of the analysed program may begin.
//!
//! A closed program starts at `public static void main(String[])` of its
//! application classes (and at the static initializers that run first,
//! which the call graph adds by itself). An open program — a library, or
//! when asked — may be driven by any client: following paper 002 §4.5.3's
//! harness, every public or protected method (constructors included) of
//! every public application class is an entry, plus every application
//! `<clinit>`. Abstract and native methods have no body and are skipped.
//!
//! This module does not decide how often entries run; the thread-root
//! analysis treats every entry of an open program as callable repeatedly
//! and concurrently.

use crate::program::{MethodId, Program};

/// Which harness produced the entry points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryMode {
    /// The `main` methods of the application.
    Main,
    /// Every public/protected method of public application classes, because it was asked for.
    Open,
    /// Like `Open`, because no application class has a `main` method.
    OpenNoMain,
}

impl EntryMode {
    pub fn is_open(self) -> bool {
        !matches!(self, EntryMode::Main)
    }

    pub fn describe(self) -> &'static str {
        match self {
            EntryMode::Main => "main methods",
            EntryMode::Open => "open program (all public and protected methods)",
            EntryMode::OpenNoMain => {
                "open program (no main method found: all public and protected methods)"
            }
        }
    }
}

/// Entry points and the mode that chose them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoints {
    pub mode: EntryMode,
    /// Sorted by id (application classes are numbered in name order, so
    /// this is class-name order, then class-file order).
    pub methods: Vec<MethodId>,
}

impl EntryPoints {
    /// Custom entry points (tests, or a CLI option naming methods).
    pub fn from_methods(mode: EntryMode, mut methods: Vec<MethodId>) -> EntryPoints {
        methods.sort_unstable();
        methods.dedup();
        EntryPoints { mode, methods }
    }
}

const MAIN_DESC: &str = "([Ljava/lang/String;)V";

/// The entry points of `program`: its `main` methods unless `open` is
/// asked for or there is none, else the open-program harness.
pub fn entry_points(program: &Program, open: bool) -> EntryPoints {
    let mains: Vec<MethodId> = program
        .application_classes()
        .filter_map(|c| program.class(c).declared_method("main", MAIN_DESC))
        .filter(|&m| {
            let md = program.method(m);
            md.is_static() && md.is_public()
        })
        .collect();
    if !open && !mains.is_empty() {
        return EntryPoints::from_methods(EntryMode::Main, mains);
    }
    let mut methods = Vec::new();
    for c in program.application_classes() {
        let info = program.class(c);
        for &m in &info.methods {
            let md = program.method(m);
            if md.is_abstract() || md.is_native() {
                continue;
            }
            let visible = info.is_public() && (md.is_public() || md.is_protected());
            if visible || md.is_class_initializer() {
                methods.push(m);
            }
        }
    }
    let mode = if open {
        EntryMode::Open
    } else {
        EntryMode::OpenNoMain
    };
    EntryPoints::from_methods(mode, methods)
}
