//! The analysis side of `lockstep run`: the trace stream in, findings out.

use std::io::Read;

use lockstep_report::Finding;

/// What the checkers made of a run.
pub struct Analysis {
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    pub events: u64,
    pub threads: usize,
}

impl Analysis {
    pub fn failed(note: String) -> Analysis {
        Analysis {
            findings: Vec::new(),
            notes: vec![note],
            events: 0,
            threads: 0,
        }
    }
}

/// Reads the whole trace as it is written and checks it.
pub fn analyse(input: &mut dyn Read) -> Analysis {
    let trace = lockstep_trace::read(input);
    let mut notes = trace.notes.clone();
    if trace.truncated {
        notes.push(
            "the trace ends early (the JVM died or was killed): reporting what was recorded"
                .to_owned(),
        );
    }
    for h in &trace.hangs {
        for t in &h.threads {
            notes.push(format!(
                "thread {} `{}` {}: holds {:?}, waits for {:?}",
                t.thread, t.name, t.state, t.holds, t.waits_for
            ));
        }
    }
    Analysis {
        findings: Vec::new(),
        notes,
        events: trace.event_count(),
        threads: trace.tables.threads.len(),
    }
}
