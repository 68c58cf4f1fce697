//! Locks as objects: which abstract object (or class) a lock a method
//! names denotes in one calling context, and the locks every path from a
//! thread root must hold when a method context is entered.
//!
//! Must-alias is decided the way paper 002 does it: a lock denotes one
//! object when its points-to set in that context is a singleton (object
//! sensitivity makes `this` and `this.lock` singletons in most contexts),
//! or it is a class (`static synchronized`, `synchronized (Foo.class)`).
//! A lock whose set is empty or has several objects protects nothing.
//! The views of a `ReentrantReadWriteLock` are named by the lock they
//! belong to, so a read-locked access and a write-locked access of the
//! same read-write lock exclude each other.

use std::sync::Arc;

use lockstep_ir::{AccessPath, Body};
use lockstep_models::LockMode;
use lockstep_pointsto::{ContextId, ObjectId, ObjectSet, PointsToResult};
use lockstep_program::{MethodId, Program};
use rustc_hash::FxHashMap;

use crate::local_locks::LocalLock;

/// What a held lock is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LockObject {
    /// One abstract object.
    Object(ObjectId),
    /// A class object (`static synchronized`, `Foo.class`).
    Class(Arc<str>),
    /// The lock of the very object an access touches (`fields` empty), or
    /// of the object it holds in a chain of fields that do not change
    /// after construction: the same run-time lock for every access of one
    /// object, whatever its points-to set ([`crate::lock_paths`]). Its
    /// monitor, or (`monitor: false`) the `java.util.concurrent` lock it is.
    /// Only access lock sets hold these, never entry locks.
    OfAccessed {
        fields: Arc<[crate::lock_paths::FieldName]>,
        monitor: bool,
    },
    /// The lock of the accessed object's owner: the object that holds the
    /// accessed one through the fields `up`, each set only by its class's
    /// constructors, on `this`, to an object they allocate (so every
    /// run-time object has at most one owner), or of the object that owner
    /// holds in the stable fields `down` (`down` empty: the owner's own
    /// monitor or lock). The same run-time lock for every access of one
    /// object ([`crate::lock_paths`]). Only access lock sets hold these.
    OfOwner {
        up: Arc<[crate::lock_paths::FieldName]>,
        down: Arc<[crate::lock_paths::FieldName]>,
        monitor: bool,
    },
}

/// A lock held in a mode.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HeldLock {
    pub object: LockObject,
    /// `Exclusive` for monitors and mutexes.
    pub mode: LockMode,
}

impl HeldLock {
    /// Does holding `self` and `other` order two accesses? They must name
    /// the same lock and at least one must hold it exclusively (two
    /// readers of a read-write lock run together).
    pub fn excludes(&self, other: &HeldLock) -> bool {
        self.object == other.object
            && !(self.mode == LockMode::Read && other.mode == LockMode::Read)
    }
}

/// A sorted, duplicate-free set of held locks.
pub type LockSet = Arc<[HeldLock]>;

/// Do two lock sets share a lock that orders their accesses?
pub fn common_lock<'a>(a: &'a [HeldLock], b: &[HeldLock]) -> Option<&'a HeldLock> {
    a.iter().find(|x| b.iter().any(|y| x.excludes(y)))
}

/// Union of two sorted lock sets.
pub fn union(a: &[HeldLock], b: &[HeldLock]) -> Vec<HeldLock> {
    let mut v: Vec<HeldLock> = a.iter().chain(b).cloned().collect();
    v.sort();
    v.dedup();
    v
}

/// Intersection of two sorted lock sets.
pub fn intersect(a: &[HeldLock], b: &[HeldLock]) -> Vec<HeldLock> {
    a.iter().filter(|x| b.contains(x)).cloned().collect()
}

/// Resolves the locks a method names into lock objects, per context.
pub struct LockResolver<'a> {
    pub program: &'a Program,
    pub pt: &'a PointsToResult,
    /// `ReentrantReadWriteLock$ReadLock/WriteLock` objects → the lock they view.
    view_owner: FxHashMap<ObjectId, Option<ObjectId>>,
    /// A read-write lock's synchronizer → the `ReentrantReadWriteLock`
    /// object holding it, when exactly one does (built on first use).
    sync_owner: Option<FxHashMap<ObjectId, Option<ObjectId>>>,
    /// Which locks belong to the object whose field holds them.
    owners: crate::lock_identity::LockOwners,
}

impl<'a> LockResolver<'a> {
    pub fn new(program: &'a Program, pt: &'a PointsToResult) -> LockResolver<'a> {
        LockResolver {
            program,
            pt,
            view_owner: FxHashMap::default(),
            sync_owner: None,
            owners: Default::default(),
        }
    }

    /// The one object a set denotes, if it is a singleton.
    fn single(set: &ObjectSet) -> Option<ObjectId> {
        let mut it = set.iter();
        let first = it.next()?;
        it.next().is_none().then_some(first)
    }

    /// A read or write view of a read-write lock is named by the
    /// `ReentrantReadWriteLock` object it views: the application's
    /// allocation, found through the `sync` both views of one lock share
    /// (the synchronizer and the views are allocated inside the JDK's
    /// constructor). When the synchronizer has no single owner, by its
    /// `sync` objects (the first stands for them).
    fn canonical(&mut self, o: ObjectId) -> (ObjectId, Option<LockMode>) {
        let Some(info) = self.pt.object(o) else {
            return (o, None);
        };
        let Some(mode) = lockstep_models::read_write_view(info.type_name) else {
            return (o, None);
        };
        let class = info.type_name.clone();
        // The `sync` of one read-write lock may be a fair or a non-fair
        // one (two objects); both views of that lock see the same set, a
        // view of another lock (another heap context) a different one.
        if let Some(&owner) = self.view_owner.get(&o) {
            return (owner.unwrap_or(o), Some(mode));
        }
        let sync = self
            .pt
            .field(o, &class, lockstep_models::READ_WRITE_VIEW_OWNER_FIELD);
        let owners = self.sync_owners();
        let mut lock_objects = sync.iter().map(|s| owners.get(&s).copied().flatten());
        let first = lock_objects.next().flatten();
        let one_lock = first.is_some() && lock_objects.all(|l| l == first);
        let owner = if one_lock { first } else { sync.iter().next() };
        self.view_owner.insert(o, owner);
        (owner.unwrap_or(o), Some(mode))
    }

    /// Each read-write lock synchronizer with the `ReentrantReadWriteLock`
    /// objects whose `sync` it may be (`None` when more than one).
    fn sync_owners(&mut self) -> &FxHashMap<ObjectId, Option<ObjectId>> {
        let pt = self.pt;
        self.sync_owner.get_or_insert_with(|| {
            let mut owners: FxHashMap<ObjectId, Option<ObjectId>> = FxHashMap::default();
            for r in pt.objects() {
                let Some(info) = pt.object(r) else { continue };
                if &**info.type_name != lockstep_models::READ_WRITE_LOCK {
                    continue;
                }
                let syncs = pt.field(
                    r,
                    info.type_name,
                    lockstep_models::READ_WRITE_VIEW_OWNER_FIELD,
                );
                for s in syncs.iter() {
                    owners
                        .entry(s)
                        .and_modify(|o| {
                            if *o != Some(r) {
                                *o = None
                            }
                        })
                        .or_insert(Some(r));
                }
            }
            owners
        })
    }

    fn var_objects(&self, m: MethodId, c: ContextId, v: lockstep_ir::VarId) -> ObjectSet {
        self.pt.var_in(m, c, v)
    }

    /// The objects the field `f` of the objects `v` holds may hold (a
    /// lock a wrapper takes on a field of its receiver).
    fn field_objects(
        &self,
        m: MethodId,
        c: ContextId,
        v: lockstep_ir::VarId,
        f: &crate::local_locks::FieldName,
    ) -> ObjectSet {
        let mut out = ObjectSet::new();
        for o in self.pt.var_in(m, c, v).iter() {
            out.union_with(&self.pt.field(o, &f.0, &f.1));
        }
        out
    }

    /// The lock objects of the locks `locals` in method `m`, context `c`.
    pub fn resolve(
        &mut self,
        m: MethodId,
        c: ContextId,
        body: &Body,
        locals: &[LocalLock],
    ) -> Vec<HeldLock> {
        let mut out = Vec::new();
        for l in locals {
            let (object, mode) = match l {
                LocalLock::SyncMethod => {
                    if body.is_static {
                        (
                            Some(LockObject::Class(body.class.clone())),
                            LockMode::Exclusive,
                        )
                    } else {
                        let o = body
                            .params
                            .first()
                            .and_then(|t| Self::single(&self.var_objects(m, c, *t)));
                        (o.map(LockObject::Object), LockMode::Exclusive)
                    }
                }
                LocalLock::Monitor { var, path } => {
                    if let AccessPath::ClassLiteral(class) = path {
                        (Some(LockObject::Class(class.clone())), LockMode::Exclusive)
                    } else {
                        let o = var.and_then(|v| Self::single(&self.var_objects(m, c, v)));
                        (o.map(LockObject::Object), LockMode::Exclusive)
                    }
                }
                LocalLock::Juc {
                    var, mode, field, ..
                } => {
                    let objects = match field {
                        None => self.var_objects(m, c, *var),
                        Some(f) => self.field_objects(m, c, *var, f),
                    };
                    match Self::single(&objects) {
                        Some(o) => {
                            let (owner, view_mode) = self.canonical(o);
                            (Some(LockObject::Object(owner)), view_mode.unwrap_or(*mode))
                        }
                        None => (None, *mode),
                    }
                }
            };
            if let Some(object) = object {
                let mode = match mode {
                    // A stamp unlock releases whatever was taken; a held
                    // stamp lock is treated as exclusive.
                    LockMode::Stamp => LockMode::Exclusive,
                    m => m,
                };
                out.push(HeldLock { object, mode });
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// The objects owning `lock` as method `m` names it in context `c`
    /// (see [`crate::lock_identity`]); `None`: not an owned lock.
    pub fn owners(
        &mut self,
        m: MethodId,
        c: ContextId,
        body: &Body,
        lock: &LocalLock,
    ) -> Option<crate::lock_identity::Owners> {
        self.owners
            .owners(self.program, self.pt, (m, c), body, lock)
    }

    /// Does the instance field `name` keep its value once its object is
    /// built (see [`crate::lock_identity::LockOwners::is_fixed`])?
    pub fn fixed_field(&mut self, name: &Arc<str>) -> bool {
        self.owners.is_fixed(self.program, name)
    }

    /// Every store of an instance field named `name` in application code.
    pub(crate) fn field_stores_of(&mut self, name: &str) -> Vec<(MethodId, usize)> {
        self.owners.stores_of(self.program, name)
    }

    /// The lock for messages.
    pub fn describe(&self, l: &HeldLock) -> String {
        describe(self.program, self.pt, l)
    }
}

/// A held lock for messages: `new Foo @ Bar.java:12`, `pkg.Cls.class`,
/// `the read lock of ...`.
pub fn describe(program: &Program, pt: &PointsToResult, l: &HeldLock) -> String {
    let base = match &l.object {
        LockObject::Class(c) => format!("{}.class", crate::util::dotted(c)),
        LockObject::Object(o) => pt.describe_object(program, *o),
        LockObject::OfAccessed { fields, .. } if fields.is_empty() => {
            "the accessed object's own lock".to_string()
        }
        LockObject::OfAccessed { fields, .. } => {
            let names: Vec<&str> = fields.iter().map(|(_, n)| &**n).collect();
            format!("the accessed object's `{}`", names.join("."))
        }
        LockObject::OfOwner { up, down, .. } => owner_lock_text(up, down),
    };
    match l.mode {
        LockMode::Read => format!("the read lock of {base}"),
        LockMode::Write => format!("the write lock of {base}"),
        _ => base,
    }
}

/// [`LockObject::OfOwner`] for messages: "the lock of the object whose
/// `queue` the accessed object is", "… its `lock`".
pub fn owner_lock_text(
    up: &[crate::lock_paths::FieldName],
    down: &[crate::lock_paths::FieldName],
) -> String {
    let names = |fs: &[crate::lock_paths::FieldName]| {
        fs.iter()
            .map(|(_, n)| &**n)
            .collect::<Vec<&str>>()
            .join(".")
    };
    let owner = format!("the object whose `{}` the accessed object is", names(up));
    if down.is_empty() {
        format!("the lock of {owner}")
    } else {
        format!("the `{}` of {owner}", names(down))
    }
}
