//! Checks the JSON output against the published schema and the docs.
//!
//! The published schema (`docs/lockstep-report-v1.schema.json`) allows
//! unknown keys so that consumers survive additive changes. Here it is
//! tightened (`additionalProperties: false` everywhere, every property
//! required) so that any key added to the output without being added to the
//! schema and the docs fails the build.

mod common;

use common::{empty_report, full_report, single_report};
use lockstep_report::{render_json, Report, JSON_FORMAT_VERSION};
use serde_json::Value;

const SCHEMA: &str = include_str!("../../../docs/lockstep-report-v1.schema.json");
const DOCS: &str = include_str!("../../../docs/output-formats.md");

/// Keys the output omits when they do not apply (additive, optional by design).
const OPTIONAL_KEYS: &[&str] = &["provenance", "evidence", "budget_cuts"];

fn published_schema() -> Value {
    serde_json::from_str(SCHEMA).unwrap()
}

/// Adds `additionalProperties: false` to every object schema with
/// `properties`, and checks `required` lists every property.
fn tighten(schema: &mut Value, path: &str) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                let mut keys: Vec<&str> = props
                    .keys()
                    .map(String::as_str)
                    .filter(|k| !OPTIONAL_KEYS.contains(k))
                    .collect();
                keys.sort_unstable();
                let mut required: Vec<&str> = map
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|list| list.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                required.sort_unstable();
                assert_eq!(required, keys, "{path}: every key must be required");
                map.entry("additionalProperties")
                    .or_insert(Value::Bool(false));
            }
            for (key, value) in map.iter_mut() {
                tighten(value, &format!("{path}/{key}"));
            }
        }
        Value::Array(items) => {
            for (index, value) in items.iter_mut().enumerate() {
                tighten(value, &format!("{path}/{index}"));
            }
        }
        _ => {}
    }
}

fn strict_validator() -> jsonschema::Validator {
    let mut schema = published_schema();
    tighten(&mut schema, "#");
    jsonschema::validator_for(&schema).unwrap()
}

fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|err| format!("{}: {err}", err.instance_path()))
        .collect()
}

fn rendered(report: &Report) -> Value {
    serde_json::from_str(&render_json(report)).unwrap()
}

#[test]
fn schema_is_a_valid_2020_12_schema() {
    jsonschema::meta::validate(&published_schema()).unwrap();
}

#[test]
fn rendered_reports_match_the_strict_schema() {
    let validator = strict_validator();
    for report in [empty_report(), full_report(), single_report()] {
        let instance = rendered(&report);
        assert_eq!(errors(&validator, &instance), Vec::<String>::new());
        // Also valid against the published, lenient schema.
        assert!(jsonschema::is_valid(&published_schema(), &instance));
    }
}

#[test]
fn run_provenance_matches_the_strict_schema() {
    let validator = strict_validator();
    let mut report = full_report();
    report.findings[0] = report.findings[0].clone().with_provenance("run");
    let instance = rendered(&report);
    let findings = instance["findings"].as_array().unwrap();
    let marked: Vec<usize> = (0..findings.len())
        .filter(|&i| findings[i].get("provenance").is_some())
        .collect();
    assert_eq!(marked.len(), 1, "only the marked finding has the key");
    assert_eq!(findings[marked[0]]["provenance"], "run");
    assert_eq!(errors(&validator, &instance), Vec::<String>::new());
    let mut unknown = instance.clone();
    unknown["findings"][marked[0]]["provenance"] = Value::from("dream");
    assert!(!errors(&validator, &unknown).is_empty());
    let text = lockstep_report::render_text(&report, &lockstep_report::TextOptions::default());
    assert!(text.contains("= observed in a run"), "{text}");
}

#[test]
fn budget_cuts_match_the_strict_schema() {
    use lockstep_report::BudgetCut;
    let validator = strict_validator();
    let mut report = full_report();
    assert!(rendered(&report)["summary"].get("budget_cuts").is_none());
    report.budget_cuts = Some(Vec::new());
    let instance = rendered(&report);
    assert_eq!(instance["summary"]["budget_cuts"], serde_json::json!([]));
    assert_eq!(errors(&validator, &instance), Vec::<String>::new());
    report.budget_cuts = Some(vec![BudgetCut {
        rule: "stale-value".into(),
        phase: "detectors".into(),
        what: "3 of 10 application methods not analysed".into(),
    }]);
    let instance = rendered(&report);
    assert_eq!(errors(&validator, &instance), Vec::<String>::new());
    assert_eq!(
        instance["summary"]["budget_cuts"][0]["what"],
        "3 of 10 application methods not analysed"
    );
    let mut wrong = instance.clone();
    wrong["summary"]["budget_cuts"][0]["rule"] = Value::from(3);
    assert!(!errors(&validator, &wrong).is_empty());
}

#[test]
fn evidence_matches_the_strict_schema() {
    use lockstep_report::{Evidence, EvidenceStatus};
    let validator = strict_validator();
    let mut report = full_report();
    report.findings[0].evidence = Some(Evidence {
        status: EvidenceStatus::Observed,
        runs: 2,
        in_runs: 1,
        detail: "a run saw the accesses at A.java:1 and A.java:2 unordered".into(),
    });
    report.evidence_runs = Some(2);
    let instance = rendered(&report);
    assert_eq!(errors(&validator, &instance), Vec::<String>::new());
    let summary = &instance["summary"]["evidence"];
    assert_eq!(summary["runs"], 2);
    assert_eq!(summary["observed"], 1);
    let others = instance["summary"]["findings"].as_u64().unwrap() - 1;
    assert_eq!(summary["unmatched"], others);
    let marked: Vec<&Value> = instance["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f.get("evidence").is_some())
        .collect();
    assert_eq!(marked.len(), 1, "only the marked finding has the key");
    let mut unknown = instance.clone();
    let i = instance["findings"]
        .as_array()
        .unwrap()
        .iter()
        .position(|f| f.get("evidence").is_some())
        .unwrap();
    unknown["findings"][i]["evidence"]["status"] = Value::from("maybe");
    assert!(!errors(&validator, &unknown).is_empty());
}

#[test]
fn schema_rejects_wrong_shapes() {
    let validator = strict_validator();
    let good = rendered(&full_report());

    let mut extra_key = good.clone();
    extra_key["findings"][0]["column"] = Value::from(3);
    assert!(!errors(&validator, &extra_key).is_empty());

    let mut string_line = good.clone();
    string_line["findings"][0]["line"] = Value::from("12");
    assert!(!errors(&validator, &string_line).is_empty());

    let mut missing_null = good.clone();
    if let Some(finding) = missing_null["findings"][0].as_object_mut() {
        finding.remove("lock");
    }
    assert!(!errors(&validator, &missing_null).is_empty());

    let mut bad_severity = good;
    bad_severity["findings"][0]["severity"] = Value::from("fatal");
    assert!(!errors(&validator, &bad_severity).is_empty());
}

#[test]
fn version_constant_matches_schema_and_output() {
    assert_eq!(JSON_FORMAT_VERSION, 1);
    assert_eq!(
        published_schema()["properties"]["version"]["const"],
        Value::from(JSON_FORMAT_VERSION)
    );
    assert_eq!(
        rendered(&empty_report())["version"],
        Value::from(JSON_FORMAT_VERSION)
    );
}

#[test]
fn summary_counts_agree_with_arrays() {
    let doc = rendered(&full_report());
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(doc["summary"]["findings"], Value::from(findings.len()));
    assert_eq!(
        doc["summary"]["problems"],
        Value::from(doc["problems"].as_array().unwrap().len())
    );
    let by_rule: u64 = doc["summary"]["by_rule"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(Value::as_u64)
        .sum();
    let by_severity: u64 = doc["summary"]["by_severity"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(Value::as_u64)
        .sum();
    assert_eq!(by_rule, findings.len() as u64);
    assert_eq!(by_severity, findings.len() as u64);
}

/// Every key the schema defines must be documented in the field tables of
/// `docs/output-formats.md` (written there as `` `key` ``).
#[test]
fn docs_mention_every_schema_key() {
    fn collect(schema: &Value, keys: &mut Vec<String>) {
        match schema {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    keys.extend(props.keys().cloned());
                }
                map.values().for_each(|v| collect(v, keys));
            }
            Value::Array(items) => items.iter().for_each(|v| collect(v, keys)),
            _ => {}
        }
    }
    let mut keys = Vec::new();
    collect(&published_schema(), &mut keys);
    let missing: Vec<&String> = keys
        .iter()
        .filter(|key| !DOCS.contains(&format!("`{key}`")))
        .collect();
    assert!(missing.is_empty(), "undocumented keys: {missing:?}");
}

/// The JSON example in the docs is real output: it must be exactly what the
/// renderer produces for the report it describes.
#[test]
fn docs_json_example_is_rendered_output() {
    use lockstep_report::{Finding, InputProblem, Location, Severity, Summary};

    let start = DOCS.find("```json\n").unwrap() + "```json\n".len();
    let len = DOCS[start..].find("```").unwrap();
    let example = &DOCS[start..start + len];

    let report = Report {
        findings: vec![
            Finding::new(
                "data-race",
                Severity::Note,
                "static field `INSTANCE` is published without a happens-before edge",
                Location::in_method("com.example.Registry", "<clinit>", "()V")
                    .with_file("Registry.java"),
            )
            .with_field("com.example.Registry.INSTANCE"),
            common::findings()[2].clone(),
        ],
        problems: vec![
            InputProblem::new("lib/vendor.jar", "bad constant pool tag 99 at index 14")
                .with_entry("com/vendor/Odd.class"),
        ],
        summary: Summary {
            classes: 120,
            methods: 840,
            open_program: false,
            scope: None,
        },
        tool_version: common::VERSION.to_owned(),
        suppressed: Vec::new(),
        below_min_confidence: None,
        evidence_runs: None,
        budget_cuts: None,
        budget_name: None,
    };
    assert_eq!(render_json(&report), example);
}
