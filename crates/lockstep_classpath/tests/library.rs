//! `Library` (lazy index over containers) and JDK discovery.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use lockstep_classpath::{find_jdk, find_jdk_with, Library, Origin};

/// A minimal well-formed class header declaring `name` as this_class.
fn class_declaring(name: &str) -> Vec<u8> {
    let mut b = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61, 0, 3];
    b.push(1);
    b.extend_from_slice(&(name.len() as u16).to_be_bytes());
    b.extend_from_slice(name.as_bytes());
    b.extend_from_slice(&[7, 0, 1]);
    b.extend_from_slice(&[0, 0x21, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    b
}

#[test]
fn classpath_order_first_definition_wins() {
    let tmp = tempfile::tempdir().unwrap();
    let first = tmp.path().join("first.jar");
    let second = tmp.path().join("second.jar");
    let dir = tmp.path().join("classes");
    let loose = tmp.path().join("Whatever.class");
    write(
        &first,
        &make_zip(
            &[
                ("a/A.class", &fake_class("first A")),
                ("META-INF/versions/11/a/B.class", &fake_class("mr B")),
            ],
            true,
        ),
    );
    write(
        &second,
        &make_zip(
            &[
                ("a/A.class", &fake_class("second A")),
                ("a/B.class", &fake_class("second B")),
            ],
            true,
        ),
    );
    write(&dir.join("a/A.class"), &fake_class("dir A"));
    write(&dir.join("d/D.class"), &fake_class("dir D"));
    write(&loose, &class_declaring("l/Loose"));
    let missing = tmp.path().join("missing.jar");

    let (library, problems) = Library::open(&[
        first.clone(),
        missing.clone(),
        second.clone(),
        dir.clone(),
        loose.clone(),
    ]);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].origin, Origin::file(&missing));
    assert_eq!(problems[0].message, "no such file or directory");

    let names: Vec<&str> = library.class_names().collect();
    assert_eq!(names, ["a/A", "a/B", "d/D", "l/Loose"]);
    assert_eq!(library.len(), 4);

    let a = library.load("a/A").unwrap().unwrap();
    assert_eq!(a.bytes, fake_class("first A"));
    assert_eq!(a.origin, Origin::entry(&first, "a/A.class"));
    let b = library.load("a/B").unwrap().unwrap();
    assert_eq!(b.bytes, fake_class("second B"));
    let d = library.load("d/D").unwrap().unwrap();
    assert_eq!(d.origin, Origin::file(dir.join("d/D.class")));
    let l = library.load("l/Loose").unwrap().unwrap();
    assert_eq!(l.origin, Origin::file(&loose));
    assert_eq!(
        library.origin("a/B"),
        Some(Origin::entry(&second, "a/B.class"))
    );
    assert!(library.load("a/Missing").is_none());
    assert!(!library.contains("a/Missing"));
    assert!(library.contains("d/D"));
}

#[test]
fn corrupt_entry_fails_only_its_load() {
    let tmp = tempfile::tempdir().unwrap();
    let jar = tmp.path().join("lib.jar");
    let mut zip = make_zip(
        &[
            ("a/A.class", &fake_class("A")),
            ("a/B.class", &fake_class("B")),
        ],
        true,
    );
    let (start, end) = entry_data_range(&zip, "a/A.class");
    zip[start..end].fill(0xFF);
    write(&jar, &zip);
    let (library, problems) = Library::open(std::slice::from_ref(&jar));
    assert!(problems.is_empty());
    let problem = library.load("a/A").unwrap().unwrap_err();
    assert_eq!(problem.origin, Origin::entry(&jar, "a/A.class"));
    assert!(problem.message.starts_with("entry is corrupt"), "{problem}");
    assert_eq!(library.load("a/B").unwrap().unwrap().bytes, fake_class("B"));
}

#[test]
fn bad_library_inputs_are_problems() {
    let tmp = tempfile::tempdir().unwrap();
    let garbage = tmp.path().join("x.bin");
    write(&garbage, b"\x00\x01\x02\x03garbage");
    let bad_class = tmp.path().join("Bad.class");
    write(&bad_class, b"\xCA\xFE\xBA\xBE\x00");
    let (library, problems) = Library::open(&[garbage, bad_class]);
    assert!(library.is_empty());
    assert_eq!(problems.len(), 2);
    assert!(problems[0].message.starts_with("not a class file"));
    assert!(problems[1].message.contains("cannot read the class name"));
}

#[test]
fn concurrent_loads_agree_with_sequential_ones() {
    let Some(jdk) = jdk_with(JDK17, "java") else {
        return;
    };
    let library = Library::jdk(&jdk).unwrap();
    let names: Vec<&str> = library.class_names().step_by(7).take(1400).collect();
    let sequential: Vec<Vec<u8>> = names
        .iter()
        .map(|n| library.load(n).unwrap().unwrap().bytes)
        .collect();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (library, names, sequential) = (&library, &names, &sequential);
            scope.spawn(move || {
                for (i, name) in names.iter().enumerate().skip(t) {
                    let bytes = library.load(name).unwrap().unwrap().bytes;
                    assert_eq!(&bytes, &sequential[i], "{name}");
                }
            });
        }
    });
}

#[cfg(unix)]
#[test]
fn jdk_from_jmods_when_there_is_no_image() {
    let Some(jdk) = jdk_with(JDK17, "java") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("jmods")).unwrap();
    for m in ["java.base", "java.logging"] {
        std::os::unix::fs::symlink(
            jdk.join(format!("jmods/{m}.jmod")),
            tmp.path().join(format!("jmods/{m}.jmod")),
        )
        .unwrap();
    }
    let library = Library::jdk(tmp.path()).unwrap();
    assert!(library.contains("java/lang/Thread"));
    assert!(library.contains("java/util/logging/Logger"));
    let thread = library.load("java/lang/Thread").unwrap().unwrap();
    assert!(thread.bytes.starts_with(&[0xCA, 0xFE, 0xBA, 0xBE]));
    assert_eq!(
        thread.origin.entry.as_deref(),
        Some("classes/java/lang/Thread.class")
    );
}

#[test]
fn jdk8_layout_uses_rt_jar() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("jre/lib");
    write(
        &lib.join("rt.jar"),
        &make_zip(&[("java/lang/Object.class", &fake_class("O"))], true),
    );
    write(
        &lib.join("jce.jar"),
        &make_zip(&[("javax/crypto/Cipher.class", &fake_class("C"))], true),
    );
    let library = Library::jdk(tmp.path()).unwrap();
    assert_eq!(
        library.class_names().collect::<Vec<_>>(),
        ["java/lang/Object", "javax/crypto/Cipher"]
    );
    assert_eq!(
        find_jdk(Some(tmp.path())).unwrap(),
        tmp.path().to_path_buf()
    );
}

#[test]
fn jdk_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let err = Library::jdk(tmp.path()).unwrap_err();
    assert!(err.message.starts_with("not a JDK home"), "{err}");
    let err = Library::jdk(&tmp.path().join("nope")).unwrap_err();
    assert_eq!(err.message, "no such file or directory");
}

#[test]
fn find_jdk_explicit_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no-such-jdk");
    let err = find_jdk(Some(&missing)).unwrap_err();
    assert_eq!(err.origin, Origin::file(&missing));
    assert_eq!(err.message, "no such file or directory");
    let err = find_jdk(Some(tmp.path())).unwrap_err();
    assert!(err.message.starts_with("not a JDK home"), "{err}");

    let Some(jdk) = jdk_with(JDK17, "java") else {
        return;
    };
    assert_eq!(find_jdk(Some(&jdk)).unwrap(), jdk);
    // The launcher itself points at its JDK.
    assert_eq!(find_jdk(Some(&jdk.join("bin/java"))).unwrap(), jdk);
}

#[test]
fn find_jdk_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let none = find_jdk_with(None, None, None).unwrap_err();
    assert!(none.message.starts_with("no JDK found"), "{none}");
    let empty_path = find_jdk_with(None, Some("".into()), Some(tmp.path().into())).unwrap_err();
    assert!(empty_path.message.starts_with("no JDK found"));
    let bad_home = find_jdk_with(None, Some(tmp.path().into()), None).unwrap_err();
    assert!(
        bad_home.message.starts_with("$JAVA_HOME: not a JDK home"),
        "{bad_home}"
    );

    let Some(jdk) = jdk_with(JDK17, "java") else {
        return;
    };
    assert_eq!(
        find_jdk_with(None, Some(jdk.clone().into()), None).unwrap(),
        jdk
    );
    // Explicit beats JAVA_HOME.
    let explicit = find_jdk_with(Some(&jdk), Some(tmp.path().into()), None).unwrap();
    assert_eq!(explicit, jdk);
    #[cfg(unix)]
    {
        // PATH: bin/java is a symlink chain into the JDK, as with
        // /usr/bin/java -> /etc/alternatives/java -> /usr/lib/jvm/X/bin/java.
        let alternatives = tmp.path().join("alternatives");
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&alternatives).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(jdk.join("bin/java"), alternatives.join("java")).unwrap();
        std::os::unix::fs::symlink(alternatives.join("java"), bin.join("java")).unwrap();
        let path_var = std::env::join_paths([tmp.path().join("empty"), bin]).unwrap();
        let found = find_jdk_with(None, None, Some(path_var)).unwrap();
        assert_eq!(canonical(&found), canonical(&jdk));
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap()
}
