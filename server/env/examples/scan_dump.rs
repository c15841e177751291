//! Prints the environment scan of `--site-packages DIR` as JSON (the facts, before any phrasing),
//! with the time it took on stderr: for profiling the scan and comparing its results across
//! changes. Usage: `scan_dump SITE_PACKAGES [CACHE_DIR]`.

use abidoc_env::{EnvSpec, Environment, ScanOptions, scan};
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args_os().skip(1);
    let Some(sp) = args.next() else {
        eprintln!("usage: scan_dump SITE_PACKAGES [CACHE_DIR]");
        std::process::exit(2);
    };
    let cache_dir = args.next().map(PathBuf::from);
    let t = std::time::Instant::now();
    let spec = EnvSpec {
        site_packages: vec![PathBuf::from(sp)],
        ..EnvSpec::from_process_env()
    };
    let env = Environment::open(&spec);
    eprintln!("open: {:?}", t.elapsed());
    let _ = env.process();
    eprintln!("process model: {:?}", t.elapsed());
    let options = ScanOptions {
        cache_dir,
        include_stray: true,
    };
    let mut report = scan(&env, &options, &|_, _| {});
    eprintln!("scan: {:?}, stats {:?}", t.elapsed(), report.stats);
    // Counters differ between a cold and a cached run; the findings must not.
    report.stats = Default::default();
    match serde_json::to_string_pretty(&report) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("{e}"),
    }
}
