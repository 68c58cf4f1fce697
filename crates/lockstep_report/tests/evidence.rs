//! Evidence of static findings (`check --evidence`) in the renderers:
//! the text label and order (observed first), the concise suffix, the
//! counts line, and nothing at all without runs.

use lockstep_report::{
    render_text, Evidence, EvidenceStatus, Finding, Location, Report, Severity, TextOptions,
};

fn finding(class: &str, status: Option<EvidenceStatus>) -> Finding {
    let mut f = Finding::new(
        "data-race",
        Severity::Warning,
        format!("race in {class}"),
        Location::in_method(class, "m", "()V").with_file(format!("{class}.java")),
    );
    f.evidence = status.map(|status| Evidence {
        status,
        runs: 1,
        in_runs: u64::from(status != EvidenceStatus::NotReached),
        detail: format!("detail of {class}"),
    });
    f
}

fn report() -> Report {
    let mut r = Report::new("1");
    r.findings = vec![
        finding("A", Some(EvidenceStatus::NotReached)),
        finding("B", Some(EvidenceStatus::Reached)),
        finding("C", Some(EvidenceStatus::Observed)),
        finding("D", None),
    ];
    r.evidence_runs = Some(1);
    r
}

#[test]
fn observed_findings_come_first_with_their_label() {
    let text = render_text(&report(), &TextOptions::default());
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(
        headers,
        [
            "warning[data-race]: race in C",
            "warning[data-race]: race in A",
            "warning[data-race]: race in B",
            "warning[data-race]: race in D",
        ]
    );
    assert!(
        text.contains("   = observed in a run: detail of C\n"),
        "{text}"
    );
    assert!(
        text.contains("   = reached in a run (not observed): detail of B\n"),
        "{text}"
    );
    assert!(
        text.contains("   = not reached in a run: detail of A\n"),
        "{text}"
    );
    assert!(text.contains(
        "evidence from 1 run: 1 observed, 1 reached, 1 not reached; 1 finding of rules runs do not check\nFound 4 findings"
    ), "{text}");
}

#[test]
fn concise_lines_end_with_the_label() {
    let options = TextOptions {
        concise: true,
        ..TextOptions::default()
    };
    let text = render_text(&report(), &options);
    let lines: Vec<&str> = text.lines().take(4).collect();
    assert!(
        lines[0].ends_with("race in C [observed in a run]"),
        "{text}"
    );
    assert!(
        lines[1].ends_with("race in A [not reached in a run]"),
        "{text}"
    );
    assert!(lines[3].ends_with("race in D"), "{text}");
}

#[test]
fn without_runs_nothing_is_said() {
    let mut r = Report::new("1");
    r.findings = vec![finding("A", None)];
    let text = render_text(&r, &TextOptions::default());
    assert!(!text.contains("evidence"), "{text}");
    assert!(!lockstep_report::render_json(&r).contains("evidence"));
}
