"""End to end: a verdict above a ``pip install`` cell, before it runs, in a real kernel.

Two wheels are compiled here against the fake torch 2.10 of ``fakeenv`` (one built for its
signature, one for the signature before 2.10); the real loader referees both. A notebook then
runs install cells in their usual spellings, each with ``--dry-run --no-index`` so that pip
really runs and installs nothing, and the saved outputs must show abidoc's verdict first, as the
binary judges the wheels, the prebuilt-wheel packages and the torch pin, and nothing where there
is nothing to judge or the user turned it off.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any, Dict, List

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from fakeenv import TORCH_VERSION, FakeSite, build_fake_site
from wheels import CURRENT, OLDER, build_wheel, loader_verdict

MIME = "application/vnd.abidoc.v1+json"
PIP = "--dry-run --no-index --no-deps"

(LOAD, GOOD, BAD, PREBUILT, NOTHING, NOT_RUN, ELSEWHERE, NOT_PIP, INSTALL_GOOD, TORCH_PIN, OFF, OFF_INSTALL) = range(12)


def _outputs(cell: Dict[str, Any]) -> List[Dict[str, Any]]:
    return list(cell["outputs"])


def _verdicts(cell: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [o for o in cell["outputs"] if o.get("output_type") == "display_data" and MIME in o.get("data", {})]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> FakeSite:
    # Laid out as lib/pythonX.Y/site-packages, so the binary reads the Python a prebuilt wheel
    # is named for from the directory, as it would from a real environment's.
    root = tmp_path_factory.mktemp("verify-env") / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return build_fake_site(root)


@pytest.fixture(scope="module")
def built(site: FakeSite, tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    work = tmp_path_factory.mktemp("verify-wheels")
    torch_lib = site.libc10.parent
    return {
        "good": build_wheel(work, "goodext", CURRENT, torch_lib),
        "bad": build_wheel(work, "oldext", OLDER, torch_lib),
    }


@pytest.fixture(scope="module")
def executed(
    site: FakeSite, built: Dict[str, Path], private_jupyter: dict, tmp_path_factory: pytest.TempPathFactory
) -> Dict[str, Any]:
    work = tmp_path_factory.mktemp("verify-notebook")
    for wheel in built.values():
        shutil.copy(wheel, work)
    good, bad = built["good"].name, built["bad"].name
    root = str(site.root)
    cells = [
        "%load_ext abidoc\n%config Abidoc.follow_sys_path = False\n"
        f"import os\nos.environ['ABIDOC_SITE_PACKAGES'] = {root!r}",
        f"%pip install {PIP} \\\n    {work / good}",
        # The notebook spelling that runs the kernel's own pip; a path relative to the kernel.
        f"import sys\n!{{sys.executable}} -m pip install {PIP} ./{bad}",
        # Automagic's bare `pip install`.
        "pip install --dry-run --no-index flash-attn==2.8.3",
        f"%pip install {PIP} numpy==1.26.4",
        # IPython runs no pip here (a bare `pip` continued is a SyntaxError): nothing is judged.
        f"pip install {PIP} \\\n    {work / bad}",
        f"%pip install {PIP} --target {work / 'elsewhere'} {work / good}",
        f"print('pip install {work / bad}')",
        # goodext, built for torch 2.10, installed as pip would.
        f"import zipfile\nzipfile.ZipFile({str(work / good)!r}).extractall({root!r})",
        "%pip install --dry-run --no-index torch==2.9.1 mamba-ssm==2.2.4",
        "%config Abidoc.verify = False",
        f"%pip install {PIP} {work / bad}",
    ]
    nb = new_notebook(cells=[new_code_cell(src) for src in cells])
    nb.metadata["kernelspec"] = {
        "name": private_jupyter["kernel_name"],
        "display_name": "abidoc test",
        "language": "python",
    }
    NotebookClient(
        nb,
        kernel_name=private_jupyter["kernel_name"],
        timeout=180,
        startup_timeout=120,
        allow_errors=True,
        resources={"metadata": {"path": str(work)}},
    ).execute()
    path = work / "executed.ipynb"
    nbformat.write(nb, str(path))
    keep = os.environ.get("ABIDOC_KEEP_NOTEBOOK")
    if keep:
        shutil.copy(path, keep + ".verify.ipynb")
    return {"nb": nbformat.read(str(path), as_version=4), "work": work}


def test_the_real_loader_agrees_with_the_fixtures(site: FakeSite, built: Dict[str, Path], tmp_path: Path) -> None:
    good = loader_verdict(built["good"], tmp_path / "good", site.libc10.parent, "goodext")
    assert good.returncode == 0, good.stdout + good.stderr
    bad = loader_verdict(built["bad"], tmp_path / "bad", site.libc10.parent, "oldext")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib" in bad.stdout


def test_a_wheel_that_loads_is_said_to_load_before_pip_runs(executed: Dict[str, Any]) -> None:
    outputs = _outputs(executed["nb"].cells[GOOD])
    assert outputs and outputs[0]["output_type"] == "display_data", outputs
    report = outputs[0]["data"][MIME]
    assert [d["severity"] for d in report["diagnostics"]] == ["information"], report
    loads = report["diagnostics"][0]
    assert loads["package"] == "goodext" and loads["library"].endswith("goodext-1.0.0-py3-none-linux_x86_64.whl")
    plain = outputs[0]["data"]["text/plain"]
    assert "✔ goodext 1.0.0 loads" in plain, plain
    # pip still ran, after the verdict: its dry run names the wheel.
    pip_said = "".join(o.get("text", "") for o in outputs[1:] if o["output_type"] == "stream")
    assert "goodext" in pip_said, outputs


def test_a_wheel_built_for_another_torch_is_stopped_with_its_fix(executed: Dict[str, Any]) -> None:
    outputs = _outputs(executed["nb"].cells[BAD])
    shown = _verdicts(executed["nb"].cells[BAD])
    assert len(shown) == 1 and outputs[0]["output_type"] == "display_data", outputs
    # The cell itself ran as written: pip's dry run after the verdict.
    assert "Would install oldext-1.0.0" in "".join(o.get("text", "") for o in outputs[1:]), outputs
    report = shown[0]["data"][MIME]
    errors = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert [d["code"] for d in errors] == ["abi-mismatch"], report
    assert errors[0]["package"] == "oldext"
    assert str(executed["work"] / "oldext-1.0.0-py3-none-linux_x86_64.whl") in " ".join(errors[0]["evidence"])
    preferred = next(f for f in errors[0]["fixes"] if f.get("preferred"))
    data = shown[0]["data"]
    assert "✖ oldext would not load [abi-mismatch]" in data["text/plain"], data["text/plain"]
    assert preferred["title"] in data["text/plain"]
    assert preferred["notebook_cell"].splitlines()[-1] in data["text/markdown"]


def test_a_prebuilt_wheel_package_gets_the_wheel_its_setup_would_fetch(executed: Dict[str, Any]) -> None:
    shown = _verdicts(executed["nb"].cells[PREBUILT])
    assert len(shown) == 1, executed["nb"].cells[PREBUILT]["outputs"]
    assert executed["nb"].cells[PREBUILT]["outputs"][0]["output_type"] == "display_data"
    (answer,) = shown[0]["data"][MIME]["prebuilt"]
    assert (answer["package"], answer["version"], answer["version_from"]) == ("flash-attn", "2.8.3", "asked")
    # The kernel's own environment, as the fake site and the interpreter say it.
    assert answer["target"]["torch"] == TORCH_VERSION
    assert answer["target"]["python"] == f"cp{sys.version_info[0]}{sys.version_info[1]}"
    assert answer["status"] in ("listed", "not-listed", "unlisted"), answer
    assert answer["message"] in shown[0]["data"]["text/plain"]


@pytest.mark.parametrize(
    "index",
    [NOTHING, ELSEWHERE, NOT_PIP, OFF_INSTALL],
    ids=["unknown-package", "target-dir", "not-a-pip-line", "turned-off"],
)
def test_nothing_to_judge_shows_nothing(executed: Dict[str, Any], index: int) -> None:
    cell = executed["nb"].cells[index]
    assert _verdicts(cell) == [], cell["outputs"]
    assert cell["outputs"] and all(o["output_type"] == "stream" for o in cell["outputs"]), cell["outputs"]


def test_a_line_ipython_does_not_run_as_pip_is_not_judged(executed: Dict[str, Any]) -> None:
    outputs = _outputs(executed["nb"].cells[NOT_RUN])
    assert [o["output_type"] for o in outputs] == ["error"], outputs
    assert outputs[0]["ename"] == "SyntaxError"


def test_a_torch_pin_previews_what_the_new_torch_breaks(executed: Dict[str, Any]) -> None:
    shown = _verdicts(executed["nb"].cells[TORCH_PIN])
    assert len(shown) == 1, executed["nb"].cells[TORCH_PIN]["outputs"]
    report = shown[0]["data"][MIME]
    broken = [d for d in report["diagnostics"] if d["severity"] == "error"]
    # goodext loads against the installed torch 2.10 and was built for its signature: torch 2.9.1
    # (from the offline index) lacks it.
    assert [(d["code"], d["package"]) for d in broken] == [("abi-mismatch", "goodext")], report
    # The package named beside the pin is answered for the pinned torch, in the same verdict.
    (answer,) = report["prebuilt"]
    assert answer["package"] == "mamba-ssm" and answer["target"]["torch"] == "2.9.1", answer
    assert "goodext would not load" in shown[0]["data"]["text/plain"]


def test_the_cells_around_ran_quietly(executed: Dict[str, Any]) -> None:
    for index in (LOAD, INSTALL_GOOD, OFF):
        assert executed["nb"].cells[index]["outputs"] == [], executed["nb"].cells[index]["outputs"]
