//! The prebuilt index of torch's exports behind symbol hovers: built once per environment (by
//! `prepare_environment`), never by a hover on a new symbol, and answering exactly what indexing
//! every torch export per lookup answered (the reference below is that former implementation).
//!
//! Runs on the fake torch of `tests/native/build.sh`; with `ABIDOC_SYMBOL_INDEX_SITE_PACKAGES`
//! set to a real site-packages it also compares a sample of a real torch's exports (not in CI).

// A failed unwrap in a test is a failing test, which is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::host;
use std::path::{Path, PathBuf};

use abidoc_ide::{Context, Nearest};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn native() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("abidoc-ide-index-{}", std::process::id()));
    let status = std::process::Command::new("bash")
        .arg(repo().join("tests/native/build.sh"))
        .arg(&dir)
        .status()
        .expect("bash");
    assert!(status.success(), "tests/native/build.sh failed");
    dir
}

fn context(site_packages: &Path) -> Context {
    Context {
        use_env: true,
        site_packages: vec![site_packages.to_path_buf()],
        ..Context::default()
    }
}

/// What a hover showed before the index: every torch library's facts read, an `ExportIndex` of
/// all their exports built for the lookup.
fn reference(sp: &Path, symbol: &str) -> (Vec<String>, Vec<Nearest>) {
    let env = abidoc_env::Environment::open(&abidoc_env::EnvSpec {
        site_packages: vec![sp.to_path_buf()],
        ..abidoc_env::EnvSpec::default()
    });
    let torch = env.torch.as_ref().expect("torch");
    let mut lists = Vec::new();
    for lib in &torch.libs {
        if let Ok(f) = env.store.get(lib).as_ref() {
            lists.push((lib.clone(), f.clone()));
        }
    }
    let exported_by: Vec<String> = lists
        .iter()
        .filter(|(_, f)| f.defines(symbol, None))
        .map(|(p, _)| p.display().to_string())
        .collect();
    if !exported_by.is_empty() {
        return (exported_by, Vec::new());
    }
    let paths: Vec<String> = lists.iter().map(|(p, _)| p.display().to_string()).collect();
    let mut index = abidoc_elf::ExportIndex::new();
    for ((_, f), name) in lists.iter().zip(&paths) {
        index.add_names(name, f.export_names());
    }
    let c = abidoc_elf::classify(symbol, &index);
    let mut nearest = Vec::new();
    if let Some(n) = c.nearest {
        let library = index
            .resolve(&n, None)
            .map(|x| index.library_name(x.library).to_owned())
            .unwrap_or_default();
        let difference = match c.status {
            abidoc_elf::Status::Cxx11Abi => "differs only in the std::string ABI".to_owned(),
            abidoc_elf::Status::SignatureChanged => "same name, other parameters".to_owned(),
            _ => "closest export".to_owned(),
        };
        nearest.push(Nearest {
            demangled: c.nearest_demangled.unwrap_or_else(|| n.clone()),
            mangled: n,
            library,
            difference,
        });
    }
    (exported_by, nearest)
}

/// Every export of the torch libraries, plus variants a traceback shows: a parameter changed,
/// the other std::string ABI, truncated.
fn symbols_of(sp: &Path, sample_every: usize) -> Vec<String> {
    let env = abidoc_env::Environment::open(&abidoc_env::EnvSpec {
        site_packages: vec![sp.to_path_buf()],
        ..abidoc_env::EnvSpec::default()
    });
    let torch = env.torch.as_ref().expect("torch");
    let mut out = Vec::new();
    let mut k = 0usize;
    for lib in &torch.libs {
        let Ok(f) = env.store.get(lib).as_ref().clone() else {
            continue;
        };
        for n in f.export_names() {
            k += 1;
            if !k.is_multiple_of(sample_every) || !n.starts_with("_Z") {
                continue;
            }
            out.push(n.to_owned());
            if let Some(i) = n.rfind('i') {
                out.push(format!("{}l{}", &n[..i], &n[i + 1..]));
            }
            if let Some(head) = n.strip_suffix('v') {
                out.push(format!("{head}i"));
            }
            let cxx11 = "NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE";
            if n.contains(cxx11) {
                out.push(n.replace(cxx11, "Ss"));
            } else if n.contains("Ss") {
                out.push(n.replacen("Ss", cxx11, 1));
            }
            out.push(n[..n.len() / 2].to_owned());
        }
    }
    out.push("_ZN3c104cuda9SetDeviceEa".to_owned());
    out.push("_ZN5nosuch9namespaceEv".to_owned());
    out.push("PyErr_SetString".to_owned());
    out
}

fn compare(sp: &Path, symbols: &[String]) {
    let ctx = context(sp);
    let built = host().prepare_environment(&ctx).expect("an environment");
    assert_eq!(
        host().prepare_environment(&ctx),
        Some(built),
        "preparing an environment again rebuilt its index"
    );
    let mut mismatches = Vec::new();
    for s in symbols {
        let e = host().explain_symbol(s, &ctx);
        let want = reference(
            sp,
            s.strip_prefix('_')
                .filter(|r| r.starts_with("_Z"))
                .unwrap_or(s),
        );
        if (e.exported_by.clone(), e.nearest.clone()) != want {
            mismatches.push(format!(
                "{s}:\n  index: {:?} {:?}\n  reference: {:?} {:?}",
                e.exported_by, e.nearest, want.0, want.1
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} differ:\n{}",
        mismatches.len(),
        symbols.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
    // Hovers on symbols never seen before looked them up in the prebuilt index.
    assert_eq!(
        host().symbol_index_builds(),
        built,
        "a lookup of a new symbol rebuilt the index"
    );
}

#[test]
fn hovers_use_the_prebuilt_index_and_answer_as_a_full_index() {
    let dir = native();
    let sp = dir.join("site-packages");
    let before = host().symbol_index_builds();
    let symbols = symbols_of(&sp, 1);
    assert!(symbols.len() > 20, "{symbols:?}");
    compare(&sp, &symbols);
    assert_eq!(
        host().symbol_index_builds(),
        before + 1,
        "one index for one environment"
    );
    let e = host().explain_symbol("_ZN3c104cuda9SetDeviceEa", &context(&sp));
    assert_eq!(e.nearest.len(), 1, "{e:?}");
    assert!(e.nearest[0].library.ends_with("libc10_cuda.so"), "{e:?}");

    if let Some(real) = std::env::var_os("ABIDOC_SYMBOL_INDEX_SITE_PACKAGES") {
        let real = PathBuf::from(real);
        let every = std::env::var("ABIDOC_SYMBOL_INDEX_EVERY")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(97);
        compare(&real, &symbols_of(&real, every));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
