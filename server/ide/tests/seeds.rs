//! The five seed reports end to end: fixture notebooks and logs, with on-disk evidence from
//! libraries built by `tests/native/build.sh` where the scenario has a library.

// A failed unwrap in a test is a failing test, which is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use abidoc_ide::{Code, Context, Diagnostic, SymbolStatus};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Builds the native fixtures once per test process.
fn native() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("abidoc-ide-native-{}", std::process::id()));
        let status = std::process::Command::new("bash")
            .arg(repo().join("tests/native/build.sh"))
            .arg(&dir)
            .status()
            .expect("bash");
        assert!(status.success(), "tests/native/build.sh failed");
        // The seeds' machines could compile (their threads built or were told to build): a
        // CUDA compiler wheel's nvcc in each environment keeps that so whatever the host has.
        for site in ["site-packages", "abi0/site-packages"] {
            let bin = dir.join(site).join("nvidia/cuda_nvcc/bin");
            std::fs::create_dir_all(&bin).expect("nvcc directory");
            std::fs::write(bin.join("nvcc"), "").expect("nvcc");
        }
        dir
    })
}

/// Temporary paths differ per run; snapshots keep them symbolic.
fn redact(s: &str) -> String {
    s.replace(&native().display().to_string(), "<native>")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap()
}

fn with_env(site: &str) -> Context {
    Context {
        use_env: true,
        site_packages: vec![native().join(site)],
        ..Context::default()
    }
}

fn text_only() -> Context {
    Context {
        use_env: false,
        ..Context::default()
    }
}

fn find(diags: &[Diagnostic], code: Code) -> &Diagnostic {
    diags.iter().find(|d| d.code == code).unwrap_or_else(|| {
        panic!(
            "no {} in {:?}",
            code.as_str(),
            diags.iter().map(|d| d.code.as_str()).collect::<Vec<_>>()
        )
    })
}

fn preferred(d: &Diagnostic) -> &abidoc_ide::Fix {
    let p: Vec<_> = d.fixes.iter().filter(|f| f.preferred).collect();
    assert_eq!(p.len(), 1, "exactly one preferred fix");
    p[0]
}

mod common;
use common::host;

/// A copy of a native fixture environment under `lib/python3.10/site-packages`, so that the
/// Python is known, with torch's `version.py` saying `torch` and `cuda`.
fn with_python(site: &str, name: &str, torch: &str, cuda: &str) -> Context {
    let sp = native().join(name).join("lib/python3.10/site-packages");
    if !sp.exists() {
        std::fs::create_dir_all(sp.parent().unwrap()).unwrap();
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(native().join(site))
            .arg(&sp)
            .status()
            .expect("cp");
        assert!(status.success());
    }
    std::fs::write(
        sp.join("torch/version.py"),
        format!("__version__ = '{torch}'\ncuda = '{cuda}'\n"),
    )
    .unwrap();
    Context {
        use_env: true,
        site_packages: vec![sp],
        ..Context::default()
    }
}

/// With the Python known, flash-attn's fixes include the wheel its setup.py fetches for this
/// torch, CUDA, ABI and Python, as `verify --package` names it, when the release data lists
/// that release for this torch (2.8.3: torch 2.4 to 2.8, CUDA 12); for a torch no release lists
/// there is no download to offer, only the refetch and the source build.
#[test]
fn seed_004_prebuilt_wheel_only_where_the_data_lists_one() {
    let text = read("tests/fixtures/seeds/004-flash-attn-granite-h.log");
    let ctx = with_python("abi0/site-packages", "py310-torch25", "2.5.1+cu124", "12.4");
    let diags = host().diagnose_text(&text, &ctx);
    let d = find(&diags, Code::Cxx11AbiMismatch);
    let wheel = d
        .fixes
        .iter()
        .find(|f| f.id.ends_with("/prebuilt-wheel"))
        .unwrap_or_else(|| panic!("no prebuilt-wheel fix: {:?}", d.fixes));
    let url = "https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/flash_attn-2.8.3%2Bcu12torch2.5cxx11abiFALSE-cp310-cp310-linux_x86_64.whl";
    assert!(
        wheel.commands().iter().flatten().any(|a| a.contains(url)),
        "{:?}",
        wheel.commands()
    );
    assert!(!wheel.verified, "a computed URL is never verified");
    assert!(
        wheel.reason.contains("release data lists"),
        "{}",
        wheel.reason
    );

    // Installed from that very wheel: it is the binary that failed, not a fix.
    let ctx = with_python(
        "abi0/site-packages",
        "py310-same-wheel",
        "2.5.1+cu124",
        "12.4",
    );
    std::fs::write(
        ctx.site_packages[0].join("flash_attn-2.8.3.dist-info/direct_url.json"),
        format!("{{\"archive_info\": {{}}, \"url\": \"{url}\"}}"),
    )
    .unwrap();
    let diags = host().diagnose_text(&text, &ctx);
    assert!(
        !find(&diags, Code::Cxx11AbiMismatch)
            .fixes
            .iter()
            .any(|f| f.id.ends_with("/prebuilt-wheel")),
        "the installed wheel is never offered again"
    );

    let ctx = with_python(
        "abi0/site-packages",
        "py310-torch215",
        "2.15.0+cu130",
        "13.0",
    );
    let diags = host().diagnose_text(&text, &ctx);
    assert!(
        !diags
            .iter()
            .flat_map(|d| &d.fixes)
            .any(|f| f.id.ends_with("/prebuilt-wheel")),
        "no flash-attn release lists torch 2.15"
    );
}

#[test]
fn seed_000_transformer_uninstalls_mamba() {
    let raw = read("examples/granite-lora-training.ipynb");
    let diags = host().diagnose_notebook(&raw, &with_env("site-packages"));
    insta::assert_snapshot!(redact(&common::render(&raw, &diags)));
    let d = find(&diags, Code::AbiMismatch);
    assert_eq!(d.package.as_deref(), Some("mamba-ssm"));
    assert!(
        d.source.as_ref().and_then(|s| s.cell).is_some(),
        "diagnosis on a cell"
    );
    let s = &d.symbols[0];
    assert_eq!(
        s.mangled,
        "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"
    );
    assert_eq!(
        s.status,
        SymbolStatus::SignatureChanged,
        "read from the library on disk"
    );
    assert!(s.nearest.as_deref().unwrap_or("").contains("unsigned int"));
    let fix = preferred(d);
    assert_eq!(
        fix.commands()[0][3..],
        ["uninstall", "-y", "mamba-ssm", "causal-conv1d"]
    );
    assert!(
        d.evidence
            .iter()
            .any(|e| e.contains("training-hub[lora]") && e.contains("does not help"))
    );
    assert!(
        d.fixes.iter().any(|f| f.id.ends_with("/source-build")),
        "rebuild is the alternative"
    );
}

#[test]
fn seed_000_hybrid_model_rebuilds_instead() {
    let raw = read("tests/fixtures/seeds/000-hybrid-granite-4.0-h.ipynb");
    let diags = host().diagnose_notebook(&raw, &with_env("site-packages"));
    insta::assert_snapshot!(redact(&common::render(&raw, &diags)));
    let d = find(&diags, Code::AbiMismatch);
    let fix = preferred(d);
    assert!(
        !fix.commands().iter().flatten().any(|a| a == "uninstall"),
        "the model needs the kernels: {}",
        fix.title
    );
    assert!(d.fixes.iter().any(|f| f.id.ends_with("/source-build")));
}

#[test]
fn seeds_001_002_built_for_newer_torch() {
    for rel in [
        "tests/fixtures/seeds/001-exchange-device.log",
        "tests/fixtures/seeds/002-bimamba-wsl2.log",
    ] {
        let text = read(rel);
        let diags = host().diagnose_text(&text, &text_only());
        let d = diags
            .iter()
            .find(|d| {
                d.symbols
                    .iter()
                    .any(|s| s.mangled == "_ZN3c104cuda14ExchangeDeviceEa")
            })
            .expect("ExchangeDevice diagnosis");
        assert_eq!(d.code, Code::AbiMismatch);
        assert!(
            d.message.contains("2.3.0"),
            "built for a newer torch than 2.2: {}",
            d.message
        );
        assert!(
            d.fixes.iter().any(|f| f
                .commands()
                .iter()
                .flatten()
                .any(|a| a == "mamba-ssm==2.2.4")),
            "the report's 2.2.4"
        );
        assert!(d.fixes.iter().any(|f| f.id.ends_with("/source-build")));
        if text.contains("WSL") {
            assert!(
                d.evidence
                    .iter()
                    .any(|e| e.starts_with("WSL2 is not the cause"))
            );
            assert!(d.evidence.iter().any(|e| e.contains("fallback")));
        }
    }
}

#[test]
fn seed_003_libcuda_without_sudo() {
    let text = read("tests/fixtures/seeds/003-triton-lcuda.log");
    let diags = host().diagnose_text(&text, &text_only());
    let d = find(&diags, Code::LibcudaNotFound);
    let fix = preferred(d);
    assert!(!fix.commands().iter().flatten().any(|a| a == "sudo"));
    // The text alone names neither the driver's directory nor this machine's home: the
    // user-level link is given as words, never with a guessed path or a literal `$HOME`.
    assert!(
        fix.env().iter().any(|(k, _)| k == "TRITON_LIBCUDA_PATH")
            || fix
                .advice()
                .iter()
                .any(|a| a.contains("TRITON_LIBCUDA_PATH"))
    );
    assert!(
        d.fixes
            .iter()
            .all(|f| f.commands().iter().flatten().all(|a| !a.contains("$HOME"))),
        "no literal $HOME"
    );
}

#[test]
fn seed_004_flash_attn_abi_mamba_fast_path_and_stale_processes() {
    let text = read("tests/fixtures/seeds/004-flash-attn-granite-h.log");
    let diags = host().diagnose_text(&text, &with_env("abi0/site-packages"));
    insta::assert_snapshot!(redact(&common::render(&text, &diags)));
    let d = find(&diags, Code::Cxx11AbiMismatch);
    assert_eq!(d.package.as_deref(), Some("flash-attn"));
    // A prebuilt wheel over a compile: flash-attn's setup picks the wheel for this torch's ABI.
    assert!(
        preferred(d).id.ends_with("/refetch-wheel"),
        "{}",
        preferred(d).id
    );
    assert!(d.fixes.iter().any(|f| f.id.ends_with("/source-build")));
    let m = find(&diags, Code::MambaFastPath);
    let cmd = &preferred(m).commands()[0];
    assert!(
        cmd.iter().any(|a| a.starts_with("mamba-ssm"))
            && cmd.iter().any(|a| a.starts_with("causal-conv1d"))
            && cmd.iter().any(|a| a == "--no-build-isolation")
    );
    let o = find(&diags, Code::CudaOom);
    let kill = preferred(o);
    // The processes are shown first, then ended by PID.
    assert_eq!(kill.commands()[0][0], "nvidia-smi");
    assert_eq!(kill.commands()[1][0], "kill");
    assert!(
        kill.commands()[1][1..]
            .iter()
            .all(|a| a.parse::<u32>().is_ok()),
        "by PID only"
    );
    assert!(
        !diags
            .iter()
            .flat_map(|d| &d.fixes)
            .flat_map(abidoc_ide::Fix::commands)
            .flatten()
            .any(|a| a == "pkill")
    );
}
