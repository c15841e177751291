//! The built binary on hostile inputs: garbage, huge and odd files, devices, FIFOs, loops, deep
//! JSON, and an environment scan over broken libraries. Each child runs under a deadline; the
//! contract's exit codes (0/1 ran, 2 could not run with a one-line reason) and never a panic (101).

// Test code: a failed fixture step should stop the test with its message.
#![allow(clippy::expect_used, clippy::panic)]

mod common;
use common::repo;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// Runs `program args` with `stdin`, killing it after `limit` (a hang fails the test).
fn run_program(program: &str, args: &[&str], stdin: Option<&[u8]>, limit: Duration) -> Out {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .current_dir(repo())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let (Some(data), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let data = data.to_vec();
        // A separate writer: a child that stops reading must not block the deadline.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        });
    }
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let so = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let se = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{program} {args:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Out {
        code: status.code().unwrap_or(-1),
        stdout: so.join().unwrap_or_default(),
        stderr: se.join().unwrap_or_default(),
        took: start.elapsed(),
    }
}

fn abidoc(args: &[&str], stdin: Option<&[u8]>, limit: Duration) -> Out {
    run_program(env!("CARGO_BIN_EXE_abidoc"), args, stdin, limit)
}

const QUICK: Duration = Duration::from_secs(20);

fn assert_ran(o: &Out, what: &str) {
    assert!(
        o.code == 0 || o.code == 1,
        "{what}: exit {} (want 0/1)\nstderr: {}",
        o.code,
        o.stderr
    );
    assert!(!o.stderr.contains("panicked"), "{what}: {}", o.stderr);
}

fn assert_refused(o: &Out, what: &str) {
    assert_eq!(
        o.code, 2,
        "{what}: want exit 2\nstdout: {}\nstderr: {}",
        o.stdout, o.stderr
    );
    let lines: Vec<_> = o.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "{what}: want a one-line reason, got {:?}",
        o.stderr
    );
    assert!(!o.stderr.contains("panicked"), "{what}: {}", o.stderr);
    assert!(
        o.took < Duration::from_secs(5),
        "{what}: refused only after {:?}",
        o.took
    );
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 temp path")
}

#[test]
fn binary_garbage_is_read_as_text() {
    let dir = tmp();
    let f = dir.path().join("garbage.log");
    // Deterministic pseudo-random bytes (xorshift), with a real error line in the middle.
    let mut x: u32 = 2_463_534_242;
    let mut bytes = Vec::with_capacity(1 << 20);
    for _ in 0..(1 << 18) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    let line = b"\nImportError: /x/site-packages/mamba_ssm/_C.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n";
    bytes.splice(500_000..500_000, line.iter().copied());
    std::fs::write(&f, &bytes).expect("write");
    let o = abidoc(
        &["check", "--no-env", "--format", "json", p(&f)],
        None,
        QUICK,
    );
    assert_ran(&o, "garbage");
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("one JSON document");
    assert!(
        v["diagnostics"].as_array().is_some_and(|d| d
            .iter()
            .any(|d| d["code"] == "abi-mismatch" || d["code"] == "extension-incomplete-build")),
        "the error line inside the garbage is still found: {}",
        o.stdout
    );
    // The same bytes on standard input.
    let o = abidoc(&["check", "--no-env", "-"], Some(&bytes), QUICK);
    assert_ran(&o, "garbage on stdin");
}

#[test]
fn invalid_utf8_is_noted_and_read() {
    let dir = tmp();
    let f = dir.path().join("latin1.log");
    let mut bytes = b"caf\xe9 \xff\xfe\n".to_vec();
    bytes.extend_from_slice(b"OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n\xc3");
    std::fs::write(&f, &bytes).expect("write");
    let o = abidoc(&["check", "--no-env", p(&f)], None, QUICK);
    assert_ran(&o, "invalid utf-8");
    assert_eq!(
        o.code, 1,
        "the missing library is still an error: {}",
        o.stdout
    );
    assert!(
        (o.stdout + &o.stderr).to_lowercase().contains("utf-8"),
        "a note says the input was not UTF-8"
    );
}

#[test]
fn one_megabyte_single_line() {
    let dir = tmp();
    let f = dir.path().join("line.log");
    let mut s = "x".repeat(1 << 20);
    s.push_str(
        " ImportError: libc10.so: cannot open shared object file: No such file or directory",
    );
    std::fs::write(&f, &s).expect("write");
    let o = abidoc(&["check", "--no-env", p(&f)], None, QUICK);
    assert_ran(&o, "1 MB line");
    // A line of `undefined symbol:` repeated: the worst case for the symbol wrap-joiner.
    let s = "undefined symbol: _ZN".repeat(50_000);
    std::fs::write(&f, &s).expect("write");
    let o = abidoc(&["check", "--no-env", p(&f)], None, QUICK);
    assert_ran(&o, "1 MB of undefined symbol:");
}

/// Peak resident memory of a run, from `/usr/bin/time -v`, in KiB.
fn peak_rss_kib(stderr: &str) -> Option<u64> {
    stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
}

#[test]
fn two_hundred_megabyte_log_is_bounded_in_time_and_memory() {
    let dir = tmp();
    let f = dir.path().join("big.log");
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&f).expect("create"));
        let filler = "2024-05-01 12:00:00 INFO step 1234 loss=0.1234 lr=1e-4 tokens/s=56789 [progress ##########--------]\n";
        let error = "ImportError: /x/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n";
        let mut n = 0usize;
        let mut i = 0usize;
        while n < 200 << 20 {
            let l = if i.is_multiple_of(50_000) {
                error
            } else {
                filler
            };
            w.write_all(l.as_bytes()).expect("write");
            n += l.len();
            i += 1;
        }
        w.flush().expect("flush");
    }
    let size = std::fs::metadata(&f).expect("size").len();
    let limit = Duration::from_secs(120);
    let timed = Path::new("/usr/bin/time").exists();
    let o = if timed {
        run_program(
            "/usr/bin/time",
            &[
                "-v",
                env!("CARGO_BIN_EXE_abidoc"),
                "check",
                "--no-env",
                p(&f),
            ],
            None,
            limit,
        )
    } else {
        abidoc(&["check", "--no-env", p(&f)], None, limit)
    };
    assert_eq!(o.code, 1, "the error lines are found: {}", o.stderr);
    assert!(o.stdout.contains("flash"), "{}", o.stdout);
    eprintln!("200 MB log: {:?}", o.took);
    match peak_rss_kib(&o.stderr) {
        Some(kib) => {
            let mib = kib / 1024;
            eprintln!(
                "200 MB log: peak RSS {mib} MiB for a {} MiB input",
                size >> 20
            );
            // Large inputs are mapped (file-backed pages count in RSS): allow the mapping, the
            // text and the scan's own structures, not a multiple of that.
            let bound = 2 * (size >> 20) + 128;
            assert!(mib < bound, "peak RSS {mib} MiB exceeds {bound} MiB");
        }
        None => eprintln!("note: /usr/bin/time -v not available; peak memory not measured"),
    }
    // With a byte limit the rest is cut, with a note, and memory follows the limit.
    let o = if timed {
        run_program(
            "/usr/bin/time",
            &[
                "-v",
                env!("CARGO_BIN_EXE_abidoc"),
                "check",
                "--no-env",
                "--max-bytes",
                "1000000",
                p(&f),
            ],
            None,
            limit,
        )
    } else {
        abidoc(
            &["check", "--no-env", "--max-bytes", "1000000", p(&f)],
            None,
            limit,
        )
    };
    assert_ran(&o, "--max-bytes");
    assert!(
        (o.stdout.clone() + &o.stderr).contains("1000000 bytes"),
        "truncation note: {}\n{}",
        o.stdout,
        o.stderr
    );
    if let Some(kib) = peak_rss_kib(&o.stderr) {
        eprintln!("--max-bytes 1000000: peak RSS {} MiB", kib / 1024);
        assert!(
            kib / 1024 < 128,
            "peak RSS {} MiB with a 1 MB limit",
            kib / 1024
        );
    }
}

#[test]
fn max_bytes_truncation_note() {
    let dir = tmp();
    let f = dir.path().join("t.log");
    std::fs::write(&f, "a".repeat(5000)).expect("write");
    for fmt in ["human", "json"] {
        let o = abidoc(
            &[
                "check",
                "--no-env",
                "--format",
                fmt,
                "--max-bytes",
                "100",
                p(&f),
            ],
            None,
            QUICK,
        );
        assert_ran(&o, "max-bytes");
        let all = o.stdout + &o.stderr;
        assert!(
            all.contains("100 bytes") && all.contains("--max-bytes"),
            "{fmt}: {all}"
        );
    }
    // Not truncated: no note.
    let o = abidoc(
        &["check", "--no-env", "--max-bytes", "5000", p(&f)],
        None,
        QUICK,
    );
    assert!(!(o.stdout + &o.stderr).contains("--max-bytes"));
}

#[test]
fn malformed_notebooks() {
    let dir = tmp();
    let good = std::fs::read_to_string(repo().join("examples/granite-lora-training.ipynb"))
        .expect("example");
    let mut cases: Vec<(&str, String)> = vec![
        ("empty", String::new()),
        ("not-json", "this is not json {{{".into()),
        ("array", "[1,2,3]".into()),
        ("cells-not-array", r#"{"cells": 5, "nbformat": 4}"#.into()),
        ("source-number", r#"{"cells": [{"cell_type": "code", "source": 3, "outputs": [{"output_type": "error", "traceback": [1, null]}]}]}"#.into()),
        ("bad-escape", r#"{"cells": [{"cell_type": "code", "source": "\ud800\uZZZZ", "outputs": []}]}"#.into()),
        ("deep", format!("{}{}", "[".repeat(10_000), "]".repeat(10_000))),
        ("deep-in-cell", format!(r#"{{"cells": [{{"cell_type": "code", "metadata": {}{}, "source": "x"}}]}}"#, "{\"a\":".repeat(10_000), "}".repeat(10_000))),
        ("deep-unclosed", "{\"a\":[".repeat(10_000)),
    ];
    for cut in [1, good.len() / 3, good.len() / 2, good.len() - 2] {
        let mut c = cut;
        while !good.is_char_boundary(c) {
            c -= 1;
        }
        cases.push(("truncated", good[..c].to_owned()));
    }
    for (name, body) in cases {
        let f = dir.path().join(format!("{name}.ipynb"));
        std::fs::write(&f, &body).expect("write");
        for fmt in ["human", "json", "sarif"] {
            let o = abidoc(&["check", "--no-env", "--format", fmt, p(&f)], None, QUICK);
            assert_ran(&o, name);
            if fmt != "human" {
                assert!(
                    serde_json::from_str::<serde_json::Value>(&o.stdout).is_ok(),
                    "{name} {fmt}: {}",
                    o.stdout
                );
            }
        }
        // The same through standard input.
        let o = abidoc(&["check", "--no-env", "-"], Some(body.as_bytes()), QUICK);
        assert_ran(&o, name);
    }
}

#[test]
fn devices_fifos_directories_and_loops_are_refused() {
    let dir = tmp();
    let o = abidoc(&["check", "--no-env", "/dev/zero"], None, QUICK);
    assert_refused(&o, "/dev/zero");
    let o = abidoc(&["check", "--no-env", "/dev/urandom"], None, QUICK);
    assert_refused(&o, "/dev/urandom");
    let o = abidoc(&["check", "--no-env", p(dir.path())], None, QUICK);
    assert_refused(&o, "a directory");
    let a = dir.path().join("loop_a.log");
    let b = dir.path().join("loop_b.log");
    std::os::unix::fs::symlink(&b, &a).expect("symlink");
    std::os::unix::fs::symlink(&a, &b).expect("symlink");
    let o = abidoc(&["check", "--no-env", p(&a)], None, QUICK);
    assert_refused(&o, "a symlink loop");
    let o = abidoc(
        &["check", "--no-env", p(&dir.path().join("missing.log"))],
        None,
        QUICK,
    );
    assert_refused(&o, "a missing file");
    let fifo = dir.path().join("fifo.log");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if made {
        // Nobody ever writes to it: opening it for reading would block forever.
        let o = abidoc(&["check", "--no-env", p(&fifo)], None, QUICK);
        assert_refused(&o, "a FIFO");
    } else {
        eprintln!("note: mkfifo unavailable; FIFO case skipped");
    }
    // A refused input among good ones still exits 2 and names it.
    let good = dir.path().join("ok.log");
    std::fs::write(&good, "hello\n").expect("write");
    let o = abidoc(&["check", "--no-env", p(&good), "/dev/zero"], None, QUICK);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("/dev/zero"), "{}", o.stderr);
}

fn native() -> &'static Path {
    common::native_fixtures("cli-hostile-native")
}

#[test]
fn scan_over_hostile_libraries_reports_per_file() {
    let root = native();
    let hostile = root.join("hostile");
    for fmt in ["human", "json"] {
        let o = abidoc(
            &["scan", "--format", fmt, "--site-packages", p(&hostile)],
            None,
            Duration::from_secs(60),
        );
        assert_ran(&o, "scan hostile");
        if fmt == "json" {
            let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("one JSON document");
            assert!(v["diagnostics"].is_array(), "{}", o.stdout);
            // A library of another architecture (AArch64 here) is diagnosed as such, with the
            // architectures it names, not as an unreadable file.
            let foreign = v["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|d| {
                    d["code"] == "cpu-arch-mismatch"
                        && d["message"]
                            .as_str()
                            .is_some_and(|m| m.contains("wrong_arch.so"))
                })
                .unwrap_or_else(|| panic!("no cpu-arch-mismatch: {}", o.stdout));
            let message = foreign["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("AArch64") && message.contains("x86-64"),
                "{message}"
            );
        }
    }
    // The hostile files inside a site-packages next to real extensions: the real findings survive.
    let dir = tmp();
    let sp = dir.path().join("site-packages");
    Command::new("cp")
        .arg("-a")
        .arg(root.join("site-packages"))
        .arg(&sp)
        .status()
        .expect("cp");
    Command::new("cp")
        .arg("-a")
        .arg(&hostile)
        .arg(sp.join("torch/lib/hostile"))
        .status()
        .expect("cp");
    let fifo = sp.join("torch/lib/libfifo.so");
    let _ = Command::new("mkfifo").arg(&fifo).status();
    let _ = std::os::unix::fs::symlink("/dev/zero", sp.join("torch/lib/libzero.so"));
    let _ = std::os::unix::fs::symlink(&sp, sp.join("torch/lib/self_loop"));
    let o = abidoc(
        &["scan", "--format", "json", "--site-packages", p(&sp)],
        None,
        Duration::from_secs(60),
    );
    assert_ran(&o, "scan mixed");
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("one JSON document");
    assert!(
        v["diagnostics"].as_array().is_some_and(|d| !d.is_empty()),
        "the real fixtures' failures are still reported: {}",
        o.stdout
    );
}

#[test]
fn explain_hostile_symbols() {
    let long = format!("_Z{}", "N1a".repeat(20_000));
    let bomb = format!("_Z1f{}", "S_".repeat(5000));
    let args = [
        "explain",
        "--no-env",
        "_ZZZZZZ",
        "$(rm -rf ~)",
        "",
        &long,
        &bomb,
        "_ZN3c104cuda9SetDeviceEi",
    ];
    let o = abidoc(&args, None, QUICK);
    assert_ran(&o, "explain");
}

/// glibc reports a library of another architecture as `cannot open shared object file: No such
/// file or directory` though the file is there; with the environment at hand, abidoc reads the
/// file and says what it is. The text is the real loader's, where a Python is at hand to load it.
#[test]
fn a_library_of_another_architecture_reported_as_missing_is_named_as_such() {
    let hostile = native().join("hostile");
    let lib = hostile.join("wrong_arch.so");
    let recorded = format!(
        "OSError: {}: cannot open shared object file: No such file or directory\n",
        lib.display()
    );
    // The real loader as referee: what `ctypes.CDLL` raises for this file.
    let real = Command::new("python3")
        .arg("-c")
        .arg("import ctypes,sys\ntry:\n    ctypes.CDLL(sys.argv[1])\nexcept OSError as e:\n    print('OSError:', e)")
        .arg(&lib)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .filter(|s| s.contains("wrong_arch.so"));
    if let Some(real) = &real {
        assert_eq!(real.trim(), recorded.trim(), "glibc's wording changed");
    }
    let dir = tmp();
    let text = dir.path().join("loader.txt");
    std::fs::write(&text, real.unwrap_or(recorded)).expect("write");
    let o = abidoc(
        &[
            "check",
            "--format",
            "json",
            "--site-packages",
            p(&hostile),
            p(&text),
        ],
        None,
        Duration::from_secs(60),
    );
    assert_ran(&o, "check a foreign library");
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("one JSON document");
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ["cpu-arch-mismatch"], "{}", o.stdout);
}

/// A scan under an interpreter whose glibc is 2.41 reports a library that asks for an executable
/// stack as `executable-stack`, with the fix naming the file, and not under glibc 2.40.
#[test]
fn a_scan_names_an_executable_stack_glibc_refuses() {
    let root = native();
    let dir = tmp();
    let sp = dir.path().join("site-packages");
    std::fs::create_dir_all(sp.join("stackpkg")).expect("mkdir");
    std::fs::copy(
        root.join("build/execstack/libexecstack.so"),
        sp.join("stackpkg/libexecstack.so"),
    )
    .expect("copy");
    let scan = |glibc: &str| {
        let py = root.join(format!("build/fakepy-{glibc}/bin/python3"));
        let o = abidoc(
            &[
                "scan",
                "--format",
                "json",
                "--python",
                p(&py),
                "--site-packages",
                p(&sp),
            ],
            None,
            Duration::from_secs(60),
        );
        assert_ran(&o, "scan an executable stack");
        let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("one JSON document");
        v["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["code"] == "executable-stack")
            .count()
    };
    assert_eq!(scan("2.41"), 1);
    assert_eq!(scan("2.40"), 0);
}
