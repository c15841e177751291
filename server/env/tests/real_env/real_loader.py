"""The reference verdict: load every compiled library of this environment with the real loader.

Run with the environment's own interpreter. For each shared library listed in a RECORD of this
interpreter's site-packages, a fresh child process runs `import torch` and then
`ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)`, the flags CPython uses to import an
extension module. One process per library: a library that fails (or crashes) cannot affect the
next verdict. Writes {path: {"loads": bool, "error": str}} as JSON.
"""

import csv
import json
import os
import site
import subprocess
import sys

CHILD = r"""
import ctypes, os, sys
try:
    import torch  # noqa: F401  (what every torch extension's import does first)
except Exception as e:  # torch itself broken: every verdict below is meaningless
    print("TORCH-IMPORT-FAILED: %s" % e)
    sys.exit(3)
try:
    ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | os.RTLD_LOCAL)
except OSError as e:
    print(str(e))
    sys.exit(1)
"""


def libraries():
    seen = set()
    for sp in site.getsitepackages():
        if not os.path.isdir(sp):
            continue
        for entry in sorted(os.listdir(sp)):
            if not entry.endswith(".dist-info"):
                continue
            record = os.path.join(sp, entry, "RECORD")
            if not os.path.isfile(record):
                continue
            with open(record, newline="") as f:
                for row in csv.reader(f):
                    if not row:
                        continue
                    name = os.path.basename(row[0])
                    if name.endswith(".so") or ".so." in name:
                        p = os.path.normpath(os.path.join(sp, row[0]))
                        if os.path.isfile(p) and p not in seen:
                            seen.add(p)
                            yield p


def main():
    out = {}
    for p in libraries():
        r = subprocess.run(
            [sys.executable, "-c", CHILD, p], capture_output=True, text=True, timeout=300
        )
        if r.returncode == 3:
            sys.exit("import torch fails in this environment: " + r.stdout.strip())
        out[p] = {"loads": r.returncode == 0, "error": (r.stdout + r.stderr).strip()}
        print("%-5s %s" % ("ok" if r.returncode == 0 else "FAIL", p), file=sys.stderr)
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
