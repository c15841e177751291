//! Snapshots of the events of every text fixture under `tests/fixtures/**` and `examples/`.
//!
//! Each event is printed with its position and the text its span covers, so a snapshot review
//! checks the spans as well as the facts.

// Test helpers outside `#[test]` fns: a panic there is a failing test, as in the tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use abidoc_syntax::{LineIndex, Span, notebook, scan};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            // Per-code folders hold copies of corpus texts; the ide's codes test owns them.
            if p.file_name().is_some_and(|n| n == "codes") {
                continue;
            }
            walk(&p, out);
        } else if matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("txt" | "log" | "ipynb")
        ) {
            out.push(p);
        }
    }
}

fn show(text: &str, span: Span) -> String {
    let s = span.slice(text);
    let s = if s.len() > 160 {
        let mut e = 160;
        while !s.is_char_boundary(e) {
            e -= 1;
        }
        format!("{}…", &s[..e])
    } else {
        s.to_owned()
    };
    format!("{s:?}")
}

/// The report for one fixture: every event with `line:col` in the file and its span's text.
pub fn report(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let raw = String::from_utf8_lossy(&bytes).into_owned();
    let idx = LineIndex::new(&raw);
    let mut out = String::new();
    let pos = |sp: Span| {
        let lc = idx.line_col(&raw, sp.start);
        format!("{}:{}", lc.line + 1, lc.col + 1)
    };
    if path.extension().and_then(|x| x.to_str()) == Some("ipynb") {
        let nb = notebook::parse(&raw);
        for p in &nb.problems {
            writeln!(out, "problem: {}", p.message).unwrap();
        }
        for cell in &nb.value.cells {
            let mut texts = vec![("source".to_owned(), &cell.source)];
            for (k, o) in cell.outputs.iter().enumerate() {
                texts.push((
                    format!("output {k} {:?}", o.kind)
                        .chars()
                        .take(120)
                        .collect(),
                    &o.text,
                ));
            }
            for (what, mt) in texts {
                let parse = scan(&mt.text);
                if parse.value.is_empty() {
                    continue;
                }
                writeln!(
                    out,
                    "cell {} ({:?}, exec {:?}) {what}:",
                    cell.index, cell.kind, cell.execution_count
                )
                .unwrap();
                for ev in &parse.value {
                    let rs = mt.span_to_raw(ev.span);
                    writeln!(
                        out,
                        "  {} {:?}\n      {}",
                        pos(rs),
                        ev.kind,
                        show(&mt.text, ev.span)
                    )
                    .unwrap();
                }
            }
        }
    } else {
        let parse = scan(&raw);
        for p in &parse.problems {
            writeln!(out, "problem: {}", p.message).unwrap();
        }
        for ev in &parse.value {
            writeln!(
                out,
                "{} {:?}\n    {}",
                pos(ev.span),
                ev.kind,
                show(&raw, ev.span)
            )
            .unwrap();
        }
    }
    out
}

#[test]
fn fixture_snapshots() {
    let root = repo_root();
    let mut files = Vec::new();
    walk(&root.join("tests/fixtures"), &mut files);
    walk(&root.join("examples"), &mut files);
    files.sort();
    assert!(files.len() >= 40, "fixtures missing: found {}", files.len());
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for f in &files {
            let rel = f
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace(['/', '.'], "_");
            settings_snapshot(&rel, &report(f), f);
        }
    });
}

fn settings_snapshot(name: &str, report: &str, path: &Path) {
    let mut s = insta::Settings::clone_current();
    s.set_description(path.file_name().unwrap().to_string_lossy().into_owned());
    s.bind(|| insta::assert_snapshot!(name, report));
}
