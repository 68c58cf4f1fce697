//! Views and iterators of thread-safe containers stand for their container
//! (`lockstep_models::views`): the recorder maps each one to its container
//! (its *root*) and records the container's hand-off events on the root,
//! so a `next()` on `map.values().iterator()` acquires what `map.put`
//! released. Only views of thread-safe containers are mapped: the checkers
//! ignore container hand-offs on other objects anyway, and a plain
//! `HashMap`'s iterators then cost one tag look-up per step and no event.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::RwLock;

use lockstep_trace::fast_hash::FastMap;

/// More views than this at once: the map is emptied (a view made before
/// then no longer orders; its container's own calls still do). Bounds the
/// recorder's memory on a program iterating concurrent maps forever.
const MAX_VIEWS: usize = 1 << 20;

/// The recorder's view map and the ids of thread-safe containers.
#[derive(Default)]
pub struct ContainerViews {
    /// View or iterator id → its container's id.
    roots: RwLock<FastMap<u64, u64>>,
    /// Objects whose run-time class is a thread-safe container (learned when
    /// their id is assigned).
    safe: RwLock<HashSet<u64>>,
    /// Whether any view was mapped: until then the look-ups are skipped.
    any: AtomicBool,
}

impl ContainerViews {
    /// Notes the class of a newly identified object.
    pub fn note_class(&self, id: u64, class: &str) {
        if lockstep_models::is_thread_safe_via(class, &lockstep_models::is_jdk_subtype) {
            write(&self.safe).insert(id);
        }
    }

    /// The container `obj` stands for: its root when it is a mapped view,
    /// else itself.
    #[inline]
    pub fn root(&self, obj: u64) -> u64 {
        if !self.any.load(Ordering::Relaxed) {
            return obj;
        }
        read(&self.roots).get(&obj).copied().unwrap_or(obj)
    }

    /// Is `obj`'s run-time class a thread-safe container?
    pub fn is_thread_safe(&self, obj: u64) -> bool {
        read(&self.safe).contains(&obj)
    }

    /// Was any view mapped yet?
    #[inline]
    pub fn may_have_views(&self) -> bool {
        self.any.load(Ordering::Relaxed)
    }

    /// The root of a mapped view, `None` for any other object.
    pub fn root_of_view(&self, obj: u64) -> Option<u64> {
        if !self.any.load(Ordering::Relaxed) {
            return None;
        }
        read(&self.roots).get(&obj).copied()
    }

    /// The container a view made from `recv` belongs to: `recv`'s root when
    /// `recv` is a view, `recv` itself when it is (or its static type says
    /// it is) a thread-safe container, else `None` (not mapped).
    pub fn container_for(&self, recv: u64, known_safe: bool) -> Option<u64> {
        if let Some(root) = self.root_of_view(recv) {
            return Some(root);
        }
        (known_safe || read(&self.safe).contains(&recv)).then_some(recv)
    }

    /// Maps `view` to `root`.
    pub fn map(&self, view: u64, root: u64) {
        let mut roots = write(&self.roots);
        if roots.len() >= MAX_VIEWS {
            roots.clear();
        }
        roots.insert(view, root);
        self.any.store(true, Ordering::Relaxed);
    }
}

fn read<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

fn write<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_of_views_map_to_the_container() {
        let v = ContainerViews::default();
        v.note_class(1, "java/util/concurrent/ConcurrentSkipListMap");
        v.note_class(2, "java/util/HashMap");
        assert_eq!(v.container_for(1, false), Some(1));
        assert_eq!(v.container_for(2, false), None);
        assert_eq!(v.container_for(2, true), Some(2));
        v.map(10, 1);
        assert_eq!(v.container_for(10, false), Some(1));
        v.map(11, v.container_for(10, false).unwrap_or(10));
        assert_eq!(v.root(11), 1);
        assert_eq!(v.root(2), 2);
        assert_eq!(v.root_of_view(2), None);
    }
}
