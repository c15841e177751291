//! The world around a text: the Python environment on disk (when allowed), the model in use,
//! and the facts fixes need (installed versions, reverse dependencies, libcuda, toolkits).
//!
//! Everything here is read lazily and only when `Context::use_env` allows it.

use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::envview::{EnvView, Environments};
use crate::fix::{SafePath, SystemManager};
use crate::incidents::Scene;
use crate::kb::{self, ModelFacts, PackageFacts};

pub use crate::facts::LibraryFacts;

pub(crate) struct World<'a> {
    pub ctx: &'a Context,
    envs: &'a Environments,
    env: Option<EnvView>,
    /// `cuda_compiler_found`, read once: several fixes of one diagnosis ask.
    compiler: std::sync::OnceLock<Option<bool>>,
}

impl<'a> World<'a> {
    /// Opens the environment named by the context, or the one the text's paths point into.
    pub fn new(ctx: &'a Context, envs: &'a Environments, paths_in_text: &[&str]) -> Self {
        let env = if ctx.use_env {
            EnvView::open(ctx, envs, paths_in_text)
        } else {
            None
        };
        Self {
            ctx,
            envs,
            env,
            compiler: std::sync::OnceLock::new(),
        }
    }

    /// A world over an environment already opened (the scan).
    pub fn with_env(ctx: &'a Context, envs: &'a Environments, env: EnvView) -> Self {
        Self {
            ctx,
            envs,
            env: Some(env),
            compiler: std::sync::OnceLock::new(),
        }
    }

    pub fn env(&self) -> Option<&EnvView> {
        self.env.as_ref()
    }

    fn hf_home(&self) -> Option<PathBuf> {
        if !self.ctx.use_env {
            return None;
        }
        let m = self.envs.machine();
        m.var("HF_HOME")
            .map(PathBuf::from)
            .or_else(|| home(m).map(|h| h.join(".cache/huggingface")))
    }

    /// The model in use: named in the text, or known from the editor (notebook cell sources).
    pub fn model(&self, scene: &Scene) -> Option<ModelFacts> {
        let id = scene
            .models
            .first()
            .cloned()
            .or_else(|| self.ctx.model_hint.clone())?;
        kb::resolve_model(&id, self.hf_home().as_deref(), self.ctx.use_env)
    }

    /// The distribution that installed `path`, by the name it was installed under
    /// (`cupy-cuda13x`, not the tables' `cupy-cuda12x` it is an alias of), when the
    /// environment is known.
    pub fn installed_owner(&self, path: &str) -> Option<String> {
        self.env.as_ref()?.owner_of(path).map(|(n, _)| n)
    }

    pub fn package_of_library(&self, path: &str) -> Option<PackageFacts> {
        if let Some(name) = self
            .env
            .as_ref()
            .and_then(|e| e.owner_of(path))
            .map(|(n, _)| n)
        {
            return kb::package(&name).or(Some(PackageFacts::unknown(name)));
        }
        kb::package_for_library(path).or_else(|| package_from_path(path).map(PackageFacts::unknown))
    }

    /// The distribution a top-level compiled module's own name suggests, when nothing better
    /// names it (its owner on disk, a table, the frames that import it): a last guess.
    pub fn package_of_module_file(&self, path: &str) -> Option<String> {
        let norm = path.replace('\\', "/");
        let file = norm.rsplit('/').next()?;
        let top_level = !norm.contains('/')
            || ["site-packages/", "dist-packages/"]
                .iter()
                .any(|m| norm.rsplit_once(m).is_some_and(|(_, a)| !a.contains('/')));
        top_level.then(|| module_package(file)).flatten()
    }

    /// A library the text names, when the environment has it built for another architecture.
    pub fn foreign_architecture(&self, path: &str) -> Option<(String, String)> {
        self.env.as_ref()?.foreign_architecture(path)
    }

    pub fn library_facts(&self, path: &str) -> Option<LibraryFacts> {
        self.env.as_ref()?.library_facts(path)
    }

    pub fn torch_version(&self) -> Option<String> {
        self.env.as_ref()?.torch_version()
    }

    pub fn torch_cxx11_abi(&self) -> Option<bool> {
        self.env.as_ref()?.torch_cxx11_abi()
    }

    pub fn python_tag(&self) -> Option<String> {
        self.env.as_ref()?.python_tag()
    }

    pub fn torch_cuda(&self) -> Option<String> {
        self.env.as_ref()?.torch_cuda()
    }

    pub fn installed_wheel(&self, pkg: &str) -> Option<String> {
        self.env.as_ref()?.installed_wheel(pkg)
    }

    pub fn installed_version(&self, pkg: &str) -> Option<String> {
        self.env.as_ref()?.installed_version(pkg)
    }

    /// Which distribution of a table package is installed: the package itself, else the first of
    /// its other distribution names that is (`fbgemm-gpu-cpu` for fbgemm-gpu's operators);
    /// `None` when the environment is unknown or has none of them.
    pub fn installed_distribution(&self, pkg: &str) -> Option<String> {
        let env = self.env.as_ref()?;
        let facts = abidoc_knowledge::packages::package(pkg);
        std::iter::once(pkg.to_owned())
            .chain(facts.into_iter().flat_map(|f| f.aliases.iter().cloned()))
            .find(|n| env.installed_version(n).is_some())
    }

    /// `None` when the environment is unknown.
    pub fn is_installed(&self, pkg: &str) -> Option<bool> {
        Some(self.env.as_ref()?.installed_version(pkg).is_some())
    }

    pub fn installed_versions(&self, pkgs: &[&str]) -> Vec<String> {
        let Some(env) = &self.env else {
            return Vec::new();
        };
        pkgs.iter()
            .map(|p| match env.installed_version(p) {
                Some(v) => format!("{p} {v} is installed"),
                None => format!("{p} is not installed"),
            })
            .collect()
    }

    /// What the installed `pkg` requires (normalized names); empty when unknown.
    pub fn requirements_of(&self, pkg: &str) -> Vec<String> {
        self.env
            .as_ref()
            .map(|e| e.requirements_of(pkg))
            .unwrap_or_default()
    }

    /// Installed distributions that require `pkg` at `major` or later (see
    /// [`crate::envview`]); empty without an environment.
    pub fn requiring_major(&self, pkg: &str, major: u64) -> Vec<String> {
        self.env
            .as_ref()
            .map(|e| e.requiring_major(pkg, major))
            .unwrap_or_default()
    }

    /// Installed distributions whose Requires-Dist names `pkg` (so uninstalling it breaks them).
    pub fn required_by(&self, pkg: &str) -> Vec<String> {
        self.env
            .as_ref()
            .map(|e| e.required_by(pkg))
            .unwrap_or_default()
    }

    pub fn built_for_torch(&self, library: Option<&str>) -> Option<String> {
        self.library_facts(library?)?.built_for_torch
    }

    pub fn in_conda(&self) -> bool {
        self.ctx.use_env && self.envs.machine().var("CONDA_PREFIX").is_some()
    }

    pub fn libstdcxx_evidence(&self, version: &str) -> Vec<String> {
        match self.newer_libstdcxx(version) {
            Some(p) => vec![format!("{p} provides {version}")],
            None => Vec::new(),
        }
    }

    pub fn newer_libstdcxx(&self, version: &str) -> Option<String> {
        self.env.as_ref()?.libstdcxx_with(version)
    }

    /// Where the driver's `libcuda.so.1` lives on this machine.
    pub fn libcuda_candidates(&self) -> Vec<String> {
        if !self.ctx.use_env {
            return Vec::new();
        }
        let dirs = [
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib64",
            "/usr/lib/wsl/lib",
            "/usr/local/cuda/compat",
            "/usr/lib",
        ];
        let m = self.envs.machine();
        dirs.iter()
            .map(|d| Path::new(d).join("libcuda.so.1"))
            .filter(|p| m.exists(p))
            .map(|p| p.display().to_string())
            .collect()
    }

    pub fn libcuda_evidence(&self) -> Vec<String> {
        self.libcuda_candidates()
            .into_iter()
            .map(|p| format!("the driver library exists at {p}, but no libcuda.so link next to it"))
            .collect()
    }

    pub fn cuda_toolkits(&self) -> Vec<String> {
        if !self.ctx.use_env {
            return Vec::new();
        }
        let m = self.envs.machine();
        let local = Path::new("/usr/local");
        let mut out: Vec<String> = m
            .list_dir(local, 4096)
            .unwrap_or_default()
            .into_iter()
            .filter(|e| e.name.starts_with("cuda"))
            .map(|e| local.join(e.name))
            .filter(|p| m.is_file(&p.join("bin/nvcc")))
            .map(|p| p.display().to_string())
            .collect();
        out.sort();
        out
    }

    /// Whether a CUDA compiler is on this machine where a build would look for one
    /// (`CUDA_HOME`/`CUDA_PATH`, `PATH`, `/usr/local/cuda*`, `/opt/cuda`, the environment's own
    /// `bin` and CUDA compiler wheels); `None` without an environment to judge.
    pub fn cuda_compiler_found(&self) -> Option<bool> {
        *self.compiler.get_or_init(|| self.read_cuda_compiler())
    }

    fn read_cuda_compiler(&self) -> Option<bool> {
        let env = self.env.as_ref().filter(|_| self.ctx.use_env)?;
        let m = self.envs.machine();
        let mut dirs: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
            .iter()
            .filter_map(|v| m.var(v))
            .map(|h| PathBuf::from(h).join("bin"))
            .collect();
        if let Some(path) = m.var("PATH") {
            // A PATH is bounded like any input: a few hundred entries at most are looked at.
            dirs.extend(std::env::split_paths(&path).take(256));
        }
        dirs.push(PathBuf::from("/opt/cuda/bin"));
        dirs.extend(env.nvcc_dirs());
        let found = dirs.iter().any(|d| m.is_file(&d.join("nvcc")))
            || !self.cuda_toolkits().is_empty()
            || m.is_file(Path::new("/usr/local/cuda/bin/nvcc"));
        Some(found)
    }

    /// The system package manager of this machine (`apt` or `dnf`), from `/etc/os-release`;
    /// `None` with `--no-env` (the text may come from another machine) or when unknown.
    pub fn system_package_manager(&self) -> Option<SystemManager> {
        if !self.ctx.use_env {
            return None;
        }
        self.envs.system_manager(|| {
            // os-release is a few hundred bytes; a larger one is not what it claims to be.
            let text = self
                .envs
                .machine()
                .read_text(Path::new("/etc/os-release"), 16 * 1024)?;
            package_manager_of(&text)
        })
    }

    pub fn find_library_dir(&self, lib: &str) -> Option<String> {
        self.env.as_ref()?.find_library_dir(lib)
    }

    /// The installed torch's CUDA library (`libtorch_cuda.so`) and the GPU code inside it (empty
    /// when the library has no fat binary); `Some((torch/lib, None))` when torch is installed
    /// with no CUDA library at all (a CPU build).
    pub fn torch_gpu_code(&self) -> Option<(String, Option<abidoc_elf::FatBinary>)> {
        let env = self.env.as_ref()?;
        let dir = env.torch_lib_dirs().into_iter().next()?;
        let lib = dir.join("libtorch_cuda.so");
        if !lib.is_file() {
            return Some((dir.display().to_string(), None));
        }
        let shown = lib.display().to_string();
        let code = env.gpu_code_of(&shown).map(|(_, f)| f).unwrap_or_default();
        Some((shown, Some(code)))
    }

    /// The loaded NVIDIA kernel module's version (`535.104.05`), from
    /// `/proc/driver/nvidia/version`: read only when the environment may be read.
    pub fn driver_version(&self) -> Option<String> {
        if !self.ctx.use_env {
            return None;
        }
        let text = self.envs.machine().nvidia_driver_version()?;
        parse_driver_version(&text)
    }

    /// The GPU models `/proc/driver/nvidia/gpus/*/information` names: read only when the
    /// environment may be read.
    pub fn gpu_models(&self) -> Vec<String> {
        if !self.ctx.use_env {
            return Vec::new();
        }
        self.envs
            .machine()
            .nvidia_gpu_information()
            .iter()
            .filter_map(|t| parse_gpu_model(t))
            .collect()
    }

    /// A directory of the user's for links abidoc suggests (`~/.local/lib/abidoc/NAME`); `None`
    /// with `--no-env`, or when HOME is unset or not a plain absolute path (then the fix is
    /// advice: a literal `$HOME` or a path with spaces never reaches a command).
    pub fn user_dir(&self, name: &str) -> Option<SafePath> {
        if !self.ctx.use_env {
            return None;
        }
        let h = home(self.envs.machine())?;
        SafePath::new(h.to_str()?)?
            .join(".local/lib/abidoc")?
            .join(name)
    }

    /// Whether `dir` is a torch cpp_extension JIT build directory and nothing else: a regular
    /// directory (not a link) holding `build.ninja`, only build products (objects, libraries,
    /// ninja's files, the lock), no version control and no sources. Only such a directory is
    /// ever proposed for removal.
    pub fn is_torch_extension_build_dir(&self, dir: &str) -> bool {
        if !self.ctx.use_env {
            return false;
        }
        let p = Path::new(dir);
        let m = self.envs.machine();
        if !m.is_real_dir(p) || !m.is_file(&p.join("build.ninja")) {
            return false;
        }
        let Some(entries) = m.list_dir(p, 4097) else {
            return false;
        };
        let mut n = 0;
        for e in entries {
            n += 1;
            let name = e.name;
            let product = name == "build.ninja"
                || name == ".ninja_log"
                || name == ".ninja_deps"
                || name == "lock"
                || name.ends_with(".o")
                || name.ends_with(".so");
            if !product || !e.is_file || n > 4096 {
                return false;
            }
        }
        true
    }
}

fn home(m: &dyn crate::machine::Machine) -> Option<PathBuf> {
    m.var("HOME").map(PathBuf::from).filter(|p| p.is_absolute())
}

/// `…/site-packages/mmcv/_ext….so` → `mmcv`: the top-level package directory under site-packages.
fn package_from_path(path: &str) -> Option<String> {
    let norm = path.replace('\\', "/");
    // AWS Lambda unpacks a function's packages into its task root, as site-packages would.
    let Some(after) = ["site-packages/", "dist-packages/"]
        .iter()
        .find_map(|m| norm.rsplit_once(m).map(|(_, a)| a.to_owned()))
        .or_else(|| norm.strip_prefix("/var/task/").map(str::to_owned))
    else {
        return checkout_package(&norm);
    };
    let first = after.split('/').next()?;
    if first.is_empty() || first.ends_with(".so") || first.contains(".cpython-") {
        return None;
    }
    // NVIDIA's wheels share the `nvidia/` namespace (`nvidia/cublas/lib/libcublas.so.11`):
    // the library names its wheel, of the CUDA major its so-number gives.
    if first == "nvidia" {
        let file = norm.rsplit('/').next()?;
        return kb::pip_distribution_of(file);
    }
    // An egg (`setup.py install`) is a directory `Name-Version-pyX.Y-platform.egg`, whose
    // project name has any `-` written as `_`: the name is what comes before the first `-`.
    let first = match first.strip_suffix(".egg") {
        Some(egg) => egg.split('-').next().unwrap_or(egg),
        None => first,
    };
    // auditwheel's directory of vendored libraries is named after the distribution
    // (`psycopg2_binary.libs/libpq-a407f694.so.5.12`, `opencv_python.libs`).
    if let Some(dist) = first.strip_suffix(".libs") {
        return (!dist.is_empty()).then(|| kb::normalize(dist));
    }
    let name = first.trim_start_matches('_');
    // An import name is not always its distribution's (`bx` is bx-python's, `PIL` Pillow's).
    (!name.is_empty()).then(|| crate::incidents::distribution_of(name))
}

/// A top-level compiled module no table knows (`torch_batch_svd.cpython-36m-x86_64-linux-gnu.so`,
/// in site-packages or named alone): extensions built with cpp_extension are usually named as
/// their distribution. A private or generic stem (`_C`, `cuda`) names nothing.
fn module_package(file: &str) -> Option<String> {
    let stem = file
        .split(".cpython-")
        .next()
        .and_then(|s| s.split(".abi3.").next())
        .and_then(|s| s.split(".so").next())?;
    const GENERIC: &[&str] = &["C", "ext", "cuda", "core", "ops", "lib", "main", "kernels"];
    (is_extension_module(file) && is_identifier(stem) && stem.len() > 2 && !GENERIC.contains(&stem))
        .then(|| {
            // The stem names a distribution only where the tables know it (`emd` on PyPI is
            // another project than a checkout's `emd_cuda`); else the module's own name.
            crate::sources::stem_package(stem)
                .filter(|p| kb::package(p).is_some())
                .unwrap_or_else(|| kb::normalize(stem))
        })
}

/// A CPython extension module's file name (`x.cpython-312-….so`, `x.abi3.so`).
fn is_extension_module(file: &str) -> bool {
    file.contains(".cpython-") || file.contains(".abi3.")
}

/// A public Python identifier: a letter, then letters, digits and `_`.
fn is_identifier(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && s.bytes().next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// A compiled module in a source checkout (`~/pixel-perfect-sfm/pixsfm/_pixsfm.cpython-38-….so`,
/// `~/FCOS/fcos_core/_C.so`): the Python package directory it sits in names the package. Ops
/// kept in a build directory of the package (`pcdet/ops/iou3d_nms/iou3d_nms_cuda.so`,
/// `knn_cuda/csrc/_ext/knn/knn.so`) belong to the package above that directory.
fn checkout_package(path: &str) -> Option<String> {
    let (dir, file) = path.rsplit_once('/')?;
    // A Python module (`_C.so`, `knn.so`, `x.cpython-38-….so`), not a shared library
    // (`libfoo.so`), which any directory may hold.
    let lower = file.to_ascii_lowercase();
    let module = is_extension_module(file)
        || (!lower.starts_with("lib") && (lower.ends_with(".so") || lower.ends_with(".pyd")));
    // torch's JIT build cache (`~/.cache/torch_extensions/py310_cu121/fused_adam/`) holds ops
    // built by the package that asked (DeepSpeed, …), which the text names elsewhere.
    if !module || dir.contains("torch_extensions") {
        return None;
    }
    // Directories a package keeps its compiled ops in (the package is above them), and layout
    // directories above or around packages (never a package's name).
    use crate::sources::{SOURCE_DIRS as OPS, names_no_project};
    let dirs: Vec<&str> = dir.split('/').filter(|c| !c.is_empty()).collect();
    // Only the last few directories are the package's; a user's `~/src/` says nothing.
    let tail = &dirs[dirs.len().saturating_sub(4)..];
    // A module in a build tree (`build/lib.linux-x86_64-3.8/`) is a build product.
    if !tail.last().is_some_and(|p| is_identifier(p)) {
        return None;
    }
    // A checkout named as its package (`AlphaPose/alphapose/models/layers/dcn/…`): the package
    // is the inner directory, however deep the module sits in it.
    let same = |a: &str, b: &str| {
        a.len() > 1
            && a.replace('-', "_")
                .eq_ignore_ascii_case(&b.replace('-', "_"))
    };
    if let Some(w) = dirs.windows(2).rev().find(|w| same(w[0], w[1]))
        && is_identifier(w[1])
        && !names_no_project(w[1])
    {
        return Some(kb::normalize(w[1]));
    }
    let name = match tail.iter().rposition(|c| OPS.contains(c)) {
        Some(mut g) => {
            while g > 0 && OPS.contains(&tail[g - 1]) {
                g -= 1;
            }
            tail.get(g.checked_sub(1)?)?
        }
        None => tail.last()?,
    };
    let name = *name;
    if OPS.contains(&name) {
        return None;
    }
    (is_identifier(name) && !names_no_project(name)).then(|| kb::normalize(name))
}

/// `apt` or `dnf` from the `ID` and `ID_LIKE` lines of an os-release file.
pub(crate) fn package_manager_of(os_release: &str) -> Option<SystemManager> {
    let mut ids = String::new();
    for line in os_release.lines() {
        if let Some(v) = line
            .strip_prefix("ID=")
            .or_else(|| line.strip_prefix("ID_LIKE="))
        {
            ids.push(' ');
            ids.push_str(v.trim_matches('"'));
        }
    }
    let has = |id: &str| ids.split_whitespace().any(|w| w == id);
    if has("debian") || has("ubuntu") {
        Some(SystemManager::Apt)
    } else if has("fedora") || has("rhel") || has("centos") {
        Some(SystemManager::Dnf)
    } else {
        None
    }
}

/// The `Model:` of a `/proc/driver/nvidia/gpus/*/information` text (`NVIDIA H100 80GB HBM3`),
/// printable ASCII only, at most 128 bytes.
fn parse_gpu_model(text: &str) -> Option<String> {
    let line = text.lines().find_map(|l| l.trim().strip_prefix("Model:"))?;
    let model = line.trim();
    (!model.is_empty()
        && model.len() <= 128
        && model.bytes().all(|b| b.is_ascii_graphic() || b == b' '))
    .then(|| model.to_owned())
}

/// The driver version of `/proc/driver/nvidia/version`'s first line: `NVRM version: NVIDIA UNIX
/// x86_64 Kernel Module  535.104.05  Sat Aug 19 …` (open kernel modules say `Open Kernel
/// Module`).
pub fn parse_driver_version(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with("NVRM version:"))?;
    let rest = line.split("Kernel Module").nth(1)?;
    // The open modules say `Open Kernel Module for x86_64  570.133.20`.
    let v = rest
        .split_whitespace()
        .find(|w| w.bytes().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))?;
    let ok = v.len() <= 16
        && v.bytes().next().is_some_and(|c| c.is_ascii_digit())
        && v.bytes().all(|c| c.is_ascii_digit() || c == b'.');
    ok.then(|| v.to_owned())
}

#[cfg(test)]
mod tests {
    use super::{package_from_path, package_manager_of};
    use crate::fix::SystemManager;

    #[test]
    fn packages_from_paths() {
        for (path, want) in [
            (
                "/env/lib/python3.8/site-packages/MinkowskiEngine-0.5.4-py3.8-linux-x86_64.egg/MinkowskiEngineBackend/_C.cpython-38-x86_64-linux-gnu.so",
                Some("minkowskiengine"),
            ),
            (
                "/env/lib/python3.7/site-packages/chamfer-0.0.0-py3.7-linux-x86_64.egg/chamfer.cpython-37m-x86_64-linux-gnu.so",
                Some("chamfer"),
            ),
            (
                "/env/lib/python3.11/site-packages/my_ext/_C.so",
                Some("my-ext"),
            ),
            (
                "/env/lib/python3.11/site-packages/_C.cpython-311-x86_64-linux-gnu.so",
                None,
            ),
            (
                "/home/u/workplace/OpenPCDet/pcdet/ops/iou3d_nms/iou3d_nms_cuda.cpython-39-x86_64-linux-gnu.so",
                Some("pcdet"),
            ),
            (
                "(...)/KNN_CUDA/knn_cuda/csrc/_ext/knn/knn.so",
                Some("knn-cuda"),
            ),
            (
                "/home/c/FCOS/FCOS-master/fcos_core/_C.so",
                Some("fcos-core"),
            ),
            ("/home/c/ext/build/lib.linux-x86_64-3.8/x.so", None),
            (
                "/home/x/proj/lib/mylib/_C.cpython-38-x86_64-linux-gnu.so",
                Some("mylib"),
            ),
            (
                "/root/.cache/torch_extensions/py310_cu121/fused_adam/fused_adam.so",
                None,
            ),
        ] {
            assert_eq!(package_from_path(path).as_deref(), want, "{path}");
        }
    }

    #[test]
    fn package_manager_from_os_release() {
        assert_eq!(
            package_manager_of("ID=debian\nVERSION_ID=\"12\""),
            Some(SystemManager::Apt)
        );
        assert_eq!(
            package_manager_of("ID=pop\nID_LIKE=\"ubuntu debian\""),
            Some(SystemManager::Apt)
        );
        assert_eq!(
            package_manager_of("ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\""),
            Some(SystemManager::Dnf)
        );
        assert_eq!(package_manager_of("ID=arch"), None);
        assert_eq!(package_manager_of(""), None);
    }

    #[test]
    fn gpu_model_from_proc_text() {
        let info = "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 16\nGPU UUID: \t GPU-5a0c\nBus Location: \t 0000:00:05.0\n";
        assert_eq!(
            super::parse_gpu_model(info).as_deref(),
            Some("NVIDIA H100 80GB HBM3")
        );
        assert_eq!(super::parse_gpu_model("IRQ: 16\n"), None);
        assert_eq!(super::parse_gpu_model("Model: \u{1b}[31mX\n"), None);
    }

    #[test]
    fn driver_version_from_proc_text() {
        let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  (dvs-builder@U16-I3-B03-4-3)  Fri Mar 14 2025\nGCC version:  gcc version 12.3.0\n";
        assert_eq!(
            super::parse_driver_version(open).as_deref(),
            Some("570.133.20")
        );
        let closed = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n";
        assert_eq!(
            super::parse_driver_version(closed).as_deref(),
            Some("535.104.05")
        );
        assert_eq!(super::parse_driver_version("garbage"), None);
        assert_eq!(
            super::parse_driver_version("NVRM version: Kernel Module ; rm -rf /"),
            None
        );
    }
}
