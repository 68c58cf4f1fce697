//! Rule metadata for the renderers: the detectors' rules with their
//! Markdown docs (SARIF `help`, `fullDescription`) and, when a base URL is
//! configured, a `helpUri` of `<base><id>.md`.

use lockstep_report::RuleMeta;

/// Every rule, described for SARIF.
pub fn report_rules(help_uri_base: Option<&str>) -> Vec<RuleMeta> {
    lockstep_detectors::all_rules()
        .into_iter()
        .map(|rule| {
            let meta = rule.to_report().with_docs(rule.docs);
            match help_uri_base {
                Some(base) => meta.with_help_uri(format!("{base}{}.md", rule.id.as_str())),
                None => meta,
            }
        })
        .collect()
}
