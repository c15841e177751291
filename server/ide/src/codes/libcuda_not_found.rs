//! `libcuda-not-found`: Triton's JIT compiler (or another `-lcuda` link) cannot find
//! `libcuda.so`, the unversioned link to the driver library.
//!
//! Produced by `cannot find -lcuda` and Triton's `libcuda.so cannot found`. The preferred fix
//! is user-level and needs no root: a `libcuda.so` link in a directory of the user's, named to
//! Triton by `TRITON_LIBCUDA_PATH`; the system-wide link (root) comes second. Paths come from
//! the driver libraries found on disk; with none found, or no home directory, the fix is advice.

use super::{Code, CodeDoc, Cx, blank};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, FixKind, SafePath, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`cannot find -lcuda`, `libcuda.so cannot found`: the JIT compiler (Triton) cannot link the driver library; `Failed to dlopen libcuda.so`, torch's `Found no NVIDIA driver on your system`: the driver library cannot be loaded at all; `no CUDA-capable device is detected`: the driver loaded and sees no GPU.",
    meaning: "`-lcuda` needs a file named exactly `libcuda.so`. The driver installs `libcuda.so.1` (and `libcuda.so.<driver version>`); the unversioned link normally comes from a -dev package, which containers and many machines lack. Triton honours `TRITON_LIBCUDA_PATH`. Loaders that open the driver by name at run time (cuda-python: `Failed to dlopen libcuda.so`) need its directory on the loader's path (WSL: `/usr/lib/wsl/lib`); a launcher Triton or Inductor cached without libcuda (`__triton_launcher.so: undefined symbol: cuLaunchKernel`) keeps failing until its cache is cleared. conda's, mamba's and pixi's solvers stand for the driver by the virtual package `__cuda` (its version the CUDA the driver supports, read from libcuda when solving): `Virtual package '__cuda' does not match any of the available virtual packages`, `nothing provides __cuda needed by pytorch-…`, `__cuda is missing on the system` say the solver saw no driver — a machine without one (a CI runner, a login node, an image build), or a driver not loadable there.",
    fixes: "1. A `libcuda.so` link to the driver's library in a directory of the user's (`~/.local/lib/abidoc/libcuda`), given to Triton through `TRITON_LIBCUDA_PATH` and to other linkers through `LIBRARY_PATH`: no root. 2. The system link next to the driver library, then `ldconfig` (needs root). With no driver library found on disk, the same steps are advice with the usual path. For a run-time `dlopen`, the driver directory on `LD_LIBRARY_PATH`; for a cached launcher, clearing that cache once the link works (advice). The CUDA toolkit's stub loaded as the driver (a `…/stubs/libcuda.so` in a loader's message, numba's `Mapped libcuda.so paths:` report, the driver API's error 34 `CUDA_ERROR_STUB_LIBRARY`): the stubs directory off LD_LIBRARY_PATH and any libcuda.so link into it removed (advice). For a conda solver without `__cuda`: `CONDA_OVERRIDE_CUDA` set to the CUDA the target machine's driver supports (the solver's own hint; the version the requirement names when it names one), else the driver made loadable where the solver runs (advice).",
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    let mut d = blank(Code::LibcudaNotFound, source);
    // A pip build that links the driver (`cannot find -lcuda` under `Building wheel for
    // tinycudann`) is that package's link step, not Triton's JIT.
    let built = cx
        .scene
        .packages_built
        .first()
        .map(|p| crate::kb::normalize(p))
        .filter(|p| p != "triton" && p != "torch");
    d.package = Some(built.clone().unwrap_or_else(|| "triton".into()));
    d.message = match &built {
        Some(p) => format!("the build of {p} links the NVIDIA driver library (`-lcuda`), and the linker finds no `libcuda.so` (no version suffix), which driver packages do not always install"),
        None => "Triton's JIT compiler cannot link the NVIDIA driver library: the linker looks for `libcuda.so` (no version suffix), which driver packages do not always install".into(),
    };
    d.evidence.push(format!("the text says: {}", detail.trim()));
    d.evidence.extend(cx.world.libcuda_evidence());
    d.explanation = Some("`-lcuda` needs a file named exactly libcuda.so. The driver installs libcuda.so.1 (and libcuda.so.<driver version>); the unversioned link normally comes from a -dev package. Triton honours TRITON_LIBCUDA_PATH, so pointing it at a directory of yours that holds a libcuda.so link fixes this without root.".into());
    let mut fixes = fixes(cx, built.as_deref());
    // A launcher cached without libcuda is reused until its cache goes.
    fixes.extend(super::loadforms::launcher_cache_fix(detail));
    d.fixes = crate::fix::rank(fixes);
    d
}

/// `built`: the package whose build links `-lcuda`, when it is a build and not Triton's JIT.
fn fixes(cx: &Cx<'_>, built: Option<&str>) -> Vec<Fix> {
    let code = Code::LibcudaNotFound;
    let found = cx
        .world
        .libcuda_candidates()
        .into_iter()
        .find_map(|p| SafePath::new(&p));
    let dir = cx.world.user_dir("libcuda");
    let mut fixes = Vec::new();
    match (&found, &dir) {
        (Some(target), Some(dir)) => {
            if let Some(link) = dir.join("libcuda.so") {
                fixes.push(
                    Fix::new(
                        code,
                        "user-link",
                        FixKind::Configure,
                        format!("Point Triton at a libcuda.so link in {dir} (no sudo)"),
                        format!(
                            "A link named libcuda.so to the driver's {target}, in a directory of yours, given to Triton through TRITON_LIBCUDA_PATH and to other compilers through LIBRARY_PATH."
                        ),
                    )
                    .step(Step::MakeDir { path: dir.clone() })
                    .step(Step::Link {
                        target: target.clone(),
                        link,
                        root: false,
                    })
                    .steps(super::recipes::set_env("TRITON_LIBCUDA_PATH", dir.as_str()))
                    .steps(super::recipes::set_env("LIBRARY_PATH", dir.as_str())),
                );
            }
        }
        _ if built.is_some() => fixes.push(
            Fix::new(
                code,
                "user-link",
                FixKind::Configure,
                "Give the build's linker a libcuda.so: the CUDA toolkit's stub, or a link in a directory of yours (no sudo)",
                "The CUDA toolkit ships a stub libcuda.so for linking (lib64/stubs); a link named libcuda.so to the driver's libcuda.so.1 works too. LIBRARY_PATH is where the linker looks for -l libraries; the program loads the driver's own libcuda.so.1 at run time.",
            )
            .step(Step::Manual(
                "export LIBRARY_PATH=<CUDA toolkit>/lib64/stubs (or a directory holding a libcuda.so link to the driver's libcuda.so.1), then build again".into(),
            ))
            .unverified(),
        ),
        _ => fixes.push(
            Fix::new(
                code,
                "user-link",
                FixKind::Configure,
                "Point Triton at a libcuda.so link in a directory of yours (no sudo)",
                "Find the driver's libcuda.so.1 (`ldconfig -p | grep libcuda`), link it as libcuda.so in a directory you own, and set TRITON_LIBCUDA_PATH and LIBRARY_PATH to that directory. abidoc found no driver library to link here, so it gives no command.",
            )
            .step(Step::Manual(
                "mkdir -p ~/.local/lib/abidoc/libcuda && ln -sf <driver libcuda.so.1> ~/.local/lib/abidoc/libcuda/libcuda.so; export TRITON_LIBCUDA_PATH=~/.local/lib/abidoc/libcuda; export LIBRARY_PATH=~/.local/lib/abidoc/libcuda:$LIBRARY_PATH".into(),
            ))
            .unverified(),
        ),
    }
    if let Some(target) = &found
        && let Some(sys_dir) = target.parent()
        && let Some(link) = sys_dir.join("libcuda.so")
    {
        fixes.push(
            Fix::new(
                code,
                "system-link",
                FixKind::NeedsRoot,
                format!("Create the system link {link} (needs root)"),
                "Fixes it for every user and tool, but needs sudo; the user-level link above does not.",
            )
            .step(Step::Link {
                target: target.clone(),
                link,
                root: true,
            })
            .step(Step::Ldconfig),
        );
    }
    crate::fix::rank(fixes)
}

/// conda's, mamba's or pixi's solver finding no `__cuda` virtual package: the solver stands for
/// the driver by it, read from libcuda where the environment is solved. On a machine without
/// the driver (a CI runner, a login node, an image build) `CONDA_OVERRIDE_CUDA` declares the CUDA
/// the target machine's driver supports; on the GPU machine, the driver itself is not loadable.
pub(crate) fn conda_virtual(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    let code = Code::LibcudaNotFound;
    let mut d = blank(code, source);
    // `nothing provides __cuda >=12 needed by pytorch-2.1.0-py3.10_cuda12.1_…`: the package
    // that asks for it, by its name before the version.
    let needed_by = detail.split_once("needed by ").and_then(|(_, r)| {
        let w = r.split_whitespace().next()?;
        let name = w
            .split('-')
            .take_while(|p| !p.starts_with(|c: char| c.is_ascii_digit()))
            .collect::<Vec<_>>()
            .join("-");
        // conda's `pytorch` (and its `pytorch-cuda` metapackage) is pip's torch; conda's
        // CUDA metapackages (`cudatoolkit`, `cuda-version`) are no pip package.
        match name.as_str() {
            "" => None,
            "pytorch" | "pytorch-cuda" => Some("torch".to_owned()),
            n if n.starts_with("cuda") => None,
            _ => Some(crate::kb::normalize(&name)),
        }
    });
    d.package = needed_by.or_else(|| cx.torch_shown(None).then(|| "torch".to_owned()));
    // The CUDA the requirement names (`__cuda >=12`), else the one the text states.
    let wanted = detail
        .split_once("__cuda")
        .map(|(_, r)| r.trim_start().trim_start_matches(['>', '=', '\'', ' ']))
        .map(|r| {
            r.split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .next()
                .unwrap_or("")
                .trim_end_matches('.')
                .to_owned()
        })
        .filter(|v| !v.is_empty() && v.len() <= 6)
        // A solver that lists a `__cuda=11.4` it sees has a driver, too old for the
        // requirement: no override then (the install would succeed and fail at run time).
        .filter(|_| !detail.contains("__cuda="));
    d.message = if detail.contains("__cuda=") {
        "the conda solver's NVIDIA driver (the virtual package `__cuda` it lists) supports an older CUDA than the packages asked for need: a newer driver, or their builds for that CUDA".into()
    } else {
        "the conda solver sees no NVIDIA driver here: it stands for the driver by the virtual package `__cuda` (read from libcuda.so when solving), and the CUDA packages asked for need it".into()
    };
    d.evidence.push(format!("the solver says: {}", detail.trim()));
    let value = wanted.clone().unwrap_or_else(|| "12.4".into());
    let mut fixes = Vec::new();
    let reason = "Where the environment is solved without a GPU (a CI runner, a login node, an image build), CONDA_OVERRIDE_CUDA declares the CUDA that the driver of the machine it will run on supports; conda, mamba and pixi read it in place of libcuda (the solver's own hint).";
    match (
        wanted.as_deref(),
        super::recipes::set_env("CONDA_OVERRIDE_CUDA", &value),
    ) {
        (Some(v), Some(step)) => fixes.push(
            Fix::new(
                code,
                "conda-override-cuda",
                FixKind::Configure,
                format!("Solve with CONDA_OVERRIDE_CUDA={v}, where no driver is visible"),
                reason,
            )
            .step(step)
            .step(Step::Manual("then run the install (or `pixi install`) again".into())),
        ),
        _ => fixes.push(
            Fix::new(
                code,
                "conda-override-cuda",
                FixKind::Configure,
                "Solve with CONDA_OVERRIDE_CUDA set to the CUDA the target machine's driver supports, where no driver is visible",
                reason,
            )
            .step(Step::Manual(format!(
                "{} (the CUDA `nvidia-smi` shows on the GPU machine), then run the install again",
                super::recipes::set_in_words(cx, "CONDA_OVERRIDE_CUDA", "12.4")
            ))),
        ),
    }
    fixes.push(
        Fix::in_words(
            code,
            "driver-visible",
            "On the GPU machine itself, make the NVIDIA driver loadable where the solver runs",
            "The solver reads the driver's CUDA from libcuda.so.1: a container started without the GPU (`--gpus all`), a driver not installed, or libcuda outside the loader's path leaves `__cuda` out.",
            "check that `nvidia-smi` works where conda runs; in a container, start it with the GPU (docker run --gpus all); `conda info` lists the virtual packages it sees",
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}
