//! Class paths as Java writes them: `dir/*` wildcards, directories of jars,
//! manifest `Class-Path`, Spring Boot jars, WARs, EARs, multi-release jars.
//! Archives are built by the tests (in memory, and with the JDK's `jar`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use lockstep_classpath::{
    expand_classpath, jdk_release, read_inputs, read_inputs_with, Library, Origin, ReadOptions,
};

fn jar(path: &Path, entries: &[(&str, &[u8])]) -> PathBuf {
    write(path, &make_zip(entries, true));
    path.to_path_buf()
}

fn manifest(class_path: &str) -> Vec<u8> {
    format!("Manifest-Version: 1.0\r\nClass-Path: {class_path}\r\n\r\n").into_bytes()
}

/// The bytes the library holds for `class`, and where they came from.
fn load(lib: &Library, class: &str) -> (Vec<u8>, String) {
    let c = lib.load(class).expect("defined").expect("readable");
    (c.bytes, c.origin.to_string())
}

#[test]
fn wildcard_is_the_jars_of_the_directory_sorted() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    jar(&lib.join("b.jar"), &[("b/B.class", &fake_class("B"))]);
    jar(&lib.join("a.JAR"), &[("a/A.class", &fake_class("A"))]);
    write(&lib.join("notes.txt"), b"not a jar");
    write(&lib.join("c/C.class"), &fake_class("C"));
    let (paths, problems) = expand_classpath(&[lib.join("*")]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(paths, [lib.join("a.JAR"), lib.join("b.jar")]);
    let (library, problems) = Library::open(&[lib.join("*")]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(library.class_names().collect::<Vec<_>>(), ["a/A", "b/B"]);
}

#[test]
fn wildcard_on_a_missing_directory_is_a_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope").join("*");
    let (paths, problems) = expand_classpath(std::slice::from_ref(&missing));
    assert!(paths.is_empty());
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].origin, Origin::file(&missing));
    assert_eq!(problems[0].message, "no such file or directory");
}

#[test]
fn directory_of_jars_is_its_jars_and_class_directory_stays_one() {
    let tmp = tempfile::tempdir().unwrap();
    let mods = tmp.path().join("mods");
    jar(&mods.join("m.jar"), &[("m/M.class", &fake_class("M"))]);
    let classes = tmp.path().join("classes");
    write(&classes.join("x/X.class"), &fake_class("X"));
    // A class directory that also holds a jar is still a class directory.
    jar(
        &classes.join("stray.jar"),
        &[("s/S.class", &fake_class("S"))],
    );
    let (paths, problems) = expand_classpath(&[mods.clone(), classes.clone()]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(paths, [mods.join("m.jar"), classes.clone()]);
    let (library, _) = Library::open(&[mods, classes]);
    assert_eq!(library.class_names().collect::<Vec<_>>(), ["m/M", "x/X"]);
}

#[test]
fn manifest_class_path_is_followed_relative_to_the_jar_once_each() {
    let tmp = tempfile::tempdir().unwrap();
    let app = tmp.path().join("app");
    // app.jar -> lib/a.jar lib/my b.jar missing.jar; a.jar -> b (cycle) and ../extra/
    let main = jar(
        &app.join("app.jar"),
        &[
            (
                "META-INF/MANIFEST.MF",
                &manifest("lib/a.jar lib/my%20b.jar missing.jar"),
            ),
            ("app/Main.class", &fake_class("Main")),
        ],
    );
    jar(
        &app.join("lib/a.jar"),
        &[
            ("META-INF/MANIFEST.MF", &manifest("my%20b.jar ../../extra/")),
            ("a/A.class", &fake_class("A")),
        ],
    );
    jar(
        &app.join("lib/my b.jar"),
        &[
            ("META-INF/MANIFEST.MF", &manifest("a.jar")),
            ("b/B.class", &fake_class("B")),
        ],
    );
    write(&tmp.path().join("extra/e/E.class"), &fake_class("E"));
    let (paths, problems) = expand_classpath(std::slice::from_ref(&main));
    let names: Vec<String> = paths
        .iter()
        .map(|p| p.strip_prefix(tmp.path()).unwrap().display().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "app/app.jar",
            "app/lib/a.jar",
            "app/lib/my b.jar",
            "app/lib/../../extra",
        ]
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].origin, Origin::file(app.join("missing.jar")));
    assert!(problems[0]
        .message
        .contains("named by the manifest Class-Path of"));
    let (library, _) = Library::open(std::slice::from_ref(&main));
    assert_eq!(
        library.class_names().collect::<Vec<_>>(),
        ["a/A", "app/Main", "b/B", "e/E"]
    );
    // An application jar hands its Class-Path to the library class path.
    let set = read_inputs(&[main]);
    assert_eq!(entries(&set.classes), ["app/Main.class"]);
    assert_eq!(
        set.libraries,
        [app.join("lib/a.jar"), app.join("lib/my b.jar")]
    );
}

/// A Spring Boot fat jar: the application's classes under
/// `BOOT-INF/classes`, its dependencies as stored jars under `BOOT-INF/lib`,
/// Spring's launcher at the root.
fn spring_boot_jar(path: &Path) -> PathBuf {
    let dependency = make_zip(
        &[
            ("dep/Dep.class", &fake_class("Dep")),
            ("dep/Util.class", &fake_class("Util")),
        ],
        true,
    );
    let other = make_zip(&[("other/O.class", &fake_class("O"))], false);
    write(
        path,
        &make_zip(
            &[
                ("META-INF/MANIFEST.MF", b"Main-Class: org.springframework.boot.loader.launch.JarLauncher\r\nStart-Class: app.Main\r\n\r\n"),
                ("org/springframework/boot/loader/launch/JarLauncher.class", &fake_class("Launcher")),
                ("BOOT-INF/classes/app/Main.class", &fake_class("Main")),
                ("BOOT-INF/classes/app/Main$1.class", &fake_class("Main1")),
                ("BOOT-INF/classes/application.properties", b"x=1"),
                ("BOOT-INF/lib/dep-1.0.jar", &dependency),
                ("BOOT-INF/lib/other-2.0.jar", &other),
                ("BOOT-INF/classpath.idx", b"- \"BOOT-INF/lib/dep-1.0.jar\"\n"),
            ],
            false,
        ),
    );
    path.to_path_buf()
}

#[test]
fn spring_boot_jar_application_classes_and_nested_libraries() {
    let tmp = tempfile::tempdir().unwrap();
    let boot = spring_boot_jar(&tmp.path().join("app.jar"));
    let set = read_inputs(std::slice::from_ref(&boot));
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    // The launcher is Spring's, not the application's.
    assert_eq!(
        entries(&set.classes),
        [
            "BOOT-INF/classes/app/Main$1.class",
            "BOOT-INF/classes/app/Main.class"
        ]
    );
    assert_eq!(set.classes[1].bytes, fake_class("Main"));
    assert_eq!(set.libraries, std::slice::from_ref(&boot));

    let (library, problems) = Library::open(&set.libraries);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        library.class_names().collect::<Vec<_>>(),
        ["app/Main", "app/Main$1", "dep/Dep", "dep/Util", "other/O"]
    );
    let (bytes, origin) = load(&library, "dep/Util");
    assert_eq!(bytes, fake_class("Util"));
    assert_eq!(
        origin,
        format!("{}!BOOT-INF/lib/dep-1.0.jar!dep/Util.class", boot.display())
    );
    assert_eq!(load(&library, "other/O").0, fake_class("O"));
}

#[test]
fn corrupt_nested_library_is_named_and_the_rest_indexed() {
    let tmp = tempfile::tempdir().unwrap();
    let mut broken = make_zip(&[("x/X.class", &fake_class("X"))], false);
    broken.truncate(broken.len() - 10);
    let boot = jar(
        &tmp.path().join("app.jar"),
        &[
            ("BOOT-INF/classes/app/Main.class", &fake_class("Main")),
            ("BOOT-INF/lib/broken.jar", &broken),
            (
                "BOOT-INF/lib/ok.jar",
                &make_zip(&[("ok/Ok.class", &fake_class("Ok"))], true),
            ),
        ],
    );
    let (library, problems) = Library::open(std::slice::from_ref(&boot));
    assert_eq!(
        library.class_names().collect::<Vec<_>>(),
        ["app/Main", "ok/Ok"]
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        problems[0].origin,
        Origin::entry(&boot, "BOOT-INF/lib/broken.jar")
    );
    assert!(
        problems[0].message.starts_with("corrupt zip"),
        "{}",
        problems[0]
    );
}

#[test]
fn war_and_ear_archives() {
    let tmp = tempfile::tempdir().unwrap();
    let web_lib = make_zip(&[("weblib/L.class", &fake_class("L"))], true);
    let war_bytes = make_zip(
        &[
            ("WEB-INF/web.xml", b"<web-app/>"),
            ("WEB-INF/classes/web/Servlet.class", &fake_class("Servlet")),
            ("WEB-INF/lib/weblib.jar", &web_lib),
            ("index.jsp", b"<html/>"),
        ],
        true,
    );
    let war = tmp.path().join("web.war");
    write(&war, &war_bytes);
    let set = read_inputs(std::slice::from_ref(&war));
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(entries(&set.classes), ["WEB-INF/classes/web/Servlet.class"]);
    assert_eq!(set.libraries, std::slice::from_ref(&war));
    let (library, problems) = Library::open(&set.libraries);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(library.contains("weblib/L"));

    // An EAR: a WAR module and an EJB jar module are application code,
    // lib/*.jar are libraries.
    let ear = tmp.path().join("app.ear");
    write(
        &ear,
        &make_zip(
            &[
                ("META-INF/application.xml", b"<application/>"),
                ("web.war", &war_bytes),
                (
                    "ejb.jar",
                    &make_zip(&[("ejb/Bean.class", &fake_class("Bean"))], true),
                ),
                (
                    "lib/shared.jar",
                    &make_zip(&[("shared/S.class", &fake_class("S"))], true),
                ),
            ],
            false,
        ),
    );
    let set = read_inputs(std::slice::from_ref(&ear));
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    let origins: Vec<String> = set.classes.iter().map(|c| c.origin.to_string()).collect();
    let e = ear.display();
    assert_eq!(
        origins,
        [
            format!("{e}!ejb.jar!ejb/Bean.class"),
            format!("{e}!web.war!WEB-INF/classes/web/Servlet.class"),
        ]
    );
    assert_eq!(set.libraries, std::slice::from_ref(&ear));
    let (library, problems) = Library::open(&set.libraries);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        load(&library, "weblib/L").1,
        format!("{e}!web.war!WEB-INF/lib/weblib.jar!weblib/L.class")
    );
    assert!(library.contains("shared/S"));
}

fn multi_release_jar(path: &Path, multi: bool) -> PathBuf {
    let manifest: &[u8] = if multi {
        b"Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n"
    } else {
        b"Manifest-Version: 1.0\r\n\r\n"
    };
    jar(
        path,
        &[
            ("META-INF/MANIFEST.MF", manifest),
            ("a/A.class", &fake_class("base")),
            ("META-INF/versions/9/a/A.class", &fake_class("v9")),
            ("META-INF/versions/21/a/A.class", &fake_class("v21")),
            ("META-INF/versions/11/a/Only11.class", &fake_class("only11")),
            (
                "META-INF/versions/8/a/A.class",
                &fake_class("v8 is not a version"),
            ),
        ],
    )
}

#[test]
fn multi_release_jar_picks_the_highest_version_up_to_the_release() {
    let tmp = tempfile::tempdir().unwrap();
    let mr = multi_release_jar(&tmp.path().join("mr.jar"), true);
    let at = |release: u16| {
        let options = ReadOptions { release };
        let set = read_inputs_with(std::slice::from_ref(&mr), &options);
        assert!(set.problems.is_empty(), "{:?}", set.problems);
        let (library, problems) = Library::open_with(std::slice::from_ref(&mr), &options);
        assert!(problems.is_empty(), "{problems:?}");
        let from_library: Vec<_> = library.class_names().map(|n| load(&library, n).0).collect();
        let from_inputs: Vec<_> = set.classes.iter().map(|c| c.bytes.clone()).collect();
        (entries(&set.classes), from_inputs, from_library)
    };
    let (names, bytes, lib) = at(8);
    assert_eq!(names, ["a/A.class"]);
    assert_eq!(bytes, [fake_class("base")]);
    assert_eq!(lib, bytes);
    let (names, bytes, lib) = at(17);
    assert_eq!(
        names,
        [
            "META-INF/versions/11/a/Only11.class",
            "META-INF/versions/9/a/A.class"
        ]
    );
    assert_eq!(bytes, [fake_class("only11"), fake_class("v9")]);
    // The library lists by class name: a/A, a/Only11.
    assert_eq!(lib, [fake_class("v9"), fake_class("only11")]);
    let (_, bytes, _) = at(25);
    assert_eq!(bytes, [fake_class("only11"), fake_class("v21")]);

    // Without `Multi-Release: true` the versions directory is just files.
    let plain = multi_release_jar(&tmp.path().join("plain.jar"), false);
    let set = read_inputs_with(&[plain], &ReadOptions { release: 25 });
    assert_eq!(entries(&set.classes), ["a/A.class"]);
}

#[test]
fn jar_tool_multi_release_and_class_path_manifest() {
    let Some(jdk) = jdk_with(JDK17, "jar") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let base = tmp.path().join("base");
    let v11 = tmp.path().join("v11");
    write(
        &src.join("base/p/A.java"),
        b"package p; public class A { int base; }",
    );
    write(
        &src.join("v11/p/A.java"),
        b"package p; public class A { int v11; }",
    );
    for (dir, out) in [("base", &base), ("v11", &v11)] {
        let status = Command::new(jdk.join("bin/javac"))
            .arg("-d")
            .arg(out)
            .arg(src.join(dir).join("p/A.java"))
            .status()
            .unwrap();
        assert!(status.success());
    }
    write(&tmp.path().join("mf.txt"), b"Class-Path: dep/dep.jar\n");
    jar(
        &tmp.path().join("dep/dep.jar"),
        &[("d/D.class", &fake_class("D"))],
    );
    let mr = tmp.path().join("mr.jar");
    let status = Command::new(jdk.join("bin/jar"))
        .arg("--create")
        .arg("--file")
        .arg(&mr)
        .arg("--manifest")
        .arg(tmp.path().join("mf.txt"))
        .arg("-C")
        .arg(&base)
        .arg(".")
        .arg("--release")
        .arg("11")
        .arg("-C")
        .arg(&v11)
        .arg(".")
        .status()
        .unwrap();
    assert!(status.success());
    let set = read_inputs(std::slice::from_ref(&mr));
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(entries(&set.classes), ["META-INF/versions/11/p/A.class"]);
    assert_eq!(
        set.classes[0].bytes,
        std::fs::read(v11.join("p/A.class")).unwrap()
    );
    assert_eq!(set.libraries, [tmp.path().join("dep/dep.jar")]);
    let set = read_inputs_with(std::slice::from_ref(&mr), &ReadOptions { release: 10 });
    assert_eq!(entries(&set.classes), ["p/A.class"]);
}

#[test]
fn jdk_release_reads_the_release_file() {
    if let Some(jdk) = jdk_with(JDK17, "java") {
        assert_eq!(jdk_release(&jdk), Some(17));
    }
    if let Some(jdk) = jdk_with(JDK25, "java") {
        assert_eq!(jdk_release(&jdk), Some(25));
    }
    assert_eq!(jdk_release(Path::new("/nonexistent")), None);
}
