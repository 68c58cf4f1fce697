//! `--explain FIELD` with a field the application does not have: say so,
//! and suggest the closest field names (edit distance), since the usual
//! cause is a typo or a missing package.

use lockstep_program::Program;

/// How many suggestions are shown.
const MAX_SUGGESTIONS: usize = 3;

/// Every field of the application's classes, as `pkg.Class.name`.
fn application_fields(program: &Program) -> Vec<String> {
    program
        .application_classes()
        .filter_map(|id| program.try_class(id))
        .flat_map(|class| {
            let owner = class.name.replace('/', ".");
            class
                .file
                .fields
                .iter()
                .map(move |f| format!("{owner}.{}", f.name))
        })
        .collect()
}

/// The field `--explain` names: `field` itself when the application has
/// it, else the one application field whose name ends with `.field`
/// when `field` names a class and a field without their package
/// (`RetransmitTable.highest_seqno_purged`), with a note saying so.
pub fn resolve(program: &Program, field: &str) -> (String, Option<String>) {
    let fields = application_fields(program);
    if !field.contains('.') || fields.iter().any(|f| f == field) {
        return (field.to_string(), None);
    }
    let suffix = format!(".{field}");
    let mut matches = fields.iter().filter(|f| f.ends_with(&suffix));
    match (matches.next(), matches.next()) {
        (Some(only), None) => (
            only.clone(),
            Some(format!("note: --explain: `{field}` is `{only}`")),
        ),
        _ => (field.to_string(), None),
    }
}

/// A note when `field` (`pkg.Class.name`) is not a field of an
/// application class; `None` when it is.
pub fn unknown_field(program: &Program, field: &str) -> Option<String> {
    let fields = application_fields(program);
    if fields.iter().any(|f| f == field) {
        return None;
    }
    let suggestions = closest(field, &fields);
    Some(if suggestions.is_empty() {
        format!(
            "note: --explain: the application has no field `{field}` (write it as pkg.Class.name)"
        )
    } else {
        format!(
            "note: --explain: the application has no field `{field}`; did you mean {}?",
            suggestions
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// The names closest to `wanted`, nearest first (ties by name): within
/// three edits and at most one edit worse than the best, or with the same
/// simple name (a wrong package).
fn closest<'a>(wanted: &str, names: &'a [String]) -> Vec<&'a str> {
    let simple = |s: &str| s.rsplit('.').next().unwrap_or(s).to_string();
    const LIMIT: usize = 3;
    let mut scored: Vec<(usize, &str)> = names
        .iter()
        .filter_map(|name| {
            let distance = strsim::levenshtein(wanted, name);
            let same_simple = simple(name) == simple(wanted);
            (distance <= LIMIT || same_simple).then_some((distance, name.as_str()))
        })
        .collect();
    scored.sort();
    scored.dedup();
    let best = scored.first().map_or(0, |(d, _)| *d);
    scored
        .into_iter()
        .filter(|(d, name)| *d <= best + 1 || simple(name) == simple(wanted))
        .take(MAX_SUGGESTIONS)
        .map(|(_, n)| n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let names: Vec<String> = [
            "a.Stock.units",
            "a.Stock.reserved",
            "a.Point.x",
            "b.Other.units",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(closest("a.Stock.unit", &names), ["a.Stock.units"]);
        assert_eq!(
            closest("Stock.units", &names),
            ["a.Stock.units", "b.Other.units"]
        );
        assert!(closest("zzz.Q.w", &names).is_empty());
    }
}
