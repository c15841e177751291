//! Which prebuilt wheel a package's `setup.py` fetches for an environment (torch, its CUDA, its
//! C++ ABI, the Python), whether the release data lists such a build, and, when it does not,
//! the nearest releases and torch versions it does list. The one answer to "which wheel for this
//! environment": `abidoc verify --package` and the prebuilt-wheel fix both ask [`answer`].
//!
//! What it rests on: `data/releases.toml` (generated from PyPI: every release, and whether PyPI
//! itself has a Linux wheel of it, which pip then installs without running setup.py), the names
//! of `data/prebuilt_wheels.toml` (setup.py's `get_wheel_url()` transcribed) and compat.toml's
//! `[[release]]` rows of GitHub-wheel releases (the torch minors and CUDA versions a release
//! published wheels for, each row citing its source). Those rows say nothing of the ABI or
//! Python variants and nothing here asks the network, so a computed name stays unverified
//! ([`WheelName::verified`] is false) even where its torch and CUDA are listed.

use crate::compat;
use crate::names::normalize_name;
use crate::releases::{self, Prebuilt, PrebuiltQuery, WheelName, python_tag};
use crate::version::Version;

/// The environment setup.py would see; `None` fields are filled from the torch release's
/// defaults where the data has them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Target<'a> {
    /// `torch.__version__` (`2.4.0+cu121`).
    pub torch: &'a str,
    /// `torch.version.cuda` (`12.1`), as the environment's `torch/version.py` says.
    pub cuda: Option<&'a str>,
    /// `torch._C._GLIBCXX_USE_CXX11_ABI`, as the installed torch's libraries say.
    pub cxx11_abi: Option<bool>,
    /// `cp310`, `3.10` or `3.10.14`.
    pub python: Option<&'a str>,
    /// Wheel platform tag; `None` means `linux_x86_64`.
    pub platform: Option<&'a str>,
}

/// Where a part of the target came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The caller's (the environment's files).
    Given,
    /// torch's local version label (`+cu121`).
    Label,
    /// The default of that torch release in the tables (its PyPI wheel).
    ReleaseDefault,
    /// Nothing says.
    Unknown,
}

/// What pip ends up with for the release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetch {
    /// The wheel setup.py downloads (name and URL from the transcribed scheme).
    Wheel(WheelName),
    /// PyPI has a Linux wheel of this release: pip installs it and setup.py never runs.
    PypiWheel { wheel: Option<String> },
    /// This release's setup.py downloads nothing (before `get_wheel_url`): it always compiles.
    NoDownload,
    /// torch has no CUDA (a CPU or ROCm build): there is no CUDA wheel to fetch.
    NoCuda,
    /// setup.py raises for this CUDA major: no wheel, whatever was published.
    GivesUp { cuda_major: u64 },
    /// The name cannot be computed: what the environment did not say (`Python`, …).
    Unknown { missing: Vec<&'static str> },
}

/// What the release data says about the judged release for this torch minor and CUDA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing {
    /// It lists wheels of this release for this torch minor and CUDA.
    Listed { source: String },
    /// It lists this release's wheels, and none for this torch minor or CUDA.
    NotListed {
        torch: Vec<String>,
        cuda: Vec<String>,
        source: String,
    },
    /// It lists no wheels of this release: it can neither confirm nor deny.
    NoData,
}

/// A build the data lists near the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Near {
    pub version: String,
    /// Torch major.minor it was published for.
    pub torch: String,
    /// The CUDA versions (or majors) the data lists for that release.
    pub cuda: Vec<String>,
    /// The wheel setup.py would fetch for it in the target environment: only for a release
    /// listed for the target's own torch minor, and only when the name can be computed.
    pub wheel: Option<WheelName>,
    pub source: String,
}

/// The answer for one package release in one environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// packages.toml's name (`flash-attn`).
    pub package: String,
    pub version: String,
    /// No version was asked: the newest release the generated data lists (what `pip install
    /// PKG` picks).
    pub newest: bool,
    /// Torch major.minor as setup.py reads it; `None` when the version does not parse.
    pub torch: Option<String>,
    /// torch's CUDA (`12.1`, or a bare major), before setup.py's pins.
    pub cuda: Option<String>,
    pub cuda_from: Origin,
    pub cxx11_abi: Option<bool>,
    pub abi_from: Origin,
    /// `cp310`.
    pub python: Option<String>,
    pub fetch: Fetch,
    pub listing: Listing,
    /// Other releases listed for this torch minor and CUDA, nearest to `version` first.
    pub nearest_releases: Vec<Near>,
    /// When no other release is listed for this torch: the torch minors listed (the judged
    /// release's when the data lists it, else any release's), nearest to the target first.
    pub nearest_torch: Vec<Near>,
}

impl Answer {
    /// A wheel setup.py fetches and the data lists for its torch minor and CUDA.
    pub fn listed(&self) -> bool {
        matches!(self.fetch, Fetch::Wheel(_)) && matches!(self.listing, Listing::Listed { .. })
    }
}

/// How many nearby builds an answer names, of each kind.
const NEAR: usize = 3;

/// The wheel `package`'s setup.py would fetch at `version` (`None`: the newest release) for
/// `target`, what the data says of it, and the nearest listed builds. `None` when the package
/// downloads prebuilt wheels at no release, or no release of it is known.
pub fn answer(package: &str, version: Option<&str>, target: &Target<'_>) -> Option<Answer> {
    if !releases::has_prebuilt(package) {
        return None;
    }
    let name = crate::packages::package(package)
        .map(|p| p.name.clone())
        .unwrap_or_else(|| normalize_name(package));
    let rows = wheel_rows(&name);
    let (version, newest) = match version {
        Some(v) => (Version::parse(v)?.public().to_owned(), false),
        None => {
            let newest = releases::releases(&name)
                .first()
                .map(|r| r.version.clone())
                .or_else(|| rows.first().map(|r| r.version.clone()))?;
            (newest, true)
        }
    };
    let torch = Version::parse(target.torch)
        .filter(|t| t.release.len() >= 2 && releases::is_torch_version(target.torch.trim()));
    let torch_mm = torch.as_ref().map(Version::major_minor_string);
    let (cuda, cuda_from) = torch_cuda(target, torch.as_ref());
    let (cxx11_abi, abi_from) = match target.cxx11_abi {
        Some(a) => (Some(a), Origin::Given),
        None => match compat::torch_cxx11_abi(target.torch) {
            Some(a) => (Some(a), Origin::ReleaseDefault),
            None => (None, Origin::Unknown),
        },
    };
    let python = target
        .python
        .and_then(python_tag)
        .filter(|p| p.starts_with("cp3"));
    let parsed_cuda = cuda.as_deref().and_then(releases::parse_cuda);
    let mut answer = Answer {
        package: name.clone(),
        version: version.clone(),
        newest,
        torch: torch_mm.clone(),
        cuda: cuda.clone(),
        cuda_from,
        cxx11_abi,
        abi_from,
        python: python.clone(),
        fetch: Fetch::NoDownload,
        listing: Listing::NoData,
        nearest_releases: Vec::new(),
        nearest_torch: Vec::new(),
    };
    if releases::ships_wheels(&name, &version) == Some(true) {
        answer.fetch = Fetch::PypiWheel {
            wheel: releases::release(&name, &version).and_then(|r| r.wheel.clone()),
        };
        return Some(answer);
    }
    let Some(torch_mm) = torch_mm else {
        answer.fetch = Fetch::Unknown {
            missing: vec!["torch version"],
        };
        return Some(answer);
    };
    if cuda.is_none() && no_cuda_build(target.torch) {
        answer.fetch = Fetch::NoCuda;
        return Some(answer);
    }
    if cuda.is_some() && parsed_cuda.is_none() {
        // Not a CUDA version (`12.x`): nothing of it may reach a name.
        answer.fetch = Fetch::Unknown {
            missing: vec!["torch's CUDA"],
        };
        return Some(answer);
    }
    answer.fetch = match releases::prebuilt_scheme(&name, &version) {
        None => Fetch::NoDownload,
        Some(scheme) => fetch(
            &name,
            &version,
            scheme,
            &torch_mm,
            parsed_cuda,
            target,
            cxx11_abi,
            python.as_deref(),
        ),
    };
    if matches!(answer.fetch, Fetch::Wheel(_) | Fetch::Unknown { .. }) {
        answer.listing = listing(&rows, &version, &torch_mm, parsed_cuda);
    }
    if matches!(answer.listing, Listing::Listed { .. }) {
        // Listed (the name perhaps not computable for want of the Python): nothing nearer.
        return Some(answer);
    }
    let cuda_for_names = cuda.as_deref();
    answer.nearest_releases =
        nearest_releases(&name, &rows, &version, &torch_mm, parsed_cuda, |v| {
            let q = PrebuiltQuery {
                package: &name,
                version: v,
                torch: target.torch,
                cuda: cuda_for_names?,
                cxx11_abi: cxx11_abi?,
                python: python.as_deref()?,
                platform: target.platform,
            };
            releases::prebuilt_wheel(&q)
        });
    // Another torch only when no release is listed for this one.
    if answer.nearest_releases.is_empty() {
        let own = matches!(answer.listing, Listing::NotListed { .. });
        answer.nearest_torch = nearest_torch(
            &rows,
            own.then_some(version.as_str()),
            &torch_mm,
            parsed_cuda,
        );
    }
    Some(answer)
}

/// torch's CUDA as setup.py reads it (`torch.version.cuda`): the environment's, else the
/// `+cuNNN` label, else the default CUDA of that torch release.
fn torch_cuda(target: &Target<'_>, torch: Option<&Version>) -> (Option<String>, Origin) {
    if let Some(c) = target.cuda.map(str::trim).filter(|c| !c.is_empty()) {
        return (Some(c.to_owned()), Origin::Given);
    }
    if let Some((maj, min)) = torch.and_then(Version::local_cuda) {
        return (Some(format!("{maj}.{min}")), Origin::Label);
    }
    if no_cuda_build(target.torch) {
        return (None, Origin::Unknown);
    }
    match compat::torch_default_cuda(target.torch) {
        Some(c) => (Some(c.to_owned()), Origin::ReleaseDefault),
        None => (None, Origin::Unknown),
    }
}

/// A `+cpu`, `+rocm…` or `+xpu` build: `torch.version.cuda` is `None`.
fn no_cuda_build(torch: &str) -> bool {
    Version::parse(torch)
        .and_then(|v| v.local_label().map(str::to_ascii_lowercase))
        .is_some_and(|l| l.starts_with("cpu") || l.starts_with("rocm") || l.starts_with("xpu"))
}

#[allow(clippy::too_many_arguments)]
fn fetch(
    name: &str,
    version: &str,
    scheme: &Prebuilt,
    torch_mm: &str,
    cuda: Option<(u64, Option<u64>)>,
    target: &Target<'_>,
    cxx11_abi: Option<bool>,
    python: Option<&str>,
) -> Fetch {
    let mut missing = Vec::new();
    let Some(cuda) = cuda else {
        return Fetch::Unknown {
            missing: vec!["torch's CUDA"],
        };
    };
    let Some(pinned) = releases::pinned_cuda(scheme, torch_mm, cuda) else {
        return Fetch::GivesUp { cuda_major: cuda.0 };
    };
    if releases::spelled_cuda(scheme, pinned).is_none() {
        missing.push("torch's CUDA minor");
    }
    if cxx11_abi.is_none() {
        missing.push("torch's C++ ABI");
    }
    if python.is_none() {
        missing.push("the Python version");
    }
    if !missing.is_empty() {
        return Fetch::Unknown { missing };
    }
    let cuda_text = match cuda {
        (maj, Some(min)) => format!("{maj}.{min}"),
        (maj, None) => maj.to_string(),
    };
    let q = PrebuiltQuery {
        package: name,
        version,
        torch: target.torch,
        cuda: &cuda_text,
        cxx11_abi: cxx11_abi.unwrap_or_default(),
        python: python.unwrap_or_default(),
        platform: target.platform,
    };
    match releases::prebuilt_wheel(&q) {
        Some(w) => Fetch::Wheel(w),
        // Every input was there: a part failed validation (a platform tag, a version form).
        None => Fetch::Unknown {
            missing: vec!["a valid wheel name"],
        },
    }
}

/// compat.toml's rows of GitHub-wheel releases of `name` (those that list CUDA versions and
/// fall under a setup.py scheme), newest first.
fn wheel_rows(name: &str) -> Vec<&'static compat::Release> {
    compat::releases(name)
        .into_iter()
        .filter(|r| !r.cuda.is_empty() && releases::prebuilt_scheme(name, &r.version).is_some())
        .collect()
}

/// Whether `row` lists wheels for torch `torch_mm` with the CUDA its setup.py spells for a
/// torch built with `cuda` (any CUDA when that is unknown).
fn row_lists(
    name: &str,
    row: &compat::Release,
    torch_mm: &str,
    cuda: Option<(u64, Option<u64>)>,
) -> bool {
    if !row.torch.iter().any(|t| t == torch_mm) {
        return false;
    }
    let Some(cuda) = cuda else { return true };
    let Some(scheme) = releases::prebuilt_scheme(name, &row.version) else {
        return false;
    };
    let Some((maj, min)) = releases::pinned_cuda(scheme, torch_mm, cuda) else {
        return false;
    };
    row.cuda.iter().any(|entry| {
        releases::parse_cuda(entry).is_some_and(|(em, emin)| {
            em == maj
                && (scheme.cuda_format == "major" || emin.is_none() || min.is_none() || emin == min)
        })
    })
}

fn same_version(a: &str, b: &str) -> bool {
    match (Version::parse(a), Version::parse(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

fn listing(
    rows: &[&compat::Release],
    version: &str,
    torch_mm: &str,
    cuda: Option<(u64, Option<u64>)>,
) -> Listing {
    let Some(row) = rows.iter().find(|r| same_version(&r.version, version)) else {
        return Listing::NoData;
    };
    let name = normalize_name(&row.package);
    if row_lists(&name, row, torch_mm, cuda) {
        Listing::Listed {
            source: row.source.clone(),
        }
    } else {
        Listing::NotListed {
            torch: row.torch.clone(),
            cuda: row.cuda.clone(),
            source: row.source.clone(),
        }
    }
}

/// Releases listed for the target torch minor and CUDA, nearest to `version` in release order
/// (ties: the newer), each with the wheel its setup.py would fetch here.
fn nearest_releases(
    name: &str,
    rows: &[&compat::Release],
    version: &str,
    torch_mm: &str,
    cuda: Option<(u64, Option<u64>)>,
    wheel: impl Fn(&str) -> Option<WheelName>,
) -> Vec<Near> {
    let Some(at) = Version::parse(version) else {
        return Vec::new();
    };
    // Every release the data knows, oldest first: distance counts releases, not numbers.
    let mut all: Vec<Version> = releases::releases(name)
        .iter()
        .filter_map(|r| Version::parse(&r.version))
        .chain(rows.iter().filter_map(|r| Version::parse(&r.version)))
        .chain(std::iter::once(at.clone()))
        .collect();
    all.sort();
    all.dedup();
    let rank = |v: &Version| all.iter().position(|x| x == v).unwrap_or_default();
    let here = rank(&at);
    let mut found: Vec<(usize, Version, &compat::Release)> = rows
        .iter()
        .filter(|r| !same_version(&r.version, version) && row_lists(name, r, torch_mm, cuda))
        .filter_map(|r| {
            let v = Version::parse(&r.version)?;
            Some((rank(&v).abs_diff(here), v, *r))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
    found
        .into_iter()
        .take(NEAR)
        .map(|(_, _, r)| Near {
            version: r.version.clone(),
            torch: torch_mm.to_owned(),
            cuda: r.cuda.clone(),
            wheel: wheel(&r.version),
            source: r.source.clone(),
        })
        .collect()
}

/// Other torch minors the data lists, nearest to the target first (ties: the newer torch), one
/// per minor with its newest release: of `own` release only when given, else of any release.
/// Builds for torch's own CUDA major come first; with none, any CUDA.
fn nearest_torch(
    rows: &[&compat::Release],
    own: Option<&str>,
    torch_mm: &str,
    cuda: Option<(u64, Option<u64>)>,
) -> Vec<Near> {
    let Some(target) = Version::parse(torch_mm) else {
        return Vec::new();
    };
    let key = |v: &Version| v.major() * 1000 + v.minor();
    let pick = |same_major: bool| {
        let mut out: Vec<(u64, Version, Near)> = Vec::new();
        for r in rows {
            if own.is_some_and(|v| !same_version(&r.version, v)) {
                continue;
            }
            if same_major
                && let Some((maj, _)) = cuda
                && !r
                    .cuda
                    .iter()
                    .any(|c| releases::parse_cuda(c).is_some_and(|(m, _)| m == maj))
            {
                continue;
            }
            for t in &r.torch {
                let Some(tv) = Version::parse(t) else {
                    continue;
                };
                if t == torch_mm || out.iter().any(|(_, v, _)| *v == tv) {
                    continue;
                }
                // Rows come newest first: the first release seen for a minor is its newest.
                out.push((
                    key(&tv).abs_diff(key(&target)),
                    tv,
                    Near {
                        version: r.version.clone(),
                        torch: t.clone(),
                        cuda: r.cuda.clone(),
                        wheel: None,
                        source: r.source.clone(),
                    },
                ));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
        out
    };
    let mut out = pick(cuda.is_some());
    if out.is_empty() && cuda.is_some() {
        out = pick(false);
    }
    out.into_iter().take(NEAR).map(|(_, _, n)| n).collect()
}
