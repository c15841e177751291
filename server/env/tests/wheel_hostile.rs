//! The wheel reader on archives written here byte by byte (a minimal zip writer, stored and
//! deflate members, zip64 records): well-formed ones read back exactly, and each hostile shape
//! (lying sizes, bombs, path tricks, truncation, absurd counts) gives its message, bounded.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use abidoc_env::wheel::{Limits, crc32, read_directory, read_member, read_wheel_bytes};

struct Entry {
    name: String,
    data: Vec<u8>,
    deflate: bool,
    /// Overrides the declared inflated size (central directory and local header).
    declared: Option<u32>,
}

fn entry(name: &str, data: &[u8], deflate: bool) -> Entry {
    Entry {
        name: name.into(),
        data: data.to_vec(),
        deflate,
        declared: None,
    }
}

/// A zip archive; with `zip64`, the end record saturates its fields and a zip64 end record and
/// locator carry the real values, as writers do past 65535 members or 4 GiB.
fn zip(entries: &[Entry], zip64: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for e in entries {
        let body = if e.deflate {
            miniz_oxide::deflate::compress_to_vec(&e.data, 6)
        } else {
            e.data.clone()
        };
        let size = e.declared.unwrap_or(e.data.len() as u32);
        let offset = out.len() as u32;
        let method: u16 = if e.deflate { 8 } else { 0 };
        let crc = crc32(&e.data);
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&[20, 0, 0, 0]);
        out.extend_from_slice(&method.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&body);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&[20, 3, 20, 0, 0, 0]);
        central.extend_from_slice(&method.to_le_bytes());
        central.extend_from_slice(&[0; 4]);
        central.extend_from_slice(&crc.to_le_bytes());
        central.extend_from_slice(&(body.len() as u32).to_le_bytes());
        central.extend_from_slice(&size.to_le_bytes());
        central.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(e.name.as_bytes());
    }
    let cd_offset = out.len();
    out.extend_from_slice(&central);
    let n = entries.len();
    if zip64 {
        let rec = out.len();
        out.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
        out.extend_from_slice(&44u64.to_le_bytes());
        out.extend_from_slice(&[45, 3, 45, 0]);
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(&(n as u64).to_le_bytes());
        out.extend_from_slice(&(n as u64).to_le_bytes());
        out.extend_from_slice(&(central.len() as u64).to_le_bytes());
        out.extend_from_slice(&(cd_offset as u64).to_le_bytes());
        out.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(rec as u64).to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
    }
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let (count, size, off) = if zip64 {
        (0xffffu16, 0xffff_ffffu32, 0xffff_ffffu32)
    } else {
        (n as u16, central.len() as u32, cd_offset as u32)
    };
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&off.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

const METADATA: &str =
    "Metadata-Version: 2.1\nName: Demo-Pkg\nVersion: 1.2.3\nRequires-Dist: torch==2.5.1\n";

/// A real shared library of this build (the test binary's own libc is one).
fn some_elf() -> Vec<u8> {
    for p in [
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
        "/lib64/libm.so.6",
        "/usr/lib64/libm.so.6",
        "/lib/aarch64-linux-gnu/libm.so.6",
    ] {
        if let Ok(b) = std::fs::read(p) {
            return b;
        }
    }
    panic!("no libm.so.6 on this machine to put in a wheel");
}

#[test]
fn reads_what_it_was_given_stored_deflated_and_zip64() {
    let elf = some_elf();
    for zip64 in [false, true] {
        let data = zip(
            &[
                entry(
                    "demo_pkg-1.2.3.dist-info/METADATA",
                    METADATA.as_bytes(),
                    true,
                ),
                entry("demo_pkg/_C.so", &elf, true),
                entry(
                    "demo_pkg-1.2.3.data/platlib/demo_pkg/libx.so.1",
                    &elf,
                    false,
                ),
                entry("demo_pkg-1.2.3.data/scripts/tool.so", &elf, false),
                entry("demo_pkg/__init__.py", b"", false),
            ],
            zip64,
        );
        let w = read_wheel_bytes(&data, &Limits::default()).unwrap();
        assert_eq!(w.members, 5);
        assert_eq!(w.name.as_deref(), Some("Demo-Pkg"));
        assert_eq!(w.normalized().as_deref(), Some("demo-pkg"));
        assert_eq!(w.version.as_deref(), Some("1.2.3"));
        assert_eq!(w.metadata.requires.len(), 1);
        assert!(w.problems.is_empty(), "{:?}", w.problems);
        let paths: Vec<&str> = w
            .libraries
            .iter()
            .map(|l| l.install_path.as_str())
            .collect();
        assert_eq!(paths, ["demo_pkg/_C.so", "demo_pkg/libx.so.1"]);
        for l in &w.libraries {
            let f = l.facts.as_ref().unwrap();
            assert!(f.export_count() > 10 && f.soname.as_deref() == Some("libm.so.6"));
        }
    }
}

#[test]
fn hostile_archives_get_a_message() {
    let elf = some_elf();
    let limits = Limits::default();
    let read = |data: &[u8]| read_wheel_bytes(data, &limits);
    let meta = || entry("x-1.dist-info/METADATA", METADATA.as_bytes(), false);

    // A bomb: 64 MiB of zeros deflated, declared as 1 KiB.
    let mut bomb = entry("x/_C.so", &vec![0u8; 64 << 20], true);
    bomb.declared = Some(1024);
    let w = read(&zip(&[meta(), bomb], false)).unwrap();
    assert!(
        w.problems.iter().any(|p| p.contains("zip bomb")),
        "{:?}",
        w.problems
    );

    // A declared size past the cap is refused before any inflating.
    let mut huge = entry("x/_C.so", &elf, true);
    huge.declared = Some(u32::MAX - 1);
    let small = Limits {
        max_member: 1 << 20,
        ..Limits::default()
    };
    let w = read_wheel_bytes(&zip(&[meta(), huge], false), &small).unwrap();
    assert!(
        w.problems.iter().any(|p| p.contains("more than the")),
        "{:?}",
        w.problems
    );

    // Declared larger than it inflates to.
    let mut short = entry("x/_C.so", &elf, true);
    short.declared = Some(elf.len() as u32 + 10);
    let w = read(&zip(&[meta(), short], false)).unwrap();
    assert!(
        w.problems.iter().any(|p| p.contains("but declares")),
        "{:?}",
        w.problems
    );

    // Path tricks and duplicates are never laid anywhere.
    let w = read(&zip(
        &[
            meta(),
            entry("../../etc/evil.so", &elf, false),
            entry("/abs/evil.so", &elf, false),
            entry("x/_C.so", &elf, false),
            entry("x/_C.so", b"second copy", false),
        ],
        false,
    ))
    .unwrap();
    assert_eq!(w.libraries.len(), 1);
    assert_eq!(w.problems.len(), 3, "{:?}", w.problems);

    // A member that is not ELF, and one whose bytes were flipped (CRC).
    let mut data = zip(&[meta(), entry("x/_C.so", &elf, false)], false);
    let w = read(&zip(
        &[meta(), entry("x/_C.so", b"#!/bin/sh\n", false)],
        false,
    ))
    .unwrap();
    assert!(
        w.problems.iter().any(|p| p.contains("not an ELF")),
        "{:?}",
        w.problems
    );
    let at = data.len() / 2;
    data[at] ^= 0xff;
    let w = read(&data).unwrap();
    assert!(
        w.problems.iter().any(|p| p.contains("CRC-32")),
        "{:?}",
        w.problems
    );

    // Truncation anywhere: an error or a problem, never a panic.
    let whole = zip(&[meta(), entry("x/_C.so", &elf, true)], false);
    for cut in (0..whole.len())
        .step_by(997)
        .chain([whole.len() - 1, 21, 0])
    {
        match read(&whole[..cut]) {
            Err(e) => assert!(!e.is_empty()),
            Ok(w) => assert!(!w.problems.is_empty() || w.libraries.is_empty()),
        }
    }
    assert!(
        read(&whole[..whole.len() - 1])
            .unwrap_err()
            .contains("truncated")
    );

    // A member count the central directory cannot hold, and a directory past the end.
    let mut lying = zip(&[meta()], false);
    let n = lying.len();
    lying[n - 12..n - 10].copy_from_slice(&60000u16.to_le_bytes());
    assert!(read(&lying).unwrap_err().contains("declares 60000 members"));
    let mut past = zip(&[meta()], false);
    let n = past.len();
    past[n - 6..n - 2].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
    assert!(read(&past).unwrap_err().contains("runs past the end"));

    // Not a zip at all.
    assert!(read(&elf).unwrap_err().contains("not a zip archive"));
}

#[test]
fn members_are_read_directly_too() {
    let data = zip(&[entry("a.txt", b"hello hello hello", true)], false);
    let m = read_directory(&data, &Limits::default()).unwrap();
    assert_eq!(
        read_member(&data, &m[0], 100).unwrap(),
        b"hello hello hello"
    );
    assert!(
        read_member(&data, &m[0], 4)
            .unwrap_err()
            .contains("more than the 4")
    );
}

/// Seeded byte mutations of a real wheel (the fuzz target's shape, run in every `cargo test`):
/// the reader answers every one, within its bounds.
#[test]
fn mutated_wheels_never_panic() {
    let elf = some_elf();
    let limits = Limits {
        max_member: 8 << 20,
        max_total: 16 << 20,
        ..Limits::default()
    };
    for zip64 in [false, true] {
        let whole = zip(
            &[
                entry("x-1.dist-info/METADATA", METADATA.as_bytes(), true),
                entry("x/_C.so", &elf[..elf.len().min(64 << 10)], true),
                entry("x/libs/y.so.1", &elf[..elf.len().min(4096)], false),
            ],
            zip64,
        );
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..1500 {
            let mut d = whole.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % d.len() as u64) as usize;
                d[at] = next() as u8;
            }
            let _ = read_wheel_bytes(&d, &limits);
        }
    }
}
