//! Swing and AWT's threading rule, as data: which application classes and
//! methods are used on the event dispatch thread only.
//!
//! Swing's documented rule: components and their models, renderers and
//! editors are created, read and changed on the event dispatch thread
//! (EDT) only, and listeners of GUI events are called there. An outside
//! caller that follows the rule calls such methods on that one thread, one
//! after another. The analyses use these lists for the open-program
//! harness (the caller they assume): its entries into these methods run
//! on the EDT, like the tasks of `invokeLater` ([`crate::threads`]).
//!
//! Not here: which code of the program itself runs on the EDT (that is
//! what the thread-start models say), `SwingWorker`'s `process`/`done`,
//! `javax.swing.Timer` actions (their listeners are covered as listeners
//! when the harness calls them), and `javax.swing.text.Document`, whose
//! implementations lock themselves and may be changed from any thread.

/// Types whose every instance method, on an application subclass, is used
/// on the event dispatch thread: components (every Swing and AWT widget,
/// frame and dialog), the models Swing components read, renderers,
/// editors, and the tree nodes of tree models.
pub const EVENT_THREAD_TYPES: &[&str] = &[
    "java/awt/Component",
    "javax/swing/BoundedRangeModel",
    "javax/swing/ButtonModel",
    "javax/swing/CellEditor",
    "javax/swing/ListCellRenderer",
    "javax/swing/ListModel",
    "javax/swing/ListSelectionModel",
    "javax/swing/SingleSelectionModel",
    "javax/swing/table/TableCellRenderer",
    "javax/swing/table/TableColumnModel",
    "javax/swing/table/TableModel",
    "javax/swing/tree/TreeCellRenderer",
    "javax/swing/tree/TreeModel",
    "javax/swing/tree/TreeNode",
    "javax/swing/tree/TreeSelectionModel",
];

/// Packages whose listener interfaces (`java.util.EventListener`
/// subtypes) the event dispatch thread calls: the methods an application
/// class implements for one of them run there (`actionPerformed`,
/// `windowClosing`, `valueChanged`, ...).
pub const EVENT_LISTENER_PACKAGES: &[&str] = &["java/awt/event/", "javax/swing/event/"];

/// Listeners of those packages that the thread changing a document calls,
/// whichever it is (a text component's document may be changed from any
/// thread).
const ANY_THREAD_LISTENERS: &[&str] = &[
    "javax/swing/event/DocumentListener",
    "javax/swing/event/UndoableEditListener",
];

/// Is `class` (internal name) one of [`EVENT_THREAD_TYPES`]?
pub fn is_event_thread_type(class: &str) -> bool {
    EVENT_THREAD_TYPES.contains(&class)
}

/// Is `class` (internal name) an interface of a package of
/// [`EVENT_LISTENER_PACKAGES`] named like a listener?
pub fn is_event_listener_interface(class: &str) -> bool {
    if ANY_THREAD_LISTENERS.contains(&class) {
        return false;
    }
    EVENT_LISTENER_PACKAGES.iter().any(|p| {
        class
            .strip_prefix(p)
            .is_some_and(|rest| !rest.contains('/') && rest.ends_with("Listener"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listener_interfaces_by_package_and_name() {
        assert!(is_event_listener_interface("java/awt/event/ActionListener"));
        assert!(is_event_listener_interface(
            "javax/swing/event/ListSelectionListener"
        ));
        // Not a listener, or in a package the event thread does not own.
        assert!(!is_event_listener_interface("java/awt/event/ActionEvent"));
        assert!(!is_event_listener_interface(
            "javax/swing/event/DocumentListener"
        ));
        assert!(!is_event_listener_interface(
            "java/beans/PropertyChangeListener"
        ));
        assert!(!is_event_listener_interface(
            "java/awt/event/sub/OtherListener"
        ));
    }

    #[test]
    fn event_thread_types_are_exact_names() {
        assert!(is_event_thread_type("java/awt/Component"));
        assert!(is_event_thread_type("javax/swing/table/TableModel"));
        assert!(!is_event_thread_type("javax/swing/JFrame"));
        let mut sorted = EVENT_THREAD_TYPES.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, EVENT_THREAD_TYPES, "kept sorted");
    }
}
