//! `lockstep run`: runs a Java program under the recording agent and
//! reports what the run showed.
//!
//! The agent (built by `build.rs`, embedded in this binary) is unpacked
//! once to `$XDG_CACHE_HOME/lockstep/agent-<hash>.so` (atomic rename, so
//! concurrent runs are safe) and given to the JVM with `-agentpath`. The
//! JVM writes its trace into a FIFO that this process reads while the
//! program runs (optionally keeping a copy with `--trace`). The program's
//! standard streams are inherited untouched. With `--timeout`, the agent
//! dumps every thread and ends the trace; the JVM is then stopped.

use std::ffi::{CString, OsStr, OsString};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lockstep_dynamic::{check_stream, Options as CheckOptions, Outcome};
use lockstep_report::{render, OutputFormat, RenderOptions, Report};

use crate::args::RunArgs;

static AGENT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/lockstep_agent.so"));

/// How long after `--timeout` the JVM gets to write its dump before it is killed.
const DUMP_GRACE: Duration = Duration::from_secs(20);

pub fn run(args: &RunArgs) -> u8 {
    match record_and_check(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

/// The agent's content hash (FNV-1a, computed by the build script), which
/// names the unpacked library.
const AGENT_HASH: &str = env!("LOCKSTEP_AGENT_HASH");

pub(crate) fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("lockstep");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(h).join(".cache").join("lockstep");
    }
    std::env::temp_dir().join("lockstep-cache")
}

/// The agent library on disk, written once per content hash.
fn install_agent() -> Result<PathBuf, String> {
    let dir = cache_dir();
    let path = dir.join(format!("agent-{AGENT_HASH}.so"));
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == AGENT.len() as u64) {
        return Ok(path);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = dir.join(format!(".agent-{}-{}.tmp", std::process::id(), unique()));
    std::fs::write(&tmp, AGENT).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("cannot install {}: {e}", path.display()))?;
    Ok(path)
}

pub(crate) fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// A private directory holding the FIFO; removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn make_fifo() -> Result<(Scratch, PathBuf), String> {
    let dir =
        std::env::temp_dir().join(format!("lockstep-run-{}-{}", std::process::id(), unique()));
    std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let scratch = Scratch(dir.clone());
    let fifo = dir.join("trace.fifo");
    let c = CString::new(fifo.as_os_str().as_bytes()).map_err(|_| "bad temp path".to_owned())?;
    // SAFETY: `c` is a valid NUL-terminated path.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(format!(
            "cannot create a FIFO in {}: {}",
            dir.display(),
            std::io::Error::last_os_error()
        ));
    }
    Ok((scratch, fifo))
}

/// Agent option value: package patterns joined with `:`.
fn patterns(p: &[String]) -> Result<String, String> {
    if let Some(bad) = p.iter().find(|s| s.contains([',', ':', '='])) {
        return Err(format!("bad package pattern `{bad}`"));
    }
    Ok(p.join(":"))
}

/// A path as an agent option value (no `,` or `=`).
fn option_path(p: &Path) -> Result<&str, String> {
    p.to_str()
        .filter(|s| !s.contains([',', '=']))
        .ok_or_else(|| format!("temporary path {} unusable", p.display()))
}

fn agent_option(
    agent: &Path,
    fifo: &Path,
    guidance: Option<&Path>,
    args: &RunArgs,
) -> Result<OsString, String> {
    let mut opt = OsString::from("-agentpath:");
    opt.push(agent);
    opt.push(format!("=trace={}", option_path(fifo)?));
    if let Some(g) = guidance {
        opt.push(format!(",static={}", option_path(g)?));
    }
    if let Some(t) = args.timeout {
        opt.push(format!(",timeout={t}"));
    }
    if !args.include.is_empty() {
        opt.push(format!(",include={}", patterns(&args.include)?));
    }
    if !args.exclude.is_empty() {
        opt.push(format!(",exclude={}", patterns(&args.exclude)?));
    }
    if args.no_method_events {
        opt.push(",methods=0");
    }
    Ok(opt)
}

/// Copies everything read into a file as well (`--trace`).
struct Tee<R> {
    inner: R,
    copy: Option<std::io::BufWriter<std::fs::File>>,
    bytes: u64,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        if let Some(c) = self.copy.as_mut() {
            if c.write_all(&buf[..n]).is_err() {
                self.copy = None;
            }
        }
        Ok(n)
    }
}

/// What the reader thread saw.
struct Seen {
    outcome: Outcome,
    bytes: u64,
    connected: bool,
}

/// Reads the FIFO while the program runs and checks the events as they come.
fn spawn_reader(
    fifo: PathBuf,
    copy: Option<std::fs::File>,
    options: CheckOptions,
    done: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Seen> {
    std::thread::spawn(move || {
        let seen = match std::fs::File::open(&fifo) {
            Ok(f) => {
                let mut tee = Tee {
                    inner: std::io::BufReader::with_capacity(1 << 16, f),
                    copy: copy.map(std::io::BufWriter::new),
                    bytes: 0,
                };
                let outcome = check_stream(&mut tee, &options);
                if let Some(c) = tee.copy.as_mut() {
                    let _ = c.flush();
                }
                Seen {
                    outcome,
                    bytes: tee.bytes,
                    connected: tee.bytes > 0,
                }
            }
            Err(e) => Seen {
                outcome: Outcome {
                    notes: vec![format!("cannot read the trace FIFO: {e}")],
                    ..Outcome::default()
                },
                bytes: 0,
                connected: false,
            },
        };
        done.store(true, Ordering::SeqCst);
        seen
    })
}

/// Unblocks a reader still waiting in `open` for a writer that never came.
fn release_reader(fifo: &Path, done: &AtomicBool) {
    let Ok(c) = CString::new(fifo.as_os_str().as_bytes()) else {
        return;
    };
    for _ in 0..200 {
        if done.load(Ordering::SeqCst) {
            return;
        }
        // SAFETY: valid path; the descriptor is closed right away.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_WRONLY | libc::O_NONBLOCK) };
        if fd >= 0 {
            unsafe { libc::close(fd) };
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits for the JVM; with a timeout, stops it once the agent has ended
/// the trace after its dump (or after a grace period).
fn wait_for(
    child: &mut Child,
    timeout: Option<u64>,
    reader_done: &AtomicBool,
) -> Result<(ExitStatus, bool), String> {
    let Some(t) = timeout else {
        // Nothing to watch: block until the JVM exits (no polling delay).
        let status = child.wait().map_err(|e| format!("waiting for java: {e}"))?;
        return Ok((status, false));
    };
    let start = Instant::now();
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| format!("waiting for java: {e}"))?
        {
            return Ok((status, false));
        }
        let limit = Duration::from_secs(t);
        let elapsed = start.elapsed();
        if elapsed >= limit && (reader_done.load(Ordering::SeqCst) || elapsed >= limit + DUMP_GRACE)
        {
            let _ = child.kill();
            let status = child.wait().map_err(|e| format!("waiting for java: {e}"))?;
            return Ok((status, true));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn record_and_check(args: &RunArgs) -> Result<u8, String> {
    let (java, jvm_args) = args
        .command
        .split_first()
        .ok_or("no program given after `--`")?;
    let agent = install_agent()?;
    let (scratch, fifo) = make_fifo()?;
    let guided = crate::run_static::before_run(args, jvm_args, &scratch.0)?;
    // With a timeout or `--evidence-for`, a copy is kept anyway: the hang
    // dump is printed from it, the evidence read from it.
    let keep_copy = args.timeout.is_some() || !args.evidence_for.is_empty();
    let copy_path = args
        .trace
        .clone()
        .or_else(|| keep_copy.then(|| scratch.0.join("trace.copy")));
    let copy = match &copy_path {
        Some(p) => Some(std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?),
        None => None,
    };
    let done = Arc::new(AtomicBool::new(false));
    let options = CheckOptions {
        timeline: args.timeline.is_some(),
        atomicity: crate::args::atomic_spec(&args.atomicity, &args.atomic),
        ..CheckOptions::default()
    };
    let reader = spawn_reader(fifo.clone(), copy, options, done.clone());
    let mut cmd = Command::new(java);
    let guidance = guided.guidance_file.as_deref();
    cmd.arg(agent_option(&agent, &fifo, guidance, args)?)
        .args(jvm_args);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            release_reader(&fifo, &done);
            let _ = reader.join();
            return Err(format!("cannot run `{}`: {e}", Path::new(java).display()));
        }
    };
    let (status, stopped) = wait_for(&mut child, args.timeout, &done)?;
    release_reader(&fifo, &done);
    let seen = reader
        .join()
        .map_err(|_| "the trace reader failed".to_owned())?;
    if stopped && !args.quiet {
        if let Some(p) = &copy_path {
            print_hangs(p);
        }
    }
    if !seen.connected {
        return Err(format!(
            "`{}` did not start lockstep's recorder ({}); is it a JDK 8 or newer `java`?",
            OsStr::new(java).to_string_lossy(),
            status
        ));
    }
    let evidence = match &copy_path {
        Some(trace) if !args.evidence_for.is_empty() => {
            Some(crate::run_static::after_run(args, jvm_args, guided, trace)?)
        }
        _ => None,
    };
    drop(scratch);
    report(args, &seen, evidence, status, stopped)
}

fn report(
    args: &RunArgs,
    seen: &Seen,
    evidence: Option<Report>,
    status: ExitStatus,
    stopped: bool,
) -> Result<u8, String> {
    let a = &seen.outcome;
    if let (Some(path), Some(t)) = (&args.timeline, &a.timeline) {
        std::fs::write(path, t).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let run_findings = a.findings.len();
    let report = evidence.unwrap_or_else(|| {
        let mut report = Report::new(env!("CARGO_PKG_VERSION"));
        report.findings = a.findings.clone();
        report.summary.classes = a.stats.classes;
        report.summary.methods = a.stats.methods;
        report.normalize();
        report.number_occurrences();
        report
    });
    let format: OutputFormat = args.format.into();
    let color = crate::terminal::color(args.color, args.output.is_none());
    let text = render(
        &report,
        format,
        &RenderOptions {
            color,
            ..RenderOptions::default()
        },
    );
    match &args.output {
        Some(p) => {
            std::fs::write(p, text.as_bytes()).map_err(|e| format!("{}: {e}", p.display()))?
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| format!("standard output: {e}"))?;
        }
    }
    if !args.quiet {
        for n in &a.notes {
            eprintln!("lockstep: {n}");
        }
        if stopped {
            eprintln!(
                "lockstep: the program was stopped after the {} s timeout",
                args.timeout.unwrap_or(0)
            );
        } else if !status.success() {
            eprintln!("lockstep: the program exited with {status}");
        }
        eprintln!(
            "lockstep: recorded {} events ({} trace bytes); {} finding{}",
            a.stats.events,
            seen.bytes,
            run_findings,
            if run_findings == 1 { "" } else { "s" }
        );
        if let Some(counts) = lockstep_report::EvidenceCounts::of(&report) {
            eprintln!("lockstep: static findings: {}", counts.line());
        }
    }
    Ok(if report.findings.is_empty() { 0 } else { 1 })
}

/// Prints the hang dump of a saved trace on stderr: every thread's state,
/// the monitors it holds and awaits, and its top frames.
fn print_hangs(trace: &Path) {
    let Ok(file) = std::fs::File::open(trace) else {
        return;
    };
    let t = lockstep_trace::read(std::io::BufReader::new(file));
    let object = |id: &u64| match t.tables.objects.get(id) {
        Some(o) => format!("{}@{id}", o.class.replace('/', ".")),
        None => format!("object {id}"),
    };
    for h in &t.hangs {
        eprintln!("lockstep: thread dump at the timeout:");
        for d in &h.threads {
            let holds: Vec<String> = d.holds.iter().map(object).collect();
            eprint!("  thread `{}` {}", d.name, d.state);
            if !holds.is_empty() {
                eprint!(", holds {}", holds.join(", "));
            }
            if let Some(w) = &d.waits_for {
                eprint!(", waits for {}", object(w));
            }
            eprintln!();
            for f in d.frames.iter().take(8) {
                match f {
                    lockstep_trace::Frame::Text(s) => eprintln!("      at {s}"),
                    lockstep_trace::Frame::Site(id) => match t.tables.sites.get(id) {
                        Some(s) => eprintln!("      at {}.{}", s.class.replace('/', "."), s.method),
                        None => eprintln!("      at site {id}"),
                    },
                }
            }
        }
    }
}
