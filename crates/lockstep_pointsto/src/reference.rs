//! Reference solver (placeholder).
