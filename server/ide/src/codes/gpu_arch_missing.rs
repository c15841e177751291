//! `gpu-arch-missing`: the GPU has no code in a binary the run uses — torch or an extension was
//! compiled for other GPU architectures (SM cubins) with no PTX the driver could compile for it.
//!
//! Produced by `no kernel image is available for execution on the device` and torch's warnings
//! (`… with CUDA capability sm_120 is not compatible with the current PyTorch installation`, its
//! `supports CUDA capabilities …` list, `Found GPU0 … which is of cuda capability 3.5`; with the
//! environment, the model `/proc/driver/nvidia/gpus/*/information` names). What a
//! binary carries is read from the text's list and, with the environment, from the fat binary
//! of the installed torch (`libtorch_cuda.so`'s `.nv_fatbin`) — statically; `verify` reads the fat
//! binaries of a wheel's libraries against the GPUs it will run on (`from_env`). A cubin runs on its
//! major with the same or a newer minor: a warning whose list holds such a cubin is harmless and
//! said so (PTX, which the driver compiles at first use, is evidence, not enough). Fixes: the torch build for a CUDA that compiles for the GPU
//! (`--index-url` of PyTorch's index for that build; the facts in `gpu.toml`), or a source build
//! of the extension with the GPU's architecture in `TORCH_CUDA_ARCH_LIST`. ROCm's forms
//! (`hipErrorNoBinaryForGpu`, HIP's `invalid device function`) are the same failure on AMD GPUs:
//! `HSA_OVERRIDE_GFX_VERSION` runs a family's shipped target (`gpu.toml [[rocm_override]]`).

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, Severity, SourceRef};
use crate::fix::{Cost, Fix, FixKind, IndexUrl, Name, PipFlag, Requirement, Step, Version};
use abidoc_knowledge::gpu;
use abidoc_syntax::GpuArchForm;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`no kernel image is available for execution on the device`, `sm_120 is not compatible with the current PyTorch installation`, ROCm's `hipErrorNoBinaryForGpu`, torch's NVRTC refusing `--gpu-architecture` (another package's NVRTC where the text names it: OpenMM, CuPy), ggml's `has no device code compatible with CUDA arch 750` (its CMAKE_CUDA_ARCHITECTURES): torch or an extension has no code for this GPU's architecture.",
    meaning: "CUDA binaries carry machine code (cubins) for chosen SM architectures and optionally PTX that the driver compiles at load. A cubin runs on GPUs of its major with the same or a newer minor (sm_80 code runs on an 8.6 GPU); PTX runs on any newer GPU. A GPU newer than every cubin and PTX in the binary (an RTX 50xx, sm_120, under a torch built for CUDA 12.6), or older than the oldest (a Kepler or Maxwell card under a recent build), has no code to run. Packages guard their own kernels in their words too (xFormers' `… is for sm80, but was built for sm750` and `cutlassF: no kernel found to launch`, SageAttention's `SM89 kernel is not available`). abidoc reads the list the text prints and, with the environment, the GPU model the driver's files name (`/proc/driver/nvidia/gpus/*/information`, never `nvidia-smi`) and the `.nv_fatbin` section of the installed torch (`abidoc explain LIB` lists any library's architectures). Frameworks and packages say it in their own words: TensorFlow's `was not built with CUDA kernel binaries compatible with compute capability 8.6` (its kernels then JIT-compile from PTX, or fail), a package's kernel table (vLLM's `no cutlass_scaled_mm kernel for CUDA device capability: 100`), and the LLVM that XLA or Triton bundles (`PTX version 8.5 does not support target 'sm_120'`: that toolchain predates the GPU).",
    fixes: "1. The torch build for a CUDA that compiles for this GPU, from PyTorch's index for that build (`--index-url https://download.pytorch.org/whl/cu128` for sm_120/Blackwell, which needs CUDA ≥ 12.8; a cu126 build for GPUs CUDA 13 dropped); extensions built for the old torch must then match it. 2. For an extension: a source build with the GPU's capability in `TORCH_CUDA_ARCH_LIST` (compiles; needs nvcc of torch's CUDA). A package with its own GPU builds that does not compile against torch and that nothing pins to one release (ONNX Runtime, PaddlePaddle, bitsandbytes, CuPy: `own_gpu_builds` in packages.toml; not Triton, jaxlib or TensorFlow, which move only with torch or their framework): its newest release, whose builds add newer GPUs (not for a GPU older than Volta, which releases drop). A package its importers do without (xFormers): its removal, as an alternative. 3. Advice when the GPU is older than every current build (a source build for its architecture), or when the text does not say which binary lacks it: first check torch's own list and, if the GPU is missing there (a GPU newer than the torch build, what threads most often confirm), torch's build for the newest CUDA; then the extension that launched the kernel, rebuilt for the GPU. A warning whose list holds a cubin of the GPU's major with an equal or lower minor is information: no fix is needed. PTX alone is not counted as enough: the driver compiles it at first use, and the CUDA libraries the build ships may have no code for the GPU.",
    ..CodeDoc::BASE
};

/// What the text showed about the GPU and the binary.
pub(crate) struct Seen<'a> {
    pub form: GpuArchForm,
    pub gpu: Option<&'a str>,
    pub capability: Option<&'a str>,
    pub supported: &'a [String],
    pub range: Option<&'a (String, Option<String>)>,
    pub detail: &'a str,
}

fn sm(cc: (u32, u32)) -> String {
    format!("sm_{}{}", cc.0, cc.1)
}

fn cuda_str(c: (u64, u64)) -> String {
    format!("{}.{}", c.0, c.1)
}

/// Whether machine code for `cc` is among `supported` (`sm_86`): a cubin of the same major and a
/// minor not above. PTX alone does not count: the driver compiles it at first use, and the CUDA
/// libraries a torch build ships may have no PTX for the GPU at all.
fn covered(cc: (u32, u32), supported: &[String]) -> bool {
    supported.iter().any(|s| {
        !s.starts_with("compute_")
            && gpu::parse_capability(s).is_some_and(|c| c.0 == cc.0 && c.1 <= cc.1)
    })
}

/// The PTX entries of `supported` older than `cc`: code the driver could compile for it.
fn ptx_below(cc: (u32, u32), supported: &[String]) -> Vec<&str> {
    supported
        .iter()
        .filter(|s| s.starts_with("compute_"))
        .filter(|s| gpu::parse_capability(s).is_some_and(|c| c <= cc))
        .map(String::as_str)
        .collect()
}

/// A library whose fat binary (read from its file: `verify` reads a wheel's) has no code for a
/// GPU it will run on: it loads, and its first kernel launch fails. The fixes are those of an
/// extension compiled for other GPUs (a build with the GPU in `TORCH_CUDA_ARCH_LIST`).
pub(crate) fn from_env(
    cx: &Cx<'_>,
    d: &mut Diagnostic,
    gpu: &str,
    capability: (u32, u32),
    carries: &str,
) {
    let c = capability;
    let lib = d
        .library
        .as_deref()
        .map(crate::incidents::basename)
        .unwrap_or("the library");
    let named = if gpu == sm(c) {
        sm(c)
    } else {
        format!("{gpu} ({})", sm(c))
    };
    d.message = format!(
        "{lib} carries no GPU code for {named}: it would load, but its first kernel launch there fails with `no kernel image is available for execution on the device`"
    );
    d.evidence.push(format!("{lib} carries GPU code for: {carries}"));
    let arch = gpu::arch(c).map(|a| format!(", {}", a.name)).unwrap_or_default();
    d.evidence.push(format!(
        "{named}: compute capability {}.{}{arch}; a cubin runs on its major at the same or a newer minor, PTX on any newer GPU",
        c.0, c.1
    ));
    if let Some(min) = gpu::min_cuda_for(c) {
        d.evidence.push(format!(
            "CUDA {} is the first toolkit that compiles for {}",
            cuda_str(min),
            sm(c)
        ));
    }
    // torch's own build is not the question here: the library is the package's. A torch
    // extension the tables know compiles for the GPU from source; any package can be replaced by
    // a build that carries its architecture.
    let code = Code::GpuArchMissing;
    let pkg = d.package.clone().unwrap_or_else(|| "the package".into());
    let mut fixes = Vec::new();
    if let Some(p) = d
        .package
        .as_deref()
        .filter(|p| crate::kb::links_torch(p) == Some(true))
        .and_then(Name::new)
        && let Some(mut f) = recipes::source_build(code, cx, &p, &[])
    {
        if let Some(s) = recipes::set_env("TORCH_CUDA_ARCH_LIST", &format!("{}.{}+PTX", c.0, c.1)) {
            f.steps.insert(0, s);
            f.title = format!("{} for compute capability {}.{}", f.title, c.0, c.1);
        }
        fixes.push(f);
    }
    fixes.push(
        Fix::new(
            code,
            "build-for-gpu",
            FixKind::SourceBuild,
            format!("Install a build of {pkg} that carries code for {}", sm(c)),
            format!(
                "A release or build whose architecture list includes {} (or PTX of an older architecture, which the driver compiles at first use); `abidoc explain LIB` lists what a library carries, `abidoc verify WHEEL --gpu {}.{}` judges a wheel before installing it.",
                sm(c),
                c.0,
                c.1
            ),
        )
        .step(Step::Manual(format!(
            "find a build of {pkg} for {} (its release notes or wheel index), then check it: abidoc verify WHEEL --gpu {}.{}",
            sm(c),
            c.0,
            c.1
        ))),
    );
    d.fixes = crate::fix::rank(fixes);
}

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, seen: &Seen<'_>) -> Diagnostic {
    match seen.form {
        GpuArchForm::TritonTooOld => return triton_too_old(source, seen),
        GpuArchForm::FlashAttnAmpere => return flash_attn_too_old(source, seen),
        GpuArchForm::Bf16Unsupported => return bf16_unsupported(cx, source, seen),
        GpuArchForm::Rocm => return rocm(source, seen),
        GpuArchForm::NvrtcArch => return nvrtc_arch(cx, source, seen),
        GpuArchForm::NoKernel => {}
    }
    let mut d = blank(Code::GpuArchMissing, source);
    // The GPU: as the text names it, else as the driver's files name it (never by running
    // anything): `/proc/driver/nvidia/gpus/*/information`'s model, by the model table.
    let from_driver = if seen.capability.is_none() {
        cx.world
            .gpu_models()
            .into_iter()
            .find_map(|m| gpu::capability_of_model(&m).map(|c| (m, c)))
    } else {
        None
    };
    let cc = seen
        .capability
        .and_then(gpu::parse_capability)
        .or(from_driver.as_ref().map(|(_, c)| *c));
    // A package's own check names the package in its words (`The installed PaddlePaddle
    // package was compiled for …`, `FlashInfer requires GPUs with sm75 or higher`).
    let own_check = abidoc_knowledge::packages::mentions(seen.detail)
        .into_iter()
        .map(|m| m.package.name.clone())
        .find(|n| n != "torch");
    // torch printed its own list (or its range): the binary is torch.
    let torch_says = own_check.is_none()
        && (!seen.supported.is_empty()
            || seen.range.is_some()
            || seen.detail.contains("current PyTorch installation"));
    // Else the extension the text is about (built, installed, or shown around the failure):
    // known before the fixes are made, which compile it for this GPU.
    d.package = if torch_says {
        Some("torch".into())
    } else if let Some(p) = own_check {
        Some(p)
    } else {
        extension_in_text(cx)
            .or_else(|| {
                cx.near
                    .map(crate::kb::normalize)
                    .filter(|n| n != "torch" && crate::kb::package(n).is_some())
            })
            // Where torch is the only binary package the text shows (its version, its name),
            // the kernel that is missing is torch's: nothing else was named to have run.
            .or_else(|| torch_alone(cx).then(|| "torch".into()))
    };
    let gpu_name = seen
        .gpu
        .or(from_driver.as_ref().map(|(m, _)| m.as_str()))
        .unwrap_or("this GPU");
    if let Some((m, c)) = &from_driver {
        d.evidence.push(format!(
            "/proc/driver/nvidia/gpus: {m}, compute capability {}.{} (by its model name)",
            c.0, c.1
        ));
    }
    let arch_txt = cc.map(|c| {
        let name = gpu::arch(c).map(|a| format!(", {}", a.name)).unwrap_or_default();
        format!("{}: compute capability {}.{}{name}", sm(c), c.0, c.1)
    });
    d.evidence.push(format!("the text says: {}", seen.detail.trim()));
    let who = match d.package.as_deref() {
        Some(p) if p != "torch" => format!("the installed {p}"),
        _ => "the installed torch".to_owned(),
    };
    if !seen.supported.is_empty() {
        d.evidence.push(format!(
            "{who} carries code for: {}",
            seen.supported.join(" ")
        ));
    }
    if let Some((lo, hi)) = seen.range {
        d.evidence.push(match hi {
            Some(hi) => format!("{who} supports compute capability {lo} to {hi}"),
            None => format!("{who} supports compute capability {lo} and newer"),
        });
    }
    // With the environment: what torch's own fat binary holds, read statically.
    let mut torch_code = None;
    if let Some((lib, code)) = cx.world.torch_gpu_code() {
        match code {
            Some(f) if f.entries.is_empty() => {
                d.evidence
                    .push(format!("{lib} holds no CUDA fat binary that could be read"));
            }
            Some(f) => {
                d.evidence.push(format!(
                    "{lib} carries GPU code for: {}",
                    f.describe()
                ));
                torch_code = Some(f);
            }
            None => d.evidence.push(format!(
                "the installed torch has no libtorch_cuda.so in {lib}: it is a CPU-only build"
            )),
        }
    }
    let harmless = cc.is_some_and(|c| {
        (!seen.supported.is_empty() && covered(c, seen.supported))
            || seen.range.is_some_and(|(lo, hi)| {
                let lo = gpu::parse_capability(lo);
                let hi = hi.as_deref().and_then(gpu::parse_capability);
                lo.is_some_and(|lo| lo <= c) && hi.is_some_and(|hi| hi.0 == c.0 && hi.1 <= c.1)
            })
            || torch_code.as_ref().is_some_and(|f| {
                f.cubin_archs()
                    .iter()
                    .any(|a| a / 10 == c.0 && a % 10 <= c.1)
            })
    });
    if let (Some(c), true) = (cc, harmless) {
        d.severity = Severity::Information;
        d.message = format!(
            "{gpu_name} ({}) runs the installed torch's code: a cubin of its major with an equal or lower minor covers it, so this warning is harmless",
            arch_txt.unwrap_or_else(|| sm(c))
        );
        d.explanation = Some("A cubin built for sm_XY runs on every GPU of major X with a minor of Y or more, and PTX runs on any newer GPU. torch's check compares the list with the GPU's exact capability, so it also warns when compatible code is present.".into());
        return d;
    }
    let who = match d.package.as_deref() {
        Some("torch") if torch_says => "the installed torch".to_owned(),
        Some("torch") => "torch (the only binary the text names)".to_owned(),
        Some(p) => p.to_owned(),
        None if cx.torch_shown(None) => {
            "a binary this run uses (torch or a compiled extension)".to_owned()
        }
        None => "a compiled binary this run uses".to_owned(),
    };
    d.message = match (&arch_txt, cc.and_then(gpu::min_cuda_for)) {
        // Without the binary's list, only a GPU of the last few years is taken for newer
        // than the build (a Turing GPU missing from a 2025 build was left out, not unknown).
        (Some(a), Some(min))
            if too_new(cc, seen)
                && (!seen.supported.is_empty() || seen.range.is_some() || min >= (11, 8)) =>
        {
            format!(
            "{gpu_name} ({a}) has no code in {who}: it was compiled for older GPUs; this GPU needs a build for CUDA {} or newer",
            cuda_str(min)
        )
        }
        (Some(a), _) => format!("{gpu_name} ({a}) has no code in {who}"),
        _ => format!(
            "the GPU has no code in {who}: it was compiled for other GPU architectures"
        ),
    };
    if let Some(c) = cc {
        let ptx = ptx_below(c, seen.supported);
        if !ptx.is_empty() {
            d.evidence.push(format!(
                "only PTX ({}) could serve this GPU: the driver compiles it at first use, and the CUDA libraries of this build have no code for it",
                ptx.join(" ")
            ));
        }
    }
    if let Some(a) = cc.and_then(gpu::arch) {
        d.evidence.push(format!(
            "compute capability {} is {} ({}); CUDA {} is the first toolkit that compiles for it{}",
            a.capability,
            a.name,
            a.gpus,
            a.min_cuda,
            a.removed_in
                .as_deref()
                .map(|r| format!(", CUDA {r} the first that no longer does"))
                .unwrap_or_default()
        ));
    }
    d.explanation = Some("CUDA binaries carry machine code for chosen GPU architectures and optionally PTX that the driver compiles at load time. When neither matches this GPU, the first kernel launch fails with `no kernel image is available for execution on the device`.".into());
    d.fixes = fixes(cx, &d, cc, seen);
    // TensorFlow's check is its own warning: it goes on, compiling PTX for the GPU at start.
    if seen.detail.contains("TensorFlow was not built with CUDA kernel binaries")
        && seen.detail.contains("jit-compiled")
    {
        d.severity = crate::diagnostic::Severity::Warning;
    }
    d
}

/// The GPU is newer than everything listed (rather than older).
fn too_new(cc: Option<(u32, u32)>, seen: &Seen<'_>) -> bool {
    let Some(c) = cc else { return false };
    let listed: Vec<(u32, u32)> = seen
        .supported
        .iter()
        .filter_map(|s| gpu::parse_capability(s))
        .collect();
    match listed.iter().max() {
        Some(max) => c > *max,
        None => seen
            .range
            .and_then(|(lo, _)| gpu::parse_capability(lo))
            .is_none_or(|lo| c >= lo),
    }
}

/// The text shows torch (a version, its module, PyTorch by name) and no other package.
fn torch_alone(cx: &Cx<'_>) -> bool {
    let torch_shown = cx.scene.mentions_pytorch
        || cx.scene.versions.iter().any(|(s, _)| s == "torch")
        || cx.scene.mentions.iter().any(|(_, n)| n == "torch");
    torch_shown
        && cx.scene.mentions.iter().all(|(_, n)| n == "torch")
        && cx.scene.packages_built.is_empty()
}

/// An extension package the text is about: one being built, or one a suggested command installs.
fn extension_in_text(cx: &Cx<'_>) -> Option<String> {
    let installed_by = cx.scene.suggested_commands.iter().filter_map(|c| {
        let rest = c.split("pip install ").nth(1)?;
        let word = rest.split_whitespace().find(|w| !w.starts_with('-'))?;
        word.split(['=', '<', '>', '[']).next()
    });
    cx.scene
        .packages_built
        .iter()
        .map(String::as_str)
        .chain(installed_by)
        .map(crate::kb::normalize)
        .find(|n| n != "torch" && crate::kb::package(n).is_some())
}

fn fixes(cx: &Cx<'_>, d: &Diagnostic, cc: Option<(u32, u32)>, seen: &Seen<'_>) -> Vec<Fix> {
    let code = Code::GpuArchMissing;
    let mut fixes = Vec::new();
    let torch = cx.torch();
    let ext = d.package.as_deref().filter(|p| *p != "torch");
    // A package its importers do without (xFormers under diffusers or ComfyUI: they fall back
    // to torch's own attention): removing it is instant, where its build is an hour.
    if let Some(f) = ext
        .and_then(Name::new)
        .and_then(|p| recipes::uninstall_optional(code, cx, &p))
    {
        fixes.push(f);
    }
    // A package with its own GPU builds, not compiled against torch and pinned by nothing else
    // (ONNX Runtime, Paddle, bitsandbytes; not Triton or jaxlib, which move only with torch or
    // jax): a newer GPU than its build knows is in its newer releases' builds. An old GPU (below
    // Volta) is the other way round: releases drop GPUs, and the newest adds none.
    let old_gpu = cc.is_some_and(|c| c < (7, 0)) && !too_new(cc, seen);
    if let Some(p) = ext
        .filter(|p| crate::kb::own_gpu_builds(p))
        .and_then(Name::new)
        .filter(|_| !old_gpu)
    {
        fixes.push(
            Fix::new(
                code,
                "newer-release",
                FixKind::PrebuiltWheel,
                format!("Install {p}'s newest release, whose builds add newer GPUs"),
                format!("{p} ships its own compiled GPU code, made for the architectures of its release's day; GPUs released since are in later releases (or in their builds for a newer CUDA, where the project publishes several). Its release notes say which release adds this GPU."),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::Upgrade, PipFlag::NoCacheDir],
                vec![Requirement::Any(p.clone())],
            ))
            .cost(crate::fix::Cost::download())
            .unverified(),
        );
    }
    // FlashAttention 3's kernels (`…/flash-attention/hopper/…`) are Hopper's alone: no build
    // for this GPU adds them, and what works is a path that does not launch them (the
    // package's removal where its importers do without it, above).
    let hopper_only = seen.detail.contains("flash_fwd_launch_template")
        && seen.detail.to_ascii_lowercase().contains("hopper");
    // An extension compiled without this GPU: compile it for this GPU. Only a torch extension
    // compiles through pip against torch; a library loaded by hand (bitsandbytes') has its own
    // build, and `--no-binary` would compile nothing.
    if let Some(p) = ext
        .filter(|p| crate::kb::links_torch(p) != Some(false))
        .filter(|_| !hopper_only)
        .and_then(Name::new)
        && let Some(mut f) = recipes::source_build(code, cx, &p, &[])
    {
        if let Some(c) = cc
            && let Some(s) = recipes::set_env("TORCH_CUDA_ARCH_LIST", &format!("{}.{}+PTX", c.0, c.1))
        {
            f.steps.insert(0, s);
            f.title = format!("{} for compute capability {}.{}", f.title, c.0, c.1);
        } else if cc.is_none() {
            // Without the list, a build detects the GPUs it sees: none in a container build or
            // on another node, the very way a binary comes to lack this GPU.
            f.steps.insert(
                0,
                Step::Manual(format!(
                    "before the commands: {} (nvidia-smi --query-gpu=compute_cap --format=csv), so the build compiles for this GPU whatever GPUs it sees",
                    recipes::set_in_words(cx, "TORCH_CUDA_ARCH_LIST", "<this GPU's compute capability, e.g. 8.6>+PTX")
                )),
            );
        }
        fixes.push(f);
    }
    // ggml (llama.cpp and what embeds it: llama-cpp-python, koboldcpp, ollama) compiles its
    // CUDA kernels for the architectures CMake is given, never through torch.
    let ggml = seen.detail.contains("ggml");
    if ggml {
        // `native`: CMake compiles for the GPUs of the machine that builds.
        let arch = cc.map_or_else(|| "native".to_owned(), |c| format!("{}{}", c.0, c.1));
        fixes.push(
            Fix::new(
                code,
                "ggml-cuda-architectures",
                FixKind::SourceBuild,
                format!("Build ggml's CUDA kernels for this GPU (CMAKE_CUDA_ARCHITECTURES={arch}), or take a release whose build includes it"),
                "ggml compiles its kernels for the architectures its CMake build lists; a build or release without this GPU's has no code for it (its own message lists the ones it has, and the architecture of the code that ran, which is one of them, not the GPU's). `native` builds for the GPUs of the machine that builds; elsewhere, the GPU's compute capability without the dot (nvidia-smi --query-gpu=compute_cap --format=csv). Where the GPU's own architecture is in the list, that kernel does not support it: its feature (flash attention) turned off is the way.",
            )
            .step(Step::Manual(format!(
                "llama.cpp: cmake -B build -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES={arch} && cmake --build build; llama-cpp-python: CMAKE_ARGS=\"-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES={arch}\" pip install --no-cache-dir --force-reinstall llama-cpp-python; an application's prebuilt binary (koboldcpp, ollama): its release notes say which release adds the GPU"
            ))),
        );
    }
    // torch's builds are a fix only where the text shows torch at all: a kernel of a TensorFlow
    // or Caffe op, or of a library nothing ties to torch, is that binary's own build.
    // c10's CUDA check words its errors `CUDA error: …` (with its CUDA_LAUNCH_BLOCKING hint):
    // torch is the runtime there even when the text names no torch.
    let torch_seen = cx.torch_shown(None)
        || d.package.as_deref() == Some("torch")
        || seen.detail.contains("CUDA error: no kernel image");
    // A package's own guard naming its missing kernel (SageAttention's `SM89 kernel is not
    // available`) is about its build alone: torch's builds are beside the point.
    let own_guard = abidoc_knowledge::packages::mentions(seen.detail)
        .iter()
        .any(|m| m.package.name != "torch")
        || seen.detail.contains(" kernel is not available");
    if torch_seen
        && !own_guard
        && let Some(f) = torch_build_fix(cx, cc, torch.as_deref(), seen)
    {
        fixes.push(f);
    }
    if let Some(c) = cc
        && !too_new(cc, seen)
        && d.package.as_deref() == Some("torch")
    {
        let dropped = gpu::removed_in(c)
            .map(|r| format!(" CUDA {}.{} and later no longer compile for {}: build with an older toolkit.", r.0, r.1, sm(c)))
            .unwrap_or_default();
        fixes.push(
            Fix::new(
                code,
                "source-build-old-gpu",
                FixKind::SourceBuild,
                format!("Build torch from source for {}, or run on the CPU", sm(c)),
                format!("PyTorch's published builds no longer carry code for this GPU; a source build with TORCH_CUDA_ARCH_LIST={}.{} does.{dropped}", c.0, c.1),
            )
            .step(Step::Manual(format!(
                "build torch from source (https://github.com/pytorch/pytorch#from-source) with TORCH_CUDA_ARCH_LIST={}.{}",
                c.0, c.1
            ))),
        );
    }
    // TensorFlow's own check names the binary: TensorFlow, whose releases carry kernels for the
    // GPUs of their day (and PTX it JIT-compiles, slowly or not at all, for newer ones).
    if seen.detail.contains("TensorFlow was not built with CUDA kernel binaries") {
        fixes.push(
            Fix::in_words(
                code,
                "tensorflow-for-gpu",
                "Install a TensorFlow release built with kernels for this GPU",
                "TensorFlow's wheels carry kernels for the GPUs of their release; for a newer GPU it JIT-compiles PTX at start (many minutes) or fails. A later release (or tf-nightly) built with this capability runs it natively.",
                format!(
                    "pip install --upgrade tensorflow (a release whose build lists {}), then check `tf.config.list_physical_devices('GPU')`",
                    cc.map_or_else(|| "this GPU's compute capability".to_owned(), |c| format!("compute capability {}.{}", c.0, c.1))
                ),
            ),
        );
    }
    if !ggml
        && (fixes.is_empty() || ext.is_none() && d.package.is_none())
        && !seen.detail.contains("TensorFlow was not built with CUDA kernel binaries")
    {
        // With no package named, torch itself is checked first (below); this is the other case.
        let bare = d.package.is_none();
        let (title, reason) = if bare && !torch_seen {
            (
                "Rebuild the compiled extension that launched the kernel for this GPU",
                "A binary built for other GPUs (a wheel, or a setup.py or Makefile that lists fixed architectures) has no code for this one. Rebuild it from source for the GPU's compute capability (nvidia-smi --query-gpu=compute_cap --format=csv; TORCH_CUDA_ARCH_LIST for torch extensions, the -gencode/-arch flags of its own build otherwise); `abidoc explain LIB` lists the architectures any library carries.",
            )
        } else if bare {
            (
                "Otherwise, rebuild the compiled extension that launched the kernel for this GPU",
                "When torch's own list has the GPU, the binary without code for it is a compiled extension (a wheel built for other GPUs, or a setup.py that lists fixed architectures). Rebuild it from source with TORCH_CUDA_ARCH_LIST set to the GPU's capability (`torch.cuda.get_device_capability()`); `abidoc explain LIB` lists the architectures any library carries.",
            )
        } else {
            (
                "Find which binary lacks this GPU's code, and rebuild or reinstall it for the GPU",
                "`python -c \"import torch; print(torch.cuda.get_arch_list(), torch.cuda.get_device_capability())\"` shows torch's side; `abidoc explain LIB` lists any library's architectures. An extension is rebuilt with the GPU's capability in TORCH_CUDA_ARCH_LIST.",
            )
        };
        // Nothing says which binary, or only torch shows: torch without this GPU (a new GPU
        // under an older torch, the most common case threads confirm) is checked and fixed
        // first, then an extension.
        if (bare || d.package.as_deref() == Some("torch"))
            && torch_seen
            && cc.is_none()
            && let Some(newest) = gpu::tables().torch_builds.last()
            && let Some(variant) = newest
                .variants
                .iter()
                .filter(|v| gpu::variant_cuda(v).is_some())
                .max_by_key(|v| gpu::variant_cuda(v))
        {
            fixes.push(
                Fix::new(
                    code,
                    "torch-for-gpu",
                    FixKind::AlignTorch,
                    format!("If torch itself lacks this GPU, install torch's build for the newest CUDA ({variant})"),
                    "A GPU newer than the installed torch's build is the usual cause: torch.cuda.get_arch_list() then lacks the GPU's sm_XY (torch.cuda.get_device_capability()). PyTorch's index for the newest CUDA serves builds for the newest GPUs; torchvision and torchaudio move with torch.",
                )
                .step(Step::Manual(
                    "python -c \"import torch; print(torch.__version__, torch.cuda.get_arch_list(), torch.cuda.get_device_capability())\"".into(),
                ))
                .step(Step::Manual(format!(
                    "if the capability is missing from the list: pip install --force-reinstall torch torchvision torchaudio --index-url {}",
                    gpu::index_url(variant)
                )))
                .unverified(),
            );
        }
        let rebuild = Fix::new(
            code,
            "arch-list",
            if bare && !torch_seen {
                FixKind::SourceBuild
            } else {
                FixKind::Advice
            },
            title,
            reason,
        )
        .step(Step::Manual(
            "abidoc explain path/to/the_extension.so   # lists its sm_XX cubins and PTX".into(),
        ))
        .step(Step::Manual(format!(
            "TORCH_CUDA_ARCH_LIST=\"{}+PTX\" pip install --no-build-isolation --no-cache-dir --force-reinstall --no-binary <package> <package>",
            // The GPU's capability where the text gives it.
            cc.map_or_else(|| "<major>.<minor>".to_owned(), |c| format!("{}.{}", c.0, c.1))
        )))
        .unverified();
        // Nothing but this rebuild applies where torch is not in the picture: a source build
        // complete but for the package (and the GPU's capability, where the text gives none).
        fixes.push(if bare && !torch_seen {
            rebuild.filled_in_with(if cc.is_some() {
                "the package that owns the library"
            } else {
                "the package that owns the library and the GPU's compute capability"
            })
        } else {
            rebuild
        });
    }
    crate::fix::rank(fixes)
}

/// The torch build whose CUDA compiles for the GPU, from PyTorch's index for that build.
fn torch_build_fix(
    cx: &Cx<'_>,
    cc: Option<(u32, u32)>,
    torch: Option<&str>,
    seen: &Seen<'_>,
) -> Option<Fix> {
    let code = Code::GpuArchMissing;
    let c = cc?;
    let min = gpu::min_cuda_for(c)?;
    let too_new = too_new(cc, seen);
    // The same torch release in the right build when it has one; else the first release line
    // that has one (a GPU newer than the installed torch), or advice (a GPU older than every
    // current build).
    let (version, variant) = match torch.map(|t| (t, gpu::variant_for_capability(t, c))) {
        Some((t, Some(v))) => (Some(recipes::short_torch(t).to_owned()), v),
        _ if too_new => {
            let (line, v) = gpu::first_torch_for_capability(c)?;
            let newer = torch.is_none_or(|t| {
                abidoc_knowledge::Version::parse(t)
                    .zip(abidoc_knowledge::Version::parse(&line))
                    .is_some_and(|(a, b)| a.major_minor() < b.major_minor())
            });
            if torch.is_some() && !newer {
                return None;
            }
            // The newest line's matching build: a plain `torch` from that index.
            let latest = gpu::tables().torch_builds.last()?;
            let v = latest
                .variants
                .iter()
                .find(|x| gpu::variant_cuda(x).is_some_and(|cu| cu >= min))
                .cloned()
                .unwrap_or(v);
            (None, v)
        }
        _ => return None,
    };
    let index = IndexUrl::pytorch(&variant)?;
    let cuda = gpu::variant_cuda(&variant).map(cuda_str).unwrap_or_default();
    let (req, what) = match &version {
        Some(v) => (
            Requirement::Exact(Name::new("torch")?, Version::new(&format!("{v}+{variant}"))?),
            format!("torch {v}"),
        ),
        None => (Requirement::Any(Name::new("torch")?), "torch".to_owned()),
    };
    let mut also = vec![format!("torch's CUDA {cuda} libraries (several GB)")];
    also.push("torchvision, torchaudio and compiled extensions must match the new torch build".into());
    Some(
        Fix::new(
            code,
            "torch-build",
            FixKind::AlignTorch,
            format!("Install {what} built for CUDA {cuda} ({variant}), which has code for {}", sm(c)),
            format!(
                "PyPI serves one CUDA build of torch; PyTorch's index {index} serves the {variant} build, whose CUDA {cuda} compiles for compute capability {}.{}.",
                c.0, c.1
            ),
        )
        .step(recipes::pip_install(
            cx,
            vec![PipFlag::ForceReinstall, PipFlag::IndexUrl(index)],
            vec![req],
        ))
        .cost(Cost {
            downloads: true,
            compiles: None,
            also,
        }),
    )
}

/// A CUDA compiler that does not know the architecture the build asks for (`nvcc fatal :
/// Unsupported gpu architecture 'compute_89'`, ptxas' `Value 'sm_121a' is not defined for option
/// 'gpu-name'`): a toolkit too old for a new GPU, or too new for one its release dropped, which
/// the toolkit's CUDA version (when the text states it) tells apart. Triton compiles with the
/// ptxas it bundles: a newer toolkit's ptxas through `TRITON_PTXAS_PATH`. Otherwise the toolkit
/// that knows the architecture first, then the build limited to architectures this one knows.
pub(crate) fn toolkit_refuses(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    arch: &str,
    tool: Option<&str>,
    detail: &str,
) -> Diagnostic {
    let code = Code::GpuArchMissing;
    let mut d = blank(code, source);
    let triton = tool.is_some_and(|t| t.contains("triton"))
        || cx.scene.mentions.iter().any(|(_, n)| n == "triton");
    d.package = if triton {
        Some("triton".into())
    } else {
        cx.package_being_built(None)
    };
    let compiler = tool
        .map(crate::incidents::basename)
        .filter(|t| !t.is_empty())
        .unwrap_or(if detail.contains("ptxas") { "ptxas" } else { "nvcc" });
    // `Unsupported gpu architecture 'compute_'`: the build passed an empty architecture (its
    // list came out empty: no GPU detected at build time, a CMake variable unset); no toolkit
    // knows that, and naming the architecture fixes the build.
    if arch.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '_').is_empty() {
        d.message = format!(
            "the build asked {compiler} for an empty GPU architecture ({arch}): its architecture list came out empty (no GPU seen while building, or a CMake variable unset)"
        );
        d.evidence.push(format!("the text says: {}", detail.trim()));
        d.fixes = vec![
            Fix::new(
                code,
                "name-the-arch",
                FixKind::SourceBuild,
                "Name this GPU's architecture for the build, then build again",
                "torch's cpp_extension reads TORCH_CUDA_ARCH_LIST, CMake builds CMAKE_CUDA_ARCHITECTURES; set, they replace the detection that came out empty.",
            )
            .step(Step::Manual(format!(
                "{} (a CMake build: CMAKE_CUDA_ARCHITECTURES=86), then run the build again",
                recipes::set_in_words(cx, "TORCH_CUDA_ARCH_LIST", "<compute capability, e.g. 8.6>")
            )))
            .filled_in_with("this GPU's compute capability (nvidia-smi --query-gpu=compute_cap --format=csv)"),
        ];
        return d;
    }
    let cc = gpu::parse_capability(arch.trim_end_matches("+PTX"));
    // torch's cpp_extension turns TORCH_CUDA_ARCH_LIST into nvcc flags from a table fixed in
    // each torch release: an entry newer than the torch is refused before nvcc runs.
    let cpp_extension = tool.is_some_and(|t| t.starts_with("torch"));
    let stated = cx
        .scene
        .version_of("cuda")
        .and_then(abidoc_knowledge::version::Version::parse)
        .map(|v| v.major_minor());
    let (min, removed) = cc.map_or((None, None), |c| (gpu::min_cuda_for(c), gpu::removed_in(c)));
    let dropped = match (stated, removed, min) {
        (Some(s), Some(r), _) => s >= r,
        // Without the toolkit's version, an architecture the newest toolkits dropped and that
        // every toolkit since CUDA 10 (2018) knows is the dropped case: Kepler under CUDA 12,
        // Maxwell, Pascal and Volta under CUDA 13 (`compute_70` refused by an NGC 25.08 image).
        (None, Some(_), Some(m)) => m <= (10, 0),
        _ => false,
    };
    d.evidence.push(format!("the text says: {}", detail.trim()));
    if let Some(t) = tool {
        d.evidence.push(format!("the compiler that refused: {t}"));
    }
    d.message = match (dropped, min) {
        _ if cpp_extension => format!(
            "this torch's build helpers (cpp_extension, its CMake files) do not know the architecture {arch} asked for in TORCH_CUDA_ARCH_LIST or detected on this machine: {}",
            detail.trim().trim_end_matches('`')
        ),
        (true, _) => format!(
            "the CUDA toolkit's {compiler} no longer compiles for {arch}{}: the build asks for an architecture newer toolkits dropped",
            removed.map_or(String::new(), |r| format!(" (removed in CUDA {})", cuda_str(r)))
        ),
        (false, Some(m)) => {
            d.evidence.push(format!(
                "{arch} needs CUDA {} or newer{}",
                cuda_str(m),
                removed.map_or(String::new(), |r| format!(
                    " (and older than {}, which dropped it)",
                    cuda_str(r)
                ))
            ));
            format!(
                "{compiler} is older than CUDA {}, the first that compiles for {arch}: {}",
                cuda_str(m),
                detail.trim()
            )
        }
        (false, None) => format!(
            "{compiler} does not know the GPU architecture {arch}: {}",
            detail.trim()
        ),
    };
    let needs = min.map_or_else(
        || "a newer CUDA".to_owned(),
        |m| format!("CUDA {} or newer", cuda_str(m)),
    );
    let mut fixes = Vec::new();
    // XLA's own LLVM (TensorFlow's, jaxlib's): only a release of the framework made after the
    // GPU emits PTX for it. Whose LLVM: the line's own words (XLA's source path), else Triton
    // where the text shows Triton, else the framework the text names.
    let mentioned = |names: &[&str]| {
        cx.scene
            .mentions
            .iter()
            .map(|(_, n)| n.as_str())
            .find(|n| names.contains(n))
    };
    let xla = match tool {
        Some(t) if t.ends_with("(XLA)") => {
            Some(mentioned(&["jaxlib", "jax"]).map_or("tensorflow", |_| "jaxlib"))
        }
        Some(t) if t.starts_with("LLVM's NVPTX backend (bundled") => {
            if mentioned(&["triton"]).is_some() {
                None
            } else {
                mentioned(&["tensorflow", "tf-nightly", "jaxlib", "jax"])
            }
        }
        _ => None,
    };
    if let Some(framework) = xla {
        let framework = if framework == "jax" { "jaxlib" } else { framework };
        d.package = Some(framework.to_owned());
        d.message = format!(
            "XLA's compiler in {framework} (the LLVM it bundles) predates {arch}: this {framework} cannot compile kernels for this GPU"
        );
        fixes.push(
            Fix::in_words(
                code,
                "framework-for-gpu",
                format!("Install a {framework} release made after {arch} came out, for {needs}"),
                format!("XLA emits PTX with the LLVM built into {framework}; a release whose LLVM knows {arch} (built for {needs}) compiles for this GPU."),
                format!(
                    "pip install --upgrade {} (a release built for {needs}), and check the GPU is listed afterwards",
                    if framework == "jaxlib" { "\"jax[cuda12]\"" } else { framework }
                ),
            ),
        );
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
    // Triton's own LLVM (not a toolkit): only a Triton release made after the GPU compiles for
    // it, and torch pins the Triton it was tested with.
    if tool.is_some_and(|t| t.starts_with("LLVM")) {
        d.package = Some("triton".into());
        d.message = format!(
            "Triton's compiler (the LLVM bundled in its wheel) predates {arch}: this Triton cannot compile kernels for this GPU"
        );
        fixes.push(recipes::triton_for_torch(
            code,
            cx,
            "a second, older Triton beside it (`pytorch-triton` from a nightly, a source build) is the one whose LLVM predates the GPU.",
        ));
        fixes.push(
            Fix::new(
                code,
                "newer-torch",
                FixKind::AlignTorch,
                format!("Or install a torch release whose Triton knows {arch}"),
                format!("{arch} came with CUDA {}; torch builds for that CUDA pin a Triton that compiles for it.", min.map_or_else(|| "a newer release".to_owned(), cuda_str)),
            )
            .step(Step::Manual(format!("install a torch build for {needs} (and the companions built for it)")))
            .unverified(),
        );
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
    if cpp_extension {
        fixes.push(
            Fix::in_words(
                code,
                "limit-archs",
                format!("Build without {arch}: set TORCH_CUDA_ARCH_LIST to architectures this torch knows"),
                "cpp_extension reads TORCH_CUDA_ARCH_LIST (or the GPUs it sees) and refuses names its torch release predates; a list of older architectures (with +PTX on the newest, which the driver compiles for newer GPUs) builds.",
                format!(
                    "{} (architectures this torch lists), then run the build again",
                    recipes::set_in_words(cx, "TORCH_CUDA_ARCH_LIST", "8.0;8.6+PTX")
                ),
            ),
        );
        fixes.push(
            Fix::new(
                code,
                "newer-torch",
                FixKind::AlignTorch,
                format!("Or build against a torch release that knows {arch}"),
                "Newer torch releases add each GPU generation to cpp_extension's table (9.0 since torch 1.13+, 10.0/12.0 with CUDA 12.8 builds).",
            )
            .step(Step::Manual("install a newer torch (and the companions built for it), then build again".into()))
            .unverified(),
        );
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
    if triton && !dropped {
        // Triton's wheel bundles a ptxas of the CUDA it was released with; the toolkit on this
        // machine may know the GPU already.
        // A toolkit on this machine whose directory names a CUDA that knows the architecture
        // (`/usr/local/cuda-12.8`); ptxas sits beside the nvcc that made it a toolkit.
        let ptxas = min.and_then(|m| {
            cx.world
                .cuda_toolkits()
                .into_iter()
                .rev()
                .find(|h| {
                    crate::incidents::basename(h)
                        .strip_prefix("cuda-")
                        .and_then(abidoc_knowledge::version::Version::parse)
                        .is_some_and(|v| v.major_minor() >= m)
                })
                .map(|h| format!("{h}/bin/ptxas"))
        });
        let mut f = Fix::new(
            code,
            "triton-ptxas",
            FixKind::Configure,
            format!("Point Triton at the ptxas of a CUDA toolkit that knows {arch} ({needs})"),
            "Triton compiles with the ptxas bundled in its wheel, older than this GPU; TRITON_PTXAS_PATH makes it use a toolkit's ptxas instead (a newer Triton release bundles a newer one).",
        );
        f = match ptxas.as_deref().and_then(|p| recipes::set_env("TRITON_PTXAS_PATH", p)) {
            Some(step) => f.step(step),
            None => f
                .step(Step::Manual(format!(
                    "install a CUDA toolkit with {needs}, then export TRITON_PTXAS_PATH=<its directory>/bin/ptxas (e.g. /usr/local/cuda/bin/ptxas)"
                )))
                .unverified(),
        };
        fixes.push(f);
    }
    if !dropped {
        fixes.push(
            Fix::in_words(
                code,
                "newer-toolkit",
                format!("Install a CUDA toolkit with {needs} (at least torch's CUDA) and set CUDA_HOME to it"),
                "A compiler that does not know the GPU architecture (compute_86 needs CUDA 11.1, compute_89/90 CUDA 11.8, sm_100/120 CUDA 12.8) is older than the GPU; the build uses the nvcc on CUDA_HOME or PATH.",
                "install the CUDA toolkit of torch.version.cuda or newer (NVIDIA's installer or conda's cuda-nvcc), then export CUDA_HOME=<its directory>",
            )
            .unverified(),
        );
    }
    if !triton {
        // flash-attn reads its own list; every cpp_extension build reads TORCH_CUDA_ARCH_LIST.
        let var = if d.package.as_deref() == Some("flash-attn") {
            "FLASH_ATTN_CUDA_ARCHS=<the GPU's capability without the dot, e.g. 87>"
        } else {
            "TORCH_CUDA_ARCH_LIST=<the GPU's capability, e.g. 8.6>"
        };
        fixes.push(
            Fix::in_words(
                code,
                "limit-archs",
                format!("Build only for the GPUs in use, leaving out {arch}"),
                "The build compiles for a fixed list of architectures unless told otherwise; naming this machine's GPU (`torch.cuda.get_device_capability()`) leaves out the one this compiler cannot compile.",
                format!("export {var}, then run the build again"),
            ),
        );
    }
    if dropped {
        fixes.push(
            Fix::in_words(
                code,
                "older-toolkit",
                "For a GPU of that architecture, build with a toolkit that still compiles for it",
                "A CUDA toolkit before the release that dropped the architecture, with a torch built for that CUDA.",
                "install the CUDA toolkit of a torch build that still supports this GPU, then export CUDA_HOME=<its directory>",
            )
            .unverified(),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// torch.compile's GPU backend (Inductor generating Triton kernels) on a GPU older than Triton
/// supports (`Triton only supports devices of CUDA Capability >= 7.0`): torch itself runs on it,
/// so the model runs without compiling, or compiles with a backend that does not use Triton.
/// ROCm: the AMD GPU's LLVM target (`gfx1032`) has no code object in torch's ROCm build
/// (`hipErrorNoBinaryForGpu`, `HIP error: invalid device function`). ROCm's builds carry a few
/// targets per family; a GPU of the family runs them when the runtime presents it as that
/// target (`HSA_OVERRIDE_GFX_VERSION`, per family in `gpu.toml`), else a build for its target.
/// torch's NVRTC (the runtime compiler of the CUDA torch was built with) refuses the GPU's
/// architecture: the GPU is newer than that CUDA (an RTX 40xx on a CUDA 11.3 torch). A torch
/// built for a CUDA that knows it: the GPU's own minimum when the text names its capability,
/// else the newest release line's newest CUDA build.
fn nvrtc_arch(cx: &Cx<'_>, source: Option<SourceRef>, seen: &Seen<'_>) -> Diagnostic {
    let code = Code::GpuArchMissing;
    // A text that never shows torch, beside another package (OpenMM, CuPy compiling their
    // kernels with NVRTC): that package's CUDA, which may also be newer than an old GPU.
    // (torch's own raises it bare: `RuntimeError: nvrtc: error: …`, which stays torch's.)
    // Only packages that compile their kernels with NVRTC at run time.
    let nvrtc_user = |p: &&str| {
        p.starts_with("cupy")
            || matches!(*p, "openmm" | "numba" | "jax" | "jaxlib" | "warp-lang" | "taichi" | "cuda-python" | "pycuda")
    };
    if !cx.torch_shown(None)
        && cx.torch().is_none()
        && let Some(pkg) = cx.near.filter(nvrtc_user).or_else(|| {
            cx.scene
                .mentions
                .iter()
                .map(|(_, n)| n.as_str())
                .find(nvrtc_user)
        })
    {
        return other_nvrtc(source, seen, pkg);
    }
    let mut d = blank(code, source);
    d.package = Some("torch".into());
    d.evidence.push(format!("the text says: {}", seen.detail.trim()));
    let torch = cx.torch();
    d.message = format!(
        "torch's runtime compiler (NVRTC, of the CUDA torch{} was built with) does not know this GPU's architecture: the GPU is newer than that CUDA",
        torch.as_deref().map(|t| format!(" {t}")).unwrap_or_default()
    );
    d.explanation = Some("torch compiles some kernels at run time with NVRTC from its own CUDA (fused kernels, TorchScript fusers, torch.compile's helpers); a CUDA older than the GPU has no architecture name for it. Ada (RTX 40xx, sm_89) needs CUDA 11.8, Hopper 11.8, Blackwell (RTX 50xx, sm_120) 12.8: a torch built for such a CUDA knows it.".into());
    let cc = seen.capability.and_then(gpu::parse_capability);
    let mut fixes: Vec<Fix> = cc
        .and_then(|c| torch_build_fix(cx, Some(c), torch.as_deref(), seen))
        .into_iter()
        .collect();
    if fixes.is_empty()
        && let Some(row) = gpu::tables().torch_builds.last()
        && let Some(var) = row
            .variants
            .iter()
            .max_by_key(|v| gpu::variant_cuda(v).unwrap_or((0, 0)))
        && let Some(step) = recipes::torch_build_step(cx, None, var)
    {
        let cuda = gpu::variant_cuda(var).map(cuda_str).unwrap_or_default();
        fixes.push(
            Fix::new(
                code,
                "torch-build",
                FixKind::AlignTorch,
                format!("Install torch built for CUDA {cuda} ({var}), whose NVRTC knows current GPUs"),
                format!("PyTorch's {var} index serves torch {} built with CUDA {cuda}; torchvision and torchaudio, where installed, come from the same index.", row.torch),
            )
            .step(step)
            .cost(Cost {
                downloads: true,
                compiles: None,
                also: vec![
                    format!("torch's CUDA {cuda} libraries (several GB)"),
                    "compiled extensions must match the new torch build".into(),
                ],
            }),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// Another package's NVRTC refusing the GPU's architecture: the CUDA it compiles with is newer
/// than the GPU (CUDA 11 and 12 dropped Kepler's sm_30/35/37, CUDA 12 Maxwell's offline
/// support is deprecated) or older. Its build for a CUDA that knows this GPU, in words: which
/// CUDA is the person's to read off the GPU.
fn other_nvrtc(source: Option<SourceRef>, seen: &Seen<'_>, pkg: &str) -> Diagnostic {
    let code = Code::GpuArchMissing;
    let mut d = blank(code, source);
    d.package = Some(pkg.to_owned());
    d.evidence.push(format!("the text says: {}", seen.detail.trim()));
    d.message = format!(
        "{pkg}'s runtime compiler (NVRTC, of the CUDA {pkg} uses) refuses this GPU's architecture: that CUDA does not know the GPU (a GPU newer than it), or no longer does (CUDA 11 and 12 dropped Kepler GPUs)"
    );
    d.explanation = Some("Packages that generate their GPU kernels at run time (OpenMM, CuPy, numba) compile them with NVRTC for the GPU's architecture; the CUDA release decides which architectures it can name. A GPU newer than that CUDA needs a newer one; a Kepler GPU (sm_30–37) needs CUDA 10.2 or 11.x.".into());
    d.fixes = crate::fix::rank(vec![
        Fix::in_words(
            code,
            "package-cuda-for-gpu",
            format!("Install {pkg}'s build for a CUDA that knows this GPU"),
            "`nvidia-smi --query-gpu=name,compute_cap --format=csv` names the GPU's architecture; CUDA 11.8 and later know Ada and Hopper, 12.8 Blackwell; Kepler runs up to CUDA 11.x (10.2 for sm_30).",
            {
                // conda-forge names CuPy's one package `cupy`; PyPI has one per CUDA major.
                let conda = if pkg.starts_with("cupy") { "cupy" } else { pkg };
                format!(
                    "reinstall {pkg} with the CUDA runtime of a release that supports this GPU (conda: conda install -c conda-forge {conda} cuda-version=<that CUDA>; pip: its build for that CUDA{})",
                    if pkg.starts_with("cupy") { ", the cupy-cudaXXx wheel of that CUDA major" } else { "" }
                )
            },
        ),
    ]);
    d
}

fn rocm(source: Option<SourceRef>, seen: &Seen<'_>) -> Diagnostic {
    let code = Code::GpuArchMissing;
    let mut d = blank(code, source);
    d.package = Some("torch".into());
    let gfx = seen.detail.find("gfx").and_then(|i| {
        let r = &seen.detail[i..];
        let n = r.bytes().take_while(u8::is_ascii_alphanumeric).count();
        (n > 3).then(|| r[..n].to_ascii_lowercase())
    });
    let over = gfx.as_deref().and_then(gpu::rocm_override);
    d.message = format!(
        "the AMD GPU{} has no code object in torch's ROCm build (or an extension's): ROCm builds carry a few GPU targets per family",
        gfx.as_deref().map(|g| format!(" ({g})")).unwrap_or_default()
    );
    d.evidence.push(format!("the text says: {}", seen.detail.trim()));
    let mut fixes = Vec::new();
    match over {
        Some(o) => {
            if let Some(step) = recipes::set_env("HSA_OVERRIDE_GFX_VERSION", &o.version) {
                fixes.push(
                    Fix::new(
                        code,
                        "hsa-override",
                        FixKind::Configure,
                        format!("Run it as the {} target the build has (HSA_OVERRIDE_GFX_VERSION={})", o.family, o.version),
                        format!("ROCm's builds ship one code object per {} family target; this GPU runs that target's code when the runtime presents it so. Nothing is installed; set it before Python starts.", o.family),
                    )
                    .step(step),
                );
            }
        }
        None => fixes.push(
            Fix::in_words(
                code,
                "hsa-override",
                "Present the GPU as the target of its family that the build has (HSA_OVERRIDE_GFX_VERSION)",
                "`rocminfo | grep gfx` names the GPU's target. Radeon RX 6000 (gfx1031–gfx1036) run gfx1030's code, RX 7600–7800 (gfx1101, gfx1102) gfx1100's; older or unlisted targets need a build for them.",
                "export HSA_OVERRIDE_GFX_VERSION=10.3.0   # RX 6000 (RDNA2); 11.0.0 for RX 7600–7800 (RDNA3)",
            ),
        ),
    }
    fixes.push(
        Fix::new(
            code,
            "rocm-build-for-target",
            FixKind::SourceBuild,
            "Or install a torch ROCm build that lists this GPU's target",
            "PyTorch's ROCm wheels (https://download.pytorch.org/whl/rocmX.Y) and AMD's own list the targets they carry; a newer ROCm often adds consumer GPUs. A build from source with PYTORCH_ROCM_ARCH=<target> covers any.",
        )
        .step(Step::Manual(
            "pick the newest ROCm build of torch whose release notes list your gfx target, install it from its index, and unset HSA_OVERRIDE_GFX_VERSION".into(),
        ))
        .unverified(),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

fn triton_too_old(source: Option<SourceRef>, seen: &Seen<'_>) -> Diagnostic {
    let code = Code::GpuArchMissing;
    let mut d = blank(code, source);
    d.package = Some("torch".into());
    let gpu = seen.gpu.unwrap_or("this GPU");
    let cap = seen.capability.map(|c| format!(" (compute capability {c})")).unwrap_or_default();
    let min = seen.range.map(|(lo, _)| format!(" (Triton needs {lo} or newer)")).unwrap_or_default();
    d.message = format!(
        "{gpu}{cap} is too old for Triton, the compiler torch.compile uses for GPU kernels{min}: torch runs on it, torch.compile does not"
    );
    d.evidence.push(format!("the text says: {}", seen.detail.trim()));
    let mut fixes = Vec::new();
    if let Some(step) = recipes::set_env("TORCHDYNAMO_DISABLE", "1") {
        fixes.push(
            Fix::new(
                code,
                "no-compile",
                FixKind::Configure,
                "Run without torch.compile on this GPU (TORCHDYNAMO_DISABLE=1)",
                "With TorchDynamo disabled, torch.compile returns the model unchanged and it runs eagerly on this GPU; nothing is installed. Tools that call torch.compile themselves often have their own switch as well.",
            )
            .step(step),
        );
    }
    fixes.push(
        Fix::in_words(
            code,
            "non-triton-backend",
            "Or compile with a backend that does not generate Triton kernels",
            "torch.compile(model, backend=\"aot_eager\") (or \"cudagraphs\") traces the model without Inductor's Triton code generation.",
            "pass backend=\"aot_eager\" where the code calls torch.compile",
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// FlashAttention 2's kernels exist for Ampere (sm_80) and newer only: on an older GPU no build
/// of it runs, so the model attends without it (PyTorch's scaled_dot_product_attention), or,
/// on a Turing GPU, with FlashAttention 1.x, which still compiled for sm_75.
fn flash_attn_too_old(source: Option<SourceRef>, seen: &Seen<'_>) -> Diagnostic {
    let code = Code::GpuArchMissing;
    let mut d = blank(code, source);
    d.package = Some("flash-attn".into());
    d.message = "FlashAttention 2 has kernels only for Ampere (sm_80) and newer GPUs; this GPU is older, so no flash-attn 2 build runs on it".into();
    d.evidence.push(format!("the text says: {}", seen.detail.trim()));
    d.fixes = crate::fix::rank(vec![
        Fix::in_words(
            code,
            "sdpa",
            "Run the model with PyTorch's own attention instead of FlashAttention 2",
            "torch.nn.functional.scaled_dot_product_attention picks a memory-efficient kernel that runs on older GPUs; transformers takes attn_implementation=\"sdpa\" (or \"eager\") where it took \"flash_attention_2\".",
            "load the model with attn_implementation=\"sdpa\" (or drop use_flash_attention_2=True)",
        ),
        Fix::in_words(
            code,
            "flash-attn-1",
            "On a Turing GPU (sm_75: T4, RTX 20xx), FlashAttention 1.x still runs",
            "flash-attn 1.x compiled kernels for Turing and Ampere; its API differs from 2.x, so only code written for 1.x uses it.",
            "pip install \"flash-attn<2\" --no-build-isolation (compiles; needs nvcc)",
        )
        .unverified(),
    ]);
    d
}

/// bfloat16 needs compute capability 8.0 (Ampere): on a Volta or Turing GPU (V100, T4) the
/// model runs in float16 (or float32) instead. Nothing to install.
fn bf16_unsupported(cx: &Cx<'_>, source: Option<SourceRef>, seen: &Seen<'_>) -> Diagnostic {
    let code = Code::GpuArchMissing;
    let mut d = blank(code, source);
    d.package = cx
        .near
        .filter(|n| *n != "torch")
        .map(str::to_owned)
        .or_else(|| Some("vllm".into()));
    let gpu = seen.gpu.unwrap_or("this GPU");
    let cap = seen
        .capability
        .map(|c| format!(" (compute capability {c})"))
        .unwrap_or_default();
    d.message = format!(
        "{gpu}{cap} has no bfloat16 arithmetic, which needs compute capability 8.0 (Ampere): the model must run in float16 or float32 on it"
    );
    d.evidence.push(format!("the text says: {}", seen.detail.trim()));
    d.fixes = crate::fix::rank(vec![
        Fix::in_words(
            code,
            "dtype-half",
            "Run the model in float16 on this GPU (--dtype half)",
            "vLLM takes --dtype half on its command line (LLM(model=..., dtype=\"half\") in Python); transformers takes torch_dtype=torch.float16. float32 (--dtype float) keeps full precision at twice the memory.",
            "pass --dtype half (or dtype=\"half\" / torch_dtype=torch.float16) where the model is loaded",
        ),
    ]);
    d
}
