//! Exported-symbol extraction, index build and demangling on the largest real libraries on this machine.
//!
//! `ABIDOC_BENCH_LIBS=/path/libtorch_cpu.so:/path/other.so cargo bench -p abidoc-elf --bench exports`
//! picks the libraries; without it, the large LLVM/clang/libstdc++ builds commonly installed.
//! Compare with `time nm -D --defined-only LIB > /dev/null` (and, for `demangle/exports`, with
//! `nm -D --defined-only LIB | c++filt > /dev/null`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a bench that cannot read its input should stop

use std::hint::black_box;
use std::path::PathBuf;

use abidoc_elf::{ExportIndex, classify, read};
use criterion::{Criterion, criterion_group, criterion_main};

fn libraries() -> Vec<PathBuf> {
    if let Ok(list) = std::env::var("ABIDOC_BENCH_LIBS") {
        return list
            .split(':')
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .collect();
    }
    [
        "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1",
        "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
        "/usr/lib/llvm-14/lib/libclang-cpp.so.14",
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
    ]
    .iter()
    .map(PathBuf::from)
    .filter(|p| p.exists())
    .collect()
}

fn bench(c: &mut Criterion) {
    let libs: Vec<(String, Vec<u8>)> = libraries()
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read(&p).expect("read library"),
            )
        })
        .collect();
    if libs.is_empty() {
        eprintln!("no library to benchmark: set ABIDOC_BENCH_LIBS");
        return;
    }
    let (first_name, first) = &libs[0];
    let short = first_name.rsplit('/').next().unwrap_or(first_name);

    c.bench_function(&format!("read/{short}"), |b| {
        b.iter(|| black_box(read(black_box(first))));
    });

    let (info, _) = read(first);
    let info = info.expect("an ELF library");
    eprintln!(
        "{short}: {} dynamic symbols, {} exports",
        info.symbols.len(),
        info.exports().count()
    );
    c.bench_function(&format!("read+exports/{short}"), |b| {
        b.iter(|| {
            let (info, _) = read(black_box(first));
            black_box(info.map(|i| i.exports().count()))
        });
    });
    c.bench_function(&format!("index_build/{short}"), |b| {
        b.iter(|| {
            let mut index = ExportIndex::new();
            index.add_library(first_name, &info);
            black_box(index.len())
        });
    });

    // All libraries in one index (100k+ exports with the defaults), then a classification, which
    // builds the qualified-name table on first use.
    let infos: Vec<_> = libs
        .iter()
        .map(|(n, bytes)| (n.as_str(), read(bytes).0.expect("ELF")))
        .collect();
    let total: usize = infos.iter().map(|(_, i)| i.exports().count()).sum();
    eprintln!("all libraries: {total} exports");
    let missing = infos[0]
        .1
        .exports()
        .find(|s| s.name.starts_with("_ZN") && s.name.ends_with('v'))
        .map(|s| format!("{}i", &s.name[..s.name.len() - 1]))
        .unwrap_or_else(|| "_ZN4llvm3foo3barEi".to_string());
    c.bench_function("index_build+qualified_table+classify/all", |b| {
        b.iter(|| {
            let mut index = ExportIndex::new();
            for (name, info) in &infos {
                index.add_library(name, info);
            }
            black_box(classify(black_box(&missing), &index))
        });
    });
    let mut index = ExportIndex::new();
    for (name, info) in &infos {
        index.add_library(name, info);
    }
    let _ = classify(&missing, &index);
    c.bench_function("classify/warm", |b| {
        b.iter(|| black_box(classify(black_box(&missing), &index)));
    });
    c.bench_function("contains/warm", |b| {
        b.iter(|| black_box(index.contains(black_box(&missing))));
    });
}

/// Demangling every exported C++ name of the first library: the fast path plus its cpp_demangle
/// fallback, with one reusable [`abidoc_elf::Demangler`] and output buffer, as `abidoc demangle`
/// runs it. Compare with `nm -D --defined-only LIB | c++filt > /dev/null`.
fn bench_demangle(c: &mut Criterion) {
    let Some(path) = libraries().into_iter().next() else {
        return;
    };
    let bytes = std::fs::read(&path).expect("read library");
    let (info, _) = read(&bytes);
    let info = info.expect("an ELF library");
    let names: Vec<&str> = info
        .exports()
        .map(|s| s.name)
        .filter(|n| n.starts_with("_Z"))
        .collect();
    eprintln!("demangle: {} mangled exports", names.len());
    let mut demangler = abidoc_elf::Demangler::new();
    let mut out = String::new();
    c.bench_function("demangle/exports", |b| {
        b.iter(|| {
            let mut ok = 0usize;
            for name in &names {
                out.clear();
                ok += usize::from(demangler.demangle_into(black_box(name), &mut out));
            }
            black_box(ok)
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench, bench_demangle
}
criterion_main!(benches);
