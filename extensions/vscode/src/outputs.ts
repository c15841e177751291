// Turning notebook cell outputs and terminal captures into the text the server parses. Works on
// plain data shaped like VS Code's notebook API so it is testable without VS Code.

import { CellOutput, CellOutputs, CellOutputsParams, MIME_ERROR, MIME_STDERR, MIME_STDOUT, MIME_TEXT } from './protocol';

/** The subset of `vscode.NotebookCellOutputItem` used here. */
export interface OutputItemLike {
  mime: string;
  data: Uint8Array;
}

/** The subset of `vscode.NotebookCell` used here. */
export interface CellLike {
  uri: string;
  isCode: boolean;
  executionOrder?: number;
  success?: boolean;
  outputs: { items: OutputItemLike[] }[];
}

// CSI sequences (colours, cursor moves), OSC sequences (hyperlinks, titles, shell integration
// marks) and the lone escapes IPython's coloured tracebacks are full of.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** Which output mimes carry text worth diagnosing; images, HTML and widgets are skipped. */
export const FORWARDED_MIMES: readonly string[] = [MIME_ERROR, MIME_STDOUT, MIME_STDERR, MIME_TEXT];

/**
 * Decodes one output item. Errors are JSON `{name, message, stack}`; the text sent is
 * `name: message` followed by the stack, so the server sees the exception even when a kernel
 * leaves the stack empty.
 */
export function decodeItem(item: OutputItemLike): CellOutput | undefined {
  if (!FORWARDED_MIMES.includes(item.mime)) return undefined;
  const raw = decoder.decode(item.data);
  if (item.mime !== MIME_ERROR) return { mime: item.mime, text: stripAnsi(raw) };
  let err: unknown;
  try {
    err = JSON.parse(raw);
  } catch {
    return { mime: item.mime, text: stripAnsi(raw) };
  }
  const e = (typeof err === 'object' && err !== null ? err : {}) as { name?: unknown; message?: unknown; stack?: unknown };
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const message = typeof e.message === 'string' ? e.message : '';
  const stack = typeof e.stack === 'string' ? stripAnsi(e.stack) : '';
  const head = message ? `${name}: ${message}` : name;
  return { mime: item.mime, text: stack ? `${head}\n${stack}` : head };
}

export function cellOutputs(cell: CellLike): CellOutputs {
  const outputs: CellOutput[] = [];
  for (const o of cell.outputs) {
    for (const item of o.items) {
      const d = decodeItem(item);
      if (d) outputs.push(d);
    }
  }
  const c: CellOutputs = { cellUri: cell.uri, outputs };
  if (cell.executionOrder !== undefined) c.executionOrder = cell.executionOrder;
  if (cell.success !== undefined) c.success = cell.success;
  return c;
}

/**
 * The `abidoc/cellOutputs` payload for a whole notebook. Every code cell is listed, with or
 * without outputs, so the server can clear diagnostics of cells that were re-run or cleared.
 */
export function notebookOutputs(notebookUri: string, cells: readonly CellLike[]): CellOutputsParams {
  return { notebookUri, cells: cells.filter((c) => c.isCode).map(cellOutputs) };
}

/** Whether any code cell has something the server could diagnose (skip sending otherwise on open). */
export function hasDiagnosableOutput(p: CellOutputsParams): boolean {
  return p.cells.some((c) => c.outputs.length > 0);
}

/** Terminal output is capped: a runaway build log must not become a multi-megabyte notification. */
export const TERMINAL_TEXT_LIMIT = 2 * 1024 * 1024;

/** Keeps the tail of long output (errors come last) and strips escapes. */
export function terminalText(raw: string, limit = TERMINAL_TEXT_LIMIT): string {
  const clean = stripAnsi(raw).replace(/\r\n/g, '\n').replace(/\r(?!\n)/g, '\n');
  return clean.length > limit ? clean.slice(clean.length - limit) : clean;
}
