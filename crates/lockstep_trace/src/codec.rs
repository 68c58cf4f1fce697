//! The compact encoding of events inside a chunk.
//!
//! Each event is one opcode byte followed by varints. Object ids, sites,
//! fields, methods and `seq` values are zigzag deltas against the previous
//! value of the same slot in the chunk ([`DeltaState`], reset per chunk so
//! every chunk decodes on its own). Consecutive accesses of one thread
//! usually touch the same object and nearby sites, so a field access takes
//! about four bytes.

use crate::model::{Event, LockKind};
use crate::varint::{put_delta, put_u32, put_u64, Cursor, DecodeError};

/// Opcodes (first byte of an encoded event). Lock opcodes carry the
/// [`LockKind`] code in their two low bits.
pub mod op {
    pub const THREAD_BEGIN: u8 = 0x01;
    pub const THREAD_BEGIN_CHILD: u8 = 0x02;
    pub const THREAD_END: u8 = 0x03;
    pub const THREAD_START: u8 = 0x04;
    pub const THREAD_JOIN: u8 = 0x05;
    pub const ACQUIRE: u8 = 0x10;
    pub const RELEASE: u8 = 0x14;
    pub const WAIT: u8 = 0x18;
    pub const NOTIFY: u8 = 0x19;
    pub const NOTIFY_ALL: u8 = 0x1a;
    pub const SYNC_RELEASE: u8 = 0x20;
    pub const SYNC_ACQUIRE: u8 = 0x21;
    pub const READ: u8 = 0x30;
    pub const WRITE: u8 = 0x31;
    pub const ARRAY_READ: u8 = 0x32;
    pub const ARRAY_WRITE: u8 = 0x33;
    pub const CONTAINER_READ: u8 = 0x34;
    pub const CONTAINER_WRITE: u8 = 0x35;
    pub const ENTER: u8 = 0x40;
    pub const EXIT: u8 = 0x41;
    pub const CLASS_INIT: u8 = 0x42;
}

/// The previous values that deltas are taken against, per chunk.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeltaState {
    obj: u64,
    site: u64,
    field: u64,
    seq: u64,
    method: u64,
}

impl DeltaState {
    #[inline]
    fn obj(&mut self, out: &mut Vec<u8>, v: u64) {
        put_delta(out, self.obj, v);
        self.obj = v;
    }
    #[inline]
    fn site(&mut self, out: &mut Vec<u8>, v: u32) {
        put_delta(out, self.site, u64::from(v));
        self.site = u64::from(v);
    }
    #[inline]
    fn field(&mut self, out: &mut Vec<u8>, v: u32) {
        put_delta(out, self.field, u64::from(v));
        self.field = u64::from(v);
    }
    #[inline]
    fn seq(&mut self, out: &mut Vec<u8>, v: u64) {
        put_delta(out, self.seq, v);
        self.seq = v;
    }
    #[inline]
    fn method(&mut self, out: &mut Vec<u8>, v: u32) {
        put_delta(out, self.method, u64::from(v));
        self.method = u64::from(v);
    }
}

/// Appends the encoding of `e` to `out`, updating `st`.
#[inline]
pub fn encode_event(out: &mut Vec<u8>, st: &mut DeltaState, e: &Event) {
    match *e {
        Event::ThreadBegin { parent: None } => out.push(op::THREAD_BEGIN),
        Event::ThreadBegin { parent: Some(p) } => {
            out.push(op::THREAD_BEGIN_CHILD);
            put_u32(out, p);
        }
        Event::ThreadEnd => out.push(op::THREAD_END),
        Event::ThreadStart { child, site } | Event::ThreadJoin { child, site } => {
            let code = if matches!(e, Event::ThreadStart { .. }) {
                op::THREAD_START
            } else {
                op::THREAD_JOIN
            };
            out.push(code);
            put_u32(out, child);
            st.site(out, site);
        }
        Event::Acquire {
            lock,
            seq,
            kind,
            site,
        }
        | Event::Release {
            lock,
            seq,
            kind,
            site,
        } => {
            let base = if matches!(e, Event::Acquire { .. }) {
                op::ACQUIRE
            } else {
                op::RELEASE
            };
            out.push(base | kind.code());
            st.obj(out, lock);
            st.seq(out, seq);
            st.site(out, site);
        }
        Event::Wait { lock, site } => {
            out.push(op::WAIT);
            st.obj(out, lock);
            st.site(out, site);
        }
        Event::Notify { lock, all, site } => {
            out.push(if all { op::NOTIFY_ALL } else { op::NOTIFY });
            st.obj(out, lock);
            st.site(out, site);
        }
        Event::SyncRelease {
            obj,
            key,
            seq,
            site,
        }
        | Event::SyncAcquire {
            obj,
            key,
            seq,
            site,
        } => {
            out.push(if matches!(e, Event::SyncRelease { .. }) {
                op::SYNC_RELEASE
            } else {
                op::SYNC_ACQUIRE
            });
            st.obj(out, obj);
            put_u32(out, key);
            st.seq(out, seq);
            st.site(out, site);
        }
        Event::Read { obj, field, site } | Event::Write { obj, field, site } => {
            out.push(if matches!(e, Event::Read { .. }) {
                op::READ
            } else {
                op::WRITE
            });
            st.obj(out, obj);
            st.field(out, field);
            st.site(out, site);
        }
        Event::ArrayRead { array, index, site } | Event::ArrayWrite { array, index, site } => {
            out.push(if matches!(e, Event::ArrayRead { .. }) {
                op::ARRAY_READ
            } else {
                op::ARRAY_WRITE
            });
            st.obj(out, array);
            put_u32(out, index);
            st.site(out, site);
        }
        Event::ContainerRead { obj, site } | Event::ContainerWrite { obj, site } => {
            out.push(if matches!(e, Event::ContainerRead { .. }) {
                op::CONTAINER_READ
            } else {
                op::CONTAINER_WRITE
            });
            st.obj(out, obj);
            st.site(out, site);
        }
        Event::Enter { method } => {
            out.push(op::ENTER);
            st.method(out, method);
        }
        Event::Exit { method } => {
            out.push(op::EXIT);
            st.method(out, method);
        }
        Event::ClassInit { class } => {
            out.push(op::CLASS_INIT);
            put_u64(out, u64::from(class));
        }
    }
}

/// Decoding counterpart of [`DeltaState`]'s writers.
impl DeltaState {
    #[inline]
    fn read_obj(&mut self, c: &mut Cursor) -> Result<u64, DecodeError> {
        self.obj = c.delta(self.obj, "object id delta")?;
        Ok(self.obj)
    }
    #[inline]
    fn read_site(&mut self, c: &mut Cursor) -> Result<u32, DecodeError> {
        let v = c.delta32(self.site as u32, "site id delta")?;
        self.site = u64::from(v);
        Ok(v)
    }
    #[inline]
    fn read_field(&mut self, c: &mut Cursor) -> Result<u32, DecodeError> {
        let v = c.delta32(self.field as u32, "field id delta")?;
        self.field = u64::from(v);
        Ok(v)
    }
    #[inline]
    fn read_seq(&mut self, c: &mut Cursor) -> Result<u64, DecodeError> {
        self.seq = c.delta(self.seq, "seq delta")?;
        Ok(self.seq)
    }
    #[inline]
    fn read_method(&mut self, c: &mut Cursor) -> Result<u32, DecodeError> {
        let v = c.delta32(self.method as u32, "method id delta")?;
        self.method = u64::from(v);
        Ok(v)
    }
}

/// Decodes one event at the cursor.
#[inline]
pub fn decode_event(c: &mut Cursor, st: &mut DeltaState) -> Result<Event, DecodeError> {
    let at = c.pos();
    let code = c.u8("event opcode")?;
    let e = match code {
        op::THREAD_BEGIN => Event::ThreadBegin { parent: None },
        op::THREAD_BEGIN_CHILD => Event::ThreadBegin {
            parent: Some(c.u32("parent thread id")?),
        },
        op::THREAD_END => Event::ThreadEnd,
        op::THREAD_START => Event::ThreadStart {
            child: c.u32("child thread id")?,
            site: st.read_site(c)?,
        },
        op::THREAD_JOIN => Event::ThreadJoin {
            child: c.u32("child thread id")?,
            site: st.read_site(c)?,
        },
        0x10..=0x17 => {
            let lock = st.read_obj(c)?;
            let seq = st.read_seq(c)?;
            let site = st.read_site(c)?;
            let kind = LockKind::from_code(code);
            if code < op::RELEASE {
                Event::Acquire {
                    lock,
                    seq,
                    kind,
                    site,
                }
            } else {
                Event::Release {
                    lock,
                    seq,
                    kind,
                    site,
                }
            }
        }
        op::WAIT => Event::Wait {
            lock: st.read_obj(c)?,
            site: st.read_site(c)?,
        },
        op::NOTIFY | op::NOTIFY_ALL => Event::Notify {
            lock: st.read_obj(c)?,
            all: code == op::NOTIFY_ALL,
            site: st.read_site(c)?,
        },
        op::SYNC_RELEASE | op::SYNC_ACQUIRE => {
            let obj = st.read_obj(c)?;
            let key = c.u32("sync key")?;
            let seq = st.read_seq(c)?;
            let site = st.read_site(c)?;
            if code == op::SYNC_RELEASE {
                Event::SyncRelease {
                    obj,
                    key,
                    seq,
                    site,
                }
            } else {
                Event::SyncAcquire {
                    obj,
                    key,
                    seq,
                    site,
                }
            }
        }
        op::READ | op::WRITE => {
            let obj = st.read_obj(c)?;
            let field = st.read_field(c)?;
            let site = st.read_site(c)?;
            if code == op::READ {
                Event::Read { obj, field, site }
            } else {
                Event::Write { obj, field, site }
            }
        }
        op::ARRAY_READ | op::ARRAY_WRITE => {
            let array = st.read_obj(c)?;
            let index = c.u32("array index")?;
            let site = st.read_site(c)?;
            if code == op::ARRAY_READ {
                Event::ArrayRead { array, index, site }
            } else {
                Event::ArrayWrite { array, index, site }
            }
        }
        op::CONTAINER_READ | op::CONTAINER_WRITE => {
            let obj = st.read_obj(c)?;
            let site = st.read_site(c)?;
            if code == op::CONTAINER_READ {
                Event::ContainerRead { obj, site }
            } else {
                Event::ContainerWrite { obj, site }
            }
        }
        op::ENTER => Event::Enter {
            method: st.read_method(c)?,
        },
        op::EXIT => Event::Exit {
            method: st.read_method(c)?,
        },
        op::CLASS_INIT => Event::ClassInit {
            class: c.u32("class id")?,
        },
        _ => {
            return Err(DecodeError {
                at,
                expected: "a known event opcode",
            })
        }
    };
    Ok(e)
}
