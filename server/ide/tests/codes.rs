//! One fixture folder per diagnostic code (`tests/fixtures/codes/<code>/`): each input, read with
//! the text alone (or with the machine a `NAME.machine.json` beside it describes), produces its code, its full rendering is the snapshot beside it, and no fix
//! contradicts its diagnosis. The README's code list and `docs/codes/<code>.md` are generated
//! from the code modules; `ABIDOC_BLESS=1` rewrites them, CI fails when they are stale.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::host;

use abidoc_ide::{Code, code_doc as doc};
use abidoc_ide::{Context, Diagnostic};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text_only() -> Context {
    Context {
        use_env: false,
        ..Context::default()
    }
}

/// The environment may be read, but no Python environment is named: only the described
/// machine's files are there to read.
fn machine_only() -> Context {
    Context {
        use_env: true,
        ..Context::default()
    }
}

/// `NAME.machine.json` beside `NAME.txt`: `{"files": {"/abs/path": "text"}, "vars": {...}}`.
fn described_machine(input: &Path) -> Option<abidoc_ide::DescribedMachine> {
    let stem = input.file_stem()?.to_str()?;
    let desc = input.with_file_name(format!("{stem}.machine.json"));
    let text = std::fs::read_to_string(&desc).ok()?;
    let v: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", desc.display()));
    let mut m = abidoc_ide::DescribedMachine::default();
    for (path, body) in v["files"].as_object().into_iter().flatten() {
        m.files
            .insert(PathBuf::from(path), body.as_str().unwrap_or("").to_owned());
    }
    for (name, value) in v["vars"].as_object().into_iter().flatten() {
        m.vars
            .insert(name.clone(), value.as_str().unwrap_or("").to_owned());
    }
    Some(m)
}

fn inputs(code: Code) -> Vec<PathBuf> {
    let dir = repo().join("tests/fixtures/codes").join(code.as_str());
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|_| panic!("{}: no fixture folder {}", code.as_str(), dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("txt" | "log")))
        .collect();
    v.sort();
    v
}

/// Codes whose folder holds no real positive text yet (only negatives, `*.clean.*`): a
/// stale-wheel-cache diagnosis needs a cached wheel built here *and* a load failure in one text.
const NO_REAL_POSITIVE_YET: &[Code] = &[Code::StaleWheelCache];

#[test]
fn every_code_has_fixtures_that_produce_it() {
    for &code in Code::ALL {
        let files = inputs(code);
        // Every input is a real text whose source its folder's README names.
        if let Some(dir) = files.first().and_then(|f| f.parent()) {
            let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
            for f in &files {
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                assert!(
                    readme.contains(&format!("`{name}`")),
                    "{}: {name} has no line in its folder's README.md saying where it comes from",
                    code.as_str()
                );
            }
        }
        assert!(
            !files.is_empty(),
            "{}: no input in its fixture folder",
            code.as_str()
        );
        let mut positives = 0;
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let diags = match described_machine(&f) {
                // Read with the machine its `.machine.json` describes (and no Python
                // environment): what a fix chooses from a machine's files.
                Some(m) => abidoc_ide::AnalysisHost::with_machine(std::sync::Arc::new(m))
                    .diagnose_text(&text, &machine_only()),
                None => host().diagnose_text(&text, &text_only()),
            };
            let negative = f.to_string_lossy().contains(".clean.");
            let produced = diags.iter().any(|d| d.code == code);
            positives += usize::from(produced);
            assert!(
                produced != negative,
                "{}: {} {}",
                code.as_str(),
                f.display(),
                if negative {
                    "is a negative but produces it"
                } else {
                    "does not produce it"
                }
            );
            let name = f.file_stem().unwrap().to_string_lossy().into_owned();
            insta::with_settings!({
                snapshot_path => f.parent().unwrap(),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(name, common::render(&text, &diags));
            });
        }
        assert!(
            positives > 0 || NO_REAL_POSITIVE_YET.contains(&code),
            "{}: no input produces it",
            code.as_str()
        );
    }
}

/// Every text the tests hold: fixtures per code, the corpus, field texts, seed logs and the
/// mined reports.
fn every_text() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in [
        "tests/fixtures/codes",
        "tests/fixtures/corpus",
        "tests/fixtures/field",
        "tests/fixtures/seeds",
    ] {
        let mut stack = vec![repo().join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if matches!(p.extension().and_then(|e| e.to_str()), Some("txt" | "log")) {
                    out.push((
                        p.display().to_string(),
                        std::fs::read_to_string(&p).unwrap(),
                    ));
                }
            }
        }
    }
    for f in std::fs::read_dir(repo().join("tests/fixtures/mined"))
        .into_iter()
        .flatten()
        .flatten()
        // The folder also holds its README.md.
        .filter(|f| f.path().extension().is_some_and(|e| e == "jsonl"))
    {
        for line in std::fs::read_to_string(f.path()).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            out.push((
                v["id"].as_str().unwrap_or("?").to_owned(),
                v["text"].as_str().unwrap_or("").to_owned(),
            ));
        }
    }
    out
}

#[test]
fn no_fix_contradicts_its_diagnosis() {
    let mut bad = Vec::new();
    for (name, text) in every_text() {
        for d in host().diagnose_text(&text, &text_only()) {
            for c in abidoc_ide::contradictions(&d) {
                bad.push(format!("{name}: {c}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn code_page(code: Code) -> String {
    let doc = doc(code);
    let mut s = format!(
        "<!-- generated from server/ide/src/codes; `ABIDOC_BLESS=1 cargo test -p abidoc-ide --test codes` rewrites it -->\n# `{}`\n\n{}\n\n## What it means\n\n{}\n\n## Fixes\n\n{}\n",
        code.as_str(),
        doc.summary,
        doc.meaning,
        doc.fixes
    );
    // The example is read with the text alone, as its command says: not an input whose fixes
    // depend on a described machine.
    if let Some(f) = inputs(code)
        .iter()
        .find(|f| !f.to_string_lossy().contains(".clean.") && described_machine(f).is_none())
    {
        let text = std::fs::read_to_string(f).unwrap();
        let diags: Vec<Diagnostic> = host()
            .diagnose_text(&text, &text_only())
            .into_iter()
            .filter(|d| d.code == code)
            .take(1)
            .collect();
        let rel = f.strip_prefix(repo()).unwrap_or(f).display().to_string();
        s.push_str(&format!(
            "\n## Example\n\n`abidoc check --no-env {rel}`:\n\n```text\n{}```\n",
            common::render(&text, &diags)
        ));
    }
    s
}

fn readme_list() -> String {
    let mut s = String::from(
        "Diagnostic codes (stable; one page each in `docs/codes/`):\n\n| code | situation |\n|---|---|\n",
    );
    for &code in Code::ALL {
        s.push_str(&format!(
            "| [`{0}`](docs/codes/{0}.md) | {1} |\n",
            code.as_str(),
            doc(code).summary.replace('|', "\\|")
        ));
    }
    s
}

#[test]
fn generated_docs_are_current() {
    let bless = std::env::var_os("ABIDOC_BLESS").is_some();
    let mut stale = Vec::new();
    let dir = repo().join("docs/codes");
    for &code in Code::ALL {
        let path = dir.join(format!("{}.md", code.as_str()));
        let want = code_page(code);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            if bless {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, want).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    let readme_path = repo().join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let (begin, end) = ("-->\n", "<!-- codes:end -->");
    let a = readme
        .find("<!-- codes:begin")
        .expect("README codes marker");
    let b = readme.find(end).expect("README codes end marker");
    let head = &readme[..a + readme[a..].find(begin).unwrap() + begin.len()];
    let want = format!("{head}{}{}", readme_list(), &readme[b..]);
    if want != readme {
        if bless {
            std::fs::write(&readme_path, want).unwrap();
        } else {
            stale.push("README.md (code list)".into());
        }
    }
    // The JSON contract lists the same codes, linked from docs/.
    let contract_path = repo().join("docs/contract.md");
    let contract = std::fs::read_to_string(&contract_path).unwrap();
    let a = contract
        .find("<!-- codes:begin")
        .expect("contract codes marker");
    let b = contract.find(end).expect("contract codes end marker");
    let head = &contract[..a + contract[a..].find(begin).unwrap() + begin.len()];
    let list = readme_list();
    let table = &list[list.find("| code |").unwrap_or(0)..];
    let want = format!(
        "{head}{}{}",
        table.replace("](docs/codes/", "](codes/"),
        &contract[b..]
    );
    if want != contract {
        if bless {
            std::fs::write(&contract_path, want).unwrap();
        } else {
            stale.push("docs/contract.md (code table)".into());
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated docs (run ABIDOC_BLESS=1 cargo test -p abidoc-ide --test codes): {stale:?}"
    );
}

/// A torch release whose Windows wheel lacked a DLL its own needs (2.4.0's fbgemm.dll and
/// libomp140) is never reinstalled as the fix: the release that ships it is. The error line is
/// pytorch/pytorch#133076's; the install line is pip's own, as reports paste it.
#[test]
fn a_torch_release_whose_wheel_lacked_a_dll_is_not_reinstalled() {
    let text = "Successfully installed torch-2.4.0+cu121\n\
OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\Users\\DELL\\Downloads\\SPORTS\\anaconda\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n";
    let ctx = Context {
        use_env: false,
        ..Context::default()
    };
    let diags = host().diagnose_text(text, &ctx);
    let d = diags
        .iter()
        .find(|d| d.code == Code::MissingSharedLibrary)
        .expect("a missing-library diagnosis");
    let fix = d.fixes.first().expect("a fix");
    let commands = fix.commands().concat().join(" ");
    assert!(commands.contains("torch==2.4.1"), "{commands}");
    assert!(!commands.contains("torch==2.4.0"), "{commands}");
    // Any other torch DLL keeps the release the text names.
    let other = text.replace("fbgemm.dll", "c10.dll");
    let diags = host().diagnose_text(&other, &ctx);
    let commands = diags
        .iter()
        .flat_map(|d| d.fixes.iter())
        .flat_map(abidoc_ide::Fix::commands)
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(!commands.contains("torch==2.4.1"), "{commands}");
}
