//! Per-backend libraries as data (`backends` of a package in `data/packages.toml`): a package
//! that installs one library per CUDA/ROCm/XPU/CPU build (bitsandbytes'
//! `libbitsandbytes_cuda124.so`, `_rocm72.so`, `_cpu.so`), or optional providers loaded only on
//! request, and the rule its import follows to load one of them. [`select`] applies that rule to
//! the files installed and the installed torch, so a scan judges at error only what an import
//! would load.

use crate::version::Version;
use serde::{Deserialize, Serialize};

/// One release range's way of choosing among the libraries that match `file`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Backends {
    /// First release following this rule (inclusive); absent: every release before `until`.
    #[serde(default)]
    pub from: Option<String>,
    /// First release no longer following it (exclusive).
    #[serde(default)]
    pub until: Option<String>,
    /// The directory holding them, `/`-separated, relative to site-packages (`bitsandbytes`).
    pub dir: String,
    /// The file name stem shared by every backend library, before the backend's tag
    /// (`libbitsandbytes_`): `{prefix}{tag}{version}.so`.
    pub prefix: String,
    /// `torch-build`: the import loads the library for the GPU runtime torch was built with
    /// (`gpu`), else the `cpu` one; `on-request`: the import loads none of them (a session
    /// loads a provider when asked for it).
    pub rule: String,
    /// How the GPU libraries' versions are matched to torch's: `exact`, or `same-major` (the
    /// exact one, else the highest below it of the same major, else the lowest above it).
    #[serde(default)]
    pub matching: Option<String>,
    /// One entry per GPU runtime (CUDA, ROCm, XPU).
    #[serde(default)]
    pub gpu: Vec<GpuBackend>,
    /// The tag of the library loaded when torch has no GPU runtime (`cpu`).
    #[serde(default)]
    pub cpu: Option<String>,
    pub source: String,
}

/// The libraries of one GPU runtime: `{prefix}{tag}{version digits}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuBackend {
    /// Which runtime of torch's build selects it: `cuda` (`torch.version.cuda`), `hip`
    /// (`torch.version.hip`), `xpu` (a `+xpu` torch).
    pub torch: String,
    /// The file name tag (`cuda`, `rocm`, `xpu`).
    pub tag: String,
    /// Digits of the major version in the file name (`cuda124` → 2: 12.4; `rocm72` → 1: 7.2);
    /// 0 when the file carries no version (`libbitsandbytes_xpu.so`).
    #[serde(default)]
    pub major_digits: usize,
    /// An environment variable naming the version digits to load instead (`BNB_CUDA_VERSION`).
    #[serde(default)]
    pub override_var: Option<String>,
}

/// The installed torch's build, as [`select`] needs it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TorchBuild<'a> {
    /// `torch.version.cuda` (`12.8`).
    pub cuda: Option<&'a str>,
    /// `torch.version.hip` (`6.3.42131`).
    pub hip: Option<&'a str>,
    /// Torch's version, whose local label says `+xpu` for an XPU build.
    pub version: Option<&'a str>,
}

/// What [`select`] decided for a group of backend libraries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// An import loads the library with this file stem (it may be absent from `stems`: the
    /// import then fails to find it), for this reason.
    One { stem: String, why: String },
    /// An import loads none of them.
    None { why: String },
}

impl Backends {
    /// Whether this rule covers `version` of the package (any version when unknown).
    pub fn covers(&self, version: Option<&str>) -> bool {
        let Some(v) = version.and_then(Version::parse) else {
            return self.from.is_none();
        };
        let after = |b: &Option<String>| b.as_deref().and_then(Version::parse);
        after(&self.from).is_none_or(|f| v >= f) && after(&self.until).is_none_or(|u| v < u)
    }

    /// Whether a library's file stem (`libbitsandbytes_cuda124`) is one of these backends.
    pub fn matches(&self, stem: &str) -> bool {
        stem.strip_prefix(self.prefix.as_str())
            .is_some_and(|rest| !rest.is_empty())
    }
}

/// File stems (`libbitsandbytes_cuda124` for `libbitsandbytes_cuda124.so`) of every installed
/// library that matches the rule, the torch build, and the environment's override variables:
/// which one an import loads. `None` when the rule cannot tell (an unknown rule, a torch whose
/// build is unknown): then every library is judged as before.
pub fn select(
    b: &Backends,
    stems: &[&str],
    torch: &TorchBuild<'_>,
    var: &dyn Fn(&str) -> Option<String>,
) -> Option<Selection> {
    match b.rule.as_str() {
        "on-request" => Some(Selection::None {
            why: "loaded only when a session asks for that backend".into(),
        }),
        "torch-build" => select_for_torch(b, stems, torch, var),
        _ => None,
    }
}

fn select_for_torch(
    b: &Backends,
    stems: &[&str],
    torch: &TorchBuild<'_>,
    var: &dyn Fn(&str) -> Option<String>,
) -> Option<Selection> {
    let xpu = torch
        .version
        .and_then(|v| v.split_once('+'))
        .is_some_and(|(_, local)| local.starts_with("xpu"));
    let runtime = b.gpu.iter().find_map(|g| match g.torch.as_str() {
        "cuda" => torch.cuda.map(|v| (g, v.to_owned())),
        "hip" => torch.hip.map(|v| (g, v.to_owned())),
        "xpu" if xpu => Some((g, String::new())),
        _ => None,
    });
    let Some((gpu, version)) = runtime else {
        let cpu = b.cpu.as_deref()?;
        return Some(Selection::One {
            stem: format!("{}{cpu}", b.prefix),
            why: "torch has no GPU runtime, so the import loads the CPU library".into(),
        });
    };
    let tagged = format!("{}{}", b.prefix, gpu.tag);
    if let Some(name) = gpu.override_var.as_deref()
        && let Some(digits) = var(name).filter(|d| !d.is_empty())
    {
        if !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        return Some(Selection::One {
            stem: format!("{tagged}{digits}"),
            why: format!("{name}={digits} names the library the import loads"),
        });
    }
    if gpu.major_digits == 0 {
        return Some(Selection::One {
            stem: tagged,
            why: format!("torch is built for {}", gpu.tag.to_uppercase()),
        });
    }
    // `12.8` → (12, 8); ROCm's `6.3.42131` → (6, 3).
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    let (Some(Some(major)), Some(Some(minor))) = (parts.next(), parts.next()) else {
        return None;
    };
    let shipped: Vec<(u32, u32, String)> = versions(b, gpu, stems)
        .into_iter()
        .map(|(a, i)| (a, i, format!("{tagged}{a}{i}")))
        .collect();
    let exact = format!("{tagged}{major}{minor}");
    let runtime = format!("{} {major}.{minor}", gpu.tag.to_uppercase());
    let why_exact = format!("torch is built for {runtime}");
    if shipped.iter().any(|&(a, i, _)| (a, i) == (major, minor))
        || b.matching.as_deref() != Some("same-major")
    {
        return Some(Selection::One {
            stem: exact,
            why: why_exact,
        });
    }
    let same: Vec<_> = shipped.iter().filter(|s| s.0 == major).collect();
    let pick = same
        .iter()
        .filter(|s| s.1 < minor)
        .max_by_key(|s| s.1)
        .or_else(|| same.iter().filter(|s| s.1 > minor).min_by_key(|s| s.1));
    Some(match pick {
        Some(&&(a, i, ref stem)) => Selection::One {
            stem: stem.clone(),
            why: format!(
                "torch is built for {runtime}; the import falls back to the {} {a}.{i} library",
                gpu.tag.to_uppercase()
            ),
        },
        None => Selection::One {
            stem: exact,
            why: why_exact,
        },
    })
}

/// The (major, minor) versions of `gpu`'s libraries among `stems`, as their file names spell
/// them (`libbitsandbytes_cuda124` → (12, 4)), sorted.
pub fn versions(b: &Backends, gpu: &GpuBackend, stems: &[&str]) -> Vec<(u32, u32)> {
    let tagged = format!("{}{}", b.prefix, gpu.tag);
    let mut v: Vec<(u32, u32)> = stems
        .iter()
        .filter_map(|s| {
            let digits = s.strip_prefix(tagged.as_str())?;
            if gpu.major_digits == 0
                || digits.len() <= gpu.major_digits
                || !digits.chars().all(|c| c.is_ascii_digit())
            {
                return None;
            }
            let (ma, mi) = digits.split_at(gpu.major_digits);
            Some((ma.parse().ok()?, mi.parse().ok()?))
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bnb(matching: &str) -> Backends {
        Backends {
            dir: "bitsandbytes".into(),
            prefix: "libbitsandbytes_".into(),
            rule: "torch-build".into(),
            matching: Some(matching.into()),
            gpu: vec![
                GpuBackend {
                    torch: "cuda".into(),
                    tag: "cuda".into(),
                    major_digits: 2,
                    override_var: Some("BNB_CUDA_VERSION".into()),
                },
                GpuBackend {
                    torch: "hip".into(),
                    tag: "rocm".into(),
                    major_digits: 1,
                    override_var: Some("BNB_ROCM_VERSION".into()),
                },
            ],
            cpu: Some("cpu".into()),
            ..Backends::default()
        }
    }

    fn stem(s: Option<Selection>) -> String {
        match s {
            Some(Selection::One { stem, .. }) => stem,
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn picks_as_bitsandbytes_does() {
        let stems = [
            "libbitsandbytes_cuda118",
            "libbitsandbytes_cuda124",
            "libbitsandbytes_cuda128",
            "libbitsandbytes_cuda130",
            "libbitsandbytes_rocm63",
            "libbitsandbytes_cpu",
        ];
        let none = |_: &str| None;
        let cuda = |v| TorchBuild {
            cuda: Some(v),
            ..TorchBuild::default()
        };
        let same = bnb("same-major");
        for (v, want) in [
            ("12.4", "libbitsandbytes_cuda124"),
            ("12.6", "libbitsandbytes_cuda124"),
            ("12.9", "libbitsandbytes_cuda128"),
            ("12.1", "libbitsandbytes_cuda124"),
            ("13.2", "libbitsandbytes_cuda130"),
            ("11.7", "libbitsandbytes_cuda118"),
            // No same-major library: the exact, absent name (the import says "not found").
            ("10.2", "libbitsandbytes_cuda102"),
        ] {
            assert_eq!(stem(select(&same, &stems, &cuda(v), &none)), want, "{v}");
        }
        assert_eq!(
            stem(select(&bnb("exact"), &stems, &cuda("12.6"), &none)),
            "libbitsandbytes_cuda126"
        );
        let over = |k: &str| (k == "BNB_CUDA_VERSION").then(|| "118".to_owned());
        assert_eq!(
            stem(select(&same, &stems, &cuda("12.8"), &over)),
            "libbitsandbytes_cuda118"
        );
        let hip = TorchBuild {
            hip: Some("6.3.42131"),
            ..TorchBuild::default()
        };
        assert_eq!(
            stem(select(&same, &stems, &hip, &none)),
            "libbitsandbytes_rocm63"
        );
        assert_eq!(
            stem(select(&same, &stems, &TorchBuild::default(), &none)),
            "libbitsandbytes_cpu"
        );
        let bad = |_: &str| Some("12;x".to_owned());
        assert_eq!(select(&same, &stems, &cuda("12.8"), &bad), None);
        assert_eq!(
            versions(&same, &same.gpu[0], &stems),
            vec![(11, 8), (12, 4), (12, 8), (13, 0)]
        );
    }

    #[test]
    fn release_ranges() {
        let mut b = bnb("exact");
        b.until = Some("0.50.0".into());
        assert!(b.covers(Some("0.45.5")));
        assert!(!b.covers(Some("0.50.0")));
        assert!(b.covers(None));
        b.from = Some("0.43.0".into());
        assert!(!b.covers(Some("0.42.0")));
        assert!(!b.covers(None));
    }
}
