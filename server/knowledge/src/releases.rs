//! Release data generated, not typed: `data/releases.toml` (made by `tools/release-data/derive.py`
//! from PyPI metadata through pip) says, per release of a companion package, the torch it pins,
//! whether PyPI has Linux x86_64 wheels for it and their CUDA major; `data/prebuilt_wheels.toml`
//! (transcribed from each package's `setup.py` `get_wheel_url()`) says how packages that download
//! a GitHub wheel at install time name it. This module owns both tables and their lookups;
//! `compat` consults it before its hand-written rows, and `prebuilt` answers "which wheel for
//! this environment" from it.
//!
//! Every part of a URL built here is validated first (canonical PEP 440 version, digits for the
//! torch and CUDA parts, `cp3NN` Python tag, a plain platform tag): nothing else reaches a URL.

use crate::names::normalize_name;
use crate::version::Version;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::OnceLock;

/// One PyPI release of a package, as derived from its metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// Distribution name as the tool asked pip for it (`flashinfer-python`).
    pub package: String,
    pub version: String,
    /// The torch it pins (`Requires-Dist: torch==2.5.1` → `2.5.1`; `==2.5.*` → `2.5.*`).
    #[serde(default)]
    pub torch: Option<String>,
    /// The torch requirement as written when it is not an exact pin (`>=2.14.0`).
    #[serde(default)]
    pub torch_spec: Option<String>,
    /// PyPI has a Linux x86_64 wheel for it; false means an sdist built at install time.
    pub wheels: bool,
    /// CUDA major its Linux wheel targets.
    #[serde(default)]
    pub cuda_major: Option<u64>,
    /// Where `cuda_major` was read: `reqs` (its `nvidia-*-cuNN` requirements), `label` (a
    /// `+cuNNN` local version) or `torch` (the default CUDA of the torch it pins).
    #[serde(default)]
    pub cuda_from: Option<String>,
    /// For torch itself: the CUDA (`12.1`) of the `nvidia-cuda-runtime-cuNN` its wheel pins.
    #[serde(default)]
    pub cuda: Option<String>,
    /// For torch itself: its Linux x86_64 triton requirement as written (`==3.1.0`, `~=3.8.0`):
    /// Inductor imports internals of that Triton release line only.
    #[serde(default)]
    pub triton: Option<String>,
    /// The wheel file pip chose for it.
    #[serde(default)]
    pub wheel: Option<String>,
}

impl Release {
    /// Whether its wheel is tagged for no Python ABI (`-py3-none-`, `-py39-none-`): a compiled
    /// wheel so tagged that links torch is built on torch's stable ABI, which later torch
    /// releases keep loading, so its torch requirement's floor is a minimum, not the build.
    pub fn abi_free(&self) -> bool {
        self.wheel_tags()
            .is_some_and(|(py, abi, _)| py.starts_with("py3") && abi == "none")
    }

    /// A platform wheel without a Python ABI (`-py39-none-manylinux_2_28_x86_64`): compiled,
    /// and on torch's stable ABI where it links torch (xformers 0.0.35, torchvision 0.29).
    pub fn stable_abi_build(&self) -> bool {
        self.abi_free() && self.wheel_tags().is_some_and(|(_, _, plat)| plat != "any")
    }

    /// PyPI ships it as a binary wheel, which keeps the CUDA it was built with whatever torch is
    /// installed beside it (an sdist builds against the torch and CUDA at hand).
    pub fn binary_wheel(&self) -> bool {
        self.wheels && self.wheel.is_some()
    }

    /// The wheel file name's python, ABI and platform tags.
    fn wheel_tags(&self) -> Option<(&str, &str, &str)> {
        let stem = self.wheel.as_deref()?.strip_suffix(".whl")?;
        let mut parts = stem.rsplitn(4, '-');
        let plat = parts.next()?;
        let abi = parts.next()?;
        let py = parts.next()?;
        Some((py, abi, plat))
    }
}

/// How a package's `setup.py` names the GitHub wheel it downloads, for a range of its releases.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prebuilt {
    pub package: String,
    /// First release using this scheme (inclusive).
    pub from: String,
    /// First release no longer using it (exclusive); absent for the current scheme.
    #[serde(default)]
    pub until: Option<String>,
    /// URL template: `{version}`, `{wheel}`.
    pub url: String,
    /// File name template: `{version}`, `{cuda}`, `{torch_mm}`, `{abi}`, `{py}`, `{platform}`.
    pub wheel: String,
    /// `major_minor` (`12.2` → `122`) or `major` (`12`).
    pub cuda_format: String,
    /// Rules replacing torch's CUDA before it is spelled; the first match wins.
    #[serde(default)]
    pub cuda_pins: Vec<CudaPin>,
    /// No rule matched: `torch` (torch's own CUDA) or `none` (setup.py raises: no wheel).
    #[serde(default = "unmatched_default")]
    pub unmatched: String,
    pub source: String,
}

fn unmatched_default() -> String {
    "torch".into()
}

/// One `cuda_pins` rule; an absent condition matches anything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudaPin {
    /// Torch major.minor (`2.1`).
    #[serde(default)]
    pub torch: Option<String>,
    #[serde(default)]
    pub cuda_major: Option<u64>,
    /// The CUDA version setup.py uses instead (`12.3`).
    pub cuda: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReleasesFile {
    #[serde(default)]
    release: Vec<Release>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PrebuiltFile {
    #[serde(default)]
    prebuilt: Vec<Prebuilt>,
}

struct Index {
    releases: Vec<Release>,
    /// Normalized name → (parsed version, index into `releases`), newest first.
    by_package: HashMap<String, Vec<(Version, usize)>>,
    prebuilt: Vec<Prebuilt>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let file: ReleasesFile =
            crate::data::parse("releases.toml", include_str!("../data/releases.toml"));
        let pre: PrebuiltFile = crate::data::parse(
            "prebuilt_wheels.toml",
            include_str!("../data/prebuilt_wheels.toml"),
        );
        let mut by_package: HashMap<String, Vec<(Version, usize)>> = HashMap::new();
        for (i, r) in file.release.iter().enumerate() {
            // A row whose version does not parse cannot be looked up; the consistency test
            // asserts there are none.
            if let Some(v) = Version::parse(&r.version) {
                by_package
                    .entry(normalize_name(&r.package))
                    .or_default()
                    .push((v, i));
            }
        }
        for rows in by_package.values_mut() {
            rows.sort_by(|a, b| b.0.cmp(&a.0));
        }
        Index {
            releases: file.release,
            by_package,
            prebuilt: pre.prebuilt,
        }
    })
}

/// Every generated release row, in file order.
pub fn all() -> &'static [Release] {
    &index().releases
}

/// Every prebuilt-wheel scheme, in file order.
pub fn prebuilt_schemes() -> &'static [Prebuilt] {
    &index().prebuilt
}

/// The packages the generated table covers (normalized names).
pub fn packages() -> Vec<&'static str> {
    let mut v: Vec<&str> = index().by_package.keys().map(String::as_str).collect();
    v.sort_unstable();
    v
}

/// The name a lookup uses: packages.toml's canonical name for an alias (`flash_attn` →
/// `flash-attn`, `transformer_engine_torch` stays itself), else the PEP 503 form.
fn key(package: &str) -> String {
    let n = normalize_name(package);
    if index().by_package.contains_key(&n) {
        return n;
    }
    crate::packages::package(package)
        .map(|p| p.name.clone())
        .unwrap_or(n)
}

/// Every generated release of `package`, newest first.
pub fn releases(package: &str) -> Vec<&'static Release> {
    let idx = index();
    idx.by_package
        .get(&key(package))
        .map(|rows| rows.iter().map(|(_, i)| &idx.releases[*i]).collect())
        .unwrap_or_default()
}

/// The generated row of one release (`0.20.1`; a local label such as `+cu121` is ignored).
pub fn release(package: &str, version: &str) -> Option<&'static Release> {
    let v = Version::parse(version)?;
    let v = Version::parse(v.public())?;
    let idx = index();
    idx.by_package
        .get(&key(package))?
        .iter()
        .find(|(rv, _)| *rv == v)
        .map(|(_, i)| &idx.releases[*i])
}

/// How a pin matches a torch release: exactly (`2.5.1`), or by major.minor (`2.5.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PinMatch {
    Exact,
    Minor,
}

fn pin_matches(pin: &str, torch: &Version) -> Option<PinMatch> {
    if let Some(prefix) = pin.strip_suffix(".*") {
        let p = Version::parse(prefix)?;
        let n = p.release.len();
        return (n >= 1
            && torch
                .release
                .get(..n)
                .is_some_and(|t| t == p.release.as_slice()))
        .then_some(PinMatch::Minor);
    }
    (Version::parse(pin)? == *torch).then_some(PinMatch::Exact)
}

/// The newest release of `package` built for this torch release (`2.5.1+cu121` → the newest
/// pinning `torch==2.5.1`); when none pins that exact release, the newest pinning its
/// major.minor only (`torch==2.5.*`). A nightly or vendor build (`2.4.0a0+…`) matches no pin:
/// the generated data says nothing about it.
pub fn companion_for_torch(package: &str, torch: &str) -> Option<&'static Release> {
    let t = Version::parse(torch)?;
    let t = Version::parse(t.public())?;
    let rows = releases(package);
    let with = |m: PinMatch| {
        rows.iter()
            .copied()
            .find(|r| r.torch.as_deref().and_then(|p| pin_matches(p, &t)) == Some(m))
    };
    with(PinMatch::Exact).or_else(|| with(PinMatch::Minor))
}

/// The newest release of `package` that states a torch range with a lower bound admitting this
/// torch (`torch>=2.14.0`: torchvision 0.29's stable-ABI builds), for a torch no release pins;
/// see [`companion_for_torch`] first.
pub fn companion_in_range(package: &str, torch: &str) -> Option<&'static Release> {
    let t = Version::parse(torch)?;
    let t = Version::parse(t.public())?;
    releases(package).into_iter().find(|r| {
        r.torch_spec
            .as_deref()
            .is_some_and(|s| range_admits(s, &t, r.stable_abi_build()))
    })
}

/// The lower bound of a requirement whose clauses are all `>=`/`>`/`<`/`<=` (`>=2.3.0,<3` →
/// 2.3.0); nothing for a requirement with another operator or no lower bound.
pub fn spec_floor(spec: &str) -> Option<Version> {
    let mut floor = None;
    for clause in spec.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        if let Some(v) = clause
            .strip_prefix(">=")
            .or_else(|| clause.strip_prefix('>'))
        {
            floor = Some(Version::parse(v.trim())?);
        } else if !clause.starts_with('<') {
            return None;
        }
    }
    floor
}

/// Whether a requirement made of `>=`, `>`, `<=`, `<` clauses (at least one lower bound)
/// admits `torch`; any other operator admits nothing. An open range is trusted only near its
/// lower bound (same major, at most two minors on): a claim about torch releases that did not
/// exist yet when the release was made is not evidence, except from a build on torch's stable
/// ABI (`stable_abi`), which later torch releases promise to load.
fn range_admits(spec: &str, torch: &Version, stable_abi: bool) -> bool {
    let mut lower = false;
    let mut near = false;
    let mut same_major = false;
    for clause in spec.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        let (op, v) = if let Some(v) = clause.strip_prefix(">=") {
            (">=", v)
        } else if let Some(v) = clause.strip_prefix("<=") {
            ("<=", v)
        } else if let Some(v) = clause.strip_prefix('>') {
            (">", v)
        } else if let Some(v) = clause.strip_prefix('<') {
            ("<", v)
        } else {
            return false;
        };
        let Some(v) = Version::parse(v.trim()) else {
            return false;
        };
        let ok = match op {
            ">=" | ">" => {
                lower = true;
                near |= torch.major() == v.major() && torch.minor() <= v.minor() + 2;
                same_major |= torch.major() == v.major();
                if op == ">=" { *torch >= v } else { *torch > v }
            }
            "<=" => *torch <= v,
            _ => *torch < v,
        };
        if !ok {
            return false;
        }
    }
    // A floor far below this torch says only that the release once worked with it, unless the
    // build is on torch's stable ABI, which every later torch of its major keeps.
    lower && (near || stable_abi && same_major)
}

/// Every release of `package` pinning this torch (exactly, or by major.minor when given only
/// `2.5`), newest first.
pub fn releases_for_torch(package: &str, torch: &str) -> Vec<&'static Release> {
    let Some(t) = Version::parse(torch) else {
        return Vec::new();
    };
    let Some(t) = Version::parse(t.public()) else {
        return Vec::new();
    };
    let minor_only = t.release.len() < 3;
    releases(package)
        .into_iter()
        .filter(|r| {
            let Some(pin) = r.torch.as_deref() else {
                return false;
            };
            if minor_only {
                let p = pin.strip_suffix(".*").unwrap_or(pin);
                Version::parse(p).is_some_and(|p| p.same_minor(&t))
            } else {
                pin_matches(pin, &t).is_some()
            }
        })
        .collect()
}

/// The torch a release pins (`torchvision 0.20.1` → `2.5.1`; `2.5.*` for a minor-only pin).
pub fn torch_for(package: &str, version: &str) -> Option<&'static str> {
    release(package, version)?.torch.as_deref()
}

/// Whether PyPI has a Linux x86_64 wheel of this release (`Some(false)`: sdist only);
/// `None` when the generated table does not list it.
pub fn ships_wheels(package: &str, version: &str) -> Option<bool> {
    release(package, version).map(|r| r.wheels)
}

/// CUDA major of this release's Linux x86_64 wheel.
pub fn cuda_major(package: &str, version: &str) -> Option<u64> {
    release(package, version)?.cuda_major
}

/// CUDA major of a torch release's default PyPI wheel, from its `nvidia-*-cuNN` requirements.
pub fn torch_cuda_major(torch: &str) -> Option<u64> {
    cuda_major("torch", torch)
}

/// The Triton a torch release requires, as (major, minor, the exact release where torch pins
/// one): `2.5.1` → (3, 1, Some("3.1.0")); `2.14.0`'s `~=3.8.0` → (3, 8, None). A build no row
/// lists (`2.4.0a0+…`, a release newer than the tables) takes the newest release of its line:
/// torch changes its Triton line only with its minor. (`2.5` is `2.5.0`, as PEP 440 compares.)
pub fn triton_for_torch(torch: &str) -> Option<(u64, u64, Option<&'static str>)> {
    let t = Version::parse(torch)?;
    let t = Version::parse(t.public())?;
    let idx = index();
    // The index holds each row's parsed version, newest first: the release itself, else the
    // newest of its line.
    let row = release("torch", torch).or_else(|| {
        idx.by_package
            .get(&key("torch"))?
            .iter()
            .find(|(v, _)| t.release.len() >= 2 && v.release.get(..2) == t.release.get(..2))
            .map(|(_, i)| &idx.releases[*i])
    })?;
    let spec = row.triton.as_deref()?;
    let (exact, v) = match spec.strip_prefix("==") {
        Some(v) => (true, v),
        None => (false, spec.strip_prefix("~=")?),
    };
    let mut parts = v.split('.').map(|p| p.parse::<u64>().ok());
    let (major, minor) = (parts.next()??, parts.next()??);
    Some((major, minor, exact.then_some(v)))
}

/// What to build a prebuilt GitHub wheel name for: the installed torch as setup.py sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrebuiltQuery<'a> {
    /// Distribution name (any spelling: `flash_attn`).
    pub package: &'a str,
    /// The package release (`2.8.3`); a local label is dropped.
    pub version: &'a str,
    /// `torch.__version__` (`2.5.1+cu121`); only major.minor is used.
    pub torch: &'a str,
    /// `torch.version.cuda` (`12.1`); a bare major (`12`) serves schemes that spell the major.
    pub cuda: &'a str,
    /// `torch._C._GLIBCXX_USE_CXX11_ABI`.
    pub cxx11_abi: bool,
    /// `cp311`, `3.11` or `3.11.13`.
    pub python: &'a str,
    /// Wheel platform tag; `None` means `linux_x86_64`.
    pub platform: Option<&'a str>,
}

/// Whether `package`'s setup.py downloads prebuilt wheels at some release (this table owns
/// its wheel names then, for every release).
pub fn has_prebuilt(package: &str) -> bool {
    let name = canonical(package);
    index()
        .prebuilt
        .iter()
        .any(|s| normalize_name(&s.package) == name)
}

fn canonical(package: &str) -> String {
    crate::packages::package(package)
        .map(|p| p.name.clone())
        .unwrap_or_else(|| normalize_name(package))
}

/// The scheme `package`'s setup.py uses at `version`.
pub fn prebuilt_scheme(package: &str, version: &str) -> Option<&'static Prebuilt> {
    let name = canonical(package);
    let v = Version::parse(version)?;
    let v = Version::parse(v.public())?;
    index().prebuilt.iter().find(|s| {
        normalize_name(&s.package) == name
            && Version::parse(&s.from).is_some_and(|f| v >= f)
            && s.until
                .as_deref()
                .map(Version::parse)
                .is_none_or(|u| u.is_some_and(|u| v < u))
    })
}

/// A prebuilt wheel's file name and URL as setup.py would compute them. Never checked against the release page
/// (that needs the network): `verified` is always false and callers must say so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WheelName {
    pub file_name: String,
    pub url: String,
    pub verified: bool,
    /// Where the naming scheme comes from.
    pub naming_source: String,
}

/// The wheel file name and URL the package's setup.py would download for this torch, CUDA, ABI
/// and Python. `None` when the package downloads no prebuilt wheel at that release, setup.py
/// would give up (a CUDA major it does not know), the scheme needs torch's CUDA minor and only
/// the major was given, or any part fails validation.
pub fn prebuilt_wheel(q: &PrebuiltQuery<'_>) -> Option<WheelName> {
    let version = Version::parse(q.version)?;
    let version = version.public();
    if !is_canonical_release(version) {
        return None;
    }
    let scheme = prebuilt_scheme(q.package, version)?;
    // Only major.minor reach the name, as numbers; the whole string is still checked so that
    // a malformed torch (`2.9.0;x`, which the lenient parser reads as 2.9.0) yields nothing.
    let torch = Version::parse(q.torch)?;
    if torch.release.len() < 2 || !is_torch_version(q.torch.trim()) {
        return None;
    }
    let torch_mm = format!("{}.{}", torch.major(), torch.minor());
    let (maj, min) = pinned_cuda(scheme, &torch_mm, parse_cuda(q.cuda)?)?;
    let cuda = spelled_cuda(scheme, (maj, min))?;
    let py = python_tag(q.python).filter(|p| is_python_tag(p))?;
    let platform = q.platform.unwrap_or("linux_x86_64");
    if !is_platform_tag(platform) {
        return None;
    }
    let abi = if q.cxx11_abi { "TRUE" } else { "FALSE" };
    let wheel = scheme
        .wheel
        .replace("{version}", version)
        .replace("{cuda}", &cuda)
        .replace("{torch_mm}", &torch_mm)
        .replace("{abi}", abi)
        .replace("{py}", &py)
        .replace("{platform}", platform);
    let url = scheme
        .url
        .replace("{version}", version)
        .replace("{wheel}", &wheel.replace('+', "%2B"));
    // A template naming a placeholder we do not fill is a data defect: build nothing from it.
    if wheel.contains(['{', '}']) || url.contains(['{', '}']) {
        return None;
    }
    Some(WheelName {
        file_name: wheel,
        url,
        verified: false,
        naming_source: scheme.source.clone(),
    })
}

/// The CUDA version `scheme`'s setup.py puts in the name for torch `torch_mm` (`2.5`) built
/// with `cuda`: the first `cuda_pins` rule that matches, else torch's own CUDA; `None` when no
/// rule matches and setup.py then raises (`unmatched = "none"`).
pub(crate) fn pinned_cuda(
    scheme: &Prebuilt,
    torch_mm: &str,
    (cuda_maj, cuda_min): (u64, Option<u64>),
) -> Option<(u64, Option<u64>)> {
    let pinned = scheme.cuda_pins.iter().find(|p| {
        p.torch.as_deref().is_none_or(|t| t == torch_mm)
            && p.cuda_major.is_none_or(|m| m == cuda_maj)
    });
    match pinned {
        Some(p) => parse_cuda(&p.cuda),
        None if scheme.unmatched == "torch" => Some((cuda_maj, cuda_min)),
        None => None,
    }
}

/// `{cuda}` as `scheme` spells it: `12` (major) or `122` (major and minor; `None` without one).
pub(crate) fn spelled_cuda(scheme: &Prebuilt, (maj, min): (u64, Option<u64>)) -> Option<String> {
    match scheme.cuda_format.as_str() {
        "major" => Some(maj.to_string()),
        "major_minor" => Some(format!("{maj}{}", min?)),
        _ => None,
    }
}

/// `12.1` → (12, Some(1)); `12` → (12, None); `cu121` → (12, Some(1)). Digits only.
pub(crate) fn parse_cuda(text: &str) -> Option<(u64, Option<u64>)> {
    let t = text.trim();
    if let Some((maj, min)) = crate::version::cuda_tag(t) {
        // `cu12` carries no minor; `cu121` does.
        let digits = t.len() - 2;
        return Some((maj, (digits >= 3).then_some(min)));
    }
    let mut parts = t.split('.');
    let maj = parts.next().filter(|p| is_digits(p))?.parse().ok()?;
    let min = match parts.next() {
        Some(p) if is_digits(p) => Some(p.parse().ok()?),
        Some(_) => return None,
        None => None,
    };
    // `12.1.105` is fine (the patch is never used); anything else after must be digits too.
    if parts.any(|p| !is_digits(p)) {
        return None;
    }
    Some((maj, min))
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.len() <= 6 && s.bytes().all(|c| c.is_ascii_digit())
}

/// A canonical PEP 440 public version of the forms releases use: `N(.N)*[{a|b|rc}N][.postN][.devN]`.
pub fn is_canonical_release(v: &str) -> bool {
    if v.is_empty() || v.len() > 64 {
        return false;
    }
    let mut rest = v;
    let take_digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    // Release segment.
    loop {
        let n = take_digits(rest);
        if n == 0 {
            return false;
        }
        rest = &rest[n..];
        match rest.strip_prefix('.') {
            Some(r) if r.bytes().next().is_some_and(|c| c.is_ascii_digit()) => rest = r,
            _ => break,
        }
    }
    for pre in ["rc", "a", "b"] {
        if let Some(r) = rest.strip_prefix(pre) {
            let n = take_digits(r);
            if n == 0 {
                return false;
            }
            rest = &r[n..];
            break;
        }
    }
    for suffix in [".post", ".dev"] {
        if let Some(r) = rest.strip_prefix(suffix) {
            let n = take_digits(r);
            if n == 0 {
                return false;
            }
            rest = &r[n..];
        }
    }
    rest.is_empty()
}

/// A torch version as `torch.__version__` prints it: a canonical release, optionally with a
/// local label of ASCII letters, digits and dots (`2.5.1+cu121`, `2.4.0a0+07cecf4168`).
pub(crate) fn is_torch_version(t: &str) -> bool {
    let (public, local) = match t.split_once('+') {
        Some((p, l)) => (p, Some(l)),
        None => (t, None),
    };
    is_canonical_release(public)
        && local.is_none_or(|l| {
            !l.is_empty()
                && l.len() <= 64
                && l.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'.')
        })
}

/// `cp3` followed by one or two digits (`cp39`, `cp312`).
fn is_python_tag(t: &str) -> bool {
    t.strip_prefix("cp3")
        .is_some_and(|d| (1..=2).contains(&d.len()) && d.bytes().all(|c| c.is_ascii_digit()))
}

/// A wheel platform tag: lowercase letters, digits and `_` (`linux_x86_64`, `linux_aarch64`).
fn is_platform_tag(t: &str) -> bool {
    !t.is_empty()
        && t.len() <= 64
        && t.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

/// `cp311` from `cp311`, `3.11`, `3.11.13`, `311`.
pub(crate) fn python_tag(py: &str) -> Option<String> {
    let py = py.trim();
    if let Some(rest) = py.strip_prefix("cp") {
        return (rest.len() >= 2 && rest.bytes().all(|c| c.is_ascii_digit()))
            .then(|| py.to_string());
    }
    let v = Version::parse(py)?;
    if v.release.len() >= 2 {
        Some(format!("cp{}{}", v.major(), v.minor()))
    } else if py.len() >= 2 && py.bytes().all(|c| c.is_ascii_digit()) {
        Some(format!("cp{py}"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validators() {
        for ok in [
            "2.8.3",
            "1.2.0.post1",
            "2.0.0rc1",
            "0.0.28.post3",
            "2.3.0.dev1",
        ] {
            assert!(is_canonical_release(ok), "{ok}");
        }
        for bad in [
            "",
            "2.8.3+cu12",
            "v2.8",
            "2..3",
            "2.8.3/../x",
            "2.8.3 ",
            "2.8.post",
            "2.8.",
        ] {
            assert!(!is_canonical_release(bad), "{bad}");
        }
        assert!(is_python_tag("cp311") && is_python_tag("cp39"));
        assert_eq!(python_tag("3.11.13").as_deref(), Some("cp311"));
        assert_eq!(python_tag("cp312").as_deref(), Some("cp312"));
        assert_eq!(python_tag("python"), None);
        assert!(!is_python_tag("cp2") && !is_python_tag("cp3111") && !is_python_tag("py3"));
        assert!(is_platform_tag("linux_x86_64"));
        assert!(!is_platform_tag("linux/../x") && !is_platform_tag("Linux"));
        assert_eq!(parse_cuda("12.1"), Some((12, Some(1))));
        assert_eq!(parse_cuda("12"), Some((12, None)));
        assert_eq!(parse_cuda("cu118"), Some((11, Some(8))));
        assert_eq!(parse_cuda("cu12"), Some((12, None)));
        assert_eq!(parse_cuda("12.x"), None);
        assert_eq!(parse_cuda("12;rm"), None);
    }

    #[test]
    fn pins() {
        let t = Version::parse("2.5.1").unwrap();
        assert_eq!(pin_matches("2.5.1", &t), Some(PinMatch::Exact));
        assert_eq!(pin_matches("2.5.*", &t), Some(PinMatch::Minor));
        assert_eq!(pin_matches("2.4.*", &t), None);
        assert_eq!(pin_matches("2.5.0", &t), None);
    }

    /// An open torch range is believed near its floor only, unless the wheel is a build on
    /// torch's stable ABI (no Python ABI tag on a platform wheel).
    #[test]
    fn open_ranges() {
        let far = Version::parse("2.15.0").unwrap();
        assert!(!range_admits(">=2.10", &far, false));
        assert!(range_admits(">=2.10", &far, true));
        assert!(!range_admits(
            ">=2.10",
            &Version::parse("3.1.0").unwrap(),
            true
        ));
        assert!(!range_admits(">=2.10,<2.12", &far, true));
        assert!(range_admits(">=2.14", &far, false));
        let release = |wheel: &str| Release {
            wheel: Some(wheel.to_owned()),
            ..Release::default()
        };
        let stable = release("xformers-0.0.35-py39-none-manylinux_2_28_x86_64.whl");
        assert!(stable.abi_free() && stable.stable_abi_build());
        let pure = release("torchao-0.1-py3-none-any.whl");
        assert!(pure.abi_free() && !pure.stable_abi_build());
        let abi3 = release("xformers-0.0.33-cp39-abi3-manylinux_2_28_x86_64.whl");
        assert!(!abi3.abi_free() && !abi3.stable_abi_build());
        // The shipped table: xformers 0.0.35 (`torch>=2.10`, py39-none) fits the newest torch.
        assert_eq!(
            companion_in_range("xformers", "2.15.0+cu132").map(|r| r.version.as_str()),
            Some("0.0.35")
        );
    }
}
