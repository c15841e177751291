//! One test per construct the scanner recognizes: `check(input, expect)` renders every event as
//! `Kind { fields } @ "text its span covers"`, one per line, and compares with `expect`.

// Test helpers outside `#[test]` fns: a panic there is a failing test, as in the tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use abidoc_syntax::scan;

fn render(input: &str) -> String {
    let parse = scan(input);
    let mut out = String::new();
    for ev in &parse.value {
        out.push_str(&format!("{:?} @ {:?}\n", ev.kind, ev.span.slice(input)));
    }
    for p in &parse.problems {
        out.push_str(&format!("problem: {}\n", p.message));
    }
    out
}

#[track_caller]
fn check(input: &str, expect: &str) {
    let got = render(input);
    let want = expect.trim_start_matches('\n');
    assert!(
        got.trim_end() == want.trim_end(),
        "scan({input:?})\n--- got ---\n{got}--- want ---\n{want}\n"
    );
}

#[test]
fn glibc_undefined_symbol() {
    check(
        "ImportError: /x/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
        r#"
Exception { name: "ImportError", message: "/x/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi" } @ "ImportError: /x/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
UndefinedSymbol { library: Some("/x/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so"), symbol: "_ZN3c104cuda9SetDeviceEi", truncated: false, version_of: None } @ "/x/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
"#,
    );
}

#[test]
fn library_on_previous_line() {
    check(
        "ImportError: Failed to import dependencies for Unsloth backend:\n/opt/lib/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so:\nundefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib\n",
        r#"
Exception { name: "ImportError", message: "Failed to import dependencies for Unsloth backend:" } @ "ImportError: Failed to import dependencies for Unsloth backend:"
WrappedImportError { what: "dependencies for Unsloth backend" } @ "Failed to import dependencies for Unsloth backend:"
UndefinedSymbol { library: Some("/opt/lib/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so"), symbol: "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib", truncated: false, version_of: None } @ "/opt/lib/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so:\nundefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"
"#,
    );
}

#[test]
fn symbol_on_next_line() {
    check(
        "OSError: /x/libtorchaudio.so: undefined symbol:\n    _ZN3c104cuda9SetDeviceEi\n",
        r#"
Exception { name: "OSError", message: "/x/libtorchaudio.so: undefined symbol:" } @ "OSError: /x/libtorchaudio.so: undefined symbol:"
UndefinedSymbol { library: Some("/x/libtorchaudio.so"), symbol: "_ZN3c104cuda9SetDeviceEi", truncated: false, version_of: None } @ "/x/libtorchaudio.so: undefined symbol:\n    _ZN3c104cuda9SetDeviceEi"
"#,
    );
}

#[test]
fn mangled_name_wrapped() {
    check(
        "ImportError: /x/_C.so: undefined symbol: _ZN3c104cuda29c10_cuda_check_impl\nementationEiPKcS2_ib\nNext line\n",
        r#"
Exception { name: "ImportError", message: "/x/_C.so: undefined symbol: _ZN3c104cuda29c10_cuda_check_impl" } @ "ImportError: /x/_C.so: undefined symbol: _ZN3c104cuda29c10_cuda_check_impl"
UndefinedSymbol { library: Some("/x/_C.so"), symbol: "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib", truncated: false, version_of: None } @ "/x/_C.so: undefined symbol: _ZN3c104cuda29c10_cuda_check_impl\nementationEiPKcS2_ib"
"#,
    );
}

#[test]
fn truncated_symbol() {
    check(
        "ImportError: undefined symbol: _ZN2at4_ops10zeros_like4callERKNS_6TensorE...\n",
        r#"
Exception { name: "ImportError", message: "undefined symbol: _ZN2at4_ops10zeros_like4callERKNS_6TensorE..." } @ "ImportError: undefined symbol: _ZN2at4_ops10zeros_like4callERKNS_6TensorE..."
UndefinedSymbol { library: None, symbol: "_ZN2at4_ops10zeros_like4callERKNS_6TensorE", truncated: true, version_of: None } @ "undefined symbol: _ZN2at4_ops10zeros_like4callERKNS_6TensorE"
"#,
    );
}

#[test]
fn no_colon_form() {
    check(
        "ImportError: vllm/_C.abi3.so: undefined symbol _ZN5torch3jit17parseSchemaOrNameERKSsb\n",
        r#"
Exception { name: "ImportError", message: "vllm/_C.abi3.so: undefined symbol _ZN5torch3jit17parseSchemaOrNameERKSsb" } @ "ImportError: vllm/_C.abi3.so: undefined symbol _ZN5torch3jit17parseSchemaOrNameERKSsb"
UndefinedSymbol { library: Some("vllm/_C.abi3.so"), symbol: "_ZN5torch3jit17parseSchemaOrNameERKSsb", truncated: false, version_of: None } @ "vllm/_C.abi3.so: undefined symbol _ZN5torch3jit17parseSchemaOrNameERKSsb"
"#,
    );
}

#[test]
fn prose_is_not_a_symbol() {
    check(
        "The undefined symbols error means the \"undefined symbol\" was missing.\n",
        r#"
"#,
    );
}

#[test]
fn macos_symbol_not_found() {
    check(
        "ImportError: dlopen(/u/_torch_sox.cpython-37m-darwin.so, 2): Symbol not found: __ZN3c1011CPUTensorIdEv\n  Referenced from: /u/_torch_sox.cpython-37m-darwin.so\n",
        r#"
Exception { name: "ImportError", message: "dlopen(/u/_torch_sox.cpython-37m-darwin.so, 2): Symbol not found: __ZN3c1011CPUTensorIdEv" } @ "ImportError: dlopen(/u/_torch_sox.cpython-37m-darwin.so, 2): Symbol not found: __ZN3c1011CPUTensorIdEv"
UndefinedSymbol { library: Some("/u/_torch_sox.cpython-37m-darwin.so"), symbol: "_ZN3c1011CPUTensorIdEv", truncated: false, version_of: None } @ "/u/_torch_sox.cpython-37m-darwin.so, 2): Symbol not found: __ZN3c1011CPUTensorIdEv"
"#,
    );
}

/// A symbol expected in a library of macOS itself: a build for a newer macOS (dyld before and
/// since macOS 12, which quotes the paths and brackets the symbol).
#[test]
fn macos_system_symbol_not_found() {
    check(
        "ImportError: dlopen(/s/open3d.so, 2): Symbol not found: _objc_opt_class\n  Referenced from: /s/open3d.so (which was built for Mac OS X 10.15)\n  Expected in: /usr/lib/libobjc.A.dylib\n",
        r#"
Exception { name: "ImportError", message: "dlopen(/s/open3d.so, 2): Symbol not found: _objc_opt_class" } @ "ImportError: dlopen(/s/open3d.so, 2): Symbol not found: _objc_opt_class"
MacosSymbolMissing { library: Some("/s/open3d.so"), symbol: "objc_opt_class", system_library: "/usr/lib/libobjc.A.dylib", built_for: Some("10.15") } @ "/s/open3d.so, 2): Symbol not found: _objc_opt_class"
"#,
    );
    check(
        "ImportError: dlopen(/s/_C.so, 0x0002): Symbol not found: (_clock_gettime)\n  Referenced from: '/s/lib/libc10.dylib' (which was built for macOS 13.0)\n  Expected in: '/usr/lib/libSystem.B.dylib'\n",
        r#"
Exception { name: "ImportError", message: "dlopen(/s/_C.so, 0x0002): Symbol not found: (_clock_gettime)" } @ "ImportError: dlopen(/s/_C.so, 0x0002): Symbol not found: (_clock_gettime)"
MacosSymbolMissing { library: Some("/s/lib/libc10.dylib"), symbol: "clock_gettime", system_library: "/usr/lib/libSystem.B.dylib", built_for: Some("13.0") } @ "/s/_C.so, 0x0002): Symbol not found: (_clock_gettime"
"#,
    );
}

/// dyld since macOS 13: the image's UUID before each path, `built for macOS 14.0 which is newer
/// than running OS`.
#[test]
fn macos_system_symbol_with_image_uuids() {
    check(
        "ImportError: dlopen(/x/_C.so, 0x0002): Symbol not found: _clock_gettime\n  Referenced from: <83C6A1B2> /x/lib/libc10.dylib (built for macOS 14.0 which is newer than running OS)\n  Expected in:     <850F1111> /usr/lib/libSystem.B.dylib\n",
        r#"
Exception { name: "ImportError", message: "dlopen(/x/_C.so, 0x0002): Symbol not found: _clock_gettime" } @ "ImportError: dlopen(/x/_C.so, 0x0002): Symbol not found: _clock_gettime"
MacosSymbolMissing { library: Some("/x/lib/libc10.dylib"), symbol: "clock_gettime", system_library: "/usr/lib/libSystem.B.dylib", built_for: Some("14.0") } @ "/x/_C.so, 0x0002): Symbol not found: _clock_gettime"
"#,
    );
}

#[test]
fn repr_quoted_with_escaped_newline() {
    check(
        "2024-05-01 12:00:00,123 - WARNING - import failed: ImportError('/x/selective_scan_cuda.so:\\nundefined symbol: _ZN3c104cuda14ExchangeDeviceEa')\n",
        r#"
Exception { name: "ImportError", message: "/x/selective_scan_cuda.so:\nundefined symbol: _ZN3c104cuda14ExchangeDeviceEa" } @ "ImportError('/x/selective_scan_cuda.so:\\nundefined symbol: _ZN3c104cuda14ExchangeDeviceEa')"
UndefinedSymbol { library: Some("/x/selective_scan_cuda.so"), symbol: "_ZN3c104cuda14ExchangeDeviceEa", truncated: false, version_of: None } @ "/x/selective_scan_cuda.so:\\nundefined symbol: _ZN3c104cuda14ExchangeDeviceEa"
"#,
    );
}

#[test]
fn ansi_coloured_exception() {
    check(
        "\x1b[0;31mImportError\x1b[0m: /x/a.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
        r#"
Exception { name: "ImportError", message: "/x/a.so: undefined symbol: _ZN3c104cuda9SetDeviceEi" } @ "ImportError\u{1b}[0m: /x/a.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
UndefinedSymbol { library: Some("/x/a.so"), symbol: "_ZN3c104cuda9SetDeviceEi", truncated: false, version_of: None } @ "/x/a.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
"#,
    );
}

#[test]
fn vscode_anchor_frame() {
    check(
        "File \x1b[0;32m<a href='file:///opt/x/lora.py:17'>/opt/x/lora.py:17</a>\x1b[0m, in \x1b[0;36mtrain\x1b[0;34m(self)\x1b[0m\n",
        r#"
Frame { file: "/opt/x/lora.py", line: Some(17), function: Some("train") } @ "File \u{1b}[0;32m<a href='file:///opt/x/lora.py:17'>/opt/x/lora.py:17</a>\u{1b}[0m, in \u{1b}[0;36mtrain\u{1b}[0;34m(self)"
"#,
    );
}

#[test]
fn cpython_traceback_chained() {
    check(
        "Traceback (most recent call last):\n  File \"/x/a.py\", line 3, in <module>\n    import b\nModuleNotFoundError: No module named 'b'\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nRuntimeError: boom\n\nThe above exception was the direct cause of the following exception:\n",
        r#"
TracebackStart @ "Traceback (most recent call last)"
Frame { file: "/x/a.py", line: Some(3), function: Some("<module>") } @ "File \"/x/a.py\", line 3, in <module>"
Exception { name: "ModuleNotFoundError", message: "No module named 'b'" } @ "ModuleNotFoundError: No module named 'b'"
ChainedException @ "During handling of the above exception, another exception occurred:"
TracebackStart @ "Traceback (most recent call last)"
Frame { file: "<stdin>", line: Some(1), function: Some("<module>") } @ "File \"<stdin>\", line 1, in <module>"
Exception { name: "RuntimeError", message: "boom" } @ "RuntimeError: boom"
ChainedException @ "The above exception was the direct cause of the following exception:"
"#,
    );
}

#[test]
fn ipython_frames() {
    check(
        "Cell In[26], line 12\n---> 12 lora_sft(model_path=\"ibm-granite/granite-3.2-8b-instruct\")\nInput In [3], in <cell line: 1>()\n<ipython-input-1-4cf0a64f61c0> in <module>()\n~/repo/audio/torchaudio/__init__.py in <module>()\nFile ~/miniconda3/lib/python3.10/site-packages/unsloth/__init__.py:82\n",
        r#"
Frame { file: "Cell In[26]", line: Some(12), function: None } @ "Cell In[26], line 12"
FrameMarker { line: 12, code: "lora_sft(model_path=\"ibm-granite/granite-3.2-8b-instruct\")" } @ "---> 12 lora_sft(model_path=\"ibm-granite/granite-3.2-8b-instruct\")"
Model { id: "ibm-granite/granite-3.2-8b-instruct" } @ "ibm-granite/granite-3.2-8b-instruct"
Frame { file: "Input In [3]", line: None, function: Some("<cell line: 1>") } @ "Input In [3], in <cell line: 1>()"
Frame { file: "<ipython-input-1-4cf0a64f61c0>", line: None, function: Some("<module>") } @ "<ipython-input-1-4cf0a64f61c0> in <module>()"
Frame { file: "~/repo/audio/torchaudio/__init__.py", line: None, function: Some("<module>") } @ "~/repo/audio/torchaudio/__init__.py in <module>()"
Frame { file: "~/miniconda3/lib/python3.10/site-packages/unsloth/__init__.py", line: Some(82), function: None } @ "File ~/miniconda3/lib/python3.10/site-packages/unsloth/__init__.py:82"
"#,
    );
}

#[test]
fn pytest_and_prefixes() {
    check(
        "E   ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n[rank0]: OSError: libnccl.so.2: cannot open shared object file: No such file or directory\n> ImportError: /lib64/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /x/_C.so)\nWARNING:root:WARNING: /x/xformers/_C.so: undefined symbol: _ZNK3c104impl13OperatorEntry20reportSignatureErrorENS0_12CppSignatureE\n",
        r#"
Exception { name: "ImportError", message: "libcudart.so.12: cannot open shared object file: No such file or directory" } @ "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory"
MissingSharedLibrary { name: "libcudart.so.12", required_by: None } @ "libcudart.so.12: cannot open shared object file: No such file or directory"
Exception { name: "OSError", message: "libnccl.so.2: cannot open shared object file: No such file or directory" } @ "OSError: libnccl.so.2: cannot open shared object file: No such file or directory"
MissingSharedLibrary { name: "libnccl.so.2", required_by: None } @ "libnccl.so.2: cannot open shared object file: No such file or directory"
Exception { name: "ImportError", message: "/lib64/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /x/_C.so)" } @ "ImportError: /lib64/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /x/_C.so)"
VersionNotFound { library: "/lib64/libstdc++.so.6", version: "GLIBCXX_3.4.30", required_by: Some("/x/_C.so") } @ "/lib64/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /x/_C.so)"
UndefinedSymbol { library: Some("/x/xformers/_C.so"), symbol: "_ZNK3c104impl13OperatorEntry20reportSignatureErrorENS0_12CppSignatureE", truncated: false, version_of: None } @ "/x/xformers/_C.so: undefined symbol: _ZNK3c104impl13OperatorEntry20reportSignatureErrorENS0_12CppSignatureE"
"#,
    );
}

#[test]
fn transformers_wrapped() {
    check(
        "RuntimeError: Failed to import transformers.models.mamba.modeling_mamba because of the following error (look up to see its traceback):\n/x/selective_scan_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
        r#"
Exception { name: "RuntimeError", message: "Failed to import transformers.models.mamba.modeling_mamba because of the following error (look up to see its traceback):" } @ "RuntimeError: Failed to import transformers.models.mamba.modeling_mamba because of the following error (look up to see its traceback):"
WrappedImportError { what: "transformers.models.mamba.modeling_mamba" } @ "Failed to import transformers.models.mamba.modeling_mamba because of the following error (look up to see its traceback):"
UndefinedSymbol { library: Some("/x/selective_scan_cuda.so"), symbol: "_ZN3c104cuda9SetDeviceEi", truncated: false, version_of: None } @ "/x/selective_scan_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
"#,
    );
}

#[test]
fn suggested_command() {
    check(
        "Install LoRA dependencies with: pip install 'training-hub[lora]'\n$ pip install flash-attn\n",
        r#"
SuggestedCommand { command: "pip install 'training-hub[lora]'" } @ "pip install 'training-hub[lora]'"
UserPipInstall { command: "pip install flash-attn" } @ "pip install flash-attn"
"#,
    );
}

#[test]
fn pip_build_log() {
    check(
        "  Building wheel for xformers (setup.py) ... done\nRuntimeError: Error building extension 'fused_adam'\nCollecting flash-attn==2.5.6\n  Downloading flash_attn-2.5.6.tar.gz (2.5 MB)\n  Using cached bmtrain-0.1.8.post1.tar.gz (48 kB)\nBuilding wheels for collected packages: flash-attn\n  Building wheel for flash-attn (setup.py) ... error\n  error: subprocess-exited-with-error\n  Guessing wheel URL:  https://github.com/Dao-AILab/flash-attention/releases/download/v2.5.6/flash_attn-2.5.6+cu122torch2.2cxx11abiFALSE-cp310-cp310-linux_x86_64.whl\n  Precompiled wheel not found. Building from source...\n  ERROR: Failed building wheel for flash-attn\nFailed to build flash-attn\n",
        r#"
PipBuildingWheel { package: "xformers", built: true } @ "Building wheel for xformers (setup.py) ... done"
Exception { name: "RuntimeError", message: "Error building extension 'fused_adam'" } @ "RuntimeError: Error building extension 'fused_adam'"
JitBuildFailed { extension: "fused_adam" } @ "Error building extension 'fused_adam'"
PipCollecting { package: "flash-attn", version: Some("2.5.6") } @ "Collecting flash-attn==2.5.6"
Version { subject: "flash-attn", version: "2.5.6" } @ "flash-attn==2.5.6"
PipCollecting { package: "flash-attn", version: Some("2.5.6") } @ "Downloading flash_attn-2.5.6.tar.gz"
PipUsingCached { file: "bmtrain-0.1.8.post1.tar.gz" } @ "Using cached bmtrain-0.1.8.post1.tar.gz"
PipBuildingWheel { package: "flash-attn", built: false } @ "Building wheel for flash-attn (setup.py) ... error"
PipBuildFailed { package: Some("flash-attn") } @ "Building wheel for flash-attn (setup.py) ... error"
PipBuildFailed { package: Some("flash-attn") } @ "subprocess-exited-with-error"
GuessingWheelUrl { url: "https://github.com/Dao-AILab/flash-attention/releases/download/v2.5.6/flash_attn-2.5.6+cu122torch2.2cxx11abiFALSE-cp310-cp310-linux_x86_64.whl" } @ "Guessing wheel URL:  https://github.com/Dao-AILab/flash-attention/releases/download/v2.5.6/flash_attn-2.5.6+cu122torch2.2cxx11abiFALSE-cp310-cp310-linux_x86_64.whl"
Version { subject: "flash-attn", version: "2.5.6+cu122torch2.2cxx11abiFALSE" } @ "flash_attn-2.5.6+cu122torch2.2cxx11abiFALSE"
PrecompiledWheelNotFound @ "Precompiled wheel not found. Building from source..."
PipBuildFailed { package: Some("flash-attn") } @ "Failed building wheel for flash-attn"
PipBuildFailed { package: Some("flash-attn") } @ "Failed to build flash-attn"
"#,
    );
}

#[test]
fn build_isolation_pip() {
    check(
        "  × Getting requirements to build wheel did not run successfully.\n  │ exit code: 1\n  ╰─> [17 lines of output]\n      File \"/tmp/pip-build-env-x/overlay/lib/python3.11/site-packages/setuptools/build_meta.py\", line 325, in get_requires_for_build_wheel\n      File \"/tmp/pip-install-abc/mamba-ssm_0123456789abcdef0123456789abcdef/setup.py\", line 20, in <module>\n      ModuleNotFoundError: No module named 'torch'\n",
        r#"
BuildRequirementsFailed @ "Getting requirements to build wheel did not run successfully"
PipBuildFailed { package: Some("mamba-ssm") } @ "Getting requirements to build wheel did not run successfully"
Frame { file: "/tmp/pip-build-env-x/overlay/lib/python3.11/site-packages/setuptools/build_meta.py", line: Some(325), function: Some("get_requires_for_build_wheel") } @ "File \"/tmp/pip-build-env-x/overlay/lib/python3.11/site-packages/setuptools/build_meta.py\", line 325, in get_requires_for_build_wheel"
Frame { file: "/tmp/pip-install-abc/mamba-ssm_0123456789abcdef0123456789abcdef/setup.py", line: Some(20), function: Some("<module>") } @ "File \"/tmp/pip-install-abc/mamba-ssm_0123456789abcdef0123456789abcdef/setup.py\", line 20, in <module>"
Exception { name: "ModuleNotFoundError", message: "No module named 'torch'" } @ "ModuleNotFoundError: No module named 'torch'"
BuildIsolationNoTorch { package: Some("mamba-ssm") } @ "No module named 'torch'"
"#,
    );
}

#[test]
fn no_module_torch_outside_a_build() {
    check(
        ">>> import torch\nModuleNotFoundError: No module named 'torch'\n",
        r#"
Exception { name: "ModuleNotFoundError", message: "No module named 'torch'" } @ "ModuleNotFoundError: No module named 'torch'"
"#,
    );
}

#[test]
fn cuda_home_variants() {
    check(
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\nFileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'\nerror: [Errno 2] No such file or directory: '/usr/local/cuda-11.8:/bin/nvcc'\n/bin/sh: 1: nvcc: not found\n  File \"/tmp/pip-install-x/flash-attn_0123456789abcdef0123456789abcdef/setup.py\", line 117, in get_cuda_bare_metal_version\n",
        r#"
Exception { name: "OSError", message: "CUDA_HOME environment variable is not set. Please set it to your CUDA install root." } @ "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root."
CudaHomeMissing { detail: "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root." } @ "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root."
Exception { name: "FileNotFoundError", message: "[Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'" } @ "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'"
CudaHomeMissing { detail: "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'" } @ "FileNotFoundError: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'"
CudaHomeMissing { detail: "error: [Errno 2] No such file or directory: '/usr/local/cuda-11.8:/bin/nvcc'" } @ "error: [Errno 2] No such file or directory: '/usr/local/cuda-11.8:/bin/nvcc'"
CudaHomeMissing { detail: "/bin/sh: 1: nvcc: not found" } @ "/bin/sh: 1: nvcc: not found"
Frame { file: "/tmp/pip-install-x/flash-attn_0123456789abcdef0123456789abcdef/setup.py", line: Some(117), function: Some("get_cuda_bare_metal_version") } @ "File \"/tmp/pip-install-x/flash-attn_0123456789abcdef0123456789abcdef/setup.py\", line 117, in get_cuda_bare_metal_version"
CudaHomeMissing { detail: "File \"/tmp/pip-install-x/flash-attn_0123456789abcdef0123456789abcdef/setup.py\", line 117, in get_cuda_bare_metal_version" } @ "File \"/tmp/pip-install-x/flash-attn_0123456789abcdef0123456789abcdef/setup.py\", line 117, in get_cuda_bare_metal_version"
"#,
    );
}

#[test]
fn cuda_version_mismatch() {
    check(
        "RuntimeError:\n      The detected CUDA version (11.8) mismatches the version that was used to compile\n      PyTorch (12.4). Please make sure to use the same CUDA versions.\nRuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8. Please reinstall the torchvision that matches your PyTorch install.\n",
        r#"
Exception { name: "RuntimeError", message: "" } @ "RuntimeError:"
CudaVersionMismatch { found: Some("11.8"), expected: Some("12.4"), detail: "The detected CUDA version (11.8) mismatches the version that was used to compile PyTorch (12.4). Please make sure to use the same CUDA versions." } @ "The detected CUDA version (11.8) mismatches the version that was used to compile\n      PyTorch (12.4). Please make sure to use the same CUDA versions."
Exception { name: "RuntimeError", message: "Detected that PyTorch and torchvision were compiled with different CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8. Please reinstall the torchvision that matches your PyTorch install." } @ "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8. Please reinstall the torchvision that matches your PyTorch install."
CudaVersionMismatch { found: Some("11.8"), expected: Some("11.7"), detail: "Detected that PyTorch and torchvision were compiled with different CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8. Please reinstall the torchvision that matches your PyTorch install." } @ "Detected that PyTorch and torchvision were compiled with different CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8. Please reinstall the torchvision that matches your PyTorch install."
"#,
    );
}

#[test]
fn linker_and_compiler() {
    check(
        "/usr/bin/ld: cannot find -lcuda: No such file or directory\nRuntimeError: Failed to find C compiler. Please specify via CC environment variable.\n/bin/sh: 1: gcc: not found\nerror: command 'x86_64-linux-gnu-gcc' failed: No such file or directory\nFAILED: /tmp/build/temp.linux-x86_64-cpython-310/csrc/flash_attn/flash_api.o\nninja: build stopped: subcommand failed.\nlibcuda.so cannot found!\n",
        r#"
LinkerCannotFind { library: "cuda" } @ "/usr/bin/ld: cannot find -lcuda: No such file or directory"
Exception { name: "RuntimeError", message: "Failed to find C compiler. Please specify via CC environment variable." } @ "RuntimeError: Failed to find C compiler. Please specify via CC environment variable."
NoCompiler { detail: "RuntimeError: Failed to find C compiler. Please specify via CC environment variable." } @ "RuntimeError: Failed to find C compiler. Please specify via CC environment variable."
NoCompiler { detail: "/bin/sh: 1: gcc: not found" } @ "/bin/sh: 1: gcc: not found"
NoCompiler { detail: "error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory" } @ "error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory"
CompileFailed { detail: "FAILED: /tmp/build/temp.linux-x86_64-cpython-310/csrc/flash_attn/flash_api.o" } @ "FAILED: /tmp/build/temp.linux-x86_64-cpython-310/csrc/flash_attn/flash_api.o"
CompileFailed { detail: "ninja: build stopped: subcommand failed." } @ "ninja: build stopped: subcommand failed."
LibcudaNotFound { detail: "libcuda.so cannot found!" } @ "libcuda.so cannot found!"
"#,
    );
}

#[test]
fn warnings() {
    check(
        "The fast path is not available because one of `(selective_state_update, causal_conv1d_fn, causal_conv1d_update)` is None. Falling back to the naive implementation.\nWARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 2.2.0+cu121 with CUDA 1201 (you have 2.3.0+cu121)\n    Python  3.10.13 (you have 3.10.12)\n  Please reinstall xformers\nNeed to compile C++ extensions to get sparse attention support. Please run python setup.py build develop\nValueError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn seems to be not installed.\nRuntimeError: operator torchvision::nms does not exist\nRuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are incompatible\n",
        r#"
MambaFastPathUnavailable { model_class: None, kernel: None } @ "The fast path is not available because one of `(selective_state_update, causal_conv1d_fn, causal_conv1d_update)` is None. Falling back to the naive implementation."
XformersBuiltFor { built_torch: Some("2.2.0+cu121"), have_torch: Some("2.3.0+cu121"), built_cuda: Some("1201"), built_python: Some("3.10.13"), have_python: Some("3.10.12") } @ "xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 2.2.0+cu121 with CUDA 1201 (you have 2.3.0+cu121)\n    Python  3.10.13 (you have 3.10.12)"
XformersNeedCompile @ "Need to compile C++ extensions to get sparse attention support. Please run python setup.py build develop"
SuggestedCommand { command: "python setup.py build develop" } @ "python setup.py build develop"
Exception { name: "ValueError", message: "FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn seems to be not installed." } @ "ValueError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn seems to be not installed."
FlashAttnUnavailable { reason: "the package flash_attn seems to be not installed." } @ "FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn seems to be not installed."
Exception { name: "RuntimeError", message: "operator torchvision::nms does not exist" } @ "RuntimeError: operator torchvision::nms does not exist"
TorchOperatorMissing { operator: "torchvision::nms", cuda_backend: false } @ "operator torchvision::nms does not exist"
Exception { name: "RuntimeError", message: "Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are incompatible" } @ "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are incompatible"
CustomOpsNotLoadable { package: Some("torchvision") } @ "Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision versions are incompatible"
"#,
    );
}

#[test]
fn numpy_abi() {
    check(
        "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.2 as it may crash. To support both 1.x and 2.x\nValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject\nAttributeError: _ARRAY_API not found\nRuntimeError: module compiled against API version 0x10 but this version of numpy is 0xf\n",
        r#"
NumpyAbi { detail: "A module that was compiled using NumPy 1.x cannot be run in" } @ "A module that was compiled using NumPy 1.x cannot be run in"
Version { subject: "numpy", version: "2.0.2" } @ "NumPy 2.0.2"
Exception { name: "ValueError", message: "numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject" } @ "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject"
NumpyAbi { detail: "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject" } @ "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject"
Exception { name: "AttributeError", message: "_ARRAY_API not found" } @ "AttributeError: _ARRAY_API not found"
NumpyAbi { detail: "AttributeError: _ARRAY_API not found" } @ "AttributeError: _ARRAY_API not found"
Exception { name: "RuntimeError", message: "module compiled against API version 0x10 but this version of numpy is 0xf" } @ "RuntimeError: module compiled against API version 0x10 but this version of numpy is 0xf"
NumpyAbi { detail: "RuntimeError: module compiled against API version 0x10 but this version of numpy is 0xf" } @ "RuntimeError: module compiled against API version 0x10 but this version of numpy is 0xf"
"#,
    );
}

#[test]
fn cuda_oom_and_processes() {
    check(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 22.06 GiB of which 1.19 GiB is free. Process 1234 has 6.30 GiB memory in use. Process 5678 has 6.31 GiB memory in use.\n|    0   N/A  N/A     12345      C   python inference.py                          6302MiB |\n|    0      2211      G   /usr/lib/xorg/Xorg               4MiB |\n",
        r#"
Exception { name: "torch.OutOfMemoryError", message: "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 22.06 GiB of which 1.19 GiB is free. Process 1234 has 6.30 GiB memory in use. Process 5678 has 6.31 GiB memory in use." } @ "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 22.06 GiB of which 1.19 GiB is free. Process 1234 has 6.30 GiB memory in use. Process 5678 has 6.31 GiB memory in use."
CudaOom { tried: Some("2.00 GiB"), detail: "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 22.06 GiB of which 1.19 GiB is free. Process 1234 has 6.30 GiB memory in use. Process 5678 has 6.31 GiB memory in use." } @ "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 22.06 GiB of which 1.19 GiB is free. Process 1234 has 6.30 GiB memory in use. Process 5678 has 6.31 GiB memory in use."
GpuProcess { pid: 1234, memory: Some("6.30 GiB"), name: None } @ "Process 1234 has 6.30 GiB memory in use"
GpuProcess { pid: 5678, memory: Some("6.31 GiB"), name: None } @ "Process 5678 has 6.31 GiB memory in use"
GpuProcess { pid: 12345, memory: Some("6302MiB"), name: Some("python inference.py") } @ "|    0   N/A  N/A     12345      C   python inference.py                          6302MiB |"
GpuProcess { pid: 2211, memory: Some("4MiB"), name: Some("/usr/lib/xorg/Xorg") } @ "|    0      2211      G   /usr/lib/xorg/Xorg               4MiB |"
"#,
    );
}

#[test]
fn versions_and_models() {
    check(
        "PyTorch 2.5.1 | torch==2.2.2 | torch 2.10.0+cu128 | Python 3.11.13 | **PyTorch**: 2.2.2+cu121 | CUDA Version: 12.4 | torch 2.x | torch>=2.1\n  Downloading https://x/mamba_ssm-1.2.0.post1+cu118torch2.3cxx11abiFALSE-cp310-cp310-linux_x86_64.whl (137 kB)\nlabel: mamba_ssm-1.2.0.post1+cu118torch2.3cxx11abiFALSE\nmodel = AutoModel.from_pretrained(\"ibm-granite/granite-4.0-h-micro\")\nmodel_name = \"Qwen/Qwen3-4B-Instruct\"\npython serve.py --model meta-llama/Llama-3.1-8B --port 8000\nllm = LLM(model=\"mistralai/Mistral-7B-v0.1\")\nmodel_path = \"./checkpoints/final\"\n",
        r#"
Version { subject: "torch", version: "2.5.1" } @ "PyTorch 2.5.1"
Version { subject: "torch", version: "2.2.2" } @ "torch==2.2.2"
Version { subject: "torch", version: "2.10.0+cu128" } @ "torch 2.10.0+cu128"
Version { subject: "python", version: "3.11.13" } @ "Python 3.11.13"
Version { subject: "torch", version: "2.2.2+cu121" } @ "PyTorch**: 2.2.2+cu121"
Version { subject: "cuda", version: "12.4" } @ "CUDA Version: 12.4"
PipCollecting { package: "mamba-ssm", version: Some("1.2.0.post1+cu118torch2.3cxx11abiFALSE") } @ "Downloading https://x/mamba_ssm-1.2.0.post1+cu118torch2.3cxx11abiFALSE-cp310-cp310-linux_x86_64.whl"
Version { subject: "mamba-ssm", version: "1.2.0.post1+cu118torch2.3cxx11abiFALSE" } @ "mamba_ssm-1.2.0.post1+cu118torch2.3cxx11abiFALSE"
Version { subject: "mamba-ssm", version: "1.2.0.post1+cu118torch2.3cxx11abiFALSE" } @ "mamba_ssm-1.2.0.post1+cu118torch2.3cxx11abiFALSE"
Model { id: "ibm-granite/granite-4.0-h-micro" } @ "ibm-granite/granite-4.0-h-micro"
Model { id: "Qwen/Qwen3-4B-Instruct" } @ "Qwen/Qwen3-4B-Instruct"
Model { id: "meta-llama/Llama-3.1-8B" } @ "meta-llama/Llama-3.1-8B"
Model { id: "mistralai/Mistral-7B-v0.1" } @ "mistralai/Mistral-7B-v0.1"
"#,
    );
}

/// Environment lists in issue bodies: glued (`pytorch1.7.1`, `cuda10.1`), conda pins with one
/// `=`; a build flavour (`cuda11`, `torch2`) or a path (`/usr/local/cuda-12.1`, `libcuda.so.1`)
/// states no version.
#[test]
fn versions_in_environment_lists() {
    check(
        "pytorch1.7.1\ncuda10.1\npytorch==1.7.0\ncudatoolkit=10.2\nCUDA Version=11.7\nbuilt with cuda11 and torch2\n/usr/local/cuda-12.1/bin/nvcc\n/usr/lib/libcuda.so.1\n",
        r#"
Version { subject: "torch", version: "1.7.1" } @ "pytorch1.7.1"
Version { subject: "cuda", version: "10.1" } @ "cuda10.1"
Version { subject: "torch", version: "1.7.0" } @ "pytorch==1.7.0"
Version { subject: "cuda", version: "10.2" } @ "cudatoolkit=10.2"
"#,
    );
}

/// NumPy's removed names are NumPy's; a torch name another package imports is torch's Python API
/// of another release.
#[test]
fn numpy_names_missing() {
    check(
        "AttributeError: module 'numpy' has no attribute 'float'.\nImportError: cannot import name 'BUFSIZE' from 'numpy' (/x/numpy/__init__.py)\nAttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead.\nImportError: cannot import name 'x' from 'torch'\n",
        r#"
Exception { name: "AttributeError", message: "module 'numpy' has no attribute 'float'." } @ "AttributeError: module 'numpy' has no attribute 'float'."
NumpyNameMissing { name: "float" } @ "float"
Exception { name: "ImportError", message: "cannot import name 'BUFSIZE' from 'numpy' (/x/numpy/__init__.py)" } @ "ImportError: cannot import name 'BUFSIZE' from 'numpy' (/x/numpy/__init__.py)"
NumpyNameMissing { name: "BUFSIZE" } @ "BUFSIZE"
Exception { name: "AttributeError", message: "`np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead." } @ "AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead."
NumpyNameMissing { name: "float_" } @ "float_"
Version { subject: "numpy", version: "2.0" } @ "NumPy 2.0"
Exception { name: "ImportError", message: "cannot import name 'x' from 'torch'" } @ "ImportError: cannot import name 'x' from 'torch'"
ModuleAttributeMissing { module: "torch", attribute: "x" } @ "cannot import name 'x' from 'torch'"
"#,
    );
}

#[test]
fn pybind_incompatible_arguments() {
    check(
        "TypeError: causal_conv1d_fwd(): incompatible function arguments. The following argument types are supported:\n",
        r#"
Exception { name: "TypeError", message: "causal_conv1d_fwd(): incompatible function arguments. The following argument types are supported:" } @ "TypeError: causal_conv1d_fwd(): incompatible function arguments. The following argument types are supported:"
IncompatibleFunctionArguments { function: "causal_conv1d_fwd", module: None, passed: None, accepts: None } @ "causal_conv1d_fwd(): incompatible function arguments"
"#,
    );
    // The traceback's source line above names the compiled module the call went through and
    // what it passed; pybind11's listing below, what the binary takes.
    check(
        "    conv1d_out = causal_conv1d_cuda.causal_conv1d_fwd(x, conv1d_weight, conv1d_bias, None, True)\nTypeError: causal_conv1d_fwd(): incompatible function arguments. The following argument types are supported:\n    1. (arg0: torch.Tensor, arg1: torch.Tensor, arg2: Optional[torch.Tensor], arg3: Optional[torch.Tensor], arg4: Optional[\ntorch.Tensor], arg5: Optional[torch.Tensor], arg6: bool) -> torch.Tensor\n",
        r#"
Exception { name: "TypeError", message: "causal_conv1d_fwd(): incompatible function arguments. The following argument types are supported:" } @ "TypeError: causal_conv1d_fwd(): incompatible function arguments. The following argument types are supported:"
IncompatibleFunctionArguments { function: "causal_conv1d_fwd", module: Some("causal_conv1d_cuda"), passed: Some(5), accepts: Some(7) } @ "causal_conv1d_fwd(): incompatible function arguments"
"#,
    );
}

#[test]
fn repeated_lines_each_count() {
    check(
        "x.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\nx.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\nx.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n",
        r#"
UndefinedSymbol { library: Some("x.so"), symbol: "_ZN3c104cuda9SetDeviceEi", truncated: false, version_of: None } @ "x.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
UndefinedSymbol { library: Some("x.so"), symbol: "_ZN3c104cuda9SetDeviceEi", truncated: false, version_of: None } @ "x.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
UndefinedSymbol { library: Some("x.so"), symbol: "_ZN3c104cuda9SetDeviceEi", truncated: false, version_of: None } @ "x.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
"#,
    );
}

#[test]
fn crlf_and_no_trailing_newline() {
    check(
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\r\nTraceback (most recent call last):",
        r#"
Exception { name: "ImportError", message: "libcudart.so.11.0: cannot open shared object file: No such file or directory" } @ "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"
MissingSharedLibrary { name: "libcudart.so.11.0", required_by: None } @ "libcudart.so.11.0: cannot open shared object file: No such file or directory"
TracebackStart @ "Traceback (most recent call last)"
"#,
    );
}

#[test]
fn uv_build_isolation_hint() {
    check(
        "  × Failed to build `flash-attn==2.8.3`\n  ├─▶ The build backend returned an error\n  ╰─▶ Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)\n      ModuleNotFoundError: No module named 'torch'\n      hint: This usually indicates a problem with the package or the build environment.\n  help: `flash-attn` (v2.8.3) was included because `myproj` depends on `flash-attn`\n",
        r#"
PipBuildFailed { package: Some("flash-attn") } @ "Failed to build `flash-attn==2.8.3`"
Version { subject: "flash-attn", version: "2.8.3" } @ "flash-attn==2.8.3"
Exception { name: "ModuleNotFoundError", message: "No module named 'torch'" } @ "ModuleNotFoundError: No module named 'torch'"
BuildIsolationNoTorch { package: Some("flash-attn") } @ "No module named 'torch'"
"#,
    );
}

#[test]
fn versioned_symbol_names_its_provider() {
    check(
        "ImportError: /x/site-packages/vllm/_C.abi3.so: undefined symbol: cudaGetDriverEntryPointByVersion, version libcudart.so.12\n",
        r#"
Exception { name: "ImportError", message: "/x/site-packages/vllm/_C.abi3.so: undefined symbol: cudaGetDriverEntryPointByVersion, version libcudart.so.12" } @ "ImportError: /x/site-packages/vllm/_C.abi3.so: undefined symbol: cudaGetDriverEntryPointByVersion, version libcudart.so.12"
UndefinedSymbol { library: Some("/x/site-packages/vllm/_C.abi3.so"), symbol: "cudaGetDriverEntryPointByVersion", truncated: false, version_of: Some("libcudart.so.12") } @ "/x/site-packages/vllm/_C.abi3.so: undefined symbol: cudaGetDriverEntryPointByVersion"
"#,
    );
}

#[test]
fn demangled_symbol_is_read_whole() {
    check(
        "OSError: /x/site-packages/ext/_C.so: undefined symbol: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)\n",
        r#"
Exception { name: "OSError", message: "/x/site-packages/ext/_C.so: undefined symbol: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)" } @ "OSError: /x/site-packages/ext/_C.so: undefined symbol: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)"
UndefinedSymbol { library: Some("/x/site-packages/ext/_C.so"), symbol: "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)", truncated: false, version_of: None } @ "/x/site-packages/ext/_C.so: undefined symbol: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)"
"#,
    );
}

#[test]
fn rocm_missing_code_object_is_its_own_form() {
    check(
        "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\n",
        r#"
GpuArchMissing { form: Rocm, gpu: None, capability: None, supported: [], range: None, detail: "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"" } @ "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\""
"#,
    );
}

#[test]
fn triton_refusal_is_its_own_form() {
    check(
        "RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1\n",
        r#"
Exception { name: "RuntimeError", message: "Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1" } @ "RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1"
GpuArchMissing { form: TritonTooOld, gpu: Some("NVIDIA GeForce GTX 1080 Ti"), capability: Some("6.1"), supported: [], range: Some(("7.0", None)), detail: "RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1" } @ "RuntimeError: Found NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1"
"#,
    );
}

/// A terminal's wrap inside the quoted version: the two halves are one version.
#[test]
fn version_wrapped_inside_quotes() {
    let got = render(
        "ImportError: /usr/lib/x86_64-linux-gnu/libc.so.6: version `GLI\nBC_2.32' not found\n",
    );
    assert!(
        got.contains("VersionNotFound { library: \"/usr/lib/x86_64-linux-gnu/libc.so.6\", version: \"GLIBC_2.32\", required_by: None }"),
        "{got}"
    );
}

#[test]
fn pip_requirement_conflict() {
    check(
        "xformers 0.0.26.post1 requires torch==2.3.0, but you have torch 2.2.1+cu121 which is incompatible.\n",
        r#"
Version { subject: "xformers", version: "0.0.26.post1" } @ "xformers 0.0.26.post1"
PipRequirementConflict { package: "xformers", version: "0.0.26.post1", requires: "torch", requirement: "==2.3.0", have: "2.2.1+cu121" } @ "xformers 0.0.26.post1 requires torch==2.3.0, but you have torch 2.2.1+cu121 which is incompatible."
Version { subject: "torch", version: "2.3.0" } @ "torch==2.3.0"
Version { subject: "torch", version: "2.2.1+cu121" } @ "torch 2.2.1+cu121"
"#,
    );
    // A range, and words where a version should be: the first is read as written, the second not.
    check(
        "flashinfer-python 0.2.0 requires torch<2.6,>=2.5, but you have torch 2.4.0 which is incompatible.\nfoo 1.0 requires torch==2.3.0, but you have torch $(id) which is incompatible.\n",
        r#"
PipRequirementConflict { package: "flashinfer-python", version: "0.2.0", requires: "torch", requirement: "<2.6,>=2.5", have: "2.4.0" } @ "flashinfer-python 0.2.0 requires torch<2.6,>=2.5, but you have torch 2.4.0 which is incompatible."
Version { subject: "torch", version: "2.4.0" } @ "torch 2.4.0"
Version { subject: "torch", version: "2.3.0" } @ "torch==2.3.0"
"#,
    );
}
