//! `build-deps-missing`: a build, or a JIT build of a torch extension, lacks one of its own build
//! tools (`No module named 'packaging'`, `'wheel'`, `'setuptools'`, `'ninja'`, `Ninja is required
//! to load C++ extensions`) or has one too new for its build script (`cannot import name
//! 'packaging' from 'pkg_resources'`: setuptools 70 removed it; `No module named 'pkg_resources'`:
//! setuptools 82 removed the module, in a build or at run time), or a C/C++ library's headers
//! (`fatal error: cblas.h: No such file or directory`: its development package).
//!
//! Produced by those messages in a build log (the scanner asks for a build around them; ninja is
//! always a build tool). Fixes install the tool at user level (pip), then, when the text shows
//! which package was being built, that install again with `--no-build-isolation` so the build
//! sees the tools now installed and the installed torch. Nothing is removed.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{
    CondaChannel, Cost, Fix, FixKind, Name, PipFlag, Requirement, Step, SystemManager, Version,
};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A build (or a torch extension's JIT build) lacks a build tool of its own: `No module named 'packaging'` / `'wheel'` / `'setuptools'` / `'ninja'`, `Ninja is required to load C++ extensions`, or a tool too new (setuptools: `cannot import name 'packaging' from 'pkg_resources'`, `No module named 'pkg_resources'`; CMake 4: `Compatibility with CMake < 3.5 has been removed`); `invalid command 'bdist_wheel'`; `Python.h: No such file or directory` (the interpreter's headers) or another library's header (`cblas.h`, `glm/glm.hpp`: its development package; a library's configuration program, `pg_config executable not found`, `mysql_config: not found`, `mecab-config not found`: the same package; a CUDA library's, `curand_kernel.h`, `cusolverDn.h`: that library's development headers of torch's CUDA release, which a partial toolkit lacks); Inductor's `Cannot find a working triton installation`; CMake's `find_package` finding no `<Name>Config.cmake` (torch's, which `torch.utils.cmake_prefix_path` or an unpacked libtorch provides; pybind11's; ROCm's under its prefix).",
    meaning: "Extensions such as flash-attn import `packaging`, `wheel`, `setuptools` or `ninja` in their setup.py, and torch's C++ extension builder (DeepSpeed ops, apex, nvdiffrast, any `torch.utils.cpp_extension.load`) runs ninja. Built with `--no-build-isolation` (which these extensions need to see the installed torch), the build uses the environment's own tools, so a missing one stops it before anything compiles; setuptools 70 and later removed `pkg_resources.packaging`, which older setup.py files import, and setuptools 82 removed `pkg_resources` itself, which setup.py files and packages still import at run time. Cython 3 refuses `.pyx` sources written for Cython 0.29 where a C function pointer meets an `except *` function (`Cannot assign type '… except * nogil' to '… noexcept nogil'`): Cython below 3 builds them. A build tool a build runs as a program (swig, cmake, ninja, meson: `error: command 'swig.exe' failed: No such file or directory`, `/bin/sh: cmake: command not found`, `'cmake' is not recognized as an internal or external command`) is found on PATH by an isolated build too: pip's wheel of it, then the package again. Programs pip does not install (bazel, make, pkg-config, autoconf, automake, libtool, nasm: distutils' `unable to execute 'bazel'`) come from the system's package manager, Bazel through its launcher Bazelisk. Any module a `setup.py` imports at its top (`from setuptools_rust import RustExtension`, `import skbuild`) is a build requirement too: its `No module named` raised in setup.py's own frame names it, installed under its distribution's name (setuptools-rust, scikit-build).",
    fixes: "For CMake 4 refusing an old `cmake_minimum_required`: `CMAKE_POLICY_VERSION_MINIMUM=3.5` (CMake's own hint, no download), else `pip install \"cmake<4\"` and the build with `--no-build-isolation`. Otherwise: 1. Install the missing tool with pip (`pip install packaging wheel`, `pip install ninja`; for the `pkg_resources.packaging` error `pip install \"setuptools<70\"`, for `No module named 'pkg_resources'` `pip install \"setuptools<82\"`, for Cython 3's `noexcept` refusal `pip install \"cython<3\"`), user level, nothing removed. 2. When the log shows which package was being built, install it again with `--no-build-isolation` after the tool, so its build sees the tools and the installed torch. A CUDA library's header: a full toolkit of torch's CUDA release (CUDA_HOME at it) first, then `cuda-libraries-dev-X-Y` from NVIDIA's repository (root) or conda-forge's package pinned with `cuda-version` (advice). The interpreter's headers come with the interpreter: the distribution's `python3-dev`/`python3-devel` (root), or a conda or uv-managed Python. Triton for Inductor: `pip install triton` (`triton-windows` on Windows).",
    near_package: super::NearPackage::NotTorch,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    module: &str,
    too_new: bool,
) -> Diagnostic {
    let mut d = blank(Code::BuildDepsMissing, source);
    let built = cx.package_being_built(None).filter(|p| p != module);
    d.package.clone_from(&built);
    let what = built.as_deref().map_or_else(
        || "a build of a C++/CUDA extension".to_owned(),
        |p| format!("the build of {p}"),
    );
    // CMake 4 refuses a project (or a dependency it bundles) that declares a minimum below 3.5;
    // CMake's own message names the variable that lets it go on.
    if module == "cmake" && too_new {
        d.message = format!(
            "{what} runs CMake 4, which no longer accepts a CMakeLists.txt declaring cmake_minimum_required below 3.5 (the project's own, or a dependency's it bundles)"
        );
        let mut fixes = Vec::new();
        if let Some(set) = recipes::set_env("CMAKE_POLICY_VERSION_MINIMUM", "3.5") {
            let mut f = Fix::new(
                Code::BuildDepsMissing,
                "cmake-policy-minimum",
                FixKind::Configure,
                "Let CMake 4 treat the old minimum as 3.5 (CMAKE_POLICY_VERSION_MINIMUM=3.5), then build again",
                "CMake 4's own error names this variable: it configures the project as if it asked for 3.5, which old CMakeLists.txt files almost always build with. It reaches the build in pip's isolated environment too, through the environment.",
            )
            .step(set);
            if let Some(pkg) = built.as_deref().and_then(Name::new) {
                f = f.step(recipes::pip_install(cx, Vec::new(), vec![Requirement::Any(pkg)]));
            }
            fixes.push(f);
        }
        fixes.extend(self::fixes(cx, "cmake", true, built.as_deref()));
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
    if module == "Python.h" {
        d.message = format!(
            "{what} needs the Python development headers (Python.h), which this interpreter's installation lacks"
        );
        d.fixes = python_headers(cx);
        return d;
    }
    // Triton is torch.compile's GPU code generator, not a build tool; PyPI's `triton` has no
    // Windows wheels, its Windows port does (the tables' `windows_port`).
    if module == "triton" {
        d.package = Some("triton".into());
        d.message = "Triton is not installed where this Python runs (or does not import): torch.compile's Inductor backend and kernel packages (bitsandbytes, SageAttention, flash-linear-attention, Liger) generate their GPU kernels with it".into();
        let port = crate::kb::windows_port("triton");
        let module = match port {
            Some(p) if cx.scene.mentions_windows => p,
            _ => "triton".to_owned(),
        };
        let mut found = fixes(cx, &module, false, None);
        // With torch's version known, the Triton line it requires (a Triton of another line
        // fails in Inductor's imports instead).
        if let Some(pinned) = recipes::triton_pinned(
            Code::BuildDepsMissing,
            cx,
            "nothing else installs it where torch's wheel does not require it (Windows, a torch from another index).",
        ) {
            found.insert(0, pinned.leading());
        }
        d.fixes = crate::fix::rank(found);
        return d;
    }
    d.message = if too_new && module == "Cython" {
        let whose = built
            .as_deref()
            .or(cx.near.filter(|p| *p != "torch"))
            .map_or_else(|| "the package being built".to_owned(), str::to_owned);
        format!(
            "the Cython sources of {whose} were written for Cython before 3.0: Cython 3 makes C functions `noexcept` unless declared otherwise and refuses to assign an `except *` function to such a pointer"
        )
    } else if too_new {
        format!(
            "{what} imports pkg_resources.packaging, which setuptools 70 and later no longer have: it needs an older setuptools"
        )
    } else if module == "pkg_resources" {
        let who = built
            .as_deref()
            .or(cx.near.filter(|p| *p != "torch"))
            .map_or_else(|| "the code that failed".to_owned(), str::to_owned);
        format!(
            "{who} imports pkg_resources, which setuptools 82 and later no longer ship (and a Python 3.12+ virtual environment has no setuptools at all)"
        )
    } else {
        format!("{what} needs the build tool `{module}`, which is not installed where it runs")
    };
    if module == "ninja" {
        d.evidence.push("torch.utils.cpp_extension compiles C++/CUDA extensions (DeepSpeed ops, apex, nvdiffrast, load()) with ninja; the `ninja` PyPI package puts it on PATH".into());
    }
    d.fixes = fixes(cx, module, too_new, built.as_deref());
    d
}

/// A build tool run as a program (swig, cmake) by a build that does not compile against torch:
/// an isolated build finds it on PATH, so the package needs no flag to be built again.
fn plain_program(cx: &Cx<'_>, module: &str, built: Option<&str>) -> bool {
    abidoc_syntax::scan::BUILD_PROGRAMS.contains(&module)
        && !cx.torch_shown(None)
        && built.and_then(crate::kb::links_torch) != Some(true)
}

fn fixes(cx: &Cx<'_>, module: &str, too_new: bool, built: Option<&str>) -> Vec<Fix> {
    let code = Code::BuildDepsMissing;
    if abidoc_syntax::scan::SYSTEM_BUILD_PROGRAMS.contains(&module) {
        return system_program(code, module);
    }
    // The distribution that installs the module (`setuptools_rust` is setuptools-rust,
    // `skbuild` scikit-build).
    let Some(tool) = Name::new(&crate::incidents::distribution_of(module)) else {
        return Vec::new();
    };
    // `pkg_resources` comes with setuptools before 82 (read from the 81.0.0 and 82.0.0 wheels).
    let (tool, below) = match module {
        "pkg_resources" => (Name::new("setuptools").unwrap_or(tool), Some("82")),
        // CMake 4 dropped the policies of CMake before 3.5; setuptools 70 pkg_resources.packaging.
        "cmake" if too_new => (tool, Some("4")),
        // Cython 3.0 changed the default exception specification of C functions.
        "Cython" if too_new => (tool, Some("3")),
        _ if too_new => (tool, Some("70")),
        _ => (tool, None),
    };
    let mut reqs = vec![match below.and_then(Version::new) {
        Some(v) => Requirement::Below(tool.clone(), v),
        None => Requirement::Any(tool.clone()),
    }];
    // A setup.py build with --no-build-isolation uses the environment's setuptools and wheel:
    // a missing `packaging` is usually followed by a missing `wheel`.
    if built.is_some()
        && module == "packaging"
        && let Some(w) = Name::new("wheel")
    {
        reqs.push(Requirement::Any(w));
    }
    let shown: Vec<String> = reqs.iter().map(crate::fix::render::requirement).collect();
    let shown = shown.join(" ");
    let mut f = Fix::new(
        code,
        "install-build-deps",
        FixKind::InstallMissing,
        match built {
            Some(p) if plain_program(cx, module, Some(p)) => {
                format!("Install {shown} (pip's wheel puts the program on PATH), then install {p} again")
            }
            Some(p) => format!("Install {shown}, then build {p} with --no-build-isolation"),
            None => format!("Install {shown}"),
        },
        if too_new && module == "Cython" {
            "Cython 0.29 compiles the sources as written; an isolated build fetches the newest Cython again, so the build runs with --no-build-isolation after it (or the package's newer release, made for Cython 3).".to_owned()
        } else if too_new && module == "cmake" {
            "CMake 3.x still accepts the old minimum; pip's cmake package puts it first on PATH, and --no-build-isolation keeps the build from fetching CMake 4 again.".to_owned()
        } else if too_new {
            "setuptools 70 removed pkg_resources.packaging; an older setuptools lets the build script run unchanged.".to_owned()
        } else if module == "pkg_resources" {
            "setuptools 82 removed pkg_resources (its 81.0.0 wheel has it, 82.0.0's does not); a setuptools below 82 brings it back without changing the code that imports it (which should move to importlib.metadata and importlib.resources).".to_owned()
        } else if module.starts_with("triton") {
            "Inductor imports Triton from this environment; pip installs it without root (on Windows, the triton-windows port; pick the release its page pairs with your torch).".to_owned()
        } else {
            format!("The build runs `{module}` from this environment; pip installs it without root.")
        },
    )
    .step(recipes::pip_install(cx, Vec::new(), reqs))
    .cost(Cost::download());
    // A tool run as a program is found on PATH by an isolated build too: the build needs no
    // flag, only the program.
    // (A build against torch still needs to see it: --no-build-isolation stays.)
    let program = plain_program(cx, module, built);
    if let Some(pkg) = built.and_then(Name::new) {
        let flags = if program {
            Vec::new()
        } else {
            vec![PipFlag::NoBuildIsolation]
        };
        f = f.step(recipes::pip_install(cx, flags, vec![Requirement::Any(pkg)]));
    } else if !program && !module.starts_with("triton") && module != "pkg_resources" {
        // A setup.py importing a module in pip's isolated build environment does not see what
        // is installed here: the install that failed runs again seeing this environment.
        f = f.step(Step::Manual(
            "then run the install that failed again with --no-build-isolation (pip's isolated build does not see what this environment has)".into(),
        ));
    }
    crate::fix::rank(vec![f])
}

/// A compile step that does not find a C/C++ library's header (`fatal error: cblas.h: No such
/// file or directory`): the library's development package, from the system's manager (root) or
/// conda-forge into a conda environment; the headers and packages are data
/// (`system_libs.toml [[header]]`).
pub(crate) fn header(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    header: &str,
    detail: &str,
) -> Diagnostic {
    let code = Code::BuildDepsMissing;
    let mut d = blank(code, source);
    // The header's own directory names the dependency (`pybind11/pybind11.h`), not the build.
    let dependency = crate::kb::normalize(header.split('/').next().unwrap_or(header));
    d.package = cx
        .package_being_built(Some(detail))
        .filter(|p| *p != dependency);
    if let Some(package) = header.strip_suffix("Config.cmake") {
        return cmake_package(cx, d, package, detail);
    }
    let Some(lib) = abidoc_knowledge::system_libs::header(header) else {
        return unknown_dependency(d, header, detail);
    };
    // A library's configuration program (`pg_config`, `mysql_config`) rather than a header.
    let config_tool = header.ends_with("-config") || header.ends_with("_config");
    let what = d.package.as_deref().map_or_else(
        || {
            if config_tool {
                "a build".to_owned()
            } else {
                "a build of a C++/CUDA extension".to_owned()
            }
        },
        |p| format!("the build of {p}"),
    );
    d.message = match header.strip_suffix(".pc") {
        None if config_tool => format!(
            "{what} runs `{header}`, the configuration program of {}: it comes with that library's development files, which are not installed (or not on PATH)",
            lib.what
        ),
        Some(pc) => format!(
            "{what} asks pkg-config for `{pc}` of {}, whose development files are not installed where pkg-config looks",
            lib.what
        ),
        None => format!(
            "{what} includes `{header}` of {}, whose development files are not installed where the compiler looks",
            lib.what
        ),
    };
    d.evidence.push(format!(
        "{} says: {}",
        if config_tool { "the build" } else { "the compiler" },
        detail.trim()
    ));
    if lib.cuda_toolkit {
        return cuda_header(cx, d, header, lib);
    }
    d.explanation = Some(format!("A C/C++ library's headers come with its development package (`-dev`/`-devel`), not with the library itself or with pip; once it is installed, the build finds `{header}` in the compiler's standard include path."));
    let names = |v: &[String]| v.iter().filter_map(|n| Name::new(n)).collect::<Vec<_>>();
    let mut fixes = Vec::new();
    let system = |manager: SystemManager, packages: &[String]| {
        Fix::new(
            code,
            "dev-package",
            FixKind::NeedsRoot,
            format!("Install the development files of {} ({}; needs root), then build again", lib.what, packages.join(" ")),
            "The distribution's development package puts the headers where every compiler looks.",
        )
        .step(Step::SystemInstall {
            manager,
            packages: names(packages),
        })
    };
    // Windows has no system manager for C libraries: conda-forge's packages (or vcpkg) there.
    let windows = cx.scene.mentions_windows || detail.contains("C1083");
    // macOS: Homebrew (no root); its keg-only formulae (libomp, openblas) are outside the
    // compiler's default search path, which CPATH and LIBRARY_PATH extend.
    let macos = cx.scene.mentions_macos && !windows;
    if let Some(formula) = lib.brew.first().filter(|_| macos) {
        fixes.push(
            Fix::in_words(
                code,
                "brew-package",
                format!("Install {} with Homebrew ({}), then build again", lib.what, lib.brew.join(" ")),
                "Homebrew installs the headers without root; a keg-only formula (libomp, openblas) stays outside the compiler's default search path, so the build is told where it is.",
                format!(
                    "brew install {}; export CPATH=\"$(brew --prefix {formula})/include:$CPATH\" LIBRARY_PATH=\"$(brew --prefix {formula})/lib:$LIBRARY_PATH\", then build again",
                    lib.brew.join(" ")
                ),
            ),
        );
    }
    match cx.world.system_package_manager() {
        _ if windows || macos => {}
        Some(SystemManager::Apt) if !lib.apt.is_empty() => {
            fixes.push(system(SystemManager::Apt, &lib.apt));
        }
        Some(SystemManager::Dnf) if !lib.dnf.is_empty() => {
            fixes.push(system(SystemManager::Dnf, &lib.dnf));
        }
        _ => {
            let apt = format!("apt-get install {}", lib.apt.join(" "));
            let dnf = format!("dnf install {}", lib.dnf.join(" "));
            fixes.push(
                Fix::in_words(
                    code,
                    "dev-package",
                    format!("Install the development files of {} (needs root), then build again", lib.what),
                    format!("The distribution is not known here: Debian/Ubuntu `{apt}`; Fedora/RHEL `{dnf}`."),
                    format!("{apt} (Debian/Ubuntu) or {dnf} (Fedora/RHEL)"),
                ),
            );
        }
    }
    if !lib.conda.is_empty() && (windows || cx.world.in_conda() || cx.scene.mentions_conda) {
        fixes.push(
            Fix::new(
                code,
                "conda-dev-package",
                FixKind::InstallMissing,
                format!("Install {} into the conda environment (conda-forge {})", lib.what, lib.conda.join(", ")),
                "No root needed; a build with the environment's compiler finds the headers in its include directory (on Windows, Library\\include; elsewhere add CPATH=$CONDA_PREFIX/include for another compiler).",
            )
            .step(Step::CondaInstall {
                channel: CondaChannel::CondaForge,
                packages: names(&lib.conda).into_iter().map(Requirement::Any).collect(),
            }),
        );
    }
    if windows && fixes.is_empty() {
        fixes.push(
            Fix::in_words(
                code,
                "windows-headers",
                format!("Install {}'s headers and add their directory to INCLUDE, then build again", lib.what),
                "MSVC looks for headers in the directories of the INCLUDE variable (set by the Native Tools prompt) and those the build passes with /I; vcpkg or the library's SDK installs them.",
                format!(
                    "install {} (vcpkg, or its SDK), then `set INCLUDE=<its include directory>;%INCLUDE%` in the prompt that builds",
                    lib.what
                ),
            ),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A header of one of the CUDA toolkit's libraries (`curand_kernel.h`, `cusolverDn.h`, which
/// torch's `ATen/cuda/CUDAContext.h` includes): nvcc ran, but the toolkit the build uses is a
/// partial one (conda's `cuda-nvcc` alone, a runtime image, pip's nvidia-* wheels whose headers
/// sit in their own directories). A full toolkit of torch's CUDA release has it; else that
/// library's development package, of the same release.
fn cuda_header(
    cx: &Cx<'_>,
    mut d: Diagnostic,
    header: &str,
    lib: &abidoc_knowledge::system_libs::Header,
) -> Diagnostic {
    let code = Code::BuildDepsMissing;
    // torch's CUDA release, which the headers must match (`12.4`): the environment's, else the
    // `+cu124` label of the torch the text states.
    let release = cx
        .world
        .torch_cuda()
        .or_else(|| {
            let torch = abidoc_knowledge::Version::parse(&cx.torch()?)?;
            torch.local_cuda().map(|(a, b)| format!("{a}.{b}"))
        })
        .filter(|r| r.bytes().all(|c| c.is_ascii_digit() || c == b'.'));
    let shown = release
        .as_deref()
        .map_or_else(|| "torch's CUDA release".to_owned(), |r| format!("CUDA {r}"));
    let dash = release.as_deref().map_or_else(|| "X-Y".to_owned(), |r| r.replace('.', "-"));
    d.message = format!(
        "{} includes `{header}` of {}, which is not where the build looks: the CUDA toolkit it uses lacks that library's development headers (a partial or runtime-only toolkit), or CUDA_HOME points at none",
        d.package
            .as_deref()
            .map_or_else(|| "a CUDA build".to_owned(), |p| format!("the build of {p}")),
        lib.what
    );
    d.explanation = Some(format!("A full CUDA toolkit ships every library's headers in its include/ directory; conda's `cuda-nvcc`, CUDA runtime images and pip's nvidia-* wheels do not put them where nvcc looks. The headers must come from {shown}, the release torch was built with."));
    let mut fixes = vec![
        Fix::new(
            code,
            "full-toolkit",
            FixKind::Inspect,
            format!("Build with a full CUDA toolkit of {shown}: its include/ has `{header}`"),
            "A toolkit installed whole (NVIDIA's installer or repository, /usr/local/cuda-X.Y) has every library's headers; pointing CUDA_HOME at it makes nvcc and the includes come from it.",
        )
        .step(Step::Manual(format!(
            "ls -d /usr/local/cuda*/include/{header} (or your cluster's CUDA module); export CUDA_HOME=<that toolkit, of {shown}>, then build again"
        ))),
        Fix::in_words(
            code,
            "cuda-dev-package",
            format!("Install {}'s development package of {shown} (needs root)", lib.what),
            "NVIDIA's CUDA repository names the development packages per CUDA release; `cuda-libraries-dev-X-Y` installs every library's headers of that release.",
            format!(
                "apt-get install cuda-libraries-dev-{dash} (Debian/Ubuntu, NVIDIA's CUDA repository) or dnf install cuda-libraries-devel-{dash} (Fedora/RHEL), then build again"
            ),
        ),
    ];
    if !lib.conda.is_empty() && (cx.world.in_conda() || cx.scene.mentions_conda) {
        fixes.push(
            Fix::in_words(
                code,
                "conda-dev-package",
                format!("In the conda environment: conda-forge's {} for {shown}", lib.conda.join(", ")),
                "No root needed; pinning cuda-version keeps the headers of torch's CUDA release, not the newest.",
                format!(
                    "conda install -c conda-forge {} cuda-version={}, then build again",
                    lib.conda.join(" "),
                    release.as_deref().unwrap_or("<torch's CUDA, e.g. 12.4>")
                ),
            ),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A header or pkg-config file no table knows (`hdf5_hl.h` once, `Package sentencepiece was not
/// found`): a library's development files by that name, a project's submodule or vendored sources
/// not checked out, or a release of the package built as a wheel.
fn unknown_dependency(mut d: Diagnostic, header: &str, detail: &str) -> Diagnostic {
    let code = d.code;
    let who = d.package.as_deref().map(|p| format!("the build of {p}"));
    let (message, title, why, step) = match header.strip_suffix(".pc") {
        Some(pc) => (
            format!(
                "{} asks pkg-config for `{pc}`, whose development files are not installed where pkg-config looks",
                who.unwrap_or_else(|| "a build".to_owned())
            ),
            format!("Install the development files that provide {pc}.pc, or a release of the package with a wheel for this Python"),
            "pkg-config finds a library's build files through its .pc file, which the library's -dev/-devel package (or conda-forge's package) installs; a wheel for this Python and platform needs no build at all.",
            format!("install the package that ships {pc}.pc (apt-cache search / dnf provides '*/{pc}.pc', or conda-forge), or pip install a release of the failing package that has a wheel for this Python"),
        ),
        None => {
            let file = header.rsplit('/').next().unwrap_or(header);
            d.explanation = Some(format!("A C/C++ library's headers come with its development package (`-dev`/`-devel`, or conda-forge's package), not with the library itself; a header of the project's own (a git submodule, a vendored library) comes with a full checkout. Once `{header}` is on the compiler's include path, the build goes on."));
            (
                format!(
                    "{} includes `{header}`, which is not where the compiler looks: the development files that provide it are not installed (or not on the include path)",
                    who.unwrap_or_else(|| "a build of a C/C++ extension".to_owned())
                ),
                format!("Install the development files that provide {header}, then build again"),
                "The distribution's package search names the package that ships a header; conda-forge has most libraries' headers too; a header of the project's own comes with `git submodule update --init --recursive`.",
                // The name goes into commands a person may paste: only a plain file name does.
                if crate::fix::valid::plain_file_name(file) {
                    format!("find the package that ships {file} (apt-file search {file}, dnf provides '*/{file}', or conda-forge), install it, or run `git submodule update --init --recursive` in a checkout, then build again")
                } else {
                    "find the package that ships the header (the distribution's package search, or conda-forge), install it, or run `git submodule update --init --recursive` in a checkout, then build again".to_owned()
                },
            )
        }
    };
    d.message = message;
    d.evidence.push(format!("the text says: {}", detail.trim()));
    d.fixes = crate::fix::rank(vec![
        Fix::new(code, "dev-package", FixKind::Advice, title, why).step(Step::Manual(step)),
    ]);
    d
}

/// A build tool pip does not install, run as a program: the system's package manager's (Bazel
/// through its own launcher, Bazelisk). Advice: which manager is in use is the person's.
fn system_program(code: Code, program: &str) -> Vec<Fix> {
    let (how, why) = if program == "bazel" {
        (
            "install Bazelisk as `bazel` on PATH (its release binary from https://github.com/bazelbuild/bazelisk/releases, `npm install -g @bazel/bazelisk`, or `brew install bazelisk`), then build again".to_owned(),
            "The build runs `bazel`; Bazelisk is Bazel's launcher, which fetches the Bazel release the project asks for (its .bazelversion).".to_owned(),
        )
    } else {
        let dnf = if program == "pkg-config" { "pkgconf-pkg-config" } else { program };
        // macOS: make comes with the Command Line Tools; Homebrew's libtool is `glibtool`.
        let mac = match program {
            "make" => "xcode-select --install (macOS)".to_owned(),
            "libtool" => "brew install libtool (macOS, where it is named glibtool)".to_owned(),
            _ => format!("brew install {program} (macOS)"),
        };
        (
            format!("sudo apt-get install {program} (Debian, Ubuntu), sudo dnf install {dnf} (Fedora, RHEL), {mac}, or conda install -c conda-forge {program} inside a conda environment; then build again"),
            format!("The build runs `{program}` as a program; pip does not install it, the system's package manager does."),
        )
    };
    vec![
        Fix::in_words(
            code,
            "install-build-program",
            format!("Install the build tool `{program}`, then build again"),
            why,
            how,
        ),
    ]
}

/// CMake's config-mode `find_package(X)` finding no `XConfig.cmake`: torch's own CMake files
/// ship in the wheel (`torch.utils.cmake_prefix_path`), pybind11's in its pip package; any
/// other package's come with its development files, found through `CMAKE_PREFIX_PATH` or
/// `X_DIR` once installed.
fn cmake_package(cx: &Cx<'_>, mut d: Diagnostic, package: &str, detail: &str) -> Diagnostic {
    let code = d.code;
    // CMake says the same of an optional package in a warning, and configures on: only a text
    // where CMake stopped (`CMake Error`, `Configuring incomplete`) makes it the failure.
    if !cx.scene.cmake_error {
        d.severity = crate::diagnostic::Severity::Information;
    }
    let who = d
        .package
        .as_deref()
        .map_or_else(|| "a CMake build".to_owned(), |p| format!("the CMake build of {p}"));
    d.message = format!(
        "{who} asks CMake for the package {package} (find_package), whose CMake files ({package}Config.cmake) are not where CMake looks"
    );
    d.evidence.push(format!("CMake says: {}", detail.trim()));
    let fix = match package {
        "Torch" => Fix::new(
            code,
            "cmake-prefix-torch",
            FixKind::Configure,
            "Point CMake at torch's CMake files: the pip torch's torch.utils.cmake_prefix_path, or an unpacked libtorch",
            "The torch wheel ships TorchConfig.cmake under torch/share/cmake (torch itself prints the directory), and an unpacked libtorch under its own share/cmake; CMake finds it when CMAKE_PREFIX_PATH names that prefix by an absolute path.",
        )
        .step(Step::Manual(
            "cmake -DCMAKE_PREFIX_PATH=\"$(python -c 'import torch; print(torch.utils.cmake_prefix_path)')\" … for the pip torch, or -DCMAKE_PREFIX_PATH=<the absolute path of the unpacked libtorch> (or export CMAKE_PREFIX_PATH before the build)".into(),
        )),
        "pybind11" => Fix::new(
            code,
            "cmake-prefix-pybind11",
            FixKind::Configure,
            "Install pybind11 and point CMake at its CMake files (pybind11_DIR)",
            "pip's pybind11 ships pybind11Config.cmake; `python -m pybind11 --cmakedir` prints its directory.",
        )
        .step(Step::Manual(
            "python -m pip install pybind11, then cmake -Dpybind11_DIR=\"$(python -m pybind11 --cmakedir)\" … (or export pybind11_DIR before the build)".into(),
        )),
        "hip" | "HIP" | "rocblas" | "hipblas" | "rocprim" | "hipcub" => Fix::new(
            code,
            "cmake-prefix-rocm",
            FixKind::Configure,
            format!("Point CMake at ROCm's CMake files ({package}Config.cmake under the ROCm prefix)"),
            "ROCm installs its packages' CMake files under its prefix (/opt/rocm, or /opt/rocm-X.Y); a build that does not add it to CMAKE_PREFIX_PATH finds none of them.",
        )
        .step(Step::Manual(
            "export CMAKE_PREFIX_PATH=/opt/rocm:$CMAKE_PREFIX_PATH (the ROCm prefix in use; /opt/rocm/lib/cmake holds one directory per package), then build again".into(),
        )),
        _ => Fix::in_words(
            code,
            "cmake-package",
            format!("Install {package}'s development files and point CMake at them"),
            format!("CMake finds {package} through {package}Config.cmake, which its development package (or conda-forge's package) installs; a prefix outside CMake's defaults goes on CMAKE_PREFIX_PATH, or {package}_DIR names the directory of the file."),
            format!(
                "install {package}'s development files (the distribution's -dev/-devel package, or conda-forge's), then cmake -DCMAKE_PREFIX_PATH=<its install prefix> … or -D{package}_DIR=<the directory holding {package}Config.cmake>"
            ),
        ),
    };
    d.fixes = crate::fix::rank(vec![fix]);
    d
}

/// The interpreter's C headers come with the interpreter, not from pip: the distribution's
/// `-dev`/`-devel` package for a system Python (root; the manager from `/etc/os-release`), a
/// conda or uv-managed Python (which ship them) otherwise.
fn python_headers(cx: &Cx<'_>) -> Vec<Fix> {
    let code = Code::BuildDepsMissing;
    let why = "pip builds C extensions against the interpreter's headers (Python.h); distributions ship them in a separate package, conda's and uv's Pythons include them.";
    let system = |manager: SystemManager, pkg: &str| {
        Fix::new(
            code,
            "python-headers",
            FixKind::NeedsRoot,
            format!("Install the Python headers ({pkg}; needs root)"),
            why,
        )
        .step(Step::SystemInstall {
            manager,
            packages: Name::new(pkg).into_iter().collect(),
        })
    };
    let mut fixes = Vec::new();
    // Windows' python.org installer ships the headers; the embeddable Python that portable
    // apps bundle (ComfyUI's python_embeded) has none, and no package manager adds them.
    if cx.scene.mentions_windows {
        fixes.push(
            Fix::new(
                code,
                "prebuilt-for-embedded",
                FixKind::PrebuiltWheel,
                "Install the package's prebuilt wheel for this Python instead of building it, or give the embedded Python the headers of the same version",
                "A Windows Python without Python.h is the embeddable distribution (portable apps' python_embeded); a wheel built for its version needs no compiler, or the include and libs folders of a full python.org install of exactly that version can be copied next to its python.exe.",
            )
            .step(Step::Manual(
                "pip install the package's wheel for this Python's version (cpXY, win_amd64), or copy include\\ and libs\\ from the python.org install of the same version into the folder holding python.exe".into(),
            )),
        );
        return crate::fix::rank(fixes);
    }
    match cx.world.system_package_manager() {
        Some(SystemManager::Apt) => fixes.push(system(SystemManager::Apt, "python3-dev")),
        Some(SystemManager::Dnf) => fixes.push(system(SystemManager::Dnf, "python3-devel")),
        None => fixes.push(
            Fix::in_words(
                code,
                "python-headers",
                "Install the Python development headers for this interpreter (needs root)",
                why,
                "apt-get install python3-dev (Debian/Ubuntu; python3.X-dev for a deadsnakes Python) or dnf install python3-devel (Fedora/RHEL)",
            ),
        ),
    }
    fixes.push(
        Fix::in_words(
            code,
            "python-with-headers",
            "Or build in a conda or uv-managed Python, which ships its headers",
            "No root needed: the environment's own interpreter carries include/python3.X/Python.h.",
            "create the environment with conda or `uv venv --python 3.X`, then build there",
        ),
    );
    crate::fix::rank(fixes)
}
