"""Builds real wheels for the verify tests: a torch extension compiled here against the fake torch
of ``fakeenv``, zipped with its dist-info (METADATA, WHEEL, a RECORD of real hashes) as pip
expects; and the real loader's verdict on such a wheel once extracted, to referee ``verify``.
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict

from fakeenv import _compiler, _run

# `c10_cuda_check_implementation`'s line number: torch 2.10 (the fake torch) takes `unsigned int`,
# older torch took `int`. The extension declares it as the torch it was "built against" did.
EXT_CPP = r"""
namespace c10 { namespace cuda {
void c10_cuda_check_implementation(int, const char*, const char*, LINE_TYPE, bool);
}}
extern "C" __attribute__((visibility("default"))) void* PyInit__C(void) {
    c10::cuda::c10_cuda_check_implementation(0, __FILE__, "init", __LINE__, false);
    return nullptr;
}
"""

#: Built against torch 2.10's signature: loads against the fake torch.
CURRENT = "unsigned int"
#: Built against the signature before torch 2.10: does not load against the fake torch.
OLDER = "int"


def _record_hash(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(out_dir: Path, name: str, line_type: str, torch_lib: Path) -> Path:
    """``NAME-1.0.0-py3-none-linux_x86_64.whl`` holding ``NAME/_C.so`` linked to ``libc10.so``."""
    build = out_dir / f"{name}-build"
    build.mkdir(parents=True, exist_ok=True)
    src = build / "ext.cpp"
    src.write_text(EXT_CPP.replace("LINE_TYPE", line_type), encoding="utf-8")
    so = build / "_C.so"
    # Linked as torch extensions are: DT_NEEDED libc10.so, found in torch/lib once installed.
    link = [f"-L{torch_lib}", "-Wl,--no-as-needed", "-lc10"]
    _run([_compiler(), "-shared", "-fPIC", "-O1", str(src), "-o", str(so), *link])
    files: Dict[str, bytes] = {
        f"{name}/__init__.py": b"from . import _C\n",
        f"{name}/_C.so": so.read_bytes(),
    }
    info = f"{name}-1.0.0.dist-info"
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0.0\nRequires-Dist: torch\n".encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: abidoc-tests\nRoot-Is-Purelib: false\nTag: py3-none-linux_x86_64\n"
    )
    record = "".join(f"{k},sha256={_record_hash(v)},{len(v)}\n" for k, v in sorted(files.items()))
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    wheel = out_dir / f"{name}-1.0.0-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for key in sorted(files):
            z.writestr(key, files[key])
    return wheel


_LOAD = r"""
import ctypes, os, sys, zipfile
wheel, site, torch_lib, name = sys.argv[1:5]
zipfile.ZipFile(wheel).extractall(site)
# torch's libraries first, as `import torch` leaves them, then the extension as CPython imports it.
ctypes.CDLL(os.path.join(torch_lib, "libc10.so"), mode=os.RTLD_NOW | os.RTLD_GLOBAL)
try:
    ctypes.CDLL(os.path.join(site, name, "_C.so"), mode=os.RTLD_NOW | os.RTLD_LOCAL)
except OSError as e:
    print(e)
    sys.exit(1)
"""


def loader_verdict(wheel: Path, site: Path, torch_lib: Path, name: str) -> subprocess.CompletedProcess:
    """Extract ``wheel`` into ``site`` as pip would and load its extension with the real loader."""
    return subprocess.run(
        [sys.executable, "-c", _LOAD, str(wheel), str(site), str(torch_lib), name],
        capture_output=True,
        text=True,
        timeout=60,
    )
