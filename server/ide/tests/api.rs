//! `abidoc-ide`'s public surface is the host and the plain data types it answers with: this test
//! lists it, so a module made public or a new re-export is a decision made here, not by accident.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// Everything `lib.rs` makes public, item by item (`pub mod` and each name of a `pub use`).
const PUBLIC: &[&str] = &[
    "mod fix",
    "AnalysisHost",
    "CellSlot",
    "Code",
    "CodeDoc",
    "Context",
    "DescribedMachine",
    "Diagnostic",
    "DirEntry",
    "DocumentMemo",
    "Explanation",
    "Fix",
    "Fold",
    "Hover",
    "Machine",
    "Nearest",
    "NearestWheel",
    "PrebuiltStatus",
    "PrebuiltWheel",
    "Progress",
    "RealMachine",
    "ScanMeta",
    "ScanOptions",
    "ScanOutcome",
    "Severity",
    "SourceRef",
    "SymbolReport",
    "SymbolStatus",
    "VerifyOutcome",
    "VerifyRequest",
    "code_doc",
    "contradictions",
    "shift_slots",
];

fn public_items(lib: &str) -> Vec<String> {
    let mut out = Vec::new();
    // `pub use` items may span lines: read statement by statement.
    for stmt in lib.split(';') {
        let stmt = stmt
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join(" ");
        let stmt = stmt.trim();
        if let Some(m) = stmt.strip_prefix("pub mod ") {
            out.push(format!("mod {}", m.trim()));
        } else if let Some(u) = stmt.strip_prefix("pub use ") {
            let names = match u.split_once('{') {
                Some((_, rest)) => rest.trim_end_matches('}').to_owned(),
                None => u.to_owned(),
            };
            for n in names.split(',') {
                let n = n.trim();
                if n.is_empty() {
                    continue;
                }
                // `a as b` exports `b`; `path::item` exports `item`.
                let n = n.rsplit(" as ").next().unwrap_or(n);
                out.push(n.rsplit("::").next().unwrap_or(n).trim().to_owned());
            }
        } else if stmt.contains("pub ") && !stmt.contains("pub(crate)") {
            panic!("lib.rs makes something public outside `pub mod`/`pub use`: {stmt}");
        }
    }
    out.sort_by(|a, b| (!a.starts_with("mod "), a).cmp(&(!b.starts_with("mod "), b)));
    out
}

#[test]
fn the_public_api_is_the_host_and_plain_data() {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    let got = public_items(&lib);
    let mut want: Vec<String> = PUBLIC.iter().map(|s| (*s).to_owned()).collect();
    want.sort_by(|a, b| (!a.starts_with("mod "), a).cmp(&(!b.starts_with("mod "), b)));
    assert_eq!(
        got, want,
        "abidoc-ide's public surface changed: update PUBLIC in this test (and ARCHITECTURE.md) if it is meant"
    );
}

#[test]
fn hosts_share_nothing() {
    // Two hosts: what one opened or built is not the other's (no process-wide state).
    let a = abidoc_ide::AnalysisHost::new();
    let b = abidoc_ide::AnalysisHost::new();
    let sp = std::env::temp_dir().join(format!("abidoc-api-{}", std::process::id()));
    std::fs::create_dir_all(sp.join("torch/lib")).unwrap();
    std::fs::write(sp.join("torch/version.py"), "__version__ = '2.5.1+cu124'\n").unwrap();
    let ctx = abidoc_ide::Context {
        use_env: true,
        site_packages: vec![sp.clone()],
        ..Default::default()
    };
    let built = a.prepare_environment(&ctx);
    assert!(built.is_some(), "the environment opens");
    assert_eq!(a.symbol_index_builds(), 1);
    assert_eq!(
        b.symbol_index_builds(),
        0,
        "a second host saw the first's index"
    );
    std::fs::remove_dir_all(&sp).unwrap();
}
