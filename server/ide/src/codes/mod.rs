//! The diagnostic codes: the registry (one line per code) and the dispatch from a failure read in
//! the text, or a finding of the environment scan, to the module that owns its code.
//!
//! Each `codes/<code>.rs` owns, for its code: the failures that produce it, its message and
//! explanation, its fixes and their ranking, and a doc ([`CodeDoc`]) that `docs/codes/` and the
//! README are generated from. Adding a code: one module, one line below, one fixture folder
//! `tests/fixtures/codes/<code>/`.

use crate::diagnostic::{Diagnostic, Severity, SourceRef};
use crate::evidence::World;
use crate::fix::{Name, Python};
use crate::incidents::{Failure, Incident, Scene};
use crate::kb::ModelFacts;

pub mod lint;
pub(crate) mod loadforms;
mod recipes;
mod symbols;

macro_rules! registry {
    ($($module:ident => $variant:ident $name:literal,)*) => {
        $(pub(crate) mod $module;)*

        /// The code enum lives in a leaf module so the data types can name it without
        /// depending on the modules that produce it.
        pub mod id {
            /// Stable diagnostic codes (see `docs/contract.md`).
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub enum Code {
                $($variant,)*
            }

            impl Code {
                pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

                pub const fn as_str(self) -> &'static str {
                    match self {
                        $(Code::$variant => $name,)*
                    }
                }

                pub fn parse(s: &str) -> Option<Code> {
                    Code::ALL.iter().copied().find(|c| c.as_str() == s)
                }
            }
        }

        /// What a code means, for the generated docs and the README.
        pub fn doc(code: Code) -> &'static CodeDoc {
            match code {
                $(Code::$variant => &$module::DOC,)*
            }
        }
    };
}

registry! {
    abi_mismatch => AbiMismatch "abi-mismatch",
    cxx11_abi_mismatch => Cxx11AbiMismatch "cxx11-abi-mismatch",
    libstdcxx_mismatch => LibstdcxxMismatch "libstdcxx-mismatch",
    glibc_too_old => GlibcTooOld "glibc-too-old",
    missing_shared_library => MissingSharedLibrary "missing-shared-library",
    extension_incomplete_build => ExtensionIncompleteBuild "extension-incomplete-build",
    torch_ops_missing => TorchOpsMissing "torch-ops-missing",
    xformers_built_for => XformersBuiltFor "xformers-built-for",
    flash_attn_unavailable => FlashAttnUnavailable "flash-attn-unavailable",
    mamba_fast_path => MambaFastPath "mamba-fast-path",
    libcuda_not_found => LibcudaNotFound "libcuda-not-found",
    no_c_compiler => NoCCompiler "no-c-compiler",
    cuda_version_mismatch => CudaVersionMismatch "cuda-version-mismatch",
    cuda_home_missing => CudaHomeMissing "cuda-home-missing",
    build_isolation => BuildIsolation "build-isolation",
    build_deps_missing => BuildDepsMissing "build-deps-missing",
    numpy_abi => NumpyAbi "numpy-abi",
    cuda_oom => CudaOom "cuda-oom",
    stale_wheel_cache => StaleWheelCache "stale-wheel-cache",
    gpu_arch_missing => GpuArchMissing "gpu-arch-missing",
    driver_too_old => DriverTooOld "driver-too-old",
    cpu_only_torch => CpuOnlyTorch "cpu-only-torch",
    cpu_arch_mismatch => CpuArchMismatch "cpu-arch-mismatch",
    cpu_features_missing => CpuFeaturesMissing "cpu-features-missing",
    openmp_duplicate => OpenmpDuplicate "openmp-duplicate",
    wheel_tags_mismatch => WheelTagsMismatch "wheel-tags-mismatch",
    executable_stack => ExecutableStack "executable-stack",
    no_matching_distribution => NoMatchingDistribution "no-matching-distribution",
    static_tls_exhausted => StaticTlsExhausted "static-tls-exhausted",
    io_backend_missing => IoBackendMissing "io-backend-missing",
    binding_signature_mismatch => BindingSignatureMismatch "binding-signature-mismatch",
    build_failed => BuildFailed "build-failed",
}

pub use id::Code;

/// A code's documentation: `docs/codes/<code>.md` and the README's list are generated from it.
pub struct CodeDoc {
    /// One line: the situation, as the contract's table says it.
    pub summary: &'static str,
    /// What it means and why it happens, in a paragraph.
    pub meaning: &'static str,
    /// Its fixes, best first, and how safe each is.
    pub fixes: &'static str,
    /// Whether the package the text shows around a failure may be taken as its package when
    /// the code's module names none.
    pub near_package: NearPackage,
    /// The model in use decides between removing the package and rebuilding it: the diagnosis
    /// says which model that is.
    pub model_decides: bool,
}

/// How a code's diagnosis takes the package the text shows near its failure (see
/// [`Scene::package_near`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NearPackage {
    /// The package shown nearest is the failing one.
    Any,
    /// Any but torch: in a build, torch's frames are cpp_extension's machinery, not the package
    /// being built.
    NotTorch,
    /// Never: a missing library weighs the package near it itself; memory held by processes is
    /// no package's failure.
    Never,
}

impl CodeDoc {
    /// What a code's doc holds unless it says otherwise.
    pub const BASE: CodeDoc = CodeDoc {
        summary: "",
        meaning: "",
        fixes: "",
        near_package: NearPackage::Any,
        model_decides: false,
    };
}

/// What every code module reads: the text's scene, the environment and the model in use.
pub(crate) struct Cx<'a> {
    pub scene: &'a Scene,
    pub world: &'a World<'a>,
    pub model: Option<&'a ModelFacts>,
    /// The package the text shows around this failure when its own line names none
    /// ([`Scene::package_near`]).
    pub near: Option<&'a str>,
    /// The first package other than torch the text names after the failure: what a build log
    /// names below a compiler error (pip's `ERROR: Command … pip-install-…/fcos/setup.py`).
    pub after: Option<&'a str>,
    /// Where the failure's own line is, for a code that weighs the text's packages itself.
    pub span: abidoc_syntax::Span,
}

/// A library of the system's or /opt's own directories (`/opt/rccl/lib/librccl.so.1`), which
/// belongs to no pip package: the package around it in the text only imported it, and no
/// reinstall of that package changes it.
/// A Python module there (`/opt/vllm/vllm/_C.cpython-39-…so`) is a checkout's, not this.
pub(crate) fn in_system_dirs(library: &str) -> bool {
    let file = crate::incidents::basename(library);
    // A conda prefix under /opt (`/opt/conda/lib`, `/opt/miniforge3/envs/x/lib`) is an
    // environment of packages, conda's own fixes reach it.
    let conda = ["conda", "miniforge", "mambaforge", "/envs/"]
        .iter()
        .any(|c| library.contains(c));
    ["/usr/", "/lib/", "/lib64/", "/opt/"]
        .iter()
        .any(|d| library.starts_with(d))
        && !library.contains("-packages/")
        && !conda
        && file.starts_with("lib")
        && !file.contains(".cpython-")
}

/// The project a library is named after where nothing else names its package: `libOpenMM.so.8.0`
/// is OpenMM's, `libtreelite.dylib` treelite's. Only `lib`-prefixed names no table places
/// (system, CUDA, driver and torch libraries, symbol providers) count: those belong to others.
fn library_project(library: &str) -> Option<String> {
    use abidoc_knowledge::system_libs as sys;
    let file = crate::incidents::basename(library);
    let stem = file
        .split(".so")
        .next()
        .and_then(|s| s.split(".dylib").next())
        .unwrap_or(file);
    let name = stem.strip_prefix("lib")?;
    let name = name.split(['_', '-', '.']).next().unwrap_or(name);
    let name = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let known_elsewhere = sys::system_library(file).is_some()
        || sys::cuda_library(file).is_some()
        || sys::is_driver_library(file)
        || sys::is_torch_library(file)
        || sys::provider_of_library(stem).is_some()
        || name.eq_ignore_ascii_case("torch")
        || name.eq_ignore_ascii_case("python");
    (name.len() >= 3 && name.bytes().all(|c| c.is_ascii_alphabetic()) && !known_elsewhere)
        .then(|| name.to_ascii_lowercase())
}

impl Cx<'_> {
    /// The interpreter pip steps run: the environment's (`--python`), else `python` on PATH.
    pub fn python(&self) -> Python {
        self.world
            .ctx
            .python
            .as_deref()
            .and_then(|p| p.to_str())
            .and_then(crate::fix::SafePath::new)
            .map_or(Python::OnPath, Python::Path)
    }

    /// The package of a library that failed (or needs what is missing), from the best source
    /// at hand: its owner on disk (the name it was installed under), the tables (as the text
    /// spells it), then the package the text shows around the failure (never torch for a
    /// library torch does not own: torch's frames surround every extension's import), then a
    /// top-level module's own name.
    pub fn package_of(&self, library: Option<&str>, torch_owns: bool) -> Option<String> {
        // Triton compiles its launchers into its cache at run time (`/tmp/torchinductor_root/
        // triton/0/<hash>/hip_utils.so`, `~/.triton/cache/<hash>/cuda_utils.so`): Triton's.
        if let Some(l) = library.map(|l| l.replace('\\', "/"))
            && (l.contains("/.triton/cache/")
                || l.contains("/torchinductor_") && l.contains("/triton/"))
        {
            return Some("triton".to_owned());
        }
        library
            .and_then(|l| self.world.installed_owner(l))
            .or_else(|| {
                library
                    .and_then(|l| self.world.package_of_library(l))
                    .map(|p| self.as_named(p.name))
            })
            .or_else(|| {
                self.near
                    .filter(|n| torch_owns || *n != "torch")
                    .map(|n| self.era_name(n.to_owned()))
            })
            .or_else(|| library.and_then(|l| self.world.package_of_module_file(l)))
            .or_else(|| library.and_then(library_project))
    }

    /// Whether the text shows torch in the failure's picture: torch named or its version stated,
    /// or a failing module named as torch extensions name theirs (`_C`, `_ext`, `*_cuda`). A
    /// package no table knows, where none of these holds, is not assumed to link torch (an
    /// environment's torch says nothing about that package).
    pub fn torch_shown(&self, module: Option<&str>) -> bool {
        self.scene.version_of("torch").is_some()
            || self.scene.mentions_pytorch
            || self.scene.torch_extension_build
            || self.scene.mentions.iter().any(|(_, n)| n == "torch")
            || module.is_some_and(|m| {
                let leaf = m.rsplit(['.', '/', '\\']).next().unwrap_or(m);
                let leaf = leaf.split('.').next().unwrap_or(leaf);
                matches!(leaf, "_C" | "_ext")
                    || leaf.ends_with("_cuda")
                    || leaf.ends_with("_cuda_ext")
            })
    }

    /// The distribution name the text uses for `package` when it spells an alias of it
    /// (`mmcv-full`, what pip installed and must uninstall), else its [`Cx::era_name`].
    pub fn as_named(&self, package: String) -> String {
        let Some(facts) = crate::kb::package(&package) else {
            return package;
        };
        let canonical = facts.name.clone();
        if let Some(named) =
            self.scene.mentions.iter().map(|(_, n)| n).find(|n| {
                **n != package && crate::kb::package(n).is_some_and(|f| f.name == canonical)
            })
        {
            return named.clone();
        }
        self.era_name(package)
    }

    /// The name a package's torch 1.x era used when the torch in use is a 1.x (mmcv's compiled
    /// ops were `mmcv-full` then), else `package` as given.
    pub fn era_name(&self, package: String) -> String {
        let Some(facts) = crate::kb::package(&package) else {
            return package;
        };
        match facts
            .wheel_index
            .as_ref()
            .and_then(|w| w.distribution_torch1.clone())
        {
            Some(old) if package == facts.name && self.torch_1x() => old,
            _ => package,
        }
    }

    /// The package a build is compiling: pip's line for it, else the package the text shows
    /// around the failure (never torch: in a build its files are cpp_extension's machinery),
    /// else the checkout a compiler's source path names (`detail`).
    pub fn package_being_built(&self, detail: Option<&str>) -> Option<String> {
        self.scene
            .packages_built
            .first()
            .map(|p| crate::kb::normalize(p))
            .or_else(|| self.near.filter(|n| *n != "torch").map(str::to_owned))
            .or_else(|| detail.and_then(crate::sources::source_project))
            .or_else(|| self.after.map(str::to_owned))
    }

    /// Whether the torch in use is a 1.x: the installed or stated torch says so, or, with no
    /// torch known, the Python the text's paths show is 3.7 or older (torch 2.0 needs 3.8).
    pub fn torch_1x(&self) -> bool {
        match self
            .torch()
            .as_deref()
            .and_then(abidoc_knowledge::Version::parse)
        {
            Some(v) => v.major() < 2,
            None => self.scene.python_in_paths.is_some_and(|p| p <= (3, 7)),
        }
    }

    /// The installed torch, else the one the text states.
    /// A package's version: the installed one, else the one the text states.
    pub fn package_version(&self, pkg: &str) -> Option<String> {
        self.world
            .installed_version(pkg)
            .or_else(|| self.scene.version_of(pkg).map(str::to_owned))
    }

    pub fn torch(&self) -> Option<String> {
        self.world
            .torch_version()
            .or_else(|| self.scene.version_of("torch").map(str::to_owned))
    }

    /// The CUDA this machine runs, as far as anything says: the installed torch's, else the
    /// `+cuNNN` label of the torch the text states, else the CUDA the text states (nvidia-smi's
    /// `CUDA Version`). `None` where nothing says, or a CPU torch is all there is.
    pub fn machine_cuda(&self) -> Option<(u32, Option<u32>)> {
        let parse = |v: &str| {
            let mut parts = v.split('.');
            let major: u32 = parts.next()?.parse().ok()?;
            Some((major, parts.next().and_then(|m| m.parse().ok())))
        };
        let found = match self.world.torch_cuda() {
            Some(c) => parse(&c),
            None => self
                .torch()
                .and_then(|t| abidoc_knowledge::Version::parse(&t))
                .and_then(|t| t.local_cuda())
                .and_then(|(major, minor)| {
                    Some((u32::try_from(major).ok()?, u32::try_from(minor).ok()))
                })
                .or_else(|| self.scene.version_of("cuda").and_then(parse)),
        };
        found.filter(|(major, _)| *major > 0)
    }

    /// The distribution to install of `package`: itself, or, for a package published once per
    /// CUDA build (`cudf` is `cudf-cu12` or `cudf-cu13`), the build the text names, else the one
    /// the environment holds, else the one for [`Cx::machine_cuda`]; `None` when nothing says
    /// which build.
    pub fn cuda_build_of(&self, package: &str) -> Option<String> {
        let Some(facts) = abidoc_knowledge::packages::untagged_per_cuda(package) else {
            return Some(package.to_owned());
        };
        if let Some(b) = self.installed_builds_of(facts).into_iter().next() {
            return Some(b.to_owned());
        }
        let (major, minor) = self.machine_cuda()?;
        abidoc_knowledge::packages::variant_for_cuda(facts, major, minor).map(str::to_owned)
    }

    /// The builds of a package published per CUDA build that the environment holds.
    fn installed_builds_of(
        &self,
        facts: &'static abidoc_knowledge::packages::Package,
    ) -> Vec<&'static str> {
        abidoc_knowledge::packages::cuda_variants(facts)
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| self.world.installed_version(n).is_some())
            .collect()
    }

    /// The builds of `name`'s package the environment holds, where it is published per CUDA
    /// build; empty otherwise.
    pub fn installed_builds(&self, name: &Name) -> Vec<Name> {
        abidoc_knowledge::packages::package(name.as_str())
            .map(|f| self.installed_builds_of(f))
            .unwrap_or_default()
            .into_iter()
            .filter_map(Name::new)
            .collect()
    }

    /// The name pip installs `name` by, where it is an untagged name of a package published per
    /// CUDA build: [`Cx::cuda_build_of`], else the tables' default build. `None` for any other
    /// name (installed as it is).
    pub fn install_name(&self, name: &Name) -> Option<Name> {
        let facts = abidoc_knowledge::packages::untagged_per_cuda(name.as_str())?;
        let build = self
            .cuda_build_of(name.as_str())
            .unwrap_or_else(|| facts.name.clone());
        Name::new(&build)
    }

    /// The CUDA major of the torch in use: the installed torch's `version.py`, else the
    /// `+cuXYZ` label of the torch the text states; `Some(0)` for a CPU build; `None` unknown.
    pub fn torch_cuda_major(&self) -> Option<u64> {
        if let Some(c) = self.world.torch_cuda() {
            return c.split('.').next().and_then(|m| m.parse().ok());
        }
        let torch = abidoc_knowledge::Version::parse(&self.torch()?)?;
        if torch.local_label() == Some("cpu") {
            return Some(0);
        }
        torch.local_cuda().map(|(major, _)| major)
    }
}

/// A diagnosis with its code's defaults, before the owning module fills it in.
/// A diagnosis about one library the loader refused for a reason of its own (its stack, its
/// TLS): the library, and its package as [`Cx::package_of`] names it.
pub(crate) fn for_library(
    code: Code,
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    library: Option<&str>,
) -> Diagnostic {
    let mut d = blank(code, source);
    d.library = library.map(str::to_owned);
    d.package = cx.package_of(library, library.is_some_and(crate::kb::is_torch_library));
    d
}

pub(crate) fn blank(code: Code, source: Option<SourceRef>) -> Diagnostic {
    Diagnostic {
        code,
        severity: Severity::Error,
        message: String::new(),
        source,
        related: Vec::new(),
        package: None,
        library: None,
        symbols: Vec::new(),
        evidence: Vec::new(),
        explanation: None,
        fixes: Vec::new(),
    }
}

/// The frame of a version-not-found diagnosis (`GLIBC_…`, `GLIBCXX_…`): the library that needs
/// the version, its package, and its file name for the message.
pub(crate) fn version_needer<'a>(
    cx: &Cx<'_>,
    code: Code,
    source: Option<SourceRef>,
    required_by: Option<&'a str>,
) -> (Diagnostic, &'a str) {
    let mut d = blank(code, source);
    d.library = required_by.map(str::to_owned);
    d.package = cx.package_of(required_by, false);
    let needer = required_by
        .map(crate::incidents::basename)
        .unwrap_or("a library");
    (d, needer)
}

/// Turns one incident into a diagnosis through the module that owns its code.
pub(crate) fn diagnose(
    inc: &Incident,
    scene: &Scene,
    world: &World,
    to_source: &dyn Fn(abidoc_syntax::Span) -> SourceRef,
) -> Option<Diagnostic> {
    let model = world.model(scene);
    let cx = Cx {
        scene,
        world,
        model: model.as_ref(),
        near: scene.package_near(inc.primary),
        after: scene.package_after(inc.primary),
        span: inc.primary,
    };
    let source = Some(to_source(inc.primary));
    let mut d = match &inc.failure {
        Failure::UndefinedSymbol {
            library,
            symbol,
            truncated,
            version_of,
        } => symbols::diagnose(
            &cx,
            source,
            library.as_deref(),
            symbol,
            *truncated,
            version_of.as_deref(),
        ),
        Failure::MissingLibrary { name, required_by } => {
            missing_shared_library::diagnose(&cx, source, name, required_by.as_deref())
        }
        Failure::VersionNotFound {
            library,
            version,
            required_by,
        } if version.starts_with("GLIBC_") => {
            glibc_too_old::diagnose(&cx, source, library, version, required_by.as_deref())
        }
        Failure::VersionNotFound {
            library,
            version,
            required_by,
        } => libstdcxx_mismatch::diagnose_version(
            &cx,
            source,
            library,
            version,
            required_by.as_deref(),
        ),
        Failure::Libcuda { detail } if loadforms::is_dlopen_libcuda(detail) => {
            loadforms::libcuda_dlopen(&cx, source, detail)
        }
        Failure::Libcuda { detail } => libcuda_not_found::diagnose(&cx, source, detail),
        Failure::GpuLibraries { framework, detail } => {
            missing_shared_library::gpu_libraries(&cx, source, framework, detail)
        }
        Failure::WindowsDll { module, dll, why } => {
            loadforms::windows(&cx, source, module.as_deref(), dll.as_deref(), *why)
        }
        Failure::CompiledModuleMissing { module } => {
            loadforms::compiled_module_missing(&cx, source, module)
        }
        Failure::NoCompiler { detail } => no_c_compiler::diagnose(&cx, source, detail),
        // The run-time trace of a build that found no toolkit: the package's CPU half only.
        Failure::CudaHome { detail } if cuda_home_missing::cpu_half_only(detail) => {
            extension_incomplete_build::cpu_half(&cx, source, detail)
        }
        Failure::CudaHome { detail } => cuda_home_missing::diagnose(&cx, source, detail),
        Failure::CudaVersion {
            found,
            expected,
            detail,
        } => cuda_version_mismatch::diagnose(
            &cx,
            source,
            found.as_deref(),
            expected.as_deref(),
            detail,
        ),
        Failure::BuildDeps { module, too_new } => {
            build_deps_missing::diagnose(&cx, source, module, *too_new)
        }
        Failure::BuildIsolation { package } => {
            build_isolation::diagnose(&cx, source, package.as_deref())
        }
        Failure::BuildFailed { package } => build_failed::diagnose(&cx, source, package.as_deref()),
        Failure::XformersBuiltFor {
            built_torch,
            have_torch,
            built_cuda,
            built_python,
            have_python,
        } => xformers_built_for::diagnose(
            &cx,
            source,
            xformers_built_for::Build {
                built_torch: built_torch.as_deref(),
                have_torch: have_torch.as_deref(),
                built_cuda: built_cuda.as_deref(),
                built_python: built_python.as_deref(),
                have_python: have_python.as_deref(),
            },
        ),
        Failure::FlashAttn { reason } => flash_attn_unavailable::diagnose(&cx, source, reason),
        Failure::TorchOps {
            what,
            package,
            libraries,
        } => torch_ops_missing::diagnose(&cx, source, what, package.as_deref(), libraries),
        Failure::NumpyAbi { detail } => numpy_abi::diagnose(&cx, source, detail),
        Failure::NumpyRemoved { name } => numpy_abi::removed_name(&cx, source, name),
        Failure::CudaOom { tried, .. } => cuda_oom::diagnose(&cx, source, tried.as_deref()),
        Failure::StaleGpuProcesses => cuda_oom::diagnose_stale(&cx, source),
        Failure::MambaFastPath {
            model_class,
            kernel,
        } => mamba_fast_path::diagnose(&cx, source, model_class.as_deref(), kernel.as_deref()),
        Failure::StaleWheelCache { file } => stale_wheel_cache::diagnose(&cx, source, file)?,
        Failure::GpuArch {
            form,
            gpu,
            capability,
            supported,
            range,
            detail,
        } => gpu_arch_missing::diagnose(
            &cx,
            source,
            &gpu_arch_missing::Seen {
                form: *form,
                gpu: gpu.as_deref(),
                capability: capability.as_deref(),
                supported,
                range: range.as_ref(),
                detail,
            },
        ),
        Failure::TorchApiNewer { api } => abi_mismatch::newer_api(&cx, source, api),
        Failure::FrameworkVersion {
            package,
            framework,
            needs,
            installed,
        } => abi_mismatch::framework_version(&cx, source, package, framework, needs, installed),
        Failure::AuditwheelMissing { library } => {
            missing_shared_library::auditwheel(source, library)
        }
        Failure::MacosTooOld {
            library,
            symbol,
            system_library,
            built_for,
        } => glibc_too_old::macos(
            &cx,
            source,
            library.as_deref(),
            symbol,
            system_library,
            built_for.as_deref(),
        ),
        Failure::CondaCudaVirtual { detail } => {
            libcuda_not_found::conda_virtual(&cx, source, detail)
        }
        Failure::TensorflowOp { op } => torch_ops_missing::tensorflow_op(&cx, source, op),
        Failure::CythonApi { module, name } => abi_mismatch::cython_api(&cx, source, module, name),
        Failure::PythonRange { python, supported } => {
            no_matching_distribution::python_range(&cx, source, python, supported)
        }
        // xFormers says the same of itself at import (`built for PyTorch X, you have Y`).
        Failure::PinnedTorch {
            package,
            version,
            needs,
            installed,
        } => match package.as_str() {
            "xformers" => xformers_built_for::pip_pinned(&cx, source, version, needs, installed),
            _ => abi_mismatch::pinned_torch(&cx, source, package, version, needs, installed),
        },
        Failure::PjrtApi {
            plugin,
            plugin_api,
            framework_api,
            plugin_newer,
        } => abi_mismatch::pjrt_plugin(
            &cx,
            source,
            &abi_mismatch::Pjrt {
                plugin,
                plugin_api,
                framework_api,
                plugin_newer: *plugin_newer,
            },
        ),
        Failure::TorchApiRemoved { name, detail } => {
            abi_mismatch::removed_api(&cx, source, name, detail)
        }
        Failure::HeaderMissing { header, detail } => {
            build_deps_missing::header(&cx, source, header, detail)
        }
        Failure::CudaSetupFailed { package, detail } => {
            missing_shared_library::cuda_setup_failed(&cx, source, package, detail)
        }
        // jaxlib's CUDA plugin says it of the nvidia-* wheels it opens: its own reading.
        Failure::PackageLibraryUnloadable { package, detail } if package == "jax" => {
            missing_shared_library::jax_cuda_library(&cx, source, detail)
        }
        Failure::PackageLibraryUnloadable { package, detail } => {
            missing_shared_library::package_unloadable(&cx, source, package, detail)
        }
        Failure::CudnnVersion {
            framework,
            library,
            compiled,
            runtime,
            detail,
        } => cuda_version_mismatch::cudnn_runtime(
            &cx,
            source,
            framework,
            library,
            compiled.as_deref(),
            runtime.as_deref(),
            detail,
        ),
        Failure::ToolkitArch { arch, tool, detail } => {
            gpu_arch_missing::toolkit_refuses(&cx, source, arch, tool.as_deref(), detail)
        }
        Failure::DriverTooOld { found, detail } => {
            driver_too_old::diagnose(&cx, source, found.as_deref(), detail)
        }
        Failure::LibraryUnreadable { library, why } => {
            missing_shared_library::unreadable(&cx, source, library, why)
        }
        Failure::CpuOnlyTorch { detail, asserted } => {
            cpu_only_torch::diagnose(&cx, source, detail, *asserted)
        }
        Failure::WrongArchitecture {
            library,
            have,
            need,
            detail,
            on_disk,
        } => cpu_arch_mismatch::diagnose(
            &cx,
            source,
            &cpu_arch_mismatch::Seen {
                library: library.as_deref(),
                have: have.as_deref(),
                need: need.as_deref(),
                detail,
                on_disk: *on_disk,
            },
        ),
        Failure::IllegalInstruction { feature, detail } => {
            cpu_features_missing::diagnose(&cx, source, feature.as_deref(), detail)
        }
        Failure::ExecutableStack { library } => {
            executable_stack::diagnose(&cx, source, library.as_deref())
        }
        Failure::StaticTlsExhausted { library } => {
            static_tls_exhausted::diagnose(&cx, source, library.as_deref())
        }
        Failure::BindingMismatch {
            function,
            module,
            passed,
            accepts,
        } => binding_signature_mismatch::diagnose(
            &cx,
            source,
            &binding_signature_mismatch::Call {
                function,
                module: module.as_deref(),
                passed: *passed,
                accepts: *accepts,
            },
        ),
        Failure::IoBackendMissing {
            package,
            backend,
            newest,
        } => io_backend_missing::diagnose(&cx, source, package, backend.as_deref(), *newest),
        Failure::WheelUnsupported { wheel } => wheel_tags_mismatch::diagnose(&cx, source, wheel),
        Failure::JitOpUnavailable { package, op } => {
            extension_incomplete_build::jit_op_unavailable(&cx, source, package, op)
        }
        Failure::JitBuildStalled { root, op } => {
            extension_incomplete_build::jit_stalled(&cx, source, root.as_deref(), op.as_deref())
        }
        Failure::NoMatchingDistribution {
            requirement,
            available,
        } => no_matching_distribution::diagnose(&cx, source, requirement, available.as_deref()),
        Failure::OpenmpDuplicate {
            initializing,
            found,
            mkl_layer: None,
        } => openmp_duplicate::diagnose(&cx, source, initializing.as_deref(), found.as_deref()),
        Failure::OpenmpDuplicate {
            found,
            mkl_layer: Some(layer),
            ..
        } => openmp_duplicate::mkl_layer(&cx, source, layer, found.as_deref()),
        // A `+cpu` torch was turned into `CpuOnlyTorch` when the incidents were collected; on an
        // ARM machine or on Windows PyPI's torch is CPU-only too (its CUDA builds live on
        // PyTorch's index and, for Jetson, NVIDIA's); otherwise CUDA being unavailable has too
        // many causes to name.
        Failure::CudaUnavailable { detail, stopped }
            if *stopped || scene.mentions_arm || scene.mentions_windows =>
        {
            cpu_only_torch::unavailable(&cx, source, detail, *stopped)
        }
        Failure::CudaUnavailable { .. } => return None,
        Failure::ExtensionsSkipped {
            package,
            torch,
            needs_torch,
        } => abi_mismatch::version_gate(
            &cx,
            source,
            package.as_deref(),
            torch.as_deref(),
            needs_torch.as_deref(),
        ),
        Failure::CompiledAttributeMissing { module, attribute } => {
            extension_incomplete_build::attribute_missing(&cx, source, module, attribute)
        }
        Failure::OwnModuleMissing { module, package } => {
            extension_incomplete_build::module_missing(&cx, source, module, package)
        }
    };
    d.related = inc.related.iter().map(|s| to_source(*s)).collect();
    let traits = doc(d.code);
    if d.package.is_none() && traits.near_package != NearPackage::Never {
        // torch lacking a newer torch's API is the installed torch, not the failing package.
        let not_torch = traits.near_package == NearPackage::NotTorch
            || matches!(
                inc.failure,
                Failure::TorchApiNewer { .. } | Failure::TorchApiRemoved { .. }
            );
        d.package = cx
            .near
            .filter(|n| !(not_torch && *n == "torch"))
            .map(str::to_owned);
    }
    if let (Some(m), true) = (cx.model, traits.model_decides) {
        d.evidence.insert(0, m.describe());
    }
    // A Windows text gets lines a Windows shell reads (`set K=V`, double quotes).
    if scene.mentions_windows {
        for f in &mut d.fixes {
            f.shell = crate::fix::Shell::Cmd;
        }
    }
    Some(d)
}

/// The failure is on macOS: the library is a Mac's (`.dylib`, a `-darwin.so` module), or the
/// text is a Mac's (its paths, `darwin` modules) and not Windows'. Its fixes then speak dyld's,
/// Homebrew's and clang's language.
pub(crate) fn on_macos(cx: &Cx<'_>, lib: Option<&str>) -> bool {
    lib.is_some_and(|l| l.ends_with(".dylib") || l.contains("-darwin.so"))
        || cx.scene.mentions_macos && !cx.scene.mentions_windows
}

/// Links the diagnoses of one text: a silent symptom names the failure that causes it.
pub(crate) fn link(diags: &mut [Diagnostic]) {
    let causes: Vec<(Option<String>, String)> = diags
        .iter()
        .filter(|d| {
            matches!(
                d.code,
                Code::AbiMismatch | Code::Cxx11AbiMismatch | Code::MissingSharedLibrary
            )
        })
        .map(|d| (d.package.clone(), d.message.clone()))
        .collect();
    for d in diags.iter_mut() {
        let symptom = matches!(
            d.code,
            Code::TorchOpsMissing
                | Code::XformersBuiltFor
                | Code::MambaFastPath
                | Code::FlashAttnUnavailable
        );
        if !symptom {
            continue;
        }
        for (pkg, msg) in &causes {
            let same = match (&d.package, pkg) {
                (Some(a), Some(b)) => {
                    a == b
                        || (d.code == Code::MambaFastPath
                            && (b == "causal-conv1d" || b == "mamba-ssm"))
                }
                _ => false,
            };
            if same {
                d.evidence.push(format!("caused by: {msg}"));
            }
        }
    }
}
