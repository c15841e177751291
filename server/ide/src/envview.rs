//! The Python environment as the diagnosis sees it: an adapter over `abidoc-env`.
//!
//! Opened environments are kept by the host ([`Environments`], keyed by what names them and the
//! site-packages modification times), so an editor asking again and again re-reads nothing that
//! did not change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use abidoc_env::check::LibraryReport;
use abidoc_env::classify::SymbolStatus as EnvStatus;

use abidoc_env::{EnvSpec, Environment};

use crate::context::Context;
use crate::diagnostic::{SymbolReport, SymbolStatus};
use crate::facts::LibraryFacts;
use crate::machine::{Machine, RealMachine};

pub struct EnvView {
    env: Arc<Environment>,
    explicit: bool,
    kept: Arc<Kept>,
}

impl EnvView {
    /// A view of an environment the caller opened itself (the whole-environment scan).
    pub(crate) fn explicit(env: Arc<Environment>, envs: &Environments) -> EnvView {
        EnvView {
            env,
            explicit: true,
            kept: Arc::new(Kept {
                builds: envs.builds.clone(),
                ..Kept::default()
            }),
        }
    }
}

/// What every view of one environment shares, and what survives reopening it.
#[derive(Default)]
struct Kept {
    /// `locate_symbol` answers.
    symbols: Mutex<HashMap<String, Located>>,
    /// Torch's exports in compact form, built once per environment (by [`prepare`], off the
    /// editor's request path, or by the first symbol lookup).
    torch_exports: OnceLock<Option<TorchExports>>,
    /// Library checks and `locate` answers the views asked the environment for: a reopened
    /// environment is given them again instead of parsing every library to recompute them.
    reports: Mutex<Vec<LibraryReport>>,
    located: Mutex<Vec<(String, Option<PathBuf>)>>,
    /// The environment parsed libraries (its process model) since it was last (re)opened.
    heavy: std::sync::atomic::AtomicBool,
    /// The host's count of [`TorchExports`] built.
    builds: Arc<AtomicU64>,
}

/// What `locate_symbol` adds to an explanation.
#[derive(Clone, Default)]
struct Located {
    exported_by: Vec<String>,
    nearest: Vec<crate::diagnostic::Nearest>,
    notes: Vec<String>,
}

type Key = (Vec<PathBuf>, Option<PathBuf>, Vec<PathBuf>, Vec<PathBuf>);

struct Cached {
    key: Key,
    stamps: Vec<Option<SystemTime>>,
    spec: EnvSpec,
    env: Arc<Environment>,
    kept: Arc<Kept>,
}

/// The environments a host opened, and what it learnt about this machine: owned by
/// [`crate::AnalysisHost`], never process-wide, so two hosts (two editors' servers in one
/// process, two tests) share nothing.
pub(crate) struct Environments {
    /// Every read of this machine outside the Python environment goes through it.
    machine: Arc<dyn Machine>,
    open: Mutex<Vec<Cached>>,
    /// How many [`TorchExports`] this host built: a hover must never add one (tests).
    builds: Arc<AtomicU64>,
    /// The system package manager, from `/etc/os-release`, read once.
    system_manager: OnceLock<Option<crate::fix::SystemManager>>,
    /// Gives freed memory back to the system (set by a long-lived front end).
    release: Option<fn()>,
}

impl Default for Environments {
    fn default() -> Self {
        Self::with_machine(Arc::new(RealMachine))
    }
}

impl Environments {
    pub(crate) fn with_machine(machine: Arc<dyn Machine>) -> Self {
        Self {
            machine,
            open: Mutex::default(),
            builds: Arc::default(),
            system_manager: OnceLock::new(),
            release: None,
        }
    }

    pub(crate) fn machine(&self) -> &dyn Machine {
        self.machine.as_ref()
    }

    pub(crate) fn with_release(release: fn()) -> Self {
        Self {
            release: Some(release),
            ..Self::default()
        }
    }

    pub(crate) fn release_free_memory(&self) {
        if let Some(release) = self.release {
            release();
        }
    }

    pub(crate) fn system_manager(
        &self,
        read: impl FnOnce() -> Option<crate::fix::SystemManager>,
    ) -> Option<crate::fix::SystemManager> {
        *self.system_manager.get_or_init(read)
    }
}

fn stamps(dirs: &[PathBuf]) -> Vec<Option<SystemTime>> {
    dirs.iter()
        .map(|d| std::fs::metadata(d).and_then(|m| m.modified()).ok())
        .collect()
}

pub(crate) fn spec_for(ctx: &Context, traceback_paths: &[PathBuf]) -> EnvSpec {
    let mut spec = EnvSpec::from_process_env();
    spec.site_packages = ctx.site_packages.clone();
    spec.python = ctx.python.clone();
    spec.traceback_paths = traceback_paths.to_vec();
    if !ctx.library_paths.is_empty() {
        let mut parts: Vec<String> = ctx
            .library_paths
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        if let Some(old) = spec.ld_library_path.take() {
            parts.push(old);
        }
        spec.ld_library_path = Some(parts.join(":"));
    }
    spec
}

impl EnvView {
    /// Opens the environment the context names, or the one a traceback's existing paths point into.
    pub(crate) fn open(
        ctx: &Context,
        envs: &Environments,
        paths_in_text: &[&str],
    ) -> Option<EnvView> {
        let explicit = ctx.python.is_some() || !ctx.site_packages.is_empty();
        let machine = envs.machine();
        let traceback: Vec<PathBuf> = paths_in_text
            .iter()
            .map(PathBuf::from)
            .filter(|p| machine.exists(p))
            .collect();
        if !explicit
            && traceback.is_empty()
            && machine.var("VIRTUAL_ENV").is_none()
            && machine.var("CONDA_PREFIX").is_none()
        {
            // Nothing names an environment on this machine: the text came from elsewhere.
            return None;
        }
        // Traceback paths name the environment only when nothing else does (`discover`): with
        // an explicit one, a diagnosis (which passes them) and a hover (which does not) share it.
        let key: Key = (
            ctx.site_packages.clone(),
            ctx.python.clone(),
            if explicit {
                Vec::new()
            } else {
                traceback.clone()
            },
            ctx.library_paths.clone(),
        );
        let mut guard = envs.open.lock().ok()?;
        if let Some(c) = guard.iter().find(|c| c.key == key)
            && stamps(&c.env.layout.site_packages) == c.stamps
        {
            return Some(EnvView {
                env: c.env.clone(),
                explicit,
                kept: c.kept.clone(),
            });
        }
        let spec = spec_for(ctx, &traceback);
        let env = Arc::new(Environment::open(&spec));
        if env.layout.site_packages.is_empty() {
            return None;
        }
        guard.retain(|c| c.key != key);
        if guard.len() >= 8 {
            guard.remove(0);
        }
        let kept = Arc::new(Kept {
            builds: envs.builds.clone(),
            ..Kept::default()
        });
        guard.push(Cached {
            key,
            stamps: stamps(&env.layout.site_packages),
            spec,
            env: env.clone(),
            kept: kept.clone(),
        });
        Some(EnvView {
            env,
            explicit,
            kept,
        })
    }

    /// Where this environment itself may hold `nvcc`: its prefix's `bin` (conda's `cuda-nvcc`)
    /// and the CUDA compiler wheels' directories in site-packages (`nvidia/cuda_nvcc/bin`,
    /// CUDA 13's `nvidia/cu13/bin`).
    pub fn nvcc_dirs(&self) -> Vec<PathBuf> {
        let layout = &self.env.layout;
        let mut out: Vec<PathBuf> = layout.prefix.iter().map(|p| p.join("bin")).collect();
        for sp in &layout.site_packages {
            out.push(sp.join("nvidia/cuda_nvcc/bin"));
            out.push(sp.join("nvidia/cu13/bin"));
        }
        out
    }

    /// The installed torch's own library directories (`site-packages/torch/lib`).
    pub fn torch_lib_dirs(&self) -> Vec<PathBuf> {
        self.env
            .layout
            .site_packages
            .iter()
            .map(|sp| sp.join("torch/lib"))
            .filter(|d| d.is_dir())
            .collect()
    }

    /// The CUDA fat binary of a library the text names (resolved as [`Self::library_facts`]
    /// resolves it), read through the file guard.
    pub fn gpu_code_of(&self, path: &str) -> Option<(PathBuf, abidoc_elf::FatBinary)> {
        let real = self.resolve_path(path)?;
        let bytes = abidoc_env::fsguard::map_library(&real).ok()?;
        let f = abidoc_elf::read_fatbin(bytes.as_ref())?;
        Some((real, f))
    }

    /// The library on this machine that the text's path names: the path itself when it exists,
    /// else (with an explicit environment) the same file inside its site-packages.
    fn resolve_path(&self, path: &str) -> Option<PathBuf> {
        let p = Path::new(path);
        // Through the store: a library a wheel would install (`verify`) is there, unwritten.
        if self.env.store.is_file(p) {
            return Some(p.to_path_buf());
        }
        if !self.explicit {
            return None;
        }
        let norm = path.replace('\\', "/");
        let rel = ["site-packages/", "dist-packages/"]
            .iter()
            .find_map(|m| norm.rsplit_once(m).map(|(_, r)| r.to_owned()))
            .unwrap_or_else(|| crate::incidents::basename(&norm).to_owned());
        self.env
            .layout
            .site_packages
            .iter()
            .map(|sp| sp.join(&rel))
            .find(|c| c.is_file())
            .or_else(|| self.same_module_elsewhere(&rel))
    }

    /// The same module built for another Python (`…cpython-311…` in the text, `…cpython-312…` here).
    fn same_module_elsewhere(&self, rel: &str) -> Option<PathBuf> {
        let module = crate::incidents::module_name(rel);
        let rel_dir = Path::new(rel)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        for sp in &self.env.layout.site_packages {
            let Ok(rd) = std::fs::read_dir(sp.join(&rel_dir)) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                let name = e.file_name().to_string_lossy().into_owned();
                if name.contains(".so")
                    && crate::incidents::module_name(&p.display().to_string()) == module
                    && p.is_file()
                {
                    return Some(p);
                }
            }
        }
        None
    }

    pub fn owner_of(&self, path: &str) -> Option<(String, String)> {
        let p = self.resolve_path(path)?;
        // A scanned library's report names its owner: no need to read every RECORD again.
        if let Some(r) = self.env.checked(&p)
            && let Some(pkg) = &r.package
        {
            return Some((pkg.clone(), r.package_version.clone().unwrap_or_default()));
        }
        let d = self.env.owner(&p)?;
        Some((d.normalized.clone(), d.version.clone().unwrap_or_default()))
    }

    /// The architecture of a library the text names, when it is not this machine's (the file's,
    /// this machine's): its ELF header alone, no library check.
    pub fn foreign_architecture(&self, path: &str) -> Option<(String, String)> {
        let p = self.resolve_path(path)?;
        match &*self.env.store.get(&p) {
            Ok(f) => abidoc_env::check::foreign_architecture(f),
            Err(_) => None,
        }
    }

    pub fn library_facts(&self, path: &str) -> Option<LibraryFacts> {
        let p = self.resolve_path(path)?;
        // A scan already checked every library of the environment: reuse its report.
        let fresh = self.env.checked(&p).is_none();
        let report = self.env.report(&p);
        if fresh && let Ok(mut reports) = self.kept.reports.lock() {
            reports.push((*report).clone());
            self.kept.heavy.store(true, Ordering::Relaxed);
        }
        Some(self.facts_from_report(&report))
    }

    fn facts_from_report(&self, r: &LibraryReport) -> LibraryFacts {
        let mut f = LibraryFacts {
            owner: r
                .package
                .clone()
                .map(|p| (p, r.package_version.clone().unwrap_or_default())),
            ..LibraryFacts::default()
        };
        for s in &r.symbols {
            f.symbols.push(SymbolReport {
                mangled: s.mangled.clone(),
                demangled: crate::kb::demangle(&s.mangled),
                status: map_status(s.status),
                nearest: s
                    .nearest
                    .as_deref()
                    .map(|n| crate::kb::demangle(n).unwrap_or_else(|| n.to_owned())),
            });
            f.own_symbols_missing |= s.own_package;
        }
        if let Some(t) = &self.env.torch {
            let v = t.version.clone().unwrap_or_else(|| "?".into());
            f.evidence.push(format!(
                "torch {v} installed ({})",
                t.dir.join("version.py").display()
            ));
            let torch_resolved: usize = r
                .resolved_by
                .iter()
                .filter(|(p, _)| p.starts_with(&t.lib_dir))
                .map(|(_, n)| n)
                .sum();
            let torch_missing = f
                .symbols
                .iter()
                .filter(|s| crate::symbols::owner(&s.mangled) == crate::symbols::Owner::Torch)
                .count();
            f.torch_symbol_count = torch_resolved + torch_missing;
            if let Some(abi) = t.cxx11_abi {
                f.evidence.push(format!(
                    "the installed torch uses the {} std::string ABI (read from its exports)",
                    if abi { "C++11" } else { "pre-C++11" }
                ));
            }
        }
        if let Some((p, v)) = &f.owner {
            f.evidence.push(format!(
                "{} is installed by {p} {v} (RECORD)",
                r.path.display()
            ));
        }
        if let Some(b) = &r.built_for {
            f.evidence.push(format!(
                "{} was built for torch {} ({})",
                r.package.as_deref().unwrap_or("it"),
                b.torch,
                b.source
            ));
            f.built_for_torch = Some(b.torch.clone());
        }
        let unresolved = f
            .symbols
            .iter()
            .filter(|s| s.status != SymbolStatus::Resolved)
            .count();
        if unresolved > 0 {
            f.evidence.push(format!("{unresolved} undefined symbol(s) do not resolve in this environment (read from the file, nothing loaded)"));
        }
        for n in r.needed.iter().filter(|n| n.found.is_none()) {
            if !f.missing_needed.contains(&n.name) {
                f.missing_needed.push(n.name.clone());
            }
            f.evidence.push(format!(
                "needed library {} is not found (needed by {})",
                n.name,
                n.needed_by.display()
            ));
        }
        for v in r.versions.iter().filter(|v| !v.ok) {
            let from = v
                .provider
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| v.file.clone());
            f.evidence.push(format!(
                "{} needs {} from {}, which {from} does not define",
                v.needed_by.display(),
                v.version,
                v.file
            ));
        }
        f
    }

    pub fn torch_version(&self) -> Option<String> {
        self.env.torch.as_ref()?.version.clone()
    }

    pub fn torch_cxx11_abi(&self) -> Option<bool> {
        self.env.torch.as_ref()?.cxx11_abi
    }

    /// The wheel file an installed distribution came from (its `direct_url.json`).
    pub fn installed_wheel(&self, pkg: &str) -> Option<String> {
        let d = self.env.dist(&crate::kb::normalize(pkg))?;
        d.direct_url.as_ref()?.wheel.clone()
    }

    /// `torch.version.cuda` as the installed torch's `version.py` says (`12.1`).
    pub fn torch_cuda(&self) -> Option<String> {
        self.env.torch.as_ref()?.cuda.clone()
    }

    pub fn python_tag(&self) -> Option<String> {
        let v = self.env.layout.python_version.as_deref()?;
        Some(format!("cp{}", v.replace('.', "")))
    }

    pub fn installed_version(&self, pkg: &str) -> Option<String> {
        let d = self.env.dist(&crate::kb::normalize(pkg))?;
        Some(d.version.clone().unwrap_or_default())
    }

    /// What an installed distribution requires (normalized names, extras left out).
    pub fn requirements_of(&self, pkg: &str) -> Vec<String> {
        let Some(d) = self.env.dist(&crate::kb::normalize(pkg)) else {
            return Vec::new();
        };
        d.requires_dist
            .iter()
            .filter(|r| !r.is_extra_only())
            .map(|r| crate::kb::normalize(&r.name))
            .collect()
    }

    pub fn required_by(&self, pkg: &str) -> Vec<String> {
        let name = crate::kb::normalize(pkg);
        self.env
            .dists
            .iter()
            .filter(|d| {
                d.requires_dist
                    .iter()
                    .any(|r| crate::kb::normalize(&r.name) == name && !r.is_extra_only())
            })
            .map(|d| d.normalized.clone())
            .collect()
    }

    /// Installed distributions that require `pkg` at `major` or later (`numpy>=2`), outside
    /// their extras: moving `pkg` below that major breaks them.
    pub fn requiring_major(&self, pkg: &str, major: u64) -> Vec<String> {
        let name = crate::kb::normalize(pkg);
        // A requirement counts where its marker holds for this environment's Python (one that
        // cannot be told, an unknown variable or Python, does not count).
        let markers = abidoc_env::plans::MarkerEnv {
            python_version: self.env.layout.python_version.clone(),
        };
        let applies = |r: &abidoc_env::Requirement| match r.marker.as_deref() {
            None => true,
            Some(m) => abidoc_env::plans::marker_holds(m, &markers) == Some(true),
        };
        self.env
            .dists
            .iter()
            .filter(|d| {
                d.requires_dist.iter().any(|r| {
                    crate::kb::normalize(&r.name) == name
                        && !r.is_extra_only()
                        && applies(r)
                        && r.minimum_major().is_some_and(|m| m >= major)
                })
            })
            .map(|d| d.normalized.clone())
            .collect()
    }

    /// A libstdc++ in the environment's own directories that defines `version`.
    pub fn libstdcxx_with(&self, version: &str) -> Option<String> {
        for dir in self.env.env_lib_dirs() {
            let p = dir.join("libstdc++.so.6");
            if let Ok(f) = self.env.store.get(&p).as_ref()
                && f.verdefs.iter().any(|v| v == version)
            {
                return Some(p.display().to_string());
            }
        }
        None
    }

    pub fn find_library_dir(&self, lib: &str) -> Option<String> {
        let p = self.env.locate(lib);
        if let Ok(mut located) = self.kept.located.lock()
            && !located.iter().any(|(n, _)| n == lib)
        {
            located.push((lib.to_owned(), p.clone()));
            self.kept.heavy.store(true, Ordering::Relaxed);
        }
        Some(p?.parent()?.display().to_string())
    }

    /// Fills in who exports `symbol` in this environment, or the nearest variants.
    pub fn locate_symbol(&self, symbol: &str, e: &mut crate::diagnostic::Explanation) {
        let known = self
            .kept
            .symbols
            .lock()
            .ok()
            .and_then(|m| m.get(symbol).cloned());
        let found = match known {
            Some(l) => l,
            None => {
                let mut scratch = crate::diagnostic::Explanation {
                    input: String::new(),
                    mangled: None,
                    demangled: None,
                    owner: "",
                    abi: None,
                    exported_by: Vec::new(),
                    nearest: Vec::new(),
                    history: Vec::new(),
                    notes: Vec::new(),
                };
                self.locate_symbol_uncached(symbol, &mut scratch);
                let l = Located {
                    exported_by: scratch.exported_by,
                    nearest: scratch.nearest,
                    notes: scratch.notes,
                };
                if let Ok(mut m) = self.kept.symbols.lock() {
                    // Bounded: an editor session hovers a few hundred symbols at most.
                    if m.len() >= 4096 {
                        m.clear();
                    }
                    m.insert(symbol.to_owned(), l.clone());
                }
                l
            }
        };
        e.exported_by.extend(found.exported_by);
        e.nearest.extend(found.nearest);
        e.notes.extend(found.notes);
    }

    fn torch_exports(&self) -> Option<&TorchExports> {
        self.kept
            .torch_exports
            .get_or_init(|| {
                self.env
                    .torch
                    .as_ref()
                    .map(|t| TorchExports::build(t, &self.kept.builds))
            })
            .as_ref()
    }

    fn locate_symbol_uncached(&self, symbol: &str, e: &mut crate::diagnostic::Explanation) {
        let Some(t) = &self.env.torch else {
            e.notes
                .push("no torch installed in this environment".into());
            return;
        };
        e.notes.push(format!(
            "environment: {} (torch {})",
            self.env
                .layout
                .site_packages
                .first()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            t.version.as_deref().unwrap_or("?")
        ));
        let Some(exports) = self.torch_exports() else {
            return;
        };
        e.exported_by
            .extend(exports.defined_by(symbol).map(str::to_owned));
        if !e.exported_by.is_empty() {
            return;
        }
        // Only the candidates for this name, library by library: `classify` and `resolve` see
        // exactly what an index of every torch export would give them for it.
        let index = exports.candidates(symbol);
        let c = abidoc_elf::classify(symbol, &index);
        if let Some(n) = c.nearest {
            let library = index
                .resolve(&n, None)
                .map(|x| index.library_name(x.library).to_owned())
                .unwrap_or_default();
            let difference = match c.status {
                abidoc_elf::Status::Cxx11Abi => "differs only in the std::string ABI".to_owned(),
                abidoc_elf::Status::SignatureChanged => "same name, other parameters".to_owned(),
                _ => "closest export".to_owned(),
            };
            e.nearest.push(crate::diagnostic::Nearest {
                demangled: c.nearest_demangled.unwrap_or_else(|| n.clone()),
                mangled: n,
                library,
                difference,
            });
        }
        if e.nearest.is_empty() {
            e.notes.push(
                "no torch library in this environment exports it or anything with the same name"
                    .into(),
            );
        }
    }
}

/// Every export of torch's libraries (`torch/lib/*.so*`, in that order), owned and compact: one
/// sorted arena of distinct names, who exports each name (and who defines it at its default
/// version), and the qualified-name table, built once. Answers `LibFacts::defines` per library
/// and gives `classify` the index it would get from all of torch's exports, without keeping the
/// libraries' parsed facts (or their mappings) alive between hovers.
struct TorchExports {
    libraries: Vec<String>,
    arena: String,
    /// End of name `i` in `arena` (its start is the end of `i - 1`).
    ends: Vec<u32>,
    /// Name `i`'s exporters are `exporters[first[i]..first[i + 1]]`: library ids in order, with
    /// [`DEFAULT`] set when that library defines the name at its default version.
    first: Vec<u32>,
    exporters: Vec<u32>,
    /// (qualified-name key, name id), sorted: the names `classify` compares a missing one with.
    by_key: Vec<(u64, u32)>,
}

const DEFAULT: u32 = 1 << 31;

impl TorchExports {
    /// Reads every library of `torch/lib` once, one at a time (its facts and mapping dropped
    /// before the next), keeping only names and flags.
    fn build(torch: &abidoc_env::torch::TorchInstall, builds: &AtomicU64) -> TorchExports {
        builds.fetch_add(1, Ordering::Relaxed);
        let mut libraries = Vec::new();
        // Every library's (name, default) as (start, len, library << 1 | default) into `text`.
        let mut text = String::new();
        let mut entries: Vec<(u32, u32, u32)> = Vec::new();
        for lib in &torch.libs {
            let Ok(facts) =
                abidoc_env::fsguard::map_library(lib).and_then(abidoc_env::LibFacts::from_bytes)
            else {
                continue;
            };
            let Ok(id) = u32::try_from(libraries.len()) else {
                break;
            };
            if id >= DEFAULT >> 1 {
                break;
            }
            libraries.push(lib.display().to_string());
            for e in facts.exports() {
                let (Ok(start), Ok(len)) = (u32::try_from(text.len()), u32::try_from(e.name.len()))
                else {
                    break;
                };
                if start.checked_add(len).is_none() {
                    break;
                }
                text.push_str(e.name);
                entries.push((start, len, id << 1 | u32::from(e.default)));
            }
        }
        let name = |&(start, len, _): &(u32, u32, u32)| {
            text.get(start as usize..(start + len) as usize)
                .unwrap_or("")
        };
        entries.sort_unstable_by(|a, b| name(a).cmp(name(b)).then(a.2.cmp(&b.2)));
        let mut out = TorchExports {
            libraries,
            arena: String::new(),
            ends: Vec::new(),
            first: Vec::new(),
            exporters: Vec::new(),
            by_key: Vec::new(),
        };
        let mut prev: Option<&str> = None;
        for e in &entries {
            let n = name(e);
            let (lib, default) = (e.2 >> 1, e.2 & 1 == 1);
            if prev != Some(n) {
                prev = Some(n);
                out.arena.push_str(n);
                out.ends
                    .push(u32::try_from(out.arena.len()).unwrap_or(u32::MAX));
                out.first
                    .push(u32::try_from(out.exporters.len()).unwrap_or(u32::MAX));
                out.exporters.push(lib | if default { DEFAULT } else { 0 });
            } else if let Some(last) = out.exporters.last_mut()
                && *last & !DEFAULT == lib
            {
                // Several versions of one name in one library: it binds if any is the default.
                *last |= if default { DEFAULT } else { 0 };
            } else {
                out.exporters.push(lib | if default { DEFAULT } else { 0 });
            }
        }
        out.first
            .push(u32::try_from(out.exporters.len()).unwrap_or(u32::MAX));
        drop(entries);
        drop(text);
        for id in 0..out.ends.len() {
            let Ok(id) = u32::try_from(id) else { break };
            if let Some(key) = abidoc_elf::qualified_key(out.name(id)) {
                out.by_key.push((key, id));
            }
        }
        out.by_key.sort_unstable();
        out.arena.shrink_to_fit();
        out.ends.shrink_to_fit();
        out.first.shrink_to_fit();
        out.exporters.shrink_to_fit();
        out.by_key.shrink_to_fit();
        out
    }

    fn name(&self, id: u32) -> &str {
        let i = id as usize;
        let start = if i == 0 {
            0
        } else {
            self.ends.get(i - 1).copied().unwrap_or(0) as usize
        };
        let end = self.ends.get(i).copied().unwrap_or(0) as usize;
        self.arena.get(start..end).unwrap_or("")
    }

    fn find(&self, name: &str) -> Option<u32> {
        let n = u32::try_from(self.ends.len()).ok()?;
        let mut lo = 0u32;
        let mut hi = n;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.name(mid).cmp(name) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// (library id, defined at its default version) of every library exporting name `id`.
    fn exporters(&self, id: u32) -> impl Iterator<Item = (u32, bool)> + '_ {
        let i = id as usize;
        let start = self.first.get(i).copied().unwrap_or(0) as usize;
        let end = self.first.get(i + 1).copied().unwrap_or(0) as usize;
        self.exporters
            .get(start..end)
            .unwrap_or(&[])
            .iter()
            .map(|&x| (x & !DEFAULT, x & DEFAULT != 0))
    }

    /// The libraries where an unversioned reference to `symbol` binds (`LibFacts::defines`).
    fn defined_by(&self, symbol: &str) -> impl Iterator<Item = &str> + '_ {
        self.find(symbol)
            .into_iter()
            .flat_map(|id| self.exporters(id))
            .filter(|&(_, default)| default)
            .filter_map(|(lib, _)| self.libraries.get(lib as usize).map(String::as_str))
    }

    /// An index holding, library by library in order, only the exports `classify` could look at
    /// for `symbol`: the same name, and every name with the same qualified-name key.
    fn candidates(&self, symbol: &str) -> abidoc_elf::ExportIndex<'_> {
        let name = abidoc_elf::split_version(symbol).0;
        let mut ids: Vec<u32> = self.find(name).into_iter().collect();
        if let Some(key) = abidoc_elf::qualified_key(name) {
            let start = self.by_key.partition_point(|(k, _)| *k < key);
            ids.extend(
                self.by_key[start..]
                    .iter()
                    .take_while(|(k, _)| *k == key)
                    .map(|&(_, id)| id),
            );
        }
        // Ids follow name order, as each library's sorted export list does.
        ids.sort_unstable();
        ids.dedup();
        let mut per_library: Vec<Vec<&str>> = vec![Vec::new(); self.libraries.len()];
        for &id in &ids {
            for (lib, _) in self.exporters(id) {
                if let Some(v) = per_library.get_mut(lib as usize) {
                    v.push(self.name(id));
                }
            }
        }
        let mut index = abidoc_elf::ExportIndex::new();
        for (lib, names) in self.libraries.iter().zip(per_library) {
            index.add_names(lib, names);
        }
        index
    }
}

impl Environments {
    /// Opens the environment `ctx` names and builds what hovers need from it (torch's exports),
    /// so that no request pays for it. Returns the number of symbol indexes built so far (a
    /// hover on a new symbol must not change it).
    pub(crate) fn prepare(&self, ctx: &Context) -> Option<u64> {
        if !ctx.use_env {
            return None;
        }
        let view = EnvView::open(ctx, self, &[])?;
        view.torch_exports();
        Some(self.torch_export_builds())
    }

    /// Reopens every kept environment that parsed libraries since it was opened (a library check
    /// builds the process model: every library torch loads, parsed and kept), handing the new one
    /// the checks and `locate` answers given so far, so what was parsed is freed. Returns whether
    /// anything was reopened (the caller then gives the freed memory back).
    pub(crate) fn release_parsed_libraries(&self) -> bool {
        let heavy: Vec<(EnvSpec, Arc<Kept>)> = match self.open.lock() {
            Ok(guard) => guard
                .iter()
                .filter(|c| c.kept.heavy.swap(false, Ordering::Relaxed))
                .map(|c| (c.spec.clone(), c.kept.clone()))
                .collect(),
            Err(_) => return false,
        };
        let mut released = false;
        for (spec, kept) in heavy {
            // Opened outside the cache's lock: hovers go on meanwhile.
            let env = Environment::open(&spec);
            if let Ok(reports) = kept.reports.lock() {
                env.remember(&reports);
            }
            if let Ok(located) = kept.located.lock() {
                env.remember_located(located.iter().cloned());
            }
            let old = match self.open.lock() {
                Ok(mut guard) => guard
                    .iter_mut()
                    .find(|c| Arc::ptr_eq(&c.kept, &kept))
                    .map(|c| std::mem::replace(&mut c.env, Arc::new(env))),
                Err(_) => None,
            };
            released |= old.is_some();
        }
        released
    }

    /// How many torch export indexes this host built.
    pub(crate) fn torch_export_builds(&self) -> u64 {
        self.builds.load(Ordering::Relaxed)
    }
}

fn map_status(s: EnvStatus) -> SymbolStatus {
    match s {
        EnvStatus::Resolved => SymbolStatus::Resolved,
        EnvStatus::Missing => SymbolStatus::Missing,
        EnvStatus::SignatureChanged => SymbolStatus::SignatureChanged,
        EnvStatus::Cxx11Abi => SymbolStatus::Cxx11Abi,
        EnvStatus::Removed => SymbolStatus::Removed,
        EnvStatus::VersionMissing => SymbolStatus::VersionMissing,
    }
}
