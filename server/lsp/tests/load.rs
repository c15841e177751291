//! The server under a flood of forwarded outputs: 500 `abidoc/terminalOutput` and 500
//! `abidoc/cellOutputs` notifications as fast as the pipe takes them. Forwarded outputs are
//! diagnosed by a fixed pool of workers with a coalescing queue, so the process's thread count
//! and resident size stay bounded, the latest output of every terminal and cell is still
//! diagnosed and published, and the server answers requests afterwards.
//!
//! Alone in its test binary: it reads the thread count and RSS of the whole process.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{Client, text_only};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const NB_URI: &str = "file:///work/flood.ipynb";
const TERMINALS: usize = 5;
const CELLS: usize = 4;
const FLOOD: usize = 500;

/// The process may have this many more threads than before the flood (the runtime's own
/// blocking threads, the analysis thread, the pool's workers, this test's sampler).
const EXTRA_THREADS: u64 = 12;
/// The resident size the flood may not exceed (ARCHITECTURE.md, resource bounds).
const PEAK_RSS_MIB: u64 = 48;

fn status_field(name: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{name} in /proc/self/status"))
}

/// Samples the process's thread count and RSS until dropped; keeps the peaks.
struct Sampler {
    stop: Arc<AtomicBool>,
    threads: Arc<AtomicU64>,
    rss_kib: Arc<AtomicU64>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    fn start() -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = Arc::new(AtomicU64::new(0));
        let rss_kib = Arc::new(AtomicU64::new(0));
        let (s, t, r) = (stop.clone(), threads.clone(), rss_kib.clone());
        let handle = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                t.fetch_max(status_field("Threads:"), Ordering::Relaxed);
                r.fetch_max(status_field("VmRSS:"), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        Sampler {
            stop,
            threads,
            rss_kib,
            handle: Some(handle),
        }
    }

    fn peaks(mut self) -> (u64, u64) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            h.join().unwrap();
        }
        (
            self.threads.load(Ordering::Relaxed),
            self.rss_kib.load(Ordering::Relaxed),
        )
    }
}

/// A failing training run: ~16 KB of progress lines, then the import error. `n` makes each text
/// unique.
fn terminal_text(n: usize) -> String {
    let mut text = String::new();
    for step in 0..400 {
        text.push_str(&format!("step {step} run {n} loss 0.{step:04}\n"));
    }
    text.push_str(&common::data("seed000.log"));
    text
}

fn error_output(n: usize) -> Value {
    let mut text = terminal_text(n);
    text.push_str("\nImportError: /sp/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib\n");
    json!({"mime": "application/vnd.code.notebook.stderr", "text": text})
}

/// What each cell printed last: a missing library, so its diagnosis tells it from the others.
fn last_output() -> Value {
    json!({"mime": "application/vnd.code.notebook.stderr", "text": "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nOSError: libcudart.so.12: cannot open shared object file: No such file or directory\n"})
}

fn cell_uri(i: usize) -> String {
    format!("vscode-notebook-cell:/work/flood.ipynb#C{i}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_outputs_keeps_threads_and_memory_bounded() {
    let mut client = Client::initialized(json!({}), text_only()).await;
    let cells: Vec<Value> = (0..CELLS)
        .map(|i| json!({"kind": 2, "document": cell_uri(i)}))
        .collect();
    let docs: Vec<Value> = (0..CELLS)
        .map(|i| json!({"uri": cell_uri(i), "languageId": "python", "version": 1, "text": "import torch\nimport mamba_ssm\n"}))
        .collect();
    client
        .notify(
            "notebookDocument/didOpen",
            json!({"notebookDocument": {"uri": NB_URI, "notebookType": "jupyter-notebook", "version": 1, "cells": cells}, "cellTextDocuments": docs}),
        )
        .await;
    // Warm: one output of each kind diagnosed, so what the server starts once is running.
    client
        .notify(
            "abidoc/terminalOutput",
            json!({"commandLine": "warm", "terminalId": "warm", "text": terminal_text(0)}),
        )
        .await;
    client
        .notification("abidoc/terminalDiagnosis", |p| p["commandLine"] == "warm")
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let threads_before = status_field("Threads:");
    let rss_before = status_field("VmRSS:");
    let sampler = Sampler::start();

    let started = Instant::now();
    for i in 0..FLOOD {
        let terminal = i % TERMINALS;
        client
            .notify(
                "abidoc/terminalOutput",
                json!({"commandLine": format!("python train.py --run {i}"), "terminalId": format!("t{terminal}"), "exitCode": 1, "text": terminal_text(i)}),
            )
            .await;
        let cell = i % CELLS;
        let output = if i + CELLS >= FLOOD {
            last_output()
        } else {
            error_output(i)
        };
        client
            .notify(
                "abidoc/cellOutputs",
                json!({"notebookUri": NB_URI, "cells": [{"cellUri": cell_uri(cell), "executionOrder": i, "success": false, "outputs": [output]}]}),
            )
            .await;
    }
    let sent = started.elapsed();

    // The latest output of every terminal is diagnosed and answered.
    for i in FLOOD - TERMINALS..FLOOD {
        let command = format!("python train.py --run {i}");
        let diagnosis = client
            .notification("abidoc/terminalDiagnosis", |p| p["commandLine"] == command)
            .await;
        assert!(
            diagnosis["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["code"] == "abi-mismatch"),
            "{diagnosis:#}"
        );
    }
    // The latest outputs of every cell are published on it.
    for cell in 0..CELLS {
        let uri = cell_uri(cell);
        client
            .notification("textDocument/publishDiagnostics", |p| {
                p["uri"] == uri
                    && p["diagnostics"]
                        .as_array()
                        .is_some_and(|d| d.iter().any(|d| d["code"] == "missing-shared-library"))
            })
            .await;
    }
    let drained = started.elapsed();
    let (threads_peak, rss_peak) = sampler.peaks();
    eprintln!(
        "threads {threads_before} -> peak {threads_peak}; RSS {} MiB -> peak {} MiB; sent in {sent:?}, all published after {drained:?}",
        rss_before / 1024,
        rss_peak / 1024
    );
    assert!(
        threads_peak <= threads_before + EXTRA_THREADS,
        "threads went from {threads_before} to {threads_peak}"
    );
    assert!(
        rss_peak / 1024 < PEAK_RSS_MIB,
        "RSS peaked at {} MiB",
        rss_peak / 1024
    );

    // The session goes on: a request is answered.
    let hover = client.hover(&cell_uri(0), 0, 2).await;
    assert!(
        hover["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("missing-shared-library")),
        "{hover:#}"
    );
    client.shutdown().await;
}
