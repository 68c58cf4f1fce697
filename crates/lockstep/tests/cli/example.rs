//! The bundled example (`examples/inventory`) in every output format.

use serde_json::{json, Value};

use crate::common::*;

/// The one finding the example is there to show, as every run must report it.
fn assert_zone_finding(finding: &Value) {
    let zone = example_source("Zone.java");
    let point = example_source("Point.java");
    assert_eq!(finding["rule"], "reacquired-lock");
    assert_eq!(finding["severity"], "warning");
    assert_eq!(finding["class"], "com.example.inventory.Zone");
    assert_eq!(finding["method"], "contains");
    assert_eq!(finding["descriptor"], "(Lcom/example/inventory/Point;)Z");
    assert_eq!(finding["file"], "Zone.java");
    // Reported where `p` is locked the second time.
    assert_eq!(finding["line"], json!(line_of(&zone, "p.getY()")));
    assert_eq!(finding["lock"], "p");
    assert_eq!(finding["field"], Value::Null);
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("`p`") && message.contains("`this`"),
        "{message}"
    );

    let related = finding["related"].as_array().expect("related is an array");
    assert_eq!(related.len(), 3, "{related:#?}");
    // The context lock: `this`, held by the synchronized method.
    let context = &related[0];
    assert_eq!(context["class"], "com.example.inventory.Zone");
    assert_eq!(context["method"], "contains");
    assert_eq!(context["file"], "Zone.java");
    assert_eq!(context["line"], json!(line_of(&zone, "p.getX()")));
    assert!(context["message"].as_str().unwrap().contains("`this`"));
    // The two acquisitions of the witness `p`, in order.
    for (rel, (method, ordinal)) in related[1..]
        .iter()
        .zip([("getX", "first"), ("getY", "second")])
    {
        assert_eq!(rel["class"], "com.example.inventory.Point");
        assert_eq!(rel["method"], method);
        assert_eq!(rel["descriptor"], "()I");
        assert_eq!(rel["file"], "Point.java");
        assert_eq!(
            rel["line"],
            json!(line_of(&point, &format!("int {method}()")))
        );
        let msg = rel["message"].as_str().unwrap();
        assert!(
            msg.starts_with(&format!("{ordinal} acquisition of `p`")),
            "{msg}"
        );
    }
    let notes: Vec<&str> = finding["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(notes.iter().any(|n| n.starts_with("help: ")), "{notes:?}");
}

#[test]
fn json_report_of_the_example() {
    let run = example_json_with_jdk();
    run.expect_code(1);
    assert_eq!(run.stderr, "", "--quiet prints nothing on stderr");
    assert!(run.stdout.ends_with("}\n"), "one trailing newline");
    let report = run.json();
    assert_eq!(report["version"], 1);
    assert_eq!(
        report["tool"],
        json!({ "name": "lockstep", "version": env!("CARGO_PKG_VERSION") })
    );
    let found = findings(&report);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_zone_finding(&found[0]);
    // With the JDK every class resolves: nothing to complain about.
    assert_eq!(problems(&report), &Vec::<Value>::new());
    let summary = &report["summary"];
    assert_eq!(summary["findings"], 1);
    assert_eq!(summary["by_rule"], json!({ "reacquired-lock": 1 }));
    assert_eq!(
        summary["by_severity"],
        json!({ "error": 0, "note": 0, "warning": 1 })
    );
    assert_eq!(summary["classes"], 4);
    // Point 4, Stock 6, Zone 3, Warehouse 5 (main, <init>, three lambdas).
    assert_eq!(summary["methods"], 18);
    assert_eq!(summary["problems"], 0);
    assert_eq!(summary["open_program"], false);
}

#[test]
fn no_jdk_still_finds_the_zone_pattern() {
    // Point is application code, so the finding does not need the JDK.
    let dir = example_dir();
    let (run, report) = check_json(&[dir.as_os_str(), "--no-jdk".as_ref()]);
    run.expect_code(1);
    let found = findings(&report);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_zone_finding(&found[0]);
    assert_eq!(
        found,
        findings(&example_json_with_jdk().json()),
        "the same finding with and without the JDK"
    );
    assert_eq!(report["summary"]["classes"], 4);
    // Without a JDK, JDK super types are expected to be missing: no problems.
    assert_eq!(problems(&report).len(), 0, "{:#?}", problems(&report));
}

#[test]
fn text_report_of_the_example() {
    let dir = example_dir();
    let run = lockstep(["check".as_ref(), dir.as_os_str()]);
    run.expect_code(1);
    let zone = example_source("Zone.java");
    let out = &run.stdout;
    assert!(
        out.starts_with("warning[reacquired-lock]: `p` is locked and unlocked twice"),
        "{out}"
    );
    let at = format!(
        "  --> Zone.java:{} in com.example.inventory.Zone.contains(Point)\n",
        line_of(&zone, "p.getY()")
    );
    assert!(out.contains(&at), "{out}");
    assert!(out.contains("   = lock: p\n"), "{out}");
    assert_eq!(out.matches("   |- ").count(), 3, "{out}");
    assert!(out.contains("   = help: "), "{out}");
    assert!(
        out.ends_with(
            "\nFound 1 finding (1 reacquired-lock; confidence: 1 high) in 4 classes, 18 methods.\n"
        ),
        "{out}"
    );
    assert!(
        !out.contains('\x1b'),
        "no colors when stdout is not a terminal"
    );
    // Without `-o` the summary is in the report; stderr stays empty.
    assert_eq!(run.stderr, "");
}

#[test]
fn concise_report_is_one_line_per_finding() {
    let dir = example_dir();
    let run = lockstep([
        "check".as_ref(),
        dir.as_os_str(),
        "--no-jdk".as_ref(),
        "--format".as_ref(),
        "concise".as_ref(),
    ]);
    run.expect_code(1);
    let zone = example_source("Zone.java");
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("[reacquired-lock]"))
        .collect();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    let prefix = format!(
        "com/example/inventory/Zone.java:{}: warning[reacquired-lock] (high) `p` is locked",
        line_of(&zone, "p.getY()")
    );
    assert!(lines[0].starts_with(&prefix), "{}", lines[0]);
    assert!(
        run.stdout.lines().last().unwrap().starts_with(
            "Found 1 finding (1 reacquired-lock; confidence: 1 high) in 4 classes, 18 methods"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn sarif_report_of_the_example() {
    let dir = example_dir();
    let run = lockstep([
        "check".as_ref(),
        dir.as_os_str(),
        "--no-jdk".as_ref(),
        "--format".as_ref(),
        "sarif".as_ref(),
    ]);
    run.expect_code(1);
    let sarif = run.json();
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(
        sarif["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    let runs = sarif["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "lockstep");
    let rule_ids: Vec<&str> = driver["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        rule_ids,
        [
            "blocking-under-lock",
            "data-race",
            "deadlock",
            "non-atomic-method",
            "reacquired-lock",
            "reacquired-lock-pair",
            "stale-value",
            "wait-notify"
        ]
    );
    let results = runs[0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:#?}");
    let result = &results[0];
    assert_eq!(result["ruleId"], "reacquired-lock");
    assert_eq!(result["ruleIndex"], 4); // rules are listed in id order
    assert_eq!(result["level"], "warning");
    let physical = &result["locations"][0]["physicalLocation"];
    assert_eq!(
        physical["artifactLocation"]["uri"],
        "com/example/inventory/Zone.java"
    );
    assert_eq!(
        physical["region"]["startLine"],
        json!(line_of(&example_source("Zone.java"), "p.getY()"))
    );
    assert_eq!(
        result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
        "com.example.inventory.Zone.contains"
    );
    assert_eq!(result["relatedLocations"].as_array().unwrap().len(), 3);
    assert_eq!(runs[0]["properties"]["classes"], 4);
}

#[test]
fn github_report_of_the_example() {
    let dir = example_dir();
    let run = lockstep([
        "check".as_ref(),
        dir.as_os_str(),
        "--no-jdk".as_ref(),
        "--format".as_ref(),
        "github".as_ref(),
    ]);
    run.expect_code(1);
    let warnings: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("::warning "))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stdout);
    let prefix = format!(
        "::warning file=com/example/inventory/Zone.java,line={},title=lockstep reacquired-lock (high confidence)::`p` is locked",
        line_of(&example_source("Zone.java"), "p.getY()")
    );
    assert!(warnings[0].starts_with(&prefix), "{}", warnings[0]);
    // Multi-line messages are percent-encoded onto the one line.
    assert!(warnings[0].contains("%0A"), "{}", warnings[0]);
    assert!(
        run.stdout
            .lines()
            .last()
            .unwrap()
            .starts_with("Found 1 finding (1 reacquired-lock; confidence: 1 high)"),
        "{}",
        run.stdout
    );
}
