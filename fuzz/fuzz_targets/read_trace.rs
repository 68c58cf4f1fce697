//! Arbitrary bytes as a lockstep trace: the reader, the streaming decoder
//! (fed in two pieces) and the checkers must never panic, and both readers
//! must yield the same records.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockstep_dynamic::{check_stream, check_traces, Options};
use lockstep_trace::{read_bytes, Decoder, StreamReader};

fuzz_target!(|data: &[u8]| {
    let whole: Vec<_> = StreamReader::new(data).collect();
    let split = data.len() / 2;
    let mut d = Decoder::new();
    let mut pieces = Vec::new();
    for part in [&data[..split], &data[split..]] {
        d.feed(part);
        while let Some(r) = d.next_record() {
            pieces.push(r);
        }
    }
    pieces.extend(d.finish().map(Err));
    assert_eq!(whole, pieces);
    let trace = read_bytes(data);
    let opts = Options { timeline: true, ..Options::default() };
    let _ = check_traces(&[trace], &opts);
    let _ = check_stream(data, &Options::default());
});
