//! Queue hand-offs: a `BlockingQueue` put happens before the take that
//! returns the object it put. The start/join orderings
//! ([`crate::happens_before`]) relate a thread to the method that starts
//! it; a queue relates two arbitrary threads, and only through the object
//! it carries, so the ordering here is a fact of a *pair* of accesses to
//! one abstract object `O`, not of a thread:
//!
//! - the producer side: an access of `O` in the method that puts `O`
//!   (`put`/`offer`/`add`/`transfer` of `lockstep_models::ordering`)
//!   before the put: when that method context runs once, any access that
//!   cannot run after the put; else (a producer called per message, or a
//!   put in a loop) an access through the variable of the `new` that
//!   made `O` in that method, when no path leads from the put back to the
//!   access without running the `new` again (each run fills the object it
//!   made, then puts it);
//! - the consumer side: an access through a value a `take`/`poll` of the
//!   same queue returned (in the method that took it, or in a callee every
//!   caller of which passes it such a value, one level deep).
//!
//! Such a pair is ordered: the access before the put happens before the
//! put, the put before the take that returned the object, the take before
//! the access through its value. Accesses of `O` the consumer reaches by
//! another way (a static, a field) are not through the taken value and
//! stay unordered, as do the producer's accesses after the put (and its
//! accesses of an older object of the same site, read back from a field).
//!
//! Conditions (sound-ish, for the idioms of real programs):
//! - `O` is put by exactly one put statement of the reached application
//!   code, so every take of `O` follows that put;
//! - the producer's method does not use `O` after the put (a producer
//!   that keeps working on the object has not handed it over);
//! - `O` enters queues only through the program's own put calls (a queue
//!   filled by JDK code, `addAll` or a constructor's collection, is
//!   assumed not to carry it);
//! - closed programs only: the open harness may call any method again.

use lockstep_ir::{Body, Call, Operand, Rvalue, StmtId, StmtKind, VarId};
use lockstep_models::OrderingEffect;
use lockstep_pointsto::{MethodContext, ObjectId, SiteKey};
use rustc_hash::FxHashMap;

use crate::analysis::Analysis;
use crate::threads::Root;

/// How many copies and casts are followed back to a take.
const MAX_COPIES: usize = 8;

/// Which side of a queue hand-off an access of the handed object is on:
/// the index of the one put statement of that object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Handed {
    /// In the producer, at a statement that cannot run after the put.
    BeforePut(u32),
    /// Through a value a take from the put's queue returned.
    AfterTake(u32),
}

/// Are two accesses ordered by one queue hand-off (one before the put,
/// the other through the taken value)?
pub fn handed_over(a: Option<Handed>, b: Option<Handed>) -> bool {
    matches!(
        (a, b),
        (Some(Handed::BeforePut(x)), Some(Handed::AfterTake(y)))
            | (Some(Handed::AfterTake(y)), Some(Handed::BeforePut(x))) if x == y
    )
}

/// The put of one handed object, and which of the producer's accesses of
/// it come before that put.
struct Send {
    /// The node (method context) that makes the put.
    node: u32,
    /// The queues it may put into.
    queues: Vec<ObjectId>,
    /// When the producer runs once: per statement of its method, it
    /// cannot run after the put (empty when this does not hold).
    before: Vec<bool>,
    /// When the producer makes the object itself, in the variable the put
    /// hands over: that variable, and per statement, whether it may run
    /// after the put before the next allocation (an access through the
    /// variable elsewhere touches the object the next put hands over).
    fresh: Option<(VarId, Vec<bool>)>,
}

impl Send {
    /// Is an access at `stmt` through `base` (its copy origin) before the
    /// put of the object it touches?
    fn before_put(&self, stmt: StmtId, base: Option<VarId>) -> bool {
        let at = |v: &[bool]| v.get(stmt.index()).copied();
        if at(&self.before).unwrap_or(false) {
            return true;
        }
        match (&self.fresh, base) {
            (Some((made, after)), Some(b)) => b == *made && at(after) == Some(false),
            _ => false,
        }
    }
}

/// A put statement of reached application code.
struct Put {
    node: u32,
    stmt: StmtId,
    /// The variable it puts.
    value: VarId,
    /// The objects it may put (application objects only).
    objects: Vec<ObjectId>,
    queues: Vec<ObjectId>,
}

/// The queue hand-offs of a closed program.
#[derive(Default)]
pub struct QueueHandoffs {
    sends: Vec<Send>,
    /// Per handed object: its send.
    of_object: FxHashMap<ObjectId, u32>,
    /// Per node: its callers' call sites `(caller, site)` (kept only when
    /// some object is handed, for values taken by a caller).
    callers: Vec<Vec<(u32, StmtId)>>,
    /// Per node: a root's entry (its parameters come from no taken value).
    entry: Vec<bool>,
}

impl QueueHandoffs {
    pub fn is_empty(&self) -> bool {
        self.of_object.is_empty()
    }
}

impl Analysis<'_> {
    /// The queue hand-offs of the program (none in an open program).
    pub(crate) fn queue_handoffs(&self, roots: &[Root], reach: &[Vec<u32>]) -> QueueHandoffs {
        if self.open {
            return QueueHandoffs::default();
        }
        let puts = self.queue_puts(reach);
        if puts.is_empty() {
            return QueueHandoffs::default();
        }
        let mut putters: FxHashMap<ObjectId, Vec<usize>> = FxHashMap::default();
        for (i, p) in puts.iter().enumerate() {
            for &o in &p.objects {
                putters.entry(o).or_default().push(i);
            }
        }
        let mut objects: Vec<(ObjectId, usize)> = putters
            .into_iter()
            .filter_map(|(o, ps)| match ps[..] {
                [i] => Some((o, i)),
                _ => None,
            })
            .collect();
        objects.sort_unstable();
        let counts = self.run_counts_of(roots);
        let mut out = QueueHandoffs::default();
        for (o, i) in objects {
            let runs_once = counts.get(puts[i].node as usize).is_some_and(|&c| c < 2);
            if let Some(send) = self.send_of(&puts[i], o, runs_once) {
                out.of_object.insert(o, out.sends.len() as u32);
                out.sends.push(send);
            }
        }
        if !out.is_empty() {
            out.callers = self.call_sites_into();
            out.entry = vec![false; self.graph.len()];
            for &e in roots.iter().flat_map(|r| r.entries.iter()) {
                if let Some(x) = out.entry.get_mut(e as usize) {
                    *x = true;
                }
            }
        }
        out
    }

    /// The send of `o` by its one put `p`, when some access of the
    /// producer is before it: every statement that cannot run after the
    /// put, when the producer runs once; the accesses through the variable
    /// that made `o`, when the producer makes it. Neither holds when the
    /// producer uses `o` after the put.
    fn send_of(&self, p: &Put, o: ObjectId, runs_once: bool) -> Option<Send> {
        let mc = *self.graph.nodes.get(p.node as usize)?;
        let body = self.program.body(mc.method)?;
        let mut before = Vec::new();
        if runs_once {
            let b = crate::happens_before::before(&body, p.stmt);
            let after: Vec<bool> = b.iter().map(|x| !x).collect();
            if !self.uses_after(mc, &body, p.stmt, &after, o) {
                before = b;
            }
        }
        let fresh = self
            .made_for_put(mc, &body, p, o)
            .filter(|(_, after)| !self.uses_after(mc, &body, p.stmt, after, o));
        if before.is_empty() && fresh.is_none() {
            return None;
        }
        Some(Send {
            node: p.node,
            queues: p.queues.clone(),
            before,
            fresh,
        })
    }

    /// When the put hands over a variable that a `new` making `o` in the
    /// same method defines: that variable, and the statements reachable
    /// from the put without making the next object.
    fn made_for_put(
        &self,
        mc: MethodContext,
        body: &Body,
        p: &Put,
        o: ObjectId,
    ) -> Option<(VarId, Vec<bool>)> {
        let made = copied_from(body, p.value);
        let alloc = body.unique_def.get(made.index()).copied().flatten()?;
        let is_new = matches!(
            body.stmts.get(alloc.index()).map(|s| &s.kind),
            Some(StmtKind::Assign {
                value: Rvalue::New(_),
                ..
            })
        );
        let site = self.pt.object(o)?.site.location();
        (is_new && site == Some((mc.method, alloc)))
            .then(|| (made, reach_after_avoiding(body, p.stmt, alloc)))
    }

    /// Does a statement `after` marks (other than the put) use a variable
    /// that may hold `o`?
    fn uses_after(
        &self,
        mc: MethodContext,
        body: &Body,
        put: StmtId,
        after: &[bool],
        o: ObjectId,
    ) -> bool {
        body.stmts.iter().enumerate().any(|(i, s)| {
            if !after.get(i).copied().unwrap_or(true) || i == put.index() {
                return false;
            }
            let mut uses = false;
            s.kind.for_each_use(|v| {
                uses |= self.pt.var_in(mc.method, mc.context, v).contains(o);
            });
            uses
        })
    }

    /// Every put statement of reached application code.
    fn queue_puts(&self, reach: &[Vec<u32>]) -> Vec<Put> {
        let mut out = Vec::new();
        for (n, mc) in self.graph.nodes.iter().enumerate() {
            if reach.get(n).is_none_or(Vec::is_empty)
                || !self
                    .program
                    .is_application(self.program.method(mc.method).class)
            {
                continue;
            }
            let Some(body) = self.program.body(mc.method) else {
                continue;
            };
            for (i, s) in body.stmts.iter().enumerate() {
                let StmtKind::Invoke { call, .. } = &s.kind else {
                    continue;
                };
                if self.queue_effect(call) != Some(OrderingEffect::QueuePut) {
                    continue;
                }
                let (Some(value), Some(queue)) = (
                    call.args.first().and_then(Operand::var),
                    call.receiver.as_ref().and_then(Operand::var),
                ) else {
                    continue;
                };
                out.push(Put {
                    node: n as u32,
                    stmt: StmtId(i as u32),
                    value,
                    objects: self.application_objects(*mc, value),
                    queues: self
                        .pt
                        .var_in(mc.method, mc.context, queue)
                        .iter()
                        .collect(),
                });
            }
        }
        out
    }

    /// The queue effect of a call (`QueuePut`, `QueueTake`), if any.
    fn queue_effect(&self, call: &Call) -> Option<OrderingEffect> {
        let m = &call.method;
        let subtype = |a: &str, b: &str| self.program.is_subtype_name(a, b);
        lockstep_models::ordering_effect_via(&m.class, &m.name, &m.descriptor, &subtype)
            .filter(|e| matches!(e, OrderingEffect::QueuePut | OrderingEffect::QueueTake))
    }

    /// The objects `v` may hold in `mc`, but the JDK's merged internal
    /// objects (one per type: they stand for many run-time objects).
    fn application_objects(&self, mc: MethodContext, v: VarId) -> Vec<ObjectId> {
        self.pt
            .var_in(mc.method, mc.context, v)
            .iter()
            .filter(|&o| {
                !self
                    .pt
                    .object(o)
                    .is_some_and(|i| matches!(i.site, SiteKey::Library(_)))
            })
            .collect()
    }

    /// Per node: the call sites that call it.
    fn call_sites_into(&self) -> Vec<Vec<(u32, StmtId)>> {
        let mut into: Vec<Vec<(u32, StmtId)>> = vec![Vec::new(); self.graph.len()];
        for (a, edges) in self.graph.callees.iter().enumerate() {
            for &(site, b) in edges {
                if let Some(list) = into.get_mut(b as usize) {
                    list.push((a as u32, site));
                }
            }
        }
        into
    }

    /// The side of `o`'s hand-off an access at `stmt` of `node` through
    /// `base` is on, if any.
    pub(crate) fn handed_side(
        &self,
        node: u32,
        body: &Body,
        stmt: StmtId,
        base: Option<VarId>,
        o: ObjectId,
    ) -> Option<Handed> {
        let h = &self.queue_handoffs;
        let &s = h.of_object.get(&o)?;
        let send = h.sends.get(s as usize)?;
        if node == send.node && send.before_put(stmt, base.map(|b| copied_from(body, b))) {
            return Some(Handed::BeforePut(s));
        }
        let taken = self.taken_queues(node, body, base?, 1);
        taken
            .iter()
            .any(|q| send.queues.contains(q))
            .then_some(Handed::AfterTake(s))
    }

    /// The queues whose take returned the value of `v` in `node` (through
    /// copies and casts); for a parameter, those of every caller's
    /// argument, `depth` callers up. Empty when some value of `v` may come
    /// from elsewhere.
    fn taken_queues(&self, node: u32, body: &Body, v: VarId, depth: u32) -> Vec<ObjectId> {
        let Some(mc) = self.graph.nodes.get(node as usize).copied() else {
            return Vec::new();
        };
        let v = copied_from(body, v);
        if let Some(k) = body.params.iter().position(|&p| p == v) {
            // A parameter the method reassigns holds other values too.
            let reassigned = body.stmts.iter().any(|s| s.kind.def() == Some(v));
            return if reassigned {
                Vec::new()
            } else {
                self.taken_by_callers(node, k, depth)
            };
        }
        let Some(def) = body.unique_def.get(v.index()).copied().flatten() else {
            return Vec::new();
        };
        let Some(StmtKind::Invoke { call, .. }) = body.stmts.get(def.index()).map(|s| &s.kind)
        else {
            return Vec::new();
        };
        if self.queue_effect(call) != Some(OrderingEffect::QueueTake) {
            return Vec::new();
        }
        match call.receiver.as_ref().and_then(Operand::var) {
            Some(q) => self.pt.var_in(mc.method, mc.context, q).iter().collect(),
            None => Vec::new(),
        }
    }

    /// The queues every caller of `node` took its `k`-th parameter (the
    /// receiver first) from; empty unless every caller passes a taken value.
    fn taken_by_callers(&self, node: u32, k: usize, depth: u32) -> Vec<ObjectId> {
        let h = &self.queue_handoffs;
        let callers = h
            .callers
            .get(node as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        if depth == 0 || callers.is_empty() || h.entry.get(node as usize).copied().unwrap_or(true) {
            return Vec::new();
        }
        let mut queues: Vec<ObjectId> = Vec::new();
        for &(caller, site) in callers {
            let taken = self.argument_taken(caller, site, k, depth - 1);
            if taken.is_empty() {
                return Vec::new();
            }
            queues.extend(taken);
        }
        queues.sort_unstable();
        queues.dedup();
        queues
    }

    /// The queues the `k`-th argument (the receiver first) of the call at
    /// `site` of `caller` was taken from.
    fn argument_taken(&self, caller: u32, site: StmtId, k: usize, depth: u32) -> Vec<ObjectId> {
        let Some(mc) = self.graph.nodes.get(caller as usize) else {
            return Vec::new();
        };
        let Some(body) = self.program.body(mc.method) else {
            return Vec::new();
        };
        let Some(StmtKind::Invoke { call, .. }) = body.stmts.get(site.index()).map(|s| &s.kind)
        else {
            return Vec::new();
        };
        let operands: Vec<&Operand> = call.receiver.iter().chain(call.args.iter()).collect();
        match operands.get(k).and_then(|a| a.var()) {
            Some(v) => self.taken_queues(caller, &body, v, depth),
            None => Vec::new(),
        }
    }
}

/// Per statement of `body`: reachable from just after `from` without
/// running `avoid` (a handler of a block cut short counts as reached).
fn reach_after_avoiding(body: &Body, from: StmtId, avoid: StmtId) -> Vec<bool> {
    let mut out = vec![false; body.stmts.len()];
    let Some(&start) = body.block_of.get(from.index()) else {
        return out;
    };
    let mut seen = vec![false; body.blocks.len()];
    let mut stack = vec![(start.index(), from.0.saturating_add(1))];
    while let Some((b, first)) = stack.pop() {
        let Some(block) = body.blocks.get(b) else {
            continue;
        };
        let mut stopped = false;
        for s in block.stmt_ids().filter(|s| s.0 >= first) {
            if s == avoid {
                stopped = true;
                break;
            }
            if let Some(x) = out.get_mut(s.index()) {
                *x = true;
            }
        }
        let next = if stopped {
            block
                .exceptional
                .iter()
                .map(|e| e.handler.index())
                .collect()
        } else {
            crate::util::successors(body, b)
        };
        for n in next {
            if n < seen.len() && !seen[n] {
                seen[n] = true;
                stack.push((n, 0));
            }
        }
    }
    out
}

/// The variable `v` is a copy or cast of (through at most
/// [`MAX_COPIES`] single definitions), or `v` itself.
fn copied_from(body: &Body, v: VarId) -> VarId {
    let mut v = v;
    for _ in 0..MAX_COPIES {
        let Some(def) = body.unique_def.get(v.index()).copied().flatten() else {
            break;
        };
        match body.stmts.get(def.index()).map(|s| &s.kind) {
            Some(StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _),
                ..
            }) => v = *w,
            _ => break,
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_put_and_a_take_of_one_send_are_ordered() {
        let (b, a) = (Some(Handed::BeforePut(3)), Some(Handed::AfterTake(3)));
        assert!(handed_over(b, a));
        assert!(handed_over(a, b));
        assert!(!handed_over(b, Some(Handed::AfterTake(4))));
        assert!(!handed_over(a, a));
        assert!(!handed_over(b, b));
        assert!(!handed_over(b, None));
    }
}
