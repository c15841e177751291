//! The diagnosis data model: stable codes, severities, symbols, evidence and fixes.

use abidoc_syntax::Span;

/// Stable diagnostic codes (see `shared/design/contract.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    AbiMismatch,
    Cxx11AbiMismatch,
    LibstdcxxMismatch,
    GlibcTooOld,
    MissingSharedLibrary,
    ExtensionIncompleteBuild,
    TorchOpsMissing,
    XformersBuiltFor,
    FlashAttnUnavailable,
    MambaFastPath,
    LibcudaNotFound,
    NoCCompiler,
    CudaVersionMismatch,
    CudaHomeMissing,
    BuildIsolation,
    NumpyAbi,
    CudaOom,
    StaleWheelCache,
}

impl Code {
    pub const ALL: [Code; 18] = [
        Code::AbiMismatch,
        Code::Cxx11AbiMismatch,
        Code::LibstdcxxMismatch,
        Code::GlibcTooOld,
        Code::MissingSharedLibrary,
        Code::ExtensionIncompleteBuild,
        Code::TorchOpsMissing,
        Code::XformersBuiltFor,
        Code::FlashAttnUnavailable,
        Code::MambaFastPath,
        Code::LibcudaNotFound,
        Code::NoCCompiler,
        Code::CudaVersionMismatch,
        Code::CudaHomeMissing,
        Code::BuildIsolation,
        Code::NumpyAbi,
        Code::CudaOom,
        Code::StaleWheelCache,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Code::AbiMismatch => "abi-mismatch",
            Code::Cxx11AbiMismatch => "cxx11-abi-mismatch",
            Code::LibstdcxxMismatch => "libstdcxx-mismatch",
            Code::GlibcTooOld => "glibc-too-old",
            Code::MissingSharedLibrary => "missing-shared-library",
            Code::ExtensionIncompleteBuild => "extension-incomplete-build",
            Code::TorchOpsMissing => "torch-ops-missing",
            Code::XformersBuiltFor => "xformers-built-for",
            Code::FlashAttnUnavailable => "flash-attn-unavailable",
            Code::MambaFastPath => "mamba-fast-path",
            Code::LibcudaNotFound => "libcuda-not-found",
            Code::NoCCompiler => "no-c-compiler",
            Code::CudaVersionMismatch => "cuda-version-mismatch",
            Code::CudaHomeMissing => "cuda-home-missing",
            Code::BuildIsolation => "build-isolation",
            Code::NumpyAbi => "numpy-abi",
            Code::CudaOom => "cuda-oom",
            Code::StaleWheelCache => "stale-wheel-cache",
        }
    }

    pub fn parse(s: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

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

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fix {
    pub title: String,
    /// One line on why this fix, and why in this place in the ranking.
    pub reason: String,
    pub preferred: bool,
    /// Argument vectors; never shell strings. Package names are validated before they get here.
    pub commands: Vec<Vec<String>>,
    pub env: Vec<(String, String)>,
    /// The same fix as a notebook cell (`%pip …`, `%env …`, `!…`).
    pub notebook_cell: Option<String>,
    /// False when the fix names something that cannot be checked offline (a wheel URL).
    pub verified: bool,
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
