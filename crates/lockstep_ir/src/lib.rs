//! Lowering of JVM bytecode to lockstep's IR.
//!
//! [`ir`] holds the data model. Lowering (stack simulation, CFG, local
//! splitting, monitor matching, access paths), the validator and the text
//! dump live in sibling modules.

pub mod ir;

pub use ir::*;
