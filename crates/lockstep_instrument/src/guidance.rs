//! Static guidance (`lockstep run --static`): the field and array access
//! instructions the static analysis proved race-free, which the rewriter
//! then leaves without a probe, and the methods it proved atomic, whose
//! entry and exit are then no transaction boundary (paper 004 §9: monitor
//! only what the static analysis could not verify).
//!
//! The guidance travels from the CLI to the agent as a small text file
//! (the agent's `static=<path>` option), one line per method:
//!
//! ```text
//! lockstep-guidance 3
//! skip<TAB>pkg/Class<TAB>method<TAB>(I)V<TAB>12,40,57
//! atomic<TAB>pkg/Class<TAB>get<TAB>()I
//! monitors<TAB>pkg/Class<TAB>inc<TAB>()V
//! ```
//!
//! `skip`: bytecode offsets of `getfield`/`putfield`/array load/store
//! instructions in that method. Only those instructions are ever skipped:
//! an offset naming any other instruction is ignored, so a `skip` line
//! can only lose probes on accesses, never on synchronization (only a
//! `monitors` line removes synchronization events). `atomic` (version 2): a method proven atomic at every
//! call site; its entry and exit are recorded only when a thread-safe
//! container calls it back (the atomicity log needs those to tell the
//! callback's acquire from the call's own). A file with no `atomic` line
//! is written as version 1, which older agents read. `monitors` (version
//! 3): a method whose monitor events (`monitorenter`/`monitorexit` and
//! those of a `synchronized` method) the checkers of the run provably do
//! not need (a monitor guarding nothing recorded, locked only by such
//! methods; the CLI decides); the rewriter gives them no probe, and its
//! other probes stay. A file is written with the
//! lowest version that holds its kinds. Names holding a tab
//! or a line break are not written (their accesses stay probed, their
//! methods stay transactions). Parsing never panics; a malformed line is
//! an error naming its line number.

use std::collections::{BTreeMap, BTreeSet};

use crate::Error;

/// First line of a guidance file; the number is the format's version.
/// Files without `atomic` lines are written with this header.
pub const GUIDANCE_HEADER: &str = "lockstep-guidance 1";
/// The header of files with `atomic` lines (version 2 adds that kind).
pub const GUIDANCE_HEADER_2: &str = "lockstep-guidance 2";
/// The header of files with `monitors` lines (version 3 adds that kind).
pub const GUIDANCE_HEADER_3: &str = "lockstep-guidance 3";

/// A method as the class file names it.
type MethodKey = (String, String, String);

/// Access instructions to leave unprobed, per method.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guidance {
    skip: BTreeMap<MethodKey, BTreeSet<u32>>,
    /// Methods proven atomic at every call site.
    atomic: BTreeSet<MethodKey>,
    /// Methods whose monitor events the run's checkers do not need.
    monitors: BTreeSet<MethodKey>,
}

fn key(class: &str, name: &str, descriptor: &str) -> MethodKey {
    (class.to_owned(), name.to_owned(), descriptor.to_owned())
}

/// Can a name go into a tab-separated line?
fn writable(s: &str) -> bool {
    !s.contains(['\t', '\n', '\r'])
}

impl Guidance {
    /// Marks the access instruction at `pc` of `class.name descriptor` as
    /// proven race-free (`class` in internal form, `pkg/Class`).
    pub fn skip_access(&mut self, class: &str, name: &str, descriptor: &str, pc: u32) {
        self.skip
            .entry(key(class, name, descriptor))
            .or_default()
            .insert(pc);
    }

    /// The offsets to skip in one method, if any.
    pub fn skipped_in(&self, class: &str, name: &str, descriptor: &str) -> Option<&BTreeSet<u32>> {
        self.skip.get(&key(class, name, descriptor))
    }

    /// Marks `class.name descriptor` as proven atomic at every call site.
    pub fn atomic_method(&mut self, class: &str, name: &str, descriptor: &str) {
        self.atomic.insert(key(class, name, descriptor));
    }

    /// Was the method proven atomic?
    pub fn is_atomic(&self, class: &str, name: &str, descriptor: &str) -> bool {
        !self.atomic.is_empty() && self.atomic.contains(&key(class, name, descriptor))
    }

    /// Leaves the monitor events of `class.name descriptor` unrecorded.
    pub fn elide_monitors(&mut self, class: &str, name: &str, descriptor: &str) {
        self.monitors.insert(key(class, name, descriptor));
    }

    /// Are the method's monitor events left unrecorded?
    pub fn monitors_elided(&self, class: &str, name: &str, descriptor: &str) -> bool {
        !self.monitors.is_empty() && self.monitors.contains(&key(class, name, descriptor))
    }

    /// How many methods have their monitor events left unrecorded.
    pub fn monitors_len(&self) -> usize {
        self.monitors.len()
    }

    /// How many methods are proven atomic.
    pub fn atomic_len(&self) -> usize {
        self.atomic.len()
    }

    /// How many access instructions are skipped in all.
    pub fn len(&self) -> usize {
        self.skip.values().map(BTreeSet::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.skip.is_empty() && self.atomic.is_empty() && self.monitors.is_empty()
    }

    /// The file's text (deterministic: methods and offsets sorted; the
    /// lowest version that holds its kinds: 1 without `atomic` and
    /// `monitors` lines, 2 without `monitors` lines, else 3).
    pub fn to_text(&self) -> String {
        let atomic = writable_methods(&self.atomic);
        let monitors = writable_methods(&self.monitors);
        let mut out = String::from(match (atomic.is_empty(), monitors.is_empty()) {
            (true, true) => GUIDANCE_HEADER,
            (false, true) => GUIDANCE_HEADER_2,
            (_, false) => GUIDANCE_HEADER_3,
        });
        out.push('\n');
        for ((class, name, desc), pcs) in &self.skip {
            if pcs.is_empty() || ![class, name, desc].iter().all(|s| writable(s)) {
                continue;
            }
            let pcs: Vec<String> = pcs.iter().map(u32::to_string).collect();
            out.push_str(&format!(
                "skip\t{class}\t{name}\t{desc}\t{}\n",
                pcs.join(",")
            ));
        }
        for (class, name, desc) in atomic {
            out.push_str(&format!("atomic\t{class}\t{name}\t{desc}\n"));
        }
        for (class, name, desc) in monitors {
            out.push_str(&format!("monitors\t{class}\t{name}\t{desc}\n"));
        }
        out
    }

    /// Reads a guidance file's text.
    pub fn parse(text: &str) -> Result<Guidance, Error> {
        let mut lines = text.lines().enumerate();
        let version = match lines.next() {
            Some((_, GUIDANCE_HEADER)) => 1,
            Some((_, GUIDANCE_HEADER_2)) => 2,
            Some((_, GUIDANCE_HEADER_3)) => 3,
            _ => {
                return Err(Error::new(format!(
                    "not a lockstep guidance file of a known version (the first line is none of `{GUIDANCE_HEADER}`, `{GUIDANCE_HEADER_2}`, `{GUIDANCE_HEADER_3}`)"
                )))
            }
        };
        let mut g = Guidance::default();
        for (i, line) in lines.filter(|(_, l)| !l.is_empty()) {
            let bad = |why: &str| Error::new(format!("guidance line {}: {why}", i + 1));
            let fields: Vec<&str> = line.split('\t').collect();
            match fields[..] {
                ["skip", class, name, desc, pcs] => {
                    for pc in pcs.split(',') {
                        let pc = pc
                            .parse::<u32>()
                            .map_err(|_| bad(&format!("bad offset `{pc}`")))?;
                        g.skip_access(class, name, desc, pc);
                    }
                }
                ["skip", ..] => return Err(bad("expected 5 tab-separated fields")),
                ["atomic", class, name, desc] if version >= 2 => g.atomic_method(class, name, desc),
                ["monitors", class, name, desc] if version >= 3 => {
                    g.elide_monitors(class, name, desc)
                }
                ["atomic", ..] if version >= 2 => {
                    return Err(bad("expected 4 tab-separated fields"))
                }
                ["monitors", ..] if version >= 3 => {
                    return Err(bad("expected 4 tab-separated fields"))
                }
                [kind, ..] => return Err(bad(&format!("unknown kind `{kind}`"))),
                [] => return Err(bad("empty line")),
            }
        }
        Ok(g)
    }
}

/// The methods of `set` whose names can go into a tab-separated line.
fn writable_methods(set: &BTreeSet<MethodKey>) -> Vec<&MethodKey> {
    set.iter()
        .filter(|(c, n, d)| [c, n, d].iter().all(|s| writable(s)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trips_and_is_sorted() {
        let mut g = Guidance::default();
        g.skip_access("b/B", "run", "()V", 40);
        g.skip_access("a/A", "<init>", "()V", 7);
        g.skip_access("b/B", "run", "()V", 3);
        let text = g.to_text();
        assert_eq!(
            text,
            "lockstep-guidance 1\nskip\ta/A\t<init>\t()V\t7\nskip\tb/B\trun\t()V\t3,40\n"
        );
        assert_eq!(Guidance::parse(&text).unwrap(), g);
        assert_eq!(g.len(), 3);
        assert!(g
            .skipped_in("b/B", "run", "()V")
            .is_some_and(|s| s.contains(&40)));
        assert!(g.skipped_in("b/B", "run", "(I)V").is_none());
    }

    #[test]
    fn bad_files_are_errors_naming_the_line() {
        assert!(Guidance::parse("").is_err());
        assert!(Guidance::parse("lockstep-guidance 4\n").is_err());
        let e = Guidance::parse("lockstep-guidance 1\nskip\ta/A\tm\t()V\tx\n").unwrap_err();
        assert!(e.message.contains("line 2"), "{e}");
        let e = Guidance::parse("lockstep-guidance 1\nskip\ta/A\n").unwrap_err();
        assert!(e.message.contains("5 tab-separated"), "{e}");
        let e = Guidance::parse("lockstep-guidance 1\nkeep\ta\tb\tc\t1\n").unwrap_err();
        assert!(e.message.contains("unknown kind"), "{e}");
    }

    #[test]
    fn atomic_methods_make_version_2_and_round_trip() {
        let mut g = Guidance::default();
        g.skip_access("a/A", "m", "()V", 4);
        g.atomic_method("a/A", "get", "()I");
        let text = g.to_text();
        assert_eq!(
            text,
            "lockstep-guidance 2\nskip\ta/A\tm\t()V\t4\natomic\ta/A\tget\t()I\n"
        );
        let back = Guidance::parse(&text).unwrap();
        assert_eq!(back, g);
        assert!(back.is_atomic("a/A", "get", "()I"));
        assert!(!back.is_atomic("a/A", "m", "()V"));
        assert_eq!(back.atomic_len(), 1);
        // Version 1 has no such kind.
        let e = Guidance::parse("lockstep-guidance 1\natomic\ta/A\tget\t()I\n").unwrap_err();
        assert!(e.message.contains("unknown kind `atomic`"), "{e}");
        let e = Guidance::parse("lockstep-guidance 2\natomic\ta/A\n").unwrap_err();
        assert!(e.message.contains("4 tab-separated"), "{e}");
    }

    #[test]
    fn names_with_tabs_are_not_written() {
        let mut g = Guidance::default();
        g.skip_access("a/A", "we\tird", "()V", 1);
        g.atomic_method("a/A", "we\tird", "()V");
        g.elide_monitors("a/A", "we\tird", "()V");
        assert_eq!(g.to_text(), "lockstep-guidance 1\n");
    }

    #[test]
    fn elided_monitors_make_version_3_and_round_trip() {
        let mut g = Guidance::default();
        g.atomic_method("a/A", "get", "()I");
        g.elide_monitors("a/A", "inc", "()V");
        let text = g.to_text();
        assert_eq!(
            text,
            "lockstep-guidance 3\natomic\ta/A\tget\t()I\nmonitors\ta/A\tinc\t()V\n"
        );
        let back = Guidance::parse(&text).unwrap();
        assert_eq!(back, g);
        assert!(back.monitors_elided("a/A", "inc", "()V"));
        assert!(!back.monitors_elided("a/A", "get", "()I"));
        assert_eq!(back.monitors_len(), 1);
        // Versions 1 and 2 have no such kind.
        for v in [1, 2] {
            let e = Guidance::parse(&format!("lockstep-guidance {v}\nmonitors\ta/A\tinc\t()V\n"))
                .unwrap_err();
            assert!(e.message.contains("unknown kind `monitors`"), "{e}");
        }
        let e = Guidance::parse("lockstep-guidance 3\nmonitors\ta/A\n").unwrap_err();
        assert!(e.message.contains("4 tab-separated"), "{e}");
    }
}
