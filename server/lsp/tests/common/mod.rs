//! An in-process LSP client: JSON-RPC framed by hand over `tokio::io::duplex`, talking to the
//! real server (`abidoc_lsp::serve`). Server→client requests are answered here
//! (`workspace/configuration` with [`Client::configuration`], anything else with `null`).

// Test support: a failed expectation here is a failing test, as in the tests themselves.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::mpsc;

pub const TIMEOUT: Duration = Duration::from_secs(20);

pub struct Client {
    writer: WriteHalf<DuplexStream>,
    incoming: mpsc::UnboundedReceiver<Value>,
    /// Messages received while waiting for something else.
    backlog: Vec<Value>,
    next_id: i64,
    /// The answer to `workspace/configuration` (one item per requested section).
    pub configuration: Value,
    /// Server→client requests seen, by method.
    pub server_requests: Vec<String>,
}

async fn read_frames(mut reader: ReadHalf<DuplexStream>, tx: mpsc::UnboundedSender<Value>) {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        // Parse every complete frame in the buffer.
        while let Some(header_end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let header = String::from_utf8_lossy(&buf[..header_end]).to_string();
            let len: usize = header
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|v| v.trim().parse().ok())
                .expect("Content-Length header");
            let body_start = header_end + 4;
            if buf.len() < body_start + len {
                break;
            }
            let body: Value =
                serde_json::from_slice(&buf[body_start..body_start + len]).expect("JSON body");
            buf.drain(..body_start + len);
            if tx.send(body).is_err() {
                return;
            }
        }
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

impl Client {
    pub async fn start() -> Client {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(abidoc_lsp::serve(server_read, server_write));
        let (reader, writer) = tokio::io::split(client_io);
        let (tx, incoming) = mpsc::unbounded_channel();
        tokio::spawn(read_frames(reader, tx));
        Client {
            writer,
            incoming,
            backlog: Vec::new(),
            next_id: 1,
            configuration: Value::Null,
            server_requests: Vec::new(),
        }
    }

    /// Starts a server and initializes it with `capabilities` and `options`.
    pub async fn initialized(capabilities: Value, options: Value) -> Client {
        let mut client = Client::start().await;
        client.initialize(capabilities, options).await;
        client
    }

    pub async fn initialize(&mut self, capabilities: Value, options: Value) -> Value {
        let result = self
            .request("initialize", json!({"processId": null, "rootUri": null, "capabilities": capabilities, "initializationOptions": options}))
            .await;
        self.notify("initialized", json!({})).await;
        result
    }

    pub async fn send_raw(&mut self, body: &[u8]) {
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        self.writer.write_all(header.as_bytes()).await.unwrap();
        self.writer.write_all(body).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    pub async fn send(&mut self, message: &Value) {
        self.send_raw(message.to_string().as_bytes()).await;
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request without waiting; returns its id.
    pub async fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub async fn request_full(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params).await;
        self.response(id).await
    }

    /// Sends a request and returns its `result`, failing on an error response.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_full(method, params).await;
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    pub async fn response(&mut self, id: i64) -> Value {
        self.wait_for(|m| m.get("method").is_none() && m["id"] == json!(id))
            .await
    }

    /// The next message matching `pred`, from the backlog or the wire (answering server requests).
    pub async fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i);
        }
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let message = tokio::time::timeout_at(deadline, self.incoming.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out; backlog: {:#?}", self.backlog))
                .expect("server closed the stream");
            if message.get("method").is_some() && message.get("id").is_some() {
                self.answer(&message).await;
                continue;
            }
            if pred(&message) {
                return message;
            }
            self.backlog.push(message);
        }
    }

    /// Waits up to `wait` for a message matching `pred`; `None` when none came.
    pub async fn maybe(&mut self, wait: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        tokio::time::timeout(wait, self.wait_for(pred)).await.ok()
    }

    async fn answer(&mut self, request: &Value) {
        let method = request["method"].as_str().unwrap_or("").to_owned();
        let result = if method == "workspace/configuration" {
            let n = request["params"]["items"].as_array().map_or(1, Vec::len);
            Value::Array(vec![self.configuration.clone(); n])
        } else {
            Value::Null
        };
        self.server_requests.push(method);
        self.send(&json!({"jsonrpc": "2.0", "id": request["id"].clone(), "result": result}))
            .await;
    }

    pub async fn notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let method = method.to_owned();
        self.wait_for(move |m| m["method"] == json!(method) && pred(&m["params"]))
            .await["params"]
            .clone()
    }

    /// The next `publishDiagnostics` for `uri` (optionally at `version`).
    pub async fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Value {
        let uri = uri.to_owned();
        self.notification("textDocument/publishDiagnostics", move |p| {
            p["uri"] == json!(uri) && version.is_none_or(|v| p["version"] == json!(v))
        })
        .await
    }

    pub async fn open(&mut self, uri: &str, language_id: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language_id, "version": version, "text": text}}),
        )
        .await;
    }

    pub async fn hover(&mut self, uri: &str, line: u32, character: u32) -> Value {
        self.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}))
            .await
    }

    pub async fn shutdown(mut self) {
        self.request("shutdown", Value::Null).await;
        self.notify("exit", Value::Null).await;
    }
}

/// Zero-based line and UTF-16 column of the first occurrence of `needle` in `text`.
pub fn position_of(text: &str, needle: &str) -> (u32, u32) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in text"));
    let before = &text[..at];
    let line = before.matches('\n').count() as u32;
    let col = before.rsplit('\n').next().unwrap().encode_utf16().count() as u32;
    (line, col)
}

pub fn data(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Options that keep analysis to the text alone, so results do not depend on this machine.
pub fn text_only() -> Value {
    json!({"useEnvironment": false})
}

pub fn codes(diagnostics: &Value) -> Vec<String> {
    diagnostics["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_owned())
        .collect()
}
