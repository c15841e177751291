// The readable Markdown report of "abidoc: Scan environment", built from the contract's JSON
// diagnostics (whatever the server returns from the command) or from the published diagnostics.

import { Fix } from './protocol';
import { renderCommandLine, visible } from './shellQuote';

export interface ReportSymbol {
  mangled?: string;
  demangled?: string;
  status?: string;
  nearest?: string;
}

export interface ReportDiagnostic {
  code?: string;
  severity?: string;
  message: string;
  package?: string;
  library?: string;
  /** Where it was published, when it came from the Problems view rather than the command's result. */
  location?: string;
  symbols?: ReportSymbol[];
  evidence?: string[];
  fixes?: Fix[];
}

/** Pulls contract diagnostics out of an executeCommand result of unknown shape. */
export function diagnosticsFromResult(result: unknown): ReportDiagnostic[] | undefined {
  const list = Array.isArray(result)
    ? result
    : typeof result === 'object' && result !== null && Array.isArray((result as { diagnostics?: unknown }).diagnostics)
      ? (result as { diagnostics: unknown[] }).diagnostics
      : undefined;
  if (!list) return undefined;
  return list.filter(
    (d): d is ReportDiagnostic => typeof d === 'object' && d !== null && typeof (d as { message?: unknown }).message === 'string',
  );
}

const ORDER: Record<string, number> = { error: 0, warning: 1, information: 2, hint: 3 };

// `_` is left alone: CommonMark ignores intraword underscores, and library names are full of them.
function md(text: string): string {
  return text.replace(/([\\`*[\]<>|])/g, '\\$1');
}

function code(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${text}${fence}`;
}

/** `summary` (one line) and `notes` (problems met while scanning) of the server's scan result. */
export function scanSummary(result: unknown): { summary?: string; notes: string[] } {
  const r = (typeof result === 'object' && result !== null ? result : {}) as { summary?: unknown; notes?: unknown };
  return {
    summary: typeof r.summary === 'string' && r.summary ? r.summary : undefined,
    notes: Array.isArray(r.notes) ? r.notes.filter((n): n is string => typeof n === 'string') : [],
  };
}

/** Scan findings are published on the libraries they concern: shared objects, not documents. */
export function isLibraryPath(p: string): boolean {
  return /\.so(?:\.\d+)*$/.test(p) || /\.(?:dylib|pyd|dll)$/i.test(p);
}

export interface ReportHeader {
  title?: string;
  when?: string;
  summary?: string;
  notes?: readonly string[];
}

export function scanReport(diags: readonly ReportDiagnostic[], header: ReportHeader = {}): string {
  const lines: string[] = [`# ${header.title ?? 'abidoc environment scan'}`, ''];
  if (header.when) lines.push(`_${md(header.when)}_`, '');
  if (header.summary) lines.push(md(header.summary), '');
  if (header.notes && header.notes.length) {
    lines.push('Problems met while scanning:', '', ...header.notes.map((n) => `- ${md(n)}`), '');
  }
  const counts = new Map<string, number>();
  for (const d of diags) counts.set(d.severity ?? 'error', (counts.get(d.severity ?? 'error') ?? 0) + 1);
  if (diags.length === 0) {
    lines.push('No problems found: every compiled extension checked resolves its libraries and symbols.', '');
    return lines.join('\n');
  }
  const summary = [...counts.entries()]
    .sort((a, b) => (ORDER[a[0]] ?? 9) - (ORDER[b[0]] ?? 9))
    .map(([s, n]) => `${n} ${s}${n === 1 ? '' : 's'}`)
    .join(', ');
  lines.push(`**${summary}**`, '');
  const sorted = [...diags].sort((a, b) => (ORDER[a.severity ?? 'error'] ?? 9) - (ORDER[b.severity ?? 'error'] ?? 9));
  for (const d of sorted) {
    const where = d.library ?? d.location;
    const subject = d.package ?? (where ? where.split('/').pop() : undefined);
    const title = [subject, d.code].filter(Boolean).join(' — ') || 'finding';
    lines.push(`## ${md(title)} (${d.severity ?? 'error'})`, '', md(d.message), '');
    if (d.library) lines.push(`- Library: ${code(d.library)}`);
    if (d.location && d.location !== d.library) lines.push(`- ${isLibraryPath(d.location) ? 'Library' : 'Reported on'}: ${code(d.location)}`);
    for (const s of d.symbols ?? []) {
      const name = s.demangled ?? s.mangled ?? '';
      lines.push(`- Symbol ${code(name)}${s.status ? ` — ${s.status}` : ''}${s.nearest ? `; nearest: ${code(s.nearest)}` : ''}`);
    }
    for (const e of d.evidence ?? []) lines.push(`- ${md(e)}`);
    if (d.library || d.location || (d.symbols ?? []).length || (d.evidence ?? []).length) lines.push('');
    const fixes = d.fixes ?? [];
    if (fixes.length) {
      lines.push('Fixes, best first (nothing is run for you):', '');
      for (const f of fixes) {
        lines.push(`- ${f.preferred ? '**' + md(f.title) + '** (preferred)' : md(f.title)}`);
        if (f.commands.length) {
          // The same rendering as the terminal's: a fix with a control character is not shown as
          // something to copy, only named as refused.
          const r = renderCommandLine(f.commands, f.env ?? {});
          if ('line' in r) lines.push('', '  ```sh', `  ${r.line}`, '  ```');
          else lines.push(`  - not shown: ${md(r.error)}`);
        }
        if (f.notebook_cell) lines.push(`  - in a notebook: ${code(visible(f.notebook_cell))}`);
      }
      lines.push('');
    }
  }
  return lines.join('\n');
}
