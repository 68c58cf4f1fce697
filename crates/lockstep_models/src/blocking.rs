//! Calls that block the calling thread for an unbounded or long time:
//! sleeping, waiting for another thread or task, taking from a blocking
//! queue, and socket and file I/O. Holding a lock across one of them
//! makes every other thread that needs the lock wait as long.
//!
//! Keyed by the declaring class or interface; a call on a subtype
//! matches through the `_via` lookup. Not listed: `Object.wait` and
//! `Condition.await` (they release the lock they wait on; see
//! [`crate::locks`]), lock acquisition itself, and I/O on streams whose
//! static type does not say it is a file or socket (`InputStream.read`
//! on a `ByteArrayInputStream` does not block).

use crate::table::{Keyed, Table};
use crate::Desc;

/// What kind of waiting a blocking call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BlockingKind {
    /// `Thread.sleep`.
    Sleep,
    /// Waiting for a thread or task to finish (`Thread.join`, `Future.get`).
    Join,
    /// Waiting for another thread to hand something over (`BlockingQueue.take`,
    /// `CountDownLatch.await`, `Semaphore.acquire`).
    Handoff,
    /// Socket or file I/O.
    Io,
}

impl BlockingKind {
    /// How messages name it.
    pub fn as_str(self) -> &'static str {
        match self {
            BlockingKind::Sleep => "sleep",
            BlockingKind::Join => "wait for another thread or task",
            BlockingKind::Handoff => "blocking hand-off",
            BlockingKind::Io => "I/O",
        }
    }
}

/// One blocking method.
#[derive(Debug, Clone, Copy)]
pub struct BlockingModel {
    pub class: &'static str,
    pub name: &'static str,
    pub desc: Desc,
    pub kind: BlockingKind,
}

impl Keyed for BlockingModel {
    fn key(&self) -> (&'static str, &'static str, Desc) {
        (self.class, self.name, self.desc)
    }
}

const fn b(class: &'static str, name: &'static str, kind: BlockingKind) -> BlockingModel {
    BlockingModel {
        class,
        name,
        desc: Desc::Any,
        kind,
    }
}

use BlockingKind::*;
const BQ: &str = "java/util/concurrent/BlockingQueue";
const BD: &str = "java/util/concurrent/BlockingDeque";

#[rustfmt::skip]
static MODELS: &[BlockingModel] = &[
    b("java/lang/Thread", "sleep", Sleep),
    b("java/util/concurrent/TimeUnit", "sleep", Sleep),
    b("java/lang/Thread", "join", Join),
    b("java/util/concurrent/Future", "get", Join),
    b("java/util/concurrent/CompletableFuture", "join", Join),
    b("java/util/concurrent/ForkJoinTask", "join", Join),
    b("java/util/concurrent/ExecutorService", "awaitTermination", Join),
    b("java/util/concurrent/ExecutorService", "invokeAll", Join),
    b("java/util/concurrent/ExecutorService", "invokeAny", Join),
    b(BQ, "take", Handoff),
    b(BQ, "put", Handoff),
    b(BD, "takeFirst", Handoff),
    b(BD, "takeLast", Handoff),
    b(BD, "putFirst", Handoff),
    b(BD, "putLast", Handoff),
    b("java/util/concurrent/TransferQueue", "transfer", Handoff),
    b("java/util/concurrent/CountDownLatch", "await", Handoff),
    b("java/util/concurrent/CyclicBarrier", "await", Handoff),
    b("java/util/concurrent/Semaphore", "acquire", Handoff),
    b("java/util/concurrent/Semaphore", "acquireUninterruptibly", Handoff),
    b("java/util/concurrent/Exchanger", "exchange", Handoff),
    b("java/util/concurrent/Phaser", "arriveAndAwaitAdvance", Handoff),
    b("java/util/concurrent/Phaser", "awaitAdvance", Handoff),
    b("java/net/ServerSocket", "accept", Io),
    b("java/net/Socket", "connect", Io),
    b("java/net/DatagramSocket", "receive", Io),
    b("java/net/URL", "openStream", Io),
    b("java/net/URLConnection", "connect", Io),
    b("java/net/URLConnection", "getInputStream", Io),
    b("java/nio/channels/ServerSocketChannel", "accept", Io),
    b("java/nio/channels/SocketChannel", "connect", Io),
    b("java/nio/channels/SocketChannel", "read", Io),
    b("java/nio/channels/SocketChannel", "write", Io),
    b("java/nio/channels/FileChannel", "read", Io),
    b("java/nio/channels/FileChannel", "write", Io),
    b("java/nio/channels/FileChannel", "force", Io),
    b("java/nio/channels/Selector", "select", Io),
    b("java/io/FileInputStream", "read", Io),
    b("java/io/FileOutputStream", "write", Io),
    b("java/io/RandomAccessFile", "read", Io),
    b("java/io/RandomAccessFile", "readFully", Io),
    b("java/io/RandomAccessFile", "write", Io),
    b("java/io/FileDescriptor", "sync", Io),
    b("java/nio/file/Files", "readAllBytes", Io),
    b("java/nio/file/Files", "readAllLines", Io),
    b("java/nio/file/Files", "write", Io),
];

static TABLE: Table<BlockingModel> = Table::new(MODELS);

/// Does a call on `class` or one of its supertypes block?
pub fn blocking_call_via(
    class: &str,
    name: &str,
    desc: &str,
    is_subtype: &dyn Fn(&str, &str) -> bool,
) -> Option<BlockingKind> {
    TABLE
        .lookup(class, name, Some(desc), Some(is_subtype))
        .first()
        .map(|m| m.kind)
}

/// Every blocking model.
pub fn all_blocking_models() -> &'static [BlockingModel] {
    TABLE.entries()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_subtype(sub: &str, sup: &str) -> bool {
        sub == sup
            || (sub == "java/util/concurrent/LinkedBlockingQueue"
                && sup == "java/util/concurrent/BlockingQueue")
    }

    #[test]
    fn blocking_calls_through_the_hierarchy() {
        let q = "java/util/concurrent/LinkedBlockingQueue";
        assert_eq!(
            blocking_call_via(q, "take", "()Ljava/lang/Object;", &is_subtype),
            Some(BlockingKind::Handoff)
        );
        assert_eq!(
            blocking_call_via("java/lang/Thread", "sleep", "(J)V", &is_subtype),
            Some(BlockingKind::Sleep)
        );
        // `poll()` returns at once; an `InputStream` may be in memory.
        assert_eq!(
            blocking_call_via(q, "poll", "()Ljava/lang/Object;", &is_subtype),
            None
        );
        assert_eq!(
            blocking_call_via("java/io/InputStream", "read", "()I", &is_subtype),
            None
        );
    }

    #[test]
    fn every_model_names_a_jdk_class() {
        for m in all_blocking_models() {
            assert!(m.class.starts_with("java/"), "{}", m.class);
        }
    }
}
