//! Notebook reader: decoded texts map back to the exact place in the raw `.ipynb` JSON, and
//! malformed notebooks give partial results with a problem.

// Test helpers outside `#[test]` fns: a panic there is a failing test, as in the tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use abidoc_syntax::notebook::{self, OutputKind};
use abidoc_syntax::{EventKind, LineIndex, Span, scan};

fn example() -> String {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/granite-lora-training.ipynb");
    std::fs::read_to_string(p).unwrap()
}

fn raw_line(raw: &str, offset: usize) -> &str {
    let idx = LineIndex::new(raw);
    let line = idx.line_col(raw, offset).line;
    let start = idx.line_start(line).unwrap();
    let end = idx.line_start(line + 1).unwrap_or(raw.len());
    &raw[start..end]
}

#[test]
fn error_output_maps_to_its_traceback_line() {
    let raw = example();
    let nb = notebook::parse(&raw);
    assert!(nb.problems.is_empty(), "{:?}", nb.problems);
    assert_eq!(nb.value.nbformat, Some(4));
    let cell = nb
        .value
        .cells
        .iter()
        .find(|c| c.execution_count == Some(26))
        .unwrap();
    let out = &cell.outputs[0];
    let OutputKind::Error { ename, evalue } = &out.kind else {
        panic!("not an error output: {:?}", out.kind)
    };
    assert_eq!(ename, "ImportError");
    assert!(
        evalue.starts_with("Failed to import dependencies for Unsloth backend:\n/opt/app-root/")
    );

    // The wrapped error's symbol (last traceback entry) lands on the raw line holding that entry.
    let events = scan(&out.text.text).value;
    let sym_events: Vec<_> = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::UndefinedSymbol { .. }))
        .collect();
    assert_eq!(
        sym_events.len(),
        2,
        "inner ImportError and the wrapping one"
    );
    let last = sym_events[1];
    let rs = out.text.span_to_raw(last.span);
    let line = raw_line(&raw, rs.start);
    assert!(
        line.trim_start()
            .starts_with(r#""\u001b[0;31mImportError\u001b[0m: Failed to import dependencies"#),
        "{line}"
    );
    // The span covers the path, the JSON `\n` escape and the symbol, verbatim in the raw text.
    assert!(
        rs.slice(&raw)
            .starts_with("/opt/app-root/lib64/python3.12/site-packages/selective_scan_cuda")
    );
    assert!(
        rs.slice(&raw).contains(
            r":\nundefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"
        )
    );
    assert!(rs.slice(&raw).ends_with("EiPKcS2_ib"));

    // An ANSI-coloured frame: the decoded `Cell In[26], line 3` maps into its JSON string.
    let frame = events
        .iter()
        .find(|e| matches!(&e.kind, EventKind::Frame { file, .. } if file == "Cell In[26]"))
        .unwrap();
    let rs = out.text.span_to_raw(frame.span);
    assert_eq!(rs.slice(&raw), r"Cell \u001b[0;32mIn[26], line 3");
}

#[test]
fn cell_source_maps_model_id_to_its_raw_line() {
    let raw = example();
    let nb = notebook::parse(&raw).value;
    let cell = nb
        .cells
        .iter()
        .find(|c| c.execution_count == Some(26))
        .unwrap();
    let ev = scan(&cell.source.text)
        .value
        .into_iter()
        .find(|e| matches!(e.kind, EventKind::Model { .. }))
        .unwrap();
    let rs = cell.source.span_to_raw(ev.span);
    assert_eq!(rs.slice(&raw), "ibm-granite/granite-3.2-8b-instruct");
    assert_eq!(
        raw_line(&raw, rs.start).trim(),
        r#""    model_path=\"ibm-granite/granite-3.2-8b-instruct\",\n","#
    );
}

#[test]
fn stream_and_display_outputs_and_string_sources() {
    let raw = r##"{"nbformat": 4, "nbformat_minor": 2, "cells": [
 {"cell_type": "code", "execution_count": null, "source": "!pip install x", "metadata": {},
  "outputs": [
   {"output_type": "stream", "name": "stderr", "text": "ERROR: Failed building wheel for flash-attn\n"},
   {"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": {"text/html": ["<b>x</b>"], "text/plain": ["'2.5.1'"]}},
   {"output_type": "display_data", "metadata": {}, "data": {"image/png": "AAAA"}}
  ]},
 {"cell_type": "markdown", "source": ["# T\u00edtulo\n", "text"], "metadata": {}}
]}"##;
    let nb = notebook::parse(raw);
    assert!(nb.problems.is_empty(), "{:?}", nb.problems);
    let cells = &nb.value.cells;
    assert_eq!(cells.len(), 2);
    assert_eq!(cells[0].execution_count, None);
    assert_eq!(cells[0].source.text, "!pip install x");
    assert_eq!(
        cells[0].outputs.len(),
        2,
        "display_data without text/plain is skipped"
    );
    assert_eq!(
        cells[0].outputs[0].kind,
        OutputKind::Stream {
            name: "stderr".into()
        }
    );
    assert_eq!(cells[0].outputs[1].kind, OutputKind::Display);
    assert_eq!(cells[0].outputs[1].text.text, "'2.5.1'");
    assert_eq!(cells[1].source.text, "# Título\ntext");
    let i = cells[1].source.text.find('í').unwrap();
    assert_eq!(
        cells[1].source.span_to_raw(Span::new(i, i + 2)).slice(raw),
        r"\u00ed"
    );
    let t = cells[1].source.text.find("text").unwrap();
    assert_eq!(
        cells[1].source.span_to_raw(Span::new(t, t + 4)).slice(raw),
        "text"
    );
    let w = &cells[0].outputs[0].text;
    let ev = &scan(&w.text).value[0];
    assert_eq!(
        w.span_to_raw(ev.span).slice(raw),
        "Failed building wheel for flash-attn"
    );
}

#[test]
fn truncated_notebook_keeps_cells_read_so_far() {
    let raw = example();
    let full = notebook::parse(&raw).value.cells.len();
    // Cut inside the last code cell's error output.
    let cut = raw.find("During handling").unwrap();
    let nb = notebook::parse(&raw[..cut]);
    assert_eq!(nb.problems.len(), 1);
    assert!(
        nb.problems[0].message.contains("ends"),
        "{}",
        nb.problems[0].message
    );
    assert_eq!(
        nb.value.cells.len(),
        full - 1,
        "the cut cell is kept, the next one is not reached"
    );
    // Cutting anywhere never panics and never reports more cells than the full notebook.
    for cut in (0..raw.len())
        .step_by(53)
        .filter(|c| raw.is_char_boundary(*c))
    {
        let nb = notebook::parse(&raw[..cut]);
        assert!(nb.value.cells.len() <= full);
        assert!(!nb.problems.is_empty(), "cut at {cut} reported no problem");
    }
}

#[test]
fn malformed_and_hostile_json() {
    for bad in [
        "",
        "not json",
        "[1, 2, 3]",
        r#"{"cells": [{"cell_type": "code", "source": "x" "outputs": []}]}"#,
        r#"{"cells": [{"source": "\ud800 lone surrogate \x"}]}"#,
        r#"{"cells": "nope"}"#,
        r#"{"cells": [{"cell_type": "code", "source": ["a", 1, null, {"b": [true]}]}]}"#,
        "{\"cells\": [{\"source\": \"\u{0}\u{1}\"}]}",
    ] {
        let _ = notebook::parse(bad);
    }
    let mixed = notebook::parse(r#"{"cells": [{"cell_type": "code", "source": ["a", 1, "b"]}]}"#);
    assert_eq!(mixed.value.cells[0].source.text, "ab");

    let deep_meta = format!(
        "{{\"metadata\": {}1{}, \"cells\": []}}",
        "{\"a\": [".repeat(10_000),
        "]}".repeat(10_000)
    );
    let nb = notebook::parse(&deep_meta);
    assert!(
        nb.problems
            .iter()
            .any(|p| p.message.contains("nested deeper")),
        "{:?}",
        nb.problems
    );
    let deep_cells = format!("{{\"cells\": [{}", "[".repeat(10_000));
    let nb = notebook::parse(&deep_cells);
    assert!(!nb.problems.is_empty());
    assert!(nb.value.cells.len() <= 1);
}
