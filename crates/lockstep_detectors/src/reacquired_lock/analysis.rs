//! The analysis of paper 000 §4: LOCKSHELD (§4.3), the flow-sensitive
//! ⟨R, T, P⟩ dataflow of §4.2 with the call transfer of Fig. 6(b), and the
//! FINAL_T/FINAL_P propagation over the expanded call graph (§4.4, Fig. 8).
//! Pairs of locks (§4.6, Figs. 9–10) are tracked when asked for; the original
//! pattern is the pair ⟨x, x⟩.
//!
//! Generic over the program through [`LockProgram`], so it knows nothing of
//! class loading or call-graph construction.
//!
//! Two deliberate departures from the letter of the paper, both in the
//! direction the paper intends:
//! - a witness is reported when its synchronized block *ends* (with every
//!   enclosing lock of that point excluded for reentrancy), not only when it
//!   reaches the method exit, so blocks inside loops that never exit (thread
//!   run loops) are still checked;
//! - an assignment unmarks dependent locks in every enclosing block's
//!   released set, not only the innermost, since the variable changed for
//!   all of them.

use std::collections::{BTreeMap, BTreeSet};

// Keys are small ids and access paths hashed millions of times: a fast
// non-keyed hash (no untrusted-input DoS concern in a batch analysis).
use rustc_hash::FxHashMap as HashMap;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

use lockstep_ir::{
    AccessPath, Body, ConstValue, MonitorId, Operand, StmtId, StmtKind, VarId, VarOrigin,
};

use super::lock_table::{LockId, LockTable};
use super::locks::{bounded, depends, translate, Assigned, STAR};
use super::small_map::SortedMap;

/// What the analysis needs from the program.
pub trait LockProgram: Sync {
    // `M` crosses threads: methods are analysed in parallel.
    type M: Copy + Ord + Hash + Debug + Send + Sync;
    fn body(&self, m: Self::M) -> Option<Arc<Body>>;
    /// The methods a call statement may invoke (sorted, deduplicated).
    fn callees(&self, m: Self::M, site: StmtId) -> Vec<Self::M>;
    /// The call sites that may invoke `m` (sorted, deduplicated): the
    /// inverse of [`LockProgram::callees`].
    fn callers(&self, m: Self::M) -> Vec<(Self::M, StmtId)>;
    /// The access path of a variable, as the source reads it.
    fn access_path(&self, body: &Body, var: VarId) -> AccessPath;
    /// Library code (the JDK, `-cp`): summarised by the locks it takes on
    /// its receiver and arguments only, and not searched for witnesses.
    fn is_library(&self, m: Self::M) -> bool;
    /// The class declaring `m` (the class of its `this`).
    fn declaring_class(&self, m: Self::M) -> Arc<str>;
    /// What an object known to be a `known` that is also statically a
    /// `declared` can be: the more specific of the two, or `None` when no
    /// object is both (two unrelated classes). Unknown classes, arrays and
    /// interfaces never rule anything out.
    fn meet(&self, known: &Arc<str>, declared: &Arc<str>) -> Option<Arc<str>>;
    /// Do two lock expressions of `m` that read differently denote one
    /// object (must-alias)? Taking `taken` while holding `held` is then a
    /// re-entry of the held lock, not an acquisition. Default: only equal
    /// expressions are one lock.
    fn same_lock(&self, _m: Self::M, _held: &AccessPath, _taken: &AccessPath) -> bool {
        false
    }
}

/// At most this many locks are kept in one method's LOCKSHELD summary (its
/// own acquisitions first, then in worklist order). Without a bound, code
/// that reaches much of a large program (a `main`, a dispatcher) collects
/// every lock expression expressible in its terms, which costs quadratic
/// time and memory; with it, a lock acquired only far down a long chain of
/// calls may be missed at the top. Deterministic: the order is fixed.
pub const MAX_LOCKS_PER_METHOD: usize = 32;

/// The pair variant keeps at most this many (first, second) lock pairs
/// per open block. A block that calls many methods, each releasing
/// several locks, forms |R| × |L| pairs at every call: without a bound a
/// large program (jgroups) ran for more than 25 CPU-minutes in 9 GB.
/// Findings are one per second-acquisition site anyway, so a bounded
/// block loses a finding only when all of a site's pairs are dropped.
/// Same-lock pairs (`reacquired-lock`) are always kept. Deterministic:
/// pairs are added in a fixed order. Counted in the rule's statistics.
pub const MAX_PAIRS_PER_BLOCK: usize = 1024;

/// At most this many library methods may lie between an application
/// method and an application callback whose lock it sees (`put` ->
/// `putVal` -> `hash` -> a key's synchronized `hashCode` is three). The
/// class-hierarchy call graph sends every `Object.equals`/`hashCode`/
/// `toString` in the JDK to every live application override, so without a
/// bound one synchronized `equals` reaches most of the JDK and, from there,
/// almost every call the application makes; deeper callbacks are rare and
/// mostly such artefacts. Applies unless library witnesses are requested.
pub const MAX_LIBRARY_HOPS: usize = 3;

/// Whether a lock of a library method is worth carrying to its callers:
/// only locks on what the caller passes in (receiver, arguments, and short
/// paths from them). Library-internal global locks (static fields, class
/// literals) would otherwise flow into every method of the program.
fn library_keeps(lock: &AccessPath) -> bool {
    fn rooted(p: &AccessPath) -> bool {
        match p {
            AccessPath::This | AccessPath::Param(..) => true,
            AccessPath::Field(b, _) | AccessPath::OuterThis(b, _) => rooted(b),
            AccessPath::Element(b, _) => rooted(b),
            _ => false,
        }
    }
    rooted(lock) && super::locks::size(lock) <= 2
}

/// One step of a path to a lock acquisition: a statement of a method
/// (`None`: the method's own `synchronized` entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hop<M> {
    pub method: M,
    pub stmt: Option<StmtId>,
}

/// The path from a method down to where a lock is actually acquired.
pub type Chain<M> = Arc<Vec<Hop<M>>>;

/// A potential witness: lock `a` acquired and released, then lock `b`
/// (the same lock, for the original pattern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairEntry<M> {
    pub first: Chain<M>,
    pub second: Chain<M>,
    /// The statement where the second acquisition was seen following the
    /// first (warnings are deduplicated on it, §4.5).
    pub formed_at: Hop<M>,
}

/// A lock a method may acquire: how it gets there, and the class the
/// lock's root object (its `this` or parameter) is known to have, so a
/// caller can drop it when the argument it passes cannot be one.
#[derive(Debug, Clone)]
pub struct HeldLock {
    /// The path, in [`Analysis`]'s shared paths of LOCKSHELD.
    chain: PathId,
    pub class: Option<Arc<str>>,
}

/// LOCKSHELD of one method: its locks in the order of their paths (which
/// provenance a caller keeps depends on it), each with how it is acquired.
type LockSet = Vec<(LockId, HeldLock)>;
type Pair = (AccessPath, AccessPath);
type PairSet<M> = BTreeMap<Pair, PairEntry<M>>;

/// An instance of the pattern: while `context` is held in `method`, `pair`
/// is acquired and released in sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness<M> {
    pub method: M,
    pub context: MonitorId,
    pub pair: Pair,
    pub entry: PairEntry<M>,
}

/// Settings of one run.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Track pairs of different locks (the variant of §2.3), not only ⟨x, x⟩.
    pub pairs: bool,
    /// Carry acquisitions made by library code for other library code
    /// (`HashMap.get` taking a lock inside the JDK) up the call graph. Off
    /// when such witnesses will be filtered anyway (§5.2): the library then
    /// passes on only its own acquisitions (to application callers) and
    /// those of application callbacks, which saves most of the work.
    pub library_internal_locks: bool,
    /// Once it has run out, methods not yet started are skipped and the
    /// pair search of methods under way stops adding pairs of two locks.
    pub budget: crate::Budget,
}

/// A call site of a method, with its receiver and arguments as locks of the caller.
struct CallSite<M> {
    stmt: StmtId,
    receiver: Option<AccessPath>,
    args: Vec<AccessPath>,
    /// The static class of the receiver and of each argument, when a reference.
    receiver_class: Option<Arc<str>>,
    arg_classes: Vec<Option<Arc<str>>>,
    /// The class of the caller's own `this` and of each of its parameters:
    /// what a translated lock rooted there is known to be.
    caller_this_class: Option<Arc<str>>,
    caller_param_classes: Vec<Option<Arc<str>>>,
    callees: Vec<M>,
}

fn operand_class(body: &Body, op: &Operand) -> Option<Arc<str>> {
    match op {
        Operand::Var(v) => var_class(body, *v),
        _ => None,
    }
}

fn var_class(body: &Body, v: VarId) -> Option<Arc<str>> {
    match &body.vars.get(v.index())?.ty {
        lockstep_ir::Type::Ref(Some(c)) => Some(c.clone()),
        _ => None,
    }
}

/// The `this` or parameter a lock is rooted at (`this.a.b` -> `this`).
fn lock_root(lock: &AccessPath) -> Option<&AccessPath> {
    match lock {
        AccessPath::This | AccessPath::Param(..) => Some(lock),
        AccessPath::Field(base, _) | AccessPath::OuterThis(base, _) => lock_root(base),
        AccessPath::Element(base, _) => lock_root(base),
        _ => None,
    }
}

/// The class the root object of `lock` (its `this` or parameter) is known
/// to have in method `m`: the declaring class for `this`, the declared type
/// of a parameter.
fn root_class<P: LockProgram>(
    prog: &P,
    m: P::M,
    body: &Body,
    lock: &AccessPath,
) -> Option<Arc<str>> {
    match lock_root(lock)? {
        AccessPath::This => Some(prog.declaring_class(m)),
        AccessPath::Param(i, _) => {
            let pos = *i as usize + usize::from(!body.is_static);
            var_class(body, *body.params.get(pos)?)
        }
        _ => None,
    }
}

/// Type check of TRANSLATELOCK: the caller's receiver or argument that
/// replaces the root of a callee's lock must be able to hold an object of
/// the root's known class (`Err(())` otherwise: `SingletonSet.hashCode`
/// locking `this.element`, reached through `Object.hashCode`, locks nothing
/// of a `String` argument). On success, the class the translated lock's
/// root is known to have: the meet when the replacement is itself a bare
/// `this` or parameter of the caller, else what the caller knows of the
/// root of the replacement (`this.f` roots at the caller's `this`).
fn translated_class<P: LockProgram>(
    prog: &P,
    lock: &AccessPath,
    known: Option<&Arc<str>>,
    site: &CallSite<P::M>,
) -> Result<Option<Arc<str>>, ()> {
    let (replacement, declared) = match lock_root(lock) {
        Some(AccessPath::This) => (site.receiver.as_ref(), site.receiver_class.as_ref()),
        Some(AccessPath::Param(i, _)) => (
            site.args.get(*i as usize),
            site.arg_classes.get(*i as usize).and_then(|c| c.as_ref()),
        ),
        _ => return Ok(None),
    };
    let class = match (known, declared) {
        (Some(k), Some(d)) => Some(prog.meet(k, d).ok_or(())?),
        (Some(k), None) => Some(k.clone()),
        (None, d) => d.cloned(),
    };
    Ok(match replacement {
        Some(AccessPath::This | AccessPath::Param(..)) => class,
        Some(other) => match lock_root(other) {
            Some(AccessPath::This) => site.caller_this_class.clone(),
            Some(AccessPath::Param(i, _)) => site
                .caller_param_classes
                .get(*i as usize)
                .cloned()
                .flatten(),
            _ => None,
        },
        None => None,
    })
}

fn operand_path<P: LockProgram>(prog: &P, body: &Body, op: &Operand) -> AccessPath {
    match op {
        Operand::Var(v) => prog.access_path(body, *v),
        Operand::Const(ConstValue::Int(i)) => AccessPath::IntConst(*i),
        Operand::Const(ConstValue::Class(c)) => AccessPath::ClassLiteral(c.clone()),
        Operand::Const(_) => STAR,
    }
}

fn call_site<P: LockProgram>(
    prog: &P,
    m: P::M,
    body: &Body,
    stmt: StmtId,
) -> Option<CallSite<P::M>> {
    let StmtKind::Invoke { call, .. } = &body.stmts.get(stmt.index())?.kind else {
        return None;
    };
    let callees = prog.callees(m, stmt);
    if callees.is_empty() {
        return None;
    }
    let first_param = usize::from(!body.is_static);
    Some(CallSite {
        stmt,
        caller_this_class: (!body.is_static).then(|| prog.declaring_class(m)),
        caller_param_classes: body
            .params
            .iter()
            .skip(first_param)
            .map(|v| var_class(body, *v))
            .collect(),
        receiver_class: call.receiver.as_ref().and_then(|r| operand_class(body, r)),
        arg_classes: call.args.iter().map(|a| operand_class(body, a)).collect(),
        receiver: call.receiver.as_ref().map(|r| operand_path(prog, body, r)),
        args: call
            .args
            .iter()
            .map(|a| operand_path(prog, body, a))
            .collect(),
        callees,
    })
}

type SiteCache<M> = HashMap<(M, StmtId), Arc<CallSite<M>>>;

/// Which acquisitions of a method its LOCKSHELD summary takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exits {
    /// Every acquisition, whatever the method does afterwards.
    Any,
    /// Only those from which the method can still return normally.
    Normal,
}

/// The blocks of a body from which a `return` can be reached, along
/// normal and exceptional edges (a caught exception may still return).
fn returning_blocks(body: &Body) -> Vec<bool> {
    let mut reach = vec![false; body.blocks.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, block) in body.blocks.iter().enumerate() {
        let last = block.end.0.checked_sub(1).map(|s| StmtId(s).index());
        let returns = last
            .filter(|&s| s >= block.first.index())
            .and_then(|s| body.stmts.get(s))
            .is_some_and(|stmt| matches!(stmt.kind, StmtKind::Return(_)));
        if returns {
            reach[i] = true;
            stack.push(i);
        }
    }
    while let Some(b) = stack.pop() {
        let Some(block) = body.blocks.get(b) else {
            continue;
        };
        for p in &block.preds {
            if let Some(slot) = reach.get_mut(p.index()) {
                if !*slot {
                    *slot = true;
                    stack.push(p.index());
                }
            }
        }
    }
    reach
}

/// [`returning_blocks`] of each method asked about, computed once.
struct ReturnCache<M> {
    blocks: HashMap<M, Vec<bool>>,
}

impl<M> Default for ReturnCache<M> {
    fn default() -> Self {
        ReturnCache {
            blocks: HashMap::default(),
        }
    }
}

impl<M: Copy + Eq + Hash> ReturnCache<M> {
    /// Can `m` still return normally once statement `at` has run?
    fn can_return(&mut self, m: M, body: &Body, at: StmtId) -> bool {
        let reach = self
            .blocks
            .entry(m)
            .or_insert_with(|| returning_blocks(body));
        body.block_of
            .get(at.index())
            .and_then(|b| reach.get(b.index()))
            .copied()
            .unwrap_or(true)
    }
}

/// The whole analysis over a set of methods (those reachable, sorted).
///
/// Demand-driven: most reachable methods (JDK code above all) never take a
/// lock that matters to their callers, so call sites are decoded only for
/// callers of methods whose LOCKSHELD grew, and bodies are fetched only for
/// methods that can take part in a pattern.
pub struct Analysis<'p, P: LockProgram> {
    prog: &'p P,
    settings: Settings,
    methods: Vec<P::M>,
    /// Decoded call sites, keyed by (caller, statement); filled on demand.
    sites: SiteCache<P::M>,
    /// LOCKSHELD(m): locks m or its callees may acquire, each with a path to
    /// an acquisition. Methods that acquire nothing have no entry.
    held: HashMap<P::M, LockSet>,
    /// The part of LOCKSHELD(m) acquired on a path that returns normally:
    /// what a caller has released when the call returns. An acquisition on
    /// a path that can only end in a throw (hsqldb builds every exception
    /// message under a lock: `throw Error.error(...)`) is followed by none
    /// of the caller's later acquisitions, unless the caller catches it.
    returning: HashMap<P::M, LockSet>,
    /// Every lock expression of the summaries, interned.
    locks: LockTable,
    /// The paths of the summaries' acquisitions: a lock a caller takes
    /// from a callee adds one hop in front of the callee's path.
    held_paths: PathArena<P::M>,
    /// TRANSLATELOCK of a callee lock at a call site (caller, statement),
    /// interned; `None` for `*`. Filled by the fixpoints, read by the
    /// per-method analysis.
    translations: Translations<P::M>,
    /// The callers of each method the fixpoints propagated from, asked of
    /// the program once (a method is popped again each time its set grows,
    /// and both fixpoints walk the same edges).
    callers: HashMap<P::M, Callers<P::M>>,
}

/// The callers of a method: (caller, call statement), sorted.
type Callers<M> = Arc<[(M, StmtId)]>;

/// The translations of each call site (caller, statement), in a small
/// map per site: a site translates its callees' locks together, so one
/// look-up of the site then finds each lock in a map that stays in cache
/// (one map keyed by site and lock missed the cache at every look-up).
type Translations<M> = HashMap<(M, StmtId), SiteTranslations>;
/// TRANSLATELOCK at one call site: a callee lock to its lock in the caller.
type SiteTranslations = HashMap<LockId, Option<LockId>>;

/// TRANSLATELOCK of the callee lock `lock` at `site`, interned and
/// memoised in the site's map (`None`: the lock is `*` in the caller).
fn translate_id<M>(
    memo: &mut SiteTranslations,
    table: &mut LockTable,
    site: &CallSite<M>,
    lock: LockId,
) -> Option<LockId> {
    if let Some(&t) = memo.get(&lock) {
        return t;
    }
    let path = translate(table.path(lock), site.receiver.as_ref(), &site.args);
    let t = (path != STAR).then(|| table.intern(path));
    memo.insert(lock, t);
    t
}

/// The entry of `lock` in a LOCKSHELD set.
fn lock_in(set: &LockSet, lock: LockId) -> Option<&HeldLock> {
    set.iter().find(|(l, _)| *l == lock).map(|(_, h)| h)
}

/// Add `lock` to a LOCKSHELD set unless it is there (the first
/// provenance stays), in path order; true if added.
fn insert_in_path_order(
    set: &mut LockSet,
    table: &LockTable,
    lock: LockId,
    held: HeldLock,
) -> bool {
    if lock_in(set, lock).is_some() {
        return false;
    }
    let at = set.partition_point(|(l, _)| table.path_order(*l, lock) == std::cmp::Ordering::Less);
    set.insert(at, (lock, held));
    true
}

impl<'p, P: LockProgram> Analysis<'p, P> {
    pub fn new(prog: &'p P, methods: &[P::M], settings: Settings) -> Self {
        let mut a = Analysis {
            prog,
            settings,
            methods: methods.to_vec(),
            sites: HashMap::default(),
            held: HashMap::default(),
            returning: HashMap::default(),
            locks: LockTable::default(),
            held_paths: PathArena::default(),
            translations: HashMap::default(),
            callers: HashMap::default(),
        };
        a.held = a.locks_held_fixpoint(Exits::Any);
        a.returning = a.locks_held_fixpoint(Exits::Normal);
        a.complete_translations();
        // The table is complete for the per-method analysis: rank it once.
        a.locks.rank_paths();
        a
    }

    /// The callers of `c` ([`LockProgram::callers`]), asked once.
    fn callers_of(&mut self, c: P::M) -> Callers<P::M> {
        let prog = self.prog;
        self.callers
            .entry(c)
            .or_insert_with(|| prog.callers(c).into())
            .clone()
    }

    /// The call site at `(m, stmt)`, decoded once.
    fn site(&mut self, m: P::M, stmt: StmtId) -> Option<Arc<CallSite<P::M>>> {
        if let Some(s) = self.sites.get(&(m, stmt)) {
            return Some(s.clone());
        }
        let body = self.prog.body(m)?;
        let site = Arc::new(call_site(self.prog, m, &body, stmt)?);
        self.sites.insert((m, stmt), site.clone());
        Some(site)
    }

    /// The call site at `(m, stmt)`: from the cache, or decoded afresh.
    fn site_ref(&self, m: P::M, stmt: StmtId) -> Option<Arc<CallSite<P::M>>> {
        if let Some(s) = self.sites.get(&(m, stmt)) {
            return Some(s.clone());
        }
        let body = self.prog.body(m)?;
        call_site(self.prog, m, &body, stmt).map(Arc::new)
    }

    /// LOCKSHELD as the least fixed point of Fig. 7, by difference
    /// propagation: when a method's set grows, only the new locks are
    /// translated into its callers, so each (lock, call edge) pair is
    /// translated once (and the translation kept for the per-method
    /// analysis). The worklist is ordered by method id, which fixes
    /// which provenance chain wins. With [`Exits::Normal`], only
    /// acquisitions (own blocks and calls) on a path to a `return` count.
    fn locks_held_fixpoint(&mut self, exits: Exits) -> HashMap<P::M, LockSet> {
        let mut held: HashMap<P::M, LockSet> = HashMap::default();
        let mut returns = ReturnCache::default();
        let mut delta: HashMap<P::M, Vec<LockId>> = HashMap::default();
        let mut queue: BTreeSet<P::M> = BTreeSet::new();
        for &m in &self.methods {
            let Some(body) = self.prog.body(m) else {
                continue;
            };
            if body.monitors.is_empty() {
                continue;
            }
            let library = self.prog.is_library(m);
            let mut own = LockSet::new();
            for region in &body.monitors {
                let at = region.enter.unwrap_or(StmtId(0));
                if exits == Exits::Normal && !returns.can_return(m, &body, at) {
                    continue;
                }
                let lock = bounded(region.lock.clone());
                if lock != STAR && (!library || library_keeps(&lock)) {
                    let class = root_class(self.prog, m, &body, &lock);
                    let id = self.locks.intern(lock);
                    let own_lock = HeldLock {
                        chain: self.held_paths.add(PathNode::Whole(Arc::new(vec![Hop {
                            method: m,
                            stmt: region.enter,
                        }]))),
                        class,
                    };
                    insert_in_path_order(&mut own, &self.locks, id, own_lock);
                }
            }
            if !own.is_empty() {
                delta.insert(m, own.iter().map(|(id, _)| *id).collect());
                queue.insert(m);
                held.insert(m, own);
            }
        }
        while let Some(c) = queue.pop_first() {
            let Some(new_locks) = delta.remove(&c) else {
                continue;
            };
            for &(m, stmt) in self.callers_of(c).iter() {
                if exits == Exits::Normal
                    && !self
                        .prog
                        .body(m)
                        .is_some_and(|body| returns.can_return(m, &body, stmt))
                {
                    continue;
                }
                let Some(site) = self.site(m, stmt) else {
                    continue;
                };
                let library = self.prog.is_library(m);
                let mut added: Vec<(LockId, HeldLock)> = Vec::new();
                let memo = self.translations.entry((m, stmt)).or_default();
                let callee_set = held.get(&c);
                let mine = held.get(&m);
                for &lock in &new_locks {
                    let Some(t) = translate_id(memo, &mut self.locks, &site, lock) else {
                        continue;
                    };
                    if library && !library_keeps(self.locks.path(t)) {
                        continue;
                    }
                    let Some(callee_lock) = callee_set.and_then(|s| lock_in(s, lock)) else {
                        continue;
                    };
                    let chain = callee_lock.chain;
                    // A synchronized `equals` of one class reached through
                    // `Object.equals` does not lock a `String` argument.
                    let Ok(class) = translated_class(
                        self.prog,
                        self.locks.path(lock),
                        callee_lock.class.as_ref(),
                        &site,
                    ) else {
                        continue;
                    };
                    if library && !self.settings.library_internal_locks {
                        // Leading library hops the chain would have in `m`.
                        // (The chain's first hops decide: a longer chain has
                        // more than `hops` anyway.)
                        let leading: Vec<Hop<P::M>> = self
                            .held_paths
                            .iter(chain)
                            .take(MAX_LIBRARY_HOPS + 1)
                            .collect();
                        let hops = 1 + leading
                            .iter()
                            .take_while(|h| self.prog.is_library(h.method))
                            .take(MAX_LIBRARY_HOPS)
                            .count();
                        // All library (its deepest hop runs library -> library),
                        // or an application callback buried too deep.
                        if hops > leading.len() || hops > MAX_LIBRARY_HOPS {
                            continue;
                        }
                    }
                    if mine.is_some_and(|s| {
                        lock_in(s, t).is_some() || s.len() + added.len() >= MAX_LOCKS_PER_METHOD
                    }) || added.iter().any(|(a, _)| *a == t)
                    {
                        continue;
                    }
                    let chain = self.held_paths.prefixed(
                        Hop {
                            method: m,
                            stmt: Some(site.stmt),
                        },
                        chain,
                    );
                    added.push((t, HeldLock { chain, class }));
                }
                if added.is_empty() {
                    continue;
                }
                let mine = held.entry(m).or_default();
                let d = delta.entry(m).or_default();
                for (t, lock) in added {
                    if insert_in_path_order(mine, &self.locks, t, lock) {
                        d.push(t);
                    }
                }
                if !d.is_empty() {
                    queue.insert(m);
                }
            }
        }
        held
    }

    /// Translate, at every decoded call site, the callee locks the two
    /// fixpoints did not (a lock of one summary only, at a site the other
    /// skipped), so the per-method analysis, which runs in parallel and
    /// cannot intern, finds every translation it needs.
    fn complete_translations(&mut self) {
        let mut keys: Vec<(P::M, StmtId)> = self.sites.keys().copied().collect();
        keys.sort_unstable();
        for key in keys {
            let Some(site) = self.sites.get(&key).cloned() else {
                continue;
            };
            let memo = self.translations.entry(key).or_default();
            for c in &site.callees {
                for summary in [&self.held, &self.returning] {
                    for (lock, _) in summary.get(c).into_iter().flatten() {
                        translate_id(memo, &mut self.locks, &site, *lock);
                    }
                }
            }
        }
    }

    /// Run the intraprocedural analysis of every method and the final propagation;
    /// return every witness (not yet deduplicated by location), in a deterministic order.
    /// Witnesses that re-enter a held lock are not yet removed: the caller
    /// asks [`Analysis::reenters_held`] of those it may report (the
    /// must-alias query behind it is the costliest filter, and most
    /// witnesses lose to a better one at their location anyway).
    pub fn witnesses(&self) -> Witnesses<P::M> {
        let mut out = Vec::new();
        let mut bounded_methods = 0;
        let mut exit_t: Vec<(P::M, PairSet<P::M>)> = Vec::new();
        // Methods are independent given LOCKSHELD: analyse them in
        // parallel, collecting in method order so the output is the same.
        // Only methods that acquire something, directly or through calls,
        // can show the pattern.
        let candidates: Vec<P::M> = self
            .methods
            .iter()
            .copied()
            .filter(|m| self.held.contains_key(m) && !self.prog.is_library(*m))
            .collect();
        let (results, skipped) =
            crate::budget::map_within(self.settings.budget, &candidates, |&m| {
                self.prog
                    .body(m)
                    .map(|body| (m, self.analyze_method(m, &body)))
            });
        let mut pairs_cut_methods = 0;
        for (m, result) in results.into_iter().flatten().flatten() {
            out.extend(result.witnesses);
            exit_t.push((m, result.exit_t));
            bounded_methods += usize::from(result.bounded);
            pairs_cut_methods += usize::from(result.pairs_cut);
        }
        out.extend(self.final_propagation(&exit_t));
        Witnesses {
            witnesses: out,
            bounded_methods,
            skipped,
            pairs_cut_methods,
        }
    }

    /// L of Fig. 6(b) at a call site, from the callees' summaries `held`,
    /// in path order (the order the per-method analysis numbers them).
    /// `memo` keeps what does not depend on the summary (the type check
    /// of each callee lock) for the next call.
    fn call_locks<'h>(
        &self,
        m: P::M,
        site: &CallSite<P::M>,
        held: &'h HashMap<P::M, LockSet>,
        memo: &mut CallMemo<'h>,
    ) -> Vec<(LockId, ChainNode<P::M>)> {
        let mut l: Vec<(LockId, ChainNode<P::M>)> = Vec::new();
        let mut seen: rustc_hash::FxHashSet<LockId> = Default::default();
        // Every (callee lock, call site) pair was translated by the
        // fixpoints or `complete_translations`.
        let translated = self.translations.get(&(m, site.stmt));
        for c in &site.callees {
            let Some(callee_locks) = held.get(c) else {
                continue;
            };
            for (lock, held) in callee_locks {
                let t = translated.and_then(|t| t.get(lock));
                debug_assert!(t.is_some(), "callee lock translated at its call site");
                let Some(&Some(t)) = t else {
                    continue;
                };
                if seen.contains(&t) {
                    continue;
                }
                let ok = *memo
                    .feasible
                    .entry((*lock, held.class.as_ref()))
                    .or_insert_with(|| {
                        translated_class(
                            self.prog,
                            self.locks.path(*lock),
                            held.class.as_ref(),
                            site,
                        )
                        .is_ok()
                    });
                if !ok {
                    continue;
                }
                let hop = Hop {
                    method: m,
                    stmt: Some(site.stmt),
                };
                seen.insert(t);
                l.push((t, ChainNode::after(hop, held.chain)));
            }
        }
        l.sort_unstable_by(|a, b| self.locks.path_order(a.0, b.0));
        l
    }

    fn analyze_method(&self, m: P::M, body: &Body) -> MethodResult<P::M> {
        let mut interner = Interner::new(&self.locks);
        let mut chains_arena = Chains::default();
        let mut call_locks: CallLocks = HashMap::default();
        // Every call site that reaches a lock was decoded while computing
        // LOCKSHELD (it is a caller of a method with locks).
        for i in 0..body.stmts.len() {
            let Some(site) = self.sites.get(&(m, StmtId(i as u32))) else {
                continue;
            };
            let mut memo = CallMemo::default();
            let all = self.call_locks(m, site, &self.held, &mut memo);
            if all.is_empty() {
                continue;
            }
            let returning = self.call_locks(m, site, &self.returning, &mut memo);
            let mut intern = |l: Vec<(LockId, ChainNode<P::M>)>| -> Vec<(LocalId, ChainId)> {
                l.into_iter()
                    .map(|(k, v)| (interner.intern(k), chains_arena.add(v)))
                    .collect()
            };
            let all = intern(all);
            let returning = intern(returning);
            call_locks.insert(site.stmt, CallLocksAt { all, returning });
        }
        // Methods that acquire nothing, directly or through calls, cannot show the pattern.
        if body.monitors.is_empty() && call_locks.is_empty() {
            return MethodResult {
                exit_t: PairSet::new(),
                witnesses: Vec::new(),
                bounded: false,
                pairs_cut: false,
            };
        }
        let region_locks: Vec<Option<LocalId>> = body
            .monitors
            .iter()
            .map(|r| {
                let lock = bounded(r.lock.clone());
                // Every region lock of an application method was interned
                // with the method's own LOCKSHELD.
                let id = (lock != STAR).then(|| self.locks.get(&lock)).flatten();
                debug_assert!(lock == STAR || id.is_some(), "region lock interned");
                id.map(|id| interner.intern(id))
            })
            .collect();
        let region_chains: Vec<ChainId> = body
            .monitors
            .iter()
            .map(|r| {
                chains_arena.add(ChainNode::Whole(Arc::new(vec![Hop {
                    method: m,
                    stmt: r.enter,
                }])))
            })
            .collect();
        let mut cx = MethodAnalysis {
            analysis: self,
            m,
            body,
            chains: chains_arena,
            region_chains,
            region_by_enter: HashMap::default(),
            region_by_exit: HashMap::default(),
            witnesses: BTreeMap::new(),
            call_locks,
            region_locks,
            interner,
            dirty: true,
            bounded: false,
            pairs_cut: false,
        };
        for (i, region) in body.monitors.iter().enumerate() {
            if let Some(e) = region.enter {
                cx.region_by_enter.insert(e, MonitorId(i as u32));
            }
            for &x in &region.exits {
                cx.region_by_exit.insert(x, MonitorId(i as u32));
            }
        }
        let exit_t = cx.run();
        let interner = &cx.interner;
        let chains = &cx.chains;
        let exit_t = capped_exit(exit_t, interner, chains, &self.held_paths);
        let witnesses = cx
            .witnesses
            .into_values()
            .map(|w| Witness {
                method: w.method,
                context: w.context,
                pair: (
                    interner.path(w.pair.0).clone(),
                    interner.path(w.pair.1).clone(),
                ),
                entry: chains.entry(&w.entry, &self.held_paths),
            })
            .collect();
        MethodResult {
            exit_t,
            witnesses,
            bounded: cx.bounded,
            pairs_cut: cx.pairs_cut,
        }
    }

    /// Fig. 8: FINAL_T over the expanded call graph (methods and their
    /// synchronized regions as nodes), by difference propagation from
    /// callees to callers (at most [`MAX_LOCKS_PER_METHOD`] pairs of each
    /// kind per node),
    /// and the witnesses it confirms at regions. Locks are interned (in a
    /// copy of the table, which the translations extend).
    fn final_propagation(&self, exit_t: &[(P::M, PairSet<P::M>)]) -> Vec<Witness<P::M>> {
        let mut table = self.locks.clone();
        let mut paths = PathArena::default();
        let mut translations = FinalTranslations {
            known: &self.translations,
            new: HashMap::default(),
        };
        let mut final_t: HashMap<Node<P::M>, GlobalPairs<P::M>> = HashMap::default();
        let mut delta: HashMap<Node<P::M>, Vec<GlobalPair>> = HashMap::default();
        let mut queue: BTreeSet<Node<P::M>> = BTreeSet::new();
        for (m, t) in exit_t {
            if !t.is_empty() {
                let mut capped: GlobalPairs<P::M> = HashMap::default();
                let mut order = Vec::new();
                let mut kinds = KindCounts::default();
                for (k, v) in t {
                    let same = k.0 == k.1;
                    if kinds.has_room(same) {
                        kinds.add(same);
                        let pair = (table.intern(k.0.clone()), table.intern(k.1.clone()));
                        capped.insert(pair, paths.entry(v));
                        order.push(pair);
                    }
                }
                delta.insert((*m, None), order);
                final_t.insert((*m, None), capped);
                queue.insert((*m, None));
            }
        }
        while let Some(node) = queue.pop_first() {
            let Some(new_pairs) = delta.remove(&node) else {
                continue;
            };
            // Leaving a block, its own lock's pairs stay behind: inside the
            // block every acquisition of that lock was a re-entry.
            let own_lock = self.region_lock(node, &table);
            for (pred, edge) in self.final_preds(node) {
                // The call site is decoded once per edge, not once per pair.
                let known = final_t.get(&pred);
                // What the caller has room for, decided before any path is
                // built: a full node (most callers of a busy method) took
                // nothing, yet every pair offered to it used to get its
                // longer paths, most of the propagation's memory.
                let mut kinds = known.map(|k| KindCounts::of(k.keys())).unwrap_or_default();
                if !kinds.has_room(true) && !kinds.has_room(false) {
                    continue;
                }
                let site = match edge {
                    FinalEdge::Region => None,
                    FinalEdge::Call(stmt) => match self.site_ref(pred.0, stmt) {
                        Some(site) => Some(site),
                        None => continue,
                    },
                };
                // The site's translations, looked up once per edge.
                let mut site_translations =
                    site.as_ref().map(|site| translations.at(pred.0, site.stmt));
                let mut added: Vec<(GlobalPair, FinalEntry<P::M>)> = Vec::new();
                let mut taken: rustc_hash::FxHashSet<GlobalPair> = Default::default();
                let here = final_t.get(&node);
                // The pairs of a node share paths (one first acquisition
                // before many seconds): one hop in front of each per edge.
                let mut hopped: HashMap<PathId, PathId> = HashMap::default();
                for pair in &new_pairs {
                    if own_lock.is_some_and(|l| l == pair.0 || l == pair.1) {
                        continue;
                    }
                    // One lock twice stays one lock twice in the caller.
                    if pair.0 == pair.1 && !kinds.has_room(true) {
                        continue;
                    }
                    let Some(entry) = here.and_then(|t| t.get(pair)) else {
                        continue;
                    };
                    let tp = match &site {
                        None => *pair,
                        Some(site) => {
                            let Some(at) = site_translations.as_mut() else {
                                continue;
                            };
                            let (Some(a), Some(b)) = (
                                at.get(&mut table, site, pair.0),
                                at.get(&mut table, site, pair.1),
                            ) else {
                                continue;
                            };
                            (a, b)
                        }
                    };
                    // Most pairs reach a caller along several paths: the
                    // first kept, the longer chains built only for it.
                    let same = tp.0 == tp.1;
                    if known.is_some_and(|k| k.contains_key(&tp))
                        || taken.contains(&tp)
                        || !kinds.has_room(same)
                    {
                        continue;
                    }
                    kinds.add(same);
                    taken.insert(tp);
                    let e = match &site {
                        None => *entry,
                        Some(site) => {
                            let hop = Hop {
                                method: pred.0,
                                stmt: Some(site.stmt),
                            };
                            FinalEntry {
                                first: *hopped
                                    .entry(entry.first)
                                    .or_insert_with(|| paths.prefixed(hop, entry.first)),
                                second: *hopped
                                    .entry(entry.second)
                                    .or_insert_with(|| paths.prefixed(hop, entry.second)),
                                formed_at: entry.formed_at,
                            }
                        }
                    };
                    added.push((tp, e));
                }
                if added.is_empty() {
                    continue;
                }
                // Every pair of `added` is new to the caller and has room.
                let mine = final_t.entry(pred).or_default();
                let d = delta.entry(pred).or_default();
                for (pair, entry) in added {
                    mine.insert(pair, entry);
                    d.push(pair);
                }
                queue.insert(pred);
            }
        }
        self.confirmed_at_regions(&final_t, &table, &paths)
    }

    /// The lock a block node holds (none for a method node, or when the
    /// lock names nothing the table knows: then no pair can involve it).
    fn region_lock(&self, (m, region): Node<P::M>, table: &LockTable) -> Option<LockId> {
        let body = self.prog.body(m)?;
        let info = body.monitors.get(region?.index())?;
        let lock = bounded(info.lock.clone());
        if lock == STAR {
            return None;
        }
        table.get(&lock)
    }

    /// The nodes a node's FINAL_T flows into: an application method's
    /// callers (at the region held around each call), a region's
    /// enclosing region or method.
    fn final_preds(&self, (m, region): Node<P::M>) -> Vec<(Node<P::M>, FinalEdge)> {
        match region {
            Some(r) => self
                .prog
                .body(m)
                .and_then(|b| b.monitors.get(r.index()).map(|info| info.parent))
                .map(|parent| vec![((m, parent), FinalEdge::Region)])
                .unwrap_or_default(),
            None => self
                .prog
                .callers(m)
                .into_iter()
                .filter(|(c, _)| !self.prog.is_library(*c))
                .filter_map(|(c, stmt)| {
                    let body = self.prog.body(c)?;
                    let held = body.held_before.get(stmt.index()).copied().flatten();
                    Some(((c, held), FinalEdge::Call(stmt)))
                })
                .collect(),
        }
    }

    /// FINAL_P: a region confirms every potential witness that reaches it,
    /// except the locks held there (its own and its ancestors': reentrant).
    /// Regions in order, and each region's pairs in the order of their paths.
    fn confirmed_at_regions(
        &self,
        final_t: &HashMap<Node<P::M>, GlobalPairs<P::M>>,
        table: &LockTable,
        paths: &PathArena<P::M>,
    ) -> Vec<Witness<P::M>> {
        let mut regions: Vec<(P::M, MonitorId)> = final_t
            .keys()
            .filter_map(|&(m, r)| r.map(|r| (m, r)))
            .collect();
        regions.sort();
        let mut out = Vec::new();
        for (m, r) in regions {
            let Some(t) = final_t.get(&(m, Some(r))) else {
                continue;
            };
            let Some(body) = self.prog.body(m) else {
                continue;
            };
            let held: Vec<LockId> = held_locks(&body, Some(r))
                .iter()
                .filter(|h| **h != STAR)
                .filter_map(|h| table.get(h))
                .collect();
            let mut pairs: Vec<(&GlobalPair, &FinalEntry<P::M>)> = t.iter().collect();
            pairs.sort_unstable_by(|x, y| {
                table
                    .path_order(x.0 .0, y.0 .0)
                    .then_with(|| table.path_order(x.0 .1, y.0 .1))
            });
            for (pair, entry) in pairs {
                if self.admissible(pair, &held) {
                    out.push(Witness {
                        method: m,
                        context: r,
                        pair: (table.path(pair.0).clone(), table.path(pair.1).clone()),
                        entry: PairEntry {
                            first: paths.chain(entry.first),
                            second: paths.chain(entry.second),
                            formed_at: entry.formed_at,
                        },
                    });
                }
            }
        }
        out
    }

    /// Is a lock of the witness a lock held around it under another name
    /// ([`LockProgram::same_lock`])? Both acquisitions are then re-entries
    /// (h2's `SessionRemote.setCurrentSchemaName` holds `this` and locks
    /// its command's `session`, which is `this`).
    pub fn reenters_held(&self, w: &Witness<P::M>, memo: &mut Reentries<P::M>) -> bool {
        let held = memo.held.entry((w.method, w.context)).or_insert_with(|| {
            self.prog
                .body(w.method)
                .map(|body| held_locks(&body, Some(w.context)))
                .unwrap_or_default()
        });
        let same = memo.same.entry((w.method, w.context)).or_default();
        [&w.pair.0, &w.pair.1].into_iter().any(|lock| {
            if let Some(&known) = same.get(lock) {
                return known;
            }
            let reenters = held
                .iter()
                .any(|h| *h != STAR && self.prog.same_lock(w.method, h, lock));
            same.insert(lock.clone(), reenters);
            reenters
        })
    }

    /// Two interned locks never name `*`.
    fn admissible(&self, pair: &GlobalPair, held: &[LockId]) -> bool {
        if !self.settings.pairs && pair.0 != pair.1 {
            return false;
        }
        !held.iter().any(|h| *h == pair.0 || *h == pair.1)
    }
}

/// What [`Analysis::reenters_held`] found, per witness context: the locks
/// held there, and whether a lock is one of them under another name.
/// Many witnesses share a context and a lock, and the must-alias query
/// behind the answer is costly.
pub struct Reentries<M> {
    held: HashMap<(M, MonitorId), Vec<AccessPath>>,
    same: HashMap<(M, MonitorId), HashMap<AccessPath, bool>>,
}

impl<M> Default for Reentries<M> {
    fn default() -> Self {
        Reentries {
            held: HashMap::default(),
            same: HashMap::default(),
        }
    }
}

/// The locks of `region` and every region enclosing it (bounded; `*` never equals a witness).
fn held_locks(body: &Body, mut region: Option<MonitorId>) -> Vec<AccessPath> {
    let mut out = Vec::new();
    let mut guard = 0;
    while let Some(r) = region {
        let Some(info) = body.monitors.get(r.index()) else {
            break;
        };
        out.push(bounded(info.lock.clone()));
        region = info.parent;
        guard += 1;
        if guard > body.monitors.len() {
            break;
        }
    }
    out
}

/// A method's exit pairs in terms of its locks, as the final propagation
/// takes them: at most [`MAX_LOCKS_PER_METHOD`] of each kind, the first in
/// the order of the lock expressions. A block can release more than a
/// thousand pairs; only the few kept are cloned out of the interner.
fn capped_exit<M: Copy>(
    exit_t: Vec<(IdPair, PairIds<M>)>,
    interner: &Interner,
    chains: &Chains<M>,
    paths: &PathArena<M>,
) -> PairSet<M> {
    // Distinct local ids name distinct paths (both tables intern by
    // path), so one lock twice is one id twice, and pairs of ids order as
    // their pairs of paths ([`Interner::order`]).
    let (same, distinct): (Vec<_>, Vec<_>) = exit_t.into_iter().partition(|((a, b), _)| a == b);
    let order = |x: &IdPair, y: &IdPair| {
        interner
            .order(x.0, y.0)
            .then_with(|| interner.order(x.1, y.1))
    };
    let mut out = PairSet::new();
    for mut kind in [same, distinct] {
        // The first few of up to a thousand pairs: select them, then sort
        // only those (each pair is a distinct pair of paths, so the kept
        // set and its order are those of a full sort).
        if kind.len() > MAX_LOCKS_PER_METHOD {
            kind.select_nth_unstable_by(MAX_LOCKS_PER_METHOD, |x, y| order(&x.0, &y.0));
            kind.truncate(MAX_LOCKS_PER_METHOD);
        }
        kind.sort_unstable_by(|x, y| order(&x.0, &y.0));
        for ((a, b), entry) in kind {
            out.insert(
                (interner.path(a).clone(), interner.path(b).clone()),
                chains.entry(&entry, paths),
            );
        }
    }
    out
}

/// How many pairs of each kind a node's FINAL_T holds, kept beside the
/// set as it grows (counting the set at every insertion was quadratic).
/// Same-lock pairs (`reacquired-lock`) and pairs of two locks (the pair
/// variant) are bounded separately, so turning the pair variant on never
/// hides a same-lock finding.
#[derive(Default)]
struct KindCounts {
    same: usize,
    distinct: usize,
}

impl KindCounts {
    fn of<'p>(pairs: impl Iterator<Item = &'p GlobalPair>) -> KindCounts {
        let mut counts = KindCounts::default();
        for pair in pairs {
            counts.add(pair.0 == pair.1);
        }
        counts
    }

    fn count(&mut self, same: bool) -> &mut usize {
        if same {
            &mut self.same
        } else {
            &mut self.distinct
        }
    }

    /// Whether the set may take one more pair of this kind (one lock
    /// twice, or two locks).
    fn has_room(&mut self, same: bool) -> bool {
        *self.count(same) < MAX_LOCKS_PER_METHOD
    }

    fn add(&mut self, same: bool) {
        *self.count(same) += 1;
    }
}

/// A node of the expanded call graph of Fig. 8: a method, or one of its
/// synchronized regions.
type Node<M> = (M, Option<MonitorId>);

/// How FINAL_T flows from a node into another.
#[derive(Clone, Copy)]
enum FinalEdge {
    /// Through the call at this statement of the caller (translated).
    Call(StmtId),
    /// From a region to its enclosing node (same method).
    Region,
}

/// A pair of locks of the analysis-wide table.
type GlobalPair = (LockId, LockId);
/// FINAL_T of one node.
type GlobalPairs<M> = HashMap<GlobalPair, FinalEntry<M>>;

/// A potential witness of the final propagation, its paths in a [`PathArena`].
#[derive(Debug, Clone, Copy)]
struct FinalEntry<M> {
    first: PathId,
    second: PathId,
    formed_at: Hop<M>,
}

/// A path of the [`PathArena`].
type PathId = u32;

/// The id of the last entry of an arena ([`PathId`], [`ChainId`]): its
/// index, saturated (fewer entries than memory can hold u32-indexed ones).
fn last_index<T>(entries: &[T]) -> u32 {
    u32::try_from(entries.len().saturating_sub(1)).unwrap_or(u32::MAX)
}

/// One path of the final propagation: a method's own path, or a hop
/// (the call in a caller) in front of another path.
enum PathNode<M> {
    Whole(Chain<M>),
    Prefixed(Hop<M>, PathId),
}

/// The paths of the final propagation, shared: a pair carried to a
/// caller adds one hop in front of the callee's path instead of copying
/// it, and whole paths are built only for confirmed witnesses (copying
/// every path at every caller made most of the propagation's memory).
struct PathArena<M> {
    nodes: Vec<PathNode<M>>,
}

impl<M> Default for PathArena<M> {
    fn default() -> Self {
        PathArena { nodes: Vec::new() }
    }
}

impl<M: Copy> PathArena<M> {
    fn add(&mut self, node: PathNode<M>) -> PathId {
        self.nodes.push(node);
        last_index(&self.nodes)
    }

    /// A method's potential witness, its paths added whole.
    fn entry(&mut self, entry: &PairEntry<M>) -> FinalEntry<M> {
        FinalEntry {
            first: self.add(PathNode::Whole(entry.first.clone())),
            second: self.add(PathNode::Whole(entry.second.clone())),
            formed_at: entry.formed_at,
        }
    }

    fn prefixed(&mut self, hop: Hop<M>, rest: PathId) -> PathId {
        self.add(PathNode::Prefixed(hop, rest))
    }

    /// The hops of the path `id`, outermost first.
    fn iter(&self, id: PathId) -> PathHops<'_, M> {
        PathHops {
            arena: self,
            next: Some(id),
            tail: None,
        }
    }

    /// The whole path of `id`: its hops in front, then the method's own path.
    fn chain(&self, id: PathId) -> Chain<M> {
        Arc::new(self.iter(id).collect())
    }

    /// The path `id` with `hop` in front, as a whole path.
    fn chain_after(&self, hop: Hop<M>, id: PathId) -> Chain<M> {
        Arc::new(std::iter::once(hop).chain(self.iter(id)).collect())
    }
}

/// The hops of one path of a [`PathArena`].
struct PathHops<'a, M> {
    arena: &'a PathArena<M>,
    /// The node to read next, until the path's whole tail is reached.
    next: Option<PathId>,
    /// The whole tail and the index of its next hop.
    tail: Option<(&'a Chain<M>, usize)>,
}

impl<M: Copy> Iterator for PathHops<'_, M> {
    type Item = Hop<M>;

    fn next(&mut self) -> Option<Hop<M>> {
        if let Some((tail, i)) = &mut self.tail {
            let hop = tail.get(*i).copied();
            *i += 1;
            return hop;
        }
        // Nodes point only to earlier nodes, so the walk ends.
        match self.arena.nodes.get(self.next? as usize) {
            Some(PathNode::Prefixed(hop, rest)) => {
                self.next = Some(*rest);
                Some(*hop)
            }
            Some(PathNode::Whole(tail)) => {
                self.next = None;
                self.tail = Some((tail, 1));
                tail.first().copied()
            }
            None => {
                self.next = None;
                None
            }
        }
    }
}

/// TRANSLATELOCK during the final propagation: what the fixpoints
/// translated, and what is new (pairs reach call sites the summaries'
/// locks did not, by the region edges).
struct FinalTranslations<'k, M> {
    known: &'k Translations<M>,
    new: Translations<M>,
}

impl<M: Copy + Eq + Hash> FinalTranslations<'_, M> {
    /// The translations of the call site (`m`, `stmt`).
    fn at(&mut self, m: M, stmt: StmtId) -> SiteFinalTranslations<'_> {
        SiteFinalTranslations {
            known: self.known.get(&(m, stmt)),
            new: self.new.entry((m, stmt)).or_default(),
        }
    }
}

/// [`FinalTranslations`] of one call site.
struct SiteFinalTranslations<'t> {
    known: Option<&'t SiteTranslations>,
    new: &'t mut SiteTranslations,
}

impl SiteFinalTranslations<'_> {
    fn get<M>(
        &mut self,
        table: &mut LockTable,
        site: &CallSite<M>,
        lock: LockId,
    ) -> Option<LockId> {
        match self.known.and_then(|t| t.get(&lock)) {
            Some(&t) => t,
            None => translate_id(self.new, table, site, lock),
        }
    }
}

struct MethodResult<M> {
    exit_t: PairSet<M>,
    witnesses: Vec<Witness<M>>,
    /// Some block reached [`MAX_PAIRS_PER_BLOCK`].
    bounded: bool,
    /// The budget ran out while the method was analysed: pairs of two
    /// locks were no longer added from then on.
    pairs_cut: bool,
}

/// Every witness of a program, and how many methods hit a bound.
pub struct Witnesses<M> {
    pub witnesses: Vec<Witness<M>>,
    /// Methods in which some block reached [`MAX_PAIRS_PER_BLOCK`].
    pub bounded_methods: usize,
    /// Candidate methods the budget left unanalysed.
    pub skipped: crate::budget::Skipped,
    /// Methods whose pair search the budget stopped early.
    pub pairs_cut_methods: usize,
}

/// A lock of one method's analysis, numbered in the order the method
/// meets it (call sites in statement order, then its own regions): the
/// order of its dataflow sets, which decides which pairs a bounded block
/// keeps.
type LocalId = u32;
type IdPair = (LocalId, LocalId);
/// The locks a call site may acquire (L of Fig. 6(b)), interned.
type CallLocks = HashMap<StmtId, CallLocksAt>;

/// L of one call site: every lock the call may acquire, and those it has
/// released when it returns normally (the rest only on its way to a throw).
struct CallLocksAt {
    all: Vec<(LocalId, ChainId)>,
    returning: Vec<(LocalId, ChainId)>,
}

/// What [`Analysis::call_locks`] worked out about the callee locks of one
/// call site: whether the caller's argument can be of the lock's root class.
#[derive(Default)]
struct CallMemo<'h> {
    feasible: HashMap<(LockId, Option<&'h Arc<str>>), bool>,
}

/// A path to an acquisition, as an index into one method's [`Chains`]:
/// dataflow states hold these, so cloning and joining them copies plain
/// integers instead of counting references.
type ChainId = u32;

/// A potential witness of one method's analysis, its paths as [`ChainId`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PairIds<M> {
    first: ChainId,
    second: ChainId,
    formed_at: Hop<M>,
}

/// One path of a method's analysis: whole (its own regions), or the
/// call in this method in front of a path of the summaries' shared
/// [`PathArena`]. A call site offers every lock of its callees, and few
/// end in a reported pair: the whole path is built only for those, once.
enum ChainNode<M> {
    Whole(Chain<M>),
    After(Hop<M>, PathId, std::cell::OnceCell<Chain<M>>),
}

impl<M> ChainNode<M> {
    /// The call `hop` in front of the summaries' path `rest`.
    fn after(hop: Hop<M>, rest: PathId) -> Self {
        ChainNode::After(hop, rest, std::cell::OnceCell::new())
    }
}

/// The paths of one method's analysis, indexed by [`ChainId`].
struct Chains<M> {
    chains: Vec<ChainNode<M>>,
}

impl<M> Default for Chains<M> {
    fn default() -> Self {
        Chains { chains: Vec::new() }
    }
}

impl<M: Copy> Chains<M> {
    fn add(&mut self, chain: ChainNode<M>) -> ChainId {
        self.chains.push(chain);
        last_index(&self.chains)
    }

    /// The chain of `id`, built whole from `paths` (the summaries' paths
    /// its nodes refer to); ids come from [`Chains::add`] of this arena.
    fn get(&self, id: ChainId, paths: &PathArena<M>) -> Chain<M> {
        match self.chains.get(id as usize) {
            Some(ChainNode::Whole(chain)) => chain.clone(),
            Some(ChainNode::After(hop, rest, whole)) => {
                whole.get_or_init(|| paths.chain_after(*hop, *rest)).clone()
            }
            None => Arc::new(Vec::new()),
        }
    }

    /// The first hop of the chain of `id`.
    fn head(&self, id: ChainId) -> Option<Hop<M>> {
        match self.chains.get(id as usize)? {
            ChainNode::Whole(chain) => chain.first().copied(),
            ChainNode::After(hop, ..) => Some(*hop),
        }
    }

    fn entry(&self, ids: &PairIds<M>, paths: &PathArena<M>) -> PairEntry<M> {
        PairEntry {
            first: self.get(ids.first, paths),
            second: self.get(ids.second, paths),
            formed_at: ids.formed_at,
        }
    }
}

/// The locks of one method's analysis: local ids of the analysis-wide
/// [`LockTable`] ids.
struct Interner<'t> {
    table: &'t LockTable,
    globals: Vec<LockId>,
    ids: HashMap<LockId, LocalId>,
}

impl<'t> Interner<'t> {
    fn new(table: &'t LockTable) -> Self {
        Interner {
            table,
            globals: Vec::new(),
            ids: HashMap::default(),
        }
    }

    fn intern(&mut self, lock: LockId) -> LocalId {
        if let Some(&id) = self.ids.get(&lock) {
            return id;
        }
        // A method has far fewer locks than the table.
        let id = LocalId::try_from(self.globals.len()).unwrap_or(LocalId::MAX);
        self.globals.push(lock);
        self.ids.insert(lock, id);
        id
    }

    fn path(&self, id: LocalId) -> &'t AccessPath {
        match self.globals.get(id as usize) {
            Some(&g) => self.table.path(g),
            None => &STAR,
        }
    }

    /// The order of the paths of two local ids (by the table's ranks).
    fn order(&self, a: LocalId, b: LocalId) -> std::cmp::Ordering {
        match (self.globals.get(a as usize), self.globals.get(b as usize)) {
            (Some(&x), Some(&y)) => self.table.path_order(x, y),
            _ => self.path(a).cmp(self.path(b)),
        }
    }
}

#[derive(Clone, PartialEq, Eq)]
struct Frame<M> {
    region: Option<MonitorId>,
    r: SortedMap<LocalId, ChainId>,
    t: SortedMap<IdPair, PairIds<M>>,
}

/// A witness found inside one method, with interned locks.
struct LocalWitness<M> {
    method: M,
    context: MonitorId,
    pair: IdPair,
    entry: PairIds<M>,
}

impl<M: Copy + Ord> Frame<M> {
    fn new(region: Option<MonitorId>) -> Self {
        Frame {
            region,
            r: SortedMap::new(),
            t: SortedMap::new(),
        }
    }

    /// Join `other` into `self`; true if anything was added. Keys are unioned;
    /// for a key present in both, the existing provenance stays (first wins,
    /// which is deterministic because the iteration order is).
    fn join(&mut self, other: &Frame<M>) -> bool {
        let grew_r = self.r.union_with(&other.r);
        let grew_t = self.t.union_with(&other.t);
        grew_r || grew_t
    }
}

type State<M> = Vec<Frame<M>>;

struct MethodAnalysis<'a, 'p, P: LockProgram> {
    analysis: &'a Analysis<'p, P>,
    m: P::M,
    body: &'a Body,
    region_by_enter: HashMap<StmtId, MonitorId>,
    region_by_exit: HashMap<StmtId, MonitorId>,
    witnesses: BTreeMap<(MonitorId, IdPair), LocalWitness<P::M>>,
    /// L of Fig. 6(b) for each call site with any, computed once.
    call_locks: CallLocks,
    /// The paths the states refer to.
    chains: Chains<P::M>,
    /// The path of each region's own acquisition.
    region_chains: Vec<ChainId>,
    /// The lock of each region (`None` for `*`).
    region_locks: Vec<Option<LocalId>>,
    interner: Interner<'a>,
    /// Whether the last transfer may have changed the state.
    dirty: bool,
    /// Some block reached [`MAX_PAIRS_PER_BLOCK`].
    bounded: bool,
    /// The budget ran out during this method: no more pairs of two locks.
    pairs_cut: bool,
}

impl<P: LockProgram> MethodAnalysis<'_, '_, P> {
    /// The settings for the next transfer: the pair search stops once the
    /// budget has run out (looked at once per block visited).
    fn effective_settings(&self) -> Settings {
        Settings {
            pairs: self.analysis.settings.pairs && !self.pairs_cut,
            ..self.analysis.settings
        }
    }

    /// Reshape an incoming state to the frames the IR says are open at the
    /// start of a block, so unstructured bytecode cannot desynchronise us.
    fn conform(&self, mut state: State<P::M>, expected: &[MonitorId]) -> State<P::M> {
        let want: Vec<Option<MonitorId>> = std::iter::once(None)
            .chain(expected.iter().copied().map(Some))
            .collect();
        if state.len() == want.len() && state.iter().zip(&want).all(|(f, w)| f.region == *w) {
            return state;
        }
        let mut out = Vec::with_capacity(want.len());
        for w in want {
            match state.iter().position(|f| f.region == w) {
                Some(i) => out.push(state.swap_remove(i)),
                None => out.push(Frame::new(w)),
            }
        }
        out
    }

    fn run(&mut self) -> Vec<(IdPair, PairIds<P::M>)> {
        let body = self.body;
        let nblocks = body.blocks.len();
        let mut input: Vec<Option<State<P::M>>> = vec![None; nblocks];
        let mut exit_state: Option<Frame<P::M>> = None;
        if nblocks == 0 {
            return Vec::new();
        }
        let entry_regions = body
            .blocks
            .first()
            .map(|b| self.body.regions_held_before(b.first))
            .unwrap_or_default();
        input[0] = Some(self.conform(vec![Frame::new(None)], &entry_regions));
        let mut queue: BTreeSet<usize> = BTreeSet::new();
        queue.insert(0);
        let mut iterations = 0usize;
        while let Some(b) = queue.pop_first() {
            iterations += 1;
            // Bounded for safety; the lattice is finite so this is never hit in practice.
            if iterations > 50 * nblocks + 1000 {
                break;
            }
            let Some(block) = body.blocks.get(b) else {
                continue;
            };
            if self.analysis.settings.pairs && !self.pairs_cut {
                self.pairs_cut = self.analysis.settings.budget.expired();
            }
            let Some(mut state) = input[b].clone() else {
                continue;
            };
            let mut exc: Option<State<P::M>> = None;
            let mut last_kind = None;
            for s in block.stmt_ids() {
                let Some(stmt) = body.stmts.get(s.index()) else {
                    continue;
                };
                // Handlers see the state before every statement of the
                // block; it only needs joining again after it changed.
                if !block.exceptional.is_empty() {
                    match &mut exc {
                        None => exc = Some(state.clone()),
                        Some(e) if self.dirty => {
                            join_states(e, &state);
                        }
                        Some(_) => {}
                    }
                }
                self.dirty = false;
                if let Some(e) = &mut exc {
                    self.throwing_call(s, &state, e);
                }
                self.transfer(s, &stmt.kind, &mut state);
                last_kind = Some(&stmt.kind);
            }
            if matches!(
                last_kind,
                Some(StmtKind::Return(_)) | Some(StmtKind::Throw(_))
            ) {
                let method_frame = self.close_all(state.clone());
                match &mut exit_state {
                    None => exit_state = Some(method_frame),
                    Some(e) => {
                        e.join(&method_frame);
                    }
                }
            }
            // The last successor takes the state itself, the others a copy.
            let mut targets: Vec<(usize, State<P::M>)> = Vec::new();
            if let Some((last, others)) = block.succs.split_last() {
                targets.extend(others.iter().map(|s| (s.index(), state.clone())));
                targets.push((last.index(), state));
            }
            if let Some(e) = exc {
                targets.extend(
                    block
                        .exceptional
                        .iter()
                        .map(|edge| (edge.handler.index(), e.clone())),
                );
            }
            for (t, st) in targets {
                let Some(tb) = body.blocks.get(t) else {
                    continue;
                };
                let expected = self.body.regions_held_before(tb.first);
                let st = self.conform(st, &expected);
                let changed = match &mut input[t] {
                    slot @ None => {
                        *slot = Some(st);
                        true
                    }
                    Some(existing) => join_states(existing, &st),
                };
                if changed {
                    queue.insert(t);
                }
            }
        }
        exit_state.map(|f| f.t.into_entries()).unwrap_or_default()
    }

    /// A handler of the block also sees a call that throws after acquiring
    /// locks it would not have released on return: join the state after
    /// such a call (R ∪ L, not R ∪ L') into the handlers' state.
    fn throwing_call(&mut self, s: StmtId, state: &State<P::M>, exc: &mut State<P::M>) {
        let Some(l) = self.call_locks.get(&s) else {
            return;
        };
        if l.all.len() == l.returning.len() {
            return;
        }
        let mut thrown = state.clone();
        let Some(top) = thrown.last_mut() else {
            return;
        };
        let formed = Hop {
            method: self.m,
            stmt: Some(s),
        };
        let settings = self.effective_settings();
        self.bounded |= add_released_at(
            top,
            &l.all,
            &l.all,
            formed,
            settings,
            &self.chains,
            self.bounded,
        );
        join_states(exc, &thrown);
    }

    /// Pop every open region at a method exit (a `synchronized` method's
    /// region ends here), composing each into its parent.
    fn close_all(&mut self, mut state: State<P::M>) -> Frame<P::M> {
        while state.len() > 1 {
            self.pop_region(&mut state);
        }
        state.pop().unwrap_or_else(|| Frame::new(None))
    }

    fn transfer(&mut self, s: StmtId, kind: &StmtKind, state: &mut State<P::M>) {
        let settings = self.effective_settings();
        if matches!(kind, StmtKind::MonitorEnter(_) | StmtKind::MonitorExit(_))
            || self.call_locks.contains_key(&s)
        {
            self.dirty = true;
        }
        match kind {
            StmtKind::MonitorEnter(_) => {
                if let Some(&r) = self.region_by_enter.get(&s) {
                    state.push(Frame::new(Some(r)));
                }
            }
            StmtKind::MonitorExit(_) => {
                if let Some(&r) = self.region_by_exit.get(&s) {
                    if state.iter().any(|f| f.region == Some(r)) {
                        while state.len() > 1 {
                            let top = state.last().and_then(|f| f.region);
                            self.pop_region(state);
                            if top == Some(r) {
                                break;
                            }
                        }
                    }
                }
            }
            StmtKind::Invoke { result, .. } => {
                if let Some(l) = self.call_locks.get(&s) {
                    if let Some(top) = state.last_mut() {
                        let formed = Hop {
                            method: self.m,
                            stmt: Some(s),
                        };
                        self.bounded |= add_released_at(
                            top,
                            &l.all,
                            &l.returning,
                            formed,
                            settings,
                            &self.chains,
                            self.bounded,
                        );
                    }
                }
                if let Some(dst) = result {
                    self.assign_var(*dst, state);
                }
            }
            StmtKind::InvokeDynamic {
                result: Some(dst), ..
            }
            | StmtKind::Assign { dst, .. } => self.assign_var(*dst, state),
            StmtKind::FieldStore { field, .. } => {
                self.dirty |= unmark(state, &self.interner, Assigned::Field(&field.name))
            }
            StmtKind::StaticStore { field, .. } => {
                self.dirty |= unmark(
                    state,
                    &self.interner,
                    Assigned::Static(&field.class, &field.name),
                )
            }
            StmtKind::ArrayStore { .. } => {
                self.dirty |= unmark(state, &self.interner, Assigned::ArrayElement)
            }
            _ => {}
        }
    }

    fn assign_var(&mut self, dst: VarId, state: &mut State<P::M>) {
        self.dirty |= unmark(state, &self.interner, Assigned::Var(dst));
        if let Some(info) = self.body.vars.get(dst.index()) {
            if let VarOrigin::Param(p) = info.origin {
                self.dirty |= unmark(state, &self.interner, Assigned::Param(p));
            }
        }
    }

    /// The transfer of `SYNC e sb` (Fig. 6a / Fig. 9) when block `sb` ends.
    fn pop_region(&mut self, state: &mut State<P::M>) {
        let Some(inner) = state.pop() else { return };
        let Some(region) = inner.region else { return };
        let settings = self.effective_settings();
        let info = self.body.monitors.get(region.index());
        let lock = self.region_locks.get(region.index()).copied().flatten();
        // Potential witnesses of the block are confirmed here, unless they are
        // a lock held at this point (reentrant acquisitions are no-ops).
        let held: Vec<LocalId> = state
            .iter()
            .filter_map(|f| f.region)
            .filter_map(|r| self.region_locks.get(r.index()).copied().flatten())
            .chain(lock)
            .collect();
        for (pair, entry) in inner.t.iter() {
            let distinct_ok = settings.pairs || pair.0 == pair.1;
            if distinct_ok && !held.contains(&pair.0) && !held.contains(&pair.1) {
                self.witnesses
                    .entry((region, *pair))
                    .or_insert_with(|| LocalWitness {
                        method: self.m,
                        context: region,
                        pair: *pair,
                        entry: *entry,
                    });
            }
        }
        let Some(outer) = state.last_mut() else {
            return;
        };
        let formed = Hop {
            method: self.m,
            stmt: info.and_then(|i| i.enter),
        };
        // R_sb ∪ {e} is what the block released: its own releases happen before e's.
        let mut released: Vec<(LocalId, ChainId)> = inner.r.into_entries();
        if let (Some(e), Some(&chain)) = (lock, self.region_chains.get(region.index())) {
            if !released.iter().any(|(l, _)| *l == e) {
                released.push((e, chain));
            }
        }
        self.bounded |= add_released_at(
            outer,
            &released,
            &released,
            formed,
            settings,
            &self.chains,
            self.bounded,
        );
    }
}

/// The call transfer of Fig. 6(b) / Fig. 9: T ∪ (R ∩ L) (pairs: R × L),
/// then R ∪ L', where L' ⊆ L are the locks still released when the call
/// returns normally. True if pairs were dropped at [`MAX_PAIRS_PER_BLOCK`].
fn add_released_at<M: Copy + Ord>(
    frame: &mut Frame<M>,
    l: &[(LocalId, ChainId)],
    returned: &[(LocalId, ChainId)],
    formed: Hop<M>,
    settings: Settings,
    chains: &Chains<M>,
    bounded_before: bool,
) -> bool {
    let dropped = if settings.pairs && fits_unbounded(frame, l) {
        add_all_pairs(frame, l, formed, chains);
        false
    } else {
        add_pairs_in_order(frame, l, formed, settings, chains, bounded_before)
    };
    for &(b, chain) in returned {
        frame.r.insert_if_absent(b, || chain);
    }
    dropped
}

/// Can every pair of R × L join T without reaching [`MAX_PAIRS_PER_BLOCK`]?
/// Then no pair is dropped, so the order pairs are added in (which decides
/// the dropped ones) does not matter.
fn fits_unbounded<M: Copy + Ord>(frame: &Frame<M>, l: &[(LocalId, ChainId)]) -> bool {
    let product = frame.r.len().saturating_mul(l.len());
    frame.t.len().saturating_add(product) <= MAX_PAIRS_PER_BLOCK
}

/// R × L into T, when nothing is dropped ([`fits_unbounded`]): the new
/// pairs are made in key order and merged into T in one pass, instead of
/// a search of T per pair and a sort. The same pairs and values as
/// [`add_pairs_in_order`]: the first chain of a lock repeated in `l`.
fn add_all_pairs<M: Copy + Ord>(
    frame: &mut Frame<M>,
    l: &[(LocalId, ChainId)],
    formed: Hop<M>,
    chains: &Chains<M>,
) {
    if frame.r.len() == 0 || l.is_empty() {
        return;
    }
    // Stable: of a lock met twice, its first chain stays.
    let mut seconds: Vec<(LocalId, ChainId)> = l.to_vec();
    seconds.sort_by_key(|(b, _)| *b);
    seconds.dedup_by_key(|(b, _)| *b);
    let candidates = frame
        .r
        .iter()
        .flat_map(|(a, _)| seconds.iter().map(move |(b, _)| (*a, *b)));
    let absent = frame.t.absent_keys(ExactLen {
        inner: candidates,
        len: frame.r.len() * seconds.len(),
    });
    let fresh: Vec<(IdPair, PairIds<M>)> = absent
        .into_iter()
        .filter_map(|(a, b)| {
            let first = *frame.r.get(&a)?;
            let second = seconds
                .binary_search_by_key(&b, |(x, _)| *x)
                .ok()
                .and_then(|i| seconds.get(i))?
                .1;
            let formed_at = chains.head(second).unwrap_or(formed);
            Some((
                (a, b),
                PairIds {
                    first,
                    second,
                    formed_at,
                },
            ))
        })
        .collect();
    frame.t.insert_sorted_new(fresh);
}

/// An iterator of known length (`flat_map` does not tell its length).
struct ExactLen<I> {
    inner: I,
    len: usize,
}

impl<I: Iterator> Iterator for ExactLen<I> {
    type Item = I::Item;
    fn next(&mut self) -> Option<I::Item> {
        let item = self.inner.next()?;
        self.len = self.len.saturating_sub(1);
        Some(item)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.len, Some(self.len))
    }
}

impl<I: Iterator> ExactSizeIterator for ExactLen<I> {}

/// R × L (or, without pairs, R ∩ L) into T in a fixed order (L's locks,
/// then R's), dropping pairs of two locks once T holds
/// [`MAX_PAIRS_PER_BLOCK`]. True if pairs were dropped.
fn add_pairs_in_order<M: Copy + Ord>(
    frame: &mut Frame<M>,
    l: &[(LocalId, ChainId)],
    formed: Hop<M>,
    settings: Settings,
    chains: &Chains<M>,
    bounded_before: bool,
) -> bool {
    // Once the method is known to have dropped a pair, a full block needs
    // no search for which pairs it drops: only same-lock pairs can be added.
    let mut dropped = false;
    let mut known_bounded = bounded_before;
    // The new pairs, merged into T at the end: inserting each into the
    // sorted set shifted up to a thousand pairs per insertion. A second
    // lock of `l` met again adds nothing (its pairs are in T or dropped).
    let mut fresh: Vec<(IdPair, PairIds<M>)> = Vec::new();
    let mut seen: Vec<LocalId> = Vec::with_capacity(l.len());
    for &(b, second) in l {
        match seen.binary_search(&b) {
            Ok(_) => continue,
            Err(i) => seen.insert(i, b),
        }
        let formed_at = chains.head(second).unwrap_or(formed);
        let new_pair = |first: &ChainId| PairIds {
            first: *first,
            second,
            formed_at,
        };
        let full = frame.t.len() + fresh.len() >= MAX_PAIRS_PER_BLOCK;
        if settings.pairs && !(full && known_bounded) {
            for (a, first) in frame.r.iter() {
                // Same-lock pairs (the default rule's) are never dropped.
                if *a != b && frame.t.len() + fresh.len() >= MAX_PAIRS_PER_BLOCK {
                    if !known_bounded && !frame.t.contains_key(&(*a, b)) {
                        dropped = true;
                        known_bounded = true;
                    }
                    continue;
                }
                if !frame.t.contains_key(&(*a, b)) {
                    fresh.push(((*a, b), new_pair(first)));
                }
            }
        } else if let Some(first) = frame.r.get(&b) {
            if !frame.t.contains_key(&(b, b)) {
                fresh.push(((b, b), new_pair(first)));
            }
        }
    }
    frame.t.insert_all_absent(fresh);
    dropped
}

/// Remove from every open block's R the locks that depend on what was
/// assigned; true if anything was removed.
fn unmark<M>(state: &mut State<M>, interner: &Interner, assigned: Assigned<'_>) -> bool {
    let mut removed = false;
    for frame in state.iter_mut() {
        let before = frame.r.len();
        frame
            .r
            .retain(|&lock| !depends(interner.path(lock), assigned));
        removed |= frame.r.len() != before;
    }
    removed
}

fn join_states<M: Copy + Ord>(into: &mut State<M>, other: &State<M>) -> bool {
    let mut grew = false;
    for (a, b) in into.iter_mut().zip(other) {
        if a.region == b.region {
            grew |= a.join(b);
        }
    }
    grew
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small xorshift generator: the inputs are the same on every run.
    fn generator(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        }
    }

    /// The one-merge call transfer ([`add_all_pairs`]) gives the frame the
    /// ordered transfer gives whenever nothing is dropped, on generated
    /// frames and call sites (repeated locks in L, pairs already in T,
    /// chains with and without a head of their own).
    #[test]
    fn all_pairs_at_once_match_the_ordered_transfer() {
        let mut next = generator(0x9e37_79b9_7f4a_7c15);
        let settings = Settings {
            pairs: true,
            library_internal_locks: false,
            budget: crate::Budget::unlimited(),
        };
        let mut chains: Chains<u32> = Chains::default();
        for i in 0..8 {
            chains.add(ChainNode::Whole(Arc::new(vec![Hop {
                method: i,
                stmt: Some(StmtId(i)),
            }])));
        }
        let formed = Hop {
            method: 99,
            stmt: None,
        };
        let mut compared = 0;
        for _ in 0..2000 {
            let mut frame: Frame<u32> = Frame::new(None);
            for _ in 0..next(12) {
                let lock = next(20) as LocalId;
                frame.r.insert_if_absent(lock, || next(16) as ChainId);
            }
            let mut t = Vec::new();
            for _ in 0..next(600) {
                let pair = (next(20) as LocalId, next(20) as LocalId);
                let ids = PairIds {
                    first: next(16) as ChainId,
                    second: next(16) as ChainId,
                    formed_at: formed,
                };
                t.push((pair, ids));
            }
            frame.t.insert_all_absent(t);
            let l: Vec<(LocalId, ChainId)> = (0..next(10))
                .map(|_| (next(20) as LocalId, next(16) as ChainId))
                .collect();
            if !fits_unbounded(&frame, &l) {
                continue;
            }
            compared += 1;
            let mut ordered = frame.clone();
            let dropped = add_pairs_in_order(&mut ordered, &l, formed, settings, &chains, false);
            assert!(!dropped);
            add_all_pairs(&mut frame, &l, formed, &chains);
            assert!(frame == ordered, "the same pairs and provenance");
        }
        assert!(compared > 500, "enough generated cases fit: {compared}");
    }
}
