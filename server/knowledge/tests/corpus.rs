//! Package lookups for every compiled-library path in the real error corpus and the seed reports,
//! and for the package each corpus case names.

// Test helpers panic on broken fixtures by design.
#![allow(clippy::unwrap_used, clippy::panic)]

use abidoc_knowledge::{package, package_for_path};
use std::fmt::Write as _;
use std::path::Path;

/// Every `….so` / `….so.N` path-like token in `text`, found by scanning for `.so` and walking
/// back over path characters (no regex).
fn so_paths(text: &str) -> Vec<&str> {
    let is_path_char =
        |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'.' | b'_' | b'-' | b'+' | b'~');
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(".so") {
        let dot = from + at;
        let mut end = dot + 3;
        from = end;
        // `.so` must end the name or be followed by version numbers (`libcuda.so.1`).
        while end + 1 < b.len() && b[end] == b'.' && b[end + 1].is_ascii_digit() {
            end += 1;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
        }
        if end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
            continue; // `.something`, not a shared object
        }
        let mut start = dot;
        while start > 0 && is_path_char(b[start - 1]) {
            start -= 1;
        }
        let token = text[start..end].trim_start_matches(['.', '-']);
        if token.len() > 3 && !token.starts_with(".so") && !out.contains(&token) {
            out.push(token);
        }
        from = end.max(from);
    }
    out
}

fn lookup_lines(text: &str, out: &mut String) {
    for p in so_paths(text) {
        let pkg = package_for_path(p).map_or("-", |p| p.name.as_str());
        let _ = writeln!(out, "  {p} -> {pkg}");
    }
}

#[test]
fn scanner_finds_paths() {
    let t = "ImportError: /x/site-packages/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so: undefined\n\
             libcudart.so.12: cannot open; see foo.something and /usr/lib/libcuda.so.1, libc10.so.";
    assert_eq!(
        so_paths(t),
        vec![
            "/x/site-packages/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so",
            "libcudart.so.12",
            "/usr/lib/libcuda.so.1",
            "libc10.so"
        ]
    );
}

#[test]
fn corpus_paths_and_packages() {
    let path = Path::new("/work/shared/corpus/real_cases.jsonl");
    let Ok(text) = std::fs::read_to_string(path) else {
        return; // the shared corpus is not on this machine
    };
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap_or("?");
        let named = case["package"].as_str().unwrap_or("");
        // "mmdet (compiled ops)", "causal-conv1d (called by mamba-ssm)": the first word names it.
        let first = named.split_whitespace().next().unwrap_or("");
        let resolved = package(first).map_or("-", |p| p.name.as_str());
        let _ = writeln!(out, "{id}: {named:?} -> {resolved}");
        lookup_lines(case["text"].as_str().unwrap_or(""), &mut out);
    }
    insta::assert_snapshot!(out);
}

#[test]
fn seed_paths() {
    let Ok(entries) = std::fs::read_dir("/work/shared/seeds") else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    let mut out = String::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let _ = writeln!(out, "{}:", p.file_name().unwrap().to_string_lossy());
        lookup_lines(&text, &mut out);
    }
    insta::assert_snapshot!(out);
}
