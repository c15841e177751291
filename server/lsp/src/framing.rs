//! The input guard between the client's byte stream and `tower-lsp-server`.
//!
//! The framework's decoder ends the whole session on the first frame it cannot decode (bad JSON,
//! a body that is not a JSON-RPC message, a broken header). This re-frames the input and replaces
//! each bad message with a `abidoc/malformedMessage` request, which the server answers with a
//! JSON-RPC error (`-32700` parse error, `-32600` invalid request) carrying the message's id when
//! one could be read, else `null`. The session goes on.

use crate::proto::jsonrpc;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};
use std::borrow::Cow;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

pub const MALFORMED_METHOD: &str = "abidoc/malformedMessage";

/// What a large notification is forwarded as: its body waits in a [`Stash`] under `token`.
pub const LARGE_METHOD: &str = "abidoc/largeNotification";

/// Valid notifications at least this large skip the framework's reader: it reads a frame into
/// one buffer that keeps its largest size for the session (32 MiB after a 20 MB didOpen).
pub const LARGE_FRAME: usize = 1 << 20;

/// The notifications that carry documents, the only ones this large in practice; the server
/// dispatches each of them itself when they come through the stash.
pub const STASHED_METHODS: [&str; 6] = [
    "textDocument/didOpen",
    "textDocument/didChange",
    "notebookDocument/didOpen",
    "notebookDocument/didChange",
    crate::proto::NOTIFY_CELL_OUTPUTS,
    crate::proto::NOTIFY_TERMINAL_OUTPUT,
];

/// Bodies of large notifications, handed from the guard to the server by token. The small
/// [`LARGE_METHOD`] frame that names the token travels in order with every other frame, so the
/// server handles the notification exactly where it stood in the stream.
#[derive(Debug, Default)]
pub struct Stash {
    next: std::sync::atomic::AtomicU64,
    bodies: std::sync::Mutex<std::collections::HashMap<u64, (String, Vec<u8>)>>,
}

impl Stash {
    fn put(&self, method: String, body: Vec<u8>) -> u64 {
        let token = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut bodies = self
            .bodies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // A stub the framework dropped (e.g. before `initialize`) is never taken: bounded.
        while bodies.len() >= 16 {
            let Some(&oldest) = bodies.keys().min() else {
                break;
            };
            bodies.remove(&oldest);
        }
        bodies.insert(token, (method, body));
        token
    }

    /// The method and body stashed under `token` (once).
    pub fn take(&self, token: u64) -> Option<(String, Vec<u8>)> {
        self.bodies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&token)
    }
}

/// Params of a [`LARGE_METHOD`] frame.
#[derive(Debug, Deserialize)]
pub struct LargeParams {
    pub token: u64,
}

/// The method of a valid notification that goes through the stash, if `body` is one.
fn stashable(body: &[u8]) -> Option<String> {
    if body.len() < LARGE_FRAME {
        return None;
    }
    let envelope = serde_json::from_slice::<Envelope<'_>>(body).ok()?;
    let method = envelope.method?;
    (envelope.id.is_none()
        && envelope.result.is_none()
        && envelope.error.is_none()
        && STASHED_METHODS.contains(&method.as_ref()))
    .then(|| method.into_owned())
}

/// Headers longer than this without a blank line are garbage: drop them.
const MAX_HEADER: usize = 8 * 1024;

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "present")]
    id: Option<IgnoredAny>,
    #[serde(default)]
    params: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
    result: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
    error: Option<IgnoredAny>,
}

/// `Some` even for `null`: what counts is that the member is there.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<IgnoredAny>, D::Error> {
    IgnoredAny::deserialize(d).map(Some)
}

/// What to forward for one frame body: the body itself, or a replacement request.
pub fn check(body: &[u8]) -> Result<(), Vec<u8>> {
    let envelope = match serde_json::from_slice::<Envelope<'_>>(body) {
        Ok(envelope) => envelope,
        Err(err) if err.is_syntax() || err.is_eof() => {
            return Err(replacement(
                Value::Null,
                -32700,
                format!("parse error: {err}"),
            ));
        }
        Err(err) => {
            return Err(replacement(
                read_id(body),
                -32600,
                format!("invalid request: {err}"),
            ));
        }
    };
    let _ = envelope.params;
    if envelope.jsonrpc != "2.0" {
        return Err(replacement(
            read_id(body),
            -32600,
            "invalid request: expected \"jsonrpc\": \"2.0\"".into(),
        ));
    }
    if envelope.method.is_some() {
        // The framework accepts an id that is an integer, a string or null.
        let valid_id = match raw_id(body) {
            Value::Number(n) => n.is_i64(),
            Value::String(_) | Value::Null => true,
            _ => false,
        };
        if envelope.id.is_some() && !valid_id {
            return Err(replacement(
                Value::Null,
                -32600,
                "invalid request: bad id".into(),
            ));
        }
        // The framework answers an unknown method with "method not found", except that it drops
        // the answer for `$/` methods (right for notifications only): a `$/` request would wait
        // forever (found by the LSP chaos test).
        if envelope.id.is_some()
            && envelope
                .method
                .as_deref()
                .is_some_and(|m| m.starts_with("$/"))
        {
            return Err(replacement(
                read_id(body),
                -32601,
                "method not found: `$/` methods are notifications".into(),
            ));
        }
        let with_reply = envelope.result.is_some() || envelope.error.is_some();
        return decodes_as_request(body, with_reply);
    }
    // A response to one of our requests: it must be exactly what the framework decodes.
    match serde_json::from_slice::<jsonrpc::Response>(body) {
        Ok(_) => Ok(()),
        Err(err) => Err(replacement(
            Value::Null,
            -32600,
            format!("invalid response: {err}"),
        )),
    }
}

/// What the framework decodes a frame into (its own type is private): it tries a response first.
#[derive(Deserialize)]
#[serde(untagged)]
enum Decoded {
    Response(#[allow(dead_code)] jsonrpc::Response),
    Request(#[allow(dead_code)] jsonrpc::Request),
}

/// The envelope reads `params` as `IgnoredAny`, which checks neither UTF-8 inside strings, nor
/// `\u` escapes, nor nesting depth; the framework decodes with all three checks and ends the
/// session on a frame that fails (found by the LSP chaos test). A request with a `result` or
/// `error` member may decode as a response and would then never be answered.
fn decodes_as_request(body: &[u8], with_reply: bool) -> Result<(), Vec<u8>> {
    let decoded = std::str::from_utf8(body)
        .map_err(|err| err.to_string())
        .and_then(|text| {
            // Without `result`/`error` the framework's response attempt fails on the missing
            // member, so decoding the request alone (half the cost on a large didOpen) is exact.
            if with_reply {
                serde_json::from_str::<Decoded>(text).map(|d| matches!(d, Decoded::Request(_)))
            } else {
                serde_json::from_str::<jsonrpc::Request>(text).map(|_| true)
            }
            .map_err(|err| err.to_string())
        });
    match decoded {
        Ok(true) => Ok(()),
        Ok(false) => Err(replacement(
            read_id(body),
            -32600,
            "invalid request: a request with a result or error member".into(),
        )),
        Err(reason) => Err(replacement(
            read_id(body),
            -32700,
            format!("parse error: {reason}"),
        )),
    }
}

fn raw_id(body: &[u8]) -> Value {
    // Only an object has an id: serde reads a struct from an array too, so `[92]` was answered
    // as request 92 (found by the LSP chaos test).
    if body.trim_ascii_start().first() != Some(&b'{') {
        return Value::Null;
    }
    #[derive(Deserialize)]
    struct IdOnly {
        #[serde(default)]
        id: Value,
    }
    serde_json::from_slice::<IdOnly>(body)
        .map(|v| v.id)
        .unwrap_or(Value::Null)
}

/// The id to answer a bad message with: its own when usable, else `null`.
fn read_id(body: &[u8]) -> Value {
    match raw_id(body) {
        Value::Number(n) if n.is_i64() => Value::Number(n),
        id @ Value::String(_) => id,
        _ => Value::Null,
    }
}

fn replacement(id: Value, code: i64, reason: String) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": MALFORMED_METHOD, "params": {"code": code, "reason": reason}})
        .to_string()
        .into_bytes()
}

/// Params of the replacement request.
#[derive(Debug, Deserialize)]
pub struct MalformedParams {
    pub code: i64,
    pub reason: String,
}

pub fn malformed_error(params: MalformedParams) -> jsonrpc::Error {
    jsonrpc::Error {
        code: jsonrpc::ErrorCode::from(params.code),
        message: params.reason.into(),
        data: None,
    }
}

async fn write_frame<W: AsyncWrite + Unpin>(out: &mut W, body: &[u8]) -> std::io::Result<()> {
    out.write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
        .await?;
    out.write_all(body).await?;
    out.flush().await
}

fn content_length(header: &[u8]) -> Option<usize> {
    let header = std::str::from_utf8(header).ok()?;
    header.split("\r\n").find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse().ok())?
    })
}

/// Copies frames from `input` to `out`, replacing malformed ones. Returns at end of input.
pub async fn guard<R, W>(input: R, out: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    guard_with(input, out, None).await;
}

/// [`guard`], and with a stash, valid large document notifications are put there and forwarded
/// as a small [`LARGE_METHOD`] frame naming them.
pub async fn guard_with<R, W>(mut input: R, mut out: W, stash: Option<&Stash>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
    let mut chunk = vec![0u8; 64 * 1024];
    let mut body_len: Option<usize> = None;
    loop {
        loop {
            match body_len {
                None => {
                    let Some(end) = memchr::memmem::find(&buf, b"\r\n\r\n") else {
                        if buf.len() > MAX_HEADER {
                            buf.drain(..buf.len() - 3);
                        }
                        break;
                    };
                    let header = buf.get(..end).unwrap_or_default();
                    let len = content_length(header);
                    buf.drain(..end + 4);
                    match len {
                        Some(len) => body_len = Some(len),
                        None => {
                            let message = replacement(
                                Value::Null,
                                -32700,
                                "parse error: no Content-Length header".into(),
                            );
                            if write_frame(&mut out, &message).await.is_err() {
                                return;
                            }
                        }
                    }
                }
                Some(len) => {
                    if buf.len() < len {
                        break;
                    }
                    let checked = buf
                        .get(..len)
                        .map(|body| check(body).map(|()| stash.and_then(|_| stashable(body))));
                    let result = match (checked, stash) {
                        (Some(Ok(Some(method))), Some(stash)) => {
                            // The body leaves the buffer without a copy; what follows it stays.
                            let rest = buf.split_off(len);
                            let body = std::mem::replace(&mut buf, rest);
                            let token = stash.put(method, body);
                            let stub = json!({"jsonrpc": "2.0", "method": LARGE_METHOD, "params": {"token": token}});
                            write_frame(&mut out, stub.to_string().as_bytes()).await
                        }
                        (Some(Ok(_)), _) => {
                            let r = match buf.get(..len) {
                                Some(body) => write_frame(&mut out, body).await,
                                None => Ok(()),
                            };
                            buf.drain(..len);
                            r
                        }
                        (Some(Err(replacement)), _) => {
                            buf.drain(..len);
                            write_frame(&mut out, &replacement).await
                        }
                        (None, _) => Ok(()),
                    };
                    if result.is_err() {
                        return;
                    }
                    body_len = None;
                    // A large frame (a 20 MB didOpen) must not keep its buffer for the session.
                    if buf.capacity() > 1 << 20 && buf.len() < 64 * 1024 {
                        buf.shrink_to(64 * 1024);
                    }
                }
            }
        }
        match input.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(chunk.get(..n).unwrap_or_default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replaced(body: &str) -> Value {
        serde_json::from_slice(&check(body.as_bytes()).unwrap_err()).unwrap()
    }

    #[test]
    fn good_messages_pass_bad_ones_are_replaced() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":5}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}"#,
        ] {
            assert_eq!(check(ok.as_bytes()), Ok(()), "{ok}");
        }
        let r = replaced("{ not json");
        assert_eq!(
            (r["id"].clone(), r["params"]["code"].clone()),
            (Value::Null, json!(-32700))
        );
        assert_eq!(r["method"], MALFORMED_METHOD);
        let r = replaced(r#"{"jsonrpc":"1.0","id":7,"method":"x"}"#);
        assert_eq!(
            (r["id"].clone(), r["params"]["code"].clone()),
            (json!(7), json!(-32600))
        );
        let r = replaced(r#"{"jsonrpc":"2.0","id":{"x":1},"method":"x"}"#);
        assert_eq!(r["id"], Value::Null);
        let r = replaced(r#"[1,2]"#);
        assert_eq!(r["params"]["code"], -32600);
        let r = replaced(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#);
        assert_eq!(r["id"], Value::Null);
    }

    #[test]
    fn headers_are_case_insensitive() {
        assert_eq!(
            content_length(b"content-length: 12\r\nContent-Type: x"),
            Some(12)
        );
        assert_eq!(content_length(b"Content-Type: x"), None);
    }
}
