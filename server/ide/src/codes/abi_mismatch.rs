//! `abi-mismatch`: a compiled extension needs torch symbols the installed torch does not export
//! (another signature, or gone): it was built against another torch release.
//!
//! Produced by an undefined torch symbol in the text (refined on disk: signature changed or
//! removed), by a package's own version gate that skips its compiled extensions for the torch
//! it finds (torchao; a warning: the package runs without its kernels), and by the scan's torch
//! pin finding (`Requires-Dist: torch==X` against another
//! installed torch). Fixes, best first: uninstall when the model in use does not need it
//! (instant), the companion release built for the installed torch, the torch it was built for,
//! the project's prebuilt wheel, a source build that really compiles; all need confirmation.

use super::symbols::Case;
use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, Severity, SourceRef, SymbolStatus};
use crate::fix::{Fix, FixKind, Name, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A compiled extension needs symbols the installed torch (or another library it links) does not export: it was built against a different version.",
    meaning: "Extensions call into torch's C++ libraries by exact mangled name, which encodes the function's signature. When torch changes a signature or removes a function between releases, a library built against the old torch asks the loader for a name the installed torch no longer exports, and the import fails with `undefined symbol: _ZN3c10…`. Reinstalling the same wheel brings the same binary back; what helps is a build made for the installed torch, or the torch the binary was made for. Windows says it as `DLL load failed … The specified procedure could not be found` (error 127, in any language): a DLL lacks a function the module imports. At build time the same mismatch is a C++ name or header a torch release removed (`'AT_CHECK' was not declared`, `THC/THC.h: No such file or directory`): the source's port to the names instead, or a torch before the removal (tables in `compat.toml [[torch_api_removed]]`).",
    fixes: "1. Uninstall the package when the model in use does not need it (instant, nothing downloaded; offered first only when abidoc knows the model). 2. The companion release built for the installed torch, pinned exactly, with `--no-cache-dir --no-deps`. 3. The torch the binary was built for, saying what else moves. 4. The project's prebuilt wheel for this torch/CUDA/ABI/Python (unverified URL). 5. A source build that really compiles (force-build switch or `--no-binary`, `--no-build-isolation`), with its time and needs. Every command needs the user's confirmation; none needs root.",
};

pub(crate) fn symbol(cx: &Cx<'_>, d: &mut Diagnostic, c: &Case<'_>) {
    let missing = d
        .symbols
        .iter()
        .filter(|s| s.status != SymbolStatus::Resolved)
        .count()
        .max(1);
    let of = c
        .facts
        .as_ref()
        .map(|f| f.torch_symbol_count)
        .filter(|n| *n > 0)
        .map(|n| format!(" of its {n} torch symbols"))
        .unwrap_or_else(|| " torch symbol".into());
    let plural = if missing == 1 { "is" } else { "are" };
    let bf = c
        .built_for
        .as_deref()
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    d.message = format!(
        "{} was built against a different torch than {}: {missing}{of} {plural} missing{bf}{}",
        c.who, c.torch_txt, c.cut
    );
    d.explanation = Some(format!("{} is compiled C++ that calls into torch's libraries by exact function signature. It was built against another torch release, in which that function had another signature or existed at all. `pip install` again reuses the same stale wheel; the fix is a build made for the installed torch, or removing the package if nothing needs it.", c.module));
    d.fixes = crate::fix::rank(recipes::extension_mismatch(
        Code::AbiMismatch,
        cx,
        d.package.as_deref(),
        d.library.as_deref(),
        &d.symbols,
    ));
}

/// The scan's finding that a package pins another torch than the installed one.
pub(crate) fn from_pin(
    cx: &Cx<'_>,
    d: &mut Diagnostic,
    package_version: Option<&str>,
    required: &str,
    installed: &str,
) {
    let pkg = d.package.clone().unwrap_or_else(|| "a package".into());
    let ver = package_version
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    d.message = format!(
        "{pkg}{ver} requires torch {required}, but torch {installed} is installed: its compiled code was built for that torch"
    );
    d.evidence
        .push(format!("Requires-Dist of {pkg}: torch {required}"));
    d.fixes = crate::fix::rank(recipes::extension_mismatch(
        Code::AbiMismatch,
        cx,
        d.package.as_deref(),
        d.library.as_deref(),
        &d.symbols,
    ));
}

/// A package that checks the torch it finds and skips its compiled extensions (torchao's
/// `Skipping import of cpp extensions due to incompatible torch version`): built for another
/// torch, running without its kernels. Fixed like a symbol mismatch: the release built for this
/// torch (exact when the tables know it, else torch and the package in one resolve).
pub(crate) fn version_gate(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    package: Option<&str>,
    torch: Option<&str>,
    needs_torch: Option<&str>,
) -> Diagnostic {
    let mut d = blank(Code::AbiMismatch, source);
    d.severity = Severity::Warning;
    d.package = package.map(crate::kb::normalize);
    let pkg = d.package.clone().unwrap_or_else(|| "a package".into());
    let torch_txt = torch.map_or_else(|| "the installed torch".to_owned(), |t| format!("torch {t}"));
    let needs = needs_torch
        .map(|n| format!(" (it needs torch {n} or newer)"))
        .unwrap_or_default();
    d.message = format!(
        "{pkg} was built for another torch than {torch_txt}{needs}: it skips its compiled extensions and runs without them"
    );
    d.evidence
        .push("the package's own version check refused the torch it found; nothing failed to load".into());
    let mut fixes = Vec::new();
    if let (Some(p), Some(t)) = (d.package.as_deref().and_then(Name::new), torch) {
        fixes.extend(recipes::companion_release(
            Code::AbiMismatch,
            cx,
            &p,
            t,
            crate::kb::package(p.as_str()).as_ref(),
        ));
    }
    if fixes.is_empty() {
        fixes = recipes::extension_mismatch(Code::AbiMismatch, cx, d.package.as_deref(), None, &[]);
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A TensorFlow custom op built against another TensorFlow release, which lacks the function
/// it calls: rebuilt against the installed TensorFlow, or the release it was built for.
pub(crate) fn tensorflow_op(d: &mut Diagnostic, lib: &str, name: &str) {
    let code = Code::AbiMismatch;
    d.message = format!(
        "{lib} calls TensorFlow's `{name}`, which the installed TensorFlow does not export: the op was built against another TensorFlow release"
    );
    d.fixes = crate::fix::rank(vec![
        Fix::new(
            code,
            "tf-rebuild",
            FixKind::Advice,
            "Rebuild the op against the installed TensorFlow (its headers and flags)",
            "Custom ops link TensorFlow's C++ library by exact symbol; tf.sysconfig.get_compile_flags() and get_link_flags() give the headers, ABI flag and library of the TensorFlow in use.",
        )
        .step(Step::Manual(
            "rebuild with the flags from tf.sysconfig.get_compile_flags() and tf.sysconfig.get_link_flags(), or install the TensorFlow release the op was built for".into(),
        )),
    ]);
}

/// An extension's source written for a torch older than the installed one: it uses C++ API
/// (`AT_CHECK`, THC's headers) a release removed, and the build stops before anything links.
/// Its patch comes first (the names instead, which is how projects updated), then a torch
/// before the removal for code that cannot be changed.
pub(crate) fn removed_api(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    name: &str,
    detail: &str,
) -> Diagnostic {
    let code = Code::AbiMismatch;
    let mut d = blank(code, source);
    d.package = cx
        .scene
        .packages_built
        .first()
        .map(|p| crate::kb::normalize(p))
        .or_else(|| cx.near.filter(|n| *n != "torch").map(str::to_owned));
    let Some(row) = abidoc_knowledge::compat::torch_api_removed(name) else {
        return d;
    };
    let removed = &row.removed_in;
    let who = d.package.as_deref().unwrap_or("the extension");
    d.message = format!(
        "{who}'s source uses `{name}`, which torch {removed} removed from the C++ API: it was written for an older torch than the one it is built against"
    );
    d.evidence.push(format!("the text says: {}", detail.trim()));
    d.fixes = crate::fix::rank(vec![
        Fix::new(
            code,
            "port-source",
            FixKind::Advice,
            format!("Update the extension's source for torch {removed} and later"),
            format!("{} The project's newer releases often carry this change already.", row.instead),
        )
        .step(Step::Manual(format!(
            "in the extension's .cpp/.cu files: {}; then build again",
            row.instead
        ))),
        Fix::new(
            code,
            "older-torch",
            FixKind::Advice,
            format!("Or build against a torch before {removed}, the API the source was written for"),
            format!("torch<{removed} still has `{name}`; torchvision and the other companions must move with it, and old releases have no wheels for new Python versions or GPUs."),
        )
        .step(Step::Manual(format!(
            "in an environment of its era: pip install \"torch<{removed}\" (with its companions), then build again"
        )))
        .unverified(),
    ]);
    d
}

/// A package (a torch companion, transformers, a kernel library) calls Python API that a newer
/// torch added (`torch.library.register_fake`, 2.4): it was released for a newer torch than the
/// installed one. The release of it made for this torch (where the release data pairs it), or a
/// torch at least that new.
pub(crate) fn newer_api(cx: &Cx<'_>, source: Option<SourceRef>, api: &str) -> Diagnostic {
    let code = Code::AbiMismatch;
    let mut d = blank(code, source);
    d.package = cx.near.filter(|n| *n != "torch").map(str::to_owned);
    let Some(row) = abidoc_knowledge::compat::torch_api_added(api) else {
        return d;
    };
    let added = &row.added_in;
    let who = d.package.clone().unwrap_or_else(|| "a package".into());
    let torch = cx.torch();
    d.message = format!(
        "{who} calls `{api}`, which torch {added} added: it was released for a newer torch than the one installed{}",
        torch
            .as_deref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default()
    );
    let mut fixes = Vec::new();
    if let Some(pkg) = d.package.as_deref().and_then(Name::new) {
        fixes.extend(recipes::align_with_torch(
            code,
            cx,
            &pkg,
            crate::kb::package(pkg.as_str()).as_ref(),
            false,
        ));
    }
    let or = if fixes.is_empty() { "U" } else { "Or u" };
    fixes.push(
        Fix::new(
            code,
            "torch-at-least",
            FixKind::Advice,
            format!("{or}pgrade torch to {added} or later (with the companions built for it)"),
            format!("`{api}` exists from torch {added} on; torchvision, torchaudio and the other compiled companions must move with torch."),
        )
        .step(Step::Manual(format!(
            "pip install --upgrade \"torch>={added}\" together with the torchvision/torchaudio releases made for it"
        ))),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}
