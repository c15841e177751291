"""End to end: the installed wheel, a real kernel, a real notebook, a library built here that fails to load.

Run by ``extensions/python/test.sh`` inside a fresh virtualenv where the wheel is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from fakeenv import EXPORTED_SYMBOL, MISSING_SYMBOL, FakeSite, dynamic_symbols

MIME = "application/vnd.abidoc.v1+json"
VENV_BIN = Path(sys.executable).parent


def _abidoc_outputs(cell: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [o for o in cell["outputs"] if o.get("output_type") == "display_data" and MIME in o.get("data", {})]


def _stream_text(cell: Dict[str, Any]) -> str:
    return "".join(o["text"] for o in cell["outputs"] if o.get("output_type") == "stream")


def _pip_lines(report: Dict[str, Any]) -> List[str]:
    return [
        fix.get("notebook_cell", "")
        for diag in report["diagnostics"]
        for fix in diag.get("fixes", [])
        if fix.get("notebook_cell", "").lstrip().startswith("%pip")
    ]


# Cell indices, so assertions read as what they check.
LOAD, IMPORT, ZERO_DIV, OK, MAGIC_LAST, MAGIC_PATH, CELL_MAGIC, SCAN, MODEL_HISTORY, MODEL_NAMESPACE, UNLOADED = range(11)

TRANSFORMER = "ibm-granite/granite-3.2-8b-instruct"
HYBRID = "ibm-granite/granite-4.0-h-micro"


@pytest.fixture(scope="module")
def executed(fake_site: FakeSite, private_jupyter: dict, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Any]:
    work = tmp_path_factory.mktemp("notebook")
    site = str(fake_site.root)
    log = work / "import-error.log"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "    import selective_scan_cuda\n"
        f"ImportError: {fake_site.extension}: undefined symbol: {MISSING_SYMBOL}\n",
        encoding="utf-8",
    )
    cells = [
        # Not following sys.path makes ABIDOC_SITE_PACKAGES the only way abidoc can learn about
        # the fake torch, so the cells below prove the variable is honoured.
        "%load_ext abidoc\n%config Abidoc.follow_sys_path = False",
        # The fake torch lives outside the kernel's environment: only this cell puts it on
        # sys.path, and tells abidoc with the variable the extension honours.
        "import os, sys\n"
        f"sys.path.insert(0, {site!r})\n"
        f"os.environ['ABIDOC_SITE_PACKAGES'] = {site!r}\n"
        "import selective_scan_cuda",
        "1/0",
        'print("ok")',
        "%abidoc",
        f"%abidoc {log}",
        f"%%abidoc\n{log.read_text(encoding='utf-8')}",
        "%abidoc scan",
        # Seed 000 in a live kernel: the model is named only in the kernel's input history.
        f"model_id = {TRANSFORMER!r}\nimport selective_scan_cuda",
        # A loaded configuration in the namespace names another model: it decides. The class
        # only claims transformers' module, as a real one would; nothing is imported.
        "class GraniteMoeHybridConfig:\n"
        "    pass\n"
        "GraniteMoeHybridConfig.__module__ = 'transformers.models.granitemoehybrid.configuration_granitemoehybrid'\n"
        "config = GraniteMoeHybridConfig()\n"
        f"config._name_or_path = {HYBRID!r}\n"
        "import selective_scan_cuda",
        "%unload_ext abidoc\nimport selective_scan_cuda",
    ]
    nb = new_notebook(cells=[new_code_cell(src) for src in cells])
    nb.metadata["kernelspec"] = {
        "name": private_jupyter["kernel_name"],
        "display_name": "abidoc test",
        "language": "python",
    }
    client = NotebookClient(
        nb,
        kernel_name=private_jupyter["kernel_name"],
        timeout=180,
        startup_timeout=120,
        allow_errors=True,
        resources={"metadata": {"path": str(work)}},
    )
    client.execute()
    path = work / "executed.ipynb"
    nbformat.write(nb, str(path))
    saved = nbformat.read(str(path), as_version=4)
    nbformat.validate(saved)
    keep = os.environ.get("ABIDOC_KEEP_NOTEBOOK")
    if keep:
        shutil.copy(path, keep)
    return {"nb": saved, "fake_site": fake_site, "log": log}


def test_fixture_reproduces_the_field_report(fake_site: FakeSite) -> None:
    assert MISSING_SYMBOL in dynamic_symbols(fake_site.extension)["undefined"]
    assert "PyInit_selective_scan_cuda" in dynamic_symbols(fake_site.extension)["defined"]
    assert EXPORTED_SYMBOL in dynamic_symbols(fake_site.libc10)["defined"]


def test_pip_put_the_binary_on_the_venv_path() -> None:
    exe = shutil.which("abidoc", path=str(VENV_BIN))
    assert exe is not None and Path(exe).parent == VENV_BIN
    proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("abidoc "), proc.stdout
    import abidoc

    assert abidoc.find_binary() == exe


def test_extension_loads_quietly(executed: Dict[str, Any]) -> None:
    assert executed["nb"].cells[LOAD]["outputs"] == []


def test_failing_import_is_explained_under_the_error(executed: Dict[str, Any]) -> None:
    outputs = executed["nb"].cells[IMPORT]["outputs"]
    kinds = [o["output_type"] for o in outputs]
    assert kinds == ["error", "display_data"], outputs
    error = outputs[0]
    assert error["ename"] == "ImportError"
    assert f"undefined symbol: {MISSING_SYMBOL}" in error["evalue"]

    data = outputs[1]["data"]
    assert set(data) >= {"text/markdown", "text/plain", MIME}
    report = data[MIME]
    assert report["version"] == 1
    first = report["diagnostics"][0]
    assert first["code"] == "abi-mismatch", report
    assert first["severity"] == "error"
    assert MISSING_SYMBOL in [s.get("mangled") for s in first.get("symbols", [])], first
    pips = _pip_lines(report)
    assert pips, report
    # The Markdown shows the very same fix as a copyable line.
    assert pips[0].strip().splitlines()[0] in data["text/markdown"]
    assert "abi-mismatch" in data["text/plain"]


def test_diagnosis_read_the_kernel_environment(executed: Dict[str, Any]) -> None:
    """The torch the diagnosis names is the fake 2.10 one that only ABIDOC_SITE_PACKAGES points at."""
    report = _abidoc_outputs(executed["nb"].cells[IMPORT])[0]["data"][MIME]
    first = report["diagnostics"][0]
    assert first.get("package") == "mamba-ssm", first
    assert first.get("library") == str(executed["fake_site"].extension), first
    said = " ".join([first.get("message", ""), *first.get("evidence", [])])
    assert "2.10.0" in said, first
    symbol = next(s for s in first["symbols"] if s.get("mangled") == MISSING_SYMBOL)
    assert symbol.get("status") == "signature-changed", symbol
    assert "unsigned int" in symbol.get("nearest", ""), symbol


def _preferred(cell: Dict[str, Any]) -> Dict[str, Any]:
    report = _abidoc_outputs(cell)[0]["data"][MIME]
    first = report["diagnostics"][0]
    return next(f for f in first["fixes"] if f.get("preferred"))


def test_model_in_the_input_history_prefers_the_uninstall(executed: Dict[str, Any]) -> None:
    """As `abidoc check` on the saved notebook: a transformer does not need the Mamba kernels."""
    fix = _preferred(executed["nb"].cells[MODEL_HISTORY])
    assert fix["id"] == "abi-mismatch/uninstall", fix
    assert fix["notebook_cell"].startswith("%pip uninstall -y mamba-ssm"), fix
    assert TRANSFORMER in fix["title"], fix


def test_model_in_the_namespace_decides(executed: Dict[str, Any]) -> None:
    """A loaded configuration names a hybrid model: its Mamba layers need the kernels kept."""
    fix = _preferred(executed["nb"].cells[MODEL_NAMESPACE])
    assert fix["kind"] != "remove-unneeded", fix
    assert "uninstall" not in fix.get("notebook_cell", ""), fix


def test_unrelated_error_gets_no_abidoc_output(executed: Dict[str, Any]) -> None:
    outputs = executed["nb"].cells[ZERO_DIV]["outputs"]
    assert [o["output_type"] for o in outputs] == ["error"], outputs
    assert outputs[0]["ename"] == "ZeroDivisionError"


def test_successful_cell_gets_nothing(executed: Dict[str, Any]) -> None:
    outputs = executed["nb"].cells[OK]["outputs"]
    assert [o["output_type"] for o in outputs] == ["stream"], outputs
    assert _stream_text(executed["nb"].cells[OK]) == "ok\n"


def test_magic_on_the_last_error_says_it_knows_no_cause(executed: Dict[str, Any]) -> None:
    cell = executed["nb"].cells[MAGIC_LAST]
    assert _abidoc_outputs(cell) == []
    assert "no known cause" in _stream_text(cell), cell["outputs"]


@pytest.mark.parametrize("index", [MAGIC_PATH, CELL_MAGIC], ids=["log-file", "cell-magic"])
def test_magic_on_a_log(executed: Dict[str, Any], index: int) -> None:
    cell = executed["nb"].cells[index]
    shown = _abidoc_outputs(cell)
    assert len(shown) == 1, cell["outputs"]
    report = shown[0]["data"][MIME]
    assert report["diagnostics"][0]["code"] == "abi-mismatch", report
    assert _pip_lines(report), report


def test_scan_finds_the_broken_extension(executed: Dict[str, Any]) -> None:
    cell = executed["nb"].cells[SCAN]
    shown = _abidoc_outputs(cell)
    assert len(shown) == 1, cell["outputs"]
    data = shown[0]["data"]
    codes = [d["code"] for d in data[MIME]["diagnostics"]]
    assert "abi-mismatch" in codes, data[MIME]
    assert "| severity | code |" in data["text/markdown"]
    assert "selective_scan_cuda" in data["text/markdown"]


def test_unloaded_extension_shows_nothing(executed: Dict[str, Any]) -> None:
    outputs = executed["nb"].cells[UNLOADED]["outputs"]
    assert [o["output_type"] for o in outputs] == ["error"], outputs
    assert outputs[0]["ename"] == "ImportError"
