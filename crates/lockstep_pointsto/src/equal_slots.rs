//! Slots of one method that always hold the same objects share one
//! pointer.
//!
//! The analysis is flow-insensitive: a slot holds the union of what every
//! statement defining it may put there. So two loads of one field from one
//! slot, each the only definition of its destination and both declared of
//! one type, give their destinations the same set, whatever the rest of
//! the program does; so does a static load of one field twice, and a copy
//! whose destination is defined by nothing else and declares no narrower
//! type than its source. Bytecode reads a field afresh at each use
//! (`nodes[LEFT]`, `nodes[RIGHT]`: two loads of `this.nodes`, then two
//! element loads of arrays that are then one slot), so a method reading
//! `this.nodes` forty times had forty pointers, each fed by every array
//! `this.nodes` may be: on hsqldb, 212 expression arrays each propagated
//! their elements to about 3,000 load destinations, 41% of the solve's
//! propagation.
//!
//! Such slots are found per template, before any context exists (a
//! union-find over the slots, repeated until no key changes: merging two
//! bases can make two loads equal), and every slot of a class is replaced
//! by its representative: in the facts, in the variables' slots (a
//! variable's points-to set is its representative's, which is exactly its
//! own), and the facts that only defined a merged slot are dropped. The
//! solution is the same; only the number of pointers and edges shrinks.
//! Parameters, `this` and the return slot are defined by calls, so they
//! are never merged into another slot (others may be merged into them).

use rustc_hash::FxHashMap;

use crate::facts::{Fact, LambdaFact, Template};
use crate::ids::{FieldId, Slot, TypeId, NO_SLOT};

/// Replaces the slots of `t` that always hold what another slot holds by
/// that slot (module docs).
pub(crate) fn share_equal_slots(t: &mut Template) {
    let defs = definitions(t);
    let mut classes = Classes::new(t.slots);
    let single = |s: Slot| defs.get(s as usize) == Some(&1);
    let ty = |s: Slot| t.slot_types.get(s as usize).copied().flatten();
    loop {
        let mut changed = false;
        let mut loads: FxHashMap<(Option<Slot>, FieldId, Option<TypeId>), Slot> =
            FxHashMap::default();
        for fact in &t.facts {
            let (dst, key) = match fact {
                Fact::Load { dst, base, field } => {
                    (*dst, (Some(classes.find(*base)), *field, ty(*dst)))
                }
                Fact::StaticLoad { dst, field } => (*dst, (None, *field, ty(*dst))),
                Fact::Copy { dst, src } => {
                    let root = classes.find(*src);
                    let widens = ty(*dst).is_none() || ty(*dst) == ty(root);
                    if single(*dst) && widens {
                        changed |= classes.union(*dst, root);
                    }
                    continue;
                }
                _ => continue,
            };
            if !single(dst) {
                continue;
            }
            match loads.get(&key) {
                Some(&first) => changed |= classes.union(dst, first),
                None => {
                    loads.insert(key, classes.find(dst));
                }
            }
        }
        if !changed {
            break;
        }
    }
    if classes.merged == 0 {
        return;
    }
    rewrite(t, &mut classes);
}

/// How many facts (and calls) define each slot; parameters, `this` and the
/// return slot count twice (callers define them).
fn definitions(t: &Template) -> Vec<u32> {
    let mut defs = vec![0u32; t.slots as usize];
    let mut def = |s: Slot, n: u32| {
        if let Some(d) = defs.get_mut(s as usize) {
            *d += n;
        }
    };
    for fact in &t.facts {
        match fact {
            Fact::New { dst, .. }
            | Fact::Const { dst, .. }
            | Fact::Copy { dst, .. }
            | Fact::Filter { dst, .. }
            | Fact::Load { dst, .. }
            | Fact::StaticLoad { dst, .. }
            | Fact::Catch { dst, .. } => def(*dst, 1),
            Fact::Store { .. }
            | Fact::StaticStore { .. }
            | Fact::Init(_)
            | Fact::Call(_)
            | Fact::Lambda(_)
            | Fact::Throw { .. } => {}
        }
    }
    for c in &t.calls {
        if let Some(r) = c.result {
            def(r, 1);
        }
    }
    for l in &t.lambdas {
        if let Some(d) = l.dst {
            def(d, 1);
        }
    }
    for s in t
        .this_slot
        .iter()
        .chain(t.params.iter().flatten())
        .chain(t.ret.iter())
    {
        def(*s, 2);
    }
    defs
}

/// A union-find over the slots of one template.
struct Classes {
    parent: Vec<Slot>,
    merged: usize,
}

impl Classes {
    fn new(slots: u32) -> Classes {
        Classes {
            parent: (0..slots).collect(),
            merged: 0,
        }
    }

    fn find(&mut self, s: Slot) -> Slot {
        let Some(&p) = self.parent.get(s as usize) else {
            return s;
        };
        if p == s {
            return s;
        }
        let root = self.find(p);
        self.parent[s as usize] = root;
        root
    }

    /// Merges the class of `merged` into that of `into`; `false` if they
    /// were one already.
    fn union(&mut self, merged: Slot, into: Slot) -> bool {
        let (a, b) = (self.find(merged), self.find(into));
        if a == b || a as usize >= self.parent.len() {
            return false;
        }
        self.parent[a as usize] = b;
        self.merged += 1;
        true
    }
}

/// Every slot of `t` replaced by its class's representative; the facts
/// that defined a merged slot dropped (its representative has its own).
fn rewrite(t: &mut Template, classes: &mut Classes) {
    let mut find = |s: Slot| classes.find(s);
    let mut facts = Vec::with_capacity(t.facts.len());
    for fact in t.facts.drain(..) {
        let kept = match fact {
            Fact::Load { dst, base, field } => (find(dst) == dst).then(|| Fact::Load {
                dst,
                base: find(base),
                field,
            }),
            Fact::StaticLoad { dst, field } => {
                (find(dst) == dst).then_some(Fact::StaticLoad { dst, field })
            }
            Fact::Copy { dst, src } => {
                let (dst, src) = (find(dst), find(src));
                (dst != src).then_some(Fact::Copy { dst, src })
            }
            Fact::New { dst, site } => Some(Fact::New {
                dst: find(dst),
                site,
            }),
            Fact::Const { dst, site } => Some(Fact::Const {
                dst: find(dst),
                site,
            }),
            Fact::Filter { dst, src, types } => Some(Fact::Filter {
                dst: find(dst),
                src: find(src),
                types,
            }),
            Fact::Store { base, field, src } => Some(Fact::Store {
                base: find(base),
                field,
                src: find(src),
            }),
            Fact::StaticStore { field, src } => Some(Fact::StaticStore {
                field,
                src: find(src),
            }),
            Fact::Throw { src } => Some(Fact::Throw { src: find(src) }),
            Fact::Catch { dst, types } => Some(Fact::Catch {
                dst: find(dst),
                types,
            }),
            f @ (Fact::Init(_) | Fact::Call(_) | Fact::Lambda(_)) => Some(f),
        };
        facts.extend(kept);
    }
    t.facts = facts;
    for c in &mut t.calls {
        c.recv = c.recv.map(&mut find);
        c.result = c.result.map(&mut find);
        for a in c.args.iter_mut() {
            *a = a.map(&mut find);
        }
        for l in c.launches.iter_mut() {
            l.task = find(l.task);
        }
    }
    for l in t.lambdas.iter_mut() {
        let mut copy: LambdaFact = (**l).clone();
        copy.dst = copy.dst.map(&mut find);
        for c in copy.captures.iter_mut() {
            *c = c.map(&mut find);
        }
        *l = std::sync::Arc::new(copy);
    }
    let var_slot: Vec<Slot> = t
        .var_slot
        .iter()
        .map(|&s| if s == NO_SLOT { s } else { find(s) })
        .collect();
    t.var_slot = var_slot.into();
}
