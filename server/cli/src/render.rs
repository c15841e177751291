//! Rendering diagnoses: human (compiler-style, coloured on a terminal), the contract's JSON, SARIF.

use std::fmt::Write as _;

use abidoc_ide::{Diagnostic, Explanation, ScanOutcome, Severity};
use abidoc_syntax::line_index::LineCol;
use serde_json::{Value, json};

use crate::input::Input;

pub struct Report<'a> {
    /// `None` for scan findings, which point at libraries instead of text.
    pub input: Option<&'a Input>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Positions in an input, for the offsets a report names: all of them are converted in one
/// sweep in offset order, so a report costs what its spans cost, not a pass over the whole input.
/// A mapped input brings the newline count of every page from the pass that checked its text, so
/// the sweep reads only the pages its offsets are on (a gigabyte log's thousands of related
/// places need a few megabytes, not the gigabyte again).
pub(crate) struct Positions<'a> {
    text: &'a str,
    /// Newlines before each page of the input (`crate::input::PAGE`), when known.
    pages: &'a [u64],
    /// Every offset the report needs (clamped to the text), sorted, with its position.
    known: Vec<(usize, LineCol)>,
}

impl<'a> Positions<'a> {
    pub(crate) fn new(input: &'a Input, diagnostics: &[Diagnostic]) -> Self {
        let text: &'a str = &input.text;
        let pages = input.text.line_pages();
        let mut offsets = Vec::new();
        for d in diagnostics {
            if let Some(src) = &d.source {
                offsets.extend([src.span.start, src.span.end]);
                for r in &d.related {
                    offsets.extend([r.span.start, r.span.end]);
                }
            }
        }
        for o in &mut offsets {
            *o = (*o).min(text.len());
        }
        offsets.sort_unstable();
        offsets.dedup();
        let known = sweep(text, pages, &offsets, &|at, len| {
            input.text.release(at, len);
        });
        Self { text, pages, known }
    }

    fn line_col(&self, offset: usize) -> LineCol {
        // Looked up as given (clamped), without reading the text: the page it is on was handed
        // back by the sweep and would be mapped again.
        let o = offset.min(self.text.len());
        match self.known.binary_search_by_key(&o, |k| k.0) {
            Ok(i) => self.known[i].1,
            // Not expected (every span of the report was swept): the same answer, alone.
            Err(_) => sweep(self.text, self.pages, &[o], &|_, _| {})
                .first()
                .map_or_else(LineCol::default, |k| k.1),
        }
    }

    pub(crate) fn range(&self, span: abidoc_syntax::Span) -> (LineCol, LineCol) {
        (self.line_col(span.start), self.line_col(span.end))
    }

    /// The text of the line holding `offset`.
    fn line_text_at(&self, offset: usize) -> &'a str {
        let bytes = self.text.as_bytes();
        let offset = offset.min(bytes.len());
        let start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |p| p + 1);
        let end = memchr::memchr(b'\n', &bytes[offset..]).map_or(bytes.len(), |p| offset + p);
        self.text
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches('\r')
    }
}

/// `offset` clamped to the text and moved back to the start of its char.
fn floor_char(text: &str, offset: usize) -> usize {
    let mut o = offset.min(text.len());
    while o > 0 && !text.is_char_boundary(o) {
        o -= 1;
    }
    o
}

/// Zero-based line and UTF-16 column of each of `offsets` (sorted, at most the text's length; one
/// inside a char counts as that char's start), paired with the offset as given: the line
/// is the number of line breaks before the offset, the column counts from just after the last.
/// Lines are counted from the previous offset, or from the offset's page when `pages` is known
/// and the previous offset lies on an earlier page; columns grow from the previous offset while
/// the line stays the same (an over-long line is not walked again for each of its offsets).
///
/// Each read of a mapped page maps its neighbours too (the kernel's fault-around, 64 KiB), so
/// thousands of offsets spread over a gigabyte would map hundreds of megabytes between two
/// rounds of the helper thread that releases them: every `BATCH` offsets, `release` is called
/// for the range read since the last call.
fn sweep(
    text: &str,
    pages: &[u64],
    offsets: &[usize],
    release: &dyn Fn(usize, usize),
) -> Vec<(usize, LineCol)> {
    const BATCH: usize = 128;
    const AROUND: usize = 64 << 10;
    let bytes = text.as_bytes();
    let mut batch_from = offsets.first().copied().unwrap_or(0);
    let count = |a: usize, b: usize| memchr::memchr_iter(b'\n', &bytes[a..b]).count() as u64;
    let mut out = Vec::with_capacity(offsets.len());
    // (offset, lines before it, start of its line, UTF-16 units from that start)
    let (mut at, mut line, mut start, mut col) = (0usize, 0u64, 0usize, 0usize);
    for &given in offsets {
        let o = floor_char(text, given);
        let page = o / crate::input::PAGE * crate::input::PAGE;
        let line_o = match pages.get(o / crate::input::PAGE) {
            Some(&before) if page > at => before + count(page, o),
            _ => line + count(at, o),
        };
        if line_o == line {
            col += text
                .get(at..o)
                .map_or(0, |s| s.chars().map(char::len_utf16).sum());
        } else {
            // A line break lies in `[at, o)`: the last one starts the line.
            start = memchr::memrchr(b'\n', &bytes[at..o]).map_or(start, |p| at + p + 1);
            col = text
                .get(start..o)
                .map_or(0, |s| s.chars().map(char::len_utf16).sum());
        }
        (at, line) = (o, line_o);
        if out.len() % BATCH == BATCH - 1 {
            let lo = batch_from.saturating_sub(AROUND) / AROUND * AROUND;
            let hi = (o / AROUND + 2) * AROUND;
            release(lo, hi - lo);
            batch_from = o;
        }
        out.push((
            given,
            LineCol {
                line: u32::try_from(line).unwrap_or(u32::MAX),
                col: u32::try_from(col).unwrap_or(u32::MAX),
            },
        ));
    }
    out
}

fn lc_json(lc: LineCol) -> Value {
    json!({ "line": lc.line, "character": lc.col })
}

/// The contract's JSON for one diagnostic.
fn diagnostic_json(d: &Diagnostic, input: Option<&Input>, pos: Option<&Positions<'_>>) -> Value {
    let mut obj = abidoc_contract::diagnostic(d);
    if let (Some(src), Some(pos)) = (&d.source, pos) {
        let (start, end) = pos.range(src.span);
        let mut s = serde_json::Map::new();
        if let Some(path) = input.and_then(|i| i.path.as_ref()) {
            s.insert("path".into(), json!(path));
        }
        if let Some(cell) = src.cell {
            s.insert("cell".into(), json!(cell));
        }
        s.insert(
            "range".into(),
            json!({ "start": lc_json(start), "end": lc_json(end) }),
        );
        obj.insert("source".into(), Value::Object(s));
        if !d.related.is_empty() {
            let related: Vec<Value> = d
                .related
                .iter()
                .map(|r| {
                    let (a, b) = pos.range(r.span);
                    let mut v = json!({ "range": { "start": lc_json(a), "end": lc_json(b) } });
                    if let Some(cell) = r.cell {
                        v["cell"] = json!(cell);
                    }
                    v
                })
                .collect();
            obj.insert("related".into(), Value::Array(related));
        }
    }
    Value::Object(obj)
}

/// The contract's JSON document: `version`, `diagnostics`, and `extra` fields beside them
/// (`verify`'s `prebuilt`). `meta` (a scan's, one per diagnosis in order) adds each diagnosis'
/// `fold` and `package_version`.
pub fn json(
    reports: &[Report<'_>],
    meta: Option<&[abidoc_ide::ScanMeta]>,
    extra: &[(&str, serde_json::Value)],
) -> String {
    let mut all = Vec::new();
    let mut metas = meta.unwrap_or_default().iter();
    for r in reports {
        let pos = r.input.map(|i| Positions::new(i, &r.diagnostics));
        for d in &r.diagnostics {
            let mut v = diagnostic_json(d, r.input, pos.as_ref());
            if let (Some(m), Value::Object(obj)) = (metas.next(), &mut v) {
                abidoc_contract::add_scan_meta(obj, m);
            }
            all.push(v);
        }
    }
    let mut doc = json!({ "version": 1, "diagnostics": all });
    for (k, v) in extra {
        doc[*k] = v.clone();
    }
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

pub fn sarif(reports: &[Report<'_>]) -> String {
    let mut results = Vec::new();
    let mut rule_ids: Vec<&'static str> = Vec::new();
    for r in reports {
        let pos = r.input.map(|i| Positions::new(i, &r.diagnostics));
        for d in &r.diagnostics {
            let id = d.code.as_str();
            if !rule_ids.contains(&id) {
                rule_ids.push(id);
            }
            let level = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Information => "note",
            };
            let mut locations = Vec::new();
            if let (Some(src), Some(pos), Some(input)) = (&d.source, pos.as_ref(), r.input) {
                let (a, b) = pos.range(src.span);
                let uri = input.path.clone().unwrap_or_else(|| "stdin".into());
                locations.push(json!({ "physicalLocation": {
                    "artifactLocation": { "uri": uri },
                    // SARIF counts lines and columns from 1.
                    "region": { "startLine": a.line + 1, "startColumn": a.col + 1, "endLine": b.line + 1, "endColumn": b.col + 1 }
                }}));
            } else if let Some(lib) = &d.library {
                locations
                    .push(json!({ "physicalLocation": { "artifactLocation": { "uri": lib } } }));
            }
            let full = diagnostic_json(d, r.input, pos.as_ref());
            results.push(json!({
                "ruleId": id,
                "level": level,
                "message": { "text": d.message },
                "locations": locations,
                "properties": { "package": d.package, "symbols": full["symbols"], "evidence": d.evidence, "fixes": full["fixes"] },
            }));
        }
    }
    let rules: Vec<Value> = rule_ids
        .iter()
        .map(|id| json!({ "id": id, "name": id }))
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "abidoc", "version": env!("CARGO_PKG_VERSION"), "rules": rules } },
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

pub(crate) struct Style {
    pub(crate) on: bool,
}

impl Style {
    pub(crate) fn paint(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
    pub(crate) fn severity(&self, s: Severity) -> String {
        match s {
            Severity::Error => self.paint("1;31", "error"),
            Severity::Warning => self.paint("1;33", "warning"),
            Severity::Information => self.paint("1;36", "info"),
        }
    }
    pub(crate) fn bold(&self, t: &str) -> String {
        self.paint("1", t)
    }
    pub(crate) fn dim(&self, t: &str) -> String {
        self.paint("2", t)
    }
    pub(crate) fn green(&self, t: &str) -> String {
        self.paint("1;32", t)
    }
    pub(crate) fn blue(&self, t: &str) -> String {
        self.paint("1;34", t)
    }

    /// A diagnosis' first line, `error[code]: message`, as every human view opens it.
    pub(crate) fn heading(&self, d: &Diagnostic) -> String {
        format!(
            "{}{}: {}",
            self.severity(d.severity),
            self.bold(&format!("[{}]", d.code.as_str())),
            self.bold(&d.message)
        )
    }
}

/// Compiler-style output: what failed, why, what to do, in that order.
pub fn human(reports: &[Report<'_>], color: bool) -> String {
    let st = Style { on: color };
    let mut out = String::new();
    let mut counts = [0usize; 3];
    for r in reports {
        let pos = r.input.map(|i| Positions::new(i, &r.diagnostics));
        for d in &r.diagnostics {
            counts[d.severity as usize] += 1;
            let _ = writeln!(out, "{}", st.heading(d));
            if let (Some(src), Some(pos), Some(input)) = (&d.source, pos.as_ref(), r.input) {
                let (a, _) = pos.range(src.span);
                let cell = src.cell.map(|c| format!(" (cell {c})")).unwrap_or_default();
                let more = if d.related.is_empty() {
                    String::new()
                } else {
                    format!(" (and {} more place(s))", d.related.len())
                };
                let _ = writeln!(
                    out,
                    "  {} {}:{}:{}{}{}",
                    st.blue("-->"),
                    input.display_name,
                    a.line + 1,
                    a.col + 1,
                    cell,
                    more
                );
                let line = pos.line_text_at(src.span.start);
                let shown: String = line.chars().take(160).collect();
                let ell = if line.chars().count() > 160 {
                    "…"
                } else {
                    ""
                };
                let _ = writeln!(out, "   {} {}{}", st.blue("|"), shown.trim_start(), ell);
            } else if let Some(lib) = &d.library {
                let _ = writeln!(out, "  {} {}", st.blue("-->"), lib);
            }
            for s in &d.symbols {
                let name = s.demangled.as_deref().unwrap_or(&s.mangled);
                let _ = writeln!(
                    out,
                    "   {} symbol {} [{}]",
                    st.blue("="),
                    name,
                    s.status.as_str()
                );
                if let Some(n) = &s.nearest {
                    let _ = writeln!(out, "   {}   exported instead: {}", st.blue(" "), n);
                }
            }
            for e in &d.evidence {
                let _ = writeln!(out, "   {} {}", st.blue("="), st.dim(e));
            }
            if let Some(x) = &d.explanation {
                let _ = writeln!(out, "   {} why: {}", st.blue("="), x);
            }
            for f in &d.fixes {
                let tag = if f.preferred { " (preferred)" } else { "" };
                let _ = writeln!(out, "{}: {}{}", st.green("fix"), f.title, tag);
                if !f.reason.is_empty() {
                    let _ = writeln!(out, "     {}", st.dim(&f.reason));
                }
                if let Some(cost) = f.cost.describe() {
                    let _ = writeln!(out, "     {}", st.dim(&format!("cost: {cost}")));
                }
                if f.applicability() == abidoc_ide::fix::Applicability::NeedsRoot {
                    let _ = writeln!(out, "     {}", st.dim("needs root"));
                }
                for (k, v) in &f.env() {
                    let _ = writeln!(
                        out,
                        "     $ {}",
                        abidoc_ide::fix::render::display_env(f.shell, k, v)
                    );
                }
                for c in &f.commands() {
                    let _ = writeln!(
                        out,
                        "     $ {}",
                        abidoc_ide::fix::render::display_command(f.shell, c)
                    );
                }
                for a in f.advice() {
                    let _ = writeln!(out, "     {}", st.dim(&format!("to do: {a}")));
                }
                if let Some(what) = &f.fill_in {
                    let _ = writeln!(out, "     {}", st.dim(&format!("fill in {what}")));
                }
                if let Some(what) = &f.blocker {
                    let _ = writeln!(out, "     {}", st.dim(&format!("in the way here: {what}")));
                }
                if let Some(cell) = &f.notebook_cell() {
                    let _ = writeln!(out, "     in a notebook: {}", cell.replace('\n', " ⏎ "));
                }
                if !f.verified {
                    let _ = writeln!(
                        out,
                        "     {}",
                        st.dim("(names a download that cannot be checked offline)")
                    );
                }
            }
            out.push('\n');
        }
    }
    let total: usize = counts.iter().sum();
    if total == 0 {
        let _ = writeln!(out, "{}", st.green("no known failure found"));
    } else {
        let _ = writeln!(
            out,
            "{} error(s), {} warning(s), {} note(s)",
            counts[0], counts[1], counts[2]
        );
    }
    out
}

/// One argument for a human to read: the fix renderer's POSIX quoting (a control character,
/// which validated steps never hold, is shown as refused rather than printed).
pub fn shell_quote(arg: &str) -> String {
    abidoc_ide::fix::render::sh(arg).unwrap_or_else(|| "<refused: control character>".into())
}

pub fn scan_summary(outcome: &ScanOutcome, color: bool) -> String {
    let st = Style { on: color };
    let mut s = String::new();
    let _ = writeln!(s, "{}", st.bold(&outcome.summary));
    s
}

pub fn explain_human(items: &[Explanation], color: bool) -> String {
    let st = Style { on: color };
    let mut s = String::new();
    for e in items {
        let head = e.demangled.as_deref().unwrap_or(&e.input);
        let _ = writeln!(s, "{}", st.bold(head));
        if let Some(m) = &e.mangled
            && e.demangled.is_some()
        {
            let _ = writeln!(s, "  mangled: {m}");
        }
        let _ = writeln!(s, "  from: {}", e.owner);
        if let Some(abi) = e.abi {
            let _ = writeln!(s, "  std::string ABI: {abi}");
        }
        for lib in &e.exported_by {
            let _ = writeln!(s, "  {} exported by {lib}", st.green("✓"));
        }
        for n in &e.nearest {
            let _ = writeln!(
                s,
                "  nearest: {} in {} ({})",
                n.demangled, n.library, n.difference
            );
        }
        for line in &e.history {
            let _ = writeln!(s, "  {line}");
        }
        for line in &e.notes {
            let _ = writeln!(s, "  {}", st.dim(line));
        }
        s.push('\n');
    }
    s.trim_end().to_owned()
}

pub fn explain_json(items: &[Explanation]) -> String {
    let v: Vec<Value> = items
        .iter()
        .map(|e| {
            json!({
                "input": e.input,
                "mangled": e.mangled,
                "demangled": e.demangled,
                "owner": e.owner,
                "abi": e.abi,
                "exported_by": e.exported_by,
                "nearest": e.nearest.iter().map(|n| json!({
                    "mangled": n.mangled, "demangled": n.demangled, "library": n.library, "difference": n.difference,
                })).collect::<Vec<_>>(),
                "history": e.history,
                "notes": e.notes,
            })
        })
        .collect();
    let mut s =
        serde_json::to_string_pretty(&json!({ "version": 1, "symbols": v })).unwrap_or_default();
    s.push('\n');
    s
}
