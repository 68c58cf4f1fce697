//! `check --evidence TRACE...`: reads the traces (the only I/O of the
//! feature), hands them to `lockstep_evidence` and marks the report's
//! findings. A trace that cannot be opened or holds nothing readable is
//! an error naming the file; a truncated or damaged one gives what it
//! holds, with a note naming the file and the byte offset.

use std::path::PathBuf;

use lockstep_evidence::Runs;
use lockstep_report::Report;
use lockstep_trace::Trace;

/// Reads every trace; `Err` names the first file that gave nothing.
pub fn read_traces(paths: &[PathBuf]) -> Result<Vec<Trace>, String> {
    paths.iter().map(read_trace).collect()
}

fn read_trace(path: &PathBuf) -> Result<Trace, String> {
    let file = std::fs::File::open(path)
        .map_err(|e| format!("cannot read the trace {}: {e}", path.display()))?;
    let trace = lockstep_trace::read(std::io::BufReader::new(file));
    if trace.header.is_none() && trace.chunks.is_empty() {
        let why = trace
            .problems
            .first()
            .map_or_else(|| "the file is empty".to_string(), |p| p.to_string());
        return Err(format!(
            "{} is not a lockstep trace (written by `lockstep run --trace`): {why}",
            path.display()
        ));
    }
    for p in &trace.problems {
        eprintln!(
            "note: {}: trace {p}; the evidence uses what it holds",
            path.display()
        );
    }
    Ok(trace)
}

/// Checks the traces and marks the report's findings; the checkers'
/// notes go to standard error unless `quiet`.
pub fn apply(report: &mut Report, traces: &[Trace], quiet: bool) {
    let runs = Runs::check_for(traces, &report.findings);
    if !quiet {
        for n in runs
            .notes
            .iter()
            // The reader's problems were printed with the file name.
            .filter(|n| !n.contains("trace at byte offset"))
        {
            eprintln!("note: evidence: {n}");
        }
    }
    lockstep_evidence::attach(&mut report.findings, &runs);
    report.evidence_runs = Some(traces.len() as u64);
}
