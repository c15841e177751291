#!/usr/bin/env python3
"""Step 1 of the torch symbol index: collect exported dynamic symbols per PyPI torch release.

For each release it downloads the Linux x86_64 wheel with pip, reads only `torch/lib/*.so*`
straight from the zip, parses the ELF `.dynsym`/`.dynstr` with `struct`, and writes
`<work>/releases/<version>.syms.gz` (lines `library<TAB>symbol`) plus `<version>.json` (metadata,
written last so it doubles as the "done" marker). The wheel is deleted right after, so at most one
wheel is on disk at a time. Re-running skips releases whose `.json` exists (resumable).

Usage:
    python3 tools/torch-index/collect.py [--work DIR] [--only 2.3.1,2.4.1] [--subset] [--list]

`--subset` does the newest patch of each minor release first and stops; running again without it
fills in the rest.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

DEFAULT_WORK = os.path.expanduser("~/.cache/abidoc-torch-index")

# Only libraries built from the torch tree. Bundled third-party runtimes (libgomp, libcudnn,
# libnvrtc, libcublas in old wheels, ...) are not part of torch's ABI.
TORCH_LIB = re.compile(r"^torch/lib/(lib(?:c10|torch|shm|caffe2)[A-Za-z0-9_.-]*\.so(?:\.[0-9.]+)?)$")

PLATFORMS = ["manylinux_2_28_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64"]
PYTHONS = ["3.11", "3.10", "3.12", "3.13"]


def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S"), msg, flush=True)


def pypi_versions() -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "torch"],
        capture_output=True, text=True, check=True,
    ).stdout
    m = re.search(r"Available versions:\s*(.*)", out)
    if not m:
        raise SystemExit(f"cannot parse `pip index versions torch` output:\n{out}")
    vs = [v.strip() for v in m.group(1).split(",")]
    vs = [v for v in vs if re.fullmatch(r"\d+\.\d+\.\d+", v) and vkey(v) >= (2, 0, 0)]
    return sorted(vs, key=vkey)


def vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def newest_patch_per_minor(vs: list[str]) -> list[str]:
    best: dict[tuple[int, int], str] = {}
    for v in vs:
        k = vkey(v)[:2]
        if k not in best or vkey(v) > vkey(best[k]):
            best[k] = v
    return sorted(best.values(), key=vkey)


def download(version: str, dest: str) -> tuple[str, str]:
    last = ""
    for py in PYTHONS:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir",
               "--progress-bar", "off", f"torch=={version}", "--python-version", py,
               "--only-binary=:all:", "-d", dest]
        for p in PLATFORMS:
            cmd += ["--platform", p]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            wheels = [f for f in os.listdir(dest) if f.endswith(".whl")]
            if wheels:
                return os.path.join(dest, wheels[0]), py
        last = r.stdout[-2000:] + r.stderr[-2000:]
    raise RuntimeError(f"no wheel for torch=={version}: {last}")


SHDR = struct.Struct("<IIQQQQIIQQ")
SYM = struct.Struct("<IBBHQQ")
SHT_DYNSYM = 11
STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 1, 2, 10


def exported_symbols(data: bytes) -> list[str]:
    """Defined, global/weak, default/protected-visibility dynamic symbols of an ELF64 LE file."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [SHDR.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    out = []
    for sh in sections:
        if sh[1] != SHT_DYNSYM:
            continue
        off, size, link = sh[4], sh[5], sh[6]
        strtab = sections[link]
        stroff = strtab[4]
        for st_name, info, other, shndx, _value, _size in SYM.iter_unpack(data[off:off + size]):
            if shndx == 0 or st_name == 0:
                continue
            if (info >> 4) not in (STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE):
                continue
            if (other & 3) not in (0, 3):
                continue
            start = stroff + st_name
            end = data.index(b"\0", start)
            out.append(data[start:end].decode("utf-8", "replace"))
    return out


def cxx11_c10_symbol(sym: str) -> bool:
    """A c10 function whose signature names `std::__cxx11::` types: the library was built with
    `_GLIBCXX_USE_CXX11_ABI=1`. Old-ABI builds still export weak `std::__cxx11::basic_string`
    instantiations, so a bare `St7__cxx11` anywhere in libc10 proves nothing."""
    return sym.startswith(("_ZN3c10", "_ZNK3c10")) and "7__cxx11" in sym


def cuda_of(zf: zipfile.ZipFile) -> str | None:
    try:
        text = zf.read("torch/version.py").decode("utf-8", "replace")
    except KeyError:
        return None
    m = re.search(r"^cuda\s*(?::[^=]*)?=\s*['\"]([^'\"]*)['\"]", text, re.M)
    return m.group(1) if m else None


def collect(version: str, work: str) -> None:
    rel_dir = os.path.join(work, "releases")
    os.makedirs(rel_dir, exist_ok=True)
    meta_path = os.path.join(rel_dir, f"{version}.json")
    if os.path.exists(meta_path):
        log(f"{version}: already done")
        return
    tmp = tempfile.mkdtemp(prefix=f"torch-{version}-", dir=work)
    try:
        t0 = time.time()
        wheel, py = download(version, tmp)
        t1 = time.time()
        size = os.path.getsize(wheel)
        log(f"{version}: downloaded {os.path.basename(wheel)} {size / 1e6:.0f} MB "
            f"in {t1 - t0:.0f} s ({size / 1e6 / max(t1 - t0, 0.001):.1f} MB/s)")
        libs: dict[str, int] = {}
        cxx11 = False
        syms_tmp = os.path.join(rel_dir, f"{version}.syms.gz.part")
        with zipfile.ZipFile(wheel) as zf, gzip.open(syms_tmp, "wt", compresslevel=6) as out:
            cuda = cuda_of(zf)
            for name in sorted(zf.namelist()):
                m = TORCH_LIB.match(name)
                if not m:
                    continue
                lib = m.group(1)
                syms = exported_symbols(zf.read(name))
                libs[lib] = len(syms)
                if lib.startswith("libc10.so") and any(cxx11_c10_symbol(s) for s in syms):
                    cxx11 = True
                for s in syms:
                    out.write(f"{lib}\t{s}\n")
        t2 = time.time()
        os.replace(syms_tmp, os.path.join(rel_dir, f"{version}.syms.gz"))
        meta = {
            "version": version,
            "wheel": os.path.basename(wheel),
            "python": py,
            "wheel_bytes": size,
            "cuda": cuda,
            "cxx11_abi": cxx11,
            "libraries": libs,
            "download_seconds": round(t1 - t0, 1),
            "parse_seconds": round(t2 - t1, 1),
        }
        with open(meta_path + ".part", "w") as f:
            json.dump(meta, f, indent=1, sort_keys=True)
        os.replace(meta_path + ".part", meta_path)
        log(f"{version}: cuda={cuda} cxx11={cxx11} libs={libs} parse {t2 - t1:.0f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default=DEFAULT_WORK)
    ap.add_argument("--only", help="comma-separated versions")
    ap.add_argument("--subset", action="store_true", help="newest patch per minor only")
    ap.add_argument("--list", action="store_true", help="print the plan and exit")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.only:
        plan = args.only.split(",")
    else:
        allv = pypi_versions()
        subset = newest_patch_per_minor(allv)
        plan = subset if args.subset else subset + [v for v in allv if v not in subset]
    if args.list:
        print("\n".join(plan))
        return
    failed = []
    for v in plan:
        try:
            collect(v, args.work)
        except Exception as e:  # keep going: one broken release must not stop the rest
            log(f"{v}: FAILED {e}")
            failed.append(v)
    log(f"done; failed: {failed}")


if __name__ == "__main__":
    main()
