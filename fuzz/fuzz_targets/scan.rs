//! Fuzzes the traceback / pip-log scanner: no panic, and every event span lies inside the text on
//! char boundaries.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parse = abidoc_syntax::scan(&text);
    for ev in &parse.value {
        assert!(ev.span.start <= ev.span.end, "inverted span {:?}", ev.span);
        assert!(ev.span.end <= text.len(), "span past end {:?}", ev.span);
        assert!(text.is_char_boundary(ev.span.start) && text.is_char_boundary(ev.span.end));
    }
    let index = abidoc_syntax::LineIndex::new(&text);
    for ev in parse.value.iter().take(64) {
        let pos = index.line_col(&text, ev.span.start);
        assert_eq!(index.offset(&text, pos), ev.span.start);
    }
});
