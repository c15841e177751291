//! Model awareness over real-shaped inputs: model ids found in scripts, notebooks, shell and YAML
//! fixtures and in the seed reports; resolution through a Hugging Face cache built on disk.

// Test helpers panic on broken fixtures by design.
#![allow(clippy::unwrap_used, clippy::panic)]

use abidoc_knowledge::models::{self, ModelRef, Via};
use abidoc_knowledge::{find_model_mentions, find_models, resolve_model};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/models")
}

/// One line per reference: `line:col id -> family (via)`; checks the span covers the id.
fn render(text: &str, refs: &[ModelRef]) -> String {
    let mut s = String::new();
    for r in refs {
        assert_eq!(&text[r.span.clone()], r.id, "span must cover the id");
        let line = text[..r.span.start].matches('\n').count() + 1;
        let col = r.span.start - text[..r.span.start].rfind('\n').map_or(0, |i| i + 1);
        let info = resolve_model(&r.id, Some(Path::new("/nonexistent-hf-home")));
        let fam = info.model_type.as_deref().unwrap_or("?");
        let kernels = match info.uses_mamba_kernels {
            Some(true) => "mamba kernels",
            Some(false) => "no mamba kernels",
            None => "unknown",
        };
        let _ = writeln!(
            s,
            "{line}:{col} {} -> {fam}, {kernels} ({:?})",
            r.id, info.via
        );
    }
    s
}

fn check_fixture(name: &str) -> String {
    let text = std::fs::read_to_string(fixtures().join(name)).unwrap();
    render(&text, &find_models(&text))
}

#[test]
fn finds_models_in_python() {
    insta::assert_snapshot!(check_fixture("train_lora.py"));
}

#[test]
fn finds_models_in_shell() {
    insta::assert_snapshot!(check_fixture("run.sh"));
}

#[test]
fn finds_models_in_yaml() {
    insta::assert_snapshot!(check_fixture("config.yaml"));
}

#[test]
fn finds_models_in_raw_notebook_json() {
    insta::assert_snapshot!(check_fixture("granite_notebook.ipynb"));
}

#[test]
fn seeds_models_and_mentions() {
    let dir = Path::new("/work/shared/seeds");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return; // the shared seeds are not on this machine
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    let mut out = String::new();
    for p in paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
    {
        let text = std::fs::read_to_string(p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy();
        let _ = writeln!(
            out,
            "== {name}\n-- code:\n{}-- mentions:\n{}",
            render(&text, &find_models(&text)),
            render(&text, &find_model_mentions(&text))
        );
    }
    insta::assert_snapshot!(out);
}

/// Lays out `models--org--name/{refs/main,snapshots/<rev>/config.json}` as huggingface_hub does.
fn cache_model(hub: &Path, id: &str, rev: &str, config: &str, point_main: bool) -> PathBuf {
    let repo = hub.join(format!("models--{}", id.replace('/', "--")));
    let snap = repo.join("snapshots").join(rev);
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    if point_main {
        std::fs::write(repo.join("refs/main"), rev).unwrap();
    }
    let cfg = snap.join("config.json");
    std::fs::write(&cfg, config).unwrap();
    cfg
}

const GRANITE_32: &str = r#"{
  "architectures": ["GraniteForCausalLM"],
  "attention_multiplier": 0.0078125,
  "hidden_size": 4096,
  "model_type": "granite",
  "num_hidden_layers": 40,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.47.0"
}"#;

const GRANITE_40_H_MICRO: &str = r#"{
  "architectures": ["GraniteMoeHybridForCausalLM"],
  "hidden_size": 2048,
  "layer_types": ["mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba"],
  "mamba_d_conv": 4,
  "mamba_d_state": 128,
  "model_type": "granitemoehybrid",
  "num_hidden_layers": 8
}"#;

#[test]
fn resolves_from_hf_cache() {
    let home = tempfile::tempdir().unwrap();
    let hub = home.path().join("hub");
    let g32 = cache_model(
        &hub,
        "ibm-granite/granite-3.2-8b-instruct",
        "0e1f2a",
        GRANITE_32,
        true,
    );
    let g40 = cache_model(
        &hub,
        "ibm-granite/granite-4.0-h-micro",
        "9a8b7c",
        GRANITE_40_H_MICRO,
        false,
    );

    let info = resolve_model("ibm-granite/granite-3.2-8b-instruct", Some(home.path()));
    assert_eq!(info.via, Via::Config(g32));
    assert_eq!(info.model_type.as_deref(), Some("granite"));
    assert_eq!(info.uses_mamba_kernels, Some(false));
    assert_eq!(info.needs_package("mamba-ssm"), Some(false));
    assert_eq!(info.needs_package("causal_conv1d"), Some(false));
    assert_eq!(info.architectures, vec!["GraniteForCausalLM".to_string()]);

    let info = resolve_model("ibm-granite/granite-4.0-h-micro", Some(home.path()));
    assert_eq!(info.via, Via::Config(g40));
    assert_eq!(info.model_type.as_deref(), Some("granitemoehybrid"));
    assert_eq!(info.uses_mamba_kernels, Some(true));
    assert_eq!(info.needs_package("mamba-ssm"), Some(true));
    assert_eq!(info.needs_package("causal-conv1d"), Some(true));
}

#[test]
fn config_beats_name_and_layer_list_refines() {
    let home = tempfile::tempdir().unwrap();
    // A repo whose name says hybrid but whose config has attention layers only.
    let cfg = r#"{"model_type": "granitemoehybrid", "layer_types": ["attention", "attention"]}"#;
    cache_model(
        &home.path().join("hub"),
        "acme/granite-4.0-h-attn-only",
        "r1",
        cfg,
        true,
    );
    let info = resolve_model("acme/granite-4.0-h-attn-only", Some(home.path()));
    assert_eq!(info.uses_mamba_kernels, Some(false));
    assert_eq!(info.needs_package("mamba-ssm"), Some(false));

    // A private name no pattern knows, resolved only through its config.
    cache_model(
        &home.path().join("hub"),
        "acme/secret-7b",
        "r1",
        r#"{"model_type":"jamba"}"#,
        true,
    );
    let info = resolve_model("acme/secret-7b", Some(home.path()));
    assert_eq!(info.family.map(|f| f.model_type.as_str()), Some("jamba"));
    assert_eq!(info.uses_mamba_kernels, Some(true));

    // An unknown model_type with a Mamba architecture is still recognised as using the kernels.
    cache_model(
        &home.path().join("hub"),
        "acme/new-ssm",
        "r1",
        r#"{"model_type":"supermamba","architectures":["SuperMambaForCausalLM"]}"#,
        true,
    );
    let info = resolve_model("acme/new-ssm", Some(home.path()));
    assert!(info.family.is_none());
    assert_eq!(info.uses_mamba_kernels, Some(true));
    assert_eq!(info.needs_package("mamba-ssm"), Some(true));
    assert_eq!(info.needs_package("flash-attn"), None);
}

#[test]
fn local_directory_and_fallbacks() {
    let dir = tempfile::tempdir().unwrap();
    let model_dir = dir.path().join("my-finetune");
    std::fs::create_dir_all(&model_dir).unwrap();
    std::fs::write(
        model_dir.join("config.json"),
        r#"{"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"]}"#,
    )
    .unwrap();
    let id = model_dir.to_string_lossy().to_string();
    let info = resolve_model(&id, Some(dir.path()));
    assert_eq!(info.via, Via::Config(model_dir.join("config.json")));
    assert_eq!(info.uses_mamba_kernels, Some(false));

    // Not cached: the name pattern decides.
    let info = resolve_model("ibm-granite/granite-4.0-h-tiny", Some(dir.path()));
    assert_eq!(info.via, Via::NamePattern);
    assert_eq!(info.uses_mamba_kernels, Some(true));
    let info = resolve_model("someone/whatever-7b", Some(dir.path()));
    assert_eq!(info.via, Via::Unknown);
    assert_eq!(info.uses_mamba_kernels, None);
    assert_eq!(info.needs_package("mamba-ssm"), None);
}

#[test]
fn bad_configs_never_panic() {
    let home = tempfile::tempdir().unwrap();
    let hub = home.path().join("hub");
    cache_model(&hub, "x/broken", "r", "{not json", true);
    cache_model(&hub, "x/array", "r", "[1,2,3]", true);
    cache_model(
        &hub,
        "x/typed",
        "r",
        r#"{"model_type": 7, "architectures": "no", "layer_types": 3}"#,
        true,
    );
    let big = format!(
        "{{\"model_type\":\"llama\",\"pad\":\"{}\"}}",
        "x".repeat(5 << 20)
    );
    cache_model(&hub, "x/huge", "r", &big, true);
    for id in [
        "x/broken",
        "x/array",
        "x/typed",
        "x/huge",
        "",
        "../../etc",
        "a/b/c/d",
        "x/\0",
    ] {
        let info = resolve_model(id, Some(home.path()));
        assert!(
            !matches!(info.via, Via::Config(_)) || id == "x/typed",
            "{id}: {info:?}"
        );
    }
    // A refs/main pointing outside the snapshots is ignored; the snapshot found by listing is used.
    let cfg = cache_model(&hub, "x/refs", "good", r#"{"model_type":"mamba"}"#, false);
    std::fs::write(hub.join("models--x--refs/refs/main"), "../../../../etc").unwrap();
    assert_eq!(
        resolve_model("x/refs", Some(home.path())).via,
        Via::Config(cfg)
    );
}

#[test]
fn every_family_example_resolves_by_name_to_its_family() {
    let mut wrong = Vec::new();
    for fam in models::families() {
        for ex in &fam.examples {
            let got = models::family_for_model_id(ex).map(|(f, _)| f.model_type.as_str());
            if got != Some(fam.model_type.as_str()) {
                wrong.push(format!("{ex}: {got:?}, expected {}", fam.model_type));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Every lookup on arbitrary cuts of real texts returns without panicking, and spans stay inside
/// the text on char boundaries.
#[test]
fn hostile_inputs_never_panic() {
    let mut texts: Vec<String> = vec![
        String::new(),
        "\"".into(),
        "\",".into(),
        "from_pretrained(".into(),
        "--model".into(),
        "--model=".into(),
        "model_name = '".into(),
        "x = \"\"\"\nfrom_pretrained(\"a/b\")\n\"\"\"".into(),
        "  \"\\\\\\\"\\n\",".into(),
        "é/ü: ünïcode-модель/имя 模型/名字 --model 模型/名字".into(),
    ];
    for dir in ["/work/shared/seeds", "tests/fixtures/models"] {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        if let Ok(entries) = std::fs::read_dir(&base) {
            for e in entries.filter_map(Result::ok) {
                if let Ok(t) = std::fs::read_to_string(e.path()) {
                    texts.push(t);
                }
            }
        }
    }
    if let Ok(t) = std::fs::read_to_string("/work/shared/corpus/real_cases.jsonl") {
        texts.push(t);
    }
    for text in &texts {
        let cuts: Vec<usize> = (0..=text.len())
            .step_by((text.len() / 300).max(13))
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &cut in &cuts {
            for part in [&text[..cut], &text[cut..]] {
                for r in find_models(part)
                    .into_iter()
                    .chain(find_model_mentions(part))
                {
                    assert!(part.get(r.span.clone()).is_some(), "bad span {r:?}");
                }
            }
        }
        for word in text.split_whitespace().take(5000) {
            let _ = abidoc_knowledge::package_for_path(word);
            let _ = abidoc_knowledge::package_for_module(word);
            let _ = abidoc_knowledge::Version::parse(word);
            let _ = abidoc_knowledge::torch_cxx11_abi(word);
            let _ = models::family_for_model_id(word);
        }
    }
}
