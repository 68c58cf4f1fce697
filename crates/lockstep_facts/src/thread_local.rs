//! Thread-local objects: the abstract objects no other thread can reach,
//! from points-to alone (the `escape` step of the race facts, without
//! the thread roots, ownership or pairs those compute).
//!
//! An object counts as thread-local only when escape finds no path to it
//! from a static field, a thread's task, a `@ThreadSafe` instance or an
//! object made outside the analysed code, **and** application code
//! allocates it one object at a time (`new`, a lambda). Class literals,
//! string constants, merged library and exception objects and the other
//! stand-ins name objects any thread can get hold of without a field
//! (`Foo.class`, an interned string) or many objects at once; what JDK
//! code allocates may sit in a JDK static cache, which escape does not
//! follow (`java.beans.Introspector`'s descriptors): neither is ever
//! thread-local here.
//!
//! What the facts cannot see stays out of reach of this answer as of
//! escape's: objects stored through reflection, `Unsafe` offsets or
//! serialization, and application objects kept only in JDK static fields.
//!
//! A rule reads it to tell that a lock, or the object a value comes from,
//! belongs to one thread: another thread can neither take that lock nor
//! change that object.

use lockstep_pointsto::{ObjectId, ObjectSet, PointsToResult, SiteKey};
use lockstep_program::Program;

/// Per abstract object: does it belong to the thread that made it?
pub struct ThreadLocalObjects {
    local: Vec<bool>,
}

impl ThreadLocalObjects {
    /// Escape over the points-to result, restricted to allocated objects.
    pub fn compute(program: &Program, pt: &PointsToResult) -> ThreadLocalObjects {
        let escape = crate::escape::compute(program, pt);
        let local = pt
            .objects()
            .map(|o| {
                let shared = escape.shared.get(o.0 as usize).copied().unwrap_or(true);
                !shared
                    && pt.object(o).is_some_and(|info| {
                        allocated_one_by_one(info.site)
                            && info.site.location().is_some_and(|(m, _)| {
                                program.is_application(program.method(m).class)
                            })
                    })
            })
            .collect();
        ThreadLocalObjects { local }
    }

    /// Can no other thread reach `o`?
    pub fn is_local(&self, o: ObjectId) -> bool {
        self.local.get(o.0 as usize).copied().unwrap_or(false)
    }

    /// Is every object of `set` thread-local? (True for the empty set: a
    /// variable that holds no object is `null`.)
    pub fn all_local(&self, set: &ObjectSet) -> bool {
        set.iter().all(|o| self.is_local(o))
    }

    /// How many objects are thread-local (for statistics).
    pub fn count(&self) -> usize {
        self.local.iter().filter(|&&l| l).count()
    }
}

/// Does the site stand for objects the program allocates one at a time,
/// each reachable only through the references to it?
fn allocated_one_by_one(site: &SiteKey) -> bool {
    matches!(
        site,
        SiteKey::Alloc { .. }
            | SiteKey::Lambda { .. }
            | SiteKey::ConstructorRef { .. }
            | SiteKey::Copy { .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn only_allocation_sites_can_be_thread_local() {
        let alloc = SiteKey::Alloc {
            method: lockstep_program::MethodId(0),
            stmt: lockstep_ir::StmtId(0),
            dim: 0,
        };
        assert!(allocated_one_by_one(&alloc));
        assert!(!allocated_one_by_one(&SiteKey::ClassLiteral(Arc::from(
            "a/B"
        ))));
        assert!(!allocated_one_by_one(&SiteKey::StringConstant));
        assert!(!allocated_one_by_one(&SiteKey::Library(Arc::from(
            "java/util/HashMap"
        ))));
        assert!(!allocated_one_by_one(&SiteKey::Exception(Arc::from(
            "java/lang/Error"
        ))));
    }
}
