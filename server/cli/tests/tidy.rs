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
    (
        "contract",
        &["tower-lsp-server", "tokio", "clap", "abidoc-lsp"],
    ),
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

/// Module import circles inside each crate (a module is a file or directory under `src/`; an
/// edge is a `crate::other` path in its sources, doc links included): there are none, and a
/// new one fails here. Shared data types go to a leaf module instead.
fn module_graph(
    src: &Path,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let mut graph: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().and_then(|x| x.to_str()) != Some("rs") {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap();
            let top = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned();
            if top == "lib" || top == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let deps = graph.entry(top.clone()).or_default();
            let mut rest = text.as_str();
            while let Some(i) = rest.find("crate::") {
                rest = &rest[i + 7..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                // `codes::id` is an inline leaf module: naming it is not naming `codes`.
                let target = if name == "codes" && rest[name.len()..].starts_with("::id") {
                    "codes::id".to_owned()
                } else {
                    name
                };
                if !target.is_empty() && target != top {
                    deps.insert(target);
                }
            }
        }
    }
    graph
}

/// Strongly connected components of more than one module (Tarjan).
fn circles(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Vec<Vec<String>> {
    struct S<'a> {
        g: &'a std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        index: std::collections::HashMap<&'a str, usize>,
        low: std::collections::HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: std::collections::HashSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut S<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.g.get(v).into_iter().flatten() {
            let Some((w, _)) = s.g.get_key_value(w.as_str()) else {
                continue;
            };
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = S {
        g: graph,
        index: Default::default(),
        low: Default::default(),
        stack: Vec::new(),
        on: Default::default(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_module_circle_in_any_crate() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut unexpected = Vec::new();
    for e in std::fs::read_dir(&server).unwrap().flatten() {
        let src = e.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let krate = e.file_name().to_string_lossy().into_owned();
        for c in circles(&module_graph(&src)) {
            unexpected.push(format!("{krate}: {}", c.join(" → ")));
        }
    }
    assert!(
        unexpected.is_empty(),
        "module import circles (break them with a leaf module): {unexpected:?}"
    );
}
