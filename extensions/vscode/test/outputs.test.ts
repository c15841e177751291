// Output decoding over the seed-000 traceback as VS Code's ipynb serializer hands it over.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeItem, hasDiagnosableOutput, notebookOutputs, stripAnsi, terminalText } from '../src/outputs';
import { MIME_ERROR, MIME_STDERR, MIME_STDOUT } from '../src/protocol';

const enc = new TextEncoder();
const fixture = path.join(__dirname, '..', '..', 'test', 'fixtures', 'seed000-error-output.json');
const seed = JSON.parse(fs.readFileSync(fixture, 'utf8')) as { ename: string; evalue: string; traceback: string[] };

function errorItem() {
  // What vscode.NotebookCellOutputItem.error() stores for a Jupyter error output.
  const payload = { name: seed.ename, message: seed.evalue, stack: seed.traceback.join('\n') };
  return { mime: MIME_ERROR, data: enc.encode(JSON.stringify(payload)) };
}

test('an error output becomes "Name: message" plus the stack without ANSI colours', () => {
  const out = decodeItem(errorItem());
  assert.ok(out);
  assert.equal(out.mime, MIME_ERROR);
  const lines = out.text.split('\n');
  assert.equal(lines[0], `ImportError: ${seed.evalue.split('\n')[0]}`);
  assert.doesNotMatch(out.text, /\x1b/);
  assert.match(out.text, /undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib/);
  assert.match(out.text, /^Cell In\[26\], line 3$/m);
  assert.match(out.text, /^File \/opt\/app-root\/lib64\/python3\.12\/site-packages\/training_hub\/algorithms\/lora\.py:37, in lora_sft\(model_path, data_path, \*\*kwargs\)$/m);
  assert.match(out.text, /^The above exception was the direct cause of the following exception:$/m);
});

test('stream outputs are decoded as UTF-8 text; images and HTML are skipped', () => {
  assert.deepEqual(decodeItem({ mime: MIME_STDERR, data: enc.encode('\x1b[31mERROR: Failed building wheel for flash-attn\x1b[0m\n') }), {
    mime: MIME_STDERR,
    text: 'ERROR: Failed building wheel for flash-attn\n',
  });
  assert.equal(decodeItem({ mime: 'image/png', data: new Uint8Array([137, 80, 78, 71]) }), undefined);
  assert.equal(decodeItem({ mime: 'text/html', data: enc.encode('<b>x</b>') }), undefined);
});

test('malformed error JSON is forwarded as text rather than dropped', () => {
  assert.deepEqual(decodeItem({ mime: MIME_ERROR, data: enc.encode('not json') }), { mime: MIME_ERROR, text: 'not json' });
  assert.deepEqual(decodeItem({ mime: MIME_ERROR, data: enc.encode('{"name":"OSError","message":"CUDA_HOME environment variable is not set."}') }), {
    mime: MIME_ERROR,
    text: 'OSError: CUDA_HOME environment variable is not set.',
  });
});

test('notebookOutputs lists every code cell, skips markdown, keeps execution data', () => {
  const p = notebookOutputs('file:///w/nb.ipynb', [
    { uri: 'vscode-notebook-cell:/w/nb.ipynb#W0', isCode: false, outputs: [] },
    { uri: 'vscode-notebook-cell:/w/nb.ipynb#W1', isCode: true, executionOrder: 25, success: true, outputs: [{ items: [{ mime: MIME_STDOUT, data: enc.encode('ok\n') }] }] },
    { uri: 'vscode-notebook-cell:/w/nb.ipynb#W2', isCode: true, executionOrder: 26, success: false, outputs: [{ items: [errorItem()] }] },
    { uri: 'vscode-notebook-cell:/w/nb.ipynb#W3', isCode: true, outputs: [] },
  ]);
  assert.equal(p.notebookUri, 'file:///w/nb.ipynb');
  assert.deepEqual(
    p.cells.map((c) => [c.cellUri, c.executionOrder, c.success, c.outputs.map((o) => o.mime)]),
    [
      ['vscode-notebook-cell:/w/nb.ipynb#W1', 25, true, [MIME_STDOUT]],
      ['vscode-notebook-cell:/w/nb.ipynb#W2', 26, false, [MIME_ERROR]],
      ['vscode-notebook-cell:/w/nb.ipynb#W3', undefined, undefined, []],
    ],
  );
  assert.ok(!('executionOrder' in p.cells[2]), 'absent fields are left out, not sent as null');
  assert.ok(hasDiagnosableOutput(p));
  assert.ok(!hasDiagnosableOutput(notebookOutputs('file:///x', [{ uri: 'c', isCode: true, outputs: [] }])));
});

test('terminal text: escapes and shell-integration marks stripped, CR normalised, tail kept', () => {
  const raw = '\x1b]633;C\x07Collecting flash-attn\r\n\x1b[1;31merror\x1b[0m: subprocess-exited-with-error\r\nprogress 10%\rprogress 100%\n';
  assert.equal(terminalText(raw), 'Collecting flash-attn\nerror: subprocess-exited-with-error\nprogress 10%\nprogress 100%\n');
  assert.equal(terminalText('a'.repeat(10) + 'TAIL', 6), 'aaTAIL');
  assert.equal(stripAnsi('\x1b[38;5;28mFile\x1b[39m'), 'File');
});
