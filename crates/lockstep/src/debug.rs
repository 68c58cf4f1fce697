//! Hidden `lockstep debug …` commands: the IR of methods, the call graph and
//! the thread roots, as text for debugging and snapshot tests.

use lockstep_driver::Workspace;
use lockstep_program::{cha, entry_points, reach_by_package, rta, MethodId, Program};

use crate::args::{DebugCommand, InputArgs};

fn workspace(input: &InputArgs) -> Result<Workspace, u8> {
    crate::init_threads(input.threads);
    match Workspace::load(&crate::inputs(input)) {
        Ok(w) => {
            for p in w.input_problems() {
                eprintln!("warning: {}: {}", p.display_path(), p.message);
            }
            Ok(w)
        }
        Err(e) => {
            eprintln!("error: {e}");
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
            let w = match workspace(&input) {
                Ok(w) => w,
                Err(code) => return code,
            };
            let p = w.program();
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
                    None => println!("method {} (no code)", method_label(p, m)),
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
            let w = match workspace(&input) {
                Ok(w) => w,
                Err(code) => return code,
            };
            let p = w.program();
            let entries = entry_points(p, open);
            let cg = if use_cha {
                cha(p, &entries)
            } else {
                rta(p, &entries)
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
                    method_label(p, e.caller),
                    method_label(p, e.callee),
                    e.kind
                );
            }
            0
        }
        DebugCommand::Lower { input, validate } => lower(&input, validate),
        DebugCommand::Reach { input, open, top } => reach(&input, open, top),
        DebugCommand::Threads { input, open } => {
            let w = match workspace(&input) {
                Ok(w) => w,
                Err(code) => return code,
            };
            let p = w.program();
            for t in w.started_threads(open) {
                let line = t.line.map(|l| format!(":{l}")).unwrap_or_default();
                let many = if t.many { " many" } else { "" };
                for &entry in &t.entries {
                    println!(
                        "{} started at {}{line} [{}]{many} task: {}",
                        method_label(p, entry),
                        method_label(p, t.started_in),
                        t.launch,
                        t.task
                    );
                }
            }
            0
        }
    }
}

/// `debug reach`: the RTA reach per package, most statements first, each
/// with the chain of calls that enters it first.
fn reach(input: &InputArgs, open: bool, top: usize) -> u8 {
    let w = match workspace(input) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let p = w.program();
    let cg = rta(p, &entry_points(p, open));
    let packages = reach_by_package(p, &cg);
    let (methods, statements) = packages
        .iter()
        .fold((0, 0), |(m, s), r| (m + r.methods, s + r.statements));
    println!(
        "# {methods} reachable methods, {statements} statements, {} packages",
        packages.len()
    );
    for r in packages.iter().take(top) {
        println!(
            "{:>7} stmts {:>6} methods  {}",
            r.statements, r.methods, r.package
        );
        let chain: Vec<String> = r.path.iter().map(|&m| p.short_method_name(m)).collect();
        println!("        via {}", chain.join(" -> "));
    }
    0
}

/// `debug lower`: the front end alone, timed per phase.
fn lower(input: &InputArgs, validate: bool) -> u8 {
    use rayon::prelude::*;
    use std::time::Instant;
    crate::init_threads(input.threads);
    let t0 = Instant::now();
    let read = lockstep_classpath::read_inputs(&input.paths);
    let t_read = t0.elapsed();
    let bytes: u64 = read.classes.iter().map(|c| c.bytes.len() as u64).sum();
    let t1 = Instant::now();
    let parsed: Vec<_> = read
        .classes
        .par_iter()
        .map(|c| lockstep_classfile::parse(&c.bytes))
        .collect();
    let t_parse = t1.elapsed();
    let t2 = Instant::now();
    // (methods with code, lowering failures, statements, validation errors)
    let totals = parsed
        .par_iter()
        .filter_map(|r| r.as_ref().ok())
        .map(|class| {
            let mut t = (0u64, 0u64, 0u64, 0u64);
            for (_, result) in lockstep_ir::lower_class(class) {
                t.0 += 1;
                match result {
                    Ok(body) => {
                        t.2 += body.stmts.len() as u64;
                        if validate && lockstep_ir::validate(&body).is_err() {
                            t.3 += 1;
                        }
                    }
                    Err(_) => t.1 += 1,
                }
            }
            t
        })
        .reduce(
            || (0, 0, 0, 0),
            |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3),
        );
    let t_lower = t2.elapsed();
    let parse_failures = parsed.iter().filter(|r| r.is_err()).count();
    println!(
        "classes: {} ({} bytes), read problems: {}, parse failures: {}",
        read.classes.len(),
        bytes,
        read.problems.len(),
        parse_failures
    );
    println!(
        "methods lowered: {}, lowering failures: {}, statements: {}",
        totals.0, totals.1, totals.2
    );
    if validate {
        println!("invalid bodies: {}", totals.3);
    }
    println!("threads: {}", rayon::current_num_threads());
    println!(
        "time: read {:.1} ms, parse {:.1} ms, lower{} {:.1} ms, total {:.1} ms",
        t_read.as_secs_f64() * 1e3,
        t_parse.as_secs_f64() * 1e3,
        if validate { "+validate" } else { "" },
        t_lower.as_secs_f64() * 1e3,
        t0.elapsed().as_secs_f64() * 1e3
    );
    if parse_failures > 0 || totals.1 > 0 || totals.3 > 0 {
        1
    } else {
        0
    }
}
