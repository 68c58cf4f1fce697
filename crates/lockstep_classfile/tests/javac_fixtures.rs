//! Fixtures compiled by javac at test time (tests/fixtures/fx plus a
//! generated class), with exact assertions on decoded instructions and
//! attributes. javac 17 must be on PATH; JDK 25's javac is used too when
//! present (class-file version 69).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::*;
use lockstep_classfile::{
    access, parse, ArithOp::*, ArrayKind, ClassFile, CompareOp, Cond, Constant, ConvertTo,
    ElementValue, ExceptionHandler, IfKind, Insn, Insn::*, InvokeKind, Kind, MethodInfo,
};

fn fixtures17() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| compile_fixtures(Path::new("javac"), 17, "17"))
}

fn fixtures8() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| compile_fixtures(Path::new("javac"), 8, "8"))
}

fn load(dir: &Path, name: &str) -> ClassFile {
    let path = dir.join(format!("{name}.class"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let c = parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(c.warnings.is_empty(), "{name}: {:?}", c.warnings);
    c
}

fn method<'a>(c: &'a ClassFile, name: &str) -> &'a MethodInfo {
    c.methods
        .iter()
        .find(|m| &*m.name == name)
        .unwrap_or_else(|| panic!("no method {name}"))
}

fn insns(c: &ClassFile, name: &str) -> Vec<Insn> {
    method(c, name)
        .code
        .as_ref()
        .unwrap()
        .insns
        .iter()
        .map(|(_, i)| i.clone())
        .collect()
}

fn with_pcs(c: &ClassFile, name: &str) -> Vec<(u32, Insn)> {
    method(c, name).code.as_ref().unwrap().insns.clone()
}

#[test]
fn versions() {
    assert_eq!(load(fixtures17(), "fx/Everything").major_version, 61);
    assert_eq!(load(fixtures17(), "fx/Everything").minor_version, 0);
    assert_eq!(load(fixtures8(), "fx/Legacy8").major_version, 52);
    assert_eq!(load(fixtures8(), "fx/Generated").major_version, 52);
}

#[test]
fn simple_sequences() {
    let c = load(fixtures17(), "fx/Everything");
    // x = x + 1; return x;
    assert_eq!(
        insns(&c, "inc"),
        [
            Load(Kind::Int, 1),
            IConst(1),
            Arith(Kind::Int, Add),
            Store(Kind::Int, 1),
            Load(Kind::Int, 1),
            Return(Some(Kind::Int)),
        ]
    );
    // x += 1000 needs the wide form of iinc (6 bytes).
    assert_eq!(
        with_pcs(&c, "bigIinc"),
        [
            (0, IInc(0, 1000)),
            (6, Load(Kind::Int, 0)),
            (7, Return(Some(Kind::Int))),
        ]
    );
    let l = |i| Load(Kind::Long, i);
    assert_eq!(
        insns(&c, "longMath"),
        [
            l(0),
            l(2),
            Arith(Kind::Long, Mul),
            l(0),
            l(2),
            Arith(Kind::Long, Div),
            Arith(Kind::Long, Add),
            l(0),
            l(2),
            Arith(Kind::Long, Rem),
            Arith(Kind::Long, Sub),
            IConst(3),
            Arith(Kind::Long, Shl),
            IConst(1),
            Arith(Kind::Long, Shr),
            IConst(2),
            Arith(Kind::Long, Ushr),
            l(0),
            Arith(Kind::Long, And),
            l(2),
            l(0),
            Neg(Kind::Long),
            Arith(Kind::Long, Xor),
            Arith(Kind::Long, Or),
            Return(Some(Kind::Long)),
        ]
    );
    let d = insns(&c, "doubleMath");
    for op in [Add, Sub, Mul, Div, Rem] {
        assert!(d.contains(&Arith(Kind::Double, op)) && d.contains(&Arith(Kind::Float, op)));
    }
    assert!(d.contains(&Neg(Kind::Double)) && d.contains(&Neg(Kind::Float)));
}

#[test]
fn switches() {
    let c = load(fixtures17(), "fx/Everything");
    assert_eq!(
        with_pcs(&c, "dense")[..2],
        [
            (0, Load(Kind::Int, 0)),
            (
                1,
                TableSwitch {
                    default: 44,
                    low: 0,
                    high: 3,
                    targets: vec![32, 35, 38, 41]
                }
            ),
        ]
    );
    assert_eq!(with_pcs(&c, "dense")[2], (32, IConst(10)));
    assert_eq!(
        with_pcs(&c, "sparse")[1],
        (
            1,
            LookupSwitch {
                default: 42,
                pairs: vec![(-1000, 36), (7, 38), (100000, 40)]
            }
        )
    );
    // String switch: hashCode lookupswitch, then a tableswitch on the index.
    let s = insns(&c, "stringSwitch");
    assert!(s.iter().any(|i| matches!(i, LookupSwitch { .. })));
    assert!(s.iter().any(|i| matches!(i, TableSwitch { .. })));
}

#[test]
fn monitors_and_exception_tables() {
    let c = load(fixtures17(), "fx/Everything");
    let code = method(&c, "sync").code.as_ref().unwrap();
    let field = |i: &Insn| match i {
        GetField(idx) => c.constant_pool.field_ref(*idx).map(|r| r.name.to_string()),
        _ => None,
    };
    let seq = &code.insns;
    assert_eq!(seq[0], (0, Load(Kind::Ref, 0)));
    assert_eq!(field(&seq[1].1).as_deref(), Some("lock"));
    assert_eq!(
        seq[2..5].iter().map(|x| x.1.clone()).collect::<Vec<_>>(),
        [Dup, Store(Kind::Ref, 1), MonitorEnter]
    );
    assert_eq!(
        seq.iter()
            .filter(|(_, i)| *i == MonitorExit)
            .map(|(pc, _)| *pc)
            .collect::<Vec<_>>(),
        [12, 16]
    );
    assert_eq!(seq.last(), Some(&(18, AThrow)));
    assert_eq!(
        code.exception_table,
        [
            ExceptionHandler {
                start_pc: 7,
                end_pc: 13,
                handler_pc: 14,
                catch_type: None
            },
            ExceptionHandler {
                start_pc: 14,
                end_pc: 17,
                handler_pc: 14,
                catch_type: None
            },
        ]
    );
    assert!(method(&c, "syncMethod").access_flags & access::SYNCHRONIZED != 0);

    let t = method(&c, "tryFinally").code.as_ref().unwrap();
    let catches: Vec<(u32, u32, u32, Option<&str>)> = t
        .exception_table
        .iter()
        .map(|h| {
            let name = h
                .catch_type
                .map(|i| &**c.constant_pool.class_name(i).unwrap());
            (h.start_pc, h.end_pc, h.handler_pc, name)
        })
        .collect();
    assert_eq!(
        catches,
        [
            (0, 7, 15, Some("java/lang/IllegalStateException")),
            (0, 7, 15, Some("java/lang/UnsupportedOperationException")),
            (0, 7, 26, None),
            (15, 18, 26, None),
        ]
    );
}

#[test]
fn invocations_resolve_to_member_refs() {
    let c = load(fixtures17(), "fx/Everything");
    let calls: Vec<(InvokeKind, String, bool)> = insns(&c, "invokes")
        .iter()
        .filter_map(|i| match i {
            Invoke(kind, idx) => {
                let (r, iface) = c.constant_pool.method_ref(*idx).unwrap();
                Some((
                    *kind,
                    format!("{}.{}{}", r.class, r.name, r.descriptor),
                    iface,
                ))
            }
            _ => None,
        })
        .collect();
    let s = |k, m: &str, i| (k, m.to_string(), i);
    assert_eq!(
        calls,
        [
            s(InvokeKind::Interface, "java/util/List.size()I", true),
            s(InvokeKind::Static, "java/lang/Math.abs(I)I", false),
            s(
                InvokeKind::Virtual,
                "java/lang/Object.toString()Ljava/lang/String;",
                false
            ),
            s(InvokeKind::Virtual, "java/lang/String.length()I", false),
            s(InvokeKind::Special, "fx/Iface.dflt()I", true),
            s(InvokeKind::Static, "fx/Iface.helper()I", true),
            s(
                InvokeKind::Static,
                "java/util/List.of()Ljava/util/List;",
                true
            ),
            s(InvokeKind::Interface, "java/util/List.size()I", true),
        ]
    );
}

#[test]
fn invokedynamic_and_bootstrap_methods() {
    let c = load(fixtures17(), "fx/Everything");
    let indy = |name: &str| -> Vec<(String, u16)> {
        insns(&c, name)
            .iter()
            .filter_map(|i| match i {
                InvokeDynamic(idx) => match c.constant_pool.get(*idx) {
                    Some(Constant::InvokeDynamic {
                        bootstrap_index,
                        name,
                        ..
                    }) => Some((name.to_string(), *bootstrap_index)),
                    other => panic!("{other:?}"),
                },
                _ => None,
            })
            .collect()
    };
    let lambdas = indy("lambdas");
    assert_eq!(
        lambdas.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
        ["getAsInt", "get"]
    );
    let concat = indy("concat");
    assert_eq!(concat[0].0, "makeConcatWithConstants");
    for (_, bsm) in lambdas.iter().chain(&concat) {
        let b = &c.bootstrap_methods[*bsm as usize];
        let Some(Constant::MethodHandle { kind: 6, reference }) = c.constant_pool.get(b.method_ref)
        else {
            panic!("bootstrap method is not an invokestatic handle")
        };
        let (r, _) = c.constant_pool.method_ref(*reference).unwrap();
        assert!([
            "java/lang/invoke/LambdaMetafactory",
            "java/lang/invoke/StringConcatFactory"
        ]
        .contains(&&*r.class));
    }
    // The concat recipe is a String static argument.
    let recipe = &c.bootstrap_methods[concat[0].1 as usize].arguments[0];
    assert_eq!(
        c.constant_pool.get(*recipe),
        Some(&Constant::String("\u{1}\u{1}-\u{1}".into()))
    );
}

#[test]
fn constants_and_loads() {
    let c = load(fixtures17(), "fx/Everything");
    let seq = insns(&c, "constants");
    let ldc: Vec<Constant> = seq
        .iter()
        .filter_map(|i| match i {
            Ldc(idx) => c.constant_pool.get(*idx).cloned(),
            _ => None,
        })
        .collect();
    assert_eq!(
        ldc,
        [
            Constant::Integer(1_000_000),
            Constant::Float(3.5),
            Constant::Long(12345678901),
            Constant::Double(6.02e23),
            Constant::Class("java/lang/String".into()),
            // The short and byte constants go through sipush/bipush.
        ]
    );
    for i in [
        IConst(8),
        LConst(1),
        DConst(1.0),
        AConstNull,
        IConst(300),
        IConst(-100),
        FConst(2.0),
        LConst(0),
        DConst(0.0),
        IConst(-1),
    ] {
        assert!(seq.contains(&i), "{i:?} missing");
    }
    let field = |n: &str| {
        c.fields
            .iter()
            .find(|f| &*f.name == n)
            .unwrap()
            .constant_value
            .clone()
    };
    assert_eq!(field("CONST_INT"), Some(Constant::Integer(42)));
    assert_eq!(field("CONST_LONG"), Some(Constant::Long(1234567890123)));
    assert_eq!(field("CONST_FLOAT"), Some(Constant::Float(1.5)));
    assert_eq!(field("CONST_DOUBLE"), Some(Constant::Double(2.25)));
    assert_eq!(
        field("CONST_STRING"),
        Some(Constant::String("hello".into()))
    );
    assert_eq!(field("counter"), None);
}

/// A coarse name for each instruction family, with its kinds.
fn family(i: &Insn) -> String {
    match i {
        TableSwitch { .. } => "TableSwitch".into(),
        LookupSwitch { .. } => "LookupSwitch".into(),
        If(k, _) => format!("If({k:?})"),
        Goto(_) => "Goto".into(),
        Jsr(_) => "Jsr".into(),
        Ldc(_) | GetStatic(_) | PutStatic(_) | GetField(_) | PutField(_) | InvokeDynamic(_)
        | New(_) | ANewArray(_) | CheckCast(_) | InstanceOf(_) => {
            format!("{i:?}").split('(').next().unwrap().to_string()
        }
        Invoke(k, _) => format!("Invoke({k:?})"),
        MultiANewArray(..) => "MultiANewArray".into(),
        IConst(_) => "IConst".into(),
        LConst(_) => "LConst".into(),
        FConst(_) => "FConst".into(),
        DConst(_) => "DConst".into(),
        Load(k, _) => format!("Load({k:?})"),
        Store(k, _) => format!("Store({k:?})"),
        IInc(..) => "IInc".into(),
        Ret(_) => "Ret".into(),
        other => format!("{other:?}"),
    }
}

#[test]
fn every_instruction_family_javac_emits() {
    let mut seen = BTreeSet::new();
    for dir in [fixtures17(), fixtures8()] {
        for (name, bytes) in dir_classes(dir) {
            let c = parse(&bytes).unwrap();
            check_invariants(&name, &c);
            for m in &c.methods {
                for (_, i) in m.code.iter().flat_map(|c| &c.insns) {
                    seen.insert(family(i));
                }
            }
        }
    }
    let mut expected: Vec<String> = [
        "AConstNull",
        "IConst",
        "LConst",
        "FConst",
        "DConst",
        "Ldc",
        "ArrayLength",
        "AThrow",
        "Pop",
        "Pop2",
        "Dup",
        "DupX1",
        "DupX2",
        "Dup2",
        "Dup2X1",
        "Dup2X2",
        "Goto",
        "TableSwitch",
        "LookupSwitch",
        "GetStatic",
        "PutStatic",
        "GetField",
        "PutField",
        "InvokeDynamic",
        "New",
        "ANewArray",
        "MultiANewArray",
        "CheckCast",
        "InstanceOf",
        "MonitorEnter",
        "MonitorExit",
        "IInc",
        "Return(None)",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for k in ["Int", "Long", "Float", "Double", "Ref"] {
        expected.push(format!("Load({k})"));
        expected.push(format!("Store({k})"));
        expected.push(format!("Return(Some({k}))"));
    }
    for k in [
        "Int", "Long", "Float", "Double", "Ref", "Byte", "Char", "Short",
    ] {
        expected.push(format!("ArrayLoad({k})"));
        expected.push(format!("ArrayStore({k})"));
    }
    for k in [
        "Boolean", "Char", "Float", "Double", "Byte", "Short", "Int", "Long",
    ] {
        expected.push(format!("NewArray({k})"));
    }
    for k in ["Int", "Long", "Float", "Double"] {
        expected.push(format!("Neg({k})"));
        for op in ["Add", "Sub", "Mul", "Div", "Rem"] {
            expected.push(format!("Arith({k}, {op})"));
        }
    }
    for k in ["Int", "Long"] {
        for op in ["Shl", "Shr", "Ushr", "And", "Or", "Xor"] {
            expected.push(format!("Arith({k}, {op})"));
        }
    }
    for (from, tos) in [
        (
            "Int",
            &["Long", "Float", "Double", "Byte", "Char", "Short"][..],
        ),
        ("Long", &["Int", "Float", "Double"][..]),
        ("Float", &["Int", "Long", "Double"][..]),
        ("Double", &["Int", "Long", "Float"][..]),
    ] {
        for to in tos {
            expected.push(format!("Convert({from}, {to})"));
        }
    }
    for cmp in ["LCmp", "FCmpL", "FCmpG", "DCmpL", "DCmpG"] {
        expected.push(format!("Compare({cmp})"));
    }
    for c in ["Eq", "Ne", "Lt", "Ge", "Gt", "Le"] {
        expected.push(format!("If(IntZero({c}))"));
        expected.push(format!("If(IntCmp({c}))"));
    }
    for c in ["Eq", "Ne"] {
        expected.push(format!("If(RefCmp({c}))"));
        expected.push(format!("If(Null({c}))"));
    }
    for k in ["Virtual", "Special", "Static", "Interface"] {
        expected.push(format!("Invoke({k})"));
    }
    let missing: Vec<&String> = expected.iter().filter(|e| !seen.contains(*e)).collect();
    assert!(
        missing.is_empty(),
        "never decoded: {missing:?}\nseen: {seen:?}"
    );
    // Sanity: the typed enums print as the names used above.
    assert_eq!(
        format!("{:?}", Convert(Kind::Int, ConvertTo::Byte)),
        "Convert(Int, Byte)"
    );
    assert_eq!(
        format!("{:?}", ArrayLoad(ArrayKind::Char)),
        "ArrayLoad(Char)"
    );
    assert_eq!(format!("{:?}", Compare(CompareOp::DCmpG)), "Compare(DCmpG)");
    assert_eq!(
        format!("{:?}", If(IfKind::Null(Cond::Ne), 0)),
        "If(Null(Ne), 0)"
    );
}

#[test]
fn wide_forms_ldc_w_and_goto_w() {
    for dir in [fixtures17(), fixtures8()] {
        let c = load(dir, "fx/Generated");
        let many = insns(&c, "manyLocals");
        for i in [
            Load(Kind::Int, 300),
            Store(Kind::Int, 299),
            IInc(300, 1000),
            Store(Kind::Long, 301),
            Load(Kind::Long, 301),
            Store(Kind::Double, 303),
            Load(Kind::Double, 303),
            Store(Kind::Ref, 305),
            Load(Kind::Ref, 305),
            Store(Kind::Float, 306),
            Load(Kind::Float, 306),
        ] {
            assert!(many.contains(&i), "{i:?} missing");
        }
        // > 256 string constants: some are only reachable by ldc_w.
        let max_ldc = insns(&c, "manyConstants")
            .iter()
            .filter_map(|i| if let Ldc(x) = i { Some(*x) } else { None })
            .max()
            .unwrap();
        assert!(max_ldc > 255);
        // The loop body is over 32 KiB, so javac uses goto_w both ways.
        let huge = with_pcs(&c, "huge");
        let far = huge
            .iter()
            .filter(|(pc, i)| matches!(i, Goto(t) if (*t as i64 - *pc as i64).abs() > 32767))
            .count();
        assert!(far >= 2, "expected goto_w jumps, found {far}");
        assert!(method(&c, "huge").code.as_ref().unwrap().code_length > 32767);
    }
}

#[test]
fn class_level_attributes() {
    let c = load(fixtures17(), "fx/Everything");
    assert_eq!(c.source_file.as_deref(), Some("Everything.java"));
    assert_eq!(c.interfaces, vec!["fx/Iface".into()]);
    let members: BTreeSet<&str> = c.nest_members.iter().map(|s| &**s).collect();
    assert_eq!(
        members,
        BTreeSet::from([
            "fx/Everything$1",
            "fx/Everything$2",
            "fx/Everything$1Local",
            "fx/Everything$Inner",
            "fx/Everything$Point",
        ])
    );
    let inner = c
        .inner_classes
        .iter()
        .find(|i| &*i.inner_class == "fx/Everything$Inner")
        .unwrap();
    assert_eq!(inner.outer_class.as_deref(), Some("fx/Everything"));
    assert_eq!(inner.inner_name.as_deref(), Some("Inner"));
    let anon = c
        .inner_classes
        .iter()
        .find(|i| &*i.inner_class == "fx/Everything$1")
        .unwrap();
    assert_eq!(
        (anon.outer_class.clone(), anon.inner_name.clone()),
        (None, None)
    );

    let inner = load(fixtures17(), "fx/Everything$Inner");
    assert_eq!(inner.nest_host.as_deref(), Some("fx/Everything"));
    assert!(inner.enclosing_method.is_none());

    let local = load(fixtures17(), "fx/Everything$1Local");
    let em = local.enclosing_method.unwrap();
    assert_eq!(&*em.class, "fx/Everything");
    assert_eq!(em.method, Some(("localClassDemo".into(), "()I".into())));
    // Anonymous class in a field initializer: enclosed by the class only.
    let anon = load(fixtures17(), "fx/Everything$1");
    assert_eq!(anon.enclosing_method.unwrap().method, None);

    let point = load(fixtures17(), "fx/Everything$Point");
    let comps = point.record_components.unwrap();
    assert_eq!(
        comps
            .iter()
            .map(|r| (&*r.name, &*r.descriptor))
            .collect::<Vec<_>>(),
        [("x", "I"), ("y", "I")]
    );
    assert!(c.record_components.is_none());
    assert!(c.bootstrap_methods.len() >= 3);
}

#[test]
fn member_attributes() {
    let c = load(fixtures17(), "fx/Everything");
    let names = c.fields.iter().find(|f| &*f.name == "names").unwrap();
    assert_eq!(
        names.signature.as_deref(),
        Some("Ljava/util/List<Ljava/lang/String;>;")
    );
    let id = method(&c, "id");
    assert_eq!(
        id.signature.as_deref(),
        Some("<T::Ljava/lang/Comparable<TT;>;>(TT;)TT;")
    );
    assert_eq!(
        method(&c, "io").exceptions,
        vec![
            "java/io/IOException".into(),
            "java/lang/InterruptedException".into()
        ]
    );
    let code = method(&c, "inc").code.as_ref().unwrap();
    assert_eq!(code.max_stack, 2);
    assert_eq!(code.max_locals, 2);
    assert_eq!(code.code_length, 6);
    let vars: Vec<(&str, &str, u16, u32, u32)> = code
        .local_variables
        .iter()
        .map(|v| (&*v.name, &*v.descriptor, v.index, v.start_pc, v.length))
        .collect();
    assert_eq!(vars, [("a", "I", 0, 0, 6), ("x", "I", 1, 0, 6)]);
    assert_eq!(code.line_numbers.len(), 2);
    let dense = method(&c, "dense").code.as_ref().unwrap();
    assert_eq!(
        dense
            .line_numbers
            .iter()
            .map(|l| l.start_pc)
            .collect::<Vec<_>>(),
        [0, 32, 35, 38, 41, 44]
    );
}

#[test]
fn annotations() {
    let c = load(fixtures17(), "fx/Everything");
    let visible = c
        .annotations
        .iter()
        .find(|a| &*a.type_descriptor == "Lfx/Visible;")
        .unwrap();
    assert!(visible.runtime_visible);
    assert_eq!(
        visible.element("value"),
        Some(&ElementValue::Const('s', Constant::String("top".into())))
    );
    assert_eq!(
        visible.element("value").and_then(|v| v.as_str()),
        Some("top")
    );
    assert_eq!(
        visible.element("nums"),
        Some(&ElementValue::Array(
            (1..=3)
                .map(|i| ElementValue::Const('I', Constant::Integer(i)))
                .collect()
        ))
    );

    let inv = c
        .annotations
        .iter()
        .find(|a| &*a.type_descriptor == "Lfx/Invisible;")
        .unwrap();
    assert!(!inv.runtime_visible, "CLASS retention is RuntimeInvisible");
    assert_eq!(
        inv.element("kind"),
        Some(&ElementValue::Enum {
            type_descriptor: "Ljava/lang/annotation/ElementType;".into(),
            name: "METHOD".into()
        })
    );
    assert_eq!(
        inv.element("type"),
        Some(&ElementValue::Class("[Ljava/lang/String;".into()))
    );
    let Some(ElementValue::Annotation(nested)) = inv.element("nested") else {
        panic!()
    };
    assert_eq!(&*nested.type_descriptor, "Lfx/Visible;");
    assert!(
        !nested.runtime_visible,
        "nested values inherit the attribute's visibility"
    );
    assert_eq!(
        nested.element("value").and_then(|v| v.as_str()),
        Some("inner")
    );
    assert_eq!(
        inv.element("names"),
        Some(&ElementValue::Array(vec![
            ElementValue::Const('s', Constant::String("a".into())),
            ElementValue::Const('s', Constant::String("b".into())),
        ]))
    );
    let consts = [
        ("l", 'J', Constant::Long(7)),
        ("d", 'D', Constant::Double(2.5)),
        ("f", 'F', Constant::Float(1.5)),
        ("c", 'C', Constant::Integer('q' as i32)),
        ("b", 'B', Constant::Integer(3)),
        ("s", 'S', Constant::Integer(4)),
        ("z", 'Z', Constant::Integer(1)),
    ];
    for (name, tag, value) in consts {
        assert_eq!(
            inv.element(name),
            Some(&ElementValue::Const(tag, value)),
            "{name}"
        );
    }

    let counter = c.fields.iter().find(|f| &*f.name == "counter").unwrap();
    assert!(counter.access_flags & access::VOLATILE != 0);
    assert_eq!(counter.annotations.len(), 1);
    assert_eq!(&*counter.annotations[0].type_descriptor, "Lfx/GuardedBy;");
    assert_eq!(
        counter.annotations[0]
            .element("value")
            .and_then(|v| v.as_str()),
        Some("lock")
    );

    // Visible and invisible parameter annotations are merged per parameter.
    let params = &method(&c, "params").parameter_annotations;
    assert_eq!(params.len(), 2);
    let describe = |list: &Vec<lockstep_classfile::Annotation>| -> BTreeSet<(String, bool)> {
        list.iter()
            .map(|a| (a.type_descriptor.to_string(), a.runtime_visible))
            .collect()
    };
    assert_eq!(
        describe(&params[0]),
        BTreeSet::from([("Lfx/ParamTag;".into(), true)])
    );
    assert_eq!(
        describe(&params[1]),
        BTreeSet::from([
            ("Lfx/ParamTag;".into(), true),
            ("Lfx/ParamHidden;".into(), false)
        ])
    );
}

#[test]
fn java8_output() {
    let c = load(fixtures8(), "fx/Legacy8");
    // Before Java 9, string concatenation is StringBuilder calls.
    let concat = insns(&c, "concat");
    assert!(!concat.iter().any(|i| matches!(i, InvokeDynamic(_))));
    assert!(concat
        .iter()
        .any(|i| matches!(i, Invoke(InvokeKind::Virtual, _))));
    // Lambdas are already invokedynamic; static interface calls use an
    // InterfaceMethodref.
    let lambda = insns(&c, "lambda");
    assert!(lambda.iter().any(|i| matches!(i, InvokeDynamic(_))));
    let twice = lambda
        .iter()
        .find_map(|i| match i {
            Invoke(InvokeKind::Static, idx) => c.constant_pool.method_ref(*idx),
            _ => None,
        })
        .unwrap();
    assert_eq!((&*twice.0.name, twice.1), ("twice", true));
    assert!(!c.bootstrap_methods.is_empty());
    assert!(method(&c, "locked").access_flags & access::SYNCHRONIZED != 0);
}

#[test]
fn fixture_pcs_match_javap() {
    let javap = Path::new("javap");
    for dir in [fixtures17(), fixtures8()] {
        let classes = dir_classes(dir);
        let paths: Vec<&str> = classes.iter().map(|(p, _)| p.as_str()).collect();
        let theirs = javap_pcs_many(javap, &paths);
        for ((path, bytes), (methods, theirs)) in classes.iter().zip(theirs) {
            let c = parse(bytes).unwrap();
            assert_eq!(c.methods.len(), methods, "{path}: method count");
            let ours: Vec<Vec<u32>> = c
                .methods
                .iter()
                .filter_map(|m| m.code.as_ref())
                .map(|code| code.insns.iter().map(|x| x.0).collect())
                .collect();
            assert_eq!(ours, theirs, "{path}");
        }
    }
}

#[test]
fn jdk25_javac_major_69() {
    let javac25 = Path::new(JDK25_HOME).join("bin/javac");
    if !javac25.exists() {
        println!("note: no JDK 25 javac at {}; skipping", javac25.display());
        return;
    }
    let dir = compile_fixtures(&javac25, 25, "25");
    let classes = dir_classes(&dir);
    assert!(classes.len() >= 10);
    for (name, bytes) in &classes {
        let c = parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(c.major_version, 69, "{name}");
        assert!(c.warnings.is_empty(), "{name}: {:?}", c.warnings);
        check_invariants(name, &c);
    }
    let c = load(&dir, "fx/Everything");
    assert_eq!(
        insns(&c, "inc")[..3],
        [Load(Kind::Int, 1), IConst(1), Arith(Kind::Int, Add)]
    );
}
