//! Prints the IR of the methods of one class file.
//!
//! `cargo run -p lockstep_ir --example dump_ir -- Foo.class [method-name]`

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: dump_ir <class file> [method name]");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let class = match lockstep_classfile::parse(&bytes) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    for (i, r) in lockstep_ir::lower_class(&class) {
        let m = &class.methods[i];
        if args.get(1).is_some_and(|n| **n != *m.name) {
            continue;
        }
        match r {
            Ok(body) => {
                print!("{}", lockstep_ir::dump(&body));
                if let Err(errs) = lockstep_ir::validate(&body) {
                    for e in errs {
                        println!("  INVALID: {e}");
                    }
                }
            }
            Err(e) => println!(
                "method {}.{}{}: error: {e}",
                class.this_class, m.name, m.descriptor
            ),
        }
        println!();
    }
}
