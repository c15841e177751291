//! `abidoc explain LIB` lists the GPU architectures of a real library whose `.nv_fatbin` section
//! is hand-built with the system C compiler (no nvcc needed), with the text alone (`--no-env`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use abidoc_elf::testing::{build_library, fatbin_section};
use std::process::Command;

#[test]
fn explain_lists_the_architectures_of_a_library() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("libkernels.so");
    build_library(&lib, Some(&fatbin_section(&[80, 90], &[90]))).unwrap();
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
    build_library(&plain, None).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .args(["explain", "--no-env", "--color", "never"])
        .arg(&plain)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("GPU code: none"));
}
