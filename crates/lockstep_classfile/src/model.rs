//! The parsed form of a class file.
//!
//! This is a faithful, owned model of what the class file says, with
//! instructions decoded into [`Insn`] and normalised (all `iconst_*`,
//! `bipush`, `sipush` become [`Insn::IConst`]; `wide` forms and the `_n`
//! shortcuts become the general form; branch targets are absolute byte
//! offsets). It deliberately knows nothing about what the code *means*
//! (stack simulation, control flow, monitors): that is the IR's job.
//!
//! Names are kept in JVM internal form (`java/lang/Object`); descriptors are
//! kept as written (`(ILjava/lang/String;)V`).

use std::sync::Arc;

/// Access flag bits shared by classes, fields and methods (JVMS §4.1, §4.5, §4.6).
pub mod access {
    pub const PUBLIC: u16 = 0x0001;
    pub const PRIVATE: u16 = 0x0002;
    pub const PROTECTED: u16 = 0x0004;
    pub const STATIC: u16 = 0x0008;
    pub const FINAL: u16 = 0x0010;
    /// `ACC_SYNCHRONIZED` on methods, `ACC_SUPER` on classes.
    pub const SYNCHRONIZED: u16 = 0x0020;
    /// `ACC_VOLATILE` on fields, `ACC_BRIDGE` on methods.
    pub const VOLATILE: u16 = 0x0040;
    pub const BRIDGE: u16 = 0x0040;
    /// `ACC_TRANSIENT` on fields, `ACC_VARARGS` on methods.
    pub const TRANSIENT: u16 = 0x0080;
    pub const NATIVE: u16 = 0x0100;
    pub const INTERFACE: u16 = 0x0200;
    pub const ABSTRACT: u16 = 0x0400;
    pub const STRICT: u16 = 0x0800;
    pub const SYNTHETIC: u16 = 0x1000;
    pub const ANNOTATION: u16 = 0x2000;
    pub const ENUM: u16 = 0x4000;
    pub const MODULE: u16 = 0x8000;
}

/// One parsed class file.
#[derive(Debug, Clone)]
pub struct ClassFile {
    pub minor_version: u16,
    pub major_version: u16,
    pub constant_pool: ConstantPool,
    pub access_flags: u16,
    /// Internal name, e.g. `com/example/Outer$Inner`.
    pub this_class: Arc<str>,
    /// `None` only for `java/lang/Object` and `module-info`.
    pub super_class: Option<Arc<str>>,
    pub interfaces: Vec<Arc<str>>,
    pub fields: Vec<FieldInfo>,
    pub methods: Vec<MethodInfo>,
    pub source_file: Option<Arc<str>>,
    pub signature: Option<Arc<str>>,
    pub inner_classes: Vec<InnerClass>,
    pub enclosing_method: Option<EnclosingMethod>,
    pub nest_host: Option<Arc<str>>,
    pub nest_members: Vec<Arc<str>>,
    /// `Some` when the class has a `Record` attribute.
    pub record_components: Option<Vec<RecordComponent>>,
    pub bootstrap_methods: Vec<BootstrapMethod>,
    pub annotations: Vec<Annotation>,
    /// Non-fatal problems: a malformed *optional* attribute (line table,
    /// annotations, ...) is dropped and described here; the class is still usable.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct FieldInfo {
    pub access_flags: u16,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
    pub signature: Option<Arc<str>>,
    /// `ConstantValue` attribute, when present.
    pub constant_value: Option<Constant>,
    pub annotations: Vec<Annotation>,
}

#[derive(Debug, Clone)]
pub struct MethodInfo {
    pub access_flags: u16,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
    pub signature: Option<Arc<str>>,
    /// `None` for abstract and native methods.
    pub code: Option<Code>,
    pub exceptions: Vec<Arc<str>>,
    pub annotations: Vec<Annotation>,
    /// Per-parameter annotations (visible and invisible merged), by parameter index.
    pub parameter_annotations: Vec<Vec<Annotation>>,
}

#[derive(Debug, Clone)]
pub struct Code {
    pub max_stack: u16,
    pub max_locals: u16,
    /// Length of the bytecode array in bytes.
    pub code_length: u32,
    /// Decoded instructions in order, each with its byte offset.
    pub insns: Vec<(u32, Insn)>,
    pub exception_table: Vec<ExceptionHandler>,
    /// Sorted by `start_pc`.
    pub line_numbers: Vec<LineNumber>,
    pub local_variables: Vec<LocalVariable>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExceptionHandler {
    pub start_pc: u32,
    /// Exclusive.
    pub end_pc: u32,
    pub handler_pc: u32,
    /// Constant-pool index of the caught class; `None` (index 0) catches everything (`finally`).
    pub catch_type: Option<u16>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineNumber {
    pub start_pc: u32,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalVariable {
    pub start_pc: u32,
    pub length: u32,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
    pub index: u16,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InnerClass {
    pub inner_class: Arc<str>,
    pub outer_class: Option<Arc<str>>,
    pub inner_name: Option<Arc<str>>,
    pub access_flags: u16,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnclosingMethod {
    pub class: Arc<str>,
    /// `(name, descriptor)`, absent when the class is not enclosed by a method.
    pub method: Option<(Arc<str>, Arc<str>)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordComponent {
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootstrapMethod {
    /// Constant-pool index of a `MethodHandle`.
    pub method_ref: u16,
    /// Constant-pool indices of the static arguments.
    pub arguments: Vec<u16>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// Field descriptor of the annotation type, e.g. `Lnet/jcip/annotations/GuardedBy;`.
    pub type_descriptor: Arc<str>,
    /// `true` for `RuntimeVisible*Annotations`, `false` for `RuntimeInvisible*` (class retention).
    pub runtime_visible: bool,
    pub elements: Vec<(Arc<str>, ElementValue)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ElementValue {
    /// Primitive and `String` constants (tags `B C D F I J S Z s`). The
    /// constant is `Integer` for `B C I S Z`, `Long`/`Float`/`Double` for
    /// `J F D`, and [`Constant::String`] for `s` (the class file points at
    /// a `Utf8` entry; the value is a string). See [`ElementValue::as_str`].
    Const(char, Constant),
    Enum {
        type_descriptor: Arc<str>,
        name: Arc<str>,
    },
    /// Tag `c`: a return descriptor such as `Ljava/lang/String;` or `V`.
    Class(Arc<str>),
    Annotation(Box<Annotation>),
    Array(Vec<ElementValue>),
}

impl Annotation {
    /// The value of element `name`, if present.
    pub fn element(&self, name: &str) -> Option<&ElementValue> {
        self.elements
            .iter()
            .find(|(n, _)| &**n == name)
            .map(|(_, v)| v)
    }
}

impl ElementValue {
    /// The string of a tag-`s` value (`@GuardedBy("lock")` → `"lock"`).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ElementValue::Const(_, Constant::String(s) | Constant::Utf8(s)) => Some(s),
            _ => None,
        }
    }
}

/// A resolved constant-pool entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Constant {
    /// Slot 0 and the second slot of `long`/`double` entries.
    Unusable,
    Utf8(Arc<str>),
    Integer(i32),
    Float(f32),
    Long(i64),
    Double(f64),
    /// Internal class name (or array descriptor such as `[Ljava/lang/String;`).
    Class(Arc<str>),
    String(Arc<str>),
    FieldRef(MemberRef),
    MethodRef(MemberRef),
    InterfaceMethodRef(MemberRef),
    NameAndType {
        name: Arc<str>,
        descriptor: Arc<str>,
    },
    MethodHandle {
        kind: u8,
        reference: u16,
    },
    MethodType(Arc<str>),
    /// `CONSTANT_Dynamic` (condy).
    Dynamic {
        bootstrap_index: u16,
        name: Arc<str>,
        descriptor: Arc<str>,
    },
    InvokeDynamic {
        bootstrap_index: u16,
        name: Arc<str>,
        descriptor: Arc<str>,
    },
    Module(Arc<str>),
    Package(Arc<str>),
}

/// A field or method reference with names resolved.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemberRef {
    /// Internal name of the class (or array descriptor for methods such as `[I.clone()`).
    pub class: Arc<str>,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
}

/// The constant pool with every entry resolved. Index 0 is [`Constant::Unusable`].
#[derive(Debug, Clone, Default)]
pub struct ConstantPool {
    pub entries: Vec<Constant>,
}

impl ConstantPool {
    pub fn get(&self, index: u16) -> Option<&Constant> {
        self.entries.get(index as usize)
    }
    pub fn utf8(&self, index: u16) -> Option<&Arc<str>> {
        match self.get(index)? {
            Constant::Utf8(s) => Some(s),
            _ => None,
        }
    }
    pub fn class_name(&self, index: u16) -> Option<&Arc<str>> {
        match self.get(index)? {
            Constant::Class(name) => Some(name),
            _ => None,
        }
    }
    pub fn field_ref(&self, index: u16) -> Option<&MemberRef> {
        match self.get(index)? {
            Constant::FieldRef(r) => Some(r),
            _ => None,
        }
    }
    /// A `Methodref` or `InterfaceMethodref`; the flag is `true` for the latter.
    pub fn method_ref(&self, index: u16) -> Option<(&MemberRef, bool)> {
        match self.get(index)? {
            Constant::MethodRef(r) => Some((r, false)),
            Constant::InterfaceMethodRef(r) => Some((r, true)),
            _ => None,
        }
    }
}

/// Primitive/reference kinds used by typed loads, stores, returns and arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Int,
    Long,
    Float,
    Double,
    Ref,
}

impl Kind {
    /// `long` and `double` take two slots (category 2).
    pub fn is_wide(self) -> bool {
        matches!(self, Kind::Long | Kind::Double)
    }
}

/// Element kinds of arrays (`baload` serves both `byte[]` and `boolean[]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArrayKind {
    Int,
    Long,
    Float,
    Double,
    Ref,
    /// `byte` or `boolean` (the same opcodes).
    Byte,
    Char,
    Short,
    /// Only from `newarray` with type code 4.
    Boolean,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    Ushr,
    And,
    Or,
    Xor,
}

/// Target of a conversion opcode (`i2l` is `Convert(Int, Long)`; `i2b` is `Convert(Int, ConvertTo::Byte)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConvertTo {
    Int,
    Long,
    Float,
    Double,
    Byte,
    Char,
    Short,
}

/// `lcmp`, `fcmpl`, `fcmpg`, `dcmpl`, `dcmpg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    LCmp,
    FCmpL,
    FCmpG,
    DCmpL,
    DCmpG,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cond {
    Eq,
    Ne,
    Lt,
    Ge,
    Gt,
    Le,
}

/// What a conditional branch compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IfKind {
    /// `ifeq`…`ifle`: int against zero.
    IntZero(Cond),
    /// `if_icmpeq`…: two ints.
    IntCmp(Cond),
    /// `if_acmpeq`/`if_acmpne` (only `Eq`/`Ne`).
    RefCmp(Cond),
    /// `ifnull` (`Eq`) / `ifnonnull` (`Ne`).
    Null(Cond),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvokeKind {
    Virtual,
    Special,
    Static,
    Interface,
}

/// One decoded instruction. Constant-pool operands are indices, checked by
/// the parser to refer to an entry of the right kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Insn {
    Nop,
    AConstNull,
    IConst(i32),
    LConst(i64),
    FConst(f32),
    DConst(f64),
    /// `ldc`, `ldc_w`, `ldc2_w`: index of a loadable constant.
    Ldc(u16),
    Load(Kind, u16),
    Store(Kind, u16),
    ArrayLoad(ArrayKind),
    ArrayStore(ArrayKind),
    Pop,
    Pop2,
    Dup,
    DupX1,
    DupX2,
    Dup2,
    Dup2X1,
    Dup2X2,
    Swap,
    /// Binary arithmetic on the given kind (`Ref` never occurs).
    Arith(Kind, ArithOp),
    Neg(Kind),
    IInc(u16, i32),
    Convert(Kind, ConvertTo),
    Compare(CompareOp),
    If(IfKind, u32),
    Goto(u32),
    Jsr(u32),
    Ret(u16),
    TableSwitch {
        default: u32,
        low: i32,
        high: i32,
        targets: Vec<u32>,
    },
    LookupSwitch {
        default: u32,
        pairs: Vec<(i32, u32)>,
    },
    /// `ireturn`…`areturn` carry a kind; `return` is `None`.
    Return(Option<Kind>),
    GetStatic(u16),
    PutStatic(u16),
    GetField(u16),
    PutField(u16),
    Invoke(InvokeKind, u16),
    InvokeDynamic(u16),
    New(u16),
    NewArray(ArrayKind),
    ANewArray(u16),
    MultiANewArray(u16, u8),
    ArrayLength,
    AThrow,
    CheckCast(u16),
    InstanceOf(u16),
    MonitorEnter,
    MonitorExit,
}
