//! `no-c-compiler`: a JIT compile step (Triton, torch.compile/Inductor, a C++ extension) found no
//! C/C++ compiler.
//!
//! Produced by Triton's and Inductor's "failed to find C compiler" messages. User-level first: a
//! conda environment's compilers; the distribution's compiler package needs root and is chosen
//! from `/etc/os-release` (never `apt-get` on a machine that does not use it); unknown
//! distribution or text alone: advice naming the choices. On Windows (its paths or `cl` in the
//! text): Visual Studio's Build Tools, as advice. A Rust toolchain missing from an sdist's build
//! (maturin's and setuptools-rust's words) is the same failure for Rust: a wheel of another
//! release first, rustup as advice.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{CondaChannel, Fix, FixKind, Name, PipFlag, Requirement, Step, SystemManager};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A JIT compile step or a build found no C/C++ compiler, or none it accepts (a gcc newer than nvcc supports, one without C++17 for torch's headers or another library's: `rocPRIM requires at least C++17`; a build's own check, `NumPy requires GCC >= 9.3`; a Rust toolchain missing or older than the crates need, `requires rustc 1.70 or newer`, `error[E0658]`; ROCm's `--offload-arch` given to the system's g++).",
    meaning: "Triton and torch.compile build small launchers with the system's C compiler at run time, and C++ extensions compile on first import. Slim containers and fresh machines often have none, so the first compiled call fails. nvcc's own errors inside gcc's intrinsics headers (`…/gcc/x86_64-linux-gnu/5/include/avx512vlintrin.h(10919): error: …`) say the same of a host gcc it does not parse. nvcc refusing a clang it does not know (`The version ('70000') of the host compiler ('Apple clang') is not supported`) is the same: a clang of the toolkit's day, or a newer toolkit.",
    fixes: "1. Inside a conda environment: conda-forge's `c-compiler cxx-compiler` (no root). 2. The distribution's compiler package (`build-essential` with apt, `gcc gcc-c++` with dnf; needs root), chosen from `/etc/os-release`. 3. Without an environment, advice naming both. On Windows: Visual Studio Build Tools' C++ workload, run from a prompt with cl.exe on PATH. A compiler the build refuses: a gcc nvcc supports (`CC`/`CXX`/`NVCC_CCBIN` at an older one, e.g. gcc-11 for CUDA 11.x/12.0) or a newer CUDA toolkit; a compiler with C++17 (gcc 9 or later) for torch 2.x headers, with C++11 at least for any build (gcc 4.8 refuses it: `requires compiler and library support for the ISO C++ 2011 standard`); another gcc release where the compiler crashes on the source (`internal compiler error`, its own bug). A package whose compiled part is Rust (tokenizers, safetensors) built from its sdist without cargo: the newest release with a wheel for this Python and platform (`--only-binary`), else Rust from rustup (user-level, advice).",
    near_package: super::NearPackage::NotTorch,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    // torch's headers refusing the C++ standard the build asked for: `You need C++14` (every
    // gcc since 6 defaults to C++14, so the build forced an older one), or C++17 where the text
    // shows the build's own older flag — the extension's build predates this torch.
    let needs_17 = detail.contains("You need C++17") || detail.contains("C++17 or later");
    if detail.contains("You need C++14") || needs_17 && cx.scene.old_cxx_standard {
        return super::abi_mismatch::cxx_standard(
            cx,
            source,
            if needs_17 { "17" } else { "14" },
            detail,
        );
    }
    if detail.contains("unsupported GNU version")
        || detail.contains("maximum required version by CUDA")
        || detail.contains("unsupported Microsoft Visual Studio version")
        || detail.contains("Failed to preprocess host compiler properties")
        || versioned_compiler_missing(detail)
        || detail.contains("parameter packs not expanded")
        || gcc_intrinsics(detail)
        || detail.contains("STL1002")
        || detail.contains("unsupported clang version")
        || detail.contains("of the host compiler (")
        || detail.contains("C++17 or later compatible compiler is required")
        || detail.contains("You need C++17")
        || detail.contains("ISO C++ 2011")
        || detail.contains("internal compiler error")
        || required_standard(detail).is_some()
        || detail.contains("requires GCC >=")
        || detail.contains("--offload-arch")
    {
        return refused(source, detail);
    }
    if detail.contains("Rust package manager")
        || detail.to_ascii_lowercase().contains("rust compiler")
        || detail.contains("cargo in your PATH")
        || rust_too_old(detail)
    {
        return rust(cx, source, detail);
    }
    let mut d = blank(Code::NoCCompiler, source);
    // A pip build names its package (`building 'TTS…' extension`, `Building wheel for X`); a
    // JIT step (Triton, Inductor, cpp_extension.load) names none.
    d.package = cx
        .package_being_built(Some(detail))
        .filter(|p| p != "triton");
    // setuptools' own words (`command 'gcc' failed`, `unable to execute 'gcc'`) are a build's.
    let setuptools = detail.contains("' failed")
        || detail.contains("unable to execute '")
        || detail.contains("Visual C++ 14.0 or greater is required")
        || detail.contains("vcvarsall.bat");
    d.message = match d.package.as_deref() {
        Some(p) if !cx.scene.packages_built.is_empty() || detail.contains("Visual C++ 14.0") => {
            format!("the build of {p} found no C/C++ compiler")
        }
        _ if setuptools => "a package build found no C/C++ compiler".into(),
        _ => "a JIT compile step (Triton / torch.compile / a C++ extension) found no C compiler".into(),
    };
    d.evidence.push(format!("the text says: {}", detail.trim()));
    d.fixes = fixes(cx, detail);
    d
}

/// A compiler of one version named and missing (`gcc-6.3.0: No such file or directory`): a
/// build asked for that compiler by name (nvcc's `-ccbin`), not for any.
fn versioned_compiler_missing(detail: &str) -> bool {
    detail
        .trim()
        .strip_suffix(": No such file or directory")
        .and_then(|t| t.rsplit('/').next())
        .and_then(|t| t.strip_prefix("gcc-").or_else(|| t.strip_prefix("g++-")))
        .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
}

fn names(v: &[String]) -> Vec<Name> {
    v.iter().filter_map(|n| Name::new(n)).collect()
}

fn fixes(cx: &Cx<'_>, detail: &str) -> Vec<Fix> {
    let code = Code::NoCCompiler;
    let mut fixes = Vec::new();
    // The packages are data (`system_libs.toml`, `[[tool]] c-compiler`), per package manager.
    let Some(tool) = abidoc_knowledge::system_libs::tool("c-compiler") else {
        return fixes;
    };
    let why = "Triton and torch.compile call `cc` at run time to build small launchers.";
    // Windows has no system package manager for compilers: MSVC comes from Visual Studio's
    // installer, and Inductor looks for `cl` on PATH.
    let windows = cx.scene.mentions_windows
        || detail.contains("cl.exe")
        || detail.contains("Compiler: cl ")
        || detail.contains("'where', 'cl']")
        || detail.contains("MSVC")
        || detail.contains("Windows SDK")
        || detail.contains("Microsoft Visual C++")
        || detail.contains("vcvarsall");
    if windows {
        fixes.push(
            Fix::in_words(
                code,
                "msvc",
                "Install Visual Studio Build Tools (C++ workload) and run from a prompt where cl.exe is on PATH",
                "On Windows, torch.compile and C++ extensions compile with MSVC's cl.exe; the Build Tools' \"Desktop development with C++\" workload installs it, and the \"x64 Native Tools Command Prompt\" (or vcvars64.bat) puts it on PATH.",
                "install Visual Studio Build Tools with \"Desktop development with C++\" (https://visualstudio.microsoft.com/visual-cpp-build-tools/), then start Python from the x64 Native Tools Command Prompt",
            ),
        );
        return crate::fix::rank(fixes);
    }
    if (cx.world.in_conda() || cx.scene.mentions_conda) && !tool.conda.is_empty() {
        fixes.push(
            Fix::new(
                code,
                "conda-compilers",
                FixKind::InstallMissing,
                format!(
                    "Install a C/C++ compiler into the conda environment (conda-forge {})",
                    tool.conda.join(", ")
                ),
                "User-level: no root needed.",
            )
            .step(Step::CondaInstall {
                channel: CondaChannel::CondaForge,
                packages: names(&tool.conda).into_iter().map(Requirement::Any).collect(),
            }),
        );
    }
    let system = |manager: SystemManager, packages: &[String]| {
        Fix::new(
            code,
            "system-compiler",
            FixKind::NeedsRoot,
            format!(
                "Install the system compiler ({}; needs root)",
                packages.join(" and ")
            ),
            why,
        )
        .step(Step::SystemInstall {
            manager,
            packages: names(packages),
        })
    };
    match cx.world.system_package_manager() {
        Some(SystemManager::Apt) => fixes.push(system(SystemManager::Apt, &tool.apt)),
        Some(SystemManager::Dnf) => fixes.push(system(SystemManager::Dnf, &tool.dnf)),
        None => {
            let apt = format!("apt-get install {}", tool.apt.join(" "));
            let dnf = format!("dnf install {}", tool.dnf.join(" "));
            fixes.push(
                Fix::in_words(
                    code,
                    "system-compiler",
                    "Install a C compiler with the system's package manager (needs root)",
                    format!(
                        "{why} The distribution is not known here: Debian/Ubuntu `{apt}`; Fedora/RHEL `{dnf}`; conda `conda install -c conda-forge {}`.",
                        tool.conda.join(" ")
                    ),
                    format!(
                        "{apt} (Debian/Ubuntu) or {dnf} (Fedora/RHEL)"
                    ),
                ),
            );
        }
    }
    fixes.push(
        Fix::in_words(
            code,
            "point-cc",
            "Or point CC at a compiler that exists elsewhere on the machine",
            "Triton honours CC when no `cc`/`gcc` is on PATH.",
            "export CC=/path/to/gcc",
        )
        .unverified(),
    );
    crate::fix::rank(fixes)
}

/// A compiler the build refuses: nvcc's host_config.h rejects a gcc (or clang) newer than its
/// CUDA release supports; torch's headers reject a compiler without C++17.
/// A package whose compiled part is Rust (tokenizers, safetensors, orjson) built from its sdist
/// without a Rust toolchain: pip found no wheel of it for this Python and platform. A wheel of
/// another release comes first (`--only-binary`: the newest one built for this Python and
/// platform); rustup, user-level, makes the build itself possible.
/// A Rust toolchain older than the crate being built needs: cargo's `requires rustc 1.70 or
/// newer, while the currently active rustc version is 1.65.0`, or rustc's `error[E0658]` (a
/// feature this compiler has not stabilized).
fn rust_too_old(detail: &str) -> bool {
    detail.contains("currently active rustc version") || detail.contains("error[E0658]")
}

fn rust(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    let code = Code::NoCCompiler;
    let mut d = blank(code, source);
    d.package = cx
        .package_being_built(Some(detail))
        .or_else(|| cx.near.filter(|p| *p != "torch").map(str::to_owned));
    let who = d.package.clone().unwrap_or_else(|| "the package".into());
    let too_old = rust_too_old(detail);
    d.message = if too_old {
        format!(
            "pip is building {who} from source with a Rust toolchain older than its crates need (a distribution's rustc, usually): no wheel of this release fits this Python and platform"
        )
    } else {
        format!(
            "pip is building {who} from source, and its build needs a Rust toolchain (cargo, rustc) that is not installed: no wheel of this release fits this Python and platform"
        )
    };
    d.evidence.push(format!("the text says: {}", detail.trim()));
    let mut fixes = Vec::new();
    if let Some(p) = d.package.as_deref().and_then(Name::new) {
        fixes.push(
            Fix::new(
                code,
                "wheel-release",
                FixKind::PrebuiltWheel,
                format!("Install the newest release of {p} that has a wheel for this Python and platform"),
                format!("With --only-binary pip never compiles {p}: it takes the newest release with a wheel this Python and platform accept (an upgraded pip also sees newer manylinux tags). If none exists, a Python version the project publishes wheels for is the other way."),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::OnlyBinary(p.clone())],
                vec![Requirement::Any(p.clone())],
            ))
            .cost(crate::fix::Cost {
                downloads: true,
                compiles: None,
                also: vec![format!("may install an older release of {p}, the newest with such a wheel")],
            })
            .unverified(),
        );
    }
    fixes.push(if too_old {
        Fix::in_words(
            code,
            "rustup",
            "Update Rust with rustup (`rustup update`), or install it with rustup in place of the distribution's older rustc, and run the install again",
            "rustup keeps the stable toolchain current in the user's home; a distribution's rustc (or Homebrew's) lags behind what crates require, and comes first on PATH unless removed or put after ~/.cargo/bin.",
            "rustup update stable (or install rustup from https://rustup.rs and make ~/.cargo/bin come first on PATH); `rustc --version` then shows the new one; run the pip install again",
        )
    } else {
        Fix::in_words(
            code,
            "rustup",
            "Install a Rust toolchain with rustup (user-level) and run the install again",
            "rustup installs cargo and rustc into the user's home; the build finds them on PATH (a new shell, or `source $HOME/.cargo/env`).",
            "install Rust from https://rustup.rs (user-level, no root), open a new shell so cargo is on PATH, then run the pip install again",
        )
    });
    d.fixes = crate::fix::rank(fixes);
    d
}

/// nvcc's `file(line): error` inside gcc's own intrinsics headers.
fn gcc_intrinsics(detail: &str) -> bool {
    detail.contains("/gcc/") && detail.contains("intrin.h(") && detail.contains("): error")
}

fn refused(source: Option<SourceRef>, detail: &str) -> Diagnostic {
    let code = Code::NoCCompiler;
    let mut d = blank(code, source);
    d.evidence.push(format!("the text says: {}", detail.trim()));
    // ROCm's flags given to the system's g++: HIP sources need ROCm's clang (hipcc).
    if detail.contains("--offload-arch") {
        d.message = "HIP sources are being compiled by the system's g++, which does not know ROCm's flags (`--offload-arch`): the build needs ROCm's clang (hipcc) as its compiler".into();
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                code,
                "rocm-compiler",
                "Build with ROCm's compiler: CC and CXX at ROCm's clang (or hipcc)",
                "ROCm's clang compiles HIP and knows --offload-arch; CMake takes the compiler from CC/CXX (or CMAKE_CXX_COMPILER) when it configures a fresh build directory.",
                "CC=/opt/rocm/llvm/bin/clang CXX=/opt/rocm/llvm/bin/clang++ and a fresh build (pip: add --no-cache-dir --force-reinstall; CMake: a new build directory, or -DCMAKE_CXX_COMPILER=/opt/rocm/llvm/bin/clang++)",
            ),
        ]);
        return d;
    }
    // A build's own check of the compiler's version (NumPy's meson: `NumPy requires GCC >=
    // 9.3`).
    if let Some(p) = detail.find("requires GCC >=") {
        let v: String = detail[p + 15..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .take(8)
            .collect();
        let v = v.trim_end_matches('.');
        let need = if v.is_empty() { "a newer gcc".to_owned() } else { format!("gcc {v} or newer") };
        d.message = format!("the build needs {need}, and the compiler it found is older");
        d.fixes = crate::fix::rank(vec![newer_gcc(
            format!("Build with {need}"),
            "The distribution's newer gcc (gcc-toolset on RHEL and manylinux2014 images), a conda environment's compilers (conda-forge cxx-compiler), or, in a cibuildwheel build, a newer manylinux image (manylinux_2_28) gives it; a release with a wheel for this platform needs no compiler at all.".to_owned(),
            &need,
        )]);
        return d;
    }
    // nvcc names the newest gcc it accepts: `gcc versions later than 11 are not supported`.
    // gcc 11's <functional> defeats nvcc before CUDA 11.6 without any version check: gcc 10
    // is the newest that builds.
    let gcc11_headers = detail.contains("parameter packs not expanded");
    let newest = detail
        .split("versions later than ")
        .nth(1)
        .map(|r| r.chars().take_while(char::is_ascii_digit).collect::<String>())
        .filter(|v| !v.is_empty() && v.len() <= 2)
        // torch's cpp_extension names the newest g++ the toolkit takes: `… greater than the
        // maximum required version by CUDA 11.7 (11.5.0)` (torch 1.x), or the bound it must
        // stay below, `… (>=6.0.0, <14.0)` (torch 2.x).
        .or_else(|| {
            let r = detail.split("maximum required version by CUDA ").nth(1)?;
            let digits = |v: &str| -> Option<u32> {
                let d: String = v.chars().take_while(char::is_ascii_digit).collect();
                (!d.is_empty() && d.len() <= 2).then(|| d.parse().ok()).flatten()
            };
            let inclusive = r.split_once('(').and_then(|(_, v)| digits(v));
            let below = || {
                let (_, b) = r.split_once(", <")?;
                match b.strip_prefix('=') {
                    Some(b) => digits(b),
                    None => digits(b)?.checked_sub(1),
                }
            };
            inclusive.or_else(below).map(|m| m.to_string())
        })
        .or_else(|| gcc11_headers.then(|| "10".to_owned()));
    if detail.contains("STL1002") {
        // `expected CUDA 12.4 or newer`: the CUDA the installed Visual Studio's STL accepts.
        let cuda = detail
            .split("expected CUDA ")
            .nth(1)
            .map(|r| {
                r.chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect::<String>()
            })
            .map(|v| v.trim_end_matches('.').to_owned())
            .filter(|v| !v.is_empty() && v.len() <= 5);
        let want = cuda.as_deref().unwrap_or("<the version it names>");
        d.message = format!(
            "Visual Studio's C++ standard library refuses this nvcc: it expects CUDA {want} or newer, and the CUDA toolkit building the extension is older"
        );
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                code,
                "newer-toolkit",
                format!("Build with CUDA {want} or newer (of torch's CUDA major), or with an older MSVC toolset"),
                "Each Visual Studio 2022 update raises the oldest CUDA its STL accepts; a newer CUDA toolkit satisfies it, and so does the older MSVC toolset (installable beside the newer one in the Visual Studio Installer's individual components) selected for the build.",
                format!(
                    "install CUDA {want} or newer and set CUDA_HOME to it, or install an older MSVC v143 toolset (Visual Studio Installer, individual components) and build from its developer prompt"
                ),
            ),
        ]);
        return d;
    }
    if detail.contains("unsupported Microsoft Visual Studio version") {
        d.message = "nvcc refuses the host compiler: this Visual Studio's MSVC is outside the versions this CUDA toolkit supports".into();
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                code,
                "supported-msvc",
                "Build with an MSVC toolset this CUDA toolkit supports, or with a newer CUDA toolkit",
                "CUDA's host_config.h accepts a fixed range of Visual Studio versions (each toolkit's installation guide lists them); an older MSVC toolset installed beside the newer one in the Visual Studio Installer, or a toolkit of torch's CUDA major new enough for this Visual Studio, passes its check.",
                "install the MSVC toolset the toolkit's installation guide lists (Visual Studio Installer, individual components) and build from its developer prompt, or install a newer CUDA toolkit of torch's CUDA major and set CUDA_HOME to it",
            ),
            Fix::new(
                code,
                "allow-unsupported",
                FixKind::Configure,
                "Let nvcc use this Visual Studio anyway (-allow-unsupported-compiler)",
                "nvcc's own switch skips the version check; builds usually work with a Visual Studio slightly newer than the toolkit, at the risk NVIDIA states (an untested compiler). NVCC_APPEND_FLAGS adds it to every nvcc call of the build.",
            )
            .steps(recipes::set_env("NVCC_APPEND_FLAGS", "-allow-unsupported-compiler")),
        ]);
        return d;
    }
    if detail.contains("Failed to preprocess host compiler properties")
        || versioned_compiler_missing(detail)
    {
        d.message = "nvcc could not run its host C++ compiler: the one it was told to use (`-ccbin`, NVCC_CCBIN or the build's flags) is not installed".into();
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                code,
                "host-compiler",
                "Point nvcc at an installed host compiler",
                "nvcc runs the host compiler first to read its properties; a `-ccbin` flag in the build's nvcc arguments (or NVCC_CCBIN) naming a compiler that is not on this machine stops it there. Drop that flag, or install that compiler.",
                "remove the -ccbin flag from the extension's nvcc arguments (setup.py extra_compile_args) or unset NVCC_CCBIN, so nvcc uses the installed gcc/g++, then build again",
            ),
        ]);
        return d;
    }
    if detail.contains("ISO C++ 2011") {
        d.message = "the C++ compiler is too old for this build: gcc before 6 compiles C++98 unless told, and its headers refuse the C++11 the sources need".into();
        d.fixes = crate::fix::rank(vec![newer_gcc(
            "Build with a newer gcc (6 or later, 9 or later for torch 2.x)".to_owned(),
            "gcc 6 and later compile C++14 by default; a conda environment's compilers (conda-forge cxx-compiler) or the distribution's newer gcc (devtoolset/gcc-toolset on RHEL and CentOS, whose default gcc 4.8 this is) need no change to the package.".to_owned(),
            "a newer gcc",
        )]);
        return d;
    }
    if detail.contains("internal compiler error") {
        d.message = "the C++ compiler crashed on the package's source (an internal compiler error, a bug of this compiler release): another gcc release compiles it".into();
        d.fixes = crate::fix::rank(vec![Fix::in_words(
            code,
            "other-gcc",
            "Build with another gcc release (a newer one first; one nvcc supports)",
            "An internal compiler error is the compiler's own bug, fixed in later releases of it; the package's source is not at fault. For CUDA sources the gcc must still be one the toolkit accepts.",
            "install another gcc (conda install -c conda-forge gxx=<version>, or the distribution's gcc-<version>), export CC, CXX and NVCC_CCBIN to it, then build again",
        )]);
        return d;
    }
    let other_headers = required_standard(detail);
    if detail.contains("C++17 or later") || detail.contains("You need C++17") || other_headers.is_some() {
        let (whose, std) = other_headers.unwrap_or(("torch's".to_owned(), 17));
        let gcc = match std {
            ..=11 => 5,
            14 => 6,
            17 => 9,
            _ => 11,
        };
        // CUDA's own C++ libraries (CUB, Thrust, libcu++: CCCL) follow the toolkit (CUDA 13
        // needs C++17) and nvcc's host compilers already speak it: the build's own older
        // standard is what stops them.
        let cuda_headers = ["CUB's", "Thrust's", "libcudacxx's", "CCCL's"].contains(&whose.as_str());
        d.message = if cuda_headers {
            format!("the build compiles with an older C++ standard than {whose} headers (CUDA's own) need: C++{std}")
        } else {
            format!("the C++ compiler is too old for {whose} headers, which need C++{std}")
        };
        let mut fixes = vec![
            newer_gcc(
                format!("Build with a compiler that supports C++{std} (gcc {gcc} or later)"),
                format!("{whose} headers refuse older compilers; a conda environment's compilers (conda-forge cxx-compiler) or the distribution's newer gcc (devtoolset/gcc-toolset on RHEL: `scl enable gcc-toolset-13 bash`) are C++{std} compilers."),
                &format!("gcc {gcc} or later"),
            ),
            Fix::in_words(
                code,
                "cxx-standard",
                format!("If gcc is {gcc} or later already: the build forces an older standard; set C++{std} in its flags"),
                format!("gcc before 11 compiles C++14 unless told otherwise, and an extension's setup.py (extra_compile_args `-std=c++14`, a `cpp_standard` setting) or CMakeLists.txt (CMAKE_CXX_STANDARD) may ask for an older standard than {whose} headers need."),
                format!(
                    "check `gcc --version`; if {gcc} or later, set C++{std} (-std=c++{std} in the cxx and nvcc args, cpp_standard, CMAKE_CXX_STANDARD) in the extension's build files, then build again"
                ),
            ),
        ];
        if cuda_headers {
            fixes.reverse();
            fixes[0] = fixes[0].clone().leading();
            fixes[0].title = format!(
                "Set C++{std} in the build's own flags (CMAKE_CXX_STANDARD and CMAKE_CUDA_STANDARD {std}, -std=c++{std} for nvcc and the compiler)"
            );
        }
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
    // nvcc's check of a clang (macOS' Apple clang, a CMake build's clang): `The version
    // ('70000') of the host compiler ('Apple clang') is not supported`.
    if detail.contains("of the host compiler (") && detail.contains("clang") {
        let which = if detail.contains("Apple clang") { "Apple clang" } else { "clang" };
        d.message = format!(
            "nvcc refuses the host compiler ({which}): this CUDA toolkit supports only the clang releases of its day{}",
            if which == "Apple clang" {
                " (CUDA 10.2, the last toolkit for macOS, takes Xcode 10's)"
            } else {
                ""
            }
        );
        let mut fixes = vec![
            Fix::in_words(
                code,
                "older-host-compiler",
                format!("Build with a host compiler this nvcc supports (an older {which}, or a gcc it lists)"),
                "nvcc compiles host code with the compiler it is given and checks its version first; an older one installed beside the default (an older Xcode's command-line tools on macOS) and named to nvcc passes the check.",
                "install a compiler release the toolkit's installation guide lists, then name it to nvcc (-ccbin <its path>, NVCC_CCBIN, or CMAKE_CUDA_HOST_COMPILER) and build again",
            ),
        ];
        // CUDA 10.2 was the last toolkit for macOS: no newer one takes a newer Apple clang.
        if which != "Apple clang" {
            fixes.push(
                Fix::in_words(
                    code,
                    "newer-toolkit",
                    "Or build with a newer CUDA toolkit, which supports this compiler",
                    "Each CUDA release raises the newest host compilers it accepts.",
                    "install a newer CUDA toolkit and export CUDA_HOME=<its directory>",
                )
                .unverified(),
            );
        }
        d.fixes = crate::fix::rank(fixes);
        return d;
    }
    let gcc = newest.as_deref().unwrap_or("<the newest it supports>");
    d.message = if gcc11_headers {
        "nvcc cannot parse gcc 11's C++ standard headers (std_function.h: parameter packs not expanded): CUDA toolkits before 11.6 need gcc 10 or older as the host compiler".to_owned()
    } else if gcc_intrinsics(detail) {
        let version = detail
            .split("/gcc/")
            .nth(1)
            .and_then(|r| r.split('/').nth(1))
            .filter(|v| !v.is_empty() && v.len() <= 8 && v.bytes().all(|c| c.is_ascii_digit() || c == b'.'))
            .map(|v| format!("gcc {v}'s"))
            .unwrap_or_else(|| "the host gcc's".to_owned());
        format!("nvcc cannot parse {version} intrinsics headers: the host compiler is newer than this CUDA toolkit understands (or a toolkit release with a known bug in them)")
    } else {
        format!(
            "{} refuses the host compiler: it is newer than this CUDA toolkit supports{}",
            if detail.contains("maximum required version by CUDA") {
                "torch's cpp_extension (checking it against the toolkit before nvcc runs)"
            } else {
                "nvcc"
            },
            newest
                .as_deref()
                .map_or(String::new(), |v| format!(" (gcc {v} at most)"))
        )
    };
    d.fixes = crate::fix::rank(vec![
        Fix::in_words(
            code,
            "older-host-compiler",
            format!("Build with gcc {gcc}, a host compiler this nvcc supports"),
            "nvcc compiles host code with the gcc it finds; an older gcc installed beside the newer one, named by CC/CXX and NVCC_CCBIN, satisfies its check without touching the system default.",
            format!(
                "install gcc-{gcc} and g++-{gcc} (or conda-forge gxx={gcc}), then export CC=gcc-{gcc} CXX=g++-{gcc} NVCC_CCBIN=g++-{gcc} and build again"
            ),
        ),
        Fix::in_words(
            code,
            "newer-toolkit",
            "Or build with a newer CUDA toolkit, which supports this gcc",
            "Each CUDA release raises the newest host compiler it accepts; the toolkit must still match torch's CUDA major.",
            "install a newer CUDA toolkit of torch's CUDA major and export CUDA_HOME=<its directory>",
        )
        .unverified(),
    ]);
    d
}

/// A newer gcc for a build its compiler is too old for (`need`: `gcc 9 or later`), in words:
/// which of conda's, the distribution's or an image's gcc is the person's to choose.
fn newer_gcc(title: String, why: String, need: &str) -> Fix {
    Fix::new(Code::NoCCompiler, "newer-gcc", FixKind::Advice, title, why).step(Step::Manual(
        format!(
            "install {need} (conda install -c conda-forge cxx-compiler, or the distribution's gcc-toolset/devtoolset), export CC and CXX to it, then build again"
        ),
    ))
}

/// A library's headers refusing the compiler's standard (`#error "rocPRIM requires at least
/// C++17"`): whose (`rocPRIM's`) and which standard (17).
fn required_standard(detail: &str) -> Option<(String, u32)> {
    let p = detail.find("requires at least C++")?;
    let n: String = detail[p + 21..]
        .chars()
        .take_while(char::is_ascii_digit)
        .take(2)
        .collect();
    let std = n.parse().ok().filter(|n| matches!(n, 11 | 14 | 17 | 20 | 23))?;
    let lib = detail[..p]
        .trim_end()
        .rsplit([' ', '"', '\'', '('])
        .next()
        .filter(|w| {
            !w.is_empty() && w.len() <= 32 && w.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        })
        .map_or_else(|| "a library's".to_owned(), |w| format!("{w}'s"));
    Some((lib, std))
}

