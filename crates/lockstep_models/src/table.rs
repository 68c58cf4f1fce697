//! Lookup over the static tables: by method name first (a lazily built
//! index, so a call site whose name no entry has costs one hash probe), then
//! by class (exact, or through the caller's subtype callback) and descriptor.
//!
//! It knows nothing of what the entries mean.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::Desc;

/// "Is `sub` a subtype of `sup`?", answered by the caller's class hierarchy.
pub(crate) type IsSubtype<'a> = &'a dyn Fn(&str, &str) -> bool;

/// An entry keyed by declaring class, method name and descriptor pattern.
pub(crate) trait Keyed: Sync + 'static {
    fn key(&self) -> (&'static str, &'static str, Desc);
}

/// A static table with a by-name index built on first use.
pub(crate) struct Table<T: 'static> {
    entries: &'static [T],
    by_name: OnceLock<HashMap<&'static str, Vec<usize>>>,
}

impl<T: Keyed> Table<T> {
    pub(crate) const fn new(entries: &'static [T]) -> Table<T> {
        Table {
            entries,
            by_name: OnceLock::new(),
        }
    }

    pub(crate) fn entries(&self) -> &'static [T] {
        self.entries
    }

    fn candidates(&self, name: &str) -> &[usize] {
        let index = self.by_name.get_or_init(|| {
            let mut m: HashMap<&'static str, Vec<usize>> = HashMap::new();
            for (i, e) in self.entries.iter().enumerate() {
                m.entry(e.key().1).or_default().push(i);
            }
            m
        });
        index.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Every entry for `class.name desc`: entries declared on `class` itself
    /// first, then (with `is_subtype`) those declared on a supertype, each
    /// group in table order.
    pub(crate) fn lookup(
        &self,
        class: &str,
        name: &str,
        desc: Option<&str>,
        is_subtype: Option<IsSubtype<'_>>,
    ) -> Vec<&'static T> {
        let entries = self.entries;
        let cands = self.candidates(name);
        if cands.is_empty() {
            return Vec::new();
        }
        let desc_ok = |e: &T| desc.is_none_or(|d| e.key().2.matches(d));
        let mut out: Vec<&'static T> = cands
            .iter()
            .map(|&i| &entries[i])
            .filter(|e| e.key().0 == class && desc_ok(e))
            .collect();
        if let Some(sub) = is_subtype {
            out.extend(
                cands
                    .iter()
                    .map(|&i| &entries[i])
                    .filter(|e| e.key().0 != class && desc_ok(e) && sub(class, e.key().0)),
            );
        }
        out
    }
}

/// A static set of class names with optional package prefixes (ending in `/`)
/// and class-name prefixes (ending in `*`, e.g. `java/util/Collections$Synchronized*`).
pub(crate) fn name_matches(patterns: &[&str], class: &str) -> bool {
    patterns.iter().any(|p| {
        if let Some(prefix) = p.strip_suffix('*') {
            class.starts_with(prefix)
        } else if p.ends_with('/') {
            class.starts_with(p) && !class[p.len()..].contains('/')
        } else {
            *p == class
        }
    })
}
