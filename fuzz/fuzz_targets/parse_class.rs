//! Fuzz target: `parse` must never panic, and whatever it accepts must
//! keep the promises the IR relies on (instruction boundaries, targets,
//! exception ranges, operand kinds).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockstep_classfile::{parse, parse_with, Constant, Insn, ParseOptions};

fuzz_target!(|data: &[u8]| {
    let full = parse(data);
    let quick = parse_with(data, &ParseOptions::index_only());
    let Ok(class) = full else {
        // Index-only mode checks less, so it may accept what full rejects,
        // but never the other way round.
        return;
    };
    let quick = quick.expect("index-only parse rejected what full parse accepted");
    assert_eq!(quick.methods.len(), class.methods.len());

    let pool = &class.constant_pool;
    for m in &class.methods {
        let Some(code) = &m.code else { continue };
        let len = code.code_length;
        let starts: std::collections::HashSet<u32> = code.insns.iter().map(|i| i.0).collect();
        let mut last = None;
        for (pc, insn) in &code.insns {
            assert!(*pc < len);
            assert!(last.is_none_or(|l| l < *pc));
            last = Some(*pc);
            let targets: Vec<u32> = match insn {
                Insn::If(_, t) | Insn::Goto(t) | Insn::Jsr(t) => vec![*t],
                Insn::TableSwitch {
                    default,
                    targets,
                    low,
                    high,
                } => {
                    assert_eq!(targets.len() as i64, *high as i64 - *low as i64 + 1);
                    std::iter::once(*default)
                        .chain(targets.iter().copied())
                        .collect()
                }
                Insn::LookupSwitch { default, pairs } => std::iter::once(*default)
                    .chain(pairs.iter().map(|p| p.1))
                    .collect(),
                Insn::GetField(i) | Insn::PutField(i) | Insn::GetStatic(i) | Insn::PutStatic(i) => {
                    assert!(pool.field_ref(*i).is_some());
                    vec![]
                }
                Insn::Invoke(_, i) => {
                    assert!(pool.method_ref(*i).is_some());
                    vec![]
                }
                Insn::InvokeDynamic(i) => {
                    let Some(Constant::InvokeDynamic {
                        bootstrap_index, ..
                    }) = pool.get(*i)
                    else {
                        panic!("invokedynamic operand is not an InvokeDynamic")
                    };
                    assert!((*bootstrap_index as usize) < class.bootstrap_methods.len());
                    vec![]
                }
                Insn::New(i) | Insn::CheckCast(i) | Insn::InstanceOf(i) | Insn::ANewArray(i) => {
                    assert!(pool.class_name(*i).is_some());
                    vec![]
                }
                _ => vec![],
            };
            for t in targets {
                assert!(
                    starts.contains(&t),
                    "target {t} is not an instruction start"
                );
            }
        }
        for h in &code.exception_table {
            assert!(starts.contains(&h.start_pc) && starts.contains(&h.handler_pc));
            assert!(h.end_pc == len || starts.contains(&h.end_pc));
            assert!(h.start_pc < h.end_pc);
        }
    }
});
