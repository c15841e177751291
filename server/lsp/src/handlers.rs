//! The session: what each protocol message does. Notification handlers mutate state before their
//! first `.await` (tower-lsp-server starts handlers in arrival order, so edits stay ordered); heavy
//! work runs on a snapshot under `catch_unwind` — documents on the analysis thread, forwarded
//! outputs on the bounded [`crate::pool`], requests in `spawn_blocking`; diagnostics are published
//! only when the document is still at the version they were computed for. A panic ends only the
//! message it happened in: [`contained`] wraps every handler, and locks tolerate poisoning.

use crate::config::{LogLevel, Settings};
use crate::documents::{DocKind, Document, Entry, NotebookDoc, Published, Store, offset};
use crate::pool::{Pool, Pushed, Work};
use crate::proto::{
    self, CellOutputs, CellOutputsParams, CodeActionKind, CodeActionOptions, CodeActionParams,
    CodeActionProviderCapability, CodeActionResponse, ConfigurationItem,
    DidChangeConfigurationParams, DidChangeNotebookDocumentParams, DidChangeTextDocumentParams,
    DidCloseNotebookDocumentParams, DidCloseTextDocumentParams, DidOpenNotebookDocumentParams,
    DidOpenTextDocumentParams, DocumentLink, DocumentLinkOptions, DocumentLinkParams,
    ExecuteCommandOptions, ExecuteCommandParams, Hover, HoverParams, HoverProviderCapability,
    InitializeParams, InitializeResult, LSPAny, MessageType, NotebookCellKind,
    NotebookCellSelector, NotebookDocumentSyncOptions, NotebookSelector, OneOf,
    PositionEncodingKind, Range, ServerCapabilities, ServerInfo, TerminalDiagnosis,
    TerminalDiagnosisParams, TerminalDiagnostic, TerminalOutputParams, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, Uri, jsonrpc,
};
use crate::to_proto::{self, ActionTarget, ClientCommands};
use abidoc_ide::{AnalysisHost, Diagnostic, DocumentMemo};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tower_lsp_server::Client;

/// The least time between two analyses of one document while edits keep coming (a single edit
/// is diagnosed at once).
pub const DEBOUNCE: Duration = Duration::from_millis(200);

#[derive(Debug, Clone)]
pub struct Session {
    client: Client,
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    /// The analysis: environments opened and what was learnt about them, shared by every
    /// request and worker.
    host: AnalysisHost,
    store: Mutex<Store>,
    settings: Mutex<Settings>,
    /// Held while checking a version and publishing, so a check and its publish are not
    /// overtaken by a newer check.
    publish_gate: tokio::sync::Mutex<()>,
    pull_configuration: AtomicBool,
    /// Bumped on every settings change: an analysis started under older settings is not published.
    settings_generation: std::sync::atomic::AtomicU64,
    startup_warnings: Mutex<Vec<String>>,
    /// The last outputs seen for each cell, re-diagnosed when the settings change.
    last_outputs: Mutex<HashMap<Uri, (Uri, CellOutputs)>>,
    /// Library URIs the last environment scan published on.
    scan_uris: Mutex<Vec<Uri>>,
    /// Documents with an analysis running or wanted (see [`Session::schedule`]).
    analyses: Mutex<HashMap<Uri, AnalysisState>>,
    /// The thread that diagnoses documents (started on first use, ends with the session).
    analysis_thread: Mutex<Option<std::sync::mpsc::Sender<Job>>>,
    /// Diagnoses forwarded terminal and cell outputs (its workers end with the session).
    outputs: Pool<OutputWork>,
    /// Client-side commands the client listed at initialize.
    client_commands: Mutex<ClientCommands>,
    /// The runtime the session's handlers run on, which pool workers publish through.
    runtime: Mutex<Option<tokio::runtime::Handle>>,
}

/// Forwarded outputs waiting for a pool worker.
struct OutputWork {
    session: Session,
    what: Output,
}

enum Output {
    Terminal(TerminalOutputParams),
    /// Cells of one notebook: `sources` are all its cell sources (for the model hint).
    Cells {
        notebook: Uri,
        jobs: Vec<CellJob>,
        sources: Vec<Arc<String>>,
    },
}

struct CellJob {
    cell: CellOutputs,
    /// The cell's output generation when these outputs came (see [`Check::Generation`]).
    generation: u64,
    source: Arc<String>,
}

/// Work for one terminal (as the client names it) or one notebook coalesces.
#[derive(Debug, PartialEq)]
enum OutputKey {
    Terminal(String),
    Notebook(Uri),
}

impl Output {
    fn describe(&self) -> String {
        match self {
            Output::Terminal(p) => format!("the output of `{}`", p.command_line),
            Output::Cells { notebook, jobs, .. } => {
                format!(
                    "the outputs of {} cells of {}",
                    jobs.len(),
                    notebook.as_str()
                )
            }
        }
    }
}

impl Work for OutputWork {
    type Key = OutputKey;

    fn key(&self) -> Option<OutputKey> {
        match &self.what {
            Output::Terminal(p) => p.terminal_id.clone().map(OutputKey::Terminal),
            Output::Cells { notebook, .. } => Some(OutputKey::Notebook(notebook.clone())),
        }
    }

    fn absorb(&mut self, newer: Self) {
        match (&mut self.what, newer.what) {
            (
                Output::Cells { jobs, sources, .. },
                Output::Cells {
                    jobs: newer_jobs,
                    sources: newer_sources,
                    ..
                },
            ) => {
                // Per cell, the newer outputs replace the older; cells only the older lists stay.
                for job in newer_jobs {
                    match jobs
                        .iter_mut()
                        .find(|j| j.cell.cell_uri == job.cell.cell_uri)
                    {
                        Some(queued) => *queued = job,
                        None => jobs.push(job),
                    }
                }
                *sources = newer_sources;
            }
            (what, newer) => *what = newer,
        }
    }

    fn weight(&self) -> usize {
        match &self.what {
            Output::Terminal(p) => p.text.len(),
            // Cell sources are shared with the open documents: only the outputs are held here.
            Output::Cells { jobs, .. } => jobs
                .iter()
                .flat_map(|j| &j.cell.outputs)
                .map(|o| o.text.len())
                .sum(),
        }
    }

    fn run(self) {
        // Set by `Session::queue` before anything is pushed.
        let Some(runtime) = lock(&self.session.shared.runtime).clone() else {
            return;
        };
        // Logging and publishing spawn on the session's runtime.
        let _runtime = runtime.enter();
        match self.what {
            Output::Terminal(params) => self.session.diagnose_terminal(params),
            Output::Cells { jobs, sources, .. } => self.session.diagnose_cells(jobs, sources),
        }
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// Documents larger than this give their freed memory back after whole-text work.
const BIG_DOCUMENT: usize = 4 << 20;

/// How long after publishing a large analysis its freed memory is given back.
const SETTLE: Duration = Duration::from_millis(100);

#[derive(Debug, Default)]
struct AnalysisState {
    /// An analysis loop runs for the document.
    running: bool,
    /// When the document first changed since the running loop last took a snapshot.
    dirty_since: Option<Instant>,
}

/// Ends a document's analysis loop however the task ends (returns, panics, runtime shutdown).
struct Running {
    session: Session,
    uri: Uri,
    /// The loop ended itself (the entry may already belong to a newer loop).
    ended: bool,
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.ended {
            lock(&self.session.shared.analyses).remove(&self.uri);
        }
    }
}

/// When the outcome of some analysis may be published.
#[derive(Debug, Clone, Copy)]
enum Check {
    /// The text document is still open at this version, under the same settings.
    Version(i32, u64),
    /// No newer `abidoc/cellOutputs` arrived for this cell, and the settings did not change.
    Generation(u64, u64),
    /// Always (clearing a closed document).
    Always,
}

/// Set when a request's future is dropped (`$/cancelRequest`): blocking work not yet started skips.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic caught elsewhere may have poisoned the lock; the data is still consistent because
    // every mutation here completes or is not started.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A document's caches, emptied if an analysis panicked while filling them: unlike the maps
/// above, a memo half-updated by an unwinding analysis is not known to be consistent.
fn lock_cache(m: &Mutex<DocumentMemo>) -> MutexGuard<'_, DocumentMemo> {
    match m.lock() {
        Ok(guard) => guard,
        Err(poisoned) => {
            let mut guard = poisoned.into_inner();
            *guard = DocumentMemo::default();
            m.clear_poison();
            guard
        }
    }
}

/// Runs a handler's future, turning a panic in any of its polls into `Err(message)`; the future
/// is not polled again.
pub async fn contained<T>(future: impl std::future::Future<Output = T>) -> Result<T, String> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(|cx| {
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(std::task::Poll::Ready(value)) => std::task::Poll::Ready(Ok(value)),
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Err(payload) => std::task::Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    })
    .await
}

/// Text carrying this marker panics the analysis that reads it, in unit tests only: they check
/// that a panic stays inside its request or notification.
#[cfg(test)]
pub const TEST_PANIC_MARKER: &str = "ABIDOC_TEST_PANIC";

/// Panics on [`TEST_PANIC_MARKER`] under `cfg(test)`; nothing in any other build.
#[inline]
fn test_panic(_text: &str) {
    #[cfg(test)]
    if _text.contains(TEST_PANIC_MARKER) {
        std::panic::panic_any(format!("{TEST_PANIC_MARKER} (on purpose)"));
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

/// Runs `f` on the blocking pool, turning a panic into an error message.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let joined =
        tokio::task::spawn_blocking(move || std::panic::catch_unwind(AssertUnwindSafe(f))).await;
    match joined {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(payload)) => Err(panic_message(payload.as_ref())),
        Err(err) => Err(err.to_string()),
    }
}

/// Runs `f` on the session's analysis thread, turning a panic into an error message. Document
/// analyses allocate and free tens of megabytes on a large text: on one thread they reuse one
/// allocator arena instead of leaving freed memory behind in every blocking-pool thread's arena.
async fn on_analysis_thread<T: Send + 'static>(
    shared: &Shared,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let result = std::panic::catch_unwind(AssertUnwindSafe(f))
            .map_err(|payload| panic_message(payload.as_ref()));
        let _ = tx.send(result);
    });
    {
        let mut sender = lock(&shared.analysis_thread);
        let job = match sender.as_ref() {
            Some(s) => s.send(job).err().map(|std::sync::mpsc::SendError(job)| job),
            None => Some(job),
        };
        if let Some(job) = job {
            let (s, r) = std::sync::mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("abidoc-analysis".to_owned())
                .spawn(move || {
                    while let Ok(job) = r.recv() {
                        job();
                    }
                })
                .map_err(|e| e.to_string())?;
            s.send(job).map_err(|e| e.to_string())?;
            *sender = Some(s);
        }
    }
    rx.await
        .map_err(|_| "the analysis thread stopped".to_owned())?
}

fn diagnosable(kind: DocKind) -> bool {
    matches!(kind, DocKind::Log | DocKind::NotebookJson)
}

fn filter_disabled(diags: Vec<Diagnostic>, settings: &Settings) -> Vec<Diagnostic> {
    diags
        .into_iter()
        .filter(|d| !settings.is_disabled(d.code))
        .collect()
}

fn internal(message: String) -> jsonrpc::Error {
    jsonrpc::Error {
        code: jsonrpc::ErrorCode::InternalError,
        message: message.into(),
        data: None,
    }
}

pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                ..TextDocumentSyncOptions::default()
            },
        )),
        notebook_document_sync: Some(OneOf::Left(NotebookDocumentSyncOptions {
            notebook_selector: vec![NotebookSelector::ByNotebook {
                notebook: proto::Notebook::String("jupyter-notebook".to_owned()),
                cells: Some(vec![NotebookCellSelector {
                    language: "python".to_owned(),
                }]),
            }],
            save: Some(false),
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            resolve_provider: Some(false),
            ..CodeActionOptions::default()
        })),
        document_link_provider: Some(DocumentLinkOptions {
            resolve_provider: Some(false),
            work_done_progress_options: proto::WorkDoneProgressOptions::default(),
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![
                proto::CMD_SCAN_ENVIRONMENT.to_owned(),
                proto::CMD_SHOW_FIX.to_owned(),
            ],
            work_done_progress_options: proto::WorkDoneProgressOptions::default(),
        }),
        experimental: Some(serde_json::json!({
            "abidoc": {
                "protocolVersion": 1,
                "notifications": [proto::NOTIFY_CELL_OUTPUTS, proto::NOTIFY_TERMINAL_OUTPUT],
                "clientCommands": [proto::CMD_RUN_IN_TERMINAL, proto::CMD_INSERT_CELL]
            }
        })),
        ..ServerCapabilities::default()
    }
}

impl Session {
    pub fn new(client: Client) -> Self {
        Self {
            client,
            shared: Arc::new(Shared {
                host: AnalysisHost::with_memory_release(crate::memory::release_free_memory),
                ..Shared::default()
            }),
        }
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.shared.store)
    }

    fn settings(&self) -> Settings {
        lock(&self.shared.settings).clone()
    }

    fn settings_generation(&self) -> u64 {
        self.shared.settings_generation.load(Ordering::SeqCst)
    }

    /// Runs a synchronous handler body, logging instead of unwinding into the transport.
    fn guarded<T>(&self, what: &str, f: impl FnOnce() -> T) -> Option<T> {
        match std::panic::catch_unwind(AssertUnwindSafe(f)) {
            Ok(value) => Some(value),
            Err(payload) => {
                self.log(
                    MessageType::ERROR,
                    format!("abidoc: {what} failed: {}", panic_message(payload.as_ref())),
                );
                None
            }
        }
    }

    pub fn log_error(&self, message: String) {
        self.log(MessageType::ERROR, message);
    }

    fn log(&self, typ: MessageType, message: String) {
        let level = match typ {
            MessageType::ERROR => LogLevel::Error,
            MessageType::WARNING => LogLevel::Warn,
            MessageType::INFO => LogLevel::Info,
            _ => LogLevel::Debug,
        };
        if level > lock(&self.shared.settings).log_level {
            return;
        }
        let client = self.client.clone();
        tokio::spawn(async move { client.log_message(typ, message).await });
    }

    // ---- lifecycle and configuration ----

    pub fn initialize(&self, params: InitializeParams) -> InitializeResult {
        let pull = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.configuration)
            .unwrap_or(false);
        self.shared
            .pull_configuration
            .store(pull, Ordering::Relaxed);
        *lock(&self.shared.client_commands) =
            ClientCommands::from_experimental(params.capabilities.experimental.as_ref());
        if let Some(options) = params.initialization_options.filter(|v| !v.is_null()) {
            let (settings, warnings) = Settings::from_json(&options);
            *lock(&self.shared.settings) = settings;
            *lock(&self.shared.startup_warnings) = warnings;
        }
        InitializeResult {
            capabilities: capabilities(),
            server_info: Some(ServerInfo {
                name: "abidoc".to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            }),
            offset_encoding: None,
        }
    }

    pub fn initialized(&self) {
        for warning in std::mem::take(&mut *lock(&self.shared.startup_warnings)) {
            self.log(MessageType::WARNING, warning);
        }
        self.prepare_environment();
        if self.shared.pull_configuration.load(Ordering::Relaxed) {
            let session = self.clone();
            tokio::spawn(async move { session.pull_configuration().await });
        }
    }

    async fn pull_configuration(&self) {
        let item = ConfigurationItem {
            scope_uri: None,
            section: Some("abidoc".to_owned()),
        };
        match self.client.configuration(vec![item]).await {
            Ok(values) => match values.into_iter().next() {
                // A client with no `abidoc` section answers null: keep what initializationOptions said.
                Some(value) if !value.is_null() => self.apply_settings(&value),
                _ => {}
            },
            Err(err) => self.log(
                MessageType::WARNING,
                format!("abidoc: workspace/configuration failed: {err}"),
            ),
        }
    }

    fn apply_settings(&self, value: &serde_json::Value) {
        let (settings, warnings) = Settings::from_json(value);
        for warning in warnings {
            self.log(MessageType::WARNING, warning);
        }
        let changed = {
            let mut current = lock(&self.shared.settings);
            let changed = *current != settings;
            *current = settings;
            if changed {
                self.shared
                    .settings_generation
                    .fetch_add(1, Ordering::SeqCst);
            }
            changed
        };
        if changed {
            self.prepare_environment();
            self.rediagnose_all();
        }
    }

    /// Builds what hovers read from the configured environment (torch's exports) on the
    /// analysis thread, ahead of any request, then gives back what building it freed. Queued
    /// before the analyses the same change schedules, so they find the environment open.
    fn prepare_environment(&self) {
        let settings = self.settings();
        let session = self.clone();
        tokio::spawn(async move {
            let shared = session.shared.clone();
            let prepared = on_analysis_thread(&session.shared, move || {
                let built = shared.host.prepare_environment(&settings.context(None));
                crate::memory::release_free_memory();
                built
            })
            .await;
            if let Err(err) = prepared {
                session.log(
                    MessageType::ERROR,
                    format!("abidoc: reading the environment failed: {err}"),
                );
            }
        });
    }

    pub fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let settings = &params.settings;
        let carries_section = settings.as_object().is_some_and(|o| {
            o.contains_key("abidoc")
                || o.keys().any(|k| {
                    let k = k.strip_prefix("abidoc.").unwrap_or(k);
                    Settings::KEYS.iter().any(|(key, _)| *key == k)
                })
        });
        if carries_section {
            self.apply_settings(settings);
        } else if self.shared.pull_configuration.load(Ordering::Relaxed) {
            let session = self.clone();
            tokio::spawn(async move { session.pull_configuration().await });
        }
    }

    fn rediagnose_all(&self) {
        let docs: Vec<(Uri, Arc<Mutex<DocumentMemo>>)> = self
            .store()
            .docs
            .iter()
            .filter(|(_, d)| diagnosable(d.kind))
            .map(|(u, d)| (u.clone(), d.cache.clone()))
            .collect();
        for (uri, cache) in docs {
            // Outside the store's lock: an analysis may hold the cache for a while.
            lock_cache(&cache).forget_diagnoses();
            self.schedule(uri);
        }
        let outputs: Vec<(Uri, CellOutputs)> =
            lock(&self.shared.last_outputs).values().cloned().collect();
        for (notebook_uri, cell) in outputs {
            self.cell_outputs(CellOutputsParams {
                notebook_uri,
                cells: vec![cell],
            });
        }
    }

    // ---- text documents ----

    pub fn did_open(&self, params: DidOpenTextDocumentParams) {
        let item = params.text_document;
        let scheduled = self.guarded("didOpen", || {
            let mut store = self.store();
            let is_cell = store.cell_notebook.contains_key(&item.uri);
            let kind = DocKind::classify(&item.uri, &item.language_id, is_cell);
            store.docs.insert(
                item.uri.clone(),
                Document::new(item.version, kind, item.text),
            );
            diagnosable(kind).then_some(item.uri)
        });
        if let Some(Some(uri)) = scheduled {
            self.schedule(uri);
        }
    }

    pub fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        let scheduled = self.guarded("didChange", || {
            let mut store = self.store();
            let doc = store.docs.get_mut(&uri)?;
            doc.apply(version, params.content_changes);
            diagnosable(doc.kind).then_some(())
        });
        if let Some(Some(())) = scheduled {
            self.schedule(uri);
        }
    }

    pub fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        let (had, closed_len) = {
            let mut store = self.store();
            let had = store.published.contains_key(&uri);
            let len = store.docs.get(&uri).map_or(0, |d| d.text.len());
            store.close(&uri);
            (had, len)
        };
        if had {
            self.spawn_publish(uri, Check::Always, None, Published::default());
        }
        if closed_len > BIG_DOCUMENT {
            let session = self.clone();
            tokio::spawn(async move {
                let _ =
                    on_analysis_thread(&session.shared, crate::memory::release_free_memory).await;
            });
        }
    }

    /// Diagnoses `uri` at once when no analysis of it is running (the leading edge: a single
    /// edit waits for nothing). Edits that arrive while one runs are coalesced into one more
    /// analysis of the latest text, started no sooner than [`DEBOUNCE`] after the previous one
    /// started (the trailing edge). Publishing stays version-checked.
    fn schedule(&self, uri: Uri) {
        {
            let mut tasks = lock(&self.shared.analyses);
            let state = tasks.entry(uri.clone()).or_default();
            state.dirty_since.get_or_insert_with(Instant::now);
            if state.running {
                return;
            }
            state.running = true;
        }
        let session = self.clone();
        tokio::spawn(async move {
            let mut running = Running {
                session: session.clone(),
                uri: uri.clone(),
                ended: false,
            };
            // When the last analysis started, and when its result was ready.
            let mut last: Option<(Instant, Instant)> = None;
            loop {
                let dirty_since = {
                    // Checked and ended under one lock, so an edit either sees this loop
                    // running (and is picked up) or starts a new one.
                    let mut tasks = lock(&session.shared.analyses);
                    match tasks.get(&uri).and_then(|s| s.dirty_since) {
                        Some(t) => t,
                        None => {
                            tasks.remove(&uri);
                            running.ended = true;
                            return;
                        }
                    }
                };
                // Edits that came while the last analysis ran are a burst: wait out the rest
                // of the debounce. An edit after its result was ready is diagnosed at once.
                if let Some((started, ready)) = last
                    && dirty_since < ready
                {
                    let wait = DEBOUNCE.saturating_sub(started.elapsed());
                    if !wait.is_zero() {
                        tokio::time::sleep(wait).await;
                    }
                }
                if let Some(state) = lock(&session.shared.analyses).get_mut(&uri) {
                    state.dirty_since = None;
                }
                let started = Instant::now();
                let ready = session.analyse(&uri).await.unwrap_or_else(Instant::now);
                last = Some((started, ready));
            }
        });
    }

    /// Diagnoses the current version of `uri` and publishes it if it is still current. Returns
    /// when the result was ready (before publishing).
    async fn analyse(&self, uri: &Uri) -> Option<Instant> {
        let snap = self.store().snapshot(uri).filter(|s| diagnosable(s.kind))?;
        let version = snap.version;
        let settings_generation = self.settings_generation();
        let settings = self.settings();
        let shared = self.shared.clone();
        let analysed = on_analysis_thread(&self.shared, move || {
            test_panic(&snap.text);
            let ctx = settings.context(None);
            let mut cache = lock_cache(&snap.cache);
            let (diags, slots) = match snap.kind {
                DocKind::NotebookJson => shared.host.diagnose_notebook_kept(
                    &snap.text,
                    snap.slots.clone(),
                    &ctx,
                    &mut cache,
                ),
                _ => (
                    shared.host.diagnose_text_kept(&snap.text, &ctx, &mut cache),
                    None,
                ),
            };
            drop(cache);
            let diags = filter_disabled(diags, &settings);
            let entries = to_proto::text_entries(&snap.uri, &snap.text, &snap.index, diags);
            // Whole-text work on a large document (its first analysis, any analysis of a log)
            // leaves tens of MB freed behind it; an incremental edit does not.
            let whole = snap.kind != DocKind::NotebookJson || snap.slots.is_none();
            // The libraries parsed to check those the text names (torch's, ~60 MB) are not
            // kept: their reports are, and they are all a later analysis or hover reads.
            let released = shared.host.release_parsed_libraries();
            let trim = released || (whole && snap.text.len() > BIG_DOCUMENT);
            (entries, slots, trim)
        })
        .await;
        let ready = Instant::now();
        match analysed {
            Ok((entries, slots, trim)) => {
                if let Some(slots) = slots
                    && let Some(doc) = self.store().docs.get_mut(uri)
                    && doc.version == version
                {
                    doc.slots = Some(slots);
                }
                let published = Published {
                    version: Some(version),
                    entries,
                    from_outputs: false,
                };
                self.publish(
                    uri.clone(),
                    Check::Version(version, settings_generation),
                    Some(version),
                    published,
                )
                .await;
                if trim {
                    // Once publishing settled: what the analysis freed (its snapshot, results,
                    // the reopened environment's predecessor) is not all free when it returns.
                    let session = self.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(SETTLE).await;
                        let _ =
                            on_analysis_thread(&session.shared, crate::memory::release_free_memory)
                                .await;
                    });
                }
            }
            Err(err) => {
                let message = format!("abidoc: diagnosing {} failed: {err}", uri.as_str());
                self.client.log_message(MessageType::ERROR, message).await;
            }
        }
        Some(ready)
    }

    fn spawn_publish(&self, uri: Uri, check: Check, version: Option<i32>, published: Published) {
        let session = self.clone();
        tokio::spawn(async move { session.publish(uri, check, version, published).await });
    }

    async fn publish(&self, uri: Uri, check: Check, version: Option<i32>, published: Published) {
        let _gate = self.shared.publish_gate.lock().await;
        let diagnostics = {
            let mut store = self.store();
            let current = match check {
                Check::Version(v, s) => {
                    store.version(&uri) == Some(v) && self.settings_generation() == s
                }
                Check::Generation(g, s) => {
                    store.output_generation.get(&uri).copied().unwrap_or(0) == g
                        && self.settings_generation() == s
                }
                Check::Always => true,
            };
            // Clients send every cell's outputs each time: an empty result for a cell that never
            // had diagnostics is not worth a message.
            let nothing_to_clear = published.entries.is_empty()
                && matches!(check, Check::Generation(..))
                && !store.published.contains_key(&uri);
            if !current || nothing_to_clear {
                return;
            }
            let diagnostics: Vec<proto::Diagnostic> = published
                .entries
                .iter()
                .map(|e| e.published.clone())
                .collect();
            if published.entries.is_empty() {
                store.published.remove(&uri);
            } else {
                store.published.insert(uri.clone(), published);
            }
            diagnostics
        };
        self.client
            .publish_diagnostics(uri, diagnostics, version)
            .await;
    }

    // ---- notebooks ----

    pub fn notebook_did_open(&self, params: DidOpenNotebookDocumentParams) {
        self.guarded("notebookDocument/didOpen", || {
            let nb = params.notebook_document;
            let mut store = self.store();
            for item in params.cell_text_documents {
                store.cell_notebook.insert(item.uri.clone(), nb.uri.clone());
                store.docs.insert(
                    item.uri,
                    Document::new(item.version, DocKind::Cell, item.text),
                );
            }
            let cells = nb
                .cells
                .iter()
                .map(|c| (c.document.clone(), c.kind == NotebookCellKind::CODE))
                .collect();
            store.notebooks.insert(
                nb.uri,
                NotebookDoc {
                    version: nb.version,
                    cells,
                },
            );
        });
    }

    pub fn notebook_did_change(&self, params: DidChangeNotebookDocumentParams) {
        let closed = self.guarded("notebookDocument/didChange", || {
            let uri = params.notebook_document.uri;
            let mut closed = Vec::new();
            let mut guard = self.store();
            let store = &mut *guard;
            let Some(nb) = store.notebooks.get_mut(&uri) else {
                return closed;
            };
            nb.version = params.notebook_document.version;
            let Some(cells) = params.change.cells else {
                return closed;
            };
            if let Some(structure) = cells.structure {
                let len = nb.cells.len();
                let start = (structure.array.start as usize).min(len);
                let end = start
                    .saturating_add(structure.array.delete_count as usize)
                    .min(len);
                let inserted = structure.array.cells.unwrap_or_default();
                nb.cells.splice(
                    start..end,
                    inserted
                        .iter()
                        .map(|c| (c.document.clone(), c.kind == NotebookCellKind::CODE)),
                );
                for item in structure.did_open.unwrap_or_default() {
                    store.cell_notebook.insert(item.uri.clone(), uri.clone());
                    store.docs.insert(
                        item.uri,
                        Document::new(item.version, DocKind::Cell, item.text),
                    );
                }
                for ident in structure.did_close.unwrap_or_default() {
                    store.cell_notebook.remove(&ident.uri);
                    if store.published.contains_key(&ident.uri) {
                        closed.push(ident.uri.clone());
                    }
                    store.close(&ident.uri);
                }
            }
            if let Some(data) = cells.data
                && let Some(nb) = store.notebooks.get_mut(&uri)
            {
                for cell in data {
                    if let Some(slot) = nb.cells.iter_mut().find(|(u, _)| *u == cell.document) {
                        slot.1 = cell.kind == NotebookCellKind::CODE;
                    }
                }
            }
            for content in cells.text_content.unwrap_or_default() {
                if let Some(doc) = store.docs.get_mut(&content.document.uri) {
                    doc.apply(content.document.version, content.changes);
                }
            }
            closed
        });
        for uri in closed.unwrap_or_default() {
            lock(&self.shared.last_outputs).remove(&uri);
            self.spawn_publish(uri, Check::Always, None, Published::default());
        }
    }

    pub fn notebook_did_close(&self, params: DidCloseNotebookDocumentParams) {
        let uri = params.notebook_document.uri;
        let closed: Vec<Uri> = {
            let mut store = self.store();
            let mut cells: Vec<Uri> = store
                .notebooks
                .remove(&uri)
                .map(|nb| nb.cells.into_iter().map(|c| c.0).collect())
                .unwrap_or_default();
            cells.extend(params.cell_text_documents.into_iter().map(|c| c.uri));
            cells.sort();
            cells.dedup();
            cells
                .into_iter()
                .filter(|cell| {
                    store.cell_notebook.remove(cell);
                    let had = store.published.contains_key(cell);
                    store.close(cell);
                    had
                })
                .collect()
        };
        let mut last = lock(&self.shared.last_outputs);
        last.retain(|_, (notebook, _)| *notebook != uri);
        drop(last);
        for cell in closed {
            self.spawn_publish(cell, Check::Always, None, Published::default());
        }
    }

    /// `abidoc/cellOutputs`: diagnoses each cell's outputs and publishes on the cell URI.
    pub fn cell_outputs(&self, params: CellOutputsParams) {
        let prepared = self.guarded("abidoc/cellOutputs", || {
            let mut last = lock(&self.shared.last_outputs);
            let mut store = self.store();
            let sources = store.cell_sources(&params.notebook_uri);
            let jobs: Vec<_> = params
                .cells
                .into_iter()
                .map(|cell| {
                    let generation = store
                        .output_generation
                        .entry(cell.cell_uri.clone())
                        .or_default();
                    *generation += 1;
                    let generation = *generation;
                    let source = store
                        .docs
                        .get(&cell.cell_uri)
                        .map(|d| d.text.clone())
                        .unwrap_or_default();
                    last.insert(
                        cell.cell_uri.clone(),
                        (params.notebook_uri.clone(), cell.clone()),
                    );
                    (cell, generation, source)
                })
                .collect();
            (jobs, sources)
        });
        let Some((jobs, sources)) = prepared else {
            return;
        };
        let jobs = jobs
            .into_iter()
            .map(|(cell, generation, source)| CellJob {
                cell,
                generation,
                source,
            })
            .collect();
        self.queue(OutputWork {
            session: self.clone(),
            what: Output::Cells {
                notebook: params.notebook_uri,
                jobs,
                sources,
            },
        });
    }

    /// `abidoc/terminalOutput`: diagnoses the text and answers with `abidoc/terminalDiagnosis`.
    pub fn terminal_output(&self, params: TerminalOutputParams) {
        self.queue(OutputWork {
            session: self.clone(),
            what: Output::Terminal(params),
        });
    }

    /// Hands forwarded outputs to the pool; never waits.
    fn queue(&self, work: OutputWork) {
        {
            // Workers publish through the runtime the handlers run on.
            let mut runtime = lock(&self.shared.runtime);
            if runtime.is_none() {
                *runtime = tokio::runtime::Handle::try_current().ok();
            }
            if runtime.is_none() {
                return;
            }
        }
        match self.shared.outputs.push(work) {
            Ok(Pushed::Queued | Pushed::Coalesced) => {}
            Ok(Pushed::Dropped(dropped)) => {
                for work in dropped {
                    self.log(
                        MessageType::WARNING,
                        format!(
                            "abidoc: too many outputs waiting; dropped {} without diagnosing it",
                            work.what.describe()
                        ),
                    );
                }
            }
            Err(err) => self.log(
                MessageType::ERROR,
                format!("abidoc: cannot diagnose outputs: {err}"),
            ),
        }
    }

    /// Runs on a pool worker: diagnoses cell outputs and publishes on each cell.
    fn diagnose_cells(&self, jobs: Vec<CellJob>, sources: Vec<Arc<String>>) {
        let settings_generation = self.settings_generation();
        let settings = self.settings();
        let analysed = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let hint = crate::model_hint::model_hint(sources.iter().map(|s| s.as_str()));
            let ctx = settings.context(hint);
            jobs.into_iter()
                .map(|job| {
                    let text = crate::outputs::output_text(&job.cell.outputs);
                    test_panic(&text);
                    let diags = if text.trim().is_empty() {
                        Vec::new()
                    } else {
                        filter_disabled(self.shared.host.diagnose_text(&text, &ctx), &settings)
                    };
                    let entries = diags
                        .into_iter()
                        .map(|d| {
                            let line = crate::outputs::anchor_line(&job.source, &text, &d);
                            let range = to_proto::line_range(&job.source, line);
                            let published = to_proto::diagnostic(&d, range, Vec::new());
                            Entry {
                                range,
                                diagnostic: d,
                                published,
                            }
                        })
                        .collect::<Vec<_>>();
                    (job.cell.cell_uri, job.generation, entries)
                })
                .collect::<Vec<_>>()
        }));
        match analysed {
            Ok(results) => self.on_runtime(async {
                for (uri, generation, entries) in results {
                    let published = Published {
                        version: None,
                        entries,
                        from_outputs: true,
                    };
                    self.publish(
                        uri,
                        Check::Generation(generation, settings_generation),
                        None,
                        published,
                    )
                    .await;
                }
            }),
            Err(payload) => self.log(
                MessageType::ERROR,
                format!(
                    "abidoc: diagnosing cell outputs failed: {}",
                    panic_message(payload.as_ref())
                ),
            ),
        }
    }

    /// Runs on a pool worker: diagnoses a terminal's output and answers with
    /// `abidoc/terminalDiagnosis`.
    fn diagnose_terminal(&self, params: TerminalOutputParams) {
        let settings = self.settings();
        let analysed = std::panic::catch_unwind(AssertUnwindSafe(|| {
            test_panic(&params.text);
            let ctx = settings.context(None);
            filter_disabled(
                self.shared.host.diagnose_text(&params.text, &ctx),
                &settings,
            )
        }));
        match analysed {
            Ok(diags) => {
                let diagnostics = diags
                    .iter()
                    .map(|d| TerminalDiagnostic {
                        code: d.code.as_str().to_owned(),
                        severity: d.severity.as_str().to_owned(),
                        message: d.message.clone(),
                        fixes: d.fixes.iter().map(to_proto::fix_payload).collect(),
                    })
                    .collect();
                let params = TerminalDiagnosisParams {
                    command_line: params.command_line,
                    diagnostics,
                };
                self.on_runtime(self.client.send_notification::<TerminalDiagnosis>(params));
            }
            Err(payload) => self.log(
                MessageType::ERROR,
                format!(
                    "abidoc: diagnosing terminal output failed: {}",
                    panic_message(payload.as_ref())
                ),
            ),
        }
    }

    /// Drives `future` from a pool worker on the session's runtime, so a worker sends its
    /// results before taking more work.
    fn on_runtime(&self, future: impl std::future::Future<Output = ()>) {
        let runtime = lock(&self.shared.runtime).clone();
        if let Some(runtime) = runtime {
            runtime.block_on(future);
        }
    }

    pub fn malformed_message(&self, reason: &str) {
        self.log(
            MessageType::WARNING,
            format!("abidoc: ignored a malformed message ({reason})"),
        );
    }

    // ---- requests ----

    pub async fn hover(&self, params: HoverParams) -> jsonrpc::Result<Option<Hover>> {
        let uri = params.text_document_position_params.text_document.uri;
        let pos = params.text_document_position_params.position;
        let (snap, entries, sources) = {
            let store = self.store();
            let snap = store.snapshot(&uri);
            let entries: Vec<Entry> = store
                .published
                .get(&uri)
                .map(|p| {
                    p.entries
                        .iter()
                        .filter(|e| e.range.start <= pos && pos <= e.range.end)
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            let sources = store
                .cell_notebook
                .get(&uri)
                .map(|nb| store.cell_sources(nb))
                .unwrap_or_default();
            (snap, entries, sources)
        };
        if snap.is_none() && entries.is_empty() {
            return Ok(None);
        }
        test_panic(uri.as_str());
        let settings = self.settings();
        let cancelled = Arc::new(AtomicBool::new(false));
        let _cancel = CancelOnDrop(cancelled.clone());
        let shared = self.shared.clone();
        blocking(move || {
            if cancelled.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(snap) = &snap {
                test_panic(&snap.text);
            }
            let hint = if sources.is_empty() {
                None
            } else {
                crate::model_hint::model_hint(sources.iter().map(|s| s.as_str()))
            };
            let ctx = settings.context(hint);
            let symbol = snap.as_ref().and_then(|s| {
                let at = offset(&s.index, &s.text, pos);
                let h = shared.host.hover(&s.text, at, &ctx)?;
                Some((h.markdown, to_proto::range(&s.text, &s.index, h.span)))
            });
            let diagnosed = (!entries.is_empty()).then(|| {
                let md: Vec<String> = entries
                    .iter()
                    .map(|e| to_proto::diagnostic_markdown(&e.diagnostic))
                    .collect();
                (
                    md.join("\n\n---\n\n"),
                    entries
                        .iter()
                        .map(|e| e.range)
                        .reduce(cover)
                        .unwrap_or_default(),
                )
            });
            // The analysis hover explains the word (symbol, path); the diagnoses under the cursor
            // are explained from what was published, below it.
            let (markdown, range) = match (symbol, diagnosed) {
                (Some((s, r)), Some((d, _))) => (format!("{s}\n\n---\n\n{d}"), r),
                (Some(s), None) | (None, Some(s)) => s,
                (None, None) => return None,
            };
            Some(to_proto::markdown_hover(markdown, Some(range)))
        })
        .await
        .map_err(internal)
    }

    pub fn code_action(
        &self,
        params: CodeActionParams,
    ) -> jsonrpc::Result<Option<CodeActionResponse>> {
        if let Some(only) = &params.context.only
            && !only
                .iter()
                .any(|k| CodeActionKind::QUICKFIX.as_str().starts_with(k.as_str()))
        {
            return Ok(None);
        }
        let uri = params.text_document.uri;
        let client = *lock(&self.shared.client_commands);
        let actions = self.guarded("codeAction", || {
            let store = self.store();
            let published = store.published.get(&uri)?;
            let doc = store.docs.get(&uri);
            test_panic(doc.map_or("", |d| d.text.as_str()));
            let kind = doc.map(|d| d.kind);
            let target = if published.from_outputs || kind == Some(DocKind::Cell) {
                ActionTarget::Cell { cell: uri.clone() }
            } else if kind == Some(DocKind::NotebookJson) {
                ActionTarget::NotebookJson {
                    notebook: uri.clone(),
                }
            } else {
                ActionTarget::Text
            };
            let actions: CodeActionResponse = published
                .entries
                .iter()
                .filter(|e| to_proto::ranges_touch(e.range, params.range))
                .flat_map(|e| to_proto::code_actions(e, &target, client))
                .collect();
            Some(actions)
        });
        match actions {
            Some(actions) => Ok(actions.filter(|a| !a.is_empty())),
            None => Err(internal("codeAction failed".to_owned())),
        }
    }

    pub async fn document_link(
        &self,
        params: DocumentLinkParams,
    ) -> jsonrpc::Result<Option<Vec<DocumentLink>>> {
        let Some(snap) = self.store().snapshot(&params.text_document.uri) else {
            return Ok(None);
        };
        let cancelled = Arc::new(AtomicBool::new(false));
        let _cancel = CancelOnDrop(cancelled.clone());
        blocking(move || {
            if cancelled.load(Ordering::Relaxed) {
                return None;
            }
            let links: Vec<DocumentLink> = crate::links::find_paths(&snap.text)
                .into_iter()
                .filter(|p| std::path::Path::new(&p.path).is_file())
                .filter_map(|p| {
                    let file = Uri::from_file_path(&p.path)?;
                    let target = match p.line {
                        Some(line) => Uri::from_str(&format!("{}#L{line}", file.as_str())).ok()?,
                        None => file,
                    };
                    Some(DocumentLink {
                        range: to_proto::range(&snap.text, &snap.index, p.span),
                        target: Some(target),
                        tooltip: Some(format!("Open {}", p.path)),
                        data: None,
                    })
                })
                .collect();
            Some(links)
        })
        .await
        .map_err(internal)
    }

    pub async fn execute_command(
        &self,
        params: ExecuteCommandParams,
    ) -> jsonrpc::Result<Option<LSPAny>> {
        match params.command.as_str() {
            proto::CMD_SCAN_ENVIRONMENT => self.scan_environment().await.map(Some),
            proto::CMD_SHOW_FIX => self.show_fix(params.arguments).map(Some),
            other => Err(jsonrpc::Error::invalid_params(format!(
                "unknown command `{other}`"
            ))),
        }
    }

    /// `abidoc.showFix`: shows the fix to a client that cannot run it (`window/showMessage`) and
    /// returns its text. Runs nothing.
    fn show_fix(&self, arguments: Vec<LSPAny>) -> jsonrpc::Result<LSPAny> {
        let fix = arguments
            .into_iter()
            .next()
            .and_then(|a| serde_json::from_value::<proto::FixPayload>(a).ok())
            .ok_or_else(|| {
                jsonrpc::Error::invalid_params(format!("{} takes one fix", proto::CMD_SHOW_FIX))
            })?;
        let text = to_proto::fix_text(&fix);
        let client = self.client.clone();
        let message = text.clone();
        tokio::spawn(async move { client.show_message(MessageType::INFO, message).await });
        Ok(LSPAny::String(text))
    }

    /// `abidoc.scanEnvironment`: publishes findings on the library URIs, clears stale ones.
    async fn scan_environment(&self) -> jsonrpc::Result<LSPAny> {
        let settings = self.settings();
        let cancelled = Arc::new(AtomicBool::new(false));
        let _cancel = CancelOnDrop(cancelled.clone());
        let shared = self.shared.clone();
        let outcome = blocking(move || {
            if cancelled.load(Ordering::Relaxed) {
                return Err("cancelled".to_owned());
            }
            let ctx = settings.context(None);
            let options = abidoc_ide::ScanOptions {
                use_cache: true,
                ..abidoc_ide::ScanOptions::default()
            };
            shared.host.scan(&ctx, &options).map(|mut outcome| {
                // A diagnosis and its meta go together (`ScanOutcome::meta` is in step).
                let (diagnostics, meta) = std::mem::take(&mut outcome.diagnostics)
                    .into_iter()
                    .zip(std::mem::take(&mut outcome.meta))
                    .filter(|(d, _)| !settings.is_disabled(d.code))
                    .unzip();
                outcome.diagnostics = diagnostics;
                outcome.meta = meta;
                outcome
            })
        })
        .await
        .map_err(internal)?
        .map_err(|e| jsonrpc::Error {
            code: jsonrpc::ErrorCode::ServerError(-32803),
            message: format!("abidoc.scanEnvironment failed: {e}").into(),
            data: None,
        })?;
        // The result carries every diagnosis in the contract's shape, with how a report folds
        // it and its package's version (PROTOCOL.md).
        let reported: Vec<serde_json::Value> = outcome
            .diagnostics
            .iter()
            .zip(&outcome.meta)
            .map(|(d, m)| to_proto::scan_report_json(d, m))
            .collect();
        let mut by_library: std::collections::BTreeMap<String, Vec<Diagnostic>> =
            Default::default();
        let mut unplaced = 0usize;
        for d in outcome.diagnostics {
            match d.library.clone() {
                Some(library) => by_library.entry(library).or_default().push(d),
                None => unplaced += 1,
            }
        }
        let findings: usize = by_library.values().map(Vec::len).sum::<usize>() + unplaced;
        let mut published_uris = Vec::new();
        for (library, diags) in by_library {
            let Some(uri) = Uri::from_file_path(&library) else {
                continue;
            };
            let range = Range::default();
            let entries = diags
                .into_iter()
                .map(|d| {
                    let published = to_proto::diagnostic(&d, range, Vec::new());
                    Entry {
                        range,
                        diagnostic: d,
                        published,
                    }
                })
                .collect();
            published_uris.push(uri.clone());
            self.publish(
                uri,
                Check::Always,
                None,
                Published {
                    version: None,
                    entries,
                    from_outputs: false,
                },
            )
            .await;
        }
        let stale: Vec<Uri> = {
            let mut previous = lock(&self.shared.scan_uris);
            let stale = previous
                .iter()
                .filter(|u| !published_uris.contains(u))
                .cloned()
                .collect();
            *previous = published_uris;
            stale
        };
        for uri in stale {
            self.publish(uri, Check::Always, None, Published::default())
                .await;
        }
        // A scan is what a user runs after changing the environment: if it changed, the
        // environment kept for hovers is reopened and re-indexed now rather than on a hover.
        self.prepare_environment();
        Ok(
            serde_json::json!({"findings": findings, "summary": outcome.summary, "notes": outcome.notes, "diagnostics": reported}),
        )
    }
}

fn cover(a: Range, b: Range) -> Range {
    Range::new(a.start.min(b.start), a.end.max(b.end))
}
