//! Fuzzes the ELF reader and the classifier over an index built from what was read.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (info, _problems) = abidoc_elf::read(data);
    let Some(info) = info else { return };
    let mut index = abidoc_elf::ExportIndex::new();
    index.add_library("fuzz.so", &info);
    for sym in info.symbols.iter().filter(|s| s.is_required()).take(32) {
        let _ = abidoc_elf::classify(sym.name, &index);
        let _ = abidoc_elf::check_version(sym.name, &info);
    }
    for need in info.version_needs.iter().take(4) {
        let _ = format!("{need:?}");
    }
});
