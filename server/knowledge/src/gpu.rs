//! GPU facts (`data/gpu.toml`): compute capabilities and the CUDA that compiles for them, the
//! minimum NVIDIA driver of each CUDA release, and the CUDA builds PyTorch publishes per release
//! line with their index URL. Lookups only; versions as `(major, minor)` pairs.

use crate::version::Version;
use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchRow {
    /// `8.6`.
    pub capability: String,
    pub name: String,
    pub gpus: String,
    pub min_cuda: String,
    #[serde(default)]
    pub removed_in: Option<String>,
    pub source: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverRow {
    pub cuda: String,
    pub min_linux: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinorCompatRow {
    pub major: u64,
    pub min_linux: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchBuilds {
    /// A release line: `2.7`.
    pub torch: String,
    /// `cu118`, `cu126`, `cu128`.
    pub variants: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverSymbol {
    pub name: String,
    /// The CUDA release whose driver API first has it.
    pub cuda: String,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tables {
    #[serde(default)]
    pub driver_symbol: Vec<DriverSymbol>,
    #[serde(default)]
    pub arch: Vec<ArchRow>,
    #[serde(default)]
    pub driver: Vec<DriverRow>,
    #[serde(default)]
    pub minor_compat: Vec<MinorCompatRow>,
    #[serde(default)]
    pub torch_builds: Vec<TorchBuilds>,
    #[serde(default)]
    pub model: Vec<ModelRow>,
    #[serde(default)]
    pub rocm_override: Vec<RocmOverride>,
}

/// AMD GPUs that ROCm's builds do not ship code objects for, and the architecture whose code
/// objects run on them when the runtime is told to present them as it
/// (`HSA_OVERRIDE_GFX_VERSION`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RocmOverride {
    /// The GPUs' LLVM targets (`gfx1031`).
    pub gfx: Vec<String>,
    /// The value to set (`10.3.0`: present the GPU as gfx1030).
    pub version: String,
    /// The family, for messages (`RDNA2: Radeon RX 6000`).
    pub family: String,
    pub source: String,
}

/// The override that lets ROCm's builds run on an AMD GPU (`gfx1031` → `10.3.0`).
pub fn rocm_override(gfx: &str) -> Option<&'static RocmOverride> {
    let g = gfx.to_ascii_lowercase();
    tables().rocm_override.iter().find(|r| r.gfx.contains(&g))
}

/// GPU model names (as the driver reports them: `NVIDIA H100 80GB HBM3`) to their compute
/// capability.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelRow {
    /// Words that name the model inside the driver's name, matched case-insensitively at word
    /// starts (`RTX 50` matches `GeForce RTX 5090`); the longest match wins.
    pub names: Vec<String>,
    pub capability: String,
    pub source: String,
}

/// The compute capability of a GPU by its model name (`NVIDIA GeForce RTX 4090` → 8.9); the
/// longest listed name found at a word start wins (`A100` over `A10`).
pub fn capability_of_model(model: &str) -> Option<(u32, u32)> {
    let m = model.to_ascii_lowercase();
    let at_word_start = |needle: &str| {
        m.match_indices(needle)
            .any(|(i, _)| i == 0 || !m.as_bytes()[i - 1].is_ascii_alphanumeric())
    };
    tables()
        .model
        .iter()
        .flat_map(|r| r.names.iter().map(move |n| (n, r)))
        .filter(|(n, _)| at_word_start(&n.to_ascii_lowercase()))
        .max_by_key(|(n, _)| n.len())
        .and_then(|(_, r)| parse_capability(&r.capability))
}

pub fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| crate::data::parse("gpu.toml", include_str!("../data/gpu.toml")))
}

/// `(12, 0)` for `12.0`, `sm_120`, `120`, `compute_120`, `12`; `(8, 6)` for `sm_86`, `8.6`.
pub fn parse_capability(text: &str) -> Option<(u32, u32)> {
    let t = text.trim();
    let t = t
        .strip_prefix("sm_")
        .or_else(|| t.strip_prefix("compute_"))
        .unwrap_or(t);
    // `sm_90a` / `sm_100f`: architecture-specific variants of the same capability.
    let t = t.trim_end_matches(['a', 'f']);
    if let Some((a, b)) = t.split_once('.') {
        return Some((a.parse().ok()?, b.parse().ok()?));
    }
    if t.is_empty() || t.len() > 4 || !t.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let n: u32 = t.parse().ok()?;
    if n < 10 {
        return Some((n, 0));
    }
    Some((n / 10, n % 10))
}

fn pair(text: &str) -> Option<(u64, u64)> {
    let v = Version::parse(text)?;
    Some(v.major_minor())
}

/// The architecture row of a compute capability.
pub fn arch(cc: (u32, u32)) -> Option<&'static ArchRow> {
    tables()
        .arch
        .iter()
        .find(|a| parse_capability(&a.capability) == Some(cc))
}

/// The first CUDA toolkit that compiles for this capability (`(12, 8)` for 12.0).
pub fn min_cuda_for(cc: (u32, u32)) -> Option<(u64, u64)> {
    arch(cc).and_then(|a| pair(&a.min_cuda))
}

/// The first CUDA toolkit that no longer compiles for it.
pub fn removed_in(cc: (u32, u32)) -> Option<(u64, u64)> {
    arch(cc)
        .and_then(|a| a.removed_in.as_deref())
        .and_then(pair)
}

/// The minimum Linux driver of a CUDA release (`570.26` for 12.8): the row for that release, or
/// for the latest release before it the table knows.
pub fn min_driver(cuda: (u64, u64)) -> Option<&'static str> {
    tables()
        .driver
        .iter()
        .filter(|d| pair(&d.cuda).is_some_and(|c| c <= cuda && c.0 == cuda.0))
        .max_by_key(|d| pair(&d.cuda))
        .map(|d| d.min_linux.as_str())
}

/// The driver a CUDA major needs under minor version compatibility.
pub fn minor_compat_driver(major: u64) -> Option<&'static str> {
    tables()
        .minor_compat
        .iter()
        .find(|m| m.major == major)
        .map(|m| m.min_linux.as_str())
}

/// The newest CUDA release a Linux driver supports natively (`(12, 2)` for `535.104.05`).
pub fn cuda_of_driver(driver: &str) -> Option<(u64, u64)> {
    let d = Version::parse(driver)?;
    tables()
        .driver
        .iter()
        .filter(|r| Version::parse(&r.min_linux).is_some_and(|m| m <= d))
        .filter_map(|r| pair(&r.cuda))
        .max()
}

/// The CUDA builds published for a torch release (`cu118`, `cu126`, `cu128` for 2.7.1), oldest
/// first; for a line the table does not list, the default CUDA's build alone.
pub fn torch_variants(torch: &str) -> Vec<String> {
    let Some(v) = Version::parse(torch) else {
        return Vec::new();
    };
    let line = v.major_minor_string();
    if let Some(row) = tables().torch_builds.iter().find(|r| r.torch == line) {
        return row.variants.clone();
    }
    crate::compat::torch_default_cuda(v.public())
        .and_then(pair)
        .map(|(a, b)| vec![format!("cu{a}{b}")])
        .unwrap_or_default()
}

/// `(12, 8)` for `cu128`, `(9, 2)` for `cu92`: PyTorch's build labels write the minor as the
/// last digit.
pub fn variant_cuda(variant: &str) -> Option<(u64, u64)> {
    let digits = variant.strip_prefix("cu")?;
    if !(2..=3).contains(&digits.len()) || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The index PyTorch serves a CUDA build from.
pub fn index_url(variant: &str) -> String {
    format!("https://download.pytorch.org/whl/{variant}")
}

/// The oldest build of `torch` whose CUDA compiles for `cc` (and still does), if any.
pub fn variant_for_capability(torch: &str, cc: (u32, u32)) -> Option<String> {
    let min = min_cuda_for(cc)?;
    let removed = removed_in(cc);
    torch_variants(torch)
        .into_iter()
        .find(|v| variant_cuda(v).is_some_and(|c| c >= min && removed.is_none_or(|r| c < r)))
}

/// The first torch release line with a build whose CUDA compiles for `cc`, and that build.
pub fn first_torch_for_capability(cc: (u32, u32)) -> Option<(String, String)> {
    let min = min_cuda_for(cc)?;
    tables().torch_builds.iter().find_map(|r| {
        r.variants
            .iter()
            .find(|v| variant_cuda(v).is_some_and(|c| c >= min))
            .map(|v| (r.torch.clone(), v.clone()))
    })
}

/// Whether a driver supporting CUDA `driver_cuda` runs a runtime built for `build`: natively
/// (an older or equal CUDA), or, from CUDA 11 on, any release of the driver's own major through
/// minor version compatibility (PTX JIT excepted; torch's wheels carry SASS for their arches).
pub fn driver_runs(driver_cuda: (u64, u64), build: (u64, u64)) -> bool {
    build <= driver_cuda || (build.0 == driver_cuda.0 && build.0 >= 11)
}

/// The newest build of `torch` a driver supporting `driver_cuda` runs: natively first, through
/// minor version compatibility when no build is old enough for that.
pub fn variant_for_driver(torch: &str, driver_cuda: (u64, u64)) -> Option<String> {
    let variants = torch_variants(torch);
    let native = variants
        .iter()
        .rev()
        .find(|v| variant_cuda(v).is_some_and(|c| c <= driver_cuda));
    native
        .or_else(|| {
            variants
                .iter()
                .rev()
                .find(|v| variant_cuda(v).is_some_and(|c| driver_runs(driver_cuda, c)))
        })
        .cloned()
}

/// The newest torch release line with a build a driver supporting `driver_cuda` runs, and that
/// build (`("2.7", "cu118")` for a CUDA 11.4 driver, through minor version compatibility).
pub fn newest_torch_for_driver(driver_cuda: (u64, u64)) -> Option<(String, String)> {
    tables()
        .torch_builds
        .iter()
        .rev()
        .find_map(|r| variant_for_driver(&r.torch, driver_cuda).map(|v| (r.torch.clone(), v)))
}

/// The CUDA release whose driver first has a driver API function (`(12, 4)` for
/// `cuGreenCtxCreate`; versioned names like `cuCtxCreate_v4` are listed as such).
pub fn driver_symbol_cuda(name: &str) -> Option<(u64, u64)> {
    tables()
        .driver_symbol
        .iter()
        .find(|s| s.name == name)
        .and_then(|s| pair(&s.cuda))
}

/// Whether a C symbol is a CUDA driver API function (`cuInit`, `cuGreenCtxCreate`,
/// `cuCtxCreate_v4`): `cu` then an upper-case letter. The runtime (`cuda*`) and the libraries
/// (`cublas*`, `cudnn*`, `cufft*`, `curand*`, `cusparse*`, `cusolver*`) are lower case there.
pub fn is_driver_api(symbol: &str) -> bool {
    symbol.len() <= 64
        && symbol
            .strip_prefix("cu")
            .and_then(|r| r.bytes().next())
            .is_some_and(|c| c.is_ascii_uppercase())
        && symbol
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// The CUDA version in torch's `found version 11040` (the driver API version): `(11, 4)`.
pub fn cuda_of_driver_api_version(v: &str) -> Option<(u64, u64)> {
    let n: u64 = v.parse().ok()?;
    (1000..100_000)
        .contains(&n)
        .then_some((n / 1000, (n % 1000) / 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_by_driver_name() {
        for (name, cc) in [
            ("NVIDIA H100 80GB HBM3", Some((9, 0))),
            ("NVIDIA GeForce RTX 5090", Some((12, 0))),
            ("NVIDIA GeForce RTX 4090", Some((8, 9))),
            ("NVIDIA A100-SXM4-80GB", Some((8, 0))),
            ("NVIDIA A10G", Some((8, 6))),
            ("Tesla T4", Some((7, 5))),
            ("Tesla V100-SXM2-16GB", Some((7, 0))),
            ("Quadro RTX 5000", Some((7, 5))),
            ("NVIDIA RTX 5000 Ada Generation", Some((8, 9))),
            ("NVIDIA L40S", Some((8, 9))),
            ("NVIDIA GeForce GTX 1080 Ti", Some((6, 1))),
            ("Tesla K80", Some((3, 7))),
            ("NVIDIA GB10", Some((12, 1))),
            ("Some Future GPU", None),
        ] {
            assert_eq!(capability_of_model(name), cc, "{name}");
        }
    }

    #[test]
    fn the_table_loads_and_answers() {
        // Loaded first: `load_errors` does not load this table (that would close a module circle).
        assert!(!tables().arch.is_empty() && !tables().driver.is_empty());
        assert!(crate::load_errors().is_empty());
        assert_eq!(parse_capability("sm_120"), Some((12, 0)));
        assert_eq!(parse_capability("8.6"), Some((8, 6)));
        assert_eq!(parse_capability("sm_90a"), Some((9, 0)));
        assert_eq!(parse_capability("compute_37"), Some((3, 7)));
        assert_eq!(parse_capability("sm_"), None);
        assert_eq!(min_cuda_for((12, 0)), Some((12, 8)));
        assert_eq!(min_driver((12, 8)), Some("570.26"));
        assert_eq!(min_driver((12, 7)), Some("560.28.03"));
        assert_eq!(cuda_of_driver("535.104.05"), Some((12, 2)));
        assert_eq!(cuda_of_driver("470.82.01"), Some((11, 4)));
        assert_eq!(
            variant_for_capability("2.7.1", (12, 0)).as_deref(),
            Some("cu128")
        );
        assert_eq!(variant_for_capability("2.6.0", (12, 0)), None);
        assert_eq!(
            first_torch_for_capability((12, 0)),
            Some(("2.7".into(), "cu128".into()))
        );
        assert_eq!(
            variant_for_driver("2.7.0", (12, 2)).as_deref(),
            Some("cu118")
        );
        assert_eq!(
            variant_for_driver("2.7.0", (12, 6)).as_deref(),
            Some("cu126")
        );
        // A CUDA 11.4 driver runs 11.8 through minor version compatibility, not 12.x.
        assert_eq!(
            variant_for_driver("2.7.0", (11, 4)).as_deref(),
            Some("cu118")
        );
        assert_eq!(variant_for_driver("2.8.0", (11, 4)), None);
        assert_eq!(
            newest_torch_for_driver((11, 4)),
            Some(("2.7".into(), "cu118".into()))
        );
        assert_eq!(
            variant_for_driver("1.8.0", (10, 1)).as_deref(),
            Some("cu101")
        );
        assert_eq!(variant_for_capability("2.9.0", (3, 7)), None);
        assert_eq!(index_url("cu128"), "https://download.pytorch.org/whl/cu128");
        assert_eq!(driver_symbol_cuda("cuGreenCtxCreate"), Some((12, 4)));
        assert!(is_driver_api("cuCtxCreate_v4") && is_driver_api("cuInit"));
        assert!(!is_driver_api("cudaMalloc") && !is_driver_api("cublasCreate_v2"));
        assert!(!is_driver_api("_ZN3c104cuda9SetDeviceEi"));
        assert_eq!(cuda_of_driver_api_version("11040"), Some((11, 4)));
        assert_eq!(cuda_of_driver_api_version("12080"), Some((12, 8)));
        assert_eq!(cuda_of_driver_api_version("99"), None);
    }
}
