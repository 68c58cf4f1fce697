//! The `Code` attribute: bytecode decoding into [`Insn`], the exception
//! table, and the nested `LineNumberTable` / `LocalVariableTable`.
//!
//! Decoding is one forward walk over the code array with a jump table on
//! the opcode; each instruction is normalised as the model describes and
//! its start is marked in a bitmap. A second walk over the decoded
//! instructions then checks that every branch and switch target lands on an
//! instruction start, and the exception table is checked against the same
//! bitmap. Constant-pool operands are checked against the raw tag array
//! (one byte load each).
//!
//! A bad Code attribute is malformed structure and fails the whole class;
//! a bad line or local-variable table is optional and only dropped.
//! `StackMapTable`, `LocalVariableTypeTable` and type annotations are
//! skipped. This module does not verify types, stack depths or
//! `max_locals`: that needs data-flow analysis, which is the IR's business.

use crate::cx::{Cx, Owner};
use crate::error::ParseError;
use crate::model::{
    ArithOp, ArrayKind, Code, CompareOp, Cond, ConvertTo, ExceptionHandler, IfKind, Insn,
    InvokeKind, Kind, LineNumber, LocalVariable,
};
use crate::pool::{describe_slot, tag};
use crate::reader::Reader;

/// Parses the body of a `Code` attribute belonging to `owner`.
pub(crate) fn parse_code(
    cx: &mut Cx<'_>,
    owner: Owner<'_>,
    r: &mut Reader<'_>,
) -> Result<Code, ParseError> {
    let max_stack = r.u16()?;
    let max_locals = r.u16()?;
    let len_at = r.offset();
    let code_length = r.u32()?;
    if code_length == 0 || code_length > 65535 {
        return Err(ParseError::new(
            len_at,
            format!("code_length {code_length} is outside 1..=65535"),
        ));
    }
    let remaining = r.remaining();
    let len = code_length as usize;
    if len > remaining {
        return Err(ParseError::new(
            len_at,
            format!("code_length {code_length} runs past the end of the Code attribute ({remaining} bytes left)"),
        ));
    }
    let code_offset = r.offset();
    let bytes = r.bytes(len)?;

    let mut insns = Vec::new();
    if cx.decode_code {
        let dec = Decoder {
            code: bytes,
            base: code_offset,
            tags: cx.tags,
        };
        let legacy = dec.decode(&mut insns, &mut cx.boundaries)?;
        dec.check_targets(&insns, &cx.boundaries)?;
        if legacy && cx.major >= 51 {
            cx.warn(
                owner,
                format_args!(
                    "uses jsr/ret, which class files of version 51 (Java 7) and later may not contain"
                ),
            );
        }
    }

    let n = usize::from(r.u16()?);
    let mut exception_table = Vec::with_capacity(r.capacity_for(n, 8));
    for i in 0..n {
        let at = r.offset();
        let start_pc = u32::from(r.u16()?);
        let end_pc = u32::from(r.u16()?);
        let handler_pc = u32::from(r.u16()?);
        let catch_at = r.offset();
        let catch = r.u16()?;
        let catch_type = if catch == 0 {
            None
        } else {
            cx.expect_kind(
                catch,
                tag::bit(tag::CLASS),
                catch_at,
                "exception handler catch_type",
            )?;
            Some(catch)
        };
        let h = ExceptionHandler {
            start_pc,
            end_pc,
            handler_pc,
            catch_type,
        };
        check_handler(
            &h,
            code_length,
            cx.decode_code.then_some(&cx.boundaries[..]),
        )
        .map_err(|m| ParseError::new(at, format!("exception handler #{i}: {m}")))?;
        exception_table.push(h);
    }

    let mut code = Code {
        max_stack,
        max_locals,
        code_length,
        insns,
        exception_table,
        line_numbers: Vec::new(),
        local_variables: Vec::new(),
    };

    let n = r.u16()?;
    for _ in 0..n {
        let attr = cx.attribute(r)?;
        match attr.name {
            "LineNumberTable" => {
                if let Some(lines) = cx.optional(owner, attr, |_, r| line_numbers(r, code_length)) {
                    // Usually the only table: take it rather than copy it.
                    if code.line_numbers.is_empty() {
                        code.line_numbers = lines;
                    } else {
                        code.line_numbers.extend(lines);
                    }
                }
            }
            "LocalVariableTable" => {
                if let Some(vars) =
                    cx.optional(owner, attr, |cx, r| local_variables(cx, r, code_length))
                {
                    if code.local_variables.is_empty() {
                        code.local_variables = vars;
                    } else {
                        code.local_variables.extend(vars);
                    }
                }
            }
            _ => {}
        }
    }
    if !code.line_numbers.is_sorted_by_key(|l| l.start_pc) {
        code.line_numbers.sort_by_key(|l| l.start_pc);
    }
    Ok(code)
}

fn check_handler(
    h: &ExceptionHandler,
    code_length: u32,
    boundaries: Option<&[u64]>,
) -> Result<(), String> {
    let starts = |pc: u32| boundaries.is_none_or(|b| is_boundary(b, pc));
    if h.start_pc >= h.end_pc {
        return Err(format!(
            "start_pc {} is not before end_pc {}",
            h.start_pc, h.end_pc
        ));
    }
    if h.end_pc > code_length {
        return Err(format!(
            "end_pc {} is past the end of the code (length {code_length})",
            h.end_pc
        ));
    }
    if h.handler_pc >= code_length {
        return Err(format!(
            "handler_pc {} is past the end of the code (length {code_length})",
            h.handler_pc
        ));
    }
    for (what, pc) in [("start_pc", h.start_pc), ("handler_pc", h.handler_pc)] {
        if !starts(pc) {
            return Err(format!("{what} {pc} is not the start of an instruction"));
        }
    }
    if h.end_pc < code_length && !starts(h.end_pc) {
        return Err(format!(
            "end_pc {} is not the start of an instruction",
            h.end_pc
        ));
    }
    Ok(())
}

fn line_numbers(r: &mut Reader<'_>, code_length: u32) -> Result<Vec<LineNumber>, ParseError> {
    let n = usize::from(r.u16()?);
    let mut out = Vec::with_capacity(r.capacity_for(n, 4));
    for _ in 0..n {
        let at = r.offset();
        let start_pc = u32::from(r.u16()?);
        let line = u32::from(r.u16()?);
        if start_pc >= code_length {
            return Err(ParseError::new(
                at,
                format!("line {line} starts at pc {start_pc}, past the end of the code (length {code_length})"),
            ));
        }
        out.push(LineNumber { start_pc, line });
    }
    Ok(out)
}

fn local_variables(
    cx: &Cx<'_>,
    r: &mut Reader<'_>,
    code_length: u32,
) -> Result<Vec<LocalVariable>, ParseError> {
    let n = usize::from(r.u16()?);
    let mut out = Vec::with_capacity(r.capacity_for(n, 10));
    for _ in 0..n {
        let at = r.offset();
        let start_pc = u32::from(r.u16()?);
        let length = u32::from(r.u16()?);
        let name = cx.expect_utf8(r.u16()?, at, "local variable name")?.clone();
        let descriptor = cx
            .expect_utf8(r.u16()?, at, "local variable descriptor")?
            .clone();
        let index = r.u16()?;
        // Both are u16 widened to u32, so the sum cannot overflow. A range
        // ending exactly at code_length is normal (the variable lives to
        // the end of the method).
        if start_pc + length > code_length {
            return Err(ParseError::new(
                at,
                format!("local variable {name} covers pcs {start_pc}..{} past the end of the code (length {code_length})", start_pc + length),
            ));
        }
        out.push(LocalVariable {
            start_pc,
            length,
            name,
            descriptor,
            index,
        });
    }
    Ok(out)
}

#[inline]
fn is_boundary(bits: &[u64], pc: u32) -> bool {
    let pc = pc as usize;
    bits.get(pc / 64).is_some_and(|w| (w >> (pc % 64)) & 1 == 1)
}

/// Mnemonics for messages, indexed by opcode (`0xCA` is `breakpoint`).
const MNEMONICS: [&str; 0xCB] = [
    "nop",
    "aconst_null",
    "iconst_m1",
    "iconst_0",
    "iconst_1",
    "iconst_2",
    "iconst_3",
    "iconst_4",
    "iconst_5",
    "lconst_0",
    "lconst_1",
    "fconst_0",
    "fconst_1",
    "fconst_2",
    "dconst_0",
    "dconst_1",
    "bipush",
    "sipush",
    "ldc",
    "ldc_w",
    "ldc2_w",
    "iload",
    "lload",
    "fload",
    "dload",
    "aload",
    "iload_0",
    "iload_1",
    "iload_2",
    "iload_3",
    "lload_0",
    "lload_1",
    "lload_2",
    "lload_3",
    "fload_0",
    "fload_1",
    "fload_2",
    "fload_3",
    "dload_0",
    "dload_1",
    "dload_2",
    "dload_3",
    "aload_0",
    "aload_1",
    "aload_2",
    "aload_3",
    "iaload",
    "laload",
    "faload",
    "daload",
    "aaload",
    "baload",
    "caload",
    "saload",
    "istore",
    "lstore",
    "fstore",
    "dstore",
    "astore",
    "istore_0",
    "istore_1",
    "istore_2",
    "istore_3",
    "lstore_0",
    "lstore_1",
    "lstore_2",
    "lstore_3",
    "fstore_0",
    "fstore_1",
    "fstore_2",
    "fstore_3",
    "dstore_0",
    "dstore_1",
    "dstore_2",
    "dstore_3",
    "astore_0",
    "astore_1",
    "astore_2",
    "astore_3",
    "iastore",
    "lastore",
    "fastore",
    "dastore",
    "aastore",
    "bastore",
    "castore",
    "sastore",
    "pop",
    "pop2",
    "dup",
    "dup_x1",
    "dup_x2",
    "dup2",
    "dup2_x1",
    "dup2_x2",
    "swap",
    "iadd",
    "ladd",
    "fadd",
    "dadd",
    "isub",
    "lsub",
    "fsub",
    "dsub",
    "imul",
    "lmul",
    "fmul",
    "dmul",
    "idiv",
    "ldiv",
    "fdiv",
    "ddiv",
    "irem",
    "lrem",
    "frem",
    "drem",
    "ineg",
    "lneg",
    "fneg",
    "dneg",
    "ishl",
    "lshl",
    "ishr",
    "lshr",
    "iushr",
    "lushr",
    "iand",
    "land",
    "ior",
    "lor",
    "ixor",
    "lxor",
    "iinc",
    "i2l",
    "i2f",
    "i2d",
    "l2i",
    "l2f",
    "l2d",
    "f2i",
    "f2l",
    "f2d",
    "d2i",
    "d2l",
    "d2f",
    "i2b",
    "i2c",
    "i2s",
    "lcmp",
    "fcmpl",
    "fcmpg",
    "dcmpl",
    "dcmpg",
    "ifeq",
    "ifne",
    "iflt",
    "ifge",
    "ifgt",
    "ifle",
    "if_icmpeq",
    "if_icmpne",
    "if_icmplt",
    "if_icmpge",
    "if_icmpgt",
    "if_icmple",
    "if_acmpeq",
    "if_acmpne",
    "goto",
    "jsr",
    "ret",
    "tableswitch",
    "lookupswitch",
    "ireturn",
    "lreturn",
    "freturn",
    "dreturn",
    "areturn",
    "return",
    "getstatic",
    "putstatic",
    "getfield",
    "putfield",
    "invokevirtual",
    "invokespecial",
    "invokestatic",
    "invokeinterface",
    "invokedynamic",
    "new",
    "newarray",
    "anewarray",
    "arraylength",
    "athrow",
    "checkcast",
    "instanceof",
    "monitorenter",
    "monitorexit",
    "wide",
    "multianewarray",
    "ifnull",
    "ifnonnull",
    "goto_w",
    "jsr_w",
    "breakpoint",
];

pub(crate) fn mnemonic(op: u8) -> &'static str {
    match op {
        0xFE => "impdep1",
        0xFF => "impdep2",
        _ => MNEMONICS
            .get(usize::from(op))
            .copied()
            .unwrap_or("unassigned"),
    }
}

// Total mappings from small opcode offsets to model enums. The `_` arms
// are unreachable for the ranges the decoder passes, but keep these
// functions total so no input can reach a panic.

fn kind5(n: u8) -> Kind {
    match n {
        0 => Kind::Int,
        1 => Kind::Long,
        2 => Kind::Float,
        3 => Kind::Double,
        _ => Kind::Ref,
    }
}

fn array_kind(n: u8) -> ArrayKind {
    match n {
        0 => ArrayKind::Int,
        1 => ArrayKind::Long,
        2 => ArrayKind::Float,
        3 => ArrayKind::Double,
        4 => ArrayKind::Ref,
        5 => ArrayKind::Byte,
        6 => ArrayKind::Char,
        _ => ArrayKind::Short,
    }
}

fn cond(n: u8) -> Cond {
    match n {
        0 => Cond::Eq,
        1 => Cond::Ne,
        2 => Cond::Lt,
        3 => Cond::Ge,
        4 => Cond::Gt,
        _ => Cond::Le,
    }
}

fn int_or_long(n: u8) -> Kind {
    if n & 1 == 0 {
        Kind::Int
    } else {
        Kind::Long
    }
}

/// `i2l` ... `i2s`, in opcode order from 0x85.
fn conversion(n: u8) -> (Kind, ConvertTo) {
    use ConvertTo as T;
    match n {
        0 => (Kind::Int, T::Long),
        1 => (Kind::Int, T::Float),
        2 => (Kind::Int, T::Double),
        3 => (Kind::Long, T::Int),
        4 => (Kind::Long, T::Float),
        5 => (Kind::Long, T::Double),
        6 => (Kind::Float, T::Int),
        7 => (Kind::Float, T::Long),
        8 => (Kind::Float, T::Double),
        9 => (Kind::Double, T::Int),
        10 => (Kind::Double, T::Long),
        11 => (Kind::Double, T::Float),
        12 => (Kind::Int, T::Byte),
        13 => (Kind::Int, T::Char),
        _ => (Kind::Int, T::Short),
    }
}

const FIELD: u32 = tag::bit(tag::FIELDREF);
const METHOD: u32 = tag::bit(tag::METHODREF);
/// Java 8 allows `invokestatic`/`invokespecial` on interface methods.
const ANY_METHOD: u32 = tag::bit(tag::METHODREF) | tag::bit(tag::INTERFACE_METHODREF);
const IMETHOD: u32 = tag::bit(tag::INTERFACE_METHODREF);
const INDY: u32 = tag::bit(tag::INVOKE_DYNAMIC);
const CLASS: u32 = tag::bit(tag::CLASS);

struct Decoder<'a> {
    code: &'a [u8],
    /// File offset of `code[0]`.
    base: usize,
    tags: &'a [u8],
}

impl Decoder<'_> {
    /// Decodes every instruction into `out` and marks instruction starts in
    /// `bits`. Returns whether `jsr`/`ret` occur.
    fn decode(&self, out: &mut Vec<(u32, Insn)>, bits: &mut Vec<u64>) -> Result<bool, ParseError> {
        use Insn::*;
        let len = self.code.len();
        // javac output averages just under 2 bytes per instruction (JDK 17
        // java.base: 3.2 MB of bytecode, 1.64 M instructions), so this
        // rarely reallocates and rarely wastes much.
        out.reserve(len / 2 + 1);
        bits.clear();
        bits.resize(len / 64 + 1, 0);
        let mut legacy = false;
        let mut pc = 0usize;
        while let Some(&op) = self.code.get(pc) {
            // Each arm pushes its instruction straight into `out` (building
            // it on the stack first and copying costs a store-forwarding
            // stall per instruction) and yields its length.
            macro_rules! emit {
                ($insn:expr, $size:expr) => {{
                    out.push((pc as u32, $insn));
                    $size
                }};
            }
            if let Some(w) = bits.get_mut(pc / 64) {
                *w |= 1 << (pc % 64);
            }
            let size = match op {
                0x00 => emit!(Nop, 1),
                0x01 => emit!(AConstNull, 1),
                0x02..=0x08 => emit!(IConst(i32::from(op) - 3), 1),
                0x09 | 0x0A => emit!(LConst(i64::from(op - 0x09)), 1),
                0x0B..=0x0D => emit!(FConst(f32::from(op - 0x0B)), 1),
                0x0E | 0x0F => emit!(DConst(f64::from(op - 0x0E)), 1),
                0x10 => emit!(IConst(i32::from(self.u8(pc, 1)? as i8)), 2),
                0x11 => emit!(IConst(i32::from(self.u16(pc, 1)? as i16)), 3),
                0x12 => {
                    let idx = u16::from(self.u8(pc, 1)?);
                    self.check_cp(pc, idx, tag::LOADABLE_1)?;
                    emit!(Ldc(idx), 2)
                }
                0x13 => emit!(Ldc(self.cp(pc, tag::LOADABLE_1)?), 3),
                0x14 => emit!(Ldc(self.cp(pc, tag::LOADABLE_2)?), 3),
                0x15..=0x19 => emit!(Load(kind5(op - 0x15), u16::from(self.u8(pc, 1)?)), 2),
                0x1A..=0x2D => emit!(Load(kind5((op - 0x1A) / 4), u16::from((op - 0x1A) % 4)), 1),
                0x2E..=0x35 => emit!(ArrayLoad(array_kind(op - 0x2E)), 1),
                0x36..=0x3A => emit!(Store(kind5(op - 0x36), u16::from(self.u8(pc, 1)?)), 2),
                0x3B..=0x4E => emit!(Store(kind5((op - 0x3B) / 4), u16::from((op - 0x3B) % 4)), 1),
                0x4F..=0x56 => emit!(ArrayStore(array_kind(op - 0x4F)), 1),
                0x57 => emit!(Pop, 1),
                0x58 => emit!(Pop2, 1),
                0x59 => emit!(Dup, 1),
                0x5A => emit!(DupX1, 1),
                0x5B => emit!(DupX2, 1),
                0x5C => emit!(Dup2, 1),
                0x5D => emit!(Dup2X1, 1),
                0x5E => emit!(Dup2X2, 1),
                0x5F => emit!(Swap, 1),
                0x60..=0x73 => {
                    let n = op - 0x60;
                    let aop = match n / 4 {
                        0 => ArithOp::Add,
                        1 => ArithOp::Sub,
                        2 => ArithOp::Mul,
                        3 => ArithOp::Div,
                        _ => ArithOp::Rem,
                    };
                    emit!(Arith(kind5(n % 4), aop), 1)
                }
                0x74..=0x77 => emit!(Neg(kind5(op - 0x74)), 1),
                0x78..=0x7D => {
                    let n = op - 0x78;
                    let aop = match n / 2 {
                        0 => ArithOp::Shl,
                        1 => ArithOp::Shr,
                        _ => ArithOp::Ushr,
                    };
                    emit!(Arith(int_or_long(n), aop), 1)
                }
                0x7E..=0x83 => {
                    let n = op - 0x7E;
                    let aop = match n / 2 {
                        0 => ArithOp::And,
                        1 => ArithOp::Or,
                        _ => ArithOp::Xor,
                    };
                    emit!(Arith(int_or_long(n), aop), 1)
                }
                0x84 => {
                    let idx = u16::from(self.u8(pc, 1)?);
                    emit!(IInc(idx, i32::from(self.u8(pc, 2)? as i8)), 3)
                }
                0x85..=0x93 => {
                    let (from, to) = conversion(op - 0x85);
                    emit!(Convert(from, to), 1)
                }
                0x94 => emit!(Compare(CompareOp::LCmp), 1),
                0x95 => emit!(Compare(CompareOp::FCmpL), 1),
                0x96 => emit!(Compare(CompareOp::FCmpG), 1),
                0x97 => emit!(Compare(CompareOp::DCmpL), 1),
                0x98 => emit!(Compare(CompareOp::DCmpG), 1),
                0x99..=0x9E => emit!(If(IfKind::IntZero(cond(op - 0x99)), self.branch16(pc)?), 3),
                0x9F..=0xA4 => emit!(If(IfKind::IntCmp(cond(op - 0x9F)), self.branch16(pc)?), 3),
                0xA5 => emit!(If(IfKind::RefCmp(Cond::Eq), self.branch16(pc)?), 3),
                0xA6 => emit!(If(IfKind::RefCmp(Cond::Ne), self.branch16(pc)?), 3),
                0xA7 => emit!(Goto(self.branch16(pc)?), 3),
                0xA8 => {
                    legacy = true;
                    emit!(Jsr(self.branch16(pc)?), 3)
                }
                0xA9 => {
                    legacy = true;
                    emit!(Ret(u16::from(self.u8(pc, 1)?)), 2)
                }
                0xAA => {
                    let (insn, size) = self.table_switch(pc)?;
                    emit!(insn, size)
                }
                0xAB => {
                    let (insn, size) = self.lookup_switch(pc)?;
                    emit!(insn, size)
                }
                0xAC..=0xB0 => emit!(Return(Some(kind5(op - 0xAC))), 1),
                0xB1 => emit!(Return(None), 1),
                0xB2 => emit!(GetStatic(self.cp(pc, FIELD)?), 3),
                0xB3 => emit!(PutStatic(self.cp(pc, FIELD)?), 3),
                0xB4 => emit!(GetField(self.cp(pc, FIELD)?), 3),
                0xB5 => emit!(PutField(self.cp(pc, FIELD)?), 3),
                0xB6 => emit!(Invoke(InvokeKind::Virtual, self.cp(pc, METHOD)?), 3),
                0xB7 => emit!(Invoke(InvokeKind::Special, self.cp(pc, ANY_METHOD)?), 3),
                0xB8 => emit!(Invoke(InvokeKind::Static, self.cp(pc, ANY_METHOD)?), 3),
                0xB9 => {
                    let idx = self.cp(pc, IMETHOD)?;
                    // The count and zero bytes are redundant (the count
                    // follows from the descriptor); only their presence
                    // matters for the instruction length.
                    self.u8(pc, 4)?;
                    emit!(Invoke(InvokeKind::Interface, idx), 5)
                }
                0xBA => {
                    let idx = self.cp(pc, INDY)?;
                    self.u8(pc, 4)?;
                    emit!(InvokeDynamic(idx), 5)
                }
                0xBB => emit!(New(self.cp(pc, CLASS)?), 3),
                0xBC => {
                    let kind = match self.u8(pc, 1)? {
                        4 => ArrayKind::Boolean,
                        5 => ArrayKind::Char,
                        6 => ArrayKind::Float,
                        7 => ArrayKind::Double,
                        8 => ArrayKind::Byte,
                        9 => ArrayKind::Short,
                        10 => ArrayKind::Int,
                        11 => ArrayKind::Long,
                        other => {
                            return Err(self.error(
                                pc,
                                format!(
                                    "newarray at pc {pc} has invalid element type code {other}"
                                ),
                            ))
                        }
                    };
                    emit!(NewArray(kind), 2)
                }
                0xBD => emit!(ANewArray(self.cp(pc, CLASS)?), 3),
                0xBE => emit!(ArrayLength, 1),
                0xBF => emit!(AThrow, 1),
                0xC0 => emit!(CheckCast(self.cp(pc, CLASS)?), 3),
                0xC1 => emit!(InstanceOf(self.cp(pc, CLASS)?), 3),
                0xC2 => emit!(MonitorEnter, 1),
                0xC3 => emit!(MonitorExit, 1),
                0xC4 => {
                    let op2 = self.u8(pc, 1)?;
                    match op2 {
                        0x15..=0x19 => emit!(Load(kind5(op2 - 0x15), self.u16(pc, 2)?), 4),
                        0x36..=0x3A => emit!(Store(kind5(op2 - 0x36), self.u16(pc, 2)?), 4),
                        0xA9 => {
                            legacy = true;
                            emit!(Ret(self.u16(pc, 2)?), 4)
                        }
                        0x84 => {
                            let idx = self.u16(pc, 2)?;
                            emit!(IInc(idx, i32::from(self.u16(pc, 4)? as i16)), 6)
                        }
                        _ => {
                            return Err(self.error(
                                pc,
                                format!(
                                "wide at pc {pc} modifies {} (0x{op2:02x}), which has no wide form",
                                mnemonic(op2)
                            ),
                            ))
                        }
                    }
                }
                0xC5 => {
                    let idx = self.cp(pc, CLASS)?;
                    let dims = self.u8(pc, 3)?;
                    if dims == 0 {
                        return Err(
                            self.error(pc, format!("multianewarray at pc {pc} has 0 dimensions"))
                        );
                    }
                    emit!(MultiANewArray(idx, dims), 4)
                }
                0xC6 => emit!(If(IfKind::Null(Cond::Eq), self.branch16(pc)?), 3),
                0xC7 => emit!(If(IfKind::Null(Cond::Ne), self.branch16(pc)?), 3),
                0xC8 => emit!(Goto(self.branch32(pc)?), 5),
                0xC9 => {
                    legacy = true;
                    emit!(Jsr(self.branch32(pc)?), 5)
                }
                _ => {
                    let what = match op {
                        0xCA => "reserved opcode 0xca (breakpoint)".to_string(),
                        0xFE | 0xFF => format!("reserved opcode 0x{op:02x} ({})", mnemonic(op)),
                        _ => format!("unknown opcode 0x{op:02x}"),
                    };
                    return Err(self.error(pc, format!("{what} at pc {pc}")));
                }
            };
            // The instruction is `size` bytes at `pc`; each operand read
            // above checked that it lies within the code.
            pc += size;
        }
        Ok(legacy)
    }

    /// Checks that every branch and switch target is an instruction start.
    fn check_targets(&self, insns: &[(u32, Insn)], bits: &[u64]) -> Result<(), ParseError> {
        let check = |pc: u32, target: u32| {
            if is_boundary(bits, target) {
                Ok(())
            } else {
                let op = self.code.get(pc as usize).copied().unwrap_or(0);
                Err(self.error(
                    pc as usize,
                    format!(
                        "branch target {target} of {} at pc {pc} is not the start of an instruction",
                        mnemonic(op)
                    ),
                ))
            }
        };
        for (pc, insn) in insns {
            match insn {
                Insn::If(_, t) | Insn::Goto(t) | Insn::Jsr(t) => check(*pc, *t)?,
                Insn::TableSwitch {
                    default, targets, ..
                } => {
                    check(*pc, *default)?;
                    for t in targets {
                        check(*pc, *t)?;
                    }
                }
                Insn::LookupSwitch { default, pairs } => {
                    check(*pc, *default)?;
                    for (_, t) in pairs {
                        check(*pc, *t)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    #[cold]
    fn error(&self, pc: usize, message: String) -> ParseError {
        ParseError::new(self.base.saturating_add(pc), message)
    }

    #[cold]
    fn truncated(&self, pc: usize) -> ParseError {
        let op = self.code.get(pc).copied().unwrap_or(0);
        self.error(
            pc,
            format!(
                "{} at pc {pc} runs past the end of the code (length {})",
                mnemonic(op),
                self.code.len()
            ),
        )
    }

    #[inline(always)]
    fn chunk<const N: usize>(&self, pc: usize, at: usize) -> Result<[u8; N], ParseError> {
        pc.checked_add(at)
            .and_then(|i| self.code.get(i..))
            .and_then(|r| r.first_chunk::<N>())
            .copied()
            .ok_or_else(|| self.truncated(pc))
    }

    #[inline(always)]
    fn u8(&self, pc: usize, at: usize) -> Result<u8, ParseError> {
        let [b] = self.chunk::<1>(pc, at)?;
        Ok(b)
    }

    #[inline(always)]
    fn u16(&self, pc: usize, at: usize) -> Result<u16, ParseError> {
        Ok(u16::from_be_bytes(self.chunk(pc, at)?))
    }

    #[inline(always)]
    fn i32(&self, pc: usize, at: usize) -> Result<i32, ParseError> {
        Ok(i32::from_be_bytes(self.chunk(pc, at)?))
    }

    /// A u16 constant-pool operand right after the opcode, checked to be
    /// one of the kinds in `allowed`.
    #[inline(always)]
    fn cp(&self, pc: usize, allowed: u32) -> Result<u16, ParseError> {
        let idx = self.u16(pc, 1)?;
        self.check_cp(pc, idx, allowed)?;
        Ok(idx)
    }

    #[inline(always)]
    fn check_cp(&self, pc: usize, idx: u16, allowed: u32) -> Result<(), ParseError> {
        match self.tags.get(usize::from(idx)) {
            Some(&t) if t != tag::NONE && tag::bit(t) & allowed != 0 => Ok(()),
            _ => Err(self.bad_cp(pc, idx, allowed)),
        }
    }

    #[cold]
    fn bad_cp(&self, pc: usize, idx: u16, allowed: u32) -> ParseError {
        let op = self.code.get(pc).copied().unwrap_or(0);
        self.error(
            pc,
            format!(
                "{} at pc {pc} refers to {}; expected {}",
                mnemonic(op),
                describe_slot(self.tags, idx),
                tag::names(allowed)
            ),
        )
    }

    /// Absolute target of a branch at `pc` with relative offset `rel`,
    /// checked to lie within the code.
    #[inline(always)]
    fn target(&self, pc: usize, rel: i32) -> Result<u32, ParseError> {
        let t = pc as i64 + i64::from(rel);
        if t >= 0 && (t as u64) < self.code.len() as u64 {
            Ok(t as u32)
        } else {
            Err(self.bad_target(pc, t))
        }
    }

    #[cold]
    fn bad_target(&self, pc: usize, t: i64) -> ParseError {
        let op = self.code.get(pc).copied().unwrap_or(0);
        self.error(
            pc,
            format!(
                "invalid branch target {t} of {} at pc {pc} (code length {})",
                mnemonic(op),
                self.code.len()
            ),
        )
    }

    #[inline(always)]
    fn branch16(&self, pc: usize) -> Result<u32, ParseError> {
        let rel = self.u16(pc, 1)? as i16;
        self.target(pc, i32::from(rel))
    }

    #[inline(always)]
    fn branch32(&self, pc: usize) -> Result<u32, ParseError> {
        let rel = self.i32(pc, 1)?;
        self.target(pc, rel)
    }

    /// Offset (from `pc`) of the first operand of a switch: 0–3 padding
    /// bytes so that it is 4-aligned relative to the start of the code.
    #[inline]
    fn switch_operands(pc: usize) -> usize {
        // (pc + 1) rounded up to a multiple of 4, minus pc.
        4 - (pc % 4)
    }

    fn table_switch(&self, pc: usize) -> Result<(Insn, usize), ParseError> {
        let at = Self::switch_operands(pc);
        let default = self.target(pc, self.i32(pc, at)?)?;
        let low = self.i32(pc, at + 4)?;
        let high = self.i32(pc, at + 8)?;
        if low > high {
            return Err(self.error(
                pc,
                format!("tableswitch at pc {pc} has low {low} greater than high {high}"),
            ));
        }
        // At most 2^32 entries; check they fit before allocating anything.
        let count = (i64::from(high) - i64::from(low) + 1) as u64;
        let table = at as u64 + 12;
        let size = count
            .checked_mul(4)
            .and_then(|b| b.checked_add(table))
            .filter(|&s| s <= (self.code.len() - pc) as u64)
            .ok_or_else(|| self.truncated(pc))? as usize;
        let mut targets = Vec::with_capacity(count as usize);
        let mut i = table as usize;
        while i < size {
            targets.push(self.target(pc, self.i32(pc, i)?)?);
            i += 4;
        }
        Ok((
            Insn::TableSwitch {
                default,
                low,
                high,
                targets,
            },
            size,
        ))
    }

    fn lookup_switch(&self, pc: usize) -> Result<(Insn, usize), ParseError> {
        let at = Self::switch_operands(pc);
        let default = self.target(pc, self.i32(pc, at)?)?;
        let npairs = self.i32(pc, at + 4)?;
        if npairs < 0 {
            return Err(self.error(
                pc,
                format!("lookupswitch at pc {pc} has negative npairs {npairs}"),
            ));
        }
        let count = npairs as u64;
        let table = at as u64 + 8;
        let size = count
            .checked_mul(8)
            .and_then(|b| b.checked_add(table))
            .filter(|&s| s <= (self.code.len() - pc) as u64)
            .ok_or_else(|| self.truncated(pc))? as usize;
        let mut pairs = Vec::with_capacity(count as usize);
        let mut i = table as usize;
        while i < size {
            let key = self.i32(pc, i)?;
            pairs.push((key, self.target(pc, self.i32(pc, i + 4)?)?));
            i += 8;
        }
        Ok((Insn::LookupSwitch { default, pairs }, size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonic_table_lines_up() {
        assert_eq!(mnemonic(0x00), "nop");
        assert_eq!(mnemonic(0x2A), "aload_0");
        assert_eq!(mnemonic(0x60), "iadd");
        assert_eq!(mnemonic(0x84), "iinc");
        assert_eq!(mnemonic(0xAA), "tableswitch");
        assert_eq!(mnemonic(0xBA), "invokedynamic");
        assert_eq!(mnemonic(0xC9), "jsr_w");
        assert_eq!(mnemonic(0xCA), "breakpoint");
        assert_eq!(mnemonic(0xCB), "unassigned");
        assert_eq!(mnemonic(0xFF), "impdep2");
    }

    #[test]
    fn switch_padding_is_relative_to_code_start() {
        assert_eq!(Decoder::switch_operands(0), 4);
        assert_eq!(Decoder::switch_operands(1), 3);
        assert_eq!(Decoder::switch_operands(2), 2);
        assert_eq!(Decoder::switch_operands(3), 1);
        assert_eq!(Decoder::switch_operands(4), 4);
    }
}
