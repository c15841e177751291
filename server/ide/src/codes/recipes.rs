//! Fix recipes several codes share: aligning an extension with the installed torch (remove what
//! is unneeded, the companion release, the torch it was built for, a prebuilt wheel, a source
//! build that really compiles), and the pip steps they are made of.

use super::{Code, Cx};
use crate::fix::{
    Compile, Cost, EnvName, EnvValue, Fix, FixKind, Name, PipFlag, Requirement, Step, Version,
    WheelUrl,
};
use crate::kb::{self, ModelFacts, PackageFacts};

/// pip installs a package published once per CUDA build by its build's name: a fix written for
/// `cupy` installs `cupy-cuda13x` where the machine's CUDA is known, else the tables' default
/// build (`cupy-cuda12x`), never `cupy` itself (CuPy's source build) or `cudf` (no RAPIDS build).
pub(crate) fn pip_install(cx: &Cx<'_>, flags: Vec<PipFlag>, reqs: Vec<Requirement>) -> Step {
    Step::PipInstall {
        python: cx.python(),
        flags,
        requirements: reqs
            .into_iter()
            .map(|r| match cx.install_name(r.name()) {
                Some(to) => r.renamed(to),
                None => r,
            })
            .collect(),
    }
}

/// pip removes a package published per CUDA build by the name of the build installed (each
/// installed build, where the environment shows several).
pub(crate) fn pip_uninstall(cx: &Cx<'_>, names: Vec<Name>) -> Step {
    let mut packages: Vec<Name> = Vec::new();
    for n in names {
        let builds = cx.installed_builds(&n);
        let chosen = if builds.is_empty() {
            vec![cx.install_name(&n).unwrap_or(n)]
        } else {
            builds
        };
        for b in chosen {
            if !packages.contains(&b) {
                packages.push(b);
            }
        }
    }
    Step::PipUninstall {
        python: cx.python(),
        packages,
    }
}

/// The extra of `jax[…]` that installs jaxlib's CUDA plugin with the nvidia-* wheels it was built
/// with: the plugin's own name where the text gives it (`jax-cuda13-plugin`), else the one the
/// text shows installed, else CUDA 12's (the line every jax release with a CUDA plugin has).
pub(crate) fn jax_cuda_extra(cx: &Cx<'_>, plugin: Option<&str>) -> &'static str {
    let cuda13 = match plugin {
        Some(p) => p.starts_with("jax-cuda13"),
        None => cx.scene.version_of("jax-cuda13-plugin").is_some(),
    };
    if cuda13 { "cuda13" } else { "cuda12" }
}

/// `pip install -U "jax[EXTRA]"`: jax, jaxlib and the extra's plugin and wheels in one resolve.
pub(crate) fn jax_with_extra(cx: &Cx<'_>, extra: &str) -> Option<Step> {
    Some(pip_install(
        cx,
        vec![PipFlag::Upgrade],
        vec![Requirement::Extra(Name::new("jax")?, Name::new(extra)?)],
    ))
}

pub(crate) fn exact(name: &str, version: &str) -> Option<Requirement> {
    Some(Requirement::Exact(Name::new(name)?, Version::new(version)?))
}

pub(crate) fn set_env(name: &str, value: &str) -> Option<Step> {
    Some(Step::SetEnv {
        name: EnvName::new(name)?,
        value: EnvValue::new(value)?,
    })
}

/// Setting a variable in words, for a value only the person knows (`<full path of …>`) or one
/// written as a pattern, in the shell of the text's platform: `export NAME=…` (the value in
/// double quotes where sh would split or expand it), or cmd.exe's `set "NAME=…"` for a Windows
/// text (cmd keeps quotes inside a value as part of it).
pub(crate) fn set_in_words(cx: &Cx<'_>, name: &str, value: &str) -> String {
    if cx.scene.mentions_windows {
        format!("set \"{name}={value}\"")
    } else if value.contains([' ', ';', '<', '>', '|', '&', '*', '?', '(', ')']) {
        format!("export {name}=\"{value}\"")
    } else {
        format!("export {name}={value}")
    }
}

/// `2.5.1` for `2.5.1+cu121`.
pub(crate) fn short_torch(v: &str) -> &str {
    v.split('+').next().unwrap_or(v)
}

/// `2.10` and `2.10.0+cu128` are the same torch line: no point moving torch between them.
fn same_release_line(a: &str, b: &str) -> bool {
    let mm = |v: &str| {
        short_torch(v)
            .split('.')
            .take(2)
            .collect::<Vec<_>>()
            .join(".")
    };
    mm(a) == mm(b)
}

/// Installed packages other than `except` that require torch: what moving torch may break.
pub(crate) fn torch_dependents(cx: &Cx<'_>, except: Option<&str>) -> Vec<String> {
    cx.world
        .required_by("torch")
        .into_iter()
        .filter(|d| Some(d.as_str()) != except)
        .collect()
}

/// `also` plus the line naming torch's other dependents, `… require torch and may need {what}`.
pub(crate) fn with_dependents(
    cx: &Cx<'_>,
    except: Option<&str>,
    mut also: Vec<String>,
    what: &str,
) -> Vec<String> {
    let dependents = torch_dependents(cx, except);
    if !dependents.is_empty() {
        also.push(format!(
            "{} require torch and may need {what}",
            dependents.join(", ")
        ));
    }
    also
}

/// The newest release of `package` that PyPI has a wheel of, from the release tables.
fn newest_wheel_release(package: &str) -> Option<&'static abidoc_knowledge::releases::Release> {
    use abidoc_knowledge::version::Version as V;
    abidoc_knowledge::releases::releases(package)
        .into_iter()
        .filter(|r| r.wheels)
        .filter_map(|r| Some((V::parse(&r.version)?, r)))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, r)| r)
}

/// The build label (`cu121`) of the CUDA a torch release's default PyPI wheel is built with.
pub(crate) fn default_cuda_variant(torch: &str) -> Option<String> {
    let c =
        abidoc_knowledge::version::Version::parse(abidoc_knowledge::torch_default_cuda(torch)?)?;
    Some(format!("cu{}{}", c.major(), c.minor()))
}

/// Whether the model needs this package: `Some(false)` only when the model is known to be a plain
/// transformer and the package is an SSM kernel package.
pub(crate) fn model_needs(model: Option<&ModelFacts>, pkg: Option<&PackageFacts>) -> Option<bool> {
    let pkg = pkg?;
    let model = model?;
    match model.needs(&pkg.name) {
        // Only SSM kernel packages are safe to call unneeded: a transformer may still use others.
        Some(false) if !pkg.ssm_kernels => None,
        other => other,
    }
}

/// The fixes for an extension built for another torch (any of the symbol codes, a torch pin).
pub(crate) fn extension_mismatch(
    code: Code,
    cx: &Cx<'_>,
    package: Option<&str>,
    library: Option<&str>,
    symbols: &[crate::diagnostic::SymbolReport],
) -> Vec<Fix> {
    let Some(pkg) = package.and_then(Name::new) else {
        // Where neither the text nor the environment shows torch, nothing says the package
        // links it: its release for this environment, not "for the installed torch".
        // (A torch symbol or a torch build's code says torch on its own.)
        let torch_seen = code != Code::MissingSharedLibrary || cx.torch_shown(None);
        let (title, why) = if torch_seen {
            (
                "Reinstall the failing package built for the installed torch (no cached wheel)",
                "The package could not be named from the text; `abidoc scan` or the library's path names it, then install its release built for the installed torch.",
            )
        } else {
            (
                "Reinstall the failing package, a release built for this Python and platform (no cached wheel)",
                "The package could not be named from the text; `abidoc scan` or the library's path names it, then reinstall it (or another release of it) so its compiled files and the libraries they need come from one build.",
            )
        };
        let mut fixes = vec![
            Fix::new(code, "find-package", FixKind::Advice, title, why).step(Step::Manual(
                "abidoc scan names the package that owns the library".into(),
            )),
        ];
        // The offline index dates the binary by its torch symbols even when nothing names its
        // package: the torch it was built for is the one alignment that needs no name.
        if matches!(code, Code::AbiMismatch | Code::Cxx11AbiMismatch)
            && let Some(target) = kb::built_for_release(symbols)
            && let Some(f) = align_torch_unnamed(code, cx, &target)
        {
            fixes.push(f);
        }
        return fixes;
    };
    // A library installed outside any Python environment (`/opt/hpcx/ucx/lib/libucs.so.0`,
    // a source-built `/opt/rccl`) is its own installation's: no pip step on the package that
    // imported it reaches that file.
    if let Some(lib) = library
        .filter(|l| super::in_system_dirs(l))
        .and_then(crate::fix::SafePath::new)
    {
        let lib = lib.as_str();
        let dir = lib.rsplit_once('/').map_or(lib, |(d, _)| d);
        return vec![Fix::in_words(
            code,
            "system-copy",
            format!(
                "Rebuild or reinstall what put {} in {dir}, or keep it off the loader's path",
                crate::incidents::basename(lib)
            ),
            format!(
                "{lib} is not a file of {pkg} or of any pip package: it was installed in {dir} by a system package, a container image or a build of its own, and no reinstall of {pkg} changes it. Rebuild or reinstall it whole (the version {pkg} was built with), or, when {pkg} ships its own copy, take {dir} off LD_LIBRARY_PATH so the loader takes that one."
            ),
            format!(
                "find what owns {lib} (`dpkg -S {lib}` / `rpm -qf {lib}`, else the build or image that made {dir}); rebuild or reinstall it, or remove {dir} from LD_LIBRARY_PATH"
            ),
        )];
    }
    let facts = kb::package(pkg.as_str());
    let partners: Vec<Name> = facts
        .as_ref()
        .map(|f| {
            f.pairs_with
                .iter()
                .filter(|p| cx.world.is_installed(p).unwrap_or(true))
                .filter_map(|p| Name::new(p))
                .collect()
        })
        .unwrap_or_default();
    let needed = model_needs(cx.model, facts.as_ref());
    let removable = facts.as_ref().is_some_and(|f| f.removable_when_unneeded);
    let mut fixes = Vec::new();

    // An incomplete build is offered its removal too when nothing here can compile it.
    let buildable =
        code == Code::ExtensionIncompleteBuild && cx.world.cuda_compiler_found() != Some(false);
    if needed == Some(false) || (removable && !buildable && needed != Some(true)) {
        fixes.extend(uninstall(code, cx, &pkg, &partners, facts.as_ref(), needed));
    }
    let torch = cx.torch();
    // From the text alone, the torch the binary was built for, read from its symbols in the
    // offline index: for an application that pins torch (vllm) with no torch known, it is the
    // pin the general form lacks; with the torch the text states, the other side of aligning.
    // (With the environment, its own reading below says it.)
    let index_target = cx
        .world
        .torch_version()
        .is_none()
        .then(|| kb::built_for_release(symbols))
        .flatten();
    // A package whose releases are numbered as the torch they are built for: its release for
    // this torch, or torch and it of one release; never a build of it.
    if facts.as_ref().is_some_and(|f| f.follows_torch) {
        fixes.extend(follow_torch(
            code,
            cx,
            &pkg,
            torch.as_deref(),
            index_target.as_deref(),
        ));
        return fixes;
    }
    let pinned_torch = index_target.and_then(|target| match torch.as_deref() {
        None if kb::pins_torch(pkg.as_str()) => align_torch(code, cx, &pkg, &target, None),
        None => None,
        Some(t) => align_torch(code, cx, &pkg, &target, Some(t)),
    });
    let pinned = pinned_torch.is_some() && torch.is_none();
    fixes.extend(pinned_torch);
    // The failing build asks for a CUDA runtime torch's CUDA does not bring (a CUDA 12
    // xFormers beside a CUDA 13 torch): the release for this torch may be PyPI's build of that
    // CUDA too, which then needs its runtime beside it.
    let runtime_key = library
        .and_then(|l| cx.world.library_facts(l))
        .and_then(|f| {
            f.missing_needed
                .into_iter()
                .find(|n| kb::cuda_library(n).is_some())
        });
    let aligned = align_with_torch(code, cx, &pkg, pinned);
    fixes.extend(
        aligned
            .into_iter()
            .map(|f| match (&runtime_key, torch.as_deref()) {
                (Some(key), Some(t)) => with_own_cuda_runtime(cx, f, &pkg, t, key),
                _ => f,
            }),
    );
    if let Some(torch) = &torch
        && (code == Code::Cxx11AbiMismatch || code == Code::AbiMismatch)
    {
        fixes.extend(prebuilt_wheel(code, cx, &pkg, torch));
    }
    // The torch it was built for: as the environment records it (a pin, a version label), else
    // as the offline index dates its torch symbols read from disk.
    // The index's dating moves torch only where nothing else installed requires torch.
    let alone = || torch_dependents(cx, Some(pkg.as_str())).is_empty();
    if let Some(target) = cx.world.built_for_torch(library).or_else(|| {
        cx.world
            .torch_version()
            .filter(|_| alone())
            .and_then(|_| kb::built_for_release(symbols))
    }) {
        fixes.extend(align_torch(code, cx, &pkg, &target, torch.as_deref()));
    }
    // A module in a source checkout (`/home/u/proj/mmlab_ext/_C.so`, outside every
    // environment's site-packages) was built there: its rebuild is there too, no index has that
    // build.
    match library
        .filter(|l| in_checkout(l))
        .and_then(crate::fix::SafePath::new)
    {
        Some(lib) => fixes.push(rebuild_checkout(code, &pkg, lib.as_str())),
        None => fixes.extend(source_build(code, cx, &pkg, &partners)),
    }
    without_nvcc(cx, &pkg, facts.as_ref(), &mut fixes);
    if cx.scene.used_uv {
        fixes.push(
            Fix::in_words(
                code,
                "uv-match-runtime",
                format!("In a uv project, build {pkg} against the runtime torch"),
                format!(
                    "Add to pyproject.toml: [tool.uv.extra-build-dependencies] {pkg} = [{{ requirement = \"torch\", match-runtime = true }}], then `uv sync`."
                ),
                format!(
                    "[tool.uv.extra-build-dependencies] {pkg} = [{{ requirement = \"torch\", match-runtime = true }}]"
                ),
            ),
        );
    }
    fixes
}

fn rebuild_checkout(code: Code, pkg: &Name, lib: &str) -> Fix {
    let dir = lib.rsplit_once('/').map_or(lib, |(d, _)| d);
    Fix::new(
        code,
        "rebuild-checkout",
        FixKind::SourceBuild,
        format!("Rebuild {pkg} in its checkout, against the torch installed now"),
        format!("{lib} was built in a source checkout, not installed from an index: a reinstall from PyPI would not replace it. Rebuild it where it was built (the directory above {dir} that holds its setup.py or pyproject.toml), with this environment's torch visible to the build."),
    )
    .step(Step::Manual(format!(
        "cd to the checkout that holds {dir} (its setup.py's directory), then: pip install --no-build-isolation -e . (or python setup.py build_ext --inplace)"
    )))
}

/// A compiled module in a source checkout: an absolute path outside every environment's
/// site-packages, the system's directories and the caches build tools keep (torch's JIT
/// extensions, pip's build directories).
fn in_checkout(lib: &str) -> bool {
    let l = lib.replace('\\', "/");
    let absolute = l.starts_with('/') || l.get(1..3) == Some(":/");
    absolute
        && !l.contains("site-packages")
        && !l.contains("dist-packages")
        && !l.contains("torch_extensions")
        && !l.contains("/.cache/")
        && !l.contains("/tmp/")
        && !l.contains("/pip-")
        // A path written for the reader (`/path/to/flash_attn_2_cuda….so`) is no checkout.
        && !l.contains("/path/to/")
        && !super::in_system_dirs(lib)
}

/// On a machine without nvcc, a package whose setup.py reads nvcc's version before it downloads
/// its prebuilt wheel (mamba-ssm, causal-conv1d: PyPI has only their sdists) stops there unless
/// its skip switch is set: every install of it by name that is not a compile gets the switch.
fn without_nvcc(cx: &Cx<'_>, pkg: &Name, facts: Option<&PackageFacts>, fixes: &mut [Fix]) {
    let Some(switch) = facts.and_then(|f| f.fetch_without_nvcc.as_deref()) else {
        return;
    };
    if cx.world.cuda_compiler_found() != Some(false) {
        return;
    }
    let Some(set) = set_env(switch, "TRUE") else {
        return;
    };
    for f in fixes.iter_mut().filter(|f| f.kind != FixKind::SourceBuild) {
        let by_name = f.steps.iter().any(|s| {
            matches!(s, Step::PipInstall { requirements, .. } if requirements.iter().any(|r| {
                r.name() == pkg && !matches!(r, Requirement::Wheel(..) | Requirement::Vcs(..) | Requirement::Editable(..))
            }))
        });
        if by_name && !f.steps.contains(&set) {
            f.steps.insert(0, set.clone());
            f.reason.push_str(&format!(
                " No nvcc was found here: {switch}=TRUE lets setup.py reach its download, which it otherwise never does without nvcc."
            ));
        }
    }
}

/// Aligning a companion with the torch in use: its release built for that torch (exact, from
/// the tables), else its wheel from the project's find-links page for that torch and CUDA, else
/// the general form (refetch a prebuilt wheel, or resolve it together with torch) unless
/// `pinned` (the caller already pins the torch it was built for).
pub(crate) fn align_with_torch(code: Code, cx: &Cx<'_>, pkg: &Name, pinned: bool) -> Vec<Fix> {
    let facts = kb::package(pkg.as_str());
    let facts = facts.as_ref();
    let torch = cx.torch();
    let companion = torch
        .as_deref()
        .and_then(|t| companion_release(code, cx, pkg, t, facts));
    let page = torch
        .as_deref()
        .and_then(|t| find_links_wheel(code, cx, pkg, t, facts));
    // No release for this torch in the tables: the newest pair when the package's releases
    // stopped before it, else its newest release when this torch is the newest known.
    let later = match (&companion, torch.as_deref()) {
        (None, Some(t)) => {
            newest_pair(code, cx, pkg, t).or_else(|| newest_release(code, cx, pkg, t))
        }
        _ => None,
    };
    // No version to pin (the text states no torch, or the tables know no release for it): the
    // aligning command in its general form, never a guess.
    let general = (companion.is_none() && page.is_none() && later.is_none() && !pinned)
        .then(|| align_general(code, cx, pkg, facts))
        .flatten();
    companion
        .into_iter()
        .chain(page)
        .chain(later)
        .chain(general)
        .collect()
}

/// Removing `pkg` alone, when the knowledge says its importers fall back cleanly without it:
/// for a failure no rebuild against torch can fix (a binary built for a newer glibc).
pub(crate) fn uninstall_optional(code: Code, cx: &Cx<'_>, pkg: &Name) -> Option<Fix> {
    let facts = kb::package(pkg.as_str()).filter(|f| f.removable_when_unneeded)?;
    let needed = model_needs(cx.model, Some(&facts));
    if needed == Some(true) {
        return None;
    }
    uninstall(code, cx, pkg, &[], Some(&facts), needed)
}

fn uninstall(
    code: Code,
    cx: &Cx<'_>,
    pkg: &Name,
    partners: &[Name],
    facts: Option<&PackageFacts>,
    needed: Option<bool>,
) -> Option<Fix> {
    let mut names = vec![pkg.clone()];
    names.extend(partners.iter().cloned());
    let blocked = names
        .iter()
        .flat_map(|n| cx.world.required_by(n.as_str()))
        .any(|r| !names.iter().any(|n| n.as_str() == r));
    if blocked {
        return None;
    }
    let importers = facts
        .map(|f| f.optional_importers.join(", "))
        .unwrap_or_default();
    let (kind, why) = match (cx.model, needed, imported_via(cx, facts)) {
        (Some(m), Some(false), _) => (
            FixKind::RemoveUnneeded,
            format!(
                "the model in use ({}) is {} and does not use them",
                m.id,
                m.kind_phrase()
            ),
        ),
        (_, None, Some(importer)) => (
            FixKind::RemoveOptional,
            format!("{importer} imported it here, and imports it only when it is installed"),
        ),
        _ => (
            FixKind::RemoveIfUnneeded,
            format!("if nothing you run needs {pkg}"),
        ),
    };
    let fallback = if importers.is_empty() {
        String::new()
    } else {
        format!("; {importers} import it optionally and fall back cleanly without it")
    };
    let list: Vec<&str> = names.iter().map(Name::as_str).collect();
    Some(
        Fix::new(
            code,
            "uninstall",
            kind,
            format!("Uninstall {} ({why})", list.join(" and ")),
            format!("Removes the broken binary at its source; nothing is downloaded{fallback}."),
        )
        .step(pip_uninstall(cx, names)),
    )
}

/// The importer the text shows loading an optional package (its traceback frame, or its
/// `Failed to import transformers.…` wrapper): one the knowledge says falls back cleanly
/// without it, so that importing through it is no sign the user's own code needs the package.
fn imported_via<'a>(cx: &Cx<'_>, facts: Option<&'a PackageFacts>) -> Option<&'a str> {
    let facts = facts.filter(|f| f.removable_when_unneeded)?;
    let wrapped = cx
        .scene
        .wrapped_imports
        .iter()
        .filter_map(|w| w.split(['.', ' ']).next());
    let shown: Vec<String> = cx
        .scene
        .mentions
        .iter()
        .map(|(_, n)| n.as_str())
        .chain(wrapped)
        .map(kb::normalize)
        .collect();
    facts
        .optional_importers
        .iter()
        .find(|i| shown.iter().any(|s| s == *i))
        .map(String::as_str)
}

/// The release of `pkg` built for the installed torch, when the release tables know one.
pub(crate) fn companion_release(
    code: Code,
    cx: &Cx<'_>,
    pkg: &Name,
    torch: &str,
    facts: Option<&PackageFacts>,
) -> Option<Fix> {
    let ver = kb::release_for_torch(pkg.as_str(), torch)?;
    let req = exact(pkg.as_str(), &ver)?;
    // Installing the same version again would bring back the binary that failed.
    if cx
        .world
        .installed_version(pkg.as_str())
        .is_some_and(|v| short_torch(&v) == short_torch(&ver))
    {
        return None;
    }
    let mut flags = vec![PipFlag::NoCacheDir];
    if facts.is_some_and(|f| f.needs_no_build_isolation) {
        flags.push(PipFlag::NoBuildIsolation);
    }
    flags.push(PipFlag::NoDeps);
    let t = short_torch(torch);
    Some(
        Fix::new(
            code,
            "companion-release",
            FixKind::AlignCompanion,
            format!("Install {pkg}=={ver}, the release built for torch {t}"),
            format!(
                "{pkg} {ver} ships binaries for torch {t}; --no-cache-dir keeps pip from reusing the stale wheel and --no-deps keeps torch where it is."
            ),
        )
        .step(pip_install(cx, flags, vec![req]))
        .cost(Cost {
            downloads: true,
            ..Cost::default()
        }),
    )
}

/// A companion release for the installed torch, when the library that failed is a CUDA
/// runtime of another major than torch's and the release is not known to be of torch's major:
/// that runtime's PyPI wheel installed with it, as the step after.
pub(crate) fn with_own_cuda_runtime(
    cx: &Cx<'_>,
    f: Fix,
    pkg: &Name,
    torch: &str,
    key: &str,
) -> Fix {
    let Some((c, major)) = kb::cuda_library(key) else {
        return f;
    };
    let torch_major = cx.torch_cuda_major();
    let release = kb::release_for_torch(pkg.as_str(), torch)
        .and_then(|v| abidoc_knowledge::releases::release(pkg.as_str(), &v));
    // Only a release PyPI ships as a binary wheel keeps its CUDA whatever torch is beside it:
    // one built at install time (flash-attn's sdist fetching its wheel) takes torch's CUDA.
    let binary_of_that_major = release
        .is_some_and(|r| r.binary_wheel() && r.cuda_major.is_none_or(|m| m == u64::from(major)));
    if !f.id.ends_with("/companion-release")
        || torch_major.is_none_or(|m| m == u64::from(major))
        || !binary_of_that_major
    {
        return f;
    }
    let Some(req) = c
        .packages
        .iter()
        .find(|p| p.major == major)
        .and_then(|p| Name::new(&p.name).map(|n| (p, n)))
        .map(|(p, n)| {
            if p.pin_major {
                Requirement::Major(n, major)
            } else {
                Requirement::Any(n)
            }
        })
    else {
        return f;
    };
    let shown = crate::fix::render::requirement(&req);
    let mut f = f.step(pip_install(cx, Vec::new(), vec![req]));
    f.title = format!("{}, with {} of CUDA {major} ({shown})", f.title, c.what);
    f.reason = format!(
        "{} Its build asks for {key}, CUDA {major}'s, beside torch's own CUDA runtime: {shown} provides it without root, and each library keeps to the runtime it was built for.",
        f.reason
    );
    f
}

/// Alignment without a known version: a package whose setup.py fetches the prebuilt wheel for
/// the installed torch is reinstalled so it fetches again (no cache, no build isolation); a
/// package released in step with torch is resolved together with torch in one command.
fn align_general(code: Code, cx: &Cx<'_>, pkg: &Name, facts: Option<&PackageFacts>) -> Option<Fix> {
    if cx.torch().is_none()
        && let Some(f) = find_links_advice(code, pkg, facts, false)
    {
        return Some(f);
    }
    if facts.is_some_and(|f| f.has_prebuilt_wheels) {
        // With the torch known, the release data may say setup.py finds no wheel for it (none
        // published for this torch and CUDA, or setup.py gives up): reinstalling then compiles,
        // which the source build says honestly.
        let answer = cx.torch().and_then(|t| {
            kb::prebuilt(
                pkg.as_str(),
                None,
                &t,
                None,
                cx.world.torch_cxx11_abi(),
                cx.world.python_tag().as_deref(),
            )
        });
        if answer.as_ref().is_some_and(|a| {
            matches!(a.listing, kb::Listing::NotListed { .. })
                || matches!(a.fetch, kb::Fetch::GivesUp { .. })
        }) {
            return None;
        }
        // Without nvcc, a wheel the release data does not list is only a hope: setup.py would
        // compile (which cannot run here) or, with its skip switch, install no kernels.
        let blocker = (cx.world.cuda_compiler_found() == Some(false)
            && !answer
                .as_ref()
                .is_some_and(|a| matches!(a.listing, kb::Listing::Listed { .. })))
        .then(|| {
            format!(
                "no nvcc was found, so this works only if {pkg} published a wheel for this torch, which the release data does not list"
            )
        });
        let steps = vec![pip_install(
            cx,
            vec![
                PipFlag::NoBuildIsolation,
                PipFlag::NoCacheDir,
                PipFlag::ForceReinstall,
                PipFlag::NoDeps,
            ],
            vec![Requirement::Any(pkg.clone())],
        )];
        let fix = Fix::new(
                code,
                "refetch-wheel",
                FixKind::PrebuiltWheel,
                format!("Reinstall {pkg} so its setup fetches the wheel built for the installed torch"),
                format!(
                    "{pkg}'s setup.py picks the prebuilt wheel matching the torch, CUDA major and C++ ABI it finds; --no-build-isolation lets it see this torch and --no-cache-dir keeps pip from reusing the old build. Without such a wheel it compiles."
                ),
            )
            .steps(steps)
            .cost(Cost {
                downloads: true,
                ..Cost::default()
            });
        return Some(match blocker {
            Some(b) => fix.blocked_by(b),
            None => fix,
        });
    }
    // Only a package whose releases each pin one torch resolves to a matching pair: for any
    // other, pip would keep the installed copy or take its newest, whatever torch it was for.
    if !kb::pairs_with_torch(pkg.as_str()) && !kb::pins_torch(pkg.as_str()) {
        return None;
    }
    // A package whose requirements name no torch: pip would take its newest release whatever
    // the torch, so the pairing comes from the tables, for the person to read their torch against.
    if !kb::requirements_pin_torch(pkg.as_str()) {
        return release_by_table(code, cx, pkg);
    }
    resolve_with_torch(code, cx, pkg, "resolve-with-torch", FixKind::AlignCompanion)
}

/// The release of `pkg` for the torch in use, read off the hand-written table of its releases
/// by torch line (`2.6 → 1.1.0`), newest lines first: a command complete but for that version.
fn release_by_table(code: Code, cx: &Cx<'_>, pkg: &Name) -> Option<Fix> {
    let mut pairs: Vec<(abidoc_knowledge::version::Version, String, String)> = Vec::new();
    for r in abidoc_knowledge::compat::releases(pkg.as_str()) {
        for line in &r.torch {
            // Newest release first: the first row naming a line is its newest release.
            if !pairs.iter().any(|(_, l, _)| l == line)
                && let Some(v) = abidoc_knowledge::version::Version::parse(line)
            {
                pairs.push((v, line.clone(), r.version.clone()));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.cmp(&a.0));
    // Neighbouring lines of one release read as a range (`torch 2.11–2.15: 0.16.0`).
    let mut runs: Vec<(&abidoc_knowledge::version::Version, &str, &str, &str)> = Vec::new();
    for (at, line, v) in &pairs {
        match runs.last_mut() {
            Some((prev, oldest, _, rv))
                if rv == v && prev.major() == at.major() && prev.minor() == at.minor() + 1 =>
            {
                *prev = at;
                *oldest = line;
            }
            _ => runs.push((at, line, line, v)),
        }
    }
    let table: Vec<String> = runs
        .iter()
        .take(8)
        .map(|(_, oldest, newest, v)| {
            if oldest == newest {
                format!("torch {newest}: {v}")
            } else {
                format!("torch {oldest}–{newest}: {v}")
            }
        })
        .collect();
    if table.is_empty() {
        return None;
    }
    Some(
        Fix::new(
            code,
            "release-for-torch",
            FixKind::AlignCompanion,
            format!("Install the {pkg} release built for your torch"),
            format!(
                "{pkg}'s releases name no torch in their requirements, so pip would take its newest whatever the torch; the project's own table pairs each release with one torch line.{}",
                // The torch in use is known and the table has no line of it (else the companion
                // release would have been pinned): said, so nobody reads the nearest line as it.
                cx.torch()
                    .filter(|t| kb::release_for_torch(pkg.as_str(), t).is_none())
                    .map_or(String::new(), |t| format!(
                        " Its table names no release for torch {} yet.",
                        short_torch(&t)
                    ))
            ),
        )
        .step(Step::Manual(format!(
            "python -c 'import torch; print(torch.__version__)', then pip install --no-cache-dir --no-deps {pkg}==X, X the release for that torch line ({})",
            table.join(", ")
        )))
        .filled_in_with(format!("the {pkg} release for your torch")),
    )
}

/// The project's wheel for this torch and CUDA from its own find-links page (PyG's,
/// OpenMMLab's): `--no-index` so that pip takes the page's wheel and never compiles PyPI's
/// newer sdist instead.
pub(crate) fn find_links_wheel(
    code: Code,
    cx: &Cx<'_>,
    pkg: &Name,
    torch: &str,
    facts: Option<&PackageFacts>,
) -> Option<Fix> {
    let page = facts?.wheel_index.as_ref()?;
    let v = abidoc_knowledge::version::Version::parse(torch)?;
    let (major, minor) = v.major_minor();
    let line = format!("{major}.{minor}");
    let cuda = torch_cuda_label(cx, &v)?;
    let url = crate::fix::FindLinksUrl::from_template(&page.url, &line, &cuda)?;
    let dist = match page.distribution_torch1.as_deref() {
        Some(d) if major == 1 => Name::new(d)?,
        _ => pkg.clone(),
    };
    Some(
        Fix::new(
            code,
            "find-links-wheel",
            FixKind::PrebuiltWheel,
            format!("Install {dist} from its wheel page for torch {line} and {cuda}"),
            format!(
                "The project publishes its wheels per torch and CUDA at {url}; --no-index keeps pip from compiling PyPI's sdist instead, --no-cache-dir and --force-reinstall replace the binary that failed, and --no-deps keeps torch where it is. The page cannot be checked offline."
            ),
        )
        .step(pip_install(
            cx,
            vec![
                PipFlag::NoIndex,
                PipFlag::FindLinks(url),
                PipFlag::NoCacheDir,
                PipFlag::ForceReinstall,
                PipFlag::NoDeps,
            ],
            vec![Requirement::Any(dist)],
        ))
        .cost(Cost {
            downloads: true,
            ..Cost::default()
        })
        .unverified(),
    )
}

/// With no torch version to fill it in, the project's wheel page in words: which page, and how
/// to read the torch and CUDA that choose it (a command needs both, and pip would otherwise
/// compile PyPI's sdist). `cuda_only` where the package's CPU build is what failed: the page of
/// a CUDA label, never `cpu`.
pub(crate) fn find_links_advice(
    code: Code,
    pkg: &Name,
    facts: Option<&PackageFacts>,
    cuda_only: bool,
) -> Option<Fix> {
    let page = facts?.wheel_index.as_ref()?;
    let label = if cuda_only {
        "<cuXYZ>"
    } else {
        "<cuXYZ or cpu>"
    };
    let shown = page
        .url
        .replace("{torch_minor}", "<torch major.minor>")
        .replace("{cuda}", label);
    let dist = match page.distribution_torch1.as_deref() {
        Some(d) if d != pkg.as_str() => format!("{pkg} ({d} for torch 1.x)"),
        _ => pkg.to_string(),
    };
    Some(
        Fix::new(
            code,
            "find-links-page",
            FixKind::PrebuiltWheel,
            format!("Install {dist} from its wheel page for the installed torch and CUDA"),
            format!(
                "The project publishes its wheels per torch and CUDA at {shown}, outside PyPI, where pip would compile the sdist; the text names no torch version to choose the page. `python -c \"import torch; print(torch.__version__)\"` shows it (its `+cuXYZ` label is the CUDA)."
            ),
        )
        .step(Step::Manual(format!(
            "pip install --no-index --find-links {shown} --no-cache-dir --force-reinstall --no-deps {}",
            match page.distribution_torch1.as_deref() {
                Some(d) if d != pkg.as_str() => format!("{pkg}   # {d} for torch 1.x"),
                _ => pkg.to_string(),
            }
        )))
        .filled_in_with(if cuda_only {
            "the installed torch's major.minor and CUDA label (`+cuXYZ`)"
        } else {
            "the installed torch's major.minor and CUDA label (`+cuXYZ`, or `cpu`)"
        })
        .unverified(),
    )
}

/// The CUDA build label of a torch (`cu121`, `cpu`): its local label, else the CUDA the text
/// states when torch has a build for it, else the release's default CUDA.
fn torch_cuda_label(cx: &Cx<'_>, torch: &abidoc_knowledge::version::Version) -> Option<String> {
    if let Some(l) = torch.local_label() {
        if l == "cpu" {
            return Some("cpu".into());
        }
        if let Some((a, b)) = torch.local_cuda() {
            return Some(format!("cu{a}{b}"));
        }
    }
    let builds = abidoc_knowledge::gpu::torch_variants(torch.public());
    let stated = cx
        .scene
        .version_of("cuda")
        .and_then(abidoc_knowledge::version::Version::parse)
        .map(|c| format!("cu{}{}", c.major(), c.minor()))
        .filter(|l| builds.contains(l));
    stated.or_else(|| default_cuda_variant(torch.public()))
}

/// Torch and a companion installed in one resolve, so pip picks a pair that matches: the
/// general form of alignment when no version can be pinned. With the torch in use known (the
/// environment, or the text), torch is pinned to it and the companion resolved to the release
/// that requires it; else both move to their newest matching pair. `what`/`kind` are the
/// caller's id and rank for it.
pub(crate) fn resolve_with_torch(
    code: Code,
    cx: &Cx<'_>,
    pkg: &Name,
    what: &str,
    kind: FixKind,
) -> Option<Fix> {
    let torch = Name::new("torch")?;
    let kept = cx.torch().and_then(|t| {
        let t = short_torch(&t).to_owned();
        Some((exact("torch", &t)?, t))
    });
    let (req, title, also) = match kept {
        Some((req, t)) => (
            req,
            format!("Install the {pkg} release that requires torch {t}, keeping torch"),
            format!("moves {pkg} to the release pinned to torch {t}"),
        ),
        None => (
            Requirement::Any(torch),
            format!("Install torch and {pkg} in one command so pip picks a matching pair"),
            "may move torch to its newest release".to_owned(),
        ),
    };
    // PyPI's Windows torch and companions are the CPU builds: on Windows the pair comes from
    // PyTorch's index of torch's CUDA (the newest line's default when unknown).
    let mut flags = vec![PipFlag::Upgrade, PipFlag::NoCacheDir];
    let mut note = String::new();
    if cx.scene.mentions_windows && matches!(pkg.as_str(), "torchvision" | "torchaudio") {
        let variant = cx
            .torch()
            .as_deref()
            .and_then(abidoc_knowledge::version::Version::parse)
            .and_then(|v| match v.local_cuda() {
                Some((a, b)) => Some(format!("cu{a}{b}")),
                None => default_cuda_variant(v.public()),
            })
            .or_else(|| {
                abidoc_knowledge::gpu::tables()
                    .torch_builds
                    .last()
                    .and_then(|row| default_cuda_variant(&row.torch))
            });
        if let Some((var, index)) = variant
            .as_deref()
            .and_then(|v| crate::fix::IndexUrl::pytorch(v).map(|i| (v.to_owned(), i)))
        {
            flags.push(PipFlag::IndexUrl(index));
            note = format!(
                " On Windows PyPI serves the CPU builds: both come from PyTorch's {var} index (pick your CUDA's index if it is another)."
            );
        }
    }
    Some(
        Fix::new(
            code,
            what,
            kind,
            title,
            format!(
                "Each {pkg} release is built for one torch release and says so in its requirements; resolved together with torch, pip installs a pair that matches. --no-cache-dir keeps pip from reusing the stale wheel.{note}"
            ),
        )
        .step(pip_install(
            cx,
            flags,
            vec![req, Requirement::Any(pkg.clone())],
        ))
        .cost(Cost {
            downloads: true,
            compiles: None,
            also: vec![also],
        }),
    )
}

/// The project's own prebuilt wheel for this torch, CUDA, C++ ABI and Python, as its setup.py
/// names it (`kb::prebuilt`, the answer `verify --package` gives): the installed release's,
/// unless the release data lists that release's wheels and not for this torch and CUDA; then
/// the nearest release it lists for them. Nothing when the data lists none near.
fn prebuilt_wheel(code: Code, cx: &Cx<'_>, pkg: &Name, torch: &str) -> Option<Fix> {
    use crate::kb::{Fetch, Listing};
    let installed = cx.world.installed_version(pkg.as_str());
    // torch's CUDA from its version.py only when the torch judged is the installed one (the
    // text may state another).
    let cuda = cx
        .world
        .torch_version()
        .is_some_and(|t| t == torch)
        .then(|| cx.world.torch_cuda())
        .flatten();
    let answer = kb::prebuilt(
        pkg.as_str(),
        Some(installed.as_deref().filter(|v| Version::new(v).is_some())?),
        torch,
        cuda.as_deref(),
        cx.world.torch_cxx11_abi(),
        cx.world.python_tag().as_deref(),
    )?;
    let t = short_torch(torch);
    let (wheel, why) = match (&answer.fetch, &answer.listing) {
        (Fetch::Wheel(w), Listing::Listed { source }) => (
            w.clone(),
            format!(
                "Its label names the installed torch, CUDA and C++ ABI; the release data lists {pkg} {} wheels for torch {t} ({source}), not each ABI and Python variant, and the URL cannot be checked offline.",
                answer.version
            ),
        ),
        (Fetch::Wheel(w), Listing::NoData) => (
            w.clone(),
            "Its label names the installed torch, CUDA and C++ ABI; the URL follows the project's release naming and cannot be checked offline.".to_string(),
        ),
        _ => {
            let near = answer.nearest_releases.first()?;
            (
                near.wheel.clone()?,
                format!(
                    "{pkg} {} publishes no wheel for torch {t} in the release data; {} does ({}). Its label names the installed torch, CUDA and C++ ABI; the URL cannot be checked offline.",
                    answer.version, near.version, near.source
                ),
            )
        }
    };
    // The very wheel installed already is the binary that failed: never offered again.
    if cx.world.installed_wheel(pkg.as_str()).as_deref() == Some(wheel.file_name.as_str()) {
        return None;
    }
    let url = WheelUrl::new(&wheel.url)?;
    Some(
        Fix::new(
            code,
            "prebuilt-wheel",
            FixKind::PrebuiltWheel,
            format!("Install the prebuilt wheel {}", wheel.file_name),
            why,
        )
        .step(pip_install(
            cx,
            vec![PipFlag::NoDeps, PipFlag::ForceReinstall],
            vec![Requirement::Wheel(pkg.clone(), url)],
        ))
        .cost(Cost {
            downloads: true,
            ..Cost::default()
        })
        .unverified(),
    )
}

/// Install the torch the binary was built for: the smaller change only when nothing else pins
/// the installed torch; what else moves is said.
pub(crate) fn align_torch(
    code: Code,
    cx: &Cx<'_>,
    pkg: &Name,
    target: &str,
    installed: Option<&str>,
) -> Option<Fix> {
    if installed.is_some_and(|t| same_release_line(t, target)) {
        return None;
    }
    torch_move(
        code,
        cx,
        Some(pkg.as_str()),
        target,
        format!("Install torch {target}, the version {pkg} was built for"),
        "The smaller change only when nothing else depends on the installed torch; other extensions may then need their releases for that torch.",
    )
}

/// Installing torch `target` (its other CUDA major's wheels out first), saying what moves with
/// it; `pkg`, the package it is for, is left out of the dependents named.
fn torch_move(
    code: Code,
    cx: &Cx<'_>,
    pkg: Option<&str>,
    target: &str,
    title: String,
    reason: &str,
) -> Option<Fix> {
    let req = exact("torch", target)?;
    let mut also = with_dependents(
        cx,
        pkg,
        vec![format!("moves torch to {target}")],
        "their matching releases",
    );
    let steps = move_torch_steps(
        cx,
        target,
        pip_install(cx, Vec::new(), vec![req]),
        &mut also,
    );
    Some(
        Fix::new(code, "align-torch", FixKind::AlignTorch, title, reason)
            .steps(steps)
            .cost(Cost {
                downloads: true,
                compiles: None,
                also,
            }),
    )
}

/// A package released as the torch it is built for (torch-xla): with torch known, its release
/// of torch's major.minor; else, with the binary dated by its torch symbols, torch and it of that
/// release in one install; else the same in words.
fn follow_torch(
    code: Code,
    cx: &Cx<'_>,
    pkg: &Name,
    torch: Option<&str>,
    target: Option<&str>,
) -> Vec<Fix> {
    let series = |v: &str| {
        let (major, minor) = abidoc_knowledge::version::Version::parse(v)?.major_minor();
        Some((u32::try_from(major).ok()?, u32::try_from(minor).ok()?))
    };
    let mut fixes = Vec::new();
    if let Some(t) = torch
        && let Some((major, minor)) = series(t)
    {
        fixes.push(
            Fix::new(
                code,
                "companion-release",
                FixKind::AlignCompanion,
                format!("Install {pkg} {major}.{minor}, the release for torch {t}"),
                format!("{pkg}'s releases are numbered as the torch they are built for; its {major}.{minor} release loads with torch {major}.{minor}."),
            )
            .step(pip_install(
                cx,
                vec![PipFlag::NoCacheDir],
                vec![Requirement::Series(pkg.clone(), major, minor)],
            ))
            .cost(Cost::download()),
        );
    }
    if let Some(target) = target.filter(|tg| torch.is_none_or(|t| !same_release_line(t, tg)))
        && let (Some(req), Some((major, minor))) = (exact("torch", target), series(target))
    {
        // Moved like any torch move: the other CUDA major's wheels out first, and the packages
        // that require torch named.
        let mut also = with_dependents(
            cx,
            Some(pkg.as_str()),
            vec![format!("moves torch to {target}")],
            "their matching releases",
        );
        let install = pip_install(
            cx,
            vec![PipFlag::NoCacheDir],
            vec![req, Requirement::Series(pkg.clone(), major, minor)],
        );
        let steps = move_torch_steps(cx, target, install, &mut also);
        fixes.push(
            Fix::new(
                code,
                "align-torch",
                FixKind::AlignTorch,
                format!("Install torch {target} with {pkg} {major}.{minor}, the release its torch symbols fit"),
                format!("The offline index of torch's exports dates {pkg}'s binary to torch {target}; {pkg}'s releases are numbered as the torch they are built for, so both are installed at that release."),
            )
            .steps(steps)
            .cost(Cost {
                downloads: true,
                compiles: None,
                also,
            })
            .unverified(),
        );
    }
    if fixes.is_empty() {
        fixes.push(
            Fix::in_words(
                code,
                "same-release",
                format!("Install torch and {pkg} of the same release"),
                format!("{pkg}'s releases are numbered as the torch they are built for (its 2.7 release for torch 2.7)."),
                format!(
                    "pip show torch for its version X.Y, then pip install \"{pkg}==X.Y.*\""
                ),
            )
            .filled_in_with("the installed torch's major.minor"),
        );
    }
    fixes
}

/// The Triton release the installed torch pins (its `Requires-Dist`), alone: `why` says what the
/// other Triton breaks.
pub(crate) fn triton_for_torch(code: Code, cx: &Cx<'_>, why: &str) -> Fix {
    triton_pinned(code, cx, why).unwrap_or_else(|| {
        let name = triton_name(cx).unwrap_or_else(|| "triton".to_owned());
        Fix::new(
            code,
            "triton-torch-pins",
            FixKind::AlignCompanion,
            "Install the Triton release the installed torch requires, and only that one",
            format!("torch pins the Triton it was built and tested with (`pip show torch` lists it); {why}"),
        )
        .step(Step::Manual(format!(
            "pip show torch (its Requires line names triton==X), pip uninstall -y pytorch-triton if present, then pip install --force-reinstall --no-deps {name}==X"
        )))
        .filled_in_with("the triton version torch requires")
    })
}

/// PyPI's `triton` has Linux wheels only; on Windows its port publishes one release line per
/// torch minor (`triton-windows==3.2.*` for torch 2.6), as its README tells.
fn triton_name(cx: &Cx<'_>) -> Option<String> {
    if cx.scene.mentions_windows {
        kb::windows_port("triton")
    } else {
        Some("triton".to_owned())
    }
}

/// The Triton torch requires as a command, where torch's version is known and the release
/// tables name its Triton (exact on Linux, the release line on Windows).
pub(crate) fn triton_pinned(code: Code, cx: &Cx<'_>, why: &str) -> Option<Fix> {
    let windows = cx.scene.mentions_windows;
    let name = Name::new(&triton_name(cx)?)?;
    let torch = cx.torch()?;
    let (major, minor, exact) = abidoc_knowledge::releases::triton_for_torch(&torch)?;
    let (major, minor) = (u32::try_from(major).ok()?, u32::try_from(minor).ok()?);
    let req = match exact.filter(|_| !windows).and_then(Version::new) {
        Some(v) => Requirement::Exact(name.clone(), v),
        None => Requirement::Series(name.clone(), major, minor),
    };
    let line = format!("{major}.{minor}");
    Some(
        Fix::new(
            code,
            "triton-torch-pins",
            FixKind::AlignCompanion,
            format!("Install {name} {line}, the Triton torch {torch} requires"),
            format!("torch {torch} requires Triton {line} (its Requires-Dist, from the release tables); {why}"),
        )
        .step(pip_install(
            cx,
            vec![PipFlag::ForceReinstall, PipFlag::NoDeps],
            vec![req],
        )),
    )
}

/// [`align_torch`] for a binary no text or table names: the torch its symbols date it to,
/// unless the torch in use is of that release line already.
fn align_torch_unnamed(code: Code, cx: &Cx<'_>, target: &str) -> Option<Fix> {
    if cx.torch().is_some_and(|t| same_release_line(&t, target)) {
        return None;
    }
    torch_move(
        code,
        cx,
        None,
        target,
        format!("Install torch {target}, the newest release the failing binary's torch symbols fit"),
        "The offline index of every torch release's exports dates the binary by the torch symbols it asks for; that torch loads it. Only where nothing else needs the installed torch: other extensions may then need their releases for it.",
    )
    .map(Fix::unverified)
}

/// A source build against the installed torch that really compiles: the package's force-build
/// switch when it has one, else `--no-binary`, with `--no-build-isolation` so the build sees
/// this torch. SSM kernel partners are built first (mamba-ssm imports causal-conv1d).
pub(crate) fn source_build(code: Code, cx: &Cx<'_>, pkg: &Name, partners: &[Name]) -> Option<Fix> {
    // Built from a project's checkout only: the build is run there, never installed by name.
    if kb::checkout_only(pkg.as_str()) {
        // Its own command where the table has one (a Cython module built in place); otherwise
        // the directory's setup.py through pip.
        let own = abidoc_knowledge::packages::package(pkg.as_str())
            .and_then(|p| p.build.checkout_command.clone());
        let torch = kb::links_torch(pkg.as_str()) != Some(false);
        return Some(
            Fix::new(
                code,
                "source-build",
                FixKind::SourceBuild,
                format!("Build {pkg} again from the project checkout it comes from"),
                if torch {
                    "It is not installed from PyPI: the project that needs it builds it from a directory of its own checkout, against the torch in this environment (--no-build-isolation). Remove that directory's build/ and any stale *.so first, so the new build replaces the old one."
                } else {
                    "It is not installed from PyPI: the project builds it in its own checkout, where its code imports it, with the commands below."
                },
            )
            .step(Step::Manual(own.unwrap_or_else(|| format!(
                "cd <the checkout's {pkg} directory> && rm -rf build && python -m pip install --no-build-isolation --no-cache-dir ."
            ))))
            .cost(Cost {
                downloads: false,
                compiles: Some(Compile {
                    minutes: kb::package(pkg.as_str())
                        .and_then(|f| f.build_minutes)
                        .unwrap_or(if torch { 10 } else { 1 }),
                    needs: if torch {
                        vec!["nvcc", "ninja", "a C++ compiler"]
                    } else {
                        vec!["a C compiler"]
                    },
                }),
                also: Vec::new(),
            }),
        );
    }
    // No source distribution on PyPI and no other target to build: `--no-binary` would only
    // make pip fail, and the project's own build (Bazel, a CMake checkout) is no fix to type.
    // What replaces a build for this environment is its published wheel, fetched whole again
    // (a mixed or half-written install of torch, Paddle's core missing its own symbols).
    if kb::wheels_only(pkg.as_str()) {
        return Some(reinstall_same_release(
            code,
            cx,
            pkg,
            format!("Reinstall {pkg}'s wheel whole (PyPI has no source of it to build)"),
            format!(
                "{pkg} is published as wheels only; a fresh copy of the same release's wheel for this Python and platform, never the cached one, replaces files a mixed or interrupted install left behind."
            ),
        ));
    }
    let mut names: Vec<Name> = partners
        .iter()
        .filter(|p| kb::package(p.as_str()).is_some_and(|f| f.ssm_kernels))
        .cloned()
        .collect();
    names.push(pkg.clone());
    // A package the tables know does not compile against torch (ONNX Runtime, bitsandbytes,
    // pyarrow) builds in pip's isolated environment, which holds its declared build
    // requirements (Cython, CMake): `--no-build-isolation` would take those away and gain
    // nothing, and MAX_JOBS is torch's cpp_extension's switch.
    let against_torch = kb::links_torch(pkg.as_str()) != Some(false);
    let mut steps = Vec::new();
    let mut flags = vec![
        PipFlag::NoCacheDir,
        PipFlag::ForceReinstall,
        PipFlag::NoDeps,
    ];
    if against_torch {
        flags.insert(0, PipFlag::NoBuildIsolation);
    }
    let mut minutes = 0;
    let mut reqs = Vec::new();
    for n in &names {
        let facts = kb::package(n.as_str());
        // Only a package's own force-build switch stops its setup from fetching a prebuilt
        // wheel; other required switches (FORCE_CUDA) choose what a compile builds.
        let forced = facts.as_ref().is_some_and(|f| {
            f.force_build_env
                .iter()
                .any(|(k, v)| k.ends_with("FORCE_BUILD") && v == "TRUE")
        });
        for (k, v) in facts.iter().flat_map(|f| f.force_build_env.iter()) {
            if let Some(s) = set_env(k, v)
                && !steps.contains(&s)
            {
                steps.push(s);
            }
        }
        // Built from its repository when the knowledge says so: PyPI's `apex` is another
        // project, and some packages publish no sdist.
        let vcs = facts
            .as_ref()
            .and_then(|f| f.install_target.as_deref())
            .and_then(crate::fix::VcsUrl::new);
        if !forced && vcs.is_none() {
            flags.push(PipFlag::NoBinary(n.clone()));
        }
        minutes += facts.as_ref().and_then(|f| f.build_minutes).unwrap_or(10);
        if let Some(url) = vcs {
            reqs.push(Requirement::Vcs(n.clone(), url));
            continue;
        }
        reqs.push(
            match cx.world.installed_version(n.as_str()).map(|v| {
                let v = short_torch(&v).to_owned();
                exact(n.as_str(), &v)
            }) {
                Some(Some(r)) => r,
                _ => Requirement::Any(n.clone()),
            },
        );
    }
    if against_torch && let Some(s) = set_env("MAX_JOBS", "4") {
        steps.push(s);
    }
    steps.push(pip_install(cx, flags, reqs));
    let list: Vec<&str> = names.iter().map(Name::as_str).collect();
    let (title, why, needs) = if against_torch {
        (
            format!(
                "Build {} from source against the installed torch",
                list.join(" and ")
            ),
            "Compiles against the torch in this environment (--no-build-isolation), never a cached or prebuilt binary; needs nvcc matching torch's CUDA, ninja, and about 4 GB of memory per job (MAX_JOBS=4).",
            vec!["nvcc", "ninja", "a C++ compiler"],
        )
    } else {
        (
            format!(
                "Build {} from source for this environment",
                list.join(" and ")
            ),
            "Compiles it here (--no-binary), never a cached or prebuilt binary, with the build requirements it declares; needs a C/C++ compiler (and the CUDA toolkit for a GPU part).",
            vec!["a C++ compiler"],
        )
    };
    let fix = Fix::new(code, "source-build", FixKind::SourceBuild, title, why)
        .steps(steps)
        .cost(Cost {
            downloads: true,
            compiles: Some(Compile { minutes, needs }),
            also: Vec::new(),
        });
    Some(
        if against_torch && cx.world.cuda_compiler_found() == Some(false) {
            fix.blocked_by(
            "no CUDA compiler (nvcc) was found (CUDA_HOME, PATH, /usr/local/cuda*, this environment): install the CUDA toolkit of torch's CUDA first",
        )
        } else {
            fix
        },
    )
}

/// torch built for one CUDA variant (`cu121`) from PyTorch's index: release `torch` when known
/// (`torch==2.3.1+cu121`), else the newest on that index. torchvision and torchaudio, when
/// installed or named in the text, move with it in their releases for the same build: they are
/// built per CUDA too, and a pair from different indexes loses its GPU operators.
pub(crate) fn torch_build_step(cx: &Cx<'_>, torch: Option<&str>, variant: &str) -> Option<Step> {
    let index = crate::fix::IndexUrl::pytorch(variant)?;
    let mut reqs = Vec::new();
    match torch.map(short_torch) {
        Some(t) => {
            reqs.push(exact("torch", &format!("{t}+{variant}"))?);
            for (pkg, companion) in [
                ("torchvision", abidoc_knowledge::torchvision_for_torch(t)),
                ("torchaudio", abidoc_knowledge::torchaudio_for_torch(t)),
            ] {
                if present(cx, pkg)
                    && let Some(r) = companion.and_then(|cv| exact(pkg, &format!("{cv}+{variant}")))
                {
                    reqs.push(r);
                }
            }
        }
        None => {
            reqs.push(Requirement::Any(Name::new("torch")?));
            for pkg in ["torchvision", "torchaudio"] {
                if present(cx, pkg) {
                    reqs.extend(Name::new(pkg).map(Requirement::Any));
                }
            }
        }
    }
    Some(pip_install(
        cx,
        vec![PipFlag::ForceReinstall, PipFlag::IndexUrl(index)],
        reqs,
    ))
}

/// Installed, or named with a version in the text.
fn present(cx: &Cx<'_>, pkg: &str) -> bool {
    cx.world.installed_version(pkg).is_some() || cx.scene.version_of(pkg).is_some()
}

/// The installed torch's CUDA wheels (`nvidia-cudnn-cu13`) when a fix moves torch to a release
/// of another CUDA major: that release's wheels (`nvidia-cudnn-cu12`) unpack into the same
/// directories (`nvidia/cudnn/lib`), and a file only the old one shipped would stay beside the
/// new ones, built against another cuDNN. Only those nothing but torch requires, removed first.
fn other_major_cuda_wheels(cx: &Cx<'_>, target: &str) -> Vec<Name> {
    use abidoc_knowledge::version::Version as V;
    let Some(installed) = cx.world.torch_version() else {
        return Vec::new();
    };
    let have = V::parse(&installed)
        .and_then(|v| v.local_cuda())
        .map(|(m, _)| m)
        .or_else(|| abidoc_knowledge::releases::torch_cuda_major(short_torch(&installed)));
    let want = abidoc_knowledge::releases::torch_cuda_major(short_torch(target));
    let (Some(have), Some(want)) = (have, want) else {
        return Vec::new();
    };
    if have == want {
        return Vec::new();
    }
    let suffix = format!("-cu{have}");
    cx.world
        .requirements_of("torch")
        .into_iter()
        .filter(|n| n.starts_with("nvidia-") && n.ends_with(&suffix))
        .filter(|n| cx.world.installed_version(n).is_some())
        .filter(|n| cx.world.required_by(n).iter().all(|d| d == "torch"))
        .filter_map(|n| Name::new(&n))
        .collect()
}

/// The steps that move torch: the other CUDA major's wheels out first (above), then the install;
/// and what that removal says in the fix's cost.
fn move_torch_steps(cx: &Cx<'_>, target: &str, install: Step, also: &mut Vec<String>) -> Vec<Step> {
    let old = other_major_cuda_wheels(cx, target);
    let mut steps = Vec::new();
    if !old.is_empty() {
        also.push(format!(
            "removes {} first (the installed torch's CUDA wheels, which share directories with torch {target}'s)",
            old.iter().map(Name::as_str).collect::<Vec<_>>().join(", ")
        ));
        steps.push(pip_uninstall(cx, old));
    }
    steps.push(install);
    steps
}

/// `pkg` installed again from a wheel only (`--only-binary`, never the cache, `--no-deps` unless
/// its dependencies may move too): pip takes the newest release with a wheel this interpreter and
/// platform accept, and never compiles in its place.
pub(crate) fn wheel_again(cx: &Cx<'_>, pkg: &Name, no_deps: bool) -> Step {
    let mut flags = vec![PipFlag::ForceReinstall, PipFlag::NoCacheDir];
    if no_deps {
        flags.push(PipFlag::NoDeps);
    }
    flags.push(PipFlag::OnlyBinary(pkg.clone()));
    pip_install(cx, flags, vec![Requirement::Any(pkg.clone())])
}

/// The same release of `pkg` installed again, whole and never from pip's cache (`id`
/// `reinstall-wheel`): pinned to the installed or stated version, since an unpinned reinstall
/// would move it to the newest; with neither known, the command with the version to fill in.
pub(crate) fn reinstall_same_release(
    code: Code,
    cx: &Cx<'_>,
    pkg: &Name,
    title: String,
    why: String,
) -> Fix {
    let req = cx
        .package_version(pkg.as_str())
        .and_then(|v| exact(pkg.as_str(), &v));
    let fix = Fix::new(code, "reinstall-wheel", FixKind::PrebuiltWheel, title, why).cost(Cost {
        downloads: true,
        ..Cost::default()
    });
    match req {
        Some(req) => fix.step(pip_install(
            cx,
            vec![PipFlag::ForceReinstall, PipFlag::NoCacheDir, PipFlag::NoDeps],
            vec![req],
        )),
        None => fix
            .step(Step::Manual(format!(
                "python -m pip install --force-reinstall --no-cache-dir --no-deps {pkg}==<the installed version, as `pip show {pkg}` prints it>"
            )))
            .filled_in_with(format!("the installed {pkg} version")),
    }
}

/// The newest release of `pkg` that pins a torch, with that torch, when that torch is older than
/// `torch` (a companion whose releases stopped, as torchaudio's did at 2.11): no release fits
/// the installed torch, and the newest pair is the smallest move that does.
pub(crate) fn newest_pair(code: Code, cx: &Cx<'_>, pkg: &Name, torch: &str) -> Option<Fix> {
    use abidoc_knowledge::version::Version as V;
    let installed = V::parse(short_torch(torch))?;
    let (release, pinned) = newest_with_torch(pkg)?;
    if pinned >= installed || same_release_line(pinned.public(), installed.public()) {
        return None;
    }
    pair_fix(code, cx, pkg, release, &pinned, Some(torch), None)
}

/// The newest pair when the installed torch is unknown (the text alone states none) but a
/// library of CUDA `cuda_major` is missing: a pip torch brings its own CUDA major's libraries as
/// dependencies, so a pair whose torch is built for that major both aligns the package and
/// brings the library. The package's newest release whose torch's PyPI wheels are of that
/// major (and whose own wheels, where the tables say, are too): a pair of another major would
/// not bring the library, and is not offered.
pub(crate) fn newest_pair_for_cuda(
    code: Code,
    cx: &Cx<'_>,
    pkg: &Name,
    cuda_major: u32,
) -> Option<Fix> {
    let major = u64::from(cuda_major);
    let (release, pinned) = abidoc_knowledge::releases::releases(pkg.as_str())
        .into_iter()
        .filter(|r| r.wheels && r.cuda_major.is_none_or(|m| m == major))
        .filter_map(|r| Some((r, torch_of_release(pkg, r)?)))
        .find(|(_, t)| abidoc_knowledge::releases::torch_cuda_major(t.public()) == Some(major))?;
    pair_fix(code, cx, pkg, release, &pinned, None, Some(cuda_major)).map(Fix::unverified)
}

/// The package's newest release with a wheel, and the torch release it is built for (see
/// [`torch_of_release`]).
fn newest_with_torch(
    pkg: &Name,
) -> Option<(
    &'static abidoc_knowledge::releases::Release,
    abidoc_knowledge::version::Version,
)> {
    // A newest release that names no torch is not a pair (it may follow torch).
    let release = newest_wheel_release(pkg.as_str())?;
    Some((release, torch_of_release(pkg, release)?))
}

/// The torch release one release of `pkg` is built for: its pin (PyPI metadata, the torch
/// table), else the hand-written release row naming one torch line (its newest patch release
/// the torch index knows).
fn torch_of_release(
    pkg: &Name,
    release: &abidoc_knowledge::releases::Release,
) -> Option<abidoc_knowledge::version::Version> {
    use abidoc_knowledge::version::Version as V;
    if let Some(t) = abidoc_knowledge::compat::torch_for_companion(pkg.as_str(), &release.version) {
        return V::parse(t);
    }
    // A hand-written row naming one torch line, else the lower bound of the release's own
    // torch requirement (`torch>=2.3.0`: a release is built against the torch its floor
    // names, as torchtext 0.18.0 was against 2.3).
    let row = abidoc_knowledge::compat::releases(pkg.as_str())
        .into_iter()
        .find(|r| r.version == release.version);
    let line = match row {
        Some(row) => match row.torch.as_slice() {
            [line] => line.clone(),
            _ => return None,
        },
        // A wheel tagged for no Python ABI (`py3-none`, `py39-none`) that links torch is built on torch's stable
        // ABI, against a newer torch than its floor (torchaudio 2.11.1: `torch>=2.11`, built
        // with 2.15, and refused by 2.11.0's libraries): its floor names no build torch.
        None if release.abi_free() => {
            return None;
        }
        // A package whose compiled code does not link torch (bitsandbytes loads its libraries
        // with ctypes) is built for a CUDA, not a torch: its floor is an API minimum.
        None if kb::links_torch(pkg.as_str()) == Some(false) => return None,
        None => abidoc_knowledge::releases::spec_floor(release.torch_spec.as_deref()?)?
            .major_minor_string(),
    };
    abidoc_knowledge::torch_index::releases()
        .iter()
        .filter_map(|r| V::parse(&r.version))
        .filter(|v| v.major_minor_string() == line)
        .max()
}

fn pair_fix(
    code: Code,
    cx: &Cx<'_>,
    pkg: &Name,
    release: &abidoc_knowledge::releases::Release,
    pinned: &abidoc_knowledge::version::Version,
    torch: Option<&str>,
    cuda_major: Option<u32>,
) -> Option<Fix> {
    let t = pinned.public().to_owned();
    // The release already installed stays: reinstalling it would bring back the same binary.
    let keep = cx
        .world
        .installed_version(pkg.as_str())
        .is_some_and(|v| v == release.version);
    let mut reqs = vec![exact("torch", &t)?];
    if !keep {
        reqs.push(exact(pkg.as_str(), &release.version)?);
    }
    let moves = match torch {
        Some(installed) => format!("moves torch from {} to {t}", short_torch(installed)),
        None => format!("installs torch {t}"),
    };
    let mut also = with_dependents(
        cx,
        Some(pkg.as_str()),
        vec![moves],
        &format!("their releases for {t}"),
    );
    let steps = move_torch_steps(
        cx,
        &t,
        pip_install(cx, vec![PipFlag::NoCacheDir], reqs),
        &mut also,
    );
    let why_none = match (torch, cuda_major) {
        (Some(installed), _) => format!(
            "no {pkg} release is built for torch {}",
            short_torch(installed)
        ),
        (None, Some(m)) => format!("its CUDA {m} libraries come with that torch"),
        (None, None) => format!("{pkg}'s newest release is built for it"),
    };
    let pair = match cuda_major {
        Some(m) if torch.is_none() => format!("the newest pair of CUDA {m}"),
        _ => "the newest pair".to_owned(),
    };
    let title = if keep {
        format!(
            "Install torch {t}, the torch {pkg} {} is built for ({why_none})",
            release.version
        )
    } else {
        format!(
            "Install torch {t} with {pkg} {}, {pair} ({why_none})",
            release.version
        )
    };
    let reason = match cuda_major {
        Some(m) if torch.is_none() => format!(
            "{pkg} {} is its newest release built for torch {t}, whose PyPI wheels bring CUDA {m}'s libraries (its requirements or its release notes say so): installed together, the package and the runtime it was built for load.",
            release.version
        ),
        _ => format!(
            "{pkg}'s newest release, {}, is built for torch {t} (its requirements or its release notes say so); nothing newer exists, so the pair is what loads, installed together with that torch's CUDA libraries.",
            release.version
        ),
    };
    Some(
        Fix::new(code, "newest-pair", FixKind::AlignTorch, title, reason)
            .steps(steps)
            .cost(Cost {
                downloads: true,
                compiles: None,
                also,
            }),
    )
}

/// The newest release of `pkg`, when the installed torch is the newest release line abidoc's
/// torch index knows and no table says which release it is built for: the package's newest
/// release is the one made with it in view. Marked unverified.
pub(crate) fn newest_release(code: Code, cx: &Cx<'_>, pkg: &Name, torch: &str) -> Option<Fix> {
    use abidoc_knowledge::version::Version as V;
    let newest_torch = abidoc_knowledge::torch_index::releases().last()?;
    // A package that pins torch moves torch with it: the pair recipes say that.
    if !same_release_line(&newest_torch.version, torch) || kb::pins_torch(pkg.as_str()) {
        return None;
    }
    // Only when PyPI's newest (from the release tables) is newer than what is installed: an
    // upgrade to the same release would do nothing.
    let release = newest_wheel_release(pkg.as_str())?;
    let newest = (V::parse(&release.version)?, release.version.as_str());
    if let Some(installed) = cx
        .world
        .installed_version(pkg.as_str())
        .as_deref()
        .and_then(V::parse)
        && installed >= newest.0
    {
        return None;
    }
    let t = short_torch(torch);
    let mut reqs = vec![Requirement::Any(pkg.clone())];
    // A newest release built for another CUDA major than torch's needs that CUDA's runtime
    // beside torch's own (their sonames differ: libcudart.so.12 and .13 coexist).
    let torch_cuda = V::parse(torch)
        .and_then(|v| v.local_cuda())
        .map(|(m, _)| m)
        .or_else(|| abidoc_knowledge::releases::torch_cuda_major(t));
    let runtime = abidoc_knowledge::compat::wheel_cuda_major(pkg.as_str(), newest.1)
        .filter(|m| torch_cuda.is_some_and(|tc| tc != *m));
    if let Some(m) = runtime {
        reqs.extend(Name::new(&format!("nvidia-cuda-runtime-cu{m}")).map(Requirement::Any));
    }
    let extra = runtime
        .map(|m| {
            format!(
                " Its release {} is built for CUDA {m} (torch's is {}): the CUDA {m} runtime from PyPI goes beside torch's.",
                newest.1,
                torch_cuda.map_or_else(|| "another".to_owned(), |c| c.to_string())
            )
        })
        .unwrap_or_default();
    Some(
        Fix::new(
            code,
            "newest-release",
            FixKind::AlignCompanion,
            format!("Install the newest {pkg}, released for current torch (the installed {t})"),
            format!(
                "torch {t} is the newest release abidoc's tables know, and no table says which {pkg} release is built for it; {pkg}'s newest release is the one made with it in view. --no-cache-dir keeps pip from reusing the stale wheel.{extra}"
            ),
        )
        .step(pip_install(cx, vec![PipFlag::Upgrade, PipFlag::NoCacheDir], reqs))
        .cost(Cost {
            downloads: true,
            ..Cost::default()
        })
        .unverified(),
    )
}

/// A native Python in place of one that runs emulated (an x86_64 interpreter on Apple Silicon,
/// under Rosetta): the environment made again with it, since every compiled file in it was
/// installed for the emulated architecture. `why`, a sentence, says what showed the emulation.
pub(crate) fn native_python(code: Code, why: &str) -> Fix {
    Fix::new(
        code,
        "native-python",
        FixKind::InstallMissing,
        "Use a native arm64 Python and make the environment again with it",
        format!(
            "{why} Install an arm64 Python (python.org's universal2 installer, Miniforge's arm64 installer, `uv python install`, or Homebrew under /opt/homebrew), check it with `python -c \"import platform; print(platform.machine())\"` (arm64), and create the environment and install the packages again with it. A terminal set to open using Rosetta runs every Python in it as x86_64."
        ),
    )
    .step(Step::Manual(
        "install an arm64 Python, check `python -c \"import platform; print(platform.machine())\"` prints arm64, then recreate the environment with it".into(),
    ))
}
