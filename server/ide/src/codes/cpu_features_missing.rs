//! `cpu-features-missing`: a binary uses instructions this CPU does not have (AVX/AVX2 on an
//! older or emulated x86 CPU, ARMv8.2 instructions on a Cortex-A72 or a Jetson), and the
//! process dies with `Illegal instruction` or refuses to start (jaxlib's and TensorFlow's AVX
//! checks).
//!
//! The text rarely names the binary; the package is the one the text shows being imported
//! around the crash. Fixes: a native Python where the CPU is emulated (Rosetta runs x86 code
//! without AVX), the release before the one that crashed (these are regressions of one
//! release's build flags), and for NumPy's OpenBLAS on ARM, the core type it should assume.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Cost, Fix, FixKind, Name, PipFlag, Requirement, Step, Version};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A binary uses CPU instructions this machine lacks (`Illegal instruction`, jaxlib's and TensorFlow's AVX checks).",
    meaning: "Wheels are compiled for a baseline CPU; a release whose build raised that baseline (AVX, AVX2, ARMv8.2) crashes on older CPUs with `Illegal instruction (core dumped)` (SIGILL; on Windows status 0xC000001D, `[WinError -1073741795]`) at import, or refuses to start. On an Apple Silicon Mac the usual cause is an x86_64 Python running under Rosetta, which has no AVX: x86 builds of jaxlib and TensorFlow stop there. On ARM boards (Jetson, Raspberry Pi, Graviton) NumPy's bundled OpenBLAS of some releases picks a core type the CPU does not have. The kernel logs the same crash as `trap invalid opcode ip:… in LIB[…]`, naming the library. A supervisor or Docker says it by the signal: `exited with code 256 (by signal 4)`, `exited with code 132` (128 + SIGILL's 4).",
    fixes: "1. Where the CPU is emulated (an x86_64 Python on Apple Silicon): a native arm64 Python, and the environment made again with it. 2. The release before the one that crashed, when the text states its version (`PKG<VERSION`), or a build for this CPU (conda-forge, the distribution's package). 3. NumPy's OpenBLAS on ARM: `OPENBLAS_CORETYPE=ARMV8` before Python starts. A package whose project publishes a build for older CPUs (`older_cpu_build` in packages.toml: polars → polars-lts-cpu): that build in its place, first.",
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    feature: Option<&str>,
    detail: &str,
) -> Diagnostic {
    let code = Code::CpuFeaturesMissing;
    let mut d = blank(code, source);
    // The package imported when it died, or — a debugger's backtrace (`in exec_blas () from
    // …/torch/lib/libtorch_cpu.so`) — the one whose library the frames after it name.
    let package = cx
        .near
        .or(cx.after)
        .map(str::to_owned)
        .or_else(|| last_named(cx))
        .filter(|p| p != "torch" || cx.scene.mentions.iter().all(|(_, n)| n == "torch"));
    d.package = package.clone();
    let what = package.as_deref().map_or("A binary".to_owned(), |p| format!("{p}'s binary"));
    d.message = match feature {
        Some(f) => format!("{what} uses {f} instructions this CPU does not have"),
        None => format!("{what} used an instruction this CPU does not have (Illegal instruction)"),
    };
    d.evidence.push(detail.to_owned());
    // Rosetta translates x86_64 code without AVX: jaxlib's message says so itself, and zsh's
    // `illegal hardware instruction` is macOS's shell.
    let rosetta = detail.contains("x86 Python installation on ARM")
        || detail.contains("Rosetta")
        || (cx.scene.mentions_macos
            && (feature.is_some() || detail.contains("illegal hardware instruction")));
    let mut fixes = Vec::new();
    if rosetta {
        fixes.push(
            recipes::native_python(
                code,
                "This Python runs as x86_64 on an Apple Silicon Mac: Rosetta translates x86_64 code without AVX, so x86 builds that need it stop there.",
            )
            .leading(),
        );
    }
    // The project's own build for older CPUs, in place of the default one (same modules).
    if !rosetta
        && let Some(pkg) = package.as_deref().and_then(Name::new)
        && let Some(lts) = crate::kb::older_cpu_build(pkg.as_str()).as_deref().and_then(Name::new)
    {
        fixes.push(
            Fix::new(
                code,
                "older-cpu-build",
                FixKind::PrebuiltWheel,
                format!("Replace {pkg} with {lts}, its build for CPUs without the newer instructions"),
                format!("{lts} ships the same `{pkg}` modules compiled for an older instruction baseline; the two install the same files, so {pkg} goes first."),
            )
            .step(recipes::pip_uninstall(cx, vec![pkg.clone()]))
            .step(recipes::pip_install(cx, vec![PipFlag::NoCacheDir], vec![Requirement::Any(lts)]))
            .cost(Cost::download())
            .leading(),
        );
    }
    if let Some(pkg) = package.as_deref().and_then(Name::new) {
        // Another torch release is a move of torch itself, with what depends on it.
        let kind = if pkg.as_str() == "torch" {
            FixKind::AlignTorch
        } else {
            FixKind::PrebuiltWheel
        };
        // With the version stated, a typed pin below it; without, the same command in words,
        // complete but for that version.
        let stated = cx.scene.version_of(pkg.as_str()).and_then(Version::new);
        let (title, why) = match &stated {
            Some(v) => (
                format!("Install the {pkg} release before {v}"),
                "A release that starts crashing with Illegal instruction was built for a newer CPU baseline than the one before it; the previous release's wheel runs here. Watch the project's notes for a fixed release.",
            ),
            None => (
                format!("Install the {pkg} release before the one installed, or a build for this CPU"),
                "A release that starts crashing with Illegal instruction was built for a newer CPU baseline than the one before it. The text does not state the installed version: `pip show` tells it; pin below it. conda-forge and the distribution's own packages are built for older baselines too.",
            ),
        };
        let fix = Fix::new(code, "release-before", kind, title, why);
        fixes.push(match stated {
            Some(v) => fix
                .step(recipes::pip_install(
                    cx,
                    vec![PipFlag::NoCacheDir],
                    vec![Requirement::Below(pkg.clone(), v)],
                ))
                .cost(Cost::download()),
            None => fix
                .step(Step::Manual(format!(
                    "python -m pip install --no-cache-dir \"{pkg}<INSTALLED\" (INSTALLED: the version `python -m pip show {pkg}` prints)"
                )))
                .filled_in_with(format!("the installed {pkg} version")),
        });
    }
    if package.is_none() {
        fixes.push(
            Fix::new(
                code,
                "locate",
                FixKind::Inspect,
                "Find the binary that crashes: run the command again with PYTHONFAULTHANDLER=1",
                "The crash prints no traceback, and the text names no package. With Python's fault handler on, a SIGILL prints the Python stack at the moment of the crash: its last frames name the module being imported or called, whose package is the one to move.",
            )
            .steps(recipes::set_env("PYTHONFAULTHANDLER", "1")),
        );
    }
    if package.as_deref() == Some("numpy") || (cx.scene.mentions_arm && package.is_none()) {
        fixes.push(
            Fix::new(
                code,
                "openblas-coretype",
                FixKind::Configure,
                "Tell NumPy's OpenBLAS which ARM core to assume: OPENBLAS_CORETYPE=ARMV8",
                "Some NumPy releases' bundled OpenBLAS pick kernels for a newer ARM core than Jetson and Raspberry Pi CPUs have; naming the plain ARMv8 core avoids them. Set it before Python starts (in the shell or the service's environment).",
            )
            .steps(recipes::set_env("OPENBLAS_CORETYPE", "ARMV8")),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The last compiled package the text names before its end: what was being imported when the
/// process died (the crash itself prints no traceback).
fn last_named(cx: &Cx<'_>) -> Option<String> {
    cx.scene
        .mentions
        .iter()
        .rev()
        .map(|(_, n)| n)
        .find(|n| crate::kb::package(n).is_some() || *n == "numpy")
        .cloned()
}
