//! A real shared library with a hand-built `.nv_fatbin` section (no nvcc needed: the system C
//! compiler places the bytes, as nvcc's host stub does), read back through `read_fatbin`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

/// One fat binary entry as nvcc writes it (64-byte header, then the payload).
fn entry(kind: u16, arch: u32, payload: &[u8], flags: u64) -> Vec<u8> {
    let mut e = vec![0u8; 64];
    e[0..2].copy_from_slice(&kind.to_le_bytes());
    e[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
    e[4..8].copy_from_slice(&64u32.to_le_bytes());
    e[8..16].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    e[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    e[24..26].copy_from_slice(&8u16.to_le_bytes());
    e[26..28].copy_from_slice(&1u16.to_le_bytes());
    e[28..32].copy_from_slice(&arch.to_le_bytes());
    e[40..48].copy_from_slice(&flags.to_le_bytes());
    e.extend_from_slice(payload);
    e
}

fn container(entries: &[Vec<u8>]) -> Vec<u8> {
    let body = entries.concat();
    let mut c = Vec::new();
    c.extend_from_slice(&abidoc_elf::FATBIN_MAGIC.to_le_bytes());
    c.extend_from_slice(&1u16.to_le_bytes());
    c.extend_from_slice(&16u16.to_le_bytes());
    c.extend_from_slice(&(body.len() as u64).to_le_bytes());
    c.extend_from_slice(&body);
    c
}

/// Builds `lib<name>.so` whose `.nv_fatbin` section holds `section`, with the system compiler.
fn build(dir: &Path, name: &str, section: Option<&[u8]>) -> Option<Vec<u8>> {
    let data = section.map_or(String::new(), |section| {
        let bytes: Vec<String> = section.iter().map(|b| format!("0x{b:02x}")).collect();
        format!(
            "__attribute__((section(\".nv_fatbin\"), used, aligned(8)))\nconst unsigned char fatbin_{name}[{}] = {{{}}};\n",
            section.len(),
            bytes.join(",")
        )
    });
    let src = dir.join(format!("{name}.c"));
    std::fs::write(
        &src,
        format!("{data}int kernel_launcher_{name}(void) {{ return 1; }}\n"),
    )
    .unwrap();
    let out = dir.join(format!("lib{name}.so"));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&out)
        .arg(&src)
        .status();
    match status {
        Ok(s) if s.success() => Some(std::fs::read(&out).unwrap()),
        // The native suites need a C compiler; say so rather than pass silently.
        other => panic!("{cc} could not build the fat binary fixture: {other:?}"),
    }
}

#[test]
fn a_library_with_a_hand_built_fat_binary_lists_its_architectures() {
    let dir = tempfile::tempdir().unwrap();
    let mut section = container(&[
        entry(2, 80, &[0x7f; 40], 0x11),
        entry(2, 90, &[0x28; 24], 0x8011),
        entry(1, 90, b".version 8.4\n.target sm_90\0\0\0\0\0", 0x11),
    ]);
    // A second container, as every translation unit of a real library adds its own.
    section.extend(container(&[entry(2, 86, &[1; 16], 0x11)]));
    let lib = build(dir.path(), "twoarch", Some(&section)).unwrap();
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
    let lib = build(dir.path(), "cut", Some(&truncated)).unwrap();
    let f = abidoc_elf::read_fatbin(&lib).unwrap();
    assert_eq!(f.cubin_archs(), vec![80]);
    assert!(!f.problems.is_empty());

    // A library without GPU code has no section to read.
    let plain = build(dir.path(), "plain", None).unwrap();
    assert!(abidoc_elf::read(&plain).0.is_some());
    assert_eq!(abidoc_elf::read_fatbin(&plain), None);
}
