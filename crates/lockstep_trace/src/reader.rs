//! The reading side: a push [`Decoder`] that turns bytes into records as
//! they arrive (online checking through a pipe), a pulling [`StreamReader`]
//! over any `Read`, and [`read`], which collects a whole [`Trace`].
//!
//! Tolerance: a record is yielded only when complete. A truncated tail ends
//! the stream with an error naming the byte offset of the incomplete record;
//! a record whose payload does not decode gives an error naming its offset
//! and reading goes on with the next record (the length prefix says where it
//! starts). Only a wrong magic, an unsupported version or an impossible
//! record length stop reading. Nothing here panics on any input.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::{self, Read};

use crate::codec::{decode_event, DeltaState};
use crate::model::{
    Chunk, Class, Event, Field, Frame, Hang, Header, Method, ObjId, ObjectInfo, Site, ThreadDump,
    ThreadId, ThreadInfo,
};
use crate::pool::BufferPool;
use crate::varint::{Cursor, DecodeError};
use crate::{tag, FORMAT_VERSION, MAGIC, MAX_RECORD_LEN};

/// A problem in the input, with the absolute byte offset where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// Byte offset in the trace.
    pub offset: u64,
    /// What went wrong.
    pub message: String,
    /// True when reading stopped here (truncation, bad magic...).
    pub fatal: bool,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte offset {}: {}", self.offset, self.message)
    }
}

/// One decoded record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// The header (always the first record).
    Header(Header),
    /// A run of one thread's events.
    Chunk(Chunk),
    /// A site definition.
    Site(u32, Site),
    /// A field definition.
    Field(u32, Field),
    /// A method definition.
    Method(u32, Method),
    /// A class definition.
    Class(u32, Class),
    /// A thread definition or rename.
    Thread(ThreadInfo),
    /// An object description.
    Object(ObjectInfo),
    /// A recorder message.
    Note(String),
    /// A hang dump.
    Hang(Hang),
    /// The end of a cleanly finished trace.
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Preamble,
    Records,
    Stopped,
}

/// A push decoder: [`feed`](Decoder::feed) bytes, then take records with
/// [`next_record`](Decoder::next_record) until it returns `None`.
pub struct Decoder {
    buf: Vec<u8>,
    pos: usize,
    /// Absolute offset of `buf[0]`.
    base: u64,
    phase: Phase,
    version: u16,
    object_classes: Vec<String>,
    /// Event buffers handed back by the consumer, decoded into before
    /// allocating new ones.
    spare: BufferPool,
    unknown_tags_seen: Vec<u8>,
    saw_header: bool,
    saw_end: bool,
}

impl Default for Decoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Decoder {
    /// A decoder expecting the start of a trace.
    pub fn new() -> Self {
        Decoder {
            buf: Vec::new(),
            pos: 0,
            base: 0,
            phase: Phase::Preamble,
            version: 0,
            object_classes: Vec::new(),
            spare: BufferPool::default(),
            unknown_tags_seen: Vec::new(),
            saw_header: false,
            saw_end: false,
        }
    }

    /// Appends input bytes.
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.phase == Phase::Stopped {
            return;
        }
        if self.pos > 0 && self.pos >= self.buf.len() / 2 {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Absolute offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Hands back a chunk's event buffer once its events are consumed: the
    /// next chunks are decoded into it (cleared) instead of a new
    /// allocation. A few are kept; the rest are dropped.
    pub fn recycle(&mut self, buffer: Vec<Event>) {
        self.spare.give(buffer);
    }

    /// True when reading stopped on a fatal error.
    pub fn stopped(&self) -> bool {
        self.phase == Phase::Stopped
    }

    fn stop(&mut self, offset: u64, message: String) -> Option<Result<Record, TraceError>> {
        self.phase = Phase::Stopped;
        self.buf = Vec::new();
        self.pos = 0;
        Some(Err(TraceError {
            offset,
            message,
            fatal: true,
        }))
    }

    /// The next complete record, an error, or `None` when more bytes are needed.
    pub fn next_record(&mut self) -> Option<Result<Record, TraceError>> {
        loop {
            match self.phase {
                Phase::Stopped => return None,
                Phase::Preamble => {
                    let avail = &self.buf[self.pos..];
                    let need = MAGIC.len() + 2;
                    if avail.len() < need {
                        if !MAGIC.starts_with(&avail[..avail.len().min(MAGIC.len())]) {
                            return self.stop(0, "not a lockstep trace (wrong magic)".into());
                        }
                        return None;
                    }
                    if avail[..MAGIC.len()] != MAGIC {
                        return self.stop(0, "not a lockstep trace (wrong magic)".into());
                    }
                    let version = u16::from_le_bytes([avail[MAGIC.len()], avail[MAGIC.len() + 1]]);
                    if version == 0 || version > FORMAT_VERSION {
                        return self.stop(
                            MAGIC.len() as u64,
                            format!(
                                "unsupported trace format version {version} (this lockstep reads versions 1 to {FORMAT_VERSION})"
                            ),
                        );
                    }
                    self.version = version;
                    self.pos += need;
                    self.phase = Phase::Records;
                }
                Phase::Records => {
                    let start = self.offset();
                    let avail = &self.buf[self.pos..];
                    let &tag = avail.first()?;
                    let mut c = Cursor::new(&avail[1..]);
                    let len = match c.u64("record length") {
                        Ok(len) => len,
                        Err(_) if avail.len() < 11 => return None,
                        Err(_) => {
                            return self.stop(start + 1, "malformed record length".into());
                        }
                    };
                    if len > MAX_RECORD_LEN {
                        return self.stop(
                            start,
                            format!("record length {len} exceeds the limit {MAX_RECORD_LEN} (corrupt trace)"),
                        );
                    }
                    let head = 1 + c.pos();
                    let total = head + len as usize;
                    if avail.len() < total {
                        return None;
                    }
                    let payload_start = self.pos + head;
                    self.pos += total;
                    if let Some(r) = self.decode(tag, start, payload_start, total - head) {
                        return Some(r);
                    }
                }
            }
        }
    }

    /// Decodes the payload of one framed record; `None` for a skipped unknown tag.
    fn decode(
        &mut self,
        tag: u8,
        start: u64,
        payload_start: usize,
        len: usize,
    ) -> Option<Result<Record, TraceError>> {
        let payload = &self.buf[payload_start..payload_start + len];
        let mut c = Cursor::new(payload);
        let record_offset = start;
        let err = |e: DecodeError, what: &str| TraceError {
            offset: record_offset,
            message: format!(
                "corrupt {what} record: expected {} at payload byte {}",
                e.expected, e.at
            ),
            fatal: false,
        };
        let r = match tag {
            tag::HEADER => {
                self.saw_header = true;
                decode_header(&mut c, self.version).map_err(|e| err(e, "header"))
            }
            tag::CHUNK => {
                let buffer = self.spare.take();
                return Some(decode_chunk(&mut c, record_offset, buffer));
            }
            tag::SITE => decode_site(&mut c).map_err(|e| err(e, "site")),
            tag::FIELD => decode_field(&mut c).map_err(|e| err(e, "field")),
            tag::METHOD => decode_method(&mut c).map_err(|e| err(e, "method")),
            tag::CLASS => (|| {
                Ok(Record::Class(
                    c.u32("class id")?,
                    Class {
                        name: c.str("class name")?,
                    },
                ))
            })()
            .map_err(|e| err(e, "class")),
            tag::THREAD => decode_thread(&mut c).map_err(|e| err(e, "thread")),
            tag::OBJECT => {
                let classes = &mut self.object_classes;
                decode_object(&mut c, classes).map_err(|e| err(e, "object"))
            }
            tag::NOTE => c
                .str("note text")
                .map(Record::Note)
                .map_err(|e| err(e, "note")),
            tag::HANG => decode_hang(&mut c).map_err(|e| err(e, "hang")),
            tag::END => {
                self.saw_end = true;
                Ok(Record::End)
            }
            other => {
                if self.unknown_tags_seen.contains(&other) {
                    return None;
                }
                self.unknown_tags_seen.push(other);
                Err(TraceError {
                    offset: record_offset,
                    message: format!(
                        "unknown record tag 0x{other:02x} skipped (written by a newer lockstep?)"
                    ),
                    fatal: false,
                })
            }
        };
        Some(r)
    }

    /// Call at end of input: an error naming the offset of an incomplete
    /// trailing record, if any.
    pub fn finish(&mut self) -> Option<TraceError> {
        if self.phase == Phase::Stopped {
            return None;
        }
        let left = self.buf.len() - self.pos;
        let offset = self.offset();
        let message = match self.phase {
            Phase::Preamble => format!("trace truncated: {left} bytes, no complete file header"),
            _ if left == 0 && self.saw_end => return None,
            _ if left == 0 && !self.saw_header => "trace truncated: no header record".to_string(),
            _ if left == 0 => {
                "trace truncated: no end record (the recording did not finish: crash, kill or still running)".to_string()
            }
            _ => {
                let tag = self.buf[self.pos];
                format!(
                    "trace truncated: incomplete {} record ({left} bytes present)",
                    tag_name(tag)
                )
            }
        };
        self.phase = Phase::Stopped;
        Some(TraceError {
            offset,
            message,
            fatal: true,
        })
    }
}

/// A record kind's name for messages.
fn tag_name(t: u8) -> &'static str {
    match t {
        tag::HEADER => "header",
        tag::CHUNK => "chunk",
        tag::SITE => "site",
        tag::FIELD => "field",
        tag::METHOD => "method",
        tag::CLASS => "class",
        tag::THREAD => "thread",
        tag::OBJECT => "object",
        tag::NOTE => "note",
        tag::HANG => "hang",
        tag::END => "end",
        _ => "unknown",
    }
}

fn decode_header(c: &mut Cursor, version: u16) -> Result<Record, DecodeError> {
    Ok(Record::Header(Header {
        format_version: version,
        jvm: c.str("JVM description")?,
        command: c.str("command")?,
        recorder: c.str("recorder version")?,
        start_unix_ms: c.u64("start time")?,
    }))
}

/// Decodes a chunk; a corrupt event keeps the events before it and reports.
fn decode_chunk(c: &mut Cursor, offset: u64, mut events: Vec<Event>) -> Result<Record, TraceError> {
    let head = (|| -> Result<(u32, u32, u64), DecodeError> {
        Ok((
            c.u32("thread id")?,
            c.u32("chunk index")?,
            c.u64("event count")?,
        ))
    })();
    let (thread, index, count) = head.map_err(|e| TraceError {
        offset,
        message: format!(
            "corrupt chunk record: expected {} at payload byte {}",
            e.expected, e.at
        ),
        fatal: false,
    })?;
    let mut st = DeltaState::default();
    events.clear();
    events.reserve(count.min(1 << 20) as usize);
    for i in 0..count {
        match decode_event(c, &mut st) {
            Ok(e) => events.push(e),
            Err(e) => {
                return Err(TraceError {
                    offset,
                    message: format!(
                        "corrupt chunk record (thread {thread}, chunk {index}): event {i} of {count}: expected {} at payload byte {}; chunk dropped",
                        e.expected, e.at
                    ),
                    fatal: false,
                })
            }
        }
    }
    Ok(Record::Chunk(Chunk {
        thread,
        index,
        events,
    }))
}

fn decode_site(c: &mut Cursor) -> Result<Record, DecodeError> {
    Ok(Record::Site(
        c.u32("site id")?,
        Site {
            class: c.str("site class")?,
            method: c.str("site method")?,
            descriptor: c.str("site descriptor")?,
            line: c.opt_u32("site line")?,
            file: c.opt_str("site file")?,
        },
    ))
}

fn decode_field(c: &mut Cursor) -> Result<Record, DecodeError> {
    let id = c.u32("field id")?;
    let class = c.str("field class")?;
    let name = c.str("field name")?;
    let descriptor = c.str("field descriptor")?;
    let flags = c.u8("field flags")?;
    Ok(Record::Field(
        id,
        Field {
            class,
            name,
            descriptor,
            is_static: flags & 1 != 0,
            is_volatile: flags & 2 != 0,
            is_final: flags & 4 != 0,
        },
    ))
}

fn decode_method(c: &mut Cursor) -> Result<Record, DecodeError> {
    let id = c.u32("method id")?;
    let class = c.str("method class")?;
    let name = c.str("method name")?;
    let descriptor = c.str("method descriptor")?;
    let flags = if c.at_end() {
        None
    } else {
        Some(c.u32("method flags")?)
    };
    Ok(Record::Method(
        id,
        Method {
            class,
            name,
            descriptor,
            flags,
        },
    ))
}

fn decode_thread(c: &mut Cursor) -> Result<Record, DecodeError> {
    Ok(Record::Thread(ThreadInfo {
        id: c.u32("thread id")?,
        name: c.str("thread name")?,
        parent: c.opt_u32("parent thread")?,
        start_site: c.opt_u32("start site")?,
    }))
}

fn decode_object(c: &mut Cursor, classes: &mut Vec<String>) -> Result<Record, DecodeError> {
    let id = c.u64("object id")?;
    let at = c.pos();
    let class = match c.u64("object class reference")? {
        0 => {
            let name = c.str("object class name")?;
            classes.push(name.clone());
            name
        }
        k => classes.get((k - 1) as usize).cloned().ok_or(DecodeError {
            at,
            expected: "a class reference defined by an earlier object record",
        })?,
    };
    let alloc_site = c.opt_u32("allocation site")?;
    let represents = if c.at_end() {
        None
    } else {
        c.opt_str("represented class")?
    };
    Ok(Record::Object(ObjectInfo {
        id,
        class,
        alloc_site,
        represents,
    }))
}

fn decode_hang(c: &mut Cursor) -> Result<Record, DecodeError> {
    let n = c.count("thread dump count")?;
    let mut threads = Vec::with_capacity(n);
    for _ in 0..n {
        let thread = c.u32("dumped thread id")?;
        let name = c.str("dumped thread name")?;
        let state = c.str("thread state")?;
        let nf = c.count("frame count")?;
        let mut frames = Vec::with_capacity(nf);
        for _ in 0..nf {
            frames.push(match c.u8("frame kind")? {
                0 => Frame::Site(c.u32("frame site")?),
                1 => Frame::Text(c.str("frame text")?),
                _ => {
                    return Err(DecodeError {
                        at: c.pos() - 1,
                        expected: "frame kind 0 or 1",
                    })
                }
            });
        }
        let nh = c.count("held lock count")?;
        let mut holds: Vec<ObjId> = Vec::with_capacity(nh);
        for _ in 0..nh {
            holds.push(c.u64("held lock")?);
        }
        let waits_for = c.opt_u64("awaited lock")?;
        threads.push(ThreadDump {
            thread,
            name,
            state,
            frames,
            holds,
            waits_for,
        });
    }
    Ok(Record::Hang(Hang { threads }))
}

/// Pulls records from any `Read` (a file, a pipe, a socket), blocking for
/// more bytes as needed. Yields `Err` items for problems; after a fatal one
/// (or the end of input) it yields `None`.
pub struct StreamReader<R: Read> {
    input: R,
    decoder: Decoder,
    buf: Box<[u8]>,
    done: bool,
}

impl<R: Read> StreamReader<R> {
    /// A reader over `input`.
    pub fn new(input: R) -> Self {
        StreamReader {
            input,
            decoder: Decoder::new(),
            buf: vec![0u8; 256 * 1024].into_boxed_slice(),
            done: false,
        }
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.decoder.offset()
    }

    /// See [`Decoder::recycle`].
    pub fn recycle(&mut self, buffer: Vec<Event>) {
        self.decoder.recycle(buffer);
    }
}

impl<R: Read> Iterator for StreamReader<R> {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.decoder.next_record() {
                return Some(r);
            }
            if self.done || self.decoder.stopped() {
                return None;
            }
            match self.input.read(&mut self.buf) {
                Ok(0) => {
                    self.done = true;
                    return self.decoder.finish().map(Err);
                }
                Ok(n) => self.decoder.feed(&self.buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.done = true;
                    let offset = self.decoder.offset();
                    self.decoder.finish();
                    return Some(Err(TraceError {
                        offset,
                        message: format!("read error: {e}"),
                        fatal: true,
                    }));
                }
            }
        }
    }
}

/// The name tables of a trace, resolved by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tables {
    /// Sites by id.
    pub sites: BTreeMap<u32, Site>,
    /// Fields by id.
    pub fields: BTreeMap<u32, Field>,
    /// Methods by id.
    pub methods: BTreeMap<u32, Method>,
    /// Classes by id.
    pub classes: BTreeMap<u32, Class>,
    /// Threads by id (the last record for an id wins).
    pub threads: BTreeMap<ThreadId, ThreadInfo>,
    /// Objects by id.
    pub objects: HashMap<ObjId, ObjectInfo>,
}

impl Tables {
    /// Stores a table record; returns false for records that are not tables.
    pub fn absorb(&mut self, r: &Record) -> bool {
        match r {
            Record::Site(id, s) => {
                self.sites.insert(*id, s.clone());
            }
            Record::Field(id, f) => {
                self.fields.insert(*id, f.clone());
            }
            Record::Method(id, m) => {
                self.methods.insert(*id, m.clone());
            }
            Record::Class(id, c) => {
                self.classes.insert(*id, c.clone());
            }
            Record::Thread(t) => {
                self.threads.insert(t.id, t.clone());
            }
            Record::Object(o) => {
                self.objects.insert(o.id, o.clone());
            }
            _ => return false,
        }
        true
    }
}

/// A whole trace read into memory.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// The header, if it was read.
    pub header: Option<Header>,
    /// Chunks in file order (per thread, in program order).
    pub chunks: Vec<Chunk>,
    /// Name tables.
    pub tables: Tables,
    /// The recorder's notes.
    pub notes: Vec<String>,
    /// Hang dumps.
    pub hangs: Vec<Hang>,
    /// True when the input ended inside a record or reading stopped early.
    pub truncated: bool,
    /// Problems met while reading, each naming its byte offset.
    pub problems: Vec<TraceError>,
    /// True when the end record was read (the recording finished cleanly).
    pub complete: bool,
}

impl Trace {
    /// Total number of events.
    pub fn event_count(&self) -> u64 {
        self.chunks.iter().map(|c| c.events.len() as u64).sum()
    }

    /// Adds one record.
    pub fn absorb(&mut self, r: Record) {
        if self.tables.absorb(&r) {
            return;
        }
        match r {
            Record::Header(h) => self.header = Some(h),
            Record::Chunk(c) => self.chunks.push(c),
            Record::Note(n) => self.notes.push(n),
            Record::Hang(h) => self.hangs.push(h),
            Record::End => self.complete = true,
            _ => {}
        }
    }
}

/// Reads a whole trace. Never fails: problems (including I/O errors) are in
/// [`Trace::problems`], and `truncated` says whether reading stopped early.
pub fn read(input: impl Read) -> Trace {
    let mut trace = Trace::default();
    for item in StreamReader::new(input) {
        match item {
            Ok(r) => trace.absorb(r),
            Err(e) => {
                if e.fatal {
                    trace.truncated = true;
                }
                trace.problems.push(e);
            }
        }
    }
    trace
}

/// Reads a whole trace from bytes in memory.
pub fn read_bytes(bytes: &[u8]) -> Trace {
    read(bytes)
}
