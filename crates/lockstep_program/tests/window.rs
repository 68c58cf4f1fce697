//! The loading window: while one thread loads alone, another thread's
//! load waits until the window closes, so the owner's loads come first.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use lockstep_program::Program;

/// A library with no classes that records the names it is asked for.
fn recording_program() -> (Program, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let provider = move |name: &str| {
        log.lock().unwrap().push(name.to_string());
        None
    };
    (Program::new(Vec::new(), Box::new(provider)), asked)
}

#[test]
fn another_thread_loads_after_the_window_closes() {
    let (program, asked) = recording_program();
    std::thread::scope(|s| {
        program.exclusive_loading(|| {
            s.spawn(|| program.class_by_name("other/Late"));
            // Without the window the other thread would ask first.
            std::thread::sleep(Duration::from_millis(200));
            program.class_by_name("owner/First");
            // Nested: the owner keeps the window.
            program.exclusive_loading(|| program.class_by_name("owner/Second"));
        });
    });
    assert_eq!(
        *asked.lock().unwrap(),
        ["owner/First", "owner/Second", "other/Late"]
    );
}

#[test]
fn loads_outside_a_window_do_not_wait() {
    let (program, asked) = recording_program();
    std::thread::scope(|s| {
        s.spawn(|| program.class_by_name("a/A")).join().unwrap();
    });
    program.exclusive_loading(|| program.class_by_name("b/B"));
    program.class_by_name("c/C");
    assert_eq!(*asked.lock().unwrap(), ["a/A", "b/B", "c/C"]);
}

/// Runs `f` on a pool of `threads` threads (whatever the machine has).
fn on_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn a_parallel_loop_loads_in_the_order_of_the_sequential_loop() {
    let (program, asked) = recording_program();
    let threads = Mutex::new(std::collections::HashSet::new());
    let units: Vec<u64> = (0..6).collect();
    let results = on_pool(4, || {
        program.map_in_order(&units, |&i| {
            threads.lock().unwrap().insert(std::thread::current().id());
            // Later units are ready to load first.
            std::thread::sleep(Duration::from_millis(40 * (6 - i)));
            program.class_by_name(&format!("unit/U{i}"));
            i * 10
        })
    });
    assert_eq!(results, [0, 10, 20, 30, 40, 50]);
    assert_eq!(
        *asked.lock().unwrap(),
        ["unit/U0", "unit/U1", "unit/U2", "unit/U3", "unit/U4", "unit/U5"]
    );
    assert!(
        threads.lock().unwrap().len() > 1,
        "the units ran on one thread"
    );
}

#[test]
fn another_thread_loads_after_a_parallel_loop() {
    let (program, asked) = recording_program();
    let units = [0u64, 1, 2];
    std::thread::scope(|s| {
        on_pool(2, || {
            program.exclusive_loading(|| {
                s.spawn(|| program.class_by_name("other/Late"));
                program.map_in_order(&units, |&i| {
                    std::thread::sleep(Duration::from_millis(60));
                    program.class_by_name(&format!("unit/U{i}"))
                });
                program.class_by_name("owner/Last");
            })
        });
    });
    assert_eq!(
        *asked.lock().unwrap(),
        ["unit/U0", "unit/U1", "unit/U2", "owner/Last", "other/Late"]
    );
}

#[test]
fn one_thread_runs_the_plain_loop() {
    let (program, asked) = recording_program();
    let units = [2u64, 1, 0];
    let seen = on_pool(1, || {
        program.map_in_order(&units, |&i| {
            program.class_by_name(&format!("unit/U{i}"));
            std::thread::current().id()
        })
    });
    assert!(seen.iter().all(|t| *t == seen[0]));
    assert_eq!(*asked.lock().unwrap(), ["unit/U2", "unit/U1", "unit/U0"]);
}
