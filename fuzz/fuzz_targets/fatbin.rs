//! Fuzzes the CUDA fat binary reader, over raw section bytes and over whole ELF files.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let f = abidoc_elf::parse_fatbin(data);
    let _ = f.describe();
    let _ = f.runs_on(12, 0);
    if let Some(f) = abidoc_elf::read_fatbin(data) {
        let _ = f.describe();
    }
});
