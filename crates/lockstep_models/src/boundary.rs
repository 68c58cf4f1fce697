//! The JDK boundary: JDK classes whose method bodies the analyses do not
//! enter, because what they do matters nothing to the concurrency rules
//! while their code drags in most of the JDK.
//!
//! Measured with `lockstep debug reach` (`BENCHMARKS.md`, "The JDK
//! boundary"): the four-class bundled example reached 16,002 JDK bodies,
//! most of them charset coders, `java.lang.invoke` internals, security,
//! locale and format internals, service loading and logging, entered
//! through `String.format`, `Thread.<init>`, class initializers and the
//! virtual calls inside them that resolve to every live subtype.
//!
//! A call into a method of a listed class keeps its call edge (rules that
//! look at call sites, such as `blocking-under-lock`, see it), and the
//! method is summarised instead of analysed:
//!
//! - its result is a fresh opaque object of the declared return type (as
//!   for a native);
//! - its *callbacks* are kept: the calls its own body makes on its
//!   parameters (`this` included), such as `String.valueOf(x)` calling
//!   `x.toString()` or an application subclass's override called by the
//!   JDK superclass, are resolved as usual; nothing else in its body is;
//! - whatever it locks is read from its own flags and body by the rules
//!   that look at lock acquisitions (a `synchronized` method stays one).
//!
//! Not listed: collections, `java.util.concurrent`, `Thread`, locks,
//! executors, strings and builders, I/O streams, and every class another
//! model of this crate describes (their effects come from those models or
//! from their code), and the classes that run callbacks through private
//! helpers (`AccessController`, stream pipelines: [`crate::callbacks`]).

/// Packages (`pkg/`: the package and its subpackages) and classes (exact
/// name, nested classes included) whose bodies are not entered.
#[rustfmt::skip]
const SUMMARIZED: &[&str] = &[
    // Charset coders and lookup (`String.getBytes`, `new String(bytes)`,
    // readers and writers).
    "sun/nio/cs/",
    "java/nio/charset/",
    // Method handles, lambda forms, bootstrap methods and `VarHandle`
    // plumbing (natives and signature-polymorphic calls are unaffected).
    "java/lang/invoke/",
    "sun/invoke/",
    // JDK internals: class loading, module system, reflection, loggers,
    // access to private fields of other JDK classes.
    "jdk/internal/",
    "java/lang/module/",
    "java/lang/reflect/",
    "sun/reflect/",
    // Security: permissions, providers, policy, certificates.
    "java/security/",
    "sun/security/",
    "javax/security/",
    // Locale, text and format internals, regular expressions.
    "java/text/",
    "sun/text/",
    "sun/util/",
    "java/util/regex/",
    "java/util/Locale",
    "java/util/ResourceBundle",
    "java/util/Formatter",
    "java/util/Currency",
    "java/util/spi/",
    "java/time/",
    // Logging and service loading.
    "java/util/logging/",
    "java/lang/System$LoggerFinder",
    "java/lang/System$Logger",
    "java/util/ServiceLoader",
    // Class loading and the URL machinery behind it.
    "java/lang/ClassLoader",
    "java/net/URLClassLoader",
    "java/lang/Module",
    "java/lang/ModuleLayer",
    // Desktop internals: the AWT peers and toolkits (`sun.awt.X11` alone
    // is 50 k statements on jgroups, reached by `Runnable.run` dispatch to
    // `XToolkit`), 2D rendering pipelines, fonts, the look-and-feel UI
    // delegates. The public `java.awt`/`javax.swing` classes stay
    // analysed: listeners and `paintComponent` overrides are called from
    // there, and `invokeLater` is a thread-start model (`threads`).
    "sun/awt/",
    "sun/java2d/",
    "sun/font/",
    "sun/swing/",
    "sun/print/",
    "javax/swing/plaf/",
    "com/sun/java/swing/plaf/",
    // Images, geometry, fonts, colour spaces, clipboard and drag-and-drop
    // data: values and codecs, reached through `toString`/`equals` of
    // every live subtype.
    "java/awt/image/",
    "java/awt/geom/",
    "java/awt/font/",
    "java/awt/color/",
    "java/awt/datatransfer/",
    "sun/datatransfer/",
    "com/sun/imageio/",
    "javax/imageio/",
    // Printing: `PrinterJob`'s implementations are `sun.print`'s.
    "java/awt/print/",
    // The DOM's interfaces: their implementation (the JDK's XML parser)
    // is made by reflection, so no analysed class implements them, and a
    // call on a node is JDK code (as on a `PublicKey`), not unknown code.
    "org/w3c/dom/",
    // Numbers, ciphers and management beans: values and services that
    // hold no application state and call nothing back.
    "java/math/",
    "javax/crypto/",
    "com/sun/crypto/",
    "javax/management/",
    "com/sun/jmx/",
    "java/lang/management/",
    "sun/management/",
];

/// The JDK class standing for the result of a summarised method whose
/// declared return type is abstract, where the JDK has one implementation
/// that every such method returns: `BufferedImage.createGraphics` and the
/// other factories of the 2D pipeline (`sun.java2d`, summarised) return a
/// `SunGraphics2D`. Without it no class would implement `Graphics2D`, and
/// every call on an application's `Graphics2D` would go to unknown code.
#[rustfmt::skip]
const RESULT_IMPLEMENTATIONS: &[(&str, &str)] = &[
    ("java/awt/Graphics", "sun/java2d/SunGraphics2D"),
    ("java/awt/Graphics2D", "sun/java2d/SunGraphics2D"),
];

/// The concrete JDK class a summarised method declared to return the
/// abstract class or interface `declared` (internal name) returns, when
/// the boundary knows it.
pub fn summarized_result_implementation(declared: &str) -> Option<&'static str> {
    RESULT_IMPLEMENTATIONS
        .iter()
        .find(|(abstract_class, _)| *abstract_class == declared)
        .map(|&(_, implementation)| implementation)
}

/// Classes inside a listed package that stay analysed: they run callbacks
/// through private helpers, or other models of this crate describe them.
#[rustfmt::skip]
const KEPT: &[&str] = &[
    "java/security/AccessController",
    "jdk/internal/misc/Unsafe",
    "sun/misc/Unsafe",
];

/// Is every method body of the JDK class `class` (internal name) left
/// unanalysed, summarised as this module describes?
pub fn is_summarized_class(class: &str) -> bool {
    !KEPT.iter().any(|k| names(k, class)) && SUMMARIZED.iter().any(|p| names(p, class))
}

/// Every listed prefix (for documentation and tests).
pub fn summarized_prefixes() -> &'static [&'static str] {
    SUMMARIZED
}

/// Does the table entry `entry` (a package `pkg/` or a class) name `class`?
fn names(entry: &str, class: &str) -> bool {
    if entry.ends_with('/') {
        return class.starts_with(entry);
    }
    match class.strip_prefix(entry) {
        Some("") => true,
        Some(rest) => rest.starts_with('$'),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_cover_subpackages_and_classes_their_nested_classes() {
        assert!(is_summarized_class("sun/nio/cs/UTF_8$Encoder"));
        assert!(is_summarized_class(
            "jdk/internal/loader/BuiltinClassLoader"
        ));
        assert!(is_summarized_class("java/util/Formatter"));
        assert!(is_summarized_class("java/util/Formatter$FormatSpecifier"));
        assert!(!is_summarized_class("java/util/FormatterClosedException"));
        assert!(is_summarized_class("java/util/Locale$Category"));
    }

    #[test]
    fn concurrency_collections_and_kept_classes_stay_analysed() {
        for class in [
            "java/util/HashMap",
            "java/util/concurrent/ConcurrentHashMap",
            "java/util/concurrent/locks/ReentrantLock",
            "java/lang/Thread",
            "java/lang/String",
            "java/lang/StringBuilder",
            "java/io/PrintStream",
            "java/security/AccessController",
            "jdk/internal/misc/Unsafe",
            "app/java/text/Mine",
        ] {
            assert!(!is_summarized_class(class), "{class}");
        }
    }

    #[test]
    fn desktop_internals_are_summarized_and_public_swing_is_not() {
        for class in [
            "sun/awt/X11/XToolkit",
            "sun/awt/AppContext",
            "sun/java2d/SunGraphics2D",
            "sun/font/FontManager",
            "javax/swing/plaf/basic/BasicTextUI",
            "java/awt/image/BufferedImage",
            "java/awt/geom/Rectangle2D$Double",
            "java/math/BigInteger",
            "javax/management/MBeanServer",
            "javax/imageio/metadata/IIOMetadataNode",
            "java/awt/print/PrinterJob",
            "org/w3c/dom/NodeList",
        ] {
            assert!(is_summarized_class(class), "{class}");
        }
        for class in [
            "java/awt/EventQueue",
            "java/awt/Component",
            "java/awt/event/InvocationEvent",
            "javax/swing/SwingUtilities",
            "javax/swing/JComponent",
            "javax/swing/SwingWorker",
            "javax/swing/Timer",
            "org/xml/sax/helpers/DefaultHandler",
        ] {
            assert!(!is_summarized_class(class), "{class}");
        }
    }

    #[test]
    fn abstract_results_name_a_summarized_implementation() {
        for (declared, implementation) in RESULT_IMPLEMENTATIONS {
            assert!(!is_summarized_class(declared), "{declared}");
            assert!(is_summarized_class(implementation), "{implementation}");
        }
        assert_eq!(
            summarized_result_implementation("java/awt/Graphics2D"),
            Some("sun/java2d/SunGraphics2D")
        );
        assert_eq!(summarized_result_implementation("java/util/List"), None);
    }

    #[test]
    fn no_modelled_concurrency_class_is_summarized() {
        for class in [
            crate::THREAD_CLASS,
            crate::LOCK_INTERFACE,
            crate::READ_WRITE_LOCK,
            crate::COMPLETION_STAGE,
        ] {
            assert!(!is_summarized_class(class), "{class}");
        }
    }
}
