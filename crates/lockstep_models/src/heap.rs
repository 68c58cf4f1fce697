//! What JDK methods do to the heap where their bytecode does not say it,
//! for the points-to analysis: natives and intrinsics that move references
//! (`System.arraycopy`, `Object.clone`, `Unsafe` reference accesses), the
//! objects the JVM creates by itself (`Thread.currentThread()`, `System.out`),
//! writes through `VarHandle`s whose target field only the JDK's source
//! names (`AtomicReference.compareAndSet`), and which JDK classes are worth
//! analysing with object contexts when the rest of the JDK is analysed
//! without them.
//!
//! Models are keyed by the class that *declares* the method (the callee
//! after dispatch), so lookups are exact ([`heap_effects`]). A modelled
//! method's effects replace its body: the analysis does not look inside
//! (its code goes through `VarHandle`s or `Unsafe` offsets it cannot
//! follow, and analysing the shared wrappers would merge every caller's
//! objects).
//!
//! Besides the effects, [`returns_receiver`] names the methods (the string
//! builders' `append`, `insert`, ...) whose result is their receiver; their
//! bodies stay analysed.
//!
//! Not modelled: reflection (`Method.invoke`, `Constructor.newInstance`,
//! `Field.set`), `MethodHandle`/`VarHandle` invocation in general,
//! `AtomicReferenceArray` and the field updaters, JNI callbacks,
//! serialization.

use crate::table::{Keyed, Table};
use crate::{Desc, Operand};

/// One effect of a call on the heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeapEffect {
    /// The result is the receiver (merging the result and the receiver,
    /// the conservative choice for aliasing).
    ReturnsReceiver,
    /// The result is a new object of the receiver's type whose fields (an
    /// array's elements) hold what the receiver's do: a shallow copy
    /// (`Object.clone`). Writes into the copy do not reach the original,
    /// as they would if the result were the receiver.
    CopiesReceiver,
    /// Every element of array `from` may be stored into array `to`.
    CopiesElements { from: Operand, to: Operand },
    /// The result is an object the JVM creates itself, of this class.
    ReturnsVmObject { class: &'static str },
    /// `value` is stored into a reference slot of `object` chosen by an
    /// offset: an element when `object` is an array, any reference field
    /// otherwise.
    StoresAnywhere { object: Operand, value: Operand },
    /// The result is read from a reference slot of `object` chosen by an offset.
    LoadsAnywhere { object: Operand },
    /// `value` is stored into field `field` of `object` (declared in the
    /// model's class), through a `VarHandle` the bytecode does not resolve.
    StoresField {
        object: Operand,
        field: &'static str,
        value: Operand,
    },
    /// The result is read from field `field` of `object` through a `VarHandle`.
    LoadsField {
        object: Operand,
        field: &'static str,
    },
}

/// A heap model of one JDK method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeapModel {
    /// Declaring class (internal name).
    pub class: &'static str,
    pub name: &'static str,
    pub desc: Desc,
    pub effect: HeapEffect,
}

impl Keyed for HeapModel {
    fn key(&self) -> (&'static str, &'static str, Desc) {
        (self.class, self.name, self.desc)
    }
}

const fn h(class: &'static str, name: &'static str, desc: Desc, effect: HeapEffect) -> HeapModel {
    HeapModel {
        class,
        name,
        desc,
        effect,
    }
}

use Desc::{Exact, Params};
use HeapEffect::*;
use Operand::{Arg, Receiver};

const UNSAFE: &str = "jdk/internal/misc/Unsafe";
const SUN_UNSAFE: &str = "sun/misc/Unsafe";
const ATOMIC_REF: &str = "java/util/concurrent/atomic/AtomicReference";

#[rustfmt::skip]
static HEAP_MODELS: &[HeapModel] = &[
    h("java/lang/Object", "clone", Exact("()Ljava/lang/Object;"), CopiesReceiver),
    h("java/lang/System", "arraycopy", Exact("(Ljava/lang/Object;ILjava/lang/Object;II)V"), CopiesElements { from: Arg(0), to: Arg(2) }),
    h("java/lang/Thread", "currentThread", Exact("()Ljava/lang/Thread;"), ReturnsVmObject { class: "java/lang/Thread" }),
    // --- jdk.internal.misc.Unsafe natives (JDK 12+ names, then the JDK 9–11 ones);
    // the Java wrappers (`getReferenceAcquire`, `putReferenceRelease`, ...) call these.
    h(UNSAFE, "getReference", Params("(Ljava/lang/Object;J)"), LoadsAnywhere { object: Arg(0) }),
    h(UNSAFE, "getReferenceVolatile", Params("(Ljava/lang/Object;J)"), LoadsAnywhere { object: Arg(0) }),
    h(UNSAFE, "putReference", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(UNSAFE, "putReferenceVolatile", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(UNSAFE, "compareAndSetReference", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(3) }),
    h(UNSAFE, "compareAndExchangeReference", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(3) }),
    h(UNSAFE, "compareAndExchangeReference", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), LoadsAnywhere { object: Arg(0) }),
    // The Java wrappers (JDK 12+), modelled rather than analysed: they are
    // shared by every caller, and analysed without contexts they would
    // mix the objects of every `ConcurrentHashMap`.
    h(UNSAFE, "getReferenceAcquire", Params("(Ljava/lang/Object;J)"), LoadsAnywhere { object: Arg(0) }),
    h(UNSAFE, "getReferenceOpaque", Params("(Ljava/lang/Object;J)"), LoadsAnywhere { object: Arg(0) }),
    h(UNSAFE, "putReferenceRelease", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(UNSAFE, "putReferenceOpaque", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(UNSAFE, "weakCompareAndSetReference", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(3) }),
    h(UNSAFE, "weakCompareAndSetReferencePlain", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(3) }),
    h(UNSAFE, "weakCompareAndSetReferenceAcquire", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(3) }),
    h(UNSAFE, "weakCompareAndSetReferenceRelease", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(3) }),
    h(UNSAFE, "compareAndExchangeReferenceAcquire", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(3) }),
    h(UNSAFE, "compareAndExchangeReferenceAcquire", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), LoadsAnywhere { object: Arg(0) }),
    h(UNSAFE, "compareAndExchangeReferenceRelease", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(3) }),
    h(UNSAFE, "compareAndExchangeReferenceRelease", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), LoadsAnywhere { object: Arg(0) }),
    h(UNSAFE, "getAndSetReference", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(UNSAFE, "getAndSetReference", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), LoadsAnywhere { object: Arg(0) }),
    h(UNSAFE, "getAndSetReferenceAcquire", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(UNSAFE, "getAndSetReferenceAcquire", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), LoadsAnywhere { object: Arg(0) }),
    h(UNSAFE, "getAndSetReferenceRelease", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(UNSAFE, "getAndSetReferenceRelease", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), LoadsAnywhere { object: Arg(0) }),
    // JDK 9–11 names.
    h(UNSAFE, "getObject", Params("(Ljava/lang/Object;J)"), LoadsAnywhere { object: Arg(0) }),
    h(UNSAFE, "getObjectVolatile", Params("(Ljava/lang/Object;J)"), LoadsAnywhere { object: Arg(0) }),
    h(UNSAFE, "putObject", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(UNSAFE, "putObjectVolatile", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(UNSAFE, "compareAndSetObject", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(3) }),
    // --- sun.misc.Unsafe (jdk.unsupported), which applications call directly.
    h(SUN_UNSAFE, "getObject", Params("(Ljava/lang/Object;J)"), LoadsAnywhere { object: Arg(0) }),
    h(SUN_UNSAFE, "getObjectVolatile", Params("(Ljava/lang/Object;J)"), LoadsAnywhere { object: Arg(0) }),
    h(SUN_UNSAFE, "putObject", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(SUN_UNSAFE, "putObjectVolatile", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(SUN_UNSAFE, "putOrderedObject", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(SUN_UNSAFE, "compareAndSwapObject", Params("(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(3) }),
    h(SUN_UNSAFE, "getAndSetObject", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), StoresAnywhere { object: Arg(0), value: Arg(2) }),
    h(SUN_UNSAFE, "getAndSetObject", Params("(Ljava/lang/Object;JLjava/lang/Object;)"), LoadsAnywhere { object: Arg(0) }),
    // --- AtomicReference writes and reads through its VALUE VarHandle (JDK 9+).
    h(ATOMIC_REF, "compareAndSet", Params("(Ljava/lang/Object;Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(1) }),
    h(ATOMIC_REF, "weakCompareAndSet", Params("(Ljava/lang/Object;Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(1) }),
    h(ATOMIC_REF, "weakCompareAndSetPlain", Params("(Ljava/lang/Object;Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(1) }),
    h(ATOMIC_REF, "weakCompareAndSetVolatile", Params("(Ljava/lang/Object;Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(1) }),
    h(ATOMIC_REF, "weakCompareAndSetAcquire", Params("(Ljava/lang/Object;Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(1) }),
    h(ATOMIC_REF, "weakCompareAndSetRelease", Params("(Ljava/lang/Object;Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(1) }),
    h(ATOMIC_REF, "compareAndExchange", Params("(Ljava/lang/Object;Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(1) }),
    h(ATOMIC_REF, "compareAndExchange", Params("(Ljava/lang/Object;Ljava/lang/Object;)"), LoadsField { object: Receiver, field: "value" }),
    h(ATOMIC_REF, "getAndSet", Params("(Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(0) }),
    h(ATOMIC_REF, "getAndSet", Params("(Ljava/lang/Object;)"), LoadsField { object: Receiver, field: "value" }),
    h(ATOMIC_REF, "lazySet", Params("(Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(0) }),
    h(ATOMIC_REF, "setPlain", Params("(Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(0) }),
    h(ATOMIC_REF, "setOpaque", Params("(Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(0) }),
    h(ATOMIC_REF, "setRelease", Params("(Ljava/lang/Object;)"), StoresField { object: Receiver, field: "value", value: Arg(0) }),
    h(ATOMIC_REF, "getPlain", Exact("()Ljava/lang/Object;"), LoadsField { object: Receiver, field: "value" }),
    h(ATOMIC_REF, "getOpaque", Exact("()Ljava/lang/Object;"), LoadsField { object: Receiver, field: "value" }),
    h(ATOMIC_REF, "getAcquire", Exact("()Ljava/lang/Object;"), LoadsField { object: Receiver, field: "value" }),
    // --- A selection key's attachment (`ATTACHMENT.getAndSet`): what NIO
    // servers hand from the registering thread to the selector thread.
    h("java/nio/channels/SelectionKey", "attach", Exact("(Ljava/lang/Object;)Ljava/lang/Object;"), StoresField { object: Receiver, field: "attachment", value: Arg(0) }),
    h("java/nio/channels/SelectionKey", "attach", Exact("(Ljava/lang/Object;)Ljava/lang/Object;"), LoadsField { object: Receiver, field: "attachment" }),
];

static TABLE: Table<HeapModel> = Table::new(HEAP_MODELS);

/// Every heap model (for documentation and exhaustive tests).
pub fn all_heap_models() -> &'static [HeapModel] {
    TABLE.entries()
}

/// The heap effects of the method `class.name desc`, `class` being the
/// declaring class of the method that runs (after dispatch), in table order.
pub fn heap_effects(class: &str, name: &str, desc: &str) -> Vec<&'static HeapModel> {
    TABLE.lookup(class, name, Some(desc), None)
}

/// A JDK class whose instance methods returning one of `results` return
/// their receiver (`return this`), whatever their name: the string
/// builders' `append`, `insert`, `delete`, `replace`, `reverse`, ... and
/// their bridges. Unlike a [`HeapEffect`], this does not replace the body,
/// which stays analysed: `append(Object)` calls the argument's `toString`
/// (application code that may read fields and take locks), and
/// `StringBuffer`'s methods are `synchronized` on their `this`. Only the
/// result changes: it is the object the call was made on, not whatever the
/// callee's `this` holds in its context. Past the bound on contexts per
/// method every builder of the program shares one context of `append`, and
/// its `return this` handed every builder to every chained
/// `sb.append(a).append(b)` call (BENCHMARKS.md, "points-to cost").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReceiverResult {
    /// Declaring class (internal name).
    pub class: &'static str,
    /// Return descriptors of the methods that return their receiver.
    pub results: &'static [&'static str],
}

/// Every builder method returning a builder (or `Appendable`) returns
/// `this` (checked against JDK 17's `AbstractStringBuilder`,
/// `StringBuilder` and `StringBuffer`).
const BUILDER_RESULTS: &[&str] = &[
    "Ljava/lang/AbstractStringBuilder;",
    "Ljava/lang/StringBuilder;",
    "Ljava/lang/StringBuffer;",
    "Ljava/lang/Appendable;",
];

#[rustfmt::skip]
static RECEIVER_RESULTS: &[ReceiverResult] = &[
    ReceiverResult { class: "java/lang/AbstractStringBuilder", results: BUILDER_RESULTS },
    ReceiverResult { class: "java/lang/StringBuilder", results: BUILDER_RESULTS },
    ReceiverResult { class: "java/lang/StringBuffer", results: BUILDER_RESULTS },
];

/// Every model of methods returning their receiver (for documentation and tests).
pub fn all_receiver_results() -> &'static [ReceiverResult] {
    RECEIVER_RESULTS
}

/// Does the instance method `class.name desc` (`class` declaring it, after
/// dispatch) return its receiver ([`ReceiverResult`])?
pub fn returns_receiver(class: &str, desc: &str) -> bool {
    let Some(ret) = desc.rsplit_once(')').map(|(_, r)| r) else {
        return false;
    };
    RECEIVER_RESULTS
        .iter()
        .any(|m| m.class == class && m.results.contains(&ret))
}

/// A static field that the JVM initialises during startup, in code no
/// entry point reaches (`System.initPhase1` sets `System.out`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VmStaticField {
    /// Declaring class (internal name).
    pub class: &'static str,
    pub name: &'static str,
    /// Class of the object the JVM stores there.
    pub value_class: &'static str,
}

#[rustfmt::skip]
static VM_STATIC_FIELDS: &[VmStaticField] = &[
    VmStaticField { class: "java/lang/System", name: "out", value_class: "java/io/PrintStream" },
    VmStaticField { class: "java/lang/System", name: "err", value_class: "java/io/PrintStream" },
    VmStaticField { class: "java/lang/System", name: "in", value_class: "java/io/BufferedInputStream" },
];

/// Static fields the JVM sets up before `main` runs.
pub fn vm_static_fields() -> &'static [VmStaticField] {
    VM_STATIC_FIELDS
}

/// JDK packages (prefixes of internal names) whose methods keep object
/// contexts when the analysis gives the rest of the JDK none: collections
/// and concurrent collections (otherwise the elements of every `ArrayList`
/// merge through the one, context-free, `elementData` array), their
/// iterators and entries, executors and futures (a `FutureTask` holds the
/// task it runs), and `Thread` (a thread's `run()` calls the `Runnable`
/// given to its constructor through a field).
const CONTEXT_PREFIXES: &[&str] = &["java/util/"];
/// Sub-packages of those prefixes that do not need contexts and are costly
/// with them (pipelines of lambdas, parsers, codecs).
const CONTEXT_EXCLUDED: &[&str] = &[
    "java/util/regex/",
    "java/util/stream/",
    "java/util/logging/",
    "java/util/zip/",
    "java/util/jar/",
    "java/util/prefs/",
    "java/util/spi/",
    "java/util/random/",
];
const CONTEXT_CLASSES: &[&str] = &[
    "java/lang/Thread",
    // `append` returns `this`: without contexts every builder aliases every other.
    "java/lang/AbstractStringBuilder",
    "java/lang/StringBuilder",
    "java/lang/StringBuffer",
];

/// Does the JDK class `class` keep object contexts under the "containers"
/// library setting of the points-to analysis?
pub fn keeps_object_contexts(class: &str) -> bool {
    CONTEXT_CLASSES.contains(&class)
        || (CONTEXT_PREFIXES.iter().any(|p| class.starts_with(p))
            && !CONTEXT_EXCLUDED.iter().any(|p| class.starts_with(p)))
}

/// Classes whose instances the JVM creates by itself (constants, startup
/// code that no entry point reaches: `System.out` is made in
/// `System.initPhase1`): live from the start of any call graph.
pub const JVM_ALLOCATED: &[&str] = &[
    "java/lang/String",
    "java/lang/Class",
    "java/lang/Thread",
    "java/lang/ThreadGroup",
    "java/io/PrintStream",
    "java/io/BufferedInputStream",
    "java/lang/invoke/MethodType",
    "java/lang/invoke/MethodHandles$Lookup",
];

/// Is a call reflective: it runs code chosen at run time by a `Method`
/// or `MethodHandle` (`Method.invoke`, `MethodHandle.invoke*`)?
pub fn is_reflective_call(class: &str, name: &str) -> bool {
    match class {
        "java/lang/reflect/Method" => name == "invoke",
        "java/lang/invoke/MethodHandle" => {
            matches!(name, "invoke" | "invokeExact" | "invokeWithArguments")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_are_exact() {
        let e = heap_effects(
            "java/lang/System",
            "arraycopy",
            "(Ljava/lang/Object;ILjava/lang/Object;II)V",
        );
        assert_eq!(e.len(), 1);
        assert_eq!(
            e[0].effect,
            CopiesElements {
                from: Arg(0),
                to: Arg(2)
            }
        );
        assert!(heap_effects(
            "app/Main",
            "arraycopy",
            "(Ljava/lang/Object;ILjava/lang/Object;II)V"
        )
        .is_empty());
        let cas = heap_effects(
            UNSAFE,
            "compareAndExchangeReference",
            "(Ljava/lang/Object;JLjava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
        );
        assert_eq!(cas.len(), 2);
        let gs = heap_effects(
            ATOMIC_REF,
            "getAndSet",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
        );
        assert_eq!(gs.len(), 2);
    }

    #[test]
    fn every_model_is_well_formed() {
        for m in all_heap_models() {
            if let Desc::Exact(d) | Desc::Params(d) = m.desc {
                assert!(d.starts_with('('), "{m:?}");
            }
            assert!(crate::is_jdk_class(m.class), "{m:?}");
        }
        for f in vm_static_fields() {
            assert!(crate::is_jdk_class(f.class) && crate::is_jdk_class(f.value_class));
        }
    }

    #[test]
    fn builders_return_their_receiver() {
        let sb = "java/lang/StringBuilder";
        assert!(returns_receiver(
            sb,
            "(Ljava/lang/Object;)Ljava/lang/StringBuilder;"
        ));
        assert!(returns_receiver(
            sb,
            "(Ljava/lang/CharSequence;)Ljava/lang/Appendable;"
        ));
        assert!(returns_receiver(
            "java/lang/AbstractStringBuilder",
            "(I)Ljava/lang/AbstractStringBuilder;"
        ));
        assert!(returns_receiver(
            "java/lang/StringBuffer",
            "(IILjava/lang/String;)Ljava/lang/StringBuffer;"
        ));
        // `toString` and `subSequence` return new objects.
        assert!(!returns_receiver(sb, "()Ljava/lang/String;"));
        assert!(!returns_receiver(sb, "(II)Ljava/lang/CharSequence;"));
        // Another class's `append` is not modelled (a `Writer`'s is its own).
        assert!(!returns_receiver("java/io/Writer", "(C)Ljava/io/Writer;"));
        assert!(!returns_receiver(
            "app/Builder",
            "(I)Ljava/lang/StringBuilder;"
        ));
        for m in all_receiver_results() {
            assert!(crate::is_jdk_class(m.class), "{m:?}");
        }
    }

    #[test]
    fn context_classes() {
        assert!(keeps_object_contexts("java/util/ArrayList"));
        assert!(keeps_object_contexts("java/util/HashMap$Node"));
        assert!(keeps_object_contexts("java/util/concurrent/FutureTask"));
        assert!(keeps_object_contexts("java/lang/Thread"));
        assert!(!keeps_object_contexts("java/util/regex/Pattern"));
        assert!(!keeps_object_contexts("java/lang/String"));
        assert!(!keeps_object_contexts("app/Main"));
    }
}
