//! The writing side, linked into the JVM agent: one [`ChunkEncoder`] per
//! recording thread (no locking, no per-event allocation) and one
//! [`TraceWriter`] that appends framed records to the output.

use std::collections::HashMap;
use std::io::{self, Write};

use crate::codec::{encode_event, DeltaState};
use crate::model::{
    Class, Event, Field, Frame, Hang, Header, Method, ObjectInfo, Site, ThreadId, ThreadInfo,
};
use crate::varint::{put_opt_str, put_opt_u32, put_opt_u64, put_str, put_u32, put_u64};
use crate::{tag, FORMAT_VERSION, MAGIC};

/// Encodes one thread's events into chunk records.
#[derive(Debug)]
pub struct ChunkEncoder {
    thread: ThreadId,
    next_index: u32,
    count: u64,
    state: DeltaState,
    events: Vec<u8>,
}

impl ChunkEncoder {
    /// An empty encoder for `thread`.
    pub fn new(thread: ThreadId) -> Self {
        ChunkEncoder {
            thread,
            next_index: 0,
            count: 0,
            state: DeltaState::default(),
            events: Vec::with_capacity(64 * 1024),
        }
    }

    /// The thread this encoder records.
    pub fn thread(&self) -> ThreadId {
        self.thread
    }

    /// Appends one event.
    #[inline]
    pub fn push(&mut self, e: &Event) {
        encode_event(&mut self.events, &mut self.state, e);
        self.count += 1;
    }

    /// Bytes of encoded events held (use it to decide when to flush).
    pub fn encoded_len(&self) -> usize {
        self.events.len()
    }

    /// Number of events held.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// True when no event is held.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// A complete chunk record (ready for [`TraceWriter::chunk`]), or `None`
    /// when empty. Resets the encoder, keeping its buffer's capacity.
    pub fn take_chunk(&mut self) -> Option<Vec<u8>> {
        if self.count == 0 {
            return None;
        }
        let mut head = Vec::with_capacity(24);
        put_u32(&mut head, self.thread);
        put_u32(&mut head, self.next_index);
        put_u64(&mut head, self.count);
        let payload_len = head.len() + self.events.len();
        let mut rec = Vec::with_capacity(payload_len + 11);
        rec.push(tag::CHUNK);
        put_u64(&mut rec, payload_len as u64);
        rec.extend_from_slice(&head);
        rec.extend_from_slice(&self.events);
        self.events.clear();
        self.count = 0;
        self.state = DeltaState::default();
        self.next_index = self.next_index.wrapping_add(1);
        Some(rec)
    }
}

/// Appends framed records (magic and header first) to `W`.
pub struct TraceWriter<W: Write> {
    out: W,
    scratch: Vec<u8>,
    /// Object class names already written, for the interned object records.
    object_classes: HashMap<String, u64>,
}

impl<W: Write> TraceWriter<W> {
    /// Writes the magic, the format version and the header record.
    pub fn new(mut out: W, header: &Header) -> io::Result<Self> {
        out.write_all(&MAGIC)?;
        out.write_all(&FORMAT_VERSION.to_le_bytes())?;
        let mut w = TraceWriter {
            out,
            scratch: Vec::with_capacity(256),
            object_classes: HashMap::new(),
        };
        w.record(tag::HEADER, |p| {
            put_str(p, &header.jvm);
            put_str(p, &header.command);
            put_str(p, &header.recorder);
            put_u64(p, header.start_unix_ms);
        })?;
        Ok(w)
    }

    /// Frames the payload built by `build` as a record with `tag`.
    fn record(&mut self, tag: u8, build: impl FnOnce(&mut Vec<u8>)) -> io::Result<()> {
        self.scratch.clear();
        build(&mut self.scratch);
        let mut head = [0u8; 11];
        head[0] = tag;
        let mut len = Vec::with_capacity(10);
        put_u64(&mut len, self.scratch.len() as u64);
        head[1..1 + len.len()].copy_from_slice(&len);
        self.out.write_all(&head[..1 + len.len()])?;
        self.out.write_all(&self.scratch)
    }

    /// Appends a chunk record made by [`ChunkEncoder::take_chunk`].
    pub fn chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    /// Defines site `id`.
    pub fn site(&mut self, id: u32, s: &Site) -> io::Result<()> {
        self.record(tag::SITE, |p| {
            put_u32(p, id);
            put_str(p, &s.class);
            put_str(p, &s.method);
            put_str(p, &s.descriptor);
            put_opt_u32(p, s.line);
            put_opt_str(p, s.file.as_deref());
        })
    }

    /// Defines field `id`.
    pub fn field(&mut self, id: u32, f: &Field) -> io::Result<()> {
        self.record(tag::FIELD, |p| {
            put_u32(p, id);
            put_str(p, &f.class);
            put_str(p, &f.name);
            put_str(p, &f.descriptor);
            p.push(
                u8::from(f.is_static)
                    | (u8::from(f.is_volatile) << 1)
                    | (u8::from(f.is_final) << 2),
            );
        })
    }

    /// Defines method `id`.
    pub fn method(&mut self, id: u32, m: &Method) -> io::Result<()> {
        self.record(tag::METHOD, |p| {
            put_u32(p, id);
            put_str(p, &m.class);
            put_str(p, &m.name);
            put_str(p, &m.descriptor);
            // Optional trailing field: readers that predate it ignore it.
            if let Some(flags) = m.flags {
                put_u32(p, flags);
            }
        })
    }

    /// Defines class `id`.
    pub fn class(&mut self, id: u32, c: &Class) -> io::Result<()> {
        self.record(tag::CLASS, |p| {
            put_u32(p, id);
            put_str(p, &c.name);
        })
    }

    /// Defines or renames a thread.
    pub fn thread(&mut self, t: &ThreadInfo) -> io::Result<()> {
        self.record(tag::THREAD, |p| {
            put_u32(p, t.id);
            put_str(p, &t.name);
            put_opt_u32(p, t.parent);
            put_opt_u32(p, t.start_site);
        })
    }

    /// Describes an object. The class name is interned: the first object of
    /// a class carries the name (reference 0), later ones its number + 1.
    pub fn object(&mut self, o: &ObjectInfo) -> io::Result<()> {
        let next = self.object_classes.len() as u64;
        let known = self.object_classes.get(&o.class).copied();
        if known.is_none() {
            self.object_classes.insert(o.class.clone(), next);
        }
        self.record(tag::OBJECT, |p| {
            put_u64(p, o.id);
            match known {
                Some(k) => put_u64(p, k + 1),
                None => {
                    put_u64(p, 0);
                    put_str(p, &o.class);
                }
            }
            put_opt_u32(p, o.alloc_site);
            // Trailing and optional: older readers ignore it.
            if let Some(c) = &o.represents {
                put_opt_str(p, Some(c));
            }
        })
    }

    /// A recorder message.
    pub fn note(&mut self, text: &str) -> io::Result<()> {
        self.record(tag::NOTE, |p| put_str(p, text))
    }

    /// A hang dump.
    pub fn hang(&mut self, h: &Hang) -> io::Result<()> {
        self.record(tag::HANG, |p| {
            put_u64(p, h.threads.len() as u64);
            for t in &h.threads {
                put_u32(p, t.thread);
                put_str(p, &t.name);
                put_str(p, &t.state);
                put_u64(p, t.frames.len() as u64);
                for f in &t.frames {
                    match f {
                        Frame::Site(s) => {
                            p.push(0);
                            put_u32(p, *s);
                        }
                        Frame::Text(s) => {
                            p.push(1);
                            put_str(p, s);
                        }
                    }
                }
                put_u64(p, t.holds.len() as u64);
                for &h in &t.holds {
                    put_u64(p, h);
                }
                put_opt_u64(p, t.waits_for);
            }
        })
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Writes the end record and flushes: the trace is complete. A trace
    /// without it reads as truncated (the recorder crashed or is still running).
    pub fn finish(mut self) -> io::Result<W> {
        self.record(tag::END, |_| {})?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// Returns the underlying writer without writing the end record.
    pub fn into_inner(self) -> W {
        self.out
    }
}
