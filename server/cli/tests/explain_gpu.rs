//! `abidoc explain LIB` lists the GPU architectures of a real library whose `.nv_fatbin` section
//! is hand-built with the system C compiler (no nvcc needed), with the text alone (`--no-env`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

fn entry(kind: u16, arch: u32, payload: &[u8]) -> Vec<u8> {
    let mut e = vec![0u8; 64];
    e[0..2].copy_from_slice(&kind.to_le_bytes());
    e[2..4].copy_from_slice(&0x0101u16.to_le_bytes());
    e[4..8].copy_from_slice(&64u32.to_le_bytes());
    e[8..16].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    e[28..32].copy_from_slice(&arch.to_le_bytes());
    e.extend_from_slice(payload);
    e
}

#[test]
fn explain_lists_the_architectures_of_a_library() {
    let body = [
        entry(2, 80, &[1; 16]),
        entry(2, 90, &[2; 16]),
        entry(1, 90, b".target sm_90\0\0\0"),
    ]
    .concat();
    let mut section = Vec::new();
    section.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
    section.extend_from_slice(&1u16.to_le_bytes());
    section.extend_from_slice(&16u16.to_le_bytes());
    section.extend_from_slice(&(body.len() as u64).to_le_bytes());
    section.extend_from_slice(&body);
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("kernels.c");
    let bytes: Vec<String> = section.iter().map(|b| format!("0x{b:02x}")).collect();
    std::fs::write(
        &src,
        format!(
            "__attribute__((section(\".nv_fatbin\"), used, aligned(8)))\nconst unsigned char fatbin[{}] = {{{}}};\nint launch(void) {{ return 0; }}\n",
            section.len(),
            bytes.join(",")
        ),
    )
    .unwrap();
    let lib = dir.path().join("libkernels.so");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let ok = Command::new(&cc)
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .status()
        .unwrap()
        .success();
    assert!(ok, "{cc} could not build the fixture");
    let out = Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .args(["explain", "--no-env", "--color", "never"])
        .arg(&lib)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("GPU code: sm_80 sm_90 + PTX compute_90"),
        "{text}"
    );
    assert!(text.contains("sm_90: Hopper"), "{text}");

    // A library without GPU code says so.
    let plain = dir.path().join("libplain.so");
    std::fs::write(dir.path().join("plain.c"), "int f(void) { return 1; }\n").unwrap();
    assert!(
        Command::new(&cc)
            .args(["-shared", "-fPIC", "-o"])
            .arg(&plain)
            .arg(dir.path().join("plain.c"))
            .status()
            .unwrap()
            .success()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .args(["explain", "--no-env", "--color", "never"])
        .arg(&plain)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("GPU code: none"));
}
