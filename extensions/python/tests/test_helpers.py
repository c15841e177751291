"""The pure helpers, without a kernel: rendering the contract JSON, finding and running the binary.

Rendered Markdown and plain text are compared with golden files under ``fixtures/``; run with
``ABIDOC_UPDATE_GOLDEN=1`` to rewrite them, then read the diff.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from abidoc import _binary, _display

FIXTURES = Path(__file__).parent / "fixtures"


def _golden(name: str, actual: str) -> None:
    path = FIXTURES / name
    if os.environ.get("ABIDOC_UPDATE_GOLDEN"):
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8")


def _example() -> dict:
    return json.loads((FIXTURES / "contract_example.json").read_text(encoding="utf-8"))


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


# ------------------------------------------------------------------ rendering


def test_markdown_of_the_contract_example() -> None:
    _golden("contract_example.md", _display.render_markdown(_example()))


def test_plain_text_of_the_contract_example() -> None:
    _golden("contract_example.txt", _display.render_plain(_example()))


def test_scan_table_of_the_contract_example() -> None:
    _golden("contract_example.scan.md", _display.render_scan_markdown(_example()))


def test_bundle_carries_the_contract_json_unchanged() -> None:
    report = _example()
    bundle = _display.bundle(report)
    assert set(bundle) == {"text/html", "text/markdown", "text/plain", _display.MIME}
    assert bundle[_display.MIME] == report


def _scan_example() -> dict:
    """The contract example plus the information a scan folds (a library no import loads)."""
    report = _example()
    report["diagnostics"].append(
        {
            "code": "missing-shared-library",
            "severity": "information",
            "message": "the shared library libcudart.so.11.0 cannot be found (needed by libbitsandbytes_cuda118.so)",
            "package": "bitsandbytes",
            "library": "/env/site-packages/bitsandbytes/libbitsandbytes_cuda118.so",
            "evidence": ["information only: `import bitsandbytes` loads libbitsandbytes_cuda128.so"],
            "fixes": [],
        }
    )
    return report


def test_html_of_the_contract_example() -> None:
    _golden("contract_example.html", _display.render_html(_example()))


def test_scan_html_folds_information() -> None:
    _golden("contract_example.scan.html", _display.render_scan_html(_scan_example()))


def test_html_escapes_what_it_shows() -> None:
    report = {
        "diagnostics": [
            {
                "code": "abi-mismatch",
                "message": "<img src=x onerror=alert(1)> `<b>`",
                "fixes": [{"title": "<script>", "preferred": True, "notebook_cell": "%pip install '<x>'"}],
            }
        ]
    }
    text = _display.render_html(report)
    assert "<img" not in text and "<script>" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "<code>&lt;b&gt;</code>" in text
    assert "%pip install &#x27;&lt;x&gt;&#x27;" in text


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on this machine")
    return ""


#: Measures, in the page, where the first preferred fix's cell and its copy button are and whether
#: anything is unfolded, and writes it where ``--dump-dom`` shows it.
_MEASURE = """<script>
const cell = document.querySelector(".abidoc-cell pre");
const copy = document.querySelector(".abidoc-copy");
const box = (e) => e ? e.getBoundingClientRect() : null;
document.body.setAttribute("data-check", JSON.stringify({
  cell: cell ? cell.textContent : null,
  cellBottom: box(cell) && box(cell).bottom,
  copyBottom: box(copy) && box(copy).bottom,
  height: innerHeight,
  open: [...document.querySelectorAll("details")].some((d) => d.open),
}));
</script>"""


@pytest.mark.parametrize("which", ["cell", "scan"])
def test_preferred_fix_is_in_the_first_screen_of_a_real_browser(which: str, tmp_path: Path) -> None:
    """Headless Chromium lays the display out at 800x600: the cause and the preferred fix's
    `%pip` line with its copy button are on the first screen, the rest folded. The screenshot is
    kept under ``ABIDOC_KEEP_SCREENSHOTS`` when set."""
    browser = _browser()
    body = _display.render_html(_example()) if which == "cell" else _display.render_scan_html(_scan_example())
    page = tmp_path / f"{which}.html"
    page.write_text(
        '<!doctype html><meta charset="utf-8"><body style="font-family:sans-serif;font-size:14px">'
        + body
        + _MEASURE,
        encoding="utf-8",
    )
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=800,600"]
    dom = subprocess.run(
        [*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    start = dom.index('data-check="') + len('data-check="')
    import html as _html

    check = json.loads(_html.unescape(dom[start : dom.index('"', start)]))
    assert check["cell"] == "%pip uninstall -y mamba-ssm causal-conv1d", check
    assert 0 < check["cellBottom"] <= check["height"], check
    assert 0 < check["copyBottom"] <= check["height"], check
    assert check["open"] is False, check
    keep = os.environ.get("ABIDOC_KEEP_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shot = Path(keep) / f"{which}.png"
        subprocess.run([*flags, f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120, check=True)
        assert shot.stat().st_size > 0


def test_empty_report_renders_nothing() -> None:
    assert _display.render_markdown({"version": 1, "diagnostics": []}) == ""
    assert _display.render_plain({"version": 1, "diagnostics": []}) == ""
    assert "should load" in _display.render_scan_markdown({"version": 1, "diagnostics": []})


def test_malformed_fields_are_skipped_not_fatal() -> None:
    report = {
        "diagnostics": [
            {"code": 3, "symbols": "x", "fixes": [None, {"commands": [[1, 2]], "env": []}], "evidence": [None]},
            "junk",
        ]
    }
    text = _display.render_markdown(report)
    assert "abidoc" in text
    assert _display.render_plain(report).startswith("abidoc error[abidoc]")


@pytest.mark.parametrize(
    ("fix", "lines"),
    [
        ({"notebook_cell": "%pip install -U torchvision==0.25.0\n"}, ["%pip install -U torchvision==0.25.0"]),
        ({"commands": [["python", "-m", "pip", "uninstall", "-y", "mamba-ssm"]]}, ["%pip uninstall -y mamba-ssm"]),
        ({"commands": [["pip3", "install", "flash-attn>=2.7"]]}, ["%pip install 'flash-attn>=2.7'"]),
        (
            {
                "commands": [["python", "-m", "pip", "install", "--no-build-isolation", "mamba-ssm"]],
                "env": {"MAMBA_FORCE_BUILD": "TRUE"},
            },
            ["%env MAMBA_FORCE_BUILD=TRUE", "%pip install --no-build-isolation mamba-ssm"],
        ),
        ({"commands": [["apt-get", "install", "-y", "g++"]]}, ["!apt-get install -y g++"]),
        ({"commands": "pip install x"}, []),
    ],
    ids=["given", "python-m-pip", "pip-quoted", "env", "shell", "not-a-vector"],
)
def test_notebook_lines(fix: dict, lines: list) -> None:
    assert _display.notebook_lines(fix) == lines


def test_markdown_escapes_html_and_markup() -> None:
    assert _display.md_escape("<script>*x*</script>") == "\\<script\\>\\*x\\*\\</script\\>"
    assert _display.md_code("a`b") == "``a`b``"
    assert _display.md_inline("run `pip install x_y` <now>") == "run `pip install x_y` \\<now\\>"
    assert _display.md_inline("a ` b_c") == "a \\` b\\_c"
    assert _display.md_code("`x") == "`` `x ``"


# ---------------------------------------------------------------- the binary


def test_candidates_are_next_to_the_interpreter_first(tmp_path: Path) -> None:
    exe = tmp_path / "venv" / "bin" / "python"
    got = _binary.candidate_paths(str(exe), {"ABIDOC_PATH": "/opt/abidoc"}, scripts_dirs=["/scripts"])
    assert got == [str(tmp_path / "venv" / "bin" / "abidoc"), "/scripts/abidoc", "/opt/abidoc"]


def test_find_binary_order(tmp_path: Path) -> None:
    venv_bin = tmp_path / "venv" / "bin"
    scripts = tmp_path / "scripts"
    other = tmp_path / "other"
    on_path = tmp_path / "on-path"
    for d in (venv_bin, scripts, other, on_path):
        d.mkdir(parents=True)
    exe = str(venv_bin / "python")
    env = {"ABIDOC_PATH": str(other / "abidoc"), "PATH": str(on_path)}

    def find() -> str:
        return _binary.find_binary(exe, env, scripts_dirs=[str(scripts)])

    assert find() is None
    _script(on_path / "abidoc", "exit 0")
    assert find() == str(on_path / "abidoc")
    _script(other / "abidoc", "exit 0")
    assert find() == str(other / "abidoc")
    _script(scripts / "abidoc", "exit 0")
    assert find() == str(scripts / "abidoc")
    _script(venv_bin / "abidoc", "exit 0")
    assert find() == str(venv_bin / "abidoc")
    # A file that is not executable is not a binary.
    (venv_bin / "abidoc").chmod(0o644)
    assert find() == str(scripts / "abidoc")


def test_site_packages_extra_dirs_first_missing_dropped(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    env = {"ABIDOC_SITE_PACKAGES": os.pathsep.join([str(b), str(tmp_path / "missing"), str(a)])}
    dirs = _binary.site_packages_dirs([str(a)], env)
    assert dirs[:2] == [str(a), str(b)]
    assert str(tmp_path / "missing") not in dirs
    assert len(dirs) == len(set(dirs))
    args = _binary.env_args([str(a)], executable="/venv/bin/python", environ=env)
    assert args[:4] == ["--python", "/venv/bin/python", "--site-packages", str(a)]


def test_sys_path_entries_holding_distributions_are_read_in_import_order(tmp_path: Path) -> None:
    first, plain, second = tmp_path / "first", tmp_path / "plain", tmp_path / "second"
    for d in (first, plain, second):
        d.mkdir()
    (first / "mamba_ssm-2.3.0.dist-info").mkdir()
    (second / "apex-0.1-py3.11.egg-info").mkdir()
    (plain / "notes.txt").write_text("no distributions here", encoding="utf-8")
    sys_path = ["", "relative/dir", str(second), str(plain), str(tmp_path / "missing"), str(first)]
    dirs = _binary.site_packages_dirs([], {}, sys_path=sys_path)
    assert dirs[:2] == [str(second), str(first)]
    assert str(plain) not in dirs
    assert str(first) not in _binary.site_packages_dirs([], {}, sys_path=None)


def test_run_reads_json_on_exit_0_and_1(tmp_path: Path) -> None:
    (tmp_path / "report.json").write_text(json.dumps(_example()), encoding="utf-8")
    fake = _script(tmp_path / "abidoc", f"cat >/dev/null; cat '{tmp_path / 'report.json'}'; exit 1")
    run = _binary.run(["check", "-", "--format", "json"], stdin_text="x", binary=str(fake))
    assert run.problem is None
    assert run.returncode == 1
    assert run.diagnostics[0]["code"] == "abi-mismatch"


def test_run_reports_exit_2_reason(tmp_path: Path) -> None:
    fake = _script(tmp_path / "abidoc", "echo 'abidoc: unexpected argument --frobnicate' >&2; exit 2")
    run = _binary.run(["check", "--frobnicate"], binary=str(fake))
    assert run.problem == "unexpected argument --frobnicate"
    assert run.report is None


def test_run_times_out(tmp_path: Path) -> None:
    fake = _script(tmp_path / "abidoc", "exec sleep 10")
    run = _binary.run(["check"], binary=str(fake), timeout=0.5)
    assert run.problem == "abidoc took longer than 0.5 s"


def test_run_without_binary(tmp_path: Path) -> None:
    run = _binary.run(["check"], binary=str(tmp_path / "nope"))
    assert run.problem is not None and "could not run" in run.problem


def test_garbage_stdout_is_no_report(tmp_path: Path) -> None:
    fake = _script(tmp_path / "abidoc", "echo 'abidoc 0.1.0'")
    run = _binary.run(["check", "-", "--format", "json"], binary=str(fake))
    assert run.report is None and run.problem == "abidoc printed no JSON report"


# -------------------------------------------- the extension in an in-process shell


@pytest.fixture()
def shell():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    yield ip
    ip.run_line_magic("unload_ext", "abidoc")
    InteractiveShell.clear_instance()


def test_load_and_unload_register_and_remove_everything(shell) -> None:
    before = list(shell.events.callbacks["post_run_cell"])
    before_pre = list(shell.events.callbacks["pre_run_cell"])
    shell.run_line_magic("load_ext", "abidoc")
    assert "abidoc" in shell.magics_manager.magics["line"]
    assert "abidoc" in shell.magics_manager.magics["cell"]
    assert len(shell.events.callbacks["post_run_cell"]) == len(before) + 1
    assert len(shell.events.callbacks["pre_run_cell"]) == len(before_pre) + 1
    shell.run_line_magic("config", "Abidoc.timeout = 7.5")
    from abidoc import magics

    assert magics._loaded is not None and magics._loaded.timeout == 7.5
    shell.run_line_magic("unload_ext", "abidoc")
    assert "abidoc" not in shell.magics_manager.magics["line"]
    assert shell.events.callbacks["post_run_cell"] == before
    assert shell.events.callbacks["pre_run_cell"] == before_pre


@pytest.mark.parametrize(
    "body",
    ["exec sleep 10", "echo '{not json' ; exit 1", "echo boom >&2; exit 101"],
    ids=["hangs", "garbage", "crashes"],
)
def test_hook_never_raises_into_the_session(shell, tmp_path: Path, capsys, monkeypatch, body: str) -> None:
    shell.run_line_magic("load_ext", "abidoc")
    from abidoc import magics

    # A binary that misbehaves: the diagnosis gives up quietly.
    broken = _script(tmp_path / "abidoc", body)
    magics._loaded.timeout = 0.3
    monkeypatch.setattr(_binary, "find_binary", lambda *a, **k: str(broken))
    result = shell.run_cell(
        "raise ImportError('x.so: undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib')"
    )
    assert isinstance(result.error_in_exec, ImportError)
    out = capsys.readouterr()
    assert "abidoc" not in out.out
    assert "Error in callback" not in out.err


@pytest.mark.parametrize(
    "body",
    ["exec sleep 10", "echo '{not json' ; exit 1", "echo boom >&2; exit 101", "echo '[1]'"],
    ids=["hangs", "garbage", "crashes", "not-a-report"],
)
def test_the_install_verdict_is_silent_when_the_binary_fails(
    shell, tmp_path: Path, capsys, monkeypatch, body: str
) -> None:
    shell.run_line_magic("load_ext", "abidoc")
    from abidoc import magics

    broken = _script(tmp_path / "abidoc", body)
    magics._loaded.verify_timeout = 0.3
    monkeypatch.setattr(_binary, "find_binary", lambda *a, **k: str(broken))
    calls = []
    real_run = _binary.run
    monkeypatch.setattr(_binary, "run", lambda *a, **k: calls.append(a) or real_run(*a, **k))

    class Info:
        raw_cell = "%pip install flash-attn==2.8.3"

    # Called as IPython calls it, without running the cell: pip never runs in this test.
    magics._loaded.pre_run_cell(Info())
    assert calls, "the hook should have asked the binary"
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_the_install_verdict_can_be_turned_off(shell, monkeypatch) -> None:
    shell.run_line_magic("load_ext", "abidoc")
    from abidoc import magics

    calls = []
    monkeypatch.setattr(_binary, "run", lambda *a, **k: calls.append(a))
    shell.run_line_magic("config", "Abidoc.verify = False")

    class Info:
        raw_cell = "%pip install flash-attn==2.8.3"

    magics._loaded.pre_run_cell(Info())
    assert calls == []


@pytest.mark.parametrize(
    ("line", "text"),
    [
        ('--text "ImportError: x.so: undefined symbol: _ZN3c10"', "ImportError: x.so: undefined symbol: _ZN3c10"),
        ("--text 'a \"quoted\" word'", 'a "quoted" word'),
        ('--text error: "x" failed', 'error: "x" failed'),
        ("--text=GLIBCXX_3.4.32 not found", "GLIBCXX_3.4.32 not found"),
        ('--text "unbalanced', '"unbalanced'),
    ],
)
def test_text_argument_of_the_magic(line: str, text: str) -> None:
    pytest.importorskip("IPython")
    from abidoc.magics import Abidoc

    assert Abidoc._text_arg(line) == text
