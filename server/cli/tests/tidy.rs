//! The architecture's dependency rules, checked on every `server/*/Cargo.toml`: a crate never
//! depends on one it must not (see ARCHITECTURE.md).

// A failed unwrap in a test is a failing test, which is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

/// (crate dir, dependencies it must not have).
const RULES: &[(&str, &[&str])] = &[
    (
        "syntax",
        &[
            "tower-lsp-server",
            "tokio",
            "abidoc-env",
            "abidoc-elf",
            "abidoc-ide",
            "abidoc-lsp",
            "abidoc-knowledge",
            "memmap2",
        ],
    ),
    (
        "elf",
        &[
            "tower-lsp-server",
            "tokio",
            "abidoc-env",
            "abidoc-ide",
            "abidoc-lsp",
            "abidoc-syntax",
        ],
    ),
    (
        "knowledge",
        &[
            "tower-lsp-server",
            "tokio",
            "abidoc-env",
            "abidoc-ide",
            "abidoc-lsp",
        ],
    ),
    (
        "env",
        &[
            "tower-lsp-server",
            "tokio",
            "abidoc-ide",
            "abidoc-lsp",
            "abidoc-syntax",
        ],
    ),
    (
        "ide",
        &[
            "tower-lsp-server",
            "tokio",
            "serde",
            "serde_json",
            "abidoc-lsp",
            "clap",
        ],
    ),
    ("lsp", &["clap"]),
];

fn normal_dependencies(manifest: &str) -> Vec<String> {
    // Only the [dependencies] table: dev-dependencies may use anything.
    let mut deps = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_deps = t == "[dependencies]";
            continue;
        }
        if in_deps && let Some((name, _)) = t.split_once('=') {
            let name = name.trim().trim_end_matches(".workspace").trim();
            if !name.is_empty() && !name.starts_with('#') {
                deps.push(name.to_owned());
            }
        }
    }
    deps
}

#[test]
fn crates_keep_their_dependency_rules() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut violations = Vec::new();
    for (dir, forbidden) in RULES {
        let manifest =
            std::fs::read_to_string(server.join(dir).join("Cargo.toml")).expect("manifest");
        for dep in normal_dependencies(&manifest) {
            if forbidden.contains(&dep.as_str()) {
                violations.push(format!("server/{dir} depends on {dep}"));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "architecture rules broken:\n{}",
        violations.join("\n")
    );
}

#[test]
fn every_module_says_what_it_owns() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = Vec::new();
    let mut stack = vec![server.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if name != "target" && name != "snapshots" && !name.starts_with('.') {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "rs")
                && p.components().any(|c| c.as_os_str() == "src")
            {
                let text = std::fs::read_to_string(&p).unwrap();
                if !text.trim_start().starts_with("//!") {
                    missing.push(p.display().to_string());
                }
            }
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "modules without a `//!` line:\n{}",
        missing.join("\n")
    );
}
