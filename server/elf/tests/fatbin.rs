//! A real shared library with a hand-built `.nv_fatbin` section (no nvcc needed: the system C
//! compiler places the bytes, as nvcc's host stub does), read back through `read_fatbin`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use abidoc_elf::GpuCodeKind::{Cubin, Ptx};
use abidoc_elf::testing::{build_library, fatbin_container as container, fatbin_entry as entry};
use std::path::Path;

/// Builds `lib<name>.so` whose `.nv_fatbin` section holds `section`, and reads it back. The
/// native suites need a C compiler: without one this fails rather than pass silently.
fn build(dir: &Path, name: &str, section: Option<&[u8]>) -> Vec<u8> {
    let out = dir.join(format!("lib{name}.so"));
    build_library(&out, section).unwrap();
    std::fs::read(&out).unwrap()
}

#[test]
fn a_library_with_a_hand_built_fat_binary_lists_its_architectures() {
    let dir = tempfile::tempdir().unwrap();
    let mut section = container(&[
        entry(Cubin, 80, &[0x7f; 40], 0x11),
        entry(Cubin, 90, &[0x28; 24], 0x8011),
        entry(Ptx, 90, b".version 8.4\n.target sm_90\0\0\0\0\0", 0x11),
    ]);
    // A second container, as every translation unit of a real library adds its own.
    section.extend(container(&[entry(Cubin, 86, &[1; 16], 0x11)]));
    let lib = build(dir.path(), "twoarch", Some(&section));
    let f = abidoc_elf::read_fatbin(&lib).expect("the .nv_fatbin section is found");
    assert_eq!(f.containers, 2);
    assert_eq!(f.cubin_archs(), vec![80, 86, 90]);
    assert_eq!(f.ptx_archs(), vec![90]);
    assert_eq!(f.describe(), "sm_80 sm_86 sm_90 + PTX compute_90");
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert!(f.entries.iter().any(|e| e.compressed));
    // An RTX 5090 (12.0) runs it only through the PTX; a T4 (7.5) not at all.
    assert!(f.runs_on(12, 0) && f.runs_on(8, 9) && !f.runs_on(7, 5));

    // The same library cut short: what was read is kept, the rest is a problem.
    let mut truncated = section.clone();
    truncated.truncate(16 + 64 + 40 + 30);
    let lib = build(dir.path(), "cut", Some(&truncated));
    let f = abidoc_elf::read_fatbin(&lib).unwrap();
    assert_eq!(f.cubin_archs(), vec![80]);
    assert!(!f.problems.is_empty());

    // A library without GPU code has no section to read.
    let plain = build(dir.path(), "plain", None);
    assert!(abidoc_elf::read(&plain).0.is_some());
    assert_eq!(abidoc_elf::read_fatbin(&plain), None);
}
