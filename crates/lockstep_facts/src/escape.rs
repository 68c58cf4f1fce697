//! Thread escape: the abstract objects another thread can reach.
//!
//! An object escapes when it is reachable through fields from a static
//! field, a thread or task object, an object made outside the analysed
//! code (the open-program harness, the JVM, opaque natives), or an
//! instance of a `@ThreadSafe` class. Objects that do not escape are
//! thread-local: their accesses cannot race.

use std::sync::Arc;

use lockstep_pointsto::{ObjectId, SiteKey};
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
        for (_, set) in self.pt.static_fields() {
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
            // The JDK's merged internal objects stand for every object of
            // their type the JDK makes: following their fields would
            // publish whatever any of them ever held (every `Appendable`
            // through one normalizer buffer).
            if self
                .pt
                .object(o)
                .is_some_and(|i| matches!(i.site, SiteKey::Library(_)))
            {
                continue;
            }
            for (_, set) in self.pt.fields_of(o) {
                for x in set.iter() {
                    push(x, &mut shared, &mut stack);
                }
            }
        }
        shared
    }
}
