//! A text of several scan pieces gives the events of its parts scanned alone, shifted, in span
//! order, including a symbol whose library is on the line before a piece boundary.

// Test code: a missing fixture should stop the test with its message.
#![allow(clippy::expect_used)]

use abidoc_syntax::scan::{PIECE, scan, scan_pieces};
use abidoc_syntax::{Event, EventKind, Span};

fn fixtures() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/corpus");
    let mut paths: Vec<_> = std::fs::read_dir(root)
        .expect("corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    paths
        .iter()
        .take(20)
        .map(|p| std::fs::read_to_string(p).expect("fixture"))
        .collect()
}

/// Lines no recognizer looks at.
fn pad(text: &mut String, upto: usize) {
    let mut i = 0u64;
    while text.len() < upto {
        text.push_str(&format!(
            "step {i} loss 0.{:04} lr 3e-4\n",
            i * 7919 % 10000
        ));
        i += 1;
    }
}

fn shifted(events: Vec<Event>, by: usize) -> Vec<Event> {
    events
        .into_iter()
        .map(|mut e| {
            e.span = Span::new(e.span.start + by, e.span.end + by);
            e
        })
        .collect()
}

#[test]
fn pieces_give_the_events_of_their_parts() {
    let parts = fixtures();
    let mut text = String::new();
    let mut want = Vec::new();
    let step = (3 * PIECE) / parts.len();
    for (k, part) in parts.iter().enumerate() {
        pad(&mut text, k * step);
        let at = text.len();
        want.extend(shifted(scan(part).value, at));
        text.push_str(part);
        if !part.ends_with('\n') {
            text.push('\n');
        }
    }
    // A library named on the last line of a piece, its symbol on the first line of the next:
    // pieces end just after the first line break at or after `start + PIECE`.
    let lib_line = "/opt/ext/_C.cpython-311-x86_64-linux-gnu.so:\n";
    pad(&mut text, 4 * PIECE);
    let mut lo = 0;
    while lo + PIECE < text.len() {
        lo = lo + PIECE + text[lo + PIECE..].find('\n').expect("line break") + 1;
    }
    let boundary = lo + PIECE;
    pad(&mut text, boundary - 256);
    while text.len() + lib_line.len() - 1 < boundary {
        text.push_str("x\n");
    }
    let lib_at = text.len();
    text.push_str(lib_line);
    let sym = "undefined symbol: _ZN2at4_ops5zeros4callEN3c108ArrayRefIlEE\n";
    text.push_str(sym);
    let end = text.len() + 1024;
    pad(&mut text, end);

    let got = scan(&text).value;
    assert!(
        got.windows(2)
            .all(|w| (w[0].span.start, w[0].span.end) <= (w[1].span.start, w[1].span.end))
    );
    let across: Vec<&Event> = got
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::UndefinedSymbol { library: Some(l), .. } if l.ends_with("_C.cpython-311-x86_64-linux-gnu.so")))
        .collect();
    assert_eq!(
        across.len(),
        1,
        "the symbol after the piece boundary keeps its library"
    );
    assert_eq!(across[0].span.start, lib_at);
    let before: Vec<Event> = got
        .iter()
        .filter(|e| e.span.start < lib_at)
        .cloned()
        .collect();
    assert_eq!(
        before, want,
        "pieces scanned apart give the events of their parts"
    );

    // Streamed in batches, the same events in the same order.
    let mut streamed = Vec::new();
    let mut batches = 0;
    scan_pieces(
        &text,
        |p, _| p.len(),
        |events, _| {
            streamed.extend_from_slice(events);
            batches += 1;
        },
    );
    assert!(
        batches >= 4,
        "a text of over four pieces is handed over in pieces"
    );
    assert_eq!(streamed, got);
}
