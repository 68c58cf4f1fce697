//! `wait-notify` and `blocking-under-lock`: misuse of monitors and
//! conditions, and threads that block while holding a lock.
//!
//! Reads the monitor operations and blocking calls of the lock-order facts
//! (`lockstep_facts::lock_order`), aggregated per statement over its
//! method contexts:
//!
//! - `wait`/`notify` where no lock at all can be held, on any path into
//!   any context (it throws `IllegalMonitorStateException`);
//! - `wait`/`await` while holding a second lock (nested monitor lock-out:
//!   `wait` releases only its own lock, so the notifier blocks on the other);
//! - an untimed `wait`/`await` that is on no loop of its method, nor
//!   (in some context) on a loop of every caller of that context (a
//!   spurious or stolen wake-up goes on with the condition false); the
//!   program's own `Condition` implementations are code, not waits;
//! - `notify()` on an object whose waiters wait in different methods
//!   (different conditions, approximated): `notifyAll()` is needed;
//! - an untimed `wait` on an object nothing ever notifies, and a `notify`
//!   on an object nothing waits on (lost wake-up) unless a method of its
//!   class waits on the same `this`- or static-rooted path (a waiter the
//!   analysis did not reach or resolved elsewhere);
//! - under `blocking-under-lock` (severity note): a blocking JDK call
//!   (`lockstep_models::blocking`) made while holding a lock.

use std::collections::{BTreeMap, BTreeSet};

use lockstep_facts::lock_order::{BlockingCall, MonitorOp, MonitorOpKind};
use lockstep_facts::locks;
use lockstep_ir::{AccessPath, Body, Operand, StmtId, StmtKind};
use lockstep_pointsto::{ObjectId, PointsToResult};
use lockstep_program::{MethodId, Program};
use lockstep_report::{Finding, Severity};

use crate::util::{location, short_method};
use crate::{Context, Detector, Needs, Output, RuleId, RuleMeta};

pub static RULE: RuleMeta = RuleMeta {
    id: RuleId::WaitNotify,
    name: "WaitNotify",
    summary: "wait/notify misuse: monitor not held, wait outside a loop or under a second lock, notify instead of notifyAll, lost wake-ups",
    // On: every one of its 21 findings on nine real programs was read,
    // 20 true (6 defects, 14 benign), `docs/deadlock-sample.md`.
    default_enabled: true,
    docs: include_str!("docs.md"),
};

pub static BLOCKING_RULE: RuleMeta = RuleMeta {
    id: RuleId::BlockingUnderLock,
    name: "BlockingUnderLock",
    summary:
        "a thread sleeps, joins, waits for a future or queue, or does I/O while holding a lock",
    // On: a random sample of 20 of its 23 findings on six real programs
    // was 20 real (`docs/deadlock-sample.md`).
    default_enabled: true,
    docs: include_str!("blocking_docs.md"),
};

/// The detector.
pub struct WaitNotify;

impl Detector for WaitNotify {
    fn rules(&self) -> &'static [RuleId] {
        &[RuleId::BlockingUnderLock, RuleId::WaitNotify]
    }

    fn needs(&self) -> Needs {
        Needs::LockOrder
    }

    fn run(&self, cx: &Context<'_>) -> Output {
        let order = cx.facts.lock_order();
        let j = Judge {
            program: cx.program,
            pt: cx.facts.points_to(),
        };
        let mut findings = Vec::new();
        if cx.is_enabled(RuleId::WaitNotify) {
            findings.extend(j.monitor_findings(&order.monitor_ops));
        }
        if cx.is_enabled(RuleId::BlockingUnderLock) {
            findings.extend(j.blocking_findings(&order.blocking));
        }
        findings.into()
    }
}

/// The operations of one statement, over its contexts.
type PerStmt<'a, T> = BTreeMap<(MethodId, StmtId), Vec<&'a T>>;

fn per_stmt<T>(items: &[T], site: impl Fn(&T) -> (MethodId, Option<StmtId>)) -> PerStmt<'_, T> {
    let mut out: PerStmt<'_, T> = BTreeMap::new();
    for x in items {
        let (m, s) = site(x);
        out.entry((m, s.unwrap_or(StmtId(0)))).or_default().push(x);
    }
    out
}

struct Judge<'a> {
    program: &'a Program,
    pt: &'a PointsToResult,
}

/// Is the receiver's monitor held at this operation (in this context)?
fn receiver_held(op: &MonitorOp) -> bool {
    op.held_by_name
        || op
            .lock
            .as_ref()
            .is_some_and(|l| op.held.iter().any(|h| h.object == l.object))
}

/// The locks held besides the receiver's.
fn other_locks(op: &MonitorOp) -> Vec<&locks::HeldLock> {
    match &op.lock {
        Some(l) if op.kind.on_monitor() => {
            op.held.iter().filter(|h| h.object != l.object).collect()
        }
        // A condition's lock, or a receiver naming several objects: one of
        // the held locks is its own.
        _ => op.held.iter().skip(1).collect(),
    }
}

impl Judge<'_> {
    fn finding(&self, rule: RuleId, sev: Severity, m: MethodId, s: StmtId, msg: String) -> Finding {
        Finding::new(rule, sev, msg, location(self.program, m, Some(s)))
    }

    fn op_name(&self, op: &MonitorOp) -> &'static str {
        if self.waits_on_argument(op) {
            return "TimeUnit.timedWait()";
        }
        match op.kind {
            MonitorOpKind::Wait { .. } => "wait()",
            MonitorOpKind::Notify => "notify()",
            MonitorOpKind::NotifyAll => "notifyAll()",
            MonitorOpKind::Await { .. } => "await()",
            MonitorOpKind::Signal => "signal()",
            MonitorOpKind::SignalAll => "signalAll()",
        }
    }

    /// The operation is a JDK call that waits on its argument's monitor
    /// (`TimeUnit.timedWait(obj, t)`), not on a receiver's.
    fn waits_on_argument(&self, op: &MonitorOp) -> bool {
        let Some(s) = op.site.stmt else {
            return false;
        };
        let Some(body) = self.program.body(op.site.method) else {
            return false;
        };
        let Some(StmtKind::Invoke { call, .. }) = body.stmts.get(s.index()).map(|st| &st.kind)
        else {
            return false;
        };
        let m = &call.method;
        lockstep_models::monitor_wait_argument(&m.class, &m.name, &m.descriptor).is_some()
    }

    /// What the operation locks, as the messages name it.
    fn monitor_owner(&self, op: &MonitorOp) -> &'static str {
        if self.waits_on_argument(op) {
            "its argument's"
        } else {
            "the receiver's"
        }
    }

    fn monitor_findings(&self, ops: &[MonitorOp]) -> Vec<Finding> {
        let p = self.program;
        let by_stmt = per_stmt(ops, |o| (o.site.method, o.site.stmt));
        let objects_of = |pred: &dyn Fn(MonitorOpKind) -> bool| -> BTreeSet<ObjectId> {
            ops.iter()
                .filter(|o| pred(o.kind))
                .flat_map(|o| o.objects.iter().copied())
                .collect()
        };
        let notified =
            objects_of(&|k| matches!(k, MonitorOpKind::Notify | MonitorOpKind::NotifyAll));
        let waited = objects_of(&|k| matches!(k, MonitorOpKind::Wait { .. }));
        // Per object: the methods that wait on it.
        let mut waiters: BTreeMap<ObjectId, BTreeSet<MethodId>> = BTreeMap::new();
        for o in ops
            .iter()
            .filter(|o| matches!(o.kind, MonitorOpKind::Wait { .. }))
        {
            for &obj in &o.objects {
                waiters.entry(obj).or_default().insert(o.site.method);
            }
        }
        let mut out = Vec::new();
        let rule = RuleId::WaitNotify;
        for (&(m, s), contexts) in &by_stmt {
            let op = contexts[0];
            let name = self.op_name(op);
            let owner = self.monitor_owner(op);
            let method = short_method(p, m);
            let objects: BTreeSet<ObjectId> = contexts
                .iter()
                .flat_map(|o| o.objects.iter().copied())
                .collect();
            let unheld = op.kind.on_monitor()
                && contexts
                    .iter()
                    .all(|o| !receiver_held(o) && !o.maybe_locked);
            if unheld {
                out.push(
                    self.finding(rule, Severity::Error, m, s, format!(
                        "{name} in {method} without holding {owner} monitor: it throws IllegalMonitorStateException"
                    ))
                    .with_help("call it inside `synchronized` on the same object"),
                );
                continue;
            }
            if op.kind.is_wait() {
                if let Some(o) = contexts.iter().find(|o| !other_locks(o).is_empty()) {
                    let others: Vec<String> = other_locks(o)
                        .iter()
                        .map(|h| crate::util::lock_text(p, self.pt, h))
                        .collect();
                    out.push(
                        self.finding(rule, Severity::Warning, m, s, format!(
                            "{name} in {method} while holding another lock ({}): waiting releases only {owner} lock, so a thread that must take the other lock to notify blocks (nested monitor lock-out)",
                            others.join(", ")
                        ))
                        .with_help("release the other lock before waiting, or wait and notify on the outer lock"),
                    );
                }
                let untimed = matches!(
                    op.kind,
                    MonitorOpKind::Wait { timed: false } | MonitorOpKind::Await { timed: false }
                );
                if untimed && contexts.iter().any(|o| !o.in_loop) {
                    out.push(
                        self.finding(rule, Severity::Warning, m, s, format!(
                            "{name} in {method} is not in a loop that re-checks its condition: a spurious wake-up, or another thread taking the state first, lets it go on with the condition false"
                        ))
                        .with_help("wait in `while (!condition) wait();`"),
                    );
                }
                if untimed
                    && op.kind.on_monitor()
                    && !objects.is_empty()
                    && objects.iter().all(|o| !notified.contains(o))
                {
                    out.push(self.finding(rule, Severity::Warning, m, s, format!(
                        "{name} in {method} on an object that no notify()/notifyAll() of the program reaches: the thread may wait forever (lost wake-up)"
                    )));
                }
            } else if op.kind.on_monitor() && !objects.is_empty() {
                if objects.iter().all(|o| !waited.contains(o)) && !self.named_waiter(m, s) {
                    out.push(self.finding(rule, Severity::Note, m, s, format!(
                        "{name} in {method} on an object no wait() of the program waits on: the wake-up is lost, or the waiter is elsewhere"
                    )));
                    continue;
                }
                if op.kind == MonitorOpKind::Notify {
                    let methods: BTreeSet<MethodId> = objects
                        .iter()
                        .filter_map(|o| waiters.get(o))
                        .flatten()
                        .copied()
                        .collect();
                    if methods.len() >= 2 {
                        let names: Vec<String> =
                            methods.iter().map(|&w| short_method(p, w)).collect();
                        out.push(
                            self.finding(rule, Severity::Warning, m, s, format!(
                                "notify() in {method} wakes one waiter, but threads wait on this object for different conditions (in {}): the woken one may not be the one that can proceed",
                                names.join(", ")
                            ))
                            .with_help("use notifyAll(), or one Condition per waiting condition"),
                        );
                    }
                }
            }
        }
        out
    }

    /// Does a method of the notifying method's class wait on the object
    /// the notify names, by the same `this`-, field- or static-rooted
    /// path, reached or not? Then the waiter exists and only the
    /// analysis lost it: its method is unreached (a closed program's
    /// `main` does not call it) or its receiver resolves elsewhere
    /// (h2's `Transaction.waitForThisToEnd`, found on another
    /// transaction of the array it is read from).
    fn named_waiter(&self, m: MethodId, s: StmtId) -> bool {
        let p = self.program;
        let Some(path) = p.body(m).and_then(|b| receiver_path(&b, s)) else {
            return false;
        };
        p.class(p.method(m).class).methods.iter().any(|&x| {
            p.body(x).is_some_and(|b| {
                (0..b.stmts.len()).any(|i| {
                    let s = StmtId(i as u32);
                    is_wait_call(&b, s) && receiver_path(&b, s).as_ref() == Some(&path)
                })
            })
        })
    }

    fn blocking_findings(&self, calls: &[BlockingCall]) -> Vec<Finding> {
        let p = self.program;
        let mut out = Vec::new();
        for (&(m, s), contexts) in &per_stmt(calls, |c| (c.site.method, c.site.stmt)) {
            let c = contexts[0];
            let held: Vec<String> = c
                .held
                .iter()
                .map(|h| crate::util::lock_text(p, self.pt, h))
                .collect();
            out.push(
                self.finding(
                    RuleId::BlockingUnderLock,
                    Severity::Note,
                    m,
                    s,
                    format!(
                        "{} in {} while holding {}: every thread that needs the lock waits as long",
                        c.kind.as_str(),
                        short_method(p, m),
                        held.join(", ")
                    ),
                )
                .with_help("do the blocking call after releasing the lock"),
            );
        }
        out
    }
}

/// The receiver of the call at `s`, when a path rooted at `this` or a
/// static field names it (a local or parameter names nothing that
/// another method could name the same way).
fn receiver_path(body: &Body, s: StmtId) -> Option<AccessPath> {
    let StmtKind::Invoke { call, .. } = &body.stmts.get(s.index())?.kind else {
        return None;
    };
    let Some(Operand::Var(v)) = call.receiver.as_ref() else {
        return None;
    };
    let path = lockstep_ir::access_path(body, *v);
    rooted_in_object(&path).then_some(path)
}

fn rooted_in_object(path: &AccessPath) -> bool {
    match path {
        AccessPath::This | AccessPath::Static(..) => true,
        AccessPath::Field(base, _) | AccessPath::OuterThis(base, _) => rooted_in_object(base),
        _ => false,
    }
}

/// Is the statement a call of `Object.wait` (any overload)?
fn is_wait_call(body: &Body, s: StmtId) -> bool {
    matches!(
        body.stmts.get(s.index()).map(|st| &st.kind),
        Some(StmtKind::Invoke { call, .. })
            if &*call.method.name == "wait" && matches!(&*call.method.descriptor, "()V" | "(J)V" | "(JI)V")
    )
}
