//! SARIF 2.1.0 output, for code-scanning services and IDE viewers.
//!
//! Hand-written serde structs cover the small subset of SARIF we emit; a full
//! SARIF crate would add a large dependency for types we never use. SARIF's
//! schema does not allow `null` for most optional properties, so absent
//! values are omitted here (unlike the JSON format, which always has every
//! key). Output is deterministic: rules are sorted by id and results follow
//! the canonical finding order, suppressed findings after the others.
//!
//! What GitHub code scanning checks on upload is met: every rule carries
//! `help` (text and Markdown, from the rule docs), every result a
//! `partialFingerprints` entry ([`crate::fingerprint`]) and locations
//! relative to the source root. The threads of a finding
//! ([`crate::Flow`]) become one `codeFlow` with a `threadFlow` each.

use serde::Serialize;

use std::collections::BTreeMap;

use crate::evidence::{EvidenceCountsOut, EvidenceOut};
use crate::fingerprint::{fingerprint, FINGERPRINT_KEY};
use crate::json::TOOL_NAME;
use crate::model::{
    Confidence, Finding, Flow, InputProblem, Location, ProblemKind, Related, Report, RuleMeta,
    Suppression,
};

/// The `$schema` URI written into every log.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Options for the SARIF renderer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SarifOptions {
    /// Directory prepended to every artifact path (`src/main/java`), so that
    /// `com/example/Segment.java` resolves inside the repository.
    pub source_root: Option<String>,
    /// Written as `tool.driver.informationUri`.
    pub information_uri: Option<String>,
    /// Repository-relative paths of source files found, by package-qualified
    /// path; used as is (before `source_root`) when present.
    pub source_paths: std::collections::BTreeMap<String, String>,
}

#[derive(Serialize)]
struct SarifLog<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    invocations: [Invocation; 1],
    results: Vec<SarifResult<'a>>,
    properties: RunProperties,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    version: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<&'a str>,
    rules: Vec<Rule<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    short_description: Option<Message>,
    #[serde(skip_serializing_if = "Option::is_none")]
    full_description: Option<Message>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<Help<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<&'a str>,
}

#[derive(Serialize)]
struct Help<'a> {
    text: &'a str,
    markdown: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Message,
    locations: Vec<SarifLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunProperties {
    classes: u64,
    methods: u64,
    open_program: bool,
    /// Notifications about inputs not read.
    unreadable: u64,
    /// Notifications about classes missing from the class path.
    missing_classes: u64,
    /// With `check --evidence`: findings per evidence status.
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<EvidenceCountsOut>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    /// SARIF's 0–100 relevance of the result: the finding's confidence
    /// (see [`rank_of`]).
    rank: u32,
    message: Message,
    locations: [SarifLocation; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<SarifLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    code_flows: Vec<CodeFlow>,
    partial_fingerprints: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressions: Vec<SarifSuppression<'a>>,
    properties: ResultProperties<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CodeFlow {
    thread_flows: Vec<ThreadFlow>,
}

#[derive(Serialize)]
struct ThreadFlow {
    message: Message,
    locations: Vec<ThreadFlowLocation>,
}

#[derive(Serialize)]
struct ThreadFlowLocation {
    location: SarifLocation,
}

#[derive(Serialize)]
struct SarifSuppression<'a> {
    kind: &'static str,
    justification: &'a str,
}

#[derive(Serialize)]
struct ResultProperties<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lock: Option<&'a str>,
    /// `high`, `medium` or `low`, as in the JSON output.
    confidence: &'static str,
    /// With `check --evidence`: what the runs showed, as in the JSON output.
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<EvidenceOut<'a>>,
}

/// The SARIF `rank` of a confidence: viewers sort and filter by it, and
/// the three values sit well apart so a threshold between them is easy.
pub fn rank_of(confidence: Confidence) -> u32 {
    match confidence {
        Confidence::High => 90,
        Confidence::Medium => 60,
        Confidence::Low => 30,
    }
}

#[derive(Serialize)]
struct Message {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    name: String,
    fully_qualified_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    decorated_name: Option<String>,
    kind: &'static str,
}

/// Renders the report as a SARIF 2.1.0 log with one run, pretty-printed,
/// with a trailing newline. `rules` describes the rules that may appear;
/// a finding whose rule is not described still gets a minimal rule entry so
/// every `ruleIndex` is valid.
pub fn render_sarif(report: &Report, rules: &[RuleMeta], options: &SarifOptions) -> String {
    let findings = report.canonical_findings();
    let problems = report.canonical_problems();

    let suppressed = report.canonical_suppressed();
    let mut all: Vec<&Finding> = findings.clone();
    all.extend(suppressed.iter().map(|s| &s.finding));
    let rule_table = rule_table(rules, &all);
    let results = findings
        .iter()
        .map(|finding| sarif_result(finding, &rule_table, options))
        .chain(suppressed.iter().map(|s| {
            let mut result = sarif_result(&s.finding, &rule_table, options);
            result.suppressions = vec![sarif_suppression(&s.suppression)];
            result
        }))
        .collect();

    let log = SarifLog {
        schema: SARIF_SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: TOOL_NAME,
                    version: &report.tool_version,
                    information_uri: options.information_uri.as_deref(),
                    rules: rule_table,
                },
            },
            invocations: [Invocation {
                // Unreadable inputs are reported but did not stop the run.
                execution_successful: true,
                tool_execution_notifications: problems
                    .iter()
                    .map(|problem| notification(problem))
                    .collect(),
            }],
            results,
            properties: RunProperties {
                classes: report.summary.classes,
                methods: report.summary.methods,
                open_program: report.summary.open_program,
                unreadable: report.problems_of_kind(ProblemKind::Unreadable).len() as u64,
                missing_classes: report.problems_of_kind(ProblemKind::MissingClass).len() as u64,
                evidence: EvidenceCountsOut::of(report),
            },
        }],
    };
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_else(|err| {
        // Unreachable for these plain structs; kept infallible without `expect`.
        format!(
            "{{\"error\": {}}}",
            serde_json::Value::String(err.to_string())
        )
    });
    text.push('\n');
    text
}

/// Rule descriptors sorted by id: the given metadata (first entry wins on a
/// duplicate id) plus bare entries for undescribed rules used by findings.
fn rule_table<'a>(rules: &'a [RuleMeta], findings: &[&'a Finding]) -> Vec<Rule<'a>> {
    let mut table: Vec<Rule<'a>> = rules
        .iter()
        .map(|meta| Rule {
            id: &meta.id,
            name: Some(&meta.name),
            short_description: Some(Message {
                text: meta.short_description.clone(),
            }),
            full_description: meta
                .full_description
                .as_ref()
                .map(|text| Message { text: text.clone() }),
            help: meta.help_markdown.as_deref().map(|markdown| Help {
                text: markdown,
                markdown,
            }),
            help_uri: meta.help_uri.as_deref(),
        })
        .collect();
    for finding in findings {
        if !table.iter().any(|rule| rule.id == finding.rule) {
            table.push(Rule {
                id: &finding.rule,
                name: None,
                short_description: None,
                full_description: None,
                help: None,
                help_uri: None,
            });
        }
    }
    // Stable sort keeps the first of several same-id entries in front.
    table.sort_by(|a, b| a.id.cmp(b.id));
    table.dedup_by(|later, earlier| later.id == earlier.id);
    table
}

fn sarif_result<'a>(
    finding: &'a Finding,
    rule_table: &[Rule<'_>],
    options: &SarifOptions,
) -> SarifResult<'a> {
    // rule_table always holds the finding's rule; 0 is never used in practice.
    let rule_index = rule_table
        .iter()
        .position(|rule| rule.id == finding.rule)
        .unwrap_or(0);

    // Viewers generally show only message.text, so notes are appended to it.
    let mut text = finding.message.clone();
    for note in &finding.notes {
        text.push('\n');
        if !note.starts_with("help: ") {
            text.push_str("note: ");
        }
        text.push_str(note);
    }

    let related_locations = finding
        .related
        .iter()
        .enumerate()
        .map(|(index, related)| {
            let mut location = sarif_location(&related.location, options);
            location.id = Some(index + 1);
            location.message = Some(Message {
                text: related.message.clone(),
            });
            location
        })
        .collect();

    SarifResult {
        rule_id: &finding.rule,
        rule_index,
        level: finding.severity.as_str(),
        rank: rank_of(finding.confidence),
        message: Message { text },
        locations: [sarif_location(&finding.location, options)],
        related_locations,
        code_flows: code_flows(&finding.flows, options),
        partial_fingerprints: BTreeMap::from([(FINGERPRINT_KEY, fingerprint(finding))]),
        suppressions: Vec::new(),
        properties: ResultProperties {
            field: finding.field.as_deref(),
            lock: finding.lock.as_deref(),
            confidence: finding.confidence.as_str(),
            evidence: EvidenceOut::of(finding),
        },
    }
}

fn sarif_location(location: &Location, options: &SarifOptions) -> SarifLocation {
    let logical = match &location.method {
        Some(method) => LogicalLocation {
            name: method.clone(),
            fully_qualified_name: location.qualified_name(),
            decorated_name: location
                .descriptor
                .as_ref()
                .map(|descriptor| format!("{method}{descriptor}")),
            kind: "function",
        },
        None => LogicalLocation {
            name: simple_class_name(&location.class).to_owned(),
            fully_qualified_name: location.class.clone(),
            decorated_name: None,
            kind: "type",
        },
    };
    SarifLocation {
        id: None,
        message: None,
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation {
                uri: match options.source_paths.get(&location.source_path()) {
                    Some(found) => artifact_uri(found, None),
                    None => artifact_uri(&location.source_path(), options.source_root.as_deref()),
                },
            },
            region: location.line.map(|start_line| Region { start_line }),
        },
        logical_locations: vec![logical],
    }
}

/// One code flow with a thread flow per thread, or none without flows.
fn code_flows(flows: &[Flow], options: &SarifOptions) -> Vec<CodeFlow> {
    // SARIF wants at least one location per thread flow.
    let flows: Vec<&Flow> = flows.iter().filter(|f| !f.steps.is_empty()).collect();
    if flows.is_empty() {
        return Vec::new();
    }
    let step = |related: &Related| {
        let mut location = sarif_location(&related.location, options);
        location.message = Some(Message {
            text: related.message.clone(),
        });
        ThreadFlowLocation { location }
    };
    vec![CodeFlow {
        thread_flows: flows
            .iter()
            .map(|flow| ThreadFlow {
                message: Message {
                    text: flow.label.clone(),
                },
                locations: flow.steps.iter().map(step).collect(),
            })
            .collect(),
    }]
}

/// Annotations live in the source (`inSource`); config patterns and
/// baselines outside it (`external`).
fn sarif_suppression(suppression: &Suppression) -> SarifSuppression<'_> {
    SarifSuppression {
        kind: if suppression.kind == "annotation" {
            "inSource"
        } else {
            "external"
        },
        justification: &suppression.reason,
    }
}

fn notification(problem: &InputProblem) -> Notification {
    Notification {
        // A missing dependency weakens the analysis; an unreadable input
        // removes part of it.
        level: match problem.kind {
            ProblemKind::Unreadable => "error",
            ProblemKind::MissingClass => "warning",
        },
        message: Message {
            text: format!("{}: {}", problem.display_path(), problem.message),
        },
        locations: vec![SarifLocation {
            id: None,
            message: None,
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: artifact_uri(&problem.file, None),
                },
                region: None,
            },
            logical_locations: Vec::new(),
        }],
    }
}

fn simple_class_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

/// Turns a path into a URI reference: joined under the source root when one
/// is given, absolute paths as `file://` URIs, and characters that are not
/// allowed in a URI percent-encoded (`$` and friends are allowed and kept).
fn artifact_uri(path: &str, source_root: Option<&str>) -> String {
    let joined = match source_root {
        Some(root) if !root.is_empty() && !path.starts_with('/') => {
            format!("{}/{path}", root.trim_end_matches('/'))
        }
        _ => path.to_owned(),
    };
    let encoded = percent_encode_path(&joined.replace('\\', "/"));
    if encoded.starts_with('/') {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

fn percent_encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&byte);
        if keep {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::artifact_uri;

    #[test]
    fn uris() {
        assert_eq!(
            artifact_uri("com/x/Outer$Inner.class", None),
            "com/x/Outer$Inner.class"
        );
        assert_eq!(
            artifact_uri("com/x/A.java", Some("src/main/java/")),
            "src/main/java/com/x/A.java"
        );
        assert_eq!(
            artifact_uri("/tmp/my lib.jar", Some("src")),
            "file:///tmp/my%20lib.jar"
        );
        assert_eq!(artifact_uri("a/é#1.jar", None), "a/%C3%A9%231.jar");
        assert_eq!(artifact_uri("libs\\a.jar", None), "libs/a.jar");
    }
}
