//! Hidden `lockstep debug …` commands: the IR of methods, the call graph and
//! the thread roots, as text for debugging and snapshot tests.

use lockstep_program::{cha, entry_points, rta, thread_roots, MethodId, Program};

use crate::args::{DebugCommand, InputArgs};
use crate::load::load;

fn program(input: &InputArgs) -> Result<Program, u8> {
    crate::init_threads(input.threads);
    match load(input) {
        Ok(l) => {
            for p in &l.problems {
                eprintln!("warning: {}: {}", p.display_path(), p.message);
            }
            Ok(Program::new(l.app, Box::new(l.libraries)))
        }
        Err(e) => {
            eprintln!("error: {}", e.0);
            Err(2)
        }
    }
}

fn method_label(p: &Program, m: MethodId) -> String {
    let data = p.method(m);
    format!(
        "{}.{}{}",
        p.class(data.class).name.replace('/', "."),
        data.name,
        data.descriptor
    )
}

pub fn run(cmd: DebugCommand) -> u8 {
    match cmd {
        DebugCommand::Ir { input, method } => {
            let p = match program(&input) {
                Ok(p) => p,
                Err(code) => return code,
            };
            // `pkg.Class` or `pkg.Class.method`: try the whole string as a class first.
            let internal = method.replace('.', "/");
            let (class, name) = match p.class_by_name(&internal) {
                Some(c) => (Some(c), None),
                None => match internal.rsplit_once('/') {
                    Some((c, n)) => (p.class_by_name(c), Some(n.to_string())),
                    None => (None, None),
                },
            };
            let Some(class) = class.filter(|c| p.is_application(*c)) else {
                eprintln!("error: no application class for `{method}`");
                return 2;
            };
            let mut printed = 0;
            for &m in &p.class(class).methods {
                let data = p.method(m);
                if name.as_deref().is_some_and(|n| n != &*data.name) {
                    continue;
                }
                match p.body(m) {
                    Some(body) => {
                        print!("{}", lockstep_ir::dump(&body));
                        if let Err(errors) = lockstep_ir::validate(&body) {
                            for e in errors {
                                println!("  !! invalid IR: {e}");
                            }
                        }
                    }
                    None => println!("method {} (no code)", method_label(&p, m)),
                }
                println!();
                printed += 1;
            }
            for problem in p.problems() {
                eprintln!("error: {}: {}", problem.origin, problem.message);
            }
            if printed == 0 {
                eprintln!("error: no method matches `{method}`");
                return 2;
            }
            0
        }
        DebugCommand::Callgraph {
            input,
            cha: use_cha,
            open,
        } => {
            let p = match program(&input) {
                Ok(p) => p,
                Err(code) => return code,
            };
            let entries = entry_points(&p, open);
            let cg = if use_cha {
                cha(&p, &entries)
            } else {
                rta(&p, &entries)
            };
            println!(
                "# {:?}, entry points: {} ({})",
                cg.algorithm,
                entries.methods.len(),
                entries.mode.describe()
            );
            for e in &cg.edges {
                if !p.is_application(p.method(e.caller).class) {
                    continue;
                }
                let line = p
                    .body(e.caller)
                    .and_then(|b| b.stmts.get(e.site.index()).and_then(|s| s.line));
                let line = line.map(|l| format!(":{l}")).unwrap_or_default();
                println!(
                    "{}{line} -> {} [{:?}]",
                    method_label(&p, e.caller),
                    method_label(&p, e.callee),
                    e.kind
                );
            }
            0
        }
        DebugCommand::Threads { input, open } => {
            let p = match program(&input) {
                Ok(p) => p,
                Err(code) => return code,
            };
            let entries = entry_points(&p, open);
            let cg = rta(&p, &entries);
            for r in thread_roots(&p, &cg) {
                let line = r.line.map(|l| format!(":{l}")).unwrap_or_default();
                let many = if r.may_start_many {
                    format!(" many ({})", r.reason_many.as_deref().unwrap_or("?"))
                } else {
                    String::new()
                };
                println!(
                    "{} started at {}{line} [{:?}, {:?}]{many}",
                    method_label(&p, r.entry),
                    method_label(&p, r.start_site.0),
                    r.launch.kind,
                    r.precision
                );
            }
            0
        }
    }
}
