//! Fuzzes the wheel reader: the zip central directory (zip64 included), local headers, stored
//! and deflate members under small bounds, member names, METADATA, and the ELF members parsed.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = abidoc_env::wheel::Limits {
        max_members: 4096,
        max_member: 8 << 20,
        max_total: 32 << 20,
        max_metadata: 1 << 20,
    };
    if let Ok(w) = abidoc_env::wheel::read_wheel_bytes(data, &limits) {
        let _ = w.normalized();
        for l in &w.libraries {
            let _ = abidoc_env::wheel::unsafe_name(&l.install_path);
        }
    }
});
