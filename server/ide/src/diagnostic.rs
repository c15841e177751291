//! The diagnosis data model: stable codes, severities, symbols, evidence and fixes.

use abidoc_syntax::Span;

pub use crate::codes::id::Code;
pub use crate::fix::Fix;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Information,
}

impl Severity {
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
        }
    }
}

/// Status of one symbol, as the contract's `symbols[].status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolStatus {
    Missing,
    SignatureChanged,
    Cxx11Abi,
    Removed,
    VersionMissing,
    Resolved,
}

impl SymbolStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            SymbolStatus::Missing => "missing",
            SymbolStatus::SignatureChanged => "signature-changed",
            SymbolStatus::Cxx11Abi => "cxx11-abi",
            SymbolStatus::Removed => "removed",
            SymbolStatus::VersionMissing => "version-missing",
            SymbolStatus::Resolved => "resolved",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolReport {
    pub mangled: String,
    pub demangled: Option<String>,
    pub status: SymbolStatus,
    /// The closest exported variant, demangled, when one exists.
    pub nearest: Option<String>,
}

/// Where in the input a diagnosis was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRef {
    /// Byte span in the input as given (for notebooks: the raw `.ipynb` text).
    pub span: Span,
    /// Zero-based notebook cell, for notebooks.
    pub cell: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    /// What failed and why, in one or two sentences.
    pub message: String,
    /// The primary location; `None` for environment-scan findings.
    pub source: Option<SourceRef>,
    /// Every other place the same failure appears (repeated lines).
    pub related: Vec<SourceRef>,
    pub package: Option<String>,
    pub library: Option<String>,
    pub symbols: Vec<SymbolReport>,
    pub evidence: Vec<String>,
    /// Longer plain-words explanation used by hovers and the human renderer.
    pub explanation: Option<String>,
    pub fixes: Vec<Fix>,
}

/// The nearest exported variant of a symbol, in an [`Explanation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nearest {
    pub mangled: String,
    pub demangled: String,
    pub library: String,
    pub difference: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// As given by the user.
    pub input: String,
    pub mangled: Option<String>,
    pub demangled: Option<String>,
    /// Where the symbol should come from: `torch`, `libstdc++`, `python`, `the extension itself`.
    pub owner: &'static str,
    pub abi: Option<&'static str>,
    /// Libraries in the environment that export it.
    pub exported_by: Vec<String>,
    pub nearest: Vec<Nearest>,
    /// Lines from the offline torch symbol index.
    pub history: Vec<String>,
    pub notes: Vec<String>,
}
