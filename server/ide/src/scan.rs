//! Whole-environment scan as diagnoses: every compiled extension that will not load, and why.

use crate::analysis::Context;
use crate::diagnostic::Diagnostic;

pub type Progress = Box<dyn Fn(usize, usize) + Send + Sync>;

#[derive(Default)]
pub struct ScanOptions {
    pub cache_dir: Option<std::path::PathBuf>,
    pub use_cache: bool,
    /// Also report libraries that load fine (as information).
    pub include_ok: bool,
    pub progress: Option<Progress>,
}

#[derive(Debug, Clone, Default)]
pub struct ScanOutcome {
    pub diagnostics: Vec<Diagnostic>,
    /// Problems met while scanning (unreadable files, a corrupted cache).
    pub notes: Vec<String>,
    /// One line: what was scanned and what was found.
    pub summary: String,
}

pub fn scan_diagnostics(ctx: &Context, options: &ScanOptions) -> Result<ScanOutcome, String> {
    crate::envview::scan(ctx, options)
}
