//! `no-matching-distribution`: pip's (or uv's) resolver finds no release of a requirement that
//! installs on this Python and platform (`Could not find a version that satisfies the
//! requirement torch==1.13.1 (from versions: 2.0.0, …)`, `No matching distribution found for X`,
//! uv's `Because there is no version of X==1.2`).
//!
//! The versions pip lists are the ones with a file this interpreter accepts: a pin missing from
//! them was published for other Pythons or platforms only (a release older than the Python, a
//! Windows or ARM machine a project builds no wheels for), or on another index (PyTorch's
//! `+cuXYZ` builds). The diagnosis says which from the list, the Python the text shows and the
//! release table's newest Python per release, and fixes with the nearest release pip has, the
//! index that serves the build, or a Python the pinned release has wheels for.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, FixKind, IndexUrl, Name, PipFlag};
use abidoc_knowledge::Version;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "pip finds no release of a requirement for this Python and platform (`Could not find a version that satisfies the requirement`, `No matching distribution found`).",
    meaning: "pip lists, after `from versions:`, the releases that have a file this interpreter accepts. A pinned release missing from that list was published only for other Python versions or platforms (a release older than this Python, as `torch==1.13.1` under Python 3.12; a package with no Windows or ARM wheels) or lives on another index (`torch==2.1.0+cu118` is on PyTorch's index, not PyPI). An empty list (`none`) means no release at all installs here. The diagnosis compares the pin with the list, the Python the text shows, and, for the packages of the release tables, the newest Python each release has wheels for. Poetry says it as `Unable to find installation candidates for torch (2.5.1+cu124)`: the locked build is on no source pyproject.toml declares (or has no file for this Python or platform). conda's solver says it its own way: `UnsatisfiableError: … incompatible with the existing python installation`, each release listed as `tensorflow==1.13.1 -> python[version='>=3.7,<3.8.0a0']`, whose newest range is the Python to run that release under.",
    fixes: "0. A torch-family release missing from the PyTorch index the text shows (`Looking in indexes: https://download.pytorch.org/whl/cu12.6`): a label written with a dot, or one the release was never built for (compare `gpu.toml [[torch_builds]]`): the release, and the companions the text names at their releases for it, from the index of the label meant, else of the newest build whose CUDA is not above it. 1. A `+cuXYZ` torch build: the same pin from PyTorch's index for that build (`--index-url https://download.pytorch.org/whl/cuXYZ`). 2. The nearest release pip lists at or after the pin (torch moves its companions with it). 3. A Python the pinned release has wheels for (a virtual environment of that version): advice, since the interpreter is the user's choice. Under Poetry, PyTorch's index declared as an explicit source and named in torch's dependency comes first (pip's flags do not reach it). A package's setup refusing this Python (numba's and llvmlite's `Cannot install on Python version 3.13.0; only versions >=3.9,<3.13 are supported.`): its newest release as a wheel (--only-binary; --pre when only a pre-release supports it), else a Python in the range.",
    ..CodeDoc::BASE
};

/// Packages with a release for every Python and platform pip runs on: build tools and pure
/// Python.
const EVERYWHERE: &[&str] = &[
    "setuptools", "wheel", "pip", "packaging", "setuptools-scm", "pybind11", "ninja", "cmake",
    "scikit-build", "scikit-build-core", "hatchling", "flit-core", "poetry-core", "cython",
    "six", "requests", "typing-extensions", "tqdm", "pyyaml",
];

/// The name and pinned version of a requirement as pip prints it (`torch==1.13.1`,
/// `nvidia-cuda-runtime-cu11==11.7.99`, `triton`).
fn split_requirement(req: &str) -> (&str, Option<&str>) {
    let end = req
        .find(['=', '<', '>', '!', '~', '[', ' ', '@'])
        .unwrap_or(req.len());
    let name = &req[..end];
    let pin = req[end..]
        .strip_prefix("==")
        .map(|v| v.trim_start_matches('='))
        .filter(|v| !v.is_empty() && !v.contains('*'));
    (name, pin)
}

/// The CPython version of a wheel file name's Python tag (`…-cp311-cp311-…whl` → 3.11).
fn wheel_python(wheel: &str) -> Option<(u32, u32)> {
    let (_, _, (py, _, _)) = abidoc_env::wheel::parse_file_name(wheel)?;
    let v = super::wheel_tags_mismatch::cpython_of(&py)?;
    let (a, b) = v.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    requirement: &str,
    available: Option<&[String]>,
) -> Diagnostic {
    let code = Code::NoMatchingDistribution;
    let mut d = blank(code, source);
    let (raw_name, pin) = split_requirement(requirement);
    let name = crate::kb::normalize(raw_name);
    d.package = Some(name.clone());
    let here = here(cx, python_of(cx));
    // The plain releases pip listed (local builds such as `2.2.0+cu121` stand beside their
    // release), oldest first as pip prints them.
    let listed: Vec<(Version, &str)> = available
        .unwrap_or(&[])
        .iter()
        .filter(|v| !v.contains('+'))
        .filter_map(|v| Version::parse(v).map(|p| (p, v.as_str())))
        .collect();
    // A local build label (`+cu118`) is an index's, not a release's: the release is the rest.
    let (base, local) = match pin.and_then(|p| p.split_once('+')) {
        Some((b, l)) => (Some(b), Some(l)),
        None => (pin, None),
    };
    let pinned = base.and_then(Version::parse);
    // The newest Python the pinned release has wheels for, where the release tables know it.
    // The release data's wheel, else what the installer said of the release (conda's
    // `python[version='>=3.7,<3.8.0a0|…']`).
    let newest_python = base
        .and_then(|b| abidoc_knowledge::releases::release(&name, b))
        .and_then(|r| r.wheel.as_deref())
        .and_then(wheel_python)
        .or_else(|| {
            let (a, b) = cx.scene.version_of("release-newest-python")?.split_once('.')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        });
    let nearest_after = pinned.as_ref().and_then(|p| {
        listed
            .iter()
            .filter(|(v, _)| v >= p)
            .min_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, s)| *s)
    });
    let all_newer = pinned
        .as_ref()
        .is_some_and(|p| !listed.is_empty() && listed.iter().all(|(v, _)| v > p));
    let all_older = pinned
        .as_ref()
        .is_some_and(|p| !listed.is_empty() && listed.iter().all(|(v, _)| v < p));
    // The release itself installs here (pip lists it): only the build's index is missing.
    let release_listed = pinned
        .as_ref()
        .is_some_and(|p| listed.iter().any(|(v, _)| v == p));
    let torch_family = matches!(name.as_str(), "torch" | "torchvision" | "torchaudio");
    // Packages published for every Python and platform (pure Python, or wheels everywhere):
    // none listed means pip reached no index that has them (offline, a proxy, an --index-url
    // or a mirror without them), inside a build's isolated environment as often as not.
    let unreachable = available.is_some_and(<[String]>::is_empty) && EVERYWHERE.contains(&name.as_str());
    if unreachable {
        return index_unreachable(cx, d, &name);
    }
    let installer = if cx.scene.used_poetry {
        "Poetry"
    } else if cx.scene.used_conda_solver {
        "conda"
    } else if cx.scene.used_uv {
        "uv"
    } else {
        "pip"
    };
    // PyTorch builds no CUDA (or ROCm) torch for macOS: its default build from PyPI is the one.
    let no_such_build = cx.scene.mentions_macos
        && !cx.scene.mentions_windows
        && torch_family
        && local.is_some_and(|l| l.starts_with("cu") || l.starts_with("rocm"));
    let searched_index = cx.scene.pytorch_index_used;
    d.message = match (pin, available) {
        (Some(p), _) if no_such_build => format!(
            "{installer} found no {name} {p} for macOS: PyTorch publishes no +{} builds for macOS, only its default build on PyPI (CPU and Apple's MPS)",
            local.unwrap_or_default()
        ),
        (Some(p), _) if local.is_some() && torch_family && !all_newer && searched_index => format!(
            "{installer} found no {name} {p} for {here} on PyTorch's own index, where it looked: that build has no file for this Python or platform"
        ),
        (Some(p), _) if local.is_some() && torch_family && !all_newer => format!(
            "{installer} found no {name} {p} to install: the +{} builds are published on PyTorch's own index, which this install did not use{}",
            local.unwrap_or_default(),
            if release_listed { "" } else { " (or this Python has no wheel of that release)" }
        ),
        (_, Some([])) => format!(
            "pip found no release of {name} at all for {here}: it publishes no file this interpreter accepts (wheels for other Pythons or platforms only, or it lives on another index)"
        ),
        (Some(p), Some(_)) if all_newer => format!(
            "{name} {p} has no release for {here}: every {name} pip can install here is newer, so {} predates this Python (or platform)",
            base.unwrap_or(p)
        ),
        (Some(p), Some(_)) if all_older => format!(
            "{name} {p} has no release for {here}: every {name} pip can install here is older, so {p} needs another Python (or platform)"
        ),
        (Some(p), _) => format!(
            "{installer} found no {name} {p} for {here}: that release has no file this interpreter accepts"
        ),
        (None, _) => format!("{installer} found no release of {name} that installs on {here}"),
    };
    if let Some(list) = available.filter(|l| !l.is_empty()) {
        let shown: Vec<&str> = list.iter().take(3).map(String::as_str).collect();
        let last = list.last().map(String::as_str).unwrap_or_default();
        d.evidence.push(format!(
            "pip lists {} release(s) for this interpreter: {}{}",
            list.len(),
            shown.join(", "),
            if list.len() > 3 { format!(" … {last}") } else { String::new() }
        ));
    }
    if let (Some(b), Some((a, m))) = (base, newest_python) {
        d.evidence.push(format!(
            "{name} {b}'s newest wheels are for Python {a}.{m} (release tables)"
        ));
    }
    // Where the index already failed, or the platform has no such build, it is no fix.
    let index = local
        .filter(|_| torch_family && !searched_index && !no_such_build)
        .and_then(IndexUrl::pytorch);
    let mut fixes = Vec::new();
    // The PyTorch index the install looked in has no build of this release: its label is
    // mistyped (`cu12.6` for `cu126`, a driver's CUDA written as a build) or names a CUDA this
    // release was never built for (torch 2.4 has cu118, cu121 and cu124).
    // Not when this Python has no wheel of the release anywhere: every version the index
    // lists for it is newer (local builds counted), or the release tables end below it.
    let every_listed_newer = pinned.as_ref().is_some_and(|p| {
        let all: Vec<Version> = available
            .unwrap_or(&[])
            .iter()
            .filter_map(|v| Version::parse(v.split('+').next().unwrap_or(v)))
            .collect();
        !all.is_empty() && all.iter().all(|v| v > p)
    });
    let python_too_new = newest_python
        .zip(python_of(cx))
        .is_some_and(|(newest, here)| here > newest);
    if torch_family
        && !every_listed_newer
        && !python_too_new
        && let Some(label) = cx.scene.version_of("pytorch-index-label")
        && let Some(b) = base
        && let Some((fix, message)) = index_label(cx, &name, b, label)
    {
        d.message = message;
        fixes.push(fix);
    }
    if no_such_build
        && let Some(b) = base
        && let Some(req) = recipes::exact(&name, b)
    {
        fixes.push(
            Fix::new(
                code,
                "default-build",
                FixKind::AlignTorch,
                format!("Install {name} {b}, PyPI's build for macOS (no CUDA label)"),
                format!("macOS has no CUDA; {name} {b} from PyPI runs on the CPU and on Apple's GPU through MPS. Its companions move with it, also without a CUDA label."),
            )
            .step(recipes::pip_install(cx, Vec::new(), vec![req])),
        );
    }
    // Poetry picks files from the sources pyproject.toml declares: a PyTorch index as an explicit
    // source, pinned for torch, has the build's files (for this Python and platform, where the
    // build has any).
    if cx.scene.used_poetry
        && torch_family
        && let (Some(b), Some(l)) = (base, local)
        && let Some(url) = IndexUrl::pytorch(l)
    {
        fixes.push(
            Fix::in_words(
                code,
                "poetry-source",
                format!("Declare PyTorch's {l} index as an explicit Poetry source for {name}"),
                format!("Poetry installs {name} {b}+{l} only from a source that has it: PyTorch's index, declared with priority \"explicit\" and named in {name}'s dependency, so nothing else is looked up there. If the build has no wheel for this Python or platform (Python 3.13 before its releases for it, macOS for CUDA builds), the index does not help: a release or Python that has one does."),
                format!(
                    "in pyproject.toml: [[tool.poetry.source]] name = \"pytorch-{l}\", url = \"{}\", priority = \"explicit\"; and {name} = {{ version = \"{b}\", source = \"pytorch-{l}\" }}; then poetry lock && poetry install",
                    url.as_str()
                ),
            )
            // pip's flags do not reach a Poetry install: its source comes first.
            .leading(),
        );
    }
    // PyTorch's own index for a `+cuXYZ` (or `+cpu`, `+rocm…`) build of torch or its companions,
    // where the release itself is not older than this Python.
    if let (Some(p), Some(index)) = (pin, &index)
        && !all_newer
        && let Some(req) = recipes::exact(&name, p)
    {
        fixes.push(
            Fix::new(
                code,
                "pytorch-index",
                FixKind::AlignTorch,
                format!("Install {name} {p} from PyTorch's {} index", local.unwrap_or_default()),
                format!("PyPI holds only the default build of each torch release; the +{} builds are on {}.", local.unwrap_or_default(), index.as_str()),
            )
            .step(recipes::pip_install(cx, vec![PipFlag::IndexUrl(index.clone())], vec![req])),
        );
    }
    // The nearest release pip has here, at or after the pin (its build of the same label, from
    // that label's index, for a torch build).
    if let Some(v) = nearest_after.filter(|_| !release_listed || local.is_none()) {
        // The same build label only where that release was built for it (torch 2.0 has no
        // cu111 build): else PyPI's default build.
        let label = local.filter(|l| {
            index.is_some()
                && name == "torch"
                && abidoc_knowledge::gpu::torch_variants(v).iter().any(|x| x == l)
        });
        let req = recipes::exact(
            &name,
            &match label {
                Some(l) => format!("{v}+{l}"),
                None => v.to_owned(),
            },
        );
        let torch = name == "torch";
        let mut reason = format!(
            "{v} is the first release at or after the pin that pip can install on {here}; code written for {} may need small changes.",
            base.unwrap_or_default()
        );
        if torch {
            reason.push_str(" torchvision and torchaudio move with torch (their releases for it).");
        }
        let flags = label
            .and_then(IndexUrl::pytorch)
            .map(PipFlag::IndexUrl)
            .into_iter()
            .collect();
        if let Some(req) = req {
            fixes.push(
                Fix::new(
                    code,
                    "nearest-release",
                    if torch { FixKind::AlignTorch } else { FixKind::PrebuiltWheel },
                    format!("Install {name} {v}, the nearest release pip has for {here}"),
                    reason,
                )
                .step(recipes::pip_install(cx, flags, vec![req])),
            );
        }
    }
    // A Python the pinned release has wheels for.
    // Only where pip listed releases (so the interpreter is the obstacle, not the platform or
    // the index).
    // (conda's solver lists no releases; it names the Pythons the release is built for.)
    let solver_named = cx.scene.used_conda_solver && newest_python.is_some();
    if let Some(p) = base.filter(|_| !release_listed && !all_older && (!listed.is_empty() || solver_named)) {
        let which = match newest_python {
            Some((a, b)) => format!("Python {a}.{b} or older"),
            None => format!("a Python version {name} {p} publishes wheels for (its PyPI page lists the cpXY tags)"),
        };
        fixes.push(
            Fix::in_words(
                code,
                "python-for-release",
                // (`rank` drops the "Or" where nothing comes before it.)
                format!("Or keep {name} {p} and run it under {which}"),
                "A virtual environment of that Python installs the pinned release as published; the rest of the requirements may need their releases for it too.",
                match newest_python {
                    Some((a, b)) => format!("uv venv --python {a}.{b} (or: conda create -n env python={a}.{b}), then install the requirements there"),
                    None => format!("create a virtual environment with a Python {name} {p} supports, then install the requirements there"),
                },
            ),
        );
    }
    // A project that publishes no Windows wheels, whose Windows builds another distribution
    // publishes (triton → triton-windows).
    if let Some(port) = crate::kb::windows_port(&name)
        .filter(|_| cx.scene.mentions_windows || available.is_some_and(<[String]>::is_empty))
        .and_then(|p| Name::new(&p))
    {
        fixes.push(
            Fix::new(
                code,
                "windows-port",
                FixKind::PrebuiltWheel,
                format!("On Windows, install {port}, the Windows build of {name}"),
                format!("{name} publishes wheels for Linux only; {port} publishes its Windows builds, imported under the same name. Pick the release its page pairs with your torch."),
            )
            .step(recipes::pip_install(cx, Vec::new(), vec![crate::fix::Requirement::Any(port)])),
        );
    }
    if fixes.is_empty() {
        let name_ok = Name::new(&name).is_some();
        fixes.push(
            Fix::in_words(
                code,
                "find-release",
                format!("Find where {name} publishes builds for {here}"),
                "Its project page names the Pythons and platforms it builds for, and any index of its own (PyTorch's per-CUDA indexes, a vendor's wheel page); on a platform it never builds for, a community build or another Python is the way.",
                if name_ok {
                    format!("python -m pip index versions {name}   # the releases this interpreter can install; `python -m pip debug --verbose` lists the tags it accepts")
                } else {
                    "python -m pip debug --verbose   # the wheel tags this interpreter accepts".to_owned()
                },
            ),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A package's setup refusing the Python it runs under (`Cannot install on Python version 3.13.0;
/// only versions >=3.9,<3.13 are supported.`, numba's and llvmlite's guard): pip found no wheel of
/// the requested release for this Python and built its sdist, which predates it. A release (or
/// pre-release) made for this Python, as a wheel, or a Python the release supports.
pub(crate) fn python_range(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    python: &str,
    supported: &str,
) -> Diagnostic {
    let code = Code::NoMatchingDistribution;
    let mut d = blank(code, source);
    d.package = cx
        .scene
        .packages_built
        .first()
        .map(|p| crate::kb::normalize(p));
    let who = d.package.clone().unwrap_or_else(|| "the package pip is building".into());
    let short = Version::parse(python).map_or_else(|| python.to_owned(), |v| v.major_minor_string());
    d.message = format!(
        "{who} supports only Python {supported}, and this is Python {python}: pip found no wheel of that release for this Python and built its source, whose setup refuses it"
    );
    d.evidence.push(format!("its setup: only versions {supported} are supported"));
    let mut fixes = Vec::new();
    // A Python older than the range's lower bound: no newer release brings it back.
    let below = Version::parse(python).is_some_and(|py| {
        supported
            .split(',')
            .filter_map(|c| c.trim().strip_prefix(">="))
            .filter_map(Version::parse)
            .any(|lo| py.major_minor() < lo.major_minor())
    });
    if below {
        fixes.push(
            Fix::in_words(
                code,
                "older-release",
                format!("Install an older release of {who} that still supports Python {short}, or use a newer Python"),
                format!("Releases drop old Pythons: this one needs {supported}; an earlier release has wheels for Python {short}, or a newer Python takes this one."),
                format!(
                    "pin the release before the one that dropped Python {short} (its release notes say which), or create an environment with a Python in {supported}"
                ),
            ),
        );
    } else if let Some(pkg) = d.package.as_deref().and_then(Name::new) {
        fixes.push(
            Fix::new(
                code,
                "release-for-python",
                FixKind::PrebuiltWheel,
                format!("Install {pkg}'s newest release as a wheel, which may support Python {short}"),
                format!("A release made after Python {short} came out has wheels for it; --only-binary makes pip say so instead of building an old release's source. When only a pre-release supports it yet, add --pre."),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::Upgrade, PipFlag::OnlyBinary(pkg.clone())],
                vec![crate::fix::Requirement::Any(pkg)],
            ))
            .cost(crate::fix::Cost::download())
            .unverified(),
        );
    }
    fixes.push(
        Fix::in_words(
            code,
            "python-in-range",
            if fixes.is_empty() {
                format!("Use a Python in {supported}, or a release of the package made for Python {short}")
            } else {
                format!("Or use a Python in {supported}")
            },
            "A virtual environment of a Python the release supports installs its wheel without building anything.",
            format!(
                "create an environment with a Python in {supported} (python3.X -m venv …, conda create -n … python=3.X) and install there"
            ),
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The Python the text shows: a stated version, else the one its paths name.
fn python_of(cx: &Cx<'_>) -> Option<(u32, u32)> {
    cx.scene
        .version_of("python")
        .and_then(|v| {
            let mut it = v.split('.');
            Some((it.next()?.parse::<u32>().ok()?, it.next()?.parse::<u32>().ok()?))
        })
        .or(cx.scene.python_in_paths)
}

/// "Python 3.12 on Windows", as far as the text tells.
fn here(cx: &Cx<'_>, python: Option<(u32, u32)>) -> String {
    let py_txt = python.map(|(a, b)| format!("Python {a}.{b}"));
    let platform = if cx.scene.mentions_windows {
        Some("Windows")
    } else if cx.scene.mentions_macos {
        Some("macOS")
    } else if cx.scene.mentions_arm {
        Some("64-bit ARM Linux")
    } else {
        None
    };
    match (py_txt, platform) {
        (Some(p), Some(os)) => format!("{p} on {os}"),
        (Some(p), None) => p,
        (None, Some(os)) => format!("this Python on {os}"),
        (None, None) => "this Python and platform".into(),
    }
}

/// No release at all of a package published for every Python and platform: pip reached no
/// index that has it (offline, a proxy, an --index-url or a mirror without it), inside a build's
/// isolated environment as often as not.
fn index_unreachable(cx: &Cx<'_>, mut d: Diagnostic, name: &str) -> Diagnostic {
    let code = Code::NoMatchingDistribution;
    d.message = format!(
        "pip found no release of {name} at all: {name} is published for every Python and platform, so pip reached no package index that has it (no network, a proxy, or an --index-url or mirror without it)"
    );
    let mut fixes = Vec::new();
    // A build's own isolated environment is what asks for a build tool: the one installed
    // here serves with isolation off (what threads confirm behind a firewall).
    if let Some(pkg) = cx.package_being_built(None).as_deref().and_then(Name::new) {
        fixes.push(
            Fix::new(
                code,
                "no-isolation",
                FixKind::Configure,
                format!("Build {pkg} with the build tools already installed here"),
                format!("pip's isolated build environment downloads {name} again; with isolation off the build uses the installed one (install it first where it is missing)."),
            )
            .step(recipes::pip_install(cx, vec![PipFlag::NoBuildIsolation], vec![crate::fix::Requirement::Any(pkg)])),
        );
    }
    fixes.push(
        Fix::in_words(
            code,
            "index-reachable",
            "Make the package index reachable to pip (and to the build's isolated environment)",
            "`pip config list` and PIP_INDEX_URL show the index pip uses; behind a proxy, set HTTPS_PROXY (a build's isolated environment inherits the environment, not pip's command-line options); with a private mirror, add the packages it lacks.",
            format!(
                "python -m pip config list; python -m pip index versions {name}   # which index pip asks, and what it answers"
            ),
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A torch-family release pip found nothing of on the PyTorch index the text shows: the build
/// label that release does have (the one meant when the label is mistyped, else the newest
/// whose CUDA is not above the label's), for it and the companions the text names, in one
/// install from that index. Nothing when the label is one of the release's builds (then the
/// index lacks this Python or platform, which the other fixes say).
fn index_label(cx: &Cx<'_>, name: &str, release: &str, label: &str) -> Option<(Fix, String)> {
    use abidoc_knowledge::{compat, gpu};
    let torch = if name == "torch" {
        release.to_owned()
    } else {
        compat::torch_for_companion(name, release)?.to_owned()
    };
    let variants = gpu::torch_variants(&torch);
    if variants.is_empty() || variants.iter().any(|v| v == label) {
        return None;
    }
    let written = label.replace('.', "");
    let pick = if variants.contains(&written) {
        written.clone()
    } else {
        let wanted = gpu::variant_cuda(&written)?;
        variants
            .iter()
            .filter(|v| gpu::variant_cuda(v).is_some_and(|c| c <= wanted))
            .max_by_key(|v| gpu::variant_cuda(v))?
            .clone()
    };
    let index = IndexUrl::pytorch(&pick)?;
    let mut reqs = vec![recipes::exact("torch", &torch)?];
    for (companion, version) in [
        ("torchvision", compat::torchvision_for_torch(&torch)),
        ("torchaudio", compat::torchaudio_for_torch(&torch)),
    ] {
        let named = companion == name || cx.scene.mentions.iter().any(|(_, m)| m == companion);
        if let (true, Some(v)) = (named, version) {
            reqs.extend(recipes::exact(companion, v));
        }
    }
    let pins = reqs
        .iter()
        .map(crate::fix::render::requirement)
        .collect::<Vec<_>>()
        .join(" ");
    let fix = Fix::new(
        Code::NoMatchingDistribution,
        "pytorch-index-label",
        FixKind::AlignTorch,
        format!("Install {pins} from PyTorch's {pick} index, a build torch {torch} has"),
        format!(
            "PyTorch's index is one per build label (cuXYZ: the CUDA major and minor without a dot); torch {torch} was built for {}. Any of them runs on a driver at least as new as its CUDA.",
            variants.join(", ")
        ),
    )
    .step(recipes::pip_install(cx, vec![PipFlag::IndexUrl(index)], reqs))
    .leading();
    let message = format!(
        "{name} {release} is not on PyTorch's {label} index, where this install looked: {}; torch {torch}'s builds are {}",
        match (written != label, variants.contains(&written)) {
            (true, true) => format!("the label is written {written}, without a dot"),
            (true, false) => format!(
                "labels are written without a dot ({written}), and torch {torch} has no {written} build either"
            ),
            _ => format!("torch {torch} was never built for {label}"),
        },
        variants.join(", ")
    );
    Some((fix, message))
}
