//! Direct supertypes of the JDK's concurrency classes, as data.
//!
//! For callers that see a static receiver type but no class hierarchy (the
//! run-time recorder's rewriter loads no class): the concrete classes
//! programs usually declare their variables as, mapped to the JDK
//! supertypes the other models are keyed on. Use it as the `is_subtype`
//! callback of the `*_via` lookups.

/// Direct JDK supertypes the models are keyed on, for the concrete classes
/// programs usually declare their variables as.
pub fn jdk_supertypes(class: &str) -> &'static [&'static str] {
    const LOCK: &str = "java/util/concurrent/locks/Lock";
    const ES: &str = "java/util/concurrent/ExecutorService";
    const SES: &str = "java/util/concurrent/ScheduledExecutorService";
    const BQ: &str = "java/util/concurrent/BlockingQueue";
    const BD: &str = "java/util/concurrent/BlockingDeque";
    const FUT: &str = "java/util/concurrent/Future";
    match class {
        "java/util/concurrent/locks/ReentrantLock" => &[LOCK],
        "java/util/concurrent/locks/ReentrantReadWriteLock" => {
            &["java/util/concurrent/locks/ReadWriteLock"]
        }
        "java/util/concurrent/locks/ReentrantReadWriteLock$ReadLock"
        | "java/util/concurrent/locks/ReentrantReadWriteLock$WriteLock" => &[LOCK],
        "java/util/concurrent/ExecutorService" => &["java/util/concurrent/Executor"],
        "java/util/concurrent/AbstractExecutorService" => &[ES],
        "java/util/concurrent/ThreadPoolExecutor" => {
            &["java/util/concurrent/AbstractExecutorService"]
        }
        "java/util/concurrent/ScheduledThreadPoolExecutor" => {
            &["java/util/concurrent/ThreadPoolExecutor", SES]
        }
        "java/util/concurrent/ScheduledExecutorService" => &[ES],
        "java/util/concurrent/ForkJoinPool" => &["java/util/concurrent/AbstractExecutorService"],
        "java/util/concurrent/ExecutorCompletionService" => {
            &["java/util/concurrent/CompletionService"]
        }
        "java/util/concurrent/LinkedBlockingQueue"
        | "java/util/concurrent/ArrayBlockingQueue"
        | "java/util/concurrent/PriorityBlockingQueue"
        | "java/util/concurrent/DelayQueue"
        | "java/util/concurrent/SynchronousQueue" => &[BQ],
        "java/util/concurrent/LinkedBlockingDeque" => &[BD],
        "java/util/concurrent/BlockingDeque" => &[BQ],
        "java/util/concurrent/LinkedTransferQueue" => &["java/util/concurrent/TransferQueue"],
        "java/util/concurrent/TransferQueue" => &[BQ],
        "java/util/concurrent/FutureTask" | "java/util/concurrent/CompletableFuture" => &[FUT],
        "java/util/concurrent/ScheduledFuture" | "java/util/concurrent/ForkJoinTask" => &[FUT],
        "java/util/concurrent/RecursiveTask"
        | "java/util/concurrent/RecursiveAction"
        | "java/util/concurrent/CountedCompleter" => &["java/util/concurrent/ForkJoinTask"],
        _ => &[],
    }
}

/// `sub` is `sup` or reaches it through [`jdk_supertypes`].
pub fn is_jdk_subtype(sub: &str, sup: &str) -> bool {
    if sub == sup {
        return true;
    }
    jdk_supertypes(sub).iter().any(|s| is_jdk_subtype(s, sup))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concrete_classes_reach_the_interfaces_models_are_keyed_on() {
        assert!(is_jdk_subtype(
            "java/util/concurrent/ScheduledThreadPoolExecutor",
            "java/util/concurrent/Executor"
        ));
        assert!(is_jdk_subtype(
            "java/util/concurrent/LinkedBlockingDeque",
            "java/util/concurrent/BlockingQueue"
        ));
        assert!(!is_jdk_subtype(
            "java/util/ArrayList",
            "java/util/concurrent/locks/Lock"
        ));
        assert!(is_jdk_subtype("app/Main", "app/Main"));
    }
}
