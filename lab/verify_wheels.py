#!/usr/bin/env python3
"""`abidoc verify` on real PyPI wheels (run by hand, NOT in CI: it downloads from PyPI).

For each companion wheel (torchvision, torchaudio, xformers) built for one torch release:

1. `pip download --no-deps` the wheel (Linux x86_64, CPython 3.12) into WORK/wheels;
2. times `unzip -l` of it and `abidoc verify --torch T WHEEL --format json` for the torch it was
   built for (expected: loads) and for a later torch (expected: some library fails), judged from
   the offline torch index with no environment at all;
3. with `--real`: builds WORK/venv-T with `torch==T` from PyPI (several GB each), installs the
   wheel there with `--no-deps`, runs `abidoc verify --python` on the wheel against that real
   environment BEFORE installing it, then installs it and asks the real loader: each shared
   library of the wheel loaded with ctypes (RTLD_NOW|RTLD_LOCAL) after `import torch`, in a
   fresh child process. Verdicts are compared library by library.

Usage: lab/verify_wheels.py WORK [--abidoc PATH] [--real]
Writes WORK/verify_wheels.json and prints one line per check; exit 1 on any disagreement.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import zipfile

# (distribution, version, the torch it pins, a later torch it does not load with)
WHEELS = [
    ("torchvision", "0.20.1", "2.5.1", "2.10.0"),
    ("torchaudio", "2.5.1", "2.5.1", "2.10.0"),
    ("xformers", "0.0.28.post3", "2.5.1", "2.10.0"),
]

CHILD = r"""
import ctypes, os, sys
import torch  # noqa: F401
try:
    ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | os.RTLD_LOCAL)
except OSError as e:
    print(e)
    sys.exit(1)
"""


def run(cmd, **kw):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return r, time.perf_counter() - t


def download(work, name, version):
    d = os.path.join(work, "wheels")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.startswith(name.replace("-", "_") + "-" + version + "-") and f.endswith(".whl"):
            return os.path.join(d, f)
    r, _ = run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                "--python-version", "3.12", "--platform", "manylinux1_x86_64",
                "--platform", "manylinux_2_28_x86_64", "-d", d, "%s==%s" % (name, version)])
    if r.returncode != 0:
        sys.exit("pip download %s==%s failed:\n%s" % (name, version, r.stderr[-2000:]))
    return download(work, name, version)


def failing_libraries(verdict_json):
    """Library paths (relative to site-packages) verify says would not load."""
    out = set()
    for d in verdict_json.get("diagnostics", []):
        if d.get("severity") == "error" and d.get("library"):
            lib = d["library"]
            out.add(lib.split("site-packages/", 1)[-1])
    return out


def verify(abidoc, wheel, torch=None, python=None):
    cmd = [abidoc, "verify", wheel, "--format", "json"]
    if torch:
        cmd += ["--torch", torch]
    if python:
        cmd += ["--python", python]
    r, secs = run(cmd)
    if r.returncode >= 2:
        sys.exit("abidoc verify could not run: " + r.stderr)
    return json.loads(r.stdout), r.returncode, secs


def real_check(work, abidoc, wheel, torch):
    venv = os.path.join(work, "venv-" + torch)
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "torch==" + torch], check=True)
    predicted, code, _ = verify(abidoc, wheel, python=py)
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", wheel],
                   check=True)
    libs = [n for n in zipfile.ZipFile(wheel).namelist()
            if n.endswith(".so") or ".so." in os.path.basename(n)]
    loader_fails = {}
    for rel in libs:
        r, _ = run([py, "-c", CHILD, os.path.join(site, rel)])
        if r.returncode != 0:
            loader_fails[rel] = (r.stdout + r.stderr).strip()[-300:]
    said = failing_libraries(predicted)
    return {
        "verify_exit": code,
        "verify_fails": sorted(said),
        "loader_fails": loader_fails,
        "agree": said == set(loader_fails),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--abidoc", default=None)
    ap.add_argument("--real", action="store_true")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    abidoc = a.abidoc or os.path.join(root, "target", "release", "abidoc")
    if not a.abidoc and not os.path.exists(abidoc):
        subprocess.run(["cargo", "build", "--release", "-p", "abidoc"], cwd=root, check=True)
    os.makedirs(a.work, exist_ok=True)
    results, bad = [], 0
    for name, version, built_for, later in WHEELS:
        wheel = download(a.work, name, version)
        _, unzip_secs = run(["unzip", "-l", wheel])
        row = {"wheel": os.path.basename(wheel), "unzip_l_s": round(unzip_secs, 3)}
        for torch, want_loads in ((built_for, True), (later, False)):
            v, code, secs = verify(abidoc, wheel, torch=torch)
            ok = (code == 0) == want_loads
            bad += not ok
            row["torch " + torch] = {"exit": code, "seconds": round(secs, 3),
                                     "fails": sorted(failing_libraries(v)), "as_expected": ok}
            print("%-5s %s --torch %s: exit %d in %.2fs (unzip -l %.2fs)%s" % (
                "ok" if ok else "WRONG", row["wheel"], torch, code, secs, unzip_secs,
                "" if code == 0 else ": " + ", ".join(sorted(failing_libraries(v)))))
            if a.real:
                rc = real_check(a.work, abidoc, wheel, torch)
                row["real " + torch] = rc
                bad += not rc["agree"]
                print("%-5s   real torch %s: verify says %s fail, the loader %s" % (
                    "ok" if rc["agree"] else "WRONG", torch, rc["verify_fails"],
                    sorted(rc["loader_fails"])))
        results.append(row)
    with open(os.path.join(a.work, "verify_wheels.json"), "w") as f:
        json.dump(results, f, indent=1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
