// Where the abidoc binary comes from: the order of the candidates and the check that one works.
// Pure apart from the injected probe, so the order and the error text are unit-tested.

import * as path from 'node:path';

export type Source = 'ABIDOC_PATH' | 'setting abidoc.path' | 'bundled' | 'PATH';

export interface Candidate {
  source: Source;
  path: string;
}

export interface DiscoveryInput {
  env: Readonly<Record<string, string | undefined>>;
  settingPath: string | undefined;
  extensionPath: string;
  platform?: NodeJS.Platform;
}

const exeName = (platform: NodeJS.Platform) => (platform === 'win32' ? 'abidoc.exe' : 'abidoc');

/** The candidates, best first: env `ABIDOC_PATH`, setting `abidoc.path`, bundled `server/abidoc`, `PATH`. */
export function candidates(input: DiscoveryInput): Candidate[] {
  const platform = input.platform ?? process.platform;
  const out: Candidate[] = [];
  const fromEnv = input.env.ABIDOC_PATH?.trim();
  if (fromEnv) out.push({ source: 'ABIDOC_PATH', path: fromEnv });
  const fromSetting = input.settingPath?.trim();
  if (fromSetting) out.push({ source: 'setting abidoc.path', path: fromSetting });
  out.push({ source: 'bundled', path: path.join(input.extensionPath, 'server', exeName(platform)) });
  const sep = platform === 'win32' ? ';' : ':';
  for (const dir of (input.env.PATH ?? '').split(sep)) {
    // Only absolute entries: `.` or a relative directory would name a file in whatever folder
    // the extension host runs in.
    if (dir && path.isAbsolute(dir)) out.push({ source: 'PATH', path: path.join(dir, exeName(platform)) });
  }
  return out;
}

/** What probing one candidate found: a version line, or why it is unusable. */
export type ProbeResult = { ok: true; version: string } | { ok: false; reason: string };

export interface Found {
  candidate: Candidate;
  version: string;
}

export interface NotFound {
  tried: { candidate: Candidate; reason: string }[];
  message: string;
}

/**
 * Probes candidates in order and returns the first that answers `--version`. Missing files on
 * PATH are normal and are left out of the error message; explicit choices that fail are named.
 */
export async function discover(list: Candidate[], probe: (c: Candidate) => Promise<ProbeResult>): Promise<Found | NotFound> {
  const tried: { candidate: Candidate; reason: string }[] = [];
  for (const c of list) {
    const r = await probe(c);
    if (r.ok) return { candidate: c, version: r.version };
    tried.push({ candidate: c, reason: r.reason });
  }
  return { tried, message: notFoundMessage(tried) };
}

export function isFound(r: Found | NotFound): r is Found {
  return (r as Found).candidate !== undefined;
}

function notFoundMessage(tried: { candidate: Candidate; reason: string }[]): string {
  const named = tried.filter((t) => t.candidate.source !== 'PATH' || !/not found|ENOENT/.test(t.reason));
  const lines = named.map((t) => `${t.candidate.source}: ${t.candidate.path} (${t.reason})`);
  const searched = tried.some((t) => t.candidate.source === 'PATH') ? 'PATH' : 'PATH (empty)';
  return (
    'abidoc: no working abidoc binary found. Set "abidoc.path" or ABIDOC_PATH, or install it (cargo install --path server/cli, or pip install abidoc). ' +
    `Tried: ${lines.length ? lines.join('; ') + '; ' : ''}${searched}.`
  );
}

/** The first line of `abidoc --version` must name abidoc: anything else is some other program. */
export function parseVersion(stdout: string): string | undefined {
  const first = stdout.split(/\r?\n/)[0]?.trim() ?? '';
  return /^abidoc\b/.test(first) ? first : undefined;
}
