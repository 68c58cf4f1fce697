//! Final fields never race: the Java memory model makes the values a
//! constructor wrote to an object's `final` fields visible to every thread
//! that reaches the object, even through a racy publication (JLS §17.5),
//! and a `static final` field is ordered by class initialization. The
//! recorder does not record their accesses; this filter drops any that a
//! trace still holds (a field record with the `final` flag). Only the
//! field itself is frozen: the elements of an array it holds, or the
//! fields of an object it holds, are variables of their own and checked.

use lockstep_trace::{Event, FieldId, Tables};

/// Field ids above this are not cached (a corrupt trace must not make the
/// cache allocate without bound); they are looked up every time.
const CACHE_LIMIT: FieldId = 1 << 22;

/// Which fields are `final`, by the trace's field table, cached per id.
#[derive(Debug, Default)]
pub struct FinalFields {
    /// Per field id: 0 not known yet, 1 not final, 2 final.
    known: Vec<u8>,
}

impl FinalFields {
    /// Is `e` an access of a final field (one the checkers skip)? False
    /// while the field's record has not arrived (then not cached).
    #[inline]
    pub fn skips(&mut self, e: &Event, tables: &Tables) -> bool {
        let field = match *e {
            Event::Read { field, .. } | Event::Write { field, .. } => field,
            _ => return false,
        };
        match self.known.get(field as usize) {
            Some(1) => false,
            Some(2) => true,
            _ => self.learn(field, tables),
        }
    }

    #[cold]
    fn learn(&mut self, field: FieldId, tables: &Tables) -> bool {
        let Some(f) = tables.fields.get(&field) else {
            return false;
        };
        if field < CACHE_LIMIT {
            let i = field as usize;
            if self.known.len() <= i {
                self.known.resize(i + 1, 0);
            }
            self.known[i] = if f.is_final { 2 } else { 1 };
        }
        f.is_final
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lockstep_trace::Field;

    fn tables() -> Tables {
        let mut t = Tables::default();
        for (id, is_final) in [(0, false), (1, true)] {
            t.fields.insert(
                id,
                Field {
                    class: "app/Box".into(),
                    name: format!("f{id}"),
                    descriptor: "I".into(),
                    is_final,
                    ..Field::default()
                },
            );
        }
        t
    }

    #[test]
    fn final_fields_are_skipped_and_others_kept() {
        let t = tables();
        let mut f = FinalFields::default();
        let read = |field| Event::Read {
            obj: 7,
            field,
            site: 0,
        };
        let write = |field| Event::Write {
            obj: 7,
            field,
            site: 0,
        };
        assert!(!f.skips(&read(0), &t));
        assert!(f.skips(&read(1), &t));
        assert!(f.skips(&write(1), &t));
        assert!(!f.skips(&write(0), &t));
        // Unknown field: kept, and not cached (its record may come later).
        assert!(!f.skips(&read(5), &t));
        assert!(!f.skips(&read(u32::MAX), &t));
        let arr = Event::ArrayWrite {
            array: 7,
            index: 1,
            site: 0,
        };
        assert!(!f.skips(&arr, &t));
    }
}
