#!/usr/bin/env python3
"""Derive server/knowledge/data/releases.toml from PyPI metadata, through pip.

For each release of each companion package (torchvision, xformers, vllm, ...): the torch it pins
(`Requires-Dist: torch==X`), whether PyPI has Linux x86_64 wheels for it or only an sdist, and the
CUDA major its wheels target. pip does the talking to PyPI (the only network access allowed to
this project's tools), so everything comes from two commands:

- `pip index versions PKG [--only-binary :all: --platform ... --python-version X]`: every version,
  and the versions with a Linux x86_64 wheel for Python X (pip lists only installable ones);
- `pip install --dry-run --no-deps --ignore-installed --report - PKG==V` with the same target
  options: the chosen wheel's file name and its metadata (requires_dist), read from the PEP 658
  `.metadata` file, so no wheel is downloaded.

Answers are cached as JSON under --cache (default /tmp/abidoc-release-data); a re-run only asks
pip about what is not cached. Stdlib only.

Usage: python3 tools/release-data/derive.py [--out PATH] [--cache DIR] [--jobs N] [--only PKG,...]
"""

import argparse
import concurrent.futures as cf
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys

# (distribution, first version considered). The floor keeps the run to releases built for
# torch >= 2.0 (2023 on); packages that do not link torch's C++ are not listed.
PACKAGES = [
    ("torch", "2.0.0"),  # probed for the CUDA major of its default wheels, not written out
    ("torchvision", "0.15.0"),
    ("torchaudio", "2.0.0"),
    ("torchtext", "0.15.0"),
    ("xformers", "0.0.18"),
    ("vllm", "0.1.0"),
    ("sgl-kernel", "0.0.1"),
    ("torchao", "0.1"),
    ("transformer-engine-torch", "1.9.0"),
    ("flashinfer-python", "0.0.1"),
    ("bitsandbytes", "0.38.0"),
    ("flash-attn", "2.0.0"),
    ("mamba-ssm", "1.0.0"),
    ("causal-conv1d", "1.0.0"),
    ("torch-scatter", "2.1.0"),
    ("torch-sparse", "0.6.17"),
    ("torch-cluster", "1.6.1"),
    ("torch-spline-conv", "1.2.2"),
    ("mmcv", "2.0.0"),
    ("deepspeed", "0.8.0"),
    ("auto-gptq", "0.2.0"),
    # One torch release line per release (`>=2.10.0,<2.11.0`, read as the pin `2.10.*`).
    ("torch-tensorrt", "1.4.0"),
    ("fairseq2n", "0.1.0"),
    # sdist only on PyPI (its wheels are on its own index): said so, never "reinstall the wheel".
    ("natten", "0.14.6"),
]

PLATFORMS = [
    "manylinux_2_28_x86_64",
    "manylinux_2_27_x86_64",
    "manylinux_2_24_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
    "manylinux2010_x86_64",
    "manylinux1_x86_64",
    "linux_x86_64",
]
# Newest first: the report is asked for with the first Python a release has a wheel for.
PYTHONS = ["3.12", "3.11", "3.10", "3.13", "3.9", "3.8", "3.14"]

PIP = [sys.executable, "-m", "pip"]


def run_pip(args, cache, key):
    """Runs pip once per cache key; caches stdout, stderr and the exit status."""
    path = os.path.join(cache, hashlib.sha1(key.encode()).hexdigest()[:20] + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    p = subprocess.run(PIP + args, capture_output=True, text=True, timeout=300)
    out = {"key": key, "rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr}
    # A network failure is not an answer: do not cache it, so the next run asks again.
    transient = "Could not fetch URL" in p.stderr or "ConnectionError" in p.stderr
    if not transient:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f)
        os.replace(tmp, path)
    return out


def target_args(py):
    a = ["--only-binary", ":all:", "--python-version", py, "--implementation", "cp"]
    for p in PLATFORMS:
        a += ["--platform", p]
    return a


VERSION_RE = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")


def parse_listing(text):
    """Versions from `pip index versions` stdout (`Available versions: a, b`)."""
    for line in text.splitlines():
        if line.startswith("Available versions:"):
            vs = [v.strip() for v in line.split(":", 1)[1].split(",")]
            return [v for v in vs if VERSION_RE.match(v)]
    return []


def vkey(v):
    """Sort key for the PEP 440 subset PyPI companions use (release, pre, post)."""
    m = re.match(r"^(\d+(?:\.\d+)*)((a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?$", v)
    if not m:
        return ((0,), 0, 0)
    rel = tuple(int(x) for x in m.group(1).split("."))
    rel = rel + (0,) * (4 - len(rel))
    pre = (0, int(m.group(4))) if m.group(2) else (1, 0)
    post = int(m.group(5)) if m.group(5) else -1
    return (rel, pre, post)


def is_final(v):
    return not re.search(r"(a|b|rc|dev)\d+", v)


REQ_RE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(\(?[^;]*?\)?)\s*(;.*)?$")


def parse_req(req):
    m = REQ_RE.match(req)
    if not m:
        return None
    name = re.sub(r"[-_.]+", "-", m.group(1)).lower()
    spec = (m.group(3) or "").strip().strip("()").replace(" ", "")
    marker = (m.group(4) or "").lstrip(";").strip()
    return name, spec, marker


def marker_applies(marker):
    """Whether a requirement applies on Linux x86_64 without extras (a coarse reading)."""
    m = marker.replace('"', "'")
    if "extra" in m:
        return False
    for bad in ("=='win32'", "=='darwin'", "=='Windows'", "=='Darwin'", "!='Linux'", "!='linux'",
                "=='aarch64'", "=='arm64'"):
        if bad in m.replace(" ", ""):
            return False
    return True


def torch_pin(reqs):
    """(exact torch version or None, the torch specifier as written or None)."""
    for r in reqs or []:
        p = parse_req(r)
        if not p or p[0] != "torch" or not marker_applies(p[2]):
            continue
        spec = p[1]
        m = re.fullmatch(r"==(\d+(?:\.\d+)+)(\.\*)?", spec)
        if m:
            return m.group(1) + (m.group(2) or ""), spec
        return minor_range(spec), spec or None
    return None, None


def minor_range(spec):
    """`>=2.10.0,<2.11.0` (torch-tensorrt's form, clauses in either order) admits one torch
    release line and no other: the pin `2.10.*`. Anything else: None."""
    lo = hi = None
    for c in spec.split(","):
        if c.startswith(">=") and lo is None:
            lo = c[2:]
        elif c.startswith("<") and not c.startswith("<=") and hi is None:
            hi = c[1:]
        else:
            return None
    parts = []
    for v in (lo, hi):
        m = re.fullmatch(r"(\d+)\.(\d+)(?:\.0)?", v or "")
        if not m:
            return None
        parts.append((int(m.group(1)), int(m.group(2))))
    (a, b), (c, d) = parts
    return f"{a}.{b}.*" if (c, d) == (a, b + 1) else None


def triton_pin(reqs):
    """The triton release torch pins for Linux x86_64 (`triton==3.1.0; platform_system ==
    "Linux" ...`): Inductor imports internals of exactly that release."""
    for r in reqs or []:
        p = parse_req(r)
        if p and p[0] in ("triton", "pytorch-triton") and marker_applies(p[2]):
            # `==3.1.0` up to torch 2.13, `~=3.8.0` (any 3.8.x) from 2.14: kept as written.
            if re.fullmatch(r"(==|~=)\d+(\.\d+)+", p[1]):
                return p[1]
    return None


def cuda_from_reqs(reqs):
    """CUDA major from `nvidia-*-cu12` / `-cu13` / `-cu11` requirements, or `cuda-toolkit`."""
    majors = set()
    for r in reqs or []:
        p = parse_req(r)
        if not p or not marker_applies(p[2]):
            continue
        m = re.fullmatch(r"nvidia-[a-z0-9-]+-cu(\d+)", p[0])
        if m:
            majors.add(int(m.group(1)))
        # From torch 2.11 the CUDA libraries come as `cuda-toolkit[cudart,...]==13.0.2`.
        m = re.fullmatch(r"==(\d+)\.[\d.]+", p[1]) if p[0] == "cuda-toolkit" else None
        if m:
            majors.add(int(m.group(1)))
    return max(majors) if majors else None


def cuda_runtime(reqs):
    """`12.1` from `nvidia-cuda-runtime-cu12==12.1.105` or `cuda-toolkit[cudart]==13.0.2`
    (torch pins the exact runtime)."""
    for r in reqs or []:
        p = parse_req(r)
        runtime = re.fullmatch(r"nvidia-cuda-runtime-cu\d+", p[0]) if p else None
        if not p or not marker_applies(p[2]) or not (runtime or p[0] == "cuda-toolkit"):
            continue
        m = re.fullmatch(r"==(\d+)\.(\d+)(\.[\d.]+)?", p[1])
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None


def cuda_from_label(text):
    m = re.search(r"\+cu(\d+)", text or "")
    if not m:
        return None
    d = m.group(1)
    return int(d[:-1]) if len(d) >= 3 else int(d)  # cu121 → 12, cu12 → 12, cu118 → 11


def derive(pkg, floor, cache, jobs):
    listing = run_pip(["index", "versions", pkg], cache, f"index:{pkg}")
    all_versions = set(parse_listing(listing["stdout"]))
    wheel_py = {}  # version -> first Python (in PYTHONS order) with a Linux x86_64 wheel
    for py in PYTHONS:
        r = run_pip(["index", "versions", pkg] + target_args(py), cache, f"index:{pkg}:{py}")
        for v in parse_listing(r["stdout"]):
            wheel_py.setdefault(v, py)
            all_versions.add(v)
    versions = sorted(
        (v for v in all_versions if is_final(v) and vkey(v) >= vkey(floor)), key=vkey
    )

    def one(v):
        row = {"package": pkg, "version": v, "wheels": v in wheel_py}
        if v in wheel_py:
            py = wheel_py[v]
            r = run_pip(
                ["install", "--dry-run", "--quiet", "--no-deps", "--ignore-installed",
                 # Read the metadata with HTTP range requests from the wheel itself: where the
                 # index serves no PEP 658 `.metadata` file pip would otherwise download the
                 # whole wheel (800 MB for torch) to read it.
                 "--use-feature=fast-deps",
                 "--report", "-", f"{pkg}=={v}"] + target_args(py),
                cache, f"report:{pkg}=={v}:{py}",
            )
            try:
                item = json.loads(r["stdout"])["install"][0]
            except (ValueError, KeyError, IndexError):
                row["error"] = (r["stderr"] or "no report").strip().splitlines()[-1:]
                return row
            meta = item.get("metadata", {})
            url = item.get("download_info", {}).get("url", "")
            row["wheel"] = url.rsplit("/", 1)[-1]
            row["python"] = py
            reqs = meta.get("requires_dist") or []
            row["torch"], row["torch_spec"] = torch_pin(reqs)
            row["cuda_from_reqs"] = cuda_from_reqs(reqs)
            row["cuda_from_label"] = cuda_from_label(row["wheel"])
            row["cuda_runtime"] = cuda_runtime(reqs)
            row["triton"] = triton_pin(reqs)
        return row

    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        return list(ex.map(one, versions))


def cuda_major(row, torch_cuda):
    """Wheel CUDA major: the package's own nvidia-*-cuNN requirements, else its local label,
    else the default CUDA of the torch it pins (torch's own nvidia requirements)."""
    if not row.get("wheels"):
        return None
    for k in ("cuda_from_reqs", "cuda_from_label"):
        if row.get(k):
            return row[k], k
    t = row.get("torch")
    if t and torch_cuda.get(t):
        return torch_cuda[t], "torch"
    return None


def toml_str(s):
    return json.dumps(s)  # a TOML basic string is a JSON string for our ASCII data


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "../../server/knowledge/data/releases.toml"))
    ap.add_argument("--cache", default="/tmp/abidoc-release-data")
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated packages (debugging: no output file)")
    a = ap.parse_args()
    os.makedirs(a.cache, exist_ok=True)
    start = datetime.datetime.now(datetime.timezone.utc)
    pkgs = PACKAGES
    if a.only:
        names = set(a.only.split(","))
        pkgs = [p for p in PACKAGES if p[0] in names]
    rows = {}
    for pkg, floor in pkgs:
        t0 = datetime.datetime.now()
        rows[pkg] = derive(pkg, floor, a.cache, a.jobs)
        errs = [r for r in rows[pkg] if r.get("error")]
        print(f"{pkg}: {len(rows[pkg])} releases, {sum(r['wheels'] for r in rows[pkg])} with wheels, "
              f"{len(errs)} unreadable ({(datetime.datetime.now() - t0).seconds}s)", file=sys.stderr)
        for r in errs:
            print(f"  {pkg} {r['version']}: {r['error']}", file=sys.stderr)
    if a.only:
        json.dump(rows, sys.stdout, indent=1)
        return
    torch_cuda = {r["version"]: r.get("cuda_from_reqs") for r in rows.get("torch", [])}
    pip_version = subprocess.run(PIP + ["--version"], capture_output=True, text=True).stdout.split()[1]
    out = [
        "# GENERATED by tools/release-data/derive.py; do not edit. Remake with:",
        "#   python3 tools/release-data/derive.py   (a Python with a current pip; see its README.md)",
        f"# on {start.date().isoformat()} from PyPI, through pip {pip_version}: `pip index versions` lists each",
        "# release's Linux x86_64 wheels, `pip install --dry-run --report --use-feature=fast-deps`",
        "# reads each wheel's METADATA (requires_dist) without downloading the wheel.",
        "# Per release of a package that links torch, from torch 2.0 on:",
        "#   torch      the torch it pins (`Requires-Dist: torch==X`; `X.Y.*` for `==X.Y.*` or a",
        "#              range admitting one release line, `>=X.Y.0,<X.Y+1.0`); absent if it pins none",
        "#   torch_spec the torch requirement as written, when it is not an exact pin",
        "#   wheels     PyPI has a Linux x86_64 wheel (false: sdist only, built at install)",
        "#   cuda_major CUDA major of that wheel: from its nvidia-*-cuNN requirements (`reqs`), its",
        "#              local version label (`label`) or the default CUDA of the pinned torch (`torch`)",
        "#   wheel      the file name pip chose (the newest Python with a wheel among 3.8-3.14)",
        "# torch itself is listed for its own CUDA: `cuda_major`, and `cuda`, the major.minor of the",
        "# nvidia-cuda-runtime-cuNN or cuda-toolkit it pins (the CUDA of its default PyPI wheel),",
        "# and `triton`, its Linux x86_64 triton requirement as written (`==3.1.0`, `~=3.8.0`).",
        "",
    ]
    for pkg, _ in pkgs:
        for r in rows[pkg]:
            if r.get("error"):
                continue
            out.append("[[release]]")
            out.append(f"package = {toml_str(pkg)}")
            out.append(f"version = {toml_str(r['version'])}")
            if r.get("torch"):
                out.append(f"torch = {toml_str(r['torch'])}")
            if r.get("torch_spec") and not r.get("torch"):
                out.append(f"torch_spec = {toml_str(r['torch_spec'])}")
            out.append(f"wheels = {'true' if r['wheels'] else 'false'}")
            c = cuda_major(r, torch_cuda)
            if c:
                out.append(f"cuda_major = {c[0]}")
                out.append(f"cuda_from = {toml_str({'cuda_from_reqs': 'reqs', 'cuda_from_label': 'label', 'torch': 'torch'}[c[1]])}")
            if pkg == "torch" and r.get("cuda_runtime"):
                out.append(f"cuda = {toml_str(r['cuda_runtime'])}")
            if pkg == "torch" and r.get("triton"):
                out.append(f"triton = {toml_str(r['triton'])}")
            if r.get("wheel"):
                out.append(f"wheel = {toml_str(r['wheel'])}")
            out.append("")
    with open(a.out, "w") as f:
        f.write("\n".join(out))
    secs = (datetime.datetime.now(datetime.timezone.utc) - start).seconds
    n = sum(len(v) for v in rows.values())
    print(f"wrote {a.out}: {n} releases in {secs}s", file=sys.stderr)


if __name__ == "__main__":
    main()
