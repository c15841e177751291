//! Grouping scanned events into incidents: one per distinct failure, with every place it appears.
//!
//! Logs repeat themselves (a warning printed per rank, per import attempt, quoted again in a
//! wrapper). Users need one diagnosis per failure that still points at every line.

use abidoc_syntax::{DllFailure, Event, EventKind, GpuArchForm, Span};

/// What went wrong, before evidence and knowledge are brought in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Failure {
    UndefinedSymbol {
        library: Option<String>,
        symbol: String,
        truncated: bool,
        /// The provider the message names (`version libcudart.so.12`).
        version_of: Option<String>,
    },
    MissingLibrary {
        name: String,
        required_by: Option<String>,
    },
    VersionNotFound {
        library: String,
        version: String,
        required_by: Option<String>,
    },
    Libcuda {
        detail: String,
    },
    /// A framework's summary that some CUDA libraries did not load (see
    /// `EventKind::GpuLibrariesNotLoaded`); dropped where the loader's own lines name them.
    GpuLibraries {
        framework: String,
        detail: String,
    },
    NoCompiler {
        detail: String,
    },
    CudaHome {
        detail: String,
    },
    CudaVersion {
        found: Option<String>,
        expected: Option<String>,
        detail: String,
    },
    BuildIsolation {
        package: Option<String>,
    },
    /// A build failed and nothing else in the text says why (`Failed building wheel for X`).
    BuildFailed {
        package: Option<String>,
    },
    BuildDeps {
        module: String,
        too_new: bool,
    },
    XformersBuiltFor {
        built_torch: Option<String>,
        have_torch: Option<String>,
        built_cuda: Option<String>,
        built_python: Option<String>,
        have_python: Option<String>,
    },
    FlashAttn {
        reason: String,
    },
    TorchOps {
        what: String,
        package: Option<String>,
        /// The libraries the text says did not load (torch.ops.load_library's path), in order:
        /// a package that tries one library per backend (torchcodec, per FFmpeg major) names each.
        libraries: Vec<String>,
    },
    NumpyAbi {
        detail: String,
    },
    /// A name a NumPy release removed (the knowledge says which).
    NumpyRemoved {
        name: String,
    },
    CudaOom {
        tried: Option<String>,
        detail: String,
    },
    /// Several processes of one command holding GPU memory, without an OOM in the text.
    StaleGpuProcesses,
    MambaFastPath {
        model_class: Option<String>,
        /// The kernel called on a module that did not import: the run stopped.
        kernel: Option<String>,
    },
    StaleWheelCache {
        file: String,
    },
    /// Windows' loader: a DLL (or one it needs) missing, or a procedure missing from one.
    WindowsDll {
        module: Option<String>,
        dll: Option<String>,
        why: DllFailure,
    },
    /// A package's own compiled module is absent (`No module named 'exllamav2_ext'`).
    CompiledModuleMissing {
        module: String,
    },
    /// The GPU has no code in a binary; every field is what some line of the text showed.
    GpuArch {
        form: GpuArchForm,
        gpu: Option<String>,
        capability: Option<String>,
        supported: Vec<String>,
        range: Option<(String, Option<String>)>,
        detail: String,
    },
    /// auditwheel repairing a built wheel could not find a library it links: the build
    /// machine's to find or to leave out, not a user's install.
    AuditwheelMissing {
        library: String,
    },
    /// A symbol of macOS' own libraries missing (dyld's `Expected in: /usr/lib/libSystem.B.dylib`):
    /// the binary was built for a newer macOS than this one.
    MacosTooOld {
        library: Option<String>,
        symbol: String,
        system_library: String,
        built_for: Option<String>,
    },
    /// A conda solver seeing no driver (`__cuda` virtual package missing).
    CondaCudaVirtual {
        detail: String,
    },
    /// TensorFlow naming an op no loaded library registered.
    TensorflowOp {
        op: String,
    },
    /// A Cython module lacking the C API another module was compiled against.
    CythonApi {
        module: String,
        name: String,
    },
    /// A package's setup refusing this Python (numba's guard): its release predates it.
    PythonRange {
        python: String,
        supported: String,
    },
    /// pip installed a package whose metadata pins another torch (`requires torch==2.3.0, but
    /// you have torch 2.2.1`): its compiled parts are built for that torch.
    PinnedTorch {
        package: String,
        version: String,
        needs: String,
        installed: String,
    },
    /// A package's own check says it was built for another release of its framework.
    FrameworkVersion {
        package: String,
        framework: String,
        needs: String,
        installed: String,
    },
    /// A PJRT plugin built against another PJRT C API than the framework's.
    PjrtApi {
        plugin: String,
        plugin_api: String,
        framework_api: String,
        plugin_newer: Option<bool>,
    },
    /// A package calls Python API of a newer torch than the installed one.
    TorchApiNewer {
        api: String,
    },
    /// An extension's source uses C++ API (a name, a header) a torch release removed.
    TorchApiRemoved {
        name: String,
        detail: String,
    },
    /// A build's compile step does not find a C/C++ library's header (`cblas.h`): its
    /// development package is not installed.
    HeaderMissing {
        header: String,
        detail: String,
    },
    /// A package's own CUDA library did not load; it runs without CUDA.
    CudaSetupFailed {
        package: String,
        detail: String,
    },
    /// A package's own summary of its library not loading, the loader's reason not printed.
    PackageLibraryUnloadable {
        package: String,
        detail: String,
    },
    /// The cuDNN loaded at run time is not the one the framework was compiled with.
    CudnnVersion {
        framework: String,
        library: String,
        compiled: Option<String>,
        runtime: Option<String>,
        detail: String,
    },
    /// A CUDA compiler (nvcc, ptxas) that does not know the architecture asked for.
    ToolkitArch {
        arch: String,
        tool: Option<String>,
        detail: String,
    },
    DriverTooOld {
        found: Option<String>,
        detail: String,
    },
    CpuOnlyTorch {
        detail: String,
        /// torch itself refused (`Torch not compiled with CUDA enabled`), rather than a `+cpu`
        /// torch reporting CUDA unavailable.
        asserted: bool,
    },
    /// `torch.cuda.is_available()` was `False`: kept only when the text's torch is `+cpu`, and
    /// then diagnosed as a CPU-only torch.
    CudaUnavailable {
        detail: String,
        /// The program stopped on it (`assert torch.cuda.is_available()` failing).
        stopped: bool,
    },
    /// A package's compiled module lacks a function its Python code calls.
    CompiledAttributeMissing {
        module: String,
        attribute: String,
    },
    /// A library of another architecture than the process (see `EventKind::WrongArchitecture`);
    /// `on_disk` when read from the file itself (its ELF header against this machine) rather than
    /// from a loader's message.
    WrongArchitecture {
        library: Option<String>,
        have: Option<String>,
        need: Option<String>,
        detail: String,
        on_disk: bool,
    },
    /// A library the loader found and could not read as one (`invalid ELF header`).
    LibraryUnreadable {
        library: String,
        why: String,
    },
    /// The CPU lacks an instruction a binary uses.
    IllegalInstruction {
        feature: Option<String>,
        detail: String,
    },
    /// glibc refused a library that asks for an executable stack.
    ExecutableStack {
        library: Option<String>,
    },
    /// glibc had no static TLS left for a library loaded at run time.
    StaticTlsExhausted {
        library: Option<String>,
    },
    /// A compiled function rejected the arguments Python code passed it (pybind11).
    BindingMismatch {
        function: String,
        module: Option<String>,
        passed: Option<u32>,
        accepts: Option<u32>,
    },
    /// A media package found no backend to read or write a file.
    IoBackendMissing {
        package: String,
        backend: Option<String>,
        newest: Option<u32>,
    },
    /// The log stops at torch's JIT build of an extension.
    JitBuildStalled {
        root: Option<String>,
        op: Option<String>,
    },
    /// A package's just-in-time op that did not build or load.
    JitOpUnavailable {
        package: String,
        op: String,
    },
    /// pip refused a wheel file whose tags the interpreter does not accept.
    WheelUnsupported {
        wheel: String,
    },
    /// pip's resolver found no release of a requirement for this Python and platform.
    NoMatchingDistribution {
        requirement: String,
        /// The versions pip listed, where it printed them (`none`: an empty list).
        available: Option<Vec<String>>,
    },
    /// Two OpenMP runtimes in one process.
    OpenmpDuplicate {
        initializing: Option<String>,
        found: Option<String>,
        /// mkl-service's refusal of this MKL threading layer (`INTEL`).
        mkl_layer: Option<String>,
    },
    /// A package skipping its compiled extensions because of the torch it finds (torchao).
    ExtensionsSkipped {
        package: Option<String>,
        torch: Option<String>,
        needs_torch: Option<String>,
    },
    /// `No module named 'X'` for a compiled module a known package ships: the package is
    /// installed without its compiled half.
    OwnModuleMissing {
        module: String,
        package: String,
    },
}

#[derive(Debug, Clone)]
pub struct Incident {
    pub failure: Failure,
    /// The first place the failure appears.
    pub primary: Span,
    /// Every other place.
    pub related: Vec<Span>,
}

/// Facts about the situation gathered from the whole text, used by every incident.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    /// Versions the text states, by lower-case subject (`torch`, `python`, `cuda`, a package).
    pub versions: Vec<(String, String)>,
    pub models: Vec<String>,
    pub suggested_commands: Vec<String>,
    /// The `pip install` commands the text shows the user running.
    pub user_commands: Vec<String>,
    pub wrapped_imports: Vec<String>,
    /// Dotted modules the text's import statements name (`import pyarrow.lib as _lib`, `from
    /// h5py import defs` → `h5py.defs`): a loader that names only a module's last part means one.
    pub imports: Vec<String>,
    pub gpu_processes: Vec<(u32, Option<String>, Option<String>)>,
    pub packages_built: Vec<String>,
    pub used_uv: bool,
    /// torch's C++ extension builder compiled the package being built: it links torch.
    pub torch_extension_build: bool,
    /// Poetry ran the install (its own wording shows): its sources, not pip's flags, pick
    /// the index.
    pub used_poetry: bool,
    pub compile_failed: bool,
    /// The linker missed a library (`cannot find -lcudart`): the text is a build's link step.
    pub linking: bool,
    pub precompiled_wheel_missing: bool,
    /// The system killed a compiler or linker of the build (`Killed signal terminated program
    /// cc1plus`, `Error 137`): out of memory.
    pub compiler_killed: bool,
    /// A cause a compile's own words named (CUB's headers on Windows, Thrust refusing a CUB).
    pub compile_cause: Option<abidoc_syntax::CompileCause>,
    /// The package directory `build_ext --inplace` found missing (`monotonic_align`).
    pub inplace_dir: Option<String>,
    /// MSVC said it ran out of heap (`C1060`): out of memory too, with nothing killed.
    pub compiler_out_of_heap: bool,
    /// The wheel a package's setup.py tried to download (`Guessing wheel URL: …whl`, flash-attn,
    /// mamba-ssm): its name carries the CUDA and C++ ABI setup.py read from the installed torch.
    pub guessed_wheel: Option<String>,
    /// The extension torch's JIT builder failed to build (`Error building extension
    /// 'fused_adam'`): compiled at run time by the package that loads it, not by pip.
    pub jit_extension: Option<String>,
    /// Where a build's failure is first reported, and the package it names (the first one named).
    pub build_failed: Option<(Span, Option<String>)>,
    /// Where pip's build environment failed getting the build's requirements (the package's
    /// setup ran and failed before compiling).
    pub requirements_step_failed: Option<Span>,
    /// A frame of torch inside pip's isolated build environment
    /// (`/tmp/pip-build-env-x/overlay/lib/python3.8/site-packages/torch/utils/cpp_extension.py`):
    /// the build runs against a torch pip downloaded for it, not the installed one.
    pub isolated_torch: Option<Span>,
    pub mentions_conda: bool,
    /// The text blames or mentions WSL2 (a frequent wrong explanation of symbol errors).
    pub mentions_wsl: bool,
    /// The text shows Windows (its site-packages paths, MSVC's `cl.exe`).
    pub mentions_windows: bool,
    /// The text shows a container (Docker, Singularity/Apptainer, CUDA's forward-compat
    /// libraries of an image).
    pub mentions_container: bool,
    /// CMake stopped configuring (see `fact::CMAKE_ERROR`).
    pub cmake_error: bool,
    /// The text shows macOS (its paths, `.dylib`s, Rosetta).
    pub mentions_macos: bool,
    /// The text shows an ARM Linux machine (`aarch64`, a Jetson, a Raspberry Pi).
    pub mentions_arm: bool,
    /// The text shows torch's own loader of its nvidia-* dependency wheels failing
    /// (`_load_global_deps`, `_preload_cuda_deps`).
    pub torch_preloads: bool,
    /// The text shows a build asking for C++11 or C++14 (`-std=c++14`, `cpp_standard = 14`).
    pub old_cxx_standard: bool,
    /// The text shows torch 1.x's THC (`THCudaCheck FAIL`).
    pub mentions_thc: bool,
    /// The text shows torch's Inductor (its frames, `backend='inductor'`): the caller of Triton.
    pub mentions_inductor: bool,
    /// The install already looked in PyTorch's own index (pip's `Looking in indexes:`, uv's
    /// `@ registry+…`): a build missing there is missing for this Python or platform.
    pub pytorch_index_used: bool,
    /// A macOS SDK's `error: Unsupported architecture`: the build asked the SDK for an
    /// architecture it cannot compile (a universal2 Python's arm64 on an older SDK).
    pub sdk_unsupported_arch: bool,
    /// glibc's math headers refused by the GPU compiler beside its own declarations of the same
    /// functions (`abidoc_syntax::scan::glibc_math_clash` on a compile failure's line).
    pub cuda_math_glibc: bool,
    /// conda's solver, not pip, is what reports (see `fact::CONDA_SOLVER`).
    pub used_conda_solver: bool,
    /// C an older Cython generated, compiled for a Python its internals changed in: the
    /// release that changed them (`no member named 'ob_digit'`: 3.12; `invalid use of
    /// incomplete type 'PyFrameObject'`: 3.11).
    pub old_cython_c: Option<&'static str>,
    /// Cython refused the package's sources (`Error compiling Cython file`): `Some(true)` where
    /// the words can only be Cython 3's (`cython_sources`), `Some(false)` otherwise.
    pub cython_failed: Option<bool>,
    /// A function of CPython's C API that this Python removed or changed, which the build's
    /// source calls (`PyUnicode_AsUnicode`, removed in 3.12).
    pub python_capi: Option<String>,
    /// The text shows a Jetson board (its name, JetPack, L4T, Tegra).
    pub mentions_jetson: bool,
    /// The text shows ZLUDA (`ComfyUI-Zluda`): torch's CUDA DLLs run on AMD's HIP runtime.
    pub mentions_zluda: bool,
    /// The text names PyTorch by its project name (`when use Pytorch 1.7`), where no `torch`
    /// module or package shows.
    pub mentions_pytorch: bool,
    /// The text mentions a silent fallback (Conv1d instead of Mamba, naive implementation).
    pub mentions_fallback: bool,
    /// Packages the text names (by name, module, library file, site-packages directory, pip
    /// build), with the byte offset of each, in text order; a run naming one package is kept
    /// once. They name the package of a failure whose own line does not.
    pub mentions: Vec<(usize, String)>,
    /// Traceback frames' files outside any site-packages (a checkout run in place), POSIX paths
    /// (absolute, or relative to where the program ran), the first few: where a package's sources
    /// sit when a build is needed.
    pub checkout_files: Vec<String>,
    /// The Python the text's paths show (`…/python3.7/site-packages/…`,
    /// `_ext.cpython-37m-x86_64-linux-gnu.so`): the first one seen, as (major, minor).
    pub python_in_paths: Option<(u32, u32)>,
}

/// What the whole text shows, set by the phrases of [`TEXT_PHRASES`] that say it.
mod fact {
    pub const CONDA: u32 = 1 << 0;
    pub const WSL: u32 = 1 << 1;
    /// A fallback named outright (`Conv1d fallback`).
    pub const FALLBACK: u32 = 1 << 2;
    /// The word alone, which counts with Mamba's name.
    pub const FALLBACK_WORD: u32 = 1 << 3;
    pub const MAMBA: u32 = 1 << 4;
    pub const UV: u32 = 1 << 5;
    pub const WINDOWS: u32 = 1 << 6;
    pub const ZLUDA: u32 = 1 << 7;
    pub const PYTORCH: u32 = 1 << 8;
    pub const MACOS: u32 = 1 << 9;
    pub const ARM: u32 = 1 << 10;
    pub const JETSON: u32 = 1 << 11;
    pub const TORCH_PRELOADS: u32 = 1 << 12;
    pub const OLD_CXX: u32 = 1 << 13;
    pub const THC: u32 = 1 << 14;
    pub const INDUCTOR: u32 = 1 << 15;
    /// The text states Linux as the platform in use (uv's `You're on Linux`): platform tags it
    /// lists for other systems (`win_amd64`) are not this machine's.
    pub const LINUX_STATED: u32 = 1 << 16;
    /// The same for macOS (`You're on macOS`).
    pub const MACOS_STATED: u32 = 1 << 17;
    /// The install looked in PyTorch's own index (`Looking in indexes: https://download.pytorch
    /// .org/…`, uv's `@ registry+https://download.pytorch.org/…`).
    pub const PYTORCH_INDEX: u32 = 1 << 18;
    /// A macOS SDK refusing the architecture a build asks for (`error: Unsupported
    /// architecture`: an older SDK asked for arm64 by a universal2 Python).
    pub const SDK_ARCH: u32 = 1 << 19;
    /// C an older Cython generated, compiled for Python 3.12 or later (`no member named
    /// 'ob_digit'`).
    pub const OLD_CYTHON_C: u32 = 1 << 20;
    /// A container (Docker, Singularity/Apptainer, a CUDA image's forward-compat libraries).
    pub const CONTAINER: u32 = 1 << 21;
    /// C an older Cython generated, compiled for Python 3.11 or later (`invalid use of
    /// incomplete type 'PyFrameObject'`: 3.11 made the frame opaque).
    pub const OLD_CYTHON_C_311: u32 = 1 << 22;
    /// CMake stopped configuring (`CMake Error at …`, `-- Configuring incomplete`): its warnings
    /// about optional packages are not why.
    pub const CMAKE_ERROR: u32 = 1 << 23;
    /// conda's solver reporting (`UnsatisfiableError`, `-> python[version=…]`).
    pub const CONDA_SOLVER: u32 = 1 << 24;
}

// A phrase is a bit of [`TextFacts`]' `u128`: no more than 128 of them.
const _: () = assert!(TEXT_PHRASES.len() <= 128);

/// Phrases that only a look at the whole text gives, each with what it shows (their order is the
/// bit order of [`TextFacts`]; the automaton holds at most 128).
const TEXT_PHRASES: &[(&str, u32)] = &[
    ("conda", fact::CONDA),
    ("WSL", fact::WSL),
    ("Conv1d fallback", fact::FALLBACK),
    ("falls back to Conv1d", fact::FALLBACK),
    ("fallback", fact::FALLBACK_WORD),
    ("mamba", fact::MAMBA),
    ("uv pip ", fact::UV),
    ("uv sync", fact::UV),
    ("uv add ", fact::UV),
    // Windows: its paths, its compiler, its loader and its files.
    ("\\site-packages\\", fact::WINDOWS),
    ("cl.exe", fact::WINDOWS),
    ("MSVC", fact::WINDOWS),
    ("\\Users\\", fact::WINDOWS),
    // The same paths written with forward slashes (CMake, MSYS, Python's own reprs): the user
    // folder of the system drive (a bare `:/Users/` is also a macOS path list's), and an
    // environment's `Lib` folder, capitalized only on Windows.
    ("C:/Users/", fact::WINDOWS),
    // A drive letter's root: the system drive anywhere, another drive in a traceback's frame
    // (CPython's `File "D:\…"`, IPython's `File D:\…`), where a log's escaped text does not
    // put it.
    ("C:\\", fact::WINDOWS),
    ("File \"D:\\", fact::WINDOWS),
    ("File \"E:\\", fact::WINDOWS),
    ("File \"F:\\", fact::WINDOWS),
    ("File D:\\", fact::WINDOWS),
    ("File E:\\", fact::WINDOWS),
    ("/Lib/site-packages/", fact::WINDOWS),
    ("WinError", fact::WINDOWS),
    (".dll", fact::WINDOWS),
    (".pyd", fact::WINDOWS),
    // Its wheels' platform tag, its Triton port, its versions as people name them.
    ("win_amd64", fact::WINDOWS),
    // uv's hint, which then lists the platforms a release does have.
    ("You're on Linux", fact::LINUX_STATED | fact::UV),
    (
        "You're on macOS",
        fact::MACOS_STATED | fact::MACOS | fact::UV,
    ),
    ("You're on Windows", fact::WINDOWS | fact::UV),
    ("error: Unsupported architecture", fact::SDK_ARCH),
    ("UnsatisfiableError", fact::CONDA_SOLVER | fact::CONDA),
    (" -> python[version=", fact::CONDA_SOLVER | fact::CONDA),
    // gcc quotes it either way (`'ob_digit'`, `‘ob_digit’`): the member's name alone.
    ("ob_digit", fact::OLD_CYTHON_C),
    ("incomplete type 'PyFrameObject'", fact::OLD_CYTHON_C_311),
    (
        "incomplete type \u{2018}PyFrameObject\u{2019}",
        fact::OLD_CYTHON_C_311,
    ),
    (
        "registry+https://download.pytorch.org/",
        fact::PYTORCH_INDEX | fact::UV,
    ),
    (
        "Looking in indexes: https://download.pytorch.org/",
        fact::PYTORCH_INDEX,
    ),
    // torch's Inductor, Triton's caller in torch.compile: its modules, its backend's name.
    ("torch/_inductor/", fact::INDUCTOR),
    ("torch\\_inductor\\", fact::INDUCTOR),
    ("torch._inductor", fact::INDUCTOR),
    ("backend='inductor'", fact::INDUCTOR),
    ("triton-windows", fact::WINDOWS),
    ("Windows 1", fact::WINDOWS),
    // ZLUDA (torch's CUDA DLLs run on AMD's HIP runtime), in its projects' paths and names.
    // `ZLUDA`, `Zluda`, `zluda`.
    ("LUDA", fact::ZLUDA),
    ("luda", fact::ZLUDA),
    // PyTorch by its project name, as people write it in prose and titles (`PyTorch`; `Pytorch`,
    // `pytorch`).
    ("yTorch", fact::PYTORCH),
    ("ytorch", fact::PYTORCH),
    // macOS: its paths, its libraries, its translation layer.
    ("/Users/", fact::MACOS),
    ("darwin", fact::MACOS),
    (".dylib", fact::MACOS),
    ("/opt/homebrew", fact::MACOS),
    // Its per-user temporary directory (pip's build directories live there).
    ("/private/var/folders/", fact::MACOS),
    ("macOS", fact::MACOS),
    ("Rosetta", fact::MACOS),
    ("Apple Silicon", fact::MACOS),
    // setuptools' build directories and wheel tags (`build/temp.macosx-10.9-universal2-cpython-310`).
    ("macosx", fact::MACOS),
    // ARM machines (Jetson, Raspberry Pi, Graviton, NVIDIA's aarch64 servers, whose PyPI torch
    // is CPU-only), by architecture and board; Jetson boards by their software's names too.
    ("aarch64", fact::ARM),
    ("Jetson", fact::ARM | fact::JETSON),
    ("jetson", fact::ARM | fact::JETSON),
    ("Raspberry", fact::ARM),
    ("armv7", fact::ARM),
    ("GB10", fact::ARM),
    ("DGX Spark", fact::ARM),
    ("sbsa", fact::ARM),
    ("JetPack", fact::ARM | fact::JETSON),
    ("L4T", fact::ARM | fact::JETSON),
    ("Tegra", fact::ARM | fact::JETSON),
    // torch's own loader of the nvidia-* wheels it depends on (2.0 on).
    ("_preload_cuda_deps", fact::TORCH_PRELOADS),
    ("_load_global_deps", fact::TORCH_PRELOADS),
    (" not found in the system path", fact::TORCH_PRELOADS),
    // A build forcing an older C++ standard than torch's headers need.
    ("std=c++11", fact::OLD_CXX),
    ("std=c++14", fact::OLD_CXX),
    ("std=gnu++14", fact::OLD_CXX),
    ("cpp_standard = 14", fact::OLD_CXX),
    ("CMAKE_CXX_STANDARD 14", fact::OLD_CXX),
    // torch 1.x's THC, in its messages (`THCudaCheck FAIL`) and headers.
    ("THCudaCheck", fact::THC),
    // Containers, by their runtimes' names and CUDA images' forward-compatibility libraries.
    ("docker", fact::CONTAINER),
    ("Docker", fact::CONTAINER),
    ("container", fact::CONTAINER),
    ("Container", fact::CONTAINER),
    ("ingularity", fact::CONTAINER),
    ("pptainer", fact::CONTAINER),
    ("cuda/compat", fact::CONTAINER),
    ("cuda-compat", fact::CONTAINER),
    ("CMake Error", fact::CMAKE_ERROR),
    ("Configuring incomplete", fact::CMAKE_ERROR),
];

/// Which of [`TEXT_PHRASES`] a text (or any of its pieces) holds.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextFacts(u128);

impl TextFacts {
    /// One pass over `text`; the facts of a text's pieces combine with [`TextFacts::or`].
    pub fn of(text: &str) -> Self {
        static SET: std::sync::OnceLock<Option<abidoc_syntax::scan::PhraseSet>> =
            std::sync::OnceLock::new();
        let set = SET.get_or_init(|| {
            let phrases: Vec<&str> = TEXT_PHRASES.iter().map(|(p, _)| *p).collect();
            abidoc_syntax::scan::PhraseSet::new(&phrases)
        });
        match set {
            Some(set) => Self(set.find_in(text)),
            // Not expected (an automaton of fixed phrases builds): the slow way then.
            None => Self(
                TEXT_PHRASES
                    .iter()
                    .enumerate()
                    .filter(|(_, (p, _))| text.contains(*p))
                    .fold(0, |acc, (i, _)| acc | 1u128 << i),
            ),
        }
    }

    #[must_use]
    pub fn or(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// What the phrases found show, together.
    fn shown(self) -> u32 {
        TEXT_PHRASES
            .iter()
            .enumerate()
            .filter(|(i, _)| self.0 & (1u128 << i) != 0)
            .fold(0, |acc, (_, (_, f))| acc | f)
    }
}

impl Scene {
    /// Notes facts that only a look at the whole text gives (one pass for all phrases).
    pub fn read_text(&mut self, text: &str) {
        self.read_facts(TextFacts::of(text));
    }

    /// Like [`Scene::read_text`], from the facts of a text's pieces.
    pub fn read_facts(&mut self, f: TextFacts) {
        let shown = f.shown();
        let has = |x: u32| shown & x != 0;
        self.mentions_conda |= has(fact::CONDA);
        self.mentions_wsl |= has(fact::WSL);
        self.mentions_fallback |=
            has(fact::FALLBACK) || has(fact::FALLBACK_WORD) && has(fact::MAMBA);
        self.used_uv |= has(fact::UV);
        self.mentions_windows |=
            has(fact::WINDOWS) && !has(fact::LINUX_STATED) && !has(fact::MACOS_STATED);
        self.pytorch_index_used |= has(fact::PYTORCH_INDEX);
        self.sdk_unsupported_arch |= has(fact::SDK_ARCH);
        self.used_conda_solver |= has(fact::CONDA_SOLVER);
        if has(fact::OLD_CYTHON_C_311) {
            self.old_cython_c = Some("3.11");
        } else if has(fact::OLD_CYTHON_C) {
            self.old_cython_c.get_or_insert("3.12");
        }
        self.mentions_zluda |= has(fact::ZLUDA);
        self.mentions_pytorch |= has(fact::PYTORCH);
        self.mentions_macos |= has(fact::MACOS);
        self.mentions_arm |= has(fact::ARM);
        self.mentions_jetson |= has(fact::JETSON);
        self.torch_preloads |= has(fact::TORCH_PRELOADS);
        self.old_cxx_standard |= has(fact::OLD_CXX);
        self.mentions_thc |= has(fact::THC);
        self.mentions_container |= has(fact::CONTAINER);
        self.cmake_error |= has(fact::CMAKE_ERROR);
        self.mentions_inductor |= has(fact::INDUCTOR);
    }
}

/// At most this many runs of package mentions are kept (a real log names a handful).
const MAX_MENTIONS: usize = 65_536;

impl Scene {
    /// Notes the packages `piece` (starting at `offset` in the text) names.
    pub fn read_mentions(&mut self, piece: &str, offset: usize) {
        let mut found: Vec<(usize, String)> = abidoc_knowledge::packages::mentions(piece)
            .into_iter()
            .filter(|m| m.package.name != "torch" || torch_in_code(piece, m.at))
            // A conda environment named after a package (`…/envs/mxnet/lib/python2.7/…`) says
            // nothing of which package failed.
            .filter(|m| {
                let before = piece.get(..m.at).unwrap_or("");
                before
                    .strip_suffix(['/', '\\'])
                    .and_then(|b| b.rsplit(['/', '\\']).next())
                    != Some("envs")
            })
            .map(|m| (m.at, m.distribution.to_owned()))
            .collect();
        let imports = import_statements(piece);
        found.extend(compiled_imports(&imports));
        found.extend(prompt_imports(&imports));
        found.extend(one_liner_imports(piece));
        found.extend(failing_imports(piece));
        for m in dotted_imports(&imports) {
            self.add_import(m);
        }
        found.extend(ci_checkouts(piece));
        found.extend(pip_build_dirs(piece));
        found.extend(compiler_sources(piece));
        found.extend(setuptools_extensions(piece));
        found.extend(setuptools_build_dirs(piece));
        found.extend(onnxruntime_tags(piece));
        found.extend(exception_modules(piece));
        found.extend(site_package_paths(piece));
        found.extend(logger_names(piece));
        if self.python_in_paths.is_none() {
            self.python_in_paths = python_in_paths(piece);
        }
        found.sort_by_key(|(at, _)| *at);
        for (at, p) in found {
            self.mention(offset + at, &p);
        }
    }

    /// Keeps a dotted module of an import statement: distinct, at most 64 (a real text imports
    /// a handful that matter).
    fn add_import(&mut self, module: String) {
        if self.imports.len() < 64 && !self.imports.contains(&module) {
            self.imports.push(module);
        }
    }

    fn mention(&mut self, at: usize, package: &str) {
        if self.mentions.len() < MAX_MENTIONS
            && self.mentions.last().is_none_or(|(_, p)| p != package)
        {
            self.mentions.push((at, package.to_owned()));
        }
    }

    /// The package the text shows around a failure at `span` whose own line names none: the
    /// last package named before it (the innermost frame, the import, the build), an extension
    /// over torch (whose frames and imports surround every extension's); else the first named
    /// after it (an error pasted in a title, its traceback below).
    /// Needs the mentions in text order ([`Scene::order_mentions`]).
    pub fn package_near(&self, span: Span) -> Option<&str> {
        self.package_near_skipping(span, &[])
    }

    /// [`Scene::package_near`] passing over `skip`: the packages a failure's own message names
    /// without being the failing one (NumPy in its ABI message).
    pub fn package_near_skipping(&self, span: Span, skip: &[&str]) -> Option<&str> {
        let split = self.mentions.partition_point(|(at, _)| *at < span.end);
        let (before, after) = self.mentions.split_at(split);
        let keep = |m: &&(usize, String)| !skip.contains(&m.1.as_str());
        pick(before.iter().rev().filter(keep)).or_else(|| pick(after.iter().filter(keep)))
    }

    /// The first package other than torch the text names after `span`.
    pub fn package_after(&self, span: Span) -> Option<&str> {
        let split = self.mentions.partition_point(|(at, _)| *at < span.end);
        self.mentions[split..]
            .iter()
            .map(|(_, p)| p.as_str())
            .find(|p| *p != "torch")
    }

    /// Puts the mentions gathered from several sources (frames, pip lines, the text's names) in
    /// text order, once, for [`Scene::package_near`].
    pub fn order_mentions(&mut self) {
        self.mentions.sort_by_key(|(at, _)| *at);
    }

    pub fn version_of(&self, subject: &str) -> Option<&str> {
        self.versions
            .iter()
            .find(|(s, _)| s == subject)
            .map(|(_, v)| v.as_str())
    }
}

fn key_of(f: &Failure) -> Failure {
    // Libraries are compared by file name: the same .so is printed with and without its directory.
    match f {
        // torchaudio's lines about its backends (the one asked for, then none at all) are one
        // failure.
        Failure::IoBackendMissing { package, .. } => Failure::IoBackendMissing {
            package: package.clone(),
            backend: None,
            newest: None,
        },
        // pip's two lines about one requirement are one failure.
        Failure::NoMatchingDistribution { requirement, .. } => Failure::NoMatchingDistribution {
            requirement: requirement.clone(),
            available: None,
        },
        Failure::UndefinedSymbol {
            library, symbol, ..
        } => Failure::UndefinedSymbol {
            library: library.as_deref().map(basename).map(str::to_owned),
            symbol: symbol.clone(),
            truncated: false,
            version_of: None,
        },
        Failure::MissingLibrary { name, .. } => Failure::MissingLibrary {
            name: name.clone(),
            required_by: None,
        },
        Failure::VersionNotFound {
            library,
            version,
            required_by,
        } => Failure::VersionNotFound {
            library: basename(library).to_owned(),
            version: version.clone(),
            required_by: required_by.as_deref().map(basename).map(str::to_owned),
        },
        Failure::CudaOom { .. } => Failure::CudaOom {
            tried: None,
            detail: String::new(),
        },
        Failure::Libcuda { .. } => Failure::Libcuda {
            detail: String::new(),
        },
        Failure::CudaHome { .. } => Failure::CudaHome {
            detail: String::new(),
        },
        Failure::NoCompiler { .. } => Failure::NoCompiler {
            detail: String::new(),
        },
        Failure::MambaFastPath { kernel, .. } => Failure::MambaFastPath {
            model_class: None,
            kernel: kernel.clone(),
        },
        Failure::MacosTooOld { symbol, .. } => Failure::MacosTooOld {
            library: None,
            symbol: symbol.clone(),
            system_library: String::new(),
            built_for: None,
        },
        Failure::CondaCudaVirtual { .. } => Failure::CondaCudaVirtual {
            detail: String::new(),
        },
        Failure::PythonRange { .. } => Failure::PythonRange {
            python: String::new(),
            supported: String::new(),
        },
        Failure::PinnedTorch { package, .. } => Failure::PinnedTorch {
            package: package.clone(),
            version: String::new(),
            needs: String::new(),
            installed: String::new(),
        },
        Failure::XformersBuiltFor { .. } => Failure::XformersBuiltFor {
            built_torch: None,
            have_torch: None,
            built_cuda: None,
            built_python: None,
            have_python: None,
        },
        Failure::CudaVersion { .. } => Failure::CudaVersion {
            found: None,
            expected: None,
            detail: String::new(),
        },
        Failure::FlashAttn { .. } => Failure::FlashAttn {
            reason: String::new(),
        },
        Failure::TorchOps { package, .. } => Failure::TorchOps {
            what: String::new(),
            package: package.clone(),
            libraries: Vec::new(),
        },
        // One GPU, one driver, one torch: every line about them is the same failure.
        // One failure per form: a Triton refusal and a missing kernel are two findings.
        Failure::GpuArch { form, .. } => Failure::GpuArch {
            form: *form,
            gpu: None,
            capability: None,
            supported: Vec::new(),
            range: None,
            detail: String::new(),
        },
        Failure::DriverTooOld { .. } => Failure::DriverTooOld {
            found: None,
            detail: String::new(),
        },
        Failure::TorchApiNewer { .. } => Failure::TorchApiNewer { api: String::new() },
        Failure::FrameworkVersion { package, .. } => Failure::FrameworkVersion {
            package: package.clone(),
            framework: String::new(),
            needs: String::new(),
            installed: String::new(),
        },
        Failure::PjrtApi { plugin, .. } => Failure::PjrtApi {
            plugin: plugin.clone(),
            plugin_api: String::new(),
            framework_api: String::new(),
            plugin_newer: None,
        },
        Failure::TorchApiRemoved { .. } => Failure::TorchApiRemoved {
            name: String::new(),
            detail: String::new(),
        },
        Failure::HeaderMissing { header, .. } => Failure::HeaderMissing {
            header: header.clone(),
            detail: String::new(),
        },
        Failure::CudaSetupFailed { package, .. } => Failure::CudaSetupFailed {
            package: package.clone(),
            detail: String::new(),
        },
        Failure::PackageLibraryUnloadable { package, .. } => Failure::PackageLibraryUnloadable {
            package: package.clone(),
            detail: String::new(),
        },
        Failure::CudnnVersion {
            framework, library, ..
        } => Failure::CudnnVersion {
            framework: framework.clone(),
            library: library.clone(),
            compiled: None,
            runtime: None,
            detail: String::new(),
        },
        Failure::ToolkitArch { arch, .. } => Failure::ToolkitArch {
            arch: arch.clone(),
            tool: None,
            detail: String::new(),
        },
        Failure::CpuOnlyTorch { .. } => Failure::CpuOnlyTorch {
            detail: String::new(),
            asserted: true,
        },
        Failure::CudaUnavailable { stopped, .. } => Failure::CudaUnavailable {
            detail: String::new(),
            stopped: *stopped,
        },
        // One process: every line about its CPU, or its OpenMP runtimes, is the same failure;
        // a library of another architecture is one failure per library.
        Failure::IllegalInstruction { .. } => Failure::IllegalInstruction {
            feature: None,
            detail: String::new(),
        },
        Failure::OpenmpDuplicate { .. } => Failure::OpenmpDuplicate {
            initializing: None,
            found: None,
            mkl_layer: None,
        },
        Failure::WrongArchitecture { library, .. } => Failure::WrongArchitecture {
            library: library.clone(),
            have: None,
            need: None,
            detail: String::new(),
            on_disk: false,
        },
        other => other.clone(),
    }
}

/// A symbol cut off in one copy of a message is the same failure as its full form in another.
fn same_truncated_symbol(a: &Failure, b: &Failure) -> bool {
    match (a, b) {
        (
            Failure::UndefinedSymbol {
                library: la,
                symbol: sa,
                ..
            },
            Failure::UndefinedSymbol {
                library: lb,
                symbol: sb,
                ..
            },
        ) => {
            let libs_agree = la.is_none() || lb.is_none() || la == lb;
            libs_agree
                && sa.len() >= 12
                && sb.len() >= 12
                && (sa.starts_with(sb.as_str()) || sb.starts_with(sa.as_str()))
        }
        _ => false,
    }
}

/// At most this many other locations are kept per incident.
const MAX_RELATED: usize = 1000;

pub fn basename(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// At most this many distinct failures are kept: beyond it the input is hostile, not a log.
const MAX_INCIDENTS: usize = 10_000;
/// A symbol cut off in one copy is matched by prefix against at most this many distinct symbols
/// (real logs hold a handful), so hostile input with millions of symbols stays linear.
const MAX_PREFIX_SEARCH: usize = 256;
/// Bound on the scene's lists of commands, imports, packages and models: diagnoses read their
/// first entries or list them, and a log repeating one line must not grow them.
const MAX_SCENE_LIST: usize = 64;
const MAX_GPU_PROCESSES: usize = 1024;

/// Turns events into incidents (in order of first appearance) and the scene around them.
pub fn collect(events: &[Event]) -> (Vec<Incident>, Scene) {
    let mut c = Collector::default();
    c.add(events);
    c.finish()
}

/// Scans `text` and collects its incidents and scene (including [`Scene::read_text`]) without
/// holding all events: memory is bounded by the distinct failures, not by the text's length.
pub fn collect_text(text: &str) -> (Vec<Incident>, Scene) {
    let mut c = Collector::default();
    let mut facts = TextFacts::default();
    let mut mentions = Scene::default();
    // Problems of the scan are not diagnoses; the text's facts come from the same pass.
    let _problems = abidoc_syntax::scan::scan_pieces(
        text,
        |piece, offset| {
            let mut named = Scene::default();
            named.read_mentions(piece, offset);
            (
                TextFacts::of(piece),
                named.mentions,
                named.python_in_paths,
                named.imports,
            )
        },
        |events, (f, named, python, imports)| {
            facts = facts.or(f);
            for (at, p) in named {
                mentions.mention(at, &p);
            }
            for m in imports {
                mentions.add_import(m);
            }
            mentions.python_in_paths = mentions.python_in_paths.or(python);
            warm_torch_index(events);
            c.add(events);
        },
    );
    let (incidents, mut scene) = c.finish();
    scene.read_facts(facts);
    scene.mentions.extend(mentions.mentions);
    scene.python_in_paths = mentions.python_in_paths;
    scene.imports = mentions.imports;
    scene.order_mentions();
    (incidents, scene)
}

/// A torch symbol that failed to resolve is diagnosed with the offline torch index: the first one
/// met starts parsing the index on another thread (once per process), so that it is ready when
/// the scan ends instead of after it (a fixed ~4 ms that a short log would wait for).
fn warm_torch_index(events: &[Event]) {
    static STARTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if STARTED.load(std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let torch = events.iter().any(|e| {
        matches!(&e.kind, EventKind::UndefinedSymbol { symbol, .. }
            if abidoc_knowledge::torch_index::is_torch_symbol(symbol))
    });
    if torch && !STARTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        // Not joined: the diagnosis waits for the same `OnceLock` if it gets there first.
        let _ = std::thread::Builder::new()
            .name("torch-index".into())
            .spawn(abidoc_knowledge::torch_index::symbol_count);
    }
}

/// Groups events into incidents as they come, in order (a streamed scan hands them over in
/// batches); [`collect`] over all events at once gives the same result.
#[derive(Debug, Default)]
pub struct Collector {
    scene: Scene,
    incidents: Vec<(Failure, Incident)>,
    /// Logs repeat one failure thousands of times: an exact-key map keeps grouping linear, and
    /// only symbols (which may be cut off in one copy) fall back to a prefix search.
    by_key: std::collections::HashMap<Failure, usize>,
    /// Indices of symbol incidents, in order, for that prefix search.
    symbols: Vec<usize>,
    /// Version subjects as printed that were already seen (only the first version of a
    /// subject is ever read).
    raw_subjects: std::collections::HashSet<String>,
    pids: std::collections::HashSet<u32>,
    /// The file of the traceback frame read last: where an import that fails was written.
    last_frame: Option<String>,
}

impl Collector {
    fn push(&mut self, failure: Failure, span: Span) {
        let key = key_of(&failure);
        let found = self.by_key.get(&key).copied().or_else(|| {
            if !matches!(key, Failure::UndefinedSymbol { .. }) {
                return None;
            }
            self.symbols
                .iter()
                .take(MAX_PREFIX_SEARCH)
                .copied()
                .find(|&i| {
                    self.incidents
                        .get(i)
                        .is_some_and(|(k, _)| same_truncated_symbol(k, &key))
                })
        });
        if let Some((_, inc)) = found.and_then(|i| self.incidents.get_mut(i)) {
            // Related places are kept in order; a bounded list is enough to point at every copy
            // a person will look at.
            if inc.primary != span
                && inc.related.last() != Some(&span)
                && inc.related.len() < MAX_RELATED
            {
                inc.related.push(span);
            }
            merge_details(&mut inc.failure, failure);
        } else if self.incidents.len() < MAX_INCIDENTS {
            if matches!(key, Failure::UndefinedSymbol { .. }) {
                self.symbols.push(self.incidents.len());
            }
            self.by_key.insert(key.clone(), self.incidents.len());
            self.incidents.push((
                key,
                Incident {
                    failure,
                    primary: span,
                    related: Vec::new(),
                },
            ));
        }
    }

    /// Adds events that follow all events added before (in text order).
    pub fn add(&mut self, events: &[Event]) {
        for ev in events {
            self.add_one(ev);
        }
    }

    #[allow(clippy::too_many_lines)]
    fn add_one(&mut self, ev: &Event) {
        let span = ev.span;
        match &ev.kind {
            EventKind::UndefinedSymbol {
                library,
                symbol,
                truncated,
                version_of,
            } => match cached_launcher(library.as_deref(), symbol).or_else(|| {
                library
                    .as_deref()
                    .filter(|l| is_stub_driver(l))
                    .map(|l| format!("{l}: undefined symbol: {symbol}"))
            }) {
                // A driver function missing from a launcher Triton cached: libcuda was not
                // linked when it was built, not a torch ABI break.
                Some(detail) => self.push(Failure::Libcuda { detail }, span),
                None => self.push(
                    Failure::UndefinedSymbol {
                        library: library.clone(),
                        symbol: symbol.clone(),
                        truncated: *truncated,
                        version_of: version_of.clone(),
                    },
                    span,
                ),
            },
            // The driver library's unversioned name (opened by cuDNN and ctypes loaders), which
            // only a driver -dev package installs: the driver may well be there as
            // libcuda.so.1; and its versioned name (`libcuda.so.1`): the driver itself not
            // reachable. Either is the driver library not loading.
            EventKind::MissingSharedLibrary { name, required_by }
                if basename(name) == "libcuda.so" || basename(name).starts_with("libcuda.so.") =>
            {
                self.push(
                    Failure::Libcuda {
                        detail: format!(
                            "{name}: cannot open shared object file{}",
                            required_by
                                .as_deref()
                                .map(|r| format!(" (needed by {r})"))
                                .unwrap_or_default()
                        ),
                    },
                    span,
                );
            }
            EventKind::MacosSymbolMissing {
                library,
                symbol,
                system_library,
                built_for,
            } => self.push(
                Failure::MacosTooOld {
                    library: library.clone(),
                    symbol: symbol.clone(),
                    system_library: system_library.clone(),
                    built_for: built_for.clone(),
                },
                span,
            ),
            EventKind::CondaCudaVirtualMissing { detail } => self.push(
                Failure::CondaCudaVirtual {
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::TensorflowOpMissing { op } => {
                self.push(Failure::TensorflowOp { op: op.clone() }, span);
            }
            EventKind::CythonApiMissing { module, name } => self.push(
                Failure::CythonApi {
                    module: module.clone(),
                    name: name.clone(),
                },
                span,
            ),
            EventKind::PythonRangeRefused { python, supported } => self.push(
                Failure::PythonRange {
                    python: python.clone(),
                    supported: supported.clone(),
                },
                span,
            ),
            EventKind::AuditwheelMissing { library } => self.push(
                Failure::AuditwheelMissing {
                    library: library.clone(),
                },
                span,
            ),
            EventKind::MissingSharedLibrary { name, required_by } => {
                self.push(
                    Failure::MissingLibrary {
                        name: name.clone(),
                        required_by: required_by.clone(),
                    },
                    span,
                );
            }
            EventKind::VersionNotFound {
                library,
                version,
                required_by,
            } => self.push(
                Failure::VersionNotFound {
                    library: library.clone(),
                    version: version.clone(),
                    required_by: required_by.clone(),
                },
                span,
            ),
            // torch's CUDA libraries, which only its CUDA builds ship: an extension's CUDA
            // build against a CPU-only torch.
            EventKind::LinkerCannotFind { library }
                if matches!(library.as_str(), "c10_cuda" | "torch_cuda") =>
            {
                self.push(
                    Failure::CpuOnlyTorch {
                        detail: format!(
                            "the build links {library}, which only torch's CUDA builds ship"
                        ),
                        asserted: true,
                    },
                    span,
                );
            }
            EventKind::LinkerCannotFind { library } if library == "cuda" => {
                self.push(
                    Failure::Libcuda {
                        detail: format!("cannot find -l{library}"),
                    },
                    span,
                );
            }
            EventKind::DllLoadFailed { module, dll, why } => self.push(
                Failure::WindowsDll {
                    module: module.clone(),
                    dll: dll.clone(),
                    why: *why,
                },
                span,
            ),
            // A module the knowledge names as a package's compiled half is the same failure the
            // exception line gives (`own_module`), so the two merge into one incident.
            EventKind::CompiledModuleMissing { module } => self.push(
                own_module(module).unwrap_or_else(|| Failure::CompiledModuleMissing {
                    module: module.clone(),
                }),
                span,
            ),
            // The linker misses a library just as the loader would: the same failure.
            EventKind::LinkerCannotFind { library } => {
                self.scene.linking = true;
                self.push(
                    Failure::MissingLibrary {
                        name: format!("lib{library}.so"),
                        required_by: None,
                    },
                    span,
                );
            }
            EventKind::GpuLibrariesNotLoaded { framework, detail } => self.push(
                Failure::GpuLibraries {
                    framework: framework.clone(),
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::LibcudaNotFound { detail } => self.push(
                Failure::Libcuda {
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::NoCompiler { detail } => self.push(
                Failure::NoCompiler {
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::CudaHomeMissing { detail } => self.push(
                Failure::CudaHome {
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::CudaVersionMismatch {
                found,
                expected,
                detail,
            } => self.push(
                Failure::CudaVersion {
                    found: found.clone(),
                    expected: expected.clone(),
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::BuildDependencyMissing { module, too_new } => self.push(
                Failure::BuildDeps {
                    module: module.clone(),
                    too_new: *too_new,
                },
                span,
            ),
            EventKind::BuildIsolationNoTorch { package } => {
                self.push(
                    Failure::BuildIsolation {
                        package: package.clone(),
                    },
                    span,
                );
            }
            EventKind::XformersBuiltFor {
                built_torch,
                have_torch,
                built_cuda,
                built_python,
                have_python,
            } => {
                // xFormers prints the torch that runs (`you have 2.15.0+cu132`): the installed
                // torch, over any other version the text states for it.
                if let Some(have) = have_torch {
                    self.scene.versions.retain(|(s, _)| s != "torch");
                    self.scene
                        .versions
                        .insert(0, ("torch".to_owned(), have.clone()));
                }
                self.push(
                    Failure::XformersBuiltFor {
                        built_torch: built_torch.clone(),
                        have_torch: have_torch.clone(),
                        built_cuda: built_cuda.clone(),
                        built_python: built_python.clone(),
                        have_python: have_python.clone(),
                    },
                    span,
                );
            }
            EventKind::ExtensionsSkipped {
                package,
                torch,
                needs_torch,
            } => self.push(
                Failure::ExtensionsSkipped {
                    package: package.clone(),
                    torch: torch.clone(),
                    needs_torch: needs_torch.clone(),
                },
                span,
            ),
            EventKind::FlashAttnUnavailable { reason } => self.push(
                Failure::FlashAttn {
                    reason: reason.clone(),
                },
                span,
            ),
            EventKind::TorchOperatorMissing {
                operator,
                cuda_backend,
            } => {
                // The namespace's package where the tables know it (`fbgemm` is fbgemm-gpu's,
                // `torchvision` is torchvision's); any other namespace (`_C`, a user's `my_ops`)
                // names no distribution, and is left to the text around the failure.
                let package = operator.split("::").next().and_then(|ns| {
                    abidoc_knowledge::packages::package_for_op_namespace(ns).map(|p| p.name.clone())
                });
                self.push(
                    Failure::TorchOps {
                        what: if *cuda_backend {
                            format!("operator {operator} has no CUDA kernel (a CPU build of its package next to a CUDA torch)")
                        } else {
                            format!("operator {operator} does not exist")
                        },
                        package,
                        libraries: Vec::new(),
                    },
                    span,
                );
            }
            EventKind::CustomOpsNotLoadable { package } => self.push(
                Failure::TorchOps {
                    what: "custom C++ ops could not be loaded".into(),
                    package: package.clone().or(Some("torchvision".into())),
                    libraries: Vec::new(),
                },
                span,
            ),
            // A package's own library that torch.ops.load_library could not load: its operators
            // never register. Known packages are named by the path; the diagnosis reads the rest
            // (owner, why it failed) from the file when the environment is there.
            EventKind::LibraryNotLoaded { path } => self.push(
                Failure::TorchOps {
                    what: format!("torch could not load {}", basename(path)),
                    package: crate::kb::package_for_library(path).map(|p| p.name),
                    libraries: vec![path.clone()],
                },
                span,
            ),
            EventKind::NumpyAbi { detail } => self.push(
                Failure::NumpyAbi {
                    detail: detail.clone(),
                },
                span,
            ),
            // Only a name some release removed: a typo or a private name is the code's own bug.
            EventKind::NumpyNameMissing { name }
                if abidoc_knowledge::compat::numpy_removed(name).is_some() =>
            {
                self.push(Failure::NumpyRemoved { name: name.clone() }, span);
            }
            EventKind::CudaOom { tried, detail } => self.push(
                Failure::CudaOom {
                    tried: tried.clone(),
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::MambaFastPathUnavailable {
                model_class,
                kernel,
            } => {
                self.push(
                    Failure::MambaFastPath {
                        model_class: model_class.clone(),
                        kernel: kernel.clone(),
                    },
                    span,
                );
            }
            EventKind::GpuArchMissing {
                form,
                gpu,
                capability,
                supported,
                range,
                detail,
            } => self.push(
                Failure::GpuArch {
                    form: *form,
                    gpu: gpu.clone(),
                    capability: capability.clone(),
                    supported: supported.clone(),
                    range: range.clone(),
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::PjrtApiMismatch {
                plugin,
                plugin_api,
                framework_api,
                plugin_newer,
            } => self.push(
                Failure::PjrtApi {
                    plugin: plugin.clone(),
                    plugin_api: plugin_api.clone(),
                    framework_api: framework_api.clone(),
                    plugin_newer: *plugin_newer,
                },
                span,
            ),
            EventKind::FrameworkVersionRequired {
                package,
                framework,
                needs,
                installed,
            } => self.push(
                Failure::FrameworkVersion {
                    package: package.clone(),
                    framework: framework.clone(),
                    needs: needs.clone(),
                    installed: installed.clone(),
                },
                span,
            ),
            // torch's own Python API another package asks for: in the table (added in a
            // release), or any name of a torch module, of another release either way.
            EventKind::ModuleAttributeMissing { module, attribute }
                if abidoc_knowledge::compat::torch_api_added(&format!("{module}.{attribute}"))
                    .is_some()
                    || abidoc_syntax::scan::is_torch_family(module)
                        && !attribute.starts_with("_C") =>
            {
                self.push(
                    Failure::TorchApiNewer {
                        api: format!("{module}.{attribute}"),
                    },
                    span,
                );
            }
            // A package's compiled module lacking a function its Python code calls (`module
            // 'custom_rasterizer_kernel' has no attribute 'rasterize_image'`): the compiled
            // half is from another build or version than the Python half. Mamba's kernels
            // have their own reading.
            EventKind::ModuleAttributeMissing { module, attribute }
                if compiled_module(module)
                    && !attribute.starts_with("causal_conv1d_")
                    && !attribute.starts_with("selective_scan_") =>
            {
                self.push(
                    Failure::CompiledAttributeMissing {
                        module: module.clone(),
                        attribute: attribute.clone(),
                    },
                    span,
                );
            }
            // A name of torch's C++ API the headers do not declare, in a table of removals or
            // not (`c10::cuda::CUDACachingAllocator has not been declared`): the source was
            // written for another torch.
            // CPython's C API a Python release removed or changed: the build's source predates
            // this Python (its cause, for `build-failed`).
            EventKind::CompileNameMissing { name, .. } if python_capi(name).is_some() => {
                self.scene.python_capi.get_or_insert_with(|| name.clone());
                self.scene.build_failed.get_or_insert((span, None));
            }
            EventKind::CompileNameMissing { name, detail }
                if abidoc_knowledge::compat::torch_api_removed(name).is_some()
                    || ["c10::", "at::", "torch::"]
                        .iter()
                        .any(|p| name.starts_with(p))
                    || torch_moved_header(name) =>
            {
                self.push(
                    Failure::TorchApiRemoved {
                        name: name.clone(),
                        detail: detail.clone(),
                    },
                    span,
                );
            }
            EventKind::CompileNameMissing { name, detail }
                if abidoc_knowledge::system_libs::header(name).is_some()
                    || name.ends_with(".pc")
                    || name.ends_with("Config.cmake") =>
            {
                self.push(
                    Failure::HeaderMissing {
                        header: name.clone(),
                        detail: detail.clone(),
                    },
                    span,
                );
            }
            // A header no table knows, in a compiler's own words: which development package
            // ships it is for the person to find (Python's and CUDA's have their own codes).
            EventKind::CompileNameMissing { name, detail }
                if unknown_header(name)
                    && (detail.contains("fatal error") || detail.contains("include file")) =>
            {
                self.push(
                    Failure::HeaderMissing {
                        header: name.clone(),
                        detail: detail.clone(),
                    },
                    span,
                );
            }
            EventKind::CudaSetupFailed { package, detail } => self.push(
                Failure::CudaSetupFailed {
                    package: package.clone(),
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::PackageLibraryUnloadable { package, detail } => self.push(
                Failure::PackageLibraryUnloadable {
                    package: package.clone(),
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::CudnnVersionMismatch {
                framework,
                library,
                compiled,
                runtime,
                detail,
            } => self.push(
                Failure::CudnnVersion {
                    framework: framework.clone(),
                    library: library.clone(),
                    compiled: compiled.clone(),
                    runtime: runtime.clone(),
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::ToolkitArchRefused { arch, tool, detail } => self.push(
                Failure::ToolkitArch {
                    arch: arch.clone(),
                    tool: tool.clone(),
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::DriverTooOld { found, detail } => self.push(
                Failure::DriverTooOld {
                    found: found.clone(),
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::CpuOnlyTorch { detail } => self.push(
                Failure::CpuOnlyTorch {
                    detail: detail.clone(),
                    asserted: true,
                },
                span,
            ),
            EventKind::CudaUnavailable { detail, stopped } => self.push(
                Failure::CudaUnavailable {
                    detail: detail.clone(),
                    stopped: *stopped,
                },
                span,
            ),
            EventKind::WrongArchitecture {
                library,
                have,
                need,
                detail,
            } => self.push(
                Failure::WrongArchitecture {
                    library: library.clone(),
                    have: have.clone(),
                    need: need.clone(),
                    detail: detail.clone(),
                    on_disk: false,
                },
                span,
            ),
            EventKind::LibraryUnreadable { library, why } => self.push(
                Failure::LibraryUnreadable {
                    library: library.clone(),
                    why: why.clone(),
                },
                span,
            ),
            EventKind::IllegalInstruction { feature, detail } => self.push(
                Failure::IllegalInstruction {
                    feature: feature.clone(),
                    detail: detail.clone(),
                },
                span,
            ),
            EventKind::ExecutableStack { library } => self.push(
                Failure::ExecutableStack {
                    library: library.clone(),
                },
                span,
            ),
            EventKind::StaticTlsExhausted { library } => self.push(
                Failure::StaticTlsExhausted {
                    library: library.clone(),
                },
                span,
            ),
            EventKind::IncompatibleFunctionArguments {
                function,
                module,
                passed,
                accepts,
            } => self.push(
                Failure::BindingMismatch {
                    function: function.clone(),
                    module: module.clone(),
                    passed: *passed,
                    accepts: *accepts,
                },
                span,
            ),
            EventKind::JitOpUnavailable { package, op } => self.push(
                Failure::JitOpUnavailable {
                    package: package.clone(),
                    op: op.clone(),
                },
                span,
            ),
            EventKind::JitBuildStalled { root, op } => self.push(
                Failure::JitBuildStalled {
                    root: root.clone(),
                    op: op.clone(),
                },
                span,
            ),
            EventKind::IoBackendMissing {
                package,
                backend,
                newest,
            } => self.push(
                Failure::IoBackendMissing {
                    package: package.clone(),
                    backend: backend.clone(),
                    newest: *newest,
                },
                span,
            ),
            EventKind::NoMatchingDistribution {
                requirement,
                available,
            } => self.push(
                Failure::NoMatchingDistribution {
                    requirement: requirement.clone(),
                    available: available.clone(),
                },
                span,
            ),
            EventKind::WheelUnsupported { wheel } => self.push(
                Failure::WheelUnsupported {
                    wheel: wheel.clone(),
                },
                span,
            ),
            EventKind::OpenmpDuplicate {
                initializing,
                found,
                mkl_layer,
            } => self.push(
                Failure::OpenmpDuplicate {
                    initializing: initializing.clone(),
                    found: found.clone(),
                    mkl_layer: mkl_layer.clone(),
                },
                span,
            ),
            // pip's resolver kept a torch the package's metadata pins away from: a package that
            // links torch pins the torch its binaries were built for, and the installed one is
            // what runs (pip says which), as xFormers' own message says of itself.
            EventKind::PipRequirementConflict {
                package,
                version,
                requires,
                requirement,
                have,
            } if requires == "torch" && requirement.starts_with("==") => {
                let dist = crate::kb::normalize(package);
                let needs = requirement.trim_start_matches('=').to_owned();
                // The release pip kept, where no other line of the text said which one.
                if self.scene.version_of("torch").is_none() {
                    self.scene.versions.push(("torch".to_owned(), have.clone()));
                }
                // Only a local label or a patch release apart (`2.1.0+cu121` against `2.1.0`,
                // `2.3.0` against `2.3.1`): torch keeps its C++ ABI within a release line, so the
                // binaries load; pip's complaint is about the exact pin.
                let parse = abidoc_knowledge::Version::parse;
                let same_line = parse(&needs)
                    .zip(parse(have))
                    .is_some_and(|(a, b)| a.same_minor(&b));
                let built_for_torch = dist == "xformers"
                    || crate::kb::links_torch(&dist) == Some(true)
                    || crate::kb::requirements_pin_torch(&dist);
                if !same_line && built_for_torch {
                    self.push(
                        Failure::PinnedTorch {
                            package: dist,
                            version: version.clone(),
                            needs,
                            installed: have.clone(),
                        },
                        span,
                    );
                }
            }
            EventKind::PipUsingCached { file } if file.ends_with(".whl") => {
                self.push(Failure::StaleWheelCache { file: file.clone() }, span);
            }
            EventKind::GpuProcess { pid, memory, name } => {
                if self.scene.gpu_processes.len() < MAX_GPU_PROCESSES && self.pids.insert(*pid) {
                    self.scene
                        .gpu_processes
                        .push((*pid, memory.clone(), name.clone()));
                }
                self.push(Failure::StaleGpuProcesses, span);
            }
            // Only a subject's first version is read (`Scene::version_of`), and most logs print
            // one subject over and over: the raw spelling skips normalizing repeats.
            EventKind::Version { subject, version }
                if !self.raw_subjects.contains(subject.as_str()) =>
            {
                self.raw_subjects.insert(subject.clone());
                let subject = normalize_subject(subject);
                if !self.scene.versions.iter().any(|(s, _)| *s == subject) {
                    self.scene.versions.push((subject, version.clone()));
                }
            }
            EventKind::Frame { file, function, .. } => {
                self.last_frame = Some(file.clone());
                if self.scene.isolated_torch.is_none() {
                    let f = file.replace('\\', "/");
                    if f.contains("/pip-build-env-") && f.contains("-packages/torch/") {
                        self.scene.isolated_torch = Some(span);
                    }
                }
                // A Cython module's initialization (`File "src/cython_bbox.pyx", line 12, in
                // init cython_bbox`): that compiled module is the one being imported, and the
                // package directory its source sits in (`pesq/cypesq.pyx`, relative to the
                // build root) is its package.
                if let Some(m) = function
                    .as_deref()
                    .and_then(|f| f.strip_prefix("init "))
                    .filter(|_| file.ends_with(".pyx"))
                    .and_then(|m| m.split('.').next())
                    .filter(|m| plain_module(m))
                {
                    let dir = file.split(['/', '\\']).next().filter(|d| {
                        !file.starts_with(['/', '\\'])
                            && *d != m
                            && plain_module(d)
                            && *d != "cython"
                            && !crate::sources::names_no_project(d)
                            && file[d.len()..].starts_with(['/', '\\'])
                    });
                    self.scene
                        .mention(span.start, &distribution_of(dir.unwrap_or(m)));
                }
                if let Some((_, p)) = pip_build_dirs(file).into_iter().next() {
                    // pip runs this package's own setup: it is the one being built.
                    self.scene.mention(span.start, &p);
                    push_distinct(&mut self.scene.packages_built, &p);
                } else if let Some(p) = site_package_of(file) {
                    self.scene.mention(span.start, &p);
                } else if let Some(p) = setup_py_checkout(file) {
                    self.scene.mention(span.start, &p);
                } else if (file.starts_with('/') || file.contains('/') && !file.starts_with('<'))
                    && !file.contains("/site-packages/")
                    && !file.contains("/dist-packages/")
                    // Python's own library (`…/envs/mxnet/lib/python2.7/importlib/…`) is no
                    // project's checkout (a build tree's `lib/python_package` is one).
                    && !python_library(file)
                    && self.scene.checkout_files.len() < 32
                {
                    push_distinct(&mut self.scene.checkout_files, file);
                }
            }
            EventKind::CythonCompileFailed { file, cython3 } => {
                let three = *cython3 || self.scene.cython_failed == Some(true);
                self.scene.cython_failed = Some(three);
                // The source's package, where the file lies in one (`…/site-packages/mujoco_py/
                // cymj.pyx`, pip's build directory).
                let package = file.as_deref().and_then(|f| {
                    pip_build_dirs(f)
                        .into_iter()
                        .next()
                        .map(|(_, p)| p)
                        .or_else(|| site_package_of(f))
                });
                if let Some(p) = &package {
                    self.scene.mention(span.start, p);
                }
                match &mut self.scene.build_failed {
                    None => self.scene.build_failed = Some((span, package)),
                    Some((_, named @ None)) => *named = package,
                    Some(_) => {}
                }
            }
            EventKind::PipBuildFailed { package } => {
                match &mut self.scene.build_failed {
                    None => self.scene.build_failed = Some((span, package.clone())),
                    Some((_, named @ None)) => named.clone_from(package),
                    Some(_) => {}
                }
                if let Some(p) = package {
                    self.scene.mention(span.start, &crate::kb::normalize(p));
                    push_distinct(&mut self.scene.packages_built, p);
                }
            }
            EventKind::PipBuildingWheel { package: p, built } => {
                self.scene.mention(span.start, &crate::kb::normalize(p));
                // A wheel that built (`... done`) is no failure's package.
                if !built {
                    push_distinct(&mut self.scene.packages_built, p);
                }
            }
            EventKind::JitBuildFailed { extension } => {
                self.scene.build_failed.get_or_insert((span, None));
                if !extension.is_empty() {
                    self.scene
                        .jit_extension
                        .get_or_insert_with(|| extension.clone());
                }
            }
            EventKind::Model { id } => push_distinct(&mut self.scene.models, id),
            EventKind::SuggestedCommand { command } => {
                push_distinct(&mut self.scene.suggested_commands, command);
            }
            EventKind::UserPipInstall { command } => {
                push_distinct(&mut self.scene.user_commands, command);
                // A repository pip builds (`git+https://…/lietorch.git`) names the package.
                if let Some(name) = command
                    .split_whitespace()
                    .find_map(|w| w.trim_matches(['\'', '"']).strip_prefix("git+"))
                    .and_then(|url| url.split(['@', '#']).next())
                    .and_then(|url| url.trim_end_matches('/').rsplit('/').next())
                    .map(|n| n.trim_end_matches(".git"))
                    .filter(|n| {
                        !n.is_empty()
                            && n.bytes()
                                .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
                    })
                {
                    let name = crate::kb::normalize(name);
                    push_distinct(&mut self.scene.packages_built, &name);
                    self.scene.mention(span.start, &name);
                }
            }
            EventKind::WrappedImportError { what } => {
                push_distinct(&mut self.scene.wrapped_imports, what);
            }
            EventKind::CompileFailed { detail } => {
                self.scene.compile_failed = true;
                self.scene.cuda_math_glibc |= abidoc_syntax::scan::glibc_math_clash(detail);
                // A compiler's or ninja's failure is a build's failure too, when nothing names one.
                self.scene.build_failed.get_or_insert((span, None));
            }
            EventKind::PrecompiledWheelNotFound => self.scene.precompiled_wheel_missing = true,
            EventKind::InplaceTargetMissing { dir } => {
                self.scene
                    .compile_cause
                    .get_or_insert(abidoc_syntax::CompileCause::InplaceDirMissing);
                self.scene.inplace_dir.get_or_insert_with(|| dir.clone());
                self.scene.build_failed.get_or_insert((span, None));
            }
            EventKind::KnownCompileCause { cause } => {
                self.scene.compile_cause.get_or_insert(*cause);
                self.scene.compile_failed = true;
                self.scene.build_failed.get_or_insert((span, None));
            }
            EventKind::CompilerKilled { out_of_heap } => {
                self.scene.compiler_killed |= !out_of_heap;
                self.scene.compiler_out_of_heap |= out_of_heap;
            }
            EventKind::GuessingWheelUrl { url } => {
                self.scene.guessed_wheel.get_or_insert_with(|| url.clone());
            }
            EventKind::BuildRequirementsFailed => {
                self.scene.requirements_step_failed.get_or_insert(span);
            }
            // A package's loader finding none of its compiled libraries: PyG's packages look
            // each up with `importlib.machinery.PathFinder().find_spec(…)`, whose `None` fails
            // on `.origin` in the package's own `__init__.py`.
            EventKind::Exception { message, .. }
                if message.contains("'NoneType' object has no attribute 'origin'")
                    && let Some(top) = self
                        .last_frame
                        .as_deref()
                        .map(|f| f.replace('\\', "/"))
                        .and_then(|f| {
                            f.strip_suffix("/__init__.py")
                                .and_then(|d| d.rsplit('/').next())
                                .map(str::to_owned)
                        })
                        .filter(|t| plain_module(t) && t.contains('_')) =>
            {
                self.push(Failure::CompiledModuleMissing { module: top }, span);
            }
            // Also inside a wrapper's message (AWS Lambda's `Runtime.ImportModuleError: Unable
            // to import module 'app': No module named 'pydantic_core._pydantic_core'`).
            EventKind::Exception { message, .. } if message.contains("No module named") => {
                let at = message.find("No module named").unwrap_or(0);
                let module = message[at..]
                    .trim_start_matches("No module named")
                    .trim()
                    .trim_matches(['\'', '"', '`']);
                if let Some(f) = own_module(module) {
                    self.push(f, span);
                } else if checkout_extension_import(module, self.last_frame.as_deref())
                    || compiled_module_name(module)
                {
                    self.push(
                        Failure::CompiledModuleMissing {
                            module: module.to_owned(),
                        },
                        span,
                    );
                }
            }
            // transformers' check for a model's remote code: `This modeling file requires the
            // following packages that were not found in your environment: flash_attn`.
            EventKind::Exception { message, .. }
                if message.contains("not found in your environment:")
                    && message
                        .rsplit(':')
                        .next()
                        .is_some_and(|l| l.split([',', ' ', '.']).any(|w| w == "flash_attn")) =>
            {
                self.push(
                    Failure::FlashAttn {
                        reason: message.clone(),
                    },
                    span,
                );
            }
            EventKind::Exception { message, .. } if message.contains("uv pip") => {
                self.scene.used_uv = true;
            }
            EventKind::Installer { name } if name == "poetry" => {
                self.scene.used_poetry = true;
            }
            EventKind::TorchExtensionBuild => self.scene.torch_extension_build = true,
            _ => {}
        }
    }

    /// The incidents in order of first appearance, and the scene.
    pub fn finish(self) -> (Vec<Incident>, Scene) {
        let mut scene = self.scene;
        scene.order_mentions();
        let mut out: Vec<Incident> = self.incidents.into_iter().map(|(_, i)| i).collect();
        // Cached wheels are only suspicious when something was built or failed to load around them.
        let loading_failed = out
            .iter()
            .any(|i| matches!(i.failure, Failure::UndefinedSymbol { .. }));
        if !loading_failed {
            out.retain(|i| !matches!(i.failure, Failure::StaleWheelCache { .. }));
        }
        // torch.ops.load_library's `Could not load this library: PATH` restates a load failure:
        // when the text also prints the loader's own reason (chained above it in torch 2.x,
        // torchcodec 0.4 on), that reason is the diagnosis, and the restatement adds nothing.
        let loader_reason = out.iter().any(|i| {
            matches!(
                i.failure,
                Failure::MissingLibrary { .. }
                    | Failure::UndefinedSymbol { .. }
                    | Failure::VersionNotFound { .. }
            )
        });
        if loader_reason {
            out.retain(|i| {
                !matches!(&i.failure, Failure::TorchOps { libraries, .. } if !libraries.is_empty())
            });
        }
        // A package's summary of its libraries not loading says less than any line naming one
        // of them (the loader's reason, or torch's `Could not load this library: PATH`).
        let library_named = out.iter().any(
            |i| matches!(&i.failure, Failure::TorchOps { libraries, .. } if !libraries.is_empty()),
        );
        if loader_reason || library_named {
            out.retain(|i| !matches!(i.failure, Failure::PackageLibraryUnloadable { .. }));
        }
        // A package's after-the-fact report of its JIT op missing restates any failure the text
        // shows of that op itself (its library missing, its build failing).
        let shown: Vec<String> = out
            .iter()
            .filter_map(|i| match &i.failure {
                Failure::MissingLibrary { name, required_by } => {
                    Some(format!("{name} {}", required_by.as_deref().unwrap_or("")))
                }
                Failure::UndefinedSymbol { library, .. } => library.clone(),
                _ => None,
            })
            .chain(scene.jit_extension.clone())
            .collect();
        out.retain(|i| match &i.failure {
            Failure::JitOpUnavailable { op, .. } => !shown.iter().any(|s| s.contains(op.as_str())),
            _ => true,
        });
        // Only several GPU processes of one command are a finding; one process is just a table row.
        let stale = stale_process_groups(&scene.gpu_processes);
        let has_oom = out
            .iter()
            .any(|i| matches!(i.failure, Failure::CudaOom { .. }));
        if stale == 0 || has_oom {
            out.retain(|i| !matches!(i.failure, Failure::StaleGpuProcesses));
        }
        // CUDA unavailable is a CPU-only torch when the text's torch says `+cpu` (and the
        // assertion itself was not printed); otherwise it has too many causes to name one.
        let cpu_torch = scene
            .version_of("torch")
            .is_some_and(|v| v.ends_with("+cpu"));
        let asserted = out
            .iter()
            .any(|i| matches!(i.failure, Failure::CpuOnlyTorch { .. }));
        for i in &mut out {
            if let Failure::CudaUnavailable { detail, .. } = &i.failure
                && cpu_torch
                && !asserted
            {
                i.failure = Failure::CpuOnlyTorch {
                    detail: detail.clone(),
                    asserted: false,
                };
            }
        }
        // The rest wait for the whole text's facts (an ARM machine, whose PyPI torch is
        // CPU-only): `codes::diagnose` decides, after the scene has read them.
        if asserted {
            out.retain(|i| !matches!(i.failure, Failure::CudaUnavailable { .. }));
        }
        // ONNX Runtime's general advice (`Please install the correct version of CUDA and cuDNN
        // as mentioned in the GPU requirements page`) follows the loader's own failure when the
        // text has it: read alone only.
        let advice = |f: &Failure| matches!(f, Failure::GpuLibraries { detail, .. } if detail.starts_with("Please install"));
        if out.iter().any(|i| !advice(&i.failure)) {
            out.retain(|i| !advice(&i.failure));
        }
        // A library's unversioned name read from a follow-up line (CTranslate2's `Cannot load
        // symbol cudnnCreate…` after `Unable to load any of {libcudnn_cnn.so.9, …}`) says no
        // more than the numbered library of the same product the text names.
        // (Windows names the same product's DLL: `cudnn_ops64_9.dll`.)
        let numbered: Vec<String> = out
            .iter()
            .filter_map(|i| match &i.failure {
                Failure::MissingLibrary { name, .. } if !basename(name).ends_with(".so") => {
                    Some(basename(name).to_ascii_lowercase())
                }
                Failure::WindowsDll { dll: Some(d), .. } => Some(basename(d).to_ascii_lowercase()),
                _ => None,
            })
            .collect();
        out.retain(|i| match &i.failure {
            Failure::MissingLibrary { name, .. } => basename(name)
                .strip_suffix(".so")
                .map(str::to_ascii_lowercase)
                .is_none_or(|stem| {
                    let bare = stem.strip_prefix("lib").unwrap_or(&stem).to_owned();
                    // The same product: the name, then its so-number, macOS' suffix or a
                    // sub-library (`libcudnn.so.9`, `libsndfile.dylib`, `libcudnn_cnn.so.9`), or Windows' DLL of it
                    // (`cudnn_ops64_9.dll`, `cublas64_12.dll`); `libz` is not `libzstd`.
                    let same = |n: &str, head: &str| {
                        n.strip_prefix(head).is_some_and(|rest| {
                            rest.starts_with(['.', '_']) || rest.starts_with("64")
                        })
                    };
                    !numbered.iter().any(|n| same(n, &stem) || same(n, &bare))
                }),
            _ => true,
        });
        // The framework's summary says no more than the loader's lines that name the libraries.
        if out
            .iter()
            .any(|i| matches!(i.failure, Failure::MissingLibrary { .. }))
        {
            out.retain(|i| !matches!(i.failure, Failure::GpuLibraries { .. }));
        }
        // pip's build environment failed getting the requirements of a package that builds
        // against torch, and the text (cut there, as pasted) says nothing more: its setup
        // imports torch, which an isolated build does not have.
        if out.is_empty()
            && let Some(at) = scene.requirements_step_failed
            && let Some(pkg) = scene
                .packages_built
                .iter()
                .find(|p| abidoc_knowledge::packages::package(p).is_some_and(|f| f.links_torch))
        {
            out.push(Incident {
                failure: Failure::BuildIsolation {
                    package: Some(pkg.clone()),
                },
                primary: at,
                related: Vec::new(),
            });
        }
        // A build that failed inside torch's own build code as pip's isolated environment had it
        // (its frames under `pip-build-env-…/overlay`), and nothing above says why: the build
        // ran against a torch pip downloaded for it, which --no-build-isolation replaces with
        // the installed one.
        if out.is_empty()
            && let Some(at) = scene.isolated_torch
        {
            out.push(Incident {
                failure: Failure::BuildIsolation {
                    package: scene
                        .build_failed
                        .as_ref()
                        .and_then(|(_, p)| p.clone())
                        .or_else(|| scene.packages_built.first().cloned()),
                },
                primary: at,
                related: Vec::new(),
            });
        }
        // A build failed and nothing above says why: the failure itself, its cause unread.
        if out.is_empty()
            && let Some((at, package)) = &scene.build_failed
        {
            out.push(Incident {
                failure: Failure::BuildFailed {
                    package: package.clone(),
                },
                primary: *at,
                related: Vec::new(),
            });
        }
        (out, scene)
    }
}

/// A module named as only compiled extensions are (`pointgroup_ops`, `quant_cuda`,
/// `iou3d_cuda`, `modules._ext`, `torch_npu._C`): `setup.py` names its extension so, and no pure
/// Python package is. Missing, it was never built (or built elsewhere).
fn compiled_module_name(module: &str) -> bool {
    let last = module.rsplit('.').next().unwrap_or(module);
    let plain = !last.is_empty()
        && last.len() <= 64
        && module
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.');
    if !plain {
        return false;
    }
    if matches!(last, "_C" | "_ext" | "__ext") {
        return true;
    }
    // A package the tables know as pure Python is not missing a compiled part.
    let top = module.split('.').next().unwrap_or(module);
    if abidoc_knowledge::packages::package_for_module(top).is_some_and(|p| !p.is_compiled()) {
        return false;
    }
    let stem = last.trim_start_matches('_');
    let ends = |suffixes: &[&str]| {
        suffixes
            .iter()
            .any(|s| stem.len() > s.len() && stem.ends_with(s))
    };
    // Build suffixes only extensions take, anywhere (`mmdet.ops.dcn.deform_conv_cuda`).
    if ends(&["_cuda", "_ext", "_cpp", "_cuda_kernel"]) {
        return true;
    }
    // `_ops` and `_kernels` also name Python modules and packages (`tensorflow.python.ops.
    // numpy_ops`, `liger_kernel`, `triton_kernels`): only a private module so named
    // (`vllm._moe_ops`) or a top-level `*_ops` one (`pointgroup_ops`) reads as compiled.
    let private = last.starts_with('_');
    let dotted = module.contains('.');
    (private && ends(&["_ops", "_kernels", "_kernel"])) || (!dotted && ends(&["_ops"]))
}

/// `No module named 'X'` for a compiled module a known package ships: the package is installed
/// without its compiled half.
/// A plain module imported by a checkout's own source from the extension folder named after
/// it (`PoinTr/extensions/chamfer_dist/__init__.py` doing `import chamfer`): the extension the
/// checkout builds there (`python setup.py install` in that folder), never built or installed
/// elsewhere. Installed packages' frames, dotted modules and modules the folder is not named
/// after (a missing `numpy`) are not read this way.
fn checkout_extension_import(module: &str, frame: Option<&str>) -> bool {
    let Some(file) = frame else { return false };
    let file = file.replace('\\', "/");
    let plain = !module.is_empty()
        && module.len() <= 64
        && module
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_');
    let installed = file.contains("/site-packages/") || file.contains("/dist-packages/");
    let dirs: Vec<&str> = file.split('/').collect();
    let in_extensions = dirs[..dirs.len().saturating_sub(1)].iter().any(|d| {
        matches!(
            *d,
            "extensions" | "ext" | "_ext" | "csrc" | "cuda_ops" | "ops"
        )
    });
    let folder = dirs
        .len()
        .checked_sub(2)
        .and_then(|i| dirs.get(i))
        .copied()
        .unwrap_or("");
    let named_after = module.len() >= 3
        && folder.len() >= 3
        && (folder.starts_with(module) || module.starts_with(folder));
    plain && !installed && in_extensions && named_after
}

/// A module that is a package's compiled extension: named as extensions are (`_C`,
/// `*_cuda`, `*_kernel`), or listed among a known package's compiled modules.
fn compiled_module(module: &str) -> bool {
    let leaf = module.rsplit('.').next().unwrap_or(module);
    abidoc_syntax::scan::is_compiled_name(leaf)
        || abidoc_knowledge::packages::package_for_module(module)
            .is_some_and(|p| lists_module(p, module))
}

/// Whether `module` is one of the package's compiled modules, by its full name or, undotted, by
/// its own name: SWIG's and Python 2's wrappers import the compiled module bare (`import
/// _gdal_array` inside osgeo), and the error names it so.
/// A bare name counts only when it is private and carries its package's own name (`_gdal_array`,
/// `_swigfaiss`): a user's `image.py` or `_internal` is no package's module.
fn lists_module(p: &abidoc_knowledge::packages::Package, module: &str) -> bool {
    let own_name = || {
        let leaf = module.to_ascii_lowercase();
        std::iter::once(p.name.as_str())
            .chain(p.import_names.iter().map(String::as_str))
            .map(|n| n.to_ascii_lowercase().replace('-', "_"))
            .any(|n| n.len() >= 3 && leaf.contains(&n))
    };
    p.modules.iter().any(|m| {
        m == module
            || (!module.contains('.')
                && module.starts_with('_')
                && own_name()
                && m.rsplit_once('.').is_some_and(|(_, l)| l == module))
    })
}

fn own_module(module: &str) -> Option<Failure> {
    abidoc_knowledge::packages::package_for_module(module)
        .filter(|p| lists_module(p, module))
        .map(|p| Failure::OwnModuleMissing {
            module: module.to_owned(),
            package: abidoc_knowledge::packages::untagged_name(p).to_owned(),
        })
}

/// The CUDA toolkit's stub of a driver library (`…/lib64/stubs/libcuda.so`), made for linking
/// only, loaded at run time in place of the driver's own (its directory on LD_LIBRARY_PATH):
/// whatever it lacks, the fix is the stub's directory off the search path.
pub(crate) fn is_stub_driver(lib: &str) -> bool {
    let file = lib.rsplit(['/', '\\']).next().unwrap_or(lib);
    let in_stubs = lib.contains("/stubs/") || lib.contains("\\stubs\\");
    in_stubs && (file.starts_with("libcuda.so") || file.starts_with("libnvidia-ml.so"))
}

/// An undefined CUDA driver function (`cuLaunchKernel`) in a launcher Triton or Inductor built
/// into its cache (`/tmp/torchinductor_<user>/triton/…/__triton_launcher.so`,
/// `~/.triton/cache/…`): the launcher was linked without libcuda, and the cache keeps it.
fn cached_launcher(library: Option<&str>, symbol: &str) -> Option<String> {
    let lib = library?;
    // Functions every driver since CUDA 10 exports: their absence means libcuda was not linked.
    // Newer ones (`cuTensorMapEncodeTiled`, `cuGreenCtx*`) are missing from an older driver
    // instead, another failure.
    const SINCE_EVER: &[&str] = &[
        "cuLaunchKernel",
        "cuModuleGetFunction",
        "cuModuleLoadData",
        "cuModuleLoadDataEx",
        "cuModuleUnload",
        "cuFuncGetAttribute",
        "cuFuncSetAttribute",
        "cuFuncSetCacheConfig",
        "cuGetErrorString",
        "cuPointerGetAttribute",
        "cuDeviceGetAttribute",
        "cuCtxGetCurrent",
        "cuInit",
    ];
    let driver_fn = SINCE_EVER.contains(&symbol);
    let cached = lib.contains("/torchinductor_") || lib.contains("/.triton/cache/");
    (driver_fn && cached).then(|| format!("{lib}: undefined symbol: {symbol}"))
}

/// Whether `torch` at `at` is code (a path, `import torch`, `torch.x`, `torch==2.1`), not the
/// word every message about torch uses ("the version torch was compiled with").
fn torch_in_code(text: &str, at: usize) -> bool {
    let after = text.as_bytes().get(at + "torch".len()).copied();
    let before = text.get(..at).unwrap_or("").trim_end_matches(' ');
    matches!(
        after,
        Some(b'/' | b'\\' | b'.' | b'=' | b'<' | b'>' | b'\'' | b'"')
    ) || before.ends_with("import")
        || before.ends_with("from")
        || before.ends_with('/')
}

/// The first extension among `list`, else torch.
/// A compiled package built on GitHub's runners keeps its sources' paths in its messages
/// (`CUDA error 35 at /home/runner/work/ctransformers/ctransformers/models/ggml/ggml-cuda.cu`,
/// Windows' `D:\a\bitsandbytes\bitsandbytes\csrc\ops.cu`): the checkout is the repository,
/// named twice, and the repository is the package.
fn ci_checkouts(piece: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (marker, sep) in [("/home/runner/work/", '/'), (":\\a\\", '\\')] {
        let mut from = 0;
        while let Some(i) = piece[from..].find(marker) {
            let at = from + i;
            let rest = &piece[at + marker.len()..];
            let mut parts = rest.splitn(3, sep);
            if let (Some(a), Some(b)) = (parts.next(), parts.next())
                && a == b
                && is_project_dir(a)
                && !matches!(a, "pytorch" | "torch")
            {
                out.push((at, crate::kb::normalize(a)));
            }
            from = at + marker.len();
            if out.len() >= 16 {
                break;
            }
        }
    }
    out
}

/// A C/C++ header (by its extension) that neither the interpreter (Python.h: its own form),
/// the CUDA toolkit (`cuda_home`'s forms) nor torch (`compat.toml`) ships.
fn unknown_header(name: &str) -> bool {
    const CUDA: &[&str] = &[
        "cuda",
        "cublas",
        "cusparse",
        "curand",
        "cufft",
        "cusolver",
        "nvrtc",
        "nvToolsExt",
        "npp",
    ];
    let base = name.rsplit('/').next().unwrap_or(name);
    abidoc_syntax::scan::is_header_name(name)
        && base != "Python.h"
        && !name.starts_with("TH/")
        && !name.starts_with("THC/")
        && !name.starts_with("ATen/")
        && !name.starts_with("torch/")
        && !name.starts_with("c10/")
        && !CUDA.iter().any(|c| base.starts_with(c))
}

/// A traceback frame in a checkout's own `setup.py` (`morphologicalpool/setup.py`,
/// `/home/me/DCNv2/setup.py`): the directory holding it is the project being built. pip's
/// temporary build directories and generic folders name nothing.
fn setup_py_checkout(file: &str) -> Option<String> {
    let path = file.replace('\\', "/");
    let dir = path.strip_suffix("/setup.py")?;
    let dir = dir.rsplit('/').next().unwrap_or(dir);
    let ok = is_project_dir(dir)
        && !dir.starts_with("pip-")
        && !dir.starts_with('.')
        && !crate::sources::names_no_project(dir);
    ok.then(|| crate::kb::normalize(dir))
}

/// onnxruntime tags every error it raises (`[ONNXRuntimeError] : 1 : FAIL : …`), a CUDA error
/// inside a session included: the tag names the package, its GPU build when the line is about
/// CUDA.
fn onnxruntime_tags(piece: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = piece[from..].find("ONNXRuntimeError") {
        let at = from + i;
        from = at + "ONNXRuntimeError".len();
        let line_end = piece[at..].find('\n').map_or(piece.len(), |e| at + e);
        let name = if piece[at..line_end].contains("CUDA") {
            "onnxruntime-gpu"
        } else {
            "onnxruntime"
        };
        out.push((at, name.to_owned()));
        if out.len() >= 16 {
            break;
        }
    }
    out
}

/// A directory name that can be a project's (a checkout, pip's build directory): a short plain
/// name, no path or quoting characters.
fn is_project_dir(name: &str) -> bool {
    name.len() > 1
        && name.len() <= 64
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
}

/// pip's temporary build directory of a source distribution (`/tmp/pip-install-n4exwr7n/fcos/`,
/// `…\pip-install-…\flash-attn_5c2e…\`) is named after the project it builds.
fn pip_build_dirs(piece: &str) -> Vec<(usize, String)> {
    abidoc_syntax::pip::build_dirs(piece)
        .into_iter()
        .filter(|(_, name)| is_project_dir(name) && !crate::sources::names_no_project(name))
        .map(|(at, name)| (at, crate::kb::normalize(name)))
        .collect()
}

/// A compiler's message about a project's own source (`pycocotools/_mask.c:4:20: fatal error:
/// …`, `gcc: error: DCNv2/src/dcn.c: No such file`): the project the path names.
fn compiler_sources(piece: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in piece.split_inclusive('\n') {
        if (line.contains(": fatal error")
            || line.contains(": error: ")
            || line.contains(": error C"))
            && let Some(p) = crate::sources::source_project(line)
            && p != "torch"
        {
            out.push((at, p));
            if out.len() >= 16 {
                break;
            }
        }
        at += line.len();
    }
    out
}

/// setuptools' build directories (`-o build/temp.macosx-10.9-x86_64-3.7/pygtftk/stats/x.o`,
/// `build\lib.win-amd64-cpython-312\py_gd\py_gd.cp312-win_amd64.pyd`): the package directory
/// under them is the package being compiled.
fn setuptools_build_dirs(piece: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for marker in ["build/temp.", "build/lib.", "build\\temp.", "build\\lib."] {
        for (at, _) in piece.match_indices(marker) {
            if out.len() >= 16 {
                return out;
            }
            let rest = &piece[at + marker.len()..];
            // Past the platform directory (`macosx-10.9-x86_64-3.7`), the next directory.
            let Some(sep) = rest.find(['/', '\\']) else {
                continue;
            };
            if rest[..sep].contains(char::is_whitespace) {
                continue;
            }
            let after = &rest[sep + 1..];
            let Some(end) = after.find(['/', '\\']) else {
                continue;
            };
            let top = &after[..end];
            // MSVC's configuration directories are no package (source folders are
            // `names_no_project`'s).
            const NOT_PACKAGES: &[&str] =
                &["Release", "Debug", "RelWithDebInfo", "MinSizeRel", "cpp"];
            if plain_module(top)
                && !NOT_PACKAGES.contains(&top)
                && !top.starts_with('_')
                && !crate::sources::names_no_project(top)
            {
                out.push((at, distribution_of(top)));
            }
        }
    }
    out
}

/// setuptools' `building 'TTS.tts.utils.monotonic_align.core' extension`: the top-level
/// package of the extension being compiled.
fn setuptools_extensions(piece: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = piece[from..].find("building '") {
        let at = from + i;
        from = at + 10;
        let rest = &piece[from..];
        let Some(e) = rest.find("' extension") else {
            continue;
        };
        let top = rest[..e].split('.').next().unwrap_or("");
        let ok = top.len() > 1
            && top.len() <= 64
            && top.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
            && !top.starts_with('_')
            && !crate::sources::names_no_project(top);
        if ok {
            out.push((at, distribution_of(top)));
        }
        if out.len() >= 16 {
            break;
        }
    }
    out
}

/// The first Python version a path in `piece` shows: a `pythonX.Y` directory followed by a
/// separator, or a CPython extension tag (`cpython-37m`, `cpython-312`).
fn python_in_paths(piece: &str) -> Option<(u32, u32)> {
    let version = |digits: &str, dotted: bool| -> Option<(u32, u32)> {
        if dotted {
            let (a, b) = digits.split_once('.')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        } else {
            let (a, b) = digits.split_at(1);
            Some((a.parse().ok()?, b.parse().ok()?))
        }
    };
    let mut best: Option<(usize, (u32, u32))> = None;
    for (needle, dotted) in [
        ("/python3.", true),
        ("\\python3.", true),
        ("cpython-3", false),
    ] {
        let Some(i) = piece.find(needle) else {
            continue;
        };
        let start = i + needle.len() - if dotted { 2 } else { 1 };
        let r = &piece[start..];
        let n = r
            .bytes()
            .take_while(|c| c.is_ascii_digit() || (dotted && *c == b'.'))
            .count()
            .min(5);
        let after = r.as_bytes().get(n).copied();
        let ends_right = if dotted {
            matches!(after, Some(b'/' | b'\\'))
        } else {
            matches!(after, Some(b'm' | b'-' | b'd'))
        };
        if let Some(v) = ends_right.then(|| version(&r[..n], dotted)).flatten()
            && v.0 == 3
            && best.is_none_or(|(j, _)| i < j)
        {
            best = Some((i, v));
        }
    }
    best.map(|(_, v)| v)
}

/// A traceback's source line importing a compiled module (`from frnn import _C`, `import
/// pointnet2._ext`): its top-level package is the one whose build the failure below concerns,
/// whether or not the knowledge knows it (a research extension, a source checkout).
fn compiled_imports(imports: &[Import<'_>]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for &Import {
        at, module, names, ..
    } in imports
    {
        let top = module.split('.').next().unwrap_or("");
        let valid = plain_module(top);
        let compiled = abidoc_syntax::scan::is_compiled_name;
        let is_compiled = module.split('.').skip(1).any(compiled)
            || names
                .unwrap_or("")
                .split([',', ' ', '(', ')'])
                .map(str::trim)
                .any(compiled);
        if valid && is_compiled && !matches!(top, "torch" | "torchvision" | "torchaudio") {
            out.push((at, distribution_of(top)));
        }
    }
    out
}

/// Standard-library and packaging modules whose exception classes a failure's last line often
/// carries (`subprocess.CalledProcessError` after a build): they are never the package.
const NOT_A_PACKAGE: &[&str] = &[
    "subprocess",
    "os",
    "re",
    "site",
    "sysconfig",
    "concurrent",
    "multiprocessing",
    "urllib",
    "http",
    "json",
    "ctypes",
    "importlib",
    "setuptools",
    "distutils",
    "pip",
    "asyncio",
    "socket",
    "ssl",
    "zipfile",
    "tarfile",
    "shutil",
    "pickle",
    "_pickle",
    "queue",
    "email",
    "xml",
    "sqlite3",
    "builtins",
    "io",
    "typing",
    "collections",
    "unittest",
    "logging",
    "argparse",
    "configparser",
    "zlib",
    "lzma",
    "gzip",
    "codecs",
    "encodings",
    "threading",
    "tempfile",
    "pathlib",
    "inspect",
    "struct",
    "decimal",
    "warnings",
    "platform",
    "sys",
    "traceback",
    "uuid",
    "requests",
    "urllib3",
    "pkg_resources",
    "packaging",
    "torch",
    "triton",
    "IPython",
    "ipykernel",
];

/// A package's RuntimeWarning about the machine it runs on (polars' CPU check) names the package
/// that will fail; a UserWarning is as often an importer about another package (PyG about
/// torch-sparse), which names the wrong one.
fn runtime_warning(rest: &str) -> bool {
    rest.strip_prefix(':')
        .map(|r| r.trim_start_matches(|c: char| c.is_ascii_digit()))
        .filter(|r| r.len() + 1 < rest.len())
        .and_then(|r| r.strip_prefix(": "))
        .is_some_and(|r| r.starts_with("RuntimeWarning"))
}

/// Python logging's default format names the logger, most often its module
/// (`INFO:faster_whisper:Processing audio`): a package the tables know as compiled, or any
/// plain top-level name but the script's own (`__main__`, `root`).
fn logger_names(piece: &str) -> Vec<(usize, String)> {
    const LEVELS: &[&str] = &["DEBUG:", "INFO:", "WARNING:", "ERROR:", "CRITICAL:"];
    let mut out = Vec::new();
    for level in LEVELS {
        for (i, _) in piece.match_indices(level) {
            let before = piece[..i].chars().next_back();
            if before.is_some_and(|c| !(c.is_whitespace() || c == '|')) {
                continue;
            }
            let rest = &piece[i + level.len()..];
            let n = rest
                .bytes()
                .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
                .count();
            if !rest[n..].starts_with(':') || n == 0 {
                continue;
            }
            let top = rest[..n].split('.').next().unwrap_or("");
            if matches!(top, "__main__" | "root" | "absl" | "py" | "torch") || top.starts_with('_')
            {
                continue;
            }
            let known = abidoc_knowledge::packages::package_for_module(top);
            match known {
                Some(p) if p.is_compiled() => {
                    out.push((i, abidoc_knowledge::packages::untagged_name(p).to_owned()));
                }
                Some(_) => {}
                None if plain_module(top)
                    && abidoc_knowledge::names::distribution_of_import(top).is_some() =>
                {
                    out.push((i, distribution_of(top)));
                }
                None => {}
            }
            if out.len() >= 16 {
                return out;
            }
        }
    }
    out
}

/// Compiled files of an environment's packages that a message shows outside any traceback
/// frame (`…/site-packages/samplerate/_samplerate_data/libsamplerate.dylib' (mach-o file, …`,
/// a loader's or a crash's line): the directory names the package, known to the tables or not.
fn site_package_paths(piece: &str) -> Vec<(usize, String)> {
    const START: &[char] = &['"', '\'', '(', '`', '[', '\u{201c}', '\u{2018}'];
    const END: &[char] = &['"', '\'', ')', ':', ',', '`', ']', '\u{201d}', '\u{2019}'];
    let mut out = Vec::new();
    for marker in ["site-packages", "dist-packages"] {
        for (i, _) in piece.match_indices(marker) {
            let start = piece[..i]
                .rfind(|c: char| c.is_whitespace() || START.contains(&c))
                .map_or(0, |k| {
                    k + piece[k..].chars().next().map_or(1, char::len_utf8)
                });
            let end = piece[i..]
                .find(|c: char| c.is_whitespace() || END.contains(&c))
                .map_or(piece.len(), |k| i + k);
            let path = &piece[start..end];
            let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
            let compiled = [".so", ".dylib", ".pyd", ".dll"]
                .iter()
                .any(|x| file.ends_with(x) || file.contains(&format!("{x}.")));
            // Python's warnings print their source as `…/polars/_cpu_check.py:258: RuntimeWarning:`:
            // the package warning about the machine it runs on (its CPU check).
            let warning_source = file.ends_with(".py") && runtime_warning(&piece[end..]);
            if !(compiled || warning_source) || path.contains("/../") || path.contains("\\..\\") {
                continue;
            }
            let after = &piece[i + marker.len()..end];
            let top = after
                .trim_start_matches(['/', '\\'])
                .split(['/', '\\'])
                .next()
                .unwrap_or("");
            // auditwheel's and delocate's vendored libraries (`numpy.libs/`, `PIL/.dylibs`) and
            // a package's data directory (`_soundfile_data/libsndfile.so`) are their package's;
            // `nvidia/` is the namespace of every CUDA wheel, not a package.
            let vendored = top
                .strip_suffix(".libs")
                .or_else(|| top.strip_prefix('_').and_then(|t| t.strip_suffix("_data")));
            let package = match vendored {
                Some(v) if plain_module(&v.replace('-', "_")) => Some(distribution_of(v)),
                Some(_) => None,
                None if top == "nvidia" => None,
                None => site_package_of(path),
            };
            if let Some(p) = package {
                out.push((start, p));
            }
        }
    }
    out
}

/// A traceback's last line naming its exception by module (`openmm.OpenMMException: …`,
/// `decord._ffi.base.DECORDError: …`): the exception is the package's own, raised where its
/// library failed.
fn exception_modules(piece: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in piece.split_inclusive('\n') {
        let lead = line.len() - line.trim_start().len();
        let t = line.trim_start();
        if let Some((name, _)) = t.split_once(": ")
            && let Some((module, class)) = name.rsplit_once('.')
            && class.starts_with(|c: char| c.is_ascii_uppercase())
            && ["Error", "Exception", "Fail"]
                .iter()
                .any(|e| class.ends_with(e))
        {
            let top = module.split('.').next().unwrap_or("");
            if plain_module(top)
                && module.split('.').all(plain_module)
                && !NOT_A_PACKAGE.contains(&top)
            {
                out.push((at + lead, distribution_of(top)));
            }
        }
        at += line.len();
    }
    out
}

/// One import statement of a piece.
#[derive(Clone, Copy)]
struct Import<'a> {
    /// Offset of the statement in the piece.
    at: usize,
    module: &'a str,
    /// What `from … import` names after the module; `None` for `import X`.
    names: Option<&'a str>,
    /// Typed at an interactive prompt (`>>> import x`, IPython's `In [3]: import x`).
    prompted: bool,
}

/// A piece's import statements, one per line.
fn import_statements(piece: &str) -> Vec<Import<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in piece.split_inclusive('\n') {
        let lead = line.len() - line.trim_start().len();
        let t = line.trim();
        let prompt = prompt_len(t);
        let (t, lead) = match prompt {
            0 => (t, lead),
            n => (
                t[n..].trim_start(),
                lead + n + (t[n..].len() - t[n..].trim_start().len()),
            ),
        };
        let statement = if let Some(r) = t.strip_prefix("from ") {
            r.split_once(" import ").map(|(m, n)| (m.trim(), Some(n)))
        } else {
            t.strip_prefix("import ")
                .map(|r| (r.split([' ', ',']).next().unwrap_or(""), None))
        };
        if let Some((module, names)) = statement {
            out.push(Import {
                at: at + lead,
                module,
                names,
                prompted: prompt > 0,
            });
        }
        at += line.len();
    }
    out
}

/// A top-level module name as imports and frames give it: letters, digits and `_`, not starting
/// with a digit, at most 64 bytes.
fn plain_module(top: &str) -> bool {
    !top.is_empty()
        && top.len() <= 64
        && top.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && !top.starts_with(|c: char| c.is_ascii_digit())
}

/// The distribution of a top-level module: the tables' name for it, else its own name.
pub(crate) fn distribution_of(top: &str) -> String {
    // A module says nothing of which CUDA build of a package installed it (`cupy` is any
    // `cupy-cudaXXx`): such a package goes by its name without a CUDA tag.
    abidoc_knowledge::packages::package_for_module(top).map_or_else(
        || {
            abidoc_knowledge::names::distribution_of_import(top)
                .map_or_else(|| crate::kb::normalize(top), str::to_owned)
        },
        |p| abidoc_knowledge::packages::untagged_name(p).to_owned(),
    )
}

/// A file of Python's own library: under `lib/python3.X/` or `lib/pypy…/`, PyPy's
/// `lib-python/`, outside any site-packages (checked by the caller).
fn python_library(file: &str) -> bool {
    let f = file.replace('\\', "/").to_ascii_lowercase();
    f.contains("/lib-python/")
        || ["/lib/python", "/lib/pypy"].iter().any(|m| {
            f.match_indices(m).any(|(i, _)| {
                f[i + m.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
            })
        })
}

/// The length of the interactive prompt a line starts with: Python's `>>> ` and `... `,
/// IPython's `In [3]: `; 0 for none.
fn prompt_len(t: &str) -> usize {
    for p in [">>> ", "... "] {
        if t.starts_with(p) {
            return p.len();
        }
    }
    t.strip_prefix("In [")
        .and_then(|r| {
            let n = r.bytes().take_while(u8::is_ascii_digit).count();
            r[n..].starts_with("]: ").then_some(4 + n + 3)
        })
        .unwrap_or(0)
}

/// Modules a one-line program imports (`python3 -c 'import numpy'`, `python -c "import torch;
/// print(torch.__version__)"`): what the command was loading when the failure below appeared.
fn one_liner_imports(piece: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, _) in piece.match_indices(" -c ") {
        let rest = &piece[i + 4..];
        let Some(quote) = rest.chars().next().filter(|c| matches!(c, '\'' | '"')) else {
            continue;
        };
        let body = &rest[1..];
        let body = &body[..body.find([quote, '\n']).unwrap_or(body.len())];
        // pip's own one-liner that runs a package's setup.py names no package it loads.
        if body.contains("setuptools") || body.contains("__file__") {
            continue;
        }
        for statement in body.split(';').map(str::trim) {
            let module = statement
                .strip_prefix("import ")
                .map(|r| r.split([' ', ',']).next().unwrap_or(""))
                .or_else(|| {
                    statement
                        .strip_prefix("from ")
                        .and_then(|r| r.split_once(" import "))
                        .map(|(m, _)| m.trim())
                });
            let Some(top) = module.and_then(|m| m.split('.').next()) else {
                continue;
            };
            if plain_module(top) && !NOT_A_PACKAGE.contains(&top) {
                out.push((i + 1, distribution_of(top)));
            }
        }
    }
    out
}

/// The packages of modules imported at an interactive prompt (`>>> import bottleneck`): what the
/// person was loading when the failure below appeared (the tables' distribution for the module,
/// else the module's own name).
fn prompt_imports(imports: &[Import<'_>]) -> Vec<(usize, String)> {
    imports
        .iter()
        .filter(|i| i.prompted)
        .filter_map(|i| {
            let top = i.module.split('.').next().unwrap_or("");
            plain_module(top).then(|| (i.at, distribution_of(top)))
        })
        .collect()
}

/// The import a traceback shows failing to load a library: an absolute import statement as the
/// innermost frame's source line (IPython's `----> 3 import x` marker too), followed by the
/// loader's error (`ImportError: libnvcuvid.so.1: cannot open shared object file`, `DLL load
/// failed`, `undefined symbol`). Its module is the package whose load failed: one the tables
/// know, or any plain name (`import PyNvCodec`) where the frame is not inside an installed
/// package (whose directory names it better: `torch_scatter/__init__.py` importing
/// `scatter_cpu`).
fn failing_imports(piece: &str) -> Vec<(usize, String)> {
    const LOADER: &[&str] = &[
        "cannot open shared object file",
        "DLL load failed",
        "undefined symbol",
        "Library not loaded",
        "Symbol not found",
        "specified module could not be found",
    ];
    let mut out = Vec::new();
    let mut at = 0;
    let mut pending: Option<(usize, String)> = None;
    let mut in_package = false;
    for line in piece.split_inclusive('\n') {
        // A quoted or logged traceback (`> `, `2024-05-01 … ERROR … - `) reads as the plain one.
        let content = abidoc_syntax::scan::line_content(line);
        let t = content.trim();
        // Where `t` starts in `line`: the prefix, then the content's own leading blanks.
        let t_at = (line.len() - content.len()) + (content.len() - content.trim_start().len());
        if let Some(r) = t.strip_prefix("File \"") {
            in_package = site_package_of(r.split('"').next().unwrap_or("")).is_some();
        }
        if !t.is_empty() {
            if let Some(p) = pending.take()
                && (t.starts_with("ImportError") || t.starts_with("OSError"))
                && LOADER.iter().any(|w| t.contains(w))
            {
                out.push(p);
            }
            // IPython marks the failing line `----> 3 import x`.
            let code = t.strip_prefix("---->").map_or(t, |r| {
                r.trim_start()
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .trim_start()
            });
            let lead = t_at + (t.len() - code.len());
            pending = import_statements(code).into_iter().next().and_then(
                |Import { at: i, module, .. }| {
                    let top = module.split('.').next().unwrap_or("");
                    let known = abidoc_knowledge::packages::package_for_module(top);
                    let name = match known {
                        // A package of pure Python the tables know (transformers) only passes
                        // the failure of a compiled one on.
                        Some(p) if !p.is_compiled() => return None,
                        Some(p) => abidoc_knowledge::packages::untagged_name(p).to_owned(),
                        None if plain_module(top) && !top.starts_with('_') && !in_package => {
                            distribution_of(top)
                        }
                        None => return None,
                    };
                    Some((at + lead + i, name))
                },
            );
        }
        at += line.len();
        if out.len() >= 16 {
            break;
        }
    }
    out
}

/// The dotted modules of a piece's import statements (at most a few per line: `from a.b import
/// c, d` gives `a.b.c` and `a.b.d`).
fn dotted_imports(imports: &[Import<'_>]) -> Vec<String> {
    // Absolute modules only: a relative one (`from .. import _C`) names no package.
    let ident = |t: &str| {
        !t.is_empty()
            && t.len() <= 128
            && t.split('.').all(|part| {
                !part.is_empty() && part.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
            })
    };
    let mut out = Vec::new();
    for &Import { module, names, .. } in imports {
        if !ident(module) {
            continue;
        }
        let Some(names) = names else {
            if module.contains('.') {
                out.push(module.to_owned());
            }
            continue;
        };
        for n in names.split(',').take(8) {
            let n = n.split_whitespace().next().unwrap_or("");
            if ident(n) && !n.contains('.') {
                out.push(format!("{module}.{n}"));
            }
        }
    }
    out
}

fn pick<'a>(list: impl Iterator<Item = &'a (usize, String)>) -> Option<&'a str> {
    let mut torch = None;
    for (_, p) in list {
        if p != "torch" {
            return Some(p.as_str());
        }
        torch = torch.or(Some(p.as_str()));
    }
    torch
}

/// A header of torch's own tree that moved between releases, which a compile does not find:
/// the source was written for another torch than the one it builds against. Only headers known
/// to have moved: any other missing torch header may as well be an include path not passed.
/// `ATen/CUDAGeneratorImpl.h` moved to `ATen/cuda/` (neither torch 2.6.0's nor 2.15.0's wheel
/// has the old place); older torch has only the old one.
fn torch_moved_header(name: &str) -> bool {
    matches!(
        name,
        "ATen/CUDAGeneratorImpl.h" | "ATen/cuda/CUDAGeneratorImpl.h"
    )
}

/// The distribution a traceback frame's file belongs to, from its directory under
/// site-packages: a package whose code runs there, unless it is packaging machinery or a
/// package of pure Python the knowledge names (which only passes an extension's failure on).
pub(crate) fn site_package_of(file: &str) -> Option<String> {
    let norm = file.replace('\\', "/");
    let (_, after) = ["site-packages/", "dist-packages/"]
        .iter()
        .find_map(|m| norm.rsplit_once(m))?;
    // A package's directory, or a single-module distribution's file (`site-packages/pyaudio.py`).
    let top = match after.split_once('/') {
        Some((top, rest)) if !rest.is_empty() => top,
        Some(_) => return None,
        None => after.strip_suffix(".py")?,
    };
    // An egg's directory (`decord-0.6.0-py3.8-linux-x86_64.egg`) is its distribution's name
    // before the version.
    let top = match top.strip_suffix(".egg") {
        Some(egg) => egg.split('-').next().unwrap_or(egg),
        None => top,
    };
    let top = top.trim_start_matches('_');
    const MACHINERY: &[&str] = &[
        "pip",
        "setuptools",
        "pkg_resources",
        "wheel",
        "distutils_hack",
        "importlib_metadata",
        "typing_extensions",
        "IPython",
        "ipykernel",
        "click",
        "runpy",
        "six",
        "decorator",
        // Loads other packages' OpenMP and BLAS libraries to inspect them.
        "threadpoolctl",
        // Opens a library by name for the package calling it (soundfile's libsndfile), as
        // ctypes does.
        "cffi",
    ];
    if top.is_empty() || top.contains('.') || MACHINERY.contains(&top) {
        return None;
    }
    match abidoc_knowledge::packages::package_for_module(top) {
        Some(p) if p.is_compiled() => Some(abidoc_knowledge::packages::untagged_name(p).to_owned()),
        Some(_) => None,
        None => Some(distribution_of(top)),
    }
}

/// A C API function a Python release removed or changed, by its name as a compiler or linker
/// prints it (macOS and 32-bit Windows put a `_` before C names).
pub(crate) fn python_capi(
    name: &str,
) -> Option<&'static abidoc_knowledge::compat::PythonCapiChanged> {
    abidoc_knowledge::compat::python_capi_changed(name).or_else(|| {
        name.strip_prefix('_')
            .and_then(abidoc_knowledge::compat::python_capi_changed)
    })
}

/// Adds `item` to a bounded list of distinct entries.
fn push_distinct(list: &mut Vec<String>, item: &str) {
    if list.len() < MAX_SCENE_LIST && !list.iter().any(|x| x == item) {
        list.push(item.to_owned());
    }
}

/// Number of commands that appear more than once among GPU processes.
pub fn stale_process_groups(procs: &[(u32, Option<String>, Option<String>)]) -> usize {
    let mut names: Vec<&str> = procs.iter().filter_map(|(_, _, n)| n.as_deref()).collect();
    names.sort_unstable();
    let mut groups = 0;
    let mut i = 0;
    while i < names.len() {
        let j = names[i..].iter().take_while(|n| **n == names[i]).count();
        if j > 1 {
            groups += 1;
        }
        i += j;
    }
    groups
}

fn normalize_subject(s: &str) -> String {
    let s = s.trim().to_ascii_lowercase().replace('_', "-");
    match s.as_str() {
        "pytorch" => "torch".into(),
        _ => s,
    }
}

fn merge_details(into: &mut Failure, from: Failure) {
    match (into, from) {
        (
            Failure::NoMatchingDistribution { available, .. },
            Failure::NoMatchingDistribution {
                available: more, ..
            },
        ) if available.is_none() => {
            *available = more;
        }
        (
            Failure::TorchOps { libraries, .. },
            Failure::TorchOps {
                libraries: more, ..
            },
        ) => {
            for l in more {
                if libraries.len() < MAX_SCENE_LIST && !libraries.contains(&l) {
                    libraries.push(l);
                }
            }
        }
        (
            Failure::UndefinedSymbol {
                library,
                truncated,
                symbol,
                version_of,
            },
            Failure::UndefinedSymbol {
                library: l2,
                truncated: t2,
                symbol: s2,
                version_of: v2,
            },
        ) => {
            // Prefer the fullest library path and an untruncated symbol.
            if library.as_ref().map_or(0, String::len) < l2.as_ref().map_or(0, String::len) {
                *library = l2;
            }
            if version_of.is_none() {
                *version_of = v2;
            }
            if *truncated && !t2 {
                *truncated = false;
                *symbol = s2;
            }
        }
        (
            Failure::XformersBuiltFor {
                built_torch,
                have_torch,
                built_cuda,
                built_python,
                have_python,
            },
            Failure::XformersBuiltFor {
                built_torch: a,
                have_torch: b,
                built_cuda: c,
                built_python: d,
                have_python: e,
            },
        ) => {
            if built_torch.is_none() {
                *built_torch = a;
            }
            if have_torch.is_none() {
                *have_torch = b;
            }
            if built_cuda.is_none() {
                *built_cuda = c;
            }
            if built_python.is_none() {
                *built_python = d;
            }
            if have_python.is_none() {
                *have_python = e;
            }
        }
        (
            Failure::GpuArch {
                gpu,
                capability,
                supported,
                range,
                ..
            },
            Failure::GpuArch {
                gpu: g2,
                capability: c2,
                supported: s2,
                range: r2,
                ..
            },
        ) => {
            if gpu.is_none() {
                *gpu = g2;
            }
            if capability.is_none() {
                *capability = c2;
            }
            if supported.is_empty() {
                *supported = s2;
            }
            if range.is_none() {
                *range = r2;
            }
        }
        (Failure::ToolkitArch { tool, .. }, Failure::ToolkitArch { tool: t2, .. })
            if tool.is_none() =>
        {
            *tool = t2;
        }
        (Failure::DriverTooOld { found, .. }, Failure::DriverTooOld { found: f2, .. })
            if found.is_none() =>
        {
            *found = f2;
        }
        (
            Failure::IllegalInstruction { feature, .. },
            Failure::IllegalInstruction { feature: f2, .. },
        ) if feature.is_none() => *feature = f2,
        (
            Failure::WrongArchitecture { have, need, .. },
            Failure::WrongArchitecture {
                have: h2, need: n2, ..
            },
        ) if have.is_none() => {
            *have = h2;
            *need = n2;
        }
        (Failure::CudaOom { tried, .. }, Failure::CudaOom { tried: t2, .. }) if tried.is_none() => {
            *tried = t2;
        }
        (
            Failure::MissingLibrary { required_by, .. },
            Failure::MissingLibrary {
                required_by: r2, ..
            },
        ) if required_by.is_none() => *required_by = r2,
        _ => {}
    }
}

/// The module name of a library path: `selective_scan_cuda` for `…/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so`.
pub fn module_name(path: &str) -> String {
    let base = basename(path);
    // `xformers/_C.so`, `torchvision/_C.so`: a private module is named by its package directory.
    if base.starts_with('_') && !base.starts_with("_torch") {
        let mut parts = path.rsplit(['/', '\\']);
        parts.next();
        if let Some(parent) = parts
            .next()
            .filter(|p| !p.is_empty() && !p.ends_with("-packages"))
        {
            let stem = base.split('.').next().unwrap_or(base);
            return format!("{parent}.{stem}");
        }
    }
    let stem = base.split(".cpython-").next().unwrap_or(base);
    let stem = stem.split(".abi3").next().unwrap_or(stem);
    stem.trim_end_matches(".so")
        .trim_end_matches(".dylib")
        .to_owned()
}

#[cfg(test)]
mod launcher_tests {
    use super::{cached_launcher, is_stub_driver};

    #[test]
    fn only_functions_every_driver_has_mean_an_unlinked_launcher() {
        let lib = Some("/home/u/.triton/cache/41ce/cuda_utils.so");
        assert!(cached_launcher(lib, "cuModuleGetFunction").is_some());
        // A function newer drivers added is missing from an older driver instead.
        assert!(cached_launcher(lib, "cuTensorMapEncodeTiled").is_none());
        // Outside a kernel cache it is whatever the symbol codes say.
        assert!(cached_launcher(Some("/x/site-packages/foo/_C.so"), "cuLaunchKernel").is_none());
        assert!(cached_launcher(None, "cuLaunchKernel").is_none());
        assert!(is_stub_driver("/opt/cuda-12.1/lib64/stubs/libcuda.so"));
        assert!(!is_stub_driver("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
        assert!(!is_stub_driver("/x/stubs/libfoo.so"));
    }
}

#[cfg(test)]
mod module_name_tests {
    use super::{
        compiled_module, compiled_module_name, one_liner_imports, setuptools_build_dirs,
        site_package_paths,
    };

    #[test]
    fn a_bare_name_is_a_package_module_only_when_private_and_its_own() {
        // SWIG's wrappers import their compiled module bare.
        assert!(compiled_module("_gdal_array"));
        // A user's own module whose name a package also uses deep inside is not that package's.
        assert!(!compiled_module("image"));
        assert!(!compiled_module("geometry"));
        assert!(!compiled_module("_internal"));
    }

    #[test]
    fn a_build_directory_names_its_package() {
        let names = |t: &str| -> Vec<String> {
            setuptools_build_dirs(t)
                .into_iter()
                .map(|(_, p)| p)
                .collect()
        };
        assert_eq!(
            names("-c pykdtree/kdtree.c -o build/temp.macosx-10.15-x86_64-3.8/pykdtree/kdtree.o"),
            ["pykdtree"]
        );
        assert_eq!(
            names(
                "build\\lib.win-amd64-cpython-312\\py_gd\\py_gd.cp312-win_amd64.pyd : fatal error LNK1120"
            ),
            ["py-gd"]
        );
        // MSVC's configuration directory, a file right under the platform's directory.
        assert!(
            names("FAILED: C:/x/build/temp.win-amd64-cpython-312/Release/csrc/a.obj").is_empty()
        );
        assert!(names("build/temp.linux-x86_64-3.10/x.o").is_empty());
    }

    #[test]
    fn a_cython_init_frame_names_the_package_directory_of_its_source() {
        let near = |t: &str| {
            let (_, scene) = super::collect_text(t);
            let end = t.len();
            scene
                .package_near(abidoc_syntax::Span::new(end, end))
                .map(str::to_owned)
        };
        let error = "ImportError: numpy.core.multiarray failed to import\n";
        assert_eq!(
            near(&format!(
                "  File \"pesq/cypesq.pyx\", line 1, in init cypesq\n{error}"
            ))
            .as_deref(),
            Some("pesq")
        );
        // A source directory is no package: the module's own name.
        assert_eq!(
            near(&format!(
                "  File \"src/cython_bbox.pyx\", line 12, in init cython_bbox\n{error}"
            ))
            .as_deref(),
            Some("cython-bbox")
        );
    }

    #[test]
    fn a_one_liner_names_what_it_imports() {
        let names =
            |t: &str| -> Vec<String> { one_liner_imports(t).into_iter().map(|(_, p)| p).collect() };
        assert_eq!(
            names("$ python3 -c 'import numpy'\nIllegal instruction"),
            ["numpy"]
        );
        assert_eq!(
            names("python -c \"import sys; from cv2 import dnn; print(1)\""),
            ["opencv-python"]
        );
        // pip's own setup.py runner, and the standard library, name no package.
        assert!(
            names("python -u -c 'import io, os, sys, setuptools, tokenize; sys.argv[0] = x'")
                .is_empty()
        );
        assert!(names("python -c 'import os'").is_empty());
    }

    #[test]
    fn only_names_extensions_take_read_as_compiled() {
        for m in [
            "pointgroup_ops",
            "mmdet.ops.dcn.deform_conv_cuda",
            "modules._ext",
            "torch_npu._C",
            "vllm._moe_ops",
        ] {
            assert!(compiled_module_name(m), "{m}");
        }
        for m in [
            "tensorflow.python.ops.numpy_ops",
            "liger_kernel",
            "triton_kernels",
            "numpy",
            "a b_ops",
        ] {
            assert!(!compiled_module_name(m), "{m}");
        }
    }

    #[test]
    fn compiled_files_in_a_message_name_their_package() {
        let names = |t: &str| -> Vec<String> {
            site_package_paths(t).into_iter().map(|(_, p)| p).collect()
        };
        assert_eq!(
            names(
                "/lib/python3.11/site-packages/samplerate/_samplerate_data/libsamplerate.dylib' (mach-o file"
            ),
            ["samplerate"]
        );
        assert_eq!(
            names("from /x/.venv/lib/python3.11/site-packages/pyarrow/libarrow.so.2100\n"),
            ["pyarrow"]
        );
        // A package's own warning names it by the file that raised it.
        assert_eq!(
            names(
                "/c/lib/python3.10/site-packages/polars/_cpu_check.py:258: RuntimeWarning: Missing required CPU features.\n"
            ),
            ["polars"]
        );
        assert_eq!(
            names("OSError: /env/lib/python3.10/site-packages/_soundfile_data/libsndfile.so: x"),
            ["soundfile"]
        );
        assert_eq!(
            names("ImportError: C:\\Py\\Lib\\site-packages\\numpy.libs\\libopenblas64_.dll"),
            ["numpy"]
        );
        // Not a compiled file, a path climbing out of the package, CUDA wheels' namespace.
        for t in [
            "File \"/e/site-packages/foo/bar.py\", line 3",
            "/e/site-packages/matplotlib/../../../libstdc++.so.6: version",
            "/e/site-packages/nvidia/cu13/lib/libcufile.so.0: undefined symbol",
        ] {
            assert!(names(t).is_empty(), "{t}");
        }
    }
}
