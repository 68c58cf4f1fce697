//! Lost updates through immutable values (issue 14, point 7).
//!
//! A value of an immutable type (a boxed count, a `String`) read under a
//! lock is a snapshot: using it after the lock was released is no stale
//! use, it cannot change ([`super::values`]). But the place it was read
//! from can: a value computed from the snapshot and stored back into that
//! same place after the release overwrites whatever another thread stored
//! there in between, the lost update the rule reports for an `int`:
//!
//! ```java
//! Integer c = counters.get(key);   // Hashtable.get locks `counters`
//! counters.put(key, c + 1);        // another thread's put is lost
//! ```
//!
//! This module names the place each read reads and each store writes, so
//! the dataflow ([`super::flow`]) can tell such a write-back from the other
//! uses of a snapshot (returning it, logging it, putting it into another
//! map), which stay silent. Places are compared by access path:
//!
//! - a field read and a store of the same field of the same object path
//!   (`this.total`), a static field, an element of the same array path;
//! - a call's result and a call on the same receiver path that stores one
//!   of its arguments in the container (`put`, `add`, `setElementAt`...:
//!   the models layer's `stores_argument_via`), the snapshot among those
//!   arguments.
//!
//! Paths that cannot be described (`?`) never match.

use std::collections::HashMap;
use std::sync::Arc;

use lockstep_ir::{AccessPath, Body, Operand, Rvalue, StmtId, StmtKind, VarId};
use lockstep_program::Program;

use super::locks::short;

/// A shared place a statement reads a value from or stores one into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// An instance field (by name and descriptor) of the object at a path.
    Field {
        object: AccessPath,
        name: Arc<str>,
        descriptor: Arc<str>,
    },
    /// A static field.
    Static { class: Arc<str>, name: Arc<str> },
    /// An element of the array at a path.
    Element(AccessPath),
    /// The contents of the container at a path (a call's receiver).
    Contents(AccessPath),
}

impl Place {
    /// How messages name the place (`total`, `Counter.total`, `counters`).
    pub fn describe(&self) -> String {
        match self {
            Place::Field { object, name, .. } => {
                short(&AccessPath::Field(Arc::new(object.clone()), name.clone()))
            }
            Place::Static { class, name } => {
                AccessPath::Static(class.clone(), name.clone()).to_string()
            }
            Place::Element(array) => format!("{}[…]", short(array)),
            Place::Contents(container) => short(container),
        }
    }
}

/// The places the reads and the stores of one method body touch.
#[derive(Debug, Default)]
pub struct WriteBacks {
    /// The place each heap read or call reads (a call: its receiver's
    /// contents).
    reads: HashMap<StmtId, Place>,
    /// The place each store, or storing container call, writes, and the
    /// variables whose values it stores there.
    writes: HashMap<StmtId, (Place, Vec<VarId>)>,
}

impl WriteBacks {
    pub fn compute(program: &Program, body: &Body) -> WriteBacks {
        let mut out = WriteBacks::default();
        for (i, stmt) in body.stmts.iter().enumerate() {
            let s = StmtId(i as u32);
            if let Some(place) = read_place(body, &stmt.kind) {
                out.reads.insert(s, place);
            }
            if let Some(write) = write_place(program, body, &stmt.kind) {
                out.writes.insert(s, write);
            }
        }
        out
    }

    /// Does the statement at `stmt` store the value of `v` into the place
    /// the read at `read` read?
    pub fn writes_back(&self, stmt: StmtId, v: VarId, read: StmtId) -> bool {
        match (self.writes.get(&stmt), self.reads.get(&read)) {
            (Some((written, values)), Some(read)) => written == read && values.contains(&v),
            _ => false,
        }
    }

    /// The place the statement at `stmt` stores into, if it is a store.
    pub fn written_at(&self, stmt: StmtId) -> Option<&Place> {
        self.writes.get(&stmt).map(|(p, _)| p)
    }
}

/// A path that names one place (not `?`, not a constant).
fn known(path: AccessPath) -> Option<AccessPath> {
    match path {
        AccessPath::Unknown | AccessPath::IntConst(_) => None,
        p => Some(p),
    }
}

fn read_place(body: &Body, kind: &StmtKind) -> Option<Place> {
    match kind {
        StmtKind::Assign { value, .. } => match value {
            Rvalue::FieldLoad { object, field } => Some(Place::Field {
                object: known(body.operand_path(object))?,
                name: field.name.clone(),
                descriptor: field.descriptor.clone(),
            }),
            Rvalue::StaticLoad(field) => Some(Place::Static {
                class: field.class.clone(),
                name: field.name.clone(),
            }),
            Rvalue::ArrayLoad { array, .. } => {
                Some(Place::Element(known(body.operand_path(array))?))
            }
            _ => None,
        },
        StmtKind::Invoke { call, .. } => {
            let receiver = call.receiver.as_ref()?;
            Some(Place::Contents(known(body.operand_path(receiver))?))
        }
        _ => None,
    }
}

fn write_place(program: &Program, body: &Body, kind: &StmtKind) -> Option<(Place, Vec<VarId>)> {
    match kind {
        StmtKind::FieldStore {
            object,
            field,
            value,
        } => {
            let place = Place::Field {
                object: known(body.operand_path(object))?,
                name: field.name.clone(),
                descriptor: field.descriptor.clone(),
            };
            Some((place, value.var().into_iter().collect()))
        }
        StmtKind::StaticStore { field, value } => {
            let place = Place::Static {
                class: field.class.clone(),
                name: field.name.clone(),
            };
            Some((place, value.var().into_iter().collect()))
        }
        StmtKind::ArrayStore { array, value, .. } => {
            let place = Place::Element(known(body.operand_path(array))?);
            Some((place, value.var().into_iter().collect()))
        }
        StmtKind::Invoke { call, .. } => {
            let m = &call.method;
            let is_subtype = |a: &str, b: &str| program.is_subtype_name(a, b);
            if !lockstep_models::stores_argument_via(&m.class, &m.name, &is_subtype) {
                return None;
            }
            let receiver = call.receiver.as_ref()?;
            let place = Place::Contents(known(body.operand_path(receiver))?);
            Some((place, call.args.iter().filter_map(Operand::var).collect()))
        }
        _ => None,
    }
}
