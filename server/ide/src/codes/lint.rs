//! Checks that no fix contradicts its own diagnosis: run by the tests over every fixture and by
//! the property test, so a code cannot ship a command that undoes its evidence.

use crate::diagnostic::{Code, Diagnostic};
use crate::fix::{Applicability, FixKind, PipFlag, Requirement, Step};

/// Every contradiction between a diagnosis and its fixes, as sentences; empty when none.
pub fn contradictions(d: &Diagnostic) -> Vec<String> {
    let mut out = Vec::new();
    let binary_failed = matches!(
        d.code,
        Code::AbiMismatch
            | Code::Cxx11AbiMismatch
            | Code::ExtensionIncompleteBuild
            | Code::TorchOpsMissing
            | Code::XformersBuiltFor
            | Code::StaleWheelCache
    );
    let user_level_exists = d.fixes.iter().any(|f| {
        matches!(
            f.applicability(),
            Applicability::Safe | Applicability::NeedsConfirmation
        )
    });
    // A `format!` placeholder left in a plain string literal reaches users as `{major}`.
    for text in std::iter::once(d.message.as_str())
        .chain(d.explanation.as_deref())
        .chain(
            d.fixes
                .iter()
                .flat_map(|f| [f.title.as_str(), f.reason.as_str()]),
        )
    {
        if has_placeholder(text) {
            out.push(format!("an unrendered placeholder in {text:?}"));
        }
    }
    for (i, f) in d.fixes.iter().enumerate() {
        let id = &f.id;
        if !id.starts_with(d.code.as_str()) {
            out.push(format!(
                "{id}: id does not name its code {}",
                d.code.as_str()
            ));
        }
        if i == 0 && f.title.starts_with("Or ") {
            out.push(format!(
                "{id}: the preferred fix is titled as an alternative"
            ));
        }
        if f.applicability() == Applicability::NeedsRoot && f.kind < FixKind::NeedsRoot {
            out.push(format!("{id}: needs root but is ranked as user-level"));
        }
        if i == 0 && f.applicability() == Applicability::NeedsRoot && user_level_exists {
            out.push(format!("{id}: prefers sudo while a user-level fix exists"));
        }
        // An action written in words ranks with the advice (`Fix::ranks_as`); one with typed
        // steps must run something.
        if f.kind.changes_packages()
            && f.commands().is_empty()
            && f.applicability() != Applicability::Advice
        {
            out.push(format!(
                "{id}: changes packages by its kind, but its steps run nothing"
            ));
        }
        let forced = f.steps.iter().any(|s| {
            matches!(s, Step::SetEnv { name, value } if name.as_str().ends_with("FORCE_BUILD") && value.as_str() == "TRUE")
        });
        for s in &f.steps {
            if let Step::PipInstall {
                flags,
                requirements,
                ..
            } = s
            {
                for r in requirements {
                    // A package built only from a project's checkout is never installed by name:
                    // PyPI's project of that name, if any, is another.
                    if !matches!(
                        r,
                        Requirement::Vcs(..) | Requirement::Editable(..) | Requirement::Wheel(..)
                    ) && crate::kb::checkout_only(r.name().as_str())
                    {
                        out.push(format!(
                            "{id}: installs {} by name, which is built only from a checkout",
                            r.name()
                        ));
                    }
                    let same_pkg = d.package.as_deref() == Some(r.name().as_str());
                    // A repository has no binary: pip builds it.
                    let compiles = forced
                        || matches!(r, Requirement::Vcs(..) | Requirement::Editable(..))
                        || flags
                            .iter()
                            .any(|fl| matches!(fl, PipFlag::NoBinary(n) if n == r.name()));
                    let force = flags.contains(&PipFlag::ForceReinstall);
                    // A prebuilt-wheel fix re-runs the package's own wheel selection for this
                    // torch: not the binary that failed.
                    if binary_failed
                        && f.kind != FixKind::PrebuiltWheel
                        && same_pkg
                        && force
                        && !compiles
                        && !matches!(r, Requirement::Wheel(..))
                    {
                        out.push(format!(
                            "{id}: reinstalls the binary that failed ({}) without compiling",
                            r.name()
                        ));
                    }
                    // A CUDA library package must be of the CUDA major the missing library names.
                    if let Some(major) = cuda_major_in(&d.message)
                        && let Some(pkg_major) = cuda_suffix(r.name().as_str())
                        && pkg_major != major
                    {
                        out.push(format!(
                            "{id}: installs {} for CUDA {pkg_major} while the library wants CUDA {major}",
                            r.name()
                        ));
                    }
                }
            }
        }
        for line in f
            .commands()
            .iter()
            .flatten()
            .chain(f.env().iter().map(|(_, v)| v))
        {
            if line.chars().any(char::is_control) || line.contains('$') {
                out.push(format!("{id}: a command holds a control character or `$`"));
            }
        }
    }
    out
}

/// `{name}` with a lower-case identifier inside: what `format!` would have replaced.
fn has_placeholder(text: &str) -> bool {
    text.split('{').skip(1).any(|rest| {
        rest.split_once('}').is_some_and(|(inner, _)| {
            !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        })
    })
}

/// The CUDA major of a CUDA library the message names (`libcudart.so.13` → 13).
fn cuda_major_in(message: &str) -> Option<u32> {
    let lib = message
        .split_whitespace()
        .find(|w| abidoc_knowledge::system_libs::cuda_library(w).is_some())?;
    abidoc_knowledge::system_libs::cuda_library(lib).map(|(_, m)| m)
}

/// `nvidia-cuda-runtime-cu12` → 12.
fn cuda_suffix(name: &str) -> Option<u32> {
    let (_, n) = name.rsplit_once("-cu")?;
    n.parse().ok()
}
