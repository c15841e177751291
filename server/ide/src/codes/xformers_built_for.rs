//! `xformers-built-for`: xFormers warns that it was built for another torch/Python/CUDA and runs
//! without its C++/CUDA kernels (memory-efficient attention off).
//!
//! Produced by xFormers' "xFormers was built for: PyTorch X with CUDA Y (you have Z)" warning and
//! by the scan's reading of xformers' `cpp_lib.json`. Each xformers release is compiled for
//! exactly one torch: the release for the installed torch comes first.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, Severity, SourceRef};
use crate::fix::{Cost, Fix, FixKind, Name, PipFlag, Requirement, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "xFormers was built for another torch/Python/CUDA than the one running.",
    meaning: "Each xformers release ships binaries for exactly one torch release. Installed next to another torch, its compiled library fails to load and xformers silently falls back: memory-efficient attention and other kernels are off. pip's resolver says the same when it installs one beside another torch (`xformers 0.0.26.post1 requires torch==2.3.0, but you have torch 2.2.1+cu121 which is incompatible`).",
    fixes: "1. The xformers release built for the installed torch (`--no-deps` so torch stays); where that release is a PyPI build on torch's stable ABI whose CUDA the release data does not record, the CUDA runtime wheel of the major the loader asks for as the step after, if it asks. 2. Uninstall xformers when nothing needs it: torch's `scaled_dot_product_attention` covers memory-efficient attention for most uses. Both need confirmation.",
    ..CodeDoc::BASE
};

pub(crate) struct Build<'a> {
    pub built_torch: Option<&'a str>,
    pub have_torch: Option<&'a str>,
    pub built_cuda: Option<&'a str>,
    pub built_python: Option<&'a str>,
    pub have_python: Option<&'a str>,
}

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, b: Build<'_>) -> Diagnostic {
    let mut d = blank(Code::XformersBuiltFor, source);
    d.severity = Severity::Warning;
    d.package = Some("xformers".into());
    let mut parts = Vec::new();
    if let (Some(x), Some(h)) = (b.built_torch, b.have_torch)
        && x != h
    {
        parts.push(format!("torch {x} (you have {h})"));
    }
    if let (Some(x), Some(h)) = (b.built_python, b.have_python)
        && x != h
    {
        parts.push(format!("Python {x} (you have {h})"));
    }
    let why = if parts.is_empty() && b.built_torch.is_none() && b.built_python.is_none() {
        "the installed build has no usable CUDA kernels (a wheel for another torch, or a source build made without CUDA); `python -m xformers.info` lists what it was built with".to_owned()
    } else if parts.is_empty() {
        "its build records the same torch and Python, so the compiled library itself fails to load (set XFORMERS_MORE_DETAILS=1 to see why)".to_owned()
    } else {
        format!("it was built for {}", parts.join(" and "))
    };
    d.message = format!(
        "xFormers runs without its C++/CUDA kernels (memory-efficient attention is off): {why}"
    );
    if let Some(c) = b.built_cuda {
        d.evidence.push(format!("xFormers was built with CUDA {c}"));
    }
    d.fixes = fixes(cx, b.have_torch);
    d
}

/// A release for this torch that is a PyPI binary whose CUDA the release data does not record
/// (0.0.35, on torch's stable ABI), beside a torch whose CUDA its label states: PyPI's build keeps
/// its own CUDA, which need not be torch's, so the runtime wheel of the major the loader asks
/// for may be wanting — the step after, in words, for the loader's own message to decide.
fn with_runtime_note(f: Fix, pkg: &Name, torch: &str) -> Fix {
    let torch_cuda = abidoc_knowledge::Version::parse(torch).and_then(|v| v.local_cuda());
    let release = crate::kb::release_for_torch(pkg.as_str(), torch)
        .and_then(|v| abidoc_knowledge::releases::release(pkg.as_str(), &v));
    match (torch_cuda, release) {
        (Some(_), Some(r)) if r.binary_wheel() && r.cuda_major.is_none() => {
            f.step(Step::Manual(
                "if importing it then reports libcudart.so.N missing (PyPI's build of another CUDA than torch's): python -m pip install the CUDA runtime wheel of that major (nvidia-cuda-runtime-cu11 or -cu12; nvidia-cuda-runtime==13.* for 13)".into(),
            ))
        }
        _ => f,
    }
}

fn fixes(cx: &Cx<'_>, have_torch: Option<&str>) -> Vec<Fix> {
    let code = Code::XformersBuiltFor;
    let mut fixes = Vec::new();
    let Some(pkg) = Name::new("xformers") else {
        return fixes;
    };
    if let Some(t) = have_torch.map(str::to_owned).or_else(|| cx.torch()) {
        fixes.extend(
            recipes::companion_release(code, cx, &pkg, &t, None)
                .map(|f| with_runtime_note(f, &pkg, &t)),
        );
    } else {
        // Neither the text nor an environment says which torch: the general form, one resolve
        // in which xformers' exact torch pin brings the torch its wheel was built for.
        fixes.push(
            Fix::new(
                code,
                "xformers-with-torch",
                FixKind::AlignCompanion,
                "Install the newest xformers wheel and the torch it was built for, in one resolve",
                "Each xformers wheel pins the exact torch it was compiled against; installed together, pip picks a prebuilt CUDA wheel and its torch instead of building xformers without CUDA. To keep your torch, pin xformers to the release made for it instead (its release notes name the torch).",
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::Upgrade],
                vec![Requirement::Any(pkg.clone())],
            ))
            .cost(Cost {
                downloads: true,
                compiles: None,
                also: vec!["torch, to the release this xformers pins (several GB)".into()],
            })
            .unverified(),
        );
    }
    fixes.push(
        Fix::new(
            code,
            "uninstall",
            FixKind::RemoveIfUnneeded,
            "Uninstall xformers if nothing needs it",
            "torch's scaled_dot_product_attention covers memory-efficient attention for most uses.",
        )
        .step(recipes::pip_uninstall(cx, vec![pkg])),
    );
    crate::fix::rank(fixes)
}

/// pip's resolver installing xFormers beside another torch (`xformers 0.0.26.post1 requires
/// torch==2.3.0, but you have torch 2.2.1+cu121`): what its own message will say at import,
/// said before it, with the same fixes.
pub(crate) fn pip_pinned(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    version: &str,
    needs: &str,
    installed: &str,
) -> Diagnostic {
    let mut d = diagnose(
        cx,
        source,
        Build {
            built_torch: Some(needs),
            have_torch: Some(installed),
            built_cuda: None,
            built_python: None,
            have_python: None,
        },
    );
    d.message = format!(
        "pip installed xformers {version}, built for torch {needs} (its metadata pins torch=={needs}), beside torch {installed}: imported, it will run without its C++/CUDA kernels (memory-efficient attention off)"
    );
    d
}
