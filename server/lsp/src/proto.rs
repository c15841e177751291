//! The one alias for protocol types: every LSP type this crate uses comes through here, so a move
//! to the next `tower-lsp-server` (or another `lsp-types` fork) touches this file only.

pub use tower_lsp_server::jsonrpc;
pub use tower_lsp_server::ls_types::notification::Notification as NotificationTrait;
pub use tower_lsp_server::ls_types::*;

use serde::{Deserialize, Serialize};

/// `abidoc/cellOutputs` (client → server): the outputs of notebook cells, which LSP notebook sync
/// does not carry.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CellOutputsParams {
    pub notebook_uri: Uri,
    #[serde(default)]
    pub cells: Vec<CellOutputs>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CellOutputs {
    pub cell_uri: Uri,
    #[serde(default)]
    pub execution_order: Option<u32>,
    #[serde(default)]
    pub success: Option<bool>,
    #[serde(default)]
    pub outputs: Vec<CellOutput>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct CellOutput {
    pub mime: String,
    #[serde(default)]
    pub text: String,
}

/// `abidoc/terminalOutput` (client → server): a command's output captured from a terminal.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalOutputParams {
    #[serde(default)]
    pub command_line: String,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub text: String,
    /// Chosen by the client for the terminal: a newer output of the same terminal replaces one
    /// still waiting to be diagnosed.
    #[serde(default)]
    pub terminal_id: Option<String>,
}

/// `abidoc/terminalDiagnosis` (server → client): what `abidoc/terminalOutput` found.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TerminalDiagnosisParams {
    pub command_line: String,
    pub diagnostics: Vec<TerminalDiagnostic>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct TerminalDiagnostic {
    pub code: String,
    pub severity: String,
    pub message: String,
    pub fixes: Vec<FixPayload>,
}

/// A fix as the custom messages and the `abidoc.runInTerminal` command carry it. Field names follow
/// the JSON contract (`notebook_cell`), not LSP's camelCase.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct FixPayload {
    pub title: String,
    pub commands: Vec<Vec<String>>,
    pub env: std::collections::BTreeMap<String, String>,
    pub notebook_cell: Option<String>,
    pub preferred: bool,
    /// The shell its lines are written for when not POSIX sh (`cmd` for a text from Windows),
    /// as the contract's `shell_dialect`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell_dialect: Option<String>,
}

pub enum TerminalDiagnosis {}

impl NotificationTrait for TerminalDiagnosis {
    type Params = TerminalDiagnosisParams;
    const METHOD: &'static str = "abidoc/terminalDiagnosis";
}

/// Argument of the client-side command `abidoc.runInTerminal`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct RunInTerminalArgs {
    pub title: String,
    pub commands: Vec<Vec<String>>,
    pub env: std::collections::BTreeMap<String, String>,
}

/// Argument of the client-side command `abidoc.insertCell`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InsertCellArgs {
    pub notebook_uri: Uri,
    pub cell_index: usize,
    pub source: String,
}

pub const CMD_RUN_IN_TERMINAL: &str = "abidoc.runInTerminal";
pub const CMD_INSERT_CELL: &str = "abidoc.insertCell";
pub const CMD_SCAN_ENVIRONMENT: &str = "abidoc.scanEnvironment";
/// Server-side: shows a fix (argument: a [`FixPayload`]) to a client that cannot run it.
pub const CMD_SHOW_FIX: &str = "abidoc.showFix";
pub const NOTIFY_CELL_OUTPUTS: &str = "abidoc/cellOutputs";
pub const NOTIFY_TERMINAL_OUTPUT: &str = "abidoc/terminalOutput";
