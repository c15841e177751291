//! Fuzzes the METADATA / PKG-INFO reader and what the analysis does with its fields: requirement
//! pins and markers, PEP 503 names, the version's local build label (non-ASCII included).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let m = abidoc_env::dist::parse_metadata_bytes(data);
    if let Some(n) = &m.name {
        let _ = abidoc_env::normalize_name(n);
    }
    if let Some(v) = &m.version {
        let _ = abidoc_env::BuildLabel::parse(v);
        let _ = abidoc_env::manifests::major_minor(v);
        let _ = abidoc_env::manifests::public_version(v);
    }
    for r in &m.requires {
        let _ = r.exact_pin();
        let _ = r.is_extra_only();
    }
    let text = String::from_utf8_lossy(data);
    for r in abidoc_env::dist::parse_egg_requires(&text) {
        let _ = r.exact_pin();
    }
});
