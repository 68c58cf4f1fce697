//! How the command line's paths become what `lockstep_classpath` reads:
//! the Java release multi-release jars are read for (the JDK's, else 17),
//! and the library class path (`-cp`, `--module-path`, and what the inputs
//! themselves bring: nested libraries of Spring Boot/WAR/EAR archives and
//! their manifests' `Class-Path`).

use std::path::PathBuf;

use lockstep_classpath::ReadOptions;

use crate::args::InputArgs;

/// The release of the JDK that will be used, or the default.
pub fn read_options(input: &InputArgs) -> ReadOptions {
    let release = (!input.no_jdk)
        .then(|| lockstep_classpath::find_jdk(input.jdk.as_deref()).ok())
        .flatten()
        .and_then(|home| lockstep_classpath::jdk_release(&home));
    match release {
        Some(release) => ReadOptions { release },
        None => ReadOptions::default(),
    }
}

/// `-cp`, then `--module-path`, then the libraries the inputs bring.
pub fn library_paths(input: &InputArgs, from_inputs: &[PathBuf]) -> Vec<PathBuf> {
    input
        .classpath
        .iter()
        .chain(&input.module_path)
        .chain(from_inputs)
        .cloned()
        .collect()
}
