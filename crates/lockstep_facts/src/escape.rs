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
//! in a context (the nodes of an application's `HashMap`), are always
//! followed (the `Runnable` in a `Thread`'s `target`, a map's values).

use std::sync::Arc;

use lockstep_pointsto::{FieldKey, ObjectId, SiteKey};
use lockstep_program::Program;
use rustc_hash::FxHashMap;

use crate::analysis::Analysis;
use crate::annotations::class_policy;

impl Analysis<'_> {
    /// Objects other threads can reach: everything reachable through
    /// fields from static fields, thread and task objects, objects made
    /// outside the analysed code, and the open-program harness.
    pub(crate) fn escaped(&self) -> Vec<bool> {
        let n = self.pt.object_count();
        let mut shared = vec![false; n];
        let mut stack: Vec<ObjectId> = Vec::new();
        let push = |o: ObjectId, shared: &mut Vec<bool>, stack: &mut Vec<ObjectId>| {
            if let Some(s) = shared.get_mut(o.0 as usize) {
                if !*s {
                    *s = true;
                    stack.push(o);
                }
            }
        };
        for (key, set) in self.pt.static_fields() {
            if written_by_jdk(key) {
                continue;
            }
            for o in set.iter() {
                push(o, &mut shared, &mut stack);
            }
        }
        for t in self.pt.thread_starts() {
            push(t.task, &mut shared, &mut stack);
        }
        // Instances of `@ThreadSafe` classes are meant to be shared.
        let mut thread_safe_class: FxHashMap<Arc<str>, bool> = FxHashMap::default();
        for o in self.pt.objects() {
            if let Some(info) = self.pt.object(o) {
                let annotated = *thread_safe_class
                    .entry(info.type_name.clone())
                    .or_insert_with(|| {
                        self.program.class_by_name(info.type_name).is_some_and(|c| {
                            let cl = self.program.class(c);
                            cl.is_application && class_policy(&cl.file.annotations).thread_safe
                        })
                    });
                if annotated
                    || matches!(
                        info.site,
                        SiteKey::Entry(_)
                            | SiteKey::External { .. }
                            | SiteKey::Vm(_)
                            | SiteKey::Opaque(_)
                    )
                {
                    push(o, &mut shared, &mut stack);
                }
            }
        }
        while let Some(o) = stack.pop() {
            for set in self.followed_fields(o) {
                for x in set.iter() {
                    push(x, &mut shared, &mut stack);
                }
            }
        }
        shared
    }

    /// The points-to sets of the fields of `o` through which it publishes
    /// what it holds. The JDK's merged internal objects stand for every
    /// object of their type the JDK makes: following their fields would
    /// publish whatever any of them ever held (every `Appendable` through
    /// one normalizer buffer); objects the application did not allocate
    /// publish nothing through fields the JDK writes.
    pub(crate) fn followed_fields(&self, o: ObjectId) -> Vec<lockstep_pointsto::ObjectSet> {
        let Some(info) = self.pt.object(o) else {
            return Vec::new();
        };
        if matches!(info.site, SiteKey::Library(_)) {
            return Vec::new();
        }
        let precise = allocated_by_application(self.program, info.site)
            || (info.site.is_allocation() && !self.pt.context(info.heap_context).is_empty());
        self.pt
            .fields_of(o)
            .into_iter()
            .filter(|(key, _)| precise || !written_by_jdk(key))
            .map(|(_, set)| set)
            .collect()
    }
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
