//! `mamba-fast-path`: a Mamba/hybrid model runs its Mamba layers on the slow reference path
//! because the `mamba-ssm`/`causal-conv1d` kernels are missing or failed to load.
//!
//! Produced by transformers' "The fast path is not available" warning. The model needs the
//! kernels, so removal is never offered: the releases built for the installed torch first (their
//! setup fetches the matching prebuilt wheels), else a source build that really compiles.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, Severity, SourceRef};
use crate::fix::{Cost, Fix, FixKind, Name, PipFlag, Requirement};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "Mamba/hybrid model runs its slow path because `mamba-ssm`/`causal-conv1d` kernels are missing or broken.",
    meaning: "transformers runs Mamba layers with the fused kernels of mamba-ssm and causal-conv1d when both import; otherwise it falls back to a slow reference implementation, with a warning. Training on the fallback is slower and not numerically the same.",
    fixes: "1. The mamba-ssm and causal-conv1d releases built for the installed torch (their setup fetches the matching prebuilt wheels; `--no-build-isolation --no-cache-dir`). 2. Without a known release: install them with `--no-build-isolation`, letting setup pick the wheel or compile (needs nvcc). Removal is never offered: the model needs them.",
    model_decides: true,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    model_class: Option<&str>,
    kernel: Option<&str>,
) -> Diagnostic {
    let mut d = blank(Code::MambaFastPath, source);
    d.severity = Severity::Warning;
    d.package = Some("mamba-ssm".into());
    let who = model_class
        .map(str::to_owned)
        .or_else(|| cx.model.map(|m| m.id.clone()))
        .unwrap_or_else(|| "the model".into());
    d.message = format!(
        "{who} runs its Mamba layers on the slow reference path: the mamba-ssm / causal-conv1d kernels are missing or failed to load"
    );
    // The kernel was called on the module that failed to import: no fallback, the run stops.
    if let Some(k) = kernel {
        d.severity = Severity::Error;
        let (pkg, module) = if k.starts_with("causal_conv1d_") {
            ("causal-conv1d", "causal_conv1d_cuda")
        } else {
            ("mamba-ssm", "selective_scan_cuda")
        };
        d.package = Some(pkg.into());
        d.message = format!(
            "`{k}` was called on {pkg}'s compiled module {module}, which did not import (it is None): {pkg}'s kernels are missing or failed to load, and this code has no slow path"
        );
        d.evidence.push(format!(
            "`import {module}` failed quietly (the package sets it to None); importing it alone shows why"
        ));
    }
    d.evidence
        .extend(cx.world.installed_versions(&["mamba-ssm", "causal-conv1d"]));
    d.fixes = fixes(cx);
    d
}

fn fixes(cx: &Cx<'_>) -> Vec<Fix> {
    let code = Code::MambaFastPath;
    let names: Vec<Name> = ["causal-conv1d", "mamba-ssm"]
        .iter()
        .filter_map(|n| Name::new(n))
        .collect();
    let mut fixes = Vec::new();
    // The releases built for the installed torch, when the tables know both.
    if let Some(torch) = cx.torch() {
        let reqs: Vec<Requirement> = names
            .iter()
            .filter_map(|n| {
                let v = crate::kb::release_for_torch(n.as_str(), &torch)?;
                recipes::exact(n.as_str(), &v)
            })
            .collect();
        if reqs.len() == names.len() {
            let t = recipes::short_torch(&torch);
            fixes.push(
                Fix::new(
                    code,
                    "releases-for-torch",
                    FixKind::AlignCompanion,
                    format!("Install causal-conv1d and mamba-ssm releases built for torch {t}"),
                    "Their setup fetches the prebuilt wheels for this torch, CUDA major and C++ ABI; --no-cache-dir keeps pip from reusing a wheel built for another torch.",
                )
                .step(recipes::pip_install(
                    cx,
                    vec![PipFlag::NoBuildIsolation, PipFlag::NoCacheDir],
                    reqs,
                ))
                .cost(Cost {
                    downloads: true,
                    ..Cost::default()
                }),
            );
        }
    }
    if fixes.is_empty() {
        let mut flags = vec![PipFlag::NoBuildIsolation, PipFlag::NoCacheDir];
        if cx.world.is_installed("mamba-ssm") == Some(true) {
            flags.push(PipFlag::ForceReinstall);
            flags.push(PipFlag::NoDeps);
        }
        fixes.push(
            Fix::new(
                code,
                "install-kernels",
                FixKind::PrebuiltWheel,
                "Install mamba-ssm and causal-conv1d built against the installed torch",
                "The hybrid model's Mamba layers need these kernels for the fast path; --no-build-isolation builds (or picks a wheel) for the torch in this environment.",
            )
            .step(recipes::pip_install(
                cx,
                flags,
                names.iter().cloned().map(Requirement::Any).collect(),
            ))
            .cost(Cost {
                downloads: true,
                ..Cost::default()
            }),
        );
    }
    if cx.world.is_installed("mamba-ssm") == Some(true)
        && let Some(ssm) = Name::new("mamba-ssm")
    {
        let partner: Vec<Name> = names.iter().filter(|n| *n != &ssm).cloned().collect();
        fixes.extend(recipes::source_build(code, cx, &ssm, &partner));
    }
    crate::fix::rank(fixes)
}
