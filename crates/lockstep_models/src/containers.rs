//! Non-thread-safe JDK containers and which of their methods read or write
//! the container (RacerD's container model: a call `m.put(k, v)` is a write
//! of the abstract location "contents of `m`").
//!
//! Modelled: `HashMap`, `LinkedHashMap`, `TreeMap`, `EnumMap`,
//! `IdentityHashMap`, `WeakHashMap` and the `Map`/`SortedMap`/`NavigableMap`
//! interfaces; `ArrayList`, `LinkedList`, `HashSet`, `LinkedHashSet`,
//! `TreeSet`, `EnumSet`, `ArrayDeque`, `PriorityQueue`, `BitSet`, and the
//! `Collection`/`List`/`Set`/`Queue`/`Deque`/`SortedSet`/`NavigableSet`
//! interfaces, plus `StringBuilder`.
//!
//! Caveats the table cannot express: `LinkedHashMap` with access order
//! makes `get` a write; iterators and views (`keySet()`, `subList`) are
//! modelled as reads of the container even though writing through them
//! writes it. A call whose static type is an interface (`Map.put`) is
//! reported as a container access even when the object is a
//! `ConcurrentHashMap`: deciding the dynamic type is the analysis' job
//! ([`container_access_via`] excludes types known to be thread-safe).

use crate::safety::is_thread_safe_via;

/// A read or a write of the container's contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerAccess {
    Read,
    Write,
}

/// Which method vocabulary a container speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerFamily {
    Map,
    /// `Collection`, `List`, `Set`, `Queue`, `Deque` and their implementations.
    Collection,
    /// `StringBuilder` (and `AbstractStringBuilder`).
    StringBuilder,
    /// `java.util.BitSet`.
    BitSet,
}

#[rustfmt::skip]
const MAPS: &[&str] = &[
    "java/util/Map", "java/util/SortedMap", "java/util/NavigableMap", "java/util/AbstractMap",
    "java/util/HashMap", "java/util/LinkedHashMap", "java/util/TreeMap", "java/util/EnumMap",
    "java/util/IdentityHashMap", "java/util/WeakHashMap",
];

#[rustfmt::skip]
const COLLECTIONS: &[&str] = &[
    "java/util/Collection", "java/util/List", "java/util/Set", "java/util/Queue",
    "java/util/Deque", "java/util/SortedSet", "java/util/NavigableSet", "java/util/SequencedCollection",
    "java/util/AbstractCollection", "java/util/AbstractList", "java/util/AbstractSequentialList",
    "java/util/AbstractSet", "java/util/AbstractQueue",
    "java/util/ArrayList", "java/util/LinkedList", "java/util/HashSet", "java/util/LinkedHashSet",
    "java/util/TreeSet", "java/util/EnumSet", "java/util/ArrayDeque", "java/util/PriorityQueue",
];

const BUILDERS: &[&str] = &["java/lang/StringBuilder", "java/lang/AbstractStringBuilder"];

#[rustfmt::skip]
const MAP_WRITES: &[&str] = &[
    "put", "putAll", "putIfAbsent", "remove", "clear", "replace", "replaceAll", "compute",
    "computeIfAbsent", "computeIfPresent", "merge", "pollFirstEntry", "pollLastEntry",
    "putFirst", "putLast",
];

#[rustfmt::skip]
const MAP_READS: &[&str] = &[
    "get", "getOrDefault", "containsKey", "containsValue", "size", "isEmpty", "keySet", "values",
    "entrySet", "forEach", "equals", "hashCode", "toString", "clone", "firstKey", "lastKey",
    "firstEntry", "lastEntry", "ceilingKey", "ceilingEntry", "floorKey", "floorEntry",
    "higherKey", "higherEntry", "lowerKey", "lowerEntry", "headMap", "tailMap", "subMap",
    "navigableKeySet", "descendingKeySet", "descendingMap", "comparator", "sequencedKeySet",
    "sequencedValues", "sequencedEntrySet", "reversed",
];

#[rustfmt::skip]
const COLLECTION_WRITES: &[&str] = &[
    "add", "addAll", "remove", "removeAll", "removeIf", "retainAll", "clear", "set", "sort",
    "replaceAll", "addFirst", "addLast", "offer", "offerFirst", "offerLast", "push", "pop",
    "poll", "pollFirst", "pollLast", "removeFirst", "removeLast", "removeFirstOccurrence",
    "removeLastOccurrence", "ensureCapacity", "trimToSize", "removeRange",
];

#[rustfmt::skip]
const COLLECTION_READS: &[&str] = &[
    "get", "contains", "containsAll", "size", "isEmpty", "iterator", "listIterator",
    "spliterator", "stream", "parallelStream", "forEach", "toArray", "indexOf", "lastIndexOf",
    "subList", "equals", "hashCode", "toString", "clone", "peek", "peekFirst", "peekLast",
    "element", "getFirst", "getLast", "first", "last", "ceiling", "floor", "higher", "lower",
    "headSet", "tailSet", "subSet", "descendingSet", "descendingIterator", "comparator",
    "reversed",
];

#[rustfmt::skip]
const BUILDER_WRITES: &[&str] = &[
    "append", "insert", "delete", "deleteCharAt", "replace", "reverse", "setLength",
    "setCharAt", "ensureCapacity", "trimToSize", "appendCodePoint",
];

#[rustfmt::skip]
const BUILDER_READS: &[&str] = &[
    "toString", "length", "charAt", "indexOf", "lastIndexOf", "substring", "subSequence",
    "capacity", "codePointAt", "getChars", "chars", "compareTo", "isEmpty",
];

const BITSET_WRITES: &[&str] = &["set", "clear", "flip", "and", "or", "xor", "andNot"];

#[rustfmt::skip]
const BITSET_READS: &[&str] = &[
    "get", "cardinality", "length", "size", "isEmpty", "nextSetBit", "nextClearBit",
    "previousSetBit", "previousClearBit", "intersects", "stream", "toByteArray",
    "toLongArray", "equals", "hashCode", "toString", "clone",
];

/// The container family of `class` itself.
pub fn container_family(class: &str) -> Option<ContainerFamily> {
    if MAPS.contains(&class) {
        Some(ContainerFamily::Map)
    } else if COLLECTIONS.contains(&class) {
        Some(ContainerFamily::Collection)
    } else if BUILDERS.contains(&class) {
        Some(ContainerFamily::StringBuilder)
    } else if class == "java/util/BitSet" {
        Some(ContainerFamily::BitSet)
    } else {
        None
    }
}

/// The container family of `class` or its nearest listed supertype; `None`
/// for thread-safe types (a `ConcurrentHashMap` is a `Map` but not a racy container).
pub fn container_family_via(
    class: &str,
    is_subtype: &dyn Fn(&str, &str) -> bool,
) -> Option<ContainerFamily> {
    if is_thread_safe_via(class, is_subtype) {
        return None;
    }
    if let Some(f) = container_family(class) {
        return Some(f);
    }
    // Maps before collections: no JDK type is both.
    for (names, fam) in [
        (MAPS, ContainerFamily::Map),
        (COLLECTIONS, ContainerFamily::Collection),
        (BUILDERS, ContainerFamily::StringBuilder),
        (&["java/util/BitSet"][..], ContainerFamily::BitSet),
    ] {
        if names.iter().any(|sup| is_subtype(class, sup)) {
            return Some(fam);
        }
    }
    None
}

fn access_in(family: ContainerFamily, name: &str) -> Option<ContainerAccess> {
    let (writes, reads) = match family {
        ContainerFamily::Map => (MAP_WRITES, MAP_READS),
        ContainerFamily::Collection => (COLLECTION_WRITES, COLLECTION_READS),
        ContainerFamily::StringBuilder => (BUILDER_WRITES, BUILDER_READS),
        ContainerFamily::BitSet => (BITSET_WRITES, BITSET_READS),
    };
    if writes.contains(&name) {
        Some(ContainerAccess::Write)
    } else if reads.contains(&name) {
        Some(ContainerAccess::Read)
    } else {
        None
    }
}

/// Does calling `name` on a `class` (exactly as listed) read or write the container?
pub fn container_access(class: &str, name: &str) -> Option<ContainerAccess> {
    access_in(container_family(class)?, name)
}

/// Like [`container_access`] for any subtype of a listed container that is
/// not itself thread-safe.
pub fn container_access_via(
    class: &str,
    name: &str,
    is_subtype: &dyn Fn(&str, &str) -> bool,
) -> Option<ContainerAccess> {
    access_in(container_family_via(class, is_subtype)?, name)
}

/// Map methods that store an argument as an entry (the key or the value).
/// Removals and bulk copies are left out: they store nothing computed from
/// one entry read before.
#[rustfmt::skip]
const MAP_STORES: &[&str] = &[
    "put", "putIfAbsent", "replace", "merge", "putFirst", "putLast", "setProperty",
];

/// Collection methods that store an argument as an element (`Vector`'s
/// legacy names included).
#[rustfmt::skip]
const COLLECTION_STORES: &[&str] = &[
    "add", "set", "addFirst", "addLast", "offer", "offerFirst", "offerLast", "push",
    "addElement", "setElementAt", "insertElementAt",
];

/// The map types [`MAP_STORES`] apply to: every `Map` (`Hashtable` and
/// `Properties` included) and the legacy `Dictionary`.
const STORING_MAPS: &[&str] = &["java/util/Map", "java/util/Dictionary"];

/// The collection types [`COLLECTION_STORES`] apply to.
const STORING_COLLECTIONS: &[&str] = &["java/util/Collection"];

/// Does calling `name` on a `class` store one of its arguments in the
/// container, thread-safe or not (`table.put(k, v)`, `vector.addElement(v)`,
/// `props.setProperty(k, v)`)? A value read from the container and stored
/// back into it by such a call, after the lock it was read under was
/// released, is a lost update even when the value itself is immutable (the
/// stale-value rule's write-backs).
pub fn stores_argument_via(
    class: &str,
    name: &str,
    is_subtype: &dyn Fn(&str, &str) -> bool,
) -> bool {
    let is_a = |roots: &[&str]| roots.iter().any(|r| *r == class || is_subtype(class, r));
    if is_a(STORING_MAPS) {
        MAP_STORES.contains(&name)
    } else if is_a(STORING_COLLECTIONS) {
        COLLECTION_STORES.contains(&name)
    } else {
        false
    }
}

/// Thread-safe JDK maps: each call is atomic and a hand-off (what a thread
/// did before `put` happens before what another does after a `get` that
/// sees the entry, as the `java.util.concurrent` package documents).
#[rustfmt::skip]
const SAFE_MAPS: &[&str] = &[
    "java/util/concurrent/ConcurrentMap", "java/util/concurrent/ConcurrentNavigableMap",
    "java/util/concurrent/ConcurrentHashMap", "java/util/concurrent/ConcurrentSkipListMap",
    "java/util/Hashtable", "java/util/Properties", "java/util/Collections$SynchronizedMap",
    "java/util/Collections$SynchronizedSortedMap", "java/util/Collections$SynchronizedNavigableMap",
];

/// Thread-safe JDK collections (lists, sets, queues, deques).
#[rustfmt::skip]
const SAFE_COLLECTIONS: &[&str] = &[
    "java/util/concurrent/ConcurrentHashMap$KeySetView", "java/util/concurrent/ConcurrentSkipListSet",
    "java/util/concurrent/ConcurrentLinkedQueue", "java/util/concurrent/ConcurrentLinkedDeque",
    "java/util/concurrent/CopyOnWriteArrayList", "java/util/concurrent/CopyOnWriteArraySet",
    "java/util/concurrent/BlockingQueue", "java/util/concurrent/BlockingDeque",
    "java/util/concurrent/TransferQueue", "java/util/concurrent/LinkedBlockingQueue",
    "java/util/concurrent/LinkedBlockingDeque", "java/util/concurrent/ArrayBlockingQueue",
    "java/util/concurrent/PriorityBlockingQueue", "java/util/concurrent/DelayQueue",
    "java/util/concurrent/SynchronousQueue", "java/util/concurrent/LinkedTransferQueue",
    "java/util/Vector", "java/util/Stack", "java/util/Collections$SynchronizedCollection",
    "java/util/Collections$SynchronizedList", "java/util/Collections$SynchronizedRandomAccessList",
    "java/util/Collections$SynchronizedSet", "java/util/Collections$SynchronizedSortedSet",
    "java/util/Collections$SynchronizedNavigableSet",
];

/// The container family of a thread-safe JDK container type (its calls
/// are hand-offs, not races); `None` for every other type.
pub fn thread_safe_container_family(class: &str) -> Option<ContainerFamily> {
    if SAFE_MAPS.contains(&class) {
        Some(ContainerFamily::Map)
    } else if SAFE_COLLECTIONS.contains(&class) {
        Some(ContainerFamily::Collection)
    } else if class == "java/lang/StringBuffer" {
        Some(ContainerFamily::StringBuilder)
    } else {
        None
    }
}

/// Does calling `name` on a thread-safe container `class` read or write it?
/// A write publishes what the caller did before (release), a read sees
/// what the writers it observes did (acquire).
pub fn thread_safe_container_access(class: &str, name: &str) -> Option<ContainerAccess> {
    access_in(thread_safe_container_family(class)?, name)
}

/// Interface and abstract container types: the object behind a call on one
/// of them may be a thread-safe container (a `Map` that is a
/// `ConcurrentHashMap`), which only its run-time class tells.
#[rustfmt::skip]
const MAY_BE_THREAD_SAFE: &[&str] = &[
    "java/util/Map", "java/util/SortedMap", "java/util/NavigableMap", "java/util/AbstractMap",
    "java/util/Collection", "java/util/List", "java/util/Set", "java/util/Queue",
    "java/util/Deque", "java/util/SortedSet", "java/util/NavigableSet",
    "java/util/SequencedCollection", "java/util/AbstractCollection", "java/util/AbstractList",
    "java/util/AbstractSet", "java/util/AbstractQueue",
];

/// Can an object whose static type is `class` be a thread-safe JDK container?
pub fn may_be_thread_safe_container(class: &str) -> bool {
    MAY_BE_THREAD_SAFE.contains(&class)
}

#[cfg(test)]
mod thread_safe_tests {
    use super::*;

    #[test]
    fn stores_are_writes_of_an_argument_on_any_map_or_collection() {
        let jdk = |a: &str, b: &str| {
            matches!(
                (a, b),
                (
                    "java/util/Hashtable",
                    "java/util/Map" | "java/util/Dictionary"
                ) | ("java/util/Vector", "java/util/Collection")
            )
        };
        assert!(stores_argument_via("java/util/Hashtable", "put", &jdk));
        assert!(stores_argument_via("java/util/Map", "putIfAbsent", &jdk));
        assert!(stores_argument_via("java/util/Vector", "addElement", &jdk));
        assert!(stores_argument_via("java/util/Collection", "add", &jdk));
        // Reads, removals and other classes store nothing.
        assert!(!stores_argument_via("java/util/Hashtable", "get", &jdk));
        assert!(!stores_argument_via("java/util/Hashtable", "remove", &jdk));
        assert!(!stores_argument_via(
            "java/util/Vector",
            "removeElement",
            &jdk
        ));
        assert!(!stores_argument_via(
            "java/lang/StringBuffer",
            "append",
            &jdk
        ));
    }

    #[test]
    fn thread_safe_containers_read_and_write_but_are_not_racy_containers() {
        let chm = "java/util/concurrent/ConcurrentHashMap";
        assert_eq!(
            thread_safe_container_access(chm, "put"),
            Some(ContainerAccess::Write)
        );
        assert_eq!(
            thread_safe_container_access(chm, "get"),
            Some(ContainerAccess::Read)
        );
        assert_eq!(container_access(chm, "get"), None);
        let cow = "java/util/concurrent/CopyOnWriteArrayList";
        assert_eq!(
            thread_safe_container_access(cow, "add"),
            Some(ContainerAccess::Write)
        );
        assert_eq!(
            thread_safe_container_access("java/util/HashMap", "get"),
            None
        );
        assert!(may_be_thread_safe_container("java/util/Map"));
        assert!(!may_be_thread_safe_container("java/util/HashMap"));
        // Every thread-safe container is thread-safe for the static side too.
        for c in SAFE_MAPS.iter().chain(SAFE_COLLECTIONS) {
            assert!(
                crate::thread_safety(c).is_some()
                    || crate::is_thread_safe_via(c, &crate::is_jdk_subtype),
                "{c}"
            );
        }
    }
}
