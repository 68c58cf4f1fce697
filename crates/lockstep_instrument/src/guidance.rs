//! Static guidance (`lockstep run --static`): the field and array access
//! instructions the static analysis proved race-free, which the rewriter
//! then leaves without a probe (paper 004 §9: monitor only what the
//! static analysis could not verify).
//!
//! The guidance travels from the CLI to the agent as a small text file
//! (the agent's `static=<path>` option), one line per method:
//!
//! ```text
//! lockstep-guidance 1
//! skip<TAB>pkg/Class<TAB>method<TAB>(I)V<TAB>12,40,57
//! ```
//!
//! The numbers are bytecode offsets of `getfield`/`putfield`/array
//! load/store instructions in that method. Only those instructions are
//! ever skipped: an offset naming any other instruction is ignored, so a
//! stale or hand-written file can only lose probes on accesses, never on
//! synchronization. Names holding a tab or a line break are not written
//! (their accesses stay probed). Parsing never panics; a malformed line is
//! an error naming its line number.

use std::collections::{BTreeMap, BTreeSet};

use crate::Error;

/// First line of a guidance file; the number is the format's version.
pub const GUIDANCE_HEADER: &str = "lockstep-guidance 1";

/// A method as the class file names it.
type MethodKey = (String, String, String);

/// Access instructions to leave unprobed, per method.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guidance {
    skip: BTreeMap<MethodKey, BTreeSet<u32>>,
}

impl Guidance {
    /// Marks the access instruction at `pc` of `class.name descriptor` as
    /// proven race-free (`class` in internal form, `pkg/Class`).
    pub fn skip_access(&mut self, class: &str, name: &str, descriptor: &str, pc: u32) {
        let key = (class.to_owned(), name.to_owned(), descriptor.to_owned());
        self.skip.entry(key).or_default().insert(pc);
    }

    /// The offsets to skip in one method, if any.
    pub fn skipped_in(&self, class: &str, name: &str, descriptor: &str) -> Option<&BTreeSet<u32>> {
        let key = (class.to_owned(), name.to_owned(), descriptor.to_owned());
        self.skip.get(&key)
    }

    /// How many access instructions are skipped in all.
    pub fn len(&self) -> usize {
        self.skip.values().map(BTreeSet::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.skip.is_empty()
    }

    /// The file's text (deterministic: methods and offsets sorted).
    pub fn to_text(&self) -> String {
        let mut out = String::from(GUIDANCE_HEADER);
        out.push('\n');
        let writable = |s: &str| !s.contains(['\t', '\n', '\r']);
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
        out
    }

    /// Reads a guidance file's text.
    pub fn parse(text: &str) -> Result<Guidance, Error> {
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, GUIDANCE_HEADER)) => {}
            _ => {
                return Err(Error::new(format!(
                    "not a lockstep guidance file (the first line is not `{GUIDANCE_HEADER}`)"
                )))
            }
        }
        let mut g = Guidance::default();
        for (i, line) in lines.filter(|(_, l)| !l.is_empty()) {
            let bad = |why: &str| Error::new(format!("guidance line {}: {why}", i + 1));
            let fields: Vec<&str> = line.split('\t').collect();
            let [kind, class, name, desc, pcs] = fields[..] else {
                return Err(bad("expected 5 tab-separated fields"));
            };
            if kind != "skip" {
                return Err(bad(&format!("unknown kind `{kind}`")));
            }
            for pc in pcs.split(',') {
                let pc = pc
                    .parse::<u32>()
                    .map_err(|_| bad(&format!("bad offset `{pc}`")))?;
                g.skip_access(class, name, desc, pc);
            }
        }
        Ok(g)
    }
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
        assert!(Guidance::parse("lockstep-guidance 2\n").is_err());
        let e = Guidance::parse("lockstep-guidance 1\nskip\ta/A\tm\t()V\tx\n").unwrap_err();
        assert!(e.message.contains("line 2"), "{e}");
        let e = Guidance::parse("lockstep-guidance 1\nskip\ta/A\n").unwrap_err();
        assert!(e.message.contains("5 tab-separated"), "{e}");
        let e = Guidance::parse("lockstep-guidance 1\nkeep\ta\tb\tc\t1\n").unwrap_err();
        assert!(e.message.contains("unknown kind"), "{e}");
    }

    #[test]
    fn names_with_tabs_are_not_written() {
        let mut g = Guidance::default();
        g.skip_access("a/A", "we\tird", "()V", 1);
        assert_eq!(g.to_text(), "lockstep-guidance 1\n");
    }
}
