//! Whole-environment scan as diagnoses: every compiled extension that will not load, and why,
//! each finding phrased by the module of its code, as `check` phrases the same failure.

use std::path::PathBuf;
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

#[derive(Debug, Clone, Default)]
pub struct ScanOutcome {
    pub diagnostics: Vec<Diagnostic>,
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
        return Err("no Python environment found: pass --python EXE or --site-packages DIR, or activate a virtualenv".into());
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
    for f in report.findings() {
        if let Some(d) = finding_diagnostic(f, &world) {
            diagnostics.push(d);
        }
    }
    if options.include_ok {
        for l in report.libraries.iter().filter(|l| l.findings.is_empty()) {
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
        "scanned {} libraries in {}{torch}: {} will fail to load ({errors} error(s)), {warnings} warning(s); {} from cache",
        report.stats.libraries,
        report
            .site_packages
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        report
            .libraries
            .iter()
            .filter(|l| l.verdict == abidoc_env::check::Verdict::Fails)
            .count(),
        report.stats.from_cache
    );
    Ok(ScanOutcome {
        diagnostics,
        notes,
        summary,
    })
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
    }
}
