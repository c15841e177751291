// The scan report over a real `abidoc scan --format json` (test/fixtures/scan-native.json: the
// native fixture environments of tests/native plus libraries no import loads, written by
// server/cli/tests/screen.rs): the same order and folding as the CLI's one screen of the same
// scan (its insta snapshot), every string escaped, buttons that name fixes by index only.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  diagnosticFrom,
  diagnosticsFromResult,
  esc,
  foldLine,
  isLibraryPath,
  reportAction,
  ReportDiagnostic,
  reportHtml,
  reportModel,
  scanSummary,
  shortPath,
} from '../src/report';
import { renderCommandLine } from '../src/shellQuote';

const root = path.join(__dirname, '..', '..');
const NONCE = 'dGVzdC1ub25jZS0wMTIzNDU2Nzg5';
const scanJson: unknown = JSON.parse(readFileSync(path.join(root, 'test', 'fixtures', 'scan-native.json'), 'utf8'));
/** The CLI's one screen of the same scan (server/cli/tests/screen.rs). */
const screen = readFileSync(path.join(root, '..', '..', 'server', 'cli', 'tests', 'snapshots', 'screen__scan_screen.snap'), 'utf8');

function fixture(): ReportDiagnostic[] {
  const diags = diagnosticsFromResult(scanJson);
  assert.ok(diags && diags.length > 0);
  return diags;
}

/** The positions in `html` of each match of `re`, in order. */
function at(html: string, re: RegExp): number[] {
  return [...html.matchAll(new RegExp(re.source, 'g'))].map((m) => m.index ?? -1);
}

test('blocks come in the order of the CLI screen: errors first, one per failing import, then warnings', () => {
  const diags = fixture();
  const model = reportModel(diags);
  const raw = (scanJson as { diagnostics: { severity: string; fold: string }[] }).diagnostics;
  const shown = raw.filter((d) => d.fold === 'shown');
  assert.equal(model.errors, shown.filter((d) => d.severity === 'error').length);
  assert.equal(model.warnings, shown.filter((d) => d.severity === 'warning').length);
  // The screen's headlines, `error[code]: message`, in its order, are the blocks' first diagnoses.
  const headlines = screen.split('\n').filter((l) => /^(error|warning)\[/.test(l));
  const blocks = model.blocks.map((b) => `${b.severity}[${b.diagnostics[0]?.code}]: ${b.diagnostics[0]?.message}`);
  // The snapshot has host paths replaced ($FX, <system libstdc++>): compare up to the first one.
  assert.equal(blocks.length, headlines.length, `${blocks.join('\n')}\n---\n${headlines.join('\n')}`);
  blocks.forEach((b, i) => {
    const h = headlines[i] ?? '';
    const cut = Math.min(...['$', '(<system', '(/'].map((m) => (h.indexOf(m) < 0 ? h.length : h.indexOf(m))));
    assert.equal(b.slice(0, cut), h.slice(0, cut), `block ${i}`);
  });
  const firstWarning = model.blocks.findIndex((b) => b.severity === 'warning');
  assert.ok(firstWarning > 0 && model.blocks.slice(firstWarning).every((b) => b.severity === 'warning'));
  // Each block names its package and version as the screen's `-->` line does.
  const places = screen.split('\n').filter((l) => l.startsWith('  --> ')).map((l) => l.slice(6).split(' · ')[0]);
  assert.deepEqual(
    model.blocks.map((b) => `${b.diagnostics[0]?.package} ${b.diagnostics[0]?.package_version}`),
    places,
  );

  const { html } = reportHtml(diags, { summary: 'scanned 24 libraries' }, NONCE);
  const errors = at(html, /<section class="block error">/);
  const warnings = at(html, /<section class="block warning">/);
  assert.equal(errors.length, model.errors);
  assert.ok(warnings.length > 0 && Math.max(...errors) < Math.min(...warnings), 'every error block before the first warning');
  // Nothing folded comes before the last block; the counts head the blocks.
  assert.ok(html.indexOf('<details class="folded"') > Math.max(...warnings));
  assert.ok(html.indexOf('6 error(s), 1 warning(s)') < errors[0]!);
});

test('the preferred fix is one command with a copy button; its other fixes, evidence and symbols are folded', () => {
  const diags = fixture();
  const { html, model } = reportHtml(diags, {}, NONCE);
  const sections = html.split('<section class="block ').slice(1).map((s) => s.slice(0, s.indexOf('</section>')));
  assert.equal(sections.length, model.blocks.length);
  model.blocks.forEach((b, i) => {
    const f = b.fix === undefined ? undefined : model.fixes[b.fix];
    const d = b.diagnostics[0]!;
    assert.ok(f, `${d.code} has a fix`);
    assert.equal(f, d.fixes?.find((x) => x.preferred), `${d.package}: the preferred fix`);
    const section = sections[i]!;
    assert.ok(section.startsWith(`${b.severity}">`) && section.includes(esc(`${d.package} ${d.package_version}`)), `${d.package}'s block`);
    if (f.commands.length === 1) {
      const line = renderCommandLine(f.commands, f.env ?? {});
      assert.ok('line' in line);
      // Shown before anything folded in the block, with its copy button naming the fix by index.
      const shownAt = section.indexOf(`<pre>${esc(line.line)}</pre>`);
      assert.ok(shownAt > 0 && (section.indexOf('<details>') < 0 || shownAt < section.indexOf('<details>')), `${d.package}: ${line.line}`);
      assert.ok(section.includes(`data-action="copy" data-fix="${b.fix}" title=`));
      // The button asks for that fix; the extension renders the text itself.
      assert.deepEqual(reportAction(model.fixes, { type: 'copy', fix: b.fix }), { kind: 'clipboard', text: line.line, what: 'the command' });
    } else {
      // Advice only (youtokentome's newer libstdc++): its title and advice, nothing to copy.
      assert.equal(f.commands.length, 0);
      assert.ok(!section.slice(0, section.indexOf('<details>')).includes('button'), section);
      for (const a of f.advice ?? []) assert.ok(section.includes(esc(a)));
    }
    const others = (d.fixes ?? []).filter((x) => x !== f);
    if (others.length || (d.symbols ?? []).length || (d.evidence ?? []).length) {
      const details = section.slice(section.indexOf('<details>'));
      assert.ok(details.startsWith('<details><summary>More: '), section);
      for (const o of others) assert.ok(details.includes(esc(o.title.split('`')[0]!).slice(0, 40)), `${o.title} folded`);
    }
  });
  assert.ok(!/<details[^>]*\sopen/.test(html), 'every <details> is closed');
});

test('information is folded by kind, with the CLI screen\'s count lines', () => {
  const diags = fixture();
  const model = reportModel(diags);
  const lines = model.folded.map((f) => f.line);
  assert.deepEqual(lines, [
    '9 libraries cannot load on their own, but no import loads them that way',
    '1 optional backend or driver library is missing (its package imports without it)',
  ]);
  // The same words, the same counts as the CLI's screen of the same scan.
  for (const l of lines) assert.ok(screen.includes(l), l);
  const { html } = reportHtml(diags, {}, NONCE);
  for (const f of model.folded) {
    const start = html.indexOf(`<details class="folded" data-fold="${f.kind}"><summary>${esc(f.line)}</summary>`);
    assert.ok(start > 0, f.kind);
    const body = html.slice(start, html.indexOf('</details>', start));
    for (const d of f.diagnostics) assert.ok(body.includes(esc(shortPath(d.library ?? ''))), d.library);
  }
  // No information is spelled out as a block.
  for (const d of diags.filter((x) => x.severity === 'information')) {
    assert.ok(!model.blocks.some((b) => b.diagnostics.includes(d)));
  }
  assert.equal(foldLine('note', 1), '1 note');
  assert.equal(foldLine('loads', 2), '2 libraries load');
});

test('without `fold` (an older server, a terminal report) information is folded as notes', () => {
  const diags = fixture().map((d) => ({ ...d, fold: undefined }));
  const model = reportModel(diags);
  assert.deepEqual(model.folded.map((f) => f.line), ['10 notes']);
  assert.equal(model.errors, 6);
});

test('a package failing in several libraries for one cause with one fix is one block', () => {
  const lib = (n: string) => `/venv/lib/python3.12/site-packages/xformers/${n}`;
  const fix = { id: 'missing-shared-library/companion', title: 'Install xformers 0.0.33', preferred: true, commands: [['python', '-m', 'pip', 'install', 'xformers==0.0.33']] };
  const mk = (n: string): ReportDiagnostic => ({ code: 'missing-shared-library', severity: 'error', message: `libcudart.so.12 missing (needed by ${n})`, package: 'xformers', library: lib(n), fixes: [fix] });
  const model = reportModel([mk('_C.so'), mk('flash_attn_3/_C.so'), mk('a.so'), mk('b.so'), { ...mk('c.so'), code: 'abi-mismatch' }]);
  assert.equal(model.blocks.length, 2);
  assert.equal(model.blocks[0]?.diagnostics.length, 4);
  const { html } = reportHtml([mk('_C.so'), mk('flash_attn_3/_C.so'), mk('a.so'), mk('b.so')], {}, NONCE);
  assert.match(html, /<code>xformers\/_C\.so<\/code>, <code>xformers\/flash_attn_3\/_C\.so<\/code>, <code>xformers\/a\.so<\/code> and 1 more/);
  assert.equal(at(html, /class="also"/).length, 3, 'two further messages, then a count');
  assert.match(html, /… and 1 more of this kind/);
  assert.equal(at(html, /data-action="copy"/).length, 1, 'one fix for the block');
});

test('everything from the report is escaped; control and invisible characters are shown, not sent', () => {
  const hostile = '<img src=x onerror="alert(1)">\'"&</script><script>alert(2)</script>\u202e';
  const evil: ReportDiagnostic = {
    code: `abi-mismatch${hostile}`,
    severity: 'error',
    message: `${hostile} \`<b>code</b>\``,
    package: hostile,
    package_version: hostile,
    library: `/sp/${hostile}.so`,
    symbols: [{ demangled: hostile, status: hostile, nearest: hostile }],
    evidence: [hostile],
    explanation: hostile,
    fixes: [
      { title: hostile, reason: hostile, preferred: true, commands: [['python', '-m', 'pip', 'install', `x${hostile}`]], env: {}, notebook_cell: `%pip install ${hostile}` },
      { title: 'Quoted', commands: [['python', '-m', 'pip', 'install', `'$(touch /tmp/pwned)' ${'<x>'}`]], env: { CUDA_HOME: '/usr/local/cuda"><x' } },
      { title: 'Advice', commands: [], advice: [hostile] },
    ],
  };
  const { html, model } = reportHtml([evil, { ...evil, severity: 'information' }], { title: hostile, when: hostile, summary: hostile, notes: [hostile] }, NONCE);
  assert.doesNotMatch(html, /<img|<b>code|alert\(1\)">|\u202e/);
  assert.equal(at(html, /<script/).length, 1, 'one script: the page\'s own');
  assert.equal(at(html, /<script nonce="/).length, 1);
  assert.doesNotMatch(html, /<[^>]*\son[a-z]+\s*=/i, 'no tag carries an inline handler');
  assert.match(html, /&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;&#39;&quot;&amp;&lt;\/script&gt;&lt;script&gt;alert\(2\)&lt;\/script&gt;&lt;U\+202E&gt;/);
  assert.match(html, /<code>&lt;b&gt;code&lt;\/b&gt;<\/code>/, "the server's code spans stay code, escaped");
  // The preferred fix holds an invisible character: named as refused, nothing to copy or run.
  assert.match(html, /not shown: the argument .* contains U\+202E/);
  assert.deepEqual(reportAction(model.fixes, { type: 'copy', fix: model.blocks[0]!.fix }).kind, 'refused');
  assert.equal(reportAction(model.fixes, { type: 'run', fix: model.blocks[0]!.fix }).kind, 'refused');
  assert.deepEqual(reportAction(model.fixes, { type: 'copy', fix: model.blocks[0]!.fix, cell: true }).kind, 'refused');
  // Quoting is shellQuote's: what is copied is one argument, whatever it holds.
  const quoted = model.fixes.findIndex((f) => f.title === 'Quoted');
  assert.deepEqual(reportAction(model.fixes, { type: 'copy', fix: quoted }), {
    kind: 'clipboard',
    text: `CUDA_HOME='/usr/local/cuda"><x' python -m pip install ''\\''$(touch /tmp/pwned)'\\'' <x>'`,
    what: 'the command',
  });
  // The page's attributes hold only indexes.
  for (const m of html.matchAll(/data-(fix|cmd)="([^"]*)"/g)) assert.match(m[2] ?? '', /^\d+$/);
});

test('the page allows only its own nonce\'d style and script', () => {
  const { html } = reportHtml(fixture(), {}, NONCE);
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
  assert.equal(csp, `default-src 'none'; style-src 'nonce-${NONCE}'; script-src 'nonce-${NONCE}';`);
  assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<style'), 'the policy comes first');
  assert.equal(at(html, /<style nonce="/).length, 1);
  assert.doesNotMatch(html, /\sstyle="/, 'no inline style attribute (the policy would drop it)');
  assert.throws(() => reportHtml([], {}, 'x"><script>'), /nonce/);
});

test('messages from the page are looked up, never trusted', () => {
  const { model } = reportHtml(fixture(), {}, NONCE);
  for (const bad of [null, 'copy', { type: 'copy' }, { type: 'copy', fix: -1 }, { type: 'copy', fix: 1.5 }, { type: 'copy', fix: 999 }, { type: 'eval', fix: 0 }, { type: 'copy', fix: 0, cmd: 'x' }, { type: 'copy', fix: 0, cmd: 5 }]) {
    assert.equal(reportAction(model.fixes, bad).kind, 'refused', JSON.stringify(bad));
  }
  const i = model.fixes.findIndex((f) => f.commands.length === 1);
  const f = model.fixes[i]!;
  assert.deepEqual(reportAction(model.fixes, { type: 'run', fix: i }), { kind: 'run', title: f.title, commands: f.commands, env: f.env ?? {} });
  assert.deepEqual(reportAction(model.fixes, { type: 'copy', fix: i, cell: true }), { kind: 'clipboard', text: f.notebook_cell, what: 'the notebook lines' });
  // Several commands are copied one by one, and do not run from the report.
  const two = [{ title: 'Look, then act', commands: [['nvidia-smi'], ['kill', '4242']] }];
  assert.deepEqual(reportAction(two, { type: 'copy', fix: 0, cmd: 1 }), { kind: 'clipboard', text: 'kill 4242', what: 'the command' });
  assert.equal(reportAction(two, { type: 'run', fix: 0 }).kind, 'refused');
  const page = reportHtml([{ message: 'm', fixes: two }], {}, NONCE).html;
  assert.match(page, /<pre>nvidia-smi<\/pre><button[^>]*data-cmd="0"/);
  assert.match(page, /<pre>kill 4242<\/pre><button[^>]*data-cmd="1"/);
  assert.doesNotMatch(page, /data-action="run"/);
});

test('results of other shapes', () => {
  assert.equal(diagnosticsFromResult(null), undefined);
  assert.deepEqual(
    diagnosticsFromResult([{ message: 'm' }, 3, { nope: 1 }])?.map((d) => d.message),
    ['m'],
  );
  // Fields of the wrong type are dropped, not rendered.
  const d = diagnosticFrom({ message: 'm', package: 3, fixes: [{ title: 't', commands: ['pip install x', [1], ['ok']], env: { A: 1, B: 'b' } }, { nope: 1 }], symbols: 'x', fold: 'sideways' });
  assert.deepEqual(d?.fixes?.[0]?.commands, [['ok']]);
  assert.deepEqual(d?.fixes?.[0]?.env, { B: 'b' });
  assert.equal(d?.package, undefined);
  assert.equal(d?.fold, undefined);
  assert.match(reportHtml([], {}, NONCE).html, /Every compiled extension found should load\./);
  assert.match(reportHtml([], { none: 'No known failure found.' }, NONCE).html, /No known failure found\./);
});

test('the server\'s {findings, summary, notes} result heads the report; notes are folded', () => {
  const result = { findings: 0, summary: 'scanned 212 compiled extensions in /venv/lib/python3.12/site-packages: no problems', notes: ['unreadable: /venv/lib/x.so'] };
  assert.equal(diagnosticsFromResult(result), undefined);
  const { html } = reportHtml([], scanSummary(result), NONCE);
  assert.match(html, /<p class="summary">scanned 212 compiled extensions in \/venv\/lib\/python3\.12\/site-packages: no problems<\/p>/);
  assert.match(html, /<details class="problems"><summary>1 problem\(s\) met while scanning<\/summary><ul><li>unreadable: \/venv\/lib\/x\.so<\/li><\/ul><\/details>/);
  assert.deepEqual(scanSummary(null), { summary: undefined, notes: [] });
  assert.ok(isLibraryPath('/sp/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so'));
  assert.ok(isLibraryPath('/usr/lib/libcudart.so.12'));
  assert.ok(!isLibraryPath('/w/pip-install.log'));
  assert.ok(!isLibraryPath('/w/nb.ipynb'));
});

test('findings taken from the Problems view are placed on their library', () => {
  const so = '/venv/lib/python3.12/site-packages/causal_conv1d_cuda.cpython-312-x86_64-linux-gnu.so';
  const { html } = reportHtml([{ code: 'missing-shared-library', severity: 'error', message: 'libcudart.so.12 cannot be found', location: so }], {}, NONCE);
  assert.match(html, /<div class="place"><code>causal_conv1d_cuda\.cpython-312-x86_64-linux-gnu\.so<\/code><\/div>/);
  assert.ok(html.includes(`library <code>${so}</code>`));
});
