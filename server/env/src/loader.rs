//! A model of glibc's `ld.so` as plain data: how each DT_NEEDED of a library is found (RPATH of the
//! object and its loaders when it has no RUNPATH, `LD_LIBRARY_PATH`, RUNPATH, `/etc/ld.so.cache`,
//! default directories, `$ORIGIN`/`$LIB`/`$PLATFORM`), and which objects a Python process already
//! has after `import torch`: the interpreter and its libraries, torch's libraries by SONAME, and the
//! objects torch loads with `RTLD_GLOBAL`.
//!
//! Architecture invariant: nothing here reads the process environment; every input is passed in.

use crate::facts::{LibFacts, name_hash};
use crate::fsguard::map_library;
use crate::ldcache::{LdCache, host_required_flags};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// How a DT_NEEDED entry was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FoundVia {
    /// Already loaded in the process (same SONAME or name), e.g. torch's `libc10.so`.
    AlreadyLoaded,
    /// The name contains a `/`.
    Path,
    Rpath,
    LdLibraryPath,
    Runpath,
    LdCache,
    DefaultDir,
}

/// Search settings for one process.
#[derive(Debug, Clone, Default)]
pub struct LoaderConfig {
    pub ld_library_path: Vec<PathBuf>,
    /// SONAME → path, from `/etc/ld.so.cache` (entries for this architecture).
    pub cache: HashMap<String, PathBuf>,
    pub default_dirs: Vec<PathBuf>,
    /// `$LIB` expansion (`lib64`, or `lib/x86_64-linux-gnu` on Debian-style systems).
    pub lib: String,
    /// `$PLATFORM` expansion (`x86_64`).
    pub platform: String,
}

impl LoaderConfig {
    /// Builds a configuration from an `LD_LIBRARY_PATH` value, a parsed cache, and default dirs
    /// (`None`: glibc's defaults for this architecture, including the multiarch directories).
    pub fn new(
        ld_library_path: Option<&str>,
        cache: Option<&LdCache>,
        default_dirs: Option<Vec<PathBuf>>,
    ) -> LoaderConfig {
        let arch = std::env::consts::ARCH;
        let multiarch = format!("{arch}-linux-gnu");
        let default_dirs = default_dirs.unwrap_or_else(|| {
            [
                format!("/lib/{multiarch}"),
                format!("/usr/lib/{multiarch}"),
                "/lib64".into(),
                "/usr/lib64".into(),
                "/lib".into(),
                "/usr/lib".into(),
            ]
            .into_iter()
            .map(PathBuf::from)
            .collect()
        });
        let lib = if Path::new(&format!("/lib/{multiarch}")).is_dir() {
            format!("lib/{multiarch}")
        } else {
            "lib64".to_string()
        };
        LoaderConfig {
            // Empty entries mean the current directory to ld.so; a scan has no meaningful one.
            ld_library_path: ld_library_path
                .unwrap_or("")
                .split([':', ';'])
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
                .collect(),
            cache: cache
                .map(|c| {
                    c.index(host_required_flags())
                        .into_iter()
                        .map(|(k, v)| (k, PathBuf::from(v)))
                        .collect()
                })
                .unwrap_or_default(),
            default_dirs,
            lib,
            platform: arch.to_string(),
        }
    }

    /// Expands `$ORIGIN`, `${ORIGIN}`, `$LIB`, `$PLATFORM` in one RPATH/RUNPATH entry.
    pub fn expand(&self, entry: &str, origin: &Path) -> PathBuf {
        let origin = origin.to_string_lossy();
        let mut s = entry.to_string();
        for (k, v) in [
            ("${ORIGIN}", origin.as_ref()),
            ("$ORIGIN", origin.as_ref()),
            ("${LIB}", self.lib.as_str()),
            ("$LIB", self.lib.as_str()),
            ("${PLATFORM}", self.platform.as_str()),
            ("$PLATFORM", self.platform.as_str()),
        ] {
            s = s.replace(k, v);
        }
        PathBuf::from(s)
    }
}

/// A parsed library, or why it could not be read.
pub type Parsed = Arc<Result<Arc<LibFacts>, String>>;

/// Parsed libraries, shared between threads, keyed by the path as opened.
#[derive(Debug, Default)]
pub struct LibStore {
    map: Mutex<HashMap<PathBuf, Parsed>>,
    parsed: std::sync::atomic::AtomicUsize,
    /// Files a planned install would add (read from a wheel, never written to disk) and files
    /// it would remove: the loader model sees the environment as it would be after the install.
    overlay: Mutex<Overlay>,
}

#[derive(Debug, Default)]
struct Overlay {
    added: std::collections::HashSet<PathBuf>,
    removed: std::collections::HashSet<PathBuf>,
}

impl LibStore {
    /// Makes `path` exist with these facts, as if a wheel had installed it there.
    pub fn install_virtual(&self, path: &Path, facts: Result<Arc<LibFacts>, String>) {
        if let Ok(mut m) = self.map.lock() {
            m.insert(path.to_path_buf(), Arc::new(facts));
        }
        if let Ok(mut o) = self.overlay.lock() {
            o.removed.remove(path);
            o.added.insert(path.to_path_buf());
        }
    }

    /// Makes `path` absent, as if an uninstall had removed it.
    pub fn remove_virtual(&self, path: &Path) {
        if let Ok(mut o) = self.overlay.lock() {
            if o.added.contains(path) {
                return;
            }
            o.removed.insert(path.to_path_buf());
        }
        if let Ok(mut m) = self.map.lock() {
            m.insert(
                path.to_path_buf(),
                Arc::new(Err("removed by the planned install".into())),
            );
        }
    }

    /// Whether `path` is a regular file in the environment as modelled (the planned install's
    /// files included, its removals excluded).
    pub fn is_file(&self, path: &Path) -> bool {
        if let Ok(o) = self.overlay.lock() {
            if o.added.contains(path) {
                return true;
            }
            if o.removed.contains(path) {
                return false;
            }
        }
        path.is_file()
    }

    pub fn get(&self, path: &Path) -> Parsed {
        if let Ok(m) = self.map.lock()
            && let Some(r) = m.get(path)
        {
            return r.clone();
        }
        let r = Arc::new(map_library(path).and_then(|b| LibFacts::from_bytes(b).map(Arc::new)));
        self.parsed
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut m) = self.map.lock() {
            m.entry(path.to_path_buf()).or_insert_with(|| r.clone());
        }
        r
    }

    /// How many files were actually parsed (cache misses).
    pub fn parsed_count(&self) -> usize {
        self.parsed.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// One object in a (modelled) process.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub path: PathBuf,
    pub facts: Arc<LibFacts>,
    /// Names it was requested under (DT_NEEDED strings), plus its SONAME.
    pub names: Vec<String>,
    /// Index of the object whose DT_NEEDED loaded it (its `l_loader`), if any.
    pub loader: Option<usize>,
}

/// Why a process is believed to contain an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Provenance {
    Interpreter,
    Torch,
    TorchGlobal,
}

/// What a Python process has loaded after `import torch`.
#[derive(Debug, Clone, Default)]
pub struct ProcessModel {
    pub objects: Vec<Loaded>,
    /// Indices into `objects` searched for symbols before an extension's own scope, in order.
    pub global_scope: Vec<usize>,
    /// When the interpreter could not be read: symbols with these prefixes count as provided.
    pub assumed_interpreter_prefixes: Vec<&'static str>,
    /// Every DT_NEEDED lookup made while loading, in order.
    pub log: Vec<NeedLog>,
    /// Every name the global scope exports, hashed: checks look up each symbol once instead of
    /// searching every object. Built by [`ProcessModel::index_global_scope`]; shared, so cloning
    /// the model for a check is cheap.
    pub global_index: Arc<GlobalIndex>,
}

/// (name hash, position in `global_scope`, position of the name's first export in that object's
/// `exports`), sorted, with a directory from the top bits of a hash to its first row: a lookup
/// reads one directory slot and a row or two instead of binary-searching a table of ~300k rows
/// (a cache miss per step), and checks the export in place instead of searching the object.
#[derive(Debug, Clone, Default)]
pub struct GlobalIndex {
    rows: Vec<(u64, u32, u32)>,
    dir: Vec<u32>,
    shift: u32,
}

impl GlobalIndex {
    fn new(rows: Vec<(u64, u32, u32)>) -> GlobalIndex {
        let bits = usize::BITS - rows.len().leading_zeros();
        let bits = bits.clamp(1, 24);
        let shift = 64 - bits;
        let slots = 1usize << bits;
        let mut dir = Vec::with_capacity(slots + 1);
        let mut r = 0usize;
        for slot in 0..slots {
            while rows
                .get(r)
                .is_some_and(|&(h, _, _)| ((h >> shift) as usize) < slot)
            {
                r += 1;
            }
            dir.push(u32::try_from(r).unwrap_or(u32::MAX));
        }
        dir.push(u32::try_from(rows.len()).unwrap_or(u32::MAX));
        GlobalIndex { rows, dir, shift }
    }

    /// The rows from the first with hash `h` (or the next greater) to the end of `h`'s slot.
    fn rows(&self, h: u64) -> &[(u64, u32, u32)] {
        let slot = (h >> self.shift) as usize;
        let (Some(&a), Some(&b)) = (self.dir.get(slot), self.dir.get(slot + 1)) else {
            return &[];
        };
        let run = self.rows.get(a as usize..b as usize).unwrap_or(&[]);
        &run[run.partition_point(|&(k, _, _)| k < h)..]
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// One DT_NEEDED lookup: who asked, for what, and the outcome.
#[derive(Debug, Clone)]
pub struct NeedLog {
    pub requester: usize,
    pub name: String,
    pub resolution: Resolution,
}

/// Prefixes of symbols the CPython interpreter exports (used when it cannot be read).
pub const PYTHON_SYMBOL_PREFIXES: &[&str] = &["Py", "_Py", "PyExc_", "_PyExc_"];

impl ProcessModel {
    pub fn find_by_name(&self, name: &str) -> Option<usize> {
        self.objects
            .iter()
            .position(|o| o.names.iter().any(|n| n == name) || o.path.as_os_str() == name)
    }

    fn find_by_path(&self, path: &Path) -> Option<usize> {
        self.objects.iter().position(|o| o.path == path)
    }

    fn push(&mut self, l: Loaded) -> usize {
        self.objects.push(l);
        self.objects.len() - 1
    }

    /// Adds `path` and its dependency closure (breadth-first, like `_dl_map_object_deps`).
    /// Returns the indices of every object in its search list (new and already present).
    pub fn load_closure(
        &mut self,
        path: &Path,
        loader: Option<usize>,
        cfg: &LoaderConfig,
        store: &LibStore,
    ) -> Vec<usize> {
        let root = match self.find_by_path(path) {
            Some(i) => i,
            None => {
                let Ok(facts) = (*store.get(path)).clone() else {
                    return Vec::new();
                };
                let names = facts.soname.iter().cloned().collect();
                self.push(Loaded {
                    path: path.to_path_buf(),
                    facts,
                    names,
                    loader,
                })
            }
        };
        let mut list = vec![root];
        let mut i = 0;
        while i < list.len() {
            let obj = list[i];
            i += 1;
            let needed = self.objects[obj].facts.needed.clone();
            for n in needed {
                let res = resolve(&n, obj, self, cfg, store);
                self.log.push(NeedLog {
                    requester: obj,
                    name: n.clone(),
                    resolution: res.clone(),
                });
                let dep = match res {
                    Resolution::Found {
                        index: Some(idx), ..
                    } => idx,
                    Resolution::Found { path, .. } => {
                        let Ok(facts) = (*store.get(&path)).clone() else {
                            continue;
                        };
                        let mut names = vec![n.clone()];
                        names.extend(facts.soname.iter().cloned());
                        self.push(Loaded {
                            path,
                            facts,
                            names,
                            loader: Some(obj),
                        })
                    }
                    Resolution::Missing { .. } => continue,
                };
                if !self.objects[dep].names.contains(&n) {
                    self.objects[dep].names.push(n.clone());
                }
                if !list.contains(&dep) {
                    list.push(dep);
                }
            }
        }
        list
    }

    /// (Re)builds [`ProcessModel::global_index`] from the current global scope (objects hashed
    /// in parallel, one sorted table: no allocation per name).
    pub fn index_global_scope(&mut self) {
        use rayon::prelude::*;
        let objects = &self.objects;
        let rows_of = |(k, &g): (usize, &usize)| {
            let Some(o) = objects.get(g) else {
                return Vec::new();
            };
            let k = u32::try_from(k).unwrap_or(u32::MAX);
            let hashes = o.facts.export_hashes();
            let mut out = Vec::with_capacity(hashes.len());
            for (i, &h) in hashes.iter().enumerate() {
                // One row per name (a name's other versions follow it), reading no names.
                if !o.facts.first_of_name(i) {
                    continue;
                }
                if let Ok(i) = u32::try_from(i) {
                    out.push((h, k, i));
                }
            }
            out
        };
        // Built inside `Environment::process`'s `OnceLock`: on a rayon worker it must not fork
        // (see `Environment::owner`), else in parallel.
        let rows: Vec<(u64, u32, u32)> = if rayon::current_thread_index().is_some() {
            let mut rows: Vec<_> = self
                .global_scope
                .iter()
                .enumerate()
                .flat_map(rows_of)
                .collect();
            rows.sort_unstable();
            rows
        } else {
            let mut rows: Vec<_> = self
                .global_scope
                .par_iter()
                .enumerate()
                .flat_map(rows_of)
                .collect();
            // (hash, scope position): providers of one name stay in scope order.
            rows.par_sort_unstable();
            rows
        };
        self.global_index = Arc::new(GlobalIndex::new(rows));
    }

    /// The first object of the global scope that binds `name` (at `version`), if any.
    pub fn global_provider(&self, name: &str, version: Option<&str>) -> Option<usize> {
        let h = name_hash(name);
        self.global_index
            .rows(h)
            .iter()
            .take_while(|&&(k, _, _)| k == h)
            .filter_map(|&(_, pos, at)| {
                let i = self.global_scope.get(pos as usize).copied()?;
                Some((i, at))
            })
            .find(|&(i, at)| {
                self.objects
                    .get(i)
                    .is_some_and(|o| o.facts.defines_from(at as usize, name, version))
            })
            .map(|(i, _)| i)
    }

    /// Adds objects to the global scope (RTLD_GLOBAL, or the executable's own dependencies).
    pub fn make_global(&mut self, indices: &[usize]) {
        for &i in indices {
            if !self.global_scope.contains(&i) {
                self.global_scope.push(i);
            }
        }
    }
}

/// The outcome of searching for one DT_NEEDED name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Found {
        path: PathBuf,
        via: FoundVia,
        /// Set when the object is already in the process model.
        index: Option<usize>,
    },
    Missing {
        /// Every directory searched, in order.
        searched: Vec<PathBuf>,
    },
}

/// Finds `name`, needed by `process.objects[requester]`, the way glibc does.
pub fn resolve(
    name: &str,
    requester: usize,
    process: &ProcessModel,
    cfg: &LoaderConfig,
    store: &LibStore,
) -> Resolution {
    if let Some(i) = process.find_by_name(name) {
        return Resolution::Found {
            path: process.objects[i].path.clone(),
            via: FoundVia::AlreadyLoaded,
            index: Some(i),
        };
    }
    let Some(req) = process.objects.get(requester) else {
        return Resolution::Missing {
            searched: Vec::new(),
        };
    };
    let want = (req.facts.is_64, req.facts.machine);
    let compatible = |p: &Path| -> bool {
        match &*store.get(p) {
            Ok(f) => (f.is_64, f.machine) == want,
            Err(_) => false,
        }
    };
    if name.contains('/') {
        let p = PathBuf::from(name);
        return if store.is_file(&p) && compatible(&p) {
            let index = process.find_by_path(&p);
            Resolution::Found {
                path: p,
                via: FoundVia::Path,
                index,
            }
        } else {
            Resolution::Missing {
                searched: Vec::new(),
            }
        };
    }
    let mut searched = Vec::new();
    let try_dirs =
        |dirs: Vec<PathBuf>, via: FoundVia, searched: &mut Vec<PathBuf>| -> Option<Resolution> {
            for d in dirs {
                // ld.so identifies files by device and inode; a lexical clean-up of `dir/../x` is
                // enough for the same file reached through two RPATH spellings to be one object.
                let p = crate::dist::lexical_join(Path::new("/"), &d.join(name));
                searched.push(d);
                if store.is_file(&p) && compatible(&p) {
                    let index = process.find_by_path(&p);
                    return Some(Resolution::Found {
                        path: p,
                        via,
                        index,
                    });
                }
            }
            None
        };
    let origin_of = |o: &Loaded| o.path.parent().map(Path::to_path_buf).unwrap_or_default();
    // RPATH of the requester and then of each loader up the chain, but only when the requester
    // has no RUNPATH; an object with RUNPATH never contributes its RPATH.
    if req.facts.runpath.is_empty() {
        let mut cur = Some(requester);
        let mut seen = Vec::new();
        while let Some(i) = cur {
            if seen.contains(&i) {
                break;
            }
            seen.push(i);
            let o = &process.objects[i];
            if o.facts.runpath.is_empty() && !o.facts.rpath.is_empty() {
                let dirs = o
                    .facts
                    .rpath
                    .iter()
                    .map(|e| cfg.expand(e, &origin_of(o)))
                    .collect();
                if let Some(r) = try_dirs(dirs, FoundVia::Rpath, &mut searched) {
                    return r;
                }
            }
            cur = o.loader;
        }
    }
    if let Some(r) = try_dirs(
        cfg.ld_library_path.clone(),
        FoundVia::LdLibraryPath,
        &mut searched,
    ) {
        return r;
    }
    if !req.facts.runpath.is_empty() {
        let dirs = req
            .facts
            .runpath
            .iter()
            .map(|e| cfg.expand(e, &origin_of(req)))
            .collect();
        if let Some(r) = try_dirs(dirs, FoundVia::Runpath, &mut searched) {
            return r;
        }
    }
    if req.facts.nodeflib {
        return Resolution::Missing { searched };
    }
    if let Some(p) = cfg.cache.get(name)
        && store.is_file(p)
        && compatible(p)
    {
        let index = process.find_by_path(p);
        return Resolution::Found {
            path: p.clone(),
            via: FoundVia::LdCache,
            index,
        };
    }
    if let Some(r) = try_dirs(
        cfg.default_dirs.clone(),
        FoundVia::DefaultDir,
        &mut searched,
    ) {
        return r;
    }
    Resolution::Missing { searched }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::GlobalIndex;

    /// The directory must hand back every row of a hash, in scope order, whatever slot
    /// boundaries fall around it: compare with a linear filter over many tables.
    #[test]
    fn directory_finds_every_row_of_a_hash() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for n in [0usize, 1, 2, 3, 7, 64, 1000, 5000] {
            let mut rows: Vec<(u64, u32, u32)> = Vec::new();
            for i in 0..n {
                // Some hashes repeat (several objects export the name), some sit at the very
                // ends of the range.
                let h = match i % 5 {
                    0 => 0,
                    1 => u64::MAX,
                    2 if i > 0 => rows[i - 1].0,
                    _ => next(),
                };
                rows.push((h, (i % 3) as u32, i as u32));
            }
            rows.sort_unstable();
            let ix = GlobalIndex::new(rows.clone());
            assert_eq!(ix.len(), n);
            let mut probes: Vec<u64> = rows.iter().map(|r| r.0).collect();
            probes.extend([1, u64::MAX - 1, 1 << 63]);
            probes.extend((0..50).map(|_| next()));
            for h in probes {
                let want: Vec<_> = rows.iter().filter(|r| r.0 == h).copied().collect();
                let got: Vec<_> = ix
                    .rows(h)
                    .iter()
                    .take_while(|r| r.0 == h)
                    .copied()
                    .collect();
                assert_eq!(got, want, "n={n} h={h:#x}");
            }
        }
    }
}
