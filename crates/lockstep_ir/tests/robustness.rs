//! Lowering never panics: hand-built broken code gives a `LowerError` or a
//! note, and thousands of random instruction sequences lower (or fail)
//! without panicking, with a structurally valid body whenever they lower.

mod common;

use common::build::*;
use lockstep_classfile::{
    access, ArithOp, ArrayKind, ClassFile, Cond, IfKind, Insn, InvokeKind, Kind,
};
use lockstep_ir::*;

fn lower_only(class: &ClassFile) -> Result<Body, LowerError> {
    lower_method(class, &class.methods[0])
}

fn err_of(insns: Vec<(u32, Insn)>, max_locals: u16, desc: &str, flags: u16) -> LowerError {
    let class = one_method(
        Cp::default(),
        "m",
        desc,
        flags,
        code(4, max_locals, insns, vec![]),
    );
    match lower_only(&class) {
        Ok(b) => panic!("expected an error, got\n{}", dump(&b)),
        Err(e) => e,
    }
}

#[test]
fn stack_underflow() {
    let e = err_of(
        vec![(0, Insn::Pop), (1, Insn::Return(None))],
        0,
        "()V",
        access::STATIC,
    );
    assert_eq!(e.pc, Some(0));
    assert_eq!(
        e.to_string(),
        "at pc 0: stack underflow (pop with empty stack)"
    );
}

#[test]
fn inconsistent_stack_heights_at_merge() {
    let insns = vec![
        (0, Insn::Load(Kind::Int, 0)),
        (1, Insn::If(IfKind::IntZero(Cond::Eq), 5)),
        (4, Insn::IConst(1)),
        (5, Insn::Return(None)),
    ];
    let e = err_of(insns, 1, "(I)V", access::STATIC);
    assert!(e.message.contains("inconsistent operand stacks"), "{e}");
}

#[test]
fn ret_without_jsr() {
    let e = err_of(vec![(0, Insn::Ret(0))], 1, "()V", access::STATIC);
    assert!(e.message.contains("ret"), "{e}");
}

#[test]
fn branch_to_itself_is_an_infinite_loop() {
    let class = one_method(
        Cp::default(),
        "m",
        "()V",
        access::STATIC,
        code(0, 0, vec![(0, Insn::Goto(0))], vec![]),
    );
    let body = lower_only(&class).unwrap();
    validate(&body).unwrap();
    // An empty entry block falls through to the loop.
    assert!(body.blocks[0].preds.is_empty());
    assert_eq!(body.blocks[1].preds, vec![BlockId(0), BlockId(1)]);
}

#[test]
fn monitorexit_without_enter_is_a_note() {
    let insns = vec![
        (0, Insn::Load(Kind::Ref, 0)),
        (1, Insn::MonitorExit),
        (2, Insn::Return(None)),
    ];
    let class = one_method(Cp::default(), "m", "()V", 0, code(1, 1, insns, vec![]));
    let body = lower_only(&class).unwrap();
    validate(&body).unwrap();
    assert!(
        body.notes
            .iter()
            .any(|n| n.contains("without a matching monitorenter")),
        "{:?}",
        body.notes
    );
}

#[test]
fn unstructured_locking_is_a_note() {
    // Locks `this` on one path only, then both paths meet.
    let insns = vec![
        (0, Insn::Load(Kind::Int, 1)),
        (1, Insn::If(IfKind::IntZero(Cond::Eq), 6)),
        (4, Insn::Load(Kind::Ref, 0)),
        (5, Insn::MonitorEnter),
        (6, Insn::Return(None)),
    ];
    let class = one_method(Cp::default(), "m", "(I)V", 0, code(1, 2, insns, vec![]));
    let body = lower_only(&class).unwrap();
    validate(&body).unwrap();
    assert!(
        body.notes
            .iter()
            .any(|n| n.starts_with("unstructured locking at pc")),
        "{:?}",
        body.notes
    );
}

#[test]
fn local_read_before_written() {
    let e = err_of(
        vec![
            (0, Insn::Load(Kind::Int, 0)),
            (1, Insn::Return(Some(Kind::Int))),
        ],
        1,
        "()I",
        access::STATIC,
    );
    assert!(e.message.contains("read before"), "{e}");
    // A read whose value is dropped reads nothing.
    let class = one_method(
        Cp::default(),
        "m",
        "()V",
        access::STATIC,
        code(
            1,
            1,
            vec![
                (0, Insn::Load(Kind::Int, 0)),
                (1, Insn::Pop),
                (2, Insn::Return(None)),
            ],
            vec![],
        ),
    );
    assert!(lower_only(&class).is_ok());
}

#[test]
fn falls_off_the_end() {
    let e = err_of(vec![(0, Insn::Nop)], 0, "()V", access::STATIC);
    assert!(e.message.contains("falls off"), "{e}");
}

#[test]
fn branch_into_an_instruction() {
    let e = err_of(
        vec![(0, Insn::Goto(1)), (3, Insn::Return(None))],
        0,
        "()V",
        access::STATIC,
    );
    assert!(e.message.contains("not an instruction"), "{e}");
}

#[test]
fn bad_constant_pool_index() {
    let e = err_of(
        vec![(0, Insn::GetStatic(42)), (3, Insn::Return(None))],
        0,
        "()V",
        access::STATIC,
    );
    assert!(e.message.contains("#42"), "{e}");
}

#[test]
fn handler_at_method_entry() {
    let insns = vec![(0, Insn::Return(None))];
    let class = one_method(
        Cp::default(),
        "m",
        "()V",
        access::STATIC,
        code(1, 0, insns, vec![handler(0, 1, 0, None)]),
    );
    assert!(lower_only(&class).is_err());
}

#[test]
fn handler_reached_by_normal_flow() {
    let insns = vec![
        (0, Insn::Load(Kind::Int, 0)),
        (1, Insn::Pop),
        (2, Insn::AConstNull),
        (3, Insn::AThrow),
    ];
    let class = one_method(
        Cp::default(),
        "m",
        "(I)V",
        access::STATIC,
        code(1, 1, insns, vec![handler(0, 1, 1, None)]),
    );
    let e = lower_only(&class).unwrap_err();
    assert!(e.message.contains("handler"), "{e}");
}

#[test]
fn dup_of_a_long_half() {
    let insns = vec![
        (0, Insn::LConst(1)),
        (1, Insn::Dup),
        (2, Insn::Return(None)),
    ];
    let e = err_of(insns, 0, "()V", access::STATIC);
    assert!(e.message.contains("long or double"), "{e}");
}

#[test]
fn local_slot_out_of_range() {
    let e = err_of(
        vec![
            (0, Insn::IConst(1)),
            (1, Insn::Store(Kind::Int, 9)),
            (3, Insn::Return(None)),
        ],
        2,
        "()V",
        access::STATIC,
    );
    assert!(e.message.contains("out of range"), "{e}");
}

#[test]
fn parameters_need_more_locals() {
    let e = err_of(vec![(0, Insn::Return(None))], 1, "(JJ)V", access::STATIC);
    assert!(e.message.contains("max_locals"), "{e}");
}

#[test]
fn empty_code() {
    let e = err_of(vec![], 0, "()V", access::STATIC);
    assert!(e.message.contains("no instructions"), "{e}");
}

#[test]
fn tableswitch_keys_overflow() {
    let insns = vec![
        (0, Insn::IConst(0)),
        (
            1,
            Insn::TableSwitch {
                default: 20,
                low: i32::MAX,
                high: i32::MAX,
                targets: vec![20, 20],
            },
        ),
        (20, Insn::Return(None)),
    ];
    let e = err_of(insns, 0, "()V", access::STATIC);
    assert!(e.message.contains("overflow"), "{e}");
}

#[test]
fn no_code() {
    let mut class = one_method(
        Cp::default(),
        "m",
        "()V",
        access::STATIC,
        code(0, 0, vec![], vec![]),
    );
    class.methods[0].code = None;
    assert!(lower_only(&class).is_err());
    assert!(lower_class(&class).is_empty());
}

#[test]
fn huge_max_locals_stays_cheap() {
    // max_locals 65535 with a loop using a high slot: splitting sizes its
    // bitsets by the slots used, not by max_locals.
    let insns = vec![
        (0, Insn::IConst(0)),
        (1, Insn::Store(Kind::Int, 60_000)),
        (5, Insn::Load(Kind::Int, 60_000)),
        (9, Insn::If(IfKind::IntZero(Cond::Ne), 16)),
        (12, Insn::IInc(60_000, 1)),
        (15, Insn::Nop),
        (16, Insn::Load(Kind::Int, 60_000)),
        (20, Insn::If(IfKind::IntZero(Cond::Eq), 5)),
        (23, Insn::Return(None)),
    ];
    let class = one_method(
        Cp::default(),
        "m",
        "()V",
        access::STATIC,
        code(1, u16::MAX, insns, vec![]),
    );
    let body = lower_only(&class).unwrap();
    validate(&body).unwrap();
    assert_eq!(
        body.vars
            .iter()
            .filter(|v| v.origin == VarOrigin::Local(60_000))
            .count(),
        1
    );
}

#[test]
fn fuzz_entry_survives_garbage() {
    lower_fuzz_entry(&[]);
    lower_fuzz_entry(b"\xca\xfe\xba\xbe garbage");
}

// ---------------------------------------------------------------------------
// Random instruction sequences.

struct Rng(u64);

/// `LOCKSTEP_FUZZ_ROUNDS` scales the random tests up for a bug hunt.
fn rounds(default: usize) -> usize {
    std::env::var("LOCKSTEP_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn seed(default: u64) -> u64 {
    std::env::var("LOCKSTEP_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn random_insn(r: &mut Rng, n_insns: u64, cp: &[u16; 6]) -> Insn {
    let target = |r: &mut Rng| (r.below(n_insns) * 2 + u64::from(r.below(20) == 0)) as u32;
    let kind = |r: &mut Rng| {
        [Kind::Int, Kind::Long, Kind::Float, Kind::Double, Kind::Ref][r.below(5) as usize]
    };
    let slot = |r: &mut Rng| r.below(4) as u16;
    match r.below(40) {
        0 => Insn::Nop,
        1 => Insn::AConstNull,
        2 | 3 => Insn::IConst(r.below(3) as i32),
        4 => Insn::LConst(1),
        5..=7 => Insn::Load(kind(r), slot(r)),
        8 | 9 => Insn::Store(kind(r), slot(r)),
        10 => Insn::Pop,
        11 => Insn::Pop2,
        12 => Insn::Dup,
        13 => [
            Insn::DupX1,
            Insn::DupX2,
            Insn::Dup2,
            Insn::Dup2X1,
            Insn::Dup2X2,
            Insn::Swap,
        ][r.below(6) as usize]
            .clone(),
        14 => Insn::Arith(kind(r), ArithOp::Add),
        15 => Insn::IInc(slot(r), 1),
        16 | 17 => Insn::If(IfKind::IntZero(Cond::Ne), target(r)),
        18 => Insn::If(IfKind::RefCmp(Cond::Eq), target(r)),
        19 => Insn::Goto(target(r)),
        20 => Insn::Jsr(target(r)),
        21 => Insn::Ret(slot(r)),
        22 => Insn::TableSwitch {
            default: target(r),
            low: 0,
            high: 1,
            targets: vec![target(r), target(r)],
        },
        23 => Insn::LookupSwitch {
            default: target(r),
            pairs: vec![(5, target(r))],
        },
        24 | 25 => Insn::Return(if r.below(2) == 0 { None } else { Some(kind(r)) }),
        26 => Insn::AThrow,
        27 => Insn::GetStatic(cp[0]),
        28 => Insn::PutField(cp[1]),
        29 => Insn::GetField(cp[1]),
        30 => Insn::Invoke(InvokeKind::Virtual, cp[2]),
        31 => Insn::New(cp[3]),
        32 => Insn::Ldc(cp[r.below(6) as usize]),
        33 => Insn::ArrayLoad(ArrayKind::Int),
        34 => Insn::ArrayStore(ArrayKind::Ref),
        35 | 36 => Insn::MonitorEnter,
        37 | 38 => Insn::MonitorExit,
        _ => Insn::CheckCast(cp[3]),
    }
}

#[test]
fn random_programs_never_panic() {
    let mut r = Rng(seed(0x9e37_79b9_7f4a_7c15));
    let mut lowered = 0;
    let mut lowerer = Lowerer::new();
    let n = rounds(20_000);
    for round in 0..n {
        let mut cp = Cp::default();
        let ids = [
            cp.field("T", "s", "I"),
            cp.field("T", "f", "J"),
            cp.method("T", "m", "(I)Ljava/lang/Object;"),
            cp.class("T"),
            cp.int(7),
            cp.string("x"),
        ];
        let len = 1 + r.below(24);
        let insns: Vec<(u32, Insn)> = (0..len)
            .map(|i| ((i * 2) as u32, random_insn(&mut r, len, &ids)))
            .collect();
        let mut handlers = Vec::new();
        for _ in 0..r.below(3) {
            let a = r.below(len) * 2;
            let b = a + 2 * (1 + r.below(4));
            let catch = if r.below(2) == 0 { None } else { Some(ids[3]) };
            handlers.push(handler(
                a as u32,
                b as u32,
                (r.below(len) * 2) as u32,
                catch,
            ));
        }
        let flags = if r.below(3) == 0 { access::STATIC } else { 0 }
            | if r.below(4) == 0 {
                access::SYNCHRONIZED
            } else {
                0
            };
        let desc = ["()V", "(I)I", "(JLjava/lang/Object;)V"][r.below(3) as usize];
        let class = one_method(
            cp,
            "m",
            desc,
            flags,
            code(6, 1 + r.below(5) as u16, insns, handlers),
        );
        if let Ok(body) = lowerer.lower_method(&class, &class.methods[0]) {
            lowered += 1;
            if let Err(errs) = validate_structure(&body) {
                panic!(
                    "round {round}: invalid structure:\n{}\n{}\n{:#?}",
                    errs.join("\n"),
                    dump(&body),
                    class.methods[0].code
                );
            }
            let _ = validate(&body);
            let _ = dump(&body);
            for v in 0..body.vars.len() {
                let _ = body.access_path(VarId(v as u32)).to_string();
            }
        }
    }
    // Some of them must get through, or the test tests nothing.
    eprintln!("{lowered} of {n} random programs lowered");
    assert!(lowered > n / 40, "only {lowered} random programs lowered");
}

// ---------------------------------------------------------------------------
// Random *plausible* programs: javac-like statement templates that start and
// end with an empty stack, so branches between them merge consistently.
// Most of these lower; when they lower without notes they must pass the full
// validator, types included.

#[derive(Clone, Copy, PartialEq)]
enum L {
    /// The first instruction of template `n`.
    At(usize),
}

enum Item {
    I(Insn),
    /// An instruction whose target(s) are template labels, patched after layout.
    Br(fn(&[u32]) -> Insn, Vec<L>),
}

fn plausible_program(
    r: &mut Rng,
    cp: &[u16; 6],
    is_static: bool,
) -> (
    Vec<(u32, Insn)>,
    Vec<lockstep_classfile::ExceptionHandler>,
    u16,
) {
    let n_slots = 6u16;
    let first = u16::from(!is_static);
    // A kind per slot; `this` stays a reference.
    let mut kinds: Vec<Kind> = (0..n_slots)
        .map(|_| {
            if r.below(2) == 0 {
                Kind::Int
            } else {
                Kind::Ref
            }
        })
        .collect();
    if !is_static {
        kinds[0] = Kind::Ref;
    }
    let n_templates = 3 + r.below(12) as usize;
    let mut templates: Vec<Vec<Item>> = Vec::new();
    // Initialise every slot.
    let mut init = Vec::new();
    for s in first..n_slots {
        match kinds[s as usize] {
            Kind::Int => init.push(Item::I(Insn::IConst(s as i32))),
            _ => init.push(Item::I(Insn::New(cp[3]))),
        }
        init.push(Item::I(Insn::Store(kinds[s as usize], s)));
    }
    templates.push(init);
    let mut handler_templates = Vec::new();
    let pick = |r: &mut Rng, kinds: &[Kind], k: Kind| -> Option<u16> {
        let c: Vec<u16> = (0..kinds.len() as u16)
            .filter(|s| kinds[*s as usize] == k)
            .collect();
        if c.is_empty() {
            None
        } else {
            Some(c[r.below(c.len() as u64) as usize])
        }
    };
    for t in 1..n_templates {
        let lbl = |r: &mut Rng| L::At(1 + r.below(n_templates as u64 - 1) as usize);
        let int = pick(r, &kinds, Kind::Int);
        let rf = pick(r, &kinds, Kind::Ref);
        let mut v = Vec::new();
        match (r.below(17), int, rf) {
            (0, Some(a), _) => {
                // x = a++ + a
                v.extend(
                    [
                        Insn::Load(Kind::Int, a),
                        Insn::IInc(a, 1),
                        Insn::Load(Kind::Int, a),
                    ]
                    .map(Item::I),
                );
                v.extend(
                    [
                        Insn::Arith(Kind::Int, ArithOp::Add),
                        Insn::Store(Kind::Int, a),
                    ]
                    .map(Item::I),
                );
            }
            (1, Some(a), _) => {
                v.push(Item::I(Insn::Load(Kind::Int, a)));
                v.push(Item::Br(
                    |t| Insn::If(IfKind::IntZero(Cond::Eq), t[0]),
                    vec![lbl(r)],
                ));
            }
            (2, _, _) => v.push(Item::Br(|t| Insn::Goto(t[0]), vec![lbl(r)])),
            (3, _, Some(o)) => {
                v.extend(
                    [
                        Insn::Load(Kind::Ref, o),
                        Insn::Dup,
                        Insn::Store(Kind::Ref, o),
                        Insn::MonitorEnter,
                    ]
                    .map(Item::I),
                );
            }
            (4, _, Some(o)) => v.extend([Insn::Load(Kind::Ref, o), Insn::MonitorExit].map(Item::I)),
            (5, Some(a), Some(o)) => {
                v.extend(
                    [
                        Insn::Load(Kind::Ref, o),
                        Insn::Load(Kind::Int, a),
                        Insn::Invoke(InvokeKind::Virtual, cp[2]),
                    ]
                    .map(Item::I),
                );
                v.push(Item::I(Insn::Store(Kind::Ref, o)));
            }
            (6, _, Some(o)) => {
                // o.f += 1L via dup2_x1
                v.extend(
                    [
                        Insn::Load(Kind::Ref, o),
                        Insn::Dup,
                        Insn::GetField(cp[1]),
                        Insn::Dup2X1,
                    ]
                    .map(Item::I),
                );
                v.extend(
                    [
                        Insn::LConst(1),
                        Insn::Arith(Kind::Long, ArithOp::Add),
                        Insn::PutField(cp[1]),
                        Insn::Pop2,
                    ]
                    .map(Item::I),
                );
            }
            (7, Some(a), _) => {
                // b = a != 0 ? 1 : 2 (a value on the stack across the merge)
                let s = t; // this template
                let _ = s;
                v.push(Item::I(Insn::Load(Kind::Int, a)));
                v.push(Item::I(Insn::Load(Kind::Int, a)));
                v.push(Item::I(Insn::If(IfKind::IntZero(Cond::Eq), u32::MAX))); // patched: +3
                v.push(Item::I(Insn::IConst(1)));
                v.push(Item::I(Insn::Goto(u32::MAX - 1))); // patched: +2
                v.push(Item::I(Insn::IConst(2)));
                v.push(Item::I(Insn::Arith(Kind::Int, ArithOp::Add)));
                v.push(Item::I(Insn::Store(Kind::Int, a)));
            }
            (8, Some(a), _) => {
                v.push(Item::I(Insn::Load(Kind::Int, a)));
                v.push(Item::Br(
                    |t| Insn::TableSwitch {
                        default: t[0],
                        low: 0,
                        high: 1,
                        targets: vec![t[1], t[2]],
                    },
                    vec![lbl(r), lbl(r), lbl(r)],
                ));
            }
            (9, _, _) => v.push(Item::I(Insn::Return(None))),
            (10, _, Some(o)) => {
                v.extend(
                    [
                        Insn::Load(Kind::Ref, o),
                        Insn::CheckCast(cp[3]),
                        Insn::AThrow,
                    ]
                    .map(Item::I),
                );
            }
            (11, _, _) => {
                // A new value for a slot (of the slot's kind: the generator
                // cannot follow branches, so kinds stay fixed to keep the
                // program well typed).
                let s = first + r.below(u64::from(n_slots - first)) as u16;
                let k = kinds[s as usize];
                v.push(Item::I(if k == Kind::Int {
                    Insn::IConst(9)
                } else {
                    Insn::AConstNull
                }));
                v.push(Item::I(Insn::Store(k, s)));
            }
            (12, _, Some(o)) => {
                // A handler: only reachable through the exception table.
                v.push(Item::I(Insn::Return(None)));
                handler_templates.push(t);
                v.push(Item::I(Insn::Store(Kind::Ref, o)));
                v.push(Item::Br(|t| Insn::Goto(t[0]), vec![lbl(r)]));
            }
            (13, Some(a), _) => {
                v.extend(
                    [
                        Insn::GetStatic(cp[0]),
                        Insn::Load(Kind::Int, a),
                        Insn::Arith(Kind::Int, ArithOp::Add),
                    ]
                    .map(Item::I),
                );
                v.push(Item::I(Insn::Store(Kind::Int, a)));
            }
            (14, _, Some(o)) => {
                v.extend(
                    [
                        Insn::IConst(3),
                        Insn::NewArray(ArrayKind::Int),
                        Insn::Dup,
                        Insn::IConst(0),
                    ]
                    .map(Item::I),
                );
                v.extend(
                    [
                        Insn::IConst(5),
                        Insn::ArrayStore(ArrayKind::Int),
                        Insn::Store(Kind::Ref, o),
                    ]
                    .map(Item::I),
                );
            }
            (15, _, _) => v.push(Item::Br(|t| Insn::Jsr(t[0]), vec![L::At(n_templates + 1)])),
            _ => v.push(Item::I(Insn::Nop)),
        }
        templates.push(v);
    }
    templates.push(vec![Item::I(Insn::Return(None))]);
    // A subroutine (slot `n_slots` holds its return address), reached only by `jsr`.
    let mut sub = vec![Item::I(Insn::Store(Kind::Ref, n_slots))];
    match pick(r, &kinds, Kind::Ref) {
        Some(o) if r.below(2) == 0 => {
            sub.extend([Insn::Load(Kind::Ref, o), Insn::MonitorExit].map(Item::I))
        }
        _ => sub.extend([Insn::GetStatic(cp[0]), Insn::Pop].map(Item::I)),
    }
    sub.push(Item::I(Insn::Ret(n_slots)));
    templates.push(sub);
    // Layout.
    let mut starts = Vec::new();
    let mut pc = 0u32;
    for t in &templates {
        starts.push(pc);
        pc += t.len() as u32;
    }
    let mut insns = Vec::new();
    let mut pc = 0u32;
    for t in templates {
        let base = pc;
        for (k, item) in t.into_iter().enumerate() {
            let insn = match item {
                Item::I(Insn::If(c, u32::MAX)) => Insn::If(c, base + k as u32 + 3),
                Item::I(Insn::Goto(x)) if x == u32::MAX - 1 => Insn::Goto(base + k as u32 + 2),
                Item::I(i) => i,
                Item::Br(f, labels) => {
                    let ts: Vec<u32> = labels.iter().map(|L::At(n)| starts[*n]).collect();
                    f(&ts)
                }
            };
            insns.push((pc, insn));
            pc += 1;
        }
    }
    // Handlers cover random template ranges and start after the `return` of a handler template.
    let mut handlers = Vec::new();
    for &h in &handler_templates {
        let a = starts[1 + r.below((starts.len() - 2) as u64) as usize];
        let b = starts[(1 + r.below((starts.len() - 1) as u64) as usize).max(1)];
        if a < b {
            handlers.push(handler(
                a,
                b,
                starts[h] + 1,
                if r.below(2) == 0 { None } else { Some(cp[3]) },
            ));
        }
    }
    (insns, handlers, n_slots + 1)
}

#[test]
fn random_plausible_programs_lower_and_validate() {
    let mut r = Rng(seed(0x2545_f491_4f6c_dd1d));
    let (mut lowered, mut clean) = (0, 0);
    let mut lowerer = Lowerer::new();
    let n = rounds(5_000);
    for round in 0..n {
        let mut cp = Cp::default();
        let ids = [
            cp.field("T", "s", "I"),
            cp.field("T", "f", "J"),
            cp.method("T", "m", "(I)Ljava/lang/Object;"),
            cp.class("T"),
            cp.int(7),
            cp.string("x"),
        ];
        let is_static = r.below(2) == 0;
        let (insns, handlers, max_locals) = plausible_program(&mut r, &ids, is_static);
        let flags = if is_static { access::STATIC } else { 0 }
            | if r.below(4) == 0 {
                access::SYNCHRONIZED
            } else {
                0
            };
        let class = one_method(cp, "m", "()V", flags, code(8, max_locals, insns, handlers));
        match lowerer.lower_method(&class, &class.methods[0]) {
            Ok(body) => {
                lowered += 1;
                if let Err(errs) = validate_structure(&body) {
                    panic!(
                        "round {round}: invalid structure:\n{}\n{}",
                        errs.join("\n"),
                        dump(&body)
                    );
                }
                if body.notes.is_empty() {
                    clean += 1;
                    if let Err(errs) = validate(&body) {
                        panic!(
                            "round {round}: invalid:\n{}\n{}",
                            errs.join("\n"),
                            dump(&body)
                        );
                    }
                }
            }
            Err(e) => {
                // Only reads of never-written slots or stack mismatches are expected.
                assert!(
                    e.message.contains("read before")
                        || e.message.contains("inconsistent")
                        || e.message.contains("handler"),
                    "round {round}: unexpected error {e}\n{:#?}",
                    class.methods[0].code
                );
            }
        }
    }
    eprintln!("{lowered} of {n} plausible programs lowered, {clean} without notes");
    assert!(
        lowered > n / 2 && clean > n / 5,
        "{lowered} lowered, {clean} clean"
    );
}
