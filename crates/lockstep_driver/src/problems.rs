//! Problems the program model met (classes that failed to lower, missing
//! super types), as input problems of the report. Missing classes are
//! grouped by the missing class: one absent jar explains many classes.

use std::collections::BTreeMap;
use std::sync::Arc;

use lockstep_report::InputProblem;

use crate::load::{program_problem, Workspace};

impl Workspace {
    /// Missing super types with the number of distinct application
    /// classes that need each (JDK types excluded without a JDK).
    pub(crate) fn missing_classes(&self) -> BTreeMap<Arc<str>, Vec<String>> {
        let mut missing: BTreeMap<Arc<str>, Vec<String>> = BTreeMap::new();
        for p in self.program.problems() {
            if let Some(class) = &p.missing_class {
                if !(self.jdk.is_none() && lockstep_models::is_jdk_class(class)) {
                    missing
                        .entry(class.clone())
                        .or_default()
                        .push(p.origin.clone());
                }
            }
        }
        missing
    }

    /// The program model's problems, missing classes grouped.
    pub(crate) fn program_problems(&self) -> Vec<InputProblem> {
        let mut out = Vec::new();
        for p in self.program.problems() {
            if p.missing_class.is_some() {
                continue;
            }
            let message = match &p.method {
                Some(m) => format!("{m}: {}", p.message),
                None => p.message.clone(),
            };
            out.push(program_problem(&self.origins, &p.origin, message));
        }
        for (class, needed_by) in &self.missing_classes() {
            let first = needed_by.first().cloned().unwrap_or_default();
            out.push(
                program_problem(
                    &self.origins,
                    &first,
                    missing_class_message(class, needed_by.len()),
                )
                .missing_class(),
            );
        }
        out
    }
}

fn missing_class_message(class: &str, needed_by: usize) -> String {
    let who = if needed_by == 1 {
        "1 class extends or implements it".to_string()
    } else {
        format!("{needed_by} classes extend or implement it")
    };
    format!(
        "{} is not on the class path ({who}); add the jar that defines it with -cp",
        class.replace('/', ".")
    )
}
