//! Source text for findings, handed in by the caller (the report layer
//! reads no files): the text of each source file, keyed by the location's
//! package-qualified path (`com/example/Counter.java`), and the file's path
//! relative to the repository root, for SARIF and `github` locations.
//!
//! The text renderer shows the marked line of each located finding with
//! `annotate-snippets`.

use std::collections::BTreeMap;

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use crate::model::Location;

/// Sources found for a report's locations.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sources {
    /// File text by package-qualified path.
    pub texts: BTreeMap<String, String>,
    /// Repository-relative path by package-qualified path.
    pub repo_paths: BTreeMap<String, String>,
}

impl Sources {
    /// The repository-relative path of `location`'s source, if known.
    pub fn repo_path(&self, location: &Location) -> Option<&str> {
        self.repo_paths
            .get(&location.source_path())
            .map(String::as_str)
    }

    /// The source line `line` (1-based) of `location`'s file.
    fn line_of(&self, location: &Location) -> Option<(u32, &str)> {
        let line = location.line?;
        let text = self.texts.get(&location.source_path())?;
        let index = usize::try_from(line.checked_sub(1)?).ok()?;
        text.lines().nth(index).map(|l| (line, l))
    }

    /// The location's line with its code marked and labelled, or `None`
    /// when its source or line is unknown. Lines are indented by `indent`
    /// so the snippet stays inside the finding's block.
    pub fn snippet(
        &self,
        location: &Location,
        label: &str,
        color: bool,
        indent: &str,
    ) -> Option<String> {
        let (line, text) = self.line_of(location)?;
        let start = text.len() - text.trim_start().len();
        let end = text.trim_end().len().max(start);
        let group = Group::with_level(Level::NOTE).element(
            Snippet::source(text)
                .line_start(line as usize)
                .annotation(AnnotationKind::Primary.span(start..end).label(label)),
        );
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let rendered = renderer.render(&[group]);
        let mut out = String::new();
        for l in rendered.lines() {
            out.push_str(indent);
            out.push_str(l.trim_end());
            out.push('\n');
        }
        Some(out)
    }
}
