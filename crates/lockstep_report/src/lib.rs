//! Findings model and output renderers for lockstep.
//!
//! This crate is rule-independent: it knows nothing about detectors, class
//! files or analyses. Detectors produce [`Finding`]s, the CLI gathers them
//! into a [`Report`] and asks a renderer for a `String`. Renderers never
//! print, so the CLI alone decides where output goes.
//!
//! Every renderer emits findings in the canonical order of
//! [`Report::normalize`] without duplicates, whatever order they were
//! produced in, so output is byte-identical across runs.
//!
//! Formats (see `docs/output-formats.md`):
//! - [`text`]: human-readable diagnostics (full or concise, optional color),
//! - [`json`]: the versioned machine-readable contract ([`JSON_FORMAT_VERSION`]),
//! - [`sarif`]: SARIF 2.1.0 for code-scanning tools,
//! - [`github`]: GitHub Actions workflow commands.

pub mod descriptor;
pub mod evidence;
pub mod fingerprint;
pub mod github;
pub mod glob;
pub mod json;
pub mod model;
pub mod sarif;
pub mod sources;
pub mod text;

use std::fmt;
use std::str::FromStr;

pub use descriptor::pretty_params;
pub use evidence::{Evidence, EvidenceCounts, EvidenceStatus};
pub use fingerprint::{fingerprint, FINGERPRINT_KEY};
pub use github::{render_github, GithubOptions};
pub use glob::glob_matches;
pub use json::{render_json, JSON_FORMAT_VERSION, TOOL_NAME};
pub use model::{
    BudgetCut, Confidence, Finding, Flow, InputProblem, Location, ParseConfidenceError,
    ParseSeverityError, ProblemKind, Related, Report, RuleMeta, Scope, Severity, Summary,
    SuppressedFinding, Suppression, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK,
};
pub use sarif::{render_sarif, SarifOptions, SARIF_SCHEMA};
pub use sources::Sources;
pub use text::{render_text, render_text_with_sources, summary_line, TextOptions};

/// An output format the CLI can select with `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OutputFormat {
    /// Full human-readable diagnostics (the default).
    #[default]
    Text,
    /// One line per finding.
    Concise,
    /// The versioned JSON contract.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// GitHub Actions workflow commands.
    Github,
}

impl OutputFormat {
    /// Every format, in the order shown in help text.
    pub const ALL: [OutputFormat; 5] = [
        OutputFormat::Text,
        OutputFormat::Concise,
        OutputFormat::Json,
        OutputFormat::Sarif,
        OutputFormat::Github,
    ];

    /// The name accepted by `--format`.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Text => "text",
            OutputFormat::Concise => "concise",
            OutputFormat::Json => "json",
            OutputFormat::Sarif => "sarif",
            OutputFormat::Github => "github",
        }
    }
}

impl fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error returned when parsing an unknown format name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFormatError(pub String);

impl fmt::Display for ParseFormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = OutputFormat::ALL.iter().map(|f| f.name()).collect();
        write!(
            f,
            "unknown output format `{}` (expected one of: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for ParseFormatError {}

impl FromStr for OutputFormat {
    type Err = ParseFormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OutputFormat::ALL
            .into_iter()
            .find(|format| format.name() == s)
            .ok_or_else(|| ParseFormatError(s.to_owned()))
    }
}

/// Everything any renderer may need, so the CLI can dispatch with one call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RenderOptions {
    /// ANSI colors for the text formats.
    pub color: bool,
    /// Rule metadata for SARIF.
    pub rules: Vec<RuleMeta>,
    /// Directory prepended to source paths in SARIF and GitHub output.
    pub source_root: Option<String>,
    /// `informationUri` for SARIF.
    pub information_uri: Option<String>,
    /// Source text and repository-relative paths of the findings' files.
    pub sources: Sources,
}

/// Renders `report` in `format`. The result always ends with a newline.
pub fn render(report: &Report, format: OutputFormat, options: &RenderOptions) -> String {
    match format {
        OutputFormat::Text | OutputFormat::Concise => render_text_with_sources(
            report,
            &TextOptions {
                color: options.color,
                concise: format == OutputFormat::Concise,
            },
            &options.sources,
        ),
        OutputFormat::Json => render_json(report),
        OutputFormat::Sarif => render_sarif(
            report,
            &options.rules,
            &SarifOptions {
                source_root: options.source_root.clone(),
                information_uri: options.information_uri.clone(),
                source_paths: options.sources.repo_paths.clone(),
            },
        ),
        OutputFormat::Github => render_github(
            report,
            &GithubOptions {
                source_root: options.source_root.clone(),
                source_paths: options.sources.repo_paths.clone(),
            },
        ),
    }
}
