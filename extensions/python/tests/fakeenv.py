"""Builds, with the system C++ compiler, a site-packages dir that reproduces the mamba-ssm field report.

``torch/lib/libc10.so`` exports ``c10::cuda::c10_cuda_check_implementation(int, char const*,
char const*, unsigned int, bool)`` (torch 2.10), while ``selective_scan_cuda`` (mamba-ssm 2.3.0)
was "built against" the older ``(..., int, bool)`` signature, so importing it fails with
``undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib`` exactly as in the
seed report. The directory is a real layout (dist-info with METADATA and a RECORD that hashes
every file) and is never installed into the test environment: the notebook adds it to
``sys.path`` itself.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

MISSING_SYMBOL = "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"
EXPORTED_SYMBOL = "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_jb"
TORCH_VERSION = "2.10.0+cu128"

LIBC10_CPP = r"""
// torch 2.10's c10: the line number became unsigned.
namespace c10 { namespace cuda {
__attribute__((visibility("default")))
void c10_cuda_check_implementation(int err, const char* file, const char* func, unsigned int line, bool assertions) {
    (void)err; (void)file; (void)func; (void)line; (void)assertions;
}
}}
"""

EXT_CPP_PYTHON_H = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
// Declared as the older torch headers did: `int line`.
namespace c10 { namespace cuda {
void c10_cuda_check_implementation(int, const char*, const char*, int, bool);
}}
static PyObject* fwd(PyObject*, PyObject*) {
    c10::cuda::c10_cuda_check_implementation(0, __FILE__, "fwd", __LINE__, false);
    Py_RETURN_NONE;
}
static PyMethodDef methods[] = {{"fwd", fwd, METH_NOARGS, "selective scan forward"}, {nullptr, nullptr, 0, nullptr}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "selective_scan_cuda", nullptr, -1, methods};
PyMODINIT_FUNC PyInit_selective_scan_cuda(void) { return PyModule_Create(&module); }
"""

# Used only when the interpreter has no headers (a distribution python without -dev): the
# import fails in the dynamic loader before the init function runs, so its body does not matter.
EXT_CPP_NO_HEADERS = r"""
namespace c10 { namespace cuda {
void c10_cuda_check_implementation(int, const char*, const char*, int, bool);
}}
extern "C" __attribute__((visibility("default"))) void* PyInit_selective_scan_cuda(void) {
    c10::cuda::c10_cuda_check_implementation(0, __FILE__, "init", __LINE__, false);
    return nullptr;
}
"""


@dataclass
class FakeSite:
    root: Path
    extension: Path
    libc10: Path


def _compiler() -> str:
    for name in (os.environ.get("CXX", ""), "c++", "g++", "clang++"):
        if name and shutil.which(name):
            return name
    raise RuntimeError("no C++ compiler (c++, g++ or clang++) on PATH")


def _run(argv: List[str]) -> None:
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{proc.stdout}{proc.stderr}")


def _record_line(root: Path, path: Path) -> str:
    data = path.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path.relative_to(root).as_posix()},sha256={digest},{len(data)}"


def _dist_info(
    root: Path, name: str, version: str, metadata_extra: str, files: List[Path], top_level: List[str]
) -> None:
    info = root / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{metadata_extra}", encoding="utf-8"
    )
    (info / "WHEEL").write_text(
        "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.45.1)\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n",
        encoding="utf-8",
    )
    (info / "INSTALLER").write_text("pip\n", encoding="utf-8")
    (info / "top_level.txt").write_text("".join(f"{t}\n" for t in top_level), encoding="utf-8")
    listed = files + [info / "METADATA", info / "WHEEL", info / "INSTALLER", info / "top_level.txt"]
    lines = [_record_line(root, p) for p in listed]
    lines.append(f"{name}-{version}.dist-info/RECORD,,")
    (info / "RECORD").write_text("\n".join(lines) + "\n", encoding="utf-8")


def build_fake_site(root: Path) -> FakeSite:
    """Compile both libraries and lay them out as a site-packages directory under ``root``."""
    cxx = _compiler()
    site = root / "site-packages"
    build = root / "build"
    torch_lib = site / "torch" / "lib"
    torch_lib.mkdir(parents=True)
    build.mkdir(parents=True)

    c10_src = build / "c10.cpp"
    c10_src.write_text(LIBC10_CPP, encoding="utf-8")
    libc10 = torch_lib / "libc10.so"
    _run([cxx, "-shared", "-fPIC", "-O1", "-Wl,-soname,libc10.so", str(c10_src), "-o", str(libc10)])

    include = sysconfig.get_paths().get("include", "")
    has_headers = bool(include) and (Path(include) / "Python.h").is_file()
    ext_src = build / "selective_scan.cpp"
    ext_src.write_text(EXT_CPP_PYTHON_H if has_headers else EXT_CPP_NO_HEADERS, encoding="utf-8")
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    extension = site / f"selective_scan_cuda{suffix}"
    argv = [cxx, "-shared", "-fPIC", "-O1", str(ext_src), "-o", str(extension)]
    if has_headers:
        argv.insert(1, f"-I{include}")
    # DT_NEEDED libc10.so found through a DT_RPATH of $ORIGIN/torch/lib, as torch extensions
    # that link torch's libraries end up with.
    argv += [f"-L{torch_lib}", "-Wl,--no-as-needed", "-lc10", "-Wl,--disable-new-dtags", "-Wl,-rpath,$ORIGIN/torch/lib"]
    _run(argv)

    torch_dir = site / "torch"
    (torch_dir / "__init__.py").write_text(
        'raise ImportError("this torch is a test fixture made of one library, not PyTorch")\n', encoding="utf-8"
    )
    (torch_dir / "version.py").write_text(
        f"__version__ = '{TORCH_VERSION}'\ndebug = False\ncuda = '12.8'\n"
        "git_version = '0000000000000000000000000000000000000000'\nhip = None\n",
        encoding="utf-8",
    )
    _dist_info(
        site,
        "torch",
        TORCH_VERSION,
        "Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration\n"
        "Requires-Dist: filelock\nRequires-Dist: typing-extensions>=4.10.0\n",
        [torch_dir / "__init__.py", torch_dir / "version.py", libc10],
        ["torch"],
    )

    mamba_dir = site / "mamba_ssm"
    mamba_dir.mkdir()
    (mamba_dir / "__init__.py").write_text('__version__ = "2.3.0"\n', encoding="utf-8")
    _dist_info(
        site,
        "mamba_ssm",
        "2.3.0",
        "Summary: Mamba state-space model\nRequires-Dist: torch\nRequires-Dist: triton\n"
        "Requires-Dist: ninja\nRequires-Dist: einops\nRequires-Dist: transformers\n"
        "Requires-Dist: packaging\nRequires-Dist: setuptools>=61.0.0\n",
        [mamba_dir / "__init__.py", extension],
        ["mamba_ssm", "selective_scan_cuda"],
    )
    return FakeSite(root=site, extension=extension, libc10=libc10)


def dynamic_symbols(path: Path) -> Dict[str, List[str]]:
    """``nm -D`` of ``path`` as {"defined": [...], "undefined": [...]}, for fixture sanity checks."""
    proc = subprocess.run(["nm", "-D", str(path)], capture_output=True, text=True, check=True)
    out: Dict[str, List[str]] = {"defined": [], "undefined": []}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            out["undefined"].append(parts[1])
        elif len(parts) == 3 and parts[1] in ("T", "W"):
            out["defined"].append(parts[2])
    return out
