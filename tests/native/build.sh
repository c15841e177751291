#!/usr/bin/env bash
# Builds tiny real shared libraries that reproduce each extension-loading failure abidoc diagnoses,
# laid out as fake Python environments. Usage: tests/native/build.sh OUTDIR
# Needs only bash, cc, c++, ld and coreutils. Idempotent: OUTDIR's generated subdirectories are
# rebuilt from scratch on every run. See tests/native/README.md for every scenario and its verdict.
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi

CC=${CC:-cc}
CXX=${CXX:-c++}
for tool in "$CC" "$CXX" ld sha256sum xxd base64; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "error: $0 needs '$tool' on PATH to build the native test fixtures" >&2
        exit 1
    fi
done

mkdir -p "$1"
OUT=$(cd "$1" && pwd)
rm -rf "$OUT/site-packages" "$OUT/abi0" "$OUT/context" "$OUT/hostile" "$OUT/build"
SP="$OUT/site-packages"
B="$OUT/build"
SRC="$B/src"
mkdir -p "$SP" "$B" "$SRC" "$OUT/hostile"

# --no-as-needed: keep every linked torch library in DT_NEEDED, as torch.utils.cpp_extension builds do.
CXXFLAGS=(-shared -fPIC -O1 -Wl,--no-as-needed)

cxx() { # cxx ABI OUTPUT [args...]: compile C++ sources into a shared library with that C++11 ABI
    local abi=$1 out=$2
    shift 2
    "$CXX" "${CXXFLAGS[@]}" -D_GLIBCXX_USE_CXX11_ABI="$abi" -o "$out" "$@"
}

# ---------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------

# The subset of torch's C++ API the fixtures use, with torch 2.10's real signatures.
cat >"$SRC/torch_api.h" <<'EOF'
#pragma once
#include <string>
#include <optional>
namespace c10 {
struct SourceLocation { const char* function; const char* file; unsigned int line; };
class Error {
 public:
  Error(SourceLocation source_location, std::string msg);
  virtual ~Error();
  std::string msg_;
};
struct Device {
  signed char type_;
  signed char index_;
  std::string str() const;
};
enum class ScalarType : signed char { Float = 6 };
namespace detail {
[[noreturn]] void torchCheckFail(const char* func, const char* file, unsigned int line, const std::string& msg);
[[noreturn]] void torchCheckFail(const char* func, const char* file, unsigned int line, const char* msg);
}  // namespace detail
namespace cuda {
void c10_cuda_check_implementation(int err, const char* filename, const char* function_name,
                                   unsigned int line_number, bool include_device_assertions);
signed char ExchangeDevice(signed char device);
signed char MaybeExchangeDevice(signed char device);
void SetDevice(signed char device, bool force);
int warp_size();
}  // namespace cuda
}  // namespace c10
namespace at {
class TensorBase { public: void* impl_; };
class Tensor : public TensorBase {};
namespace _ops {
struct sum { static Tensor call(const Tensor& self, std::optional<c10::ScalarType> dtype); };
}  // namespace _ops
}  // namespace at
struct _object;
_object* THPVariable_Wrap(const at::TensorBase& var);
EOF

cat >"$SRC/c10.cpp" <<'EOF'
#include "torch_api.h"
namespace c10 {
Error::Error(SourceLocation source_location, std::string msg) : msg_(std::move(msg)) { (void)source_location; }
Error::~Error() {}
std::string Device::str() const { return index_ < 0 ? "cpu" : "cuda"; }
namespace detail {
void torchCheckFail(const char* func, const char* file, unsigned int line, const std::string& msg) {
  throw Error(SourceLocation{func, file, line}, msg);
}
void torchCheckFail(const char* func, const char* file, unsigned int line, const char* msg) {
  throw Error(SourceLocation{func, file, line}, std::string(msg));
}
}  // namespace detail
}  // namespace c10
EOF

cat >"$SRC/c10_cuda.cpp" <<'EOF'
#include "torch_api.h"
namespace c10 {
namespace cuda {
static signed char current_device = 0;
void c10_cuda_check_implementation(int err, const char* filename, const char* function_name,
                                   unsigned int line_number, bool include_device_assertions) {
  if (err != 0 && include_device_assertions) detail::torchCheckFail(function_name, filename, line_number, "CUDA error");
}
signed char ExchangeDevice(signed char device) { signed char old = current_device; current_device = device; return old; }
signed char MaybeExchangeDevice(signed char device) { return ExchangeDevice(device); }
void SetDevice(signed char device, bool force) { if (force || device != current_device) current_device = device; }
int warp_size() { return 32; }
}  // namespace cuda
}  // namespace c10
EOF

cat >"$SRC/torch_cpu.cpp" <<'EOF'
#include "torch_api.h"
namespace at {
namespace _ops {
Tensor sum::call(const Tensor& self, std::optional<c10::ScalarType> dtype) {
  if (!dtype) c10::detail::torchCheckFail("sum", __FILE__, __LINE__, "dtype");
  return self;
}
}  // namespace _ops
}  // namespace at
// Real libtorch_cpu is ~430 MB: past 1 MiB abidoc maps a library instead of reading it, and keeps
// its export names in the mapping. This blob (kept, not exported) makes the fixture take that path.
__attribute__((used)) static const unsigned char abidoc_fixture_bulk[3 << 19] = {1};
EOF

cat >"$SRC/torch_python.cpp" <<'EOF'
#include "torch_api.h"
// The interpreter provides these to every extension module; libtorch_python leaves them undefined.
extern "C" void PyErr_SetString(_object* type, const char* message);
extern "C" _object* PyExc_RuntimeError;
_object* THPVariable_Wrap(const at::TensorBase& var) {
  if (var.impl_ == nullptr) PyErr_SetString(PyExc_RuntimeError, "undefined tensor");
  return nullptr;
}
EOF

# mamba-ssm 2.3.0 wheels were compiled against torch 2.5, whose check function took `int line_number`.
cat >"$SRC/selective_scan.cpp" <<'EOF'
#include "torch_api.h"
namespace c10 { namespace cuda {
void c10_cuda_check_implementation(int err, const char* filename, const char* function_name,
                                   int line_number, bool include_device_assertions);
} }
extern "C" void* PyModule_Create2(void* def, int api);
extern "C" void* PyInit_selective_scan_cuda() {
  signed char old = c10::cuda::ExchangeDevice(0);
  c10::cuda::c10_cuda_check_implementation(0, __FILE__, __func__, __LINE__, true);
  c10::cuda::ExchangeDevice(old);
  if (old > 8) throw c10::Error(c10::SourceLocation{__func__, __FILE__, __LINE__}, "device");
  return PyModule_Create2(nullptr, 1013);
}
EOF

# flash-attn: uses std::string across the torch boundary, so the C++11 ABI flag decides the names.
cat >"$SRC/flash_attn.cpp" <<'EOF'
#include "torch_api.h"
extern "C" void* PyModule_Create2(void* def, int api);
extern "C" void* PyInit_flash_attn_2_cuda() {
  c10::Device d{1, 0};
  std::string s = d.str();
  c10::cuda::c10_cuda_check_implementation(0, __FILE__, __func__, __LINE__, true);
  if (s.empty()) c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, s);
  if (s.size() > 100) c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, "long");
  if (s.size() > 50) throw c10::Error(c10::SourceLocation{__func__, __FILE__, __LINE__}, s);
  return PyModule_Create2(nullptr, 1013);
}
EOF

# apex built against torch < 2.4, where at::_ops took c10::optional (its own class template).
cat >"$SRC/fused_layer_norm.cpp" <<'EOF'
// torch < 2.4 headers: c10::optional was c10's own class template.
namespace c10 {
template <class T> class optional { public: T value_; bool has_; };
enum class ScalarType : signed char { Float = 6 };
}  // namespace c10
namespace at {
class TensorBase { public: void* impl_; };
class Tensor : public TensorBase {};
namespace _ops {
struct sum { static Tensor call(const Tensor& self, c10::optional<c10::ScalarType> dtype); };
}  // namespace _ops
}  // namespace at
extern "C" void* PyModule_Create2(void* def, int api);
extern "C" void* PyInit_fused_layer_norm_cuda() {
  at::Tensor t{};
  at::_ops::sum::call(t, c10::optional<c10::ScalarType>{c10::ScalarType::Float, true});
  return PyModule_Create2(nullptr, 1013);
}
EOF

cat >"$SRC/causal_conv1d.cpp" <<'EOF'
#include "torch_api.h"
extern "C" int cudaGetDevice(int* device);
extern "C" void* PyModule_Create2(void* def, int api);
extern "C" void* PyInit_causal_conv1d_cuda() {
  int dev = 0;
  c10::cuda::c10_cuda_check_implementation(cudaGetDevice(&dev), __FILE__, __func__, __LINE__, true);
  return PyModule_Create2(nullptr, 1013);
}
EOF

cat >"$SRC/cudart.c" <<'EOF'
int cudaGetDevice(int* device) { *device = 0; return 0; }
EOF

# Two fake libstdc++.so.6: the "new" one the extension was linked against defines GLIBCXX_3.4.99,
# the "old" one the loader will find (through the extension's RUNPATH) stops at GLIBCXX_3.4.29.
cat >"$SRC/stdcxx_new.c" <<'EOF'
void glibcxx_old_feature(void) {}
void glibcxx_new_feature(void) __asm__("_ZSt21__glibcxx_assert_failPKciS0_S0_");
void glibcxx_new_feature(void) {}
EOF
cat >"$SRC/stdcxx_new.map" <<'EOF'
GLIBCXX_3.4 { global: glibcxx_old_feature; local: *; };
GLIBCXX_3.4.29 { } GLIBCXX_3.4;
GLIBCXX_3.4.99 { global: _ZSt21__glibcxx_assert_failPKciS0_S0_; } GLIBCXX_3.4.29;
EOF
cat >"$SRC/stdcxx_old.c" <<'EOF'
void glibcxx_old_feature(void) {}
EOF
cat >"$SRC/stdcxx_old.map" <<'EOF'
GLIBCXX_3.4 { global: glibcxx_old_feature; local: *; };
GLIBCXX_3.4.29 { } GLIBCXX_3.4;
EOF
cat >"$SRC/youtokentome.c" <<'EOF'
void glibcxx_old_feature(void);
void glibcxx_new_feature(void) __asm__("_ZSt21__glibcxx_assert_failPKciS0_S0_");
void* PyModule_Create2(void* def, int api);
void* PyInit__youtokentome_cython(void) {
  glibcxx_old_feature();
  glibcxx_new_feature();
  return PyModule_Create2(0, 1013);
}
EOF

# vllm built without the sm100 CUTLASS MoE kernel: its own symbol is referenced but never defined.
cat >"$SRC/vllm_C.cpp" <<'EOF'
#include "torch_api.h"
void cutlass_moe_mm_sm100(at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const at::Tensor& a_scales,
                          const at::Tensor& b_scales, const at::Tensor& expert_offsets, const at::Tensor& problem_sizes,
                          const at::Tensor& a_strides, const at::Tensor& b_strides, const at::Tensor& c_strides,
                          bool per_act_token, bool per_out_ch);
void cutlass_moe_mm_sm90(at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const at::Tensor& a_scales,
                         const at::Tensor& b_scales, const at::Tensor& expert_offsets, const at::Tensor& problem_sizes,
                         const at::Tensor& a_strides, const at::Tensor& b_strides, const at::Tensor& c_strides,
                         bool per_act_token, bool per_out_ch) {
  if (per_act_token && per_out_ch) c10::cuda::SetDevice(0, false);
  (void)out; (void)a; (void)b; (void)a_scales; (void)b_scales; (void)expert_offsets;
  (void)problem_sizes; (void)a_strides; (void)b_strides; (void)c_strides;
}
void cutlass_moe_mm(at::Tensor& out, const at::Tensor& a, bool sm100) {
  if (sm100) cutlass_moe_mm_sm100(out, a, a, a, a, a, a, a, a, a, true, true);
  else cutlass_moe_mm_sm90(out, a, a, a, a, a, a, a, a, a, true, true);
}
extern "C" void* PyModule_Create2(void* def, int api);
extern "C" void* PyInit__C() { return PyModule_Create2(nullptr, 1013); }
EOF

# torch-scatter: resolves only inside a Python process that ran `import torch` first: Py* symbols
# come from the interpreter, THPVariable_Wrap from libtorch_python.so (not in its DT_NEEDED).
# abidoc_optional_hook is a weak reference that is never defined anywhere.
cat >"$SRC/scatter.cpp" <<'EOF'
#include "torch_api.h"
extern "C" void* PyModule_Create2(void* def, int api);
extern "C" void PyErr_SetString(_object* type, const char* message);
extern "C" _object* PyExc_RuntimeError;
extern "C" void abidoc_optional_hook(void) __attribute__((weak));
extern "C" void* PyInit__scatter_cuda() {
  at::Tensor t{};
  if (abidoc_optional_hook) abidoc_optional_hook();
  if (THPVariable_Wrap(t) == nullptr) PyErr_SetString(PyExc_RuntimeError, "scatter");
  return PyModule_Create2(nullptr, 1013);
}
EOF

cat >"$SRC/good_ext.cpp" <<'EOF'
#include "torch_api.h"
extern "C" void* PyModule_Create2(void* def, int api);
extern "C" void abidoc_optional_hook(void) __attribute__((weak));
extern "C" void* PyInit__C() {
  at::Tensor t{};
  at::_ops::sum::call(t, c10::ScalarType::Float);
  c10::cuda::SetDevice(c10::cuda::MaybeExchangeDevice(0), false);
  c10::cuda::c10_cuda_check_implementation(0, __FILE__, __func__, __LINE__, true);
  if (abidoc_optional_hook) abidoc_optional_hook();
  if (c10::cuda::warp_size() != 32) c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, std::string("warp"));
  return PyModule_Create2(nullptr, 1013);
}
EOF

# ---------------------------------------------------------------------------------------------
# Python metadata helpers
# ---------------------------------------------------------------------------------------------

record_line() { # record_line SITE_PACKAGES RELPATH: one RECORD row with the wheel-style hash
    local sp=$1 rel=$2 hash size
    hash=$(sha256sum "$sp/$rel" | cut -d' ' -f1 | xxd -r -p | base64 | tr '+/' '-_' | tr -d '=')
    size=$(wc -c <"$sp/$rel" | tr -d ' ')
    printf '%s,sha256=%s,%s\n' "$rel" "$hash" "$size"
}

# dist_info SITE_PACKAGES NAME VERSION REQUIRES DIRECT_URL FILE... : writes NAME-VERSION.dist-info
# REQUIRES is newline-separated Requires-Dist values; DIRECT_URL is a wheel URL or empty.
dist_info() {
    local sp=$1 name=$2 version=$3 requires=$4 url=$5
    shift 5
    local di="${name//-/_}-$version.dist-info"
    mkdir -p "$sp/$di"
    {
        printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: abidoc native test fixture\n' "$name" "$version"
        if [[ -n $requires ]]; then
            while IFS= read -r req; do printf 'Requires-Dist: %s\n' "$req"; done <<<"$requires"
        fi
    } >"$sp/$di/METADATA"
    printf 'pip\n' >"$sp/$di/INSTALLER"
    printf 'Wheel-Version: 1.0\nGenerator: abidoc-fixtures\nRoot-Is-Purelib: false\nTag: cp312-cp312-linux_x86_64\n' >"$sp/$di/WHEEL"
    local files=("$di/METADATA" "$di/INSTALLER" "$di/WHEEL")
    if [[ -n $url ]]; then
        printf '{"archive_info": {}, "url": "%s"}\n' "$url" >"$sp/$di/direct_url.json"
        files+=("$di/direct_url.json")
    fi
    {
        local f
        for f in "$@" "${files[@]}"; do record_line "$sp" "$f"; done
        printf '%s/RECORD,,\n' "$di"
    } >"$sp/$di/RECORD"
}

# ---------------------------------------------------------------------------------------------
# Fake torch (TORCH_ABI is the C++11 ABI flag it is built with)
# ---------------------------------------------------------------------------------------------

build_torch() { # build_torch SITE_PACKAGES ABI VERSION CUDA
    local sp=$1 abi=$2 version=$3 cuda=$4
    local lib="$sp/torch/lib"
    mkdir -p "$lib"
    cxx "$abi" "$lib/libc10.so" -Wl,-soname,libc10.so "$SRC/c10.cpp"
    cxx "$abi" "$lib/libc10_cuda.so" -Wl,-soname,libc10_cuda.so "$SRC/c10_cuda.cpp" -L"$lib" -lc10 -Wl,-rpath,'$ORIGIN'
    cxx "$abi" "$lib/libtorch_cpu.so" -Wl,-soname,libtorch_cpu.so "$SRC/torch_cpu.cpp" -L"$lib" -lc10 -Wl,-rpath,'$ORIGIN'
    cxx "$abi" "$lib/libtorch_python.so" -Wl,-soname,libtorch_python.so "$SRC/torch_python.cpp" \
        -L"$lib" -ltorch_cpu -lc10 -Wl,-rpath,'$ORIGIN'
    cat >"$sp/torch/__init__.py" <<EOF
# abidoc fixture: a fake torch whose libraries export torch's real C++ symbol names.
from .version import __version__
EOF
    cat >"$sp/torch/version.py" <<EOF
from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
__version__ = '$version'
debug = False
cuda: Optional[str] = '$cuda'
git_version = '0000000000000000000000000000000000000000'
hip: Optional[str] = None
xpu: Optional[str] = None
EOF
    dist_info "$sp" torch "$version" $'filelock\ntyping-extensions>=4.10.0\nsympy>=1.13.3\nnetworkx>=2.5.1\njinja2\nfsspec>=0.8.5' "" \
        torch/__init__.py torch/version.py torch/lib/libc10.so torch/lib/libc10_cuda.so \
        torch/lib/libtorch_cpu.so torch/lib/libtorch_python.so
}

# Extensions link torch's libraries without RUNPATH, like real ones: `import torch` preloads them.
ext_cxx() { # ext_cxx SITE_PACKAGES ABI OUTPUT SOURCE [extra args...]
    local sp=$1 abi=$2 out=$3 src=$4
    shift 4
    mkdir -p "$(dirname "$sp/$out")"
    cxx "$abi" "$sp/$out" "$src" -L"$sp/torch/lib" "$@"
}

# ---------------------------------------------------------------------------------------------
# Main environment: torch 2.10.0+cu128, built with the C++11 ABI (as on PyPI since 2.7)
# ---------------------------------------------------------------------------------------------

build_torch "$SP" 1 '2.10.0+cu128' '12.8'

# signature-changed
ext_cxx "$SP" 1 selective_scan_cuda.cpython-312-x86_64-linux-gnu.so "$SRC/selective_scan.cpp" -lc10 -lc10_cuda -ltorch_cpu
dist_info "$SP" mamba_ssm 2.3.0 $'torch\ntriton\nninja\neinops\ntransformers\npackaging\nsetuptools>=61.0.0' \
    "https://github.com/state-spaces/mamba/releases/download/v2.3.0/mamba_ssm-2.3.0+cu12torch2.5cxx11abiTRUE-cp312-cp312-linux_x86_64.whl" \
    selective_scan_cuda.cpython-312-x86_64-linux-gnu.so

# cxx11-abi: torch uses ABI=1, this flash-attn wheel was built with ABI=0
ext_cxx "$SP" 0 flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so "$SRC/flash_attn.cpp" -lc10 -lc10_cuda
mkdir -p "$SP/flash_attn"
printf '__version__ = "2.8.3"\n' >"$SP/flash_attn/__init__.py"
dist_info "$SP" flash_attn 2.8.3 $'torch\neinops' \
    "https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/flash_attn-2.8.3+cu12torch2.10cxx11abiFALSE-cp312-cp312-linux_x86_64.whl" \
    flash_attn/__init__.py flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so

# signature-changed through c10::optional -> std::optional
ext_cxx "$SP" 1 fused_layer_norm_cuda.cpython-312-x86_64-linux-gnu.so "$SRC/fused_layer_norm.cpp" -lc10 -ltorch_cpu
dist_info "$SP" apex 0.1 "" "" fused_layer_norm_cuda.cpython-312-x86_64-linux-gnu.so

# missing DT_NEEDED library: linked against a libcudart.so.12 that is not installed anywhere
mkdir -p "$B/cudart"
"$CC" -shared -fPIC -o "$B/cudart/libcudart.so.12" -Wl,-soname,libcudart.so.12 "$SRC/cudart.c"
ext_cxx "$SP" 1 causal_conv1d_cuda.cpython-312-x86_64-linux-gnu.so "$SRC/causal_conv1d.cpp" \
    -lc10 -lc10_cuda -L"$B/cudart" -l:libcudart.so.12
dist_info "$SP" causal_conv1d 1.5.2 $'torch\npackaging\nninja' "" causal_conv1d_cuda.cpython-312-x86_64-linux-gnu.so

# version-missing: linked against a libstdc++ defining GLIBCXX_3.4.99, loads the old one via RUNPATH
mkdir -p "$B/stdcxx_new" "$SP/youtokentome.libs"
"$CC" -shared -fPIC -o "$B/stdcxx_new/libstdc++.so.6" -Wl,-soname,libstdc++.so.6 \
    -Wl,--version-script,"$SRC/stdcxx_new.map" "$SRC/stdcxx_new.c"
"$CC" -shared -fPIC -o "$SP/youtokentome.libs/libstdc++.so.6" -Wl,-soname,libstdc++.so.6 \
    -Wl,--version-script,"$SRC/stdcxx_old.map" "$SRC/stdcxx_old.c"
"$CC" -shared -fPIC -o "$SP/_youtokentome_cython.cpython-312-x86_64-linux-gnu.so" "$SRC/youtokentome.c" \
    -L"$B/stdcxx_new" -l:libstdc++.so.6 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/youtokentome.libs'
mkdir -p "$SP/youtokentome"
printf 'from _youtokentome_cython import *\n' >"$SP/youtokentome/__init__.py"
dist_info "$SP" youtokentome 1.0.6 "click>=7.0" "" youtokentome/__init__.py \
    _youtokentome_cython.cpython-312-x86_64-linux-gnu.so youtokentome.libs/libstdc++.so.6

# extension-incomplete-build: vllm's own kernel symbol is undefined
ext_cxx "$SP" 1 vllm/_C.abi3.so "$SRC/vllm_C.cpp" -lc10 -lc10_cuda -ltorch_cpu
printf '__version__ = "0.11.0"\n' >"$SP/vllm/__init__.py"
dist_info "$SP" vllm 0.11.0 $'torch==2.8.0\ntransformers>=4.56.0\nxformers==0.0.32.post1' "" \
    vllm/__init__.py vllm/_C.abi3.so

# resolves only in a Python process after `import torch` (must NOT be flagged)
ext_cxx "$SP" 1 torch_scatter/_scatter_cuda.so "$SRC/scatter.cpp" -lc10 -ltorch_cpu
printf 'import torch\n' >"$SP/torch_scatter/__init__.py"
dist_info "$SP" torch_scatter 2.1.2 "" "" torch_scatter/__init__.py torch_scatter/_scatter_cuda.so

# loads fine (weak undefined reference included)
ext_cxx "$SP" 1 good_ext/_C.cpython-312-x86_64-linux-gnu.so "$SRC/good_ext.cpp" -lc10 -lc10_cuda -ltorch_cpu
printf 'import torch\nfrom . import _C\n' >"$SP/good_ext/__init__.py"
dist_info "$SP" good_ext 1.0.0 "torch>=2.10" "" good_ext/__init__.py good_ext/_C.cpython-312-x86_64-linux-gnu.so

# ---------------------------------------------------------------------------------------------
# Second environment: torch 2.5.1 built with the pre-C++11 ABI, flash-attn built with ABI=1
# ---------------------------------------------------------------------------------------------

SP0="$OUT/abi0/site-packages"
mkdir -p "$SP0"
build_torch "$SP0" 0 '2.5.1+cu124' '12.4'
ext_cxx "$SP0" 1 flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so "$SRC/flash_attn.cpp" -lc10 -lc10_cuda
mkdir -p "$SP0/flash_attn"
printf '__version__ = "2.8.3"\n' >"$SP0/flash_attn/__init__.py"
dist_info "$SP0" flash_attn 2.8.3 $'torch\neinops' \
    "https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/flash_attn-2.8.3+cu12torch2.5cxx11abiTRUE-cp312-cp312-linux_x86_64.whl" \
    flash_attn/__init__.py flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so

# ---------------------------------------------------------------------------------------------
# Environment "mixed": torch 2.5.1 (pre-C++11 ABI), and an extension built with the C++11 ABI that
# also needs a libcudart.so.12 installed nowhere: ld.so stops at the missing library, and the torch
# symbols it would meet next are of the other ABI (providing the library alone would not load it)
# ---------------------------------------------------------------------------------------------

SPM="$OUT/mixed/site-packages"
mkdir -p "$SPM"
build_torch "$SPM" 0 '2.5.1+cu124' '12.4'
ext_cxx "$SPM" 1 mixed_ext/_C.cpython-312-x86_64-linux-gnu.so "$SRC/flash_attn.cpp" -lc10 -lc10_cuda \
    -L"$B/cudart" -l:libcudart.so.12
dist_info "$SPM" mixed_ext 1.0.0 "torch" "" mixed_ext/_C.cpython-312-x86_64-linux-gnu.so

# ---------------------------------------------------------------------------------------------
# Third environment: libraries that fail alone but not in an import (judged in context)
# ---------------------------------------------------------------------------------------------

SPC="$OUT/context/site-packages"
mkdir -p "$SPC"
build_torch "$SPC" 1 '2.10.0+cu128' '12.8'
csrc() { # csrc NAME BODY: a one-line C source
    printf '%s\n' "$2" >"$SRC/$1.c"
}
# auditwheel-style: the extension's DT_RPATH (inherited by what it loads) points at the grafted
# .libs directory, whose libraries have no search path of their own.
mkdir -p "$SPC/gridlike" "$SPC/gridlike.libs"
csrc inner 'int inner_fn(void) { return 1; }'
csrc dep 'int inner_fn(void); int dep_fn(void) { return inner_fn(); }'
csrc grid 'int dep_fn(void); void* PyInit__grid(void) { return (void*)(long)dep_fn(); }'
"$CC" -shared -fPIC -o "$SPC/gridlike.libs/libinner-5f3a.so.1" -Wl,-soname,libinner-5f3a.so.1 "$SRC/inner.c"
"$CC" -shared -fPIC -o "$SPC/gridlike.libs/libdep-9c2e.so.1" -Wl,-soname,libdep-9c2e.so.1 "$SRC/dep.c" \
    -L"$SPC/gridlike.libs" -l:libinner-5f3a.so.1
"$CC" -shared -fPIC -o "$SPC/gridlike/_grid.cpython-312-x86_64-linux-gnu.so" "$SRC/grid.c" \
    -L"$SPC/gridlike.libs" -l:libdep-9c2e.so.1 -Wl,--disable-new-dtags,-rpath,'$ORIGIN/../gridlike.libs'
printf 'from . import _grid\n' >"$SPC/gridlike/__init__.py"
dist_info "$SPC" gridlike 1.0 "" "" gridlike/__init__.py gridlike/_grid.cpython-312-x86_64-linux-gnu.so \
    gridlike.libs/libdep-9c2e.so.1 gridlike.libs/libinner-5f3a.so.1
# torchaudio-style: the extension has no search path; the package loads its sibling library
# first (the loader then finds it by SONAME among the loaded objects).
mkdir -p "$SPC/audiolike/lib"
csrc core 'int core_fn(void) { return 2; }'
csrc audio 'int core_fn(void); void* PyInit__audio(void) { return (void*)(long)core_fn(); }'
"$CC" -shared -fPIC -o "$SPC/audiolike/lib/libaudiocore.so" -Wl,-soname,libaudiocore.so "$SRC/core.c"
"$CC" -shared -fPIC -o "$SPC/audiolike/lib/_audio.so" "$SRC/audio.c" -L"$SPC/audiolike/lib" -laudiocore
printf '%s\n' 'import ctypes, os' \
    'ctypes.CDLL(os.path.join(os.path.dirname(__file__), "lib", "libaudiocore.so"))' \
    'from .lib import _audio' >"$SPC/audiolike/__init__.py"
dist_info "$SPC" audiolike 1.0 "" "" audiolike/__init__.py audiolike/lib/libaudiocore.so audiolike/lib/_audio.so
# The same layout without the preload (only a longer name is mentioned): the import really
# fails, and stays an error.
mkdir -p "$SPC/plainlike/lib"
csrc plaincore 'int plain_fn(void) { return 3; }'
csrc plain 'int plain_fn(void); void* PyInit__plain(void) { return (void*)(long)plain_fn(); }'
"$CC" -shared -fPIC -o "$SPC/plainlike/lib/libplaincore.so" -Wl,-soname,libplaincore.so "$SRC/plaincore.c"
"$CC" -shared -fPIC -o "$SPC/plainlike/lib/_plain.so" "$SRC/plain.c" -L"$SPC/plainlike/lib" -lplaincore
printf '%s\n' '# libplaincore_extra is loaded lazily elsewhere' 'from .lib import _plain' >"$SPC/plainlike/__init__.py"
dist_info "$SPC" plainlike 1.0 "" "" plainlike/__init__.py plainlike/lib/libplaincore.so plainlike/lib/_plain.so

# ---------------------------------------------------------------------------------------------
# Hostile files: every reader must answer with a per-file problem, never panic or hang
# ---------------------------------------------------------------------------------------------

H="$OUT/hostile"
: >"$H/empty.so"
head -c 64 "$SP/torch/lib/libc10.so" >"$H/truncated_header.so"
size=$(wc -c <"$SP/torch/lib/libc10.so" | tr -d ' ')
head -c $((size / 2)) "$SP/torch/lib/libc10.so" >"$H/truncated_half.so"
# 4 KiB of deterministic pseudo-random bytes (xorshift), no ELF magic
{
    x=2463534242
    for ((i = 0; i < 1024; i++)); do
        x=$(((x ^ (x << 13)) & 0xffffffff))
        x=$(((x ^ (x >> 17)) & 0xffffffff))
        x=$(((x ^ (x << 5)) & 0xffffffff))
        printf '%08x' "$x"
    done
} | xxd -r -p >"$H/random.so"
# e_shnum = 0xffff and e_shoff near the end of the address space
cp "$SP/torch/lib/libc10.so" "$H/absurd_sections.so"
printf '\xf0\xff\xff\xff\xff\xff\xff\x7f' | dd of="$H/absurd_sections.so" bs=1 seek=40 conv=notrunc status=none
printf '\xff\xff' | dd of="$H/absurd_sections.so" bs=1 seek=60 conv=notrunc status=none
# a valid x86-64 library relabelled as AArch64 (e_machine = 183)
cp "$SP/torch/lib/libc10.so" "$H/wrong_arch.so"
printf '\xb7\x00' | dd of="$H/wrong_arch.so" bs=1 seek=18 conv=notrunc status=none
# Mach-O 64-bit header magic followed by zeros
{ printf '\xcf\xfa\xed\xfe\x07\x00\x00\x01'; head -c 56 /dev/zero; } >"$H/macho.so"
ln -s loop_b.so "$H/loop_a.so"
ln -s loop_a.so "$H/loop_b.so"
# ELF32 (i386) shared library, when the toolchain can produce one
if printf 'int abidoc_elf32(void) { return 32; }\n' | "$CC" -m32 -fPIC -c -x c - -o "$B/elf32.o" 2>/dev/null &&
    ld -m elf_i386 -shared -soname libelf32.so "$B/elf32.o" -o "$H/libelf32.so" 2>/dev/null; then
    :
else
    echo "note: no 32-bit toolchain, skipped hostile/libelf32.so" >&2
fi

# Two libraries told apart by PT_GNU_STACK alone: one asking for an executable stack (as
# assembly built without .note.GNU-stack does; glibc 2.41+ refuses to dlopen it), one not.
mkdir -p "$B/execstack"
printf 'int abidoc_stack(void) { return 1; }\n' >"$SRC/stack.c"
"$CC" -shared -fPIC -Wl,-z,execstack -o "$B/execstack/libexecstack.so" "$SRC/stack.c"
"$CC" -shared -fPIC -Wl,-z,noexecstack -o "$B/execstack/libnoexecstack.so" "$SRC/stack.c"

# Two stand-in interpreters whose C library is glibc 2.41 and 2.40 by its version definitions
# (never run: the loader model reads which libc.so.6 the interpreter's RUNPATH gives), for the
# executable-stack check.
for v in 2.41 2.40; do
    d="$B/fakepy-$v"
    mkdir -p "$d/lib" "$d/bin"
    printf 'GLIBC_%s { global: abidoc_glibc_marker; local: *; };\n' "$v" >"$d/libc.map"
    printf 'int abidoc_glibc_marker(void) { return 0; }\n' >"$SRC/fakelibc.c"
    "$CC" -shared -fPIC -nostdlib -Wl,-soname,libc.so.6 -Wl,--version-script="$d/libc.map" \
        -o "$d/lib/libc.so.6" "$SRC/fakelibc.c"
    printf 'int abidoc_glibc_marker(void);\nvoid _start(void) { abidoc_glibc_marker(); for (;;) {} }\n' >"$SRC/fakepy.c"
    "$CC" -nostdlib -o "$d/bin/python3" "$SRC/fakepy.c" -L"$d/lib" -l:libc.so.6 \
        -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../lib'
done

echo "abidoc native fixtures built in $OUT"
