//! The matching rules of `lockstep_evidence` on small hand-built runs:
//! which run finding is the same race or cycle, which sites count as
//! executed, and how several runs combine. (End to end, on real runs of
//! Java fixtures: `crates/lockstep/tests/evidence.rs`.)

use lockstep_evidence::executed::Executed;
use lockstep_evidence::{attach, Run, Runs};
use lockstep_report::{EvidenceStatus, Finding, Location, Severity};
use lockstep_trace::{Chunk, Event, Field, LockKind, Site, Trace};

fn at(method: &str, line: u32) -> Location {
    Location::in_method("p.C", method, "()V")
        .with_file("C.java")
        .with_line(line)
}

/// A static race on `p.C.x` between `m:10` and `n:20`.
fn static_race() -> Finding {
    Finding::new("data-race", Severity::Warning, "race", at("m", 10))
        .with_field("p.C.x")
        .with_related(at("n", 20), "read")
}

/// A static deadlock between acquisitions at `a:5` and `b:7`.
fn static_deadlock() -> Finding {
    Finding::new("deadlock", Severity::Warning, "deadlock", at("a", 5))
        .with_related(at("a", 5), "takes B holding A")
        .with_related(at("b", 7), "takes A holding B")
}

/// A trace whose sites are `(method, line)` and whose one thread runs `events`.
fn trace(sites: &[(&str, u32)], events: Vec<Event>) -> Trace {
    let mut t = Trace::default();
    for (i, (method, line)) in sites.iter().enumerate() {
        t.tables.sites.insert(
            i as u32,
            Site {
                class: "p/C".into(),
                method: (*method).into(),
                descriptor: "()V".into(),
                line: Some(*line),
                file: Some("C.java".into()),
            },
        );
    }
    t.tables.fields.insert(
        0,
        Field {
            class: "p/C".into(),
            name: "x".into(),
            descriptor: "I".into(),
            is_static: false,
            is_volatile: false,
            is_final: false,
        },
    );
    t.chunks.push(Chunk {
        thread: 0,
        index: 0,
        events,
    });
    t
}

fn read(site: u32) -> Event {
    Event::Read {
        obj: 1,
        field: 0,
        site,
    }
}

fn acquire(site: u32) -> Event {
    Event::Acquire {
        lock: 9,
        seq: 0,
        kind: LockKind::Monitor,
        site,
    }
}

fn run_of(findings: Vec<Finding>, t: &Trace) -> Run {
    Run {
        findings,
        executed: Executed::of(t),
    }
}

fn judged(finding: Finding, runs: Vec<Run>) -> lockstep_report::Evidence {
    let mut findings = vec![finding];
    attach(
        &mut findings,
        &Runs {
            runs,
            notes: Vec::new(),
        },
    );
    findings.remove(0).evidence.expect("a matched rule")
}

#[test]
fn a_run_race_between_the_same_sites_either_way_round_is_observed() {
    let empty = trace(&[], Vec::new());
    // The run names the accesses the other way round, with the field's
    // declaring class as the trace has it.
    let run_race = Finding::new("data-race", Severity::Warning, "run race", at("n", 20))
        .with_provenance("run")
        .with_field("p.Sub.x")
        .with_related(at("m", 10), "earlier write");
    let e = judged(static_race(), vec![run_of(vec![run_race], &empty)]);
    assert_eq!(e.status, EvidenceStatus::Observed);
    assert_eq!(
        e.detail,
        "a run saw the accesses at C.java:10 and C.java:20 unordered"
    );
}

#[test]
fn a_run_race_on_another_field_or_line_is_not_the_finding() {
    let empty = trace(&[], Vec::new());
    let other_field = Finding::new("data-race", Severity::Warning, "r", at("n", 20))
        .with_field("p.C.y")
        .with_related(at("m", 10), "w");
    let other_line = Finding::new("data-race", Severity::Warning, "r", at("n", 21))
        .with_field("p.C.x")
        .with_related(at("m", 10), "w");
    let e = judged(
        static_race(),
        vec![run_of(vec![other_field, other_line], &empty)],
    );
    assert_eq!(e.status, EvidenceStatus::NotReached);
    assert_eq!(e.detail, "neither access ran");
}

#[test]
fn both_sites_executed_without_a_race_is_reached() {
    let t = trace(&[("m", 10), ("n", 20)], vec![read(0), read(1)]);
    let e = judged(static_race(), vec![run_of(Vec::new(), &t)]);
    assert_eq!(e.status, EvidenceStatus::Reached);
    assert_eq!(e.in_runs, 1);
}

#[test]
fn one_site_executed_says_which() {
    let t = trace(&[("m", 10), ("n", 20)], vec![read(1)]);
    let e = judged(static_race(), vec![run_of(Vec::new(), &t)]);
    assert_eq!(e.status, EvidenceStatus::NotReached);
    assert_eq!(
        e.detail,
        "only the racing access at C.java:20 ran, not the one at C.java:10"
    );
}

#[test]
fn sites_in_the_table_but_not_in_events_did_not_run() {
    let t = trace(&[("m", 10), ("n", 20)], Vec::new());
    let e = judged(static_race(), vec![run_of(Vec::new(), &t)]);
    assert_eq!(e.status, EvidenceStatus::NotReached);
}

#[test]
fn the_best_run_wins_and_says_in_how_many() {
    let ran = trace(&[("m", 10), ("n", 20)], vec![read(0), read(1)]);
    let idle = trace(&[], Vec::new());
    let e = judged(
        static_race(),
        vec![run_of(Vec::new(), &idle), run_of(Vec::new(), &ran)],
    );
    assert_eq!(e.status, EvidenceStatus::Reached);
    assert_eq!((e.runs, e.in_runs), (2, 1));
    assert!(e.detail.ends_with("(in 1 of 2 runs)"), "{}", e.detail);
}

#[test]
fn a_run_cycle_over_the_same_acquisitions_is_observed() {
    let empty = trace(&[], Vec::new());
    let cycle = Finding::new("deadlock", Severity::Warning, "potential", at("b", 7))
        .with_provenance("run")
        .with_related(at("b", 7), "thread A takes")
        .with_related(at("a", 5), "thread B takes");
    let e = judged(static_deadlock(), vec![run_of(vec![cycle], &empty)]);
    assert_eq!(e.status, EvidenceStatus::Observed);
    let hang = Finding::new("deadlock", Severity::Error, "hung", at("a", 5))
        .with_related(at("a", 5), "waits")
        .with_related(at("b", 7), "waits");
    let e = judged(static_deadlock(), vec![run_of(vec![hang], &empty)]);
    assert_eq!(e.detail, "the run deadlocked on this cycle");
}

#[test]
fn a_run_cycle_with_another_acquisition_is_not_the_finding() {
    let t = trace(&[("a", 5), ("b", 7)], vec![acquire(0)]);
    let three = Finding::new("deadlock", Severity::Warning, "potential", at("b", 7))
        .with_related(at("b", 7), "t")
        .with_related(at("a", 5), "t")
        .with_related(at("c", 9), "t");
    let e = judged(static_deadlock(), vec![run_of(vec![three], &t)]);
    assert_eq!(e.status, EvidenceStatus::NotReached);
    assert_eq!(e.detail, "only the acquisition at C.java:5 ran");
}

#[test]
fn rules_without_a_matcher_and_run_findings_get_no_evidence() {
    let t = trace(&[], Vec::new());
    let mut findings = vec![
        Finding::new("stale-value", Severity::Warning, "stale", at("m", 10)),
        static_race().with_provenance("run"),
    ];
    attach(
        &mut findings,
        &Runs {
            runs: vec![run_of(Vec::new(), &t)],
            notes: Vec::new(),
        },
    );
    assert!(findings.iter().all(|f| f.evidence.is_none()));
}

/// A static `non-atomic-method` finding on `p.C.m()V`.
fn static_non_atomic() -> Finding {
    Finding::new(
        "non-atomic-method",
        Severity::Warning,
        "not atomic",
        at("m", 10),
    )
}

/// A run's atomicity finding on transaction `p.C.{method}`.
fn run_non_atomic(method: &str) -> Finding {
    Finding::new("non-atomic-method", Severity::Warning, "run", at("x", 3))
        .with_provenance("run")
        .with_note(format!("transaction: `p.C.{method}` in thread `t`"))
        .with_note("found by: block-based")
}

/// A trace whose one method record is `p/C.{name}()V`, entered if `entered`.
fn trace_with_method(name: &str, entered: bool) -> Trace {
    let events = if entered {
        vec![Event::Enter { method: 0 }, Event::Exit { method: 0 }]
    } else {
        Vec::new()
    };
    let mut t = trace(&[], events);
    t.tables.methods.insert(
        0,
        lockstep_trace::Method {
            class: "p/C".into(),
            name: name.into(),
            descriptor: "()V".into(),
            flags: None,
        },
    );
    t
}

#[test]
fn a_run_violation_of_the_same_transaction_is_observed() {
    let t = trace_with_method("m", true);
    let e = judged(
        static_non_atomic(),
        vec![run_of(vec![run_non_atomic("m")], &t)],
    );
    assert_eq!(e.status, EvidenceStatus::Observed);
    assert!(e.detail.contains("block-based"), "{}", e.detail);
    // A violation of another method is not this finding: `m` ran, so reached.
    let e = judged(
        static_non_atomic(),
        vec![run_of(vec![run_non_atomic("mm")], &t)],
    );
    assert_eq!(e.status, EvidenceStatus::Reached);
}

#[test]
fn a_method_that_never_ran_is_not_reached() {
    let other = trace_with_method("n", true);
    let e = judged(static_non_atomic(), vec![run_of(Vec::new(), &other)]);
    assert_eq!(e.status, EvidenceStatus::NotReached);
    // In the method table but never entered.
    let idle = trace_with_method("m", false);
    let e = judged(static_non_atomic(), vec![run_of(Vec::new(), &idle)]);
    assert_eq!(e.status, EvidenceStatus::NotReached);
}

#[test]
fn atomicity_checkers_run_only_for_non_atomic_method_findings() {
    use lockstep_evidence::atomicity::spec_for;
    assert!(!spec_for(&[static_race()]).any());
    let spec = spec_for(&[static_non_atomic(), static_non_atomic(), static_race()]);
    assert!(spec.blocks && spec.serializability);
    assert!(!spec.reduction_online && !spec.reduction_offline);
    assert_eq!(spec.patterns, ["p.C.m"]);
}
