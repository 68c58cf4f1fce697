//! The class hierarchy and JVM method resolution/selection over it.
//!
//! `resolve_method` follows JVMS §5.4.3.3 (the class, its superclasses,
//! then the maximally-specific superinterface methods, preferring a
//! non-abstract one), `resolve_interface_method` §5.4.3.4, and `dispatch`
//! the selection of §5.4.6 (superclass chain, then a unique maximally
//! specific default method). Access checks, loader constraints and the
//! `ACC_SUPER` subtleties of `invokespecial` are ignored: the input is
//! assumed to have been compiled by a Java compiler, and when it was not
//! the answers are still defined (never a panic or a loop).
//!
//! Super types that cannot be loaded are left out of the hierarchy and
//! reported once as problems. Cyclic hierarchies (invalid, but possible in
//! crafted input) are cut wherever a class repeats.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use crate::program::{ClassId, DirectSupers, MethodId, Program};

const OBJECT: &str = "java/lang/Object";

impl Program {
    pub(crate) fn direct_supers(&self, c: ClassId) -> &DirectSupers {
        let info = self.class(c);
        if let Some(d) = info.direct.get() {
            return d;
        }
        // Computed before it is published, not inside `get_or_init`: a
        // load may wait for the loading window (`window`), and must not
        // hold this cache meanwhile. Of two threads computing it, the one
        // that publishes reports the missing super types, so once.
        let mut missing = Vec::new();
        let mut lookup = |name: &Arc<str>, what: &str| {
            let found = self.class_by_name(name);
            if found.is_none() {
                missing.push((name.clone(), what.to_string()));
            }
            found.filter(|&s| s != c)
        };
        let super_class = info
            .file
            .super_class
            .as_ref()
            .and_then(|s| lookup(s, "superclass"));
        let interfaces = info
            .file
            .interfaces
            .iter()
            .filter_map(|i| lookup(i, "interface"))
            .collect();
        let mut published = false;
        let direct = info.direct.get_or_init(|| {
            published = true;
            DirectSupers {
                super_class,
                interfaces,
            }
        });
        if published {
            let origin = if info.is_application {
                info.origin.to_string()
            } else {
                info.name.to_string()
            };
            for (name, what) in missing {
                let message = format!("{what} {name} of {} not found", info.name);
                self.missing_super(origin.clone(), name, message);
            }
        }
        direct
    }

    /// The direct superclass, if it could be loaded.
    pub fn super_class(&self, c: ClassId) -> Option<ClassId> {
        self.direct_supers(c).super_class
    }

    /// The direct superinterfaces that could be loaded.
    pub fn interfaces(&self, c: ClassId) -> &[ClassId] {
        &self.direct_supers(c).interfaces
    }

    /// `c`, its superclass, its superclass's superclass, ... (cycle-safe).
    pub fn superclasses(&self, c: ClassId) -> &[ClassId] {
        let cell = &self.class(c).superclass_chain;
        if let Some(chain) = cell.get() {
            return chain;
        }
        // Outside the cache's initialisation, like `direct_supers`.
        let mut chain = vec![c];
        let mut cur = c;
        while let Some(s) = self.super_class(cur) {
            if chain.contains(&s) {
                break;
            }
            chain.push(s);
            cur = s;
        }
        cell.get_or_init(|| chain.into_boxed_slice())
    }

    /// Every super type of `c` including `c` itself, sorted by id.
    pub fn supertypes(&self, c: ClassId) -> &[ClassId] {
        let cell = &self.class(c).supertypes;
        if let Some(v) = cell.get() {
            return v;
        }
        // Outside the cache's initialisation, like `direct_supers`.
        let mut seen = FxHashSet::default();
        let mut stack = vec![c];
        seen.insert(c);
        while let Some(k) = stack.pop() {
            let d = self.direct_supers(k);
            for &s in d.super_class.iter().chain(d.interfaces.iter()) {
                if seen.insert(s) {
                    stack.push(s);
                }
            }
        }
        // Interfaces have `Object` as their class-file superclass, so
        // every type reaches it when it is loadable.
        let mut v: Vec<ClassId> = seen.into_iter().collect();
        v.sort_unstable();
        cell.get_or_init(|| v.into_boxed_slice())
    }

    /// Is `sub` assignable to `sup` (reflexive, transitive)?
    pub fn is_subtype(&self, sub: ClassId, sup: ClassId) -> bool {
        sub == sup || self.supertypes(sub).binary_search(&sup).is_ok()
    }

    /// [`Self::is_subtype`] by internal names; `false` when either cannot be loaded
    /// (except `x <: x` and `x <: java/lang/Object`).
    pub fn is_subtype_name(&self, sub: &str, sup: &str) -> bool {
        if sub == sup || sup == OBJECT {
            return true;
        }
        match (self.class_by_name(sub), self.class_by_name(sup)) {
            (Some(a), Some(b)) => self.is_subtype(a, b),
            _ => false,
        }
    }

    /// The maximally-specific superinterface methods of `c` for `name desc`
    /// (JVMS §5.4.3.3): non-private, non-static methods declared in a
    /// superinterface of `c` such that no other candidate's interface is a
    /// subinterface of theirs. In id order.
    pub fn maximally_specific(&self, c: ClassId, name: &str, desc: &str) -> Vec<MethodId> {
        let cands: Vec<MethodId> = self
            .supertypes(c)
            .iter()
            .filter(|&&i| self.class(i).is_interface())
            .filter_map(|&i| self.class(i).declared_method(name, desc))
            .filter(|&m| {
                let md = self.method(m);
                !md.is_private() && !md.is_static()
            })
            .collect();
        cands
            .iter()
            .copied()
            .filter(|&m| {
                let ci = self.method(m).class;
                !cands.iter().any(|&o| {
                    let co = self.method(o).class;
                    co != ci && self.is_subtype(co, ci)
                })
            })
            .collect()
    }

    /// Prefers the one non-abstract method of a maximally-specific set, else the first.
    fn pick(&self, ms: Vec<MethodId>) -> Option<MethodId> {
        ms.iter()
            .copied()
            .find(|&m| !self.method(m).is_abstract())
            .or_else(|| ms.first().copied())
    }

    /// Method resolution (JVMS §5.4.3.3) of `class.name desc`. For an
    /// interface `class`, falls back to interface method resolution rather
    /// than failing. Signature-polymorphic methods of `MethodHandle` and
    /// `VarHandle` resolve by name.
    pub fn resolve_method(&self, class: ClassId, name: &str, desc: &str) -> Option<MethodId> {
        if self.class(class).is_interface() {
            return self.resolve_interface_method(class, name, desc);
        }
        for &k in self.superclasses(class) {
            let info = self.class(k);
            if let Some(m) = info.declared_method(name, desc) {
                return Some(m);
            }
            if matches!(
                &*info.name,
                "java/lang/invoke/MethodHandle" | "java/lang/invoke/VarHandle"
            ) {
                let poly = info.declared_methods_named(name).find(|&m| {
                    let f = self.method(m).access_flags;
                    f & lockstep_classfile::access::NATIVE != 0
                        && f & lockstep_classfile::access::TRANSIENT != 0 // ACC_VARARGS
                });
                if poly.is_some() {
                    return poly;
                }
            }
        }
        self.pick(self.maximally_specific(class, name, desc))
    }

    /// Interface method resolution (JVMS §5.4.3.4): the interface, then
    /// `Object`'s public instance methods, then the maximally-specific
    /// superinterface methods.
    pub fn resolve_interface_method(
        &self,
        iface: ClassId,
        name: &str,
        desc: &str,
    ) -> Option<MethodId> {
        if let Some(m) = self.class(iface).declared_method(name, desc) {
            return Some(m);
        }
        if let Some(obj) = self.class_by_name(OBJECT) {
            if let Some(m) = self.class(obj).declared_method(name, desc) {
                let md = self.method(m);
                if md.is_public() && !md.is_static() {
                    return Some(m);
                }
            }
        }
        self.pick(self.maximally_specific(iface, name, desc))
    }

    /// Virtual method selection (JVMS §5.4.6) on an object whose class is
    /// `receiver`: the first non-static declaration in the superclass chain
    /// (private ones only in `receiver` itself), else the unique
    /// maximally-specific default method. `None` when the selected method
    /// is abstract (the call would throw `AbstractMethodError`) or nothing
    /// matches. With several maximally-specific defaults (which the JVM
    /// rejects) the first by id is taken.
    pub fn dispatch(&self, receiver: ClassId, name: &str, desc: &str) -> Option<MethodId> {
        for &k in self.superclasses(receiver) {
            if let Some(m) = self.class(k).declared_method(name, desc) {
                let md = self.method(m);
                if md.is_static() || (md.is_private() && k != receiver) {
                    continue;
                }
                return (!md.is_abstract()).then_some(m);
            }
        }
        self.maximally_specific(receiver, name, desc)
            .into_iter()
            .find(|&m| !self.method(m).is_abstract())
    }

    /// The class declaring the field `class.name desc` (JVMS §5.4.3.2:
    /// the class, its superinterfaces, then its superclass, recursively).
    pub fn resolve_field(&self, class: ClassId, name: &str, desc: &str) -> Option<ClassId> {
        let mut seen = FxHashSet::default();
        // Depth-first in the JVMS order, with an explicit stack: pushing the
        // superclass before the interfaces visits the interfaces first.
        let mut stack = vec![class];
        while let Some(c) = stack.pop() {
            if !seen.insert(c) {
                continue;
            }
            let info = self.class(c);
            if info
                .file
                .fields
                .iter()
                .any(|f| &*f.name == name && &*f.descriptor == desc)
            {
                return Some(c);
            }
            let d = self.direct_supers(c);
            stack.extend(d.super_class);
            stack.extend(d.interfaces.iter().rev());
        }
        None
    }
}
