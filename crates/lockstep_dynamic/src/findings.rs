//! Turns races into `data-race` findings: the variable, both accesses
//! (class, method, line, call stack), the threads (names and where they
//! started), the locks held at each, the object (class, allocation site)
//! and the checkers that found it.

use lockstep_report::{Finding, Location, Severity};
use lockstep_trace::{ObjId, SiteId, Tables, ThreadId};

use crate::context::{Access, Context, StackId};
use crate::race::{Race, VarKind};

/// At most this many frames of a call stack are shown.
const MAX_FRAMES: usize = 8;

/// What naming a race needs.
pub struct View<'a> {
    /// The trace's tables.
    pub tables: &'a Tables,
    /// Locks and call stacks.
    pub ctx: &'a Context,
    /// Recorder thread id of each internal thread.
    pub threads: &'a [ThreadId],
}

fn dotted(internal: &str) -> String {
    internal.replace('/', ".")
}

/// The location of a site (unknown sites get a placeholder class).
pub fn site_location(tables: &Tables, site: SiteId) -> Location {
    match tables.sites.get(&site) {
        Some(s) => {
            let mut l = Location::in_method(dotted(&s.class), &s.method, &s.descriptor);
            if let Some(f) = &s.file {
                l = l.with_file(f);
            }
            if let Some(line) = s.line {
                l = l.with_line(line);
            }
            l
        }
        None => Location::in_class(format!("<unknown site {site}>")),
    }
}

/// `pkg.Cls.method(…) (File.java:12)` of a site.
pub fn short_site(tables: &Tables, site: SiteId) -> String {
    let l = site_location(tables, site);
    format!("{} ({})", l.display_method(), l.position())
}

/// `name` of a thread, with where it was started.
pub fn thread_name(view: &View, t: u32) -> String {
    let id = view.threads.get(t as usize).copied().unwrap_or(t);
    match view.tables.threads.get(&id) {
        Some(info) => match info.start_site {
            Some(s) => format!(
                "`{}` (started at {})",
                info.name,
                short_site(view.tables, s)
            ),
            None => format!("`{}`", info.name),
        },
        None => format!("`thread-{id}`"),
    }
}

/// `pkg.Cls@id` for an object.
pub fn object_name(tables: &Tables, obj: ObjId) -> String {
    match tables.objects.get(&obj) {
        Some(o) => format!("{}@{obj}", dotted(&o.class)),
        None => format!("object@{obj}"),
    }
}

fn locks_text(view: &View, acc: &Access) -> String {
    let held = view.ctx.locksets.get(acc.locks);
    if held.is_empty() {
        return "holding no lock".into();
    }
    let names: Vec<String> = held
        .iter()
        .map(|&(l, k)| {
            let suffix = match k {
                lockstep_trace::LockKind::Read => " (read)",
                lockstep_trace::LockKind::Write => " (write)",
                _ => "",
            };
            format!("{}{suffix}", object_name(view.tables, l))
        })
        .collect();
    format!("holding {}", names.join(", "))
}

/// A call stack, innermost first (`None` when empty).
pub fn stack_text(view: &View, stack: StackId) -> Option<String> {
    let frames = view.ctx.calls.frames(stack);
    if frames.is_empty() {
        return None;
    }
    let mut names: Vec<String> = frames
        .iter()
        .take(MAX_FRAMES)
        .map(|m| match view.tables.methods.get(m) {
            Some(m) => format!("{}.{}", dotted(&m.class), m.name),
            None => format!("<method {m}>"),
        })
        .collect();
    if frames.len() > MAX_FRAMES {
        names.push(format!("… {} more", frames.len() - MAX_FRAMES));
    }
    Some(names.join(" <- "))
}

fn access_text(view: &View, acc: &Access) -> String {
    let kind = if acc.write { "write" } else { "read" };
    let mut s = format!(
        "{kind} by thread {}, {}",
        thread_name(view, acc.thread),
        locks_text(view, acc)
    );
    if let Some(stack) = stack_text(view, acc.stack) {
        s.push_str("; call stack: ");
        s.push_str(&stack);
    }
    s
}

/// What the race is on, e.g. `` `pkg.Cls.count` `` or `an element [3] of int[]`.
fn variable_text(view: &View, race: &Race) -> (String, Option<String>) {
    match race.var.kind() {
        VarKind::Field(f) => {
            let name = match view.tables.fields.get(&f) {
                Some(fd) => format!("{}.{}", dotted(&fd.class), fd.name),
                None => format!("<field {f}>"),
            };
            (format!("field `{name}`"), Some(name))
        }
        VarKind::Element(i) => (
            format!(
                "element [{i}] of array {}",
                object_name(view.tables, race.var.obj)
            ),
            None,
        ),
        VarKind::Container => (
            format!("the contents of {}", object_name(view.tables, race.var.obj)),
            None,
        ),
    }
}

/// The finding for one race.
pub fn race_finding(race: &Race, view: &View) -> Finding {
    let (what, field) = variable_text(view, race);
    let kind = |a: &Access| if a.write { "write" } else { "read" };
    let message = format!(
        "data race on {what}: a {} in thread {} and a {} in thread {} were not ordered in this run",
        kind(&race.first),
        thread_name(view, race.first.thread),
        kind(&race.second),
        thread_name(view, race.second.thread),
    );
    let mut f = Finding::new(
        "data-race",
        Severity::Warning,
        message,
        site_location(view.tables, race.second.site),
    )
    .with_provenance("run")
    // Observed in an execution: both accesses happened, unordered.
    .with_confidence(lockstep_report::Confidence::High)
    .with_related(
        site_location(view.tables, race.first.site),
        format!("earlier {}", access_text(view, &race.first)),
    )
    .with_note(format!("this {}", access_text(view, &race.second)));
    if let Some(field) = field {
        f = f.with_field(field);
    }
    if race.var.obj != 0 {
        let mut obj = format!("object: {}", object_name(view.tables, race.var.obj));
        if let Some(site) = view
            .tables
            .objects
            .get(&race.var.obj)
            .and_then(|o| o.alloc_site)
        {
            obj.push_str(&format!(", allocated at {}", short_site(view.tables, site)));
        }
        f = f.with_note(obj);
    }
    let by: Vec<&str> = race.found_by().iter().map(|c| c.name()).collect();
    f.with_note(format!("found by: {}", by.join(", ")))
}
