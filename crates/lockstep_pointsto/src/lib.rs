//! Points-to analysis for lockstep (work in progress).
