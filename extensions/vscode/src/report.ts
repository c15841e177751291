// The report of "abidoc: Scan environment" (and of a failed terminal command): the HTML of a
// webview that answers first, in the order of the CLI's one screen (`server/cli/src/screen.rs`)
// and of the notebook display (`extensions/python/python/abidoc/_display.py`): errors, one block
// per failing import (package and version, what breaks, the preferred fix as one command with a
// copy button), then warnings; everything else folded in <details>: each block's evidence,
// symbols and other fixes, and the information a scan folds, one count line per kind.
//
// Everything shown comes from the server's JSON and is treated as hostile: every string is
// escaped, invisible and control characters are shown as <U+XXXX>, commands are quoted by
// shellQuote (a fix holding a character a terminal would act on is named as refused, never
// shown as something to copy). The page runs one nonce'd script, which only posts the index of
// the fix a button belongs to; the extension looks the fix up in its own copy (`reportAction`).

import { Fix } from './protocol';
import { forbiddenChar, renderCommandLine, visible } from './shellQuote';

export interface ReportSymbol {
  mangled?: string;
  demangled?: string;
  status?: string;
  nearest?: string;
}

/** A fix as the contract's JSON gives it; the report reads a few more fields than a code action. */
export interface ReportFix extends Fix {
  id?: string;
  reason?: string;
  advice?: string[];
}

/** How a scan folds a diagnosis (`fold` in the contract); `shown` is an error or a warning. */
export type FoldKind = 'shown' | 'no-import' | 'optional' | 'loads' | 'note';
const FOLDS: readonly FoldKind[] = ['shown', 'no-import', 'optional', 'loads', 'note'];

export interface ReportDiagnostic {
  code?: string;
  severity?: string;
  message: string;
  package?: string;
  /** The version of the distribution owning the library (a scan's). */
  package_version?: string;
  library?: string;
  /** Where it was published, when it came from the Problems view rather than the command's result. */
  location?: string;
  symbols?: ReportSymbol[];
  evidence?: string[];
  explanation?: string;
  fixes?: ReportFix[];
  /** How the scan folds it; absent (an older server, a text diagnosis): by severity alone. */
  fold?: FoldKind;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
}

function fixFrom(f: unknown): ReportFix | undefined {
  if (!isObject(f) || typeof f.title !== 'string') return undefined;
  const commands = Array.isArray(f.commands)
    ? f.commands.filter((c): c is string[] => Array.isArray(c) && c.length > 0 && c.every((a) => typeof a === 'string'))
    : [];
  const env: Record<string, string> = {};
  if (isObject(f.env)) for (const [k, v] of Object.entries(f.env)) if (typeof v === 'string') env[k] = v;
  return {
    id: str(f.id),
    title: f.title,
    reason: str(f.reason),
    preferred: f.preferred === true,
    commands,
    env,
    notebook_cell: str(f.notebook_cell) ?? null,
    advice: strings(f.advice),
  };
}

/** One diagnosis of the contract's JSON, keeping only fields of the expected types. */
export function diagnosticFrom(d: unknown): ReportDiagnostic | undefined {
  if (!isObject(d) || typeof d.message !== 'string') return undefined;
  const symbols = (Array.isArray(d.symbols) ? d.symbols : []).filter(isObject).map((s) => ({
    mangled: str(s.mangled),
    demangled: str(s.demangled),
    status: str(s.status),
    nearest: str(s.nearest),
  }));
  const fold = FOLDS.find((f) => f === d.fold);
  return {
    code: str(d.code),
    severity: str(d.severity),
    message: d.message,
    package: str(d.package),
    package_version: str(d.package_version),
    library: str(d.library),
    location: str(d.location),
    symbols,
    evidence: strings(d.evidence),
    explanation: str(d.explanation),
    fixes: (Array.isArray(d.fixes) ? d.fixes : []).map(fixFrom).filter((f): f is ReportFix => f !== undefined),
    fold,
  };
}

/** Pulls contract diagnostics out of an executeCommand result of unknown shape. */
export function diagnosticsFromResult(result: unknown): ReportDiagnostic[] | undefined {
  const list = Array.isArray(result)
    ? result
    : isObject(result) && Array.isArray(result.diagnostics)
      ? result.diagnostics
      : undefined;
  if (!list) return undefined;
  return list.map(diagnosticFrom).filter((d): d is ReportDiagnostic => d !== undefined);
}

/** `summary` (one line) and `notes` (problems met while scanning) of the server's scan result. */
export function scanSummary(result: unknown): { summary?: string; notes: string[] } {
  const r = isObject(result) ? result : {};
  return { summary: str(r.summary), notes: strings(r.notes) };
}

/** Scan findings are published on the libraries they concern: shared objects, not documents. */
export function isLibraryPath(p: string): boolean {
  return /\.so(?:\.\d+)*$/.test(p) || /\.(?:dylib|pyd|dll)$/i.test(p);
}

// ---- the model: what is shown, in which order, and what is folded -----------------------------

/** Errors or warnings about one import: a package's failures with one cause and fix, or one library. */
export interface Block {
  severity: 'error' | 'warning';
  diagnostics: ReportDiagnostic[];
  /** The preferred fix of the block (else its first), as an index into `ReportModel.fixes`. */
  fix?: number;
  /** The block's other fixes, deduplicated, as indexes into `ReportModel.fixes`. */
  otherFixes: number[];
}

/** One kind of information folded away, counted as the CLI counts it (libraries, not diagnoses). */
export interface Folded {
  kind: Exclude<FoldKind, 'shown'>;
  count: number;
  /** `9 libraries cannot load on their own, but no import loads them that way`. */
  line: string;
  diagnostics: ReportDiagnostic[];
}

export interface ReportModel {
  errors: number;
  warnings: number;
  blocks: Block[];
  folded: Folded[];
  /** Every fix a button may name: the buttons post an index into this list, nothing else. */
  fixes: ReportFix[];
}

function severityOf(d: ReportDiagnostic): string {
  return d.severity ?? 'error';
}

/** Whether the diagnosis is shown as a block; otherwise it is folded, and how. */
function foldOf(d: ReportDiagnostic): FoldKind {
  const sev = severityOf(d);
  if (d.fold && d.fold !== 'shown') return d.fold;
  return sev === 'error' || sev === 'warning' ? 'shown' : 'note';
}

/** The library a diagnosis concerns: its own, or the library the Problems view published it on. */
function libraryOf(d: ReportDiagnostic): string | undefined {
  return d.library ?? (d.location && isLibraryPath(d.location) ? d.location : undefined);
}

/** The count line of a folded kind, in the CLI's words (`screen.rs`, `folded`). */
export function foldLine(kind: Exclude<FoldKind, 'shown'>, n: number): string {
  const [one, many] = {
    'no-import': [
      'library cannot load on its own, but no import loads it that way',
      'libraries cannot load on their own, but no import loads them that way',
    ],
    optional: [
      'optional backend or driver library is missing (its package imports without it)',
      'optional backends or driver libraries are missing (their packages import without them)',
    ],
    loads: ['library loads', 'libraries load'],
    note: ['note', 'notes'],
  }[kind];
  return `${n} ${n === 1 ? one : many}`;
}

function fixKey(f: ReportFix): string {
  return f.id ?? `${f.title}\u0000${JSON.stringify(f.commands)}`;
}

/** The order and folding of the CLI's one screen, over the contract's diagnostics. */
export function reportModel(diags: readonly ReportDiagnostic[]): ReportModel {
  const blocks: Block[] = [];
  const byKey = new Map<string, Block>();
  const folded = new Map<Exclude<FoldKind, 'shown'>, { loose: number; libs: Set<string>; diagnostics: ReportDiagnostic[] }>();
  let errors = 0;
  let warnings = 0;
  diags.forEach((d, n) => {
    const sev = severityOf(d);
    const fold = foldOf(d);
    if (fold !== 'shown') {
      const e = folded.get(fold) ?? { loose: 0, libs: new Set<string>(), diagnostics: [] };
      folded.set(fold, e);
      const lib = libraryOf(d);
      if (lib) e.libs.add(lib);
      else e.loose++;
      e.diagnostics.push(d);
      return;
    }
    const severity = sev === 'warning' ? 'warning' : 'error';
    if (severity === 'error') errors++;
    else warnings++;
    // One import's failures together: a package's libraries failing for one cause with one fix
    // are one block; a library or a text with no package stands alone.
    const fixes = d.fixes ?? [];
    const preferred = fixes.find((f) => f.preferred);
    const lib = libraryOf(d);
    const key = d.package
      ? `${severity} pkg ${d.package} ${d.code ?? ''} ${preferred ? fixKey(preferred) : ''}`
      : lib
        ? `${severity} lib ${lib}`
        : `${severity} diag ${n}`;
    const block = byKey.get(key);
    if (block) block.diagnostics.push(d);
    else {
      const b: Block = { severity, diagnostics: [d], otherFixes: [] };
      byKey.set(key, b);
      blocks.push(b);
    }
  });
  // Errors first, then warnings, each in the order found (the sort is stable).
  blocks.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  const fixes: ReportFix[] = [];
  for (const b of blocks) {
    const all = b.diagnostics.flatMap((d) => d.fixes ?? []);
    const chosen = all.find((f) => f.preferred) ?? all[0];
    const seen = new Set<string>();
    for (const f of [chosen, ...all]) {
      if (!f || seen.has(fixKey(f))) continue;
      seen.add(fixKey(f));
      fixes.push(f);
      if (f === chosen) b.fix = fixes.length - 1;
      else b.otherFixes.push(fixes.length - 1);
    }
  }
  const order: Exclude<FoldKind, 'shown'>[] = ['no-import', 'optional', 'loads', 'note'];
  return {
    errors,
    warnings,
    blocks,
    folded: order.flatMap((kind) => {
      const e = folded.get(kind);
      if (!e) return [];
      const count = e.loose + e.libs.size;
      return [{ kind, count, line: foldLine(kind, count), diagnostics: e.diagnostics }];
    }),
    fixes,
  };
}

// ---- what a button asks for ---------------------------------------------------------------

/** What the page posts when a button is pressed: the index of a fix in the model, nothing else. */
export interface ReportMessage {
  type: 'copy' | 'run';
  fix: number;
  /** Copy this one command of the fix (each command is its own line, as the CLI shows them). */
  cmd?: number;
  /** Copy the fix's notebook lines. */
  cell?: boolean;
}

export type ReportAction =
  | { kind: 'clipboard'; text: string; what: string }
  | { kind: 'run'; title: string; commands: string[][]; env: Record<string, string> }
  | { kind: 'refused'; reason: string };

function isIndex(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/**
 * What a message from the page asks for, looked up in the fixes the page was rendered from: the
 * text to put on the clipboard (rendered here by shellQuote, never taken from the page), or the
 * fix to hand to `abidoc.runInTerminal` (which shows it and asks). Anything else is refused.
 */
export function reportAction(fixes: readonly ReportFix[], message: unknown): ReportAction {
  if (!isObject(message) || (message.type !== 'copy' && message.type !== 'run') || !isIndex(message.fix)) {
    return { kind: 'refused', reason: 'not a message of the report' };
  }
  const fix = fixes[message.fix];
  if (!fix) return { kind: 'refused', reason: `no fix ${message.fix} in this report` };
  if (message.type === 'run') {
    if (fix.commands.length !== 1) return { kind: 'refused', reason: 'only a fix of one command runs from the report' };
    // `abidoc.runInTerminal` checks again, and shows the line before it runs.
    const r = renderCommandLine(fix.commands, fix.env ?? {});
    if ('error' in r) return { kind: 'refused', reason: r.error };
    return { kind: 'run', title: fix.title, commands: fix.commands, env: fix.env ?? {} };
  }
  if (message.cell === true) {
    const cell = fix.notebook_cell ?? '';
    if (!cell.trim()) return { kind: 'refused', reason: 'this fix has no notebook lines' };
    // As for an inserted cell: lines and tabs, no other control or invisible character.
    const bad = forbiddenChar(cell.replace(/[\n\t]/g, ' '));
    if (bad) return { kind: 'refused', reason: `its notebook lines contain ${bad}, a control or invisible character` };
    return { kind: 'clipboard', text: cell, what: 'the notebook lines' };
  }
  if (message.cmd !== undefined && !isIndex(message.cmd)) return { kind: 'refused', reason: 'not a message of the report' };
  const commands = message.cmd === undefined ? fix.commands : fix.commands.slice(message.cmd, message.cmd + 1);
  if (!commands.length) return { kind: 'refused', reason: 'no such command in this fix' };
  const r = renderCommandLine(commands, fix.env ?? {});
  if ('error' in r) return { kind: 'refused', reason: r.error };
  return { kind: 'clipboard', text: r.line, what: 'the command' };
}

// ---- HTML ---------------------------------------------------------------------------------

/** HTML-escaped text, with control and invisible characters shown as `<U+XXXX>`. */
export function esc(text: string): string {
  return visible(text.replace(/[\r\n\t]+/g, ' '), Infinity)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Escaped text with the server's own `code spans` as <code>. */
function inline(text: string): string {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part) => (/^`[^`\n]+`$/.test(part) ? `<code>${esc(part.slice(1, -1))}</code>` : esc(part)))
    .join('');
}

/** A library's path from its site-packages on (`torch/lib/libc10.so`), as the CLI shows it. */
export function shortPath(p: string): string {
  for (const m of ['/site-packages/', '/dist-packages/']) {
    const i = p.lastIndexOf(m);
    if (i >= 0) return p.slice(i + m.length);
  }
  return p;
}

const MARK: Record<string, string> = { error: '✖', warning: '⚠' };
/** Libraries named in a block's place line before the rest are counted. */
const PLACES = 3;
/** Further diagnoses of one import named in its block before the rest are counted. */
const ALSO = 2;

function packageLabel(d: ReportDiagnostic): string | undefined {
  return d.package ? (d.package_version ? `${d.package} ${d.package_version}` : d.package) : undefined;
}

/** `mamba-ssm 2.3.0 · selective_scan_cuda….so`: the package and (at most three) libraries. */
function place(b: Block): string {
  const first = b.diagnostics[0];
  const libs: string[] = [];
  for (const d of b.diagnostics) {
    const lib = libraryOf(d);
    if (lib && !libs.includes(shortPath(lib))) libs.push(shortPath(lib));
  }
  const parts: string[] = [];
  const pkg = first && packageLabel(first);
  if (pkg) parts.push(`<span class="package">${esc(pkg)}</span>`);
  if (libs.length) {
    const more = libs.length > PLACES ? ` and ${libs.length - PLACES} more` : '';
    parts.push(libs.slice(0, PLACES).map((l) => `<code>${esc(l)}</code>`).join(', ') + more);
  }
  if (!libs.length && first?.location) parts.push(`<code>${esc(first.location)}</code>`);
  return parts.join(' · ');
}

/** One command line with its copy button (and, for a fix of one command, its run button). */
function commandRow(fixIndex: number, commands: string[][], env: Record<string, string>, cmd: number | undefined, run: boolean): string {
  const r = renderCommandLine(commands, env);
  if ('error' in r) return `<div class="refused">not shown: ${esc(r.error)}</div>`;
  const at = cmd === undefined ? '' : ` data-cmd="${cmd}"`;
  return (
    `<div class="cmd"><pre>${esc(r.line)}</pre>` +
    `<button type="button" class="copy" data-action="copy" data-fix="${fixIndex}"${at} title="Copy the command">Copy</button>` +
    // `abidoc.runInTerminal` shows the exact line and asks before anything runs.
    (run ? `<button type="button" class="run" data-action="run" data-fix="${fixIndex}" title="Shows the command and asks before running it">Run in terminal…</button>` : '') +
    '</div>'
  );
}

/** A fix's command: one line; several stay one line each (copied one by one, run from a terminal,
 * looked at between: a fix that looks before it acts, `nvidia-smi` then `kill`, is not pasted as one). */
function commandsHtml(f: ReportFix, i: number): string {
  const env = f.env ?? {};
  if (f.commands.length === 1) return commandRow(i, f.commands, env, undefined, true);
  return f.commands.map((c, n) => commandRow(i, [c], env, n, false)).join('');
}

function cellHtml(f: ReportFix, i: number): string {
  const cell = f.notebook_cell ?? '';
  if (!cell.trim()) return '';
  return (
    `<div class="cell"><span class="label">In a notebook:</span><div class="cmd"><pre>${cell.split('\n').map(esc).join('\n')}</pre>` +
    `<button type="button" class="copy" data-action="copy" data-fix="${i}" data-cell="" title="Copy the notebook lines">Copy</button></div></div>`
  );
}

/** The preferred fix of a block: its title, then its command with a copy button, or its advice. */
function preferredHtml(fixes: readonly ReportFix[], i: number): string {
  const f = fixes[i];
  if (!f) return '';
  const advice = (f.advice ?? []).map((a) => `<div class="advice">${inline(a)}</div>`).join('');
  return `<div class="fix"><div><span class="label">Fix:</span> ${inline(f.title)}</div>${commandsHtml(f, i)}${advice}</div>`;
}

/** Another fix, in full (folded): title, reason, commands, advice, notebook lines. */
function otherFixHtml(fixes: readonly ReportFix[], i: number, label: string): string {
  const f = fixes[i];
  if (!f) return '';
  const out = [`<div class="fix"><div><span class="label">${esc(label)}</span> ${inline(f.title)}</div>`];
  if (f.reason) out.push(`<div class="reason">${inline(f.reason)}</div>`);
  out.push(commandsHtml(f, i));
  for (const a of f.advice ?? []) out.push(`<div class="advice">${inline(a)}</div>`);
  out.push(cellHtml(f, i), '</div>');
  return out.join('');
}

function symbolItems(d: ReportDiagnostic): string {
  return (d.symbols ?? [])
    .map((s) => {
      const name = s.demangled ?? s.mangled ?? '';
      return `<li><code>${esc(name)}</code>${s.status ? `: ${esc(s.status)}` : ''}${s.nearest ? `; installed: <code>${esc(s.nearest)}</code>` : ''}</li>`;
    })
    .join('');
}

/** Everything of a block but its cause and preferred fix, folded. */
function detailsHtml(b: Block, fixes: readonly ReportFix[]): string {
  const [first, ...rest] = b.diagnostics;
  if (!first) return '';
  const body: string[] = [];
  const what: string[] = [];
  const facts: string[] = [];
  if (first.package) facts.push(`package <code>${esc(packageLabel(first) ?? first.package)}</code>`);
  const lib = libraryOf(first) ?? first.location;
  if (lib) facts.push(`${libraryOf(first) ? 'library' : 'reported on'} <code>${esc(lib)}</code>`);
  if (facts.length) body.push(`<div>${facts.join(', ')}</div>`);
  const symbols = first.symbols ?? [];
  if (symbols.length) {
    body.push(`<div>Symbols:</div><ul>${symbolItems(first)}</ul>`);
    what.push(`${symbols.length} symbol(s)`);
  }
  const evidence = first.evidence ?? [];
  if (evidence.length) {
    body.push(`<div>Evidence:</div><ul>${evidence.map((e) => `<li>${inline(e)}</li>`).join('')}</ul>`);
    what.push('evidence');
  }
  if (first.explanation) {
    body.push(`<div>Why: ${inline(first.explanation)}</div>`);
    what.push('why');
  }
  const chosen = b.fix === undefined ? undefined : fixes[b.fix];
  if (chosen && b.fix !== undefined) {
    if (chosen.reason) {
      body.push(`<div>Why this fix: ${inline(chosen.reason)}</div>`);
      what.push('why this fix');
    }
    const cell = cellHtml(chosen, b.fix);
    if (cell) {
      body.push(cell);
      what.push('notebook lines');
    }
  }
  b.otherFixes.forEach((fi, n) => body.push(otherFixHtml(fixes, fi, `Fix ${n + 2}:`)));
  if (b.otherFixes.length) what.push(`${b.otherFixes.length} other fix(es)`);
  if (rest.length) {
    body.push(
      '<div>Also:</div><ul>' +
        rest
          .map((d) => {
            const l = libraryOf(d);
            return `<li><code>${esc(d.code ?? '')}</code>: ${inline(d.message)}${l ? ` (<code>${esc(l)}</code>)` : ''}<ul>${symbolItems(d)}${(d.evidence ?? []).map((e) => `<li>${inline(e)}</li>`).join('')}</ul></li>`;
          })
          .join('') +
        '</ul>',
    );
    what.push(`${rest.length} more of this kind`);
  }
  if (!body.length) return '';
  return `<details><summary>More: ${esc(what.length ? what.join(', ') : 'where')}</summary>${body.join('')}</details>`;
}

function blockHtml(b: Block, fixes: readonly ReportFix[]): string {
  const [first] = b.diagnostics;
  if (!first) return '';
  const out = [
    `<section class="block ${b.severity}">`,
    `<div class="head"><span class="sev">${MARK[b.severity]} ${b.severity}</span> <code class="code">${esc(first.code ?? 'abidoc')}</code>: ${inline(first.message)}</div>`,
  ];
  const where = place(b);
  if (where) out.push(`<div class="place">${where}</div>`);
  const others = b.diagnostics.slice(1).filter((d) => d.message !== first.message);
  for (const d of others.slice(0, ALSO)) out.push(`<div class="also">also <code>${esc(d.code ?? '')}</code>: ${inline(d.message)}</div>`);
  if (others.length > ALSO) out.push(`<div class="also">… and ${others.length - ALSO} more of this kind (under More)</div>`);
  if (b.fix !== undefined) out.push(preferredHtml(fixes, b.fix));
  out.push(detailsHtml(b, fixes), '</section>');
  return out.join('');
}

function foldedHtml(f: Folded): string {
  const items = f.diagnostics
    .map((d) => {
      const lib = libraryOf(d);
      const who = [lib ? `<code>${esc(shortPath(lib))}</code>` : '', d.package ? esc(packageLabel(d) ?? '') : ''].filter(Boolean).join(' · ');
      const ev = (d.evidence ?? []).map((e) => `<li>${inline(e)}</li>`).join('');
      return `<li>${who ? who + ': ' : ''}${inline(d.message)}${ev ? `<ul>${ev}</ul>` : ''}</li>`;
    })
    .join('');
  return `<details class="folded" data-fold="${f.kind}"><summary>${esc(f.line)}</summary><ul>${items}</ul></details>`;
}

export interface ReportHeader {
  title?: string;
  when?: string;
  summary?: string;
  notes?: readonly string[];
  /** What to say when there is nothing at all (a scan: every compiled extension should load). */
  none?: string;
}

export interface ReportPage {
  html: string;
  model: ReportModel;
}

const STYLE = `
body { font-family: var(--vscode-font-family, system-ui, sans-serif); font-size: var(--vscode-font-size, 14px);
  color: var(--vscode-foreground, #1f1f1f); background: var(--vscode-editor-background, #fff); margin: 0; padding: 12px 20px; line-height: 1.4; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
.when, .summary, .reason, .place, .also, .refused { opacity: .8; }
.when, .summary { margin: 0 0 .2em; font-size: .92em; }
.counts { margin: .5em 0; }
.block { border-left: 4px solid var(--vscode-editorError-foreground, #e51400); padding: .3em .8em; margin: .6em 0;
  background: var(--vscode-textBlockQuote-background, rgba(127,127,127,.08)); }
.block.warning { border-left-color: var(--vscode-editorWarning-foreground, #bf8803); }
.head { font-weight: 600; }
.place { font-size: .92em; }
.sev { text-transform: uppercase; font-size: .8em; letter-spacing: .04em; }
.block.error .sev { color: var(--vscode-editorError-foreground, #e51400); }
.block.warning .sev { color: var(--vscode-editorWarning-foreground, #bf8803); }
.fix { margin: .4em 0; }
.label { font-weight: 600; }
.cmd { display: flex; gap: .4em; align-items: flex-start; margin: .25em 0; }
.fix .advice { margin: .2em 0; }
pre { margin: 0; padding: .3em .5em; flex: 1; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere;
  font-family: var(--vscode-editor-font-family, monospace); background: var(--vscode-textCodeBlock-background, rgba(127,127,127,.15)); }
code { font-family: var(--vscode-editor-font-family, monospace); }
button { font: inherit; padding: .2em .8em; cursor: pointer; border: 1px solid transparent;
  color: var(--vscode-button-foreground, #fff); background: var(--vscode-button-background, #0e639c); }
button.run { color: var(--vscode-button-secondaryForeground, #1f1f1f); background: var(--vscode-button-secondaryBackground, #e5e5e5); }
details { margin: .4em 0; }
summary { cursor: pointer; }
details.folded, details.problems { margin: .6em 0; }
ul { margin: .2em 0; padding-left: 1.4em; }
`;

/** The page's one script: buttons post their fix's index; an acknowledgement relabels the button. */
const SCRIPT = `(function () {
  const vscode = acquireVsCodeApi();
  document.addEventListener('click', function (e) {
    const b = e.target instanceof Element ? e.target.closest('button[data-action]') : null;
    if (!b) return;
    const m = { type: b.dataset.action, fix: Number(b.dataset.fix) };
    if (b.dataset.cmd !== undefined) m.cmd = Number(b.dataset.cmd);
    if (b.dataset.cell !== undefined) m.cell = true;
    vscode.postMessage(m);
  });
  window.addEventListener('message', function (e) {
    const m = e.data;
    if (!m || m.type !== 'copied' || typeof m.fix !== 'number') return;
    for (const b of document.querySelectorAll('button.copy')) {
      const same = Number(b.dataset.fix) === m.fix && (b.dataset.cmd === undefined ? m.cmd === undefined : Number(b.dataset.cmd) === m.cmd) && (b.dataset.cell !== undefined) === (m.cell === true);
      if (same) b.textContent = 'Copied';
    }
  });
})();`;

/**
 * The report as a complete HTML page for a webview. Its Content-Security-Policy allows nothing
 * but the style and the script carrying `nonce` (no inline handlers, no other source).
 */
export function reportHtml(diags: readonly ReportDiagnostic[], header: ReportHeader, nonce: string): ReportPage {
  if (!/^[A-Za-z0-9+/=]{16,}$/.test(nonce)) throw new Error('the nonce must be 16 or more base64 characters');
  const model = reportModel(diags);
  const title = header.title ?? 'abidoc environment scan';
  const body: string[] = [`<h1>${inline(title)}</h1>`];
  if (header.when) body.push(`<p class="when">${esc(header.when)}</p>`);
  if (header.summary) body.push(`<p class="summary">${inline(header.summary)}</p>`);
  if (diags.length === 0) {
    body.push(`<p class="counts none">${esc(header.none ?? 'Every compiled extension found should load.')}</p>`);
  } else {
    body.push(`<p class="counts"><b>${model.errors} error(s), ${model.warnings} warning(s)</b></p>`);
  }
  for (const b of model.blocks) body.push(blockHtml(b, model.fixes));
  for (const f of model.folded) body.push(foldedHtml(f));
  const notes = header.notes ?? [];
  if (notes.length) {
    body.push(`<details class="problems"><summary>${notes.length} problem(s) met while scanning</summary><ul>${notes.map((n) => `<li>${inline(n)}</li>`).join('')}</ul></details>`);
  }
  const html = [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title>`,
    `<style nonce="${nonce}">${STYLE}</style>`,
    '</head><body>',
    ...body,
    `<script nonce="${nonce}">${SCRIPT}</script>`,
    '</body></html>',
  ].join('\n');
  return { html, model };
}
