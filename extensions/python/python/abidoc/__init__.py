"""abidoc: why a compiled Python extension will not load, explained under the failing cell.

``pip install abidoc`` puts the ``abidoc`` binary on the environment's PATH; in Jupyter or
IPython, ``%load_ext abidoc`` diagnoses every cell that raises (see ``%abidoc --help``).
This package never imports the packages it diagnoses: the binary reads them from disk.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional

from ._binary import ENV_BINARY, ENV_SITE_PACKAGES, RunResult, find_binary
from ._display import MIME

__all__ = [
    "ENV_BINARY",
    "ENV_SITE_PACKAGES",
    "MIME",
    "RunResult",
    "diagnose",
    "find_binary",
    "load_ipython_extension",
    "unload_ipython_extension",
]


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("abidoc")
    except Exception:  # noqa: BLE001 - running from a source tree
        return "0+unknown"


__version__ = _version()


def diagnose(text: str, site_packages: Iterable[str] = (), timeout: float = 20.0) -> Optional[Dict[str, Any]]:
    """Diagnose a traceback or log against this interpreter's environment.

    Returns the contract JSON (``{"version": 1, "diagnostics": [...]}``), or None when the
    binary could not run.
    """
    from ._binary import check_text

    return check_text(text, site_packages, timeout).report


def load_ipython_extension(ip: Any) -> None:
    """``%load_ext abidoc``: the ``%abidoc`` magic and the failing-cell hook."""
    from .magics import load

    load(ip)


def unload_ipython_extension(ip: Any) -> None:
    """``%unload_ext abidoc``."""
    from .magics import unload

    unload(ip)
