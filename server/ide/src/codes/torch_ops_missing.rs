//! `torch-ops-missing`: an extension's operators never registered (`operator torchvision::nms
//! does not exist`) because its library failed to load silently.
//!
//! Produced by torch's "operator X::y does not exist" and torchvision's/torchaudio's "Couldn't
//! load custom C++ ops" messages. The companion release built for the installed torch comes
//! first (or the project's find-links wheel); installing torch and the companion in one resolve
//! is the general form.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, Name};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`operator X::y does not exist` and similar: an extension's operators never registered because its library failed to load silently.",
    meaning: "torchvision, torchaudio and similar packages load their compiled operators when imported, and swallow the failure; the first call of an operator then fails. Almost always the package was built for another torch release.",
    fixes: "1. The companion release built for the installed torch (exact pin, `--no-cache-dir --no-deps`), or its wheel from the project's find-links page for that torch and CUDA (PyG). 2. Without a version to pin: install torch and the companion in one command, so pip resolves a matching pair (torch pinned when its version is known).",
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    what: &str,
    package: Option<&str>,
) -> Diagnostic {
    let mut d = blank(Code::TorchOpsMissing, source);
    d.package = package.map(crate::kb::normalize);
    let pkg = d.package.clone().unwrap_or_else(|| "the extension".into());
    d.message = format!(
        "{what}: {pkg}'s compiled library failed to load silently, almost always because it was built for another torch version"
    );
    d.fixes = fixes(cx, d.package.as_deref().unwrap_or("torchvision"));
    d
}

fn fixes(cx: &Cx<'_>, pkg: &str) -> Vec<Fix> {
    let code = Code::TorchOpsMissing;
    let mut fixes = Vec::new();
    let Some(pkg) = Name::new(pkg) else {
        return fixes;
    };
    fixes.extend(recipes::align_with_torch(
        code,
        cx,
        &pkg,
        crate::kb::package(pkg.as_str()).as_ref(),
        false,
    ));
    if fixes.is_empty() {
        // No release data and no pairing: what any extension built for another torch gets.
        fixes = recipes::extension_mismatch(code, cx, Some(pkg.as_str()), None, &[]);
    }
    crate::fix::rank(fixes)
}
