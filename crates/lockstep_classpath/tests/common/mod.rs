//! Shared test helpers: building jars in memory, fake class bytes, and
//! locating the JDKs installed on the machine (tests that need one print a
//! note and return when it is absent).
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

pub const JDK17: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
pub const JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

/// Bytes that start like a class file; this crate never parses further.
pub fn fake_class(tag: &str) -> Vec<u8> {
    let mut bytes = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61];
    // Repetitive so that deflate really compresses it.
    for _ in 0..20 {
        bytes.extend_from_slice(tag.as_bytes());
    }
    bytes
}

/// A jar (zip) with the given entries; `deflate` picks DEFLATE vs STORE.
/// Entries are written with data descriptors, as the `jar` tool does.
pub fn make_zip(entries: &[(&str, &[u8])], deflate: bool) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut archive = rawzip::ZipArchiveWriter::new(&mut out);
        for (name, data) in entries {
            let method = if deflate {
                rawzip::CompressionMethod::DEFLATE
            } else {
                rawzip::CompressionMethod::STORE
            };
            let (mut entry, _config) = archive
                .new_file(*name)
                .compression_method(method)
                .start()
                .unwrap();
            if deflate {
                let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::default());
                let mut buf = vec![0u8; c.deflate_compress_bound(data.len())];
                let n = c.deflate_compress(data, &mut buf).unwrap();
                entry.write_all(&buf[..n]).unwrap();
            } else {
                entry.write_all(data).unwrap();
            }
            entry
                .finish(rawzip::DataDescriptorOutput::new(
                    libdeflater::crc32(data),
                    data.len() as u64,
                ))
                .unwrap();
        }
        archive.finish().unwrap();
    }
    out
}

/// The compressed data range of `name` inside `zip`.
pub fn entry_data_range(zip: &[u8], name: &str) -> (usize, usize) {
    let archive = rawzip::ZipArchive::from_slice(zip).unwrap();
    let mut entries = archive.entries();
    while let Some(e) = entries.next_entry().unwrap() {
        if e.file_path().as_bytes() == name.as_bytes() {
            let local = archive.get_entry(e.wayfinder()).unwrap();
            let (start, end) = local.compressed_data_range();
            return (start as usize, end as usize);
        }
    }
    panic!("no entry {name}");
}

/// `Some(home)` if the JDK is installed with the given tool, else prints a
/// note (so a skipped test is visible with `--nocapture`) and gives `None`.
pub fn jdk_with(home: &str, tool: &str) -> Option<PathBuf> {
    let home = PathBuf::from(home);
    if home.join("bin").join(tool).is_file() {
        Some(home)
    } else {
        eprintln!(
            "note: skipping: {} not found",
            home.join("bin").join(tool).display()
        );
        None
    }
}

pub fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
}

/// Entry names (or file names) of classes, for order assertions.
pub fn entries(classes: &[lockstep_classpath::ClassBytes]) -> Vec<String> {
    classes
        .iter()
        .map(|c| match &c.origin.entry {
            Some(e) => e.clone(),
            None => c.origin.container.display().to_string(),
        })
        .collect()
}
