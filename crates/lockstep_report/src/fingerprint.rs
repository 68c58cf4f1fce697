//! A finding's fingerprint: a name for "the same finding" that survives
//! unrelated edits, for baselines and code scanning (SARIF
//! `partialFingerprints`).
//!
//! It covers the rule, the class, the method (name and descriptor), the
//! field, the lock, and the message with every digit removed: the message
//! names the kind of access and the methods involved, while digits are
//! line numbers, positions and synthetic names (`lambda$main$0`) that move
//! when code is edited elsewhere. Line numbers and related locations are
//! not part of it. The hash is FNV-1a (64-bit) run twice with different
//! offsets, written as 32 hex digits: stable across platforms and releases
//! (changing it would invalidate every baseline; version it through
//! [`FINGERPRINT_KEY`] if it ever must change).
//!
//! Findings of one report can share that hash (the same race reported for
//! two objects whose descriptions differ only in line numbers). The first
//! of them in canonical order keeps it; the next ones hash it again with
//! their occurrence number ([`Finding::occurrence`]), so every fingerprint
//! of a report is unique and code scanning keeps each result apart.

use crate::model::Finding;

/// The `partialFingerprints` key, and the version of the recipe.
pub const FINGERPRINT_KEY: &str = "lockstep/v1";

const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;
const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
/// A second, independent offset (the FNV offset of a different seed) so
/// the two halves do not collide together.
const SECOND_OFFSET: u64 = 0x6C62_272E_07BB_0142;

/// The fingerprint of `finding`: 32 lowercase hex digits.
pub fn fingerprint(finding: &Finding) -> String {
    let base = base_fingerprint(finding);
    if finding.occurrence == 0 {
        return base;
    }
    let occurrence = finding.occurrence.to_string();
    let parts = [base.as_str(), occurrence.as_str()];
    format!(
        "{:016x}{:016x}",
        fnv(FNV_OFFSET, &parts),
        fnv(SECOND_OFFSET, &parts)
    )
}

/// The hash of the rule, location and digit-free message alone.
fn base_fingerprint(finding: &Finding) -> String {
    let loc = &finding.location;
    let message: String = finding
        .message
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .collect();
    let parts = [
        finding.rule.as_str(),
        loc.class.as_str(),
        loc.method.as_deref().unwrap_or(""),
        loc.descriptor.as_deref().unwrap_or(""),
        finding.field.as_deref().unwrap_or(""),
        finding.lock.as_deref().unwrap_or(""),
        message.as_str(),
    ];
    format!(
        "{:016x}{:016x}",
        fnv(FNV_OFFSET, &parts),
        fnv(SECOND_OFFSET, &parts)
    )
}

/// FNV-1a over the parts, each followed by a 0 byte so that `("ab", "c")`
/// and `("a", "bc")` differ.
fn fnv(offset: u64, parts: &[&str]) -> u64 {
    let mut hash = offset;
    for part in parts {
        for byte in part.bytes().chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(FNV_PRIME);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Location, Severity};

    fn race(line: u32, message: &str) -> Finding {
        Finding::new(
            "data-race",
            Severity::Warning,
            message,
            Location::in_method("a.B", "run", "()V")
                .with_file("B.java")
                .with_line(line),
        )
        .with_field("a.B.count")
        .with_related(Location::in_class("a.C").with_line(line + 3), "other")
    }

    #[test]
    fn lines_do_not_count_but_kinds_and_rules_do() {
        let base = race(10, "write in run (B.java:12)");
        assert_eq!(
            fingerprint(&base),
            fingerprint(&race(40, "write in run (B.java:57)"))
        );
        assert_ne!(
            fingerprint(&base),
            fingerprint(&race(10, "read in run (B.java:12)"))
        );
        let mut other_rule = base.clone();
        other_rule.rule = "stale-value".into();
        assert_ne!(fingerprint(&base), fingerprint(&other_rule));
        let mut other_field = base.clone();
        other_field.field = Some("a.B.total".into());
        assert_ne!(fingerprint(&base), fingerprint(&other_field));
        // Pinned: a change here breaks every user's baseline.
        assert_eq!(fingerprint(&base).len(), 32);
        assert_eq!(fingerprint(&base), fingerprint(&base.clone()));
    }

    #[test]
    fn findings_sharing_the_hash_get_unique_fingerprints_that_survive_suppression() {
        use crate::model::{Report, SuppressedFinding, Suppression};
        // Two reports of one race, told apart only by line numbers (two
        // objects of one class made at lines 46 and 49), and one other.
        let first = race(10, "write on the object made at B.java:46");
        let second = race(10, "write on the object made at B.java:49");
        let other = race(10, "read in run (B.java:12)");
        let mut report = Report::new("1");
        report.findings = vec![second.clone(), other.clone(), first.clone()];
        report.normalize();
        report.number_occurrences();
        let prints: Vec<String> = report
            .canonical_findings()
            .into_iter()
            .map(fingerprint)
            .collect();
        let mut unique = prints.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 3, "{prints:?}");
        // The first in canonical order keeps the plain hash (baselines
        // written before keep matching it); the second, whose plain hash
        // is the same, gets another.
        assert_eq!(fingerprint(&first), fingerprint(&second));
        assert!(prints.contains(&fingerprint(&first)));
        assert!(prints.contains(&fingerprint(&other)));
        // Moving the first to the suppressed list (a baseline) and
        // numbering again changes no fingerprint.
        let moved = report
            .findings
            .iter()
            .position(|f| f.message == first.message)
            .unwrap();
        let finding = report.findings.remove(moved);
        report.suppressed.push(SuppressedFinding {
            finding,
            suppression: Suppression {
                kind: "baseline".into(),
                reason: "listed in b.json".into(),
            },
        });
        report.number_occurrences();
        let mut after: Vec<String> = report
            .canonical_findings()
            .into_iter()
            .map(fingerprint)
            .collect();
        after.extend(
            report
                .canonical_suppressed()
                .into_iter()
                .map(|s| fingerprint(&s.finding)),
        );
        after.sort();
        assert_eq!(after, unique);
    }

    #[test]
    fn part_boundaries_matter() {
        assert_ne!(fnv(FNV_OFFSET, &["ab", "c"]), fnv(FNV_OFFSET, &["a", "bc"]));
    }
}
