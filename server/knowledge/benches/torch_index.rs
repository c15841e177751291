//! Load and lookup time of the embedded torch symbol index.

use abidoc_knowledge::torch_index;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let start = std::time::Instant::now();
    let n = torch_index::releases().len();
    eprintln!(
        "first load (decompress + parse): {:?} for {n} releases, {} symbols",
        start.elapsed(),
        torch_index::symbol_count()
    );
    c.bench_function("torch_index/load (decompress + parse)", |b| {
        b.iter(|| black_box(torch_index::bench_load()));
    });
    let hit = "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib";
    let long = "_ZN2at4_ops19empty_memory_format4callEN3c108ArrayRefINS2_6SymIntEEENS2_8optionalINS2_10ScalarTypeEEENS6_INS2_6LayoutEEENS6_INS2_6DeviceEEENS6_IbEENS6_INS2_12MemoryFormatEEE";
    let miss = "_ZN3c1011CPUTensorIdEv";
    c.bench_function("torch_index/lookup hit", |b| {
        b.iter(|| black_box(torch_index::lookup(black_box(hit))));
    });
    c.bench_function("torch_index/lookup hit (long at::_ops)", |b| {
        b.iter(|| black_box(torch_index::lookup(black_box(long))));
    });
    c.bench_function("torch_index/lookup miss", |b| {
        b.iter(|| black_box(torch_index::lookup(black_box(miss))));
    });
    c.bench_function("torch_index/variants c10::cuda::ExchangeDevice", |b| {
        b.iter(|| {
            black_box(torch_index::variants(black_box(
                "c10::cuda::ExchangeDevice",
            )))
        });
    });
    c.bench_function("torch_index/built_for 3 symbols", |b| {
        b.iter(|| {
            black_box(torch_index::built_for(black_box(&[
                hit,
                "_ZN3c104cuda9SetDeviceEa",
                "memcpy",
            ])))
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
