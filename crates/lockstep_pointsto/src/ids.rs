//! The dense ids the solvers number things with: one newtype per table, so
//! a signature says which table an id indexes and ids of two tables cannot
//! be mixed up. Each is a `u32` index, assigned in first-seen order.

/// A dense index into one table.
pub(crate) trait Id: Copy {
    /// The id of the `i`th entry.
    fn from_index(i: usize) -> Self;
    /// The position of this id's entry in its table.
    fn index(self) -> usize;
}

impl Id for u32 {
    fn from_index(i: usize) -> u32 {
        i as u32
    }
    fn index(self) -> usize {
        self as usize
    }
}

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) struct $name(pub(crate) u32);

        // Not every table's ids are looked up by position outside the generic code.
        #[allow(dead_code)]
        impl $name {
            /// The position of this id's entry in its table.
            #[inline]
            pub(crate) fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl Id for $name {
            fn from_index(i: usize) -> $name {
                $name(i as u32)
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
    )*};
}

ids! {
    /// An allocation site (or special object kind): index into the sites table.
    SiteId;
    /// A field: index into the fields table.
    FieldId;
    /// A type of the types table.
    TypeId;
    /// A pointer node of the solver (variable in a context, field of an
    /// object, static field, exceptions, temporaries).
    PtrId;
    /// An abstract object: a site with a heap context.
    ObjId;
    /// A context: a sequence of sites.
    CtxId;
    /// A method in a context.
    MCtxId;
}

/// A local pointer of a method template (an index into its slots).
pub(crate) type Slot = u32;
/// "No slot": the variable is not a reference.
pub(crate) const NO_SLOT: Slot = u32::MAX;

/// A method context's pointers are consecutive: the pointer of slot `s` is
/// the context's base pointer plus `s`.
impl std::ops::Add<Slot> for PtrId {
    type Output = PtrId;
    #[inline]
    fn add(self, slot: Slot) -> PtrId {
        PtrId(self.0 + slot)
    }
}

impl std::ops::Add<&Slot> for PtrId {
    type Output = PtrId;
    #[inline]
    fn add(self, slot: &Slot) -> PtrId {
        self + *slot
    }
}

impl CtxId {
    /// The empty context, interned first: context-insensitive code and
    /// objects without a heap context.
    pub(crate) const EMPTY: CtxId = CtxId(0);
    /// "Not computed yet" in per-object context caches.
    pub(crate) const UNSET: CtxId = CtxId(u32::MAX);
}

impl PtrId {
    /// "Not materialized yet": the base pointer of a method context whose
    /// template has not been instantiated.
    pub(crate) const UNSET: PtrId = PtrId(u32::MAX);
}

impl FieldId {
    /// The field of every array's elements (interned first).
    pub(crate) const ELEMENT: FieldId = FieldId(0);
    /// The unsafe "anywhere" field (interned second).
    pub(crate) const ANYWHERE: FieldId = FieldId(1);
}
