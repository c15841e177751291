//! One Python environment opened for analysis: its layout, distributions, file owners (built
//! lazily from RECORD), the installed torch, the loader configuration, and the modelled process
//! after `import torch` (built once, shared by every check).

use crate::dist::{Distribution, read_site};
use crate::ldcache::LdCache;
use crate::loader::{
    LibStore, LoaderConfig, PYTHON_SYMBOL_PREFIXES, ProcessModel, Resolution, resolve,
};
use crate::problem::Problem;
use crate::report::LibraryReport;
use crate::site::{EnvSpec, Layout, discover};
use crate::torch::{TorchInstall, cxx11_abi_of};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

#[derive(Debug)]
pub struct Environment {
    pub layout: Layout,
    pub dists: Vec<Distribution>,
    pub torch: Option<TorchInstall>,
    pub loader: LoaderConfig,
    pub store: LibStore,
    /// Whether `libcuda.so.1` (the NVIDIA driver) can be found on this machine.
    pub has_nvidia_driver: bool,
    /// [`EnvSpec::selector_vars`].
    pub selector_vars: Vec<(String, String)>,
    /// The stamp of the loader cache read at open (`None`: none was read). `ldconfig` changes
    /// what resolves without changing any directory a report depends on, so cached verdicts
    /// are keyed by it.
    pub ld_cache_stamp: Option<crate::fsguard::FileStamp>,
    pub problems: Vec<Problem>,
    owners: OnceLock<HashMap<PathBuf, usize>>,
    process: OnceLock<ProcessModel>,
    /// Libraries already checked (by a scan, or [`Environment::report`]), by path as checked:
    /// the diagnosis of a scan's findings reads them instead of checking each library again.
    pub(crate) reports: Mutex<HashMap<PathBuf, Arc<LibraryReport>>>,
    /// [`Environment::locate`] answers, also read from and saved to the scan cache: a cached
    /// scan then phrases its fixes without building the process model.
    located: Mutex<HashMap<String, Option<PathBuf>>>,
}

/// Past this many parsed libraries, an environment is freed on a thread of its own.
const FREE_IN_BACKGROUND: usize = 32;

impl Drop for Environment {
    /// A scanned environment holds every library's exports (~500k strings with torch): freeing
    /// them takes tens of milliseconds that the caller (a CLI about to print and exit, an editor
    /// waiting for a hover) should not wait for.
    fn drop(&mut self) {
        if self.store.parsed_count() < FREE_IN_BACKGROUND {
            return;
        }
        let store = std::mem::take(&mut self.store);
        let process = self.process.take();
        let reports = std::mem::take(&mut self.reports);
        let _ = std::thread::Builder::new()
            .name("abidoc-free".into())
            .spawn(move || drop((store, process, reports)));
    }
}

impl Environment {
    /// Opens the environment `spec` names. Never fails: what could not be read is in `problems`.
    pub fn open(spec: &EnvSpec) -> Environment {
        // Relative directories are made absolute once, here: `$ORIGIN` expands against the
        // library's path, and a relative and an absolute spelling of one environment must share
        // reports and the scan cache. Symlinks are kept (the loader sees the path as given).
        let absolute_spec;
        let spec = if spec.site_packages.iter().any(|p| !p.is_absolute()) {
            absolute_spec = EnvSpec {
                site_packages: spec.site_packages.iter().map(|p| absolute(p)).collect(),
                ..spec.clone()
            };
            &absolute_spec
        } else {
            spec
        };
        let (layout, mut problems) = discover(spec);
        let mut dists = Vec::new();
        for sp in &layout.site_packages {
            let (d, p) = read_site(sp);
            dists.extend(d);
            problems.extend(p);
        }
        let cache_path = spec
            .ld_cache
            .clone()
            .unwrap_or_else(|| PathBuf::from("/etc/ld.so.cache"));
        let ld_cache_stamp = std::fs::metadata(&cache_path)
            .ok()
            .map(|m| crate::fsguard::FileStamp::of(&m));
        let cache = match crate::fsguard::map_library(&cache_path) {
            Ok(b) => {
                let c = LdCache::parse(b.as_ref());
                for m in &c.problems {
                    problems.push(Problem::at(&cache_path, m.clone()));
                }
                Some(c)
            }
            Err(e) => {
                if spec.ld_cache.is_some() {
                    problems.push(Problem::at(&cache_path, e));
                }
                None
            }
        };
        let loader = LoaderConfig::new(
            spec.ld_library_path.as_deref(),
            cache.as_ref(),
            spec.default_lib_dirs.clone(),
        );
        let store = LibStore::default();
        let (mut torch, torch_problems) = TorchInstall::find_noting(&layout.site_packages, &dists);
        problems.extend(torch_problems);
        if let Some(t) = torch.as_mut()
            && let Some(c10) = t.c10_path()
            && let Ok(f) = &*store.get(&c10)
        {
            t.cxx11_abi = cxx11_abi_of(f);
        }
        let has_nvidia_driver = spec.has_nvidia_driver.unwrap_or_else(|| {
            loader.cache.contains_key("libcuda.so.1")
                || loader
                    .default_dirs
                    .iter()
                    .chain(loader.ld_library_path.iter())
                    .any(|d| d.join("libcuda.so.1").is_file())
        });
        Environment {
            layout,
            dists,
            torch,
            loader,
            store,
            has_nvidia_driver,
            selector_vars: spec.selector_vars.clone(),
            ld_cache_stamp,
            problems,
            owners: OnceLock::new(),
            process: OnceLock::new(),
            reports: Mutex::new(HashMap::new()),
            located: Mutex::new(HashMap::new()),
        }
    }

    /// The distribution that installed `path` (by RECORD), if any.
    pub fn owner(&self, path: &Path) -> Option<&Distribution> {
        let owners = self.owners.get_or_init(|| {
            use rayon::prelude::*;
            // Tens of thousands of RECORD lines: read and joined in parallel, inserted in
            // distribution order (the first distribution listing a file owns it).
            // On a rayon worker (the first `owner` call inside a parallel check) this work must
            // not fork: waiting on its own forks, the worker could steal another check that
            // calls `owner` and block forever on this very `OnceLock` (seen on a 16-core scan).
            let lists: Vec<Vec<PathBuf>> = if rayon::current_thread_index().is_some() {
                self.dists.iter().map(|d| d.files().0).collect()
            } else {
                self.dists.par_iter().map(|d| d.files().0).collect()
            };
            let mut m = HashMap::with_capacity(lists.iter().map(Vec::len).sum());
            for (i, files) in lists.into_iter().enumerate() {
                for f in files {
                    m.entry(f).or_insert(i);
                }
            }
            m
        });
        let key = crate::dist::lexical_join(Path::new("/"), path);
        owners
            .get(&key)
            .or_else(|| owners.get(path))
            .and_then(|&i| self.dists.get(i))
    }

    /// Every file listed in some RECORD, with its owner index (for the scan), in no order.
    pub fn owned_files(&self) -> Vec<(PathBuf, usize)> {
        self.owner(Path::new("/"));
        let v: Vec<(PathBuf, usize)> = self
            .owners
            .get()
            .map(|m| m.iter().map(|(p, i)| (p.clone(), *i)).collect())
            .unwrap_or_default();
        // Unsorted: sorting tens of thousands of paths costs more than the rest of a cached scan.
        v
    }

    pub fn dist(&self, normalized: &str) -> Option<&Distribution> {
        self.dists.iter().find(|d| d.normalized == normalized)
    }

    /// The modelled Python process after `import torch`.
    pub fn process(&self) -> &ProcessModel {
        self.process.get_or_init(|| self.build_process())
    }

    fn build_process(&self) -> ProcessModel {
        let mut pm = ProcessModel::default();
        let cfg = &self.loader;
        let mut exe_index = None;
        if let Some(exe) = &self.layout.interpreter {
            let closure = pm.load_closure(exe, None, cfg, &self.store);
            exe_index = closure.first().copied();
            pm.make_global(&closure);
        }
        let provides_python = |pm: &ProcessModel| {
            pm.global_scope.iter().any(|&i| {
                pm.objects[i].facts.defines("PyModule_Create2", None)
                    || pm.objects[i].facts.defines("Py_Initialize", None)
            })
        };
        if !provides_python(&pm)
            && let Some(lp) = &self.layout.libpython
        {
            let closure = pm.load_closure(lp, exe_index, cfg, &self.store);
            pm.make_global(&closure);
        }
        if !provides_python(&pm) {
            pm.assumed_interpreter_prefixes = PYTHON_SYMBOL_PREFIXES.to_vec();
        }
        if let Some(t) = &self.torch {
            // torch's own libraries are most of the model's parsing (libtorch_cpu/libtorch_cuda
            // export ~250k symbols): parse them in parallel before the (serial) closure walk.
            {
                use rayon::prelude::*;
                let mut first: Vec<PathBuf> = t.libs.clone();
                first.extend(t.c_extension());
                // Not from a rayon worker: see `owner` (a fork inside a `OnceLock`'s init).
                if rayon::current_thread_index().is_some() {
                    first.iter().for_each(|l| {
                        let _ = self.store.get(l);
                    });
                } else {
                    first.par_iter().for_each(|l| {
                        let _ = self.store.get(l);
                    });
                }
            }
            // torch/__init__.py loads libtorch_global_deps with RTLD_GLOBAL, then torch._C, whose
            // dependency closure (libtorch_python, libtorch, libc10 …) later extensions bind to.
            let gd = t.lib_dir.join("libtorch_global_deps.so");
            if gd.is_file() {
                let c = pm.load_closure(&gd, exe_index, cfg, &self.store);
                pm.make_global(&c);
            }
            match t.c_extension() {
                Some(c) => {
                    let c = pm.load_closure(&c, exe_index, cfg, &self.store);
                    pm.make_global(&c);
                }
                None => {
                    // No torch._C to follow (a partial or fixture install): assume its libraries.
                    for lib in &t.libs {
                        let c = pm.load_closure(lib, exe_index, cfg, &self.store);
                        pm.make_global(&c);
                    }
                }
            }
        }
        pm.index_global_scope();
        pm
    }

    /// Resolves a library name as the process would from a fresh object at `origin` (no RPATH).
    pub fn locate(&self, name: &str) -> Option<PathBuf> {
        if let Some(r) = self.located.lock().ok().and_then(|m| m.get(name).cloned()) {
            return r;
        }
        let r = self.locate_uncached(name);
        if let Ok(mut m) = self.located.lock() {
            m.insert(name.to_string(), r.clone());
        }
        r
    }

    /// Earlier [`Environment::locate`] answers for this environment (from the scan cache).
    pub fn remember_located(&self, located: impl IntoIterator<Item = (String, Option<PathBuf>)>) {
        if let Ok(mut m) = self.located.lock() {
            for (k, v) in located {
                m.entry(k).or_insert(v);
            }
        }
    }

    fn locate_uncached(&self, name: &str) -> Option<PathBuf> {
        let pm = self.process();
        if let Some(i) = pm.find_by_name(name) {
            return Some(pm.objects[i].path.clone());
        }
        let mut tmp = ProcessModel::default();
        tmp.objects.push(crate::loader::Loaded {
            path: PathBuf::from("/"),
            facts: std::sync::Arc::new(crate::facts::LibFacts {
                is_64: cfg!(target_pointer_width = "64"),
                machine: host_machine(),
                ..Default::default()
            }),
            names: Vec::new(),
            loader: None,
        });
        match resolve(name, 0, &tmp, &self.loader, &self.store) {
            Resolution::Found { path, .. } => Some(path),
            Resolution::Missing { .. } => None,
        }
    }

    /// Directories of the environment holding shared libraries (prefix `lib/`, `*.libs` dirs,
    /// `nvidia/*/lib`), to suggest a newer library that exists but is not the one loaded.
    pub fn env_lib_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = self.layout.prefix_lib_dirs();
        for sp in &self.layout.site_packages {
            if let Ok(rd) = std::fs::read_dir(sp) {
                let mut extra: Vec<PathBuf> = rd
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "libs") && p.is_dir())
                    .collect();
                extra.sort();
                dirs.extend(extra);
            }
        }
        dirs
    }
}

/// `p` made absolute against the current directory, `.` and `..` removed lexically.
fn absolute(p: &Path) -> PathBuf {
    match std::path::absolute(p) {
        Ok(a) => crate::dist::lexical_join(Path::new("/"), &a),
        Err(_) => p.to_path_buf(),
    }
}

/// `e_machine` of the host (EM_X86_64 = 62, EM_AARCH64 = 183).
pub fn host_machine() -> u16 {
    if cfg!(target_arch = "aarch64") {
        183
    } else if cfg!(target_arch = "x86") {
        3
    } else {
        62
    }
}
