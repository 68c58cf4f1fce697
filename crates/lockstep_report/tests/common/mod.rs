//! Hand-made reports shared by the integration tests.
//!
//! They cover the shapes renderers must handle: no findings, several rules in
//! scrambled order, an exact duplicate, a finding without a line, one without
//! a `SourceFile`, related locations, notes and help, inner classes with `$`,
//! constructors and static initializers, the default package, characters
//! that need escaping, and unreadable inputs.

#![allow(dead_code)] // each test binary uses a different subset

use lockstep_report::{
    Confidence, Finding, InputProblem, Location, Report, RuleMeta, Severity, Summary,
};

pub const VERSION: &str = "0.1.0";

pub fn empty_report() -> Report {
    Report {
        summary: Summary {
            classes: 120,
            methods: 840,
            open_program: false,
            scope: None,
        },
        ..Report::new(VERSION)
    }
}

/// Findings in deliberately non-canonical order, with one exact duplicate.
pub fn findings() -> Vec<Finding> {
    let race = Finding::new(
        "data-race",
        Severity::Warning,
        "`count` is written without holding `this`, but read under `this` elsewhere",
        Location::in_method("com.example.Counter", "increment", "()V")
            .with_file("Counter.java")
            .with_line(12),
    )
    .with_field("com.example.Counter.count")
    .with_lock("this")
    .with_related(
        Location::in_method("com.example.Counter", "get", "()I")
            .with_file("Counter.java")
            .with_line(20),
        "read of `count` while holding `this`",
    )
    .with_note("`increment` is reachable from `Worker.run`, which runs on a new thread")
    .with_help("make `increment` synchronized")
    .with_confidence(Confidence::High);

    let reacquired = Finding::new(
        "reacquired-lock",
        Severity::Warning,
        "`point` is locked and unlocked twice while `this` is held; another thread may change `point` in between",
        Location::in_method(
            "com.example.Segment",
            "contains",
            "(Lcom/example/Point;)Z",
        )
        .with_file("Segment.java")
        .with_line(9),
    )
    .with_lock("point")
    .with_related(
        Location::in_method(
            "com.example.Segment",
            "contains",
            "(Lcom/example/Point;)Z",
        )
        .with_file("Segment.java")
        .with_line(8),
        "first acquisition of `point`",
    )
    .with_related(
        Location::in_method(
            "com.example.Segment",
            "distanceTo",
            "(Lcom/example/Point;[DI)D",
        )
        .with_file("Segment.java")
        .with_line(9),
        "second acquisition of `point`",
    )
    .with_note("context lock `this` taken at Segment.java:7 (synchronized method)")
    .with_help("hold `point` across both calls");

    let stale_in_ctor = Finding::new(
        "stale-value",
        Severity::Error,
        "`name` is read before the constructor of `Cache$Loader` publishes it",
        Location::in_method(
            "com.example.Cache$Loader",
            "<init>",
            "(Lcom/example/Cache;Ljava/lang/String;)V",
        )
        .with_file("Cache.java")
        .with_line(31),
    )
    .with_field("com.example.Cache$Loader.name");

    // No LineNumberTable: position is the file name alone.
    let clinit_no_line = Finding::new(
        "data-race",
        Severity::Note,
        "static field `INSTANCE` is published without a happens-before edge",
        Location::in_method("com.example.Registry", "<clinit>", "()V").with_file("Registry.java"),
    )
    .with_field("com.example.Registry.INSTANCE");

    // No SourceFile attribute and no line: position is the class file path.
    let no_source = Finding::new(
        "atomicity-violation",
        Severity::Warning,
        "check-then-act on `map`: 50% of callers race, key=value, a:b",
        Location::in_method("org.gen.Proxy$1", "run", "()V"),
    )
    .with_field("org.gen.Proxy.map")
    .with_related(
        Location::in_class("org.gen.Proxy"),
        "`map` is shared by every `Proxy` instance",
    )
    .with_confidence(Confidence::Low);

    // Default package and a malformed descriptor (shown verbatim).
    let default_pkg = Finding::new(
        "stale-value",
        Severity::Note,
        "`args` may be stale",
        Location::in_method("Main", "main", "([Ljava/lang/String;)V")
            .with_file("Main.java")
            .with_line(5),
    )
    .with_related(
        Location::in_method("Main", "helper", "(Lbroken")
            .with_file("Main.java")
            .with_line(11),
        "written here",
    );

    vec![
        stale_in_ctor,
        no_source,
        race.clone(),
        default_pkg,
        reacquired,
        clinit_no_line,
        race,
    ]
}

pub fn problems() -> Vec<InputProblem> {
    vec![
        InputProblem::new("lib/vendor.jar", "bad constant pool tag 99 at index 14")
            .with_entry("com/vendor/Odd.class"),
        InputProblem::new(
            "build/classes/Broken.class",
            "truncated class file (12 bytes)",
        ),
    ]
}

/// The full report: every finding shape plus input problems.
pub fn full_report() -> Report {
    Report {
        findings: findings(),
        problems: problems(),
        summary: Summary {
            classes: 120,
            methods: 840,
            open_program: true,
            scope: None,
        },
        tool_version: VERSION.to_owned(),
        suppressed: Vec::new(),
        below_min_confidence: None,
        evidence_runs: None,
        budget_cuts: None,
        budget_name: None,
    }
}

/// A report with exactly one finding, to check singular wording.
pub fn single_report() -> Report {
    let mut report = Report::new(VERSION);
    report.summary = Summary {
        classes: 1,
        methods: 1,
        open_program: false,
        scope: None,
    };
    report.findings.push(Finding::new(
        "data-race",
        Severity::Error,
        "racy write",
        Location::in_method("A", "run", "()V")
            .with_file("A.java")
            .with_line(3),
    ));
    report
}

pub fn rules() -> Vec<RuleMeta> {
    // Out of order, with a duplicate id, and without `atomicity-violation`
    // (which the report uses) to exercise the fallback rule entry.
    vec![
        RuleMeta::new(
            "stale-value",
            "StaleValue",
            "A value read under a lock is used after the lock is released",
        ),
        RuleMeta::new(
            "data-race",
            "DataRace",
            "A field is accessed by several threads without consistent locking",
        )
        .with_help_uri("https://example.invalid/rules/data-race"),
        RuleMeta::new("data-race", "DataRaceDuplicate", "ignored duplicate"),
        RuleMeta::new(
            "reacquired-lock",
            "ReacquiredLock",
            "A lock is released and taken again inside one atomic-looking operation",
        ),
    ]
}

/// Deterministic permutations of a slice (rotations and reversals), enough
/// to put every element first at least once.
pub fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    let mut out = Vec::new();
    for shift in 0..items.len().max(1) {
        let mut rotated = items.to_vec();
        rotated.rotate_left(shift);
        out.push(rotated.clone());
        rotated.reverse();
        out.push(rotated);
    }
    out
}
