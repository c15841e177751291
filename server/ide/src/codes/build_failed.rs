//! `build-failed`: pip (or torch's JIT extension builder) failed building a package from source,
//! and nothing in the text says why that abidoc knows.
//!
//! Produced only when a build failure (`Failed building wheel for X`, `Failed to build X`,
//! `error: subprocess-exited-with-error`, `Error building extension 'X'`, a compiler's or ninja's
//! `error: command '…/nvcc' failed`) is the whole diagnosis:
//! any cause read in the text (no nvcc, no compiler, torch not visible, a missing header) is
//! that code's diagnosis instead. A warning: the cause is in lines the paste does not hold.
//! Fixes avoid the compile where the package publishes builds (its wheel page, its release
//! paired with torch), then say how to see the cause.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, Severity, SourceRef};
use crate::fix::{Cost, Fix, FixKind, Name, PipFlag, Requirement, Step, WheelUrl};
use crate::kb::{Fetch, Listing};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A package failed to build from source (`Failed building wheel for X`, `error: subprocess-exited-with-error`, `Error building extension 'X'`, `error: command '…/nvcc' failed`) and the text holds no cause abidoc knows: a warning, with the builds that need no compile.",
    meaning: "pip compiles a package when no wheel on the index fits this Python and platform, and packages that pick their own prebuilt wheel in setup.py (flash-attn, mamba-ssm, causal-conv1d) compile when none fits the installed torch, CUDA and C++ ABI. pip's summary (`Failed building wheel for X`, `× python setup.py bdist_wheel did not run successfully`) comes after the compiler's own output, which holds the cause; a paste that keeps only the summary says that the build failed, not why. Where the package publishes builds elsewhere (its own wheel page per torch and CUDA, a release paired with each torch), installing one needs no compiler at all.",
    fixes: "1. Where the package publishes builds for torch (PyG's and mmcv's wheel pages, xformers' releases paired with torch): install that build, with the torch it needs (no compile). A package whose setup.py downloads its own prebuilt wheel (flash-attn, mamba-ssm, causal-conv1d), with the torch the text states (its setup.py's `torch.__version__ = …` banner too): the release the release data lists a wheel of for that torch, pinned, so setup.py downloads it; else the torch lines its wheels cover (advice). Never a reinstall of the release that just compiled. 2. See the cause: install again with `-v` and read the first `error:` line above pip's summary (or give abidoc the whole log), where a missing nvcc, compiler, header or build tool shows.",
    near_package: super::NearPackage::NotTorch,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, package: Option<&str>) -> Diagnostic {
    let code = Code::BuildFailed;
    let mut d = blank(code, source);
    d.severity = Severity::Warning;
    d.package = package
        .map(str::to_owned)
        .or_else(|| cx.scene.packages_built.first().cloned())
        .map(|p| crate::kb::normalize(&p))
        .filter(|p| p != "torch");
    let who = d.package.as_deref().unwrap_or("a package");
    d.message = format!(
        "{who} failed to build from source, and the text holds no cause abidoc knows: the compiler's or setup's first `error:` line, above pip's summary, says why"
    );
    if cx.scene.precompiled_wheel_missing {
        d.evidence.push(format!(
            "{who}'s setup.py found no prebuilt wheel for this torch, CUDA, C++ ABI and Python (`Precompiled wheel not found`), so it compiled"
        ));
    }
    if cx.scene.compile_failed {
        d.evidence
            .push("the compiler ran and failed: its `error:` lines are the cause".into());
    }
    d.explanation = Some("pip compiles a package when no published wheel fits this Python, platform (and, for packages choosing their own prebuilt wheel, torch, CUDA and C++ ABI). Its summary lines come after the compiler's output and only say that the build failed.".into());
    let mut fixes = Vec::new();
    if let Some(pkg) = d.package.as_deref().and_then(Name::new) {
        let facts = crate::kb::package(pkg.as_str());
        // A build published for torch needs no compiler: the package's own wheel page, or its
        // release paired with torch. Not a package whose setup.py picks its prebuilt wheel
        // (flash-attn, mamba-ssm): reinstalling it is the very step that just compiled.
        let fetches_own = facts.as_ref().is_some_and(|f| f.has_prebuilt_wheels);
        let published = !fetches_own
            && (facts
                .as_ref()
                .is_some_and(|f| f.wheel_index.is_some() || f.follows_torch)
                || crate::kb::pairs_with_torch(pkg.as_str()));
        if published {
            fixes.extend(recipes::align_with_torch(code, cx, &pkg, false));
        }
        if fetches_own && let Some(torch) = cx.torch() {
            fixes.extend(own_wheel(cx, &pkg, &torch));
        }
    }
    let target = d
        .package
        .as_deref()
        .and_then(Name::new)
        .map_or_else(|| "<the package>".to_owned(), |n| n.to_string());
    fixes.push(
        Fix::new(
            code,
            "show-cause",
            FixKind::Advice,
            "See why the build failed: its first `error:` line",
            "The cause (no nvcc, no compiler or one too new, a missing header or build tool, torch not visible to the build) is printed before pip's summary; `-v` keeps all of it, and abidoc reads it from the whole log.",
        )
        .step(Step::Manual(format!(
            "pip install -v --no-cache-dir {target} 2>&1 | tee build.log, then `abidoc check build.log`"
        ))),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A package whose setup.py downloads its own prebuilt wheel (flash-attn, mamba-ssm) compiled
/// because none was found for the torch the text states: the release data's answer. A wheel it
/// lists for that torch is installed by its URL (nothing compiles); a torch line no release has
/// wheels for gets the nearest lines that have them.
fn own_wheel(cx: &Cx<'_>, pkg: &Name, torch: &str) -> Option<Fix> {
    let code = Code::BuildFailed;
    let version = cx.scene.version_of(pkg.as_str());
    let python = cx.scene.version_of("python");
    let answer = crate::kb::prebuilt(pkg.as_str(), version, torch, None, None, python)?;
    let t = recipes::short_torch(torch);
    match (&answer.fetch, &answer.listing) {
        (Fetch::Wheel(w), Listing::Listed { source }) => {
            let url = WheelUrl::new(&w.url)?;
            Some(
                Fix::new(
                    code,
                    "prebuilt-wheel",
                    FixKind::PrebuiltWheel,
                    format!("Install the prebuilt wheel {} (nothing to compile)", w.file_name),
                    format!(
                        "The release data lists {pkg} {} wheels for torch {t} ({source}); its name follows the project's scheme for that torch, torch's default CUDA and C++ ABI and the Python the text shows, which the URL cannot be checked against offline: compare its label with `python -c \"import torch; print(torch.__version__, torch._C._GLIBCXX_USE_CXX11_ABI)\"`.",
                        answer.version
                    ),
                )
                .step(recipes::pip_install(
                    cx,
                    vec![PipFlag::NoDeps],
                    vec![Requirement::Wheel(pkg.clone(), url)],
                ))
                .cost(Cost {
                    downloads: true,
                    ..Cost::default()
                })
                .unverified(),
            )
        }
        // The release asked for has no wheel for this torch; an earlier one does: pinned, its
        // setup.py fetches that wheel.
        (_, Listing::NotListed { .. })
            if let Some(near) = answer.nearest_releases.first() =>
        {
            let req = recipes::exact(pkg.as_str(), &near.version)?;
            Some(
                Fix::new(
                    code,
                    "release-with-wheel",
                    FixKind::PrebuiltWheel,
                    format!("Install {pkg} {}, whose release has a wheel for torch {t}", near.version),
                    format!(
                        "{pkg} {} publishes no wheel for torch {t}, so its setup.py compiled; {} does, and pinned, its setup.py downloads that wheel instead of compiling (release data: {}).",
                        answer.version, near.version, near.source
                    ),
                )
                .step(recipes::pip_install(
                    cx,
                    vec![PipFlag::NoBuildIsolation, PipFlag::NoCacheDir],
                    vec![req],
                ))
                .cost(Cost {
                    downloads: true,
                    ..Cost::default()
                })
                .unverified(),
            )
        }
        (_, Listing::NotListed { torch: lines, .. }) if !lines.is_empty() => {
            let shown: Vec<&str> = lines.iter().map(String::as_str).take(6).collect();
            Some(
                Fix::new(
                    code,
                    "torch-with-wheels",
                    FixKind::Advice,
                    format!("Use a torch line {pkg} {} publishes wheels for ({})", answer.version, shown.join(", ")),
                    format!("{pkg}'s setup.py downloads a prebuilt wheel only for the torch lines its release was built for, and compiles otherwise; torch {t} is not one of them. With torch (and its companions) of a listed line, the install downloads instead of compiling."),
                )
                .step(Step::Manual(format!(
                    "install torch of one of these lines ({}) with its torchvision/torchaudio, then pip install --no-build-isolation {pkg}=={}",
                    shown.join(", "),
                    answer.version
                ))),
            )
        }
        _ => None,
    }
}
