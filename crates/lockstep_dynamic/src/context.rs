//! What every checker needs to know about each thread at each access: the
//! locks it holds (with reentrancy depth, and `wait` releasing them fully)
//! and its call stack. Both are interned — a lock set as a sorted list, a
//! call stack as a node of a calling-context tree — so an access records
//! them as two `u32`s.

use lockstep_trace::{Event, LockKind, MethodId, ObjId, SiteId};

use crate::fast_hash::FastMap;

/// Dense internal thread index (the order threads first appear).
pub type Tid = u32;

/// Interned set of held locks; 0 is the empty set.
pub type LocksetId = u32;

/// Interned call stack; 0 is the empty stack.
pub type StackId = u32;

/// One memory access, as kept in shadow state for reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Internal thread index.
    pub thread: Tid,
    /// Where.
    pub site: SiteId,
    /// Locks held.
    pub locks: LocksetId,
    /// Call stack.
    pub stack: StackId,
    /// Position in the merged order (for the timeline).
    pub at: u64,
    /// Write or read.
    pub write: bool,
}

/// A change of a thread's held locks that matters for synchronization:
/// the outermost acquisition or release (reentrant ones are counted only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockStep {
    /// Nothing changed (not a lock event, or a reentrant one).
    None,
    /// The thread now holds `lock` (in `kind`).
    Acquired(ObjId, LockKind),
    /// The thread released `lock` completely.
    Released(ObjId, LockKind),
}

#[derive(Debug, Clone, Copy)]
struct Held {
    lock: ObjId,
    kind: LockKind,
    depth: u32,
}

/// One thread's lock and call-stack state.
#[derive(Debug, Default)]
pub struct ThreadState {
    held: Vec<Held>,
    /// Current interned lock set.
    pub locks: LocksetId,
    /// Current interned call stack.
    pub stack: StackId,
    /// A `wait` on this lock is in progress: its Release/Acquire pair
    /// releases and restores the whole reentrancy depth.
    waiting_on: Option<ObjId>,
    saved_depth: Option<(ObjId, u32)>,
}

/// Interned lock sets: sorted `(lock, kind)` lists.
#[derive(Debug)]
pub struct Locksets {
    sets: Vec<Vec<(ObjId, LockKind)>>,
    index: FastMap<Vec<(ObjId, LockKind)>, LocksetId>,
}

impl Default for Locksets {
    fn default() -> Self {
        let mut index = FastMap::default();
        index.insert(Vec::new(), 0);
        Locksets {
            sets: vec![Vec::new()],
            index,
        }
    }
}

impl Locksets {
    /// The id of `set` (sorted), interning it if new (allocating only then).
    pub fn intern(&mut self, set: &[(ObjId, LockKind)]) -> LocksetId {
        if let Some(&id) = self.index.get(set) {
            return id;
        }
        let id = self.sets.len() as LocksetId;
        self.sets.push(set.to_vec());
        self.index.insert(set.to_vec(), id);
        id
    }

    /// The locks of an interned set.
    pub fn get(&self, id: LocksetId) -> &[(ObjId, LockKind)] {
        self.sets.get(id as usize).map_or(&[], Vec::as_slice)
    }
}

/// The calling-context tree: node 0 is the root (empty stack).
#[derive(Debug)]
pub struct CallTree {
    nodes: Vec<(StackId, MethodId)>,
    children: FastMap<(StackId, MethodId), StackId>,
}

impl Default for CallTree {
    fn default() -> Self {
        CallTree {
            nodes: vec![(0, 0)],
            children: FastMap::default(),
        }
    }
}

impl CallTree {
    /// The stack `parent` extended by `method`.
    #[inline]
    pub fn enter(&mut self, parent: StackId, method: MethodId) -> StackId {
        let next = self.nodes.len() as StackId;
        *self.children.entry((parent, method)).or_insert_with(|| {
            self.nodes.push((parent, method));
            next
        })
    }

    /// The stack after leaving `method` from `node`. A mismatched exit (an
    /// exit whose entry was not recorded) pops up to the matching frame if
    /// there is one, else leaves the stack as it is.
    pub fn exit(&self, node: StackId, method: MethodId) -> StackId {
        let mut n = node;
        while n != 0 {
            let (parent, m) = self.nodes[n as usize];
            if m == method {
                return parent;
            }
            n = parent;
        }
        node
    }

    /// Methods of a stack, innermost first.
    pub fn frames(&self, mut node: StackId) -> Vec<MethodId> {
        let mut out = Vec::new();
        while node != 0 {
            let Some(&(parent, m)) = self.nodes.get(node as usize) else {
                break;
            };
            out.push(m);
            node = parent;
        }
        out
    }
}

/// Lock and stack bookkeeping for all threads.
#[derive(Debug, Default)]
pub struct Context {
    /// Per internal thread.
    pub threads: Vec<ThreadState>,
    /// Interned lock sets.
    pub locksets: Locksets,
    /// Interned call stacks.
    pub calls: CallTree,
    /// Reused buffer for building a lock set.
    scratch: Vec<(ObjId, LockKind)>,
}

impl Context {
    /// Makes sure thread `t` has a state.
    pub fn ensure(&mut self, t: Tid) {
        while self.threads.len() <= t as usize {
            self.threads.push(ThreadState::default());
        }
    }

    /// Updates thread `t` for event `e`; says whether the held locks changed.
    #[inline]
    pub fn step(&mut self, t: Tid, e: &Event) -> LockStep {
        let ts = &mut self.threads[t as usize];
        match *e {
            Event::Enter { method } => {
                ts.stack = self.calls.enter(ts.stack, method);
                LockStep::None
            }
            Event::Exit { method } => {
                ts.stack = self.calls.exit(ts.stack, method);
                LockStep::None
            }
            Event::Wait { lock, .. } => {
                ts.waiting_on = Some(lock);
                LockStep::None
            }
            Event::Acquire { lock, kind, .. } => self.acquire(t, lock, kind),
            Event::Release { lock, kind, .. } => self.release(t, lock, kind),
            _ => LockStep::None,
        }
    }

    fn acquire(&mut self, t: Tid, lock: ObjId, kind: LockKind) -> LockStep {
        let ts = &mut self.threads[t as usize];
        let restore = match ts.saved_depth {
            Some((l, d)) if l == lock => {
                ts.saved_depth = None;
                d
            }
            _ => 1,
        };
        if let Some(h) = ts
            .held
            .iter_mut()
            .find(|h| h.lock == lock && h.kind == kind)
        {
            h.depth += 1;
            return LockStep::None;
        }
        ts.held.push(Held {
            lock,
            kind,
            depth: restore,
        });
        self.relock(t);
        LockStep::Acquired(lock, kind)
    }

    fn release(&mut self, t: Tid, lock: ObjId, kind: LockKind) -> LockStep {
        let ts = &mut self.threads[t as usize];
        let Some(i) = ts
            .held
            .iter()
            .position(|h| h.lock == lock && h.kind == kind)
        else {
            // A release without a recorded acquire: still a release for ordering.
            return LockStep::Released(lock, kind);
        };
        if ts.waiting_on == Some(lock) {
            ts.waiting_on = None;
            ts.saved_depth = Some((lock, ts.held[i].depth));
            ts.held[i].depth = 1;
        }
        ts.held[i].depth -= 1;
        if ts.held[i].depth > 0 {
            return LockStep::None;
        }
        ts.held.remove(i);
        self.relock(t);
        LockStep::Released(lock, kind)
    }

    fn relock(&mut self, t: Tid) {
        let ts = &self.threads[t as usize];
        let set = &mut self.scratch;
        set.clear();
        set.extend(ts.held.iter().map(|h| (h.lock, h.kind)));
        set.sort_unstable();
        let id = self.locksets.intern(set);
        self.threads[t as usize].locks = id;
    }
}
