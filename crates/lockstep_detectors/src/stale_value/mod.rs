//! Rule `stale-value` (paper 001, Artho, Havelund & Biere, "Using
//! Block-local Atomicity to Detect Stale-value Concurrency Errors"): a
//! value read while a lock is held is used after that lock was released,
//! so another thread may have changed the shared data it copies. See
//! `docs.md` beside this file.
//!
//! The analysis is thread-local and method-local. [`fields`] finds the
//! fields whose values cannot go stale; [`summary`] computes, once for every
//! reachable method, which locks it acquires and what its result carries (so
//! a call's result can be classified, §4; code it cannot see counts as
//! locking, §5.1, unless [`Settings`] say otherwise); [`flow`] runs the block-local
//! atomicity dataflow of §3 over each reachable application method, in
//! parallel; [`locks`] is how locks are named and compared; [`values`]
//! which values are immutable snapshots and [`write_back`] which of their
//! uses still lose an update; `confined`
//! sets aside, by points-to and the thread-local objects of the shared
//! facts, the stale uses no other thread can change. This module prepares
//! each method's inputs and turns the stale uses into findings.

mod confined;
mod contributions;
pub mod fields;
pub mod flow;
pub mod locks;
pub mod reservations;
pub mod summary;
pub mod values;
pub mod views;
pub mod write_back;

use std::sync::Arc;

use lockstep_ir::{AccessPath, Body, MemberRef, Rvalue, StmtId, StmtKind};
use lockstep_program::{MethodId, Program};
use lockstep_report::{Confidence, Finding, Severity};

use crate::util::{dotted, location, position, short_method};
use crate::{Context, Detector, Needs, Output, RuleId, RuleMeta};
use confined::Confinement;
use fields::StableFields;
use flow::{CallFact, CallSummary, End, Origin, Prepared, ReadKind, Site, StaleUse};
use locks::{short, translate, Effect, LockKey, LockKind, Translated};
use lockstep_facts::dispatch::Dispatch;
use summary::{Facts, Hop, Summaries};
pub use summary::{Unknown, UnknownCallees};
use values::ValueTypes;
use views::LockViews;

pub static RULE: RuleMeta = RuleMeta {
    id: RuleId::StaleValue,
    name: "StaleValue",
    summary: "A value read while holding a lock is used after the lock was released, when another thread may have changed it",
    // Opt-in (`--select stale-value`): the paper's own limits (snapshots,
    // double checks, hand-overs) and legacy synchronized collections make
    // it noisier than the default rules.
    default_enabled: false,
    docs: include_str!("docs.md"),
};

/// The detector as `lockstep check` runs it: [`Settings::default`].
pub struct StaleValue;

/// Settings of the rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Settings {
    /// Calls to code the analysis cannot see (classes missing from the
    /// class path, natives outside the JDK, interface methods without an
    /// implementation, reflection): sound by default (§5.1).
    pub unknown_callees: UnknownCallees,
}

/// The same rule with other [`Settings`] than the command line's.
pub struct Configured(pub Settings);

impl Detector for StaleValue {
    fn rules(&self) -> &'static [RuleId] {
        &[RuleId::StaleValue]
    }

    /// Points-to and the thread-local objects it gives (`confined`).
    fn needs(&self) -> Needs {
        Needs::PointsTo
    }

    /// It resolves every field its methods name.
    fn loads_classes(&self) -> bool {
        true
    }

    fn run(&self, cx: &Context<'_>) -> Output {
        run(
            cx,
            &Settings {
                unknown_callees: cx.options.unknown_callees,
            },
        )
    }
}

impl Detector for Configured {
    fn rules(&self) -> &'static [RuleId] {
        &[RuleId::StaleValue]
    }

    /// Points-to and the thread-local objects it gives (`confined`).
    fn needs(&self) -> Needs {
        Needs::PointsTo
    }

    /// It resolves every field its methods name.
    fn loads_classes(&self) -> bool {
        true
    }

    fn run(&self, cx: &Context<'_>) -> Output {
        run(cx, &self.0)
    }
}

fn run(cx: &Context<'_>, settings: &Settings) -> Output {
    if !cx.is_enabled(RuleId::StaleValue) {
        return Output::default();
    }
    let program = cx.program;
    let stable = StableFields::compute(program);
    let value_types = ValueTypes::compute(program);
    let views = Arc::new(LockViews::compute(program));
    let confinement = Confinement {
        program,
        call_graph: cx.call_graph,
        pt: cx.facts.points_to(),
        local: cx.facts.thread_local(),
    };
    let dispatch = Dispatch::compute(program, confinement.pt);
    let summaries = Summaries::compute(
        program,
        cx.call_graph,
        &dispatch,
        &stable,
        &value_types,
        settings.unknown_callees,
    );
    let app: Vec<MethodId> = cx
        .call_graph
        .reachable
        .iter()
        .copied()
        .filter(|&m| program.class(program.method(m).class).is_application)
        .collect();
    // Methods are independent given the summaries; collected in method
    // order, so the output does not depend on the thread count.
    let (per_method, skipped) = crate::budget::map_within(cx.budget, &app, |&m| {
        analyse_method(&confinement, &stable, &value_types, &summaries, &views, m)
    });
    let (findings, confined): (Vec<_>, Vec<_>) = per_method.into_iter().flatten().unzip();
    let stats = vec![format!(
        "stale-value: {} methods summarised, {} summary computations, {} application methods analysed, {} stale uses dropped as thread-local ({} thread-local objects)",
        summaries.len(),
        summaries.combines,
        app.len(),
        confined.iter().sum::<usize>(),
        confinement.local.count()
    )];
    Output {
        findings: findings.into_iter().flatten().collect(),
        stats,
        cuts: skipped
            .cut(RuleId::StaleValue, "application methods not analysed")
            .into_iter()
            .collect(),
        ..Output::default()
    }
}

/// The findings of one method, and how many stale uses the shared facts
/// show no other thread can change (`confined`).
fn analyse_method(
    confinement: &Confinement<'_>,
    stable: &StableFields,
    value_types: &ValueTypes,
    summaries: &Summaries,
    views: &Arc<LockViews>,
    m: MethodId,
) -> (Vec<Finding>, usize) {
    let program = confinement.program;
    let (Some(body), Some(facts)) = (program.body(m), summaries.facts_of(m)) else {
        return (Vec::new(), 0);
    };
    let reserved = reservations::reserved_reads(&body);
    let mut prep = prepare(program, summaries, &body, facts, &reserved);
    // Without a block, a lock or a locking call no value is ever shared.
    let sources = !body.monitors.is_empty()
        || prep.calls.values().any(|f| match f {
            CallFact::Acquire(_) => true,
            CallFact::Call(c) => c.distinct || !c.locks.is_empty(),
            _ => false,
        });
    if !sources {
        return (Vec::new(), 0);
    }
    // Read kinds and types only for the methods the dataflow runs on
    // (most have no source).
    prep.reads = read_kinds(program, stable, &body, &reserved);
    prep.immune = value_types.immune_vars(program, &body);
    prep.views = Arc::clone(views);
    // Snapshots start only in variables of immutable types: a method with
    // none has no write-back to find.
    if prep.immune.iter().any(|&immune| immune) {
        prep.write_backs = write_back::WriteBacks::compute(program, &body);
    }
    // Set aside before one use per read is chosen: a read reached under a
    // thread-local lock on one path and a shared one on another keeps the
    // shared one.
    let all = flow::all_stale_uses(&body, &prep);
    let before = flow::first_per_read(all.clone()).len();
    let kept = flow::first_per_read(
        all.into_iter()
            .filter(|u| !confinement.unchangeable(m, &body, &prep, &u.origin))
            .collect(),
    );
    let confined = before.saturating_sub(kept.len());
    let findings = kept
        .into_iter()
        .map(|u| crate::util::readable(finding(program, m, &body, &prep, u)))
        .collect();
    (findings, confined)
}

/// The method's inputs to the dataflow: interned locks, what each call
/// does in this method's terms (`reserved`: the reads a block updates,
/// `reservations`). Which reads can yield shared values is added by
/// [`read_kinds`], for the methods the dataflow runs on.
fn prepare(
    program: &Program,
    summaries: &Summaries,
    body: &Body,
    facts: &Facts,
    reserved: &[bool],
) -> Prepared {
    let mut prep = Prepared::default();
    for region in &body.monitors {
        let id = prep.intern(LockKey::monitor(region.lock.clone()));
        prep.region_keys.push(id);
    }
    let fresh = fresh_results(program, summaries, body, facts);
    for site in &facts.sites {
        if let Some((effect, key)) = &site.modelled {
            let fact = match effect {
                Effect::Acquire(_) => CallFact::Acquire(prep.intern(key.clone())),
                Effect::Release(_) => CallFact::Release(prep.intern(key.clone())),
                Effect::MonitorWait => CallFact::Wait(prep.intern(key.clone())),
                Effect::ConditionAwait => CallFact::Await,
                Effect::View(_) => continue,
            };
            prep.calls.insert(site.stmt, fact);
            continue;
        }
        let mut c = CallSummary::default();
        let mut acquires = false;
        // Removed, read or copied: the caller owns the result (Fig. 5).
        // Reserved: the block updated what the call read (`reservations`).
        c.owned = match body.stmts.get(site.stmt.index()).map(|s| &s.kind) {
            Some(StmtKind::Invoke { call, .. }) => {
                values::owned_call(program, body, call)
                    || reserved.get(site.stmt.index()).copied().unwrap_or(false)
            }
            _ => false,
        };
        if let Some(why) = site.unknown {
            // Unknown code: a lock distinct from every lock held here
            // (§4, §5.1); its result is a value of a block of its own.
            acquires = true;
            c.distinct = true;
            c.unknown = Some((why, None));
        }
        let shares = summaries.all_share(facts, site);
        c.heap = summaries.any_heap(facts, site);
        let (receiver, args) = summary::actuals(body, site.stmt);
        // The same with fresh results marked; used for callees whose
        // every lock can be named (a callee that also takes a lock it
        // cannot name, such as the inner collection of a wrapper, keeps
        // the named locks in its message).
        let (mut fresh_receiver, mut fresh_args) = (receiver.clone(), args.clone());
        mark_fresh(
            body,
            site.stmt,
            &fresh,
            &mut fresh_receiver,
            &mut fresh_args,
        );
        for &ix in facts.callees(site) {
            let (Some(s), Some(callee)) = (summaries.at(ix), summaries.method_at(ix)) else {
                continue;
            };
            if !s.waits.is_empty() {
                for w in &s.waits {
                    if let Translated::Path(p) = translate(w, receiver.as_ref(), &args) {
                        let id = prep.intern(LockKey::monitor(p));
                        c.waits.push(id);
                    }
                }
            }
            // Only calls whose every target may return locked data make the
            // result shared (`Summaries::all_share`); other callees' locks
            // guard their side effects.
            if !shares {
                continue;
            }
            let mut this_acquires = s.distinct;
            c.distinct |= s.distinct;
            let (receiver, args) = if s.distinct {
                (&receiver, &args)
            } else {
                (&fresh_receiver, &fresh_args)
            };
            for (key, hop) in &s.locks {
                match translate(&key.path, receiver.as_ref(), args) {
                    Translated::Fresh => {}
                    Translated::Path(path) => {
                        this_acquires = true;
                        let id = prep.intern(LockKey {
                            kind: key.kind,
                            path,
                        });
                        c.locks.push((id, *hop));
                    }
                }
            }
            if this_acquires {
                acquires = true;
                if c.callee.is_none() {
                    c.callee = Some(callee);
                    c.witness = s.witness;
                }
                if c.unknown.is_none() && s.distinct {
                    c.unknown = s.unknown.map(|u| (u.why, Some(u.at)));
                }
            }
        }
        if !acquires && c.waits.is_empty() && !c.heap && !c.owned {
            continue;
        }
        // One entry per lock, the first place in a fixed order.
        c.locks.sort();
        c.locks.dedup_by_key(|l| l.0);
        c.waits.sort();
        c.waits.dedup();
        prep.calls.insert(site.stmt, CallFact::Call(c));
    }
    prep
}

/// For each statement: what kind of read it is (`reserved`: the reads a
/// block updates, `reservations`).
fn read_kinds(
    program: &Program,
    stable: &StableFields,
    body: &Body,
    reserved: &[bool],
) -> Vec<ReadKind> {
    body.stmts
        .iter()
        .zip(reserved)
        .map(|(s, &reserved)| match &s.kind {
            _ if reserved => ReadKind::Reserved,
            StmtKind::Assign { value, .. } => match value {
                Rvalue::FieldLoad { field, .. } | Rvalue::StaticLoad(field) => {
                    if stable.is_stable(program, field) {
                        ReadKind::Stable
                    } else {
                        ReadKind::Mutable
                    }
                }
                Rvalue::ArrayLoad { .. } => ReadKind::Mutable,
                _ => ReadKind::None,
            },
            _ => ReadKind::None,
        })
        .collect()
}

/// For each variable: does it hold a new object a call handed to this
/// method (a callee that returns what it allocated, an owned result such
/// as a removed element or a copy)? Locks such an object's methods take
/// guard nothing another thread sees yet, like those of `new` here
/// (`locks::is_fresh`).
fn fresh_results(
    program: &Program,
    summaries: &Summaries,
    body: &Body,
    facts: &Facts,
) -> Vec<bool> {
    let mut fresh = vec![false; body.vars.len()];
    for site in &facts.sites {
        let Some(StmtKind::Invoke {
            call,
            result: Some(r),
        }) = body.stmts.get(site.stmt.index()).map(|s| &s.kind)
        else {
            continue;
        };
        if body.unique_def.get(r.index()).copied().flatten() != Some(site.stmt) {
            continue;
        }
        let callees = facts.callees(site);
        let returns_fresh = site.unknown.is_none()
            && !callees.is_empty()
            && callees
                .iter()
                .all(|&c| summaries.at(c).is_some_and(|s| s.returns_fresh));
        if returns_fresh || values::owned_call(program, body, call) {
            if let Some(slot) = fresh.get_mut(r.index()) {
                *slot = true;
            }
        }
    }
    // Copies and casts of a fresh result with one definition, in
    // statement order (a copy follows its source in the bytecode).
    for (i, stmt) in body.stmts.iter().enumerate() {
        if let StmtKind::Assign {
            dst,
            value: Rvalue::Use(op) | Rvalue::Cast(op, _),
        } = &stmt.kind
        {
            let single =
                body.unique_def.get(dst.index()).copied().flatten() == Some(StmtId(i as u32));
            let from_fresh = op
                .var()
                .is_some_and(|v| fresh.get(v.index()).copied().unwrap_or(false));
            if single && from_fresh {
                if let Some(slot) = fresh.get_mut(dst.index()) {
                    *slot = true;
                }
            }
        }
    }
    fresh
}

/// Marks the receiver and arguments of the call at `stmt` that are fresh
/// results ([`fresh_results`]).
fn mark_fresh(
    body: &Body,
    stmt: StmtId,
    fresh: &[bool],
    receiver: &mut Option<locks::Actual>,
    args: &mut [locks::Actual],
) {
    let Some(StmtKind::Invoke { call, .. }) = body.stmts.get(stmt.index()).map(|s| &s.kind) else {
        return;
    };
    let is_fresh = |op: &lockstep_ir::Operand| {
        op.var()
            .is_some_and(|v| fresh.get(v.index()).copied().unwrap_or(false))
    };
    if let (Some(actual), Some(op)) = (receiver.as_mut(), call.receiver.as_ref()) {
        actual.fresh |= is_fresh(op);
    }
    for (actual, op) in args.iter_mut().zip(&call.args) {
        actual.fresh |= is_fresh(op);
    }
}

/// What was read at an origin, for messages: the expression, and the field
/// (`pkg.Cls.name`) when it is a field.
struct Read {
    what: String,
    field: Option<String>,
    /// The call, for values returned by a locking call.
    call: Option<MethodId>,
}

fn field_name(program: &Program, field: &MemberRef) -> String {
    let declaring = program
        .class_by_name(&field.class)
        .and_then(|c| program.resolve_field(c, &field.name, &field.descriptor))
        .map(|c| program.class(c).name.clone())
        .unwrap_or_else(|| field.class.clone());
    format!("{}.{}", dotted(&declaring), field.name)
}

fn describe_read(program: &Program, body: &Body, prep: &Prepared, read: StmtId) -> Read {
    let kind = body.stmts.get(read.index()).map(|s| &s.kind);
    match kind {
        Some(StmtKind::Assign { value, .. }) => match value {
            Rvalue::FieldLoad { object, field } => Read {
                what: short(&AccessPath::Field(
                    Arc::new(lockstep_ir::operand_path(body, object)),
                    field.name.clone(),
                )),
                field: Some(field_name(program, field)),
                call: None,
            },
            Rvalue::StaticLoad(field) => Read {
                what: AccessPath::Static(field.class.clone(), field.name.clone()).to_string(),
                field: Some(field_name(program, field)),
                call: None,
            },
            Rvalue::ArrayLoad { array, index, .. } => Read {
                what: short(&AccessPath::Element(
                    Arc::new(lockstep_ir::operand_path(body, array)),
                    Arc::new(lockstep_ir::operand_path(body, index)),
                )),
                field: None,
                call: None,
            },
            _ => Read {
                what: "?".into(),
                field: None,
                call: None,
            },
        },
        Some(StmtKind::Invoke { call, .. }) => {
            // `a.has(amount)`, `balanceOf(a)` (on `this`), `Util.get(k)`.
            let target = match call
                .receiver
                .as_ref()
                .map(|r| lockstep_ir::operand_path(body, r))
            {
                Some(AccessPath::This) => String::new(),
                Some(p) => format!("{}.", short(&p)),
                None => format!("{}.", lockstep_ir::simple_class_name(&call.method.class)),
            };
            let params = lockstep_classfile::descriptor::param_types(&call.method.descriptor)
                .unwrap_or_default();
            let args: Vec<String> = call
                .args
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    argument_text(lockstep_ir::operand_path(body, a), params.get(i).copied())
                })
                .collect();
            let callee = match prep.calls.get(&read) {
                Some(CallFact::Call(c)) => c.callee,
                _ => None,
            };
            Read {
                what: format!("{target}{}({})", call.method.name, args.join(", ")),
                field: None,
                call: callee,
            }
        }
        _ => Read {
            what: "?".into(),
            field: None,
            call: None,
        },
    }
}

/// How a message shows a call's argument: as the source reads it, so a
/// `boolean` constant (an `int` in bytecode) reads `true` or `false`.
fn argument_text(path: AccessPath, param: Option<&str>) -> String {
    match (path, param) {
        (AccessPath::IntConst(0), Some("Z")) => "false".to_string(),
        (AccessPath::IntConst(1), Some("Z")) => "true".to_string(),
        (AccessPath::Unknown, _) => "…".to_string(),
        (p, _) => short(&p),
    }
}

/// The lock of a block.
fn lock_of(body: &Body, prep: &Prepared, site: Site) -> Option<LockKey> {
    match site {
        Site::Region(r) => body
            .monitors
            .get(r.index())
            .map(|m| LockKey::monitor(m.lock.clone())),
        Site::Acquire(s) => match prep.calls.get(&s) {
            Some(CallFact::Acquire(k)) => prep.key(*k).cloned(),
            _ => None,
        },
        Site::Call(s) => call_lock(prep, s).map(|(k, _)| k.clone()),
    }
}

/// The lock a locking call is reported with (the first that can be named)
/// and where a callee acquires it.
fn call_lock(prep: &Prepared, s: StmtId) -> Option<(&LockKey, Hop)> {
    match prep.calls.get(&s) {
        Some(CallFact::Call(c)) => c
            .locks
            .iter()
            .filter_map(|&(k, hop)| prep.key(k).map(|k| (k, hop)))
            .find(|(k, _)| k.comparable()),
        _ => None,
    }
}

/// Where a block was entered (for blocks that ended without a statement).
fn block_start(body: &Body, site: Site) -> Option<StmtId> {
    match site {
        Site::Region(r) => body.monitors.get(r.index()).and_then(|m| m.enter),
        Site::Acquire(s) | Site::Call(s) => Some(s),
    }
}

fn call_name(body: &Body, s: StmtId) -> String {
    match body.stmts.get(s.index()).map(|s| &s.kind) {
        Some(StmtKind::Invoke { call, .. }) => format!("{}()", call.method.name),
        _ => "wait()".into(),
    }
}

/// How sure a stale value is (criteria in `docs.md`): high for a field
/// read under a lock this method releases explicitly (`unlock()`,
/// the end of the block, `wait()`) before the use; medium for a value
/// returned by a call that locked inside; results of unknown code are low
/// (see [`unknown_finding`]).
fn confidence(site: Site, end: End, from_field: bool) -> Confidence {
    match (site, end) {
        (Site::Call(_), _) => Confidence::Medium,
        (_, End::Exit(_) | End::Wait(_)) if from_field => Confidence::High,
        _ => Confidence::Medium,
    }
}

fn finding(program: &Program, m: MethodId, body: &Body, prep: &Prepared, u: StaleUse) -> Finding {
    let Origin {
        read, site, end, ..
    } = u.origin;
    let r = describe_read(program, body, prep, read);
    let key = lock_of(body, prep, site);
    let lock = key.as_ref().map(|k| k.path.clone());
    let held = match &lock {
        Some(p) => format!("`{}`", short(p)),
        None => "a lock".to_string(),
    };
    // "while holding `rw` (read lock)": which side of a read-write lock.
    let holding = match key.as_ref().map(|k| k.kind) {
        Some(LockKind::Read) => format!("{held} (read lock)"),
        Some(LockKind::Write) => format!("{held} (write lock)"),
        _ => held.clone(),
    };
    let read_pos = position(program, m, Some(read));
    let use_pos = position(program, m, Some(u.stmt));
    let changed = format!("another thread may have changed `{}` in between", r.what);
    let what = &r.what;
    let (used, lost) = use_words(prep, &u, &use_pos);
    if let Site::Call(_) = site {
        if let Some(f) = unknown_finding(program, m, prep, &u, what, &read_pos, &use_pos) {
            return f;
        }
    }
    let (message, end_related) = match (site, end) {
        (Site::Call(_), _) => {
            // Where the reported lock is acquired; for a lock that cannot
            // be named, wherever the callee locks.
            let witness = call_lock(prep, read).map(|(_, hop)| hop).or(match prep
                .calls
                .get(&read)
            {
                Some(CallFact::Call(c)) => c.witness,
                _ => None,
            });
            // The method that holds the lock: where the acquisition is,
            // else the called method itself.
            let callee = witness
                .map(|h| h.method)
                .or(r.call)
                .map(|c| short_method(program, c))
                .unwrap_or_else(|| "the callee".into());
            let related = witness.map(|h: Hop| {
                (
                    location(program, h.method, h.stmt),
                    format!(
                        "{held} is acquired and released here ({}), before `{what}` returns",
                        short_method(program, h.method)
                    ),
                )
            });
            (
                format!(
                    "value returned by `{what}` at {read_pos}, computed while `{callee}` held {held}, {used} after the call released {held}; {}",
                    lost.as_deref().unwrap_or("another thread may have changed it in between")
                ),
                related,
            )
        }
        (_, End::Exit(x)) => (
            format!(
                "value of `{what}` read at {read_pos} while holding {holding} {used} after {held} was released at {}; {}",
                position(program, m, Some(x)),
                lost.as_deref().unwrap_or(&changed)
            ),
            Some((location(program, m, Some(x)), format!("{held} is released here"))),
        ),
        (_, End::Wait(x)) => {
            let name = call_name(body, x);
            (
                format!(
                    "value of `{what}` read at {read_pos} while holding {holding} {used} after `{name}` released {held} at {}; {}",
                    position(program, m, Some(x)),
                    lost.as_deref().unwrap_or(&changed)
                ),
                Some((
                    location(program, m, Some(x)),
                    format!("`{name}` releases {held} here and waits"),
                )),
            )
        }
        (_, End::Held | End::Lost | End::Call(_)) => {
            let start = block_start(body, site);
            (
                format!(
                    "value of `{what}` read at {read_pos} while holding {holding} {used}, outside that execution of the block; {}",
                    lost.as_deref().unwrap_or(&changed)
                ),
                Some((
                    location(program, m, start),
                    format!("the block holding {held} starts here"),
                )),
            )
        }
    };
    let read_related = match site {
        Site::Call(_) => format!("`{what}` is called here"),
        _ => format!("`{what}` is read here while holding {holding}"),
    };
    let mut f = Finding::new(
        RULE.id,
        Severity::Warning,
        message,
        location(program, m, Some(u.stmt)),
    )
    .with_confidence(confidence(site, end, r.field.is_some()))
    .with_related(location(program, m, Some(read)), read_related);
    if let Some((loc, msg)) = end_related {
        f = f.with_related(loc, msg);
    }
    if let Some(field) = r.field {
        f = f.with_field(field);
    }
    if let Some(l) = &lock {
        f = f.with_lock(l.to_string());
    }
    let help = if lost.is_some() {
        format!(
            "read and update in one critical section (hold {held} from the read to the write), or use an atomic update (`ConcurrentMap.merge` or `compute`, an `AtomicInteger`)"
        )
    } else {
        format!(
            "use the value while {held} is still held (one critical section from the read to the use), or read it again under the lock; if a snapshot is intended (logging, a re-checked value), the warning can be ignored"
        )
    };
    f.with_help(help)
}

/// How a message names the stale use, and, for the write-back of an
/// immutable snapshot (`write_back`), its consequence: "is used at L to
/// update `counters` again", "an update another thread made to `counters`
/// in between is lost". Other uses: "is used at L", and no consequence of
/// their own.
fn use_words(prep: &Prepared, u: &StaleUse, use_pos: &str) -> (String, Option<String>) {
    let place = prep
        .write_backs
        .written_at(u.stmt)
        .filter(|_| u.origin.snapshot)
        .map(write_back::Place::describe);
    match place {
        Some(p) => (
            format!("is used at {use_pos} to update `{p}` again"),
            Some(format!(
                "an update another thread made to `{p}` in between is lost (the value is immutable, but `{p}` is not)"
            )),
        ),
        None => (format!("is used at {use_pos}"), None),
    }
}

/// The simple name (`Class.method`) of the method called at `stmt` of `m`.
fn called_name(program: &Program, m: MethodId, stmt: StmtId) -> Option<String> {
    let body = program.body(m)?;
    match &body.stmts.get(stmt.index())?.kind {
        StmtKind::Invoke { call, .. } => Some(format!(
            "{}.{}",
            lockstep_ir::simple_class_name(&call.method.class),
            call.method.name
        )),
        _ => None,
    }
}

/// The finding for the result of a call that is, or returns the result
/// of, unknown code (no lock the analysis can name or locate): paper 001
/// §4–§5.1 assumes it was read under a lock of the callee's own.
#[allow(clippy::too_many_arguments)]
fn unknown_finding(
    program: &Program,
    m: MethodId,
    prep: &Prepared,
    u: &StaleUse,
    what: &str,
    read_pos: &str,
    use_pos: &str,
) -> Option<Finding> {
    let read = u.origin.read;
    let Some(CallFact::Call(c)) = prep.calls.get(&read) else {
        return None;
    };
    let (why, at) = c.unknown?;
    // A lock that can be named or located is reported instead.
    if call_lock(prep, read).is_some() || c.witness.is_some() {
        return None;
    }
    let reason = why.reason();
    let (origin, related) = match at {
        // This very call.
        None => (
            format!(
                "`{}` is unknown code ({reason})",
                called_name(program, m, read).unwrap_or_else(|| what.to_string())
            ),
            None,
        ),
        // A native (or unreadable) target of this call.
        Some(Hop { method, stmt: None }) => (
            format!(
                "`{}` is unknown code ({reason})",
                short_method(program, method)
            ),
            None,
        ),
        // A callee returns the result of unknown code called here.
        Some(Hop {
            method,
            stmt: Some(s),
        }) => {
            let name = called_name(program, method, s).unwrap_or_else(|| "a method".into());
            (
                format!(
                    "it is the result of `{name}` in `{}` at {}, unknown code ({reason})",
                    short_method(program, method),
                    position(program, method, Some(s))
                ),
                Some((
                    location(program, method, Some(s)),
                    format!(
                        "`{name}` is called here, before `{what}` returns; its code is unknown ({reason})"
                    ),
                )),
            )
        }
    };
    let mut f = Finding::new(
        RULE.id,
        Severity::Warning,
        format!(
            "value returned by `{what}` at {read_pos} is used at {use_pos}; {origin}, so it is assumed to have been read under a lock of the callee's own, released before the call returned; another thread may have changed it in between"
        ),
        location(program, m, Some(u.stmt)),
    )
    .with_confidence(Confidence::Low)
    .with_related(
        location(program, m, Some(read)),
        format!("`{what}` is called here"),
    );
    if let Some((loc, msg)) = related {
        f = f.with_related(loc, msg);
    }
    Some(f.with_help(
        "the callee's code is not available to the analysis, which assumes the worst; if it takes no lock guarding what it returns, the warning can be ignored; add the missing classes with `--classpath` to have it analysed".to_string(),
    ))
}
