//! Suppressions: a post-pass over the report that moves findings the user
//! has accepted out of the findings into `Report::suppressed`, where they
//! are counted and kept for JSON and SARIF but not shown as text.
//!
//! Three sources, tried in this order (the first that matches is named):
//! * `@SuppressLockstep("rule-id")` (any package, class retention, on a
//!   class, method or field; `"all"` matches every rule). A class's
//!   annotation covers its nested classes (`Outer$Inner`), as
//!   `@SuppressWarnings` does.
//! * SpotBugs' `@SuppressFBWarnings` (or FindBugs' `@SuppressWarnings` in
//!   `edu.umd.cs.findbugs.annotations`) whose pattern, kind or category maps
//!   to a rule ([`SPOTBUGS`]).
//! * `[[suppress]]` patterns of `lockstep.toml` ([`Pattern`]).
//!
//! Annotations are read from the program model's class files; nothing here
//! reads files. Documented in `docs/suppressions.md`.

use lockstep_classfile::{Annotation, ClassFile, ElementValue};
use lockstep_program::Program;
use lockstep_report::{Finding, Report, SuppressedFinding, Suppression};
use serde::Deserialize;

/// SpotBugs bug patterns, kinds (abbreviations) and categories, and the
/// lockstep rules they stand for. A `@SuppressFBWarnings` value matches a
/// rule when it equals one of these.
pub const SPOTBUGS: &[(&str, &[&str])] = &[
    ("IS2_INCONSISTENT_SYNC", &["data-race"]),
    ("IS_FIELD_NOT_GUARDED", &["data-race"]),
    ("IS_INCONSISTENT_SYNC", &["data-race"]),
    ("IS", &["data-race"]),
    ("IS2", &["data-race"]),
    (
        "AT_OPERATION_SEQUENCE_ON_CONCURRENT_ABSTRACTION",
        &["non-atomic-method"],
    ),
    (
        "AT_NONATOMIC_OPERATIONS_ON_SHARED_VARIABLE",
        &["non-atomic-method"],
    ),
    ("AT_NONATOMIC_64BIT_PRIMITIVE", &["non-atomic-method"]),
    ("AT", &["non-atomic-method"]),
    ("VO_VOLATILE_INCREMENT", &["non-atomic-method"]),
    (
        "MT_CORRECTNESS",
        &[
            "data-race",
            "non-atomic-method",
            "stale-value",
            "reacquired-lock",
            "reacquired-lock-pair",
        ],
    ),
];

/// A `[[suppress]]` entry of `lockstep.toml`. Every given key must match;
/// `class`, `method` and `field` are globs where `*` matches any run of
/// characters (`com.example.legacy.*`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    /// A rule id, or `*`/absent for every rule.
    pub rule: Option<String>,
    /// Binary class name with dots, `pkg.Outer$Inner`.
    pub class: Option<String>,
    /// Method name.
    pub method: Option<String>,
    /// Field, `pkg.Cls.count`.
    pub field: Option<String>,
    /// Why, shown in JSON and SARIF.
    pub reason: Option<String>,
}

impl Pattern {
    fn matches(&self, finding: &Finding) -> bool {
        let loc = &finding.location;
        let rule_ok = self
            .rule
            .as_deref()
            .is_none_or(|r| r == "*" || r == finding.rule);
        let glob_ok = |pattern: &Option<String>, value: Option<&str>| match pattern {
            None => true,
            Some(p) => value.is_some_and(|v| glob(p, v)),
        };
        rule_ok
            && glob_ok(&self.class, Some(&loc.class))
            && glob_ok(&self.method, loc.method.as_deref())
            && glob_ok(&self.field, finding.field.as_deref())
    }
}

/// `*` matches any run of characters; everything else itself.
fn glob(pattern: &str, text: &str) -> bool {
    lockstep_report::glob_matches(pattern, text)
}

/// Moves every finding matched by an annotation in `program` or by one of
/// `patterns` from `report.findings` to `report.suppressed`.
pub fn apply(report: &mut Report, program: &Program, patterns: &[Pattern]) {
    let findings = std::mem::take(&mut report.findings);
    for finding in findings {
        let suppression =
            by_annotation(&finding, program).or_else(|| by_pattern(&finding, patterns));
        match suppression {
            Some(suppression) => report.suppressed.push(SuppressedFinding {
                finding,
                suppression,
            }),
            None => report.findings.push(finding),
        }
    }
}

fn by_pattern(finding: &Finding, patterns: &[Pattern]) -> Option<Suppression> {
    let (index, pattern) = patterns
        .iter()
        .enumerate()
        .find(|(_, p)| p.matches(finding))?;
    let reason = match &pattern.reason {
        Some(reason) => format!("lockstep.toml [[suppress]] #{}: {reason}", index + 1),
        None => format!("lockstep.toml [[suppress]] #{}", index + 1),
    };
    Some(Suppression {
        kind: "config".into(),
        reason,
    })
}

/// The first annotation on the finding's field, method, class or an
/// enclosing class that suppresses its rule.
fn by_annotation(finding: &Finding, program: &Program) -> Option<Suppression> {
    let rule = finding.rule.as_str();
    let loc = &finding.location;
    let class_of = |binary: &str| {
        let id = program.class_by_name(&binary.replace('.', "/"))?;
        Some(&program.try_class(id)?.file)
    };
    let mut places: Vec<(String, &[Annotation])> = Vec::new();
    if let Some((owner, name)) = finding.field.as_deref().and_then(|f| f.rsplit_once('.')) {
        if let Some(file) = class_of(owner) {
            if let Some(field) = file.fields.iter().find(|f| &*f.name == name) {
                places.push((format!("field {owner}.{name}"), &field.annotations));
            }
        }
    }
    if let Some(file) = class_of(&loc.class) {
        if let Some(method) = loc.method.as_deref() {
            let found = file.methods.iter().find(|m| {
                &*m.name == method
                    && loc
                        .descriptor
                        .as_deref()
                        .is_none_or(|d| &*m.descriptor == d)
            });
            if let Some(m) = found {
                places.push((format!("method {}.{method}", loc.class), &m.annotations));
            }
        }
    }
    for class in enclosing_classes(&loc.class) {
        if let Some(file) = class_of(class) {
            places.push((format!("class {class}"), class_annotations(file)));
        }
    }
    places.into_iter().find_map(|(place, annotations)| {
        annotations.iter().find_map(|a| {
            let shown = suppresses(a, rule)?;
            Some(Suppression {
                kind: "annotation".into(),
                reason: format!("{shown} on {place}"),
            })
        })
    })
}

fn class_annotations(file: &ClassFile) -> &[Annotation] {
    &file.annotations
}

/// `a.B$C$D`, `a.B$C`, `a.B`: the class and the classes enclosing it.
fn enclosing_classes(class: &str) -> Vec<&str> {
    let mut out = vec![class];
    let mut rest = class;
    while let Some(dollar) = rest.rfind('$') {
        rest = &rest[..dollar];
        out.push(rest);
    }
    out
}

/// How `annotation` shows when it suppresses `rule` (`@SuppressLockstep("data-race")`).
fn suppresses(annotation: &Annotation, rule: &str) -> Option<String> {
    let simple = simple_name(&annotation.type_descriptor);
    let values = string_values(annotation.element("value"));
    let hit = match simple {
        "SuppressLockstep" => values.iter().find(|v| **v == rule || **v == "all"),
        "SuppressFBWarnings" | "SuppressWarnings"
            if annotation.type_descriptor.contains("findbugs")
                || simple == "SuppressFBWarnings" =>
        {
            values.iter().find(|v| {
                SPOTBUGS
                    .iter()
                    .any(|(pattern, rules)| pattern == *v && rules.contains(&rule))
            })
        }
        _ => None,
    }?;
    Some(format!("@{simple}(\"{hit}\")"))
}

/// `SuppressLockstep` for `Lcom/x/SuppressLockstep;`.
fn simple_name(descriptor: &str) -> &str {
    let inner = descriptor.trim_start_matches('L').trim_end_matches(';');
    inner.rsplit(['/', '$']).next().unwrap_or(inner)
}

/// A string or an array of strings.
fn string_values(value: Option<&ElementValue>) -> Vec<&str> {
    match value {
        Some(ElementValue::Array(items)) => items.iter().filter_map(|v| v.as_str()).collect(),
        Some(v) => v.as_str().into_iter().collect(),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("com.example.*", "com.example.A$B"));
        assert!(glob("*", "x"));
        assert!(glob("a*c*e", "abcde"));
        assert!(!glob("a*c*e", "abcd"));
        assert!(glob("exact", "exact"));
        assert!(!glob("exact", "exactly"));
        assert!(glob("*.count", "a.B.count"));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn nested_classes_are_covered_by_their_outer_classes() {
        assert_eq!(enclosing_classes("a.B$C$1"), ["a.B$C$1", "a.B$C", "a.B"]);
        assert_eq!(
            simple_name("Ledu/umd/cs/findbugs/annotations/SuppressFBWarnings;"),
            "SuppressFBWarnings"
        );
    }
}
