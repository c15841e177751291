//! The incremental diagnosis of documents opened as text gives what a fresh diagnosis of the same
//! text gives: against `AnalysisHost::diagnose_notebook` on real notebooks, and after many seeded
//! random edits (applied as LSP content changes) against a fresh open of the final text.
#![allow(clippy::unwrap_used)] // helpers outside #[test] fns: a panic is a failing test

use abidoc_ide::{Context, Diagnostic, DocumentMemo as Cache};
use abidoc_lsp::documents::{DocKind, Document};
use abidoc_lsp::proto::{Position, Range, TextDocumentContentChangeEvent};

/// One host, as the language server keeps one.
fn host() -> &'static abidoc_ide::AnalysisHost {
    static HOST: std::sync::OnceLock<abidoc_ide::AnalysisHost> = std::sync::OnceLock::new();
    HOST.get_or_init(abidoc_ide::AnalysisHost::new)
}

fn ctx() -> Context {
    Context::default()
}

fn notebooks() -> Vec<(String, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    [
        "server/lsp/tests/data/train.ipynb",
        "tests/fixtures/seeds/000-hybrid-granite-4.0-h.ipynb",
        "examples/granite-lora-training.ipynb",
        "server/knowledge/tests/fixtures/models/granite_notebook.ipynb",
    ]
    .iter()
    .map(|p| {
        let text = std::fs::read_to_string(format!("{root}/{p}")).unwrap();
        ((*p).to_owned(), text)
    })
    .collect()
}

/// What a client sees of a diagnosis: code, message, locations, fixes.
fn view(diags: &[Diagnostic]) -> Vec<String> {
    diags.iter().map(|d| format!("{d:?}")).collect()
}

#[test]
fn equals_the_whole_notebook_diagnosis() {
    for (name, raw) in notebooks() {
        let whole = host().diagnose_notebook(&raw, &ctx());
        let mut cache = Cache::default();
        let (cold, slots) = host().diagnose_notebook_kept(&raw, None, &ctx(), &mut cache);
        assert!(slots.is_some(), "{name}: cells found");
        assert_eq!(view(&cold), view(&whole), "{name}");
        // Warm: every cell and diagnosis comes from the cache.
        let (warm, _) = host().diagnose_notebook_kept(&raw, slots, &ctx(), &mut cache);
        assert_eq!(view(&warm), view(&whole), "{name} (cached)");
    }
    let train = &notebooks()[0].1;
    assert!(
        !host().diagnose_notebook(train, &ctx()).is_empty(),
        "the fixture has failures to compare"
    );
}

/// A small seeded generator (no dependency needed for a reproducible sequence).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn position(text: &str, at: usize) -> Position {
    let before = &text[..at];
    let line = before.matches('\n').count() as u32;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let col: usize = text[start..at].chars().map(char::len_utf16).sum();
    Position::new(line, col as u32)
}

fn char_floor(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[test]
fn random_edits_diagnose_like_a_fresh_open() {
    const INSERTS: &[&str] = &[
        "x",
        " ",
        "\\n",
        "undefined symbol: _ZN3c104cuda9SetDeviceEi",
        "\"",
        "},{",
        "é",
        "ImportError: libcudart.so.12: cannot open shared object file",
    ];
    for (name, raw) in notebooks() {
        let mut rng = Lcg(0x5eed ^ raw.len() as u64);
        let mut doc = Document::new(1, DocKind::NotebookJson, raw.clone());
        let mut cache = Cache::default();
        let (_, slots) = host().diagnose_notebook_kept(&doc.text, None, &ctx(), &mut cache);
        doc.slots = slots;
        for step in 0..60 {
            // Mostly edits inside string values (where users type), sometimes anywhere.
            let text = doc.text.as_str().to_owned();
            let at = char_floor(&text, rng.below(text.len()));
            let end = char_floor(&text, (at + rng.below(4)).min(text.len()));
            let insert = if rng.below(3) == 0 {
                ""
            } else {
                INSERTS[rng.below(INSERTS.len())]
            };
            let change = TextDocumentContentChangeEvent {
                range: Some(Range::new(position(&text, at), position(&text, end))),
                range_length: None,
                text: insert.to_owned(),
            };
            doc.apply(step + 2, vec![change]);
            let mut expected_text = text.clone();
            expected_text.replace_range(at..end, insert);
            assert_eq!(doc.text.as_str(), expected_text, "{name} step {step}");
            if step % 3 != 0 {
                continue;
            }
            let (got, slots) =
                host().diagnose_notebook_kept(&doc.text, doc.slots.clone(), &ctx(), &mut cache);
            doc.slots = slots;
            let (fresh, _) =
                host().diagnose_notebook_kept(&doc.text, None, &ctx(), &mut Cache::default());
            assert_eq!(view(&got), view(&fresh), "{name} step {step}");
        }
    }
}

#[test]
fn slots_follow_edits_inside_a_cell_and_drop_on_edits_across_cells() {
    let raw = r#"{"cells":[{"source":"a","outputs":[]},{"source":"b","outputs":[]}],"nbformat":4}"#;
    let mut doc = Document::new(1, DocKind::NotebookJson, raw.to_owned());
    let (_, slots) = host().diagnose_notebook_kept(&doc.text, None, &ctx(), &mut Cache::default());
    doc.slots = slots;
    let b = raw.find("\"b\"").unwrap() + 1;
    let at = Position::new(0, b as u32);
    doc.apply(
        2,
        vec![TextDocumentContentChangeEvent {
            range: Some(Range::new(at, at)),
            range_length: None,
            text: "xyz".into(),
        }],
    );
    let slots = doc.slots.clone().unwrap();
    assert_eq!(
        slots[1].span.slice(&doc.text),
        r#"{"source":"xyzb","outputs":[]}"#
    );
    assert_eq!(
        slots[0].span.slice(&doc.text),
        r#"{"source":"a","outputs":[]}"#
    );
    assert!(slots[0].hash.is_some() && slots[1].hash.is_none());
    // From inside the first cell to inside the second: the cells must be found again.
    doc.apply(
        3,
        vec![TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(0, 20), at)),
            range_length: None,
            text: String::new(),
        }],
    );
    assert!(doc.slots.is_none());
}
