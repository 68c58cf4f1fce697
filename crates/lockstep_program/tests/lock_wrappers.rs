//! The program's lock wrapper methods (`lockstep_program::lock_calls`):
//! which methods are wrappers, which are not, and that finding them
//! loads no class (so when the table is built does not change class ids).

mod common;
use common::*;
use lockstep_models::{LockEffect, LockMode};

const SRC: &str = r#"
import java.util.concurrent.locks.*;

public class W {
    private final ReentrantLock lock = new ReentrantLock();
    private final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    private final Handle handle = new Handle();
    private int n;

    void lock() { lock.lock(); }
    void unlock() { lock.unlock(); }
    void lockQuietly() throws InterruptedException { lock.lockInterruptibly(); }
    void readLock() { rw.readLock().lock(); }
    Handle enter() { lock.lock(); return handle; }

    // Not wrappers: more than the lock call, a tryLock, two lock calls.
    void lockAndCount() { lock.lock(); n++; }
    boolean tryIt() { return lock.tryLock(); }
    void twice() { lock.lock(); lock.lock(); }
    static void lockStatic(W w) { w.lock.lock(); }

    class Handle implements AutoCloseable {
        public void close() { lock.unlock(); }
    }
}
"#;

fn wrappers(p: &lockstep_program::Program) -> Vec<(String, LockEffect, String, bool)> {
    p.lock_wrappers()
        .all()
        .into_iter()
        .map(|(m, w)| {
            (
                name(p, m),
                w.effect,
                w.field.1.to_string(),
                w.handle.is_some(),
            )
        })
        .collect()
}

#[test]
fn wrapper_methods_and_handles() {
    let p = program(&[("W.java", SRC)]);
    p.lower_all_application();
    let before = p.loaded_classes().count();
    let found = wrappers(&p);
    assert_eq!(
        p.loaded_classes().count(),
        before,
        "building the table loaded a class"
    );
    let ex = LockMode::Exclusive;
    assert_eq!(
        found,
        vec![
            (
                "W.lock".to_string(),
                LockEffect::Lock(ex),
                "lock".to_string(),
                false
            ),
            (
                "W.unlock".to_string(),
                LockEffect::Unlock(ex),
                "lock".to_string(),
                false
            ),
            (
                "W.lockQuietly".to_string(),
                LockEffect::Lock(ex),
                "lock".to_string(),
                false
            ),
            (
                "W.readLock".to_string(),
                LockEffect::Lock(LockMode::Read),
                "rw".to_string(),
                false
            ),
            (
                "W.enter".to_string(),
                LockEffect::Lock(ex),
                "lock".to_string(),
                true
            ),
        ],
    );
}
