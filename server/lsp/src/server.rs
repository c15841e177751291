//! The `LanguageServer` implementation. Each protocol method delegates to [`crate::handlers`];
//! this file only routes.

use crate::framing;
use crate::handlers::Session;
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
        if let Err(err) = self.dispatch_large(&method, &body) {
            self.session
                .malformed_message(&format!("{method}: invalid params: {err}"));
        }
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
        self.session.cell_outputs(params);
    }

    async fn terminal_output(&self, params: TerminalOutputParams) {
        self.session.terminal_output(params);
    }

    async fn malformed_message(&self, params: framing::MalformedParams) -> jsonrpc::Result<()> {
        self.session.malformed_message(&params.reason);
        Err(framing::malformed_error(params))
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> jsonrpc::Result<InitializeResult> {
        Ok(self.session.initialize(params))
    }

    async fn initialized(&self, _: InitializedParams) {
        self.session.initialized();
    }

    async fn shutdown(&self) -> jsonrpc::Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        self.session.did_open(params);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        self.session.did_change(params);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.session.did_close(params);
    }

    async fn notebook_did_open(&self, params: DidOpenNotebookDocumentParams) {
        self.session.notebook_did_open(params);
    }

    async fn notebook_did_change(&self, params: DidChangeNotebookDocumentParams) {
        self.session.notebook_did_change(params);
    }

    async fn notebook_did_close(&self, params: DidCloseNotebookDocumentParams) {
        self.session.notebook_did_close(params);
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        self.session.did_change_configuration(params);
    }

    async fn hover(&self, params: HoverParams) -> jsonrpc::Result<Option<Hover>> {
        self.session.hover(params).await
    }

    async fn code_action(
        &self,
        params: CodeActionParams,
    ) -> jsonrpc::Result<Option<CodeActionResponse>> {
        self.session.code_action(params)
    }

    async fn document_link(
        &self,
        params: DocumentLinkParams,
    ) -> jsonrpc::Result<Option<Vec<DocumentLink>>> {
        self.session.document_link(params).await
    }

    async fn execute_command(
        &self,
        params: ExecuteCommandParams,
    ) -> jsonrpc::Result<Option<LSPAny>> {
        self.session.execute_command(params).await
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
