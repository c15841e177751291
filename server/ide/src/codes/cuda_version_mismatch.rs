//! `cuda-version-mismatch`: the CUDA toolkit that compiles an extension differs from the CUDA
//! torch was built with, or two installed packages were compiled for different CUDA versions.
//!
//! Produced by cpp_extension's "The detected CUDA version (X) mismatches the version that was
//! used to compile PyTorch (Y)", DeepSpeed's and apex's own checks, an nvcc without C++17, an
//! extension calling nvcc's launch hooks the loaded runtime lacks (`__cudaPopCallConfiguration`:
//! compiled by a newer toolkit than torch's CUDA), and by the scan's CUDA finding (a package's recorded CUDA
//! against torch's). Fixes: the matching toolkit found on disk, a torch built for the toolkit at
//! hand (a user-level pip command rather than another toolkit), a prebuilt wheel, the companion
//! release built for torch's CUDA.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Cost, Fix, FixKind, IndexUrl, Name, PipFlag, Requirement, SafePath, Step, Version};
use abidoc_knowledge::gpu;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "CUDA toolkit vs torch CUDA mismatch at build time, or two packages compiled with different CUDA versions.",
    meaning: "Extensions must be compiled with the CUDA major.minor torch was built with (cpp_extension refuses otherwise), and packages that share CUDA objects at run time must agree on the CUDA major. An extension compiled by a newer nvcc than torch's CUDA fails at import with `undefined symbol: __cudaPopCallConfiguration` (a launch hook nvcc emits since CUDA 9.2, missing from the older runtime torch loads). Frameworks built against one cuDNN check the one they load: TensorFlow's `Loaded runtime CuDNN library: X but source was compiled with: Y`, XLA's `DNN library is not found`, TensorFlow's `Fail to find the dnn implementation` from a cuDNN-backed op, JAX's `Found cuDNN version X, but JAX was built against version Y`: the cuDNN of the build's version is what must be found first.",
    fixes: "At build time: 1. `CUDA_HOME` to the toolkit of torch's CUDA found on disk (safe). 2. A torch built for the toolkit you have, from PyTorch's index (user-level, downloads several GB; torchvision/torchaudio move with it in their releases for that build). 3. A prebuilt wheel of the package, no local nvcc involved (advice). 4. Install torch's CUDA toolkit and set `CUDA_HOME` (advice: an installer, conda or root). Between two installed packages: the companion release built for the installed torch (and so its CUDA), else that package's build for torch's CUDA. numba's `No supported GPU compute capabilities found` (its NVVM and the toolkit it found disagree with the numba release): the numba release for that toolkit, or the toolkit that release supports (advice). A CUDA library loaded older than the code needs (Jitify's `Dynamically loaded libnvJitLink.so.12 is too old; it is version 12.2, need at least version 12.9`): that library's PyPI wheel at least the version named, else the older copy's directory off LD_LIBRARY_PATH.",
    near_package: super::NearPackage::NotTorch,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    found: Option<&str>,
    expected: Option<&str>,
    detail: &str,
) -> Diagnostic {
    let mut d = blank(Code::CudaVersionMismatch, source);
    d.package = cx
        .scene
        .packages_built
        .first()
        .map(|p| crate::kb::normalize(p));
    // nvcc refusing the C++ standard the build asks for is a toolkit older than the build (and
    // than the torch it builds against), whatever the versions.
    if detail.contains("is not defined for option 'std'") || detail.contains("Unknown option") {
        d.package = d.package.or_else(|| cx.near.map(str::to_owned));
        d.message = format!(
            "the CUDA toolkit's nvcc is older than this build needs: {}",
            detail.trim()
        );
        d.fixes = vec![
            Fix::in_words(
                Code::CudaVersionMismatch,
                "newer-toolkit",
                "Install a CUDA toolkit at least as new as torch's CUDA and set CUDA_HOME to it",
                "An nvcc that does not know C++17 (CUDA 11 and later do) or the flags torch's cpp_extension passes (-generate-dependencies-with-compile needs CUDA 10.2) is older than the torch being built against; the build uses the nvcc on CUDA_HOME or PATH.",
                "install the CUDA toolkit of torch.version.cuda (NVIDIA's installer or conda's cuda-nvcc), then export CUDA_HOME=<its directory>",
            )
            .unverified(),
        ];
        return d;
    }
    // A CUDA library loaded at run time older than the code needs (Jitify in cuDF and CuPy:
    // `Dynamically loaded libnvJitLink.so.12 is too old; it is version 12.2, need at least
    // version 12.9`): that library's PyPI wheel, at least the version named.
    if let Some(lib) = detail
        .split_once(" is too old; it is version ")
        .and_then(|(head, _)| head.rsplit(' ').next())
        .filter(|l| l.starts_with("lib") && l.contains(".so"))
    {
        let have = found.unwrap_or("an older one");
        let need = expected.unwrap_or("a newer one");
        d.package = d.package.or_else(|| cx.near.filter(|p| *p != "torch").map(str::to_owned));
        d.message = format!(
            "the {lib} loaded at run time is version {have}, older than the {need} the code was built for: an older CUDA library (a toolkit on LD_LIBRARY_PATH, or an older nvidia-* wheel) is found first"
        );
        d.evidence.push(format!("the text says: {}", detail.trim()));
        let mut fixes = Vec::new();
        if let Some((_, p, _)) = crate::kb::cuda_package(lib)
            && let (Some(name), Some(min)) = (Name::new(&p.name), expected.and_then(Version::new))
        {
            fixes.push(
                Fix::new(
                    Code::CudaVersionMismatch,
                    "newer-cuda-library",
                    FixKind::InstallMissing,
                    format!("Install {} {need} or newer from PyPI", p.name),
                    format!("{} ships {lib} at the version pip installs; when an older copy on LD_LIBRARY_PATH (a CUDA toolkit's lib64) is still found first, take that directory off the path.", p.name),
                )
                .step(recipes::pip_install(
                    cx,
                    vec![PipFlag::Upgrade],
                    vec![Requirement::AtLeast(name, min)],
                ))
                .cost(crate::fix::Cost::download()),
            );
        }
        fixes.push(
            Fix::in_words(
                Code::CudaVersionMismatch,
                "older-copy-first",
                format!("Or find the older {lib} loaded first and take its directory off LD_LIBRARY_PATH"),
                "A CUDA toolkit's lib64 (or a conda environment's lib) ahead of the nvidia-* wheels on LD_LIBRARY_PATH wins: the newer copy installed is then never loaded.",
                format!(
                    "echo $LD_LIBRARY_PATH; find / -name '{lib}*' 2>/dev/null; take the directory holding the older one off LD_LIBRARY_PATH"
                ),
            ),
        );
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
    // numba's NVVM (the toolkit's, found through conda, CUDA_HOME or the nvidia-cuda-nvcc wheel)
    // lists no compute capability: that toolkit and this numba release do not go together.
    if detail.contains("No supported GPU compute capabilities found") {
        d.package = Some("numba".into());
        d.message = "numba's CUDA compiler (the NVVM of the CUDA toolkit numba found: conda's cudatoolkit, CUDA_HOME or the nvidia-cuda-nvcc wheel) supports no compute capability this numba release knows: the toolkit and numba are of releases that do not go together".into();
        d.evidence.push(format!("the text says: {}", detail.trim()));
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                Code::CudaVersionMismatch,
                "numba-for-toolkit",
                "Install the numba release made for the CUDA toolkit in use (or the toolkit that numba release supports)",
                "Each numba release supports a range of CUDA toolkits and asks the toolkit's NVVM which GPUs it compiles for; a toolkit older than the range (a conda cudatoolkit 10.x under a newer numba) or newer than it answers with none. `numba -s` prints the toolkit and the NVVM numba found.",
                "numba -s (its CUDA section names the toolkit found); then pip install the numba release whose documentation lists that CUDA toolkit (an older numba for an older toolkit), or install the toolkit it supports (conda install cuda-nvcc cuda-version=<major.minor>, or pip install nvidia-cuda-nvcc-cu12)",
            )
            .unverified(),
        ]);
        return d;
    }
    // CCCL's own check: the nvcc that runs and the headers the build includes are of two
    // toolkits (CUDA_HOME or an include path naming one, PATH the other).
    if detail.contains("CUDA toolkit headers are incompatible") {
        d.package = d.package.or_else(|| cx.near.filter(|p| *p != "torch").map(str::to_owned));
        d.message = "nvcc and the CUDA headers the build includes come from two different CUDA toolkits: CUDA_HOME (or an include path) names one and PATH finds the other's nvcc".into();
        d.fixes = vec![
            Fix::in_words(
                Code::CudaVersionMismatch,
                "one-toolkit",
                "Point CUDA_HOME, PATH and the include paths at one CUDA toolkit, of torch's CUDA",
                "A JIT or pip build takes nvcc from CUDA_HOME/bin or PATH and headers from CUDA_HOME/include and the paths it is given; two toolkits side by side (a system /usr/local/cuda and a conda or pip toolkit) mix when these disagree.",
                "export CUDA_HOME=<the toolkit of torch.version.cuda> and PATH=$CUDA_HOME/bin:$PATH (and LD_LIBRARY_PATH=$CUDA_HOME/lib64), then build again",
            )
            .unverified(),
        ];
        return d;
    }
    // torchvision's or torchaudio's own check at import: the companion and torch come from
    // different CUDA builds.
    let lower = detail.to_ascii_lowercase();
    if let Some(companion) = ["torchvision", "torchaudio"]
        .into_iter()
        .find(|c| lower.contains(&format!("pytorch and {c}")))
    {
        d.package = Some(companion.to_owned());
        d.message = match (found, expected) {
            (Some(f), Some(e)) => format!(
                "{companion} was built for CUDA {f} and torch for CUDA {e}: {companion} must come from the same CUDA build as torch"
            ),
            _ => format!(
                "{companion} and torch come from different CUDA builds: {}",
                detail.trim()
            ),
        };
        d.fixes = companion_fixes(cx, companion, expected);
        return d;
    }
    d.message = match (found, expected) {
        (Some(f), Some(e)) => format!(
            "the CUDA toolkit found (nvcc {f}) differs from the CUDA torch was built with ({e}): extensions must be compiled with torch's CUDA major.minor"
        ),
        _ => format!("CUDA versions disagree: {}", detail.trim()),
    };
    d.fixes = build_fixes(cx, d.package.as_deref(), found, expected);
    d
}

/// An extension whose code calls nvcc's launch hooks (`__cudaPopCallConfiguration`, emitted by
/// CUDA 9.2 and later) that the CUDA runtime loaded with it lacks: it was compiled by a newer
/// toolkit than the runtime torch brings (torch 0.4's CUDA 9.0 beside a 9.2 nvcc). Rebuilt with
/// torch's CUDA, or torch of the toolkit's CUDA.
pub(crate) fn nvcc_newer_than_runtime(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    library: Option<&str>,
    package: Option<String>,
    symbol: &str,
) -> Diagnostic {
    let mut d = blank(Code::CudaVersionMismatch, source);
    d.library = library.map(str::to_owned);
    d.package = package;
    let who = library.map_or("the extension", crate::incidents::basename);
    d.message = format!(
        "{who} was compiled by a newer CUDA toolkit than the CUDA runtime loaded with it: its code calls `{symbol}`, which nvcc emits since CUDA 9.2 and the loaded runtime (torch's own CUDA) lacks"
    );
    d.evidence.push(format!(
        "`{symbol}` is one of the launch hooks nvcc's generated code calls; a runtime older than the compiler does not have it"
    ));
    // The versions, where the text states them: torch's CUDA is the runtime, the toolkit's is
    // the compiler.
    let torch_cuda = cx.world.torch_cuda().or_else(|| {
        cx.torch()
            .as_deref()
            .and_then(abidoc_knowledge::Version::parse)
            .and_then(|v| v.local_cuda())
            .map(|(a, b)| format!("{a}.{b}"))
    });
    let code = Code::CudaVersionMismatch;
    let mut fixes = build_fixes(cx, d.package.as_deref(), None, torch_cuda.as_deref());
    if torch_cuda.is_none() {
        fixes.push(
            Fix::in_words(
                code,
                "toolkit-of-torch",
                "Rebuild the extension with the CUDA toolkit of torch's CUDA",
                "Extensions must be compiled with the CUDA major.minor torch was built with; the build uses the nvcc on CUDA_HOME or PATH.",
                "python -c \"import torch; print(torch.version.cuda)\", install that CUDA toolkit, export CUDA_HOME=<its directory> and PATH=$CUDA_HOME/bin:$PATH, then rebuild the extension",
            )
            .unverified(),
        );
    }
    fixes.push(
        Fix::new(
            code,
            "torch-for-toolkit",
            FixKind::AlignTorch,
            "Or install a torch built for the toolkit's CUDA (nvcc --version), then rebuild the extension",
            "Then the runtime torch brings is as new as the compiler that built the extension.",
        )
        .step(Step::Manual(
            "nvcc --version names the toolkit's CUDA; install the torch build for it (PyTorch's index of that CUDA), then rebuild the extension".into(),
        ))
        .unverified(),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The scan's finding: a package compiled with another CUDA than torch's.
pub(crate) fn from_env(
    cx: &Cx<'_>,
    d: &mut Diagnostic,
    package_cuda: &str,
    torch_cuda: &str,
    refuses_import: bool,
) {
    let pkg = d.package.clone().unwrap_or_else(|| "a package".into());
    d.message = format!(
        "{pkg} was compiled with CUDA {package_cuda}, torch with CUDA {torch_cuda}{}",
        if refuses_import {
            ": it refuses to import on this mismatch"
        } else {
            ""
        }
    );
    let mut fixes = Vec::new();
    if let (Some(torch), Some(p)) = (cx.torch(), d.package.as_deref().and_then(Name::new)) {
        let code = Code::CudaVersionMismatch;
        fixes.extend(
            recipes::companion_release(code, cx, &p, &torch, crate::kb::package(p.as_str()).as_ref())
                .or_else(|| recipes::newest_pair(code, cx, &p, &torch))
                .or_else(|| recipes::newest_release(code, cx, &p, &torch)),
        );
    }
    fixes.push(
        Fix::in_words(
            Code::CudaVersionMismatch,
            "match-cuda",
            format!("Install the {pkg} build for CUDA {torch_cuda}"),
            "Packages that share CUDA objects must be compiled for the same CUDA major as torch.",
            format!(
                "install the {pkg} wheel built for CUDA {torch_cuda} (its index or release page names the CUDA)"
            ),
        ),
    );
    d.fixes = crate::fix::rank(fixes);
}

fn build_fixes(
    cx: &Cx<'_>,
    package: Option<&str>,
    found: Option<&str>,
    expected: Option<&str>,
) -> Vec<Fix> {
    let code = Code::CudaVersionMismatch;
    let mut fixes = Vec::new();
    if let Some(e) = expected {
        match cx
            .world
            .cuda_toolkits()
            .iter()
            .find(|h| h.contains(e))
            .and_then(|h| SafePath::new(h))
        {
            Some(home) => fixes.push(
                Fix::new(
                    code,
                    "cuda-home",
                    FixKind::Configure,
                    format!("Build with the CUDA {e} toolkit in {home}"),
                    "Extensions must be compiled with the CUDA major.minor torch was built with.",
                )
                .steps(recipes::set_env("CUDA_HOME", home.as_str())),
            ),
            None => fixes.push(
                Fix::in_words(
                    code,
                    "install-toolkit",
                    format!("Install the CUDA {e} toolkit (torch's CUDA) and set CUDA_HOME to it"),
                    "Extensions must be compiled with the CUDA major.minor torch was built with.",
                    format!("install the CUDA {e} toolkit, then export CUDA_HOME=<its directory>"),
                )
                .unverified(),
            ),
        }
    }
    if let Some(p) = package.and_then(Name::new)
        && crate::kb::package(p.as_str()).is_some_and(|f| f.has_prebuilt_wheels)
    {
        fixes.push(
            Fix::new(
                code,
                "prebuilt-wheel",
                FixKind::PrebuiltWheel,
                format!("Or install a prebuilt {p} wheel for your torch and skip compiling"),
                "No local nvcc is involved then.",
            )
            .step(Step::Manual(format!("pip install {p} without FORCE_BUILD so its setup fetches the prebuilt wheel"))),
        );
    }
    // The user's own `pip install` builds in pip's isolated environment, into which pip puts
    // the newest torch from PyPI: the torch the check compares with may be that one.
    if let Some(cmd) = cx
        .scene
        .user_commands
        .iter()
        .find(|c| !c.contains("--no-build-isolation") && !c.contains(" -r "))
    {
        let theirs = expected.map(|e| format!(" (CUDA {e})")).unwrap_or_default();
        fixes.push(
            Fix::in_words(
                code,
                "isolated-build",
                "If your installed torch is built for the toolkit's CUDA, build with --no-build-isolation",
                format!("`{cmd}` builds in pip's isolated environment, into which pip installs the newest torch from PyPI{theirs}; the check then compares the toolkit with that torch, not the installed one. With --no-build-isolation the build uses the installed torch (install the package's other build requirements first)."),
                format!(
                    "python -c \"import torch; print(torch.version.cuda)\" — if it prints the toolkit's CUDA, run `{cmd} --no-build-isolation`"
                ),
            ),
        );
    }
    if let Some(fv) = found {
        fixes.push(torch_for_toolkit(cx, fv).unwrap_or_else(|| {
            Fix::new(
                code,
                "torch-for-toolkit",
                FixKind::AlignTorch,
                format!("Or install a torch built for CUDA {fv}"),
                "Then the toolkit you have matches torch; PyTorch publishes no build for it in abidoc's tables, so pick the nearest one from https://pytorch.org/get-started/previous-versions/.",
            )
            .step(Step::Manual(format!("install the torch build for CUDA {fv}")))
            .unverified()
        }));
    }
    crate::fix::rank(fixes)
}

/// torchvision or torchaudio from another CUDA build than torch's: its release for the torch in
/// use from the index of torch's CUDA (only it moves), else torch and it together from one index
/// (torch's CUDA when the text says it, else PyPI's default build, both at their newest).
fn companion_fixes(cx: &Cx<'_>, companion: &str, torch_cuda: Option<&str>) -> Vec<Fix> {
    let code = Code::CudaVersionMismatch;
    let mut fixes = Vec::new();
    let (Some(name), Some(torch_name)) = (Name::new(companion), Name::new("torch")) else {
        return fixes;
    };
    let variant = torch_cuda
        .and_then(abidoc_knowledge::Version::parse)
        .filter(|v| v.release.len() >= 2)
        .map(|v| format!("cu{}{}", v.major(), v.minor()));
    let index = variant.as_deref().and_then(IndexUrl::pytorch);
    let torch = cx.torch();
    let release = torch.as_deref().map(recipes::short_torch).and_then(|t| {
        let v = match companion {
            "torchvision" => abidoc_knowledge::torchvision_for_torch(t),
            _ => abidoc_knowledge::torchaudio_for_torch(t),
        }?;
        Some((t, v))
    });
    // A pinned build only where PyTorch published this torch for torch's CUDA.
    let release = release.filter(|(t, _)| {
        variant
            .as_ref()
            .is_none_or(|var| gpu::torch_variants(t).contains(var))
    });
    if let (Some(index), Some((t, v)), Some(var)) = (&index, &release, &variant)
        && let Some(req) = recipes::exact(companion, v)
    {
        fixes.push(
            Fix::new(
                code,
                "companion-for-cuda",
                FixKind::AlignCompanion,
                format!("Install {companion} {v}, the release for torch {t}, from the {var} index (torch's CUDA)"),
                format!(
                    "{companion} {v} is built for torch {t}; PyTorch's index {} serves its {var} build, the CUDA torch was built with. --no-deps keeps torch where it is.",
                    index.as_str()
                ),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::ForceReinstall, PipFlag::NoDeps, PipFlag::IndexUrl(index.clone())],
                vec![req],
            ))
            .cost(Cost::download()),
        );
    }
    // Both from one index: torch in use (or the newest) and the companion released with it.
    let (reqs, flags, title, why) = match (&index, &release, &variant) {
        (Some(index), Some((t, v)), Some(var)) => (
            vec![
                recipes::exact("torch", &format!("{t}+{var}")),
                recipes::exact(companion, &format!("{v}+{var}")),
            ],
            vec![PipFlag::ForceReinstall, PipFlag::IndexUrl(index.clone())],
            format!("Reinstall torch {t} and {companion} {v} together from the {var} index"),
            format!("Both from {}: one CUDA build for the pair.", index.as_str()),
        ),
        (Some(index), None, Some(var)) => (
            vec![Some(Requirement::Any(torch_name.clone())), Some(Requirement::Any(name.clone()))],
            vec![PipFlag::ForceReinstall, PipFlag::IndexUrl(index.clone())],
            format!("Reinstall torch and {companion} together from the {var} index (torch's CUDA)"),
            format!("Both from {}: one CUDA build for the pair. The text names no torch version, so this installs the newest pair of that index; pin torch to yours if you keep it.", index.as_str()),
        ),
        _ => (
            vec![Some(Requirement::Any(torch_name.clone())), Some(Requirement::Any(name.clone()))],
            vec![PipFlag::ForceReinstall],
            format!("Reinstall torch and {companion} together, from one index"),
            "The text names neither torch's version nor its CUDA: installed together from PyPI, both are its newest pair and the same CUDA build. To keep another CUDA build, install both from its index (https://download.pytorch.org/whl/cuXYZ).".to_owned(),
        ),
    };
    let reqs: Option<Vec<Requirement>> = reqs.into_iter().collect();
    if let Some(reqs) = reqs {
        let mut f = Fix::new(code, "torch-and-companion", FixKind::AlignTorch, title, why)
            .step(recipes::pip_install(cx, flags, reqs))
            .cost(Cost {
                downloads: true,
                compiles: None,
                also: vec!["torch's CUDA libraries (several GB)".into()],
            });
        if release.is_none() {
            f = f.unverified();
        }
        fixes.push(f);
    }
    crate::fix::rank(fixes)
}

/// torch built for the toolkit at hand, from PyTorch's index: the same torch release when
/// PyTorch built it for the toolkit's CUDA major (at a minor no newer than the toolkit's, which
/// cpp_extension accepts), else the newest torch on that index. A user-level command that
/// downloads, where the toolkit of torch's CUDA needs an installer or root.
fn torch_for_toolkit(cx: &Cx<'_>, toolkit: &str) -> Option<Fix> {
    let tk = abidoc_knowledge::Version::parse(toolkit)?.major_minor();
    let fits = |var: &String| {
        gpu::variant_cuda(var).is_some_and(|(ma, mi)| ma == tk.0 && mi <= tk.1)
    };
    let torch = cx.torch();
    let (release, var) = match torch.as_deref().map(recipes::short_torch) {
        Some(t) => match gpu::torch_variants(t).into_iter().rev().find(fits) {
            Some(v) => (Some(t.to_owned()), v),
            None => (None, newest_variant(&fits)?),
        },
        None => (None, newest_variant(&fits)?),
    };
    let step = recipes::torch_build_step(cx, release.as_deref(), &var)?;
    let cuda = gpu::variant_cuda(&var).map(|(a, b)| format!("{a}.{b}"))?;
    let what = release
        .as_deref()
        .map_or_else(|| "torch".to_owned(), |t| format!("torch {t}"));
    let also = recipes::with_dependents(
        cx,
        None,
        vec![format!("torch's CUDA {cuda} libraries (several GB)")],
        "their releases for this build",
    );
    let mut f = Fix::new(
        Code::CudaVersionMismatch,
        "torch-for-toolkit",
        FixKind::AlignTorch,
        format!("Install {what} built for CUDA {cuda} ({var}), the toolkit you have"),
        format!(
            "cpp_extension compiles with the nvcc it finds (CUDA {toolkit}) and needs torch built for the same CUDA major; a torch from {var}'s index matches it without installing another toolkit.{}",
            if release.is_none() {
                " The installed torch has no such build, or the text names none: this installs the newest torch of that index; keep your torch version if you pin one."
            } else {
                ""
            }
        ),
    )
    .step(step)
    .cost(Cost {
        downloads: true,
        compiles: None,
        also,
    });
    if release.is_none() {
        f = f.unverified();
    }
    Some(f)
}

/// The variant of the newest torch line PyTorch built for a CUDA that `fits`.
fn newest_variant(fits: &dyn Fn(&String) -> bool) -> Option<String> {
    gpu::tables()
        .torch_builds
        .iter()
        .rev()
        .find_map(|row| row.variants.iter().rev().find(|v| fits(v)).cloned())
}

/// The cuDNN (or, for JAX, another CUDA library) loaded at run time is not the one the
/// framework was compiled with. torch's wheels ship their cuDNN and load it unless
/// `LD_LIBRARY_PATH` (a conda `cudnn`, a system cuDNN in the toolkit's `lib64`) puts another
/// first: taking that directory off the path comes first, then installing the cuDNN torch was
/// compiled with. TensorFlow loads the system's cuDNN: the version it was compiled with, or the
/// TensorFlow release built for the cuDNN installed. JAX's pip CUDA extra brings the CUDA
/// libraries its jaxlib was built against; a local CUDA older than them is the mismatch.
pub(crate) fn cudnn_runtime(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    framework: &str,
    library: &str,
    compiled: Option<&str>,
    runtime: Option<&str>,
    detail: &str,
) -> Diagnostic {
    let code = Code::CudaVersionMismatch;
    let mut d = blank(code, source);
    let (who, pkg) = match framework {
        "tensorflow" => (
            "TensorFlow",
            cx.near
                .filter(|n| n.starts_with("tensorflow"))
                .unwrap_or("tensorflow"),
        ),
        "jax" => ("JAX", "jaxlib"),
        _ => ("torch", "torch"),
    };
    d.package = Some(pkg.to_owned());
    let built = compiled.map_or_else(|| format!("another {library}"), |c| format!("{library} {c}"));
    let loaded = runtime.map_or_else(|| format!("another {library}"), |r| format!("{library} {r}"));
    d.message = if compiled.is_none() && runtime.is_none() {
        let said = if detail.contains("dnn implementation") {
            "its cuDNN ops found no implementation"
        } else {
            "XLA's `DNN library` error"
        };
        if detail.contains("dnn implementation") {
            format!(
                "{who} could not start {library} for a cuDNN-backed op ({said}): the {library} it finds is missing or of another version than the one it was built with, or the GPU's memory was already taken when {library} started (TensorFlow reserves it all unless memory growth is on)"
            )
        } else {
            format!(
                "{who} could not load or initialize {library} ({said}): the {library} it finds is missing, or of another version than the one it was built with"
            )
        }
    } else {
        format!("{who} was compiled with {built} but {loaded} was loaded at run time")
    };
    d.evidence.push(format!("the text says: {}", detail.trim()));
    let want = compiled.unwrap_or("<the version it was compiled with>");
    let install = |title: String, why: &str| {
        Fix::new(code, "install-cudnn", FixKind::Advice, title, why.to_owned())
            .step(Step::Manual(format!(
                "install {library} {want} for your CUDA (conda: {}={want}; NVIDIA's archive), then start Python again",
                library.to_ascii_lowercase()
            )))
            .unverified()
    };
    let mut fixes = Vec::new();
    match framework {
        "tensorflow" => {
            fixes.push(install(
                match compiled {
                    Some(c) => format!("Install {library} {c}, the version TensorFlow was compiled with, where the loader finds it"),
                    None => format!("Install the {library} version TensorFlow was compiled with (its tested build configurations list it) where the loader finds it"),
                },
                "TensorFlow loads the system's cuDNN and needs the major.minor it was compiled with (TensorFlow's tested build configurations list each release's cuDNN).",
            ));
            if detail.contains("dnn implementation") {
                fixes.push(
                    Fix::in_words(
                        code,
                        "memory-growth",
                        "If the log shows allocation failures (`CUBLAS_STATUS_ALLOC_FAILED`, `CUDA_ERROR_OUT_OF_MEMORY`): let TensorFlow grow its GPU memory",
                        "TensorFlow takes the whole GPU at start unless told otherwise; cuDNN then cannot allocate its workspace, and its ops fail the same way as with a wrong cuDNN.",
                        "before any op runs: for g in tf.config.list_physical_devices('GPU'): tf.config.experimental.set_memory_growth(g, True) (or export TF_FORCE_GPU_ALLOW_GROWTH=true)",
                    ),
                );
            }
            fixes.push(
                Fix::new(
                    code,
                    "framework-for-cudnn",
                    FixKind::AlignCompanion,
                    format!("Or install the TensorFlow release built for {loaded}"),
                    "TensorFlow's tested build configurations name the cuDNN and CUDA of each release.",
                )
                .step(Step::Manual(format!(
                    "pick the TensorFlow release whose tested configuration lists {loaded} and install it"
                ))),
            );
        }
        "jax" => {
            // cuBLAS and the other CUDA libraries share CUDA's major; cuDNN numbers its own
            // (8, 9), so for it the extra is the current one, after the cuDNN it was built with.
            let is_cudnn = library == "cuDNN";
            let major = compiled
                .and_then(|c| c.split('.').next())
                .filter(|m| !is_cudnn && m.len() <= 2 && m.bytes().all(|b| b.is_ascii_digit()))
                .unwrap_or("12");
            if is_cudnn {
                fixes.push(install(
                    match compiled {
                        Some(c) => format!("Install {library} {c} or newer where the loader finds it"),
                        None => format!("Install the {library} jaxlib was built against, or newer, where the loader finds it"),
                    },
                    "JAX needs a cuDNN at least as new as the one it was built against, of the same major.",
                ));
            }
            fixes.push(
                Fix::in_words(
                    code,
                    "jax-pip-cuda",
                    format!("Install JAX with its pip CUDA libraries (jax[cuda{major}]) instead of the local CUDA"),
                    "The jax[cudaNN] extra installs the nvidia-* wheels its jaxlib was built against and loads them first; the `_local` extras use the system's CUDA, which must be at least as new.",
                    format!(
                        "pip install --upgrade \"jax[cuda{major}]\" (and unset LD_LIBRARY_PATH entries that point at an older CUDA)"
                    ),
                ),
            );
            if !is_cudnn {
                fixes.push(install(
                    format!("Or install {library} {want} or newer where the loader finds it"),
                    "JAX needs a CUDA library at least as new as the one it was built against.",
                ));
            }
        }
        _ => {
            fixes.push(
                Fix::in_words(
                    code,
                    "cudnn-off-path",
                    format!("Let torch load the cuDNN it ships: take the directory holding {loaded} off LD_LIBRARY_PATH"),
                    "torch's wheels carry the cuDNN they were compiled with (in torch/lib, or the nvidia-cudnn package they require) and load it first unless LD_LIBRARY_PATH names a directory with another libcudnn (a conda env's cudnn, the toolkit's lib64).",
                    "print LD_LIBRARY_PATH, drop the directories that hold a libcudnn.so (conda's lib, /usr/local/cuda/lib64), and start Python again",
                ),
            );
            fixes.push(install(
                format!("Or install cuDNN {want}, the version torch was compiled with, where the loader finds it"),
                "With the older cuDNN gone from the path, or replaced by the one torch expects, the check passes.",
            ));
        }
    }
    d.fixes = crate::fix::rank(fixes);
    d
}
