//! Per-backend libraries as data (`backends` of a package in `data/packages.toml`): a package
//! that installs one library per CUDA/ROCm/XPU/CPU build (bitsandbytes'
//! `libbitsandbytes_cuda124.so`, `_rocm72.so`, `_cpu.so`), optional providers or modules loaded
//! only on request (onnxruntime's providers, numba's threading layers, CuPy's optional-library
//! bindings), one set of libraries per version of a system library it tries in turn
//! (torchcodec's `libtorchcodec_core7.so` and `libtorchcodec_custom_ops7.so` for FFmpeg 7), or one
//! module per provider library it finds installed (mpi4py's `MPI.mpich`, `MPI.openmpi`), and the
//! rule its import follows to load one of them. [`select`] applies that rule to the files
//! installed and the installed torch, [`unneeded_sets`] and [`unneeded_variants`] to what a check
//! found of each set or variant, so a scan judges at error only what an import would load.

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
    /// The file stem shared by every backend library, before what tells them apart
    /// (`libbitsandbytes_` + `cuda124`, `MPI` + `.mpich`); empty where `stems` names them.
    pub prefix: String,
    /// `torch-build`: the import loads the library for the GPU runtime torch was built with
    /// (`gpu`), else the `cpu` one; `on-request`: the import loads none of them (a session
    /// loads a provider when asked for it); `first-that-loads`: the libraries whose file stems
    /// end in the same number are one set (`libtorchcodec_core7`, `libtorchcodec_custom_ops7`:
    /// FFmpeg 7's), loaded together, and the package tries the sets from the highest number
    /// down and uses the first whose libraries all load ([`unneeded_sets`]);
    /// `one-per-provider`: one module per provider library, `{prefix}.{name}` (mpi4py's
    /// `MPI.mpich`, `MPI.openmpi`), and the import loads the one built for the provider that is
    /// installed ([`unneeded_variants`]).
    pub rule: String,
    /// For `first-that-loads`: what the number ending a set's file stems names (`FFmpeg`); for
    /// `one-per-provider`: what each variant is built for (`MPI library`). For messages.
    #[serde(default)]
    pub variant: Option<String>,
    /// Exact file stems that belong to the group beside the `{prefix}{tag}` ones: modules of an
    /// `on-request` rule that share no prefix (cupy's `cutensor`, `nccl`).
    #[serde(default)]
    pub stems: Vec<String>,
    /// For `on-request`: when the package loads them, for messages (numba's threading layers:
    /// when a parallel function first runs).
    #[serde(default)]
    pub why: Option<String>,
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
        crate::version::in_range(
            self.from.as_deref(),
            self.until.as_deref(),
            version.and_then(Version::parse).as_ref(),
        )
    }

    /// Whether a library's file stem (`libbitsandbytes_cuda124`) is one of these backends: one
    /// of `stems` exactly, or the prefix and more; of a `first-that-loads` rule only the stems
    /// ending in a set's number (`libtorchcodec_image`, which every set shares, is not), of a
    /// `one-per-provider` rule only `{prefix}.{name}`.
    pub fn matches(&self, stem: &str) -> bool {
        if self.stems.iter().any(|s| s == stem) {
            return true;
        }
        let Some(rest) = stem
            .strip_prefix(self.prefix.as_str())
            .filter(|r| !r.is_empty() && !self.prefix.is_empty())
        else {
            return false;
        };
        match self.rule.as_str() {
            "first-that-loads" => set_number(stem).is_some(),
            "one-per-provider" => rest.len() > 1 && rest.starts_with('.'),
            _ => true,
        }
    }
}

/// The file stem a rule matches: the file name before its extension-module or library suffix
/// (`libbitsandbytes_cuda124.so` → `libbitsandbytes_cuda124`, `MPI.mpich.cpython-312-….so` →
/// `MPI.mpich`, `libmpi.so.12` → `libmpi`).
pub fn file_stem(file_name: &str) -> &str {
    let mut end = 0;
    for (i, part) in file_name.split('.').enumerate() {
        let suffix = matches!(part, "so" | "pyd" | "dll" | "dylib" | "abi3")
            || part.starts_with("cpython-")
            || part.starts_with("pypy");
        if suffix && i > 0 {
            break;
        }
        end = if i == 0 {
            part.len()
        } else {
            end + 1 + part.len()
        };
    }
    file_name.get(..end).unwrap_or(file_name)
}

/// Of a `one-per-provider` rule's variants (`(stem, loads)`), the ones an import never loads,
/// each with why (`who`: the module as its user imports it): when one variant loads, the
/// package found its provider and uses that variant. When none loads, every variant's failure
/// stands: any one provider, installed, would do.
pub fn unneeded_variants(
    b: &Backends,
    who: &str,
    variants: &[(&str, bool)],
) -> Vec<(String, String)> {
    let label = b.variant.as_deref().unwrap_or("provider");
    let Some(&(chosen, _)) = variants.iter().find(|(_, loads)| *loads) else {
        return Vec::new();
    };
    variants
        .iter()
        .filter(|(stem, _)| *stem != chosen)
        .map(|&(stem, _)| {
            (
                stem.to_owned(),
                format!(
                    "{who} loads the one module of {} built for the {label} installed: {chosen} loads here, so {stem}, built for another {label}, is never loaded",
                    b.prefix
                ),
            )
        })
        .collect()
}

/// The set a library of a `first-that-loads` rule belongs to: the number ending its file stem
/// (`libtorchcodec_core7` → 7), `None` when the stem ends in no digit.
pub fn set_number(stem: &str) -> Option<u32> {
    let digits = stem.len() - stem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    stem.get(stem.len() - digits..)
        .filter(|d| !d.is_empty())
        .and_then(|d| d.parse().ok())
}

/// What a check found of one set of a `first-that-loads` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetCheck {
    /// The set's number (`7`: FFmpeg 7's libraries).
    pub number: u32,
    /// Every library of the set would load.
    pub loads: bool,
    /// Every library the set's libraries need was found: if it fails, it fails for another
    /// reason (symbols of another torch), with what this machine does have installed.
    pub found_all: bool,
}

/// Of a `first-that-loads` rule's sets, the ones whose failures do not decide what the import
/// meets, each with why (`who`: the package as its user imports it). The package tries the
/// sets from the highest number down and uses the first that loads: when one loads, every other
/// set is unneeded. When none loads, the sets that found every library they need (the installed
/// version of the system library: torchcodec's own message says only its error is relevant)
/// decide, and the sets failing for want of a library are unneeded; when no set found
/// everything, every set's failure stands (any one of them, fixed, would do).
pub fn unneeded_sets(b: &Backends, who: &str, sets: &[SetCheck]) -> Vec<(u32, String)> {
    let label = b.variant.as_deref().unwrap_or("version");
    let mut numbers: Vec<u32> = sets.iter().map(|s| s.number).collect();
    numbers.sort_unstable_by(|a, c| c.cmp(a));
    numbers.dedup();
    let tried = format!(
        "{who} tries one set of libraries per {label} version, highest first ({}), and uses the first whose libraries all load",
        numbers
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    // A set loads only when every one of its libraries does.
    let loads = |n: u32| sets.iter().filter(|s| s.number == n).all(|s| s.loads);
    let found_all = |n: u32| sets.iter().filter(|s| s.number == n).all(|s| s.found_all);
    if let Some(&chosen) = numbers.iter().find(|&&n| loads(n)) {
        return numbers
            .iter()
            .filter(|&&n| n != chosen)
            .map(|&n| {
                let why = if n > chosen {
                    format!(
                        "{tried}: the {label} {n} set fails here and it goes on to the {label} {chosen} set, which loads"
                    )
                } else {
                    format!("{tried}: the {label} {chosen} set loads, so the {label} {n} set is never tried")
                };
                (n, why)
            })
            .collect();
    }
    let relevant: Vec<String> = numbers
        .iter()
        .filter(|&&n| found_all(n))
        .map(|n| format!("{label} {n}"))
        .collect();
    if relevant.is_empty() {
        return Vec::new();
    }
    let (them, its) = if relevant.len() == 1 {
        ("set finds every library it needs", "its")
    } else {
        ("sets find every library they need", "their")
    };
    numbers
        .iter()
        .filter(|&&n| !found_all(n))
        .map(|&n| {
            (
                n,
                format!(
                    "{tried}: only the {} {them} here, so {its} errors are the ones that stop it, and the {label} {n} set's missing libraries are expected",
                    relevant.join(" and ")
                ),
            )
        })
        .collect()
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
            why: b
                .why
                .clone()
                .unwrap_or_else(|| "loaded only when a session asks for that backend".into()),
        }),
        "torch-build" => select_for_torch(b, stems, torch, var),
        // Decided by what loads, not by torch's build: `unneeded_sets`.
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

    #[test]
    fn file_stems_end_before_the_suffix() {
        for (name, stem) in [
            ("libbitsandbytes_cuda124.so", "libbitsandbytes_cuda124"),
            ("MPI.mpich.cpython-312-x86_64-linux-gnu.so", "MPI.mpich"),
            ("tbbpool.cpython-312-x86_64-linux-gnu.so", "tbbpool"),
            ("_C.abi3.so", "_C"),
            ("libmpi.so.12", "libmpi"),
            ("MPI.openmpi.pypy39-pp73-x86_64-linux-gnu.so", "MPI.openmpi"),
            ("so", "so"),
            ("", ""),
        ] {
            assert_eq!(file_stem(name), stem, "{name}");
        }
    }

    fn mpi() -> Backends {
        Backends {
            dir: "mpi4py".into(),
            prefix: "MPI".into(),
            rule: "one-per-provider".into(),
            variant: Some("MPI library".into()),
            ..Backends::default()
        }
    }

    #[test]
    fn one_variant_per_provider() {
        let b = mpi();
        assert!(b.matches("MPI.mpich"));
        assert!(!b.matches("MPI"));
        assert!(!b.matches("MPIX.mpich"));
        assert!(!b.matches("MPI."));
        // MPICH's variant fails for want of libmpi.so.12, Open MPI's loads: only Open MPI's is used.
        let un = unneeded_variants(
            &b,
            "`from mpi4py import MPI`",
            &[("MPI.mpich", false), ("MPI.openmpi", true)],
        );
        assert_eq!(un.len(), 1);
        assert_eq!(un[0].0, "MPI.mpich");
        assert!(un[0].1.contains("MPI.openmpi loads here"), "{}", un[0].1);
        // None loads: every failure stands.
        assert!(
            unneeded_variants(&b, "x", &[("MPI.mpich", false), ("MPI.openmpi", false)]).is_empty()
        );
    }

    #[test]
    fn exact_stems_of_an_on_request_group() {
        let b = Backends {
            dir: "cupy_backends/cuda/libs".into(),
            rule: "on-request".into(),
            stems: vec!["cutensor".into(), "nccl".into()],
            why: Some("cupy's optional libraries".into()),
            ..Backends::default()
        };
        assert!(b.matches("cutensor"));
        assert!(!b.matches("cublas"));
        assert!(!b.matches("cutensornet"));
        assert_eq!(
            select(&b, &["cutensor"], &TorchBuild::default(), &|_| None),
            Some(Selection::None {
                why: "cupy's optional libraries".into()
            })
        );
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
    fn first_that_loads_sets() {
        let tc = Backends {
            dir: "torchcodec".into(),
            prefix: "libtorchcodec".into(),
            rule: "first-that-loads".into(),
            variant: Some("FFmpeg".into()),
            ..Backends::default()
        };
        assert_eq!(set_number("libtorchcodec_core7"), Some(7));
        assert_eq!(set_number("libtorchcodec4"), Some(4));
        assert_eq!(set_number("libtorchcodec_image"), None);
        assert_eq!(set_number("9"), Some(9));
        assert_eq!(set_number("libx99999999999999999999"), None);
        assert!(tc.matches("libtorchcodec_custom_ops8"));
        assert!(!tc.matches("libtorchcodec_pybind_ops"));
        assert!(!tc.matches("libtorchcodec"));
        let set = |number, loads, found_all| SetCheck {
            number,
            loads,
            found_all,
        };
        let numbers = |v: Vec<(u32, String)>| v.into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        // FFmpeg 7 installed: the 8 and 9 sets are tried first and fail, 6 is never tried.
        let some = [
            set(9, false, false),
            set(8, false, false),
            set(7, true, true),
            set(7, true, true),
            set(6, false, false),
        ];
        let out = unneeded_sets(&tc, "torchcodec", &some);
        assert_eq!(numbers(out.clone()), vec![9, 8, 6]);
        assert!(out[0].1.contains("highest first (9, 8, 7, 6)"), "{out:?}");
        assert!(
            out[2]
                .1
                .ends_with("the FFmpeg 7 set loads, so the FFmpeg 6 set is never tried")
        );
        // One library of a set failing fails the set: the next one down is used.
        let half = [set(7, true, true), set(7, false, true), set(6, true, true)];
        assert_eq!(numbers(unneeded_sets(&tc, "torchcodec", &half)), vec![7]);
        // None loads, FFmpeg 6 found (built for another torch): only its errors stand.
        let found = [
            set(7, false, false),
            set(6, false, true),
            set(5, false, false),
        ];
        let out = unneeded_sets(&tc, "torchcodec", &found);
        assert_eq!(numbers(out.clone()), vec![7, 5]);
        assert!(out[0].1.contains("only the FFmpeg 6 set finds"), "{out:?}");
        // No FFmpeg at all: every set stays at error.
        let none = [set(7, false, false), set(6, false, false)];
        assert!(unneeded_sets(&tc, "torchcodec", &none).is_empty());
        assert!(unneeded_sets(&tc, "torchcodec", &[]).is_empty());
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
