//! The JSON output: lockstep's stable, versioned machine-readable contract.
//!
//! The shape is defined by the private structs below, *not* by the model, so
//! refactoring the model cannot silently change the contract. Field order is
//! the struct order, every key is always present (absent values are `null`,
//! absent lists are `[]`) so consumers never need to probe for keys, and
//! nothing time- or machine-dependent is included, so the output is
//! byte-identical across runs. `docs/output-formats.md` and
//! `docs/lockstep-report-v1.schema.json` document it; the tests check the
//! output against that schema.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::evidence::{EvidenceCountsOut, EvidenceOut};
use crate::fingerprint::fingerprint;
use crate::model::{
    Confidence, Finding, InputProblem, Location, ProblemKind, Related, Report, Severity,
    SuppressedFinding,
};

/// Version of the JSON format. Additive changes keep it; removing, renaming
/// or retyping a field bumps it.
pub const JSON_FORMAT_VERSION: u32 = 1;

/// Name reported in `tool.name`.
pub const TOOL_NAME: &str = "lockstep";

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    tool: JsonTool<'a>,
    findings: Vec<JsonFinding<'a>>,
    problems: Vec<JsonProblem<'a>>,
    summary: JsonSummary<'a>,
    suppressed: Vec<JsonSuppressed<'a>>,
}

#[derive(Serialize)]
struct JsonSuppressed<'a> {
    #[serde(flatten)]
    finding: JsonFinding<'a>,
    suppression: JsonSuppression<'a>,
}

#[derive(Serialize)]
struct JsonSuppression<'a> {
    kind: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct JsonTool<'a> {
    name: &'static str,
    version: &'a str,
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: &'a str,
    severity: Severity,
    /// Additive: `high`, `medium` or `low`.
    confidence: Confidence,
    message: &'a str,
    class: &'a str,
    method: Option<&'a str>,
    descriptor: Option<&'a str>,
    file: Option<&'a str>,
    line: Option<u32>,
    field: Option<&'a str>,
    lock: Option<&'a str>,
    related: Vec<JsonRelated<'a>>,
    notes: &'a [String],
    fingerprint: String,
    /// Additive (absent for static findings): `run` when observed in an execution.
    #[serde(skip_serializing_if = "Option::is_none")]
    provenance: Option<&'a str>,
    /// Additive (only with `check --evidence`): what the runs showed.
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<EvidenceOut<'a>>,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    class: &'a str,
    method: Option<&'a str>,
    descriptor: Option<&'a str>,
    file: Option<&'a str>,
    line: Option<u32>,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonProblem<'a> {
    file: &'a str,
    entry: Option<&'a str>,
    message: &'a str,
    /// `unreadable` or `missing-class` (added in the same version, additive).
    kind: &'static str,
}

#[derive(Serialize)]
struct JsonSummary<'a> {
    findings: u64,
    by_rule: BTreeMap<&'a str, u64>,
    by_severity: BTreeMap<&'static str, u64>,
    /// Additive: findings per confidence, every confidence present.
    by_confidence: BTreeMap<&'static str, u64>,
    classes: u64,
    methods: u64,
    problems: u64,
    /// Problems of kind `unreadable`: inputs the analysis did not see.
    unreadable: u64,
    /// Problems of kind `missing-class`: dependencies not on the class path.
    missing_classes: u64,
    open_program: bool,
    suppressed: u64,
    /// Additive: findings not listed because of `--min-confidence`
    /// (0 without it).
    below_min_confidence: u64,
    /// Additive (only with `check --evidence`): findings per evidence status.
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<EvidenceCountsOut>,
    /// Additive (only with `check --max-time`): what the time budget cut,
    /// `[]` when it cut nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    budget_cuts: Option<Vec<JsonBudgetCut<'a>>>,
}

#[derive(Serialize)]
struct JsonBudgetCut<'a> {
    rule: &'a str,
    phase: &'a str,
    what: &'a str,
}

/// Renders the report as pretty-printed JSON (2-space indent) with a
/// trailing newline.
pub fn render_json(report: &Report) -> String {
    let findings = report.canonical_findings();
    let problems = report.canonical_problems();
    let suppressed = report.canonical_suppressed();

    let mut by_rule: BTreeMap<&str, u64> = BTreeMap::new();
    let mut by_severity: BTreeMap<&'static str, u64> =
        Severity::ALL.iter().map(|s| (s.as_str(), 0)).collect();
    let mut by_confidence: BTreeMap<&'static str, u64> =
        Confidence::ALL.iter().map(|c| (c.as_str(), 0)).collect();
    for finding in &findings {
        *by_confidence
            .entry(finding.confidence.as_str())
            .or_insert(0) += 1;
        *by_rule.entry(finding.rule.as_str()).or_insert(0) += 1;
        *by_severity.entry(finding.severity.as_str()).or_insert(0) += 1;
    }

    let doc = JsonReport {
        version: JSON_FORMAT_VERSION,
        tool: JsonTool {
            name: TOOL_NAME,
            version: &report.tool_version,
        },
        findings: findings.iter().map(|f| json_finding(f)).collect(),
        problems: problems.iter().map(|p| json_problem(p)).collect(),
        summary: JsonSummary {
            findings: findings.len() as u64,
            by_rule,
            by_severity,
            by_confidence,
            classes: report.summary.classes,
            methods: report.summary.methods,
            problems: problems.len() as u64,
            unreadable: report.problems_of_kind(ProblemKind::Unreadable).len() as u64,
            missing_classes: report.problems_of_kind(ProblemKind::MissingClass).len() as u64,
            open_program: report.summary.open_program,
            suppressed: suppressed.len() as u64,
            below_min_confidence: report.below_min_confidence.map_or(0, |(_, n)| n),
            evidence: EvidenceCountsOut::of(report),
            budget_cuts: report.budget_cuts.as_ref().map(|cuts| {
                cuts.iter()
                    .map(|c| JsonBudgetCut {
                        rule: &c.rule,
                        phase: &c.phase,
                        what: &c.what,
                    })
                    .collect()
            }),
        },
        suppressed: suppressed.iter().map(|s| json_suppressed(s)).collect(),
    };
    // Serializing these plain structs (string keys, no floats, no custom
    // impls that can fail) cannot error; the fallback only keeps the
    // signature infallible without an `expect`.
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|err| {
        format!(
            "{{\"error\": {}}}",
            serde_json::Value::String(err.to_string())
        )
    });
    text.push('\n');
    text
}

fn json_finding(finding: &Finding) -> JsonFinding<'_> {
    let Location {
        class,
        method,
        descriptor,
        file,
        line,
    } = &finding.location;
    JsonFinding {
        rule: &finding.rule,
        severity: finding.severity,
        confidence: finding.confidence,
        message: &finding.message,
        class,
        method: method.as_deref(),
        descriptor: descriptor.as_deref(),
        file: file.as_deref(),
        line: *line,
        field: finding.field.as_deref(),
        lock: finding.lock.as_deref(),
        related: finding.related.iter().map(json_related).collect(),
        notes: &finding.notes,
        fingerprint: fingerprint(finding),
        provenance: finding.provenance.as_deref(),
        evidence: EvidenceOut::of(finding),
    }
}

fn json_suppressed(suppressed: &SuppressedFinding) -> JsonSuppressed<'_> {
    JsonSuppressed {
        finding: json_finding(&suppressed.finding),
        suppression: JsonSuppression {
            kind: &suppressed.suppression.kind,
            reason: &suppressed.suppression.reason,
        },
    }
}

fn json_related(related: &Related) -> JsonRelated<'_> {
    let loc = &related.location;
    JsonRelated {
        class: &loc.class,
        method: loc.method.as_deref(),
        descriptor: loc.descriptor.as_deref(),
        file: loc.file.as_deref(),
        line: loc.line,
        message: &related.message,
    }
}

fn json_problem(problem: &InputProblem) -> JsonProblem<'_> {
    JsonProblem {
        file: &problem.file,
        entry: problem.entry.as_deref(),
        message: &problem.message,
        kind: problem.kind.as_str(),
    }
}
