//! Architecture invariants as a test (in the spirit of rust-analyzer's
//! `tidy`): the layer table of ARCHITECTURE.md against the crates'
//! dependencies, library knowledge only in the models layer, and no
//! environment or printing in the analysis layers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    lockstep_testkit::workspace_root().expect("the tests run inside the lockstep workspace")
}

/// `crate → allowed lockstep dependencies` from the "Layers" table.
fn layer_table() -> BTreeMap<String, BTreeSet<String>> {
    let text =
        std::fs::read_to_string(workspace_root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let section = text
        .split("## Layers")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Layers` section");
    let mut table = BTreeMap::new();
    for line in section.lines().skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(name), Some(deps)) = (cells.get(1), cells.get(3)) else {
            continue;
        };
        let Some(name) = name.strip_prefix('`').and_then(|n| n.strip_suffix('`')) else {
            continue; // header and separator rows
        };
        let allowed = deps
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty() && *d != "—")
            .map(|d| {
                if d.starts_with("lockstep") {
                    d.to_string()
                } else {
                    format!("lockstep_{d}")
                }
            })
            .collect();
        table.insert(name.to_string(), allowed);
    }
    table
}

/// Every crate directory under `crates/` with its name.
fn crates() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(workspace_root().join("crates")).expect("crates/") {
        let dir = entry.expect("dir entry").path();
        let manifest = dir.join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&manifest) {
            out.push((package_name(&text), dir));
        }
    }
    out.sort();
    out
}

fn package_name(manifest: &str) -> String {
    manifest
        .lines()
        .find_map(|l| {
            let l = l.trim();
            l.strip_prefix("name").map(|rest| {
                rest.trim_start_matches([' ', '='])
                    .trim_matches('"')
                    .to_string()
            })
        })
        .expect("package name")
}

/// The lockstep crates in a manifest's `[dependencies]` and
/// `[build-dependencies]` (not dev-dependencies: tests may use anything).
fn lockstep_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]" || line == "[build-dependencies]";
            continue;
        }
        if in_deps && line.starts_with("lockstep") {
            if let Some(name) = line.split(['=', ' ', '.']).next() {
                deps.insert(name.to_string());
            }
        }
    }
    deps
}

#[test]
fn crate_dependencies_follow_the_layer_table() {
    let table = layer_table();
    assert!(table.len() >= 10, "layer table not found: {table:?}");
    let mut errors = Vec::new();
    for (name, dir) in crates() {
        let Some(allowed) = table.get(&name) else {
            errors.push(format!("{name} is not in ARCHITECTURE.md's layer table"));
            continue;
        };
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("manifest");
        for dep in lockstep_dependencies(&manifest) {
            if !allowed.contains(&dep) {
                errors.push(format!(
                    "{name} depends on {dep}, which the layer table does not allow"
                ));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// The Rust sources of a crate's `src/`, without `#[cfg(test)]` modules
/// (each file's text up to its first `#[cfg(test)]`).
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.join("src")];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
                out.push((p, code));
            }
        }
    }
    out.sort();
    out
}

/// Lines of code (comments dropped) containing one of `needles`.
fn offending_lines(dir: &Path, needles: &[&str]) -> Vec<String> {
    let mut hits = Vec::new();
    for (path, code) in sources(dir) {
        for (i, line) in code.lines().enumerate() {
            let code_part = line.split("//").next().unwrap_or("");
            if needles.iter().any(|n| code_part.contains(n)) {
                hits.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
            }
        }
    }
    hits
}

#[test]
fn jdk_concurrency_classes_are_named_only_in_the_models_layer() {
    let needles = [
        "\"java/util/concurrent",
        "\"Ljava/util/concurrent",
        "\"java/lang/Thread\"",
        "\"java/lang/Runnable\"",
        "\"java.util.concurrent",
    ];
    let mut hits = Vec::new();
    for (name, dir) in crates() {
        if name == "lockstep_models" || name.starts_with("lockstep_testkit") {
            continue;
        }
        hits.extend(offending_lines(&dir, &needles));
    }
    assert!(
        hits.is_empty(),
        "JDK concurrency classes named outside lockstep_models (add a model instead):\n{}",
        hits.join("\n")
    );
}

#[test]
fn analysis_layers_read_no_environment_and_never_print() {
    let analysis = [
        "lockstep_classfile",
        "lockstep_ir",
        "lockstep_models",
        "lockstep_program",
        "lockstep_pointsto",
        "lockstep_facts",
        "lockstep_detectors",
        "lockstep_report",
        "lockstep_driver",
        "lockstep_evidence",
    ];
    let needles = [
        "env::var",
        "env::args",
        "println!",
        "eprintln!",
        "print!(",
        "eprint!(",
        "dbg!(",
        "io::stdout",
        "io::stderr",
    ];
    let mut hits = Vec::new();
    for (name, dir) in crates() {
        if analysis.contains(&name.as_str()) {
            hits.extend(offending_lines(&dir, &needles));
        }
    }
    assert!(
        hits.is_empty(),
        "analysis crates must not read the environment or print:\n{}",
        hits.join("\n")
    );
}
