#!/usr/bin/env python3
"""abidoc fix laboratory: build real broken environments from PyPI, let abidoc diagnose them,
apply the preferred fix in a hard-link copy and let the real loader say whether it worked.

Python 3 standard library only. Run through lab/run.sh; see lab/README.md.

abidoc itself never executes the environment; this driver does (imports, dlopen, pip), because
the dynamic loader is the referee.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import fcntl
import fnmatch
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ENVS = Path(os.environ.get("LAB_ENVS", "/work/lab-envs"))
CACHE = Path(os.environ.get("LAB_CACHE", "/work/lab-cache"))
PIP_CACHE = Path(os.environ.get("PIP_CACHE_DIR", str(CACHE / "pip")))
TMP = ENVS / "_tmp"
BASE_PYTHON = os.environ.get("LAB_PYTHON", "python3")

PIP_TIMEOUT = 1800  # one pip call (a torch install downloads ~3 GB)
FIX_TIMEOUT = 900  # one command of a fix (a source build that runs longer counts as failed)
PY_TIMEOUT = 300  # one python probe
ABIDOC_TIMEOUT = 300
MAX_TEXT = 20000  # bytes of any captured output kept
REFERENCE = True  # --no-reference turns it off
REFERENCE_ONLY = False  # --reference-only: only the reference fixes, merged into existing rows
SECOND = os.environ.get("LAB_SCAN_FIX", "1") != "0"  # also try scan's preferred fix when different

# --------------------------------------------------------------------------------------------
# Scenarios. `base` is a torch version: a venv with torch==base (default PyPI wheel and its
# nvidia-* dependencies) and numpy is built once and hard-link copied. `install` are pip
# requirement lists installed with --no-deps (so pip does not "repair" the mismatch; the
# companion's other dependencies, e.g. pillow for torchvision, are listed explicitly);
# `uninstall` are distributions removed afterwards; `probe` is the import that must work;
# `alternatives` are libraries of which only one is meant to load (one per CUDA or FFmpeg
# version), `must_load` patterns: at least one library matching one of them must load after the fix;
# `reference` is the fix a maintainer would apply by hand, verified the same way (`--reference`),
# to say what would have worked where abidoc's preferred fix does not.
# --------------------------------------------------------------------------------------------
SCENARIOS = [
    {
        "name": "torchvision-older",
        "reference": [["pip", "install", "--no-deps", "torchvision==0.29.2"]],
        "title": "torch 2.15.0 with torchvision 0.25.0 (built for torch 2.10)",
        "base": "2.15.0",
        "install": [["torchvision==0.25.0", "pillow"]],
        "probe": "import torchvision",
    },
    {
        "name": "torchaudio-older",
        # torchaudio 2.11.1 (`torch>=2.11`, a py3-none wheel built on torch 2.15's stable ABI with
        # CUDA 13.2) loads with torch 2.15.0 and not with 2.11.0; torchaudio 2.11.0 is built with
        # CUDA 13.0 and refuses torch's 13.2, so the hand-written reference is torch 2.11.0 with it.
        "reference": [["pip", "install", "torch==2.11.0", "torchaudio==2.11.0"]],
        "title": "torch 2.15.0 with torchaudio 2.8.0 (built for torch 2.8)",
        "base": "2.15.0",
        "install": [["torchaudio==2.8.0"]],
        "probe": "import torchaudio",
    },
    {
        "name": "xformers-older",
        # xformers 0.0.35 (torch >= 2.10) is still a CUDA 12 build: it needs libcudart.so.12 too.
        "reference": [["pip", "install", "--no-deps", "xformers==0.0.35", "nvidia-cuda-runtime-cu12"]],
        "title": "torch 2.15.0 with xformers 0.0.33.post2 (built for torch 2.9.1, CUDA 12.8)",
        "base": "2.15.0",
        "install": [["xformers==0.0.33.post2"]],
        # xformers/_C.so has no PyInit: xformers loads it with torch.ops.load_library (and only
        # warns when that fails), so the probe does the same and fails loudly.
        "probe": "import os, torch, xformers, xformers.ops; "
        "torch.ops.load_library(os.path.join(os.path.dirname(xformers.__file__), '_C.so'))",
    },
    {
        "name": "cu12-companion-on-cu13",
        "reference": [["pip", "install", "--no-deps", "torchvision==0.29.2"]],
        "title": "torch 2.15.0 (CUDA 13) with torchvision 0.24.1 (torch 2.9.1, CUDA 12.8)",
        "base": "2.15.0",
        "install": [["torchvision==0.24.1", "pillow"]],
        "probe": "import torchvision",
    },
    {
        "name": "pre-cxx11-on-cxx11",
        "reference": [["pip", "install", "--no-deps", "torchvision==0.29.2"]],
        "title": "torch 2.15.0 (C++11 ABI) with torchvision 0.21.0 (torch 2.6.0, pre-C++11 ABI)",
        "base": "2.15.0",
        "install": [["torchvision==0.21.0", "pillow"]],
        "probe": "import torchvision",
    },
    {
        "name": "cxx11-on-pre-cxx11",
        "reference": [["pip", "install", "--no-deps", "torchvision==0.21.0"]],
        "title": "torch 2.6.0 (pre-C++11 ABI) with torchvision 0.22.0 (torch 2.7.0, C++11 ABI)",
        "base": "2.6.0",
        "install": [["torchvision==0.22.0", "pillow"]],
        "probe": "import torchvision",
    },
    {
        "name": "torchvision-newer",
        "reference": [["pip", "install", "--no-deps", "torchvision==0.21.0"]],
        "title": "torch 2.6.0 with torchvision 0.29.2 (needs torch >= 2.14)",
        "base": "2.6.0",
        "install": [["torchvision==0.29.2", "pillow"]],
        "probe": "import torchvision",
    },
    {
        "name": "torchao-older",
        "reference": [["pip", "install", "--no-deps", "torchao==0.18.0"]],
        "title": "torch 2.15.0 with torchao 0.9.0 (binary wheel built for torch 2.6)",
        "base": "2.15.0",
        "install": [["torchao==0.9.0"]],
        "probe": "import torchao",
    },
    {
        "name": "bitsandbytes-older",
        "reference": [["pip", "install", "--no-deps", "bitsandbytes==0.50.2"]],
        "title": "torch 2.15.0 (CUDA 13) with bitsandbytes 0.45.5 (CUDA 12 libraries only)",
        "base": "2.15.0",
        "install": [["bitsandbytes==0.45.5", "packaging"]],
        # one library per CUDA version, only the one for torch's CUDA is loaded: the others are
        # alternatives, and the CUDA 13 one must load after the fix
        "alternatives": ["bitsandbytes/libbitsandbytes_*.so"],
        "must_load": ["bitsandbytes/libbitsandbytes_cuda13*.so"],
        "probe": "import bitsandbytes",
    },
    {
        "name": "torchtext-abandoned",
        "reference": [["pip", "uninstall", "-y", "torchtext"]],
        "title": "torch 2.15.0 with torchtext 0.18.0 (last release, built for torch 2.3.0)",
        "base": "2.15.0",
        "install": [["torchtext==0.18.0", "tqdm", "requests", "urllib3", "idna", "charset-normalizer", "certifi"]],
        "probe": "import torchtext, torchtext.vocab",
    },
    {
        "name": "torchcodec-older",
        # No wheel ships FFmpeg: the release for torch 2.15 loads only beside a system FFmpeg
        # (the apt step is emulated in the copy, see lab/README.md).
        "reference": [["pip", "install", "--no-deps", "torchcodec==0.17.0"], ["apt-get", "install", "-y", "ffmpeg"]],
        "title": "torch 2.15.0 with torchcodec 0.2.1 (built for torch 2.6)",
        "base": "2.15.0",
        "install": [["torchcodec==0.2.1"]],
        # one library per FFmpeg major: the one for the installed FFmpeg must load
        "alternatives": ["torchcodec/libtorchcodec*.so"],
        "must_load": ["torchcodec/libtorchcodec[0-9].so", "torchcodec/libtorchcodec_core*.so"],
        "probe": "import torchcodec.decoders",
    },
    {
        "name": "sdist-only-skipped-build",
        "reference": [["pip", "uninstall", "-y", "causal-conv1d"]],
        "title": "torch 2.15.0 with causal-conv1d from its sdist (no nvcc: CUDA build skipped)",
        "base": "2.15.0",
        "install": [["ninja", "packaging"], ["causal-conv1d"]],
        "install_env": {"CAUSAL_CONV1D_SKIP_CUDA_BUILD": "TRUE", "CAUSAL_CONV1D_FORCE_BUILD": "TRUE"},
        "install_flags": ["--no-build-isolation"],
        "probe": "import causal_conv1d",
    },
    {
        "name": "sgl-kernel-older",
        "reference": [["pip", "uninstall", "-y", "sgl-kernel"]],
        "title": "torch 2.15.0 with sgl-kernel 0.3.21 (SGLang's kernels, built for an older torch; 535 MB wheel)",
        "base": "2.15.0",
        "install": [["sgl-kernel==0.3.21"]],
        "probe": "import sgl_kernel",
    },
    {
        "name": "missing-cudart",
        "reference": [["pip", "install", "--no-deps", "nvidia-cuda-runtime==13.2.86"]],
        "title": "torch 2.15.0 with its CUDA runtime wheel (nvidia-cuda-runtime) uninstalled",
        "base": "2.15.0",
        "uninstall": ["nvidia-cuda-runtime"],
        "probe": "import torch",
    },
    {
        "name": "numpy2-vs-numpy1-build",
        "reference": [["pip", "install", "--no-deps", "pandas==2.2.3"]],
        "title": "torch 2.15.0, numpy 2 with pandas 2.0.3 (compiled against numpy 1.x)",
        "base": "2.15.0",
        "install": [["pandas==2.0.3", "python-dateutil", "pytz", "tzdata", "six"]],
        "probe": "import pandas",
    },
    {
        "name": "numpy2-needed-beside",
        # The same pandas, beside a package whose metadata requires NumPy 2 (opencv-python-headless
        # 4.12: `numpy<2.3.0,>=2; python_version >= "3.9"`): numpy<2 would break it, so the
        # module built for NumPy 1.x is the one to move.
        "reference": [["pip", "install", "--no-deps", "pandas==2.2.3"]],
        "title": "torch 2.15.0, numpy 2 with pandas 2.0.3 (compiled against numpy 1.x) beside opencv-python-headless 4.12 (requires numpy>=2)",
        "base": "2.15.0",
        "install": [
            [
                "pandas==2.0.3",
                "python-dateutil",
                "pytz",
                "tzdata",
                "six",
                "opencv-python-headless==4.12.0.88",
            ]
        ],
        "probe": "import pandas",
    },
    {
        "name": "triton-newer",
        "reference": [["pip", "install", "--no-deps", "triton==3.2.0"]],
        "title": "torch 2.6.0 with Triton 3.5.0 (torch pins 3.2.0): Inductor's own imports fail",
        "base": "2.6.0",
        "install": [["triton==3.5.0"]],
        # Inductor imports `AttrsDescriptor` from Triton when its modules load (torch.compile's
        # first use); Triton 3.5 has none. No GPU is needed to meet it.
        "probe": "import torch._inductor.codecache",
    },
    {
        "name": "fbgemm-older",
        # FBGEMM's own compatibility table pairs 1.1.0 with torch 2.6 (its metadata names no
        # torch); the CPU variant, so that no driver is needed to load it.
        "reference": [["pip", "install", "--no-deps", "fbgemm-gpu-cpu==1.1.0"]],
        "title": "torch 2.6.0 with fbgemm-gpu-cpu 0.8.0 (built for torch 2.4; its metadata pins no torch)",
        "base": "2.6.0",
        "install": [["fbgemm-gpu-cpu==0.8.0"]],
        # fbgemm_gpu/__init__.py only prints a failed load: the first operator is where it fails.
        "probe": "import torch, fbgemm_gpu; torch.ops.fbgemm.asynchronous_complete_cumsum",
    },
]


def log(msg: str) -> None:
    print(f"[lab {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def clip(s: str | bytes, n: int = MAX_TEXT) -> str:
    if isinstance(s, bytes):
        s = s.decode("utf-8", "replace")
    if len(s) <= n:
        return s
    return s[: n // 2] + f"\n...[{len(s) - n} characters cut]...\n" + s[-n // 2 :]


def run(argv, timeout, env=None, cwd=None):
    """Run argv; return (rc, stdout, stderr, seconds). rc 124 on timeout."""
    t0 = time.monotonic()
    full_env = dict(os.environ)
    full_env["PIP_CACHE_DIR"] = str(PIP_CACHE)
    full_env["TMPDIR"] = str(TMP)
    full_env.pop("VIRTUAL_ENV", None)
    full_env.pop("PYTHONPATH", None)
    if env:
        full_env.update(env)
    try:
        p = subprocess.run(
            [str(a) for a in argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=timeout,
            env=full_env,
            cwd=cwd or str(TMP),
        )
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        return 124, clip(e.stdout or b""), clip(e.stderr or b"") + f"\n[lab: timed out after {timeout}s]", time.monotonic() - t0


def pip(python: Path, args, env=None, timeout=PIP_TIMEOUT):
    return run([python, "-m", "pip", "--disable-pip-version-check", "--no-input", *args], timeout, env=env)


def site_packages(env_dir: Path) -> Path:
    c = sorted((env_dir / "lib").glob("python3*/site-packages"))
    if not c:
        raise RuntimeError(f"no site-packages under {env_dir}")
    return c[0]


def dir_bytes(p: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(p):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


UNITS = {"kB": 1e3, "MB": 1e6, "GB": 1e9, "bytes": 1}


def downloaded(pip_output: str) -> int:
    """Bytes pip says it downloaded (`Downloading x.whl (7.5 MB)`). pip's HTTP cache does not
    store PyPI files on every machine, so this is read from its output, not from the cache."""
    total = 0.0
    for m in re.finditer(r"Downloading \S+ \(([\d.]+) (kB|MB|GB|bytes)\)", pip_output):
        total += float(m.group(1)) * UNITS[m.group(2)]
    return int(total)


def manifest(env_dir: Path) -> str:
    """Hash of (path, inode, size, mtime) of every file: proves an env was not modified."""
    h = hashlib.sha256()
    for root, dirs, files in os.walk(env_dir):
        dirs.sort()
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in sorted(files):
            fp = os.path.join(root, f)
            try:
                st = os.lstat(fp)
            except OSError:
                continue
            h.update(f"{os.path.relpath(fp, env_dir)}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


# ------------------------------------------------------------------ environments


def ensure_base(version: str) -> Path:
    d = ENVS / f"base-torch-{version}"
    stamp = d / ".lab-ready"
    if stamp.exists():
        return d
    log(f"building base env torch=={version} in {d} (downloads several GB the first time)")
    if not (d / "bin" / "python").exists():
        rc, out, err, _ = run([BASE_PYTHON, "-m", "venv", d], 300)
        if rc:
            raise RuntimeError(f"venv failed: {clip(err, 2000)}")
    rc, out, err, _ = pip(d / "bin" / "python", ["install", "-q", f"torch=={version}", "numpy>=2,<3"])
    if rc:
        raise RuntimeError(f"pip install torch=={version} failed: {clip(err, 4000)}")
    stamp.write_text(version + "\n")
    return d


def spec_hash(sc) -> str:
    keys = ("base", "install", "install_env", "install_flags", "uninstall")
    return hashlib.sha256(json.dumps({k: sc.get(k) for k in keys}, sort_keys=True).encode()).hexdigest()[:16]


def hardlink_copy(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    rc, out, err, _ = run(["cp", "-al", src, dst], 600)
    if rc:
        raise RuntimeError(f"cp -al failed: {clip(err, 2000)}")


def ensure_env(sc) -> Path:
    d = ENVS / sc["name"]
    stamp = d / ".lab-ready"
    h = spec_hash(sc)
    if stamp.exists() and stamp.read_text().strip() == h:
        return d
    base = ensure_base(sc["base"])
    log(f"{sc['name']}: building env {d}")
    hardlink_copy(base, d)
    (d / ".lab-ready").unlink(missing_ok=True)
    py = d / "bin" / "python"
    for reqs in sc.get("install", []):
        rc, out, err, _ = pip(py, ["install", "-q", "--no-deps", *sc.get("install_flags", []), *reqs], env=sc.get("install_env"))
        if rc:
            raise RuntimeError(f"pip install {reqs} failed: {clip(err, 4000)}")
    if sc.get("uninstall"):
        rc, out, err, _ = pip(py, ["uninstall", "-y", *sc["uninstall"]])
        if rc:
            raise RuntimeError(f"pip uninstall failed: {clip(err, 4000)}")
    stamp.write_text(h + "\n")
    return d


# ------------------------------------------------------------------ the loader as referee

DLOPEN_DRIVER = r"""
import sys, json, ctypes, os
paths = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
try:
    import torch  # noqa: F401  (extensions are loaded after torch, as in real use)
    tor = "ok"
except BaseException as e:
    tor = "%s: %s" % (type(e).__name__, str(e)[:500])
print(json.dumps({"torch": tor}), flush=True)
def own_library(p, err):
    # A module that needs its package's own library by name (torchtext/_torchtext.so needs
    # torchtext/lib/libtorchtext.so, which `import torchtext` loads first): that file, if the
    # package ships it; the loader then finds it by soname, as in the package's own import.
    m = err.split(": cannot open shared object file", 1)
    if len(m) != 2 or "/" in m[0]:
        return None
    head, sep, rest = p.partition("/site-packages/")
    if not sep:
        return None
    top = os.path.join(head + sep, rest.split("/", 1)[0])
    for root, _dirs, files in os.walk(top):
        if m[0] in files:
            return os.path.join(root, m[0])
    return None
for p in paths:
    print(json.dumps({"start": p}), flush=True)
    try:
        ctypes.CDLL(p)
        r = "ok"
    except OSError as e:
        r = str(e)[:800]
        dep = own_library(p, r)
        if dep:
            try:
                ctypes.CDLL(dep)
                ctypes.CDLL(p)
                r = "ok"
            except OSError as e2:
                r = str(e2)[:800]
    print(json.dumps({"path": p, "result": r}), flush=True)
"""


def shared_libraries(env_dir: Path):
    sp = site_packages(env_dir)
    out = []
    for root, _dirs, files in os.walk(sp):
        for f in files:
            if f.endswith(".so") or ".so." in f:
                fp = os.path.join(root, f)
                if os.path.isfile(fp) and not os.path.islink(fp):
                    out.append(os.path.relpath(fp, sp))
    return sorted(out)


def dlopen_all(env_dir: Path, extra_env=None):
    """dlopen (after `import torch`) every shared library of site-packages, in a child python.
    Returns ({relpath: 'ok' | error}, torch_import_result). A crash of the child marks the
    library it was loading and goes on with the rest in a fresh child."""
    sp = site_packages(env_dir)
    rels = shared_libraries(env_dir)
    results = {}
    torch_state = None
    todo = rels[:]
    driver = TMP / f"dlopen_driver-{os.getpid()}.py"  # one per run: runs may go side by side
    driver.write_text(DLOPEN_DRIVER)
    while todo:
        lst = TMP / f"dlopen-{os.getpid()}.txt"
        lst.write_text("".join(str(sp / r) + "\n" for r in todo))
        rc, out, err, _ = run([env_dir / "bin" / "python", driver, lst], PY_TIMEOUT, env=extra_env)
        current = None
        for line in out.splitlines():
            try:
                j = json.loads(line)
            except ValueError:
                continue
            if "torch" in j and torch_state is None:
                torch_state = j["torch"]
            elif "start" in j:
                current = j["start"]
            elif "path" in j:
                results[os.path.relpath(j["path"], sp)] = j["result"]
                current = None
        if current is not None:
            results[os.path.relpath(current, sp)] = f"child died (rc {rc}) loading it"
        done = set(results)
        rest = [r for r in todo if r not in done]
        if len(rest) == len(todo):  # no progress at all
            for r in rest:
                results[r] = f"not checked: driver failed rc {rc}: {clip(err, 300)}"
            break
        todo = rest
    return results, torch_state


def baseline_failures(version: str):
    """Libraries of the pristine base env that fail dlopen on this machine whatever is installed
    next to torch (no driver: libcuda.so.1; no MPI/InfiniBand for nvshmem's optional transports).
    They are reported but do not decide a verdict."""
    base = ENVS / f"base-torch-{version}"
    cache = base / ".lab-dlopen.json"
    if cache.exists():
        return json.loads(cache.read_text())
    res, _ = dlopen_all(base)
    fails = {k: v for k, v in res.items() if v != "ok"}
    cache.write_text(json.dumps(fails, indent=1))
    return fails


def missing_name(err: str):
    """`libmpi.so.40` of `libmpi.so.40: cannot open shared object file: ...`, else None."""
    m = re.match(r"(\S+): cannot open shared object file", err or "")
    return m.group(1) if m else None


def probe(env_dir: Path, stmt: str, extra_env=None):
    rc, out, err, secs = run([env_dir / "bin" / "python", "-c", stmt], PY_TIMEOUT, env=extra_env)
    return {"rc": rc, "stderr": clip(err, 8000), "seconds": round(secs, 2)}


# ------------------------------------------------------------------ abidoc


def abidoc_json(abidoc: str, args):
    rc, out, err, secs = run([abidoc, *args, "--format", "json"], ABIDOC_TIMEOUT)
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {"diagnostics": [], "unparsable": clip(out, 2000)}
    return rc, doc, clip(err, 2000), round(secs, 2)


def pick_preferred(diags):
    """The preferred fix of the first error (then warning) diagnostic that has one. Information
    diagnostics (context such as nvshmem's optional MPI transports) are never acted on."""
    for sev in ("error", "warning"):
        for d in diags:
            if d.get("severity") != sev:
                continue
            for f in d.get("fixes", []):
                if f.get("preferred"):
                    return d, f
    return None, None


def summarize(diags):
    return [
        {
            "code": d.get("code"),
            "severity": d.get("severity"),
            "package": d.get("package"),
            "library": d.get("library"),
            "message": clip(d.get("message", ""), 400),
            "preferred": next((f.get("title") for f in d.get("fixes", []) if f.get("preferred")), None),
        }
        for d in diags
    ]


def substitute(argv, env_dir: Path, copy_dir: Path):
    py = copy_dir / "bin" / "python"
    out = []
    for i, a in enumerate(argv):
        if i == 0 and "/" not in a and a.startswith("python"):
            out.append(str(py))
        elif i == 0 and "/" not in a and a.startswith("pip"):
            out.extend([str(py), "-m", "pip"])
        else:
            out.append(a.replace(str(env_dir), str(copy_dir)))
    return out


# ------------------------------------------------------------------ one scenario


def run_scenario(sc, abidoc: str, keep: bool):
    name = sc["name"]
    res = {"scenario": name, "title": sc["title"], "base_torch": sc["base"], "probe": sc["probe"]}
    t_all = time.monotonic()
    env_dir = ensure_env(sc)
    res["env"] = str(env_dir)
    # Before: the real import, and dlopen of every library after import torch.
    log(f"{name}: probing the broken env")
    before = probe(env_dir, sc["probe"])
    res["before_import"] = {"ok": before["rc"] == 0, "rc": before["rc"], "stderr_tail": clip(before["stderr"], 1500)}
    dl_before, torch_before = dlopen_all(env_dir)
    baseline = baseline_failures(sc["base"])
    alts = sc.get("alternatives", [])
    failed_before = sorted(k for k, v in dl_before.items() if v != "ok" and k not in baseline
                           and not any(fnmatch.fnmatch(k, p) for p in alts))
    res["before_dlopen"] = {"libraries": len(dl_before), "import_torch": torch_before,
                            "baseline_failing": sorted(k for k in dl_before if k in baseline and dl_before[k] != "ok"),
                            "failed": {k: clip(dl_before[k], 300) for k in failed_before}}
    tb = TMP / f"{name}-traceback.txt"
    tb.write_text(f"$ python -c {sc['probe']!r}\n" + before["stderr"])
    # abidoc: scan (static) and check on the real traceback.
    if REFERENCE_ONLY:
        ctx = {"env_dir": env_dir, "py": env_dir / "bin" / "python", "dl_before": dl_before,
               "failed_before": failed_before, "baseline": baseline}
        return {"reference": run_reference(sc, ctx, keep)} if sc.get("reference") else {}
    log(f"{name}: abidoc scan + check")
    py = env_dir / "bin" / "python"
    src, scan_doc, scan_err, scan_s = abidoc_json(abidoc, ["scan", "--python", str(py), "--no-cache"])
    crc, check_doc, check_err, check_s = abidoc_json(abidoc, ["check", str(tb), "--python", str(py)])
    scan_diags = scan_doc.get("diagnostics", [])
    check_diags = check_doc.get("diagnostics", [])
    res["abidoc"] = {
        "scan": {"rc": src, "seconds": scan_s, "stderr": scan_err, "diagnostics": summarize(scan_diags)},
        "check": {"rc": crc, "seconds": check_s, "stderr": check_err, "diagnostics": summarize(check_diags)},
    }
    diag, fix = pick_preferred(check_diags)
    origin = "check"
    if fix is None:
        diag, fix = pick_preferred(scan_diags)
        origin = "scan"
    if fix is None:
        serious = [d for d in check_diags + scan_diags if d.get("severity") in ("error", "warning")]
        res["named"] = {"code": serious[0].get("code") if serious else "none (no error or warning)",
                        "package": serious[0].get("package") if serious else None}
        res["verified"] = "no"
        res["why"] = "abidoc proposed no preferred fix" if (check_diags or scan_diags) else "abidoc found nothing"
        if before["rc"] == 0 and not failed_before:
            res["why"] += " (and nothing fails to load: the scenario did not break)"
        if REFERENCE and sc.get("reference"):
            res["reference"] = run_reference(sc, {"env_dir": env_dir, "py": py, "dl_before": dl_before,
                                                  "failed_before": failed_before, "baseline": baseline}, keep)
        res["seconds_total"] = round(time.monotonic() - t_all, 1)
        return res
    res["named"] = {"code": diag.get("code"), "package": diag.get("package"), "from": origin,
                    "message": clip(diag.get("message", ""), 500)}
    ctx = {"env_dir": env_dir, "py": py, "dl_before": dl_before, "failed_before": failed_before,
           "baseline": baseline}
    res.update(try_fix(sc, fix, ctx, keep))
    # The scan's own preferred fix for its first error, when it differs: the engineer reworking
    # the ranking wants to know whether that one works too.
    sdiag, sfix = pick_preferred(scan_diags)
    if SECOND and sfix is not None and sfix.get("commands") != fix.get("commands"):
        log(f"{name}: also trying scan's preferred fix ({sdiag.get('code')})")
        alt = try_fix(sc, sfix, ctx, keep)
        alt["named"] = {"code": sdiag.get("code"), "package": sdiag.get("package"), "from": "scan",
                        "message": clip(sdiag.get("message", ""), 500)}
        res["scan_preferred"] = alt
    if REFERENCE and sc.get("reference"):
        res["reference"] = run_reference(sc, ctx, keep)
    res["seconds_total"] = round(time.monotonic() - t_all, 1)
    return res


SYSTEM_MANAGERS = ("apt-get", "apt")


def system_install(argv):
    """The packages of `[sudo] apt-get install [-y] PKG...`, else None."""
    a = list(argv)
    if a and os.path.basename(a[0]) == "sudo":
        a = a[1:]
    if len(a) < 3 or os.path.basename(a[0]) not in SYSTEM_MANAGERS or a[1] != "install":
        return None
    pkgs = [x for x in a[2:] if not x.startswith("-")]
    return pkgs or None


def emulate_system_install(pkgs, copy_dir: Path):
    """A root step (`apt-get install PKG`) without touching the machine: apt resolves what this
    system lacks and downloads those .deb files (`--download-only`, into the copy), which are
    unpacked under COPY/.lab-sysroot; the verification then finds their libraries through
    LD_LIBRARY_PATH instead of ld.so.cache (no maintainer scripts run, so no alternatives or
    ldconfig). Returns (rc, output, {LD_LIBRARY_PATH: ...})."""
    root = copy_dir / ".lab-sysroot"
    debs = copy_dir / ".lab-debs"
    (debs / "partial").mkdir(parents=True, exist_ok=True)
    out_all = ""
    rc, out, err, _ = run(["apt-get", "update", "-qq"], PIP_TIMEOUT)
    out_all += out + err
    rc, out, err, _ = run(["apt-get", "install", "--download-only", "-y", "-q", "-o", f"Dir::Cache::archives={debs}",
                           *pkgs], PIP_TIMEOUT, env={"DEBIAN_FRONTEND": "noninteractive"})
    out_all += out + err
    if rc:
        return rc, out_all, {}
    files = sorted(debs.glob("*.deb"))
    for deb in files:
        rc, out, err, _ = run(["dpkg-deb", "-x", deb, root], 300)
        if rc:
            return rc, out_all + out + err, {}
    dirs = []
    for d, _sub, names in os.walk(root):
        if any(n.endswith(".so") or ".so." in n for n in names):
            dirs.append(d)
    nbytes = sum(f.stat().st_size for f in files)
    out_all += f"\n[lab: emulated: {len(files)} .deb files ({nbytes / 1e6:.0f} MB) unpacked under {root}]\n"
    out_all += f"Downloading system-packages ({nbytes / 1e6:.1f} MB)\n"
    shutil.rmtree(debs, ignore_errors=True)
    return 0, out_all, ({"LD_LIBRARY_PATH": ":".join(sorted(dirs))} if dirs else {})


def interpreter_or_driver_symbol(sym: str) -> bool:
    """Symbols a library may leave to the process rather than to its NEEDED list: the Python
    interpreter's (`Py*`, `_Py*`: an extension module links no libpython) and the NVIDIA
    driver's (`cuInit`, `cuGetProcAddress`…: libcuda.so.1 exports the driver API, all `cu`
    followed by a capital)."""
    return sym.startswith(("Py", "_Py")) or bool(re.match(r"cu[A-Z]", sym))


def ldd_beyond_machine(copy_dir: Path, rel: str, machine_missing, extra_env=None):
    """For a library that fails only for want of what this machine lacks (libcuda.so.1 without
    a driver): `ldd -r` with torch's and the nvidia-* wheels' directories on the path (what
    `import torch` has loaded), so the rest is judged: every other needed library found and
    every other symbol defined. Returns None when that holds, else the first problem."""
    sp = site_packages(copy_dir)
    dirs = [str(sp / "torch" / "lib")]
    for d, _sub, names in os.walk(sp / "nvidia"):
        if any(n.endswith(".so") or ".so." in n for n in names):
            dirs.append(d)
    env = dict(extra_env or {})
    env["LD_LIBRARY_PATH"] = ":".join(dirs + [env.get("LD_LIBRARY_PATH", "")]).rstrip(":")
    rc, out, err, _ = run(["ldd", "-r", sp / rel], PY_TIMEOUT, env=env)
    for line in (out + err).splitlines():
        line = line.strip()
        m = re.match(r"(\S+) => not found", line)
        if m and m.group(1) not in machine_missing:
            return f"{m.group(1)} not found"
        m = re.match(r"undefined symbol: ([^\s,]+)", line)
        if m and not interpreter_or_driver_symbol(m.group(1)):
            return f"undefined symbol: {m.group(1)}"
    return None


def run_reference(sc, ctx, keep):
    log(f"{sc['name']}: trying the reference fix")
    ref = try_fix(sc, {"title": "reference (hand-written) fix", "commands": sc["reference"], "env": {}}, ctx, keep)
    return ref


def try_fix(sc, fix, ctx, keep):
    """Apply `fix` in a hard-link copy of the env and judge it with the loader."""
    name = sc["name"]
    env_dir, py = ctx["env_dir"], ctx["py"]
    dl_before, failed_before, baseline = ctx["dl_before"], ctx["failed_before"], ctx["baseline"]
    res = {"fix": {"title": fix.get("title"), "commands": fix.get("commands", []), "env": fix.get("env", {}),
                   "notebook_cell": fix.get("notebook_cell")}}
    copy_dir = ENVS / f"{name}.fix"
    hardlink_copy(env_dir, copy_dir)
    before_manifest = manifest(env_dir)
    fix_env = {str(k): str(v).replace(str(env_dir), str(copy_dir)) for k, v in (fix.get("env") or {}).items()}
    applied = []
    t0 = time.monotonic()
    apply_ok = True
    emulated = []
    for argv in fix.get("commands", []):
        pkgs = system_install(argv or [])
        if pkgs:
            log(f"{name}: emulating (no root step runs on this machine): {' '.join(argv)}")
            rc, out, extra = emulate_system_install(pkgs, copy_dir)
            applied.append({"argv": argv, "rc": rc, "emulated": "apt-get --download-only, unpacked into the copy",
                            "output_tail": clip(out, 1500), "output": out})
            emulated.append(" ".join(argv))
            for k, v in extra.items():
                fix_env[k] = ":".join(x for x in (v, fix_env.get(k, "")) if x)
            if rc:
                apply_ok = False
                break
            continue
        if not argv or not os.path.basename(argv[0]).startswith(("python", "pip")):
            applied.append({"argv": argv, "rc": None, "skipped": "not a python/pip command: not run by the lab"})
            apply_ok = False
            continue
        real = substitute(argv, env_dir, copy_dir)
        log(f"{name}: applying: {' '.join(real)[:200]}")
        rc, out, err, secs = run(real, FIX_TIMEOUT, env=fix_env)
        applied.append({"argv": real, "rc": rc, "seconds": round(secs, 1), "output_tail": clip(out + err, 1500),
                        "output": out + err})
        if rc:
            apply_ok = False
            break
    res["apply"] = {"commands": applied, "seconds": round(time.monotonic() - t0, 1),
                    "downloaded_bytes": sum(downloaded(c.get("output", "")) for c in applied), "ok": apply_ok}
    for c in applied:
        c.pop("output", None)
    log(f"{name}: verifying the fix with the loader")
    after = probe(copy_dir, sc["probe"], extra_env=fix_env)
    dl_after, torch_after = dlopen_all(copy_dir, extra_env=fix_env)
    res["after_import"] = {"ok": after["rc"] == 0, "rc": after["rc"], "stderr_tail": clip(after["stderr"], 1500)}
    still = sorted(k for k in failed_before if k in dl_after and dl_after[k] != "ok")
    # What the pristine base env lacks too (libcuda.so.1 without a driver, MPI, InfiniBand):
    # a library that fails only for that is judged beyond it by `ldd -r`.
    env_missing = {missing_name(v) for v in baseline.values()} - {None}
    up_to_machine = {}
    for k in list(still):
        m = missing_name(dl_after[k])
        if m in env_missing:
            problem = ldd_beyond_machine(copy_dir, k, env_missing, fix_env)
            if problem is None:
                up_to_machine[k] = m
                still.remove(k)
    removed = sorted(k for k in failed_before if k not in dl_after)
    regress = sorted(k for k, v in dl_before.items() if v == "ok" and k in dl_after and dl_after[k] != "ok")
    alts = sc.get("alternatives", [])
    # A library that fails for want of what the pristine base env lacks too (libcuda.so.1, MPI,
    # InfiniBand: nothing pip can install) is the machine, not the fix.
    new_fail = sorted(k for k, v in dl_after.items() if v != "ok" and k not in dl_before and k not in baseline
                      and not any(fnmatch.fnmatch(k, p) for p in alts) and missing_name(v) not in env_missing)
    must = sc.get("must_load", [])
    must_ok = not must or any(v == "ok" and any(fnmatch.fnmatch(k, p) for p in must) for k, v in dl_after.items())
    gone_ok = sorted(k for k, v in dl_before.items() if v == "ok" and k not in dl_after)
    res["after_dlopen"] = {"libraries": len(dl_after), "import_torch": torch_after,
                           "still_failing": {k: clip(dl_after[k], 300) for k in still},
                           "removed_failing": removed, "regressions": {k: clip(dl_after[k], 300) for k in regress},
                           "new_failing": {k: clip(dl_after[k], 300) for k in new_fail},
                           "removed_loading": len(gone_ok)}
    res["original_untouched"] = manifest(env_dir) == before_manifest
    # A removal fix removes and installs nothing: one that clears old files before installing
    # (a torch of another CUDA major) is judged as an install.
    cmds = fix.get("commands", [])
    uninstall_fix = any("uninstall" in a for a in cmds) and not any("install" in a for a in cmds)
    why = []
    if not fix.get("commands") and not fix.get("env"):
        why.append("advice only: the fix has no command and no env")
    if not apply_ok:
        skipped = [c for c in applied if c.get("skipped")]
        if skipped:
            why.append("not runnable by the lab: " + " ".join(skipped[0]["argv"])[:120])
        else:
            bad = applied[-1]
            last = (bad.get("output_tail", "").strip().splitlines() or ["?"])[-1][:200]
            why.append(f"the fix's command failed (rc {bad['rc']}): {last}")
    # The import stopped only at what this machine lacks, and every library it stops at was
    # judged beyond that by ldd: the fix is verified up to the machine.
    probe_missing = set(re.findall(r"(\S+): cannot open shared object file", after["stderr"]))
    probe_machine = (after["rc"] != 0 and bool(up_to_machine) and bool(probe_missing)
                     and probe_missing <= env_missing and "undefined symbol" not in after["stderr"])
    if after["rc"] != 0 and not uninstall_fix and not probe_machine:
        why.append(f"`{sc['probe']}` still fails: " + (after["stderr"].strip().splitlines() or ["?"])[-1][:300])
    if uninstall_fix and torch_after != "ok" and sc["probe"] != "import torch":
        why.append(f"import torch fails after removal: {torch_after[:200]}")
    if uninstall_fix and sc["probe"] == "import torch" and after["rc"] != 0:
        why.append("import torch still fails")
    if still:
        why.append(f"{len(still)} library(ies) still fail to dlopen: " + ", ".join(still[:4]))
    if not must_ok and not (uninstall_fix and after["rc"] != 0):
        alt_fail = sorted({v for k, v in dl_after.items() if v != "ok" and any(fnmatch.fnmatch(k, p) for p in must)})
        why.append(f"no library matching {' or '.join(must)} loads" + (f" ({alt_fail[0][:160]})" if alt_fail else " (none installed)"))
    if regress or new_fail:
        why.append(f"{len(regress) + len(new_fail)} library(ies) fail that did not before: " + ", ".join((regress + new_fail)[:4]))
    if not res["original_untouched"]:
        why.append("the original env changed (hard-link copy assumption broken)")
    res["after_dlopen"]["up_to_machine"] = up_to_machine
    notes = []
    if up_to_machine or probe_machine:
        lacking = sorted(set(up_to_machine.values()) | (probe_missing if probe_machine else set()))
        notes.append(f"up to {', '.join(lacking)}, which this machine lacks: {len(up_to_machine)} "
                     f"library(ies) stop only there, and `ldd -r` finds everything else they need")
    if emulated:
        notes.append("root step emulated: " + "; ".join(emulated) + " (its .deb files unpacked into the copy, "
                     "found through LD_LIBRARY_PATH)")
    verdict = "yes (by removal)" if uninstall_fix and after["rc"] != 0 and not probe_machine else "yes"
    if notes:
        verdict += " (" + "; ".join(notes) + ")"
    res["verified"] = "no" if why else verdict
    res["why"] = "; ".join(why)
    if not keep:
        shutil.rmtree(copy_dir, ignore_errors=True)
    return res


# ------------------------------------------------------------------ report


def machine():
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
    except OSError:
        pass
    osname = platform.platform()
    try:
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "memory": mem, "os": osname, "kernel": platform.release(),
            "python": platform.python_version()}


def md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def fix_cmdline(fix):
    if not fix:
        return "—"
    cmds = [re.sub(re.escape(str(ENVS)) + r"/[^/ ]+", "$ENV", " ".join(a)) for a in fix.get("commands", [])]
    envs = [f"{k}={v}" for k, v in (fix.get("env") or {}).items()]
    s = "; ".join(cmds) if cmds else "(no command)"
    if envs:
        s = " ".join(envs) + " " + s
    return s


def commits_note(results, current):
    """Which rows an earlier commit made, when a `--only` run left them in place."""
    earlier = {}
    for r in results:
        c = r.get("commit", current)
        if c != current:
            earlier.setdefault(c, []).append(r["scenario"])
    if not earlier:
        return ""
    return "; rows made by earlier commits: " + "; ".join(
        f"{c} ({', '.join(names)})" for c, names in sorted(earlier.items())
    )


def write_report(results, meta, md_path: Path):
    lines = [
        "# Preferred fixes, verified by the loader",
        "",
        f"Generated {meta['date']} by `{meta['command']}` (lab/README.md) with `{meta['abidoc']}` "
        f"({meta['abidoc_version']}, commit {meta['commit']})"
        + commits_note(results, meta["commit"]) + ".",
        f"Machine: {meta['machine']['nproc']} CPUs, {meta['machine']['memory']}, {meta['machine']['os']} "
        f"(kernel {meta['machine']['kernel']}), Python {meta['machine']['python']}, no GPU.",
        "",
        "Each scenario is a real environment built from PyPI wheels (torch with its nvidia-* wheels; "
        "`$ENV` below is the scenario's venv). "
        "The failing import is run for real; its traceback goes to `abidoc check`, the environment to "
        "`abidoc scan`; the preferred fix (`preferred: true`, from check, else from scan) is applied "
        "in a hard-link copy of the environment and judged by the real loader: the import must "
        "succeed, every library that failed `dlopen` after `import torch` must load (or be gone, for "
        "an uninstall), and nothing that loaded before may fail. Full records: `lab/results.json`.",
        "",
        "| scenario | code (package) | preferred fix | verified | time |",
        "|---|---|---|---|---|",
    ]

    def row(label, named, fx):
        named = named or {}
        code = f"`{named.get('code')}`" + (f" ({named.get('package')})" if named.get("package") else "")
        ver = fx.get("verified", "?")
        if fx.get("why"):
            ver += " — " + fx["why"]
        t = fx.get("apply", {}).get("seconds")
        dl = fx.get("apply", {}).get("downloaded_bytes")
        ts = "—" if t is None else f"{t:.0f} s" + (f", {dl / 1e6:.0f} MB downloaded" if dl else "")
        return f"| {label} | {md_escape(code)} | `{md_escape(fix_cmdline(fx.get('fix')))}` | {md_escape(ver)} | {ts} |"

    for r in results:
        label = f"**{r['scenario']}**: {md_escape(r['title'])}"
        if "error" in r:
            lines.append(f"| {label} | — | — | lab error — {md_escape(r['error'])} | — |")
            continue
        lines.append(row(label, r.get("named"), r))
        if r.get("scan_preferred"):
            lines.append(row("↳ scan's own preferred fix (first error of `abidoc scan`)", r["scan_preferred"].get("named"), r["scan_preferred"]))
        if r.get("reference"):
            lines.append(row("↳ reference fix (hand-written in lab.py, not abidoc's)", {"code": "—"}, r["reference"]))
    lines += ["", "## Preferred fixes that did not verify", ""]
    bad = [r for r in results if "error" not in r and not str(r.get("verified", "")).startswith("yes")]
    if not bad:
        lines.append("None.")
    for r in bad:
        named = r.get("named") or {}
        what = f"`{fix_cmdline(r['fix'])}`" if r.get("fix") else "no preferred fix"
        lines.append(f"- **{r['scenario']}** (`{named.get('code')}`): {what} — {md_escape(r.get('why') or '')}.")
        ref = r.get("reference")
        if ref:
            lines.append(f"  What the lab's reference fix gave: `{fix_cmdline(ref.get('fix'))}` → "
                         f"{ref.get('verified')}{(' — ' + md_escape(ref['why'])) if ref.get('why') else ''}.")
        sp = r.get("scan_preferred")
        if sp:
            lines.append(f"  `abidoc scan`'s preferred fix (`{(sp.get('named') or {}).get('code')}`): "
                         f"`{fix_cmdline(sp.get('fix'))}` → {sp.get('verified')}.")
    heavy = [r for r in results if str(r.get("verified", "")).startswith("yes")
             and (r.get("apply", {}).get("downloaded_bytes") or 0) > 1e9]
    if heavy:
        lines += ["", "## Preferred fixes that verified but cost more than needed", ""]
        for r in heavy:
            ref = r.get("reference") or {}
            lines.append(f"- **{r['scenario']}**: `{fix_cmdline(r['fix'])}` downloaded "
                         f"{r['apply']['downloaded_bytes'] / 1e9:.1f} GB in {r['apply']['seconds']:.0f} s"
                         + (f"; the reference `{fix_cmdline(ref.get('fix'))}` → {ref.get('verified')} in "
                            f"{ref.get('apply', {}).get('seconds', 0):.0f} s, "
                            f"{(ref.get('apply', {}).get('downloaded_bytes') or 0) / 1e6:.0f} MB." if ref else "."))
    lines.append("")
    md_path.write_text("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", action="append", help="scenario name (repeatable)")
    ap.add_argument("--abidoc", default=os.environ.get("ABIDOC", "/work/target-lab/release/abidoc"))
    ap.add_argument("--keep", action="store_true", help="keep the fixed copies (ENV.fix)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-reference", action="store_true", help="do not try the hand-written reference fixes")
    ap.add_argument("--reference-only", action="store_true",
                    help="only (re)try the reference fixes; merged into the existing rows")
    ap.add_argument("--results", default=str(HERE / "results.json"))
    ap.add_argument("--report", default=str(REPO / "docs" / "fixes-verified.md"))
    a = ap.parse_args()
    if a.list:
        for s in SCENARIOS:
            print(f"{s['name']:28} {s['title']}")
        return 0
    sel = [s for s in SCENARIOS if not a.only or s["name"] in a.only]
    unknown = set(a.only or []) - {s["name"] for s in SCENARIOS}
    if unknown:
        print(f"unknown scenario(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    global REFERENCE, REFERENCE_ONLY
    REFERENCE = not a.no_reference
    REFERENCE_ONLY = a.reference_only
    abidoc = str(Path(a.abidoc).resolve())
    if not os.access(abidoc, os.X_OK):
        print(f"abidoc binary not found: {abidoc}", file=sys.stderr)
        return 2
    ENVS.mkdir(parents=True, exist_ok=True)
    TMP.mkdir(parents=True, exist_ok=True)
    PIP_CACHE.mkdir(parents=True, exist_ok=True)
    # Previous results of scenarios not re-run are kept, so `--only` updates one row.
    old = {}
    rp = Path(a.results)
    if rp.exists():
        try:
            old = {r["scenario"]: r for r in json.loads(rp.read_text()).get("results", [])}
        except (ValueError, KeyError):
            old = {}
    _, ver, _, _ = run([abidoc, "--version"], 30)
    _, commit, _, _ = run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], 30)
    for sc in sel:
        log(f"== {sc['name']}: {sc['title']}")
        try:
            r = run_scenario(sc, abidoc, a.keep)
        except Exception as e:  # a scenario that cannot be built is a row, not a crash
            r = {"scenario": sc["name"], "title": sc["title"], "base_torch": sc["base"], "verified": "no",
                 "error": f"{type(e).__name__}: {clip(str(e), 600)}"}
        log(f"{sc['name']}: verified={r.get('verified')} {r.get('why', '') or ''} {r.get('error', '')}")
        # Each row says which abidoc made it: `--only` re-runs leave other rows as they were.
        r["commit"] = commit.strip()
        old[sc["name"]] = r
        order = [s["name"] for s in SCENARIOS]
        results = [old[n] for n in order if n in old]
        meta = {
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "command": "lab/run.sh",
            "abidoc": a.abidoc, "abidoc_version": ver.strip(), "commit": commit.strip(),
            "machine": machine(),
        }
        with open(str(rp) + ".lock", "w") as lk:  # two runs with disjoint --only may share the files
            fcntl.flock(lk, fcntl.LOCK_EX)
            if rp.exists():
                try:
                    doc = json.loads(rp.read_text())
                    cur = {x["scenario"]: x for x in doc.get("results", [])}
                    # Rows written before rows carried their commit: the run's commit.
                    for x in cur.values():
                        x.setdefault("commit", doc.get("meta", {}).get("commit", "?"))
                except (ValueError, KeyError, AttributeError):
                    cur = {}
                if REFERENCE_ONLY:
                    if sc["name"] in cur and "error" not in r:
                        cur[sc["name"]].update(r)
                else:
                    cur[sc["name"]] = r
                # rows of scenarios this lab.py does not know (another version of it) are kept
                results = [cur[n] for n in order if n in cur] + [v for k, v in cur.items() if k not in order]
            rp.write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")
            write_report(results, meta, Path(a.report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
