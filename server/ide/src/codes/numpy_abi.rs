//! `numpy-abi`: a module compiled against NumPy 1.x runs under NumPy 2 (or the reverse).
//!
//! Produced by NumPy's "A module that was compiled using NumPy 1.x cannot be run in NumPy 2" and
//! "numpy.core.multiarray failed to import" / `_ARRAY_API not found`. NumPy 2 changed the C ABI:
//! `numpy<2` comes first for a module built for 1.x, an upgrade for the reverse. Also code written
//! for an older NumPy's Python names (`np.float_`, `np.float`, `BUFSIZE`), which the knowledge
//! dates to the release that removed them: that NumPy's predecessor, or the new names.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, FixKind, Name, PipFlag, Requirement, Step, Version};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A module compiled against NumPy 1.x running under NumPy 2.x, or the reverse.",
    meaning: "NumPy 2 changed the C ABI. Extensions compiled against NumPy 1.x (torch ≤ 2.2, older OpenCV and many others) fail to import under NumPy 2, and modules built for 2.x need a NumPy that new. NumPy 2.0 (and 1.24 before it) also removed names from its Python namespace, so code written for older releases fails with `module 'numpy' has no attribute 'float_'` or `cannot import name 'BUFSIZE' from 'numpy'`. A package's own check of NumPy's version at import (`Numba needs NumPy 1.24 or less`, numba's `initialization of _internal failed without raising an exception` under a NumPy newer than it supports) is the same disagreement in that package's words: NumPy within the range it states, or its release for the installed NumPy.",
    fixes: "1. For a module built for NumPy 1.x: `pip install \"numpy<2\"` (ranked after the module's upgrade when a package of the environment requires NumPy 2 in its metadata: NumPy 1.x would break it). 2. Or upgrade the failing module to a release built for NumPy 2 (a command for the package the text shows near the message, else advice). For a module built for a newer NumPy: upgrade NumPy. For a name a NumPy release removed (`np.float_` in 2.0, `np.float` in 1.24): the NumPy before that release, or the package or code moved to the new names (advice).",
    ..CodeDoc::BASE
};

/// Code (a package's, or the user's) written for a NumPy that still had `name`, run under the
/// release that removed it: the NumPy below that release, or code that uses the new names.
pub(crate) fn removed_name(cx: &Cx<'_>, source: Option<SourceRef>, name: &str) -> Diagnostic {
    let code = Code::NumpyAbi;
    let mut d = blank(code, source);
    d.package = Some(culprit(cx, ""));
    let Some(row) = abidoc_knowledge::compat::numpy_removed(name) else {
        return d;
    };
    let restored = row
        .restored_in
        .as_deref()
        .filter(|_| row.restored.iter().any(|r| r == name));
    d.message = format!(
        "`np.{name}` was removed in NumPy {}{}: the code was written for an older NumPy than the one installed",
        row.removed_in,
        restored.map_or(String::new(), |r| format!(" (and is back, with another meaning, from {r})"))
    );
    d.evidence.push(format!("{} ({})", row.instead, row.source));
    let mut fixes = Vec::new();
    // `numpy<2`, as the ABI fix writes it (one id for one command); `numpy<1.24`.
    let pin = row.removed_in.strip_suffix(".0").unwrap_or(&row.removed_in);
    if let (Some(numpy), Some(below)) = (Name::new("numpy"), Version::new(pin)) {
        fixes.push(
            Fix::new(
                code,
                &format!("numpy-below-{pin}"),
                FixKind::AlignCompanion,
                format!("Install the NumPy before {} (numpy<{pin})", row.removed_in),
                format!(
                    "The code that uses np.{name} was written for NumPy before {}; pip may refuse it where another package needs a newer NumPy, and then the code is what must change.",
                    row.removed_in
                ),
            )
            .step(recipes::pip_install(
                cx,
                Vec::new(),
                vec![Requirement::Below(numpy, below)],
            ))
            .cost(crate::fix::Cost::download()),
        );
    }
    fixes.push(
        Fix::in_words(
            code,
            "upgrade-module",
            format!("Or upgrade the package that uses np.{name} (or change the code) to NumPy {}'s names", row.removed_in),
            row.instead.clone(),
            format!(
                "upgrade the package in the traceback that uses np.{name}, or change your code. {}",
                row.instead
            ),
        ),
    );
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The package built for another NumPy: the one the text shows nearest to the failure, passing
/// over NumPy itself (its own message names it), else NumPy (only it is known).
fn culprit(cx: &Cx<'_>, detail: &str) -> String {
    // A warning's own line may name the module's file (`…/site-packages/scipy/special/
    // __init__.py:640: RuntimeWarning: numpy.dtype size changed`).
    let on_line = crate::incidents::site_package_of(detail).filter(|p| p != "numpy");
    on_line.unwrap_or_else(|| {
        cx.scene
            .package_near_skipping(cx.span, &["numpy"])
            .unwrap_or("numpy")
            .to_owned()
    })
}

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    if mixed_releases(detail) {
        return mixed(cx, source, detail);
    }
    if let Some(gate) = version_gate(detail) {
        return gated(cx, source, &gate);
    }
    let mut d = blank(Code::NumpyAbi, source);
    // The module built for the other NumPy is the package at fault; the text shows it near the
    // message (the import, the frames), else only NumPy is known.
    d.package = Some(culprit(cx, detail));
    // NumPy 1.x's own wording for a module built against a newer 1.x (`numpy.dtype has the
    // wrong size, try recompiling`): not a major apart.
    let what = if detail.contains("has the wrong size") {
        "a newer NumPy than the one installed (its C structures differ in size)"
    } else if minor_api_step(detail) {
        "a newer NumPy 1.x C API than the one installed"
    } else {
        "another NumPy major version than the one installed"
    };
    d.message = format!(
        "a compiled module was built against {what}: {}",
        detail.lines().next().unwrap_or("").trim()
    );
    d.fixes = fixes(cx, detail, d.package.as_deref());
    d
}

/// A package's own check of NumPy's version at import: who checks, the bound it states (where
/// it states one) and whether that bound is the newest it supports.
struct Gate {
    package: String,
    bound: Option<String>,
    at_most: bool,
}

/// `Numba needs NumPy 1.24 or less` (`or greater`), and numba's compiled `_internal` failing to
/// initialize under a NumPy newer than it supports (`initialization of _internal failed
/// without raising an exception`).
fn version_gate(detail: &str) -> Option<Gate> {
    let line = detail.lines().next().unwrap_or("");
    if line.contains("initialization of _internal failed") {
        return Some(Gate {
            package: "numba".into(),
            bound: None,
            at_most: true,
        });
    }
    let p = line.find(" needs NumPy ")?;
    // The word before it, as a distribution's name (`Numba` in `raise ImportError("Numba needs
    // …")`, a source line a traceback shows).
    let head = &line[..p];
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map_or(0, |i| i + 1);
    let who = Some(&head[start..]).filter(|w| {
        w.starts_with(|c: char| c.is_ascii_alphabetic()) && crate::fix::Name::new(w).is_some()
    })?;
    let rest = &line[p + 13..];
    let bound: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let bound = bound.trim_end_matches('.');
    let at_most = rest[bound.len()..].trim_start().starts_with("or less");
    let at_least = rest[bound.len()..].trim_start().starts_with("or greater");
    (at_most || at_least).then(|| Gate {
        package: crate::kb::normalize(who),
        bound: (!bound.is_empty()).then(|| bound.to_owned()),
        at_most,
    })
}

/// A package refusing the installed NumPy by its own check: NumPy inside the range it states,
/// or the package's release for the installed NumPy.
fn gated(cx: &Cx<'_>, source: Option<SourceRef>, gate: &Gate) -> Diagnostic {
    let code = Code::NumpyAbi;
    let mut d = blank(code, source);
    let pkg = &gate.package;
    d.package = Some(pkg.clone());
    let side = if gate.at_most { "newer" } else { "older" };
    d.message = match &gate.bound {
        Some(b) => format!(
            "{pkg} supports NumPy {b} or {} only, and checks it at import: the installed NumPy is {side}",
            if gate.at_most { "older" } else { "newer" }
        ),
        None => format!(
            "{pkg}'s compiled module did not initialize: the installed NumPy is newer than this {pkg} release supports"
        ),
    };
    let mut fixes = Vec::new();
    let numpy = Name::new("numpy");
    // The bound as pip's: `1.24 or less` is below 1.25, `2 or less` below 3; a bound with a
    // patch release (`1.24.3`) is below its next patch.
    let next_minor = gate.bound.as_deref().and_then(|b| {
        let parts: Vec<u32> = b.split('.').map(str::parse).collect::<Result<_, _>>().ok()?;
        let next = match parts.as_slice() {
            [major] => format!("{}", major + 1),
            [major, minor] => format!("{major}.{}", minor + 1),
            [major, minor, patch] => format!("{major}.{minor}.{}", patch + 1),
            _ => return None,
        };
        Version::new(&next)
    });
    match (&numpy, gate.at_most) {
        (Some(n), true) => {
            if let Some(v) = next_minor {
                fixes.push(
                    Fix::new(
                        code,
                        "numpy-in-range",
                        FixKind::AlignCompanion,
                        format!("Install a NumPy {pkg} supports (numpy<{})", v.as_str()),
                        format!("{pkg} states the newest NumPy it supports; pip takes the newest release below the next one."),
                    )
                    .step(recipes::pip_install(cx, Vec::new(), vec![Requirement::Below(n.clone(), v)])),
                );
            }
        }
        (Some(n), false) => {
            if let Some(v) = gate.bound.as_deref().and_then(Version::new) {
                fixes.push(
                    Fix::new(
                        code,
                        "numpy-in-range",
                        FixKind::AlignCompanion,
                        format!("Install NumPy {} or newer, the oldest {pkg} supports", v.as_str()),
                        format!("{pkg} states the oldest NumPy it supports."),
                    )
                    .step(recipes::pip_install(cx, vec![PipFlag::Upgrade], vec![Requirement::AtLeast(n.clone(), v)])),
                );
            }
        }
        (None, _) => {}
    }
    if let Some(p) = Name::new(pkg) {
        fixes.push(if gate.at_most {
            Fix::new(
                code,
                "package-for-numpy",
                FixKind::AlignCompanion,
                format!("Or upgrade {p} to a release made for the installed NumPy"),
                format!("Each {p} release supports the NumPy releases of its day; a later one supports newer NumPy (numba's llvmlite moves with it)."),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::Upgrade, PipFlag::NoCacheDir],
                vec![Requirement::Any(p)],
            ))
            .cost(crate::fix::Cost::download())
            .unverified()
        } else {
            Fix::in_words(
                code,
                "package-for-numpy",
                format!("Or install the {p} release made for the installed NumPy"),
                format!("An older {p} release supports older NumPy releases."),
                format!("pip install \"{p}<the first release that needs this NumPy>\" (its release notes list the NumPy each supports)"),
            )
        });
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

fn fixes(cx: &Cx<'_>, detail: &str, package: Option<&str>) -> Vec<Fix> {
    let code = Code::NumpyAbi;
    // "numpy.dtype size changed ... binary incompatibility" is a module compiled against NumPy
    // 1.x meeting NumPy 2's larger dtype struct: the same direction as the explicit message.
    let to_v1 = detail.contains("NumPy 2")
        || detail.contains("numpy 2")
        || detail.contains("_ARRAY_API")
        || detail.contains("1.x")
        || detail.contains("dtype size changed")
        // torch before 2.3 (built against NumPy 1.x) under NumPy 2.
        || detail.contains("Numpy is not available");
    let mut fixes = Vec::new();
    let (Some(numpy), Some(two)) = (Name::new("numpy"), Version::new("2")) else {
        return fixes;
    };
    if to_v1 {
        // Packages of the environment that require NumPy 2 (`numpy>=2` in their metadata): NumPy
        // 1.x would break each of them, so the module built for 1.x moves instead.
        let needs_two: Vec<String> = cx
            .world
            .requiring_major("numpy", 2)
            .into_iter()
            .filter(|p| Some(p.as_str()) != package)
            .collect();
        let below = Fix::new(
            code,
            "numpy-below-2",
            FixKind::AlignCompanion,
            "Install NumPy 1.x (numpy<2)",
            "The failing module was compiled against NumPy 1.x; NumPy 2 changed the C ABI.",
        )
        .step(recipes::pip_install(
            cx,
            Vec::new(),
            vec![Requirement::Below(numpy, two)],
        ));
        fixes.push(if needs_two.is_empty() {
            below
        } else {
            below.blocked_by(format!(
                "{} require{} NumPy 2 (numpy>=2 in {} metadata): NumPy 1.x would break {}",
                needs_two.join(", "),
                if needs_two.len() == 1 { "s" } else { "" },
                if needs_two.len() == 1 { "its" } else { "their" },
                if needs_two.len() == 1 { "it" } else { "them" },
            ))
        });
        // The package named near the message, typed: its newest release is built for NumPy 2
        // (most released since mid-2024 are); torch's is a torch move (2.3 and later).
        let named = package
            .filter(|p| !matches!(*p, "numpy" | "torch"))
            .and_then(Name::new);
        fixes.push(match named {
            Some(p) => Fix::new(
                code,
                "upgrade-module",
                FixKind::AlignCompanion,
                // First when NumPy 1.x is in the way (`needs_two`), one more way otherwise.
                format!(
                    "{} {p} to its newest release, built for NumPy 2",
                    if needs_two.is_empty() { "Or upgrade" } else { "Upgrade" }
                ),
                format!("Most packages released since mid-2024 are built for NumPy 2; {p}'s newest release imports under it, if it has one for this Python."),
            )
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::Upgrade, PipFlag::NoCacheDir],
                vec![Requirement::Any(p)],
            ))
            .cost(crate::fix::Cost::download())
            .unverified(),
            None => Fix::in_words(
                code,
                "upgrade-module",
                if needs_two.is_empty() {
                    "Or upgrade the failing module to a release built for NumPy 2"
                } else {
                    "Upgrade the failing module to a release built for NumPy 2"
                },
                "Most packages released since mid-2024 support NumPy 2.",
                "upgrade the module named in the traceback",
            ),
        });
    } else {
        // A module of NumPy 1.x's newer C API (`0xe` against `0xd`, `wrong size`): the newest
        // 1.x, since NumPy 2 would break it the other way.
        let within_1x = detail.contains("has the wrong size") || minor_api_step(detail);
        let req = if within_1x {
            Requirement::Below(numpy, two)
        } else {
            Requirement::Any(numpy)
        };
        fixes.push(
            Fix::new(
                code,
                "upgrade-numpy",
                FixKind::AlignCompanion,
                if within_1x {
                    "Upgrade NumPy to its newest 1.x release (numpy<2), which the module's C API is part of"
                } else {
                    "Upgrade NumPy to the version the module was built against"
                },
                if within_1x {
                    "The module was compiled against a newer NumPy 1.x C API than the one installed; the newest 1.x release has it, and NumPy 2 would break the module the other way."
                } else {
                    "The module was compiled against a newer NumPy C API."
                },
            )
            .step(recipes::pip_install(cx, vec![PipFlag::Upgrade], vec![req])),
        );
    }
    crate::fix::rank(fixes)
}

/// `module compiled against API version 0xe but this version of numpy is 0xd`: both C API
/// versions of NumPy 1.x (2.0's is 0x12), the module's the newer.
fn minor_api_step(detail: &str) -> bool {
    let hex_after = |w: &str| {
        let r = &detail[detail.find(w)? + w.len()..];
        let r = r.trim_start().strip_prefix("0x")?;
        let n = r.bytes().take_while(u8::is_ascii_hexdigit).count();
        u32::from_str_radix(&r[..n], 16).ok()
    };
    matches!(
        (hex_after("compiled against API version"), hex_after("this version of numpy is")),
        (Some(built), Some(have)) if built > have && built < 0x12
    )
}

/// Whether the message is NumPy's own modules disagreeing (the scanner's reading, not another
/// of NumPy's ABI messages on the same line): a name one private module imports from another is
/// missing.
fn mixed_releases(detail: &str) -> bool {
    let first = detail.lines().next().unwrap_or("");
    abidoc_syntax::scan::numpy_internals_disagree(first)
        && !first.contains("compiled using NumPy")
        && !first.contains("size changed")
}

/// Files of two NumPy releases mixed in one install, or one release's modules still loaded in a
/// process after pip installed another: NumPy itself, reinstalled as one release, in a fresh
/// process.
fn mixed(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    let code = Code::NumpyAbi;
    let mut d = blank(code, source);
    d.package = Some("numpy".to_owned());
    d.message = format!(
        "NumPy's own modules disagree: files of two NumPy releases are mixed (pip changed NumPy while a kernel still had the old one loaded, or two installs overlap): {}",
        detail.lines().next().unwrap_or("").trim()
    );
    let Some(numpy) = Name::new("numpy") else {
        return d;
    };
    // The release the text states, else the one pip resolves: either way one release's files.
    let known = cx
        .world
        .installed_version("numpy")
        .or_else(|| cx.scene.version_of("numpy").map(str::to_owned));
    let req = known
        .as_deref()
        .and_then(Version::new)
        .map_or_else(|| Requirement::Any(numpy.clone()), |v| Requirement::Exact(numpy.clone(), v));
    let keep = if known.is_none() {
        " The text does not say which NumPy is installed: without a pin pip takes its newest; pin the release other packages need (numpy==<the version `pip show numpy` prints>) to keep it."
    } else {
        ""
    };
    d.fixes = crate::fix::rank(vec![
        Fix::new(
            code,
            "reinstall-numpy",
            FixKind::AlignCompanion,
            "Reinstall NumPy as one release, then restart Python (a notebook's kernel or runtime)",
            format!("A private NumPy module lacks a name another one imports: the Python files of one release sit beside the compiled modules of another, or the process still holds the release loaded before pip replaced it. A forced reinstall writes one release's files; a fresh process loads them.{keep}"),
        )
        .step(recipes::pip_install(
            cx,
            vec![PipFlag::ForceReinstall, PipFlag::NoDeps, PipFlag::NoCacheDir],
            vec![req],
        ))
        .step(Step::Manual(
            "restart the Python process (Jupyter: Kernel → Restart; Colab: Runtime → Restart session) before importing again".into(),
        ))
        .cost(crate::fix::Cost::download()),
    ]);
    d
}
