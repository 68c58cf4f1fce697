//! Happens-before between a thread start and the method that starts it:
//! the statements of the starting method that run before the `start()`
//! (or `submit`, `execute`, ...) and those that run only after a call that
//! waits for the task's end.
//!
//! The waits, by the hand-off models of `lockstep_models::handoff`:
//! `join()` of the thread object; `get()`/`join()` of the future the launch
//! returned; `awaitTermination`/`close` of the executor it was submitted
//! to; the launching `invokeAll` itself; `await` of a latch or barrier
//! that the task releases as its last act; and a call of a helper method
//! that joins its parameter on every normal return. Objects match when
//! they are the same abstract object (a points-to singleton).
//!
//! A queue hand-off (`BlockingQueue` put → take) relates two arbitrary
//! threads through the object it carries, not a thread and its starter:
//! it is a fact of pairs of accesses, in [`crate::queue_handoff`].
//!
//! Assumptions (sound-ish, chosen for the idioms of real programs): a
//! join that throws (`InterruptedException`) is not a path past it; a
//! wait in a loop runs at least once and waits each time (`for (Thread t
//! : ts) t.join()`); a latch's count is its number of parties; a timed or
//! conditional wait (`awaitTermination`) is taken to have waited.

use crate::util::successors;
use lockstep_ir::{Body, Call, StmtId, StmtKind, VarId};
use lockstep_models::{HandOff, Side, Subject, COMPLETION_STAGE};
use lockstep_pointsto::{MethodContext, ObjectId, PointsToResult, SiteKey, ThreadStart};
use lockstep_program::{EdgeKind, MethodId, Program};

/// How far a chain of `CompletionStage` calls is followed back to the launch.
const MAX_STAGES: usize = 16;
/// How deep a task's last call is followed to find its release of a latch.
const MAX_RELEASE_DEPTH: u32 = 3;

/// A thread start and the body of the method that makes it.
struct StartSite<'x> {
    program: &'x Program,
    pt: &'x PointsToResult,
    start: &'x ThreadStart,
    body: &'x Body,
}

/// What of the starting method is ordered with a thread start.
pub struct Ordered {
    /// Per statement of the starting method: it cannot run after the
    /// launching call (it happens before the task), or every path reaches
    /// it only through a wait for the task's end (it happens after it).
    pub stmts: Vec<bool>,
    /// Helper methods the starting method calls to wait for the task
    /// (`job.await()` looping on `wait()`): the call site, the helper's
    /// context and its statements after the wait.
    pub helpers: Vec<(StmtId, MethodContext, Vec<bool>)>,
}

/// The statements of the starting method (and of the helpers it waits
/// in) that are ordered with a thread start.
pub fn ordered_statements(
    program: &Program,
    pt: &PointsToResult,
    start: &ThreadStart,
    body: &Body,
) -> Ordered {
    if body.block_of.get(start.site.index()).is_none() {
        return Ordered {
            stmts: vec![false; body.stmts.len()],
            helpers: Vec::new(),
        };
    }
    let mut ordered = before(body, start.site);
    let site = StartSite {
        program,
        pt,
        start,
        body,
    };
    let mut helpers = Vec::new();
    for wait in site.waits(&mut helpers) {
        mark_after(body, wait, &mut ordered);
    }
    Ordered {
        stmts: ordered,
        helpers,
    }
}

/// Per statement of `body`: it cannot run after the call at `site` (it
/// happens before whatever that call does).
pub fn before(body: &Body, site: StmtId) -> Vec<bool> {
    let Some(&block) = body.block_of.get(site.index()) else {
        return vec![false; body.stmts.len()];
    };
    reach_from(body, block.index(), site)
        .into_iter()
        .map(|after| !after)
        .collect()
}

/// Marks the statements every path reaches only through `wait`.
fn mark_after(body: &Body, wait: StmtId, ordered: &mut [bool]) {
    let before = reach_avoiding(body, wait);
    for (i, o) in ordered.iter_mut().enumerate() {
        if !before[i] && i != wait.index() {
            *o = true;
        }
    }
}

impl StartSite<'_> {
    /// The statements after which the task has ended; the helpers waited
    /// in are added to `helpers`.
    fn waits(&self, helpers: &mut Vec<(StmtId, MethodContext, Vec<bool>)>) -> Vec<StmtId> {
        let mut out = Vec::new();
        for (i, s) in self.body.stmts.iter().enumerate() {
            let StmtKind::Invoke { call, .. } = &s.kind else {
                continue;
            };
            let at = StmtId(i as u32);
            let waits = match self.handoff_of(call) {
                Some(h) => self.waits_for_task(self.start.caller, self.body, at, call, h),
                None => self.helper_joins_task(at, call) || self.helper_waits(at, helpers),
            };
            if waits {
                out.push(at);
            }
        }
        out
    }

    /// The hand-off a call makes: an ordering call, or a monitor's
    /// `wait`/`notify`.
    fn handoff_of(&self, call: &Call) -> Option<HandOff> {
        let m = &call.method;
        let subtype = |a: &str, b: &str| self.program.is_subtype_name(a, b);
        if let Some(e) =
            lockstep_models::ordering_effect_via(&m.class, &m.name, &m.descriptor, &subtype)
        {
            return Some(lockstep_models::handoff(e));
        }
        lockstep_program::call_effect(self.program, m).and_then(lockstep_models::monitor_handoff)
    }

    /// Does the hand-off call at `at` of `body` (in `mc`) wait for the end
    /// of this start's task?
    fn waits_for_task(
        &self,
        mc: MethodContext,
        body: &Body,
        at: StmtId,
        call: &Call,
        h: HandOff,
    ) -> bool {
        if !matches!(h.side, Side::Acquire | Side::Both) {
            return false;
        }
        let local = mc == self.start.caller;
        let receiver = call.receiver.as_ref().and_then(|r| r.var());
        let released =
            |v: VarId| singleton_in(self.pt, mc, v).is_some_and(|o| self.task_releases_last(o));
        match h.subject {
            Subject::Thread => {
                receiver.is_some_and(|v| singleton_in(self.pt, mc, v) == Some(self.start.task))
            }
            // These name the launch's own statement: only in the starting method.
            Subject::Future => local && receiver.is_some_and(|v| self.is_launch_result(v)),
            Subject::Executor => local && receiver.is_some_and(|v| self.is_launch_executor(v)),
            Subject::OwnTasks => local && at == self.start.site,
            Subject::Latch => receiver.is_some_and(released),
            // A `wait` counts only in a loop (on the flag the task sets).
            Subject::Monitor => {
                let looped = body
                    .block_of
                    .get(at.index())
                    .is_some_and(|b| loop_of(body, b.index()).iter().any(|&x| x));
                looped && receiver.is_some_and(released)
            }
            // A queue orders accesses of the object it carries, not a
            // task's end (`crate::queue_handoff`); a semaphore orders nothing.
            Subject::Channel => false,
        }
    }

    /// Is `v` the future of the launching call (defined only there), or a
    /// `CompletionStage` derived from it (`thenApply`, ...: each stage
    /// completes after the one it is called on)?
    fn is_launch_result(&self, v: VarId) -> bool {
        let mut v = v;
        for _ in 0..MAX_STAGES {
            let Some(def) = self.body.unique_def.get(v.index()).copied().flatten() else {
                return false;
            };
            if def == self.start.site {
                return true;
            }
            let Some(StmtKind::Invoke { call, .. }) =
                self.body.stmts.get(def.index()).map(|s| &s.kind)
            else {
                return false;
            };
            let stage = self
                .program
                .is_subtype_name(&call.method.class, COMPLETION_STAGE);
            match call.receiver.as_ref().and_then(|r| r.var()) {
                Some(w) if stage => v = w,
                _ => return false,
            }
        }
        false
    }

    /// Is `v` the executor the task was submitted to?
    fn is_launch_executor(&self, v: VarId) -> bool {
        let Some(StmtKind::Invoke { call, .. }) = self
            .body
            .stmts
            .get(self.start.site.index())
            .map(|s| &s.kind)
        else {
            return false;
        };
        let Some(exec) = call.receiver.as_ref().and_then(|r| r.var()) else {
            return false;
        };
        // The same local, assigned once: points-to merges the executors
        // a JDK factory makes (`Executors.newFixedThreadPool`), so one
        // abstract executor can stand for several.
        exec == v
            && self
                .body
                .unique_def
                .get(v.index())
                .copied()
                .flatten()
                .is_some()
    }

    /// Does every entry of the task end by releasing `latch` (a
    /// `countDown` or barrier `await` on it on every path to a normal
    /// return, with no store or call after it)?
    fn task_releases_last(&self, latch: ObjectId) -> bool {
        let mut entries = Vec::new();
        for mc in self.pt.thread_entries(self.start) {
            self.application_entries(mc, MAX_RELEASE_DEPTH, &mut entries);
        }
        !entries.is_empty() && entries.iter().all(|&mc| self.releases_last(mc, latch))
    }

    /// The application code a task entry runs: the entry itself, or for
    /// a JDK entry (`Thread.run` calling its target) the application
    /// methods it calls, through at most `depth` JDK frames.
    fn application_entries(&self, mc: MethodContext, depth: u32, out: &mut Vec<MethodContext>) {
        if self
            .program
            .is_application(self.program.method(mc.method).class)
        {
            out.push(mc);
            return;
        }
        if depth == 0 {
            return;
        }
        for e in self.pt.context_callees(mc) {
            if e.kind != EdgeKind::TaskLaunch && !out.contains(&e.callee) {
                self.application_entries(e.callee, depth - 1, out);
            }
        }
    }

    /// Does the method context end by releasing `latch`: a release on it,
    /// or a call of methods that all do, on every path to a normal return
    /// with no store or call after it?
    fn releases_last(&self, mc: MethodContext, latch: ObjectId) -> bool {
        self.releases_last_within(mc, latch, MAX_RELEASE_DEPTH)
    }

    fn releases_last_within(&self, mc: MethodContext, latch: ObjectId, depth: u32) -> bool {
        let Some(body) = self.program.body(mc.method) else {
            return false;
        };
        body.stmts.iter().enumerate().any(|(i, s)| {
            let StmtKind::Invoke { call, .. } = &s.kind else {
                return false;
            };
            let at = StmtId(i as u32);
            let last = || {
                every_return_after(&body, at)
                    && nothing_after(&body, at, |c| self.touches_no_shared_memory(c))
            };
            if self.is_release_on(mc, call, latch) {
                return last();
            }
            let callees: Vec<MethodContext> = self
                .pt
                .context_callees(mc)
                .iter()
                .filter(|e| e.site == at)
                .map(|e| e.callee)
                .collect();
            depth > 0
                && !callees.is_empty()
                && last()
                && callees
                    .iter()
                    .all(|&c| self.releases_last_within(c, latch, depth - 1))
        })
    }

    /// Is `call` a JDK call that changes nothing another thread reads
    /// (`lockstep_models::touches_no_shared_memory_via`): what a task's
    /// `catch` around its last `await()` does (wrapping the exception,
    /// restoring the interrupt status), or boxing its result?
    fn touches_no_shared_memory(&self, call: &Call) -> bool {
        let class = &*call.method.class;
        let jdk = self
            .program
            .class_by_name(class)
            .is_some_and(|c| !self.program.is_application(c));
        jdk && lockstep_models::touches_no_shared_memory_via(class, &call.method.name, &|a, b| {
            self.program.is_subtype_name(a, b)
        })
    }

    /// Is `call` (in `mc`) a release of `latch` (`countDown`, `arrive`, a
    /// barrier's `await`, a monitor's `notify`)?
    fn is_release_on(&self, mc: MethodContext, call: &Call, latch: ObjectId) -> bool {
        let releases = self.handoff_of(call).is_some_and(|h| {
            matches!(h.subject, Subject::Latch | Subject::Monitor) && h.side != Side::Acquire
        });
        releases
            && call
                .receiver
                .as_ref()
                .and_then(|r| r.var())
                .is_some_and(|v| singleton_in(self.pt, mc, v) == Some(latch))
    }

    /// Is the call at `at` a call of helper methods (application code) that
    /// each wait for the task on every path to a normal return? Records
    /// each helper's statements after its wait.
    fn helper_waits(
        &self,
        at: StmtId,
        helpers: &mut Vec<(StmtId, MethodContext, Vec<bool>)>,
    ) -> bool {
        let callees: Vec<MethodContext> = self
            .pt
            .context_callees(self.start.caller)
            .iter()
            .filter(|e| e.site == at && e.kind != EdgeKind::TaskLaunch)
            .map(|e| e.callee)
            .collect();
        let mut found = Vec::new();
        for &mc in &callees {
            if !self
                .program
                .is_application(self.program.method(mc.method).class)
            {
                return false;
            }
            let Some(body) = self.program.body(mc.method) else {
                return false;
            };
            let Some(wait) = self.wait_in(mc, &body) else {
                return false;
            };
            let mut after = vec![false; body.stmts.len()];
            mark_after(&body, wait, &mut after);
            found.push((at, mc, after));
        }
        let waits = !found.is_empty();
        helpers.extend(found);
        waits
    }

    /// A hand-off in `body` (in `mc`) that waits for the task and that
    /// every normal return comes after.
    fn wait_in(&self, mc: MethodContext, body: &Body) -> Option<StmtId> {
        body.stmts.iter().enumerate().find_map(|(i, s)| {
            let StmtKind::Invoke { call, .. } = &s.kind else {
                return None;
            };
            let at = StmtId(i as u32);
            let h = self.handoff_of(call)?;
            (self.waits_for_task(mc, body, at, call, h) && every_return_after(body, at))
                .then_some(at)
        })
    }

    /// Is the call at `at` a call of helper methods that each join the
    /// argument that denotes the task (`joinQuietly(t)`)?
    fn helper_joins_task(&self, at: StmtId, call: &Call) -> bool {
        let Some(k) = call.args.iter().position(|a| {
            a.var().is_some_and(|v| {
                singleton_in(self.pt, self.start.caller, v) == Some(self.start.task)
            })
        }) else {
            return false;
        };
        let callees = self
            .pt
            .call_graph()
            .callees_at(self.start.caller.method, at);
        !callees.is_empty() && callees.iter().all(|e| self.joins_param(e.callee, k))
    }

    /// Does `m` join its `k`-th declared parameter before every normal return?
    fn joins_param(&self, m: MethodId, k: usize) -> bool {
        let Some(body) = self.program.body(m) else {
            return false;
        };
        let Some(&param) = body.params.get(k + usize::from(!body.is_static)) else {
            return false;
        };
        let reassigned = body
            .stmts
            .iter()
            .any(|s| matches!(&s.kind, StmtKind::Assign { dst, .. } if *dst == param));
        if reassigned {
            return false;
        }
        body.stmts.iter().enumerate().any(|(i, s)| {
            let StmtKind::Invoke { call, .. } = &s.kind else {
                return false;
            };
            let joins = self
                .handoff_of(call)
                .is_some_and(|h| h.subject == Subject::Thread && h.side == Side::Acquire);
            let on_param = call.receiver.as_ref().and_then(|r| r.var()) == Some(param);
            joins && on_param && every_return_after(&body, StmtId(i as u32))
        })
    }
}

/// The one object `v` may point to in `mc`, unless it is one of the JDK's
/// merged internal objects (one per type: it stands for many run-time
/// objects).
fn singleton_in(pt: &PointsToResult, mc: MethodContext, v: VarId) -> Option<ObjectId> {
    let set = pt.var_in(mc.method, mc.context, v);
    let mut it = set.iter();
    let (Some(o), None) = (it.next(), it.next()) else {
        return None;
    };
    let merged = pt
        .object(o)
        .is_some_and(|i| matches!(i.site, SiteKey::Library(_)));
    (!merged).then_some(o)
}

/// Is every normal return of `body` reached only through `at`?
fn every_return_after(body: &Body, at: StmtId) -> bool {
    let before = reach_avoiding(body, at);
    !body
        .stmts
        .iter()
        .enumerate()
        .any(|(i, s)| before[i] && matches!(s.kind, StmtKind::Return(_)))
}

/// Does nothing after `at` store to memory or call out (so whatever the
/// method does, it does before `at`)? Calls `harmless` accepts (JDK calls
/// that change nothing another thread reads) do not count.
fn nothing_after(body: &Body, at: StmtId, harmless: impl Fn(&Call) -> bool) -> bool {
    let Some(&b) = body.block_of.get(at.index()) else {
        return false;
    };
    let after = reach_from(body, b.index(), StmtId(at.0.saturating_add(1)));
    body.stmts.iter().enumerate().all(|(i, s)| {
        !after[i]
            || match &s.kind {
                StmtKind::Invoke { call, .. } => harmless(call),
                StmtKind::InvokeDynamic { .. }
                | StmtKind::FieldStore { .. }
                | StmtKind::StaticStore { .. }
                | StmtKind::ArrayStore { .. } => false,
                _ => true,
            }
    })
}

/// Statements reachable from `from` (inclusive) in block `b`.
fn reach_from(body: &Body, b: usize, from: StmtId) -> Vec<bool> {
    let n = body.stmts.len();
    let mut out = vec![false; n];
    let mut seen = vec![false; body.blocks.len()];
    let mut stack = Vec::new();
    if let Some(block) = body.blocks.get(b) {
        for s in block.stmt_ids().filter(|s| s.0 >= from.0) {
            if let Some(o) = out.get_mut(s.index()) {
                *o = true;
            }
        }
        stack.extend(successors(body, b));
    }
    while let Some(x) = stack.pop() {
        if x >= seen.len() || seen[x] {
            continue;
        }
        seen[x] = true;
        for s in body.blocks[x].stmt_ids() {
            if let Some(o) = out.get_mut(s.index()) {
                *o = true;
            }
        }
        stack.extend(successors(body, x));
    }
    out
}

/// The blocks on a cycle through block `b` (empty when `b` is on none).
fn loop_of(body: &Body, b: usize) -> Vec<bool> {
    let n = body.blocks.len();
    let mut forward = vec![false; n];
    let mut stack = successors(body, b);
    while let Some(x) = stack.pop() {
        if x < n && !forward[x] {
            forward[x] = true;
            stack.extend(successors(body, x));
        }
    }
    if !forward.get(b).copied().unwrap_or(false) {
        return vec![false; n];
    }
    let mut backward = vec![false; n];
    let mut stack = vec![b];
    while let Some(x) = stack.pop() {
        if x < n && !backward[x] {
            backward[x] = true;
            stack.extend(body.blocks[x].preds.iter().map(|p| p.index()));
        }
    }
    (0..n).map(|i| forward[i] && backward[i]).collect()
}

/// Statements reachable from the method entry without executing `avoid`.
/// When `avoid` is in a loop, the loop is taken to run it on every
/// iteration: a path leaves the loop only through it. A throw by `avoid`
/// itself is not a path past it.
fn reach_avoiding(body: &Body, avoid: StmtId) -> Vec<bool> {
    let n = body.stmts.len();
    let mut out = vec![false; n];
    let Some(&ab) = body.block_of.get(avoid.index()) else {
        return vec![true; n];
    };
    let in_loop = loop_of(body, ab.index());
    let mut seen = vec![false; body.blocks.len()];
    let mut stack = vec![0usize];
    while let Some(x) = stack.pop() {
        if x >= seen.len() || seen[x] {
            continue;
        }
        seen[x] = true;
        let block = &body.blocks[x];
        let mut stopped = false;
        let mut may_throw = false;
        for s in block.stmt_ids() {
            if x == ab.index() && s == avoid {
                stopped = true;
                break;
            }
            if let Some(o) = out.get_mut(s.index()) {
                *o = true;
            }
            may_throw |= body.stmts.get(s.index()).is_some_and(|st| throws(&st.kind));
        }
        let next: Vec<usize> = if stopped {
            // Exceptions thrown before the wait leave the block too.
            let handlers = block.exceptional.iter().map(|e| e.handler.index());
            handlers.filter(|_| may_throw).collect()
        } else {
            successors(body, x)
        };
        let leaves_loop = |y: &usize| in_loop[x] && !in_loop.get(*y).copied().unwrap_or(false);
        stack.extend(next.into_iter().filter(|y| !leaves_loop(y)));
    }
    out
}

/// Statements that may throw, for the exceptional edges of a block cut
/// short by a wait.
fn throws(kind: &StmtKind) -> bool {
    matches!(
        kind,
        StmtKind::Invoke { .. }
            | StmtKind::InvokeDynamic { .. }
            | StmtKind::FieldStore { .. }
            | StmtKind::ArrayStore { .. }
            | StmtKind::StaticStore { .. }
            | StmtKind::MonitorEnter(_)
            | StmtKind::Throw(_)
    )
}
