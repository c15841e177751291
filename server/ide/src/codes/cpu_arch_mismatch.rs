//! `cpu-arch-mismatch`: a compiled library built for another CPU architecture than the Python
//! process loading it (an x86_64 `.so` in an arm64 Python on Apple Silicon, or the reverse under
//! Rosetta; a 32-bit library in a 64-bit process; Windows' `not a valid Win32 application`).
//!
//! The loader's own words say which side is which (`have 'x86_64', need 'arm64'`: the file is
//! x86_64, the process arm64), so the fix moves the side that is foreign: the package's file
//! reinstalled by this interpreter's pip (which picks wheels for its own architecture), built
//! for this architecture when no such wheel exists, or — when the process is the one emulated —
//! a native Python.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Compile, Cost, Fix, FixKind, Name, PipFlag, Requirement, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A compiled library was built for another CPU architecture than the Python loading it (x86_64 vs arm64, 32- vs 64-bit).",
    meaning: "A process loads only libraries of its own architecture. On Apple Silicon an x86_64 `.so`/`.dylib` (installed by a Python running under Rosetta, a cached or copied wheel, an Intel Homebrew prefix, a wheel mislabelled arm64) fails in a native arm64 Python with `mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64')`, and an arm64 file fails the other way in a Python that runs as x86_64. On Linux, glibc says `wrong ELF class: ELFCLASS32` for a 32-bit library in a 64-bit process; on Windows, `%1 is not a valid Win32 application` (error 193) for a 32-bit DLL in a 64-bit Python, or a file that is no DLL at all. dyld's `unknown file type, first eight bytes: 0x7F 0x45 0x4C 0x46` is a Linux (ELF) library on a Mac, installed from a wheel tagged for any platform. A container runtime's `exec /x/y: exec format error` is a program of another architecture than the host (an amd64 image on an arm64 machine, without emulation), or a script without its `#!` line: the image for this platform, or the script's interpreter line.",
    fixes: "1. Reinstall the package with this Python's pip, `--force-reinstall --no-cache-dir --no-deps` (pip picks the wheel of its interpreter's architecture; the cache would give back a wheel built for the other one). 2. When no wheel for this architecture exists, build it for this architecture (`--no-binary`, with `ARCHFLAGS`/`CMAKE_OSX_ARCHITECTURES` on macOS). When the process is the foreign side (a Python running as x86_64 on Apple Silicon): first a native arm64 Python and the environment made again with it. A library outside the Python environment (an Intel Homebrew prefix): that library from the installer of this architecture.",
    ..CodeDoc::BASE
};

/// What the loader's line says of the two sides.
pub(crate) struct Seen<'a> {
    pub library: Option<&'a str>,
    /// The library's architecture (`x86_64`, `arm64`, `32-bit`).
    pub have: Option<&'a str>,
    /// The process's.
    pub need: Option<&'a str>,
    pub detail: &'a str,
    /// Read from the file's ELF header against this machine, not from a loader's words.
    pub on_disk: bool,
}

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, seen: &Seen<'_>) -> Diagnostic {
    let code = Code::CpuArchMismatch;
    let mut d = blank(code, source);
    d.library = seen.library.map(str::to_owned);
    d.package = cx.package_of(seen.library, false);
    let macos = seen.detail.contains("mach-o") || cx.scene.mentions_macos;
    let file = seen
        .library
        .map_or("a compiled library".to_owned(), |l| {
            format!("`{}`", crate::incidents::basename(l))
        });
    d.message = match (seen.have, seen.need) {
        (Some(h), Some(n)) if seen.on_disk => {
            format!("{file} is built for {h}; this machine is {n}")
        }
        (Some(h), Some(n)) => format!("{file} is built for {h}, but the Python loading it runs as {n}"),
        _ if seen.detail.contains("Win32") => format!(
            "{file} is not a library this Python can load: built for another architecture (32-bit in a 64-bit Python), or not a DLL at all"
        ),
        _ => format!("{file} is built for another CPU architecture than the Python loading it"),
    };
    d.evidence.push(seen.detail.to_owned());
    // A container runtime starting a program (`exec /code/.venv/bin/alembic: exec format
    // error`): the image is of another platform than this machine, or the file is a script
    // without its `#!` line. Nothing pip does changes either.
    if seen.detail.contains("exec format error") && !seen.detail.contains("cannot execute binary file") {
        let script = seen.library.is_some_and(|l| l.ends_with(".sh") || l.ends_with(".py"));
        d.message = if script {
            format!("{file} could not be started: a script without its `#!` interpreter line (or with a byte-order mark before it), or a program of another architecture")
        } else {
            format!("{file} could not be started: it is built for another CPU architecture than this machine (an image of another platform), or it is a script without its `#!` line")
        };
        let platform = Fix::in_words(
            code,
            "image-platform",
            "Run an image built for this machine's platform",
            "A container runs the programs of its image natively; an image (or a layer) built for amd64 on an arm64 machine, or the other way, fails at its first exec unless emulation is set up.",
            "docker image inspect <image> --format '{{.Os}}/{{.Architecture}}' against `uname -m`; pull or build the image for this platform (docker pull --platform linux/arm64 …, docker buildx build --platform …), or register emulation (binfmt/QEMU) to run the other one slowly",
        );
        let shebang = Fix::in_words(
            code,
            "shebang",
            "If the file is a script: give it a `#!` line (and no byte-order mark)",
            "The kernel starts a script only through the interpreter its first line names; without it (or with Windows line ends or a BOM before it) exec fails the same way.",
            "make the first line `#!/bin/sh` (or the interpreter it needs), save it without a BOM and with Unix line ends, then rebuild the image",
        );
        d.fixes = crate::fix::rank(if script {
            vec![shebang.leading(), platform]
        } else {
            vec![platform.leading(), shebang]
        });
        return d;
    }
    // The process, not the file, is the foreign side: an x86_64 Python (Rosetta, an Intel
    // build) on an Apple Silicon Mac loading an arm64 file.
    let process_emulated = macos
        && seen.need == Some("x86_64")
        && seen.have.is_some_and(|h| h.starts_with("arm64"));
    let outside_env = seen.library.is_some_and(|l| {
        !l.contains("site-packages") && !l.contains("dist-packages") && (l.starts_with("/usr/") || l.starts_with("/opt/homebrew") || l.starts_with("/Library/"))
    });
    let mut fixes = Vec::new();
    if process_emulated {
        fixes.push(
            recipes::native_python(
                code,
                "The library is arm64 and this Python runs as x86_64 (an Intel build, or under Rosetta).",
            )
            .leading(),
        );
    }
    if outside_env {
        fixes.push(
            Fix::new(
                code,
                "system-library",
                FixKind::InstallMissing,
                "Install that library for this architecture",
                "The file lies outside the Python environment: it comes from a system or Homebrew prefix of the other architecture (Intel Homebrew lives under /usr/local, Apple Silicon's under /opt/homebrew). Install it with the package manager of this architecture, and make sure the build or the loader looks there.",
            )
            .step(Step::Manual(format!(
                "install {} from the package manager of this machine's architecture (on Apple Silicon: Homebrew under /opt/homebrew)",
                seen.library.map_or("the library", crate::incidents::basename)
            ))),
        );
    }
    let pkg = d.package.as_deref().and_then(Name::new);
    // Built only from a project's checkout: rebuilt there, for this architecture.
    let checkout_only = pkg.as_ref().is_some_and(|p| crate::kb::checkout_only(p.as_str()));
    if let Some(p) = pkg.as_ref().filter(|_| checkout_only) {
        fixes.extend(recipes::source_build(code, cx, p, &[]));
    } else if let Some(pkg) = pkg {
        fixes.push(
            Fix::new(
                code,
                "reinstall-for-arch",
                FixKind::PrebuiltWheel,
                format!("Reinstall {pkg} with this Python's pip, for its architecture"),
                "pip installs the wheel built for the interpreter that runs it; the file in place came from another one (a Python under Rosetta, a copied environment, a cached wheel). --no-cache-dir keeps pip from reusing a wheel of the other architecture; --no-deps leaves the rest as it is.",
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::ForceReinstall, PipFlag::NoCacheDir, PipFlag::NoDeps],
                vec![Requirement::Any(pkg.clone())],
            ))
            .cost(Cost {
                downloads: true,
                ..Cost::default()
            }),
        );
        let mut build = Fix::new(
            code,
            "build-for-arch",
            FixKind::SourceBuild,
            format!("Build {pkg} from source for this architecture"),
            "When the project publishes no wheel for this architecture (or its wheel holds the other one), compile it here: --no-binary refuses every wheel of it. On macOS, CMAKE_OSX_ARCHITECTURES names the architecture for CMake builds, which otherwise follow the shell's (a terminal under Rosetta builds x86_64 again); a setuptools build follows the Python running it.",
        );
        if macos && !process_emulated {
            let arch = seen.need.filter(|n| *n == "arm64" || *n == "x86_64").unwrap_or("arm64");
            build = build.steps(recipes::set_env(
                "CMAKE_ARGS",
                &format!("-DCMAKE_OSX_ARCHITECTURES={arch}"),
            ));
        }
        fixes.push(
            build
                .step(recipes::pip_install(
                    cx,
                    vec![
                        PipFlag::ForceReinstall,
                        PipFlag::NoCacheDir,
                        PipFlag::NoDeps,
                        PipFlag::NoBinary(pkg.clone()),
                    ],
                    vec![Requirement::Any(pkg)],
                ))
                .cost(Cost {
                    downloads: true,
                    compiles: Some(Compile {
                        minutes: 5,
                        needs: vec!["a C/C++ compiler"],
                    }),
                    ..Cost::default()
                }),
        );
    } else if !outside_env && !process_emulated {
        fixes.push(
            Fix::in_words(
                code,
                "reinstall-owner",
                "Reinstall the package that owns the library with this Python's pip",
                "The text does not show which package installed the file; reinstalled by this interpreter's pip (--force-reinstall --no-cache-dir), it comes back in this interpreter's architecture.",
                "python -m pip install --force-reinstall --no-cache-dir --no-deps <the package that installed the library>",
            ),
        );
    }
    if macos && !process_emulated && seen.need.is_none() {
        fixes.push(recipes::native_python(
            code,
            "If this Python runs as x86_64 on an Apple Silicon Mac (an Intel build, or a terminal under Rosetta), it installs x86_64 wheels, and every compiled package of the environment is of that architecture.",
        ));
    }
    d.fixes = crate::fix::rank(fixes);
    d
}
