// The VS Code side of abidoc: finds and starts `abidoc lsp`, forwards notebook outputs and failed
// terminal commands to it, carries out the client-side commands its code actions return —
// always showing what will run and asking first — and puts `abidoc verify`'s verdict on
// `pip install` lines of notebook cells and on requirements files, before anything installs.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { Candidate, candidates, discover, isFound, parseVersion, ProbeResult } from './discovery';
import { CellLike, hasDiagnosableOutput, notebookOutputs, terminalText } from './outputs';
import {
  CELL_OUTPUTS,
  cellInsertionFromEdits,
  CLIENT_COMMANDS,
  ClientCommandsFeature,
  INSERT_CELL,
  parseInsertCellArgs,
  parseRunInTerminalArgs,
  parseTerminalDiagnosis,
  RUN_IN_TERMINAL,
  SCAN_ENVIRONMENT,
  TERMINAL_DIAGNOSIS,
  TERMINAL_OUTPUT,
  TerminalDiagnosisParams,
} from './protocol';
import { diagnosticsFromResult, isLibraryPath, reportAction, ReportDiagnostic, ReportFix, ReportHeader, reportHtml, scanSummary } from './report';
import { cellInstalls, requirementsFileNames } from './installLines';
import { initializationOptions, SettingSpec, trustedValue } from './settings';
import { Environment, isEmpty, lensTitle, readVerdict, Verdict, verdictLines, verifyFileRun, verifyRuns } from './verdict';
import { isPosixShell, renderCommandLine, visible } from './shellQuote';
import settingsSpec from '../protocol/settings.json';

let client: LanguageClient | undefined;
/** The binary `start` found; `abidoc verify` runs it too. */
let binaryPath: string | undefined;
let log: vscode.LogOutputChannel;
let extensionPath = '';
const pendingNotebooks = new Map<string, ReturnType<typeof setTimeout>>();
const terminalReads = new Map<vscode.TerminalShellExecution, Promise<string>>();
/** The report's webview, and the fixes its buttons name by index. */
let reportPanel: vscode.WebviewPanel | undefined;
let reportFixes: readonly ReportFix[] = [];

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  log = vscode.window.createOutputChannel('abidoc', { log: true });
  context.subscriptions.push(
    log,
    vscode.commands.registerCommand(RUN_IN_TERMINAL, (...args: unknown[]) => runInTerminal(args)),
    vscode.commands.registerCommand(INSERT_CELL, (...args: unknown[]) => insertCell(args)),
    vscode.commands.registerCommand(SCAN_ENVIRONMENT, () => scanEnvironment()),
    vscode.commands.registerCommand('abidoc.restartServer', () => restart()),
    vscode.commands.registerCommand('abidoc.showOutput', () => log.show()),
    vscode.commands.registerCommand(SHOW_VERDICT, (...args: unknown[]) => showVerdict(args)),
    vscode.languages.registerCodeLensProvider(INSTALL_SELECTOR, installLenses),
    verifyDiagnostics,
    vscode.workspace.onDidOpenNotebookDocument((nb) => scheduleNotebook(nb, true)),
    vscode.workspace.onDidChangeNotebookDocument((e) => {
      const relevant = e.cellChanges.some((c) => c.outputs !== undefined || c.executionSummary !== undefined) || e.contentChanges.length > 0;
      if (relevant) scheduleNotebook(e.notebook, false);
    }),
    vscode.window.onDidStartTerminalShellExecution((e) => startReading(e.execution)),
    vscode.window.onDidEndTerminalShellExecution((e) => void terminalEnded(e)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('abidoc.path')) void restart();
    }),
    // Trusting the workspace lets its own settings name the binary and the interpreter.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void restart()),
    { dispose: () => void client?.stop() },
    { dispose: () => reportPanel?.dispose() },
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

/**
 * One `abidoc` setting (key relative to the section) as abidoc may use it: in an untrusted
 * workspace, the settings that name a program keep the user's value or the default, whatever
 * the workspace's `.vscode/settings.json` says.
 */
function setting<T>(relativeKey: string): T | undefined {
  const config = vscode.workspace.getConfiguration('abidoc');
  return trustedValue(`abidoc.${relativeKey}`, vscode.workspace.isTrusted, config.get<T>(relativeKey), config.inspect<T>(relativeKey));
}

/** The server-side settings, as initializationOptions and as the `abidoc` configuration section. */
function serverSettings(): Record<string, unknown> {
  return initializationOptions((settingsSpec as { settings: SettingSpec[] }).settings, (k) => setting(k));
}

function probe(c: Candidate): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(c.path, ['--version'], { timeout: 10_000, windowsHide: true }, (err, stdout) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        resolve({ ok: false, reason: code === 'ENOENT' ? 'not found' : code === 'EACCES' ? 'not executable' : err.message.split('\n')[0] });
        return;
      }
      const v = parseVersion(stdout);
      resolve(v ? { ok: true, version: v } : { ok: false, reason: `--version printed ${JSON.stringify(stdout.slice(0, 60))}, not abidoc's version` });
    });
  });
}

async function start(): Promise<void> {
  const found = await discover(
    candidates({ env: process.env, settingPath: setting<string>('path'), extensionPath }),
    probe,
  );
  if (!isFound(found)) {
    log.error(found.message);
    // Not awaited: activation must not wait for the user to dismiss the message.
    void vscode.window.showErrorMessage(found.message, 'Open Settings', 'Show Output').then((pick) => {
      if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'abidoc.path');
      if (pick === 'Show Output') log.show();
    });
    return;
  }
  log.info(`using ${found.candidate.path} (${found.candidate.source}): ${found.version}`);
  binaryPath = found.candidate.path;
  // No `transport`: vscode-languageclient would append `--stdio`, which `abidoc lsp` does not take.
  const run = { command: found.candidate.path, args: ['lsp'] };
  const serverOptions: ServerOptions = { run, debug: run };
  const clientOptions: LanguageClientOptions = {
    // Files and unsaved editors only: output channels are `log` documents too (scheme `output`),
    // and sending abidoc's own channel to abidoc would feed its trace back into itself.
    documentSelector: [
      ...(['pip-log', 'python-traceback', 'log'] as const).flatMap((language) => [
        { language, scheme: 'file' },
        { language, scheme: 'untitled' },
      ]),
      { language: 'plaintext', scheme: 'file', pattern: '**/*.{log,txt,out}' },
      { language: 'python', scheme: 'file' },
      { language: 'python', scheme: 'untitled' },
      { notebook: { notebookType: 'jupyter-notebook' }, language: 'python' },
    ],
    outputChannel: log,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: serverSettings(),
    synchronize: { configurationSection: 'abidoc' },
    middleware: {
      // The settings the server gets, pushed or pulled, are the trust-filtered ones.
      workspace: {
        didChangeConfiguration: async () => {
          await client?.sendNotification(DidChangeConfigurationNotification.type, { settings: { abidoc: serverSettings() } });
        },
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) return result;
          return params.items.map((item, i) => {
            if (item.section === 'abidoc') return serverSettings();
            if (item.section?.startsWith('abidoc.')) return setting(item.section.slice('abidoc.'.length)) ?? null;
            return result[i];
          });
        },
      },
      provideCodeActions: async (document, range, context, token, next) => {
        const actions = await next(document, range, context, token);
        return actions && document.uri.scheme === 'vscode-notebook-cell' ? actions.map((a) => asCellInsertion(document, a)) : actions;
      },
    },
  };
  client = new LanguageClient('abidoc', 'abidoc', serverOptions, clientOptions);
  client.registerFeature(new ClientCommandsFeature());
  keepClientCommands(client);
  client.onNotification(TERMINAL_DIAGNOSIS, (p: unknown) => {
    const d = parseTerminalDiagnosis(p);
    if (d) void showTerminalDiagnosis(d);
  });
  try {
    await client.start();
  } catch (e) {
    log.error(`abidoc lsp failed to start: ${String(e)}`);
    void vscode.window.showErrorMessage(`abidoc: the language server failed to start (${String(e)}). See "abidoc: Show output".`);
    return;
  }
  for (const nb of vscode.workspace.notebookDocuments) scheduleNotebook(nb, true);
}

/**
 * vscode-languageclient registers a VS Code command for every command the server advertises;
 * ours are already registered by this extension, and a second registration would fail the start.
 */
function keepClientCommands(c: LanguageClient): void {
  const feature = (c as unknown as { getFeature(m: string): unknown }).getFeature(ExecuteCommandRequest.method) as
    | { register(data: { id: string; registerOptions: { commands?: string[] } }): void }
    | undefined;
  if (!feature || typeof feature.register !== 'function') return;
  const original = feature.register.bind(feature);
  feature.register = (data) => {
    const commands = (data.registerOptions.commands ?? []).filter((cmd) => !CLIENT_COMMANDS.includes(cmd));
    original({ ...data, registerOptions: { ...data.registerOptions, commands } });
  };
}

async function restart(): Promise<void> {
  const old = client;
  client = undefined;
  if (old) {
    try {
      await old.stop();
    } catch (e) {
      log.warn(`stopping the server: ${String(e)}`);
    }
  }
  await start();
}

function running(): LanguageClient | undefined {
  return client && client.state === State.Running ? client : undefined;
}

/** Turns "insert `%pip …` at the top of this cell" into "insert a `%pip …` cell above it". */
function asCellInsertion(document: vscode.TextDocument, action: vscode.Command | vscode.CodeAction): vscode.Command | vscode.CodeAction {
  if (!(action instanceof vscode.CodeAction) || !action.edit || action.command) return action;
  const edits = action.edit.entries().flatMap(([uri, list]) =>
    list.map((e) => ({
      uri: uri.toString(),
      startLine: e.range.start.line,
      startCharacter: e.range.start.character,
      endLine: e.range.end.line,
      endCharacter: e.range.end.character,
      newText: e.newText,
    })),
  );
  const source = cellInsertionFromEdits(edits, document.uri.toString());
  if (source === undefined) return action;
  // The cell gets the server's line verbatim, and only after the user confirms it.
  action.edit = undefined;
  for (const nb of vscode.workspace.notebookDocuments) {
    const cell = nb.getCells().find((c) => c.document === document);
    if (!cell) continue;
    action.command = { title: action.title, command: INSERT_CELL, arguments: [{ notebookUri: nb.uri.toString(), cellIndex: cell.index, source }] };
    return action;
  }
  action.disabled = { reason: 'the notebook of this cell is not open' };
  return action;
}

// ---- notebooks ----------------------------------------------------------------------------

function scheduleNotebook(nb: vscode.NotebookDocument, onOpen: boolean): void {
  if (nb.notebookType !== 'jupyter-notebook') return;
  if (!vscode.workspace.getConfiguration('abidoc').get<boolean>('notebook.forwardOutputs', true)) return;
  const key = nb.uri.toString();
  const prev = pendingNotebooks.get(key);
  if (prev) clearTimeout(prev);
  // Coalesces the burst of output events a running cell produces, and lets the client's
  // notebookDocument/didOpen reach the server first.
  pendingNotebooks.set(
    key,
    setTimeout(() => {
      pendingNotebooks.delete(key);
      sendNotebook(nb, onOpen);
    }, 300),
  );
}

function sendNotebook(nb: vscode.NotebookDocument, onOpen: boolean): void {
  const c = running();
  if (!c || nb.isClosed) return;
  const conv = c.code2ProtocolConverter;
  const cells: CellLike[] = nb.getCells().map((cell) => ({
    uri: conv.asUri(cell.document.uri),
    isCode: cell.kind === vscode.NotebookCellKind.Code,
    executionOrder: cell.executionSummary?.executionOrder,
    success: cell.executionSummary?.success,
    outputs: cell.outputs.map((o) => ({ items: o.items.map((i) => ({ mime: i.mime, data: i.data })) })),
  }));
  const params = notebookOutputs(conv.asUri(nb.uri), cells);
  if (onOpen && !hasDiagnosableOutput(params)) return;
  log.debug(`${CELL_OUTPUTS} ${params.notebookUri}: ${params.cells.length} code cells`);
  void c.sendNotification(CELL_OUTPUTS, params);
}

async function insertCell(args: unknown[]): Promise<void> {
  const a = parseInsertCellArgs(args);
  if (typeof a === 'string') {
    void vscode.window.showErrorMessage(`abidoc.insertCell: ${a}`);
    return;
  }
  const conv = client?.code2ProtocolConverter;
  const nb = vscode.workspace.notebookDocuments.find((n) => n.uri.toString() === a.notebookUri || conv?.asUri(n.uri) === a.notebookUri);
  if (!nb) {
    void vscode.window.showErrorMessage(`abidoc.insertCell: the notebook ${a.notebookUri} is not open`);
    return;
  }
  const index = Math.min(a.cellIndex, nb.cellCount);
  // The source is the server's text, inserted verbatim: shown first, inserted only if confirmed.
  // Inserting never runs it; the user reads the cell and runs it (or deletes it).
  const choice = await vscode.window.showInformationMessage(
    'abidoc: insert this cell?',
    { modal: true, detail: `A new code cell goes above cell ${index + 1} of ${nb.uri.path.split('/').pop() ?? 'the notebook'} (nothing runs):\n\n${a.source}` },
    'Insert Cell',
  );
  if (choice !== 'Insert Cell') return;
  const near = nb.cellCount > 0 ? nb.cellAt(Math.min(index, nb.cellCount - 1)) : undefined;
  const language = near?.kind === vscode.NotebookCellKind.Code ? near.document.languageId : 'python';
  const cell = new vscode.NotebookCellData(vscode.NotebookCellKind.Code, a.source, language);
  const edit = new vscode.WorkspaceEdit();
  edit.set(nb.uri, [vscode.NotebookEdit.insertCells(index, [cell])]);
  const ok = await vscode.workspace.applyEdit(edit);
  if (!ok) void vscode.window.showErrorMessage('abidoc.insertCell: VS Code refused the edit');
}

// ---- terminals ----------------------------------------------------------------------------

function startReading(execution: vscode.TerminalShellExecution): void {
  if (!vscode.workspace.getConfiguration('abidoc').get<boolean>('terminal.diagnose', true)) return;
  // read() only yields what is written after it is first called: start at the command's start.
  const chunks: string[] = [];
  const done = (async () => {
    try {
      for await (const data of execution.read()) chunks.push(data);
    } catch (e) {
      log.debug(`terminal read: ${String(e)}`);
    }
    return chunks.join('');
  })();
  terminalReads.set(execution, done);
  log.debug(`terminal: reading \`${execution.commandLine.value}\``);
}

async function terminalEnded(e: vscode.TerminalShellExecutionEndEvent): Promise<void> {
  const reading = terminalReads.get(e.execution);
  terminalReads.delete(e.execution);
  log.debug(`terminal: \`${e.execution.commandLine.value}\` ended with exit code ${e.exitCode}${reading ? '' : ' (its output was not read)'}`);
  if (!reading || e.exitCode === undefined || e.exitCode === 0) return;
  const c = running();
  if (!c) return;
  const text = terminalText(await reading);
  if (!text.trim()) return;
  void c.sendNotification(TERMINAL_OUTPUT, {
    commandLine: e.execution.commandLine.value,
    cwd: e.execution.cwd?.fsPath,
    exitCode: e.exitCode,
    text,
  });
}

async function showTerminalDiagnosis(d: TerminalDiagnosisParams): Promise<void> {
  const worst = d.diagnostics.find((x) => x.severity === 'error') ?? d.diagnostics[0];
  if (!worst) return;
  const fixes = worst.fixes.filter((f) => f.commands.length > 0).slice(0, 2);
  const details = 'Show report';
  const pick = await vscode.window.showWarningMessage(
    `abidoc (${worst.code || 'diagnosis'}): ${worst.message}`,
    ...fixes.map((f) => f.title),
    details,
  );
  if (pick === details) {
    await openReport(diagnosticsFromResult(d.diagnostics) ?? [], { title: `abidoc: \`${d.commandLine}\` failed`, none: 'No known failure found.' }, 'abidoc: failed command');
    return;
  }
  const fix = fixes.find((f) => f.title === pick);
  if (fix) await runInTerminal([{ title: fix.title, commands: fix.commands, env: fix.env ?? {} }]);
}

/** Shows the exact shell text, asks, and only then types it into a new terminal. */
async function runInTerminal(args: unknown[]): Promise<void> {
  const a = parseRunInTerminalArgs(args);
  if (typeof a === 'string') {
    void vscode.window.showErrorMessage(`abidoc.runInTerminal: ${a}`);
    return;
  }
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showErrorMessage('abidoc: this workspace is not trusted, so abidoc will not run commands in it. Trust the workspace or run the fix yourself.');
    return;
  }
  const rendered = renderCommandLine(a.commands, a.env ?? {});
  if ('error' in rendered) {
    log.error(`abidoc.runInTerminal "${visible(a.title)}" refused: ${rendered.error}`);
    void vscode.window.showErrorMessage(`abidoc: this fix will not be run: ${rendered.error}.`);
    return;
  }
  const line = rendered.line;
  const title = visible(a.title);
  const choice = await vscode.window.showWarningMessage(
    `abidoc: ${title}`,
    { modal: true, detail: `This will run in a new terminal:\n\n${line}` },
    'Run in Terminal',
  );
  if (choice !== 'Run in Terminal') return;
  // The line is POSIX sh: typed into the user's shell when it is one, else into /bin/sh.
  const shellPath = process.platform !== 'win32' && !isPosixShell(vscode.env.shell) ? '/bin/sh' : undefined;
  const term = vscode.window.createTerminal({ name: `abidoc: ${title}`.slice(0, 60), shellPath });
  term.show();
  term.sendText(line, true);
}

// ---- environment scan ---------------------------------------------------------------------

async function scanEnvironment(): Promise<void> {
  const c = running();
  if (!c) {
    void vscode.window.showErrorMessage('abidoc: the language server is not running. See "abidoc: Show output".');
    return;
  }
  let result: unknown;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'abidoc: scanning the Python environment…' },
      () => c.sendRequest(ExecuteCommandRequest.type, { command: SCAN_ENVIRONMENT, arguments: [] }),
    );
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    log.error(`scan failed: ${message}`);
    const pick = await vscode.window.showErrorMessage(`abidoc: the environment scan failed: ${message}`, 'Open Settings');
    if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'abidoc.');
    return;
  }
  // The server publishes findings on the libraries (Problems view) and may return them too.
  const diags: ReportDiagnostic[] = diagnosticsFromResult(result) ?? publishedDiagnostics().filter((d) => d.location !== undefined && isLibraryPath(d.location));
  await openReport(diags, { when: new Date().toISOString(), ...scanSummary(result) }, 'abidoc: environment scan');
  await vscode.commands.executeCommand('workbench.actions.view.problems');
}

function publishedDiagnostics(): ReportDiagnostic[] {
  const out: ReportDiagnostic[] = [];
  for (const [uri, list] of vscode.languages.getDiagnostics()) {
    for (const d of list) {
      if (d.source !== 'abidoc') continue;
      out.push({
        code: typeof d.code === 'object' ? String(d.code.value) : d.code === undefined ? undefined : String(d.code),
        severity: ['error', 'warning', 'information', 'hint'][d.severity],
        message: d.message,
        location: uri.scheme === 'file' ? uri.fsPath : uri.toString(),
      });
    }
  }
  return out;
}

/**
 * Shows the report in its webview (one, reused): scripts on, for its nonce'd script only (the
 * page's Content-Security-Policy), no local resources, no command links. Its buttons post the
 * index of a fix; `reportAction` looks it up in the fixes the page was rendered from.
 */
async function openReport(diags: readonly ReportDiagnostic[], header: ReportHeader, title: string): Promise<void> {
  const page = reportHtml(diags, header, randomBytes(24).toString('base64'));
  if (!reportPanel) {
    const panel = vscode.window.createWebviewPanel('abidoc.report', title, vscode.ViewColumn.Active, {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [],
    });
    panel.onDidDispose(() => {
      if (reportPanel === panel) reportPanel = undefined;
    });
    panel.webview.onDidReceiveMessage((m: unknown) => void reportMessage(panel, m));
    reportPanel = panel;
  }
  reportFixes = page.model.fixes;
  reportPanel.title = title;
  reportPanel.webview.html = page.html;
  reportPanel.reveal(undefined, false);
}

/** A button of the report: copy a fix's command (or notebook lines), or run it after confirmation. */
async function reportMessage(panel: vscode.WebviewPanel, message: unknown): Promise<void> {
  const action = reportAction(reportFixes, message);
  switch (action.kind) {
    case 'clipboard': {
      try {
        await vscode.env.clipboard.writeText(action.text);
      } catch (e) {
        log.error(`report: copying failed: ${String(e)}`);
        void vscode.window.showErrorMessage(`abidoc: could not copy ${action.what} (${String(e)}); select it in the report instead.`);
        return;
      }
      vscode.window.setStatusBarMessage(`abidoc: copied ${action.what}`, 4000);
      const m = message as { fix: number; cmd?: number; cell?: boolean };
      void panel.webview.postMessage({ type: 'copied', fix: m.fix, cmd: m.cmd, cell: m.cell === true });
      return;
    }
    case 'run':
      await runInTerminal([{ title: action.title, commands: action.commands, env: action.env }]);
      return;
    case 'refused':
      log.warn(`report: ${action.reason}`);
      void vscode.window.showErrorMessage(`abidoc: ${action.reason}.`);
  }
}

// ------------------------------------------------------ the verdict before an install

const SHOW_VERDICT = 'abidoc.showVerdict';
/** Notebook cells (their `%pip`/`!pip` lines) and requirements files on disk. */
const INSTALL_SELECTOR: vscode.DocumentSelector = [
  { notebookType: 'jupyter-notebook', language: 'python' },
  { scheme: 'file', pattern: '**/requirements*.txt' },
  { scheme: 'file', pattern: '**/requirements/*.txt' },
];
const VERIFY_TIMEOUT_MS = 10_000;
const verifyDiagnostics = vscode.languages.createDiagnosticCollection('abidoc-verify');
/** Verdicts by the runs that made them; a file's key carries its modification time. */
const verdicts = new Map<string, Promise<Verdict | undefined>>();

function runVerify(argv: string[]): Promise<string | undefined> {
  const binary = binaryPath;
  if (!binary) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    execFile(binary, argv, { timeout: VERIFY_TIMEOUT_MS, windowsHide: true, maxBuffer: 16 << 20 }, (err, stdout) => {
      // Exit 1 is a verdict (something would not load); anything else is silence.
      const code = (err as { code?: unknown } | null)?.code;
      resolve(!err || code === 1 ? stdout : undefined);
    });
  });
}

/** The verdict of several runs together; cached while the runs (and the files they read) are the same. */
function verdictOf(runs: string[][], stamp: string): Promise<Verdict | undefined> {
  const key = JSON.stringify([runs, stamp]);
  let found = verdicts.get(key);
  if (!found) {
    found = Promise.all(runs.map(runVerify)).then((outs) => readVerdict(outs.filter((o): o is string => o !== undefined)));
    if (verdicts.size > 256) verdicts.clear();
    verdicts.set(key, found);
  }
  return found;
}

function verifyEnvironment(): Environment {
  return { python: setting<string>('python') || undefined, sitePackages: setting<string[]>('sitePackages') ?? [] };
}

function isRequirementsFile(document: vscode.TextDocument): boolean {
  const base = path.basename(document.uri.fsPath);
  return document.uri.scheme === 'file' && (/^requirements.*\.txt$/.test(base) || path.basename(path.dirname(document.uri.fsPath)) === 'requirements');
}

async function mtime(file: string): Promise<string> {
  try {
    return String((await vscode.workspace.fs.stat(vscode.Uri.file(file))).mtime);
  } catch {
    return '';
  }
}

const installLenses: vscode.CodeLensProvider = {
  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!vscode.workspace.getConfiguration('abidoc').get<boolean>('installLines.verify', true) || !binaryPath) {
      verifyDiagnostics.delete(document.uri);
      return [];
    }
    const env = verifyEnvironment();
    const lenses: vscode.CodeLens[] = [];
    const diagnostics: vscode.Diagnostic[] = [];
    if (isRequirementsFile(document)) {
      // verify reads the file on disk: an unsaved edit is judged once saved.
      if (document.isDirty) return [];
      const verdict = await verdictOf([verifyFileRun(document.uri.fsPath, env)], await mtime(document.uri.fsPath));
      if (!verdict || isEmpty(verdict)) {
        verifyDiagnostics.delete(document.uri);
        return [];
      }
      const lines = requirementsFileNames(document.getText());
      for (const f of verdict.failures) {
        const line = lines.get(f.package.replace(/[-_.]+/g, '-').toLowerCase()) ?? 0;
        diagnostics.push(verdictDiagnostic(document, line, line + 1, f.severity, `${f.package} would not load [${f.code}]: ${f.message}`, f.code));
      }
      lenses.push(verdictLens(new vscode.Range(0, 0, 0, 0), verdict));
    } else if (document.uri.scheme === 'vscode-notebook-cell') {
      // A file notebook's kernel starts in the notebook's folder: relative wheel paths are from there.
      const cwd = path.dirname(document.uri.fsPath);
      for (const install of cellInstalls(document.getText())) {
        const runs = verifyRuns(install, cwd, env);
        const stamps = await Promise.all(install.requirements.filter((r) => r.wheel).map((r) => mtime(path.resolve(cwd, r.wheel as string))));
        const verdict = await verdictOf(runs, stamps.join(','));
        if (!verdict || isEmpty(verdict)) continue;
        const range = new vscode.Range(install.line, 0, install.line, 0);
        lenses.push(verdictLens(range, verdict));
        for (const f of verdict.failures) {
          diagnostics.push(verdictDiagnostic(document, install.line, install.endLine, f.severity, `${f.package} would not load [${f.code}]: ${f.message}`, f.code));
        }
      }
    }
    verifyDiagnostics.set(document.uri, diagnostics);
    return lenses;
  },
};

function verdictLens(range: vscode.Range, verdict: Verdict): vscode.CodeLens {
  return new vscode.CodeLens(range, { title: lensTitle(verdict), command: SHOW_VERDICT, arguments: [verdictLines(verdict), verdict.failures.find((f) => f.fixCommand)?.fixCommand] });
}

function verdictDiagnostic(document: vscode.TextDocument, line: number, endLine: number, severity: 'error' | 'warning', message: string, code: string): vscode.Diagnostic {
  const last = Math.max(line, Math.min(endLine, document.lineCount) - 1);
  const range = new vscode.Range(line, 0, last, document.lineAt(last).text.length);
  const d = new vscode.Diagnostic(range, message, severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  d.source = 'abidoc verify';
  d.code = code;
  return d;
}

/** The lens's click: the whole verdict in the output channel, the preferred fix to copy. */
async function showVerdict(args: unknown[]): Promise<void> {
  const [lines, fix] = args;
  if (!Array.isArray(lines)) return;
  const text = lines.filter((l): l is string => typeof l === 'string');
  log.info(`abidoc verify, before installing:\n${text.join('\n')}`);
  const actions = typeof fix === 'string' ? ['Copy fix', 'Show output'] : ['Show output'];
  const pick = await vscode.window.showInformationMessage(text[0] ?? 'abidoc verify', ...actions);
  if (pick === 'Copy fix' && typeof fix === 'string') await vscode.env.clipboard.writeText(fix);
  if (pick === 'Show output') log.show();
}
