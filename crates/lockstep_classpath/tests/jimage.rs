//! The jimage reader against the JDK's own `jimage` and `jlink` tools.
//! Each test skips (with a printed note) when the JDK is not installed.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use lockstep_classpath::{jimage_from_bytes, read_inputs, JImage, Library};

const ORACLE_CLASSES: [&str; 3] = [
    "java/lang/Object",
    "java/lang/Thread",
    "java/util/concurrent/ConcurrentHashMap",
];

fn open_image(path: &Path) -> JImage<Vec<u8>> {
    JImage::parse(std::fs::read(path).unwrap()).unwrap()
}

/// Number of `.class` lines `jimage list` prints for `image`.
fn jimage_list_class_count(jdk: &Path, image: &Path) -> usize {
    let out = Command::new(jdk.join("bin/jimage"))
        .arg("list")
        .arg(image)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.trim_end().ends_with(".class"))
        .count()
}

fn extract(jdk: &Path, image: &Path, dir: &Path, classes: &[&str]) {
    let alternatives = classes
        .iter()
        .map(|c| c.replace('$', "\\$"))
        .collect::<Vec<_>>()
        .join("|");
    let status = Command::new(jdk.join("bin/jimage"))
        .arg("extract")
        .arg("--dir")
        .arg(dir)
        .arg("--include")
        .arg(format!("regex:/[^/]+/({alternatives})\\.class"))
        .arg(image)
        .status()
        .unwrap();
    assert!(status.success());
}

fn check_against_oracle(home: &str) {
    let Some(jdk) = jdk_with(home, "jimage") else {
        return;
    };
    let image_path = jdk.join("lib/modules");
    let tmp = tempfile::tempdir().unwrap();
    extract(&jdk, &image_path, tmp.path(), &ORACLE_CLASSES);

    let library = Library::jdk(&jdk).unwrap();
    for class in ORACLE_CLASSES {
        let expected = std::fs::read(tmp.path().join(format!("java.base/{class}.class"))).unwrap();
        assert!(library.contains(class));
        let loaded = library.load(class).unwrap().unwrap();
        assert_eq!(loaded.bytes, expected, "{class}");
        assert_eq!(loaded.origin.container, image_path);
        assert_eq!(
            loaded.origin.entry.as_deref(),
            Some(format!("/java.base/{class}.class").as_str())
        );
    }
    assert!(!library.contains("java/lang/NoSuchClass"));
    assert!(library.load("java/lang/NoSuchClass").is_none());

    // Enumeration equals the tool's listing, and the hash lookup finds
    // every enumerated class in the slot the walk found it in.
    let image = open_image(&image_path);
    let (classes, errors) = image.classes();
    assert!(errors.is_empty(), "{:?}", &errors[..errors.len().min(5)]);
    assert_eq!(classes.len(), jimage_list_class_count(&jdk, &image_path));
    for class in &classes {
        let (slot, _) = image.find(&class.full_name()).unwrap();
        assert_eq!(slot, class.slot, "{}", class.full_name());
    }
    // The library has one name per class except the per-module
    // `module-info`s, which share a name.
    let modules = classes
        .iter()
        .filter(|c| c.internal_name == "module-info")
        .count();
    assert!(modules > 10);
    assert_eq!(library.len(), classes.len() - modules + 1);
    let names: Vec<&str> = library.class_names().collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn jdk17_image_matches_jimage_tool() {
    check_against_oracle(JDK17);
}

#[test]
fn jdk25_image_matches_jimage_tool() {
    check_against_oracle(JDK25);
}

/// Runs `jlink --compress=<level>` for java.base into `dir/img`.
fn jlink(jdk: &Path, level: &str, dir: &Path) -> PathBuf {
    let out = dir.join("img");
    let status = Command::new(jdk.join("bin/jlink"))
        .arg(format!("--compress={level}"))
        .arg("--add-modules")
        .arg("java.base")
        .arg("--output")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    out
}

#[test]
fn zip_compressed_image_decompresses_to_the_same_bytes() {
    let Some(jdk) = jdk_with(JDK17, "jlink") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let home = jlink(&jdk, "2", tmp.path());
    let compressed = Library::jdk(&home).unwrap();
    let plain = Library::jdk(&jdk).unwrap();
    let image = open_image(&home.join("lib/modules"));
    for class in ORACLE_CLASSES {
        let (_, loc) = image.find(&format!("/java.base/{class}.class")).unwrap();
        assert_ne!(loc.compressed_size, 0, "{class} should be compressed");
        assert_eq!(
            compressed.load(class).unwrap().unwrap().bytes,
            plain.load(class).unwrap().unwrap().bytes,
            "{class}"
        );
    }
    // Every class of the compressed image reads, in order, without problems.
    let set = read_inputs(&[home.join("lib/modules")]);
    assert!(
        set.problems.is_empty(),
        "{:?}",
        &set.problems[..set.problems.len().min(5)]
    );
    assert_eq!(set.classes.len(), image.classes().0.len());
    let names = entries(&set.classes);
    assert!(names.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn compact_cp_image_gives_a_clear_problem() {
    let Some(jdk) = jdk_with(JDK17, "jlink") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let home = jlink(&jdk, "1", tmp.path());
    let library = Library::jdk(&home).unwrap();
    let problem = library.load("java/lang/Thread").unwrap().unwrap_err();
    assert_eq!(
        problem.message,
        "compact-cp compressed resource not supported"
    );
    assert_eq!(
        problem.origin.entry.as_deref(),
        Some("/java.base/java/lang/Thread.class")
    );
    // Reading the whole image reports per class and does not panic.
    let set = read_inputs(&[home.join("lib/modules")]);
    assert!(!set.problems.is_empty());
    assert!(set
        .problems
        .iter()
        .all(|p| p.message == "compact-cp compressed resource not supported"));
}

#[test]
fn truncated_and_damaged_real_index_does_not_panic() {
    let Some(jdk) = jdk_with(JDK17, "jimage") else {
        return;
    };
    let bytes = std::fs::read(jdk.join("lib/modules")).unwrap();
    let index_size = jimage_from_bytes(&bytes).unwrap().index_size();
    let index = &bytes[..index_size];
    // Every short prefix, then a stride through the rest: parse must fail
    // cleanly until the whole index is there.
    let lengths = (0..4096).chain((4096..index_size).step_by(997));
    for len in lengths {
        assert!(jimage_from_bytes(&index[..len]).is_err(), "length {len}");
    }
    // The index alone parses; reading resources then fails cleanly.
    let alone = jimage_from_bytes(index).unwrap();
    let (classes, errors) = alone.classes();
    assert!(errors.is_empty());
    for class in classes.iter().step_by(500) {
        assert!(alone.read_slot(class.slot).is_err());
    }
    // Damage bytes spread over the tables and strings.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..40 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut copy = index.to_vec();
        for k in 0..16 {
            let at = ((state >> (k * 4)) as usize).wrapping_mul(2654435761) % index_size;
            copy[at] ^= (state >> 56) as u8 | 1;
        }
        if let Ok(image) = jimage_from_bytes(&copy) {
            let (classes, _) = image.classes();
            for class in classes.iter().step_by(97) {
                let _ = image.find(&class.full_name());
                let _ = image.read_slot(class.slot);
            }
        }
    }
}
