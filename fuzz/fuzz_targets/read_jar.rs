//! Fuzz target: `read_inputs` on a file named `x.jar` holding the input.
//! The classpath crate has no public in-memory zip reader, so the bytes go
//! through a per-process temp file. The `.jar` name makes the reader try
//! anything without a known magic as a zip (it looks for the end of central
//! directory behind any prefix); inputs starting with a jmod or jimage magic
//! take those paths instead, and a `CAFEBABE` input is read as one class.
//! Nothing may panic, and every class returned must be a class entry.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn jar_path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("lockstep-fuzz-read_jar-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        dir.join("x.jar")
    })
}

fuzz_target!(
    init: {
        // read_inputs inflates entries on the rayon pool; one worker is
        // enough for one small input and keeps the shared machine calm.
        if std::env::var_os("RAYON_NUM_THREADS").is_none() {
            std::env::set_var("RAYON_NUM_THREADS", "1");
        }
    },
    |data: &[u8]| {
        let path = jar_path();
        std::fs::write(path, data).expect("write temp jar");
        let set = lockstep_classpath::read_inputs(std::slice::from_ref(path));
        for class in &set.classes {
            assert_eq!(&class.origin.container, path);
            match &class.origin.entry {
                // A plain class file: the whole input.
                None => assert_eq!(class.bytes, data),
                Some(entry) => assert!(entry.ends_with(".class"), "{entry}"),
            }
        }
        for problem in &set.problems {
            let _ = problem.to_string();
        }
    }
);
