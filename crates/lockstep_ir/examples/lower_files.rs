//! Feeds every file under the given directories to `lower_fuzz_entry`
//! (parse, lower every method, validate, dump): a quick run over a fuzz
//! corpus without the fuzzer.
//!
//! `cargo run --release -p lockstep_ir --example lower_files -- fuzz/corpus`

fn walk(dir: &std::path::Path, n: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, n);
        } else if let Ok(bytes) = std::fs::read(&p) {
            lockstep_ir::lower_fuzz_entry(&bytes);
            *n += 1;
        }
    }
}

fn main() {
    let mut n = 0;
    for d in std::env::args().skip(1) {
        walk(std::path::Path::new(&d), &mut n);
    }
    println!("{n} files lowered without a panic");
}
