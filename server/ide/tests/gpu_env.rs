//! The GPU codes with an environment on disk: the installed torch's `libtorch_cuda.so` (a real
//! library built with the system C compiler, its `.nv_fatbin` section hand-built) is read
//! statically, and a torch without it is a CPU-only build.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use abidoc_elf::testing::{build_library, fatbin_section};
use abidoc_ide::fix::{PipFlag, Step};
use abidoc_ide::{Code, Context};
use std::path::Path;

/// A shared library at `out` whose `.nv_fatbin` holds cubins for `cubins` and PTX for `ptx`.
fn gpu_library(out: &Path, cubins: &[u32], ptx: &[u32]) {
    build_library(out, Some(&fatbin_section(cubins, ptx))).unwrap();
}

/// A site-packages with torch `version` (version.py and dist-info).
fn site_with_torch(root: &Path, version: &str, cuda: Option<&str>) -> std::path::PathBuf {
    let site = root.join("site-packages");
    let lib = site.join("torch/lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(
        site.join("torch/version.py"),
        format!(
            "__version__ = '{version}'\ncuda = {}\n",
            cuda.map_or("None".to_owned(), |c| format!("'{c}'"))
        ),
    )
    .unwrap();
    let dist = site.join(format!("torch-{version}.dist-info"));
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(
        dist.join("METADATA"),
        format!("Metadata-Version: 2.1\nName: torch\nVersion: {version}\n"),
    )
    .unwrap();
    site
}

fn diagnose_text(text: &str, ctx: &Context) -> Vec<abidoc_ide::Diagnostic> {
    abidoc_ide::AnalysisHost::new().diagnose_text(text, ctx)
}

fn ctx(site: &Path) -> Context {
    Context {
        use_env: true,
        site_packages: vec![site.to_path_buf()],
        ..Context::default()
    }
}

#[test]
fn torch_fat_binary_is_read_for_a_gpu_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let site = site_with_torch(dir.path(), "2.6.0+cu124", Some("12.4"));
    gpu_library(
        &site.join("torch/lib/libtorch_cuda.so"),
        &[50, 60, 70, 75, 80, 86, 90],
        &[90],
    );
    let text = "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n";
    let diags = diagnose_text(text, &ctx(&site));
    let d = diags
        .iter()
        .find(|d| d.code == Code::GpuArchMissing)
        .expect("gpu-arch-missing");
    let ev = d.evidence.join("\n");
    assert!(
        ev.contains("libtorch_cuda.so carries GPU code for: sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90 + PTX compute_90"),
        "{ev}"
    );
    // torch 2.6 has no CUDA 12.8 build: the fix is a torch from the cu128 index.
    let f = d.fixes.first().unwrap();
    assert!(
        f.steps.iter().any(|s| matches!(s, Step::PipInstall { flags, .. }
            if flags.iter().any(|fl| matches!(fl, PipFlag::IndexUrl(u) if u.as_str().ends_with("/cu128"))))),
        "{:?}",
        f.steps
    );

    // An Ampere GPU runs the same build's sm_80/sm_86 cubins: the warning is harmless.
    let text = "NVIDIA A10 with CUDA capability sm_86 is not compatible with the current PyTorch installation.\n";
    let diags = diagnose_text(text, &ctx(&site));
    let d = diags
        .iter()
        .find(|d| d.code == Code::GpuArchMissing)
        .unwrap();
    assert_eq!(d.severity.as_str(), "information", "{}", d.message);
    assert!(d.fixes.is_empty());
}

#[test]
fn a_torch_without_its_cuda_library_is_a_cpu_build() {
    let dir = tempfile::tempdir().unwrap();
    let site = site_with_torch(dir.path(), "2.5.1+cpu", None);
    gpu_library(&site.join("torch/lib/libtorch_cpu.so"), &[], &[]);
    let text = "AssertionError: Torch not compiled with CUDA enabled\n";
    let diags = diagnose_text(text, &ctx(&site));
    let d = diags
        .iter()
        .find(|d| d.code == Code::CpuOnlyTorch)
        .expect("cpu-only-torch");
    assert!(d.message.contains("2.5.1+cpu"), "{}", d.message);
    assert!(
        d.evidence.iter().any(|e| e.contains("no libtorch_cuda.so")),
        "{:?}",
        d.evidence
    );
    let cmd = d.fixes.first().unwrap().commands().concat().join(" ");
    assert!(cmd.contains("torch==2.5.1+cu1"), "{cmd}");
    assert!(
        cmd.contains("--index-url https://download.pytorch.org/whl/cu1"),
        "{cmd}"
    );
}
