//! The features as plain data: turn text (and, when allowed, the environment on disk) into
//! [`Diagnostic`]s with stable codes, evidence and ranked fixes; hovers and symbol explanations.
//!
//! No LSP types, no async, no serialization here: front ends (CLI, LSP, Python) convert.

pub mod analysis;
pub mod codes;
mod context;
pub mod diagnose;
pub mod diagnostic;
mod envview;
pub mod evidence;
pub mod explain;
mod facts;
pub mod fix;
pub mod incidents;
pub mod kb;
pub mod scan;
pub mod symbols;

pub use analysis::{Context, Hover, diagnose_notebook, diagnose_text, frame_paths, hover};
pub use diagnostic::{Code, Diagnostic, Fix, Severity, SourceRef, SymbolReport, SymbolStatus};
pub use explain::{Explanation, Nearest, explain_symbol};
pub use scan::{Fold, ScanMeta, ScanOptions, ScanOutcome, scan_diagnostics};
