//! Small helpers shared by detectors: turning program positions into report locations.

use lockstep_ir::StmtId;
use lockstep_program::{MethodId, Program};
use lockstep_report::Location;

pub use lockstep_facts::util::{dotted, line_of};

/// Simple name of a method for messages: `Outer$Inner.name`.
pub fn short_method(program: &Program, m: MethodId) -> String {
    let data = program.method(m);
    let class = &program.class(data.class).name;
    let simple = class.rsplit('/').next().unwrap_or(class);
    format!("{simple}.{}", data.name)
}

/// A report location for a statement of a method (`None`: the method itself).
pub fn location(program: &Program, m: MethodId, stmt: Option<StmtId>) -> Location {
    let data = program.method(m);
    let class = program.class(data.class);
    let mut loc = Location::in_method(
        dotted(&class.name),
        data.name.to_string(),
        data.descriptor.to_string(),
    );
    if let Some(file) = &class.file.source_file {
        loc = loc.with_file(file.to_string());
    }
    if let Some(line) = line_of(program, m, stmt) {
        loc = loc.with_line(line);
    }
    loc
}

/// `File.java:12`, or the class name when the line is unknown.
pub fn position(program: &Program, m: MethodId, stmt: Option<StmtId>) -> String {
    let loc = location(program, m, stmt);
    match (&loc.file, loc.line) {
        (Some(f), Some(l)) => format!("{f}:{l}"),
        (Some(f), None) => f.clone(),
        _ => loc.class.clone(),
    }
}
