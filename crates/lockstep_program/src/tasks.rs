//! Which objects a task operand (the `r` of `executor.execute(r)`, the `t`
//! of `t.start()`) may be, as far as a cheap, flow-insensitive look at the
//! code can tell.
//!
//! Within one body the operand is traced back through copies and casts
//! (`unique_def`, or every definition of a multiply-assigned local) to an
//! allocation `new C` (→ the task is a `C`), a lambda site (→ that lambda),
//! or something opaque. For thread-shaped operands, `new Thread(r, ...)`
//! whose class does not override `run()` continues with the `Runnable`
//! argument of the constructor call. With a [`FlowOracle`] (the thread-root
//! pass has one, the call-graph builder does not) opaque parameters and
//! fields are followed one hop further: to the arguments at every call site
//! of the method, and to every value stored into the field anywhere — up
//! to a small depth. Whatever stays opaque is `Unknown(static type)`, which
//! callers widen to every instantiated subtype.
//!
//! Not done: return values of calls, array elements, collections, anything
//! needing a heap abstraction. Precision beyond this is a points-to
//! analysis' job.

use std::sync::Arc;

use lockstep_ir::{Body, MemberRef, Operand, Rvalue, StmtId, StmtKind, Type, VarId, VarOrigin};
use lockstep_models::threads::{RUNNABLE, THREAD};
use lockstep_models::{EntryMethod, TaskShape};
use rustc_hash::FxHashSet;

use crate::lambda::decode_lambda;
use crate::program::{ClassId, MethodId, Program};
use lockstep_classfile::descriptor;

/// What a task operand may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum SourceKind {
    /// An object allocated as `new C`.
    Class(ClassId),
    /// The lambda object of the `invokedynamic` at this site.
    Lambda(MethodId, StmtId),
    /// Anything whose class is a subtype of this (when loadable).
    Unknown(Option<ClassId>),
}

/// One possible task and the method it will run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct TaskSource {
    pub(crate) kind: SourceKind,
    pub(crate) entry: &'static EntryMethod,
    /// Found by following a parameter or a field (not within one body).
    pub(crate) via_flow: bool,
}

/// Values flowing into parameters and fields, from outside one body.
pub(crate) trait FlowOracle {
    /// For every call site of `m`: the caller, its body and the operand
    /// passed as declared parameter `param`.
    /// `None` when some caller is unknown (an entry point, JDK code, a
    /// modelled launch).
    fn param_args(&self, m: MethodId, param: u16) -> Option<Vec<(MethodId, Arc<Body>, Operand)>>;
    /// Every store into a field compatible with `field`: the storing
    /// method, its body and the stored operand. `None` when unknown.
    fn field_stores(
        &self,
        field: &MemberRef,
        is_static: bool,
    ) -> Option<Vec<(MethodId, Arc<Body>, Operand)>>;
}

pub(crate) struct Resolver<'a> {
    pub(crate) p: &'a Program,
    pub(crate) flow: Option<&'a dyn FlowOracle>,
    /// Hops through parameters or fields.
    pub(crate) max_hops: u32,
}

/// The variable a statement assigns.
pub(crate) fn stmt_def(kind: &StmtKind) -> Option<VarId> {
    match kind {
        StmtKind::Assign { dst, .. } => Some(*dst),
        StmtKind::Invoke { result, .. } | StmtKind::InvokeDynamic { result, .. } => *result,
        _ => None,
    }
}

struct Query {
    out: Vec<TaskSource>,
    visited: FxHashSet<(MethodId, VarId)>,
}

impl Resolver<'_> {
    /// Every possible task for `op` at a site in `m` whose body is `body`.
    pub(crate) fn sources(
        &self,
        m: MethodId,
        body: &Body,
        op: &Operand,
        shape: TaskShape,
        entry: &'static EntryMethod,
    ) -> Vec<TaskSource> {
        let mut q = Query {
            out: Vec::new(),
            visited: FxHashSet::default(),
        };
        match shape {
            TaskShape::Functional | TaskShape::Thread => {
                if let Operand::Var(v) = op {
                    self.var(&mut q, m, body, *v, shape, entry, 0, false);
                }
            }
            // Elements of collections and arrays are not tracked.
            TaskShape::Collection | TaskShape::Array => q.out.push(TaskSource {
                kind: SourceKind::Unknown(self.p.class_by_name(entry.interface)),
                entry,
                via_flow: false,
            }),
        }
        let mut seen = FxHashSet::default();
        q.out.retain(|s| seen.insert(*s));
        q.out
    }

    fn unknown(
        &self,
        q: &mut Query,
        body: &Body,
        v: VarId,
        entry: &'static EntryMethod,
        flow: bool,
    ) {
        let declared = match body.vars.get(v.index()).map(|i| &i.ty) {
            Some(Type::Ref(Some(c))) if !c.starts_with('[') => self.p.class_by_name(c),
            _ => None,
        };
        let ty = declared.or_else(|| self.p.class_by_name(entry.interface));
        q.out.push(TaskSource {
            kind: SourceKind::Unknown(ty),
            entry,
            via_flow: flow,
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn var(
        &self,
        q: &mut Query,
        m: MethodId,
        body: &Body,
        v: VarId,
        shape: TaskShape,
        entry: &'static EntryMethod,
        hops: u32,
        flow: bool,
    ) {
        if !q.visited.insert((m, v)) {
            return;
        }
        let defs: Vec<StmtId> = match body.unique_def.get(v.index()).copied().flatten() {
            Some(d) => vec![d],
            None => body
                .stmts
                .iter()
                .enumerate()
                .filter(|(_, s)| stmt_def(&s.kind) == Some(v))
                .map(|(i, _)| StmtId(i as u32))
                .collect(),
        };
        if defs.is_empty() {
            let origin = body.vars.get(v.index()).map(|i| i.origin);
            match origin {
                Some(VarOrigin::Param(i)) => {
                    if let (Some(flow_oracle), true) = (self.flow, hops < self.max_hops) {
                        let args = flow_oracle.param_args(m, i).unwrap_or_default();
                        if !args.is_empty() {
                            for (caller, cbody, arg) in args {
                                match arg {
                                    Operand::Var(w) => {
                                        self.var(q, caller, &cbody, w, shape, entry, hops + 1, true)
                                    }
                                    Operand::Const(_) => {}
                                }
                            }
                            return;
                        }
                    }
                    self.unknown(q, body, v, entry, flow);
                }
                Some(VarOrigin::This) => {
                    // `this.start()` in a constructor, `execute(this)`: any
                    // instantiated subtype of the declaring class.
                    let class = self.p.try_method(m).map(|md| md.class);
                    q.out.push(TaskSource {
                        kind: SourceKind::Unknown(class),
                        entry,
                        via_flow: flow,
                    });
                }
                _ => self.unknown(q, body, v, entry, flow),
            }
            return;
        }
        for d in defs {
            let Some(stmt) = body.stmts.get(d.index()) else {
                continue;
            };
            match &stmt.kind {
                StmtKind::Assign { value, .. } => match value {
                    Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _) => {
                        self.var(q, m, body, *w, shape, entry, hops, flow)
                    }
                    Rvalue::Use(Operand::Const(_)) => {}
                    Rvalue::New(c) => match self.p.class_by_name(c) {
                        Some(cls) if shape == TaskShape::Thread => {
                            self.thread_alloc(q, m, body, d, cls, hops, flow)
                        }
                        Some(cls) => q.out.push(TaskSource {
                            kind: SourceKind::Class(cls),
                            entry,
                            via_flow: flow,
                        }),
                        None => self.unknown(q, body, v, entry, flow),
                    },
                    Rvalue::FieldLoad { field, .. } | Rvalue::StaticLoad(field) => {
                        let is_static = matches!(value, Rvalue::StaticLoad(_));
                        let stores = match (self.flow, hops < self.max_hops) {
                            (Some(f), true) => f.field_stores(field, is_static),
                            _ => None,
                        };
                        match stores {
                            Some(stores) if !stores.is_empty() => {
                                for (sm, sbody, val) in stores {
                                    if let Operand::Var(w) = val {
                                        self.var(q, sm, &sbody, w, shape, entry, hops + 1, true);
                                    }
                                }
                            }
                            _ => self.unknown(q, body, v, entry, flow),
                        }
                    }
                    _ => self.unknown(q, body, v, entry, flow),
                },
                StmtKind::InvokeDynamic { call, .. } if decode_lambda(call).is_some() => {
                    if shape != TaskShape::Thread {
                        q.out.push(TaskSource {
                            kind: SourceKind::Lambda(m, d),
                            entry,
                            via_flow: flow,
                        });
                    }
                }
                _ => self.unknown(q, body, v, entry, flow),
            }
        }
    }

    /// `new C(...)` used as a thread: `C.run()` when `C` overrides
    /// `Thread.run`, else the `Runnable` passed to the constructor.
    #[allow(clippy::too_many_arguments)]
    fn thread_alloc(
        &self,
        q: &mut Query,
        m: MethodId,
        body: &Body,
        new_stmt: StmtId,
        cls: ClassId,
        hops: u32,
        flow: bool,
    ) {
        let p = self.p;
        let run = p.dispatch(cls, "run", "()V");
        let overridden =
            run.is_some_and(|r| &*p.class(p.method(r).class).name != lockstep_models::THREAD_CLASS);
        if overridden {
            q.out.push(TaskSource {
                kind: SourceKind::Class(cls),
                entry: &THREAD,
                via_flow: flow,
            });
            return;
        }
        let mut found_ctor = false;
        for s in &body.stmts {
            let StmtKind::Invoke { call, .. } = &s.kind else {
                continue;
            };
            if &*call.method.name != "<init>" {
                continue;
            }
            let Some(Operand::Var(r)) = &call.receiver else {
                continue;
            };
            if copy_origin(body, *r) != Some(new_stmt) {
                continue;
            }
            found_ctor = true;
            let params = descriptor::param_types(&call.method.descriptor).unwrap_or_default();
            let runnable = params.iter().position(|t| *t == "Ljava/lang/Runnable;");
            match runnable.and_then(|i| call.args.get(i)) {
                Some(Operand::Var(a)) => {
                    self.var(q, m, body, *a, TaskShape::Functional, &RUNNABLE, hops, flow)
                }
                Some(Operand::Const(_)) => {}
                None if &*p.class(cls).name != lockstep_models::THREAD_CLASS => {
                    q.out.push(TaskSource {
                        // A subclass that does not override run and takes no
                        // Runnable: Thread.run, which runs whatever target a
                        // super constructor got.
                        kind: SourceKind::Class(cls),
                        entry: &THREAD,
                        via_flow: flow,
                    })
                }
                None => {}
            }
        }
        if !found_ctor {
            q.out.push(TaskSource {
                kind: SourceKind::Class(cls),
                entry: &THREAD,
                via_flow: flow,
            });
        }
    }
}

/// The statement a variable's value comes from, through copies and casts.
pub(crate) fn copy_origin(body: &Body, mut v: VarId) -> Option<StmtId> {
    for _ in 0..64 {
        let d = body.unique_def.get(v.index()).copied().flatten()?;
        match &body.stmts.get(d.index())?.kind {
            StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _),
                ..
            } => v = *w,
            _ => return Some(d),
        }
    }
    None
}
