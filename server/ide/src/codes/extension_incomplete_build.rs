//! `extension-incomplete-build`: the undefined symbol belongs to the extension's own package: a
//! partial build (a kernel not compiled for this configuration), not a torch mismatch.
//!
//! Produced by an undefined symbol in the package's own namespace, or by the scan when the
//! missing symbols are defined nowhere but would be the package's. Removal is never offered
//! first (something asked for these kernels); a complete build is.

use super::symbols::Case;
use super::{Code, CodeDoc, Cx, recipes};
use crate::diagnostic::Diagnostic;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "The undefined symbol belongs to the extension's own package: a partial build, not a torch mismatch.",
    meaning: "The library references a function its own sources should define, and nothing defines it: the build left a kernel out (a GPU architecture or a feature switch was not compiled), or files of two builds were mixed. Torch is not involved, so aligning torch does not help. The same holds when the package's compiled module is absent altogether (`No module named 'exllamav2_ext'`, `'mmcv._ext'`): a wheel or build without it, or a source checkout that shadows the installed package.",
    fixes: "1. The companion release built for the installed torch (a complete wheel). 2. The project's prebuilt wheel. 3. A complete source build that really compiles. Uninstalling is offered only when nothing needs the package. All need confirmation.",
};

pub(crate) fn symbol(cx: &Cx<'_>, d: &mut Diagnostic, c: &Case<'_>) {
    d.message = format!(
        "{} references `{}`, which its own package should define: the build is incomplete (a kernel was not compiled for this configuration), not a torch mismatch{}",
        c.who, c.name, c.cut
    );
    d.explanation = Some(format!("The missing function belongs to {}'s own sources: a partial or misconfigured build left it out (for example a kernel for one GPU architecture). Rebuild the package with its full configuration or install a complete wheel.", c.module));
    d.fixes = crate::fix::rank(recipes::extension_mismatch(
        Code::ExtensionIncompleteBuild,
        cx,
        d.package.as_deref(),
        d.library.as_deref(),
    ));
}
