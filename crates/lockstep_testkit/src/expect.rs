//! Expectations written as comments in fixtures, and checking findings
//! against them. The syntax is described in the crate docs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::fixture::{base_name, SourceFile};
use crate::lex::lex_lines;

/// Marks an expectation that records a known analyzer limitation, so the
/// test pins today's behaviour and a fix shows up as a failure asking for
/// the fixture to be updated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KnownLimit {
    /// `// expect: rule (FP: why)`: the finding is wrong but reported today.
    FalsePositive,
    /// `// known-fn: rule why`: the bug is real but not reported today.
    FalseNegative,
}

/// One expected (or forbidden) finding, from one `// expect:`-style comment.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Expectation {
    /// Base name of the source file (`Counter.java`), matching the class
    /// file `SourceFile` attribute that findings are located by.
    pub file: String,
    /// 1-based line the expectation applies to (the annotated code line, not
    /// necessarily the comment's line).
    pub line: u32,
    /// Rule id, e.g. `data-race`.
    pub rule: String,
    /// True for `expect-not` and `known-fn`: no finding of `rule` may be on
    /// the line.
    pub negative: bool,
    /// `Some(n)` for `rule xN`: exactly `n` findings; `None`: at least one.
    /// Always `None` for negative expectations.
    pub count: Option<u32>,
    /// Set for a known false positive / false negative.
    pub known: Option<KnownLimit>,
    /// Free text after the rule list (e.g. `(FP: reason)`), if any.
    pub note: Option<String>,
    /// Full relative path of the source (`com/x/Counter.java`), for
    /// messages.
    pub source_path: String,
    /// 1-based line of the comment itself, for messages.
    pub comment_line: u32,
}

impl Expectation {
    fn directive(&self) -> &'static str {
        match (self.negative, self.known) {
            (true, Some(KnownLimit::FalseNegative)) => "known-fn",
            (true, _) => "expect-not",
            (false, _) => "expect",
        }
    }
}

impl fmt::Display for Expectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.file,
            self.line,
            self.directive(),
            self.rule
        )?;
        if let Some(n) = self.count {
            write!(f, " x{n}")?;
        }
        if let Some(note) = &self.note {
            write!(f, " {note}")?;
        }
        Ok(())
    }
}

/// A finding reported by the analyzer under test, reduced to what the
/// expectations compare.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActualFinding {
    /// Source file the finding is in; compared by base name, so
    /// `com/x/A.java` and `A.java` both match an expectation in `A.java`.
    pub file: Option<String>,
    /// 1-based source line, if known.
    pub line: Option<u32>,
    /// Rule id.
    pub rule: String,
    /// The finding's message, shown when it is unexpected or forbidden.
    pub message: String,
}

impl ActualFinding {
    /// A finding at `file:line`.
    pub fn new(
        file: impl Into<String>,
        line: u32,
        rule: impl Into<String>,
        message: impl Into<String>,
    ) -> ActualFinding {
        ActualFinding {
            file: Some(file.into()),
            line: Some(line),
            rule: rule.into(),
            message: message.into(),
        }
    }

    fn location(&self) -> String {
        let file = self.file.as_deref().map_or("<no file>", base_name);
        match self.line {
            Some(l) => format!("{file}:{l}"),
            None => format!("{file}:?"),
        }
    }

    fn key(&self) -> Option<(String, u32, String)> {
        Some((
            base_name(self.file.as_deref()?).to_string(),
            self.line?,
            self.rule.clone(),
        ))
    }
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

const DIRECTIVES: [&str; 3] = ["expect", "expect-not", "known-fn"];

/// One directive from a comment, before it is tied to a code line.
#[derive(Debug)]
struct Directive {
    negative: bool,
    known_fn: bool,
    rules: Vec<(String, Option<u32>)>,
    note: Option<String>,
}

/// Parses the directives in one `//` comment body. `Ok(empty)` for ordinary
/// comments.
fn parse_comment(body: &str) -> Result<Vec<Directive>, String> {
    let mut out = Vec::new();
    // `// expect: a // expect-not: b` holds two directives.
    for chunk in body.split("//") {
        let chunk = chunk.trim_start();
        let word_len = chunk
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(chunk.len());
        let word = &chunk[..word_len];
        if !DIRECTIVES.contains(&word) {
            continue;
        }
        let Some(rest) = chunk[word_len..].trim_start().strip_prefix(':') else {
            return Err(format!(
                "`{word}` must be followed by `:` and a rule list, e.g. `// {word}: data-race`"
            ));
        };
        let (rules, note) = parse_rules(rest)?;
        let negative = word != "expect";
        if negative && rules.iter().any(|(_, n)| n.is_some()) {
            return Err(format!("`{word}` takes no `xN` count"));
        }
        out.push(Directive {
            negative,
            known_fn: word == "known-fn",
            rules,
            note,
        });
    }
    Ok(out)
}

type RuleList = Vec<(String, Option<u32>)>;

/// `rule [xN] (, rule [xN])* [note]`.
fn parse_rules(text: &str) -> Result<(RuleList, Option<String>), String> {
    let mut rules = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        let name_len = rest
            .char_indices()
            .find(|&(i, c)| {
                let ok = if i == 0 {
                    c.is_ascii_alphabetic()
                } else {
                    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')
                };
                !ok
            })
            .map_or(rest.len(), |(i, _)| i);
        if name_len == 0 {
            return Err(format!(
                "expected a rule name (letters, digits, `-_./`) at `{}`",
                rest.trim_end()
            ));
        }
        let name = rest[..name_len].to_string();
        rest = &rest[name_len..];
        let mut count = None;
        if let Some(after_x) = rest.trim_start().strip_prefix('x') {
            let digits = after_x
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after_x.len());
            let ends_word = after_x[digits..]
                .chars()
                .next()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
            if digits > 0 && ends_word {
                let n: u32 = after_x[..digits]
                    .parse()
                    .map_err(|_| format!("count too large in `{name} x{}`", &after_x[..digits]))?;
                if n == 0 {
                    return Err(format!("`{name} x0`: use `expect-not: {name}` instead"));
                }
                count = Some(n);
                rest = &after_x[digits..];
            }
        }
        rules.push((name, count));
        match rest.trim_start().strip_prefix(',') {
            Some(after) => rest = after,
            None => break,
        }
    }
    let note = rest.trim();
    Ok((rules, (!note.is_empty()).then(|| note.to_string())))
}

/// Parses the expectation comments of `sources`, or lists every malformed
/// directive (`file:line: problem`).
pub fn try_expectations(sources: &[SourceFile]) -> Result<Vec<Expectation>, String> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for source in sources {
        let file = source.file_name().to_string();
        // Directives on comment-only lines wait here for the next code line.
        let mut pending: Vec<(u32, Directive)> = Vec::new();
        let lines = lex_lines(&source.text);
        for (idx, line) in lines.iter().enumerate() {
            let lineno = u32::try_from(idx + 1).unwrap_or(u32::MAX);
            let directives = match line.comment.as_deref().map(parse_comment) {
                Some(Ok(d)) => d,
                Some(Err(e)) => {
                    errors.push(format!("{}:{lineno}: {e}", source.path));
                    Vec::new()
                }
                None => Vec::new(),
            };
            if line.has_code() {
                let here = pending
                    .drain(..)
                    .chain(directives.into_iter().map(|d| (lineno, d)));
                for (comment_line, d) in here {
                    push_directive(&mut out, source, &file, lineno, comment_line, d);
                }
            } else {
                pending.extend(directives.into_iter().map(|d| (lineno, d)));
            }
        }
        for (comment_line, _) in pending {
            errors.push(format!(
                "{}:{comment_line}: expectation comment is not followed by a code line",
                source.path
            ));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(format!(
            "malformed expectation comments:\n  {}",
            errors.join("\n  ")
        ))
    }
}

fn push_directive(
    out: &mut Vec<Expectation>,
    source: &SourceFile,
    file: &str,
    line: u32,
    comment_line: u32,
    d: Directive,
) {
    let known = if d.known_fn {
        Some(KnownLimit::FalseNegative)
    } else if !d.negative && d.note.as_deref().is_some_and(|n| n.contains("FP:")) {
        Some(KnownLimit::FalsePositive)
    } else {
        None
    };
    for (rule, count) in d.rules {
        out.push(Expectation {
            file: file.to_string(),
            line,
            rule,
            negative: d.negative,
            count,
            known,
            note: d.note.clone(),
            source_path: source.path.clone(),
            comment_line,
        });
    }
}

/// The expectation comments of `sources`, in source order.
///
/// # Panics
/// When a directive is malformed (e.g. `// expect data-race` without the
/// colon, or an expectation comment at the end of a file): silently
/// ignoring it would make the test pass vacuously. Use [`try_expectations`]
/// to get the error instead.
pub fn expectations(sources: &[SourceFile]) -> Vec<Expectation> {
    match try_expectations(sources) {
        Ok(e) => e,
        Err(msg) => panic!("{msg}"),
    }
}

// ---------------------------------------------------------------------------
// Checking
// ---------------------------------------------------------------------------

type Key = (String, u32, String);

/// Compares findings with expectations in strict mode: every positive
/// expectation must be met, no finding may sit on an `expect-not`/`known-fn`
/// line, and every finding must be expected. `Err` holds a readable report.
pub fn check_expectations(
    expected: &[Expectation],
    actual: &[ActualFinding],
) -> Result<(), String> {
    check(expected, actual, true)
}

/// Like [`check_expectations`], but findings of rules that no expectation
/// in `expected` mentions are ignored, for tests about a single rule.
/// Findings of mentioned rules must still all be expected.
pub fn check_expectations_lenient(
    expected: &[Expectation],
    actual: &[ActualFinding],
) -> Result<(), String> {
    check(expected, actual, false)
}

/// [`check_expectations`], panicking with the report. `Result::unwrap`
/// would print the report with escaped newlines; this prints it readably.
#[track_caller]
pub fn assert_expectations(expected: &[Expectation], actual: &[ActualFinding]) {
    if let Err(report) = check_expectations(expected, actual) {
        panic!("{report}");
    }
}

/// [`check_expectations_lenient`], panicking with the report.
#[track_caller]
pub fn assert_expectations_lenient(expected: &[Expectation], actual: &[ActualFinding]) {
    if let Err(report) = check_expectations_lenient(expected, actual) {
        panic!("{report}");
    }
}

#[derive(Default)]
struct Report {
    missing: Vec<String>,
    wrong_count: Vec<String>,
    fp_fixed: Vec<String>,
    unexpected: Vec<String>,
    forbidden: Vec<String>,
    fn_found: Vec<String>,
}

fn check(expected: &[Expectation], actual: &[ActualFinding], strict: bool) -> Result<(), String> {
    let mut found: BTreeMap<Key, Vec<&ActualFinding>> = BTreeMap::new();
    let mut unlocated: Vec<&ActualFinding> = Vec::new();
    for a in actual {
        match a.key() {
            Some(k) => found.entry(k).or_default().push(a),
            None => unlocated.push(a),
        }
    }
    let mentioned: BTreeSet<&str> = expected.iter().map(|e| e.rule.as_str()).collect();
    // Keys some expectation speaks for: findings there are not "unexpected".
    let mut accounted: BTreeSet<Key> = BTreeSet::new();
    let mut processed: BTreeSet<(Key, bool)> = BTreeSet::new();
    let mut r = Report::default();

    let mut sorted: Vec<&Expectation> = expected.iter().collect();
    sorted.sort_by(|a, b| (&a.file, a.line, &a.rule).cmp(&(&b.file, b.line, &b.rule)));
    for e in sorted {
        let key = (e.file.clone(), e.line, e.rule.clone());
        let hits = found.get(&key).map_or(&[][..], Vec::as_slice);
        accounted.insert(key.clone());
        if !processed.insert((key, e.negative)) {
            // A repeated expectation for the same place adds nothing.
            continue;
        }
        let at = format!("{}:{}: {}", e.file, e.line, e.rule);
        if e.negative {
            for a in hits {
                let line = format!("{at}: {}", a.message);
                match e.known {
                    Some(KnownLimit::FalseNegative) => r.fn_found.push(line),
                    _ => r.forbidden.push(line),
                }
            }
            continue;
        }
        match (hits.len(), e.count) {
            (0, _) if e.known == Some(KnownLimit::FalsePositive) => r.fp_fixed.push(at),
            (0, _) => r.missing.push(at),
            (n, Some(want)) if n != want as usize => r.wrong_count.push(format!(
                "{at}: expected {want}, found {n}:{}",
                hits.iter()
                    .map(|a| format!("\n      {}", a.message))
                    .collect::<String>()
            )),
            _ => {}
        }
    }

    let reportable = |rule: &str| strict || mentioned.contains(rule);
    for (key, hits) in &found {
        if accounted.contains(key) {
            continue;
        }
        for a in hits.iter().filter(|a| reportable(&a.rule)) {
            r.unexpected
                .push(format!("{}: {}: {}", a.location(), a.rule, a.message));
        }
    }
    for a in unlocated.iter().filter(|a| reportable(&a.rule)) {
        r.unexpected
            .push(format!("{}: {}: {}", a.location(), a.rule, a.message));
    }
    r.render()
}

impl Report {
    fn render(self) -> Result<(), String> {
        let sections: [(&str, &str, &Vec<String>); 6] = [
            (
                "missing findings (expected, not reported)",
                "-",
                &self.missing,
            ),
            (
                "wrong number of findings (`rule xN` expectations)",
                "#",
                &self.wrong_count,
            ),
            (
                "known false positive no longer reported: the fix works, update the \
                 fixture (`expect: rule (FP: ...)` -> `expect-not: rule`)",
                "-",
                &self.fp_fixed,
            ),
            (
                "unexpected findings (reported, not expected)",
                "+",
                &self.unexpected,
            ),
            (
                "forbidden findings (on an `expect-not` line)",
                "!",
                &self.forbidden,
            ),
            (
                "known false negative is now found: update the fixture \
                 (`known-fn: rule` -> `expect: rule`)",
                "+",
                &self.fn_found,
            ),
        ];
        let total: usize = sections.iter().map(|(_, _, v)| v.len()).sum();
        if total == 0 {
            return Ok(());
        }
        let mut s = format!(
            "fixture expectations not met ({} missing, {} unexpected, {} forbidden, \
             {} wrong count, {} known limits changed)",
            self.missing.len(),
            self.unexpected.len(),
            self.forbidden.len(),
            self.wrong_count.len(),
            self.fp_fixed.len() + self.fn_found.len(),
        );
        for (title, mark, items) in sections {
            if items.is_empty() {
                continue;
            }
            s.push_str(&format!("\n{title}:"));
            for item in items {
                s.push_str(&format!("\n  {mark} {item}"));
            }
        }
        Err(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_lists_counts_and_notes() {
        let (rules, note) = parse_rules(" a, b-c x2 ,d.e/f  (FP: why)").unwrap();
        assert_eq!(
            rules,
            vec![
                ("a".to_string(), None),
                ("b-c".to_string(), Some(2)),
                ("d.e/f".to_string(), None)
            ]
        );
        assert_eq!(note.as_deref(), Some("(FP: why)"));
        let (rules, note) = parse_rules("race xenon").unwrap();
        assert_eq!(rules, vec![("race".to_string(), None)]);
        assert_eq!(note.as_deref(), Some("xenon"));
        assert!(parse_rules("  ").is_err());
        assert!(parse_rules("a,").is_err());
        assert!(parse_rules("a x0").is_err());
    }

    #[test]
    fn ordinary_comments_are_not_directives() {
        for c in [" expected value is 3", " TODO", "", " expectation: none"] {
            assert!(parse_comment(c).unwrap().is_empty(), "{c}");
        }
        assert!(parse_comment(" expect data-race").is_err());
        assert!(parse_comment(" expect-not: a x2").is_err());
        assert_eq!(
            parse_comment(" expect: a // expect-not: b").unwrap().len(),
            2
        );
    }
}
