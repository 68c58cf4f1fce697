//! Malformed input: every case must give an `Err` (or, for optional
//! attributes, a warning) with a useful message, and nothing may panic.
//! Includes a truncation sweep, a deterministic mutation loop, and the
//! regression files in tests/malformed/ (fuzzer finds).

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use common::*;
use lockstep_classfile::{parse, parse_with, ParseError, ParseOptions};

fn err(bytes: &[u8]) -> ParseError {
    match parse(bytes) {
        Ok(c) => panic!(
            "expected an error, parsed {} (warnings {:?})",
            c.this_class, c.warnings
        ),
        Err(e) => e,
    }
}

fn assert_err(bytes: &[u8], needles: &[&str]) -> ParseError {
    let e = err(bytes);
    let text = e.to_string();
    for n in needles {
        assert!(text.contains(n), "{text:?} does not mention {n:?}");
    }
    e
}

/// A small but complete class: a field, a method with a handler and a
/// line table, a source file.
fn small_class() -> Vec<u8> {
    let mut b = ClassBuilder::new("Small", 52);
    let f = b.field_ref("Small", "x", "I");
    let sf = b.utf8("Small.java");
    let src = b.attribute("SourceFile", &u16b(sf));
    b.attributes.push(src);
    b.field(0x0042, "x", "I", vec![]);
    let mut lines = u16b(1).to_vec();
    lines.extend_from_slice(&[0, 0, 0, 7]);
    let lnt = b.attribute("LineNumberTable", &lines);
    let code = [0x2A, 0xB4, (f >> 8) as u8, f as u8, 0x57, 0xB1, 0x57, 0xB1];
    let code = b.code(2, 1, &code, &[(0, 5, 6, 0)], &[lnt]);
    b.method(0x0001, "run", "()V", vec![code]);
    b.build()
}

#[test]
fn small_class_is_valid() {
    let c = parse(&small_class()).unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert_eq!(c.methods[0].code.as_ref().unwrap().insns.len(), 6);
    assert_eq!(c.source_file.as_deref(), Some("Small.java"));
}

#[test]
fn empty_and_wrong_magic() {
    assert_err(b"", &["not a class file", "0 bytes"]);
    assert_err(b"\xCA\xFE", &["not a class file"]);
    assert_err(b"\xDE\xAD\xBE\xEF\0\0\0\x34", &["magic is 0xDEADBEEF"]);
    assert_err(b"PK\x03\x04rest", &["zip/jar"]);
}

#[test]
fn unsupported_versions() {
    let mut b = ClassBuilder::new("V", 70);
    b.method_with_code(&[0xB1], &[]);
    let e = err(&b.build());
    assert_eq!(e.offset, 6);
    assert_eq!(
        e.message,
        "unsupported class file version 70.0 (Java 26); lockstep reads 45–69"
    );
    let mut b = ClassBuilder::new("V", 44);
    b.minor = 3;
    assert_err(&b.build(), &["version 44.3 (Java before 1.0)"]);
}

#[test]
fn truncated_at_every_offset() {
    // Every proper prefix must be an error, never a panic or a success.
    let mut cases = vec![small_class()];
    let fixture = fixtures_dir().join("fx");
    let out = scratch_dir("truncation");
    javac(
        Path::new("javac"),
        17,
        &[fixture.join("Legacy8.java")],
        &out,
    );
    cases.push(std::fs::read(out.join("fx/Legacy8.class")).unwrap());
    for bytes in &cases {
        for len in 0..bytes.len() {
            let prefix = &bytes[..len];
            let e = parse(prefix)
                .err()
                .unwrap_or_else(|| panic!("prefix {len} parsed"));
            assert!(e.offset <= len, "offset {} past the end ({len})", e.offset);
            assert!(parse_with(prefix, &ParseOptions::index_only()).is_err());
        }
        assert!(parse(bytes).is_ok());
    }
}

#[test]
fn trailing_garbage_is_a_warning() {
    let mut bytes = small_class();
    bytes.extend_from_slice(b"junk");
    let c = parse(&bytes).unwrap();
    assert_eq!(c.warnings.len(), 1);
    assert!(
        c.warnings[0].contains("4 bytes of trailing data"),
        "{:?}",
        c.warnings
    );
}

#[test]
fn bad_constant_pool_references() {
    // A Fieldref whose class index is past the end of the pool.
    let mut b = ClassBuilder::new("P", 52);
    let nat = b.nat("x", "I");
    let mut e = vec![9];
    e.extend_from_slice(&u16b(400));
    e.extend_from_slice(&u16b(nat));
    let bad = b.raw_entry(&e, 1);
    let e = assert_err(
        &b.build(),
        &[
            &format!(
                "constant #{bad} (Fieldref) refers to #400, past the end of the pool (size {})",
                bad + 1
            ),
            "constant pool",
        ],
    );
    assert!(e.offset > 10);

    // Kind mismatch: the class index names a Utf8.
    let mut b = ClassBuilder::new("P", 52);
    let nat = b.nat("x", "I");
    let name = b.utf8("NotAClass");
    let mut e = vec![10];
    e.extend_from_slice(&u16b(name));
    e.extend_from_slice(&u16b(nat));
    let bad = b.raw_entry(&e, 1);
    assert_err(
        &b.build(),
        &[&format!(
            "constant #{bad} (Methodref) refers to #{name}, a Utf8; expected Class"
        )],
    );

    // Index 0, and the second slot of a Long.
    let mut b = ClassBuilder::new("P", 52);
    b.raw_entry(&[8, 0, 0], 1);
    assert_err(&b.build(), &["refers to #0"]);
    let mut b = ClassBuilder::new("P", 52);
    let l = b.long(5);
    b.raw_entry(&[7, 0, (l + 1) as u8], 1);
    assert_err(&b.build(), &["unusable second slot"]);

    // Unknown tag, bad MethodHandle kind, Long as the last entry.
    let mut b = ClassBuilder::new("P", 52);
    b.raw_entry(&[2, 0, 0], 1);
    assert_err(&b.build(), &["unknown tag 2"]);
    let mut b = ClassBuilder::new("P", 52);
    let m = b.method_ref("P", "m", "()V");
    let mut e = vec![15, 10];
    e.extend_from_slice(&u16b(m));
    b.raw_entry(&e, 1);
    assert_err(&b.build(), &["invalid reference kind 10"]);
    let mut b = ClassBuilder::new("P", 52);
    let mut e = vec![15, 1];
    e.extend_from_slice(&u16b(m));
    b.raw_entry(&e, 1);
    assert_err(&b.build(), &["(MethodHandle)", "expected Fieldref"]);
    // A Long as the final pool entry: drop the count by one so its second
    // slot falls off the end.
    let mut b = ClassBuilder::new("P", 52);
    b.long(5);
    let mut bytes = b.build();
    let count = u16::from_be_bytes([bytes[8], bytes[9]]);
    bytes[8..10].copy_from_slice(&u16b(count - 1));
    assert_err(&bytes, &["takes two slots but is the last entry"]);

    // this_class must be a Class.
    let mut b = ClassBuilder::new("P", 52);
    b.this_class = b.utf8("P");
    assert_err(
        &b.build(),
        &[
            "class header",
            "this_class refers to",
            "a Utf8; expected Class",
        ],
    );
}

#[test]
fn instruction_errors() {
    let cases: &[(&[u8], &[&str])] = &[
        (
            &[0xCB],
            &["unknown opcode 0xcb at pc 0", "method m()V, Code"],
        ),
        (
            &[0x00, 0xCA],
            &["reserved opcode 0xca (breakpoint) at pc 1"],
        ),
        (&[0xFE], &["0xfe (impdep1)"]),
        (&[0xFF], &["0xff (impdep2)"]),
        // sipush 1; goto -2 (into the middle of sipush)
        (
            &[0x11, 0x00, 0x01, 0xA7, 0xFF, 0xFE, 0xB1],
            &["branch target 1 of goto at pc 3 is not the start of an instruction"],
        ),
        (
            &[0xA7, 0x00, 0x64],
            &["invalid branch target 100 of goto at pc 0 (code length 3)"],
        ),
        (&[0xA7, 0x80, 0x00], &["invalid branch target -32768"]),
        (
            &[0xC8, 0x7F, 0xFF, 0xFF, 0xFF],
            &["invalid branch target 2147483647"],
        ),
        (
            &[0x10],
            &["bipush at pc 0 runs past the end of the code (length 1)"],
        ),
        (
            &[0x00, 0xB6, 0x00],
            &["invokevirtual at pc 1 runs past the end"],
        ),
        (&[0xC4, 0x60, 0x00, 0x00], &["wide at pc 0 modifies iadd"]),
        (
            &[0xC4, 0x84, 0x00, 0x01, 0x00],
            &["wide at pc 0 runs past the end"],
        ),
        (&[0xBC, 0x03], &["invalid element type code 3"]),
        // tableswitch with low > high
        (
            &[0xAA, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
            &["low 1 greater than high 0"],
        ),
        // tableswitch over the whole i32 range: must not allocate 16 GiB.
        (
            &[
                0xAA, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF,
            ],
            &["tableswitch at pc 0 runs past the end"],
        ),
        (
            &[0xAB, 0, 0, 0, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF],
            &["lookupswitch at pc 0 runs past the end"],
        ),
        (
            &[0xAB, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF],
            &["negative npairs -1"],
        ),
        // lookupswitch whose pair target is mid-instruction
        (
            &[
                0xAB, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 1, 0xB1,
            ],
            &["branch target 1 of lookupswitch"],
        ),
    ];
    for (code, needles) in cases {
        let e = assert_err(&class_with_code(52, code), needles);
        assert!(e.context.contains("Code"), "{e}");
    }
}

#[test]
fn operand_kind_errors() {
    let mut b = ClassBuilder::new("K", 52);
    let m = b.method_ref("K", "m", "()V");
    let im = b.imethod_ref("java/util/List", "size", "()I");
    let f = b.field_ref("K", "x", "I");
    let s = b.string("s");
    let l = b.long(7);
    let hi = |x: u16| (x >> 8) as u8;
    let lo = |x: u16| x as u8;
    let bytes = b.build();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![0xB4, hi(m), lo(m), 0xB1], "getfield at pc 0 refers to"),
        (vec![0xB6, hi(im), lo(im), 0xB1], "expected Methodref"),
        (
            vec![0xB9, hi(m), lo(m), 1, 0, 0xB1],
            "expected InterfaceMethodref",
        ),
        (
            vec![0xBA, hi(m), lo(m), 0, 0, 0xB1],
            "expected InvokeDynamic",
        ),
        (vec![0xBB, hi(f), lo(f), 0xB1], "expected Class"),
        (vec![0x12, lo(l), 0xB1], "ldc at pc 0 refers to"),
        (
            vec![0x14, hi(s), lo(s), 0xB1],
            "expected Long or Double or Dynamic",
        ),
        (vec![0xB2, 0x7F, 0xFF, 0xB1], "past the end of the pool"),
    ];
    let _ = bytes;
    for (code, needle) in cases {
        let mut b = ClassBuilder::new("K", 52);
        // Recreate the same pool layout so the indices line up.
        b.method_ref("K", "m", "()V");
        b.imethod_ref("java/util/List", "size", "()I");
        b.field_ref("K", "x", "I");
        b.string("s");
        b.long(7);
        b.method_with_code(&code, &[]);
        assert_err(&b.build(), &[needle]);
    }
    // invokestatic / invokespecial may name interface methods (Java 8).
    let mut b = ClassBuilder::new("K", 52);
    let im = b.imethod_ref("java/util/List", "of", "()Ljava/util/List;");
    b.method_with_code(&[0xB8, hi(im), lo(im), 0x57, 0xB1], &[]);
    assert!(parse(&b.build()).is_ok());
}

#[test]
fn code_attribute_errors() {
    // Exception handler ranges.
    let code = [0x00, 0x00, 0xB1];
    type Handler = (u16, u16, u16, u16);
    let cases: &[(Handler, &str)] = &[
        (
            (0, 9, 2, 0),
            "end_pc 9 is past the end of the code (length 3)",
        ),
        ((2, 1, 2, 0), "start_pc 2 is not before end_pc 1"),
        ((0, 2, 7, 0), "handler_pc 7 is past the end"),
        ((0, 3, 2, 0x7777), "catch_type refers to #30583"),
    ];
    for (h, needle) in cases {
        let mut b = ClassBuilder::new("H", 52);
        b.method_with_code(&code, &[*h]);
        assert_err(&b.build(), &["exception handler", needle]);
    }
    // A handler starting inside an instruction.
    let mut b = ClassBuilder::new("H", 52);
    b.method_with_code(&[0x11, 0, 1, 0x57, 0xB1], &[(1, 3, 3, 0)]);
    assert_err(
        &b.build(),
        &["start_pc 1 is not the start of an instruction"],
    );
    // end_pc may equal code_length.
    let mut b = ClassBuilder::new("H", 52);
    b.method_with_code(&code, &[(0, 3, 2, 0)]);
    assert!(parse(&b.build()).is_ok());

    // code_length 0, and code_length past the attribute.
    let mut b = ClassBuilder::new("H", 52);
    b.method_with_code(&[], &[]);
    assert_err(&b.build(), &["code_length 0"]);
    let mut b = ClassBuilder::new("H", 52);
    let mut body = vec![0, 1, 0, 1, 0, 0, 0, 50, 0xB1];
    body.extend_from_slice(&[0, 0, 0, 0]);
    let attr = b.attribute("Code", &body);
    b.method(9, "m", "()V", vec![attr]);
    assert_err(
        &b.build(),
        &["code_length 50 runs past the end of the Code attribute"],
    );
    // Two Code attributes.
    let mut b = ClassBuilder::new("H", 52);
    let c1 = b.code(1, 1, &[0xB1], &[], &[]);
    let c2 = b.code(1, 1, &[0xB1], &[], &[]);
    b.method(9, "m", "()V", vec![c1, c2]);
    assert_err(&b.build(), &["second Code attribute"]);
}

#[test]
fn attribute_longer_than_the_file() {
    let mut b = ClassBuilder::new("A", 52);
    let mut attr = u16b(b.utf8("Code")).to_vec();
    attr.extend_from_slice(&u32b(0xFFFF_FFF0));
    attr.extend_from_slice(&[0; 12]);
    b.method(9, "m", "()V", vec![attr]);
    assert_err(
        &b.build(),
        &[
            "attribute Code declares length 4294967280 but only",
            "method m()V",
        ],
    );
    // The same for an unknown attribute on the class.
    let mut b = ClassBuilder::new("A", 52);
    let mut attr = u16b(b.utf8("Whatever")).to_vec();
    attr.extend_from_slice(&u32b(1000));
    b.attributes.push(attr);
    assert_err(
        &b.build(),
        &["attribute Whatever declares length 1000 but only 0 bytes remain"],
    );
}

#[test]
fn huge_counts_fail_fast() {
    // Counts of 65535 with nothing behind them: errors, not allocations.
    let base = ClassBuilder::new("C", 52).build();
    // Offsets from the end: attributes(2) methods(2) fields(2) interfaces(2).
    let n = base.len();
    for from_end in [2usize, 4, 6, 8] {
        let mut bytes = base.clone();
        bytes[n - from_end..n - from_end + 2].copy_from_slice(&[0xFF, 0xFF]);
        err(&bytes);
    }
    let mut bytes = base.clone();
    bytes[8..10].copy_from_slice(&[0xFF, 0xFF]);
    assert_err(&bytes, &["constant pool"]);
    // Exception table and Code attribute counts.
    let mut b = ClassBuilder::new("C", 52);
    let mut body = vec![0, 1, 0, 1, 0, 0, 0, 1, 0xB1, 0xFF, 0xFF];
    body.extend_from_slice(&[0, 0]);
    let attr = b.attribute("Code", &body);
    b.method(9, "m", "()V", vec![attr]);
    assert_err(&b.build(), &["method m()V, Code", "unexpected end of data"]);
}

/// RuntimeVisibleAnnotations holding one annotation whose element is an
/// annotation nested `depth` times.
fn nested_annotation_class(depth: usize) -> Vec<u8> {
    let mut b = ClassBuilder::new("N", 52);
    let ty = b.utf8("LA;");
    let el = b.utf8("v");
    let int = b.int(1);
    let mut body = u16b(1).to_vec();
    for _ in 0..depth {
        body.extend_from_slice(&u16b(ty));
        body.extend_from_slice(&u16b(1));
        body.extend_from_slice(&u16b(el));
        body.push(b'@');
    }
    body.extend_from_slice(&u16b(ty));
    body.extend_from_slice(&u16b(1));
    body.extend_from_slice(&u16b(el));
    body.push(b'I');
    body.extend_from_slice(&u16b(int));
    let attr = b.attribute("RuntimeVisibleAnnotations", &body);
    b.attributes.push(attr);
    b.build()
}

#[test]
fn deeply_nested_annotations() {
    let ok = parse(&nested_annotation_class(60)).unwrap();
    assert!(ok.warnings.is_empty());
    assert_eq!(ok.annotations.len(), 1);
    for depth in [65, 100_000] {
        let c = parse(&nested_annotation_class(depth)).unwrap();
        assert!(c.annotations.is_empty());
        assert_eq!(c.warnings.len(), 1);
        assert!(
            c.warnings[0].contains("nested deeper than 64"),
            "{:?}",
            c.warnings
        );
        assert!(c.warnings[0].starts_with("class N: dropped malformed RuntimeVisibleAnnotations"));
    }
}

#[test]
fn malformed_optional_attributes_are_dropped_with_warnings() {
    // SourceFile pointing at an Integer, a line table past the code, an LVT
    // with a bad name, an InnerClasses entry with a bad class, a Signature of
    // the wrong length: all dropped, each with a warning naming the member.
    let mut b = ClassBuilder::new("W", 52);
    let int = b.int(3);
    let sf = b.attribute("SourceFile", &u16b(int));
    b.attributes.push(sf);
    let ic = b.attribute("InnerClasses", &[0, 1, 0, 99, 0, 0, 0, 0, 0, 0]);
    b.attributes.push(ic);
    let lnt = b.attribute("LineNumberTable", &[0, 1, 0, 50, 0, 1]);
    let mut lvt = u16b(1).to_vec();
    lvt.extend_from_slice(&[0, 0, 0, 1]);
    lvt.extend_from_slice(&u16b(int));
    lvt.extend_from_slice(&u16b(int));
    lvt.extend_from_slice(&[0, 0]);
    let lvt = b.attribute("LocalVariableTable", &lvt);
    let code = b.code(1, 1, &[0xB1], &[], &[lnt, lvt]);
    let sig_idx = b.utf8("()V");
    let mut sig = u16b(sig_idx).to_vec();
    sig.push(0);
    let sig = b.attribute("Signature", &sig);
    let cv = b.attribute("ConstantValue", &u16b(sig_idx));
    b.field(0x18, "F", "I", vec![cv]);
    b.method(9, "m", "()V", vec![code, sig]);
    let c = parse(&b.build()).unwrap();
    let w = c.warnings.join("\n");
    for needle in [
        "method m()V: dropped malformed LineNumberTable attribute",
        "line 1 starts at pc 50",
        "method m()V: dropped malformed LocalVariableTable attribute",
        "local variable name refers to",
        "method m()V: dropped Signature attribute",
        "1 bytes left over",
        "field F I: dropped malformed ConstantValue attribute",
        "class W: dropped malformed SourceFile attribute",
        "class W: dropped malformed InnerClasses attribute",
    ] {
        assert!(w.contains(needle), "{needle:?} not in:\n{w}");
    }
    assert_eq!(c.warnings.len(), 6, "{w}");
    assert_eq!(c.source_file, None);
    assert!(c.inner_classes.is_empty());
    let code = c.methods[0].code.as_ref().unwrap();
    assert!(code.line_numbers.is_empty() && code.local_variables.is_empty());
    assert_eq!(code.insns.len(), 1);
}

#[test]
fn missing_bootstrap_methods() {
    let mut b = ClassBuilder::new("B", 52);
    let nat = b.nat("run", "()Ljava/lang/Runnable;");
    let mut e = vec![18, 0, 0];
    e.extend_from_slice(&u16b(nat));
    let indy = b.raw_entry(&e, 1);
    b.method_with_code(
        &[0xBA, (indy >> 8) as u8, indy as u8, 0, 0, 0x57, 0xB1],
        &[],
    );
    assert_err(
        &b.build(),
        &["(InvokeDynamic) uses bootstrap method #0, but the class has 0"],
    );
}

#[test]
fn invalid_modified_utf8_is_replaced() {
    let mut b = ClassBuilder::new("U", 52);
    // A field named with a lone surrogate and a stray continuation byte,
    // and one with an encoded NUL and a supplementary character.
    let bad = b.raw_utf8(&[b'a', 0xED, 0xA0, 0x80, 0x80, b'b']);
    let good = b.raw_utf8(&[b'x', 0xC0, 0x80, 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]);
    let desc = b.utf8("I");
    for name in [bad, good] {
        let mut f = vec![0, 2];
        f.extend_from_slice(&u16b(name));
        f.extend_from_slice(&u16b(desc));
        f.extend_from_slice(&[0, 0]);
        b.fields.push(f);
    }
    let c = parse(&b.build()).unwrap();
    assert_eq!(&*c.fields[0].name, "a\u{FFFD}\u{FFFD}b");
    assert_eq!(&*c.fields[1].name, "x\0\u{1F600}");
}

/// xorshift64*: deterministic, no dependencies.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn mutation_loop_never_panics() {
    let out = scratch_dir("mutation");
    javac(
        Path::new("javac"),
        17,
        &[fixtures_dir().join("fx/Everything.java")],
        &out,
    );
    let seeds = [
        std::fs::read(out.join("fx/Everything.class")).unwrap(),
        std::fs::read(out.join("fx/Everything$Point.class")).unwrap(),
        small_class(),
    ];
    let mut rng = Rng(0x5EED_CAFE_F00D_D00D);
    let (mut ok, mut failed) = (0, 0);
    for round in 0..20_000 {
        let seed = &seeds[round % seeds.len()];
        let mut bytes = seed.clone();
        let edits = 1 + rng.below(4);
        for _ in 0..edits {
            if bytes.is_empty() {
                break;
            }
            let at = rng.below(bytes.len());
            match rng.below(6) {
                0 => bytes[at] ^= 1 << rng.below(8),
                1 => bytes[at] = rng.next() as u8,
                2 => bytes[at] = [0x00, 0xFF, 0x7F, 0x80][rng.below(4)],
                3 => {
                    // Overwrite a u16 with an interesting value.
                    let v: u16 = [0, 1, 0xFFFF, 0x7FFF, 0x8000, 256][rng.below(6)];
                    if at + 2 <= bytes.len() {
                        bytes[at..at + 2].copy_from_slice(&v.to_be_bytes());
                    }
                }
                4 => bytes.truncate(at),
                _ => {
                    let n = rng.below(16);
                    let fill = rng.next() as u8;
                    bytes.splice(at..at, std::iter::repeat_n(fill, n));
                }
            }
        }
        let result = catch_unwind(AssertUnwindSafe(|| {
            (
                parse(&bytes).is_ok(),
                parse_with(&bytes, &ParseOptions::index_only()).is_ok(),
            )
        }));
        match result {
            Ok((true, _)) => ok += 1,
            Ok((false, _)) => failed += 1,
            Err(_) => {
                let path = scratch_dir("mutation-crash").join(format!("crash-{round}"));
                std::fs::write(&path, &bytes).unwrap();
                panic!(
                    "parse panicked on mutation round {round}; input saved to {}",
                    path.display()
                );
            }
        }
    }
    println!("20000 mutations: {ok} parsed, {failed} rejected");
    assert!(
        ok > 100 && failed > 100,
        "mutations should both pass and fail: {ok}/{failed}"
    );
}

#[test]
fn regression_inputs_never_panic() {
    // Fuzzer finds and hand-made malformed files.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let _ = parse(&bytes);
        let _ = parse_with(&bytes, &ParseOptions::index_only());
        n += 1;
    }
    assert!(n > 0, "no files in {}", dir.display());
}
