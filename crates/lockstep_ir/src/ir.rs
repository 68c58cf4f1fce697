//! The IR data model: a typed three-address form of one method body.
//!
//! Invariants (checked by [`crate::validate`]):
//! - every statement has at most one heap access (field, static, array
//!   element) or one call;
//! - blocks partition the statements in order; only the last statement of a
//!   block may transfer control (`If`, `Goto`, `Switch`, `Return`, `Throw`);
//!   a block whose last statement is not a terminator falls through to the
//!   next block, which is then its first normal successor;
//! - block 0 is the entry and has no predecessors;
//! - parameters (`this` included) are variables without a defining
//!   statement; every other variable used is defined by some statement
//!   (when the source reassigns a parameter, the parameter variable keeps
//!   the incoming value and a local copy `vN = param` at entry carries the
//!   reassigned web);
//! - an exceptional edge leaves from *every* statement of its block: a
//!   dataflow analysis feeds a handler the join of the states before each
//!   statement of the block (blocks are split at handler-range boundaries and
//!   after `monitorenter`/`monitorexit` so this stays precise).
//!
//! - a `monitorenter` is outside its own region and a `monitorexit` inside
//!   the region it releases ([`Body::held_before`]); `monitorenter` and
//!   `monitorexit` always end their block.
//!
//! The IR deliberately knows nothing of other methods: calls are symbolic
//! references, resolved by the program model.
//!
//! Helpers over statements (what a statement defines, uses, branches to)
//! are in `visit.rs`: [`StmtKind::def`], [`StmtKind::for_each_use`],
//! [`StmtKind::for_each_target`]...

use std::fmt;
use std::sync::Arc;

pub use lockstep_classfile::{ArithOp, ArrayKind, CompareOp, Cond, ConvertTo, MemberRef};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}
id_type!(
    /// A variable of one body: index into [`Body::vars`].
    VarId
);
id_type!(
    /// A statement of one body: index into [`Body::stmts`].
    StmtId
);
id_type!(
    /// A basic block of one body: index into [`Body::blocks`].
    BlockId
);
id_type!(
    /// A synchronized region of one body: index into [`Body::monitors`].
    MonitorId
);

/// Value types, at the precision the analyses need.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// `int`, and the sub-int types `boolean`, `byte`, `char`, `short`
    /// (the JVM computes on them as `int`).
    Int,
    Long,
    Float,
    Double,
    /// A reference; the class is the internal name (`java/lang/String`) or
    /// an array descriptor (`[I`, `[Ljava/lang/Object;`), when known.
    Ref(Option<Arc<str>>),
    /// The `null` literal, before it meets a more precise type.
    Null,
    /// A `jsr` return address.
    ReturnAddress,
}

/// Where a variable came from in the bytecode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VarOrigin {
    /// The receiver of an instance method.
    This,
    /// Declared parameter `n` (0-based, not counting `this`).
    Param(u16),
    /// A web of definitions of local-variable slot `n`.
    Local(u16),
    /// A value live on the operand stack across a block boundary, at depth `n`.
    Stack(u16),
    /// A single-definition temporary from the operand stack.
    Temp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarInfo {
    pub ty: Type,
    pub origin: VarOrigin,
    /// Source name from the `LocalVariableTable`, when there is one.
    pub name: Option<Arc<str>>,
}

/// A constant operand.
#[derive(Debug, Clone, PartialEq)]
pub enum ConstValue {
    Null,
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    String(Arc<str>),
    /// A class literal (`Foo.class`): internal name or array descriptor.
    Class(Arc<str>),
    MethodType(Arc<str>),
    MethodHandle(MethodHandle),
    /// A dynamically-computed constant (`CONSTANT_Dynamic`).
    Dynamic {
        name: Arc<str>,
        descriptor: Arc<str>,
    },
}

/// A `CONSTANT_MethodHandle`, resolved.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MethodHandle {
    /// JVMS reference kind: 1 getField … 5 invokeVirtual, 6 invokeStatic,
    /// 7 invokeSpecial, 8 newInvokeSpecial, 9 invokeInterface.
    pub kind: u8,
    pub member: MemberRef,
    pub is_interface: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Var(VarId),
    Const(ConstValue),
}

impl Operand {
    pub fn var(&self) -> Option<VarId> {
        match self {
            Operand::Var(v) => Some(*v),
            Operand::Const(_) => None,
        }
    }
}

/// How a call is dispatched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallKind {
    Virtual,
    Interface,
    /// Constructors, private methods, `super.m()`.
    Special,
    Static,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub kind: CallKind,
    pub method: MemberRef,
    /// The constant was an `InterfaceMethodref`.
    pub interface_ref: bool,
    /// `None` for static calls.
    pub receiver: Option<Operand>,
    pub args: Vec<Operand>,
}

/// An `invokedynamic` site.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicCall {
    pub bootstrap: MethodHandle,
    pub bootstrap_args: Vec<ConstValue>,
    /// The call site's name (for `LambdaMetafactory`, the interface method's name).
    pub name: Arc<str>,
    /// The call site's descriptor: captured values in, the functional object out.
    pub descriptor: Arc<str>,
    pub args: Vec<Operand>,
}

/// The right-hand side of an assignment.
#[derive(Debug, Clone, PartialEq)]
pub enum Rvalue {
    Use(Operand),
    Binary(ArithOp, Operand, Operand),
    Neg(Operand),
    Convert(ConvertTo, Operand),
    Compare(CompareOp, Operand, Operand),
    InstanceOf(Operand, Arc<str>),
    Cast(Operand, Arc<str>),
    /// `new C` (uninitialised until its `<init>` call).
    New(Arc<str>),
    /// `newarray`/`anewarray`/`multianewarray`: the array type descriptor and one length per dimension given.
    NewArray(Arc<str>, Vec<Operand>),
    /// Heap read of an instance field.
    FieldLoad {
        object: Operand,
        field: MemberRef,
    },
    /// Heap read of a static field.
    StaticLoad(MemberRef),
    /// Heap read of an array element.
    ArrayLoad {
        array: Operand,
        index: Operand,
        kind: ArrayKind,
    },
    ArrayLength(Operand),
    /// The exception object at the start of a handler.
    CaughtException,
}

/// What a statement does.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    Assign {
        dst: VarId,
        value: Rvalue,
    },
    FieldStore {
        object: Operand,
        field: MemberRef,
        value: Operand,
    },
    StaticStore {
        field: MemberRef,
        value: Operand,
    },
    ArrayStore {
        array: Operand,
        index: Operand,
        value: Operand,
        kind: ArrayKind,
    },
    /// A call; `result` is `None` for `void` methods or when the result is discarded.
    Invoke {
        result: Option<VarId>,
        call: Call,
    },
    InvokeDynamic {
        result: Option<VarId>,
        call: DynamicCall,
    },
    MonitorEnter(Operand),
    MonitorExit(Operand),
    /// Branch to `target` when `lhs cond rhs`, else fall through to the next block.
    If {
        cond: Cond,
        lhs: Operand,
        rhs: Operand,
        target: BlockId,
    },
    Goto(BlockId),
    Switch {
        key: Operand,
        cases: Vec<(i32, BlockId)>,
        default: BlockId,
    },
    Return(Option<Operand>),
    Throw(Operand),
    /// A `jsr` subroutine return (`ret`) that could not be inlined, to all listed blocks.
    Ret {
        address: VarId,
        targets: Vec<BlockId>,
    },
    Nop,
}

impl StmtKind {
    /// Does this statement end its block by transferring control?
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            StmtKind::If { .. }
                | StmtKind::Goto(_)
                | StmtKind::Switch { .. }
                | StmtKind::Return(_)
                | StmtKind::Throw(_)
                | StmtKind::Ret { .. }
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    /// Byte offset of the instruction this statement came from (for copies
    /// made at a block's end, its last instruction; inlined `jsr`
    /// subroutines repeat their pcs in each copy).
    pub pc: u32,
    /// Source line, from the `LineNumberTable`.
    pub line: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExceptionEdge {
    pub handler: BlockId,
    /// Internal name of the caught class; `None` catches everything.
    pub catch: Option<Arc<str>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Statements `first..end` (by [`StmtId`] index).
    pub first: StmtId,
    pub end: StmtId,
    /// Normal successors, deduplicated: the fall-through first for `If`;
    /// for `Switch` the default, then the cases in order; for `Ret` its targets.
    pub succs: Vec<BlockId>,
    /// Handlers that may be entered from any statement of this block, in
    /// exception-table order, cut after the first catch-all (a handler after
    /// it is unreachable from here). Several entries may name the same
    /// handler with different catch types (multi-catch).
    pub exceptional: Vec<ExceptionEdge>,
    /// Normal and exceptional predecessors, sorted, deduplicated.
    pub preds: Vec<BlockId>,
}

impl Block {
    pub fn stmt_ids(&self) -> impl Iterator<Item = StmtId> {
        (self.first.0..self.end.0).map(StmtId)
    }
}

/// How the monitor of a region is acquired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MonitorKind {
    /// A `synchronized` method: the whole body, on `this` or the class object.
    SynchronizedMethod,
    /// A `monitorenter` with its matching `monitorexit`s.
    Block,
}

/// A synchronized region.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorRegion {
    pub kind: MonitorKind,
    /// The lock as the source reads it.
    pub lock: AccessPath,
    /// The variable holding the lock (`None` for synchronized methods, whose lock is `this` or a class literal).
    pub lock_var: Option<VarId>,
    /// The `monitorenter` (`None` for synchronized methods).
    pub enter: Option<StmtId>,
    /// Every `monitorexit` releasing this region, on normal and exceptional paths.
    pub exits: Vec<StmtId>,
    /// The innermost enclosing region, if nested.
    pub parent: Option<MonitorId>,
}

/// A value described the way source code names it, so locks and receivers
/// can be compared syntactically and printed as the source reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AccessPath {
    This,
    /// Parameter `index` (0-based, not counting `this`) with its source name if known.
    Param(u16, Option<Arc<str>>),
    /// A local variable whose value has no shorter description (several definitions, a call result, an allocation...).
    Local(VarId, Option<Arc<str>>),
    /// A static field: declaring class (internal name) and field name.
    Static(Arc<str>, Arc<str>),
    /// An instance field of the value described by the base.
    Field(Arc<AccessPath>, Arc<str>),
    /// An array element.
    Element(Arc<AccessPath>, Arc<AccessPath>),
    /// The enclosing instance of an inner class (`Outer.this` in source),
    /// read through javac's synthetic `this$N` field of the base; the class
    /// is the outer class (internal name, from the field's descriptor).
    /// `Field(base, "this$0")` would lose the outer class, which the
    /// source form `Outer.this` needs.
    OuterThis(Arc<AccessPath>, Arc<str>),
    /// A class literal (`Foo.class`), also the lock of static synchronized methods.
    ClassLiteral(Arc<str>),
    IntConst(i32),
    /// Too deep or not describable (e.g. a constant string).
    Unknown,
}

/// The IR of one method body.
#[derive(Debug, Clone)]
pub struct Body {
    /// Internal name of the declaring class.
    pub class: Arc<str>,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
    pub is_static: bool,
    pub is_synchronized: bool,
    pub source_file: Option<Arc<str>>,
    pub vars: Vec<VarInfo>,
    /// `this` first (instance methods), then the declared parameters in order.
    /// `long`/`double` parameters are one variable each. They are always
    /// `v0..vN`; the other variables follow in order of first appearance.
    pub params: Vec<VarId>,
    pub stmts: Vec<Stmt>,
    pub blocks: Vec<Block>,
    pub monitors: Vec<MonitorRegion>,
    /// For each statement, the innermost region whose monitor is held
    /// *before* it executes (its `parent` chain gives the rest).
    /// A `monitorenter` is outside its own region; a `monitorexit` is inside
    /// the region it releases (in the chain; innermost unless the locking is
    /// unstructured, which `notes` then reports).
    pub held_before: Vec<Option<MonitorId>>,
    /// For each variable, its defining statement when it has exactly one (parameters: `None`).
    pub unique_def: Vec<Option<StmtId>>,
    /// The block of each statement.
    pub block_of: Vec<BlockId>,
    /// Non-fatal findings of the lowering (e.g. unstructured locking), for diagnostics.
    pub notes: Vec<String>,
}

impl Body {
    /// The monitor regions held before statement `s`, outermost first: the
    /// innermost region of `held_before` and its parents. Bounded by the
    /// number of regions, so a malformed parent chain cannot loop.
    pub fn regions_held_before(&self, s: StmtId) -> Vec<MonitorId> {
        let mut chain = Vec::new();
        let mut r = self.held_before.get(s.index()).copied().flatten();
        while let Some(id) = r {
            if chain.len() > self.monitors.len() {
                break;
            }
            chain.push(id);
            r = self.monitors.get(id.index()).and_then(|m| m.parent);
        }
        chain.reverse();
        chain
    }
}

impl fmt::Display for VarId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}
