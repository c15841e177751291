//! `cpu-only-torch`: a CPU-only torch build was asked for CUDA.
//!
//! Produced by `Torch not compiled with CUDA enabled` (an error), and by CUDA reported unavailable
//! (`torch.cuda.is_available()` → `False`, collect_env's `Is CUDA available: False`) with a
//! `+cpu` torch in the text (information: a CPU build may be meant). The build is confirmed by a `+cpu`
//! version (in the text or installed) or, with the environment, by the installed torch having no
//! `libtorch_cuda.so`. The fix installs the CUDA build of the same torch release from PyTorch's
//! index (`--index-url https://download.pytorch.org/whl/cuXYZ`: PyPI serves only CPU builds on
//! Windows and macOS, and `+cpu` builds come from the cpu index): the build for the driver's CUDA
//! when `/proc/driver/nvidia/version` says it, else the release's default CUDA. JAX on its CPU
//! jaxlib (`a CUDA-enabled jaxlib is not installed`, `No GPU/TPU found, falling back to CPU`) is
//! the same failure of another framework: a warning, fixed by jax's `cudaNN` extra.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Cost, Fix, FixKind, IndexUrl, Name};
use abidoc_knowledge::gpu;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`Torch not compiled with CUDA enabled`, a `+cpu` torch: the installed torch is a CPU-only build.",
    meaning: "JAX's CPU-only jaxlib says it as `a CUDA-enabled jaxlib is not installed. Falling back to cpu.` (older releases: `No GPU/TPU found, falling back to CPU`): PyPI's plain jaxlib is the CPU build, and its CUDA backend is a plugin that jax's `cuda12`/`cuda13` extra installs. PyTorch publishes one build per CUDA version plus a CPU-only build, each on its own index. PyPI serves the CPU-only build on Windows and macOS, `+cpu` versions come from the cpu index, and a requirements file that names plain `torch` can replace a CUDA build with it. A CPU-only torch has no `libtorch_cuda.so`, and every CUDA call fails with this assertion; an extension's CUDA build against it finds no `c10_cuda`/`torch_cuda` to link (`LNK1181: cannot open input file 'c10_cuda.lib'`, `cannot find -lc10_cuda`).",
    fixes: "1. The CUDA build of the same torch release from PyTorch's index (`pip install --force-reinstall torch==2.7.1+cu128 --index-url https://download.pytorch.org/whl/cu128`): the build for the driver's CUDA when the driver version is known, else the release's default CUDA; downloads several GB. torchvision and torchaudio move with it. 2. With no version known, the general form for the newest release. For JAX: `pip install -U \"jax[cuda12]\"` (`cuda13` where the text shows its plugin), jax, jaxlib and the plugin of one release. A build that read `torch.version.cuda` as None (a setup.py's `.split(\".\")`) or found no GPU to compile for (cpp_extension's `arch_list[-1] += '+PTX'` IndexError) gets the same CUDA torch, and for the latter also TORCH_CUDA_ARCH_LIST where a CUDA torch builds on a machine without a GPU. On macOS no CUDA torch exists: the CUDA part runs on a machine with an NVIDIA GPU, or the package's CPU/MPS path.",
    ..CodeDoc::BASE
};

fn cuda_str(c: (u64, u64)) -> String {
    format!("{}.{}", c.0, c.1)
}

/// CUDA unavailable to torch (`is_available()` answered `False`): a CPU-only build is the usual
/// cause, said as the likely one; an error where the program stopped on it.
pub(crate) fn unavailable(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    detail: &str,
    stopped: bool,
) -> Diagnostic {
    let mut d = diagnose(cx, source, detail, false);
    if stopped {
        d.severity = crate::diagnostic::Severity::Error;
        d.message = "the program stopped because torch sees no CUDA device: a CPU-only torch build is the usual cause (`python -c \"import torch; print(torch.version.cuda)\"` prints None for one; a version there means the driver or the device is what is missing)".into();
    }
    d
}

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    detail: &str,
    asserted: bool,
) -> Diagnostic {
    if detail.contains("jaxlib is not installed") || detail.contains("No GPU/TPU found") {
        return jax_cpu(cx, source, detail);
    }
    let mut d = blank(Code::CpuOnlyTorch, source);
    if !asserted {
        d.severity = crate::diagnostic::Severity::Information;
    }
    d.package = Some("torch".into());
    d.evidence.push(format!("the text says: {}", detail.trim()));
    let torch = cx.torch();
    if let Some(t) = torch.as_deref().filter(|t| t.ends_with("+cpu")) {
        d.evidence.push(format!("torch {t}: the +cpu label marks a CPU-only build"));
    }
    if let Some((dir, code)) = cx.world.torch_gpu_code() {
        match code {
            None => d.evidence.push(format!(
                "the installed torch has no libtorch_cuda.so in {dir}: a CPU-only build"
            )),
            Some(f) => d.evidence.push(format!(
                "the installed torch has {dir} ({}): the process that failed ran another torch",
                f.describe()
            )),
        }
    }
    let driver = cx.world.driver_version();
    if let Some(v) = &driver {
        d.evidence
            .push(format!("/proc/driver/nvidia/version: NVIDIA driver {v}"));
    }
    d.message = match (&torch, asserted) {
        _ if detail.contains("torch.version.cuda.") => format!(
            "the package's build reads torch.version.cuda, which is None: the installed torch{} is a CPU-only build, and this package builds only against a CUDA torch",
            torch.as_deref().map(|t| format!(" {t}")).unwrap_or_default()
        ),
        _ if detail.contains("arch_list[-1]") => format!(
            "torch's extension builder found no CUDA GPU to compile for and TORCH_CUDA_ARCH_LIST is unset: the installed torch{} is a CPU-only build, or no GPU is visible where the build runs (a container build, a login node)",
            torch.as_deref().map(|t| format!(" {t}")).unwrap_or_default()
        ),
        _ if detail.contains("only torch's CUDA builds ship") => format!(
            "the extension's CUDA build links torch's CUDA libraries, and the installed torch{} is a CPU-only build without them",
            torch.as_deref().map(|t| format!(" {t}")).unwrap_or_default()
        ),
        (Some(t), true) => format!(
            "torch {t} is a CPU-only build: it has no CUDA support, so moving anything to the GPU fails"
        ),
        (None, true) => "the installed torch is a CPU-only build: it has no CUDA support, so moving anything to the GPU fails".into(),
        (t, false) => format!(
            "CUDA is unavailable because torch{} is a CPU-only build; to use an NVIDIA GPU, install its CUDA build",
            t.as_deref().map(|t| format!(" {t}")).unwrap_or_default()
        ),
    };
    d.explanation = Some("PyPI serves CPU-only torch on Windows and macOS, and the cpu index serves `+cpu` builds; a requirements file or another package's dependency can also replace a CUDA build with one. The CUDA builds live on PyTorch's own indexes, one per CUDA version.".into());
    d.fixes = fixes(cx, torch.as_deref(), driver.as_deref());
    // macOS has no CUDA torch at all (Apple's GPUs run through MPS): no index serves one.
    if cx.scene.mentions_macos && !cx.scene.mentions_windows {
        d.message.push_str("; on macOS no CUDA build of torch exists (Apple's GPUs run through MPS)");
        d.fixes = vec![
            Fix::in_words(
                Code::CpuOnlyTorch,
                "no-cuda-on-macos",
                "Run the CUDA part on a Linux or Windows machine with an NVIDIA GPU, or use the package's CPU or MPS path",
                "PyTorch publishes no CUDA builds for macOS; a package that builds or runs only with CUDA cannot do so on a Mac, whatever torch is installed there.",
                "use a machine with an NVIDIA GPU (Linux or Windows) for this package, or the package's release or option that runs without CUDA (its README names it, if any)",
            ),
        ];
        return d;
    }
    // A CUDA torch on a machine whose build sees no GPU: the architectures to build for, named.
    if detail.contains("arch_list[-1]") {
        d.fixes.push(
            Fix::in_words(
                Code::CpuOnlyTorch,
                "arch-list-without-gpu",
                "Or, where torch is a CUDA build and the build machine has no GPU: name the GPUs to build for in TORCH_CUDA_ARCH_LIST",
                "torch's cpp_extension compiles for the GPUs it sees, else for TORCH_CUDA_ARCH_LIST; with neither it has no architecture at all.",
                "export TORCH_CUDA_ARCH_LIST=\"<the GPUs' compute capabilities, e.g. 8.0;8.6;8.9>\" (nvidia-smi --query-gpu=compute_cap --format=csv on the machine that runs it), then build again",
            ),
        );
        d.fixes = crate::fix::rank(std::mem::take(&mut d.fixes));
    }
    if cx.scene.mentions_arm {
        d.evidence.push("the text shows an ARM machine: PyPI's aarch64 torch is a CPU-only build; the CUDA builds for ARM servers (Grace, GB10) are on PyTorch's cu12x/cu13x indexes".into());
    }
    // A Jetson's integrated GPU runs only NVIDIA's torch builds for its JetPack.
    if cx.scene.mentions_jetson {
        d.fixes.insert(
            0,
            Fix::in_words(
                Code::CpuOnlyTorch,
                "jetpack-build",
                "Install NVIDIA's torch wheel for this board's JetPack",
                "Neither PyPI nor PyTorch's indexes build torch for a Jetson's integrated GPU; NVIDIA publishes wheels per JetPack release (its 'PyTorch for Jetson' page, or the jetson-ai-lab index), and the JetPack containers (l4t-pytorch) carry them.",
                "find the JetPack release (`cat /etc/nv_tegra_release` or `dpkg -l nvidia-jetpack`), then install NVIDIA's torch wheel for it (and the torchvision built against that wheel)",
            )
            .leading(),
        );
        d.fixes = crate::fix::rank(std::mem::take(&mut d.fixes));
    }
    d
}

/// JAX on its CPU jaxlib (a warning: it runs, on the CPU). PyPI's plain jaxlib is the CPU build;
/// the CUDA one is jaxlib's CUDA plugin with the nvidia-* wheels, which jax's `cudaNN` extra
/// installs in one resolve with jax and jaxlib of the same release.
fn jax_cpu(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    let code = Code::CpuOnlyTorch;
    let mut d = blank(code, source);
    d.severity = crate::diagnostic::Severity::Warning;
    d.package = Some("jaxlib".into());
    d.evidence.push(format!("the text says: {}", detail.trim()));
    d.message = "JAX runs on the CPU: the installed jaxlib has no CUDA backend (PyPI's plain jaxlib is the CPU build; the CUDA one is jax's CUDA plugin), or the plugin could not start".into();
    d.explanation = Some("jaxlib on PyPI is built for the CPU only. GPU support is a separate plugin (jax-cuda12-plugin / jax-cuda13-plugin with its PJRT and the nvidia-* CUDA wheels), which `pip install -U \"jax[cuda12]\"` installs together with jax and jaxlib of one release. When the plugin is installed and JAX still falls back, its own log lines above say why it did not start (a driver too old, a CUDA library of another version found first).".into());
    // macOS has no CUDA: JAX on the CPU there is its normal state (Apple's GPU is jax-metal's).
    if cx.scene.mentions_macos && !detail.contains("NVIDIA GPU may be present") {
        d.severity = crate::diagnostic::Severity::Information;
        d.message = "JAX runs on the CPU: on macOS there is no CUDA build; Apple's GPU is reached through the jax-metal plugin".into();
        return d;
    }
    // Without JAX's own word that an NVIDIA GPU is there, no GPU may exist at all.
    if !detail.contains("NVIDIA GPU may be present") {
        d.message.push_str("; on a machine without an NVIDIA GPU this is JAX's normal state");
    }
    let extra = recipes::jax_cuda_extra(cx, None);
    let mut fixes = Vec::new();
    if let Some(step) = recipes::jax_with_extra(cx, extra) {
        fixes.push(
            Fix::new(
                code,
                "jax-cuda",
                FixKind::PrebuiltWheel,
                format!("Install JAX's CUDA build: jax[{extra}] (jaxlib's CUDA plugin and the CUDA wheels it needs)"),
                format!(
                    "The extra pins jaxlib, its CUDA plugin and the nvidia-* libraries to the jax release it installs; it needs an NVIDIA driver of that CUDA major{}.",
                    extra
                        .strip_prefix("cuda")
                        .and_then(|m| m.parse::<u64>().ok())
                        .and_then(|m| gpu::min_driver((m, 0)))
                        .map(|v| format!(" ({v} or newer)"))
                        .unwrap_or_default()
                ),
            )
            .step(step)
            .cost(Cost {
                downloads: true,
                compiles: None,
                also: vec!["moves jax and jaxlib to the newest release with the extra".into()],
            }),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The CUDA build to install: the newest of this release the driver runs, else the release's
/// default CUDA (the build PyPI serves on Linux).
fn variant(torch: &str, driver: Option<&str>) -> Option<String> {
    if let Some(dc) = driver.and_then(gpu::cuda_of_driver) {
        return gpu::variant_for_driver(torch, dc);
    }
    let v = abidoc_knowledge::Version::parse(torch)?;
    // A release older than the default-CUDA table: its newest build.
    recipes::default_cuda_variant(v.public()).or_else(|| gpu::torch_variants(torch).last().cloned())
}

fn fixes(cx: &Cx<'_>, torch: Option<&str>, driver: Option<&str>) -> Vec<Fix> {
    let code = Code::CpuOnlyTorch;
    let mut fixes = Vec::new();
    let name = Name::new("torch");
    let nightly = torch.is_some_and(|t| {
        abidoc_knowledge::Version::parse(t).is_some_and(|v| v.is_prerelease())
    });
    match (torch.map(recipes::short_torch), name) {
        (Some(t), Some(_)) if nightly => fixes.push(
            Fix::in_words(
                code,
                "cuda-build",
                format!("Install the CUDA nightly build matching torch {t}"),
                "A nightly torch comes from PyTorch's nightly indexes (https://download.pytorch.org/whl/nightly/cuXYZ), one per CUDA version; pick the one your driver supports.",
                "pip install --pre --force-reinstall torch --index-url https://download.pytorch.org/whl/nightly/cuXYZ",
            ),
        ),
        (Some(t), Some(_)) => {
            if let Some(var) = variant(t, driver)
                && let Some(index) = IndexUrl::pytorch(&var)
                && let Some(step) = recipes::torch_build_step(cx, Some(t), &var)
            {
                let cuda = gpu::variant_cuda(&var).map(cuda_str).unwrap_or_default();
                let min = gpu::variant_cuda(&var).and_then(gpu::min_driver);
                let mut f = Fix::new(
                    code,
                    "cuda-build",
                    FixKind::AlignTorch,
                    format!("Install torch {t} built for CUDA {cuda} ({var}) from PyTorch's index"),
                    format!(
                        "The same release with CUDA, from {index}{}",
                        min.map(|m| format!("; CUDA {cuda} needs NVIDIA driver {m} or newer"))
                            .unwrap_or_default()
                    ),
                )
                .step(step)
                .cost(Cost {
                    downloads: true,
                    compiles: None,
                    also: vec![format!("torch's CUDA {cuda} libraries (several GB)")],
                });
                if driver.is_none() {
                    f = f.unverified();
                }
                fixes.push(f);
            }
        }
        (None, Some(_)) => {
            // No version known: the newest release line's default build, marked unverified.
            let latest = gpu::tables().torch_builds.last();
            let var = latest.and_then(|l| recipes::default_cuda_variant(&format!("{}.0", l.torch)));
            if let Some(var) = var
                && let Some(index) = IndexUrl::pytorch(&var)
                && let Some(step) = recipes::torch_build_step(cx, None, &var)
            {
                let cuda = gpu::variant_cuda(&var).map(cuda_str).unwrap_or_default();
                fixes.push(
                    Fix::new(
                        code,
                        "cuda-build",
                        FixKind::AlignTorch,
                        format!("Install torch built for CUDA {cuda} ({var}) from PyTorch's index"),
                        format!("The text names no torch version: this installs the newest torch of {index}. Pick the cuXYZ your driver supports (`nvidia-smi` prints it) and keep your torch version if you pin one."),
                    )
                    .step(step)
                    .cost(Cost {
                        downloads: true,
                        compiles: None,
                        also: vec![format!("torch's CUDA {cuda} libraries (several GB)")],
                    })
                    .unverified(),
                );
            }
        }
        _ => {}
    }
    fixes.push(
        Fix::in_words(
            code,
            "check-requirements",
            "Keep requirements from bringing the CPU build back",
            "A plain `torch` in a requirements file resolves to PyPI's build (CPU-only on Windows and macOS); name the CUDA index there (`--index-url` / `--extra-index-url` line) or install torch first.",
            "add `--extra-index-url https://download.pytorch.org/whl/cuXYZ` to requirements.txt, or install torch before the other requirements",
        ),
    );
    crate::fix::rank(fixes)
}
