//! The README's Maven recipe, run as written on `examples/maven-app` with
//! Debian's Maven, offline, against Debian's repository
//! (`/usr/share/maven-repo`): `mvn … dependency:build-classpath` writes
//! `cp.txt`, then `lockstep check -cp "$(cat cp.txt)" target/classes`.
//!
//! The commands are taken from README.md, not copied here, so the README
//! cannot drift from what is tested. Maven and its plugins come from
//! `scripts/install-test-deps.sh`; when they are missing the test fails and
//! names the script (the tests never install anything themselves).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// Debian's Maven repository, the offline recipe's local repository.
const DEBIAN_REPO: &str = "/usr/share/maven-repo";

/// What the offline recipe adds to README's plain Maven command.
const OFFLINE_FLAGS: &str = "-o -Dmaven.repo.local=/usr/share/maven-repo";

/// Artifacts the recipe resolves from Debian's repository, with the
/// package that installs each (versions as pinned in the example's pom).
const NEEDED: &[(&str, &str)] = &[
    (
        "org/apache/maven/plugins/maven-resources-plugin/3.3.0",
        "libmaven-resources-plugin-java",
    ),
    (
        "org/apache/maven/plugins/maven-compiler-plugin/3.10.1",
        "libmaven-compiler-plugin-java",
    ),
    (
        "org/apache/maven/plugins/maven-dependency-plugin/3.5.0",
        "libmaven-dependency-plugin-java",
    ),
    ("org/junit/junit-bom", "junit5"),
    (
        "org/apache/commons/commons-lang3/3.12.0",
        "libcommons-lang3-java",
    ),
];

const INSTALL_HINT: &str = "run scripts/install-test-deps.sh (as root) to install Debian's Maven \
                            and the plugins this test needs";

/// The README's two Maven recipes: the plain one and the offline one.
struct Recipes {
    plain: Vec<String>,
    offline: Vec<String>,
}

/// The shell blocks of README's "Use it in your build" section that run
/// `dependency:build-classpath`, in order.
fn readme_recipes() -> Recipes {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    let section = readme
        .split("## Use it in your build")
        .nth(1)
        .expect("README has a \"Use it in your build\" section");
    let blocks: Vec<Vec<String>> = section
        .split("```sh\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .filter(|block| block.contains("dependency:build-classpath"))
        .map(|block| block.lines().map(str::to_string).collect())
        .collect();
    let [plain, offline] = <[Vec<String>; 2]>::try_from(blocks).unwrap_or_else(|b| {
        panic!(
            "README's build section should have two Maven blocks, has {}",
            b.len()
        )
    });
    Recipes { plain, offline }
}

/// Fails with the install hint when Maven or an artifact is missing.
fn require_debian_maven() {
    let mvn = Command::new("mvn").arg("-v").output();
    if !matches!(&mvn, Ok(out) if out.status.success()) {
        panic!("`mvn -v` does not run ({mvn:?}); {INSTALL_HINT}");
    }
    let missing: Vec<String> = NEEDED
        .iter()
        .filter(|(path, _)| !Path::new(DEBIAN_REPO).join(path).is_dir())
        .map(|(path, package)| format!("{DEBIAN_REPO}/{path} (package {package})"))
        .collect();
    assert!(
        missing.is_empty(),
        "missing from Debian's Maven repository: {}; {INSTALL_HINT}",
        missing.join(", ")
    );
}

/// `examples/maven-app` (its pom and sources only) copied to `to`.
fn copy_example(to: &Path) {
    let example = workspace_root().join("examples/maven-app");
    std::fs::copy(example.join("pom.xml"), to.join("pom.xml")).unwrap();
    std::fs::copy(example.join("lockstep.toml"), to.join("lockstep.toml")).unwrap();
    copy_tree(&example.join("src"), &to.join("src"));
}

/// One line of the README run by `sh` in `dir`, with the `lockstep` under
/// test first on `PATH`.
fn run_line(dir: &Path, line: &str) -> Output {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_lockstep"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    Command::new("sh")
        .args(["-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run sh: {e}"))
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn offline_recipe_differs_from_the_plain_one_only_by_the_offline_flags() {
    let recipes = readme_recipes();
    let with_flags: Vec<String> = recipes
        .plain
        .iter()
        .map(|line| line.replacen("mvn -q", &format!("mvn -q {OFFLINE_FLAGS}"), 1))
        .collect();
    assert_eq!(recipes.offline, with_flags);
}

#[test]
fn readme_maven_recipe_finds_the_bug_with_the_dependency_read() {
    require_debian_maven();
    let recipes = readme_recipes();
    let [build, check] = <[String; 2]>::try_from(recipes.offline)
        .unwrap_or_else(|b| panic!("the offline recipe should be two lines: {b:?}"));
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path();
    copy_example(project);

    let built = run_line(project, &build);
    assert!(
        built.status.success(),
        "`{build}` failed ({INSTALL_HINT} if a plugin is missing)\n{}",
        show(&built)
    );
    let cp = std::fs::read_to_string(project.join("cp.txt")).unwrap();
    let cp = cp.trim();
    let jars: Vec<PathBuf> = std::env::split_paths(cp).collect();
    assert!(
        jars.iter().any(|j| j.is_file()
            && j.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("commons-lang3"))),
        "cp.txt should name the commons-lang3 jar: {cp}"
    );

    // README's command, as written: one finding, so exit code 1.
    let checked = run_line(project, &check);
    assert_eq!(checked.status.code(), Some(1), "{}", show(&checked));
    let text = String::from_utf8_lossy(&checked.stdout);
    assert!(
        text.contains("warning[reacquired-lock]") && text.contains("Report.java:15"),
        "{}",
        show(&checked)
    );

    // The same check in JSON: the finding, and no class missing from the
    // class path (the dependency's `LazyInitializer` was read from cp.txt).
    let classes = project.join("target/classes");
    let (run, json) = check_json(&["-cp".as_ref(), cp.as_ref(), classes.as_os_str()]);
    run.expect_code(1);
    let found: Vec<(&str, &str, &str, u64, &str)> = findings(&json)
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap(),
                f["class"].as_str().unwrap(),
                f["method"].as_str().unwrap(),
                f["line"].as_u64().unwrap(),
                f["lock"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [(
            "reacquired-lock",
            "com.example.app.Report",
            "ratio",
            15,
            "c"
        )]
    );
    assert_eq!(problems(&json), &Vec::<serde_json::Value>::new());

    // Control: without the class path the dependency's class is missing,
    // and lockstep says so; the assertion above is not vacuous.
    let (_, bare) = check_json(&[classes.as_os_str()]);
    let messages: Vec<&str> = problems(&bare)
        .iter()
        .map(|p| p["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.iter().any(|m| m.starts_with(
            "org.apache.commons.lang3.concurrent.LazyInitializer is not on the class path"
        )),
        "{messages:?}"
    );
}
