//! The `.ipynb` reader (nbformat 4.x): cell sources and outputs, each with a map into the raw JSON.

use crate::{Parse, span::SourceMap};

#[derive(Debug, Clone, Default)]
pub struct Notebook {
    pub nbformat: Option<u32>,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    Code,
    Markdown,
    Raw,
}

#[derive(Debug, Clone)]
pub struct Cell {
    /// Zero-based position in the notebook.
    pub index: usize,
    pub kind: CellKind,
    pub execution_count: Option<u32>,
    /// The cell's source joined into one text, mapped into the raw JSON.
    pub source: MappedText,
    pub outputs: Vec<Output>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputKind {
    /// `output_type: error` with its `ename` and `evalue`.
    Error { ename: String, evalue: String },
    /// `output_type: stream` (`stdout` or `stderr`).
    Stream { name: String },
    /// `display_data` / `execute_result`: the `text/plain` part.
    Display,
}

#[derive(Debug, Clone)]
pub struct Output {
    pub kind: OutputKind,
    /// The output's text (`traceback` lines joined with `\n`, or `text`), mapped into the raw JSON.
    pub text: MappedText,
}

/// A text decoded from JSON strings, with a map from its offsets to the raw `.ipynb` offsets.
#[derive(Debug, Clone, Default)]
pub struct MappedText {
    pub text: String,
    pub map: SourceMap,
}

/// Parses a notebook. Malformed JSON yields the cells read before the error plus a problem.
pub fn parse(raw: &str) -> Parse<Notebook> {
    let _ = raw;
    Parse::default()
}
