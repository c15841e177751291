//! `glibc-too-old`: a library needs a `GLIBC_2.x` version the system C library lacks (or, on
//! macOS, a function of macOS' own libraries): it was built for a newer OS than this one.
//!
//! Produced by a version-not-found line naming a `GLIBC_` version, and by dyld's missing symbol
//! expected in a library of macOS itself. The C library cannot be
//! replaced per process, so the fixes are removing the package where its importers do without it,
//! else pip's wheel for this system's glibc (`--only-binary`: pip reads the manylinux tags this
//! glibc accepts), else a build made for an older glibc or a newer system: advice.

use super::{Code, CodeDoc, Cx, recipes, version_needer};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Cost, Fix, FixKind};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`GLIBC_*` version not found; on macOS, a symbol of macOS' own libraries not found.",
    meaning: "Every Linux binary records the newest glibc symbol versions it uses. A wheel or library built on a newer distribution than this one asks for a `GLIBC_2.x` the system's C library does not have. Unlike libstdc++, the C library cannot be swapped per process. macOS says the same through dyld: `Symbol not found: _clock_gettime … (which was built for Mac OS X 10.12) Expected in: /usr/lib/libSystem.B.dylib` (or `libobjc.A.dylib`, a system framework): a library of macOS itself lacks a function the binary was built to call, because it was built for a newer macOS than the one it runs on. (A missing symbol expected in a library that is not the OS's is another code.)",
    fixes: "1. Uninstall the package when it is optional (its importers fall back cleanly without it; needs confirmation). 2. Reinstall the package with pip, wheels only (`--only-binary`): pip takes the newest release whose wheel this system's glibc accepts, replacing a build that came from elsewhere (conda, another machine) — unverified, since a mislabeled wheel would come back. 3. Install a build made for an older glibc (a manylinux2014 wheel, or an older release) or run on a newer OS or container image: advice. On macOS the same: pip's wheel by the macOS its tag names (`macosx_10_15`), else an older release built for this macOS, or a macOS at least as new as the one dyld names.",
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    library: &str,
    version: &str,
    required_by: Option<&str>,
) -> Diagnostic {
    let (mut d, needer) = version_needer(cx, Code::GlibcTooOld, source, required_by);
    d.message = format!(
        "{needer} needs {version}, but the system C library {library} is older: it was built on a newer Linux than this one"
    );
    // pip chooses wheels by this system's glibc (their manylinux tags): a build that asks for
    // a newer one came from elsewhere (conda, another machine's environment, a mislabeled
    // wheel). Wheels only, pip takes the newest release built for this glibc.
    let ours = for_this_system(
        cx,
        d.package.as_deref(),
        ("wheel-for-this-glibc", "this system's glibc"),
        "the manylinux tags this system's glibc accepts",
        &format!("an older glibc than {version}"),
    );
    d.fixes = crate::fix::rank(ours.into_iter().chain([
        Fix::in_words(
            Code::GlibcTooOld,
            "older-glibc-build",
            format!("Install a build of the package made for an older glibc (manylinux2014) or run on a newer OS (needs {version})"),
            "The C library cannot be replaced per process; a wheel built for the system's glibc is the way out.",
            format!(
                "find a release of {} whose wheel is built for manylinux2014 (glibc 2.17), or use a newer OS image",
                d.package.as_deref().unwrap_or("the package")
            ),
        ),
    ]).collect());
    d
}

/// A package built for a newer system than this one: removed where it is optional (its
/// importers fall back without it), and again from pip, wheels only: pip picks a wheel by the
/// platform tags this system accepts (`manylinux_2_17`, `macosx_10_15`), so a build made
/// elsewhere for a newer system (conda's, another machine's) is replaced by the newest release
/// built for this one.
fn for_this_system(
    cx: &Cx<'_>,
    package: Option<&str>,
    (id, system): (&str, &str),
    tags: &str,
    target: &str,
) -> Vec<Fix> {
    let remove = package
        .and_then(crate::fix::Name::new)
        .and_then(|p| recipes::uninstall_optional(Code::GlibcTooOld, cx, &p));
    let rewheel = package
        .filter(|p| *p != "torch")
        .and_then(crate::fix::Name::new)
        .map(|p| {
            Fix::new(
                Code::GlibcTooOld,
                id,
                FixKind::PrebuiltWheel,
                format!("Reinstall {p} with pip from a wheel built for {system}"),
                format!("pip picks a wheel by {tags} and, with --only-binary, never compiles instead: the newest release of {p} built for {target} replaces the one built elsewhere (conda's, another machine's). If the same release comes back, its wheel is labelled for an older system than it needs: pin an older release."),
            )
            .step(recipes::wheel_again(cx, &p, true))
            .cost(Cost {
                downloads: true,
                compiles: None,
                also: vec![format!("may move {p} to an older release, the newest with a wheel for {system}")],
            })
            .unverified()
        });
    remove.into_iter().chain(rewheel).collect()
}

/// macOS' dyld missing a symbol of macOS' own libraries (`Symbol not found: _clock_gettime …
/// Expected in: /usr/lib/libSystem.B.dylib`): the binary was built for a newer macOS than this
/// one. macOS' libraries are the OS's, as glibc is Linux's: a build for this macOS, or a newer
/// macOS.
pub(crate) fn macos(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    library: Option<&str>,
    symbol: &str,
    system_library: &str,
    built_for: Option<&str>,
) -> Diagnostic {
    let (mut d, needer) = version_needer(cx, Code::GlibcTooOld, source, library);
    let system = crate::incidents::basename(system_library);
    let newer = built_for.map_or_else(|| "a newer macOS".to_owned(), |v| format!("macOS {v}"));
    let update = built_for.map_or_else(
        || "update macOS".to_owned(),
        |v| format!("update macOS to {v} or later"),
    );
    d.message = format!(
        "{needer} needs `{symbol}` from macOS' {system}, which this macOS lacks: it was built for {newer}, newer than the macOS it runs on"
    );
    d.evidence.push(format!(
        "dyld looked for `{symbol}` in {system_library}, a library of macOS itself: it gains functions with each macOS release and cannot be replaced per program"
    ));
    if let Some(v) = built_for {
        d.evidence.push(format!("dyld says the binary was built for macOS {v} (its minimum macOS)"));
    }
    d.symbols.push(crate::diagnostic::SymbolReport {
        mangled: symbol.to_owned(),
        demangled: crate::kb::demangle(symbol),
        status: crate::diagnostic::SymbolStatus::Missing,
        nearest: None,
    });
    let ours = for_this_system(
        cx,
        d.package.as_deref(),
        ("wheel-for-this-macos", "this macOS"),
        "the macOS release its tag names (`macosx_10_15_x86_64`)",
        "this macOS",
    );
    let pkg = d.package.clone().unwrap_or_else(|| "the package".to_owned());
    d.fixes = crate::fix::rank(
        ours.into_iter()
            .chain([Fix::in_words(
                Code::GlibcTooOld,
                "older-os-build",
                format!("Install a release of {pkg} built for this macOS, or {update}"),
                "macOS' own libraries come with the OS: a build whose minimum macOS is this one (an older release, or one built here) loads, as does the same build on a newer macOS.",
                format!(
                    "check this Mac's version (`sw_vers -productVersion`); install an older release of {pkg} whose wheel's macosx tag is at most that version, or {update}"
                ),
            )])
            .collect(),
    );
    d
}
