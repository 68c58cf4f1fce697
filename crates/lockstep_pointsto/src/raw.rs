//! What the fast solver hands over when it is done: its tables and pointer
//! nodes by id, before [`crate::PointsToResult`] packages them for queries.

use std::sync::Arc;

use lockstep_ir::StmtId;
use lockstep_models::TaskLaunch;
use lockstep_program::{EdgeKind, EntryPoints, MethodId};
use rustc_hash::FxHashMap;

use crate::ids::{CtxId, FieldId, MCtxId, ObjId, PtrId, SiteId, Slot};
use crate::intern::Interner;
use crate::keys::{FieldKey, SiteKey};
use crate::pts::IdSet;

/// What a pointer node is (for canonical output).
#[derive(Debug, Clone, Copy)]
pub(crate) enum PtrKind {
    Var(MCtxId, Slot),
    Field(ObjId, FieldId),
    Static(FieldId),
    Exc,
    /// Solver temporaries (models), not part of the result's meaning.
    Temp,
}

/// A thread start as the solver records it.
pub(crate) struct RawThreadStart {
    pub caller: MCtxId,
    pub stmt: StmtId,
    pub launch: &'static TaskLaunch,
    pub task: ObjId,
}

/// The solver's state, handed over for packaging.
pub(crate) struct RawResult {
    pub entries: EntryPoints,
    pub sites: Vec<SiteKey>,
    pub site_types: Vec<Arc<str>>,
    pub fields: Interner<FieldKey, FieldId>,
    pub contexts: Vec<Box<[SiteId]>>,
    pub objects: Vec<(SiteId, CtxId)>,
    pub method_contexts: Vec<(MethodId, CtxId)>,
    pub mctx_base: Vec<PtrId>,
    pub var_slots: FxHashMap<MethodId, Arc<[Slot]>>,
    pub pts: Vec<IdSet>,
    pub kinds: Vec<PtrKind>,
    pub field_ptr: FxHashMap<(ObjId, FieldId), PtrId>,
    pub static_ptr: FxHashMap<FieldId, PtrId>,
    pub exc_ptr: Option<PtrId>,
    pub cs_edges: Vec<(MCtxId, StmtId, EdgeKind, MCtxId)>,
    pub thread_starts: Vec<RawThreadStart>,
    pub class_inits: Vec<MethodId>,
    pub iterations: u64,
    pub budget_fallbacks: u64,
    pub per_caller_fallbacks: u64,
    pub shared_pipeline_calls: u64,
    pub modelled_calls: u64,
    pub model_callbacks: usize,
    pub budget_cut: Option<crate::result::BudgetCut>,
    pub copy_edges: usize,
    pub templates_built: usize,
    pub millis: u128,
}
