//! `build-deps-missing`: a build, or a JIT build of a torch extension, lacks one of its own build
//! tools (`No module named 'packaging'`, `'wheel'`, `'setuptools'`, `'ninja'`, `Ninja is required
//! to load C++ extensions`) or has one too new for its build script (`cannot import name
//! 'packaging' from 'pkg_resources'`: setuptools 70 removed it).
//!
//! Produced by those messages in a build log (the scanner asks for a build around them; ninja is
//! always a build tool). Fixes install the tool at user level (pip), then, when the text shows
//! which package was being built, that install again with `--no-build-isolation` so the build
//! sees the tools now installed and the installed torch. Nothing is removed.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Cost, Fix, FixKind, Name, PipFlag, Requirement, Version};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A build (or a torch extension's JIT build) lacks a build tool of its own: `No module named 'packaging'` / `'wheel'` / `'setuptools'` / `'ninja'`, `Ninja is required to load C++ extensions`, or setuptools too new (`cannot import name 'packaging' from 'pkg_resources'`).",
    meaning: "Extensions such as flash-attn import `packaging`, `wheel`, `setuptools` or `ninja` in their setup.py, and torch's C++ extension builder (DeepSpeed ops, apex, nvdiffrast, any `torch.utils.cpp_extension.load`) runs ninja. Built with `--no-build-isolation` (which these extensions need to see the installed torch), the build uses the environment's own tools, so a missing one stops it before anything compiles; setuptools 70 and later removed `pkg_resources.packaging`, which older setup.py files import.",
    fixes: "1. Install the missing tool with pip (`pip install packaging wheel`, `pip install ninja`; for the `pkg_resources` error `pip install \"setuptools<70\"`), user level, nothing removed. 2. When the log shows which package was being built, install it again with `--no-build-isolation` after the tool, so its build sees the tools and the installed torch.",
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    module: &str,
    too_new: bool,
) -> Diagnostic {
    let mut d = blank(Code::BuildDepsMissing, source);
    let built = cx
        .scene
        .packages_built
        .first()
        .map(|p| crate::kb::normalize(p))
        .or_else(|| cx.near.map(str::to_owned))
        .filter(|p| p != module);
    d.package.clone_from(&built);
    let what = built.as_deref().map_or_else(
        || "a build of a C++/CUDA extension".to_owned(),
        |p| format!("the build of {p}"),
    );
    // Triton is torch.compile's GPU code generator, not a build tool; PyPI's `triton` has no
    // Windows wheels, its Windows port is `triton-windows`.
    if module == "triton" {
        d.package = Some("triton".into());
        d.message = "torch.compile's Inductor backend needs Triton to generate GPU kernels, and no working Triton is installed".into();
        let module = if cx.scene.mentions_windows {
            "triton-windows"
        } else {
            "triton"
        };
        d.fixes = fixes(cx, module, false, None);
        return d;
    }
    d.message = if too_new {
        format!(
            "{what} imports pkg_resources.packaging, which setuptools 70 and later no longer have: it needs an older setuptools"
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

fn fixes(cx: &Cx<'_>, module: &str, too_new: bool, built: Option<&str>) -> Vec<Fix> {
    let code = Code::BuildDepsMissing;
    let Some(tool) = Name::new(module) else {
        return Vec::new();
    };
    let mut reqs = vec![if too_new {
        match Version::new("70") {
            Some(v) => Requirement::Below(tool.clone(), v),
            None => Requirement::Any(tool.clone()),
        }
    } else {
        Requirement::Any(tool.clone())
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
            Some(p) => format!("Install {shown}, then build {p} with --no-build-isolation"),
            None => format!("Install {shown}"),
        },
        if too_new {
            "setuptools 70 removed pkg_resources.packaging; an older setuptools lets the build script run unchanged.".to_owned()
        } else if module.starts_with("triton") {
            "Inductor imports Triton from this environment; pip installs it without root (on Windows, the triton-windows port; pick the release its page pairs with your torch).".to_owned()
        } else {
            format!("The build runs `{module}` from this environment; pip installs it without root.")
        },
    )
    .step(recipes::pip_install(cx, Vec::new(), reqs))
    .cost(Cost {
        downloads: true,
        ..Default::default()
    });
    if let Some(pkg) = built.and_then(Name::new) {
        f = f.step(recipes::pip_install(
            cx,
            vec![PipFlag::NoBuildIsolation],
            vec![Requirement::Any(pkg)],
        ));
    }
    crate::fix::rank(vec![f])
}
