"""Reading the ``pip install`` lines of a cell, without running pip: what they would install.

Plain text in, plain data out (no IPython, no subprocess), so every spelling is tested without a
kernel. A kernel passes the commands its transformed cell really runs (``commands_of``), so a
line IPython would not run as pip (a bare ``pip`` continued over two lines, text in a string)
is never judged. Only what ``abidoc verify`` can judge is kept: local wheel files, ``NAME`` and
``NAME==VERSION`` requirements, the torch an install pins, and requirement files given with
``-r``. Anything this reader cannot be sure of (IPython ``{expressions}`` and ``$variables``,
shell substitutions, other version specifiers, an install into another target) is left out
rather than guessed, so a verdict never speaks of something the line does not install.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

#: A cell larger than this is not a hand-written install cell; it is not read at all.
MAX_CELL = 64 * 1024
#: At most this many requirements are judged per cell; the rest are dropped.
MAX_REQUIREMENTS = 64

# PEP 508 names, and the PEP 440 spellings the binary's `--package`/`--torch` accept; anything
# else would make the binary refuse its whole command line, so it never reaches it.
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,126}[A-Za-z0-9])?$")
_VERSION = re.compile(
    r"^(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:(?:a|b|rc)[0-9]+)?(?:\.post[0-9]+)?(?:\.dev[0-9]+)?"
    r"(?:\+[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)?$"
)
# `name[extra,...]`, then the rest of the requirement.
_REQ = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[A-Za-z0-9._,\s-]*\])?(?P<spec>.*)$")

# Options whose value is the next word (when not given as `--opt=value`).
_WITH_VALUE = {
    "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url",
    "--extra-index-url", "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--platform",
    "--python-version", "--implementation", "--abi", "--no-binary", "--only-binary",
    "--progress-bar", "--upgrade-strategy", "--src", "--report", "-C", "--config-settings",
    "--global-option", "--build-option", "--install-option", "--trusted-host", "--proxy",
    "--retries", "--timeout", "--cert", "--client-cert", "--cache-dir", "--log", "--log-file",
    "--exists-action", "--python", "--keyring-provider", "--root-user-action", "--group",
    "--index-strategy", "--extra", "--resolution", "--prerelease", "-p", "--override",
}  # fmt: skip
# Options that install somewhere else or for another machine: what the kernel's environment
# would then hold is not what is judged, so such a line is left alone.
_ELSEWHERE = {"-t", "--target", "--prefix", "--root", "--platform", "--python-version", "--implementation", "--abi"}
# Shell words after which the pip command is over.
_SHELL_OPERATORS = {"&&", "||", ";", "|", "&", ">", ">>", "<", "2>", "2>&1", "&>"}


@dataclass(frozen=True)
class Requirement:
    """One thing a line installs that ``abidoc verify`` can judge."""

    #: The distribution name as written (``None`` for a wheel known by its file alone).
    name: Optional[str] = None
    #: The exact version of an ``==`` pin, else ``None`` (what pip picks: the newest).
    version: Optional[str] = None
    #: An absolute path of a local wheel file.
    wheel: Optional[str] = None


@dataclass
class InstallPlan:
    """What the ``pip install`` lines of one cell install, as ``abidoc verify`` takes it."""

    requirements: List[Requirement] = field(default_factory=list)
    #: Requirement files given with ``-r`` that exist (``verify`` reads them as plans).
    requirement_files: List[str] = field(default_factory=list)
    #: The torch version the cell pins (``torch==X``), when it pins exactly one.
    torch: Optional[str] = None

    @property
    def wheels(self) -> List[str]:
        """Each local wheel once, however many ways the lines name it."""
        out: List[str] = []
        for r in self.requirements:
            if r.wheel and r.wheel not in out:
                out.append(r.wheel)
        return out

    @property
    def packages(self) -> List[Tuple[str, Optional[str]]]:
        """Named requirements other than torch itself (torch is the target, not a package)."""
        return [
            (r.name, r.version)
            for r in self.requirements
            if r.name and not r.wheel and normalize(r.name) != "torch"
        ]

    def __bool__(self) -> bool:
        return bool(self.requirements or self.requirement_files or self.torch)


def normalize(name: str) -> str:
    """PEP 503 normalization: ``Flash_Attn`` and ``flash-attn`` are one distribution."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _logical_lines(cell: str) -> List[str]:
    """The cell's lines, with backslash continuations joined as the shell joins them."""
    out: List[str] = []
    pending = ""
    for line in cell.splitlines():
        text = pending + line
        if text.rstrip().endswith("\\"):
            pending = text.rstrip()[:-1] + " "
            continue
        pending = ""
        out.append(text)
    if pending:
        out.append(pending)
    return out


def _is_python(word: str) -> bool:
    if word in ("{sys.executable}", "$sys.executable"):
        # IPython expands these to the kernel's own interpreter: the usual notebook spelling.
        return True
    base = os.path.basename(word)
    return re.fullmatch(r"python(?:[0-9](?:\.[0-9]+)?)?", base) is not None


def _install_args(line: str) -> Optional[List[str]]:
    """The words after ``install`` when ``line`` is a pip install command, else ``None``."""
    stripped = line.strip()
    if stripped.startswith("%pip"):
        rest = stripped[len("%pip") :]
    elif stripped.startswith("!"):
        rest = stripped[1:]
    elif stripped.startswith("pip "):
        # A bare `pip install` line is IPython's automagic for %pip.
        rest = stripped
    else:
        return None
    try:
        words = shlex.split(rest, comments=True, posix=True)
    except ValueError:
        # Unbalanced quotes: what pip would get is unclear.
        return None
    # `!uv pip install`, `!python -m pip install`, `!{sys.executable} -m pip install`, `!pip3 install`.
    if words[:2] == ["uv", "pip"]:
        words = words[1:]
    elif len(words) >= 3 and _is_python(words[0]) and words[1:3] == ["-m", "pip"]:
        words = words[2:]
    if stripped.startswith("%pip"):
        words = ["pip", *words]
    if len(words) < 2 or os.path.basename(words[0]) not in ("pip", "pip3") or words[1] != "install":
        return None
    args = []
    for word in words[2:]:
        if word in _SHELL_OPERATORS:
            break
        args.append(word)
    return args


def _unsure(word: str) -> bool:
    """A word IPython or the shell would rewrite before pip sees it."""
    return any(c in word for c in "{}$`*?") or word.startswith("~") and "/" not in word


def _requirement(word: str, cwd: str) -> Optional[Requirement]:
    """One requirement word as verify can judge it, or ``None``."""
    word = word.strip()
    if not word or _unsure(word):
        return None
    name_part, at, url = word.partition("@")
    if at and "://" in url:
        url = url.strip()
        if url.startswith("file://") and url.endswith(".whl"):
            return _wheel(url[len("file://") :], cwd, name_part.strip() or None)
        # A remote wheel or a VCS checkout: nothing on this machine to read.
        return None
    if "://" in word:
        if word.startswith("file://") and word.endswith(".whl"):
            return _wheel(word[len("file://") :], cwd, None)
        return None
    if word.endswith(".whl"):
        return _wheel(word, cwd, None)
    if "/" in word or word.startswith("."):
        # A source directory or an sdist path: built by pip, not judged here.
        return None
    requirement = word.split(";", 1)[0].strip()
    m = _REQ.match(requirement)
    if not m or not _NAME.match(m.group("name")):
        return None
    spec = m.group("spec").strip()
    if not spec:
        return Requirement(name=m.group("name"))
    if spec.startswith("==") and not spec.startswith("===") and "," not in spec:
        version = spec[2:].strip()
        if _VERSION.match(version):
            return Requirement(name=m.group("name"), version=version)
    # `>=`, `~=`, `<`, wildcards: which release pip picks is not known here.
    return None


def _wheel(path: str, cwd: str, name: Optional[str]) -> Optional[Requirement]:
    path = os.path.expanduser(path)
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    path = os.path.normpath(path)
    if not os.path.isfile(path):
        # pip will say so itself; there is nothing to read.
        return None
    if name is not None and not _NAME.match(name):
        name = None
    return Requirement(name=name, wheel=path)


def commands_of(code: str) -> List[str]:
    """The ``%pip`` and ``!`` command lines a cell runs, from its IPython-transformed source.

    IPython turns ``%pip ARGS`` into ``get_ipython().run_line_magic('pip', 'ARGS')`` and
    ``!CMD`` (or ``x = !CMD``) into ``get_ipython().system('CMD')`` (``getoutput``), with
    continuation lines already joined; the arguments are read back as literals, never run.
    """
    if not isinstance(code, str) or len(code) > 4 * MAX_CELL:
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: List[Tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner = node.func.value
        if not (isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "get_ipython"):
            continue
        args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if len(args) != len(node.args):
            continue
        if node.func.attr == "run_line_magic" and len(args) == 2 and args[0] == "pip":
            found.append((node.lineno, node.col_offset, f"%pip {args[1]}"))
        elif node.func.attr in ("system", "getoutput") and len(args) == 1:
            found.append((node.lineno, node.col_offset, f"!{args[0]}"))
    return [line.replace("\n", " ") for _, _, line in sorted(found)]


def parse_cell(cell: str, cwd: Optional[str] = None) -> InstallPlan:
    """What the cell's ``pip install`` lines install, as far as ``abidoc verify`` can judge.

    ``cwd`` resolves relative wheel and requirement-file paths (the kernel's working directory).
    Never raises on any text.
    """
    plan = InstallPlan()
    if not isinstance(cell, str) or len(cell) > MAX_CELL or "install" not in cell:
        return plan
    cwd = os.getcwd() if cwd is None else cwd
    torches = set()
    for line in _logical_lines(cell):
        args = _install_args(line)
        if args is None:
            continue
        requirements, files, elsewhere = _read_args(args, cwd)
        if elsewhere:
            continue
        for r in requirements:
            if r.name and not r.wheel and normalize(r.name) == "torch":
                if r.version:
                    torches.add(r.version)
                continue
            if r not in plan.requirements and len(plan.requirements) < MAX_REQUIREMENTS:
                plan.requirements.append(r)
        for f in files:
            if f not in plan.requirement_files:
                plan.requirement_files.append(f)
    if len(torches) == 1:
        plan.torch = torches.pop()
    return plan


def _read_args(args: Sequence[str], cwd: str) -> Tuple[List[Requirement], List[str], bool]:
    """Requirements, ``-r`` files, and whether the install goes somewhere else."""
    requirements: List[Requirement] = []
    files: List[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            continue
        if i + 1 < len(args) and args[i] == "@":
            # `name @ file:///x.whl` unquoted: one PEP 508 direct reference in three words.
            word = f"{word} @ {args[i + 1]}"
            i += 2
        if word.startswith("-"):
            option, eq, value = word.partition("=")
            if option in _ELSEWHERE:
                return [], [], True
            takes_value = option in _WITH_VALUE
            # `-rreqs.txt`: a short option glued to its value.
            if not eq and not takes_value and len(word) > 2 and word[:2] in ("-r", "-c", "-e", "-i", "-f", "-t"):
                option, value, eq = word[:2], word[2:], "="
                takes_value = True
                if option == "-t":
                    return [], [], True
            if takes_value and not eq:
                value = args[i] if i < len(args) else ""
                i += 1
            if option in ("-r", "--requirement") and value and not _unsure(value):
                path = os.path.normpath(os.path.join(cwd, os.path.expanduser(value)))
                if os.path.isfile(path):
                    files.append(path)
            continue
        r = _requirement(word, cwd)
        if r is not None:
            requirements.append(r)
    return requirements, files, False
