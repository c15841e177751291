//! Second opinions on a scan's findings that need more than the one library: a library that
//! Python never imports itself is judged where its loaders load it, an extension whose package
//! loads a sibling library by hand before importing it is judged with that sibling loaded, and
//! of a package's per-backend libraries (`libbitsandbytes_cuda124.so`, `_rocm72`, `_cpu`;
//! providers loaded on request; torchcodec's sets, one per FFmpeg major, of which the first that
//! loads is used) only the ones its import needs are judged at all, by the rule `packages.toml`
//! gives for it. Each check models `dlopen` of one file after `import torch`; these cases are
//! where that differs from what an `import` does.

use crate::check::{Finding, FindingFacts, LibraryReport, Severity, Verdict};
use crate::environment::Environment;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Reads a package's Python sources at most this far (bytes per file).
const MAX_SOURCE: u64 = 1 << 20;
/// Python files of one distribution searched for a library's name.
const MAX_SOURCES: usize = 5_000;

/// Lowers, in place, the missing-library errors that an `import` would not meet (see the module
/// comment), saying why, and recomputes the verdicts they decided. Returns the package-level
/// findings this judgement adds: a package whose import picks a per-backend library for
/// torch's CUDA that it does not ship.
pub fn judge(env: &Environment, reports: &mut [LibraryReport]) -> Vec<Finding> {
    let added = judge_backends(env, reports);
    judge_loaded(env, reports);
    added
}

fn judge_loaded(env: &Environment, reports: &mut [LibraryReport]) {
    // (requesting object, library name) → a scanned library in whose load it was found.
    let mut wanted: HashMap<(PathBuf, String), Option<(PathBuf, PathBuf)>> = HashMap::new();
    for r in reports.iter() {
        for f in &r.findings {
            if let FindingFacts::MissingLibrary {
                name, needed_by, ..
            } = &f.facts
                && f.severity == Severity::Error
                && f.downgraded.is_none()
            {
                wanted.insert((needed_by.clone(), name.clone()), None);
            }
        }
    }
    if wanted.is_empty() {
        return;
    }
    for r in reports.iter() {
        for n in &r.needed {
            if let Some(found) = &n.found
                && let Some(slot) = wanted.get_mut(&(n.needed_by.clone(), n.name.clone()))
                && slot.is_none()
            {
                *slot = Some((r.path.clone(), found.clone()));
            }
        }
    }
    let mut sources = Sources::default();
    for r in reports.iter_mut() {
        let mut changed = false;
        let path = r.path.clone();
        let package = r.package.clone();
        for f in &mut r.findings {
            let FindingFacts::MissingLibrary {
                name, needed_by, ..
            } = &f.facts
            else {
                continue;
            };
            if f.severity != Severity::Error || f.downgraded.is_some() {
                continue;
            }
            let why = match wanted.get(&(needed_by.clone(), name.clone())) {
                Some(Some((loader, found))) if !is_importable(&path) && loader != &path => {
                    Some(format!(
                        "{} is not a Python module: it is loaded by {}, whose search path finds {name} ({})",
                        file_name(&path),
                        file_name(loader),
                        shown(env, found).display()
                    ))
                }
                _ if needed_by == &path => package
                    .as_deref()
                    .and_then(|p| sources.preloads(env, &path, p, name)),
                _ => None,
            };
            if let Some(why) = why {
                f.severity = Severity::Information;
                f.downgraded = Some(why);
                f.moot = true;
                changed = true;
            }
        }
        if changed {
            reverdict(r);
        }
    }
}

/// The verdict again, after some of `r`'s errors were lowered.
fn reverdict(r: &mut LibraryReport) {
    if r.verdict == Verdict::Fails {
        let fails = r
            .findings
            .iter()
            .any(|f| f.severity == Severity::Error && f.downgraded.is_none());
        let degraded = r.findings.iter().any(|f| f.downgraded.is_some() && !f.moot);
        r.verdict = Verdict::of(fails, degraded);
    }
}

/// Lowers every open error of `r` to information with no fix: its package's import never meets
/// it, for the reason `why`.
fn lower(r: &mut LibraryReport, why: &str) {
    let mut changed = false;
    for f in &mut r.findings {
        if f.severity == Severity::Error && f.downgraded.is_none() {
            f.severity = Severity::Information;
            f.downgraded = Some(why.to_owned());
            f.moot = true;
            changed = true;
        }
    }
    if changed {
        reverdict(r);
    }
}

/// `libbitsandbytes_cuda124.so` → `libbitsandbytes_cuda124`, `MPI.mpich.cpython-312-….so` →
/// `MPI.mpich`.
fn stem(p: &Path) -> &str {
    abidoc_knowledge::backends::file_stem(file_name(p))
}

/// Lowers every error of a per-backend library that the package's import does not load (see
/// the module comment): it is information, and no fix applies to it. When the library the
/// import picks for torch's CUDA is not installed at all (bitsandbytes 0.45 next to a CUDA 13
/// torch), the package is reported: its import goes on without its GPU functions.
fn judge_backends(env: &Environment, reports: &mut [LibraryReport]) -> Vec<Finding> {
    use abidoc_knowledge::backends::{Selection, TorchBuild, select, versions};
    let mut added = Vec::new();
    // (directory, package, rule index) → the reports of that group.
    let mut groups: HashMap<(PathBuf, &'static str, usize), Vec<usize>> = HashMap::new();
    for (i, r) in reports.iter().enumerate() {
        let Some(pkg) = r.package.as_deref().and_then(abidoc_knowledge::package) else {
            continue;
        };
        let Some(dir) = r.path.parent() else {
            continue;
        };
        for (k, b) in pkg.backends.iter().enumerate() {
            if b.covers(r.package_version.as_deref())
                && dir.ends_with(&b.dir)
                && b.matches(stem(&r.path))
            {
                groups
                    .entry((dir.to_path_buf(), pkg.name.as_str(), k))
                    .or_default()
                    .push(i);
            }
        }
    }
    let torch = TorchBuild {
        cuda: env.torch.as_ref().and_then(|t| t.cuda.as_deref()),
        hip: env.torch.as_ref().and_then(|t| t.hip.as_deref()),
        version: env.torch.as_ref().and_then(|t| t.version.as_deref()),
    };
    let var = |name: &str| {
        env.selector_vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    for ((_, package, k), members) in groups {
        let Some(rule) = abidoc_knowledge::package(package).and_then(|p| p.backends.get(k)) else {
            continue;
        };
        // `import bitsandbytes`, as a user types it.
        let import = abidoc_knowledge::package(package)
            .and_then(|p| p.import_names.first())
            .map_or(package, String::as_str);
        if rule.rule == "first-that-loads" {
            judge_sets(rule, import, &members, reports);
            continue;
        }
        if rule.rule == "one-per-provider" {
            judge_variants(rule, import, &members, reports);
            continue;
        }
        let stems: Vec<&str> = members
            .iter()
            .filter_map(|&i| reports.get(i))
            .map(|r| stem(&r.path))
            .collect();
        let Some(selection) = select(rule, &stems, &torch, &var) else {
            continue;
        };
        if let Selection::One { stem: chosen, .. } = &selection
            && !stems.contains(&chosen.as_str())
            && let Some(torch_cuda) = torch.cuda
            && let Some(gpu) = rule.gpu.iter().find(|g| g.torch == "cuda")
            && gpu.override_var.as_deref().and_then(&var).is_none()
            && let Some(&(a, i)) = versions(rule, gpu, &stems).last()
            && let Some(first) = members.first().and_then(|&i| reports.get(i))
        {
            added.push(Finding {
                severity: Severity::Warning,
                package: first.package.clone(),
                package_version: first.package_version.clone(),
                library: None,
                downgraded: None,
                moot: false,
                facts: FindingFacts::CudaMismatch {
                    package_cuda: format!("{a}.{i}"),
                    torch_cuda: torch_cuda.to_owned(),
                    refuses_import: false,
                },
            });
        }
        let mut lowered = Vec::new();
        for &i in &members {
            let Some(r) = reports.get(i) else { continue };
            let name = file_name(&r.path);
            let why = match &selection {
                Selection::One { stem: chosen, .. } if chosen == stem(&r.path) => continue,
                Selection::One { stem: chosen, why } => {
                    format!("`import {import}` loads {chosen}.so, not {name} ({why})")
                }
                Selection::None { why } => {
                    format!("`import {import}` does not load {name}: it is {why}")
                }
            };
            lowered.push((i, why));
        }
        for (i, why) in lowered {
            if let Some(r) = reports.get_mut(i) {
                lower(r, &why);
            }
        }
    }
    added
}

/// Judges one `first-that-loads` group (torchcodec's library sets, one per FFmpeg major) as its
/// package loads it: a set's libraries are loaded together, each after the ones before it
/// (torchcodec's core before its custom ops, which name the core in DT_NEEDED without a
/// RUNPATH), so a library's missing sibling of its own set is no error of its own; then every
/// set the package does not need, by `unneeded_sets`, is information with no fix. When no set
/// loads, the sets that decide keep their errors: the package's FFmpeg-dependent loading fails.
fn judge_sets(
    rule: &abidoc_knowledge::backends::Backends,
    import: &str,
    members: &[usize],
    reports: &mut [LibraryReport],
) {
    use abidoc_knowledge::backends::{SetCheck, set_number, unneeded_sets};
    let label = rule.variant.as_deref().unwrap_or("version");
    let open = |f: &Finding| f.severity == Severity::Error && f.downgraded.is_none();
    // Set number → the file names of its libraries.
    let mut sets: HashMap<u32, Vec<String>> = HashMap::new();
    for r in members.iter().filter_map(|&i| reports.get(i)) {
        if let Some(n) = set_number(stem(&r.path)) {
            sets.entry(n)
                .or_default()
                .push(file_name(&r.path).to_owned());
        }
    }
    let mut checks = Vec::new();
    for &i in members {
        let Some(r) = reports.get_mut(i) else {
            continue;
        };
        let Some(n) = set_number(stem(&r.path)) else {
            continue;
        };
        let own = file_name(&r.path).to_owned();
        let siblings = sets.get(&n).map(Vec::as_slice).unwrap_or_default();
        let mut changed = false;
        for f in &mut r.findings {
            if let FindingFacts::MissingLibrary { name, .. } = &f.facts
                && open(f)
                && *name != own
                && siblings.contains(name)
            {
                f.severity = Severity::Information;
                f.downgraded = Some(format!(
                    "{import} loads {name} before {own} (the libraries of one {label} set are loaded together, in order): {name}'s own verdict decides"
                ));
                f.moot = true;
                changed = true;
            }
        }
        if changed {
            reverdict(r);
        }
        checks.push(SetCheck {
            number: n,
            loads: matches!(r.verdict, Verdict::Loads | Verdict::Degraded),
            found_all: !r
                .findings
                .iter()
                .any(|f| open(f) && matches!(f.facts, FindingFacts::MissingLibrary { .. })),
        });
    }
    let unneeded = unneeded_sets(rule, import, &checks);
    if unneeded.is_empty() {
        return;
    }
    for &i in members {
        let Some(r) = reports.get_mut(i) else {
            continue;
        };
        if let Some((_, why)) =
            set_number(stem(&r.path)).and_then(|n| unneeded.iter().find(|(u, _)| *u == n))
        {
            lower(r, why);
        }
    }
}

/// Judges one `one-per-provider` group (mpi4py's `MPI.mpich` and `MPI.openmpi`) as its package
/// loads it: when one variant loads, the package finds that provider and the other variants'
/// failures are information with no fix; when none loads, every failure stands.
fn judge_variants(
    rule: &abidoc_knowledge::backends::Backends,
    import: &str,
    members: &[usize],
    reports: &mut [LibraryReport],
) {
    use abidoc_knowledge::backends::unneeded_variants;
    let who = format!("`from {import} import {}`", rule.prefix);
    let variants: Vec<(String, bool)> = members
        .iter()
        .filter_map(|&i| reports.get(i))
        .map(|r| {
            let loads = matches!(r.verdict, Verdict::Loads | Verdict::Degraded);
            (stem(&r.path).to_owned(), loads)
        })
        .collect();
    let borrowed: Vec<(&str, bool)> = variants.iter().map(|(s, l)| (s.as_str(), *l)).collect();
    let unneeded = unneeded_variants(rule, &who, &borrowed);
    for &i in members {
        let Some(r) = reports.get_mut(i) else {
            continue;
        };
        if let Some((_, why)) = unneeded.iter().find(|(s, _)| s == stem(&r.path)) {
            lower(r, why);
        }
    }
}

/// `p` relative to the site-packages holding it, as a user reads it in a package listing.
fn shown<'p>(env: &Environment, p: &'p Path) -> &'p Path {
    env.layout
        .site_packages
        .iter()
        .find_map(|sp| p.strip_prefix(sp).ok())
        .unwrap_or(p)
}

fn file_name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// Whether `import` could load this file as an extension module: CPython's suffixes are
/// `.cpython-XY-….so`, `.abi3.so` and `.so`, and a `lib…` name is a library by convention
/// (torch's, torchaudio's and the wheels' grafted `.libs` load theirs by path or DT_NEEDED).
fn is_importable(p: &Path) -> bool {
    let n = file_name(p);
    n.ends_with(".so") && !n.starts_with("lib")
}

/// Python sources of distributions, read once per scan.
#[derive(Default)]
struct Sources {
    by_package: HashMap<String, Vec<(PathBuf, String)>>,
}

impl Sources {
    /// Why `lib` (missing for `ext`) is loaded by the package itself first: the distribution
    /// installs a file of that name and one of its Python files names it.
    fn preloads(
        &mut self,
        env: &Environment,
        ext: &Path,
        package: &str,
        lib: &str,
    ) -> Option<String> {
        // By the report's package name: `Environment::owner` would join every RECORD line of
        // the environment, which a cached scan otherwise never does.
        let dist = env.dists.iter().find(|d| d.normalized == package)?;
        let base = dist.listing().1;
        let mut sibling = None;
        let mut py = Vec::new();
        let _ = dist.for_each_file_entry(|e| {
            let name = e.rsplit('/').next().unwrap_or(e);
            if name == lib && sibling.is_none() {
                sibling = Some(crate::dist::lexical_join(&base, Path::new(e)));
            } else if name.ends_with(".py") && py.len() < MAX_SOURCES {
                py.push(crate::dist::lexical_join(&base, Path::new(e)));
            }
        });
        let sibling = sibling.filter(|s| s.is_file())?;
        // `_load_lib("libtorchaudio")`, `ctypes.CDLL(... "libfoo.so")`: the stem is what
        // both spellings share.
        let stem = lib.split(".so").next().filter(|s| s.len() > 3)?;
        let files = self
            .by_package
            .entry(package.to_owned())
            .or_insert_with(|| {
                py.iter()
                    .filter_map(|p| {
                        let text = crate::fsguard::read_text_prefix(p, MAX_SOURCE).ok()?;
                        Some((p.clone(), text))
                    })
                    .collect()
            });
        let (file, _) = files.iter().find(|(_, t)| {
            t.match_indices(stem).any(|(i, _)| {
                // The whole name, not a longer one (`libtorchaudio_sox` is another library).
                let next = t[i + stem.len()..].chars().next();
                !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })?;
        Some(format!(
            "{package} loads {lib} itself ({}) before importing {}: the import then depends on {}'s own verdict",
            shown(env, file).display(),
            file_name(ext),
            file_name(&sibling)
        ))
    }
}
