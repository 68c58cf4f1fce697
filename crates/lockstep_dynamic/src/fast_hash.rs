//! The checkers' hash maps: the trace crate's integer hasher (shared with
//! the merger), re-exported under the name the checkers use.

pub use lockstep_trace::fast_hash::{FastHasher, FastMap, FastSet};
