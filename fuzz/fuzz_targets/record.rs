//! Fuzzes the RECORD reader (CSV rows, quoted paths with commas and doubled quotes) and the
//! lexical join that makes its paths absolute without touching the disk.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let base = Path::new("/env/lib/python3.12/site-packages");
    for p in abidoc_env::dist::parse_record(&text) {
        assert!(!p.is_empty(), "empty RECORD path");
        let joined = abidoc_env::dist::lexical_join(base, Path::new(p.as_ref()));
        // `..` never climbs above the root, and no `.`/`..` component is left.
        assert!(joined.components().all(|c| !matches!(
            c,
            std::path::Component::ParentDir | std::path::Component::CurDir
        )));
    }
});
