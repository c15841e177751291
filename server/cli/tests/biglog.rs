//! `abidoc check` on a log of hundreds of megabytes: peak resident memory stays under a bound
//! that does not grow with the log (issue #10), and the diagnoses are those of a small log with
//! the same failures (streaming the scan loses and invents nothing).

// Test code: a failed fixture step should stop the test with its message.
#![allow(clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Size of the big log. Without streaming and page release, resident memory ends above it.
const BIG: usize = 384 << 20;
/// Peak resident memory allowed for the big log: binary, torch index, a few pieces' events and
/// the recently read pages of the mapping. Half the log, so holding it would fail.
const MAX_RSS_KB: u64 = 192 << 10;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Real failures: the first corpus reports (each a traceback or build log with a diagnosis).
fn failures() -> String {
    let dir = repo().join("tests/fixtures/corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    let mut out = String::new();
    for p in paths.iter().take(12) {
        out.push_str(&std::fs::read_to_string(p).expect("fixture"));
        out.push('\n');
    }
    out
}

/// About 1 MB of the lines a training or install log is mostly made of. `block` varies the
/// numbers from block to block (a log of distinct versions once made grouping quadratic).
fn noise(block: usize) -> String {
    let mut s = String::with_capacity(1 << 20);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ block as u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    while s.len() < (1 << 20) {
        let r = next();
        let _ = match r % 6 {
            0 => writeln!(
                s,
                "Epoch {}/100: 100%|##########| {n}/{n} [00:36<00:00, 1.48it/s, loss=1.{}]",
                r % 100,
                r % 9973,
                n = r % 70000
            ),
            1 => writeln!(
                s,
                "Requirement already satisfied: numpy>=1.{} in /usr/local/lib/python3.11/site-packages (from pkg) (1.26.{block}{})",
                r % 90,
                r % 1000
            ),
            2 => writeln!(
                s,
                "[rank{}]:[W2026-05-28 02:09:24,580] ProcessGroupNCCL.cpp:{}] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now",
                r % 128,
                r % 3000
            ),
            3 => writeln!(
                s,
                "2026-05-22 07:47:33,932 | val/accuracy=0.{} val/loss=4.{} samples/s=89.7",
                r % 9999,
                r % 977
            ),
            4 => writeln!(
                s,
                "  Downloading https://files.pythonhosted.org/packages/{r:016x}/pkg-{}.{}-py3-none-any.whl (86.5 MB)",
                r % 90,
                r % 99991
            ),
            _ => writeln!(
                s,
                "/usr/local/lib/python3.11/site-packages/transformers/modeling_utils.py:{}: UserWarning: `torch_dtype` is deprecated! Use `dtype` instead!",
                r % 4000
            ),
        };
    }
    s
}

/// Writes the big log: noise with the failures at the start, the middle and the end. Returns
/// its number of lines.
fn write_big(path: &Path, fails: &str) -> usize {
    let lines = |s: &str| s.bytes().filter(|&b| b == b'\n').count();
    let mut f = std::io::BufWriter::with_capacity(
        4 << 20,
        std::fs::File::create(path).expect("create big log"),
    );
    // A few distinct blocks, repeated: writing stays fast; a counter line keeps versions distinct.
    let blocks: Vec<String> = (0..8).map(noise).collect();
    let block_lines: Vec<usize> = blocks.iter().map(|b| lines(b)).collect();
    let mut written = 0;
    let mut i = 0;
    let mut middle_done = false;
    f.write_all(fails.as_bytes()).expect("write");
    let mut n = lines(fails);
    while written < BIG {
        let b = &blocks[i % blocks.len()];
        f.write_all(b.as_bytes()).expect("write");
        writeln!(
            f,
            "Requirement already satisfied: torch in ./site-packages (2.{i}.0)"
        )
        .expect("write");
        n += block_lines[i % blocks.len()] + 1;
        written += b.len();
        i += 1;
        if !middle_done && written >= BIG / 2 {
            f.write_all(fails.as_bytes()).expect("write");
            n += lines(fails);
            middle_done = true;
        }
    }
    f.write_all(fails.as_bytes()).expect("write");
    f.flush().expect("flush");
    n + lines(fails)
}

/// Runs `abidoc check FILE` and returns its JSON report and peak resident memory (VmHWM, KB).
fn check(path: &Path) -> (serde_json::Value, u64) {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_abidoc"))
        .args(["check", "--no-env", "--format", "json", "--max-bytes"])
        .arg((2 * BIG).to_string())
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn abidoc");
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        // VmHWM only grows; the last value read before exit is the peak up to then.
        if let Some(kb) = std::fs::read_to_string(&status_path)
            .ok()
            .and_then(|s| vm_hwm_kb(&s))
        {
            peak = peak.max(kb);
        }
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "abidoc check did not finish"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = reader.join().expect("stdout reader");
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "abidoc check failed: {status:?}"
    );
    (serde_json::from_str(&out).expect("JSON report"), peak)
}

fn vm_hwm_kb(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// What a diagnosis says, without where: the big log has the failures in three places.
fn findings(report: &serde_json::Value) -> Vec<serde_json::Value> {
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let mut d = d.clone();
            if let Some(o) = d.as_object_mut() {
                o.remove("source");
                o.remove("related");
            }
            d
        })
        .collect()
}

#[test]
fn huge_log_bounded_memory_same_diagnoses() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("no /proc: peak memory cannot be read here");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let fails = failures();
    let small = dir.path().join("small.log");
    std::fs::write(&small, format!("{fails}{}", noise(0))).expect("write small log");
    let big = dir.path().join("big.log");
    let big_lines = write_big(&big, &fails) as u64;

    let (small_report, _) = check(&small);
    let (big_report, peak_kb) = check(&big);
    let want = findings(&small_report);
    assert!(
        want.len() >= 5,
        "the failures should give several diagnoses, got {}",
        want.len()
    );
    assert_eq!(
        findings(&big_report),
        want,
        "a huge log with the same failures must give the same diagnoses"
    );
    // Every copy of each failure is still pointed at, up to the copy at the end.
    let last_line = big_report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["related"].as_array())
        .flatten()
        .filter_map(|r| r["range"]["start"]["line"].as_u64())
        .max()
        .unwrap_or(0);
    let fail_lines = fails.bytes().filter(|&b| b == b'\n').count() as u64;
    assert!(
        last_line >= big_lines - fail_lines,
        "related places should reach the copy at the end (last line {last_line} of {big_lines})"
    );
    let big_len = std::fs::metadata(&big).expect("big log").len();
    eprintln!(
        "{} diagnoses; peak resident memory {peak_kb} KB on {} MB",
        want.len(),
        big_len >> 20
    );
    assert!(
        peak_kb < MAX_RSS_KB,
        "peak resident memory {peak_kb} KB on a {} MB log (bound {MAX_RSS_KB} KB)",
        big_len >> 20
    );
}
