import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientCommandsFeature, fillClientCommands, parseInsertCellArgs, parseRunInTerminalArgs, parseTerminalDiagnosis } from '../src/protocol';

test('runInTerminal arguments are validated before anything is shown or run', () => {
  assert.deepEqual(parseRunInTerminalArgs([{ title: 'Uninstall', commands: [['python', '-m', 'pip', 'uninstall', '-y', 'mamba-ssm']] }]), {
    title: 'Uninstall',
    commands: [['python', '-m', 'pip', 'uninstall', '-y', 'mamba-ssm']],
    env: {},
  });
  assert.equal(parseRunInTerminalArgs([]), 'expected one object argument {title, commands, env}');
  assert.match(String(parseRunInTerminalArgs([{ title: 't', commands: 'pip uninstall x' }])), /argument vectors/);
  assert.match(String(parseRunInTerminalArgs([{ title: 't', commands: [[]] }])), /argument vectors/);
  assert.match(String(parseRunInTerminalArgs([{ title: 't', commands: [['a', 1]] }])), /argument vectors/);
  assert.match(String(parseRunInTerminalArgs([{ title: 't', commands: [['a']], env: { 'A;rm': 'x' } }])), /invalid environment variable name/);
  assert.match(String(parseRunInTerminalArgs([{ title: 't', commands: [['a']], env: { A: 1 } }])), /env must map/);
});

test('insertCell arguments', () => {
  assert.deepEqual(parseInsertCellArgs([{ notebookUri: 'file:///n.ipynb', cellIndex: 3, source: '%pip uninstall -y mamba-ssm' }]), {
    notebookUri: 'file:///n.ipynb',
    cellIndex: 3,
    source: '%pip uninstall -y mamba-ssm',
  });
  assert.match(String(parseInsertCellArgs([{ notebookUri: 'file:///n.ipynb', cellIndex: -1, source: '' }])), /non-negative/);
  assert.match(String(parseInsertCellArgs([{ notebookUri: 'file:///n.ipynb', cellIndex: 1.5, source: '' }])), /non-negative/);
  assert.match(String(parseInsertCellArgs([{ cellIndex: 1, source: '' }])), /notebookUri/);
  assert.match(String(parseInsertCellArgs([{ notebookUri: 'file:///n.ipynb', cellIndex: 1, source: '  ' }])), /empty/);
});

test('insertCell keeps the server text verbatim and refuses control or invisible characters', () => {
  const uri = 'file:///n.ipynb';
  // Verbatim: whatever IPython would expand is the server's to render, never rewritten here.
  for (const source of ['%pip install $(touch x) `y` {z} !w', 'import torch\n\tprint(1)\n', '%env CUDA_HOME=/usr/local/cuda', '# café 日本語']) {
    assert.deepEqual(parseInsertCellArgs([{ notebookUri: uri, cellIndex: 0, source }]), { notebookUri: uri, cellIndex: 0, source });
  }
  for (const source of ['%pip install x\x15y', '%pip install x\ry', '\x03', '%pip install x\x1b[2K', '%pip install \u202ex', '%pip install x\x9b', '%pip\x7f']) {
    assert.match(String(parseInsertCellArgs([{ notebookUri: uri, cellIndex: 0, source }])), /control or invisible character/, JSON.stringify(source));
  }
});

test('the client advertises exactly its client-side commands under experimental.commands', () => {
  const caps: { experimental?: unknown } = {};
  fillClientCommands(caps);
  assert.deepEqual(caps, { experimental: { commands: { commands: ['abidoc.runInTerminal', 'abidoc.insertCell'] } } });
  // Other experimental capabilities are kept; a stale list is replaced.
  const other: { experimental?: unknown } = { experimental: { snippetTextEdit: true, commands: { commands: ['x'] } } };
  new ClientCommandsFeature().fillClientCapabilities(other);
  assert.deepEqual(other, { experimental: { snippetTextEdit: true, commands: { commands: ['abidoc.runInTerminal', 'abidoc.insertCell'] } } });
  const f = new ClientCommandsFeature();
  assert.deepEqual(f.getState(), { kind: 'static' });
});

test('terminalDiagnosis keeps well-formed parts and drops malformed ones', () => {
  const p = parseTerminalDiagnosis({
    commandLine: 'pip install flash-attn',
    diagnostics: [
      {
        code: 'build-isolation',
        severity: 'error',
        message: "flash-attn's build cannot see torch",
        fixes: [
          { title: 'Build without isolation', commands: [['python', '-m', 'pip', 'install', '--no-build-isolation', 'flash-attn'], 'bad'], env: { MAX_JOBS: '4' }, notebook_cell: '%pip install --no-build-isolation flash-attn', preferred: true },
          { commands: [] },
        ],
      },
      'junk',
    ],
  });
  assert.deepEqual(p, {
    commandLine: 'pip install flash-attn',
    diagnostics: [
      {
        code: 'build-isolation',
        severity: 'error',
        message: "flash-attn's build cannot see torch",
        fixes: [
          { title: 'Build without isolation', commands: [['python', '-m', 'pip', 'install', '--no-build-isolation', 'flash-attn']], env: { MAX_JOBS: '4' }, notebook_cell: '%pip install --no-build-isolation flash-attn', preferred: true },
        ],
      },
    ],
  });
  assert.equal(parseTerminalDiagnosis({ diagnostics: [] }), undefined);
});

test('a %pip line inserted at the top of a cell becomes a cell insertion; other edits stay edits', async () => {
  const { cellInsertionFromEdits } = await import('../src/protocol');
  const cell = 'vscode-notebook-cell:/w/nb.ipynb#W4sZmlsZQ%3D%3D';
  const at0 = { uri: cell, startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 0 };
  assert.equal(cellInsertionFromEdits([{ ...at0, newText: '%pip uninstall -y mamba-ssm causal-conv1d\n' }], cell), '%pip uninstall -y mamba-ssm causal-conv1d');
  assert.equal(cellInsertionFromEdits([{ ...at0, newText: '%env CUDA_HOME=/usr/local/cuda\n' }], cell), '%env CUDA_HOME=/usr/local/cuda');
  assert.equal(cellInsertionFromEdits([{ ...at0, newText: '!pip install --no-build-isolation flash-attn\n' }], cell), '!pip install --no-build-isolation flash-attn');
  // Not at the top, replacing text, several lines, ordinary code, another document, several edits.
  assert.equal(cellInsertionFromEdits([{ ...at0, startLine: 2, endLine: 2, newText: '%pip uninstall -y x\n' }], cell), undefined);
  assert.equal(cellInsertionFromEdits([{ ...at0, endCharacter: 4, newText: '%pip uninstall -y x\n' }], cell), undefined);
  assert.equal(cellInsertionFromEdits([{ ...at0, newText: '%pip uninstall -y x\nimport torch\n' }], cell), undefined);
  assert.equal(cellInsertionFromEdits([{ ...at0, newText: 'import torch\n' }], cell), undefined);
  assert.equal(cellInsertionFromEdits([{ ...at0, uri: 'file:///other.py', newText: '%pip uninstall -y x\n' }], cell), undefined);
  assert.equal(cellInsertionFromEdits([{ ...at0, newText: '%pip a\n' }, { ...at0, newText: '%pip b\n' }], cell), undefined);
});
