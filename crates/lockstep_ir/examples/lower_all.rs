//! Lowers every method of every class in a `.jmod`, `.jar` or directory
//! and prints counts and timings (parse vs lower), single-threaded.
//!
//! `cargo run --release -p lockstep_ir --example lower_all -- <jmod|jar|dir> [--validate] [--errors]`
//!
//! For a JDK without jmods (JDK 24+ builds may omit them), extract
//! `java.base` first: `jimage extract --dir /tmp/jb --include
//! 'regex:/java.base/.*' $JAVA_HOME/lib/modules`.

use std::io::Read;
use std::time::{Duration, Instant};

fn read_dir(dir: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) -> Result<(), String> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            read_dir(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "class") && !p.ends_with("module-info.class") {
            out.push((
                p.display().to_string(),
                std::fs::read(&p).map_err(|e| e.to_string())?,
            ));
        }
    }
    Ok(())
}

fn read_archive(path: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    if std::path::Path::new(path).is_dir() {
        let mut out = Vec::new();
        read_dir(std::path::Path::new(path), &mut out)?;
        return Ok(out);
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    // A jmod is a zip behind a 4-byte header `JM\x01\x00`.
    let zip_bytes = if bytes.starts_with(b"JM") {
        bytes.get(4..).unwrap_or(&[])
    } else {
        &bytes[..]
    };
    let mut zip =
        zip::ZipArchive::new(std::io::Cursor::new(zip_bytes)).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).map_err(|e| e.to_string())?;
        let name = f.name().map_err(|e| e.to_string())?.to_string();
        if !name.ends_with(".class") || name.ends_with("module-info.class") {
            continue;
        }
        let mut buf = Vec::new();
        f.read_to_end(&mut buf).map_err(|e| e.to_string())?;
        out.push((name, buf));
    }
    Ok(out)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: lower_all <jmod|jar> [--validate] [--errors]");
        std::process::exit(2);
    };
    let validate = args.iter().any(|a| a == "--validate");
    // `--repeat N`: lower everything N more times and report the best time (noisy machines).
    let repeat: usize = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let show_errors = args.iter().any(|a| a == "--errors");
    let t0 = Instant::now();
    let classes = match read_archive(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let read_time = t0.elapsed();
    let mut parse_time = Duration::ZERO;
    let mut lower_time = Duration::ZERO;
    let (
        mut n_classes,
        mut n_methods,
        mut n_insns,
        mut n_stmts,
        mut failures,
        mut invalid,
        mut noted,
    ) = (0usize, 0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
    let mut lowerer = lockstep_ir::Lowerer::new();
    let mut parsed = Vec::new();
    for (name, bytes) in &classes {
        let t = Instant::now();
        let class = match lockstep_classfile::parse(bytes) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{name}: parse error: {e}");
                continue;
            }
        };
        parse_time += t.elapsed();
        n_classes += 1;
        n_insns += class
            .methods
            .iter()
            .filter_map(|m| m.code.as_ref())
            .map(|c| c.insns.len())
            .sum::<usize>();
        let t = Instant::now();
        let bodies = lowerer.lower_class(&class);
        lower_time += t.elapsed();
        if repeat > 0 {
            parsed.push(class.clone());
        }
        for (i, r) in bodies {
            n_methods += 1;
            let m = &class.methods[i];
            match r {
                Ok(body) => {
                    n_stmts += body.stmts.len();
                    if !body.notes.is_empty() {
                        noted += 1;
                        if show_errors {
                            for n in &body.notes {
                                eprintln!(
                                    "{}.{}{}: note: {n}",
                                    class.this_class, m.name, m.descriptor
                                );
                            }
                        }
                    }
                    if validate {
                        if let Err(errs) = lockstep_ir::validate(&body) {
                            invalid += 1;
                            if show_errors {
                                eprintln!(
                                    "{}.{}{}: invalid: {:?}",
                                    class.this_class, m.name, m.descriptor, errs
                                );
                            }
                        }
                    }
                }
                Err(e) => {
                    failures += 1;
                    if show_errors {
                        eprintln!("{}.{}{}: {e}", class.this_class, m.name, m.descriptor);
                    }
                }
            }
        }
    }
    let mut best = lower_time;
    for _ in 0..repeat {
        let t = Instant::now();
        for class in &parsed {
            std::hint::black_box(lowerer.lower_class(class));
        }
        best = best.min(t.elapsed());
    }
    println!("archive:      {path}");
    println!("classes:      {n_classes}");
    println!(
        "methods:      {n_methods} with code ({failures} failed to lower, {noted} with notes)"
    );
    if validate {
        println!("invalid:      {invalid}");
    }
    println!("instructions: {n_insns}");
    println!("statements:   {n_stmts}");
    println!("read+unzip:   {:.3} s", read_time.as_secs_f64());
    println!("parse:        {:.3} s", parse_time.as_secs_f64());
    println!("lower:        {:.3} s", lower_time.as_secs_f64());
    if repeat > 0 {
        println!(
            "lower (best of {}): {:.3} s",
            repeat + 1,
            best.as_secs_f64()
        );
    }
}
