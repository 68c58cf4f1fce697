//! Prints a trace's records and event counts (a debugging aid).
fn main() {
    let path = std::env::args().nth(1).expect("usage: dump_trace FILE");
    let file = std::fs::File::open(&path).expect("open");
    let t = lockstep_trace::read(std::io::BufReader::new(file));
    println!(
        "header {:?}\ntruncated {} complete {} problems {:?}",
        t.header, t.truncated, t.complete, t.problems
    );
    for n in &t.notes {
        println!("note {n}");
    }
    for (id, th) in &t.tables.threads {
        println!("thread {id} {th:?}");
    }
    let mut counts = std::collections::BTreeMap::new();
    for c in &t.chunks {
        for e in &c.events {
            let name = format!("{e:?}");
            let kind = name.split([' ', '{', '(']).next().unwrap_or("").to_owned();
            *counts.entry(kind).or_insert(0u64) += 1;
        }
    }
    println!("events {} {:?}", t.event_count(), counts);
    if std::env::args().nth(2).is_some() {
        for c in &t.chunks {
            for e in &c.events {
                println!("t{} {e:?}", c.thread);
            }
        }
        println!("{:#?}", t.tables.fields);
        println!("hangs {:#?}", t.hangs);
    }
}
