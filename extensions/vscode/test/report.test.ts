import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diagnosticsFromResult, isLibraryPath, scanReport, scanSummary } from '../src/report';

const seed000 = {
  version: 1,
  diagnostics: [
    {
      code: 'abi-mismatch',
      severity: 'error',
      message: 'selective_scan_cuda (mamba-ssm 2.3.0) was built against a different torch than the installed 2.10.0: 1 of its torch symbols is missing',
      package: 'mamba-ssm',
      library: '/opt/app-root/lib64/python3.12/site-packages/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so',
      symbols: [
        {
          mangled: '_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib',
          demangled: 'c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)',
          status: 'signature-changed',
          nearest: 'c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, unsigned int, bool)',
        },
      ],
      evidence: ['torch 2.10.0 installed (torch/version.py)'],
      fixes: [
        {
          title: 'Uninstall mamba-ssm and causal-conv1d',
          preferred: true,
          commands: [['python', '-m', 'pip', 'uninstall', '-y', 'mamba-ssm', 'causal-conv1d']],
          env: {},
          notebook_cell: '%pip uninstall -y mamba-ssm causal-conv1d',
        },
      ],
    },
    { code: 'flash-attn-unavailable', severity: 'warning', message: 'flash_attn_2_cuda fails to load; attention falls back to SDPA', package: 'flash-attn' },
  ],
};

test('the scan report reads like the contract JSON it came from', () => {
  const diags = diagnosticsFromResult(seed000);
  assert.ok(diags);
  const md = scanReport(diags, { when: '2026-11-22T00:00:00Z' });
  assert.equal(
    md,
    [
      '# abidoc environment scan',
      '',
      '_2026-11-22T00:00:00Z_',
      '',
      '**1 error, 1 warning**',
      '',
      '## mamba-ssm — abi-mismatch (error)',
      '',
      'selective_scan_cuda (mamba-ssm 2.3.0) was built against a different torch than the installed 2.10.0: 1 of its torch symbols is missing',
      '',
      '- Library: `/opt/app-root/lib64/python3.12/site-packages/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so`',
      '- Symbol `c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)` — signature-changed; nearest: `c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, unsigned int, bool)`',
      '- torch 2.10.0 installed (torch/version.py)',
      '',
      'Fixes, best first (nothing is run for you):',
      '',
      '- **Uninstall mamba-ssm and causal-conv1d** (preferred)',
      '',
      '  ```sh',
      '  python -m pip uninstall -y mamba-ssm causal-conv1d',
      '  ```',
      '  - in a notebook: `%pip uninstall -y mamba-ssm causal-conv1d`',
      '',
      '## flash-attn — flash-attn-unavailable (warning)',
      '',
      'flash_attn_2_cuda fails to load; attention falls back to SDPA',
      '',
    ].join('\n'),
  );
});

test('results of other shapes', () => {
  assert.equal(diagnosticsFromResult(null), undefined);
  assert.deepEqual(diagnosticsFromResult([{ message: 'm' }, 3, { nope: 1 }]), [{ message: 'm' }]);
  assert.match(scanReport([]), /No problems found/);
});

test('the server\'s {findings, summary, notes} result heads the report', () => {
  const result = { findings: 0, summary: 'scanned 212 compiled extensions in /venv/lib/python3.12/site-packages: no problems', notes: ['unreadable: /venv/lib/x.so'] };
  assert.equal(diagnosticsFromResult(result), undefined);
  const md = scanReport([], scanSummary(result));
  assert.equal(
    md,
    '# abidoc environment scan\n\nscanned 212 compiled extensions in /venv/lib/python3.12/site-packages: no problems\n\nProblems met while scanning:\n\n- unreadable: /venv/lib/x.so\n\nNo problems found: every compiled extension checked resolves its libraries and symbols.\n',
  );
  assert.deepEqual(scanSummary(null), { summary: undefined, notes: [] });
  assert.ok(isLibraryPath('/sp/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so'));
  assert.ok(isLibraryPath('/usr/lib/libcudart.so.12'));
  assert.ok(!isLibraryPath('/w/pip-install.log'));
  assert.ok(!isLibraryPath('/w/nb.ipynb'));
});

test('findings taken from the Problems view are titled by their library', () => {
  const md = scanReport([{ code: 'missing-shared-library', severity: 'error', message: 'libcudart.so.12 cannot be found', location: '/sp/causal_conv1d_cuda.cpython-312-x86_64-linux-gnu.so' }]);
  assert.match(md, /^## causal_conv1d_cuda\.cpython-312-x86_64-linux-gnu\.so — missing-shared-library \(error\)$/m);
  assert.match(md, /^- Library: `\/sp\/causal_conv1d_cuda\.cpython-312-x86_64-linux-gnu\.so`$/m);
});

test('a fix holding a control character is named as refused, not rendered as a command to copy', () => {
  const report = scanReport([
    {
      code: 'abi-mismatch',
      severity: 'error',
      message: 'm',
      fixes: [
        { title: 'Hostile', commands: [['python', '-m', 'pip', 'install', 'x\u0015\n```\n# injected']], notebook_cell: '%pip install x\n# injected\u202e' },
        { title: 'Fine', commands: [['python', '-m', 'pip', 'uninstall', '-y', 'mamba-ssm']] },
      ],
    },
  ]);
  assert.match(report, /not shown: .*U\+0015/);
  assert.doesNotMatch(report, /\u0015|\u202e/);
  assert.doesNotMatch(report, /^# injected/m);
  assert.match(report, /```sh\n {2}python -m pip uninstall -y mamba-ssm\n/);
});
