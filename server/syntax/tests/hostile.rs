//! Inputs no log should contain: the scanner, cleaner and notebook reader must stay panic-free,
//! keep spans inside the text and on character boundaries, and finish in bounded time.

// Test helpers outside `#[test]` fns: a panic there is a failing test, as in the tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use abidoc_syntax::{clean::clean, notebook, scan};

fn spans_valid(text: &str) -> usize {
    let parse = scan(text);
    for ev in &parse.value {
        assert!(
            ev.span.start <= ev.span.end && ev.span.end <= text.len(),
            "{:?} out of range",
            ev.span
        );
        assert!(
            text.is_char_boundary(ev.span.start) && text.is_char_boundary(ev.span.end),
            "{:?}",
            ev.span
        );
    }
    parse.value.len()
}

/// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
fn garbage(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn bounded<T>(limit: Duration, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    assert!(t.elapsed() < limit, "took {:?}", t.elapsed());
    r
}

#[test]
fn binary_garbage_and_invalid_utf8() {
    for seed in 1..4u64 {
        let bytes = garbage(1 << 20, seed);
        let text = String::from_utf8_lossy(&bytes);
        bounded(Duration::from_secs(10), || {
            spans_valid(&text);
            let _ = clean(&text);
            let _ = notebook::parse(&text);
        });
    }
    // Garbage with real phrases spliced in still yields the phrases.
    let mut bytes = garbage(200_000, 7);
    bytes.extend_from_slice(
        b"\nImportError: /x/a.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n\xff\xfe",
    );
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        scan(&text)
            .value
            .iter()
            .any(|e| matches!(e.kind, abidoc_syntax::EventKind::UndefinedSymbol { .. }))
    );
}

#[test]
fn one_megabyte_single_lines() {
    let sym_line = "x.so: undefined symbol: _ZN3c104cuda9SetDeviceEi ".repeat(20_000);
    let n = bounded(Duration::from_secs(10), || spans_valid(&sym_line));
    assert!(n > 0);
    let parse = scan(&sym_line);
    assert!(
        parse
            .problems
            .iter()
            .any(|p| p.message.contains("longer than")),
        "{:?}",
        parse.problems.first()
    );
    assert!(parse.problems.len() <= 32);

    let plain = "a".repeat(1 << 20);
    assert_eq!(bounded(Duration::from_secs(5), || spans_valid(&plain)), 0);

    let triggers =
        "Error:Error(File \"--> torch 2.1 model=\"a/b\" \x1b[0m<a href='x'>".repeat(20_000);
    bounded(Duration::from_secs(20), || spans_valid(&triggers));

    let ansi = "\x1b[".repeat(500_000);
    bounded(Duration::from_secs(5), || {
        spans_valid(&ansi);
        assert_eq!(clean(&ansi).text, "");
    });

    let long_sym = format!(
        "ImportError: /x.so: undefined symbol: _Z{}\n",
        "N".repeat(1 << 20)
    );
    bounded(Duration::from_secs(10), || spans_valid(&long_sym));
}

#[test]
fn many_short_events_each_keep_their_location() {
    let line = "WARNING:root:WARNING: /x/xformers/_C.so: undefined symbol: _ZNK3c104impl13OperatorEntry20reportSignatureErrorENS0_12CppSignatureE\n";
    let text = line.repeat(10_000);
    let parse = scan(&text);
    assert_eq!(parse.value.len(), 10_000);
    let mut starts: Vec<usize> = parse.value.iter().map(|e| e.span.start).collect();
    starts.dedup();
    assert_eq!(starts.len(), 10_000);
}

#[test]
fn unterminated_and_deep_json_in_plain_text() {
    let deep = "[".repeat(10_000) + &"{\"a\":".repeat(10_000);
    bounded(Duration::from_secs(5), || {
        spans_valid(&deep);
        let nb = notebook::parse(&deep);
        assert!(!nb.problems.is_empty());
    });
}

#[test]
fn parallel_chunks_find_what_a_single_pass_finds() {
    // ≥16 MiB makes `scan` split the text between threads; every copy must yield the same
    // events as the text scanned alone, so nothing is lost or doubled at chunk boundaries.
    let one = "2024-05-01 12:00:00,123 - INFO - step 1 loss=0.5\n\
               ImportError: /x/a.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n\
               PyTorch 2.5.1\n"
        .to_owned()
        + &"{'loss': 0.51, 'epoch': 0.1}\n".repeat(2000);
    let alone = scan(&one).value.len();
    assert_eq!(alone, 3);
    let copies = (17 << 20) / one.len() + 1;
    let big = one.repeat(copies);
    let parse = bounded(Duration::from_secs(20), || scan(&big));
    assert_eq!(parse.value.len(), alone * copies);
    assert!(
        parse
            .value
            .windows(2)
            .all(|w| w[0].span.start <= w[1].span.start)
    );
}

/// Found by the CI fuzz pass (fuzz/scan, minimized by hand): an ISO timestamp's reader took the
/// `T` of the message after `- ` for the stamp's, so the line's content began inside the
/// exception's name and the exception reader sliced backwards.
#[test]
fn a_timestamp_never_swallows_the_message_after_it() {
    for (line, name) in [
        (
            "2025-09-26T07:03:02.179358 - TypeError: bad operand\n",
            "TypeError",
        ),
        (
            "2025-09-26T07:03:02.179358 - TedProcessError: Command x\n",
            "TedProcessError",
        ),
        (
            "2024-05-01T12:00:00.123Z ZeroDivisionError: division by zero\n",
            "ZeroDivisionError",
        ),
    ] {
        spans_valid(line);
        let names: Vec<String> = scan(line)
            .value
            .iter()
            .filter_map(|e| match &e.kind {
                abidoc_syntax::EventKind::Exception { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(names, vec![name.to_owned()], "{line:?}");
    }
}

/// A reader that takes the word before its phrase must start that word on a character boundary
/// and stay inside the line, whatever stands before it (an ideographic space, a tab, dyld's
/// markers running into another error).
#[test]
fn words_before_a_phrase_keep_character_boundaries() {
    for line in [
        "a\u{3000} does not export expected C function f\n",
        "cudf._lib.cudf\t does not export expected C function g\n",
        "\u{3000}Symbol not found: (_x)\n  Referenced from: <\u{2039}> \u{3000}\n  Expected in: \u{2039}\n",
        "Op type not registered '\u{3000}' in binary\n",
        "x.py:\u{3000}: in <module>\n",
        "Intel MKL FATAL ERROR: Cannot load \u{3000}\n",
    ] {
        spans_valid(line);
    }
}
