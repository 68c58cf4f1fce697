//! Lock identity of a witness's acquisitions: can the acquisition at the
//! end of a call path lock the object the witness names?
//!
//! A witness names its lock as an expression of the method holding the
//! context (`this.session`, a parameter); each acquisition is a
//! `synchronized` block or method somewhere down a call path, reached by
//! translating the callee's lock through each call. The call graph is
//! one for all contexts, so a path may pass a call whose target only
//! other callers' objects reach (a helper's `o.toString()` dispatching to
//! a synchronized `toString` of a class this caller never passes). The
//! acquisition then locks objects the witness's expression cannot hold:
//! its points-to set at the acquisition and the expression's in the
//! witness's method are disjoint, and the acquisition is not of that lock.
//!
//! Not used: the owners of `lockstep_facts::lock_identity` (a lock only
//! its owner's constructor assigns is one per owner). Merged over the
//! acquiring method's contexts, as a call path needs, they tell two locks
//! apart only where the lock objects themselves are merged (the owners'
//! constructor past the points-to context bound) and the owners are not;
//! no fixture or studied finding has that shape, and checking them as
//! well changed no finding on the six studied jars, so it is left out.
//!
//! Static fields and class literals name one object wherever they are
//! read and are never told apart; an empty or unknown points-to set rules
//! nothing out, except where the expression reads a field that no object
//! its prefix may point to has (`mbr.members` where `mbr` holds only
//! `Address`es): that expression locks nothing.
//!
//! A call path is also checked against the context call graph
//! ([`LockIdentity::may_run_together`]). The analysis summarises each
//! method once for all its contexts, so a library method's summary
//! (`HashMap.getNode` "locks `key.members`") holds the locks of callbacks
//! that only some copies of it make: the JDK's empty context, the
//! over-budget copy shared by every caller past the bound, a map whose
//! keys are views. Translated onto a caller's argument of an interface
//! type (jgroups' `Address`), the declared-type check keeps them, and the
//! witness's expression (`mbr.members`) has an empty points-to set that
//! rules nothing out. A path is kept only when some context of the method
//! holding the context lock reaches the acquisition along it, edge by
//! edge in the points-to analysis's context call graph, and both paths of
//! a witness from one such context.

use lockstep_ir::{AccessPath, MonitorRegion, StmtId};
use lockstep_pointsto::{ContextCallEdge, MethodContext, ObjectId, ObjectSet, PointsToResult};
use lockstep_program::{EdgeKind, MethodId, Program};
use rustc_hash::FxHashMap;

use super::analysis::{Chain, Hop};

/// What a lock expression's prefix may point to.
enum Resolved {
    /// A non-empty set of objects.
    Known(ObjectSet),
    /// No object has a field the expression reads: it locks nothing.
    Impossible,
    /// Empty or not evaluable: proves nothing.
    Unknown,
}

/// Answers [`LockIdentity::may_lock`], caching points-to sets.
pub struct LockIdentity<'a> {
    program: &'a Program,
    pt: &'a PointsToResult,
    /// What an expression of a method may point to (all contexts).
    named: FxHashMap<(MethodId, AccessPath), Option<ObjectSet>>,
    /// What an acquisition may lock (all contexts; `None`: unknown or
    /// nothing).
    taken: FxHashMap<Hop<MethodId>, Option<ObjectSet>>,
    /// Per call path: the contexts of its first method from which the
    /// context call graph follows it to the end (`None`: not checkable).
    starts: FxHashMap<Vec<Hop<MethodId>>, Option<Vec<MethodContext>>>,
}

impl<'a> LockIdentity<'a> {
    pub fn new(program: &'a Program, pt: &'a PointsToResult) -> Self {
        LockIdentity {
            program,
            pt,
            named: FxHashMap::default(),
            taken: FxHashMap::default(),
            starts: FxHashMap::default(),
        }
    }

    /// Can both acquisition paths of a witness run from one context of
    /// the method they start in? False only when the context call graph
    /// proves that no context follows both to their end.
    pub fn may_run_together(&mut self, first: &Chain<MethodId>, second: &Chain<MethodId>) -> bool {
        let same_start = first.first().map(|h| h.method) == second.first().map(|h| h.method);
        let (Some(a), Some(b)) = (self.starts(first), self.starts(second)) else {
            return true;
        };
        if a.is_empty() || b.is_empty() {
            return false;
        }
        // Both sorted: one common context is enough.
        !same_start || lockstep_facts::util::sorted_slices_meet(&a, &b)
    }

    /// The contexts of `chain`'s first method from which every call of
    /// the chain has an edge in the context call graph (memoised). Every
    /// suffix of the chain is memoised too: the paths of a method's
    /// witnesses share the calls down to their acquisitions, so most of
    /// a new chain's walk was done for another one.
    fn starts(&mut self, chain: &[Hop<MethodId>]) -> Option<Vec<MethodContext>> {
        let last = chain.len().checked_sub(1)?;
        // The longest suffix already known, or the last hop alone.
        let known_at = (0..chain.len()).find(|&i| self.starts.contains_key(&chain[i..]));
        let (mut i, mut reached) = match known_at {
            Some(i) => (i, self.starts.get(&chain[i..]).cloned().flatten()),
            None => {
                let own = Some(contexts(self.pt, chain[last].method));
                self.starts.insert(chain[last..].to_vec(), own.clone());
                (last, own)
            }
        };
        while i > 0 {
            i -= 1;
            reached = step_back(self.pt, &chain[i..], reached);
            self.starts.insert(chain[i..].to_vec(), reached.clone());
        }
        reached
    }

    /// May the acquisition at the end of `chain` lock an object that
    /// `lock`, as method `m` names it, may be? False only when the facts
    /// prove the two disjoint.
    pub fn may_lock(&mut self, m: MethodId, lock: &AccessPath, chain: &Chain<MethodId>) -> bool {
        let Some(&deep) = chain.last() else {
            return true;
        };
        if chain.len() == 1 || matches!(lock, AccessPath::Static(..) | AccessPath::ClassLiteral(_))
        {
            // Taken in `m` itself under this very name, or one object anyway.
            return true;
        }
        let Some(named) = self.named(m, lock) else {
            // Nothing known, unless no object the path starts from has
            // the field it reads: then no object is locked at all.
            return !self.no_such_field(m, lock);
        };
        self.taken(deep)
            .is_none_or(|taken| taken.intersects(&named))
    }

    /// Does `path` read, somewhere along it, a field that no object its
    /// prefix may point to has? (jgroups' `mbr.members`: `mbr` holds
    /// only `Address`es, the summary's `members` is a view's field.)
    /// A prefix with an empty or unknown points-to set proves nothing.
    fn no_such_field(&self, m: MethodId, path: &AccessPath) -> bool {
        matches!(self.resolve(m, path), Resolved::Impossible)
    }

    fn resolve(&self, m: MethodId, path: &AccessPath) -> Resolved {
        let (program, pt) = (self.program, self.pt);
        let known = |p: &AccessPath| match pt.path(program, m, None, p) {
            Some(set) if !set.is_empty() => Resolved::Known(set),
            _ => Resolved::Unknown,
        };
        match path {
            AccessPath::This | AccessPath::Param(..) | AccessPath::Local(..) => known(path),
            AccessPath::Field(base, name) => match self.resolve(m, base) {
                Resolved::Known(objects) => {
                    if objects.iter().all(|o| self.lacks_field(o, name)) {
                        Resolved::Impossible
                    } else {
                        known(path)
                    }
                }
                other => other,
            },
            _ => Resolved::Unknown,
        }
    }

    /// Object `o`'s class and every superclass are loaded and none
    /// declares a field `name` (instance fields live in classes only).
    fn lacks_field(&self, o: ObjectId, name: &str) -> bool {
        let program = self.program;
        let Some(class) = self
            .pt
            .object(o)
            .and_then(|info| program.class_by_name(info.type_name))
        else {
            return false;
        };
        let chain = program.superclasses(class);
        let complete = chain
            .last()
            .is_some_and(|&c| &*program.class(c).name == "java/lang/Object");
        complete
            && !chain.iter().any(|&c| {
                program
                    .class(c)
                    .file
                    .fields
                    .iter()
                    .any(|f| &*f.name == name)
            })
    }

    /// The non-empty points-to set of `lock` in `m` (all contexts).
    fn named(&mut self, m: MethodId, lock: &AccessPath) -> Option<ObjectSet> {
        let (program, pt) = (self.program, self.pt);
        self.named
            .entry((m, lock.clone()))
            .or_insert_with(|| {
                pt.path(program, m, None, lock)
                    .filter(|set| !set.is_empty())
            })
            .clone()
    }

    /// What the acquisition `hop` (a `synchronized` block, or a method's
    /// own `synchronized` entry) may lock, when known and not empty.
    fn taken(&mut self, hop: Hop<MethodId>) -> Option<&ObjectSet> {
        if !self.taken.contains_key(&hop) {
            let taken = self.compute_taken(hop);
            self.taken.insert(hop, taken);
        }
        self.taken.get(&hop).and_then(Option::as_ref)
    }

    fn compute_taken(&self, hop: Hop<MethodId>) -> Option<ObjectSet> {
        let body = self.program.body(hop.method)?;
        let region: &MonitorRegion = body.monitors.iter().find(|r| r.enter == hop.stmt)?;
        let var = match region.lock_var {
            Some(v) => v,
            None if !body.is_static => *body.params.first()?,
            None => return None,
        };
        let objects = self.pt.var(hop.method, var);
        (!objects.is_empty()).then_some(objects)
    }
}

/// One step of the walk of `chain` backwards through the context call
/// graph: `reached` are the kept contexts of `chain[1..]` (its starts),
/// and the result those of `chain`. A context of the first hop's method is
/// kept when its call at the hop's statement reaches a kept context of
/// the next method, or when that call has no edge at all in it (its
/// receiver's points-to set is empty there: objects the analysis does not
/// see, such as log4j's appenders that a configuration file attaches by
/// reflection; as elsewhere, nothing known rules nothing out). `None`
/// when a hop names no call statement (not a path the analysis builds);
/// once no context is kept below the last call, none is above it.
fn step_back(
    pt: &PointsToResult,
    chain: &[Hop<MethodId>],
    reached: Option<Vec<MethodContext>>,
) -> Option<Vec<MethodContext>> {
    let reached = reached?;
    if reached.is_empty() && chain.len() > 2 {
        return Some(reached);
    }
    let (first, next) = (chain.first()?, chain.get(1)?);
    let (caller, site, callee) = (first.method, first.stmt?, next.method);
    Some(
        contexts(pt, caller)
            .into_iter()
            .filter(|&mc| {
                let edges = edges_at(pt, mc, site);
                edges.is_empty()
                    || edges.iter().any(|e| {
                        // A thread start runs its task outside the caller's locks.
                        e.kind != EdgeKind::TaskLaunch
                            && e.callee.method == callee
                            && reached.binary_search(&e.callee).is_ok()
                    })
            })
            .collect(),
    )
}

/// The edges of context `mc` at call statement `site` (the context's
/// edges are sorted by site).
fn edges_at(pt: &PointsToResult, mc: MethodContext, site: StmtId) -> &[ContextCallEdge] {
    let all = pt.context_callees(mc);
    let lo = all.partition_point(|e| e.site < site);
    let hi = all.partition_point(|e| e.site <= site);
    all.get(lo..hi).unwrap_or_default()
}

/// Every context of `m`, sorted.
fn contexts(pt: &PointsToResult, m: MethodId) -> Vec<MethodContext> {
    let mut v: Vec<MethodContext> = pt
        .contexts_of(m)
        .into_iter()
        .map(|context| MethodContext { method: m, context })
        .collect();
    v.sort_unstable();
    v
}
