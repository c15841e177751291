//! The `.ipynb` reader (nbformat 4.x): cell sources and outputs, each with a map into the raw JSON.
//!
//! A small JSON tokenizer of our own (serde_json does not keep positions): every decoded string
//! remembers where each of its bytes came from in the raw file, so a diagnostic found in a
//! traceback lands on the right line of the `.ipynb`. Deviations from nbformat we accept on
//! purpose: any `nbformat` (we read what has the 4.x shape), `source`/`text`/`traceback` as
//! either a string or a list of strings, unknown keys and output types (skipped), a truncated file
//! (cells read so far are returned with a problem).

use crate::span::{SourceMap, Span};
use crate::{Parse, Problem};

#[derive(Debug, Clone, Default)]
pub struct Notebook {
    pub nbformat: Option<u32>,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    Code,
    Markdown,
    Raw,
}

#[derive(Debug, Clone)]
pub struct Cell {
    /// Zero-based position in the notebook.
    pub index: usize,
    pub kind: CellKind,
    pub execution_count: Option<u32>,
    /// The cell's source joined into one text, mapped into the raw JSON.
    pub source: MappedText,
    pub outputs: Vec<Output>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputKind {
    /// `output_type: error` with its `ename` and `evalue`.
    Error { ename: String, evalue: String },
    /// `output_type: stream` (`stdout` or `stderr`).
    Stream { name: String },
    /// `display_data` / `execute_result`: the `text/plain` part.
    Display,
}

#[derive(Debug, Clone)]
pub struct Output {
    pub kind: OutputKind,
    /// The output's text (`traceback` lines joined with `\n`, or `text`), mapped into the raw JSON.
    pub text: MappedText,
}

/// A text decoded from JSON strings, with a map from its offsets to the raw `.ipynb` offsets.
#[derive(Debug, Clone, Default)]
pub struct MappedText {
    pub text: String,
    pub map: SourceMap,
}

impl MappedText {
    /// The raw-JSON span of a span of [`text`](Self::text).
    pub fn span_to_raw(&self, span: Span) -> Span {
        self.map.span_to_raw(span)
    }

    fn push_str_value(&mut self, s: &JStr) {
        let base = self.text.len();
        for seg in &s.segs {
            match *seg {
                Seg::Verbatim { d, r, len } => self.map.push_verbatim(base + d, r, len),
                Seg::Escape { d, r, rlen } => self.map.push_escape(base + d, r, rlen),
            }
        }
        self.text.push_str(&s.text);
    }

    /// Appends a separator that has no raw counterpart (the `\n` joining traceback entries);
    /// it maps to `raw_at`, the end of the previous string.
    fn push_synthetic(&mut self, sep: &str, raw_at: usize) {
        self.map.push_escape(self.text.len(), raw_at, 0);
        self.text.push_str(sep);
    }
}

/// Nesting deeper than this is not a notebook: stop with a problem instead of recursing on.
const MAX_DEPTH: usize = 128;

/// Parses a notebook. Malformed JSON yields the cells read before the error plus a problem.
pub fn parse(raw: &str) -> Parse<Notebook> {
    let mut p = Parser::new(raw);
    let mut nb = Notebook::default();
    let res = p.notebook(&mut nb);
    if let Err(e) = res {
        p.problems.push(Problem::new(
            Some(Span::new(e.at, (e.at + 1).min(raw.len()).max(e.at))),
            e.msg,
        ));
    } else {
        p.ws();
        if p.i < p.b.len() {
            p.problems.push(Problem::new(
                Some(Span::new(p.i, p.b.len())),
                "text after the end of the notebook JSON",
            ));
        }
    }
    Parse {
        value: nb,
        problems: p.problems,
    }
}

/// Raw spans of the cell objects of a notebook, in order, found without building the cells (the
/// language server re-reads only the cells an edit touched). `None` unless [`parse`] would read
/// the same cells without a problem: then the caller parses the whole text.
pub fn cell_spans(raw: &str) -> Option<Vec<Span>> {
    let mut p = Parser::new(raw);
    let mut spans = Vec::new();
    if p.peek() != Some(b'{') {
        return None;
    }
    p.object(0, &mut |p, key, d| match key {
        "cells" => p.array(d, &mut |p, d| {
            if p.peek() != Some(b'{') {
                return p.err("a cell that is not an object");
            }
            let start = p.i;
            p.skip(d)?;
            spans.push(Span::new(start, p.i));
            Ok(())
        }),
        "worksheets" => p.err("nbformat 3"),
        _ => p.skip(d),
    })
    .ok()?;
    p.ws();
    (p.i == p.b.len()).then_some(spans)
}

/// Reads one cell object that is all of `raw` (one span from [`cell_spans`]); maps point into
/// `raw`. `index` is the cell's position in the notebook. `None` unless `raw` is exactly one
/// well-formed object, read as [`parse`] reads it.
pub fn parse_cell(raw: &str, index: usize) -> Option<Cell> {
    let mut p = Parser::new(raw);
    let mut cell = Cell {
        index,
        kind: CellKind::Code,
        execution_count: None,
        source: MappedText::default(),
        outputs: Vec::new(),
    };
    if p.peek() != Some(b'{') {
        return None;
    }
    // The depth of a cell inside `{"cells": [...]}`, so nesting limits match `parse`.
    p.cell(&mut cell, 2).ok()?;
    p.ws();
    (p.i == p.b.len() && p.problems.is_empty()).then_some(cell)
}

#[derive(Debug)]
struct JErr {
    at: usize,
    msg: String,
}

type R<T> = Result<T, JErr>;

/// A decoded JSON string with its map into the raw text.
#[derive(Debug, Default)]
struct JStr {
    text: String,
    segs: Vec<Seg>,
}

#[derive(Debug, Clone, Copy)]
enum Seg {
    Verbatim { d: usize, r: usize, len: usize },
    Escape { d: usize, r: usize, rlen: usize },
}

/// A string value, or a list of them (nbformat's multiline strings).
#[derive(Debug, Default)]
struct Multi {
    parts: Vec<JStr>,
    /// Raw offset of the closing quote of each part (where a synthetic separator maps).
    ends: Vec<usize>,
}

struct Parser<'a> {
    raw: &'a str,
    b: &'a [u8],
    i: usize,
    problems: Vec<Problem>,
}

impl<'a> Parser<'a> {
    fn new(raw: &'a str) -> Self {
        Parser {
            raw,
            b: raw.as_bytes(),
            i: 0,
            problems: Vec::new(),
        }
    }
}

impl Parser<'_> {
    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(JErr {
            at: self.i.min(self.b.len()),
            msg: msg.into(),
        })
    }

    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\n' | b'\r' | b'\t') {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> R<()> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else if self.i >= self.b.len() {
            self.err(format!(
                "notebook JSON ends early: expected `{}`",
                c as char
            ))
        } else {
            self.err(format!("invalid notebook JSON: expected `{}`", c as char))
        }
    }

    /// Iterates an object's keys, calling `f` with each key; `f` must consume the value.
    fn object(
        &mut self,
        depth: usize,
        f: &mut dyn FnMut(&mut Self, &str, usize) -> R<()>,
    ) -> R<()> {
        if depth > MAX_DEPTH {
            return self.err(format!("JSON nested deeper than {MAX_DEPTH} levels"));
        }
        self.expect(b'{')?;
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            if self.peek() != Some(b'"') {
                return self.err(if self.i >= self.b.len() {
                    "notebook JSON ends early"
                } else {
                    "invalid notebook JSON: expected a key"
                });
            }
            let key = self.string()?;
            self.expect(b':')?;
            f(self, &key.text, depth + 1)?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                None => return self.err("notebook JSON ends early: expected `,` or `}`"),
                _ => return self.err("invalid notebook JSON: expected `,` or `}`"),
            }
        }
    }

    fn array(&mut self, depth: usize, f: &mut dyn FnMut(&mut Self, usize) -> R<()>) -> R<()> {
        if depth > MAX_DEPTH {
            return self.err(format!("JSON nested deeper than {MAX_DEPTH} levels"));
        }
        self.expect(b'[')?;
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(());
        }
        loop {
            f(self, depth + 1)?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(());
                }
                None => return self.err("notebook JSON ends early: expected `,` or `]`"),
                _ => return self.err("invalid notebook JSON: expected `,` or `]`"),
            }
        }
    }

    /// Skips any value, iteratively for containers so hostile nesting cannot exhaust the stack.
    fn skip(&mut self, depth: usize) -> R<()> {
        match self.peek() {
            Some(b'"') => self.string().map(|_| ()),
            Some(b'{' | b'[') => {
                let mut stack: Vec<u8> = Vec::new();
                loop {
                    match self.peek() {
                        Some(c @ (b'{' | b'[')) => {
                            if depth + stack.len() > MAX_DEPTH {
                                return self
                                    .err(format!("JSON nested deeper than {MAX_DEPTH} levels"));
                            }
                            stack.push(if c == b'{' { b'}' } else { b']' });
                            self.i += 1;
                        }
                        Some(c @ (b'}' | b']')) => {
                            if stack.last() != Some(&c) {
                                return self.err("invalid notebook JSON: mismatched bracket");
                            }
                            stack.pop();
                            self.i += 1;
                            if stack.is_empty() {
                                return Ok(());
                            }
                        }
                        Some(b'"') => {
                            self.string()?;
                        }
                        Some(b',' | b':') => self.i += 1,
                        Some(_) => self.scalar()?,
                        None => return self.err("notebook JSON ends early"),
                    }
                }
            }
            Some(_) => self.scalar(),
            None => self.err("notebook JSON ends early: expected a value"),
        }
    }

    fn scalar(&mut self) -> R<()> {
        let st = self.i;
        while self.i < self.b.len()
            && (self.b[self.i].is_ascii_alphanumeric()
                || matches!(self.b[self.i], b'-' | b'+' | b'.'))
        {
            self.i += 1;
        }
        if self.i == st {
            return self.err("invalid notebook JSON: unexpected character");
        }
        Ok(())
    }

    fn number_u32(&mut self) -> R<Option<u32>> {
        match self.peek() {
            Some(b'"') => self.string().map(|s| s.text.trim().parse().ok()),
            Some(b'{' | b'[') => self.skip(0).map(|()| None),
            Some(_) => {
                let st = self.i;
                self.scalar()?;
                Ok(self.raw.get(st..self.i).and_then(|t| t.parse().ok()))
            }
            None => self.err("notebook JSON ends early: expected a value"),
        }
    }

    /// Decodes the string at the cursor, keeping where each byte came from.
    fn string(&mut self) -> R<JStr> {
        if self.peek() != Some(b'"') {
            return self.err("invalid notebook JSON: expected a string");
        }
        self.i += 1;
        let mut out = JStr::default();
        loop {
            let run_start = self.i;
            let Some(off) = memchr::memchr2(b'"', b'\\', &self.b[self.i..]) else {
                self.i = self.b.len();
                return self.err("notebook JSON ends inside a string");
            };
            let run_end = self.i + off;
            if run_end > run_start {
                // The raw text is valid UTF-8 and `"`/`\` are ASCII, so this slice is on boundaries.
                let run = self.raw.get(run_start..run_end).unwrap_or("");
                out.segs.push(Seg::Verbatim {
                    d: out.text.len(),
                    r: run_start,
                    len: run.len(),
                });
                out.text.push_str(run);
            }
            self.i = run_end;
            if self.b[self.i] == b'"' {
                self.i += 1;
                return Ok(out);
            }
            // An escape.
            let esc_start = self.i;
            let Some(&c) = self.b.get(self.i + 1) else {
                self.i = self.b.len();
                return self.err("notebook JSON ends inside a string");
            };
            let ch = match c {
                b'n' => '\n',
                b't' => '\t',
                b'r' => '\r',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'u' => {
                    let Some(hi) = self.hex4(self.i + 2) else {
                        self.i += 2;
                        return self.err("invalid \\u escape in notebook JSON");
                    };
                    let mut len = 6;
                    let ch = if (0xD800..0xDC00).contains(&hi) {
                        match (
                            self.b.get(self.i + 6),
                            self.b.get(self.i + 7),
                            self.hex4(self.i + 8),
                        ) {
                            (Some(b'\\'), Some(b'u'), Some(lo))
                                if (0xDC00..0xE000).contains(&lo) =>
                            {
                                len = 12;
                                char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                    .unwrap_or('\u{FFFD}')
                            }
                            _ => '\u{FFFD}',
                        }
                    } else {
                        char::from_u32(hi).unwrap_or('\u{FFFD}')
                    };
                    out.segs.push(Seg::Escape {
                        d: out.text.len(),
                        r: esc_start,
                        rlen: len,
                    });
                    out.text.push(ch);
                    self.i += len;
                    continue;
                }
                _ => {
                    self.i += 1;
                    return self.err("invalid escape in notebook JSON");
                }
            };
            out.segs.push(Seg::Escape {
                d: out.text.len(),
                r: esc_start,
                rlen: 2,
            });
            out.text.push(ch);
            self.i += 2;
        }
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let h = self.raw.get(at..at + 4)?;
        if !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(h, 16).ok()
    }

    /// A string or a list of strings (other values are skipped and yield nothing).
    fn multi(&mut self, depth: usize) -> R<Multi> {
        let mut m = Multi::default();
        match self.peek() {
            Some(b'"') => {
                let s = self.string()?;
                m.ends.push(self.i.saturating_sub(1));
                m.parts.push(s);
            }
            Some(b'[') => {
                self.array(depth, &mut |p, d| {
                    if p.peek() == Some(b'"') {
                        let s = p.string()?;
                        m.ends.push(p.i.saturating_sub(1));
                        m.parts.push(s);
                        Ok(())
                    } else {
                        p.skip(d)
                    }
                })?;
            }
            _ => self.skip(depth)?,
        }
        Ok(m)
    }

    fn notebook(&mut self, nb: &mut Notebook) -> R<()> {
        if self.peek() != Some(b'{') {
            return self.err("not a notebook: the file does not start with a JSON object");
        }
        self.object(0, &mut |p, key, d| match key {
            "nbformat" => {
                nb.nbformat = p.number_u32()?;
                Ok(())
            }
            "cells" => p.array(d, &mut |p, d| {
                let index = nb.cells.len();
                let mut cell = Cell {
                    index,
                    kind: CellKind::Code,
                    execution_count: None,
                    source: MappedText::default(),
                    outputs: Vec::new(),
                };
                let res = p.cell(&mut cell, d);
                // Keep a cell cut off by malformed JSON: what was read of it is still useful.
                nb.cells.push(cell);
                res
            }),
            "worksheets" => {
                p.problems.push(Problem::new(
                    None,
                    "nbformat 3 notebook (`worksheets`): cells not read",
                ));
                p.skip(d)
            }
            _ => p.skip(d),
        })
    }

    fn cell(&mut self, cell: &mut Cell, depth: usize) -> R<()> {
        self.object(depth, &mut |p, key, d| match key {
            "cell_type" => {
                let s = p.string()?;
                cell.kind = match s.text.as_str() {
                    "markdown" => CellKind::Markdown,
                    "raw" => CellKind::Raw,
                    _ => CellKind::Code,
                };
                Ok(())
            }
            "execution_count" => {
                cell.execution_count = p.number_u32()?;
                Ok(())
            }
            "source" => {
                let m = p.multi(d)?;
                cell.source = join(&m, "");
                Ok(())
            }
            "outputs" => p.array(d, &mut |p, d| {
                if let Some(o) = p.output(d)? {
                    cell.outputs.push(o);
                }
                Ok(())
            }),
            _ => p.skip(d),
        })
    }

    fn output(&mut self, depth: usize) -> R<Option<Output>> {
        if self.peek() != Some(b'{') {
            self.skip(depth)?;
            return Ok(None);
        }
        let mut otype = String::new();
        let (mut ename, mut evalue, mut name) = (String::new(), String::new(), String::new());
        let mut text: Option<MappedText> = None;
        let mut traceback: Option<MappedText> = None;
        let mut plain: Option<MappedText> = None;
        self.object(depth, &mut |p, key, d| match key {
            "output_type" => {
                otype = p.string()?.text;
                Ok(())
            }
            "ename" => {
                ename = p.string()?.text;
                Ok(())
            }
            "evalue" => {
                evalue = p.string()?.text;
                Ok(())
            }
            "name" => {
                name = p.string()?.text;
                Ok(())
            }
            "text" => {
                text = Some(join(&p.multi(d)?, ""));
                Ok(())
            }
            "traceback" => {
                traceback = Some(join(&p.multi(d)?, "\n"));
                Ok(())
            }
            "data" => p.object(d, &mut |p, key, d| {
                if key == "text/plain" {
                    plain = Some(join(&p.multi(d)?, ""));
                    Ok(())
                } else {
                    p.skip(d)
                }
            }),
            _ => p.skip(d),
        })?;
        Ok(match otype.as_str() {
            "error" => Some(Output {
                kind: OutputKind::Error { ename, evalue },
                text: traceback.unwrap_or_default(),
            }),
            "stream" => Some(Output {
                kind: OutputKind::Stream { name },
                text: text.unwrap_or_default(),
            }),
            "display_data" | "execute_result" => plain.map(|t| Output {
                kind: OutputKind::Display,
                text: t,
            }),
            _ => None,
        })
    }
}

fn join(m: &Multi, sep: &str) -> MappedText {
    let mut t = MappedText::default();
    for (k, part) in m.parts.iter().enumerate() {
        if k > 0 && !sep.is_empty() {
            t.push_synthetic(sep, m.ends.get(k - 1).copied().unwrap_or(0));
        }
        t.push_str_value(part);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_one_by_one_equal_the_whole_parse() {
        let raw = r#"{"metadata":{"x":[1,{"y":"}"}]},"cells":[{"cell_type":"code","source":"a\"]}","outputs":[{"output_type":"stream","name":"stderr","text":["l1\n","l2"]}]} ,
          {"cell_type":"markdown","source":[]}],"nbformat":4}"#;
        let whole = parse(raw);
        assert!(whole.problems.is_empty(), "{:?}", whole.problems);
        let spans = cell_spans(raw).unwrap();
        assert_eq!(spans.len(), whole.value.cells.len());
        for (i, (span, cell)) in spans.iter().zip(&whole.value.cells).enumerate() {
            let one = parse_cell(span.slice(raw), i).unwrap();
            assert_eq!(one.index, cell.index);
            assert_eq!(one.kind, cell.kind);
            assert_eq!(one.source.text, cell.source.text);
            assert_eq!(one.outputs.len(), cell.outputs.len());
            for (a, b) in one.outputs.iter().zip(&cell.outputs) {
                assert_eq!(a.text.text, b.text.text);
                let n = a.text.text.len();
                let local = a.text.span_to_raw(Span::new(0, n));
                let moved = Span::new(local.start + span.start, local.end + span.start);
                assert_eq!(moved, b.text.span_to_raw(Span::new(0, n)));
            }
        }
        // Not one object, or not a notebook: the caller falls back to the whole parse.
        assert!(parse_cell(r#"{"source":"x"} {"#, 0).is_none());
        assert!(parse_cell(r#"{"source":"x""#, 0).is_none());
        assert!(cell_spans(r#"{"cells":[{"source":"x"}"#).is_none());
        assert!(cell_spans(r#"{"cells":[1]}"#).is_none());
        assert!(cell_spans(r#"{"worksheets":[]}"#).is_none());
    }

    #[test]
    fn decodes_escapes_and_maps_back() {
        let raw = r#"{"cells":[{"cell_type":"code","execution_count":3,"source":["x = 1\n","print(\"é\ud83d\ude00\")"],"outputs":[{"output_type":"error","ename":"E","evalue":"v","traceback":["\u001b[0;31mE\u001b[0m","line2"]}]}],"nbformat":4}"#;
        let nb = parse(raw);
        assert!(nb.problems.is_empty(), "{:?}", nb.problems);
        let cell = &nb.value.cells[0];
        assert_eq!(cell.execution_count, Some(3));
        assert_eq!(cell.source.text, "x = 1\nprint(\"é😀\")");
        let emoji = cell.source.text.find('😀').unwrap();
        assert_eq!(
            cell.source
                .span_to_raw(Span::new(emoji, emoji + 4))
                .slice(raw),
            r"\ud83d\ude00"
        );
        let q = cell.source.text.find('"').unwrap();
        assert_eq!(
            cell.source.span_to_raw(Span::new(q, q + 1)).slice(raw),
            r#"\""#
        );
        let out = &cell.outputs[0];
        assert_eq!(out.text.text, "\u{1b}[0;31mE\u{1b}[0m\nline2");
        let l2 = out.text.text.find("line2").unwrap();
        assert_eq!(
            out.text.span_to_raw(Span::new(l2, l2 + 5)).slice(raw),
            "line2"
        );
        assert_eq!(nb.value.nbformat, Some(4));
    }
}
