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

/**
 * Settings that name a program: `abidoc.path` is the executable the extension starts, and
 * `abidoc.python` is the interpreter a fix's commands begin with. A workspace's own
 * `.vscode/settings.json` must not choose them unless the workspace is trusted (package.json
 * lists them in `capabilities.untrustedWorkspaces.restrictedConfigurations`).
 */
export const RESTRICTED_SETTINGS: readonly string[] = ['abidoc.path', 'abidoc.python'];

/** What `WorkspaceConfiguration.inspect` reports for one setting (the parts read here). */
export interface Inspected<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/**
 * The value of a setting as abidoc may use it: in a trusted workspace the effective value
 * (`get`, which already honours each setting's scope); in an untrusted one, for a restricted
 * setting, only the user's (or remote machine's) value, else the default — never what the
 * workspace or one of its folders says.
 */
export function trustedValue<T>(key: string, trusted: boolean, effective: T | undefined, inspected: Inspected<T> | undefined): T | undefined {
  if (trusted || !RESTRICTED_SETTINGS.includes(key)) return effective;
  if (!inspected) return undefined;
  return inspected.globalValue !== undefined ? inspected.globalValue : inspected.defaultValue;
}
