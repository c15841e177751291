// verify's command lines for an install line, and its JSON (docs/contract.md) read as a verdict.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellInstalls } from '../src/installLines';
import { isEmpty, lensTitle, readVerdict, verdictLines, verifyFileRun, verifyRuns } from '../src/verdict';

const env = { python: '/venv/bin/python', sitePackages: ['/extra'] };

test('files, the torch pin and the packages in one run', () => {
  const [line] = cellInstalls("%pip install torch==2.9.1 ./a.whl /abs/b.whl ./a.whl flash-attn==2.8.3 mamba-ssm -r reqs.txt");
  assert.deepEqual(verifyRuns(line, '/nb', env), [
    ['verify', '/nb/a.whl', '/abs/b.whl', '/nb/reqs.txt', '--format', 'json', '--torch', '2.9.1', '--package', 'flash-attn==2.8.3', '--package', 'mamba-ssm', '--python', '/venv/bin/python', '--site-packages', '/extra'],
  ]);
});

test('packages alone, a torch pin alone: one run each; nothing named: none', () => {
  assert.deepEqual(verifyRuns(cellInstalls('!pip install causal-conv1d')[0], '/nb', {}), [['verify', '--format', 'json', '--package', 'causal-conv1d']]);
  assert.deepEqual(verifyRuns(cellInstalls('!pip install torch==2.10.0')[0], '/nb', {}), [['verify', '--format', 'json', '--torch', '2.10.0']]);
  assert.deepEqual(verifyFileRun('/p/requirements.txt', {}), ['verify', '/p/requirements.txt', '--format', 'json']);
});

const loads = {
  code: 'abi-mismatch',
  severity: 'information',
  package: 'goodext',
  library: '/w/goodext-1.0.0-py3-none-linux_x86_64.whl',
  message: 'goodext 1.0.0 loads: every library it carries (1) finds its libraries, symbols and versions',
  fixes: [],
};
const fails = {
  code: 'abi-mismatch',
  severity: 'error',
  package: 'oldext',
  library: '/venv/lib/python3.11/site-packages/oldext/_C.so',
  message: 'oldext._C (oldext 1.0.0) was built against a different torch than the installed 2.10.0',
  fixes: [
    { title: 'Remove oldext', preferred: false, commands: [['pip', 'uninstall', '-y', 'oldext']] },
    { title: 'Build oldext from source', preferred: true, env: { MAX_JOBS: '4' }, commands: [['/venv/bin/python', '-m', 'pip', 'install', '--no-binary', 'oldext', 'oldext']] },
  ],
};
const prebuilt = (status: string) => ({ package: 'flash-attn', version: '2.8.3', status, message: `setup.py looks for a wheel (${status})` });

test('a failure comes first, with the preferred fix quoted from its argument vectors', () => {
  const v = readVerdict([JSON.stringify({ version: 1, diagnostics: [loads, fails] }), JSON.stringify({ version: 1, diagnostics: [], prebuilt: [prebuilt('listed')] })]);
  assert.ok(v);
  assert.equal(lensTitle(v), 'abidoc: ✖ oldext would not load [abi-mismatch]');
  assert.deepEqual(verdictLines(v), [
    `✖ oldext [abi-mismatch]: ${fails.message}`,
    '    fix: Build oldext from source: MAX_JOBS=4 /venv/bin/python -m pip install --no-binary oldext oldext',
    `✔ ${loads.message}`,
    '✔ flash-attn 2.8.3: setup.py looks for a wheel (listed)',
  ]);
});

test('without failures: what loads and what the prebuilt answers say', () => {
  const only = (doc: object) => readVerdict([JSON.stringify({ version: 1, diagnostics: [], ...doc })]);
  assert.equal(lensTitle(only({ diagnostics: [loads, loads] })!), 'abidoc: ✔ 2 wheels load');
  assert.equal(lensTitle(only({ prebuilt: [prebuilt('not-listed')] })!), 'abidoc: ⚠ flash-attn 2.8.3: no prebuilt wheel for this torch, setup.py would compile');
  assert.equal(lensTitle(only({ diagnostics: [loads], prebuilt: [prebuilt('listed'), prebuilt('unlisted')] })!), 'abidoc: ✔ the wheel loads; ✔ prebuilt wheel listed for flash-attn 2.8.3; ℹ flash-attn 2.8.3');
});

test('nothing judged, garbage and hostile fixes', () => {
  assert.equal(readVerdict(['not json', '[]', '{"diagnostics": 3}']), undefined);
  const info = { severity: 'information', library: '/env/x.so', message: 'optional backend' };
  assert.ok(isEmpty(readVerdict([JSON.stringify({ version: 1, diagnostics: [info, null, 'x'] })])!));
  // A command a terminal would act on is not offered for copying; the title still is.
  const hostile = { ...fails, fixes: [{ title: 'x', preferred: true, commands: [['pip', 'install', 'a\u0015b']] }] };
  const v = readVerdict([JSON.stringify({ version: 1, diagnostics: [hostile] })])!;
  assert.equal(v.failures[0].fixTitle, 'x');
  assert.equal(v.failures[0].fixCommand, undefined);
});
