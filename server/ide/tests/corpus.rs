//! Every real error text of the corpus and every seed fixture, diagnosed from the text alone:
//! the code its category calls for, the package where the text names it, at least one fix.

// A failed unwrap in a test is a failing test, which is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

mod common;
use common::host;

use abidoc_ide::Context;
use common::render;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The corpus README's category → accepted codes table.
fn codes_for(category: &str) -> Option<&'static [&'static str]> {
    Some(match category {
        "abi-undefined-symbol" => &["abi-mismatch", "cxx11-abi-mismatch"],
        "cxx11-abi" => &["cxx11-abi-mismatch", "abi-mismatch"],
        "missing-nvcc-or-cuda-home" => &["cuda-home-missing"],
        "xformers-built-for" => &["xformers-built-for"],
        "libcuda-link" => &["libcuda-not-found"],
        "missing-shared-lib" => &["missing-shared-library"],
        "glibcxx" => &["libstdcxx-mismatch", "glibc-too-old"],
        "cuda-version-mismatch-build" => &["cuda-version-mismatch"],
        "flash-attn-unavailable" => &["flash-attn-unavailable"],
        "build-isolation-no-torch" => &["build-isolation"],
        c if c.starts_with("other:libstdcxx-symbol-undefined") => &["libstdcxx-mismatch"],
        c if c.starts_with("other:extension-internal-symbol-missing") => {
            &["extension-incomplete-build"]
        }
        c if c.starts_with("other:torchvision-custom-ops-not-loadable") => &["torch-ops-missing"],
        c if c.starts_with("other:triton-jit-no-c-compiler") => &["no-c-compiler"],
        _ => return None,
    })
}

fn text_only() -> Context {
    Context {
        use_env: false,
        ..Context::default()
    }
}

#[test]
fn corpus_cases_get_their_codes() {
    let dir = repo().join("tests/fixtures/corpus");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    entries.sort();
    assert!(
        entries.len() >= 40,
        "expected the whole corpus, found {}",
        entries.len()
    );
    let mut failures = Vec::new();
    for path in &entries {
        let text = std::fs::read_to_string(path).unwrap();
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path.with_extension("json")).unwrap())
                .unwrap();
        let category = meta["category"].as_str().unwrap_or("");
        let id = path.file_stem().unwrap().to_string_lossy().into_owned();
        let diags = host().diagnose_text(&text, &text_only());
        insta::assert_snapshot!(format!("corpus__{id}"), render(&text, &diags));
        let Some(want) = codes_for(category) else {
            continue;
        };
        let Some(d) = diags.iter().find(|d| want.contains(&d.code.as_str())) else {
            failures.push(format!(
                "{id}: category {category} wants {want:?}, got {:?}",
                diags.iter().map(|d| d.code.as_str()).collect::<Vec<_>>()
            ));
            continue;
        };
        if d.fixes.is_empty() {
            failures.push(format!("{id}: {} has no fix", d.code.as_str()));
        }
        // Where the text names the library, the package must be the corpus's (first word).
        let pkg = meta["package"]
            .as_str()
            .unwrap_or("")
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if text.contains(".so") && want[0].contains("abi") && !pkg.is_empty() {
            let got = d.package.clone().unwrap_or_default();
            let names_ok = got == pkg
                || pkg.starts_with(&got)
                || got.starts_with(&pkg)
                || pkg.contains(&got) && !got.is_empty();
            if !names_ok && !pkg.starts_with('(') {
                failures.push(format!("{id}: package {got:?}, corpus says {pkg:?}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "corpus failures:\n{}",
        failures.join("\n")
    );
}

#[test]
fn seed_fixtures() {
    let dir = repo().join("tests/fixtures/seeds");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("seed fixtures")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.push(repo().join("examples/granite-lora-training.ipynb"));
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).unwrap();
        let diags = if path.extension().is_some_and(|e| e == "ipynb") {
            host().diagnose_notebook(&text, &text_only())
        } else {
            host().diagnose_text(&text, &text_only())
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        insta::assert_snapshot!(format!("seed__{name}"), render(&text, &diags));
    }
}

/// Libraries no wheel ships: the fix names their provider (pip first), never a rebuild. The
/// driver's own library is read as the driver not loading (libcuda-not-found).
#[test]
fn field_texts() {
    let dir = repo().join("tests/fixtures/field");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("field fixtures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    entries.sort();
    assert!(entries.len() >= 4);
    for path in entries {
        let text = std::fs::read_to_string(&path).unwrap();
        let diags = host().diagnose_text(&text, &text_only());
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let d = diags
            .iter()
            .find(|d| {
                matches!(
                    d.code.as_str(),
                    "missing-shared-library" | "libcuda-not-found"
                )
            })
            .unwrap_or_else(|| panic!("{name}: no missing-library diagnosis"));
        assert!(
            d.fixes.iter().all(|f| !f.id.ends_with("/source-build")),
            "{name}: a rebuild does not bring a system library"
        );
        insta::assert_snapshot!(format!("field__{name}"), render(&text, &diags));
    }
}
