//! Parses every class in a `.jmod`, `.jar`/`.zip`, directory or `.class`
//! file and prints counts and single-threaded timings, for BENCHMARKS.md.
//!
//! ```text
//! cargo run --release -p lockstep_classfile --example parse_all -- \
//!     /usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod [--iterations N]
//! ```
//!
//! All class bytes are read into memory first; only parsing (and dropping
//! each result) is timed, single-threaded. Each pass parses every class
//! once; the best and median passes are reported for `parse` and for
//! index-only mode (`decode_code: false`).

use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lockstep_classfile::{parse_with, Insn, ParseOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut inputs = Vec::new();
    let mut iterations = 5usize;
    while let Some(a) = args.next() {
        if a == "--iterations" {
            iterations = args.next().and_then(|n| n.parse().ok()).unwrap_or(5).max(1);
        } else {
            inputs.push(PathBuf::from(a));
        }
    }
    if inputs.is_empty() {
        eprintln!("usage: parse_all <jmod|jar|dir|class>... [--iterations N]");
        std::process::exit(2);
    }
    let mut classes = Vec::new();
    for input in &inputs {
        if let Err(e) = load(input, &mut classes) {
            eprintln!("{}: {e}", input.display());
            std::process::exit(1);
        }
    }
    let bytes: usize = classes.iter().map(|(_, b)| b.len()).sum();

    // One untimed pass for the counts (and to warm caches).
    let (mut methods, mut insns, mut switches, mut failures, mut warnings) = (0, 0, 0, 0, 0);
    let mut code_bytes = 0u64;
    for (name, data) in &classes {
        match parse_with(data, &ParseOptions::default()) {
            Ok(c) => {
                methods += c.methods.len();
                warnings += c.warnings.len();
                for code in c.methods.iter().filter_map(|m| m.code.as_ref()) {
                    insns += code.insns.len();
                    code_bytes += u64::from(code.code_length);
                    switches += code
                        .insns
                        .iter()
                        .filter(|(_, i)| {
                            matches!(i, Insn::TableSwitch { .. } | Insn::LookupSwitch { .. })
                        })
                        .count();
                }
                for w in c.warnings.iter().take(3) {
                    eprintln!("warning: {name}: {w}");
                }
            }
            Err(e) => {
                failures += 1;
                if failures <= 20 {
                    eprintln!("FAILED {name}: {e}");
                }
            }
        }
    }
    println!(
        "{} classes, {methods} methods, {insns} instructions ({switches} switches) in {:.1} MB of bytecode, {:.1} MB of class files, {failures} failures, {warnings} warnings",
        classes.len(),
        code_bytes as f64 / 1e6,
        bytes as f64 / 1e6
    );

    for (label, opts) in [
        ("parse (full decode)", ParseOptions::default()),
        (
            "parse_with index only (decode_code: false)",
            ParseOptions::index_only(),
        ),
    ] {
        // Wall time, and on-CPU time of this thread (from the scheduler's
        // accounting), which is steadier on a busy machine.
        let mut wall: Vec<Duration> = Vec::with_capacity(iterations);
        let mut cpu: Vec<Duration> = Vec::with_capacity(iterations);
        for _ in 0..iterations {
            let cpu_start = thread_cpu();
            let start = Instant::now();
            for (_, data) in &classes {
                std::hint::black_box(parse_with(std::hint::black_box(data), &opts).is_ok());
            }
            wall.push(start.elapsed());
            if let (Some(a), Some(b)) = (cpu_start, thread_cpu()) {
                cpu.push(b.saturating_sub(a));
            }
        }
        wall.sort();
        cpu.sort();
        let best = wall.first().copied().unwrap_or_default();
        let median = wall.get(wall.len() / 2).copied().unwrap_or_default();
        let cpu_note = match (cpu.first(), cpu.get(cpu.len() / 2)) {
            (Some(b), Some(m)) => format!(
                "; on-CPU best {:.1} ms, median {:.1} ms",
                b.as_secs_f64() * 1e3,
                m.as_secs_f64() * 1e3
            ),
            _ => String::new(),
        };
        println!(
            "{label}: wall best {:.1} ms, median {:.1} ms over {iterations} passes ({:.0} MB/s, {:.2} µs/class){cpu_note}",
            best.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            bytes as f64 / 1e6 / best.as_secs_f64(),
            best.as_secs_f64() * 1e6 / classes.len().max(1) as f64
        );
    }
}

/// Time this thread has spent on a CPU (Linux `/proc/thread-self/schedstat`).
fn thread_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

type Classes = Vec<(String, Vec<u8>)>;

fn load(path: &Path, out: &mut Classes) -> Result<(), String> {
    if path.is_dir() {
        let mut stack = vec![path.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let mut entries: Vec<_> = std::fs::read_dir(&dir)
                .map_err(|e| e.to_string())?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            entries.sort();
            for p in entries {
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|e| e == "class") {
                    let data = std::fs::read(&p).map_err(|e| e.to_string())?;
                    out.push((p.display().to_string(), data));
                }
            }
        }
        return Ok(());
    }
    let data = std::fs::read(path).map_err(|e| e.to_string())?;
    let name = path.to_string_lossy();
    if name.ends_with(".class") {
        out.push((name.into_owned(), data));
        return Ok(());
    }
    // A jmod is a 4-byte header ("JM" 1 0) followed by a zip.
    let zip_bytes = if data.starts_with(b"JM\x01\x00") {
        data.get(4..).unwrap_or_default()
    } else {
        &data[..]
    };
    let mut zip = zip::ZipArchive::new(Cursor::new(zip_bytes)).map_err(|e| e.to_string())?;
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).map_err(|e| e.to_string())?;
        let name = f.name().map_err(|e| e.to_string())?.into_owned();
        if !name.ends_with(".class") {
            continue;
        }
        let mut buf = Vec::with_capacity(f.size() as usize);
        f.read_to_end(&mut buf).map_err(|e| e.to_string())?;
        out.push((name, buf));
    }
    Ok(())
}
