// Quoting must round-trip through a real POSIX shell: each case is checked by running /bin/sh.
// Characters a terminal's line editor acts on cannot be quoted and must be refused.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { commandLine, forbiddenChar, isPosixShell, quoteArg, quoteArgv, renderCommandLine, UnsafeArgumentError, visible } from '../src/shellQuote';

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
  ['"double" \\back', `'"double" \\back'`],
  ['$(touch pwned)', "'$(touch pwned)'"],
  ['!!', "'!!'"],
  ['{a,b}', "'{a,b}'"],
  ['~root', "'~root'"],
  ['#comment', "'#comment'"],
  ['café 日本語 🔥', "'café 日本語 🔥'"],
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

// What a hostile fix might carry: C0 controls (Ctrl-U erases the line, Ctrl-C abandons it,
// newline and carriage return run what came before), escape sequences, DEL, C1 controls
// (0x9b is CSI), and characters that hide or reorder what the confirmation dialog shows.
const hostile: [string, string][] = [
  ["x'\x15touch pwned", 'U+0015'],
  ['\x03', 'U+0003'],
  ['a\nrm -rf ~', 'U+000A'],
  ['a\rb', 'U+000D'],
  ['tab\there', 'U+0009'],
  ['nul\x00', 'U+0000'],
  ['\x1b[2K', 'U+001B'],
  ['del\x7f', 'U+007F'],
  ['nel\x85', 'U+0085'],
  ['csi\x9b2K', 'U+009B'],
  ['evil\u202etxt.exe', 'U+202E'],
  ['zero\u200bwidth', 'U+200B'],
  ['line\u2028sep', 'U+2028'],
  ['para\u2029sep', 'U+2029'],
  ['bom\ufeff', 'U+FEFF'],
  ['lone\ud800', 'U+D800'],
];

test('arguments holding control or invisible characters are refused, not quoted', () => {
  for (const [arg, char] of hostile) {
    assert.equal(forbiddenChar(arg), char, JSON.stringify(arg));
    assert.throws(() => quoteArg(arg), UnsafeArgumentError, JSON.stringify(arg));
    const r = renderCommandLine([['python', '-m', 'pip', 'install', arg]]);
    assert.ok('error' in r, JSON.stringify(arg));
    assert.ok(r.error.includes(char), r.error);
    // The message itself shows the character by name, never raw.
    assert.equal(forbiddenChar(r.error), undefined, r.error);
  }
  for (const [arg] of cases) assert.equal(forbiddenChar(arg), undefined, JSON.stringify(arg));
});

test('one bad argument anywhere refuses the whole fix, environment values and names included', () => {
  assert.ok('error' in renderCommandLine([['echo', 'ok'], ['echo', 'x\x15y']]));
  assert.ok('error' in renderCommandLine([['echo', 'ok']], { CUDA_HOME: '/usr/local/cuda\n' }));
  assert.ok('error' in renderCommandLine([['echo', 'ok']], { 'A;touch x': '1' }));
  assert.deepEqual(renderCommandLine([['echo', 'ok']], { A: '$(x)' }), { line: "A='$(x)' echo ok" });
  assert.equal(visible('a\x15b\u202e'), 'a<U+0015>b<U+202E>');
});

test('hostile but printable arguments run as literal arguments, running nothing', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'abidoc-quote-'));
  try {
    const argv = ['$(touch pwned1)', '`touch pwned2`', "'; touch pwned3; '", '"; touch pwned4; "', '$HOME', '*', '!!', 'café 日本語 🔥'];
    const line = commandLine([['printf', '%s\\0', ...argv]], { X: "$(touch pwned5)'" });
    const out = execFileSync('/bin/sh', ['-c', line], { cwd: dir });
    assert.deepEqual(out.toString('utf8').split('\0').slice(0, -1), argv);
    assert.deepEqual(fs.readdirSync(dir), []);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

test('POSIX shells are recognised by name; others get /bin/sh', () => {
  for (const sh of ['/bin/bash', '/usr/bin/zsh', '/bin/sh', '/usr/bin/dash', '-bash', 'ksh']) assert.ok(isPosixShell(sh), sh);
  for (const sh of ['/usr/bin/fish', '/bin/tcsh', '/bin/csh', '/usr/bin/pwsh', 'C:\\Windows\\System32\\cmd.exe', '', undefined, '/usr/bin/nu']) assert.ok(!isPosixShell(sh), String(sh));
});

// The line is typed into an interactive shell: bash with its line editor (readline) on a real
// pseudo-terminal, driven by Python's pty module, must hand back exactly the argument vector.
const hasPty = (() => {
  try {
    execFileSync('python3', ['-c', 'import pty']);
    execFileSync('bash', ['--version']);
    return true;
  } catch {
    return false;
  }
})();

const PTY_DRIVER = `
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp('bash', ['bash', '--norc', '--noprofile', '-i'])
time.sleep(0.3)
os.write(fd, sys.argv[1].encode() + b'\\r')
time.sleep(0.5)
os.write(fd, b'exit\\r')
deadline = time.time() + 5
while time.time() < deadline:
    try:
        if not os.read(fd, 65536): break
    except OSError:
        break
os.waitpid(pid, 0)
`;

/** Types `line` and Enter into an interactive bash on a pseudo-terminal whose cwd is `dir`. */
function typeIntoBash(line: string, dir: string): void {
  execFileSync('python3', ['-c', PTY_DRIVER, line], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, HISTFILE: '/dev/null', TERM: 'xterm', LANG: 'C.UTF-8' },
    timeout: 15_000,
  });
}

test('typed into bash on a terminal (readline), the line gives back the arguments', { skip: !hasPty && 'needs python3 and bash' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'abidoc-pty-'));
  try {
    const argv = ['$(touch pwned1)', '`touch pwned2`', "it's", '"q"', '!!', '{a,b}', 'a  b', 'café 日本語 🔥'];
    const out = path.join(dir, 'argv');
    typeIntoBash(commandLine([['printf', '%s\\0', ...argv]]) + ' > ' + quoteArg(out), dir);
    assert.deepEqual(fs.readFileSync(out).toString('utf8').split('\0').slice(0, -1), argv);
    assert.deepEqual(fs.readdirSync(dir), ['argv']);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

test('why control characters are refused: quoted anyway, Ctrl-U erases the opening quote and the rest runs', { skip: !hasPty && 'needs python3 and bash' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'abidoc-pty-'));
  try {
    const arg = 'x\x15touch pwned; #';
    // What quoting alone would type (the quoting the extension used to do).
    const naive = "echo '" + arg.replace(/'/g, `'\\''`) + "'";
    typeIntoBash(naive, dir);
    assert.ok(fs.existsSync(path.join(dir, 'pwned')), 'the line editor should have run the rest');
    assert.ok('error' in renderCommandLine([['echo', arg]]));
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});
