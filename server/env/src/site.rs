//! Finding the environment: site-packages directories, the prefix, the interpreter and libpython,
//! from explicit directories, an interpreter path (resolved without running it), `VIRTUAL_ENV`,
//! `CONDA_PREFIX`, or a path seen in a traceback.

use crate::fsguard::read_text;
use crate::problem::Problem;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What the caller knows about where to look. Nothing is taken from the process environment
/// implicitly: [`EnvSpec::from_process_env`] copies it in explicitly, so tests stay deterministic.
#[derive(Debug, Clone, Default)]
pub struct EnvSpec {
    /// `--site-packages DIR` (repeatable). When set, wins over everything else.
    pub site_packages: Vec<PathBuf>,
    /// `--python EXE`.
    pub python: Option<PathBuf>,
    /// File paths seen in a traceback (`…/site-packages/torch/__init__.py`).
    pub traceback_paths: Vec<PathBuf>,
    pub virtual_env: Option<PathBuf>,
    pub conda_prefix: Option<PathBuf>,
    /// `$HOME`, for the user site (`~/.local/lib/pythonX.Y/site-packages`).
    pub home: Option<PathBuf>,
    /// Add the user site when the interpreter is not a virtualenv (Python's default).
    pub include_user_site: bool,
    /// `$PATH`, to find `python3` when nothing else names an environment.
    pub path_var: Option<String>,
    /// `LD_LIBRARY_PATH` as the process would see it.
    pub ld_library_path: Option<String>,
    /// The loader cache to read; `None` means `/etc/ld.so.cache`.
    pub ld_cache: Option<PathBuf>,
    /// Replaces the default library directories when set (tests).
    pub default_lib_dirs: Option<Vec<PathBuf>>,
    /// Whether the machine has the NVIDIA driver; `None`: decide from whether `libcuda.so.1` resolves.
    pub has_nvidia_driver: Option<bool>,
    /// Environment variables (name, value) that choose which per-backend library an import
    /// loads (`BNB_CUDA_VERSION`; the names are `packages.toml`'s).
    pub selector_vars: Vec<(String, String)>,
    /// `PYENV_VERSION`, which chooses the interpreter a pyenv shim on `PATH` runs.
    pub pyenv_version: Option<String>,
    /// The working directory, where pyenv looks for `.python-version` (and its parents).
    pub cwd: Option<PathBuf>,
}

impl EnvSpec {
    /// Copies `VIRTUAL_ENV`, `CONDA_PREFIX`, `HOME`, `PATH` and `LD_LIBRARY_PATH` from this process.
    pub fn from_process_env() -> EnvSpec {
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        EnvSpec {
            virtual_env: var("VIRTUAL_ENV").map(PathBuf::from),
            conda_prefix: var("CONDA_PREFIX").map(PathBuf::from),
            home: var("HOME").map(PathBuf::from),
            path_var: var("PATH").and_then(|v| v.into_string().ok()),
            ld_library_path: var("LD_LIBRARY_PATH").and_then(|v| v.into_string().ok()),
            include_user_site: true,
            pyenv_version: var("PYENV_VERSION").and_then(|v| v.into_string().ok()),
            cwd: std::env::current_dir().ok(),
            selector_vars: abidoc_knowledge::packages::all()
                .iter()
                .flat_map(|p| &p.backends)
                .flat_map(|b| &b.gpu)
                .filter_map(|g| g.override_var.as_deref())
                .filter_map(|k| Some((k.to_owned(), var(k)?.into_string().ok()?)))
                .collect(),
            ..EnvSpec::default()
        }
    }
}

/// How the environment was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    SitePackages,
    Python,
    Traceback,
    VirtualEnv,
    Conda,
    PathLookup,
    None,
}

/// Where the environment lives on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// In `sys.path` order: the environment's own first, then the base's when inherited.
    pub site_packages: Vec<PathBuf>,
    pub prefix: Option<PathBuf>,
    /// The base installation of a virtualenv (`home` in `pyvenv.cfg`, one level up).
    pub base_prefix: Option<PathBuf>,
    /// `3.12`.
    pub python_version: Option<String>,
    /// The interpreter executable after following symlinks.
    pub interpreter: Option<PathBuf>,
    pub libpython: Option<PathBuf>,
    pub is_venv: bool,
    pub origin: Origin,
    /// The interpreter as found on `PATH` (before links and shims were followed), when the
    /// environment was found that way.
    #[serde(default)]
    pub found_as: Option<PathBuf>,
}

impl Layout {
    fn empty(origin: Origin) -> Layout {
        Layout {
            site_packages: Vec::new(),
            prefix: None,
            base_prefix: None,
            python_version: None,
            interpreter: None,
            libpython: None,
            is_venv: false,
            origin,
            found_as: None,
        }
    }

    /// Directories of the prefix (and base prefix) holding shared libraries (conda's `lib/`).
    pub fn prefix_lib_dirs(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for p in self.prefix.iter().chain(self.base_prefix.iter()) {
            for d in ["lib", "lib64"] {
                let dir = p.join(d);
                if dir.is_dir() && !out.contains(&dir) {
                    out.push(dir);
                }
            }
        }
        out
    }
}

/// `pyvenv.cfg`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PyvenvCfg {
    pub home: Option<PathBuf>,
    pub version: Option<String>,
    pub include_system_site_packages: bool,
}

impl PyvenvCfg {
    pub fn parse(text: &str) -> PyvenvCfg {
        let mut cfg = PyvenvCfg::default();
        for line in text.lines() {
            let Some((k, v)) = line.split_once('=') else {
                continue;
            };
            let v = v.trim();
            match k.trim() {
                "home" => cfg.home = Some(PathBuf::from(v)),
                "version" | "version_info" if cfg.version.is_none() => {
                    cfg.version = Some(v.to_string());
                }
                "include-system-site-packages" => {
                    cfg.include_system_site_packages = v.eq_ignore_ascii_case("true");
                }
                _ => {}
            }
        }
        cfg
    }
}

/// Finds the environment. Explicit site-packages win, then `--python`, then traceback paths, then
/// `VIRTUAL_ENV`, `CONDA_PREFIX`, and `python3` on `PATH`.
pub fn discover(spec: &EnvSpec) -> (Layout, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut layout = if !spec.site_packages.is_empty() {
        from_site_dirs(&spec.site_packages, &mut problems)
    } else if let Some(py) = &spec.python {
        from_python(py, Origin::Python, &mut problems)
    } else if let Some(l) = from_traceback(&spec.traceback_paths) {
        l
    } else if let Some(v) = &spec.virtual_env {
        from_prefix(v, Origin::VirtualEnv, &mut problems)
    } else if let Some(c) = &spec.conda_prefix {
        from_prefix(c, Origin::Conda, &mut problems)
    } else if let Some((found, py)) = spec
        .path_var
        .as_deref()
        .and_then(|p| find_python_on_path(p, spec, &mut problems))
    {
        let mut l = from_python(&py, Origin::PathLookup, &mut problems);
        l.found_as = Some(found);
        l
    } else {
        problems.push(Problem::new(
            None,
            "no Python environment named (--python, --site-packages, VIRTUAL_ENV, CONDA_PREFIX, or python3 or python on PATH)",
        ));
        Layout::empty(Origin::None)
    };
    if spec.include_user_site
        && !layout.is_venv
        && layout.origin != Origin::SitePackages
        && let (Some(home), Some(v)) = (&spec.home, &layout.python_version)
    {
        let user = home.join(format!(".local/lib/python{v}/site-packages"));
        if user.is_dir() && !layout.site_packages.contains(&user) {
            // The user site comes before the system site in sys.path.
            layout.site_packages.insert(0, user);
        }
    }
    if layout.origin == Origin::SitePackages {
        // `--site-packages` with `--python`: the directories come from the former, the
        // interpreter (whose exports every extension can bind to) from the latter.
        if let Some(py) = &spec.python {
            match std::fs::canonicalize(py) {
                Ok(real) => layout.interpreter = Some(real),
                Err(e) => problems.push(Problem::at(
                    py,
                    format!("cannot resolve interpreter path: {e}"),
                )),
            }
            // A site directory outside `lib/pythonX.Y/` names no version; the interpreter's
            // own layout does (pyvenv.cfg, its resolved name, `lib/pythonX.Y` beside it), read
            // the same static way as for `--python` alone. Its problems are not this layout's.
            if layout.python_version.is_none() {
                layout.python_version = from_python(py, Origin::Python, &mut Vec::new())
                    .python_version
                    .filter(|v| !v.is_empty());
            }
        }
    }
    if layout.libpython.is_none() {
        layout.libpython = find_libpython(&layout);
    }
    (layout, problems)
}

/// The interpreter a user typing `python3` (else `python`) would run: the first on `PATH`,
/// as (the file found, the interpreter it runs). Found statically: a pyenv shim (a script in
/// `<root>/shims`) is followed to the version pyenv would choose (`PYENV_VERSION`, the nearest
/// `.python-version`, `<root>/version`); any other script is skipped, with a note, since only
/// running it would tell.
fn find_python_on_path(
    path_var: &str,
    spec: &EnvSpec,
    problems: &mut Vec<Problem>,
) -> Option<(PathBuf, PathBuf)> {
    for name in ["python3", "python"] {
        for dir in path_var.split(':').filter(|d| !d.is_empty()) {
            let p = Path::new(dir).join(name);
            if !p.is_file() {
                continue;
            }
            if !is_script(&p) {
                return Some((p.clone(), p));
            }
            match pyenv_shim_target(&p, name, spec) {
                Some(Some(real)) => return Some((p, real)),
                // pyenv's `system`: the next `python3` on PATH, as pyenv itself does.
                Some(None) => {}
                None => problems.push(Problem::at(
                    &p,
                    format!(
                        "{name} on PATH is a script, not an interpreter; skipped (pass --python)"
                    ),
                )),
            }
        }
    }
    None
}

/// Whether the file starts with `#!` (a shell wrapper, a pyenv shim); read through `fsguard`
/// like every file of an environment.
fn is_script(p: &Path) -> bool {
    crate::fsguard::read_text_prefix(p, 2).is_ok_and(|h| h == "#!")
}

/// For a pyenv shim (`<root>/shims/<name>`, with `<root>/versions`): the interpreter of the
/// version pyenv would choose (`Some(None)` for `system`); `None` when this is no pyenv shim or
/// the version is not installed.
fn pyenv_shim_target(shim: &Path, name: &str, spec: &EnvSpec) -> Option<Option<PathBuf>> {
    let shims = shim.parent()?;
    if shims.file_name()? != "shims" {
        return None;
    }
    let root = shims.parent()?;
    let versions = root.join("versions");
    if !versions.is_dir() {
        return None;
    }
    let chosen = spec
        .pyenv_version
        .clone()
        .or_else(|| {
            let cwd = spec.cwd.as_deref()?;
            cwd.ancestors()
                .find_map(|d| read_text(&d.join(".python-version")).ok())
        })
        .or_else(|| read_text(&root.join("version")).ok())?;
    // Several versions may be listed (`3.12.4:3.11.9`, or one per line): the first that has
    // this command wins.
    for v in chosen
        .split([':', '\n', ' '])
        .map(str::trim)
        .filter(|v| !v.is_empty() && !v.starts_with('#'))
    {
        if v == "system" {
            return Some(None);
        }
        // pyenv-virtualenv names environments `3.12.4/envs/name`; nothing may climb out.
        if v.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
            continue;
        }
        let exe = versions.join(v).join("bin").join(name);
        if exe.is_file() {
            return Some(Some(exe));
        }
    }
    None
}

/// `…/lib/python3.12/site-packages` → (prefix, `3.12`).
fn prefix_of_site(dir: &Path) -> (Option<PathBuf>, Option<String>) {
    let mut comps: Vec<&Path> = dir.ancestors().collect();
    comps.truncate(4);
    let name = |p: &Path| p.file_name().and_then(|n| n.to_str()).map(str::to_string);
    let pydir = comps.get(1).and_then(|p| name(p));
    let version = pydir
        .as_deref()
        .and_then(|n| n.strip_prefix("python"))
        .filter(|v| v.contains('.'))
        .map(|v| v.trim_end_matches('t').to_string());
    let libdir = comps.get(2).and_then(|p| name(p));
    let prefix = match libdir.as_deref() {
        Some("lib" | "lib64") => comps.get(3).map(|p| p.to_path_buf()),
        _ => None,
    };
    (prefix, version)
}

fn from_site_dirs(dirs: &[PathBuf], problems: &mut Vec<Problem>) -> Layout {
    let mut layout = Layout::empty(Origin::SitePackages);
    for d in dirs {
        if !d.is_dir() {
            problems.push(Problem::at(d, "site-packages directory does not exist"));
            continue;
        }
        if !layout.site_packages.contains(d) {
            layout.site_packages.push(d.clone());
        }
    }
    if let Some(first) = layout.site_packages.first() {
        let (prefix, version) = prefix_of_site(first);
        if let Some(p) = &prefix {
            let cfg = p.join("pyvenv.cfg");
            if let Ok(t) = read_text(&cfg) {
                let cfg = PyvenvCfg::parse(&t);
                layout.is_venv = true;
                layout.base_prefix = cfg
                    .home
                    .as_deref()
                    .and_then(Path::parent)
                    .map(Path::to_path_buf);
            }
            if let Some(v) = &version {
                let exe = p.join("bin").join(format!("python{v}"));
                if exe.is_file() {
                    layout.interpreter = std::fs::canonicalize(&exe).ok();
                }
            }
        }
        layout.prefix = prefix;
        layout.python_version = version;
    }
    layout
}

fn from_traceback(paths: &[PathBuf]) -> Option<Layout> {
    for p in paths {
        for a in p.ancestors() {
            let n = a.file_name().and_then(|n| n.to_str());
            if matches!(n, Some("site-packages" | "dist-packages")) && a.is_dir() {
                let mut problems = Vec::new();
                let mut l = from_site_dirs(&[a.to_path_buf()], &mut problems);
                l.origin = Origin::Traceback;
                return Some(l);
            }
        }
    }
    None
}

/// Site-packages of a prefix for a Python version, as CPython and Debian lay them out.
fn site_dirs_of_prefix(prefix: &Path, version: &str) -> Vec<PathBuf> {
    [
        format!("lib/python{version}/site-packages"),
        format!("lib64/python{version}/site-packages"),
        format!("local/lib/python{version}/dist-packages"),
        "lib/python3/dist-packages".to_string(),
        format!("lib/python{version}/dist-packages"),
    ]
    .iter()
    .map(|r| prefix.join(r))
    .filter(|d| d.is_dir())
    .fold(Vec::new(), |mut acc, d| {
        // lib64 is often a symlink to lib: keep one.
        let canon = std::fs::canonicalize(&d).unwrap_or_else(|_| d.clone());
        if !acc
            .iter()
            .any(|a: &PathBuf| std::fs::canonicalize(a).ok().as_ref() == Some(&canon))
        {
            acc.push(d);
        }
        acc
    })
}

/// Versions `X.Y` for which `prefix/lib*/pythonX.Y` exists, newest first.
fn versions_in_prefix(prefix: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for lib in ["lib", "lib64"] {
        let Ok(rd) = std::fs::read_dir(prefix.join(lib)) else {
            continue;
        };
        for e in rd.filter_map(Result::ok) {
            if let Some(v) = e
                .file_name()
                .to_str()
                .and_then(|n| n.strip_prefix("python"))
                && v.contains('.')
                && v.chars().all(|c| c.is_ascii_digit() || c == '.')
                && !out.iter().any(|o| o == v)
            {
                out.push(v.to_string());
            }
        }
    }
    out.sort_by_key(|v| {
        v.split('.')
            .map(|p| p.parse::<u32>().unwrap_or(0))
            .collect::<Vec<_>>()
    });
    out.reverse();
    out
}

fn from_prefix(prefix: &Path, origin: Origin, problems: &mut Vec<Problem>) -> Layout {
    let mut layout = Layout::empty(origin);
    if !prefix.is_dir() {
        problems.push(Problem::at(prefix, "environment prefix does not exist"));
        return layout;
    }
    layout.prefix = Some(prefix.to_path_buf());
    let cfg = read_text(&prefix.join("pyvenv.cfg"))
        .ok()
        .map(|t| PyvenvCfg::parse(&t));
    layout.is_venv = cfg.is_some();
    let version = versions_in_prefix(prefix).into_iter().next();
    for exe in ["bin/python3", "bin/python"] {
        let p = prefix.join(exe);
        if p.exists() {
            layout.interpreter = std::fs::canonicalize(&p).ok();
            break;
        }
    }
    if let Some(v) = &version {
        layout.site_packages = site_dirs_of_prefix(prefix, v);
    }
    if let Some(cfg) = cfg {
        layout.base_prefix = cfg
            .home
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf);
        if cfg.include_system_site_packages
            && let (Some(base), Some(v)) = (&layout.base_prefix, &version)
        {
            layout.site_packages.extend(site_dirs_of_prefix(base, v));
        }
    }
    if layout.site_packages.is_empty() {
        problems.push(Problem::at(
            prefix,
            "no lib/pythonX.Y/site-packages under this prefix",
        ));
    }
    layout.python_version = version;
    layout
}

fn from_python(exe: &Path, origin: Origin, problems: &mut Vec<Problem>) -> Layout {
    let mut layout = Layout::empty(origin);
    if !exe.exists() {
        problems.push(Problem::at(exe, "interpreter does not exist"));
        return layout;
    }
    // A venv's bin/python is a symlink to the base interpreter: pyvenv.cfg is found next to the
    // link, not next to its target, so look before following symlinks.
    let link_dir = exe.parent().map(Path::to_path_buf);
    let venv_prefix = link_dir.as_deref().and_then(|bin| {
        [
            bin.to_path_buf(),
            bin.parent().map(Path::to_path_buf).unwrap_or_default(),
        ]
        .into_iter()
        .find(|d| d.join("pyvenv.cfg").is_file())
    });
    let real = match std::fs::canonicalize(exe) {
        Ok(r) => r,
        Err(e) => {
            problems.push(Problem::at(
                exe,
                format!("cannot resolve interpreter path: {e}"),
            ));
            return layout;
        }
    };
    layout.interpreter = Some(real.clone());
    let exe_version = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("python"))
            .filter(|v| v.contains('.'))
            .map(|v| v.trim_end_matches(['t', 'd', 'm']).to_string())
    };
    let real_prefix = real.parent().and_then(Path::parent).map(Path::to_path_buf);
    if let Some(vp) = venv_prefix {
        let cfg = read_text(&vp.join("pyvenv.cfg"))
            .map(|t| PyvenvCfg::parse(&t))
            .unwrap_or_default();
        let version = cfg
            .version
            .as_deref()
            .map(crate::manifests::major_minor)
            .or_else(|| exe_version(exe))
            .or_else(|| exe_version(&real))
            .or_else(|| versions_in_prefix(&vp).into_iter().next());
        layout.is_venv = true;
        layout.prefix = Some(vp.clone());
        layout.base_prefix = cfg
            .home
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .or(real_prefix);
        if let Some(v) = &version {
            layout.site_packages = site_dirs_of_prefix(&vp, v);
            if cfg.include_system_site_packages
                && let Some(base) = &layout.base_prefix
            {
                layout.site_packages.extend(site_dirs_of_prefix(base, v));
            }
        }
        layout.python_version = version;
    } else if let Some(prefix) = real_prefix {
        let version = exe_version(&real)
            .or_else(|| exe_version(exe))
            .or_else(|| versions_in_prefix(&prefix).into_iter().next());
        if let Some(v) = &version {
            layout.site_packages = site_dirs_of_prefix(&prefix, v);
        }
        layout.prefix = Some(prefix);
        layout.python_version = version;
    }
    if layout.site_packages.is_empty() {
        problems.push(Problem::at(
            exe,
            "no site-packages found for this interpreter",
        ));
    }
    layout
}

/// `libpython3.X.so*` in the prefix (or base prefix) `lib/`, when the interpreter links it.
fn find_libpython(layout: &Layout) -> Option<PathBuf> {
    let v = layout.python_version.as_deref()?;
    for p in layout.prefix.iter().chain(layout.base_prefix.iter()) {
        for name in [format!("libpython{v}.so.1.0"), format!("libpython{v}.so")] {
            for lib in ["lib", "lib64"] {
                let c = p.join(lib).join(&name);
                if c.is_file() {
                    return Some(c);
                }
            }
        }
    }
    None
}
