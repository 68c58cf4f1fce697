//! Reuse of chunk event buffers: a consumer hands a buffer back once its
//! events are processed, and the next chunk is decoded (or copied) into it,
//! sparing an allocation of a chunk's size (and its page faults) per chunk.

use crate::model::Event;

/// At most this many emptied buffers are kept; more are dropped.
const MAX_SPARE_BUFFERS: usize = 4;

/// A few emptied event buffers.
#[derive(Debug, Default)]
pub(crate) struct BufferPool(Vec<Vec<Event>>);

impl BufferPool {
    /// An empty buffer, reused when one is available.
    pub(crate) fn take(&mut self) -> Vec<Event> {
        self.0.pop().unwrap_or_default()
    }

    /// Keeps `buffer` (cleared) for a later [`take`](BufferPool::take).
    pub(crate) fn give(&mut self, mut buffer: Vec<Event>) {
        if self.0.len() < MAX_SPARE_BUFFERS && buffer.capacity() > 0 {
            buffer.clear();
            self.0.push(buffer);
        }
    }

    /// Takes a kept buffer out of the pool, if any (to pass it on).
    pub(crate) fn take_kept(&mut self) -> Option<Vec<Event>> {
        self.0.pop()
    }
}
