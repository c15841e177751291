// Quoting must round-trip through a real POSIX shell: each case is checked by running /bin/sh.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { commandLine, quoteArg, quoteArgv } from '../src/shellQuote';

const cases: [string, string][] = [
  ['mamba-ssm', 'mamba-ssm'],
  ['', "''"],
  ['training-hub[lora]', "'training-hub[lora]'"],
  ['torch==2.10.0+cu128', 'torch==2.10.0+cu128'],
  ["it's", "'it'\\''s'"],
  ['$HOME', "'$HOME'"],
  ['a b', "'a b'"],
  ['`rm -rf /`', "'`rm -rf /`'"],
  ['x;y', "'x;y'"],
  ['new\nline', "'new\nline'"],
  ['*', "'*'"],
  ['--index-url=https://download.pytorch.org/whl/cu128', '--index-url=https://download.pytorch.org/whl/cu128'],
];

test('quoteArg quotes exactly what the shell would interpret', () => {
  for (const [arg, want] of cases) assert.equal(quoteArg(arg), want, JSON.stringify(arg));
});

test('quoted argv round-trips through /bin/sh', () => {
  const argv = cases.map(([a]) => a);
  // printf prints each argument NUL-terminated; the shell must hand back exactly what we gave it.
  const out = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${quoteArgv(argv)}`]);
  assert.deepEqual(out.toString('utf8').split('\0').slice(0, -1), argv);
});

test('commandLine joins commands with && and prefixes the environment to each', () => {
  assert.equal(
    commandLine([['python', '-m', 'pip', 'uninstall', '-y', 'mamba-ssm', 'causal-conv1d']]),
    'python -m pip uninstall -y mamba-ssm causal-conv1d',
  );
  assert.equal(
    commandLine(
      [
        ['python', '-m', 'pip', 'install', '--no-build-isolation', 'flash-attn'],
        ['python', '-c', 'import flash_attn'],
      ],
      { MAX_JOBS: '4', CUDA_HOME: '/usr/local/cuda 12' },
    ),
    "CUDA_HOME='/usr/local/cuda 12' MAX_JOBS=4 python -m pip install --no-build-isolation flash-attn && CUDA_HOME='/usr/local/cuda 12' MAX_JOBS=4 python -c 'import flash_attn'",
  );
});

test('commandLine runs in a real shell with the environment applied', () => {
  const line = commandLine([['sh', '-c', 'printf "%s|" "$X" "$1"', 'argv0', "a'b c"]], { X: 'v a l' });
  assert.equal(execFileSync('/bin/sh', ['-c', line]).toString(), "v a l|a'b c|");
});
