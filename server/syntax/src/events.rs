//! The facts a scan recognizes in text: the contract between `abidoc-syntax` and `abidoc-ide`.
//!
//! Every event carries the byte span of the text it was read from (in the coordinates of the text
//! given to [`crate::scan`]). Strings are owned copies, already cleaned of ANSI codes, quote and
//! log prefixes, and re-joined where the original was wrapped across lines.

use crate::span::Span;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Where the fact was read. For facts spread over several lines (a symbol split after
    /// `undefined symbol:`), the span covers all of them.
    pub span: Span,
    pub kind: EventKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// `LIB: undefined symbol: SYM` (glibc), `Symbol not found: __ZN…` (macOS dlopen), also inside
    /// repr-quoted messages and wrapped errors. `symbol` is the mangled name as printed (macOS's
    /// extra leading `_` removed); `truncated` when the text visibly cut it off (ends mid-name or `…`).
    UndefinedSymbol {
        library: Option<String>,
        symbol: String,
        truncated: bool,
        /// The library whose symbol version the loader asked for (`…, version libcudart.so.12`):
        /// the symbol's provider, named by the message itself.
        version_of: Option<String>,
    },
    /// macOS' dyld missing a symbol in a library of macOS itself (`Symbol not found: _clock_gettime
    /// … Expected in: /usr/lib/libSystem.B.dylib`): the binary was built for a newer macOS
    /// (`built_for`, from dyld's `which was built for Mac OS X 10.12`) than the one it runs on.
    MacosSymbolMissing {
        library: Option<String>,
        symbol: String,
        system_library: String,
        built_for: Option<String>,
    },
    /// conda's, mamba's or pixi's solver finding no `__cuda` virtual package, which stands for
    /// the NVIDIA driver where the environment is solved: `Virtual package '__cuda' does not
    /// match any of the available virtual packages on your machine`.
    CondaCudaVirtualMissing { detail: String },
    /// TensorFlow running a graph with an op no library of the process registered: `Op type not
    /// registered 'CaseFoldUTF8' in binary running on host` (a custom-op package not imported,
    /// not installed, or built for another TensorFlow). `op` as named (`Addons>Resampler`).
    TensorflowOpMissing { op: String },
    /// Cython's import-time check of a module whose C API another module cimports: `cudf._lib.cudf
    /// does not export expected C function get_column_data_ptr`. `module` is the provider; the
    /// importer was compiled against another release of it.
    CythonApiMissing { module: String, name: String },
    /// A package's setup refusing the Python it runs under (numba's and llvmlite's guard:
    /// `Cannot install on Python version 3.13.0; only versions >=3.9,<3.13 are supported.`):
    /// pip found no wheel for this Python and built the sdist, whose release predates it.
    PythonRangeRefused { python: String, supported: String },
    /// auditwheel not finding a library the wheel it repairs links: `ValueError: Cannot repair
    /// wheel, because required library "libcudart.so.13" could not be located`.
    AuditwheelMissing { library: String },
    /// `libX.so.N: cannot open shared object file: No such file or directory`.
    MissingSharedLibrary {
        name: String,
        required_by: Option<String>,
    },
    /// ``LIB: version `GLIBCXX_3.4.30' not found (required by REQ)``.
    VersionNotFound {
        library: String,
        version: String,
        required_by: Option<String>,
    },
    /// A Python exception line: `ImportError: …`, `OSError: …`, including pytest `E   ` lines.
    Exception { name: String, message: String },
    /// A traceback frame: `File "x.py", line 3, in f`, `Cell In[26], line 12`, `Input In [3]`,
    /// `<ipython-input-1-…> in <module>()`, `~/x.py in f()`.
    Frame {
        file: String,
        line: Option<u32>,
        function: Option<String>,
    },
    /// A `----> 12 code` marker in an IPython traceback: the failing source line.
    FrameMarker { line: u32, code: String },
    /// `Traceback (most recent call last):`.
    TracebackStart,
    /// `During handling of the above exception…` / `The above exception was the direct cause…`.
    ChainedException,
    /// A wrapper that names an import that failed (`Failed to import dependencies for Unsloth
    /// backend`, transformers' `Failed to import X because of the following error`).
    WrappedImportError { what: String },
    /// Advice printed by a library that the diagnosis may want to contradict:
    /// `Install LoRA dependencies with: pip install 'training-hub[lora]'`.
    SuggestedCommand { command: String },

    // ---- pip / uv / setuptools / ninja build logs ----
    /// torch's C++ extension builder at work (`Error compiling objects for extension`): the
    /// package being built compiles against torch.
    TorchExtensionBuild,
    /// A line only one installer writes (Poetry's `Unable to find installation candidates for
    /// X`): the install the text shows ran through it.
    Installer { name: String },
    /// `Collecting X==1.2`, `Downloading X-1.2-…whl`.
    PipCollecting {
        package: String,
        version: Option<String>,
    },
    /// `Building wheel for X (setup.py)` / `Building wheel for X (pyproject.toml)`.
    /// `built`: the line ends in `... done` (that package's build succeeded).
    PipBuildingWheel { package: String, built: bool },
    /// `Using cached X-1.2-cp310-….whl` or a `.tar.gz`.
    PipUsingCached { file: String },
    /// pip's resolver installed a package beside a release its metadata excludes: `xformers
    /// 0.0.26.post1 requires torch==2.3.0, but you have torch 2.2.1+cu121 which is
    /// incompatible.` `requirement` is the specifier as written (`==2.3.0`, `<2.4,>=2.3`).
    PipRequirementConflict {
        package: String,
        version: String,
        requires: String,
        requirement: String,
        have: String,
    },
    /// `error: subprocess-exited-with-error`, `Failed to build X`, `× … did not run successfully`.
    PipBuildFailed { package: Option<String> },
    /// Cython refusing a package's `.pyx` sources (`Error compiling Cython file:`,
    /// `Cython.Compiler.Errors.CompileError: …/cymj.pyx`), or setuptools asking Cython 3 for an
    /// attribute it dropped (`AttributeError: cython_sources`): the Cython installed is not the
    /// one the sources were written for. `file` is the source named, `cython3` whether the
    /// words can only be Cython 3's (`cython_sources`).
    CythonCompileFailed { file: Option<String>, cython3: bool },
    /// torch's cpp_extension JIT build failing: `RuntimeError: Error building extension
    /// 'fused_adam'` (the extension's name, not a distribution's).
    JitBuildFailed { extension: String },
    /// `Guessing wheel URL:  https://…whl` (flash-attn, mamba, causal-conv1d setup.py).
    GuessingWheelUrl { url: String },
    /// `Precompiled wheel not found. Building from source...`.
    PrecompiledWheelNotFound,
    /// The system killed the compiler or linker of a build (`Killed signal terminated program
    /// cc1plus`, nvcc's `'cicc' died due to signal 9`, make's `Error 137`, MSVC's `compiler is
    /// out of heap space`): the machine ran out of memory, usually with too many parallel jobs.
    CompilerKilled {
        /// MSVC's own words (`C1060: compiler is out of heap space`): it stopped, nothing
        /// killed it.
        out_of_heap: bool,
    },
    /// A compile stopped by a cause its words name (see [`CompileCause`]).
    KnownCompileCause { cause: CompileCause },
    /// The directory `build_ext --inplace` could not write the built module into (see
    /// `CompileCause::InplaceDirMissing`), relative as printed.
    InplaceTargetMissing { dir: String },
    /// A pip install the user ran, as its line shows it after a shell or notebook prompt
    /// (`(venv) $ pip install git+https://github.com/princeton-vl/lietorch.git`).
    UserPipInstall { command: String },
    /// A package's own check of the framework it was built for: Open3D's `Version mismatch:
    /// Open3D needs PyTorch version 1.7.*, but version 1.8.2 is installed!`.
    FrameworkVersionRequired {
        package: String,
        framework: String,
        needs: String,
        installed: String,
    },
    /// XLA's check of a PJRT plugin's C API against the framework's: `Mismatched PJRT plugin
    /// PJRT API version (0.38) and framework PJRT API version 0.40)`, `Unexpected PJRT_… size:
    /// … The plugin is likely built with a later version than the framework`. `plugin` is the
    /// distribution of the backend being initialized (empty when the text names none); the API
    /// versions are empty when not stated; `plugin_newer` is what the versions or the words say.
    PjrtApiMismatch {
        plugin: String,
        plugin_api: String,
        framework_api: String,
        plugin_newer: Option<bool>,
    },
    /// pip's `Getting requirements to build wheel did not run successfully` (its `... error`
    /// status line too): the package's setup ran in pip's build environment and failed before
    /// compiling anything.
    BuildRequirementsFailed,
    /// `No module named 'torch'` while pip or uv builds in isolation (`get_requires_for_build_wheel`,
    /// `egg_info`, `setup.py`, uv's "doesn't declare it as a build dependency" hint).
    BuildIsolationNoTorch { package: Option<String> },
    /// A build requirement or build tool missing while an extension is built or JIT-compiled:
    /// `No module named 'packaging'` (`wheel`, `setuptools`, `ninja`) in a build, `Ninja is
    /// required to load C++ extensions`; `too_new` for a build tool too new for the build script
    /// (`cannot import name 'packaging' from 'pkg_resources'`: setuptools 70 and later).
    BuildDependencyMissing { module: String, too_new: bool },
    /// `CUDA_HOME environment variable is not set`, `nvcc: not found`, `No such file or directory:
    /// '/usr/local/cuda/bin/nvcc'`, `bare_metal_version` failures …; `detail` is the line.
    CudaHomeMissing { detail: String },
    /// `The detected CUDA version (12.1) mismatches the version that was used to compile PyTorch (11.7)`,
    /// torchvision/torchaudio `compiled with different CUDA (major) versions`.
    CudaVersionMismatch {
        found: Option<String>,
        expected: Option<String>,
        detail: String,
    },
    /// Windows' loader: `ImportError: DLL load failed while importing X: The specified module
    /// could not be found.`, `OSError: [WinError 126] … Error loading "…\\fbgemm.dll" or one of
    /// its dependencies.`, ctypes' `Could not find module 'x.dll'`, in any language Windows
    /// speaks. `module` is the Python module being imported, `dll` the DLL named (as printed),
    /// when shown; `procedure` when Windows said a procedure (function) was not found (error
    /// 127, its undefined symbol) rather than a module (126).
    DllLoadFailed {
        module: Option<String>,
        dll: Option<String>,
        why: DllFailure,
    },
    /// `No module named 'exllamav2_ext'`, `'groundingdino._C'`: a package's own compiled module
    /// (a name such modules take: `_C`, `*_ext`, `*_cuda`, `*_kernels`) is absent.
    CompiledModuleMissing { module: String },
    /// `/usr/bin/ld: cannot find -lcuda` (any `-lX`).
    LinkerCannotFind { library: String },
    /// `libcuda.so cannot found!` (Triton), `Failed to find libcuda.so`.
    LibcudaNotFound { detail: String },
    /// A framework saying it could not open some of CUDA's libraries and runs on the CPU
    /// (TensorFlow's `Cannot dlopen some GPU libraries`); its loader's lines before it, when
    /// the text kept them, name the libraries.
    GpuLibrariesNotLoaded { framework: String, detail: String },
    /// `Failed to find C compiler`, `gcc: not found`, `error: command 'gcc' failed: No such file`.
    NoCompiler { detail: String },
    /// A ninja/compiler failure line: `FAILED: x.o`, `error: command '/usr/bin/g++' failed`,
    /// `subprocess.CalledProcessError: Command '['ninja', '-v']'`.
    CompileFailed { detail: String },

    // ---- runtime warnings that mean a degraded run ----
    /// Mamba/hybrid `The fast path is not available because one of (...) is None`, or a kernel
    /// called on the compiled module that did not import (`'NoneType' object has no attribute
    /// 'causal_conv1d_fwd'`: `kernel` names the function, and the run stops there).
    MambaFastPathUnavailable {
        model_class: Option<String>,
        kernel: Option<String>,
    },
    /// xFormers `can't load C++/CUDA extensions. xFormers was built for: PyTorch A with CUDA N
    /// (you have B)`, `Python X (you have Y)`.
    XformersBuiltFor {
        built_torch: Option<String>,
        have_torch: Option<String>,
        built_cuda: Option<String>,
        built_python: Option<String>,
        have_python: Option<String>,
    },
    /// `Need to compile C++ extensions to get sparse attention support`.
    XformersNeedCompile,
    /// `FlashAttention2 has been toggled on, but it cannot be used due to the following error: R`.
    FlashAttnUnavailable { reason: String },
    /// `operator torchvision::nms does not exist`.
    TorchOperatorMissing {
        operator: String,
        /// The dispatcher's `Could not run 'x::op' with arguments from the 'CUDA' backend`: the
        /// operator is registered without a CUDA kernel (a CPU build of its package).
        cuda_backend: bool,
    },
    /// A package skipping its own compiled extensions because of the torch it finds:
    /// torchao's `Skipping import of cpp extensions due to incompatible torch version 2.7.1+cu128
    /// for torchao version 0.15.0` / `… Please upgrade to torch >= 2.11.0 (found 2.9.1+cu128)`.
    ExtensionsSkipped {
        package: Option<String>,
        torch: Option<String>,
        needs_torch: Option<String>,
    },
    /// `Couldn't load custom C++ ops` (torchvision), and similar "extension failed to load" notices.
    CustomOpsNotLoadable { package: Option<String> },
    /// torch's `torch.ops.load_library`: `Could not load this library: /…/libtorchcodec7.so`.
    /// The loader's reason is chained above it, or (torchcodec up to 0.3) never printed; `path`
    /// is the library as printed.
    LibraryNotLoaded { path: String },
    /// NumPy 1.x/2.x ABI messages: `A module that was compiled using NumPy 1.x cannot be run in
    /// NumPy 2.x`, `numpy.dtype size changed, may indicate binary incompatibility`,
    /// `_ARRAY_API not found`, `module compiled against API version 0x10 but this version of numpy is 0xf`.
    NumpyAbi { detail: String },
    /// A name NumPy's namespace lacks: `module 'numpy' has no attribute 'float'`, `cannot import
    /// name 'BUFSIZE' from 'numpy'`, NumPy 2's own `` `np.float_` was removed in the NumPy 2.0
    /// release``. Whether a release removed it is the knowledge's to say.
    NumpyNameMissing { name: String },
    /// `CUDA out of memory. Tried to allocate 2.00 GiB …`.
    CudaOom {
        tried: Option<String>,
        detail: String,
    },
    /// A process holding GPU memory: OOM's `Process 1234 has 6.30 GiB memory in use` or an
    /// `nvidia-smi` process-table row.
    GpuProcess {
        pid: u32,
        memory: Option<String>,
        name: Option<String>,
    },
    /// The GPU has no code in a binary: `no kernel image is available for execution on the
    /// device` (`cudaErrorNoKernelImageForDevice`, `CUDA_ERROR_NO_BINARY_FOR_GPU`), torch's
    /// `NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current
    /// PyTorch installation`, its `The current PyTorch install supports CUDA capabilities sm_50 …`
    /// list, `Found GPU0 X which is of cuda capability 3.5` with the minimum (or the `(8.0) -
    /// (12.0)` range) it supports. Each line gives what it shows; the incident merges them.
    GpuArchMissing {
        /// Which message said it: they differ in who lacks the code and what fixes it.
        form: GpuArchForm,
        gpu: Option<String>,
        /// As printed: `sm_120`, `8.6`.
        capability: Option<String>,
        /// The architectures the binary has, as printed (`sm_50`, `compute_37`).
        supported: Vec<String>,
        /// The lowest and highest capability supported, where only a range is printed.
        range: Option<(String, Option<String>)>,
        detail: String,
    },
    /// A package that loads its own CUDA library at import found none usable and runs without
    /// CUDA: bitsandbytes' `CUDA Setup failed despite GPU being available`, `The installed version
    /// of bitsandbytes was compiled without GPU support`, `Could not find the bitsandbytes CUDA
    /// binary at …`, `Could not load bitsandbytes native library`.
    CudaSetupFailed { package: String, detail: String },
    /// A package's own loader gave up on its native library in its own words, without the
    /// loader's reason: torchcodec's `Could not load libtorchcodec` (its likely causes: FFmpeg
    /// missing, a torch it was not built for).
    PackageLibraryUnloadable { package: String, detail: String },
    /// `AttributeError: module 'torch.library' has no attribute 'register_fake'`: a module lacks
    /// a name (which modules and names matter the knowledge decides).
    ModuleAttributeMissing { module: String, attribute: String },
    /// A compiler that does not find a name or a header the source uses: gcc's `'AT_CHECK' was
    /// not declared in this scope`, nvcc's `identifier "THCState" is undefined`, `fatal error:
    /// THC/THC.h: No such file or directory`. Which names matter (torch API a release removed)
    /// the knowledge decides.
    CompileNameMissing { name: String, detail: String },
    /// The cuDNN loaded at run time is not the one the framework was compiled with: torch's
    /// `cuDNN version mismatch: PyTorch was compiled against 7102 but linked against 7605` and
    /// `cuDNN version incompatibility: PyTorch was compiled against (8, 5, 0) but found runtime
    /// version (8, 4, 1)`, TensorFlow's `Loaded runtime CuDNN library: 7301 … but source was
    /// compiled with 7003`. Versions as dotted `major.minor.patch`; `framework` is `torch` or
    /// `tensorflow`.
    CudnnVersionMismatch {
        framework: String,
        /// `cuDNN`, or the CUDA library JAX names (`cuBLAS`).
        library: String,
        compiled: Option<String>,
        runtime: Option<String>,
        detail: String,
    },
    /// A CUDA compiler that does not know the GPU architecture the build asks for: nvcc's
    /// `Unsupported gpu architecture 'compute_89'`, nvcc's or ptxas' `Value 'sm_121a' is not
    /// defined for option 'gpu-name'` (Triton's bundled ptxas included). `arch` as printed
    /// (`compute_89`, `sm_121a`); `tool` is the compiler's path or name where the text shows it.
    ToolkitArchRefused {
        arch: String,
        tool: Option<String>,
        detail: String,
    },
    /// The driver is older than the CUDA a binary needs: `The NVIDIA driver on your system is too
    /// old (found version 11040)`, `CUDA driver version is insufficient for CUDA runtime
    /// version`, `cudaErrorInsufficientDriver`, `the provided PTX was compiled with an unsupported
    /// toolchain`. `found` is the CUDA version the driver supports, as printed (`11040`).
    DriverTooOld {
        found: Option<String>,
        detail: String,
    },
    /// `Torch not compiled with CUDA enabled`: a CPU-only torch asked for CUDA.
    CpuOnlyTorch { detail: String },
    /// `torch.cuda.is_available()` answered `False` (on its line or the next one); a failure
    /// only with a `+cpu` torch in the text, which the incidents decide. `stopped`: the program
    /// refused to go on without CUDA (`assert torch.cuda.is_available()` failing).
    CudaUnavailable { detail: String, stopped: bool },
    /// A library built for another architecture than the process loading it: macOS'
    /// `(mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64'))` and
    /// `mach-o, but wrong architecture`, glibc's `wrong ELF class: ELFCLASS32`, Windows' `%1 is
    /// not a valid Win32 application`. `library` is the file (or the module Windows names) where
    /// the line shows it; `have` the library's architecture and `need` the process's, as printed
    /// (`x86_64`, `arm64`; `32-bit`/`64-bit` for an ELF class).
    WrongArchitecture {
        library: Option<String>,
        have: Option<String>,
        need: Option<String>,
        detail: String,
    },
    /// A library the loader found but could not read as one: glibc's `invalid ELF header`,
    /// `file too short` — a damaged file (a cut download or install) or no library at all (a
    /// Git LFS pointer, another platform's file) —, and `ELF load command address/offset not
    /// properly aligned` (or `not page-aligned`): a file a faulty tool rewrote, or a 4K-page
    /// build under a kernel of larger pages.
    LibraryUnreadable { library: String, why: String },
    /// The CPU lacks an instruction a binary uses: `Illegal instruction (core dumped)`, zsh's
    /// `illegal hardware instruction`, `SIGILL`, jaxlib's `built using AVX instructions, which
    /// your CPU … do not support`. `feature` is the instruction set a message names (`AVX`).
    IllegalInstruction {
        feature: Option<String>,
        detail: String,
    },
    /// glibc 2.41+ refusing to load a library that asks for an executable stack: `ImportError:
    /// libtorch_cpu.so: cannot enable executable stack as shared object requires: Invalid
    /// argument`. `library` is the file the line names.
    ExecutableStack { library: Option<String> },
    /// glibc's `X.so: cannot allocate memory in static TLS block`: a library using the
    /// initial-exec TLS model loaded after the process started, when the surplus glibc keeps
    /// for such libraries is spent (libgomp on aarch64 is the usual one).
    StaticTlsExhausted { library: Option<String> },
    /// A media package with no backend to read or write a file: torchaudio's `No audio I/O
    /// backend is available`, `Backend "soundfile" is not one of available backends`, 2.9's
    /// `TorchCodec is required for load_with_torchcodec`, torchvision's `PyAV is not
    /// installed`. `backend` is the one the message names or asked for (`soundfile`, `av`);
    /// `newest` the newest major of a library the package can load, where it lists the majors
    /// it tried (torio's `Tried versions: ['6', '5', '4', '']`).
    IoBackendMissing {
        package: String,
        backend: Option<String>,
        newest: Option<u32>,
    },
    /// A log that stops at torch's JIT build of an extension (`Using … as PyTorch extensions
    /// root...`, `Loading extension module X...`, DeepSpeed's and ColossalAI's `… kernel during
    /// runtime now`) with nothing after it: a build that hangs, most often on the lock an
    /// interrupted build left. `root` is the extensions root the log names, `op` the extension.
    JitBuildStalled {
        root: Option<String>,
        op: Option<String>,
    },
    /// A package's just-in-time op that did not build or load, as the package reports it
    /// afterwards (DeepSpeed's `'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'`, from
    /// the optimizer's `__del__` once building `cpu_adam` failed). `op` is the op's build name.
    JitOpUnavailable { package: String, op: String },
    /// pip refusing a wheel file whose tags this interpreter does not accept: `ERROR:
    /// mlx-0.12.0-cp312-cp312-macosx_14_0_arm64.whl is not a supported wheel on this platform.`
    /// `wheel` is the file name as printed (a path's last part).
    WheelUnsupported { wheel: String },
    /// pip's resolver found no release to install: `Could not find a version that satisfies the
    /// requirement torch==1.13.1 (from versions: 2.0.0, …)`, `No matching distribution found for
    /// X`, uv's `Because there is no version of X==1.2`. `requirement` as written (markers cut),
    /// `available` the versions pip listed (empty for `none`; `None` where no list was printed).
    NoMatchingDistribution {
        requirement: String,
        available: Option<Vec<String>>,
    },
    /// Two OpenMP runtimes initialized in one process: `OMP: Error #15: Initializing
    /// libiomp5md.dll, but found libiomp5md.dll already initialized.`
    /// Also mkl-service's refusal (`MKL_THREADING_LAYER=INTEL is incompatible with libgomp.so.1
    /// library`): MKL's threading layer (`mkl_layer`, its Intel runtime) meeting the GNU runtime
    /// already loaded (`found`).
    OpenmpDuplicate {
        initializing: Option<String>,
        found: Option<String>,
        mkl_layer: Option<String>,
    },
    /// `TypeError: f(): incompatible function arguments` from a pybind11 extension. `module` is
    /// the compiled module the call went through, where the traceback's source line shows it
    /// (`causal_conv1d_cuda.causal_conv1d_fwd(…)`).
    /// `passed`: how many arguments the call shown passed; `accepts`: how many the first
    /// signature pybind11 lists takes.
    IncompatibleFunctionArguments {
        function: String,
        module: Option<String>,
        passed: Option<u32>,
        accepts: Option<u32>,
    },

    // ---- context ----
    /// A version the text states: `torch 2.10.0`, `PyTorch 2.5.1`, `torch==2.2.2`,
    /// `Python 3.11.13`, `CUDA 12.1`, a wheel label `+cu12torch2.5cxx11abiFALSE`.
    /// `subject` is normalized: lower case, `_` → `-`, `PyTorch` → `torch`, `CUDA Toolkit` →
    /// `cuda`; `nvcc` for `nvcc --version`'s release; a wheel's distribution name
    /// (`mamba-ssm`) with the whole label as `version` (`1.2.0.post1+cu118torch2.3cxx11abiFALSE`).
    Version { subject: String, version: String },
    /// A model identifier the text uses: `from_pretrained("ibm-granite/granite-3.2-8b-instruct")`,
    /// `model_name = "…"`, `--model …`.
    Model { id: String },
}

/// Which message says a GPU has no code to run (see `EventKind::GpuArchMissing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GpuArchForm {
    /// `no kernel image is available`, torch's capability warnings, CUDA's `invalid device
    /// function`, a package's own kernel guard (`SM89 kernel is not available`).
    NoKernel,
    /// Triton (torch.compile's GPU compiler) refuses a GPU below its minimum capability.
    TritonTooOld,
    /// FlashAttention 2's own check: its kernels exist for Ampere and newer only.
    FlashAttnAmpere,
    /// vLLM's bfloat16 check on a GPU without bfloat16.
    Bf16Unsupported,
    /// ROCm: `hipErrorNoBinaryForGpu`, HIP's `invalid device function` (an AMD GPU).
    Rocm,
    /// torch's runtime compiler (NVRTC, of the CUDA torch was built with) does not know the
    /// GPU's architecture: `nvrtc: error: invalid value for --gpu-architecture (-arch)`.
    NvrtcArch,
}

/// Causes of a failed compile that their own words name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompileCause {
    /// CUB 1.15 (CUDA 11.x) compiled after windows.h on Windows: `rpcndr.h`'s `small` macro
    /// breaks `dispatch_segmented_sort.cuh` (`error: expected an identifier` at its lines 338
    /// and 379); fixed in CUB 1.16, which CUDA 12 ships.
    CubWindowsMacro,
    /// Thrust refusing the CUB on the include path: `The version of CUB in your include path is
    /// not compatible with this release of Thrust` (a CUB_HOME of another release).
    CubThrustVersion,
    /// `build_ext --inplace` copying the built module into a package directory that does not
    /// exist where the command runs: `error: could not create
    /// 'monotonic_align/core.cpython-37m-x86_64-linux-gnu.so': No such file or directory` (the
    /// extension's dotted name has a package part the folder lacks).
    InplaceDirMissing,
}

/// Why Windows' loader refused a DLL, as its error code (in any language) says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DllFailure {
    /// Error 126 (or no reason given): the DLL, or one it needs, is not found.
    Missing,
    /// Error 127: a DLL lacks a function the module imports — Windows' undefined symbol.
    Procedure,
    /// Error 1114: the DLL loaded but its initialization routine failed (an older Visual C++
    /// runtime loaded first, a runtime the build needs absent).
    InitFailed,
}
