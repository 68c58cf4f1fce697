//! SARIF for code scanning: the log validates against the official SARIF
//! 2.1.0 schema (read at test time from the `serde-sarif` crate's sources,
//! a dev-dependency pinned for that purpose: the schema is not copied into
//! this repository), and meets what GitHub checks on upload: every result's rule
//! has help, locations are relative, every result has a fingerprint. Races
//! carry their two paths as thread flows; suppressed findings carry
//! `suppressions`.

mod common;

use common::{findings, problems, VERSION};
use lockstep_report::{
    fingerprint, render_sarif, Finding, Flow, Location, Related, Report, RuleMeta, SarifOptions,
    Severity, Summary, SuppressedFinding, Suppression,
};
use serde_json::Value;

/// The SARIF 2.1.0 schema as the `serde-sarif` crate (a dev-dependency,
/// pinned) ships it in its sources, which cargo unpacked under
/// `$CARGO_HOME/registry/src/<index>/serde-sarif-0.8.0/`.
fn sarif_schema() -> String {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let src = home.join("registry/src");
    let indexes = std::fs::read_dir(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    for index in indexes.flatten() {
        let schema = index.path().join("serde-sarif-0.8.0/src/schema.json");
        if let Ok(text) = std::fs::read_to_string(&schema) {
            return text;
        }
    }
    panic!(
        "the SARIF schema of serde-sarif 0.8.0 is not under {} (is the dev-dependency built?)",
        src.display()
    )
}

const RACE_DOCS: &str = "# data-race\n\nTwo threads access a field at the same time, at least one writes,\nand no common lock orders them.\n\n## Example\n\n```java\nclass C { int n; }\n```\n";

fn rules() -> Vec<RuleMeta> {
    [
        "data-race",
        "stale-value",
        "reacquired-lock",
        "atomicity-violation",
        "non-atomic-method",
    ]
    .into_iter()
    .map(|id| {
        RuleMeta::new(id, id.replace('-', ""), format!("{id} summary"))
            .with_docs(RACE_DOCS.replace("data-race", id))
    })
    .collect()
}

fn race_with_flows() -> Finding {
    let at = |method: &str, line: u32| {
        Location::in_method("com.example.Counter", method, "()V")
            .with_file("Counter.java")
            .with_line(line)
    };
    Finding::new(
        "data-race",
        Severity::Warning,
        "data race (read/write) on `count`",
        at("increment", 12),
    )
    .with_field("com.example.Counter.count")
    .with_related(at("get", 20), "read of `count`")
    .with_flow(Flow::new(
        "thread started in Main.main",
        vec![
            Related::new(at("run", 30), "calls increment"),
            Related::new(at("increment", 12), "write of `count`"),
        ],
    ))
    .with_flow(Flow::new(
        "the main thread",
        vec![Related::new(at("get", 20), "read of `count`")],
    ))
}

fn report() -> Report {
    let mut all = findings();
    all.push(race_with_flows());
    let suppressed = SuppressedFinding {
        finding: all.remove(0),
        suppression: Suppression {
            kind: "annotation".into(),
            reason: "@SuppressLockstep(\"data-race\") on com.example.Counter".into(),
        },
    };
    Report {
        findings: all,
        problems: problems(),
        summary: Summary {
            classes: 3,
            methods: 9,
            open_program: false,
            scope: None,
        },
        suppressed: vec![suppressed],
        below_min_confidence: None,
        evidence_runs: None,
        ..Report::new(VERSION)
    }
}

fn sarif() -> Value {
    let options = SarifOptions {
        source_root: Some("src/main/java".into()),
        information_uri: None,
        ..SarifOptions::default()
    };
    serde_json::from_str(&render_sarif(&report(), &rules(), &options)).unwrap()
}

#[test]
fn validates_against_the_sarif_2_1_0_schema() {
    let schema: Value = serde_json::from_str(&sarif_schema()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let log = sarif();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The schema is really applied: a result without a message is refused.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("message");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn meets_github_code_scanning_upload_rules() {
    let log = sarif();
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for result in results {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        let rule = &rules[index];
        assert_eq!(rule["id"], result["ruleId"]);
        assert!(
            rule["help"]["text"].as_str().is_some_and(|t| !t.is_empty()),
            "{rule}"
        );
        assert!(rule["help"]["markdown"]
            .as_str()
            .is_some_and(|t| !t.is_empty()));
        assert!(rule["fullDescription"]["text"].as_str().is_some());
        let fp = result["partialFingerprints"]["lockstep/v1"]
            .as_str()
            .unwrap();
        assert_eq!(fp.len(), 32);
        let mut uris: Vec<&Value> =
            vec![&result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]];
        for related in result["relatedLocations"].as_array().into_iter().flatten() {
            uris.push(&related["physicalLocation"]["artifactLocation"]["uri"]);
        }
        for uri in uris {
            let uri = uri.as_str().unwrap();
            assert!(
                uri.starts_with("src/main/java/") && !uri.contains(':'),
                "relative to the repository: {uri}"
            );
        }
    }
    // The full description is the docs' first paragraph.
    let race = rules.iter().find(|r| r["id"] == "data-race").unwrap();
    assert_eq!(
        race["fullDescription"]["text"],
        "Two threads access a field at the same time, at least one writes, and no common lock orders them."
    );
    assert_eq!(race["help"]["markdown"], RACE_DOCS);
}

#[test]
fn race_paths_are_thread_flows_and_suppressions_are_marked() {
    let log = sarif();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let race = results
        .iter()
        .find(|r| r["partialFingerprints"]["lockstep/v1"] == fingerprint(&race_with_flows()))
        .unwrap();
    let threads = race["codeFlows"][0]["threadFlows"].as_array().unwrap();
    assert_eq!(threads.len(), 2);
    assert_eq!(threads[0]["message"]["text"], "thread started in Main.main");
    let steps = threads[0]["locations"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[1]["location"]["message"]["text"], "write of `count`");
    assert_eq!(
        steps[1]["location"]["physicalLocation"]["region"]["startLine"],
        12
    );
    // Suppressed findings come last, with their suppression.
    let last = results.last().unwrap();
    assert_eq!(last["suppressions"][0]["kind"], "inSource");
    assert!(last["suppressions"][0]["justification"]
        .as_str()
        .unwrap()
        .contains("@SuppressLockstep"));
    assert_eq!(
        results
            .iter()
            .filter(|r| r.get("suppressions").is_some())
            .count(),
        1
    );
    // Input problems are tool execution notifications.
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    assert_eq!(notes.len(), problems().len());
}
