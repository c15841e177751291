"""Shared fixtures: the compiled fake environment, and a Jupyter/IPython setup private to the test."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakeenv import FakeSite, build_fake_site  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def fake_site(tmp_path_factory: pytest.TempPathFactory) -> FakeSite:
    return build_fake_site(tmp_path_factory.mktemp("fake-env"))


@pytest.fixture(scope="session")
def private_jupyter(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A kernel spec for this interpreter in a private JUPYTER_PATH, and a private IPYTHONDIR.

    Nothing is registered globally, and the user's own IPython startup files and kernels cannot
    change what the test sees.
    """
    root = tmp_path_factory.mktemp("jupyter")
    spec_dir = root / "share" / "kernels" / "abidoc-test"
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "abidoc test kernel",
                "language": "python",
            }
        ),
        encoding="utf-8",
    )
    env = {
        "JUPYTER_PATH": str(root / "share"),
        "JUPYTER_CONFIG_DIR": str(root / "config"),
        "JUPYTER_RUNTIME_DIR": str(root / "runtime"),
        "JUPYTER_DATA_DIR": str(root / "data"),
        "IPYTHONDIR": str(root / "ipython"),
    }
    saved = {k: os.environ.get(k) for k in [*env, "ABIDOC_PATH", "ABIDOC_SITE_PACKAGES", "PYTHONPATH"]}
    os.environ.update(env)
    # The extension must find the binary the wheel installed, and the fake site only through
    # what the notebook itself says.
    for key in ("ABIDOC_PATH", "ABIDOC_SITE_PACKAGES", "PYTHONPATH"):
        os.environ.pop(key, None)
    yield {"kernel_name": "abidoc-test", "root": root}
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
