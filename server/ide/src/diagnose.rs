//! From incidents to diagnoses: choose the code, write the message in plain words, attach the
//! evidence (text, disk, knowledge) and the ranked fixes.

use crate::diagnostic::{Code, Diagnostic, Severity, SourceRef, SymbolReport, SymbolStatus};
use crate::evidence::{LibraryFacts, World};
use crate::fixes::{self, FixInput};
use crate::incidents::{Failure, Incident, Scene, basename};
use crate::symbols::{self, Owner, StringAbi};

/// Turns one incident into a diagnosis. `to_source` maps spans of the scanned text to sources.
pub fn diagnose(
    inc: &Incident,
    scene: &Scene,
    world: &World,
    to_source: &dyn Fn(abidoc_syntax::Span) -> SourceRef,
) -> Option<Diagnostic> {
    let mut d = Diagnostic {
        code: Code::AbiMismatch,
        severity: Severity::Error,
        message: String::new(),
        source: Some(to_source(inc.primary)),
        related: inc.related.iter().map(|s| to_source(*s)).collect(),
        package: None,
        library: None,
        symbols: Vec::new(),
        evidence: Vec::new(),
        explanation: None,
        fixes: Vec::new(),
    };
    let model = world.model(scene);
    match &inc.failure {
        Failure::UndefinedSymbol {
            library,
            symbol,
            truncated,
        } => {
            undefined_symbol(
                &mut d,
                library.as_deref(),
                symbol,
                *truncated,
                scene,
                world,
                model.as_ref(),
            );
        }
        Failure::MissingLibrary { name, required_by } => {
            d.code = Code::MissingSharedLibrary;
            let lib = basename(name);
            let who = required_by
                .as_deref()
                .map(|r| format!(" (needed by {})", basename(r)))
                .unwrap_or_default();
            d.library = required_by.clone();
            let hint = missing_library_hint(lib, scene);
            d.message = format!("the shared library {lib} cannot be found{who}: {hint}");
            if let Some(r) = required_by {
                d.package = world.package_of_library(r).map(|p| p.name);
            }
            d.fixes =
                fixes::missing_library(&FixInput::new(&d, scene, world, model.as_ref()), lib, name);
        }
        Failure::VersionNotFound {
            library,
            version,
            required_by,
        } => {
            let is_glibc = version.starts_with("GLIBC_");
            d.code = if is_glibc {
                Code::GlibcTooOld
            } else {
                Code::LibstdcxxMismatch
            };
            d.library = required_by.clone();
            let needer = required_by.as_deref().map(basename).unwrap_or("a library");
            d.message = if is_glibc {
                format!(
                    "{needer} needs {version}, but the system C library {library} is older: it was built on a newer Linux than this one"
                )
            } else {
                format!(
                    "{needer} needs {version}, but the libstdc++ that gets loaded ({library}) is older than the one it was built with"
                )
            };
            if let Some(r) = required_by {
                d.package = world.package_of_library(r).map(|p| p.name);
            }
            d.evidence.extend(world.libstdcxx_evidence(version));
            d.fixes = fixes::version_not_found(
                &FixInput::new(&d, scene, world, model.as_ref()),
                library,
                version,
                is_glibc,
            );
        }
        Failure::Libcuda { detail } => {
            d.code = Code::LibcudaNotFound;
            d.package = Some("triton".into());
            d.message = "Triton's JIT compiler cannot link the NVIDIA driver library: the linker looks for `libcuda.so` (no version suffix), which driver packages do not always install".into();
            d.evidence.push(format!("the text says: {}", detail.trim()));
            d.evidence.extend(world.libcuda_evidence());
            d.explanation = Some("`-lcuda` needs a file named exactly libcuda.so. The driver installs libcuda.so.1 (and libcuda.so.<driver version>); the unversioned link normally comes from a -dev package. Triton honours TRITON_LIBCUDA_PATH, so pointing it at a directory of yours that holds a libcuda.so link fixes this without root.".into());
            d.fixes = fixes::libcuda(&FixInput::new(&d, scene, world, model.as_ref()));
        }
        Failure::NoCompiler { detail } => {
            d.code = Code::NoCCompiler;
            d.message =
                "a JIT compile step (Triton / torch.compile / a C++ extension) found no C compiler"
                    .into();
            d.evidence.push(format!("the text says: {}", detail.trim()));
            d.fixes = fixes::no_compiler(&FixInput::new(&d, scene, world, model.as_ref()));
        }
        Failure::CudaHome { detail } => {
            d.code = Code::CudaHomeMissing;
            d.package = scene
                .packages_built
                .first()
                .map(|p| crate::kb::normalize(p));
            let what = d
                .package
                .as_deref()
                .map(|p| format!("{p} is being"))
                .unwrap_or_else(|| "a CUDA extension is being".into());
            d.message = format!(
                "{what} compiled from source, but the CUDA compiler (nvcc) cannot be found: CUDA_HOME is unset or points at a directory without bin/nvcc"
            );
            d.evidence.push(format!("the text says: {}", detail.trim()));
            if detail.contains(":/bin/nvcc") || detail.contains(":/") && detail.contains("nvcc") {
                d.evidence.push("the nvcc path contains ':': CUDA_HOME (or PATH) was set to a list instead of one directory".into());
            }
            d.fixes = fixes::cuda_home(&FixInput::new(&d, scene, world, model.as_ref()));
        }
        Failure::CudaVersion {
            found,
            expected,
            detail,
        } => {
            d.code = Code::CudaVersionMismatch;
            d.package = scene
                .packages_built
                .first()
                .map(|p| crate::kb::normalize(p));
            d.message = match (found, expected) {
                (Some(f), Some(e)) => format!(
                    "the CUDA toolkit found (nvcc {f}) differs from the CUDA torch was built with ({e}): extensions must be compiled with torch's CUDA major.minor"
                ),
                _ => format!("CUDA versions disagree: {}", detail.trim()),
            };
            d.fixes = fixes::cuda_version(
                &FixInput::new(&d, scene, world, model.as_ref()),
                found.as_deref(),
                expected.as_deref(),
            );
        }
        Failure::BuildIsolation { package } => {
            d.code = Code::BuildIsolation;
            d.package = package
                .clone()
                .or_else(|| scene.packages_built.first().cloned())
                .map(|p| crate::kb::normalize(&p));
            let pkg = d.package.clone().unwrap_or_else(|| "the package".into());
            d.message = format!(
                "{pkg} imports torch in its build script, but pip/uv build it in an isolated environment without torch: build it against the installed torch with --no-build-isolation"
            );
            d.fixes = fixes::build_isolation(&FixInput::new(&d, scene, world, model.as_ref()));
        }
        Failure::XformersBuiltFor {
            built_torch,
            have_torch,
            built_cuda,
            built_python,
            have_python,
        } => {
            d.code = Code::XformersBuiltFor;
            d.severity = Severity::Warning;
            d.package = Some("xformers".into());
            let mut parts = Vec::new();
            if let (Some(b), Some(h)) = (built_torch, have_torch)
                && b != h
            {
                parts.push(format!("torch {b} (you have {h})"));
            }
            if let (Some(b), Some(h)) = (built_python, have_python)
                && b != h
            {
                parts.push(format!("Python {b} (you have {h})"));
            }
            let why = if parts.is_empty() {
                "its build records the same torch and Python, so the compiled library itself fails to load (set XFORMERS_MORE_DETAILS=1 to see why)".to_owned()
            } else {
                format!("it was built for {}", parts.join(" and "))
            };
            d.message = format!(
                "xFormers runs without its C++/CUDA kernels (memory-efficient attention is off): {why}"
            );
            if let Some(c) = built_cuda {
                d.evidence.push(format!("xFormers was built with CUDA {c}"));
            }
            d.fixes = fixes::xformers(
                &FixInput::new(&d, scene, world, model.as_ref()),
                have_torch.as_deref(),
            );
        }
        Failure::FlashAttn { reason } => {
            d.code = Code::FlashAttnUnavailable;
            d.package = Some("flash-attn".into());
            d.message = format!(
                "FlashAttention 2 was requested but cannot be used: {}",
                reason.trim()
            );
            d.fixes = fixes::flash_attn(&FixInput::new(&d, scene, world, model.as_ref()), reason);
        }
        Failure::TorchOps { what, package } => {
            d.code = Code::TorchOpsMissing;
            d.package = package.as_deref().map(crate::kb::normalize);
            let pkg = d.package.clone().unwrap_or_else(|| "the extension".into());
            d.message = format!(
                "{what}: {pkg}'s compiled library failed to load silently, almost always because it was built for another torch version"
            );
            d.fixes = fixes::torch_ops(&FixInput::new(&d, scene, world, model.as_ref()));
        }
        Failure::NumpyAbi { detail } => {
            d.code = Code::NumpyAbi;
            d.package = Some("numpy".into());
            d.message = format!(
                "a compiled module was built against another NumPy major version than the one installed: {}",
                first_line(detail)
            );
            d.fixes = fixes::numpy(&FixInput::new(&d, scene, world, model.as_ref()), detail);
        }
        Failure::CudaOom { tried, detail } => {
            d.code = Code::CudaOom;
            let tried = tried
                .as_deref()
                .map(|t| format!(" (tried to allocate {t})"))
                .unwrap_or_default();
            d.message = format!("CUDA ran out of GPU memory{tried}");
            let _ = detail;
            oom_processes(&mut d, scene);
            d.fixes = fixes::cuda_oom(&FixInput::new(&d, scene, world, model.as_ref()));
        }
        Failure::StaleGpuProcesses => {
            d.code = Code::CudaOom;
            d.severity = Severity::Warning;
            let n = scene.gpu_processes.len();
            d.message = format!(
                "{n} processes hold GPU memory; several run the same command, which usually means earlier runs were left behind"
            );
            oom_processes(&mut d, scene);
            d.fixes = fixes::cuda_oom(&FixInput::new(&d, scene, world, model.as_ref()));
        }
        Failure::MambaFastPath { model_class } => {
            d.code = Code::MambaFastPath;
            d.severity = Severity::Warning;
            d.package = Some("mamba-ssm".into());
            let who = model_class
                .clone()
                .or_else(|| model.as_ref().map(|m| m.id.clone()))
                .unwrap_or_else(|| "the model".into());
            d.message = format!(
                "{who} runs its Mamba layers on the slow reference path: the mamba-ssm / causal-conv1d kernels are missing or failed to load"
            );
            d.evidence
                .extend(world.installed_versions(&["mamba-ssm", "causal-conv1d"]));
            d.fixes = fixes::mamba_fast_path(&FixInput::new(&d, scene, world, model.as_ref()));
        }
        Failure::StaleWheelCache { file } => {
            d.code = Code::StaleWheelCache;
            d.severity = Severity::Warning;
            d.package = wheel_dist_name(file).map(|n| crate::kb::normalize(&n));
            d.message = format!(
                "pip reused a cached wheel ({}) instead of building against the installed torch: pip's cache key ignores the torch version",
                basename(file)
            );
            d.fixes = fixes::stale_cache(&FixInput::new(&d, scene, world, model.as_ref()));
        }
    }
    let about_model = matches!(
        d.code,
        Code::AbiMismatch
            | Code::Cxx11AbiMismatch
            | Code::ExtensionIncompleteBuild
            | Code::MambaFastPath
            | Code::FlashAttnUnavailable
    );
    if let (Some(m), true) = (&model, about_model) {
        d.evidence.insert(0, m.describe());
    }
    Some(d)
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

fn wheel_dist_name(file: &str) -> Option<String> {
    let base = basename(file);
    let name = base.split('-').next()?;
    (!name.is_empty()).then(|| name.to_owned())
}

fn oom_processes(d: &mut Diagnostic, scene: &Scene) {
    for (pid, mem, name) in &scene.gpu_processes {
        let name = name
            .as_deref()
            .map(|n| format!(" `{n}`"))
            .unwrap_or_default();
        let mem = mem
            .as_deref()
            .map(|m| format!(" holds {m}"))
            .unwrap_or_default();
        d.evidence.push(format!("process {pid}{name}{mem}"));
    }
}

fn missing_library_hint(lib: &str, scene: &Scene) -> String {
    let l = lib.to_ascii_lowercase();
    if l.starts_with("libcuda.so.") || l.starts_with("libnvidia-ml.so.") {
        return "it comes with the NVIDIA driver, which is not installed or not visible here (a CPU-only machine, or a container started without GPU access)".into();
    }
    if crate::kb::is_torch_library(lib) {
        return "it was part of another torch version: the package was built for a torch that shipped this library".into();
    }
    if let Some(sys) = crate::kb::system_library(lib) {
        return if sys.pip.is_empty() {
            format!(
                "no wheel ships it: it comes from {}, which is not installed where the loader looks",
                sys.what
            )
        } else {
            format!(
                "{} is not installed (PyPI ships it as {})",
                sys.what,
                sys.pip.join(", ")
            )
        };
    }
    if l.starts_with("libcudart")
        || l.starts_with("libcublas")
        || l.starts_with("libcudnn")
        || l.starts_with("libnccl")
    {
        let major = l
            .split(".so.")
            .nth(1)
            .and_then(|v| v.split('.').next())
            .map(|m| format!(" {m}"))
            .unwrap_or_default();
        format!(
            "the CUDA{major} runtime this package was built for is not installed (pip's nvidia-* packages or the CUDA toolkit provide it)"
        )
    } else if scene.compile_failed {
        "its build failed earlier in the log, so the file was never produced".into()
    } else {
        "no directory on the loader's search path holds it".into()
    }
}

fn undefined_symbol(
    d: &mut Diagnostic,
    library: Option<&str>,
    symbol: &str,
    truncated: bool,
    scene: &Scene,
    world: &World,
    model: Option<&crate::kb::ModelFacts>,
) {
    let symbol = symbols::normalize(symbol);
    d.library = library.map(str::to_owned);
    let module = library.map(module_name);
    let facts: Option<LibraryFacts> = library.and_then(|l| world.library_facts(l));
    let pkg = facts
        .as_ref()
        .and_then(|f| f.owner.as_ref().map(|(n, _)| n.clone()))
        .or_else(|| {
            library
                .and_then(|l| world.package_of_library(l))
                .map(|p| p.name)
        });
    d.package = pkg.clone();
    let owner = symbols::owner(symbol);
    let abi = symbols::string_abi(symbol);

    // What the text alone says; disk evidence refines it below.
    d.code = match owner {
        Owner::Libstdcxx => Code::LibstdcxxMismatch,
        Owner::Own => Code::ExtensionIncompleteBuild,
        _ if abi.is_some() => Code::Cxx11AbiMismatch,
        _ => Code::AbiMismatch,
    };
    let demangled = crate::kb::demangle(symbol);
    let mut report = SymbolReport {
        mangled: symbol.to_owned(),
        demangled: demangled.clone(),
        status: SymbolStatus::Missing,
        nearest: None,
    };
    if let Some(f) = &facts {
        d.evidence.extend(f.evidence.iter().cloned());
        if let Some(s) = f.symbols.iter().find(|s| s.mangled == symbol) {
            report = s.clone();
        }
        for s in &f.symbols {
            if s.mangled != symbol {
                d.symbols.push(s.clone());
            }
        }
        // On-disk classification wins over the guess from the text.
        let statuses: Vec<SymbolStatus> = std::iter::once(report.status)
            .chain(f.symbols.iter().map(|s| s.status))
            .collect();
        if f.own_symbols_missing && owner != Owner::Torch {
            d.code = Code::ExtensionIncompleteBuild;
        } else if statuses.contains(&SymbolStatus::Cxx11Abi)
            && !statuses.contains(&SymbolStatus::SignatureChanged)
        {
            d.code = Code::Cxx11AbiMismatch;
        } else if statuses
            .iter()
            .any(|s| matches!(s, SymbolStatus::SignatureChanged | SymbolStatus::Removed))
            && owner == Owner::Torch
        {
            d.code = Code::AbiMismatch;
        }
    }
    d.symbols.insert(0, report);

    let module = module.unwrap_or_else(|| "the extension".into());
    let who = match (
        &pkg,
        facts
            .as_ref()
            .and_then(|f| f.owner.as_ref())
            .map(|(_, v)| v),
    ) {
        (Some(p), Some(v)) => format!("{module} ({p} {v})"),
        (Some(p), None) => format!("{module} ({p})"),
        _ => module.clone(),
    };
    let torch = world
        .torch_version()
        .or_else(|| scene.version_of("torch").map(str::to_owned));
    let torch_txt = torch
        .as_deref()
        .map(|t| format!("the installed {t}"))
        .unwrap_or_else(|| "the torch it runs with".into());
    let name = demangled.as_deref().unwrap_or(symbol);
    let cut = if truncated {
        " (the symbol is cut off in the text)"
    } else {
        ""
    };
    let built_for = crate::kb::built_for_range(&d.symbols);
    d.message = match d.code {
        Code::LibstdcxxMismatch => format!(
            "{who} needs `{name}` from libstdc++, but the libstdc++ loaded first is older than the one it was built with{cut}"
        ),
        Code::ExtensionIncompleteBuild => format!(
            "{who} references `{name}`, which its own package should define: the build is incomplete (a kernel was not compiled for this configuration), not a torch mismatch{cut}"
        ),
        Code::Cxx11AbiMismatch => {
            let flavour = match abi {
                Some(StringAbi::Cxx11) => {
                    "with the C++11 std::string ABI (_GLIBCXX_USE_CXX11_ABI=1)"
                }
                Some(StringAbi::PreCxx11) => {
                    "with the old pre-C++11 std::string ABI (_GLIBCXX_USE_CXX11_ABI=0)"
                }
                None => "with the other std::string ABI",
            };
            format!(
                "{who} was compiled {flavour}, but {torch_txt} uses the other one: `{name}` does not resolve{cut}"
            )
        }
        _ => {
            let missing = d
                .symbols
                .iter()
                .filter(|s| s.status != SymbolStatus::Resolved)
                .count()
                .max(1);
            let of = facts
                .as_ref()
                .map(|f| f.torch_symbol_count)
                .filter(|n| *n > 0)
                .map(|n| format!(" of its {n} torch symbols"))
                .unwrap_or_else(|| " torch symbol".into());
            let plural = if missing == 1 { "is" } else { "are" };
            let bf = built_for
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            format!(
                "{who} was built against a different torch than {torch_txt}: {missing}{of} {plural} missing{bf}{cut}"
            )
        }
    };
    if let Some(r) = &built_for {
        d.evidence.push(format!("offline torch symbol index: {r}"));
    }
    if let Some(t) = scene.version_of("torch")
        && world.torch_version().is_none()
    {
        d.evidence.push(format!("the text states torch {t}"));
    }
    for cmd in &scene.suggested_commands {
        if cmd.contains("pip install") {
            d.evidence.push(format!("the message suggests `{cmd}`: that reinstalls what is already installed and does not rebuild the extension, so it does not help"));
        }
    }
    if scene.mentions_wsl && owner == Owner::Torch {
        d.evidence.push("WSL2 is not the cause: the library asks torch for a function the installed torch does not export, and would fail the same way on any Linux".into());
    }
    if scene.mentions_fallback
        || pkg
            .as_deref()
            .is_some_and(|p| p == "mamba-ssm" || p == "causal-conv1d")
            && scene.mentions_wsl
    {
        d.evidence.push("a silent fallback (Conv1d or the naive scan) is not the same model: it changes results and speed, so fix the kernels rather than train on the fallback".into());
    }
    d.explanation = Some(explain_code(d.code, &module));
    d.fixes = fixes::extension_mismatch(&FixInput::new(d, scene, world, model), abi);
}

/// The module name of a library path: `selective_scan_cuda` for `…/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so`.
pub fn module_name(path: &str) -> String {
    let base = basename(path);
    // `xformers/_C.so`, `torchvision/_C.so`: a private module is named by its package directory.
    if base.starts_with('_') && !base.starts_with("_torch") {
        let mut parts = path.rsplit(['/', '\\']);
        parts.next();
        if let Some(parent) = parts
            .next()
            .filter(|p| !p.is_empty() && !p.ends_with("-packages"))
        {
            let stem = base.split('.').next().unwrap_or(base);
            return format!("{parent}.{stem}");
        }
    }
    let stem = base.split(".cpython-").next().unwrap_or(base);
    let stem = stem.split(".abi3").next().unwrap_or(stem);
    stem.trim_end_matches(".so")
        .trim_end_matches(".dylib")
        .to_owned()
}

fn explain_code(code: Code, module: &str) -> String {
    match code {
        Code::Cxx11AbiMismatch => format!("C++ libraries mangle std::string differently depending on _GLIBCXX_USE_CXX11_ABI. {module} and torch were compiled with different settings, so every function taking a std::string has a different name in each. Reinstalling the same wheel does not help; a wheel built for torch's ABI (the cxx11abiTRUE/FALSE label) or a source build does."),
        Code::ExtensionIncompleteBuild => format!("The missing function belongs to {module}'s own sources: a partial or misconfigured build left it out (for example a kernel for one GPU architecture). Rebuild the package with its full configuration or install a complete wheel."),
        Code::LibstdcxxMismatch => "The extension was compiled with a newer GCC than the libstdc++ that the process loads first. A newer libstdc++ (from the environment or conda's libstdcxx-ng) must be loaded instead.".into(),
        _ => format!("{module} is compiled C++ that calls into torch's libraries by exact function signature. It was built against another torch release, in which that function had another signature or existed at all. `pip install` again reuses the same stale wheel; the fix is a build made for the installed torch, or removing the package if nothing needs it."),
    }
}

/// Links the diagnoses of one text (a silent symptom names the failure that causes it), the last
/// step of the entry points: for front ends that diagnose incidents one by one (the language
/// server keeps the diagnoses of unchanged incidents between edits).
pub fn link(diags: &mut [Diagnostic]) {
    crate::relate::link(diags);
}
