//! Runs the atomicity checkers over the log at the end of a trace and turns
//! what they find into `non-atomic-method` findings with provenance `run`:
//! the transaction (class, method, thread), the checker that found it, and
//! the events that break it step by step with source lines — the commit
//! point and the offending event with another thread's conflicting access
//! (reduction), the two blocks and the feasible non-serializable
//! interleaving (block-based), the transactions and conflicting events of a
//! cycle (multi-transaction, conflict serializability).

use lockstep_report::{Confidence, Finding, Location, Severity};
use lockstep_trace::Tables;

use crate::atomic_log::{AtomicLog, LogKind};
use crate::findings::{object_name, site_location, thread_name, View};
use crate::race::VarKind;
use crate::reduction::Variant;
use crate::transactions::{split, transaction_methods, AtomicSpec, Txn};

/// The rule id, shared with the static checker.
pub const RULE: &str = "non-atomic-method";

/// Everything a message needs.
struct Ctx<'a> {
    log: &'a AtomicLog,
    txns: &'a [Txn],
    view: &'a View<'a>,
}

impl Ctx<'_> {
    fn tables(&self) -> &Tables {
        self.view.tables
    }

    fn method(&self, txn: usize) -> String {
        let Some(t) = self.txns.get(txn) else {
            return "?".into();
        };
        match t.method.and_then(|m| self.tables().methods.get(&m)) {
            Some(m) => format!("{}.{}", m.class.replace('/', "."), m.name),
            None => "code outside any transaction".into(),
        }
    }

    fn txn_text(&self, txn: usize) -> String {
        let thread = self.txns.get(txn).map_or(0, |t| t.thread);
        format!(
            "`{}` in thread {}",
            self.method(txn),
            thread_name(self.view, thread)
        )
    }

    fn variable(&self, var: crate::race::VarId) -> String {
        let Some(s) = self.log.vars.get(var as usize).and_then(Option::as_ref) else {
            return format!("variable {var}");
        };
        let tables = self.tables();
        match s.var.kind() {
            VarKind::Field(f) => match tables.fields.get(&f) {
                Some(fd) => format!("`{}.{}`", fd.class.replace('/', "."), fd.name),
                None => format!("field {f}"),
            },
            VarKind::Element(i) => format!("element [{i}] of {}", object_name(tables, s.var.obj)),
            VarKind::Container => format!("the contents of {}", object_name(tables, s.var.obj)),
        }
    }

    /// `read of `p.C.f`` and the like.
    fn event_text(&self, i: u32) -> String {
        let Some(e) = self.log.events.get(i as usize) else {
            return "?".into();
        };
        let what = match e.kind {
            LogKind::Access { var, write, .. } => {
                format!(
                    "{} {}",
                    if write { "write of" } else { "read of" },
                    self.variable(var)
                )
            }
            LogKind::Acquire(l) => format!("acquire of {}", object_name(self.tables(), l)),
            LogKind::Release(l) => format!("release of {}", object_name(self.tables(), l)),
            LogKind::Enter(_) | LogKind::Exit(_) => "method boundary".into(),
        };
        let locks: Vec<String> = self
            .log
            .locks_of(e.held)
            .map(|l| object_name(self.tables(), l))
            .collect();
        if locks.is_empty() {
            format!("{what}, holding no lock")
        } else {
            format!("{what}, holding {}", locks.join(", "))
        }
    }

    fn location(&self, i: u32) -> Location {
        let site = self.log.events.get(i as usize).map_or(0, |e| e.site);
        site_location(self.tables(), site)
    }

    /// The transaction an event belongs to.
    fn txn_of(&self, i: u32, of_event: &[u32]) -> usize {
        of_event.get(i as usize).copied().unwrap_or(u32::MAX) as usize
    }

    /// The latest conflicting access of another thread to the variable of
    /// access `i` (before it if any, else after).
    fn interfering(&self, i: u32) -> Option<u32> {
        let e = self.log.events.get(i as usize)?;
        let (var, write) = e.access()?;
        let conflicts = |j: &usize| {
            let o = &self.log.events[*j];
            o.thread != e.thread && o.access().is_some_and(|(v, w)| v == var && (w || write))
        };
        let n = self.log.events.len();
        (0..i as usize)
            .rev()
            .find(conflicts)
            .or_else(|| (i as usize + 1..n).find(conflicts))
            .map(|j| j as u32)
    }
}

/// Which atomicity checker found a violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicChecker {
    /// Reduction, on-line classification.
    ReductionOnline,
    /// Reduction, off-line classification.
    ReductionOffline,
    /// Blocks, pairwise.
    Blocks,
    /// Blocks, multi-transaction condition.
    BlocksMulti,
    /// Conflict serializability.
    Serializability,
}

impl AtomicChecker {
    /// The name in findings and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            AtomicChecker::ReductionOnline => "reduction-online",
            AtomicChecker::ReductionOffline => "reduction-offline",
            AtomicChecker::Blocks => "block-based",
            AtomicChecker::BlocksMulti => "block-based (multi-transaction)",
            AtomicChecker::Serializability => "conflict-serializability",
        }
    }
}

/// A finding's skeleton: the transaction, what is wrong, and the steps.
struct Report {
    checker: AtomicChecker,
    txn: usize,
    what: String,
    steps: Vec<(u32, String)>,
    notes: Vec<String>,
}

fn finding(ctx: &Ctx, r: Report) -> Finding {
    let first_own = r
        .steps
        .iter()
        .find(|(i, _)| ctx.log.events.get(*i as usize).is_some_and(|e| e.site != 0))
        .map_or(0, |s| s.0);
    let message = format!(
        "method `{}` was not atomic in this run ({}): {}",
        ctx.method(r.txn),
        r.checker.name(),
        r.what
    );
    let confidence = match r.checker {
        AtomicChecker::Serializability => Confidence::High,
        _ => Confidence::Medium,
    };
    let mut f = Finding::new(RULE, Severity::Warning, message, ctx.location(first_own))
        .with_provenance("run")
        .with_confidence(confidence);
    for (k, (i, label)) in r.steps.iter().enumerate() {
        f = f.with_related(
            ctx.location(*i),
            format!("step {}: {label}: {}", k + 1, ctx.event_text(*i)),
        );
    }
    f = f.with_note(format!("transaction: {}", ctx.txn_text(r.txn)));
    for n in r.notes {
        f = f.with_note(n);
    }
    f.with_note(format!("found by: {}", r.checker.name()))
}

fn reduction_reports(ctx: &Ctx, variant: Variant, of_event: &[u32]) -> Vec<Report> {
    let checker = match variant {
        Variant::Online => AtomicChecker::ReductionOnline,
        Variant::Offline => AtomicChecker::ReductionOffline,
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (t, txn) in ctx.txns.iter().enumerate() {
        if txn.method.is_none() || seen.contains(&txn.method) {
            continue;
        }
        let Some(bad) = crate::reduction::check(txn, ctx.log, variant) else {
            continue;
        };
        seen.insert(txn.method);
        let mut steps = vec![
            (
                bad.commit,
                "commit point (a non-mover or a release)".to_string(),
            ),
            (
                bad.breaking,
                "then a non-mover or an acquire, which cannot move".to_string(),
            ),
        ];
        let mut notes = vec![format!(
            "its events do not match R* N? L* ({} classification: acquire R, release L, race-free access B, other N)",
            match variant {
                Variant::Online => "on-line",
                Variant::Offline => "off-line",
            }
        )];
        for i in [bad.commit, bad.breaking] {
            if let Some(j) = ctx.interfering(i) {
                let other = ctx.txn_of(j, of_event);
                steps.push((j, format!("conflicting access of {}", ctx.txn_text(other))));
                break;
            }
        }
        if steps.len() == 2 {
            notes.push("no other thread's conflicting access was seen (the non-movers are synchronization)".into());
        }
        out.push(Report {
            checker,
            txn: t,
            what: format!(
                "{} after its commit point ({})",
                ctx.event_text(bad.breaking),
                ctx.event_text(bad.commit)
            ),
            steps,
            notes,
        });
    }
    out
}

fn block_reports(ctx: &Ctx, of_event: &[u32], notes: &mut Vec<String>) -> Vec<Report> {
    let result = crate::blocks::check(ctx.txns, ctx.log);
    notes.extend(result.notes);
    let mut out = Vec::new();
    let label = |i: u32| ctx.txn_text(ctx.txn_of(i, of_event));
    let mut seen = std::collections::BTreeSet::new();
    for p in result.pairs {
        if !seen.insert(ctx.txns.get(p.txn).and_then(|t| t.method)) {
            continue;
        }
        let block = |b: &[u32]| {
            let parts: Vec<String> = b.iter().map(|&i| ctx.event_text(i)).collect();
            format!("({})", parts.join("; "))
        };
        out.push(Report {
            checker: AtomicChecker::Blocks,
            txn: p.txn,
            what: format!(
                "its block {} and the block {} of {} have a feasible interleaving that is not serializable",
                block(&p.blocks.0),
                block(&p.blocks.1),
                ctx.txn_text(p.other)
            ),
            steps: p.interleaving.iter().map(|&i| (i, label(i))).collect(),
            notes: vec![format!("the other transaction: {}", ctx.txn_text(p.other))],
        });
    }
    for c in result.cycles {
        let others: Vec<String> = c.txns[1..].iter().map(|&t| ctx.txn_text(t)).collect();
        out.push(Report {
            checker: AtomicChecker::BlocksMulti,
            txn: c.txns[0],
            what: format!(
                "with {} (each pair atomic) an interleaving of their initial reads and final writes is not serializable",
                others.join(" and ")
            ),
            steps: c.interleaving.iter().map(|&i| (i, label(i))).collect(),
            notes: others.iter().map(|o| format!("in the cycle: {o}")).collect(),
        });
    }
    out
}

fn serializability_reports(ctx: &Ctx, of_event: &[u32]) -> Vec<Report> {
    crate::serializability::check(ctx.txns, of_event, ctx.log)
        .into_iter()
        .map(|c| {
            let mut steps = Vec::new();
            for &(from, to, a, b) in &c.edges {
                steps.push((a, format!("{} before", ctx.txn_text(from))));
                steps.push((b, ctx.txn_text(to)));
            }
            let chain: Vec<String> = c
                .edges
                .iter()
                .map(|e| format!("`{}`", ctx.method(e.0)))
                .collect();
            Report {
                checker: AtomicChecker::Serializability,
                txn: c.txn,
                what: format!(
                    "the run was not serializable: a cycle of conflicts {} → back",
                    chain.join(" → ")
                ),
                steps,
                notes: Vec::new(),
            }
        })
        .collect()
}

/// Runs the checkers `spec` asks for; findings and notes.
pub fn check(log: &AtomicLog, spec: &AtomicSpec, view: &View) -> (Vec<Finding>, Vec<String>) {
    let methods = transaction_methods(log, view.tables, spec);
    let (txns, of_event) = split(log, &methods);
    let ctx = Ctx {
        log,
        txns: &txns,
        view,
    };
    let mut notes = Vec::new();
    let mut reports = Vec::new();
    if spec.reduction_online {
        reports.extend(reduction_reports(&ctx, Variant::Online, &of_event));
    }
    if spec.reduction_offline {
        reports.extend(reduction_reports(&ctx, Variant::Offline, &of_event));
    }
    if spec.blocks {
        reports.extend(block_reports(&ctx, &of_event, &mut notes));
    }
    if spec.serializability {
        reports.extend(serializability_reports(&ctx, &of_event));
    }
    let findings = reports.into_iter().map(|r| finding(&ctx, r)).collect();
    (findings, notes)
}
