//! Fuzzes the `.ipynb` reader: no panic, and every mapped span of every cell lands inside the raw JSON.
#![no_main]
use abidoc_syntax::Span;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let raw = String::from_utf8_lossy(data);
    let nb = abidoc_syntax::notebook::parse(&raw).value;
    for cell in &nb.cells {
        let texts = std::iter::once(&cell.source).chain(cell.outputs.iter().map(|o| &o.text));
        for t in texts {
            let whole = t.span_to_raw(Span::new(0, t.text.len()));
            assert!(
                whole.start <= whole.end && whole.end <= raw.len(),
                "{whole:?} vs {}",
                raw.len()
            );
        }
    }
});
