//! Virtual-call targets by points-to: which of a call graph's targets
//! of a virtual or interface call the objects its receiver may hold can
//! run.
//!
//! The RTA call graph dispatches `v.size()` on a `Vector` to every live
//! class overriding `size`: one application subclass of `Vector` that
//! overrides it (jgroups' `UnmodifiableVector`, whose `synchronized`
//! methods lock an inner vector) becomes a target of every `Vector` call
//! in the program, allocated as a plain `new Vector()` or not. Points-to
//! knows which objects the receiver may hold; each object the program
//! allocates has an exact class, and the method that class selects
//! (JVMS §5.4.6) is the only one the call can run on it.
//!
//! Objects whose exact class points-to does not know keep every target
//! their declared type admits (a subclass of it, or a class it inherits
//! the method from): objects from outside the analysed code (harness and
//! injected objects, [`SiteKey::Entry`], [`SiteKey::External`]), results
//! of code it does not analyse ([`SiteKey::Opaque`]) and JVM-made objects
//! ([`SiteKey::Vm`]: the current thread may be any `Thread` subclass).
//! The parts the container models make (an iterator, an entry) stand for
//! objects of the JDK container's own classes: they keep the library
//! targets their type admits.
//!
//! Points-to says nothing (and the targets stay as they are) when it did
//! not analyse the method, the receiver's set is empty (no proof of
//! `null`: points-to reaches some methods with no receiver object, and
//! reflection makes objects in no set), a receiver is a lambda or of a
//! class that does not load, or its budget cut it short.
//!
//! The same selection bounds the open-program harness
//! ([`harness_may_enter`]): its calls come from outside the analysed code
//! and are virtual, so it runs `C.m` only on receivers whose class
//! selects `C.m`. On an object of a subclass overriding `m` (derby's
//! `CachingLogicalConnection.close` over `LogicalConnection.close`) only
//! the override's `super.m()`, an `invokespecial` of the program made
//! under the override's locks, runs `C.m`.

use std::collections::BTreeSet;

use lockstep_ir::{Call, CallKind, Operand};
use lockstep_pointsto::{ContextId, ObjectId, PointsToResult, SiteKey};
use lockstep_program::{ClassId, MethodId, Program};
use rustc_hash::FxHashSet;

/// The classes whose method a virtual call may run: the exact classes of
/// the receiver's objects, and the declared types of the objects whose
/// class is not known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Receivers {
    /// The methods the exactly known objects select.
    exact: BTreeSet<MethodId>,
    /// Declared types of objects of any class below them.
    open: BTreeSet<ClassId>,
    /// Declared types of container-model parts: library classes below them.
    library_open: BTreeSet<ClassId>,
}

/// What points-to knows of an object's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Class {
    /// Its class (for an array, `Object`).
    Exact(ClassId),
    /// Any class below this type.
    Open(ClassId),
    /// Any library class below this type.
    LibraryOpen(ClassId),
    /// Points-to cannot say (a lambda, a class that does not load).
    Unknown,
}

/// The class of every abstract object, worked out once per check: a
/// receiver set may hold thousands of objects of a few classes.
pub struct Dispatch<'a> {
    pt: &'a PointsToResult,
    objects: Vec<Class>,
}

impl<'a> Dispatch<'a> {
    pub fn compute(program: &Program, pt: &'a PointsToResult) -> Dispatch<'a> {
        let object = program.class_by_name("java/lang/Object");
        let objects = pt
            .objects()
            .map(|o| match pt.object(o) {
                Some(info) => class_of(program, object, info.site, info.type_name),
                None => Class::Unknown,
            })
            .collect();
        Dispatch { pt, objects }
    }

    /// The receivers of the virtual or interface `call` of method `m`,
    /// by points-to; `None` when it cannot say (see the module docs).
    pub fn receivers(&self, program: &Program, m: MethodId, call: &Call) -> Option<Receivers> {
        let pt = self.pt;
        if matches!(call.kind, CallKind::Static | CallKind::Special)
            || pt.stats().budget_cut.is_some()
            || !pt.call_graph().is_reachable(m)
        {
            return None;
        }
        let Some(Operand::Var(v)) = &call.receiver else {
            return None;
        };
        let set = pt.var(m, *v);
        if set.is_empty() {
            return None;
        }
        // The distinct classes first (most sets hold a few), then one
        // method selection per class.
        let mut classes: FxHashSet<Class> = FxHashSet::default();
        let mut last = None;
        for o in set.iter() {
            let class = self.objects.get(o.0 as usize).copied()?;
            if last != Some(class) {
                if class == Class::Unknown {
                    return None;
                }
                classes.insert(class);
                last = Some(class);
            }
        }
        let (name, desc) = (&call.method.name, &call.method.descriptor);
        let mut out = Receivers::default();
        for class in classes {
            match class {
                Class::Exact(c) => out.exact.extend(program.dispatch(c, name, desc)),
                Class::Open(c) => {
                    out.open.insert(c);
                }
                Class::LibraryOpen(c) => {
                    out.library_open.insert(c);
                }
                Class::Unknown => return None,
            }
        }
        Some(out)
    }
}

/// What points-to knows of the class of an object of `site` and type
/// `type_name` (`object`: `java/lang/Object`, whose methods arrays select).
fn class_of(program: &Program, object: Option<ClassId>, site: &SiteKey, type_name: &str) -> Class {
    let class = if type_name.starts_with('[') {
        object
    } else {
        program.class_by_name(type_name)
    };
    let Some(c) = class else {
        return Class::Unknown;
    };
    match site {
        SiteKey::Alloc { .. }
        | SiteKey::Copy { .. }
        | SiteKey::StringConstant
        | SiteKey::ClassLiteral(_)
        | SiteKey::Constant(_)
        | SiteKey::Exception(_)
        | SiteKey::Library(_) => Class::Exact(c),
        SiteKey::Entry(_) | SiteKey::External { .. } | SiteKey::Opaque(_) | SiteKey::Vm(_) => {
            Class::Open(c)
        }
        SiteKey::ContainerPart { .. } => Class::LibraryOpen(c),
        SiteKey::Lambda { .. }
        | SiteKey::ConstructorRef { .. }
        | SiteKey::Main(_)
        | SiteKey::OverBudget
        | SiteKey::OverBudgetCaller(_)
        | SiteKey::Modelled => Class::Unknown,
    }
}

impl Receivers {
    /// Can the call run `target` on one of these receivers?
    pub fn admits(&self, program: &Program, target: MethodId) -> bool {
        if self.exact.contains(&target) {
            return true;
        }
        let declaring = program.method(target).class;
        let related = |&ty: &ClassId| {
            // A subclass of the type may select it, or the type inherits
            // it; a default method may come from any interface.
            program.is_subtype(declaring, ty)
                || program.is_subtype(ty, declaring)
                || program.class(declaring).is_interface()
        };
        self.open.iter().any(related)
            || (!program.is_application(declaring) && self.library_open.iter().any(related))
    }
}

/// May the harness, calling `m` from outside the analysed code, run it in
/// context `c`? Not when every receiver `m` has there is of a class that
/// selects another method for the call (an override of `m`; for a
/// constructor, any class but `m`'s own: outside code constructs with
/// `new`). Static methods, receivers points-to does not know, an empty
/// receiver set and objects whose class is open above `m`'s class (an
/// object of an interface type may be of `m`'s class) keep the context.
pub fn harness_may_enter(
    program: &Program,
    pt: &PointsToResult,
    m: MethodId,
    c: ContextId,
) -> bool {
    let md = program.method(m);
    if md.is_static() {
        return true;
    }
    let Some(this) = program.body(m).and_then(|b| b.params.first().copied()) else {
        return true;
    };
    let set = pt.var_in(m, c, this);
    if set.is_empty() {
        return true;
    }
    let object = program.class_by_name("java/lang/Object");
    let selected = set.iter().any(|o| may_select(program, pt, object, o, m));
    selected
}

/// May an outside call of `m` on object `o` run `m` (see
/// [`harness_may_enter`])?
fn may_select(
    program: &Program,
    pt: &PointsToResult,
    object: Option<ClassId>,
    o: ObjectId,
    m: MethodId,
) -> bool {
    let Some(info) = pt.object(o) else {
        return true;
    };
    let md = program.method(m);
    let selects = |c: ClassId| {
        if md.is_constructor() {
            c == md.class
        } else {
            program.dispatch(c, &md.name, &md.descriptor) == Some(m)
        }
    };
    match class_of(program, object, info.site, info.type_name) {
        Class::Exact(c) => selects(c),
        // Below a subclass of `m`'s class, every class selects what that
        // subclass selects or an override of it.
        Class::Open(c) | Class::LibraryOpen(c) => !program.is_subtype(c, md.class) || selects(c),
        Class::Unknown => true,
    }
}
