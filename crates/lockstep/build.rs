//! Builds the JVMTI agent (`lockstep_agent`, a `cdylib`) with a nested
//! `cargo build --release` into its own target directory under `OUT_DIR`,
//! so `lockstep run` can carry it inside the one `lockstep` binary
//! (`include_bytes!`) and unpack it to a cache directory on first use.
//!
//! The outer cargo's build configuration is cleared from the environment:
//! the agent is always an optimised build for the host, whatever profile,
//! flags or target directory the outer build uses.

use std::path::{Path, PathBuf};
use std::process::Command;

const AGENT_INPUTS: &[&str] = &[
    "lockstep_agent",
    "lockstep_instrument",
    "lockstep_trace",
    "lockstep_classfile/src",
    "lockstep_models/src",
];

fn main() {
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let crates = manifest.parent().expect("crates dir").to_path_buf();
    let workspace = crates.parent().expect("workspace dir").to_path_buf();
    for input in AGENT_INPUTS {
        println!("cargo:rerun-if-changed={}", crates.join(input).display());
    }
    println!(
        "cargo:rerun-if-changed={}",
        workspace.join("Cargo.lock").display()
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let target = out.join("agent-target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&workspace)
        .args([
            "build",
            "--release",
            "--locked",
            "-p",
            "lockstep_agent",
            "--lib",
            "--target-dir",
        ])
        .arg(&target);
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        let outer_config = matches!(
            &*k,
            "CARGO_TARGET_DIR"
                | "RUSTFLAGS"
                | "CARGO_ENCODED_RUSTFLAGS"
                | "RUSTDOCFLAGS"
                | "CARGO_INCREMENTAL"
        ) || k.starts_with("CARGO_BUILD_")
            || k.starts_with("CARGO_PROFILE_")
            || k.starts_with("CARGO_TARGET_");
        if outer_config {
            cmd.env_remove(&key);
        }
    }
    let status = cmd
        .status()
        .expect("run the nested cargo build of lockstep_agent");
    assert!(status.success(), "building lockstep_agent failed");
    let lib = agent_file(&target.join("release"));
    let dest = out.join("lockstep_agent.so");
    std::fs::copy(&lib, &dest).unwrap_or_else(|e| panic!("copy {}: {e}", lib.display()));
    // The unpacked agent is named after its content: hashed here once, not
    // on every `lockstep run` (8 MB, about 10 ms of a short run's start).
    let bytes = std::fs::read(&dest).unwrap_or_else(|e| panic!("read {}: {e}", dest.display()));
    println!(
        "cargo:rustc-env=LOCKSTEP_AGENT_HASH={:016x}",
        content_hash(&bytes)
    );
}

/// FNV-1a, to name the unpacked agent after its content.
fn content_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn agent_file(dir: &Path) -> PathBuf {
    [
        "liblockstep_agent.so",
        "liblockstep_agent.dylib",
        "lockstep_agent.dll",
    ]
    .iter()
    .map(|n| dir.join(n))
    .find(|p| p.is_file())
    .unwrap_or_else(|| panic!("no agent library in {}", dir.display()))
}
