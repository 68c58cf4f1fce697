//! Application code called back from inside a call on a thread-safe
//! container (`equals`/`hashCode`/`compareTo` of stored keys, a `forEach`
//! action, a `computeIfAbsent` function) synchronizes with the container
//! where it runs, not only where the call began or ended.
//!
//! Why: a `ConcurrentHashMap.get` reads each node through a volatile read,
//! so a key another thread put *while the `get` was already running* is
//! seen with everything written before its `put` (the put's volatile write
//! of the node). The acquire before the call is too early for that key and
//! the acquire after it too late for the `equals` that reads it. So each
//! thread keeps the container calls it is inside, with the depth of
//! instrumented frames at the call; an instrumented method entered one
//! frame deeper is called back by the container and acquires it again.
//! Symmetrically, a callback of a *writing* call releases the container
//! when it returns: what it made (the value a `computeIfAbsent` function
//! creates) is published by the container only after it returned, and the
//! release before the call came too early for it.
//!
//! Nothing else gains an edge: code the callback runs is still unordered
//! with what another thread writes after its put (a key's field written
//! after the put races with the `equals` that reads it). Depths count only
//! instrumented frames (their enter/exit probes); a call that throws leaves
//! its entry until the calling method exits or makes its next container
//! call.

/// A container call the thread is inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OpenCall {
    /// The container (the root of a view).
    container: u64,
    /// Instrumented frames active at the call (the caller's included).
    depth: u32,
    /// The call writes (a callback's exit releases).
    write: bool,
}

/// What the recorder must record around a method entry or exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// Acquire this container (a callback begins).
    Acquire(u64),
    /// Release this container (a callback of a writing call returns).
    Release(u64),
}

/// Per thread: the depth of instrumented frames and the container calls
/// it is inside, innermost last.
#[derive(Debug, Default)]
pub struct ContainerCalls {
    depth: u32,
    open: Vec<OpenCall>,
}

impl ContainerCalls {
    /// A call on thread-safe `container` begins in the current frame.
    /// A call of the same frame still open threw: it is replaced.
    pub fn call(&mut self, container: u64, write: bool) {
        self.close_from(self.depth);
        self.open.push(OpenCall {
            container,
            depth: self.depth,
            write,
        });
    }

    /// The call made in the current frame returned normally.
    pub fn returned(&mut self) {
        self.close_from(self.depth);
    }

    /// An instrumented method is entered: the acquire it needs when the
    /// container being called calls it.
    #[inline]
    pub fn enter(&mut self) -> Option<Edge> {
        let edge = match self.open.last() {
            Some(c) if c.depth == self.depth => Some(Edge::Acquire(c.container)),
            _ => None,
        };
        self.depth = self.depth.saturating_add(1);
        edge
    }

    /// An instrumented method returns (normally or not): the release it
    /// needs when it is a callback of a writing call. Calls its frame
    /// left open (they threw) are closed.
    #[inline]
    pub fn exit(&mut self) -> Option<Edge> {
        if self.open.is_empty() {
            self.depth = self.depth.saturating_sub(1);
            return None;
        }
        let leaving = self.depth;
        self.close_from(leaving);
        let edge = match self.open.last() {
            Some(c) if c.write && c.depth.checked_add(1) == Some(leaving) => {
                Some(Edge::Release(c.container))
            }
            _ => None,
        };
        self.depth = leaving.saturating_sub(1);
        edge
    }

    /// [`Self::exit`], also saying whether the frame left is a callback
    /// of a container call (its entry had the acquire).
    #[inline]
    pub fn exit_of_callback(&mut self) -> (bool, Option<Edge>) {
        let leaving = self.depth;
        self.close_from(leaving);
        let callback = self
            .open
            .last()
            .is_some_and(|c| c.depth.checked_add(1) == Some(leaving));
        (callback, self.exit())
    }

    /// Drops the calls made at `depth` or deeper.
    fn close_from(&mut self, depth: u32) {
        while self.open.last().is_some_and(|c| c.depth >= depth) {
            self.open.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callback_frame_is_told_at_its_exit() {
        let mut t = ContainerCalls::default();
        assert_eq!(t.enter(), None); // the caller
        assert_eq!(t.enter(), None); // a plain callee
        assert_eq!(t.exit_of_callback(), (false, None));
        t.call(7, true);
        assert_eq!(t.enter(), Some(Edge::Acquire(7))); // the callback
        assert_eq!(t.enter(), None); // a method it calls
        assert_eq!(t.exit_of_callback(), (false, None));
        assert_eq!(t.exit_of_callback(), (true, Some(Edge::Release(7))));
        t.returned();
        assert_eq!(t.exit_of_callback(), (false, None));
    }

    #[test]
    fn a_callback_acquires_on_entry_and_nested_frames_do_not() {
        let mut t = ContainerCalls::default();
        assert_eq!(t.enter(), None); // the caller
        t.call(7, false);
        assert_eq!(t.enter(), Some(Edge::Acquire(7))); // equals
        assert_eq!(t.enter(), None); // a method equals calls
        assert_eq!(t.exit(), None);
        assert_eq!(t.exit(), None); // equals returns: a read call releases nothing
        assert_eq!(t.enter(), Some(Edge::Acquire(7))); // the next equals
        assert_eq!(t.exit(), None);
        t.returned();
        assert_eq!(t.enter(), None); // a plain call after the container call
        assert_eq!(t.exit(), None);
        assert_eq!(t.exit(), None);
    }

    #[test]
    fn a_callback_of_a_writing_call_releases_on_exit() {
        let mut t = ContainerCalls::default();
        t.enter();
        t.call(9, true);
        assert_eq!(t.enter(), Some(Edge::Acquire(9))); // the function
        assert_eq!(t.enter(), None); // the value's constructor
        assert_eq!(t.exit(), None);
        assert_eq!(t.exit(), Some(Edge::Release(9)));
        t.returned();
        assert_eq!(t.exit(), None);
    }

    #[test]
    fn calls_inside_callbacks_nest() {
        let mut t = ContainerCalls::default();
        t.enter();
        t.call(1, false);
        assert_eq!(t.enter(), Some(Edge::Acquire(1)));
        t.call(2, true);
        assert_eq!(t.enter(), Some(Edge::Acquire(2)));
        assert_eq!(t.exit(), Some(Edge::Release(2)));
        t.returned();
        assert_eq!(t.exit(), None);
        assert_eq!(t.enter(), Some(Edge::Acquire(1)));
    }

    #[test]
    fn a_call_that_threw_is_closed_when_its_frame_exits_or_calls_again() {
        let mut t = ContainerCalls::default();
        t.enter(); // outer
        t.enter(); // the frame whose call throws
        t.call(3, false);
        assert_eq!(t.exit(), None); // the exception leaves the frame
        assert_eq!(t.enter(), None); // not a callback
        assert_eq!(t.exit(), None);
        t.call(4, false); // outer catches, calls another container
        t.call(5, false); // which threw too; the next call replaces it
        assert_eq!(t.enter(), Some(Edge::Acquire(5)));
        assert_eq!(t.exit(), None);
        t.returned();
        assert_eq!(t.enter(), None);
    }

    #[test]
    fn exits_without_entries_never_underflow() {
        let mut t = ContainerCalls::default();
        assert_eq!(t.exit(), None);
        t.call(1, true);
        assert_eq!(t.exit(), None);
        assert_eq!(t.enter(), None);
    }
}
