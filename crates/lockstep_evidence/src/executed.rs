//! What one run executed: the sites of its field, array and container
//! accesses (with the field a field access touched), of its lock
//! acquisitions, and the methods it entered. A trace's site table names every probed site of the
//! loaded classes, executed or not; only the events say what ran.

use std::collections::{BTreeMap, BTreeSet};

use lockstep_report::Location;
use lockstep_trace::{Event, SiteId, Trace};

use crate::site::RunSite;

/// An executed access: where, and the field's simple name (`None` for
/// array elements and container calls).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Access {
    site: RunSite,
    field: Option<String>,
}

/// The executed sites of one run, indexed by (class, method) so that a
/// finding's places are looked up without scanning every site.
#[derive(Debug, Default)]
pub struct Executed {
    accesses: BTreeMap<(String, String), Vec<Access>>,
    acquisitions: BTreeMap<(String, String), Vec<RunSite>>,
    /// Entered methods: (dotted class, name, descriptor).
    entered: BTreeSet<(String, String, String)>,
}

impl Executed {
    /// Collects the executed sites of `trace` (events whose site the
    /// table does not name are skipped: a truncated trace may lack it).
    pub fn of(trace: &Trace) -> Executed {
        let mut accesses: BTreeSet<(SiteId, Option<u32>)> = BTreeSet::new();
        let mut acquisitions: BTreeSet<SiteId> = BTreeSet::new();
        let mut entered: BTreeSet<u32> = BTreeSet::new();
        for e in trace.chunks.iter().flat_map(|c| c.events.iter()) {
            match *e {
                Event::Enter { method } => {
                    entered.insert(method);
                }
                Event::Read { field, site, .. } | Event::Write { field, site, .. } => {
                    accesses.insert((site, Some(field)));
                }
                Event::ArrayRead { site, .. }
                | Event::ArrayWrite { site, .. }
                | Event::ContainerRead { site, .. }
                | Event::ContainerWrite { site, .. } => {
                    accesses.insert((site, None));
                }
                Event::Acquire { site, .. } => {
                    acquisitions.insert(site);
                }
                _ => {}
            }
        }
        let mut out = Executed::default();
        let tables = &trace.tables;
        out.entered = entered
            .iter()
            .filter_map(|m| tables.methods.get(m))
            .map(|m| {
                let class = m.class.replace('/', ".");
                (class, m.name.clone(), m.descriptor.clone())
            })
            .collect();
        for (site, field) in accesses {
            let Some(s) = tables.sites.get(&site) else {
                continue;
            };
            let field = field
                .map(|f| tables.fields.get(&f).map(|fd| fd.name.clone()))
                .map(Option::unwrap_or_default);
            let site = RunSite::of(s);
            out.accesses
                .entry(key(&site))
                .or_default()
                .push(Access { site, field });
        }
        for site in acquisitions {
            if let Some(s) = tables.sites.get(&site) {
                let site = RunSite::of(s);
                out.acquisitions.entry(key(&site)).or_default().push(site);
            }
        }
        out
    }

    /// Whether the run accessed `field` (a simple name; `None`: any
    /// access) at `location`. An array or container access at the place
    /// counts for any field: the trace does not say which field holds
    /// the array.
    pub fn accessed(&self, location: &Location, field: Option<&str>) -> bool {
        let Some(list) = lookup(&self.accesses, location) else {
            return false;
        };
        list.iter().any(|a| {
            a.site.matches(location)
                && match (field, &a.field) {
                    (Some(want), Some(got)) => want == got,
                    _ => true,
                }
        })
    }

    /// Whether the run entered `class.name descriptor` (class dotted).
    pub fn entered(&self, class: &str, name: &str, descriptor: &str) -> bool {
        let key = (class.to_owned(), name.to_owned(), descriptor.to_owned());
        self.entered.contains(&key)
    }

    /// Whether the run entered a method of that class and name (any descriptor).
    pub fn entered_named(&self, class: &str, name: &str) -> bool {
        let from = (class.to_owned(), name.to_owned(), String::new());
        self.entered
            .range(from..)
            .next()
            .is_some_and(|(c, n, _)| c == class && n == name)
    }

    /// Whether the run took a lock at `location`.
    pub fn acquired(&self, location: &Location) -> bool {
        lookup(&self.acquisitions, location)
            .is_some_and(|list| list.iter().any(|s| s.matches(location)))
    }
}

fn key(site: &RunSite) -> (String, String) {
    (site.class.clone(), site.method.clone())
}

fn lookup<'a, T>(
    index: &'a BTreeMap<(String, String), Vec<T>>,
    location: &Location,
) -> Option<&'a Vec<T>> {
    let method = location.method.as_ref()?;
    index.get(&(location.class.clone(), method.clone()))
}
