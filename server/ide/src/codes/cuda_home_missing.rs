//! `cuda-home-missing`: a CUDA extension is being compiled, but `nvcc` cannot be found
//! (`CUDA_HOME` unset, or pointing at a directory without `bin/nvcc`).
//!
//! Produced by torch's cpp_extension "CUDA_HOME environment variable is not set" and the
//! missing-nvcc messages of build logs; the variable set is the one the failing build reads
//! (`Reads`: torch's CUDA_HOME, old setup scripts' CUDAHOME, a script's PATH). `CUDA_HOME` written as a list (its first directory) or
//! a toolkit found on disk comes first (a variable, safe); else a look for a toolkit installed
//! where nothing points (a `find`, then the variable); then a prebuilt wheel that needs no
//! compiler; then nvcc from conda where conda is in use, else the toolkit's installer (advice).

use super::{Code, CodeDoc, Cx, blank, recipes};
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::fix::{
    CondaChannel, Cost, Fix, FixKind, Name, PipFlag, Query, Requirement, SafePath, Step,
};

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "Building a CUDA extension without `nvcc` / `CUDA_HOME`.",
    meaning: "torch's cpp_extension compiles CUDA sources with `$CUDA_HOME/bin/nvcc`. pip's nvidia-* runtime wheels carry no compiler, and conda's `cudatoolkit` has none either, so a source build finds no nvcc unless a toolkit is installed and named. A build that found none may still finish with the CPU half alone, which says so at run time (`Not compiled with GPU support`): that is `extension-incomplete-build`, with these fixes among its own. Builds without a CUDA step say it in their own way: CuPy's `nvcc not in path`, distutils' `unknown file type '.cu'` (a `.cu` source handed to the C compiler), a Makefile linking a `.cu.o` that nvcc never made (`gcc: error: …/roi_pooling.cu.o: No such file or directory`).",
    fixes: "1. `CUDA_HOME` to one directory when the text shows it set to a `:`-joined list (`:/usr/local/cuda/bin/nvcc`), or to a toolkit abidoc found on disk (safe). 2. Without one found: `find` the nvcc installed in /usr/local, /opt or /usr/lib, then `CUDA_HOME` to its directory (look first, safe). The variable is the one the failing build reads: old `setup.py` scripts' `locate_cuda()` reads `CUDAHOME` (`Either add it to your path, or set $CUDAHOME`), a script or Makefile running `nvcc` needs the toolkit's `bin` on PATH (which `sudo` resets). 3. For packages that publish prebuilt wheels (flash-attn, mamba-ssm, causal-conv1d): install, letting setup.py fetch the wheel matching torch, no nvcc needed. 4. nvcc from conda (`cuda-nvcc`, matching torch's CUDA), then `CUDA_HOME`, in a conda environment; elsewhere NVIDIA's toolkit of torch's CUDA (advice: an installer or root). The setup.py that raises `NotImplementedError('Cuda is not availabel')` (Deformable-DETR's, DCNv2's) also needs a GPU torch sees at build time: last, in words, building where one is visible (not in `docker build`) or its condition reduced to CUDA_HOME with TORCH_CUDA_ARCH_LIST.",
    near_package: super::NearPackage::NotTorch,
    ..CodeDoc::BASE
};

pub(crate) fn diagnose(cx: &Cx<'_>, source: Option<SourceRef>, detail: &str) -> Diagnostic {
    let mut d = blank(Code::CudaHomeMissing, source);
    d.package = cx
        .scene
        .packages_built
        .first()
        .map(|p| crate::kb::normalize(p));
    let what = d
        .package
        .as_deref()
        .map(|p| format!("{p} is being"))
        .unwrap_or_else(|| "a CUDA extension is being".into());
    d.message = format!(
        "{what} compiled from source, but the CUDA compiler (nvcc) cannot be found: CUDA_HOME is unset or points at a directory without bin/nvcc"
    );
    d.evidence.push(format!("the text says: {}", detail.trim()));
    let listed = listed_home(detail);
    // A `:/` of a URL (`https://hub.docker.com`, in setup.py's warning) joins no directories.
    let joined = detail
        .match_indices(":/")
        .any(|(i, _)| !detail[i..].starts_with("://"));
    if detail.contains(":/bin/nvcc") || joined && detail.contains("nvcc") {
        d.evidence.push("the nvcc path contains ':': CUDA_HOME (or PATH) was set to a list instead of one directory".into());
    }
    // Visual Studio's CMake generator: CUDA's MSBuild integration is missing from this Visual
    // Studio (installed before it, or never), whatever CUDA_HOME says.
    if detail.contains("No CUDA toolset found") {
        d.message = "CMake's Visual Studio generator finds no CUDA toolset: the CUDA toolkit's Visual Studio integration is not installed in this Visual Studio".into();
        d.fixes = crate::fix::rank(vec![
            Fix::in_words(
                Code::CudaHomeMissing,
                "vs-integration",
                "Install the CUDA toolkit's Visual Studio integration into this Visual Studio",
                "The CUDA installer puts its MSBuild files (CUDA X.Y.props/.targets) into the Visual Studios it finds; one installed later has none, and CMake's Visual Studio generator then finds no CUDA toolset.",
                "copy the files of <CUDA install>\\extras\\visual_studio_integration\\MSBuildExtensions into <Visual Studio>\\MSBuild\\Microsoft\\VC\\<version>\\BuildCustomizations (or re-run the CUDA installer with its Visual Studio Integration), then build again",
            ),
        ]);
        return d;
    }
    let reads = Reads::of(detail);
    if reads == Reads::CudaHomeNoUnderscore {
        d.message = format!(
            "{what} compiled from source, but its setup script finds no CUDA compiler (nvcc): it looks on PATH and in $CUDAHOME (its own variable, not torch's CUDA_HOME)"
        );
    }
    let mut fixes = fixes(
        Code::CudaHomeMissing,
        cx,
        d.package.as_deref(),
        listed.is_some(),
        reads,
    );
    if let Some(home) = listed {
        let known = cx.world.cuda_toolkits().iter().any(|h| h == home.as_str());
        let mut f = Fix::new(
            Code::CudaHomeMissing,
            "cuda-home-one-dir",
            FixKind::Configure,
            format!("Set CUDA_HOME to one directory, {home}, not a list"),
            "cpp_extension joins CUDA_HOME and bin/nvcc as one path: a value built like PATH (`$CUDA_HOME:/usr/local/cuda`) names no directory. Fix the line that builds it (often in ~/.bashrc) the same way.",
        )
        .steps(recipes::set_env("CUDA_HOME", home.as_str()));
        if !known {
            f = f.unverified();
        }
        fixes.insert(0, f);
    }
    // The setup.py Deformable-DETR and DCNv2 spread: it builds the CUDA op only when torch sees a
    // GPU *and* CUDA_HOME is set, and says neither which one failed.
    if detail.contains("Cuda is not availab") {
        d.message = format!(
            "{what} compiled from source, and its setup.py refuses to build the CUDA op: it requires both a CUDA toolkit (CUDA_HOME) and a GPU torch can see (torch.cuda.is_available()), and one of them is missing"
        );
        fixes.push(
            Fix::in_words(
                Code::CudaHomeMissing,
                "gpu-at-build",
                "Or, with the toolkit in place, build where torch sees a GPU",
                "This setup.py also checks torch.cuda.is_available(): a build inside `docker build`, on a login node, or with a CPU-only torch fails the same way however CUDA_HOME is set. Build on a machine (or in a container run) with the GPU visible and a CUDA build of torch, or change the script's condition to `CUDA_HOME is not None` and give the GPUs' architectures in TORCH_CUDA_ARCH_LIST.",
                "check `python -c \"import torch; print(torch.cuda.is_available(), torch.version.cuda)\"` prints True and a CUDA version where the build runs",
            ),
        );
    }
    d.fixes = crate::fix::rank(fixes);
    d
}

/// The first directory of a CUDA_HOME written as a `:`-joined list, from the nvcc path the
/// build could not find (`':/usr/local/cuda:/usr/local/cuda-10.1/bin/nvcc'`). `None` when the
/// path is one directory, or when no listed directory is an absolute path abidoc accepts.
fn listed_home(detail: &str) -> Option<SafePath> {
    let at = detail.find("/bin/nvcc")?;
    let start = detail[..at]
        .rfind(|c: char| c.is_whitespace() || c == '\'' || c == '"')
        .map_or(0, |i| i + 1);
    let list = &detail[start..at];
    if !list.contains(':') {
        return None;
    }
    list.split(':')
        .map(|p| p.trim_end_matches('/'))
        .filter(|p| p.starts_with('/'))
        .find_map(SafePath::new)
}

/// Where the build that failed looks for nvcc, as its words say: torch's cpp_extension reads
/// CUDA_HOME; old `setup.py` scripts' `locate_cuda()` reads `$CUDAHOME` (`Either add it to your
/// path, or set $CUDAHOME`); a shell script or Makefile runs `nvcc` from PATH (`nvcc: not
/// found`, `command not found`, not recognized), and `sudo` drops the user's PATH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reads {
    CudaHome,
    CudaHomeNoUnderscore,
    Path,
}

impl Reads {
    pub(crate) fn of(detail: &str) -> Reads {
        if detail.contains("$CUDAHOME") || detail.contains("set CUDAHOME") {
            Reads::CudaHomeNoUnderscore
        } else if detail.contains("nvcc: not found")
            || detail.contains("nvcc: command not found")
            || detail.contains("'nvcc' is not recognized")
        {
            Reads::Path
        } else {
            Reads::CudaHome
        }
    }

    /// The variable to set to the toolkit's directory.
    fn var(self) -> &'static str {
        match self {
            Reads::CudaHomeNoUnderscore => "CUDAHOME",
            _ => "CUDA_HOME",
        }
    }

    /// The same for cmd.exe (a build on Windows).
    fn also_windows(self) -> &'static str {
        match self {
            Reads::CudaHome => "",
            Reads::CudaHomeNoUnderscore => {
                " and set \"PATH=%CUDAHOME%\\bin;%PATH%\" (this setup.py's locate_cuda() reads CUDAHOME, not CUDA_HOME, and PATH)"
            }
            Reads::Path => " and set \"PATH=%CUDA_HOME%\\bin;%PATH%\" (the build runs nvcc from PATH)",
        }
    }

    /// What else to say when the variable alone is not what the build reads.
    fn also(self) -> &'static str {
        match self {
            Reads::CudaHome => "",
            Reads::CudaHomeNoUnderscore => {
                " and export PATH=$CUDAHOME/bin:$PATH (this setup.py's locate_cuda() reads CUDAHOME, not CUDA_HOME, and PATH)"
            }
            Reads::Path => {
                " and export PATH=$CUDA_HOME/bin:$PATH (the script runs nvcc from PATH; run it as yourself, since sudo resets PATH, or with sudo env PATH=\"$PATH\")"
            }
        }
    }
}

/// Finding the installed nvcc and naming its toolkit, in the shell of the system the text
/// shows: a Windows build looks under NVIDIA's install directory and sets the variable with
/// cmd.exe's `set` (PowerShell's `$env:`), never `find` and `export`.
fn find_toolkit_steps(cx: &Cx<'_>, reads: Reads) -> Vec<Step> {
    if cx.scene.mentions_windows {
        return vec![
            Step::Show(Query::CudaCompilersWindows),
            Step::Manual(format!(
                "set \"{}=<the folder above bin\\nvcc.exe that where.exe printed, e.g. C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1>\"{} in the same cmd window (PowerShell: $env:{}=\"…\"), then run the build again",
                reads.var(),
                reads.also_windows(),
                reads.var()
            )),
        ];
    }
    vec![
        Step::Show(Query::CudaCompilers),
        Step::Manual(format!(
            "export {}=<the directory holding bin/nvcc that find printed, e.g. /usr/local/cuda-12.1>{}",
            reads.var(),
            reads.also()
        )),
    ]
}

/// The fixes before ranking: `diagnose` adds its own and ranks them all once. A build that
/// found no toolkit is also `extension-incomplete-build`'s cause (a package built without its
/// CUDA half), which files them under its own code.
pub(crate) fn fixes(
    code: Code,
    cx: &Cx<'_>,
    package: Option<&str>,
    listed: bool,
    reads: Reads,
) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let found = cx
        .world
        .cuda_toolkits()
        .first()
        .and_then(|h| SafePath::new(h));
    if found.is_none() && !listed {
        // cpp_extension already tried /usr/local/cuda and the nvcc on PATH: a toolkit that is
        // installed sits in a versioned or vendor directory nothing points at.
        fixes.push(
            Fix::new(
                code,
                "find-toolkit",
                FixKind::Inspect,
                match reads {
                    Reads::Path => "Find the CUDA toolkit already installed and put its bin directory on PATH".to_owned(),
                    _ => format!("Find the CUDA toolkit already installed and point {} at it", reads.var()),
                },
                if cx.scene.mentions_windows {
                    format!("The build looked at {} and the nvcc on PATH; NVIDIA's installer puts each toolkit in C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\vX.Y and sets CUDA_PATH, which this build does not read. Pick the one whose version is torch.version.cuda.", reads.var())
                } else {
                    format!("The build looked at ${}, /usr/local/cuda and the nvcc on PATH; a toolkit in /usr/local/cuda-X.Y, /opt or Debian's /usr/lib/nvidia-cuda-toolkit is not seen until {} names it. Pick the one whose version is torch.version.cuda.", reads.var(), if reads == Reads::Path { "PATH" } else { reads.var() })
                },
            )
            .steps(find_toolkit_steps(cx, reads))
            .unverified(),
        );
    }
    if let Some(home) = found {
        fixes.push(
            Fix::new(
                code,
                "cuda-home",
                FixKind::Configure,
                format!("Point {} at the toolkit in {home}", reads.var()),
                format!("nvcc exists there; the build looks for ${}/bin/nvcc.", reads.var()),
            )
            .steps(recipes::set_env(reads.var(), home.as_str())),
        );
    }
    if let Some(p) = package.and_then(Name::new)
        && let Some(facts) = crate::kb::package(p.as_str()).filter(|f| f.has_prebuilt_wheels)
    {
        // A setup.py that reads nvcc's version before its download (mamba-ssm, causal-conv1d)
        // reaches it without nvcc only with its skip switch.
        let (switch, why) = match facts.fetch_without_nvcc.as_deref() {
            Some(s) => (
                recipes::set_env(s, "TRUE"),
                format!(
                    " Without nvcc its setup.py stops before the download (`name 'bare_metal_version' is not defined`) unless {s}=TRUE; with it and no wheel for this torch, it installs without its kernels."
                ),
            ),
            None => (None, String::new()),
        };
        fixes.push(
            Fix::new(
                code,
                "prebuilt-wheel",
                FixKind::PrebuiltWheel,
                format!("Install a prebuilt {p} wheel matching your torch instead of compiling"),
                format!(
                    "{p}'s setup fetches a prebuilt wheel for the installed torch/CUDA/ABI when one exists, so no nvcc is needed.{why}"
                ),
            )
            .steps(switch)
            .step(recipes::pip_install(
                cx,
                vec![PipFlag::NoBuildIsolation],
                vec![Requirement::Any(p.clone())],
            ))
            .cost(Cost {
                downloads: true,
                ..Cost::default()
            }),
        );
    }
    // conda's compiler only where conda is in use: anywhere else it would be a second package
    // manager brought in for one binary.
    let conda = cx.world.in_conda() || cx.scene.mentions_conda;
    if !conda {
        let windows = cx.scene.mentions_windows;
        fixes.push(
            Fix::in_words(
                code,
                "install-toolkit",
                "Install the CUDA toolkit of torch's CUDA version, then set CUDA_HOME to it",
                if windows {
                    "pip's nvidia-* wheels carry the runtime, not the compiler; NVIDIA's installer puts nvcc in C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\vX.Y (an administrator's install)."
                } else {
                    "pip's nvidia-* wheels carry the runtime, not the compiler; NVIDIA's installer or its repository's cuda-toolkit-X-Y package installs nvcc (root), into /usr/local/cuda-X.Y."
                },
                if windows {
                    "install the CUDA toolkit whose version is torch.version.cuda (https://developer.nvidia.com/cuda-toolkit-archive), then in a new cmd window set \"CUDA_HOME=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\vX.Y\"".to_owned()
                } else {
                    "install the CUDA toolkit whose version is torch.version.cuda (https://developer.nvidia.com/cuda-toolkit-archive), then export CUDA_HOME=/usr/local/cuda-X.Y".to_owned()
                },
            ),
        );
    }
    if conda && let Some(nvcc) = Name::new("cuda-nvcc") {
        fixes.push(
            Fix::new(
                code,
                "conda-nvcc",
                FixKind::InstallMissing,
                "Install the CUDA compiler matching torch's CUDA (conda cuda-nvcc) and set CUDA_HOME",
                "conda's cudatoolkit package ships no nvcc; cuda-nvcc does, without root. Pick the version of torch.version.cuda.",
            )
            .step(Step::CondaInstall {
                channel: CondaChannel::Nvidia,
                packages: vec![Requirement::Any(nvcc)],
            })
            .unverified(),
        );
    }
    fixes
}

/// A package's own run-time words for a build that has its CPU half only: detectron2-style ops'
/// `Not compiled with GPU support`, PyG's `Not compiled with CUDA support`, mmcv's
/// `nms_impl: implementation for device cuda:0 not found`.
pub(crate) fn cpu_half_only(detail: &str) -> bool {
    detail.contains("Not compiled with GPU support")
        || detail.contains("Not compiled with CUDA support")
        || detail.contains("_impl: implementation for device cuda")
}
