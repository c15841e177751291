"""The repository's pre-commit hook (``.pre-commit-hooks.yaml``) run as pre-commit runs it, on a
project holding real wheels compiled here, with the ``abidoc`` the wheel under test installed.

pre-commit selects the staged files with ``re.search(files, path)`` and runs ``entry`` with them
as arguments (``language: system``: the command as written, found on PATH).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest
import yaml

from fakeenv import FakeSite, build_fake_site
from wheels import CURRENT, OLDER, build_wheel

HOOKS = Path(__file__).resolve().parents[3] / ".pre-commit-hooks.yaml"


@pytest.fixture(scope="module")
def hook() -> Dict:
    (only,) = [h for h in yaml.safe_load(HOOKS.read_text(encoding="utf-8")) if h["id"] == "abidoc-verify"]
    return only


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with its wheels under ``wheels/``, and the environment it installs into."""
    root = tmp_path_factory.mktemp("project")
    env = tmp_path_factory.mktemp("precommit-env") / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    site: FakeSite = build_fake_site(env)
    (root / "wheels").mkdir()
    build_wheel(root / "wheels", "goodext", CURRENT, site.libc10.parent)
    build_wheel(root / "wheels", "oldext", OLDER, site.libc10.parent)
    (root / ".site").write_text(str(site.root), encoding="utf-8")
    return root


def _run_hook(hook: Dict, project: Path, staged: List[str]) -> subprocess.CompletedProcess:
    files = [p for p in staged if re.search(hook["files"], p)]
    assert files, f"the hook would not run on {staged}"
    site = (project / ".site").read_text(encoding="utf-8")
    argv = [*shlex.split(hook["entry"]), *hook.get("args", []), "--site-packages", site, *files]
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    assert shutil.which(argv[0], path=env["PATH"]) is not None
    return subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("name", "selected"),
    [
        ("requirements.txt", True),
        ("requirements-dev.txt", True),
        ("services/api/requirements_gpu.txt", True),
        ("requirements/base.txt", True),
        ("wheels/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl", True),
        ("requirements.in", False),
        ("constraints.txt", False),
        ("docs/requirements/old/notes.md", False),
        ("pylock.toml", True),
        ("services/pylock.gpu.toml", True),
        ("pyproject.toml", False),
    ],
)
def test_the_files_the_hook_runs_on(hook: Dict, name: str, selected: bool) -> None:
    assert bool(re.search(hook["files"], name)) is selected


def test_a_requirements_file_naming_a_wheel_for_another_torch_fails_the_commit(hook: Dict, project: Path) -> None:
    (project / "requirements.txt").write_text(
        "./wheels/goodext-1.0.0-py3-none-linux_x86_64.whl\n./wheels/oldext-1.0.0-py3-none-linux_x86_64.whl\n",
        encoding="utf-8",
    )
    proc = _run_hook(hook, project, ["requirements.txt", "README.md"])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "oldext 1.0.0 would not load" in proc.stdout
    assert "goodext 1.0.0 loads" in proc.stdout
    assert "error[abi-mismatch]" in proc.stdout


def test_wheels_that_load_pass(hook: Dict, project: Path) -> None:
    (project / "requirements-dev.txt").write_text(
        "goodext @ file://" + str(project / "wheels" / "goodext-1.0.0-py3-none-linux_x86_64.whl") + "\n",
        encoding="utf-8",
    )
    proc = _run_hook(hook, project, ["requirements-dev.txt", "wheels/goodext-1.0.0-py3-none-linux_x86_64.whl"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "every wheel loads" in proc.stdout


def test_a_committed_wheel_alone_is_judged(hook: Dict, project: Path) -> None:
    proc = _run_hook(hook, project, ["wheels/oldext-1.0.0-py3-none-linux_x86_64.whl"])
    assert proc.returncode == 1, proc.stdout + proc.stderr


def test_a_pylock_naming_a_wheel_for_another_torch_fails_the_commit(hook: Dict, project: Path) -> None:
    """pylock.toml (PEP 751) naming the wheel that does not load, by a local path: the hook
    selects it and verify judges the wheel."""
    (project / "pylock.toml").write_text(
        'lock-version = "1.0"\ncreated-by = "uv"\n\n[[packages]]\nname = "oldext"\nversion = "1.0.0"\n'
        'wheels = [{ path = "./wheels/oldext-1.0.0-py3-none-linux_x86_64.whl" }]\n',
        encoding="utf-8",
    )
    proc = _run_hook(hook, project, ["pylock.toml"])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "oldext 1.0.0 would not load" in proc.stdout
