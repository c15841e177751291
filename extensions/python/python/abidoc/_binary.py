"""Finding and running the `abidoc` binary that the wheel ships; no IPython here.

Everything in this module is plain data in, plain data out, so it can be tested without a
kernel. Nothing here imports the packages being diagnosed: the binary reads them from disk.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

log = logging.getLogger("abidoc")

#: Environment variable naming the binary to use when the wheel's own copy is not installed.
ENV_BINARY = "ABIDOC_PATH"
#: Extra site-packages directories (os.pathsep-separated) to show the binary, for directories a
#: notebook adds to ``sys.path`` by hand, which ``site`` does not know about.
ENV_SITE_PACKAGES = "ABIDOC_SITE_PACKAGES"
#: Seconds a diagnosis may take before it is abandoned.
DEFAULT_TIMEOUT = 20.0
#: Seconds a verdict on an install line may take: it runs before the cell, so the cell waits.
DEFAULT_VERIFY_TIMEOUT = 10.0

_EXE = "abidoc.exe" if os.name == "nt" else "abidoc"


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _scripts_dirs() -> List[str]:
    """``sysconfig``'s scripts directories: the environment's, then the user's (pip --user)."""
    out = []
    for scheme in (None, f"{os.name}_user"):
        try:
            scripts = sysconfig.get_path("scripts") if scheme is None else sysconfig.get_path("scripts", scheme)
        except (KeyError, ValueError):
            # The user scheme does not exist on every platform/build.
            continue
        if scripts:
            out.append(scripts)
    return out


def candidate_paths(
    executable: Optional[str] = None,
    environ: Optional[Mapping[str, str]] = None,
    scripts_dirs: Optional[Sequence[str]] = None,
) -> List[str]:
    """Where the binary may be, best first, without looking at the disk.

    The wheel installs the binary into the scripts directory of the environment that runs the
    kernel, so that one wins over anything the user's PATH happens to hold first.
    """
    executable = sys.executable if executable is None else executable
    environ = os.environ if environ is None else environ
    out: List[str] = []
    if executable:
        out.append(os.path.join(os.path.dirname(os.path.abspath(executable)), _EXE))
    for scripts in _scripts_dirs() if scripts_dirs is None else scripts_dirs:
        out.append(os.path.join(scripts, _EXE))
    explicit = environ.get(ENV_BINARY, "").strip()
    if explicit:
        out.append(explicit)
    # Deduplicate while keeping the order: the venv's scripts dir usually is sysconfig's too.
    seen = set()
    unique = []
    for path in out:
        key = os.path.normcase(os.path.abspath(path))
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def find_binary(
    executable: Optional[str] = None,
    environ: Optional[Mapping[str, str]] = None,
    scripts_dirs: Optional[Sequence[str]] = None,
) -> Optional[str]:
    """The path of the `abidoc` binary, or None when there is none.

    Order: the scripts directory next to ``sys.executable``, ``sysconfig``'s scripts directories
    (environment, then user), ``$ABIDOC_PATH``, then ``PATH``.
    """
    environ = os.environ if environ is None else environ
    for path in candidate_paths(executable, environ, scripts_dirs):
        if _is_executable(path):
            return path
    return shutil.which(_EXE, path=environ.get("PATH", os.defpath))


def _split_dirs(value: str) -> List[str]:
    return [part for part in value.split(os.pathsep) if part.strip()]


def _holds_distributions(directory: str) -> bool:
    try:
        with os.scandir(directory) as entries:
            return any(e.name.endswith((".dist-info", ".egg-info")) for e in entries)
    except OSError:
        return False


def site_packages_dirs(
    extra: Iterable[str] = (),
    environ: Optional[Mapping[str, str]] = None,
    sys_path: Optional[Sequence[str]] = None,
) -> List[str]:
    """The site-packages directories of the running interpreter, extra ones first.

    Extra directories (configured, then ``$ABIDOC_SITE_PACKAGES``) come first because a notebook
    puts them in front of ``sys.path``, so what they hold shadows the environment's copies. When
    ``sys_path`` is given, its entries that hold installed distributions follow, in import order
    (a ``sys.path.insert`` made in a cell is seen without configuration); then ``site``'s own.
    """
    environ = os.environ if environ is None else environ
    dirs: List[str] = list(extra)
    dirs.extend(_split_dirs(environ.get(ENV_SITE_PACKAGES, "")))
    for entry in sys_path or ():
        if isinstance(entry, str) and entry and os.path.isabs(entry) and _holds_distributions(entry):
            dirs.append(entry)
    try:
        dirs.extend(site.getsitepackages())
    except AttributeError:
        # Old virtualenv's site.py has no getsitepackages.
        pass
    try:
        user = site.getusersitepackages()
    except AttributeError:
        user = None
    if user and site.ENABLE_USER_SITE:
        dirs.append(user)
    out: List[str] = []
    seen = set()
    for d in dirs:
        if not os.path.isdir(d):
            continue
        key = os.path.normcase(os.path.realpath(d))
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def env_args(
    extra_site_packages: Iterable[str] = (),
    executable: Optional[str] = None,
    environ: Optional[Mapping[str, str]] = None,
    sys_path: Optional[Sequence[str]] = None,
) -> List[str]:
    """The options that point the binary at the kernel's own environment."""
    executable = sys.executable if executable is None else executable
    args: List[str] = []
    if executable:
        args += ["--python", executable]
    for d in site_packages_dirs(extra_site_packages, environ, sys_path):
        args += ["--site-packages", d]
    return args


@dataclass
class RunResult:
    """What one run of the binary gave back; ``report`` is the parsed contract JSON."""

    returncode: int
    stdout: str
    stderr: str
    report: Optional[Dict[str, Any]] = None
    problem: Optional[str] = None
    argv: List[str] = field(default_factory=list)

    @property
    def diagnostics(self) -> List[Dict[str, Any]]:
        if not self.report:
            return []
        diags = self.report.get("diagnostics")
        return [d for d in diags if isinstance(d, dict)] if isinstance(diags, list) else []


def parse_report(stdout: str) -> Optional[Dict[str, Any]]:
    """The contract JSON document, or None when ``stdout`` is not one."""
    text = stdout.strip()
    if not text:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("diagnostics"), list):
        return None
    return doc


def run(
    args: Sequence[str],
    stdin_text: Optional[str] = None,
    timeout: float = DEFAULT_TIMEOUT,
    binary: Optional[str] = None,
) -> RunResult:
    """Run ``abidoc ARGS`` and parse its JSON; never raises.

    Exit codes 0 and 1 both mean "ran" (1: something at error severity was found); anything else
    is reported in ``problem`` with the binary's one-line reason.
    """
    binary = binary or find_binary()
    if not binary:
        return RunResult(-1, "", "", problem="the abidoc binary was not found (pip install abidoc, or set ABIDOC_PATH)")
    argv = [binary, *args]
    try:
        proc = subprocess.run(
            argv,
            input=stdin_text,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
            stdin=None if stdin_text is not None else subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return RunResult(-1, "", "", problem=f"abidoc took longer than {timeout:g} s", argv=argv)
    except OSError as err:
        return RunResult(-1, "", "", problem=f"could not run {binary}: {err}", argv=argv)
    result = RunResult(proc.returncode, proc.stdout, proc.stderr, argv=argv)
    if proc.returncode not in (0, 1):
        reason = proc.stderr.strip().splitlines()
        # The binary's reason already names it ("abidoc: ..."); callers add their own prefix.
        last = reason[-1].strip() if reason else ""
        result.problem = last[len("abidoc:") :].strip() if last.startswith("abidoc:") else last
        result.problem = result.problem or f"abidoc exited with status {proc.returncode}"
        return result
    result.report = parse_report(proc.stdout)
    if result.report is None and "--format" in args:
        result.problem = "abidoc printed no JSON report"
    return result


def check_text(
    text: str,
    extra_site_packages: Iterable[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    binary: Optional[str] = None,
    use_env: bool = True,
    sys_path: Optional[Sequence[str]] = None,
    model: Optional[str] = None,
    sources: Optional[str] = None,
) -> RunResult:
    """Diagnose a traceback or log given as text, against the kernel's environment.

    ``model`` is the model in use when the kernel holds one; ``sources`` the kernel's input
    history, whose model ids tell the same when it holds none. Either decides whether an
    extension the model does not need may simply be removed.
    """
    args = ["check", "-", "--format", "json"]
    args += env_args(extra_site_packages, sys_path=sys_path) if use_env else ["--no-env"]
    if model:
        args += ["--model", model]
    if sources is None:
        return run(args, stdin_text=text, timeout=timeout, binary=binary)
    fd, path = tempfile.mkstemp(prefix="abidoc-sources-", suffix=".py")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(sources)
        return run([*args, "--sources", path], stdin_text=text, timeout=timeout, binary=binary)
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


def check_paths(
    paths: Sequence[str],
    extra_site_packages: Iterable[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    binary: Optional[str] = None,
    use_env: bool = True,
    sys_path: Optional[Sequence[str]] = None,
) -> RunResult:
    """Diagnose log files, tracebacks or notebooks on disk."""
    args = ["check", *paths, "--format", "json"]
    args += env_args(extra_site_packages, sys_path=sys_path) if use_env else ["--no-env"]
    return run(args, timeout=timeout, binary=binary)


def scan(
    extra_site_packages: Iterable[str] = (),
    timeout: float = 60.0,
    binary: Optional[str] = None,
    sys_path: Optional[Sequence[str]] = None,
) -> RunResult:
    """Scan the kernel's environment for extensions that will not load."""
    args = ["scan", "--format", "json", *env_args(extra_site_packages, sys_path=sys_path)]
    return run(args, timeout=timeout, binary=binary)


def verify_install(
    wheels: Sequence[str] = (),
    packages: Sequence[Tuple[str, Optional[str]]] = (),
    plans: Sequence[str] = (),
    torch: Optional[str] = None,
    extra_site_packages: Iterable[str] = (),
    timeout: float = DEFAULT_VERIFY_TIMEOUT,
    binary: Optional[str] = None,
    sys_path: Optional[Sequence[str]] = None,
) -> RunResult:
    """Judge, before installing, what one install names (wheels, requirement files,
    prebuilt-wheel packages, a torch pin) against the kernel's environment, as one report
    (``abidoc verify``: the binary answers the packages and previews the torch pin in one run);
    nothing is installed or run."""
    if not (wheels or plans or torch or packages):
        return RunResult(0, "", "", report={"version": 1, "diagnostics": []})
    args = ["verify", *wheels, *plans, "--format", "json"]
    if torch:
        args += ["--torch", torch]
    for name, version in packages:
        args += ["--package", f"{name}=={version}" if version else name]
    args += env_args(extra_site_packages, sys_path=sys_path)
    return run(args, timeout=timeout, binary=binary)
