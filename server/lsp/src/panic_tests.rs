//! A panic inside an analysis stays inside its request or notification: the real server, driven
//! in-process by the integration tests' client, panics on purpose wherever a text carries
//! [`crate::handlers::TEST_PANIC_MARKER`] (a hook compiled only into these unit tests), and the
//! next messages are answered normally.

#![allow(clippy::unwrap_used, clippy::panic)]

#[path = "../tests/common/mod.rs"]
mod common;

use crate::handlers::TEST_PANIC_MARKER;
use common::{Client, data, text_only};
use serde_json::json;
use std::time::Duration;

const LOG_URI: &str = "file:///work/seed000.log";

fn marked(text: &str) -> String {
    format!("{text}\n{TEST_PANIC_MARKER}\n")
}

fn is_internal_error(response: &serde_json::Value) -> bool {
    response["error"]["code"] == -32603
        && response["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(TEST_PANIC_MARKER))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_request_is_answered_with_an_error_and_the_session_goes_on() {
    let text = data("seed000.log");
    let mut client = Client::initialized(json!({}), text_only()).await;
    client.open(LOG_URI, "log", 1, &text).await;
    let published = client.diagnostics(LOG_URI, Some(1)).await;
    let abi = published["diagnostics"][0].clone();

    // A panic in the async part of the handler (the URI carries the marker).
    let bad_uri = format!("file:///work/{TEST_PANIC_MARKER}.log");
    client.open(&bad_uri, "python", 1, "import torch\n").await;
    let response = client
        .request_full(
            "textDocument/hover",
            json!({"textDocument": {"uri": bad_uri}, "position": {"line": 0, "character": 1}}),
        )
        .await;
    assert!(is_internal_error(&response), "{response:#}");

    // A panic on the blocking pool, inside the hover analysis.
    let py_uri = "file:///work/train.py";
    client
        .open(py_uri, "python", 1, &marked("import torch"))
        .await;
    let response = client
        .request_full(
            "textDocument/hover",
            json!({"textDocument": {"uri": py_uri}, "position": {"line": 0, "character": 1}}),
        )
        .await;
    assert!(is_internal_error(&response), "{response:#}");

    // A panic while the document store is locked: the lock is poisoned and tolerated after.
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": LOG_URI, "version": 2}, "contentChanges": [{"text": marked(&text)}]}),
        )
        .await;
    let _ = client
        .maybe(Duration::from_millis(500), |m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|s| s.contains(TEST_PANIC_MARKER))
        })
        .await;
    let response = client
        .request_full("textDocument/codeAction", json!({"textDocument": {"uri": LOG_URI}, "range": abi["range"], "context": {"diagnostics": [abi]}}))
        .await;
    assert!(response.get("error").is_some(), "{response:#}");

    // Everything after is answered normally: the document is analysed again, hovers and code
    // actions work on the same store.
    client
        .notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": LOG_URI, "version": 3}, "contentChanges": [{"text": text}]}),
        )
        .await;
    let published = client.diagnostics(LOG_URI, Some(3)).await;
    assert_eq!(published["diagnostics"][0]["code"], "abi-mismatch");
    let actions = client
        .request("textDocument/codeAction", json!({"textDocument": {"uri": LOG_URI}, "range": abi["range"], "context": {"diagnostics": [abi]}}))
        .await;
    assert!(!actions.as_array().unwrap().is_empty(), "{actions:#}");
    let (line, col) = common::position_of(&text, "_ZN3c10");
    let hover = client.hover(LOG_URI, line, col + 5).await;
    assert!(hover["contents"]["value"].is_string(), "{hover:#}");
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_notification_is_logged_and_the_next_is_handled() {
    let text = data("seed000.log");
    let mut client = Client::initialized(json!({}), text_only()).await;
    client
        .notify(
            "abidoc/terminalOutput",
            json!({"commandLine": "bad", "terminalId": "1", "text": marked(&text)}),
        )
        .await;
    let logged = client
        .notification("window/logMessage", |p| {
            p["message"].as_str().is_some_and(|m| {
                m.contains("terminal output failed") && m.contains(TEST_PANIC_MARKER)
            })
        })
        .await;
    assert_eq!(logged["type"], 1);
    // The same worker, the same terminal: answered.
    client
        .notify(
            "abidoc/terminalOutput",
            json!({"commandLine": "good", "terminalId": "1", "text": text}),
        )
        .await;
    let diagnosis = client
        .notification("abidoc/terminalDiagnosis", |_| true)
        .await;
    assert_eq!(diagnosis["commandLine"], "good");
    assert_eq!(diagnosis["diagnostics"][0]["code"], "abi-mismatch");

    // Cell outputs: the same.
    let nb = "file:///work/p.ipynb";
    let cell = "vscode-notebook-cell:/work/p.ipynb#C0";
    client.notify("notebookDocument/didOpen", json!({"notebookDocument": {"uri": nb, "notebookType": "jupyter-notebook", "version": 1, "cells": [{"kind": 2, "document": cell}]}, "cellTextDocuments": [{"uri": cell, "languageId": "python", "version": 1, "text": "import mamba_ssm\n"}]})).await;
    for output in [marked(&text), text.clone()] {
        client.notify("abidoc/cellOutputs", json!({"notebookUri": nb, "cells": [{"cellUri": cell, "outputs": [{"mime": "text/plain", "text": output}]}]})).await;
        if output.contains(TEST_PANIC_MARKER) {
            client
                .notification("window/logMessage", |p| {
                    p["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("cell outputs failed"))
                })
                .await;
        }
    }
    let published = client.diagnostics(cell, None).await;
    assert_eq!(published["diagnostics"][0]["code"], "abi-mismatch");
    client.shutdown().await;
}
