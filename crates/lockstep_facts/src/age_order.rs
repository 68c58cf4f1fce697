//! Creation order: locks walked from an object to objects younger than it.
//!
//! Order objects by when their construction began (the first `<init>` run
//! on them). At the moment a constructor starts, every object it can name
//! other than its own `this` already exists, so is older; every object a
//! method allocates is younger than every object the method was handed.
//! A structure whose every link goes from an older object to a younger
//! one has no cycle, and a walk along its links meets objects in creation
//! order: one global order, whatever objects two threads start from.
//!
//! commons-dbcp 1.4's `AbandonedTrace` is such a structure: a trace holds
//! its children in a list and `printStackTrace` holds the list while it
//! calls each child's `printStackTrace`, which takes the child's list. A
//! child is added to its parent in `init(parent)`, run by the child's
//! constructors (the parent is a constructor argument, so older), or in
//! `activate()` to the connection stored by the statement's constructor
//! (again a constructor argument). One allocation site makes every list,
//! so the abstract lock order has "list, then list" both ways; the
//! run-time order is parent, then child, always.
//!
//! The fact has two halves:
//!
//! - **Ordered fields** ([`AgeOrder::ordered`]): a field (by name and
//!   descriptor, in any application class) whose every store is, in a
//!   constructor, a fresh JDK collection stored into `this`, whose every
//!   read value is used only by calls that do not let the collection
//!   escape (lookups, removals, iteration, copies, its monitor), and whose
//!   every insertion adds an object younger than the field's owner.
//!   Younger is proved at the insertion (a `new` object added to a
//!   parameter's or `this`'s collection; a constructor's `this` added to a
//!   collection of one of its parameters; `this` added to the collection
//!   of `this.g` where `g` only ever holds a constructor argument or
//!   `null`), or, when element and owner are both parameters of a method
//!   no caller outside the program can call (not public), at every call
//!   of it in the program (a few calls up).
//! - **Descents** ([`AgeOrder::descends`]): a variable holding an element
//!   read from an ordered field `P.f` (an iterator's `next()` or a
//!   `get`), with `P` `this` or a parameter: the element is younger than
//!   `P`'s object. The lock-order facts record an acquisition of a lock
//!   owned by that element, made while the body holds a lock owned by
//!   `P`'s object, as a descent from that held lock
//!   ([`crate::lock_order::Acquisition::descends_from`]).
//!
//! Assumed: non-public methods are called only by the program's code (the
//! rule `harness_gates` uses too), no reflection, method handle or
//! deserialization stores into these fields or calls the insertion
//! methods, and the collection classes are the JDK's.

use std::sync::Arc;

use lockstep_ir::{AccessPath, Body, ConstValue, Operand, Rvalue, StmtKind, VarId};
use lockstep_models::content::{content_class, content_op, cursor_op, ContentKind, ContentOp};
use lockstep_models::content::{CursorKind, CursorOp};
use lockstep_program::{MethodId, Program};
use rustc_hash::FxHashMap;

/// A field or method by name and descriptor (in any class).
type Key = (Arc<str>, Arc<str>);

/// Statements of application code, by the field or method they name.
#[derive(Default)]
struct Index {
    loads: FxHashMap<Key, Vec<(MethodId, usize)>>,
    stores: FxHashMap<Key, Vec<(MethodId, usize)>>,
    calls: FxHashMap<Key, Vec<(MethodId, usize)>>,
}

/// Calls followed up from an insertion whose element and owner are both
/// parameters.
const MAX_CALL_DEPTH: u8 = 3;

/// Copies and casts followed back to a value's definition.
const MAX_COPIES: u8 = 8;

/// Ordered and elder fields of one program (computed on demand, cached).
#[derive(Default)]
pub struct AgeOrder {
    index: Option<Index>,
    ordered: FxHashMap<Key, bool>,
    elder: FxHashMap<Key, bool>,
}

impl AgeOrder {
    /// If `v` (of `body`) holds an element read from an ordered field
    /// `P.f` with `P` `this` or a parameter, the path `P`: the object in
    /// `v` is younger than the object `P` names.
    pub fn descends(&mut self, program: &Program, body: &Body, v: VarId) -> Option<AccessPath> {
        let (collection, _) = element_source(body, root(body, v))?;
        let StmtKind::Assign {
            value: Rvalue::FieldLoad { object, field },
            ..
        } = crate::util::unique_def_of(body, root(body, collection))?
        else {
            return None;
        };
        let owner = access_path_of(body, object)?;
        let key = (field.name.clone(), field.descriptor.clone());
        self.ordered(program, &key).then_some(owner)
    }

    /// Is the field an ordered field (see the module docs)?
    fn ordered(&mut self, program: &Program, key: &Key) -> bool {
        if let Some(&v) = self.ordered.get(key) {
            return v;
        }
        // Cycles through this field's own insertions see "not ordered".
        self.ordered.insert(key.clone(), false);
        let v = self.compute_ordered(program, key);
        self.ordered.insert(key.clone(), v);
        v
    }

    fn compute_ordered(&mut self, program: &Program, key: &Key) -> bool {
        let index = self.index.get_or_insert_with(|| index(program));
        let stores = index.stores.get(key).cloned().unwrap_or_default();
        let loads = index.loads.get(key).cloned().unwrap_or_default();
        if stores.is_empty() {
            return false;
        }
        let fresh_collections = stores.iter().all(|&(m, s)| {
            program.method(m).is_constructor()
                && program
                    .body(m)
                    .is_some_and(|b| stores_new_collection(&b, s))
        });
        if !fresh_collections {
            return false;
        }
        loads.iter().all(|&(m, s)| {
            let Some(body) = program.body(m) else {
                return false;
            };
            let Some(StmtKind::Assign {
                dst,
                value: Rvalue::FieldLoad { object, .. },
            }) = body.stmts.get(s).map(|s| &s.kind)
            else {
                return false;
            };
            self.uses_keep_order(program, (m, &body), *dst, object)
        })
    }

    /// Is every use of `v` (a value of the collection field read from
    /// `owner`) one that adds no object other than a younger one and
    /// lets the collection go nowhere?
    fn uses_keep_order(
        &mut self,
        program: &Program,
        (m, body): (MethodId, &Body),
        v: VarId,
        owner: &Operand,
    ) -> bool {
        let names = copies(body, v);
        let is = |op: &Operand| op.var().is_some_and(|x| names.contains(&x));
        for stmt in &body.stmts {
            let ok = match &stmt.kind {
                StmtKind::Assign { .. }
                | StmtKind::MonitorEnter(_)
                | StmtKind::MonitorExit(_)
                | StmtKind::If { .. }
                | StmtKind::Switch { .. }
                | StmtKind::Goto(_)
                | StmtKind::Ret { .. }
                | StmtKind::Nop => true,
                StmtKind::FieldStore { object, value, .. } => !is(object) && !is(value),
                StmtKind::StaticStore { value, .. } => !is(value),
                StmtKind::ArrayStore { value, .. } => !is(value),
                StmtKind::Return(op) => !op.as_ref().is_some_and(is),
                StmtKind::Throw(op) => !is(op),
                StmtKind::InvokeDynamic { call, .. } => !call.args.iter().any(is),
                StmtKind::Invoke { call, result } => {
                    if call.receiver.as_ref().is_some_and(is) {
                        self.collection_call(program, (m, body), call, *result, owner)
                    } else {
                        // Handed to a JDK collection's constructor: copied.
                        !call.args.iter().any(is)
                            || (&*call.method.name == "<init>"
                                && content_class(&call.method.class).is_some())
                    }
                }
            };
            if !ok {
                return false;
            }
        }
        true
    }

    /// Does a call on the collection keep the order: it adds nothing, or
    /// only objects younger than `owner`, and makes no view that could
    /// add (an iterator is followed: `ListIterator.add` adds)?
    fn collection_call(
        &mut self,
        program: &Program,
        (m, body): (MethodId, &Body),
        call: &lockstep_ir::Call,
        result: Option<VarId>,
        owner: &Operand,
    ) -> bool {
        if !call.method.class.starts_with("java/util/") {
            return false;
        }
        match content_op(
            ContentKind::Collection,
            &call.method.name,
            &call.method.descriptor,
        ) {
            None => true,
            Some(ContentOp::Store { .. }) => {
                let elements = element_args(&call.method.descriptor, &call.args);
                elements
                    .into_iter()
                    .all(|e| self.younger(program, (m, body), (e, owner), 0))
            }
            Some(ContentOp::Iterator) => result.is_none_or(|it| iterator_only_reads(body, it)),
            Some(
                ContentOp::StoreAll
                | ContentOp::ReplaceAll
                | ContentOp::Same
                | ContentOp::Construct
                | ContentOp::KeySet
                | ContentOp::Values
                | ContentOp::EntrySet,
            ) => false,
            Some(_) => true,
        }
    }

    /// Is the object `e` younger than the object `owner` at this
    /// statement of `body`?
    fn younger(
        &mut self,
        program: &Program,
        (m, body): (MethodId, &Body),
        (e, owner): (&Operand, &Operand),
        depth: u8,
    ) -> bool {
        let (e, owner) = match (e, owner) {
            (Operand::Const(ConstValue::Null), _) | (_, Operand::Const(ConstValue::Null)) => {
                return true
            }
            (Operand::Var(e), Operand::Var(o)) => (root(body, *e), root(body, *o)),
            _ => return false,
        };
        let (ep, op) = (entry_path(body, e), entry_path(body, owner));
        // A fresh object added to an object the method was handed.
        if op.is_some() && is_new(body, e) {
            return true;
        }
        match (&ep, &op) {
            // A constructor's `this` added to one of its arguments.
            (Some(AccessPath::This), Some(AccessPath::Param(..)))
                if program.method(m).is_constructor() =>
            {
                return true
            }
            // `this` added to `this.g`, where `g` holds only a
            // constructor argument (or nothing).
            (Some(AccessPath::This), None) if self.elder_of_this(program, body, owner) => {
                return true
            }
            _ => {}
        }
        match (ep, op) {
            (Some(ep), Some(op)) if ep != op && depth < MAX_CALL_DEPTH => {
                self.younger_at_callers(program, m, (&ep, &op), depth)
            }
            _ => false,
        }
    }

    /// Is `e` younger than `owner` (entry paths of non-public method `m`)
    /// at every call of `m` in the program?
    fn younger_at_callers(
        &mut self,
        program: &Program,
        m: MethodId,
        (e, owner): (&AccessPath, &AccessPath),
        depth: u8,
    ) -> bool {
        let data = program.method(m);
        if data.is_public() {
            return false;
        }
        let key: Key = (data.name.clone(), data.descriptor.clone());
        let index = self.index.get_or_insert_with(|| index(program));
        let sites = index.calls.get(&key).cloned().unwrap_or_default();
        !sites.is_empty()
            && sites.iter().all(|&(caller, s)| {
                let Some(body) = program.body(caller) else {
                    return false;
                };
                let Some(StmtKind::Invoke { call, .. }) = body.stmts.get(s).map(|s| &s.kind) else {
                    return false;
                };
                match (actual(call, e), actual(call, owner)) {
                    (Some(ae), Some(ao)) => {
                        self.younger(program, (caller, &body), (ae, ao), depth + 1)
                    }
                    _ => false,
                }
            })
    }

    /// Is `owner` read from `this.g` with `g` an elder field: every store
    /// of it (by name and descriptor) is `null`, or a constructor storing
    /// one of its parameters into its own `this`?
    fn elder_of_this(&mut self, program: &Program, body: &Body, owner: VarId) -> bool {
        let Some(StmtKind::Assign {
            value: Rvalue::FieldLoad { object, field },
            ..
        }) = crate::util::unique_def_of(body, owner)
        else {
            return false;
        };
        if access_path_of(body, object) != Some(AccessPath::This) {
            return false;
        }
        let key = (field.name.clone(), field.descriptor.clone());
        if let Some(&v) = self.elder.get(&key) {
            return v;
        }
        let index = self.index.get_or_insert_with(|| index(program));
        let stores = index.stores.get(&key).cloned().unwrap_or_default();
        let v = !stores.is_empty()
            && stores.iter().all(|&(m, s)| {
                program
                    .body(m)
                    .is_some_and(|b| stores_argument(program, m, &b, s))
            });
        self.elder.insert(key, v);
        v
    }
}

/// Every field load, field store and call of application code.
fn index(program: &Program) -> Index {
    let mut out = Index::default();
    for class in program.application_classes() {
        for &m in &program.class(class).methods {
            let Some(body) = program.body(m) else {
                continue;
            };
            for (i, s) in body.stmts.iter().enumerate() {
                let (map, r) = match &s.kind {
                    StmtKind::Assign {
                        value: Rvalue::FieldLoad { field, .. },
                        ..
                    } => (&mut out.loads, field),
                    StmtKind::FieldStore { field, .. } => (&mut out.stores, field),
                    StmtKind::Invoke { call, .. } => (&mut out.calls, &call.method),
                    _ => continue,
                };
                map.entry((r.name.clone(), r.descriptor.clone()))
                    .or_default()
                    .push((m, i));
            }
        }
    }
    out
}

/// `v` through copies and casts to the variable they copy.
pub(crate) fn root(body: &Body, mut v: VarId) -> VarId {
    for _ in 0..MAX_COPIES {
        match crate::util::unique_def_of(body, v) {
            Some(StmtKind::Assign {
                value: Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _),
                ..
            }) => v = *w,
            _ => break,
        }
    }
    v
}

/// The variables holding `v`'s value: `v` and its copies and casts
/// (transitively).
fn copies(body: &Body, v: VarId) -> Vec<VarId> {
    let mut out = vec![v];
    let mut i = 0;
    while let Some(&x) = out.get(i) {
        i += 1;
        for s in &body.stmts {
            if let StmtKind::Assign {
                dst,
                value: Rvalue::Use(Operand::Var(w)) | Rvalue::Cast(Operand::Var(w), _),
            } = &s.kind
            {
                if *w == x && !out.contains(dst) {
                    out.push(*dst);
                }
            }
        }
    }
    out
}

/// `this` or a parameter, when `v` is one (an entry value of the body).
fn entry_path(body: &Body, v: VarId) -> Option<AccessPath> {
    body.params
        .contains(&v)
        .then(|| lockstep_ir::access_path(body, v))
}

/// [`entry_path`] of an operand, through copies.
fn access_path_of(body: &Body, op: &Operand) -> Option<AccessPath> {
    entry_path(body, root(body, op.var()?))
}

/// Is `v` made by `new` in this body?
fn is_new(body: &Body, v: VarId) -> bool {
    matches!(
        crate::util::unique_def_of(body, v),
        Some(StmtKind::Assign {
            value: Rvalue::New(_),
            ..
        })
    )
}

/// The collection variable `v` was read from and how: an iterator's
/// `next()` over `c.iterator()`, or `c.get(..)`.
fn element_source(body: &Body, v: VarId) -> Option<(VarId, ContentOp)> {
    let StmtKind::Invoke { call, .. } = crate::util::unique_def_of(body, v)? else {
        return None;
    };
    if !call.method.class.starts_with("java/util/") {
        return None;
    }
    let recv = root(body, call.receiver.as_ref()?.var()?);
    if cursor_op(CursorKind::Iterator, &call.method.name) == Some(CursorOp::Next) {
        let StmtKind::Invoke { call: make, .. } = crate::util::unique_def_of(body, recv)? else {
            return None;
        };
        let op = content_op(
            ContentKind::Collection,
            &make.method.name,
            &make.method.descriptor,
        )?;
        if op != ContentOp::Iterator || !make.method.class.starts_with("java/util/") {
            return None;
        }
        return Some((make.receiver.as_ref()?.var()?, op));
    }
    match content_op(
        ContentKind::Collection,
        &call.method.name,
        &call.method.descriptor,
    )? {
        op @ ContentOp::Get { .. } => Some((recv, op)),
        _ => None,
    }
}

/// Is iterator `it` used only to read (no `ListIterator.add`/`set`, not
/// handed anywhere)?
fn iterator_only_reads(body: &Body, it: VarId) -> bool {
    let names = copies(body, it);
    let is = |op: &Operand| op.var().is_some_and(|x| names.contains(&x));
    body.stmts.iter().all(|s| match &s.kind {
        StmtKind::Invoke { call, .. } => {
            if call.receiver.as_ref().is_some_and(is) {
                cursor_op(CursorKind::Iterator, &call.method.name) != Some(CursorOp::Store)
                    && !call.args.iter().any(is)
            } else {
                !call.args.iter().any(is)
            }
        }
        StmtKind::FieldStore { value, .. }
        | StmtKind::StaticStore { value, .. }
        | StmtKind::ArrayStore { value, .. }
        | StmtKind::Throw(value) => !is(value),
        StmtKind::Return(op) => !op.as_ref().is_some_and(is),
        StmtKind::InvokeDynamic { call, .. } => !call.args.iter().any(is),
        _ => true,
    })
}

/// The arguments a collection's store call adds as elements: those
/// declared `Object` (an `int` index of `add(int, Object)` is not one).
fn element_args<'c>(descriptor: &str, args: &'c [Operand]) -> Vec<&'c Operand> {
    let params = lockstep_classfile::descriptor::param_types(descriptor).unwrap_or_default();
    if params.len() != args.len() {
        // Unreadable: every argument may be an element.
        return args.iter().collect();
    }
    params
        .iter()
        .zip(args)
        .filter(|(t, _)| t.starts_with('L') || t.starts_with('['))
        .map(|(_, a)| a)
        .collect()
}

/// Is statement `s` of constructor `body` `this.f = new C()` with `C` a
/// modelled JDK collection?
fn stores_new_collection(body: &Body, s: usize) -> bool {
    let Some(StmtKind::FieldStore { object, value, .. }) = body.stmts.get(s).map(|s| &s.kind)
    else {
        return false;
    };
    if access_path_of(body, object) != Some(AccessPath::This) {
        return false;
    }
    let Some(v) = value.var() else {
        return false;
    };
    matches!(
        crate::util::unique_def_of(body, root(body, v)),
        Some(StmtKind::Assign { value: Rvalue::New(c), .. })
            if content_class(c).is_some_and(|k| k.kind == ContentKind::Collection)
    )
}

/// Is statement `s` of `m` a store of `null`, or a constructor storing
/// one of its parameters (not `this`) into its own `this`?
fn stores_argument(program: &Program, m: MethodId, body: &Body, s: usize) -> bool {
    let Some(StmtKind::FieldStore { object, value, .. }) = body.stmts.get(s).map(|s| &s.kind)
    else {
        return false;
    };
    match value {
        Operand::Const(ConstValue::Null) => true,
        Operand::Const(_) => false,
        Operand::Var(v) => {
            program.method(m).is_constructor()
                && access_path_of(body, object) == Some(AccessPath::This)
                && matches!(
                    entry_path(body, root(body, *v)),
                    Some(AccessPath::Param(..))
                )
        }
    }
}

/// The operand a call passes for the callee's entry path `p`.
fn actual<'c>(call: &'c lockstep_ir::Call, p: &AccessPath) -> Option<&'c Operand> {
    match p {
        AccessPath::This => call.receiver.as_ref(),
        AccessPath::Param(i, _) => call.args.get(usize::from(*i)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_args_skip_an_index() {
        let args = [
            Operand::Const(ConstValue::Int(0)),
            Operand::Const(ConstValue::Null),
        ];
        let picked = element_args("(ILjava/lang/Object;)V", &args);
        assert_eq!(picked, vec![&args[1]]);
        // An unreadable descriptor keeps every argument.
        assert_eq!(element_args("bad", &args).len(), 2);
    }
}
