//! Instrumented classes must verify (`-Xverify:all`) and behave exactly as
//! before: every fixture class is probed, run against the no-op runtime
//! stub, and its output compared with the uninstrumented run.

use std::path::{Path, PathBuf};
use std::process::Command;

use lockstep_instrument::{instrument, runtime, Options, RT_CLASS, TASK_CLASS};
use lockstep_testkit::{compile_dir, CompileOptions};

fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn write_class(root: &Path, name: &str, bytes: &[u8]) {
    let path = root.join(format!("{name}.class"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Instruments every class of `classes` into a fresh directory with the stub runtime.
fn instrumented_copy(
    classes_dir: &Path,
    names: &[String],
    options: &Options,
) -> (tempfile::TempDir, usize) {
    let out = tempfile::tempdir().unwrap();
    let mut probes = 0;
    let mut next = 0u32;
    for name in names {
        let bytes = std::fs::read(classes_dir.join(format!("{name}.class"))).unwrap();
        let r = instrument(&bytes, next, options).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(r.notes.is_empty(), "{name}: {:?}", r.notes);
        next += r.probes.len() as u32;
        probes += r.probes.len();
        write_class(out.path(), name, r.bytes.as_deref().unwrap_or(&bytes));
    }
    write_class(out.path(), RT_CLASS, &runtime::rec_class_stub().unwrap());
    write_class(out.path(), TASK_CLASS, &runtime::task_class().unwrap());
    (out, probes)
}

fn run_java(java: &Path, cp: &Path, main: &str) -> (bool, String, String) {
    let out = Command::new(java)
        .args(["-Xverify:all", "-cp"])
        .arg(cp)
        .arg(main)
        .output()
        .expect("run java");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn class_names(fixture: &lockstep_testkit::CompiledFixture) -> Vec<String> {
    fixture
        .classes
        .iter()
        .map(|c| c.replace('.', "/"))
        .collect()
}

fn check_same_behaviour(java: &Path, opts: &CompileOptions, options: &Options) {
    let fixture = compile_dir(&fixture_dir("exercise"), opts).expect("javac");
    let names = class_names(&fixture);
    let (plain_ok, plain_out, plain_err) = run_java(java, &fixture.classes_dir, "Exercise");
    assert!(plain_ok, "plain run failed: {plain_err}");
    let (dir, probes) = instrumented_copy(&fixture.classes_dir, &names, options);
    assert!(probes > 100, "only {probes} probes");
    let (ok, out, err) = run_java(java, dir.path(), "Exercise");
    assert!(ok, "instrumented run failed:\n{err}");
    assert_eq!(out, plain_out);
}

#[test]
fn probed_classes_verify_and_behave_the_same_release_17() {
    check_same_behaviour(
        Path::new("java"),
        &CompileOptions::release(17),
        &Options::default(),
    );
}

#[test]
fn probed_classes_verify_and_behave_the_same_release_8() {
    check_same_behaviour(
        Path::new("java"),
        &CompileOptions::release(8),
        &Options::default(),
    );
}

#[test]
fn probed_classes_verify_without_method_events() {
    let options = Options {
        methods: false,
        ..Options::default()
    };
    check_same_behaviour(Path::new("java"), &CompileOptions::release(17), &options);
}

const JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

#[test]
fn probed_java_25_class_files_verify_on_jdk_25() {
    let home = Path::new(JDK25);
    if !home.join("bin/javac").is_file() {
        eprintln!("note: {JDK25} absent, Java 25 class files not tested");
        return;
    }
    let javac = lockstep_testkit::JavaCompiler::at(home.join("bin/javac")).unwrap();
    let opts = CompileOptions {
        release: Some(25),
        compiler: Some(javac),
        ..CompileOptions::default()
    };
    let fixture = compile_dir(&fixture_dir("exercise"), &opts).expect("javac 25");
    let first = std::fs::read(fixture.classes_dir.join("Exercise.class")).unwrap();
    assert_eq!(u16::from_be_bytes([first[6], first[7]]), 69);
    check_same_behaviour(&home.join("bin/java"), &opts, &Options::default());
}

#[test]
fn only_the_topmost_application_class_gets_the_id_field() {
    let opts = CompileOptions::release(17);
    let fixture = compile_dir(&fixture_dir("ids"), &opts).expect("javac");
    let names = class_names(&fixture);
    let mut with_field = Vec::new();
    for name in &names {
        let bytes = std::fs::read(fixture.classes_dir.join(format!("{name}.class"))).unwrap();
        let r = instrument(&bytes, 0, &Options::default()).unwrap();
        if r.id_field {
            with_field.push(name.as_str());
            let parsed = lockstep_classfile::parse(r.bytes.as_deref().unwrap()).unwrap();
            let f = parsed
                .fields
                .iter()
                .find(|f| &*f.name == lockstep_instrument::ID_FIELD)
                .expect("declared");
            assert_eq!(&*f.descriptor, "J");
            // private transient synthetic: outside the default serialVersionUID.
            assert_eq!(f.access_flags, 0x0002 | 0x0080 | 0x1000);
        }
    }
    // Not the subclass (its superclass has it), the interface or the record.
    assert_eq!(with_field, ["Ids", "Ids$Color", "Ids$Root"]);
    // Same output (serialVersionUIDs included) under -Xverify:all.
    let (plain_ok, plain_out, plain_err) = run_java(Path::new("java"), &fixture.classes_dir, "Ids");
    assert!(plain_ok, "{plain_err}");
    let (dir, _) = instrumented_copy(&fixture.classes_dir, &names, &Options::default());
    let (ok, out, err) = run_java(Path::new("java"), dir.path(), "Ids");
    assert!(ok, "{err}");
    assert_eq!(out, plain_out);
}

/// A guidance naming every instruction of every method of `bytes`.
fn guidance_for_every_instruction(bytes: &[u8]) -> lockstep_instrument::Guidance {
    let class = lockstep_classfile::parse(bytes).unwrap();
    let mut g = lockstep_instrument::Guidance::default();
    for m in &class.methods {
        for (pc, _) in m.code.iter().flat_map(|c| &c.insns) {
            g.skip_access(&class.this_class, &m.name, &m.descriptor, *pc);
        }
    }
    g
}

/// What a probe records, as a short kind name.
fn kind_of(e: &lockstep_instrument::ProbeEvent) -> &'static str {
    use lockstep_instrument::ProbeEvent as P;
    match e {
        P::FieldRead(f) | P::FieldWrite(f) if f.is_static => "static field",
        P::FieldRead(_) | P::FieldWrite(_) => "instance field",
        P::ArrayRead | P::ArrayWrite => "array",
        _ => "other",
    }
}

#[test]
fn guided_rewriting_drops_only_instance_field_and_array_probes_and_still_verifies() {
    let opts = CompileOptions::release(17);
    let fixture = compile_dir(&fixture_dir("exercise"), &opts).expect("javac");
    let names = class_names(&fixture);
    let out = tempfile::tempdir().unwrap();
    let count = |probes: &[lockstep_instrument::Probe], kind: &str| {
        probes.iter().filter(|p| kind_of(&p.event) == kind).count()
    };
    let (mut plain_fields, mut plain_arrays) = (0, 0);
    let mut next = 0u32;
    for name in &names {
        let bytes = std::fs::read(fixture.classes_dir.join(format!("{name}.class"))).unwrap();
        let g = guidance_for_every_instruction(&bytes);
        let plain = instrument(&bytes, 0, &Options::default()).unwrap();
        let guided =
            lockstep_instrument::instrument_guided(&bytes, next, &Options::default(), &g).unwrap();
        plain_fields += count(&plain.probes, "instance field");
        plain_arrays += count(&plain.probes, "array");
        assert_eq!(count(&guided.probes, "instance field"), 0, "{name}");
        assert_eq!(count(&guided.probes, "array"), 0, "{name}");
        // Static fields, monitors, calls and method events are untouched.
        for kind in ["static field", "other"] {
            assert_eq!(
                count(&guided.probes, kind),
                count(&plain.probes, kind),
                "{name}: {kind}"
            );
        }
        next += guided.probes.len() as u32;
        write_class(out.path(), name, guided.bytes.as_deref().unwrap_or(&bytes));
    }
    assert!(
        plain_fields > 10 && plain_arrays > 2,
        "{plain_fields} {plain_arrays}"
    );
    assert_guided_run_as_plain(out.path(), &fixture.classes_dir);
}

/// Runs `Exercise` from the guided classes in `out` (with the runtime
/// stubs) and from the plain ones: both verify and print the same.
fn assert_guided_run_as_plain(out: &Path, plain: &Path) {
    write_class(out, RT_CLASS, &runtime::rec_class_stub().unwrap());
    write_class(out, TASK_CLASS, &runtime::task_class().unwrap());
    let java = Path::new("java");
    let (plain_ok, plain_out, plain_err) = run_java(java, plain, "Exercise");
    assert!(plain_ok, "{plain_err}");
    let (ok, guided_out, err) = run_java(java, out, "Exercise");
    assert!(ok, "guided run failed:\n{err}");
    assert_eq!(guided_out, plain_out);
}

/// A guidance naming every method of `bytes` proven atomic.
fn every_method_atomic(bytes: &[u8]) -> lockstep_instrument::Guidance {
    let class = lockstep_classfile::parse(bytes).unwrap();
    let mut g = lockstep_instrument::Guidance::default();
    for m in &class.methods {
        g.atomic_method(&class.this_class, &m.name, &m.descriptor);
    }
    g
}

#[test]
fn methods_proven_atomic_lose_their_method_events_and_still_verify() {
    use lockstep_instrument::ProbeEvent as P;
    let opts = CompileOptions::release(17);
    let fixture = compile_dir(&fixture_dir("exercise"), &opts).expect("javac");
    let names = class_names(&fixture);
    let out = tempfile::tempdir().unwrap();
    let frames = |probes: &[lockstep_instrument::Probe], atomic: bool| {
        probes
            .iter()
            .filter(|p| match p.event {
                P::MethodEnter | P::MethodExit => !atomic,
                P::AtomicEnter | P::AtomicExit => atomic,
                _ => false,
            })
            .count()
    };
    let others = |probes: &[lockstep_instrument::Probe]| {
        probes
            .iter()
            .filter(|p| {
                !matches!(
                    p.event,
                    P::MethodEnter | P::MethodExit | P::AtomicEnter | P::AtomicExit
                )
            })
            .count()
    };
    let (mut plain_frames, mut atomic_frames) = (0, 0);
    let mut next = 0u32;
    for name in &names {
        let bytes = std::fs::read(fixture.classes_dir.join(format!("{name}.class"))).unwrap();
        let g = every_method_atomic(&bytes);
        let plain = instrument(&bytes, 0, &Options::default()).unwrap();
        let guided =
            lockstep_instrument::instrument_guided(&bytes, next, &Options::default(), &g).unwrap();
        // No method event is left; every other probe is.
        assert_eq!(frames(&guided.probes, false), 0, "{name}");
        assert_eq!(others(&guided.probes), others(&plain.probes), "{name}");
        plain_frames += frames(&plain.probes, false);
        atomic_frames += frames(&guided.probes, true);
        next += guided.probes.len() as u32;
        write_class(out.path(), name, guided.bytes.as_deref().unwrap_or(&bytes));
    }
    // Methods that record only monitors (or nothing) have no frame probe
    // at all; the others keep one at entry and each exit.
    assert!(
        atomic_frames > 0 && atomic_frames < plain_frames,
        "{atomic_frames} of {plain_frames}"
    );
    assert_guided_run_as_plain(out.path(), &fixture.classes_dir);
}
