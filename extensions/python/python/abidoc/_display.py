"""Rendering the contract JSON as notebook output: Markdown, plain text and the mime bundle.

Pure functions over the ``{version, diagnostics}`` document that ``abidoc --format json`` prints;
no IPython here, so they are tested without a kernel.
"""

from __future__ import annotations

import html
import os
import re
import shlex
from typing import Any, Dict, List, Mapping, Sequence, Tuple

#: The mime type carrying the contract JSON unchanged, for frontends and tools that read outputs.
MIME = "application/vnd.abidoc.v1+json"

_SEVERITY_MARK = {"error": "✖", "warning": "⚠", "information": "ℹ", "hint": "·"}
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|])")


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def md_escape(text: str) -> str:
    """Escape text so Markdown shows it literally (and no HTML gets through)."""
    return _MD_SPECIAL.sub(r"\\\1", text)


_CODE_SPAN = re.compile(r"(`[^`\n]+`)")


def md_inline(text: str) -> str:
    """Like ``md_escape``, but keeps the binary's own `code spans` as code."""
    return "".join(part if _CODE_SPAN.fullmatch(part) else md_escape(part) for part in _CODE_SPAN.split(text))


def md_code(text: str) -> str:
    """Inline code that survives backticks inside ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fence(lines: Sequence[str], lang: str = "") -> str:
    body = "\n".join(lines)
    longest = max((len(m) for m in re.findall(r"`{3,}", body)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{lang}\n{body}\n{fence}"


def _is_pip(argv: Sequence[str]) -> bool:
    if len(argv) >= 3 and os.path.basename(argv[0]).startswith("python") and argv[1:3] == ["-m", "pip"]:
        return True
    return bool(argv) and os.path.basename(argv[0]) in ("pip", "pip3")


def notebook_lines(fix: Mapping[str, Any]) -> List[str]:
    """The fix as lines to paste into a notebook cell.

    The binary's own ``notebook_cell`` wins; otherwise the argument vectors become ``%pip`` for
    pip (so the kernel's own environment is changed) and ``!`` for anything else, after ``%env``
    lines for the variables the commands need.
    """
    cell = _str(fix.get("notebook_cell"))
    if cell.strip():
        return cell.strip("\n").splitlines()
    lines: List[str] = []
    env = fix.get("env")
    if isinstance(env, Mapping):
        for key, value in env.items():
            if isinstance(key, str) and isinstance(value, str):
                lines.append(f"%env {key}={value}")
    commands = fix.get("commands")
    for argv in commands if isinstance(commands, list) else []:
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            continue
        if _is_pip(argv):
            rest = argv[3:] if argv[1:3] == ["-m", "pip"] else argv[1:]
            lines.append("%pip " + " ".join(shlex.quote(a) for a in rest))
        else:
            lines.append("!" + " ".join(shlex.quote(a) for a in argv))
    return lines


def _diagnostics(report: Mapping[str, Any]) -> List[Mapping[str, Any]]:
    diags = report.get("diagnostics")
    return [d for d in diags if isinstance(d, Mapping)] if isinstance(diags, list) else []


def _symbols(diag: Mapping[str, Any]) -> List[Mapping[str, Any]]:
    syms = diag.get("symbols")
    return [s for s in syms if isinstance(s, Mapping)] if isinstance(syms, list) else []


def _fixes(diag: Mapping[str, Any]) -> List[Mapping[str, Any]]:
    fixes = diag.get("fixes")
    return [f for f in fixes if isinstance(f, Mapping)] if isinstance(fixes, list) else []


def _evidence(diag: Mapping[str, Any]) -> List[str]:
    ev = diag.get("evidence")
    return [e for e in ev if isinstance(e, str) and e.strip()] if isinstance(ev, list) else []


def _symbol_line(sym: Mapping[str, Any]) -> Tuple[str, str, str]:
    name = _str(sym.get("demangled")) or _str(sym.get("mangled"))
    status = _str(sym.get("status"))
    nearest = _str(sym.get("nearest"))
    return name, status, nearest


def render_markdown(report: Mapping[str, Any]) -> str:
    """The diagnosis as Markdown: cause, evidence, and the fixes as copyable cells."""
    parts: List[str] = []
    for diag in _diagnostics(report):
        code = _str(diag.get("code")) or "abidoc"
        severity = _str(diag.get("severity")) or "error"
        mark = _SEVERITY_MARK.get(severity)
        head = f"{mark} abidoc" if mark else "abidoc"
        message = _str(diag.get("message"))
        parts.append(f"**{head}: {md_code(code)}** ({md_escape(severity)}): {md_inline(message)}")
        facts = []
        if _str(diag.get("package")):
            facts.append(f"package {md_code(_str(diag.get('package')))}")
        if _str(diag.get("library")):
            facts.append(f"library {md_code(_str(diag.get('library')))}")
        if facts:
            parts.append("- " + ", ".join(facts))
        syms = _symbols(diag)
        if syms:
            lines = []
            for sym in syms:
                name, status, nearest = _symbol_line(sym)
                line = f"- {md_code(name)}"
                if status:
                    line += f": {md_escape(status)}"
                if nearest:
                    line += f"; installed: {md_code(nearest)}"
                lines.append(line)
            parts.append("Symbols:\n\n" + "\n".join(lines))
        evidence = _evidence(diag)
        if evidence:
            parts.append("Evidence:\n\n" + "\n".join(f"- {md_inline(e)}" for e in evidence))
        explanation = _str(diag.get("explanation")).strip()
        if explanation:
            parts.append(f"Why: {md_inline(explanation)}")
        fixes = _fixes(diag)
        if fixes:
            items = []
            for n, fix in enumerate(fixes, 1):
                title = md_inline(_str(fix.get("title")) or "Fix")
                if fix.get("preferred") is True:
                    title = f"**{title}** (recommended)"
                item = f"{n}. {title}"
                reason = _str(fix.get("reason")).strip()
                if reason:
                    item += f"\n   {md_inline(reason)}"
                lines = notebook_lines(fix)
                if lines:
                    block = _fence(lines)
                    item += "\n\n" + "\n".join("   " + ln if ln else "" for ln in block.splitlines())
                items.append(item)
            parts.append("Fixes, best first (paste into a cell):\n\n" + "\n\n".join(items))
    return "\n\n".join(parts) + ("\n" if parts else "")


def render_plain(report: Mapping[str, Any]) -> str:
    """The diagnosis as plain text, for consoles and frontends without Markdown."""
    out: List[str] = []
    for diag in _diagnostics(report):
        code = _str(diag.get("code")) or "abidoc"
        severity = _str(diag.get("severity")) or "error"
        out.append(f"abidoc {severity}[{code}]: {_str(diag.get('message'))}")
        if _str(diag.get("package")):
            out.append(f"  package: {_str(diag.get('package'))}")
        if _str(diag.get("library")):
            out.append(f"  library: {_str(diag.get('library'))}")
        for sym in _symbols(diag):
            name, status, nearest = _symbol_line(sym)
            line = f"  symbol: {name}"
            if status:
                line += f" ({status})"
            out.append(line)
            if nearest:
                out.append(f"    installed: {nearest}")
        for e in _evidence(diag):
            out.append(f"  evidence: {e}")
        if _str(diag.get("explanation")).strip():
            out.append(f"  why: {_str(diag.get('explanation')).strip()}")
        for n, fix in enumerate(_fixes(diag), 1):
            star = " (recommended)" if fix.get("preferred") is True else ""
            out.append(f"  fix {n}{star}: {_str(fix.get('title'))}")
            if _str(fix.get("reason")).strip():
                out.append(f"      ({_str(fix.get('reason')).strip()})")
            for line in notebook_lines(fix):
                out.append(f"      {line}")
    return "\n".join(out) + ("\n" if out else "")


def _h(text: str) -> str:
    return html.escape(text, quote=True)


def _h_inline(text: str) -> str:
    """Escaped HTML, with the binary's own `code spans` as ``<code>``."""
    return "".join(
        f"<code>{_h(part[1:-1])}</code>" if _CODE_SPAN.fullmatch(part) else _h(part)
        for part in _CODE_SPAN.split(text)
    )


#: Copies the cell text next to the button. Jupyter strips handlers from untrusted outputs (a
#: notebook reopened from disk): the text stays selectable, the button then does nothing.
_COPY = (
    '<button type="button" class="abidoc-copy" title="Copy to the clipboard" '
    'onclick="navigator.clipboard.writeText(this.parentNode.querySelector(\'pre\').textContent)'
    ".then(()=>{this.textContent='Copied'})\">Copy</button>"
)


def _html_cell(lines: Sequence[str]) -> str:
    return (
        '<div class="abidoc-cell" style="display:flex;gap:.5em;align-items:flex-start">'
        f'<pre style="margin:0;padding:.3em .5em;flex:1;overflow-x:auto;background:rgba(127,127,127,.12)">{_h(chr(10).join(lines))}</pre>'
        f"{_COPY}</div>"
    )


def _preferred(diag: Mapping[str, Any]) -> Tuple[Any, List[Mapping[str, Any]]]:
    fixes = _fixes(diag)
    chosen = next((f for f in fixes if f.get("preferred") is True), fixes[0] if fixes else None)
    return chosen, [f for f in fixes if f is not chosen]


def _html_fix(fix: Mapping[str, Any], label: str) -> str:
    out = f"<div><b>{label}</b> {_h_inline(_str(fix.get('title')) or 'Fix')}"
    reason = _str(fix.get("reason")).strip()
    if reason:
        out += f'<br><span style="opacity:.75">{_h_inline(reason)}</span>'
    out += "</div>"
    lines = notebook_lines(fix)
    if lines:
        out += _html_cell(lines)
    return out


def _html_details(diag: Mapping[str, Any], others: Sequence[Mapping[str, Any]]) -> str:
    """Everything but the cause and the preferred fix, folded."""
    body: List[str] = []
    facts = []
    if _str(diag.get("package")):
        facts.append(f"package <code>{_h(_str(diag.get('package')))}</code>")
    if _str(diag.get("library")):
        facts.append(f"library <code>{_h(_str(diag.get('library')))}</code>")
    if facts:
        body.append("<div>" + ", ".join(facts) + "</div>")
    syms = _symbols(diag)
    if syms:
        items = []
        for sym in syms:
            name, status, nearest = _symbol_line(sym)
            item = f"<code>{_h(name)}</code>"
            if status:
                item += f": {_h(status)}"
            if nearest:
                item += f"; installed: <code>{_h(nearest)}</code>"
            items.append(f"<li>{item}</li>")
        body.append("<div>Symbols:</div><ul>" + "".join(items) + "</ul>")
    evidence = _evidence(diag)
    if evidence:
        body.append("<div>Evidence:</div><ul>" + "".join(f"<li>{_h_inline(e)}</li>" for e in evidence) + "</ul>")
    explanation = _str(diag.get("explanation")).strip()
    if explanation:
        body.append(f"<div>Why: {_h_inline(explanation)}</div>")
    for n, fix in enumerate(others, 2):
        body.append(_html_fix(fix, f"Fix {n}:"))
    if not body:
        return ""
    what = []
    if syms:
        what.append(f"{len(syms)} symbol(s)")
    if evidence:
        what.append("evidence")
    if explanation:
        what.append("why")
    if others:
        what.append(f"{len(others)} other fix(es)")
    summary = "More: " + (", ".join(what) if what else "where")
    return f"<details><summary>{_h(summary)}</summary>{''.join(body)}</details>"


def render_html(report: Mapping[str, Any]) -> str:
    """The diagnosis as HTML: the cause and the preferred fix first (its notebook line with a copy
    button), everything else folded in ``<details>``."""
    parts: List[str] = []
    for diag in _diagnostics(report):
        code = _str(diag.get("code")) or "abidoc"
        severity = _str(diag.get("severity")) or "error"
        mark = _SEVERITY_MARK.get(severity, "")
        out = [
            f'<div class="abidoc abidoc-{_h(severity)}" style="margin:.4em 0">',
            f"<div><b>{_h(mark)} abidoc: <code>{_h(code)}</code></b> ({_h(severity)}): "
            f"{_h_inline(_str(diag.get('message')))}</div>",
        ]
        chosen, others = _preferred(diag)
        if chosen is not None:
            out.append(_html_fix(chosen, "Fix:"))
        out.append(_html_details(diag, others))
        out.append("</div>")
        parts.append("".join(out))
    return "\n".join(parts) + ("\n" if parts else "")


def bundle(report: Mapping[str, Any]) -> Dict[str, Any]:
    """The rich display bundle: HTML (answers first), Markdown, plain text and the contract JSON."""
    return {
        "text/html": render_html(report),
        "text/markdown": render_markdown(report),
        "text/plain": render_plain(report),
        MIME: dict(report),
    }


def _cell(text: str) -> str:
    return md_escape(text.replace("\n", " "))


def render_scan_markdown(report: Mapping[str, Any]) -> str:
    """``abidoc scan`` findings as a table, then the recommended fix of each finding."""
    diags = _diagnostics(report)
    if not diags:
        return "**abidoc scan**: every compiled extension in this environment should load.\n"
    rows = ["| severity | code | package | library | problem |", "|---|---|---|---|---|"]
    fixes: List[str] = []
    for diag in diags:
        library = _str(diag.get("library"))
        rows.append(
            "| {} | {} | {} | {} | {} |".format(
                _cell(_str(diag.get("severity"))),
                md_code(_str(diag.get("code"))) if diag.get("code") else "",
                _cell(_str(diag.get("package"))),
                md_code(os.path.basename(library)) if library else "",
                _cell(_str(diag.get("message"))),
            )
        )
        chosen = next((f for f in _fixes(diag) if f.get("preferred") is True), None)
        if chosen is None and _fixes(diag):
            chosen = _fixes(diag)[0]
        if chosen is not None:
            lines = notebook_lines(chosen)
            if lines:
                who = _str(diag.get("package")) or os.path.basename(library) or _str(diag.get("code"))
                fixes.append(
                    f"- {md_escape(who)}: {md_escape(_str(chosen.get('title')))}\n\n"
                    + "\n".join("  " + ln for ln in _fence(lines).splitlines())
                )
    text = f"**abidoc scan**: {len(diags)} finding(s)\n\n" + "\n".join(rows) + "\n"
    if fixes:
        text += "\nFixes:\n\n" + "\n".join(fixes) + "\n"
    return text


def render_scan_plain(report: Mapping[str, Any]) -> str:
    diags = _diagnostics(report)
    if not diags:
        return "abidoc scan: every compiled extension in this environment should load.\n"
    out = [f"abidoc scan: {len(diags)} finding(s)"]
    for diag in diags:
        who = _str(diag.get("package")) or os.path.basename(_str(diag.get("library")))
        head = f"{_str(diag.get('severity'))}[{_str(diag.get('code'))}]"
        out.append(f"  {head} {who}: {_str(diag.get('message'))}")
    return "\n".join(out) + "\n"


def render_scan_html(report: Mapping[str, Any]) -> str:
    """``abidoc scan`` as HTML: errors and warnings first, each with its preferred fix and a copy
    button; information (libraries no import loads that way, optional backends) folded."""
    diags = _diagnostics(report)
    shown = [d for d in diags if _str(d.get("severity")) in ("error", "warning")]
    shown.sort(key=lambda d: 0 if _str(d.get("severity")) == "error" else 1)
    notes = [d for d in diags if d not in shown]
    if not shown:
        head = "<b>abidoc scan</b>: every compiled extension in this environment should load."
    else:
        errors = sum(1 for d in shown if _str(d.get("severity")) == "error")
        head = f"<b>abidoc scan</b>: {errors} error(s), {len(shown) - errors} warning(s)"
    out = [f"<div>{head}</div>"]
    for diag in shown:
        severity = _str(diag.get("severity"))
        who = _str(diag.get("package")) or os.path.basename(_str(diag.get("library")))
        out.append(
            f'<div class="abidoc abidoc-{_h(severity)}" style="margin:.4em 0">'
            f"<div><b>{_h(_SEVERITY_MARK.get(severity, ''))} {_h(who)}</b> "
            f"<code>{_h(_str(diag.get('code')))}</code>: {_h_inline(_str(diag.get('message')))}</div>"
        )
        chosen, others = _preferred(diag)
        if chosen is not None:
            out.append(_html_fix(chosen, "Fix:"))
        out.append(_html_details(diag, others) + "</div>")
    if notes:
        items = "".join(
            f"<li><code>{_h(os.path.basename(_str(d.get('library'))) or _str(d.get('code')))}</code>: "
            f"{_h_inline(_str(d.get('message')))}</li>"
            for d in notes
        )
        out.append(
            f"<details><summary>{len(notes)} note(s): libraries that cannot load on their own but "
            f"break no import, optional backends</summary><ul>{items}</ul></details>"
        )
    return "\n".join(out) + "\n"


def scan_bundle(report: Mapping[str, Any]) -> Dict[str, Any]:
    return {
        "text/html": render_scan_html(report),
        "text/markdown": render_scan_markdown(report),
        "text/plain": render_scan_plain(report),
        MIME: dict(report),
    }


# ------------------------------------------------- the verdict before an install


def _loads_verdict(diag: Mapping[str, Any]) -> bool:
    """The one diagnostic ``verify`` gives a wheel whose libraries all load (``docs/contract.md``)."""
    return _str(diag.get("severity")) == "information" and _str(diag.get("library")).endswith(".whl")


def _prebuilt(report: Mapping[str, Any]) -> List[Mapping[str, Any]]:
    items = report.get("prebuilt")
    return [p for p in items if isinstance(p, Mapping)] if isinstance(items, list) else []


#: How each prebuilt status reads at a glance: listed downloads a wheel; not-listed compiles.
_PREBUILT_MARK = {"listed": "✔", "not-listed": "⚠"}


def _prebuilt_head(item: Mapping[str, Any]) -> Tuple[str, str]:
    """(mark, ``NAME VERSION``) of one prebuilt answer."""
    mark = _PREBUILT_MARK.get(_str(item.get("status")), "ℹ")
    name = " ".join(x for x in (_str(item.get("package")), _str(item.get("version"))) if x)
    if item.get("version_from") == "newest":
        name += " (the newest release)"
    return mark, name


def _nearest(item: Mapping[str, Any], limit: int = 3) -> List[str]:
    out = []
    nearest = item.get("nearest")
    for n in nearest if isinstance(nearest, list) else []:
        if not isinstance(n, Mapping) or len(out) >= limit:
            continue
        cuda = n.get("cuda")
        cuda_text = ", ".join(c for c in cuda if isinstance(c, str)) if isinstance(cuda, list) else ""
        text = f"{_str(item.get('package'))} {_str(n.get('version'))} for torch {_str(n.get('torch'))}"
        if cuda_text:
            text += f" (CUDA {cuda_text})"
        if _str(n.get("file_name")):
            text += f": {_str(n.get('file_name'))}"
        out.append(text)
    return out


def _verdict_items(report: Mapping[str, Any]) -> List[Tuple[str, Mapping[str, Any]]]:
    """What the short verdict shows, in order: failures, warnings, wheels that load, then the
    prebuilt answers. Other information stays in the JSON only."""
    diags = _diagnostics(report)
    items: List[Tuple[str, Mapping[str, Any]]] = []
    items += [("diag", d) for d in diags if _str(d.get("severity")) == "error"]
    items += [("diag", d) for d in diags if _str(d.get("severity")) == "warning"]
    items += [("diag", d) for d in diags if _loads_verdict(d)]
    items += [("prebuilt", p) for p in _prebuilt(report)]
    return items


_VERDICT_TITLE = "abidoc, before this install (read from the files: nothing installed or run)"


def _diag_head(diag: Mapping[str, Any]) -> Tuple[str, str]:
    """(mark, what) of one verify diagnostic."""
    severity = _str(diag.get("severity"))
    if _loads_verdict(diag):
        # Its message already reads `NAME VERSION loads: ...`.
        return "✔", ""
    who = _str(diag.get("package")) or os.path.basename(_str(diag.get("library")))
    what = "would not load" if severity == "error" else "warning"
    return _SEVERITY_MARK.get(severity, "·"), f"{who} {what}".strip()


def render_verdict_plain(report: Mapping[str, Any]) -> str:
    """The verdict on an install as plain text: one line per wheel, package or broken library,
    the preferred fix under each failure."""
    items = _verdict_items(report)
    if not items:
        return ""
    out = [_VERDICT_TITLE + ":"]
    for kind, item in items:
        if kind == "prebuilt":
            mark, name = _prebuilt_head(item)
            out.append(f"{mark} {name}: {_str(item.get('message'))}")
            if _str(item.get("url")):
                out.append(f"    from {_str(item.get('url'))}")
            out += [f"    nearest listed: {n}" for n in _nearest(item)]
            continue
        mark, what = _diag_head(item)
        code = _str(item.get("code"))
        tag = "" if _loads_verdict(item) or not code else f" [{code}]"
        head = f"{what}{tag}: " if what else ""
        out.append(f"{mark} {head}{_str(item.get('message'))}")
        chosen, _ = _preferred(item)
        if chosen is not None and not _loads_verdict(item):
            out.append(f"    fix: {_str(chosen.get('title'))}")
            out += [f"      {line}" for line in notebook_lines(chosen)]
    return "\n".join(out) + "\n"


def render_verdict_markdown(report: Mapping[str, Any]) -> str:
    items = _verdict_items(report)
    if not items:
        return ""
    out = [f"**{md_escape(_VERDICT_TITLE)}**", ""]
    for kind, item in items:
        if kind == "prebuilt":
            mark, name = _prebuilt_head(item)
            out.append(f"- {mark} **{md_escape(name)}**: {md_inline(_str(item.get('message')))}")
            if _str(item.get("url")):
                out.append(f"  from {md_code(_str(item.get('url')))}")
            out += [f"  - nearest listed: {md_escape(n)}" for n in _nearest(item)]
            continue
        mark, what = _diag_head(item)
        code = _str(item.get("code"))
        tag = "" if _loads_verdict(item) or not code else f" {md_code(code)}"
        head = f"**{md_escape(what)}**{tag}: " if what else ""
        out.append(f"- {mark} {head}{md_inline(_str(item.get('message')))}")
        chosen, _ = _preferred(item)
        if chosen is not None and not _loads_verdict(item):
            out.append(f"  Fix: {md_inline(_str(chosen.get('title')))}")
            lines = notebook_lines(chosen)
            if lines:
                out += ["", *("  " + ln for ln in _fence(lines).splitlines())]
    return "\n".join(out) + "\n"


def render_verdict_html(report: Mapping[str, Any]) -> str:
    items = _verdict_items(report)
    if not items:
        return ""
    out = [f'<div class="abidoc abidoc-verdict" style="margin:.4em 0"><div><b>{_h(_VERDICT_TITLE)}</b></div>']
    for kind, item in items:
        if kind == "prebuilt":
            mark, name = _prebuilt_head(item)
            row = f"<div>{_h(mark)} <b>{_h(name)}</b>: {_h_inline(_str(item.get('message')))}"
            if _str(item.get("url")):
                row += f"<br>from <code>{_h(_str(item.get('url')))}</code>"
            nearest = _nearest(item)
            if nearest:
                row += "<ul>" + "".join(f"<li>nearest listed: {_h(n)}</li>" for n in nearest) + "</ul>"
            out.append(row + "</div>")
            continue
        mark, what = _diag_head(item)
        code = _str(item.get("code"))
        tag = "" if _loads_verdict(item) or not code else f" <code>{_h(code)}</code>"
        head = f"<b>{_h(what)}</b>{tag}: " if what else ""
        out.append(f"<div>{_h(mark)} {head}{_h_inline(_str(item.get('message')))}</div>")
        chosen, others = _preferred(item)
        if chosen is not None and not _loads_verdict(item):
            out.append(_html_fix(chosen, "Fix:"))
            out.append(_html_details(item, others))
    out.append("</div>")
    return "\n".join(out) + "\n"


def verdict_bundle(report: Mapping[str, Any]) -> Any:
    """The display bundle of ``abidoc verify``'s JSON, or ``None`` when it says nothing worth a
    line (no wheel judged, no package it knows, nothing that would break)."""
    if not _verdict_items(report):
        return None
    return {
        "text/html": render_verdict_html(report),
        "text/markdown": render_verdict_markdown(report),
        "text/plain": render_verdict_plain(report),
        MIME: dict(report),
    }
