// The install-line reader: which cell lines install, and what `abidoc verify` is asked about.
// The same cases as the IPython extension's reader (extensions/python/tests/test_pipline.py).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellInstalls, installArgs, requirementsFileNames, shellWords } from '../src/installLines';

const pins = (text: string) => cellInstalls(text).flatMap((l) => l.requirements.map((r) => [r.name, r.version]));

for (const line of [
  '%pip install flash-attn==2.8.3',
  '!pip install flash-attn==2.8.3',
  '!pip3 install -q flash-attn==2.8.3',
  'pip install flash-attn==2.8.3',
  '!python -m pip install flash-attn==2.8.3',
  '!python3.11 -m pip install --upgrade flash-attn==2.8.3',
  '!/opt/conda/bin/python -m pip install flash-attn==2.8.3',
  '!{sys.executable} -m pip install flash-attn==2.8.3',
  '!uv pip install flash-attn==2.8.3',
  "  %pip install 'flash-attn==2.8.3'  # the pinned release",
  '%pip install --no-build-isolation -i https://pypi.org/simple flash-attn[triton]==2.8.3',
  '%pip install \\\n    flash-attn==2.8.3',
  `%pip install 'flash-attn==2.8.3; python_version >= "3.8"'`,
]) {
  test(`an install line: ${JSON.stringify(line)}`, () => {
    assert.deepEqual(pins(line), [['flash-attn', '2.8.3']]);
  });
}

for (const cell of [
  'import flash_attn',
  '%pip uninstall -y flash-attn',
  '!pip download flash-attn',
  "print('pip install flash-attn')",
  '# pip install flash-attn',
  '!pip install',
  '%pip install -r',
  '!pip install --target /elsewhere flash-attn',
  '!pip install -t/elsewhere flash-attn',
  '%pip install --prefix=/opt flash-attn',
  '%pip install --platform manylinux2014_x86_64 --only-binary=:all: flash-attn',
  "%pip install 'flash-attn",
  '!pip install {pkg}',
  '!pip install $pkg',
  '!pip install `cat reqs`',
  '!pip install flash-attn>=2.7',
  "!pip install 'flash-attn~=2.8' 'flash-attn!=2.8.1' 'flash-attn==2.*' 'flash-attn==2.8,<3'",
  '!pip install git+https://github.com/Dao-AILab/flash-attention',
  '!pip install https://example.com/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl',
  '!pip install ./flash-attention',
  '!pip install -e ./flash-attention',
  "!pip install 'flash-attn==2.8.3 && rm -rf ~'",
  '!pip install -- -flash-attn',
]) {
  test(`nothing to judge: ${JSON.stringify(cell)}`, () => {
    assert.deepEqual(cellInstalls(cell), []);
  });
}

test('names, pins, wheels, the torch pin and -r files, with their lines', () => {
  const cell = [
    'x = 1',
    '%pip install -q torch==2.9.1 mamba_ssm causal-conv1d==1.5.2 \\',
    '    numpy',
    "!pip install ./w/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl 'flash-attn @ file:///abs/f.whl' x @ file:///abs/x.whl -r reqs.txt -rmore.txt",
  ].join('\n');
  const lines = cellInstalls(cell);
  assert.equal(lines.length, 2);
  assert.deepEqual([lines[0].line, lines[0].endLine, lines[0].torch], [1, 3, '2.9.1']);
  assert.deepEqual(lines[0].requirements, [{ name: 'mamba_ssm' }, { name: 'causal-conv1d', version: '1.5.2' }, { name: 'numpy' }]);
  assert.deepEqual(lines[1].requirements, [
    { wheel: './w/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl' },
    { name: 'flash-attn', wheel: '/abs/f.whl' },
    { name: 'x', wheel: '/abs/x.whl' },
  ]);
  assert.deepEqual(lines[1].requirementFiles, ['reqs.txt', 'more.txt']);
});

test('two torch pins name no target', () => {
  assert.equal(cellInstalls('%pip install torch==2.9.1 torch==2.10.0 numpy')[0].torch, undefined);
  assert.equal(cellInstalls('%pip install torch==2.9.1+cu126 --index-url https://download.pytorch.org/whl/cu126')[0].torch, '2.9.1+cu126');
});

test('a huge cell is not read, and at most 64 requirements a line', () => {
  assert.deepEqual(cellInstalls('%pip install flash-attn\n' + 'x'.repeat(64 * 1024)), []);
  const many = '%pip install ' + Array.from({ length: 500 }, (_, i) => `pkg${i}`).join(' ');
  assert.equal(cellInstalls(many)[0].requirements.length, 64);
});

test('shell words: quotes, escapes, comments, unbalanced quoting refused', () => {
  assert.deepEqual(shellWords(`a 'b c' "d \\"e\\"" f\\ g # h`), ['a', 'b c', 'd "e"', 'f g']);
  assert.deepEqual(shellWords(`a'b'"c"`), ['abc']);
  assert.equal(shellWords(`a 'b`), undefined);
  assert.equal(shellWords(`a "b`), undefined);
  assert.deepEqual(installArgs('!pip install a && pip install b'), ['a']);
});

test('a requirements file: the line of each distribution', () => {
  const text = [
    '# the lock',
    'torch==2.9.1',
    '    # via -r requirements.in',
    './wheels/oldext-1.0.0-py3-none-linux_x86_64.whl',
    'Flash_Attn @ file:///abs/flash_attn-2.8.3-cp311-cp311-linux_x86_64.whl',
    'mamba-ssm[causal-conv1d]==2.2.4 ; python_version >= "3.9"',
    '-r other.txt',
  ].join('\n');
  const names = requirementsFileNames(text);
  assert.deepEqual([...names.entries()], [['torch', 1], ['oldext', 3], ['flash-attn', 4], ['mamba-ssm', 5]]);
});
