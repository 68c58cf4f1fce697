//! Fuzz target: parsing then lowering every method must never panic, and
//! every body that lowers must pass the structural validator (the
//! invariants that hold even for bytecode no verifier would accept; the
//! crate's own random-program tests hold lowering to the same promise).
//! The full validator, the dump and the access path of every variable are
//! run too; they may report, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockstep_ir::{access_path, dump, lower_method, validate, validate_structure, VarId};

fuzz_target!(|data: &[u8]| {
    let Ok(class) = lockstep_classfile::parse(data) else {
        return;
    };
    // Every method, with or without code: a method without code must give
    // an error, not a panic. `lower_method` reuses a per-thread `Lowerer`,
    // so stale scratch state from earlier inputs is exercised as well.
    for method in &class.methods {
        let Ok(body) = lower_method(&class, method) else {
            continue;
        };
        if let Err(errors) = validate_structure(&body) {
            panic!(
                "{}.{}{}: lowered body fails validate_structure:\n{}\n{}",
                class.this_class,
                method.name,
                method.descriptor,
                errors.join("\n"),
                dump(&body)
            );
        }
        let _ = validate(&body);
        let text = dump(&body);
        assert!(!text.is_empty());
        for v in 0..body.vars.len() {
            let path = access_path(&body, VarId(v as u32));
            // Display walks the whole path.
            let _ = path.to_string();
        }
    }
});
