//! Baselines: "these findings are known; report only new ones".
//!
//! A baseline is a small versioned JSON file listing fingerprints
//! ([`lockstep_report::fingerprint`]) with the rule, class and message for
//! people reading it. `--write-baseline FILE` writes the findings of a run;
//! `--baseline FILE` moves findings whose fingerprint is listed to the
//! suppressed list (kind `baseline`). Documented in `docs/baselines.md`.

use std::collections::BTreeSet;
use std::path::Path;

use lockstep_report::{fingerprint, Report, SuppressedFinding, Suppression};
use serde::{Deserialize, Serialize};

/// The version written and the only one read.
pub const BASELINE_VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Baseline {
    lockstep_baseline: u32,
    findings: Vec<Entry>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(deny_unknown_fields)]
struct Entry {
    fingerprint: String,
    rule: String,
    class: String,
    message: String,
}

/// The baseline of `report`'s findings, sorted by fingerprint, as text.
pub fn render(report: &Report) -> String {
    let mut findings: Vec<Entry> = report
        .canonical_findings()
        .into_iter()
        .map(|f| Entry {
            fingerprint: fingerprint(f),
            rule: f.rule.clone(),
            class: f.location.class.clone(),
            message: f.message.clone(),
        })
        .collect();
    findings.sort();
    findings.dedup_by(|a, b| a.fingerprint == b.fingerprint);
    let baseline = Baseline {
        lockstep_baseline: BASELINE_VERSION,
        findings,
    };
    let mut text = serde_json::to_string_pretty(&baseline).unwrap_or_default();
    text.push('\n');
    text
}

/// The fingerprints listed in the baseline at `path`.
pub fn read(path: &Path) -> Result<BTreeSet<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let baseline: Baseline = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a lockstep baseline: {e}", path.display()))?;
    if baseline.lockstep_baseline != BASELINE_VERSION {
        return Err(format!(
            "{}: baseline version {} is not supported (this lockstep reads version {BASELINE_VERSION})",
            path.display(),
            baseline.lockstep_baseline
        ));
    }
    Ok(baseline
        .findings
        .into_iter()
        .map(|e| e.fingerprint)
        .collect())
}

/// Moves the findings listed in `known` to the suppressed list.
pub fn apply(report: &mut Report, known: &BTreeSet<String>, path: &Path) {
    let findings = std::mem::take(&mut report.findings);
    for finding in findings {
        if known.contains(&fingerprint(&finding)) {
            report.suppressed.push(SuppressedFinding {
                finding,
                suppression: Suppression {
                    kind: "baseline".into(),
                    reason: format!("listed in the baseline {}", path.display()),
                },
            });
        } else {
            report.findings.push(finding);
        }
    }
}
