//! Views and iterators of thread-safe JDK containers, for the run-time
//! recorder.
//!
//! What a thread reads through `map.keySet()`, `map.values().iterator()`,
//! `map.headMap(k).entrySet()`, `deque.descendingIterator()` or
//! `table.elements()` was put into the container, so it is ordered after
//! that put exactly as a `get` would be: the view or iterator stands for
//! its container. The recorder maps each view to its container (a view of
//! a view too) and an iterator step acquires the container's sync
//! variable. Iterators of the `java.util.concurrent` containers are weakly
//! consistent: they may return what was put after they were created, so
//! the acquire is taken at every step, not once when the iterator is made.
//! A step that calls back (`forEachRemaining`, `tryAdvance`) acquires
//! before the call, so the callback is ordered after every put completed
//! when it began.
//!
//! Not modelled: streams (`stream().forEach(...)` runs the pipeline inside
//! the JDK), and writes through a view (`keySet().remove(k)`) release
//! nothing (the container's own writes do).

use crate::containers::{may_be_thread_safe_container, thread_safe_container_family};

/// Methods of a container (or a view) whose result is a view of it or an
/// iterator over it.
#[rustfmt::skip]
const VIEW_METHODS: &[&str] = &[
    "keySet", "values", "entrySet", "navigableKeySet", "descendingKeySet", "descendingMap",
    "headMap", "tailMap", "subMap", "headSet", "tailSet", "subSet", "descendingSet",
    "sequencedKeySet", "sequencedValues", "sequencedEntrySet", "reversed", "subList",
    "iterator", "listIterator", "descendingIterator", "spliterator", "keys", "elements",
];

/// Iterator types whose steps read the container they iterate.
#[rustfmt::skip]
const ITERATORS: &[&str] = &[
    "java/util/Iterator", "java/util/ListIterator", "java/util/Spliterator",
    "java/util/Enumeration", "java/util/PrimitiveIterator",
];

/// Steps that return (or test for) the next element: acquire after the call.
#[rustfmt::skip]
const STEPS_AFTER: &[&str] = &[
    "next", "hasNext", "previous", "hasPrevious", "nextElement", "hasMoreElements",
];

/// Steps that hand elements to a callback during the call: acquire before it.
const STEPS_BEFORE: &[&str] = &["forEachRemaining", "tryAdvance"];

/// What a call does to the view map of the recorder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViewEffect {
    /// The (object) result is a view of, or an iterator over, the receiver.
    /// `known_safe`: the receiver's static type is a thread-safe container,
    /// else only its run-time class (or being a view itself) tells.
    MakesView { known_safe: bool },
    /// An iterator step: it reads the iterated container, before the call
    /// (`before`: the elements go to a callback) or after it.
    Step { before: bool },
}

/// The view effect of calling `owner.name desc` (a JDK type), or `None`.
pub fn view_effect(owner: &str, name: &str, desc: &str) -> Option<ViewEffect> {
    if ITERATORS.contains(&owner) {
        if STEPS_AFTER.contains(&name) {
            return Some(ViewEffect::Step { before: false });
        }
        if STEPS_BEFORE.contains(&name) {
            return Some(ViewEffect::Step { before: true });
        }
        return None;
    }
    if !desc.ends_with(';') || !VIEW_METHODS.contains(&name) {
        return None;
    }
    let known_safe = thread_safe_container_family(owner).is_some();
    (known_safe || may_be_thread_safe_container(owner))
        .then_some(ViewEffect::MakesView { known_safe })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_of_thread_safe_and_maybe_safe_containers() {
        let csl = "java/util/concurrent/ConcurrentSkipListMap";
        assert_eq!(
            view_effect(
                csl,
                "headMap",
                "(Ljava/lang/Object;Z)Ljava/util/concurrent/ConcurrentNavigableMap;"
            ),
            Some(ViewEffect::MakesView { known_safe: true })
        );
        assert_eq!(
            view_effect("java/util/Set", "iterator", "()Ljava/util/Iterator;"),
            Some(ViewEffect::MakesView { known_safe: false })
        );
        // A plain HashMap's views are the container itself for the checkers.
        assert_eq!(
            view_effect("java/util/HashMap", "keySet", "()Ljava/util/Set;"),
            None
        );
        assert_eq!(
            view_effect(csl, "get", "(Ljava/lang/Object;)Ljava/lang/Object;"),
            None
        );
    }

    #[test]
    fn iterator_steps_acquire_after_or_before_a_callback() {
        assert_eq!(
            view_effect("java/util/Iterator", "next", "()Ljava/lang/Object;"),
            Some(ViewEffect::Step { before: false })
        );
        assert_eq!(
            view_effect(
                "java/util/Spliterator",
                "tryAdvance",
                "(Ljava/util/function/Consumer;)Z"
            ),
            Some(ViewEffect::Step { before: true })
        );
        assert_eq!(view_effect("java/util/Iterator", "remove", "()V"), None);
    }
}
