//! The environment scan: every compiled extension (from RECORD, plus stray `.so` files no
//! distribution owns), checked in parallel, with results cached on disk by (path, size, mtime) and
//! the torch identity so a second scan only re-reads what changed.

use crate::check::{
    Finding, LibraryReport, check_library_deferred, check_library_with, package_findings,
};
use crate::environment::Environment;
use crate::exports::SharedExports;
use crate::fsguard::stamp;
use crate::problem::Problem;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bumped whenever a cached field changes meaning.
const CACHE_VERSION: u32 = 2;
/// Directory depth below site-packages walked for stray libraries.
pub const MAX_DEPTH: usize = 12;
/// Files visited per site-packages walk before giving up (a runaway tree).
pub const MAX_WALK_ENTRIES: usize = 500_000;

#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Where the cache lives; `None`: no cache.
    pub cache_dir: Option<PathBuf>,
    /// Also walk site-packages for `.so` files that no RECORD lists.
    pub include_stray: bool,
}

impl ScanOptions {
    /// `$XDG_CACHE_HOME/abidoc`, else `$HOME/.cache/abidoc`, from values the caller passes in.
    pub fn default_cache_dir(
        xdg_cache_home: Option<&Path>,
        home: Option<&Path>,
    ) -> Option<PathBuf> {
        xdg_cache_home
            .map(|x| x.join("abidoc"))
            .or_else(|| home.map(|h| h.join(".cache").join("abidoc")))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanStats {
    pub libraries: usize,
    pub from_cache: usize,
    pub analyzed: usize,
    /// Files parsed as ELF in this run (torch libraries, dependencies, extensions).
    pub elf_parsed: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScanReport {
    pub site_packages: Vec<PathBuf>,
    pub torch_version: Option<String>,
    pub torch_cuda: Option<String>,
    pub torch_cxx11_abi: Option<bool>,
    pub libraries: Vec<LibraryReport>,
    /// Package-level findings (pins, CUDA labels, xFormers build info).
    pub package_findings: Vec<Finding>,
    pub problems: Vec<Problem>,
    pub stats: ScanStats,
}

impl ScanReport {
    /// Every finding, library ones first, in path order.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.libraries
            .iter()
            .flat_map(|l| l.findings.iter())
            .chain(self.package_findings.iter())
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    env_key: String,
    entries: BTreeMap<PathBuf, CacheEntry>,
    /// Where each library some report misses would be found ([`Environment::locate`]).
    #[serde(default)]
    located: BTreeMap<String, Option<PathBuf>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct CacheEntry {
    size: u64,
    mtime: i128,
    report: LibraryReport,
}

/// A checked library with its (size, mtime) stamp.
/// (size, mtime) of a library file, the cache's validity key.
type Stamp = (u64, i128);
type Checked = (PathBuf, Option<Stamp>, LibraryReport);

fn is_shared_library_name(name: &str) -> bool {
    name.ends_with(".so") || name.contains(".so.")
}

/// What the RECORDs say for the scan: the shared libraries they list under site-packages, and the
/// top-level directories of site-packages they list files in.
fn record_libraries(env: &Environment) -> (Vec<PathBuf>, HashSet<PathBuf>) {
    let sps = &env.layout.site_packages;
    let per_dist: Vec<(Vec<PathBuf>, HashSet<PathBuf>)> = env
        .dists
        .par_iter()
        .map(|d| {
            let base = d.listing().1;
            let mut libs = Vec::new();
            // A file's top-level directory depends only on its parent directory: join each
            // distinct directory once instead of every one of tens of thousands of entries.
            let mut dirs: HashSet<String> = HashSet::new();
            let mut tops: HashSet<PathBuf> = HashSet::new();
            let _ = d.for_each_file_entry(|e| {
                let (dir, name) = match e.rsplit_once('/') {
                    Some(("", n)) => ("/", n),
                    Some(dn) => dn,
                    None => ("", e),
                };
                if name.is_empty() || name == "." || name == ".." {
                    // Not a plain file name: the entry's own top-level directory, the long way.
                    let p = crate::dist::lexical_join(&base, Path::new(e));
                    tops.extend(top_dir(&p, sps));
                    return;
                }
                if !dirs.contains(dir) {
                    dirs.insert(dir.to_owned());
                }
                if is_shared_library_name(name) {
                    let p = crate::dist::lexical_join(&base, Path::new(e));
                    if sps.iter().any(|sp| p.starts_with(sp))
                        && (p.exists() || std::fs::symlink_metadata(&p).is_ok())
                    {
                        libs.push(p);
                    }
                }
            });
            for dir in dirs {
                // A file directly in site-packages says nothing about its siblings: only files
                // in a directory below it count (that directory's first component).
                let d = crate::dist::lexical_join(&base, Path::new(&dir));
                tops.extend(sps.iter().find_map(|sp| {
                    let first = d.strip_prefix(sp).ok()?.components().next()?;
                    Some(sp.join(first))
                }));
            }
            (libs, tops)
        })
        .collect();
    let mut libs = Vec::new();
    let mut tops = HashSet::new();
    for (l, t) in per_dist {
        libs.extend(l);
        tops.extend(t);
    }
    (libs, tops)
}

/// The top-level directory of site-packages that holds the file `p`, when `p` is in one.
fn top_dir(p: &Path, sps: &[PathBuf]) -> Option<PathBuf> {
    sps.iter().find_map(|sp| {
        let mut c = p.strip_prefix(sp).ok()?.components();
        let first = c.next()?;
        c.next().map(|_| sp.join(first))
    })
}

/// Shared libraries that belong to the environment: RECORD entries, plus stray files when asked.
pub fn find_libraries(
    env: &Environment,
    include_stray: bool,
    problems: &mut Vec<Problem>,
) -> Vec<PathBuf> {
    let (mut out, owned_top) = record_libraries(env);
    if include_stray {
        let owned: HashSet<PathBuf> = out.iter().cloned().collect();
        // Top-level directories some RECORD lists files in are not walked: listing every file of
        // an environment costs more than the whole scan on slow filesystems, and a stray library
        // lives in a directory no installer owns (a manual copy, an in-place build).
        for sp in &env.layout.site_packages {
            let mut found = Vec::new();
            walk(
                sp,
                0,
                &owned_top,
                &mut found,
                &mut HashSet::new(),
                &mut 0,
                problems,
            );
            out.extend(found.into_iter().filter(|p| !owned.contains(p)));
        }
    }
    out.sort();
    out.dedup();
    out
}

fn walk(
    dir: &Path,
    depth: usize,
    skip: &HashSet<PathBuf>,
    out: &mut Vec<PathBuf>,
    seen: &mut HashSet<(u64, u64)>,
    visited: &mut usize,
    problems: &mut Vec<Problem>,
) {
    use std::os::unix::fs::MetadataExt;
    if depth > MAX_DEPTH {
        problems.push(Problem::at(
            dir,
            "directory tree too deep; not walked further",
        ));
        return;
    }
    // Directories are identified by (dev, inode) so symlinked loops are walked once.
    let Ok(md) = std::fs::metadata(dir) else {
        return;
    };
    if !seen.insert((md.dev(), md.ino())) {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        problems.push(Problem::at(dir, "cannot list directory"));
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        *visited += 1;
        if *visited > MAX_WALK_ENTRIES {
            problems.push(Problem::at(dir, "too many files; walk stopped"));
            return;
        }
        let p = e.path();
        let Ok(ft) = e.file_type() else {
            continue;
        };
        let name = e.file_name();
        let name = name.to_string_lossy();
        if ft.is_dir() || (ft.is_symlink() && p.is_dir()) {
            if name == "__pycache__"
                || name.ends_with(".dist-info")
                || name.ends_with(".egg-info")
                || (depth == 0 && skip.contains(&p))
            {
                continue;
            }
            walk(&p, depth + 1, skip, out, seen, visited, problems);
        } else if is_shared_library_name(&name) {
            out.push(p);
        }
    }
}

fn env_key(env: &Environment) -> String {
    let torch = env
        .torch
        .as_ref()
        .map(super::torch::TorchInstall::identity)
        .unwrap_or_default();
    format!(
        "v{CACHE_VERSION}|{}|{torch}|{:?}|{:?}|driver={}",
        env.layout
            .site_packages
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":"),
        env.loader.ld_library_path,
        env.layout.interpreter,
        env.has_nvidia_driver
    )
}

fn cache_path(dir: &Path, key: &str) -> PathBuf {
    // FNV-1a of the env key: one cache file per environment.
    let mut h: u64 = 0xcbf29ce484222325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    dir.join(format!("scan-v{CACHE_VERSION}-{h:016x}.json"))
}

fn load_cache(path: &Path, key: &str) -> CacheFile {
    let fresh = || CacheFile {
        version: CACHE_VERSION,
        env_key: key.to_string(),
        entries: BTreeMap::new(),
        located: BTreeMap::new(),
    };
    let Ok(text) = crate::fsguard::read_text(path) else {
        return fresh();
    };
    match serde_json::from_str::<CacheFile>(&text) {
        Ok(c) if c.version == CACHE_VERSION && c.env_key == key => c,
        // A corrupted or foreign cache is ignored and rewritten.
        _ => fresh(),
    }
}

fn save_cache(path: &Path, cache: &CacheFile) -> Result<(), String> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    let text = serde_json::to_string(cache).map_err(|e| e.to_string())?;
    // Write then rename, so a concurrent reader never sees half a file.
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, path).map_err(|e| e.to_string())
}

/// Scans the environment. `progress(done, total)` is called as libraries complete.
pub fn scan(
    env: &Environment,
    options: &ScanOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> ScanReport {
    let mut problems = env.problems.clone();
    let libs = find_libraries(env, options.include_stray, &mut problems);
    let key = env_key(env);
    let cache_file = options.cache_dir.as_deref().map(|d| cache_path(d, &key));
    let cache = cache_file
        .as_deref()
        .map(|p| load_cache(p, &key))
        .unwrap_or_default();
    env.remember_located(cache.located.iter().map(|(k, v)| (k.clone(), v.clone())));
    let total = libs.len();
    let shared = SharedExports::new(env);
    let done = AtomicUsize::new(0);
    let from_cache = AtomicUsize::new(0);
    let stamps: Vec<Option<Stamp>> = libs
        .par_iter()
        .map(|p| {
            std::fs::metadata(p)
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| stamp(&m))
        })
        .collect();
    // Cached reports are moved out of the cache, not copied: a cached scan is mostly this.
    let cached_count = cache.entries.len();
    let mut entries = cache.entries;
    let mut reports: Vec<Option<LibraryReport>> = libs
        .iter()
        .zip(&stamps)
        .map(|(p, st)| {
            let (size, mtime) = (*st)?;
            entries
                .remove(p)
                .filter(|e| e.size == size && e.mtime == mtime)
                .map(|e| e.report)
        })
        .collect();
    drop(entries);
    for _ in reports.iter().flatten() {
        from_cache.fetch_add(1, Ordering::Relaxed);
        let d = done.fetch_add(1, Ordering::Relaxed) + 1;
        progress(d, total);
    }
    let fresh: Vec<usize> = (0..total).filter(|&i| reports[i].is_none()).collect();
    if !fresh.is_empty() {
        // Phases, each started from this thread so that rayon spreads it over every core (work
        // begun inside a worker would leave the others blocked on its `OnceLock`): read every
        // library to check, biggest first; model the process; check; build the global export
        // indexes only if some library has unresolved symbols; classify those libraries.
        let mut by_size: Vec<(u64, &Path)> = fresh
            .iter()
            .map(|&i| (stamps[i].map_or(0, |s| s.0), libs[i].as_path()))
            .collect();
        by_size.sort_by_key(|b| std::cmp::Reverse(b.0));
        by_size.par_iter().with_max_len(1).for_each(|(_, p)| {
            let _ = env.store.get(p);
        });
        let _ = env.process();
        let first: Vec<(usize, Option<LibraryReport>)> = fresh
            .par_iter()
            .map(|&i| {
                let r = check_library_deferred(&shared, &libs[i]);
                if r.is_some() {
                    let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                    progress(d, total);
                }
                (i, r)
            })
            .collect();
        let deferred: Vec<usize> = first
            .iter()
            .filter(|(_, r)| r.is_none())
            .map(|(i, _)| *i)
            .collect();
        for (i, r) in first {
            reports[i] = r;
        }
        if !deferred.is_empty() {
            shared.prepare();
            let second: Vec<(usize, LibraryReport)> = deferred
                .par_iter()
                .map(|&i| {
                    let r = check_library_with(&shared, &libs[i]);
                    let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                    progress(d, total);
                    (i, r)
                })
                .collect();
            for (i, r) in second {
                reports[i] = Some(r);
            }
        }
    }
    let results: Vec<Checked> = libs
        .iter()
        .zip(stamps)
        .zip(reports)
        .filter_map(|((p, st), r)| Some((p.clone(), st, r?)))
        .collect();
    let from_cache = from_cache.load(Ordering::Relaxed);
    if let Some(cp) = &cache_file
        && (from_cache != total || cached_count != total)
    {
        let mut entries = BTreeMap::new();
        for (p, st, r) in &results {
            if let Some((size, mtime)) = st {
                entries.insert(
                    p.clone(),
                    CacheEntry {
                        size: *size,
                        mtime: *mtime,
                        report: r.clone(),
                    },
                );
            }
        }
        let mut located = BTreeMap::new();
        for (_, _, r) in &results {
            for n in r.needed.iter().filter(|n| n.found.is_none()) {
                if !located.contains_key(&n.name) {
                    located.insert(n.name.clone(), env.locate(&n.name));
                }
            }
        }
        let c = CacheFile {
            version: CACHE_VERSION,
            env_key: key.clone(),
            entries,
            located,
        };
        if let Err(e) = save_cache(cp, &c) {
            problems.push(Problem::at(cp, format!("cannot write scan cache: {e}")));
        }
    }
    let mut libraries: Vec<LibraryReport> = results.into_iter().map(|(_, _, r)| r).collect();
    // After the cache is written: what it decides depends on other libraries, so it is judged
    // again on every scan.
    crate::context::judge(env, &mut libraries);
    env.remember(&libraries);
    let mut pkg = Vec::new();
    for d in &env.dists {
        pkg.extend(package_findings(env, d));
    }
    ScanReport {
        site_packages: env.layout.site_packages.clone(),
        torch_version: env.torch.as_ref().and_then(|t| t.version.clone()),
        torch_cuda: env.torch.as_ref().and_then(|t| t.cuda.clone()),
        torch_cxx11_abi: env.torch.as_ref().and_then(|t| t.cxx11_abi),
        stats: ScanStats {
            libraries: total,
            from_cache,
            analyzed: total - from_cache,
            elf_parsed: env.store.parsed_count(),
        },
        libraries,
        package_findings: pkg,
        problems,
    }
}
