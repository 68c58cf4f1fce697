//! Warnings about an analysis that saw less than it should: class-path
//! entries that gave no class, and a program whose own classes largely
//! extend or implement classes that are on no class path (a missing
//! dependency hides the threads and locks it would bring). The CLI prints
//! them prominently; the report carries the underlying problems.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lockstep_classpath::Library;

use crate::load::Workspace;

/// The share of application classes with a missing super type from which
/// the missing dependencies are called out (one in ten).
const MISSING_SHARE_PERCENT: u64 = 10;

/// How many missing packages the warning names.
const PACKAGES_NAMED: usize = 5;

impl Workspace {
    /// Warnings for the user, in a stable order.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = self.load_warnings.clone();
        out.extend(self.missing_dependencies_warning());
        out
    }

    fn missing_dependencies_warning(&self) -> Option<String> {
        let missing = self.missing_classes();
        let mut needers = BTreeSet::new();
        let mut by_package: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
        for (class, needed_by) in &missing {
            let package = class
                .rsplit_once('/')
                .map_or("(default package)".to_string(), |(p, _)| {
                    p.replace('/', ".")
                });
            for who in needed_by {
                needers.insert(who.as_str());
                by_package.entry(package.clone()).or_default().insert(who);
            }
        }
        let affected = needers.len() as u64;
        if affected == 0 || affected * 100 < self.app_classes * MISSING_SHARE_PERCENT {
            return None;
        }
        let mut packages: Vec<(usize, String)> = by_package
            .into_iter()
            .map(|(package, who)| (who.len(), package))
            .collect();
        // Most-needed first; ties by name, for deterministic output.
        packages.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let named: Vec<String> = packages
            .iter()
            .take(PACKAGES_NAMED)
            .map(|(n, package)| format!("{package} ({n})"))
            .collect();
        let more = packages.len().saturating_sub(PACKAGES_NAMED);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        Some(format!(
            "{affected} of {} application classes extend or implement classes that are on no class path, \
             so what those classes do (threads they start, locks they take) is not analysed; \
             most needed packages: {}{more}. Add the jars that define them with -cp",
            self.app_classes,
            named.join(", ")
        ))
    }
}

/// Warnings for class-path entries given by the user that exist but gave
/// no class (an empty directory, a jar of resources). Entries that do not
/// exist are problems already.
pub(crate) fn empty_classpath_entries(given: &[PathBuf], library: &Library) -> Vec<String> {
    let candidates: Vec<&PathBuf> = given.iter().filter(|p| p.exists()).collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let containers: BTreeSet<PathBuf> = library
        .class_names()
        .filter_map(|name| library.origin(name))
        .map(|origin| origin.container)
        .collect();
    candidates
        .into_iter()
        .filter(|entry| !holds_any(&containers, entry))
        .map(|entry| {
            format!(
                "class-path entry {} holds no class files (or only classes an earlier entry already has); \
                 nothing was read from it",
                entry.display()
            )
        })
        .collect()
}

fn holds_any(containers: &BTreeSet<PathBuf>, entry: &Path) -> bool {
    containers.iter().any(|c| c.starts_with(entry))
}

/// Warnings for class-path entries given by the user that do not exist
/// (the problem is in the report too; this makes it loud).
pub(crate) fn missing_classpath_entries(given: &[PathBuf]) -> Vec<String> {
    given
        .iter()
        // `lib/*` is a wildcard the class-path reader expands.
        .filter(|p| !p.exists() && !p.to_string_lossy().contains('*'))
        .map(|p| {
            format!(
                "class-path entry {} does not exist; nothing was read from it",
                p.display()
            )
        })
        .collect()
}
