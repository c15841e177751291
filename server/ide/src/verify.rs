//! `verify` as diagnoses: wheels (or an install plan's wheels) judged before anything is
//! installed, and the torch-upgrade preview, each finding phrased by the module of its code as
//! `scan` phrases the same failure of an installed library.

use std::path::PathBuf;
use std::sync::Arc;

use abidoc_env::Environment;
use abidoc_env::check::Verdict;
use abidoc_env::verify::{Plan, TorchTarget, WheelVerdict};
use abidoc_env::wheel::{Limits, Wheel, read_wheel};

use crate::context::Context;
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::envview::{EnvView, Environments, spec_for};
use crate::evidence::World;

/// What to verify.
#[derive(Debug, Clone, Default)]
pub struct VerifyRequest {
    /// Wheel files to judge as installed together.
    pub wheels: Vec<PathBuf>,
    /// An install plan; its local wheels are judged, and its torch (if any) is the target.
    pub plan: Option<Plan>,
    /// `--torch VERSION`: the torch the environment will have (overrides the plan's).
    pub torch: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct VerifyOutcome {
    pub diagnostics: Vec<Diagnostic>,
    /// Problems met (a damaged member, a plan entry with no local wheel).
    pub notes: Vec<String>,
    /// One line per wheel (or for the preview): what would happen.
    pub summary: Vec<String>,
    /// Wheels that could not be read in full (not a zip archive, a damaged or hostile member),
    /// or a preview for a torch the index does not know: the verdict is incomplete.
    pub unreadable: usize,
}

/// Judges the request against the environment `ctx` names (as it would be after the install).
pub(crate) fn verify(ctx: &Context, req: &VerifyRequest, envs: &Environments) -> VerifyOutcome {
    let mut forced = ctx.clone();
    forced.use_env = true;
    let mut env = Environment::open(&spec_for(&forced, &[]));
    let mut out = VerifyOutcome::default();
    if env.layout.site_packages.is_empty() {
        out.notes.push(
            "no Python environment found (pass --python EXE or --site-packages DIR): judging \
             against the system libraries alone"
                .into(),
        );
    }
    let plan_torch = req
        .plan
        .as_ref()
        .and_then(|p| p.torch())
        .and_then(|t| t.version.clone());
    let mut wheel_paths = req.wheels.clone();
    let plan = req.plan.clone().map(|mut p| {
        for i in &mut p.installs {
            i.replaces = env
                .dist(&abidoc_env::normalize_name(&i.name))
                .and_then(|d| d.version.clone());
        }
        p
    });
    if let Some(plan) = &plan {
        out.notes.extend(plan.problems.iter().cloned());
        for i in &plan.installs {
            let change = match (&i.replaces, &i.version) {
                (Some(old), Some(new)) if old != new => format!("{old} → {new}"),
                (Some(old), _) => format!("{old} reinstalled"),
                (None, Some(new)) => format!("new, {new}"),
                (None, None) => "new".into(),
            };
            let torch = if abidoc_env::normalize_name(&i.name) == "torch" {
                " (changes torch)"
            } else {
                ""
            };
            match &i.local_wheel {
                Some(p) => {
                    out.summary
                        .push(format!("plan: {} {change}{torch}: {}", i.name, p.display()));
                    wheel_paths.push(p.clone());
                }
                None => out.summary.push(format!(
                    "plan: {} {change}{torch}: no local wheel to read ({})",
                    i.name,
                    i.url.as_deref().unwrap_or("no URL")
                )),
            }
        }
    }
    // A torch wheel among the inputs is the torch the others will run with.
    let torch_wheel = |p: &PathBuf| {
        let (name, version, _) = p
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(abidoc_env::wheel::parse_file_name)?;
        (abidoc_env::normalize_name(&name) == "torch").then_some(version)
    };
    let wheel_torch = wheel_paths.iter().find_map(torch_wheel);
    let version = req.torch.clone().or(plan_torch).or(wheel_torch);
    let target = TorchTarget::for_version(&env, version.as_deref());
    let mut target_note = None;
    match &target {
        TorchTarget::Installed => {}
        TorchTarget::Indexed { version, index } => {
            // The environment after the install: the codes phrase fixes for that torch.
            let rel = abidoc_knowledge::torch_index::releases().get(*index);
            if let Some(t) = env.torch.as_mut() {
                t.version = Some(version.clone());
                t.cxx11_abi = rel.map(|r| r.cxx11_abi);
            }
            target_note = Some(format!(
                "judged against torch {version} as the install would leave it: its exports from \
                 the offline torch index, not from the files on disk"
            ));
        }
        TorchTarget::Unknown { version } => out.notes.push(format!(
            "torch {version} is not in the offline index ({}): its symbols are not judged",
            index_span()
        )),
    }
    let limits = Limits::default();
    let mut wheels: Vec<Wheel> = Vec::new();
    for p in &wheel_paths {
        // torch's own wheel is judged through the index (the target), never inflated: its
        // libraries are gigabytes. Its file name says what it is.
        if let Some(version) = torch_wheel(p) {
            out.summary.push(format!(
                "{}: torch {version}: the other wheels are judged against it",
                p.display()
            ));
            continue;
        }
        match read_wheel(p, &limits) {
            Ok(w) => {
                if w.normalized().as_deref() == Some("torch") {
                    // torch itself is judged through the index (the target above), not loaded.
                    out.summary.push(format!(
                        "{}: torch {}: its extensions are judged against it",
                        p.display(),
                        w.version.as_deref().unwrap_or("?")
                    ));
                    continue;
                }
                wheels.push(w);
            }
            Err(e) => {
                out.unreadable += 1;
                out.notes.push(format!("{}: {e}", p.display()));
            }
        }
    }
    let env = Arc::new(env);
    let world_env = EnvView::explicit(env.clone(), envs);
    let world = World::with_env(&forced, envs, world_env);
    if wheels.is_empty() && req.plan.is_none() && !wheel_paths.is_empty() {
        return out;
    }
    if wheels.is_empty() && req.plan.is_none() {
        // The torch-upgrade preview.
        if let TorchTarget::Unknown { version } = &target {
            // Nothing to compare with: saying "nothing breaks" would be a guess.
            out.summary.push(format!(
                "torch {version}: no preview: the offline index knows {}",
                index_span()
            ));
            out.unreadable += 1;
            return out;
        }
        if target == TorchTarget::Installed {
            out.notes.push(
                "nothing to verify: name a wheel, a directory of wheels or a plan, or --torch \
                 VERSION for a torch-upgrade preview"
                    .into(),
            );
            return out;
        }
        preview(&env, &target, &world, target_note.as_deref(), &mut out);
        return out;
    }
    // What the plan installs from an index, unread: it may provide a library a wheel needs.
    let planned: Vec<(String, Option<String>)> = plan
        .iter()
        .flat_map(|p| &p.installs)
        .filter(|i| i.local_wheel.is_none())
        .map(|i| (abidoc_env::normalize_name(&i.name), i.version.clone()))
        .collect();
    let verdicts = abidoc_env::verify::verify_wheels(&env, &wheels, &target, &planned);
    if plan.is_some() && matches!(target, TorchTarget::Indexed { .. }) {
        // The plan changes torch: what it leaves installed is judged against the new one too.
        preview(&env, &target, &world, target_note.as_deref(), &mut out);
    }
    for v in &verdicts {
        if !v.problems.is_empty() {
            out.unreadable += 1;
        }
        out.notes.extend(
            v.problems
                .iter()
                .map(|p| format!("{}: {p}", v.wheel.display())),
        );
        out.summary.push(summary_line(v));
        out.notes.extend(
            v.notes
                .iter()
                .map(|n| format!("{}: {n}", v.wheel.display())),
        );
        for f in v
            .findings
            .iter()
            .chain(v.libraries.iter().flat_map(|l| &l.findings))
        {
            if let Some(mut d) = crate::scan::finding_diagnostic(f, &world) {
                from_wheel(&mut d.evidence, v);
                d.evidence.insert(
                    0,
                    format!("read from {} (not installed)", v.wheel.display()),
                );
                if let Some(n) = &target_note {
                    d.evidence.insert(0, n.clone());
                }
                out.diagnostics.push(d);
            }
        }
        if v.verdict() == Verdict::Loads {
            out.diagnostics.push(loads_diagnostic(v));
        }
    }
    out
}

/// The installed libraries that load now and would not with `target`.
fn preview(
    env: &Environment,
    target: &TorchTarget,
    world: &World<'_>,
    note: Option<&str>,
    out: &mut VerifyOutcome,
) {
    let reports = abidoc_env::verify::torch_preview(env, target);
    out.summary.push(format!(
        "torch {}: {} installed librar{} would stop loading",
        target.version().unwrap_or("?"),
        reports.len(),
        if reports.len() == 1 { "y" } else { "ies" }
    ));
    for r in &reports {
        for f in &r.findings {
            if let Some(mut d) = crate::scan::finding_diagnostic(f, world) {
                if let Some(n) = note {
                    d.evidence.insert(0, n.to_owned());
                }
                out.diagnostics.push(d);
            }
        }
    }
}

/// The evidence the environment view words for installed files, said of a wheel's library.
fn from_wheel(evidence: &mut [String], v: &WheelVerdict) {
    for e in evidence.iter_mut() {
        if let Some(head) = e.strip_suffix(" (RECORD)")
            && let Some((lib, pkg)) = head.split_once(" is installed by ")
        {
            *e = format!(
                "{lib} would be installed by {pkg} (from {})",
                v.wheel.display()
            );
        }
    }
}

fn index_span() -> String {
    let r = abidoc_knowledge::torch_index::releases();
    match (r.first(), r.last()) {
        (Some(a), Some(b)) => format!("{}–{}", a.version, b.version),
        _ => "not loaded".into(),
    }
}

fn summary_line(v: &WheelVerdict) -> String {
    let name = format!(
        "{} {}",
        v.name.as_deref().unwrap_or("?"),
        v.version.as_deref().unwrap_or("?")
    );
    let failing = v
        .libraries
        .iter()
        .filter(|l| l.verdict == Verdict::Fails)
        .count();
    let word = match v.verdict() {
        Verdict::Loads => "loads",
        Verdict::Fails => "would not load",
        Verdict::Degraded => "loads with a feature missing",
        Verdict::Unreadable => "has unreadable libraries",
    };
    format!(
        "{name} ({}): {word}: {failing} of {} librar{} would fail",
        v.wheel.display(),
        v.libraries.len(),
        if v.libraries.len() == 1 { "y" } else { "ies" }
    )
}

fn loads_diagnostic(v: &WheelVerdict) -> Diagnostic {
    Diagnostic {
        code: Code::AbiMismatch,
        severity: Severity::Information,
        message: format!(
            "{} {} loads: every library it carries ({}) finds its libraries, symbols and versions",
            v.name.as_deref().unwrap_or("the wheel"),
            v.version.as_deref().unwrap_or(""),
            v.libraries.len()
        ),
        source: None,
        related: Vec::new(),
        package: v.name.as_deref().map(abidoc_env::normalize_name),
        library: Some(v.wheel.display().to_string()),
        symbols: Vec::new(),
        evidence: vec![format!("read from {} (not installed)", v.wheel.display())],
        explanation: None,
        fixes: Vec::new(),
    }
}
