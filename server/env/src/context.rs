//! Second opinions on a scan's missing-library findings that need more than the one library:
//! a library that Python never imports itself is judged where its loaders load it, and an
//! extension whose package loads a sibling library by hand before importing it is judged with
//! that sibling loaded. Each check models `dlopen` of one file after `import torch`; these two
//! cases are where that differs from what an `import` does.

use crate::check::{FindingFacts, LibraryReport, Severity, Verdict};
use crate::environment::Environment;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Reads a package's Python sources at most this far (bytes per file).
const MAX_SOURCE: u64 = 1 << 20;
/// Python files of one distribution searched for a library's name.
const MAX_SOURCES: usize = 5_000;

/// Lowers, in place, the missing-library errors that an `import` would not meet (see the module
/// comment), saying why, and recomputes the verdicts they decided.
pub fn judge(env: &Environment, reports: &mut [LibraryReport]) {
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
