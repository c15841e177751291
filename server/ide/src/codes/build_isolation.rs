//! `build-isolation`: a torch extension's source build cannot see torch (`No module named
//! 'torch'` inside pip's isolated build environment), or would build against another torch.
//!
//! Produced by the build-log failure of a setup.py that imports torch. Fixes build against the
//! installed torch with `--no-build-isolation` (torch first when it is not installed), the uv
//! form when the text shows uv, and the requirements-file advice.

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Cost, Fix, FixKind, Name, PipFlag, Requirement};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A source build of a torch extension cannot see torch (`No module named 'torch'` inside pip's isolated build), or would build against a different torch than the installed one.",
    meaning: "pip and uv build sdists in a fresh, isolated environment holding only the declared build requirements. Extensions whose setup.py imports torch fail there, or, when torch is declared, build against whatever torch the resolver picks rather than the one installed. `No module named 'torch'` said alone (an issue's title, the last lines of pip's output, no program's traceback) is read the same way, as a warning that says so: a program that ran shows its frames. A build whose torch frames run from `pip-build-env-…/overlay` (torch's cpp_extension failing there, as its ninja check does) built against a torch pip downloaded into that environment, not the installed one: the same flag builds it against the installed torch.",
    fixes: "1. Build against the installed torch: `pip install --no-build-isolation PKG` (torch first when it is missing). 2. With uv: `uv pip install --no-build-isolation`, or `match-runtime` in `[tool.uv.extra-build-dependencies]`. 3. In requirements files, install torch in a step before the extensions.",
    near_package: super::NearPackage::NotTorch,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, package: Option<&str>) -> Diagnostic {
    let mut d = blank(Code::BuildIsolation, source);
    d.package = package
        .map(str::to_owned)
        .or_else(|| cx.scene.packages_built.first().cloned())
        .map(|p| crate::kb::normalize(&p));
    let pkg = d.package.clone().unwrap_or_else(|| "the package".into());
    d.message = if cx.scene.isolated_torch.is_some() {
        format!(
            "{pkg} was built in pip's isolated build environment, against a torch pip downloaded for the build (its frames run from pip-build-env-…/overlay), not the installed one, and the build failed there: build it against the installed torch with --no-build-isolation"
        )
    } else {
        format!(
            "{pkg} imports torch in its build script, but pip/uv build it in an isolated environment without torch: build it against the installed torch with --no-build-isolation"
        )
    };
    // Read from the error line alone (no build and no program shown): the usual meaning in
    // reports of compiled extensions, said as such.
    // Read from the overlay's frames: where the build failed is known, why it failed there is
    // not always (a compiler error inside would say more).
    if cx.scene.isolated_torch.is_some() {
        d.severity = crate::diagnostic::Severity::Warning;
    }
    if d.package.is_none() && cx.scene.build_failed.is_none() {
        d.severity = crate::diagnostic::Severity::Warning;
        d.message.push_str(" (read from the error alone: if it came from running a program rather than installing a package, torch is not installed in the Python that ran it)");
    }
    d.fixes = fixes(cx, d.package.as_deref());
    d
}

fn fixes(cx: &Cx<'_>, package: Option<&str>) -> Vec<Fix> {
    let code = Code::BuildIsolation;
    // Why the isolated build fails: without torch, or (its frames under pip-build-env's overlay)
    // with a torch of its own.
    let isolated_torch = cx.scene.isolated_torch.is_some();
    let why_isolated = if isolated_torch {
        "pip's isolated build environment downloads a torch of its own for the build, not the one installed"
    } else {
        "pip's isolated build environment has none"
    };
    let Some(pkg) = package.and_then(Name::new) else {
        // The text names no package: the same steps in their general form, for the package
        // whose install printed this.
        return vec![
            Fix::in_words(
                code,
                "no-build-isolation",
                "Install torch first, then the package that failed with --no-build-isolation",
                if isolated_torch {
                    "A package that compiles against torch imports it in its build script; pip's isolated build environment downloaded a torch of its own for it, so the build must use this environment's torch instead."
                } else {
                    "A package that compiles against torch imports it in its build script; pip's and uv's isolated build environments have none, so the build must use this environment's torch."
                },
                "pip install torch (the build your project uses), then pip install --no-build-isolation <the package whose install printed this>",
            ),
        ];
    };
    let mut fixes = Vec::new();
    // From its repository where the knowledge says so (detectron2 is not on PyPI).
    let target = crate::kb::package(pkg.as_str())
        .and_then(|f| f.install_target)
        .and_then(|t| crate::fix::VcsUrl::new(&t))
        .map_or_else(
            || Requirement::Any(pkg.clone()),
            |url| Requirement::Vcs(pkg.clone(), url),
        );
    let build = recipes::pip_install(cx, vec![PipFlag::NoBuildIsolation], vec![target]);
    let cost = Cost {
        downloads: true,
        compiles: crate::kb::package(pkg.as_str()).map(|f| crate::fix::Compile {
            minutes: f.build_minutes.unwrap_or(10),
            needs: vec!["nvcc", "ninja", "a C++ compiler"],
        }),
        also: Vec::new(),
    };
    match (cx.world.torch_version(), Name::new("torch")) {
        (None, Some(torch)) => fixes.push(
            Fix::new(
                code,
                "torch-first",
                FixKind::SourceBuild,
                format!("Install torch first, then {pkg} with --no-build-isolation"),
                format!(
                    "{pkg}'s setup.py imports torch; isolated builds cannot see it, and a build must match the torch you run."
                ),
            )
            .step(recipes::pip_install(cx, Vec::new(), vec![Requirement::Any(torch)]))
            .step(build)
            .cost(Cost {
                also: vec!["installs torch".into()],
                ..cost
            }),
        ),
        _ => fixes.push(
            Fix::new(
                code,
                "no-build-isolation",
                FixKind::SourceBuild,
                format!("Build {pkg} against the installed torch (--no-build-isolation)"),
                format!("{pkg}'s setup.py imports torch; {why_isolated}."),
            )
            .step(build)
            .cost(cost),
        ),
    }
    if cx.scene.used_uv {
        fixes.push(
            Fix::in_words(
                code,
                "uv-no-build-isolation",
                format!("With uv: uv pip install --no-build-isolation {pkg}"),
                "uv isolates builds too; or declare torch with match-runtime in [tool.uv.extra-build-dependencies].",
                format!(
                    "[tool.uv.extra-build-dependencies] {pkg} = [{{ requirement = \"torch\", match-runtime = true }}]"
                ),
            ),
        );
    }
    fixes.push(
        Fix::in_words(
            code,
            "requirements-order",
            "In requirements files, install torch in a step before the CUDA extensions",
            "A single `pip install -r requirements.txt` builds the extensions before torch exists.",
            "pip install torch, then pip install --no-build-isolation -r requirements.txt",
        ),
    );
    crate::fix::rank(fixes)
}
