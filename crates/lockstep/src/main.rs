//! The `lockstep` command line: the only part of lockstep that prints.

mod args;
mod baseline;
mod check;
mod check_trace;
mod config;
mod debug;
mod elide_monitors;
mod evidence;
mod explain_hint;
mod guidance_cache;
mod memory;
mod post;
mod preflight;
mod progress;
mod rule_docs;
mod run;
mod run_static;
mod sources;
mod suppress;
mod terminal;
mod types;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

// The parser and the IR allocate many small strings and vectors; mimalloc
// measured 10–20% faster than the system allocator on java.base.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (its index in `mi_option_t`, v2).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// A check is one short batch job whose memory peaks near its end:
/// returning freed pages to the kernel only to fault them in again (fresh,
/// zeroed) moments later cost up to 1 s of kernel time on hsqldb and
/// 0.3–0.4 s on h2 and log4j (BENCHMARKS.md, "Allocator: no purging").
/// Keep freed memory mapped; peak memory grows 2–6%. A default only:
/// `MIMALLOC_PURGE_DELAY` in the environment still wins.
fn keep_freed_memory() {
    // SAFETY: sets one allocator option before any other thread exists;
    // mimalloc reads options with atomics and accepts this at any time.
    unsafe { libmimalloc_sys::mi_option_set_default(MI_OPTION_PURGE_DELAY, -1) };
}

fn main() -> ExitCode {
    keep_freed_memory();
    // `-cp` is the JVM's spelling; clap would read it as `-c p`.
    // After `--` (the program of `lockstep run`) arguments are the JVM's own.
    let mut after_dashes = false;
    let argv = std::env::args_os().map(|a| {
        after_dashes |= a == "--";
        if a == "-cp" && !after_dashes {
            "--classpath".into()
        } else {
            a
        }
    });
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout with exit 0 and usage errors to stderr.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let code = match cli.command {
        Command::Check(mut args) => match config::apply_nearest(&mut args) {
            Ok(()) if args.input.paths.is_empty() => {
                eprintln!(
                    "error: no inputs: give the paths to analyse, or `inputs` in {}\n\n{}",
                    config::FILE_NAME,
                    check_usage()
                );
                2
            }
            Ok(()) => check::run(&args),
            Err(e) => {
                eprintln!("error: {e}");
                2
            }
        },
        Command::Run(args) => run::run(&args),
        Command::CheckTrace(args) => check_trace::run(&args),
        Command::Rules { rule } => rules(rule.as_deref()),
        Command::Debug(cmd) => debug::run(cmd),
    };
    ExitCode::from(code)
}

fn rules(rule: Option<&str>) -> u8 {
    match rule {
        None => {
            for r in lockstep_detectors::all_rules() {
                let state = if r.default_enabled { "on " } else { "off" };
                println!("{:<24} {state}  {}", r.id.as_str(), r.summary);
            }
            0
        }
        Some(id) => match lockstep_detectors::rule(id) {
            Some(r) => {
                print!("{}", r.docs);
                0
            }
            None => {
                eprintln!("error: {}", lockstep_detectors::UnknownRule(id.to_string()));
                2
            }
        },
    }
}

/// The driver's inputs from the command line's.
pub(crate) fn inputs(input: &args::InputArgs) -> lockstep_driver::Inputs {
    lockstep_driver::Inputs {
        paths: input.paths.clone(),
        // A module path is read as a class path.
        classpath: [&input.classpath[..], &input.module_path[..]].concat(),
        jdk: input.jdk.clone(),
        no_jdk: input.no_jdk,
    }
}

/// `Usage: lockstep check [OPTIONS] [PATH]...`, as clap writes it.
fn check_usage() -> String {
    use clap::CommandFactory;
    let mut cli = Cli::command().bin_name("lockstep");
    cli.build();
    match cli.find_subcommand_mut("check") {
        Some(check) => check.render_usage().to_string(),
        None => String::new(),
    }
}

/// Configure the worker pool once; output never depends on its size.
/// More worker threads than this many per core only cost memory and
/// stack space (`-j 20000` used to exhaust the process).
const THREADS_PER_CORE_LIMIT: usize = 4;

pub(crate) fn init_threads(threads: Option<usize>) {
    if let Some(n) = threads {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let limit = cores * THREADS_PER_CORE_LIMIT;
        let n = if n > limit {
            eprintln!("note: -j {n} is more than this machine can run ({cores} cores); using {limit} threads");
            limit
        } else {
            n.max(1)
        };
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
}
