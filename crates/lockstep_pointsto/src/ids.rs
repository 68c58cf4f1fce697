//! The dense ids the solvers number things with, one name per table, so
//! a signature says which table an id indexes.

/// An allocation site (or special object kind): index into the sites table.
pub(crate) type SiteId = u32;
/// A field: index into the fields table.
pub(crate) type FieldId = u32;
/// A type of the types table.
pub(crate) type TypeId = u32;
/// A local pointer of a method template.
pub(crate) type Slot = u32;
/// "No slot": the variable is not a reference.
pub(crate) const NO_SLOT: Slot = u32::MAX;
/// A pointer node of the solver (variable in a context, field of an object,
/// static field, exceptions, temporaries).
pub(crate) type PtrId = u32;
/// An abstract object: a site with a heap context.
pub(crate) type ObjId = u32;
/// A context: a sequence of sites.
pub(crate) type CtxId = u32;
/// A method in a context.
pub(crate) type MCtxId = u32;
