//! Every class of real jars and of JDK 17's `java.base` is instrumented
//! without error; the jars' classes are then loaded and initialised under
//! `java -Xverify:all` against the no-op runtime stub.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use lockstep_instrument::{instrument, runtime, Options, RT_CLASS, TASK_CLASS};
use lockstep_testkit::{compile_dir, CompileOptions};

/// `(entry name, bytes)` of every `.class` in a zip (jar, or jmod after its 4-byte header).
fn classes_in(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let mut e = zip.by_index(i).unwrap();
        let name = e.name().unwrap().into_owned();
        if !name.ends_with(".class")
            || name.contains("module-info")
            || name.starts_with("META-INF/")
        {
            continue;
        }
        let mut b = Vec::new();
        e.read_to_end(&mut b).unwrap();
        out.push((name, b));
    }
    out
}

/// Instruments all classes; returns (probes, refused methods).
fn instrument_all(classes: &[(String, Vec<u8>)], out: Option<&Path>) -> (usize, Vec<String>) {
    let mut probes = 0;
    let mut notes = Vec::new();
    let mut next = 0u32;
    for (name, bytes) in classes {
        let r =
            instrument(bytes, next, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        next = next.wrapping_add(r.probes.len() as u32) % 1_000_000;
        probes += r.probes.len();
        notes.extend(r.notes.iter().cloned());
        let bytes = r.bytes.as_deref().unwrap_or(bytes);
        lockstep_classfile::parse(bytes).unwrap_or_else(|e| panic!("{name} re-parse: {e}"));
        if let Some(dir) = out {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
    }
    (probes, notes)
}

#[test]
fn real_jars_instrument_and_verify() {
    let jars = [
        "/usr/share/java/commons-lang3.jar",
        "/usr/share/java/asm-9.4.jar",
        "/usr/share/java/guava.jar",
    ];
    let loader = compile_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/loader"),
        &CompileOptions::release(17),
    )
    .unwrap();
    for jar in jars {
        let Ok(bytes) = std::fs::read(jar) else {
            eprintln!("note: {jar} absent, skipped");
            continue;
        };
        let classes = classes_in(&bytes);
        let dir = tempfile::tempdir().unwrap();
        let (probes, notes) = instrument_all(&classes, Some(dir.path()));
        assert!(probes > 1000, "{jar}: {probes} probes");
        assert!(
            notes.len() * 100 <= classes.len(),
            "{jar}: {} methods refused: {notes:?}",
            notes.len()
        );
        for (name, bytes) in [
            (RT_CLASS, runtime::rec_class_stub().unwrap()),
            (TASK_CLASS, runtime::task_class().unwrap()),
        ] {
            let p = dir.path().join(format!("{name}.class"));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
        let cp = format!("{}:{}", dir.path().display(), loader.classes_dir.display());
        let mut child = Command::new("java")
            .args([
                "-Xverify:all",
                "-Djava.awt.headless=true",
                "-cp",
                &cp,
                "LoadAll",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let names: String = classes
            .iter()
            .map(|(n, _)| n.trim_end_matches(".class").replace('/', ".") + "\n")
            .collect();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(names.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains("VERIFY"), "{jar}:\n{text}");
        let loaded: usize = text
            .split_whitespace()
            .skip_while(|w| *w != "loaded")
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(
            loaded * 10 >= classes.len() * 9,
            "{jar}: only {loaded} of {} loaded:\n{text}",
            classes.len()
        );
        eprintln!(
            "{jar}: {} classes, {probes} probes, {loaded} loaded and verified, {} methods refused",
            classes.len(),
            notes.len()
        );
    }
}

#[test]
fn every_java_base_class_instruments() {
    let jmod = "/usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod";
    let Ok(bytes) = std::fs::read(jmod) else {
        eprintln!("note: {jmod} absent, skipped");
        return;
    };
    let classes = classes_in(&bytes[4..]);
    assert!(classes.len() > 6000);
    let (probes, notes) = instrument_all(&classes, None);
    eprintln!(
        "java.base: {} classes, {probes} probes, {} methods refused",
        classes.len(),
        notes.len()
    );
    assert!(notes.len() * 100 <= classes.len(), "{notes:?}");
}
