//! Fixes that compile, judged against the machine's CUDA compiler: a build that cannot run here
//! says what is in its way and ranks after what can.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use abidoc_ide::{AnalysisHost, Code, Context, DescribedMachine};

/// A site-packages with `torch` and causal-conv1d installed from its sdist with the CUDA build
/// skipped: its Python half, no `causal_conv1d_cuda` module.
fn skipped_build(root: &Path, torch: &str) -> PathBuf {
    let sp = root.join("lib/python3.11/site-packages");
    let write = |rel: &str, body: &str| common::write_under(&sp, rel, body);
    write("torch/__init__.py", "");
    write(
        "torch/version.py",
        &format!("__version__ = '{torch}'\ncuda = '12.8'\n"),
    );
    write(
        "torch-2.10.0.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.10.0\n",
    );
    write("torch-2.10.0.dist-info/RECORD", "torch/__init__.py,,\n");
    write("causal_conv1d/__init__.py", "import causal_conv1d_cuda\n");
    write(
        "causal_conv1d-1.6.0.dist-info/METADATA",
        "Metadata-Version: 2.1\nName: causal_conv1d\nVersion: 1.6.0\nRequires-Dist: torch\n",
    );
    write(
        "causal_conv1d-1.6.0.dist-info/RECORD",
        "causal_conv1d/__init__.py,,\n",
    );
    sp
}

const TRACEBACK: &str = "Traceback (most recent call last):
  File \"<string>\", line 1, in <module>
  File \"SP/causal_conv1d/__init__.py\", line 1, in <module>
    import causal_conv1d_cuda
ModuleNotFoundError: No module named 'causal_conv1d_cuda'
";

fn diagnose(machine: DescribedMachine, torch: &str) -> Vec<abidoc_ide::Fix> {
    let root = tempfile::tempdir().expect("tempdir");
    let sp = skipped_build(root.path(), torch);
    let text = TRACEBACK.replace("SP", &sp.display().to_string());
    let ctx = Context {
        use_env: true,
        site_packages: vec![sp],
        ..Context::default()
    };
    let host = AnalysisHost::with_machine(Arc::new(machine));
    let diags = host.diagnose_text(&text, &ctx);
    let d = diags
        .into_iter()
        .find(|d| d.code == Code::ExtensionIncompleteBuild)
        .expect("an incomplete build");
    assert_eq!(d.package.as_deref(), Some("causal-conv1d"));
    d.fixes
}

#[test]
fn without_nvcc_and_without_a_listed_wheel_nothing_that_compiles_is_preferred() {
    // The release data lists no causal-conv1d wheel for torch 2.15.
    let fixes = diagnose(DescribedMachine::default(), "2.15.0+cu128");
    let first = &fixes[0];
    assert!(first.blocker.is_none(), "{first:?}");
    assert!(first.id.ends_with("/uninstall"), "{:?}", first.id);
    let build = fixes
        .iter()
        .find(|f| f.id.ends_with("/source-build"))
        .expect("a source build");
    assert!(build.blocker.as_deref().is_some_and(|b| b.contains("nvcc")));
    // setup.py stops before its download without nvcc unless the skip switch is set.
    let fetch = fixes
        .iter()
        .find(|f| f.id.ends_with("/refetch-wheel"))
        .expect("the refetch");
    assert!(fetch.blocker.is_some());
    assert!(switched(fetch), "{:?}", fetch.env());
}

fn switched(f: &abidoc_ide::Fix) -> bool {
    f.env()
        .iter()
        .any(|(k, v)| k == "CAUSAL_CONV1D_SKIP_CUDA_BUILD" && v == "TRUE")
}

#[test]
fn without_nvcc_a_listed_release_is_fetched_with_the_switch() {
    let fixes = diagnose(DescribedMachine::default(), "2.10.0+cu128");
    let first = &fixes[0];
    assert!(first.blocker.is_none(), "{first:?}");
    assert!(first.id.ends_with("/companion-release"), "{:?}", first.id);
    assert!(switched(first), "{:?}", first.env());
}

#[test]
fn with_nvcc_the_build_and_the_fetch_are_not_in_the_way() {
    let mut m = DescribedMachine::default();
    m.files.insert(
        PathBuf::from("/usr/local/cuda-12.8/bin/nvcc"),
        String::new(),
    );
    let fixes = diagnose(m, "2.15.0+cu128");
    assert!(fixes.iter().all(|f| f.blocker.is_none()), "{fixes:?}");
    assert!(!fixes[0].id.ends_with("/uninstall"), "{:?}", fixes[0].id);
    assert!(!fixes.iter().any(switched));
}
