//! The `LanguageServer` implementation. Each protocol method delegates to [`crate::handlers`];
//! this file only routes, each handler inside [`handlers::contained`] so that a panic answers
//! its request with an error (or is logged, for a notification) and the session goes on.

use crate::framing;
use crate::handlers::{self, Session};
use crate::proto::{
    self, CellOutputsParams, CodeActionParams, CodeActionResponse, DidChangeConfigurationParams,
    DidChangeNotebookDocumentParams, DidChangeTextDocumentParams, DidCloseNotebookDocumentParams,
    DidCloseTextDocumentParams, DidOpenNotebookDocumentParams, DidOpenTextDocumentParams,
    DocumentLink, DocumentLinkParams, ExecuteCommandParams, Hover, HoverParams, InitializeParams,
    InitializeResult, InitializedParams, LSPAny, TerminalOutputParams, jsonrpc,
};
use std::sync::Arc;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};

#[derive(Debug)]
pub struct Backend {
    session: Session,
    stash: Arc<framing::Stash>,
}

impl Backend {
    pub fn new(client: Client) -> Self {
        Self::with_stash(client, Arc::default())
    }

    fn with_stash(client: Client, stash: Arc<framing::Stash>) -> Self {
        Self {
            session: Session::new(client),
            stash,
        }
    }

    /// A large document notification the input guard kept out of the framework's reader.
    async fn large_notification(&self, params: framing::LargeParams) {
        let Some((method, body)) = self.stash.take(params.token) else {
            return;
        };
        self.notification(&method, async {
            if let Err(err) = self.dispatch_large(&method, &body) {
                self.session
                    .malformed_message(&format!("{method}: invalid params: {err}"));
            }
        })
        .await;
    }

    fn dispatch_large(&self, method: &str, body: &[u8]) -> serde_json::Result<()> {
        #[derive(serde::Deserialize)]
        struct Message<P> {
            params: P,
        }
        fn params<P: serde::de::DeserializeOwned>(body: &[u8]) -> serde_json::Result<P> {
            serde_json::from_slice::<Message<P>>(body).map(|m| m.params)
        }
        let s = &self.session;
        match method {
            "textDocument/didOpen" => s.did_open(params(body)?),
            "textDocument/didChange" => s.did_change(params(body)?),
            "notebookDocument/didOpen" => s.notebook_did_open(params(body)?),
            "notebookDocument/didChange" => s.notebook_did_change(params(body)?),
            proto::NOTIFY_CELL_OUTPUTS => s.cell_outputs(params(body)?),
            proto::NOTIFY_TERMINAL_OUTPUT => s.terminal_output(params(body)?),
            _ => {}
        }
        Ok(())
    }

    async fn cell_outputs(&self, params: CellOutputsParams) {
        self.notification(proto::NOTIFY_CELL_OUTPUTS, async {
            self.session.cell_outputs(params);
        })
        .await;
    }

    async fn terminal_output(&self, params: TerminalOutputParams) {
        self.notification(proto::NOTIFY_TERMINAL_OUTPUT, async {
            self.session.terminal_output(params);
        })
        .await;
    }

    async fn request<T>(
        &self,
        method: &str,
        handler: impl Future<Output = jsonrpc::Result<T>>,
    ) -> jsonrpc::Result<T> {
        handlers::contained(handler)
            .await
            .unwrap_or_else(|message| {
                let message = format!("abidoc: {method} failed: {message}");
                self.session.log_error(message.clone());
                Err(jsonrpc::Error {
                    code: jsonrpc::ErrorCode::InternalError,
                    message: message.into(),
                    data: None,
                })
            })
    }

    async fn notification(&self, method: &str, handler: impl Future<Output = ()>) {
        if let Err(message) = handlers::contained(handler).await {
            self.session
                .log_error(format!("abidoc: {method} failed: {message}"));
        }
    }

    async fn malformed_message(&self, params: framing::MalformedParams) -> jsonrpc::Result<()> {
        self.session.malformed_message(&params.reason);
        Err(framing::malformed_error(params))
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> jsonrpc::Result<InitializeResult> {
        self.request("initialize", async { Ok(self.session.initialize(params)) })
            .await
    }

    async fn initialized(&self, _: InitializedParams) {
        self.notification("initialized", async { self.session.initialized() })
            .await;
    }

    async fn shutdown(&self) -> jsonrpc::Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        self.notification("textDocument/didOpen", async {
            self.session.did_open(params);
        })
        .await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        self.notification("textDocument/didChange", async {
            self.session.did_change(params);
        })
        .await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.notification("textDocument/didClose", async {
            self.session.did_close(params);
        })
        .await;
    }

    async fn notebook_did_open(&self, params: DidOpenNotebookDocumentParams) {
        self.notification("notebookDocument/didOpen", async {
            self.session.notebook_did_open(params);
        })
        .await;
    }

    async fn notebook_did_change(&self, params: DidChangeNotebookDocumentParams) {
        self.notification("notebookDocument/didChange", async {
            self.session.notebook_did_change(params);
        })
        .await;
    }

    async fn notebook_did_close(&self, params: DidCloseNotebookDocumentParams) {
        self.notification("notebookDocument/didClose", async {
            self.session.notebook_did_close(params);
        })
        .await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        self.notification("workspace/didChangeConfiguration", async {
            self.session.did_change_configuration(params);
        })
        .await;
    }

    async fn hover(&self, params: HoverParams) -> jsonrpc::Result<Option<Hover>> {
        self.request("textDocument/hover", self.session.hover(params))
            .await
    }

    async fn code_action(
        &self,
        params: CodeActionParams,
    ) -> jsonrpc::Result<Option<CodeActionResponse>> {
        self.request("textDocument/codeAction", async {
            self.session.code_action(params)
        })
        .await
    }

    async fn document_link(
        &self,
        params: DocumentLinkParams,
    ) -> jsonrpc::Result<Option<Vec<DocumentLink>>> {
        self.request(
            "textDocument/documentLink",
            self.session.document_link(params),
        )
        .await
    }

    async fn execute_command(
        &self,
        params: ExecuteCommandParams,
    ) -> jsonrpc::Result<Option<LSPAny>> {
        self.request(
            "workspace/executeCommand",
            self.session.execute_command(params),
        )
        .await
    }
}

/// Serves the protocol on `input`/`output` until the client sends `exit` or closes the stream.
pub async fn serve<I, O>(input: I, output: O)
where
    I: tokio::io::AsyncRead + Unpin,
    O: tokio::io::AsyncWrite,
{
    let stash = Arc::new(framing::Stash::default());
    let for_backend = stash.clone();
    let (service, socket) =
        LspService::build(move |client| Backend::with_stash(client, for_backend))
            .custom_method(framing::LARGE_METHOD, Backend::large_notification)
            .custom_method(proto::NOTIFY_CELL_OUTPUTS, Backend::cell_outputs)
            .custom_method(proto::NOTIFY_TERMINAL_OUTPUT, Backend::terminal_output)
            .custom_method(framing::MALFORMED_METHOD, Backend::malformed_message)
            .finish();
    // Frames pass through `framing::guard` so that a malformed one cannot end the session.
    let (guarded_write, guarded_read) = tokio::io::duplex(64 * 1024);
    let server = Server::new(guarded_read, output, socket).serve(service);
    let feed = framing::guard_with(input, guarded_write, Some(&stash));
    tokio::pin!(server);
    tokio::pin!(feed);
    tokio::select! {
        () = &mut server => {}
        // End of input closes the pipe; the server then finishes what it has and returns.
        () = &mut feed => server.await,
    }
}

/// `abidoc lsp`: the server on stdin/stdout, on its own runtime.
pub fn run_stdio() -> std::io::Result<()> {
    crate::memory::configure_allocator();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // Tokio's stdin reader is a blocking thread parked in read(2) until the client closes the
    // pipe; after `exit` the process must not wait for that.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(())
}
