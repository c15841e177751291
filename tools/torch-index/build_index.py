#!/usr/bin/env python3
"""Step 2 of the torch symbol index: merge the per-release symbol lists written by collect.py into
the compact index that `abidoc-knowledge` embeds (`server/knowledge/data/torch_index/`).

Keeps only symbols an extension can reference: C++ symbols in the torch namespaces (c10, at, torch,
caffe2, c10d; functions, data, vtables and typeinfo), global-namespace `TH*` C++ functions and the
`THP*` / `aoti_torch_*` C API. Drops std:: instantiations, anonymous-namespace symbols and anything
from bundled third-party code (MKL, magma, sleef, onnx, gloo, cutlass, ...).

Output (`torch_symbols.bin.zst`, zstd-compressed; all integers LEB128 varints, strings are a varint
length then UTF-8 bytes):

    magic "ABTI", varint format=1
    varint n_releases, then per release: str version, u8 cxx11_abi, str cuda ("" = CPU build)
    varint n_libraries, then per library: str file name
    varint n_symbols, varint block (restart interval of the front coding)
    n_symbols x (varint shared_prefix_len, varint suffix_len, suffix bytes)   sorted, front-coded;
                                                                             shared=0 at i%block==0
    n_symbols x varint release mask   bit i = release i (oldest first) exports the symbol
    n_symbols x varint library mask   bit j = library j exports it in some release

Also writes `releases.json` (per-release metadata: wheel, size, CUDA, C++ ABI, timings) beside it.

Usage: python3 tools/torch-index/build_index.py [--work DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from collect import DEFAULT_WORK, cxx11_c10_symbol, vkey  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_OUT = os.path.join(REPO, "server", "knowledge", "data", "torch_index")
BLOCK = 16

NS = r"(?:3c10|4c10d|2at|5torch|6caffe2)"
KEEP = re.compile(
    r"^(?:"
    rf"_ZN[rVK]*[RO]?{NS}"          # functions and data in the torch namespaces
    rf"|_ZT[VIST]N{NS}"             # vtables, VTTs, typeinfo, typeinfo names of torch classes
    r"|_Z\d+TH"                     # global-namespace THP*/THC* C++ helpers (THPVariable_Wrap, ...)
    r"|THP|aoti_torch_|torch_"      # C API of libtorch_python and the AOTInductor shim
    r")"
)


def keep(sym: str) -> bool:
    return bool(KEEP.match(sym)) and "_GLOBAL__N" not in sym


def varint(n: int, out: bytearray) -> None:
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def put_str(s: str, out: bytearray) -> None:
    b = s.encode()
    varint(len(b), out)
    out += b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default=DEFAULT_WORK)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--level", default="19")
    args = ap.parse_args()
    rel_dir = os.path.join(args.work, "releases")
    metas = []
    for f in os.listdir(rel_dir):
        if f.endswith(".json"):
            with open(os.path.join(rel_dir, f)) as fh:
                metas.append(json.load(fh))
    metas.sort(key=lambda m: vkey(m["version"]))
    if len(metas) > 128:
        raise SystemExit("release masks are u128: more than 128 releases need a format change")

    libs: dict[str, int] = {}
    masks: dict[str, list[int]] = {}  # symbol -> [release mask, library mask]
    for i, m in enumerate(metas):
        cxx11 = False
        with gzip.open(os.path.join(rel_dir, f"{m['version']}.syms.gz"), "rt") as fh:
            for line in fh:
                lib, sym = line.rstrip("\n").split("\t", 1)
                if lib.startswith("libc10.so") and cxx11_c10_symbol(sym):
                    cxx11 = True
                if not keep(sym):
                    continue
                j = libs.setdefault(lib, len(libs))
                e = masks.get(sym)
                if e is None:
                    masks[sym] = [1 << i, 1 << j]
                else:
                    e[0] |= 1 << i
                    e[1] |= 1 << j
        m["cxx11_abi"] = cxx11  # recomputed: early collect.py runs used a looser test
        print(f"{m['version']}: {len(masks)} symbols so far", file=sys.stderr)

    syms = sorted(masks, key=lambda s: s.encode())
    out = bytearray(b"ABTI")
    varint(1, out)
    varint(len(metas), out)
    for m in metas:
        put_str(m["version"], out)
        out.append(1 if m["cxx11_abi"] else 0)
        put_str(m["cuda"] or "", out)
    varint(len(libs), out)
    for name in libs:
        put_str(name, out)
    varint(len(syms), out)
    varint(BLOCK, out)
    prev = b""
    for k, s in enumerate(syms):
        b = s.encode()
        shared = 0
        if k % BLOCK:
            n = min(len(prev), len(b))
            while shared < n and prev[shared] == b[shared]:
                shared += 1
        varint(shared, out)
        varint(len(b) - shared, out)
        out += b[shared:]
        prev = b
    for s in syms:
        varint(masks[s][0], out)
    for s in syms:
        varint(masks[s][1], out)

    os.makedirs(args.out, exist_ok=True)
    dst = os.path.join(args.out, "torch_symbols.bin.zst")
    raw = dst + ".raw"
    with open(raw, "wb") as fh:
        fh.write(out)
    # From a file, zstd knows the content size and sizes the window to it, so the decoder never
    # needs more than the payload itself.
    subprocess.run(["zstd", "-q", "-f", f"-{args.level}", "--ultra", "--long=27", "-o", dst, raw],
                   check=True)
    os.remove(raw)
    with open(os.path.join(args.out, "releases.json"), "w") as fh:
        json.dump([{k: m[k] for k in ("version", "cuda", "cxx11_abi", "wheel", "wheel_bytes",
                                      "python", "libraries", "download_seconds", "parse_seconds")}
                   for m in metas], fh, indent=1)
        fh.write("\n")
    print(f"{len(metas)} releases, {len(syms)} symbols, {len(libs)} libraries, "
          f"{len(out)} bytes raw -> {os.path.getsize(dst)} bytes compressed", file=sys.stderr)


if __name__ == "__main__":
    main()
