//! Fix synthesis and ranking: the fix an expert would give first, each with a one-line reason.
//!
//! Commands are argument vectors built from validated names only; nothing here runs anything.
//! Ranking rules: never lose work, prefer user-level over root, prefer the smallest change that
//! removes the cause (uninstalling what the model does not need beats a 20-minute rebuild).

use crate::diagnostic::{Code, Diagnostic, Fix};
use crate::evidence::World;
use crate::incidents::Scene;
use crate::kb::{self, ModelFacts};
use crate::symbols::StringAbi;

pub struct FixInput<'a> {
    pub code: Code,
    pub package: Option<String>,
    pub library: Option<String>,
    pub scene: &'a Scene,
    pub world: &'a World<'a>,
    pub model: Option<&'a ModelFacts>,
}

impl<'a> FixInput<'a> {
    pub fn new(
        d: &Diagnostic,
        scene: &'a Scene,
        world: &'a World<'a>,
        model: Option<&'a ModelFacts>,
    ) -> Self {
        Self {
            code: d.code,
            package: d.package.clone(),
            library: d.library.clone(),
            scene,
            world,
            model,
        }
    }

    fn python(&self) -> String {
        self.world.python_command()
    }

    fn pip(&self, args: &[&str]) -> Vec<String> {
        let mut v = vec![self.python(), "-m".into(), "pip".into()];
        v.extend(args.iter().map(|s| (*s).to_owned()));
        v
    }

    /// Makes `f` run `python -m pip ARGS`, with the same command as a notebook `%pip` line.
    fn add_pip(&self, f: &mut Fix, args: &[String]) {
        f.notebook_cell = Some(notebook_pip(args));
        f.commands
            .push(self.pip(&args.iter().map(String::as_str).collect::<Vec<_>>()));
    }

    fn torch(&self) -> Option<String> {
        self.world
            .torch_version()
            .or_else(|| self.scene.version_of("torch").map(str::to_owned))
    }
}

/// Builds a fix; returns None when a package name fails validation (so it never reaches a command).
fn fix(title: impl Into<String>, reason: impl Into<String>) -> Fix {
    Fix {
        title: title.into(),
        reason: reason.into(),
        verified: true,
        ..Fix::default()
    }
}

fn valid(names: &[&str]) -> bool {
    !names.is_empty() && names.iter().all(|n| kb::is_valid_name(n))
}

fn finish(mut fixes: Vec<Fix>) -> Vec<Fix> {
    fixes.dedup_by(|a, b| a.commands == b.commands && a.title == b.title);
    for (i, f) in fixes.iter_mut().enumerate() {
        f.preferred = i == 0;
    }
    fixes
}

fn notebook_pip(args: &[String]) -> String {
    format!("%pip {}", args.join(" "))
}

/// The extension does not match the installed torch (any of the symbol codes).
pub fn extension_mismatch(inp: &FixInput<'_>, abi: Option<StringAbi>) -> Vec<Fix> {
    let Some(pkg) = inp.package.clone().filter(|p| kb::is_valid_name(p)) else {
        return finish(generic_rebuild(inp));
    };
    let facts = kb::package(&pkg);
    let partners: Vec<String> = facts
        .as_ref()
        .map(|f| {
            f.pairs_with
                .iter()
                .filter(|p| inp.world.is_installed(p).unwrap_or(true))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let mut fixes = Vec::new();
    let needed = model_needs(inp.model, facts.as_ref());
    let removable = facts.as_ref().is_some_and(|f| f.removable_when_unneeded);

    // 1. Uninstall: only when the model does not need it and nothing installed requires it.
    let mut uninstall = Vec::new();
    if needed == Some(false)
        || (removable && inp.code != Code::ExtensionIncompleteBuild && needed != Some(true))
    {
        let mut names = vec![pkg.clone()];
        names.extend(partners.iter().cloned());
        let blockers: Vec<String> = names
            .iter()
            .flat_map(|n| inp.world.required_by(n))
            .filter(|r| !names.contains(r))
            .collect();
        if blockers.is_empty() && valid(&names.iter().map(String::as_str).collect::<Vec<_>>()) {
            let mut args = vec!["uninstall".to_owned(), "-y".to_owned()];
            args.extend(names.iter().cloned());
            let importers = facts
                .as_ref()
                .map(|f| f.optional_importers.join(", "))
                .unwrap_or_default();
            let why_unneeded = match (inp.model, needed) {
                (Some(m), Some(false)) => format!(
                    "the model in use ({}) is {} and does not use them",
                    m.id,
                    m.kind_phrase()
                ),
                _ => format!("if nothing you run needs {pkg}"),
            };
            let fallback = if importers.is_empty() {
                String::new()
            } else {
                format!("; {importers} import it optionally and fall back cleanly without it")
            };
            let mut f = fix(
                format!("Uninstall {} ({})", names.join(" and "), why_unneeded),
                format!("Removes the broken binary at its source{fallback}."),
            );
            inp.add_pip(&mut f, &args);
            uninstall.push(f);
        }
    }

    // 2. A release built for the installed torch, when the tables know one.
    let mut release = Vec::new();
    if let Some(torch) = inp.torch() {
        if let Some(ver) = kb::release_for_torch(&pkg, &torch) {
            let spec = format!("{pkg}=={ver}");
            let mut args = vec!["install".to_owned(), "--no-cache-dir".to_owned()];
            if facts.as_ref().is_some_and(|f| f.needs_no_build_isolation) {
                args.push("--no-build-isolation".into());
            }
            args.push(spec.clone());
            let mut f = fix(
                format!(
                    "Install {spec}, a release built for torch {}",
                    short_torch(&torch)
                ),
                format!(
                    "{pkg} {ver} ships binaries for torch {}; --no-cache-dir keeps pip from reusing the stale wheel.",
                    short_torch(&torch)
                ),
            );
            inp.add_pip(&mut f, &args);
            release.push(f);
        }
        if (abi.is_some() || inp.code == Code::Cxx11AbiMismatch)
            && let Some((wheel, url)) = kb::wheel_for(
                &pkg,
                inp.world.installed_version(&pkg).as_deref(),
                &torch,
                inp.world.torch_cxx11_abi(),
                inp.world.python_tag().as_deref(),
            )
        {
            let mut f = fix(
                format!("Install the prebuilt wheel {wheel}"),
                "Its label names the installed torch, CUDA major and C++ ABI; the URL follows the project's release naming and cannot be checked offline.",
            );
            let args = [
                "install".to_owned(),
                "--no-deps".to_owned(),
                "--force-reinstall".to_owned(),
                url.clone(),
            ];
            inp.add_pip(&mut f, &args);
            f.verified = false;
            release.push(f);
        }
    }

    // 3. Rebuild from source against the installed torch.
    let rebuild = rebuild_fix(inp, &pkg, facts.as_ref(), &partners);

    // 4. Move torch instead, when the extension's torch is known.
    let mut move_torch = Vec::new();
    if let Some(target) = inp.world.built_for_torch(inp.library.as_deref()) {
        let same_minor = inp.torch().is_some_and(|t| same_release_line(&t, &target));
        if !same_minor && kb::is_valid_version(&target) {
            let args = ["install".to_owned(), format!("torch=={target}")];
            let mut f = fix(
                format!("Install torch {target}, the version {pkg} was built for"),
                "The smaller change only when nothing else depends on the installed torch; other extensions may then need rebuilding.",
            );
            inp.add_pip(&mut f, &args);
            move_torch.push(f);
        }
    }

    let uv = uv_fix(inp, &pkg);
    if needed == Some(true) || inp.code == Code::ExtensionIncompleteBuild {
        // The model needs the kernels: never offer removal first.
        fixes.extend(release);
        fixes.extend(rebuild);
        fixes.extend(move_torch);
    } else if needed == Some(false) {
        // The model in use does not need it: removing it is the smallest, safest change.
        fixes.extend(uninstall);
        fixes.extend(release);
        fixes.extend(rebuild);
        fixes.extend(move_torch);
    } else if inp.code == Code::Cxx11AbiMismatch {
        fixes.extend(rebuild);
        fixes.extend(release);
        fixes.extend(move_torch);
        fixes.extend(uninstall);
    } else {
        fixes.extend(release);
        fixes.extend(rebuild);
        fixes.extend(move_torch);
        fixes.extend(uninstall);
    }
    fixes.extend(uv);
    finish(fixes)
}

/// `2.10` and `2.10.0+cu128` are the same torch line: no point moving torch between them.
fn same_release_line(a: &str, b: &str) -> bool {
    let mm = |v: &str| {
        v.split('+')
            .next()
            .unwrap_or(v)
            .split('.')
            .take(2)
            .collect::<Vec<_>>()
            .join(".")
    };
    mm(a) == mm(b)
}

fn short_torch(v: &str) -> String {
    let core = v.split('+').next().unwrap_or(v);
    core.to_owned()
}

/// Whether the model needs this package: `Some(false)` only when the model is known to be a plain
/// transformer and the package is an SSM kernel package.
fn model_needs(model: Option<&ModelFacts>, pkg: Option<&kb::PackageFacts>) -> Option<bool> {
    let pkg = pkg?;
    let model = model?;
    match model.needs(&pkg.name) {
        // Only SSM kernel packages are safe to call unneeded: a transformer may still use others.
        Some(false) if !pkg.ssm_kernels => None,
        other => other,
    }
}

fn rebuild_fix(
    inp: &FixInput<'_>,
    pkg: &str,
    facts: Option<&kb::PackageFacts>,
    partners: &[String],
) -> Vec<Fix> {
    let mut names: Vec<String> = partners
        .iter()
        .filter(|p| kb::package(p).is_some_and(|f| f.ssm_kernels))
        .cloned()
        .collect();
    // causal-conv1d builds first: mamba-ssm imports it.
    names.push(pkg.to_owned());
    if !valid(&names.iter().map(String::as_str).collect::<Vec<_>>()) {
        return Vec::new();
    }
    let mut args = vec![
        "install".to_owned(),
        "--no-build-isolation".into(),
        "--no-cache-dir".into(),
        "--force-reinstall".into(),
        "--no-deps".into(),
    ];
    for n in &names {
        match inp.world.installed_version(n) {
            Some(v) if kb::is_valid_version(&v) => {
                args.push(format!("{n}=={}", v.split('+').next().unwrap_or(&v)));
            }
            _ => args.push(n.clone()),
        }
    }
    let mut env: Vec<(String, String)> = Vec::new();
    for n in &names {
        if let Some(f) = kb::package(n) {
            for (k, v) in &f.force_build_env {
                if !env.iter().any(|(k2, _)| k2 == k) {
                    env.push((k.clone(), v.clone()));
                }
            }
        }
    }
    let _ = facts;
    let mut f = fix(
        format!(
            "Rebuild {} from source against the installed torch",
            names.join(" and ")
        ),
        "pip's wheel cache ignores the torch version, so a plain reinstall brings the same stale binary back; --no-build-isolation compiles against the torch in this environment (needs nvcc; takes minutes).",
    );
    let mut cell = String::new();
    for (k, v) in &env {
        cell.push_str(&format!("%env {k}={v}\n"));
    }
    cell.push_str(&notebook_pip(&args));
    f.notebook_cell = Some(cell);
    f.env = env;
    f.commands
        .push(inp.pip(&args.iter().map(String::as_str).collect::<Vec<_>>()));
    vec![f]
}

fn uv_fix(inp: &FixInput<'_>, pkg: &str) -> Vec<Fix> {
    if !inp.scene.used_uv || !kb::is_valid_name(pkg) {
        return Vec::new();
    }
    vec![fix(
        format!("In a uv project, build {pkg} against the runtime torch"),
        format!(
            "Add to pyproject.toml: [tool.uv.extra-build-dependencies] {pkg} = [{{ requirement = \"torch\", match-runtime = true }}], then `uv sync`."
        ),
    )]
}

fn generic_rebuild(inp: &FixInput<'_>) -> Vec<Fix> {
    let mut f = fix(
        "Reinstall the failing package built for the installed torch (no cached wheel)",
        "The package could not be named from the text; find it with `abidoc scan` or the library path, then rebuild it with --no-build-isolation --no-cache-dir.",
    );
    f.commands.clear();
    let _ = inp;
    vec![f]
}

pub fn missing_library(inp: &FixInput<'_>, lib: &str, full: &str) -> Vec<Fix> {
    let l = lib.to_ascii_lowercase();
    let mut fixes = Vec::new();
    if let Some(dir) = inp.world.find_library_dir(lib) {
        let mut f = fix(
            format!("Let the loader find {lib} in {dir}"),
            "The library exists on this machine but outside the loader's search path.",
        );
        f.env.push(("LD_LIBRARY_PATH".into(), dir.clone()));
        f.notebook_cell = Some(format!("%env LD_LIBRARY_PATH={dir}"));
        fixes.push(f);
    }
    // A torch JIT extension whose build failed: the .so under torch_extensions was never produced.
    if let Some(dir) = jit_build_dir(full) {
        let mut f = fix(
            format!(
                "Fix the compile error printed above, then remove the stale build directory {dir}"
            ),
            "The op is built just in time by ninja; its failure (often an old gcc or a CUDA mismatch) left no library. Removing the directory makes the next run rebuild it.",
        );
        f.commands
            .push(vec!["rm".into(), "-rf".into(), dir.clone()]);
        f.notebook_cell = Some(format!("!rm -rf {dir}"));
        fixes.push(f);
    }
    if l.starts_with("libcudart.so.") {
        let major = l
            .trim_start_matches("libcudart.so.")
            .split('.')
            .next()
            .unwrap_or("12")
            .to_owned();
        let pkg = if major == "11" {
            "nvidia-cuda-runtime-cu11"
        } else {
            "nvidia-cuda-runtime-cu12"
        };
        if major.chars().all(|c| c.is_ascii_digit()) {
            let args = ["install".to_owned(), pkg.to_owned()];
            let mut f = fix(
                format!("Install the CUDA {major} runtime from PyPI ({pkg})"),
                "The package was built for CUDA runtime {major}; the pip package provides it without root. Alternatively install the package build that matches your CUDA.",
            );
            inp.add_pip(&mut f, &args);
            fixes.push(f);
        }
    }
    if (l.starts_with("libcuda.so.") || l.starts_with("libnvidia-ml.so.")) && fixes.is_empty() {
        let mut f = fix(
            format!(
                "Run on a machine or container that has the NVIDIA driver ({lib} comes with it)"
            ),
            "The driver's user-space libraries are not pip packages. In Docker, start the container with `--gpus all` (NVIDIA Container Toolkit) so they are mounted in; on a machine without an NVIDIA GPU, nothing that needs them can run, and only code paths that load CUDA fail.",
        );
        f.verified = false;
        fixes.push(f);
        return finish(fixes);
    }
    let torch_lib = kb::is_torch_library(lib);
    if torch_lib && let Some(torch) = inp.torch() {
        for p in ["torchaudio", "torchvision"] {
            if inp.package.as_deref() == Some(p)
                && let Some(v) = kb::release_for_torch(p, &torch)
            {
                let args = ["install".to_owned(), format!("{p}=={v}")];
                let mut f = fix(
                    format!("Install {p} {v}, built for torch {}", short_torch(&torch)),
                    "The installed one was built for a torch that shipped this library.",
                );
                inp.add_pip(&mut f, &args);
                fixes.push(f);
            }
        }
    }
    let provider = kb::system_library(lib);
    if let Some(sys) = provider {
        fixes.extend(system_library_fix(inp, lib, sys));
    }
    // A rebuild against torch helps only code that calls into torch, and only when the missing
    // library is not a system one (rebuilding nvidia-cufile does not bring libmlx5).
    if provider.is_none()
        && let Some(pkg) = inp.package.clone().filter(|p| kb::is_valid_name(p))
        && (torch_lib || calls_into_torch(inp, &pkg))
    {
        fixes.extend(rebuild_fix(inp, &pkg, kb::package(&pkg).as_ref(), &[]));
    }
    if fixes.is_empty() && torch_lib {
        fixes.push(fix(
            format!("Install the release of the failing package built for the installed torch ({lib} belongs to another torch)"),
            "torch libraries are renamed and split between releases; torchaudio, torchvision and other extensions must come from the release matching torch. `abidoc scan` names every package built for another torch.",
        ));
    }
    if fixes.is_empty() {
        let mut f = fix(
            format!(
                "Find which package should provide {lib} and install it, or add its directory to LD_LIBRARY_PATH"
            ),
            "`abidoc scan` lists every library whose needed libraries are not found, with their owners.",
        );
        f.verified = false;
        fixes.push(f);
    }
    finish(fixes)
}

/// Whether `pkg` (owner of the failing library) is compiled against torch: known packages say so;
/// otherwise the library's own imports tell (torch symbols, or a torch pin in its metadata).
fn calls_into_torch(inp: &FixInput<'_>, pkg: &str) -> bool {
    if let Some(known) = kb::links_torch(pkg) {
        return known;
    }
    inp.library
        .as_deref()
        .and_then(|l| inp.world.library_facts(l))
        .is_some_and(|f| f.torch_symbol_count > 0 || f.built_for_torch.is_some())
}

/// Installing the provider of a library no wheel ships: pip first (no root), then conda inside a
/// conda environment, then the machine's package manager. Names come from the compiled-in table
/// (checked by the knowledge tests), never from the text.
fn system_library_fix(
    inp: &FixInput<'_>,
    lib: &str,
    sys: &abidoc_knowledge::system_libs::SystemLibrary,
) -> Vec<Fix> {
    let names = |v: &[String]| -> Option<Vec<String>> {
        (!v.is_empty() && v.iter().all(|n| kb::is_valid_name(n))).then(|| v.to_vec())
    };
    let mut alternatives = Vec::new();
    if !sys.apt.is_empty() {
        alternatives.push(format!(
            "Debian/Ubuntu: apt-get install {}",
            sys.apt.join(" ")
        ));
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
        let mut args = vec!["install".to_owned()];
        args.extend(pip.iter().cloned());
        let mut f = fix(
            format!("Install {} from PyPI ({})", sys.what, pip.join(" ")),
            format!("{reason} The PyPI package installs it without root."),
        );
        inp.add_pip(&mut f, &args);
        return vec![f];
    }
    let mut f = fix(
        format!("Install {}, which provides {lib}", sys.what),
        if alternatives.is_empty() {
            reason.clone()
        } else {
            format!("{reason} {}.", alternatives.join("; "))
        },
    );
    let conda = names(&sys.conda).filter(|_| inp.world.in_conda());
    if let Some(pkgs) = conda {
        let mut cmd: Vec<String> = ["conda", "install", "-y", "-c", "conda-forge"]
            .map(str::to_owned)
            .to_vec();
        cmd.extend(pkgs);
        f.commands.push(cmd);
    } else {
        let (tool, pkgs) = match inp.world.system_package_manager() {
            Some("apt") => ("apt-get", names(&sys.apt)),
            Some("dnf") => ("dnf", names(&sys.dnf)),
            _ => ("", None),
        };
        if let Some(pkgs) = pkgs {
            let mut cmd: Vec<String> = ["sudo", tool, "install", "-y"].map(str::to_owned).to_vec();
            cmd.extend(pkgs);
            f.notebook_cell = Some(format!("!{}", cmd.join(" ")));
            f.commands.push(cmd);
        }
    }
    vec![f]
}

pub fn version_not_found(
    inp: &FixInput<'_>,
    library: &str,
    version: &str,
    glibc: bool,
) -> Vec<Fix> {
    let mut fixes = Vec::new();
    if glibc {
        fixes.push(fix(
            format!("Install a build of the package made for an older glibc (manylinux2014) or run on a newer OS (needs {version})"),
            "The C library cannot be replaced per process; a wheel built for the system's glibc is the way out.",
        ));
        return finish(fixes);
    }
    // A conda environment ships a newer libstdc++ in <prefix>/lib; the system one is found first.
    if let Some(prefix) = inp.library.as_deref().and_then(conda_prefix) {
        let lib_dir = format!("{prefix}/lib");
        let mut f = fix(
            format!("Load the conda environment's own libstdc++ first (LD_LIBRARY_PATH={lib_dir})"),
            format!(
                "{library} lacks {version}; the environment's lib/ normally has a newer libstdc++ (conda's libstdcxx-ng)."
            ),
        );
        f.env.push(("LD_LIBRARY_PATH".into(), lib_dir.clone()));
        f.notebook_cell = Some(format!("%env LD_LIBRARY_PATH={lib_dir}"));
        f.verified = inp.world.env().is_some();
        fixes.push(f);
    }
    if let Some(newer) = inp.world.newer_libstdcxx(version) {
        let mut f = fix(
            format!("Load the environment's own libstdc++ first ({newer})"),
            format!(
                "It provides {version}; {library} does not. LD_PRELOAD affects only the processes started with it."
            ),
        );
        f.env.push(("LD_PRELOAD".into(), newer.clone()));
        f.notebook_cell = Some(format!("%env LD_PRELOAD={newer}"));
        fixes.push(f);
    }
    if inp.world.in_conda() || inp.scene.mentions_conda || library.contains("conda") {
        let mut f = fix(
            "Upgrade the conda environment's libstdc++ (conda-forge libstdcxx-ng)",
            format!(
                "A newer libstdc++ in the environment provides {version} without touching the system."
            ),
        );
        f.commands.push(vec![
            "conda".into(),
            "install".into(),
            "-y".into(),
            "-c".into(),
            "conda-forge".into(),
            "libstdcxx-ng".into(),
        ]);
        f.notebook_cell = Some("%conda install -y -c conda-forge libstdcxx-ng".into());
        fixes.push(f);
    } else {
        let mut f = fix(
            "Put a newer libstdc++ first on the library path (for example a conda environment's lib/)",
            format!(
                "The system libstdc++ at {library} lacks {version}; a newer GCC runtime provides it."
            ),
        );
        f.verified = false;
        fixes.push(f);
    }
    finish(fixes)
}

/// The build directory of a torch JIT extension (`~/.cache/torch_extensions/py310_cu117/fused_adam`).
fn jit_build_dir(full: &str) -> Option<String> {
    if !full.contains("/torch_extensions/") {
        return None;
    }
    let dir = std::path::Path::new(full).parent()?.display().to_string();
    // Only a directory strictly inside torch_extensions is ever proposed for removal.
    let inside = dir
        .split_once("/torch_extensions/")
        .is_some_and(|(_, rest)| {
            !rest.is_empty() && !rest.split('/').any(|c| c == ".." || c == ".")
        });
    (inside && kb::is_plain_path(&dir)).then_some(dir)
}

/// The conda environment prefix of a path inside it (`…/envs/NAME` or `…/anaconda3`), when the
/// path is plain enough to be put in an environment variable.
fn conda_prefix(path: &str) -> Option<String> {
    let (prefix, _) = path.split_once("/lib/python")?;
    let is_conda = prefix.contains("/envs/") || prefix.contains("conda");
    (is_conda && kb::is_plain_path(prefix)).then(|| prefix.to_owned())
}

pub fn libcuda(inp: &FixInput<'_>) -> Vec<Fix> {
    let found = inp.world.libcuda_candidates();
    let (target, verified) = match found.first() {
        Some(p) => (p.clone(), true),
        None => ("/usr/lib/x86_64-linux-gnu/libcuda.so.1".to_owned(), false),
    };
    let dir = inp.world.user_dir("libcuda");
    let mut fixes = Vec::new();
    let link = format!("{dir}/libcuda.so");
    let mut f = fix(
        format!("Point Triton at a libcuda.so link in {dir} (no sudo)"),
        format!(
            "A link named libcuda.so to the driver's {target}, in a directory of yours, given to Triton through TRITON_LIBCUDA_PATH and to other compilers through LIBRARY_PATH."
        ),
    );
    f.commands
        .push(vec!["mkdir".into(), "-p".into(), dir.clone()]);
    f.commands.push(vec![
        "ln".into(),
        "-sf".into(),
        target.clone(),
        link.clone(),
    ]);
    f.env.push(("TRITON_LIBCUDA_PATH".into(), dir.clone()));
    f.env.push(("LIBRARY_PATH".into(), dir.clone()));
    f.notebook_cell = Some(format!(
        "!mkdir -p {dir} && ln -sf {target} {link}\n%env TRITON_LIBCUDA_PATH={dir}\n%env LIBRARY_PATH={dir}"
    ));
    f.verified = verified;
    fixes.push(f);
    let sys_dir = std::path::Path::new(&target)
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "/usr/lib/x86_64-linux-gnu".into());
    let mut g = fix(
        format!("Create the system link {sys_dir}/libcuda.so (needs root)"),
        "Fixes it for every user and tool, but needs sudo; the user-level link above does not.",
    );
    g.commands.push(vec![
        "sudo".into(),
        "ln".into(),
        "-sf".into(),
        target.clone(),
        format!("{sys_dir}/libcuda.so"),
    ]);
    g.commands.push(vec!["sudo".into(), "ldconfig".into()]);
    g.verified = verified;
    fixes.push(g);
    finish(fixes)
}

pub fn no_compiler(inp: &FixInput<'_>) -> Vec<Fix> {
    let mut fixes = Vec::new();
    if inp.world.in_conda() || inp.scene.mentions_conda {
        let mut f = fix(
            "Install a C/C++ compiler into the conda environment (conda-forge c-compiler)",
            "User-level: no root needed.",
        );
        f.commands.push(vec![
            "conda".into(),
            "install".into(),
            "-y".into(),
            "-c".into(),
            "conda-forge".into(),
            "c-compiler".into(),
            "cxx-compiler".into(),
        ]);
        fixes.push(f);
    }
    let mut f = fix(
        "Install the system compiler (build-essential; needs root)",
        "Triton and torch.compile call `cc` at run time to build small launchers.",
    );
    f.commands.push(vec![
        "sudo".into(),
        "apt-get".into(),
        "install".into(),
        "-y".into(),
        "build-essential".into(),
    ]);
    fixes.push(f);
    let mut g = fix(
        "Or point CC at an existing compiler",
        "Triton honours CC when gcc is not on PATH.",
    );
    g.env.push(("CC".into(), "/usr/bin/gcc".into()));
    g.verified = false;
    fixes.push(g);
    finish(fixes)
}

pub fn cuda_home(inp: &FixInput<'_>) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let pkg = inp.package.clone().filter(|p| kb::is_valid_name(p));
    if let Some(home) = inp.world.cuda_toolkits().first() {
        let mut f = fix(
            format!("Point CUDA_HOME at the toolkit in {home}"),
            "nvcc exists there; the build looks for $CUDA_HOME/bin/nvcc.",
        );
        f.env.push(("CUDA_HOME".into(), home.clone()));
        f.notebook_cell = Some(format!("%env CUDA_HOME={home}"));
        fixes.push(f);
    }
    if let Some(p) = &pkg
        && kb::package(p).is_some_and(|f| f.has_prebuilt_wheels)
    {
        let args = [
            "install".to_owned(),
            "--no-build-isolation".to_owned(),
            p.clone(),
        ];
        let mut f = fix(
            format!("Install a prebuilt {p} wheel matching your torch instead of compiling"),
            format!(
                "{p}'s setup fetches a prebuilt wheel for the installed torch/CUDA/ABI when one exists, so no nvcc is needed."
            ),
        );
        inp.add_pip(&mut f, &args);
        fixes.push(f);
    }
    let mut g = fix(
        "Install the CUDA compiler matching torch's CUDA (conda-forge cuda-nvcc) and set CUDA_HOME",
        "conda's cudatoolkit package ships no nvcc; cuda-nvcc does, without root.",
    );
    g.commands.push(vec![
        "conda".into(),
        "install".into(),
        "-y".into(),
        "-c".into(),
        "nvidia".into(),
        "cuda-nvcc".into(),
    ]);
    g.verified = false;
    fixes.push(g);
    finish(fixes)
}

pub fn cuda_version(inp: &FixInput<'_>, found: Option<&str>, expected: Option<&str>) -> Vec<Fix> {
    let mut fixes = Vec::new();
    if let Some(e) = expected {
        if let Some(home) = inp.world.cuda_toolkits().iter().find(|h| h.contains(e)) {
            let mut f = fix(
                format!("Build with the CUDA {e} toolkit in {home}"),
                "Extensions must be compiled with the CUDA major.minor torch was built with.",
            );
            f.env.push(("CUDA_HOME".into(), home.clone()));
            fixes.push(f);
        } else {
            let mut f = fix(
                format!("Install the CUDA {e} toolkit (torch's CUDA) and set CUDA_HOME to it"),
                "Extensions must be compiled with the CUDA major.minor torch was built with.",
            );
            f.verified = false;
            fixes.push(f);
        }
    }
    if let Some(fv) = found {
        let mut f = fix(
            format!("Or install a torch built for CUDA {fv}"),
            "Then the toolkit you have matches torch.",
        );
        f.verified = false;
        fixes.push(f);
    }
    if let Some(p) = inp.package.clone().filter(|p| kb::is_valid_name(p))
        && kb::package(&p).is_some_and(|f| f.has_prebuilt_wheels)
    {
        fixes.push(fix(
            format!("Or install a prebuilt {p} wheel for your torch and skip compiling"),
            "No local nvcc is involved then.",
        ));
    }
    finish(fixes)
}

pub fn build_isolation(inp: &FixInput<'_>) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let pkg = inp
        .package
        .clone()
        .filter(|p| kb::is_valid_name(p))
        .unwrap_or_default();
    if !pkg.is_empty() {
        let torch_there = inp.world.torch_version().is_some();
        let args = vec![
            "install".to_owned(),
            "--no-build-isolation".into(),
            pkg.clone(),
        ];
        if !torch_there {
            let mut f = fix(
                format!("Install torch first, then {pkg} with --no-build-isolation"),
                format!(
                    "{pkg}'s setup.py imports torch; isolated builds cannot see it, and a build must match the torch you run."
                ),
            );
            f.commands.push(inp.pip(&["install", "torch"]));
            f.commands
                .push(inp.pip(&["install", "--no-build-isolation", &pkg]));
            f.notebook_cell = Some(format!(
                "%pip install torch\n%pip install --no-build-isolation {pkg}"
            ));
            fixes.push(f);
        } else {
            let mut f = fix(
                format!("Build {pkg} against the installed torch (--no-build-isolation)"),
                format!(
                    "{pkg}'s setup.py imports torch; pip's isolated build environment has none."
                ),
            );
            inp.add_pip(&mut f, &args);
            fixes.push(f);
        }
        if inp.scene.used_uv {
            let mut f = fix(
                format!("With uv: uv pip install --no-build-isolation {pkg}"),
                "uv isolates builds too; or declare torch with match-runtime in [tool.uv.extra-build-dependencies].",
            );
            f.commands.push(vec![
                "uv".into(),
                "pip".into(),
                "install".into(),
                "--no-build-isolation".into(),
                pkg.clone(),
            ]);
            fixes.push(f);
        }
        fixes.push(fix(
            "In requirements files, install torch in a step before the CUDA extensions",
            "A single `pip install -r requirements.txt` builds the extensions before torch exists.",
        ));
    }
    finish(fixes)
}

pub fn xformers(inp: &FixInput<'_>, have_torch: Option<&str>) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let torch = have_torch.map(str::to_owned).or_else(|| inp.torch());
    if let Some(t) = torch
        && let Some(v) = kb::release_for_torch("xformers", &t)
    {
        let args = [
            "install".to_owned(),
            "--no-deps".into(),
            format!("xformers=={v}"),
        ];
        let mut f = fix(
            format!("Install xformers {v}, built for torch {}", short_torch(&t)),
            "Each xformers release is compiled for exactly one torch release.",
        );
        inp.add_pip(&mut f, &args);
        fixes.push(f);
    }
    let args = ["uninstall".to_owned(), "-y".into(), "xformers".into()];
    let mut g = fix(
        "Uninstall xformers if nothing needs it",
        "torch's scaled_dot_product_attention covers memory-efficient attention for most uses.",
    );
    inp.add_pip(&mut g, &args);
    fixes.push(g);
    finish(fixes)
}

pub fn flash_attn(inp: &FixInput<'_>, reason: &str) -> Vec<Fix> {
    let r = reason.to_ascii_lowercase();
    let mut fixes = Vec::new();
    if r.contains("cpu") || r.contains("cuda device") {
        fixes.push(fix("Load the model on the GPU (device_map=\"cuda\" or .to(\"cuda\")) or use attn_implementation=\"sdpa\"", "FlashAttention only runs on CUDA devices."));
    }
    if r.contains("not installed") || r.contains("no module") {
        let args = [
            "install".to_owned(),
            "--no-build-isolation".into(),
            "flash-attn".into(),
        ];
        let mut f = fix(
            "Install flash-attn built for the installed torch",
            "Its setup picks the prebuilt wheel for the installed torch/CUDA/ABI, or builds from source against it.",
        );
        inp.add_pip(&mut f, &args);
        fixes.push(f);
    }
    fixes.push(fix(
        "Or use attn_implementation=\"sdpa\"",
        "torch's built-in attention needs no extension and is close in speed for most models.",
    ));
    if !r.contains("cpu") && !r.contains("not installed") {
        fixes.extend(rebuild_fix(
            inp,
            "flash-attn",
            kb::package("flash-attn").as_ref(),
            &[],
        ));
    }
    finish(fixes)
}

pub fn torch_ops(inp: &FixInput<'_>) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let pkg = inp.package.clone().unwrap_or_else(|| "torchvision".into());
    if let Some(torch) = inp.torch()
        && let Some(v) = kb::release_for_torch(&pkg, &torch)
    {
        let args = [
            "install".to_owned(),
            "--no-deps".into(),
            format!("{pkg}=={v}"),
        ];
        let mut f = fix(
            format!(
                "Install {pkg} {v}, the release built for torch {}",
                short_torch(&torch)
            ),
            "torchvision and torchaudio are compiled for exactly one torch release.",
        );
        inp.add_pip(&mut f, &args);
        fixes.push(f);
    }
    if kb::is_valid_name(&pkg) {
        let args = [
            "install".to_owned(),
            "--force-reinstall".into(),
            "--no-cache-dir".into(),
            "torch".into(),
            pkg.clone(),
        ];
        let mut f = fix(
            format!("Reinstall torch and {pkg} together so pip picks matching releases"),
            "Installing them in one command lets pip resolve the pair torch pins.",
        );
        inp.add_pip(&mut f, &args);
        fixes.push(f);
    }
    finish(fixes)
}

pub fn numpy(inp: &FixInput<'_>, detail: &str) -> Vec<Fix> {
    let to_v1 = detail.contains("NumPy 2")
        || detail.contains("numpy 2")
        || detail.contains("_ARRAY_API")
        || detail.contains("1.x");
    let mut fixes = Vec::new();
    if to_v1 {
        let args = ["install".to_owned(), "numpy<2".into()];
        let mut f = fix(
            "Install NumPy 1.x (numpy<2)",
            "The failing module was compiled against NumPy 1.x; NumPy 2 changed the C ABI.",
        );
        f.notebook_cell = Some("%pip install \"numpy<2\"".into());
        f.commands
            .push(inp.pip(&args.iter().map(String::as_str).collect::<Vec<_>>()));
        fixes.push(f);
        fixes.push(fix(
            "Or upgrade the failing module to a release built for NumPy 2",
            "Most packages released since mid-2024 support NumPy 2.",
        ));
    } else {
        let args = ["install".to_owned(), "--upgrade".into(), "numpy".into()];
        let mut f = fix(
            "Upgrade NumPy to the version the module was built against",
            "The module was compiled against a newer NumPy C API.",
        );
        inp.add_pip(&mut f, &args);
        fixes.push(f);
    }
    finish(fixes)
}

pub fn cuda_oom(inp: &FixInput<'_>) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let procs = &inp.scene.gpu_processes;
    // Stale candidates: all but the newest (highest PID) of each repeated command.
    let mut stale: Vec<u32> = Vec::new();
    let mut names: Vec<&str> = procs.iter().filter_map(|(_, _, n)| n.as_deref()).collect();
    names.sort_unstable();
    names.dedup();
    for n in names {
        let mut pids: Vec<u32> = procs
            .iter()
            .filter(|(_, _, pn)| pn.as_deref() == Some(n))
            .map(|(p, _, _)| *p)
            .collect();
        pids.sort_unstable();
        if pids.len() > 1 {
            pids.pop();
            stale.extend(pids);
        }
    }
    let mut list = fix(
        "List the processes holding GPU memory",
        "Check which are yours and still needed before ending any.",
    );
    list.commands.push(vec![
        "nvidia-smi".into(),
        "--query-compute-apps=pid,process_name,used_memory".into(),
        "--format=csv".into(),
    ]);
    list.notebook_cell =
        Some("!nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv".into());
    if !stale.is_empty() {
        let pids: Vec<String> = stale.iter().map(u32::to_string).collect();
        let mut f = fix(
            format!("End the stale processes by PID ({})", pids.join(", ")),
            "Older copies of the same command hold memory; ending them by PID never touches unrelated processes the way `pkill -f` can. The newest copy is kept.",
        );
        let mut cmd = vec!["kill".to_owned()];
        cmd.extend(pids.iter().cloned());
        f.notebook_cell = Some(format!("!kill {}", pids.join(" ")));
        f.commands.push(cmd);
        fixes.push(f);
        fixes.push(list);
    } else {
        fixes.push(list);
    }
    let mut e = fix(
        "Reduce fragmentation: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
        "Lets the caching allocator reuse freed blocks; set before torch initialises CUDA.",
    );
    e.env.push((
        "PYTORCH_CUDA_ALLOC_CONF".into(),
        "expandable_segments:True".into(),
    ));
    e.notebook_cell = Some("%env PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True".into());
    fixes.push(e);
    finish(fixes)
}

pub fn mamba_fast_path(inp: &FixInput<'_>) -> Vec<Fix> {
    let installed_ssm = inp.world.is_installed("mamba-ssm");
    let mut names = vec!["causal-conv1d".to_owned(), "mamba-ssm".to_owned()];
    names.retain(|n| kb::is_valid_name(n));
    let mut fixes = Vec::new();
    let mut args = vec![
        "install".to_owned(),
        "--no-build-isolation".into(),
        "--no-cache-dir".into(),
    ];
    if installed_ssm == Some(true) {
        args.push("--force-reinstall".into());
        args.push("--no-deps".into());
    }
    args.extend(names.iter().cloned());
    let mut env = Vec::new();
    for n in &names {
        if let Some(f) = kb::package(n) {
            env.extend(f.force_build_env.iter().cloned());
        }
    }
    let mut f = fix(
        "Install mamba-ssm and causal-conv1d built against the installed torch",
        "The hybrid model's Mamba layers need these kernels for the fast path; --no-build-isolation builds (or picks a wheel) for the torch in this environment.",
    );
    let mut cell = String::new();
    if installed_ssm == Some(true) {
        for (k, v) in &env {
            cell.push_str(&format!("%env {k}={v}\n"));
        }
        f.env = env;
    }
    cell.push_str(&notebook_pip(&args));
    f.notebook_cell = Some(cell);
    f.commands
        .push(inp.pip(&args.iter().map(String::as_str).collect::<Vec<_>>()));
    fixes.push(f);
    finish(fixes)
}

pub fn stale_cache(inp: &FixInput<'_>) -> Vec<Fix> {
    let mut fixes = Vec::new();
    if let Some(p) = inp.package.clone().filter(|p| kb::is_valid_name(p)) {
        let mut f = fix(
            format!("Drop {p} from pip's cache and rebuild it against the installed torch"),
            "The cached wheel was built for the torch installed when it was first built.",
        );
        f.commands
            .push(inp.pip(&["cache", "remove", &p.replace('-', "_")]));
        f.commands.push(inp.pip(&[
            "install",
            "--no-build-isolation",
            "--no-cache-dir",
            "--force-reinstall",
            "--no-deps",
            &p,
        ]));
        f.notebook_cell = Some(format!(
            "%pip cache remove {}\n%pip install --no-build-isolation --no-cache-dir --force-reinstall --no-deps {p}",
            p.replace('-', "_")
        ));
        fixes.push(f);
    }
    finish(fixes)
}
