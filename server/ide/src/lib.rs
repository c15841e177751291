//! The features as plain data: turn text (and, when allowed, the environment on disk) into
//! [`Diagnostic`]s with stable codes, evidence and ranked fixes; hovers and symbol explanations.
//!
//! The front door is [`AnalysisHost`]; everything else public is a plain data type it answers
//! with (and `fix`, the typed steps of a fix and their one renderer). No LSP types, no async, no
//! serialization here: front ends (CLI, LSP, Python) convert. `tests/api.rs` lists this surface.

mod analysis;
mod codes;
mod context;
mod diagnostic;
mod envview;
mod evidence;
mod explain;
mod facts;
pub mod fix;
mod host;
mod incidents;
mod kb;
mod machine;
mod memo;
mod scan;
mod sources;
mod symbols;
mod verify;

pub use analysis::Hover;
pub use codes::lint::contradictions;
pub use codes::{CodeDoc, doc as code_doc};
pub use context::Context;
pub use diagnostic::{
    Code, Diagnostic, Explanation, Fix, Nearest, Severity, SourceRef, SymbolReport, SymbolStatus,
};
pub use host::AnalysisHost;
pub use machine::{DescribedMachine, DirEntry, Machine, RealMachine};
pub use memo::{CellSlot, DocumentMemo, shift_slots};
pub use scan::{Fold, Progress, ScanMeta, ScanOptions, ScanOutcome};
pub use verify::{NearestWheel, PrebuiltStatus, PrebuiltWheel, VerifyOutcome, VerifyRequest};
