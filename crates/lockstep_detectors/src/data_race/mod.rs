//! `data-race`: two threads may access the same memory location at the
//! same time, at least one access writes, and no common lock orders them
//! (paper 002, with object-sensitive points-to, `java.util.concurrent`
//! locks, thread escape and start/join ordering).
//!
//! Work in progress: the pipeline is being assembled.

use lockstep_report::Finding;

use crate::{Context, Detector, RuleMeta};

pub static DATA_RACE: RuleMeta = RuleMeta {
    id: "data-race",
    name: "DataRace",
    summary: "two threads may access a field or array element at the same time, one of them writing, without a common lock",
    default_enabled: false,
    docs: include_str!("docs.md"),
};

/// The detector.
pub struct DataRace;

impl Detector for DataRace {
    fn rules(&self) -> &'static [&'static RuleMeta] {
        static RULES: [&RuleMeta; 1] = [&DATA_RACE];
        &RULES
    }

    fn run(&self, cx: &Context<'_>) -> Vec<Finding> {
        if !cx.is_enabled(&DATA_RACE) {
            return Vec::new();
        }
        Vec::new()
    }
}
