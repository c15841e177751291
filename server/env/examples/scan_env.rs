//! Scans one environment and prints a summary with timings: a smoke test and a rough benchmark.
//! `cargo run --release -p abidoc-env --example scan_env -- PYTHON_EXE [CACHE_DIR]`

use abidoc_env::{EnvSpec, Environment, ScanOptions, Verdict, scan};
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(python) = args.next() else {
        eprintln!("usage: scan_env PYTHON_EXE [CACHE_DIR]");
        std::process::exit(2);
    };
    let cache_dir = args.next().map(PathBuf::from);
    let spec = EnvSpec {
        python: Some(PathBuf::from(python)),
        ..EnvSpec::from_process_env()
    };
    let t0 = Instant::now();
    let env = Environment::open(&spec);
    let _ = env.process();
    let t1 = Instant::now();
    let report = scan(
        &env,
        &ScanOptions {
            cache_dir,
            include_stray: true,
        },
        &|_, _| {},
    );
    let t2 = Instant::now();
    for l in &report.libraries {
        if l.verdict != Verdict::Loads {
            println!(
                "{:?} {} ({}) {}",
                l.verdict,
                l.path.display(),
                l.package.as_deref().unwrap_or("-"),
                l.findings
                    .iter()
                    .map(|f| format!("{}:{:?}", f.facts.kind(), f.severity))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    for f in &report.package_findings {
        println!(
            "package {:?} {} {:?}",
            f.package,
            f.facts.kind(),
            f.severity
        );
    }
    println!(
        "site-packages {:?}; torch {:?}; {:?}; open+process {:?}, scan {:?}",
        report.site_packages,
        report.torch_version,
        report.stats,
        t1 - t0,
        t2 - t1
    );
    for p in report.problems.iter().take(10) {
        println!("problem: {p}");
    }
}
