//! GitHub Actions workflow commands, which turn findings into annotations on
//! a pull request without any upload step:
//!
//! ```text
//! ::warning file=com/example/Counter.java,line=12,title=lockstep data-race::message
//! ```
//!
//! Paths are the best-effort source paths (package directory + `SourceFile`),
//! optionally under a source root, since GitHub resolves them against the
//! repository root. A plain summary line closes the output for the log.

use std::fmt::Write as _;

use crate::model::{Finding, InputProblem, Report, Severity};
use crate::text::summary_line;

/// Options for the GitHub renderer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GithubOptions {
    /// Directory prepended to every path (`src/main/java`).
    pub source_root: Option<String>,
    /// Repository-relative paths of source files found, by package-qualified
    /// path; used as is when present.
    pub source_paths: std::collections::BTreeMap<String, String>,
}

/// Renders one workflow command per finding and per input problem, then the
/// summary line. The result ends with a newline.
pub fn render_github(report: &Report, options: &GithubOptions) -> String {
    let mut out = String::new();
    for finding in report.canonical_findings() {
        finding_command(&mut out, finding, options);
    }
    for problem in report.canonical_problems() {
        problem_command(&mut out, problem);
    }
    out.push_str(&summary_line(report));
    out.push('\n');
    out
}

fn finding_command(out: &mut String, finding: &Finding, options: &GithubOptions) {
    let command = match finding.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        // GitHub calls its lowest annotation level "notice".
        Severity::Note => "notice",
    };
    let loc = &finding.location;
    let path = match options.source_root.as_deref() {
        _ if options.source_paths.contains_key(&loc.source_path()) => {
            options.source_paths[&loc.source_path()].clone()
        }
        Some(root) if !root.is_empty() => {
            format!("{}/{}", root.trim_end_matches('/'), loc.source_path())
        }
        _ => loc.source_path(),
    };
    let mut props = format!("file={}", escape_property(&path));
    if let Some(line) = loc.line {
        let _ = write!(props, ",line={line}");
    }
    let _ = write!(
        props,
        ",title={}",
        escape_property(&format!(
            "lockstep {} ({} confidence)",
            finding.rule, finding.confidence
        ))
    );

    // Annotations show multi-line messages, so the context that the text
    // renderer prints as a block goes on extra lines here.
    let mut message = finding.message.clone();
    let _ = write!(message, "\nin {}", loc.display_method());
    if let Some(evidence) = &finding.evidence {
        let _ = write!(
            message,
            "\n{}: {}",
            evidence.status.label(),
            evidence.detail
        );
    }
    for related in &finding.related {
        let _ = write!(
            message,
            "\n{} in {}: {}",
            related.location.position(),
            related.location.display_method(),
            related.message
        );
    }
    for note in &finding.notes {
        message.push('\n');
        if !note.starts_with("help: ") {
            message.push_str("note: ");
        }
        message.push_str(note);
    }
    let _ = writeln!(out, "::{command} {props}::{}", escape_data(&message));
}

fn problem_command(out: &mut String, problem: &InputProblem) {
    let _ = writeln!(
        out,
        "::error file={},title={}::{}",
        escape_property(&problem.file),
        escape_property("lockstep input problem"),
        escape_data(&format!("{}: {}", problem.display_path(), problem.message))
    );
}

/// Escaping for a command's message, as the Actions runner expects.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escaping for a property value, which additionally cannot contain the
/// `:` and `,` that delimit properties.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::{escape_data, escape_property};

    #[test]
    fn escaping() {
        assert_eq!(escape_data("50% a\r\nb: c,d"), "50%25 a%0D%0Ab: c,d");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
