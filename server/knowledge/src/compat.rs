//! Compatibility tables (`data/compat.toml`): torch ↔ torchvision ↔ torchaudio ↔ xformers, the C++ ABI and default CUDA of PyPI torch, and which extension releases ship wheels for which torch.
//!
//! The pairings are answered from the generated release data first (`crate::releases`, made
//! from PyPI metadata by `tools/release-data/`), and from the hand-written rows here only where
//! the generated data is silent: a torch release no companion pins exactly, a nightly or vendor
//! torch, a package PyPI has no torch pin for (mamba-ssm's GitHub wheels). A test keeps the two
//! from contradicting each other.

use crate::names::normalize_name;
use crate::version::Version;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// One torch release and what goes with it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchRow {
    pub torch: String,
    /// Absent where no release is known (torchaudio stopped at 2.11).
    #[serde(default)]
    pub torchvision: Option<String>,
    #[serde(default)]
    pub torchaudio: Option<String>,
    /// CUDA of the default PyPI wheel for Linux x86_64 (`12.1`).
    pub default_cuda: String,
    /// `_GLIBCXX_USE_CXX11_ABI` of the default PyPI wheel.
    pub cxx11_abi: bool,
    /// Local labels (`cu126`) whose wheels use the other ABI than the default.
    #[serde(default)]
    pub cxx11_abi_variants: Vec<String>,
    /// A DLL of this release's Windows wheels that needs a DLL the wheel did not ship.
    #[serde(default)]
    pub windows_dll_gap: Option<DllGap>,
    pub source: String,
}

/// A Windows DLL of a torch release that needs another its wheel lacked (2.4.0's `fbgemm.dll`
/// and `libomp140.x86_64.dll`), and the release that ships it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DllGap {
    pub dll: String,
    pub needs: String,
    pub fixed_in: String,
    pub source: String,
}

/// An xformers release and the torch release it pins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XformersRow {
    pub xformers: String,
    pub torch: String,
    pub source: String,
}

/// A release of an extension and the torch minors (`2.5`) it ships prebuilt wheels for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    pub package: String,
    pub version: String,
    pub torch: Vec<String>,
    /// CUDA versions (`11.8`, `12.2`) or majors (`12`) of its wheels.
    #[serde(default)]
    pub cuda: Vec<String>,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tables {
    #[serde(default)]
    pub torch: Vec<TorchRow>,
    #[serde(default)]
    pub xformers: Vec<XformersRow>,
    #[serde(default)]
    pub release: Vec<Release>,
    #[serde(default)]
    pub wheel_cuda: Vec<WheelCuda>,
    #[serde(default)]
    pub numpy_removed: Vec<NumpyRemoved>,
    #[serde(default)]
    pub torch_api_removed: Vec<TorchApiRemoved>,
    #[serde(default)]
    pub python_capi_changed: Vec<PythonCapiChanged>,
    #[serde(default)]
    pub torch_api_added: Vec<TorchApiAdded>,
    #[serde(default)]
    pub triton_api_removed: Vec<TritonApiRemoved>,
}

/// Python API a Triton release removed or moved: kernel packages written for the releases
/// before fail with `No module named 'triton.ops'` or `module 'triton.language.math' has no
/// attribute 'round'`, and their releases that follow the move are known.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TritonApiRemoved {
    /// The Triton release that removed them (`3.2`); `triton<` it still has them.
    pub removed_in: String,
    /// Dotted names as errors print them; a module stands for everything under it.
    pub names: Vec<String>,
    /// What replaces them, in a sentence.
    pub instead: String,
    /// Packages known to import them, with the first release that no longer does.
    #[serde(default)]
    pub importers: Vec<FixedImporter>,
    pub source: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedImporter {
    pub package: String,
    pub fixed_in: String,
}

/// The Triton release that removed `name` (or the module it is in), if one did.
pub fn triton_api_removed(name: &str) -> Option<&'static TritonApiRemoved> {
    tables().triton_api_removed.iter().find(|r| {
        r.names.iter().any(|n| {
            name == n
                || name
                    .strip_prefix(n.as_str())
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    })
}

/// Python API a torch release added: a package written for it (a companion, transformers)
/// under an older torch fails with `module 'torch.library' has no attribute 'register_fake'`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchApiAdded {
    /// The release that added them (`2.4`); `torch>=` it has them.
    pub added_in: String,
    /// Dotted names as the error prints them: module, then attribute
    /// (`torch.library.register_fake`).
    pub names: Vec<String>,
    pub source: String,
}

/// The torch release that added `module.attribute`, if the table knows one did.
pub fn torch_api_added(name: &str) -> Option<&'static TorchApiAdded> {
    tables()
        .torch_api_added
        .iter()
        .find(|r| r.names.iter().any(|n| n == name))
}

/// C++ names and headers a torch release removed from the API extensions compile against:
/// an extension's source written for the releases before fails to build with
/// `'AT_CHECK' was not declared in this scope` or `THC/THC.h: No such file or directory`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchApiRemoved {
    /// The release that removed them (`1.11`); `torch<` it still has them.
    pub removed_in: String,
    /// Identifiers (`AT_CHECK`) and header paths (`THC/THC.h`); a header entry ending in `/`
    /// stands for every header under it.
    pub names: Vec<String>,
    /// What the source uses instead, in a sentence.
    pub instead: String,
    pub source: String,
}

/// C API of CPython a release removed or changed (`PyUnicode_AsUnicode` in 3.12): an extension's
/// source written before it stops compiling (or linking) under that Python and later ones.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PythonCapiChanged {
    /// The Python release (`3.12`).
    pub release: String,
    /// `removed`, or `changed` (a signature).
    pub change: String,
    pub names: Vec<String>,
    /// What replaces them, in words.
    pub instead: String,
    pub source: String,
}

/// The Python release that removed or changed the C API function `name`, if one did.
pub fn python_capi_changed(name: &str) -> Option<&'static PythonCapiChanged> {
    tables()
        .python_capi_changed
        .iter()
        .find(|r| r.names.iter().any(|n| n == name))
}

/// The torch release that removed `name` (an identifier or an included header) from the C++
/// API, if one did.
pub fn torch_api_removed(name: &str) -> Option<&'static TorchApiRemoved> {
    tables().torch_api_removed.iter().find(|r| {
        r.names
            .iter()
            .any(|n| n == name || (n.ends_with('/') && name.starts_with(n.as_str())))
    })
}

/// Names a NumPy release removed from its main namespace: code (or a package) written for the
/// releases before imports them and fails with `module 'numpy' has no attribute 'X'` or
/// `cannot import name 'X' from 'numpy'`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumpyRemoved {
    /// The release that removed them (`2.0`); `numpy<` it keeps them.
    pub removed_in: String,
    pub names: Vec<String>,
    /// Releases after `removed_in` that brought a name back with another meaning (`bool` and
    /// `long` in 2.0): the names removed only between the two.
    #[serde(default)]
    pub restored_in: Option<String>,
    #[serde(default)]
    pub restored: Vec<String>,
    /// What replaces them, in a sentence.
    pub instead: String,
    pub source: String,
}

/// The NumPy release that removed `name` from `numpy`'s namespace, if one did.
pub fn numpy_removed(name: &str) -> Option<&'static NumpyRemoved> {
    tables()
        .numpy_removed
        .iter()
        .find(|r| r.names.iter().any(|n| n == name))
}

/// The CUDA major a PyPI wheel's libraries need, where its metadata does not say (no
/// `nvidia-*-cuNN` requirement, no `+cuNNN` label): read from the `NEEDED` entries of its ELF
/// members (`libcudart.so.12`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelCuda {
    pub package: String,
    pub version: String,
    pub cuda_major: u64,
    pub source: String,
}

/// The CUDA major of a release's Linux wheel: the generated data's, else the hand table's.
pub fn wheel_cuda_major(package: &str, version: &str) -> Option<u64> {
    crate::releases::cuda_major(package, version).or_else(|| {
        let v = Version::parse(version)?;
        tables()
            .wheel_cuda
            .iter()
            .find(|r| {
                crate::normalize_name(&r.package) == crate::normalize_name(package)
                    && Version::parse(&r.version).is_some_and(|x| x == v)
            })
            .map(|r| r.cuda_major)
    })
}

/// All compatibility tables.
pub fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| crate::data::parse("compat.toml", include_str!("../data/compat.toml")))
}

/// The row for a torch version: the exact release (`2.5.1+cu121` → 2.5.1), else the newest
/// release of the same major.minor not newer than it (a nightly or NGC `2.4.0a0+…` → 2.4.0),
/// else the first of that minor.
pub fn torch_row(torch: &str) -> Option<&'static TorchRow> {
    let v = Version::parse(torch)?;
    let public = Version::parse(v.public())?;
    let same_minor: Vec<(&TorchRow, Version)> = tables()
        .torch
        .iter()
        .filter_map(|r| Version::parse(&r.torch).map(|rv| (r, rv)))
        .filter(|(_, rv)| rv.same_minor(&v))
        .collect();
    same_minor
        .iter()
        .filter(|(_, rv)| *rv <= public)
        .max_by(|a, b| a.1.cmp(&b.1))
        .or_else(|| same_minor.first())
        .map(|(r, _)| *r)
}

/// The newest release of `package` whose PyPI metadata pins exactly this torch release.
fn generated_companion(package: &str, torch: &str) -> Option<&'static str> {
    crate::releases::companion_for_torch(package, torch).map(|r| r.version.as_str())
}

/// The torch a release pins exactly, from the generated data (`2.5.*` pins are not one release).
fn generated_torch_for(package: &str, version: &str) -> Option<&'static str> {
    crate::releases::torch_for(package, version).filter(|t| !t.ends_with(".*"))
}

/// The torchvision release built for this torch (`2.5.1` → `0.20.1`).
pub fn torchvision_for_torch(torch: &str) -> Option<&'static str> {
    generated_companion("torchvision", torch)
        .or_else(|| torch_row(torch).and_then(|r| r.torchvision.as_deref()))
}

/// The torchaudio release built for this torch (`2.5.1` → `2.5.1`, `1.13.1` → `0.13.1`).
pub fn torchaudio_for_torch(torch: &str) -> Option<&'static str> {
    generated_companion("torchaudio", torch)
        .or_else(|| torch_row(torch).and_then(|r| r.torchaudio.as_deref()))
}

/// The torch a torchvision release was built for (`0.20.1` → `2.5.1`).
pub fn torch_for_torchvision(torchvision: &str) -> Option<&'static str> {
    torch_for_companion("torchvision", torchvision)
}

/// The torch a release of a companion was built for: its exact pin in the generated data, else
/// (torchvision, torchaudio) the hand-written torch table's row that names it
/// (`torchaudio 2.11.0` → `2.11.0`, whose metadata no longer pins torch).
pub fn torch_for_companion(package: &str, version: &str) -> Option<&'static str> {
    if let Some(t) = generated_torch_for(package, version) {
        return Some(t);
    }
    let v = Version::parse(version)?;
    let v = Version::parse(v.public())?;
    let column = |r: &'static TorchRow| -> Option<&'static str> {
        match package {
            "torchvision" => r.torchvision.as_deref(),
            "torchaudio" => r.torchaudio.as_deref(),
            _ => None,
        }
    };
    tables()
        .torch
        .iter()
        .find(|r| column(r).and_then(Version::parse).is_some_and(|t| t == v))
        .map(|r| r.torch.as_str())
}

/// The newest xformers release that pins exactly this torch release (local label ignored),
/// or `None` when the table has none for it.
pub fn xformers_for_torch(torch: &str) -> Option<&'static str> {
    if let Some(x) = generated_companion("xformers", torch) {
        return Some(x);
    }
    let v = Version::parse(torch)?;
    let v = Version::parse(v.public())?;
    tables()
        .xformers
        .iter()
        .filter(|r| Version::parse(&r.torch).is_some_and(|t| t == v))
        .max_by_key(|r| Version::parse(&r.xformers))
        .map(|r| r.xformers.as_str())
}

/// The torch release an xformers release pins (`0.0.24` → `2.2.0`). A release missing from the
/// table gets the pin of the nearest older listed release of the same `0.0.N` series.
pub fn torch_for_xformers(xformers: &str) -> Option<&'static str> {
    if let Some(t) = generated_torch_for("xformers", xformers) {
        return Some(t);
    }
    let v = Version::parse(xformers)?;
    let v = Version::parse(v.public())?;
    let rows = &tables().xformers;
    if let Some(r) = rows
        .iter()
        .find(|r| Version::parse(&r.xformers).is_some_and(|x| x == v))
    {
        return Some(r.torch.as_str());
    }
    rows.iter()
        .filter(|r| {
            Version::parse(&r.xformers)
                .is_some_and(|x| x.release.get(..3) == v.release.get(..3) && x <= v)
        })
        .max_by_key(|r| Version::parse(&r.xformers))
        .map(|r| r.torch.as_str())
}

/// Whether the PyPI/PyTorch-index Linux wheel of this torch uses the C++11 ABI. A local label
/// selects the variant (`2.6.0+cu126` → true, `2.6.0+cu124` → false); without one the default
/// PyPI wheel is meant. `None` for a torch outside the table (custom and NGC builds decide for
/// themselves: read the installed library instead).
pub fn torch_cxx11_abi(torch: &str) -> Option<bool> {
    let v = Version::parse(torch)?;
    if !is_pytorch_release_build(&v) {
        return None;
    }
    let row = torch_row(torch)?;
    if let Some(label) = v.local_label() {
        let label = label.to_ascii_lowercase();
        // `+cpu.cxx11.abi` builds were published for older releases too.
        if label.contains("cxx11") {
            return Some(true);
        }
        if row
            .cxx11_abi_variants
            .iter()
            .any(|x| label.split('.').any(|p| p == x))
        {
            return Some(!row.cxx11_abi);
        }
    }
    Some(row.cxx11_abi)
}

/// CUDA version (`12.1`) of the default PyPI wheel of this torch release: the CUDA runtime its
/// wheel pins (generated data), else the hand-written row.
pub fn torch_default_cuda(torch: &str) -> Option<&'static str> {
    let v = Version::parse(torch)?;
    if !is_pytorch_release_build(&v) {
        return None;
    }
    crate::releases::release("torch", v.public())
        .and_then(|r| r.cuda.as_deref())
        .or_else(|| torch_row(torch).map(|r| r.default_cuda.as_str()))
}

/// A release published by PyTorch (PyPI or download.pytorch.org: no label, `+cu121`, `+cpu`,
/// `+rocm6.1`, `+cpu.cxx11.abi`), not a nightly, source or vendor build (`2.4.0a0+07cecf4168`,
/// `2.5.0a0+e000cf0ad9.nv24.10`) whose ABI and CUDA the tables cannot know.
pub fn is_pytorch_release_build(v: &Version) -> bool {
    if v.is_prerelease() {
        return false;
    }
    match v.local_label() {
        None => true,
        Some(label) => {
            let l = label.to_ascii_lowercase();
            crate::version::cuda_tag(l.split('.').next().unwrap_or("")).is_some()
                || l.starts_with("cpu")
                || l.starts_with("rocm")
                || l.starts_with("xpu")
        }
    }
}

/// Releases of `package` that ship prebuilt wheels for this torch minor (`2.5`, or a full
/// version such as `2.5.1+cu121`), newest first.
///
/// From the generated data first: PyPI wheels pinning that torch (the exact release when a full
/// version is given, any of the minor for `2.5`). The hand-written rows answer only when the
/// generated data has none (GitHub-only wheels such as mamba-ssm's).
pub fn releases_built_for_torch(package: &str, torch_minor: &str) -> Vec<&'static Release> {
    let generated = generated_releases_for_torch(package, torch_minor);
    if !generated.is_empty() {
        return generated;
    }
    hand_written_releases_for_torch(package, torch_minor)
}

/// The generated rows as [`Release`]s, keyed by (normalized package, version), so that
/// [`releases_built_for_torch`] answers both tables in one type.
fn generated_as_compat() -> &'static std::collections::HashMap<(String, String), Release> {
    static M: OnceLock<std::collections::HashMap<(String, String), Release>> = OnceLock::new();
    M.get_or_init(|| {
        crate::releases::all()
            .iter()
            .filter(|r| r.wheels)
            .filter_map(|r| {
                let pin = r.torch.as_deref()?;
                let minor = Version::parse(pin.strip_suffix(".*").unwrap_or(pin))?;
                let key = (normalize_name(&r.package), r.version.clone());
                let rel = Release {
                    package: r.package.clone(),
                    version: r.version.clone(),
                    torch: vec![minor.major_minor_string()],
                    cuda: r.cuda_major.map(|c| c.to_string()).into_iter().collect(),
                    source: format!(
                        "releases.toml (PyPI metadata: torch=={pin}; tools/release-data/derive.py)"
                    ),
                };
                Some((key, rel))
            })
            .collect()
    })
}

fn generated_releases_for_torch(package: &str, torch: &str) -> Vec<&'static Release> {
    let m = generated_as_compat();
    crate::releases::releases_for_torch(package, torch)
        .into_iter()
        .filter(|r| r.wheels)
        .filter_map(|r| m.get(&(normalize_name(&r.package), r.version.clone())))
        .collect()
}

/// [`releases_built_for_torch`] over the hand-written rows only.
pub fn hand_written_releases_for_torch(package: &str, torch_minor: &str) -> Vec<&'static Release> {
    let name = crate::packages::package(package)
        .map(|p| p.name.clone())
        .unwrap_or_else(|| normalize_name(package));
    let Some(t) = Version::parse(torch_minor) else {
        return Vec::new();
    };
    let minor = t.major_minor_string();
    let mut out: Vec<&Release> = tables()
        .release
        .iter()
        .filter(|r| normalize_name(&r.package) == name && r.torch.contains(&minor))
        .collect();
    out.sort_by(|a, b| Version::parse(&b.version).cmp(&Version::parse(&a.version)));
    out
}

/// Every listed release of `package`, newest first.
pub fn releases(package: &str) -> Vec<&'static Release> {
    let name = crate::packages::package(package)
        .map(|p| p.name.clone())
        .unwrap_or_else(|| normalize_name(package));
    let mut out: Vec<&Release> = tables()
        .release
        .iter()
        .filter(|r| normalize_name(&r.package) == name)
        .collect();
    out.sort_by(|a, b| Version::parse(&b.version).cmp(&Version::parse(&a.version)));
    out
}
