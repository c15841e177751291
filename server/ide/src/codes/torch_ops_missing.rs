//! `torch-ops-missing`: an extension's operators never registered (`operator torchvision::nms
//! does not exist`) because its library failed to load silently; TensorFlow's unregistered
//! custom op (`Op type not registered 'CaseFoldUTF8'`), its package not imported or loaded.
//!
//! Produced by torch's "operator X::y does not exist" (and `'_OpNamespace' 'X' object has no
//! attribute 'y'`), torchvision's/torchaudio's "Couldn't
//! load custom C++ ops" and `torch.ops.load_library`'s "Could not load this library: PATH"
//! (torchcodec prints one per FFmpeg major it tried, without the loader's reason). With the
//! environment, the named libraries are read from disk: torch symbols that do not resolve make
//! it this code, a system library missing alone (FFmpeg) makes it `missing-shared-library`, and
//! a system library every one of them lacks goes into each aligning fix, since no release loads
//! without it. The companion release built for the installed torch comes first (or the
//! project's find-links wheel); installing torch and the companion in one resolve is the general
//! form.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef, SymbolStatus};
use crate::facts::LibraryFacts;
use crate::fix::{Fix, Name};
use crate::kb;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`operator X::y does not exist` and similar: an extension's operators never registered because its library failed to load silently; TensorFlow's `Op type not registered 'X'` alike.",
    meaning: "torchvision, torchaudio, torchcodec and similar packages load their compiled operators when imported (torchcodec through `torch.ops.load_library`, which says only `Could not load this library: PATH`), and swallow or rephrase the failure; the first call of an operator then fails (`operator x::y does not exist`, `No such operator x::y`, or newer torch's `'_OpNamespace' 'x' object has no attribute 'y'`; the namespace names the package: `fbgemm` is fbgemm-gpu's). Almost always the package was built for another torch release. With the environment, the libraries the text names are read from disk: their torch symbols that the installed torch does not export, and the system libraries (FFmpeg) the loader would not find. TensorFlow says the same of a custom op (`Op type not registered 'CaseFoldUTF8' in binary running on host`): the package whose library registers it (tensorflow-text, tensorflow-addons' `Addons>` ops, tensorflow-io's `IO>`, by the tables' `tf_ops`) was not imported before the graph was loaded — a SavedModel or TF Hub model needs the import first —, is not installed, or is built for another TensorFlow.",
    fixes: "1. The companion release built for the installed torch (exact pin, `--no-cache-dir --no-deps`), or its wheel from the project's find-links page for that torch and CUDA (PyG). When none of the libraries can load without a system library the machine lacks (torchcodec's FFmpeg), that library's install is part of the same fix (no release loads without it), with root where only the distribution's package manager provides it. 2. Without a version to pin: install torch and the companion in one command, so pip resolves a matching pair (torch pinned when its version is known). For a TensorFlow op: its package's release for the installed TensorFlow (tensorflow-text's line of its major.minor), and its import before the model is loaded.",
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    what: &str,
    package: Option<&str>,
    libraries: &[String],
) -> Diagnostic {
    // What the files say: read only when the environment may be read and holds them.
    let read: Vec<(&str, LibraryFacts)> = libraries
        .iter()
        .filter_map(|l| cx.world.library_facts(l).map(|f| (l.as_str(), f)))
        .collect();
    let torch_missing = |f: &LibraryFacts| {
        f.symbols
            .iter()
            .filter(|s| {
                s.status != SymbolStatus::Resolved
                    && crate::symbols::owner(&s.mangled) == crate::symbols::Owner::Torch
            })
            .count()
    };
    let mismatched = read.iter().find(|(_, f)| torch_missing(f) > 0);
    // Every library lacks a system library no wheel ships: no release of the package loads until
    // the machine has it.
    let system = common_system_library(&read);
    // torch's symbols all resolve: the missing library is the whole story.
    if mismatched.is_none()
        && let Some((lib, needer, _)) = system
    {
        return super::missing_shared_library::diagnose(cx, source, lib, Some(needer));
    }
    let mut d = blank(Code::TorchOpsMissing, source);
    d.library = libraries.first().cloned();
    // The distribution installed where the environment shows it (an operator namespace names
    // the package, not which of its distributions: fbgemm-gpu or fbgemm-gpu-cpu).
    d.package = package.map(kb::normalize).map(|p| cx.world.installed_distribution(&p).unwrap_or(p)).or_else(|| {
        read.iter()
            .find_map(|(_, f)| f.owner.as_ref().map(|(p, _)| p.clone()))
            .or_else(|| {
                libraries
                    .first()
                    .and_then(|l| cx.world.package_of_library(l))
                    .map(|p| p.name)
            })
            // An operator namespace no table names (`torch.ops._C`): the extension the text
            // shows around it.
            .or_else(|| cx.near.filter(|n| *n != "torch").map(str::to_owned))
    });
    let pkg = d.package.clone().unwrap_or_else(|| "the extension".into());
    d.message = if what.contains("no CUDA kernel") {
        format!(
            "{what}: {pkg} and torch come from different builds (a CPU-only {pkg}, or one built for another torch or CUDA); they must come from the same index"
        )
    } else {
        format!(
            "{what}: {pkg}'s compiled library failed to load silently, almost always because it was built for another torch version"
        )
    };
    if let Some((lib, f)) = mismatched {
        let torch = cx.torch().unwrap_or_else(|| "installed".into());
        d.message = format!(
            "{what}: {pkg}'s compiled library was built for another torch ({} of its torch symbols are not exported by torch {torch})",
            torch_missing(f)
        );
        d.library = Some((*lib).to_owned());
        d.symbols = f
            .symbols
            .iter()
            .filter(|s| s.status != SymbolStatus::Resolved)
            .take(8)
            .cloned()
            .collect();
        for e in &f.evidence {
            if !d.evidence.contains(e) {
                d.evidence.push(e.clone());
            }
        }
    }
    if let Some((_, _, sys)) = system {
        d.evidence.push(format!(
            "none of the {} libraries named can load on this machine without {}: {}",
            read.len(),
            super::missing_shared_library::short_what(&sys.what),
            read.iter()
                .filter_map(|(_, f)| f.missing_needed.first().map(String::as_str))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    d.fixes = fixes(cx, d.package.as_deref(), system);
    d
}

/// The system library (no wheel ships it) that every library read lacks, as (the soname the
/// first lacks, that library, its table entry); `None` when one of them lacks none.
fn common_system_library<'a>(
    read: &'a [(&'a str, LibraryFacts)],
) -> Option<(
    &'a str,
    &'a str,
    &'static abidoc_knowledge::system_libs::SystemLibrary,
)> {
    let lacks =
        |f: &'a LibraryFacts| super::missing_shared_library::unshipped_system_library(&f.missing_needed);
    let (first_lib, first) = read.first()?;
    let (soname, sys) = lacks(first)?;
    read.iter()
        .all(|(_, f)| lacks(f).is_some_and(|(_, s)| std::ptr::eq(s, sys)))
        .then_some((soname, *first_lib, sys))
}


fn fixes(
    cx: &Cx<'_>,
    pkg: Option<&str>,
    system: Option<(
        &str,
        &str,
        &'static abidoc_knowledge::system_libs::SystemLibrary,
    )>,
) -> Vec<Fix> {
    let code = Code::TorchOpsMissing;
    let mut fixes = Vec::new();
    // No package named (an operator namespace no table knows, no text around it): what any
    // unnamed extension built for another torch gets, never a guess at one.
    let Some(pkg) = pkg.and_then(Name::new) else {
        return recipes::extension_mismatch(code, cx, None, None, &[]);
    };
    fixes.extend(recipes::align_with_torch(code, cx, &pkg, false));
    if fixes.is_empty() {
        // No release data and no pairing: what any extension built for another torch gets.
        fixes = recipes::extension_mismatch(code, cx, Some(pkg.as_str()), None, &[]);
    }
    if let Some((lib, _, sys)) = system {
        super::missing_shared_library::with_system_library(cx, &mut fixes, pkg.as_str(), lib, sys);
    }
    crate::fix::rank(fixes)
}

/// TensorFlow's `Op type not registered 'X'`: the library that registers the op was not loaded
/// in this process. A custom-op package registers its ops when imported, so a SavedModel or TF
/// Hub model that uses them loads only after `import tensorflow_text` (and the like); the
/// package may also be missing, or built for another TensorFlow release line, whose library
/// then fails to load.
pub(crate) fn tensorflow_op(cx: &Cx<'_>, source: Option<SourceRef>, op: &str) -> Diagnostic {
    let code = Code::TorchOpsMissing;
    let mut d = blank(code, source);
    let owner = abidoc_knowledge::packages::package_for_tf_op(op);
    d.package = owner.map(|p| p.name.clone());
    let tf = cx.package_version("tensorflow");
    let Some(p) = owner else {
        d.message = format!(
            "TensorFlow has no op `{op}` registered in this process: the graph (a SavedModel, a TF Hub model) uses an op this TensorFlow lacks — a custom op whose package was not imported, not installed or built for another TensorFlow, or a built-in op of a newer TensorFlow than the one loading the model"
        );
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                code,
                "import-op-package",
                format!("Import the package that defines `{op}` before loading the model (its release for this TensorFlow), or load the model with the TensorFlow that saved it"),
                "A custom op's library registers the op when its package is imported; TensorFlow cannot find a package from an op's name. A built-in op of a newer TensorFlow (a model exported by it) needs that TensorFlow.",
                format!(
                    "find the package whose ops include {op} (the model's documentation names it), pip install its release for this TensorFlow, and import it before loading the model; if {op} is TensorFlow's own, use the TensorFlow release the model was saved with or a newer one"
                ),
            ),
        ]);
        return d;
    };
    let import = p
        .import_names
        .first()
        .cloned()
        .unwrap_or_else(|| p.name.replace('-', "_"));
    // English's possessive of a name ending in s (`tensorflow-addons'`).
    let whose = if p.name.ends_with('s') {
        format!("{}'", p.name)
    } else {
        format!("{}'s", p.name)
    };
    d.message = format!(
        "TensorFlow has no op `{op}` registered in this process: it is {whose}, which registers its ops when `import {import}` runs — not imported before the model was loaded, not installed, or built for another TensorFlow release"
    );
    d.evidence.push(format!("`{op}` is one of {whose} ops ({})", p.source));
    // tensorflow-text is released per TensorFlow major.minor (2.15.x for TensorFlow 2.15): its
    // line of the installed TensorFlow; the others by name, their pages pairing releases.
    let series = tf
        .as_deref()
        .and_then(abidoc_knowledge::Version::parse)
        .map(|v| v.major_minor())
        .and_then(|(a, b)| Some((u32::try_from(a).ok()?, u32::try_from(b).ok()?)));
    let mut fixes = Vec::new();
    let reason = format!(
        "Importing {} registers its ops with TensorFlow; a release built for another TensorFlow line fails to load its library, so its release for the installed TensorFlow is the one to have (pip keeps it when it is already there).",
        p.name
    );
    let import_step = crate::fix::Step::Manual(format!(
        "add `import {import}` before the model is loaded (hub.KerasLayer, tf.saved_model.load): nothing else uses it, the import itself registers the ops"
    ));
    // tensorflow-text is released per TensorFlow major.minor: with TensorFlow's version known,
    // that line; without it, the same pin in words (a bare install would take the newest, whose
    // pin moves TensorFlow, or keep a mismatched one). The other packages by name.
    let name = Name::new(&p.name);
    let req = match (name, series) {
        (Some(n), Some((a, b))) if p.name == "tensorflow-text" => {
            Some(crate::fix::Requirement::Series(n, a, b))
        }
        (Some(_), None) if p.name == "tensorflow-text" => None,
        (Some(n), _) => Some(crate::fix::Requirement::Any(n)),
        (None, _) => None,
    };
    match req {
        Some(req) => {
            let shown = crate::fix::render::requirement(&req);
            fixes.push(
                Fix::new(
                    code,
                    "install-op-package",
                    crate::fix::FixKind::InstallMissing,
                    format!("Install {shown} and `import {import}` before loading the model"),
                    reason,
                )
                .step(recipes::pip_install(cx, Vec::new(), vec![req]))
                .step(import_step),
            );
        }
        None => fixes.push(
            Fix::new(
                code,
                "install-op-package",
                crate::fix::FixKind::InstallMissing,
                format!(
                    "Install {}'s release for your TensorFlow and `import {import}` before loading the model",
                    p.name
                ),
                reason,
            )
            .step(crate::fix::Step::Manual(format!(
                "python -m pip install \"{}==X.Y.*\" with X.Y your TensorFlow's major.minor (`pip show tensorflow`)",
                p.name
            )))
            .step(import_step)
            .filled_in_with("your TensorFlow's major.minor"),
        ),
    }
    d.fixes = crate::fix::rank(fixes);
    d
}
