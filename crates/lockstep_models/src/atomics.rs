//! `java.util.concurrent.atomic` and `VarHandle` as synchronization, as
//! data: which calls read, write or read-modify-write the atomic variable
//! with volatile semantics (Java memory model: a volatile write
//! synchronizes-with every later volatile read of the same variable).
//!
//! The subject of the edge is the receiver: the atomic object, the
//! `Atomic*Array` (all its elements together) or the `Atomic*FieldUpdater`
//! / `VarHandle` (every object it updates together). Merging elements or
//! objects can only add edges, so a checker that uses these facts may miss
//! a race between two elements but never reports one that an edge orders.
//!
//! Modelled: `AtomicBoolean/Integer/Long/Reference`, their `*Array`
//! forms, the three field updaters, `AtomicMarkableReference`,
//! `AtomicStampedReference`, and `VarHandle`'s volatile, acquire/release
//! and atomic access modes. Not modelled (no ordering, or not a snapshot):
//! the plain and opaque modes (`getPlain`, `setPlain`, `getOpaque`,
//! `setOpaque`, `weakCompareAndSetPlain`, `weakCompareAndSet` of the
//! atomic classes, `VarHandle.get`/`set`), and `LongAdder`/`LongAccumulator`
//! (`sum` is not an atomic snapshot).

use crate::handoff::Side;

/// What a call does to the atomic variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicAccess {
    /// A volatile (or acquire) read: everything before the writes it sees
    /// happens before what follows the call.
    Read,
    /// A volatile (or release) write: what came before the call happens
    /// before every later read of the variable.
    Write,
    /// A read-modify-write (`compareAndSet`, `getAndIncrement`, ...), both;
    /// a failed `compareAndSet` still reads.
    Update,
}

impl AtomicAccess {
    /// The side of a happens-before edge this access is.
    pub fn side(self) -> Side {
        match self {
            AtomicAccess::Read => Side::Acquire,
            AtomicAccess::Write => Side::Release,
            AtomicAccess::Update => Side::Both,
        }
    }
}

const PKG: &str = "java/util/concurrent/atomic/";

#[rustfmt::skip]
const ATOMIC_CLASSES: &[&str] = &[
    "AtomicBoolean", "AtomicInteger", "AtomicLong", "AtomicReference",
    "AtomicIntegerArray", "AtomicLongArray", "AtomicReferenceArray",
    "AtomicIntegerFieldUpdater", "AtomicLongFieldUpdater", "AtomicReferenceFieldUpdater",
    "AtomicMarkableReference", "AtomicStampedReference",
];

const VAR_HANDLE: &str = "java/lang/invoke/VarHandle";

#[rustfmt::skip]
const READS: &[&str] = &[
    "get", "getAcquire", "intValue", "longValue", "floatValue", "doubleValue",
    "getReference", "isMarked", "getStamp", "getVolatile",
];

#[rustfmt::skip]
const WRITES: &[&str] = &["set", "lazySet", "setRelease", "setVolatile"];

#[rustfmt::skip]
const UPDATES: &[&str] = &[
    "compareAndSet", "weakCompareAndSetVolatile", "weakCompareAndSetAcquire",
    "weakCompareAndSetRelease", "compareAndExchange", "compareAndExchangeAcquire",
    "compareAndExchangeRelease", "getAndSet", "getAndSetAcquire", "getAndSetRelease",
    "getAndIncrement", "getAndDecrement", "incrementAndGet", "decrementAndGet",
    "getAndAdd", "addAndGet", "getAndAddAcquire", "getAndAddRelease",
    "getAndUpdate", "updateAndGet", "getAndAccumulate", "accumulateAndGet",
    "getAndBitwiseOr", "getAndBitwiseOrAcquire", "getAndBitwiseOrRelease",
    "getAndBitwiseAnd", "getAndBitwiseAndAcquire", "getAndBitwiseAndRelease",
    "getAndBitwiseXor", "getAndBitwiseXorAcquire", "getAndBitwiseXorRelease",
    "attemptMark", "attemptStamp",
];

/// Is `class` one of the modelled atomic classes (or `VarHandle`)?
pub fn is_atomic_class(class: &str) -> bool {
    class == VAR_HANDLE
        || class
            .strip_prefix(PKG)
            .is_some_and(|c| ATOMIC_CLASSES.contains(&c))
}

/// What calling `name` on a `class` does to the atomic variable; `None`
/// for other classes and for the plain and opaque access modes.
pub fn atomic_access(class: &str, name: &str) -> Option<AtomicAccess> {
    if !is_atomic_class(class) {
        return None;
    }
    // `VarHandle.get`/`set` are plain accesses; the atomic classes' are volatile.
    if class == VAR_HANDLE && (name == "get" || name == "set") {
        return None;
    }
    if READS.contains(&name) {
        Some(AtomicAccess::Read)
    } else if WRITES.contains(&name) {
        Some(AtomicAccess::Write)
    } else if UPDATES.contains(&name) {
        Some(AtomicAccess::Update)
    } else {
        None
    }
}

/// The `AtomicBoolean` descriptor, for fields that may hold a once-claim.
const ATOMIC_BOOLEAN: &str = "java/util/concurrent/atomic/AtomicBoolean";

/// Is a field of this descriptor an `AtomicBoolean`?
pub fn is_atomic_boolean_field(descriptor: &str) -> bool {
    descriptor
        .strip_prefix('L')
        .and_then(|d| d.strip_suffix(';'))
        .is_some_and(|c| c == ATOMIC_BOOLEAN)
}

/// A once-claim on an `AtomicBoolean`: a call that moves it from one
/// value to the other and tells the caller whether it was the one that
/// did. `Some((won, to))`: the call's result that means the claim was won,
/// and the value the flag was moved to. `compareAndSet(a, !a)` (and its
/// weak volatile form) wins when it returns `true`; `getAndSet(b)` when it
/// returns `!b`. `args` are the call's integer constants (`None`: not a
/// constant).
pub fn boolean_claim(class: &str, name: &str, args: &[Option<i32>]) -> Option<(bool, bool)> {
    if class != ATOMIC_BOOLEAN {
        return None;
    }
    let flag = |v: &Option<i32>| match v {
        Some(0) => Some(false),
        Some(1) => Some(true),
        _ => None,
    };
    match (name, args) {
        ("compareAndSet" | "weakCompareAndSetVolatile", [from, to]) => {
            let (from, to) = (flag(from)?, flag(to)?);
            (from != to).then_some((true, to))
        }
        ("getAndSet", [to]) => flag(to).map(|to| (!to, to)),
        _ => None,
    }
}

/// Does this call on an `AtomicBoolean` keep a flag that only ever moves
/// to `to`: a read, a claim to `to`, or a store of `to`? Anything else (a
/// store of the other value or of an unknown one, a claim back) may reopen
/// a once-gate.
pub fn keeps_boolean_claim(class: &str, name: &str, args: &[Option<i32>], to: bool) -> bool {
    if class != ATOMIC_BOOLEAN {
        return false;
    }
    if let Some((_, claimed)) = boolean_claim(class, name, args) {
        return claimed == to;
    }
    let stores_to = args == [Some(i32::from(to))];
    match name {
        "get" | "getAcquire" | "getPlain" | "getOpaque" | "toString" | "hashCode" => true,
        "set" | "lazySet" | "setRelease" | "setPlain" | "setOpaque" | "getAndSet" => stores_to,
        _ => false,
    }
}

/// What a call on an `AtomicBoolean` does to the value it holds, for
/// following a flag's value along one thread's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BooleanCall {
    /// Returns the value and leaves it (`get` and its access modes).
    Read,
    /// Stores its argument (`set` and its access modes); `Some`: a constant.
    Store(Option<i32>),
    /// Leaves the value and does not return it (`toString`, `hashCode`).
    Keeps,
    /// May change the value (`compareAndSet`, `getAndSet`, and any call
    /// not listed here).
    Changes,
}

/// What calling `name` on an `AtomicBoolean` does to its value (`None`:
/// another class). `args` are the call's integer constants.
pub fn atomic_boolean_call(class: &str, name: &str, args: &[Option<i32>]) -> Option<BooleanCall> {
    if class != ATOMIC_BOOLEAN {
        return None;
    }
    Some(match (name, args) {
        ("get" | "getAcquire" | "getPlain" | "getOpaque", []) => BooleanCall::Read,
        ("set" | "lazySet" | "setRelease" | "setPlain" | "setOpaque", [v]) => {
            BooleanCall::Store(*v)
        }
        ("toString" | "hashCode", []) => BooleanCall::Keeps,
        _ => BooleanCall::Changes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_reference_reads_writes_and_updates() {
        let r = "java/util/concurrent/atomic/AtomicReference";
        assert_eq!(atomic_access(r, "get"), Some(AtomicAccess::Read));
        assert_eq!(atomic_access(r, "set"), Some(AtomicAccess::Write));
        assert_eq!(
            atomic_access(r, "compareAndSet"),
            Some(AtomicAccess::Update)
        );
        assert_eq!(atomic_access(r, "getPlain"), None);
        assert_eq!(atomic_access(r, "weakCompareAndSet"), None);
        assert_eq!(AtomicAccess::Update.side(), Side::Both);
    }

    #[test]
    fn var_handle_plain_modes_order_nothing() {
        assert_eq!(atomic_access(VAR_HANDLE, "get"), None);
        assert_eq!(atomic_access(VAR_HANDLE, "set"), None);
        assert_eq!(
            atomic_access(VAR_HANDLE, "setRelease"),
            Some(AtomicAccess::Write)
        );
        assert_eq!(
            atomic_access(VAR_HANDLE, "getAcquire"),
            Some(AtomicAccess::Read)
        );
        assert_eq!(
            atomic_access("java/util/concurrent/atomic/LongAdder", "sum"),
            None
        );
        assert_eq!(atomic_access("java/util/HashMap", "get"), None);
    }

    #[test]
    fn boolean_claims_and_what_keeps_them() {
        let b = ATOMIC_BOOLEAN;
        let cas = |a, c| boolean_claim(b, "compareAndSet", &[Some(a), Some(c)]);
        assert_eq!(cas(0, 1), Some((true, true)));
        assert_eq!(cas(1, 0), Some((true, false)));
        assert_eq!(cas(1, 1), None);
        assert_eq!(
            boolean_claim(b, "getAndSet", &[Some(1)]),
            Some((false, true))
        );
        assert_eq!(boolean_claim(b, "getAndSet", &[None]), None);
        let i = "java/util/concurrent/atomic/AtomicInteger";
        assert_eq!(boolean_claim(i, "compareAndSet", &[Some(0), Some(1)]), None);
        assert!(keeps_boolean_claim(b, "get", &[], true));
        assert!(keeps_boolean_claim(b, "set", &[Some(1)], true));
        assert!(!keeps_boolean_claim(b, "set", &[Some(0)], true));
        assert!(keeps_boolean_claim(b, "set", &[Some(0)], false));
        assert!(!keeps_boolean_claim(b, "set", &[None], true));
        assert!(!keeps_boolean_claim(
            b,
            "compareAndSet",
            &[Some(1), Some(0)],
            true
        ));
        assert!(keeps_boolean_claim(
            b,
            "compareAndSet",
            &[Some(1), Some(0)],
            false
        ));
        assert!(is_atomic_boolean_field(
            "Ljava/util/concurrent/atomic/AtomicBoolean;"
        ));
        assert!(!is_atomic_boolean_field("Z"));
    }

    #[test]
    fn what_boolean_calls_do_to_the_value() {
        let b = ATOMIC_BOOLEAN;
        assert_eq!(atomic_boolean_call(b, "get", &[]), Some(BooleanCall::Read));
        assert_eq!(
            atomic_boolean_call(b, "set", &[Some(1)]),
            Some(BooleanCall::Store(Some(1)))
        );
        assert_eq!(
            atomic_boolean_call(b, "lazySet", &[None]),
            Some(BooleanCall::Store(None))
        );
        assert_eq!(
            atomic_boolean_call(b, "compareAndSet", &[Some(0), Some(1)]),
            Some(BooleanCall::Changes)
        );
        assert_eq!(
            atomic_boolean_call(b, "toString", &[]),
            Some(BooleanCall::Keeps)
        );
        let i = "java/util/concurrent/atomic/AtomicInteger";
        assert_eq!(atomic_boolean_call(i, "get", &[]), None);
    }
}
