//! `missing-shared-library`: the loader cannot find a library a module needs
//! (`libX.so.N: cannot open shared object file`).
//!
//! Produced by the loader's message in the text and by the scan's unresolved `DT_NEEDED`
//! entries. The fix follows who provides the library: a directory on this machine outside the
//! search path (`LD_LIBRARY_PATH`), the PyPI package of the CUDA major the so-number names
//! (never another major's), the companion release of a torch that shipped a renamed library, a
//! system library's package (pip first, conda in a conda env, the distribution's manager with
//! root), or a failed JIT build whose proven build directory is removed.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{CondaChannel, Fix, FixKind, Name, Requirement, SafePath, Step, SystemManager};
use crate::incidents::basename;
use crate::kb;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`libX.so.N: cannot open shared object file` (CUDA runtime, cuDNN, removed torch libraries, ...).",
    meaning: "A compiled module names the libraries it needs (`DT_NEEDED`); the loader searches RPATH/RUNPATH, `LD_LIBRARY_PATH`, the ld.so cache and the default directories. The library may be on the machine but outside that path, belong to another CUDA major than the one installed, have been renamed by a later torch, or come from a system package no wheel ships. Other loaders say it in their own words, read the same way: `Unable to load any of {…}`, `Could not load library X`, `Library X is not found or cannot be loaded`, DGL's per-torch libraries, macOS' `Library not loaded`, and Windows' `DLL load failed … module could not be found` / `[WinError 126] … Error loading \"…dll\"`, which never says which dependency is missing. cuDNN's sub-libraries and Windows' CUDA DLLs (`cublas64_11.dll`) are read as their product and major.",
    fixes: "1. Point the loader at the directory on this machine that holds it (`LD_LIBRARY_PATH`; safe). 2. The companion release built for the installed torch, when the library belonged to another torch or is the CUDA runtime of another torch's CUDA major (a companion built for CUDA 12 next to a CUDA 13 torch); without such a release, the torch it was built for. 3. The PyPI package of the exact CUDA major the so-number names (no root). 4. A system library's package: pip, else conda inside a conda environment, else the distribution's package manager (root), chosen from `/etc/os-release`. 5. For a failed torch JIT build: remove its build directory only when abidoc proves it is a build product and the text shows the build failed. 6. A source build when the library is torch's and the package links torch. On Windows never `LD_LIBRARY_PATH`, `apt` or `ldconfig`: the CUDA wheel of the DLL's major, torch's CUDA build from PyTorch's index when the DLL is torch's own, the package's build for the installed torch, and the Microsoft Visual C++ Redistributable (advice). DGL's libraries: the DGL build for the installed torch, or a torch that DGL build supports (advice).",
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    name: &str,
    required_by: Option<&str>,
) -> Diagnostic {
    // Windows' DLLs get Windows' fixes (never LD_LIBRARY_PATH, apt or ldconfig).
    if super::loadforms::is_windows(name) && super::loadforms::dgl_hint(name).is_none() {
        return super::loadforms::windows(cx, source, None, Some(name), false);
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
    if let Some(r) = required_by {
        d.package = cx.world.package_of_library(r).map(|p| p.name);
    }
    if d.package.is_none() && super::loadforms::dgl_hint(lib).is_some() {
        d.package = Some("dgl".into());
    }
    d.fixes = fixes(cx, &d, lib, name);
    d
}

fn hint(cx: &Cx<'_>, lib: &str) -> String {
    let l = lib.to_ascii_lowercase();
    if let Some(h) = super::loadforms::dgl_hint(lib).or_else(|| super::loadforms::unversioned_hint(lib)) {
        return h;
    }
    // cuDNN's sub-libraries are known by cuDNN's own name.
    let product = super::loadforms::product_soname(lib);
    let lib = product.as_deref().unwrap_or(lib);
    if l.starts_with("libcuda.so.") || l.starts_with("libnvidia-ml.so.") {
        return "it comes with the NVIDIA driver, which is not installed or not visible here (a CPU-only machine, or a container started without GPU access)".into();
    }
    if kb::is_torch_library(lib) {
        return "it was part of another torch version: the package was built for a torch that shipped this library".into();
    }
    if let Some(sys) = kb::system_library(lib) {
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
        return format!(
            "{} of CUDA {major}, which this package was built for, is not installed where the loader looks (pip's nvidia-* packages or the CUDA toolkit provide it)",
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
    } else if cx.scene.compile_failed {
        "its build failed earlier in the log, so the file was never produced".into()
    } else {
        "no directory on the loader's search path holds it".into()
    }
}

fn fixes(cx: &Cx<'_>, d: &Diagnostic, lib: &str, full: &str) -> Vec<Fix> {
    let code = Code::MissingSharedLibrary;
    let l = lib.to_ascii_lowercase();
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
            .steps(recipes::set_env("LD_LIBRARY_PATH", dir.as_str())),
        );
    }
    // A torch JIT extension whose build failed left no library: its build directory goes only
    // when the text shows the failure and the directory is provably a build product.
    if cx.scene.compile_failed
        && let Some(dir) = jit_build_dir(full)
    {
        let proven = cx.world.is_torch_extension_build_dir(dir.as_str());
        let mut f = Fix::new(
            code,
            "remove-jit-build",
            if proven {
                FixKind::Configure
            } else {
                FixKind::Advice
            },
            format!(
                "Fix the compile error printed above, then remove the stale build directory {dir}"
            ),
            "The op is built just in time by ninja; its failure (often an old gcc or a CUDA mismatch) left no library. Removing the directory makes the next run rebuild it.",
        );
        f = if proven {
            f.step(Step::RemoveBuildDir { path: dir })
        } else {
            f.step(Step::Manual(format!(
                "after fixing the compile error, delete {dir} if it holds only build files (build.ninja, *.o)"
            )))
            .unverified()
        };
        fixes.push(f);
    }
    if let Some((c, major)) = kb::cuda_library(key) {
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
                                "The package was built for CUDA {major}; {shown} provides {lib} without root. Alternatively install the package's build for the CUDA you have."
                            ),
                        )
                        .step(recipes::pip_install(cx, Vec::new(), vec![req]))
                        .cost(crate::fix::Cost {
                            downloads: true,
                            ..Default::default()
                        }),
                    );
                }
            }
            None => fixes.push(
                Fix::new(
                    code,
                    "cuda-runtime",
                    FixKind::Advice,
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
                )
                .step(Step::Manual(format!(
                    "install a build of {} made for the installed CUDA",
                    d.package.as_deref().unwrap_or("the package")
                ))),
            ),
        }
    }
    if (l.starts_with("libcuda.so.") || l.starts_with("libnvidia-ml.so.")) && fixes.is_empty() {
        fixes.push(
            Fix::new(
                code,
                "driver",
                FixKind::Advice,
                format!("Run on a machine or container that has the NVIDIA driver ({lib} comes with it)"),
                "The driver's user-space libraries are not pip packages. In Docker, start the container with `--gpus all` (NVIDIA Container Toolkit) so they are mounted in; on a machine without an NVIDIA GPU, nothing that needs them can run, and only code paths that load CUDA fail.",
            )
            .step(Step::Manual("start the container with --gpus all, or run on a machine with the NVIDIA driver".into()))
            .unverified(),
        );
        return crate::fix::rank(fixes);
    }
    let torch_lib = kb::is_torch_library(lib);
    let pkg = d.package.as_deref().and_then(Name::new);
    // A companion built for another torch asks for that torch's libraries, or for the CUDA
    // runtime of that torch's CUDA major: the release built for the installed torch brings
    // both in line (installing the other CUDA runtime only papers over it).
    let cuda_lib = kb::cuda_library(key).is_some();
    if (torch_lib || cuda_lib)
        && let (Some(torch), Some(p)) = (cx.torch(), &pkg)
        && (torch_lib || kb::pairs_with_torch(p.as_str()))
    {
        let companion =
            recipes::companion_release(code, cx, p, &torch, kb::package(p.as_str()).as_ref());
        // No release of it is built for the installed torch: the torch it was built for.
        if companion.is_none()
            && let Some(target) = cx.world.built_for_torch(d.library.as_deref())
        {
            fixes.extend(recipes::align_torch(code, cx, p, &target, Some(&torch)));
        }
        fixes.extend(companion);
    }
    let provider = kb::system_library(key);
    // The CUDA table and the provider table may both know a library (`libcublas.so.11`): one
    // install of it is enough.
    if let Some(sys) = provider
        && !fixes.iter().any(|f| f.id.ends_with("/cuda-runtime"))
    {
        fixes.extend(system_library(cx, lib, sys));
    }
    // A rebuild against torch helps only code that calls into torch, and only when the missing
    // library is not a system one (rebuilding nvidia-cufile does not bring libmlx5).
    if provider.is_none()
        && let Some(p) = &pkg
        && (torch_lib || calls_into_torch(cx, d, p.as_str()))
    {
        fixes.extend(recipes::source_build(code, cx, p, &[]));
    }
    if fixes.is_empty() && torch_lib {
        fixes.push(
            Fix::new(
                code,
                "companion-release",
                FixKind::Advice,
                format!("Install the release of the failing package built for the installed torch ({lib} belongs to another torch)"),
                "torch libraries are renamed and split between releases; torchaudio, torchvision and other extensions must come from the release matching torch. `abidoc scan` names every package built for another torch.",
            )
            .step(Step::Manual("pin the package to the release built for the installed torch".into())),
        );
    }
    if fixes.is_empty() {
        fixes.push(
            Fix::new(
                code,
                "find-provider",
                FixKind::Advice,
                format!(
                    "Find which package should provide {lib} and install it, or add its directory to LD_LIBRARY_PATH"
                ),
                "`abidoc scan` lists every library whose needed libraries are not found, with their owners.",
            )
            .step(Step::Manual(format!("find the package that ships {lib}")))
            .unverified(),
        );
    }
    crate::fix::rank(fixes)
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

/// Installing the provider of a library no wheel ships: pip first (no root), then conda inside a
/// conda environment, then the machine's package manager. Names come from the compiled-in table
/// (checked by the knowledge tests), never from the text.
fn system_library(
    cx: &Cx<'_>,
    lib: &str,
    sys: &abidoc_knowledge::system_libs::SystemLibrary,
) -> Vec<Fix> {
    let code = Code::MissingSharedLibrary;
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
    let mut alternatives = Vec::new();
    if !sys.apt.is_empty() {
        alternatives.push(format!("Debian/Ubuntu: apt-get install {}", sys.apt.join(" ")));
    }
    if !sys.dnf.is_empty() {
        alternatives.push(format!("Fedora/RHEL: dnf install {}", sys.dnf.join(" ")));
    }
    if !sys.conda.is_empty() {
        alternatives.push(format!(
            "conda: conda install -c conda-forge {}",
            sys.conda.join(" ")
        ));
    }
    let title = format!("Install {}, which provides {lib}", sys.what);
    if let Some(pkgs) = names(&sys.conda).filter(|_| cx.world.in_conda()) {
        return vec![
            Fix::new(code, "system-library-conda", FixKind::InstallMissing, title, reason)
                .step(Step::CondaInstall {
                    channel: CondaChannel::CondaForge,
                    packages: pkgs,
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
            .step(Step::Manual(alternatives.join("; "))),
        ],
    }
}

/// The build directory of a torch JIT extension (`~/.cache/torch_extensions/py310_cu117/fused_adam`):
/// strictly inside `torch_extensions/`, and a plain path.
fn jit_build_dir(full: &str) -> Option<SafePath> {
    let dir = SafePath::new(full)?.parent()?;
    let (_, rest) = dir.as_str().split_once("/torch_extensions/")?;
    (!rest.is_empty()).then_some(dir)
}
