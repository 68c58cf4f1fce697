//! Snapshot and determinism tests for every renderer.
//!
//! Snapshots live in `tests/snapshots/`; review changes to them as changes to
//! user-visible output (and, for JSON, to the versioned contract).

mod common;

use common::{empty_report, full_report, permutations, rules, single_report};
use lockstep_report::{
    render, render_github, render_json, render_sarif, render_text, GithubOptions, OutputFormat,
    RenderOptions, Report, SarifOptions, TextOptions,
};

fn all_formats(report: &Report) -> Vec<String> {
    let options = RenderOptions {
        color: false,
        rules: rules(),
        source_root: Some("src/main/java".to_owned()),
        information_uri: Some("https://example.invalid/lockstep".to_owned()),
        ..RenderOptions::default()
    };
    let mut out: Vec<String> = OutputFormat::ALL
        .iter()
        .map(|format| render(report, *format, &options))
        .collect();
    out.push(render(
        report,
        OutputFormat::Text,
        &RenderOptions {
            color: true,
            ..options
        },
    ));
    out
}

#[test]
fn text_empty() {
    insta::assert_snapshot!(render_text(&empty_report(), &TextOptions::default()));
}

#[test]
fn text_full() {
    insta::assert_snapshot!(render_text(&full_report(), &TextOptions::default()));
}

#[test]
fn text_single_finding_uses_singular_words() {
    let text = render_text(&single_report(), &TextOptions::default());
    insta::assert_snapshot!(text);
    assert!(text
        .ends_with("Found 1 finding (1 data-race; confidence: 1 medium) in 1 class, 1 method.\n"));
}

#[test]
fn concise_empty() {
    let options = TextOptions {
        concise: true,
        ..TextOptions::default()
    };
    insta::assert_snapshot!(render_text(&empty_report(), &options));
}

#[test]
fn concise_full() {
    let options = TextOptions {
        concise: true,
        ..TextOptions::default()
    };
    insta::assert_snapshot!(render_text(&full_report(), &options));
}

#[test]
fn text_color() {
    let options = TextOptions {
        color: true,
        ..TextOptions::default()
    };
    let colored = render_text(&full_report(), &options);
    insta::assert_snapshot!(colored);
    assert!(colored.contains("\x1b[1m\x1b[33mwarning[data-race]\x1b[0m"));
    assert!(colored.contains("\x1b[1m\x1b[31merror[stale-value]\x1b[0m"));
    // Removing the escapes must give exactly the plain rendering.
    assert_eq!(
        strip_ansi(&colored),
        render_text(&full_report(), &TextOptions::default())
    );
    assert!(!render_text(&full_report(), &TextOptions::default()).contains('\x1b'));
}

#[test]
fn json_empty() {
    insta::assert_snapshot!(render_json(&empty_report()));
}

#[test]
fn json_full() {
    insta::assert_snapshot!(render_json(&full_report()));
}

#[test]
fn sarif_empty() {
    insta::assert_snapshot!(render_sarif(&empty_report(), &[], &SarifOptions::default()));
}

#[test]
fn sarif_full() {
    let options = SarifOptions {
        source_root: Some("src/main/java".to_owned()),
        information_uri: Some("https://example.invalid/lockstep".to_owned()),
        ..SarifOptions::default()
    };
    insta::assert_snapshot!(render_sarif(&full_report(), &rules(), &options));
}

#[test]
fn github_empty() {
    insta::assert_snapshot!(render_github(&empty_report(), &GithubOptions::default()));
}

#[test]
fn github_full() {
    insta::assert_snapshot!(render_github(&full_report(), &GithubOptions::default()));
}

#[test]
fn github_with_source_root() {
    let options = GithubOptions {
        source_root: Some("app/src/main/java/".to_owned()),
        ..GithubOptions::default()
    };
    let out = render_github(&single_report(), &options);
    assert!(
        out.starts_with("::error file=app/src/main/java/A.java,line=3,title=lockstep data-race (medium confidence)::"),
        "{out}"
    );
}

#[test]
fn output_is_identical_for_any_production_order() {
    let base = full_report();
    let expected = all_formats(&base);
    for findings in permutations(&base.findings) {
        for problems in permutations(&base.problems) {
            let shuffled = Report {
                findings: findings.clone(),
                problems,
                ..base.clone()
            };
            assert_eq!(all_formats(&shuffled), expected);
        }
    }
}

#[test]
fn normalize_sorts_and_dedups() {
    let base = full_report();
    let mut canonical = base.clone();
    canonical.normalize();
    // One exact duplicate in the fixture.
    assert_eq!(canonical.findings.len(), base.findings.len() - 1);

    // Same result from every starting order, and idempotent.
    for findings in permutations(&base.findings) {
        let mut shuffled = Report {
            findings,
            ..base.clone()
        };
        shuffled.normalize();
        assert_eq!(shuffled, canonical);
        shuffled.normalize();
        assert_eq!(shuffled, canonical);
    }

    // Canonical order: by package/file, then class, then line, then rule.
    let order: Vec<(String, Option<u32>, &str)> = canonical
        .findings
        .iter()
        .map(|f| (f.location.position(), f.location.line, f.rule.as_str()))
        .collect();
    let expected: Vec<(String, Option<u32>, &str)> = vec![
        ("Main.java:5".to_owned(), Some(5), "stale-value"),
        ("Cache.java:31".to_owned(), Some(31), "stale-value"),
        ("Counter.java:12".to_owned(), Some(12), "data-race"),
        ("Registry.java".to_owned(), None, "data-race"),
        ("Segment.java:9".to_owned(), Some(9), "reacquired-lock"),
        (
            "org/gen/Proxy$1.class".to_owned(),
            None,
            "atomicity-violation",
        ),
    ];
    assert_eq!(order, expected);

    // Rendering the normalized report changes nothing.
    assert_eq!(all_formats(&canonical), all_formats(&base));
    // Related locations keep the detector's order.
    let segment = &canonical.findings[4];
    assert_eq!(segment.related[0].message, "first acquisition of `point`");
}

#[test]
fn counts_and_exit_codes() {
    let report = full_report();
    let by_rule = report.counts_by_rule();
    assert_eq!(by_rule.get("data-race"), Some(&2));
    assert_eq!(by_rule.get("stale-value"), Some(&2));
    assert_eq!(by_rule.values().sum::<u64>(), 6);
    assert_eq!(report.exit_code(), lockstep_report::EXIT_FINDINGS);
    assert_eq!(empty_report().exit_code(), lockstep_report::EXIT_OK);
}

#[test]
fn format_names_round_trip() {
    for format in OutputFormat::ALL {
        assert_eq!(format.name().parse::<OutputFormat>(), Ok(format));
    }
    let err = "xml".parse::<OutputFormat>().unwrap_err();
    assert!(err
        .to_string()
        .contains("text, concise, json, sarif, github"));
}

#[test]
fn sarif_rule_indexes_point_at_their_rules() {
    let sarif = render_sarif(&full_report(), &rules(), &SarifOptions::default());
    let log: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "atomicity-violation",
            "data-race",
            "reacquired-lock",
            "stale-value"
        ]
    );
    assert_eq!(rules[1]["name"], "DataRace", "first duplicate wins");
    for result in run["results"].as_array().unwrap() {
        let index = usize::try_from(result["ruleIndex"].as_u64().unwrap()).unwrap();
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // Skip `[`, parameters, and the final `m`.
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The text, concise and GitHub examples in `docs/output-formats.md` are
/// real output for subsets of the fixture report.
#[test]
fn docs_examples_are_rendered_output() {
    const DOCS: &str = include_str!("../../../docs/output-formats.md");
    let blocks: Vec<&str> = DOCS
        .split("```text\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .collect();
    assert_eq!(blocks.len(), 3, "text, concise and github examples");

    let all = common::findings();
    let vendor = common::problems()[0].clone();
    let pick = |findings: Vec<lockstep_report::Finding>| Report {
        findings,
        problems: vec![vendor.clone()],
        ..empty_report()
    };
    // reacquired-lock and the <clinit> race.
    let first = pick(vec![all[4].clone(), all[5].clone()]);
    assert_eq!(render_text(&first, &TextOptions::default()), blocks[0]);
    let concise = render_text(
        &first,
        &TextOptions {
            concise: true,
            ..TextOptions::default()
        },
    );
    assert!(concise.starts_with(blocks[1]), "{concise}");
    // The counter race.
    let second = pick(vec![all[2].clone()]);
    let github = render_github(&second, &GithubOptions::default());
    // The docs leave out the long note line to keep the example short.
    let github = github.replace(
        "%0Anote: `increment` is reachable from `Worker.run`, which runs on a new thread",
        "",
    );
    assert_eq!(github, blocks[2]);
}

/// A race in `com.example.Counter` with its source handed in: the text
/// shows the marked line of the finding and of its related access; SARIF
/// and `github` use the repository-relative path given for the file.
fn counter_with_sources() -> (Report, lockstep_report::Sources) {
    use lockstep_report::{Finding, Location, Severity, Sources};
    let mut report = Report::new("0.0.0-test");
    let at = |method: &str, line: u32| {
        Location::in_method("com.example.Counter", method, "()V")
            .with_file("Counter.java")
            .with_line(line)
    };
    report.findings.push(
        Finding::new(
            "data-race",
            Severity::Warning,
            "`count` is written without holding `this`",
            at("increment", 5),
        )
        .with_field("com.example.Counter.count")
        .with_related(at("get", 8), "read under `this`"),
    );
    let source = "package com.example;\n\nclass Counter {\n    int count;\n    void increment() { count++; }\n\n    synchronized int get() {\n        return count;\n    }\n}\n";
    let mut sources = Sources::default();
    sources
        .texts
        .insert("com/example/Counter.java".into(), source.into());
    sources.repo_paths.insert(
        "com/example/Counter.java".into(),
        "app/src/main/java/com/example/Counter.java".into(),
    );
    (report, sources)
}

#[test]
fn text_with_sources() {
    let (report, sources) = counter_with_sources();
    let options = RenderOptions {
        sources,
        ..RenderOptions::default()
    };
    insta::assert_snapshot!(render(&report, OutputFormat::Text, &options));
}

#[test]
fn sarif_and_github_use_the_repository_relative_source_path() {
    let (report, sources) = counter_with_sources();
    let options = RenderOptions {
        sources,
        source_root: Some("ignored/when/found".into()),
        ..RenderOptions::default()
    };
    let sarif = render(&report, OutputFormat::Sarif, &options);
    assert!(
        sarif.contains("\"uri\": \"app/src/main/java/com/example/Counter.java\""),
        "{sarif}"
    );
    let github = render(&report, OutputFormat::Github, &options);
    assert!(
        github.starts_with("::warning file=app/src/main/java/com/example/Counter.java,line=5"),
        "{github}"
    );
    // Without sources the text is what it always was.
    let plain = render(&report, OutputFormat::Text, &RenderOptions::default());
    assert!(!plain.contains("count++"), "{plain}");
}
