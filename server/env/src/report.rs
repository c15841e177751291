//! What a check of one library reports, as plain data: the libraries it needs, the symbols and
//! versions that did not resolve, the torch it was built for, the findings and the verdict. A
//! leaf, so the environment can keep reports and every module can read them.

use crate::classify::SymbolStatus;
use crate::dist::BuildLabel;
use crate::loader::FoundVia;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Information,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The real loader would load it.
    Loads,
    /// `import` would fail.
    Fails,
    /// It would fail, but it is an optional backend or needs hardware that is absent: the package
    /// still imports with a feature missing.
    Degraded,
    /// The file could not be read as a shared library.
    Unreadable,
}

impl Verdict {
    /// The verdict of a library that would fail to load (`fails`), or load with a feature
    /// missing (`degraded`), or neither.
    pub fn of(fails: bool, degraded: bool) -> Verdict {
        if fails {
            Verdict::Fails
        } else if degraded {
            Verdict::Degraded
        } else {
            Verdict::Loads
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeededLib {
    pub name: String,
    pub needed_by: PathBuf,
    pub found: Option<PathBuf>,
    pub via: Option<FoundVia>,
    /// Directories searched when not found.
    pub searched: Vec<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolCheck {
    pub mangled: String,
    pub demangled: Option<String>,
    /// The object whose relocation needs it.
    pub needed_by: PathBuf,
    pub status: SymbolStatus,
    /// Required symbol version (`GLIBCXX_3.4.30`), when versioned.
    pub version: Option<String>,
    /// Nearest exported variant (mangled) and the library exporting it.
    pub nearest: Option<String>,
    pub nearest_demangled: Option<String>,
    pub nearest_in: Option<PathBuf>,
    /// How the nearest variant differs (from `abidoc-elf`'s classifier).
    pub difference: String,
    /// No torch/system library exports anything like it and its namespace is the extension's own.
    pub own_package: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionCheck {
    /// SONAME the version is required from (`libstdc++.so.6`).
    pub file: String,
    pub version: String,
    pub needed_by: PathBuf,
    /// The object that was picked for `file`.
    pub provider: Option<PathBuf>,
    pub ok: bool,
    /// Other files with that SONAME in the environment or system that do define the version.
    pub alternatives: Vec<PathBuf>,
}

/// The torch a package was built for, and where that was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuiltFor {
    pub torch: String,
    /// `requires-dist`, `wheel-label`, `xformers-cpp-lib`, `deepspeed`.
    pub source: String,
}

/// Facts behind one finding, for `abidoc-ide` to phrase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FindingFacts {
    MissingLibrary {
        name: String,
        needed_by: PathBuf,
        searched: Vec<PathBuf>,
    },
    UndefinedSymbols {
        symbols: Vec<SymbolCheck>,
    },
    IncompleteBuild {
        symbols: Vec<SymbolCheck>,
    },
    VersionMissing {
        check: VersionCheck,
    },
    TorchPin {
        required: String,
        installed: String,
    },
    CudaMismatch {
        package_cuda: String,
        torch_cuda: String,
        refuses_import: bool,
    },
    XformersBuild {
        built_torch: Option<String>,
        built_python: Option<String>,
        built_cuda: Option<String>,
        torch: Option<String>,
        python: Option<String>,
    },
    Unreadable {
        message: String,
    },
    /// The object asks for an executable stack and this machine's glibc (2.41 or later) refuses
    /// to `dlopen` it.
    ExecutableStack {
        object: PathBuf,
    },
    /// The library is built for another CPU architecture than this machine's (`64-bit AArch64`
    /// on `64-bit x86-64`): no process here loads it.
    WrongArchitecture {
        have: String,
        need: String,
    },
    /// The library loads, but its CUDA fat binary has no code this GPU runs (no cubin of its
    /// major at or below its minor, no PTX at or below it): its first kernel launch fails.
    GpuCodeMissing {
        /// The GPU as named (`NVIDIA GeForce RTX 5090`, or `sm_120` when given as a capability).
        gpu: String,
        capability: (u32, u32),
        /// What the library carries (`sm_80 sm_90 + PTX compute_90`).
        carries: String,
    },
}

impl FindingFacts {
    /// What kind of finding this is, for people and test snapshots; the diagnosis (and its
    /// code) is `abidoc-ide`'s to decide from the facts.
    pub const fn kind(&self) -> &'static str {
        match self {
            FindingFacts::MissingLibrary { .. } => "missing-library",
            FindingFacts::UndefinedSymbols { .. } => "undefined-symbols",
            FindingFacts::IncompleteBuild { .. } => "incomplete-build",
            FindingFacts::VersionMissing { .. } => "version-missing",
            FindingFacts::TorchPin { .. } => "torch-pin",
            FindingFacts::CudaMismatch { .. } => "cuda-mismatch",
            FindingFacts::XformersBuild { .. } => "xformers-build",
            FindingFacts::Unreadable { .. } => "unreadable",
            FindingFacts::WrongArchitecture { .. } => "wrong-architecture",
            FindingFacts::ExecutableStack { .. } => "executable-stack",
            FindingFacts::GpuCodeMissing { .. } => "gpu-code-missing",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub severity: Severity,
    pub package: Option<String>,
    pub package_version: Option<String>,
    pub library: Option<PathBuf>,
    /// Why an error was lowered to information (optional backend, no NVIDIA driver).
    pub downgraded: Option<String>,
    /// Lowered because an `import` never meets it (see the `context` module): no fix applies.
    #[serde(default)]
    pub moot: bool,
    pub facts: FindingFacts,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryReport {
    pub path: PathBuf,
    pub package: Option<String>,
    pub package_version: Option<String>,
    pub built_for: Option<BuiltFor>,
    pub label: Option<BuildLabel>,
    pub needed: Vec<NeededLib>,
    /// Undefined non-weak symbols that did not resolve, with their status.
    pub symbols: Vec<SymbolCheck>,
    /// How many undefined symbols resolved, per providing object.
    pub resolved_by: BTreeMap<PathBuf, usize>,
    pub versions: Vec<VersionCheck>,
    pub findings: Vec<Finding>,
    pub verdict: Verdict,
    pub error: Option<String>,
}
