"""The IPython side: the hooks (a verdict before a ``pip install`` cell, an explanation after a
failing one) and ``%abidoc``.

Loaded with ``%load_ext abidoc``. The hooks and the magic run the ``abidoc`` binary on text and
on the kernel's environment on disk; they never import the packages they diagnose, never run pip,
and the hooks never let an exception of their own reach the user's session.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import sys
import traceback
from typing import Any, List, Optional

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display
from traitlets import Bool, Float, List as TList, Unicode

from . import _binary, _display, _pipline

log = logging.getLogger("abidoc")

USAGE = """\
%abidoc                 diagnose the last error raised in this kernel
%abidoc PATH...         diagnose log files, tracebacks or notebooks (e.g. a saved pip log)
%abidoc --text TEXT     diagnose TEXT (e.g. the output of a failed !pip install)
%%abidoc                diagnose the text of the cell body
%abidoc scan            scan this kernel's environment for extensions that will not load
%abidoc --help          this text

Options (%config Abidoc.<name> = value): auto (diagnose failing cells; default True),
timeout (seconds, default 20), site_packages (extra directories, also $ABIDOC_SITE_PACKAGES),
follow_sys_path (also read sys.path entries holding distributions; default True),
verify (before a cell with a pip install line, say whether what it installs would load;
default True), verify_timeout (seconds, default 10).
"""

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def format_exception(err: BaseException) -> str:
    """The exception as CPython prints it, chained causes included."""
    return "".join(traceback.format_exception(type(err), err, err.__traceback__))


# A Hugging Face id or a local path, as `--model` accepts it.
_MODEL_ID = re.compile(r"^[A-Za-z0-9._/~+@-]{1,256}$")


def model_in_namespace(ns: Any) -> Optional[str]:
    """The model a loaded transformers object in the kernel names (``name_or_path``).

    Read passively: only objects whose class comes from ``transformers`` are looked at (the
    class's module is a plain attribute of the type), and only plain string attributes of their
    configuration are read, so nothing is imported and no user code runs.
    """
    if not isinstance(ns, dict):
        return None
    for name, obj in list(ns.items()):
        if name.startswith("_"):
            continue
        module = getattr(type(obj), "__module__", "") or ""
        if not module.startswith("transformers."):
            continue
        own = getattr(obj, "__dict__", None)
        if not isinstance(own, dict):
            continue
        # A configuration names the model itself; a model holds its configuration.
        config = own if "configuration_" in module else getattr(own.get("config"), "__dict__", None)
        if not isinstance(config, dict):
            continue
        value = config.get("_name_or_path")
        if isinstance(value, str) and _MODEL_ID.match(value.strip()):
            return value.strip()
    return None


def input_history(shell: Any) -> Optional[str]:
    """The cells this kernel ran, as one text (IPython's ``In`` list), for the model ids they name."""
    ns = getattr(shell, "user_ns", None)
    cells = ns.get("In") if isinstance(ns, dict) else None
    if not isinstance(cells, list):
        return None
    text = "\n".join(c for c in cells if isinstance(c, str))
    # The newest cells matter most; the history of a long session is capped.
    return text[-1_000_000:] or None


@magics_class
class Abidoc(Magics):
    """``%abidoc`` and the failing-cell hook; configurable with ``%config Abidoc.<name>``."""

    auto = Bool(True, help="Diagnose every cell that raises, right under its traceback.").tag(config=True)
    timeout = Float(_binary.DEFAULT_TIMEOUT, help="Seconds one diagnosis may take.").tag(config=True)
    site_packages = TList(
        Unicode(),
        help="Extra site-packages directories to read (in front of the kernel's own), "
        "e.g. directories added to sys.path by hand. $ABIDOC_SITE_PACKAGES adds more.",
    ).tag(config=True)

    follow_sys_path = Bool(
        True,
        help="Also read the sys.path entries that hold installed distributions (a sys.path.insert made in a cell).",
    ).tag(config=True)

    verify = Bool(
        True,
        help="Before a cell with a `%pip install`/`!pip install` line runs, say whether the local wheels and "
        "prebuilt-wheel packages it names would load against this kernel's torch (never runs pip).",
    ).tag(config=True)
    verify_timeout = Float(
        _binary.DEFAULT_VERIFY_TIMEOUT, help="Seconds a verdict on an install line may take (the cell waits)."
    ).tag(config=True)

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self._last_error: Optional[BaseException] = None

    def _sys_path(self) -> Optional[List[str]]:
        return list(sys.path) if self.follow_sys_path else None

    def _check_text(self, text: str) -> _binary.RunResult:
        return _binary.check_text(
            text,
            self.site_packages,
            self.timeout,
            sys_path=self._sys_path(),
            model=model_in_namespace(getattr(self.shell, "user_ns", None)),
            sources=input_history(self.shell),
        )

    # ---------------------------------------------------------------- the hooks

    def pre_run_cell(self, info: Any = None) -> None:
        """Before a cell that installs, show whether what it installs would load; never blocks it."""
        try:
            if not self.verify:
                return
            cell = getattr(info, "raw_cell", None)
            if not isinstance(cell, str) or "install" not in cell or len(cell) > _pipline.MAX_CELL:
                return
            # What IPython will run, not the text: a bare `pip` line it would not run as %pip,
            # or `pip install` inside a string, is not an install.
            commands = _pipline.commands_of(self.shell.transform_cell(cell))
            plan = _pipline.parse_cell("\n".join(commands))
            if not plan:
                return
            run = _binary.verify_install(
                wheels=plan.wheels,
                packages=plan.packages,
                plans=plan.requirement_files,
                torch=plan.torch,
                extra_site_packages=self.site_packages,
                timeout=self.verify_timeout,
                sys_path=self._sys_path(),
            )
            if run.problem or run.report is None:
                # The cell runs as written whatever happened here: no verdict is better than noise.
                log.debug("abidoc: no verdict: %s (%s)", run.problem, run.stderr.strip())
                return
            shown = _display.verdict_bundle(run.report)
            if shown is not None:
                display(shown, raw=True)
        except BaseException:  # noqa: BLE001 - a verdict must never break the user's session
            log.debug("abidoc: the pre_run_cell hook failed", exc_info=True)

    def post_run_cell(self, result: Any) -> None:
        """Explain the error of a cell that raised; show nothing for anything else."""
        try:
            err = getattr(result, "error_in_exec", None)
            if err is None or not self.auto:
                return
            self._last_error = err
            if not isinstance(err, Exception):
                # KeyboardInterrupt, SystemExit: the user stopped the cell, nothing to explain.
                return
            run = self._check_text(format_exception(err))
            if run.problem:
                log.debug("abidoc: no diagnosis: %s (%s)", run.problem, run.stderr.strip())
                return
            if run.diagnostics and run.report is not None:
                display(_display.bundle(run.report), raw=True)
        except BaseException:  # noqa: BLE001 - a diagnosis must never break the user's session
            log.debug("abidoc: the post_run_cell hook failed", exc_info=True)

    # ---------------------------------------------------------------- the magic

    @line_cell_magic
    def abidoc(self, line: str = "", cell: Optional[str] = None) -> None:
        """Diagnose the last error, a log, a text, or scan the environment. See ``%abidoc --help``."""
        line = line.strip()
        try:
            if cell is not None:
                self._show_check(self._check_text(cell), "the cell")
            elif line in ("-h", "--help", "help"):
                print(USAGE)
            elif not line:
                self._diagnose_last()
            elif line == "scan" or line.startswith("scan "):
                self._scan()
            elif line.startswith("--text"):
                self._show_check(self._check_text(self._text_arg(line)), "the text")
            else:
                self._check_paths(shlex.split(line))
        except Exception as err:  # noqa: BLE001 - report, do not raise into the session
            log.debug("abidoc: %%abidoc failed", exc_info=True)
            print(f"abidoc: {err}", file=sys.stderr)

    @staticmethod
    def _text_arg(line: str) -> str:
        rest = line[len("--text") :].lstrip(" =")
        # `%abidoc --text "..."`: drop one level of quotes when the whole rest is quoted.
        if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "'\"":
            try:
                parts = shlex.split(rest)
            except ValueError:
                parts = []
            if len(parts) == 1:
                return parts[0]
        return rest

    def _last_exception(self) -> Optional[BaseException]:
        for name in ("last_exc", "last_value"):
            err = getattr(sys, name, None)
            if isinstance(err, BaseException):
                return err
        return self._last_error

    def _diagnose_last(self) -> None:
        err = self._last_exception()
        if err is not None:
            text = format_exception(err)
        else:
            stb = getattr(self.shell, "_last_traceback", None)
            if not stb:
                print("abidoc: no error has been raised in this kernel yet; see %abidoc --help")
                return
            text = _ANSI.sub("", "\n".join(str(s) for s in stb))
        self._show_check(self._check_text(text), "the last error")

    def _check_paths(self, paths: List[str]) -> None:
        missing = [p for p in paths if p != "-" and not os.path.exists(p)]
        if missing:
            print(f'abidoc: no such file: {", ".join(missing)} (use %abidoc --text "..." for text)')
            return
        self._show_check(
            _binary.check_paths(paths, self.site_packages, self.timeout, sys_path=self._sys_path()), " ".join(paths)
        )

    def _show_check(self, run: _binary.RunResult, what: str) -> None:
        if run.problem:
            print(f"abidoc: {run.problem}", file=sys.stderr)
            return
        if run.diagnostics and run.report is not None:
            display(_display.bundle(run.report), raw=True)
        else:
            print(f"abidoc: no known cause found in {what}")

    def _scan(self) -> None:
        run = _binary.scan(self.site_packages, timeout=max(self.timeout, 60.0), sys_path=self._sys_path())
        if run.problem:
            print(f"abidoc: {run.problem}", file=sys.stderr)
            return
        display(_display.scan_bundle(run.report or {"version": 1, "diagnostics": []}), raw=True)


_loaded: Optional[Abidoc] = None


def load(ip: Any) -> None:
    """Register the magic and the hook on ``ip``; loading twice is harmless."""
    global _loaded
    if _loaded is not None and _loaded.shell is ip:
        return
    magics = Abidoc(shell=ip)
    ip.register_magics(magics)
    ip.events.register("pre_run_cell", magics.pre_run_cell)
    ip.events.register("post_run_cell", magics.post_run_cell)
    _loaded = magics


def unload(ip: Any) -> None:
    """Undo ``load``: the hook, the magic and the ``%config`` entry go away."""
    global _loaded
    magics = _loaded
    _loaded = None
    if magics is None:
        return
    for event, callback in (("pre_run_cell", magics.pre_run_cell), ("post_run_cell", magics.post_run_cell)):
        try:
            ip.events.unregister(event, callback)
        except ValueError:
            pass
    table = ip.magics_manager.magics
    for kind in ("line", "cell"):
        table.get(kind, {}).pop("abidoc", None)
    ip.magics_manager.registry.pop(type(magics).__name__, None)
    if magics in getattr(ip, "configurables", []):
        ip.configurables.remove(magics)
