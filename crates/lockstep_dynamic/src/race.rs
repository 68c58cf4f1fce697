//! Shared vocabulary of the checkers: variables, which checker found a race,
//! and the deduplicating sink of races (per field and pair of sites).

use lockstep_trace::{Event, FieldId, ObjId, SiteId};

use crate::context::Access;
use crate::fast_hash::FastMap;

const ARRAY: u64 = 1 << 40;
const CONTAINER: u64 = 2 << 40;

/// A shared variable: `(obj, field)`, `(0, field)` for statics,
/// `(array, index)`, `(obj, container)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var {
    /// The object (0 for a static field).
    pub obj: ObjId,
    slot: u64,
}

/// Dense index of a [`Var`] in one engine (order of first access): the
/// checkers keep their shadow state in `Vec`s indexed by it, so a variable
/// is hashed once per access, not once per checker and step.
pub type VarId = u32;

/// Interns variables to [`VarId`]s.
#[derive(Debug, Default)]
pub struct VarIds {
    map: FastMap<Var, VarId>,
    /// The last variable looked up: a read-modify-write touches it twice in a row.
    last: Option<(Var, VarId)>,
}

impl VarIds {
    /// The id of `var`, new ids numbered densely from 0.
    #[inline]
    pub fn id(&mut self, var: Var) -> VarId {
        if let Some((v, id)) = self.last {
            if v == var {
                return id;
            }
        }
        let next = self.map.len() as VarId;
        let id = *self.map.entry(var).or_insert(next);
        self.last = Some((var, id));
        id
    }
}

/// What kind of variable, for messages and deduplication.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VarKind {
    /// A field.
    Field(FieldId),
    /// An array element.
    Element(u32),
    /// A JDK collection's contents.
    Container,
}

impl Var {
    /// The variable an access event touches, and whether it writes.
    #[inline]
    pub fn of(e: &Event) -> Option<(Var, bool)> {
        let (obj, slot, write) = match *e {
            Event::Read { obj, field, .. } => (obj, u64::from(field), false),
            Event::Write { obj, field, .. } => (obj, u64::from(field), true),
            Event::ArrayRead { array, index, .. } => (array, ARRAY | u64::from(index), false),
            Event::ArrayWrite { array, index, .. } => (array, ARRAY | u64::from(index), true),
            Event::ContainerRead { obj, .. } => (obj, CONTAINER, false),
            Event::ContainerWrite { obj, .. } => (obj, CONTAINER, true),
            _ => return None,
        };
        Some((Var { obj, slot }, write))
    }

    /// Its kind.
    pub fn kind(&self) -> VarKind {
        if self.slot & CONTAINER != 0 {
            VarKind::Container
        } else if self.slot & ARRAY != 0 {
            VarKind::Element(self.slot as u32)
        } else {
            VarKind::Field(self.slot as u32)
        }
    }
}

/// Which checker found a race (a bit set when both did).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CheckerKind {
    /// Eraser with extensions.
    Lockset,
    /// Vector clocks / FastTrack.
    HappensBefore,
}

impl CheckerKind {
    fn bit(self) -> u8 {
        match self {
            CheckerKind::Lockset => 1,
            CheckerKind::HappensBefore => 2,
        }
    }

    /// The name used in findings and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CheckerKind::Lockset => "lockset",
            CheckerKind::HappensBefore => "happens-before",
        }
    }
}

/// A detected race: two accesses to `var`, `second` after `first` in the
/// merged order, not ordered/protected according to the checkers in `found_by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Race {
    /// The variable.
    pub var: Var,
    /// The earlier access.
    pub first: Access,
    /// The later access (where it was detected).
    pub second: Access,
    found_by: u8,
}

impl Race {
    /// The checkers that found it, in a fixed order.
    pub fn found_by(&self) -> Vec<CheckerKind> {
        [CheckerKind::Lockset, CheckerKind::HappensBefore]
            .into_iter()
            .filter(|c| self.found_by & c.bit() != 0)
            .collect()
    }
}

/// Dedup key: the kind of variable (field id; all elements of arrays are one
/// kind) and the unordered pair of sites.
type RaceKey = (u8, FieldId, SiteId, SiteId);

/// Collects races, one per key, in order of first detection.
#[derive(Debug, Default)]
pub struct Races {
    index: FastMap<RaceKey, usize>,
    /// The races.
    pub list: Vec<Race>,
}

impl Races {
    /// Records a race found by `checker` (merging with an earlier one of the
    /// same key). A pair of reads is no race and is dropped, whichever
    /// checker offers it, so a merged race always pairs a write with
    /// another access.
    pub fn add(&mut self, checker: CheckerKind, var: Var, first: Access, second: Access) {
        if !first.write && !second.write {
            return;
        }
        let (k, f) = match var.kind() {
            VarKind::Field(f) => (0, f),
            VarKind::Element(_) => (1, 0),
            VarKind::Container => (2, 0),
        };
        let key = (
            k,
            f,
            first.site.min(second.site),
            first.site.max(second.site),
        );
        match self.index.get(&key) {
            Some(&i) => self.list[i].found_by |= checker.bit(),
            None => {
                self.index.insert(key, self.list.len());
                self.list.push(Race {
                    var,
                    first,
                    second,
                    found_by: checker.bit(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(site: SiteId, write: bool) -> Access {
        Access {
            thread: site,
            site,
            locks: 0,
            stack: 0,
            at: u64::from(site),
            write,
        }
    }

    #[test]
    fn read_read_pairs_are_never_kept_and_merging_keeps_the_write() {
        let var = Var { obj: 1, slot: 3 };
        let mut races = Races::default();
        races.add(
            CheckerKind::Lockset,
            var,
            access(1, false),
            access(2, false),
        );
        assert!(races.list.is_empty());
        races.add(
            CheckerKind::HappensBefore,
            var,
            access(1, true),
            access(2, false),
        );
        races.add(
            CheckerKind::Lockset,
            var,
            access(2, false),
            access(1, false),
        );
        assert_eq!(races.list.len(), 1);
        let r = races.list[0];
        assert!(r.first.write || r.second.write);
        assert_eq!(r.found_by(), vec![CheckerKind::HappensBefore]);
    }
}
