//! `missing-shared-library`: the loader cannot find a library a module needs
//! (`libX.so.N: cannot open shared object file`).
//!
//! Produced by the loader's message in the text and by the scan's unresolved `DT_NEEDED`
//! entries. The fix follows who provides the library: a directory on this machine outside the
//! search path (`LD_LIBRARY_PATH`), the PyPI package of the CUDA major the so-number names
//! (never another major's), the companion release of a torch that shipped a renamed library, a
//! system library's package (pip first, conda in a conda env, the distribution's manager with
//! root). A torch JIT op's own library missing from its build directory is handed to
//! `extension_incomplete_build::jit_op` (an unfinished build).

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{
    CondaChannel, Fix, FixKind, Name, PipFlag, Query, Requirement, SafePath, Step, SystemManager,
    Version,
};
use crate::incidents::basename;
use crate::kb;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`libX.so.N: cannot open shared object file` (CUDA runtime, cuDNN, removed torch libraries, ...); a library found but unreadable (`invalid ELF header`, `file too short`: damaged, or a Git LFS pointer; a misaligned load command: a file a faulty tool rewrote, or a 4K-page build under larger pages).",
    meaning: "A compiled module names the libraries it needs (`DT_NEEDED`); the loader searches RPATH/RUNPATH, `LD_LIBRARY_PATH`, the ld.so cache and the default directories. The library may be on the machine but outside that path, belong to another CUDA major than the one installed, have been renamed by a later torch, or come from a system package no wheel ships. Other loaders say it in their own words, read the same way: `Unable to load any of {…}`, `Could not load library X`, `Library X is not found or cannot be loaded`, DGL's per-torch libraries, macOS' `Library not loaded`, and Windows' `DLL load failed … module could not be found` / `[WinError 126] … Error loading \"…dll\"`, which never says which dependency is missing. cuDNN's sub-libraries and Windows' CUDA DLLs (`cublas64_11.dll`) are read as their product and major. jaxlib's `Unable to load cuDNN. Is it installed?` is its CUDA plugin failing to open the nvidia-* wheels `jax[cuda12]` installs, most often because another CUDA on LD_LIBRARY_PATH is found first. A system in another language prints glibc's message in it (`无法打开共享对象文件`, `невозможно открыть разделяемый объектный файл`, `Kann die Shared-Object-Datei nicht öffnen`): read the same. A package published once per CUDA build (CuPy's `cupy-cuda12x`, RAPIDS' `cudf-cu12`, spconv's `spconv-cu118`) asking for one CUDA's library is that CUDA's build: where the machine's CUDA is known and another, its build for that CUDA replaces the installed one; where nothing says, that swap is offered after the runtime. Runtimes that load libraries themselves say it in their words: TensorRT's `Unable to open library: libnvinfer_plugin.so.8 due to libcudnn.so.8` (the second is the missing one), llvmlite's `Could not load shared object file: llvmlite.dll`. GCC's `__atomic_*` calls in a library built without `-latomic` (32-bit ARM) are libatomic's, never loaded unless preloaded.",
    fixes: "A library auditwheel renamed and vendored into a wheel (`libpq-a407f694.so.5.12`: eight hex digits of its hash before the soname's tail) comes back only with that wheel: the package installed again whole, then the release before the one the text shows. Otherwise: 1. Point the loader at the directory on this machine that holds it (`LD_LIBRARY_PATH`; safe). For a cuDNN sub-library (`libcudnn_ops.so.9`, `libcudnn_cnn_infer.so.8`: libcudnn opens them by name, so cuDNN itself loaded) read without an environment: the command that prints pip's cuDNN directory, then that directory on `LD_LIBRARY_PATH` (safe), before any install; for a CUDA library of a major PyPI ships no wheel of (`libcudart.so.10.2`), the search for an installed toolkit's copy (`/usr/local/cuda-10.2/lib64`) and its directory on `LD_LIBRARY_PATH`. 2. The companion release built for the installed torch, when the library belonged to another torch or is the CUDA runtime of another torch's CUDA major (a companion built for CUDA 12 next to a CUDA 13 torch); a release for the installed torch that is itself a build for the library's CUDA major (PyPI's xformers 0.0.35, on torch's stable ABI, is CUDA 12's) comes with that major's runtime wheel; without such a release, the torch it was built for. A package that links torch asking for a CUDA library of a major that is not torch's, or of a torch whose CUDA nothing states (a pip torch loads its own CUDA's libraries first), gets its build for the installed torch first, down to a source build, outside a conda environment (whose torch takes CUDA from the environment's lib directory). 3. The PyPI package of the exact CUDA major the so-number names (no root). 4. For a package with a variant that does not need the library (opencv-python's `-headless` wheels link no libGL or GLib): that variant in its place (user-level). 5. A system library's package: pip, else conda inside a conda environment, else the distribution's package manager (root), chosen from `/etc/os-release`. 6. A source build when the library is torch's and the package links torch. (A torch JIT op's own library missing from its build directory is an unfinished build: extension-incomplete-build.) A CUDA library's unversioned name (`libcudart.so`): when a build links it, the toolkit's copy on the linker's path; when a program loads it by that name (ctypes' `find_library`, cpm_kernels, CTranslate2's `Cannot load symbol cublasLtCreate`), the installed numbered file's directory on `LD_LIBRARY_PATH`, with a link of the asked name to it in a directory of the user's own (advice). On macOS (a `.dylib`, a Mac's paths) `DYLD_LIBRARY_PATH`, `otool -L` and Homebrew or conda-forge, never `ldd`, `ldconfig` or apt. On Windows never `LD_LIBRARY_PATH`, `apt` or `ldconfig`: the CUDA wheel of the DLL's major, torch's CUDA build from PyTorch's index when the DLL is torch's own, the package's build for the installed torch, and the Microsoft Visual C++ Redistributable (advice). DGL's libraries: the DGL build for the installed torch, or a torch that DGL build supports (advice). auditwheel repairing a built wheel (`Cannot repair wheel, because required library \"libcudart.so.13\" could not be located`): a CUDA, driver or torch library left out with `--exclude`, any other's directory given to auditwheel on LD_LIBRARY_PATH.",
    near_package: super::NearPackage::Never,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    name: &str,
    required_by: Option<&str>,
) -> Diagnostic {
    // Windows' DLLs get Windows' fixes (never LD_LIBRARY_PATH, apt or ldconfig).
    if super::loadforms::is_windows(name) && super::loadforms::dgl_hint(name).is_none() {
        return super::loadforms::windows(cx, source, None, Some(name), abidoc_syntax::DllFailure::Missing);
    }
    // A JIT op's own library missing from its build directory: that build never finished.
    if required_by.is_none()
        && let Some(dir) = jit_build_dir(name)
    {
        return super::extension_incomplete_build::jit_op(cx, source, name, dir);
    }
    // A package's own compiled module missing from its installed directory
    // (`site-packages/knn_cuda/csrc/_ext/knn/knn.so`): its build never produced it.
    if required_by.is_none()
        && let Some((module, package)) = own_module(name)
    {
        return super::extension_incomplete_build::module_missing(cx, source, &module, &package);
    }
    // glibc says `cannot open shared object file: No such file or directory` for a file that
    // exists but is built for another architecture (the real loader, checked in
    // `server/cli/tests/hostile.rs`): the environment's copy of it tells.
    if let Some((have, need)) = cx.world.foreign_architecture(name) {
        let detail = format!(
            "{name} exists, built for {have}; this machine is {need} (the loader reports a library of another architecture as not found)"
        );
        return super::cpu_arch_mismatch::diagnose(
            cx,
            source,
            &super::cpu_arch_mismatch::Seen {
                library: Some(name),
                have: Some(&have),
                need: Some(&need),
                detail: &detail,
                on_disk: true,
            },
        );
    }
    // torch's own loader did not find a CUDA library of the nvidia-* wheels its metadata
    // requires: those wheels are missing (torch installed with --no-deps, or by a tool that
    // resolved its dependencies for another platform), not the package's build.
    if cx.scene.torch_preloads && TORCH_CUDA_DEPS.iter().any(|p| basename(name).starts_with(p)) {
        return torch_dependencies(cx, source, name);
    }
    let mut d = blank(Code::MissingSharedLibrary, source);
    let lib = basename(name);
    let who = required_by
        .map(|r| format!(" (needed by {})", basename(r)))
        .unwrap_or_default();
    d.library = required_by.map(str::to_owned);
    d.message = format!(
        "the shared library {lib} cannot be found{who}: {}",
        hint(cx, lib)
    );
    // A CUDA library of another major than the installed torch's: the package was built for
    // another torch, which is what the fixes align.
    let key = super::loadforms::product_soname(lib);
    if let Some((_, major)) = kb::cuda_library(key.as_deref().unwrap_or(lib))
        && let Some(torch) = cx.world.torch_version()
        && let Some(theirs) = cx
            .world
            .torch_cuda()
            .and_then(|c| c.split('.').next()?.parse::<u32>().ok())
        && theirs != major
    {
        d.message.push_str(&format!(
            "; the installed torch {torch} is built for CUDA {theirs}, so the package was built for another torch"
        ));
    }
    d.package = cx
        .package_of(required_by, !kb::is_torch_library(lib))
        .or_else(|| super::loadforms::dgl_hint(lib).map(|_| "dgl".to_owned()));
    // A library a wheel repair tool renamed and vendored into its package (auditwheel's
    // `libpq-a407f694.so.5.12`): no system package or other wheel ships that name, so only the
    // package's own wheel brings it back; LD_LIBRARY_PATH or a system install cannot.
    if let Some(real) = vendored(lib) {
        // Only a wheel vendors: the distribution as the text names it (psycopg2-binary).
        d.package = d.package.take().map(|p| cx.as_named(p));
        d.message = format!(
            "the shared library {lib} cannot be found{who}: it is {real} as a wheel repair tool (auditwheel) renamed it and vendored it into the package's own `.libs` directory, so nothing but that package provides it: its installed files are incomplete (copied without that directory, or partly removed), or its release shipped without it"
        );
        d.fixes = vendored_fixes(cx, d.package.as_deref(), lib);
        return d;
    }
    // cuDNN 8.7 and later open NVRTC by its unversioned name when a convolution needs it, at run
    // time: no linker is involved, and pip's NVRTC wheel ships only the numbered file.
    if lib == "libnvrtc.so"
        && required_by.is_some_and(|r| basename(r).starts_with("libcudnn"))
    {
        d.message = format!(
            "cuDNN ({}) opens NVRTC by its unversioned name, libnvrtc.so, which no directory on the loader's path holds: pip's nvidia-cuda-nvrtc wheels and the CUDA runtime ship only the numbered file (libnvrtc.so.11.2, libnvrtc.so.12)",
            required_by.map(basename).unwrap_or("libcudnn")
        );
        let cudnn8 = required_by.is_some_and(|r| basename(r).ends_with(".so.8"));
        d.fixes = cudnn_nvrtc(cx, cudnn8);
        return d;
    }
    d.fixes = fixes(cx, &d, lib);
    d
}

/// NVRTC under the unversioned name cuDNN 8.7+ opens: the NVRTC wheel of the CUDA major in use
/// and a link named `libnvrtc.so` beside its numbered file (the CUDA major, where the text
/// states none, is the person's to fill in: cuDNN 8's builds were mostly CUDA 11's, later ones
/// CUDA 12's, and that one is named first); torch 2.0.0's wheels, whose load of cuDNN stopped
/// on this, are fixed in 2.0.1.
fn cudnn_nvrtc(cx: &Cx<'_>, cudnn8: bool) -> Vec<Fix> {
    let (first, second) = if cudnn8 { (11, 12) } else { (12, 11) };
    let code = Code::MissingSharedLibrary;
    let mut fixes = vec![
        Fix::new(
            code,
            "cudnn-nvrtc",
            FixKind::InstallMissing,
            "Install NVRTC for the CUDA major in use and give it the unversioned name cuDNN opens",
            "cuDNN 8.7 and later load NVRTC as libnvrtc.so when a convolution needs runtime compilation; the NVRTC of the CUDA major cuDNN was built for, linked under that name in its own directory (on the loader's path), is what it finds.",
        )
        .step(Step::Manual(format!(
            "pip install nvidia-cuda-nvrtc-cu{first} (CUDA {first}; for CUDA {second}: pip install nvidia-cuda-nvrtc-cu{second}), then in <site-packages>/nvidia/cuda_nvrtc/lib: ln -s libnvrtc.so.<the number it has> libnvrtc.so; export LD_LIBRARY_PATH=<site-packages>/nvidia/cuda_nvrtc/lib:$LD_LIBRARY_PATH"
        )))
        .filled_in_with("the CUDA major of the installed cuDNN and torch"),
    ];
    if cx
        .torch()
        .is_some_and(|t| super::recipes::short_torch(&t) == "2.0.0")
        && let Some(req) = super::recipes::exact("torch", "2.0.1")
    {
        fixes.push(
            Fix::new(
                code,
                "torch-2-0-1",
                FixKind::AlignTorch,
                "Install torch 2.0.1, whose load of cuDNN no longer stops on this",
                "torch 2.0.0's pip wheels aborted when cuDNN could not open libnvrtc.so; 2.0.1 preloads cuDNN's libraries and goes on (pytorch/pytorch#97041).",
            )
            .step(recipes::pip_install(cx, vec![PipFlag::NoCacheDir], vec![req])),
        );
    }
    crate::fix::rank(fixes)
}

/// A library's undefined plain C symbol that another library defines (`__nvJitLinkAddData_12_1`
/// from nvJitLink, `ncclCommRegister` from NCCL): that library is found, but an older copy of it
/// (a system CUDA, another package's) comes first on the loader's path. The fix puts pip's copy,
/// the one the wheels were built with, first: its directory under the site-packages the text
/// shows (unverified without the environment), else advice to find the older copy.
pub(crate) fn older_copy(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    needer: Option<&str>,
    symbol: &str,
    prov: &abidoc_knowledge::system_libs::SymbolProvider,
) -> Diagnostic {
    let code = Code::MissingSharedLibrary;
    let mut d = blank(code, source);
    d.library = needer.map(str::to_owned);
    d.package = cx.package_of(needer, true);
    let who = needer.map_or("a library", basename);
    let (what, lib) = (&prov.what, &prov.library);
    // C++ names are shown as people write them.
    let demangled = crate::kb::demangle(symbol);
    d.symbols.push(crate::diagnostic::SymbolReport {
        mangled: symbol.to_owned(),
        demangled: demangled.clone(),
        status: crate::diagnostic::SymbolStatus::Missing,
        nearest: None,
    });
    let symbol = demangled.as_deref().unwrap_or(symbol);
    let shown = if symbol.is_empty() {
        "a symbol (cut off in the text)".to_owned()
    } else {
        format!("`{symbol}`")
    };
    d.message = format!(
        "{who} needs {shown} from {what} ({lib}), but the {lib} the loader finds first does not define it: an older copy shadows the one it was built with, or none is loaded"
    );
    d.evidence.push(format!(
        "{shown} is {what}'s, not torch's: no torch release is involved"
    ));
    // The provider dropped the symbols in a release newer than the one the binary was built
    // with: the loader finds a copy too new, and the fix keeps the provider below that release.
    if let (Some(removed), Some(keep)) = (&prov.removed_in, &prov.keep) {
        d.message = format!(
            "{who} needs `{symbol}` from {what}, which its release {removed} removed: the environment has that release or a newer one"
        );
        let why = format!("{who} was built against a release that still had `{symbol}`; pinning the provider below {removed} brings it back (a conda environment's torch links the environment's provider; PyPI's torch bundles what it needs instead).");
        // `keep` is data (`mkl<2024.1`): the pin as a conda match spec in the environment's
        // own channels, where the provider came from.
        let pin = keep.split_once('<').and_then(|(n, v)| {
            Some(Requirement::Below(Name::new(n.trim())?, Version::new(v.trim())?))
        });
        d.fixes = crate::fix::rank(vec![match pin {
            Some(req) => Fix::new(
                code,
                "keep-provider",
                FixKind::AlignCompanion,
                format!("Pin {keep} in the conda environment: the releases before {removed} still have `{symbol}`"),
                why,
            )
            .step(Step::CondaInstall {
                channel: CondaChannel::Configured,
                packages: vec![req],
            }),
            None => Fix::in_words(
                code,
                "keep-provider",
                format!("Pin {keep}: the releases before {removed} still have `{symbol}`"),
                why,
                format!(
                    "conda install \"{keep}\" in the environment (or add {keep} to its environment.yml), then start Python again"
                ),
            ),
        }]);
        return d;
    }
    // A library the binary calls without being linked to it: nothing loads it unless it is
    // preloaded, and a build linked with it needs nothing else.
    if prov.unlinked {
        d.message = format!(
            "{who} calls {shown} from {what} ({lib}) but was built without linking it: nothing loads it unless it is preloaded"
        );
        let pkg = d.package.clone();
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                code,
                "preload",
                format!("Load {lib} before Python starts (LD_PRELOAD)"),
                format!("Preloaded, {lib} defines {shown} for every library loaded after it; the binary itself stays as it is."),
                format!(
                    "export LD_PRELOAD=<the path of {lib}> (`ldconfig -p | grep {lib}` shows it, such as /usr/lib/arm-linux-gnueabihf/{lib}), then start Python again"
                ),
            )
            .leading(),
            Fix::in_words(
                code,
                "linked-build",
                format!(
                    "Install a build of {} linked with {lib}",
                    pkg.as_deref().unwrap_or("the package")
                ),
                format!("A build made with {lib} on its link line (a later release of the wheel, or a build on this machine) loads it itself."),
                format!(
                    "install the package's release built for this platform with {lib} linked, or build it here (its build system adds it where the CPU needs it)"
                ),
            ),
        ]);
        return d;
    }
    // A Windows DLL: the copy loaded first is found beside the program, in System32 or on PATH,
    // and the provider's file is a DLL of its own name, not the Linux soname.
    let windows = needer.is_some_and(|n| {
        let l = n.to_ascii_lowercase();
        l.ends_with(".dll") || l.ends_with(".pyd") || n.contains('\\')
    });
    if windows {
        // Windows' OpenMP runtimes are MSVC's vcomp140.dll, Intel's libiomp5md.dll and LLVM's
        // libomp140.x86_64.dll, whichever a package was built with: not GNU's or Intel's Linux one.
        let (what, dll) = if what.contains("OpenMP") {
            (
                "an OpenMP runtime".to_owned(),
                "the OpenMP runtime's DLL (vcomp140.dll, libiomp5md.dll or libomp140.x86_64.dll)"
                    .to_owned(),
            )
        } else {
            (what.clone(), format!("{what}'s DLL"))
        };
        d.message = format!(
            "{who} needs {shown} from {what}, but the copy of {dll} Windows loads first does not define it: another version of that DLL (beside the program, in System32 or earlier on PATH) is loaded in place of the one it was built with"
        );
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                code,
                "find-older-copy",
                format!("Find the other copy of {dll} Windows loads first, and take it off the search path (or update the package that ships it)"),
                "Windows takes the first DLL of a name it finds; `where` (or Process Monitor) shows the copies, and the package that installed the older one (another app's runtime, an older wheel) is the one to update or remove.",
                format!(
                    "find the copies of {dll} beside the program and on PATH (`where <its name>.dll`), update or remove the package that ships the older one, then start Python again"
                ),
            )
            .unverified(),
            super::loadforms::vc_redist(code),
        ]);
        return d;
    }
    let mut fixes = Vec::new();
    let site = needer.and_then(|n| {
        let n = n.replace('\\', "/");
        ["site-packages", "dist-packages"]
            .iter()
            .find_map(|m| n.find(m).map(|i| n[..i + m.len()].to_owned()))
    });
    if let (Some(site), Some(dir)) = (site, &prov.pip_dir)
        && let Some(path) = SafePath::new(&format!("{site}/{dir}"))
    {
        let mut f = Fix::new(
            code,
            "library-path",
            FixKind::Configure,
            format!("Let the loader take pip's {what} in {path} first"),
            format!(
                "The wheels were built with the {what} pip installs there; an older {lib} found earlier on the path (a system CUDA in LD_LIBRARY_PATH, another package's copy) lacks `{symbol}`."
            ),
        )
        .steps(recipes::set_env(
            loader_path_var(cx, lib),
            path.as_str(),
        ));
        if !cx.world.ctx.use_env {
            f = f.unverified();
        }
        // Pip's copy is there already: putting it first comes before installing another.
        fixes.push(f.leading());
    }
    let older = if super::on_macos(cx, Some(lib)) {
        // macOS: otool shows the install names a library asks for, dyld's variable is another.
        Fix::new(
            code,
            "find-older-copy",
            FixKind::Advice,
            format!("Find the older {lib} dyld takes, and take its directory off DYLD_LIBRARY_PATH"),
            "`otool -L` on the failing library shows the install name it asks for; a copy earlier on DYLD_LIBRARY_PATH (or another environment's lib) is found first.",
        )
        .step(Step::Manual(format!(
            "otool -L {} | grep {}",
            needer.unwrap_or("<the failing library>"),
            lib.split('.').next().unwrap_or(lib)
        )))
        .step(Step::Manual(
            "export DYLD_LIBRARY_PATH=<the same list without that directory>, then start Python again".into(),
        ))
    } else {
        Fix::new(
            code,
            "find-older-copy",
            FixKind::Advice,
            format!("Find the older {lib} the loader takes, and take its directory off LD_LIBRARY_PATH"),
            "`ldd` on the failing library shows which copy is found; a CUDA toolkit's lib64 in LD_LIBRARY_PATH is the usual one.",
        )
        .step(Step::Manual(format!("ldd {} | grep {}", needer.unwrap_or("<the failing library>"), lib.split(".so").next().unwrap_or(lib))))
        .step(Step::Manual(
            "export LD_LIBRARY_PATH=<the same list without that directory> (often a CUDA toolkit's /usr/local/cuda*/lib64), then start Python again".into(),
        ))
    };
    // The shadowing copy is the usual cause (a CUDA toolkit's lib64 on LD_LIBRARY_PATH), and a
    // newer pip copy does not get past it: finding it comes before installing one.
    fixes.push(older.unverified().leading());
    fixes.extend(nvjitlink_at_least(cx, symbol, prov));
    d.fixes = crate::fix::rank(fixes);
    d
}

/// nvJitLink versions its symbols by the CUDA release that added them
/// (`__nvJitLinkComplete_12_4`, `_nvJitLinkGetErrorLogSize_12_9`): pip's nvJitLink of that
/// release or later defines them, where the loader takes pip's copy.
fn nvjitlink_at_least(
    cx: &Cx<'_>,
    symbol: &str,
    prov: &abidoc_knowledge::system_libs::SymbolProvider,
) -> Option<Fix> {
    if prov.pip_dir.as_deref() != Some("nvidia/nvjitlink/lib") {
        return None;
    }
    let mut parts = symbol.rsplit('_');
    let minor: u32 = parts.next()?.parse().ok()?;
    let major: u32 = parts.next()?.parse().ok()?;
    let (Some(name), Some(version)) = (
        Name::new(&format!("nvidia-nvjitlink-cu{major}")),
        Version::new(&format!("{major}.{minor}")),
    ) else {
        return None;
    };
    Some(
        Fix::new(
            Code::MissingSharedLibrary,
            "nvjitlink-release",
            FixKind::InstallMissing,
            format!("Install pip's nvJitLink {major}.{minor} or later ({name}>={major}.{minor})"),
            format!("`{symbol}` is nvJitLink's of CUDA {major}.{minor}: the copy that defines it is that release or later. It helps where the loader takes pip's copy (torch's libraries find it by their RUNPATH); a system copy first on LD_LIBRARY_PATH still shadows it."),
        )
        .step(recipes::pip_install(
            cx,
            vec![PipFlag::Upgrade],
            vec![Requirement::AtLeast(name, version)],
        ))
        .cost(crate::fix::Cost::download()),
    )
}

fn hint(cx: &Cx<'_>, lib: &str) -> String {
    let l = lib.to_ascii_lowercase();
    if let Some(h) = super::loadforms::dgl_hint(lib).or_else(|| super::loadforms::unversioned_hint(lib)) {
        return h;
    }
    // cuDNN's sub-libraries are known by cuDNN's own name.
    let product = super::loadforms::product_soname(lib);
    let lib = product.as_deref().unwrap_or(lib);
    if let Some(v) = python_library(lib) {
        return format!(
            "it is Python {v}'s own shared library: the module was built for an interpreter that links it dynamically, and this one has none (pyenv's and other builds without --enable-shared) or keeps it outside the loader's path (a conda or uv interpreter's lib directory)"
        );
    }
    if abidoc_knowledge::system_libs::is_driver_library(lib) {
        return "it comes with the NVIDIA driver, which is not installed or not visible here (a CPU-only machine, or a container started without GPU access or without that part of the driver)".into();
    }
    if torch_core_library(lib) {
        let cuda = lib.contains("_cuda");
        return format!(
            "it is torch's own library (torch/lib), which every {}torch release ships: the extension was loaded before `import torch` put torch's libraries in the process, or {}",
            if cuda { "CUDA build of a " } else { "" },
            if cuda {
                "the torch installed is a CPU-only build (it has no CUDA libraries) or not the one this Python imports"
            } else {
                "torch is not installed where this Python looks"
            }
        );
    }
    if kb::is_torch_library(lib) {
        return "it was part of another torch version: the package was built for a torch that shipped this library".into();
    }
    // cuDNN's table knows one package per CUDA major; the provider table names only some.
    if let Some(c) = kb::cudnn(lib) {
        return format!(
            "cuDNN {} (the so-number is cuDNN's major, not CUDA's), which the failing library needs, is not installed where the loader looks (pip's nvidia-cudnn-cuNN packages or the CUDA toolkit's cuDNN provide it)",
            c.major
        );
    }
    if let Some(sys) = kb::system_library(lib) {
        if let Some(b) = sys.bundled_by.first() {
            return format!(
                "it comes from {}, which is not installed where the loader looks ({} {} and later bundle it in their wheels)",
                sys.what, b.package, b.from
            );
        }
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
    if let Some((c, major)) = kb::cuda_library(lib) {
        // Up to CUDA 10 the so-number carries the minor too (`libcudart.so.10.1` is CUDA 10.1).
        let version = lib
            .split(".so.")
            .nth(1)
            .filter(|v| major <= 10 && v.contains('.'))
            .map_or_else(|| major.to_string(), str::to_owned);
        return format!(
            "{} of CUDA {version}, which this package was built for, is not installed where the loader looks (pip's nvidia-* packages or the CUDA toolkit provide it)",
            c.what
        );
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
    } else if linker_name(lib) {
        "the linker asks for the unversioned development name, which the CUDA toolkit's lib64 provides (pip's nvidia-* wheels ship only the numbered file)".into()
    } else if cx.scene.compile_failed {
        "its build failed earlier in the log, so the file was never produced".into()
    } else {
        "no directory on the loader's search path holds it".into()
    }
}

/// `libpython3.9.so.1.0`, `libpython3.7m.so.1.0` → `3.9`, `3.7`: the interpreter's own library.
fn python_library(lib: &str) -> Option<String> {
    let r = lib.strip_prefix("libpython")?;
    let (v, rest) = r.split_once(".so")?;
    let v = v.trim_end_matches(['m', 'd', 'u', 't']);
    let (major, minor) = v.split_once('.')?;
    let ok = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|c| c.is_ascii_digit());
    (ok(major) && ok(minor) && (rest.is_empty() || rest.starts_with('.'))).then(|| format!("{major}.{minor}"))
}

/// Python's shared library missing: its directory on the loader's path (the interpreter's
/// LIBDIR, where conda and uv keep it), the distribution's package of it, or an interpreter
/// built with it (pyenv's `--enable-shared`).
fn python_library_fixes(lib: &str, v: &str) -> Vec<Fix> {
    let code = Code::MissingSharedLibrary;
    vec![
        Fix::in_words(
            code,
            "python-libdir",
            format!("Put Python {v}'s library directory on the loader's path"),
            "A conda or uv interpreter keeps libpython in its own lib directory (sysconfig's LIBDIR), which the loader does not search unless told; the module finds it there once it is on LD_LIBRARY_PATH.",
            format!(
                "export LD_LIBRARY_PATH=\"$(python{v} -c 'import sysconfig; print(sysconfig.get_config_var(\"LIBDIR\"))')\":$LD_LIBRARY_PATH (run it with the Python that imports the module; check that {lib} is in that directory)"
            ),
        ),
        Fix::in_words(
            code,
            "python-shared-build",
            format!("Use a Python {v} built with its shared library"),
            format!("A system Python gets {lib} from its distribution's package (Debian and Ubuntu: libpython{v}); pyenv builds it only when asked; conda's and uv's Pythons ship it."),
            format!(
                "sudo apt-get install libpython{v} (Debian/Ubuntu), or with pyenv: PYTHON_CONFIGURE_OPTS=\"--enable-shared\" pyenv install --force {v}, then recreate the environment"
            ),
        ),
    ]
}

fn fixes(cx: &Cx<'_>, d: &Diagnostic, lib: &str) -> Vec<Fix> {
    let code = Code::MissingSharedLibrary;
    let l = lib.to_ascii_lowercase();
    if let Some(v) = python_library(lib)
        && cx.world.find_library_dir(lib).is_none()
    {
        return crate::fix::rank(python_library_fixes(lib, &v));
    }
    let mut fixes = super::loadforms::dgl_fixes(lib);
    // The provider tables know cuDNN's sub-libraries by cuDNN's own name.
    let product = super::loadforms::product_soname(lib);
    let key = product.as_deref().unwrap_or(lib);
    if let Some(dir) = cx
        .world
        .find_library_dir(lib)
        .and_then(|p| SafePath::new(&p))
    {
        fixes.push(
            Fix::new(
                code,
                "library-path",
                FixKind::Configure,
                format!("Let the loader find {lib} in {dir}"),
                "The library exists on this machine but outside the loader's search path.",
            )
            .steps(recipes::set_env(
                loader_path_var(cx, lib),
                dir.as_str(),
            )),
        );
    }
    // A package that opens the runtime itself has a release for the runtime at hand: the
    // user-level step its maintainers give, before installing another runtime (its kind ranks
    // it so), after showing the directory of a cuDNN that is there.
    if let Some(f) = runtime_release(cx, d.package.as_deref(), key) {
        fixes.push(f);
    }
    fixes.extend(cuda_runtime(cx, d, lib, key));
    fixes.extend(cudnn_fixes(cx, lib));
    if abidoc_knowledge::system_libs::is_driver_library(lib) && fixes.is_empty() {
        // The container toolkit mounts only the driver libraries of the capabilities asked for
        // (`compute,utility` by default): video and graphics ones need theirs.
        let capability = if l.starts_with("libnvcuvid") || l.starts_with("libnvidia-encode") || l.starts_with("libnvidia-opticalflow") {
            Some("video")
        } else if l.contains("_nvidia.so") {
            Some("graphics")
        } else {
            None
        };
        let (why, step) = match capability {
            Some(c) => (
                format!("The driver's user-space libraries are not pip packages. A container gets {lib} only when started with the driver's `{c}` capability (NVIDIA_DRIVER_CAPABILITIES, default compute,utility); on the host it comes with the full driver, not with a compute-only install."),
                format!("docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=compute,utility,{c} …; on the host, install the driver with its {c} libraries"),
            ),
            None => (
                "The driver's user-space libraries are not pip packages. In Docker, start the container with `--gpus all` (NVIDIA Container Toolkit) so they are mounted in; on a machine without an NVIDIA GPU, nothing that needs them can run, and only code paths that load CUDA fail.".to_owned(),
                "start the container with --gpus all, or run on a machine with the NVIDIA driver".to_owned(),
            ),
        };
        fixes.push(
            Fix::in_words(
                code,
                "driver",
                format!("Run on a machine or container that has the NVIDIA driver ({lib} comes with it)"),
                why,
                step,
            )
            .unverified(),
        );
        return crate::fix::rank(fixes);
    }
    // Only a build links: a loader asking for the unversioned name (ctypes, a runtime's own
    // search `Unable to load any libcudart.so.*`) is helped by the library itself, below.
    let building =
        !cx.scene.packages_built.is_empty() || cx.scene.compile_failed || cx.scene.linking;
    // The loader asks for the development name (ctypes' `find_library('cudart')`, cpm_kernels,
    // CTranslate2's lazy loading): the numbered file pip's wheels and the runtime ship, under
    // that name, in a directory of the user's own on the loader's path.
    if linker_name(lib) && !building {
        fixes.push(
            Fix::in_words(
                code,
                "unversioned-link",
                format!("Let the loader find the installed {lib}.N: its directory on LD_LIBRARY_PATH, and the unversioned name linked to it where that is what is asked"),
                "Only the CUDA toolkit's lib64 (or a -dev package) holds the unversioned name; pip's nvidia-* wheels and the runtime packages ship the numbered file alone (libcudart.so.12), in a directory the loader does not search for other packages. Its directory on LD_LIBRARY_PATH serves a program that opens the numbered file; one that opens the unversioned name (ctypes' find_library, Paddle) also needs a link under that name, in a directory of your own: no root, nothing installed changes.",
                format!(
                    "find the numbered file (`find / -name '{lib}.*' 2>/dev/null`; none: install the CUDA library of the package's CUDA major, nvidia-*-cuXX), then export LD_LIBRARY_PATH=<its directory>:$LD_LIBRARY_PATH; if the error names {lib} itself: `mkdir -p ~/.local/lib/cuda-names && ln -s <that file> ~/.local/lib/cuda-names/{lib}` and add ~/.local/lib/cuda-names to LD_LIBRARY_PATH too"
                ),
            )
            .unverified(),
        );
    }
    if linker_name(lib) && building {
        fixes.push(
            Fix::in_words(
                code,
                "link-dev-name",
                format!("Make {lib} visible to the linker: link the CUDA toolkit's copy into a directory on its -L path"),
                "The build links with -l against the unversioned name; a toolkit outside the default paths, or pip's nvidia-* wheels (which ship only the numbered file), leave it unfound.",
                format!(
                    "ln -s <CUDA toolkit>/lib64/{lib} <a directory on the build's -L path, such as torch/lib>, or set LIBRARY_PATH=<CUDA toolkit>/lib64"
                ),
            )
            .unverified(),
        );
    }
    let torch_lib = kb::is_torch_library(lib);
    let pkg = d.package.as_deref().and_then(Name::new);
    let aligning = aligned(cx, d, key, torch_lib, pkg.as_ref());
    let aligns = !aligning.is_empty();
    fixes.extend(aligning);
    // A package that links torch asking for a CUDA library of a major that is not torch's (or
    // of a torch whose CUDA nothing states): pip's torch loads its own CUDA major's libraries
    // before any extension, so the package was built for another CUDA than torch's. Its build
    // for the installed torch comes first; another CUDA runtime beside torch's only gets it
    // loaded against a CUDA torch does not use. (A conda environment's torch takes its CUDA
    // from the environment's lib directory, which an extension's own lookup may miss.) The
    // tables' pairing above, where they have one, says it with versions.
    if let Some((_, major)) = kb::cuda_library(key)
        && !aligns
        && !cx.scene.mentions_conda
        && let Some(p) = &pkg
        && p.as_str() != "torch"
        && kb::links_torch(p.as_str()) == Some(true)
        && cx.torch_cuda_major() != Some(u64::from(major))
    {
        let ladder =
            recipes::extension_mismatch(code, cx, Some(p.as_str()), d.library.as_deref(), &[]);
        let why = format!(
            "{p} links torch and asks for {lib}, CUDA {major}'s: a pip torch loads its own CUDA's libraries before any extension, so this build of {p} was made for another CUDA than the torch here. "
        );
        fixes.extend(ladder.into_iter().map(|mut f| {
            f.reason.insert_str(0, &why);
            f.leading()
        }));
    }
    if let Some((_, major)) = kb::cuda_library(key) {
        fixes.extend(cuda_variant(cx, lib, major, pkg.as_ref()));
    }
    fixes.extend(newer_release(cx, lib, pkg.as_ref(), torch_lib));
    let provider = kb::system_library(key);
    // The CUDA table and the provider table may both know a library (`libcublas.so.11`): one
    // install of it is enough.
    if let Some(sys) = provider
        && !fixes
            .iter()
            .any(|f| f.id.ends_with("/cuda-runtime") || f.id.ends_with("/cudnn"))
    {
        fixes.extend(variant_without(cx, d.package.as_deref(), lib, sys));
        fixes.extend(system_library(code, cx, lib, sys));
    }
    // A rebuild against torch helps only code that calls into torch, and only when the missing
    // library is not a system one (rebuilding nvidia-cufile does not bring libmlx5).
    // A package seen only near the failure (no `required by`) is not known to need the
    // library: its own JIT product that failed to build is not fixed by rebuilding it.
    // torch's own core libraries are in every release: missing, they were not loaded, and no
    // rebuild changes that.
    if provider.is_none()
        && !torch_core_library(lib)
        && let Some(p) = &pkg
        && (torch_lib || d.library.is_some() && calls_into_torch(cx, d, p.as_str()))
    {
        fixes.extend(recipes::source_build(code, cx, p, &[]));
    }
    last_resort(lib, torch_lib, super::on_macos(cx, Some(lib)), &mut fixes);
    crate::fix::rank(fixes)
}

/// The CUDA library from PyPI for the major its so-number names (`nvidia-cublas-cu11`), or,
/// where PyPI ships none for that major, the package's build for the CUDA at hand in words.
fn cuda_runtime(cx: &Cx<'_>, d: &Diagnostic, lib: &str, key: &str) -> Vec<Fix> {
    let code = Code::MissingSharedLibrary;
    let mut fixes = Vec::new();
    let Some((c, major)) = kb::cuda_library(key) else {
        return fixes;
    };
    match c.packages.iter().find(|p| p.major == major) {
        Some(p) => {
            let req = Name::new(&p.name).map(|n| {
                if p.pin_major {
                    Requirement::Major(n, major)
                } else {
                    Requirement::Any(n)
                }
            });
            if let Some(req) = req {
                let shown = crate::fix::render::requirement(&req);
                fixes.push(
                    Fix::new(
                        code,
                        "cuda-runtime",
                        FixKind::InstallMissing,
                        format!("Install {} of CUDA {major} from PyPI ({shown})", c.what),
                        format!(
                            "The package was built for CUDA {major}; {shown} provides {lib} without root, in site-packages/nvidia/…/lib. The loader searches that directory only for libraries whose RUNPATH names it (torch's do, and torch loads the runtime of its own CUDA first), so a package built for another CUDA than torch's also needs it on LD_LIBRARY_PATH. Alternatively install the package's build for the CUDA you have."
                        ),
                    )
                    .step(recipes::pip_install(cx, Vec::new(), vec![req]))
                    .step(Step::Manual(format!(
                        "if the import still fails: export LD_LIBRARY_PATH=<site-packages>/nvidia/<the library's directory>/lib (the one holding {lib}):$LD_LIBRARY_PATH"
                    )))
                    .cost(crate::fix::Cost::download()),
                );
            }
        }
        // A package with its own wheel page gets that page instead (below).
        None if d
            .package
            .as_deref()
            .and_then(kb::package)
            .is_some_and(|f| f.wheel_index.is_some()) => {}
        None => {
            // PyPI ships no wheel of this major: a toolkit of that release installed on the
            // machine is the one copy there is, outside the loader's path unless configured.
            if cx.world.env().is_none() && crate::fix::valid::plain_file_name(lib) {
                let release = lib.split_once(".so.").map_or("", |(_, v)| v);
                let home = if release.contains('.') {
                    format!(" (a CUDA {release} toolkit keeps it in /usr/local/cuda-{release}/lib64)")
                } else {
                    String::new()
                };
                fixes.push(
                    Fix::new(
                        code,
                        "toolkit-dir",
                        FixKind::Inspect,
                        format!("Let the loader find an installed CUDA {major} toolkit's {lib}"),
                        format!("PyPI has no {} for CUDA {major}; only a CUDA {major} toolkit provides {lib}. When one is installed, its lib64 directory on LD_LIBRARY_PATH is the whole fix.", c.what),
                    )
                    .step(Step::Manual(format!(
                        "find / -name '{lib}*' 2>/dev/null{home}; then export LD_LIBRARY_PATH=<that directory>:$LD_LIBRARY_PATH"
                    ))),
                );
            }
            fixes.push(
            Fix::in_words(
                code,
                "cuda-runtime",
                format!("Install the package's build for the CUDA you have (it wants CUDA {major})"),
                format!(
                    "PyPI ships {} only for CUDA {}; a build of the package for your CUDA, or the CUDA {major} toolkit, is the way out.",
                    c.what,
                    c.packages
                        .iter()
                        .map(|p| p.major.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                format!(
                    "install a build of {} made for the installed CUDA",
                    d.package.as_deref().unwrap_or("the package")
                ),
            ),
        );
        }
    }
    fixes
}

/// cuDNN's: the directory of an installed cuDNN whose sub-library the loader misses, then cuDNN
/// itself.
fn cudnn_fixes(cx: &Cx<'_>, lib: &str) -> Vec<Fix> {
    let code = Code::MissingSharedLibrary;
    let mut fixes = Vec::new();
    let Some(c) = kb::cudnn(lib) else {
        return fixes;
    };
    // A sub-library (`libcudnn_cnn.so.9`, `libcudnn_ops_infer.so.8`) is opened by name by
    // libcudnn itself, which therefore loaded: cuDNN is installed, its directory is not on
    // the loader's path (pip's copy is reached through torch's RPATH, not through another
    // package's). Without an environment to look in, show that directory before installing.
    if cx.world.env().is_none() && cudnn_sub_library(lib) {
        fixes.push(
            Fix::new(
                code,
                "cudnn-dir",
                FixKind::Inspect,
                format!("Put the installed cuDNN {}'s directory on the loader's path", c.major),
                format!(
                    "{lib} is one of the libraries libcudnn.so.{} opens by name when first used: libcudnn itself loaded (torch's nvidia-cudnn wheel, or the copy a package vendors without the sub-libraries, as CTranslate2 4.4.0–4.6.2 do), but the loader does not search pip's cuDNN directory for a library loaded from another package. If the command finds no such module, install cuDNN (a later fix).",
                    c.major
                ),
            )
            .step(Step::Show(Query::PipCudnnDir))
            .step(Step::Manual(
                "export LD_LIBRARY_PATH=<the directory it printed>:<the previous LD_LIBRARY_PATH, if any>, then start Python again".into(),
            )),
        );
    }
    fixes.extend(cudnn_fix(cx, lib, c));
    fixes
}

/// A torch or CUDA library missing beside a package that links torch: the package's release
/// built for the installed torch (or its wheel page, its newest pair, the torch it was built
/// for); with no torch stated, its newest pair for the CUDA major the library names.
fn aligned(cx: &Cx<'_>, d: &Diagnostic, key: &str, torch_lib: bool, pkg: Option<&Name>) -> Vec<Fix> {
    let code = Code::MissingSharedLibrary;
    let mut fixes = Vec::new();
    // A companion built for another torch asks for that torch's libraries, or for the CUDA
    // runtime of that torch's CUDA major: the release built for the installed torch brings
    // both in line (installing the other CUDA runtime only papers over it).
    let cuda_lib = kb::cuda_library(key).is_some();
    if (torch_lib || cuda_lib)
        && let (Some(torch), Some(p)) = (cx.torch(), pkg)
        && p.as_str() != "torch"
    {
        let facts = kb::package(p.as_str());
        let companion = recipes::companion_release(code, cx, p, &torch, facts.as_ref())
                // Else its wheel from the project's own page for this torch and CUDA.
                .or_else(|| recipes::find_links_wheel(code, cx, p, &torch, facts.as_ref()))
                // No release of it is built for the installed torch: the newest pair when its
                // releases stopped before this torch, else its newest release when this torch
                // is the newest known.
                .or_else(|| recipes::newest_pair(code, cx, p, &torch))
                .or_else(|| recipes::newest_release(code, cx, p, &torch));
        // The release for this torch may still be a build for another CUDA than torch's (PyPI's
        // xformers 0.0.35 is CUDA 12's, on torch's stable ABI, beside a CUDA 13 torch): the
        // runtime of the CUDA it asks for comes with it, a few megabytes against a torch move.
        let companion = companion.map(|f| recipes::with_own_cuda_runtime(cx, f, p, &torch, key));
        // Nothing in the tables: the torch it was built for.
        if companion.is_none()
            && let Some(target) = cx.world.built_for_torch(d.library.as_deref())
        {
            fixes.extend(recipes::align_torch(code, cx, p, &target, Some(&torch)));
        }
        fixes.extend(companion);
    }
    // The text states no torch: a pip torch brings its own CUDA major's libraries, so a CUDA
    // library missing beside a package that links torch points at a torch of another major; the
    // package's newest pair, when its torch is of the major the library names, brings both.
    if cx.torch().is_none()
        && let Some(p) = pkg
        && p.as_str() != "torch"
        && kb::links_torch(p.as_str()) == Some(true)
        && let Some((_, major)) = kb::cuda_library(key)
    {
        fixes.extend(recipes::newest_pair_for_cuda(code, cx, p, major));
    }
    // No torch version to align with: the project's wheel page, in words.
    if cuda_lib
        && cx.torch().is_none()
        && let Some(p) = pkg
    {
        fixes.extend(recipes::find_links_advice(code, p, kb::package(p.as_str()).as_ref(), false));
    }
    fixes
}

/// A library the loader found and could not read as one (`invalid ELF header`, `file too
/// short`): a damaged copy (a cut download or install, a full disk) or no library at all (a Git
/// LFS pointer, another platform's file). The package that owns it installed again whole, from
/// no cache; a file outside any Python environment, whatever installed it; `file` says which.
pub(crate) fn unreadable(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    library: &str,
    why: &str,
) -> Diagnostic {
    let code = Code::MissingSharedLibrary;
    let mut d = blank(code, source);
    let base = crate::incidents::basename(library);
    d.library = Some(library.to_owned());
    let norm = library.replace('\\', "/");
    let in_env = norm.contains("/site-packages/") || norm.contains("/dist-packages/");
    // The package whose files these are: its directory, or (`numpy.libs/`, auditwheel's
    // vendored libraries) the package the `.libs` directory belongs to. A namespace directory
    // (`nvidia/cudnn/lib`) names no one package: its owner is `pip`'s to find.
    let owner = ["/site-packages/", "/dist-packages/"]
        .iter()
        .find_map(|m| norm.rsplit_once(m).map(|(_, r)| r))
        .and_then(|r| r.split('/').next())
        .map(|top| top.strip_suffix(".libs").unwrap_or(top))
        .filter(|top| !top.is_empty() && *top != "nvidia")
        .map(crate::kb::normalize);
    d.package = owner.clone().or_else(|| cx.near.map(str::to_owned));
    // glibc's misaligned load command: a file rewritten by a faulty tool (patchelf's
    // alignment bugs, in repaired or repackaged wheels), or on a kernel of 16K/64K pages a
    // library laid out for 4K ones.
    let misaligned = why.contains("aligned");
    d.message = if misaligned {
        format!(
            "{base} is there, but its segments are not aligned as this system's loader needs ({why}): a file rewritten by a faulty tool (patchelf, in a repaired or repackaged wheel), or on a kernel of 16K or 64K pages (Asahi Linux, some aarch64 systems) a build made for 4K pages"
        )
    } else {
        format!(
            "{base} is there, but the loader cannot read it as a library ({why}): the file is damaged (a cut download or install, a full disk) or is no library at all (a Git LFS pointer, another platform's file)"
        )
    };
    d.evidence.push(format!("the loader says: {library}: {why}"));
    let mut fixes = Vec::new();
    if in_env && owner.is_none() {
        fixes.push(
            Fix::in_words(
                code,
                "find-owner",
                format!("Find the pip package that installed {base}, and install it again whole"),
                "The file sits in this Python environment under a directory no single package names (nvidia/…): `pip` says whose it is.",
                format!(
                    "python -m pip list | grep -i nvidia, then `python -m pip show -f <package>` lists its files; python -m pip install --force-reinstall --no-cache-dir --no-deps <the package that lists {base}>"
                ),
            ),
        );
    }
    if in_env && let Some(pkg) = owner.as_deref().and_then(Name::new) {
        fixes.push(recipes::reinstall_same_release(
            code,
            cx,
            &pkg,
            format!("Install {pkg} again whole, without pip's cache"),
            format!("A fresh copy of the same release replaces the damaged {base}; --no-cache-dir keeps pip from reusing a cached copy, which may be the damaged one."),
        ).leading());
    } else if !in_env && let Some(path) = SafePath::new(library) {
        fixes.push(
            Fix::in_words(
                code,
                "replace-damaged",
                format!("Reinstall what put {base} there"),
                "The file is outside any Python environment: the system package, SDK or image that installed it puts a good copy back.",
                format!(
                    "find its owner (`dpkg -S {path}` or `rpm -qf {path}`, else the SDK or build that made it) and reinstall it"
                ),
            ),
        );
    }
    if misaligned {
        fixes.push(
            Fix::in_words(
                code,
                "page-size-build",
                "On a kernel of 16K or 64K pages: a build of the package laid out for them",
                "`getconf PAGESIZE` prints the kernel's page size; a library whose segments are aligned for 4K pages does not load under a larger one. conda-forge's builds, or a build made on that system, are laid out for it.",
                "getconf PAGESIZE; if it is 16384 or 65536, install the package from conda-forge or build it on this system",
            ),
        );
    }
    if let Some(path) = SafePath::new(library) {
        fixes.push(
            Fix::new(
                code,
                "inspect-file",
                FixKind::Inspect,
                format!("See what {base} is"),
                "`file` names a library (`ELF 64-bit LSB shared object`), a text (a Git LFS pointer: `git lfs pull` in the checkout fetches the real file), another platform's binary (Mach-O, PE32), or data cut short.",
            )
            .step(Step::Manual(format!("file {path}; ls -l {path}"))),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// What stays when no table knows the library: torch's core libraries imported before torch,
/// another torch's library, else finding its provider.
fn last_resort(lib: &str, torch_lib: bool, macos: bool, fixes: &mut Vec<Fix>) {
    let code = Code::MissingSharedLibrary;
    if torch_core_library(lib) {
        fixes.insert(
            0,
            Fix::in_words(
                code,
                "import-torch-first",
                "Import torch before the extension (and check that this Python has torch)",
                format!("{lib} sits in torch/lib, which the loader searches only once `import torch` has loaded it; an extension imported first (or run by a Python without torch) cannot find it. Extensions whose package imports torch itself never hit this."),
                "put `import torch` before the import that fails; `python -c \"import torch; print(torch.__file__)\"` shows whether this Python has torch",
            ),
        );
    }
    if fixes.is_empty() && torch_lib {
        fixes.push(
            Fix::new(
                code,
                "companion-release",
                FixKind::AlignCompanion,
                format!("Install the release of the failing package built for the installed torch ({lib} belongs to another torch)"),
                "torch libraries are renamed and split between releases; torchaudio, torchvision and other extensions must come from the release matching torch. `abidoc scan` names every package built for another torch.",
            )
            .step(Step::Manual("pin the package to the release built for the installed torch".into())),
        );
    }
    if fixes.is_empty() {
        // macOS' loader (dyld) reads DYLD_LIBRARY_PATH, and has neither ldconfig nor apt.
        let (var, reason, found) = if macos {
            (
                "DYLD_LIBRARY_PATH",
                " dyld looks in the install name's directory (`Library not loaded: …`) and then DYLD_LIBRARY_PATH.",
                format!(
                    "on this Mac `find / -name '{lib}' 2>/dev/null`; as a package, the Homebrew formula (`brew search`) or conda-forge package of the project that ships it"
                ),
            )
        } else {
            (
                "LD_LIBRARY_PATH",
                "",
                format!(
                    "on this machine `ldconfig -p | grep {lib}` or `find / -name '{lib}*' 2>/dev/null`; as a package, `apt-file search {lib}` or `dnf provides '*/{lib}'`"
                ),
            )
        };
        let add = format!("export {var}=<the directory holding it>:${var}");
        fixes.push(
            Fix::new(
                code,
                "find-provider",
                FixKind::Advice,
                format!("Find which package should provide {lib} and install it, or add its directory to {var}"),
                format!("`abidoc scan` lists every library whose needed libraries are not found, with their owners.{reason}"),
            )
            // Both ways in words: the package manager's search names the package that ships
            // it; a copy already on the machine needs only the loader pointed at it.
            // The name goes into commands a person may paste: only a plain file name does.
            .step(Step::Manual(if crate::fix::valid::plain_file_name(lib) {
                format!(
                    "find {lib}: {found}; install that package, or, when the file is already on the machine, {add}"
                )
            } else {
                format!(
                    "find the package that ships the library, install it, or, when the file is already on the machine, {add}"
                )
            }))
            .unverified(),
        );
    }
}

/// jaxlib's CUDA plugin failing to open a CUDA library (`Unable to load cuDNN. Is it
/// installed?`): `jax[cudaNN]` installs them as nvidia-* wheels and opens them from there, so
/// the usual cause is another release of the library found first (a system CUDA or cuDNN on
/// LD_LIBRARY_PATH, an older nvJitLink under cuSPARSE), else wheels of another release.
pub(crate) fn jax_cuda_library(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    let code = Code::MissingSharedLibrary;
    let mut d = blank(code, source);
    d.package = Some("jax".to_owned());
    let product = detail
        .split("Unable to load ")
        .nth(1)
        .and_then(|r| r.split(['.', ' ']).next())
        .filter(|w| !w.is_empty() && w.len() <= 16)
        .unwrap_or("a CUDA library");
    d.message = format!(
        "jax's CUDA plugin could not load {product}: jax[cuda] installs it as an nvidia-* wheel and opens that copy, unless another release of it (or of a library it needs) is found first"
    );
    d.evidence.push(format!("the text says: {}", detail.trim()));
    let extra = recipes::jax_cuda_extra(cx, None);
    let mut fixes = vec![
        Fix::new(
            code,
            "ld-library-path-off",
            FixKind::Configure,
            "Take other CUDA installations off LD_LIBRARY_PATH",
            "A system or module CUDA (or cuDNN) on LD_LIBRARY_PATH is searched before the nvidia-* wheels jax opens, and an older copy of a library the wheel needs (libnvJitLink under cuSPARSE, cuDNN's of another release) makes the load fail.",
        )
        .step(Step::Manual(
            "export LD_LIBRARY_PATH=<its directories without a CUDA toolkit's lib64 or a cuDNN> (or unset LD_LIBRARY_PATH), then start Python again".into(),
        ))
        .leading(),
    ];
    if let Some(step) = recipes::jax_with_extra(cx, extra) {
        fixes.push(
            Fix::new(
                code,
                "jax-cuda-extra",
                FixKind::InstallMissing,
                format!("Or install jax's CUDA {} libraries again, as one matched set", extra.trim_start_matches("cuda")),
                "jax's CUDA extra pins the nvidia-* wheels its plugin was built with; a later install of another package may have moved one of them.",
            )
            .step(step)
            .cost(crate::fix::Cost::download()),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// cuDNN of the major the so-number names, from PyPI for the CUDA major the text states (torch's
/// `+cuNNN` label or a CUDA version); without one, advice naming each CUDA major's package.
fn cudnn_fix(
    cx: &Cx<'_>,
    lib: &str,
    c: &abidoc_knowledge::system_libs::CudnnMajor,
) -> Option<Fix> {
    let code = Code::MissingSharedLibrary;
    let requirement = |p: &abidoc_knowledge::system_libs::CudnnPackage| {
        let n = Name::new(&p.name)?;
        Some(match (&p.below, p.pin_major) {
            (Some(b), _) => Requirement::Below(n, crate::fix::Version::new(b)?),
            (None, true) => Requirement::Major(n, c.major),
            (None, false) => Requirement::Any(n),
        })
    };
    // torch's CUDA: its `+cuNNN` label, else the CUDA the text states, else the default CUDA
    // of its release (the build PyPI serves).
    let torch = cx
        .torch()
        .and_then(|t| abidoc_knowledge::version::Version::parse(&t));
    let cuda = torch
        .as_ref()
        .and_then(abidoc_knowledge::version::Version::local_cuda)
        .map(|(m, _)| m)
        .or_else(|| {
            cx.scene
                .version_of("cuda")
                .and_then(|v| v.split('.').next()?.parse().ok())
        })
        .or_else(|| {
            let t = torch.as_ref().filter(|t| t.local_label().is_none())?;
            abidoc_knowledge::torch_default_cuda(t.public())?
                .split('.')
                .next()?
                .parse()
                .ok()
        });
    if let Some(p) = cuda.and_then(|m: u64| c.packages.iter().find(|p| u64::from(p.cuda) == m))
        && let Some(req) = requirement(p)
    {
        let shown = crate::fix::render::requirement(&req);
        return Some(
            Fix::new(
                code,
                "cudnn",
                FixKind::InstallMissing,
                format!("Install cuDNN {} for CUDA {} from PyPI ({shown})", c.major, p.cuda),
                format!("{lib} is cuDNN {}'s; {shown} provides it without root.", c.major),
            )
            .step(recipes::pip_install(cx, Vec::new(), vec![req]))
            .cost(crate::fix::Cost::download()),
        );
    }
    let choices: Vec<String> = c
        .packages
        .iter()
        .filter_map(|p| {
            requirement(p).map(|r| format!("CUDA {}: {}", p.cuda, crate::fix::render::requirement(&r)))
        })
        .collect();
    Some(
        Fix::in_words(
            code,
            "cudnn",
            format!("Install cuDNN {} for the CUDA major in use, from PyPI", c.major),
            format!(
                "{lib} is cuDNN {}'s; the text does not say which CUDA major is in use, so the package is one of: {}.",
                c.major,
                choices.join("; ")
            ),
            format!(
                "pip install the cuDNN {} package for the CUDA in use ({})",
                c.major,
                choices.join("; ")
            ),
        ),
    )
}

/// The package's newest release, when the library it cannot find says it is older than the
/// machine: its own library for the CUDA found (bitsandbytes' `libbitsandbytes_cuda124.so`,
/// shipped by later releases), or the runtime of CUDA 11 or older, which current releases no
/// longer link (onnxruntime-gpu 1.17's `libcublasLt.so.11`). Not for torch, torch's own
/// libraries, or packages installed from a repository rather than PyPI.
fn newer_release(cx: &Cx<'_>, lib: &str, pkg: Option<&Name>, torch_lib: bool) -> Option<Fix> {
    let pkg = pkg?;
    let facts = kb::package(pkg.as_str());
    if torch_lib
        || pkg.as_str() == "torch"
        || facts
            .as_ref()
            .is_some_and(|f| f.from_repository || f.framework)
    {
        return None;
    }
    // Only a package PyPI serves as wheels: one published on its own wheel page, or as an
    // sdist alone, would be compiled (or, for mmcv 1.x, replaced by its lite build).
    let releases = abidoc_knowledge::releases::releases(pkg.as_str());
    if facts.as_ref().is_some_and(|f| f.wheel_index.is_some())
        || (!releases.is_empty() && !releases.iter().any(|r| r.wheels))
    {
        return None;
    }
    // The library's own name says whose it is and for which CUDA (`libbitsandbytes_cuda124`);
    // a JIT op's library (`fused_adam.so`) is a build product, not a release's file.
    let for_cuda = lib
        .match_indices("cuda")
        .any(|(i, _)| lib.as_bytes().get(i + 4).is_some_and(u8::is_ascii_digit));
    let own = for_cuda
        && abidoc_knowledge::packages::mentions(lib)
            .first()
            .is_some_and(|m| m.package.name == pkg.as_str());
    let old_cuda = kb::cuda_library(lib)
        .map(|(_, major)| major)
        .filter(|&m| m <= 11);
    let why = match (own, old_cuda) {
        (true, _) => format!(
            "{lib} is {pkg}'s own library for the CUDA it found, and this release does not ship it; later releases ship libraries for more CUDA versions."
        ),
        (false, Some(major)) => format!(
            "{pkg} was built for CUDA {major}, whose runtime is not installed; its newest release is built for a current CUDA (12 or later), which matches current torch and drivers, rather than adding CUDA {major}'s libraries."
        ),
        _ => return None,
    };
    // A package built only from a checkout has no release to install by name; one published
    // per CUDA major is upgraded by its build's own name (`cupy` alone is CuPy's source build).
    if kb::checkout_only(pkg.as_str())
        || abidoc_knowledge::packages::untagged_per_cuda(pkg.as_str()).is_some()
    {
        return None;
    }
    Some(newest_release(
        cx,
        pkg,
        format!("Install the newest {pkg}, built for the CUDA this machine has"),
        why,
    ))
}

/// A package published once per CUDA build (CuPy's `cupy-cuda12x`, RAPIDS' `cudf-cu12`,
/// spconv's `spconv-cu118`) asking for a CUDA `major` library: the build installed is the one
/// for that CUDA. Where the machine's CUDA is known and another, its own build replaces the
/// installed one (one download, nothing compiled); where nothing says, the swap is advice for
/// a machine whose CUDA is not `major`.
fn cuda_variant(cx: &Cx<'_>, lib: &str, major: u32, pkg: Option<&Name>) -> Option<Fix> {
    use abidoc_knowledge::packages::{cuda_tag, cuda_variants, untagged_name, variant_for_cuda};
    let facts = abidoc_knowledge::packages::package(pkg?.as_str())?;
    let variants = cuda_variants(facts);
    if variants.is_empty() {
        return None;
    }
    let family = untagged_name(facts);
    let code = Code::MissingSharedLibrary;
    // The build that asks for the library is CUDA `major`'s: the one the text names, else the
    // environment's, else the tables' build for that CUDA. One of another CUDA named here is
    // not what loads this library: nothing to say of it.
    let named = pkg
        .map(Name::as_str)
        .filter(|n| cuda_tag(n).is_some())
        .map(str::to_owned)
        .or_else(|| {
            cx.installed_builds(pkg?)
                .into_iter()
                .map(|n| n.as_str().to_owned())
                .find(|n| cuda_tag(n).is_some_and(|(m, _)| m == major))
        });
    let installed = match named {
        Some(n) => n,
        None => variant_for_cuda(facts, major, None)?.to_owned(),
    };
    if cuda_tag(&installed).is_none_or(|(m, _)| m != major) {
        return None;
    }
    let why = format!(
        "{installed} is {family}'s build for CUDA {major}, and it loads {lib}, CUDA {major}'s. {family} is published once per CUDA build, and each build loads the libraries of its own CUDA, so the one for the machine's CUDA finds them, where CUDA {major}'s runtime added beside another CUDA puts a second CUDA in the process."
    );
    match cx.machine_cuda() {
        Some((m, _)) if m == major => None,
        Some((m, minor)) => {
            // No build for the machine's CUDA: nothing to swap to.
            let target = variant_for_cuda(facts, m, minor)?;
            let (old, new) = (Name::new(&installed)?, Name::new(target)?);
            (target != installed).then(|| {
                Fix::new(
                    code,
                    "cuda-build",
                    FixKind::AlignCompanion,
                    format!("Install {target}, the {family} build for CUDA {m} this machine runs, in place of {installed}"),
                    why,
                )
                .step(recipes::pip_uninstall(cx, vec![old]))
                .step(recipes::pip_install(
                    cx,
                    vec![PipFlag::NoCacheDir],
                    vec![Requirement::Any(new)],
                ))
                .cost(crate::fix::Cost::download())
                .leading()
            })
        }
        None => {
            // One build per other CUDA major, the newest major first.
            let mut majors: Vec<u32> = variants
                .iter()
                .map(|(_, (m, _))| *m)
                .filter(|m| *m != major)
                .collect();
            majors.sort_unstable_by(|a, b| b.cmp(a));
            majors.dedup();
            let others: Vec<String> = majors
                .into_iter()
                .filter_map(|m| Some(format!("{} for CUDA {m}", variant_for_cuda(facts, m, None)?)))
                .collect();
            (!others.is_empty()).then(|| {
                Fix::in_words(
                    code,
                    "cuda-build",
                    format!("If this machine's CUDA is not {major}: install the {family} build for its CUDA in place of {installed}"),
                    why,
                    format!(
                        "pip uninstall {installed}, then pip install the build for the machine's CUDA ({})",
                        others.join(", ")
                    ),
                )
                .unverified()
            })
        }
    }
}

/// The package's newest release from PyPI, never a cached build: the fix when an older release
/// lacks the library for this machine's CUDA.
fn newest_release(cx: &Cx<'_>, pkg: &Name, title: String, why: String) -> Fix {
    Fix::new(
        Code::MissingSharedLibrary,
        "newer-release",
        FixKind::AlignCompanion,
        title,
        why,
    )
    .step(recipes::pip_install(
        cx,
        vec![PipFlag::Upgrade, PipFlag::NoCacheDir],
        vec![Requirement::Any(pkg.clone())],
    ))
    .cost(crate::fix::Cost::download())
}

/// Whether `pkg` (owner of the failing library) is compiled against torch: known packages say so;
/// otherwise the library's own imports tell (torch symbols, or a torch pin in its metadata).
fn calls_into_torch(cx: &Cx<'_>, d: &Diagnostic, pkg: &str) -> bool {
    if let Some(known) = kb::links_torch(pkg) {
        return known;
    }
    d.library
        .as_deref()
        .and_then(|l| cx.world.library_facts(l))
        .is_some_and(|f| f.torch_symbol_count > 0 || f.built_for_torch.is_some())
}

/// The failing package's variant that does not need the library (opencv-python-headless for a
/// missing libGL): one user-level swap instead of a system install. The variant installed is the
/// one of the distribution installed (contrib or not) when the environment says, else of the
/// package the text shows.
fn variant_without(
    cx: &Cx<'_>,
    package: Option<&str>,
    lib: &str,
    sys: &abidoc_knowledge::system_libs::SystemLibrary,
) -> Option<Fix> {
    let package = package?;
    let family = kb::package(package).map(|f| f.name);
    let v = sys
        .variants
        .iter()
        .filter(|v| {
            Some(v.package.as_str()) == family.as_deref() || v.package == package
        })
        .find(|v| cx.world.is_installed(&v.package).unwrap_or(true))
        .or_else(|| sys.variants.iter().find(|v| v.package == package))?;
    let (from, to) = (Name::new(&v.package)?, Name::new(&v.without)?);
    Some(
        Fix::new(
            Code::MissingSharedLibrary,
            "variant-without",
            FixKind::InstallMissing,
            format!("Replace {from} with {to}, which does not need {lib}"),
            format!(
                "{to} is {from} built without what needs {lib}; it lacks only {}, and installs without root. Both install the same module, so the first goes before the second comes in. Code that needs {} keeps {from} and installs the system library instead (the next fix).",
                v.lacks, v.lacks
            ),
        )
        .step(recipes::pip_uninstall(cx, vec![from]))
        .step(recipes::pip_install(cx, Vec::new(), vec![Requirement::Any(to)]))
        .cost(crate::fix::Cost::download()),
    )
}

/// Installing the provider of a library no wheel ships: pip first (no root), then conda inside a
/// conda environment, then the machine's package manager. Names come from the compiled-in table
/// (checked by the knowledge tests), never from the text.
pub(crate) fn system_library(
    code: Code,
    cx: &Cx<'_>,
    lib: &str,
    sys: &abidoc_knowledge::system_libs::SystemLibrary,
) -> Vec<Fix> {
    // Installed where its own installer puts it, it is only missing from the loader's path:
    // the user-level step first (no download), the install for where it is not there.
    let on_path = sys
        .install_dir
        .as_deref()
        .filter(|_| lib.contains(".so"))
        .and_then(SafePath::new)
        .map(|dir| {
            let f = Fix::new(
                code,
                "install-dir-on-path",
                FixKind::Configure,
                format!("If {} is installed in {dir}, let the loader find {lib} there", sys.what),
                format!("{}'s installer puts its libraries in {dir}, which is not on the loader's default search path.", sys.what),
            )
            .steps(recipes::set_env("LD_LIBRARY_PATH", dir.as_str()));
            if cx.world.ctx.use_env { f } else { f.unverified() }
        });
    // A release of the Python package that bundles the library: user-level, first.
    let bundled = sys.bundled_by.iter().filter_map(|b| {
        let n = Name::new(&b.package)?;
        let v = crate::fix::Version::new(&b.from)?;
        Some(
            Fix::new(
                code,
                "bundled-release",
                FixKind::PrebuiltWheel,
                format!("Upgrade {n} to {} or later, whose wheels bundle {}", b.from, sys.what),
                format!("{n}'s wheels from {} on carry their own copy of {lib}'s library; no system package (and no root) is needed.", b.from),
            )
            .step(recipes::pip_install(
                cx,
                vec![crate::fix::PipFlag::Upgrade],
                vec![crate::fix::Requirement::AtLeast(n, v)],
            ))
            .cost(crate::fix::Cost::download()),
        )
    });
    bundled
        .chain(on_path)
        .chain(install_system_library(code, cx, lib, sys))
        .collect()
}

/// A system library's install with each Linux and conda manager, in words, for a fix that
/// cannot tell which one the machine uses.
pub(crate) fn manager_alternatives(sys: &abidoc_knowledge::system_libs::SystemLibrary) -> Vec<String> {
    let mut out = Vec::new();
    if !sys.apt.is_empty() {
        out.push(format!("Debian/Ubuntu: apt-get install {}", sys.apt.join(" ")));
    }
    if !sys.dnf.is_empty() {
        out.push(format!("Fedora/RHEL: dnf install {}", sys.dnf.join(" ")));
    }
    if !sys.conda.is_empty() {
        out.push(format!("conda: conda install -c conda-forge {}", sys.conda.join(" ")));
    }
    out
}

/// The install of a system library (pip, conda, Homebrew, the distribution's manager).
fn install_system_library(
    code: Code,
    cx: &Cx<'_>,
    lib: &str,
    sys: &abidoc_knowledge::system_libs::SystemLibrary,
) -> Vec<Fix> {
    let names = |v: &[String]| -> Option<Vec<Name>> {
        let n: Vec<Name> = v.iter().filter_map(|s| Name::new(s)).collect();
        (!n.is_empty() && n.len() == v.len()).then_some(n)
    };
    let mut reason = format!(
        "{lib} is not part of any wheel here: it comes from {}, used for {}.",
        sys.what, sys.used_for
    );
    if let Some(note) = &sys.note {
        reason.push(' ');
        reason.push_str(note);
        reason.push('.');
    }
    if let Some(pip) = names(&sys.pip) {
        let list: Vec<&str> = pip.iter().map(Name::as_str).collect();
        // The package's newest release may carry another major of the library (cuDNN 9 in
        // nvidia-cudnn-cu11): the requirement keeps the major the name asks for.
        let reqs: Vec<Requirement> = pip
            .iter()
            .map(|n| super::loadforms::pip_requirement(lib, n))
            .collect();
        let shown = reqs
            .iter()
            .map(crate::fix::render::requirement)
            .collect::<Vec<_>>()
            .join(" ");
        return vec![
            Fix::new(
                code,
                "system-library-pip",
                FixKind::InstallMissing,
                format!("Install {} from PyPI ({shown})", sys.what),
                if list.iter().all(|n| n.starts_with("nvidia-")) {
                    // torch preloads the nvidia-* libraries it needs; a program that loads one by
                    // name (CTranslate2, ONNX Runtime) finds it only on the loader's path.
                    format!(
                        "{reason} The PyPI package installs it without root, under site-packages/nvidia/; a program other than torch that loads it by name also needs that lib directory on LD_LIBRARY_PATH."
                    )
                } else {
                    format!("{reason} The PyPI package installs it without root.")
                },
            )
            .step(recipes::pip_install(cx, Vec::new(), reqs)),
        ];
    }
    let mut alternatives = manager_alternatives(sys);
    // A macOS library with no Homebrew formula in the table, or a Windows text: no Linux package
    // manager applies.
    if lib.ends_with(".dylib") || cx.scene.mentions_windows {
        alternatives.retain(|a| a.starts_with("conda:"));
    }
    // `what` may carry a remark in parentheses (how so-numbers name FFmpeg's majors): the
    // reason keeps it, the title does not.
    let title = format!(
        "Install {}, which provides {lib}",
        sys.what.split(" (").next().unwrap_or(&sys.what)
    );
    // A macOS library (`.dylib`) with a Homebrew formula: Homebrew is how macOS users get it
    // (no root), and no Linux package manager applies.
    if lib.ends_with(".dylib") && !sys.brew.is_empty() && !cx.world.in_conda() {
        let brew = format!("brew install {}", sys.brew.join(" "));
        let mut rest = vec![brew.clone()];
        if !sys.conda.is_empty() {
            rest.push(format!("in a conda environment: conda install -c conda-forge {}", sys.conda.join(" ")));
        }
        return vec![
            Fix::new(code, "system-library-brew", FixKind::Advice, title, format!("{reason} On macOS, Homebrew installs it (no root)."))
                .step(Step::Manual(format!("{}, then start Python again", rest.join("; or ")))),
        ];
    }
    if let Some(pkgs) = names(&sys.conda).filter(|_| cx.world.in_conda()) {
        return vec![
            Fix::new(code, "system-library-conda", FixKind::InstallMissing, title, reason)
                .step(Step::CondaInstall {
                    channel: CondaChannel::CondaForge,
                    packages: pkgs.into_iter().map(Requirement::Any).collect(),
                }),
        ];
    }
    let manager = cx.world.system_package_manager();
    let pkgs = match manager {
        Some(SystemManager::Apt) => names(&sys.apt),
        Some(SystemManager::Dnf) => names(&sys.dnf),
        None => None,
    };
    match (manager, pkgs) {
        (Some(manager), Some(pkgs)) => vec![
            Fix::new(code, "system-library", FixKind::NeedsRoot, title, reason).step(
                Step::SystemInstall {
                    manager,
                    packages: pkgs,
                },
            ),
        ],
        // The distribution is unknown (or the text came from elsewhere): name every choice.
        _ => vec![
            Fix::new(
                code,
                "system-library",
                FixKind::Advice,
                title,
                if alternatives.is_empty() {
                    reason
                } else {
                    format!(
                        "{reason} The system's package manager is not known here; choose: {}.",
                        alternatives.join("; ")
                    )
                },
            )
            // With no package to name, the table's note is what to do.
            .step(Step::Manual(if alternatives.is_empty() {
                sys.note.clone().unwrap_or_else(|| format!("install {}", sys.what))
            } else {
                alternatives.join("; ")
            })),
        ],
    }
}

/// The variable the loader reads for extra directories: dyld's on macOS, else ld.so's.
fn loader_path_var(cx: &Cx<'_>, lib: &str) -> &'static str {
    if super::on_macos(cx, Some(lib)) {
        "DYLD_LIBRARY_PATH"
    } else {
        "LD_LIBRARY_PATH"
    }
}

/// One of the libraries cuDNN splits into and opens itself (`libcudnn_<part>.so.N`), not the
/// `libcudnn.so.N` an extension links.
fn cudnn_sub_library(lib: &str) -> bool {
    lib.strip_prefix("libcudnn_")
        .is_some_and(|rest| rest.contains(".so"))
}

fn linker_name(lib: &str) -> bool {
    const CUDA: &[&str] = &[
        "libcudart", "libcublas", "libcublasLt", "libcurand", "libcusparse", "libcufft",
        "libcusolver", "libnvrtc", "libcudnn", "libnvToolsExt", "libnvJitLink",
    ];
    lib.strip_suffix(".so").is_some_and(|stem| CUDA.contains(&stem))
}

/// auditwheel could not find a library the wheel it repairs links (`Cannot repair wheel, because
/// required library "libcudart.so.13" could not be located`). CUDA's, the driver's and torch's
/// libraries are never vendored (torch's wheel and the nvidia-* wheels bring them at run time):
/// excluded from the repair; another library's directory is given to auditwheel.
pub(crate) fn auditwheel(source: Option<SourceRef>, name: &str) -> Diagnostic {
    let code = Code::MissingSharedLibrary;
    let mut d = blank(code, source);
    let lib = basename(name);
    let key = super::loadforms::product_soname(lib);
    let key = key.as_deref().unwrap_or(lib);
    let runtime = kb::cuda_library(key).is_some()
        || kb::is_torch_library(lib)
        || abidoc_knowledge::system_libs::is_driver_library(lib);
    d.message = format!(
        "auditwheel cannot repair the wheel: the built extension links {lib}, which is not on the build machine's loader path, so auditwheel cannot copy it into the wheel{}",
        if runtime {
            " (and a CUDA, driver or torch library must not be copied in: torch's and the nvidia-* wheels provide it where the wheel runs)"
        } else {
            ""
        }
    );
    let mut fixes = Vec::new();
    if runtime {
        fixes.push(
            Fix::in_words(
                code,
                "auditwheel-exclude",
                format!("Leave {lib} out of the repair: auditwheel repair --exclude {lib}"),
                "The wheel then keeps its dependency on the library by name, as torch's own extensions do; the CUDA runtime, driver and torch libraries come from the environment it is installed in (torch's wheel and its nvidia-* wheels).",
                format!(
                    "add --exclude {lib} (one per library of CUDA, the driver or torch the extension links) to the `auditwheel repair` command of the build"
                ),
            )
            .leading(),
        );
    } else {
        fixes.push(
            Fix::in_words(
                code,
                "auditwheel-path",
                format!("Let auditwheel find {lib}: its directory on LD_LIBRARY_PATH for the repair"),
                "auditwheel looks libraries up as the loader does; the directory the build linked it from (an install prefix, a build tree) must be on the loader's path while it runs, and it then copies the library into the wheel.",
                format!(
                    "LD_LIBRARY_PATH=<the directory holding {lib}>:$LD_LIBRARY_PATH auditwheel repair <the wheel>"
                ),
            ),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The library's own name when `lib` is one auditwheel vendored: `lib<name>-<8 hex digits of
/// its hash>` then the soname's tail (`libpq-a407f694.so.5.12` is libpq.so.5.12,
/// `libopenblasp-r0-2ecf47d5.3.13.dev.so` is libopenblasp-r0.3.13.dev.so). A hash without a
/// letter is taken for a date or version (`libfoo-20230101.so`) and left alone.
fn vendored(lib: &str) -> Option<String> {
    if !lib.starts_with("lib") {
        return None;
    }
    let mut from = 0;
    while let Some(i) = lib[from..].find('-').map(|i| i + from) {
        let hash = lib.get(i + 1..i + 9)?;
        let after = &lib[(i + 9).min(lib.len())..];
        if hash.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            && hash.bytes().any(|b| b.is_ascii_alphabetic())
            && after.starts_with('.')
            && after.contains("so")
        {
            return Some(format!("{}{after}", &lib[..i]));
        }
        from = i + 1;
    }
    None
}

/// A vendored library missing: the package's wheel again, whole; then, for a release whose
/// wheel lacks it, the release before the one the text shows.
fn vendored_fixes(cx: &Cx<'_>, package: Option<&str>, lib: &str) -> Vec<Fix> {
    let code = Code::MissingSharedLibrary;
    let Some(pkg) = package.and_then(Name::new) else {
        return vec![
            Fix::in_words(
                code,
                "reinstall-wheel",
                "Install again the package whose `.libs` directory should hold it",
                format!("{lib} is vendored by one package's wheel; the traceback's package (its `<name>.libs` directory in site-packages) is the one to install again."),
                format!(
                    "python -m pip install --force-reinstall --no-cache-dir --no-deps <the package that imports it> (its wheel carries {lib})"
                ),
            ),
        ];
    };
    let mut fixes = vec![recipes::reinstall_same_release(
        code,
        cx,
        &pkg,
        format!("Install {pkg} again, whole: its wheel carries {lib}"),
        format!("{lib} ships inside {pkg}'s wheel (in its `.libs` directory); a fresh install of the same release puts it back."),
    )];
    let shown = cx
        .package_version(pkg.as_str())
        .and_then(|v| Version::new(&v));
    if let Some(v) = shown {
        fixes.push(
            Fix::new(
                code,
                "previous-release",
                FixKind::PrebuiltWheel,
                format!("Or, if {pkg} {v} fails again after a fresh install, a release before it"),
                format!("A release whose wheel was repaired without {lib} fails for everyone who installs it; the one before it loads until a fixed release comes."),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::NoCacheDir],
                vec![Requirement::Below(pkg, v)],
            ))
            .cost(crate::fix::Cost::download())
            .unverified(),
        );
    }
    crate::fix::rank(fixes)
}

/// A Python extension module (`knn.so`, `_C.cpython-310-x86_64-linux-gnu.so`, not a `lib*.so`
/// library any directory may hold) given by its path inside an installed package's directory:
/// the module's name and the package directory's name.
fn own_module(full: &str) -> Option<(String, String)> {
    let path = full.replace('\\', "/");
    let (_, rest) = path
        .split_once("/site-packages/")
        .or_else(|| path.split_once("/dist-packages/"))?;
    let (top, _) = rest.split_once('/')?;
    let file = basename(&path);
    let lower = file.to_ascii_lowercase();
    let module = !lower.starts_with("lib") && (lower.ends_with(".so") || lower.ends_with(".pyd"));
    let plain = |t: &str| {
        !t.is_empty()
            && t.len() <= 64
            && t.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
    };
    let stem = file.split('.').next().unwrap_or("");
    (module && plain(top) && plain(stem) && top != "torch" && top != "nvidia")
        .then(|| (stem.to_owned(), kb::normalize(top)))
}

/// The build directory of a torch JIT extension (`~/.cache/torch_extensions/py310_cu117/fused_adam`):
/// strictly inside `torch_extensions/`, and a plain path.
fn jit_build_dir(full: &str) -> Option<SafePath> {
    let dir = SafePath::new(full)?.parent()?;
    let (_, rest) = dir.as_str().split_once("/torch_extensions/")?;
    (!rest.is_empty()).then_some(dir)
}

/// A package that picks its own CUDA library at import found none it could load and runs
/// without CUDA (bitsandbytes' CUDA setup). Its releases since 0.43 ship a library for each
/// supported CUDA and load the runtime torch brings, so the newest release is the user-level
/// fix; older releases look for the CUDA runtime on the loader's path, which the advice sets.
pub(crate) fn cuda_setup_failed(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    package: &str,
    detail: &str,
) -> Diagnostic {
    let code = Code::MissingSharedLibrary;
    let mut d = blank(code, source);
    d.package = Some(package.to_owned());
    d.message = format!(
        "{package} found no CUDA library it could load and runs without CUDA: this release has no library for the CUDA it detected, or the CUDA runtime it loads is not on the loader's path"
    );
    d.evidence.push(format!("the text says: {}", detail.trim()));
    let mut fixes = Vec::new();
    if let Some(pkg) = Name::new(package) {
        fixes.push(newest_release(
            cx,
            &pkg,
            format!("Install the newest {pkg}, which ships its library for each CUDA torch uses"),
            format!("Since 0.43, {pkg}'s wheels carry a library per supported CUDA (Linux and Windows) and load the CUDA runtime torch brings; older releases compiled for fewer CUDA versions and searched the system for the runtime."),
        ));
    }
    fixes.push(
        Fix::in_words(
            code,
            "runtime-on-path",
            "Or keep this release and put the CUDA runtime it looks for on the loader's path",
            "Older releases load libcudart from LD_LIBRARY_PATH (or BNB_CUDA_VERSION picks the library for another CUDA); `python -m bitsandbytes` prints what it found.",
            if cx.scene.mentions_windows {
                "set \"PATH=<the folder with cudart64_NN.dll, e.g. site-packages\\nvidia\\cuda_runtime\\bin or the CUDA toolkit's bin>;%PATH%\" in the window that starts Python".to_owned()
            } else {
                "export LD_LIBRARY_PATH=<the directory with libcudart.so, e.g. site-packages/nvidia/cuda_runtime/lib or /usr/local/cuda/lib64>:$LD_LIBRARY_PATH".to_owned()
            },
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The libraries of the nvidia-* wheels torch's Linux CUDA wheels require (2.0 on), which its
/// `__init__` loads itself.
const TORCH_CUDA_DEPS: &[&str] = &[
    "libcublas", "libcudart", "libcudnn", "libcufft", "libcurand", "libcusolver", "libcusparse",
    "libnccl", "libnvrtc", "libnvToolsExt", "libnvJitLink", "libcupti", "libcufile", "libnvshmem",
];

/// torch's loader missing a CUDA library of its own dependency wheels (see `diagnose`).
fn torch_dependencies(cx: &Cx<'_>, source: Option<SourceRef>, name: &str) -> Diagnostic {
    let code = Code::MissingSharedLibrary;
    let mut d = blank(code, source);
    let lib = basename(name);
    d.package = Some("torch".to_owned());
    d.message = format!(
        "torch cannot load {lib}, one of the CUDA libraries of the nvidia-* wheels it depends on: those wheels are not installed where torch looks for them, next to it in site-packages (torch installed with --no-deps, or by a tool that resolved its dependencies for another platform)"
    );
    let torch = cx.torch();
    let mut fixes = Vec::new();
    let req = torch
        .as_deref()
        .and_then(|v| recipes::exact("torch", recipes::short_torch(v)))
        .or_else(|| Name::new("torch").map(Requirement::Any));
    if let Some(req) = req {
        let shown = crate::fix::render::requirement(&req);
        fixes.push(
            Fix::new(
                code,
                "torch-dependencies",
                FixKind::InstallMissing,
                format!("Install the CUDA wheels torch requires: pip install {shown}"),
                "pip keeps the installed torch and installs the requirements its metadata lists that are missing, the nvidia-* wheels among them; every CUDA library torch loads comes back at once, where installing one nvidia-* wheel would leave the next one missing. A tool that skipped them (poetry resolving torch 2.0.1's platform-marked dependencies) is best bypassed for torch, or moved to a torch release whose metadata it reads.",
            )
            .step(recipes::pip_install(cx, Vec::new(), vec![req]))
            .cost(crate::fix::Cost::download()),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// torch's libraries that every release since 1.x ships in torch/lib (unlike libtorch_cuda_cu,
/// libtorch_cuda_cpp or libcaffe2, which only some releases had): missing, they were not loaded,
/// not renamed.
fn torch_core_library(lib: &str) -> bool {
    let file = crate::incidents::basename(lib);
    let stem = file.split(".so").next().unwrap_or(file);
    matches!(
        stem,
        "libc10" | "libc10_cuda" | "libtorch" | "libtorch_cpu" | "libtorch_cuda" | "libtorch_python"
            | "libshm" | "libtorch_global_deps"
    )
}

/// The release of a package that opens CUDA's libraries itself (CTranslate2) whose runtime is
/// the one this environment has, when the library it cannot find (`key`, the product's soname:
/// `libcublas.so.11`, `libcudnn.so.8`) is of another major than that release range opens: the
/// installed release wants what the machine lacks, and a release of another range does not.
/// Among those ranges: the one matching torch's CUDA and cuDNN where the text or environment
/// gives torch; else the newest that opens no cuDNN or a newer major (the machine moved on, as
/// newer stacks do), else the newest of an older major (a newer release wants what is missing).
pub(crate) fn runtime_release(cx: &Cx<'_>, pkg: Option<&str>, key: &str) -> Option<Fix> {
    use abidoc_knowledge::packages::RuntimeMajors;
    let pkg = pkg.and_then(Name::new)?;
    let facts = kb::package(pkg.as_str())?;
    let cudnn_major = kb::cudnn(key).map(|c| c.major);
    let cuda_major = kb::cuda_library(key).map(|(_, m)| m);
    let (what, wanted) = match (cudnn_major, cuda_major) {
        (Some(m), _) => ("cuDNN", m),
        (None, Some(m)) => ("CUDA", m),
        (None, None) => return None,
    };
    let major = |r: &RuntimeMajors| if cudnn_major.is_some() { r.cudnn } else { Some(r.cuda) };
    // Ranges that do not open the missing major; the table lists them oldest first.
    let others: Vec<&RuntimeMajors> = facts
        .runtimes
        .iter()
        .filter(|r| major(r) != Some(wanted))
        .collect();
    if others.is_empty() || others.len() == facts.runtimes.len() {
        return None;
    }
    let torch = cx
        .torch()
        .and_then(|t| abidoc_knowledge::version::Version::parse(&t));
    let torch_cuda = torch
        .as_ref()
        .and_then(abidoc_knowledge::version::Version::local_cuda)
        .map(|(m, _)| m)
        .and_then(|m| u32::try_from(m).ok());
    let torch_cudnn = torch
        .as_ref()
        .and_then(abidoc_knowledge::system_libs::torch_cudnn_major);
    let fits = |r: &&&RuntimeMajors| {
        torch_cuda.is_none_or(|c| r.cuda == c)
            && (cudnn_major.is_none() || r.cudnn.is_none() || r.cudnn == torch_cudnn)
    };
    let newer = |r: &&&RuntimeMajors| major(r).is_none_or(|m| m > wanted);
    let chosen = if torch.is_some() {
        others.iter().rev().find(fits)
    } else {
        others
            .iter()
            .rev()
            .find(newer)
            .or_else(|| others.last())
    }?;
    let opens = match chosen.cudnn {
        Some(c) => format!("CUDA {}'s cuBLAS and cuDNN {c}", chosen.cuda),
        None => format!("CUDA {}'s cuBLAS and no cuDNN", chosen.cuda),
    };
    let (req, flags, shown) = match (&chosen.until, &chosen.last) {
        (Some(_), Some(last)) => (
            Requirement::Exact(pkg.clone(), crate::fix::Version::new(last)?),
            vec![PipFlag::NoCacheDir],
            format!("{pkg} {last}"),
        ),
        (None, _) => (
            Requirement::Any(pkg.clone()),
            vec![PipFlag::Upgrade, PipFlag::NoCacheDir],
            format!(
                "the newest {pkg}{}",
                chosen
                    .from
                    .as_deref()
                    .map(|f| format!(" ({f} or later)"))
                    .unwrap_or_default()
            ),
        ),
        (Some(_), None) => return None,
    };
    let torch_said = match (&torch, torch_cudnn) {
        (Some(t), Some(c)) if cudnn_major.is_some() => {
            format!(" torch {t} brings cuDNN {c}.")
        }
        _ => String::new(),
    };
    Some(
        Fix::new(
            Code::MissingSharedLibrary,
            "runtime-release",
            FixKind::AlignCompanion,
            format!("Install {shown}, which opens {opens}"),
            format!(
                "{pkg} opens CUDA's libraries itself, each release range a fixed major: the installed release wants {what} {wanted}, which this environment lacks. {shown} opens {opens}.{torch_said} Alternatively install {what} {wanted} where the loader finds it."
            ),
        )
        .step(recipes::pip_install(cx, flags, vec![req]))
        .cost(crate::fix::Cost::download()),
    )
}

/// A framework's summary that CUDA libraries it opens by name did not load, and that it runs on
/// the CPU (TensorFlow's `Cannot dlopen some GPU libraries`), with no loader line naming them.
/// TensorFlow 2.14 and later install the CUDA libraries they were built with through their
/// `and-cuda` extra (`tensorflow[and-cuda]` keeps the installed TensorFlow and adds the nvidia-*
/// wheels its release pins); a library present but outside the loader's path is found by
/// putting its directory on `LD_LIBRARY_PATH`.
pub(crate) fn gpu_libraries(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    framework: &str,
    detail: &str,
) -> Diagnostic {
    let code = Code::MissingSharedLibrary;
    let mut d = blank(code, source);
    let pkg = cx
        .near
        .filter(|n| n.starts_with(framework))
        .unwrap_or(framework)
        .to_owned();
    d.package = Some(pkg.clone());
    d.message = format!(
        "{pkg} could not open some of the CUDA libraries it loads (CUDA runtime, cuBLAS, cuDNN …) and runs on the CPU: {}",
        detail.lines().next().unwrap_or("").trim()
    );
    d.evidence.push(format!("the text says: {}", detail.trim()));
    d.explanation = Some(if framework == "tensorflow" {
        format!(
            "{pkg} opens CUDA's libraries by name at start-up, each of the major its release was built with; the loader's lines before this one (`Could not load dynamic library …`, shown with TF_CPP_MIN_LOG_LEVEL=0) name the ones missing."
        )
    } else {
        format!(
            "{pkg} opens CUDA's libraries by name when a session asks for the GPU, each of the major its release was built with (its documentation's requirements table); the loader's reason after `with error:` names the one missing."
        )
    });
    let mut fixes = Vec::new();
    // The package's extra for its CUDA wheels, where the tables name one.
    let extra = kb::package(&pkg).and_then(|f| f.cuda_extra);
    if let (Some(n), Some(extra)) = (Name::new(&pkg), extra.as_deref().and_then(Name::new)) {
        fixes.push(
            Fix::new(
                code,
                "framework-cuda-extra",
                FixKind::InstallMissing,
                format!("Install the CUDA libraries of the installed {pkg} from PyPI ({pkg}[{extra}])"),
                format!("From TensorFlow 2.14 on, the `{extra}` extra installs the nvidia-* wheels (CUDA runtime, cuBLAS, cuDNN …) the installed release was built with; pip keeps the installed {pkg} and adds only them (Linux)."),
            )
            .step(recipes::pip_install(
                cx,
                Vec::new(),
                vec![Requirement::Extra(n, extra)],
            ))
            .cost(crate::fix::Cost::download()),
        );
    }
    fixes.push(
        Fix::in_words(
            code,
            "library-dirs-on-path",
            if fixes.is_empty() {
                "Put the directories of the CUDA libraries already installed on LD_LIBRARY_PATH"
            } else {
                "Or put the directories of the CUDA libraries already installed on LD_LIBRARY_PATH"
            },
            "A library that is on the machine (pip's site-packages/nvidia/*/lib, a conda environment's lib, a toolkit's lib64) but outside the loader's search path is found once its directory is on LD_LIBRARY_PATH (TensorFlow 2.16.1's pip layout needs this).",
            "export LD_LIBRARY_PATH=<the directories holding libcudart, libcublas, libcudnn …>:$LD_LIBRARY_PATH, then start Python again",
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A package's own summary of its library not loading, with no loader reason printed
/// (torchcodec's `Could not load libtorchcodec`): the system library its libraries need first
/// (no wheel ships FFmpeg, and it is the cause its message lists first), then the package's
/// release built for the installed torch.
pub(crate) fn package_unloadable(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    package: &str,
    detail: &str,
) -> Diagnostic {
    let code = Code::MissingSharedLibrary;
    let mut d = blank(code, source);
    d.package = Some(package.to_owned());
    // What the number ending each of its library sets names (`FFmpeg`), and the system
    // library table's entry for it.
    let needs = abidoc_knowledge::packages::package(package).and_then(|f| {
        f.backends
            .iter()
            .filter_map(|b| b.variant.as_deref())
            .find_map(abidoc_knowledge::system_libs::by_what)
    });
    d.message = match needs {
        Some(sys) => format!(
            "{package} could not load its own libraries, and its message gives no loader reason: {} missing where the loader looks is the usual cause, a {package} release built for another torch the other",
            sys.what.split(" (").next().unwrap_or(&sys.what)
        ),
        None => format!(
            "{package} could not load its own libraries, and its message gives no loader reason: a library they need is missing, or {package} was built for another torch"
        ),
    };
    d.evidence.push(format!("the text says: {}", detail.trim()));
    let mut fixes = Vec::new();
    if let Some(sys) = needs
        && let Some(lib) = sys.sonames.first()
    {
        // The cause the package's own message lists first, and the one no release of it
        // avoids: it leads whatever the tables say of the package's releases.
        fixes.extend(
            system_library(code, cx, lib.trim_end_matches('.'), sys)
                .into_iter()
                .map(Fix::leading),
        );
    }
    if let Some(pkg) = Name::new(package) {
        fixes.extend(recipes::align_with_torch(code, cx, &pkg, false));
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A system library no wheel ships (FFmpeg) that the failing library also lacks: every fix that
/// keeps the package (the release built for this torch, a rebuild) needs it installed as well,
/// so its install joins those fixes (with root where only the distribution provides it).
pub(crate) fn with_system_library(
    cx: &Cx<'_>,
    fixes: &mut [Fix],
    pkg: &str,
    lib: &str,
    sys: &'static abidoc_knowledge::system_libs::SystemLibrary,
) {
    let what = short_what(&sys.what);
    let install = system_library(Code::MissingSharedLibrary, cx, lib, sys);
    let Some(steps) = install.first().map(|f| f.steps.clone()) else {
        return;
    };
    for f in fixes {
        // An uninstall needs nothing more.
        if f.kind == FixKind::RemoveUnneeded || f.kind == FixKind::RemoveIfUnneeded {
            continue;
        }
        f.steps.extend(steps.iter().cloned());
        f.title = format!("{}, and install {what}", f.title);
        f.reason = format!(
            "{} No release of {pkg} loads without {what} ({} is not found): its install is part of the fix.",
            f.reason,
            crate::incidents::basename(lib)
        );
        if f.applicability() == crate::fix::Applicability::NeedsRoot {
            f.kind = FixKind::NeedsRoot;
        }
    }
}

/// `FFmpeg` of `FFmpeg (the so-number names the major: …)`.
pub(crate) fn short_what(what: &str) -> &str {
    what.split(" (").next().unwrap_or(what)
}

/// The first library `missing` names that is a system library no wheel ships, with its entry.
pub(crate) fn unshipped_system_library(
    missing: &[String],
) -> Option<(&str, &'static abidoc_knowledge::system_libs::SystemLibrary)> {
    missing.iter().find_map(|m| {
        kb::system_library(m)
            .filter(|s| s.pip.is_empty())
            .map(|s| (m.as_str(), s))
    })
}

#[cfg(test)]
mod tests {
    use super::{python_library, vendored};

    #[test]
    fn python_own_library_by_its_version() {
        assert_eq!(python_library("libpython3.9.so.1.0").as_deref(), Some("3.9"));
        assert_eq!(python_library("libpython3.7m.so.1.0").as_deref(), Some("3.7"));
        assert_eq!(python_library("libpython3.13t.so").as_deref(), Some("3.13"));
        assert_eq!(python_library("libpython_extra.so"), None);
        assert_eq!(python_library("libpythonX.so.1"), None);
    }

    #[test]
    fn auditwheel_names_by_their_library() {
        assert_eq!(vendored("libpq-a407f694.so.5.12").as_deref(), Some("libpq.so.5.12"));
        assert_eq!(
            vendored("libopenblasp-r0-2ecf47d5.3.13.dev.so").as_deref(),
            Some("libopenblasp-r0.3.13.dev.so")
        );
        assert_eq!(vendored("libgomp-a34b3233.so.1"), Some("libgomp.so.1".to_owned()));
        // A date or version, an uppercase word, a name that is not a library's.
        assert_eq!(vendored("libfoo-20230101.so"), None);
        assert_eq!(vendored("libboost_python-1.74.so"), None);
        assert_eq!(vendored("libfoo-DEADBEEF.so"), None);
        assert_eq!(vendored("cudnn-a407f694.so"), None);
        assert_eq!(vendored("libx-a40"), None);
    }
}
