//! `extension-incomplete-build`: the undefined symbol belongs to the extension's own package: a
//! partial build (a kernel not compiled for this configuration), not a torch mismatch.
//!
//! Produced by an undefined symbol in the package's own namespace (or defined by its own core
//! library), by `No module named 'X'` for a compiled module the package ships (installed without
//! its extensions: apex without `--cuda_ext`), by a torch JIT op's own library missing from its
//! build directory (`~/.cache/torch_extensions/py310_cu121/cpu_adam/cpu_adam.so`: the just-in-time
//! build never finished), or by the scan when the missing symbols are
//! defined nowhere but would be the package's. Removal is offered first only when the model in
//! use does not need the package, or, for an optional package, when nothing on this machine can
//! compile it (no CUDA compiler): otherwise something asked for these kernels, and a complete
//! build comes first.

use super::symbols::Case;
use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, FixKind, Name, SafePath, Step};
use crate::kb;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "The undefined symbol belongs to the extension's own package: a partial build, not a torch mismatch.",
    meaning: "The library references a function its own sources should define, and nothing defines it: the build left a kernel out (a GPU architecture or a feature switch was not compiled), or files of two builds were mixed. Torch is not involved, so aligning torch does not help. The same holds when the package's compiled module is absent altogether (`No module named 'exllamav2_ext'`, `'mmcv._ext'`): a wheel or build without it, or a source checkout that shadows the installed package. An op torch builds just in time (DeepSpeed's `cpu_adam`, `fused_adam`) whose library is missing from its directory under `~/.cache/torch_extensions` never finished building: the build's own error comes earlier in the log, and its directory (a build product) goes before the next try. A log that stops at such a build's progress (`Using … as PyTorch extensions root...`, `Loading extension module X...`, `… kernel during runtime now`) with nothing after it is a build that hangs, most often waiting on the `lock` file an interrupted build left in the op's directory: a warning, with that lock (or a fresh TORCH_EXTENSIONS_DIR) as the way out. A package built without its CUDA half says so at run time (`Not compiled with GPU support` in detectron2-style ops, PyG's `Not compiled with CUDA support`, mmcv's `nms_impl: implementation for device cuda:0 not found`): its build found no CUDA toolkit, or its CPU build was installed. pandas says it in its own words (`C extension: No module named 'pandas._libs' not built`), and a private name imported from a package in a source checkout (`cannot import name '_extras' from 'numba.cuda.cudadrv' (/home/u/numba-cuda/…/__init__.py)`) is a compiled module never built there.",
    fixes: "1. The companion release built for the installed torch (a complete wheel). 2. The project's prebuilt wheel. 3. A complete source build that really compiles (ranked after everything else when the machine has no CUDA compiler: it cannot run there). Uninstalling is offered when the model in use does not need the package, and for an optional package on a machine that cannot compile it. A JIT op's unfinished build: its build directory first (removed by a command only when the text shows the build failing and the directory holds nothing but build files), then the package's build; a hanging JIT build: its stale lock, or a fresh extensions root. A package without its CUDA half: its CUDA build from the project's wheel page (mmcv, PyG) first, then the CUDA toolkit found or installed for a build that compiles it. All need confirmation. A JIT op its package reports missing afterwards (DeepSpeed's `'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'`, op `cpu_adam`): its build directory under torch_extensions removed (advice: the text does not show where), then the package's install-time build of its ops; dropped when the text shows the op's own failure. A package that does not build against torch (by the tables, or unknown to them in a text that shows no torch and not named for CUDA) gets its wheel for this platform first (`--force-reinstall --only-binary`): its compiled module comes in that wheel, no compiler needed.",
    model_decides: true,
    ..CodeDoc::BASE
};

pub(crate) fn symbol(cx: &Cx<'_>, d: &mut Diagnostic, c: &Case<'_>) {
    if c.c_function {
        // Torch is worth ruling out only where it is in the picture: a package that links it,
        // or a text that shows it.
        let torch_near = d
            .package
            .as_deref()
            .map_or(cx.torch_shown(None), |p| {
                crate::kb::links_torch(p).unwrap_or_else(|| cx.torch_shown(None))
            });
        d.message = if torch_near {
            format!(
                "{} references the C function `{}`, which no torch release defines: its own core library (not loaded, or built without it) or a library it should have been linked with is missing, not a torch mismatch{}",
                c.who, c.name, c.cut
            )
        } else {
            format!(
                "{} references the C function `{}`, which nothing loaded defines: its own core library (not loaded, or built without it) or a library it should have been linked with is missing{}",
                c.who, c.name, c.cut
            )
        };
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
/// A package's compiled part built without its CUDA half (detectron2-style ops' `Not compiled
/// with GPU support`, PyG's `Not compiled with CUDA support`, mmcv's `nms_impl: implementation
/// for device cuda:0 not found`, which only mmcv's op registry prints): when it was compiled no
/// CUDA toolkit was found, or its CPU build was installed. Its CUDA build from the project's
/// wheel page first (nothing to compile), then the toolkit for a build that compiles it.
pub(crate) fn cpu_half(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    let code = Code::ExtensionIncompleteBuild;
    let mut d = blank(code, source);
    d.package = if detail.contains("_impl: implementation for device") {
        Some("mmcv".to_owned())
    } else {
        cx.near.filter(|n| *n != "torch").map(str::to_owned)
    }
    .map(|p| cx.as_named(p));
    let who = d.package.as_deref().unwrap_or("the extension");
    d.message = format!(
        "{who} was built without its CUDA code: when it was compiled no CUDA toolkit was found (CUDA_HOME unset, or no GPU visible to the build), or a CPU-only build of it was installed, so only its CPU half exists"
    );
    d.evidence.push(format!("the text says: {}", detail.trim()));
    let mut fixes = super::cuda_home_missing::fixes(
        code,
        cx,
        d.package.as_deref(),
        false,
        super::cuda_home_missing::Reads::of(detail),
    );
    if let Some(pkg) = d.package.as_deref().and_then(Name::new) {
        let facts = kb::package(pkg.as_str());
        // A package that publishes its CUDA builds on its own wheel page (mmcv's, PyG's): that
        // wheel has the CUDA half, with no toolkit to find and nothing to compile. With torch
        // known, its own page; without, a CUDA label's page.
        if let Some(facts) = facts.as_ref().filter(|f| f.wheel_index.is_some()) {
            let page = if cx.torch().is_some() {
                recipes::align_with_torch(code, cx, &pkg, false)
            } else {
                recipes::find_links_advice(code, &pkg, Some(facts), true)
                    .into_iter()
                    .collect()
            };
            fixes.splice(0..0, page.into_iter().map(Fix::leading));
        }
        // A rebuild that sees the toolkit this time (FORCE_CUDA for builds that ask whether a
        // GPU is visible).
        fixes.extend(recipes::source_build(code, cx, &pkg, &[]));
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

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
    let checkout = crate::kb::checkout_only(package);
    d.message = if checkout {
        format!(
            "{package}'s compiled module {module} is not built: it is compiled in the project's checkout, not installed from PyPI, and that build was not run (or failed) where the code runs"
        )
    } else {
        format!(
            "{package} is installed without its compiled module {module}: its C++/CUDA extensions were not built (or their build failed and was skipped)"
        )
    };
    d.explanation = Some(if checkout {
        let how = abidoc_knowledge::packages::package(package)
            .and_then(|f| f.notes.first().cloned())
            .unwrap_or_default();
        format!("{module} is built from the checkout's own sources, never downloaded. {how}")
    } else {
        format!("{module} is one of {package}'s compiled extension modules. Source installs build them only when asked (apex's --cpp_ext/--cuda_ext) and when nvcc and a matching torch are found; otherwise the Python half installs alone and the first use of the kernels fails. A complete build, or a wheel that contains them, fixes it.")
    });
    let mut fixes = recipes::extension_mismatch(
        Code::ExtensionIncompleteBuild,
        cx,
        d.package.as_deref(),
        None,
        &[],
    );
    if !checkout && let Some(f) = platform_wheel(cx, package, None) {
        fixes.insert(0, f);
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A compiled module lacking a function the package's Python code calls: the two halves come
/// from different builds (an old in-place build left beside newer sources, a partial rebuild,
/// the Python files of one release over the compiled module of another).
pub(crate) fn attribute_missing(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    module: &str,
    attribute: &str,
) -> Diagnostic {
    let mut d = blank(Code::ExtensionIncompleteBuild, source);
    d.package = abidoc_knowledge::packages::package_for_module(module)
        .map(|p| cx.as_named(p.name.clone()))
        .or_else(|| cx.near.filter(|n| *n != "torch").map(str::to_owned));
    let who = d
        .package
        .as_deref()
        .map_or("its package".to_owned(), ToOwned::to_owned);
    d.message = format!(
        "the compiled module {module} has no `{attribute}`, which {who}'s Python code calls: the compiled half was built from other sources than the Python half (an older build left in place, or a rebuild that did not replace it)"
    );
    d.fixes = crate::fix::rank(recipes::extension_mismatch(
        Code::ExtensionIncompleteBuild,
        cx,
        d.package.as_deref(),
        None,
        &[],
    ));
    d
}

/// A torch JIT op whose own library is missing from its build directory
/// (`…/torch_extensions/py310_cu121/cpu_adam/cpu_adam.so`): the just-in-time build did not
/// finish (it failed, or was interrupted and left its lock), and every later run finds the same
/// directory. The directory goes (a proven build product only), the build's first error is
/// what to fix, and the package's install-time build of its ops is the other way.
pub(crate) fn jit_op(cx: &Cx<'_>, source: Option<SourceRef>, library: &str, dir: SafePath) -> Diagnostic {
    let code = Code::ExtensionIncompleteBuild;
    let mut d = blank(code, source);
    let op = dir.as_str().rsplit('/').next().unwrap_or("the op").to_owned();
    d.library = Some(library.to_owned());
    d.package = crate::kb::package_for_library(library)
        .map(|p| p.name)
        .or_else(|| cx.near.filter(|n| *n != "torch").map(str::to_owned));
    let who = d.package.as_deref().map_or(String::new(), |p| format!("{p}'s "));
    d.message = format!(
        "{who}op `{op}` is built just in time into {dir}, and its library is not there: that build did not finish (its error is earlier in the log: a compiler, nvcc or ninja), or was interrupted"
    );
    d.evidence.push(format!("{library} is under torch's JIT build directory (torch_extensions), where torch.utils.cpp_extension.load puts what it compiles"));
    // Removed by a typed step only when the text shows the build failing and the directory is
    // proven a build product (ARCHITECTURE's rule for destruction); otherwise in words.
    let proven = cx.scene.compile_failed && cx.world.is_torch_extension_build_dir(dir.as_str());
    // The compile error shown in the text is what the next build meets first.
    let title = if cx.scene.compile_failed {
        format!("Fix the compile error printed above, then remove the stale build directory {dir}")
    } else {
        format!("Remove the op's build directory {dir} and run again, so `{op}` is built anew")
    };
    let remove = build_dir_removal(
        code,
        "remove-jit-build",
        title,
        "A failed or interrupted just-in-time build leaves its directory (and a lock) behind, and later runs reuse it; without it the next run compiles the op again and prints the compiler's error if it fails again.",
        proven.then(|| dir.clone()),
        format!("delete {dir} if it holds only build files (build.ninja, *.o, lock), then run again"),
    );
    // The directory is what every later run trips on: it leads, whatever else is offered.
    let mut fixes = vec![remove.leading()];
    if let Some(pkg) = d.package.as_deref().and_then(crate::fix::Name::new) {
        fixes.extend(recipes::source_build(code, cx, &pkg, &[]));
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A log that stops at torch's JIT build of an extension, nothing after it: the build hangs
/// (torch's `FileBaton` waits for a `lock` file in the op's directory that an interrupted build
/// left behind), or is still compiling. A warning: the text shows no error. The lock goes (by a
/// command only where the environment proves the directory a torch-extensions build directory),
/// or a fresh extensions root sidesteps it.
pub(crate) fn jit_stalled(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    root: Option<&str>,
    op: Option<&str>,
) -> Diagnostic {
    let code = Code::ExtensionIncompleteBuild;
    let mut d = blank(code, source);
    d.severity = crate::diagnostic::Severity::Warning;
    d.package = cx.near.filter(|n| *n != "torch").map(str::to_owned);
    let what = op.map_or("a JIT-built extension".to_owned(), |o| format!("the JIT-built extension `{o}`"));
    d.message = format!(
        "the log stops while torch builds or loads {what}: a build that hangs waits on the lock an interrupted build left (or is still compiling)"
    );
    if let Some(r) = root {
        d.evidence.push(format!("torch's extensions root: {r}"));
    }
    let dir = root
        .zip(op)
        .and_then(|(r, o)| SafePath::new(&format!("{}/{o}", r.trim_end_matches('/'))));
    let proven = dir
        .as_ref()
        .is_some_and(|p| cx.world.is_torch_extension_build_dir(p.as_str()));
    let words = match &dir {
        Some(p) => format!(
            "check that no other process is building it, then delete {p}/lock (or {p} itself) and run again"
        ),
        None => {
            // The root the log names, where it is a plain path; else where torch puts it.
            let root = root
                .and_then(SafePath::new)
                .map_or_else(|| "the extensions root (~/.cache/torch_extensions by default)".to_owned(), |r| r.to_string());
            format!(
                "check that no other process is building it, then delete the `lock` file in the extension's directory under {root}, or that directory, and run again"
            )
        }
    };
    let remove = build_dir_removal(
        code,
        "remove-jit-lock",
        match &dir {
            Some(p) => format!("Remove the stale lock in {p} (or the whole directory) and run again"),
            None => "Remove the stale lock in the extension's build directory and run again".to_owned(),
        },
        "torch.utils.cpp_extension builds each extension in its own directory under the extensions root and holds a `lock` file there while it builds; a build killed midway leaves it, and every later run waits for it forever. The directory holds build files only: a new run compiles the extension again.",
        dir.clone().filter(|_| proven),
        words,
    );
    let mut fixes = vec![remove.leading()];
    fixes.push(
        Fix::in_words(
            code,
            "fresh-extensions-root",
            "Or build in a fresh extensions root (TORCH_EXTENSIONS_DIR)",
            "torch builds JIT extensions under TORCH_EXTENSIONS_DIR when it is set; an empty directory of this user's has no stale lock, and no other user's build on a shared file system to wait for.",
            format!(
                "{}, then run again",
                recipes::set_in_words(cx, "TORCH_EXTENSIONS_DIR", "<an empty directory of your own>")
            ),
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// Removing a JIT build directory: a typed removal where the environment proves the directory a
/// torch-extensions build product (ARCHITECTURE's rule for destruction), else the same in words
/// for the person to check first.
fn build_dir_removal(
    code: Code,
    id: &'static str,
    title: String,
    why: &'static str,
    proven: Option<SafePath>,
    words: String,
) -> Fix {
    match proven {
        Some(path) => Fix::new(code, id, FixKind::Configure, title, why).step(Step::RemoveBuildDir { path }),
        None => Fix::new(code, id, FixKind::Advice, title, why)
            .step(Step::Manual(words))
            .unverified(),
    }
}

/// A package's just-in-time op that did not build or load, reported by the package afterwards
/// (DeepSpeed's optimizer without its `ds_opt_adam`): the op's own build failed or its library
/// is missing, and the text before it holds why. Its build directory goes (in words: the text
/// does not show where its extensions root is), or the op is compiled at install time.
pub(crate) fn jit_op_unavailable(cx: &Cx<'_>, source: Option<SourceRef>, package: &str, op: &str) -> Diagnostic {
    let code = Code::ExtensionIncompleteBuild;
    let mut d = blank(code, source);
    d.package = Some(crate::kb::normalize(package));
    d.message = format!(
        "{package}'s op `{op}`, compiled just in time, did not build or load, so {package} runs without it: the build's own error (a compiler, nvcc or ninja, or `{op}.so` missing) comes earlier in the log"
    );
    d.evidence.push(format!(
        "{package} reports the op missing after the fact (its object has no handle to `{op}`): the failure itself is the op's build or load"
    ));
    let remove = build_dir_removal(
        code,
        "remove-jit-build",
        format!("Remove `{op}`'s build directory and run again, so it is built anew with its error shown"),
        "A failed or interrupted just-in-time build leaves its directory (and a lock) behind, and later runs reuse it; without it the next run compiles the op again and prints the compiler's error if it fails again.",
        None,
        format!(
            "delete ~/.cache/torch_extensions/<python and CUDA tags>/{op} (or under $TORCH_EXTENSIONS_DIR) if it holds only build files, then run again and read the first error of its build"
        ),
    );
    let mut fixes = vec![remove.leading()];
    if let Some(pkg) = crate::fix::Name::new(package) {
        fixes.extend(recipes::source_build(code, cx, &pkg, &[]));
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// A package that does not build against torch ships its compiled module in one wheel per
/// platform: missing, it is a copy made for another platform or a broken install, and this
/// platform's wheel is the whole fix (no compiler). A package the tables do not know, in a text
/// that shows no torch at all, is taken for one too (pandas' `C extension: … not built`).
///
/// `module`, the compiled module the text names, when it is named for CUDA (`pointnet2_cuda`)
/// says a GPU extension built from source, as a package named for CUDA (`knn-cuda`) does.
pub(crate) fn platform_wheel(cx: &Cx<'_>, package: &str, module: Option<&str>) -> Option<Fix> {
    if module.is_some_and(|m| m.to_ascii_lowercase().contains("cuda")) {
        return None;
    }
    // (One named for CUDA, `knn-cuda`, is a GPU extension built from source.)
    let not_torch = match crate::kb::links_torch(package) {
        Some(links) => !links,
        None => !cx.torch_shown(None) && !package.contains("cuda"),
    };
    if !not_torch || crate::kb::sdist_only(package) || crate::kb::checkout_only(package) {
        return None;
    }
    let n = Name::new(package)?;
    Some(
        Fix::new(
            Code::ExtensionIncompleteBuild,
            "platform-wheel",
            FixKind::PrebuiltWheel,
            format!("Reinstall {n} from its wheel for this Python and platform"),
            format!("{n}'s compiled module comes in one wheel per platform and Python; a copy built or bundled elsewhere (a zip made on macOS for Linux, an environment copied between machines) is not importable here. A bundle for another machine is built with pip's --platform and --python-version options."),
        )
        .step(recipes::wheel_again(cx, &n, false))
        .leading(),
    )
}
