//! Test support for lockstep: compile Java fixtures with `javac` at test time
//! and check the analyzer's findings against expectations written as
//! comments next to the code.
//!
//! ```no_run
//! use lockstep_testkit::{compile_dir, CompileOptions, ActualFinding, assert_expectations};
//! use std::path::Path;
//!
//! let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/counter");
//! let fixture = compile_dir(&dir, &CompileOptions::default()).unwrap();
//! let findings: Vec<ActualFinding> = Vec::new(); // run the analyzer on fixture.class_files()
//! assert_expectations(&fixture.expectations(), &findings);
//! ```
//!
//! # Compiling
//!
//! [`compile`], [`compile_dir`] and [`compile_snippet`] run the javac found by
//! [`javac()`] (`$LOCKSTEP_JAVAC`, else `$JAVA_HOME/bin/javac`, else `javac`
//! on `PATH`) with `-encoding UTF-8 -proc:none`, `-g` or `-g:none`, optional
//! `--release N` and any extra arguments, into a directory of class files.
//!
//! Results are cached on disk by content: the key is an FNV-1a-128 hash of
//! javac's path and version, the flags, and every source's path and text.
//! The cache root is [`cache_root()`]: `$LOCKSTEP_FIXTURE_CACHE`, else
//! `<cargo target dir>/lockstep-javac-cache`. An entry is
//! `<root>/<key>/{src/, classes/, javac.log, manifest.txt}`. A compile goes
//! into a private `<root>/.tmp-*` directory that is renamed into place in one
//! step, so any number of threads or processes (cargo-nextest runs each test
//! in its own) may compile the same fixture at once: whoever loses the rename
//! race uses the winner's identical entry. Failed compiles are not cached.
//! The cache may be deleted whenever no test runs.
//!
//! # Expectations
//!
//! Fixtures state what the analyzer should report with line comments:
//!
//! ```java
//! class Counter {
//!     int count;
//!     void inc() { count++; }                // expect: data-race
//!     synchronized void ok() { count++; }    // expect-not: data-race
//!     // expect: data-race, lock-order
//!     void both() { /* ... */ }
//!     void twice() { a++; b++; }             // expect: data-race x2
//! }
//! ```
//!
//! * **Which line.** A directive in a comment that follows code on the same
//!   line (a trailing comment) applies to that line. A directive in a comment
//!   on a line of its own applies to the *next line that has code*: blank
//!   lines and lines holding only comments (line or block) are skipped, and
//!   several such comments in a row all apply to that same code line.
//!   Annotations count as code. A directive with no code line after it is an
//!   error.
//! * **Directives.** `expect: RULES` — each rule must be reported on the line
//!   (at least once). `expect-not: RULES` — no finding of the rule may be on
//!   the line. `known-fn: RULES` — see below. One comment may hold several,
//!   each starting with `//`: `// expect: a // expect-not: b`.
//! * **Rule lists.** `RULES` is `rule, rule, ...`; a rule name starts with a
//!   letter and continues with letters, digits and `-_./`. Whatever follows
//!   the list (after whitespace, not after a comma) is a free-text note, e.g.
//!   `// expect: data-race  the two writes race`.
//! * **Counts.** `rule xN` (N ≥ 1, positive directives only) requires
//!   *exactly* N findings of the rule on the line; a bare `rule` accepts one
//!   or more. There is no `expect[N]` form.
//! * **Strictness.** Comments that begin with `expect`, `expect-not` or
//!   `known-fn` as a whole word but lack the `:` or a rule are errors
//!   ([`expectations`] panics, [`try_expectations`] returns `Err`), so a typo
//!   cannot silently turn a test into a no-op. Other comments (`// expected
//!   3`) are ignored, as are directives inside block comments and strings.
//! * **Files.** Expectations are keyed by the source's *base name*
//!   (`Counter.java`), as class files record it in their `SourceFile`
//!   attribute; findings are compared by base name too. Avoid two fixture
//!   files with the same base name in one compile.
//!
//! # Known limits
//!
//! A fixture documents analyzer mistakes while still asserting today's
//! behaviour, so that fixing one makes the test fail with instructions:
//!
//! * **Known false positive:** `// expect: data-race (FP: guarded by the
//!   happens-before of Thread.start)`. The finding is still required (it is
//!   reported today); the `FP:` in the note marks it
//!   ([`KnownLimit::FalsePositive`]). When the analyzer stops reporting it,
//!   the check fails with "known false positive no longer reported ... update
//!   the fixture" — change the line to `expect-not: data-race`.
//! * **Known false negative:** `// known-fn: data-race why it is missed`. It
//!   is a negative expectation ([`KnownLimit::FalseNegative`]): today no
//!   finding is reported. When the analyzer starts finding it, the check
//!   fails with "known false negative is now found: update the fixture" —
//!   change the line to `expect: data-race`.
//!
//! # Checking
//!
//! [`check_expectations`] (strict) requires every positive expectation to be
//! met, no finding on an `expect-not`/`known-fn` line, and no finding that
//! was not expected. [`check_expectations_lenient`] ignores findings of rules
//! the expectations never mention, for tests about one rule. Both return a
//! readable report; [`assert_expectations`] and
//! [`assert_expectations_lenient`] panic with it.

mod cache;
mod error;
mod expect;
mod fixture;
mod hash;
mod javac;
mod lex;
mod snippet;

pub use cache::{cache_root, workspace_root};
pub use error::CompileError;
pub use expect::{
    assert_expectations, assert_expectations_lenient, check_expectations,
    check_expectations_lenient, expectations, try_expectations, ActualFinding, Expectation,
    KnownLimit,
};
pub use fixture::{read_java_dir, SourceFile};
pub use javac::{
    compile, compile_dir, compile_snippet, compile_snippet_with, javac, CompileOptions,
    CompiledFixture, JavaCompiler,
};
