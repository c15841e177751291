//! `binding-signature-mismatch`: a compiled function rejects the arguments Python code passes it
//! (pybind11's `f(): incompatible function arguments`), because the package whose Python code
//! calls it and the package that compiled it come from releases that do not match.
//!
//! The binary loads and torch is not involved: the function's signature changed between the
//! compiled package's releases (causal-conv1d's `causal_conv1d_fwd` took 4, 5, 7 and then 8
//! arguments), and the caller (mamba-ssm) was written against one of them. Which caller releases
//! call which partner releases is data (`packages.toml` `partner_ranges`), read from both
//! projects' sources.

use abidoc_knowledge::packages::{Package, PartnerRange};

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{Fix, FixKind, Name, PipFlag, Requirement, Step, Version};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "A compiled function rejects the arguments Python code passes it (`f(): incompatible function arguments`): the calling package and the compiled one come from releases that do not match (mamba-ssm and causal-conv1d).",
    meaning: "pybind11 checks each call against the signature compiled into the extension. When a package's Python code calls another package's compiled function (mamba-ssm calling causal-conv1d's `causal_conv1d_fwd`) and that function gained or lost arguments between releases, the pair only works when both come from matching releases: the import succeeds and the first call fails with `incompatible function arguments`, listing the signature the installed binary has.",
    fixes: "1. Install the release of the compiled package that takes what the caller passes: read from the caller's release (mamba-ssm 1.1.x calls causal-conv1d 1.1.x; 1.2.0 to 2.2.4, causal-conv1d below 1.5.1) or from the number of arguments the traceback's call passes. 2. Or, keeping the installed binary, the caller's releases that pass as many arguments as it takes (pybind11 lists its signature). 3. With neither known, the table to complete with the release `pip show` gives; for a pair no table knows, both anew in one command.",
    ..CodeDoc::BASE
};

/// The package whose compiled module the call went through: the module the traceback shows,
/// else the one whose module name the function's name starts with (`causal_conv1d_fwd` is
/// `causal_conv1d_cuda`'s).
fn callee(module: Option<&str>, function: &str) -> Option<&'static Package> {
    use abidoc_knowledge::packages as p;
    if let Some(pkg) = module.and_then(p::package_for_module) {
        return Some(pkg);
    }
    let leaf = function.rsplit('.').next().unwrap_or(function);
    p::all().iter().find(|pkg| {
        pkg.modules.iter().any(|m| {
            let stem = m.rsplit('.').next().unwrap_or(m);
            let stem = ["_cuda", "_C", "_ext", "_ops"]
                .iter()
                .find_map(|s| stem.strip_suffix(s))
                .unwrap_or(stem);
            stem.len() >= 6 && leaf.starts_with(stem)
        })
    })
}

/// The requirement on the partner a range of the caller's releases calls correctly.
fn partner_requirement(partner: &Name, r: &PartnerRange) -> Requirement {
    let series = r.series.as_deref().and_then(|s| {
        let (a, b) = s.split_once('.')?;
        Some((a.parse().ok()?, b.parse().ok()?))
    });
    match (series, r.below.as_deref().and_then(Version::new)) {
        (Some((a, b)), _) => Requirement::Series(partner.clone(), a, b),
        (None, Some(v)) => Requirement::Below(partner.clone(), v),
        (None, None) => Requirement::Any(partner.clone()),
    }
}

/// A range of the caller's releases in words (`1.1.0 to before 1.2.0`).
fn range_words(r: &PartnerRange) -> String {
    match (r.from.as_deref(), r.until.as_deref()) {
        (Some(f), Some(u)) => format!("{f} up to {u} (excluded)"),
        (Some(f), None) => format!("{f} and later"),
        (None, Some(u)) => format!("before {u}"),
        (None, None) => "every release".to_owned(),
    }
}

/// What the text shows of the rejected call.
pub(crate) struct Call<'a> {
    pub function: &'a str,
    /// The compiled module the call went through (`causal_conv1d_cuda`).
    pub module: Option<&'a str>,
    /// How many arguments the call passed, where the traceback shows it whole.
    pub passed: Option<u32>,
    /// How many the first signature pybind11 lists takes (the installed binary's).
    pub accepts: Option<u32>,
}

/// The one range whose partner function takes `n` arguments (none where two ranges take as
/// many: that says nothing about which).
fn taking<'r>(ranges: &[&'r PartnerRange], function: &str, n: Option<u32>) -> Option<&'r PartnerRange> {
    let n = n?;
    let leaf = function.rsplit('.').next().unwrap_or(function);
    let mut hits = ranges
        .iter()
        .filter(|r| r.arguments.get(leaf) == Some(&n));
    let one = hits.next().copied();
    one.filter(|_| hits.next().is_none())
}

/// The caller's releases of one range as a requirement: the newest before its end (pip picks
/// the newest release below it, which is in the range), any where it has none.
fn caller_requirement(caller: &Name, r: &PartnerRange) -> Requirement {
    match r.until.as_deref().and_then(Version::new) {
        Some(u) => Requirement::Below(caller.clone(), u),
        None => Requirement::Any(caller.clone()),
    }
}

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, call: &Call<'_>) -> Diagnostic {
    let (function, module) = (call.function, call.module);
    let code = Code::BindingSignatureMismatch;
    let mut d = blank(code, source);
    let compiled = callee(module, function);
    let callee_name = compiled
        .map(|p| p.name.clone())
        .or_else(|| cx.near.filter(|n| *n != "torch").map(str::to_owned));
    d.package = callee_name.clone();
    // The caller: a package whose table says which of the callee's releases it calls, else the
    // package the traceback shows around the call.
    let ranged = callee_name.as_deref().and_then(|c| {
        abidoc_knowledge::packages::all()
            .iter()
            .find(|p| p.partner_ranges.iter().any(|r| r.partner == c))
    });
    let caller = ranged.map(|p| p.name.clone()).or_else(|| {
        cx.near
            .filter(|n| *n != "torch" && Some(*n) != callee_name.as_deref())
            .map(str::to_owned)
    });
    let shown = match module {
        Some(m) => format!("{m}.{function}"),
        None => function.to_owned(),
    };
    let who = caller.as_deref().unwrap_or("the calling code");
    // A compiled function no table knows, one no other package calls, or a constructor may as
    // well have been passed the wrong types by the program itself (a NumPy array of float64
    // for open3d's `Vector3dVector`): a warning, not a verdict.
    let leaf = function.rsplit('.').next().unwrap_or(function);
    let between_packages = compiled.is_some() && caller.is_some() && leaf != "__init__";
    let (come, unless) = if between_packages {
        ("come", "")
    } else {
        d.severity = crate::diagnostic::Severity::Warning;
        ("may come", ", unless the call passes the wrong types itself")
    };
    d.message = match &callee_name {
        Some(c) => format!(
            "{c}'s compiled `{shown}` does not take the arguments {who} passes: the two {come} from releases that do not match{unless}"
        ),
        None => format!(
            "the compiled `{shown}` does not take the arguments {who} passes: the Python code and the extension {come} from releases that do not match{unless}"
        ),
    };
    d.evidence.push(
        "pybind11 lists the signature the installed binary has; the call was written for another release's".into(),
    );
    let caller_version = caller.as_deref().and_then(|c| {
        cx.world
            .installed_version(c)
            .or_else(|| cx.scene.version_of(c).map(str::to_owned))
    });
    let mut fixes = Vec::new();
    let partner = callee_name.as_deref().and_then(Name::new);
    if let (Some(p), Some(callerp)) = (&partner, ranged) {
        fixes.extend(ranged_fixes(cx, &mut d, call, p, callerp, caller_version.as_deref()));
    }
    // No table for the pair: both anew in one command, so pip installs releases of the same
    // time (the caller's requirements bound the callee).
    if fixes.is_empty()
        && let Some(p) = &partner
    {
        fixes.push(reinstall_pair(cx, p, caller.as_deref(), caller_version.as_deref(), who));
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The pip options a pinned install of `p` needs: no cached wheel, and no build isolation for
/// a source distribution whose setup.py builds against (or fetches for) the installed torch.
fn flags(p: &Name) -> Vec<PipFlag> {
    let mut f = vec![PipFlag::NoCacheDir];
    if crate::kb::package(p.as_str()).is_some_and(|f| f.needs_no_build_isolation) {
        f.push(PipFlag::NoBuildIsolation);
    }
    f
}

/// A pair the tables know (`partner_ranges`): the partner release the caller calls, by the
/// caller's version or by the arguments its call passes; else the table as a command to
/// complete; and, keeping the installed binary, the caller releases that call it.
fn ranged_fixes(
    cx: &Cx<'_>,
    d: &mut Diagnostic,
    call: &Call<'_>,
    p: &Name,
    callerp: &abidoc_knowledge::packages::Package,
    caller_version: Option<&str>,
) -> Vec<Fix> {
    let code = Code::BindingSignatureMismatch;
    let function = call.function;
    let mut fixes = Vec::new();
    let ranges: Vec<&PartnerRange> = callerp
        .partner_ranges
        .iter()
        .filter(|r| r.partner == p.as_str())
        .collect();
    let by_version = caller_version
        .and_then(abidoc_knowledge::Version::parse)
        .and_then(|v| ranges.iter().find(|r| r.covers(&v)).copied());
    // The call the traceback shows passes as many arguments as one range's partner takes:
    // that range's partner is what the caller needs, whatever its version.
    let by_call = taking(&ranges, function, call.passed);
    // The installed binary takes as many as another range's: the caller releases of that
    // range call it, the other way to match.
    let installed = taking(&ranges, function, call.accepts);
    if let Some(n) = call.accepts {
        d.evidence.push(format!(
            "the installed {p}'s `{function}` takes {n} arguments{}",
            match call.passed {
                Some(k) => format!("; the call passes {k}"),
                None => String::new(),
            }
        ));
    }
    let caller_name = Name::new(&callerp.name);
    if let Some(r) = by_version.or(by_call) {
        let req = partner_requirement(p, r);
        let shown_req = crate::fix::render::requirement(&req);
        let whose = match (by_version, caller_version) {
            (Some(_), Some(v)) => format!("{} {v}", callerp.name),
            _ => format!("the installed {}", callerp.name),
        };
        let evidence = if by_version.is_some() {
            format!("{whose} calls {p}'s compiled functions with the arguments of {shown_req}")
        } else {
            format!(
                "the call passes {} arguments, as {shown_req}'s `{function}` takes",
                call.passed.unwrap_or_default()
            )
        };
        fixes.push(
            Fix::new(
                code,
                "partner-release",
                FixKind::AlignCompanion,
                format!("Install {shown_req}, the {p} releases {whose} calls"),
                format!("{evidence}; the installed {p} has another signature. Only {p} moves."),
            )
            .step(recipes::pip_install(cx, flags(p), vec![req]))
            .cost(crate::fix::Cost::download()),
        );
    }
    if fixes.is_empty() {
        let table: Vec<String> = ranges
            .iter()
            .map(|r| {
                format!(
                    "{} {}: pip install{} \"{}\"",
                    callerp.name,
                    range_words(r),
                    if flags(p).contains(&PipFlag::NoBuildIsolation) {
                        " --no-build-isolation"
                    } else {
                        ""
                    },
                    crate::fix::render::requirement(&partner_requirement(p, r))
                )
            })
            .collect();
        fixes.push(
            Fix::new(
                code,
                "partner-release",
                FixKind::AlignCompanion,
                format!("Install the {p} release your {} calls", callerp.name),
                format!(
                    "Each {} release calls {p}'s compiled functions with the arguments of one range of {p} releases; the text does not say which {} is installed (`pip show {}` does).",
                    callerp.name, callerp.name, callerp.name
                ),
            )
            .step(Step::Manual(table.join("; ")))
            .filled_in_with(format!("the installed {} release", callerp.name)),
        );
    }
    if let (Some(r), Some(c)) = (installed, &caller_name)
        && by_version.is_none_or(|v| !std::ptr::eq(v, r))
    {
        let req = caller_requirement(c, r);
        let shown_req = crate::fix::render::requirement(&req);
        fixes.push(
            Fix::new(
                code,
                "caller-release",
                FixKind::AlignCompanion,
                format!("Or keep {p} and install {shown_req}, the {} releases that call it", callerp.name),
                format!(
                    "The installed {p}'s `{function}` takes {} arguments, as {} {} passes them; only {} moves.",
                    call.accepts.unwrap_or_default(),
                    callerp.name,
                    range_words(r),
                    callerp.name
                ),
            )
            .step(recipes::pip_install(cx, flags(c), vec![req]))
            .cost(crate::fix::Cost::download()),
        );
    }
    fixes
}

/// No table for the pair: the callee anew with its caller in one resolve, so pip picks releases
/// of the same time (the caller's requirements bound the callee).
fn reinstall_pair(
    cx: &Cx<'_>,
    p: &Name,
    caller: Option<&str>,
    caller_version: Option<&str>,
    who: &str,
) -> Fix {
    let code = Code::BindingSignatureMismatch;
    let mut reqs = Vec::new();
    if let Some(c) = caller.and_then(Name::new) {
        reqs.push(match caller_version.and_then(Version::new) {
            Some(v) => Requirement::Exact(c, v),
            None => Requirement::Any(c),
        });
    }
    reqs.push(Requirement::Any(p.clone()));
    let mut f = flags(p);
    f.insert(0, PipFlag::Upgrade);
    Fix::new(
        code,
        "reinstall-pair",
        FixKind::AlignCompanion,
        format!("Install {} anew, with what calls it, in one command", p),
        format!(
            "{p}'s compiled signature and its caller's code must come from matching releases; resolved together, pip picks {p} within what {who} requires."
        ),
    )
    .step(recipes::pip_install(cx, f, reqs))
    .cost(crate::fix::Cost::download())
}

