//! `driver-too-old`: the NVIDIA driver is older than the CUDA a binary needs.
//!
//! Produced by torch's `The NVIDIA driver on your system is too old (found version 11040)`,
//! `CUDA driver version is insufficient for CUDA runtime version` (`cudaErrorInsufficientDriver`),
//! `the provided PTX was compiled with an unsupported toolchain`, and undefined CUDA driver API
//! symbols (`undefined symbol: cuGreenCtxCreate`: the driver's `libcuda` predates the function —
//! the driver's, not torch's). The driver's CUDA comes from the text (`found version 11040` is
//! CUDA 11.4) or, with the environment, from `/proc/driver/nvidia/version`; the minimum driver
//! of each CUDA release and PyTorch's builds are data (`gpu.toml`). Fixes: the same torch built
//! for a CUDA this driver runs (its exact `--index-url`), or a newer driver (root; advice).

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Cost, Fix, FixKind, IndexUrl, Name, PipFlag, Requirement, Step, Version};
use abidoc_knowledge::gpu;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`The NVIDIA driver on your system is too old`, `CUDA driver version is insufficient for CUDA runtime version`, undefined driver API symbols (`cuGreenCtxCreate`): the driver is older than the CUDA a binary needs. Also the driver at odds with itself: CUDA's error 803, NVML's `Driver/library version mismatch`, `kernel version X does not match DSO version Y` (its user-space libraries and its loaded kernel module of two releases: a reboot after an update, or an image's forward-compat libcuda off the path).",
    meaning: "Each CUDA release needs a minimum NVIDIA driver (CUDA 12.8 needs 570.26 on Linux; from CUDA 11 on, any release of a major also runs on its first driver, 525.60.13 for 12.x, through minor version compatibility, except PTX JIT). torch wheels bundle their CUDA runtime, so a torch built for a newer CUDA than the driver supports fails at its first CUDA call; a library calling a driver API function newer than the driver fails to load (`undefined symbol: cu…`). Triton compiles its kernels at run time with the ptxas its wheel carries (CUDA 12 from Triton 2.2): a driver older than that refuses them (`Triton Error [CUDA]: device kernel image is invalid`), whatever the GPU; TRITON_PTXAS_PATH names a ptxas of the driver's CUDA instead. The driver's CUDA is read from the text (`found version 11040` is CUDA 11.4) or from `/proc/driver/nvidia/version`. The runtime's error 35 by number (`CUDA initialization failure with error: 35`, TensorRT) is cudaErrorInsufficientDriver.",
    fixes: "1. The same torch release built for a CUDA this driver runs, from PyTorch's index for that build (`--index-url https://download.pytorch.org/whl/cu118`): user level, no root. 2. A newer NVIDIA driver, at least the minimum of torch's CUDA (needs root; advice, since driver installs depend on the system). With the text alone and no driver version, the general form, and (last) the check that a driver is visible at all: the CUDA runtime reports an insufficient driver when it loads none (a container started without `--gpus`/`--nv`).",
    ..CodeDoc::BASE
};

fn cuda_str(c: (u64, u64)) -> String {
    format!("{}.{}", c.0, c.1)
}

/// The CUDA torch was built with: its `+cuXYZ` label, else the default of its release.
fn torch_cuda(torch: &str) -> Option<(u64, u64)> {
    let v = abidoc_knowledge::Version::parse(torch)?;
    v.local_cuda().or_else(|| {
        abidoc_knowledge::torch_default_cuda(v.public())
            .and_then(abidoc_knowledge::Version::parse)
            .map(|c| c.major_minor())
    })
}

/// What the driver supports, from the text's driver API version or the loaded kernel module.
fn driver_facts(cx: &Cx<'_>, found: Option<&str>, d: &mut Diagnostic) -> Option<(u64, u64)> {
    let from_text = found.and_then(gpu::cuda_of_driver_api_version);
    if let (Some(f), Some(c)) = (found, from_text) {
        d.evidence.push(format!(
            "the driver reports driver API version {f}: it supports CUDA up to {}",
            cuda_str(c)
        ));
    }
    let from_disk = cx.world.driver_version().and_then(|v| {
        let c = gpu::cuda_of_driver(&v);
        d.evidence.push(match c {
            Some(c) => format!(
                "/proc/driver/nvidia/version: driver {v}, which supports CUDA up to {}",
                cuda_str(c)
            ),
            None => format!("/proc/driver/nvidia/version: driver {v}"),
        });
        c
    });
    from_text.or(from_disk)
}

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    found: Option<&str>,
    detail: &str,
) -> Diagnostic {
    let mut d = blank(Code::DriverTooOld, source);
    if detail.contains("Triton Error [CUDA]") {
        return triton_kernel(cx, d, found, detail);
    }
    if library_mismatch(detail) {
        return mismatched_libraries(cx, d, detail);
    }
    // torch's own check says so; the CUDA runtime's `driver version is insufficient` comes from
    // whichever binary called it: the package the text shows there, torch when it shows no
    // other (and shows torch at all: numba's or TensorFlow's JIT is no torch's).
    let torch_says = detail.contains("NVIDIA driver on your system is too old");
    d.package = cx
        .near
        .filter(|n| !torch_says && *n != "torch")
        .map(str::to_owned)
        .or_else(|| {
            // c10's device count (`Unexpected error from cudaGetDeviceCount() … NumCudaDevices()`)
            // is torch's own words too.
            (torch_says || detail.contains("NumCudaDevices()") || cx.torch_shown(None))
                .then(|| "torch".into())
        });
    d.evidence.push(format!("the text says: {}", detail.trim()));
    let driver_cuda = driver_facts(cx, found, &mut d);
    // Another package's own CUDA binary: torch's builds are beside the point.
    let other = d.package.clone().filter(|p| p != "torch");
    let torch = cx.torch().filter(|_| other.is_none());
    let needs = torch.as_deref().and_then(torch_cuda);
    d.message = match (driver_cuda, needs, &torch) {
        (Some(dc), Some(n), Some(t)) => format!(
            "the NVIDIA driver supports CUDA up to {}, older than the CUDA {} torch {t} was built with",
            cuda_str(dc),
            cuda_str(n)
        ),
        (Some(dc), _, _) => format!(
            "the NVIDIA driver supports CUDA up to {}, older than the CUDA torch was built with",
            cuda_str(dc)
        ),
        _ => match &other {
            Some(p) => format!("the NVIDIA driver is older than the CUDA {p} was built with"),
            None => "the NVIDIA driver is older than the CUDA torch (or the library that failed) was built with".into(),
        },
    };
    if let Some(n) = needs {
        push_minimum(&mut d, n, true);
    }
    d.explanation = Some("torch wheels carry their own CUDA runtime, but the driver is the system's: a runtime newer than the driver supports refuses to start. Either the driver is updated, or torch is replaced by its build for a CUDA the driver runs.".into());
    d.fixes = match &other {
        // Its build for an older CUDA, or a newer driver; PyTorch's indexes are no answer.
        // The package's own build for an older CUDA is the user-level way (first); the newer
        // driver needs root.
        Some(p) => crate::fix::rank(
            std::iter::once(
                Fix::new(
                    Code::DriverTooOld,
                    "package-for-driver",
                    FixKind::AlignCompanion,
                    format!("Install {p}'s build for a CUDA this driver runs"),
                    format!("{p} was built for a newer CUDA than the driver supports; its releases or build variants for an older CUDA (or a build from source with the local toolkit) run on this driver, without root."),
                )
                .step(Step::Manual(format!(
                    "pick the {p} release or variant built for CUDA at most the driver's (`nvidia-smi` prints it), or build it from source with that toolkit"
                ))),
            )
            .chain(fixes_not_torch(cx, driver_cuda, needs))
            .collect(),
        ),
        None => fixes(cx, driver_cuda, needs, torch.as_deref()),
    };
    // The CUDA runtime says the same when it finds no driver at all (libcuda.so.1 absent: a
    // container started without the GPU, a machine without the driver): with no driver version
    // read, that is as likely as an old one.
    if driver_cuda.is_none() && detail.contains("driver version is insufficient") {
        d.fixes.push(
            Fix::in_words(
                Code::DriverTooOld,
                "driver-visible",
                "Check that the driver is visible at all: a container started without the GPU reports this too",
                "cudaErrorInsufficientDriver is also what the CUDA runtime returns when it cannot load the driver's libcuda.so.1: a Docker container started without `--gpus`, Singularity or Apptainer without `--nv`, a Kubernetes pod without an `nvidia.com/gpu` limit.",
                "run `nvidia-smi` where the program runs; inside a container, start it with the GPU (docker run --gpus all, singularity exec --nv, apptainer exec --nv)",
            ),
        );
        d.fixes = crate::fix::rank(std::mem::take(&mut d.fixes));
    }
    d
}

/// The driver's user-space libraries and its kernel module of two releases: CUDA's error 803
/// (`system has unsupported display driver / cuda driver combination`), NVML's `Driver/library
/// version mismatch`, the driver's `kernel version X does not match DSO version Y`.
fn library_mismatch(detail: &str) -> bool {
    detail.contains("unsupported display driver / cuda driver combination")
        || detail.contains("Driver/library version mismatch")
        || detail.contains("does not match DSO version")
}

/// Not an old driver: two of them. A driver updated while its old kernel module stays loaded
/// (until a reboot), or a container whose image puts its own libcuda (CUDA's forward-compat
/// libraries) before the host's. Both are advice: the reboot and the image are the person's.
fn mismatched_libraries(cx: &Cx<'_>, mut d: Diagnostic, detail: &str) -> Diagnostic {
    let code = Code::DriverTooOld;
    d.package = None;
    d.evidence.push(format!("the text says: {}", detail.trim()));
    // `kernel version 515.48.7 does not match DSO version 510.73.5`: both releases named.
    let versions = detail.find("kernel version ").and_then(|p| {
        let r = &detail[p + 15..];
        let k = r.split_whitespace().next()?;
        let dso = r.split("DSO version ").nth(1)?.split_whitespace().next()?;
        let plain = |v: &str| v.bytes().all(|c| c.is_ascii_digit() || c == b'.') && !v.is_empty();
        (plain(k) && plain(dso.trim_end_matches(['.', ',']))).then(|| (k.to_owned(), dso.trim_end_matches(['.', ',']).to_owned()))
    });
    // Which side is older says which moved: libraries newer than the module are an update not
    // yet rebooted into; libraries older than it are an old copy taken first.
    let stale_libraries = versions.as_ref().is_some_and(|(k, dso)| {
        let v = |x: &str| abidoc_knowledge::Version::parse(x);
        matches!((v(k), v(dso)), (Some(k), Some(dso)) if k > dso)
    });
    d.message = match &versions {
        Some((k, dso)) if stale_libraries => format!("the NVIDIA kernel module ({k}) is newer than the driver's user-space libraries the loader took ({dso}): an older copy of libcuda or NVML comes first on the loader's path (a container image's, a second driver install's)"),
        Some((k, dso)) => format!("the NVIDIA kernel module ({k}) and the driver's user-space libraries ({dso}) are of different releases: the driver was changed without the kernel module following"),
        None => "the NVIDIA driver's user-space libraries (libcuda, NVML) and its loaded kernel module are of different releases: a driver updated without a reboot, or a container's own libcuda taken before the host's".to_owned(),
    };
    d.explanation = Some("libcuda.so.1 and libnvidia-ml.so.1 must be the release of the kernel module that is loaded. Installing a driver replaces the libraries at once, but the old module runs until the machine reboots; a CUDA image's forward-compatibility libraries (/usr/local/cuda/compat) put a newer libcuda first, which only datacenter GPUs with a matching kernel driver accept.".into());
    let reboot = Fix::in_words(
        code,
        "reload-driver",
        "Reboot (or reload the NVIDIA kernel modules) so the kernel module matches the installed driver; if they still differ, reinstall the driver",
        "After a driver update, the kernel module of the old release stays loaded until the modules are reloaded; `cat /proc/driver/nvidia/version` shows the loaded one, `nvidia-smi` fails until they agree. A half-finished install (libraries of one release, module of another) is mended by installing the driver again.",
        "sudo reboot, or stop every process using the GPU and run `sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia`; then `nvidia-smi`; if it still reports a mismatch, reinstall the driver with the system's package manager or NVIDIA's installer and reboot",
    );
    let compat = Fix::in_words(
        code,
        "compat-off-path",
        "In a container: take the image's CUDA forward-compat libcuda off the loader's path",
        "CUDA images may register /usr/local/cuda/compat with ldconfig or LD_LIBRARY_PATH; that libcuda then stands in for the host's, and a host driver of another release (or a GeForce GPU) refuses it.",
        "`ldconfig -p | grep libcuda` shows which libcuda the loader takes; remove the compat directory (/usr/local/cuda/compat, /usr/local/cuda-X.Y/compat) from /etc/ld.so.conf.d and LD_LIBRARY_PATH, run ldconfig, and start the container with the host driver (docker run --gpus all)",
    );
    d.fixes = if stale_libraries {
        let stale = Fix::in_words(
            code,
            "stale-libraries",
            "Find the older libcuda / libnvidia-ml the loader takes and remove it, or install the driver again so its libraries match the module",
            "The loaded kernel module is of a newer release than the user-space libraries found first: an older driver install's copies, or a container's, stand before the current ones.",
            "`ldconfig -p | grep -E 'libcuda|libnvidia-ml'` and LD_LIBRARY_PATH show which copies the loader takes; remove the older ones (or their directory from LD_LIBRARY_PATH / ld.so.conf.d, then ldconfig), or reinstall the driver of the module's release",
        );
        vec![stale.leading(), compat, reboot]
    } else if cx.scene.mentions_container {
        vec![compat.leading(), reboot]
    } else {
        vec![reboot, compat]
    };
    d.fixes = crate::fix::rank(std::mem::take(&mut d.fixes));
    d
}

/// A kernel Triton compiled that the driver refuses (`Triton Error [CUDA]: device kernel image
/// is invalid`, or the PTX form): Triton compiles at run time for the GPU in the machine, with
/// the ptxas its wheel carries (CUDA 12 in Triton 2.2 and later), so the GPU is not the
/// question: a driver older than that ptxas's CUDA is (or a cached kernel compiled under
/// another driver or GPU). The ptxas of a CUDA this driver runs, named by TRITON_PTXAS_PATH, is
/// the user-level way; a newer driver the other.
fn triton_kernel(cx: &Cx<'_>, mut d: Diagnostic, found: Option<&str>, detail: &str) -> Diagnostic {
    let code = Code::DriverTooOld;
    d.package = Some("triton".into());
    d.evidence.push(format!("the text says: {}", detail.trim()));
    let driver_cuda = driver_facts(cx, found, &mut d);
    d.message = match driver_cuda {
        Some(dc) => format!(
            "the driver refused a kernel Triton compiled: Triton compiles with the ptxas in its wheel (CUDA 12 from Triton 2.2 on), newer than the CUDA {} this driver runs",
            cuda_str(dc)
        ),
        None => "the driver refused a kernel Triton compiled: Triton compiles with the ptxas in its wheel (CUDA 12 from Triton 2.2 on), newer than the CUDA the driver runs (or a kernel cached under another driver or GPU is reused)".into(),
    };
    d.explanation = Some("Triton generates its kernels at run time for the GPU present, so they never lack the GPU's architecture; they are assembled by the ptxas Triton ships, and the driver loads only what a CUDA it supports produced.".into());
    let mut fixes = vec![
        Fix::new(
            code,
            "triton-ptxas",
            FixKind::Configure,
            "Point Triton at the ptxas of a CUDA toolkit this driver runs (TRITON_PTXAS_PATH)",
            "Triton uses the ptxas TRITON_PTXAS_PATH names instead of its own; one of the driver's CUDA (or older) assembles kernels it loads. Triton's cache (~/.triton/cache) keeps kernels assembled before: empty it once.",
        )
        .step(Step::Manual(
            "export TRITON_PTXAS_PATH=<toolkit of the driver's CUDA>/bin/ptxas (nvidia-smi prints the CUDA the driver runs), empty ~/.triton/cache, then run again".into(),
        ))
        .leading(),
    ];
    fixes.extend(fixes_not_torch(cx, driver_cuda, None));
    d.fixes = crate::fix::rank(fixes);
    d
}

/// `undefined symbol: cuGreenCtxCreate`: a driver API function the loaded driver lacks.
pub(crate) fn from_symbol(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    library: Option<&str>,
    symbol: &str,
) -> Diagnostic {
    let mut d = blank(Code::DriverTooOld, source);
    d.library = library.map(str::to_owned);
    d.package = library
        .and_then(|l| cx.world.package_of_library(l))
        .map(|p| p.name);
    let who = library
        .map(crate::incidents::module_name)
        .unwrap_or_else(|| "a library".into());
    let since = gpu::driver_symbol_cuda(symbol);
    d.message = match since {
        Some(c) => format!(
            "{who} calls the CUDA driver function {symbol}, which drivers have only since CUDA {}: the loaded driver (libcuda) is older",
            cuda_str(c)
        ),
        None => format!(
            "{who} calls the CUDA driver function {symbol}, which the loaded driver (libcuda) does not have: the driver is older than the CUDA it was built with"
        ),
    };
    d.symbols.push(crate::diagnostic::SymbolReport {
        mangled: symbol.to_owned(),
        demangled: None,
        status: crate::diagnostic::SymbolStatus::Missing,
        nearest: None,
    });
    d.evidence.push(format!(
        "{symbol} is a CUDA driver API function: libcuda (the driver) defines it, not torch"
    ));
    let driver_cuda = driver_facts(cx, None, &mut d);
    if let Some(c) = since {
        push_minimum(&mut d, c, false);
    }
    d.evidence.push("a stub libcuda.so (…/cuda/lib64/stubs) first on LD_LIBRARY_PATH has the same effect: it must never be loaded at run time".into());
    d.explanation = Some("The CUDA driver API (`cu*` functions) is exported by the driver's libcuda.so.1. A library built with a newer CUDA that calls a function the installed driver predates cannot load.".into());
    let torch = cx.torch();
    d.fixes = fixes(cx, driver_cuda, since, torch.as_deref());
    d
}

/// The minimum driver of a CUDA release; `runtime` adds the minor version compatibility that
/// lets a runtime run on an older driver of its major (a driver API function never does).
fn push_minimum(d: &mut Diagnostic, cuda: (u64, u64), runtime: bool) {
    if let Some(min) = gpu::min_driver(cuda) {
        let compat = gpu::minor_compat_driver(cuda.0)
            .filter(|m| runtime && *m != min)
            .map(|m| format!(" (any {}.x runs on {m} or newer through minor version compatibility, PTX JIT excepted)", cuda.0))
            .unwrap_or_default();
        d.evidence.push(format!(
            "CUDA {} needs NVIDIA driver {min} or newer on Linux{compat}",
            cuda_str(cuda)
        ));
    }
}

/// The driver's fixes for a failure that is not torch's (another package's build, Triton's
/// kernels): torch built for an older CUDA would change nothing there.
fn fixes_not_torch(cx: &Cx<'_>, driver_cuda: Option<(u64, u64)>, needs: Option<(u64, u64)>) -> Vec<Fix> {
    let mut all = fixes(cx, driver_cuda, needs, None);
    all.retain(|f| !f.id.ends_with("torch-for-driver"));
    all
}

fn fixes(
    cx: &Cx<'_>,
    driver_cuda: Option<(u64, u64)>,
    needs: Option<(u64, u64)>,
    torch: Option<&str>,
) -> Vec<Fix> {
    let code = Code::DriverTooOld;
    let mut fixes = Vec::new();
    // The same torch, built for a CUDA this driver runs.
    if let (Some(dc), Some(t)) = (driver_cuda, torch)
        && let Some(variant) = gpu::variant_for_driver(t, dc)
        && let Some(index) = IndexUrl::pytorch(&variant)
        && let Some(name) = Name::new("torch")
        && let Some(version) = Version::new(&format!("{}+{variant}", recipes::short_torch(t)))
    {
        let cuda = gpu::variant_cuda(&variant).map(cuda_str).unwrap_or_default();
        fixes.push(
            Fix::new(
                code,
                "torch-for-driver",
                FixKind::AlignTorch,
                format!(
                    "Install torch {} built for CUDA {cuda} ({variant}), which this driver runs",
                    recipes::short_torch(t)
                ),
                format!("No root needed: the same torch release, from PyTorch's index {index} for the {variant} build."),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::ForceReinstall, PipFlag::IndexUrl(index)],
                vec![Requirement::Exact(name, version)],
            ))
            .cost(Cost {
                downloads: true,
                compiles: None,
                also: vec!["torchvision, torchaudio and compiled extensions must match the new torch build".into()],
            }),
        );
    }
    let min = needs.and_then(gpu::min_driver);
    fixes.push(
        Fix::in_words(
            code,
            "newer-driver",
            match min {
                Some(m) => format!("Install NVIDIA driver {m} or newer (needs root)"),
                None => "Install a newer NVIDIA driver (needs root)".to_owned(),
            },
            "Fixes it for every CUDA build, but needs root and a reboot (or a driver reload); on a cluster or cloud image, ask the administrator or pick an image with a newer driver.",
            match min {
                Some(m) => format!("install an NVIDIA driver of version {m} or newer with your system's package manager or NVIDIA's installer, then reboot"),
                None => "install a newer NVIDIA driver with your system's package manager or NVIDIA's installer, then reboot".to_owned(),
            },
        ),
    );
    if fixes.len() == 1
        && let Some(dc) = driver_cuda
        && let Some((line, variant)) = gpu::newest_torch_for_driver(dc)
    {
        // A typed step where the line and its index are known: user-level, so it ranks before
        // the driver (which needs root), saying what else moves.
        let series = line.split_once('.').and_then(|(a, b)| {
            Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?))
        });
        // A torch 1.x in the text (its paths' Python, THC's messages) is no candidate for the
        // newest 2.x line: that move is the general form, in words.
        let typed = series
            .filter(|_| !cx.torch_1x() && !cx.scene.mentions_thc)
            .zip(IndexUrl::pytorch(&variant))
            .zip(Name::new("torch"))
            .map(|(((major, minor), index), name)| {
                recipes::pip_install(
                    cx,
                    vec![PipFlag::ForceReinstall, PipFlag::IndexUrl(index)],
                    vec![Requirement::Series(name, major, minor)],
                )
            });
        let fix = Fix::new(
            code,
            "torch-for-driver",
            FixKind::AlignTorch,
            format!("Use torch {line} ({variant}), the newest release line with a build this driver runs"),
            format!("No root needed. The driver supports CUDA up to {}; PyTorch's builds for it stop at torch {line}: a newer driver is the better fix when that torch is too old for the code in use.", cuda_str(dc)),
        );
        fixes.push(match typed {
            Some(step) => fix.step(step).cost(Cost {
                downloads: true,
                compiles: None,
                also: vec!["torchvision, torchaudio and compiled extensions must match the new torch build".into()],
            }),
            None => fix.step(Step::Manual(format!(
                "pip install --force-reinstall torch --index-url {}",
                gpu::index_url(&variant)
            ))),
        });
    } else if fixes.len() == 1 {
        fixes.push(
            Fix::new(
                code,
                "torch-for-driver",
                FixKind::AlignTorch,
                "Or install the torch build for the CUDA your driver supports",
                "`nvidia-smi` prints the highest CUDA the driver supports (`CUDA Version: 12.2`); PyTorch publishes each CUDA build on its own index.",
            )
            .step(Step::Manual(
                "pip install --force-reinstall torch==<your version>+cuXYZ --index-url https://download.pytorch.org/whl/cuXYZ   # cuXYZ at most the driver's CUDA".into(),
            ))
            .unverified(),
        );
    }
    crate::fix::rank(fixes)
}
