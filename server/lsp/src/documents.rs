//! Open documents and notebooks: text, version and line index of each, the notebook ↔ cell
//! relation, and what was last published on each URI (for hovers and code actions).

use crate::proto::{self, Range, TextDocumentContentChangeEvent, Uri};
use abidoc_ide::{CellSlot, DocumentMemo};
use abidoc_syntax::LineIndex;
use abidoc_syntax::line_index::LineCol;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What a text document is, which decides how it is diagnosed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    /// Logs, terminal captures, anything else: `diagnose_text`.
    Log,
    /// A `.ipynb` opened as text: `diagnose_notebook` on the raw JSON.
    NotebookJson,
    /// A Python source file: hovers only.
    Python,
    /// A cell of a synced notebook: hovers; diagnostics come from `abidoc/cellOutputs`.
    Cell,
}

impl DocKind {
    pub fn classify(uri: &Uri, language_id: &str, is_cell: bool) -> DocKind {
        if is_cell || uri.scheme().as_str() == "vscode-notebook-cell" {
            return DocKind::Cell;
        }
        let path = uri.path().as_str().to_ascii_lowercase();
        if path.ends_with(".ipynb") || matches!(language_id, "jupyter" | "ipynb") {
            return DocKind::NotebookJson;
        }
        if language_id == "python" || path.ends_with(".py") || path.ends_with(".pyi") {
            return DocKind::Python;
        }
        DocKind::Log
    }
}

/// An immutable view of one document version, cheap to clone into blocking work.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub uri: Uri,
    pub version: i32,
    pub kind: DocKind,
    pub text: Arc<String>,
    pub index: Arc<LineIndex>,
    /// Where the cells of a `.ipynb` opened as text are (`None`: not known, read them all).
    pub slots: Option<Vec<CellSlot>>,
    pub cache: Arc<Mutex<DocumentMemo>>,
}

#[derive(Debug)]
pub struct Document {
    pub version: i32,
    pub kind: DocKind,
    /// Edited in place: a snapshot still held by an analysis is the only reason to copy it.
    pub text: Arc<String>,
    pub index: Arc<LineIndex>,
    pub slots: Option<Vec<CellSlot>>,
    /// What the last analysis read, scanned and diagnosed (one analysis per document at a time).
    pub cache: Arc<Mutex<DocumentMemo>>,
}

impl Document {
    pub fn new(version: i32, kind: DocKind, mut text: String) -> Self {
        // Room for typing: without it the first inserted character reallocates (and copies)
        // the whole text.
        text.reserve_exact(text.len().min(64 * 1024));
        let index = Arc::new(LineIndex::new(&text));
        Self {
            version,
            kind,
            text: Arc::new(text),
            index,
            slots: None,
            cache: Arc::default(),
        }
    }

    /// Applies LSP content changes in order. Ranges are clamped, so a client that is off by a
    /// line cannot make this panic.
    pub fn apply(&mut self, version: i32, changes: Vec<TextDocumentContentChangeEvent>) {
        for change in changes {
            if self.kind == DocKind::NotebookJson
                && let Some(slots) = &mut self.slots
                && !change.range.is_some_and(|range| {
                    let start = offset(&self.index, &self.text, range.start);
                    let end = offset(&self.index, &self.text, range.end);
                    abidoc_ide::shift_slots(slots, start, end, change.text.len())
                })
            {
                self.slots = None;
            }
            match change.range {
                None => {
                    self.text = Arc::new(change.text);
                }
                Some(range) => {
                    let text = Arc::make_mut(&mut self.text);
                    let start = offset(&self.index, text, range.start);
                    let end = offset(&self.index, text, range.end).max(start);
                    text.replace_range(start..end, &change.text);
                }
            }
            self.index = Arc::new(LineIndex::new(&self.text));
        }
        self.version = version;
    }
}

pub fn offset(index: &LineIndex, text: &str, pos: proto::Position) -> usize {
    let mut at = index.offset(
        text,
        LineCol {
            line: pos.line,
            col: pos.character,
        },
    );
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[derive(Debug, Clone)]
pub struct NotebookDoc {
    pub version: i32,
    /// Cell document URIs in notebook order, with whether the cell is code.
    pub cells: Vec<(Uri, bool)>,
}

/// One published diagnosis, kept for hovers and code actions on the same range.
#[derive(Debug, Clone)]
pub struct Entry {
    pub range: Range,
    pub diagnostic: abidoc_ide::Diagnostic,
    /// The proto form as published, echoed in code actions.
    pub published: proto::Diagnostic,
}

#[derive(Debug, Clone, Default)]
pub struct Published {
    pub version: Option<i32>,
    pub entries: Vec<Entry>,
    /// Published from `abidoc/cellOutputs` on a cell URI (fixes become edits of the cell).
    pub from_outputs: bool,
}

#[derive(Debug, Default)]
pub struct Store {
    pub docs: HashMap<Uri, Document>,
    pub notebooks: HashMap<Uri, NotebookDoc>,
    pub cell_notebook: HashMap<Uri, Uri>,
    pub published: HashMap<Uri, Published>,
    /// Bumped on every `abidoc/cellOutputs` for a cell, so an older analysis never overwrites a newer one.
    pub output_generation: HashMap<Uri, u64>,
}

impl Store {
    pub fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        let doc = self.docs.get(uri)?;
        Some(Snapshot {
            uri: uri.clone(),
            version: doc.version,
            kind: doc.kind,
            text: doc.text.clone(),
            index: doc.index.clone(),
            slots: doc.slots.clone(),
            cache: doc.cache.clone(),
        })
    }

    pub fn version(&self, uri: &Uri) -> Option<i32> {
        self.docs.get(uri).map(|d| d.version)
    }

    /// Cell sources of a notebook in order (code cells only).
    pub fn cell_sources(&self, notebook: &Uri) -> Vec<Arc<String>> {
        let Some(nb) = self.notebooks.get(notebook) else {
            return Vec::new();
        };
        nb.cells
            .iter()
            .filter(|(_, code)| *code)
            .filter_map(|(uri, _)| self.docs.get(uri).map(|d| d.text.clone()))
            .collect()
    }

    pub fn cell_index(&self, cell: &Uri) -> Option<(Uri, usize)> {
        let notebook = self.cell_notebook.get(cell)?;
        let index = self
            .notebooks
            .get(notebook)?
            .cells
            .iter()
            .position(|(u, _)| u == cell)?;
        Some((notebook.clone(), index))
    }

    pub fn close(&mut self, uri: &Uri) {
        self.docs.remove(uri);
        self.published.remove(uri);
        self.output_generation.remove(uri);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proto::Position;

    fn change(l0: u32, c0: u32, l1: u32, c1: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l0, c0), Position::new(l1, c1))),
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn incremental_edits_with_utf16_columns_and_bad_ranges() {
        let mut doc = Document::new(1, DocKind::Log, "a𝄞b\nsecond\n".into());
        // After the surrogate pair (2 UTF-16 units) comes `b` at column 3.
        doc.apply(2, vec![change(0, 3, 0, 4, "B"), change(1, 0, 1, 6, "2nd")]);
        assert_eq!(doc.text.as_str(), "a𝄞B\n2nd\n");
        doc.apply(3, vec![change(9, 0, 99, 5, "tail"), change(0, 2, 0, 1, "")]);
        assert_eq!(doc.text.as_str(), "a𝄞B\n2nd\ntail");
        assert_eq!(doc.version, 3);
        assert_eq!(doc.index.line_count(), 3);
    }
}
