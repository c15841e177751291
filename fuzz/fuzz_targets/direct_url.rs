//! Fuzzes the `direct_url.json` (PEP 610) reader: JSON, percent-decoding of the URL's file name
//! and the wheel's local build label.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(d) = abidoc_env::DirectUrl::parse(&text)
        && let Some(w) = &d.wheel
    {
        assert!(w.ends_with(".whl"));
        let _ = abidoc_env::BuildLabel::parse(w);
    }
    // The label parser alone, on the raw text (a version or a wheel name in practice).
    let _ = abidoc_env::BuildLabel::parse(&text);
});
