// `abidoc verify` for one install line or requirements file: the command lines to run and the
// verdict read back from its JSON (docs/contract.md: a wheel that loads gives one `information`
// diagnostic whose library is the wheel; `prebuilt` answers for prebuilt-wheel packages). Pure.

import * as path from 'node:path';
import { InstallLine } from './installLines';
import { renderCommandLine } from './shellQuote';

export interface Environment {
  python?: string;
  sitePackages?: readonly string[];
}

function envArgs(env: Environment): string[] {
  const out: string[] = [];
  if (env.python) out.push('--python', env.python);
  for (const d of env.sitePackages ?? []) out.push('--site-packages', d);
  return out;
}

/**
 * The verify run one install line needs, with relative paths resolved against `cwd` (the
 * notebook's folder, where its kernel starts): files, a torch pin and the named packages in one
 * run, since the binary answers the packages and previews the pin together. A list, empty when
 * the line names nothing to judge.
 */
export function verifyRuns(install: InstallLine, cwd: string, env: Environment): string[][] {
  const abs = (p: string) => path.resolve(cwd, p.startsWith('~/') ? path.join(process.env.HOME ?? '~', p.slice(2)) : p);
  const wheels = [...new Set(install.requirements.filter((r) => r.wheel).map((r) => abs(r.wheel as string)))];
  const files = install.requirementFiles.map(abs);
  const torch = install.torch ? ['--torch', install.torch] : [];
  const packages = install.requirements.filter((r) => r.name && !r.wheel);
  if (!wheels.length && !files.length && !install.torch && !packages.length) return [];
  return [[
    'verify', ...wheels, ...files, '--format', 'json', ...torch,
    ...packages.flatMap((r) => ['--package', r.version ? `${r.name}==${r.version}` : (r.name as string)]),
    ...envArgs(env),
  ]];
}

/** verify on a requirements file: the file is an install plan. */
export function verifyFileRun(file: string, env: Environment): string[] {
  return ['verify', file, '--format', 'json', ...envArgs(env)];
}

export interface Failure {
  package: string;
  code: string;
  message: string;
  severity: 'error' | 'warning';
  /** The preferred fix: its title, and its command line quoted here from its argument vectors
   * (absent when a vector holds a character a terminal would act on, or there is none). */
  fixTitle?: string;
  fixCommand?: string;
}

export interface Verdict {
  failures: Failure[];
  /** One sentence per wheel that loads. */
  loads: string[];
  /** One sentence per prebuilt-wheel answer, with its status. */
  prebuilt: { package: string; status: string; message: string }[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The verdict of one or more verify JSON documents (merged), or undefined when none parses. */
export function readVerdict(stdouts: readonly string[]): Verdict | undefined {
  const verdict: Verdict = { failures: [], loads: [], prebuilt: [] };
  let any = false;
  for (const stdout of stdouts) {
    let doc: unknown;
    try {
      doc = JSON.parse(stdout);
    } catch {
      continue;
    }
    if (!doc || typeof doc !== 'object' || !Array.isArray((doc as { diagnostics?: unknown }).diagnostics)) continue;
    any = true;
    const { diagnostics, prebuilt } = doc as { diagnostics: unknown[]; prebuilt?: unknown };
    for (const d of diagnostics) {
      if (!d || typeof d !== 'object') continue;
      const diag = d as Record<string, unknown>;
      const severity = str(diag.severity);
      if (severity === 'information' && str(diag.library).endsWith('.whl')) {
        verdict.loads.push(str(diag.message));
      } else if (severity === 'error' || severity === 'warning') {
        const fixes = Array.isArray(diag.fixes) ? (diag.fixes.filter((f) => f && typeof f === 'object') as Record<string, unknown>[]) : [];
        const fix = fixes.find((f) => f.preferred === true) ?? fixes[0];
        verdict.failures.push({
          package: str(diag.package) || path.basename(str(diag.library)),
          code: str(diag.code),
          message: str(diag.message),
          severity,
          ...(fix ? { fixTitle: str(fix.title), fixCommand: fixLine(fix) } : {}),
        });
      }
    }
    for (const p of Array.isArray(prebuilt) ? prebuilt : []) {
      if (!p || typeof p !== 'object') continue;
      const item = p as Record<string, unknown>;
      const name = [str(item.package), str(item.version)].filter(Boolean).join(' ');
      verdict.prebuilt.push({ package: name, status: str(item.status), message: str(item.message) });
    }
  }
  return any ? verdict : undefined;
}

function fixLine(fix: Record<string, unknown>): string | undefined {
  const commands = Array.isArray(fix.commands) ? fix.commands : [];
  const argvs = commands.filter((c): c is string[] => Array.isArray(c) && c.length > 0 && c.every((a) => typeof a === 'string'));
  if (!argvs.length || argvs.length !== commands.length) return undefined;
  const env: Record<string, string> = {};
  if (fix.env && typeof fix.env === 'object') {
    for (const [k, v] of Object.entries(fix.env as Record<string, unknown>)) if (typeof v === 'string') env[k] = v;
  }
  const r = renderCommandLine(argvs, env);
  return 'line' in r ? r.line : undefined;
}

/** Nothing judged: no wheel, no known package, nothing that would break. */
export function isEmpty(v: Verdict): boolean {
  return !v.failures.length && !v.loads.length && !v.prebuilt.length;
}

/** The code lens title: the worst news first, in one line. */
export function lensTitle(v: Verdict): string {
  const errors = v.failures.filter((f) => f.severity === 'error');
  if (errors.length) {
    const first = errors[0];
    const more = errors.length > 1 ? ` (+${errors.length - 1} more)` : '';
    return `abidoc: ✖ ${first.package} would not load [${first.code}]${more}`;
  }
  const notListed = v.prebuilt.filter((p) => p.status === 'not-listed');
  if (notListed.length) return `abidoc: ⚠ ${notListed.map((p) => p.package).join(', ')}: no prebuilt wheel for this torch, setup.py would compile`;
  if (v.failures.length) return `abidoc: ⚠ ${v.failures[0].package}: ${v.failures[0].code}`;
  const parts: string[] = [];
  if (v.loads.length) parts.push(v.loads.length === 1 ? '✔ the wheel loads' : `✔ ${v.loads.length} wheels load`);
  const listed = v.prebuilt.filter((p) => p.status === 'listed');
  if (listed.length) parts.push(`✔ prebuilt wheel listed for ${listed.map((p) => p.package).join(', ')}`);
  const other = v.prebuilt.filter((p) => p.status !== 'listed');
  if (other.length) parts.push(`ℹ ${other.map((p) => p.package).join(', ')}`);
  return `abidoc: ${parts.join('; ')}`;
}

/** The full verdict as text: what each line of the lens's detail view says. */
export function verdictLines(v: Verdict): string[] {
  const out: string[] = [];
  for (const f of v.failures) {
    out.push(`${f.severity === 'error' ? '✖' : '⚠'} ${f.package} [${f.code}]: ${f.message}`);
    if (f.fixTitle) out.push(`    fix: ${f.fixTitle}${f.fixCommand ? `: ${f.fixCommand}` : ''}`);
  }
  for (const l of v.loads) out.push(`✔ ${l}`);
  for (const p of v.prebuilt) out.push(`${p.status === 'listed' ? '✔' : p.status === 'not-listed' ? '⚠' : 'ℹ'} ${p.package}: ${p.message}`);
  return out;
}
