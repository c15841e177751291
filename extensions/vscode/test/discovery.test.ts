import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { candidates, Candidate, discover, isFound, parseVersion, ProbeResult } from '../src/discovery';

test('candidates come in the documented order', () => {
  const list = candidates({
    env: { ABIDOC_PATH: '/opt/env/abidoc', PATH: '/usr/local/bin::/usr/bin' },
    settingPath: '/from/setting/abidoc',
    extensionPath: '/ext',
    platform: 'linux',
  });
  assert.deepEqual(list, [
    { source: 'ABIDOC_PATH', path: '/opt/env/abidoc' },
    { source: 'setting abidoc.path', path: '/from/setting/abidoc' },
    { source: 'bundled', path: '/ext/server/abidoc' },
    { source: 'PATH', path: '/usr/local/bin/abidoc' },
    { source: 'PATH', path: '/usr/bin/abidoc' },
  ]);
});

test('relative PATH entries are not searched', () => {
  const list = candidates({ env: { PATH: '.:bin:/usr/bin:./x' }, settingPath: undefined, extensionPath: '/ext', platform: 'linux' });
  assert.deepEqual(list.map((c) => c.path), ['/ext/server/abidoc', '/usr/bin/abidoc']);
});

test('empty env and setting are skipped', () => {
  const list = candidates({ env: { ABIDOC_PATH: '  ' }, settingPath: '', extensionPath: '/ext', platform: 'linux' });
  assert.deepEqual(list, [{ source: 'bundled', path: '/ext/server/abidoc' }]);
});

test('the first candidate that answers --version wins', async () => {
  const list: Candidate[] = [
    { source: 'ABIDOC_PATH', path: '/broken' },
    { source: 'bundled', path: '/ext/server/abidoc' },
    { source: 'PATH', path: '/usr/bin/abidoc' },
  ];
  const seen: string[] = [];
  const r = await discover(list, async (c): Promise<ProbeResult> => {
    seen.push(c.path);
    return c.path === '/broken' ? { ok: false, reason: 'not executable' } : { ok: true, version: 'abidoc 0.1.0' };
  });
  assert.ok(isFound(r));
  assert.equal(r.candidate.source, 'bundled');
  assert.deepEqual(seen, ['/broken', '/ext/server/abidoc']);
});

test('none found: the message names explicit choices and why they failed, not every PATH entry', async () => {
  const list = candidates({ env: { ABIDOC_PATH: '/nope/abidoc', PATH: '/a:/b' }, settingPath: undefined, extensionPath: '/ext', platform: 'linux' });
  const r = await discover(list, async () => ({ ok: false, reason: 'not found' }));
  assert.ok(!isFound(r));
  assert.equal(r.tried.length, 4);
  assert.match(r.message, /no working abidoc binary found/);
  assert.match(r.message, /ABIDOC_PATH: \/nope\/abidoc \(not found\)/);
  assert.match(r.message, /bundled: \/ext\/server\/abidoc \(not found\)/);
  assert.doesNotMatch(r.message, /\/a\/abidoc/);
  assert.match(r.message, /abidoc\.path/);
});

test('parseVersion accepts only abidoc', () => {
  assert.equal(parseVersion('abidoc 0.1.0\n'), 'abidoc 0.1.0');
  assert.equal(parseVersion('Python 3.12.1\n'), undefined);
  assert.equal(parseVersion(''), undefined);
});

test('a real executable on disk is probed through its --version output', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'abidoc-discovery-'));
  const exe = path.join(dir, 'abidoc');
  fs.writeFileSync(exe, '#!/bin/sh\n[ "$1" = --version ] && echo "abidoc 9.9.9" && exit 0\nexit 2\n', { mode: 0o755 });
  const out = execFileSync(exe, ['--version']).toString();
  assert.equal(parseVersion(out), 'abidoc 9.9.9');
  const list = candidates({ env: { PATH: dir }, settingPath: undefined, extensionPath: '/nonexistent', platform: 'linux' });
  assert.equal(list[list.length - 1].path, exe);
  fs.rmSync(dir, { recursive: true });
});
