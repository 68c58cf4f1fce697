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
