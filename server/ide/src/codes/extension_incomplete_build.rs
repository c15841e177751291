//! `extension-incomplete-build`: the undefined symbol belongs to the extension's own package: a
//! partial build (a kernel not compiled for this configuration), not a torch mismatch.
//!
//! Produced by an undefined symbol in the package's own namespace (or defined by its own core
//! library), by `No module named 'X'` for a compiled module the package ships (installed without
//! its extensions: apex without `--cuda_ext`), or by the scan when the missing symbols are
//! defined nowhere but would be the package's. Removal is never offered
//! first (something asked for these kernels); a complete build is.

use super::symbols::Case;
use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "The undefined symbol belongs to the extension's own package: a partial build, not a torch mismatch.",
    meaning: "The library references a function its own sources should define, and nothing defines it: the build left a kernel out (a GPU architecture or a feature switch was not compiled), or files of two builds were mixed. Torch is not involved, so aligning torch does not help. The same holds when the package's compiled module is absent altogether (`No module named 'exllamav2_ext'`, `'mmcv._ext'`): a wheel or build without it, or a source checkout that shadows the installed package.",
    fixes: "1. The companion release built for the installed torch (a complete wheel). 2. The project's prebuilt wheel. 3. A complete source build that really compiles. Uninstalling is offered only when nothing needs the package. All need confirmation.",
    model_decides: true,
    ..CodeDoc::BASE
};

pub(crate) fn symbol(cx: &Cx<'_>, d: &mut Diagnostic, c: &Case<'_>) {
    if c.c_function {
        d.message = format!(
            "{} references the C function `{}`, which no torch release defines: its own core library (not loaded, or built without it) or a library it should have been linked with is missing, not a torch mismatch{}",
            c.who, c.name, c.cut
        );
        d.evidence.push(format!(
            "`{}` is a plain C name outside torch's API (`THP*`, `aoti_torch_*`, `torch_*`) and outside the libraries abidoc knows by their prefixes",
            c.name
        ));
        d.explanation = Some(format!("{} calls a C function that nothing loaded in the process defines. `nm -D --defined-only` on the package's other libraries shows whether one of them has it (then it must be loaded first, or the build left it out); otherwise the build did not link the library that has it. A complete build or wheel of the package fixes both.", c.module));
    } else {
        d.message = format!(
            "{} references `{}`, which its own package should define: the build is incomplete (a kernel was not compiled for this configuration), not a torch mismatch{}",
            c.who, c.name, c.cut
        );
        d.explanation = Some(format!("The missing function belongs to {}'s own sources: a partial or misconfigured build left it out (for example a kernel for one GPU architecture). Rebuild the package with its full configuration or install a complete wheel.", c.module));
    }
    d.fixes = crate::fix::rank(recipes::extension_mismatch(
        Code::ExtensionIncompleteBuild,
        cx,
        d.package.as_deref(),
        d.library.as_deref(),
        &d.symbols,
    ));
}

/// `No module named 'X'` for a compiled module `package` ships: the package was installed
/// without building its extensions (or their build failed and was skipped).
pub(crate) fn module_missing(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    module: &str,
    package: &str,
) -> Diagnostic {
    let mut d = blank(Code::ExtensionIncompleteBuild, source);
    let named = cx.as_named(package.to_owned());
    let package = named.as_str();
    d.package = Some(named.clone());
    d.message = format!(
        "{package} is installed without its compiled module {module}: its C++/CUDA extensions were not built (or their build failed and was skipped)"
    );
    d.explanation = Some(format!("{module} is one of {package}'s compiled extension modules. Source installs build them only when asked (apex's --cpp_ext/--cuda_ext) and when nvcc and a matching torch are found; otherwise the Python half installs alone and the first use of the kernels fails. A complete build, or a wheel that contains them, fixes it."));
    d.fixes = crate::fix::rank(recipes::extension_mismatch(
        Code::ExtensionIncompleteBuild,
        cx,
        d.package.as_deref(),
        None,
        &[],
    ));
    d
}
