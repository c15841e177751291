#!/usr/bin/env python3
"""`abidoc verify` against the real loader, on real PyPI wheels (NOT in CI: downloads from PyPI).

For every case a real wheel is downloaded (`pip download --no-deps`), `abidoc verify WHEEL
--python BASE/bin/python` predicts whether its libraries load in the lab's base torch environment,
and then the wheel is installed for real (`pip install --no-deps`) into a hard-link copy of that
environment, where the import is run and every library of the wheel is `dlopen`ed after
`import torch` (the lab's referee, `lab.py`). The torch-upgrade preview is judged the same way:
`abidoc verify --torch NEW` on an environment whose extensions load, then torch NEW installed in a
copy and every extension imported.

    lab/verify.sh [--only NAME]... [--abidoc PATH] [--keep] [--list]

Writes lab/verify-results.json and docs/verify-verified.md.

`--index` is the offline-index variant: no environment and nothing installed. Each wheel of
INDEX_CASES is judged by `abidoc verify WHEEL --torch T` against an empty site-packages, for
the torch it was built for (expected: loads) and for a later torch (expected: a library fails),
both from the offline torch index, with `unzip -l` of the wheel timed beside it.

    lab/verify.sh --index [--only NAME]... [--abidoc PATH] [--list]

Writes lab/verify-index-results.json; exit 1 when a verdict is not the expected one.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lab  # noqa: E402  (the lab's environments, runner and loader referee)

WHEELS = lab.CACHE / "wheels"

# name, base torch, the wheel (pip requirement), the import a user runs, what the case shows.
CASES = [
    ("torchvision-0.25-on-2.15", "2.15.0", "torchvision==0.25.0", "import torchvision", "built for torch 2.10"),
    ("torchvision-0.29.2-on-2.15", "2.15.0", "torchvision==0.29.2", "import torchvision", "built for torch 2.15"),
    ("torchvision-0.21-on-2.15", "2.15.0", "torchvision==0.21.0", "import torchvision", "torch 2.6, pre-C++11 ABI"),
    ("torchaudio-2.8-on-2.15", "2.15.0", "torchaudio==2.8.0", "import torchaudio", "built for torch 2.8, CUDA 12"),
    ("xformers-0.0.33-on-2.15", "2.15.0", "xformers==0.0.33.post2", "import xformers.ops", "built for torch 2.9.1, CUDA 12.8"),
    ("torchao-0.9-on-2.15", "2.15.0", "torchao==0.9.0", "import torchao", "built for torch 2.6"),
    ("torchao-0.18-on-2.15", "2.15.0", "torchao==0.18.0", "import torchao", "built for current torch"),
    ("bitsandbytes-0.45.5-on-2.15", "2.15.0", "bitsandbytes==0.45.5", "import bitsandbytes", "CUDA 12 libraries only, torch is CUDA 13"),
    ("bitsandbytes-0.50.2-on-2.15", "2.15.0", "bitsandbytes==0.50.2", "import bitsandbytes", "ships CUDA 13 libraries"),
    ("torchvision-0.21-on-2.6", "2.6.0", "torchvision==0.21.0", "import torchvision", "built for torch 2.6"),
    ("torchvision-0.22-on-2.6", "2.6.0", "torchvision==0.22.0", "import torchvision", "torch 2.7, C++11 ABI"),
]

# name, base torch, what is installed next to it, the new torch, the imports judged after.
UPGRADES = [
    ("torch-2.6-to-2.15", "2.6.0", ["torchvision==0.21.0", "pillow"], "2.15.0", ["import torchvision"]),
]


# The offline-index variant (`--index`): distribution==version, the torch it pins, a later torch
# it does not load with.
INDEX_CASES = [
    ("torchvision==0.20.1", "2.5.1", "2.10.0"),
    ("torchaudio==2.5.1", "2.5.1", "2.10.0"),
    ("xformers==0.0.28.post3", "2.5.1", "2.10.0"),
]


def index_case_name(req: str) -> str:
    return req.replace("==", "-")


def download(req: str) -> Path:
    WHEELS.mkdir(parents=True, exist_ok=True)
    name = req.split("==")[0].replace("-", "_").lower()
    version = req.split("==")[1]
    for w in WHEELS.glob("*.whl"):
        parts = w.name.split("-")
        if parts[0].lower() == name and parts[1] == version:
            return w
    rc, out, err, _ = lab.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
         "--python-version", "3.11",
         *[a for t in ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64",
                       "manylinux_2_17_x86_64", "manylinux2014_x86_64", "linux_x86_64")
           for a in ("--platform", t)],
         "-d", WHEELS, req],
        lab.PIP_TIMEOUT,
    )
    if rc:
        raise RuntimeError(f"pip download {req} failed: {lab.clip(err, 3000)}")
    return download(req)


def wheel_libraries(wheel: Path):
    with zipfile.ZipFile(wheel) as z:
        return sorted(n for n in z.namelist() if n.endswith(".so") or ".so." in n.rsplit("/", 1)[-1])


def predicted(abidoc: str, args):
    rc, doc, err, secs = lab.abidoc_json(abidoc, ["verify", *args])
    diags = doc.get("diagnostics", [])
    errors = [d for d in diags if d.get("severity") == "error"]
    return {
        "rc": rc,
        "loads": rc == 0 and not errors,
        "errors": lab.summarize(errors),
        "stderr": err,
        "seconds": secs,
        "libraries": sorted({d.get("library") or "" for d in errors}),
    }


def real_install(base: Path, copy: Path, reqs, probes, keep: bool, pip_args=("--no-deps",)):
    lab.hardlink_copy(base, copy)
    py = copy / "bin" / "python"
    rc, out, err, secs = lab.pip(py, ["install", "-q", *pip_args, *[str(r) for r in reqs]])
    if rc:
        return {"installed": False, "error": lab.clip(err, 2000)}
    runs = [lab.probe(copy, p) for p in probes]
    dl, torch_state = lab.dlopen_all(copy)
    rc, cuda, _, _ = lab.run([py, "-c", "import torch; print(torch.version.cuda or '')"], lab.PY_TIMEOUT)
    res = {"installed": True, "probes": runs, "dlopen": dl, "torch": torch_state,
           "torch_cuda": cuda.strip() or None, "install_seconds": round(secs, 1)}
    if not keep:
        import shutil

        shutil.rmtree(copy, ignore_errors=True)
    return res


def unpicked_backend(rel: str, torch_cuda: str | None) -> bool:
    """A per-backend library the import never loads: bitsandbytes loads only
    `libbitsandbytes_cuda<torch's CUDA, e.g. 130>.so` (cextension.py: BNB_CUDA_VERSION unset)."""
    name = rel.rsplit("/", 1)[-1]
    if not name.startswith("libbitsandbytes_"):
        return False
    want = "cuda" + (torch_cuda or "").replace(".", "")
    backend = name[len("libbitsandbytes_"):].split(".")[0]
    return backend != want and backend != "cpu"


def verdict_of(real, libs, baseline):
    """Loads for real: the import succeeded and every library of the wheel that the import would
    load loads after `import torch`, except those that fail in the pristine base environment as
    well for a reason of this machine (no GPU driver: `libcuda.so.1`)."""
    if not real.get("installed"):
        return None, "install failed: " + real.get("error", "")[:300]
    failed = [p for p in real["probes"] if p["rc"] != 0]
    if failed:
        last = [l for l in failed[0]["stderr"].splitlines() if l.strip()][-1:]
        return False, "import fails: " + (last[0][:300] if last else f"rc {failed[0]['rc']}")
    bad = []
    backends = [r for r in libs if r.rsplit("/", 1)[-1].startswith("libbitsandbytes_")]
    if backends and all(unpicked_backend(r, real.get("torch_cuda")) or "_cpu" in r for r in backends):
        want = "libbitsandbytes_cuda" + (real.get("torch_cuda") or "").replace(".", "") + ".so"
        return False, f"the library the import picks for torch's CUDA {real.get('torch_cuda')}, {want}, is not in the wheel (GPU functions unavailable)"
    for rel in libs:
        r = real["dlopen"].get(rel)
        if r is None or r == "ok" or unpicked_backend(rel, real.get("torch_cuda")):
            continue
        if "libcuda.so.1" in r and any("libcuda.so.1" in v for v in baseline.values()):
            continue  # this machine has no NVIDIA driver; torch's own CUDA libraries fail alike
        bad.append(f"{rel}: {r[:200]}")
    if bad:
        return False, f"{len(bad)} library(ies) fail dlopen: " + "; ".join(bad[:3])
    return True, "import and every library load"


def run_case(case, abidoc, keep):
    name, base_v, req, probe, why = case
    lab.log(f"{name}: {req} on torch {base_v}")
    base = lab.ensure_base(base_v)
    baseline = lab.baseline_failures(base_v)
    wheel = download(req)
    t0 = time.monotonic()
    pred = predicted(abidoc, [str(wheel), "--python", str(base / "bin" / "python")])
    verify_s = time.monotonic() - t0
    t0 = time.monotonic()
    subprocess.run(["unzip", "-l", str(wheel)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    unzip_s = time.monotonic() - t0
    libs = wheel_libraries(wheel)
    # What the import needs besides the wheel (pure-Python dependencies), installed with it.
    extras = {"torchvision": ["pillow"], "bitsandbytes": ["packaging"]}.get(req.split("==")[0], [])
    real = real_install(base, lab.ENVS / f"_verify-{name}", [wheel, *extras], [probe], keep)
    loads, detail = verdict_of(real, libs, baseline)
    return {
        "case": name, "kind": "wheel", "base_torch": base_v, "wheel": wheel.name, "why": why,
        "predicted": pred, "real_loads": loads, "real": detail,
        "agree": None if loads is None else pred["loads"] == loads,
        "verify_seconds": round(verify_s, 2), "unzip_l_seconds": round(unzip_s, 2),
    }


def run_upgrade(up, abidoc, keep):
    name, base_v, installs, new_torch, probes = up
    lab.log(f"{name}: preview torch {new_torch} over torch {base_v} + {installs}")
    sc = {"name": f"_verify-env-{name}", "base": base_v, "install": [installs]}
    env = lab.ensure_env(sc)
    before = [lab.probe(env, p) for p in probes]
    pred = predicted(abidoc, ["--torch", new_torch, "--python", str(env / "bin" / "python")])
    # torch with its own dependencies (its nvidia-* wheels), nothing else moved.
    real = real_install(env, lab.ENVS / f"_verify-{name}", [f"torch=={new_torch}"], probes, keep, pip_args=())
    broken = [p for p, r in zip(probes, real.get("probes", [])) if r["rc"] != 0]
    installed = real.get("installed", False)
    return {
        "case": name, "kind": "upgrade", "base_torch": base_v, "installs": installs, "new_torch": new_torch,
        "loads_before": all(b["rc"] == 0 for b in before),
        "predicted": pred, "predicted_breaks": pred["libraries"],
        "real_loads": (not broken) if installed else None,
        "real": "breaks: " + ", ".join(broken) if broken else ("all imports work" if installed else "install failed: " + real.get("error", "")[:300]),
        "agree": pred["loads"] == (not broken) if installed else None,
    }


def failing_libraries(doc) -> list:
    """Library paths (relative to site-packages) `verify` says would not load."""
    return sorted({d["library"].split("site-packages/", 1)[-1]
                   for d in doc.get("diagnostics", [])
                   if d.get("severity") == "error" and d.get("library")})


def run_index(req, built_for, later, abidoc):
    """One wheel against the torch it was built for and a later one, from the offline index,
    with no environment: an empty site-packages (not this machine's python3 on PATH)."""
    empty = lab.TMP / "verify-index-site-packages"
    empty.mkdir(parents=True, exist_ok=True)
    wheel = download(req)
    t0 = time.monotonic()
    subprocess.run(["unzip", "-l", str(wheel)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    unzip_s = round(time.monotonic() - t0, 3)
    row = {"case": index_case_name(req), "wheel": wheel.name, "unzip_l_seconds": unzip_s, "checks": []}
    for torch, want_loads in ((built_for, True), (later, False)):
        rc, doc, err, secs = lab.abidoc_json(
            abidoc, ["verify", str(wheel), "--torch", torch, "--site-packages", str(empty)])
        if rc >= 2:
            raise RuntimeError(f"abidoc verify could not run on {wheel.name}: {err}")
        fails = failing_libraries(doc)
        ok = (rc == 0) == want_loads
        row["checks"].append({"torch": torch, "expected_loads": want_loads, "exit": rc,
                              "seconds": secs, "fails": fails, "as_expected": ok})
        print("%-5s %s --torch %s: exit %d in %.2fs (unzip -l %.2fs)%s" % (
            "ok" if ok else "WRONG", wheel.name, torch, rc, secs, unzip_s,
            "" if rc == 0 else ": " + ", ".join(fails)), flush=True)
    return row


def main_index(a):
    names = [index_case_name(c[0]) for c in INDEX_CASES]
    if a.list:
        print("\n".join(names))
        return 0
    lab.TMP.mkdir(parents=True, exist_ok=True)
    rows = [run_index(*c, a.abidoc) for c in INDEX_CASES
            if not a.only or index_case_name(c[0]) in a.only]
    rc, ver, _, _ = lab.run([a.abidoc, "--version"], 30)
    rc2, commit, _, _ = lab.run(["git", "-C", lab.REPO, "rev-parse", "--short", "HEAD"], 30)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "abidoc": a.abidoc,
            "version": ver.strip(), "commit": commit.strip(), "machine": lab.machine()}
    (lab.HERE / "verify-index-results.json").write_text(
        json.dumps({"meta": meta, "results": rows}, indent=1))
    wrong = sum(1 for r in rows for c in r["checks"] if not c["as_expected"])
    print(f"as expected: {sum(len(r['checks']) for r in rows) - wrong} of {sum(len(r['checks']) for r in rows)}")
    return 1 if wrong else 0


def write_report(results, meta, path: Path):
    rows = [
        "# `abidoc verify`, checked by the loader",
        "",
        f"Generated {meta['date']} by `lab/verify.sh` with `{meta['abidoc']}` ({meta['version']}, commit {meta['commit']}).",
        f"Machine: {meta['machine']['nproc']} CPUs, {meta['machine']['memory']}, {meta['machine']['os']}, Python {meta['machine']['python']}, no GPU.",
        "",
        "Each wheel is a real PyPI wheel; the environment is the lab's base venv of that torch (torch and its nvidia-* wheels from PyPI). "
        "`verify` reads the wheel without installing it; then the wheel is installed with `pip install --no-deps` into a hard-link copy, "
        "the import is run and every library of the wheel is `dlopen`ed after `import torch`. A library that fails only for want of "
        "`libcuda.so.1` (no GPU driver on this machine) does not count, as for torch's own. Full records: `lab/verify-results.json`.",
        "",
        "| case | wheel | abidoc verify says | the real install and import | agree | verify / unzip -l |",
        "|---|---|---|---|---|---|",
    ]
    agree = sum(1 for r in results if r["agree"])
    judged = sum(1 for r in results if r["agree"] is not None)
    for r in results:
        p = r["predicted"]
        said = "loads" if p["loads"] else "fails: " + ", ".join(sorted({e["code"] or "?" for e in p["errors"]})) or f"rc {p['rc']}"
        if r["kind"] == "wheel":
            rows.append(
                f"| {r['case']} | `{r['wheel']}` ({lab.md_escape(r['why'])}) | {lab.md_escape(said)} | "
                f"{ {True: 'loads', False: 'fails', None: 'not judged'}[r['real_loads']] } — {lab.md_escape(r['real'])} | { {True: 'yes', False: '**no**', None: '—'}[r['agree']] } | "
                f"{r['verify_seconds']} s / {r['unzip_l_seconds']} s |"
            )
        else:
            rows.append(
                f"| {r['case']} | torch {r['base_torch']} → {r['new_torch']} preview ({', '.join(r['installs'])}) | "
                f"{lab.md_escape(said)} {lab.md_escape(', '.join(p['libraries']))} | {lab.md_escape(r['real'])} | "
                f"{ {True: 'yes', False: '**no**', None: '—'}[r['agree']] } | — |"
            )
    rows += ["", f"Agreement: {agree} of {judged} judged ({len(results)} cases).", ""]
    path.write_text("\n".join(rows))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--abidoc", default="/work/target-lab/release/abidoc")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--index", action="store_true",
                    help="the offline-index variant: INDEX_CASES with no environment (see the docstring)")
    a = ap.parse_args()
    if a.index:
        sys.exit(main_index(a))
    names = [c[0] for c in CASES] + [u[0] for u in UPGRADES]
    if a.list:
        print("\n".join(names))
        return
    lab.TMP.mkdir(parents=True, exist_ok=True)
    out_json = lab.HERE / "verify-results.json"
    old = {}
    if a.only and out_json.exists():
        old = {r["case"]: r for r in json.loads(out_json.read_text()).get("results", [])}
    results = []
    for c in CASES:
        if not a.only or c[0] in a.only:
            results.append(run_case(c, a.abidoc, a.keep))
        elif c[0] in old:
            results.append(old[c[0]])
    for u in UPGRADES:
        if not a.only or u[0] in a.only:
            results.append(run_upgrade(u, a.abidoc, a.keep))
        elif u[0] in old:
            results.append(old[u[0]])
    rc, ver, _, _ = lab.run([a.abidoc, "--version"], 30)
    rc2, commit, _, _ = lab.run(["git", "-C", lab.REPO, "rev-parse", "--short", "HEAD"], 30)
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "abidoc": a.abidoc, "version": ver.strip(), "commit": commit.strip(), "machine": lab.machine(),
    }
    out_json.write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    write_report(results, meta, lab.REPO / "docs" / "verify-verified.md")
    print(f"agreement: {sum(1 for r in results if r['agree'])} of {sum(1 for r in results if r['agree'] is not None)} judged")


if __name__ == "__main__":
    main()
