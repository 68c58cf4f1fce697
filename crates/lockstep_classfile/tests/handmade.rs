//! Hand-assembled classes for what javac cannot produce: `jsr`/`ret` (only
//! in class files before version 50), `jsr_w`, `wide ret`, `swap`, `nop`,
//! switch padding at every alignment, and the oldest and newest versions.

mod common;

use common::*;
use lockstep_classfile::{parse, parse_with, Insn::*, Kind, ParseOptions};

/// `jsr` / `jsr_w` into a subroutine that stores its return address and
/// returns with `ret` and `wide ret`, plus a `wide iinc`.
fn jsr_code() -> Vec<u8> {
    vec![
        0xA8, 0x00, 0x09, // 0: jsr +9 -> 9
        0xC9, 0x00, 0x00, 0x00, 0x06, // 3: jsr_w +6 -> 9
        0xB1, // 8: return
        0x4C, // 9: astore_1
        0xC4, 0x84, 0x01, 0x2C, 0xFC, 0x18, // 10: wide iinc 300, -1000
        0xA9, 0x01, // 16: ret 1
        0xC4, 0xA9, 0x01, 0x04, // 18: wide ret 260
        0x5F, // 22: swap
        0x00, // 23: nop
        0xB1, // 24: return
    ]
}

#[test]
fn jsr_ret_in_old_class_files() {
    for (major, minor) in [(45, 3), (46, 0), (48, 0), (49, 0), (50, 0)] {
        let mut b = ClassBuilder::new("Old", major);
        b.minor = minor;
        b.method_with_code(&jsr_code(), &[]);
        let c = parse(&b.build()).unwrap_or_else(|e| panic!("{major}.{minor}: {e}"));
        assert_eq!((c.major_version, c.minor_version), (major, minor));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        let code = c.methods[0].code.as_ref().unwrap();
        assert_eq!(
            code.insns,
            [
                (0, Jsr(9)),
                (3, Jsr(9)),
                (8, Return(None)),
                (9, Store(Kind::Ref, 1)),
                (10, IInc(300, -1000)),
                (16, Ret(1)),
                (18, Ret(260)),
                (22, Swap),
                (23, Nop),
                (24, Return(None)),
            ]
        );
    }
}

#[test]
fn jsr_in_java7_plus_is_accepted_with_a_warning() {
    let mut b = ClassBuilder::new("New", 51);
    b.method_with_code(&jsr_code(), &[]);
    let c = parse(&b.build()).unwrap();
    assert_eq!(c.warnings.len(), 1);
    assert!(
        c.warnings[0].contains("method m()V") && c.warnings[0].contains("jsr/ret"),
        "{:?}",
        c.warnings
    );
}

#[test]
fn every_wide_load_and_store() {
    let mut code = Vec::new();
    for op in [0x15u8, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3A] {
        code.extend_from_slice(&[0xC4, op, 0x12, 0x34]);
    }
    code.push(0xB1);
    let c = parse(&class_with_code(52, &code)).unwrap();
    let got: Vec<_> = c.methods[0]
        .code
        .as_ref()
        .unwrap()
        .insns
        .iter()
        .map(|x| x.1.clone())
        .collect();
    let kinds = [Kind::Int, Kind::Long, Kind::Float, Kind::Double, Kind::Ref];
    let mut want: Vec<_> = kinds.iter().map(|k| Load(*k, 0x1234)).collect();
    want.extend(kinds.iter().map(|k| Store(*k, 0x1234)));
    want.push(Return(None));
    assert_eq!(got, want);
}

#[test]
fn short_load_store_forms() {
    // iload_0..aload_3 and istore_0..astore_3 normalise to the general form.
    let mut code: Vec<u8> = (0x1A..=0x2D).collect();
    code.extend(0x3B..=0x4E);
    code.push(0xB1);
    let c = parse(&class_with_code(52, &code)).unwrap();
    let got: Vec<_> = c.methods[0]
        .code
        .as_ref()
        .unwrap()
        .insns
        .iter()
        .map(|x| x.1.clone())
        .collect();
    let kinds = [Kind::Int, Kind::Long, Kind::Float, Kind::Double, Kind::Ref];
    let mut want = Vec::new();
    for k in kinds {
        want.extend((0..4).map(|i| Load(k, i)));
    }
    for k in kinds {
        want.extend((0..4).map(|i| Store(k, i)));
    }
    want.push(Return(None));
    assert_eq!(got, want);
}

#[test]
fn switch_padding_at_every_alignment() {
    for nops in 0..4u32 {
        // tableswitch at pc `nops`, cases 5..=6, all targets -> the final return.
        let mut code = vec![0x00; nops as usize];
        let pc = nops;
        code.push(0xAA);
        while code.len() & 3 != 0 {
            code.push(0);
        }
        let end = code.len() as u32 + 20; // default + low + high + 2 targets
        let rel = (end - pc) as i32;
        for v in [rel, 5, 6, rel, rel] {
            code.extend_from_slice(&v.to_be_bytes());
        }
        assert_eq!(code.len() as u32, end);
        code.push(0xB1);
        let c = parse(&class_with_code(52, &code)).unwrap_or_else(|e| panic!("pc {pc}: {e}"));
        let insns = &c.methods[0].code.as_ref().unwrap().insns;
        assert_eq!(
            insns[nops as usize],
            (
                pc,
                TableSwitch {
                    default: end,
                    low: 5,
                    high: 6,
                    targets: vec![end, end]
                }
            )
        );
        assert_eq!(insns.last(), Some(&(end, Return(None))));

        // The same for lookupswitch with two pairs.
        let mut code = vec![0x00; nops as usize];
        code.push(0xAB);
        while code.len() & 3 != 0 {
            code.push(0);
        }
        let end = code.len() as u32 + 24; // default + npairs + 2 pairs
        let rel = (end - pc) as i32;
        for v in [rel, 2, -7, rel, 1 << 20, rel] {
            code.extend_from_slice(&v.to_be_bytes());
        }
        code.push(0xB1);
        let c = parse(&class_with_code(52, &code)).unwrap();
        let insns = &c.methods[0].code.as_ref().unwrap().insns;
        assert_eq!(
            insns[nops as usize],
            (
                pc,
                LookupSwitch {
                    default: end,
                    pairs: vec![(-7, end), (1 << 20, end)]
                }
            )
        );
    }
}

#[test]
fn invokeinterface_and_constant_operands() {
    let mut b = ClassBuilder::new("I", 52);
    let list_size = b.imethod_ref("java/util/List", "size", "()I");
    let s = b.string("hi");
    let l = b.long(1 << 40);
    let cls = b.class("java/lang/String");
    let mut code = vec![0x01, 0xB9];
    code.extend_from_slice(&list_size.to_be_bytes());
    code.extend_from_slice(&[1, 0, 0x57]); // count 1, zero byte, pop
    code.push(0x12);
    code.push(s as u8); // ldc "hi"
    code.push(0x14);
    code.extend_from_slice(&l.to_be_bytes()); // ldc2_w
    code.push(0xC5);
    code.extend_from_slice(&cls.to_be_bytes());
    code.push(2); // multianewarray dims 2
    code.push(0xB1);
    b.method_with_code(&code, &[]);
    let c = parse(&b.build()).unwrap();
    let insns: Vec<_> = c.methods[0]
        .code
        .as_ref()
        .unwrap()
        .insns
        .iter()
        .map(|x| x.1.clone())
        .collect();
    assert_eq!(
        insns,
        [
            AConstNull,
            Invoke(lockstep_classfile::InvokeKind::Interface, list_size),
            Pop,
            Ldc(s),
            Ldc(l),
            MultiANewArray(cls, 2),
            Return(None)
        ]
    );
}

#[test]
fn newest_version_and_preview_minor() {
    let mut b = ClassBuilder::new("Preview", 69);
    b.minor = 0xFFFF;
    b.method_with_code(&[0xB1], &[]);
    let c = parse(&b.build()).unwrap();
    assert_eq!((c.major_version, c.minor_version), (69, 0xFFFF));
}

#[test]
fn index_only_mode_skips_instructions() {
    let mut b = ClassBuilder::new("Idx", 52);
    b.method_with_code(&jsr_code(), &[(0, 8, 8, 0)]);
    let c = parse_with(&b.build(), &ParseOptions::index_only()).unwrap();
    let code = c.methods[0].code.as_ref().unwrap();
    assert!(code.insns.is_empty());
    assert_eq!(code.code_length, 25);
    assert_eq!(code.exception_table.len(), 1);
    assert_eq!(code.exception_table[0].catch_type, None);
}

#[test]
fn names_share_the_pool_allocation() {
    use std::sync::Arc;
    let mut b = ClassBuilder::new("Shared", 52);
    let f = b.field_ref("Shared", "count", "I");
    let code = [0xB2, (f >> 8) as u8, f as u8, 0x57, 0xB1];
    b.method_with_code(&code, &[]);
    b.field(0x0008, "count", "I", vec![]);
    let c = parse(&b.build()).unwrap();
    let pool = &c.constant_pool;
    let utf8 = |s: &str| {
        pool.entries
            .iter()
            .find_map(|e| match e {
                lockstep_classfile::Constant::Utf8(u) if &**u == s => Some(u.clone()),
                _ => None,
            })
            .unwrap()
    };
    let r = pool.field_ref(f).unwrap();
    // One allocation per string, shared by every reference to it.
    assert!(Arc::ptr_eq(&r.name, &utf8("count")));
    assert!(Arc::ptr_eq(&r.class, &utf8("Shared")));
    assert!(Arc::ptr_eq(&c.this_class, &utf8("Shared")));
    assert!(Arc::ptr_eq(&c.fields[0].name, &utf8("count")));
    assert!(Arc::ptr_eq(&c.fields[0].descriptor, &r.descriptor));
    assert!(Arc::ptr_eq(&c.methods[0].name, &utf8("m")));
}
