//! `flash-attn-unavailable`: FlashAttention 2 was requested (`attn_implementation=
//! "flash_attention_2"`) but cannot be used: not installed, its import fails, or the model is
//! not on a CUDA device.
//!
//! Produced by transformers' FlashAttention checks. The cause decides the first fix: put the
//! model on the GPU, install flash-attn for the installed torch (its setup fetches the matching
//! prebuilt wheel), or use torch's own SDPA; a forced source build comes last.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Cost, Fix, FixKind, Name, PipFlag, Requirement, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "FlashAttention requested but unusable (import fails, wrong GPU, not installed).",
    meaning: "transformers checks that flash-attn imports, that its version is recent enough and that the model sits on a CUDA device before it uses FlashAttention 2. Each check has its own fix; torch's built-in SDPA attention needs no extension at all.",
    fixes: "1. On a CPU device: load the model on the GPU, or use `attn_implementation=\"sdpa\"` (advice). 2. Not installed: `pip install --no-build-isolation flash-attn` (its setup fetches the wheel for the installed torch/CUDA/ABI). 3. `attn_implementation=\"sdpa\"`. 4. A source build that really compiles (about an hour).",
    model_decides: true,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, reason: &str) -> Diagnostic {
    let mut d = blank(Code::FlashAttnUnavailable, source);
    d.package = Some("flash-attn".into());
    d.message = format!(
        "FlashAttention 2 was requested but cannot be used: {}",
        reason.trim()
    );
    d.fixes = fixes(cx, reason);
    d
}

fn fixes(cx: &Cx<'_>, reason: &str) -> Vec<Fix> {
    let code = Code::FlashAttnUnavailable;
    let r = reason.to_ascii_lowercase();
    let mut fixes = Vec::new();
    let on_cpu = r.contains("cpu") || r.contains("cuda device");
    let not_installed = r.contains("not installed") || r.contains("no module");
    if on_cpu {
        fixes.push(
            Fix::new(
                code,
                "use-gpu",
                FixKind::Configure,
                "Load the model on the GPU (device_map=\"cuda\" or .to(\"cuda\")) or use attn_implementation=\"sdpa\"",
                "FlashAttention only runs on CUDA devices.",
            )
            .step(Step::Manual("device_map=\"cuda\"".into())),
        );
    }
    let Some(fa) = Name::new("flash-attn") else {
        return fixes;
    };
    if not_installed {
        fixes.push(
            Fix::new(
                code,
                "install",
                FixKind::PrebuiltWheel,
                "Install flash-attn built for the installed torch",
                "Its setup picks the prebuilt wheel for the installed torch/CUDA/ABI, or builds from source against it.",
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::NoBuildIsolation],
                vec![Requirement::Any(fa.clone())],
            ))
            .cost(Cost {
                downloads: true,
                ..Cost::default()
            }),
        );
    }
    fixes.push(
        Fix::in_words(
            code,
            "sdpa",
            "Or use attn_implementation=\"sdpa\"",
            "torch's built-in attention needs no extension and is close in speed for most models.",
            "attn_implementation=\"sdpa\"",
        ),
    );
    if !on_cpu && !not_installed {
        fixes.extend(recipes::source_build(code, cx, &fa, &[]));
    }
    crate::fix::rank(fixes)
}
