//! `libstdcxx-mismatch`: the libstdc++ (or another GCC runtime library: libgomp, libgfortran,
//! libgcc_s) the process loads first is older than the one the extension was built with
//! (`GLIBCXX_3.4.x` / `CXXABI_1.3.x` / `GOMP_4.0` not found, or libstdc++ symbols undefined).
//!
//! Produced by a version-not-found line naming a `GLIBCXX_`/`CXXABI_` version, and by an
//! undefined symbol that libstdc++ owns. Fixes load a newer libstdc++ first, user-level: the
//! conda environment's own lib/ (never the directory of the old library itself), a newer
//! libstdc++ found on disk through `LD_PRELOAD`, or conda-forge's `libstdcxx-ng`. On macOS,
//! whose C++ runtime is libc++, a module asking for libstdc++'s names is rebuilt with clang.

use super::symbols::Case;
use super::{Code, CodeDoc, Cx, recipes, version_needer};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{CondaChannel, Fix, FixKind, Name, Requirement, SafePath, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`GLIBCXX_*`/`CXXABI_*` version not found, or libstdc++ symbols undefined: an older libstdc++ is loaded than the one the extension was built with.",
    meaning: "An extension compiled with a newer GCC needs symbol versions of libstdc++ (`GLIBCXX_3.4.30`) that an older libstdc++ lacks. Which libstdc++ a process gets is decided by who loads one first: often the system's, found before a conda environment's newer one, or an old one bundled by another package.",
    fixes: "1. Load the conda environment's own libstdc++ first (`LD_LIBRARY_PATH` to its lib/, never to the directory whose libstdc++ is too old). 2. `LD_PRELOAD` a newer libstdc++ abidoc found on disk. 3. Upgrade the environment's libstdc++ (`conda install -c conda-forge libstdcxx-ng`). Setting variables is safe; installs need confirmation; nothing needs root. On macOS (libc++ is its C++ runtime) a libstdc++ symbol means a GCC build: rebuild with `CC=clang CXX=clang++`.",
    ..CodeDoc::BASE
};

pub(crate) fn diagnose_version(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    library: &str,
    version: &str,
    required_by: Option<&str>,
) -> Diagnostic {
    let (mut d, needer) = version_needer(cx, Code::LibstdcxxMismatch, source, required_by);
    let rt = runtime(library);
    d.message = format!(
        "{needer} needs {version}, but the {} that gets loaded ({library}) is older than the one it was built with",
        rt.what
    );
    d.evidence.extend(cx.world.libstdcxx_evidence(version));
    // An older runtime a package bundles in its own directory (`site-packages/openseespy/…/lib/
    // libstdc++.so.6`) shadows the system's for everything loaded after it: that package is the
    // one at fault, not the library that needs the newer version.
    if let Some(bundler) = bundled_by(library) {
        d.evidence.push(format!(
            "the {} that gets loaded is the copy {bundler} bundles",
            rt.what
        ));
        d.package = Some(bundler);
    }
    d.fixes = fixes(cx, d.library.as_deref(), Some(library), Some(version), rt);
    d
}

/// The package whose own directory in site-packages holds `library` (never a CUDA or NVIDIA
/// runtime wheel's shared directory).
fn bundled_by(library: &str) -> Option<String> {
    // `site-packages/zmq/backend/cython/../../../../../libstdc++.so.6` is the environment's own
    // lib/, reached through a package's RPATH: resolve the `..`s first.
    let mut parts: Vec<&str> = Vec::new();
    let slashed = library.replace('\\', "/");
    for c in slashed.split('/') {
        match c {
            "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let norm = parts.join("/");
    let (_, after) = ["site-packages/", "dist-packages/"]
        .iter()
        .find_map(|m| norm.rsplit_once(m))?;
    let (first, rest) = after.split_once('/')?;
    let ok = !rest.is_empty()
        && !first.is_empty()
        && first != "nvidia"
        && !first.ends_with(".libs")
        && first.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    ok.then(|| crate::kb::normalize(first))
}

/// Which of GCC's runtime libraries lacks the version: libstdc++ itself, or its siblings that
/// version their symbols the same way (`GOMP_4.0` in libgomp, `GFORTRAN_10` in libgfortran),
/// with conda-forge's package of each.
#[derive(Clone, Copy)]
struct Runtime {
    what: &'static str,
    conda: &'static str,
}

fn runtime(library: &str) -> Runtime {
    let file = crate::incidents::basename(library);
    if file.starts_with("libgomp") {
        Runtime { what: "GCC OpenMP runtime (libgomp)", conda: "libgomp" }
    } else if file.starts_with("libgfortran") {
        Runtime { what: "GCC Fortran runtime (libgfortran)", conda: "libgfortran-ng" }
    } else if file.starts_with("libgcc_s") {
        Runtime { what: "GCC runtime (libgcc_s)", conda: "libgcc-ng" }
    } else {
        Runtime { what: "libstdc++", conda: "libstdcxx-ng" }
    }
}

pub(crate) fn symbol(cx: &Cx<'_>, d: &mut Diagnostic, c: &Case<'_>) {
    // macOS' C++ runtime is libc++: a module asking for libstdc++'s names was built with GCC
    // (Homebrew's g++), and no libstdc++ to load first is the fix there.
    if super::on_macos(cx, d.library.as_deref()) {
        d.message = format!(
            "{} needs `{}` from libstdc++ (GCC's C++ runtime), but macOS' C++ runtime is libc++: it was built with GCC rather than Apple's clang{}",
            c.who, c.name, c.cut
        );
        d.explanation = Some("On macOS Python extensions link libc++, Apple clang's C++ runtime. A module compiled with GCC (Homebrew's g++, a CC/CXX pointing at it) asks for libstdc++'s names (`std::__cxx11::basic_string`), which libc++ does not define.".into());
        let rebuild = Fix::new(
            Code::LibstdcxxMismatch,
            "rebuild-with-clang",
            FixKind::SourceBuild,
            "Build it again with Apple's clang (CC=clang CXX=clang++)",
            "clang compiles against libc++, the runtime macOS loads; unset any CC/CXX that points at Homebrew's gcc first.",
        )
        .steps(recipes::set_env("CC", "clang"))
        .steps(recipes::set_env("CXX", "clang++"));
        let rebuild = match d.package.as_deref().and_then(Name::new) {
            Some(pkg) => rebuild.step(recipes::pip_install(
                cx,
                vec![
                    crate::fix::PipFlag::NoCacheDir,
                    crate::fix::PipFlag::ForceReinstall,
                    crate::fix::PipFlag::NoDeps,
                    crate::fix::PipFlag::NoBinary(pkg.clone()),
                ],
                vec![Requirement::Any(pkg)],
            )),
            None => rebuild.step(Step::Manual("run the package's build or install again".into())),
        };
        d.fixes = vec![rebuild];
        return;
    }
    d.message = format!(
        "{} needs `{}` from libstdc++, but the libstdc++ loaded first is older than the one it was built with{}",
        c.who, c.name, c.cut
    );
    d.explanation = Some("The extension was compiled with a newer GCC than the libstdc++ that the process loads first. A newer libstdc++ (from the environment or conda's libstdcxx-ng) must be loaded instead.".into());
    d.fixes = fixes(cx, d.library.as_deref(), None, None, runtime("libstdc++.so.6"));
}

/// `old` is the libstdc++ that lacks the version: no fix points the loader back at it.
fn fixes(
    cx: &Cx<'_>,
    needer: Option<&str>,
    old: Option<&str>,
    version: Option<&str>,
    rt: Runtime,
) -> Vec<Fix> {
    let lib_name = rt.what;
    let code = Code::LibstdcxxMismatch;
    let what = version.unwrap_or("the newer symbols");
    let old_dir = old
        .and_then(|o| o.rsplit_once('/'))
        .map(|(dir, _)| dir.to_owned());
    let mut fixes = Vec::new();
    let env_lib = needer
        .and_then(conda_prefix)
        .and_then(|p| p.join("lib"))
        .filter(|dir| old_dir.as_deref() != Some(dir.as_str()));
    // From the text alone nothing says the environment's own libstdc++ is new enough: the
    // upgrade and loading it first go together, one fix.
    if cx.world.env().is_none()
        && let (Some(lib_dir), Some(pkg)) = (&env_lib, Name::new(rt.conda))
    {
        let mut f = Fix::new(
            code,
            "conda-libstdcxx",
            FixKind::InstallMissing,
            format!("Upgrade the conda environment's {lib_name} (conda-forge {}) and load it first ({lib_dir})", rt.conda),
            format!(
                "The library lacking {what} is not this environment's; conda-forge's {} provides it in {lib_dir}, and LD_LIBRARY_PATH makes the loader take it before the system's.",
                rt.conda
            ),
        )
        .step(Step::CondaInstall {
            channel: CondaChannel::CondaForge,
            packages: vec![Requirement::Any(pkg)],
        });
        f = f.steps(recipes::set_env("LD_LIBRARY_PATH", lib_dir.as_str()));
        fixes.push(f);
        return crate::fix::rank(fixes);
    }
    if let Some(lib_dir) = env_lib {
        let mut f = Fix::new(
            code,
            "conda-lib-first",
            FixKind::Configure,
            format!("Load the conda environment's own {lib_name} first (LD_LIBRARY_PATH={lib_dir})"),
            format!(
                "The library lacking {what} is not this environment's; its lib/ normally has a newer {lib_name} (conda's {}).",
                rt.conda
            ),
        )
        .steps(recipes::set_env("LD_LIBRARY_PATH", lib_dir.as_str()));
        f.verified = cx.world.env().is_some();
        fixes.push(f);
    }
    if let Some(v) = version
        && let Some(newer) = cx
            .world
            .newer_libstdcxx(v)
            .and_then(|p| SafePath::new(&p))
            .filter(|p| Some(p.as_str()) != old)
    {
        fixes.push(
            Fix::new(
                code,
                "preload-newer",
                FixKind::Configure,
                format!("Load the environment's own libstdc++ first ({newer})"),
                format!(
                    "It provides {v}; the one loaded now does not. LD_PRELOAD affects only the processes started with it."
                ),
            )
            .steps(recipes::set_env("LD_PRELOAD", newer.as_str())),
        );
    }
    let conda = cx.world.in_conda()
        || cx.scene.mentions_conda
        || old.is_some_and(|l| l.contains("conda"));
    match Name::new(rt.conda) {
        Some(pkg) if conda => fixes.push(
            Fix::new(
                code,
                "conda-libstdcxx",
                FixKind::InstallMissing,
                format!("Upgrade the conda environment's {lib_name} (conda-forge {})", rt.conda),
                format!(
                    "A newer {lib_name} in the environment provides {what} without touching the system."
                ),
            )
            .step(Step::CondaInstall {
                channel: CondaChannel::CondaForge,
                packages: vec![Requirement::Any(pkg)],
            }),
        ),
        _ => fixes.push(
            Fix::in_words(
                code,
                "newer-runtime",
                format!("Put a newer {lib_name} first on the library path"),
                format!(
                    "The {lib_name} loaded now{} lacks {what}; a newer GCC runtime provides it (a conda environment's, whose lib/ goes first on LD_LIBRARY_PATH, before any directory it already needs).",
                    old.map(|o| format!(" ({o})")).unwrap_or_default()
                ),
                format!(
                    "conda install -c conda-forge {}; export LD_LIBRARY_PATH=$CONDA_PREFIX/lib",
                    rt.conda
                ),
            )
            .unverified(),
        ),
    }
    crate::fix::rank(fixes)
}

/// The conda environment prefix of a path inside it (`…/envs/NAME` or `…/anaconda3`).
fn conda_prefix(path: &str) -> Option<SafePath> {
    let (prefix, _) = path.split_once("/lib/python")?;
    let is_conda = prefix.contains("/envs/") || prefix.contains("conda");
    is_conda.then(|| SafePath::new(prefix)).flatten()
}
