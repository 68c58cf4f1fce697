//! Appending entries to a constant pool.
//!
//! Existing entries are never renumbered or rewritten, so every index in
//! the original class stays valid; new entries are deduplicated among
//! themselves (a probe's method reference is added once per class).

use std::collections::HashMap;

use crate::raw::put_u16;
use crate::Error;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Utf8(String),
    Class(String),
    NameAndType(String, String),
    Method(String, String, String, bool),
    Field(String, String, String),
    Integer(i32),
}

/// A constant pool that can grow.
#[derive(Debug)]
pub(crate) struct Pool {
    /// The next free slot (= the new `constant_pool_count`).
    next: u16,
    bytes: Vec<u8>,
    added: HashMap<Key, u16>,
}

/// Encodes a string as modified UTF-8 (JVMS §4.4.7).
pub(crate) fn encode_mutf8(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for ch in s.chars() {
        let c = ch as u32;
        if c != 0 && c < 0x80 {
            out.push(c as u8);
        } else if c < 0x800 {
            out.push(0xC0 | (c >> 6) as u8);
            out.push(0x80 | (c & 0x3F) as u8);
        } else if c < 0x10000 {
            push3(&mut out, c);
        } else {
            let v = c - 0x10000;
            push3(&mut out, 0xD800 | (v >> 10));
            push3(&mut out, 0xDC00 | (v & 0x3FF));
        }
    }
    out
}

fn push3(out: &mut Vec<u8>, c: u32) {
    out.push(0xE0 | (c >> 12) as u8);
    out.push(0x80 | ((c >> 6) & 0x3F) as u8);
    out.push(0x80 | (c & 0x3F) as u8);
}

impl Pool {
    /// A pool continuing after `count` existing slots whose bytes are `bytes`.
    pub(crate) fn continuing(count: u16, bytes: Vec<u8>) -> Pool {
        Pool {
            next: count.max(1),
            bytes,
            added: HashMap::new(),
        }
    }

    pub(crate) fn count(&self) -> u16 {
        self.next
    }

    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    fn add(&mut self, key: Key, entry: &[u8]) -> Result<u16, Error> {
        if let Some(&i) = self.added.get(&key) {
            return Ok(i);
        }
        let index = self.next;
        self.next = self
            .next
            .checked_add(1)
            .filter(|&n| n < u16::MAX)
            .ok_or_else(|| Error::new("constant pool full (65535 entries)"))?;
        self.bytes.extend_from_slice(entry);
        self.added.insert(key, index);
        Ok(index)
    }

    pub(crate) fn utf8(&mut self, s: &str) -> Result<u16, Error> {
        let enc = encode_mutf8(s);
        let len = u16::try_from(enc.len()).map_err(|_| Error::new("string constant too long"))?;
        let mut e = vec![1];
        put_u16(&mut e, len);
        e.extend_from_slice(&enc);
        self.add(Key::Utf8(s.to_owned()), &e)
    }

    pub(crate) fn class(&mut self, name: &str) -> Result<u16, Error> {
        let n = self.utf8(name)?;
        let mut e = vec![7];
        put_u16(&mut e, n);
        self.add(Key::Class(name.to_owned()), &e)
    }

    fn name_and_type(&mut self, name: &str, desc: &str) -> Result<u16, Error> {
        let n = self.utf8(name)?;
        let d = self.utf8(desc)?;
        let mut e = vec![12];
        put_u16(&mut e, n);
        put_u16(&mut e, d);
        self.add(Key::NameAndType(name.to_owned(), desc.to_owned()), &e)
    }

    /// A `Methodref` (or `InterfaceMethodref` when `interface`).
    pub(crate) fn method(
        &mut self,
        class: &str,
        name: &str,
        desc: &str,
        interface: bool,
    ) -> Result<u16, Error> {
        let key = Key::Method(
            class.to_owned(),
            name.to_owned(),
            desc.to_owned(),
            interface,
        );
        if let Some(&i) = self.added.get(&key) {
            return Ok(i);
        }
        let c = self.class(class)?;
        let nt = self.name_and_type(name, desc)?;
        let mut e = vec![if interface { 11 } else { 10 }];
        put_u16(&mut e, c);
        put_u16(&mut e, nt);
        self.add(key, &e)
    }

    pub(crate) fn field(&mut self, class: &str, name: &str, desc: &str) -> Result<u16, Error> {
        let key = Key::Field(class.to_owned(), name.to_owned(), desc.to_owned());
        if let Some(&i) = self.added.get(&key) {
            return Ok(i);
        }
        let c = self.class(class)?;
        let nt = self.name_and_type(name, desc)?;
        let mut e = vec![9];
        put_u16(&mut e, c);
        put_u16(&mut e, nt);
        self.add(key, &e)
    }

    pub(crate) fn integer(&mut self, v: i32) -> Result<u16, Error> {
        let mut e = vec![3];
        e.extend_from_slice(&v.to_be_bytes());
        self.add(Key::Integer(v), &e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutf8_encodes_nul_and_supplementary_characters() {
        assert_eq!(encode_mutf8("a\0"), vec![b'a', 0xC0, 0x80]);
        assert_eq!(encode_mutf8("\u{1F600}").len(), 6);
        assert_eq!(encode_mutf8("é"), "é".as_bytes());
    }

    #[test]
    fn entries_are_appended_once() {
        let mut p = Pool::continuing(5, vec![]);
        let a = p.method("A", "m", "()V", false).unwrap();
        let b = p.method("A", "m", "()V", false).unwrap();
        assert_eq!(a, b);
        // utf8 A, class A, utf8 m, utf8 ()V, NameAndType, Methodref
        assert_eq!(p.count(), 11);
        assert_eq!(a, 10);
    }
}
