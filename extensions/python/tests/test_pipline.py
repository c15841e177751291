"""The install-line reader, without a kernel: which cells install, and what verify is asked about."""

from __future__ import annotations

from pathlib import Path

import pytest

from abidoc import _binary, _display, _pipline
from abidoc._pipline import Requirement, parse_cell


@pytest.fixture()
def wheel(tmp_path: Path) -> Path:
    path = tmp_path / "flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl"
    path.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    return path


@pytest.mark.parametrize(
    "line",
    [
        "%pip install flash-attn==2.8.3",
        "!pip install flash-attn==2.8.3",
        "!pip3 install -q flash-attn==2.8.3",
        "pip install flash-attn==2.8.3",
        "!python -m pip install flash-attn==2.8.3",
        "!python3.11 -m pip install --upgrade flash-attn==2.8.3",
        "!/opt/conda/bin/python -m pip install flash-attn==2.8.3",
        "!{sys.executable} -m pip install flash-attn==2.8.3",
        "!uv pip install flash-attn==2.8.3",
        "  %pip install 'flash-attn==2.8.3'  # the pinned release",
        "%pip install --no-build-isolation -i https://pypi.org/simple flash-attn[triton]==2.8.3",
        "%pip install \\\n    flash-attn==2.8.3",
        "%pip install 'flash-attn==2.8.3; python_version >= \"3.8\"'",
    ],
)
def test_every_spelling_of_an_install_line(line: str) -> None:
    assert parse_cell(line).packages == [("flash-attn", "2.8.3")]


@pytest.mark.parametrize(
    "cell",
    [
        "import flash_attn",
        "%pip uninstall -y flash-attn",
        "!pip download flash-attn",
        "print('pip install flash-attn')",
        "# pip install flash-attn",
        "!pip install",
        "%pip install -r",
        "!pip install --target /elsewhere flash-attn",
        "!pip install -t/elsewhere flash-attn",
        "%pip install --prefix=/opt flash-attn",
        "%pip install --platform manylinux2014_x86_64 --only-binary=:all: flash-attn",
        "%pip install 'flash-attn",  # unbalanced quote: what pip gets is unclear
        "!pip install {pkg}",
        "!pip install $pkg",
        "!pip install `cat reqs`",
        "!pip install flash-attn>=2.7",
        "!pip install 'flash-attn~=2.8' 'flash-attn!=2.8.1' 'flash-attn==2.*' 'flash-attn==2.8,<3'",
        "!pip install git+https://github.com/Dao-AILab/flash-attention",
        "!pip install https://example.com/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl",
        "!pip install ./flash-attention",
        "!pip install -e ./flash-attention",
        "!pip install /no/such/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl",
        "!pip install 'flash-attn==2.8.3 && rm -rf ~'",  # not a version: refused, never passed on
        "!pip install -- -flash-attn",
    ],
)
def test_what_is_not_an_install_or_cannot_be_judged_gives_nothing(cell: str) -> None:
    plan = parse_cell(cell)
    assert not plan, plan


def test_names_pins_wheels_and_torch(tmp_path: Path, wheel: Path) -> None:
    (tmp_path / "sub").mkdir()
    cell = (
        "%pip install -q torch==2.9.1 mamba_ssm causal-conv1d==1.5.2 numpy\n"
        "x = 1\n"
        f"!pip install ./{wheel.name} 'flash-attn @ file://{wheel}' flash-attn @ file://{wheel}"
        f" ../{tmp_path.name}/{wheel.name}\n"
    )
    plan = parse_cell(cell, cwd=str(tmp_path))
    assert plan.torch == "2.9.1"
    # torch is the target the others are judged against, never a package of its own.
    assert plan.packages == [("mamba_ssm", None), ("causal-conv1d", "1.5.2"), ("numpy", None)]
    assert plan.wheels == [str(wheel)]
    assert Requirement(name="flash-attn", wheel=str(wheel)) in plan.requirements


def test_two_torch_pins_name_no_target() -> None:
    assert parse_cell("%pip install torch==2.9.1\n%pip install torch==2.10.0").torch is None
    pinned = parse_cell("%pip install torch==2.9.1+cu126 --index-url https://download.pytorch.org/whl/cu126")
    assert pinned.torch == "2.9.1+cu126"


def test_requirement_files_that_exist_are_plans(tmp_path: Path) -> None:
    reqs = tmp_path / "requirements.txt"
    reqs.write_text("flash-attn==2.8.3\n", encoding="utf-8")
    cell = "%pip install -r requirements.txt -rmissing.txt --requirement=requirements.txt"
    plan = parse_cell(cell, cwd=str(tmp_path))
    assert plan.requirement_files == [str(reqs)]
    assert plan.packages == []


def test_a_huge_or_odd_cell_is_not_read() -> None:
    assert not parse_cell("%pip install flash-attn\n" + "x" * _pipline.MAX_CELL)
    assert not parse_cell(None)  # type: ignore[arg-type]
    many = "%pip install " + " ".join(f"pkg{i}" for i in range(500))
    assert len(parse_cell(many).packages) == _pipline.MAX_REQUIREMENTS


# ------------------------------------------------------- the binary's side of it


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_verify_arguments_in_one_run(tmp_path: Path) -> None:
    # Echoes its arguments back as the contract's JSON: the files, the torch pin and the
    # packages go to one run (the binary previews the pin and answers the packages together).
    fake = _script(
        tmp_path / "abidoc",
        'printf \'{"version":1,"diagnostics":[{"severity":"error","message":"%s"}],"prebuilt":[{"package":"p"}]}\' "$*"; exit 1',
    )
    run = _binary.verify_install(
        wheels=["/w/a.whl"], packages=[("flash-attn", "2.8.3"), ("mamba-ssm", None)], torch="2.9.1", binary=str(fake)
    )
    assert run.problem is None and run.returncode == 1
    (diag,) = run.report["diagnostics"]
    packages = "--package flash-attn==2.8.3 --package mamba-ssm"
    assert diag["message"].startswith(f"verify /w/a.whl --format json --torch 2.9.1 {packages} --python ")
    assert run.report["prebuilt"] == [{"package": "p"}]


def test_a_failing_run_is_a_problem_and_nothing_asked_runs_nothing(tmp_path: Path) -> None:
    broken = _script(tmp_path / "broken", "exit 2")
    assert _binary.verify_install(wheels=["/w/a.whl"], packages=[("x", None)], binary=str(broken)).problem
    run = _binary.verify_install(binary=str(broken))
    assert run.problem is None and run.report == {"version": 1, "diagnostics": []}


def test_a_report_with_nothing_to_say_is_not_shown() -> None:
    assert _display.verdict_bundle({"version": 1, "diagnostics": []}) is None
    # Information other than a wheel's verdict stays in the JSON.
    info = {"severity": "information", "library": "/env/x.so", "message": "optional backend"}
    assert _display.verdict_bundle({"version": 1, "diagnostics": [info]}) is None


def test_the_verdict_escapes_what_it_shows() -> None:
    report = {
        "version": 1,
        "diagnostics": [
            {"severity": "error", "code": "abi-mismatch", "package": "<b>x</b>", "message": "<script>", "fixes": "junk"}
        ],
        "prebuilt": [
            {"package": "<i>p</i>", "status": "not-listed", "message": "m", "nearest": ["junk", {"version": 1}]}
        ],
    }
    bundle = _display.verdict_bundle(report)
    assert bundle is not None
    assert "<script>" not in bundle["text/html"] and "<b>x</b>" not in bundle["text/html"]
    assert "<i>p</i>" not in bundle["text/html"]
    assert "✖ <b>x</b> would not load [abi-mismatch]: <script>" in bundle["text/plain"]
    assert "⚠ <i>p</i>: m" in bundle["text/plain"]


# ------------------------------------------------ what IPython really runs as pip


@pytest.mark.parametrize(
    ("cell", "packages"),
    [
        ("%pip install flash-attn==2.8.3", [("flash-attn", "2.8.3")]),
        ("%pip install \\\n    flash-attn==2.8.3", [("flash-attn", "2.8.3")]),
        ("pip install flash-attn==2.8.3", [("flash-attn", "2.8.3")]),
        ("import sys\n!{sys.executable} -m pip install mamba-ssm", [("mamba-ssm", None)]),
        ("out = !pip install causal-conv1d==1.5.2", [("causal-conv1d", "1.5.2")]),
        ("for i in range(1):\n    !pip install flash-attn", [("flash-attn", None)]),
        # Not run as pip by IPython: a bare `pip` continued is a SyntaxError, text is text.
        ("pip install \\\n    flash-attn==2.8.3", []),
        ('doc = """\n%pip install flash-attn\n"""', []),
        ("print('!pip install flash-attn')", []),
        ("%pip list\n!echo install flash-attn", []),
    ],
)
def test_commands_ipython_runs(cell: str, packages: list) -> None:
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    # The shell's own transform: automagic (a bare `pip`) is the shell's, not the transformer's.
    shell = InteractiveShell.instance()
    try:
        code = shell.transform_cell(cell)
    finally:
        InteractiveShell.clear_instance()
    assert parse_cell("\n".join(_pipline.commands_of(code))).packages == packages


def test_commands_of_reads_literals_only() -> None:
    assert _pipline.commands_of("get_ipython().system(cmd)") == []
    assert _pipline.commands_of("get_ipython().run_line_magic('pip', 'install ' + x)") == []
    assert _pipline.commands_of("def (") == []
    assert _pipline.commands_of("get_ipython().run_line_magic('env', 'X=1')") == []
