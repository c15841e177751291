//! The features as plain data: turn text (and, when allowed, the environment on disk) into
//! [`Diagnostic`]s with stable codes, evidence and ranked fixes; hovers and symbol explanations.
//!
//! No LSP types, no async, no serialization here: front ends (CLI, LSP, Python) convert.

pub mod diagnostic;

pub use diagnostic::{Code, Diagnostic, Fix, Severity, SourceRef, SymbolReport, SymbolStatus};
pub mod analysis;

pub use analysis::{Context, Hover, diagnose_notebook, diagnose_text, hover};
