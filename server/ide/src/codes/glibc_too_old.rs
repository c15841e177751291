//! `glibc-too-old`: a library needs a `GLIBC_2.x` version the system C library lacks: it was
//! built on a newer Linux than this one.
//!
//! Produced by a version-not-found line naming a `GLIBC_` version. The C library cannot be
//! replaced per process, so the fixes are removing the package where its importers do without it,
//! else pip's wheel for this system's glibc (`--only-binary`: pip reads the manylinux tags this
//! glibc accepts), else a build made for an older glibc or a newer system: advice.

use super::{Code, CodeDoc, Cx, recipes, version_needer};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Cost, Fix, FixKind, PipFlag, Requirement, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`GLIBC_*` version not found.",
    meaning: "Every Linux binary records the newest glibc symbol versions it uses. A wheel or library built on a newer distribution than this one asks for a `GLIBC_2.x` the system's C library does not have. Unlike libstdc++, the C library cannot be swapped per process.",
    fixes: "1. Uninstall the package when it is optional (its importers fall back cleanly without it; needs confirmation). 2. Reinstall the package with pip, wheels only (`--only-binary`): pip takes the newest release whose wheel this system's glibc accepts, replacing a build that came from elsewhere (conda, another machine) — unverified, since a mislabeled wheel would come back. 3. Install a build made for an older glibc (a manylinux2014 wheel, or an older release) or run on a newer OS or container image: advice.",
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
    // An optional package (its importers fall back without it) can simply go.
    let remove = d
        .package
        .as_deref()
        .and_then(crate::fix::Name::new)
        .and_then(|p| recipes::uninstall_optional(Code::GlibcTooOld, cx, &p));
    // pip chooses wheels by this system's glibc (their manylinux tags): a build that asks for
    // a newer one came from elsewhere (conda, another machine's environment, a mislabeled
    // wheel). Wheels only, pip takes the newest release built for this glibc.
    let rewheel = d
        .package
        .as_deref()
        .filter(|p| *p != "torch")
        .and_then(crate::fix::Name::new)
        .map(|p| {
            Fix::new(
                Code::GlibcTooOld,
                "wheel-for-this-glibc",
                FixKind::PrebuiltWheel,
                format!("Reinstall {p} with pip from a wheel built for this system's glibc"),
                format!("pip picks a wheel by the manylinux tags this system's glibc accepts and, with --only-binary, never compiles instead: the newest release of {p} built for an older glibc than {version} replaces the one built elsewhere (conda's, another machine's). If the same release comes back, its wheel is labelled for an older glibc than it needs: pin an older release."),
            )
            .step(recipes::pip_install(
                cx,
                vec![
                    PipFlag::ForceReinstall,
                    PipFlag::NoCacheDir,
                    PipFlag::NoDeps,
                    PipFlag::OnlyBinary(p.clone()),
                ],
                vec![Requirement::Any(p.clone())],
            ))
            .cost(Cost {
                downloads: true,
                compiles: None,
                also: vec![format!("may move {p} to an older release, the newest with a wheel for this glibc")],
            })
            .unverified()
        });
    d.fixes = crate::fix::rank(remove.into_iter().chain(rewheel).chain([
        Fix::new(
            Code::GlibcTooOld,
            "older-glibc-build",
            FixKind::Advice,
            format!("Install a build of the package made for an older glibc (manylinux2014) or run on a newer OS (needs {version})"),
            "The C library cannot be replaced per process; a wheel built for the system's glibc is the way out.",
        )
        .step(Step::Manual(format!(
            "find a release of {} whose wheel is built for manylinux2014 (glibc 2.17), or use a newer OS image",
            d.package.as_deref().unwrap_or("the package")
        ))),
    ]).collect());
    d
}
