//! Reads the real libraries `tests/native/build.sh` builds and snapshots what abidoc-elf makes of
//! them: parsed dynamic surface, every missing-symbol classification, version checks, hostile files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // helpers outside #[test] fns: a panic is a failing test

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use abidoc_elf::{ElfInfo, ExportIndex, Problem, Status, check_version, classify, read};

/// Builds the fixtures once per test process.
fn fixtures() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("abidoc-elf-native");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/native/build.sh");
        let output = Command::new("bash")
            .arg(&script)
            .arg(&out)
            .output()
            .expect("run tests/native/build.sh");
        assert!(
            output.status.success(),
            "tests/native/build.sh failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        out
    })
}

fn rel(p: &Path) -> String {
    p.strip_prefix(fixtures())
        .unwrap_or(p)
        .display()
        .to_string()
}

fn shared_objects(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let name = p.file_name().unwrap().to_string_lossy().to_string();
                if name.ends_with(".so") || name.contains(".so.") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

fn render_info(info: &ElfInfo<'_>, problems: &[Problem]) -> String {
    let mut s = String::new();
    writeln!(
        s,
        "{:?} {:?} {:?} {}",
        info.kind,
        info.class,
        info.endian,
        info.machine_name()
    )
    .unwrap();
    writeln!(s, "soname: {:?}", info.soname).unwrap();
    writeln!(s, "needed: {:?}", info.needed).unwrap();
    writeln!(s, "rpath: {:?}", info.rpath).unwrap();
    writeln!(s, "runpath: {:?}", info.runpath).unwrap();
    let defs: Vec<String> = info
        .version_defs
        .iter()
        .map(|d| {
            if d.base {
                format!("{} (base)", d.name)
            } else {
                d.name.to_string()
            }
        })
        .collect();
    writeln!(s, "version defs: {defs:?}").unwrap();
    for n in &info.version_needs {
        writeln!(s, "version needs: {} {:?}", n.file, n.versions).unwrap();
    }
    writeln!(s, "required:").unwrap();
    for sym in info.required() {
        let v = sym
            .version
            .map(|v| format!(" @{} from {}", v.name, v.file.unwrap_or("?")))
            .unwrap_or_default();
        writeln!(s, "  {} [{:?} {:?}]{v}", sym.name, sym.kind, sym.binding).unwrap();
    }
    writeln!(s, "weak undefined:").unwrap();
    for sym in info.weak_undefined() {
        writeln!(s, "  {}", sym.name).unwrap();
    }
    writeln!(s, "exports:").unwrap();
    for sym in info.exports() {
        let v = sym
            .version
            .map(|v| format!(" @@{}", v.name))
            .unwrap_or_default();
        writeln!(s, "  {} [{:?} {:?}]{v}", sym.name, sym.kind, sym.binding).unwrap();
    }
    for p in problems {
        writeln!(s, "problem: {:?}: {}", p.kind, p.message).unwrap();
    }
    s
}

#[test]
fn parsed_libraries() {
    let root = fixtures();
    let mut all = String::new();
    for dir in [
        "site-packages",
        "abi0/site-packages",
        "build/cudart",
        "build/stdcxx_new",
    ] {
        for path in shared_objects(&root.join(dir)) {
            let bytes = std::fs::read(&path).unwrap();
            let (info, problems) = read(&bytes);
            let info = info.unwrap_or_else(|| panic!("{}: {problems:?}", path.display()));
            writeln!(all, "=== {}\n{}", rel(&path), render_info(&info, &problems)).unwrap();
        }
    }
    insta::assert_snapshot!("parsed_libraries", all);
}

/// The symbols `nm -D` lists (defined, undefined) must be exactly the ones `read` returns.
#[test]
fn symbols_agree_with_nm() {
    let mut paths = shared_objects(&fixtures().join("site-packages"));
    // A large real library too, when the machine has it.
    for candidate in [
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
        "/usr/lib64/libstdc++.so.6",
        "/lib/x86_64-linux-gnu/libc.so.6",
    ] {
        if Path::new(candidate).exists() {
            paths.push(PathBuf::from(candidate));
        }
    }
    let Ok(probe) = Command::new("nm").arg("--version").output() else {
        return;
    };
    assert!(probe.status.success());
    for path in paths {
        for (flag, defined) in [("--defined-only", true), ("--undefined-only", false)] {
            let out = Command::new("nm")
                .args(["-D", flag])
                .arg(&path)
                .output()
                .unwrap();
            let nm: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| l.split_whitespace().last())
                .map(|n| n.split('@').next().unwrap_or(n).to_string())
                .collect();
            let bytes = std::fs::read(&path).unwrap();
            let (info, _) = read(&bytes);
            let ours: BTreeSet<String> = info
                .unwrap()
                .symbols
                .iter()
                .filter(|s| s.defined == defined)
                .map(|s| s.name.to_string())
                .collect();
            assert_eq!(ours, nm, "{} {flag}", path.display());
        }
    }
}

/// What a Python process that ran `import torch` provides before an extension loads: the torch
/// libraries and the interpreter's own symbols. (The real loader model lives in abidoc-env.)
fn torch_process_index(libs: &[(String, Vec<u8>)]) -> ExportIndex<'_> {
    let mut index = ExportIndex::new();
    for (name, bytes) in libs {
        let (info, problems) = read(bytes);
        let info = info.unwrap_or_else(|| panic!("{name}: {problems:?}"));
        index.add_library(name, &info);
    }
    index.add_names(
        "python3.12",
        ["PyModule_Create2", "PyErr_SetString", "PyExc_RuntimeError"],
    );
    index
}

fn load_torch(sp: &Path) -> Vec<(String, Vec<u8>)> {
    [
        "libc10.so",
        "libc10_cuda.so",
        "libtorch_cpu.so",
        "libtorch_python.so",
    ]
    .iter()
    .map(|n| {
        (
            n.to_string(),
            std::fs::read(sp.join("torch/lib").join(n)).unwrap(),
        )
    })
    .collect()
}

/// Every extension: each required symbol that is not a versioned system-library symbol, as
/// classified against the torch process; each required version against the library its
/// RUNPATH finds.
fn diagnose_env(sp: &Path, out: &mut String) {
    let torch = load_torch(sp);
    let index = torch_process_index(&torch);
    for path in shared_objects(sp) {
        if path.starts_with(sp.join("torch"))
            || path
                .parent()
                .is_some_and(|p| p.ends_with("youtokentome.libs"))
        {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let (info, problems) = read(&bytes);
        let info = info.unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        writeln!(out, "=== {}", rel(&path)).unwrap();
        writeln!(out, "needed: {:?}", info.needed).unwrap();
        let mut flagged = 0;
        for sym in info.required() {
            // Versioned requirements are on system libraries (libc, libstdc++): checked below.
            if sym.version.is_some() {
                continue;
            }
            let c = classify(sym.name, &index);
            if c.status == Status::Resolved {
                continue;
            }
            flagged += 1;
            writeln!(out, "  {}", c.symbol).unwrap();
            writeln!(
                out,
                "    demangled: {}",
                c.demangled.as_deref().unwrap_or("-")
            )
            .unwrap();
            writeln!(out, "    status:    {}", c.status.as_str()).unwrap();
            if let Some(n) = &c.nearest {
                writeln!(out, "    nearest:   {n}").unwrap();
                writeln!(
                    out,
                    "               {} ({})",
                    c.nearest_demangled.as_deref().unwrap_or("-"),
                    c.nearest_library.as_deref().unwrap_or("-")
                )
                .unwrap();
            }
            writeln!(out, "    why:       {}", c.difference).unwrap();
        }
        if flagged == 0 {
            writeln!(out, "  all torch/interpreter symbols resolve").unwrap();
        }
        for (file, version) in info.required_versions() {
            for dir in &info.runpath {
                let dir = dir.replace("$ORIGIN", &path.parent().unwrap().display().to_string());
                let candidate = Path::new(&dir).join(file);
                let Ok(provider_bytes) = std::fs::read(&candidate) else {
                    continue;
                };
                let (provider, _) = read(&provider_bytes);
                let check = check_version(version, &provider.unwrap());
                writeln!(
                    out,
                    "  version {version} from {file} (found {}): {} ({})",
                    rel(&candidate),
                    check.status.as_str(),
                    check.difference
                )
                .unwrap();
            }
        }
    }
}

#[test]
fn classifications_main_env() {
    let mut out = String::new();
    diagnose_env(&fixtures().join("site-packages"), &mut out);
    insta::assert_snapshot!("classifications_main_env", out);
}

#[test]
fn classifications_abi0_env() {
    let mut out = String::new();
    diagnose_env(&fixtures().join("abi0/site-packages"), &mut out);
    insta::assert_snapshot!("classifications_abi0_env", out);
}

/// The symbols users pasted in real reports, classified against the fake torch 2.10.
#[test]
fn corpus_symbols_against_torch_2_10() {
    let sp = fixtures().join("site-packages");
    let torch = load_torch(&sp);
    let index = torch_process_index(&torch);
    let data = include_str!("data/corpus_demangled.tsv");
    let mut out = String::new();
    for line in data.lines().filter(|l| !l.starts_with('#')) {
        let mangled = line.split('\t').next().unwrap();
        let c = classify(mangled, &index);
        writeln!(
            out,
            "{mangled}\n  {} | nearest: {} | {}",
            c.status.as_str(),
            c.nearest_demangled.as_deref().unwrap_or("-"),
            c.difference
        )
        .unwrap();
    }
    insta::assert_snapshot!("corpus_symbols_against_torch_2_10", out);
}

#[test]
fn version_checks() {
    let root = fixtures();
    let old = std::fs::read(root.join("site-packages/youtokentome.libs/libstdc++.so.6")).unwrap();
    let new = std::fs::read(root.join("build/stdcxx_new/libstdc++.so.6")).unwrap();
    let (old, _) = read(&old);
    let (new, _) = read(&new);
    let (old, new) = (old.unwrap(), new.unwrap());
    let mut out = String::new();
    for v in [
        "GLIBCXX_3.4",
        "GLIBCXX_3.4.29",
        "GLIBCXX_3.4.99",
        "CXXABI_1.3.8",
    ] {
        for (name, lib) in [("old", &old), ("new", &new)] {
            let c = check_version(v, lib);
            writeln!(
                out,
                "{v} vs {name}: {} newest={:?} ({})",
                c.status.as_str(),
                c.newest_defined,
                c.difference
            )
            .unwrap();
        }
    }
    insta::assert_snapshot!("version_checks", out);
}

#[test]
fn hostile_files() {
    let dir = fixtures().join("hostile");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    let mut out = String::new();
    for name in names {
        let path = dir.join(&name);
        let name = name.to_string_lossy();
        match std::fs::read(&path) {
            Err(e) => writeln!(out, "{name}: io error {:?}", e.kind()).unwrap(),
            Ok(bytes) => {
                let (info, problems) = read(&bytes);
                write!(out, "{name}:").unwrap();
                match &info {
                    Some(i) => write!(
                        out,
                        " parsed {:?} {} soname={:?} needed={} symbols={}",
                        i.class,
                        i.machine_name(),
                        i.soname,
                        i.needed.len(),
                        i.symbols.len()
                    )
                    .unwrap(),
                    None => write!(out, " not parsed").unwrap(),
                }
                writeln!(out).unwrap();
                for p in problems {
                    writeln!(out, "  {:?}: {}", p.kind, p.message).unwrap();
                }
            }
        }
    }
    insta::assert_snapshot!("hostile_files", out);
}

/// Every prefix and many corruptions of a real library: never a panic.
#[test]
fn mutilated_libraries_never_panic() {
    let bytes = std::fs::read(fixtures().join("site-packages/torch/lib/libc10_cuda.so")).unwrap();
    for len in (0..bytes.len()).step_by(97) {
        let _ = read(&bytes[..len]);
    }
    let mut x: u32 = 0x9e37_79b9;
    for _ in 0..2000 {
        let mut copy = bytes.clone();
        for _ in 0..8 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let at = (x as usize) % copy.len();
            copy[at] = (x >> 24) as u8;
        }
        let (info, _) = read(&copy);
        if let Some(info) = info {
            let mut index = ExportIndex::new();
            index.add_library("x", &info);
            for s in info.required() {
                let _ = classify(s.name, &index);
            }
        }
    }
}

/// `sym@VER` (hidden, non-default) definitions bind only references that require `VER`:
/// glibc's two `memcpy`s on x86-64.
#[test]
fn hidden_versions_bind_only_when_required() {
    let path = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
    let Ok(bytes) = std::fs::read(path) else {
        return;
    };
    let (info, _) = read(&bytes);
    let info = info.unwrap();
    let mut index = ExportIndex::new();
    index.add_library("libc.so.6", &info);
    let mut memcpy: Vec<_> = index
        .lookup("memcpy")
        .map(|e| (e.version.unwrap(), e.hidden))
        .collect();
    memcpy.sort();
    assert_eq!(memcpy, [("GLIBC_2.14", false), ("GLIBC_2.2.5", true)]);
    assert!(index.contains("memcpy"));
    assert!(
        index
            .resolve("memcpy", Some("GLIBC_2.2.5"))
            .is_some_and(|e| e.hidden)
    );
    assert!(index.resolve("memcpy", None).is_some_and(|e| !e.hidden));
    assert_eq!(
        classify("memcpy@GLIBC_2.2.5", &index).status,
        Status::Resolved
    );
    let c = classify("memcpy@GLIBC_9.9", &index);
    assert_eq!(c.status, Status::VersionMissing);
    assert!(
        c.difference
            .starts_with("needs version GLIBC_9.9; exported at "),
        "{}",
        c.difference
    );
}

/// Inputs the fuzzer (`fuzz/fuzz_targets/elf.rs`) crashed on, kept as data: each must read to a
/// result or problems, never a panic (tests build with overflow checks, as the fuzzer does).
#[test]
fn fuzz_crashes_read_without_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut out = String::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("fuzz-"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no fuzz-* inputs in {}", dir.display());
    for name in names {
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        let (info, problems) = read(&bytes);
        writeln!(
            out,
            "{}: {} symbols; {}",
            name.to_string_lossy(),
            info.map_or(0, |i| i.symbols.len()),
            problems
                .iter()
                .map(|p| p.message.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        )
        .unwrap();
    }
    insta::assert_snapshot!(out);
}

#[test]
fn executable_stack_is_read_from_pt_gnu_stack() {
    let dir = fixtures().join("build/execstack");
    for (file, want) in [
        ("libexecstack.so", Some(true)),
        ("libnoexecstack.so", Some(false)),
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let (info, problems) = read(&bytes);
        let info = info.unwrap_or_else(|| panic!("{file}: {problems:?}"));
        assert_eq!(info.exec_stack, want, "{file}");
    }
}
