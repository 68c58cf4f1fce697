//! Atomicities (paper 004 §2.3, after Flanagan and Qadeer): the basic
//! lattice `const ⊑ mover ⊑ atomic ⊑ cmpd ⊑ error`, conditional
//! atomicities `l ? a : b`, and the five operations the typing rules use:
//! sequential composition, iterative closure, join, `S(l, a)` (Fig. 5) and
//! `simplify` (a lock known to be held, such as `thisThread`).
//!
//! A conditional atomicity is a function from the set of locks held to a
//! basic atomicity, and every operation is the pointwise extension of its
//! basic form (the paper's rules for conditionals say exactly that). So an
//! [`Atomicity`] is stored as that function: the lock variables it depends
//! on (sorted, at most [`MAX_VARS`]) and one basic atomicity per subset of
//! them. The form is canonical (variables the table does not depend on are
//! dropped), so equality is structural and the lattice order is pointwise.
//!
//! Keeping the number of lock variables finite is what makes the fixed
//! point of §5 terminate: a variable beyond the cap is evaluated as "not
//! held", which can only raise an atomicity (every atomicity built here is
//! antitone in the locks held), so the result stays sound.

use std::fmt;

/// Most lock variables one atomicity depends on.
pub const MAX_VARS: usize = 6;

/// A basic atomicity, in lattice order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Basic {
    /// Depends on and changes no mutable state.
    Const,
    /// Commutes both ways with every operation of another thread.
    Mover,
    /// Equivalent to running without interleaving (`R* N? L*`).
    Atomic,
    /// None of the above: another thread can run in the middle.
    Cmpd,
    /// Violates the locking discipline its guards state.
    Error,
}

impl Basic {
    pub fn join(self, other: Basic) -> Basic {
        self.max(other)
    }

    /// `a; b`: two atomic steps in a row are compound, otherwise the join.
    pub fn seq(self, other: Basic) -> Basic {
        if self == Basic::Atomic && other == Basic::Atomic {
            Basic::Cmpd
        } else {
            self.join(other)
        }
    }

    /// `a*`: repeating an atomic step is compound.
    pub fn star(self) -> Basic {
        if self == Basic::Atomic {
            Basic::Cmpd
        } else {
            self
        }
    }

    /// `S(l, α)` evaluated where `l` is (or is not) held before the block:
    /// a reentrant acquire is no step at all; otherwise acquire and release
    /// wrap the body, which leaves at most one atomic step.
    fn sync(self, held_before: bool) -> Basic {
        if held_before {
            self
        } else {
            self.join(Basic::Atomic)
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Basic::Const => "const",
            Basic::Mover => "mover",
            Basic::Atomic => "atomic",
            Basic::Cmpd => "cmpd",
            Basic::Error => "error",
        }
    }

    /// At most `atomic`: the code runs as one step.
    pub fn is_atomic(self) -> bool {
        self <= Basic::Atomic
    }
}

impl fmt::Display for Basic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A (possibly conditional) atomicity over lock variables of type `V`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Atomicity<V> {
    /// Sorted, distinct, each one relevant to the table.
    vars: Vec<V>,
    /// Indexed by held-set bitmask over `vars` (bit i = `vars[i]` held).
    table: Vec<Basic>,
}

/// What a lock variable becomes under a substitution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subst<W> {
    /// Known to be held (the paper's `thisThread`, or held at a call site).
    Held,
    /// Known not to be held, or not expressible where the result lives.
    NotHeld,
    /// Another lock variable.
    Var(W),
}

impl<V: Ord + Clone> Atomicity<V> {
    pub fn basic(b: Basic) -> Self {
        Atomicity {
            vars: Vec::new(),
            table: vec![b],
        }
    }

    pub fn constant() -> Self {
        Self::basic(Basic::Const)
    }

    /// From a table indexed by held-set bitmask over `vars` (sorted,
    /// distinct, at most [`MAX_VARS`]); a malformed table is `error`.
    pub fn from_table(vars: Vec<V>, table: Vec<Basic>) -> Self {
        let sorted = vars.windows(2).all(|w| w[0] < w[1]);
        if !sorted || vars.len() > MAX_VARS || table.len() != 1 << vars.len() {
            return Self::basic(Basic::Error);
        }
        Atomicity { vars, table }.reduced()
    }

    pub fn vars(&self) -> &[V] {
        &self.vars
    }

    /// `l ? a : b`.
    pub fn cond(l: V, a: &Self, b: &Self) -> Self {
        let var = Self::var_table(l);
        Self::combine3(
            &var,
            a,
            b,
            |held, x, y| {
                if held == Basic::Const {
                    x
                } else {
                    y
                }
            },
        )
    }

    /// `l ? mover : b` style shorthand for a guarded access.
    pub fn guarded(l: V, if_held: Basic, otherwise: Basic) -> Self {
        Self::cond(l, &Self::basic(if_held), &Self::basic(otherwise))
    }

    /// The indicator of one variable, encoded as `Const` (held) / `Error`.
    fn var_table(l: V) -> Self {
        Atomicity {
            vars: vec![l],
            table: vec![Basic::Error, Basic::Const],
        }
    }

    /// Evaluate with the set of held locks given by `held`.
    pub fn eval(&self, held: impl Fn(&V) -> bool) -> Basic {
        let mut mask = 0usize;
        for (i, v) in self.vars.iter().enumerate() {
            if held(v) {
                mask |= 1 << i;
            }
        }
        self.table.get(mask).copied().unwrap_or(Basic::Error)
    }

    /// The worst value over every held set.
    pub fn worst(&self) -> Basic {
        self.table.iter().copied().max().unwrap_or(Basic::Error)
    }

    pub fn seq(&self, other: &Self) -> Self {
        Self::combine(self, other, Basic::seq)
    }

    pub fn join(&self, other: &Self) -> Self {
        Self::combine(self, other, Basic::join)
    }

    pub fn star(&self) -> Self {
        self.map(Basic::star)
    }

    /// `a ⊑ b`, pointwise.
    pub fn leq(&self, other: &Self) -> bool {
        let j = self.join(other);
        &j == other
    }

    /// `S(l, a)` (Fig. 5): the atomicity of `synchronized (l) { e }` when
    /// `e` has atomicity `a`.
    pub fn sync(&self, l: V) -> Self {
        // Inside the block `l` is held: restrict, then wrap per whether it
        // was held before.
        let inside = self.restrict(&l, true);
        let var = Self::var_table(l);
        Self::combine(&var, &inside, |held, x| x.sync(held == Basic::Const))
    }

    /// `simplify` generalised: `l` is known held (`true`) or not.
    pub fn restrict(&self, l: &V, held: bool) -> Self {
        self.substitute(|v| {
            if v == l {
                if held {
                    Subst::Held
                } else {
                    Subst::NotHeld
                }
            } else {
                Subst::Var(v.clone())
            }
        })
    }

    /// Rename or resolve every variable (a call site instantiating the
    /// callee's locks with the caller's expressions).
    pub fn substitute<W: Ord + Clone>(&self, f: impl Fn(&V) -> Subst<W>) -> Atomicity<W> {
        let mapped: Vec<Subst<W>> = self.vars.iter().map(&f).collect();
        let mut vars: Vec<W> = Vec::new();
        for m in &mapped {
            if let Subst::Var(w) = m {
                if !vars.contains(w) {
                    vars.push(w.clone());
                }
            }
        }
        vars.sort();
        // Beyond the cap, a variable is evaluated as not held (sound: higher).
        let kept: Vec<W> = vars.iter().take(MAX_VARS).cloned().collect();
        let mut table = vec![Basic::Const; 1 << kept.len()];
        for (mask, slot) in table.iter_mut().enumerate() {
            let mut old = 0usize;
            for (i, m) in mapped.iter().enumerate() {
                let on = match m {
                    Subst::Held => true,
                    Subst::NotHeld => false,
                    Subst::Var(w) => kept
                        .iter()
                        .position(|k| k == w)
                        .is_some_and(|p| mask & (1 << p) != 0),
                };
                if on {
                    old |= 1 << i;
                }
            }
            *slot = self.table.get(old).copied().unwrap_or(Basic::Error);
        }
        Atomicity { vars: kept, table }.reduced()
    }

    fn map(&self, f: impl Fn(Basic) -> Basic) -> Self {
        Atomicity {
            vars: self.vars.clone(),
            table: self.table.iter().map(|&b| f(b)).collect(),
        }
        .reduced()
    }

    /// Pointwise combination over the union of both variable sets.
    fn combine(a: &Self, b: &Self, f: impl Fn(Basic, Basic) -> Basic) -> Self {
        let vars = merge_vars(&[&a.vars, &b.vars]);
        let mut table = vec![Basic::Const; 1 << vars.len()];
        for (mask, slot) in table.iter_mut().enumerate() {
            *slot = f(a.at(&vars, mask), b.at(&vars, mask));
        }
        Atomicity { vars, table }.reduced()
    }

    fn combine3(a: &Self, b: &Self, c: &Self, f: impl Fn(Basic, Basic, Basic) -> Basic) -> Self {
        let vars = merge_vars(&[&a.vars, &b.vars, &c.vars]);
        let mut table = vec![Basic::Const; 1 << vars.len()];
        for (mask, slot) in table.iter_mut().enumerate() {
            *slot = f(a.at(&vars, mask), b.at(&vars, mask), c.at(&vars, mask));
        }
        Atomicity { vars, table }.reduced()
    }

    /// The value under `mask` over the variable list `all` (a superset of
    /// this atomicity's variables, or a capped subset: absent = not held).
    fn at(&self, all: &[V], mask: usize) -> Basic {
        let mut own = 0usize;
        for (i, v) in self.vars.iter().enumerate() {
            if let Some(p) = all.iter().position(|x| x == v) {
                if mask & (1 << p) != 0 {
                    own |= 1 << i;
                }
            }
        }
        self.table.get(own).copied().unwrap_or(Basic::Error)
    }

    /// Drop the variables the table does not depend on.
    fn reduced(mut self) -> Self {
        let mut i = 0;
        while i < self.vars.len() {
            let bit = 1 << i;
            let irrelevant = (0..self.table.len())
                .filter(|m| m & bit == 0)
                .all(|m| self.table[m] == self.table[m | bit]);
            if irrelevant {
                let mut table = Vec::with_capacity(self.table.len() / 2);
                for m in 0..self.table.len() {
                    if m & bit == 0 {
                        table.push(self.table[m]);
                    }
                }
                // Masks with bit i clear, in increasing order, are the
                // masks over the remaining variables in order.
                self.vars.remove(i);
                self.table = table;
            } else {
                i += 1;
            }
        }
        self
    }

    /// Render as the paper writes it: `l ? mover : error`, nested.
    pub fn render(&self, name: &impl Fn(&V) -> String) -> String {
        self.render_from(0, 0, name)
    }

    fn render_from(&self, var: usize, mask: usize, name: &impl Fn(&V) -> String) -> String {
        if var == self.vars.len() {
            return self.table[mask].to_string();
        }
        let hi = self.render_from(var + 1, mask | (1 << var), name);
        let lo = self.render_from(var + 1, mask, name);
        if hi == lo {
            return hi;
        }
        let wrap = |s: String| {
            if s.contains('?') {
                format!("({s})")
            } else {
                s
            }
        };
        format!("{} ? {} : {}", name(&self.vars[var]), wrap(hi), wrap(lo))
    }
}

fn merge_vars<V: Ord + Clone>(lists: &[&[V]]) -> Vec<V> {
    let mut vars: Vec<V> = lists.iter().flat_map(|l| l.iter().cloned()).collect();
    vars.sort();
    vars.dedup();
    vars.truncate(MAX_VARS);
    vars
}

#[cfg(test)]
mod tests {
    use super::*;

    type A = Atomicity<&'static str>;

    fn b(x: Basic) -> A {
        A::basic(x)
    }
    fn show(a: &A) -> String {
        a.render(&|v| v.to_string())
    }

    const ALL: [Basic; 5] = [
        Basic::Const,
        Basic::Mover,
        Basic::Atomic,
        Basic::Cmpd,
        Basic::Error,
    ];

    #[test]
    fn basic_composition_follows_the_paper() {
        assert_eq!(Basic::Atomic.seq(Basic::Atomic), Basic::Cmpd);
        assert_eq!(Basic::Mover.seq(Basic::Atomic), Basic::Atomic);
        assert_eq!(Basic::Atomic.seq(Basic::Const), Basic::Atomic);
        assert_eq!(Basic::Cmpd.seq(Basic::Error), Basic::Error);
        assert_eq!(Basic::Atomic.star(), Basic::Cmpd);
        assert_eq!(Basic::Mover.star(), Basic::Mover);
        for x in ALL {
            for y in ALL {
                // Composition never yields less than either part.
                assert!(x.seq(y) >= x.join(y));
            }
        }
    }

    /// Fig. 5, every line.
    #[test]
    fn s_matches_figure_5() {
        assert_eq!(show(&b(Basic::Const).sync("l")), "l ? const : atomic");
        assert_eq!(show(&b(Basic::Mover).sync("l")), "l ? mover : atomic");
        assert_eq!(show(&b(Basic::Atomic).sync("l")), "atomic");
        assert_eq!(show(&b(Basic::Cmpd).sync("l")), "cmpd");
        assert_eq!(show(&b(Basic::Error).sync("l")), "error");
        // S(l, l ? a : b) = S(l, a)
        let guarded = A::guarded("l", Basic::Mover, Basic::Error);
        assert_eq!(guarded.sync("l"), b(Basic::Mover).sync("l"));
        // S(l, l1 ? a : b) = l1 ? S(l, a) : S(l, b)
        let other = A::guarded("m", Basic::Mover, Basic::Error);
        let expected = A::cond("m", &b(Basic::Mover).sync("l"), &b(Basic::Error).sync("l"));
        assert_eq!(other.sync("l"), expected);
    }

    #[test]
    fn conditional_composition_is_pointwise() {
        let a = A::guarded("l", Basic::Mover, Basic::Atomic);
        // (l ? mover : atomic); atomic = l ? atomic : cmpd
        assert_eq!(show(&a.seq(&b(Basic::Atomic))), "l ? atomic : cmpd");
        // (l ? a : b)* = l ? a* : b*
        assert_eq!(show(&a.star()), "l ? mover : cmpd");
        // α; (l ? b1 : b2) = l ? (α; b1) : (α; b2)
        assert_eq!(show(&b(Basic::Atomic).seq(&a)), "l ? atomic : cmpd");
        // join
        let c = A::guarded("m", Basic::Const, Basic::Cmpd);
        let j = a.join(&c);
        for (l, m) in [(false, false), (false, true), (true, false), (true, true)] {
            let held = |v: &&str| (*v == "l" && l) || (*v == "m" && m);
            assert_eq!(j.eval(held), a.eval(held).join(c.eval(held)));
        }
    }

    #[test]
    fn simplify_and_substitution() {
        let a = A::guarded("this", Basic::Mover, Basic::Error);
        // `thisThread` is always held.
        assert_eq!(a.restrict(&"this", true), b(Basic::Mover));
        assert_eq!(a.restrict(&"this", false), b(Basic::Error));
        let renamed: Atomicity<&str> = a.substitute(|_| Subst::Var("src"));
        assert_eq!(show(&renamed), "src ? mover : error");
        // A condition that does not matter is dropped.
        assert_eq!(
            A::cond("l", &b(Basic::Atomic), &b(Basic::Atomic)),
            b(Basic::Atomic)
        );
    }

    #[test]
    fn order_is_pointwise_and_evaluation_is_antitone() {
        let a = A::guarded("l", Basic::Mover, Basic::Error);
        assert!(b(Basic::Mover).leq(&a));
        assert!(a.leq(&b(Basic::Error)));
        assert!(!a.leq(&b(Basic::Atomic)));
        let s = a
            .seq(&A::guarded("m", Basic::Mover, Basic::Atomic))
            .sync("k");
        for mask in 0..8usize {
            let held = |v: &&str| match *v {
                "k" => mask & 1 != 0,
                "l" => mask & 2 != 0,
                _ => mask & 4 != 0,
            };
            let more = |v: &&str| held(v) || *v == "l";
            assert!(s.eval(more) <= s.eval(held));
        }
    }

    #[test]
    fn variables_beyond_the_cap_count_as_not_held() {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let mut acc = b(Basic::Const);
        for n in names {
            acc = acc.seq(&A::guarded(n, Basic::Mover, Basic::Atomic));
        }
        assert!(acc.vars().len() <= MAX_VARS);
        // With every lock held, the dropped ones still count as not held.
        assert_eq!(acc.eval(|_| true), Basic::Cmpd);
        assert_eq!(acc.eval(|_| false), Basic::Cmpd);
    }
}
