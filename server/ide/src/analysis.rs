//! Entry points: diagnose a text or a notebook, hover at an offset. Front ends call only these.

use crate::Diagnostic;
use abidoc_syntax::Span;

/// What the analysis may look at besides the text.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// When false (`--no-env`), nothing beyond the text is read from disk.
    pub use_env: bool,
    /// `--python EXE`: the interpreter whose environment to read.
    pub python: Option<std::path::PathBuf>,
    /// `--site-packages DIR` (repeatable): explicit site-packages directories.
    pub site_packages: Vec<std::path::PathBuf>,
    /// Extra directories searched for libraries (like `LD_LIBRARY_PATH`).
    pub library_paths: Vec<std::path::PathBuf>,
    /// A model id known from elsewhere (notebook cell sources synced by an editor).
    pub model_hint: Option<String>,
    /// Codes the user turned off.
    pub disabled_codes: Vec<crate::Code>,
}

/// Hover content in Markdown, with the span of the text it explains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    pub span: Span,
    pub markdown: String,
}

/// Diagnoses a log, traceback or terminal capture. Spans are byte offsets into `text`.
pub fn diagnose_text(text: &str, ctx: &Context) -> Vec<Diagnostic> {
    let _ = (text, ctx);
    Vec::new()
}

/// Diagnoses a raw `.ipynb` text: spans are byte offsets into `raw`, with `source.cell` set.
pub fn diagnose_notebook(raw: &str, ctx: &Context) -> Vec<Diagnostic> {
    let _ = (raw, ctx);
    Vec::new()
}

/// Hover at byte `offset` of `text`: a mangled symbol, a library path, or a diagnosed range.
pub fn hover(text: &str, offset: usize, ctx: &Context) -> Option<Hover> {
    let _ = (text, offset, ctx);
    None
}
