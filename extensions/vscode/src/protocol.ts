// The abidoc LSP extensions this client speaks: custom notifications, client-side commands and
// the payloads they carry. The server side of the same protocol lives in `server/lsp` and is
// documented in ARCHITECTURE.md; keep both in step.

import type { ClientCapabilities, FeatureState, StaticFeature } from 'vscode-languageclient';
import { forbiddenChar } from './shellQuote';

/** Output of one cell, reduced to text: what the server parses. */
export interface CellOutput {
  /** `application/vnd.code.notebook.error`, `application/vnd.code.notebook.stdout`, `…stderr`, `text/plain`. */
  mime: string;
  /** For errors: `Name: message` then the stack; ANSI escapes removed. */
  text: string;
}

export interface CellOutputs {
  cellUri: string;
  executionOrder?: number;
  success?: boolean;
  outputs: CellOutput[];
}

/** Notification client → server: the outputs of a notebook's code cells (all of them, each time). */
export interface CellOutputsParams {
  notebookUri: string;
  cells: CellOutputs[];
}
export const CELL_OUTPUTS = 'abidoc/cellOutputs';

/** Notification client → server: a terminal command that failed, with what it printed. */
export interface TerminalOutputParams {
  commandLine: string;
  cwd?: string;
  exitCode?: number;
  text: string;
}
export const TERMINAL_OUTPUT = 'abidoc/terminalOutput';

/** A fix as the contract's JSON gives it (commands are argv vectors, never shell strings). */
export interface Fix {
  title: string;
  commands: string[][];
  env?: Record<string, string>;
  notebook_cell?: string | null;
  preferred?: boolean;
}

export interface TerminalDiagnostic {
  code: string;
  severity: 'error' | 'warning' | 'information' | string;
  message: string;
  fixes: Fix[];
}

/** Notification server → client: what the server found in a failed terminal command's output. */
export interface TerminalDiagnosisParams {
  commandLine: string;
  diagnostics: TerminalDiagnostic[];
}
export const TERMINAL_DIAGNOSIS = 'abidoc/terminalDiagnosis';

/** Client-side command `abidoc.runInTerminal`, returned by the server in code actions. */
export interface RunInTerminalArgs {
  title: string;
  commands: string[][];
  env?: Record<string, string>;
}
export const RUN_IN_TERMINAL = 'abidoc.runInTerminal';

/** Client-side command `abidoc.insertCell`: insert a code cell above `cellIndex`. */
export interface InsertCellArgs {
  notebookUri: string;
  cellIndex: number;
  source: string;
}
export const INSERT_CELL = 'abidoc.insertCell';

/** Server-side command (workspace/executeCommand): scan the configured environment. */
export const SCAN_ENVIRONMENT = 'abidoc.scanEnvironment';

/**
 * The client-side commands this extension carries out, advertised at initialize as
 * `capabilities.experimental.commands.commands` (as rust-analyzer's clients do): the server
 * offers code actions running them only to a client that lists them.
 */
export const ADVERTISED_CLIENT_COMMANDS: readonly string[] = [RUN_IN_TERMINAL, INSERT_CELL];

/** Adds `experimental.commands.commands` to the client capabilities, keeping other experimental keys. */
export function fillClientCommands(capabilities: ClientCapabilities): void {
  const experimental = isObject(capabilities.experimental) ? capabilities.experimental : {};
  experimental.commands = { commands: [...ADVERTISED_CLIENT_COMMANDS] };
  capabilities.experimental = experimental;
}

/** The vscode-languageclient feature that advertises the client-side commands. */
export class ClientCommandsFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    fillClientCommands(capabilities);
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

/** Commands this extension carries out itself; the server must not get them back. */
export const CLIENT_COMMANDS: readonly string[] = [RUN_IN_TERMINAL, INSERT_CELL, SCAN_ENVIRONMENT, 'abidoc.restartServer', 'abidoc.showOutput'];

export const MIME_ERROR = 'application/vnd.code.notebook.error';
export const MIME_STDOUT = 'application/vnd.code.notebook.stdout';
export const MIME_STDERR = 'application/vnd.code.notebook.stderr';
export const MIME_TEXT = 'text/plain';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isArgv(v: unknown): v is string[] {
  return Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string');
}

function isEnv(v: unknown): v is Record<string, string> {
  return isObject(v) && Object.values(v).every((x) => typeof x === 'string');
}

/**
 * Validates `abidoc.runInTerminal` arguments: they come from the server, and are about to be
 * shown to the user and possibly run, so anything malformed is refused rather than guessed at.
 */
export function parseRunInTerminalArgs(args: unknown[]): RunInTerminalArgs | string {
  const a = args[0];
  if (!isObject(a)) return 'expected one object argument {title, commands, env}';
  if (typeof a.title !== 'string') return 'missing title';
  if (!Array.isArray(a.commands) || a.commands.length === 0 || !a.commands.every(isArgv)) {
    return 'commands must be a non-empty list of non-empty argument vectors';
  }
  const env = a.env === undefined || a.env === null ? {} : a.env;
  if (!isEnv(env)) return 'env must map names to strings';
  for (const k of Object.keys(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) return `invalid environment variable name ${JSON.stringify(k)}`;
  }
  return { title: a.title, commands: a.commands as string[][], env };
}

export function parseInsertCellArgs(args: unknown[]): InsertCellArgs | string {
  const a = args[0];
  if (!isObject(a)) return 'expected one object argument {notebookUri, cellIndex, source}';
  if (typeof a.notebookUri !== 'string') return 'missing notebookUri';
  if (typeof a.cellIndex !== 'number' || !Number.isInteger(a.cellIndex) || a.cellIndex < 0) return 'cellIndex must be a non-negative integer';
  if (typeof a.source !== 'string') return 'missing source';
  if (a.source.trim() === '') return 'empty source';
  // Cells may span lines and hold tabs; any other control or invisible character would make
  // the confirmation show something other than what is inserted.
  const bad = forbiddenChar(a.source.replace(/[\n\t]/g, ' '));
  if (bad) return `source contains ${bad}, a control or invisible character`;
  return { notebookUri: a.notebookUri, cellIndex: a.cellIndex, source: a.source };
}

export function parseTerminalDiagnosis(p: unknown): TerminalDiagnosisParams | undefined {
  if (!isObject(p) || typeof p.commandLine !== 'string' || !Array.isArray(p.diagnostics)) return undefined;
  const diagnostics: TerminalDiagnostic[] = [];
  for (const d of p.diagnostics) {
    if (!isObject(d) || typeof d.message !== 'string') continue;
    const fixes: Fix[] = [];
    for (const f of Array.isArray(d.fixes) ? d.fixes : []) {
      if (!isObject(f) || typeof f.title !== 'string') continue;
      const commands = Array.isArray(f.commands) ? f.commands.filter(isArgv) : [];
      fixes.push({
        title: f.title,
        commands,
        env: isEnv(f.env) ? f.env : {},
        notebook_cell: typeof f.notebook_cell === 'string' ? f.notebook_cell : null,
        preferred: f.preferred === true,
      });
    }
    diagnostics.push({
      code: typeof d.code === 'string' ? d.code : '',
      severity: typeof d.severity === 'string' ? d.severity : 'error',
      message: d.message,
      fixes,
    });
  }
  return { commandLine: p.commandLine, diagnostics };
}

/** A text edit as the code-action adapter sees it (zero-based, LSP/VS Code positions). */
export interface PlainEdit {
  uri: string;
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
  newText: string;
}

const CELL_MAGIC = /^(?:%pip|%conda|%uv|%env|%mamba|!)\S*(?: .*)?$/;

/**
 * Recognises a generic LSP fix that inserts one notebook line (`%pip …`, `%env …`, `!…`) at the
 * top of a cell — what the server offers any client — so VS Code can insert it as a new cell
 * above the failing one instead (the line then runs once, on its own, and the failing cell stays
 * as it was). Returns the cell source, or undefined for any other edit.
 */
export function cellInsertionFromEdits(edits: readonly PlainEdit[], cellUri: string): string | undefined {
  if (edits.length !== 1) return undefined;
  const e = edits[0];
  if (e.uri !== cellUri || e.startLine !== 0 || e.startCharacter !== 0 || e.endLine !== 0 || e.endCharacter !== 0) return undefined;
  const text = e.newText.replace(/\r?\n$/, '');
  if (!text || text.includes('\n') || !CELL_MAGIC.test(text)) return undefined;
  return text;
}
