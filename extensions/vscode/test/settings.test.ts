// package.json's contributes.configuration must match protocol/settings.json, the list the
// language server's own test reads: a setting added on one side only fails here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { initializationOptions, RESTRICTED_SETTINGS, SettingSpec, trustedValue } from '../src/settings';

const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const spec = JSON.parse(fs.readFileSync(path.join(root, 'protocol', 'settings.json'), 'utf8')) as { section: string; settings: (SettingSpec & { items?: string; enum?: string[] })[] };
const props: Record<string, { type: string; default: unknown; items?: { type: string }; enum?: string[]; description?: string; scope?: string }> = pkg.contributes.configuration.properties;

test('every shared setting is contributed with the same type, default, items and enum', () => {
  for (const s of spec.settings) {
    const p = props[s.key];
    assert.ok(p, `${s.key} missing from package.json`);
    assert.equal(p.type, s.type, `${s.key} type`);
    assert.deepEqual(p.default, s.default, `${s.key} default`);
    assert.deepEqual(p.items?.type, s.items, `${s.key} items`);
    assert.deepEqual(p.enum, s.enum, `${s.key} enum`);
    assert.ok(p.description && p.description.length > 10, `${s.key} needs a description`);
  }
});

test('package.json contributes no setting the shared list does not know', () => {
  const known = new Set(spec.settings.map((s) => s.key));
  assert.deepEqual(Object.keys(props).filter((k) => !known.has(k)), []);
});

test('keys live in the abidoc section, sides are client or server, defaults match their type', () => {
  for (const s of spec.settings) {
    assert.ok(s.key.startsWith(spec.section + '.'), s.key);
    assert.ok(s.side === 'client' || s.side === 'server', s.key);
    const t = Array.isArray(s.default) ? 'array' : typeof s.default;
    assert.equal(t, s.type, `${s.key} default has type ${t}`);
  }
});

test('initializationOptions carry the server-side settings under their relative keys', () => {
  const values: Record<string, unknown> = { python: '/venv/bin/python', sitePackages: ['/sp'], disabledCodes: ['cuda-oom'], path: '/should/not/appear' };
  const opts = initializationOptions(spec.settings, (k) => values[k]);
  assert.deepEqual(opts, {
    python: '/venv/bin/python',
    sitePackages: ['/sp'],
    libraryPaths: [],
    disabledCodes: ['cuda-oom'],
    useEnvironment: true,
    logLevel: 'info',
  });
  assert.deepEqual(
    initializationOptions([{ key: 'abidoc.a.b', type: 'string', default: 'x', side: 'server' }], () => undefined),
    { a: { b: 'x' } },
  );
});

test('settings that name a program are restricted in untrusted workspaces and kept out of workspace files', () => {
  const caps = pkg.capabilities.untrustedWorkspaces;
  assert.equal(caps.supported, 'limited');
  assert.deepEqual([...caps.restrictedConfigurations].sort(), [...RESTRICTED_SETTINGS].sort());
  for (const key of RESTRICTED_SETTINGS) {
    assert.ok(props[key], key);
    assert.ok(props[key].scope === 'machine' || props[key].scope === 'machine-overridable', `${key} scope ${props[key].scope}`);
  }
  // The binary the extension starts can never come from a workspace file, trusted or not.
  assert.equal(props['abidoc.path'].scope, 'machine');
});

test('in an untrusted workspace a restricted setting takes the user value or the default, never the workspace one', () => {
  const inspected = { defaultValue: '', globalValue: '/home/u/.cargo/bin/abidoc', workspaceValue: '/ws/evil.sh', workspaceFolderValue: '/ws/sub/evil.sh' };
  // Trusted: whatever VS Code resolved (it honours the setting's scope).
  assert.equal(trustedValue('abidoc.path', true, '/ws/evil.sh', inspected), '/ws/evil.sh');
  // Untrusted: the user's value.
  assert.equal(trustedValue('abidoc.path', false, '/ws/sub/evil.sh', inspected), '/home/u/.cargo/bin/abidoc');
  // Untrusted, no user value: the default, though the workspace sets one.
  assert.equal(trustedValue('abidoc.path', false, '/ws/evil.sh', { defaultValue: '', workspaceValue: '/ws/evil.sh' }), '');
  assert.equal(trustedValue('abidoc.python', false, '/ws/.venv/bin/python', { defaultValue: '', workspaceFolderValue: '/ws/.venv/bin/python' }), '');
  assert.equal(trustedValue('abidoc.path', false, '/ws/evil.sh', undefined), undefined);
  // Settings that name no program keep their effective value.
  assert.deepEqual(trustedValue('abidoc.sitePackages', false, ['/ws/sp'], { defaultValue: [], workspaceValue: ['/ws/sp'] }), ['/ws/sp']);
});

test('initializationOptions built through the trust filter carry no workspace interpreter', () => {
  const inspect: Record<string, { defaultValue?: unknown; globalValue?: unknown; workspaceValue?: unknown }> = {
    python: { defaultValue: '', workspaceValue: '/ws/evil-python' },
    sitePackages: { defaultValue: [], workspaceValue: ['/ws/site-packages'] },
  };
  const effective = (k: string) => inspect[k]?.workspaceValue ?? inspect[k]?.globalValue ?? inspect[k]?.defaultValue;
  const opts = initializationOptions(spec.settings, (k) => trustedValue(`abidoc.${k}`, false, effective(k), inspect[k]));
  assert.equal(opts.python, '');
  assert.deepEqual(opts.sitePackages, ['/ws/site-packages']);
});
