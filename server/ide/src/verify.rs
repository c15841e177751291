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
    /// `--package NAME[==VERSION]`: a package whose setup.py fetches a prebuilt wheel (the
    /// version `None`: the newest release, what `pip install NAME` picks). Answered with the
    /// wheel it would fetch for the target environment and the nearest listed builds.
    pub packages: Vec<(String, Option<String>)>,
    /// `--gpu`: the GPUs the wheels will run on, each a compute capability (`8.6`, `sm_120`) or
    /// a model the GPU table knows (`RTX 5090`). Empty: the GPUs the driver's files name on
    /// this machine (none on a machine without the NVIDIA driver: GPU code is then not judged).
    pub gpus: Vec<String>,
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
    /// The prebuilt wheel each asked package, and each plan entry with no wheel to read whose
    /// setup.py fetches one, would get in the target environment.
    pub prebuilt: Vec<PrebuiltWheel>,
    /// Indices into `diagnostics` of what a `summary` line already says (a wheel that loads):
    /// the one-screen output leaves them out.
    pub summarized: Vec<usize>,
    /// Whether anything was judged: a wheel read, a torch previewed, a prebuilt wheel named. A
    /// plan whose every entry is a name without a wheel judges nothing.
    pub judged: bool,
}

/// The wheel a package's setup.py would fetch for the target environment (torch, its CUDA and
/// C++ ABI, the Python), what the release data says of it, and the nearest builds it lists.
/// A computed name is never checked online: the data lists torch minors and CUDA versions per
/// release, not each file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrebuiltWheel {
    pub package: String,
    pub version: String,
    /// How the release was chosen: `asked`, `plan`, or `newest` (what `pip install NAME` picks).
    pub version_from: &'static str,
    /// The target as setup.py sees it; `None` where nothing says.
    pub torch: Option<String>,
    pub cuda: Option<String>,
    pub cxx11_abi: Option<bool>,
    /// `cp310`.
    pub python: Option<String>,
    /// What the environment did not say and the torch release's defaults filled in.
    pub assumed: Vec<String>,
    pub status: PrebuiltStatus,
    /// The wheel setup.py downloads: file name and URL.
    pub file_name: Option<String>,
    pub url: Option<String>,
    /// One sentence: what pip would get, and what the data says of it.
    pub message: String,
    /// Where the answer comes from: the naming scheme (setup.py) and the listing row.
    pub sources: Vec<String>,
    /// Listed builds near it when the data does not list it: other releases for this torch
    /// (nearest release first), else other torch versions (nearest first).
    pub nearest: Vec<NearestWheel>,
}

/// What the release data says of the wheel setup.py would fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrebuiltStatus {
    /// The data lists this release's wheels for this torch minor and CUDA.
    Listed,
    /// The data lists this release's wheels, none for this torch minor and CUDA: the download
    /// fails and setup.py compiles.
    NotListed,
    /// The data lists no wheels of this release: the name is computed, whether it was
    /// published is unknown.
    Unlisted,
    /// setup.py downloads nothing here (PyPI has the release's wheel, the release predates
    /// downloads, torch has no CUDA, setup.py refuses this CUDA).
    NoDownload,
    /// The environment does not say enough to name it (the Python, torch's CUDA, torch).
    Incomplete,
}

impl PrebuiltStatus {
    /// The stable name (JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            PrebuiltStatus::Listed => "listed",
            PrebuiltStatus::NotListed => "not-listed",
            PrebuiltStatus::Unlisted => "unlisted",
            PrebuiltStatus::NoDownload => "no-download",
            PrebuiltStatus::Incomplete => "incomplete",
        }
    }
}

/// A build the release data lists near the one asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearestWheel {
    pub version: String,
    /// Torch major.minor it was published for.
    pub torch: String,
    /// The CUDA versions (or majors) listed for the release.
    pub cuda: Vec<String>,
    /// For the target's own torch minor (another release), else another torch.
    pub same_torch: bool,
    /// The wheel setup.py would fetch in the target environment (same torch only, and only
    /// when the name can be computed).
    pub file_name: Option<String>,
    pub url: Option<String>,
    pub source: String,
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
    let mut wheel_paths = req.wheels.clone();
    let markers = abidoc_env::plans::MarkerEnv {
        python_version: env.layout.python_version.clone(),
    };
    let plan = req.plan.clone().map(|mut p| {
        for i in &mut p.installs {
            i.replaces = env
                .dist(&abidoc_env::normalize_name(&i.name))
                .and_then(|d| d.version.clone());
        }
        p
    });
    // An entry whose marker excludes this environment installs nothing here: it neither names
    // the torch nor brings a wheel.
    let plan = plan.map(|mut p| {
        p.installs.retain(|i| {
            let Some(m) = &i.marker else { return true };
            match abidoc_env::plans::marker_holds(m, &markers) {
                Some(true) => true,
                Some(false) => {
                    out.summary.push(format!(
                        "plan: {}: not installed here: its marker `{m}` does not hold{}",
                        i.name,
                        python_said(&markers)
                    ));
                    false
                }
                None => {
                    out.notes.push(format!(
                        "{}: its marker `{m}` cannot be evaluated here{}: judged as if it holds",
                        i.name,
                        python_said(&markers)
                    ));
                    true
                }
            }
        });
        p
    });
    let plan_torch = plan
        .as_ref()
        .and_then(|p| p.torch())
        .and_then(|t| t.version.clone());
    if let Some(plan) = &plan {
        out.notes.extend(plan.problems.iter().cloned());
        for i in &plan.installs {
            let n = abidoc_env::normalize_name(&i.name);
            let public = abidoc_env::manifests::public_version;
            let moves = matches!((&i.replaces, &i.version), (Some(old), Some(new)) if public(old) != public(new));
            let change = match (&i.replaces, &i.version) {
                (Some(old), Some(new)) if moves => format!("{old} → {new}"),
                (Some(old), Some(_)) => format!("{old} reinstalled"),
                // pip keeps an installed distribution a line names without a version.
                (Some(old), None) => format!("{old} installed, no version asked"),
                (None, Some(new)) => format!("new, {new}"),
                (None, None) => "new".into(),
            };
            let spec = i
                .specifier
                .as_deref()
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            let torch = if n == "torch" && (moves || i.replaces.is_none()) {
                " (changes torch)"
            } else {
                ""
            };
            let from = i
                .url
                .as_deref()
                .or(i.origin.as_deref())
                .map(|u| format!(" ({u})"))
                .unwrap_or_default();
            match &i.local_wheel {
                Some(p) => {
                    out.summary
                        .push(format!("plan: {} {change}{torch}: {}", i.name, p.display()));
                    wheel_paths.push(p.clone());
                }
                None if n == "torch" && i.version.is_some() => out.summary.push(format!(
                    "plan: {} {change}{torch}: the torch the other entries are judged against{from}",
                    i.name
                )),
                None if abidoc_knowledge::releases::has_prebuilt(&n)
                    && !i.url.as_deref().is_some_and(|u| u.ends_with(".whl")) =>
                {
                    out.summary.push(format!(
                        "plan: {} {change}{spec}: the wheel its setup.py fetches is named below{from}",
                        i.name
                    ));
                }
                None => out.summary.push(format!(
                    "plan: {} {change}{spec}{torch}: not judged: no local wheel to read{from}",
                    i.name
                )),
            }
        }
    }
    // A wheel named twice (as a path and through a plan, or in two plans) is judged once.
    let mut seen = Vec::new();
    wheel_paths.retain(|p| {
        let key = std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.clone());
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
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
    // The target as a package's setup.py would see it: the installed torch's version, CUDA and
    // ABI, or the torch the install brings (its CUDA from its label or its default build).
    let (setup_torch, setup_cuda, setup_abi) = match &target {
        TorchTarget::Installed => {
            let t = env.torch.as_ref();
            (
                t.and_then(|t| t.version.clone()),
                t.and_then(|t| t.cuda.clone()),
                t.and_then(|t| t.cxx11_abi),
            )
        }
        TorchTarget::Indexed { version, index } => (
            Some(version.clone()),
            None,
            abidoc_knowledge::torch_index::releases()
                .get(*index)
                .map(|r| r.cxx11_abi),
        ),
        TorchTarget::Unknown { version } => (Some(version.clone()), None, None),
    };
    let python = env.layout.python_version.clone();
    let mut asked: Vec<(String, Option<String>, &'static str)> = req
        .packages
        .iter()
        .map(|(n, v)| {
            (
                n.clone(),
                v.clone(),
                if v.is_some() { "asked" } else { "newest" },
            )
        })
        .collect();
    // A plan entry pip would build from an sdist whose setup.py fetches a wheel: that wheel.
    for i in plan.iter().flat_map(|p| &p.installs) {
        let n = abidoc_env::normalize_name(&i.name);
        // A wheel URL is a built wheel: pip installs it and no setup.py runs.
        let built =
            i.local_wheel.is_some() || i.url.as_deref().is_some_and(|u| u.ends_with(".whl"));
        if !built
            && abidoc_knowledge::releases::has_prebuilt(&n)
            && !asked
                .iter()
                .any(|(a, ..)| abidoc_env::normalize_name(a) == n)
        {
            let from = if i.version.is_some() {
                "plan"
            } else {
                "newest"
            };
            asked.push((i.name.clone(), i.version.clone(), from));
        }
    }
    for (name, version, from) in &asked {
        let answer = crate::kb::prebuilt(
            name,
            version.as_deref(),
            setup_torch.as_deref().unwrap_or_default(),
            setup_cuda.as_deref(),
            setup_abi,
            python.as_deref(),
        );
        match answer {
            Some(a) => {
                out.judged = true;
                let p = prebuilt_wheel(&a, from, setup_torch.as_deref());
                out.summary.extend(prebuilt_lines(&p));
                out.prebuilt.push(p);
            }
            None => out.notes.push(format!(
                "{name}{}: abidoc knows no prebuilt wheel its setup.py fetches (it knows {}'s)",
                version
                    .as_deref()
                    .map(|v| format!(" {v}"))
                    .unwrap_or_default(),
                prebuilt_packages()
            )),
        }
    }
    let against = match &target {
        TorchTarget::Installed => env
            .torch
            .as_ref()
            .and_then(|t| t.version.as_deref())
            .map_or("no torch (none installed)".to_string(), |v| {
                format!("torch {v} (installed)")
            }),
        TorchTarget::Indexed { version, .. } => {
            format!("torch {version} (its exports from the offline index)")
        }
        TorchTarget::Unknown { version } => {
            format!("torch {version} (not in the offline index: its symbols not judged)")
        }
    };
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
    if wheels.is_empty() && req.plan.is_none() && !req.packages.is_empty() && req.torch.is_none() {
        // `--package` alone asks which wheel, not what an upgrade breaks; with `--torch` it
        // asks both.
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
            if let Some(v) = req.torch.as_deref() {
                // Asked for the torch that is installed: no move, so nothing to preview.
                out.summary.push(format!(
                    "torch {v}: already the installed torch, nothing would change; `abidoc scan` judges what is installed now"
                ));
                out.judged = true;
                return out;
            }
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
    let gpus = target_gpus(&req.gpus, &world, &mut out);
    let verdicts = abidoc_env::verify::verify_wheels(&env, &wheels, &target, &planned, &gpus);
    out.judged |= !verdicts.is_empty();
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
        out.summary.push(summary_line(v, &against, &gpus));
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
                retargeted(&mut d, &target);
                out.diagnostics.push(d);
            }
        }
        if v.verdict() == Verdict::Loads && gpu_gaps(v).is_empty() {
            out.summarized.push(out.diagnostics.len());
            out.diagnostics.push(loads_diagnostic(v));
        }
    }
    out
}

/// The GPUs to judge GPU code for: those `--gpu` names (a capability or a known model), else
/// those the driver's files on this machine name. A name neither reads as is a note, not a
/// guess.
fn target_gpus(
    asked: &[String],
    world: &World<'_>,
    out: &mut VerifyOutcome,
) -> Vec<abidoc_env::verify::Gpu> {
    use abidoc_knowledge::gpu;
    let named: Vec<String> = if asked.is_empty() {
        world.gpu_models()
    } else {
        asked.to_vec()
    };
    let mut gpus: Vec<abidoc_env::verify::Gpu> = Vec::new();
    for n in &named {
        let found = gpu::parse_capability(n)
            .filter(|c| gpu::arch(*c).is_some())
            .map(|c| (format!("sm_{}{}", c.0, c.1), c))
            .or_else(|| gpu::capability_of_model(n).map(|c| (n.clone(), c)));
        match found {
            Some((name, capability)) => {
                if !gpus.iter().any(|g| g.capability == capability) {
                    gpus.push(abidoc_env::verify::Gpu { name, capability });
                }
            }
            None if !asked.is_empty() => out.notes.push(format!(
                "--gpu {n:?}: neither a compute capability abidoc knows (8.6, sm_120) nor a GPU model of its table: its GPU code is not judged for it"
            )),
            None => out.notes.push(format!(
                "the driver names the GPU {n:?}, which abidoc's GPU table does not know: GPU code is not judged (--gpu CAPABILITY judges it)"
            )),
        }
    }
    gpus
}

/// The GPUs a wheel's libraries carry no code for, with what they carry.
fn gpu_gaps(v: &WheelVerdict) -> Vec<(&str, (u32, u32))> {
    let mut gaps: Vec<(&str, (u32, u32))> = Vec::new();
    for f in v.libraries.iter().flat_map(|l| &l.findings) {
        if let abidoc_env::check::FindingFacts::GpuCodeMissing {
            gpu, capability, ..
        } = &f.facts
            && f.downgraded.is_none()
            && !gaps.iter().any(|(_, c)| c == capability)
        {
            gaps.push((gpu.as_str(), *capability));
        }
    }
    gaps
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
    out.judged = true;
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
                retargeted(&mut d, target);
                out.diagnostics.push(d);
            }
        }
    }
}

/// The codes word the environment's torch as installed; judged against another release (the
/// environment's torch version is set to it so fixes name it), that torch is not installed yet.
fn retargeted(d: &mut Diagnostic, target: &TorchTarget) {
    let TorchTarget::Indexed { version, .. } = target else {
        return;
    };
    d.message = d
        .message
        .replace(
            &format!("than the installed {version}"),
            &format!("than torch {version}, the one the install would bring"),
        )
        .replace(
            &format!("the installed {version}"),
            &format!("torch {version} (after the install)"),
        );
}

/// `, Python 3.12` when the target's Python is known, for a marker's verdict.
fn python_said(m: &abidoc_env::plans::MarkerEnv) -> String {
    m.python_version
        .as_deref()
        .map(|v| format!(" (Linux, Python {v})"))
        .unwrap_or_else(|| " (Linux, Python unknown)".into())
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

/// One line per wheel: its name, its verdict against the target torch, and what was checked
/// (a wheel that loads says so, with what it was checked for).
fn summary_line(v: &WheelVerdict, against: &str, gpus: &[abidoc_env::verify::Gpu]) -> String {
    let line = summary_verdict(v, against);
    let gaps = gpu_gaps(v);
    if !gaps.is_empty() {
        let named: Vec<String> = gaps
            .iter()
            .map(|(g, c)| {
                let sm = format!("sm_{}{}", c.0, c.1);
                if *g == sm { sm } else { format!("{g} ({sm})") }
            })
            .collect();
        return format!(
            "{line}; but it has no GPU code for {}: its kernels would not run there",
            named.join(", ")
        );
    }
    if !gpus.is_empty() && v.gpu_code && v.verdict() == Verdict::Loads {
        let names: Vec<String> = gpus
            .iter()
            .map(|g| format!("sm_{}{}", g.capability.0, g.capability.1))
            .collect();
        return format!("{line}; its GPU code runs on {}", names.join(", "));
    }
    line
}

fn summary_verdict(v: &WheelVerdict, against: &str) -> String {
    let name = format!(
        "{} {}",
        v.name.as_deref().unwrap_or("?"),
        v.version.as_deref().unwrap_or("?")
    );
    let n = v.libraries.len();
    let libs = format!("{n} librar{}", if n == 1 { "y" } else { "ies" });
    let at = v.wheel.display();
    let failing = v
        .libraries
        .iter()
        .filter(|l| l.verdict == Verdict::Fails)
        .count();
    match v.verdict() {
        Verdict::Loads if n == 0 => {
            format!("{name} loads against {against}: no compiled library in it ({at})")
        }
        Verdict::Loads => format!("{name} loads against {against}: {} ({at})", checked(v)),
        Verdict::Fails => {
            format!(
                "{name} would not load against {against}: {failing} of {libs} would fail ({at})"
            )
        }
        Verdict::Degraded => format!(
            "{name} loads against {against} with a feature missing: {} ({at})",
            checked(v)
        ),
        Verdict::Unreadable => {
            format!("{name} against {against}: some of its {libs} could not be read ({at})")
        }
    }
}

/// What the check covered: its libraries, the libraries they name, their symbols (torch's
/// among them) and the newest symbol version of each kind they require.
fn checked(v: &WheelVerdict) -> String {
    let n = v.libraries.len();
    let versions = if v.versions.is_empty() {
        String::new()
    } else {
        format!(", symbol versions up to {}", v.versions.join(", "))
    };
    format!(
        "{n} librar{} checked for {} needed librar{}, {} symbols ({} of them torch's){versions}",
        if n == 1 { "y" } else { "ies" },
        v.needed,
        if v.needed == 1 { "y" } else { "ies" },
        v.symbols,
        v.torch_symbols,
    )
}

/// The packages whose setup.py downloads a prebuilt wheel, as the data knows them.
fn prebuilt_packages() -> String {
    let mut names: Vec<&str> = abidoc_knowledge::releases::prebuilt_schemes()
        .iter()
        .map(|s| s.package.as_str())
        .collect();
    names.dedup();
    names.join(", ")
}

/// `answer` as the plain data `verify` returns, worded once.
fn prebuilt_wheel(
    a: &crate::kb::PrebuiltAnswer,
    version_from: &'static str,
    torch: Option<&str>,
) -> PrebuiltWheel {
    use crate::kb::{Fetch, Listing, Origin};
    let v = &a.version;
    let mm = a.torch.as_deref().unwrap_or("?");
    let mut sources = Vec::new();
    let (status, file, message) = match (&a.fetch, &a.listing) {
        (Fetch::Wheel(w), listing) => {
            sources.push(w.naming_source.clone());
            let (status, said) = match listing {
                Listing::Listed { source } => {
                    sources.push(source.clone());
                    (
                        PrebuiltStatus::Listed,
                        format!(
                            "setup.py fetches {}; the release data lists {v} wheels for torch {mm} with this CUDA (not each ABI and Python variant; not checked online)",
                            w.file_name
                        ),
                    )
                }
                Listing::NotListed {
                    torch,
                    cuda,
                    source,
                    ..
                } => {
                    sources.push(source.clone());
                    (
                        PrebuiltStatus::NotListed,
                        format!(
                            "setup.py looks for {}, but the release data lists {v} wheels only for torch {} (CUDA {}): the download fails and setup.py compiles from source",
                            w.file_name,
                            torch.join(", "),
                            cuda.join(", ")
                        ),
                    )
                }
                Listing::NoData => (
                    PrebuiltStatus::Unlisted,
                    format!(
                        "setup.py fetches {}; the release data lists no {v} wheels, so whether it was published is unknown (if not, setup.py compiles from source)",
                        w.file_name
                    ),
                ),
            };
            (status, Some(w), said)
        }
        (Fetch::PypiWheel { wheel }, _) => (
            PrebuiltStatus::NoDownload,
            None,
            format!(
                "PyPI has a Linux wheel of {v}{}: pip installs it and setup.py never runs",
                wheel
                    .as_deref()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default()
            ),
        ),
        (Fetch::NoDownload, _) => (
            PrebuiltStatus::NoDownload,
            None,
            format!("the setup.py of {v} downloads no prebuilt wheel: it compiles from source"),
        ),
        (Fetch::NoCuda, _) => (
            PrebuiltStatus::NoDownload,
            None,
            "torch has no CUDA (a CPU or ROCm build): setup.py has no CUDA wheel to fetch".into(),
        ),
        (Fetch::GivesUp { cuda_major }, _) => (
            PrebuiltStatus::NoDownload,
            None,
            format!(
                "the setup.py of {v} knows no wheel for CUDA {cuda_major}: it stops, or compiles from source"
            ),
        ),
        (Fetch::Unknown { missing }, listing) => {
            let mut m = format!(
                "the wheel setup.py fetches cannot be named: {} unknown",
                missing.join(", ")
            );
            if torch.is_none() {
                m.push_str(" (no torch installed: name one with --torch VERSION)");
            }
            match listing {
                Listing::Listed { source } => {
                    sources.push(source.clone());
                    m.push_str(&format!(
                        "; the release data lists {v} wheels for torch {mm} with this CUDA"
                    ));
                }
                Listing::NotListed { torch, source, .. } => {
                    sources.push(source.clone());
                    m.push_str(&format!(
                        "; the release data lists {v} wheels only for torch {}",
                        torch.join(", ")
                    ));
                }
                Listing::NoData => {}
            }
            (PrebuiltStatus::Incomplete, None, m)
        }
    };
    let nearest = a
        .nearest_releases
        .iter()
        .map(|n| (n, true))
        .chain(a.nearest_torch.iter().map(|n| (n, false)))
        .map(|(n, same_torch)| NearestWheel {
            version: n.version.clone(),
            torch: n.torch.clone(),
            cuda: n.cuda.clone(),
            same_torch,
            file_name: n.wheel.as_ref().map(|w| w.file_name.clone()),
            url: n.wheel.as_ref().map(|w| w.url.clone()),
            source: n.source.clone(),
        })
        .collect();
    let mut assumed = Vec::new();
    let t = torch.unwrap_or("?");
    if let (Some(c), Origin::ReleaseDefault) = (&a.cuda, a.cuda_from) {
        assumed.push(format!("CUDA {c}: the default build of torch {t}"));
    }
    if let (Some(abi), Origin::ReleaseDefault) = (a.cxx11_abi, a.abi_from) {
        assumed.push(format!(
            "C++11 ABI {}: the default build of torch {t}",
            if abi { "TRUE" } else { "FALSE" }
        ));
    }
    PrebuiltWheel {
        assumed,
        package: a.package.clone(),
        version: v.clone(),
        version_from,
        torch: torch.map(str::to_owned),
        cuda: a.cuda.clone(),
        cxx11_abi: a.cxx11_abi,
        python: a.python.clone(),
        status,
        file_name: file.map(|w| w.file_name.clone()),
        // The address of a file the data says was not published is no lead to follow.
        url: file
            .filter(|_| status != PrebuiltStatus::NotListed)
            .map(|w| w.url.clone()),
        message,
        sources,
        nearest,
    }
}

/// The human lines of one answer: what pip gets, where from, then the nearest listed builds.
fn prebuilt_lines(p: &PrebuiltWheel) -> Vec<String> {
    let from = match p.version_from {
        "asked" => "",
        "plan" => " (in the plan)",
        _ => " (the newest release)",
    };
    let mut env = vec![match &p.torch {
        Some(t) => format!("torch {t}"),
        None => "no torch".to_string(),
    }];
    env.push(match &p.cuda {
        Some(c) => format!("CUDA {c}"),
        None => "CUDA unknown".into(),
    });
    env.push(match p.cxx11_abi {
        Some(true) => "C++11 ABI TRUE".into(),
        Some(false) => "C++11 ABI FALSE".into(),
        None => "C++11 ABI unknown".into(),
    });
    env.push(p.python.clone().unwrap_or_else(|| "Python unknown".into()));
    let mut lines = vec![format!(
        "{} {}{from} for {}: {}",
        p.package,
        p.version,
        env.join(", "),
        p.message
    )];
    if let Some(url) = &p.url {
        lines.push(format!("  from {url}"));
    }
    for a in &p.assumed {
        lines.push(format!("  assumed {a}"));
    }
    for n in &p.nearest {
        let cuda = n.cuda.join(", ");
        lines.push(if n.same_torch {
            format!(
                "  nearest listed for torch {}: {} {} (CUDA {cuda}){}",
                n.torch,
                p.package,
                n.version,
                n.file_name
                    .as_deref()
                    .map(|f| format!(": {f}"))
                    .unwrap_or_default()
            )
        } else {
            format!(
                "  nearest listed torch: {} ({} {}, CUDA {cuda})",
                n.torch, p.package, n.version
            )
        });
    }
    lines
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
