//! `build-failed`: pip (or torch's JIT extension builder) failed building a package from source,
//! and nothing in the text says why that abidoc knows.
//!
//! Produced only when a build failure (`Failed building wheel for X`, `Failed to build X`,
//! `error: subprocess-exited-with-error`, `Error building extension 'X'`, a compiler's or ninja's
//! `error: command '…/nvcc' failed`) is the whole diagnosis:
//! any cause read in the text (no nvcc, no compiler, torch not visible, a missing header) is
//! that code's diagnosis instead. A warning: the cause is in lines the paste does not hold —
//! but for a compiler or linker the system killed (`Killed signal terminated program cc1plus`,
//! `Error 137`), which is memory: an error, with fewer parallel jobs first.
//! Fixes avoid the compile where the package publishes builds (its wheel page, its release
//! paired with torch), then say how to see the cause.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, Severity, SourceRef};
use crate::fix::{Cost, Fix, FixKind, Name, PipFlag, Requirement, Step, Version, WheelUrl};
use crate::kb::{Fetch, Listing};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A package failed to build from source (`Failed building wheel for X`, `error: subprocess-exited-with-error`, `Error building extension 'X'`, `error: command '…/nvcc' failed`) and the text holds no cause abidoc knows: a warning, with the builds that need no compile. A cause the compile names makes it an error with that cause's fix: the compiler killed for memory, CUB 1.15 after windows.h (`dispatch_segmented_sort.cuh(338)`: -DWIN32_LEAN_AND_MEAN), Thrust refusing the CUB on the include path (THRUST_IGNORE_CUB_VERSION_CHECK), a pip older than 20.3 (`You are using pip version 18.1`: it does not see today's manylinux wheels, so it compiled; upgrading pip comes first).",
    meaning: "pip compiles a package when no wheel on the index fits this Python and platform, and packages that pick their own prebuilt wheel in setup.py (flash-attn, mamba-ssm, causal-conv1d) compile when none fits the installed torch, CUDA and C++ ABI. pip's summary (`Failed building wheel for X`, `× python setup.py bdist_wheel did not run successfully`) comes after the compiler's own output, which holds the cause; a paste that keeps only the summary says that the build failed, not why. Where the package publishes builds elsewhere (its own wheel page per torch and CUDA, a release paired with each torch), installing one needs no compiler at all. Cython refusing a package's `.pyx` sources (`Error compiling Cython file`, `Cython.Compiler.Errors.CompileError`, setuptools' `AttributeError: cython_sources` under Cython 3) is a Cython other than the one they were written for, most often Cython 3 under sources written for 0.29: the newest Cython 0.29 (`cython<3`, which also replaces a Cython too old for them) and a build that uses it (`--no-build-isolation`), or the package's newest release as a wheel. nvcc stopping in glibc's math headers (`exception specification is incompatible with that of previous function \"cospi\"`, glibc 2.41 and later, clang's `exception specification in declaration does not match previous declaration` in bits/mathcalls.h) is a CUDA toolkit (or a GPU project's own declarations) older than that glibc: a newer toolkit, an older glibc, or NVIDIA's noexcept patch.",
    fixes: "0. A compiler or linker the system killed (gcc's `Killed signal terminated program cc1plus`, nvcc's `'cicc' died due to signal 9`, make's `Error 137`, MSVC's `out of heap space`): the machine ran out of memory, an error; MAX_JOBS=2 and CMAKE_BUILD_PARALLEL_LEVEL=2 and the same command again (MAX_JOBS=1 or swap if still killed) first, the builds below after it. 1. Where the package publishes builds for torch (PyG's and mmcv's wheel pages, xformers' releases paired with torch): install that build, with the torch it needs (no compile). A package whose setup.py downloads its own prebuilt wheel (flash-attn, mamba-ssm, causal-conv1d), with the torch the text states (its setup.py's `torch.__version__ = …` banner too): the release the release data lists a wheel of for that torch, pinned, so setup.py downloads it; else the torch lines its wheels cover (advice). A package that does not compile against torch: its newest release with a wheel for this Python and platform (`--only-binary`, which never compiles). Never a reinstall of the release that just compiled; where setup.py's own guess (`Guessing wheel URL: …`) is the wheel the release data lists, the download failed, and the advice is reaching GitHub or fetching the file elsewhere. 2. See the cause: install again with `-v` (and `--no-build-isolation` for a package that builds against torch) and read the first `error:` line above pip's summary (or give abidoc the whole log), where a missing nvcc, compiler, header or build tool shows. torch's JIT builder (`Error building extension 'fused_adam'`) compiles at run time whatever is installed: its package is the one loading the extension, never a wheel pip built earlier, and the fix is reading the build's output (its directory under `~/.cache/torch_extensions`). Two macOS causes are read and set: distutils' `$MACOSX_DEPLOYMENT_TARGET mismatch: now \"A\" but \"B\"` (the target B, set), and an SDK's `error: Unsupported architecture` for a universal2 build (ARCHFLAGS of this Mac's architecture). A source written for an older Python: a Rust extension whose PyO3 stops below this Python (`newer than PyO3's maximum supported version`), C an older Cython generated (`no member named 'ob_digit'`, 3.12), or CPython C API a release removed or changed (`PyUnicode_AsUnicode` in 3.12, `_PyLong_AsInt` in 3.13: `compat.toml [[python_capi_changed]]`): the package's newest release (made for newer Pythons, with wheels), else an older Python, else PyO3's stable-ABI switch (advice). A kernel the compiler refuses for the older GPUs the build also targets (ptxas' `Feature '…' requires .target sm_80 or higher`, nvcc's `atomicAdd` on `__half` below sm_70): TORCH_CUDA_ARCH_LIST from the highest capability the refusals name, with `+PTX`, then the build again; a GPU older than that gets advice only. `build_ext --inplace` that compiled but could not copy its module into a missing package directory (`error: could not create 'monotonic_align/core…so': No such file or directory`, VITS-style repositories): that directory created, then the build again.",
    near_package: super::NearPackage::NotTorch,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, package: Option<&str>) -> Diagnostic {
    let code = Code::BuildFailed;
    let mut d = blank(code, source);
    d.severity = Severity::Warning;
    // A JIT build is the package whose frames load the extension at run time (DeepSpeed for
    // `fused_adam`), never a wheel pip built earlier in the same log.
    let jit = cx.scene.jit_extension.as_deref().filter(|_| package.is_none());
    d.package = match jit {
        Some(_) => cx.near.map(str::to_owned),
        None => package
            .map(str::to_owned)
            .or_else(|| cx.scene.packages_built.first().cloned()),
    }
    .map(|p| crate::kb::normalize(&p))
    .filter(|p| p != "torch");
    let who = d.package.as_deref().unwrap_or("a package");
    d.message = match jit {
        Some(ext) => format!(
            "torch's JIT builder failed to compile the extension {ext}{}, and the text holds no cause abidoc knows: the compiler's first `error:` line in the build output says why",
            d.package.as_deref().map_or(String::new(), |p| format!(" for {p}"))
        ),
        None => format!(
            "{who} failed to build from source, and the text holds no cause abidoc knows: the compiler's or setup's first `error:` line, above pip's summary, says why"
        ),
    };
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
    // The compiler refused instructions the kernel uses for the oldest GPUs the build targets:
    // the build's architecture list reaches below what the kernel needs.
    // Each refused instruction names its own minimum: the kernel needs the highest.
    let needs = cx
        .scene
        .versions
        .iter()
        .filter(|(s, _)| s == "kernel-min-capability")
        .filter_map(|(_, v)| {
            let (major, minor) = v.split_once('.')?;
            Some(((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?), v.as_str()))
        })
        .max();
    if let Some((_, cap)) = needs {
        return kernel_needs_newer_gpu(cx, d, cap);
    }
    let mut fixes = Vec::new();
    // A JIT build compiles at run time whatever is installed: no other release or wheel of
    // the package skips it, only the toolchain it needs, which its output names.
    if let Some(ext) = jit {
        fixes.push(
            Fix::in_words(
                code,
                "show-cause",
                format!("See why {ext} did not compile: the build output above the error"),
                "torch's cpp_extension runs ninja in its extensions directory and prints the compiler's output before `Error building extension`: the first `error:` or `FAILED:` line there (no nvcc, a compiler too new for nvcc, a missing header) is the cause, and abidoc reads it from the whole log.",
                format!(
                    "run again keeping the whole output (`python your_script.py 2>&1 | tee build.log`, then `abidoc check build.log`); the build directory is ~/.cache/torch_extensions/<python and CUDA tags>/{ext} (or $TORCH_EXTENSIONS_DIR), whose removal makes the next run rebuild from scratch"
                ),
            ),
        );
        out_of_memory(cx, &mut d, &mut fixes);
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
    // distutils stopped the build: the deployment target in the environment is below the one
    // this Python was configured with, which the text names.
    if let Some(target) = cx.scene.version_of("macos-deployment-target")
        && let Some(set) = recipes::set_env("MACOSX_DEPLOYMENT_TARGET", target)
    {
        d.message = format!(
            "{who}'s build stopped before compiling: MACOSX_DEPLOYMENT_TARGET is set below {target}, the macOS release this Python was configured for, which distutils refuses"
        );
        fixes.push(
            Fix::new(
                code,
                "deployment-target",
                FixKind::Configure,
                format!("Build with MACOSX_DEPLOYMENT_TARGET={target}, the target this Python was configured with"),
                "Something in the environment (a shell profile, a conda activation script, an older build's settings) sets a lower target; distutils only accepts the configured one or a newer one. On Apple Silicon, CC=clang CXX=clang++ keeps a Homebrew gcc out of the same build.",
            )
            .step(set),
        );
    }
    // glibc 2.41 declares cospi/sinpi (and their float forms) noexcept; CUDA toolkits written
    // before it declare them without, and nvcc refuses the second declaration.
    if cx.scene.cuda_math_glibc {
        d.severity = Severity::Error;
        d.message = format!(
            "{who}'s CUDA compile stopped in the system's math headers: this glibc (2.41 or later) declares `cospi`/`sinpi` noexcept, and the GPU compiler's own declarations of them (CUDA's crt/math_functions.h, or the project's), older than that glibc, are without"
        );
        fixes.push(
            Fix::in_words(
                code,
                "cuda-for-glibc",
                "Build with a CUDA toolkit released after this glibc, whose math headers match it",
                "Only the toolkit's headers and the system's glibc disagree; a toolkit whose release notes support this distribution declares the functions as glibc does. It must stay of torch's CUDA major for a torch extension.",
                "install a newer CUDA toolkit of the same major (its release notes list the distributions it supports), export CUDA_HOME=<its directory>, then build again",
            )
            .leading(),
        );
        fixes.push(Fix::in_words(
            code,
            "older-glibc",
            "Or build where glibc is older than 2.41 (a container of an older distribution)",
            "The same toolkit compiles against an older glibc's headers; an image of the distribution release the toolkit supports builds the package, and the wheel it makes runs here.",
            "build inside a container of an older distribution release with the same CUDA toolkit, then install the wheel it makes",
        ));
        fixes.push(Fix::in_words(
            code,
            "patch-headers",
            "Or declare the four functions noexcept in the toolkit's crt/math_functions.h",
            "NVIDIA's published workaround: adding `noexcept (true)` to the declarations of cospi, sinpi, cospif and sinpif makes them agree with glibc's.",
            "edit <CUDA_HOME>/include/crt/math_functions.h (a copy of the toolkit if it is shared): add `noexcept (true)` after the declarations of cospi, sinpi, cospif and sinpif, then build again",
        ));
    }
    // A universal2 Python asks the compiler for both architectures; an SDK older than Apple
    // Silicon has no arm64, so its headers stop the compile.
    if cx.scene.sdk_unsupported_arch {
        d.message = format!(
            "{who}'s compile stopped in the macOS SDK's headers (`error: Unsupported architecture`): the build asks for an architecture this SDK cannot compile, as a universal2 Python asks for arm64 on an SDK older than Apple Silicon"
        );
        fixes.push(
            Fix::new(
                code,
                "archflags",
                FixKind::Configure,
                "Build for this Mac's architecture only (ARCHFLAGS)",
                "distutils and setuptools pass ARCHFLAGS to the compiler in place of the interpreter's universal2 flags; with this machine's architecture alone, the SDK compiles it. A newer Xcode (Command Line Tools) has an SDK that compiles both.",
            )
            .step(Step::Manual(
                "export ARCHFLAGS=\"-arch $(uname -m)\" (under sudo: sudo ARCHFLAGS=\"-arch $(uname -m)\" ...), then build again".into(),
            )),
        );
    }
    // Cython refused the package's `.pyx` sources: the Cython installed is not the one they were
    // written for. Most often Cython 3 (2023), whose stricter checks (`noexcept`, exception
    // values) and dropped names stop sources written for 0.29; sometimes a Cython older than the
    // sources need. The newest 0.29 serves both, and only a build that sees it (no isolation)
    // uses it.
    if let Some(three) = cx.scene.cython_failed {
        let named = d
            .package
            .clone()
            .or_else(|| cx.near.filter(|n| *n != "torch").map(str::to_owned));
        let who = named.as_deref().unwrap_or(who);
        d.severity = Severity::Error;
        d.message = format!(
            "{who}'s Cython sources do not compile with the Cython this build uses{}: the release being built was written for another Cython",
            if three {
                " (Cython 3, whose stricter checks and dropped names stop sources written for Cython 0.29)"
            } else {
                ""
            }
        );
        let pkg = named.as_deref().and_then(Name::new);
        let (Some(cython), Some(below)) = (Name::new("cython"), crate::fix::Version::new("3")) else {
            d.fixes = crate::fix::rank(fixes);
            return d;
        };
        let mut pin = Fix::new(
            code,
            "cython-0.29",
            FixKind::InstallMissing,
            format!(
                "Build {} with the newest Cython 0.29 (below 3), the Cython its sources were written for",
                pkg.as_ref().map_or("the package", Name::as_str)
            ),
            "Sources written before Cython 3 compile with the last 0.29 release, which also replaces a Cython too old for them. pip's isolated build installs the newest Cython its requirements allow, so the build must run without isolation to use this one (its other build requirements installed first: setuptools, wheel, numpy where it builds against NumPy).",
        )
        .step(recipes::pip_install(
            cx,
            vec![PipFlag::Upgrade],
            vec![Requirement::Below(cython.clone(), below)],
        ))
        .cost(Cost::download());
        if let Some(p) = &pkg {
            // The release the text was building, where it says (a pinned PyYAML 5.4.1 would be
            // built again in isolation otherwise).
            let req = match cx.package_version(p.as_str()).as_deref().and_then(crate::fix::Version::new) {
                Some(v) => Requirement::Exact(p.clone(), v),
                None => Requirement::Any(p.clone()),
            };
            pin = pin.step(recipes::pip_install(
                cx,
                vec![PipFlag::NoBuildIsolation, PipFlag::NoCacheDir],
                vec![req],
            ));
        }
        // It leads even over a wheel, whose release for this Python may not exist: since
        // Cython 3 (2023) most such failures are sources written for 0.29, and the newest 0.29
        // also replaces a Cython older than they need. Sources that need Cython 3 say so in
        // their build requirements; a build without isolation over an older Cython gets the
        // upgrade below.
        fixes.push(pin.leading());
        if !three {
            fixes.push(
                Fix::new(
                    code,
                    "cython-current",
                    FixKind::InstallMissing,
                    "Or build it with a current Cython, where its sources need Cython 3",
                    "A package whose sources use Cython 3's syntax fails under 0.29 the same way; pip's isolated build installs the Cython its requirements name, and a build without isolation uses the one installed.",
                )
                .step(recipes::pip_install(
                    cx,
                    vec![PipFlag::Upgrade],
                    vec![Requirement::Any(cython.clone())],
                ))
                .cost(Cost::download()),
            );
        }
        if let Some(p) = pkg.as_ref().filter(|p| !crate::kb::sdist_only(p.as_str())) {
            fixes.push(
                Fix::new(
                    code,
                    "newer-release",
                    FixKind::PrebuiltWheel,
                    format!("Install {p}'s newest release as a wheel, built with a current Cython"),
                    format!("A later release of {p} is generated with a current Cython and published as wheels for current Pythons, so nothing compiles; a pin on {p} in your requirements may need to move with it."),
                )
                .step(recipes::pip_install(
                    cx,
                    vec![PipFlag::Upgrade, PipFlag::OnlyBinary(p.clone())],
                    vec![Requirement::Any(p.clone())],
                ))
                .cost(Cost::download())
                .unverified(),
            );
        }
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
    // A source of the package written for an older Python: a Rust extension whose PyO3 stops at
    // an older interpreter, or C an older Cython generated. Its later releases are (their wheels
    // for this Python need no build at all).
    let python_too_new = cx.scene.version_of("pyo3-max-python");
    let capi = cx
        .scene
        .python_capi
        .as_deref()
        .and_then(|n| crate::incidents::python_capi(n).map(|c| (n, c)));
    let cython_c = cx.scene.old_cython_c;
    if python_too_new.is_some() || cython_c.is_some() || capi.is_some() {
        // The package the text shows around the failure when no build line named it.
        let named = d
            .package
            .clone()
            .or_else(|| cx.near.filter(|n| *n != "torch").map(str::to_owned));
        let who = named.as_deref().unwrap_or(who);
        if let Some((_, c)) = capi {
            d.evidence.push(format!(
                "Python {} {} it; in its place: {}",
                c.release, c.change, c.instead
            ));
        }
        d.message = match (python_too_new, capi) {
            (None, Some((name, c))) => format!(
                "{who}'s source calls `{name}`, which Python {} {}: the release being built predates this Python",
                c.release, c.change
            ),
            (Some(max), _) => format!(
                "{who} is a Rust extension whose PyO3 supports Python up to {max}: this Python is newer, so the release being built (no wheel of it for this Python) cannot compile here"
            ),
            (None, None) => format!(
                "{who}'s C sources were generated by a Cython older than this Python ({}): the release being built predates this Python",
                if cython_c == Some("3.11") {
                    "`PyFrameObject` is opaque since Python 3.11"
                } else {
                    "`PyLongObject` has no `ob_digit` since Python 3.12"
                }
            ),
        };
        let newer = named.as_deref().and_then(Name::new).map(|pkg| {
            Fix::new(
                code,
                "newer-release",
                FixKind::PrebuiltWheel,
                format!("Install {pkg}'s newest release, made for newer Pythons"),
                format!("A later release of {pkg} is built with a newer PyO3 or Cython, and publishes wheels for newer Pythons, so nothing compiles; a pin in your requirements (or a dependent's) may need to move with it."),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::Upgrade, PipFlag::NoCacheDir],
                vec![Requirement::Any(pkg)],
            ))
            .cost(Cost {
                downloads: true,
                ..Cost::default()
            })
            .unverified()
        });
        fixes.extend(newer);
        fixes.push(
            Fix::in_words(
                code,
                "older-python",
                match (python_too_new, capi) {
                    (Some(max), _) => format!("Keep this release and run it under Python {max} or older"),
                    (None, Some((_, c))) => format!("Keep this release and run it under a Python before {}", c.release),
                    (None, None) if cython_c == Some("3.11") => "Keep this release and run it under Python 3.10 or older".to_owned(),
                    (None, None) => "Keep this release and run it under Python 3.11 or older".to_owned(),
                },
                "A virtual environment of an older Python installs the release as published.",
                match (python_too_new, capi) {
                    (Some(v), _) => format!("uv venv --python {v} (or: conda create -n env python={v}), then install there"),
                    (None, Some((_, c))) => format!("create the environment with a Python older than {} (uv venv --python 3.X, or conda create -n env python=3.X), then install there", c.release),
                    (None, None) if cython_c == Some("3.11") => "uv venv --python 3.10 (or: conda create -n env python=3.10), then install there".to_owned(),
                    (None, None) => "uv venv --python 3.11 (or: conda create -n env python=3.11), then install there".to_owned(),
                },
            ),
        );
        if python_too_new.is_some() {
            fixes.push(
                Fix::new(
                    code,
                    "pyo3-forward",
                    FixKind::Advice,
                    "Build it anyway against the stable ABI (PyO3's own switch)",
                    "PyO3 builds for an interpreter newer than it knows when told to use the stable ABI; it works for packages that support abi3 and is a build, not a release made for this Python.",
                )
                .steps(recipes::set_env("PYO3_USE_ABI3_FORWARD_COMPATIBILITY", "1"))
                .step(Step::Manual("install again".into())),
            );
        }
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
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
    // A package that does not compile against torch, built because no wheel of the release
    // asked for fits this Python and platform: its newest release that has one, never a
    // compile (pip stops with no matching distribution when none has).
    if let Some(pkg) = d.package.as_deref().and_then(Name::new)
        && crate::kb::links_torch(pkg.as_str()) != Some(true)
        && !cx.scene.torch_extension_build
        && !crate::kb::sdist_only(pkg.as_str())
        && pkg.as_str() != "torch"
        && !fixes.iter().any(|f| f.kind == FixKind::PrebuiltWheel)
    {
        fixes.push(
            Fix::new(
                code,
                "wheel-only",
                FixKind::PrebuiltWheel,
                format!("Install {pkg}'s newest release that has a wheel for this Python and platform (nothing compiles)"),
                format!("pip compiled {pkg} because the release it picked has no wheel here; --only-binary makes it take the newest release that has one, or stop and say none does. A pin on {pkg} (in your requirements or a dependent's) may need to move with it."),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::Upgrade, PipFlag::OnlyBinary(pkg.clone())],
                vec![Requirement::Any(pkg.clone())],
            ))
            .cost(Cost {
                downloads: true,
                ..Cost::default()
            })
            .unverified(),
        );
    }
    let target = d
        .package
        .as_deref()
        .and_then(Name::new)
        .map_or_else(|| "<the package>".to_owned(), |n| n.to_string());
    fixes.push(
        Fix::in_words(
            code,
            "show-cause",
            "See why the build failed: its first `error:` line",
            "The cause (no nvcc, no compiler or one too new, a missing header or build tool, torch not visible to the build) is printed before pip's summary; `-v` keeps all of it, and abidoc reads it from the whole log.",
            format!(
                "pip install -v --no-cache-dir {}{target} 2>&1 | tee build.log (the install that failed, with -v), then `abidoc check build.log`",
                // A build against the installed torch is seen as it failed only with torch visible.
                if d.package.as_deref().and_then(crate::kb::links_torch) == Some(true) {
                    "--no-build-isolation "
                } else {
                    ""
                }
            ),
        ),
    );
    // The more particular causes after: their messages stand.
    old_pip(cx, &mut d, &mut fixes);
    out_of_memory(cx, &mut d, &mut fixes);
    known_cause(cx, &mut d, &mut fixes);
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A pip older than the wheel tags packages publish (manylinux2014 needs pip 19.3, the
/// `manylinux_2_28` of PEP 600 needs 20.3): it passes over the wheels and builds the sdist, so
/// upgrading pip, then installing again, installs a wheel and compiles nothing.
fn old_pip(cx: &Cx<'_>, d: &mut Diagnostic, fixes: &mut Vec<Fix>) {
    let Some(pip) = cx.scene.version_of("pip") else {
        return;
    };
    let Some(v) = abidoc_knowledge::Version::parse(pip) else {
        return;
    };
    if v.major_minor() >= (20, 3) {
        return;
    }
    let (Some(name), Some(floor)) = (Name::new("pip"), Version::new("20.3")) else {
        return;
    };
    d.severity = Severity::Error;
    let who = d.package.as_deref().unwrap_or("a package");
    d.message = format!(
        "{who} was built from source, and failed, under pip {pip}: a pip that old does not see the wheels packages publish today, so it compiles what a newer pip installs as a wheel"
    );
    d.evidence.push(format!(
        "pip {pip} predates the wheel tags packages publish today (manylinux2014 needs pip 19.3, manylinux_2_28 needs 20.3): it built from source what a newer pip installs as a wheel"
    ));
    let mut f = Fix::new(
        Code::BuildFailed,
        "upgrade-pip",
        FixKind::InstallMissing,
        format!("Upgrade pip (it is {pip}), then install again: a newer pip takes the published wheel"),
        "pip before 19.3 cannot read manylinux2014 wheel tags, and before 20.3 the manylinux_2_x tags of PEP 600: it skips the wheels and compiles the source distribution instead.",
    )
    .step(recipes::pip_install(
        cx,
        vec![PipFlag::Upgrade],
        vec![Requirement::AtLeast(name, floor)],
    ))
    .cost(Cost::download());
    if let Some(pkg) = d.package.as_deref().and_then(Name::new) {
        f = f.step(recipes::pip_install(cx, Vec::new(), vec![Requirement::Any(pkg)]));
    }
    fixes.push(f.leading());
}

/// A compile stopped by a cause its words name: CUB's headers on Windows. The cause is known,
/// so the failure is an error and its fixes lead.
fn known_cause(cx: &Cx<'_>, d: &mut Diagnostic, fixes: &mut Vec<Fix>) {
    use abidoc_syntax::CompileCause;
    let Some(cause) = cx.scene.compile_cause else {
        return;
    };
    let code = Code::BuildFailed;
    d.severity = Severity::Error;
    let build = d
        .package
        .as_deref()
        .map_or_else(|| "the build".to_owned(), |p| format!("{p}'s build"));
    d.evidence
        .retain(|e| !e.starts_with("the compiler ran and failed"));
    match cause {
        CompileCause::CubWindowsMacro => {
            d.message = format!(
                "{build} compiles CUB 1.15 (the CUB of CUDA 11.x) after windows.h, whose `small` macro (rpcndr.h) breaks CUB's segmented sort: `dispatch_segmented_sort.cuh` lines 338 and 379"
            );
            d.evidence.push("CUB 1.16 renamed what the macro clashes with; CUDA 12 ships CUB 2.x".into());
            fixes.push(
                Fix::new(
                    code,
                    "win32-lean-and-mean",
                    FixKind::Configure,
                    "Compile the CUDA sources with -DWIN32_LEAN_AND_MEAN, then build again",
                    "WIN32_LEAN_AND_MEAN keeps windows.h from including rpcndr.h and its `small` macro; nothing else in the build changes.",
                )
                .step(Step::Manual(
                    "add \"-DWIN32_LEAN_AND_MEAN\" to the extension's nvcc flags (setup.py's extra_compile_args[\"nvcc\"], nvcc_args, or CMake's CMAKE_CUDA_FLAGS), then build again".into(),
                ))
                .leading(),
            );
            fixes.push(
                Fix::in_words(
                    code,
                    "newer-cub",
                    "Or build with a CUB of 1.16 or later: a CUDA 12 toolkit, or CUB_HOME at a newer CUB",
                    "The clash is fixed in CUB 1.16 (NVIDIA/cub#423); CUDA 11.x toolkits keep CUB 1.15.",
                    "build with a CUDA 12 toolkit (CUDA_HOME at it), or download CUB 1.16+ from https://github.com/NVIDIA/cub/releases and set CUB_HOME to it (a CUB newer than the toolkit's Thrust also needs THRUST_IGNORE_CUB_VERSION_CHECK)",
                ),
            );
        }
        CompileCause::InplaceDirMissing => {
            let dir = cx.scene.inplace_dir.as_deref().unwrap_or("<the directory>");
            d.message = format!(
                "{build} compiled, but `build_ext --inplace` could not copy the built module into {dir}/: that directory does not exist where the command ran (the extension's dotted name has a package part the folder lacks)"
            );
            fixes.push(
                Fix::in_words(
                    code,
                    "inplace-dir",
                    format!("Create {dir}/ where the build runs, then build again"),
                    "setup.py names the extension with its package (`monotonic_align.core`), so --inplace writes it into that package's directory below the current one; creating it lets the copy succeed, and the import then finds the module there.",
                    format!(
                        "in the directory where `python setup.py build_ext --inplace` ran: mkdir -p {dir}, then run it again"
                    ),
                )
                .leading(),
            );
        }
        CompileCause::CubThrustVersion => {
            d.message = format!(
                "{build} stopped in Thrust's version check: the CUB on the include path (CUB_HOME, or an -I before the toolkit's) is another release than the toolkit's Thrust accepts"
            );
            fixes.push(
                Fix::new(
                    code,
                    "ignore-cub-version",
                    FixKind::Configure,
                    "Keep that CUB and tell Thrust to accept it (THRUST_IGNORE_CUB_VERSION_CHECK), then build again",
                    "A newer CUB (taken for its fixes, as on Windows with CUDA 11.x) works with the toolkit's Thrust for these builds; the define skips Thrust's exact-version check.",
                )
                .step(Step::Manual(
                    "add \"-DTHRUST_IGNORE_CUB_VERSION_CHECK\" to the nvcc flags (or `#define THRUST_IGNORE_CUB_VERSION_CHECK` before the Thrust include), then build again".into(),
                ))
                .leading(),
            );
            fixes.push(
                Fix::in_words(
                    code,
                    "toolkit-cub",
                    "Or build with the toolkit's own CUB: unset CUB_HOME",
                    "CUDA 11 and later ship CUB with Thrust, of the release Thrust expects; CUB_HOME is only for toolkits before 11.",
                    if cx.scene.mentions_windows {
                        "set \"CUB_HOME=\" (or remove it from the environment), then build again".to_owned()
                    } else {
                        "unset CUB_HOME, then build again".to_owned()
                    },
                ),
            );
        }
    }
}

/// The system killed the build's compiler or linker: the machine ran out of memory, which a
/// parallel CUDA build (several GB per nvcc job) reaches on most desktops. The cause is known,
/// so the failure is an error, and fewer jobs come first; the builds that need no compile stay
/// after it, and finding the cause in the log no longer applies.
fn out_of_memory(cx: &Cx<'_>, d: &mut Diagnostic, fixes: &mut Vec<Fix>) {
    let heap = cx.scene.compiler_out_of_heap;
    if !cx.scene.compiler_killed && !heap {
        return;
    }
    let code = Code::BuildFailed;
    let windows = cx.scene.mentions_windows || heap;
    d.severity = Severity::Error;
    let build = d
        .package
        .as_deref()
        .map_or_else(|| "a build".to_owned(), |p| format!("{p}'s build"));
    d.message = if heap {
        format!(
            "{build} ran out of memory: the compiler (MSVC) ran out of heap space while the build ran its jobs in parallel"
        )
    } else {
        format!(
            "{build} ran out of memory: the system killed a compiler or linker (signal 9) while the build ran its jobs in parallel"
        )
    };
    // The compiler's errors are this, not a cause of their own.
    d.evidence
        .retain(|e| !e.starts_with("the compiler ran and failed"));
    d.evidence.push(if heap {
        "MSVC stopped with `out of heap space` (C1060/C1002): the machine's memory, page file included, ran out".into()
    } else {
        "a compiler or linker was killed by the system (`Killed`, signal 9, `Error 137`): what running out of memory looks like from inside a build".into()
    });
    fixes.retain(|f| !f.id.ends_with("/show-cause"));
    let again = if windows {
        "run the same install or build command again; if it stops again, MAX_JOBS=1, or a larger Windows page file"
    } else {
        "run the same install or build command again (a Makefile build: make -j2); if it is still killed, MAX_JOBS=1, or add swap"
    };
    let steps: Vec<Step> = [("MAX_JOBS", "2"), ("CMAKE_BUILD_PARALLEL_LEVEL", "2")]
        .iter()
        .filter_map(|(n, v)| recipes::set_env(n, v))
        .chain(std::iter::once(Step::Manual(again.into())))
        .collect();
    fixes.push(
        Fix::new(
            code,
            "fewer-jobs",
            FixKind::Configure,
            "Build again with fewer parallel jobs (MAX_JOBS=2)",
            "torch's cpp_extension (and the setup.py scripts built on it) runs as many compiler jobs as there are CPUs unless MAX_JOBS says otherwise, and CMake builds as many as CMAKE_BUILD_PARALLEL_LEVEL; each nvcc or compiler job of a CUDA kernel file can take several GB, so fewer jobs fit in memory and the build only takes longer.",
        )
        .steps(steps)
        .leading(),
    );
}

/// A package whose setup.py downloads its own prebuilt wheel (flash-attn, mamba-ssm) compiled
/// because none was found for the torch the text states: the release data's answer. A wheel it
/// lists for that torch is installed by its URL (nothing compiles); a torch line no release has
/// wheels for gets the nearest lines that have them.
fn own_wheel(cx: &Cx<'_>, pkg: &Name, torch: &str) -> Option<Fix> {
    let code = Code::BuildFailed;
    let version = cx.scene.version_of(pkg.as_str());
    let python = cx.scene.version_of("python");
    // setup.py's guess names the CUDA and C++ ABI it read from the installed torch.
    let guessed = cx.scene.guessed_wheel.as_deref();
    let (cuda, cxx11) = guessed.map_or((None, None), wheel_labels);
    let answer =
        crate::kb::prebuilt(pkg.as_str(), version, torch, cuda.as_deref(), cxx11, python)?;
    let t = recipes::short_torch(torch);
    match (&answer.fetch, &answer.listing) {
        // The very wheel setup.py just failed to fetch: it is published, so the download
        // failed (no route to GitHub, a proxy), and installing it by URL fails the same way.
        (Fetch::Wheel(w), Listing::Listed { .. })
            if cx.scene.precompiled_wheel_missing
                && guessed.is_some_and(|g| g.rsplit('/').next() == Some(w.file_name.as_str())) =>
        {
            Some(
                Fix::in_words(
                    code,
                    "wheel-download",
                    format!("Let setup.py download {} (it is published; the download failed)", w.file_name),
                    format!("{pkg}'s setup.py guessed the right wheel, which the release data lists, and could not download it: this machine does not reach github.com (no internet, a proxy or firewall), so it compiled instead. Fetched elsewhere, the file installs with no compile."),
                    format!(
                        "check that this machine reaches github.com (set HTTPS_PROXY if it needs a proxy), then install again; or download {} on a machine that does, copy it here and `pip install --no-deps ./{}`",
                        w.file_name, w.file_name
                    ),
                ),
            )
        }
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
                Fix::in_words(
                    code,
                    "torch-with-wheels",
                    format!("Use a torch line {pkg} {} publishes wheels for ({})", answer.version, shown.join(", ")),
                    format!("{pkg}'s setup.py downloads a prebuilt wheel only for the torch lines its release was built for, and compiles otherwise; torch {t} is not one of them. With torch (and its companions) of a listed line, the install downloads instead of compiling."),
                    format!(
                        "install torch of one of these lines ({}) with its torchvision/torchaudio, then pip install --no-build-isolation {pkg}=={}",
                        shown.join(", "),
                        answer.version
                    ),
                ),
            )
        }
        _ => None,
    }
}

/// The CUDA and C++ ABI a prebuilt wheel's name carries (`…+cu122torch2.2cxx11abiFALSE-…`:
/// `12.2`, `false`; `+cu12torch…`: `12`).
fn wheel_labels(url: &str) -> (Option<String>, Option<bool>) {
    let file = url.rsplit('/').next().unwrap_or(url);
    let label = file.split_once('+').map_or("", |(_, l)| l);
    let label = label.split('-').next().unwrap_or("");
    let cxx11 = if label.contains("cxx11abiTRUE") {
        Some(true)
    } else if label.contains("cxx11abiFALSE") {
        Some(false)
    } else {
        None
    };
    let digits: String = label
        .strip_prefix("cu")
        .unwrap_or("")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    // PyTorch's label grammar (`cu122` is 12.2); a two-digit label names the major alone.
    let cuda = match (digits.len(), abidoc_knowledge::version::cuda_tag(&format!("cu{digits}"))) {
        (2, Some((major, _))) => Some(major.to_string()),
        (3, Some((major, minor))) => Some(format!("{major}.{minor}")),
        _ => None,
    };
    (cuda, cxx11)
}

/// A kernel whose instructions need compute capability `cap`, compiled for older GPUs too (the
/// architecture list torch's cpp_extension derives from TORCH_CUDA_ARCH_LIST, or a package's own
/// default list): the list limited to `cap` and later builds it; a GPU older than `cap` cannot
/// run it at all.
fn kernel_needs_newer_gpu(cx: &Cx<'_>, mut d: Diagnostic, cap: &str) -> Diagnostic {
    let code = Code::BuildFailed;
    let who = d.package.clone().or_else(|| cx.near.filter(|n| *n != "torch").map(str::to_owned));
    let whose = who.as_deref().map_or_else(|| "a package's".to_owned(), |p| format!("{p}'s"));
    d.package = who.clone();
    d.message = format!(
        "{whose} CUDA kernels use instructions of compute capability {cap} and later, and the build also compiles them for older GPUs: its architecture list (TORCH_CUDA_ARCH_LIST, or the package's own default) reaches below {cap}"
    );
    d.evidence.push(format!(
        "the compiler refuses the kernel for GPUs older than compute capability {cap}"
    ));
    d.explanation = Some("A torch extension is compiled once per architecture in its list; an instruction that older GPUs lack (tensor-core `mma`/`ldmatrix` from sm_75/sm_80, `atomicAdd` on half from sm_70) stops the compile for those. Without TORCH_CUDA_ARCH_LIST, torch's cpp_extension lists the GPUs it sees, or every architecture of its CUDA when it sees none (a Docker build, a CI runner).".into());
    let mut fixes = Vec::new();
    if let Some(set) = recipes::set_env("TORCH_CUDA_ARCH_LIST", &format!("{cap}+PTX")) {
        fixes.push(
            Fix::new(
                code,
                "arch-list",
                FixKind::Configure,
                format!("Build for compute capability {cap} and later only (TORCH_CUDA_ARCH_LIST={cap}+PTX)"),
                format!("With the list limited to {cap}, nothing is compiled for the GPUs the kernel cannot serve; `+PTX` keeps it running on newer GPUs than {cap}. Your GPU must be {cap} or newer (nvidia-smi --query-gpu=compute_cap --format=csv)."),
            )
            .step(set)
            .step(Step::Manual(format!(
                "then build {} again (pip install --no-build-isolation --no-cache-dir …, or the project's setup command); a CMake build takes CMAKE_CUDA_ARCHITECTURES instead",
                who.as_deref().unwrap_or("the package")
            ))),
        );
    }
    fixes.push(
        Fix::in_words(
            code,
            "older-gpu",
            format!("On a GPU older than compute capability {cap}: a release or build of the package without these kernels"),
            format!("No build makes a GPU older than {cap} run instructions it lacks; the package's release from before these kernels, or a fallback path it offers, is the way there."),
            "check the package's documentation for the GPUs it supports and an older release or a switch that skips these kernels",
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

#[cfg(test)]
mod tests {
    use super::wheel_labels;

    #[test]
    fn a_guessed_wheel_names_its_cuda_and_abi() {
        let base = "https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/";
        assert_eq!(
            wheel_labels(&format!("{base}flash_attn-2.8.3+cu12torch2.4cxx11abiFALSE-cp310-cp310-linux_x86_64.whl")),
            (Some("12".to_owned()), Some(false))
        );
        assert_eq!(
            wheel_labels(&format!("{base}flash_attn-2.5.6+cu122torch2.2cxx11abiTRUE-cp310-cp310-linux_x86_64.whl")),
            (Some("12.2".to_owned()), Some(true))
        );
        assert_eq!(wheel_labels("x-1.0-py3-none-any.whl"), (None, None));
    }
}
