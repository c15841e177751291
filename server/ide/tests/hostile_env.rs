//! Hostile values from disk: an installed package's METADATA `Version:` (and torch's) is input
//! too. Whatever a crafted or unlucky environment holds, no fix carries it into a command, a
//! variable or a notebook line, and no fix contradicts its diagnosis.

// A failed unwrap in a test is a failing test, which is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::host;
use std::path::{Path, PathBuf};

use abidoc_ide::Context;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let t = to.join(e.file_name());
        let ft = e.file_type().unwrap();
        if ft.is_dir() {
            copy_dir(&e.path(), &t);
        } else if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), &t).unwrap();
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

/// Values a METADATA `Version:` line may hold that must never reach a fix: shell and IPython
/// syntax, a path that climbs (a URL redirect without any shell character), a non-ASCII local
/// label, an option, a requirement operator.
const HOSTILE: &[&str] = &[
    "2.3.0$(touch /tmp/abidoc-pwned)",
    "2.3.0/../../../evil",
    "2.3.0+é",
    "2.3.0 --index-url=https://evil.invalid/simple",
    "{__import__('os').system('id')}",
    "2.3.0;id",
    "2.3.0`id`",
    "$HOME",
    "2.3.0\u{15}rm -rf ~",
];

#[test]
fn hostile_versions_on_disk_never_reach_a_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let native = tmp.path().join("native");
    let status = std::process::Command::new("bash")
        .arg(repo().join("tests/native/build.sh"))
        .arg(&native)
        .status()
        .expect("bash");
    assert!(status.success(), "tests/native/build.sh failed");
    let mut bad = Vec::new();
    for (i, hostile) in HOSTILE.iter().enumerate() {
        // One copy per value: the environment cache keys on the directory.
        let site = tmp.path().join(format!("site{i}"));
        copy_dir(&native.join("site-packages"), &site);
        for e in std::fs::read_dir(&site).unwrap().flatten() {
            let meta = e.path().join("METADATA");
            if let Ok(text) = std::fs::read_to_string(&meta) {
                let text: String = text
                    .lines()
                    .map(|l| {
                        if l.starts_with("Version:") {
                            format!("Version: {hostile}\n")
                        } else {
                            format!("{l}\n")
                        }
                    })
                    .collect();
                std::fs::write(&meta, text).unwrap();
            }
        }
        let ctx = Context {
            use_env: true,
            site_packages: vec![site.clone()],
            ..Context::default()
        };
        let s = site.display();
        let text = format!(
            "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    import selective_scan_cuda\n\
             ImportError: {s}/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib\n\
             ImportError: {s}/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE\n\
             ImportError: libcudart.so.13: cannot open shared object file: No such file or directory\n"
        );
        let diags = host().diagnose_text(&text, &ctx);
        assert!(!diags.is_empty(), "{hostile:?}: nothing diagnosed");
        for d in &diags {
            bad.extend(
                abidoc_ide::contradictions(d)
                    .into_iter()
                    .map(|c| format!("{hostile:?}: {c}")),
            );
            for f in &d.fixes {
                let mut strings: Vec<String> = f.commands().into_iter().flatten().collect();
                strings.extend(f.env().into_iter().flat_map(|(k, v)| [k, v]));
                strings.extend(f.notebook_cell());
                strings.extend(f.shell_line());
                for s in strings {
                    for mark in [
                        "$(",
                        "..",
                        "é",
                        "evil",
                        "__import__",
                        ";",
                        "`",
                        "$HOME",
                        "\u{15}",
                    ] {
                        if s.contains(mark) {
                            bad.push(format!(
                                "{hostile:?}: [{}] {} holds {mark:?}: {s}",
                                d.code.as_str(),
                                f.id
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
