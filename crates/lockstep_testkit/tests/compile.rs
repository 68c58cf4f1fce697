//! Compiling fixtures with the real javac: output layout, caching,
//! concurrency, errors, and the effect of the options on the class files.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Barrier};

use lockstep_testkit::{
    cache_root, compile, compile_dir, compile_snippet, compile_snippet_with, javac, CompileError,
    CompileOptions, JavaCompiler, SourceFile,
};

/// A cache root of its own, emptied first, so a test can observe a cold
/// cache. Named per test (each test runs once at a time, also under
/// nextest) so repeated runs reuse the directory instead of piling up.
fn fresh_cache(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("testkit-caches")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn opts_in(cache: &Path) -> CompileOptions {
    CompileOptions {
        cache_dir: Some(cache.to_path_buf()),
        ..Default::default()
    }
}

fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Names in the cache root: entries and any leftover temp dirs.
fn cache_entries(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn major_version(class: &[u8]) -> u16 {
    assert_eq!(&class[..4], &[0xCA, 0xFE, 0xBA, 0xBE], "not a class file");
    u16::from_be_bytes([class[6], class[7]])
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn finds_javac_and_its_version() {
    let jc = javac().expect("javac must be installed for lockstep's tests");
    assert!(jc.version().starts_with("javac "), "{}", jc.version());
    assert!(jc.feature_version().is_some_and(|v| v >= 8));
    assert!(jc.path().is_file());
}

#[test]
fn default_cache_root_is_under_the_target_dir() {
    if std::env::var_os("LOCKSTEP_FIXTURE_CACHE").is_some() {
        return;
    }
    let root = cache_root();
    assert!(root.ends_with("lockstep-javac-cache"), "{}", root.display());
    // The target dir is where cargo put this test binary.
    let exe = std::env::current_exe().unwrap();
    let target = root.parent().unwrap();
    assert!(
        exe.starts_with(target),
        "{} vs {}",
        exe.display(),
        target.display()
    );
}

#[test]
fn two_file_package_compiles_then_hits_the_cache() {
    let cache = fresh_cache("two-file");
    let opts = opts_in(&cache);
    let dir = fixture_dir("two_file_package");

    let first = compile_dir(&dir, &opts).unwrap();
    assert!(!first.cache_hit);
    let paths: Vec<&str> = first.sources.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        paths,
        ["com/example/Counter.java", "com/example/Worker.java"]
    );
    assert_eq!(
        first.classes,
        [
            "com/example/Counter",
            "com/example/Worker",
            "com/example/Worker$1"
        ]
    );
    for f in first.class_files() {
        assert!(f.is_file(), "{}", f.display());
        assert!(f.starts_with(&first.classes_dir));
    }
    assert!(first
        .classes_dir
        .join("com/example/Counter.class")
        .is_file());
    let bytes = first.read_class("com.example.Worker$1").unwrap();
    assert_eq!(&bytes[..4], &[0xCA, 0xFE, 0xBA, 0xBE]);
    let entries = cache_entries(&cache);
    assert_eq!(
        entries,
        vec![first.key.clone()],
        "one entry, no temp dirs left"
    );
    let manifest = fs::read(cache.join(&first.key).join("manifest.txt")).unwrap();

    let second = compile_dir(&dir, &opts).unwrap();
    assert!(second.cache_hit);
    assert_eq!(second.classes_dir, first.classes_dir);
    assert_eq!(second.classes, first.classes);
    assert_eq!(cache_entries(&cache), entries);
    // A hit reads the entry and never rewrites it.
    assert_eq!(
        fs::read(cache.join(&first.key).join("manifest.txt")).unwrap(),
        manifest
    );

    // Different options are a different entry.
    let no_debug = CompileOptions {
        debug_info: false,
        ..opts.clone()
    };
    let third = compile_dir(&dir, &no_debug).unwrap();
    assert!(!third.cache_hit);
    assert_ne!(third.key, first.key);
    assert_eq!(cache_entries(&cache).len(), 2);
}

#[test]
fn concurrent_compiles_of_one_fixture_from_threads_agree() {
    let cache = fresh_cache("threads");
    let src = "class Racy { int x; void f() { x++; } }";
    let threads = 6;
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let barrier = Arc::clone(&barrier);
            let opts = opts_in(&cache);
            std::thread::spawn(move || {
                barrier.wait();
                compile_snippet_with(src, &opts)
            })
        })
        .collect();
    let results: Vec<_> = handles
        .into_iter()
        .map(|h| h.join().unwrap().unwrap())
        .collect();
    assert!(results.iter().any(|r| !r.cache_hit));
    for r in &results {
        assert_eq!(r.classes_dir, results[0].classes_dir);
        assert_eq!(r.classes, ["Racy"]);
        assert!(r.class_path("Racy").is_file());
    }
    // Losers of the rename race cleaned up after themselves.
    assert_eq!(cache_entries(&cache), [results[0].key.clone()]);
}

/// Run only as a child of `concurrent_compiles_from_processes_agree`.
#[test]
fn child_process_compile() {
    let Some(cache) = std::env::var_os("TESTKIT_CHILD_CACHE") else {
        return;
    };
    let fixture = compile_snippet_with(
        "class Shared { Object lock = new Object(); }",
        &opts_in(Path::new(&cache)),
    )
    .unwrap();
    assert!(fixture.class_path("Shared").is_file());
    println!("CHILD-CLASSES-DIR {}", fixture.classes_dir.display());
}

#[test]
fn concurrent_compiles_from_processes_agree() {
    let cache = fresh_cache("processes");
    let exe = std::env::current_exe().unwrap();
    // Start every child before waiting on any, so they really overlap.
    let procs: Vec<_> = (0..4)
        .map(|_| {
            Command::new(&exe)
                .args(["--exact", "child_process_compile", "--nocapture"])
                .env("TESTKIT_CHILD_CACHE", &cache)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut dirs = Vec::new();
    for p in procs {
        let out = p.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "child failed:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix("CHILD-CLASSES-DIR "))
            .expect("child printed its classes dir")
            .to_string();
        dirs.push(line);
    }
    assert!(dirs.iter().all(|d| *d == dirs[0]), "{dirs:?}");
    assert_eq!(cache_entries(&cache).len(), 1);
}

#[test]
fn compile_error_carries_javacs_message_and_is_not_cached() {
    let cache = fresh_cache("error");
    let src = "class Broken {\n  int f() { return \"no\"; }\n}\n";
    let err = compile_snippet_with(src, &opts_in(&cache)).unwrap_err();
    let CompileError::Javac { output, status, .. } = &err else {
        panic!("expected a javac error, got {err}");
    };
    assert_eq!(*status, Some(1));
    assert!(output.contains("Broken.java:2: error"), "{output}");
    assert!(output.contains("incompatible types"), "{output}");
    let shown = err.to_string();
    assert!(shown.contains("javac failed") && shown.contains("incompatible types"));
    let left: Vec<String> = fs::read_dir(&cache)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        left.is_empty(),
        "nothing cached for a failed compile: {left:?}"
    );
}

#[test]
fn release_8_produces_major_version_52() {
    let cache = fresh_cache("release");
    let opts = CompileOptions {
        release: Some(8),
        ..opts_in(&cache)
    };
    let f = compile_snippet_with("public class Old { }", &opts).unwrap();
    assert_eq!(major_version(&f.read_class("Old").unwrap()), 52);

    let jc = javac().unwrap();
    let native = compile_snippet_with("public class Old { }", &opts_in(&cache)).unwrap();
    let want = jc.feature_version().unwrap() as u16 + 44;
    assert_eq!(major_version(&native.read_class("Old").unwrap()), want);
}

#[test]
fn debug_info_switch_controls_line_number_tables() {
    let cache = fresh_cache("debug");
    let src = "class Dbg { int f(int a) { int b = a + 1; return b; } }";
    let with = compile_snippet_with(src, &opts_in(&cache)).unwrap();
    let bytes = with.read_class("Dbg").unwrap();
    assert!(contains(&bytes, b"LineNumberTable"));
    assert!(contains(&bytes, b"LocalVariableTable"));

    let opts = CompileOptions {
        debug_info: false,
        ..opts_in(&cache)
    };
    let without = compile_snippet_with(src, &opts).unwrap();
    let bytes = without.read_class("Dbg").unwrap();
    assert!(!contains(&bytes, b"LineNumberTable"));
    assert!(!contains(&bytes, b"LocalVariableTable"));
}

#[test]
fn extra_args_reach_javac() {
    let cache = fresh_cache("extra");
    let opts = CompileOptions {
        extra_args: vec!["-parameters".to_string()],
        ..opts_in(&cache)
    };
    let f = compile_snippet_with("class P { void m(int namedParam) {} }", &opts).unwrap();
    // -parameters emits a MethodParameters attribute.
    assert!(contains(&f.read_class("P").unwrap(), b"MethodParameters"));
}

#[test]
fn snippet_with_package_lands_in_its_package_dir() {
    let f = compile_snippet(
        "package org.demo;\n\nclass Helper {}\n\npublic class Main { Helper h; }\n",
    )
    .unwrap();
    assert_eq!(f.sources[0].path, "org/demo/Main.java");
    assert_eq!(f.classes, ["org/demo/Helper", "org/demo/Main"]);
}

#[test]
fn snippet_without_a_type_is_rejected() {
    let err = compile_snippet("int x = 1;").unwrap_err();
    assert!(matches!(err, CompileError::InvalidSource { .. }), "{err}");
}

#[test]
fn empty_fixture_dir_is_an_error() {
    let dir = fresh_cache("empty-fixture");
    fs::create_dir_all(dir.join("sub")).unwrap();
    fs::write(dir.join("sub/readme.txt"), "not java").unwrap();
    let err = compile_dir(&dir, &CompileOptions::default()).unwrap_err();
    assert!(matches!(err, CompileError::NoSources(_)), "{err}");
}

#[test]
fn explicit_sources_and_bad_paths() {
    let cache = fresh_cache("explicit");
    let sources = [
        SourceFile::new("a/A.java", "package a; public class A { b.B b; }"),
        SourceFile::new("b/B.java", "package b; public class B { }"),
    ];
    let f = compile(&sources, &opts_in(&cache)).unwrap();
    assert_eq!(f.classes, ["a/A", "b/B"]);
    assert_eq!(f.sources, sources);

    let bad = [SourceFile::new("../A.java", "class A {}")];
    assert!(matches!(
        compile(&bad, &opts_in(&cache)),
        Err(CompileError::InvalidSource { .. })
    ));
}

#[test]
fn warnings_are_kept_even_on_a_cache_hit() {
    let cache = fresh_cache("warnings");
    let opts = CompileOptions {
        extra_args: vec!["-Xlint:all".to_string()],
        ..opts_in(&cache)
    };
    let src =
        "import java.util.*; class W { List raw = new ArrayList(); void f() { raw.add(1); } }";
    let first = compile_snippet_with(src, &opts).unwrap();
    assert!(
        first.javac_output.contains("warning"),
        "{}",
        first.javac_output
    );
    let second = compile_snippet_with(src, &opts).unwrap();
    assert!(second.cache_hit);
    assert_eq!(second.javac_output, first.javac_output);
}

/// Only where a JDK 25 is installed; elsewhere there is nothing to test.
#[test]
fn another_jdk_can_be_chosen() {
    let path = Path::new("/usr/lib/jvm/temurin-25-jdk-amd64/bin/javac");
    if !path.is_file() {
        eprintln!("skipped: no JDK 25 at {}", path.display());
        return;
    }
    let jc = JavaCompiler::at(path).unwrap();
    assert_eq!(jc.feature_version(), Some(25));
    let cache = fresh_cache("jdk25");
    let opts = CompileOptions {
        compiler: Some(jc),
        ..opts_in(&cache)
    };
    let f = compile_snippet_with("class New { }", &opts).unwrap();
    assert_eq!(major_version(&f.read_class("New").unwrap()), 69);
    // Same sources, other compiler: a separate cache entry.
    let default = compile_snippet_with("class New { }", &opts_in(&cache)).unwrap();
    assert_ne!(default.key, f.key);
}
