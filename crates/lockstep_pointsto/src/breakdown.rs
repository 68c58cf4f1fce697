//! Where the points-to facts of a run go, by package: the debug breakdown
//! behind `--stats`' "points-to by package" line, used to choose what the
//! JDK boundary (`lockstep_models::boundary`) should summarise next.
//!
//! A variable's facts belong to the package of its method; an object
//! field's facts to the package of the method that allocated the object
//! (objects made outside the analysed code, constants and stand-ins are
//! counted under `(no method)`); static fields and exception pointers are
//! left out (they belong to no method). Pure function of the result.

use std::collections::BTreeMap;

use lockstep_program::{package_of, MethodId, Program};
use rustc_hash::FxHashMap;

use crate::raw::PtrKind;
use crate::result::PointsToResult;

/// One package's share of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageFacts {
    /// `java/awt`, `org/jgroups/demos`, or `(no method)`.
    pub package: String,
    /// Points-to facts of the variables of the package's methods.
    pub var_facts: u64,
    /// Points-to facts of the fields of objects its methods allocate.
    pub field_facts: u64,
    /// Method contexts of its methods.
    pub method_contexts: usize,
}

impl PackageFacts {
    /// Every fact the package accounts for.
    pub fn facts(&self) -> u64 {
        self.var_facts + self.field_facts
    }
}

/// Label for facts that belong to no method.
const NO_METHOD: &str = "(no method)";

impl PointsToResult {
    /// The facts of this run by package, most facts first (ties by name).
    pub fn facts_by_package(&self, p: &Program) -> Vec<PackageFacts> {
        self.facts_grouped(|m| package_of(&p.class(p.method(m).class).name))
    }

    /// The facts of this run by class (`package` holds the class's
    /// internal name), most facts first (ties by name).
    pub fn facts_by_class(&self, p: &Program) -> Vec<PackageFacts> {
        self.facts_grouped(|m| &p.class(p.method(m).class).name)
    }

    /// The facts of this run summed per group of methods.
    fn facts_grouped<'p>(&self, group: impl Fn(MethodId) -> &'p str) -> Vec<PackageFacts> {
        // Per method first (cheap keys), then per package.
        let mut by_method: FxHashMap<Option<MethodId>, PackageFacts> = FxHashMap::default();
        let contexts = self.method_context_keys();
        for (m, _) in contexts {
            row(&mut by_method, Some(*m)).method_contexts += 1;
        }
        for (kind, facts) in self.pointer_sizes() {
            match kind {
                PtrKind::Var(mc, _) => {
                    let m = contexts.get(mc.index()).map(|&(m, _)| m);
                    row(&mut by_method, m).var_facts += facts;
                }
                PtrKind::Field(o, _) => {
                    let m = self.object_site(*o).and_then(|s| s.location()).map(|l| l.0);
                    row(&mut by_method, m).field_facts += facts;
                }
                PtrKind::Static(_) | PtrKind::Exc | PtrKind::Temp => {}
            }
        }
        let mut by_package: BTreeMap<&str, PackageFacts> = BTreeMap::new();
        for (m, r) in by_method {
            let package = m.map_or(NO_METHOD, &group);
            let total = by_package.entry(package).or_insert_with(empty_row);
            total.var_facts += r.var_facts;
            total.field_facts += r.field_facts;
            total.method_contexts += r.method_contexts;
        }
        let mut out: Vec<PackageFacts> = by_package
            .into_iter()
            .map(|(package, r)| PackageFacts {
                package: package.to_string(),
                ..r
            })
            .collect();
        out.sort_by(|a, b| {
            b.facts()
                .cmp(&a.facts())
                .then_with(|| a.package.cmp(&b.package))
        });
        out
    }
}

/// The row of `m` in `rows`, made empty on first use.
fn row(
    rows: &mut FxHashMap<Option<MethodId>, PackageFacts>,
    m: Option<MethodId>,
) -> &mut PackageFacts {
    rows.entry(m).or_insert_with(empty_row)
}

fn empty_row() -> PackageFacts {
    PackageFacts {
        package: String::new(),
        var_facts: 0,
        field_facts: 0,
        method_contexts: 0,
    }
}
