//! Concurrency annotations in the bytecode: `@GuardedBy` on fields,
//! `@ThreadSafe`, `@NotThreadSafe` and `@Immutable` on classes.
//!
//! Recognised by simple name in any package, visible or invisible (class
//! retention), so jcip's `net.jcip.annotations`, JSR 305's
//! `javax.annotation.concurrent`, Error Prone's
//! `com.google.errorprone.annotations.concurrent` and the Checker
//! Framework's `org.checkerframework.checker.lock.qual` all count.

use lockstep_classfile::{Annotation, ElementValue};

/// What the annotations of a class say about sharing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClassPolicy {
    pub thread_safe: bool,
    pub not_thread_safe: bool,
    pub immutable: bool,
}

pub fn named<'a>(annotations: &'a [Annotation], name: &str) -> Option<&'a Annotation> {
    annotations.iter().find(|a| {
        let d = a.type_descriptor.trim_end_matches(';');
        d.rsplit('/').next().map(|s| s.trim_start_matches('L')) == Some(name)
    })
}

/// The class-level policy.
pub fn class_policy(annotations: &[Annotation]) -> ClassPolicy {
    ClassPolicy {
        thread_safe: named(annotations, "ThreadSafe").is_some(),
        not_thread_safe: named(annotations, "NotThreadSafe").is_some(),
        immutable: named(annotations, "Immutable").is_some(),
    }
}

/// The lock expression of a field's `@GuardedBy`, if any (`"this"`,
/// `"lock"`, `"Foo.class"`, `"Outer.this"`).
pub fn guarded_by(annotations: &[Annotation]) -> Option<String> {
    let a = named(annotations, "GuardedBy")?;
    let value = a
        .elements
        .iter()
        .find(|(n, _)| &**n == "value")
        .map(|(_, v)| v)?;
    let s = match value {
        ElementValue::Array(items) => items.first().and_then(|v| v.as_str()),
        v => v.as_str(),
    }?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}
