//! Values a thread owns or that cannot change: what the stale-value rule
//! (paper 001) needs to know to leave them alone.
//!
//! A value copied out of a critical section goes stale when another thread
//! can change what it copies. Three kinds of values cannot:
//!
//! - **Owned results** ([`owned_result`]): calls that hand their result to
//!   the caller. An element removed from a collection or a queue (`remove`,
//!   `poll`, `take`, `pop`), data consumed from a stream (`read`), or a
//!   fresh copy (`toArray`, `clone`, `Arrays.copyOf`,
//!   `ByteArrayOutputStream.toByteArray`) belongs to the calling thread once
//!   the call returns: the hand-over protocol of paper 001, Fig. 5.
//! - **Values of immutable types** ([`is_value_class`]): `String`, the boxed
//!   primitives, `BigInteger`, `java.time` values... An object of such a
//!   type is the same whenever it is looked at; a reference to it is a
//!   snapshot.
//! - **Objects of one thread** ([`is_thread_owned_via`]): exceptions are
//!   thrown and caught on one thread; the locks their methods take
//!   (`Throwable.getCause` is `synchronized`) guard nothing another thread
//!   sees.
//!
//! Enums and records of the program are the analysis' to judge (their
//! fields are in the class files, not in these tables).

use crate::safety::is_immutable_class;
use crate::table::{IsSubtype, Keyed, Table};
use crate::Desc;

/// Why a call's result belongs to the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ownership {
    /// Taken out of a container or stream: no other thread gets it.
    Removed,
    /// A new object holding a copy of the receiver's (or argument's) data.
    Copy,
}

/// A call whose result the caller owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnedResult {
    /// The declaring JDK class or interface.
    pub class: &'static str,
    pub name: &'static str,
    pub desc: Desc,
    pub ownership: Ownership,
}

impl Keyed for OwnedResult {
    fn key(&self) -> (&'static str, &'static str, Desc) {
        (self.class, self.name, self.desc)
    }
}

const fn removed(class: &'static str, name: &'static str) -> OwnedResult {
    OwnedResult {
        class,
        name,
        desc: Desc::Any,
        ownership: Ownership::Removed,
    }
}

const fn copy(class: &'static str, name: &'static str) -> OwnedResult {
    OwnedResult {
        class,
        name,
        desc: Desc::Any,
        ownership: Ownership::Copy,
    }
}

const COLLECTION: &str = "java/util/Collection";
const LIST: &str = "java/util/List";
const QUEUE: &str = "java/util/Queue";
const DEQUE: &str = "java/util/Deque";
const BLOCKING_QUEUE: &str = "java/util/concurrent/BlockingQueue";
const BLOCKING_DEQUE: &str = "java/util/concurrent/BlockingDeque";
const MAP: &str = "java/util/Map";

#[rustfmt::skip]
static OWNED: Table<OwnedResult> = Table::new(&[
    // Elements taken out of a container: the remover owns them.
    removed(COLLECTION, "remove"), removed(LIST, "remove"),
    removed("java/util/SequencedCollection", "removeFirst"),
    removed("java/util/SequencedCollection", "removeLast"),
    removed("java/util/AbstractList", "remove"), removed("java/util/ArrayList", "remove"),
    removed("java/util/LinkedList", "remove"), removed("java/util/LinkedList", "removeFirst"),
    removed("java/util/LinkedList", "removeLast"), removed("java/util/LinkedList", "poll"),
    removed("java/util/LinkedList", "pollFirst"), removed("java/util/LinkedList", "pollLast"),
    removed("java/util/LinkedList", "pop"),
    removed("java/util/Vector", "remove"), removed("java/util/Stack", "pop"),
    removed(QUEUE, "remove"), removed(QUEUE, "poll"),
    removed(DEQUE, "removeFirst"), removed(DEQUE, "removeLast"), removed(DEQUE, "pollFirst"),
    removed(DEQUE, "pollLast"), removed(DEQUE, "pop"),
    removed(BLOCKING_QUEUE, "take"), removed(BLOCKING_QUEUE, "poll"),
    removed(BLOCKING_DEQUE, "takeFirst"), removed(BLOCKING_DEQUE, "takeLast"),
    removed(BLOCKING_DEQUE, "pollFirst"), removed(BLOCKING_DEQUE, "pollLast"),
    removed("java/util/NavigableSet", "pollFirst"), removed("java/util/NavigableSet", "pollLast"),
    removed("java/util/NavigableMap", "pollFirstEntry"),
    removed("java/util/NavigableMap", "pollLastEntry"),
    removed(MAP, "remove"), removed("java/util/Dictionary", "remove"),
    removed("java/util/Hashtable", "remove"), removed("java/util/HashMap", "remove"),
    removed("java/lang/ref/ReferenceQueue", "poll"), removed("java/lang/ref/ReferenceQueue", "remove"),
    // Data consumed from a stream: the reader owns what it read.
    removed("java/io/Reader", "read"), removed("java/io/InputStream", "read"),
    removed("java/io/BufferedReader", "read"), removed("java/io/BufferedReader", "readLine"),
    removed("java/io/BufferedInputStream", "read"),
    removed("java/nio/channels/ReadableByteChannel", "read"),
    removed("java/nio/channels/ScatteringByteChannel", "read"),
    // Defensive copies: new objects holding a snapshot.
    copy(COLLECTION, "toArray"), copy(LIST, "toArray"), copy("java/util/Vector", "toArray"),
    copy("java/util/AbstractCollection", "toArray"), copy("java/util/ArrayList", "toArray"),
    copy("java/lang/Object", "clone"),
    copy("java/util/Arrays", "copyOf"), copy("java/util/Arrays", "copyOfRange"),
    copy("java/io/ByteArrayOutputStream", "toByteArray"),
    copy("java/io/CharArrayWriter", "toCharArray"),
    copy("java/lang/String", "toCharArray"), copy("java/lang/String", "getBytes"),
    copy("java/util/BitSet", "toByteArray"), copy("java/util/BitSet", "toLongArray"),
    copy(LIST, "copyOf"), copy("java/util/Set", "copyOf"), copy(MAP, "copyOf"),
]);

/// Is the result of `class.name desc` (the declaring class exactly) owned by
/// the caller?
pub fn owned_result(class: &str, name: &str, desc: &str) -> Option<Ownership> {
    OWNED
        .lookup(class, name, Some(desc), None)
        .first()
        .map(|e| e.ownership)
}

/// Like [`owned_result`], for a call naming `class` (a subtype of the
/// declaring class: `MyQueue.poll`, `Vector.remove`). Arrays (`[I.clone`)
/// count as subtypes of `Object`.
pub fn owned_result_via(
    class: &str,
    name: &str,
    desc: &str,
    is_subtype: IsSubtype<'_>,
) -> Option<Ownership> {
    let array_aware = |sub: &str, sup: &str| {
        (sub.starts_with('[') && sup == "java/lang/Object") || is_subtype(sub, sup)
    };
    OWNED
        .lookup(class, name, Some(desc), Some(&array_aware))
        .first()
        .map(|e| e.ownership)
}

/// Every owned-result entry (for documentation and tests).
pub fn all_owned_results() -> &'static [OwnedResult] {
    OWNED.entries()
}

/// Is a value of type `class` (exactly) immutable: a snapshot that cannot
/// change once read? The immutable JDK types of [`crate::safety`], except
/// the abstract `Number` (the atomics extend it) and `Class` objects (their
/// static state is not theirs to freeze; a `Class` value never changes, but
/// it is the usual name of a class-wide lock).
pub fn is_value_class(class: &str) -> bool {
    !matches!(class, "java/lang/Number" | "java/lang/Class") && is_immutable_class(class)
}

/// The map types whose `get` a per-thread registry is built on.
const KEYED_MAPS: &[&str] = &["java/util/Map", "java/util/Dictionary"];

/// Is the call a map lookup (`get(Object)` of a `Map` or a `Hashtable`)
/// that, given the calling thread itself as the key
/// (`registry.get(Thread.currentThread())`), returns that thread's own
/// entry? A per-thread registry (log4j's `NDC` keeps each thread's stack
/// in a `Hashtable` keyed by the thread) hands every thread its own value,
/// and by that convention no other thread changes it: the caller owns
/// what the lookup returns. Whether the key is the calling thread is the
/// caller's to check.
pub fn is_keyed_lookup_via(class: &str, name: &str, desc: &str, is_subtype: IsSubtype<'_>) -> bool {
    name == "get"
        && desc == "(Ljava/lang/Object;)Ljava/lang/Object;"
        && KEYED_MAPS
            .iter()
            .any(|m| *m == class || is_subtype(class, m))
}

/// Is the call `Thread.currentThread()`, the key of a per-thread
/// registry's lookup ([`is_keyed_lookup_via`])?
pub fn is_current_thread_call(class: &str, name: &str) -> bool {
    class == "java/lang/Thread" && name == "currentThread"
}

/// Types whose objects belong to the thread that uses them.
const THREAD_OWNED: &[&str] = &["java/lang/Throwable"];

/// Are objects of `class` (or a subtype) owned by one thread: exceptions?
pub fn is_thread_owned_via(class: &str, is_subtype: IsSubtype<'_>) -> bool {
    THREAD_OWNED
        .iter()
        .any(|t| *t == class || is_subtype(class, t))
}

/// Calls of the `Thread` class whose effects stay with a thread's own
/// state (its identity and interrupt status), never with memory another
/// thread reads: the `catch (InterruptedException e) {
/// Thread.currentThread().interrupt(); }` idiom.
const THREAD_STATE_CALLS: &[&str] = &["currentThread", "interrupt", "interrupted", "isInterrupted"];

/// Does a JDK call leave every object another thread can see as it was:
/// a method or constructor of an exception (objects of one thread), of an
/// immutable value class (boxing, `String` methods), or a `Thread` call
/// on the thread's own state? `class` is the called method's class as the
/// call names it (a JDK class: the program's own subclasses are the
/// analysis' to judge).
pub fn touches_no_shared_memory_via(class: &str, name: &str, is_subtype: IsSubtype<'_>) -> bool {
    is_thread_owned_via(class, is_subtype)
        || is_value_class(class)
        || (class == "java/lang/Thread" && THREAD_STATE_CALLS.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_lookups_can_be_keyed_by_the_calling_thread() {
        let get = "(Ljava/lang/Object;)Ljava/lang/Object;";
        let via = |c: &str, n: &str, d: &str| is_keyed_lookup_via(c, n, d, &is_subtype);
        assert!(via("java/util/Map", "get", get));
        assert!(!via("java/util/Map", "remove", get));
        assert!(!via("java/util/Vector", "get", "(I)Ljava/lang/Object;"));
        assert!(is_current_thread_call("java/lang/Thread", "currentThread"));
        assert!(!is_current_thread_call("java/lang/Thread", "getName"));
    }

    #[test]
    fn exceptions_values_and_thread_state_touch_no_shared_memory() {
        let via = |c: &str, n: &str| touches_no_shared_memory_via(c, n, &is_subtype);
        assert!(via("java/lang/Exception", "<init>"));
        assert!(via("java/lang/Integer", "valueOf"));
        assert!(via("java/lang/String", "valueOf"));
        assert!(via("java/lang/Thread", "currentThread"));
        assert!(via("java/lang/Thread", "interrupt"));
        assert!(!via("java/lang/Thread", "start"));
        assert!(!via("java/util/Vector", "add"));
        assert!(!via("java/lang/Number", "intValue"));
    }

    fn is_subtype(sub: &str, sup: &str) -> bool {
        const EDGES: &[(&str, &str)] = &[
            ("java/util/Vector", "java/util/List"),
            ("java/util/List", "java/util/Collection"),
            (
                "java/util/concurrent/LinkedBlockingQueue",
                "java/util/concurrent/BlockingQueue",
            ),
            ("java/util/Properties", "java/util/Hashtable"),
            ("java/io/LineNumberReader", "java/io/BufferedReader"),
            ("app/DbException", "java/lang/Throwable"),
            ("java/lang/RuntimeException", "java/lang/Exception"),
            ("java/lang/Exception", "java/lang/Throwable"),
        ];
        sup == "java/lang/Object" || EDGES.iter().any(|&(a, b)| a == sub && b == sup)
    }

    #[test]
    fn removals_and_copies_are_owned_through_the_hierarchy() {
        let via = |c: &str, n: &str, d: &str| owned_result_via(c, n, d, &is_subtype);
        assert_eq!(
            via(
                "java/util/concurrent/LinkedBlockingQueue",
                "take",
                "()Ljava/lang/Object;"
            ),
            Some(Ownership::Removed)
        );
        assert_eq!(
            via(
                "java/util/Properties",
                "remove",
                "(Ljava/lang/Object;)Ljava/lang/Object;"
            ),
            Some(Ownership::Removed)
        );
        assert_eq!(
            via(
                "java/io/LineNumberReader",
                "readLine",
                "()Ljava/lang/String;"
            ),
            Some(Ownership::Removed)
        );
        assert_eq!(
            via("java/util/Vector", "toArray", "()[Ljava/lang/Object;"),
            Some(Ownership::Copy)
        );
        assert_eq!(
            via("[I", "clone", "()Ljava/lang/Object;"),
            Some(Ownership::Copy)
        );
        assert_eq!(
            owned_result("java/util/Arrays", "copyOf", "([II)[I"),
            Some(Ownership::Copy)
        );
    }

    #[test]
    fn reads_that_leave_the_element_in_place_are_not_owned() {
        let via = |c: &str, n: &str, d: &str| owned_result_via(c, n, d, &is_subtype);
        assert_eq!(
            via("java/util/Vector", "elementAt", "(I)Ljava/lang/Object;"),
            None
        );
        assert_eq!(via("java/util/Vector", "size", "()I"), None);
        assert_eq!(
            via("java/util/Vector", "get", "(I)Ljava/lang/Object;"),
            None
        );
        assert_eq!(
            via(
                "java/util/Hashtable",
                "get",
                "(Ljava/lang/Object;)Ljava/lang/Object;"
            ),
            None
        );
        assert_eq!(via("app/Queue", "remove", "()Ljava/lang/Object;"), None);
    }

    #[test]
    fn value_classes_and_thread_owned_exceptions() {
        for c in [
            "java/lang/String",
            "java/lang/Integer",
            "java/math/BigInteger",
            "java/time/Instant",
        ] {
            assert!(is_value_class(c), "{c}");
        }
        for c in [
            "java/lang/Number",
            "java/lang/Class",
            "java/util/Vector",
            "java/lang/StringBuffer",
        ] {
            assert!(!is_value_class(c), "{c}");
        }
        assert!(is_thread_owned_via("app/DbException", &is_subtype));
        assert!(is_thread_owned_via("java/lang/Throwable", &is_subtype));
        assert!(!is_thread_owned_via("java/util/Vector", &is_subtype));
    }

    #[test]
    fn every_entry_names_a_jdk_class() {
        for e in all_owned_results() {
            assert!(crate::is_jdk_class(e.class), "{}", e.class);
        }
    }
}
