//! Fresh objects, the sharper half of ownership ([`crate::ownership`]).
//!
//! Ownership keeps, besides its flow-sensitive must-state, a backstop: an
//! access counts as owned only when no object its base may point to is
//! published *anywhere* in the program. An allocation site stands for the
//! objects of every call, so one publication after the call (jgroups'
//! `dumpStats` puts the map `dumpChannelStats` made and filled into the
//! stats it returns; h2 hands a parse's list to `String.join`) made every
//! access of every call shared.
//!
//! A variable is *fresh* when it holds an object this call made (`new`,
//! a copy or cast of a fresh variable, the result of reflective
//! instantiation or of a JDK copy, `clone()` or `Arrays.copyOf`) or the
//! receiver a deserializer made and hands to its
//! `readExternal`/`readObject` hook, and since then the object was not
//! stored into another object nor handed to application code (where it
//! could end up inside an object some callee publishes by a path the
//! callee summaries do not name). Such an object cannot have been
//! published before the access other than along the paths the must-state
//! already follows (a store, a call that keeps it, a throw), so the
//! backstop does not apply to it.
//!
//! Freshness crosses calls (h2's per-statement `Parser`: `new
//! Parser(session)`, then `parser.parse(sql)`, which hands the parser and
//! the command it makes to helper after helper). A parameter (the
//! receiver included) is fresh on entry when every caller in that context
//! passes a fresh value, and passes it once (a call `f(x, x)` would give
//! the callee two names for one object). Each node's summary says which
//! parameters it *keeps fresh*: it does not store them into another
//! object (nor a static), return them, or hand them to a callee that does
//! not keep them fresh (a greatest fixpoint, like the rest of ownership's
//! summaries); the caller's variable stays fresh after such a call. A call
//! whose application callees all return a fresh value that is none of
//! their parameters (a factory) gives a fresh result. Only calls of the
//! callee's own name carry freshness (a `Thread.start()` that reaches
//! `run` does not).
//!
//! *Held by its own parts* (constructors only). An object stored into a
//! field of a constructor's fresh `this`, and that `this` handed to a
//! part the constructor makes (`this.rpes = new
//! ResourcePoolEventSupport(this)` in c3p0's pool constructor: the support
//! keeps the pool, the pool keeps the support), are reachable only through
//! their own variables and through each other, which no other path
//! reaches yet: each stays fresh while its holder does. The walk keeps,
//! per constructor body, which variables may hold which (`this.f = m`, or
//! `new Part(.., this, ..)` whose constructor stores that argument into
//! its receiver): when a holder stops being fresh, so do its members, and
//! theirs. A constructor that stores a parameter only into its fresh
//! receiver *keeps it tethered* (`keeps_tethered`). A reference read from
//! a holder's field may be a member under a name the walk does not
//! follow, so such a read ends the freshness of the members it may point
//! to; `Thread.start()` on a holder ends its members' (the new thread runs
//! the holder's `run()`); a publication too large to follow that may
//! reach a holder ends its members' ownership. The constructor's callers
//! see its `this` as not kept fresh, as before: they cannot follow the
//! parts. A JDK constructor whose body stores the argument only into its
//! own new object (or tests it against `null`), and whose own `this` only
//! reads and writes its fields and calls `Object`'s constructor, is such a
//! part too (`new PropertyChangeSupport(this)` in c3p0's data sources).
//!
//! The fresh bits live in the ownership state after the owned bits (one
//! vector of `2 × variables` booleans), so the must-meet (`and`) and the
//! "publishing clears" rules treat them alike; a fresh bit means something
//! only while the owned bit of its variable is set.

use lockstep_ir::{Body, Operand, Rvalue, StmtKind, VarId};

/// The variables of a body grouped by copying (`a = b`, `a = (T) b`):
/// a fresh object is referenced only by the variables of one group.
pub(crate) struct CopyClasses {
    class_of: Vec<u32>,
    members: Vec<Vec<VarId>>,
}

impl CopyClasses {
    /// The variables `v` is copied to or from (itself included).
    pub(crate) fn of(&self, v: VarId) -> &[VarId] {
        self.class_of
            .get(v.index())
            .and_then(|&c| self.members.get(c as usize))
            .map_or(&[], Vec::as_slice)
    }
}

/// Groups the variables of `body` by copying (union-find).
pub(crate) fn copy_classes(body: &Body) -> CopyClasses {
    let n = body.vars.len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let up = parent[parent[x as usize] as usize];
            parent[x as usize] = up;
            x = up;
        }
        x
    }
    for stmt in &body.stmts {
        if let StmtKind::Assign {
            dst,
            value: Rvalue::Use(Operand::Var(src)) | Rvalue::Cast(Operand::Var(src), _),
        } = &stmt.kind
        {
            if dst.index() < n && src.index() < n {
                let (a, b) = (find(&mut parent, dst.0), find(&mut parent, src.0));
                parent[a as usize] = b;
            }
        }
    }
    let mut class_of = vec![0u32; n];
    let mut index: Vec<Option<u32>> = vec![None; n];
    let mut members: Vec<Vec<VarId>> = Vec::new();
    for v in 0..n as u32 {
        let root = find(&mut parent, v) as usize;
        let c = *index[root].get_or_insert_with(|| {
            members.push(Vec::new());
            (members.len() - 1) as u32
        });
        class_of[v as usize] = c;
        members[c as usize].push(VarId(v));
    }
    CopyClasses { class_of, members }
}

/// The index of `v`'s fresh bit in a state over `vars` variables.
fn index(vars: usize, v: VarId) -> usize {
    vars + v.index()
}

/// Is `v` fresh in `state` (a state over `vars` variables)?
pub(crate) fn is_fresh(state: &[bool], vars: usize, v: VarId) -> bool {
    state.get(index(vars, v)).copied().unwrap_or(false)
}

/// Sets `v`'s fresh bit.
pub(crate) fn set_fresh(state: &mut [bool], vars: usize, v: VarId, fresh: bool) {
    if let Some(s) = state.get_mut(index(vars, v)) {
        *s = fresh;
    }
}

/// The initial state of a body with `vars` variables: everything owned
/// and fresh (the must-analysis' top), to be lowered for the parameters.
pub(crate) fn top_state(vars: usize) -> Vec<bool> {
    vec![true; 2 * vars]
}

/// A JDK call whose result is an object it has just made for the caller
/// (reflective instantiation), which nobody else holds yet.
pub(crate) fn makes_fresh_object(class: &str, name: &str) -> bool {
    name == "newInstance" && matches!(class, "java/lang/Class" | "java/lang/reflect/Constructor")
}

/// A JDK copy: `clone()` (`Object.clone` through `super.clone()`, an
/// array's `clone()`, a JDK class's copy such as `BitSet.clone`) or
/// `Arrays.copyOf`/`copyOfRange`. Its result is a new object that only
/// the caller holds, whatever the original is (h2's `ConnectionInfo.clone`
/// fills the fields of its copy; its `TransactionStore` sets bits in a
/// copy of the shared bit set before it publishes the copy by
/// compare-and-set). The copy holds the original's field values or
/// elements; reading them stays under the published-anywhere backstop like
/// any read. An application override of `clone()` is judged by its own
/// summary instead (its callers see whether it returns fresh).
pub(crate) fn is_jdk_copy(class: &str, name: &str, descriptor: &str) -> bool {
    match name {
        "clone" => descriptor.starts_with("()L"),
        "copyOf" | "copyOfRange" => class == "java/util/Arrays",
        _ => false,
    }
}

/// A deserialization hook: the method the JDK's `ObjectInputStream` calls
/// on an object it has just made (`Externalizable.readExternal`, a
/// `Serializable` class's private `readObject`), to fill it.
pub(crate) fn is_deserialization_hook(name: &str, descriptor: &str) -> bool {
    matches!(
        (name, descriptor),
        ("readExternal", "(Ljava/io/ObjectInput;)V")
            | ("readObject", "(Ljava/io/ObjectInputStream;)V")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_bits_follow_the_owned_bits() {
        let mut s = top_state(3);
        assert_eq!(s.len(), 6);
        assert!(is_fresh(&s, 3, VarId(2)));
        set_fresh(&mut s, 3, VarId(2), false);
        assert!(!is_fresh(&s, 3, VarId(2)));
        assert!(s[2], "the owned bit is apart");
        assert!(!is_fresh(&s, 3, VarId(7)), "out of range is not fresh");
    }

    #[test]
    fn hooks_and_factories_by_name() {
        assert!(is_deserialization_hook(
            "readExternal",
            "(Ljava/io/ObjectInput;)V"
        ));
        assert!(is_deserialization_hook(
            "readObject",
            "(Ljava/io/ObjectInputStream;)V"
        ));
        assert!(!is_deserialization_hook(
            "readObject",
            "()Ljava/lang/Object;"
        ));
        assert!(makes_fresh_object("java/lang/Class", "newInstance"));
        assert!(!makes_fresh_object("java/lang/Class", "forName"));
        assert!(is_jdk_copy("[I", "clone", "()Ljava/lang/Object;"));
        assert!(is_jdk_copy(
            "java/util/BitSet",
            "clone",
            "()Ljava/lang/Object;"
        ));
        assert!(!is_jdk_copy(
            "java/util/BitSet",
            "clone",
            "(I)Ljava/lang/Object;"
        ));
        assert!(is_jdk_copy(
            "java/util/Arrays",
            "copyOf",
            "([Ljava/lang/Object;I)[Ljava/lang/Object;"
        ));
        assert!(!is_jdk_copy(
            "java/util/List",
            "copyOf",
            "(Ljava/util/Collection;)Ljava/util/List;"
        ));
    }
}
