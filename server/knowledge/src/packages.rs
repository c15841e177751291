//! Extension packages as data (`data/packages.toml`): names, compiled modules and paths, who needs them, build recipes and where its wheels are; lookups by module, path and name.

use crate::backends::Backends;
use crate::names::normalize_name;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::OnceLock;

/// One extension package (or a library that imports extensions optionally).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Package {
    /// PEP 503 normalized distribution name.
    pub name: String,
    /// Other distribution names that install the same modules (`mmcv-full` for `mmcv`).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Top-level Python packages it installs (`mamba_ssm`).
    #[serde(default)]
    pub import_names: Vec<String>,
    /// Compiled modules, dotted (`selective_scan_cuda`, `xformers._C`, `torch_scatter._version_cuda`).
    #[serde(default)]
    pub modules: Vec<String>,
    /// Other compiled files it installs, as `/`-separated path suffixes without the `.so`
    /// extension; `*` matches within one component (`bitsandbytes/libbitsandbytes_cuda*`).
    #[serde(default)]
    pub paths: Vec<String>,
    /// The `torch.ops` namespaces its library registers operators in (`fbgemm` for
    /// `torch.ops.fbgemm.*`, `torchcodec_ns`): an operator missing from one is this package's.
    #[serde(default)]
    pub op_namespaces: Vec<String>,
    /// The TensorFlow ops its library registers, by name (`CaseFoldUTF8`) or by the namespace
    /// or prefix they share (`Addons>`, `SimpleML*`): an op TensorFlow finds unregistered is
    /// this package's.
    #[serde(default)]
    pub tf_ops: Vec<String>,
    /// Its compiled code links against torch's C++ libraries, so it must be built for the
    /// installed torch (false for ctypes-loaded libraries such as bitsandbytes').
    #[serde(default)]
    pub links_torch: bool,
    /// It ships GPU code of its own, compiled per release for the GPUs of that day, and no other
    /// installed release pins it (ONNX Runtime, bitsandbytes, CuPy, Paddle): a GPU its build
    /// lacks is in a newer release. False for packages torch or a framework pins to one
    /// release (Triton, jaxlib, TensorFlow), which move only with it.
    #[serde(default)]
    pub own_gpu_builds: bool,
    /// PyPI holds wheels of it and no source distribution (torch, TensorFlow, jaxlib, ONNX
    /// Runtime, Triton): `pip install --no-binary` cannot build it, and its own build system
    /// (Bazel, CMake from a checkout) is a project of its own.
    #[serde(default)]
    pub no_sdist: bool,
    /// PyPI holds only its source distribution (llama-cpp-python, dlib, PyCUDA): every pip install
    /// of it compiles, and `--only-binary` finds nothing.
    #[serde(default)]
    pub sdist_only: bool,
    /// Model families (`model_type` values, see `models.toml`) whose code paths use it.
    #[serde(default)]
    pub needed_by_families: Vec<String>,
    /// Distributions that import it when present and work without it.
    #[serde(default)]
    pub optional_importers: Vec<String>,
    /// True when every importer listed above falls back cleanly if the package is absent
    /// (an installed-but-broken copy still breaks them: removing it is a fix).
    #[serde(default)]
    pub optional_for_importers: bool,
    /// Packages that are installed and rebuilt together with it (`mamba-ssm` ↔ `causal-conv1d`).
    #[serde(default)]
    pub pairs_with: Vec<String>,
    #[serde(default)]
    pub build: BuildRecipe,
    /// A page of links to its prebuilt wheels per torch and CUDA, outside PyPI (PyG's,
    /// OpenMMLab's): what `pip install --find-links` reads.
    #[serde(default)]
    pub wheel_index: Option<WheelIndex>,
    /// How an import chooses one of its per-backend libraries, per release range (see
    /// [`Backends`]); empty when its import loads every compiled file it installs.
    #[serde(default)]
    pub backends: Vec<Backends>,
    /// The CUDA and cuDNN majors its releases open at run time, per release range, for a
    /// package that loads them itself rather than through torch (CTranslate2): what says which
    /// release loads the runtime an environment has.
    #[serde(default)]
    pub runtimes: Vec<RuntimeMajors>,
    /// Phrases of its own messages no other package prints (CTranslate2's `is not found or
    /// cannot be loaded`): a text that has one names the package, as its name would.
    #[serde(default)]
    pub wording: Vec<String>,
    /// Where its Windows wheels moved to a newer Visual C++ than many machines' runtime (their
    /// extension then fails to initialize, error 1114).
    #[serde(default)]
    pub newer_msvc: Option<NewerMsvc>,
    /// Its releases carry the version of the torch they are built for (torch-xla 2.7.0 is torch
    /// 2.7.0's) without pinning it in their metadata: the release for a torch is found by
    /// number, and no source build is the way to one.
    #[serde(default)]
    pub follows_torch: bool,
    /// A framework (TensorFlow): code is written against its release, so another release is an
    /// upgrade of the program, never the fix for a library it misses.
    #[serde(default)]
    pub framework: bool,
    /// The outermost C++ namespaces its own libraries define (`tensorflow`, `tsl`, `xla` for
    /// TensorFlow): a name in one of them that another package's binding calls comes from this
    /// framework's libraries, never from torch or the binding's own code.
    #[serde(default)]
    pub cxx_namespaces: Vec<String>,
    /// Not on PyPI and no repository URL builds it alone: it is built from a directory of a
    /// project's checkout (gaussian-splatting's rasterizer, Hunyuan3D's), so no command may
    /// install it by name (PyPI's project of that name, if any, is another).
    #[serde(default)]
    pub checkout_only: bool,
    /// Published once per CUDA build, each a distribution of its own named with its CUDA
    /// (`cupy-cuda12x`, `cudf-cu12`, `spconv-cu118`: its name and aliases carry the tags): the
    /// build must be the machine's CUDA's. Not for a package whose aliases merely include CUDA
    /// builds of another kind (`faiss-cpu` beside `faiss-gpu-cu12`).
    #[serde(default)]
    pub per_cuda: bool,
    /// The distribution that publishes its Windows builds where the project itself publishes
    /// none (triton → `triton-windows`).
    #[serde(default)]
    pub windows_port: Option<String>,
    /// The distribution that publishes the same modules built for CPUs below the default
    /// wheels' instruction baseline (polars → `polars-lts-cpu`): installed in its place.
    #[serde(default)]
    pub older_cpu_build: Option<String>,
    /// Its extra that installs the CUDA libraries a release was built with as PyPI wheels
    /// (TensorFlow's `and-cuda`): pip keeps the installed release and adds them.
    #[serde(default)]
    pub cuda_extra: Option<String>,
    /// The backends it reads or writes media through, each an optional install of its own
    /// (torchaudio's soundfile, FFmpeg and SoX; torchvision's PyAV), in the order to suggest
    /// them when its message names none.
    #[serde(default)]
    pub io_backends: Vec<IoBackend>,
    /// Which releases of a package it calls into (`pairs_with`) each range of its own releases
    /// calls correctly: the compiled functions' signatures changed between them (mamba-ssm 1.1
    /// passes causal-conv1d 1.1's five arguments).
    #[serde(default)]
    pub partner_ranges: Vec<PartnerRange>,
    #[serde(default)]
    pub repository: String,
    #[serde(default)]
    pub notes: Vec<String>,
    /// Where the facts come from (release page, README, setup.py, issue).
    pub source: String,
}

impl Package {
    /// Whether it ships compiled code the tables know (it links torch, or lists compiled modules
    /// or files): a package of pure Python only passes a compiled one's failure on.
    pub fn is_compiled(&self) -> bool {
        self.links_torch || !self.modules.is_empty() || !self.paths.is_empty()
    }
}

/// One range of a package's releases and the CUDA runtime and cuDNN majors they open.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeMajors {
    /// First release of the range (inclusive); absent: every release before `until`.
    #[serde(default)]
    pub from: Option<String>,
    /// First release after it (exclusive); absent: every release from `from` on.
    #[serde(default)]
    pub until: Option<String>,
    /// The range's last release, where the range is closed (what a pin installs).
    #[serde(default)]
    pub last: Option<String>,
    /// The CUDA major of the runtime libraries it opens (cuBLAS, cudart).
    pub cuda: u32,
    /// The cuDNN major it opens, where it uses cuDNN.
    #[serde(default)]
    pub cudnn: Option<u32>,
    pub source: String,
}

/// One range of a package's releases and the releases of a partner it calls correctly.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartnerRange {
    pub partner: String,
    /// First release of the range (inclusive); absent: every release before `until`.
    #[serde(default)]
    pub from: Option<String>,
    /// First release after it (exclusive); absent: every release from `from` on.
    #[serde(default)]
    pub until: Option<String>,
    /// The partner's release line it calls (`1.1`: any 1.1.x).
    #[serde(default)]
    pub series: Option<String>,
    /// The first partner release it no longer calls correctly.
    #[serde(default)]
    pub below: Option<String>,
    /// How many arguments the partner's compiled function takes in those releases (and the
    /// caller passes), by function name: what pybind11's signature listing and the traceback's
    /// call show.
    #[serde(default)]
    pub arguments: std::collections::BTreeMap<String, u32>,
    pub source: String,
}

/// A media backend a package loads on demand, and what installs it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IoBackend {
    /// Its names as the package's messages and settings spell them (`soundfile`, `sox_io`).
    pub names: Vec<String>,
    /// The PyPI distribution that provides it (`soundfile`, whose wheels bundle libsndfile).
    #[serde(default)]
    pub pip: Option<String>,
    /// The same on conda-forge, where its name differs or it is the usual install there.
    #[serde(default)]
    pub conda: Option<String>,
    /// The system library it needs (the start of a `system_libs.toml` entry's `what`): FFmpeg,
    /// SoX. With `pip` too, the PyPI package needs the library beside it (torchcodec).
    #[serde(default)]
    pub system: Option<String>,
    /// A program it runs rather than a library it loads (imageio-ffmpeg's `ffmpeg`): the
    /// system entry's packages install the program with the libraries.
    #[serde(default)]
    pub executable: Option<String>,
    /// The environment variable the package reads the program's path from.
    #[serde(default)]
    pub env: Option<String>,
    /// The first release of the package that reads through it (torchaudio 2.9's torchcodec).
    #[serde(default)]
    pub from: Option<String>,
    /// The first release that no longer has it.
    #[serde(default)]
    pub until: Option<String>,
    pub source: String,
}

impl PartnerRange {
    /// Whether this range holds `version` of the package that calls the partner.
    pub fn covers(&self, version: &crate::Version) -> bool {
        crate::version::in_range(self.from.as_deref(), self.until.as_deref(), Some(version))
    }
}

impl IoBackend {
    /// Whether releases `version` of the package read through it (with no version known,
    /// the backends every release before the newest scheme had).
    pub fn covers(&self, version: Option<&crate::Version>) -> bool {
        crate::version::in_range(self.from.as_deref(), self.until.as_deref(), version)
    }
}

/// The first release whose Windows wheels need a newer Visual C++ runtime than the ones before,
/// and the last release before it (what loads with the older runtime).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewerMsvc {
    pub from: String,
    pub last_before: String,
    pub source: String,
}

/// Building the package from source against the installed torch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildRecipe {
    /// Flags for `pip install` (`--no-build-isolation`, `--no-cache-dir`).
    #[serde(default)]
    pub pip_flags: Vec<String>,
    /// Environment switches the build reads.
    #[serde(default)]
    pub env: Vec<EnvSwitch>,
    /// What to install instead of the PyPI name when building from source (a VCS URL), if any.
    #[serde(default)]
    pub install_target: Option<String>,
    /// Roughly how long a source build takes on a workstation, in minutes (stated with the fix).
    #[serde(default)]
    pub minutes: Option<u32>,
    /// For a package built only in a project's checkout, the commands that build it there when
    /// they are not `pip install .` in its directory (VITS' `monotonic_align`, built in place).
    #[serde(default)]
    pub checkout_command: Option<String>,
    /// The switch that lets setup.py reach its prebuilt-wheel download on a machine without
    /// nvcc (set to `TRUE`): without it, setup.py stops before downloading anything.
    #[serde(default)]
    pub fetch_without_nvcc: Option<String>,
    #[serde(default)]
    pub notes: Vec<String>,
    #[serde(default)]
    pub source: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvSwitch {
    pub name: String,
    /// The value to set; empty when the user must supply it (`CUDA_HOME`).
    #[serde(default)]
    pub value: String,
    /// Always set for a rebuild (true), or only when the situation calls for it.
    #[serde(default)]
    pub required: bool,
    pub why: String,
}

/// A project's find-links page of prebuilt wheels, one per torch release line and CUDA build.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WheelIndex {
    /// URL template: `{torch_minor}` (`2.4`) and `{cuda}` (`cu121`, `cpu`).
    pub url: String,
    /// The distribution its wheels are published as, by torch major, when it differs from
    /// the package's name (`mmcv-full` for torch 1.x).
    #[serde(default)]
    pub distribution_torch1: Option<String>,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PackagesFile {
    #[serde(default)]
    package: Vec<Package>,
}

struct Index {
    packages: Vec<Package>,
    by_name: HashMap<String, usize>,
    by_module: HashMap<String, usize>,
    by_import: HashMap<String, usize>,
    by_op_namespace: HashMap<String, usize>,
    /// (package index, pattern components) for every module and path pattern.
    patterns: Vec<(usize, Vec<String>)>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let file: PackagesFile =
            crate::data::parse("packages.toml", include_str!("../data/packages.toml"));
        let packages = file.package;
        let mut by_name = HashMap::new();
        let mut by_module = HashMap::new();
        let mut by_import = HashMap::new();
        let mut by_op_namespace = HashMap::new();
        let mut patterns = Vec::new();
        // A compiled module's own name, as Windows' `DLL load failed while importing X` and
        // `No module named 'X'` print it (`onnx_cpp2py_export`, `_turbomind`): indexed when one
        // package alone has it and it is not a generic build name. A package published under
        // several distributions (onnxruntime and onnxruntime-gpu) is left to the names the text
        // shows: its module does not say which one is installed.
        let mut leaves: HashMap<String, Option<usize>> = HashMap::new();
        for (i, p) in packages.iter().enumerate() {
            if !p.aliases.is_empty() {
                continue;
            }
            for m in &p.modules {
                let Some((_, leaf)) = m.rsplit_once('.') else {
                    continue;
                };
                let generic =
                    matches!(leaf, "_C" | "_ext" | "_cuda" | "_kernels" | "csrc" | "core")
                        || leaf.trim_start_matches('_').len() < 5;
                if !generic {
                    leaves
                        .entry(leaf.to_owned())
                        .and_modify(|o| {
                            if *o != Some(i) {
                                *o = None;
                            }
                        })
                        .or_insert(Some(i));
                }
            }
        }
        for (i, p) in packages.iter().enumerate() {
            for n in std::iter::once(&p.name).chain(&p.aliases) {
                by_name.entry(normalize_name(n)).or_insert(i);
            }
            for m in &p.modules {
                by_module.entry(m.clone()).or_insert(i);
                patterns.push((i, m.split('.').map(str::to_string).collect()));
            }
            for path in &p.paths {
                patterns.push((i, path.split('/').map(str::to_string).collect()));
            }
            for n in &p.import_names {
                by_import.entry(n.clone()).or_insert(i);
            }
            for n in &p.op_namespaces {
                by_op_namespace.entry(n.clone()).or_insert(i);
            }
        }
        for (leaf, owner) in leaves {
            if let Some(i) = owner {
                by_module.entry(leaf).or_insert(i);
            }
        }
        Index {
            packages,
            by_name,
            by_module,
            by_import,
            by_op_namespace,
            patterns,
        }
    })
}

/// The package whose library registers operators in this `torch.ops` namespace
/// (`torch.ops.fbgemm` → fbgemm-gpu); a namespace named as a distribution is that package.
pub fn package_for_op_namespace(ns: &str) -> Option<&'static Package> {
    let idx = index();
    idx.by_op_namespace
        .get(ns)
        .map(|&i| &idx.packages[i])
        .or_else(|| package(ns))
}

/// The package whose library registers the TensorFlow op `op` (`Addons>Resampler` is
/// tensorflow-addons', `CaseFoldUTF8` tensorflow-text's).
pub fn package_for_tf_op(op: &str) -> Option<&'static Package> {
    all().iter().find(|p| {
        p.tf_ops.iter().any(|t| {
            if t.ends_with('>') {
                op.starts_with(t.as_str())
            } else if let Some(prefix) = t.strip_suffix('*') {
                op.starts_with(prefix)
            } else {
                op == t
            }
        })
    })
}

/// The CUDA a distribution's name says it is built for: `cupy-cuda12x` and `cudf-cu12` any
/// CUDA 12 (`(12, None)`), `spconv-cu113` 11.3, `cupy-cuda102` 10.2. `None` for a name without
/// such a suffix.
pub fn cuda_tag(name: &str) -> Option<(u32, Option<u32>)> {
    let last = name.rsplit(['-', '_']).next()?;
    let (digits, any_minor) = if let Some(d) = last.strip_prefix("cuda") {
        match d.strip_suffix('x') {
            Some(major) => (major, true),
            None => (d, false),
        }
    } else {
        (last.strip_prefix("cu")?, false)
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) || name == last {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    match digits.len() {
        // `cu12`, `cuda12x`; CUDA 9's `cu92` is three characters too few to be a major.
        2 if (any_minor || !last.starts_with("cuda")) && n >= 10 => Some((n, None)),
        3 if !any_minor => Some((n / 10, Some(n % 10))),
        _ => None,
    }
}

/// The package published per CUDA build that `name` names without saying which build (`cupy`,
/// `cudf`: not `cupy-cuda12x`); `None` for a build's own name or any other package.
pub fn untagged_per_cuda(name: &str) -> Option<&'static Package> {
    package(name).filter(|p| p.per_cuda && cuda_tag(name).is_none())
}

/// The name a package published per CUDA build goes by when no build is meant (`cudf` for
/// `cudf-cu12`, `cupy` for `cupy-cuda12x`): its first name without a CUDA tag; any other
/// package's name.
pub fn untagged_name(p: &Package) -> &str {
    if cuda_variants(p).is_empty() {
        return &p.name;
    }
    std::iter::once(&p.name)
        .chain(&p.aliases)
        .find(|n| cuda_tag(n).is_none())
        .unwrap_or(&p.name)
}

/// A package published as one distribution per CUDA build (CuPy's `cupy-cuda12x`, RAPIDS'
/// `cudf-cu12`, spconv's `spconv-cu118`): those distributions (its name and aliases that carry
/// a CUDA tag) with the CUDA each is for. Empty for a package one distribution serves on every
/// CUDA.
pub fn cuda_variants(p: &Package) -> Vec<(&str, (u32, Option<u32>))> {
    if !p.per_cuda {
        return Vec::new();
    }
    std::iter::once(&p.name)
        .chain(&p.aliases)
        .filter_map(|n| Some((n.as_str(), cuda_tag(n)?)))
        .collect()
}

/// The distribution of a per-CUDA package ([`cuda_variants`]) built for CUDA `major` (and
/// `minor`, where its builds are per minor): the one for the whole major, else the minor's own,
/// else the newest build of that major not newer than the minor (with no minor given, the
/// newest of the major).
pub fn variant_for_cuda(p: &Package, major: u32, minor: Option<u32>) -> Option<&str> {
    let same: Vec<_> = cuda_variants(p)
        .into_iter()
        .filter(|(_, (m, _))| *m == major)
        .collect();
    if let Some((n, _)) = same.iter().find(|(_, (_, mi))| mi.is_none()) {
        return Some(n);
    }
    same.iter()
        .filter(|(_, (_, mi))| minor.is_none_or(|want| mi.is_some_and(|m| m <= want)))
        .max_by_key(|(_, (_, mi))| *mi)
        .map(|(n, _)| *n)
}

/// Every package in the table.
pub fn all() -> &'static [Package] {
    &index().packages
}

/// The package with this distribution name or alias (any spelling: `Mamba_SSM`, `mamba-ssm`).
pub fn package(dist_name: &str) -> Option<&'static Package> {
    let idx = index();
    idx.by_name
        .get(&normalize_name(dist_name))
        .map(|&i| &idx.packages[i])
}

/// The package whose libraries define this outermost C++ namespace (`tsl` → TensorFlow); several
/// may share one (`xla`: TensorFlow and jaxlib), and the first in the table is given.
pub fn package_for_cxx_namespace(ns: &str) -> Option<&'static Package> {
    all()
        .iter()
        .find(|p| p.cxx_namespaces.iter().any(|n| n == ns))
}

/// The package a Python module belongs to: a compiled module (`selective_scan_cuda`,
/// `xformers._C`) or anything under one of its import names (`mamba_ssm.ops.triton`).
/// A file path or file name is handed to [`package_for_path`].
pub fn package_for_module(name: &str) -> Option<&'static Package> {
    let name = name.trim();
    if name.contains('/') || name.contains('\\') || name.ends_with(".so") || name.contains(".so.") {
        return package_for_path(name);
    }
    let idx = index();
    if let Some(&i) = idx.by_module.get(name) {
        return Some(&idx.packages[i]);
    }
    let top = name.split('.').next().unwrap_or(name);
    idx.by_import.get(top).map(|&i| &idx.packages[i])
}

/// The package a compiled file belongs to, from its path alone (absolute, relative or a bare
/// file name; `/` or `\` separators; `.cpython-312-x86_64-linux-gnu.so`, `.abi3.so`, `.so.1`
/// suffixes). The most specific matching pattern wins.
pub fn package_for_path(path: &str) -> Option<&'static Package> {
    let comps = path_components(path);
    if comps.is_empty() {
        return None;
    }
    let idx = index();
    let mut best: Option<(usize, usize)> = None; // (score, package)
    for (pkg, pat) in &idx.patterns {
        if pat.len() > comps.len() {
            continue;
        }
        let tail = &comps[comps.len() - pat.len()..];
        if pat.iter().zip(tail).all(|(p, c)| glob(p, c)) {
            let wild = pat.iter().filter(|p| p.contains('*')).count();
            let score = pat.len() * 4 - wild.min(pat.len() * 4);
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, *pkg));
            }
        }
    }
    if let Some((_, i)) = best {
        return Some(&idx.packages[i]);
    }
    // Anything else installed under a package directory of site-packages belongs to it.
    let sp = comps
        .iter()
        .rposition(|c| c == "site-packages" || c == "dist-packages")?;
    let top = comps.get(sp + 1)?;
    if sp + 2 >= comps.len() {
        return None; // a top-level file with no pattern: unknown
    }
    idx.by_import.get(top.as_str()).map(|&i| &idx.packages[i])
}

/// What may follow a searched name inside one word.
#[derive(Debug, Clone, Copy)]
enum Tail {
    None,
    /// `_<hash>` (pip's build directory `flash-attn_78a6…`).
    Hash,
    /// Anything (the fixed head of a library pattern).
    Any,
}

/// A known package named in a text: where, and which.
#[derive(Debug, Clone, Copy)]
pub struct Mention {
    /// Byte offset of the name in the text searched.
    pub at: usize,
    pub package: &'static Package,
    /// The distribution as the text names it: one of the package's aliases when the text
    /// spells that (`mmcv-full`, installed under that name), else the package's name.
    pub distribution: &'static str,
}

/// The known packages with compiled code that `text` names, in text order: by distribution name
/// (`flash-attn`, also inside pip's `flash-attn_<hash>` build directory), import name
/// (`from vllm import`, `site-packages/cv2/`, `torch_scatter has …`), compiled module
/// (`import awq_ext`), library file (`libonnxruntime_providers_cuda.so`) or a phrase only its
/// own messages use (CTranslate2's `is not found or cannot be loaded`); never a submodule
/// of another (`xformers.flash_attn_3`, `from ...flash_attn_3 import`). Case-insensitive,
/// whole words only (`torch` is not named by `torch_extensions` or `pytorch`). Stems that are
/// plain words (`transformer`, `quantizer`) are not searched: prose uses them.
pub fn mentions(text: &str) -> Vec<Mention> {
    struct Terms {
        ac: aho_corasick::AhoCorasick,
        /// Per pattern: package index, and whether the term may run on into a word: a hyphenated
        /// distribution name (pip's build directories follow it with `_<hash>`) or the fixed
        /// head of a library pattern (`libbitsandbytes_cuda` of `libbitsandbytes_cuda124.so`).
        owner: Vec<(usize, Tail, Spelling)>,
    }
    /// What a term spells of its package: the distribution's name, one of its aliases, or
    /// something else it installs (an import name, a module, a library), which says nothing of
    /// which of a per-CUDA package's builds is meant.
    #[derive(Clone, Copy)]
    enum Spelling {
        Name,
        Alias(usize),
        Other,
    }
    static TERMS: OnceLock<Option<Terms>> = OnceLock::new();
    let Some(terms) = TERMS.get_or_init(|| {
        let idx = index();
        let mut words: Vec<(String, usize, Tail, Spelling)> = Vec::new();
        for (i, p) in idx.packages.iter().enumerate() {
            if !p.is_compiled() {
                continue;
            }
            let mut add_as = |w: &str, tail: Tail, alias: Spelling| {
                if w.len() >= 3 && !words.iter().any(|(x, ..)| x.eq_ignore_ascii_case(w)) {
                    words.push((w.to_owned(), i, tail, alias));
                }
            };
            let names = std::iter::once((&p.name, Spelling::Name)).chain(
                p.aliases
                    .iter()
                    .enumerate()
                    .map(|(k, a)| (a, Spelling::Alias(k))),
            );
            for (n, alias) in names {
                add_as(
                    n,
                    if n.contains('-') {
                        Tail::Hash
                    } else {
                        Tail::None
                    },
                    alias,
                );
                add_as(&n.replace('-', "_"), Tail::None, alias);
            }
            let mut add = |w: &str, tail: Tail| add_as(w, tail, Spelling::Other);
            for n in &p.import_names {
                add(n, Tail::None);
            }
            for w in &p.wording {
                add(w, Tail::None);
            }
            for m in &p.modules {
                if let Some(top) = m.split('.').next().filter(|t| t.contains('_')) {
                    add(top, Tail::None);
                }
            }
            for path in &p.paths {
                let stem = path.rsplit('/').next().unwrap_or("");
                // `libbitsandbytes_cuda*`: the fixed head names the package, any tail follows.
                let (head, open) = match stem.strip_suffix('*') {
                    Some(h) => (h, true),
                    None => (stem, false),
                };
                if !head.contains('*') && (head.contains('_') || head.starts_with("lib")) {
                    add(head, if open { Tail::Any } else { Tail::None });
                }
            }
        }
        let ac = aho_corasick::AhoCorasickBuilder::new()
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .ascii_case_insensitive(true)
            .build(words.iter().map(|(w, ..)| w.as_str()))
            .ok()?;
        Some(Terms {
            ac,
            owner: words.iter().map(|&(_, i, d, a)| (i, d, a)).collect(),
        })
    }) else {
        return Vec::new();
    };
    let idx = index();
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    for m in terms.ac.find_iter(text) {
        let Some(&(pkg, tail, alias)) = terms.owner.get(m.pattern().as_usize()) else {
            continue;
        };
        let before = m.start().checked_sub(1).and_then(|i| bytes.get(i)).copied();
        let after = bytes.get(m.end()).copied();
        // After a `.` the name is a submodule of another package (`xformers.flash_attn_3`, a
        // relative `from ...flash_attn_3 import _C`), not this package's top level.
        let left_ok = before.is_none_or(|b| !word(b) && b != b'.');
        let right_ok = after.is_none_or(|b| match tail {
            Tail::None => !word(b),
            Tail::Hash => !word(b) || b == b'_',
            Tail::Any => true,
        });
        if left_ok
            && right_ok
            && let Some(package) = idx.packages.get(pkg)
        {
            let distribution = match alias {
                Spelling::Name => package.name.as_str(),
                Spelling::Alias(k) => package.aliases.get(k).unwrap_or(&package.name).as_str(),
                Spelling::Other => untagged_name(package),
            };
            out.push(Mention {
                at: m.start(),
                package,
                distribution,
            });
        }
    }
    out
}

/// Splits a path into components with the last one reduced to its module stem
/// (`_C.cpython-36m-x86_64-linux-gnu.so` → `_C`, `libtorchaudio.so` → `libtorchaudio`).
fn path_components(path: &str) -> Vec<String> {
    let mut comps: Vec<String> = path
        .trim()
        .trim_matches(|c: char| c == '\'' || c == '"' || c == '`')
        .split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != ".")
        .map(str::to_string)
        .collect();
    if let Some(last) = comps.last_mut() {
        let stem = last.split('.').next().unwrap_or("").to_string();
        *last = stem;
    }
    if comps.last().is_some_and(String::is_empty) {
        comps.pop();
    }
    comps
}

/// `*` matches any run of characters within one path component.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(at) => rest = &rest[at + mid.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_globs() {
        assert_eq!(
            path_components("/x/site-packages/torchvision/_C.cpython-36m-x86_64-linux-gnu.so"),
            vec!["x", "site-packages", "torchvision", "_C"]
        );
        assert_eq!(path_components("vllm/_C.abi3.so"), vec!["vllm", "_C"]);
        assert!(glob("libbitsandbytes_cuda*", "libbitsandbytes_cuda121"));
        assert!(!glob("libbitsandbytes_cuda*", "libbitsandbytes_cpu"));
        assert!(glob("*_cuda", "deform_conv_cuda"));
        assert!(glob("a*b*c", "aXbYc"));
        assert!(!glob("a*b*c", "ac"));
    }

    /// The tags per-CUDA distributions carry, and the build each CUDA gets.
    #[test]
    fn cuda_tags_and_variants() {
        assert_eq!(cuda_tag("cupy-cuda12x"), Some((12, None)));
        assert_eq!(cuda_tag("cupy-cuda102"), Some((10, Some(2))));
        assert_eq!(cuda_tag("cudf-cu12"), Some((12, None)));
        assert_eq!(cuda_tag("spconv-cu113"), Some((11, Some(3))));
        assert_eq!(cuda_tag("nvidia-cuda-runtime-cu12"), Some((12, None)));
        assert_eq!(cuda_tag("cupy"), None);
        assert_eq!(cuda_tag("cu12"), None);
        assert_eq!(cuda_tag("jax-cuda12-plugin"), None);
        assert_eq!(cuda_tag("pycuda"), None);
        let cupy = package("cupy").expect("cupy is in the table");
        assert_eq!(variant_for_cuda(cupy, 13, Some(0)), Some("cupy-cuda13x"));
        assert_eq!(variant_for_cuda(cupy, 11, None), Some("cupy-cuda11x"));
        let spconv = package("spconv").expect("spconv is in the table");
        assert_eq!(variant_for_cuda(spconv, 11, Some(5)), Some("spconv-cu114"));
        assert_eq!(variant_for_cuda(spconv, 12, None), Some("spconv-cu126"));
        assert_eq!(variant_for_cuda(spconv, 9, None), None);
        assert!(cuda_variants(package("torch").expect("torch")).is_empty());
        assert!(cuda_variants(package("faiss-cpu").expect("faiss")).is_empty());
        assert_eq!(cuda_tag("cupy_cuda12x"), Some((12, None)));
    }
}
