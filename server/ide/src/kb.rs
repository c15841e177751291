//! The knowledge the diagnosis needs, in the shape fixes use it: a thin view over
//! `abidoc-knowledge` (tables, model families, torch symbol index) and `abidoc-elf` (demangling).

use abidoc_knowledge as k;
pub use k::prebuilt::{Answer as PrebuiltAnswer, Fetch, Listing, Origin};

use crate::diagnostic::{SymbolReport, SymbolStatus};

pub fn normalize(name: &str) -> String {
    k::names::normalize_name(name)
}

pub fn demangle(symbol: &str) -> Option<String> {
    abidoc_elf::demangle(symbol)
}

/// Whether `soname` is one of torch's own libraries (exact names: not `libtorchaudio.so`).
pub fn is_torch_library(soname: &str) -> bool {
    k::system_libs::is_torch_library(soname)
}

/// Who provides a library that wheels do not ship (Open MPI, rdma-core, NCCL on PyPI …).
pub fn system_library(soname: &str) -> Option<&'static k::system_libs::SystemLibrary> {
    k::system_libs::system_library(soname)
}

/// Who defines a plain C symbol that is not torch's (NCCL, nvJitLink, an extension's core library).
pub fn symbol_provider(symbol: &str) -> Option<&'static k::system_libs::SymbolProvider> {
    k::system_libs::symbol_provider(symbol)
}

/// The cuDNN major a `libcudnn*.so.N` names, with the PyPI packages per CUDA major.
pub fn cudnn(soname: &str) -> Option<&'static k::system_libs::CudnnMajor> {
    k::system_libs::cudnn(soname)
}

/// A CUDA library whose so-number is the CUDA major, with that major.
pub fn cuda_library(soname: &str) -> Option<(&'static k::system_libs::CudaLibrary, u32)> {
    k::system_libs::cuda_library(soname)
}

/// The PyPI distribution that ships a CUDA library file (`libcublas.so.11` →
/// `nvidia-cublas-cu11`, `libcudnn_ops_infer.so.8` → cuDNN 8's wheel): the CUDA table's package
/// of that major, else the first wheel the provider table names.
pub fn pip_distribution_of(file: &str) -> Option<String> {
    if cuda_library(file).is_some() {
        return cuda_package(file).map(|(_, p, _)| p.name.clone());
    }
    system_library(file).and_then(|s| s.pip.first().cloned())
}

/// A CUDA library (`libcublasLt.so.12`) with the PyPI package of the CUDA major its so-number
/// names, and that major.
pub fn cuda_package(
    soname: &str,
) -> Option<(
    &'static k::system_libs::CudaLibrary,
    &'static k::system_libs::CudaPackage,
    u32,
)> {
    let (lib, major) = cuda_library(soname)?;
    let p = lib.packages.iter().find(|p| p.major == major)?;
    Some((lib, p, major))
}

/// Whether a known package's compiled code calls into torch (so a rebuild against torch helps).
pub fn links_torch(package: &str) -> Option<bool> {
    k::packages::package(package).map(|p| p.links_torch)
}

/// The distribution that publishes a known package's Windows builds when the project publishes
/// none (`triton` → `triton-windows`).
pub fn windows_port(package: &str) -> Option<String> {
    k::packages::package(package).and_then(|p| p.windows_port.clone())
}

/// The distribution that publishes a known package's modules for CPUs below its default
/// wheels' baseline (`polars` → `polars-lts-cpu`).
pub fn older_cpu_build(package: &str) -> Option<String> {
    k::packages::package(package).and_then(|p| p.older_cpu_build.clone())
}

/// Whether PyPI holds wheels of a known package and no source (`Package::no_sdist`) with no
/// other target to build: `--no-binary` cannot build it.
pub fn wheels_only(package: &str) -> bool {
    k::packages::package(package).is_some_and(|p| p.no_sdist && p.build.install_target.is_none())
}

/// Whether PyPI holds only a known package's source (`Package::sdist_only`): `--only-binary`
/// finds nothing.
pub fn sdist_only(package: &str) -> bool {
    k::packages::package(package).is_some_and(|p| p.sdist_only)
}

/// Whether a known package ships its own GPU builds that nothing pins (`Package::own_gpu_builds`).
pub fn own_gpu_builds(package: &str) -> bool {
    k::packages::package(package).is_some_and(|p| p.own_gpu_builds)
}

/// What fixes need to know about an extension package.
#[derive(Debug, Clone)]
pub struct PackageFacts {
    pub name: String,
    pub pairs_with: Vec<String>,
    /// Mamba/SSM kernels: needed only by the model families that use them.
    pub ssm_kernels: bool,
    pub optional_importers: Vec<String>,
    /// Removing it is a safe fix when nothing requires it (its importers fall back cleanly).
    pub removable_when_unneeded: bool,
    pub force_build_env: Vec<(String, String)>,
    pub needs_no_build_isolation: bool,
    pub has_prebuilt_wheels: bool,
    /// Its find-links page of wheels per torch and CUDA, outside PyPI.
    pub wheel_index: Option<k::packages::WheelIndex>,
    /// Roughly how long a source build takes, in minutes.
    pub build_minutes: Option<u32>,
    /// Installed from its repository (`install_target`), not from PyPI releases.
    pub from_repository: bool,
    /// The repository a source build installs from (`git+https://…`), when PyPI's name is
    /// another project's or has no sdist.
    pub install_target: Option<String>,
    /// See `BuildRecipe::fetch_without_nvcc`.
    pub fetch_without_nvcc: Option<String>,
    /// See `Package::runtimes`.
    pub runtimes: Vec<k::packages::RuntimeMajors>,
    /// See `Package::newer_msvc`.
    pub newer_msvc: Option<k::packages::NewerMsvc>,
    /// See `Package::follows_torch`.
    pub follows_torch: bool,
    /// See `Package::checkout_only`.
    pub checkout_only: bool,
    /// See `Package::framework`.
    pub framework: bool,
    /// See `Package::cuda_extra`.
    pub cuda_extra: Option<String>,
}

fn facts(p: &k::packages::Package) -> PackageFacts {
    // Kernel packages that only Mamba/SSM families use: a transformer never needs them.
    let ssm = !p.needed_by_families.is_empty()
        && p.needed_by_families.iter().all(|f| {
            k::models::family_for_model_type(f).is_some_and(|fam| {
                fam.uses_mamba_kernels || fam.kind != k::models::Kind::Transformer
            })
        });
    PackageFacts {
        name: p.name.clone(),
        pairs_with: p.pairs_with.clone(),
        ssm_kernels: ssm,
        optional_importers: p.optional_importers.clone(),
        removable_when_unneeded: p.optional_for_importers && !p.optional_importers.is_empty(),
        force_build_env: p
            .build
            .env
            .iter()
            .filter(|e| e.required && !e.value.is_empty())
            .map(|e| (e.name.clone(), e.value.clone()))
            .collect(),
        needs_no_build_isolation: p
            .build
            .pip_flags
            .iter()
            .any(|f| f == "--no-build-isolation"),
        has_prebuilt_wheels: k::releases::has_prebuilt(&p.name),
        wheel_index: p.wheel_index.clone(),
        build_minutes: p.build.minutes,
        from_repository: p.build.install_target.is_some(),
        install_target: p.build.install_target.clone(),
        fetch_without_nvcc: p.build.fetch_without_nvcc.clone(),
        runtimes: p.runtimes.clone(),
        newer_msvc: p.newer_msvc.clone(),
        follows_torch: p.follows_torch,
        checkout_only: p.checkout_only,
        framework: p.framework,
        cuda_extra: p.cuda_extra.clone(),
    }
}

impl PackageFacts {
    /// A package the knowledge does not list: built like a torch extension (no build
    /// isolation), nothing else assumed.
    pub fn unknown(name: String) -> Self {
        PackageFacts {
            name,
            pairs_with: Vec::new(),
            ssm_kernels: false,
            optional_importers: Vec::new(),
            removable_when_unneeded: false,
            force_build_env: Vec::new(),
            needs_no_build_isolation: true,
            has_prebuilt_wheels: false,
            wheel_index: None,
            build_minutes: None,
            from_repository: false,
            install_target: None,
            fetch_without_nvcc: None,
            runtimes: Vec::new(),
            newer_msvc: None,
            follows_torch: false,
            checkout_only: false,
            framework: false,
            cuda_extra: None,
        }
    }
}

pub fn package(name: &str) -> Option<PackageFacts> {
    k::packages::package(name).map(facts)
}

/// The name a package published per CUDA build goes by when no build is meant (`cudf` for
/// `cudf-cu12`, `cupy` for `cupy-cuda12x`): its alias without a CUDA tag; any other name as
/// it is.
pub fn untagged_name(name: &str) -> String {
    abidoc_knowledge::packages::package(name)
        .filter(|f| f.per_cuda)
        .map_or_else(
            || name.to_owned(),
            |f| abidoc_knowledge::packages::untagged_name(f).to_owned(),
        )
}

/// Whether `name` is built only from a project's checkout (`Package::checkout_only`): no fix
/// installs it by name.
pub fn checkout_only(name: &str) -> bool {
    package(name).is_some_and(|f| f.checkout_only)
}

pub fn package_for_library(path: &str) -> Option<PackageFacts> {
    k::packages::package_for_path(path).map(facts)
}

/// The model a text or notebook uses, and whether it runs Mamba kernels.
#[derive(Debug, Clone)]
pub struct ModelFacts {
    pub id: String,
    info: k::models::ModelInfo,
    pub model_type: Option<String>,
    pub uses_mamba: Option<bool>,
    /// How it was learned: its config.json in the Hugging Face cache, or the name.
    pub via: String,
}

impl ModelFacts {
    /// Whether running the model uses `package`; `None` when the model is unknown.
    pub fn needs(&self, package: &str) -> Option<bool> {
        self.info.needs_package(package)
    }

    pub fn describe(&self) -> String {
        let kind = self.kind_phrase();
        let ty = self
            .model_type
            .as_deref()
            .map(|t| format!(", model_type {t}"))
            .unwrap_or_default();
        format!("model {} is {kind}{ty} ({})", self.id, self.via)
    }

    pub fn kind_phrase(&self) -> &'static str {
        match self.uses_mamba {
            Some(true) => "a hybrid/Mamba model that uses the Mamba kernels",
            Some(false) => "a transformer",
            None => "of an unknown family",
        }
    }
}

/// `read_disk` false (`--no-env`): the id alone decides, no config.json is read anywhere.
pub fn resolve_model(
    id: &str,
    hf_home: Option<&std::path::Path>,
    read_disk: bool,
) -> Option<ModelFacts> {
    let info = if read_disk {
        k::models::resolve_model(id, hf_home)
    } else {
        k::models::resolve_model_by_name(id)
    };
    let via = match &info.via {
        k::models::Via::Config(p) => format!("read from {}", p.display()),
        k::models::Via::NamePattern => {
            "judged from its name; no config.json in the Hugging Face cache".into()
        }
        k::models::Via::Unknown => "unknown family".into(),
    };
    Some(ModelFacts {
        id: id.to_owned(),
        model_type: info.model_type.clone(),
        uses_mamba: info.uses_mamba_kernels,
        via,
        info,
    })
}

pub fn find_models(text: &str) -> Vec<String> {
    k::models::find_models(text)
        .into_iter()
        .map(|m| m.id)
        .collect()
}

/// The newest release of `package` built for the installed torch, from the compatibility tables
/// (generated from PyPI first), else the newest whose stated torch range admits it.
pub fn release_for_torch(package: &str, torch: &str) -> Option<String> {
    let pinned = match normalize(package).as_str() {
        "torchvision" => k::compat::torchvision_for_torch(torch).map(str::to_owned),
        "torchaudio" => k::compat::torchaudio_for_torch(torch).map(str::to_owned),
        "xformers" => k::compat::xformers_for_torch(torch).map(str::to_owned),
        other => k::compat::releases_built_for_torch(other, torch)
            .first()
            .map(|r| r.version.clone()),
    };
    pinned.or_else(|| {
        k::releases::companion_in_range(&normalize(package), torch).map(|r| r.version.clone())
    })
}

/// Whether `package` has releases each built for one torch release (torchvision, torchaudio,
/// xformers and the extension releases the tables list): aligning versions can fix it.
pub fn pairs_with_torch(package: &str) -> bool {
    match normalize(package).as_str() {
        "torchvision" | "torchaudio" | "torchtext" | "xformers" => true,
        other => !k::compat::releases(other).is_empty(),
    }
}

/// The prebuilt wheel `package`'s setup.py would fetch at `version` (`None`: the newest
/// release) for this torch (`torch.__version__`), its CUDA (`torch.version.cuda`; `None`: from
/// the version's label or the release's default), C++ ABI (`None`: the release's default) and
/// Python, with what the release data says of it and the nearest listed builds. The one place
/// that answers "which wheel for this environment": the prebuilt-wheel fix and `verify` ask it.
pub fn prebuilt(
    package: &str,
    version: Option<&str>,
    torch: &str,
    cuda: Option<&str>,
    cxx11: Option<bool>,
    python: Option<&str>,
) -> Option<k::prebuilt::Answer> {
    k::prebuilt::answer(
        package,
        version,
        &k::prebuilt::Target {
            torch,
            cuda,
            cxx11_abi: cxx11,
            python,
            platform: None,
        },
    )
}

/// "built for torch A–B" from the offline torch symbol index, when every torch symbol is known.
pub fn built_for_range(symbols: &[SymbolReport]) -> Option<String> {
    let names: Vec<&str> = symbols
        .iter()
        .filter(|s| crate::symbols::owner(&s.mangled) == crate::symbols::Owner::Torch)
        .map(|s| s.mangled.as_str())
        .collect();
    if names.is_empty() {
        return None;
    }
    let bf = k::torch_index::built_for(&names)?;
    if bf.releases.is_empty() && !bf.outside_index() {
        return None;
    }
    Some(bf.summary())
}

/// When every torch symbol among `symbols` is exported by every indexed torch release (a name
/// torch never changed, such as `THPVariableClass`), the torch libraries that define them:
/// another torch cannot be the cause, torch's libraries were simply not in the process.
pub fn exported_by_every_release(symbols: &[SymbolReport]) -> Option<Vec<&'static str>> {
    let names: Vec<&str> = symbols
        .iter()
        .filter(|s| s.status != SymbolStatus::Resolved)
        .filter(|s| crate::symbols::owner(&s.mangled) == crate::symbols::Owner::Torch)
        .map(|s| s.mangled.as_str())
        .collect();
    let bf = k::torch_index::built_for(&names)?;
    if !bf.unknown.is_empty() || !bf.truncated.is_empty() || bf.known == 0 {
        return None;
    }
    let all = k::torch_index::releases().len();
    if bf.releases.len() != all {
        return None;
    }
    let mut libs: Vec<&'static str> = names
        .iter()
        .filter_map(|n| k::torch_index::lookup(n))
        .map(|h| h.library)
        .filter(|l| !l.is_empty())
        .collect();
    libs.sort_unstable();
    libs.dedup();
    Some(libs)
}

/// The torch release a binary was built for, from the offline index alone: the newest release
/// of a closed "built for A–B" range (its symbols all known, the range not reaching the newest
/// indexed release, so the newest torch is not it). `None` when the index cannot say.
pub fn built_for_release(symbols: &[SymbolReport]) -> Option<String> {
    let names: Vec<&str> = symbols
        .iter()
        .filter(|s| crate::symbols::owner(&s.mangled) == crate::symbols::Owner::Torch)
        .map(|s| s.mangled.as_str())
        .collect();
    let bf = k::torch_index::built_for(&names)?;
    if !bf.unknown.is_empty() || !bf.truncated.is_empty() || bf.other_abi.is_some() {
        return None;
    }
    let last = bf.releases.last()?;
    let newest = k::torch_index::releases().last()?;
    (last.version != newest.version).then(|| last.version.clone())
}

/// Whether pip itself can pick the release of `package` made for a torch: each release's
/// requirements pin torch (torchvision, torchaudio, torchtext, xformers; the packages the
/// generated data finds pinning). Not so for packages whose pairing only their own tables give
/// (fbgemm-gpu, torchcodec, torchao, sgl-kernel).
pub fn requirements_pin_torch(package: &str) -> bool {
    matches!(
        normalize(package).as_str(),
        "torchvision" | "torchaudio" | "torchtext" | "xformers"
    ) || pins_torch(package)
}

/// Whether `package` is an application that pins torch (its releases require one exact torch)
/// rather than one of torch's companions (torchvision, torchaudio, xformers), which follow the
/// torch installed: for it, moving torch to the release it was built for is the usual fix.
pub fn pins_torch(package: &str) -> bool {
    let name = normalize(package);
    if matches!(
        name.as_str(),
        "torchvision" | "torchaudio" | "torchtext" | "xformers"
    ) {
        return false;
    }
    let rs = k::releases::releases(&name);
    !rs.is_empty() && rs.iter().filter(|r| r.torch.is_some()).count() * 2 >= rs.len()
}

/// Lines telling which torch releases export `symbol`, and when it changed (offline index).
pub fn symbol_history(symbol: &str) -> Vec<String> {
    k::torch_index::describe(symbol).into_iter().collect()
}
