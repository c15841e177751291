//! Fuzzes ANSI cleaning: no panic, the cleaned text never grows, and the map lands inside the input.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let cleaned = abidoc_syntax::clean::clean(&text);
    assert!(cleaned.text.len() <= text.len());
    for d in [0, cleaned.text.len() / 2, cleaned.text.len()] {
        assert!(cleaned.map.to_raw(d) <= text.len());
    }
});
