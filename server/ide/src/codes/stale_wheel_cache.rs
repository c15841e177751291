//! `stale-wheel-cache`: pip reused a wheel it built earlier (`Using cached …`), built against the
//! torch installed back then.
//!
//! Produced by pip's "Using cached" line for a locally built wheel of a torch extension. The fix
//! drops that package's wheels from pip's cache, then builds against the installed torch with
//! `--no-cache-dir`, so nothing cached comes back.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, Severity, SourceRef};
use crate::fix::{Fix, FixKind, Name, Step};
use crate::incidents::basename;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "pip reused a locally built wheel (`Using cached ...`) that was built against another torch.",
    meaning: "pip caches the wheels it builds from sdists, keyed by the package's name and version only. After a torch upgrade, installing the same version again takes the cached wheel, compiled against the old torch, and the import fails as before.",
    fixes: "1. Remove the package's wheels from pip's cache (`pip cache remove`), then build against the installed torch with `--no-build-isolation --no-cache-dir` and the package's force-build switch or `--no-binary`. Needs confirmation.",
    ..CodeDoc::BASE
};

/// Only a wheel pip built here is stale: its platform tag is a plain `linux_*` (PyPI refuses
/// those), and its package links torch. A cached PyPI download (`-none-any`, `manylinux`) is not.
pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    file: &str,
) -> Option<Diagnostic> {
    let base = basename(file);
    let stem = base.strip_suffix(".whl")?;
    let locally_built = stem
        .rsplit('-')
        .next()
        .is_some_and(|platform| platform.starts_with("linux_"));
    let name = crate::kb::normalize(base.split('-').next().unwrap_or(""));
    if !locally_built || crate::kb::links_torch(&name) == Some(false) {
        return None;
    }
    let mut d = blank(Code::StaleWheelCache, source);
    d.severity = Severity::Warning;
    d.package = base
        .split('-')
        .next()
        .filter(|n| !n.is_empty())
        .map(crate::kb::normalize);
    d.message = format!(
        "pip reused a cached wheel ({base}) instead of building against the installed torch: pip's cache key ignores the torch version"
    );
    d.fixes = fixes(cx, d.package.as_deref());
    Some(d)
}

fn fixes(cx: &Cx<'_>, package: Option<&str>) -> Vec<Fix> {
    let code = Code::StaleWheelCache;
    let Some(p) = package.and_then(Name::new) else {
        return Vec::new();
    };
    let mut fixes = Vec::new();
    if let Some(build) = recipes::source_build(code, cx, &p, &[]) {
        let mut steps = vec![Step::PipCacheRemove {
            python: cx.python(),
            package: p.clone(),
        }];
        steps.extend(build.steps);
        fixes.push(
            Fix::new(
                code,
                "drop-cache-rebuild",
                FixKind::SourceBuild,
                format!("Drop {p} from pip's cache and rebuild it against the installed torch"),
                "The cached wheel was built for the torch installed when it was first built.",
            )
            .steps(steps)
            .cost(build.cost),
        );
    }
    crate::fix::rank(fixes)
}
