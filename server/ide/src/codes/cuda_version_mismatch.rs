//! `cuda-version-mismatch`: the CUDA toolkit that compiles an extension differs from the CUDA
//! torch was built with, or two installed packages were compiled for different CUDA versions.
//!
//! Produced by cpp_extension's "The detected CUDA version (X) mismatches the version that was
//! used to compile PyTorch (Y)" and by the scan's CUDA finding (a package's recorded CUDA
//! against torch's). Fixes: the matching toolkit found on disk, a torch built for the toolkit at
//! hand (a user-level pip command rather than another toolkit), a prebuilt wheel, the companion
//! release built for torch's CUDA.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Cost, Fix, FixKind, IndexUrl, Name, PipFlag, Requirement, SafePath, Step};
use abidoc_knowledge::gpu;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "CUDA toolkit vs torch CUDA mismatch at build time, or two packages compiled with different CUDA versions.",
    meaning: "Extensions must be compiled with the CUDA major.minor torch was built with (cpp_extension refuses otherwise), and packages that share CUDA objects at run time must agree on the CUDA major.",
    fixes: "At build time: 1. `CUDA_HOME` to the toolkit of torch's CUDA found on disk (safe). 2. A torch built for the toolkit you have, from PyTorch's index (user-level, downloads several GB; torchvision/torchaudio move with it in their releases for that build). 3. A prebuilt wheel of the package, no local nvcc involved (advice). 4. Install torch's CUDA toolkit and set `CUDA_HOME` (advice: an installer, conda or root). Between two installed packages: the companion release built for the installed torch (and so its CUDA), else that package's build for torch's CUDA.",
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
    // nvcc refusing the architecture or the C++ standard the build asks for is a toolkit older
    // than the build (and than the torch it builds against), whatever the versions.
    let too_old = detail.contains("Unsupported gpu architecture")
        || detail.contains("is not defined for option 'std'");
    if too_old {
        d.package = d.package.or_else(|| cx.near.map(str::to_owned));
        d.message = format!(
            "the CUDA toolkit's nvcc is older than this build needs: {}",
            detail.trim()
        );
        d.fixes = crate::fix::rank(arch_fixes(cx, &mut d, detail));
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
        Fix::new(
            Code::CudaVersionMismatch,
            "match-cuda",
            FixKind::Advice,
            format!("Install the {pkg} build for CUDA {torch_cuda}"),
            "Packages that share CUDA objects must be compiled for the same CUDA major as torch.",
        )
        .step(Step::Manual(format!(
            "install the {pkg} wheel built for CUDA {torch_cuda} (its index or release page names the CUDA)"
        ))),
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
                Fix::new(
                    code,
                    "install-toolkit",
                    FixKind::Advice,
                    format!("Install the CUDA {e} toolkit (torch's CUDA) and set CUDA_HOME to it"),
                    "Extensions must be compiled with the CUDA major.minor torch was built with.",
                )
                .step(Step::Manual(format!("install the CUDA {e} toolkit, then export CUDA_HOME=<its directory>")))
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
                FixKind::Advice,
                format!("Or install a prebuilt {p} wheel for your torch and skip compiling"),
                "No local nvcc is involved then.",
            )
            .step(Step::Manual(format!("pip install {p} without FORCE_BUILD so its setup fetches the prebuilt wheel"))),
        );
    }
    if let Some(fv) = found {
        fixes.push(torch_for_toolkit(cx, fv).unwrap_or_else(|| {
            Fix::new(
                code,
                "torch-for-toolkit",
                FixKind::Advice,
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
            .cost(Cost {
                downloads: true,
                ..Default::default()
            }),
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

/// The architecture nvcc refused (`Unsupported gpu architecture 'compute_89'`), as a capability.
fn refused_arch(detail: &str) -> Option<(String, (u32, u32))> {
    let p = detail.find("Unsupported gpu architecture")?;
    let r = detail[p + 28..].trim_start().trim_start_matches(['\'', '`', '"']);
    let tok: String = r
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let cc = gpu::parse_capability(&tok)?;
    Some((tok, cc))
}

/// nvcc refusing an architecture (or C++17): a toolkit too old for a new GPU, or too new for one
/// its release dropped, which the toolkit's CUDA version (when the text states it) tells apart.
/// The toolkit of torch's CUDA first; then the build limited to architectures this nvcc knows.
fn arch_fixes(cx: &Cx<'_>, d: &mut Diagnostic, detail: &str) -> Vec<Fix> {
    let code = Code::CudaVersionMismatch;
    let refused = refused_arch(detail);
    let stated = cx
        .scene
        .version_of("cuda")
        .and_then(abidoc_knowledge::version::Version::parse)
        .map(|v| v.major_minor());
    let (min, removed) = refused
        .as_ref()
        .map_or((None, None), |(_, cc)| (gpu::min_cuda_for(*cc), gpu::removed_in(*cc)));
    let dropped = match (stated, removed, min) {
        (Some(s), Some(r), _) => s >= r,
        // Without the toolkit's version, an architecture the newest toolkits dropped and that
        // every toolkit of the last decade knows is the dropped case.
        (None, Some(_), Some(m)) => m <= (8, 0) && refused.as_ref().is_some_and(|(_, cc)| cc.0 < 5),
        _ => false,
    };
    let mut fixes = Vec::new();
    if let Some((tok, _)) = &refused {
        let fmt = |(a, b): (u64, u64)| format!("{a}.{b}");
        if dropped {
            d.message = format!(
                "the CUDA toolkit's nvcc no longer compiles for {tok}{}: the build asks for an architecture newer toolkits dropped",
                removed.map_or(String::new(), |r| format!(" (removed in CUDA {})", fmt(r)))
            );
        } else if let Some(m) = min {
            d.message = format!(
                "the CUDA toolkit's nvcc is older than CUDA {}, the first that compiles for {tok}: {}",
                fmt(m),
                detail.trim()
            );
            d.evidence.push(format!(
                "{tok} needs CUDA {} or newer{}",
                fmt(m),
                removed.map_or(String::new(), |r| format!(
                    " (and older than {}, which dropped it)",
                    fmt(r)
                ))
            ));
        }
    }
    if !dropped {
        fixes.push(
            Fix::new(
                code,
                "newer-toolkit",
                FixKind::Advice,
                "Install a CUDA toolkit at least as new as torch's CUDA and set CUDA_HOME to it",
                "An nvcc that does not know the GPU architecture (compute_86 needs CUDA 11.1, compute_89/90 CUDA 11.8, sm_100/120 CUDA 12.8) or C++17 is older than the torch being built against; the build uses the nvcc on CUDA_HOME or PATH.",
            )
            .step(Step::Manual(
                "install the CUDA toolkit of torch.version.cuda (NVIDIA's installer or conda's cuda-nvcc), then export CUDA_HOME=<its directory>".into(),
            ))
            .unverified(),
        );
    }
    if let Some((tok, _)) = &refused {
        // flash-attn reads its own list; every cpp_extension build reads TORCH_CUDA_ARCH_LIST.
        let var = if d.package.as_deref() == Some("flash-attn") {
            "FLASH_ATTN_CUDA_ARCHS=<the GPU's capability without the dot, e.g. 87>"
        } else {
            "TORCH_CUDA_ARCH_LIST=<the GPU's capability, e.g. 8.6>"
        };
        fixes.push(
            Fix::new(
                code,
                "limit-archs",
                FixKind::Advice,
                format!("Build only for the GPUs in use, leaving out {tok}"),
                "The build compiles for a fixed list of architectures unless told otherwise; naming this machine's GPU (`torch.cuda.get_device_capability()`) leaves out the one this nvcc cannot compile.",
            )
            .step(Step::Manual(format!("export {var}, then run the build again"))),
        );
    }
    if dropped {
        fixes.push(
            Fix::new(
                code,
                "older-toolkit",
                FixKind::Advice,
                "For a GPU of that architecture, build with a toolkit that still compiles for it",
                "A CUDA toolkit before the release that dropped the architecture, with a torch built for that CUDA.",
            )
            .step(Step::Manual(
                "install the CUDA toolkit of a torch build that still supports this GPU, then export CUDA_HOME=<its directory>".into(),
            ))
            .unverified(),
        );
    }
    fixes
}
