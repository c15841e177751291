//! Profiles an edit of a large `.ipynb` opened as text, as the server handles it: apply the
//! change, then the incremental diagnosis; with the whole-notebook diagnosis for comparison.
//!
//!     cargo run --release -p abidoc-lsp --example stages -- NOTEBOOK [SITE_PACKAGES]

use abidoc_ide::DocumentMemo as Cache;
use abidoc_lsp::documents::{DocKind, Document};
use abidoc_lsp::proto::{Position, Range, TextDocumentContentChangeEvent};
use std::time::{Duration, Instant};

/// One host, as the language server keeps one.
fn host() -> &'static abidoc_ide::AnalysisHost {
    static HOST: std::sync::OnceLock<abidoc_ide::AnalysisHost> = std::sync::OnceLock::new();
    HOST.get_or_init(abidoc_ide::AnalysisHost::new)
}

fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .unwrap_or(0.0)
        / 1024.0
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_default();
    let ctx = abidoc_ide::Context {
        use_env: true,
        site_packages: args.next().into_iter().map(Into::into).collect(),
        ..Default::default()
    };
    let Ok(raw) = std::fs::read_to_string(&path) else {
        eprintln!("usage: stages NOTEBOOK [SITE_PACKAGES]");
        return;
    };
    println!("rss with the text read: {:.1} MiB", rss_mib());
    if std::env::var_os("STAGES_WHOLE").is_some() {
        let t = Instant::now();
        let whole = host().diagnose_notebook(&raw, &ctx);
        println!(
            "whole-notebook diagnosis: {:?} ({} diagnoses)",
            t.elapsed(),
            whole.len()
        );
    }

    let lines: Vec<(u32, u32)> = raw
        .lines()
        .enumerate()
        .filter_map(|(i, l)| l.find("loss").map(|c| (i as u32, c as u32 + 1)))
        .collect();
    let t = Instant::now();
    let mut doc = Document::new(1, DocKind::NotebookJson, raw);
    let t_new = t.elapsed();
    let mut cache = Cache::default();
    let t = Instant::now();
    let (d, slots) = host().diagnose_notebook_kept(&doc.text, None, &ctx, &mut cache);
    doc.slots = slots;
    println!(
        "open: document {t_new:?}, incremental diagnosis {:?} ({} diagnoses), rss {:.1} MiB",
        t.elapsed(),
        d.len(),
        rss_mib()
    );
    drop(d);
    let cells = std::mem::take(&mut cache);
    println!("rss without the cache: {:.1} MiB", rss_mib());
    cache = cells;
    let mut seed = 7u64;
    let (mut apply, mut diag) = (Vec::new(), Vec::new());
    for version in 2..42 {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let Some(&(line, col)) = lines.get((seed >> 33) as usize % lines.len().max(1)) else {
            return;
        };
        let at = Position::new(line, col);
        let change = TextDocumentContentChangeEvent {
            range: Some(Range::new(at, at)),
            range_length: None,
            text: "x".into(),
        };
        let t = Instant::now();
        doc.apply(version, vec![change]);
        apply.push(t.elapsed());
        let t = Instant::now();
        let (_, slots) =
            host().diagnose_notebook_kept(&doc.text, doc.slots.take(), &ctx, &mut cache);
        doc.slots = slots;
        diag.push(t.elapsed());
    }
    let pct = |v: &mut Vec<Duration>, p: usize| {
        v.sort();
        v[(v.len() - 1) * p / 100]
    };
    println!("rss after the edits: {:.1} MiB", rss_mib());
    println!(
        "edit: apply p50 {:?} p99 {:?}; diagnosis p50 {:?} p99 {:?}",
        pct(&mut apply, 50),
        pct(&mut apply, 99),
        pct(&mut diag, 50),
        pct(&mut diag, 99)
    );
}
