//! Lowers every method of JDK `java.base` (17, and 25 when installed) and
//! validates every body: zero lowering failures, zero validation errors,
//! zero notes (javac's monitor shapes are all structured).
//!
//! JDK 25 builds may ship without jmods; then `java.base` is extracted
//! from the runtime image with the JDK's own `jimage` tool.

use std::io::Read;
use std::path::{Path, PathBuf};

const JDK17: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
const JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

fn jmod_classes(jmod: &Path) -> Vec<(String, Vec<u8>)> {
    let bytes = std::fs::read(jmod).unwrap();
    // A jmod is `JM\x01\x00` followed by a zip.
    assert!(
        bytes.starts_with(b"JM\x01\x00"),
        "{} is not a jmod",
        jmod.display()
    );
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&bytes[4..])).unwrap();
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let name = f.name().unwrap().to_string();
        if name.starts_with("classes/")
            && name.ends_with(".class")
            && !name.ends_with("module-info.class")
        {
            let mut buf = Vec::new();
            f.read_to_end(&mut buf).unwrap();
            out.push((name, buf));
        }
    }
    out
}

fn dir_classes(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            dir_classes(&p, out);
        } else if p.extension().is_some_and(|x| x == "class") && !p.ends_with("module-info.class") {
            out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
}

/// `java.base` of the JDK at `home`: from its jmod, else extracted from `lib/modules`.
fn java_base(home: &str) -> Option<Vec<(String, Vec<u8>)>> {
    let jmod = Path::new(home).join("jmods/java.base.jmod");
    if jmod.is_file() {
        return Some(jmod_classes(&jmod));
    }
    let jimage = Path::new(home).join("bin/jimage");
    let modules = Path::new(home).join("lib/modules");
    if !jimage.is_file() || !modules.is_file() {
        return None;
    }
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("java.base-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let status = std::process::Command::new(&jimage)
        .arg("extract")
        .arg("--dir")
        .arg(&dir)
        .arg("--include")
        .arg("regex:/java.base/.*")
        .arg(&modules)
        .status()
        .unwrap();
    assert!(status.success(), "jimage extract failed");
    let mut out = Vec::new();
    dir_classes(&dir, &mut out);
    let _ = std::fs::remove_dir_all(&dir);
    Some(out)
}

struct Tally {
    methods: usize,
    failures: Vec<String>,
    invalid: Vec<String>,
    noted: Vec<String>,
}

fn lower_everything(classes: &[(String, Vec<u8>)]) -> Tally {
    // Two threads: the machines this runs on have two cores.
    let chunks: Vec<&[(String, Vec<u8>)]> =
        classes.chunks(classes.len().div_ceil(2).max(1)).collect();
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                s.spawn(move || {
                    let mut t = Tally {
                        methods: 0,
                        failures: Vec::new(),
                        invalid: Vec::new(),
                        noted: Vec::new(),
                    };
                    let mut lowerer = lockstep_ir::Lowerer::new();
                    for (name, bytes) in chunk {
                        let class = lockstep_classfile::parse(bytes)
                            .unwrap_or_else(|e| panic!("{name}: {e}"));
                        for (i, r) in lowerer.lower_class(&class) {
                            t.methods += 1;
                            let m = &class.methods[i];
                            let id = format!("{}.{}{}", class.this_class, m.name, m.descriptor);
                            match r {
                                Err(e) => t.failures.push(format!("{id}: {e}")),
                                Ok(body) => {
                                    if let Err(errs) = lockstep_ir::validate(&body) {
                                        t.invalid.push(format!("{id}: {}", errs.join("; ")));
                                    }
                                    if !body.notes.is_empty() {
                                        t.noted.push(format!("{id}: {}", body.notes.join("; ")));
                                    }
                                }
                            }
                        }
                    }
                    t
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all = Tally {
        methods: 0,
        failures: Vec::new(),
        invalid: Vec::new(),
        noted: Vec::new(),
    };
    for t in tallies {
        all.methods += t.methods;
        all.failures.extend(t.failures);
        all.invalid.extend(t.invalid);
        all.noted.extend(t.noted);
    }
    all
}

fn check_jdk(home: &str, min_methods: usize) {
    let Some(classes) = java_base(home) else {
        eprintln!("skipped: no java.base under {home}");
        return;
    };
    let t = lower_everything(&classes);
    eprintln!(
        "{home}: {} classes, {} methods, {} failures, {} invalid, {} with notes",
        classes.len(),
        t.methods,
        t.failures.len(),
        t.invalid.len(),
        t.noted.len()
    );
    let show = |v: &[String]| v.iter().take(20).cloned().collect::<Vec<_>>().join("\n");
    assert!(t.methods >= min_methods, "only {} methods", t.methods);
    assert!(
        t.failures.is_empty(),
        "lowering failures:\n{}",
        show(&t.failures)
    );
    assert!(
        t.invalid.is_empty(),
        "validation errors:\n{}",
        show(&t.invalid)
    );
    assert!(t.noted.is_empty(), "notes:\n{}", show(&t.noted));
}

#[test]
fn jdk17_java_base() {
    check_jdk(JDK17, 50_000);
}

#[test]
fn jdk25_java_base() {
    check_jdk(JDK25, 50_000);
}
