//! Fuzzes the whole text and notebook diagnosis without the environment: no panic, and every
//! diagnostic's span lies inside its input.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let ctx = abidoc_ide::Context {
        use_env: false,
        ..Default::default()
    };
    let host = abidoc_ide::AnalysisHost::new();
    for d in host.diagnose_text(&text, &ctx) {
        for r in d.source.iter().chain(d.related.iter()) {
            let s = r.span;
            assert!(
                s.start <= s.end && s.end <= text.len(),
                "{s:?} vs {}",
                text.len()
            );
        }
    }
    let _ = host.diagnose_notebook(&text, &ctx);
});
