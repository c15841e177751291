"""The real import as referee for `abidoc scan`: imports every distribution that ships a shared
object, each in its own child interpreter, and compares which imports fail with the
distributions the scan put at error.

Run with the environment's own interpreter (it reads the environment's metadata; it imports
nothing itself, only the children do):

    ENV/bin/python lab/import_referee.py SCAN.json OUT_PREFIX

Writes OUT_PREFIX.txt (the table) and OUT_PREFIX.json. The scan JSON is
`abidoc scan --python ENV/bin/python --no-cache --format json`.
"""

import concurrent.futures
import importlib.metadata as md
import json
import os
import re
import subprocess
import sys

# An import that fails for one of these reasons is the loader's business (what scan judges); any
# other failure (a missing pure-Python dependency, no display, a licence prompt) is not.
LOADER_REASONS = re.compile(
    r"undefined symbol|cannot open shared object|version `[^']+' not found|DLL load failed"
    r"|symbol not found|library not loaded|wrong ELF class|invalid ELF header|file too short",
    re.IGNORECASE,
)


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def top_levels(dist):
    """The import names a distribution provides, from top_level.txt or else its RECORD."""
    text = dist.read_text("top_level.txt")
    names = set()
    if text:
        names = {n.strip().replace("/", ".") for n in text.splitlines() if n.strip()}
    else:
        for f in dist.files or []:
            parts = f.parts
            if not parts or parts[0].endswith((".dist-info", ".data")) or parts[0] in ("..", "bin"):
                continue
            if len(parts) > 1 and parts[1] == "__init__.py":
                names.add(parts[0])
            elif len(parts) == 1 and (parts[0].endswith(".py") or ".so" in parts[0]):
                names.add(parts[0].split(".")[0])
    return sorted(n for n in names if n and n.isidentifier() and n != "__pycache__")


def ships_shared_object(dist):
    return any(".so" in f.name or f.name.endswith(".pyd") for f in dist.files or [])


def run_child(code, timeout=180):
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=timeout, env=dict(os.environ, PYTHONWARNINGS="ignore"))
    except subprocess.TimeoutExpired:
        return False, "timed out"
    if p.returncode == 0:
        return True, ""
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    return False, (lines[-1] if lines else f"exit {p.returncode}")[:300]


def main():
    scan_path, out = sys.argv[1], sys.argv[2]
    scan = json.load(open(scan_path))
    errors = {}
    for d in scan.get("diagnostics", []):
        if d.get("severity") == "error":
            errors.setdefault(norm(d.get("package") or "?"), []).append(d)

    dists = {}
    for dist in md.distributions():
        name = dist.metadata["Name"]
        if name and ships_shared_object(dist) and norm(name) not in dists:
            dists[norm(name)] = (name, dist.version, top_levels(dist))

    jobs = {(key, mod): f"import {mod}" for key, (_, _, mods) in dists.items() for mod in mods}
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
        futs = {pool.submit(run_child, code): job for job, code in jobs.items()}
        for fut in concurrent.futures.as_completed(futs):
            results[futs[fut]] = fut.result()

    # A library scan puts at error that no import loads is judged by dlopen after `import torch`,
    # as the lab does: the loader is the referee either way.
    dlopen = {}
    libs = sorted({d["library"] for ds in errors.values() for d in ds if d.get("library")})
    code = ("import sys, ctypes\ntry:\n    import torch\nexcept Exception:\n    pass\n"
            "ctypes.CDLL(sys.argv[1])")
    for lib in libs:
        try:
            p = subprocess.run([sys.executable, "-c", code, lib], capture_output=True, text=True,
                               timeout=120)
            lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
            dlopen[lib] = "loads" if p.returncode == 0 else (lines[-1] if lines else "fails")[:300]
        except subprocess.TimeoutExpired:
            dlopen[lib] = "timed out"

    rows, counts = [], {"agree-ok": 0, "agree-fail": 0, "scan-error-import-ok": 0,
                        "import-fails-loader-no-scan-error": 0, "import-fails-other": 0}
    for key in sorted(set(dists) | set(errors)):
        name, version, mods = dists.get(key, (key, "?", []))
        fails = [(m, results[(key, m)][1]) for m in mods if not results.get((key, m), (True,))[0]]
        loader_fails = [(m, r) for m, r in fails if LOADER_REASONS.search(r)]
        scan_err = key in errors
        if scan_err and loader_fails:
            verdict = "agree-fail"
        elif scan_err:
            verdict = "scan-error-import-ok"
        elif loader_fails:
            verdict = "import-fails-loader-no-scan-error"
        elif fails:
            verdict = "import-fails-other"
        else:
            verdict = "agree-ok"
        counts[verdict] += 1
        rows.append({"package": name, "version": version, "modules": mods, "verdict": verdict,
                     "import_failures": [{"module": m, "reason": r} for m, r in fails],
                     "scan_errors": [{"code": d["code"], "library": d.get("library"),
                                      "dlopen_after_torch": dlopen.get(d.get("library"), "")}
                                     for d in errors.get(key, [])]})

    json.dump({"counts": counts, "packages": rows}, open(out + ".json", "w"), indent=1)
    with open(out + ".txt", "w") as f:
        f.write(f"{len(dists)} distributions ship shared objects; {len(jobs)} imports run\n")
        for k, v in counts.items():
            f.write(f"  {k:38} {v}\n")
        for r in rows:
            if r["verdict"] == "agree-ok":
                continue
            f.write(f"\n{r['package']} {r['version']}: {r['verdict']}\n")
            for x in r["import_failures"]:
                f.write(f"  import {x['module']}: {x['reason']}\n")
            for x in r["scan_errors"][:8]:
                f.write(f"  scan {x['code']}: {x['library']} (dlopen after torch: "
                        f"{x['dlopen_after_torch']})\n")
            if len(r["scan_errors"]) > 8:
                f.write(f"  … {len(r['scan_errors']) - 8} more scan errors\n")
    print(open(out + ".txt").read())


if __name__ == "__main__":
    main()
