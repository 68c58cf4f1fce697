//! `lockstep check-trace` end to end on a trace written with the real
//! writer: findings in JSON with provenance, exit codes, truncation note,
//! timeline file, bad input.

use std::process::Command;

use lockstep_trace::*;

fn racy_trace() -> Vec<u8> {
    let mut w = TraceWriter::new(Vec::new(), &Header::default()).unwrap();
    for s in 0..4u32 {
        w.site(
            s,
            &Site {
                class: "p/Counter".into(),
                method: "inc".into(),
                descriptor: "()V".into(),
                line: Some(10 + s),
                file: Some("Counter.java".into()),
            },
        )
        .unwrap();
    }
    w.field(
        0,
        &Field {
            class: "p/Counter".into(),
            name: "n".into(),
            descriptor: "I".into(),
            is_static: false,
            is_volatile: false,
            is_final: false,
        },
    )
    .unwrap();
    let mut main = ChunkEncoder::new(0);
    main.push(&Event::ThreadBegin { parent: None });
    main.push(&Event::ThreadStart { child: 1, site: 0 });
    main.push(&Event::Write {
        obj: 5,
        field: 0,
        site: 1,
    });
    w.chunk(&main.take_chunk().unwrap()).unwrap();
    let mut child = ChunkEncoder::new(1);
    child.push(&Event::ThreadBegin { parent: Some(0) });
    child.push(&Event::Write {
        obj: 5,
        field: 0,
        site: 2,
    });
    w.chunk(&child.take_chunk().unwrap()).unwrap();
    w.finish().unwrap()
}

fn lockstep(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_trace_reports_races_with_provenance_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("run.trace");
    std::fs::write(&trace, racy_trace()).unwrap();
    let t = trace.to_str().unwrap();
    let timeline = dir.path().join("tl.json");
    let (code, out, err) = lockstep(&[
        "check-trace",
        "--format",
        "json",
        "--timeline",
        timeline.to_str().unwrap(),
        t,
    ]);
    assert_eq!(code, 1, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &json["findings"][0];
    assert_eq!(f["rule"], "data-race");
    assert_eq!(f["provenance"], "run");
    assert_eq!(f["field"], "p.Counter.n");
    let tl: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&timeline).unwrap()).unwrap();
    assert!(tl["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["ph"] == "i"));

    let (code, out, _) = lockstep(&["check-trace", "--format", "text", "--color", "never", t]);
    assert_eq!(code, 1);
    assert!(out.contains("observed in a run"), "{out}");

    // Truncated: still reports, with a note naming the offset.
    let bytes = racy_trace();
    std::fs::write(&trace, &bytes[..bytes.len() - 2]).unwrap();
    let (code, _, err) = lockstep(&["check-trace", t]);
    assert_eq!(code, 1);
    assert!(
        err.contains("byte offset") && err.contains("truncated"),
        "{err}"
    );

    // Not a trace, or missing: exit 2 naming the file.
    std::fs::write(&trace, b"hello").unwrap();
    let (code, out, _) = lockstep(&["check-trace", "--format", "concise", t]);
    assert_eq!(code, 2);
    assert!(
        out.contains("run.trace") && out.contains("not a lockstep trace"),
        "{out}"
    );
    let (code, _, _) = lockstep(&["check-trace", "/nonexistent/x.trace"]);
    assert_eq!(code, 2);
}
