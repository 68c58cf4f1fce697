//! What happens to the report between the detectors and the renderer:
//! suppressions (annotations, config patterns), then the baseline, then
//! writing a new baseline if asked. The one place `check` calls.

use lockstep_program::Program;
use lockstep_report::Report;

use crate::args::CheckArgs;
use crate::{baseline, suppress};

/// Applies suppressions and the baseline to `report`, and writes the
/// baseline file if `--write-baseline` asks for one.
pub fn apply(report: &mut Report, program: &Program, args: &CheckArgs) -> Result<(), String> {
    suppress::apply(report, program, &args.file_settings.suppress);
    if let Some(path) = &args.write_baseline {
        std::fs::write(path, baseline::render(report))
            .map_err(|e| format!("cannot write the baseline {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.baseline {
        let known = baseline::read(path)?;
        baseline::apply(report, &known, path);
    }
    report.normalize();
    Ok(())
}
