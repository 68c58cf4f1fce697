//! `lockstep check --types FILE`: reads a types file written by
//! `lockstep check-trace --discover-types` and turns its guards and
//! read-only types into the declared types the guard inference checks.
//! `thisThread` and `none` entries declare nothing the static analysis
//! can check and are skipped.

use std::path::Path;
use std::sync::Arc;

use lockstep_detectors::non_atomic_method::declared::{DeclaredOwner, DeclaredType};
use lockstep_detectors::non_atomic_method::guards::GuardLock;
use lockstep_dynamic::types::{GuardName, Owner, TypedField};

/// The declared types of `path` (none without a path); an unreadable or
/// malformed file is an error naming it.
pub fn read(path: Option<&Path>) -> Result<Vec<DeclaredType>, String> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the types file {}: {e}", path.display()))?;
    let fields = lockstep_dynamic::types::parse(&text)
        .map_err(|e| format!("types file {}: {e}", path.display()))?;
    Ok(fields.iter().filter_map(declared).collect())
}

fn declared(f: &TypedField) -> Option<DeclaredType> {
    let owner = match &f.owner {
        Owner::ReadOnly => DeclaredOwner::ReadOnly,
        Owner::GuardedBy(g) => DeclaredOwner::GuardedBy(lock(g)),
        Owner::WriteGuardedBy(g) => DeclaredOwner::WriteGuardedBy(lock(g)),
        Owner::ThisThread | Owner::None => return None,
    };
    Some(DeclaredType {
        class: internal(&f.class),
        field: Arc::from(f.field.as_str()),
        owner,
    })
}

fn lock(g: &GuardName) -> GuardLock {
    match g {
        GuardName::This => GuardLock::Itself,
        GuardName::Class(c) => GuardLock::Class(internal(c)),
    }
}

/// `pkg.Outer$Inner` → `pkg/Outer$Inner`.
fn internal(dotted: &str) -> Arc<str> {
    Arc::from(dotted.replace('.', "/"))
}
