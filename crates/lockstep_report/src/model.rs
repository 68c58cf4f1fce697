//! The findings model: what a detector reports and what the CLI hands to a renderer.
//!
//! The model is deliberately plain data with public fields so detectors can
//! build findings with struct literals or the small builder helpers below.
//! It is *not* the serialized schema: each renderer maps it onto its own
//! output shape, so the JSON contract can stay stable while this model grows.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::descriptor::pretty_params;
use crate::evidence::{Evidence, EvidenceStatus};

/// Exit code when the analysis ran and found nothing.
pub const EXIT_OK: i32 = 0;
/// Exit code when the analysis ran and reported at least one finding.
pub const EXIT_FINDINGS: i32 = 1;
/// Exit code for a usage error or an input that stopped the analysis.
pub const EXIT_ERROR: i32 = 2;

/// How serious a finding is. Serialized in lowercase (`"error"`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Almost certainly a bug.
    Error,
    /// Likely a bug; worth a look.
    Warning,
    /// Informational; may be intended.
    Note,
}

impl Severity {
    /// All severities, most serious first (the order used in summaries).
    pub const ALL: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Note];

    /// The lowercase name used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error returned when parsing an unknown severity name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSeverityError(pub String);

impl fmt::Display for ParseSeverityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown severity `{}` (expected error, warning or note)",
            self.0
        )
    }
}

impl std::error::Error for ParseSeverityError {}

impl FromStr for Severity {
    type Err = ParseSeverityError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "error" => Ok(Severity::Error),
            "warning" => Ok(Severity::Warning),
            "note" => Ok(Severity::Note),
            other => Err(ParseSeverityError(other.to_owned())),
        }
    }
}

impl serde::Serialize for Severity {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// How sure the detector is that a finding is a real problem, from the
/// facts it rests on (each rule's docs say which). Serialized in lowercase
/// (`"high"`, ...). Ordered most confident first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Confidence {
    /// Rests on facts of the program as it runs: real thread roots, a lock
    /// one side holds and the other lacks, an annotation.
    High,
    /// The rule's usual evidence, without the facts that make it high or
    /// the weakness that makes it low.
    #[default]
    Medium,
    /// Rests on an assumption: callers from outside the analysed code
    /// (a library's entry points), code the analysis cannot see.
    Low,
}

impl Confidence {
    /// All confidences, most confident first.
    pub const ALL: [Confidence; 3] = [Confidence::High, Confidence::Medium, Confidence::Low];

    /// The lowercase name used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Medium => "medium",
            Confidence::Low => "low",
        }
    }

    /// Whether a finding of this confidence passes a `--min-confidence`
    /// of `min` (`high` passes everything, `low` passes only `low`).
    pub fn at_least(self, min: Confidence) -> bool {
        self <= min
    }
}

impl fmt::Display for Confidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error returned when parsing an unknown confidence name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseConfidenceError(pub String);

impl fmt::Display for ParseConfidenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown confidence `{}` (expected high, medium or low)",
            self.0
        )
    }
}

impl std::error::Error for ParseConfidenceError {}

impl FromStr for Confidence {
    type Err = ParseConfidenceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "high" => Ok(Confidence::High),
            "medium" => Ok(Confidence::Medium),
            "low" => Ok(Confidence::Low),
            other => Err(ParseConfidenceError(other.to_owned())),
        }
    }
}

impl serde::Serialize for Confidence {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A place in the analyzed program, as precise as the class file allows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Location {
    /// Binary class name with dots: `pkg.Outer$Inner`.
    pub class: String,
    /// JVM method name (`<init>`, `<clinit>`, `run`), if the location is inside a method.
    pub method: Option<String>,
    /// JVM method descriptor, e.g. `(I)V`.
    pub descriptor: Option<String>,
    /// The `SourceFile` attribute, e.g. `Outer.java`.
    pub file: Option<String>,
    /// 1-based source line from the `LineNumberTable`, when present.
    pub line: Option<u32>,
}

impl Location {
    /// A location naming only a class.
    pub fn in_class(class: impl Into<String>) -> Self {
        Location {
            class: class.into(),
            ..Location::default()
        }
    }

    /// A location inside a method.
    pub fn in_method(
        class: impl Into<String>,
        method: impl Into<String>,
        descriptor: impl Into<String>,
    ) -> Self {
        Location {
            class: class.into(),
            method: Some(method.into()),
            descriptor: Some(descriptor.into()),
            ..Location::default()
        }
    }

    /// Sets the source file name.
    pub fn with_file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// Sets the source line.
    pub fn with_line(mut self, line: u32) -> Self {
        self.line = Some(line);
        self
    }

    /// The package part of the class name (`pkg` for `pkg.Outer$Inner`), empty
    /// for the default package.
    pub fn package(&self) -> &str {
        match self.class.rfind('.') {
            Some(dot) => &self.class[..dot],
            None => "",
        }
    }

    /// Best-effort path of the source file relative to a source root:
    /// the package directory joined with the `SourceFile` name
    /// (`com/example/Segment.java`). Without a `SourceFile` attribute the
    /// class file's own path is used instead (`com/example/Segment$1.class`),
    /// which still lets a reader find the code.
    pub fn source_path(&self) -> String {
        let leaf = match &self.file {
            // A SourceFile that already carries directories (some non-javac
            // compilers emit one) is trusted as is rather than doubled up.
            Some(file) if file.contains('/') => return file.clone(),
            Some(file) => file.clone(),
            None => {
                let simple = match self.class.rfind('.') {
                    Some(dot) => &self.class[dot + 1..],
                    None => self.class.as_str(),
                };
                format!("{simple}.class")
            }
        };
        let package = self.package();
        if package.is_empty() {
            leaf
        } else {
            format!("{}/{leaf}", package.replace('.', "/"))
        }
    }

    /// Short position used in human output: `Segment.java:9`, `Segment.java`
    /// when the line is unknown, or the class file path (`pkg/Outer.class`)
    /// when there is no `SourceFile` attribute.
    pub fn position(&self) -> String {
        let base = match &self.file {
            Some(file) => file.clone(),
            None => self.source_path(),
        };
        match self.line {
            Some(line) => format!("{base}:{line}"),
            None => base,
        }
    }

    /// `pkg.Class.method` without parameters, or just the class name when the
    /// location is not inside a method. Used as a logical (symbol) name.
    pub fn qualified_name(&self) -> String {
        match &self.method {
            Some(method) => format!("{}.{method}", self.class),
            None => self.class.clone(),
        }
    }

    /// `pkg.Class.method(int, String)`: the qualified name with parameter
    /// types pretty-printed from the descriptor when it is known.
    /// Constructors and static initializers keep their JVM names
    /// (`pkg.Outer$Inner.<init>(int)`, `pkg.Cls.<clinit>()`) so the text
    /// matches the `method` field of the JSON output.
    pub fn display_method(&self) -> String {
        let mut out = self.qualified_name();
        if self.method.is_some() {
            if let Some(descriptor) = &self.descriptor {
                out.push_str(&pretty_params(descriptor));
            }
        }
        out
    }
}

/// A secondary location that helps explain a finding (the other access of a
/// race, the lock acquisition a check depends on, ...).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Related {
    /// Where.
    pub location: Location,
    /// What happens there, e.g. "unsynchronized write of `count`".
    pub message: String,
}

impl Related {
    /// Creates a related location.
    pub fn new(location: Location, message: impl Into<String>) -> Self {
        Related {
            location,
            message: message.into(),
        }
    }
}

/// One thread's way to a finding: a label (`thread started in Main.main`)
/// and the steps it takes, in order (SARIF `threadFlows`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Flow {
    /// Which thread.
    pub label: String,
    /// Its steps, first to last; the last is usually the access.
    pub steps: Vec<Related>,
}

impl Flow {
    /// A flow for the thread `label`.
    pub fn new(label: impl Into<String>, steps: Vec<Related>) -> Self {
        Flow {
            label: label.into(),
            steps,
        }
    }
}

/// One reported problem in the analyzed program.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Finding {
    /// Stable rule id, e.g. `data-race`.
    pub rule: String,
    /// How serious it is.
    pub severity: Severity,
    /// How sure the detector is (default `medium`; see [`Confidence`]).
    pub confidence: Confidence,
    /// One-sentence description.
    pub message: String,
    /// The primary location.
    pub location: Location,
    /// The field concerned, `pkg.Cls.count`, if any.
    pub field: Option<String>,
    /// The lock concerned, in the detector's notation (`this`, `pkg.Cls.lock`), if any.
    pub lock: Option<String>,
    /// Secondary locations, in the order the detector finds meaningful
    /// (never re-sorted).
    pub related: Vec<Related>,
    /// Extra explanation lines. A note starting with `help: ` is shown as a
    /// help line by the text renderer; everything else is a plain note.
    pub notes: Vec<String>,
    /// Where the finding comes from when not the static analysis: `run`
    /// for the run-time checkers (observed in an execution). `None` for
    /// static findings (and then absent from JSON).
    pub provenance: Option<String>,
    /// How each thread involved reaches the finding (the two paths of a
    /// race), for renderers that can show them (SARIF `codeFlows`); the
    /// same paths are usually in `notes` as text.
    pub flows: Vec<Flow>,
    /// What runs said about a static finding (`check --evidence`); `None`
    /// without traces or for rules runs do not check.
    pub evidence: Option<Evidence>,
    /// Which finding of its kind this is in its report: 0 for the first,
    /// in canonical order, of the findings (suppressed ones included) that
    /// share the fingerprint's hash of rule, location and digit-free
    /// message, 1 for the next, and so on ([`Report::number_occurrences`]).
    /// Keeps fingerprints unique within a report.
    pub occurrence: u32,
}

impl Finding {
    /// A finding with no field, lock, related locations or notes.
    pub fn new(
        rule: impl Into<String>,
        severity: Severity,
        message: impl Into<String>,
        location: Location,
    ) -> Self {
        Finding {
            rule: rule.into(),
            severity,
            confidence: Confidence::default(),
            message: message.into(),
            location,
            field: None,
            lock: None,
            related: Vec::new(),
            notes: Vec::new(),
            provenance: None,
            flows: Vec::new(),
            evidence: None,
            occurrence: 0,
        }
    }

    /// Sets the confidence.
    pub fn with_confidence(mut self, confidence: Confidence) -> Self {
        self.confidence = confidence;
        self
    }

    /// Sets the provenance (`run` for findings observed in an execution).
    pub fn with_provenance(mut self, provenance: impl Into<String>) -> Self {
        self.provenance = Some(provenance.into());
        self
    }

    /// Appends a thread's flow.
    pub fn with_flow(mut self, flow: Flow) -> Self {
        self.flows.push(flow);
        self
    }

    /// Sets the field concerned.
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// Sets the lock concerned.
    pub fn with_lock(mut self, lock: impl Into<String>) -> Self {
        self.lock = Some(lock.into());
        self
    }

    /// Appends a related location.
    pub fn with_related(mut self, location: Location, message: impl Into<String>) -> Self {
        self.related.push(Related::new(location, message));
        self
    }

    /// Appends a note line.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Appends a help line (a note with the `help: ` prefix).
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.notes.push(format!("help: {}", help.into()));
        self
    }

    /// The canonical ordering key. It covers every field so that two
    /// findings compare equal exactly when they are identical, which is what
    /// lets `sort` + `dedup` remove exact duplicates. Source position comes
    /// first so output reads file by file, top to bottom.
    #[allow(clippy::type_complexity)]
    fn sort_key(
        &self,
    ) -> (
        (&str, Option<&str>, &str, Option<u32>),
        (&str, Option<&str>, Option<&str>, &str),
        (Option<&str>, Option<&str>, Severity, Confidence),
        (&[Related], &[String], &[Flow], Option<&str>),
        Option<&Evidence>,
    ) {
        let loc = &self.location;
        (
            (loc.package(), loc.file.as_deref(), &loc.class, loc.line),
            (
                &self.rule,
                loc.method.as_deref(),
                loc.descriptor.as_deref(),
                &self.message,
            ),
            (
                self.field.as_deref(),
                self.lock.as_deref(),
                self.severity,
                self.confidence,
            ),
            (
                &self.related,
                &self.notes,
                &self.flows,
                self.provenance.as_deref(),
            ),
            self.evidence.as_ref(),
        )
    }
}

impl PartialOrd for Finding {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Finding {
    fn cmp(&self, other: &Self) -> Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

/// An input (class file, jar entry, directory) that could not be read or
/// lowered. The analysis went on without it, so results may be incomplete.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InputProblem {
    /// The file given on the command line or found in a directory.
    pub file: String,
    /// The entry inside an archive (`com/x/Y.class` inside a jar), if any.
    pub entry: Option<String>,
    /// What went wrong.
    pub message: String,
    /// An input not read, or a class the program needs that no input holds.
    pub kind: ProblemKind,
}

/// Whether a problem is about the inputs themselves (something given was
/// not read: the analysis saw less than it was asked to) or about what they
/// reference (a dependency missing from the class path). The two are
/// counted apart: the fix for each is different.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum ProblemKind {
    /// A file, archive entry or method that could not be read or lowered.
    #[default]
    Unreadable,
    /// A class the application references that is on no class path.
    MissingClass,
}

impl ProblemKind {
    /// The name in the JSON contract (`problems[].kind`).
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::Unreadable => "unreadable",
            ProblemKind::MissingClass => "missing-class",
        }
    }
}

impl InputProblem {
    /// Creates a problem for a plain file.
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> Self {
        InputProblem {
            file: file.into(),
            entry: None,
            message: message.into(),
            kind: ProblemKind::Unreadable,
        }
    }

    /// Marks the problem as a missing dependency rather than an unreadable input.
    pub fn missing_class(mut self) -> Self {
        self.kind = ProblemKind::MissingClass;
        self
    }

    /// Sets the archive entry.
    pub fn with_entry(mut self, entry: impl Into<String>) -> Self {
        self.entry = Some(entry.into());
        self
    }

    /// `file` or `file!entry`, the conventional notation for jar entries.
    pub fn display_path(&self) -> String {
        match &self.entry {
            Some(entry) => format!("{}!{entry}", self.file),
            None => self.file.clone(),
        }
    }
}

/// Facts about the analysis run. Counts of findings by rule and severity are
/// not stored here: renderers derive them from the findings so they can never
/// disagree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Summary {
    /// Classes analyzed.
    pub classes: u64,
    /// Methods analyzed.
    pub methods: u64,
    /// Whether the program was analyzed as open (a library: callers and
    /// threads outside the analyzed code are assumed to exist).
    pub open_program: bool,
    /// What was analysed and how (the summary line's account of entry
    /// points), when the analysis says. Not part of the JSON output.
    pub scope: Option<Scope>,
}

/// What the analysis entered: programs (one per `main`), classes entered
/// as a library (callers unknown), classes nothing entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Scope {
    /// `main` methods; each one starts a program.
    pub programs: u64,
    /// Classes no main reaches, entered as a library (any caller, any thread).
    pub library_classes: u64,
    /// Classes with code that no main and no library entry reaches
    /// (unreached or not public, and no sign of concurrent use).
    pub skipped_classes: u64,
}

/// Metadata about a rule, passed to renderers that describe rules (SARIF).
/// Lives here rather than in a detector crate so this crate stays
/// rule-independent.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RuleMeta {
    /// Stable id, e.g. `data-race`.
    pub id: String,
    /// Human name, e.g. `DataRace`.
    pub name: String,
    /// One-line description.
    pub short_description: String,
    /// Link to documentation, if any (an absolute URI).
    pub help_uri: Option<String>,
    /// A paragraph on what the rule finds (SARIF `fullDescription`).
    pub full_description: Option<String>,
    /// The rule's documentation in Markdown (SARIF `help.markdown`; its
    /// text is `help.text`).
    pub help_markdown: Option<String>,
}

impl RuleMeta {
    /// Metadata without a help link.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        short_description: impl Into<String>,
    ) -> Self {
        RuleMeta {
            id: id.into(),
            name: name.into(),
            short_description: short_description.into(),
            help_uri: None,
            full_description: None,
            help_markdown: None,
        }
    }

    /// Sets the Markdown documentation; the full description is its first
    /// paragraph that is not a heading.
    pub fn with_docs(mut self, markdown: impl Into<String>) -> Self {
        let markdown = markdown.into();
        self.full_description = first_paragraph(&markdown);
        self.help_markdown = Some(markdown);
        self
    }

    /// Sets the documentation link.
    pub fn with_help_uri(mut self, uri: impl Into<String>) -> Self {
        self.help_uri = Some(uri.into());
        self
    }
}

/// The first paragraph of Markdown that is not a heading, its lines joined.
fn first_paragraph(markdown: &str) -> Option<String> {
    let paragraph: Vec<&str> = markdown
        .lines()
        .map(str::trim)
        .skip_while(|line| line.is_empty() || line.starts_with('#'))
        .take_while(|line| !line.is_empty())
        .collect();
    (!paragraph.is_empty()).then(|| paragraph.join(" "))
}

/// Why a finding is not reported: its suppression.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Suppression {
    /// How: `annotation` (in the code), `config` (a pattern in the config
    /// file) or `baseline` (listed in the baseline file).
    pub kind: String,
    /// What suppressed it, e.g. `@SuppressLockstep("data-race") on pkg.Cls`.
    pub reason: String,
}

/// A finding that was suppressed: kept out of the findings, the counts and
/// the exit code, but present in JSON and SARIF.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SuppressedFinding {
    pub finding: Finding,
    pub suppression: Suppression,
}

/// Everything one run produced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    /// Findings, in any order until [`Report::normalize`] is called.
    pub findings: Vec<Finding>,
    /// Inputs that could not be read.
    pub problems: Vec<InputProblem>,
    /// Run facts.
    pub summary: Summary,
    /// Version of the tool that produced the report (`CARGO_PKG_VERSION` of the CLI).
    pub tool_version: String,
    /// Findings suppressed by annotations, the config file or a baseline.
    pub suppressed: Vec<SuppressedFinding>,
    /// `--min-confidence` when one was given: the threshold and how many
    /// findings fell below it and are not listed.
    pub below_min_confidence: Option<(Confidence, u64)>,
    /// `check --evidence`: how many runs (traces) the findings were
    /// matched against; `None` without traces.
    pub evidence_runs: Option<u64>,
    /// `check --max-time`/`--max-memory`: what the budget cut (empty when
    /// it cut nothing); `None` without a budget.
    pub budget_cuts: Option<Vec<BudgetCut>>,
    /// How the text output names the budget: `the time budget
    /// (--max-time)` (the default when `None`), `the memory budget
    /// (--max-memory)`, or both.
    pub budget_name: Option<String>,
}

/// Part of the analysis a budget (`check --max-time`, `--max-memory`) left out: the
/// rule that lost precision, the phase it was cut in, and what was not
/// analysed, in words.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BudgetCut {
    pub rule: String,
    pub phase: String,
    pub what: String,
}

impl Report {
    /// An empty report for the given tool version.
    pub fn new(tool_version: impl Into<String>) -> Self {
        Report {
            tool_version: tool_version.into(),
            ..Report::default()
        }
    }

    /// Sorts findings and problems canonically and drops exact duplicates.
    ///
    /// Detectors run in whatever order (and possibly in parallel), so this is
    /// what makes output byte-identical across runs. Related locations and
    /// notes keep their order: it carries meaning ("first", "second").
    /// Renderers apply the same ordering on their own, so calling this is
    /// only needed when the CLI itself inspects the findings.
    pub fn normalize(&mut self) {
        self.findings.sort();
        self.findings.dedup();
        self.problems.sort();
        self.problems.dedup();
        self.suppressed.sort();
        self.suppressed.dedup();
    }

    /// Numbers the findings that share a fingerprint's hash
    /// ([`Finding::occurrence`]), in canonical order over the findings and
    /// the suppressed ones together, so that moving a finding to the
    /// suppressed list (a baseline, an annotation) changes no fingerprint.
    /// Producers of a report call it once all its findings are in, before
    /// any of them is suppressed or filtered out.
    pub fn number_occurrences(&mut self) {
        for f in &mut self.findings {
            f.occurrence = 0;
        }
        for s in &mut self.suppressed {
            s.finding.occurrence = 0;
        }
        let listed = self.findings.len();
        fn at(r: &Report, listed: usize, k: usize) -> &Finding {
            match k.checked_sub(listed) {
                None => &r.findings[k],
                Some(i) => &r.suppressed[i].finding,
            }
        }
        let mut order: Vec<usize> = (0..listed + self.suppressed.len()).collect();
        order.sort_by(|&a, &b| at(self, listed, a).cmp(at(self, listed, b)));
        let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
        let mut numbers = vec![0u32; order.len()];
        for k in order {
            let n = seen
                .entry(crate::fingerprint::fingerprint(at(self, listed, k)))
                .or_insert(0);
            numbers[k] = *n;
            *n += 1;
        }
        for (k, n) in numbers.into_iter().enumerate() {
            match k.checked_sub(listed) {
                None => self.findings[k].occurrence = n,
                Some(i) => self.suppressed[i].finding.occurrence = n,
            }
        }
    }

    /// Suppressed findings in canonical order without duplicates.
    pub fn canonical_suppressed(&self) -> Vec<&SuppressedFinding> {
        let mut suppressed: Vec<&SuppressedFinding> = self.suppressed.iter().collect();
        suppressed.sort();
        suppressed.dedup();
        suppressed
    }

    /// Findings in canonical order without duplicates, without mutating or
    /// cloning the report.
    pub fn canonical_findings(&self) -> Vec<&Finding> {
        let mut findings: Vec<&Finding> = self.findings.iter().collect();
        findings.sort();
        findings.dedup();
        findings
    }

    /// Problems in canonical order without duplicates.
    pub fn canonical_problems(&self) -> Vec<&InputProblem> {
        let mut problems: Vec<&InputProblem> = self.problems.iter().collect();
        problems.sort();
        problems.dedup();
        problems
    }

    /// Findings in the order the text report shows them: those a run
    /// observed first (`check --evidence`), then most confident first,
    /// then canonically.
    pub fn findings_by_confidence(&self) -> Vec<&Finding> {
        let mut findings = self.canonical_findings();
        // A stable sort keeps the canonical order within each confidence.
        findings.sort_by_key(|f| {
            let observed = f
                .evidence
                .as_ref()
                .is_some_and(|e| e.status == EvidenceStatus::Observed);
            (!observed, f.confidence)
        });
        findings
    }

    /// Number of distinct findings per confidence, most confident first;
    /// every confidence is present, zero or not.
    pub fn counts_by_confidence(&self) -> [(Confidence, u64); 3] {
        let mut counts = Confidence::ALL.map(|c| (c, 0u64));
        for finding in self.canonical_findings() {
            for (confidence, count) in counts.iter_mut() {
                if *confidence == finding.confidence {
                    *count += 1;
                }
            }
        }
        counts
    }

    /// Drops the findings below `min` (`--min-confidence`) and records
    /// how many went in the summary; suppressed findings are kept as they are.
    pub fn retain_confidence(&mut self, min: Confidence) {
        let before = self.canonical_findings().len() as u64;
        self.findings.retain(|f| f.confidence.at_least(min));
        let after = self.canonical_findings().len() as u64;
        let earlier = self.below_min_confidence.map_or(0, |(_, n)| n);
        self.below_min_confidence = Some((min, earlier + before.saturating_sub(after)));
    }

    /// Number of distinct findings per rule id, sorted by rule id.
    pub fn counts_by_rule(&self) -> BTreeMap<String, u64> {
        let mut counts = BTreeMap::new();
        for finding in self.canonical_findings() {
            *counts.entry(finding.rule.clone()).or_insert(0) += 1;
        }
        counts
    }

    /// Number of distinct findings per severity, most serious first; every
    /// severity is present, zero or not.
    pub fn counts_by_severity(&self) -> [(Severity, u64); 3] {
        let mut counts = Severity::ALL.map(|s| (s, 0u64));
        for finding in self.canonical_findings() {
            for (severity, count) in counts.iter_mut() {
                if *severity == finding.severity {
                    *count += 1;
                }
            }
        }
        counts
    }

    /// Problems of `kind`, canonically ordered.
    pub fn problems_of_kind(&self, kind: ProblemKind) -> Vec<&InputProblem> {
        let mut problems = self.canonical_problems();
        problems.retain(|p| p.kind == kind);
        problems
    }

    /// The process exit code for this report: [`EXIT_FINDINGS`] when there is
    /// at least one finding, [`EXIT_OK`] otherwise. Input problems alone do
    /// not change it because the analysis went on; the CLI returns
    /// [`EXIT_ERROR`] itself for usage errors or when nothing could be read.
    /// A report without findings whose analysis a time budget cut is
    /// [`EXIT_ERROR`] too: it cannot claim there is nothing to find.
    pub fn exit_code(&self) -> i32 {
        if !self.findings.is_empty() {
            EXIT_FINDINGS
        } else if self.was_cut() {
            EXIT_ERROR
        } else {
            EXIT_OK
        }
    }

    /// Whether a time budget left part of the analysis out.
    pub fn was_cut(&self) -> bool {
        self.budget_cuts.as_ref().is_some_and(|c| !c.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_paths_and_positions() {
        let inner = Location::in_method("com.example.Outer$Inner", "run", "()V")
            .with_file("Outer.java")
            .with_line(7);
        assert_eq!(inner.package(), "com.example");
        assert_eq!(inner.source_path(), "com/example/Outer.java");
        assert_eq!(inner.position(), "Outer.java:7");
        assert_eq!(inner.qualified_name(), "com.example.Outer$Inner.run");
        assert_eq!(inner.display_method(), "com.example.Outer$Inner.run()");

        let bare = Location::in_class("com.example.Outer$1");
        assert_eq!(bare.source_path(), "com/example/Outer$1.class");
        assert_eq!(bare.position(), "com/example/Outer$1.class");
        assert_eq!(bare.display_method(), "com.example.Outer$1");

        let default_pkg = Location::in_class("Main").with_file("Main.kt");
        assert_eq!(default_pkg.package(), "");
        assert_eq!(default_pkg.source_path(), "Main.kt");

        let pathy = Location::in_class("a.B").with_file("gen/a/B.java");
        assert_eq!(pathy.source_path(), "gen/a/B.java");

        let no_descriptor = Location {
            method: Some("<clinit>".to_owned()),
            ..Location::in_class("a.B")
        };
        assert_eq!(no_descriptor.display_method(), "a.B.<clinit>");
    }

    #[test]
    fn severity_names_round_trip() {
        for severity in Severity::ALL {
            assert_eq!(severity.as_str().parse::<Severity>(), Ok(severity));
        }
        assert!("fatal".parse::<Severity>().is_err());
    }

    #[test]
    fn confidence_orders_and_filters() {
        for confidence in Confidence::ALL {
            assert_eq!(confidence.as_str().parse::<Confidence>(), Ok(confidence));
        }
        assert!("sure".parse::<Confidence>().is_err());
        let at = |line, confidence| {
            Finding::new(
                "r",
                Severity::Warning,
                "m",
                Location::in_class("A").with_line(line),
            )
            .with_confidence(confidence)
        };
        let mut report = Report::new("1");
        report.findings = vec![
            at(1, Confidence::Low),
            at(2, Confidence::High),
            at(3, Confidence::Medium),
            at(4, Confidence::High),
        ];
        let lines: Vec<Option<u32>> = report
            .findings_by_confidence()
            .iter()
            .map(|f| f.location.line)
            .collect();
        assert_eq!(lines, [Some(2), Some(4), Some(3), Some(1)]);
        assert_eq!(report.counts_by_confidence()[0], (Confidence::High, 2));
        report.retain_confidence(Confidence::Medium);
        assert_eq!(report.findings.len(), 3);
        report.retain_confidence(Confidence::High);
        assert_eq!(report.findings.len(), 2);
        assert_eq!(report.below_min_confidence, Some((Confidence::High, 2)));
    }

    #[test]
    fn problems_show_archive_entries() {
        let plain = InputProblem::new("A.class", "bad magic");
        assert_eq!(plain.display_path(), "A.class");
        let entry = InputProblem::new("lib.jar", "bad magic").with_entry("a/B.class");
        assert_eq!(entry.display_path(), "lib.jar!a/B.class");
    }

    #[test]
    fn counts_ignore_duplicates() {
        let finding = Finding::new("r", Severity::Note, "m", Location::in_class("A"));
        let mut report = Report::new("1");
        report.findings = vec![finding.clone(), finding];
        assert_eq!(report.counts_by_rule().get("r"), Some(&1));
        assert_eq!(report.counts_by_severity()[2], (Severity::Note, 1));
        assert_eq!(report.exit_code(), EXIT_FINDINGS);
    }

    #[test]
    fn a_cut_analysis_without_findings_does_not_exit_ok() {
        let mut report = Report::new("1");
        assert_eq!(report.exit_code(), EXIT_OK);
        report.budget_cuts = Some(Vec::new());
        assert_eq!(report.exit_code(), EXIT_OK, "a budget that cut nothing");
        report.budget_cuts = Some(vec![BudgetCut {
            rule: "data-race".into(),
            phase: "detectors".into(),
            what: "not run".into(),
        }]);
        assert_eq!(report.exit_code(), EXIT_ERROR);
        report.findings = vec![Finding::new(
            "r",
            Severity::Note,
            "m",
            Location::in_class("A"),
        )];
        assert_eq!(report.exit_code(), EXIT_FINDINGS);
    }
}
