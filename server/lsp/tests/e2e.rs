//! End-to-end: the real server over an in-memory duplex, driven the way an editor drives it.

#![allow(clippy::unwrap_used)] // helpers outside #[test] fns: a panic is a failing test

mod common;

use common::{Client, codes, data, position_of, text_only};
use serde_json::{Value, json};
use std::time::Duration;

const LOG_URI: &str = "file:///work/logs/seed000.log";
const NB_URI: &str = "file:///work/train.ipynb";
const MANGLED: &str = "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib";

/// What the VS Code extension advertises: it runs both client-side commands.
static CLIENT_COMMANDS: std::sync::LazyLock<Value> = std::sync::LazyLock::new(
    || json!({"experimental": {"commands": {"commands": ["abidoc.runInTerminal", "abidoc.insertCell"]}}}),
);

fn lines_of<'a>(text: &'a str, d: &Value) -> (&'a str, u64) {
    let line = d["range"]["start"]["line"].as_u64().unwrap();
    (text.lines().nth(line as usize).unwrap_or(""), line)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_reports_capabilities() {
    let mut client = Client::start().await;
    let result = client.initialize(json!({}), Value::Null).await;
    insta::assert_json_snapshot!(result, {".serverInfo.version" => "[version]"});
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_open_publishes_diagnostics_with_related_lines() {
    let text = data("seed000.log");
    let mut client = Client::initialized(json!({}), text_only()).await;
    client.open(LOG_URI, "log", 1, &text).await;
    let published = client.diagnostics(LOG_URI, Some(1)).await;
    assert!(
        codes(&published).iter().any(|c| c == "abi-mismatch"),
        "{published:#}"
    );
    let abi = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "abi-mismatch")
        .unwrap();
    assert_eq!(abi["source"], "abidoc");
    assert_eq!(abi["severity"], 1);
    let (line, _) = lines_of(&text, abi);
    assert!(
        line.contains("undefined symbol") || line.contains("selective_scan_cuda"),
        "{line}"
    );
    // The same undefined symbol appears twice: every other occurrence is a related location.
    let related = abi["relatedInformation"]
        .as_array()
        .expect("related locations");
    assert!(!related.is_empty());
    for r in related {
        assert_eq!(r["location"]["uri"], LOG_URI);
    }
    insta::assert_json_snapshot!(published);
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ipynb_as_text_lands_on_the_traceback_json_line() {
    let raw = data("train.ipynb");
    let mut client = Client::initialized(json!({}), text_only()).await;
    client.open(NB_URI, "json", 7, &raw).await;
    let published = client.diagnostics(NB_URI, Some(7)).await;
    let diags = published["diagnostics"].as_array().unwrap();
    let abi = diags
        .iter()
        .find(|d| d["code"] == "abi-mismatch")
        .unwrap_or_else(|| panic!("{published:#}"));
    let (line, _) = lines_of(&raw, abi);
    assert!(
        line.contains("undefined symbol"),
        "diagnostic on JSON line {line:?}"
    );
    insta::assert_json_snapshot!(published);
    client.shutdown().await;
}

fn notebook_open(cell_sources: &[&str]) -> Value {
    let cells: Vec<Value> = (0..cell_sources.len())
        .map(|i| json!({"kind": 2, "document": format!("vscode-notebook-cell:/work/train.ipynb#C{i}")}))
        .collect();
    let docs: Vec<Value> = cell_sources
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"uri": format!("vscode-notebook-cell:/work/train.ipynb#C{i}"), "languageId": "python", "version": 1, "text": s}))
        .collect();
    json!({
        "notebookDocument": {"uri": NB_URI, "notebookType": "jupyter-notebook", "version": 1, "cells": cells},
        "cellTextDocuments": docs
    })
}

fn vscode_error_output() -> Value {
    let error = json!({
        "name": "ImportError",
        "message": format!("/opt/app-root/lib64/python3.12/site-packages/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so: undefined symbol: {MANGLED}"),
        "stack": "\u{1b}[0;31m---------------------------------------------------------------------------\u{1b}[0m\n\u{1b}[0;31mImportError\u{1b}[0m                               Traceback (most recent call last)\nCell \u{1b}[0;32mIn[2], line 2\u{1b}[0m\n\u{1b}[1;32m      1\u{1b}[0m \u{1b}[38;5;28;01mimport\u{1b}[39;00m \u{1b}[38;5;21;01mtorch\u{1b}[39;00m\n\u{1b}[0;32m----> 2\u{1b}[0m \u{1b}[38;5;28;01mimport\u{1b}[39;00m \u{1b}[38;5;21;01mmamba_ssm\u{1b}[39;00m\n"
    });
    json!({"mime": "application/vnd.code.notebook.error", "text": error.to_string()})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notebook_sync_and_cell_outputs_publish_on_the_cell() {
    let mut client = Client::initialized(json!({}), text_only()).await;
    let cells = [
        "from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained(\"ibm-granite/granite-3.2-8b-instruct\")\n",
        "import torch\nimport mamba_ssm\n",
    ];
    client
        .notify("notebookDocument/didOpen", notebook_open(&cells))
        .await;
    let cell_uri = "vscode-notebook-cell:/work/train.ipynb#C1";
    client
        .notify(
            "abidoc/cellOutputs",
            json!({"notebookUri": NB_URI, "cells": [{"cellUri": cell_uri, "executionOrder": 2, "success": false, "outputs": [vscode_error_output()]}]}),
        )
        .await;
    let published = client.diagnostics(cell_uri, None).await;
    let diags = published["diagnostics"].as_array().unwrap();
    let abi = diags
        .iter()
        .find(|d| d["code"] == "abi-mismatch")
        .unwrap_or_else(|| panic!("{published:#}"));
    // `Cell In[2], line 2`: the import of mamba_ssm, the whole line.
    assert_eq!(
        abi["range"],
        json!({"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 16}})
    );
    insta::assert_json_snapshot!(published);

    // The fix is an edit of the cell: a `%pip` line at its top.
    let actions = client
        .request("textDocument/codeAction", json!({"textDocument": {"uri": cell_uri}, "range": abi["range"], "context": {"diagnostics": [abi]}}))
        .await;
    let with_edit = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["edit"]["changes"][cell_uri].is_array())
        .unwrap_or_else(|| panic!("{actions:#}"));
    let new_text = with_edit["edit"]["changes"][cell_uri][0]["newText"]
        .as_str()
        .unwrap();
    assert!(
        new_text.starts_with("%pip ") && new_text.ends_with('\n'),
        "{new_text}"
    );

    // Hovering the diagnosed line explains it.
    let hover = client.hover(cell_uri, 1, 8).await;
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("abi-mismatch"),
        "{hover:#}"
    );

    // Clearing the outputs clears the diagnostics.
    client
        .notify(
            "abidoc/cellOutputs",
            json!({"notebookUri": NB_URI, "cells": [{"cellUri": cell_uri, "outputs": []}]}),
        )
        .await;
    let cleared = client
        .notification("textDocument/publishDiagnostics", |p| {
            p["uri"] == cell_uri && p["diagnostics"] == json!([])
        })
        .await;
    assert_eq!(cleared["diagnostics"], json!([]));
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_on_a_mangled_symbol() {
    let text = data("seed000.log");
    let mut client = Client::initialized(json!({}), text_only()).await;
    client.open(LOG_URI, "log", 1, &text).await;
    let _ = client.diagnostics(LOG_URI, Some(1)).await;
    let (line, col) = position_of(&text, MANGLED);
    let hover = client.hover(LOG_URI, line, col + 10).await;
    let value = hover["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("{hover:#}"));
    assert!(
        value.contains(
            "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)"
        ),
        "{value}"
    );
    assert_eq!(
        hover["range"]["start"],
        json!({"line": line, "character": col})
    );
    insta::assert_json_snapshot!(hover);
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_actions_for_seed_000() {
    let text = data("seed000.log");
    let mut client = Client::initialized(CLIENT_COMMANDS.clone(), text_only()).await;
    client.open(LOG_URI, "log", 1, &text).await;
    let published = client.diagnostics(LOG_URI, Some(1)).await;
    let abi = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "abi-mismatch")
        .cloned()
        .unwrap_or_else(|| panic!("{published:#}"));
    let actions = client
        .request("textDocument/codeAction", json!({"textDocument": {"uri": LOG_URI}, "range": abi["range"], "context": {"diagnostics": [abi]}}))
        .await;
    let actions = actions.as_array().unwrap_or_else(|| panic!("{actions:#}"));
    assert!(actions.iter().all(|a| a["kind"] == "quickfix"));
    let preferred: Vec<&Value> = actions
        .iter()
        .filter(|a| a["isPreferred"] == true)
        .collect();
    assert_eq!(preferred.len(), 1, "{actions:#?}");
    let cmd = &preferred[0]["command"];
    assert_eq!(cmd["command"], "abidoc.runInTerminal");
    let argv: Vec<&str> = cmd["arguments"][0]["commands"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        argv.contains(&"uninstall") && argv.contains(&"mamba-ssm"),
        "{argv:?}"
    );
    insta::assert_json_snapshot!(actions);

    // In the notebook opened as text the same fix inserts a cell before the failing one.
    let raw = data("train.ipynb");
    client.open(NB_URI, "json", 1, &raw).await;
    let published = client.diagnostics(NB_URI, Some(1)).await;
    let abi = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "abi-mismatch")
        .cloned()
        .unwrap();
    let actions = client
        .request("textDocument/codeAction", json!({"textDocument": {"uri": NB_URI}, "range": abi["range"], "context": {"diagnostics": [abi]}}))
        .await;
    let insert = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["command"]["command"] == "abidoc.insertCell")
        .unwrap_or_else(|| panic!("{actions:#}"));
    assert_eq!(insert["command"]["arguments"][0]["notebookUri"], NB_URI);
    assert_eq!(insert["command"]["arguments"][0]["cellIndex"], 2);
    client.shutdown().await;
}

/// A client that does not list the client-side commands (Helix, Emacs, a plain Neovim) would
/// send them back to the server: it gets `abidoc.showFix`, which the server carries out by
/// showing the fix, never by running it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_commands_only_for_clients_that_list_them() {
    let text = data("seed000.log");
    let raw = data("train.ipynb");
    let all_commands = |actions: &Value| -> Vec<String> {
        actions
            .as_array()
            .unwrap_or_else(|| panic!("{actions:#}"))
            .iter()
            .filter_map(|a| a["command"]["command"].as_str().map(str::to_owned))
            .collect()
    };
    let listing = [
        (json!({}), false),
        (
            json!({"experimental": {"commands": {"commands": "abidoc.runInTerminal"}}}),
            false,
        ),
        (CLIENT_COMMANDS.clone(), true),
    ];
    for (capabilities, listed) in listing {
        let mut client = Client::initialized(capabilities.clone(), text_only()).await;
        let mut seen = Vec::new();
        for (uri, language, text) in [(LOG_URI, "log", &text), (NB_URI, "json", &raw)] {
            client.open(uri, language, 1, text).await;
            let published = client.diagnostics(uri, Some(1)).await;
            let abi = published["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["code"] == "abi-mismatch")
                .cloned()
                .unwrap_or_else(|| panic!("{published:#}"));
            let actions = client
                .request("textDocument/codeAction", json!({"textDocument": {"uri": uri}, "range": abi["range"], "context": {"diagnostics": [abi]}}))
                .await;
            seen.extend(all_commands(&actions));
            if !listed {
                // The server runs nothing: it shows the fix and returns its text.
                let show = &actions[0]["command"];
                let shown = client
                    .request(
                        "workspace/executeCommand",
                        json!({"command": show["command"], "arguments": show["arguments"]}),
                    )
                    .await;
                let shown = shown.as_str().unwrap_or_else(|| panic!("{shown:#}"));
                assert!(shown.contains("pip uninstall -y mamba-ssm"), "{shown}");
                let message = client.notification("window/showMessage", |_| true).await;
                assert_eq!(message["message"], shown);
            }
        }
        let client_side = ["abidoc.runInTerminal", "abidoc.insertCell"];
        if listed {
            for command in client_side {
                assert!(
                    seen.iter().any(|c| c == command),
                    "{capabilities}: {seen:?}"
                );
            }
            assert!(!seen.iter().any(|c| c == "abidoc.showFix"), "{seen:?}");
        } else {
            assert!(
                !seen.iter().any(|c| client_side.contains(&c.as_str())),
                "{capabilities}: {seen:?}"
            );
            assert!(seen.iter().all(|c| c == "abidoc.showFix"), "{seen:?}");
        }
        client.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rapid_edits_stay_ordered_and_only_the_last_version_is_published() {
    let mut client = Client::initialized(json!({}), text_only()).await;
    let uri = "file:///work/logs/typing.log";
    client.open(uri, "log", 0, "").await;
    let _ = client.diagnostics(uri, Some(0)).await;
    let last = format!("ImportError: /sp/selective_scan_cuda.so: undefined symbol: {MANGLED}\n");
    for version in 1..=50 {
        // Versions 1..49 type noise; version 50 replaces everything with the real error.
        let text = if version == 50 {
            last.clone()
        } else {
            format!("noise {version} {}\n", "x".repeat(version))
        };
        client
            .notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}, "text": text}]}),
            )
            .await;
    }
    let (line, col) = position_of(&last, MANGLED);
    let hover = client.hover(uri, line, col + 3).await;
    let value = hover["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("hover saw an older text: {hover:#}"));
    assert!(value.contains("c10_cuda_check_implementation"), "{value}");
    // Leading + trailing edge: the first edit of the burst may be diagnosed at once (and is
    // published only if still current), the rest coalesce into the analysis of version 50.
    let mut versions = Vec::new();
    loop {
        let published = client.diagnostics(uri, None).await;
        let version = published["version"].as_i64().unwrap_or(-1);
        versions.push(version);
        if version == 50 {
            assert!(
                !published["diagnostics"].as_array().unwrap().is_empty(),
                "{published:#}"
            );
            break;
        }
        assert!(version < 50, "{published:#}");
    }
    assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
    assert!(versions.len() <= 3, "a burst is coalesced: {versions:?}");
    assert!(
        client
            .maybe(Duration::from_millis(600), |m| m["method"]
                == "textDocument/publishDiagnostics")
            .await
            .is_none()
    );
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_and_document_links_see_the_latest_text() {
    let dir = tempfile::tempdir().unwrap();
    let py = dir.path().join("lora.py");
    std::fs::write(&py, "import x\n").unwrap();
    let so = dir
        .path()
        .join("selective_scan_cuda.cpython-312-x86_64-linux-gnu.so");
    std::fs::write(&so, b"\x7fELF").unwrap();
    let mut client = Client::initialized(json!({}), text_only()).await;
    let uri = "file:///work/logs/links.log";
    client.open(uri, "log", 1, "start\n").await;
    for version in 2..=30 {
        client
            .notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [{"range": {"start": {"line": version - 1, "character": 0}, "end": {"line": version - 1, "character": 0}}, "text": format!("line {version}\n")}]}),
            )
            .await;
    }
    let tail = format!(
        "  File \"{}\", line 3, in <module>\nImportError: {}: undefined symbol: x\nOSError: /nonexistent/libfoo.so.1: cannot open\n",
        py.display(),
        so.display()
    );
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 31},
                   "contentChanges": [{"range": {"start": {"line": 30, "character": 0}, "end": {"line": 30, "character": 0}}, "text": tail}]}),
        )
        .await;
    let links = client
        .request(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let links = links.as_array().unwrap();
    assert_eq!(links.len(), 2, "{links:#?}");
    assert_eq!(
        links[0]["range"]["start"],
        json!({"line": 30, "character": 8})
    );
    let target = links[0]["target"].as_str().unwrap();
    assert!(
        target.starts_with("file:///") && target.ends_with("lora.py#L3"),
        "{target}"
    );
    assert_eq!(
        links[1]["range"]["start"],
        json!({"line": 31, "character": 13})
    );
    assert!(links[1]["target"].as_str().unwrap().ends_with(".so"));
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_output_gets_a_terminal_diagnosis() {
    let mut client = Client::initialized(json!({}), text_only()).await;
    let text = data("seed000.log");
    client
        .notify(
            "abidoc/terminalOutput",
            json!({"commandLine": "python train.py", "cwd": "/work", "exitCode": 1, "text": text}),
        )
        .await;
    let diagnosis = client
        .notification("abidoc/terminalDiagnosis", |_| true)
        .await;
    assert_eq!(diagnosis["commandLine"], "python train.py");
    let diags = diagnosis["diagnostics"].as_array().unwrap();
    let abi = diags
        .iter()
        .find(|d| d["code"] == "abi-mismatch")
        .unwrap_or_else(|| panic!("{diagnosis:#}"));
    assert_eq!(abi["severity"], "error");
    let fix = &abi["fixes"][0];
    for key in ["title", "commands", "env", "notebook_cell", "preferred"] {
        assert!(fix.get(key).is_some(), "fix lacks {key}: {fix:#}");
    }
    insta::assert_json_snapshot!(diagnosis);
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configuration_disables_codes_from_init_options_and_pull() {
    let text = data("seed000.log");
    // initializationOptions turn abi-mismatch off.
    let mut client = Client::initialized(
        json!({}),
        json!({"useEnvironment": false, "disabledCodes": ["abi-mismatch"]}),
    )
    .await;
    client.open(LOG_URI, "log", 1, &text).await;
    let published = client.diagnostics(LOG_URI, Some(1)).await;
    assert!(
        !codes(&published).iter().any(|c| c == "abi-mismatch"),
        "{published:#}"
    );
    client.shutdown().await;

    // workspace/configuration (pulled after `initialized`) turns it off too, and re-diagnoses.
    let mut client = Client::start().await;
    client.configuration = json!({"useEnvironment": false, "disabledCodes": ["abi-mismatch"]});
    client
        .initialize(json!({"workspace": {"configuration": true}}), Value::Null)
        .await;
    client.open(LOG_URI, "log", 1, &text).await;
    let mut last = client.diagnostics(LOG_URI, Some(1)).await;
    while let Some(next) = client
        .maybe(Duration::from_millis(800), |m| {
            m["method"] == "textDocument/publishDiagnostics"
        })
        .await
    {
        last = next["params"].clone();
    }
    assert!(
        client
            .server_requests
            .contains(&"workspace/configuration".to_owned())
    );
    assert!(
        !codes(&last).iter().any(|c| c == "abi-mismatch"),
        "{last:#}"
    );
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn survives_malformed_messages() {
    let mut client = Client::initialized(json!({}), text_only()).await;
    client.send_raw(b"{ this is not json").await;
    let parse_error = client.wait_for(|m| m["error"]["code"] == -32700).await;
    assert_eq!(parse_error["id"], Value::Null);
    client
        .notify("textDocument/didOpen", json!({"textDocument": {"uri": 5}}))
        .await;
    client.notify("textDocument/didChange", json!({"textDocument": {"uri": "file:///never/opened.log", "version": 3}, "contentChanges": [{"text": "x"}]})).await;
    client
        .notify("abidoc/cellOutputs", json!({"cells": "nope"}))
        .await;
    client.notify("abidoc/cellOutputs", json!({"notebookUri": "vscode-notebook-cell:/x#1", "cells": [{"cellUri": "vscode-notebook-cell:/x#1", "outputs": [{"mime": "application/vnd.code.notebook.error", "text": "{\"stack\": 5"}]}]})).await;
    client.notify("notebookDocument/didChange", json!({"notebookDocument": {"uri": NB_URI, "version": 2}, "change": {"cells": {"structure": {"array": {"start": 99, "deleteCount": 99}}}}})).await;
    let bad = client
        .request_full("textDocument/hover", json!({"position": "here"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    let unknown = client.request_full("abidoc/noSuchRequest", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601);
    // Positions past the end of the text are clamped.
    client.open("file:///work/x.log", "log", 1, "short\n").await;
    let hover = client.hover("file:///work/x.log", 999, 999).await;
    assert_eq!(hover, Value::Null);
    let scan = client
        .request_full(
            "workspace/executeCommand",
            json!({"command": "abidoc.scanEnvironment", "arguments": []}),
        )
        .await;
    assert!(scan.get("error").is_some() || scan.get("result").is_some());
    client.shutdown().await;
}

/// Document notifications of 1 MiB or more reach the handlers past the framework's reader (the
/// guard's stash): opened, changed as a whole and hovered like small ones, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_documents_are_handled_in_order() {
    let seed = data("seed000.log");
    let filler = format!("{}\n", "noise ".repeat(80)).repeat(3000);
    let big = format!("{filler}{seed}");
    assert!(big.len() > 1 << 20);
    let mut client = Client::initialized(json!({}), text_only()).await;
    client.open(LOG_URI, "log", 1, &big).await;
    let opened = client.diagnostics(LOG_URI, Some(1)).await;
    assert!(
        codes(&opened).contains(&"abi-mismatch".to_owned()),
        "{opened:#}"
    );
    // A whole-text change of the same size, then a small edit right behind it.
    let changed = format!("{filler}{filler}{seed}");
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": LOG_URI, "version": 2}, "contentChanges": [{"text": changed}]}),
        )
        .await;
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": LOG_URI, "version": 3}, "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}]}),
        )
        .await;
    let last = client.diagnostics(LOG_URI, Some(3)).await;
    assert_eq!(codes(&last), codes(&opened));
    let (line, col) = position_of(&format!("x{changed}"), MANGLED);
    let hover = client.hover(LOG_URI, line, col + 10).await;
    assert!(
        hover["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("c10_cuda_check_implementation")),
        "{hover:#}"
    );
    client.shutdown().await;
}

/// `abidoc.scanEnvironment` answers with every diagnosis in the contract's shape, as
/// `abidoc scan --format json` gives them (`fold`, `package_version`, fixes), so a client's report
/// needs nothing else; a disabled code is left out of the result with its meta.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_environment_returns_every_diagnosis_with_its_fold() {
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lsp-native-fixtures");
    let built = std::process::Command::new("bash")
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/native/build.sh"))
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(built.success(), "tests/native/build.sh failed");
    let sp = |s: &str| out.join(s).display().to_string();
    let settings = json!({
        "sitePackages": [sp("site-packages"), sp("context/site-packages")],
        "disabledCodes": ["libstdcxx-mismatch"],
    });
    let mut client = Client::initialized(json!({}), settings).await;
    let result = client
        .request(
            "workspace/executeCommand",
            json!({"command": "abidoc.scanEnvironment", "arguments": []}),
        )
        .await;
    let diags = result["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(
        result["findings"].as_u64(),
        Some(diags.len() as u64),
        "{result:#}"
    );
    let mamba = diags
        .iter()
        .find(|d| d["package"] == "mamba-ssm")
        .expect("mamba-ssm");
    assert_eq!(mamba["code"], "abi-mismatch");
    assert_eq!(mamba["fold"], "shown");
    assert_eq!(mamba["package_version"], "2.3.0");
    assert!(mamba["fixes"].as_array().is_some_and(|f| f.iter().any(
        |f| f["preferred"] == true && f["commands"].as_array().is_some_and(|c| !c.is_empty())
    )));
    // What no import loads that way is information, folded as such.
    let folded: Vec<&Value> = diags.iter().filter(|d| d["fold"] == "no-import").collect();
    assert!(!folded.is_empty(), "{result:#}");
    assert!(folded.iter().all(|d| d["severity"] == "information"));
    assert!(diags.iter().all(|d| d["code"] != "libstdcxx-mismatch"));
    assert!(diags.iter().all(|d| d["fold"].is_string()));
    client.shutdown().await;
}
