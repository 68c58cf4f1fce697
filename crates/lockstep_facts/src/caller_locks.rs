//! Classes the program itself uses only under a lock of the receiver
//! (issue 14: the assumed outside caller on objects its program locks).
//!
//! The open-program harness calls every public method of a class from any
//! number of threads, without locks. For a helper that is not thread-safe
//! by design (log4j's `BoundedFIFO`, hsqldb's `RowOutputTextLog`), the
//! program shows the intended protocol: every call it makes to the
//! class's instance methods holds a lock of the receiver, or of an object
//! the receiver is reached from (`synchronized (bf) { bf.get(); }`, or a
//! `synchronized` method of the owner calling `this.rowOut.reset()`). The
//! harness is then taken to follow that protocol too: an access of such a
//! class's method to its own receiver's memory, made concurrent only by
//! the assumed outside caller, runs under the caller's lock.
//!
//! In-program calls to instance methods (constructors and class
//! initialisers aside) are of three kinds:
//! - *locked*: the caller holds a lock whose path is a prefix of the
//!   receiver's path (the receiver itself, or an owner it is read from),
//!   and the receiver is not the caller's own `this` (a class locking
//!   itself is no protocol of its callers);
//! - *on this*: a call on a path from the caller's own `this`, covered
//!   when the caller is a constructor (the object is still being built)
//!   or an instance method of a caller-locked class (which itself runs
//!   under its callers' lock);
//! - *unlocked*: anything else, calls from JDK code included (a callback
//!   from a collection is no protocol).
//!
//! A class is *caller-locked* when some class of its superclass chain
//! has a locked call (the evidence of a protocol), and no class of the
//! chain has an uncovered call or a method a root other than the harness
//! enters (a call to a method declared in `D` may be on an object of any
//! subclass of `D`). This is a greatest fixpoint over classes. A single
//! unlocked in-program call, or a thread of the program entering the
//! class, is enough to judge the class as usual: that is a race the
//! program itself can run.
//!
//! [`crate::intent`] uses the fact: a pair whose two accesses are made by
//! caller-locked classes on their receiver's memory holds the callers'
//! lock on both sides, so neither a lock elsewhere nor a method taking a
//! lock of its own is a sign of concurrent intent for it.

use lockstep_ir::{AccessPath, Body, Operand, Rvalue, StmtId, StmtKind};
use lockstep_program::{ClassId, MethodId};
use rustc_hash::FxHashSet;

use crate::analysis::Analysis;
use crate::threads::{Root, RootKind};

/// How a call site relates to locks of its receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Site {
    /// Holds a lock of the receiver or of an owner it is reached from.
    Locked,
    /// A call on a path from the caller's `this`: covered when the caller
    /// runs under its own callers' lock.
    OnThis,
    /// Neither.
    Unlocked,
}

impl Analysis<'_> {
    /// The caller-locked classes (module docs), computed once.
    pub(crate) fn caller_locked(&mut self, roots: &[Root]) -> &FxHashSet<ClassId> {
        if self.intent.caller_locked.is_none() {
            let v = self.compute_caller_locked(roots);
            self.intent.caller_locked = Some(v);
        }
        self.intent
            .caller_locked
            .get_or_insert_with(FxHashSet::default)
    }

    /// Is this access made by a method of a caller-locked class on memory
    /// of its own receiver (a path from `this`)?
    pub(crate) fn under_caller_lock(
        &mut self,
        roots: &[Root],
        method: MethodId,
        stmt: StmtId,
    ) -> bool {
        let class = self.program.method(method).class;
        if !self.caller_locked(roots).contains(&class) {
            return false;
        }
        let Some(body) = self.program.body(method) else {
            return false;
        };
        !body.is_static && accessed_path(&body, stmt).is_some_and(|p| from_this(&p))
    }

    /// The greatest fixpoint of the module docs: `bad` (classes with an
    /// uncovered call or a real root's entry) only grows.
    fn compute_caller_locked(&mut self, roots: &[Root]) -> FxHashSet<ClassId> {
        let sites = self.instance_call_sites();
        // Classes whose methods a real thread root enters run unlocked in
        // the program.
        let entered: FxHashSet<ClassId> = roots
            .iter()
            .filter(|r| !matches!(r.kind, RootKind::Harness(_)))
            .flat_map(|r| r.entries.iter())
            .filter_map(|&n| self.graph.nodes.get(n as usize))
            .map(|mc| self.program.method(mc.method).class)
            .collect();
        let mut classified: Vec<(ClassId, MethodId, Site)> = Vec::with_capacity(sites.len());
        for (caller, stmt, callee) in sites {
            let site = self.classify(caller, stmt);
            classified.push((self.program.method(callee).class, caller, site));
        }
        // Evidence of a protocol: a class some other object's code calls
        // under a lock.
        let evidence: FxHashSet<ClassId> = classified
            .iter()
            .filter(|&&(_, _, s)| s == Site::Locked)
            .map(|&(c, _, _)| c)
            .collect();
        let mut candidates: Vec<ClassId> = classified.iter().map(|&(c, _, _)| c).collect();
        candidates.sort_unstable();
        candidates.dedup();
        let mut bad: FxHashSet<ClassId> = entered;
        loop {
            let locked = self.locked_given(&candidates, &evidence, &bad);
            let before = bad.len();
            for &(class, caller, site) in &classified {
                if !self.covered(&locked, caller, site) {
                    bad.insert(class);
                }
            }
            if bad.len() == before {
                return locked;
            }
        }
    }

    /// The candidates with evidence of a protocol and no class of their
    /// superclass chain in `bad`: a call on a receiver whose method is
    /// declared in `D` may be on an object of any subclass of `D`.
    fn locked_given(
        &self,
        candidates: &[ClassId],
        evidence: &FxHashSet<ClassId>,
        bad: &FxHashSet<ClassId>,
    ) -> FxHashSet<ClassId> {
        candidates
            .iter()
            .copied()
            .filter(|&c| {
                let chain = self.program.superclasses(c);
                chain.iter().all(|d| !bad.contains(d)) && chain.iter().any(|d| evidence.contains(d))
            })
            .collect()
    }

    /// Is a call of `caller` covered, given the caller-locked classes?
    fn covered(&self, locked: &FxHashSet<ClassId>, caller: MethodId, site: Site) -> bool {
        let data = self.program.method(caller);
        match site {
            Site::Locked => true,
            Site::OnThis => data.is_constructor() || locked.contains(&data.class),
            Site::Unlocked => false,
        }
    }

    /// Every in-program call site (caller, statement, callee) whose callee
    /// is an application instance method other than a constructor, sorted.
    fn instance_call_sites(&self) -> Vec<(MethodId, StmtId, MethodId)> {
        let g = &self.graph;
        let mut out: Vec<(MethodId, StmtId, MethodId)> = Vec::new();
        for (n, callees) in g.callees.iter().enumerate() {
            let caller = g.nodes[n].method;
            for &(site, c) in callees {
                let callee = g.nodes[c as usize].method;
                let data = self.program.method(callee);
                if !data.is_static()
                    && !data.is_constructor()
                    && !data.is_class_initializer()
                    && self.program.is_application(data.class)
                {
                    out.push((caller, site, callee));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// How the call at `stmt` of `caller` relates to locks of its receiver.
    fn classify(&mut self, caller: MethodId, stmt: StmtId) -> Site {
        if !self
            .program
            .is_application(self.program.method(caller).class)
        {
            return Site::Unlocked;
        }
        let Some(body) = self.program.body(caller) else {
            return Site::Unlocked;
        };
        let Some(StmtKind::Invoke { call, .. }) = body.stmts.get(stmt.index()).map(|s| &s.kind)
        else {
            return Site::Unlocked;
        };
        let Some(recv) = call.receiver.as_ref() else {
            return Site::Unlocked;
        };
        let path = lockstep_ir::operand_path(&body, recv);
        let locks = self.locks_of(caller, &body);
        // A call on `this` under its own monitor is the class protecting
        // itself, not a caller's protocol: it counts as a call on `this`.
        let on_self = path == AccessPath::This;
        if !on_self
            && locks
                .at(stmt)
                .iter()
                .any(|l| is_prefix(&l.path(&body), &path))
        {
            Site::Locked
        } else if !body.is_static && from_this(&path) {
            Site::OnThis
        } else {
            Site::Unlocked
        }
    }
}

/// The path of the object an access statement touches (its base).
fn accessed_path(body: &Body, stmt: StmtId) -> Option<AccessPath> {
    let op: &Operand = match &body.stmts.get(stmt.index())?.kind {
        StmtKind::FieldStore { object, .. } => object,
        StmtKind::ArrayStore { array, .. } => array,
        StmtKind::Assign {
            value: Rvalue::FieldLoad { object, .. },
            ..
        } => object,
        StmtKind::Assign {
            value: Rvalue::ArrayLoad { array, .. },
            ..
        } => array,
        StmtKind::Invoke { call, .. } => call.receiver.as_ref()?,
        _ => return None,
    };
    Some(lockstep_ir::operand_path(body, op))
}

/// Is `lock` the path `recv` or one it is read from (a field or element
/// chain)? Paths that name no one object never match.
fn is_prefix(lock: &AccessPath, recv: &AccessPath) -> bool {
    if matches!(lock, AccessPath::Unknown | AccessPath::IntConst(_)) {
        return false;
    }
    lock == recv
        || match recv {
            AccessPath::Field(b, _) | AccessPath::Element(b, _) => is_prefix(lock, b),
            _ => false,
        }
}

/// Is the path `this` or a field or element chain from it (an enclosing
/// instance is another object, with locks of its own)?
fn from_this(p: &AccessPath) -> bool {
    match p {
        AccessPath::This => true,
        AccessPath::Field(b, _) | AccessPath::Element(b, _) => from_this(b),
        _ => false,
    }
}
