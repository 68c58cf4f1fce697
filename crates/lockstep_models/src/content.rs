//! The non-thread-safe JDK containers as content models for the points-to
//! analysis (issue 14 cause 3, issue 20 point 2): which classes are
//! summarised and what each of their methods does to the container's
//! contents, by method name and descriptor.
//!
//! A modelled container object carries synthetic content fields (its
//! elements, or a map's keys and values, and the comparator it was built
//! with) instead of its real storage (`HashMap.table`, `elementData`,
//! tree nodes): analysed from bytecode past the context bound, that
//! storage was shared by every container of the program. Views
//! (`keySet`, `entrySet`, iterators, entries, spliterators) are objects
//! per container that share its contents.
//!
//! Left out: the synchronized and concurrent containers (`Vector`,
//! `Hashtable`, `Collections$Synchronized*`, `java.util.concurrent`),
//! whose monitors matter to the lock rules, which walk their bodies; the
//! immutable and wrapper collections of `List.of` and `Collections.*`,
//! whose bytecode delegates to a modelled container or to an array.
//!
//! The race side's container accesses (`containers`) are a separate
//! table; this one only says where references go.

/// Which vocabulary a modelled container speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContentKind {
    /// Keys and values.
    Map,
    /// Elements (lists, sets, queues, deques).
    Collection,
}

/// How a container finds a key or an element it is given: which methods
/// of the application's objects its lookups call back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyLookup {
    /// `hashCode` and `equals` of the key.
    Hash,
    /// The comparator's `compare`, or the key's `compareTo`.
    Sorted,
    /// `equals` of the element (lists, deques).
    Equality,
    /// By identity or ordinal: no call back (`IdentityHashMap`, `EnumMap`).
    Identity,
}

/// A modelled container class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ContentClass {
    pub class: &'static str,
    pub kind: ContentKind,
    pub lookup: KeyLookup,
}

const fn c(class: &'static str, kind: ContentKind, lookup: KeyLookup) -> ContentClass {
    ContentClass {
        class,
        kind,
        lookup,
    }
}

use ContentKind::{Collection, Map};
use KeyLookup::{Equality, Identity, Sorted};
/// `KeyLookup::Hash` (the derive's `Hash` keeps its name).
const HASHED: KeyLookup = KeyLookup::Hash;

#[rustfmt::skip]
static CLASSES: &[ContentClass] = &[
    c("java/util/HashMap", Map, HASHED),
    c("java/util/LinkedHashMap", Map, HASHED),
    c("java/util/TreeMap", Map, Sorted),
    c("java/util/IdentityHashMap", Map, Identity),
    c("java/util/WeakHashMap", Map, HASHED),
    c("java/util/EnumMap", Map, Identity),
    c("java/util/HashSet", Collection, HASHED),
    c("java/util/LinkedHashSet", Collection, HASHED),
    c("java/util/TreeSet", Collection, Sorted),
    c("java/util/ArrayList", Collection, Equality),
    c("java/util/LinkedList", Collection, Equality),
    c("java/util/ArrayDeque", Collection, Equality),
    c("java/util/PriorityQueue", Collection, Sorted),
];

/// The modelled container class named `internal_name`, if it is one
/// (exactly: subclasses are found through their superclass chain).
pub fn content_class(internal_name: &str) -> Option<&'static ContentClass> {
    CLASSES.iter().find(|c| c.class == internal_name)
}

/// Every modelled container class.
pub fn content_classes() -> &'static [ContentClass] {
    CLASSES
}

/// What a method of a modelled container does to its contents. Arguments
/// are classified by their declared types: `Object` parameters are keys,
/// values or elements (erased type variables); other `java/util`
/// parameters are containers to copy from; a `Comparator` is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContentOp {
    /// A constructor: copies its container arguments, keeps a comparator.
    Construct,
    /// Stores its `Object` arguments: a collection's as elements; a map's
    /// first as a key (when `new_key`; else it is only looked up) and the
    /// others as values. Returns the element or value it replaced.
    Store { new_key: bool },
    /// Copies the contents of its container arguments (`addAll`, `putAll`).
    StoreAll,
    /// Looks its first `Object` argument up; stores and returns nothing
    /// (`contains`, `containsKey`, `indexOf`, `remove(Object)`).
    Lookup,
    /// Returns an element (collections) or a value (maps); with `lookup`,
    /// its first argument is a key looked up first.
    Get { lookup: bool },
    /// `getOrDefault(key, default)`: a value or the default.
    GetOrDefault,
    /// Returns a key of a map.
    GetKey { lookup: bool },
    /// Returns an entry of a map (`firstEntry`, `ceilingEntry(key)`).
    GetEntry { lookup: bool },
    /// Returns the receiver: a sub-view that shares its storage
    /// (`subList`, `headMap`, `descendingSet`) or `clone` (merged with its
    /// original, as `Object.clone` is).
    Same,
    /// A map's key set.
    KeySet,
    /// A map's values.
    Values,
    /// A map's entries.
    EntrySet,
    /// An iterator over the elements (`iterator`, `listIterator`,
    /// `descendingIterator`).
    Iterator,
    /// A spliterator over the elements (how `stream()` reaches them).
    Spliterator,
    /// An array of the elements (`toArray()`, `toArray(T[])` fills its argument).
    ToArray,
    /// Calls its functional argument on each element, or on each key and value.
    ForEach,
    /// `removeIf(Predicate)`: the predicate's `test` on each element.
    RemoveIf,
    /// `replaceAll`: the function's result replaces elements or values.
    ReplaceAll,
    /// `sort(Comparator)`: the comparator on pairs of elements.
    Sort,
    /// `computeIfAbsent(key, Function)`: the function on the key gives a value.
    ComputeIfAbsent,
    /// `compute`/`computeIfPresent(key, BiFunction)`: on the key and the value.
    Compute,
    /// `merge(key, value, BiFunction)`: on the old and the given value.
    Merge,
    /// `comparator()`: the comparator the container was built with.
    Comparator,
    /// `hashCode()` of a collection: its elements' `hashCode`.
    HashElements,
}

/// What a method of a container view object does: iterators, entries,
/// spliterators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CursorOp {
    /// Returns an element (`next`, `previous`) or an entry's key.
    Next,
    /// An entry's value.
    Value,
    /// `Map.Entry.setValue`: stores a value, returns the old one.
    SetValue,
    /// `ListIterator.add`/`set`: stores an element.
    Store,
    /// `forEachRemaining`/`tryAdvance(Consumer)`: the consumer on each element.
    ForEach,
    /// `trySplit`: a spliterator over the same elements.
    Same,
}

/// The kind of a view object the model makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CursorKind {
    Iterator,
    Entry,
    Spliterator,
}

impl CursorKind {
    /// The interface a cursor object is an instance of.
    pub fn interface(self, list_iterator: bool) -> &'static str {
        match self {
            CursorKind::Iterator if list_iterator => "java/util/ListIterator",
            CursorKind::Iterator => "java/util/Iterator",
            CursorKind::Entry => "java/util/Map$Entry",
            CursorKind::Spliterator => "java/util/Spliterator",
        }
    }
}

/// The operation of method `name desc` of a container of kind `kind`, or
/// `None` when the method does not touch the contents (its bytecode runs:
/// `size`, `isEmpty`, `clear`, `stream` (which asks for a spliterator),
/// the `AbstractCollection` helpers that iterate `this`).
pub fn content_op(kind: ContentKind, name: &str, desc: &str) -> Option<ContentOp> {
    use ContentOp::*;
    let returns_object = desc.ends_with(")Ljava/lang/Object;");
    let first_object = desc.starts_with("(Ljava/lang/Object;");
    let common = match name {
        "<init>" => Some(Construct),
        "forEach" => Some(ForEach),
        "replaceAll" => Some(ReplaceAll),
        "clone" => Some(Same),
        "comparator" => Some(Comparator),
        _ => None,
    };
    if common.is_some() {
        return common;
    }
    match kind {
        ContentKind::Map => match name {
            "put" | "putIfAbsent" => Some(Store { new_key: true }),
            "replace" => Some(Store { new_key: false }),
            "putAll" => Some(StoreAll),
            "get" | "remove" if returns_object => Some(Get { lookup: true }),
            "remove" | "containsKey" => Some(Lookup),
            "getOrDefault" => Some(GetOrDefault),
            "firstKey" | "lastKey" => Some(GetKey { lookup: false }),
            "ceilingKey" | "floorKey" | "higherKey" | "lowerKey" => Some(GetKey { lookup: true }),
            "firstEntry" | "lastEntry" | "pollFirstEntry" | "pollLastEntry" => {
                Some(GetEntry { lookup: false })
            }
            "ceilingEntry" | "floorEntry" | "higherEntry" | "lowerEntry" => {
                Some(GetEntry { lookup: true })
            }
            "keySet" | "navigableKeySet" | "descendingKeySet" => Some(KeySet),
            "values" => Some(Values),
            "entrySet" => Some(EntrySet),
            "headMap" | "tailMap" | "subMap" | "descendingMap" => Some(Same),
            "computeIfAbsent" => Some(ComputeIfAbsent),
            "compute" | "computeIfPresent" => Some(Compute),
            "merge" => Some(Merge),
            _ => None,
        },
        ContentKind::Collection => match name {
            "add" | "addFirst" | "addLast" | "offer" | "offerFirst" | "offerLast" | "push"
            | "set" => Some(Store { new_key: true }),
            "addAll" => Some(StoreAll),
            "remove" if returns_object && first_object => Some(Get { lookup: true }),
            "remove" if returns_object => Some(Get { lookup: false }),
            "contains"
            | "indexOf"
            | "lastIndexOf"
            | "remove"
            | "removeFirstOccurrence"
            | "removeLastOccurrence" => Some(Lookup),
            "get" | "poll" | "pollFirst" | "pollLast" | "pop" | "peek" | "peekFirst"
            | "peekLast" | "element" | "getFirst" | "getLast" | "removeFirst" | "removeLast"
            | "first" | "last" => Some(Get { lookup: false }),
            "ceiling" | "floor" | "higher" | "lower" => Some(Get { lookup: true }),
            "iterator" | "listIterator" | "descendingIterator" => Some(Iterator),
            "spliterator" => Some(Spliterator),
            "subList" | "headSet" | "tailSet" | "subSet" | "descendingSet" => Some(Same),
            "toArray" => Some(ToArray),
            "removeIf" => Some(RemoveIf),
            "sort" => Some(Sort),
            "hashCode" => Some(HashElements),
            _ => None,
        },
    }
}

/// The operation of method `name` of a cursor object of kind `kind`;
/// `None`: the method moves no reference (`hasNext`, `remove`,
/// `estimateSize`, ...), and a reference it returns is unknown.
pub fn cursor_op(kind: CursorKind, name: &str) -> Option<CursorOp> {
    use CursorOp::*;
    match (kind, name) {
        (CursorKind::Iterator, "next" | "previous") => Some(Next),
        (CursorKind::Iterator, "set" | "add") => Some(Store),
        (CursorKind::Iterator | CursorKind::Spliterator, "forEachRemaining") => Some(ForEach),
        (CursorKind::Spliterator, "tryAdvance") => Some(ForEach),
        (CursorKind::Spliterator, "trySplit") => Some(Same),
        (CursorKind::Entry, "getKey") => Some(Next),
        (CursorKind::Entry, "getValue") => Some(Value),
        (CursorKind::Entry, "setValue") => Some(SetValue),
        _ => None,
    }
}

/// The modelled class a view container returned as `declared` (the
/// method's declared return type) is an instance of: views are containers
/// of their own sharing their owner's contents, typed so that the calls
/// and casts the declared type allows work.
pub fn view_class(declared: &str) -> &'static str {
    match declared {
        "java/util/SortedSet" | "java/util/NavigableSet" => "java/util/TreeSet",
        "java/util/Collection" | "java/util/List" => "java/util/ArrayList",
        _ => "java/util/HashSet",
    }
}

/// The role of a parameter of a modelled method, by its declared type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamRole {
    /// `Object`: an erased key, value or element.
    Element,
    /// Another container (or array) whose contents are copied in.
    Source,
    /// A `Comparator` kept by the container.
    Comparator,
    /// Anything else (indexes, functions, classes).
    Other,
}

/// The role of a parameter declared as `ty` (an internal name or an
/// array descriptor; `None` for primitives).
pub fn param_role(ty: Option<&str>) -> ParamRole {
    match ty {
        Some("java/lang/Object") => ParamRole::Element,
        Some("java/util/Comparator") => ParamRole::Comparator,
        Some(t) if t.starts_with("java/util/") && !t.starts_with("java/util/function/") => {
            ParamRole::Source
        }
        _ => ParamRole::Other,
    }
}

/// A method an operation calls back on an argument or element: name and descriptor.
pub type Callback = (&'static str, &'static str);

/// `Consumer.accept`.
pub const ACCEPT: Callback = ("accept", "(Ljava/lang/Object;)V");
/// `BiConsumer.accept`.
pub const BI_ACCEPT: Callback = ("accept", "(Ljava/lang/Object;Ljava/lang/Object;)V");
/// `Predicate.test`.
pub const TEST: Callback = ("test", "(Ljava/lang/Object;)Z");
/// `Function.apply` (and `UnaryOperator`'s).
pub const APPLY: Callback = ("apply", "(Ljava/lang/Object;)Ljava/lang/Object;");
/// `BiFunction.apply`.
pub const BI_APPLY: Callback = (
    "apply",
    "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
);
/// `Comparator.compare`.
pub const COMPARE: Callback = ("compare", "(Ljava/lang/Object;Ljava/lang/Object;)I");
/// `Comparable.compareTo`.
pub const COMPARE_TO: Callback = ("compareTo", "(Ljava/lang/Object;)I");
/// `Object.hashCode`.
pub const HASH_CODE: Callback = ("hashCode", "()I");
/// `Object.equals`.
pub const EQUALS: Callback = ("equals", "(Ljava/lang/Object;)Z");
/// `Collection.toArray()`: how elements are copied out of a container
/// the model does not know.
pub const TO_ARRAY: Callback = ("toArray", "()[Ljava/lang/Object;");
/// `Map.entrySet()`, `Map.Entry.getKey()`/`getValue()`: how entries are
/// copied out of a map the model does not know.
pub const ENTRY_SET: Callback = ("entrySet", "()Ljava/util/Set;");
pub const GET_KEY: Callback = ("getKey", "()Ljava/lang/Object;");
pub const GET_VALUE: Callback = ("getValue", "()Ljava/lang/Object;");
/// `LinkedHashMap.removeEldestEntry`, which a subclass overrides to bound it.
pub const REMOVE_ELDEST: Callback = ("removeEldestEntry", "(Ljava/util/Map$Entry;)Z");
/// The element type of the arrays `toArray()` returns.
pub const OBJECT_ARRAY: &str = "[Ljava/lang/Object;";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_only_from_storing_methods() {
        let m = ContentKind::Map;
        let l = ContentKind::Collection;
        assert_eq!(
            content_op(
                m,
                "put",
                "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;"
            ),
            Some(ContentOp::Store { new_key: true })
        );
        assert_eq!(
            content_op(m, "get", "(Ljava/lang/Object;)Ljava/lang/Object;"),
            Some(ContentOp::Get { lookup: true })
        );
        assert_eq!(
            content_op(l, "remove", "(Ljava/lang/Object;)Z"),
            Some(ContentOp::Lookup)
        );
        assert_eq!(
            content_op(l, "remove", "(I)Ljava/lang/Object;"),
            Some(ContentOp::Get { lookup: false })
        );
        assert_eq!(
            content_op(l, "contains", "(Ljava/lang/Object;)Z"),
            Some(ContentOp::Lookup)
        );
        assert_eq!(content_op(l, "size", "()I"), None);
        assert_eq!(content_op(l, "stream", "()Ljava/util/stream/Stream;"), None);
    }

    #[test]
    fn leaves_out_synchronized_and_concurrent_containers() {
        assert!(content_class("java/util/HashMap").is_some());
        assert!(content_class("java/util/Vector").is_none());
        assert!(content_class("java/util/Hashtable").is_none());
        assert!(content_class("java/util/concurrent/ConcurrentHashMap").is_none());
    }
}
