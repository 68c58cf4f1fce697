//! Human-readable text output, in the style of rustc and ruff diagnostics.
//!
//! Full form, one block per finding:
//!
//! ```text
//! warning[data-race]: `count` is written without holding `this`
//!   --> Counter.java:12 in com.example.Counter.increment()
//!    = field: com.example.Counter.count
//!    |- Counter.java:20 in com.example.Counter.get(): read under `this`
//!    = note: ...
//!    = help: ...
//! ```
//!
//! followed by input problems (`error: file!entry: message`) and a summary
//! line. The concise form prints one line per finding. Colors are optional
//! and off by default so tests and pipes see plain text.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Color, Style};

use crate::model::{Finding, InputProblem, Report, Severity};

/// Options for the text renderer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TextOptions {
    /// Emit ANSI color escapes (the CLI decides based on the terminal and
    /// `NO_COLOR`; the renderer never inspects the environment).
    pub color: bool,
    /// One line per finding instead of a block.
    pub concise: bool,
}

/// Renders the report as text. The result ends with a newline.
pub fn render_text(report: &Report, options: &TextOptions) -> String {
    let paint = Paint { on: options.color };
    let mut out = String::new();
    let findings = report.canonical_findings();
    for finding in &findings {
        if options.concise {
            concise_finding(&mut out, finding, &paint);
        } else {
            full_finding(&mut out, finding, &paint);
        }
    }
    // Full blocks each end with a blank line already; concise lines need one
    // to set them apart from what follows.
    if options.concise && !findings.is_empty() {
        out.push('\n');
    }
    let problems = report.canonical_problems();
    for problem in &problems {
        problem_line(&mut out, problem, &paint);
    }
    if !problems.is_empty() {
        out.push('\n');
    }
    out.push_str(&paint.paint(BOLD, &summary_line(report)));
    out.push('\n');
    out
}

/// The closing summary, without a trailing newline:
/// `Found 3 findings (2 data-race, 1 stale-value) in 120 classes, 840 methods.`
/// or `No findings in 120 classes, 840 methods.`; the number of input
/// problems and the open-program mode are appended when relevant. Public so
/// the CLI can print it to stderr alongside machine-readable formats.
pub fn summary_line(report: &Report) -> String {
    let by_rule = report.counts_by_rule();
    let total: u64 = by_rule.values().sum();
    let mut line = if total == 0 {
        "No findings".to_owned()
    } else {
        let parts: Vec<String> = by_rule
            .iter()
            .map(|(rule, count)| format!("{count} {rule}"))
            .collect();
        format!(
            "Found {} ({})",
            plural(total, "finding", "findings"),
            parts.join(", ")
        )
    };
    let summary = &report.summary;
    let _ = write!(
        line,
        " in {}, {}",
        plural(summary.classes, "class", "classes"),
        plural(summary.methods, "method", "methods")
    );
    if summary.open_program {
        line.push_str(" (open program)");
    }
    let suppressed = report.canonical_suppressed().len() as u64;
    if suppressed > 0 {
        let _ = write!(line, "; {suppressed} suppressed");
    }
    let problems = report.canonical_problems().len() as u64;
    if problems > 0 {
        let _ = write!(
            line,
            "; {} could not be read",
            plural(problems, "input", "inputs")
        );
    }
    line.push('.');
    line
}

fn plural(count: u64, one: &str, many: &str) -> String {
    if count == 1 {
        format!("{count} {one}")
    } else {
        format!("{count} {many}")
    }
}

fn full_finding(out: &mut String, finding: &Finding, paint: &Paint) {
    let sev = severity_style(finding.severity);
    let _ = writeln!(
        out,
        "{}{}",
        paint.paint(
            sev,
            &format!("{}[{}]", finding.severity.as_str(), finding.rule)
        ),
        paint.paint(
            BOLD,
            &format!(": {}", indent_continuation(&finding.message))
        ),
    );
    let loc = &finding.location;
    let _ = writeln!(
        out,
        "  {} {} in {}",
        paint.paint(GUTTER, "-->"),
        loc.position(),
        loc.display_method()
    );
    let eq = paint.paint(GUTTER, "=");
    if let Some(field) = &finding.field {
        let _ = writeln!(out, "   {eq} field: {field}");
    }
    if let Some(lock) = &finding.lock {
        let _ = writeln!(out, "   {eq} lock: {lock}");
    }
    let branch = paint.paint(GUTTER, "|-");
    for related in &finding.related {
        let _ = writeln!(
            out,
            "   {branch} {} in {}: {}",
            related.location.position(),
            related.location.display_method(),
            indent_continuation(&related.message)
        );
    }
    for note in &finding.notes {
        let (label, text) = match note.strip_prefix("help: ") {
            Some(help) => ("help", help),
            None => ("note", note.as_str()),
        };
        let _ = writeln!(
            out,
            "   {eq} {}: {}",
            paint.paint(BOLD, label),
            indent_continuation(text)
        );
    }
    out.push('\n');
}

fn concise_finding(out: &mut String, finding: &Finding, paint: &Paint) {
    let loc = &finding.location;
    // The package-qualified path keeps one-line output unambiguous when two
    // packages have a file of the same name.
    let mut position = loc.source_path();
    if let Some(line) = loc.line {
        let _ = write!(position, ":{line}");
    }
    let _ = writeln!(
        out,
        "{}: {} {}",
        paint.paint(BOLD, &position),
        paint.paint(
            severity_style(finding.severity),
            &format!("{}[{}]", finding.severity.as_str(), finding.rule)
        ),
        finding.message.replace('\n', " ")
    );
}

fn problem_line(out: &mut String, problem: &InputProblem, paint: &Paint) {
    let _ = writeln!(
        out,
        "{}: {}: {}",
        paint.paint(severity_style(Severity::Error), "error"),
        problem.display_path(),
        indent_continuation(&problem.message)
    );
}

/// Indents continuation lines of multi-line text so they stay inside the
/// finding's block instead of looking like new top-level output.
fn indent_continuation(text: &str) -> String {
    text.replace('\n', "\n     ")
}

const BOLD: Style = Style::new().bold();
const GUTTER: Style = Style::new()
    .bold()
    .fg_color(Some(Color::Ansi(AnsiColor::Blue)));

fn severity_style(severity: Severity) -> Style {
    let color = match severity {
        Severity::Error => AnsiColor::Red,
        Severity::Warning => AnsiColor::Yellow,
        Severity::Note => AnsiColor::Cyan,
    };
    Style::new().bold().fg_color(Some(Color::Ansi(color)))
}

/// Wraps text in the style's escapes (`anstyle`) when color is on; a no-op
/// otherwise.
struct Paint {
    on: bool,
}

impl Paint {
    fn paint(&self, style: Style, text: &str) -> String {
        if self.on {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{render_text, TextOptions};
    use crate::model::{Finding, Location, Report, Severity};

    #[test]
    fn multi_line_text_stays_inside_the_block() {
        let mut report = Report::new("1");
        report.findings.push(
            Finding::new(
                "r",
                Severity::Warning,
                "first\nsecond",
                Location::in_class("A"),
            )
            .with_note("one\ntwo"),
        );
        let full = render_text(&report, &TextOptions::default());
        assert!(full.starts_with("warning[r]: first\n     second\n  --> A.class in A\n"));
        assert!(full.contains("   = note: one\n     two\n"));
        let concise = render_text(
            &report,
            &TextOptions {
                concise: true,
                ..TextOptions::default()
            },
        );
        assert!(concise.starts_with("A.class: warning[r] first second\n"));
    }
}
