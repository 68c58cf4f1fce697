//! The block-based atomicity checker (paper 003, slides 18–24).
//!
//! A block is one or two accesses of a transaction with the locks held at
//! each and the lock instances held continuously between them.
//! *1v-blocks* (slide 21) pair each access with the last write before it to
//! the same variable (or, without one, the last read), and every final
//! write with each initial read; an access with no earlier one to its
//! variable is a one-event block. *2v-blocks* (slide 22) pair the initial
//! reads and final writes of different variables. Two blocks of
//! transactions of different threads are atomic when every feasible
//! interleaving (at most six; an event may not fall between the two events
//! of the other block while holding a lock that block holds across) is
//! view-equivalent to one of the two serial orders (slide 9: every read
//! reads from the same write, the same final write to each variable).
//! Transactions are checked pairwise (slide 23), then for cycles of three
//! transactions over initial reads and final writes that no pair shows
//! (slide 24).

use std::collections::BTreeSet;

use lockstep_trace::ObjId;

use crate::atomic_log::AtomicLog;
use crate::fast_hash::{FastMap, FastSet};
use crate::race::VarId;
use crate::transactions::Txn;

/// Transaction pairs examined at most (the rest are counted in a note).
const MAX_PAIRS: usize = 200_000;
/// Distinct blocks kept per transaction.
const MAX_BLOCKS: usize = 256;
/// Initial reads and final writes kept per transaction for 2v-blocks.
const MAX_ENDPOINTS: usize = 32;
/// Steps of the multi-transaction cycle search.
const MAX_CYCLE_STEPS: usize = 2_000_000;

/// One access of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Acc {
    var: VarId,
    write: bool,
    /// Log index.
    at: u32,
}

/// One or two accesses of a transaction and the locks held across.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    events: Vec<Acc>,
    across: Vec<ObjId>,
}

impl Block {
    /// Log indices of its events.
    pub fn events(&self) -> Vec<u32> {
        self.events.iter().map(|a| a.at).collect()
    }
}

/// A pair of transactions with a feasible non-serializable interleaving of
/// two of their blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairViolation {
    /// The transaction whose block was interleaved (index in the list).
    pub txn: usize,
    /// The other transaction.
    pub other: usize,
    /// Their blocks' events (log indices).
    pub blocks: (Vec<u32>, Vec<u32>),
    /// The interleaving, first to last (log indices).
    pub interleaving: Vec<u32>,
}

/// A cycle of three transactions, pairwise atomic, not atomic together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleViolation {
    /// The transactions; the first is the one interleaved.
    pub txns: Vec<usize>,
    /// The interleaving of their initial reads and final writes (log indices).
    pub interleaving: Vec<u32>,
}

/// What the block-based checker found.
#[derive(Debug, Default)]
pub struct BlockResult {
    /// Pairwise violations, one per pair of methods.
    pub pairs: Vec<PairViolation>,
    /// Multi-transaction cycles.
    pub cycles: Vec<CycleViolation>,
    /// Budgets hit.
    pub notes: Vec<String>,
}

fn accesses(txn: &Txn, log: &AtomicLog) -> Vec<Acc> {
    txn.events
        .iter()
        .filter_map(|&i| {
            let (var, write) = log.events.get(i as usize)?.access()?;
            Some(Acc { var, write, at: i })
        })
        .collect()
}

/// Initial reads (no write before in the transaction) and final writes
/// (no write after), in program order.
fn endpoints(accs: &[Acc]) -> Vec<Acc> {
    let mut written: FastSet<VarId> = FastSet::default();
    let mut last_write: FastMap<VarId, u32> = FastMap::default();
    for a in accs.iter().filter(|a| a.write) {
        last_write.insert(a.var, a.at);
    }
    let mut out = Vec::new();
    for a in accs {
        let initial_read = !a.write && !written.contains(&a.var);
        let final_write = a.write && last_write.get(&a.var) == Some(&a.at);
        if a.write {
            written.insert(a.var);
        }
        if initial_read || final_write {
            out.push(*a);
        }
    }
    out
}

fn across(log: &AtomicLog, a: &Acc, b: &Acc) -> Vec<ObjId> {
    let held = |i: u32| {
        log.events
            .get(i as usize)
            .and_then(|e| log.held_sets.get(e.held as usize))
            .map_or(&[][..], Vec::as_slice)
    };
    let later = held(b.at);
    held(a.at)
        .iter()
        .filter(|h| later.contains(h))
        .map(|h| h.0)
        .collect()
}

/// The 1v- and 2v-blocks of a transaction, deduplicated by shape.
pub fn blocks_of(txn: &Txn, log: &AtomicLog) -> (Vec<Block>, Vec<Block>) {
    let accs = accesses(txn, log);
    let mut one: Vec<Block> = Vec::new();
    let mut seen: FastSet<Vec<(VarId, bool, u32)>> = FastSet::default();
    let mut push = |list: &mut Vec<Block>, events: Vec<Acc>| {
        if list.len() >= MAX_BLOCKS {
            return;
        }
        let shape: Vec<(VarId, bool, u32)> = events
            .iter()
            .map(|a| (a.var, a.write, log.events[a.at as usize].held))
            .collect();
        if !seen.insert(shape) {
            return;
        }
        let across = match events.as_slice() {
            [a, b] => across(log, a, b),
            _ => Vec::new(),
        };
        list.push(Block { events, across });
    };
    let ends = endpoints(&accs);
    for (j, e2) in accs.iter().enumerate() {
        let before = &accs[..j];
        let same = |w: bool| {
            before
                .iter()
                .rev()
                .find(|a| a.var == e2.var && a.write == w)
        };
        match same(true).or_else(|| same(false)) {
            Some(e1) => push(&mut one, vec![*e1, *e2]),
            None => push(&mut one, vec![*e2]),
        }
        if e2.write && ends.contains(e2) {
            for r in ends
                .iter()
                .filter(|r| !r.write && r.var == e2.var && r.at < e2.at)
            {
                push(&mut one, vec![*r, *e2]);
            }
        }
    }
    let mut two: Vec<Block> = Vec::new();
    let ends = &ends[..ends.len().min(MAX_ENDPOINTS)];
    for (i, a) in ends.iter().enumerate() {
        for b in &ends[i + 1..] {
            if a.var != b.var {
                push(&mut two, vec![*a, *b]);
            }
        }
    }
    (one, two)
}

/// An event of an interleaving: block 0 or 1, position in it.
type Slot = (usize, usize);

/// Every merge of two sequences of lengths `n` and `m` (order kept).
fn merges(n: usize, m: usize) -> Vec<Vec<Slot>> {
    let total = n + m;
    let mut out = Vec::new();
    for mask in 0u32..(1 << total) {
        if mask.count_ones() as usize != n {
            continue;
        }
        let (mut i, mut j) = (0, 0);
        let seq = (0..total)
            .map(|p| {
                if mask & (1 << p) != 0 {
                    i += 1;
                    (0, i - 1)
                } else {
                    j += 1;
                    (1, j - 1)
                }
            })
            .collect();
        out.push(seq);
    }
    out
}

/// Reads-from and final writes of a sequence (view equivalence, slide 9).
/// Each read with the write it reads from, and each variable's last write.
type View = (Vec<(Slot, Option<Slot>)>, Vec<(VarId, Slot)>);

fn view(seq: &[Slot], blocks: [&Block; 2]) -> View {
    let acc = |s: Slot| blocks[s.0].events[s.1];
    let mut reads = Vec::new();
    let mut finals: FastMap<VarId, Slot> = FastMap::default();
    for &s in seq {
        let a = acc(s);
        if a.write {
            finals.insert(a.var, s);
        } else {
            reads.push((s, finals.get(&a.var).copied()));
        }
    }
    reads.sort_unstable();
    let mut finals: Vec<(VarId, Slot)> = finals.into_iter().collect();
    finals.sort_unstable();
    (reads, finals)
}

fn feasible(seq: &[Slot], blocks: [&Block; 2], log: &AtomicLog) -> bool {
    for (b, block) in blocks.iter().enumerate() {
        if block.events.len() < 2 || block.across.is_empty() {
            continue;
        }
        let pos = |k: usize| seq.iter().position(|&s| s == (b, k)).unwrap_or(0);
        let (p, q) = (pos(0), pos(1));
        for &(ob, ok) in &seq[p + 1..q] {
            let ev = &log.events[blocks[ob].events[ok].at as usize];
            if log.event_locks(ev).iter().any(|l| block.across.contains(l)) {
                return false;
            }
        }
    }
    true
}

/// A feasible non-serializable interleaving of two blocks, if any.
fn non_serializable(b1: &Block, b2: &Block, log: &AtomicLog) -> Option<Vec<Slot>> {
    let blocks = [b1, b2];
    let writes = b1.events.iter().chain(&b2.events).any(|a| a.write);
    let shared = b1
        .events
        .iter()
        .any(|a| b2.events.iter().any(|b| a.var == b.var));
    if !writes || !shared {
        return None;
    }
    let (n, m) = (b1.events.len(), b2.events.len());
    let serial1: Vec<Slot> = (0..n)
        .map(|k| (0, k))
        .chain((0..m).map(|k| (1, k)))
        .collect();
    let serial2: Vec<Slot> = (0..m)
        .map(|k| (1, k))
        .chain((0..n).map(|k| (0, k)))
        .collect();
    let (v1, v2) = (view(&serial1, blocks), view(&serial2, blocks));
    merges(n, m).into_iter().find(|seq| {
        let v = view(seq, blocks);
        v != v1 && v != v2 && feasible(seq, blocks, log)
    })
}

/// Which block of a non-serial interleaving was interrupted (0 or 1).
fn interrupted(seq: &[Slot]) -> usize {
    let first = seq.first().map_or(0, |s| s.0);
    let last_of_first = seq.iter().rposition(|s| s.0 == first).unwrap_or(0);
    if seq[..last_of_first].iter().any(|s| s.0 != first) {
        first
    } else {
        1 - first
    }
}

/// Checks two transactions: the first non-serializable interleaving of
/// their 1v-blocks, else of their 2v-blocks.
fn check_pair(
    a: &(Vec<Block>, Vec<Block>),
    b: &(Vec<Block>, Vec<Block>),
    log: &AtomicLog,
) -> Option<(usize, [Block; 2], Vec<u32>)> {
    for (l1, l2) in [(&a.0, &b.0), (&a.1, &b.1)] {
        for b1 in l1 {
            for b2 in l2 {
                if let Some(seq) = non_serializable(b1, b2, log) {
                    let blocks = [b1, b2];
                    let order = seq.iter().map(|s| blocks[s.0].events[s.1].at).collect();
                    return Some((interrupted(&seq), [b1.clone(), b2.clone()], order));
                }
            }
        }
    }
    None
}

/// A transaction's shape: its thread, method and blocks with the lock
/// objects (not instances) held. Two instances of one shape give the same
/// verdicts against any other transaction, so only the first is checked
/// (a loop calling a method a million times costs one check, not a
/// million squared) — except for start/join ordering, which is judged on
/// that first instance.
fn shape(txn: &Txn, log: &AtomicLog) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (txn.thread, txn.method).hash(&mut h);
    let (one, two) = blocks_of(txn, log);
    for b in one.iter().chain(&two) {
        for a in &b.events {
            let e = &log.events[a.at as usize];
            (a.var, a.write, log.event_locks(e)).hash(&mut h);
        }
        b.across.hash(&mut h);
    }
    h.finish()
}

/// The first transaction of each shape.
fn representatives(txns: &[Txn], log: &AtomicLog) -> Vec<bool> {
    let mut seen: FastSet<u64> = FastSet::default();
    txns.iter().map(|t| seen.insert(shape(t, log))).collect()
}

/// The variables each representative transaction touches, with whether it writes them.
fn touches(txns: &[Txn], reps: &[bool], log: &AtomicLog) -> FastMap<VarId, Vec<(usize, bool)>> {
    let mut by_var: FastMap<VarId, Vec<(usize, bool)>> = FastMap::default();
    for (t, txn) in txns.iter().enumerate().filter(|(t, _)| reps[*t]) {
        let mut mine: FastMap<VarId, bool> = FastMap::default();
        for a in accesses(txn, log) {
            *mine.entry(a.var).or_default() |= a.write;
        }
        let mut mine: Vec<(VarId, bool)> = mine.into_iter().collect();
        mine.sort_unstable();
        for (v, w) in mine {
            by_var.entry(v).or_default().push((t, w));
        }
    }
    by_var
}

/// Is all of `a` ordered before all of `b` by start/join and hand-offs?
fn serial(a: &Txn, b: &Txn, log: &AtomicLog) -> bool {
    let event = |i: Option<&u32>| i.and_then(|&i| log.events.get(i as usize));
    match (event(a.events.last()), event(b.events.first())) {
        (Some(x), Some(y)) => log.ordered(x, y),
        _ => false,
    }
}

/// Candidate pairs: different threads, a common variable one of them
/// writes, at least one a real (non-unary) transaction; in a fixed order.
fn candidate_pairs(
    txns: &[Txn],
    reps: &[bool],
    log: &AtomicLog,
    notes: &mut Vec<String>,
) -> Vec<(usize, usize)> {
    let by_var = touches(txns, reps, log);
    let mut vars: Vec<&VarId> = by_var.keys().collect();
    vars.sort_unstable();
    let mut pairs: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut dropped = 0u64;
    for v in vars {
        if dropped > 0 {
            break;
        }
        let list = &by_var[v];
        for (i, &(t1, w1)) in list.iter().enumerate() {
            for &(t2, w2) in &list[i + 1..] {
                let (x, y) = (&txns[t1], &txns[t2]);
                if x.thread == y.thread
                    || !(w1 || w2)
                    || (x.method.is_none() && y.method.is_none())
                    || serial(x, y, log)
                    || serial(y, x, log)
                {
                    continue;
                }
                if pairs.len() >= MAX_PAIRS {
                    dropped += 1;
                } else {
                    pairs.insert((t1, t2));
                }
            }
        }
    }
    if dropped > 0 {
        notes.push(format!(
            "block-based: stopped at {MAX_PAIRS} pairs of transaction shapes; the rest were not checked"
        ));
    }
    pairs.into_iter().collect()
}

/// Runs the pairwise and the multi-transaction checks.
pub fn check(txns: &[Txn], log: &AtomicLog) -> BlockResult {
    let mut result = BlockResult::default();
    let reps = representatives(txns, log);
    let pairs = candidate_pairs(txns, &reps, log, &mut result.notes);
    let mut cache: FastMap<usize, (Vec<Block>, Vec<Block>)> = FastMap::default();
    let mut reported: FastSet<(Option<u32>, Option<u32>)> = FastSet::default();
    let mut bad_pairs: FastSet<(usize, usize)> = FastSet::default();
    for (t1, t2) in pairs {
        let key = (txns[t1].method, txns[t2].method);
        if reported.contains(&key) || reported.contains(&(key.1, key.0)) {
            bad_pairs.insert((t1, t2));
            continue;
        }
        for t in [t1, t2] {
            cache.entry(t).or_insert_with(|| blocks_of(&txns[t], log));
        }
        let Some((which, blocks, order)) = check_pair(&cache[&t1], &cache[&t2], log) else {
            continue;
        };
        bad_pairs.insert((t1, t2));
        reported.insert(key);
        let (txn, other) = if which == 0 { (t1, t2) } else { (t2, t1) };
        let [b1, b2] = blocks;
        let blocks = if which == 0 { (b1, b2) } else { (b2, b1) };
        result.pairs.push(PairViolation {
            txn,
            other,
            blocks: (blocks.0.events(), blocks.1.events()),
            interleaving: order,
        });
    }
    result.cycles = cycles(txns, &reps, log, &bad_pairs, &mut result.notes);
    result
}

/// An initial read or final write of a transaction.
#[derive(Debug, Clone, Copy)]
struct End {
    txn: usize,
    acc: Acc,
}

/// Slide 24: cycles `T1 → T2 → T3 → T1` over initial reads and final
/// writes (an edge: a conflicting pair, the first event ordered before the
/// second), three different threads, no pair of them already non-atomic,
/// feasible: T1's outgoing event comes before its incoming one in program
/// order (so the other two run inside T1) and neither of the others' events
/// holds a lock T1 holds across that span.
fn cycles(
    txns: &[Txn],
    reps: &[bool],
    log: &AtomicLog,
    bad_pairs: &FastSet<(usize, usize)>,
    notes: &mut Vec<String>,
) -> Vec<CycleViolation> {
    let ends: Vec<Vec<Acc>> = txns
        .iter()
        .zip(reps)
        .map(|(t, &rep)| {
            if rep {
                endpoints(&accesses(t, log))
            } else {
                Vec::new()
            }
        })
        .collect();
    let mut by_var: FastMap<VarId, Vec<End>> = FastMap::default();
    for (t, list) in ends.iter().enumerate() {
        for a in list {
            by_var
                .entry(a.var)
                .or_default()
                .push(End { txn: t, acc: *a });
        }
    }
    let out_edges = |t: usize| -> Vec<(Acc, End)> {
        let mut out = Vec::new();
        for a in &ends[t] {
            for b in by_var.get(&a.var).into_iter().flatten() {
                let conflict = a.write || b.acc.write;
                if conflict
                    && txns[b.txn].thread != txns[t].thread
                    && !serial(&txns[b.txn], &txns[t], log)
                {
                    out.push((*a, *b));
                }
            }
        }
        out
    };
    let bad = |x: usize, y: usize| bad_pairs.contains(&(x, y)) || bad_pairs.contains(&(y, x));
    let mut found = Vec::new();
    // One report per set of methods: the same cycle read from another
    // transaction is the same violation.
    let mut reported: FastSet<Vec<Option<u32>>> = FastSet::default();
    let mut steps = 0usize;
    'start: for t1 in 0..txns.len() {
        if txns[t1].method.is_none() {
            continue;
        }
        for (a1, e2) in out_edges(t1) {
            let t2 = e2.txn;
            if bad(t1, t2) {
                continue;
            }
            for (a2, e3) in out_edges(t2) {
                let t3 = e3.txn;
                steps += 1;
                if steps > MAX_CYCLE_STEPS {
                    notes.push(
                        "block-based: the multi-transaction search stopped at its step budget"
                            .into(),
                    );
                    break 'start;
                }
                if t3 == t1 || txns[t3].thread == txns[t1].thread || bad(t2, t3) || bad(t1, t3) {
                    continue;
                }
                if txns[t2].method.is_none() && a2.at != e2.acc.at {
                    continue;
                }
                for (a3, e1) in out_edges(t3) {
                    if e1.txn != t1 || e1.acc.at <= a1.at {
                        continue;
                    }
                    let span = across(log, &a1, &e1.acc);
                    let inside = [e2.acc, a2, e3.acc, a3];
                    let blocked = inside.iter().any(|x| {
                        let ev = &log.events[x.at as usize];
                        log.event_locks(ev).iter().any(|l| span.contains(l))
                    });
                    let mut methods = vec![txns[t1].method, txns[t2].method, txns[t3].method];
                    methods.sort_unstable();
                    if blocked || !reported.insert(methods) {
                        continue;
                    }
                    let mut order = vec![a1.at, e2.acc.at, a2.at, e3.acc.at, a3.at, e1.acc.at];
                    order.dedup();
                    found.push(CycleViolation {
                        txns: vec![t1, t2, t3],
                        interleaving: order,
                    });
                    continue 'start;
                }
            }
        }
    }
    found
}
