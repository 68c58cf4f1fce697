//! Thread escape: the abstract objects another thread can reach.
//!
//! An object escapes when it is reachable through fields from a static
//! field, a thread or task object, an object made outside the analysed
//! code (the open-program harness, the JVM, opaque natives), or an
//! instance of a `@ThreadSafe` class. Objects that do not escape are
//! thread-local: their accesses cannot race.
//!
//! Fields the JDK's context-insensitive code writes are not followed from
//! objects the application did not allocate: static fields of JDK classes,
//! JDK-declared fields and `Unsafe` slots of stand-in objects (the
//! ClassLoader a native returns, the current thread, constants). Their
//! points-to sets are the union of every value that flows through shared
//! JDK code (on h2 each `Unsafe` slot of such an object holds 3,197
//! objects, and `ClassLoader.assertionLock` every object of the parser),
//! so following them published every per-call object of the program.
//! Fields of objects the application allocates, or that JDK code allocates
//! in a context naming an object (the nodes of an application's
//! `HashMap`), are always followed (the `Runnable` in a `Thread`'s
//! `target`, a map's values); a context made only of context-only sites
//! (over the bound, a `main`'s entry) names no object and counts as none.
//! `Unsafe` slots are followed only on objects the application allocated.
//! The elements of primitive arrays are never followed: they hold no
//! objects, whatever element set the `Object`-typed native models give
//! them. Nor are the elements of an opaque object (the one result of a
//! summarised JDK method's type, `Array.newInstance` included) while it is
//! only a seed: `System.arraycopy` into the array one call grew publishes
//! nothing to the calls that grew others; once the program stores the
//! opaque object into a static or an escaped object, its elements escape.

use std::sync::Arc;

use lockstep_pointsto::{FieldKey, ObjectId, PointsToResult, SiteKey};
use lockstep_program::Program;
use rustc_hash::FxHashMap;

use crate::analysis::Analysis;
use crate::annotations::class_policy;

/// Why an object escapes: the seed it is, or the object and field that
/// hold it (the first found, in a fixed order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Why {
    Static(FieldKey),
    Task,
    ThreadSafe,
    /// Made outside the analysed code (harness, JVM, opaque natives).
    External,
    Held(ObjectId, FieldKey),
}

/// The escaped objects, with why each escapes.
pub(crate) struct Escape {
    pub shared: Vec<bool>,
    why: Vec<Option<Why>>,
    /// Escaped objects whose elements are not published (yet): opaque
    /// seeds. Reaching one through a static or an escaped object's field
    /// later publishes them.
    sealed: Vec<bool>,
}

impl Escape {
    fn mark(&mut self, o: ObjectId, why: Why, stack: &mut Vec<ObjectId>) {
        self.mark_as(o, why, false, stack);
    }

    /// Marks `o` escaped; `sealed`: without publishing its elements. An
    /// object marked sealed and reached again unsealed is visited again
    /// (its first reason stays).
    fn mark_as(&mut self, o: ObjectId, why: Why, sealed: bool, stack: &mut Vec<ObjectId>) {
        let i = o.0 as usize;
        let (Some(s), Some(w), Some(z)) = (
            self.shared.get_mut(i),
            self.why.get_mut(i),
            self.sealed.get_mut(i),
        ) else {
            return;
        };
        if !*s {
            *s = true;
            *w = Some(why);
            *z = sealed;
            stack.push(o);
        } else if *z && !sealed {
            *z = false;
            stack.push(o);
        }
    }

    /// The objects escape starts from (statics, tasks, `@ThreadSafe`
    /// instances, objects made outside the program).
    pub(crate) fn seeds(&self) -> Vec<bool> {
        self.why
            .iter()
            .map(|w| w.as_ref().is_some_and(|w| !matches!(w, Why::Held(..))))
            .collect()
    }

    /// `--explain`: how `o` escapes, from its seed to it
    /// (`static A.cache → B @ … .items → C @ …`).
    pub(crate) fn chain(
        &self,
        program: &Program,
        pt: &lockstep_pointsto::PointsToResult,
        o: ObjectId,
    ) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut at = o;
        for _ in 0..32 {
            match self.why.get(at.0 as usize).cloned().flatten() {
                Some(Why::Held(h, f)) => {
                    parts.push(format!(
                        ".{} → {}",
                        short_field(&f),
                        pt.describe_object(program, at)
                    ));
                    at = h;
                }
                Some(seed) => {
                    let head = match seed {
                        Why::Static(f) => {
                            format!("static {f} → {}", pt.describe_object(program, at))
                        }
                        Why::Task => {
                            format!("task of a thread start {}", pt.describe_object(program, at))
                        }
                        Why::ThreadSafe => {
                            format!("@ThreadSafe {}", pt.describe_object(program, at))
                        }
                        _ => format!(
                            "made outside the program {}",
                            pt.describe_object(program, at)
                        ),
                    };
                    parts.push(head);
                    break;
                }
                None => {
                    parts.push(pt.describe_object(program, at));
                    break;
                }
            }
        }
        parts.reverse();
        parts.join(" ")
    }
}

fn short_field(f: &FieldKey) -> String {
    match f {
        FieldKey::Field { name, .. } => name.to_string(),
        other => other.to_string(),
    }
}

impl Analysis<'_> {
    /// Objects other threads can reach ([`compute`]).
    pub(crate) fn escaped(&self) -> Escape {
        compute(self.program, self.pt)
    }

    /// The points-to sets of the fields of `o` through which it publishes
    /// what it holds ([`followed_fields`]).
    pub(crate) fn followed_fields(
        &self,
        o: ObjectId,
    ) -> Vec<(&FieldKey, lockstep_pointsto::ObjectSet)> {
        followed_fields(self.program, self.pt, o)
    }
}

/// Objects other threads can reach: everything reachable through
/// fields from static fields, thread and task objects, objects made
/// outside the analysed code, and the open-program harness. A function of
/// points-to alone, so rules that need no other race fact can read it
/// ([`crate::ThreadLocalObjects`]).
pub(crate) fn compute(program: &Program, pt: &PointsToResult) -> Escape {
    let n = pt.object_count();
    let mut e = Escape {
        shared: vec![false; n],
        why: vec![None; n],
        sealed: vec![false; n],
    };
    let mut stack: Vec<ObjectId> = Vec::new();
    for (key, set) in pt.static_fields() {
        if written_by_jdk(key) {
            continue;
        }
        for o in set.iter() {
            e.mark(o, Why::Static(key.clone()), &mut stack);
        }
    }
    for t in pt.thread_starts() {
        e.mark(t.task, Why::Task, &mut stack);
    }
    // Instances of `@ThreadSafe` classes are meant to be shared.
    let mut thread_safe_class: FxHashMap<Arc<str>, bool> = FxHashMap::default();
    for o in pt.objects() {
        if let Some(info) = pt.object(o) {
            let annotated = *thread_safe_class
                .entry(info.type_name.clone())
                .or_insert_with(|| {
                    program.class_by_name(info.type_name).is_some_and(|c| {
                        let cl = program.class(c);
                        cl.is_application && class_policy(&cl.file.annotations).thread_safe
                    })
                });
            if annotated {
                e.mark(o, Why::ThreadSafe, &mut stack);
            } else if matches!(
                info.site,
                SiteKey::Entry(_) | SiteKey::External { .. } | SiteKey::Vm(_)
            ) {
                e.mark(o, Why::External, &mut stack);
            } else if matches!(info.site, SiteKey::Opaque(_)) {
                // One opaque object stands for every result of its type
                // that summarised JDK code returns (`Array.newInstance` for
                // every array the program grows by reflection): what the
                // program copies into one of them belongs to the call that
                // made it. One the program publishes itself is unsealed
                // below.
                e.mark_as(o, Why::External, true, &mut stack);
            }
        }
    }
    while let Some(o) = stack.pop() {
        let sealed = e.sealed.get(o.0 as usize).copied().unwrap_or(false);
        for (key, set) in followed_fields(program, pt, o) {
            if sealed && matches!(key, FieldKey::Element) {
                continue;
            }
            for x in set.iter() {
                e.mark(x, Why::Held(o, key.clone()), &mut stack);
            }
        }
    }
    e
}

/// The points-to sets of the fields of `o` through which it publishes
/// what it holds. The JDK's merged internal objects stand for every
/// object of their type the JDK makes: following their fields would
/// publish whatever any of them ever held (every `Appendable` through
/// one normalizer buffer); objects the application did not allocate
/// publish nothing through fields the JDK writes.
pub(crate) fn followed_fields<'r>(
    program: &Program,
    pt: &'r PointsToResult,
    o: ObjectId,
) -> Vec<(&'r FieldKey, lockstep_pointsto::ObjectSet)> {
    let Some(info) = pt.object(o) else {
        return Vec::new();
    };
    if matches!(info.site, SiteKey::Library(_)) {
        return Vec::new();
    }
    let by_application = allocated_by_application(program, info.site);
    let precise = by_application
        || (info.site.is_allocation() && heap_context_tells_apart(&pt.context(info.heap_context)));
    let primitive_array = holds_no_references(info.type_name);
    pt.fields_of(o)
        .into_iter()
        .filter(|(key, _)| precise || !written_by_jdk(key))
        // `Unsafe` slots of what JDK code allocates hold whatever any
        // JDK code wrote through an untracked offset (on h2 a
        // `HashMap$TreeNode` of a harness object's set "held" the
        // parsed commands).
        .filter(|(key, _)| by_application || !matches!(key, FieldKey::Anywhere))
        .filter(|(key, _)| !(primitive_array && matches!(key, FieldKey::Element)))
        .collect()
}

impl Analysis<'_> {
    /// The objects the fields of `o` that [`Self::followed_fields`]
    /// follows hold, each once.
    pub(crate) fn followed_objects(&self, o: ObjectId) -> Box<[ObjectId]> {
        let mut out: Vec<ObjectId> = self
            .followed_fields(o)
            .iter()
            .flat_map(|(_, set)| set.iter())
            .collect();
        out.sort_unstable();
        out.dedup();
        out.into_boxed_slice()
    }
}

/// Does a heap context made of `sites` tell one object of a JDK
/// allocation site apart from the others, so that its JDK-written fields
/// hold only what that one object holds? Only when one of its sites stands
/// for an object: a context made only of context-only sites (the
/// over-budget context, a `main`'s entry context) is shared by every call
/// that falls into it, so its object is one for the whole program (on h2
/// the one `HashMap$TreeNode` that `LinkedHashMap.newTreeNode` allocates
/// over the bound "held" every parsed command of every map).
fn heap_context_tells_apart(sites: &[&SiteKey]) -> bool {
    sites.iter().any(|s| !s.is_context_only())
}

/// Is the type an array of a primitive type (`[B`, `[I`, ...), whose
/// elements are no objects? Points-to can still give such an array an
/// element set: natives and `System.arraycopy` are modelled on `Object`
/// parameters, so on h2 one opaque `byte[]` "held" every parsed command
/// object and published them all.
fn holds_no_references(type_name: &str) -> bool {
    type_name.len() == 2
        && type_name.starts_with('[')
        && matches!(
            type_name.as_bytes().get(1),
            Some(b'B' | b'C' | b'D' | b'F' | b'I' | b'J' | b'S' | b'Z')
        )
}

/// Is this field written by JDK code that runs without contexts: a field
/// (static or not) a JDK class declares, or an `Unsafe` slot?
fn written_by_jdk(key: &FieldKey) -> bool {
    match key {
        FieldKey::Field { class, .. } => lockstep_models::is_jdk_class(class),
        FieldKey::Anywhere => true,
        FieldKey::Element | FieldKey::Capture(_) => false,
    }
}

/// Was the object allocated (or its lambda created) by application code?
fn allocated_by_application(program: &Program, site: &SiteKey) -> bool {
    site.location()
        .is_some_and(|(m, _)| program.is_application(program.method(m).class))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_only_heap_contexts_do_not_tell_objects_apart() {
        let over = SiteKey::OverBudget;
        let main = SiteKey::Main(Arc::from("app/Main"));
        let entry = SiteKey::Entry(Arc::from("app/Server"));
        let alloc = SiteKey::Alloc {
            method: lockstep_program::MethodId(3),
            stmt: lockstep_ir::StmtId(1),
            dim: 0,
        };
        assert!(!heap_context_tells_apart(&[]));
        assert!(!heap_context_tells_apart(&[&over]));
        assert!(!heap_context_tells_apart(&[&main]));
        assert!(!heap_context_tells_apart(&[&over, &main]));
        assert!(heap_context_tells_apart(&[&entry]));
        assert!(heap_context_tells_apart(&[&over, &entry]));
        assert!(heap_context_tells_apart(&[&alloc]));
        assert!(heap_context_tells_apart(&[&main, &alloc]));
    }
}
