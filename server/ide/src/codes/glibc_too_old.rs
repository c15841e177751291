//! `glibc-too-old`: a library needs a `GLIBC_2.x` version the system C library lacks: it was
//! built on a newer Linux than this one.
//!
//! Produced by a version-not-found line naming a `GLIBC_` version. The C library cannot be
//! replaced per process, so the fixes are removing the package where its importers do without it,
//! else a build made for an older glibc (a manylinux2014 wheel, an older release) or a newer
//! system: advice.

use super::{Code, CodeDoc, Cx, recipes, version_needer};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, FixKind, Step};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "`GLIBC_*` version not found.",
    meaning: "Every Linux binary records the newest glibc symbol versions it uses. A wheel or library built on a newer distribution than this one asks for a `GLIBC_2.x` the system's C library does not have. Unlike libstdc++, the C library cannot be swapped per process.",
    fixes: "1. Uninstall the package when it is optional (its importers fall back cleanly without it; needs confirmation). 2. Install a build of the package made for an older glibc (a manylinux2014 wheel, or an older release of it). 3. Run on a newer OS or container image. 2 and 3 are advice: abidoc cannot know which release was built on an older system.",
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
    d.fixes = crate::fix::rank(remove.into_iter().chain([
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
