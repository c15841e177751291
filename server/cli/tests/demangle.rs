//! `abidoc demangle`, the c++filt-compatible filter, on real symbols (torch, libstdc++): output
//! against binutils' c++filt column of the shared pairs file, tokens inside log text, `--abi`,
//! file arguments and large inputs split between threads.

// A failed unwrap in a test is a failing test, which is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn demangle(args: &[&str], stdin: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .arg("demangle")
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run abidoc");
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_owned();
    // Written from another thread: the output pipe fills while the input is still being written.
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// (mangled, c++filt output) from the pairs file binutils' c++filt produced.
fn pairs() -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(repo().join("server/elf/tests/data/cxxfilt_pairs.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (m, d) = l.split_once('\t')?;
            Some((m.to_owned(), d.to_owned()))
        })
        .collect()
}

#[test]
fn matches_cxxfilt_on_real_symbols() {
    let pairs = pairs();
    let input: String = pairs.iter().map(|(m, _)| format!("{m}\n")).collect();
    let out = demangle(&[], &input);
    let got: Vec<&str> = out.lines().collect();
    assert_eq!(got.len(), pairs.len());
    let mismatches: Vec<String> = pairs
        .iter()
        .zip(&got)
        .filter(|((_, expected), got)| expected != *got)
        .map(|((m, expected), got)| format!("{m}\n  c++filt: {expected}\n  abidoc:  {got}"))
        .collect();
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn tokens_in_log_text() {
    let log = "\
ImportError: /venv/lib/python3.11/site-packages/selective_scan_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib
OSError: libtorch_cpu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationESs, version GLIBCXX_3.4.30
  nm: U _ZNK3c106Device3strB5cxx11Ev@@Base and __ZN3c104cuda9SetDeviceEab (macOS)
not mangled: x_ZN3c105ErrorD1Ev _Z _Zfoo ZN3c105ErrorD1Ev
truncated: _ZN3c104cuda29c10_cuda_check_implementationEiPKc
";
    insta::assert_snapshot!("log_text", demangle(&[], log));
    insta::assert_snapshot!("log_text_abi", demangle(&["--abi"], log));
}

#[test]
fn files_and_stdin_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    std::fs::write(&a, "_ZN3c105ErrorD1Ev\n").unwrap();
    let a = a.to_str().unwrap();
    let out = demangle(&[a, "-", a], "_ZN3c104cuda9warp_sizeEv\n");
    assert_eq!(
        out,
        "c10::Error::~Error()\nc10::cuda::warp_size()\nc10::Error::~Error()\n"
    );
}

/// Large enough to be split between threads: the output keeps the input's order, line for line.
#[test]
fn large_input_keeps_order() {
    let pairs = pairs();
    let mut input = String::new();
    let mut expected = String::new();
    let mut i = 0;
    while input.len() < 3 << 20 {
        let (m, d) = &pairs[i % pairs.len()];
        input.push_str(&format!("{i} {m}\n"));
        expected.push_str(&format!("{i} {d}\n"));
        i += 1;
    }
    let out = demangle(&[], &input);
    assert!(out == expected, "outputs differ ({} lines)", i);
}
