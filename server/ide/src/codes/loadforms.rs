//! The forms of "a library would not load" that are not glibc's `cannot open shared object
//! file`: Windows' loader (`DLL load failed`, `[WinError 126]`, error 127's missing procedure),
//! libraries named in another loader's sentence (cuDNN's sub-libraries, CTranslate2's
//! `Unable to load any of {…}`, DGL's per-torch libraries), a package's own compiled module that
//! is absent, and `libcuda.so` loaded by name at run time (cuda-python) or missing from a cached
//! Triton launcher.
//!
//! Each maps to an existing code (`missing-shared-library`, `abi-mismatch`,
//! `extension-incomplete-build`, `libcuda-not-found`) with fixes that fit the platform: on
//! Windows never `apt`, `ldconfig` or `LD_LIBRARY_PATH`, but the CUDA wheel of the DLL's major,
//! the Microsoft Visual C++ Redistributable, or the build of the package made for the installed
//! torch. Windows never says which dependency was missing; the diagnosis says so instead of
//! guessing.

use super::{Code, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, FixKind, Name, PipFlag, Requirement, SafePath, Step, Version};
use crate::incidents::basename;
use crate::kb;
use abidoc_syntax::DllFailure;

/// The Linux file name the provider tables know a library by: cuDNN's sub-libraries
/// (`libcudnn_ops_infer.so.8`, `libcudnn_cnn.so.9.1.0`) are cuDNN of that major, and Windows'
/// CUDA DLLs (`cudnn_ops_infer64_8.dll`, `cublas64_11.dll`, `cudart64_110.dll`) name their
/// product and major in their own way.
pub(crate) fn product_soname(lib: &str) -> Option<String> {
    let l = lib.to_ascii_lowercase();
    if let Some(rest) = l.strip_prefix("libcudnn_")
        && let Some((_, ver)) = rest.split_once(".so.")
    {
        let major = ver.split('.').next().filter(|m| is_digits(m))?;
        return Some(format!("libcudnn.so.{major}"));
    }
    let stem = l.strip_suffix(".dll")?;
    // `cudnn_ops_infer64_8`, `cublaslt64_12`, `nvrtc64_120_0`: product, `64_`, digits.
    let (base, digits) = stem.split_once("64_")?;
    let digits = digits.split('_').next().filter(|d| is_digits(d))?;
    // The runtime's DLLs carry major and minor (`110` is CUDA 11.0); the libraries' their major.
    let major = |d: &str| -> String {
        if d.len() == 3 {
            d.get(..2).unwrap_or(d).to_owned()
        } else {
            d.to_owned()
        }
    };
    let name = if base == "cudnn" || base.starts_with("cudnn_") {
        format!("libcudnn.so.{digits}")
    } else if base == "cublaslt" {
        format!("libcublasLt.so.{}", major(digits))
    } else if matches!(
        base,
        "cublas" | "cufft" | "curand" | "cusolver" | "cusparse" | "cudart" | "nvrtc"
    ) {
        format!("lib{base}.so.{}", major(digits))
    } else {
        return None;
    };
    Some(name)
}

/// The requirement that installs `lib`'s major from the PyPI package `name`: cuDNN 8 comes from
/// the 8.x releases of nvidia-cudnn-cu11/cu12, whose newest releases are cuDNN 9.
pub(crate) fn pip_requirement(lib: &str, name: &Name) -> Requirement {
    let cudnn8 = product_soname(lib)
        .as_deref()
        .unwrap_or(lib)
        .starts_with("libcudnn.so.8")
        && name.as_str().starts_with("nvidia-cudnn-");
    match crate::fix::Version::new("9").filter(|_| cudnn8) {
        Some(v) => Requirement::Below(name.clone(), v),
        None => Requirement::Any(name.clone()),
    }
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit())
}

/// A library name of Windows' (the loader's messages name `.dll`/`.pyd` files).
pub(crate) fn is_windows(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    l.ends_with(".dll") || l.ends_with(".pyd") || name.contains('\\')
}

/// DGL's libraries built per torch release (`libdgl_sparse_pytorch_1.9.0.so`,
/// `libgraphbolt_pytorch_2.2.2.so`) and its core (`libdgl.so`): the torch release asked for, when
/// the name carries one.
fn dgl_library(lib: &str) -> Option<Option<&str>> {
    let l = basename(lib);
    let bare = l.strip_prefix("lib").unwrap_or(l);
    let dgl = bare.starts_with("dgl") || bare.starts_with("graphbolt");
    if !dgl {
        return None;
    }
    Some(
        bare.split_once("_pytorch_")
            .map(|(_, v)| {
                v.trim_end_matches(".so")
                    .trim_end_matches(".dll")
                    .trim_end_matches(".dylib")
            })
            .filter(|v| {
                v.bytes().next().is_some_and(|c| c.is_ascii_digit())
                    && v.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'.')
            }),
    )
}

/// A CUDA library asked for without a version (Paddle's `Cannot load cudnn shared library`
/// opens `libcudnn.so`): the loader wants the unversioned name, which only a -dev package, a
/// conda package or a link provides.
pub(crate) fn unversioned_hint(lib: &str) -> Option<String> {
    let what = match basename(lib) {
        "libcudnn.so" => "cuDNN",
        "libcublas.so" => "cuBLAS",
        "libcudart.so" => "the CUDA runtime",
        "libnccl.so" => "NCCL",
        _ => return None,
    };
    Some(format!(
        "{what} is loaded by its unversioned name, which no directory on the loader's path holds: it is not installed, or only as a versioned file (conda's package or a -dev package provides the unversioned name)"
    ))
}

/// What the hint of a missing DGL library says, if it is one.
pub(crate) fn dgl_hint(lib: &str) -> Option<String> {
    let torch = dgl_library(lib)?;
    Some(match torch {
        Some(t) => format!(
            "DGL ships this library once per torch release it was built for, and the installed DGL has none for torch {t} (the torch it found)"
        ),
        None => "DGL's compiled library is not where DGL looks: the installed DGL build does not match this platform, torch or CUDA".into(),
    })
}

/// DGL's libraries come with the DGL build made for one torch and CUDA: that build, or a torch
/// the installed DGL was built for. Neither version can be read from the text, so both are
/// stated in their general form.
pub(crate) fn dgl_fixes(lib: &str) -> Vec<Fix> {
    let code = Code::MissingSharedLibrary;
    let Some(torch) = dgl_library(lib) else {
        return Vec::new();
    };
    let which = torch.map_or_else(
        || "the installed torch".to_owned(),
        |t| format!("torch {t}"),
    );
    // The page's torch part, `2.1` of `2.1.1`: only a release the library names in digits.
    let line = torch.and_then(|t| {
        let mut parts = t.split('.');
        let (a, b) = (parts.next()?, parts.next()?);
        let digits = |x: &str| !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit());
        (digits(a) && digits(b)).then(|| format!("{a}.{b}"))
    });
    vec![
        Fix::new(
            code,
            "dgl-build-for-torch",
            FixKind::AlignCompanion,
            format!("Install the DGL build made for {which} and your CUDA"),
            "DGL publishes one build per torch and CUDA release on its own index (https://data.dgl.ai/wheels/); the page for your torch and CUDA lists the build that ships this library.",
        )
        .step(Step::Manual(format!(
            "pip install dgl -f https://data.dgl.ai/wheels/torch-{}/<cuda label>/repo.html (the page for {which})",
            line.as_deref().unwrap_or("<torch major.minor>")
        )))
        .filled_in_with(if line.is_some() {
            "the installed torch's CUDA label (cu121 for `+cu121`, or cpu)"
        } else {
            "the installed torch's major.minor and CUDA label (cu121 for `+cu121`, or cpu)"
        }),
        Fix::new(
            code,
            "dgl-supported-torch",
            FixKind::AlignTorch,
            "Or install a torch release the installed DGL was built for",
            "DGL's release notes list the torch releases each DGL build supports; the library it could not find exists for those.",
        )
        .step(Step::Manual(
            "install a torch release listed for your DGL version".into(),
        )),
    ]
}

/// A Windows loader failure: the DLL (or one of its dependencies) that is missing, or the
/// procedure it lacks (error 127, `procedure`), for the module being imported.
pub(crate) fn windows(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    module: Option<&str>,
    dll: Option<&str>,
    why: DllFailure,
) -> Diagnostic {
    let procedure = why == DllFailure::Procedure;
    let code = if procedure {
        Code::AbiMismatch
    } else {
        Code::MissingSharedLibrary
    };
    // Windows names only the module's last part (`while importing lib`): the text's import
    // statement of that part is the module (`import pyarrow.lib`).
    let imported = module.filter(|m| !m.contains('.')).and_then(|m| {
        cx.scene
            .imports
            .iter()
            .find(|i| i.rsplit('.').next() == Some(m))
            .cloned()
    });
    let module = imported.as_deref().or(module);
    let mut d = blank(code, source);
    let file = dll.map(basename);
    d.library = dll.map(str::to_owned);
    // Neither module nor DLL named (`from torch._C import * (ImportError: DLL load failed)`),
    // or only a submodule's own name (`while importing _C`): the import the text shows around
    // it is the one that failed.
    // A module the tables list as a compiled module of the package the text shows (mpi4py's
    // `MPI` under `from mpi4py import MPI`) names that package too.
    let listed = |m: &str| {
        cx.near
            .and_then(abidoc_knowledge::packages::package)
            .is_some_and(|p| p.modules.iter().any(|x| x.rsplit('.').next() == Some(m)))
    };
    let bare = module.is_none_or(|m| !m.contains('.') && (m.starts_with('_') || listed(m)));
    let product = file.and_then(product_soname);
    // A CUDA or cuDNN DLL that failed is no package's own: the one whose load needed it is
    // the package the text shows (`CuPy failed to load nvrtc64_120_0.dll`), torch aside (its
    // frames surround every import).
    // A DLL inside an installed package's directory is that package's
    // (`site-packages\atari_py\ale_interface\ale_c.dll`); NVIDIA's product DLLs under
    // `site-packages\nvidia` are the products' own, read above.
    let installed_in = || {
        dll.filter(|_| product.is_none())
            .and_then(crate::incidents::site_package_of)
            .filter(|p| p != "nvidia")
    };
    d.package = package(module, dll).or_else(installed_in).or_else(|| {
        let near = cx.near.map(str::to_owned);
        if bare && dll.is_none() {
            near.or_else(|| module.and_then(underscored_package))
        } else if product.is_some()
            || (module.is_some() && dll.is_none())
            // A DLL named bare (no directory), which the loader searched for: the package
            // whose import needed it is the one the text shows loading it (PyTables' hdf5.dll).
            || dll.is_some_and(|d| !d.contains(['/', '\\']))
        {
            // A submodule no table names (h5py's `defs`) is the package around it, torch aside.
            near.filter(|n| n != "torch")
        } else {
            None
        }
    });
    // A guess names a package no table or frame confirms (it may be the text's own project):
    // good enough to say whose DLLs must be found, never to re-code or rebuild a missing
    // procedure.
    if d.package.is_none() && !procedure {
        d.package = module.and_then(dotted_top);
    }
    let importing = module
        .map(|m| format!(" while importing {m}"))
        .unwrap_or_default();
    // A package that does not link torch: the tables say so, or no table knows it and torch is
    // nowhere in the text (h5py's `defs` under a traceback of h5py alone).
    let torch_shown = cx.torch_shown(module);
    let not_torch = |p: &str| match kb::links_torch(p) {
        Some(links) => !links,
        None => !torch_shown && p != "torch",
    };
    if procedure && d.package.as_deref() == Some("torch") {
        let f = file.unwrap_or("one of torch's DLLs");
        d.message = format!(
            "Windows loaded {f}{importing}, but a DLL it depends on lacks a function it calls (\"the specified procedure could not be found\"): a DLL of another version shadows the one torch ships (on PATH or beside the program), or torch's files come from two installs"
        );
        d.explanation = Some("torch's DLLs are built together with the CUDA, cuDNN and runtime DLLs in torch\\lib; Windows loads a same-named DLL found earlier on its search path first. Removing the older copy from PATH, or reinstalling torch into a clean environment, brings them back together.".into());
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                code,
                "windows-torch-build",
                "Reinstall torch cleanly (its CUDA build from PyTorch's index), and take older CUDA or runtime DLLs off PATH",
                "The procedure is missing from a DLL of another version than the one torch was built with; a clean install of one torch build, with nothing older found first on PATH, loads matching DLLs.",
                "pip uninstall torch, then pip install torch --index-url https://download.pytorch.org/whl/<cuda label>; remove older CUDA bin directories from PATH",
            )
            .unverified(),
            vc_redist(code),
        ]);
        return d;
    }
    // A module that does not link torch (onnxruntime, OpenCV): no torch release is involved; a
    // DLL of another version of its own (an older onnxruntime.dll in System32, a second copy on
    // PATH) is loaded first.
    if procedure && let Some(pkg) = d.package.clone().filter(|p| not_torch(p.as_ref())) {
        d.code = Code::MissingSharedLibrary;
        d.message = format!(
            "Windows loaded {pkg}'s module{importing}, but a DLL it calls lacks a function it needs (\"the specified procedure could not be found\"): another version of that DLL is loaded first (an older copy in System32, beside the program or earlier on PATH)"
        );
        d.explanation = Some(format!(
            "{pkg} does not link torch; its .pyd calls its own and its runtime's DLLs by name, and Windows takes the first copy of each name it finds. A different release of {pkg} built against the DLL version found, or taking the other copy off the search path, loads."
        ));
        let n = Name::new(&pkg);
        d.fixes = crate::fix::rank(vec![
            Fix::new(
                Code::MissingSharedLibrary,
                "other-release",
                FixKind::AlignCompanion,
                format!("Install another release of {pkg}, or take the other copy of its DLLs off the search path"),
                "`where <name>.dll` (or Process Monitor) shows which copies Windows finds first; a release of the package built against that DLL's version loads beside it.",
            )
            .step(Step::Manual(format!(
                "pip show {} for its version, then pip install \"{}<that version>\"; or find the other copies with `where` and remove them from PATH",
                n.as_ref().map_or(pkg.as_str(), Name::as_str),
                n.as_ref().map_or(pkg.as_str(), Name::as_str)
            ))),
            vc_redist(Code::MissingSharedLibrary),
        ]);
        return d;
    }
    if procedure {
        d.message = format!(
            "Windows loaded a DLL{importing} but it lacks a function the module calls (\"the specified procedure could not be found\", Windows' undefined symbol): the module was built against another torch, CUDA or Python than the one installed"
        );
        d.explanation = Some("Windows does not say which function or which DLL; the usual cause is a wheel of the package made for another torch release (its .pyd calls into torch's DLLs by name), as on Linux an undefined symbol.".into());
        let mut fixes = recipes::extension_mismatch(code, cx, d.package.as_deref(), None, &[]);
        // An old Visual C++ runtime lacks functions newer builds call: the same message.
        fixes.push(vc_redist(code));
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
    if why == DllFailure::InitFailed {
        init_failed(cx, &mut d, file, &importing);
        return d;
    }
    if dll.is_none()
        && let Some(m) = module.filter(|m| is_triton_launcher(m))
        && d.package.as_deref().is_none_or(|p| p.starts_with("triton"))
    {
        triton_launcher(&mut d, m);
        return d;
    }
    d.message = match file {
        Some(f) => format!(
            "Windows could not load {f}{importing}: the DLL itself or one of the DLLs it needs is missing, and Windows does not say which"
        ),
        None => format!(
            "Windows could not load a DLL{importing}: the module's own .pyd or one of the DLLs it needs (torch's, CUDA's or the Visual C++ runtime) is missing, and Windows does not say which"
        ),
    };
    let mut fixes = Vec::new();
    let torch_own = d.package.as_deref() == Some("torch");
    // A DLL torch ships in its own lib directory is there: one of its dependencies is not, and
    // another CUDA package does not bring it.
    if let Some(key) = &product
        && !torch_own
    {
        let f = file.unwrap_or(key);
        if let Some(fix) =
            super::missing_shared_library::runtime_release(cx, d.package.as_deref(), key)
        {
            fixes.push(fix);
        }
        match cuda_wheel(cx, f, key) {
            Some(fix) => fixes.push(fix),
            // No PyPI wheel carries this major (cuDNN 7, CUDA 10's runtime): NVIDIA's installer
            // or archive of it, its bin directory found by Windows.
            None => fixes.push(
                Fix::in_words(
                    code,
                    "cuda-runtime-path",
                    format!("Install the NVIDIA library that ships {f} (the version the failing package was built for) and add its bin directory to PATH"),
                    format!("{f} is NVIDIA's (CUDA or cuDNN), of a version no PyPI wheel ships for Windows; the package that failed loads it from PATH. The CUDA toolkit's bin, and cuDNN's bin copied into it or added to PATH, are where it looks."),
                    format!(
                        "install the CUDA/cuDNN release that provides {f}, then add the directory holding it to PATH and open a new terminal"
                    ),
                ),
            ),
        }
    }
    if torch_own {
        d.explanation = Some("torch's own DLLs need the Microsoft Visual C++ runtime and, in a CUDA build, the CUDA DLLs torch ships beside them; a torch installed over another build, or a release whose Windows wheel lacked a dependency (2.4.0 needed libomp140, fixed in later releases), fails here.".into());
        // With no DLL named (`from torch._C import * … DLL load failed`), the Visual C++
        // runtime torch's DLLs all need comes first (PyTorch's Windows FAQ), the clean
        // reinstall after it.
        if dll.is_none() {
            fixes.push(vc_redist(code).leading());
        }
        // Under ZLUDA torch's CUDA DLLs load AMD's HIP runtime, which the HIP SDK installs
        // outside every directory Windows searches until its bin is on PATH; reinstalling torch
        // would replace the DLLs ZLUDA patched.
        if cx.scene.mentions_zluda {
            fixes.push(
                Fix::in_words(
                    code,
                    "zluda-hip-path",
                    "Put the AMD HIP SDK's bin directory on PATH (ZLUDA runs torch's CUDA DLLs on it)",
                    "ZLUDA's torch loads AMD's HIP runtime DLLs (amdhip64, hiprtc) from the HIP SDK; Windows finds them only when the SDK's bin is on PATH (and HIP_PATH names the SDK). Install the HIP SDK version the ZLUDA setup names if it is missing.",
                    "add C:\\Program Files\\AMD\\ROCm\\<version>\\bin to the system PATH and set HIP_PATH to C:\\Program Files\\AMD\\ROCm\\<version>\\, then open a new terminal",
                )
                .leading(),
            );
        } else {
            fixes.push(windows_torch_build(cx, code, file));
        }
    } else if product.is_none()
        && (module.is_some()
            || file.is_some_and(is_pyd)
            || dll.is_some_and(|p| kb::package_for_library(p).is_some()))
        && let Some(pkg) = d.package.as_deref().filter(|p| not_torch(p))
    {
        // A module that does not link torch (onnxruntime, TensorRT, OpenCV): no build against
        // torch helps; the DLLs it loads but does not ship (CUDA's, TensorRT's, the runtime's)
        // must be found.
        fixes.push(
            Fix::in_words(
                code,
                "dll-dependencies",
                format!("Make the DLLs {pkg} loads findable: install what provides them, or add their directory to PATH"),
                format!("{pkg}'s module does not link torch; it loads DLLs its wheel does not ship (a CUDA or TensorRT runtime of the version it was built for, the Visual C++ runtime). Since Python 3.8 Windows searches only the module's directory, the system directories and those added with os.add_dll_directory, not every PATH entry."),
                format!(
                    "install the runtime {pkg}'s release notes name (its CUDA/cuDNN/TensorRT version), then add its bin directory with os.add_dll_directory(...) before the import, or to PATH"
                ),
            ),
        );
    } else if product.is_none() && (module.is_some() || file.is_some_and(is_pyd)) {
        // A Python extension module: its DLLs are torch's and CUDA's of the build it was made
        // for.
        fixes.extend(recipes::extension_mismatch(
            code,
            cx,
            d.package.as_deref(),
            None,
            &[],
        ));
    } else if product.is_none()
        && let Some(f) = file
        && let Some(sys) = kb::system_library(f)
    {
        // A DLL the provider table knows (zlibwapi.dll, which cuDNN 8 opens on Windows).
        fixes.extend(super::missing_shared_library::system_library(
            Code::MissingSharedLibrary,
            cx,
            f,
            sys,
        ));
    } else if product.is_none()
        && let Some(f) = file
    {
        fixes.push(
            Fix::in_words(
                code,
                "find-provider",
                format!("Install what provides {f}, or put the directory that holds it on PATH"),
                "Windows looks for a DLL beside the program, in the loading module's directory and on PATH; the package that should ship it (its wheel, or conda's) is not installed there.",
                format!("find the package that ships {f}"),
            )
            .unverified(),
        );
    }
    fixes.push(vc_redist(code));
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The modules Triton compiles at run time into its cache (`cuda_utils`, `hip_utils`, the
/// kernel launchers): neither a package's file nor one pip installs.
fn is_triton_launcher(module: &str) -> bool {
    matches!(
        module.rsplit('.').next(),
        Some("cuda_utils" | "hip_utils" | "__triton_launcher")
    )
}

/// Windows failing to load a module Triton compiled into its cache: a copy built by another
/// Triton, Python or CUDA (an upgrade since), or left half-written, is reused on every run until
/// the cache is emptied; a build that fails anew names its own cause (a compiler, Python.h).
fn triton_launcher(d: &mut Diagnostic, module: &str) {
    let code = d.code;
    let port = crate::kb::windows_port("triton").unwrap_or_else(|| "triton".into());
    d.package = Some(port.clone());
    d.message = format!(
        "Windows could not load {module}, the module Triton compiles at run time into its cache: a copy built by another Triton, Python or CUDA (or left unfinished) is reused, or one of the DLLs it needs (the CUDA driver's, Python's) is not found"
    );
    d.explanation = Some("Triton compiles small C modules (cuda_utils, kernel launchers) with the C compiler it finds and keeps them in %USERPROFILE%\\.triton\\cache; torch's Inductor keeps its own under %TEMP%\\torchinductor_<user>. After an upgrade of Triton, torch or Python the cached copies no longer match and are still loaded first; emptying both caches makes the next run build them again.".into());
    d.fixes = crate::fix::rank(vec![
        Fix::in_words(
            code,
            "clear-triton-cache",
            "Empty Triton's and Inductor's caches, then run again",
            "Both hold only modules and kernels compiled on this machine; the next run rebuilds them for the Triton, Python and CUDA installed now.",
            "delete %USERPROFILE%\\.triton\\cache and %TEMP%\\torchinductor_<user> (compiled kernels only; the next run rebuilds them)",
        ),
        Fix::in_words(
            code,
            "triton-for-torch",
            format!("Install the {port} release made for the installed torch"),
            format!(
                "{port} pairs each of its release lines with one torch release (its page lists them); a Triton of another line builds modules the installed torch's Inductor does not expect."
            ),
            format!(
                "pip install -U \"{port}<X.Y+1\" with X.Y the line its page pairs with your torch"
            ),
        ),
        vc_redist(code),
    ]);
}

/// Error 1114: the DLL was found and its start-up code failed. A Visual C++ runtime older than
/// the one the DLL was built with, loaded first (from PATH, the program's directory or an
/// embedded Python), is the usual cause: the latest runtime, or the package's release before
/// the one built with the newer toolchain (user-level, where the installed version is known).
fn init_failed(cx: &Cx<'_>, d: &mut Diagnostic, file: Option<&str>, importing: &str) {
    let code = d.code;
    let what = file.unwrap_or("a DLL");
    d.message = format!(
        "Windows found {what}{importing} but its initialization routine failed (error 1114): a DLL it needs at start-up, usually the Visual C++ runtime, is older than the one it was built with"
    );
    d.explanation = Some("Windows loads one copy of each runtime DLL per process: an older msvcp140.dll or vcruntime140.dll found first (beside the program, in an embedded Python, on PATH, or loaded earlier by another package) makes a DLL built with a newer Visual C++ fail in its start-up code. Releases of a package built with an older toolchain, or an up-to-date runtime, load.".into());
    // Another package's earlier release is a user-level step and what threads confirm (onnx
    // 1.16.2, onnxruntime): it comes before the runtime's installer, which needs an
    // administrator. torch's own DLLs are the runtime's first (PyTorch's Windows notes; torch
    // 2.9's c10.dll needs the newest runtime).
    let torch_own = d.package.as_deref() == Some("torch");
    let mut fixes = Vec::new();
    if torch_own {
        fixes.push(vc_redist(code));
    }
    let pkg = d.package.as_deref().filter(|p| *p != "torch");
    let installed = pkg.and_then(|p| cx.package_version(p));
    fixes.extend(release_before(cx, code, pkg, installed.as_deref()));
    if d.package.as_deref() == Some("torch") {
        fixes.push(
            Fix::in_words(
                code,
                "windows-torch-build",
                "Or install the torch release before the one that fails",
                "torch's DLLs (c10.dll first) need the Visual C++ runtime they were built with; an earlier torch release was built with an older one.",
                "pip install \"torch<the installed version>\" torchvision torchaudio from the same index",
            )
            .unverified(),
        );
    }
    if !torch_own {
        fixes.push(vc_redist(code));
    }
    d.fixes = crate::fix::rank(fixes);
}

/// The package's release built with the Visual C++ this process loads: the last before the
/// release the tables know moved to a newer one (onnx 1.16.2 → 1.16.1), unless the installed one
/// is older still; else the release before the installed one, by its version or in words.
fn release_before(
    cx: &Cx<'_>,
    code: Code,
    pkg: Option<&str>,
    installed: Option<&str>,
) -> Option<Fix> {
    let n = pkg.and_then(Name::new)?;
    let parse = abidoc_knowledge::version::Version::parse;
    let known = kb::package(n.as_str())
        .and_then(|f| f.newer_msvc)
        .filter(|m| match (installed.and_then(parse), parse(&m.from)) {
            (Some(i), Some(from)) => i >= from,
            _ => true,
        });
    let downloads = crate::fix::Cost::download();
    if let Some(m) = known
        && let Some(last) = Version::new(&m.last_before)
    {
        return Some(
            Fix::new(
                code,
                "release-before",
                FixKind::AlignCompanion,
                format!("Install {n} {last}, the last release before {n}'s Windows wheels needed a newer Visual C++ runtime"),
                format!("{n}'s Windows wheels from {} on are built with a newer Visual C++ than the runtime many machines (and Python 3.8's) load, and fail in their start-up code; {n} {last} starts with the runtime at hand (user-level, no installer). The latest Visual C++ Redistributable lets the newer releases load too.", m.from),
            )
            .step(recipes::pip_install(cx, Vec::new(), vec![Requirement::Exact(n, last)]))
            .cost(downloads),
        );
    }
    Some(match installed.and_then(Version::new) {
        Some(v) => Fix::new(
            code,
            "release-before",
            FixKind::AlignCompanion,
            format!("Install the {n} release before {v}"),
            format!("{n} {v} was built with a newer Visual C++ than the runtime this process loads; the release before it starts with the runtime at hand (user-level, no installer)."),
        )
        .step(recipes::pip_install(cx, Vec::new(), vec![Requirement::Below(n, v)]))
        .cost(downloads),
        None => Fix::new(
            code,
            "release-before",
            FixKind::AlignCompanion,
            format!("Install the {n} release before the one installed"),
            "A release built with an older Visual C++ starts with the runtime at hand; the text does not say which release is installed (pip show tells).",
        )
        .step(Step::Manual(format!(
            "pip show {n} for its version, then pip install \"{n}<that version>\""
        ))),
    })
}

/// torch's own DLLs failing on Windows: torch, torchvision and torchaudio reinstalled together
/// from PyTorch's index for one CUDA build (PyPI's Windows torch is the CPU build). The torch the
/// text or the environment names keeps its release, from its own CUDA build's index; else the
/// newest torch of the newest line's default CUDA, said to be a guess at the CUDA.
fn windows_torch_build(cx: &Cx<'_>, code: Code, dll: Option<&str>) -> Fix {
    let torch = cx.torch();
    let parsed = torch
        .as_deref()
        .and_then(abidoc_knowledge::version::Version::parse);
    // A release whose wheel lacked a DLL the failing one needs (2.4.0's fbgemm.dll and
    // libomp140): the release that ships it, not the same wheel again.
    let gap = parsed.as_ref().and_then(|v| {
        let row = abidoc_knowledge::compat::torch_row(v.public())?;
        (row.torch == v.public())
            .then_some(row.windows_dll_gap.as_ref())
            .flatten()
            .filter(|g| dll.is_some_and(|d| d.eq_ignore_ascii_case(&g.dll)))
    });
    let variant = parsed
        .as_ref()
        .and_then(|v| match v.local_cuda() {
            Some((a, b)) => Some(format!("cu{a}{b}")),
            None => recipes::default_cuda_variant(v.public()),
        })
        .or_else(|| {
            abidoc_knowledge::gpu::tables()
                .torch_builds
                .last()
                .and_then(|row| recipes::default_cuda_variant(&row.torch))
        });
    let release = match gap {
        Some(g) => Some(g.fixed_in.clone()),
        None => parsed
            .as_ref()
            .filter(|v| v.local_label() != Some("cpu"))
            .map(|v| v.public().to_owned()),
    };
    let step = variant
        .as_deref()
        .and_then(|var| recipes::torch_build_step(cx, release.as_deref(), var));
    let Some((step, var)) = step.zip(variant) else {
        return Fix::in_words(
            code,
            "windows-torch-build",
            "Reinstall torch, torchvision and torchaudio together from PyTorch's index for your CUDA",
            "PyPI's Windows torch is the CPU build; the CUDA builds (with their DLLs) come from https://download.pytorch.org/whl/<cuda label>.",
            "pip install --force-reinstall torch torchvision torchaudio --index-url https://download.pytorch.org/whl/<cuda label, e.g. cu126>",
        )
        .unverified();
    };
    let what = release
        .as_deref()
        .map_or_else(|| "torch".to_owned(), |t| format!("torch {t}"));
    let (title, why) = match (gap, parsed.as_ref()) {
        (Some(g), Some(v)) => (
            format!(
                "Install {what} from PyTorch's {var} index: {}'s {} needs {}, which its wheel lacked",
                v.public(),
                g.dll,
                g.needs
            ),
            format!(
                "torch {}'s Windows {} links {}, which that release's wheel did not ship; {} ships it. torchvision and torchaudio, where installed, come from the same index in their releases for it. (Copying {} into torch\\lib, or the Visual C++ build tools that bring it, also lets {} load.)",
                v.public(),
                g.dll,
                g.needs,
                g.fixed_in,
                g.needs,
                v.public()
            ),
        ),
        _ => (
            format!("Reinstall {what} from PyTorch's {var} index, as one CUDA build"),
            format!(
                "torch's DLLs load with the DLLs of the build they came with; a clean install of one CUDA build (torchvision and torchaudio, where installed, from the same index) replaces files left by another build or a broken wheel. PyPI's Windows torch is the CPU build.{}",
                if release.is_none() {
                    " The text names no torch: this is the newest torch of that index; pick the index of your CUDA (https://pytorch.org/get-started/locally/)."
                } else {
                    ""
                }
            ),
        ),
    };
    let mut f = Fix::new(code, "windows-torch-build", FixKind::AlignTorch, title, why)
        .step(step)
        .cost(crate::fix::Cost {
            downloads: true,
            compiles: None,
            also: vec!["torch's CUDA DLLs (several GB)".into()],
        });
    if release.is_none() {
        f = f.unverified();
    }
    f
}

fn is_pyd(f: &str) -> bool {
    f.to_ascii_lowercase().ends_with(".pyd")
}

/// The Microsoft Visual C++ Redistributable: every torch and extension DLL needs its runtime.
pub(crate) fn vc_redist(code: Code) -> Fix {
    Fix::in_words(
        code,
        "vc-redist",
        "Install the latest Microsoft Visual C++ Redistributable (x64)",
        "Compiled Python modules on Windows need the Visual C++ runtime DLLs (vcruntime140.dll, msvcp140.dll); a missing or old runtime gives exactly this error. It installs system-wide from Microsoft (administrator).",
        "install https://aka.ms/vs/17/release/vc_redist.x64.exe, then open a new terminal",
    )
    .unverified()
}

/// The PyPI package of the CUDA major a Windows CUDA DLL names.
fn cuda_wheel(cx: &Cx<'_>, file: &str, key: &str) -> Option<Fix> {
    let code = Code::MissingSharedLibrary;
    let (what, req) = if kb::cuda_library(key).is_some() {
        let (c, p, major) = kb::cuda_package(key)?;
        let n = Name::new(&p.name)?;
        let req = if p.pin_major {
            Requirement::Major(n, major)
        } else {
            Requirement::Any(n)
        };
        (format!("{} of CUDA {major}", c.what), req)
    } else {
        // The provider table's own words name the major (`cuDNN 9 (CUDA 12)`).
        let sys = kb::system_library(key)?;
        let n = Name::new(sys.pip.first()?)?;
        (sys.what.clone(), pip_requirement(key, &n))
    };
    let shown = crate::fix::render::requirement(&req);
    Some(
        Fix::new(
            code,
            "cuda-runtime",
            FixKind::InstallMissing,
            format!("Install {what} from PyPI ({shown})"),
            format!(
                "{file} belongs to {what}; {shown} ships it for Windows. Windows finds a DLL in the loading module's directory or on PATH, so the package's bin directory may also have to be added to PATH (torch adds its own)."
            ),
        )
        .step(recipes::pip_install(cx, Vec::new(), vec![req]))
        .cost(crate::fix::Cost::download()),
    )
}

/// The package a failing Windows module or DLL belongs to: the compiled-module tables, then the
/// DLL's path (`…\site-packages\torch\lib\fbgemm.dll` is torch's).
fn package(module: Option<&str>, dll: Option<&str>) -> Option<String> {
    module
        .and_then(abidoc_knowledge::packages::package_for_module)
        .map(|p| p.name.clone())
        .or_else(|| dll.and_then(kb::package_for_library).map(|p| p.name))
        .or_else(|| {
            let top = module?.split('.').next()?;
            abidoc_knowledge::packages::package_for_module(top)
                .map(|p| p.name.clone())
                .or_else(|| crate::sources::stem_package(top))
        })
}

/// A dotted module's top level, as a distribution's import name (`pyarrow.lib` is pyarrow's),
/// the way a site-packages directory names one: a guess no table confirms (the text's own
/// project, `myproj.cuda_ops`, reads the same), and a checkout's own directories
/// (`model.utils.cython_bbox`) are none.
fn dotted_top(module: &str) -> Option<String> {
    let (top, _) = module.split_once('.')?;
    (!top.is_empty() && !top.starts_with('_') && !crate::sources::names_no_project(top))
        .then(|| crate::incidents::distribution_of(top))
}

/// The checkout the traceback runs `module`'s package from: the package directory's name and
/// the directory above it in a frame outside site-packages (`/home/me/GroundingDINO` of
/// `/home/me/GroundingDINO/groundingdino/models/…`, or a path relative to where the program
/// ran). The directory names tried: the module's top (`mmdet3d.ops…`), else the package's
/// import names (`_C` alone, from `NameError: name '_C'`, says nothing of where it lives).
fn checkout_of(cx: &Cx<'_>, module: &str, package: Option<&str>) -> Option<(String, String)> {
    let mut tops: Vec<String> = module
        .split('.')
        .next()
        .filter(|t| !t.is_empty() && !t.starts_with('_') && *t != "torch")
        .map(str::to_owned)
        .into_iter()
        .collect();
    if let Some(p) = package {
        match abidoc_knowledge::packages::package(p) {
            Some(facts) => tops.extend(facts.import_names.iter().cloned()),
            None => tops.push(p.replace('-', "_")),
        }
    }
    tops.into_iter().find_map(|top| {
        let root = cx.scene.checkout_files.iter().find_map(|f| {
            let i = f.find(&format!("/{top}/"))?;
            let root = &f[..i];
            (!root.is_empty()).then(|| root.to_owned())
        })?;
        Some((top, root))
    })
}

/// Whether a build of `package` compiles against torch, so it must see this one, not a fresh
/// copy in pip's isolated build environment (unknown packages are assumed to).
fn builds_against_torch(package: Option<&str>) -> bool {
    package.is_none_or(|p| kb::links_torch(p) != Some(false))
}

/// An editable build of the checkout `root` (absolute: a typed path) the traceback runs the
/// package from, its directory `top`. `None` for a relative path, which stays in words.
fn build_in_place(
    cx: &Cx<'_>,
    module: &str,
    package: Option<&str>,
    top: &str,
    root: &str,
) -> Option<Fix> {
    let root = SafePath::new(root)?;
    let name = Name::new(package.unwrap_or(top))?;
    let code = Code::ExtensionIncompleteBuild;
    let (flags, how) = if builds_against_torch(Some(name.as_str())) {
        (
            vec![PipFlag::NoBuildIsolation],
            "an editable install against the installed torch (hence no build isolation)",
        )
    } else {
        (Vec::new(), "an editable install")
    };
    Some(
        Fix::new(
            code,
            "build-in-place",
            FixKind::SourceBuild,
            format!("Build the checkout at {root} in place, so {module} is compiled beside its sources"),
            format!("The traceback imports {top} from {root}, a source tree: its compiled module is built there by {how}, or by the project's own build command (`python setup.py build_ext --inplace` where it has a setup.py)."),
        )
        .step(recipes::pip_install(
            cx,
            flags,
            vec![Requirement::Editable(name, root)],
        ))
        .cost(crate::fix::Cost {
            downloads: false,
            compiles: Some(crate::fix::Compile {
                minutes: 10,
                needs: vec!["a C++ compiler", "nvcc for CUDA ops"],
            }),
            also: Vec::new(),
        }),
    )
}

/// `_kaldifst`: a top-level extension module named after its distribution, underscored; the
/// last guess, after the tables and the package the text shows around it (kiwisolver's
/// `_cext` is its package's, not a `cext`'s). CPython's own modules name no package.
fn underscored_package(module: &str) -> Option<String> {
    const CPYTHON: &[&str] = &[
        "_ctypes",
        "_ssl",
        "_sqlite3",
        "_socket",
        "_hashlib",
        "_bz2",
        "_lzma",
        "_decimal",
        "_elementtree",
        "_tkinter",
        "_multiprocessing",
        "_uuid",
        "_asyncio",
        "_queue",
        "_overlapped",
        "_zoneinfo",
        "_curses",
        "_ctypes_test",
        "_testcapi",
        "_msi",
    ];
    let stem = module.strip_prefix('_')?;
    let ok = stem.len() >= 4
        && stem
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
        && !CPYTHON.contains(&module);
    ok.then(|| kb::normalize(stem))
}

/// `No module named 'exllamav2_ext'`: the package's own compiled module is absent.
pub(crate) fn compiled_module_missing(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    module: &str,
) -> Diagnostic {
    let code = Code::ExtensionIncompleteBuild;
    let mut d = blank(code, source);
    // A library a package loads with ctypes (`libllama`) is named by no module path: the
    // package whose frames load it is its owner.
    // So is a bare private module (`NameError: name '_C' is not defined`): its package is the
    // one whose frames show it.
    let ctypes_lib = module.starts_with("lib") && !module.contains('.');
    let bare = module.starts_with('_') && !module.contains('.');
    d.package = package(Some(module), None)
        .or_else(|| dotted_top(module))
        .map(|p| cx.as_named(p))
        .or_else(|| {
            (ctypes_lib || bare)
                .then(|| cx.near.filter(|n| *n != "torch").map(str::to_owned))
                .flatten()
        });
    // A top-level compiled module no table places (`pointgroup_ops`, `DCNv3`) is installed as a
    // distribution of its own name when it is installed at all: named so, though no step is
    // typed on that guess (the fixes below take no package from it).
    let own_name = (d.package.is_none() && !ctypes_lib && !bare && !module.contains('.'))
        .then(|| kb::normalize(module));
    let who = d
        .package
        .clone()
        .or_else(|| own_name.clone())
        .unwrap_or_else(|| "its package".into());
    d.message = format!(
        "the compiled module {module} is not installed: {who} was installed or checked out without its compiled part (the build skipped it, or a source checkout shadows the installed wheel)"
    );
    d.explanation = Some(format!(
        "{module} is the part of {who} compiled from C++/CUDA. A wheel without it, a build that skipped it (no CUDA toolkit, a build switch off), or running from the project's source tree, where the module was never built, all end here; a complete build or the prebuilt wheel for the installed torch puts it back."
    ));
    let mut fixes = recipes::extension_mismatch(code, cx, d.package.as_deref(), None, &[]);
    // The traceback runs the package from a checkout (`/home/me/GroundingDINO/groundingdino/…`):
    // an editable build there puts the compiled module beside its sources, which is where this
    // run imports it from.
    let checkout = checkout_of(cx, module, d.package.as_deref());
    let in_place = checkout
        .as_ref()
        .and_then(|(top, root)| build_in_place(cx, module, d.package.as_deref(), top, root));
    let typed_in_place = in_place.is_some();
    if let Some(fix) = in_place {
        fixes.insert(0, fix);
    }
    // A module no installed package's name explains (`from core.nn import _C`) is most often a
    // project's own op, run from its checkout: building it in place comes first then.
    let at = if d.package.is_none() { 0 } else { fixes.len() };
    // The checkout a (relative) frame shows is named in words: no typed path is made of it.
    let step = match &checkout {
        Some((_, dir)) => format!(
            "pip install {}-e {dir} (the checkout the traceback runs; it compiles the module there), or run from another directory",
            if builds_against_torch(d.package.as_deref()) {
                "--no-build-isolation "
            } else {
                ""
            }
        ),
        None => {
            "pip install -e . in the checkout (compiles it), or run from another directory".into()
        }
    };
    // A checkout the traceback runs from comes first: a build installed into site-packages
    // stays shadowed by it. It is a source build, written in words where no path is typed.
    let advice = Fix::new(
        code,
        "source-checkout",
        FixKind::SourceBuild,
        "If you run from the project's source directory, build it in place or run from elsewhere",
        "Python imports the package from the current directory first; a checkout whose compiled module was never built shadows the installed wheel.",
    )
    .step(Step::Manual(step));
    if checkout.is_some() && !typed_in_place {
        fixes.insert(0, advice.leading());
    } else {
        fixes.insert(at, advice);
    }
    // An installed package that is no torch extension: its wheel for this platform first.
    if checkout.is_none()
        && let Some(f) = d
            .package
            .as_deref()
            .and_then(|p| super::extension_incomplete_build::platform_wheel(cx, p, Some(module)))
    {
        fixes.insert(0, f);
    }
    d.fixes = crate::fix::rank(fixes);
    d.package = d.package.take().or(own_name);
    d
}

/// The driver API's error 34 (`CUDA_ERROR_STUB_LIBRARY`): the toolkit's stub answered in
/// place of the driver, wherever it was loaded from.
fn stub_error(detail: &str) -> bool {
    detail.contains("STUB_LIBRARY") || detail.contains("cudaErrorStubLibrary")
}

/// The toolkit's stub driver library a failure's detail starts with (`…/stubs/libcuda.so:
/// undefined symbol: …`).
fn stub_library(detail: &str) -> Option<&str> {
    let lib = detail.split(": ").next()?.trim();
    crate::incidents::is_stub_driver(lib).then_some(lib)
}

/// `Failed to dlopen libcuda.so` (cuda-python, ctypes loaders): the driver library is loaded by
/// name at run time, so the loader's path must reach the driver's directory (WSL keeps it in
/// `/usr/lib/wsl/lib`).
pub(crate) fn is_dlopen_libcuda(detail: &str) -> bool {
    detail.contains("dlopen libcuda")
        || stub_library(detail).is_some()
        || stub_error(detail)
        || detail.contains("libcuda.so lib not found")
        || sees_no_gpu(detail)
        || detail.contains(": cannot open shared object file")
        || detail.contains("Found no NVIDIA driver")
        || detail.contains("unable to find libcuda.so DSO")
        || detail.contains("CUDA driver initialization failed")
        // Numba opens the driver with ctypes at its first CUDA call.
        || detail.contains("CUDA driver library cannot be found")
        // bitsandbytes' own setup opens the driver with ctypes when it loads (`CUDA SETUP:
        // WARNING! libcuda.so not found! Do you have a CUDA driver installed?`): nothing links.
        || detail.contains("CUDA SETUP")
}

/// The driver answered and shows no GPU: CUDA's `no CUDA-capable device is detected`, torch's
/// `No CUDA GPUs are available`, the driver API's `CUDA_ERROR_NO_DEVICE`.
fn sees_no_gpu(detail: &str) -> bool {
    detail.contains("no CUDA-capable device")
        || detail.contains("No CUDA GPUs are available")
        || detail.contains("CUDA_ERROR_NO_DEVICE")
}

pub(crate) fn libcuda_dlopen(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    let code = Code::LibcudaNotFound;
    let mut d = blank(code, source);
    // The driver answered and sees no GPU: nothing is missing from the loader's path.
    if sees_no_gpu(detail) {
        d.message = "CUDA sees no GPU: the driver answered, but no device is visible to this process (CUDA_VISIBLE_DEVICES hides them, a container started without GPU access, or the driver does not see the card)".into();
        d.evidence.push(format!("the text says: {}", detail.trim()));
        d.fixes = crate::fix::rank(vec![Fix::in_words(
            code,
            "visible-devices",
            "Make the GPU visible: check CUDA_VISIBLE_DEVICES, and start the container with GPU access",
            "An empty or wrong CUDA_VISIBLE_DEVICES (set by a launcher, a scheduler, or a script before torch starts) hides every GPU; in Docker the GPU appears only with --gpus all and the NVIDIA Container Toolkit.",
            "echo $CUDA_VISIBLE_DEVICES; when it is empty or names no GPU of this machine: export CUDA_VISIBLE_DEVICES=0 (the GPU's index; or unset CUDA_VISIBLE_DEVICES) before Python starts; in Docker: run with --gpus all; nvidia-smi on the host shows whether the driver sees the card",
        )]);
        return d;
    }
    let stub = match stub_library(detail).and_then(SafePath::new) {
        Some(path) => Some(Some(path)),
        None => stub_error(detail).then_some(None),
    };
    if let Some(path) = stub {
        let dir = path.as_ref().and_then(SafePath::parent).map_or_else(
            || "the stubs directory".to_owned(),
            |p| p.as_str().to_owned(),
        );
        let lib = path
            .as_ref()
            .map_or("libcuda.so", |p| crate::incidents::basename(p.as_str()));
        d.message = format!(
            "the CUDA toolkit's stub {lib} ({dir}) is loaded at run time in place of the NVIDIA driver's: stubs exist for linking only and carry no driver"
        );
        d.evidence.push(format!("the text says: {}", detail.trim()));
        d.evidence.push(format!(
            "{dir} is a CUDA toolkit's stubs directory: its libraries are for linking only"
        ));
        d.explanation = Some("The toolkit's lib64/stubs directory holds empty copies of the driver's libraries so that builds can link `-lcuda` on a machine without a GPU. Put on LD_LIBRARY_PATH (or in an ld.so.conf file) it shadows the real libcuda.so.1, and every CUDA call fails (`UNKNOWN_CUDA_ERROR`, `CUDA driver version is insufficient`, missing symbols).".into());
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                code,
                "drop-stubs-dir",
                format!("Take {dir} off LD_LIBRARY_PATH (keep it for linking only: LIBRARY_PATH)"),
                "The driver's own libcuda.so.1, installed with the driver, is then the one loaded; a build that links -lcuda finds the stub through LIBRARY_PATH, which the run-time loader never reads.",
                match &path {
                    Some(_) => format!(
                        "export LD_LIBRARY_PATH=\"$(printf %s \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -vxF '{dir}' | paste -sd: -)\" (and remove it from /etc/ld.so.conf.d, then sudo ldconfig); if a build needs it, export LIBRARY_PATH={dir} instead"
                    ),
                    None => "echo $LD_LIBRARY_PATH and ls -l /usr/lib*/libcuda.so* /usr/lib/x86_64-linux-gnu/libcuda.so*: take any …/stubs directory off LD_LIBRARY_PATH (and out of /etc/ld.so.conf.d, then sudo ldconfig), and remove a libcuda.so link that points into one; if a build needs the stub, export LIBRARY_PATH=<that stubs directory> instead".to_owned(),
                },
            ),
        ]);
        return d;
    }
    // The name the loader was asked for (`libcuda.so.1: cannot open …`), else the library's.
    let asked = detail
        .split(':')
        .next()
        .map(str::trim)
        .filter(|n| n.starts_with("libcuda.so") && n.len() <= 24)
        .unwrap_or("libcuda.so");
    d.message = format!(
        "the NVIDIA driver library {asked} could not be loaded by name at run time: no directory on the loader's search path holds it (WSL keeps it in /usr/lib/wsl/lib; a container needs GPU access)"
    );
    d.evidence.push(format!("the text says: {}", detail.trim()));
    d.evidence.extend(cx.world.libcuda_evidence());
    d.explanation = Some("Loaders that open the driver by name (cuda-python, ctypes) search LD_LIBRARY_PATH, the ld.so cache and the default directories. The driver's library may exist outside them (WSL: /usr/lib/wsl/lib), or only as libcuda.so.1.".into());
    let dir = cx
        .world
        .libcuda_candidates()
        .into_iter()
        .find_map(|p| SafePath::new(&p))
        .and_then(|p| p.parent());
    let mut fixes = Vec::new();
    let found = dir.is_some();
    match dir {
        Some(dir) => fixes.push(
            Fix::new(
                code,
                "driver-dir",
                FixKind::Configure,
                format!("Let the loader find the driver library in {dir}"),
                "The driver's library is on this machine, outside the loader's search path.",
            )
            .steps(recipes::set_env("LD_LIBRARY_PATH", dir.as_str())),
        ),
        // WSL2 mounts the Windows driver's libraries at one fixed place, outside the default
        // search path of many distributions' loaders.
        None if cx.scene.mentions_wsl => fixes.push(
            Fix::new(
                code,
                "driver-dir",
                FixKind::Configure,
                "Let the loader find WSL's driver library in /usr/lib/wsl/lib",
                "Under WSL2 the Windows NVIDIA driver provides libcuda.so.1 in /usr/lib/wsl/lib; a loader that does not search it finds no driver.",
            )
            .steps(recipes::set_env("LD_LIBRARY_PATH", "/usr/lib/wsl/lib")),
        ),
        None => fixes.push(
            Fix::in_words(
                code,
                "driver-dir",
                "Add the directory that holds the driver's libcuda.so.1 to LD_LIBRARY_PATH (WSL: /usr/lib/wsl/lib)",
                "abidoc found no driver library here, so it gives no path; `ldconfig -p | grep libcuda` shows where the driver put it.",
                "export LD_LIBRARY_PATH=<the directory of libcuda.so.1, as `ldconfig -p | grep libcuda` shows it; on WSL /usr/lib/wsl/lib>:$LD_LIBRARY_PATH",
            )
            .unverified(),
        ),
    }
    // The unversioned name (`libcuda.so`, which cuDNN and some loaders open) comes from a
    // driver -dev package; the driver itself installs libcuda.so.1. A link of the unversioned
    // name in a directory of the user's, on LD_LIBRARY_PATH, is the user-level fix.
    if !found && detail.starts_with("libcuda.so:") {
        fixes.insert(
            0,
            Fix::in_words(
                code,
                "user-link",
                "Link libcuda.so to the driver's libcuda.so.1 in a directory of yours, and put it on LD_LIBRARY_PATH",
                "The driver installs libcuda.so.1; the unversioned libcuda.so that is opened here normally comes from a -dev package. A link in your own directory needs no root.",
                "mkdir -p ~/.local/lib/libcuda && ln -s \"$(ldconfig -p | grep -m1 'libcuda.so.1 ' | awk '{print $NF}')\" ~/.local/lib/libcuda/libcuda.so && export LD_LIBRARY_PATH=~/.local/lib/libcuda:$LD_LIBRARY_PATH",
            )
            .unverified(),
        );
    }
    // torch found no driver at all (no driver library anywhere it looked): a machine or a
    // container without the driver, which comes before any path (unless the library was found).
    let no_driver = detail.contains("Found no NVIDIA driver")
        || detail.contains("CUDA driver initialization failed");
    if no_driver {
        d.message = "torch found no NVIDIA driver: the driver's libcuda.so.1 is not on this machine or not visible to it (no driver installed, a container started without the GPU, WSL without its driver directory)".into();
        let driver = Fix::in_words(
            code,
            "install-driver",
            "Install the NVIDIA driver, or start the container with GPU access",
            "libcuda comes with the NVIDIA driver, not with CUDA wheels or the toolkit; in a container it is mounted by the NVIDIA Container Toolkit when the container starts with --gpus all (docker) or a GPU resource (Kubernetes).",
            "on the host: install the NVIDIA driver (nvidia-smi then lists the GPU); in Docker: run with --gpus all after installing nvidia-container-toolkit",
        );
        if !found {
            fixes.insert(0, driver);
        } else {
            fixes.push(driver);
        }
    } else if asked != "libcuda.so" {
        // The driver's own versioned library (`libcuda.so.1`) is nowhere the loader looks:
        // outside its path (WSL's directory, a container's compat one) first, as threads find,
        // or no driver mounted at all.
        fixes.push(
            Fix::in_words(
                code,
                "install-driver",
                format!("Or run where the NVIDIA driver is: {asked} comes with it"),
                "The driver's user-space libraries are not pip packages. In Docker, start the container with `--gpus all` (NVIDIA Container Toolkit) so they are mounted in; on a machine without an NVIDIA GPU, nothing that needs them can run.",
                "start the container with --gpus all (nvidia-container-toolkit), or run on a machine with the NVIDIA driver",
            )
            .unverified(),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The cache directory of a cached launcher named in `detail`: Inductor's per-user directory or
/// Triton's cache. Removing it only makes the next run compile again.
pub(crate) fn launcher_cache_fix(detail: &str) -> Option<Fix> {
    let path = detail.split(": undefined symbol").next()?;
    let dir = if let Some(i) = path.find("/torchinductor_") {
        let rest = path.get(i + 1..)?;
        let end = rest.find('/').map_or(path.len(), |e| i + 1 + e);
        path.get(..end)?
    } else {
        let i = path.find("/.triton/cache")?;
        path.get(..i + "/.triton/cache".len())?
    };
    let dir = SafePath::new(dir)?;
    Some(Fix::in_words(
        Code::LibcudaNotFound,
        "clear-launcher-cache",
        format!("Clear the compiled-kernel cache {dir} once libcuda.so can be linked"),
        "The launcher in the cache was linked without the driver library and is reused on every run; removing the cache makes Triton build it again.",
        format!("delete {dir} (it holds only compiled kernels; the next run rebuilds them)"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_and_major_from_the_versioned_name() {
        let p = |l: &str| product_soname(l);
        // cuDNN's sub-libraries are cuDNN of their major, 8 or 9.
        assert_eq!(
            p("libcudnn_ops_infer.so.8").as_deref(),
            Some("libcudnn.so.8")
        );
        assert_eq!(p("libcudnn_cnn.so.9.1.0").as_deref(), Some("libcudnn.so.9"));
        // Windows' CUDA DLLs: libraries carry their major, the runtime major and minor.
        assert_eq!(
            p("cudnn_ops_infer64_8.dll").as_deref(),
            Some("libcudnn.so.8")
        );
        assert_eq!(p("cudnn64_9.dll").as_deref(), Some("libcudnn.so.9"));
        assert_eq!(p("cublas64_11.dll").as_deref(), Some("libcublas.so.11"));
        assert_eq!(p("cublasLt64_12.dll").as_deref(), Some("libcublasLt.so.12"));
        assert_eq!(p("cudart64_110.dll").as_deref(), Some("libcudart.so.11"));
        assert_eq!(p("cudart64_101.dll").as_deref(), Some("libcudart.so.10"));
        assert_eq!(p("cudart64_13.dll").as_deref(), Some("libcudart.so.13"));
        assert_eq!(p("nvrtc64_120_0.dll").as_deref(), Some("libnvrtc.so.12"));
        // Names that are no CUDA product stay themselves.
        for other in [
            "fbgemm.dll",
            "libcudnn.so",
            "c10.dll",
            "libsndfile64bit.dll",
            "x64_.dll",
        ] {
            assert_eq!(p(other), None, "{other}");
        }
        // CUDA 13's runtime comes from the package without a -cuNN suffix.
        let (c, major) = kb::cuda_library("libcudart.so.13")
            .map(|(c, m)| (c.clone(), m))
            .unzip();
        assert_eq!(major, Some(13));
        assert!(c.is_some_and(|c| {
            c.packages
                .iter()
                .any(|p| p.major == 13 && p.name == "nvidia-cuda-runtime")
        }));
    }

    #[test]
    fn cudnn_8_keeps_its_major() {
        let cu11 = Name::new("nvidia-cudnn-cu11");
        let req = cu11
            .as_ref()
            .map(|n| pip_requirement("libcudnn_ops_infer.so.8", n));
        let shown = req.as_ref().map(crate::fix::render::requirement);
        assert_eq!(shown.as_deref(), Some("nvidia-cudnn-cu11<9"));
        let cu12 = Name::new("nvidia-cudnn-cu12");
        let req = cu12
            .as_ref()
            .map(|n| pip_requirement("libcudnn_ops.so.9", n));
        let shown = req.as_ref().map(crate::fix::render::requirement);
        assert_eq!(shown.as_deref(), Some("nvidia-cudnn-cu12"));
    }

    #[test]
    fn dgl_libraries_name_the_torch_they_want() {
        assert_eq!(
            dgl_library("libdgl_sparse_pytorch_1.9.0.so"),
            Some(Some("1.9.0"))
        );
        assert_eq!(
            dgl_library(r"D:\x\dgl_sparse_pytorch_2.4.0.dll"),
            Some(Some("2.4.0"))
        );
        assert_eq!(
            dgl_library("libdgl_sparse_pytorch_2.4.0.post301.so"),
            Some(Some("2.4.0.post301"))
        );
        assert_eq!(dgl_library("libgraphbolt.so"), Some(None));
        assert_eq!(dgl_library("libcudnn.so.8"), None);
    }

    #[test]
    fn a_cached_launcher_names_its_cache() {
        let names = |detail: &str, dir: &str| {
            launcher_cache_fix(detail).is_some_and(|f| {
                f.advice()
                    .iter()
                    .any(|a| a.contains(&format!("delete {dir} ")))
            })
        };
        assert!(names(
            "/tmp/torchinductor_me/triton/0/ab/__triton_launcher.so: undefined symbol: cuLaunchKernel",
            "/tmp/torchinductor_me"
        ));
        assert!(names(
            "/home/u/.triton/cache/41ce/cuda_utils.so: undefined symbol: cuModuleGetFunction",
            "/home/u/.triton/cache"
        ));
        assert!(launcher_cache_fix("/x/lib.so: undefined symbol: cuInit").is_none());
    }
}
