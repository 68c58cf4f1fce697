//! `read_inputs` and `detect_kind` over directories, jars, jmods and bad
//! files.

mod common;

use std::path::PathBuf;

use common::*;
use lockstep_classpath::{detect_kind, read_inputs, InputKind, Origin};

#[test]
fn directory_classes_sorted_by_relative_path() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("target/classes");
    write(&root.join("com/x/B.class"), &fake_class("B"));
    write(&root.join("com/x/A.class"), &fake_class("A"));
    write(&root.join("com/x/A$Inner.class"), &fake_class("A$Inner"));
    write(&root.join("Top.class"), &fake_class("Top"));
    write(&root.join("com/x/notes.txt"), b"not a class");
    write(
        &root.join("META-INF/MANIFEST.MF"),
        b"Manifest-Version: 1.0\n",
    );

    let set = read_inputs(std::slice::from_ref(&root));
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    let rel: Vec<String> = set
        .classes
        .iter()
        .map(|c| {
            assert_eq!(c.origin.entry, None);
            c.origin
                .container
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    assert_eq!(
        rel,
        [
            "Top.class",
            "com/x/A$Inner.class",
            "com/x/A.class",
            "com/x/B.class"
        ]
    );
    assert_eq!(set.classes[2].bytes, fake_class("A"));
    assert_eq!(detect_kind(&root).unwrap(), InputKind::Directory);
}

#[cfg(unix)]
#[test]
fn directory_symlink_cycle_terminates() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("classes");
    write(&root.join("a/A.class"), &fake_class("A"));
    std::os::unix::fs::symlink(&root, root.join("a/loop")).unwrap();
    std::os::unix::fs::symlink(root.join("missing.class"), root.join("a/Dangling.class")).unwrap();
    let set = read_inputs(&[root]);
    assert_eq!(set.classes.len(), 1);
    assert_eq!(set.problems.len(), 1, "{:?}", set.problems);
    assert!(set.problems[0].message.contains("broken symbolic link"));
}

#[cfg(unix)]
#[test]
fn unreadable_class_file_is_a_problem_and_others_are_read() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("classes");
    write(&root.join("A.class"), &fake_class("A"));
    write(&root.join("B.class"), &fake_class("B"));
    let locked = root.join("B.class");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&locked).is_ok() {
        eprintln!("note: running as a user that ignores file permissions; skipping");
        return;
    }
    let set = read_inputs(&[root]);
    assert_eq!(set.classes.len(), 1);
    assert_eq!(set.problems.len(), 1);
    assert_eq!(set.problems[0].origin, Origin::file(&locked));
    assert_eq!(set.problems[0].message, "permission denied");
}

#[test]
fn jar_entries_sorted_and_non_classes_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let jar = tmp.path().join("app.jar");
    let zip = make_zip(
        &[
            ("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\n"),
            ("com/x/B.class", &fake_class("B")),
            ("com/x/", b""),
            ("com/x/A.class", &fake_class("A")),
            ("module-info.class", &fake_class("module-info")),
            ("com/x/res.properties", b"k=v"),
        ],
        true,
    );
    write(&jar, &zip);
    let set = read_inputs(std::slice::from_ref(&jar));
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(
        entries(&set.classes),
        ["com/x/A.class", "com/x/B.class", "module-info.class"]
    );
    assert_eq!(set.classes[0].bytes, fake_class("A"));
    assert_eq!(set.classes[0].origin.container, jar);
    let shown = set.classes[0].origin.to_string();
    assert!(shown.ends_with("app.jar!com/x/A.class"), "{shown}");
    assert_eq!(detect_kind(&jar).unwrap(), InputKind::Jar);
}

#[test]
fn stored_jar_entries_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let jar = tmp.path().join("stored.jar");
    write(&jar, &make_zip(&[("a/A.class", &fake_class("A"))], false));
    let set = read_inputs(&[jar]);
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(set.classes[0].bytes, fake_class("A"));
}

#[test]
fn multi_release_versions_replace_the_base_up_to_release_17() {
    let tmp = tempfile::tempdir().unwrap();
    let jar = tmp.path().join("mr.jar");
    let zip = make_zip(
        &[
            ("META-INF/MANIFEST.MF", b"Multi-Release: true\n"),
            ("a/A.class", &fake_class("base")),
            ("META-INF/versions/11/a/A.class", &fake_class("v11")),
            ("META-INF/versions/17/a/B.class", &fake_class("v17")),
        ],
        true,
    );
    write(&jar, &zip);
    // The default release is 17: more in tests/java_classpaths.rs.
    let set = read_inputs(&[jar]);
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(
        entries(&set.classes),
        [
            "META-INF/versions/11/a/A.class",
            "META-INF/versions/17/a/B.class"
        ]
    );
    assert_eq!(set.classes[0].bytes, fake_class("v11"));
}

#[test]
fn inputs_keep_their_order() {
    let tmp = tempfile::tempdir().unwrap();
    let z = tmp.path().join("z.jar");
    let a = tmp.path().join("a.jar");
    let loose = tmp.path().join("Loose.class");
    write(&z, &make_zip(&[("z/Z.class", &fake_class("Z"))], true));
    write(&a, &make_zip(&[("a/A.class", &fake_class("A"))], true));
    write(&loose, &fake_class("Loose"));
    let set = read_inputs(&[z.clone(), loose.clone(), a.clone()]);
    assert!(set.problems.is_empty());
    let containers: Vec<&PathBuf> = set.classes.iter().map(|c| &c.origin.container).collect();
    assert_eq!(containers, [&z, &loose, &a]);
    assert_eq!(detect_kind(&loose).unwrap(), InputKind::ClassFile);
}

#[test]
fn truncated_jar_is_one_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let jar = tmp.path().join("cut.jar");
    let zip = make_zip(
        &[
            ("a/A.class", &fake_class("A")),
            ("a/B.class", &fake_class("B")),
        ],
        true,
    );
    write(&jar, &zip[..zip.len() / 2]);
    let set = read_inputs(std::slice::from_ref(&jar));
    assert!(set.classes.is_empty());
    assert_eq!(set.problems.len(), 1);
    assert_eq!(set.problems[0].origin, Origin::file(&jar));
    assert_eq!(
        set.problems[0].message,
        "truncated zip: end of central directory not found"
    );
}

#[test]
fn every_truncation_of_a_jar_is_handled() {
    let tmp = tempfile::tempdir().unwrap();
    let zip = make_zip(
        &[
            ("a/A.class", &fake_class("A")),
            ("a/B.class", &fake_class("B")),
        ],
        true,
    );
    let jar = tmp.path().join("t.jar");
    for len in 0..zip.len() {
        write(&jar, &zip[..len]);
        let set = read_inputs(std::slice::from_ref(&jar));
        // Either a problem, or (cutting only into a trailing comment, which
        // there is none of here) classes; never a panic, never silence.
        assert!(!set.problems.is_empty(), "length {len}");
    }
}

#[test]
fn corrupt_entry_is_reported_and_others_still_read() {
    let tmp = tempfile::tempdir().unwrap();
    let jar = tmp.path().join("bad.jar");
    let mut zip = make_zip(
        &[
            ("a/A.class", &fake_class("A")),
            ("a/B.class", &fake_class("B")),
            ("a/C.class", &fake_class("C")),
        ],
        true,
    );
    let (start, end) = entry_data_range(&zip, "a/B.class");
    for byte in &mut zip[start..end] {
        *byte ^= 0x5A;
    }
    write(&jar, &zip);
    let set = read_inputs(std::slice::from_ref(&jar));
    assert_eq!(entries(&set.classes), ["a/A.class", "a/C.class"]);
    assert_eq!(set.problems.len(), 1, "{:?}", set.problems);
    let problem = &set.problems[0];
    assert_eq!(problem.origin, Origin::entry(&jar, "a/B.class"));
    assert!(problem.message.starts_with("entry is corrupt"), "{problem}");
}

#[test]
fn crc_mismatch_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let jar = tmp.path().join("crc.jar");
    // Stored entries: flipping a byte changes content but not structure, so
    // only the CRC can tell.
    let mut zip = make_zip(
        &[
            ("a/A.class", &fake_class("A")),
            ("a/B.class", &fake_class("B")),
        ],
        false,
    );
    let (start, _) = entry_data_range(&zip, "a/A.class");
    zip[start + 10] ^= 0x01;
    write(&jar, &zip);
    let set = read_inputs(&[jar]);
    assert_eq!(entries(&set.classes), ["a/B.class"]);
    assert_eq!(set.problems.len(), 1);
    assert!(
        set.problems[0].message.contains("CRC mismatch"),
        "{}",
        set.problems[0]
    );
}

#[test]
fn garbage_empty_and_missing_files() {
    let tmp = tempfile::tempdir().unwrap();
    let garbage = tmp.path().join("data.bin");
    write(&garbage, &[0x1F, 0x8B, 0x08, 0x00, 1, 2, 3]);
    let empty = tmp.path().join("empty.jar");
    write(&empty, b"");
    let missing = tmp.path().join("nope.jar");
    let garbage_jar = tmp.path().join("garbage.jar");
    write(&garbage_jar, b"this is not a zip file at all, just text");

    let set = read_inputs(&[
        garbage.clone(),
        empty.clone(),
        missing.clone(),
        garbage_jar.clone(),
    ]);
    assert!(set.classes.is_empty());
    let got: Vec<(PathBuf, Option<String>, String)> = set
        .problems
        .iter()
        .map(|p| {
            (
                p.origin.container.clone(),
                p.origin.entry.clone(),
                p.message.clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                garbage.clone(),
                None,
                "not a class file, jar, jmod, directory or JDK image (starts with 0x1F8B0800)"
                    .to_string()
            ),
            (empty, None, "empty file".to_string()),
            (
                missing.clone(),
                None,
                "no such file or directory".to_string()
            ),
            (
                garbage_jar,
                None,
                "truncated zip: end of central directory not found".to_string()
            ),
        ]
    );
    let shown = set.problems[2].to_string();
    assert_eq!(
        shown,
        format!("{}: no such file or directory", missing.display())
    );
    assert!(detect_kind(&garbage).is_err());
}

#[test]
fn hand_made_jmod() {
    let tmp = tempfile::tempdir().unwrap();
    let jmod = tmp.path().join("m.jmod");
    let mut bytes = b"JM\x01\x00".to_vec();
    bytes.extend(make_zip(
        &[
            ("classes/module-info.class", &fake_class("mi")),
            ("classes/p/Q.class", &fake_class("Q")),
            ("classes/p/data.txt", b"x"),
            ("lib/libfoo.so", b"\x7fELF"),
            ("bin/p/NotAClass.class", b"xx"),
        ],
        true,
    ));
    write(&jmod, &bytes);
    assert_eq!(detect_kind(&jmod).unwrap(), InputKind::Jmod);
    let set = read_inputs(&[jmod]);
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(
        entries(&set.classes),
        ["classes/module-info.class", "classes/p/Q.class"]
    );
    assert_eq!(set.classes[1].bytes, fake_class("Q"));
}

#[test]
fn jmod_made_by_the_jmod_tool() {
    let Some(jdk) = jdk_with(JDK17, "jmod") else {
        return;
    };
    // `jmod create` insists on a real module-info.class, so compile one.
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    write(&src.join("module-info.java"), b"module x { exports p; }\n");
    write(&src.join("p/A.java"), b"package p; public class A {}\n");
    write(&src.join("p/B.java"), b"package p; class B {}\n");
    let classes = tmp.path().join("classes");
    let status = std::process::Command::new(jdk.join("bin/javac"))
        .arg("-d")
        .arg(&classes)
        .arg(src.join("module-info.java"))
        .arg(src.join("p/A.java"))
        .arg(src.join("p/B.java"))
        .status()
        .unwrap();
    assert!(status.success());
    let jmod = tmp.path().join("x.jmod");
    let status = std::process::Command::new(jdk.join("bin/jmod"))
        .arg("create")
        .arg("--class-path")
        .arg(&classes)
        .arg(&jmod)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(detect_kind(&jmod).unwrap(), InputKind::Jmod);
    let set = read_inputs(&[jmod]);
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(
        entries(&set.classes),
        [
            "classes/module-info.class",
            "classes/p/A.class",
            "classes/p/B.class"
        ]
    );
    assert_eq!(
        set.classes[1].bytes,
        std::fs::read(classes.join("p/A.class")).unwrap()
    );
}

#[test]
fn jar_made_by_the_jar_tool() {
    let Some(jdk) = jdk_with(JDK17, "jar") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let classes = tmp.path().join("classes");
    write(&classes.join("p/A.class"), &fake_class("A"));
    write(&classes.join("p/q/B.class"), &fake_class("B"));
    let jar = tmp.path().join("x.jar");
    let status = std::process::Command::new(jdk.join("bin/jar"))
        .arg("cf")
        .arg(&jar)
        .arg("-C")
        .arg(&classes)
        .arg(".")
        .status()
        .unwrap();
    assert!(status.success());
    let set = read_inputs(&[jar]);
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(entries(&set.classes), ["p/A.class", "p/q/B.class"]);
    assert_eq!(set.classes[1].bytes, fake_class("B"));
}

#[test]
fn real_jdk_jmod_reads_without_problems() {
    let Some(jdk) = jdk_with(JDK17, "jmod") else {
        return;
    };
    let set = read_inputs(&[jdk.join("jmods/java.base.jmod")]);
    assert!(
        set.problems.is_empty(),
        "{:?}",
        &set.problems[..set.problems.len().min(5)]
    );
    assert!(set.classes.len() > 5000);
    let names = entries(&set.classes);
    assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
    assert!(names.iter().any(|n| n == "classes/java/lang/Object.class"));
}
