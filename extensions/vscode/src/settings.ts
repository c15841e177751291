// The `abidoc` settings sent to the server as initializationOptions: the keys listed in
// protocol/settings.json with side "server", nested by their dotted path under `abidoc.`.

export interface SettingSpec {
  key: string;
  type: string;
  default: unknown;
  side: 'client' | 'server';
}

/** Builds `{python, sitePackages, …}` from a getter over the `abidoc` section. */
export function initializationOptions(specs: readonly SettingSpec[], get: (relativeKey: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of specs) {
    if (s.side !== 'server') continue;
    const rel = s.key.replace(/^abidoc\./, '');
    const value = get(rel);
    const parts = rel.split('.');
    let obj = out;
    for (const p of parts.slice(0, -1)) {
      if (typeof obj[p] !== 'object' || obj[p] === null) obj[p] = {};
      obj = obj[p] as Record<string, unknown>;
    }
    obj[parts[parts.length - 1]] = value === undefined ? s.default : value;
  }
  return out;
}
