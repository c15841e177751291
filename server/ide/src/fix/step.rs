//! A fix's typed steps: what each one does, with every value already through the validation
//! boundary ([`super::valid`]). Steps are data; [`super::render`] is the only place that turns
//! them into argument vectors, shell lines and notebook lines.

use super::valid::{
    EnvName, EnvValue, FindLinksUrl, IndexUrl, Name, Pid, SafePath, VcsUrl, Version, WheelUrl,
};

/// The interpreter a pip step runs: the environment's own (`--python`), else `python` on PATH.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Python {
    Path(SafePath),
    OnPath,
}

impl Python {
    pub fn as_str(&self) -> &str {
        match self {
            Python::Path(p) => p.as_str(),
            Python::OnPath => "python",
        }
    }
}

/// One requirement of a pip install.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Requirement {
    Any(Name),
    Exact(Name, Version),
    Below(Name, Version),
    /// This release or a later one (`bitsandbytes>=0.45.1`): the first that follows a move.
    AtLeast(Name, Version),
    /// Any release of a major (`nvidia-cuda-runtime==13.*`).
    Major(Name, u32),
    /// Any release of a major.minor line (`torch==1.7.*`).
    Series(Name, u32, u32),
    /// The package with one of its extras (`tensorflow[and-cuda]`): pip keeps an installed
    /// release that satisfies it and adds the extra's requirements.
    Extra(Name, Name),
    /// A wheel file named by URL (a project's own release page).
    Wheel(Name, WheelUrl),
    /// A build from the project's source repository (`name @ git+https://…`): for packages whose
    /// PyPI name is another project's, or that publish no sdist.
    Vcs(Name, VcsUrl),
    /// An editable build of a checkout on disk (`--editable=/path`): its compiled modules land
    /// next to its sources, where a run from the checkout imports them.
    Editable(Name, SafePath),
}

impl Requirement {
    pub fn name(&self) -> &Name {
        match self {
            Requirement::Any(n)
            | Requirement::Exact(n, _)
            | Requirement::Below(n, _)
            | Requirement::AtLeast(n, _)
            | Requirement::Major(n, _)
            | Requirement::Series(n, _, _)
            | Requirement::Extra(n, _)
            | Requirement::Wheel(n, _)
            | Requirement::Vcs(n, _)
            | Requirement::Editable(n, _) => n,
        }
    }

    /// The same requirement of the distribution `to` (a package's build by its own name).
    pub fn renamed(mut self, to: Name) -> Requirement {
        match &mut self {
            Requirement::Any(n)
            | Requirement::Exact(n, _)
            | Requirement::Below(n, _)
            | Requirement::AtLeast(n, _)
            | Requirement::Major(n, _)
            | Requirement::Series(n, _, _)
            | Requirement::Extra(n, _)
            | Requirement::Wheel(n, _)
            | Requirement::Vcs(n, _)
            | Requirement::Editable(n, _) => *n = to,
        }
        self
    }
}

/// The pip options fixes use, each with a reason to exist.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PipFlag {
    /// pip's wheel cache ignores the torch version: a cached build would come back.
    NoCacheDir,
    /// Build against the torch in this environment, not a fresh one in an isolated env.
    NoBuildIsolation,
    ForceReinstall,
    NoDeps,
    Upgrade,
    /// Refuse binary wheels for this package, so the install really compiles.
    NoBinary(Name),
    /// Wheels only for this package: pip takes the newest release with a wheel this system
    /// accepts (its glibc's manylinux tags) and never compiles an sdist instead.
    OnlyBinary(Name),
    /// Install from this index instead of PyPI: PyTorch publishes each CUDA build of torch on
    /// its own index (PyPI holds only the default one).
    IndexUrl(IndexUrl),
    /// Only the find-links page below, not PyPI: a project that publishes its wheels per torch
    /// and CUDA outside PyPI also has a newer sdist there that pip would otherwise compile.
    NoIndex,
    /// Wheels from this page of links (a project's per-torch, per-CUDA index).
    FindLinks(FindLinksUrl),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CondaChannel {
    CondaForge,
    Nvidia,
    /// The environment's own channels (no `-c`): a package the environment already has from
    /// them (MKL beside conda's torch), pinned in place.
    Configured,
}

impl CondaChannel {
    pub fn as_str(self) -> &'static str {
        match self {
            CondaChannel::CondaForge => "conda-forge",
            CondaChannel::Nvidia => "nvidia",
            CondaChannel::Configured => "",
        }
    }
}

/// The system package managers abidoc proposes, chosen from `/etc/os-release`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SystemManager {
    Apt,
    Dnf,
}

impl SystemManager {
    pub fn command(self) -> &'static str {
        match self {
            SystemManager::Apt => "apt-get",
            SystemManager::Dnf => "dnf",
        }
    }
}

/// Read-only commands a fix may show before it acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Query {
    /// The processes holding GPU memory, with their PIDs.
    GpuProcesses,
    /// The CUDA compilers installed in the usual places (`/usr/local/cuda-*`, `/opt`, Debian's
    /// `/usr/lib/nvidia-cuda-toolkit`): a toolkit nothing points at.
    CudaCompilers,
    /// The same on Windows: the `nvcc.exe` files under NVIDIA's install directory
    /// (`C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\vX.Y\bin`), by `where.exe`, named
    /// with its extension so that PowerShell runs it too (its bare `where` is Where-Object).
    CudaCompilersWindows,
    /// The directory of the cuDNN pip installed (`nvidia-cudnn-cuNN`: `…/nvidia/cudnn/lib`).
    PipCudnnDir,
    /// The wheel tags this interpreter's pip accepts (`pip debug --verbose`, its "Compatible
    /// tags"), most specific first.
    PipTags,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    PipInstall {
        python: Python,
        flags: Vec<PipFlag>,
        requirements: Vec<Requirement>,
    },
    PipUninstall {
        python: Python,
        packages: Vec<Name>,
    },
    /// Drops a package's locally built wheels from pip's cache.
    PipCacheRemove {
        python: Python,
        package: Name,
    },
    /// Conda match specs as pip spells them (`mkl<2024.1`, `libstdcxx-ng`), which conda reads
    /// alike.
    CondaInstall {
        channel: CondaChannel,
        packages: Vec<Requirement>,
    },
    /// Needs root.
    SystemInstall {
        manager: SystemManager,
        packages: Vec<Name>,
    },
    /// Set for the commands that follow, and for the program the fix is about.
    SetEnv {
        name: EnvName,
        value: EnvValue,
    },
    MakeDir {
        path: SafePath,
    },
    /// `ln -sf target link`; `root` when the link lives in a system directory.
    Link {
        target: SafePath,
        link: SafePath,
        root: bool,
    },
    /// Needs root.
    Ldconfig,
    /// Removes a torch-extensions build directory proven to be a build product.
    RemoveBuildDir {
        path: SafePath,
    },
    Kill {
        pids: Vec<Pid>,
    },
    Show(Query),
    /// Advice for the person: never rendered as a command.
    Manual(String),
}

impl Step {
    pub fn needs_root(&self) -> bool {
        matches!(
            self,
            Step::SystemInstall { .. } | Step::Ldconfig | Step::Link { root: true, .. }
        )
    }
}
