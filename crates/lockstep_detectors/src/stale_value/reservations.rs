//! Reservations: heap reads whose critical section also writes the place
//! they read (paper 001, Fig. 5's hand-over, generalised). A thread that
//! reads a counter, a free-slot bit set or a list head and, before
//! releasing the lock, writes the same place (`return next++`,
//! `i = ids.nextClearBit(0); ids.set(i)`, `x = head; head = x.next`,
//! `if (!done) { done = true; ... }`) has made a state transition of its
//! own: the value it read names that transition (the id it reserved, the
//! element it unlinked, whether it won), and no later change by another
//! thread makes it out of date. Such a read is not a source of stale
//! values, like an element removed from a JDK queue
//! (`lockstep_models::ownership`).
//!
//! The write must be in the monitor region of the read (the lock held at
//! the read is still held at the write), name the same place (the same
//! field of the same access path, or a modelled container write,
//! `lockstep_models::containers`, on the receiver a container read was
//! made on) and update it from what was read there (or, for a field, set
//! it to a constant). A lazy initialisation (`if (conn == null) conn =
//! open()`) and a get-or-create (`v = map.get(k); if (v == null)
//! map.put(k, v = new V())`) are not reservations: another thread may
//! replace what they return. Reads under `java.util.concurrent` locks are not considered
//! (their regions are not in the IR). A read that is only checked in one
//! block and acted on in another (`if (!v.contains(x))` then
//! `v.add(x)` under a second acquisition) stays a stale source.

use lockstep_ir::{AccessPath, Body, Call, MemberRef, Operand, Rvalue, StmtId, StmtKind, VarId};
use lockstep_models::containers::{
    container_access, thread_safe_container_access, ContainerAccess,
};

/// The place a statement reads or writes: a field of an access path, a
/// static field, or the contents of a container on an access path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    Field(AccessPath, MemberRef),
    Static(MemberRef),
    Contents(AccessPath),
}

/// For each statement of `body`: is it a heap read (a field load or a
/// container read) of a place that its critical section also updates
/// from what it read, so the read is a reservation?
pub fn reserved_reads(body: &Body) -> Vec<bool> {
    let mut out = vec![false; body.stmts.len()];
    if body.monitors.is_empty() {
        return out;
    }
    let reads: Vec<(StmtId, Place)> = places(body, read);
    let writes = places(body, written);
    if reads.is_empty() || writes.is_empty() {
        return out;
    }
    let defs = definitions(body);
    let updates: Vec<(StmtId, Place)> = writes
        .into_iter()
        .filter(|(w, place)| updates_from_read(body, &defs, *w, place, &reads))
        .collect();
    for (r, place) in &reads {
        let Some(region) = body.held_before.get(r.index()).copied().flatten() else {
            continue;
        };
        let reserved = updates
            .iter()
            .any(|(w, p)| p == place && body.regions_held_before(*w).contains(&region));
        if let Some(slot) = out.get_mut(r.index()) {
            *slot = reserved;
        }
    }
    out
}

/// The statements held under a monitor that `f` maps to a place.
fn places(body: &Body, f: fn(&Body, &StmtKind) -> Option<Place>) -> Vec<(StmtId, Place)> {
    body.stmts
        .iter()
        .enumerate()
        .filter(|(i, _)| body.held_before.get(*i).copied().flatten().is_some())
        .filter_map(|(i, s)| Some((StmtId(i as u32), f(body, &s.kind)?)))
        .collect()
}

/// Whether the write at `w` of `place` is an update: its value (a field
/// store's) or one of its arguments (a container write's) is computed from
/// a read of the same place, or, for a field, is a constant (a flag set,
/// a slot cleared: `c = conn; conn = null`). A lazy initialisation
/// (`if (conn == null) conn = open()`) stores neither and is no update.
fn updates_from_read(
    body: &Body,
    defs: &[Vec<StmtId>],
    w: StmtId,
    place: &Place,
    reads: &[(StmtId, Place)],
) -> bool {
    let operands: Vec<&Operand> = match body.stmts.get(w.index()).map(|s| &s.kind) {
        Some(StmtKind::FieldStore { value, .. } | StmtKind::StaticStore { value, .. }) => {
            if matches!(value, Operand::Const(_)) {
                return true;
            }
            vec![value]
        }
        Some(StmtKind::Invoke { call, .. }) => call.args.iter().collect(),
        _ => return false,
    };
    let sources: Vec<StmtId> = reads
        .iter()
        .filter(|(_, p)| p == place)
        .map(|(r, _)| *r)
        .collect();
    !sources.is_empty()
        && operands
            .iter()
            .filter_map(|op| op.var())
            .any(|v| derives_from(body, defs, v, &sources, &mut vec![false; body.vars.len()]))
        && sources
            .iter()
            .any(|&r| r < w && no_call_between(body, r, w))
}

/// Whether no call other than a modelled container call lies between the
/// statements `r` and `w` (in statement order): a `wait()` (or a callee
/// that waits) releases the monitor in between, and a loop that carries
/// the read into the next execution of the block writes before it reads.
fn no_call_between(body: &Body, r: StmtId, w: StmtId) -> bool {
    body.stmts
        .get(r.index() + 1..w.index())
        .unwrap_or(&[])
        .iter()
        .all(|s| match &s.kind {
            StmtKind::Invoke { call, .. } => {
                contents(body, call, ContainerAccess::Read).is_some()
                    || contents(body, call, ContainerAccess::Write).is_some()
            }
            StmtKind::InvokeDynamic { .. } => false,
            _ => true,
        })
}

/// Whether every definition of `v`, followed back through assignments
/// (copies, arithmetic, casts, field loads through it), comes from one of
/// `sources`: a variable that also holds a new object (`v = map.get(k)`,
/// then `v = new V()` in the same local) is not an update. A cycle of
/// definitions (a loop) counts as not derived.
fn derives_from(
    body: &Body,
    defs: &[Vec<StmtId>],
    v: VarId,
    sources: &[StmtId],
    seen: &mut Vec<bool>,
) -> bool {
    match seen.get_mut(v.index()) {
        Some(s) if !*s => *s = true,
        _ => return false,
    }
    let list = defs.get(v.index()).map(Vec::as_slice).unwrap_or(&[]);
    !list.is_empty()
        && list.iter().all(|d| {
            if sources.contains(d) {
                return true;
            }
            let Some(StmtKind::Assign { value, .. }) = body.stmts.get(d.index()).map(|s| &s.kind)
            else {
                return false;
            };
            let mut operands = Vec::new();
            value.for_each_operand(|op| operands.extend(op.var()));
            operands
                .into_iter()
                .any(|o| derives_from(body, defs, o, sources, seen))
        })
}

/// Every definition of every variable.
fn definitions(body: &Body) -> Vec<Vec<StmtId>> {
    let mut defs = vec![Vec::new(); body.vars.len()];
    for (i, stmt) in body.stmts.iter().enumerate() {
        if let Some(list) = stmt.kind.def().and_then(|v| defs.get_mut(v.index())) {
            list.push(StmtId(i as u32));
        }
    }
    defs
}

/// The place a statement reads, if it is a heap read this module knows.
fn read(body: &Body, kind: &StmtKind) -> Option<Place> {
    match kind {
        StmtKind::Assign { value, .. } => match value {
            Rvalue::FieldLoad { object, field } => Some(Place::Field(
                lockstep_ir::operand_path(body, object),
                field.clone(),
            )),
            Rvalue::StaticLoad(field) => Some(Place::Static(field.clone())),
            _ => None,
        },
        StmtKind::Invoke { call, .. } => contents(body, call, ContainerAccess::Read),
        _ => None,
    }
}

/// The place a statement writes, if it is a heap write this module knows.
fn written(body: &Body, kind: &StmtKind) -> Option<Place> {
    match kind {
        StmtKind::FieldStore { object, field, .. } => Some(Place::Field(
            lockstep_ir::operand_path(body, object),
            field.clone(),
        )),
        StmtKind::StaticStore { field, .. } => Some(Place::Static(field.clone())),
        StmtKind::Invoke { call, .. } => contents(body, call, ContainerAccess::Write),
        _ => None,
    }
}

/// The contents of the receiver of a modelled container call that reads
/// or writes (`access`) them.
fn contents(body: &Body, call: &Call, access: ContainerAccess) -> Option<Place> {
    let receiver = call.receiver.as_ref()?;
    let class = &call.method.class;
    let name = &call.method.name;
    let kind = container_access(class, name).or_else(|| thread_safe_container_access(class, name));
    (kind == Some(access)).then(|| Place::Contents(receiver_path(body, receiver)))
}

fn receiver_path(body: &Body, receiver: &Operand) -> AccessPath {
    lockstep_ir::operand_path(body, receiver)
}
