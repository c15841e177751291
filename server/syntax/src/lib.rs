//! Parsers for the text users see: tracebacks, terminal captures, pip/uv build logs and notebooks.
//!
//! Text in, [`Event`]s with byte spans into the original text out. Parsers never fail: they return
//! what they understood together with a list of [`Problem`]s. Nothing here touches the filesystem.

pub mod clean;
pub mod events;
pub mod line_index;
pub mod notebook;
pub mod pip;
pub mod scan;
pub mod span;

pub use events::{CompileCause, DllFailure, Event, EventKind, GpuArchForm};
pub use line_index::LineIndex;
pub use scan::scan;
pub use span::{SourceMap, Span};

/// Something a parser could not understand, with where it happened when that is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub span: Option<Span>,
    pub message: String,
}

impl Problem {
    pub fn new(span: Option<Span>, message: impl Into<String>) -> Self {
        Self {
            span,
            message: message.into(),
        }
    }
}

/// What a parser understood plus what it could not: parsers return this instead of `Result`.
#[derive(Debug, Clone, Default)]
pub struct Parse<T> {
    pub value: T,
    pub problems: Vec<Problem>,
}
