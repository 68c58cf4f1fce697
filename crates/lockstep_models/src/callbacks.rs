//! JDK code that calls back into the objects its caller hands it, for the
//! points-to analysis: such methods run in their *caller's* context.
//!
//! The points-to analysis gives most JDK methods no context (one copy of
//! `String.valueOf` for the whole program), so the parameter of the one
//! copy holds every object anyone passes, and its `x.toString()` reaches
//! every `toString` of them from every thread that calls it (measured on
//! h2: `PrintStream.println → String.valueOf → SpinedBuffer.toString → …
//! → AbstractPipeline.close → Runnable.run`, on the paths of 1,147
//! races). Running these methods in the context of the method that calls
//! them keeps one caller's objects, and the callbacks they make, apart
//! from another's, at the cost of one copy per calling context.
//!
//! Listed: a few methods by name (the `toString`/`print`/`format`
//! family that calls `toString`, `Iterable.forEach`, the `AssertionError`
//! constructor that renders its detail object, `Throwable`'s printing),
//! and whole packages
//! or classes whose public entry points take callbacks and then run
//! private helpers of their own (stream pipelines, `AccessController`),
//! where every method, helpers included, inherits the context.
//!
//! Not listed: JDK collections and concurrency classes, which already get
//! contexts from their receivers ([`crate::keeps_object_contexts`]).

use crate::table::{Keyed, Table};
use crate::Desc;

/// One JDK method that runs in its caller's context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallerContextMethod {
    /// Declaring class (internal name).
    pub class: &'static str,
    pub name: &'static str,
    pub desc: Desc,
}

impl Keyed for CallerContextMethod {
    fn key(&self) -> (&'static str, &'static str, Desc) {
        (self.class, self.name, self.desc)
    }
}

const fn m(class: &'static str, name: &'static str, desc: Desc) -> CallerContextMethod {
    CallerContextMethod { class, name, desc }
}

use Desc::{Any, Exact, Params};

const OBJ: &str = "(Ljava/lang/Object;)";

#[rustfmt::skip]
static METHODS: &[CallerContextMethod] = &[
    // `x.toString()` on the argument; `Object.toString` calls `hashCode()`.
    m("java/lang/String", "valueOf", Params(OBJ)),
    m("java/lang/String", "format", Any),
    m("java/lang/String", "formatted", Any),
    m("java/lang/String", "join", Any),
    m("java/lang/Object", "toString", Exact("()Ljava/lang/String;")),
    m("java/lang/AbstractStringBuilder", "append", Params(OBJ)),
    m("java/lang/StringBuilder", "append", Params(OBJ)),
    m("java/lang/StringBuffer", "append", Params(OBJ)),
    // Every overload: `println(String)` calls `String.valueOf(Object)` too,
    // and `System.out` is one object, so its methods get no context of their own.
    m("java/io/PrintStream", "print", Any),
    m("java/io/PrintStream", "println", Any),
    m("java/io/PrintStream", "printf", Any),
    m("java/io/PrintStream", "format", Any),
    m("java/io/PrintWriter", "print", Any),
    m("java/io/PrintWriter", "println", Any),
    m("java/io/PrintWriter", "printf", Any),
    m("java/io/PrintWriter", "format", Any),
    // The default method runs the action on every element.
    m("java/lang/Iterable", "forEach", Any),
    // `String.valueOf` on the detail object: called from application code
    // in the JDK's one shared copy, every `new AssertionError(x)` of the
    // program rendered every `x` of every other (measured on h2: the first
    // JDK frames of the path `RecoverTester.log → … → AbstractPipeline.close
    // → TcpServerThread.run` are `StringUTF16.getChar → AssertionError.<init>
    // → String.valueOf`).
    m("java/lang/AssertionError", "<init>", Params(OBJ)),
    // Printing an exception prints `toString()` (`getMessage()`, which
    // applications override) of it and of its causes through private
    // helpers and the wrapper classes below.
    m("java/lang/Throwable", "printStackTrace", Any),
    m("java/lang/Throwable", "printEnclosedStackTrace", Any),
    m("java/lang/Throwable", "toString", Exact("()Ljava/lang/String;")),
    m("java/lang/Throwable", "getLocalizedMessage", Exact("()Ljava/lang/String;")),
];

static TABLE: Table<CallerContextMethod> = Table::new(METHODS);

/// Classes (`Name`) and packages (`pkg/`, direct members and their nested
/// classes) every method of which runs in its caller's context.
#[rustfmt::skip]
const CLASSES: &[&str] = &[
    // Pipelines keep the caller's lambdas and `onClose` actions in their
    // stage objects and call them from private helpers.
    "java/util/stream/",
    // `doPrivileged(action)` runs `action.run()` through private helpers.
    "java/security/AccessController",
    // `requireNonNull` returns its argument and `toString`, `equals`,
    // `hashCode` call back into it: one shared copy of the class passes
    // every object anyone checks to every caller.
    "java/util/Objects",
    // `printStackTrace` prints through these wrappers of its stream.
    "java/lang/Throwable$PrintStreamOrWriter",
    "java/lang/Throwable$WrappedPrintStream",
    "java/lang/Throwable$WrappedPrintWriter",
];

/// Every listed method (for documentation and exhaustive tests).
pub fn all_caller_context_methods() -> &'static [CallerContextMethod] {
    TABLE.entries()
}

/// Does every method of `class` run in its caller's context because its
/// class or package is listed (stream pipelines, `AccessController`),
/// rather than being listed by name? Such a copy brings the class's or
/// package's helpers with it: a stream pipeline's copy is hundreds of
/// methods.
pub fn runs_in_caller_context_as_member(class: &str) -> bool {
    in_listed_class(class)
}

/// Does the JDK method `class.name desc` (its declaring class) run in the
/// context of its caller?
pub fn runs_in_caller_context(class: &str, name: &str, desc: &str) -> bool {
    in_listed_class(class) || !TABLE.lookup(class, name, Some(desc), None).is_empty()
}

fn in_listed_class(class: &str) -> bool {
    CLASSES.iter().any(|p| match p.strip_suffix('/') {
        Some(pkg) => class
            .strip_prefix(pkg)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|rest| !rest.contains('/')),
        None => class == *p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_packages_and_classes_are_told_from_methods_by_name() {
        assert!(runs_in_caller_context_as_member(
            "java/util/stream/ReferencePipeline"
        ));
        assert!(runs_in_caller_context_as_member(
            "java/security/AccessController"
        ));
        // Listed by name only.
        assert!(!runs_in_caller_context_as_member("java/lang/String"));
        // Members of the package only, not of its subpackages.
        assert!(!runs_in_caller_context_as_member("java/util/stream/x/Y"));
    }

    #[test]
    fn methods_by_descriptor() {
        assert!(runs_in_caller_context(
            "java/lang/String",
            "valueOf",
            "(Ljava/lang/Object;)Ljava/lang/String;"
        ));
        assert!(!runs_in_caller_context(
            "java/lang/String",
            "valueOf",
            "(I)Ljava/lang/String;"
        ));
        assert!(runs_in_caller_context(
            "java/io/PrintStream",
            "println",
            "(Ljava/lang/Object;)V"
        ));
        assert!(runs_in_caller_context(
            "java/io/PrintStream",
            "println",
            "(Ljava/lang/String;)V"
        ));
        assert!(!runs_in_caller_context(
            "java/io/PrintStream",
            "write",
            "(Ljava/lang/String;)V"
        ));
        assert!(!runs_in_caller_context(
            "app/Printer",
            "println",
            "(Ljava/lang/Object;)V"
        ));
    }

    #[test]
    fn exception_rendering() {
        assert!(runs_in_caller_context(
            "java/lang/AssertionError",
            "<init>",
            "(Ljava/lang/Object;)V"
        ));
        assert!(!runs_in_caller_context(
            "java/lang/AssertionError",
            "<init>",
            "(Ljava/lang/String;Ljava/lang/Throwable;)V"
        ));
        assert!(runs_in_caller_context(
            "java/lang/Throwable",
            "printStackTrace",
            "(Ljava/io/PrintStream;)V"
        ));
        assert!(runs_in_caller_context(
            "java/lang/Throwable$WrappedPrintStream",
            "println",
            "(Ljava/lang/Object;)V"
        ));
        assert!(!runs_in_caller_context(
            "java/lang/Throwable",
            "fillInStackTrace",
            "()Ljava/lang/Throwable;"
        ));
    }

    #[test]
    fn whole_packages_and_classes() {
        assert!(runs_in_caller_context(
            "java/util/stream/AbstractPipeline",
            "close",
            "()V"
        ));
        assert!(runs_in_caller_context(
            "java/util/stream/ReferencePipeline$7$1",
            "accept",
            "(Ljava/lang/Object;)V"
        ));
        assert!(runs_in_caller_context(
            "java/security/AccessController",
            "executePrivileged",
            "(Ljava/security/PrivilegedAction;Ljava/security/AccessControlContext;Ljava/lang/Class;)Ljava/lang/Object;"
        ));
        assert!(!runs_in_caller_context(
            "java/util/streams/Other",
            "close",
            "()V"
        ));
        assert!(!runs_in_caller_context(
            "java/util/stream/sub/Other",
            "close",
            "()V"
        ));
        assert!(!runs_in_caller_context(
            "java/security/AccessControllerX",
            "run",
            "()V"
        ));
    }

    #[test]
    fn every_entry_is_a_jdk_method() {
        for e in all_caller_context_methods() {
            assert!(crate::is_jdk_class(e.class), "{e:?}");
            if let Desc::Exact(d) | Desc::Params(d) = e.desc {
                assert!(d.starts_with('('), "{e:?}");
            }
        }
        for c in CLASSES {
            assert!(crate::is_jdk_class(c), "{c}");
        }
    }
}
