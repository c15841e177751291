//! Verdicts before installing: wheels read in memory ([`crate::wheel`]) laid over the environment
//! as an install would lay them (the libraries of the same distribution removed, the wheel's
//! added; nothing written to disk), each library checked by the loader model, and torch symbols
//! judged against the offline torch index when the install changes torch. Also the
//! torch-upgrade preview over installed extensions; plans are read by [`crate::plans`].
//! Facts only: `abidoc-ide` phrases them.

use crate::check::{
    Finding, FindingFacts, LibraryReport, Severity, SymbolCheck, Verdict, check_library_with,
};
use crate::classify::SymbolStatus;
use crate::environment::Environment;
use crate::exports::SharedExports;
use crate::facts::LibFacts;
use crate::manifests::public_version;
use crate::wheel::Wheel;
use abidoc_knowledge::torch_index;
use std::path::{Path, PathBuf};
use std::sync::Arc;

// The plan readers moved to `plans`; their names stay reachable here.
pub use crate::plans::{
    Plan, PlannedInstall, file_url_path, parse_pip_report, parse_pylock, parse_requirements,
    parse_requirements_file,
};

/// Where wheels are laid when no environment was found: a path no real file lies under, so the
/// wheels' libraries are judged against each other and the system alone.
pub const NO_SITE: &str = "/nonexistent/abidoc-verify/site-packages";

/// A GPU the wheels will run on: as the driver's files or `--gpu` name it, and its compute
/// capability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gpu {
    pub name: String,
    pub capability: (u32, u32),
}

/// The GPUs of `gpus` that a library's fat binary has no code for: a finding each.
fn gpu_findings(path: &Path, code: &abidoc_elf::FatBinary, gpus: &[Gpu]) -> Vec<Finding> {
    gpus.iter()
        .filter(|g| !code.runs_on(g.capability.0, g.capability.1))
        .map(|g| Finding {
            severity: Severity::Error,
            package: None,
            package_version: None,
            library: Some(path.to_path_buf()),
            downgraded: None,
            moot: false,
            facts: FindingFacts::GpuCodeMissing {
                gpu: g.name.clone(),
                capability: g.capability,
                carries: code.describe(),
            },
        })
        .collect()
}

/// One wheel's verdict: every library it carries, checked as installed.
#[derive(Debug, Clone)]
pub struct WheelVerdict {
    pub wheel: PathBuf,
    pub name: Option<String>,
    pub version: Option<String>,
    /// Checked libraries, each at the path it would be installed to.
    pub libraries: Vec<LibraryReport>,
    /// Package-level findings (an exact torch pin the target torch violates).
    pub findings: Vec<Finding>,
    pub problems: Vec<String>,
    /// What the verdict assumed (a library another planned install provides).
    pub notes: Vec<String>,
    /// What its libraries ask of the loader, all of it checked: the libraries they name
    /// (`DT_NEEDED`, distinct), their undefined non-weak symbols and of those torch's, and the
    /// newest symbol version of each kind they require (`GLIBC_2.34`, `GLIBCXX_3.4.29`).
    pub needed: usize,
    pub symbols: usize,
    pub torch_symbols: usize,
    pub versions: Vec<String>,
    /// Whether any of its libraries carries CUDA GPU code (a fat binary).
    pub gpu_code: bool,
}

impl WheelVerdict {
    /// The worst library verdict (`Loads` for a wheel without libraries).
    pub fn verdict(&self) -> Verdict {
        let vs: Vec<Verdict> = self.libraries.iter().map(|l| l.verdict).collect();
        if vs.contains(&Verdict::Fails) {
            Verdict::Fails
        } else if vs.contains(&Verdict::Unreadable) {
            Verdict::Unreadable
        } else if vs.contains(&Verdict::Degraded) {
            Verdict::Degraded
        } else {
            Verdict::Loads
        }
    }
}

/// The torch the environment will have: the installed one, or another release (from `--torch`
/// or the plan) whose exports come from the offline index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TorchTarget {
    /// Whatever the environment has on disk.
    Installed,
    /// This release, judged from the offline index (its position in `torch_index::releases()`).
    Indexed { version: String, index: usize },
    /// A release the index does not know: torch symbols cannot be judged.
    Unknown { version: String },
}

impl TorchTarget {
    /// The target for `version` in `env`: the installed torch when it is that release.
    pub fn for_version(env: &Environment, version: Option<&str>) -> TorchTarget {
        let Some(v) = version else {
            return TorchTarget::Installed;
        };
        let installed = env.torch.as_ref().and_then(|t| t.version.as_deref());
        if installed.is_some_and(|i| public_version(i) == public_version(v)) {
            return TorchTarget::Installed;
        }
        match torch_index::release_index(v) {
            Some(index) => TorchTarget::Indexed {
                version: v.to_string(),
                index,
            },
            None => TorchTarget::Unknown {
                version: v.to_string(),
            },
        }
    }

    pub fn version(&self) -> Option<&str> {
        match self {
            TorchTarget::Installed => None,
            TorchTarget::Indexed { version, .. } | TorchTarget::Unknown { version } => {
                Some(version)
            }
        }
    }
}

/// The site-packages wheels are laid into.
pub fn install_root(env: &Environment) -> PathBuf {
    env.layout
        .site_packages
        .first()
        .cloned()
        .unwrap_or_else(|| PathBuf::from(NO_SITE))
}

/// Checks `wheels` as if installed together into `env` (which this changes: its library store
/// gains the wheels' libraries and loses those of the distributions they replace; open a fresh
/// environment for anything else).
///
/// `planned` names the other distributions the same install brings without a wheel to read
/// (normalized name, version): a library one of them is known to provide (the `nvidia-*`
/// runtimes of `system_libs`) is not missing, though its symbols cannot be checked.
pub fn verify_wheels(
    env: &Environment,
    wheels: &[Wheel],
    target: &TorchTarget,
    planned: &[(String, Option<String>)],
    gpus: &[Gpu],
) -> Vec<WheelVerdict> {
    let root = install_root(env);
    // An install replaces the installed distribution of the same name: its libraries go.
    for w in wheels {
        let Some(name) = w.normalized() else { continue };
        if let Some(d) = env.dist(&name) {
            for f in d.files().0 {
                if is_library_path(&f) {
                    env.store.remove_virtual(&f);
                }
            }
        }
    }
    let mut laid: Vec<Vec<PathBuf>> = Vec::with_capacity(wheels.len());
    for w in wheels {
        let mut paths = Vec::new();
        for lib in &w.libraries {
            let p = crate::dist::lexical_join(&root, Path::new(&lib.install_path));
            env.store.install_virtual(&p, lib.facts.clone());
            paths.push(p);
        }
        laid.push(paths);
    }
    let shared = SharedExports::new(env);
    // The lazy state every check needs, built here on the calling thread where it may use every
    // core (inside a check it is built without forking: see `Environment::owner`).
    let _ = env.process();
    let _ = env.owner(Path::new("/"));
    let own_defs: Vec<Arc<LibFacts>> = wheels
        .iter()
        .flat_map(|w| w.libraries.iter())
        .filter_map(|l| l.facts.as_ref().ok().cloned())
        .collect();
    let mut out = Vec::with_capacity(wheels.len());
    for (w, paths) in wheels.iter().zip(laid) {
        let mut libraries: Vec<LibraryReport> = {
            use rayon::prelude::*;
            paths
                .par_iter()
                .map(|p| check_library_with(&shared, p))
                .collect()
        };
        for (r, lib) in libraries.iter_mut().zip(&w.libraries) {
            r.package = w.normalized();
            r.package_version.clone_from(&w.version);
            for f in &mut r.findings {
                f.package.clone_from(&r.package);
                f.package_version.clone_from(&r.package_version);
            }
            if let Ok(facts) = &lib.facts {
                retarget(env, r, facts, target, &own_defs);
            }
            // It loads (or not) whatever the GPU; without code for the GPU its kernels never run.
            if let Some(code) = &lib.gpu {
                let path = r.path.clone();
                for mut f in gpu_findings(&path, code, gpus) {
                    f.package.clone_from(&r.package);
                    f.package_version.clone_from(&r.package_version);
                    r.findings.push(f);
                }
            }
        }
        // What an import meets, not what a dlopen of each file alone meets: a library loaded
        // by another of the wheel's, or by the package's Python code before the extension.
        crate::context::judge(env, &mut libraries);
        preloaded_siblings(w, &mut libraries);
        let mut notes = Vec::new();
        for r in &mut libraries {
            let before = r.findings.len();
            r.findings.retain(|f| match &f.facts {
                FindingFacts::MissingLibrary { name, .. } => match provided_by(name, planned) {
                    Some(pkg) => {
                        notes.push(format!(
                            "{name}: provided by {pkg} in the plan (its wheel is not read: \
                             the symbols it gives are not checked)"
                        ));
                        false
                    }
                    None => true,
                },
                _ => true,
            });
            if r.findings.len() != before && r.verdict != Verdict::Unreadable {
                // Missing GPU code does not stop the load: it is not a failing verdict.
                let fails = r.findings.iter().any(|f| {
                    f.severity == Severity::Error
                        && f.downgraded.is_none()
                        && !matches!(f.facts, FindingFacts::GpuCodeMissing { .. })
                });
                let degraded = r.findings.iter().any(|f| f.downgraded.is_some());
                r.verdict = Verdict::of(fails, degraded);
            }
        }
        notes.sort();
        notes.dedup();
        let mut findings = Vec::new();
        if let Some(tv) = target
            .version()
            .or_else(|| env.torch.as_ref().and_then(|t| t.version.as_deref()))
            && w.normalized().as_deref() != Some("torch")
            && let Some(pin) = w
                .metadata
                .requires
                .iter()
                .filter(|r| crate::dist::normalize_name(&r.name) == "torch")
                .find_map(|r| r.exact_pin())
            && public_version(pin) != public_version(tv)
        {
            findings.push(Finding {
                severity: Severity::Warning,
                package: w.normalized(),
                package_version: w.version.clone(),
                library: None,
                downgraded: None,
                moot: false,
                facts: FindingFacts::TorchPin {
                    required: pin.to_string(),
                    installed: tv.to_string(),
                },
            });
        }
        env.remember(&libraries);
        let (mut symbols, mut torch_symbols) = (0, 0);
        let mut needed: Vec<&str> = Vec::new();
        let mut versions: Vec<&str> = Vec::new();
        for facts in w.libraries.iter().filter_map(|l| l.facts.as_ref().ok()) {
            for imp in facts.imports.iter().filter(|i| !i.weak) {
                symbols += 1;
                torch_symbols += usize::from(torch_index::is_torch_symbol(&imp.name));
            }
            needed.extend(facts.needed.iter().map(String::as_str));
            for vn in &facts.verneeds {
                versions.extend(
                    vn.versions
                        .iter()
                        .filter(|(_, weak)| !weak)
                        .map(|(v, _)| v.as_str()),
                );
            }
        }
        needed.sort_unstable();
        needed.dedup();
        out.push(WheelVerdict {
            wheel: w.path.clone(),
            name: w.name.clone(),
            version: w.version.clone(),
            libraries,
            findings,
            problems: w.problems.clone(),
            notes,
            needed: needed.len(),
            symbols,
            torch_symbols,
            versions: newest_versions(&versions),
            gpu_code: w.libraries.iter().any(|l| l.gpu.is_some()),
        });
    }
    out
}

/// The newest of each kind of symbol version (`GLIBCXX_3.4.29` over `GLIBCXX_3.4.9`: numbers
/// compared as numbers), sorted by kind.
fn newest_versions(all: &[&str]) -> Vec<String> {
    let numbers = |v: &str| -> Vec<u64> {
        v.rsplit_once('_')
            .map(|(_, n)| n.split('.').map(|p| p.parse().unwrap_or(0)).collect())
            .unwrap_or_default()
    };
    let mut newest: Vec<(&str, &str)> = Vec::new();
    for v in all {
        let Some((kind, _)) = v.rsplit_once('_') else {
            continue;
        };
        match newest.iter_mut().find(|(k, _)| *k == kind) {
            Some(e) if numbers(v) > numbers(e.1) => e.1 = v,
            Some(_) => {}
            None => newest.push((kind, v)),
        }
    }
    newest.sort_unstable();
    newest.into_iter().map(|(_, v)| v.to_owned()).collect()
}

/// Lowers a missing-library error of an extension when the library is the wheel's own and its
/// Python code names it (`_load_lib("libtorchaudio")`): the package loads it before importing
/// the extension, so the import depends on that library's own verdict.
fn preloaded_siblings(w: &Wheel, reports: &mut [LibraryReport]) {
    for r in reports.iter_mut() {
        let mut changed = false;
        let path = r.path.clone();
        for f in &mut r.findings {
            let FindingFacts::MissingLibrary {
                name, needed_by, ..
            } = &f.facts
            else {
                continue;
            };
            if f.severity != Severity::Error || f.downgraded.is_some() || needed_by != &path {
                continue;
            }
            let Some(sibling) = w
                .libraries
                .iter()
                .find(|l| l.install_path.rsplit('/').next() == Some(name.as_str()))
            else {
                continue;
            };
            let Some(stem) = name.split(".so").next().filter(|s| s.len() > 3) else {
                continue;
            };
            let found = crate::wheel::python_sources(w, stem)
                .into_iter()
                .find(|(_, t)| {
                    t.match_indices(stem).any(|(i, _)| {
                        // The whole name, not a longer one (`libtorchaudio_sox` is another).
                        let next = t.get(i + stem.len()..).and_then(|r| r.chars().next());
                        !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    })
                });
            if let Some((file, _)) = found {
                f.severity = Severity::Information;
                f.downgraded = Some(format!(
                    "the package loads {name} itself ({file}) before importing {}: the import \
                     then depends on {}'s own verdict",
                    path.file_name().and_then(|n| n.to_str()).unwrap_or(""),
                    sibling.install_path
                ));
                f.moot = true;
                changed = true;
            }
        }
        if changed && r.verdict == Verdict::Fails {
            let fails = r
                .findings
                .iter()
                .any(|f| f.severity == Severity::Error && f.downgraded.is_none());
            let degraded = r.findings.iter().any(|f| f.downgraded.is_some() && !f.moot);
            r.verdict = Verdict::of(fails, degraded);
        }
    }
}

/// The planned distribution known to provide library `soname`: the CUDA runtime package of its
/// major (`nvidia-cuda-runtime-cu12`; `nvidia-cuda-runtime` pinned to the major from 13 on),
/// or a pip package `system_libs` names for it.
pub fn provided_by(soname: &str, planned: &[(String, Option<String>)]) -> Option<String> {
    use abidoc_knowledge::system_libs;
    let planned_as = |name: &str| {
        let n = crate::dist::normalize_name(name);
        planned.iter().find(|(p, _)| *p == n)
    };
    if let Some((lib, major)) = system_libs::cuda_library(soname) {
        return lib.packages.iter().find_map(|p| {
            if p.major != major {
                return None;
            }
            let (name, version) = planned_as(&p.name)?;
            // An unsuffixed package names its CUDA major by its version (`13.0.96`).
            let fits = !p.pin_major
                || version
                    .as_deref()
                    .and_then(|v| v.split('.').next())
                    .is_some_and(|m| m == major.to_string());
            fits.then(|| match version {
                Some(v) => format!("{name} {v}"),
                None => name.clone(),
            })
        });
    }
    let s = system_libs::system_library(soname)?;
    s.pip
        .iter()
        .find_map(|p| planned_as(p).map(|(n, _)| n.clone()))
}

fn is_library_path(p: &Path) -> bool {
    let base = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    base.ends_with(".so") || base.contains(".so.")
}

/// Re-judges a report's torch symbols against `target` when it is not the installed torch: the
/// loader model's verdict on them (made against the torch on disk, or none) is replaced by what
/// the indexed release exports. Symbols the wheels define themselves are left alone.
fn retarget(
    env: &Environment,
    r: &mut LibraryReport,
    facts: &LibFacts,
    target: &TorchTarget,
    own_defs: &[Arc<LibFacts>],
) {
    let TorchTarget::Indexed { version, index } = target else {
        return;
    };
    // torch's own libraries come with the target torch, and so do the CUDA libraries of its
    // build's major (its nvidia-* dependencies, loaded by `import torch` before any extension):
    // not missing, whatever is on disk.
    let release = torch_index::releases().get(*index);
    let cuda_major = release
        .and_then(|r| r.cuda.as_deref())
        .and_then(|c| c.split('.').next())
        .and_then(|m| m.parse::<u32>().ok());
    let with_torch = |name: &str| {
        abidoc_knowledge::system_libs::is_torch_library(name)
            || abidoc_knowledge::system_libs::cuda_library(name)
                .is_some_and(|(_, major)| Some(major) == cuda_major)
    };
    r.findings.retain(
        |f| !matches!(&f.facts, FindingFacts::MissingLibrary { name, .. } if with_torch(name)),
    );
    for n in &mut r.needed {
        if n.found.is_none() && with_torch(&n.name) {
            n.found = Some(PathBuf::from(format!("<torch {version}>")));
            n.searched.clear();
        }
    }
    for f in &mut r.findings {
        if let FindingFacts::UndefinedSymbols { symbols } = &mut f.facts {
            symbols.retain(|s| !torch_index::is_torch_symbol(&s.mangled));
        }
    }
    r.findings.retain(
        |f| !matches!(&f.facts, FindingFacts::UndefinedSymbols { symbols } if symbols.is_empty()),
    );
    r.symbols
        .retain(|s| !torch_index::is_torch_symbol(&s.mangled));
    let mut broken = Vec::new();
    for imp in facts.imports.iter().filter(|i| !i.weak) {
        let name: &str = &imp.name;
        if !torch_index::is_torch_symbol(name)
            || own_defs.iter().any(|d| d.defines(name, None))
            || torch_index::lookup(name).is_some_and(|h| h.releases.contains(*index))
        {
            continue;
        }
        broken.push(index_check(name, *index, &r.path));
    }
    let blocked = r
        .findings
        .iter()
        .any(|f| matches!(f.facts, FindingFacts::MissingLibrary { .. }));
    if !broken.is_empty() {
        r.symbols.extend(broken.iter().cloned());
        if !blocked {
            r.findings.push(Finding {
                severity: Severity::Error,
                package: r.package.clone(),
                package_version: r.package_version.clone(),
                library: Some(r.path.clone()),
                downgraded: None,
                moot: false,
                facts: FindingFacts::UndefinedSymbols { symbols: broken },
            });
        }
    }
    let _ = env;
    let fails = r
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error && f.downgraded.is_none());
    let degraded = r.findings.iter().any(|f| f.downgraded.is_some());
    if r.verdict != Verdict::Unreadable {
        r.verdict = Verdict::of(fails, degraded);
    }
}

/// A torch symbol the indexed release `index` does not export: its nearest form there (the
/// other C++ ABI's twin, or another signature of the same qualified name), or removed.
fn index_check(name: &str, index: usize, needed_by: &Path) -> SymbolCheck {
    let demangled = abidoc_elf::demangle(name);
    let in_target = |v: &torch_index::Variant| v.releases.contains(index) && v.mangled != name;
    let (status, nearest) = match torch_index::abi_twin(name).filter(in_target) {
        Some(t) => (SymbolStatus::Cxx11Abi, Some(t)),
        None => match torch_index::variants(name).into_iter().find(in_target) {
            Some(v) => (SymbolStatus::SignatureChanged, Some(v)),
            None => (SymbolStatus::Removed, None),
        },
    };
    let release = torch_index::releases()
        .get(index)
        .map(|r| r.version.clone())
        .unwrap_or_default();
    SymbolCheck {
        mangled: name.to_string(),
        demangled,
        needed_by: needed_by.to_path_buf(),
        status,
        version: None,
        nearest: nearest.as_ref().map(|v| v.mangled.clone()),
        nearest_demangled: nearest.as_ref().and_then(|v| v.demangled.clone()),
        nearest_in: nearest.as_ref().map(|v| PathBuf::from(v.library)),
        difference: match status {
            SymbolStatus::Cxx11Abi => format!("torch {release} exports it with the other C++ ABI"),
            SymbolStatus::SignatureChanged => {
                format!("torch {release} exports another signature (offline index)")
            }
            _ => format!("torch {release} does not export it (offline index)"),
        },
        own_package: false,
    }
}

/// A torch-upgrade preview: every installed library outside torch that imports torch symbols,
/// checked as it is and re-judged against `target`. Returns the reports of libraries whose
/// verdict the change makes worse (they load now and would not), in path order.
pub fn torch_preview(env: &Environment, target: &TorchTarget) -> Vec<LibraryReport> {
    let torch_dir = env.torch.as_ref().map(|t| t.dir.clone());
    // Through the store: libraries a planned install removes are gone already.
    let mut libs: Vec<(PathBuf, usize)> = env
        .owned_files()
        .into_iter()
        .filter(|(p, i)| {
            is_library_path(p)
                && env.dists.get(*i).is_some_and(|d| d.normalized != "torch")
                && !torch_dir.as_ref().is_some_and(|t| p.starts_with(t))
                && env.store.is_file(p)
        })
        .collect();
    libs.sort();
    libs.dedup();
    let parsed: Vec<(PathBuf, usize, Arc<LibFacts>)> = {
        use rayon::prelude::*;
        libs.par_iter()
            .filter_map(|(p, i)| Some((p.clone(), *i, (*env.store.get(p)).clone().ok()?)))
            .collect()
    };
    // A torch-namespace symbol a library of the same distribution defines is the package's
    // own (an extension split over several libraries), not torch's.
    let mut by_dist: std::collections::HashMap<usize, Vec<Arc<LibFacts>>> =
        std::collections::HashMap::new();
    for (_, i, f) in &parsed {
        by_dist.entry(*i).or_default().push(f.clone());
    }
    let candidates: Vec<&(PathBuf, usize, Arc<LibFacts>)> = parsed
        .iter()
        .filter(|(_, _, f)| {
            f.imports
                .iter()
                .any(|i| !i.weak && torch_index::is_torch_symbol(&i.name))
        })
        .collect();
    let shared = SharedExports::new(env);
    let none: Vec<Arc<LibFacts>> = Vec::new();
    let mut out: Vec<LibraryReport> = {
        use rayon::prelude::*;
        candidates
            .par_iter()
            .filter_map(|(p, dist, facts)| {
                let now = check_library_with(&shared, p);
                let mut then = now.clone();
                let own = by_dist.get(dist).unwrap_or(&none);
                retarget(env, &mut then, facts, target, own);
                let worse = now.verdict == Verdict::Loads && then.verdict == Verdict::Fails;
                worse.then_some(then)
            })
            .collect()
    };
    out.sort_by(|a, b| a.path.cmp(&b.path));
    env.remember(&out);
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn reads_a_pip_report() {
        let text = r#"{"version":"1","pip_version":"24.2","install":[
          {"download_info":{"url":"https://files.example/torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl","archive_info":{}},
           "is_direct":false,"requested":false,"metadata":{"name":"torch","version":"2.5.1"}},
          {"download_info":{"url":"file:///tmp/w%20x/flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl"},
           "is_direct":true,"requested":true,"metadata":{"name":"flash_attn","version":"2.8.3"}},
          {"metadata":{"version":"1"}}
        ]}"#;
        let plan = parse_pip_report(text, None);
        assert_eq!(plan.installs.len(), 2);
        assert_eq!(
            plan.torch().and_then(|t| t.version.as_deref()),
            Some("2.5.1")
        );
        assert_eq!(
            plan.installs[1].local_wheel.as_deref(),
            Some(Path::new(
                "/tmp/w x/flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl"
            ))
        );
        assert_eq!(plan.problems.len(), 1);
        assert!(!parse_pip_report("[1,", None).problems.is_empty());
        assert!(file_url_path("file://host/x.whl").is_none());
    }

    #[test]
    fn reads_a_requirements_plan() {
        let text = "# via x\ntorch==2.5.1\n    # via flash-attn\nflash-attn @ file:///w/flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl\n./dist/mamba_ssm-2.3.0-cp312-cp312-linux_x86_64.whl ; python_version >= '3.9'\n--index-url https://x\n";
        let plan = parse_requirements(text, Path::new("/proj"));
        assert_eq!(plan.installs.len(), 3, "{plan:?}");
        assert_eq!(
            plan.torch().and_then(|t| t.version.as_deref()),
            Some("2.5.1")
        );
        assert_eq!(plan.installs[1].name, "flash-attn");
        assert_eq!(
            plan.installs[2].local_wheel.as_deref(),
            Some(Path::new(
                "/proj/dist/mamba_ssm-2.3.0-cp312-cp312-linux_x86_64.whl"
            ))
        );
        assert_eq!(plan.installs[2].version.as_deref(), Some("2.3.0"));
    }
}
