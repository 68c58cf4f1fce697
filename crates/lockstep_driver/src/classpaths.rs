//! How the inputs' paths become what `lockstep_classpath` reads: the Java
//! release multi-release jars are read for (the JDK's, else 17), and the
//! library class path (the class path given, then what the inputs
//! themselves bring: nested libraries of Spring Boot/WAR/EAR archives and
//! their manifests' `Class-Path`).

use std::path::PathBuf;

use lockstep_classpath::ReadOptions;

use crate::load::Inputs;

/// The release of the JDK that will be used, or the default.
pub(crate) fn read_options(input: &Inputs) -> ReadOptions {
    let release = (!input.no_jdk)
        .then(|| lockstep_classpath::find_jdk(input.jdk.as_deref()).ok())
        .flatten()
        .and_then(|home| lockstep_classpath::jdk_release(&home));
    match release {
        Some(release) => ReadOptions { release },
        None => ReadOptions::default(),
    }
}

/// The class path given, then the libraries the inputs bring.
pub(crate) fn library_paths(input: &Inputs, from_inputs: &[PathBuf]) -> Vec<PathBuf> {
    input.classpath.iter().chain(from_inputs).cloned().collect()
}
