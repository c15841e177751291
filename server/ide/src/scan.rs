//! Whole-environment scan as diagnoses: every compiled extension that will not load, and why,
//! each finding phrased by the module of its code, as `check` phrases the same failure.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use abidoc_env::Environment;
use abidoc_env::check::{Finding, FindingFacts, LibraryReport};
use abidoc_env::classify::SymbolStatus as EnvStatus;

use crate::context::Context;
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::envview::{EnvView, Environments, spec_for};
use crate::evidence::World;
use crate::incidents::{Failure, Incident, Scene};

pub type Progress = Box<dyn Fn(usize, usize) + Send + Sync>;

#[derive(Default)]
pub struct ScanOptions {
    pub cache_dir: Option<std::path::PathBuf>,
    pub use_cache: bool,
    /// Also report libraries that load fine (as information).
    pub include_ok: bool,
    pub progress: Option<Progress>,
}

/// Why a scan diagnostic is only information, for a front end that shows errors and warnings
/// and folds the rest into a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fold {
    /// An error or a warning: shown.
    Shown,
    /// The library cannot load on its own, but no import loads it that way (a library loaded by
    /// others, a backend the import does not pick).
    NoImport,
    /// An optional backend or transport, or a library of hardware this machine lacks: its
    /// package imports without it.
    Optional,
    /// A library that loads (`include_ok`).
    Loads,
    /// Any other information.
    Note,
}

impl Fold {
    /// The stable name in the JSON contract (`fold` of a scan diagnostic, `docs/contract.md`).
    pub fn as_str(self) -> &'static str {
        match self {
            Fold::Shown => "shown",
            Fold::NoImport => "no-import",
            Fold::Optional => "optional",
            Fold::Loads => "loads",
            Fold::Note => "note",
        }
    }
}

/// What a front end needs about one scan diagnostic beyond the diagnosis itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanMeta {
    pub fold: Fold,
    /// The version of the distribution owning the library.
    pub package_version: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct ScanOutcome {
    pub diagnostics: Vec<Diagnostic>,
    /// One per diagnostic, in the same order (a caller that drops diagnostics drops these too).
    pub meta: Vec<ScanMeta>,
    /// Problems met while scanning (unreadable files, a corrupted cache).
    pub notes: Vec<String>,
    /// One line: what was scanned and what was found.
    pub summary: String,
}

/// Scans the environment and phrases every finding as a diagnosis, with the same messages and
/// fixes `check` gives for the same failure.
pub(crate) fn scan(
    ctx: &Context,
    options: &ScanOptions,
    envs: &Environments,
) -> Result<ScanOutcome, String> {
    let mut forced = ctx.clone();
    forced.use_env = true;
    let spec = spec_for(&forced, &[]);
    let env = Arc::new(Environment::open(&spec));
    if env.layout.site_packages.is_empty() {
        // What was tried and skipped (a wrapper script on PATH …) tells the user what to pass.
        let tried: Vec<String> = env
            .problems
            .iter()
            .map(ToString::to_string)
            .filter(|p| !p.starts_with("no Python environment named"))
            .collect();
        let tried = if tried.is_empty() {
            String::new()
        } else {
            format!(" ({})", tried.join("; "))
        };
        return Err(format!(
            "no Python environment found{tried}: pass --python EXE or --site-packages DIR, or activate a virtualenv"
        ));
    }
    let cache_dir = if options.use_cache {
        options.cache_dir.clone().or_else(|| {
            abidoc_env::scan::ScanOptions::default_cache_dir(
                std::env::var_os("XDG_CACHE_HOME")
                    .map(PathBuf::from)
                    .as_deref(),
                std::env::var_os("HOME").map(PathBuf::from).as_deref(),
            )
        })
    } else {
        None
    };
    let env_options = abidoc_env::scan::ScanOptions {
        cache_dir,
        include_stray: true,
    };
    let noop = |_: usize, _: usize| {};
    let progress: &(dyn Fn(usize, usize) + Sync) = match &options.progress {
        Some(p) => p.as_ref(),
        None => &noop,
    };
    let report = abidoc_env::scan::scan(&env, &env_options, progress);
    let view = EnvView::explicit(env.clone(), envs);
    let world = World::with_env(&forced, envs, view);
    let mut diagnostics = Vec::new();
    let mut meta = Vec::new();
    for f in report.findings() {
        if let Some(d) = finding_diagnostic(f, &world) {
            let fold = match d.severity {
                Severity::Error | Severity::Warning => Fold::Shown,
                _ if f.moot => Fold::NoImport,
                _ if f.downgraded.is_some() => Fold::Optional,
                _ => Fold::Note,
            };
            meta.push(ScanMeta {
                fold,
                package_version: f.package_version.clone(),
            });
            diagnostics.push(d);
        }
    }
    if options.include_ok {
        for l in report.libraries.iter().filter(|l| l.findings.is_empty()) {
            meta.push(ScanMeta {
                fold: Fold::Loads,
                package_version: l.package_version.clone(),
            });
            diagnostics.push(ok_diagnostic(l));
        }
    }
    let notes = report
        .problems
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    let torch = report
        .torch_version
        .as_deref()
        .map(|t| format!(", torch {t}"))
        .unwrap_or_default();
    let summary = format!(
        "scanned {} libraries in {}{}{torch}: {} will fail to load ({errors} error(s)), {warnings} warning(s); {} from cache",
        report.stats.libraries,
        report
            .site_packages
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        found_how(&env.layout),
        report
            .libraries
            .iter()
            .filter(|l| l.verdict == abidoc_env::check::Verdict::Fails)
            .count(),
        report.stats.from_cache
    );
    Ok(ScanOutcome {
        diagnostics,
        meta,
        notes,
        summary,
    })
}

/// How the environment was found, when the user did not name it: ` (python3 on PATH: …)`.
fn found_how(layout: &abidoc_env::site::Layout) -> String {
    use abidoc_env::site::Origin;
    let exe = layout
        .interpreter
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    match layout.origin {
        Origin::PathLookup => {
            let found = layout.found_as.as_deref().unwrap_or(Path::new(""));
            let name = found
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("python3");
            if exe.is_empty() || Path::new(&exe) == found {
                format!(" ({name} on PATH: {})", found.display())
            } else {
                format!(" ({name} on PATH: {} → {exe})", found.display())
            }
        }
        Origin::VirtualEnv => " (the active virtualenv, $VIRTUAL_ENV)".into(),
        Origin::Conda => " (the active conda environment, $CONDA_PREFIX)".into(),
        _ => String::new(),
    }
}

fn ok_diagnostic(l: &LibraryReport) -> Diagnostic {
    Diagnostic {
        code: Code::AbiMismatch,
        severity: Severity::Information,
        message: format!(
            "{} loads: every needed library and symbol resolves",
            l.path.display()
        ),
        source: None,
        related: Vec::new(),
        package: l.package.clone(),
        library: Some(l.path.display().to_string()),
        symbols: Vec::new(),
        evidence: Vec::new(),
        explanation: None,
        fixes: Vec::new(),
    }
}

pub(crate) fn finding_diagnostic(f: &Finding, world: &World<'_>) -> Option<Diagnostic> {
    let lib = f.library.as_ref().map(|p| p.display().to_string());
    let failure = match &f.facts {
        FindingFacts::UndefinedSymbols { symbols } | FindingFacts::IncompleteBuild { symbols } => {
            let first = symbols.iter().find(|s| s.status != EnvStatus::Resolved)?;
            Failure::UndefinedSymbol {
                library: lib.clone(),
                symbol: first.mangled.clone(),
                truncated: false,
                version_of: None,
            }
        }
        FindingFacts::MissingLibrary {
            name, needed_by, ..
        } => Failure::MissingLibrary {
            name: name.clone(),
            required_by: Some(needed_by.display().to_string()),
        },
        FindingFacts::VersionMissing { check } => Failure::VersionNotFound {
            library: check
                .provider
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| check.file.clone()),
            version: check.version.clone(),
            required_by: Some(check.needed_by.display().to_string()),
        },
        FindingFacts::XformersBuild {
            built_torch,
            built_python,
            built_cuda,
            torch,
            python,
        } => Failure::XformersBuiltFor {
            built_torch: built_torch.clone(),
            have_torch: torch.clone(),
            built_cuda: built_cuda.clone(),
            built_python: built_python.clone(),
            have_python: python.clone(),
        },
        FindingFacts::TorchPin {
            required,
            installed,
        } => {
            let mut d = plain(f, Code::AbiMismatch, String::new());
            crate::codes::abi_mismatch::from_pin(
                &cx(world),
                &mut d,
                f.package_version.as_deref(),
                required,
                installed,
            );
            return Some(d);
        }
        FindingFacts::CudaMismatch {
            package_cuda,
            torch_cuda,
            refuses_import,
        } => {
            let mut d = plain(f, Code::CudaVersionMismatch, String::new());
            crate::codes::cuda_version_mismatch::from_env(
                &cx(world),
                &mut d,
                package_cuda,
                torch_cuda,
                *refuses_import,
            );
            return Some(d);
        }
        FindingFacts::GpuCodeMissing {
            gpu,
            capability,
            carries,
        } => {
            let mut d = plain(f, Code::GpuArchMissing, String::new());
            crate::codes::gpu_arch_missing::from_env(&cx(world), &mut d, gpu, *capability, carries);
            return Some(d);
        }
        FindingFacts::ExecutableStack { object } => Failure::ExecutableStack {
            library: Some(object.display().to_string()),
        },
        FindingFacts::WrongArchitecture { have, need } => Failure::WrongArchitecture {
            library: lib.clone(),
            have: Some(have.clone()),
            need: Some(need.clone()),
            detail: format!(
                "{} is built for {have}; this machine is {need}",
                lib.as_deref().unwrap_or("the library")
            ),
            on_disk: true,
        },
        FindingFacts::Unreadable { message } => {
            let mut d = plain(
                f,
                Code::AbiMismatch,
                format!(
                    "could not read {}: {message}",
                    lib.as_deref().unwrap_or("a library")
                ),
            );
            d.severity = Severity::Information;
            return Some(d);
        }
    };
    let inc = Incident {
        failure,
        primary: abidoc_syntax::Span::new(0, 0),
        related: Vec::new(),
    };
    let scene = Scene::default();
    let mut d = crate::codes::diagnose(&inc, &scene, world, &|span| {
        crate::diagnostic::SourceRef { span, cell: None }
    })?;
    d.source = None;
    d.severity = match f.severity {
        abidoc_env::check::Severity::Error => Severity::Error,
        abidoc_env::check::Severity::Warning => Severity::Warning,
        abidoc_env::check::Severity::Information => Severity::Information,
    };
    if let Some(why) = &f.downgraded {
        d.evidence.insert(0, format!("information only: {why}"));
    }
    if f.moot {
        // An import never meets this failure: nothing to install, rebuild or point anywhere.
        d.fixes.clear();
    }
    if d.package.is_none() {
        d.package = f.package.clone();
    }
    // The scan's typed facts are authoritative where they are more specific than the text's view.
    if let FindingFacts::IncompleteBuild { .. } = &f.facts {
        d.code = Code::ExtensionIncompleteBuild;
    }
    Some(d)
}

fn plain(f: &Finding, code: Code, message: String) -> Diagnostic {
    Diagnostic {
        code,
        severity: match f.severity {
            abidoc_env::check::Severity::Error => Severity::Error,
            abidoc_env::check::Severity::Warning => Severity::Warning,
            abidoc_env::check::Severity::Information => Severity::Information,
        },
        message,
        source: None,
        related: Vec::new(),
        package: f.package.clone(),
        library: f.library.as_ref().map(|p| p.display().to_string()),
        symbols: Vec::new(),
        evidence: Vec::new(),
        explanation: None,
        fixes: Vec::new(),
    }
}

fn cx<'a>(world: &'a World<'a>) -> crate::codes::Cx<'a> {
    static EMPTY: OnceLock<Scene> = OnceLock::new();
    crate::codes::Cx {
        scene: EMPTY.get_or_init(Scene::default),
        world,
        model: None,
        near: None,
        after: None,
        span: abidoc_syntax::Span::default(),
    }
}
