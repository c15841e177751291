//! Conversions from analysis data (`abidoc_ide`) to protocol types: ranges, diagnostics, hovers,
//! code actions and the payloads of the custom messages.

use crate::documents::Entry;
use crate::proto::{
    self, CodeAction, CodeActionKind, CodeActionOrCommand, Command, DiagnosticRelatedInformation,
    FixPayload, InsertCellArgs, Location, NumberOrString, Position, Range, RunInTerminalArgs,
    TextEdit, Uri, WorkspaceEdit,
};
use abidoc_ide::{Diagnostic, Fix, Severity};
use abidoc_syntax::{LineIndex, Span};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

pub const SOURCE: &str = "abidoc";

pub fn position(text: &str, index: &LineIndex, offset: usize) -> Position {
    let lc = index.line_col(text, offset);
    Position::new(lc.line, lc.col)
}

pub fn range(text: &str, index: &LineIndex, span: Span) -> Range {
    Range::new(
        position(text, index, span.start),
        position(text, index, span.end.max(span.start)),
    )
}

/// The whole of line `line` (zero-based) of `text`, without its line break.
pub fn line_range(text: &str, line: u32) -> Range {
    let content = text.lines().nth(line as usize).unwrap_or("");
    let width: usize = content.chars().map(char::len_utf16).sum();
    Range::new(Position::new(line, 0), Position::new(line, width as u32))
}

pub fn severity(s: Severity) -> proto::DiagnosticSeverity {
    match s {
        Severity::Error => proto::DiagnosticSeverity::ERROR,
        Severity::Warning => proto::DiagnosticSeverity::WARNING,
        Severity::Information => proto::DiagnosticSeverity::INFORMATION,
    }
}

pub fn diagnostic(
    d: &Diagnostic,
    range: Range,
    related: Vec<DiagnosticRelatedInformation>,
) -> proto::Diagnostic {
    proto::Diagnostic {
        range,
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.as_str().to_owned())),
        code_description: None,
        source: Some(SOURCE.to_owned()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

/// Converts diagnoses of a text document: spans are byte offsets into `text`; every `related`
/// source becomes a related location in the same document.
pub fn text_entries(
    uri: &Uri,
    text: &str,
    index: &LineIndex,
    diags: Vec<Diagnostic>,
) -> Vec<Entry> {
    diags
        .into_iter()
        .map(|d| {
            let range = d
                .source
                .as_ref()
                .map_or_else(|| line_range(text, 0), |s| range(text, index, s.span));
            let related = d
                .related
                .iter()
                .map(|r| DiagnosticRelatedInformation {
                    location: Location::new(uri.clone(), range_of(text, index, r.span)),
                    message: format!("{}: the same failure again", d.code.as_str()),
                })
                .collect();
            let published = diagnostic(&d, range, related);
            Entry {
                range,
                diagnostic: d,
                published,
            }
        })
        .collect()
}

fn range_of(text: &str, index: &LineIndex, span: Span) -> Range {
    range(text, index, span)
}

pub fn fix_payload(f: &Fix) -> FixPayload {
    FixPayload {
        title: f.title.clone(),
        commands: f.commands(),
        env: f.env().into_iter().collect(),
        notebook_cell: f.notebook_cell(),
        preferred: f.preferred,
        shell_dialect: (f.shell != abidoc_ide::fix::Shell::Posix)
            .then(|| f.shell.as_str().to_owned()),
    }
}

/// A scan diagnosis in the JSON contract's shape (without `source`), with its `fold` and
/// `package_version`: the scan command's result.
pub fn scan_report_json(d: &Diagnostic, meta: &abidoc_ide::ScanMeta) -> serde_json::Value {
    let mut obj = abidoc_contract::diagnostic(d);
    abidoc_contract::add_scan_meta(&mut obj, meta);
    serde_json::Value::Object(obj)
}

/// An argument vector as a POSIX sh line, for display only (commands are never run through a
/// shell).
pub fn display_command(argv: &[String]) -> String {
    abidoc_ide::fix::render::display_command(abidoc_ide::fix::Shell::Posix, argv)
}

/// The explanation shown when hovering a diagnosed range.
pub fn diagnostic_markdown(d: &Diagnostic) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "**abidoc** `{}` ({})\n",
        d.code.as_str(),
        d.severity.as_str()
    );
    let _ = writeln!(md, "{}\n", d.message);
    if let Some(explanation) = &d.explanation {
        let _ = writeln!(md, "{explanation}\n");
    }
    if !d.symbols.is_empty() {
        let _ = writeln!(md, "**Symbols**\n");
        for s in &d.symbols {
            let name = s.demangled.as_deref().unwrap_or(&s.mangled);
            let _ = write!(md, "- `{name}` ({})", s.status.as_str());
            if let Some(nearest) = &s.nearest {
                let _ = write!(md, "; exported instead: `{nearest}`");
            }
            md.push('\n');
        }
        md.push('\n');
    }
    if !d.evidence.is_empty() {
        let _ = writeln!(md, "**Evidence**\n");
        for e in &d.evidence {
            let _ = writeln!(md, "- {e}");
        }
        md.push('\n');
    }
    if !d.fixes.is_empty() {
        let _ = writeln!(md, "**Fixes**, best first\n");
        for (i, f) in d.fixes.iter().enumerate() {
            let preferred = if f.preferred { " (preferred)" } else { "" };
            let _ = write!(md, "{}. **{}**{preferred}", i + 1, f.title);
            if !f.reason.is_empty() {
                let _ = write!(md, ": {}", f.reason);
            }
            md.push('\n');
            for c in &f.commands() {
                let _ = writeln!(
                    md,
                    "   `{}`",
                    abidoc_ide::fix::render::display_command(f.shell, c)
                );
            }
        }
    }
    md.trim_end().to_owned()
}

pub fn markdown_hover(markdown: String, range: Option<Range>) -> proto::Hover {
    proto::Hover {
        contents: proto::HoverContents::Markup(proto::MarkupContent {
            kind: proto::MarkupKind::Markdown,
            value: markdown,
        }),
        range,
    }
}

/// Where a code action applies, which decides how a fix is carried out.
#[derive(Debug, Clone)]
pub enum ActionTarget {
    /// A log or Python file: fixes run in a terminal.
    Text,
    /// A `.ipynb` opened as text: a notebook cell cannot be inserted cleanly into the JSON, so a
    /// client that lists `abidoc.insertCell` inserts it before the failing cell.
    NotebookJson { notebook: Uri },
    /// A cell of a synced notebook: the `%pip …` line goes at the top of the cell as an edit.
    Cell { cell: Uri },
}

/// The client-side commands a client said it carries out, in
/// `initialize.capabilities.experimental.commands.commands` (rust-analyzer's convention). A
/// client that did not list a command would send it back to the server (Helix does), so the
/// server offers it only to clients that listed it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientCommands {
    pub run_in_terminal: bool,
    pub insert_cell: bool,
}

impl ClientCommands {
    /// Reads `experimental` of the client's capabilities; anything malformed lists nothing.
    pub fn from_experimental(experimental: Option<&serde_json::Value>) -> Self {
        let listed: Vec<&str> = experimental
            .and_then(|e| e.get("commands"))
            .and_then(|c| c.get("commands"))
            .and_then(serde_json::Value::as_array)
            .map(|a| a.iter().filter_map(serde_json::Value::as_str).collect())
            .unwrap_or_default();
        Self {
            run_in_terminal: listed.contains(&proto::CMD_RUN_IN_TERMINAL),
            insert_cell: listed.contains(&proto::CMD_INSERT_CELL),
        }
    }

    /// Both, as the VS Code extension lists them.
    pub const ALL: Self = Self {
        run_in_terminal: true,
        insert_cell: true,
    };
}

pub fn code_actions(
    entry: &Entry,
    target: &ActionTarget,
    client: ClientCommands,
) -> Vec<CodeActionOrCommand> {
    let d = &entry.diagnostic;
    let mut actions = Vec::new();
    for fix in &d.fixes {
        let mut action = CodeAction {
            title: fix.title.clone(),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![entry.published.clone()]),
            edit: None,
            command: None,
            is_preferred: Some(fix.preferred),
            disabled: None,
            data: None,
        };
        let cell_source = fix.notebook_cell().filter(|c| !c.trim().is_empty());
        let runnable = !fix.commands().is_empty() || !fix.env().is_empty();
        match (target, cell_source) {
            (ActionTarget::Cell { cell }, Some(source)) => {
                let mut line = source.trim_end().to_owned();
                line.push('\n');
                let edit =
                    TextEdit::new(Range::new(Position::new(0, 0), Position::new(0, 0)), line);
                action.edit = Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(cell.clone(), vec![edit])])),
                    document_changes: None,
                    change_annotations: None,
                });
            }
            (ActionTarget::NotebookJson { notebook }, Some(source)) if client.insert_cell => {
                let args = InsertCellArgs {
                    notebook_uri: notebook.clone(),
                    cell_index: d.source.as_ref().and_then(|s| s.cell).unwrap_or(0),
                    source: source.clone(),
                };
                action.command = Some(command(&fix.title, proto::CMD_INSERT_CELL, &args));
            }
            _ if runnable && client.run_in_terminal => {
                let args = RunInTerminalArgs {
                    title: fix.title.clone(),
                    commands: fix.commands(),
                    env: fix.env().into_iter().collect::<BTreeMap<_, _>>(),
                };
                action.command = Some(command(&fix.title, proto::CMD_RUN_IN_TERMINAL, &args));
            }
            // A client without the command gets the fix to read: the server shows it and runs
            // nothing.
            (ActionTarget::NotebookJson { .. }, Some(_)) => {
                action.command = Some(command(&fix.title, proto::CMD_SHOW_FIX, &fix_payload(fix)));
            }
            _ if runnable => {
                action.command = Some(command(&fix.title, proto::CMD_SHOW_FIX, &fix_payload(fix)));
            }
            // Advice with nothing to run is in the hover, not offered as an action.
            _ => continue,
        }
        actions.push(CodeActionOrCommand::CodeAction(action));
    }
    actions
}

/// What `abidoc.showFix` shows for a fix: the commands to type (shell-quoted), the variables to
/// set, the notebook line. Text only: nothing here is run.
pub fn fix_text(fix: &FixPayload) -> String {
    use abidoc_ide::fix::{Shell, render};
    let shell = match fix.shell_dialect.as_deref() {
        Some("cmd") => Shell::Cmd,
        _ => Shell::Posix,
    };
    let mut text = format!("{}\n", fix.title);
    for (name, value) in &fix.env {
        let _ = writeln!(text, "  {}", render::display_env(shell, name, value));
    }
    for argv in &fix.commands {
        let _ = writeln!(text, "  {}", render::display_command(shell, argv));
    }
    if let Some(cell) = fix.notebook_cell.as_ref().filter(|c| !c.trim().is_empty()) {
        let _ = writeln!(text, "In a notebook cell:\n  {}", cell.trim_end());
    }
    text.trim_end().to_owned()
}

fn command<T: serde::Serialize>(title: &str, name: &str, arg: &T) -> Command {
    Command {
        title: title.to_owned(),
        command: name.to_owned(),
        arguments: Some(vec![serde_json::to_value(arg).unwrap_or_default()]),
    }
}

pub fn ranges_touch(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

#[cfg(test)]
mod tests {
    use super::*;
    use abidoc_ide::fix::{EnvName, EnvValue, Name, Python, Step};
    use abidoc_ide::{Code, SourceRef, SymbolReport, SymbolStatus};
    use std::str::FromStr;

    fn seed_like() -> Diagnostic {
        Diagnostic {
            code: Code::AbiMismatch,
            severity: Severity::Error,
            message: "selective_scan_cuda (mamba-ssm 2.3.0) was built against a different torch".into(),
            source: Some(SourceRef { span: Span::new(6, 12), cell: Some(3) }),
            related: vec![SourceRef { span: Span::new(20, 22), cell: Some(3) }],
            package: Some("mamba-ssm".into()),
            library: None,
            symbols: vec![SymbolReport {
                mangled: "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib".into(),
                demangled: Some("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)".into()),
                status: SymbolStatus::SignatureChanged,
                nearest: Some("c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, unsigned int, bool)".into()),
            }],
            evidence: vec!["torch 2.10.0 installed".into()],
            explanation: Some("The library was compiled against another torch.".into()),
            fixes: vec![
                Fix {
                    title: "Uninstall mamba-ssm and causal-conv1d".into(),
                    reason: "the model is a transformer".into(),
                    preferred: true,
                    steps: vec![Step::PipUninstall {
                        python: Python::OnPath,
                        packages: ["mamba-ssm", "causal-conv1d"].iter().filter_map(|n| Name::new(n)).collect(),
                    }],
                    verified: true,
                    ..Fix::default()
                },
                Fix { title: "Read the docs".into(), ..Fix::default() },
                Fix {
                    title: "Point the loader at CUDA".into(),
                    steps: vec![Step::SetEnv {
                        name: EnvName::new("LD_LIBRARY_PATH").unwrap(),
                        value: EnvValue::new("/usr/local/cuda/lib64").unwrap(),
                    }],
                    ..Fix::default()
                },
            ],
        }
    }

    #[test]
    fn entries_actions_and_markdown() {
        let text = "line0\nerror here\nagain: er\n";
        let uri = Uri::from_str("file:///tmp/x.log").unwrap();
        let entries = text_entries(&uri, text, &LineIndex::new(text), vec![seed_like()]);
        let entry = &entries[0];
        assert_eq!(
            entry.range,
            Range::new(Position::new(1, 0), Position::new(1, 6))
        );
        let related = entry.published.related_information.as_ref().unwrap();
        assert_eq!(
            related[0].location.range,
            Range::new(Position::new(2, 3), Position::new(2, 5))
        );

        let json = |target: &ActionTarget| {
            serde_json::to_value(code_actions(entry, target, ClientCommands::ALL)).unwrap()
        };
        let text_actions = json(&ActionTarget::Text);
        assert_eq!(
            text_actions.as_array().unwrap().len(),
            2,
            "{text_actions:#}"
        );
        assert_eq!(
            text_actions[0]["command"]["command"],
            "abidoc.runInTerminal"
        );
        assert_eq!(text_actions[0]["isPreferred"], true);
        assert_eq!(
            text_actions[0]["command"]["arguments"][0]["commands"][0][3],
            "uninstall"
        );
        assert_eq!(
            text_actions[1]["command"]["arguments"][0]["env"]["LD_LIBRARY_PATH"],
            "/usr/local/cuda/lib64"
        );

        let nb = json(&ActionTarget::NotebookJson {
            notebook: uri.clone(),
        });
        assert_eq!(nb[0]["command"]["command"], "abidoc.insertCell");
        assert_eq!(nb[0]["command"]["arguments"][0]["cellIndex"], 3);
        assert_eq!(
            nb[0]["command"]["arguments"][0]["source"],
            "%pip uninstall -y mamba-ssm causal-conv1d"
        );

        let cell = Uri::from_str("vscode-notebook-cell:/tmp/t.ipynb#W3sZmlsZQ%3D%3D").unwrap();
        let cell_actions = json(&ActionTarget::Cell { cell: cell.clone() });
        let edits = &cell_actions[0]["edit"]["changes"][cell.as_str()];
        assert_eq!(
            edits[0]["newText"],
            "%pip uninstall -y mamba-ssm causal-conv1d\n"
        );
        assert_eq!(edits[0]["range"]["start"]["line"], 0);
        // The variable's fix has a notebook form too (`%env`), inserted into the cell.
        assert_eq!(
            cell_actions[1]["edit"]["changes"][cell.as_str()][0]["newText"],
            "%env LD_LIBRARY_PATH=/usr/local/cuda/lib64\n"
        );

        insta::assert_snapshot!(diagnostic_markdown(&entry.diagnostic));
    }

    #[test]
    fn client_commands_only_when_listed() {
        let text = "line0\nerror here\nagain: er\n";
        let uri = Uri::from_str("file:///tmp/x.ipynb").unwrap();
        let entries = text_entries(&uri, text, &LineIndex::new(text), vec![seed_like()]);
        let caps = serde_json::json!({"commands": {"commands": ["abidoc.runInTerminal"]}});
        let only_terminal = ClientCommands::from_experimental(Some(&caps));
        assert_eq!(
            only_terminal,
            ClientCommands {
                run_in_terminal: true,
                insert_cell: false
            }
        );
        let json = |target: &ActionTarget, client| {
            serde_json::to_value(code_actions(&entries[0], target, client)).unwrap()
        };
        let nb = ActionTarget::NotebookJson {
            notebook: uri.clone(),
        };
        // Without `abidoc.insertCell`, the notebook's fix runs in the terminal.
        let terminal = json(&nb, only_terminal);
        assert_eq!(terminal[0]["command"]["command"], "abidoc.runInTerminal");
        assert_eq!(terminal[1]["command"]["command"], "abidoc.runInTerminal");
        let shown = json(&nb, ClientCommands::default());
        let payload: FixPayload =
            serde_json::from_value(shown[0]["command"]["arguments"][0].clone()).unwrap();
        assert_eq!(
            fix_text(&payload),
            "Uninstall mamba-ssm and causal-conv1d\n  python -m pip uninstall -y mamba-ssm causal-conv1d\nIn a notebook cell:\n  %pip uninstall -y mamba-ssm causal-conv1d"
        );
        for target in [&nb, &ActionTarget::Text] {
            let plain = json(target, ClientCommands::from_experimental(None));
            assert_eq!(plain.as_array().unwrap().len(), 2);
            for action in plain.as_array().unwrap() {
                assert_eq!(action["command"]["command"], "abidoc.showFix", "{action:#}");
            }
        }
        let env: FixPayload = serde_json::from_value(
            json(&ActionTarget::Text, ClientCommands::default())[1]["command"]["arguments"][0]
                .clone(),
        )
        .unwrap();
        assert_eq!(
            fix_text(&env),
            "Point the loader at CUDA\n  export LD_LIBRARY_PATH=/usr/local/cuda/lib64\nIn a notebook cell:\n  %env LD_LIBRARY_PATH=/usr/local/cuda/lib64"
        );
        // A fix for a text from Windows shows cmd.exe's lines.
        let windows = FixPayload {
            title: "Build with fewer jobs".into(),
            commands: vec![vec![
                "python".into(),
                "-m".into(),
                "pip".into(),
                "install".into(),
                "numpy<2".into(),
            ]],
            env: [("MAX_JOBS".to_owned(), "2".to_owned())]
                .into_iter()
                .collect(),
            notebook_cell: None,
            preferred: true,
            shell_dialect: Some("cmd".into()),
        };
        assert_eq!(
            fix_text(&windows),
            "Build with fewer jobs\n  set \"MAX_JOBS=2\"\n  python -m pip install \"numpy<2\""
        );
    }

    #[test]
    fn commands_display_quoted() {
        let argv: Vec<String> = ["pip", "install", "training-hub[lora]", "it's", "a b"]
            .map(String::from)
            .into();
        assert_eq!(
            display_command(&argv),
            r#"pip install "training-hub[lora]" 'it'\''s' "a b""#
        );
    }
}
