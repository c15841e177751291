//! Fuzzes demangling, ABI flavor, qualified-name extraction and the classifier on arbitrary names.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(name) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(d) = abidoc_elf::demangle(name) {
        let _ = abidoc_elf::normalize_cxx11(&d);
        let _ = abidoc_elf::split_params(&d);
    }
    let _ = abidoc_elf::abi_flavor(name);
    let _ = abidoc_elf::qualified_name(name);
    let _ = abidoc_elf::split_version(name);
    let _ = abidoc_elf::version_family(name);
    let mut index = abidoc_elf::ExportIndex::new();
    index.add_names(
        "libfuzz.so",
        [
            name,
            "_ZN3c104cuda9SetDeviceEi",
            "_ZNK2at10TensorBase8data_ptrIfEEPT_v",
        ],
    );
    let _ = abidoc_elf::classify(name, &index);
    let _ = abidoc_elf::classify("_ZN3c104cuda9SetDeviceEa", &index);
});
