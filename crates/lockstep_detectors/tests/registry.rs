//! The rule registry: every rule declared once, with a stable id, a
//! detector that reports it, and documentation with the same sections.

use lockstep_detectors::{all, all_rules, rule, RuleId, RuleSet, DOC_SECTIONS};

#[test]
fn ids_round_trip_and_are_sorted() {
    let ids: Vec<&str> = RuleId::ALL.iter().map(|r| r.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "RuleId::ALL is in id order");
    for r in RuleId::ALL {
        assert_eq!(r.as_str().parse::<RuleId>(), Ok(r));
        assert_eq!(r.meta().id, r, "{r}'s metadata names another rule");
        assert_eq!(rule(r.as_str()).map(|m| m.id), Some(r));
    }
    assert!("no-such-rule".parse::<RuleId>().is_err());
}

#[test]
fn every_rule_has_exactly_one_detector() {
    for r in RuleId::ALL {
        let reporting: Vec<_> = all()
            .into_iter()
            .filter(|d| d.rules().contains(&r))
            .collect();
        assert_eq!(
            reporting.len(),
            1,
            "{r} is reported by {} detectors",
            reporting.len()
        );
    }
}

#[test]
fn every_rule_documents_the_same_sections_in_order() {
    for meta in all_rules() {
        let id = meta.id.as_str();
        assert!(
            meta.docs.starts_with(&format!("# {id}\n")),
            "{id}: docs must start with `# {id}`"
        );
        let mut at = 0;
        for section in DOC_SECTIONS {
            let found = meta.docs[at..]
                .lines()
                .position(|l| l == section)
                .unwrap_or_else(|| panic!("{id}: no `{section}` after the previous section"));
            at += meta.docs[at..]
                .lines()
                .take(found + 1)
                .map(|l| l.len() + 1)
                .sum::<usize>();
        }
        assert!(!meta.summary.is_empty() && !meta.name.is_empty(), "{id}");
    }
}

#[test]
fn selection() {
    // Today blocking-under-lock and wait-notify are on by default (their
    // samples are at least 80% real; the others wait for theirs, see README).
    let defaults: Vec<RuleId> = RuleSet::defaults().iter().collect();
    assert_eq!(
        defaults,
        vec![RuleId::BlockingUnderLock, RuleId::WaitNotify]
    );
    let set = RuleSet::from_selection(
        &["data-race".into(), "stale-value".into()],
        &["stale-value".into()],
    )
    .unwrap();
    assert_eq!(set.iter().collect::<Vec<_>>(), vec![RuleId::DataRace]);
    let err = RuleSet::from_selection(&["nope".into()], &[]).unwrap_err();
    assert!(err.to_string().contains("unknown rule `nope`"), "{err}");
    assert!(err.to_string().contains("data-race"), "{err}");
    assert_eq!(RuleSet::all().iter().count(), RuleId::ALL.len());
    let all = RuleSet::from_selection(&["all".into()], &[]).unwrap();
    assert_eq!(all, RuleSet::all());
    let trimmed = RuleSet::from_selection(&[" data-race ".into(), "".into()], &[]).unwrap();
    assert_eq!(trimmed.iter().collect::<Vec<_>>(), vec![RuleId::DataRace]);
    let none = RuleSet::from_selection(
        &[],
        &["wait-notify".into(), "blocking-under-lock".into()],
    )
    .unwrap_err();
    assert!(none.to_string().contains("no rule left to run"), "{none}");
    let all_but = RuleSet::from_selection(&["all".into()], &["data-race".into()]).unwrap();
    assert!(!all_but.contains(RuleId::DataRace) && all_but.contains(RuleId::StaleValue));
}
