//! Times the program model on a jar: `cargo run --release --example rta_bench -- app.jar [jdk-home]`.
//! The jar's classes are the application (open-program entry points); the
//! JDK is the library.

use std::path::{Path, PathBuf};
use std::time::Instant;

use lockstep_classpath::Library;
use lockstep_program::*;
use rayon::prelude::*;

fn main() {
    let mut args = std::env::args().skip(1);
    let jar = PathBuf::from(args.next().expect("usage: rta_bench APP.jar [JDK_HOME]"));
    let home = args
        .next()
        .unwrap_or_else(|| "/usr/lib/jvm/java-17-openjdk-amd64".to_string());
    let t = Instant::now();
    let (app_lib, problems) = Library::open(std::slice::from_ref(&jar));
    assert!(problems.is_empty(), "{problems:?}");
    let names: Vec<String> = app_lib.class_names().map(str::to_string).collect();
    let app: Vec<(String, lockstep_classfile::ClassFile)> = names
        .par_iter()
        .filter_map(|n| {
            let bytes = app_lib.load(n)?.ok()?;
            let file = lockstep_classfile::parse(&bytes.bytes).ok()?;
            Some((bytes.origin.to_string(), file))
        })
        .collect();
    eprintln!("read+parse {} classes: {:?}", app.len(), t.elapsed());
    let jdk = Library::jdk(Path::new(&home)).expect("jdk");
    let jdk: &'static Library = Box::leak(Box::new(jdk));
    let provider: Box<dyn ClassProvider> = Box::new(move |n: &str| {
        jdk.load(n)
            .map(|r| r.map(|c| c.bytes).map_err(|p| p.to_string()))
    });
    let p = Program::new(app, provider);
    let t = Instant::now();
    let lowered = p.lower_all_application();
    eprintln!("lower application: {lowered:?} in {:?}", t.elapsed());
    let open = std::env::var("OPEN").map(|v| v == "1").unwrap_or(true);
    let e = entry_points(&p, open);
    let t = Instant::now();
    let g = rta(&p, &e);
    eprintln!("rta: {:?}", t.elapsed());
    let t = Instant::now();
    let c = cha(&p, &e);
    eprintln!("cha: {:?}", t.elapsed());
    println!("{}", Stats::collect(&p, Some(&c), Some(&g)));
    for pr in p.problems().iter().take(5) {
        println!("problem: {pr}");
    }
}
