//! Human-readable text output, in the style of rustc and ruff diagnostics.
//!
//! Full form, one block per finding:
//!
//! ```text
//! warning[data-race]: `count` is written without holding `this`
//!   --> Counter.java:12 in com.example.Counter.increment()
//!    = confidence: high
//!    = field: com.example.Counter.count
//!    |- Counter.java:20 in com.example.Counter.get(): read under `this`
//!    = note: ...
//!    = help: ...
//! ```
//!
//! followed by input problems (`error: file!entry: message`) and a summary
//! line (after the evidence counts, with `check --evidence`). Findings
//! come observed in a run first, then most confident first (then
//! canonically); a finding's evidence is a `= observed in a run: …` line
//! (a `[…]` suffix in the concise form). The
//! concise form prints one line per finding. Colors are optional
//! and off by default so tests and pipes see plain text.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Color, Style};

use crate::evidence::EvidenceCounts;
use crate::model::{Finding, InputProblem, ProblemKind, Report, Scope, Severity};
use crate::sources::Sources;

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
    render_text_with_sources(report, options, &Sources::default())
}

/// [`render_text`] showing the marked source line of each location whose
/// file is in `sources` (full form only).
pub fn render_text_with_sources(
    report: &Report,
    options: &TextOptions,
    sources: &Sources,
) -> String {
    let paint = Paint { on: options.color };
    let mut out = String::new();
    let findings = report.findings_by_confidence();
    for finding in &findings {
        if options.concise {
            concise_finding(&mut out, finding, &paint);
        } else {
            full_finding(&mut out, finding, &paint, sources);
        }
    }
    // Full blocks each end with a blank line already; concise lines need one
    // to set them apart from what follows.
    if options.concise && !findings.is_empty() {
        out.push('\n');
    }
    let problems = report.canonical_problems();
    problem_lines(&mut out, &problems, &paint);
    if !problems.is_empty() {
        out.push('\n');
    }
    if let Some(counts) = EvidenceCounts::of(report) {
        out.push_str(&paint.paint(BOLD, &counts.line()));
        out.push('\n');
    }
    out.push_str(&paint.paint(BOLD, &summary_line(report)));
    out.push('\n');
    out
}

/// What was entered, when it is more than one program that reaches
/// everything: `2 programs, 3 classes entered as a library, 1 class
/// skipped (nothing enters it: unreached or not public, no sign of
/// concurrent use)`.
fn scope_text(scope: &Scope, open: bool) -> Option<String> {
    let mut parts = Vec::new();
    if !open && (scope.programs > 1 || scope.library_classes > 0 || scope.skipped_classes > 0) {
        parts.push(plural(scope.programs, "program", "programs"));
    }
    if scope.library_classes > 0 && !open {
        parts.push(format!(
            "{} entered as a library",
            plural(scope.library_classes, "class", "classes")
        ));
    }
    if scope.skipped_classes > 0 {
        let (it, them) = if scope.skipped_classes == 1 {
            ("class", "it")
        } else {
            ("classes", "them")
        };
        parts.push(format!(
            "{} {it} skipped (nothing enters {them}: unreached or not public, no sign of concurrent use)",
            scope.skipped_classes
        ));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The closing summary, without a trailing newline:
/// `Found 3 findings (2 data-race, 1 stale-value) in 120 classes, 840 methods.`
/// or `No findings in 120 classes, 840 methods.`; the number of input
/// problems and the open-program mode are appended when relevant. Public so
/// the CLI can print it to stderr alongside machine-readable formats.
pub fn summary_line(report: &Report) -> String {
    let by_rule = report.counts_by_rule();
    let total: u64 = by_rule.values().sum();
    let mut line = if total == 0 && report.was_cut() {
        let name = report.budget_name.as_deref().unwrap_or(TIME_BUDGET);
        let noun = name.split(" (").next().unwrap_or(name);
        format!("No findings before {noun} ran out")
    } else if total == 0 {
        "No findings".to_owned()
    } else {
        let parts: Vec<String> = by_rule
            .iter()
            .map(|(rule, count)| format!("{count} {rule}"))
            .collect();
        let confidences: Vec<String> = report
            .counts_by_confidence()
            .iter()
            .filter(|(_, count)| *count > 0)
            .map(|(confidence, count)| format!("{count} {confidence}"))
            .collect();
        format!(
            "Found {} ({}; confidence: {})",
            plural(total, "finding", "findings"),
            parts.join(", "),
            confidences.join(", ")
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
    if let Some(scope) = summary
        .scope
        .as_ref()
        .and_then(|s| scope_text(s, summary.open_program))
    {
        let _ = write!(line, "; {scope}");
    }
    if let Some((min, hidden)) = report.below_min_confidence {
        if hidden > 0 {
            let _ = write!(line, "; {hidden} below --min-confidence {min} not shown");
        }
    }
    let suppressed = report.canonical_suppressed().len() as u64;
    if suppressed > 0 {
        let _ = write!(line, "; {suppressed} suppressed");
    }
    let unreadable = report.problems_of_kind(ProblemKind::Unreadable).len() as u64;
    if unreadable > 0 {
        let _ = write!(
            line,
            "; {} could not be read",
            plural(unreadable, "input", "inputs")
        );
    }
    let missing = report.problems_of_kind(ProblemKind::MissingClass).len() as u64;
    if missing > 0 {
        let _ = write!(
            line,
            "; {} missing from the class path",
            plural(missing, "referenced class", "referenced classes")
        );
    }
    if let Some(cut) = cut_text(report) {
        let _ = write!(line, "; {cut}");
    }
    line.push('.');
    line
}

/// `the time budget (--max-time) cut data-race (not run: ...), ...` (or
/// the memory budget, `--max-memory`):
/// every rule whose analysis was cut, with what it left out.
fn cut_text(report: &Report) -> Option<String> {
    let cuts = report.budget_cuts.as_ref().filter(|c| !c.is_empty())?;
    let parts: Vec<String> = cuts
        .iter()
        .map(|c| format!("{} ({}: {})", c.rule, c.phase, c.what))
        .collect();
    let name = report.budget_name.as_deref().unwrap_or(TIME_BUDGET);
    Some(format!("incomplete: {name} cut {}", parts.join(", ")))
}

/// The budget's name when the report does not give one.
const TIME_BUDGET: &str = "the time budget (--max-time)";

fn plural(count: u64, one: &str, many: &str) -> String {
    if count == 1 {
        format!("{count} {one}")
    } else {
        format!("{count} {many}")
    }
}

fn full_finding(out: &mut String, finding: &Finding, paint: &Paint, sources: &Sources) {
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
    if let Some(snippet) = sources.snippet(loc, "here", paint.on, "    ") {
        out.push_str(&snippet);
    }
    let eq = paint.paint(GUTTER, "=");
    let _ = writeln!(out, "   {eq} confidence: {}", finding.confidence);
    if finding.provenance.as_deref() == Some("run") {
        let _ = writeln!(out, "   {eq} observed in a run");
    }
    if let Some(evidence) = &finding.evidence {
        let _ = writeln!(
            out,
            "   {eq} {}: {}",
            paint.paint(BOLD, evidence.status.label()),
            indent_continuation(&evidence.detail)
        );
    }
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
        let label = related.message.lines().next().unwrap_or("");
        if let Some(snippet) = sources.snippet(&related.location, label, paint.on, "      ") {
            out.push_str(&snippet);
        }
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
        "{}: {} ({}) {}",
        paint.paint(BOLD, &position),
        paint.paint(
            severity_style(finding.severity),
            &format!("{}[{}]", finding.severity.as_str(), finding.rule)
        ),
        finding.confidence,
        finding.message.replace('\n', " ")
    );
    if let Some(evidence) = &finding.evidence {
        // Before the newline: one line per finding stays one line.
        out.pop();
        let _ = writeln!(out, " [{}]", evidence.status.label());
    }
}

/// Problems shown per input file: a damaged jar can have thousands of bad
/// entries, and the first few say what is wrong; JSON keeps them all.
pub const PROBLEMS_SHOWN_PER_FILE: usize = 5;

/// The problem lines, at most [`PROBLEMS_SHOWN_PER_FILE`] of each kind per
/// input file, then `... and N more in FILE`. `problems` is canonically
/// sorted, so each file's problems are adjacent.
fn problem_lines(out: &mut String, problems: &[&InputProblem], paint: &Paint) {
    let mut start = 0;
    while start < problems.len() {
        let first = problems[start];
        let end = problems[start..]
            .iter()
            .position(|p| p.file != first.file)
            .map_or(problems.len(), |n| start + n);
        for kind in [ProblemKind::Unreadable, ProblemKind::MissingClass] {
            let of_kind: Vec<&&InputProblem> = problems[start..end]
                .iter()
                .filter(|p| p.kind == kind)
                .collect();
            for problem in of_kind.iter().take(PROBLEMS_SHOWN_PER_FILE) {
                problem_line(out, problem, paint);
            }
            if of_kind.len() > PROBLEMS_SHOWN_PER_FILE {
                let _ = writeln!(
                    out,
                    "{}: ... and {} more in {} (all are listed in --format json)",
                    problem_label(kind, paint),
                    of_kind.len() - PROBLEMS_SHOWN_PER_FILE,
                    first.file
                );
            }
        }
        start = end;
    }
}

fn problem_line(out: &mut String, problem: &InputProblem, paint: &Paint) {
    let _ = writeln!(
        out,
        "{}: {}: {}",
        problem_label(problem.kind, paint),
        problem.display_path(),
        indent_continuation(&problem.message)
    );
}

/// An unreadable input is an error (part of the program was not analysed);
/// a missing dependency a warning (the analysis is less precise).
fn problem_label(kind: ProblemKind, paint: &Paint) -> String {
    match kind {
        ProblemKind::Unreadable => paint.paint(severity_style(Severity::Error), "error"),
        ProblemKind::MissingClass => paint.paint(severity_style(Severity::Warning), "warning"),
    }
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
        assert!(full.starts_with(
            "warning[r]: first\n     second\n  --> A.class in A\n   = confidence: medium\n"
        ));
        assert!(full.contains("   = note: one\n     two\n"));
        let concise = render_text(
            &report,
            &TextOptions {
                concise: true,
                ..TextOptions::default()
            },
        );
        assert!(concise.starts_with("A.class: warning[r] (medium) first second\n"));
    }
}
