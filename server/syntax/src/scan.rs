//! The line scanner: turns any text (traceback, terminal capture, build log) into [`Event`]s.
//!
//! One Aho-Corasick pass (SIMD "Teddy" prefilter) over the whole text finds trigger phrases; only
//! lines holding a trigger are looked at, and only by the recognizers whose triggers they hold.
//! Lines that are not candidates cost nothing beyond that pass, which keeps a 100 MB log close to
//! `grep` speed. Candidate lines carrying ANSI codes or HTML anchors are cleaned one by one and
//! spans mapped back, so every span is in the coordinates of the input text.

use std::borrow::Cow;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use memchr::memmem;

use crate::clean;
use crate::span::SourceMap;
use crate::{CompileCause, Event, EventKind, GpuArchForm, Parse, Problem, Span};

mod backends;
mod cpu;
mod loadforms;
mod winstatus;
pub use loadforms::{is_compiled_name, is_torch_family};

/// Lines longer than this are only analysed in windows around their triggers.
const MAX_LINE: usize = 16 * 1024;
/// Window around a trigger inside an over-long line.
const WINDOW_BEFORE: usize = 2 * 1024;
const WINDOW_AFTER: usize = 4 * 1024;
/// Events one line (or window) may produce; beyond it the input is hostile, not a log.
const MAX_EVENTS_PER_LINE: usize = 64;
const MAX_PROBLEMS: usize = 32;
/// Longest string copied into an event (a detail line, a message).
const MAX_FIELD: usize = 1024;

// Recognizer groups: each trigger phrase sets one or more of these bits on its line.
const SYM: u64 = 1 << 0;
const SHLIB: u64 = 1 << 1;
const VERNF: u64 = 1 << 2;
const EXC: u64 = 1 << 3;
const TB: u64 = 1 << 4;
const CHAIN: u64 = 1 << 5;
const FRAME: u64 = 1 << 6;
const MARK: u64 = 1 << 7;
const WRAP: u64 = 1 << 8;
const SUGG: u64 = 1 << 9;
const PIP: u64 = 1 << 10;
const BFAIL: u64 = 1 << 11;
const NOTORCH: u64 = 1 << 12;
const CUDAHOME: u64 = 1 << 13;
const CUDAMM: u64 = 1 << 14;
const LD: u64 = 1 << 15;
const LIBCUDA: u64 = 1 << 16;
const NOCC: u64 = 1 << 17;
const COMPFAIL: u64 = 1 << 18;
const MAMBA: u64 = 1 << 19;
const XF: u64 = 1 << 20;
const FA: u64 = 1 << 21;
const OPMISS: u64 = 1 << 22;
const CUSTOMOPS: u64 = 1 << 23;
const NUMPY: u64 = 1 << 24;
const OOM: u64 = 1 << 25;
const GPUPROC: u64 = 1 << 26;
const PYBIND: u64 = 1 << 27;
const VERSION: u64 = 1 << 28;
const WHEEL: u64 = 1 << 29;
const MODEL: u64 = 1 << 30;
const WINDLL: u64 = 1 << 31;
const LOADFORM: u64 = 1 << 32;
const GPUARCH: u64 = 1 << 33;
const DRIVER: u64 = 1 << 34;
const CPUTORCH: u64 = 1 << 35;
const FOREIGN: u64 = 1 << 36;
const IOBACK: u64 = 1 << 37;
const JITLOG: u64 = 1 << 38;

/// The progress lines of torch's JIT extension builds and the op builders around them
/// (DeepSpeed's, ColossalAI's): the trigger table and the stalled-build reader share them.
const JIT_PROGRESS: [&str; 5] = [
    "as PyTorch extensions root",
    "Loading extension module ",
    "Building extension module ",
    "Emitting ninja build file",
    "kernel during runtime now",
];

/// The loader's `undefined symbol`, and the same retyped by hand in a report.
const UNDEFINED_SYMBOL: [&str; 4] = [
    "undefined symbol",
    "underfined symbol",
    "un defined symbol",
    "undefind symbol",
];

/// Trigger phrases, longest first where one contains another (leftmost-first matching hides a
/// phrase that starts inside an earlier match, so such phrases carry both groups' bits).
const TRIGGERS: &[(&str, u64)] = &[
    ("undefined symbol", SYM),
    // Retyped by hand: `underfined symbol: _ZN2at5Error…`, `un defined symbol: …`.
    ("underfined symbol", SYM),
    ("un defined symbol", SYM),
    ("undefind symbol", SYM),
    ("Symbol not found", SYM),
    // A Cython module's cimport of another module's C API (`cudf._lib.cudf does not export
    // expected C function get_column_data_ptr`).
    ("does not export expected C", SYM),
    ("symbol not found in flat namespace", SYM | LOADFORM),
    ("Version mismatch: ", VERSION),
    // Intel Extension for PyTorch's check of torch at import.
    ("needs to work with PyTorch ", VERSION),
    // DeepSpeed's check of its prebuilt ops: `Install torch version=2.1, Runtime torch
    // version=2.2`.
    ("Runtime torch version=", VERSION),
    // The PyTorch index an install used or was told to use (its build label).
    ("download.pytorch.org/whl/", VERSION),
    ("JAX plugin ", VERSION),
    ("but this version of jax requires", VERSION),
    ("is newer than and incompatible with jax version", VERSION),
    // XLA's check of a PJRT plugin's C API against the framework's (JAX, through any backend).
    ("PJRT API version", VERSION),
    ("PJRT_Api size", VERSION),
    // Windows' loader dialog and its console form: `The procedure entry point X could not be
    // located in the dynamic link library Y.dll`.
    ("procedure entry point ", SYM),
    (" not found in DLL: ", SYM),
    ("not defined in file ", SYM),
    ("cannot open shared object", SHLIB),
    ("Unable to open library: ", SHLIB),
    ("Could not load shared object file: ", SHLIB),
    // glibc's message in the system's language (see `LOCALIZED_CANNOT_OPEN`).
    ("无法打开共享对象文件", SHLIB),
    ("невозможно открыть разделяемый объектный файл", SHLIB),
    ("Shared-Object-Datei nicht öffnen", SHLIB),
    ("共有オブジェクトファイルを開けません", SHLIB),
    ("공유 객체 파일을 열 수 없습니다", SHLIB),
    ("fichier d'objet partagé", SHLIB),
    ("fichero del objeto compartido", SHLIB),
    // MKL's dispatcher: `Intel MKL FATAL ERROR: Cannot load libmkl_mc3.so or libmkl_def.so.`
    ("MKL FATAL ERROR", SHLIB),
    ("DLL load failed", WINDLL),
    ("WinError 12", WINDLL),
    ("WinError 1114", WINDLL),
    // Python 2's `WindowsError: [Error 126] The specified module could not be found`.
    ("[Error 126]", WINDLL),
    ("[Error 127]", WINDLL),
    // Windows' error 126 retold without Python's words (`Import Error: DLL failed. The
    // specified module could not be found.`); carries LOADFORM for the `could not be found`
    // inside it.
    ("specified module could not be found", WINDLL | LOADFORM),
    ("LoadLibrary failed with error", WINDLL),
    // A process Windows would not start because a DLL (or a function in one) is missing, by its
    // exit status: STATUS_DLL_NOT_FOUND and STATUS_ENTRYPOINT_NOT_FOUND in hex, signed and
    // unsigned decimal.
    ("0xC0000135", WINDLL),
    ("0xc0000135", WINDLL),
    ("-1073741515", WINDLL),
    ("3221225781", WINDLL),
    ("0xC0000139", WINDLL),
    ("0xc0000139", WINDLL),
    ("-1073741511", WINDLL),
    ("3221225785", WINDLL),
    ("CUDA_PATH is set but CUDA wasn", WINDLL),
    ("rror loading ", WINDLL),
    ("rro loading ", WINDLL),
    ("Could not find module", WINDLL),
    ("cannot load library '", WINDLL),
    ("unable to load shared object '", WINDLL),
    // Windows' loader dialog retold (`… because cudnn64_8.dll was not found.`, `MSVCP140.dll is
    // missing from your computer`, `zlibwapi.dll找不到`); they contain the retold forms below.
    (".dll was not found", WINDLL | LOADFORM),
    (".dll is missing from your computer", WINDLL | LOADFORM),
    (".dll not found", WINDLL | LOADFORM),
    (".dll找不到", WINDLL),
    ("Unable to load any of", LOADFORM),
    ("Unable to load any lib", LOADFORM),
    ("No libcudart.so found", LOADFORM),
    ("Failed to load library libonnxruntime_providers_", LOADFORM),
    ("Could not load any of", LOADFORM),
    // ONNX Runtime's advice when its CUDA provider did not load (alone in a title or a UI).
    ("as mentioned in the GPU requirements page", LOADFORM),
    ("load any of its variants", LOADFORM),
    (" library file", LOADFORM),
    ("Could not load library", LOADFORM),
    // glibc's words for a library it found and could not read (`loadforms::UNREADABLE`).
    (": invalid ELF header", LOADFORM),
    (": file too short", LOADFORM),
    ("ELF load command address/offset", LOADFORM),
    ("ELF file data encoding", LOADFORM),
    ("ELF file version does not match", LOADFORM),
    ("only ET_DYN and ET_EXEC", LOADFORM),
    // (It holds `CUDA`, the version trigger, whose readers run here too.)
    ("Couldn't open CUDA library ", LOADFORM | VERSION),
    ("failed to find lib", LOADFORM),
    ("The third-party dynamic library (", LOADFORM),
    // TensorFlow's loader, its `; dlerror: …` cut off (an issue's title).
    ("Could not load dynamic library '", LOADFORM),
    ("=> not found", LOADFORM),
    ("XGBoost Library (", LOADFORM),
    ("failed to open ", LOADFORM),
    // torchaudio's optional backends: `load requires sox extension which is not available`.
    ("sox extension which is not available", LOADFORM),
    // torchaudio's start-up finding no compiled module: `torchaudio C++ extension is not
    // available.`
    ("C++ extension is not available", LOADFORM),
    // numba's CUDA JIT: `NvvmSupportError: libNVVM cannot be found.`
    ("libNVVM cannot be found", LOADFORM),
    (" not found in the system path", LOADFORM),
    // A library file retold as missing (`libcudart.so.11.0 not found`).
    // (Also a library's configuration program, `pg_config executable not found`, and jaxlib's
    // `The cuSPARSE library was not found`: CUDAMM's readers.)
    (" not found", LOADFORM | CUDAMM),
    ("cannot be found", LOADFORM),
    ("could not be found", LOADFORM),
    (" is missing", LOADFORM),
    ("was not found in the pkg-config search path", CUDAMM),
    ("Shared library with base name '", LOADFORM),
    (" is not initialized", LOADFORM),
    ("Could not load this library", LOADFORM),
    ("Could not locate ", LOADFORM),
    ("Could not find: ", LOADFORM),
    ("Failed to load NCCL library from ", LOADFORM),
    ("unable to load shared library: ", LOADFORM),
    ("or cannot be loaded", LOADFORM),
    ("Cannot load ", LOADFORM),
    ("Library not loaded", LOADFORM),
    // glcontext's and similar loaders: `Exception: (detect) libX11.so not loaded`.
    (" not loaded", LOADFORM),
    ("Cannot dlopen some GPU libraries", LOADFORM),
    ("cannot load library '", LOADFORM),
    ("manage to locate a library called", LOADFORM),
    ("DGL C++", LOADFORM),
    ("There is no such file ", LOADFORM),
    ("c++ library", LOADFORM),
    ("C++ library", LOADFORM),
    ("No such operator", OPMISS),
    // TensorFlow's graph naming an op no library of this process registered.
    ("Op type not registered", OPMISS),
    ("'_OpNamespace' '", OPMISS),
    ("Unknown builtin op", OPMISS),
    ("from the 'CUDA' backend", OPMISS),
    ("version `", VERNF),
    // The linker's form: ``undefined reference to `std::…@GLIBCXX_3.4.30'``.
    ("@GLIBC", VERNF),
    ("@CXXABI_", VERNF),
    // Markdown and chat clients eat backticks: `version GLIBCXX_3.4.29 not found`.
    ("version GLIBC", VERNF),
    ("version 'GLIBC", VERNF),
    ("version \\'", VERNF),
    ("library version not found", SHLIB),
    // `…so: undefined` wrapped before ` symbol: …`.
    ("undefined\n", SYM),
    ("undefined\r\n", SYM),
    ("Error:", EXC | NUMPY),
    ("Error(", EXC),
    ("Error\x1b", EXC),
    ("Exception:", EXC),
    ("Exception(", EXC),
    ("Traceback (most recent", TB),
    ("above exception", CHAIN),
    ("File ", FRAME),
    ("Cell ", FRAME),
    ("Input In", FRAME),
    ("<ipython-input-", FRAME),
    (".py in ", FRAME),
    // pytest's short frames (`../site-packages/PIL/Image.py:56: in <module>`); carries NUMPY for
    // the `in the NumPy 2.0 release` that could start inside it.
    (": in ", FRAME | NUMPY),
    ("--> ", MARK),
    ("Failed to import", WRAP),
    ("pip install", SUGG),
    ("lease run", SUGG),
    ("Collecting ", PIP),
    ("Successfully installed ", PIP),
    ("Downloading ", PIP | WHEEL),
    ("Building wheel for", PIP),
    ("Running setup.py install for", PIP),
    ("Running setup.py develop for", PIP),
    ("Using cached", PIP),
    // pip's resolver after installing: `X 1.0 requires torch==2.3.0, but you have torch 2.2.1
    // which is incompatible.`
    (" which is incompatible", PIP),
    ("Guessing wheel URL", PIP),
    ("Precompiled wheel", PIP),
    ("subprocess-exited-with-error", BFAIL),
    ("Getting requirements to build wheel ... error", BFAIL),
    ("Failed to build", BFAIL),
    ("Build backend failed", BFAIL),
    ("Failed to fetch wheel", BFAIL),
    ("Failed to download and build", BFAIL),
    ("Failed building wheel", BFAIL),
    ("Failed building editable", BFAIL),
    ("metadata-generation-failed", BFAIL),
    ("did not run successfully", BFAIL),
    // Docker BuildKit's summary of a failed `RUN` step: `ERROR: failed to solve: process
    // "/bin/sh -c pip install flash-attn --no-build-isolation" did not complete successfully:
    // exit code: 1`.
    ("did not complete successfully: exit code", BFAIL),
    // A compiler or linker the kernel killed for memory (see `compiler_killed`).
    ("Killed signal terminated program", BFAIL),
    ("internal compiler error: Killed", BFAIL),
    ("due to signal 9", BFAIL),
    ("terminated with signal 9", BFAIL),
    ("Error 137", BFAIL),
    ("out of heap space", BFAIL),
    ("Error building extension '", BFAIL),
    ("legacy-install-failure", BFAIL),
    // pip 19–20's summary of a failed `setup.py install`, and torch's cpp_extension build.
    ("Command errored out with exit status", BFAIL),
    // Older pips: `Command "python setup.py egg_info" failed with error code 1 in /tmp/…`.
    ("failed with error code", BFAIL),
    ("Could not build wheels for ", BFAIL),
    ("failed to build wheel for ", BFAIL),
    // A build tool the build runs as a program, missing (`/bin/sh: cmake: command not found`,
    // `'swig' is not recognized as an internal or external command`).
    ("command not found", BFAIL | LOADFORM),
    (
        "is not recognized as an internal or external command",
        BFAIL,
    ),
    ("Error compiling objects for extension", BFAIL),
    ("Error compiling Cython file", BFAIL),
    // Both contain shorter triggers that start later, whose groups they carry.
    ("Cython.Compiler.Errors.CompileError", BFAIL | NOCC),
    ("AttributeError: cython_sources", BFAIL | EXC | NUMPY),
    ("MACOSX_DEPLOYMENT_TARGET mismatch", BFAIL),
    ("PyO3's maximum supported version", BFAIL),
    ("No module named", NOTORCH),
    (" miss in module", NOTORCH),
    ("cannot import name ", NOTORCH),
    ("Ninja is required", NOTORCH),
    ("invalid command 'bdist_wheel'", NOTORCH),
    ("Cannot find a working triton installation", NOTORCH),
    ("from 'pkg_resources", NOTORCH),
    // Cython 3 refusing a `.pyx` written for Cython 0.29: `Cannot assign type 'void (const char
    // *) except * nogil' to 'void (*)(const char *) noexcept nogil'`.
    ("Cannot assign type '", NOTORCH),
    ("CUDA_HOME", CUDAHOME),
    ("Cuda is not availab", CUDAHOME),
    // An extension whose build found no CUDA and compiled its CPU half only (detectron2's,
    // maskrcnn-benchmark's and DCN's `AT_ERROR("Not compiled with GPU support")`).
    ("Not compiled with GPU support", CUDAHOME),
    // PyG's extensions (`Not compiled with CUDA support`) and mmcv's op registry
    // (`nms_impl: implementation for device cuda:0 not found`) say the same of theirs.
    ("Not compiled with CUDA support", CUDAHOME | VERSION),
    ("implementation for device cuda", CUDAHOME),
    ("cuda.h: No such file", CUDAHOME),
    ("cuda_runtime.h: No such file", CUDAHOME),
    ("nvcc", CUDAHOME | NOCC),
    ("bare_metal_version", CUDAHOME),
    // distutils handed a CUDA source with no CUDA build step set up (CuPy's setup without
    // nvcc): `error: unknown file type '.cu' (from 'cupy/cuda/cupy_thrust.cu')`.
    ("unknown file type '.cu'", CUDAHOME),
    // A Makefile linking a CUDA object nvcc never made (`gcc: error: …/roi_pooling.cu.o: No
    // such file or directory`); carries the groups of `No such file or directory` inside it.
    (".cu.o: No such file", NOCC | CUDAHOME | CUDAMM | BFAIL),
    // ninja asked for a toolkit file under an empty CUDA_HOME (`'/lib64/libcudart.so', needed
    // by '…', missing and no known rule to make it`).
    ("missing and no known rule to make it", CUDAHOME),
    ("CMAKE_CUDA_COMPILER", CUDAHOME),
    ("CMakeDetermineCUDACompiler", CUDAHOME),
    ("No CUDA toolset found", CUDAHOME),
    // torch's own CMake package config (Caffe2Config.cmake) for a CMake-built extension: `Your
    // installed Caffe2 version uses CUDA but I cannot find the CUDA` (the line wraps before `libraries`); CMake's
    // FindCUDA and FindCUDAToolkit modules: `Could NOT find CUDA (missing:
    // CUDA_TOOLKIT_ROOT_DIR …)`, `Could NOT find CUDAToolkit (missing: …)`.
    ("uses CUDA but I cannot find the CUDA", CUDAHOME),
    ("Could NOT find CUDA", CUDAHOME),
    // CMake's config-mode find_package (`By not providing "FindTorch.cmake"`, `…package
    // configuration file provided by "pybind11"`): a build dependency's CMake files.
    ("By not providing \"Find", CUDAMM),
    ("package configuration file provided by", CUDAMM),
    // setup scripts' locate_cuda() (py-faster-rcnn's and its descendants'): `The CUDA lib64 path
    // could not be located in /usr/lib64`.
    (" path could not be located in ", CUDAHOME),
    ("The detected CUDA version", CUDAMM | VERSION),
    ("检测到的 CUDA 版本", CUDAMM),
    // torchvision's and torchaudio's checks, whole or wrapped after "different".
    ("were compiled with different", CUDAMM),
    // JIT op builders: DeepSpeed's and apex's own checks, and an nvcc too old for the build.
    ("does not match the version torch was compiled with", CUDAMM),
    ("version used to compile Pytorch binaries", CUDAMM),
    // k2's setup: `PyTorch is built with CUDA version: 11.7.` / `The current running CUDA
    // version is: 10.2.89`.
    ("PyTorch is built with CUDA version", CUDAMM | VERSION),
    // Mask2Former's op loader: `Please compile MultiScaleDeformableAttention CUDA op with the
    // following commands:`.
    (" CUDA op with the following", NOTORCH),
    // Jitify (cuDF, CuPy) loading a CUDA library older than the code needs: `Dynamically loaded
    // libnvJitLink.so.12 is too old; it is version 12.2, need at least version 12.9`.
    ("is too old; it is version", CUDAMM),
    // numba's NVVM knowing no compute capability: `NvvmSupportError: No supported GPU compute
    // capabilities found. Please check your cudatoolkit version matches your CUDA version.`
    ("No supported GPU compute capabilities found", CUDAMM),
    // `architecture`, and as titles retype it (`architechture`).
    ("Unsupported gpu archit", CUDAMM),
    ("unsupported gpu archit", CUDAMM),
    ("is not defined for option 'gpu-", CUDAMM),
    // LLVM's NVPTX backend (Triton's compiler): `'sm_120' is not a recognized processor for this
    // target (ignoring processor)`.
    ("is not a recognized processor for this target", CUDAMM),
    ("is not defined for option 'std'", CUDAMM),
    ("Unknown option", CUDAMM),
    // CCCL's check that nvcc and the CUDA headers it compiles with are of one toolkit.
    (
        "CUDA compiler and CUDA toolkit headers are incompatible",
        CUDAMM,
    ),
    ("cuDNN version", CUDAMM),
    ("was not declared in this scope", CUDAMM),
    ("has not been declared", CUDAMM),
    ("does not name a type", CUDAMM),
    ("is not a member of ", CUDAMM),
    ("no member named ", CUDAMM),
    ("\" is undefined", CUDAMM),
    ("THC/", CUDAMM),
    ("DeprecatedTypeProperties", CUDAMM),
    ("torch.utils.ffi is deprecated", CUDAMM),
    ("TH/TH.h", CUDAMM),
    ("CUDA Setup failed", CUDAMM),
    ("compiled without GPU support", CUDAMM),
    ("bitsandbytes CUDA binary", CUDAMM),
    ("bitsandbytes native library", CUDAMM),
    ("CUDA detection failed", CUDAMM),
    // bitsandbytes' CUDA setup (before 0.43) finding no runtime, and its Linux build's setup
    // failing on Windows paths; the first carries VERSION for the `CUDA` inside it.
    (
        "main CUDA runtime library was not detected",
        CUDAMM | VERSION,
    ),
    ("argument of type 'WindowsPath' is not iterable", CUDAMM),
    // A package's summary of its own libraries not loading (`package_library_unloadable`).
    ("Could not load libtorchcodec", CUDAMM),
    ("Unable to load cu", CUDAMM),
    // bitsandbytes' CPU library (or none) loaded in place of its CUDA one.
    ("function 'c", CUDAMM),
    // Holds Mamba's `has no attribute 'causal_conv1d_…` trigger: both readers look.
    ("object has no attribute 'c", CUDAMM | MAMBA),
    ("CuDNN library:", CUDAMM),
    ("DNN library ", CUDAMM),
    ("Fail to find the dnn implementation", CUDAMM),
    ("Could not find a local HDF5 installation", CUDAMM),
    ("but JAX was built against", CUDAMM),
    ("cannot find -l", LD),
    ("unable to find library -l", LD),
    // MSVC's linker: `LINK : fatal error LNK1181: cannot open input file 'c10_cuda.lib'`.
    ("cannot open input file '", LD),
    ("libcuda.so", LIBCUDA),
    // conda's, mamba's and pixi's solvers finding no `__cuda` virtual package (no driver seen
    // where the environment is solved).
    ("Virtual package '__cuda", LIBCUDA),
    ("nothing provides __cuda", LIBCUDA),
    ("__cuda is missing", LIBCUDA),
    ("Found no NVIDIA driver", LIBCUDA),
    ("no CUDA-capable device", LIBCUDA),
    ("No CUDA GPUs are available", LIBCUDA),
    ("CUDA_ERROR_NO_DEVICE", LIBCUDA),
    // Error 34: the driver API answered from the toolkit's stub (`CUDA_ERROR_STUB_LIBRARY`,
    // the runtime's `cudaErrorStubLibrary`).
    ("STUB_LIBRARY", LIBCUDA),
    ("cudaErrorStubLibrary", LIBCUDA),
    ("CUDA driver initialization failed", LIBCUDA),
    // Numba's `Error at driver init: CUDA driver library cannot be found.`
    (
        "CUDA driver library cannot be found",
        LIBCUDA | LOADFORM | VERSION,
    ),
    ("ompiler", NOCC),
    ("Visual C++ 14.0", NOCC),
    ("supported Microsoft Visual C++ installation", NOCC),
    ("You need C++", NOCC),
    // A build that needs Rust (tokenizers, safetensors, orjson from their sdists): maturin's
    // `Cargo, the Rust package manager, is not installed or is not on PATH.`, setuptools-rust's
    // `error: can't find Rust compiler`.
    ("Rust package manager, is not installed", NOCC),
    ("can't find Rust compiler", NOCC),
    ("can't find Rust Compiler", NOCC),
    ("can not find Rust compiler", NOCC),
    ("can not find Rust Compiler", NOCC),
    // maturin (PyO3 builds): `Cargo metadata failed. Do you have cargo in your PATH?`.
    ("Do you have cargo in your PATH", NOCC),
    // A Rust toolchain older than the crate needs: cargo's `requires rustc 1.70 or newer, while
    // the currently active rustc version is 1.65.0`, rustc's `error[E0658]: … is unstable`.
    ("currently active rustc version", NOCC),
    ("error[E0658]", NOCC),
    ("unsupported GNU version", NOCC),
    ("of the host compiler (", NOCC),
    // A library's headers refusing the compiler's standard (`rocPRIM requires at least C++17`).
    ("requires at least C++", NOCC),
    // A build's own check of the compiler (NumPy's meson: `NumPy requires GCC >= 9.3`), and the
    // system's g++ given ROCm's flags (`unrecognized command-line option '--offload-arch=…'`).
    ("requires GCC >=", NOCC),
    ("unrecognized command-line option", NOCC),
    (
        "greater than the maximum required version by CUDA",
        NOCC | VERSION,
    ),
    ("unsupported clang version", NOCC),
    ("unsupported Microsoft Visual Studio version", NOCC),
    ("parameter packs not expanded", NOCC),
    // nvcc failing inside gcc's own intrinsics headers (`…/gcc/x86_64-linux-gnu/5/include/
    // avx512vlintrin.h(10919): error: argument of type …`).
    ("intrin.h(", NOCC),
    ("STL1002", NOCC),
    ("Python.h: No such file", NOTORCH),
    ("Can't find Python.h", NOTORCH),
    // Markdown's bold around the header (`fatal error: **Python.h**: No such file`).
    ("Python.h**: No such file", NOTORCH),
    // MSVC's C1083: `Cannot open include file: 'Python.h': No such file or directory`.
    ("Python.h': No such file", NOTORCH),
    // tcc (Triton on Windows): `error: include file 'Python.h' not found`; other headers
    // go to the compile-name reader.
    ("include file 'Python.h' not found", NOTORCH),
    ("'Python.h' file not found", NOTORCH),
    ("Compatibility with CMake < 3.5 has been removed", NOTORCH),
    // atari-py's setup after its CMake step failed: `HINT: are you sure cmake is installed?`
    ("are you sure cmake is installed", NOTORCH),
    ("' file not found", CUDAMM),
    ("include file '", CUDAMM),
    ("fatal error: Python.h: ", NOTORCH | CUDAMM),
    // A header a compile misses, in the compiler's own language (`fatal error: cblas.h: Arquivo
    // ou diretório inexistente`): read by the compile-name reader.
    ("fatal error: ", CUDAMM),
    ("vcvarsall", NOCC),
    ("'where', 'cl']", NOCC),
    ("'which', 'g++']", NOCC),
    ("'which', 'c++']", NOCC),
    ("'which', 'gcc']", NOCC),
    ("Failed to find MSVC", NOCC),
    ("Failed to find Windows SDK", NOCC),
    (": not found", NOCC | LOADFORM),
    (
        "No such file or directory",
        NOCC | CUDAHOME | CUDAMM | BFAIL,
    ),
    ("unable to execute", NOCC),
    ("FAILED: ", COMPFAIL),
    // CUB's own headers failing (see `CompileCause`).
    // (By its file's tail: Markdown escapes the name's underscores, `dispatch\_segmented\_sort`.)
    ("sort.cuh(", COMPFAIL),
    ("The version of CUB in your include path", COMPFAIL),
    // distutils' `build_ext --inplace` into a missing package directory (see
    // `inplace_target_missing`).
    ("could not create '", COMPFAIL),
    // auditwheel repairing a wheel (see `loadforms::auditwheel_missing`).
    ("Cannot repair wheel, because required library", LOADFORM),
    ("Cannot install on Python version ", LOADFORM | VERSION),
    ("' failed", COMPFAIL | NOCC),
    ("CalledProcessError", COMPFAIL | EXC),
    ("build stopped", COMPFAIL),
    ("error: Unsupported architecture", COMPFAIL),
    (
        "exception specification is incompatible with that of previous",
        COMPFAIL,
    ),
    (
        "exception specification in declaration does not match previous",
        COMPFAIL,
    ),
    ("unresolved external", COMPFAIL | CUDAMM),
    ("implicit declaration of function", CUDAMM),
    ("too few arguments to function", CUDAMM),
    ("use of undeclared identifier", CUDAMM),
    // MSVC's C2065 (its C3861, `identifier not found`, is under ` not found`).
    ("': undeclared identifier", CUDAMM),
    // Older MSVC puts a space before the colon (`'THCState' : undeclared identifier`).
    ("' : undeclared identifier", CUDAMM),
    ("undefined reference to", CUDAMM),
    ("fatal error LNK1120", COMPFAIL),
    // DeepSpeed's CPU optimizers without their JIT op (`'DeepSpeedCPUAdam' object has no
    // attribute 'ds_opt_adam'`).
    ("object has no attribute 'ds_opt_", COMPFAIL),
    // A kernel compiled for a GPU older than its instructions need (ptxas' `Feature 'ldmatrix'
    // requires .target sm_75 or higher`, nvcc's atomicAdd of `__half` below sm_70).
    ("requires .target sm_", COMPFAIL),
    ("overloaded function \"atomicAdd\"", COMPFAIL),
    ("ob_digit", COMPFAIL),
    ("incomplete type 'PyFrameObject'", COMPFAIL),
    ("incomplete type \u{2018}PyFrameObject\u{2019}", COMPFAIL),
    ("fast path is not available", MAMBA),
    ("has no attribute 'causal_conv1d_", MAMBA),
    ("has no attribute 'selective_scan_", MAMBA),
    ("can't load C++/CUDA", XF),
    ("Need to compile C++", XF),
    ("No operator found for `memory_efficient", XF),
    ("wasn't build with CUDA support", XF),
    ("wasn't built with CUDA support", XF),
    ("has been toggled on", FA),
    // A model's own check for the kernels (Point Transformer V3's `assert flash_attn is not
    // None, "Make sure flash_attn is installed."`).
    ("Make sure flash_attn is installed", FA),
    ("does not exist", OPMISS),
    ("load custom C++ ops", CUSTOMOPS),
    ("Skipping import of cpp extensions", CUSTOMOPS),
    ("image Python extension", CUSTOMOPS),
    ("An issue occurred while importing", CUSTOMOPS),
    ("NumPy 1.x", NUMPY),
    ("Numpy is not available", NUMPY),
    // A package's gate on NumPy's version (`Numba needs NumPy 1.24 or less`); it contains
    // `NumPy`, whose groups it carries.
    ("needs NumPy ", VERSION | NUMPY),
    ("initialization of _internal failed", NUMPY),
    ("dtype size changed", NUMPY),
    ("ndarray size changed", NUMPY),
    ("has the wrong size, try recompiling", NUMPY),
    ("_ARRAY_API", NUMPY),
    ("compiled against A", NUMPY),
    ("multiarray failed to import", NUMPY),
    ("from 'numpy'", NUMPY),
    ("from 'numpy.", NUMPY),
    ("module 'numpy'", NUMPY),
    ("' has no attribute '", NUMPY),
    // Triton's `tl.tensor` (lowercase, unlike torch's `Tensor`) in a kernel written for another
    // Triton: `AttributeError("'tensor' object has no attribute 'cast'")`.
    ("'tensor' object has no attribute '", NUMPY),
    // torch's Inductor reading a Triton of another release: `does not has any of the
    // attributes: ['cluster_dims', 'clusterDims']`, `fields(AttrsDescriptor)` on Triton 3.2's
    // (no longer a dataclass).
    ("does not has any of the attributes: ['", NUMPY),
    ("fields(AttrsDescriptor)", NUMPY),
    ("in the NumPy 2.0 release", NUMPY),
    ("nonexistent attribute or method '", NUMPY),
    ("need time to support NumPy 2", NUMPY | VERSION),
    ("out of memory", OOM),
    ("memory in use", GPUPROC),
    ("MiB |", GPUPROC),
    ("incompatible function arguments", PYBIND),
    ("no kernel image", GPUARCH),
    ("kernel image is invalid", GPUARCH),
    ("invalid value for --gpu-architecture", GPUARCH),
    ("invalid device function", GPUARCH),
    ("hipErrorNoBinaryForGpu", GPUARCH),
    ("HSA_STATUS_ERROR_INVALID_ISA", GPUARCH),
    ("too old to be supported by the triton", GPUARCH),
    ("Unknown CUDA arch", GPUARCH),
    ("Unknown CUDA Architecture", GPUARCH),
    (" kernel is not available", GPUARCH),
    ("has no device code compatible with", GPUARCH),
    ("only supports Ampere", GPUARCH),
    ("Bfloat16 is only supported on GPUs", GPUARCH),
    ("NoKernelImage", GPUARCH),
    ("NO_BINARY_FOR_GPU", GPUARCH),
    ("not compatible with the current PyTorch", GPUARCH),
    ("supports CUDA capabilities", GPUARCH),
    ("which is of cuda capability", GPUARCH),
    ("which is of compute capability", GPUARCH),
    ("cuda capability supported by", GPUARCH),
    ("cuda capability that we support", GPUARCH),
    ("does not include kernels for this GPU", GPUARCH),
    // A package's own guard: `FATAL: kernel built for sm80-sm100, but running on sm121`.
    ("but running on sm", GPUARCH),
    // Its older form, where the architecture after "built for" is the code the GPU ran
    // (`FATAL: kernel `fmha_cutlassF_…` is for sm80-sm100, but was built for sm50`), and its
    // dispatcher finding no kernel for the GPU at all.
    ("but was built for sm", GPUARCH),
    ("no kernel found to launch", GPUARCH),
    ("flash_fwd_launch_template.h", GPUARCH),
    // PaddlePaddle's own check, FlashInfer's minimum, FlashAttention's ROCm build check.
    ("but your current GPU is ", GPUARCH),
    ("requires GPUs with sm", GPUARCH),
    ("is invalid or not supported by Flash-Attention", GPUARCH),
    ("Triton Error [CUDA]: device kernel image", DRIVER),
    ("driver on your system is too old", DRIVER),
    ("driver version is insufficient", DRIVER),
    ("InsufficientDriver", DRIVER),
    ("forward compatibility was attempted", DRIVER),
    ("unsupported display driver", DRIVER),
    ("Driver/library version mismatch", DRIVER),
    ("does not match DSO version", DRIVER),
    ("INSUFFICIENT_DRIVER", DRIVER),
    ("failure with error: 35", DRIVER),
    ("with an unsupported toolchain", DRIVER),
    ("Unsupported .version ", DRIVER),
    ("UNSUPPORTED_PTX_VERSION", DRIVER),
    ("UnsupportedPtxVersion", DRIVER),
    ("not compiled with CUDA enabled", CPUTORCH),
    // Binaries that do not fit the process or the CPU (`scan/cpu.rs`).
    ("incompatible architecture", FOREIGN),
    ("mach-o file, but is an incompatible", FOREIGN),
    ("but wrong architecture", FOREIGN),
    ("unknown file type, first eight bytes", FOREIGN),
    ("wrong ELF class", FOREIGN),
    ("not a valid Win32 application", FOREIGN),
    ("cannot execute binary file", FOREIGN),
    (": exec format error", FOREIGN),
    ("x86_64 build of Python on an Apple Silicon", FOREIGN),
    ("llegal instruction", FOREIGN),
    ("ILLEGAL INSTRUCTION", FOREIGN),
    ("llegal hardware instruction", FOREIGN),
    ("SIGILL", FOREIGN),
    // A process killed by signal 4 (SIGILL), as supervisors and Docker print it.
    ("by signal 4)", FOREIGN),
    ("exited with code 132", FOREIGN),
    // The kernel's log of a process killed by an instruction its CPU lacks (`python[24460] trap
    // invalid opcode ip:7fb4d67981ad … in dlib.cpython-36m-x86_64-linux-gnu.so[…]`).
    ("trap invalid opcode", FOREIGN),
    ("0xc000001d", FOREIGN),
    ("0xC000001D", FOREIGN),
    ("-1073741795", FOREIGN),
    ("3221225501", FOREIGN),
    ("非法指令", FOREIGN),
    ("不正な命令", FOREIGN),
    (" instructions, which your CPU", FOREIGN),
    (" instructions, but these aren", FOREIGN),
    ("OMP: Error #15", FOREIGN),
    (" is not a supported wheel on this platform", FOREIGN),
    (
        "Could not find a version that satisfies the requirement",
        FOREIGN,
    ),
    ("No matching distribution found for ", FOREIGN),
    ("Because there is no version of ", FOREIGN),
    ("Unable to find installation candidates for ", FOREIGN),
    ("doesn't have a source distribution or wheel", FOREIGN),
    ("cannot enable executable stack", FOREIGN),
    ("cannot allocate memory in static TLS block", FOREIGN),
    ("cannot load any more object with static TLS", FOREIGN),
    // conda's solver: a release for no Python like this one.
    (" -> python[version=", FOREIGN),
    // Media packages with no backend to read or write a file (torchaudio, torchvision).
    ("No audio I/O backend is available", IOBACK),
    // torch's JIT extension builds and the op builders around them, as their logs go.
    (JIT_PROGRESS[0], JITLOG),
    (JIT_PROGRESS[1], JITLOG),
    (JIT_PROGRESS[2], JITLOG),
    (JIT_PROGRESS[3], JITLOG),
    (JIT_PROGRESS[4], JITLOG),
    ("Couldn't find appropriate backend", IOBACK),
    ("is not one of available backends", IOBACK),
    ("TorchCodec is required for ", IOBACK),
    ("PyAV is not installed", IOBACK),
    ("but TorchAudio is not compiled with it", IOBACK),
    ("FFmpeg extension. Tried versions", IOBACK),
    ("No ffmpeg exe could be found", IOBACK),
    ("already initialized", FOREIGN),
    // mkl-service's check of MKL's threading layer against the OpenMP runtime already loaded.
    (" is incompatible with libgomp", FOREIGN),
    ("copies of the OpenMP runtime", FOREIGN),
    ("cuda.is_available()", CPUTORCH),
    ("Is CUDA available: False", CPUTORCH),
    // JAX with only its CPU jaxlib: `An NVIDIA GPU may be present on this machine, but a
    // CUDA-enabled jaxlib is not installed. Falling back to cpu.`, and older releases' warning.
    ("enabled jaxlib is not installed", CPUTORCH),
    ("No GPU/TPU found, falling back to CPU", CPUTORCH),
    ("only works on NVIDIA GPUs", CPUTORCH),
    // A build against a CPU-only torch, as its traceback's source lines show (see
    // `cpu_torch_at_build`).
    ("torch.version.cuda.", CPUTORCH),
    ("arch_list[-1] += '+PTX'", CPUTORCH),
    // Version subjects with the separator that follows them in version statements: bare names
    // (`python3.10/` in every path, `numpy>=`, `cuda:0`) would make most log lines candidates.
    ("PyTorch", VERSION),
    // Environment lists in issue bodies: `pytorch==1.7.0`, `pytorch1.7.1`, `cuda10.1`,
    // `cudatoolkit=10.2` (the digit right after the name is the version).
    ("pytorch=", VERSION),
    ("pytorch ", VERSION),
    ("pytorch1", VERSION),
    ("pytorch2", VERSION),
    ("cuda1", VERSION),
    ("cuda=", VERSION),
    ("cuda ", VERSION),
    ("cudatoolkit=", VERSION),
    ("cudatoolkit ", VERSION),
    ("Python", VERSION),
    ("Torch", VERSION),
    ("torchvision ", VERSION),
    ("torchvision=", VERSION),
    ("torchaudio ", VERSION),
    ("torchaudio=", VERSION),
    ("torch ", VERSION),
    ("torch=", VERSION),
    ("torch:", VERSION),
    // The banner the prebuilt-wheel packages' setup.py prints (`torch.__version__  = 2.4.0+cu121`).
    ("torch.__version__", VERSION),
    // pip's own version, as it prints it (see `pip_version`).
    ("You are using pip version ", VERSION),
    ("Using pip ", VERSION),
    ("(currently installed: ", VERSION),
    ("python=", VERSION),
    ("CUDA", VERSION),
    // GPU architecture checks that hold `CUDA` (they keep its group: the leftmost trigger wins).
    // TensorFlow's `was not built with CUDA kernel binaries compatible with compute capability
    // 8.6`; vLLM's `no cutlass_scaled_mm kernel for CUDA device capability: 100`.
    (
        "was not built with CUDA kernel binaries compatible",
        VERSION | GPUARCH,
    ),
    ("kernel for CUDA device capability", VERSION | GPUARCH),
    // LLVM's NVPTX backend (XLA's, Triton's) emitting a PTX ISA older than the GPU's.
    ("does not support target 'sm_", GPUARCH),
    ("Cuda compilation", VERSION),
    ("xformers ", VERSION),
    ("xformers=", VERSION),
    ("flash-attn ", VERSION),
    ("flash-attn=", VERSION),
    ("flash_attn ", VERSION),
    ("flash_attn=", VERSION),
    ("mamba-ssm ", VERSION),
    ("mamba-ssm=", VERSION),
    ("mamba_ssm ", VERSION),
    ("mamba_ssm=", VERSION),
    ("causal-conv1d ", VERSION),
    ("causal-conv1d=", VERSION),
    ("causal_conv1d ", VERSION),
    ("causal_conv1d=", VERSION),
    ("triton ", VERSION),
    ("triton=", VERSION),
    ("Triton", VERSION),
    ("transformers ", VERSION),
    ("transformers=", VERSION),
    ("Transformers", VERSION),
    ("numpy ", VERSION),
    ("numpy=", VERSION),
    ("NumPy", VERSION | NUMPY),
    ("vllm ", VERSION),
    ("vllm=", VERSION),
    ("unsloth ", VERSION),
    ("unsloth=", VERSION),
    (".whl", WHEEL),
    ("cxx11abi", WHEEL),
    ("from_pretrained", MODEL),
    ("model_name", MODEL),
    ("model_id", MODEL),
    ("model_path", MODEL),
    ("name_or_path", MODEL),
    ("model=", MODEL),
    ("model =", MODEL),
    ("--model", MODEL),
];

/// Two automata, because Teddy (the SIMD prefilter) keeps its speed only up to a few dozen
/// patterns: one for failure phrases, one for context facts (versions, models, wheels). Each
/// carries the `TRIGGERS` index of its patterns.
struct Automata {
    failures: (AhoCorasick, Vec<u16>),
    facts: (AhoCorasick, Vec<u16>),
}

fn automata() -> Option<&'static Automata> {
    static AC: OnceLock<Option<Automata>> = OnceLock::new();
    AC.get_or_init(|| {
        let build = |facts: bool| {
            let ids: Vec<u16> = (0..TRIGGERS.len())
                .filter(|&i| (TRIGGERS[i].1 & (VERSION | MODEL | WHEEL) != 0) == facts)
                .map(|i| i as u16)
                .collect();
            let ac = AhoCorasickBuilder::new()
                .match_kind(MatchKind::LeftmostFirst)
                .build(ids.iter().map(|&i| TRIGGERS[i as usize].0))
                .ok()?;
            Some((ac, ids))
        };
        Some(Automata {
            failures: build(false)?,
            facts: build(true)?,
        })
    })
    .as_ref()
}

/// Trigger matches of both automata in text order: (start, `TRIGGERS` index).
fn triggers(text: &str, lo: usize, hi: usize) -> Option<impl Iterator<Item = (usize, u16)> + '_> {
    let a = automata()?;
    let map = |(ac, ids): &'static (AhoCorasick, Vec<u16>)| {
        ac.find_iter(aho_corasick::Input::new(text).span(lo..hi))
            .map(move |m| {
                (
                    m.start(),
                    ids.get(m.pattern().as_usize()).copied().unwrap_or(0),
                )
            })
    };
    let mut x = map(&a.failures).peekable();
    let mut y = map(&a.facts).peekable();
    Some(std::iter::from_fn(move || match (x.peek(), y.peek()) {
        (Some(p), Some(q)) if q.0 < p.0 => y.next(),
        (Some(_), _) => x.next(),
        (None, _) => y.next(),
    }))
}

/// The groups of every trigger phrase in `text` (one cleaned line).
fn trigger_bits(text: &str) -> u64 {
    triggers(text, 0, text.len()).map_or(0, |m| {
        m.fold(0, |acc, (_, pid)| {
            acc | TRIGGERS.get(pid as usize).map_or(0, |t| t.1)
        })
    })
}

/// Texts are scanned in pieces of about this size, split just after a line break: pieces are
/// scanned in parallel, and a streamed scan ([`scan_pieces`]) holds one batch of pieces' events at
/// a time, so a gigabyte log costs what its diagnoses cost. Texts smaller than this are one piece.
pub const PIECE: usize = 4 << 20;
/// How far before its line's start an event's span may begin: a symbol's library is read from
/// the previous line (at most [`MAX_LINE`] long, plus its line break).
const REACH_BACK: usize = MAX_LINE + 1;

/// Scans `text` and returns the events found, with spans into `text`.
pub fn scan(text: &str) -> Parse<Vec<Event>> {
    let mut events = Vec::new();
    let problems = scan_pieces(text, |_, _| (), |batch, ()| events.extend_from_slice(batch));
    Parse {
        value: events,
        problems,
    }
}

/// Scans `text` piece by piece and hands the events to `sink` in batches, in the order [`scan`]
/// returns them (by span), together with what `per_piece` computed from each piece's text and
/// its offset in `text` (on the
/// scanning thread, while the piece is in cache; pieces are whole lines). Memory stays that of a
/// few pieces' events however long the text is. Returns the problems met.
pub fn scan_pieces<T: Send>(
    text: &str,
    per_piece: impl Fn(&str, usize) -> T + Sync,
    mut sink: impl FnMut(&[Event], T),
) -> Vec<Problem> {
    let mut ranges = Vec::new();
    let mut lo = 0;
    while lo < text.len() {
        let hi = piece_end(text, lo);
        ranges.push((lo, hi));
        lo = hi;
    }
    if ranges.is_empty() {
        ranges.push((0, 0));
    }
    let work = |(a, b): (usize, usize)| {
        let (mut e, p) = scan_range(text, a, b);
        resolve_build_packages(text, &mut e);
        e.sort_by_key(|e| (e.span.start, e.span.end));
        (e, p, per_piece(text.get(a..b).unwrap_or(""), a))
    };
    let mut merge = Merge {
        problems: Vec::new(),
        held: Vec::new(),
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(8)
        .min(ranges.len());
    if threads <= 1 {
        for (i, &r) in ranges.iter().enumerate() {
            let next = ranges.get(i + 1).map_or(usize::MAX, |r| r.0);
            merge.piece(Some(work(r)), next, &mut sink, &per_piece);
        }
        return merge.problems;
    }
    // Workers take pieces in order but run at most `AHEAD` pieces ahead of the merge, so the
    // results waiting to be merged stay a few pieces' worth however long the text is.
    const AHEAD: usize = 4;
    let gate = (
        std::sync::Mutex::new((0usize, 0usize)), // (next piece to take, pieces merged)
        std::sync::Condvar::new(),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (gate, ranges) = (&gate, &ranges);
            scope.spawn(move || {
                loop {
                    let idx = {
                        let Ok(mut g) = gate.0.lock() else { return };
                        while g.0 >= g.1 + threads + AHEAD {
                            g = match gate.1.wait(g) {
                                Ok(g) => g,
                                Err(_) => return,
                            };
                        }
                        g.0 += 1;
                        g.0 - 1
                    };
                    let Some(&r) = ranges.get(idx) else { return };
                    let out =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(r))).ok();
                    if tx.send((idx, out)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting: Vec<Option<Option<_>>> = Vec::new();
        let mut merged = 0;
        for (idx, out) in rx {
            let slot = idx - merged.min(idx);
            if waiting.len() <= slot {
                waiting.resize_with(slot + 1, || None);
            }
            waiting[slot] = Some(out);
            while let Some(Some(out)) = waiting.first_mut().map(Option::take) {
                waiting.remove(0);
                let next = ranges.get(merged + 1).map_or(usize::MAX, |r| r.0);
                merge.piece(out, next, &mut sink, &per_piece);
                merged += 1;
                if let Ok(mut g) = gate.0.lock() {
                    g.1 = merged;
                }
                gate.1.notify_all();
            }
        }
    });
    merge.problems
}

/// Merges pieces' events in text order.
struct Merge {
    problems: Vec<Problem>,
    /// Events that a later piece's events may still sort before (their span starts within
    /// `REACH_BACK` of the next piece), kept back until that piece is merged.
    held: Vec<Event>,
}

impl Merge {
    /// Takes the result of the next piece; `next` is where the piece after it starts.
    fn piece<T>(
        &mut self,
        out: Option<(Vec<Event>, Vec<Problem>, T)>,
        next: usize,
        sink: &mut impl FnMut(&[Event], T),
        per_piece: &impl Fn(&str, usize) -> T,
    ) {
        let Some((events, p, extra)) = out else {
            if self.problems.len() < MAX_PROBLEMS {
                self.problems.push(Problem::new(
                    None,
                    "internal error while scanning part of the text",
                ));
            }
            if next == usize::MAX && !self.held.is_empty() {
                sink(&self.held, per_piece("", 0));
                self.held.clear();
            }
            return;
        };
        self.problems.extend(p);
        self.problems.truncate(MAX_PROBLEMS);
        let key = |e: &Event| (e.span.start, e.span.end);
        if self.held.is_empty() {
            self.held = events;
        } else if events
            .first()
            .zip(self.held.last())
            .is_none_or(|(first, last)| key(first) >= key(last))
        {
            // Both are sorted and the new ones all sort after (or level with, and so after, as a
            // stable sort keeps them) the held ones: the sort below would change nothing, and
            // costs two copies of a piece's events.
            self.held.extend(events);
        } else {
            self.held.extend(events);
            // Stable, like one sort of all pieces' events in text order.
            self.held.sort_by_key(key);
        }
        let cut = if next == usize::MAX {
            usize::MAX
        } else {
            next.saturating_sub(REACH_BACK)
        };
        let ready = self.held.partition_point(|e| e.span.start < cut);
        sink(&self.held[..ready], extra);
        self.held.drain(..ready);
    }
}

/// End of the piece starting at `lo`: just after the first line break at or after `lo + PIECE`
/// (the whole rest when none follows), so every piece starts a line.
fn piece_end(text: &str, lo: usize) -> usize {
    let want = lo.saturating_add(PIECE);
    if want >= text.len() {
        return text.len();
    }
    match memchr::memchr(b'\n', &text.as_bytes()[want..]) {
        Some(i) => want + i + 1,
        None => text.len(),
    }
}

/// A fixed set of phrases (at most 128, none a prefix of another) searched for in one pass.
#[derive(Debug, Clone)]
pub struct PhraseSet {
    ac: AhoCorasick,
    all: u128,
}

impl PhraseSet {
    pub fn new(phrases: &[&str]) -> Option<Self> {
        if phrases.is_empty() || phrases.len() > 128 {
            return None;
        }
        // Leftmost-first keeps the SIMD prefilter (overlapping search has none).
        let ac = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostFirst)
            .build(phrases)
            .ok()?;
        Some(Self {
            ac,
            all: u128::MAX >> (128 - phrases.len()),
        })
    }

    /// Bit `i` is set when phrase `i` occurs in `text`.
    pub fn find_in(&self, text: &str) -> u128 {
        let mut found = 0u128;
        let mut at = 0;
        // Resuming one byte after each match's start (not after its end) also finds a phrase
        // that starts inside another; phrases that are not prefixes of each other never share a
        // start.
        while let Some(m) = self
            .ac
            .find(aho_corasick::Input::new(text).span(at..text.len()))
        {
            found |= 1 << m.pattern().as_usize();
            if found == self.all {
                break;
            }
            at = m.start() + 1;
        }
        found
    }
}

/// Scans the lines that start in `[lo, hi)` (`lo` is a line start); context lines may be read
/// beyond the range.
fn scan_range(text: &str, lo: usize, hi: usize) -> (Vec<Event>, Vec<Problem>) {
    let mut sc = Scanner {
        text,
        events: Vec::new(),
        problems: Vec::new(),
        no_version_until: 0,
    };
    let Some(matches) = triggers(text, lo, hi) else {
        sc.problem(None, "internal: the trigger automaton could not be built");
        return (sc.events, sc.problems);
    };
    let bytes = text.as_bytes();
    // Start of the region not yet analysed, and whether it begins a line.
    let mut floor = lo;
    let mut floor_is_line_start = true;
    let mut current: Option<(usize, usize, bool)> = None; // (start, end, window)
    let mut bits = 0u64;
    // Fact triggers seen on the current line: which version subjects to look for.
    let mut facts: Vec<u16> = Vec::new();
    for (at, pid) in matches {
        let pbits = TRIGGERS.get(pid as usize).map_or(0, |t| t.1);
        if let Some((_, end, _)) = current {
            if at < end {
                bits |= pbits;
                if pbits & VERSION != 0 && !facts.contains(&pid) {
                    facts.push(pid);
                }
                continue;
            }
            if let Some((s, e, w)) = current.take() {
                sc.analyse(s, e, w, bits, &facts);
            }
        }
        facts.clear();
        if pbits & VERSION != 0 {
            facts.push(pid);
        }
        let look_from = floor.max(at.saturating_sub(MAX_LINE));
        let (start, mut window) = match memchr::memrchr(b'\n', &bytes[look_from..at]) {
            Some(i) => (look_from + i + 1, false),
            None if look_from == floor && floor_is_line_start => (floor, false),
            None => (
                floor_char(text, floor.max(at.saturating_sub(WINDOW_BEFORE))),
                true,
            ),
        };
        let look_to = text.len().min(at + MAX_LINE);
        let end = match memchr::memchr(b'\n', &bytes[at..look_to]) {
            Some(i) => at + i,
            None if look_to == text.len() => text.len(),
            None => {
                window = true;
                ceil_char(text, at + WINDOW_AFTER)
            }
        };
        let start = if window {
            floor_char(text, floor.max(at.saturating_sub(WINDOW_BEFORE))).max(start)
        } else {
            start
        };
        if window && sc.problems.len() < MAX_PROBLEMS {
            sc.problem(
                Some(Span::new(start, end)),
                format!("line longer than {MAX_LINE} bytes: only the text around recognized phrases was analysed"),
            );
        }
        current = Some((start, end, window));
        bits = pbits;
        floor = if end < text.len() && bytes[end] == b'\n' {
            end + 1
        } else {
            end
        };
        floor_is_line_start = !window || (end < text.len() && bytes[end] == b'\n');
    }
    if let Some((s, e, w)) = current {
        sc.analyse(s, e, w, bits, &facts);
    }
    (sc.events, sc.problems)
}

fn floor_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// One line (or window of an over-long line), cleaned of ANSI codes and anchors when needed.
struct Line<'a> {
    /// Offset of the line's first byte in the input.
    start: usize,
    /// Offset just past the line's `\n` (where the next line starts); `None` for windows.
    next: Option<usize>,
    clean: Cow<'a, str>,
    /// Cleaned-text offsets to raw-line offsets (identity when nothing was removed).
    map: SourceMap,
    /// Where the content starts after log, quote and launcher prefixes.
    content: usize,
}

impl Line<'_> {
    fn s(&self) -> &str {
        &self.clean
    }
    fn c(&self) -> &str {
        self.clean.get(self.content..).unwrap_or("")
    }
    /// Span in input coordinates of cleaned-line offsets `[a, b)`.
    fn span(&self, a: usize, b: usize) -> Span {
        let sp = self.map.span_to_raw(Span::new(a, b.max(a)));
        Span::new(self.start + sp.start, self.start + sp.end)
    }
    /// Span of the trimmed content, to the end of the line.
    fn content_span(&self) -> Span {
        let c = self.c();
        let lead = c.len() - c.trim_start().len();
        let end = self.content + c.trim_end().len();
        self.span(self.content + lead, end.max(self.content + lead))
    }
    /// The trimmed content, capped.
    fn content_text(&self) -> String {
        cap(self.c().trim()).to_owned()
    }
}

fn make_line(text: &str, start: usize, end: usize, window: bool) -> Line<'_> {
    let mut line_end = end;
    let next = if window {
        None
    } else if end < text.len() {
        Some(end + 1)
    } else {
        Some(text.len())
    };
    if text.as_bytes().get(line_end.wrapping_sub(1)) == Some(&b'\r') && line_end > start {
        line_end -= 1;
    }
    let raw = text.get(start..line_end).unwrap_or("");
    let (clean, map) = if clean::needs_cleaning(raw) {
        let c = clean::clean(raw);
        (Cow::Owned(c.text), c.map)
    } else {
        (Cow::Borrowed(raw), SourceMap::identity())
    };
    let content = content_start(&clean);
    Line {
        start,
        next,
        clean,
        map,
        content,
    }
}

struct Scanner<'a> {
    text: &'a str,
    events: Vec<Event>,
    problems: Vec<Problem>,
    /// Version facts inside an xFormers "built for" block are not the environment's: skip them.
    no_version_until: usize,
}

impl<'a> Scanner<'a> {
    fn problem(&mut self, span: Option<Span>, msg: impl Into<String>) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(Problem::new(span, msg));
        }
    }

    fn line_at(&self, start: usize) -> Option<Line<'a>> {
        if start >= self.text.len() {
            return None;
        }
        let bytes = self.text.as_bytes();
        let limit = self.text.len().min(start + MAX_LINE);
        let end = match memchr::memchr(b'\n', &bytes[start..limit]) {
            Some(i) => start + i,
            None if limit == self.text.len() => limit,
            None => return None,
        };
        Some(make_line(self.text, start, end, false))
    }

    fn next_line(&self, l: &Line<'_>) -> Option<Line<'a>> {
        l.next.and_then(|n| self.line_at(n))
    }

    fn prev_line(&self, l: &Line<'_>) -> Option<Line<'a>> {
        if l.start == 0 || l.next.is_none() {
            return None;
        }
        let end = l.start - 1;
        let from = end.saturating_sub(MAX_LINE);
        let start = match memchr::memrchr(b'\n', &self.text.as_bytes()[from..end]) {
            Some(i) => from + i + 1,
            None if from == 0 => 0,
            None => return None,
        };
        Some(make_line(self.text, start, end, false))
    }

    fn mac_symbol_not_found(&self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        // dyld before macOS 12: `Symbol not found: _X`; since: `symbol not found in flat
        // namespace '_X'` (the symbol quoted), or `Symbol not found: (_X)`.
        const FLAT: &str = "symbol not found in flat namespace";
        let (p, q) = if let Some(p) = s.find("Symbol not found:") {
            (p, p + "Symbol not found:".len())
        } else if let Some(p) = s.find(FLAT) {
            let r = &s[p + FLAT.len()..];
            let t = r.trim_start();
            let quote = usize::from(t.starts_with(['\'', '`', '"']));
            (p, p + FLAT.len() + (r.len() - t.len()) + quote)
        } else {
            return;
        };
        let r = s[q..].trim_start();
        let paren = usize::from(r.starts_with('('));
        let r = &r[paren..];
        let q = q + (s[q..].len() - r.len());
        let n = r.bytes().take_while(|&c| is_sym_byte(c)).count();
        if n == 0 {
            return;
        }
        let raw_sym = r[..n].trim_end_matches('.');
        // dyld prints the C-level name: one extra leading underscore.
        let symbol = raw_sym.strip_prefix('_').unwrap_or(raw_sym);
        let library = s[..p].find("dlopen(").and_then(|i| {
            let r = &s[i + 7..p];
            let e = r.find([',', ')']).unwrap_or(r.len());
            non_empty(&r[..e])
        });
        let start = s[..p].find("dlopen(").map_or(p, |i| i + 7);
        let span = l.span(start, q + raw_sym.len());
        // dyld names where it looked (`Expected in: /usr/lib/libSystem.B.dylib`) and the
        // macOS the binary was built for, on this line or the next few: a symbol of macOS's
        // own libraries missing there means a build for a newer macOS than this one.
        let (expected_in, built_for, referenced_from) = self.dyld_context(l, q + raw_sym.len());
        // A CPython symbol expected in Python.framework is a module built for another Python,
        // not an older macOS.
        if let Some(system_library) = expected_in
            .filter(|e| is_macos_system_library(e, built_for.is_some()))
            .filter(|_| !symbol.starts_with("Py") && !symbol.starts_with("_Py"))
        {
            out.push(
                span,
                EventKind::MacosSymbolMissing {
                    // The binary that calls it (a library the module loads), else the module.
                    library: referenced_from.or(library),
                    symbol: cap(symbol).to_owned(),
                    system_library,
                    built_for,
                },
            );
            return;
        }
        let truncated = symbol.starts_with("_Z") && !demangles(symbol);
        out.push(
            span,
            EventKind::UndefinedSymbol {
                library,
                symbol: cap(symbol).to_owned(),
                truncated,
                version_of: None,
            },
        );
    }

    /// dyld's `Expected in: LIB`, `Referenced from: BIN` and `(which was built for Mac OS X
    /// 10.15)` / `(which was built for macOS 13.0)` after a missing symbol: on the rest of its
    /// line (a paste that joined them) or the three lines after it, which dyld indents.
    fn dyld_context(
        &self,
        l: &Line<'_>,
        from: usize,
    ) -> (Option<String>, Option<String>, Option<String>) {
        let mut expected = None;
        let mut built_for = None;
        let mut referenced = None;
        // dyld since macOS 13 puts the image's UUID before its path (`Expected in:
        // <850F…> /usr/lib/libSystem.B.dylib`, with `<` or `‹`): the path is the first word
        // after it.
        let path_after = |t: &str, key: &str| {
            t.find(key).and_then(|p| {
                t[p + key.len()..]
                    .split_whitespace()
                    .find(|w| !w.starts_with(['<', '\u{2039}']))
                    .map(|w| w.trim_matches(['\'', '"', '(', ')', ',']))
                    .and_then(non_empty)
            })
        };
        let mut read = |t: &str| {
            if expected.is_none() {
                expected = path_after(t, "Expected in:");
            }
            if referenced.is_none() {
                referenced = path_after(t, "Referenced from:");
            }
            // `(which was built for Mac OS X 10.15)`, and since macOS 13 `(built for macOS
            // 14.0 which is newer than running OS)`.
            if built_for.is_none()
                && let Some(p) = t.find("built for ")
            {
                let r = &t[p + "built for ".len()..];
                let r = r
                    .strip_prefix("Mac OS X ")
                    .or_else(|| r.strip_prefix("macOS "));
                built_for = r
                    .map(|r| {
                        r.split(|c: char| !(c.is_ascii_digit() || c == '.'))
                            .next()
                            .unwrap_or("")
                            .trim_end_matches('.')
                    })
                    .filter(|v| !v.is_empty() && v.len() <= 8)
                    .map(str::to_owned);
            }
        };
        read(l.s().get(from..).unwrap_or(""));
        let mut next = self.next_line(l);
        for _ in 0..3 {
            let Some(cur) = next else { break };
            let t = cur.c().trim_start();
            // dyld's lines carry its labels (a paste may drop the indent, or the `Referenced
            // from:` label before a wrapped path, keeping `which was built for`), or its
            // closing `in /path`; another failure's line ends them.
            if t.contains("Symbol not found")
                || t.contains("dlopen(")
                || !(t.starts_with("in /")
                    || ["Referenced from", "Expected in", "built for "]
                        .iter()
                        .any(|m| t.contains(m)))
            {
                break;
            }
            read(t);
            next = self.next_line(&cur);
        }
        (expected, built_for, referenced)
    }

    /// MKL's dispatcher finding none of its CPU-specific libraries: `Intel MKL FATAL ERROR:
    /// Cannot load libmkl_mc3.so or libmkl_def.so.` (the first named is the one it wanted).
    /// After MKL's own `INTEL MKL ERROR: …: undefined symbol: …` the file was found and lacks a
    /// symbol: that line is the failure, not a missing library.
    fn mkl_fatal(&self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        let Some(p) = s.find("MKL FATAL ERROR: Cannot load ") else {
            return;
        };
        if memmem::find(self.text.as_bytes(), b"MKL ERROR").is_some()
            && memmem::find(self.text.as_bytes(), b"undefined symbol").is_some()
        {
            return;
        }
        let r = &s[p + "MKL FATAL ERROR: Cannot load ".len()..];
        let name = r
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_end_matches(['.', ',']);
        if name.starts_with("libmkl") || name.starts_with("mkl_") {
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::MissingSharedLibrary {
                    name: cap(name).to_owned(),
                    required_by: None,
                },
            );
        }
    }

    /// A Makefile linking a CUDA object nvcc never made (`gcc: error: …/roi_pooling.cu.o: No
    /// such file or directory`): no nvcc ran, unless the text shows it running (then its own
    /// error is the failure).
    fn cu_object_missing(&self, l: &Line<'_>, out: &mut Out) {
        if !l.s().contains(".cu.o: No such file") {
            return;
        }
        let t = self.text.as_bytes();
        if memmem::find(t, b"nvcc ").is_some() || memmem::find(t, b".cu(").is_some() {
            return;
        }
        out.push(
            l.content_span(),
            EventKind::CudaHomeMissing {
                detail: l.content_text(),
            },
        );
    }

    /// The path of the CUDA compiler (`…/bin/ptxas`, `…/bin/nvcc`) on this line or the few after
    /// it (Triton prints its `Repro command:` two lines below the error): whose compiler refused.
    fn compiler_path(&self, l: &Line<'_>) -> Option<String> {
        let find = |s: &str| {
            s.split_whitespace()
                .map(|t| t.trim_matches(['\'', '"', '`']))
                .find(|t| {
                    t.len() > 6
                        && (t.ends_with("/ptxas")
                            || t.ends_with("/nvcc")
                            || t.ends_with("\\nvcc.exe"))
                })
                .map(|t| cap(t).to_owned())
        };
        if let Some(t) = find(l.s()) {
            return Some(t);
        }
        let mut next = self.next_line(l);
        for _ in 0..3 {
            let cur = next?;
            if let Some(t) = find(cur.s()) {
                return Some(t);
            }
            next = self.next_line(&cur);
        }
        None
    }

    fn analyse(&mut self, start: usize, end: usize, window: bool, bits: u64, facts: &[u16]) {
        let line = make_line(self.text, start, end, window);
        // A line cleaned of escapes may spell a trigger its raw bytes did not (`CUDA\_HOME`
        // copied from Markdown is `CUDA_HOME`): its phrases are looked for again, cleaned.
        let bits = match &line.clean {
            Cow::Owned(c) => bits | trigger_bits(c),
            Cow::Borrowed(_) => bits,
        };
        let mut out = Out { events: Vec::new() };
        self.recognize(&line, bits, facts, &mut out);
        if out.events.len() > MAX_EVENTS_PER_LINE {
            out.events.truncate(MAX_EVENTS_PER_LINE);
            self.problem(
                Some(line.span(0, line.s().len())),
                "too many facts on one line: the rest were dropped",
            );
        }
        out.events.sort_by_key(|e| (e.span.start, e.span.end));
        self.events.extend(out.events);
    }

    fn recognize(&mut self, l: &Line<'_>, bits: u64, facts: &[u16], out: &mut Out) {
        let has = |b: u64| bits & b != 0;
        if has(SYM) {
            self.undefined_symbols(l, out);
            self.wrapped_undefined_symbol(l, out);
            self.mac_symbol_not_found(l, out);
            cython_capi(l, out);
            link_time_reference(l, out);
            windows_entry_point(l, out);
        }
        if has(SHLIB) {
            missing_shared_library(l, out);
            self.mkl_fatal(l, out);
        }
        if has(LOADFORM) {
            loadforms::library_sentences(l, out);
            loadforms::extension_not_available(l, out);
            loadforms::unreadable_library(l, out);
            loadforms::auditwheel_missing(l, out);
            loadforms::python_range_refused(l, out);
            config_tool_missing(l, out);
        }
        if has(WINDLL) {
            let next = self.next_line(l);
            loadforms::windows_dll(l, next.as_ref().map(Line::c), out);
        }
        if has(VERNF) {
            let next = self.next_line(l);
            version_not_found(l, next.as_ref().map(Line::c), out);
        }
        if has(EXC) {
            exception(l, out);
            // `NameError: name '_C' is not defined` carries no trigger of its own: its `Error:`
            // is the exception's (a longer pattern there would hide that one).
            if !has(NOTORCH) && l.s().contains("NameError: name ") {
                loadforms::compiled_module_missing(l, out);
            }
        }
        if has(TB)
            && let Some(p) = memmem::find(l.s().as_bytes(), b"Traceback (most recent call last)")
        {
            out.push(l.span(p, p + 33), EventKind::TracebackStart);
        }
        if has(CHAIN) {
            for needle in [
                "During handling of the above exception",
                "The above exception was the direct cause",
            ] {
                if let Some(p) = memmem::find(l.s().as_bytes(), needle.as_bytes()) {
                    out.push(
                        l.span(p, l.s().trim_end().len()),
                        EventKind::ChainedException,
                    );
                }
            }
        }
        if has(FRAME) {
            frame(l, out);
        }
        if has(MARK) {
            frame_marker(l, out);
        }
        if has(WRAP) {
            wrapped_import(l, out);
        }
        if has(SUGG) {
            suggested_command(l, out);
            user_pip_install(l, out);
        }
        if has(PIP) {
            pip_line(l, out);
        }
        if has(BFAIL) {
            build_failed(l, out);
            compiler_killed(l, out);
            docker_run_failed(l, out);
        }
        if has(NOTORCH) {
            self.build_requirement_missing(l, out);
            loadforms::compiled_module_missing(l, out);
            let next = self.next_line(l);
            loadforms::mmcv_op_missing(l, next.as_ref().map(Line::c), out);
        }
        if has(CUDAHOME) {
            cuda_home(l, out);
            self.cu_object_missing(l, out);
        }
        if has(CUDAMM) {
            self.cuda_mismatch(l, out);
        }
        if has(LD) {
            linker_cannot_find(l, out);
        }
        if has(LIBCUDA) {
            libcuda(l, out);
            self.stub_driver_mapped(l, out);
        }
        if has(NOCC) {
            no_compiler(l, out);
            cython_source_missing(l, out);
            build_program_unexecutable(l, out);
        }
        if has(COMPFAIL) {
            compile_failed(l, out);
            cub_compile_cause(l, out);
            inplace_target_missing(l, out);
            self.kernel_arch_too_old(l, out);
            deepspeed_op_missing(l, out);
        }
        if has(MAMBA) {
            mamba(l, out);
        }
        if has(XF) {
            self.xformers(l, out);
        }
        if has(FA) {
            flash_attn(l, out);
        }
        if has(OPMISS) {
            operator_missing(l, out);
            loadforms::no_such_operator(l, out);
        }
        if has(CUSTOMOPS) {
            self.custom_ops(l, out);
        }
        if has(NUMPY) {
            // NumPy's message read by its head already: its last line adds nothing.
            let head_read = self.events.iter().rev().take(8).any(|e| {
                matches!(e.kind, EventKind::NumpyAbi { .. })
                    && l.start.saturating_sub(e.span.end) <= 2048
            });
            numpy(l, out, head_read);
        }
        if has(OOM) {
            oom(l, out);
        }
        if has(GPUPROC) {
            gpu_processes(l, out);
        }
        if has(PYBIND) {
            let prev = self.prev_line(l);
            // pybind11's listing of the signatures it accepts follows, wrapped or not.
            let mut listing = String::new();
            let mut at = self.next_line(l);
            for _ in 0..3 {
                let Some(n) = at else { break };
                listing.push_str(n.s());
                listing.push(' ');
                at = self.next_line(&n);
            }
            pybind(l, prev.as_ref().map(Line::s), &listing, out);
        }
        if has(GPUARCH) {
            self.gpu_arch(l, out);
        }
        if has(DRIVER) {
            driver_too_old(l, out);
        }
        if has(FOREIGN) {
            cpu::wrong_architecture(l, out);
            cpu::illegal_instruction(l, out);
            cpu::openmp_duplicate(l, out);
            cpu::wheel_unsupported(l, out);
            cpu::no_matching_distribution(l, out);
            cpu::executable_stack(l, out);
            cpu::static_tls(l, out);
        }
        if has(IOBACK) {
            backends::io_backend(l, out);
        }
        if has(JITLOG) {
            self.jit_stalled(l, out);
        }
        if has(CPUTORCH) {
            cpu_only_torch(l, out);
            self.cuda_unavailable(l, out);
            self.cpu_torch_at_build(l, out);
        }
        if has(VERSION) {
            if l.s().contains("JAX plugin ") {
                let next = self.next_line(l);
                jax_plugin_version(l, next.as_ref().map(Line::c), out);
            }
            if l.s().contains("PJRT") {
                let prev = self.prev_line(l);
                pjrt_api_version(l, prev.as_ref().map(Line::c), out);
            }
            framework_version(l, out);
            jax_requires_jaxlib(l, out);
            pytorch_index_label(l, out);
        }
        if has(VERSION) && l.start >= self.no_version_until {
            versions(l, facts, out);
            nvcc_release(l, out);
            setup_banner_torch(l, out);
            pip_version(l, out);
        }
        if has(WHEEL) {
            wheel_labels(l, out);
        }
        if has(MODEL) {
            models(l, out);
        }
    }

    // ---- undefined symbols ----

    fn undefined_symbols(&self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        let mut from = 0;
        while let Some((rel, needle_len)) = s.get(from..).and_then(|t| {
            UNDEFINED_SYMBOL
                .iter()
                .filter_map(|n| t.find(n).map(|i| (i, n.len())))
                .min()
        }) {
            let p = from + rel;
            from = p + needle_len;
            if out.full() {
                return;
            }
            let mut q = p + needle_len;
            let b = s.as_bytes();
            if b.get(q).is_some_and(|&c| is_ident_byte(c)) {
                continue; // "undefined symbols" in prose
            }
            // Markdown around the symbol (`**_ZN…**`, a backquoted name) is not part of it.
            while q < b.len() && matches!(b[q], b':' | b' ' | b'\t' | b'*' | b'`') {
                q += 1;
            }
            // Symbol on this line, or alone on the next one.
            let (mut symbol, mut sym_end_span, sym_ran_to_eol) = {
                let sym_len = s[q..].bytes().take_while(|&c| is_sym_byte(c)).count();
                let sym_len = sym_len + demangled_tail(&s[q + sym_len..]);
                let sym = s[q..q + sym_len].trim_end_matches('.');
                let eol = s[q + sym_len..].trim().is_empty();
                (sym.to_owned(), l.span(q, q + sym.len()).end, eol)
            };
            let mut consumed_next = None;
            let mut wrapped_rest: Option<String> = None;
            if symbol.is_empty() && sym_ran_to_eol {
                if let Some(n) = self.next_line(l) {
                    let (start, len) = leading_symbol(&n);
                    let len = len + demangled_tail(&n.s()[start + len..]);
                    if len > 0 {
                        symbol = n.s()[start..start + len].trim_end_matches('.').to_owned();
                        sym_end_span = n.span(start, start + symbol.len()).end;
                        consumed_next = Some(n);
                    }
                }
            } else if sym_ran_to_eol && !symbol.is_empty() && symbol.bytes().all(|c| c == b'_') {
                // Wrapped right after its leading underscores (`undefined symbol: __` then
                // `nvJitLinkComplete_12_4, version libnvJitLink.so.12`): no name is only `_`.
                if let Some(n) = self.next_line(l) {
                    let (start, len) = leading_symbol(&n);
                    let rest = n.s()[start..start + len].trim_end_matches('.');
                    // A wrap's tail starts the next line and reads as a name (`_`, a digit), not
                    // a word of the reporter's question (`Any idea …`).
                    let at_column_zero = start == n.content;
                    let name_like = rest.bytes().any(|b| b == b'_' || b.is_ascii_digit());
                    if !rest.is_empty() && at_column_zero && name_like {
                        symbol.push_str(rest);
                        sym_end_span = n.span(start, start + rest.len()).end;
                        wrapped_rest = Some(n.s()[start + len..].to_owned());
                        consumed_next = Some(n);
                    }
                }
            } else if sym_ran_to_eol && symbol.starts_with("_Z") && !demangles(&symbol) {
                // A mangled name wrapped onto the next line: join when the join demangles.
                if let Some(n) = self.next_line(l) {
                    let c = n.c().trim();
                    if !c.is_empty() && c.bytes().all(is_sym_byte) {
                        let joined = format!("{symbol}{}", c.trim_end_matches('.'));
                        if demangles(&joined) {
                            let cs = n.content + (n.c().len() - n.c().trim_start().len());
                            sym_end_span = n.span(cs, cs + c.trim_end_matches('.').len()).end;
                            symbol = joined;
                        }
                    }
                }
            }
            // A message cut right after `undefined symbol:` (an issue's title) still says which
            // library failed; the symbol is then empty and reported as cut off.
            let named_library_before = library_before(s, p).is_some();
            if symbol.is_empty()
                && !(sym_ran_to_eol && named_library_before && self.next_line(l).is_none())
            {
                continue;
            }
            let after = &s[(q + symbol.len()).min(s.len())..];
            let mut truncated = symbol.is_empty()
                || symbol.bytes().all(|c| c == b'_')
                || after.starts_with("...")
                || after.starts_with('…');
            if consumed_next.is_none() && (symbol.starts_with("_Z") && !demangles(&symbol)) {
                truncated = true;
            }
            // Library: the token before `: undefined symbol`, or the previous line's `X.so:`.
            let (library, lib_start) = match library_before(s, p) {
                Some((lib, at)) => (Some(lib), l.span(at, at).start),
                None => {
                    let before = s[..p].trim();
                    let before_is_prefix =
                        before.is_empty() || p <= l.content || is_error_intro(before);
                    match (before_is_prefix, self.prev_line(l)) {
                        (true, Some(pl)) => {
                            let t = pl.s().trim_end();
                            if t.ends_with(':') {
                                match library_before(t, t.len()) {
                                    Some((lib, at)) => (Some(lib), pl.span(at, at).start),
                                    None => (None, l.span(p, p).start),
                                }
                            } else {
                                (None, l.span(p, p).start)
                            }
                        }
                        _ => (None, l.span(p, p).start),
                    }
                }
            };
            out.push(
                Span::new(lib_start, sym_end_span.max(lib_start)),
                EventKind::UndefinedSymbol {
                    library,
                    symbol: cap(&symbol).to_owned(),
                    truncated,
                    version_of: version_of(wrapped_rest.as_deref().unwrap_or(after)),
                },
            );
        }
    }

    /// `…so: undefined` at the end of a line and `symbol: NAME` starting the next: a message
    /// wrapped between the two words.
    fn wrapped_undefined_symbol(&self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        let Some(head) = s.trim_end().strip_suffix("undefined") else {
            return;
        };
        if head.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            return;
        }
        let Some(n) = self.next_line(l) else { return };
        let ns = n.s();
        let c = n.c();
        // `symbol` starts the next line's content, or follows a prefix the content reader did
        // not strip (a logger's `worker.py:42 - `): what precedes it ends in punctuation.
        let Some(k) = c.find("symbol") else { return };
        let pre = c[..k].trim_end();
        if !(pre.is_empty() || pre.ends_with(['-', ']', ':', '|', '>'])) {
            return;
        }
        let start = n.content + k;
        let Some(after) = ns.get(start..).and_then(|r| r.strip_prefix("symbol")) else {
            return;
        };
        let skip = after.len() - after.trim_start_matches([':', ' ', '\t']).len();
        if skip == 0 {
            return;
        }
        let q = start + "symbol".len() + skip;
        let len = ns[q..].bytes().take_while(|&c| is_sym_byte(c)).count();
        let symbol = ns[q..q + len].trim_end_matches('.');
        if symbol.is_empty() {
            return;
        }
        let p = head.len();
        let (library, lib_start) = match library_before(s, p) {
            Some((lib, at)) => (Some(lib), l.span(at, at).start),
            None => (None, l.span(p, p).start),
        };
        out.push(
            Span::new(lib_start, n.span(q, q + symbol.len()).end),
            EventKind::UndefinedSymbol {
                library,
                symbol: cap(symbol).to_owned(),
                truncated: symbol.starts_with("_Z") && !demangles(symbol),
                version_of: version_of(&ns[q + len..]),
            },
        );
    }

    /// A build compiling a kernel for GPUs older than its instructions need: ptxas' `error   :
    /// Feature '.m16n8k16' requires .target sm_80 or higher`, nvcc's `no instance of overloaded
    /// function "atomicAdd" matches the argument list` for `(__half *, …)` (sm_70 and later).
    /// The compute capability the kernel needs, and the build's failure.
    fn kernel_arch_too_old(&self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        let needs = if let Some(p) = s.find("requires .target sm_") {
            // Triton compiles for the GPU present (its ptxas on `/tmp/tmpXXXX.ptx`): no build's
            // architecture list is involved, the GPU itself is older than the kernel.
            let lo = floor_char(self.text, l.start.saturating_sub(2048));
            let around = &self.text[lo..l.start];
            if s.contains("Triton") || around.contains("Triton") || around.contains("triton") {
                return;
            }
            let r = &s[p + 20..];
            let n = r.bytes().take_while(u8::is_ascii_digit).count();
            (r[n..].starts_with(" or higher") && (2..=3).contains(&n))
                .then(|| (p, r[..n].to_owned()))
        } else if let Some(p) = s.find("overloaded function \"atomicAdd\"") {
            // The operand types are on the next line: `argument types are: (__half *, __half)`.
            // CUDA's own overloads only: torch's types go through its own `gpuAtomicAdd`, and a
            // value of another type than the pointer's fails on every GPU.
            let next = self.next_line(l);
            let types = next
                .as_ref()
                .and_then(|n| n.s().split_once("argument types are: (").map(|(_, r)| r))
                .unwrap_or("");
            let mut args = types.split([',', ')']).map(str::trim);
            let (pointer, value) = (args.next().unwrap_or(""), args.next().unwrap_or(""));
            let sm = match pointer.strip_suffix(" *") {
                Some(ty) if ty == value => match ty {
                    "__half" => Some("70"),
                    "__nv_bfloat16" => Some("80"),
                    "double" | "__half2" => Some("60"),
                    _ => None,
                },
                _ => None,
            };
            sm.map(|v| (p, v.to_owned()))
        } else {
            None
        };
        // As a compute capability (`sm_80` → `8.0`).
        if let Some((p, sm)) = needs
            && let Some(minor_at) = sm.len().checked_sub(1)
        {
            let capability = format!("{}.{}", &sm[..minor_at], &sm[minor_at..]);
            build_stopped_at(l, out, p, "kernel-min-capability", &capability);
        }
    }

    /// The driver library a loader mapped, printed as a path of its own line under the loader's
    /// report (numba's `Mapped libcuda.so paths:`), when it is the CUDA toolkit's stub.
    fn stub_driver_mapped(&self, l: &Line<'_>, out: &mut Out) {
        const MAPPED: &str = "Mapped libcuda.so paths:";
        let c = l.c();
        // The path on its own line under the heading, or joined to it (a re-wrapped paste).
        let (path, heading) = match c.find(MAPPED) {
            Some(i) => (c[i + MAPPED.len()..].trim(), true),
            None => (
                c.trim(),
                self.prev_line(l)
                    .is_some_and(|p| p.c().trim_end().ends_with(MAPPED)),
            ),
        };
        let path = path.split_whitespace().next().unwrap_or("");
        let stub = path.ends_with("/stubs/libcuda.so") || path.ends_with("\\stubs\\libcuda.so");
        if stub && heading {
            out.push(
                l.content_span(),
                EventKind::LibcudaNotFound {
                    detail: format!(
                        "{path}: mapped as the NVIDIA driver ({})",
                        MAPPED.trim_end_matches(':')
                    ),
                },
            );
        }
    }

    // ---- build isolation ----

    /// A build (or a JIT builder) missing what it needs to run: a tool or header the message
    /// names, Cython too new for its sources, or torch itself hidden by build isolation.
    fn build_requirement_missing(&self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        // Messages that name the missing build requirement themselves: (their words, the
        // requirement, whether it is one too new rather than missing).
        const NAMED: &[(&str, &str, bool)] = &[
            // torch.utils.cpp_extension's JIT builds (DeepSpeed ops, nvdiffrast, apex …) need
            // ninja; "extension" in torch 1.x's wording and in most issue titles.
            ("Ninja is required to load C++ extension", "ninja", false),
            // The interpreter's C headers, which a pip build of a C extension includes.
            ("Python.h: No such file or directory", "Python.h", false),
            ("Python.h**: No such file or directory", "Python.h", false),
            ("'Python.h': No such file or directory", "Python.h", false),
            // The same in the compiler's own language (`fatal error: Python.h: Arquivo ou
            // diretório inexistente`).
            ("fatal error: Python.h: ", "Python.h", false),
            // torch.compile's C++ builder: `Can't find Python.h in /usr/include/python3.12`.
            ("Can't find Python.h", "Python.h", false),
            // tcc (Triton's bundled compiler on Windows): `error: include file 'Python.h' not
            // found` (an embedded Python ships no include/).
            ("include file 'Python.h' not found", "Python.h", false),
            // clang (macOS): `fatal error: 'Python.h' file not found`.
            ("'Python.h' file not found", "Python.h", false),
            // CMake 4 refusing an old minimum: `Compatibility with CMake < 3.5 has been removed
            // from CMake.`
            (
                "Compatibility with CMake < 3.5 has been removed",
                "cmake",
                true,
            ),
            ("are you sure cmake is installed", "cmake", false),
            // torch.compile's Inductor backend without Triton (Windows has no `triton` wheel).
            ("Cannot find a working triton installation", "triton", false),
            // Triton imported by torch.compile or a kernel package where none is installed
            // (PyPI's `triton` has Linux wheels only): run time, not a build, needs no context.
            ("No module named 'triton'", "triton", false),
            ("No module named \"triton\"", "triton", false),
            // `setup.py bdist_wheel` without `wheel` (setuptools before 70.1 needs it).
            ("invalid command 'bdist_wheel'", "wheel", false),
            // setuptools 70 dropped `pkg_resources.packaging`, which older setup.py files import.
            (
                "cannot import name 'packaging' from 'pkg_resources",
                "setuptools",
                true,
            ),
            // setuptools 82 ships no `pkg_resources` at all (and Python 3.12's venvs have no
            // setuptools): a setup.py or a package importing it, in a build or at run time.
            ("No module named 'pkg_resources'", "pkg_resources", false),
            ("No module named \"pkg_resources\"", "pkg_resources", false),
        ];
        if cython3_noexcept(l, out) {
            return;
        }
        // atari-py prints its hint after any failed make: where CMake's own output shows, cmake
        // ran, and the hint's other guess (a missing library) is the one left.
        if s.contains("are you sure cmake is installed")
            && [
                "-- Configuring",
                "CMake Error",
                "make[",
                "-- The C compiler",
            ]
            .iter()
            .any(|m| memmem::find(self.text.as_bytes(), m.as_bytes()).is_some())
        {
            return;
        }
        for &(words, module, too_new) in NAMED {
            if let Some(p) = s.find(words) {
                out.push(
                    l.span(p, s.trim_end().len()),
                    EventKind::BuildDependencyMissing {
                        module: module.into(),
                        too_new,
                    },
                );
                return;
            }
        }
        let Some(p) = s.find("No module named") else {
            return;
        };
        let rest = &s[p + "No module named".len()..];
        let unquoted = rest.trim_start();
        let rest = unquoted.trim_start_matches(['\'', '"']);
        let quoted = rest.len() < unquoted.len();
        let n = rest
            .bytes()
            .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_')
            .count();
        let module = &rest[..n];
        // Python 2 and retold titles leave the name unquoted (`No module named torch even
        // though …`): a space or the line's end closes it there.
        let whole = rest[n..].is_empty()
            || rest[n..].starts_with(['\'', '"'])
            || !quoted && rest[n..].starts_with([' ', '\t', '\r']);
        const BUILD_TOOLS: &[&str] = &["packaging", "wheel", "setuptools", "ninja", "pybind11"];
        // Cython is imported by a submodule as often as whole (`No module named Cython.Build`).
        let cython = module == "Cython" && (whole || rest[n..].starts_with('.'));
        let tool = whole && BUILD_TOOLS.contains(&module) || cython;
        if !(whole && module == "torch" || tool) {
            // Any module a setup.py imports at its top (`from setuptools_rust import
            // RustExtension`, `import skbuild`) is a build requirement: its frame is the last
            // above the exception.
            // A dotted name quoted (`'numpy.distutils'`) says its parent imported: a part the
            // installed release lacks, not a missing requirement. Standard modules Python
            // removed with no package to replace them (`imp`) are no requirement either
            // (`distutils`, gone from 3.12, is setuptools' shim: the import tables say so).
            if n > 0 && whole && module != "torch" && module != "imp" && self.raised_in_setup_py(l)
            {
                out.push(
                    l.span(p, s.trim_end().len()),
                    EventKind::BuildDependencyMissing {
                        module: module.to_owned(),
                        too_new: false,
                    },
                );
            }
            return;
        }
        let span = l.span(p, s.trim_end().len());
        // Only a build makes this a build problem; look around for it.
        let lo = floor_char(self.text, span.start.saturating_sub(6 * 1024));
        let hi = ceil_char(self.text, span.end + 2 * 1024);
        let around = &self.text[lo..hi];
        const CONTEXT: &[&str] = &[
            "get_requires_for_build",
            "egg_info",
            "setup.py",
            "pip-install-",
            "Preparing metadata",
            "Getting requirements to build",
            "build dependency",
            "build-system.requires",
            "no-build-isolation",
            "subprocess-exited-with-error",
            "Building wheel",
            "pyproject.toml",
            "build_meta",
            "build backend",
            "Failed to build",
            // pip's own report of a failed build step.
            "metadata-generation-failed",
            "originates from a subprocess",
        ];
        let in_build = CONTEXT
            .iter()
            .any(|c| memmem::find(around.as_bytes(), c.as_bytes()).is_some());
        // Cython and pybind11 are build tools only: said alone (a title, pip's last lines), their
        // absence is a build's. So is that of `packaging` and `wheel` in a report with no frames
        // of a program that ran: the setup.py of flash-attn, apex and their kind imports them,
        // and a program importing them at run time shows its traceback.
        let build_only = cython || matches!(module, "pybind11" | "packaging" | "wheel");
        if tool && (in_build || module == "ninja" || build_only && bare_report(self.text)) {
            out.push(
                span,
                EventKind::BuildDependencyMissing {
                    module: module.to_owned(),
                    too_new: false,
                },
            );
        } else if !tool && (in_build || bare_report(self.text)) {
            out.push(span, EventKind::BuildIsolationNoTorch { package: None });
        }
    }

    /// Whether the traceback's last frame above `l` (within the four lines before it: the
    /// frame, its source line, a caret line) is a `setup.py` at module level: the exception
    /// was raised by the build script itself.
    fn raised_in_setup_py(&self, l: &Line<'_>) -> bool {
        let mut cur = self.prev_line(l);
        for _ in 0..4 {
            let Some(line) = cur else { return false };
            let t = line.c().trim_start();
            if t.starts_with("File \"") {
                return t.contains("setup.py\", line ") && t.trim_end().ends_with("in <module>");
            }
            cur = self.prev_line(&line);
        }
        false
    }

    // ---- CUDA version mismatch (possibly wrapped) ----

    fn cuda_mismatch(&self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        if let Some(p) = s.find("The detected CUDA version") {
            let found = paren_after(&s[p..], "version");
            let mut end = l.span(p, s.trim_end().len()).end;
            let mut expected = s[p..]
                .find("PyTorch")
                .and_then(|i| paren_after(&s[p + i..], "PyTorch"));
            let mut detail = s[p..].trim_end().to_owned();
            if expected.is_none()
                && let Some(n) = self.next_line(l)
            {
                let c = n.c().trim();
                if let Some(i) = c.find("PyTorch") {
                    expected = paren_after(&c[i..], "PyTorch");
                    if expected.is_some() {
                        end = n.content_span().end;
                        detail.push(' ');
                        detail.push_str(c);
                    }
                }
            }
            out.cuda_mismatch(Span::new(l.span(p, p).start, end), found, expected, &detail);
        }
        // The same check localized by a launcher (Chinese WebUI packs): `检测到的 CUDA 版本 (12.1)
        // 与用于编译 PyTorch (11.8) 的版本不匹配`.
        if let Some(p) = s.find("检测到的 CUDA 版本") {
            let r = &s[p..];
            let found = paren_after(r, "版本");
            let expected = r
                .find("PyTorch")
                .and_then(|i| paren_after(&r[i..], "PyTorch"));
            out.cuda_mismatch(l.span(p, s.trim_end().len()), found, expected, r.trim_end());
        }
        // DeepSpeed: `Installed CUDA version 12.1 does not match the version torch was compiled with 11.8`.
        if let Some(p) = s.find("does not match the version torch was compiled with") {
            let start = s[..p].rfind("Installed CUDA version").unwrap_or(p);
            let found = s[start..p]
                .strip_prefix("Installed CUDA version")
                .map(|v| version_token(v.trim()).to_owned())
                .filter(|v| !v.is_empty());
            let r = s[p + 50..].trim_start();
            let expected = Some(version_token(r).to_owned()).filter(|v| !v.is_empty());
            out.cuda_mismatch(
                l.span(start, s.trim_end().len()),
                found,
                expected,
                s[start..].trim_end(),
            );
        }
        // apex: `Cuda extensions are being compiled with a version of Cuda that does not match
        // the version used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 10.2.`
        if let Some(p) = s.find("version used to compile Pytorch binaries") {
            let start = s[..p].rfind("Cuda extensions").unwrap_or(p);
            let expected = s[p..]
                .find("compiled with Cuda ")
                .map(|i| {
                    version_token(&s[p + i + 19..])
                        .trim_end_matches('.')
                        .to_owned()
                })
                .filter(|v| !v.is_empty());
            out.cuda_mismatch(
                l.span(start, s.trim_end().len()),
                None,
                expected,
                s[start..].trim_end(),
            );
        }
        // k2's setup.py: `PyTorch is built with CUDA version: 11.7.` then, on its next line,
        // `The current running CUDA version is: 10.2.89` (the toolkit it would build with).
        if let Some(p) = s.find("PyTorch is built with CUDA version") {
            let expected = Some(
                version_token(s[p + 34..].trim_start_matches([':', ' ']))
                    .trim_end_matches('.')
                    .to_owned(),
            )
            .filter(|v| !v.is_empty());
            let mut end = l.span(p, s.trim_end().len()).end;
            let mut detail = s[p..].trim_end().to_owned();
            let mut found = None;
            if let Some(n) = self.next_line(l)
                && let Some(i) = n.c().find("running CUDA version is")
            {
                let c = n.c();
                found = Some(
                    version_token(c[i + 23..].trim_start_matches([':', ' ']))
                        .trim_end_matches('.')
                        .to_owned(),
                )
                .filter(|v| !v.is_empty());
                end = n.content_span().end;
                detail.push(' ');
                detail.push_str(c.trim());
            }
            // Only the check's two lines, disagreeing, say a mismatch (`Your PyTorch is built
            // with CUDA version: 12.1` alone is a script reporting its setup).
            if found.is_some() && found != expected {
                out.cuda_mismatch(Span::new(l.span(p, p).start, end), found, expected, &detail);
            }
        }
        cudnn_mismatch(l, out);
        compile_name_missing(l, out);
        cuda_setup_failed(l, out);
        package_library_unloadable(l, out);
        // An nvcc without C++17 (`nvcc fatal : Value 'c++17' is not defined for option 'std'`):
        // a toolkit older than the torch the build compiles against.
        // An nvcc older than the flags torch's cpp_extension passes it (`nvcc fatal : Unknown
        // option '-generate-dependencies-with-compile'`, CUDA before 10.2) is the same story.
        let unknown_option = s
            .find("Unknown option")
            .filter(|&p| s[..p].contains("nvcc"));
        if let Some(p) = s.find("is not defined for option 'std'").or(unknown_option) {
            let start = s[..p]
                .rfind("nvcc")
                .or_else(|| s[..p].rfind("Value"))
                .unwrap_or(p);
            out.cuda_mismatch(
                l.span(start, s.trim_end().len()),
                None,
                None,
                s[start..].trim_end(),
            );
        }
        if let Some(p) = s.find(" is too old; it is version ")
            && let Some(start) = s[..p].rfind("Dynamically loaded ")
        {
            let found = version_token(&s[p + 27..]).trim_end_matches([',', '.']);
            let expected = s[p..]
                .find("need at least version ")
                .map(|i| version_token(&s[p + i + 22..]).trim_end_matches([',', '.']))
                .filter(|v| is_version(v));
            if is_version(found) {
                out.cuda_mismatch(
                    l.span(start, s.trim_end().len()),
                    Some(found.to_owned()),
                    expected.map(str::to_owned),
                    s[start..].trim_end(),
                );
            }
        }
        // Messages that are the mismatch whole, versions or not: CCCL's check of nvcc against
        // its headers, numba's NVVM knowing no compute capability.
        for phrase in [
            "CUDA compiler and CUDA toolkit headers are incompatible",
            "No supported GPU compute capabilities found",
        ] {
            if let Some(p) = s.find(phrase) {
                out.cuda_mismatch(l.span(p, s.trim_end().len()), None, None, s[p..].trim_end());
            }
        }
        // A compiler that does not know the architecture the build asks for: `nvcc fatal :
        // Unsupported gpu architecture 'compute_86'` (without `nvcc fatal` before it, in an issue
        // title, the quoted architecture still says whose message it is), and nvcc's or ptxas'
        // `Value 'sm_121a' is not defined for option 'gpu-name'`.
        // Titles retell it in any case (`unsupported gpu architecture 'compute_86'`); ASCII
        // lowering keeps every byte offset.
        let lower = s.to_ascii_lowercase();
        for (phrase, arch_before) in [
            ("unsupported gpu archit", false),
            ("is not defined for option 'gpu-", true),
        ] {
            let Some(p) = lower.find(phrase) else {
                continue;
            };
            let quoted = if arch_before {
                s[..p].trim_end().rsplit_once("Value").map(|(_, a)| a)
            } else {
                // The rest of the word, however it is spelt.
                let r = &s[p + phrase.len()..];
                Some(r.trim_start_matches(|c: char| c.is_ascii_alphabetic()))
            };
            let arch: String = quoted
                .map(|a| a.trim_start().trim_start_matches(['\'', '`', '"']))
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let named = s[..p].contains("nvcc") || s[..p].contains("ptxas");
            if !(arch.starts_with("compute_") || arch.starts_with("sm_") || named) {
                continue;
            }
            let start = s[..p]
                .rfind("nvcc")
                .or_else(|| s[..p].rfind("ptxas"))
                .unwrap_or(p);
            out.push(
                l.span(start, s.trim_end().len()),
                EventKind::ToolkitArchRefused {
                    arch: cap(&arch).to_owned(),
                    tool: self.compiler_path(l),
                    detail: cap(s[start..].trim_end()).to_owned(),
                },
            );
        }
        // LLVM (the compiler inside Triton) older than the GPU: `'sm_120' is not a recognized
        // processor for this target (ignoring processor)`.
        if let Some(p) = s.find("is not a recognized processor for this target") {
            let quoted = s[..p].trim_end().trim_end_matches(['\'', '`', '"']);
            let arch: String = quoted
                .rsplit(['\'', '`', '"', ' '])
                .next()
                .unwrap_or("")
                .chars()
                .take(16)
                .collect();
            if arch.starts_with("sm_") && arch.len() > 3 {
                let at = s[..p].rfind(arch.as_str()).unwrap_or(p);
                let start = if at > 0 && matches!(s.as_bytes()[at - 1], b'\'' | b'`' | b'"') {
                    at - 1
                } else {
                    at
                };
                out.push(
                    l.span(start, s.trim_end().len()),
                    EventKind::ToolkitArchRefused {
                        arch,
                        tool: Some("LLVM (Triton's GPU compiler)".into()),
                        detail: cap(s[start..].trim_end()).to_owned(),
                    },
                );
            }
        }
        // torchvision's check (`different CUDA versions` until 0.8, `different CUDA major
        // versions` since): "PyTorch has CUDA Version=11.7 and torchvision has CUDA
        // Version=11.8"; torchaudio's: "PyTorch has CUDA version 11.7 whereas TorchAudio has
        // CUDA version 11.8".
        let wrapped = s.trim_end().ends_with("were compiled with different");
        if let Some(p) = s
            .find("compiled with different CUDA")
            .or_else(|| wrapped.then(|| s.find("compiled with different")).flatten())
        {
            let start = s[..p].rfind("Detected").unwrap_or(p);
            // The check's own source, quoted by a notebook's traceback (`193   "Detected that
            // …"`): a string literal, not the message (which follows, with its versions).
            let lead = s[..start].trim_end();
            if lead.ends_with(['"', '\'']) && source_excerpt_lead(&lead[..lead.len() - 1]) {
                return;
            }
            let mut detail = s[start..].trim_end().to_owned();
            let mut end = l.span(start, s.trim_end().len()).end;
            // A terminal may have wrapped the message: its next lines carry the versions.
            let stated =
                |t: &str| t.matches("Version=").count() + t.matches("CUDA version ").count();
            let mut at = self.next_line(l);
            for _ in 0..3 {
                if stated(&detail) >= 2 {
                    break;
                }
                let Some(n) = at else { break };
                let t = n.c().trim();
                if t.is_empty() || !(wrapped || stated(t) > 0) {
                    break;
                }
                detail.push(' ');
                detail.push_str(t);
                end = n.content_span().end;
                at = self.next_line(&n);
            }
            if !detail.contains("different CUDA") {
                return;
            }
            let versions: Vec<&str> = detail
                .match_indices("Version=")
                .chain(detail.match_indices("CUDA version "))
                .map(|(i, m)| version_token(&detail[i + m.len()..]))
                .collect();
            let expected = versions
                .first()
                .filter(|v| !v.is_empty())
                .map(|v| (*v).to_owned());
            let found = versions
                .get(1)
                .filter(|v| !v.is_empty())
                .map(|v| (*v).to_owned());
            out.cuda_mismatch(
                Span::new(l.span(start, start).start, end),
                found,
                expected,
                &detail,
            );
        }
    }

    // ---- xFormers ----

    fn xformers(&mut self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        // xFormers' operator list: `xFormers wasn't build with CUDA support` — a CPU-only
        // build (a wheel for another torch made pip build it from source without CUDA).
        if let Some(p) = s
            .find("xFormers wasn't build with CUDA support")
            .or_else(|| s.find("xFormers wasn't built with CUDA support"))
        {
            out.push(l.span(p, s.trim_end().len()), xformers_unbuilt());
        }
        // `No operator found for `memory_efficient_attention_forward` with inputs:` followed by
        // `operator wasn't built`, or cut off before its reasons: xFormers' kernels did not
        // load. Reasons of another kind (the GPU's capability, the dtype, the head size) are the
        // inputs', not the build's: no event then.
        if let Some(p) = s.find("No operator found for `memory_efficient_attention") {
            let mut cur = self.next_line(l);
            let (mut not_built, mut reasons) = (false, false);
            for _ in 0..24 {
                let Some(n) = cur else { break };
                let c = n.c();
                if c.contains("wasn't built") || c.contains("wasn't build") {
                    not_built = true;
                    break;
                }
                reasons |= c.contains("is not supported because");
                cur = self.next_line(&n);
            }
            if not_built || !reasons {
                out.push(l.span(p, s.trim_end().len()), xformers_unbuilt());
            }
        }
        if let Some(p) = s.find("Need to compile C++ extensions") {
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::XformersNeedCompile,
            );
        }
        let Some(p) = s.find("can't load C++/CUDA extensions") else {
            return;
        };
        let start = s[..p].rfind("xFormers").unwrap_or(p);
        let mut end = l.span(start, s.trim_end().trim_end_matches('"').len()).end;
        let (mut built_torch, mut have_torch, mut built_cuda, mut built_python, mut have_python) =
            (None, None, None, None, None);
        let mut cur = self.next_line(l);
        for _ in 0..3 {
            let Some(n) = cur else { break };
            let c = n.c().trim().trim_end_matches('"');
            if let Some(r) = c.strip_prefix("PyTorch") {
                let r = r.trim_start();
                built_torch = non_empty(version_token(r));
                built_cuda = r
                    .find("with CUDA")
                    .map(|i| version_token(r[i + 9..].trim_start()))
                    .and_then(non_empty);
                have_torch = r
                    .find("(you have")
                    .map(|i| version_token(r[i + 9..].trim_start()))
                    .and_then(non_empty);
            } else if let Some(r) = c.strip_prefix("Python") {
                let r = r.trim_start();
                built_python = non_empty(version_token(r));
                have_python = r
                    .find("(you have")
                    .map(|i| version_token(r[i + 9..].trim_start()))
                    .and_then(non_empty);
            } else {
                break;
            }
            let cs = n.content_span();
            end = cs.end - (n.c().trim().len() - c.len()).min(cs.len());
            self.no_version_until = n.next.unwrap_or(cs.end);
            cur = self.next_line(&n);
        }
        out.push(
            Span::new(l.span(start, start).start, end),
            EventKind::XformersBuiltFor {
                built_torch,
                have_torch,
                built_cuda,
                built_python,
                have_python,
            },
        );
    }

    /// torch prints its list and its range after the sentence that introduces them, on the
    /// same line or, wrapped, on the next one.
    fn gpu_arch(&self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        let mut gpu = None;
        let mut capability = None;
        let mut supported = Vec::new();
        let mut range = None;
        // `invalid device function` is the same failure as CUDA printed it before 9.0;
        // FlashAttention 2's own check (`FlashAttention only supports Ampere GPUs or newer.`)
        // says its kernels exist for sm_80 and newer only.
        let mut hit = s.contains("no kernel image is available")
            // Retold in a title or a summary: `CUDA error: no kernel image available`.
            || s.contains("no kernel image available")
            // TensorFlow's words for CUDA_ERROR_INVALID_IMAGE at context creation: `device
            // kernel image is invalid`.
            || s.contains("device kernel image is invalid") && !s.contains("Triton Error")
            || s.contains("invalid device function")
            || s.contains("cudaErrorNoKernelImageForDevice")
            || s.contains("CUDA_ERROR_NO_BINARY_FOR_GPU")
            || s.contains("does not include kernels for this GPU");
        let mut form = GpuArchForm::NoKernel;
        if s.contains("invalid value for --gpu-architecture") {
            form = GpuArchForm::NvrtcArch;
            hit = true;
        }
        if s.contains("only supports Ampere GPUs or newer") {
            form = GpuArchForm::FlashAttnAmpere;
            hit = true;
        }
        // ROCm: `hipErrorNoBinaryForGpu: Unable to find code object for all current devices!`,
        // `HIP error: invalid device function`.
        // The HSA runtime under it: `HSA_STATUS_ERROR_INVALID_ISA: The instruction set
        // architecture is invalid` (a gfx target no code object of the build carries).
        if s.contains("hipErrorNoBinaryForGpu")
            || s.contains("HSA_STATUS_ERROR_INVALID_ISA")
            || s.contains("HIP error") && hit
        {
            form = GpuArchForm::Rocm;
            hit = true;
        }
        for marker in [" with CUDA capability ", " with cuda capability "] {
            if let Some(p) = s.find(marker)
                && s[p..].contains("is not compatible with the current PyTorch")
            {
                capability = capability_token(&s[p + marker.len()..]);
                gpu = gpu_name_before(s, l.content, p);
                hit = true;
            }
        }
        // Triton (torch.compile's GPU backend): `Found NVIDIA GeForce GTX 1080 Ti which is too old
        // to be supported by the triton GPU compiler … Triton only supports devices of CUDA
        // Capability >= 7.0, but your device is of CUDA capability 6.1`.
        if let Some(p) = s.find(" which is too old to be supported by the triton") {
            form = GpuArchForm::TritonTooOld;
            gpu = gpu_name_before(s, l.content, p);
            capability = s
                .find("your device is of CUDA capability ")
                .and_then(|i| capability_token(&s[i + 34..]));
            range = s
                .find("Capability >= ")
                .and_then(|i| capability_token(&s[i + 14..]))
                .map(|lo| (lo, None));
            hit = true;
        }
        // vLLM's dtype check: `Bfloat16 is only supported on GPUs with compute capability of at
        // least 8.0. Your Tesla T4 GPU has compute capability 7.5.`
        if s.contains("Bfloat16 is only supported on GPUs") {
            form = GpuArchForm::Bf16Unsupported;
            if let Some(i) = s.find("GPU has compute capability ") {
                capability = capability_token(&s[i + 27..]);
                gpu = s[..i]
                    .rfind("Your ")
                    .map(|y| s[y + 5..i].trim().to_owned())
                    .filter(|g| !g.is_empty() && g.len() <= 80);
            }
            hit = true;
        }
        // A package's own guard for kernels its build left out (SageAttention: `SM89 kernel is
        // not available. Make sure you GPUs with compute capability 8.9.`).
        if let Some(p) = s.find(" kernel is not available") {
            let word = s[..p].rsplit([' ', '"', '\'', '(']).next().unwrap_or("");
            if let Some(digits) = word
                .strip_prefix("SM")
                .or_else(|| word.strip_prefix("sm"))
                .filter(|d| (2..=3).contains(&d.len()) && d.bytes().all(|c| c.is_ascii_digit()))
            {
                capability = Some(format!("sm_{digits}"));
                hit = true;
            }
        }
        // TensorFlow's check of its build against the GPU (`TensorFlow was not built with CUDA
        // kernel binaries compatible with compute capability 8.6. CUDA kernels will be
        // jit-compiled from PTX`), and a package's kernel table (vLLM's `no cutlass_scaled_mm
        // kernel for CUDA device capability: 100. Required capability: 90`).
        for marker in [
            "kernel binaries compatible with compute capability ",
            "kernel for CUDA device capability: ",
        ] {
            if let Some(p) = s.find(marker) {
                let t = &s[p + marker.len()..];
                let digits: String = t.chars().take_while(char::is_ascii_digit).take(3).collect();
                capability = if t[digits.len()..].starts_with('.') {
                    capability_token(t)
                } else {
                    (digits.len() >= 2).then(|| format!("sm_{digits}"))
                };
                hit = true;
            }
        }
        // ggml's (llama.cpp and the apps built on it): `CUDA kernel flash_attn_ext_f16 has no
        // device code compatible with CUDA arch 750. ggml-cuda.cu was compiled for: …`. The
        // number is the architecture of the code that ran (one of the build's, at most the
        // GPU's own), not the GPU's: no capability is read from it.
        if s.contains("has no device code compatible with CUDA arch ") {
            hit = true;
        }
        // xFormers' (and torch's memory-efficient attention, which shares its CUTLASS kernels)
        // guards: a kernel for sm80 and newer run as code compiled for an older architecture
        // (`… is for sm80, but was built for sm750`: the build has no code of the GPU's
        // architecture and the driver ran older code), or no kernel for this GPU at all
        // (`cutlassF: no kernel found to launch!`, a Kepler K80 under kernels from sm50 on).
        if s.contains(", but was built for sm") && s.contains(" is for sm")
            || s.contains("no kernel found to launch")
        {
            hit = true;
        }
        // FlashAttention 3's Hopper-only kernels (bundled by xFormers 0.0.30 and later) launched
        // on another GPU: `CUDA error (…/flash-attention/hopper/flash_fwd_launch_template.h:188):
        // invalid argument`.
        if s.contains("flash_fwd_launch_template.h")
            && (s.contains("/hopper/")
                || s.contains("\\hopper\\")
                || s.contains("hopper\\flash_fwd"))
            && s.contains("invalid argument")
        {
            hit = true;
        }
        // A package's check of the GPU against its build: `kernel built for sm80-sm100, but
        // running on sm121` (the GPU's architecture after the range its kernels cover).
        if let Some(p) = s.find(", but running on sm") {
            // The range stays in the detail: `range` is torch's own, and this is the package's.
            let d: String = s[p + 17..]
                .trim_start_matches("sm_")
                .trim_start_matches("sm")
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .take(5)
                .collect();
            if d.len() >= 2 && d.bytes().next().is_some_and(|c| c.is_ascii_digit()) {
                capability = Some(format!("sm_{d}"));
                hit = true;
            }
        }
        // PaddlePaddle's check of the GPU against its build: `The installed PaddlePaddle
        // package was compiled for 60 61 70 75 80 86 ,but your current GPU is 120`.
        if let Some(p) = s.find(" was compiled for ")
            && let Some(q) = s[p..].find("but your current GPU is ")
        {
            let sm = |t: &str| {
                let d = t.trim_matches([',', '.', ' ']);
                ((2..=3).contains(&d.len()) && d.bytes().all(|c| c.is_ascii_digit()))
                    .then(|| format!("sm_{d}"))
            };
            supported = s[p + 18..p + q]
                .split([' ', ','])
                .filter_map(sm)
                .take(32)
                .collect();
            capability = s[p + q + 24..].split_whitespace().next().and_then(sm);
            hit |= capability.is_some();
        }
        // A package's minimum: FlashInfer's `FlashInfer requires GPUs with sm75 or higher`.
        if let Some(p) = s.find("requires GPUs with sm") {
            let d: String = s[p + 21..]
                .trim_start_matches('_')
                .chars()
                .take_while(char::is_ascii_digit)
                .take(3)
                .collect();
            if d.len() >= 2 {
                range = Some((format!("sm_{d}"), None));
                hit = true;
            }
        }
        // FlashAttention's ROCm build refusing a gfx target: `One of GPU archs of ['gfx908'] is
        // invalid or not supported by Flash-Attention`.
        if s.contains("is invalid or not supported by Flash-Attention") {
            form = GpuArchForm::Rocm;
            capability = s
                .find("['gfx")
                .map(|i| {
                    s[i + 2..]
                        .chars()
                        .take_while(char::is_ascii_alphanumeric)
                        .take(8)
                        .collect::<String>()
                })
                .filter(|g| g.len() > 3);
            hit = true;
        }
        // cpp_extension refusing an entry of TORCH_CUDA_ARCH_LIST this torch does not know:
        // `ValueError: Unknown CUDA arch (9.0+PTX) or GPU not supported`.
        // Its CMake twin (`select_compute_arch.cmake`): `Unknown CUDA Architecture Name 9.0a in
        // CUDA_SELECT_NVCC_ARCH_FLAGS`.
        if let Some(p) = s.find("Unknown CUDA Architecture Name ") {
            let arch = s[p + 31..].split_whitespace().next().unwrap_or("");
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::ToolkitArchRefused {
                    arch: cap(arch).to_owned(),
                    tool: Some("torch's CMake (select_compute_arch.cmake)".into()),
                    detail: cap(s[p..].trim_end()).to_owned(),
                },
            );
        }
        // LLVM's NVPTX backend, inside XLA or Triton: `PTX version 8.5 does not support target
        // 'sm_120'. Minimum required PTX version is 8.7.` (the toolchain bundled with the
        // framework is older than the GPU).
        if let Some(p) = s.find("does not support target 'sm_")
            && s[..p].contains("PTX version")
        {
            let arch: String = s[p + 25..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .take(10)
                .collect();
            if arch.len() > 3 {
                // Whose LLVM, where the line says (XLA logs its source path).
                let lower = s.to_ascii_lowercase();
                let tool = if lower.contains("xla") || lower.contains("tensorflow") {
                    "LLVM's NVPTX backend (XLA)"
                } else if lower.contains("triton") {
                    "LLVM's NVPTX backend (Triton)"
                } else {
                    "LLVM's NVPTX backend (bundled by XLA or Triton)"
                };
                out.push(
                    l.span(p, s.trim_end().len()),
                    EventKind::ToolkitArchRefused {
                        arch,
                        tool: Some(tool.into()),
                        detail: cap(s[p..].trim_end()).to_owned(),
                    },
                );
            }
        }
        // The message, not the source line that formats it (`"Unknown CUDA arch ({}) or GPU not
        // supported".format(arch)` in a traceback's frame): an architecture is digits, dots,
        // `+PTX`.
        if let Some(p) = s.find("Unknown CUDA arch (")
            && let arch = s[p + 19..].split(')').next().unwrap_or("")
            && arch.starts_with(|c: char| c.is_ascii_digit())
            && arch
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || b".+_".contains(&c))
        {
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::ToolkitArchRefused {
                    arch: cap(arch).to_owned(),
                    tool: Some("torch.utils.cpp_extension".into()),
                    detail: cap(s[p..].trim_end()).to_owned(),
                },
            );
        }
        for marker in [
            " which is of cuda capability ",
            " which is of compute capability (CC) ",
            " which is of compute capability ",
        ] {
            if let Some(p) = s.find(marker) {
                capability = capability_token(&s[p + marker.len()..]);
                gpu = gpu_name_before(s, l.content, p);
                hit = true;
                break;
            }
        }
        let next = self.next_line(l);
        let rest_or_next = |rest: &'_ str| -> String {
            if rest.trim().is_empty() {
                next.as_ref()
                    .map(|n| n.c().trim().to_owned())
                    .unwrap_or_default()
            } else {
                rest.to_owned()
            }
        };
        if let Some(p) = s.find("supports CUDA capabilities") {
            supported = rest_or_next(&s[p + 26..])
                .split_whitespace()
                .map_while(capability_token)
                .take(32)
                .collect();
            hit |= !supported.is_empty();
        }
        for marker in [
            "cuda capability supported by this library is ",
            "cuda capability that we support is ",
        ] {
            if let Some(p) = s.find(marker)
                && let Some(min) = capability_token(&s[p + marker.len()..])
            {
                range = Some((min, None));
                hit = true;
            }
        }
        if let Some(p) = s.find("cuda capability supported by this version of PyTorch is") {
            let r = rest_or_next(&s[p + 55..]);
            let mut it = r.split(" - ");
            let lo = it.next().and_then(capability_token);
            let hi = it.next().and_then(capability_token);
            if let Some(lo) = lo {
                range = Some((lo, hi));
                hit = true;
            }
        }
        if hit {
            out.push(
                l.content_span(),
                EventKind::GpuArchMissing {
                    form,
                    gpu,
                    capability,
                    supported,
                    range,
                    detail: l.content_text(),
                },
            );
        }
    }

    /// The last line of a log that stops at a JIT build's progress: nothing but more progress,
    /// blank lines or rules (`=====`) after it. The extensions root and the extension are read
    /// from anywhere in the text.
    fn jit_stalled(&self, l: &Line<'_>, out: &mut Out) {
        let progress = |t: &str| JIT_PROGRESS.iter().any(|p| t.contains(p));
        let s = l.s();
        if !progress(s) {
            return;
        }
        // A log that stops here has little after it; a long rest is not looked through (a text
        // of many progress lines stays linear).
        let Some(rest) = l
            .next
            .and_then(|n| self.text.get(n..))
            .filter(|r| r.len() <= 4096)
        else {
            return;
        };
        let stops_here = rest.lines().all(|r| {
            let r = r.trim();
            r.is_empty() || r.bytes().all(|c| c == b'=' || c == b'-') || progress(r)
        });
        if !stops_here || rest.lines().any(|r| progress(r.trim())) {
            return;
        }
        let text = self.text;
        let root = text.find(" as PyTorch extensions root").and_then(|e| {
            let line_start = text[..e].rfind('\n').map_or(0, |i| i + 1);
            let head = text[line_start..e].trim();
            let path = head.strip_prefix("Using").unwrap_or(head).trim();
            (!path.is_empty() && path.len() <= 256 && !path.contains(char::is_whitespace))
                .then(|| path.to_owned())
        });
        let word = |r: &str| {
            let n = r
                .bytes()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
                .count();
            (n > 0 && n <= 64).then(|| r[..n].to_owned())
        };
        let op = ["Building extension module ", "Loading extension module "]
            .iter()
            .find_map(|p| text.rfind(p).and_then(|i| word(&text[i + p.len()..])))
            .or_else(|| {
                // `… build and load the cpu_adam kernel during runtime now`.
                let i = text.rfind(" kernel during runtime now")?;
                let head = &text[..i];
                let start = head.rfind(' ').map_or(0, |j| j + 1);
                word(&head[start..])
            });
        out.push(l.content_span(), EventKind::JitBuildStalled { root, op });
    }

    /// `torch.cuda.is_available()` then `False` on the same line (`… is_available(): False`,
    /// `print(…) # False`) or as the next line's answer (`False`, `>>false`).
    fn cuda_unavailable(&self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        // `python -m torch.utils.collect_env` says it in one line; Unsloth refuses to start with
        // `Unsloth currently only works on NVIDIA GPUs and Intel GPUs.` when torch sees no CUDA.
        if let Some((p, n, w)) = ["Is CUDA available: False", "only works on NVIDIA GPUs"]
            .iter()
            .find_map(|w| s.find(w).map(|p| (p, w.len(), w)))
        {
            out.push(
                l.span(p, p + n),
                EventKind::CudaUnavailable {
                    detail: l.content_text(),
                    // Unsloth refuses to start; collect_env only reports.
                    stopped: w.starts_with("only"),
                },
            );
            return;
        }
        let Some(p) = s.find("cuda.is_available()") else {
            return;
        };
        let after = s[p + 19..].trim_start_matches([')', ' ', ':', '=', '>', '#', '-']);
        let next = self.next_line(l);
        let answer = |t: &str| {
            let t = t.trim().trim_start_matches(['>', ' ', '\'', '"']);
            // A title says it in words: `torch.cuda.is_available() return false`, `returns False`.
            let t = ["returns ", "return ", "gives ", "is "]
                .iter()
                .find_map(|w| t.strip_prefix(w))
                .unwrap_or(t)
                .trim_start();
            t.starts_with("False") || t.starts_with("false")
        };
        // `assert torch.cuda.is_available(), "…"` failing: the next line is its AssertionError.
        let asserted = s[..p].trim_end().ends_with("assert torch.")
            && next
                .as_ref()
                .is_some_and(|n| n.c().trim_start().starts_with("AssertionError"));
        let unavailable = asserted
            || if after.trim().is_empty() {
                next.as_ref().is_some_and(|n| answer(n.c()))
            } else {
                answer(after)
            };
        if unavailable {
            out.push(
                l.content_span(),
                EventKind::CudaUnavailable {
                    detail: l.content_text(),
                    stopped: asserted,
                },
            );
        }
    }

    fn custom_ops(&self, l: &Line<'_>, out: &mut Out) {
        if skipped_extensions(l, out) {
            return;
        }
        let s = l.s();
        if let Some(p) = s.find("Couldn't load custom C++ ops") {
            let span = l.span(p, s.trim_end().len());
            let hi = ceil_char(self.text, span.end + 600);
            let around = &self.text[span.start.min(hi)..hi];
            let package = around
                .contains("torchvision")
                .then(|| "torchvision".to_owned());
            out.push(span, EventKind::CustomOpsNotLoadable { package });
        }
        if let Some(p) = s.find("Failed to load image Python extension") {
            out.push(
                l.span(p, p + "Failed to load image Python extension".len()),
                EventKind::CustomOpsNotLoadable {
                    package: Some("torchvision".to_owned()),
                },
            );
        }
        if let Some(p) = s.find("An issue occurred while importing '") {
            let r = &s[p + 35..];
            if let Some(q) = r.find('\'') {
                let pkg = &r[..q];
                out.push(
                    l.span(p, p + 35 + q + 1),
                    EventKind::CustomOpsNotLoadable {
                        package: non_empty(pkg),
                    },
                );
            }
        }
    }
}

struct Out {
    events: Vec<Event>,
}

impl Out {
    fn push(&mut self, span: Span, kind: EventKind) {
        if self.events.len() <= MAX_EVENTS_PER_LINE {
            self.events.push(Event { span, kind });
        }
    }
    fn full(&self) -> bool {
        self.events.len() > MAX_EVENTS_PER_LINE
    }
    /// A CUDA version mismatch the line states, its detail capped.
    fn cuda_mismatch(
        &mut self,
        span: Span,
        found: Option<String>,
        expected: Option<String>,
        detail: &str,
    ) {
        let detail = cap(detail).to_owned();
        self.push(
            span,
            EventKind::CudaVersionMismatch {
                found,
                expected,
                detail,
            },
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Prefixes

const LEVELS: &[&str] = &[
    "WARNING", "ERROR", "INFO", "DEBUG", "CRITICAL", "WARN", "FATAL", "TRACE",
];

/// A line's content: what follows its indentation, Markdown quotes, pytest's `E   `, launcher
/// tags and logging prefixes (see `content_start`), for readers of whole texts outside the
/// scanner.
pub fn line_content(s: &str) -> &str {
    s.get(content_start(s)..).unwrap_or("")
}

/// Offset where a line's content starts after indentation, Markdown quotes, pytest `E   `,
/// launcher tags (`[rank0]:`), timestamps and logging prefixes (`WARNING:root:`).
fn content_start(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    if b.len() >= 3 && b[0] == b'E' && b[1] == b' ' && b[2] == b' ' {
        i = 1;
    }
    for _ in 0..8 {
        let before = i;
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        let r = &s[i..];
        if r.starts_with(">>> ") || r.starts_with("... ") {
            i += 4;
        } else if r.starts_with('>') && !r.starts_with(">>") {
            i += 1;
        } else if r.starts_with('[') {
            // `[rank0]:`, `[default0]:`, `[BUG]`, `[2024-05-01 12:00:00]`.
            // Hardening fix: byte 40 may fall inside a multi-byte char; search the bytes (`]` is
            // ASCII, so its position is a char boundary). Regression: server/ide/tests/safety.rs.
            if let Some(close) = r.as_bytes()[..r.len().min(40)]
                .iter()
                .position(|&c| c == b']')
            {
                let inner = &r[1..close];
                let tagish = !inner.is_empty()
                    && inner
                        .bytes()
                        .all(|c| c.is_ascii_alphanumeric() || b" _-:.,/".contains(&c))
                    && !inner.starts_with("end of output");
                if tagish {
                    i += close + 1;
                    if s[i..].starts_with(':') {
                        i += 1;
                    }
                }
            }
        } else if let Some(n) = timestamp_len(r) {
            i += n;
        } else if let Some(n) = level_prefix_len(r) {
            i += n;
        } else if let Some(n) = logger_location_len(r) {
            i += n;
        } else if let Some(n) = compose_prefix_len(r) {
            i += n;
        } else if r.starts_with("- ") {
            i += 2;
        }
        if i == before {
            break;
        }
    }
    i.min(s.len())
}

/// Docker Compose's service prefix before each line of a container's output: `vllm-1  | `
/// (Compose v2), `web_1  | ` (v1) — a service name ending in its replica number, spaces, a bar.
fn compose_prefix_len(r: &str) -> Option<usize> {
    let name_len = r
        .bytes()
        .take(64)
        .take_while(|c| c.is_ascii_alphanumeric() || b"_.-".contains(c))
        .count();
    let name = &r[..name_len];
    let (_, replica) = name.rsplit_once(['-', '_'])?;
    if replica.is_empty() || !replica.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let rest = &r[name_len..];
    let spaces = rest.bytes().take_while(|&c| c == b' ').count();
    if spaces == 0 || !rest[spaces..].starts_with('|') {
        return None;
    }
    let after = name_len + spaces + 1;
    Some(if r[after..].starts_with(' ') {
        after + 1
    } else {
        after
    })
}

/// A logger's source location before its message: `worker.py:42 - `, `engine.py:366] `,
/// `model_runner.py:1691: ` — a bare file name with its line number (a path with directories
/// is a Python warning's location, which names the package that warns, and stays).
fn logger_location_len(r: &str) -> Option<usize> {
    let token_end = r.find(' ')?;
    let token = &r[..token_end];
    let token = token
        .strip_suffix(']')
        .or_else(|| token.strip_suffix(':'))
        .unwrap_or(token);
    let (file, line) = token.rsplit_once(':')?;
    let file_ok = file.len() >= 4
        && file.ends_with(".py")
        && file
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"_.-".contains(&c));
    if !file_ok || line.is_empty() || line.len() > 6 || !line.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let rest = &r[token_end..];
    let sep = if rest.starts_with(" - ") { 3 } else { 1 };
    Some(token_end + sep)
}

/// `2024-05-01 12:00:00,123 - ` / `2024-05-01T12:00:00.123Z ` / `12:00:00 `.
fn timestamp_len(r: &str) -> Option<usize> {
    let b = r.as_bytes();
    let date =
        b.len() >= 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[7] == b'-';
    let time =
        b.len() >= 8 && b[..2].iter().all(u8::is_ascii_digit) && b[2] == b':' && b[5] == b':';
    // vLLM's `01-11 13:09:40` (month-day, then the time).
    let month_day = b.len() >= 14
        && b[..2].iter().all(u8::is_ascii_digit)
        && b[2] == b'-'
        && b[3..5].iter().all(u8::is_ascii_digit)
        && b[5] == b' '
        && b[8] == b':';
    if !date && !time && !month_day {
        return None;
    }
    // `T` only between an ISO date and its time, `Z` only right after the time's digits: a
    // message starting with either letter after the stamp (`… - TypeError`, `ZeroDivisionError`)
    // is not the stamp's.
    let n = b
        .iter()
        .take(40)
        .enumerate()
        .take_while(|&(i, c)| {
            c.is_ascii_digit()
                || b"-:., +/".contains(c)
                || *c == b'T' && date && i == 10
                || *c == b'Z'
                    && i > 0
                    && b[i - 1].is_ascii_digit()
                    && b.get(i + 1).is_none_or(|n| *n == b' ')
        })
        .count();
    let mut n = n;
    if r[n..].starts_with("- ") {
        n += 2;
    }
    (n > 0).then_some(n)
}

/// `WARNING:root:`, `INFO:xformers:`, `WARNING[XFORMERS]:`, `ERROR - `, `INFO `.
fn level_prefix_len(r: &str) -> Option<usize> {
    let lvl = LEVELS.iter().find(|l| r.starts_with(**l))?;
    let mut i = lvl.len();
    let rest = &r[i..];
    if rest.starts_with('[') {
        // Hardening fix (found by fuzz/scan): byte 40 may fall inside a multi-byte char; `]:`
        // is ASCII, so searching the bytes finds a char boundary.
        let close = rest.as_bytes()[..rest.len().min(40)]
            .windows(2)
            .position(|w| w == b"]:")?;
        return Some(i + close + 2);
    }
    if rest.starts_with(':') {
        i += 1;
        let name_len = r[i..]
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || b"_.-".contains(c))
            .count();
        if name_len > 0 && r[i + name_len..].starts_with(':') {
            i += name_len + 1;
        }
        return Some(i);
    }
    if rest.starts_with(" - ") {
        return Some(i + 3);
    }
    if rest.starts_with(' ') || rest.starts_with(']') {
        return Some(i + 1);
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Small helpers

fn cap(s: &str) -> &str {
    if s.len() <= MAX_FIELD {
        return s;
    }
    let mut e = MAX_FIELD;
    while !s.is_char_boundary(e) {
        e -= 1;
    }
    &s[..e]
}

fn non_empty(s: &str) -> Option<String> {
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_owned())
}

/// `s.split_whitespace().next().unwrap_or("")`, without decoding ASCII text char by char (a URL
/// of a `Downloading` line is read once, a word of bytes at a time).
fn first_word(s: &str) -> &str {
    let t = s.trim_start();
    let b = t.as_bytes();
    let end = memchr::memchr(b' ', b).unwrap_or(b.len());
    // The ASCII chars `char::is_whitespace` accepts are U+0009..=U+000D and the space: with none
    // of the others and no non-ASCII char before the first space, the word ends there;
    // otherwise the standard library decides.
    let other = b[..end].iter().fold(false, |acc, &c| {
        acc | (c >= 0x80) | (c.wrapping_sub(b'\t') <= b'\r' - b'\t')
    });
    if other {
        t.split_whitespace().next().unwrap_or("")
    } else {
        t.get(..end).unwrap_or("")
    }
}

/// `s.rfind(|c| c.is_whitespace() || seps.contains(c))` for ASCII `seps`, bytewise while the
/// text after the match is ASCII.
fn rfind_space_or(s: &str, seps: &[u8]) -> Option<usize> {
    for (k, &c) in s.as_bytes().iter().enumerate().rev() {
        if c >= 0x80 {
            return s
                .rfind(|c: char| c.is_whitespace() || c.is_ascii() && seps.contains(&(c as u8)));
        }
        if matches!(c, b'\t'..=b'\r' | b' ') || seps.contains(&c) {
            return Some(k);
        }
    }
    None
}

/// A symbol printed demangled (`c10::cuda::c10_cuda_check_implementation(int, char const*)`):
/// after its first name, `::` continues it to the end of the line (spaces and punctuation
/// included), up to a closing quote or backtick. Returns the bytes to add.
fn demangled_tail(rest: &str) -> usize {
    if !rest.starts_with("::") {
        return 0;
    }
    let end = rest.find(['`', '\'', '"']).unwrap_or(rest.len());
    rest[..end].trim_end().trim_end_matches(['.', ',']).len()
}

fn is_sym_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.' || c == b'@'
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn demangles(sym: &str) -> bool {
    sym.len() < 4096 && cpp_demangle::Symbol::new(sym.as_bytes()).is_ok()
}

/// `ImportError:`, `OSError:` and similar intros that stand before a library or symbol.
fn is_error_intro(before: &str) -> bool {
    let t = before.trim_end_matches(':').trim();
    !t.is_empty()
        && t.bytes().all(|c| is_ident_byte(c) || c == b'.')
        && (t.ends_with("Error") || t.ends_with("Exception"))
}

/// The library path just before `at` (`…/x.so: undefined symbol`), with its start offset.
fn library_before(s: &str, at: usize) -> Option<(String, usize)> {
    let mut t = s[..at].trim_end();
    loop {
        let before = t.len();
        t = t.trim_end_matches(':').trim_end();
        // Repr-quoted messages carry escaped newlines: `…so:\nundefined symbol`.
        while let Some(x) = t.strip_suffix("\\n") {
            t = x.trim_end();
        }
        if t.len() == before {
            break;
        }
    }
    let start = t
        .rfind(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '(' | '[' | '='))
        .map_or(0, |i| after_char(t, i));
    let tok = &t[start..];
    let (tok, start) = match tok.strip_prefix("dlopen(") {
        Some(x) => (x, start + 7),
        None => (tok, start),
    };
    let looks_like_lib = tok.ends_with(".so")
        || tok.contains(".so.")
        || tok.ends_with(".pyd")
        || tok.ends_with(".dylib")
        || (tok.contains('/') && !tok.ends_with('/'));
    (looks_like_lib && !tok.is_empty()).then(|| (tok.to_owned(), start))
}

/// A C/C++ header by its file name's extension (`cblas.h`, `glm/glm.hpp`, `kernel.cuh`).
pub fn is_header_name(name: &str) -> bool {
    [".h", ".cuh", ".hpp", ".hh", ".hxx", ".inl"]
        .iter()
        .any(|e| name.ends_with(e))
}

/// The version inside the parentheses after `word`: `version (12.1)` → `12.1`.
/// A name or header a compile step does not find (see `EventKind::CompileNameMissing`).
fn compile_name_missing(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // CPython's C API a compile or a link does not find (which names a Python release removed
    // or changed, the knowledge decides): gcc's `implicit declaration of function
    // 'PyUnicode_AsUnicode'` and `too few arguments to function '_PyLong_AsByteArray'`, clang's
    // `use of undeclared identifier`, ld's ``undefined reference to `X'``, MSVC's `unresolved
    // external symbol X`.
    for phrase in [
        "implicit declaration of function ",
        "too few arguments to function ",
        "use of undeclared identifier ",
        "undefined reference to ",
        "unresolved external symbol ",
    ] {
        let Some(p) = s.find(phrase) else { continue };
        let r = s[p + phrase.len()..].trim_start_matches(['\'', '‘', '`', '"']);
        let name: String = r
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(80)
            .collect();
        // MSVC's import thunk (`__imp_PyUnicode_AsUnicode`); macOS' and 32-bit MSVC's leading
        // `_` stays, for the knowledge to look past.
        let full = name.strip_prefix("__imp_").unwrap_or(&name).to_owned();
        if full.trim_start_matches('_').starts_with("Py") {
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::CompileNameMissing {
                    name: full,
                    detail: cap(s[p..].trim_end()).to_owned(),
                },
            );
            return;
        }
    }
    let quoted_before = |p: usize| -> Option<String> {
        let before = s.get(..p)?.trim_end();
        // MSVC puts a colon after the quoted name (`'AT_CHECK': identifier not found`).
        let before = before.strip_suffix(':').unwrap_or(before).trim_end();
        let close = before.chars().last()?;
        let open = match close {
            '\'' => '\'',
            '’' => '‘',
            // MSVC in Chinese and Japanese locales: `“AT_CHECK”: identifier not found`.
            '”' => '“',
            '"' => '"',
            '`' => '`',
            _ => return None,
        };
        let inner = &before[..before.len() - close.len_utf8()];
        let start = inner.rfind(open)? + open.len_utf8();
        non_empty(cap(&inner[start..]))
    };
    let mut found = None;
    for phrase in [
        "was not declared in this scope",
        "has not been declared",
        // gcc: `'THCState' does not name a type` (a type the headers no longer declare).
        "does not name a type",
        "is undefined",
        // MSVC: C3861 `'AT_CHECK': identifier not found`, C2065 `'THCState': undeclared
        // identifier`.
        "identifier not found",
        "undeclared identifier",
    ] {
        if let Some(p) = s.find(phrase) {
            found = quoted_before(p).map(|n| (p, n));
            if found.is_some() {
                break;
            }
        }
    }
    // gcc: `'getCurrentCUDAStream' is not a member of 'at::cuda'` (clang: `no member named 'X'
    // in namespace 'at::cuda'`): a name of torch's namespaces, qualified by it.
    if found.is_none() {
        for (phrase, scope_intro) in [
            ("is not a member of ", ""),
            ("no member named ", " in namespace "),
        ] {
            let Some(p) = s.find(phrase) else { continue };
            let (name, after) = if scope_intro.is_empty() {
                (quoted_before(p), &s[p + phrase.len()..])
            } else {
                let r = &s[p + phrase.len()..];
                let Some(k) = r.find(scope_intro) else {
                    continue;
                };
                (
                    non_empty(r[..k].trim_matches(['\'', '‘', '’', '"', '`'])),
                    &r[k + scope_intro.len()..],
                )
            };
            let scope: String = after
                .trim_start_matches(['\'', '‘', '"', '`'])
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == ':' || *c == '_')
                .take(64)
                .collect();
            let torch_scope = ["at", "c10", "torch"]
                .iter()
                .any(|t| scope == *t || scope.starts_with(&format!("{t}::")));
            if let Some(n) = name.filter(|_| torch_scope) {
                found = Some((p, format!("{scope}::{n}")));
                break;
            }
        }
    }
    // A title retelling it: `"<THC/THC.h> no such file or directory"` — the header in angle
    // brackets right before the words, in any case.
    if found.is_none()
        && let Some(p) = s.to_ascii_lowercase().find("> no such file or directory")
        && let Some(open) = s[..p].rfind('<')
    {
        let header = &s[open + 1..p];
        if is_header_name(header) {
            found = Some((open, cap(header).to_owned()));
        }
    }
    if found.is_none()
        && let Some(p) = s.find(": No such file or directory")
    {
        // gcc/nvcc: `fatal error: cblas.h: No such file or directory`; MSVC: `fatal error C1083:
        // Cannot open include file: 'cblas.h': No such file or directory`.
        let before = s[..p].trim_end_matches(['\'', '"', '>']);
        let start = before.rfind([' ', '<', '"', '\'']).map_or(0, |i| i + 1);
        let header = &before[start..];
        let compile = s[..start].contains("fatal error") || s[..start].contains("include file");
        let header_like = is_header_name(header)
            // `Eigen/Dense`, `google/dense_hash_map`: headers without an extension, in a
            // compiler's own words only.
            || compile && header.contains('/') && !header.starts_with('/');
        if header_like && !header.is_empty() {
            found = Some((start, cap(header).to_owned()));
        }
    }
    // torch's API gone in a form no "not declared" states: `.type()` handed to AT_DISPATCH
    // (nvcc: `no suitable conversion function from "const at::DeprecatedTypeProperties" to
    // "c10::ScalarType"`, gcc and MSVC: `cannot convert`), and torch 1.0's raise on importing
    // the old C-extension API (`torch.utils.ffi is deprecated`).
    if found.is_none()
        && let Some(p) = s.find("DeprecatedTypeProperties")
        && ["conversion", "convert", "no member named", " exists"]
            .iter()
            .any(|w| s.contains(w))
    {
        found = Some((p, "at::DeprecatedTypeProperties".to_owned()));
    }
    if found.is_none()
        && let Some(p) = s.find("torch.utils.ffi is deprecated")
    {
        found = Some((p, "torch.utils.ffi".to_owned()));
    }
    // tcc (Triton's bundled compiler on Windows): `error: include file 'Python.h' not found`;
    // clang (macOS, ROCm's hipcc): `fatal error: 'omp.h' file not found`.
    for (lead, tail) in [
        ("include file '", "' not found"),
        ("fatal error: '", "' file not found"),
    ] {
        if found.is_none()
            && let Some(p) = s.find(lead)
            && s[p..].contains(tail)
        {
            let r = &s[p + lead.len()..];
            let header = &r[..r.find('\'').unwrap_or(r.len())];
            if is_header_name(header) || header.contains('/') && !header.starts_with('/') {
                found = Some((p + lead.len(), cap(header).to_owned()));
            }
        }
    }
    // gcc in another language: `fatal error: cblas.h: Arquivo ou diretório inexistente` — a
    // header right after gcc's untranslated `fatal error: `, followed by its message.
    if found.is_none()
        && let Some(p) = s.find("fatal error: ")
    {
        let r = &s[p + 13..];
        if let Some(e) = r.find(": ") {
            let header = r[..e].trim_matches(['\'', '"', '<', '>']);
            let header_like = is_header_name(header) && !header.contains(' ');
            if header_like {
                found = Some((p + 13, cap(header).to_owned()));
            }
        }
    }
    // pkg-config on a build's dependency: `Package libavformat was not found in the pkg-config
    // search path.` — its `.pc` file, the development package's as a header is.
    if found.is_none()
        && let Some(p) = s.find(" was not found in the pkg-config search path")
        && let Some(k) = s[..p].rfind("Package ")
    {
        let name = s[k + 8..p].trim();
        if !name.is_empty() && !name.contains(' ') {
            found = Some((k, format!("{name}.pc")));
        }
    }
    // CMake's find_package in config mode: `By not providing "FindTorch.cmake" in
    // CMAKE_MODULE_PATH this project has asked CMake to find a package configuration file
    // provided by "Torch"` (the name on either line as it wraps), `Could not find a package
    // configuration file provided by "pybind11"`: that package's `<Name>Config.cmake`, which
    // its development files install. CUDA's own modules are another reader's.
    if found.is_none() {
        for lead in [
            "By not providing \"Find",
            "package configuration file provided by \"",
        ] {
            if let Some(p) = s.find(lead) {
                let r = &s[p + lead.len()..];
                let name = r[..r.find('"').unwrap_or(r.len())]
                    .trim_end_matches(".cmake")
                    .to_owned();
                let plain = !name.is_empty()
                    && name.len() <= 64
                    && name
                        .bytes()
                        .all(|c| c.is_ascii_alphanumeric() || b"_-.".contains(&c));
                if plain && !name.starts_with("CUDA") && name != "Caffe2" {
                    found = Some((p, format!("{name}Config.cmake")));
                }
                break;
            }
        }
    }
    // PyTables' and h5py's setup looking for HDF5 before compiling: `Could not find a local
    // HDF5 installation.` — its headers, as a compiler would have said.
    if found.is_none()
        && let Some(p) = s.find("Could not find a local HDF5 installation")
    {
        found = Some((p, "hdf5.h".to_owned()));
    }
    let Some((p, name)) = found else { return };
    if !name
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || b"_/.:+-".contains(&c))
    {
        return;
    }
    out.push(
        l.span(p.min(s.len()), s.trim_end().len()),
        EventKind::CompileNameMissing {
            name,
            detail: cap(s.trim()).to_owned(),
        },
    );
}

/// A library's configuration program a build runs for its flags, not there: `mecab-config not
/// found`, psycopg2's `pg_config executable not found.`, `/bin/sh: 1: mysql_config: not found`,
/// `mysql_config: command not found`: the program's name, for its development package (the
/// header table's), as a header missing is.
fn config_tool_missing(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    if let Some((p, tool)) = config_tool_at(s) {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::CompileNameMissing {
                name: tool.to_owned(),
                detail: cap(s.trim()).to_owned(),
            },
        );
    }
}

/// A `NAME-config` / `NAME_config` program named right before `not found`, `executable not
/// found`, `: not found` or `: command not found` (`pkg-config`, a build program, is not one):
/// where it starts, and the name.
fn config_tool_at(s: &str) -> Option<(usize, &str)> {
    for (i, _) in s.match_indices("config") {
        let end = i + 6;
        let head = &s[..i];
        if !(head.ends_with('-') || head.ends_with('_')) {
            continue;
        }
        // After the last character that is no part of a name (its whole width: it may be
        // multibyte).
        let start = head
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
            .map_or(0, |(k, c)| k + c.len_utf8());
        let tool = &s[start..end];
        if tool == "pkg-config" {
            continue;
        }
        if tool.len() <= 7 || tool.len() > 40 || tool.starts_with(['-', '_']) {
            continue;
        }
        let rest = s[end..].trim_start_matches(['\'', '"', ':']).trim_start();
        if ["not found", "executable not found", "command not found"]
            .iter()
            .any(|w| rest.starts_with(w))
        {
            return Some((start, tool));
        }
    }
    None
}

/// bitsandbytes' own CUDA library not loading (see `EventKind::CudaSetupFailed`).
fn cuda_setup_failed(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = [
        "CUDA Setup failed despite GPU being available",
        "was compiled without GPU support",
        "Could not find the bitsandbytes CUDA binary",
        "Could not load bitsandbytes native library",
        "CUDA SETUP: CUDA detection failed",
        "The main issue seems to be that the main CUDA runtime library was not detected",
    ]
    .iter()
    .find_map(|m| s.find(m))
    .or_else(|| bnb_function_missing(s))
    // bitsandbytes' Linux build on Windows, whose setup iterates a Windows path, retold on one
    // line with its name or its `CUDA SETUP` (in the log itself, the `Problem:` line above
    // reads it).
    .or_else(|| {
        s.find("argument of type 'WindowsPath' is not iterable")
            .filter(|_| s.contains("bitsandbytes") || s.contains("CUDA SETUP"))
    }) else {
        return;
    };
    // Every form is bitsandbytes' (its CUDA setup, its own messages).
    let start = s[..p].rfind("The installed version").unwrap_or(p);
    out.push(
        l.span(start, s.trim_end().len()),
        EventKind::CudaSetupFailed {
            package: "bitsandbytes".into(),
            detail: cap(s[start..].trim_end()).to_owned(),
        },
    );
}

/// A package's summary of its own library not loading (see
/// `EventKind::PackageLibraryUnloadable`): each phrase with the package that prints it.
fn package_library_unloadable(l: &Line<'_>, out: &mut Out) {
    const FORMS: &[(&str, &str)] = &[
        ("Could not load libtorchcodec", "torchcodec"),
        // jaxlib's CUDA plugin opening the CUDA libraries of its nvidia-* wheels: `Unable to load
        // cuDNN. Is it installed?`, `Unable to load cuSPARSE. Is it installed?`.
        ("Unable to load cu", "jax"),
        // jaxlib's version check of the same libraries: `jaxlib/cuda/versions_helpers.cc:81:
        // operation cusparseGetProperty(MAJOR_VERSION, &major) failed: The cuSPARSE library
        // was not found.`
        (" library was not found", "jax"),
    ];
    let s = l.s();
    for (phrase, package) in FORMS {
        if let Some(p) = s.find(phrase)
            && (*package != "jax"
                || s[p..].contains(". Is it installed?")
                || s.contains("jaxlib/") && s[..p].contains("failed: The cu"))
        {
            // The version check's sentence from its start (`The cuSPARSE library …`).
            let p = if phrase.starts_with(' ') {
                s[..p].rfind("The cu").unwrap_or(p)
            } else {
                p
            };
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::PackageLibraryUnloadable {
                    package: (*package).into(),
                    detail: cap(s[p..].trim_end()).to_owned(),
                },
            );
            return;
        }
    }
}

/// Where bitsandbytes calls a CUDA function of its native library and finds none: ctypes'
/// `function 'cdequantize_blockwise_fp32' not found` (its CPU library was loaded), or
/// `'NoneType' object has no attribute 'cquantize_blockwise_fp16_nf4'` (no library loaded). Its
/// C API names start with `c` and name a quantization, optimizer or matmul kernel.
fn bnb_function_missing(s: &str) -> Option<usize> {
    let (p, rest) = if let Some(p) = s.find("function 'c") {
        let r = &s[p + 10..];
        let e = r.find('\'')?;
        r[e..].starts_with("' not found").then_some((p, &r[..e]))?
    } else {
        let p = s.find("object has no attribute 'c")?;
        let r = &s[p + 25..];
        (p, &r[..r.find('\'')?])
    };
    const KERNELS: &[&str] = &[
        "quantize",
        "blockwise",
        "4bit",
        "nf4",
        "fp4",
        "adam",
        "gemm",
        "lion",
        "momentum",
        "rmsprop",
        "ademamix",
        "percentile",
        "spmm",
        "elementwise",
        "8bit",
        "int8",
    ];
    let ok = rest.len() < 64
        && rest.contains('_')
        && rest.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && KERNELS.iter().any(|k| rest.contains(k));
    ok.then_some(p)
}

/// xFormers without its kernels, what it was built for unstated.
fn xformers_unbuilt() -> EventKind {
    EventKind::XformersBuiltFor {
        built_torch: None,
        have_torch: None,
        built_cuda: None,
        built_python: None,
        have_python: None,
    }
}

/// torch's and TensorFlow's cuDNN checks (see `EventKind::CudnnVersionMismatch`).
fn cudnn_mismatch(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let mut library = "cuDNN";
    let (start, framework, compiled, runtime) = if let Some(p) = s
        .find("cuDNN version mismatch")
        .or_else(|| s.find("cuDNN version incompatibility"))
    {
        let r = &s[p..];
        let compiled = r
            .find("compiled")
            .and_then(|i| r[i..].find("against").map(|j| i + j + 7))
            .and_then(|i| cudnn_version(&r[i..]));
        let runtime = ["linked against", "runtime version"]
            .iter()
            .find_map(|w| r.find(w).map(|i| i + w.len()))
            .and_then(|i| cudnn_version(&r[i..]));
        (p, "torch", compiled, runtime)
    } else if let Some(p) = s.find("Loaded runtime CuDNN library:") {
        let r = &s[p..];
        let runtime = cudnn_version(&r[29..]);
        let compiled = r
            .find("compiled with")
            .and_then(|i| cudnn_version(&r[i + 13..]));
        // jaxlib builds TensorFlow's stream executor in as a Bazel external repository: its
        // logger names the file `external/org_tensorflow/…`, TensorFlow's own `tensorflow/…`.
        let framework = if s[..p].contains("external/org_tensorflow/") {
            "jax"
        } else {
            "tensorflow"
        };
        (p, framework, compiled, runtime)
    } else if let Some(p) = s
        .find("DNN library is not found")
        .or_else(|| s.find("DNN library initialization failed"))
        // TensorFlow's cuDNN-backed ops (CudnnRNN, convolutions) when cuDNN would not start.
        .or_else(|| s.find(DNN_IMPLEMENTATION))
    {
        // XLA's stream executor when cuDNN would not load or initialize: the library missing,
        // or another version than the framework was built with (its `Loaded runtime CuDNN`
        // line, when the log kept it, says which). JAX raises it as an XlaRuntimeError.
        let framework = if s.contains("XlaRuntimeError") || s.contains("jax") {
            "jax"
        } else {
            "tensorflow"
        };
        (p, framework, None, None)
    } else if let Some(p) = s.find("but JAX was built against version") {
        // JAX: `Found cuBLAS version 120205, but JAX was built against version 120304, which is
        // newer` (also cuDNN, cuSPARSE, cuFFT, cuSOLVER).
        let start = s[..p].rfind("Found ").unwrap_or(p);
        let r = &s[start..];
        library = ["cuDNN", "cuBLAS", "cuSPARSE", "cuFFT", "cuSOLVER", "NCCL"]
            .into_iter()
            .find(|l| r.starts_with(&format!("Found {l} ")))
            .unwrap_or("CUDA library");
        let runtime = r.find(" version ").and_then(|i| cudnn_version(&r[i + 9..]));
        let compiled = cudnn_version(&s[p + 33..]);
        (start, "jax", compiled, runtime)
    } else {
        return;
    };
    if compiled.is_none()
        && runtime.is_none()
        && !s[start..].starts_with("DNN library ")
        && !s[start..].starts_with(DNN_IMPLEMENTATION)
    {
        return;
    }
    out.push(
        l.span(start, s.trim_end().len()),
        EventKind::CudnnVersionMismatch {
            framework: framework.to_owned(),
            library: library.to_owned(),
            compiled,
            runtime,
            detail: cap(s[start..].trim_end()).to_owned(),
        },
    );
}

/// A cuDNN version as the checks print it, dotted: `7102` (cuDNN 7/8: major·1000 + minor·100 +
/// patch) → `7.1.2`, `90100` (cuDNN 9: major·10000 + minor·100 + patch) → `9.1.0`, `(8, 5, 0)`
/// → `8.5.0`.
fn cudnn_version(s: &str) -> Option<String> {
    let s = s.trim_start_matches([' ', ':']);
    // Dotted already (TensorFlow 2.4+: `Loaded runtime CuDNN library: 8.0.5 but source was
    // compiled with: 8.1.0`).
    let dotted: Vec<u32> = s
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .next()
        .unwrap_or("")
        .trim_end_matches('.')
        .split('.')
        .map_while(|p| p.parse().ok())
        .collect();
    if dotted.len() == 3 && dotted[0] < 100 {
        return Some(format!("{}.{}.{}", dotted[0], dotted[1], dotted[2]));
    }
    if let Some(r) = s.strip_prefix('(') {
        let inner = &r[..r.find(')')?];
        let parts: Vec<u32> = inner
            .split(',')
            .map(|p| p.trim().parse().ok())
            .collect::<Option<_>>()?;
        return (parts.len() == 3).then(|| format!("{}.{}.{}", parts[0], parts[1], parts[2]));
    }
    let digits: String = s.chars().take_while(char::is_ascii_digit).take(7).collect();
    let n: u32 = digits.parse().ok()?;
    match n {
        1000..=9999 => Some(format!("{}.{}.{}", n / 1000, n % 1000 / 100, n % 100)),
        10_000..=999_999 => Some(format!("{}.{}.{}", n / 10_000, n % 10_000 / 100, n % 100)),
        _ => None,
    }
}

fn paren_after(s: &str, word: &str) -> Option<String> {
    let i = s.find(word)? + word.len();
    let r = s[i..].trim_start();
    let r = r.strip_prefix('(')?;
    let e = r.find(')')?;
    non_empty(&r[..e])
}

/// The leading version-looking token of `s`: `2.1.0+cu121)` → `2.1.0+cu121`.
fn version_token(s: &str) -> &str {
    let n = s
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || b".+_".contains(c))
        .count();
    s[..n].trim_end_matches('.')
}

fn is_version(v: &str) -> bool {
    let b = v.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && b.get(digits) == Some(&b'.') && b.get(digits + 1).is_some_and(u8::is_ascii_digit)
}

/// `%2B` (either case) decoded to `+`, as two `replace` passes would; borrowed when there is no
/// `%` (a `Downloading` line of a pip log comes by once per package: no copy for most).
fn decode_plus(s: &str) -> Cow<'_, str> {
    if memchr::memchr(b'%', s.as_bytes()).is_none() {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.replace("%2B", "+").replace("%2b", "+"))
    }
}

/// `flash_attn` → `flash-attn`, `PyTorch` → `torch`.
fn normalize_subject(s: &str) -> String {
    let mut l = s.to_ascii_lowercase();
    if l.contains('_') {
        l = l.replace('_', "-");
    }
    match l.as_str() {
        "pytorch" => "torch".to_owned(),
        "cuda toolkit" | "cudatoolkit" => "cuda".to_owned(),
        _ => l,
    }
}

// ---------------------------------------------------------------------------------------------
// Recognizers that need only their line

/// glibc's loader on a versioned symbol the library it found lacks:
/// `X.so: symbol NAME, version VER not defined in file LIB with link time reference`. LIB was
/// found but is another (older) copy than the one X was linked against; the event names LIB as
/// the library the symbol was looked for in.
fn link_time_reference(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let needle = "not defined in file ";
    let Some(p) = s.find(needle) else { return };
    // A title keeps only the end (`version libcudnn_ops_infer.so.8 not defined in file …`):
    // the symbol is then cut off.
    let (k, name) = match s[..p].rfind("symbol ") {
        Some(k) => {
            let head = s[k + 7..p].trim();
            (k, head.split([',', ' ']).next().unwrap_or(""))
        }
        None => match s[..p].rfind("version ") {
            Some(k) => (k, ""),
            None => return,
        },
    };
    if !name.bytes().all(is_sym_byte) {
        return;
    }
    let rest = &s[p + needle.len()..];
    let len = rest
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'+'))
        .count();
    let file = rest[..len].trim_end_matches('.');
    if !file.contains(".so") || file.len() > 128 {
        return;
    }
    let (library, start) = match library_before(s, k) {
        Some((lib, at)) => (Some(lib), at),
        None => (None, k),
    };
    out.push(
        l.span(start, p + needle.len() + file.len()),
        EventKind::UndefinedSymbol {
            library,
            symbol: cap(name).to_owned(),
            truncated: name.is_empty(),
            version_of: Some(file.to_owned()),
        },
    );
}

/// Cython's check at import of a module it cimports from: `cudf._lib.cudf does not export
/// expected C function get_column_data_ptr` (also `C variable`, `type`): the module imported
/// is of another release than the one the importer was compiled against.
fn cython_capi(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find(" does not export expected C ") else {
        return;
    };
    // The word right before the phrase, untrimmed: it ends where the phrase starts, so its
    // start is a character boundary.
    let module = s[..p]
        .rsplit(|c: char| c.is_whitespace() || matches!(c, ':' | '\'' | '"'))
        .next()
        .unwrap_or("");
    let valid = |w: &str| {
        !w.is_empty()
            && w.len() <= 200
            && w.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
    };
    let rest = &s[p + " does not export expected C ".len()..];
    let name = rest
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .trim_end_matches(['.', '\'', '"']);
    if !valid(module) || !valid(name) {
        return;
    }
    out.push(
        l.span(p - module.len(), s.trim_end().len()),
        EventKind::CythonApiMissing {
            module: module.to_owned(),
            name: name.to_owned(),
        },
    );
}

/// A library of macOS itself (`/usr/lib/libSystem.B.dylib`, `/usr/lib/libobjc.A.dylib`,
/// `/System/Library/Frameworks/…`): part of the OS, of its release. Without dyld's word on the
/// macOS the binary was built for, only the libraries every program links (the C library, the
/// Objective-C runtime, libc++, a system framework): another `/usr/lib` library missing a
/// symbol is more often a library mixed up with another (libedit for GNU readline).
fn is_macos_system_library(path: &str, built_for_known: bool) -> bool {
    if path.contains("Python.framework") {
        return false;
    }
    let in_usr_lib = path.starts_with("/usr/lib/")
        && !path["/usr/lib/".len()..].contains('/')
        && path.ends_with(".dylib");
    let core = ["libSystem", "libobjc", "libc++"]
        .iter()
        .any(|l| path.starts_with(&format!("/usr/lib/{l}")))
        || path.starts_with("/System/Library/Frameworks/");
    if built_for_known {
        in_usr_lib || path.starts_with("/System/Library/")
    } else {
        core
    }
}

/// A package's check of its framework's version: `Version mismatch: Open3D needs PyTorch version
/// 1.7.*, but version 1.8.2 is installed!` (the framework PyTorch or TensorFlow, by name).
fn framework_version(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // Intel Extension for PyTorch's own check at import: `ERROR! Intel® Extension for PyTorch*
    // needs to work with PyTorch 2.2.*, but PyTorch 2.1.0+cu121 is found. Please switch to the
    // matching version and run again.`
    if let Some(p) = s.find("needs to work with PyTorch ") {
        let r = &s[p + "needs to work with PyTorch ".len()..];
        if let Some((needs, rest)) = r.split_once(", but PyTorch ")
            && let Some((installed, _)) = rest.split_once(" is found")
            && [needs, installed]
                .iter()
                .all(|v| version_text(v) && v.starts_with(|c: char| c.is_ascii_digit()))
        {
            let start = s[..p].find("Intel").unwrap_or(p);
            out.push(
                l.span(start, s.trim_end().len()),
                EventKind::FrameworkVersionRequired {
                    package: "intel-extension-for-pytorch".to_owned(),
                    framework: "PyTorch".to_owned(),
                    needs: needs.to_owned(),
                    installed: installed.to_owned(),
                },
            );
        }
        return;
    }
    // DeepSpeed's check of the ops it compiled at install time (op_builder's builder.py), after
    // `PyTorch version mismatch! DeepSpeed ops were compiled and installed with a different
    // version than what is being used at runtime.`: `Install torch version=2.1, Runtime torch
    // version=2.2` (major.minor: that release line).
    if let Some(p) = s.find("Install torch version=") {
        let r = &s[p + "Install torch version=".len()..];
        let line = |v: &str| {
            let v = v.trim().trim_end_matches(['.', ',']);
            if v.matches('.').count() == 1 {
                format!("{v}.*")
            } else {
                v.to_owned()
            }
        };
        if let Some((needs, rest)) = r.split_once(", Runtime torch version=") {
            let installed = rest.split_whitespace().next().unwrap_or("");
            let (needs, installed) = (line(needs), installed.trim_end_matches(['.', ',']));
            if [needs.as_str(), installed]
                .iter()
                .all(|v| version_text(v) && v.starts_with(|c: char| c.is_ascii_digit()))
            {
                out.push(
                    l.span(p, s.trim_end().len()),
                    EventKind::FrameworkVersionRequired {
                        package: "deepspeed".to_owned(),
                        framework: "PyTorch".to_owned(),
                        needs,
                        installed: installed.to_owned(),
                    },
                );
            }
        }
        return;
    }
    let Some(p) = s.find("Version mismatch: ") else {
        return;
    };
    let r = &s[p + 18..];
    let Some((package, rest)) = r.split_once(" needs ") else {
        return;
    };
    let Some((framework, rest)) = rest.split_once(" version ") else {
        return;
    };
    let Some((needs, rest)) = rest.split_once(", but version ") else {
        return;
    };
    let Some((installed, _)) = rest.split_once(" is installed") else {
        return;
    };
    let word = |w: &str| {
        !w.is_empty()
            && w.len() <= 40
            && w.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
    };
    if !matches!(framework, "PyTorch" | "TensorFlow")
        || !word(package)
        || !version_text(needs)
        || !version_text(installed)
    {
        return;
    }
    out.push(
        l.span(p, s.trim_end().len()),
        EventKind::FrameworkVersionRequired {
            package: package.to_owned(),
            framework: framework.to_owned(),
            needs: needs.to_owned(),
            installed: installed.to_owned(),
        },
    );
}

/// The build label of the PyTorch index an install used (`Looking in indexes:
/// https://download.pytorch.org/whl/cu121`, `--index-url https://download.pytorch.org/whl/
/// nightly/cu128`, a mistyped `…/whl/cu12.6`): the first one the text shows, as written.
fn pytorch_index_label(l: &Line<'_>, out: &mut Out) {
    const INDEX: &str = "download.pytorch.org/whl/";
    let s = l.s();
    let Some(p) = s.find(INDEX) else {
        return;
    };
    let r = &s[p + INDEX.len()..];
    let r = r.strip_prefix("nightly/").unwrap_or(r);
    let label: &str = r
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .next()
        .unwrap_or("")
        .trim_end_matches('.');
    // A label, not a package's page below the index root (`…/whl/torch/`) or a file name.
    let label_like = (2..=16).contains(&label.len())
        && ["cu", "cpu", "rocm", "xpu"]
            .iter()
            .any(|p| label.starts_with(p))
        && !r[label.len()..].starts_with(['-', '_']);
    if label_like {
        out.push(
            l.span(p, p + INDEX.len()),
            EventKind::Version {
                subject: "pytorch-index-label".to_owned(),
                version: label.to_owned(),
            },
        );
    }
}

/// A version as a framework's check prints it (`2.2.*`, `2.1.0+cu121`).
fn version_text(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 40
        && v.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b".*+".contains(&c))
}

/// JAX's check of jaxlib at import: `jaxlib is version 0.1.69, but this version of jax requires
/// version 0.1.74` (`>= 0.4.14` in later releases).
fn jax_requires_jaxlib(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // jax's two checks: a jaxlib older than it needs (`jaxlib is version 0.1.69, but this
    // version of jax requires version 0.1.74`), and one newer than it knows (`jaxlib version
    // 0.4.26 is newer than and incompatible with jax version 0.4.25`: from 0.4 the two share
    // their numbers, so the jax it is needs that jaxlib).
    const OLDER: (&str, &str) = (
        "jaxlib is version ",
        ", but this version of jax requires version ",
    );
    const NEWER: (&str, &str) = (
        "jaxlib version ",
        " is newer than and incompatible with jax version ",
    );
    let Some((p, installed, rest)) = [OLDER, NEWER].into_iter().find_map(|(lead, mid)| {
        let p = s.find(lead)?;
        let (installed, rest) = s[p + lead.len()..].split_once(mid)?;
        Some((p, installed, rest))
    }) else {
        return;
    };
    let needs: String = rest
        .trim_start_matches(['>', '=', ' '])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
        .take(40)
        .collect();
    let needs = needs.trim_end_matches('.');
    let ok = |v: &str| {
        !v.is_empty() && v.len() <= 40 && v.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'.')
    };
    if !ok(installed) || !ok(needs) {
        return;
    }
    out.push(
        l.span(p, s.trim_end().len()),
        EventKind::FrameworkVersionRequired {
            package: "jax".to_owned(),
            framework: "jaxlib".to_owned(),
            needs: needs.to_owned(),
            installed: installed.to_owned(),
        },
    );
}

/// JAX's check of its CUDA plugin against jaxlib (they are released in step): `JAX plugin
/// jax_cuda12_plugin version 0.9.2 is installed, but it is not compatible with the installed
/// jaxlib version 0.9.0.1` (the warning's reason may wrap onto the next line).
fn jax_plugin_version(l: &Line<'_>, next: Option<&str>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("JAX plugin ") else {
        return;
    };
    let r = &s[p + 11..];
    let Some((plugin, rest)) = r.split_once(" version ") else {
        return;
    };
    let needs: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
        .collect();
    let after = |t: &str| {
        t.find("installed jaxlib version ").map(|q| {
            t[q + 25..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
                .collect::<String>()
        })
    };
    let installed = after(s).or_else(|| next.and_then(after));
    // JAX's own words for the refusal, on the line or the next.
    let refused =
        s.contains("not compatible") || next.is_some_and(|n| n.contains("not compatible"));
    let plugin_ok = refused
        && plugin.starts_with("jax_")
        && plugin.len() <= 40
        && plugin
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_');
    let installed = installed.map(|v| v.trim_end_matches('.').to_owned());
    let needs = needs.trim_end_matches('.');
    if !plugin_ok || needs.is_empty() || needs.len() > 40 {
        return;
    }
    out.push(
        l.span(p, s.trim_end().len()),
        EventKind::FrameworkVersionRequired {
            package: plugin.to_owned(),
            framework: "jaxlib".to_owned(),
            needs: needs.to_owned(),
            installed: installed
                .filter(|v| !v.is_empty() && v.len() <= 40)
                .unwrap_or_default(),
        },
    );
}

/// XLA's check of a PJRT plugin against the framework that loads it: `Mismatched PJRT plugin
/// PJRT API version (0.38) and framework PJRT API version 0.40)`, `Unexpected PJRT_Api size:
/// expected 2136, got 2024 … The framework PJRT API version is 0.54`, `Unexpected
/// PJRT_Plugin_Attributes_Args size: … The plugin is likely built with a later version than the
/// framework. This plugin is built with PJRT API version 0.75`. The backend JAX was initializing
/// (`Unable to initialize backend 'xpu'`, on the line or the one before) names the plugin.
fn pjrt_api_version(l: &Line<'_>, prev: Option<&str>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("Mismatched PJRT plugin").or_else(|| {
        s.find("Unexpected PJRT_")
            .filter(|&q| s[q..].contains(" size: expected "))
    }) else {
        return;
    };
    let version_after = |key: &str| -> String {
        s.find(key)
            .map(|q| {
                s[q + key.len()..]
                    .trim_start_matches([' ', '('])
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .take(16)
                    .collect::<String>()
                    .trim_end_matches('.')
                    .to_owned()
            })
            .unwrap_or_default()
    };
    let first = |keys: &[&str]| {
        keys.iter()
            .map(|k| version_after(k))
            .find(|v| !v.is_empty())
            .unwrap_or_default()
    };
    let plugin_api = first(&[
        "plugin PJRT API version",
        "This plugin is built with PJRT API version",
    ]);
    let framework_api = first(&[
        "framework PJRT API version is",
        "framework PJRT API version",
    ]);
    let parse = |v: &str| -> Option<(u32, u32)> {
        let (a, b) = v.split_once('.')?;
        Some((a.parse().ok()?, b.parse().ok()?))
    };
    let plugin_newer = match (parse(&plugin_api), parse(&framework_api)) {
        (Some(a), Some(b)) if a != b => Some(a > b),
        _ if s.contains("built with a later version than the framework") => Some(true),
        _ if s.contains("built with an earlier version than the framework")
            || s.contains("built with an older version than the framework") =>
        {
            Some(false)
        }
        _ => None,
    };
    let backend = |t: &str| -> Option<String> {
        let q = t.find("initialize backend '")? + 20;
        let name: String = t[q..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(24)
            .collect();
        t[q + name.len()..].starts_with('\'').then_some(name)
    };
    // The backends' distributions: JAX's own plugins, Intel's, Apple's and Google's.
    let plugin = backend(s)
        .or_else(|| prev.and_then(backend))
        .map(|b| match b.to_ascii_lowercase().as_str() {
            "cuda" | "gpu" => "jax-cuda12-plugin",
            "rocm" => "jax-rocm-plugin",
            "xpu" => "intel-extension-for-openxla",
            "metal" => "jax-metal",
            "tpu" => "libtpu",
            _ => "",
        })
        .or_else(|| (s.contains("libtpu") || s.contains("torch_xla")).then_some("libtpu"))
        .unwrap_or_default();
    out.push(
        l.span(p, s.trim_end().len()),
        EventKind::PjrtApiMismatch {
            plugin: plugin.to_owned(),
            plugin_api,
            framework_api,
            plugin_newer,
        },
    );
}

/// Windows' `The procedure entry point X could not be located in the dynamic link library
/// Y.dll`: the undefined symbol X of Y (a DLL of another version is loaded in its place).
fn windows_entry_point(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // The dialog's words, or the shorter form Python loaders retell it in (`OSError: Procedure
    // ?decref_pyobject@TensorImpl@c10@@UEBAXXZ not found in DLL: C:\…\x.dll.`).
    let (p, intro, sep) = if let Some(p) = s.find("procedure entry point ") {
        (
            p,
            "procedure entry point ",
            " could not be located in the dynamic link library ",
        )
    } else if let Some(p) = s
        .find("Procedure ")
        .filter(|_| s.contains(" not found in DLL: "))
    {
        (p, "Procedure ", " not found in DLL: ")
    } else {
        return;
    };
    let q = p + intro.len();
    // Retold, the dialog's `located` is often `found`.
    let found_form = " could not be found in the dynamic link library ";
    let (e, sep) = match (s[q..].find(sep), s[q..].find(found_form)) {
        (Some(e), _) => (e, sep),
        (None, Some(e)) if intro.starts_with("procedure") => (e, found_form),
        _ => return,
    };
    // The symbol as Windows prints it, MSVC's decorated names too (`?dtype@Tensor@at@@QEBA…`).
    let symbol = s[q..q + e].trim();
    // The DLL is the rest of the line up to its suffix: a path may hold spaces
    // (`C:\Program Files\App\foo.dll`). A message cut before it names no library: no event,
    // since nothing then says this is Windows.
    let after = &s[q + e + sep.len()..];
    let lower = after.to_ascii_lowercase();
    let dll = [".dll", ".pyd", ".exe"]
        .iter()
        .filter_map(|x| lower.find(x).map(|i| i + x.len()))
        .min()
        .and_then(|end| after.get(..end))
        .map(|d| d.trim().trim_start_matches(['"', '\'']));
    let Some(dll) = dll.filter(|d| !d.is_empty()) else {
        return;
    };
    if symbol.is_empty() || symbol.contains(char::is_whitespace) {
        return;
    }
    out.push(
        l.span(p, s.trim_end().len()),
        EventKind::UndefinedSymbol {
            library: non_empty(cap(dll)),
            symbol: cap(symbol).to_owned(),
            truncated: false,
            version_of: None,
        },
    );
}

/// glibc's `undefined symbol: NAME, version libcudart.so.12`: what follows the symbol names the
/// library whose versioned symbol the loader looked for (a soname, or a version node such as
/// `GLIBCXX_3.4.30`, which other events report).
fn version_of(after: &str) -> Option<String> {
    let r = after
        .trim_start_matches(['.', '\'', '`', '"'])
        .strip_prefix(',')?;
    let r = r.trim_start().strip_prefix("version")?.trim_start();
    let len = r
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'+'))
        .count();
    let v = r[..len].trim_end_matches('.');
    (v.contains(".so") && v.len() <= 128).then(|| v.to_owned())
}

/// glibc's `cannot open shared object file` as a system in another language prints it (its
/// translations: Chinese, Russian, German, Japanese, Korean, French, Spanish), each the part of
/// the phrase that stays the same in a pasted line.
const LOCALIZED_CANNOT_OPEN: &[&str] = &[
    "无法打开共享对象文件",
    "невозможно открыть разделяемый объектный файл",
    "Shared-Object-Datei nicht öffnen",
    "共有オブジェクトファイルを開けません",
    "공유 객체 파일을 열 수 없습니다",
    "fichier d'objet partagé",
    "fichero del objeto compartido",
];

fn missing_shared_library(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // Runtimes that load a library themselves and name it after their own words: bitsandbytes
    // (`Required library version not found: libbitsandbytes_cuda128.so`), llvmlite's
    // binding/ffi.py when its library or one it needs does not load (`OSError: Could not load
    // shared object file: llvmlite.dll`).
    for phrase in [
        "Required library version not found:",
        "Could not load shared object file: ",
    ] {
        let Some(p) = s.find(phrase) else { continue };
        let r = &s[p + phrase.len()..];
        let lead = r.len() - r.trim_start().len();
        let n = r[lead..]
            .find(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`'))
            .unwrap_or(r.len() - lead);
        let name = r[lead..lead + n].trim_end_matches(['.', ',']);
        if name.len() <= 128
            && (name.contains(".so") || name.ends_with(".dll") || name.ends_with(".dylib"))
        {
            let at = p + phrase.len() + lead;
            out.push(
                l.span(at, at + name.len()),
                EventKind::MissingSharedLibrary {
                    name: name.to_owned(),
                    required_by: None,
                },
            );
        }
        return;
    }
    // TensorRT's own loader: `Unable to open library: libnvinfer_plugin.so.8 due to
    // libcudnn.so.8` (the library it opened, and the one that library needs). It may go on
    // with dlerror's own words (`due to libX.so: cannot open shared object file`, read below
    // with the rest of the line), or name another failure than a missing file (`undefined
    // symbol`), which is not this one.
    if let Some(p) = s.find("Unable to open library: ") {
        let r = &s[p + 24..];
        let mut words = r.split_whitespace();
        let opened = words.next().map(|w| w.trim_end_matches([',', '.', ':']));
        let missing = (words.next() == Some("due") && words.next() == Some("to"))
            .then(|| words.next())
            .flatten()
            .map(|w| w.trim_end_matches([',', '.', ';', ':']));
        if let (Some(o), Some(m)) = (opened, missing)
            && m.contains(".so")
            && m.len() <= 128
            && o.len() <= 256
        {
            let at = p + 24 + r.find(m).unwrap_or(0);
            let after = s[at + m.len()..].trim_start_matches(':').trim();
            if after.is_empty() {
                out.push(
                    l.span(at, at + m.len()),
                    EventKind::MissingSharedLibrary {
                        name: m.to_owned(),
                        required_by: (o != m).then(|| o.to_owned()),
                    },
                );
                return;
            }
        }
    }
    // A line cut right after the phrase (`libGLX_nvidia.so.0: cannot open shared object`, as
    // the Vulkan loader's message is often pasted) says the same.
    let full = s.find("cannot open shared object file");
    let localized = || {
        LOCALIZED_CANNOT_OPEN.iter().find_map(|w| {
            let p = s.find(w)?;
            // The German and French phrases start lower in the sentence (`Kann die …`,
            // `ne peut ouvrir le …`): the library's colon is before those words.
            let lead = s[..p].rfind(": ").map_or(p, |c| c + 2);
            Some(lead)
        })
    };
    let Some(p) = full
        .or_else(|| {
            s.find("cannot open shared object")
                .filter(|&p| s[p + 25..].trim().is_empty())
        })
        .or_else(localized)
    else {
        return;
    };
    let Some((name, at)) = token_before_colon(s, p) else {
        return;
    };
    // Before a cut or translated phrase, only a library's own name is read as one (`dlopen
    // failed: cannot open shared object` names none).
    if full.is_none() && !(name.contains(".so") || name.contains(".dll") || name.contains(".dylib"))
    {
        return;
    }
    let required_by = s[..at]
        .find(": error while loading shared libraries")
        .and_then(|i| {
            let t = s[..i].trim_end();
            // Hardening fix: the whitespace found may be multi-byte (U+3000); `k + 1` sliced
            // inside it (regression: server/ide/tests/safety.rs, error while loading shared libraries).
            let st = t.rfind(char::is_whitespace).map_or(0, |k| after_char(t, k));
            non_empty(&t[st..])
        })
        .or_else(|| loader_of(&s[..at], &name));
    // A translated line ends with its own words for "No such file or directory".
    let end = match full {
        Some(_) => s[p..]
            .find("No such file or directory")
            .map_or((p + 30).min(s.trim_end().len()), |i| p + i + 25),
        None => s.trim_end().len().max(p),
    };
    out.push(
        l.span(at, end),
        EventKind::MissingSharedLibrary { name, required_by },
    );
}

/// The library a program failed to load because of the missing one, as runtimes that load
/// their plugins themselves print it: `Failed to load library libonnxruntime_providers_cuda.so
/// with error: …`, `Could not load library X. Error: …`. Not the missing library itself.
fn loader_of(before: &str, missing: &str) -> Option<String> {
    let lower = before.to_ascii_lowercase();
    let i = [
        "failed to load library ",
        "could not load library ",
        "unable to load library ",
    ]
    .iter()
    .find_map(|p| lower.rfind(p).map(|i| i + p.len()))?;
    let tok = before.get(i..)?.split_whitespace().next()?;
    let tok = tok
        .trim_end_matches(['.', ',', ':', ';'])
        .trim_matches(['\'', '"', '`']);
    (tok.contains(".so") && tok != missing).then(|| tok.to_owned())
}

/// torchao's version gate: `Skipping import of cpp extensions due to incompatible torch version
/// 2.7.1+cu128 for torchao version 0.15.0`, or `… Please upgrade to torch >= 2.11.0 (found
/// 2.9.1+cu128)`.
fn skipped_extensions(l: &Line<'_>, out: &mut Out) -> bool {
    let s = l.s();
    let Some(p) = s.find("Skipping import of cpp extensions") else {
        return false;
    };
    let r = &s[p..];
    let after = |needle: &str| {
        r.find(needle)
            .map(|i| version_token(r[i + needle.len()..].trim_start()).to_owned())
            .filter(|v| !v.is_empty() && v.starts_with(|c: char| c.is_ascii_digit()))
    };
    let package = r.find(" for ").and_then(|i| {
        let w = r[i + 5..].split_whitespace().next()?;
        (r[i + 5 + w.len()..].trim_start().starts_with("version")).then(|| w.to_owned())
    });
    out.push(
        l.span(p, s.trim_end().len()),
        EventKind::ExtensionsSkipped {
            package: package.or_else(|| Some("torchao".into())),
            torch: after("torch version").or_else(|| after("(found")),
            needs_torch: after("torch >="),
        },
    );
    true
}

/// The token that ends just before `: ` at `p` (`libcudart.so.12: cannot open…`).
fn token_before_colon(s: &str, p: usize) -> Option<(String, usize)> {
    let t = s[..p].trim_end().trim_end_matches(':').trim_end();
    let start = t
        .rfind(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '('))
        .map_or(0, |i| after_char(t, i));
    let mut tok = &t[start..];
    let mut start = start;
    // An exception's name glued to the library (`ImportError:libcudart.so.9.0: cannot open …`,
    // pasted without its space) is not part of the name.
    if let Some((class, rest)) = tok.split_once(':')
        && (class.ends_with("Error") || class.ends_with("Exception"))
        && !rest.is_empty()
    {
        start += class.len() + 1;
        tok = rest;
    }
    (!tok.is_empty()).then(|| (tok.to_owned(), start))
}

/// The linker's words for a symbol version the libraries it links against lack:
/// ``LIB: undefined reference to `std::condition_variable::wait(…)@GLIBCXX_3.4.30'`` (a
/// library built against a newer libstdc++ or glibc than the one the link finds).
fn linker_version_missing(l: &Line<'_>, out: &mut Out) -> bool {
    let s = l.s();
    let Some(u) = s.find("undefined reference to ") else {
        return false;
    };
    // ld's `undefined reference to symbol 'pthread_create@@GLIBC_2.2.5'` (then `DSO missing
    // from command line`) is a library left off the link, no old runtime; a default version
    // (`@@`) is no version requirement either.
    if s[u..].starts_with("undefined reference to symbol") {
        return false;
    }
    let Some((at, version, library)) = [
        ("@GLIBCXX_", "libstdc++.so.6"),
        ("@CXXABI_", "libstdc++.so.6"),
        ("@GLIBC_", "libc.so.6"),
    ]
    .iter()
    .find_map(|(marker, lib)| {
        let at = s[u..].find(marker)? + u;
        if s[..at].ends_with('@') {
            return None;
        }
        let r = &s[at + 1..];
        let n = r
            .bytes()
            .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
            .count();
        let v = r[..n].trim_end_matches('.');
        // A numbered version (`GLIBCXX_3.4.30`), never `GLIBC_PRIVATE`.
        v.as_bytes()
            .get(marker.len() - 1)
            .is_some_and(u8::is_ascii_digit)
            .then(|| (at, v.to_owned(), *lib))
    }) else {
        return false;
    };
    // The library whose link failed: the path before `: undefined reference`.
    let required_by = token_before_colon(s, u)
        .map(|(t, _)| t)
        .filter(|t| t.contains(".so") || t.ends_with(".o"));
    out.push(
        l.span(u, (at + 1 + version.len()).min(s.len())),
        EventKind::VersionNotFound {
            library: library.to_owned(),
            version,
            required_by,
        },
    );
    true
}

fn version_not_found(l: &Line<'_>, next: Option<&str>, out: &mut Out) {
    if linker_version_missing(l, out) {
        return;
    }
    let s = l.s();
    // `version `V' not found`, also with the quotes lost or straight (`version GLIBC_2.32 not found`).
    let Some((p, q)) = s.match_indices("version ").find_map(|(p, _)| {
        let r = &s[p + 8..];
        let q = usize::from(r.starts_with(['`', '\'', '"']));
        let body = &r[q..];
        let n = body
            .bytes()
            .take_while(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
            .count();
        let rest = &body[n..];
        let rest = rest.strip_prefix(['\'', '`', '"']).unwrap_or(rest);
        (n > 0 && (q == 1 || rest.starts_with(" not found"))).then_some((p, q))
    }) else {
        return;
    };
    let r = &s[p + 8 + q..];
    let e = r
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(r.len());
    let mut version = r[..e].to_owned();
    // A version cut by a terminal's wrap (`version `GLI` / `BC_2.32' not found`): its opening
    // quote is on this line, the rest and the closing quote open the next one.
    let mut joined_tail = None;
    if q == 1
        && r[e..].trim().is_empty()
        && let Some(n) = next
    {
        let n = n.trim_start();
        let m = n
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(n.len());
        if m > 0 && n[m..].starts_with(['\'', '`', '"']) {
            version.push_str(&n[..m]);
            joined_tail = Some(&n[m..]);
        }
    }
    let version = version.as_str();
    if version.is_empty() {
        return;
    }
    // A bare `version `GLIBC_2.28' not found` (an issue title, a cut paste) names its library
    // by the version's own namespace; any other version needs the `LIB:` before it.
    let owner = || {
        [
            ("GLIBCXX_", "libstdc++.so.6"),
            ("CXXABI_", "libstdc++.so.6"),
            ("GLIBC_", "libc.so.6"),
        ]
        .iter()
        .find(|(prefix, _)| version.starts_with(prefix))
        .map(|(_, lib)| ((*lib).to_owned(), p))
    };
    let Some((library, at)) = token_before_colon(s, p).or_else(owner) else {
        return;
    };
    let tail = joined_tail.unwrap_or(&r[e..]);
    let base = p + 8 + q;
    let (required_by, end) = match tail.find("(required by ") {
        Some(i) => {
            let rr = &tail[i + 13..];
            let ce = rr.find(')').unwrap_or(rr.len());
            (
                non_empty(&rr[..ce]),
                base + e + i + 13 + ce + usize::from(ce < rr.len()),
            )
        }
        None => (
            None,
            base + e + usize::from(tail.starts_with(['\'', '`', '"'])),
        ),
    };
    out.push(
        l.span(at, end.min(s.len())),
        EventKind::VersionNotFound {
            library,
            version: version.to_owned(),
            required_by,
        },
    );
}

/// `ImportError: msg`, `RuntimeError:msg`, `ImportError('msg')`, dotted names, pytest `E   `.
fn exception(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let b = s.as_bytes();
    let mut from = l.content;
    let mut found = 0;
    while from < s.len() && found < 4 {
        let Some(rel) = s[from..].find(['E', 'e']) else {
            return;
        };
        let p = from + rel;
        from = p + 1;
        let suffix = if s[p..].starts_with("Error") {
            5
        } else if s[p..].starts_with("Exception") {
            9
        } else {
            continue;
        };
        let name_end = p + suffix;
        let Some(&delim) = b.get(name_end) else {
            continue;
        };
        if delim != b':' && delim != b'(' {
            continue;
        }
        // The byte after a non-ASCII separator is not a char boundary: step over the whole char.
        let name_start = s[..p]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let name = &s[name_start..name_end];
        if name.is_empty()
            || !name.as_bytes()[0].is_ascii_alphabetic()
            || name.starts_with("Error")
                && name.len() == 5
                && name_start > 0
                && b[name_start - 1] == b'.'
        {
            continue;
        }
        // Where the name stands: the line's content start, or after a separator a log writes.
        // A name that starts before the content (a prefix reader stopped inside a word) has
        // nothing before it on the line.
        let pre = s.get(l.content..name_start).unwrap_or("").trim_end();
        let ok_pre = pre.is_empty()
            || pre.ends_with(':')
            || pre.ends_with(" -")
            || pre.ends_with(']')
            || pre.ends_with(['`', '"', '\'', '(', '|'])
            || pre == "raise" && delim == b':';
        if !ok_pre {
            continue;
        }
        from = name_end;
        if delim == b':' {
            let msg = s[name_end + 1..].trim().trim_end_matches('`').trim_end();
            let end = name_end + 1 + s[name_end + 1..].trim_end().len();
            let end = if s[..end].ends_with('`') {
                end - 1
            } else {
                end
            };
            out.push(
                l.span(name_start, end.max(name_end + 1)),
                EventKind::Exception {
                    name: name.to_owned(),
                    message: cap(msg).to_owned(),
                },
            );
            // The loader's sentence cut off after the library's name (an issue's title:
            // `ImportError: libGL.so.1`): the library is what is missing.
            // A Markdown code span or quotes around the name and the sentence's full stop are
            // not part of it (`\`libClp.so.1\`.`). A trailing colon stays for the test: a path
            // ending `.so:` is a loader's sentence continued on the next line, not this form.
            let lib = msg
                .trim_end_matches(['`', '.', '\'', '"'])
                .trim_start_matches(['`', '\'', '"']);
            if matches!(name, "ImportError" | "OSError")
                && !lib.contains(char::is_whitespace)
                && loadforms::is_library_name(lib)
            {
                let lib = lib.trim_end_matches(':');
                out.push(
                    l.span(
                        s[..end].rfind(lib).unwrap_or(name_end + 1),
                        end.max(name_end + 1),
                    ),
                    EventKind::MissingSharedLibrary {
                        name: cap(lib).to_owned(),
                        required_by: None,
                    },
                );
            }
            found += 1;
            // A message may hold another exception (`RuntimeError: ImportError: …`): keep looking.
        } else {
            // Repr form: Name('…') / Name("…"), as logging and warnings print caught exceptions.
            let Some(&quote) = b.get(name_end + 1) else {
                continue;
            };
            if quote != b'\'' && quote != b'"' || pre.ends_with("raise") || pre.ends_with('=') {
                continue;
            }
            let body_start = name_end + 2;
            let mut j = body_start;
            let mut msg = String::new();
            while j < b.len() {
                match b[j] {
                    b'\\' if j + 1 < b.len() => {
                        // The escaped char may be multi-byte: take all of it (found by fuzz/scan:
                        // `Error('\` before a non-ASCII char sliced inside it).
                        let c = s[j + 1..].chars().next().unwrap_or('\\');
                        match c {
                            'n' => msg.push('\n'),
                            't' => msg.push('\t'),
                            c => msg.push(c),
                        }
                        j += 1 + c.len_utf8();
                    }
                    c if c == quote => break,
                    _ => {
                        let ch_len = s[j..].chars().next().map_or(1, char::len_utf8);
                        msg.push_str(&s[j..j + ch_len]);
                        j += ch_len;
                    }
                }
                if msg.len() > MAX_FIELD {
                    break;
                }
            }
            // Past the closing quote only when there is one: a message cut at MAX_FIELD stops on
            // a char boundary that `j + 1` would leave (found by the CI fuzz pass, fuzz/scan).
            let end = if b.get(j) == Some(&quote) { j + 1 } else { j }.min(s.len());
            let end = if b.get(end) == Some(&b')') {
                end + 1
            } else {
                end
            };
            out.push(
                l.span(name_start, end.min(s.len())),
                EventKind::Exception {
                    name: name.to_owned(),
                    message: cap(msg.trim()).to_owned(),
                },
            );
            found += 1;
            from = end;
        }
    }
}

fn frame(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let c = l.c();
    let lead = c.len() - c.trim_start().len();
    let cs = l.content + lead;
    let ct = c.trim();
    let end = cs + ct.len();
    // CPython: File "x.py", line 3, in f
    if let Some(p) = s.find("File \"") {
        let r = &s[p + 6..];
        let Some(q) = r.find('"') else { return };
        let file = &r[..q];
        let rest = &r[q + 1..];
        let line = rest
            .strip_prefix(", line ")
            .map(|x| x.bytes().take_while(u8::is_ascii_digit).count())
            .and_then(|n| rest[7..7 + n].parse().ok());
        let function = rest
            .find(", in ")
            .map(|i| rest[i + 5..].trim().to_owned())
            .filter(|f| !f.is_empty());
        let fend = p + 6 + q + 1 + rest.trim_end().len();
        out.push(
            l.span(p, fend),
            EventKind::Frame {
                file: file.to_owned(),
                line,
                function,
            },
        );
        return;
    }
    if let Some(r) = ct.strip_prefix("File ") {
        // IPython 8: File /path/x.py:17, in f(a, b)  |  File ~/x.py:3
        let (loc, func) = match r.find(", in ") {
            Some(i) => (&r[..i], Some(&r[i + 5..])),
            None => (r.trim(), None),
        };
        if let Some(colon) = loc.rfind(':') {
            let (file, num) = (&loc[..colon], &loc[colon + 1..]);
            if !file.is_empty()
                && (file.contains('/') || file.contains('\\') || file.ends_with(".py"))
                && num.bytes().all(|b| b.is_ascii_digit())
                && !num.is_empty()
            {
                out.push(
                    l.span(cs, end),
                    EventKind::Frame {
                        file: file.to_owned(),
                        line: num.parse().ok(),
                        function: func.map(func_name),
                    },
                );
            }
        }
        return;
    }
    // Cell In[26], line 12 [, in f()]
    if let Some(r) = ct.strip_prefix("Cell In[") {
        if let Some(close) = r.find(']') {
            let file = format!("Cell In[{}]", &r[..close]);
            let rest = &r[close + 1..];
            let line = rest.strip_prefix(", line ").and_then(|x| {
                x[..x.bytes().take_while(u8::is_ascii_digit).count()]
                    .parse()
                    .ok()
            });
            let function = rest.find(", in ").map(|i| func_name(&rest[i + 5..]));
            out.push(
                l.span(cs, end),
                EventKind::Frame {
                    file,
                    line,
                    function,
                },
            );
        }
        return;
    }
    // Input In [3], in <cell line: 1>()
    if let Some(r) = ct.strip_prefix("Input In [") {
        if let Some(close) = r.find(']') {
            let file = format!("Input In [{}]", &r[..close]);
            let rest = &r[close + 1..];
            let function = rest.find(", in ").map(|i| func_name(&rest[i + 5..]));
            let line = rest.find("line ").and_then(|i| {
                rest[i + 5..][..rest[i + 5..].bytes().take_while(u8::is_ascii_digit).count()]
                    .parse()
                    .ok()
            });
            out.push(
                l.span(cs, end),
                EventKind::Frame {
                    file,
                    line,
                    function,
                },
            );
        }
        return;
    }
    // pytest: `../lib/python3.7/site-packages/PIL/Image.py:56: in <module>` (a path ending in
    // `.py`, its line, the function; nothing else on the line).
    if let Some(i) = ct.find(": in ") {
        let loc = &ct[..i];
        if let Some((file, num)) = loc.rsplit_once(':')
            && file.ends_with(".py")
            && !file.contains(' ')
            && !num.is_empty()
            && num.len() <= 7
            && num.bytes().all(|b| b.is_ascii_digit())
        {
            let func = ct[i + 5..].trim();
            if !func.is_empty() && !func.contains(' ') {
                out.push(
                    l.span(cs, end),
                    EventKind::Frame {
                        file: file.to_owned(),
                        line: num.parse().ok(),
                        function: Some(func_name(func)),
                    },
                );
            }
            return;
        }
    }
    // <ipython-input-1-4cf0a64f61c0> in <module>()  |  ~/x/y.py in f(a)
    if ct.starts_with("<ipython-input-") || ct.contains(".py in ") {
        let Some(i) = ct.find(" in ") else { return };
        let file = ct[..i].trim();
        if file.contains(' ') || file.is_empty() {
            return;
        }
        let function = Some(func_name(&ct[i + 4..]));
        out.push(
            l.span(cs, end),
            EventKind::Frame {
                file: file.to_owned(),
                line: None,
                function,
            },
        );
    }
}

/// `lora_sft(model_path, **kwargs)` → `lora_sft`; `<module>()` → `<module>`; `<cell line: 1>()` kept.
fn func_name(f: &str) -> String {
    let f = f.trim();
    if f.starts_with('<')
        && let Some(e) = f.find('>')
    {
        return f[..=e].to_owned();
    }
    let e = f.find('(').unwrap_or(f.len());
    cap(f[..e].trim()).to_owned()
}

/// `----> 12 code`, `--> 364 code`, as IPython marks the failing line.
fn frame_marker(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let t = s.trim_start();
    let cs = s.len() - t.len();
    let dashes = t.bytes().take_while(|&c| c == b'-').count();
    if dashes == 0 || t.as_bytes().get(dashes) != Some(&b'>') {
        return;
    }
    let r = &t[dashes + 1..];
    let r2 = r.trim_start();
    let n = r2.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return;
    }
    let Ok(line) = r2[..n].parse() else { return };
    let code = r2[n..].trim();
    out.push(
        l.span(cs, s.trim_end().len()),
        EventKind::FrameMarker {
            line,
            code: cap(code).to_owned(),
        },
    );
}

fn wrapped_import(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("Failed to import ") else {
        return;
    };
    if s[..p].ends_with(['"', '\'']) {
        return; // the string literal in the raising code, shown in a traceback
    }
    let r = &s[p + 17..];
    let (what, end) = match r.find(" because of the following error") {
        Some(i) => {
            let e = r[i..]
                .find(':')
                .map_or(s.trim_end().len(), |k| p + 17 + i + k + 1);
            (&r[..i], e)
        }
        None => (r.trim_end().trim_end_matches(':'), s.trim_end().len()),
    };
    let what = what.trim().trim_matches('`');
    if what.is_empty() {
        return;
    }
    out.push(
        l.span(p, end),
        EventKind::WrappedImportError {
            what: cap(what).to_owned(),
        },
    );
}

fn suggested_command(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let (p, advice) = if let Some(p) = s.find("lease run ") {
        (p + 10, true)
    } else if let Some(p) = s.find("pip install") {
        let before = &s[..p];
        let lo = floor_char(before, before.len().saturating_sub(24));
        let near = before[lo..].to_ascii_lowercase();
        let advice = ["with:", "with ", "run", "try", "please", "using", "instead"]
            .iter()
            .any(|w| near.contains(w));
        let p = if before.ends_with("uv ") { p - 3 } else { p };
        (p, advice)
    } else {
        return;
    };
    if !advice {
        return;
    }
    let r = s[p..].trim_start_matches(['`', '\'', '"']);
    let p = s.len() - (s.len() - p) + (s[p..].len() - r.len());
    let e = r.find('`').unwrap_or(r.len());
    let cmd = r[..e].trim().trim_end_matches(['.', '"', ')']).trim_end();
    if cmd.is_empty() {
        return;
    }
    out.push(
        l.span(p, p + cmd.len()),
        EventKind::SuggestedCommand {
            command: cap(cmd).to_owned(),
        },
    );
}

/// A `pip install` the line runs: nothing before it but a prompt (`$`, `#`, `>`, a Windows or
/// PowerShell prompt, a `(venv)`), `python -m`, `uv` or a notebook's `!`/`%`. Advice that names a
/// command (`try pip install …`) is [`suggested_command`]'s.
fn user_pip_install(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("pip install ").or_else(|| s.find("pip3 install ")) else {
        return;
    };
    let before = s[..p].trim_end();
    let before = ["python -m", "python3 -m", "py -m", "uv"]
        .iter()
        .find_map(|w| before.strip_suffix(w))
        .unwrap_or(before)
        .trim_end();
    let prompt = before.is_empty()
        || before.ends_with(['$', '#', '>', '!', '%'])
        || (before.starts_with('(') && before.ends_with(')'));
    if !prompt || before.len() > 200 {
        return;
    }
    let cmd = s[p..].trim_end();
    // Prose that starts like one (`pip install requirements error:`) is not a command, and a
    // command is kept whole or not at all (it is shown to be run again).
    if cmd.len() > MAX_FIELD
        || cmd
            .split_whitespace()
            .any(|w| w.ends_with(':') && !w.contains('/'))
    {
        return;
    }
    out.push(
        l.span(p, p + cmd.len()),
        EventKind::UserPipInstall {
            command: cmd.to_owned(),
        },
    );
}

/// Where `sub` (a slice of `outer`) ends, as an offset into `outer`. Hardening fix: the pip
/// tokens were measured as `prefix + token`, which skips the extra spaces `split_whitespace`
/// passed over, so the span ended inside the token or a multi-byte char (found by fuzz/scan;
/// regression in server/ide/tests/safety.rs).
fn end_within(outer: &str, sub: &str) -> usize {
    let off = (sub.as_ptr() as usize).wrapping_sub(outer.as_ptr() as usize);
    if off <= outer.len() && off + sub.len() <= outer.len() {
        off + sub.len()
    } else {
        outer.len()
    }
}

/// `xformers 0.0.26.post1 requires torch==2.3.0, but you have torch 2.2.1+cu121 which is
/// incompatible.`: the package, its version, the requirement's name and specifier, and the
/// version installed instead. Every part is a plain name or version, or nothing is read.
fn requirement_conflict(c: &str) -> Option<EventKind> {
    let end = c.find(" which is incompatible")?;
    let (head, have_part) = c[..end].split_once(", but you have ")?;
    let (who, req) = head.split_once(" requires ")?;
    let (package, version) = who.trim().rsplit_once(' ')?;
    let (have_name, have) = have_part.trim().split_once(' ')?;
    let split = req.find(['=', '<', '>', '~', '!']).unwrap_or(req.len());
    let (requires, requirement) = req.split_at(split);
    let name_ok = |n: &str| {
        !n.is_empty()
            && n.len() <= 64
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    let spec_ok = requirement.len() <= 64
        && requirement
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"=<>~!.,*+".contains(&b));
    let version_ok = |v: &str| {
        is_version(v)
            && v.len() <= 64
            && v.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_' | b'!'))
    };
    (name_ok(package)
        && version_ok(version)
        && name_ok(requires)
        && requires.eq_ignore_ascii_case(have_name)
        && version_ok(have)
        && spec_ok)
        .then(|| EventKind::PipRequirementConflict {
            package: package.to_owned(),
            version: version.to_owned(),
            requires: requires.to_ascii_lowercase(),
            requirement: requirement.to_owned(),
            have: have.to_owned(),
        })
}

fn pip_line(l: &Line<'_>, out: &mut Out) {
    let c = l.c().trim_start();
    let cs = l.content + (l.c().len() - c.len());
    let ce = cs + c.trim_end().len();
    if let Some(e) = requirement_conflict(c) {
        out.push(l.span(cs, ce), e);
        return;
    }
    // `Successfully installed numpy-1.26.4 torch-2.4.0+cu121`: the versions pip just put in
    // place, of the subjects the version reader knows.
    const INSTALLED: &str = "Successfully installed ";
    if let Some(i) = c.find(INSTALLED) {
        let mut at = i + INSTALLED.len();
        for tok in c[at..].split(' ') {
            let start = at;
            at += tok.len() + 1;
            if out.full() {
                return;
            }
            let Some((name, version)) = tok.rsplit_once('-') else {
                continue;
            };
            let subject = normalize_subject(name);
            if is_version(version) && SUBJECTS.iter().any(|s| normalize_subject(s) == subject) {
                out.push(
                    l.span(cs + start, cs + start + tok.len()),
                    EventKind::Version {
                        subject,
                        version: version.to_owned(),
                    },
                );
            }
        }
        return;
    }
    if let Some(r) = c.strip_prefix("Collecting ") {
        let tok = first_word(r);
        let (name, version) = match tok.find("==") {
            Some(i) => (&tok[..i], non_empty(&tok[i + 2..])),
            None => (tok, None),
        };
        let name = name.split('[').next().unwrap_or(name);
        if !name.is_empty() {
            out.push(
                l.span(cs, cs + end_within(c, tok)),
                EventKind::PipCollecting {
                    package: name.to_owned(),
                    version,
                },
            );
        }
    } else if let Some(r) = c.strip_prefix("Downloading ") {
        let tok = first_word(r);
        if let Some((name, version)) = dist_file_name(tok) {
            out.push(
                l.span(cs, cs + end_within(c, tok)),
                EventKind::PipCollecting {
                    package: name,
                    version: Some(version),
                },
            );
        }
    } else if let Some((i, n)) = [
        "Building wheel for ",
        "Running setup.py install for ",
        "Running setup.py develop for ",
    ]
    .iter()
    .find_map(|w| c.find(w).map(|i| (i, w.len())))
    {
        // Older pips say `Running setup.py install for X ... error` where newer build a wheel;
        // pip's verbose log puts a colon after the name (`… for cupy: finished with status`).
        let name = c[i + n..]
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_end_matches(':');
        if !name.is_empty() {
            out.push(
                l.span(cs + i, ce),
                EventKind::PipBuildingWheel {
                    package: name.to_owned(),
                    built: c.trim_end().ends_with("... done"),
                },
            );
            // `... error` is pip's own word that this build failed, whatever was cut after it.
            if c.trim_end().ends_with("... error") {
                out.push(
                    l.span(cs + i, ce),
                    EventKind::PipBuildFailed {
                        package: Some(name.to_owned()),
                    },
                );
            }
        }
    } else if let Some(i) = c.find("Using cached ") {
        let file = c[i + 13..].split_whitespace().next().unwrap_or("");
        if !file.is_empty() {
            out.push(
                l.span(cs + i, cs + end_within(c, file)),
                EventKind::PipUsingCached {
                    file: file.to_owned(),
                },
            );
        }
    } else if let Some(i) = c.find("Guessing wheel URL") {
        let r = c[i + 18..].trim_start_matches(':').trim();
        let url = r.split_whitespace().next().unwrap_or("");
        if !url.is_empty() {
            out.push(
                l.span(cs + i, ce),
                EventKind::GuessingWheelUrl {
                    url: url.to_owned(),
                },
            );
        }
    } else if let Some(i) = c.find("Precompiled wheel not found") {
        out.push(l.span(cs + i, ce), EventKind::PrecompiledWheelNotFound);
    }
}

/// `flash_attn-2.5.6+cu122torch2.2cxx11abiFALSE-cp310-cp310-linux_x86_64.whl` (or a URL to it,
/// or an sdist `x-1.2.tar.gz`) → (`flash-attn`, `2.5.6+cu122torch2.2cxx11abiFALSE`).
fn dist_file_name(tok: &str) -> Option<(String, String)> {
    let base = tok.rsplit('/').next().unwrap_or(tok);
    let base = decode_plus(base);
    let stem = base
        .strip_suffix(".whl")
        .or_else(|| base.strip_suffix(".tar.gz"))
        .or_else(|| base.strip_suffix(".zip"))?;
    let mut parts = stem.splitn(3, '-');
    let name = parts.next()?;
    let version = parts.next()?;
    (is_version(version) && !name.is_empty()).then(|| (normalize_subject(name), version.to_owned()))
}

/// glibc 2.41's math headers against a GPU toolchain's own declarations of the same functions:
/// nvcc's `exception specification is incompatible with that of previous function "cospi"`
/// (one of the four functions glibc made noexcept), clang's `bits/mathcalls.h:83:1: error:
/// exception specification in declaration does not match previous declaration`. The same words
/// about any other function are the package's own code.
pub fn glibc_math_clash(s: &str) -> bool {
    s.contains("exception specification is incompatible with that of previous function")
        && ["\"cospi\"", "\"sinpi\"", "\"cospif\"", "\"sinpif\""]
            .iter()
            .any(|f| s.contains(f))
        || s.contains("exception specification in declaration does not match previous")
            && s.contains("mathcalls.h")
}

/// Cython refusing the sources it compiles (see `EventKind::CythonCompileFailed`). The
/// attribute setuptools asks of Cython 3 and it dropped (`cython_sources`, PyYAML 5's build)
/// says which Cython it is; the compile errors themselves do not.
fn cython_compile_failed(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let (p, file, cython3) = if let Some(p) = s.find("Cython.Compiler.Errors.CompileError") {
        let rest = s[p + 35..].trim_start_matches(':').trim();
        let file = rest
            .split_whitespace()
            .next()
            .filter(|f| f.ends_with(".pyx") || f.ends_with(".pxd") || f.ends_with(".py"))
            .map(|f| f.chars().take(512).collect::<String>());
        (p, file, false)
    } else if let Some(p) = s.find("Error compiling Cython file") {
        (p, None, false)
    } else if let Some(p) = s.find("AttributeError: cython_sources") {
        (p, None, true)
    } else {
        return;
    };
    out.push(
        l.span(p, s.trim_end().len().max(p)),
        EventKind::CythonCompileFailed { file, cython3 },
    );
}

fn build_failed(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    for needle in [
        "Getting requirements to build wheel did not run successfully",
        "Getting requirements to build wheel ... error",
    ] {
        if let Some(p) = s.find(needle) {
            out.push(
                l.span(p, p + needle.len()),
                EventKind::BuildRequirementsFailed,
            );
        }
    }
    // uv's form of the same step: `Build backend failed to determine extra requires with
    // `build_wheel()`` (or `requirements`).
    if let Some(p) = s.find("Build backend failed to determine") {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::BuildRequirementsFailed,
        );
    }
    // torch's cpp_extension JIT build: `RuntimeError: Error building extension 'fused_adam'`
    // (the extension's name, not a distribution's).
    if let Some(p) = s.find("Error building extension '") {
        let rest = &s[p + "Error building extension '".len()..];
        let extension: String = rest
            .chars()
            // A plain name only: it is named in a path the advice shows (no `..`, no `/`).
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(128)
            .collect();
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::JitBuildFailed { extension },
        );
    }
    // pip's summaries: a build's (`subprocess-exited-with-error`), its metadata step's, and
    // older pips' `setup.py install` (`error: legacy-install-failure`).
    for needle in [
        "subprocess-exited-with-error",
        "metadata-generation-failed",
        "legacy-install-failure",
    ] {
        if let Some(p) = s.find(needle) {
            out.push(
                l.span(p, p + needle.len()),
                EventKind::PipBuildFailed { package: None },
            );
        }
    }
    build_tool_missing(l, out);
    // Older pips' summary: `Command "python setup.py egg_info" failed with error code 1 in
    // /tmp/pip-build-x/atari-py/` (the directory names the distribution; pip's own
    // `pip-req-build-…`, a checkout's, does not).
    if let Some(p) = s.find("failed with error code")
        && s[..p].contains("Command \"")
    {
        let dir = s[p..]
            .split(" in ")
            .nth(1)
            .map(|r| r.trim().trim_end_matches(['/', '\\']))
            .and_then(|r| r.rsplit(['/', '\\']).next())
            .filter(|d| {
                !d.is_empty()
                    && d.len() <= 100
                    && !d.starts_with("pip-")
                    && d.bytes()
                        .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
            })
            .map(str::to_owned);
        let st = s[..p].rfind("Command \"").unwrap_or(p);
        out.push(
            l.span(st, s.trim_end().len()),
            EventKind::PipBuildFailed { package: dir },
        );
    }
    cython_compile_failed(l, out);
    // torch's cpp_extension compiling a setup.py build's objects: `RuntimeError: Error compiling
    // objects for extension`.
    if let Some(p) = s.find("Error compiling objects for extension") {
        out.push(
            l.span(p, p + 37),
            EventKind::PipBuildFailed { package: None },
        );
        out.push(l.span(p, p + 37), EventKind::TorchExtensionBuild);
    }
    // pip 19–20: `ERROR: Command errored out with exit status 1: … '/tmp/pip-install-x/inplace-abn/
    // setup.py' … install …`: the directory under pip's build root is the distribution.
    if let Some(p) = s.find("Command errored out with exit status") {
        let package = crate::pip::build_dirs(&s[p..])
            .first()
            .map(|(_, name)| (*name).to_owned());
        out.push(l.span(p, p + 36), EventKind::PipBuildFailed { package });
    }
    // PyO3 (a Rust extension's bindings) refusing an interpreter newer than it supports: `error:
    // the configured Python interpreter version (3.13) is newer than PyO3's maximum supported
    // version (3.12)` — a release of the package built with an older PyO3, compiled because no
    // wheel of it is for this Python.
    if let Some(p) = s.find("is newer than PyO3's maximum supported version (") {
        let r = &s[p + "is newer than PyO3's maximum supported version (".len()..];
        build_stopped_at(
            l,
            out,
            p,
            "pyo3-max-python",
            r.split(')').next().unwrap_or(""),
        );
    }
    // distutils refusing a deployment target below the one Python was configured with
    // (`error: $MACOSX_DEPLOYMENT_TARGET mismatch: now "10.14" but "11.0" during configure`):
    // the build stops before compiling; the configured target is what it accepts.
    if let Some(p) = s.find("MACOSX_DEPLOYMENT_TARGET mismatch")
        && let Some(b) = s[p..].find(" but \"")
    {
        let r = &s[p + b + 6..];
        build_stopped_at(
            l,
            out,
            p,
            "macos-deployment-target",
            r.split('"').next().unwrap_or(""),
        );
    }
    if let Some(p) = s.find("did not run successfully") {
        let st = s[..p].rfind('×').map_or(p, |i| i + '×'.len_utf8());
        let st = st + (s[st..p].len() - s[st..p].trim_start().len());
        out.push(
            l.span(st, p + 24),
            EventKind::PipBuildFailed { package: None },
        );
    }
    // uv names the distribution it was building: `Failed to fetch wheel: flash-attn==2.6.1`,
    // `Failed to download and build `flash-attn==2.6.1``.
    for needle in [
        "Failed to build ",
        "Failed building wheel for ",
        "Failed to fetch wheel: ",
        "Failed to download and build ",
        "Could not build wheels for ",
        "failed to build wheel for ",
        // pip's editable install (`pip install -e .`) of a checkout.
        "Failed building editable for ",
    ] {
        if let Some(p) = s.find(needle) {
            let r = &s[p + needle.len()..];
            let mut tok = r
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_matches(['`', '\'', '"', ',']);
            if tok == "installable" {
                // pip ≥ 24: "Failed to build installable wheels for some pyproject.toml based projects (flash-attn)"
                tok = r
                    .rfind('(')
                    .and_then(|i| r[i + 1..].split(')').next())
                    .unwrap_or("");
            }
            let name = tok
                .split(['=', '@', '<', '>', ' '])
                .next()
                .unwrap_or("")
                .trim();
            let end = p + needle.len() + (r.len() - r.trim_start().len()) + r.trim().len();
            out.push(
                l.span(p, end.min(s.trim_end().len()).max(p + needle.len())),
                EventKind::PipBuildFailed {
                    package: non_empty(name).filter(|n| !n.contains(' ')),
                },
            );
        }
    }
}

/// DeepSpeed's CPU optimizers hold their JIT op as `ds_opt_<name>`; when building or loading
/// `cpu_<name>` failed, the optimizer's `__del__` prints `AttributeError: 'DeepSpeedCPUAdam'
/// object has no attribute 'ds_opt_adam'`.
fn deepspeed_op_missing(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("object has no attribute 'ds_opt_") else {
        return;
    };
    if !s[..p].contains("'DeepSpeed") {
        return;
    }
    let r = &s[p + 32..];
    let n = r
        .bytes()
        .take_while(|&c| c.is_ascii_lowercase() || c == b'_')
        .count();
    if n == 0 || n > 32 || !r[n..].starts_with('\'') {
        return;
    }
    out.push(
        l.span(p, p + 32 + n + 1),
        EventKind::JitOpUnavailable {
            package: "deepspeed".into(),
            op: format!("cpu_{}", &r[..n]),
        },
    );
}

/// Cython 3 made C functions `noexcept` unless declared otherwise: a `.pyx` written for
/// Cython 0.29 assigns an `except *` function where Cython 3 wants a `noexcept` pointer.
/// The source type declares an exception value (`except *`, `except? -1`) and the target
/// is `noexcept`: Cython 3's default, not a type error of the code.
fn cython3_noexcept(l: &Line<'_>, out: &mut Out) -> bool {
    let s = l.s();
    let types = s.find("Cannot assign type '").and_then(|p| {
        let r = &s[p + 20..];
        let (from, r) = r.split_once("' to '")?;
        let to = r.split('\'').next()?;
        Some((p, from, to))
    });
    if let Some((p, from, to)) = types
        && from.contains("except")
        && !from.contains("noexcept")
        && to.contains("noexcept")
    {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::BuildDependencyMissing {
                module: "Cython".into(),
                too_new: true,
            },
        );
        return true;
    }
    false
}

/// A build stopped by a version check whose limit the text states (PyO3's newest Python, the
/// deployment target Python was configured with): the limit, as a version of `subject`, and
/// the build's failure.
/// A Dockerfile's `RUN pip install X …` step that failed, as BuildKit summarizes it: pip failed
/// installing X (most often building it). The package is the command's first requirement.
fn docker_run_failed(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(end) = s.find("\" did not complete successfully: exit code") else {
        return;
    };
    let Some(open) = s[..end].find("process \"") else {
        return;
    };
    let process = &s[open + 9..end];
    // The last `pip install` of the step's commands is the one that failed (`pip install
    // --upgrade pip && pip install flash-attn …` stops at flash-attn).
    let Some(args) = process
        .split("&&")
        .flat_map(|c| c.split([';', '|']))
        .filter_map(|c| c.split_once("pip install ").map(|(_, a)| a))
        .last()
    else {
        return;
    };
    // Options that take a value: their value is no requirement.
    const VALUED: [&str; 8] = [
        "-i",
        "--index-url",
        "--extra-index-url",
        "-f",
        "--find-links",
        "-r",
        "-c",
        "--requirement",
    ];
    let mut words = args.split_whitespace();
    let mut named = None;
    while let Some(w) = words.next() {
        if VALUED.contains(&w) {
            words.next();
            continue;
        }
        if w.starts_with('-') {
            continue;
        }
        let name = w
            .trim_matches(['\'', '"'])
            .split(['=', '<', '>', '[', '@', '~', '!', ';'])
            .next()
            .unwrap_or("");
        // pip's own tools are upgraded before the real install, and torch's wheels are never
        // built: neither is the build that failed.
        if !matches!(
            name.to_ascii_lowercase().as_str(),
            "pip" | "setuptools" | "wheel" | "torch" | "torchvision" | "torchaudio"
        ) {
            named = Some(name);
            break;
        }
        return;
    }
    let package = named
        .filter(|n| {
            !n.is_empty()
                && n.len() <= 100
                && n.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
                && !n.ends_with(".txt")
                && *n != "."
        })
        .map(str::to_owned);
    out.push(
        l.span(open, s.trim_end().len()),
        EventKind::PipBuildFailed { package },
    );
}

/// The kernel killed a compiler or linker of the build, which is what running out of memory
/// looks like from inside it: gcc's `Killed signal terminated program cc1plus` and `internal
/// compiler error: Killed (program cc1plus)`, nvcc's `'cicc' died due to signal 9 (Kill
/// signal)`, collect2's `ld terminated with signal 9 [Killed]`, make's `*** [...] Error 137`
/// (128 + SIGKILL), MSVC's `fatal error C1060: compiler is out of heap space`.
fn compiler_killed(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let hit = s
        .find("Killed signal terminated program")
        .or_else(|| s.find("internal compiler error: Killed"))
        .or_else(|| {
            s.find("died due to signal 9")
                .filter(|_| s.contains("nvcc") || s.contains("cicc") || s.contains("ptxas"))
        })
        .or_else(|| {
            // collect2's `ld terminated with signal 9 [Killed]`: a linker, not any process (a
            // launcher's `worker process terminated with signal 9` is a run's, not a build's).
            s.find("terminated with signal 9").filter(|_| {
                ["collect2", "ld ", "lld", "cc1"]
                    .iter()
                    .any(|w| s.contains(w))
            })
        })
        .or_else(|| {
            s.find("Error 137")
                .filter(|&p| s[..p].contains("***") && s[p + 9..].trim().is_empty())
        })
        .or_else(|| {
            s.find("out of heap space")
                .filter(|_| s.contains("fatal error C"))
        });
    if let Some(p) = hit {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::CompilerKilled {
                out_of_heap: s[p..].starts_with("out of heap space"),
            },
        );
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::PipBuildFailed { package: None },
        );
    }
}

fn build_stopped_at(l: &Line<'_>, out: &mut Out, p: usize, subject: &str, limit: &str) {
    if !is_version(limit) {
        return;
    }
    let end = l.s().trim_end().len();
    out.push(
        l.span(p, end),
        EventKind::Version {
            subject: subject.to_owned(),
            version: limit.to_owned(),
        },
    );
    out.push(l.span(p, end), EventKind::PipBuildFailed { package: None });
}

/// The repository a VCS URL names (`https://github.com/o/detectron2.git@v0.6` → `detectron2`).
fn repository_name(url: &str) -> &str {
    let url = url.split(['#']).next().unwrap_or(url);
    let last = url.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let repo = last.split('@').next().unwrap_or("");
    repo.trim_end_matches(".git")
}

/// Fills in the package of build failures that did not name it on their own line.
fn resolve_build_packages(text: &str, events: &mut [Event]) {
    for ev in events {
        let slot = match &mut ev.kind {
            EventKind::PipBuildFailed { package }
            | EventKind::BuildIsolationNoTorch { package } => package,
            _ => continue,
        };
        if slot.is_none() {
            *slot = find_build_package(text, ev.span);
        }
    }
}

/// The package a pip/uv build was for, from the text around `near`.
fn find_build_package(text: &str, near: Span) -> Option<String> {
    let lo = floor_char(text, near.start.saturating_sub(8 * 1024));
    let hi = ceil_char(text, near.end + 8 * 1024);
    let hay = &text[lo..hi];
    let mut best: Option<(usize, String)> = None;
    let mut consider = |pos: usize, name: &str| {
        let name = name.trim_matches(['`', '\'', '"', ',', '.', ':']);
        if name.is_empty()
            || name.len() > 100
            || !name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
        {
            return;
        }
        let abs = lo + pos;
        let dist = if abs < near.start {
            near.start - abs
        } else {
            abs.saturating_sub(near.end)
        };
        if best.as_ref().is_none_or(|(d, _)| dist < *d) {
            best = Some((dist, name.to_owned()));
        }
    };
    for (i, name) in crate::pip::build_dirs(hay) {
        consider(i, name);
    }
    for needle in [
        "Building wheel for ",
        "Running setup.py install for ",
        "Failed building wheel for ",
        "Collecting ",
        "Failed to build ",
    ] {
        for (i, _) in hay.match_indices(needle) {
            let tok = hay[i + needle.len()..]
                .split_whitespace()
                .next()
                .unwrap_or("");
            let tok = tok.trim_matches('`').trim_end_matches(':');
            // `Collecting git+https://github.com/facebookresearch/detectron2.git`: the
            // repository's name.
            if let Some(url) = tok.strip_prefix("git+") {
                consider(i, repository_name(url));
                continue;
            }
            let name = tok
                .split(['=', '@', '<', '>', '[', '('])
                .next()
                .unwrap_or("");
            if name != "installable" {
                consider(i, name);
            }
        }
    }
    for (i, _) in hay.match_indices("` depends on `torch`") {
        // uv: `flash-attn@2.8.1` depends on `torch`
        if let Some(open) = hay[..i].rfind('`') {
            let tok = &hay[open + 1..i];
            match tok.strip_prefix("git+") {
                // `git+https://github.com/owner/pytorch_fpsample@v1` is its repository's name.
                Some(url) => consider(open, repository_name(url)),
                None => consider(open, tok.split('@').next().unwrap_or("")),
            }
        }
    }
    best.map(|(_, n)| n)
}

fn cuda_home(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let hit = (s.contains("CUDA_HOME")
        && (s.contains("not set")
            || s.contains("is None")
            || s.contains("could not be found")
            // DeepSpeed's op builder: `MissingCUDAException: CUDA_HOME does not exist, unable to
            // compile CUDA op(s)`.
            || s.contains("does not exist")))
        || (s.contains("nvcc")
            && (s.contains("No such file or directory")
                || s.contains("not found")
                // setup scripts' locate_cuda(): `The nvcc binary could not be located in your
                // $PATH. Either add it to your path, or set $CUDAHOME`.
                || s.contains("could not be located")
                || s.contains("command not found")
                || s.contains("cannot find")
                // FlashInfer's JIT: `Could not find nvcc and default cuda_home='/usr/local/cuda'
                // doesn't exist`.
                || s.contains("Could not find nvcc")
                // CuPy's setup: `*** WARNING: nvcc not in path.`
                || s.contains("nvcc not in path")
                || s.contains("not recognized")))
        || s.contains("unknown file type '.cu'")
        || s.contains("bare_metal_version")
        || s.contains("The CUDA ") && s.contains(" path could not be located in ")
        // CMake's CUDA language finding no nvcc (`No CMAKE_CUDA_COMPILER could be found`, its
        // CMakeDetermineCUDACompiler module's errors), and Visual Studio's generator finding no
        // CUDA integration (`No CUDA toolset found.`).
        || s.contains("No CMAKE_CUDA_COMPILER could be found")
        || s.contains("CMakeDetermineCUDACompiler") && s.contains("Error")
        || s.contains("No CUDA toolset found")
        || s.contains("uses CUDA but I cannot find the CUDA")
        || s.contains("Could NOT find CUDA (missing:")
        || s.contains("Could NOT find CUDAToolkit (missing:")
        // Deformable-DETR's and DCNv2's setup.py, copied by many detection repositories:
        // `if torch.cuda.is_available() and CUDA_HOME is not None: … else: raise
        // NotImplementedError('Cuda is not availabel')` (sic).
        || s.contains("Cuda is not availabel")
        || s.contains("NotImplementedError") && s.contains("Cuda is not available")
        || s.contains("Not compiled with GPU support")
        || s.contains("Not compiled with CUDA support")
        || s.contains("_impl: implementation for device cuda")
        // The toolkit's headers are not where the build looks: no CUDA_HOME (or a runtime-only
        // image): `fatal error: cuda.h: No such file or directory`.
        || s.contains("cuda.h: No such file or directory")
        || s.contains("cuda_runtime.h: No such file or directory")
        || toolkit_file_at_root(s);
    if hit {
        out.push(
            l.content_span(),
            EventKind::CudaHomeMissing {
                detail: l.content_text(),
            },
        );
    }
}

/// ninja or make asked for a CUDA toolkit file at the file system's root (`ninja: error:
/// '/lib64/libcudart.so', needed by '…', missing and no known rule to make it`): a build file
/// wrote `$CUDA_HOME/lib64/…` with CUDA_HOME unset.
fn toolkit_file_at_root(s: &str) -> bool {
    let Some(p) = s.find("missing and no known rule to make it") else {
        return false;
    };
    let Some(q) = s[..p].find("error: '") else {
        return false;
    };
    let path = s[q + 8..p].split('\'').next().unwrap_or("");
    [
        "/lib64/libcu",
        "/lib64/libnv",
        "/lib/x64/",
        "/include/cuda",
        "/bin/nvcc",
    ]
    .iter()
    .any(|r| path.starts_with(r))
}

fn linker_cannot_find(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // MSVC names the import library's file (`cannot open input file 'c10_cuda.lib'`); only
    // torch's CUDA libraries are read so (a Windows import library is no `lib*.so` to look for).
    if let Some(p) = s.find("cannot open input file '")
        && let Some(file) = s[p + 24..].split('\'').next()
        && let Some(lib) = file.strip_suffix(".lib")
        && matches!(lib, "c10_cuda" | "torch_cuda")
    {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::LinkerCannotFind {
                library: lib.to_owned(),
            },
        );
        return;
    }
    // GNU ld's `cannot find -lcuda`, LLVM lld's `unable to find library -lcuda`.
    let Some((p, len)) = s
        .find("cannot find -l")
        .map(|p| (p, 14))
        .or_else(|| s.find("unable to find library -l").map(|p| (p, 25)))
    else {
        return;
    };
    let r = &s[p + len..];
    let n = r
        .bytes()
        .take_while(|&c| c.is_ascii_alphanumeric() || b"_+-.".contains(&c))
        .count();
    let lib = r[..n].trim_end_matches(['.', ':']);
    if lib.is_empty() {
        return;
    }
    // Start at the linker's path (`/usr/bin/ld: `), not at whatever a progress bar left before it.
    let st = s[..p].rfind("ld: ").map_or(p, |i| {
        let path_len = s[..i]
            .bytes()
            .rev()
            .take_while(|&c| c.is_ascii_alphanumeric() || b"/._-".contains(&c))
            .count();
        i - path_len
    });
    let end = s.trim_end().len();
    out.push(
        l.span(st, end),
        EventKind::LinkerCannotFind {
            library: lib.to_owned(),
        },
    );
}

fn libcuda(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // conda's solvers model the driver as the virtual package `__cuda` (its version the CUDA
    // the driver supports, read from libcuda when solving): pixi's `Virtual package '__cuda'
    // does not match any of the available virtual packages`, conda's `nothing provides __cuda
    // needed by pytorch-…-cuda…`, mamba's `__cuda is missing on the system`.
    if let Some(p) = [
        "Virtual package '__cuda",
        "nothing provides __cuda",
        "__cuda is missing",
    ]
    .iter()
    .find_map(|w| s.find(w))
    {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::CondaCudaVirtualMissing {
                detail: cap(s[p..].trim_end()).to_owned(),
            },
        );
        return;
    }
    let hit = s.contains("libcuda.so cannot found")
        || s.contains("Failed to find libcuda")
        || s.contains("libcuda.so not found")
        // Taichi's driver loader: `[cuda_driver.cpp:load_lib@36] libcuda.so lib not found.`
        || s.contains("libcuda.so lib not found")
        || s.contains("cannot find libcuda")
        || s.contains("Could not find libcuda")
        // TensorFlow's stream executor: `was unable to find libcuda.so DSO loaded into this
        // program`.
        || s.contains("unable to find libcuda.so DSO")
        // cuda-python and other ctypes loaders: `Failed to dlopen libcuda.so`.
        || s.contains("dlopen libcuda")
        // torch's lazy CUDA init when libcuda.so.1 does not load: no driver, or a container
        // started without the GPU.
        || s.contains("Found no NVIDIA driver on your system")
        || s.contains("CUDA driver initialization failed, you might not have a CUDA gpu")
        // The driver loaded and shows no GPU: hidden by CUDA_VISIBLE_DEVICES, or a container
        // without GPU access.
        || s.contains("no CUDA-capable device is detected")
        // torch's own words for the same (`RuntimeError: No CUDA GPUs are available`).
        || s.contains("No CUDA GPUs are available")
        // The driver API's own code for it (Numba's `Call to cuInit results in
        // CUDA_ERROR_NO_DEVICE`).
        || s.contains("CUDA_ERROR_NO_DEVICE")
        // Numba's driver loader finding no libcuda.
        || s.contains("CUDA driver library cannot be found")
        || s.contains("CUDA_ERROR_STUB_LIBRARY")
        || s.contains("cudaErrorStubLibrary");
    if hit {
        out.push(
            l.content_span(),
            EventKind::LibcudaNotFound {
                detail: l.content_text(),
            },
        );
    }
}

const COMPILERS: &[&str] = &[
    "gcc", "g++", "cc", "c++", "clang", "clang++", "cl.exe", "icpx", "icx",
];

fn is_compiler(tok: &str) -> bool {
    let base = tok.rsplit('/').next().unwrap_or(tok);
    !base.ends_with("nvcc")
        && COMPILERS.iter().any(|c| {
            base == *c || base.ends_with(&format!("-{c}")) || base.starts_with(&format!("{c}-"))
        })
}

fn no_compiler(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let hit = s.contains("Failed to find C compiler")
        || s.contains("No CMAKE_C_COMPILER could be found")
        || s.contains("No CMAKE_CXX_COMPILER could be found")
        || s.contains("C compiler cannot create executables")
        || s.contains("no acceptable C compiler")
        // torch.compile's Inductor: `RuntimeError: Compiler: cl is not found.` (Windows, also its
        // raise line when a paste stops there) and `InvalidCxxCompiler: No working C++ compiler`.
        || s.contains("Compiler: ") && s.contains("is not found")
        || s.contains("No working C++ compiler found")
        // setuptools on Windows without Build Tools, and cpp_extension failing to run `cl`
        // (`Error checking compiler version for cl: [WinError 2] …`, in any language).
        // (`is` ends the line where a console wrapped the sentence.)
        || s.contains("Microsoft Visual C++ 14.0 or greater is")
        // nvdiffrast's own search for MSVC (its torch/ops.py): `Could not locate a supported
        // Microsoft Visual C++ installation`.
        || s.contains("Could not locate a supported Microsoft Visual C++ installation")
        || s.contains("Unable to find vcvarsall.bat")
        // distutils' spawn when cl.exe is not on PATH: `error: command 'cl.exe' failed: None`.
        || s.contains("cl.exe' failed: None")
        // triton-windows looking for MSVC and the Windows SDK: `Failed to find MSVC`.
        || s.contains("Failed to find MSVC")
        || s.contains("Failed to find Windows SDK")
        // torch's cpp_extension on Windows looking for MSVC: `Command '['where', 'cl']' returned
        // non-zero exit status 1`.
        || s.contains("'where', 'cl']") && s.contains("non-zero exit status")
        // A build script probing for the compiler on Linux (tiny-cuda-nn's, cpp_extension's).
        || ["'which', 'g++']", "'which', 'c++']", "'which', 'gcc']"]
            .iter()
            .any(|w| s.contains(w))
            && s.contains("non-zero exit status")
        || s.contains("Rust package manager, is not installed")
        || ["can't find Rust", "can not find Rust"]
            .iter()
            .any(|w| s.contains(w) && s.to_ascii_lowercase().contains("rust compiler"))
        || s.contains("Do you have cargo in your PATH")
        || s.contains("currently active rustc version")
        || s.contains("error[E0658]")
        // A compiler the build refuses: nvcc's host_config.h (`unsupported GNU version! gcc
        // versions later than 11 are not supported!`) and torch's headers (`C++17 or later
        // compatible compiler is required to use PyTorch`).
        || s.contains("unsupported GNU version")
        || s.contains("unsupported clang version")
        // nvcc's own refusal of a clang it does not know (macOS, CMake builds): `nvcc fatal :
        // The version ('70000') of the host compiler ('Apple clang') is not supported`.
        || s.contains("of the host compiler (") && s.contains("is not supported")
        // torch's cpp_extension checking the host compiler against the toolkit before nvcc runs:
        // `The current installed version of g++ (12.2.1) is greater than the maximum required
        // version by CUDA 11.7 (11.5.0)`.
        || s.contains("is greater than the maximum required version by CUDA")
        // The same check on Windows: `#error: -- unsupported Microsoft Visual Studio version!`.
        || s.contains("unsupported Microsoft Visual Studio version")
        // nvcc could not run the host compiler it was given (`-ccbin` naming one not installed).
        || s.contains("Failed to preprocess host compiler properties")
        || s.contains("C++17 or later compatible compiler is required")
        // Any other library's headers refusing the standard the compiler speaks (rocPRIM's
        // `#error "rocPRIM requires at least C++17"`, CUB's and Thrust's `requires at least
        // C++14`).
        // (Only as an error: CUB and Thrust 1.x warn so on every C++11 compile, `warning: CUB
        // requires at least C++14. C++11 is deprecated but still supported.`)
        || s.contains("requires at least C++")
            && !s.contains("warning")
            && !s.contains("deprecated")
        || s.contains("requires GCC >=")
        || s.contains("unrecognized command-line option") && s.contains("--offload-arch")
        // torch's c10/util/C++17.h: `#error You need C++17 to compile PyTorch`.
        || s.contains("You need C++") && s.contains("to compile PyTorch")
        // nvcc of CUDA 11.x before 11.6 cannot parse gcc 11's <functional>
        // (`std_function.h:435:145: error: parameter packs not expanded with '...'`).
        || s.contains("parameter packs not expanded with") && s.contains("std_function.h")
        // nvcc's own `file(line): error` inside gcc's intrinsics headers: a host gcc newer than
        // the toolkit understands.
        || s.contains("/gcc/") && s.contains("intrin.h(") && s.contains("): error")
        // gcc before 6 compiles C++98 unless told: its c++0x_warning.h refuses a build needing
        // C++11 (`#error This file requires compiler and library support for the ISO C++ 2011
        // standard`).
        || s.contains("requires compiler and library support for the ISO C++ 2011")
        // gcc crashing on the package's source (`internal compiler error: in
        // maybe_undo_parenthesized_ref`): a bug of that gcc release. Killed by the kernel
        // (`internal compiler error: Killed (program cc1plus)`) is memory, not the compiler.
        // A compiler killed by a signal (`internal compiler error: Segmentation fault signal
        // terminated program cc1plus`) in a parallel CUDA build is as often memory as a bug.
        || s.contains("internal compiler error: ")
            && !s.contains("Killed")
            && !s.contains("signal terminated program")
        // MSVC's STL refusing an older nvcc: `error STL1002: Unexpected compiler version,
        // expected CUDA 12.4 or newer.`
        || s.contains("STL1002")
        || s.find("Error checking compiler version for ").is_some_and(|p| {
            let r = &s[p + 36..];
            r.contains("WinError 2]") || r.contains("No such file or directory")
        })
        || s.find(": not found").is_some_and(|p| {
            let t = s[..p].trim_end();
            is_compiler(&t[t.rfind([' ', ':']).map_or(0, |i| i + 1)..])
        })
        || s.find("command '").is_some_and(|p| {
            let r = &s[p + 9..];
            r.find('\'').is_some_and(|e| is_compiler(&r[..e]))
                && s.contains("No such file or directory")
        })
        || s.find("unable to execute '").is_some_and(|p| {
            let r = &s[p + 19..];
            r.find('\'').is_some_and(|e| is_compiler(&r[..e]))
        })
        // The compiler program itself missing, as Python (`[Errno 2] No such file or directory:
        // 'gcc'`, distutils' `'gcc' failed: No such file or directory`) or a shell says it
        // (`gcc-6.3.0: No such file or directory`).
        || s.find("No such file or directory: '").is_some_and(|p| {
            let r = &s[p + "No such file or directory: '".len()..];
            r.find('\'').is_some_and(|e| is_compiler(&r[..e]))
        })
        || s.find("' failed: No such file or directory").is_some_and(|p| {
            let head = &s[..p];
            head.rfind('\'').is_some_and(|q| is_compiler(&head[q + 1..]))
        })
        || s.trim().strip_suffix(": No such file or directory").is_some_and(|t| {
            !t.contains(' ') && is_compiler(t)
        });
    if hit {
        out.push(
            l.content_span(),
            EventKind::NoCompiler {
                detail: l.content_text(),
            },
        );
    }
}

/// `gcc: error: pycocotools/_mask.c: No such file or directory`: the C source a build compiles
/// is generated from its `.pyx` by Cython, which the build environment lacks.
fn cython_source_missing(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find(": error: ") else { return };
    let head = s[..p].trim_end();
    let compiler = &head[head.rfind([' ', '\t']).map_or(0, |i| i + 1)..];
    if !is_compiler(compiler) {
        return;
    }
    let r = &s[p + 9..];
    let Some(e) = r.find(": No such file or directory") else {
        return;
    };
    let file = r[..e].trim();
    // A project's own source (a relative path) that is not there was never generated: the
    // sources a repository ships exist.
    let generated = (file.ends_with(".c") || file.ends_with(".cpp"))
        && !file.contains(' ')
        && !file.starts_with('/')
        && !file.contains(":\\");
    if generated {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::BuildDependencyMissing {
                module: "Cython".into(),
                too_new: false,
            },
        );
    }
}

/// distutils' `error: could not create 'monotonic_align/core.cpython-37m-x86_64-linux-gnu.so':
/// No such file or directory` (see `CompileCause::InplaceDirMissing`): the built module's
/// directory, a relative path of plain names.
fn inplace_target_missing(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("could not create '") else {
        return;
    };
    let rest = &s[p + 18..];
    let Some(q) = rest.find("':") else { return };
    if !rest[q..].contains("No such file or directory") {
        return;
    }
    // Windows prints the relative path with backslashes (`monotonic_align\core.cp310-….pyd`).
    let target = rest[..q].replace('\\', "/");
    let file = target.rsplit('/').next().unwrap_or(&target);
    let module = file.contains(".cpython-")
        || file.contains(".cp3")
        || file.ends_with(".so")
        || file.ends_with(".pyd");
    let Some((dir, _)) = target.rsplit_once('/') else {
        return;
    };
    let plain = !dir.is_empty()
        && dir.len() <= 200
        && !dir.starts_with('/')
        && dir.split('/').all(|c| {
            !c.is_empty() && c != ".." && c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        });
    if module && plain {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::InplaceTargetMissing {
                dir: dir.to_owned(),
            },
        );
    }
}

/// CUB's headers stopping a CUDA compile for a reason of their own (see `CompileCause`).
fn cub_compile_cause(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // `dispatch_segmented_sort.cuh(338)`, or with Markdown's escapes `segmented\_sort.cuh(`.
    // Only the clash's own errors (`expected an identifier`, `invalid combination of type
    // specifiers`, `expected a member name`: where `small` is no macro, as on Linux, the header
    // fails otherwise), or the line cut inside the line number in a Windows path (a drive or a
    // backslash).
    let clash_words = |r: &str| {
        r.contains("expected an identifier")
            || r.contains("invalid combination of type specifiers")
            || r.contains("expected a member name")
    };
    let cut = |r: &str| {
        r.get(9..)
            .is_some_and(|t| t.trim_end().bytes().all(|c| c.is_ascii_digit()))
    };
    let windows_path = |head: &str| {
        head.contains('\\')
            || head
                .as_bytes()
                .windows(3)
                .any(|w| w[0].is_ascii_alphabetic() && w[1] == b':' && w[2] == b'/')
    };
    let cause = if let Some(p) = s.find("sort.cuh(")
        && (s[..p].ends_with("segmented_") || s[..p].ends_with("segmented\\_"))
        // The clash's own errors say it wherever the path was cut; a line cut inside the
        // number needs the Windows path beside it.
        && (clash_words(&s[p..]) || cut(&s[p..]) && windows_path(&s[..p]))
    {
        // From the file's name (`dispatch_segmented_sort.cuh(338)`), after its directory.
        let name = s[..p].rfind(['/', '\\', ' ']).map_or(0, |i| i + 1);
        Some((name, CompileCause::CubWindowsMacro))
    } else {
        s.find("The version of CUB in your include path")
            .map(|p| (p, CompileCause::CubThrustVersion))
    };
    if let Some((p, cause)) = cause {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::KnownCompileCause { cause },
        );
    }
}

fn compile_failed(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let c = l.c().trim_start();
    // distutils' `error: command '/usr/local/cuda/bin/nvcc' failed with exit status 1`, as
    // Python 2 printed it (`command u'…'`) and as titles capitalize it.
    let lower = s.to_ascii_lowercase();
    let hit = c.starts_with("FAILED: ")
        || ((lower.contains("error: command '") || lower.contains("error: command u'"))
            && s.contains("' failed")
            && !s.contains("No such file or directory"))
        || s.contains("CalledProcessError: Command '['ninja'")
        || s.contains("ninja: build stopped")
        // A macOS SDK's own headers stopping the compile for an architecture it lacks.
        || s.contains("error: Unsupported architecture") && !s.contains("#error")
        // glibc 2.41's math headers declaring `cospi`/`sinpi` noexcept against an older CUDA
        // toolkit's crt/math_functions.h: `error: exception specification is incompatible with
        // that of previous function "cospi"`.
        || glibc_math_clash(s)
        // MSVC's linker: `error LNK2001: unresolved external symbol PyUnicode_AsUnicode`,
        // `fatal error LNK1120: 1 unresolved externals`.
        || s.contains("error LNK2001: unresolved external symbol")
        || s.contains("error LNK2019: unresolved external symbol")
        || s.contains("fatal error LNK1120")
        // C that an older Cython generated, compiled for Python 3.12 or later (its `PyLongObject`
        // has no `ob_digit` since 3.12).
        || s.contains("has no member named 'ob_digit'")
        || s.contains("has no member named \u{2018}ob_digit\u{2019}")
        // The same Cython's C compiled for Python 3.11 or later, which made the frame opaque.
        || s.contains("incomplete type 'PyFrameObject'")
        || s.contains("incomplete type \u{2018}PyFrameObject\u{2019}");
    if hit {
        out.push(
            l.content_span(),
            EventKind::CompileFailed {
                detail: l.content_text(),
            },
        );
    }
}

fn mamba(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // The kernels' compiled modules are imported in a try (`causal_conv1d_cuda = None` on
    // failure): a call on one that failed names the kernel function.
    if let Some(p) = s.find("'NoneType' object has no attribute '") {
        let r = &s[p + 36..];
        let n = r.bytes().take_while(|&c| is_ident_byte(c)).count();
        let f = &r[..n];
        if f.starts_with("causal_conv1d_") || f.starts_with("selective_scan_") {
            out.push(
                l.span(p, (p + 36 + n).min(s.len())),
                EventKind::MambaFastPathUnavailable {
                    model_class: None,
                    kernel: Some(f.to_owned()),
                },
            );
        }
        return;
    }
    let Some(p) = s.find("fast path is not available") else {
        return;
    };
    let st = s[..p].rfind("The ").filter(|i| p - i <= 40).unwrap_or(p);
    let model_class = s[st..p].find("fast path for ").and_then(|i| {
        let r = &s[st + i + 14..];
        let n = r.bytes().take_while(|&c| is_ident_byte(c)).count();
        non_empty(&r[..n])
    });
    out.push(
        l.span(st, s.trim_end().len()),
        EventKind::MambaFastPathUnavailable {
            model_class,
            kernel: None,
        },
    );
}

fn flash_attn(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    if let Some(p) = s.find("Make sure flash_attn is installed") {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::FlashAttnUnavailable {
                // The model's check finds the name unbound: not installed, or its import failed.
                reason: "flash_attn is not installed, or its import failed".to_owned(),
            },
        );
        return;
    }
    let Some(p) = s.find("has been toggled on, but it cannot be used") else {
        return;
    };
    let st = s[..p]
        .rfind("FlashAttention")
        .filter(|i| p - i <= 40)
        .unwrap_or(p);
    let reason = s[p..]
        .find("following error:")
        .map_or("", |i| s[p + i + 16..].trim());
    out.push(
        l.span(st, s.trim_end().len()),
        EventKind::FlashAttnUnavailable {
            reason: cap(reason).to_owned(),
        },
    );
}

fn operator_missing(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // TensorFlow: `Op type not registered 'CaseFoldUTF8' in binary running on host. Make sure
    // the Op and Kernel are registered in the binary running in this process.`
    if let Some(p) = s.find("Op type not registered") {
        let r = s[p + "Op type not registered".len()..].trim_start();
        let r = r.trim_start_matches(['\'', '"', '`']);
        let n = r
            .bytes()
            .take_while(|&c| c.is_ascii_alphanumeric() || b"_>.".contains(&c))
            .count();
        if n > 0 && n <= 128 {
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::TensorflowOpMissing {
                    op: r[..n].to_owned(),
                },
            );
        }
        return;
    }
    let Some(p) = s.find(" does not exist") else {
        return;
    };
    let t = &s[..p];
    let Some(o) = t.rfind("operator ") else {
        return;
    };
    let op = t[o + 9..].trim();
    let ns = op.split("::").next().unwrap_or("");
    if op.contains("::") && !op.contains(' ') && !loadforms::torch_namespace(ns) {
        out.push(
            l.span(o, p + 15),
            EventKind::TorchOperatorMissing {
                operator: op.to_owned(),
                cuda_backend: false,
            },
        );
    }
}

/// Whether the text before a string literal on a line is what a traceback's source excerpt puts
/// there: nothing, a line number, an arrow (`--> 192`, `  194  `) or an `f` prefix.
fn source_excerpt_lead(lead: &str) -> bool {
    lead.trim_end_matches('f')
        .bytes()
        .all(|c| c.is_ascii_digit() || c.is_ascii_whitespace() || matches!(c, b'-' | b'>'))
}

/// NumPy's own private modules missing a name another of them imports (`cannot import name
/// '_center' from 'numpy._core.umath'`, `module 'numpy.linalg._umath_linalg' has no attribute
/// '_ilp64'`): files of two NumPy releases are mixed, the Python of one with the compiled
/// modules of the other (pip changed NumPy under a running kernel, or two installs overlap).
pub fn numpy_internals_disagree(s: &str) -> bool {
    let private = |m: &str| {
        m.starts_with("numpy.")
            && m.len() <= 64
            && m.split('.').any(|c| c.starts_with('_'))
            && m.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
    };
    let quoted_after = |needle: &str| {
        s.find(needle).map(|p| {
            let r = &s[p + needle.len()..];
            &r[..r.find('\'').unwrap_or(r.len())]
        })
    };
    (s.contains("cannot import name '") && quoted_after(" from '").is_some_and(private))
        || (s.contains("' has no attribute '") && quoted_after("module '").is_some_and(private))
}

/// A Triton object's attribute torch's Inductor (or a kernel package) reads and the installed
/// Triton lacks: (where, the object's dotted name, the attribute).
fn triton_object_attribute(s: &str) -> Option<(usize, &'static str, String)> {
    const OBJECTS: &[(&str, &str)] = &[
        (
            "'CompiledKernel' has no attribute '",
            "triton.compiler.CompiledKernel",
        ),
        (
            "'KernelMetadata' object has no attribute '",
            "triton.compiler.KernelMetadata",
        ),
        (
            "'CompiledKernel' object has no attribute '",
            "triton.compiler.CompiledKernel",
        ),
    ];
    let word = |r: &str| {
        let n = r
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        (n > 0).then(|| r[..n].to_owned())
    };
    for (phrase, object) in OBJECTS {
        if let Some(p) = s.find(phrase) {
            return Some((p, object, word(&s[p + phrase.len()..])?));
        }
    }
    if let Some(p) = s.find("does not has any of the attributes: ['") {
        return Some((p, "triton.compiler.CompiledKernel", word(&s[p + 38..])?));
    }
    let p = s.find("fields(AttrsDescriptor)")?;
    Some((
        p,
        "triton.compiler.compiler.AttrsDescriptor",
        "__dataclass_fields__".to_owned(),
    ))
}

fn numpy(l: &Line<'_>, out: &mut Out, head_read: bool) {
    let s = l.s();
    if head_read && s.contains("need time to support NumPy 2") {
        return;
    }
    const NEEDLES: &[&str] = &[
        "compiled using NumPy 1.x cannot be run",
        "numpy.dtype size changed",
        "numpy.ndarray size changed",
        "numpy.ufunc size changed",
        // NumPy 1.x's older wording, a module built against a newer NumPy than the one
        // installed: `ValueError: numpy.dtype has the wrong size, try recompiling`.
        "has the wrong size, try recompiling",
        "_ARRAY_API not found",
        "compiled against API version",
        "compiled against ABI version",
        "numpy.core.multiarray failed to import",
        "numpy.core._multiarray_umath failed to import",
        // torch's bridge to NumPy, when its import of NumPy failed (torch before 2.3, built
        // against NumPy 1.x, under NumPy 2): `RuntimeError: Numpy is not available`.
        "Numpy is not available",
        // The message's last line, which a paste cut at its top still has: `We expect that
        // some modules will need time to support NumPy 2.`
        "need time to support NumPy 2",
    ];
    // A package's own gate on NumPy's version (`ImportError: Numba needs NumPy 1.24 or less`),
    // and numba's compiled `_internal` failing under a NumPy newer than it supports (`SystemError:
    // initialization of _internal failed without raising an exception`).
    let gate = s.contains("needs NumPy ") && (s.contains(" or less") || s.contains(" or greater"))
        || s.contains("initialization of _internal failed without raising an exception");
    if gate || NEEDLES.iter().any(|n| s.contains(n)) || numpy_internals_disagree(s) {
        out.push(
            l.content_span(),
            EventKind::NumpyAbi {
                detail: l.content_text(),
            },
        );
        return;
    }
    let quoted = |from: usize| -> Option<(usize, &str)> {
        let r = &s[from..];
        let q = r.find(['\'', '`'])?;
        let body = &r[q + 1..];
        let n = body
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        (n > 0).then(|| (from + q + 1, &body[..n]))
    };
    let name = if let Some(p) = s.find("module 'numpy' has no attribute ") {
        quoted(p + 32)
    } else if let Some(p) = s.find("cannot import name ") {
        s[p..]
            .contains(" from 'numpy'")
            .then(|| quoted(p + 19))
            .flatten()
    } else if let Some(p) = s.find("was removed in the NumPy 2.0 release") {
        s[..p].rfind("`np.").and_then(|b| {
            let n = s[b + 4..]
                .bytes()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
                .count();
            (n > 0).then(|| (b + 4, &s[b + 4..b + 4 + n]))
        })
    } else {
        None
    };
    if let Some((at, name)) = name {
        out.push(
            l.span(at, at + name.len()),
            EventKind::NumpyNameMissing {
                name: name.to_owned(),
            },
        );
    }
    attribute_missing(l, out);
}

/// A name another release of a module has, asked of the installed one: Triton's `tl.tensor`
/// methods and compiled-kernel objects, then any dotted module (`module 'torch.library' has no
/// attribute 'register_fake'`). NumPy's own names are [`numpy`]'s.
fn attribute_missing(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // A method of Triton's `tl.tensor` a kernel calls and the installed Triton lacks (its
    // CompilationError quotes the AttributeError): Triton's language API, dated like a module's.
    if let Some(p) = s.find("'tensor' object has no attribute '") {
        let r = &s[p + 34..];
        let n = r
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        if n > 0 {
            out.push(
                l.span(p, p + 34 + n),
                EventKind::ModuleAttributeMissing {
                    module: "triton.language.tensor".to_owned(),
                    attribute: r[..n].to_owned(),
                },
            );
            return;
        }
    }
    // Triton's compiled-kernel objects as torch's Inductor reads them: their attributes change
    // between Triton releases (`type object 'CompiledKernel' has no attribute
    // 'launch_enter_hook'`, Inductor's own `does not has any of the attributes:
    // ['cluster_dims', …]`, `fields(AttrsDescriptor)` once Triton 3.2 made it no dataclass).
    if let Some((at, module, attribute)) = triton_object_attribute(s) {
        out.push(
            l.span(at, s.trim_end().len().max(at + 1)),
            EventKind::ModuleAttributeMissing {
                module: module.to_owned(),
                attribute,
            },
        );
        return;
    }
    // TorchScript compiling a package's code against the installed torch: `Tried to access
    // nonexistent attribute or method 'crow_indices' of type 'Tensor'.` (a Tensor method of
    // another torch release; a script class's own attributes are not torch's).
    const NONEXISTENT: &str = "nonexistent attribute or method '";
    // TorchScript types an unannotated parameter as Tensor, so a script's own attribute reads
    // the same but for its hint (`Did you forget to initialize an attribute in __init__()?`).
    if let Some(p) = s.find(NONEXISTENT)
        && !s.contains("Did you forget")
    {
        let r = &s[p + NONEXISTENT.len()..];
        let n = r
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        if n > 0 && r[n..].starts_with("' of type 'Tensor'") {
            out.push(
                l.span(p, p + NONEXISTENT.len() + n + 18),
                EventKind::ModuleAttributeMissing {
                    module: "torch.Tensor".to_owned(),
                    attribute: r[..n].to_owned(),
                },
            );
            return;
        }
    }
    // Any other module: `module 'torch.library' has no attribute 'register_fake'`.
    if let Some(p) = s.find("module '")
        && let Some(e) = s[p + 8..].find("' has no attribute '")
    {
        let module = &s[p + 8..p + 8 + e];
        let r = &s[p + 8 + e + 20..];
        let n = r
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        let attribute = &r[..n];
        let dotted = module
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.');
        if module != "numpy" && dotted && !module.is_empty() && n > 0 && module.len() <= 64 {
            out.push(
                l.span(p, p + 8 + e + 20 + n),
                EventKind::ModuleAttributeMissing {
                    module: module.to_owned(),
                    attribute: attribute.to_owned(),
                },
            );
        }
    }
}

fn oom(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("CUDA out of memory") else {
        return;
    };
    let tried = s[p..].find("Tried to allocate ").and_then(|i| {
        let r = &s[p + i + 18..];
        let mut it = r.split_whitespace();
        let n = it.next()?;
        let u = it.next()?.trim_end_matches(['.', ',', ')']);
        Some(format!("{n} {u}"))
    });
    out.push(
        l.content_span(),
        EventKind::CudaOom {
            tried,
            detail: l.content_text(),
        },
    );
}

/// A capability as torch prints it: `sm_86`, `compute_37`, `8.6`, `(8.0)`, `12.1.`.
fn capability_token(s: &str) -> Option<String> {
    let t = first_word(s)
        .trim_start_matches('(')
        .trim_end_matches(['.', ',', ')', ';', ':']);
    let digits = t
        .strip_prefix("sm_")
        .or_else(|| t.strip_prefix("compute_"))
        .unwrap_or(t);
    let ok = !digits.is_empty()
        && digits.len() <= 6
        && digits.bytes().next().is_some_and(|c| c.is_ascii_digit())
        && digits
            .bytes()
            .all(|c| c.is_ascii_digit() || c == b'.' || c == b'a' || c == b'f');
    ok.then(|| t.to_owned())
}

/// The GPU's name before `marker` on the line (`NVIDIA GeForce RTX 5090`), without the warning
/// or exception that precedes it.
fn gpu_name_before(s: &str, content: usize, at: usize) -> Option<String> {
    let before = s.get(..at)?.trim_end();
    let start = before
        .rfind(": ")
        .map_or(0, |i| i + 2)
        // Never inside the line's log or container prefix.
        .max(content.min(before.len()))
        .max(before.rfind("Found GPU").map_or(0, |i| {
            // `Found GPU0 NAME`: skip the index.
            let r = &before[i + 9..];
            i + 9 + r.bytes().take_while(u8::is_ascii_digit).count()
        }));
    let name = before.get(start..)?.trim();
    let name = name.strip_prefix("Found ").unwrap_or(name);
    (name.len() >= 3 && name.len() <= 80).then(|| name.to_owned())
}

fn driver_too_old(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let hit = s.contains("driver on your system is too old")
        || s.contains("driver version is insufficient for CUDA runtime")
        || s.contains("cudaErrorInsufficientDriver")
        || s.contains("CUDA_ERROR_INSUFFICIENT_DRIVER")
        || s.contains("PTX was compiled with an unsupported toolchain")
        || s.contains("CUDA_ERROR_UNSUPPORTED_PTX_VERSION")
        // The runtime API's name for it: `code=222(cudaErrorUnsupportedPtxVersion)`.
        || s.contains("cudaErrorUnsupportedPtxVersion")
        // Error 804: a CUDA forward-compatibility libcuda (a container's `compat` directory)
        // on a GPU or driver it does not support — the driver is older than the CUDA in use.
        || s.contains("forward compatibility was attempted on non supported HW")
        // Error 803: the CUDA user-space driver (libcuda) and the kernel module disagree (a
        // container's libcuda newer than the host's driver).
        || s.contains("unsupported display driver / cuda driver combination")
        // The same disagreement in NVML's words (`Failed to initialize NVML: Driver/library
        // version mismatch`) and the CUDA driver's (`kernel version 515.48.7 does not match DSO
        // version 510.73.5`): a driver updated without the kernel module reloaded.
        || s.contains("Driver/library version mismatch")
        || s.contains("does not match DSO version")
        // ptxas (or the driver's JIT) given PTX of a newer ISA than it knows: `ptxas fatal :
        // Unsupported .version 6.3; current version is '6.1'` (numba's NVVM newer than the
        // driver's CUDA).
        || s.contains("Unsupported .version ") && s.contains("current version is")
        // A kernel Triton compiled (with the ptxas in its wheel, of a newer CUDA than the
        // driver's) that the driver will not load.
        || s.contains("Triton Error [CUDA]: device kernel image is invalid")
        // The runtime's error 35 by number (cudaErrorInsufficientDriver), as TensorRT and other
        // runtimes print it: `CUDA initialization failure with error: 35` (35 itself, not 350).
        || s.contains("CUDA")
            && s.find("failure with error: 35").is_some_and(|p| {
                !s[p + 22..].starts_with(|c: char| c.is_ascii_digit())
            });
    if !hit {
        return;
    }
    let found = s.find("(found version ").and_then(|p| {
        let r = &s[p + 15..];
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        non_empty(&r[..n])
    });
    out.push(
        l.content_span(),
        EventKind::DriverTooOld {
            found,
            detail: l.content_text(),
        },
    );
}

/// The symbol characters that open a line's content, after its indentation: (their start in
/// the line, their length), for a symbol the line before ran out on.
fn leading_symbol(n: &Line<'_>) -> (usize, usize) {
    let c = n.c();
    let start = n.content + (c.len() - c.trim_start().len());
    let len = n.s()[start..]
        .bytes()
        .take_while(|&c| is_sym_byte(c))
        .count();
    (start, len)
}

/// A report that is the error line alone (an issue's title, pip's last lines): no traceback of
/// a program that ran. `No module named 'torch'` said so by itself is, in reports about compiled
/// extensions, a build that could not see torch; a program that ran shows its frames.
fn bare_report(text: &str) -> bool {
    text.len() <= 2048
        && ![
            "File \"",
            "File /",
            "----> ",
            "Traceback",
            "Cell In",
            ">>> ",
            "line ",
            "python -c",
            "In [",
            "import torch",
        ]
        .iter()
        .any(|m| text.contains(m))
}

/// Build tools a build runs as programs, which pip installs as wheels of the same name (their
/// programs land on the environment's PATH).
pub const BUILD_PROGRAMS: &[&str] = &["swig", "cmake", "ninja", "meson"];

/// Build tools a build runs as programs that pip does not install: the system's package manager
/// (or the tool's own installer) provides them.
pub const SYSTEM_BUILD_PROGRAMS: &[&str] = &[
    "bazel",
    "make",
    "pkg-config",
    "autoconf",
    "automake",
    "libtool",
    "nasm",
];

/// A build tool run as a program and not found: distutils' `error: command 'swig.exe' failed:
/// No such file or directory`, a shell's `/bin/sh: cmake: command not found` (`sh: 1: cmake:
/// not found`), Windows' `'cmake' is not recognized as an internal or external command`,
/// Python's `No such file or directory: 'cmake'`.
fn build_tool_missing(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let tool = |name: &str| -> Option<&'static str> {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        let base = base.strip_suffix(".exe").unwrap_or(base);
        BUILD_PROGRAMS
            .iter()
            .chain(SYSTEM_BUILD_PROGRAMS)
            .copied()
            .find(|t| *t == base)
    };
    let quoted_after = |marker: &str| -> Option<(usize, &'static str)> {
        let p = s.find(marker)?;
        let r = &s[p + marker.len()..];
        let e = r.find('\'')?;
        tool(&r[..e]).map(|t| (p, t))
    };
    let found = quoted_after("error: command '")
        .filter(|_| s.contains("No such file or directory"))
        .or_else(|| quoted_after("No such file or directory: '"))
        .or_else(|| {
            let p = s.find("is not recognized as an internal or external command")?;
            let before = s[..p].trim_end().trim_matches(['\'', '"']);
            let name = before.rsplit(['\'', '"', ' ']).next()?;
            tool(name).map(|t| (p, t))
        })
        .or_else(|| {
            let p = s
                .find("command not found")
                .or_else(|| s.find(": not found"))?;
            let before = s[..p].trim_end().trim_end_matches(':');
            let name = before.rsplit([' ', ':']).next()?;
            tool(name).map(|t| (p, t))
        });
    if let Some((p, t)) = found {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::BuildDependencyMissing {
                module: t.to_owned(),
                too_new: false,
            },
        );
    }
}

/// distutils' `unable to execute 'bazel': No such file or directory`: a build tool run as a
/// program that is not installed (compilers are [`no_compiler`]'s).
fn build_program_unexecutable(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("unable to execute '") else {
        return;
    };
    let r = &s[p + 19..];
    let Some(e) = r.find('\'') else { return };
    let name = r[..e].rsplit(['/', '\\']).next().unwrap_or("");
    let name = name.strip_suffix(".exe").unwrap_or(name);
    if let Some(t) = BUILD_PROGRAMS
        .iter()
        .chain(SYSTEM_BUILD_PROGRAMS)
        .find(|t| **t == name)
    {
        out.push(
            l.span(p, s.trim_end().len()),
            EventKind::BuildDependencyMissing {
                module: (*t).to_owned(),
                too_new: false,
            },
        );
    }
}

/// TensorFlow's error when an op's cuDNN implementation could not be set up.
const DNN_IMPLEMENTATION: &str = "Fail to find the dnn implementation";

/// JAX's words for running on its CPU jaxlib where a GPU was meant.
const JAX_CPU_ONLY: [&str; 2] = [
    "enabled jaxlib is not installed",
    "No GPU/TPU found, falling back to CPU",
];

fn cpu_only_torch(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    if let Some((p, w)) = JAX_CPU_ONLY
        .iter()
        .find_map(|w| s.find(w).map(|p| (p, w.len())))
    {
        out.push(
            l.span(p, p + w),
            EventKind::CpuOnlyTorch {
                detail: l.content_text(),
            },
        );
        return;
    }
    if let Some(p) = s.find("not compiled with CUDA enabled") {
        // `Torch not compiled…`, also after an exception name or inside a quoted raise.
        let st = s[..p].rfind("Torch").filter(|i| p - i <= 8).unwrap_or(p);
        out.push(
            l.span(st, p + 30),
            EventKind::CpuOnlyTorch {
                detail: l.content_text(),
            },
        );
    }
}

impl Scanner<'_> {
    /// A build stopped by a CPU-only torch, read from the source line its traceback shows:
    /// a setup.py's `torch.version.cuda.split(".")` on `None` (`AttributeError: 'NoneType' object
    /// has no attribute 'split'`, here or on the next line), or torch's `_get_cuda_arch_flags`
    /// with no GPU to compile for (`arch_list[-1] += '+PTX'`, an `IndexError`: torch saw no
    /// CUDA device and TORCH_CUDA_ARCH_LIST is unset).
    fn cpu_torch_at_build(&self, l: &Line<'_>, out: &mut Out) {
        let s = l.s();
        let none_attr = "'NoneType' object has no attribute";
        let hit = if let Some(p) = s.find("torch.version.cuda.") {
            let next = self.next_line(l);
            (s.contains(none_attr) || next.as_ref().is_some_and(|n| n.s().contains(none_attr)))
                .then_some(p)
        } else {
            s.find("arch_list[-1] += '+PTX'")
        };
        if let Some(p) = hit {
            out.push(
                l.span(p, s.trim_end().len()),
                EventKind::CpuOnlyTorch {
                    detail: l.content_text(),
                },
            );
        }
    }
}

fn gpu_processes(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    // torch OOM: "Process 1234 has 6.30 GiB memory in use"
    for (i, _) in s.match_indices("Process ") {
        let r = &s[i + 8..];
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(pid) = r[..n].parse::<u32>() else {
            continue;
        };
        let Some(rest) = r[n..].strip_prefix(" has ") else {
            continue;
        };
        let Some(e) = rest.find(" memory in use") else {
            continue;
        };
        let memory = non_empty(&rest[..e]);
        out.push(
            l.span(i, i + 8 + n + 5 + e + 14),
            EventKind::GpuProcess {
                pid,
                memory,
                name: None,
            },
        );
    }
    // nvidia-smi: |    0   N/A  N/A     12345      C   python inference.py      6302MiB |
    let t = s.trim();
    if t.starts_with('|') && t.ends_with('|') && t.len() > 2 {
        let inner = &t[1..t.len() - 1];
        let toks: Vec<&str> = inner.split_whitespace().collect();
        let Some(mem) = toks
            .last()
            .filter(|m| m.ends_with("MiB") && m[..m.len() - 3].bytes().all(|c| c.is_ascii_digit()))
        else {
            return;
        };
        let Some(ti) = toks
            .iter()
            .position(|t| matches!(*t, "C" | "G" | "C+G" | "M" | "M+C"))
        else {
            return;
        };
        if ti == 0 || ti + 1 >= toks.len() {
            return;
        }
        let Ok(pid) = toks[ti - 1].parse::<u32>() else {
            return;
        };
        let name = toks[ti + 1..toks.len() - 1].join(" ");
        let lead = s.len() - s.trim_start().len();
        out.push(
            l.span(lead, lead + t.len()),
            EventKind::GpuProcess {
                pid,
                memory: Some((*mem).to_owned()),
                name: non_empty(&name),
            },
        );
    }
}

/// pybind11's `TypeError: f(): incompatible function arguments`, with the compiled module the
/// call went through and the number of arguments it passed where the line above (the
/// traceback's source line) shows the whole call (`causal_conv1d_cuda.causal_conv1d_fwd(x, w,
/// b, None, True)`), and the number the first signature pybind11 lists takes (`1. (arg0: …,
/// arg4: bool) -> …` in `listing`, the lines after).
fn pybind(l: &Line<'_>, prev: Option<&str>, listing: &str, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("(): incompatible function arguments") else {
        return;
    };
    let st = s[..p]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .map_or(0, |i| after_char(s, i));
    let f = &s[st..p];
    if f.is_empty() {
        return;
    }
    let leaf = f.rsplit('.').next().unwrap_or(f);
    let call = format!(".{leaf}(");
    let module = prev.and_then(|line| {
        let at = line.find(&call)?;
        let head = &line[..at];
        let start = head
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .map_or(0, |i| after_char(head, i));
        let m = &head[start..];
        (!m.is_empty() && m.len() <= 128 && !m.starts_with('.')).then(|| cap(m).to_owned())
    });
    let passed = prev.and_then(|line| {
        let args = &line[line.find(&call)? + call.len()..];
        count_arguments(args)
    });
    // The listing's first signature (the rest of this line after `supported:`, or the lines
    // after it), up to its `->`.
    let after = s[p..].split_once("supported:").map_or("", |(_, r)| r);
    let text = format!("{after} {listing}");
    let accepts = text.find("1. (").and_then(|i| {
        let sig = &text[i..];
        let end = sig.find("->").unwrap_or(sig.len());
        let sig = &sig[..floor_char(sig, end.min(4096))];
        let n = sig
            .match_indices("arg")
            .filter_map(|(j, _)| {
                let digits: String = sig[j + 3..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                sig[j + 3 + digits.len()..]
                    .starts_with(':')
                    .then(|| digits.parse::<u32>().ok())
                    .flatten()
            })
            .max()?;
        n.checked_add(1).filter(|&k| k <= 64)
    });
    out.push(
        l.span(st, p + 35),
        EventKind::IncompatibleFunctionArguments {
            function: f.to_owned(),
            module,
            passed,
            accepts,
        },
    );
}

/// The arguments of a call written out up to its closing parenthesis on one line (`x, w, None,
/// True)`): how many, counting commas outside nested brackets; `None` where the call goes on
/// past the line.
fn count_arguments(args: &str) -> Option<u32> {
    let mut depth = 0u32;
    let mut commas = 0u32;
    let mut any = false;
    let mut quote: Option<char> = None;
    for c in args.chars().take(2048) {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                any = true;
            }
            '(' | '[' | '{' => {
                depth += 1;
                any = true;
            }
            ')' | ']' | '}' if depth > 0 => depth -= 1,
            ')' => return Some(if any { commas + 1 } else { 0 }).filter(|&n| n <= 64),
            ',' if depth == 0 => commas += 1,
            c if !c.is_whitespace() => any = true,
            _ => {}
        }
    }
    None
}

const SUBJECTS: &[&str] = &[
    "PyTorch",
    "pytorch",
    "torchvision",
    "torchaudio",
    "torch",
    "Torch",
    "Python",
    "python",
    "CUDA",
    "cudatoolkit",
    "cuda",
    "xformers",
    "xFormers",
    "Triton",
    "Transformers",
    "flash-attn",
    "flash_attn",
    "mamba-ssm",
    "mamba_ssm",
    "causal-conv1d",
    "causal_conv1d",
    "triton",
    "transformers",
    "numpy",
    "NumPy",
    "vllm",
    "unsloth",
];

/// `PyTorch 2.5.1`, `torch==2.2.2`, `**Python**: 3.11.13`, `CUDA Version: 12.4`, `torch 2.10.0+cu128`.
fn versions(l: &Line<'_>, facts: &[u16], out: &mut Out) {
    let s = l.s();
    let b = s.as_bytes();
    // Only the subjects whose trigger matched on this line (a trigger is a subject plus the
    // separator that follows it); all of them when the line had to be cleaned of ANSI codes,
    // where a code may sit between subject and version.
    let mut buf = [""; 8];
    let mut n = 0;
    let subjects: &[&str] = if l.map.is_identity() {
        for &pid in facts {
            let t = TRIGGERS
                .get(pid as usize)
                .map_or("", |t| t.0)
                .trim_end_matches([' ', '=', ':'])
                .trim_end_matches(|c: char| c.is_ascii_digit());
            if let Some(subj) = SUBJECTS.iter().find(|s| **s == t)
                && n < buf.len()
                && !buf[..n].contains(subj)
            {
                buf[n] = subj;
                n += 1;
            }
        }
        &buf[..n]
    } else {
        SUBJECTS
    };
    for &subj in subjects {
        for (i, _) in s.match_indices(subj) {
            if out.full() {
                return;
            }
            if i > 0 && (is_ident_byte(b[i - 1]) || b[i - 1] == b'-' || b[i - 1] == b'.') {
                continue;
            }
            let mut j = i + subj.len();
            // `pytorch1.7.1`, `cuda10.1`: a dotted version glued to the name (never `cuda11` or
            // `torch2` alone, which name a build flavour, not a version).
            let glued = matches!(subj, "pytorch" | "cuda")
                && b.get(j).is_some_and(u8::is_ascii_digit)
                && version_token(&s[j..]).contains('.');
            if !glued
                && b.get(j)
                    .is_some_and(|&c| is_ident_byte(c) || c == b'-' || c == b'.' || c == b'/')
            {
                continue;
            }
            // Separators: spaces, `==`, `:`, Markdown bold, an optional word "version".
            // Unsloth's banner: "CUDA: 8.6" is the compute capability; "CUDA Toolkit: 12.8" the toolkit.
            if subj == "CUDA"
                && s[j..].starts_with(": ")
                && s[j..]
                    .get(..40)
                    .is_some_and(|t| t.contains(". CUDA Toolkit"))
            {
                continue;
            }
            if subj == "CUDA" && s[j..].starts_with(" Toolkit") {
                j += 8;
            }
            let sep_start = j;
            for _ in 0..3 {
                while j < b.len()
                    && j - sep_start < 40
                    && matches!(b[j], b' ' | b'\t' | b':' | b'*' | b'=')
                {
                    j += 1;
                }
                let r = &s[j..];
                if r.get(..7)
                    .is_some_and(|w| w.eq_ignore_ascii_case("version"))
                {
                    j += 7;
                } else {
                    break;
                }
            }
            // `The PyTorch version (2.15.0+cu132) is not compatible` (torchcodec): after the word
            // "version", the version may stand in parentheses.
            if s[sep_start..j].trim_end().ends_with("version") && s[j..].starts_with('(') {
                j += 1;
            }
            if j == sep_start && !glued {
                continue;
            }
            let sep = &s[sep_start..j];
            // `torch==2.2.2` states a version; `Version=11.7`, `>=`, `~=` do not say which subject owns it.
            // conda's pins are the exception: `cudatoolkit=10.2`, `pytorch=1.7.0`, `python=3.8`.
            let conda_pin = sep == "=" && subj.bytes().all(|c| c.is_ascii_lowercase());
            if sep.contains('=') && !sep.contains("==") && !conda_pin {
                continue;
            }
            let mut v = version_token(&s[j..]);
            if let Some(x) = v.strip_prefix('v') {
                v = x;
            }
            if !is_version(v) {
                continue;
            }
            let vs = j + (s[j..].find(v).unwrap_or(0));
            out.push(
                l.span(i, vs + v.len()),
                EventKind::Version {
                    subject: normalize_subject(subj),
                    version: v.to_owned(),
                },
            );
        }
    }
}

/// pip's own version: its upgrade notice (`You are using pip version 18.1, however version 24.0
/// is available.`), its verbose banner (`Using pip 23.3.2 from …`), a package's own warning
/// (`pip versions <19.3 (currently installed: 18.1) are unable to detect binary wheel
/// compatibility`).
fn pip_version(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let found = ["You are using pip version ", "Using pip "]
        .iter()
        .find_map(|w| s.find(w).map(|p| (p, p + w.len())))
        .or_else(|| {
            let p = s.find("(currently installed: ")?;
            s[..p].contains("pip version").then_some((p, p + 22))
        });
    let Some((p, at)) = found else { return };
    let v = version_token(&s[at..]).trim_end_matches([',', ')', '.']);
    if is_version(v) {
        out.push(
            l.span(p, at + v.len()),
            EventKind::Version {
                subject: "pip".to_owned(),
                version: v.to_owned(),
            },
        );
    }
}

/// `torch.__version__  = 2.4.0+cu121`, as flash-attn's, mamba-ssm's and causal-conv1d's setup.py
/// print it before they look for their prebuilt wheel.
fn setup_banner_torch(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("torch.__version__") else {
        return;
    };
    let r = &s[p + 17..];
    let Some(eq) = r.trim_start().strip_prefix('=') else {
        return;
    };
    let v = version_token(eq.trim_start());
    if is_version(v) {
        let vs = p + 17 + (r.len() - eq.trim_start().len());
        out.push(
            l.span(p, vs + v.len()),
            EventKind::Version {
                subject: "torch".to_owned(),
                version: v.to_owned(),
            },
        );
    }
}

/// `Cuda compilation tools, release 12.6, V12.6.85` (`nvcc --version`).
fn nvcc_release(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let Some(p) = s.find("Cuda compilation tools, release ") else {
        return;
    };
    let v = version_token(&s[p + 32..]);
    if is_version(v) {
        out.push(
            l.span(p, p + 32 + v.len()),
            EventKind::Version {
                subject: "nvcc".to_owned(),
                version: v.to_owned(),
            },
        );
    }
}

/// Wheel names and labels: `mamba_ssm-1.2.0.post1+cu118torch2.3cxx11abiFALSE`, `x-1.0-…whl`.
fn wheel_labels(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let mut seen = Vec::new();
    // Built once: a pip log has a `Downloading …whl` line per package.
    static NEEDLES: OnceLock<[memmem::Finder<'static>; 2]> = OnceLock::new();
    let needles =
        NEEDLES.get_or_init(|| [memmem::Finder::new(".whl"), memmem::Finder::new("cxx11abi")]);
    for needle in needles {
        // Neither needle overlaps itself, so these are the matches `match_indices` gives.
        for i in needle.find_iter(s.as_bytes()) {
            let st = rfind_space_or(&s[..i], b"/'\"`([=").map_or(0, |k| after_char(s, k));
            let en = i + s[i..]
                .find(|c: char| {
                    c.is_whitespace() || matches!(c, '\'' | '"' | '`' | ')' | ']' | ',' | '#' | '?')
                })
                .unwrap_or(s.len() - i);
            if seen.contains(&st) {
                continue;
            }
            seen.push(st);
            let tok = &s[st..en];
            let tok_dec = decode_plus(tok);
            let mut parts = tok_dec.splitn(3, '-');
            let (Some(name), Some(ver)) = (parts.next(), parts.next()) else {
                continue;
            };
            let ver = ver.strip_suffix(".whl").unwrap_or(ver);
            if name.is_empty()
                || !is_version(ver)
                || !name.bytes().all(|c| is_ident_byte(c) || c == b'.')
            {
                continue;
            }
            let end = st
                + name.len()
                + 1
                + tok[name.len() + 1..]
                    .find('-')
                    .unwrap_or(tok.len() - name.len() - 1);
            let end = if tok.ends_with(".whl") && end == en {
                en - 4
            } else {
                end
            };
            out.push(
                l.span(st, end.min(en)),
                EventKind::Version {
                    subject: normalize_subject(name),
                    version: ver.to_owned(),
                },
            );
        }
    }
}

/// `from_pretrained("org/name")`, `model_name = "org/name"`, `--model org/name`, `model="org/name"`.
fn models(l: &Line<'_>, out: &mut Out) {
    let s = l.s();
    let b = s.as_bytes();
    let mut seen_end = 0;
    for needle in ["from_pretrained", "model"] {
        for (i, _) in s.match_indices(needle) {
            if i < seen_end {
                continue;
            }
            let mut j = i + needle.len();
            let ident = s[j..].bytes().take_while(|&c| is_ident_byte(c)).count();
            if ident > 24 {
                continue;
            }
            j += ident;
            let sep_start = j;
            while j < b.len()
                && j - sep_start < 12
                && matches!(b[j], b' ' | b'\t' | b'=' | b':' | b'(' | b'"' | b'\'')
            {
                j += 1;
            }
            if j == sep_start {
                continue;
            }
            let n = s[j..]
                .bytes()
                .take_while(|&c| c.is_ascii_alphanumeric() || b"._/-".contains(&c))
                .count();
            let id = s[j..j + n].trim_end_matches('.');
            let mut parts = id.split('/');
            let (Some(org), Some(name), None) = (parts.next(), parts.next(), parts.next()) else {
                continue;
            };
            let valid = |p: &str| !p.is_empty() && p.as_bytes()[0].is_ascii_alphanumeric();
            if !valid(org) || !valid(name) {
                continue;
            }
            seen_end = j + id.len();
            out.push(
                l.span(j, j + id.len()),
                EventKind::Model { id: id.to_owned() },
            );
        }
    }
}

/// The byte offset just after the char starting at `i` (a separator found by `rfind` may be
/// several bytes long: `\u{3000}` is whitespace too).
fn after_char(s: &str, i: usize) -> usize {
    i + s
        .get(i..)
        .and_then(|r| r.chars().next())
        .map_or(1, char::len_utf8)
}

#[cfg(test)]
mod tests {
    use super::{content_start, first_word, rfind_space_or, scan};
    use crate::EventKind;

    /// pip's version as its upgrade notice, its verbose banner and a package's warning print
    /// it (the last from the tuning case `open-semantic-search-333`).
    #[test]
    fn pips_own_version() {
        for (text, want) in [
            (
                "        WARNING: pip versions <19.3 (currently installed: 18.1) are unable to detect binary wheel compatibility for blis. To avoid a source install with a very long compilation time, please upgrade pip with `pip install --upgrade pip`.",
                "18.1",
            ),
            (
                "Using pip 23.3.2 from /usr/local/lib/python3.8/dist-packages/pip (python 3.8)",
                "23.3.2",
            ),
            (
                "You are using pip version 9.0.1, however version 19.2.3 is available.",
                "9.0.1",
            ),
        ] {
            let got = scan(text).value.into_iter().find_map(|e| match e.kind {
                EventKind::Version { subject, version } if subject == "pip" => Some(version),
                _ => None,
            });
            assert_eq!(got.as_deref(), Some(want), "{text}");
        }
    }

    #[test]
    fn a_loggers_prefix_and_source_location_are_not_content() {
        for (line, content) in [
            (
                "2024-05-01 12:00:00,123 ERROR worker.py:42 - CUDA versions. PyTorch has",
                "CUDA versions. PyTorch has",
            ),
            (
                "ERROR 01-11 13:09:40 engine.py:366] RuntimeError: x",
                "RuntimeError: x",
            ),
            // A warning's location names the package that warns: it stays.
            (
                "/env/site-packages/torch/cuda/__init__.py:174: UserWarning: x",
                "/env/site-packages/torch/cuda/__init__.py:174: UserWarning: x",
            ),
        ] {
            assert_eq!(&line[content_start(line)..], content, "{line}");
        }
    }

    #[test]
    fn bytewise_searches_agree_with_the_standard_library() {
        for s in [
            "",
            " ",
            "abc",
            "  abc def",
            "\u{3000}x\u{3000}y",
            "\u{a0}é\u{85}z",
            "\x0bq\x0cr",
            "tok\u{2028}more",
            "ü ü",
            "\t\r\n",
            "https://x/pkg-1.2-py3-none-any.whl (1.0 MB)",
            "a=b\u{3000}c",
            "x/y\u{e9}z",
            "p(q[r`s'\"t",
            "über/straße",
        ] {
            assert_eq!(
                first_word(s),
                s.split_whitespace().next().unwrap_or(""),
                "{s:?}"
            );
            let seps = |c: char| {
                c.is_whitespace() || matches!(c, '/' | '\'' | '"' | '`' | '(' | '[' | '=')
            };
            assert_eq!(rfind_space_or(s, b"/'\"`([="), s.rfind(seps), "{s:?}");
        }
    }
}
