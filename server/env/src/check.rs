//! Checking one library against the modelled process: needed libraries (found where, or missing),
//! every undefined non-weak symbol (resolved by which object, or missing and classified), version
//! requirements, the owner distribution and the torch it was built for, and a verdict. Plus the
//! package-level checks the loader does not make (torch pins, CUDA labels, xFormers build info).
//! Facts only: messages and fixes are written by `abidoc-ide`.

use crate::classify::{SymbolStatus, cxx11_twin, is_own_symbol};
use crate::dist::{BuildLabel, Distribution};
use crate::environment::Environment;
use crate::exports::{SharedExports, candidates};
use crate::loader::Resolution;
use crate::manifests::{VersionPy, XformersBuild, major_minor, public_version};
pub use crate::report::{
    BuiltFor, Finding, FindingFacts, LibraryReport, NeededLib, Severity, SymbolCheck, Verdict,
    VersionCheck,
};
use abidoc_knowledge::system_libs;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn file_name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// Why a failure of `lib` (missing `missing_lib`, when that is the failure) is information, not
/// an error. Decided by the library that fails, never by the missing library's name alone: the
/// same FFmpeg is optional for torchaudio's FFmpeg backend (an optional backend: whatever it
/// misses is information) and required by torchcodec's cores (judged as sets by their
/// `backends` rule in `context`). The exception is the NVIDIA driver's libraries: on a machine
/// without the driver no GPU code runs at all, which is no fault of the library.
fn optional_reason(env: &Environment, lib: &Path, missing_lib: Option<&str>) -> Option<String> {
    let name = file_name(lib);
    if system_libs::is_optional_backend(name) {
        return Some(format!(
            "{name} is an optional backend; the package imports without it"
        ));
    }
    if let Some(m) = missing_lib
        && system_libs::is_driver_library(m)
        && !env.has_nvidia_driver
    {
        return Some(format!(
            "{m} comes with the NVIDIA driver, which this machine does not have"
        ));
    }
    None
}

/// The torch a distribution was built for: an exact `torch==` pin, else its wheel label.
pub fn built_for(dist: &Distribution) -> Option<BuiltFor> {
    if let Some(p) = dist.torch_pin() {
        return Some(BuiltFor {
            torch: p.to_string(),
            source: "requires-dist".into(),
        });
    }
    let label = dist.direct_url.as_ref().and_then(|d| d.label.as_ref())?;
    label.torch.as_ref().map(|t| BuiltFor {
        torch: t.clone(),
        source: "wheel-label".into(),
    })
}

/// The reports an environment keeps: a check is made once per library and shared by every caller
/// (a scan's, then the notebook's and the editor's questions about the same file).
impl Environment {
    /// The check of the library at `path`: the one a scan (or an earlier call) made, else a new
    /// one, kept for the next caller.
    pub fn report(&self, path: &Path) -> Arc<LibraryReport> {
        if let Some(r) = self.checked(path) {
            return r;
        }
        let r = Arc::new(check_library(self, path));
        if let Ok(mut m) = self.reports.lock() {
            m.entry(path.to_path_buf()).or_insert_with(|| r.clone());
        }
        r
    }

    /// The check of `path` made earlier in this environment, if any.
    pub fn checked(&self, path: &Path) -> Option<Arc<LibraryReport>> {
        let m = self.reports.lock().ok()?;
        m.get(path)
            .or_else(|| m.get(&crate::dist::lexical_join(Path::new("/"), path)))
            .cloned()
    }

    /// Keeps the reports of a scan for [`Environment::report`].
    pub fn remember(&self, reports: &[LibraryReport]) {
        if let Ok(mut m) = self.reports.lock() {
            for r in reports {
                m.insert(r.path.clone(), Arc::new(r.clone()));
            }
        }
    }
}

/// Checks one library as if a Python process that ran `import torch` now loaded it.
/// Checking several libraries of one environment: share a [`SharedExports`] with
/// [`check_library_with`] (the global scope's export indexes are then built once).
pub fn check_library(env: &Environment, path: &Path) -> LibraryReport {
    check_library_with(&SharedExports::new(env), path)
}

/// [`check_library`] against the environment of `shared`, reusing its export indexes.
pub fn check_library_with(shared: &SharedExports<'_>, path: &Path) -> LibraryReport {
    match check_inner(shared, path, false) {
        Some(r) => r,
        // Unreachable without deferral; checking again never defers.
        None => check_library(shared.env(), path),
    }
}

/// Like [`check_library_with`], but gives up (`None`) when the library has unresolved symbols
/// and `shared`'s global indexes are not built yet: a scan checks every library first, builds
/// the indexes once with every core ([`SharedExports::prepare`]), then checks those again,
/// instead of letting one worker build them while the others wait on it.
pub fn check_library_deferred(shared: &SharedExports<'_>, path: &Path) -> Option<LibraryReport> {
    check_inner(shared, path, true)
}

fn check_inner(shared: &SharedExports<'_>, path: &Path, defer: bool) -> Option<LibraryReport> {
    let env = shared.env();
    let owner = env
        .owner(path)
        .or_else(|| std::fs::canonicalize(path).ok().and_then(|c| env.owner(&c)));
    let mut report = LibraryReport {
        path: path.to_path_buf(),
        package: owner.map(|d| d.normalized.clone()),
        package_version: owner.and_then(|d| d.version.clone()),
        built_for: owner.and_then(built_for),
        label: owner
            .and_then(|d| d.direct_url.as_ref())
            .and_then(|d| d.label.clone()),
        needed: Vec::new(),
        symbols: Vec::new(),
        resolved_by: BTreeMap::new(),
        versions: Vec::new(),
        findings: Vec::new(),
        verdict: Verdict::Loads,
        error: None,
    };
    let finding = |severity: Severity, downgraded: Option<String>, facts: FindingFacts| Finding {
        severity: if downgraded.is_some() {
            Severity::Information
        } else {
            severity
        },
        package: owner.map(|d| d.normalized.clone()),
        package_version: owner.and_then(|d| d.version.clone()),
        library: Some(path.to_path_buf()),
        downgraded,
        moot: false,
        facts,
    };
    // A library of another architecture is a finding of its own (the import fails as the
    // loader says `wrong ELF class` or finds no such file): which one it is, and which this is.
    let (parsed, foreign) = match &*env.store.get(path) {
        Ok(f) => match foreign_architecture(f) {
            Some((have, need)) => (
                Err(format!(
                    "built for another architecture ({}); this machine is {need}",
                    have.replacen(' ', ", ", 1)
                )),
                Some((have, need)),
            ),
            None => (Ok(()), None),
        },
        Err(e) => (Err(e.clone()), None),
    };
    if let Err(e) = &parsed {
        report.error = Some(e.clone());
        report.verdict = Verdict::Unreadable;
        let facts = match foreign {
            Some((have, need)) => FindingFacts::WrongArchitecture { have, need },
            None => FindingFacts::Unreadable { message: e.clone() },
        };
        report
            .findings
            .push(finding(Severity::Warning, None, facts));
        return Some(report);
    }
    let mut pm = env.process().clone();
    let before_objects = pm.objects.len();
    let before_log = pm.log.len();
    let already = pm.objects.iter().position(|o| o.path == path);
    let exe = env
        .layout
        .interpreter
        .as_ref()
        .and_then(|e| pm.objects.iter().position(|o| &o.path == e));
    let local = pm.load_closure(path, exe, &env.loader, &env.store);
    if local.is_empty() {
        report.verdict = Verdict::Unreadable;
        return Some(report);
    }
    // Objects whose relocations this load performs: the library and what it newly brought in.
    let new_objects: Vec<usize> = match already {
        Some(i) => vec![i],
        None => (before_objects..pm.objects.len()).collect(),
    };
    let mut missing_libs: Vec<(String, PathBuf, Vec<PathBuf>)> = Vec::new();
    for entry in &pm.log[before_log..] {
        let needed_by = pm.objects[entry.requester].path.clone();
        match &entry.resolution {
            Resolution::Found { path: p, via, .. } => report.needed.push(NeededLib {
                name: entry.name.clone(),
                needed_by,
                found: Some(p.clone()),
                via: Some(*via),
                searched: Vec::new(),
            }),
            Resolution::Missing { searched } => {
                missing_libs.push((entry.name.clone(), needed_by.clone(), searched.clone()));
                report.needed.push(NeededLib {
                    name: entry.name.clone(),
                    needed_by,
                    found: None,
                    via: None,
                    searched: searched.clone(),
                });
            }
        }
    }
    let mut fails = false;
    let mut degraded = false;
    // ld.so stops at the first missing library or version: symbols are then never bound, so
    // unresolved ones are listed but do not make findings of their own — except torch's of
    // another release or C++ ABI, which providing the missing library would not bind.
    let load_stops = !missing_libs.is_empty();
    // Whether torch's own libraries are among the missing: then torch's symbols cannot be judged.
    let torch_missing = missing_libs
        .iter()
        .any(|(name, _, _)| abidoc_knowledge::system_libs::is_torch_library(name));
    for (name, needed_by, searched) in missing_libs {
        let why = optional_reason(env, path, Some(&name));
        if why.is_some() {
            degraded = true;
        } else {
            fails = true;
        }
        report.findings.push(finding(
            Severity::Error,
            why,
            FindingFacts::MissingLibrary {
                name,
                needed_by,
                searched,
            },
        ));
    }
    // A load failure that stops the import, as an error finding; `true` when the package loads
    // this library only as an optional backend (the caller then counts it as degraded).
    let error_unless_optional = |report: &mut LibraryReport, facts: FindingFacts| {
        let why = optional_reason(env, path, None);
        let optional = why.is_some();
        report.findings.push(finding(Severity::Error, why, facts));
        optional
    };
    // glibc 2.41 and later refuse, at `dlopen`, an object that asks for an executable stack
    // (`cannot enable executable stack as shared object requires`): every import of it fails.
    if glibc_refuses_exec_stack(&pm) {
        for &oi in &new_objects {
            let obj = &pm.objects[oi];
            if !obj.facts.exec_stack {
                continue;
            }
            let object = obj.path.clone();
            if error_unless_optional(&mut report, FindingFacts::ExecutableStack { object }) {
                degraded = true;
            } else {
                fails = true;
            }
        }
    }
    // Version requirements (checked by ld.so before any symbol is bound).
    let mut missing_versions: HashSet<(String, String)> = HashSet::new();
    for &oi in &new_objects {
        let obj = &pm.objects[oi];
        for vn in &obj.facts.verneeds {
            let Some(pi) = pm.find_by_name(&vn.file) else {
                continue;
            };
            let provider = &pm.objects[pi];
            for (v, weak) in &vn.versions {
                let ok = provider.facts.verdefs.is_empty()
                    || provider.facts.verdefs.iter().any(|d| d == v);
                if ok || *weak {
                    continue;
                }
                missing_versions.insert((vn.file.clone(), v.clone()));
                let check = VersionCheck {
                    file: vn.file.clone(),
                    version: v.clone(),
                    needed_by: obj.path.clone(),
                    provider: Some(provider.path.clone()),
                    ok: false,
                    alternatives: alternatives(env, &vn.file, v, &provider.path),
                };
                report.versions.push(check.clone());
                if error_unless_optional(&mut report, FindingFacts::VersionMissing { check }) {
                    degraded = true;
                } else {
                    fails = true;
                }
            }
        }
    }
    // Symbol binding: global scope first, then the library's own search list.
    let mut scope: Vec<usize> = pm.global_scope.clone();
    for i in &local {
        if !scope.contains(i) {
            scope.push(*i);
        }
    }
    // The library's own search list without what the global scope already searched.
    let local_only: Vec<usize> = local
        .iter()
        .copied()
        .filter(|s| !pm.global_scope.contains(s))
        .collect();
    let mut unresolved = Vec::new();
    for &oi in &new_objects {
        let obj = &pm.objects[oi];
        for imp in obj.facts.imports.iter().filter(|i| !i.weak) {
            // The global scope through its index (built before this library was added, so it
            // cannot contain `oi`), then the library's own search list in order.
            let provider = pm
                .global_provider(&imp.name, imp.version.as_deref())
                .filter(|&s| s != oi)
                .or_else(|| {
                    local_only.iter().copied().find(|&s| {
                        s != oi
                            && pm.objects[s]
                                .facts
                                .defines(&imp.name, imp.version.as_deref())
                    })
                });
            match provider {
                Some(s) => {
                    *report
                        .resolved_by
                        .entry(pm.objects[s].path.clone())
                        .or_insert(0) += 1;
                }
                None if pm
                    .assumed_interpreter_prefixes
                    .iter()
                    .any(|p| imp.name.starts_with(p)) =>
                {
                    *report
                        .resolved_by
                        .entry(PathBuf::from("<python interpreter>"))
                        .or_insert(0) += 1;
                }
                None => unresolved.push((oi, imp)),
            }
        }
    }
    if !unresolved.is_empty() {
        if defer && !shared.prepared() {
            return None;
        }
        // What the library could bind to: torch, the interpreter (the shared global scope's
        // indexes), then the library's own dependencies (indexed here, once per check).
        let names: Vec<String> = scope
            .iter()
            .map(|&s| pm.objects[s].path.to_string_lossy().into_owned())
            .collect();
        let globals = pm.global_scope.len();
        let locals: Vec<abidoc_elf::ExportIndex<'_>> = scope[globals..]
            .iter()
            .map(|&s| {
                let mut ix = abidoc_elf::ExportIndex::new();
                ix.add_names("", pm.objects[s].facts.export_names());
                ix
            })
            .collect();
        // Each distinct name is classified once (a name several new objects import, at one or
        // more versions, shares its classification): one hash map pass, O(n), where comparing
        // every unresolved import with the ones before it would be O(n²). The distinct names
        // are then classified in parallel, in order.
        let mut slot_of: HashMap<&str, usize> = HashMap::with_capacity(unresolved.len());
        let mut distinct: Vec<&str> = Vec::new();
        let slots: Vec<usize> = unresolved
            .iter()
            .map(|(_, imp)| {
                *slot_of.entry(&*imp.name).or_insert_with(|| {
                    distinct.push(&imp.name);
                    distinct.len() - 1
                })
            })
            .collect();
        drop(slot_of);
        let classified: Vec<Classified> = {
            use rayon::prelude::*;
            distinct
                .par_iter()
                .map(|name| classify_name(name, &names, globals, shared, &locals))
                .collect()
        };
        // Borrowed views of the missing versions: looked up once per unresolved import, in
        // O(1) (a scan of every missing version per import was O(imports × versions)).
        let missing_pairs: HashSet<(&str, &str)> = missing_versions
            .iter()
            .map(|(f, v)| (f.as_str(), v.as_str()))
            .collect();
        let missing_version_files: HashSet<&str> =
            missing_versions.iter().map(|(f, _)| f.as_str()).collect();
        let mut symbols = Vec::new();
        let mut own = Vec::new();
        // torch symbols the installed torch lacks, in a library whose load stops earlier at a
        // missing library that is not torch's: providing that library will not bind them.
        let mut after_missing = Vec::new();
        for ((oi, imp), slot) in unresolved.iter().zip(slots) {
            let Some(c) = classified.get(slot) else {
                continue;
            };
            let in_missing_version = imp
                .version
                .as_deref()
                .zip(imp.version_file.as_deref())
                .is_some_and(|(v, f)| missing_pairs.contains(&(f, v)));
            // A symbol whose required version is missing keeps the classifier's raw nearest
            // variant; otherwise the C++11-ABI twin, when one was found, replaces it.
            let (status, nearest, nearest_in, nearest_demangled) = if in_missing_version {
                (
                    SymbolStatus::VersionMissing,
                    c.raw.nearest.clone(),
                    c.raw.nearest_library.as_ref().map(PathBuf::from),
                    c.raw.nearest_demangled.clone(),
                )
            } else if let Some(t) = &c.twin {
                (
                    SymbolStatus::Cxx11Abi,
                    t.0.clone(),
                    t.1.clone(),
                    t.2.clone(),
                )
            } else {
                (
                    c.status,
                    c.raw.nearest.clone(),
                    c.raw.nearest_library.as_ref().map(PathBuf::from),
                    c.raw.nearest_demangled.clone(),
                )
            };
            let own_package = status == SymbolStatus::Removed && c.own;
            let mut sc = SymbolCheck {
                mangled: imp.name.to_string(),
                demangled: c.raw.demangled.clone(),
                needed_by: pm.objects[*oi].path.clone(),
                status: if own_package {
                    SymbolStatus::Missing
                } else {
                    status
                },
                version: imp.version.as_deref().map(str::to_owned),
                nearest,
                nearest_demangled,
                nearest_in,
                difference: c.raw.difference.clone(),
                own_package,
            };
            let blocked = load_stops
                || imp
                    .version_file
                    .as_deref()
                    .is_some_and(|f| missing_version_files.contains(f));
            if load_stops
                && !torch_missing
                && is_torch_name(&sc.mangled)
                && matches!(
                    sc.status,
                    SymbolStatus::Removed | SymbolStatus::SignatureChanged | SymbolStatus::Cxx11Abi
                )
            {
                after_missing.push(sc.clone());
            }
            if blocked && sc.status == SymbolStatus::Removed {
                sc.status = SymbolStatus::Missing;
            }
            if blocked {
                // Reported through the missing library or version.
            } else if own_package {
                own.push(sc.clone());
            } else if status != SymbolStatus::VersionMissing {
                symbols.push(sc.clone());
            }
            report.symbols.push(sc);
        }
        let why = optional_reason(env, path, None);
        if why.is_some() {
            degraded = true;
        } else if !symbols.is_empty() || !own.is_empty() {
            fails = true;
        }
        // Listed before the missing library: the release built for the installed torch is the
        // fix that the library's own dependencies then follow.
        if !after_missing.is_empty() {
            if why.is_none() {
                fails = true;
            } else {
                degraded = true;
            }
            let at = report
                .findings
                .iter()
                .position(|f| matches!(f.facts, FindingFacts::MissingLibrary { .. }))
                .unwrap_or(report.findings.len());
            report.findings.insert(
                at,
                finding(
                    Severity::Error,
                    why.clone(),
                    FindingFacts::UndefinedSymbols {
                        symbols: after_missing,
                    },
                ),
            );
        }
        if !symbols.is_empty() {
            report.findings.push(finding(
                Severity::Error,
                why.clone(),
                FindingFacts::UndefinedSymbols { symbols },
            ));
        }
        if !own.is_empty() {
            report.findings.push(finding(
                Severity::Error,
                why,
                FindingFacts::IncompleteBuild { symbols: own },
            ));
        }
    }
    report.verdict = Verdict::of(fails, degraded);
    Some(report)
}

/// A mangled name in torch's C++ namespaces (`c10::`, `at::`, `torch::`, `caffe2::`), its
/// vtable and type info included, as macOS spells them too (`__Z…`).
fn is_torch_name(mangled: &str) -> bool {
    let m = mangled
        .strip_prefix('_')
        .filter(|r| r.starts_with("_Z"))
        .unwrap_or(mangled);
    let m = ["TV", "TI", "TS"]
        .iter()
        .find_map(|p| m.strip_prefix("_Z").and_then(|r| r.strip_prefix(p)))
        .map_or_else(|| m.to_owned(), |r| format!("_Z{r}"));
    crate::classify::qualified_prefix(&m)
        .is_some_and(|(_, root)| abidoc_knowledge::is_torch_namespace(&root))
}

/// What one unresolved name classifies as, whatever object imports it.
struct Classified {
    raw: abidoc_elf::Classification,
    /// The classifier's status in this crate's terms.
    status: SymbolStatus,
    /// For a changed or removed symbol: its C++11-ABI twin (mangled, library, demangled) when
    /// one is exported, which makes it a pure ABI flip.
    twin: Option<(Option<String>, Option<PathBuf>, Option<String>)>,
    /// Removed and in the extension's own namespace.
    own: bool,
}

/// Classifies `name` against only its candidates, library by library in scope order (`names`:
/// the scope's libraries, the first `globals` of them indexed by `shared`, the rest by
/// `locals`): `classify` sees exactly what an index of every export in scope would give it.
fn classify_name(
    name: &str,
    names: &[String],
    globals: usize,
    shared: &SharedExports<'_>,
    locals: &[abidoc_elf::ExportIndex<'_>],
) -> Classified {
    let bare = abidoc_elf::split_version(name).0;
    let key = abidoc_elf::qualified_key(bare);
    let mut index = abidoc_elf::ExportIndex::new();
    for (k, lib) in names.iter().enumerate() {
        let found = if k < globals {
            shared.candidates_keyed(k, bare, key)
        } else {
            locals
                .get(k - globals)
                .map(|ix| candidates(ix, bare))
                .unwrap_or_default()
        };
        // A library with no candidate adds nothing `classify` could name.
        if !found.is_empty() {
            index.add_names(lib, found);
        }
    }
    let raw = abidoc_elf::classify(name, &index);
    let status = match raw.status {
        abidoc_elf::Status::SignatureChanged => SymbolStatus::SignatureChanged,
        abidoc_elf::Status::Cxx11Abi => SymbolStatus::Cxx11Abi,
        abidoc_elf::Status::VersionMissing => SymbolStatus::VersionMissing,
        // Exported by name but not bindable (hidden version): still missing.
        abidoc_elf::Status::Resolved => SymbolStatus::Missing,
        abidoc_elf::Status::Removed => SymbolStatus::Removed,
        abidoc_elf::Status::Missing => SymbolStatus::Missing,
    };
    let twin = if matches!(
        status,
        SymbolStatus::SignatureChanged | SymbolStatus::Removed
    ) {
        let same = index.same_qualified_name(name);
        cxx11_twin(name, same.iter().map(|e| e.name)).map(|t| {
            (
                Some(t.to_string()),
                same.iter()
                    .find(|e| e.name == t)
                    .map(|e| PathBuf::from(index.library_name(e.library))),
                abidoc_elf::demangle(t),
            )
        })
    } else {
        None
    };
    let own = twin.is_none() && status == SymbolStatus::Removed && is_own_symbol(name);
    Classified {
        raw,
        status,
        twin,
        own,
    }
}

/// Files named `soname` elsewhere (environment lib dirs, the loader cache, default dirs) that
/// define `version`, other than `picked`.
fn alternatives(env: &Environment, soname: &str, version: &str, picked: &Path) -> Vec<PathBuf> {
    let mut dirs = env.env_lib_dirs();
    dirs.extend(env.loader.default_dirs.iter().cloned());
    let mut cands: Vec<PathBuf> = dirs.iter().map(|d| d.join(soname)).collect();
    if let Some(c) = env.loader.cache.get(soname) {
        cands.push(c.clone());
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for c in cands {
        if c == picked || out.contains(&c) || !env.store.is_file(&c) {
            continue;
        }
        if let Ok(f) = &*env.store.get(&c)
            && f.verdefs.iter().any(|d| d == version)
        {
            out.push(c);
        }
    }
    out
}

/// Package-level findings the loader does not see: exact torch pins, CUDA labels that
/// torchvision/torchaudio compare at import, xFormers' recorded build.
pub fn package_findings(env: &Environment, dist: &Distribution) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(torch) = &env.torch else {
        return out;
    };
    let installed = torch.version.clone().unwrap_or_default();
    let base = |severity: Severity, facts: FindingFacts| Finding {
        severity,
        package: Some(dist.normalized.clone()),
        package_version: dist.version.clone(),
        library: None,
        downgraded: None,
        moot: false,
        facts,
    };
    if dist.normalized != "torch"
        && let Some(pin) = dist.torch_pin()
        && !installed.is_empty()
        && !pin_matches(pin, &installed)
    {
        out.push(base(
            Severity::Warning,
            FindingFacts::TorchPin {
                required: pin.to_string(),
                installed: installed.clone(),
            },
        ));
    }
    if matches!(dist.normalized.as_str(), "torchvision" | "torchaudio") {
        let vp =
            crate::fsguard::read_text(&dist.root.join(dist.normalized.as_str()).join("version.py"))
                .map(|t| VersionPy::parse(&t))
                .ok();
        let pkg_cuda = vp
            .as_ref()
            .and_then(|v| v.label.as_ref().and_then(|l| l.cuda.clone()))
            .or_else(|| {
                dist.version
                    .as_deref()
                    .and_then(BuildLabel::parse)
                    .and_then(|l| l.cuda)
            });
        if let (Some(pc), Some(tc)) = (pkg_cuda, torch.cuda.clone())
            && major_minor(&pc) != major_minor(&tc)
        {
            out.push(base(
                Severity::Error,
                FindingFacts::CudaMismatch {
                    package_cuda: pc,
                    torch_cuda: tc,
                    refuses_import: true,
                },
            ));
        }
    }
    if dist.normalized == "xformers" {
        let p = dist.root.join("xformers").join("cpp_lib.json");
        if let Ok(b) = crate::fsguard::read_text(&p).and_then(|t| XformersBuild::parse(&t)) {
            let py = env.layout.python_version.clone();
            let torch_differs = b
                .torch
                .as_deref()
                .is_some_and(|t| public_version(t) != public_version(&installed));
            let py_differs = b
                .python
                .as_deref()
                .zip(py.as_deref())
                .is_some_and(|(bp, p)| major_minor(bp) != major_minor(p));
            if torch_differs || py_differs {
                out.push(base(
                    Severity::Warning,
                    FindingFacts::XformersBuild {
                        built_torch: b.torch,
                        built_python: b.python,
                        built_cuda: b.cuda,
                        torch: Some(installed.clone()),
                        python: py,
                    },
                ));
            }
        }
    }
    out
}

/// `==2.5.1` matches `2.5.1+cu121`; a pin with a local label must match it exactly.
fn pin_matches(pin: &str, installed: &str) -> bool {
    if pin.contains('+') {
        pin == installed
    } else {
        public_version(installed) == pin
    }
}

/// A library of another architecture than this machine's: (the file's, this machine's), as
/// `64-bit AArch64`, `64-bit x86-64`. No process here loads it.
pub fn foreign_architecture(f: &crate::facts::LibFacts) -> Option<(String, String)> {
    let ours = cfg!(target_pointer_width = "64");
    let host = crate::environment::host_machine();
    let bits = |is_64: bool| if is_64 { 64 } else { 32 };
    (f.machine != host || f.is_64 != ours).then(|| {
        (
            format!("{}-bit {}", bits(f.is_64), machine_name(f.machine)),
            format!("{}-bit {}", bits(ours), machine_name(host)),
        )
    })
}

fn machine_name(m: u16) -> &'static str {
    match m {
        3 => "i386",
        62 => "x86-64",
        183 => "AArch64",
        40 => "ARM",
        243 => "RISC-V",
        21 => "PowerPC64",
        22 => "s390x",
        _ => "unknown machine",
    }
}

/// Whether the process's C library is glibc 2.41 or later, whose `dlopen` no longer makes the
/// stack executable for an object that asks for it: its version definitions reach `GLIBC_2.41`.
fn glibc_refuses_exec_stack(pm: &crate::loader::ProcessModel) -> bool {
    pm.find_by_name("libc.so.6").is_some_and(|i| {
        pm.objects[i]
            .facts
            .verdefs
            .iter()
            .any(|v| glibc_at_least(v, (2, 41)))
    })
}

/// `GLIBC_2.41` (or later) against `(2, 41)`.
pub(crate) fn glibc_at_least(version: &str, min: (u32, u32)) -> bool {
    let Some(v) = version.strip_prefix("GLIBC_") else {
        return false;
    };
    let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) => (a, b) >= min,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::glibc_at_least;

    #[test]
    fn glibc_versions_compare_by_number() {
        assert!(glibc_at_least("GLIBC_2.41", (2, 41)));
        assert!(glibc_at_least("GLIBC_2.42", (2, 41)));
        assert!(glibc_at_least("GLIBC_3.0", (2, 41)));
        assert!(!glibc_at_least("GLIBC_2.4", (2, 41)));
        assert!(!glibc_at_least("GLIBC_2.39", (2, 41)));
        assert!(!glibc_at_least("GLIBC_PRIVATE", (2, 41)));
        assert!(!glibc_at_least("GLIBCXX_3.4.41", (2, 41)));
    }

    #[test]
    fn torch_names_are_read_through_vtables_and_macos_spelling() {
        use super::is_torch_name;
        for m in [
            "_ZN3c105ErrorC1ENS_14SourceLocationESs",
            "_ZNK2at10TensorBase4sizeEl",
            "_ZTVN5torch8autograd4NodeE",
            "__ZN6caffe28TypeMeta21_typeMetaDataInstanceIfEEPKNS_6detail12TypeMetaDataEv",
        ] {
            assert!(is_torch_name(m), "{m}");
        }
        for m in [
            "_ZNSt6thread6_StateD2Ev",
            "_ZN4llvm5Error3fooEv",
            "cudaMalloc",
        ] {
            assert!(!is_torch_name(m), "{m}");
        }
    }
}
