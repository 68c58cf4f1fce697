//! Source sites as both sides name them, and when two of them are the
//! same place.
//!
//! A static finding names a place by class, method, descriptor and line
//! (`lockstep_report::Location`); a trace by its site table (class in
//! internal form, method, descriptor, line). Both come from the same
//! bytecode, so lambda bodies (`lambda$main$0`), synthetic accessors and
//! constructors carry the same names on both sides. Two places match when
//! class and method are equal, and descriptor and line are equal where
//! both sides have one (a side without a line table matches any line of
//! the method).

use lockstep_report::Location;

/// A place the run executed, in the report's notation (dotted class).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunSite {
    /// Binary class name with dots.
    pub class: String,
    /// JVM method name.
    pub method: String,
    /// JVM method descriptor.
    pub descriptor: String,
    /// Source line, when the class has a line table.
    pub line: Option<u32>,
}

impl RunSite {
    /// The site of a trace's site table.
    pub fn of(site: &lockstep_trace::Site) -> RunSite {
        RunSite {
            class: site.class.replace('/', "."),
            method: site.method.clone(),
            descriptor: site.descriptor.clone(),
            line: site.line,
        }
    }

    /// Whether a static location names this place.
    pub fn matches(&self, location: &Location) -> bool {
        same_place(location, &self.as_location())
    }

    /// The site as a report location (no source file).
    pub fn as_location(&self) -> Location {
        let mut l = Location::in_method(&self.class, &self.method, &self.descriptor);
        l.line = self.line;
        l
    }
}

/// Whether two report locations are the same place (the rule of the
/// module docs). Locations outside methods never match.
pub fn same_place(a: &Location, b: &Location) -> bool {
    let (Some(ma), Some(mb)) = (&a.method, &b.method) else {
        return false;
    };
    a.class == b.class
        && ma == mb
        && both_or_any(a.descriptor.as_ref(), b.descriptor.as_ref())
        && both_or_any(a.line.as_ref(), b.line.as_ref())
}

fn both_or_any<T: PartialEq>(a: Option<&T>, b: Option<&T>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// `Counter.java:12` when the location has a file, else
/// `pkg.Cls.method:12`: how details name a place.
pub fn place(location: &Location) -> String {
    if location.file.is_some() {
        return location.position();
    }
    match location.line {
        Some(line) => format!("{}:{line}", location.qualified_name()),
        None => location.qualified_name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(line: Option<u32>) -> Location {
        let mut l = Location::in_method("p.C", "m", "()V");
        l.line = line;
        l
    }

    #[test]
    fn lines_match_when_both_sides_have_one() {
        assert!(same_place(&loc(Some(3)), &loc(Some(3))));
        assert!(!same_place(&loc(Some(3)), &loc(Some(4))));
        assert!(same_place(&loc(None), &loc(Some(4))));
    }

    #[test]
    fn other_methods_and_classes_do_not_match() {
        let other = Location::in_method("p.C", "n", "()V");
        assert!(!same_place(&loc(None), &other));
        let class_only = Location::in_class("p.C");
        assert!(!same_place(&class_only, &class_only));
    }
}
