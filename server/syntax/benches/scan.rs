//! Scan throughput on a large log, next to `grep -c 'undefined symbol'` on the same file.
//!
//! The log (≥100 MB under `cargo bench`; 4 MB when run as a test so CI only checks that it
//! works) is built from the real error texts in `tests/fixtures/{corpus,seeds}` interleaved with
//! the noise a training or build log is mostly made of: loss dictionaries, progress bars,
//! timestamped INFO lines, pip "Requirement already satisfied", compiler command lines, NCCL
//! warnings with launcher prefixes, HTTP access logs. It is written to a temporary file so grep
//! reads the very same bytes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn fixtures() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut out = Vec::new();
    for dir in ["corpus", "seeds"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if matches!(p.extension().and_then(|e| e.to_str()), Some("txt" | "log"))
                && let Ok(t) = std::fs::read_to_string(&p)
            {
                out.push(t);
            }
        }
    }
    out
}

/// Deterministic noise line number `i`.
fn noise(out: &mut String, i: u64, x: &mut u64) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    let r = *x;
    let step = i % 100_000;
    let loss = (r % 20_000) as f64 / 10_000.0;
    let _ = match r % 16 {
        0..=4 => writeln!(
            out,
            "{{'loss': {loss:.4}, 'grad_norm': {:.4}, 'learning_rate': {:.1e}, 'epoch': {:.2}}}",
            loss / 3.0,
            2e-5 * (1.0 - step as f64 / 100_000.0),
            step as f64 / 5_000.0
        ),
        5..=7 => writeln!(
            out,
            " {:>3}%|{:<10}| {}/5000 [{:02}:{:02}<{:02}:{:02},  {:.2}it/s]",
            step % 100,
            "█".repeat((step % 10) as usize),
            step % 5000,
            step / 60 % 60,
            step % 60,
            (r >> 8) % 60,
            (r >> 16) % 60,
            3.0 + loss
        ),
        8..=9 => writeln!(
            out,
            "2024-05-01 12:{:02}:{:02},{:03} - INFO - trainer - Step {step}/100000: loss={loss:.4} lr=2.0e-05 tokens/s={}",
            step / 60 % 60,
            step % 60,
            r % 1000,
            10_000 + r % 5_000
        ),
        10 => writeln!(
            out,
            "Requirement already satisfied: numpy>=1.17 in /usr/local/lib/python3.10/dist-packages (from transformers==4.41.2) (1.26.4)"
        ),
        11 => writeln!(
            out,
            "x86_64-linux-gnu-g++ -pthread -fPIC -I/usr/include/python3.10 -c csrc/selective_scan/selective_scan_fwd_fp{}.cu -o build/temp.linux-x86_64-cpython-310/csrc/selective_scan_fwd_fp{}.o -O3 -std=c++17",
            16 + r % 2 * 16,
            16 + r % 2 * 16
        ),
        12 => writeln!(
            out,
            "[rank{}]:[W501 12:00:{:02}.{:06} ProcessGroupNCCL.cpp:4115] Warning: barrier(): using the device under current context.",
            r % 8,
            step % 60,
            r % 1_000_000
        ),
        13 => writeln!(
            out,
            "INFO:     10.0.{}.{}:{} - \"POST /v1/completions HTTP/1.1\" 200 OK",
            r % 255,
            (r >> 8) % 255,
            40_000 + r % 20_000
        ),
        14 => writeln!(
            out,
            "Saving model checkpoint to ./outputs/checkpoint-{step}"
        ),
        _ => writeln!(
            out,
            "  warnings.warn(\"`resume_download` is deprecated and will be removed in version 1.0.0.\", FutureWarning)"
        ),
    };
}

fn build_log(target: usize) -> String {
    let texts = fixtures();
    let mut out = String::with_capacity(target + (1 << 20));
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut i = 0u64;
    let mut k = 0usize;
    while out.len() < target {
        // Roughly one real error text per 256 KiB of noise.
        let next_text = out.len() + 256 * 1024;
        while out.len() < next_text.min(target) {
            noise(&mut out, i, &mut x);
            i += 1;
        }
        if let Some(t) = texts.get(k % texts.len().max(1)) {
            out.push_str(t);
            if !t.ends_with('\n') {
                out.push('\n');
            }
        }
        k += 1;
    }
    out
}

fn bench(c: &mut Criterion) {
    let full = std::env::args().any(|a| a == "--bench");
    let size = if full { 100 << 20 } else { 4 << 20 };
    let log = build_log(size);
    let path = std::env::temp_dir().join(format!("abidoc-scan-bench-{}.log", std::process::id()));
    let _ = std::fs::write(&path, &log);
    let mb = log.len() as f64 / (1024.0 * 1024.0);

    // grep on the same file (warm cache: read once first), best of three.
    let _ = std::fs::read(&path);
    let mut grep_best = f64::INFINITY;
    let mut grep_count = String::new();
    for _ in 0..3 {
        let t = Instant::now();
        if let Ok(o) = Command::new("grep")
            .arg("-c")
            .arg("undefined symbol")
            .arg(&path)
            .output()
        {
            grep_best = grep_best.min(t.elapsed().as_secs_f64());
            grep_count = String::from_utf8_lossy(&o.stdout).trim().to_owned();
        }
    }
    let t = Instant::now();
    let parse = abidoc_syntax::scan(&log);
    let scan_once = t.elapsed().as_secs_f64();
    let sym = parse
        .value
        .iter()
        .filter(|e| matches!(e.kind, abidoc_syntax::EventKind::UndefinedSymbol { .. }))
        .count();
    eprintln!(
        "log: {mb:.1} MiB, {} events ({sym} undefined-symbol; grep -c counts {grep_count} lines)\n\
         grep -c 'undefined symbol': {:.3} s = {:.0} MiB/s\n\
         abidoc_syntax::scan (one run): {scan_once:.3} s = {:.0} MiB/s ({:.2}x grep's time)",
        parse.value.len(),
        grep_best,
        mb / grep_best,
        mb / scan_once,
        scan_once / grep_best,
    );

    let mut g = c.benchmark_group("scan");
    g.throughput(Throughput::Bytes(log.len() as u64));
    g.sample_size(10);
    g.bench_function(format!("scan {mb:.0} MiB log"), |b| {
        b.iter(|| abidoc_syntax::scan(std::hint::black_box(&log)));
    });
    g.finish();
    let _ = std::fs::remove_file(&path);
}

criterion_group!(benches, bench);
criterion_main!(benches);
