//! Object identity under the agent (`-Xverify:all`): the id field the
//! rewriter adds to the topmost application class must give every object
//! one id, the same at field accesses, monitors and thread starts, across
//! threads; and the program must not see a difference in its serialized
//! form or default `serialVersionUID`. Needs the agent library cargo builds
//! next to the test binaries (`target/<profile>/deps/liblockstep_agent.so`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lockstep_testkit::{compile_dir, CompileOptions};
use lockstep_trace::{Event, LockKind, Trace};

/// The agent cargo built for this test run: in `deps/`, next to the test
/// binary (the copy one level up is only refreshed by `cargo build`).
fn agent_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    deps.join(format!(
        "{}lockstep_agent{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ))
}

fn java(agent: Option<&str>, classes: &Path) -> Output {
    let mut c = Command::new("java");
    if let Some(a) = agent {
        c.arg(format!("-agentpath:{}={a}", agent_library().display()));
    }
    c.args(["-Xverify:all", "-cp"])
        .arg(classes)
        .arg("Ident")
        .output()
        .expect("run java")
}

/// Runs the fixture plainly and under the agent (`extra` agent options);
/// returns the trace after checking the program's output is unchanged.
fn recorded(extra: &str) -> (Trace, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/identity");
    let fixture = compile_dir(&dir, &CompileOptions::release(17)).expect("javac");
    let plain = java(None, &fixture.classes_dir);
    assert!(plain.status.success(), "{plain:?}");
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("t.trace");
    let options = format!("trace={}{extra}", trace.display());
    let out = java(Some(&options), &fixture.classes_dir);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    // Same serialVersionUIDs, same serialized bytes, same non-synthetic fields.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&plain.stdout)
    );
    let t = lockstep_trace::read(std::fs::File::open(&trace).unwrap());
    assert!(t.complete && t.problems.is_empty(), "{:?}", t.problems);
    (t, stderr)
}

fn field_id(t: &Trace, class: &str, name: &str) -> u32 {
    *t.tables
        .fields
        .iter()
        .find(|(_, f)| f.class == class && f.name == name)
        .unwrap_or_else(|| panic!("no field {class}.{name}"))
        .0
}

/// Checks what must hold whichever way objects are identified.
fn identities_are_consistent(t: &Trace) {
    let v = field_id(t, "Ident$Node", "v");
    // Every object written to gets its own id, described with its own class.
    let written: HashSet<u64> = t
        .chunks
        .iter()
        .flat_map(|c| &c.events)
        .filter_map(|e| match e {
            Event::Write { obj, field, .. } if *field == v => Some(*obj),
            _ => None,
        })
        .collect();
    // 4 workers × 500 fresh nodes, the shared node, the serialized leaf.
    assert!(written.len() >= 2002, "{} objects", written.len());
    let mut classes: HashMap<&str, usize> = HashMap::new();
    for id in &written {
        let info = t.tables.objects.get(id).expect("written object described");
        *classes.entry(info.class.as_str()).or_default() += 1;
    }
    assert!(classes["Ident$Node"] >= 1001, "{classes:?}");
    assert!(classes["Ident$Leaf"] >= 1000, "{classes:?}");

    // The monitor of `synchronized (shared)` is the object whose field is written.
    let mut pairs = 0;
    for c in &t.chunks {
        let mut held = None;
        for e in &c.events {
            match e {
                Event::Acquire {
                    lock,
                    kind: LockKind::Monitor,
                    ..
                } => held = Some(*lock),
                Event::Write { obj, field, .. } if *field == v => {
                    if let Some(l) = held {
                        assert_eq!(*obj, l, "lock and written object differ");
                        pairs += 1;
                    }
                }
                Event::Release { .. } => held = None,
                _ => {}
            }
        }
    }
    assert_eq!(pairs, 2000);

    // A started `Thread` subclass is the thread that then runs.
    let started: Vec<u32> = t
        .chunks
        .iter()
        .flat_map(|c| &c.events)
        .filter_map(|e| match e {
            Event::ThreadStart { child, .. } => Some(*child),
            _ => None,
        })
        .collect();
    assert_eq!(started.len(), 4);
    for child in started {
        let info = &t.tables.threads[&child];
        assert!(info.parent.is_some(), "thread {child} lost its parent");
        assert!(t.chunks.iter().any(|c| c.thread == child));
    }
}

#[test]
fn id_field_identities_are_unique_and_shared_by_all_probes() {
    let (t, stderr) = recorded("");
    identities_are_consistent(&t);
    // Known limitation, documented: reflection sees the synthetic field.
    assert!(
        stderr.contains("synthetic fields [lockstep$id private transient]"),
        "{stderr}"
    );
}

#[test]
fn tag_identities_without_the_id_field() {
    let (t, stderr) = recorded(",ids=0");
    identities_are_consistent(&t);
    assert!(stderr.contains("synthetic fields []"), "{stderr}");
}
