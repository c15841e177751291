//! LSP chaos: the real server (`abidoc_lsp::serve` over an in-memory duplex) fed thousands of
//! seeded random and malformed messages — broken framing, wrong `Content-Length`, invalid JSON,
//! wrong types, unknown methods, requests before `initialize`, huge and invalid ids, deep nesting,
//! random edit sequences with out-of-range and mid-surrogate positions over the real fixtures,
//! notebook sync and `abidoc/*` junk, cancellations — interleaved with valid probes that must be
//! answered per the protocol. Also: memory stays flat over long open/change/close runs, and a
//! client that disconnects mid-request ends the server task cleanly.
//!
//! Invariants checked on every run: every frame the server writes is a JSON-RPC 2.0 message;
//! every request gets exactly one response (a result or an error; a cancelled one a result or
//! `RequestCancelled`), no response comes for an id never sent, every message answered with a
//! `null` id is an error and their number is exactly the number of unreadable messages sent; no
//! panic anywhere in the process; the server task ends without panicking.
//! `CHAOS_SEED=N` replays one seed; `CHAOS_BATCHES=N` runs longer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Mutex, Once};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Tests here measure the process RSS: run them one at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());
static HOOK: Once = Once::new();

/// Records every panic in the process (a panic in a task the server spawns is otherwise only
/// printed by tokio, and the test would pass).
fn watch_panics() {
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Ok(mut p) = PANICS.lock() {
                p.push(info.to_string());
            }
            default(info);
        }));
    });
}

fn assert_no_panics() {
    let panics = PANICS.lock().map(|p| p.clone()).unwrap_or_default();
    assert!(panics.is_empty(), "panics in the process: {panics:#?}");
}

/// SplitMix64: deterministic per seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs: the real fixtures, and junk made from them.

struct Corpus {
    /// Logs, tracebacks and raw notebooks (as text).
    texts: Vec<String>,
    /// Cell sources of the real notebooks.
    cells: Vec<String>,
}

fn corpus() -> Corpus {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in [
        "tests/fixtures/seeds",
        "tests/fixtures/corpus",
        "server/lsp/tests/data",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ["log", "txt", "ipynb"].contains(&ext) {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut texts = Vec::new();
    let mut cells = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "ipynb") {
            let nb: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            for cell in nb["cells"].as_array().into_iter().flatten() {
                let source = match &cell["source"] {
                    Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect(),
                    Value::String(s) => s.clone(),
                    _ => String::new(),
                };
                cells.push(source);
            }
        }
        texts.push(text);
    }
    assert!(
        texts.len() >= 10 && !cells.is_empty(),
        "fixtures not found under {}",
        root.display()
    );
    Corpus { texts, cells }
}

/// Characters that break naive offset arithmetic: surrogate pairs, multi-byte, combining,
/// line-break variants, NUL, BOM, ANSI escapes.
const NASTY: &[&str] = &[
    "😀",
    "𝕏",
    "漢",
    "\u{3000}",
    "\u{a0}",
    "e\u{301}",
    "\u{200b}",
    "\u{feff}",
    "\0",
    "\r\n",
    "\r",
    "\n",
    "\t",
    "\u{1b}[0;31m",
    "\u{2028}",
    "é",
    "\u{10ffff}",
    "\\",
    "\"",
    "}",
];

fn slice_at_chars(text: &str, rng: &mut Rng, max: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let start = rng.below(chars.len());
    let len = rng.below(max.min(chars.len() - start) + 1);
    chars[start..start + len].iter().collect()
}

fn junk_text(rng: &mut Rng, corpus: &Corpus, max_parts: usize) -> String {
    let mut out = String::new();
    for _ in 0..rng.below(max_parts) + 1 {
        match rng.below(4) {
            0 => {
                let s = rng.pick(NASTY);
                out.push_str(s);
            }
            1 => {
                let text = rng.pick(&corpus.texts);
                out.push_str(&slice_at_chars(text, rng, 400));
            }
            2 => {
                let cell = rng.pick(&corpus.cells);
                out.push_str(cell);
            }
            _ => {
                for _ in 0..rng.below(8) {
                    out.push(char::from(b' ' + rng.below(95) as u8));
                }
            }
        }
    }
    out
}

const KEYS: &[&str] = &[
    "uri",
    "textDocument",
    "position",
    "line",
    "character",
    "range",
    "start",
    "end",
    "text",
    "version",
    "contentChanges",
    "cells",
    "notebookUri",
    "cellUri",
    "outputs",
    "mime",
    "id",
    "method",
    "params",
    "jsonrpc",
    "settings",
    "abidoc",
    "structure",
    "array",
    "kind",
];

fn junk_value(rng: &mut Rng, corpus: &Corpus, depth: usize) -> Value {
    match rng.below(if depth == 0 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => match rng.below(5) {
            0 => json!(rng.next() as i64),
            1 => json!(u64::MAX - rng.below(3) as u64),
            2 => json!(-1),
            3 => json!(1.5e300),
            _ => json!(rng.below(100)),
        },
        3 | 4 => json!(junk_text(rng, corpus, 3)),
        5 => json!(format!("file:///{}", junk_text(rng, corpus, 1))),
        6 => Value::Array(
            (0..rng.below(4))
                .map(|_| junk_value(rng, corpus, depth - 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(5))
                .map(|_| {
                    (
                        rng.pick(KEYS).to_string(),
                        junk_value(rng, corpus, depth - 1),
                    )
                })
                .collect(),
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// The peer: writes frames, reads every frame the server writes, keeps the books.

#[derive(Debug)]
struct Pending {
    method: String,
    before_init: bool,
    cancelled: bool,
}

#[derive(Debug, Default)]
struct Stats {
    frames_sent: usize,
    requests: usize,
    results: usize,
    errors: BTreeMap<i64, usize>,
    cancelled_requests: usize,
    notifications_received: BTreeMap<String, usize>,
    server_requests: usize,
}

/// What the server owes for one message.
enum Owed {
    Nothing,
    /// Exactly one response with this id (JSON text of the id).
    Reply(String),
    /// Exactly one error response with a `null` id.
    NullReply,
}

struct Peer {
    writer: WriteHalf<DuplexStream>,
    incoming: mpsc::UnboundedReceiver<Result<Value, String>>,
    server: Option<JoinHandle<()>>,
    next_id: u64,
    pending: HashMap<String, Pending>,
    answered: HashSet<String>,
    null_owed: usize,
    null_seen: usize,
    initialized: bool,
    stats: Stats,
    /// Server→client requests answered with junk when set (configuration is always answered
    /// validly: junk there would turn the environment scan on and tie the test to this machine).
    junk_answers: Option<Rng>,
}

async fn read_frames(
    mut reader: ReadHalf<DuplexStream>,
    tx: mpsc::UnboundedSender<Result<Value, String>>,
) {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let header = String::from_utf8_lossy(&buf[..end]).to_string();
            let Some(len) = header
                .split("\r\n")
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|v| v.trim().parse::<usize>().ok())
            else {
                let _ = tx.send(Err(format!(
                    "server frame without Content-Length: {header:?}"
                )));
                return;
            };
            if buf.len() < end + 4 + len {
                break;
            }
            let body = &buf[end + 4..end + 4 + len];
            let message = serde_json::from_slice::<Value>(body).map_err(|e| {
                format!(
                    "server wrote a body that is not JSON ({e}): {:?}",
                    String::from_utf8_lossy(body)
                )
            });
            buf.drain(..end + 4 + len);
            if tx.send(message).is_err() {
                return;
            }
        }
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// What the server owes for a well-framed body. The guard's own classification
/// (`framing::check`) says which bodies are replaced by an error; the rest is JSON-RPC.
fn owed(body: &[u8]) -> Owed {
    match abidoc_lsp::framing::check(body) {
        Err(replacement) => {
            let r: Value = serde_json::from_slice(&replacement).unwrap();
            if r["id"].is_null() {
                Owed::NullReply
            } else {
                Owed::Reply(r["id"].to_string())
            }
        }
        Ok(()) => {
            let v: Value = serde_json::from_slice(body).unwrap();
            assert_ne!(v["method"], "exit", "the generator must not send exit");
            match (v.get("method"), v.get("id")) {
                (Some(_), Some(Value::Null)) => Owed::NullReply,
                (Some(_), Some(id)) => Owed::Reply(id.to_string()),
                _ => Owed::Nothing,
            }
        }
    }
}

fn check_range(range: &Value, what: &Value) {
    for end in ["start", "end"] {
        for field in ["line", "character"] {
            assert!(
                range[end][field]
                    .as_u64()
                    .is_some_and(|n| n <= u64::from(u32::MAX)),
                "bad range in {what}"
            );
        }
    }
    let start = (
        range["start"]["line"].as_u64(),
        range["start"]["character"].as_u64(),
    );
    let end = (
        range["end"]["line"].as_u64(),
        range["end"]["character"].as_u64(),
    );
    assert!(start <= end, "range ends before it starts in {what}");
}

impl Peer {
    fn start() -> Peer {
        watch_panics();
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        let server = tokio::spawn(abidoc_lsp::serve(server_read, server_write));
        let (reader, writer) = tokio::io::split(client_io);
        let (tx, incoming) = mpsc::unbounded_channel();
        tokio::spawn(read_frames(reader, tx));
        Peer {
            writer,
            incoming,
            server: Some(server),
            next_id: 0,
            pending: HashMap::new(),
            answered: HashSet::new(),
            null_owed: 0,
            null_seen: 0,
            initialized: false,
            stats: Stats::default(),
            junk_answers: None,
        }
    }

    async fn write(&mut self, bytes: &[u8]) {
        self.writer
            .write_all(bytes)
            .await
            .expect("server stopped reading");
        self.writer.flush().await.unwrap();
    }

    /// Writes bytes that are not one well-framed message; the server owes `null_errors` errors.
    async fn raw(&mut self, bytes: &[u8], null_errors: usize) {
        self.stats.frames_sent += 1;
        self.null_owed += null_errors;
        self.write(bytes).await;
    }

    /// Writes one well-framed body and books what the server owes for it.
    async fn body(&mut self, body: &[u8]) {
        // An `initialize` from the chaos stream before the real one would make the server
        // initialized behind the books' back.
        if !self.initialized
            && serde_json::from_slice::<Value>(body).is_ok_and(|v| v["method"] == "initialize")
        {
            return;
        }
        self.owe(body);
        self.stats.frames_sent += 1;
        self.write(&frame(body)).await;
    }

    fn owe(&mut self, body: &[u8]) {
        match owed(body) {
            Owed::Nothing => {}
            Owed::NullReply => self.null_owed += 1,
            Owed::Reply(id) => {
                let method = serde_json::from_slice::<Value>(body)
                    .ok()
                    .and_then(|v| v["method"].as_str().map(str::to_owned))
                    .unwrap_or_else(|| "(malformed)".to_owned());
                self.stats.requests += 1;
                let fresh = !self.answered.contains(&id)
                    && self
                        .pending
                        .insert(
                            id.clone(),
                            Pending {
                                method,
                                before_init: !self.initialized,
                                cancelled: false,
                            },
                        )
                        .is_none();
                assert!(
                    fresh,
                    "generator reused id {id}: {}",
                    String::from_utf8_lossy(body)
                );
            }
        }
    }

    fn fresh_id(&mut self, rng: &mut Rng) -> Value {
        self.next_id += 1;
        let n = self.next_id;
        match rng.below(8) {
            0 => json!(i64::MAX - n as i64),
            1 => json!(i64::MIN + n as i64),
            2 => json!(-(n as i64)),
            3 => json!(format!("chaos-{n}")),
            4 => json!(format!("ü😀\"{n}\\")),
            _ => json!(n),
        }
    }

    async fn request(&mut self, rng: &mut Rng, method: &str, params: Value) -> Value {
        let id = self.fresh_id(rng);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.body(body.to_string().as_bytes()).await;
        id
    }

    async fn notify(&mut self, method: &str, params: Value) {
        let body = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.body(body.to_string().as_bytes()).await;
    }

    /// Handles one message from the server; returns it when it is a response.
    async fn handle(&mut self, message: Value) -> Option<Value> {
        assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC 2.0: {message}");
        let method = message.get("method").and_then(Value::as_str);
        match (method, message.get("id")) {
            (Some(method), Some(id)) => {
                self.stats.server_requests += 1;
                let result = if method == "workspace/configuration" {
                    let n = message["params"]["items"].as_array().map_or(1, Vec::len);
                    json!(vec![json!({"useEnvironment": false}); n])
                } else {
                    Value::Null
                };
                let mut answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
                if method != "workspace/configuration"
                    && let Some(rng) = self.junk_answers.as_mut()
                {
                    answer = match rng.below(3) {
                        0 => {
                            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "no"}})
                        }
                        1 => json!({"jsonrpc": "2.0", "id": id, "result": {"unexpected": [1, 2]}}),
                        _ => answer,
                    };
                }
                self.write(&frame(answer.to_string().as_bytes())).await;
                None
            }
            (Some(method), None) => {
                *self
                    .stats
                    .notifications_received
                    .entry(method.to_owned())
                    .or_default() += 1;
                if method == "textDocument/publishDiagnostics" {
                    let params = &message["params"];
                    assert!(params["uri"].is_string(), "{message}");
                    for d in params["diagnostics"].as_array().expect("diagnostics array") {
                        check_range(&d["range"], d);
                        assert!(d["message"].is_string(), "{d}");
                    }
                }
                None
            }
            (None, Some(id)) => {
                let has_result = message.get("result").is_some();
                let error = message.get("error");
                assert!(
                    has_result != error.is_some(),
                    "a response needs exactly one of result and error: {message}"
                );
                if let Some(error) = error {
                    let code = error["code"].as_i64().expect("integer error code");
                    assert!(error["message"].is_string(), "{message}");
                    *self.stats.errors.entry(code).or_default() += 1;
                } else {
                    self.stats.results += 1;
                }
                if id.is_null() {
                    assert!(error.is_some(), "a result with a null id: {message}");
                    self.null_seen += 1;
                    return Some(message);
                }
                let key = id.to_string();
                assert!(
                    !self.answered.contains(&key),
                    "second response for id {key}: {message}"
                );
                let pending = self
                    .pending
                    .remove(&key)
                    .unwrap_or_else(|| panic!("response to an id never sent: {message}"));
                self.answered.insert(key);
                if pending.before_init {
                    assert!(
                        error.is_some(),
                        "{} answered before initialize: {message}",
                        pending.method
                    );
                }
                if pending.cancelled {
                    self.stats.cancelled_requests += 1;
                }
                Some(message)
            }
            (None, None) => panic!("neither request, notification nor response: {message}"),
        }
    }

    async fn next_message(&mut self, wait: Duration) -> Option<Value> {
        match tokio::time::timeout(wait, self.incoming.recv()).await {
            Err(_) => None,
            Ok(None) => panic!("the server closed its output"),
            Ok(Some(Err(violation))) => panic!("{violation}"),
            Ok(Some(Ok(message))) => Some(message),
        }
    }

    /// Reads until the response to `id` arrives; panics if the server does not answer in time.
    async fn response(&mut self, id: &Value) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let Some(message) = self.next_message(left).await else {
                panic!(
                    "no response to {id} in 30 s; {} requests pending: {:?}",
                    self.pending.len(),
                    self.pending.iter().take(5).collect::<Vec<_>>()
                );
            };
            if let Some(response) = self.handle(message).await
                && response["id"] == *id
            {
                return response;
            }
        }
    }

    /// Reads until every request is answered and every owed null-id error came, then a little
    /// longer to catch extra responses.
    async fn settle(&mut self) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while !self.pending.is_empty() || self.null_seen < self.null_owed {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let Some(message) = self.next_message(left).await else {
                panic!(
                    "unanswered after 30 s: {:?}; null-id errors {} of {}",
                    self.pending.iter().take(10).collect::<Vec<_>>(),
                    self.null_seen,
                    self.null_owed
                );
            };
            self.handle(message).await;
        }
        while let Some(message) = self.next_message(Duration::from_millis(300)).await {
            self.handle(message).await;
        }
        assert_eq!(
            self.null_seen, self.null_owed,
            "null-id errors: seen {} for {} unreadable messages",
            self.null_seen, self.null_owed
        );
    }

    async fn initialize(&mut self, rng: &mut Rng) {
        let capabilities = json!({
            "workspace": {"configuration": true, "didChangeConfiguration": {"dynamicRegistration": true}},
            "notebookDocument": {"synchronization": {"dynamicRegistration": true}},
            "window": {"workDoneProgress": true},
            "general": {"positionEncodings": ["utf-16"]}
        });
        // From here on, requests are answered normally (and this one is not skipped).
        self.initialized = true;
        let id = self
            .request(
                rng,
                "initialize",
                json!({"processId": null, "rootUri": null, "capabilities": capabilities,
                       "initializationOptions": {"useEnvironment": false}}),
            )
            .await;
        let response = self.response(&id).await;
        assert!(response["result"]["capabilities"].is_object(), "{response}");
        self.notify("initialized", json!({})).await;
    }

    /// A valid request on the probe document: it must get a well-formed result, not an error.
    async fn probe(&mut self, rng: &mut Rng, text: &str) {
        let lines: Vec<&str> = text.split('\n').collect();
        let line = rng.below(lines.len());
        let character = rng.below(lines[line].encode_utf16().count() + 1);
        let position = json!({"line": line, "character": character});
        let doc = json!({"uri": PROBE_URI});
        if rng.chance(70) {
            let id = self
                .request(
                    rng,
                    "textDocument/hover",
                    json!({"textDocument": doc, "position": position}),
                )
                .await;
            let response = self.response(&id).await;
            let result = response
                .get("result")
                .unwrap_or_else(|| panic!("probe hover failed: {response}"));
            if !result.is_null() {
                assert!(
                    result["contents"].is_object()
                        || result["contents"].is_string()
                        || result["contents"].is_array(),
                    "{response}"
                );
                if let Some(range) = result.get("range") {
                    check_range(range, &response);
                }
            }
        } else {
            let id = self
                .request(
                    rng,
                    "textDocument/codeAction",
                    json!({"textDocument": doc, "range": {"start": position, "end": position},
                           "context": {"diagnostics": []}}),
                )
                .await;
            let response = self.response(&id).await;
            let result = response
                .get("result")
                .unwrap_or_else(|| panic!("probe codeAction failed: {response}"));
            for action in result.as_array().into_iter().flatten() {
                assert!(action["title"].is_string(), "{response}");
            }
        }
    }

    async fn shutdown(mut self, rng: &mut Rng) -> Stats {
        self.settle().await;
        let id = self.request(rng, "shutdown", Value::Null).await;
        let response = self.response(&id).await;
        assert!(response.get("error").is_none(), "{response}");
        let exit = json!({"jsonrpc": "2.0", "method": "exit"});
        self.write(&frame(exit.to_string().as_bytes())).await;
        let server = self.server.take().unwrap();
        tokio::time::timeout(Duration::from_secs(10), server)
            .await
            .expect("server did not end after exit")
            .expect("server task panicked");
        self.stats
    }
}

// ---------------------------------------------------------------------------------------------
// The generator.

const PROBE_URI: &str = "file:///chaos/probe.log";
const URIS: &[&str] = &[
    "file:///chaos/a.log",
    "file:///chaos/b.txt",
    "file:///chaos/nb.ipynb",
    "file:///chaos/%F0%9F%98%80%20space.log",
    "untitled:Untitled-1",
    "vscode-notebook-cell:/chaos/nb.ipynb#C0",
    "vscode-notebook-cell:/chaos/nb.ipynb#C1",
    "file:///chaos/never-opened.log",
];
const NB_URIS: &[&str] = &["file:///chaos/nb.ipynb", "file:///chaos/other.ipynb"];
const METHODS: &[&str] = &[
    "textDocument/hover",
    "textDocument/codeAction",
    "textDocument/documentLink",
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didClose",
    "notebookDocument/didOpen",
    "notebookDocument/didChange",
    "notebookDocument/didClose",
    "abidoc/cellOutputs",
    "abidoc/terminalOutput",
    "abidoc/malformedMessage",
    "workspace/executeCommand",
    "workspace/didChangeConfiguration",
    "textDocument/completion",
    "$/cancelRequest",
    "$/setTrace",
    "initialize",
    "initialized",
    "abidoc/noSuchThing",
    "",
];

fn position(rng: &mut Rng) -> Value {
    let coord = |rng: &mut Rng| -> Value {
        match rng.below(12) {
            0 => json!(u32::MAX),
            1 => json!(1u64 << 31),
            2 => json!(1_000_000),
            3 => json!(-1),
            4 => json!(u64::from(u32::MAX) + 1),
            _ => json!(rng.below(60)),
        }
    };
    json!({"line": coord(rng), "character": coord(rng)})
}

fn small_position(rng: &mut Rng) -> Value {
    json!({"line": rng.below(40), "character": rng.below(120)})
}

fn range(rng: &mut Rng) -> Value {
    if rng.chance(70) {
        json!({"start": small_position(rng), "end": small_position(rng)})
    } else {
        json!({"start": position(rng), "end": position(rng)})
    }
}

fn cell_uri(nb: &str, i: usize) -> String {
    format!(
        "vscode-notebook-cell:{}#C{i}",
        nb.trim_start_matches("file://")
    )
}

/// One random message (or a few raw bytes) of the chaos stream.
async fn chaos_step(peer: &mut Peer, rng: &mut Rng, corpus: &Corpus) {
    let uri = *rng.pick(URIS);
    match rng.below(30) {
        // Broken framing, then a blank-line header to resynchronise (one null-id error each).
        0 => {
            let garbage: Vec<u8> = (0..rng.below(200))
                .map(|_| {
                    loop {
                        let b = rng.next() as u8;
                        if b != b'\r' {
                            break b;
                        }
                    }
                })
                .collect();
            let header: &[u8] = match rng.below(5) {
                0 => b"Content-Length: abc\r\n\r\n",
                1 => b"Content-Length: -5\r\n\r\n",
                2 => b"Content-Type: application/json\r\n\r\n",
                3 => b"\r\n\r\n",
                _ => b"Content-Length 12\r\n\r\n",
            };
            let mut bytes = garbage;
            bytes.extend_from_slice(header);
            peer.raw(&bytes, 1).await;
        }
        // Content-Length shorter than the body: the truncated body is a parse error, the rest is
        // a header without Content-Length once the blank line comes.
        1 => {
            let body = json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "log", "version": 1, "text": junk_text(rng, corpus, 3)}}}).to_string();
            let short = 1 + rng.below(body.len() - 1);
            let mut bytes = format!("Content-Length: {short}\r\n\r\n").into_bytes();
            bytes.extend_from_slice(body.as_bytes());
            bytes.extend_from_slice(b"\r\n\r\n");
            peer.raw(&bytes, 2).await;
        }
        // Content-Length longer than the body, completed with filler that is not JSON.
        2 => {
            let id = peer.fresh_id(rng);
            let body = json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}, "position": small_position(rng)}}).to_string();
            let extra = 1 + rng.below(64);
            let mut bytes = format!("Content-Length: {}\r\n\r\n", body.len() + extra).into_bytes();
            bytes.extend_from_slice(body.as_bytes());
            bytes.extend(std::iter::repeat_n(b'x', extra));
            peer.raw(&bytes, 1).await;
        }
        // Invalid JSON: a valid message truncated, or with a control byte or invalid UTF-8 in it.
        3 | 4 => {
            let id = peer.fresh_id(rng);
            let mut body = json!({"jsonrpc": "2.0", "id": id, "method": rng.pick(METHODS), "params": junk_value(rng, corpus, 3)}).to_string().into_bytes();
            if rng.chance(50) {
                body.truncate(rng.below(body.len()));
            } else {
                let at = rng.below(body.len() + 1);
                body.insert(at, *rng.pick(&[0x00, 0x01, 0x1f, 0xff, 0xc3, 0x80]));
            }
            peer.body(&body).await;
        }
        // Valid JSON of the wrong shape.
        5 => {
            let mut junk = junk_value(rng, corpus, 3);
            // A junk top-level id could repeat one already answered (seed 113): make it fresh.
            if let Some(id) = junk.as_object_mut().and_then(|o| o.get_mut("id")) {
                *id = peer.fresh_id(rng);
            }
            peer.body(junk.to_string().as_bytes()).await;
        }
        // A message with junk in every member: wrong version, ids of every type, junk params.
        6 | 7 => {
            let mut message = serde_json::Map::new();
            if rng.chance(85) {
                message.insert("jsonrpc".into(), json!("2.0"));
            } else {
                message.insert("jsonrpc".into(), junk_value(rng, corpus, 1));
            }
            if rng.chance(90) {
                message.insert("method".into(), json!(rng.pick(METHODS)));
            }
            if rng.chance(60) {
                let id = match rng.below(6) {
                    0 => json!(1.5),
                    1 => json!(u64::MAX),
                    2 => json!({"id": 1}),
                    3 => json!([peer.next_id]),
                    4 => json!(true),
                    _ => peer.fresh_id(rng),
                };
                message.insert("id".into(), id);
            }
            if rng.chance(80) {
                message.insert("params".into(), junk_value(rng, corpus, 4));
            }
            if rng.chance(10) {
                message.insert("result".into(), junk_value(rng, corpus, 1));
            }
            peer.body(Value::Object(message).to_string().as_bytes())
                .await;
        }
        // Deep nesting, around serde_json's recursion limit and far past it.
        8 => {
            let depth = if rng.chance(50) {
                120 + rng.below(16)
            } else {
                1000 + rng.below(20_000)
            };
            let id = peer.fresh_id(rng);
            let (open, close) = if rng.chance(50) {
                ("[", "]")
            } else {
                ("{\"a\":", "}")
            };
            let body = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"textDocument/hover\",\"params\":{}1{}}}",
                open.repeat(depth),
                close.repeat(depth)
            );
            peer.body(body.as_bytes()).await;
        }
        // Documents: open real fixtures and junk, under odd language ids and versions.
        9..=11 => {
            let text = if rng.chance(70) {
                rng.pick(&corpus.texts).clone()
            } else {
                junk_text(rng, corpus, 40)
            };
            let language = *rng.pick(&["log", "json", "python", "plaintext", "", "jupyter"]);
            let version = *rng.pick(&[1i64, 0, -1, i64::from(i32::MAX), 7]);
            peer.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}})).await;
        }
        // Edits: several incremental changes with out-of-range, reversed and mid-surrogate
        // positions, sometimes a full replacement.
        12..=15 => {
            let changes: Vec<Value> = (0..1 + rng.below(5))
                .map(|_| {
                    let text = junk_text(rng, corpus, 4);
                    match rng.below(10) {
                        0 => json!({"text": text}),
                        1 => json!({"range": range(rng), "rangeLength": rng.below(1000), "text": text}),
                        _ => json!({"range": range(rng), "text": text}),
                    }
                })
                .collect();
            let version = rng.below(1000);
            peer.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes})).await;
        }
        16 => {
            peer.notify(
                "textDocument/didClose",
                json!({"textDocument": {"uri": uri}}),
            )
            .await;
        }
        // Requests at random positions on any document.
        17..=19 => {
            let doc = json!({"uri": uri});
            let (method, params) = match rng.below(4) {
                0 | 1 => (
                    "textDocument/hover",
                    json!({"textDocument": doc, "position": position(rng)}),
                ),
                2 => (
                    "textDocument/codeAction",
                    json!({"textDocument": doc, "range": range(rng), "context": {"diagnostics": junk_value(rng, corpus, 2), "only": ["quickfix"]}}),
                ),
                _ => ("textDocument/documentLink", json!({"textDocument": doc})),
            };
            peer.request(rng, method, params).await;
        }
        // Cancellation of in-flight requests and of ids never sent.
        20 => {
            let in_flight: Vec<String> = peer.pending.keys().cloned().collect();
            if !in_flight.is_empty() && rng.chance(70) {
                let key = rng.pick(&in_flight).clone();
                if let Some(p) = peer.pending.get_mut(&key) {
                    p.cancelled = true;
                }
                let id: Value = serde_json::from_str(&key).unwrap();
                peer.notify("$/cancelRequest", json!({"id": id})).await;
            } else {
                let id = match rng.below(3) {
                    0 => json!(987_654_321),
                    1 => json!("never-sent"),
                    _ => junk_value(rng, corpus, 1),
                };
                peer.notify("$/cancelRequest", json!({"id": id})).await;
            }
        }
        // Notebook sync with real cells and junk structure changes.
        21 | 22 => {
            let nb = *rng.pick(NB_URIS);
            match rng.below(4) {
                0 => {
                    let n = 1 + rng.below(4);
                    let cells: Vec<Value> = (0..n)
                        .map(|i| json!({"kind": 1 + rng.below(2), "document": cell_uri(nb, i)}))
                        .collect();
                    let docs: Vec<Value> = (0..n)
                        .map(|i| json!({"uri": cell_uri(nb, i), "languageId": "python", "version": 1, "text": rng.pick(&corpus.cells)}))
                        .collect();
                    peer.notify("notebookDocument/didOpen", json!({"notebookDocument": {"uri": nb, "notebookType": "jupyter-notebook", "version": 1, "cells": cells}, "cellTextDocuments": docs})).await;
                }
                1 => {
                    let i = rng.below(6);
                    let change = json!({
                        "cells": {
                            "structure": {
                                "array": {"start": rng.below(8), "deleteCount": rng.below(8),
                                          "cells": [{"kind": 2, "document": cell_uri(nb, i)}]},
                                "didOpen": [{"uri": cell_uri(nb, i), "languageId": "python", "version": 1, "text": junk_text(rng, corpus, 5)}],
                                "didClose": [{"uri": cell_uri(nb, rng.below(6))}]
                            },
                            "textContent": [{"document": {"uri": cell_uri(nb, rng.below(6)), "version": 2},
                                             "changes": [{"range": range(rng), "text": junk_text(rng, corpus, 3)}]}]
                        }
                    });
                    peer.notify("notebookDocument/didChange", json!({"notebookDocument": {"uri": nb, "version": rng.below(50)}, "change": change})).await;
                }
                2 => {
                    peer.notify("notebookDocument/didClose", json!({"notebookDocument": {"uri": nb}, "cellTextDocuments": [{"uri": cell_uri(nb, rng.below(4))}]})).await;
                }
                _ => {
                    let method = *rng.pick(&[
                        "notebookDocument/didOpen",
                        "notebookDocument/didChange",
                        "notebookDocument/didClose",
                    ]);
                    peer.notify(method, junk_value(rng, corpus, 4)).await;
                }
            }
        }
        // Cell outputs and terminal output: real tracebacks in real and junk wrappers.
        23 | 24 => {
            let nb = *rng.pick(NB_URIS);
            if rng.chance(50) {
                let text = if rng.chance(50) {
                    json!({"name": "ImportError", "message": junk_text(rng, corpus, 2), "stack": rng.pick(&corpus.texts)}).to_string()
                } else {
                    junk_text(rng, corpus, 6)
                };
                let mime = *rng.pick(&[
                    "application/vnd.code.notebook.error",
                    "application/vnd.code.notebook.stderr",
                    "text/plain",
                    "",
                ]);
                peer.notify("abidoc/cellOutputs", json!({"notebookUri": nb, "cells": [{"cellUri": cell_uri(nb, rng.below(5)), "executionOrder": rng.below(10), "success": rng.chance(50), "outputs": [{"mime": mime, "text": text}]}]})).await;
            } else if rng.chance(50) {
                peer.notify("abidoc/terminalOutput", json!({"commandLine": junk_text(rng, corpus, 1), "cwd": "/tmp", "exitCode": 1, "text": rng.pick(&corpus.texts)})).await;
            } else {
                let method = *rng.pick(&["abidoc/cellOutputs", "abidoc/terminalOutput"]);
                peer.notify(method, junk_value(rng, corpus, 4)).await;
            }
        }
        // Configuration changes that carry no section (the server pulls configuration, which this
        // client answers) or junk settings that keep the environment out.
        25 => {
            let settings = if rng.chance(50) {
                junk_value(rng, corpus, 2)
            } else {
                json!({"abidoc": {"useEnvironment": false, "disabledCodes": junk_value(rng, corpus, 1), "maxLineLength": junk_value(rng, corpus, 0)}})
            };
            let settings = if settings.to_string().contains("useEnvironment")
                && !settings.to_string().contains("\"useEnvironment\":false")
            {
                Value::Null
            } else {
                settings
            };
            peer.notify(
                "workspace/didChangeConfiguration",
                json!({"settings": settings}),
            )
            .await;
        }
        // Responses to requests the server never sent, valid and not.
        26 => {
            let body = match rng.below(3) {
                0 => {
                    json!({"jsonrpc": "2.0", "id": format!("nope-{}", rng.next()), "result": junk_value(rng, corpus, 2)})
                }
                1 => {
                    json!({"jsonrpc": "2.0", "id": format!("nope-{}", rng.next()), "error": {"code": -1, "message": "x"}})
                }
                _ => {
                    json!({"jsonrpc": "2.0", "id": format!("nope-{}", rng.next()), "error": junk_value(rng, corpus, 1)})
                }
            };
            peer.body(body.to_string().as_bytes()).await;
        }
        // A second initialize, commands that do not exist, methods nobody implements.
        27 => {
            let (method, params) = match rng.below(4) {
                0 => ("initialize", json!({"capabilities": {}})),
                1 => (
                    "workspace/executeCommand",
                    json!({"command": junk_text(rng, corpus, 1), "arguments": [junk_value(rng, corpus, 2)]}),
                ),
                2 => ("abidoc/noSuchRequest", junk_value(rng, corpus, 2)),
                _ => (
                    "textDocument/completion",
                    json!({"textDocument": {"uri": uri}, "position": position(rng)}),
                ),
            };
            peer.request(rng, method, params).await;
        }
        // Unknown and `$/` notifications.
        _ => {
            let method = *rng.pick(&[
                "$/setTrace",
                "$/progress",
                "abidoc/nothing",
                "textDocument/didSave",
                "workspace/didChangeWatchedFiles",
            ]);
            peer.notify(method, junk_value(rng, corpus, 2)).await;
        }
    }
}

fn seeds() -> Vec<u64> {
    match std::env::var("CHAOS_SEED") {
        Ok(s) => vec![s.parse().expect("CHAOS_SEED is a number")],
        Err(_) => vec![0x00ab_1d0c, 7, 2026],
    }
}

fn batches() -> usize {
    std::env::var("CHAOS_BATCHES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20)
}

const BATCH: usize = 100;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_random_and_malformed_messages() {
    let _serial = SERIAL.lock().await;
    let corpus = corpus();
    let probe_text = corpus.texts[0].clone();
    let mut total = Stats::default();
    for seed in seeds() {
        let mut rng = Rng(seed);
        let mut peer = Peer::start();
        peer.junk_answers = Some(Rng(seed ^ 0x5eed));
        // Before initialize: everything goes, every request is refused with an error.
        for _ in 0..BATCH {
            chaos_step(&mut peer, &mut rng, &corpus).await;
        }
        peer.initialize(&mut rng).await;
        peer.notify("textDocument/didOpen", json!({"textDocument": {"uri": PROBE_URI, "languageId": "log", "version": 1, "text": probe_text}})).await;
        for _ in 0..batches() {
            for _ in 0..BATCH {
                chaos_step(&mut peer, &mut rng, &corpus).await;
            }
            peer.probe(&mut rng, &probe_text).await;
        }
        let stats = peer.shutdown(&mut rng).await;
        eprintln!("seed {seed}: {stats:?}");
        total.frames_sent += stats.frames_sent;
        total.requests += stats.requests;
        total.results += stats.results;
        total.cancelled_requests += stats.cancelled_requests;
        total.server_requests += stats.server_requests;
        for (code, n) in stats.errors {
            *total.errors.entry(code).or_default() += n;
        }
        for (m, n) in stats.notifications_received {
            *total.notifications_received.entry(m).or_default() += n;
        }
    }
    assert_no_panics();
    eprintln!("total: {total:?}");
    // The stream really exercised the paths it claims to.
    assert!(total.frames_sent >= 3 * 1000, "{total:?}");
    for code in [-32700, -32600, -32601, -32602, -32002] {
        assert!(
            total.errors.contains_key(&code),
            "no {code} error seen: {total:?}"
        );
    }
    assert!(total.results > 100, "{total:?}");
    assert!(
        total
            .notifications_received
            .contains_key("textDocument/publishDiagnostics"),
        "{total:?}"
    );
}

/// Inputs the chaos stream found or that sit on an edge of the framing guard, replayed one by
/// one: each must be answered as owed and leave the server answering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edge_messages_one_by_one() {
    let _serial = SERIAL.lock().await;
    let corpus = corpus();
    let mut rng = Rng(1);
    let mut peer = Peer::start();
    peer.initialize(&mut rng).await;
    let probe_text = corpus.texts[0].clone();
    peer.notify("textDocument/didOpen", json!({"textDocument": {"uri": PROBE_URI, "languageId": "log", "version": 1, "text": probe_text}})).await;
    let nested = |depth: usize| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{depth},\"method\":\"textDocument/hover\",\"params\":{}{}}}",
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    let mut bodies: Vec<String> = (124..=130).map(nested).collect();
    bodies.extend(
        [
            r#"{"jsonrpc":"2.0","id":null,"method":"textDocument/hover","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.log"},"position":{"line":4294967295,"character":4294967295}}}"#,
            r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"shutdownX"}"#,
            r#"{"jsonrpc":"2.0","id":"\u0000","method":"textDocument/codeAction","params":[]}"#,
            r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///chaos/probe.log","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":0}},"text":"😀"}]}}"#,
            r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///chaos/probe.log","version":3},"contentChanges":[{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":1}},"text":"x"}]}}"#,
            r#"{"jsonrpc":"2.0","id":"r","result":null,"error":{"code":1,"message":"both"}}"#,
            r#"{"jsonrpc":"2.0","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":77}"#,
            r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{"nested":[1]}}}"#,
        ]
        .map(str::to_owned),
    );
    for body in &bodies {
        peer.body(body.as_bytes()).await;
        peer.probe(&mut rng, "x").await;
    }
    // Found by the chaos stream: frames the guard forwarded but the framework could not decode
    // (its decoder then ended the session) or answered with nothing.
    for body in session_enders() {
        peer.body(&body).await;
        // The probe text changed above: probe a position that exists in any version.
        peer.probe(&mut rng, "x").await;
    }
    peer.shutdown(&mut rng).await;
    assert_no_panics();
}

/// Frames that ended the session or went unanswered before the guard checked them as the
/// framework decodes them.
fn session_enders() -> Vec<Vec<u8>> {
    let mut bodies: Vec<Vec<u8>> = vec![
        // Invalid UTF-8 inside a string in params: the envelope skips params unchecked.
        b"{\"jsonrpc\":\"2.0\",\"id\":301,\"method\":\"textDocument/hover\",\"params\":{\"a\":\"\xc3x\"}}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"text\":\"\xff\"}}".to_vec(),
        // A lone surrogate escape.
        br#"{"jsonrpc":"2.0","id":302,"method":"textDocument/hover","params":{"a":"\ud800"}}"#.to_vec(),
        // `$/` requests: the framework drops its "method not found" answer.
        br#"{"jsonrpc":"2.0","id":303,"method":"$/setTrace","params":{"value":"off"}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":"304","method":"$/noSuchThing"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":null,"method":"$/progress","params":{}}"#.to_vec(),
        // A request with a result member decodes as a response.
        br#"{"jsonrpc":"2.0","id":305,"method":"textDocument/hover","result":null}"#.to_vec(),
    ];
    // Nesting past serde_json's depth limit inside params (the envelope's skip has no limit).
    for depth in [127, 128, 200, 5000] {
        bodies.push(
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\",\"params\":{}{}}}",
                1000 + depth,
                "[".repeat(depth),
                "]".repeat(depth)
            )
            .into_bytes(),
        );
    }
    bodies
}

/// Found by the chaos stream (seed 113): an array body was answered with the id read from its
/// first element, which can be the id of a real request in flight.
#[test]
fn only_an_object_has_an_id() {
    for body in ["[92]", " [\"a\"]", "[92, \"2.0\"]"] {
        let replacement: Value =
            serde_json::from_slice(&abidoc_lsp::framing::check(body.as_bytes()).unwrap_err())
                .unwrap();
        assert_eq!(replacement["id"], Value::Null, "{body}");
    }
    let replacement: Value = serde_json::from_slice(
        &abidoc_lsp::framing::check(br#"{"jsonrpc":"1.0","id":92,"method":"x"}"#).unwrap_err(),
    )
    .unwrap();
    assert_eq!(replacement["id"], 92);
}

/// The guard forwards a frame only if the framework decodes it as a request that gets answered.
#[test]
fn guard_forwards_only_what_the_framework_decodes() {
    use abidoc_lsp::proto::jsonrpc::{Request, Response};
    for body in session_enders() {
        let verdict = abidoc_lsp::framing::check(&body);
        assert!(
            verdict.is_err(),
            "forwarded: {}",
            String::from_utf8_lossy(&body)
        );
        let replacement: Value = serde_json::from_slice(&verdict.unwrap_err()).unwrap();
        assert!(replacement["params"]["code"].is_i64(), "{replacement}");
    }
    // And every body the chaos generator makes that the guard forwards decodes.
    let corpus = corpus();
    let mut rng = Rng(99);
    let mut forwarded = 0;
    for _ in 0..3000 {
        let mut body = json!({"jsonrpc": "2.0", "id": rng.below(1000), "method": rng.pick(METHODS), "params": junk_value(&mut rng, &corpus, 4)}).to_string().into_bytes();
        if rng.chance(50) {
            let at = rng.below(body.len() + 1);
            body.insert(at, *rng.pick(&[b'[', b'{', b'"', b'\\', 0xc3, 0x80]));
        }
        if abidoc_lsp::framing::check(&body).is_ok() {
            forwarded += 1;
            let text = std::str::from_utf8(&body).expect("forwarded invalid UTF-8");
            assert!(
                serde_json::from_str::<Request>(text).is_ok()
                    || serde_json::from_str::<Response>(text).is_ok(),
                "forwarded a frame the framework cannot decode: {text}"
            );
        }
    }
    assert!(forwarded > 500, "{forwarded}");
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_stays_flat_over_open_change_close_cycles() {
    let _serial = SERIAL.lock().await;
    let corpus = corpus();
    // Every fixture in one document (~100 KB): a leak of one copy per cycle would be
    // hundreds of megabytes over the run.
    let big: String = corpus.texts.concat();
    let mut rng = Rng(42);
    let mut peer = Peer::start();
    peer.initialize(&mut rng).await;
    peer.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": PROBE_URI, "languageId": "log", "version": 1, "text": "x"}}),
    )
    .await;
    let cycle = async |peer: &mut Peer, rng: &mut Rng, i: usize| {
        let uri = format!("file:///chaos/mem{}.log", i % 4);
        peer.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "log", "version": 1, "text": big}}),
        )
        .await;
        for v in 2..5 {
            peer.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": v}, "contentChanges": [{"range": range(rng), "text": junk_text(rng, &corpus, 3)}]})).await;
        }
        if i.is_multiple_of(2) {
            let position = small_position(rng);
            let id = peer
                .request(
                    rng,
                    "textDocument/hover",
                    json!({"textDocument": {"uri": uri}, "position": position}),
                )
                .await;
            peer.response(&id).await;
        }
        if i.is_multiple_of(5) {
            let nb = NB_URIS[0];
            peer.notify("notebookDocument/didOpen", json!({"notebookDocument": {"uri": nb, "notebookType": "jupyter-notebook", "version": 1, "cells": [{"kind": 2, "document": cell_uri(nb, 0)}]}, "cellTextDocuments": [{"uri": cell_uri(nb, 0), "languageId": "python", "version": 1, "text": rng.pick(&corpus.cells)}]})).await;
            peer.notify("abidoc/cellOutputs", json!({"notebookUri": nb, "cells": [{"cellUri": cell_uri(nb, 0), "outputs": [{"mime": "application/vnd.code.notebook.stderr", "text": rng.pick(&corpus.texts)}]}]})).await;
            peer.notify("notebookDocument/didClose", json!({"notebookDocument": {"uri": nb}, "cellTextDocuments": [{"uri": cell_uri(nb, 0)}]})).await;
        }
        peer.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    };
    // Warm up: allocator arenas, caches and the runtime reach their working size.
    for i in 0..300 {
        cycle(&mut peer, &mut rng, i).await;
    }
    peer.settle().await;
    tokio::time::sleep(abidoc_lsp::DEBOUNCE * 3).await;
    peer.settle().await;
    let before = rss_kib();
    let cycles = 3000;
    for i in 0..cycles {
        cycle(&mut peer, &mut rng, i).await;
    }
    peer.settle().await;
    tokio::time::sleep(abidoc_lsp::DEBOUNCE * 3).await;
    peer.settle().await;
    let after = rss_kib();
    let growth_mib = after.saturating_sub(before) / 1024;
    eprintln!(
        "RSS {before} KiB -> {after} KiB over {cycles} cycles of a {} KB document",
        big.len() / 1000
    );
    // A fixed bound, far below one document per cycle (3000 × 100 KB = 300 MB).
    assert!(
        growth_mib < 48,
        "RSS grew {growth_mib} MiB over {cycles} cycles"
    );
    peer.shutdown(&mut rng).await;
    assert_no_panics();
}

/// The client goes away while requests are in flight — after a whole request, in the middle of
/// a body, in the middle of a header: the server task ends on its own, without panicking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_disconnects_mid_request() {
    let _serial = SERIAL.lock().await;
    let corpus = corpus();
    // A large document so that analysis is still running when the client leaves.
    let big: String = corpus.texts.concat().repeat(20);
    for cut in 0..3 {
        let mut rng = Rng(cut);
        let mut peer = Peer::start();
        peer.initialize(&mut rng).await;
        let uri = "file:///chaos/big.log";
        peer.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "log", "version": 1, "text": big}}),
        )
        .await;
        for _ in 0..3 {
            peer.request(
                &mut rng,
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 2}}),
            )
            .await;
            peer.request(&mut rng, "textDocument/codeAction", json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9999, "character": 0}}, "context": {"diagnostics": []}})).await;
        }
        let body = json!({"jsonrpc": "2.0", "id": 999, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 1}}}).to_string();
        let bytes = frame(body.as_bytes());
        match cut {
            0 => {}
            1 => peer.write(&bytes[..bytes.len() / 2]).await,
            _ => peer.write(&bytes[..7]).await,
        }
        let server = peer.server.take().unwrap();
        drop(peer);
        tokio::time::timeout(Duration::from_secs(20), server)
            .await
            .expect("server task still running 20 s after the client left")
            .expect("server task panicked");
    }
    assert_no_panics();
}
