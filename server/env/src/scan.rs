//! The environment scan: every compiled extension (from RECORD, plus stray `.so` files no
//! distribution owns), checked in parallel, with results cached on disk (a private file, written
//! under a random name and renamed into place) by the file's stamp, the stamps of every library
//! and directory its verdict depends on, and the torch identity, so a second scan only re-reads
//! what changed.

use crate::check::{
    Finding, LibraryReport, check_library_deferred, check_library_with, package_findings,
};
use crate::environment::Environment;
use crate::exports::SharedExports;
use crate::fsguard::FileStamp;
use crate::problem::Problem;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bumped whenever a cached field changes meaning.
const CACHE_VERSION: u32 = 5;
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
    stamp: FileStamp,
    /// What the report's verdict depends on besides the library itself (see [`report_deps`]),
    /// each with its stamp when checked (`None`: it did not exist).
    deps: BTreeMap<PathBuf, Option<FileStamp>>,
    report: LibraryReport,
}

/// A library file's stamp, the first half of the cache's validity key.
type Stamp = FileStamp;
type Checked = (PathBuf, Option<Stamp>, LibraryReport);

/// The files and directories a library's report depends on besides the library itself: every
/// library its load pulled in or bound symbols from, version providers and the alternatives
/// named, and the directories searched for a library that was not found (a directory's stamp
/// changes when an entry is added, so installing the missing library invalidates the report).
/// Torch's libraries and the interpreter are in the environment key as well.
fn report_deps(r: &LibraryReport) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for n in &r.needed {
        match &n.found {
            Some(f) => {
                out.insert(f.clone());
            }
            None => out.extend(n.searched.iter().cloned()),
        }
    }
    // `<python interpreter>` and the like are labels, not files.
    out.extend(
        r.resolved_by
            .keys()
            .filter(|p| !p.as_os_str().as_encoded_bytes().starts_with(b"<"))
            .cloned(),
    );
    for v in &r.versions {
        out.extend(v.provider.iter().cloned());
        out.extend(v.alternatives.iter().cloned());
    }
    out.remove(&r.path);
    out
}

/// Stamps of `paths`, each looked at once (many reports share torch's and libstdc++'s).
fn stamp_all<'p>(paths: impl Iterator<Item = &'p PathBuf>) -> HashMap<PathBuf, Option<FileStamp>> {
    let unique: BTreeSet<&PathBuf> = paths.collect();
    unique
        .into_par_iter()
        .map(|p| (p.clone(), FileStamp::at(p)))
        .collect()
}

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
        "v{CACHE_VERSION}|{}|{torch}|{:?}|{:?}|driver={}|ld.so.cache={:?}",
        env.layout
            .site_packages
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":"),
        env.loader.ld_library_path,
        env.layout.interpreter,
        env.has_nvidia_driver,
        env.ld_cache_stamp
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

/// 64 unpredictable bits without a crate: std's `RandomState` is seeded from the OS's random
/// source, mixed with the pid, the time and a counter so two calls never repeat.
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.finish()
}

/// A new file in `dir` that no one else can have prepared: a random name, created exclusively
/// (`O_EXCL`: an existing file or symlink there fails the open instead of being written
/// through), never following a link, readable by its owner only.
fn create_private_temp(dir: &Path) -> Result<(PathBuf, std::fs::File), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut last = String::new();
    for _ in 0..16 {
        let tmp = dir.join(format!(".scan-{:016x}.tmp", random_u64()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)
        {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = e.to_string(),
            Err(e) => return Err(e.to_string()),
        }
    }
    Err(format!("no free temporary name: {last}"))
}

fn save_cache(path: &Path, cache: &CacheFile) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::DirBuilderExt;
    let dir = path.parent().ok_or("cache file has no directory")?;
    // Private when created: reports name every library and package of the environment.
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| e.to_string())?;
    let text = serde_json::to_vec(cache).map_err(|e| e.to_string())?;
    // Write a private temporary, then rename it over the cache: a concurrent reader never sees
    // half a file, and `rename` replaces whatever is at `path` (a planted symlink included)
    // instead of writing through it.
    let (tmp, mut file) = create_private_temp(dir)?;
    let written = file
        .write_all(&text)
        .and_then(|()| file.flush())
        .map_err(|e| e.to_string());
    drop(file);
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path).map_err(|e| e.to_string()));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
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
                .map(|m| FileStamp::of(&m))
        })
        .collect();
    // Cached reports are moved out of the cache, not copied: a cached scan is mostly this. An
    // entry counts only when its library and every dependency it recorded are unchanged.
    let cached_count = cache.entries.len();
    let mut entries = cache.entries;
    let mut candidates: Vec<Option<CacheEntry>> = libs
        .iter()
        .zip(&stamps)
        .map(|(p, st)| {
            let st = (*st)?;
            entries.remove(p).filter(|e| e.stamp == st)
        })
        .collect();
    drop(entries);
    let mut dep_stamps = stamp_all(candidates.iter().flatten().flat_map(|e| e.deps.keys()));
    let mut kept_deps: Vec<Option<BTreeMap<PathBuf, Option<FileStamp>>>> = vec![None; total];
    let mut reports: Vec<Option<LibraryReport>> = candidates
        .iter_mut()
        .zip(kept_deps.iter_mut())
        .map(|(c, kept)| {
            let e = c.take()?;
            let unchanged = e
                .deps
                .iter()
                .all(|(p, st)| dep_stamps.get(p).is_some_and(|now| now == st));
            unchanged.then(|| {
                *kept = Some(e.deps);
                e.report
            })
        })
        .collect();
    drop(candidates);
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
            .map(|&i| (stamps[i].map_or(0, |s| s.size), libs[i].as_path()))
            .collect();
        by_size.sort_by_key(|b| std::cmp::Reverse(b.0));
        by_size.par_iter().with_max_len(1).for_each(|(_, p)| {
            let _ = env.store.get(p);
        });
        let _ = env.process();
        let _ = env.owner(Path::new("/"));
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
    // The dependencies recorded for reports served from the cache travel with them.
    let (results, kept_deps): (Vec<Checked>, Vec<_>) = libs
        .iter()
        .zip(stamps)
        .zip(reports)
        .zip(kept_deps)
        .filter_map(|(((p, st), r), kept)| Some(((p.clone(), st, r?), kept)))
        .unzip();
    let from_cache = from_cache.load(Ordering::Relaxed);
    if let Some(cp) = &cache_file
        && (from_cache != total || cached_count != total)
    {
        // Dependencies of the reports made in this run, stamped now (reused entries keep theirs,
        // just found unchanged).
        let fresh_deps: Vec<Option<BTreeSet<PathBuf>>> = results
            .iter()
            .zip(&kept_deps)
            .map(|((_, _, r), kept)| kept.is_none().then(|| report_deps(r)))
            .collect();
        let unstamped: Vec<&PathBuf> = fresh_deps
            .iter()
            .flatten()
            .flatten()
            .filter(|p| !dep_stamps.contains_key(*p))
            .collect();
        let more = stamp_all(unstamped.into_iter());
        dep_stamps.extend(more);
        let mut entries = BTreeMap::new();
        for (((p, st, r), kept), fresh) in results.iter().zip(kept_deps).zip(fresh_deps) {
            let Some(stamp) = st else {
                continue;
            };
            let deps = match (kept, fresh) {
                (Some(k), _) => k,
                (None, Some(f)) => f
                    .into_iter()
                    .map(|d| {
                        let st = dep_stamps.get(&d).copied().flatten();
                        (d, st)
                    })
                    .collect(),
                (None, None) => BTreeMap::new(),
            };
            entries.insert(
                p.clone(),
                CacheEntry {
                    stamp: *stamp,
                    deps,
                    report: r.clone(),
                },
            );
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
    let mut pkg = crate::context::judge(env, &mut libraries);
    env.remember(&libraries);
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
