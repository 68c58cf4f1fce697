//! Small helpers on program positions (and sorted sets) shared by the
//! facts and the detectors.

use lockstep_ir::{Body, StmtId, StmtKind, VarId};
use lockstep_program::{MethodId, Program};

/// Binary name with dots (`pkg.Outer$Inner`) from an internal name.
pub fn dotted(internal: &str) -> String {
    internal.replace('/', ".")
}

/// The source line of a statement, or of the method's first statement when `stmt` is `None`.
pub fn line_of(program: &Program, m: MethodId, stmt: Option<StmtId>) -> Option<u32> {
    let body = program.body(m)?;
    match stmt {
        Some(s) => body.stmts.get(s.index()).and_then(|st| st.line),
        None => body.stmts.iter().filter_map(|st| st.line).min(),
    }
}

/// The normal and exceptional successors of block `b` (none for a block
/// that does not exist).
pub fn successors(body: &Body, b: usize) -> Vec<usize> {
    body.blocks
        .get(b)
        .map(|bl| {
            bl.succs
                .iter()
                .map(|s| s.index())
                .chain(bl.exceptional.iter().map(|e| e.handler.index()))
                .collect()
        })
        .unwrap_or_default()
}

/// The one object of `set`, when it has exactly one.
pub fn single_object(set: &lockstep_pointsto::ObjectSet) -> Option<lockstep_pointsto::ObjectId> {
    let mut it = set.iter();
    let first = it.next()?;
    it.next().is_none().then_some(first)
}

/// The statement defining `v`, when it has exactly one definition.
pub fn unique_def_of(body: &Body, v: VarId) -> Option<&StmtKind> {
    let def = (*body.unique_def.get(v.index())?)?;
    body.stmts.get(def.index()).map(|s| &s.kind)
}

/// Do two sorted slices share an element? (One merge
/// walk; no allocation.)
pub fn sorted_slices_meet<T: Ord>(a: &[T], b: &[T]) -> bool {
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}
