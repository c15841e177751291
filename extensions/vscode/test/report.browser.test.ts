// The scan report laid out by a real browser: headless Chromium (found on PATH as the notebook
// display's test finds it, extensions/python/tests/test_helpers.py) loads the page the webview
// gets, with its Content-Security-Policy, at 800x600, and a nonce'd script measures it: the first
// error block and its fix are on the first screen, errors above warnings, every <details> closed
// and its content not laid out, the policy blocking an inline script, no hostile markup in the
// DOM, and a click on a copy button posting the index of its fix. The screenshot is written to
// out/artifacts/scan-report.png (and copied under ABIDOC_KEEP_SCREENSHOTS when set).
// Skipped, saying so, where no Chromium is installed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { diagnosticsFromResult, reportAction, ReportDiagnostic, reportHtml } from '../src/report';
import { renderCommandLine } from '../src/shellQuote';

const root = path.join(__dirname, '..', '..');
const NONCE = 'YnJvd3Nlci10ZXN0LW5vbmNlLTAx';
const WIDTH = 800;
const HEIGHT = 600;

function browser(): string | undefined {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'chrome']) {
    for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
      if (!dir) continue;
      const p = path.join(dir, name);
      try {
        accessSync(p, constants.X_OK);
        return p;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** Stands in for VS Code's webview API: what the page posts is kept for the measurement. */
const STUB = `<script nonce="${NONCE}">window.__posted = []; window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m) });</script>`;
/** Not nonce'd: the page's policy must keep it from running. */
const INLINE = `<script>window.__inline = true;</script>`;
/** Measures the laid-out page and writes the result where --dump-dom shows it. */
const MEASURE = `<script nonce="${NONCE}">(function () {
  const box = (e) => { if (!e) return null; const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, height: r.height }; };
  const blocks = [...document.querySelectorAll('section.block')];
  const first = blocks[0];
  const copy = document.querySelector('section.block button.copy');
  const copyBlock = copy ? blocks.indexOf(copy.closest('section.block')) : -1;
  const details = [...document.querySelectorAll('details')];
  // A closed <details> is as tall as its summary, and what it holds is not visible.
  const laidOut = details.filter((d) => Math.abs(d.getBoundingClientRect().height - d.querySelector('summary').getBoundingClientRect().height) > 1
    || [...d.querySelectorAll('summary ~ *')].some((c) => c.checkVisibility())).length;
  const handlers = [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length;
  const check = {
    height: innerHeight,
    width: innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    blocks: blocks.map((b) => ({ cls: b.className, box: box(b) })),
    firstFix: box(first && first.querySelector('.fix')),
    firstHead: first ? first.querySelector('.head').textContent : null,
    copy: box(copy),
    copyBlock,
    copyText: copy ? copy.parentElement.querySelector('pre').textContent : null,
    details: details.length,
    open: details.filter((d) => d.open).length,
    laidOut,
    summaries: [...document.querySelectorAll('details.folded > summary')].map((s) => s.textContent),
    inline: window.__inline === true,
    handlers,
    images: document.querySelectorAll('img').length,
    scripts: document.querySelectorAll('script').length,
    pwned: window.__pwned === true,
  };
  if (copy) copy.click();
  check.posted = window.__posted;
  document.body.setAttribute('data-check', JSON.stringify(check));
})();</script>`;

interface Box {
  top: number;
  bottom: number;
  height: number;
}

interface Check {
  height: number;
  width: number;
  scrollWidth: number;
  blocks: { cls: string; box: Box }[];
  firstFix: Box | null;
  firstHead: string | null;
  copy: Box | null;
  copyBlock: number;
  copyText: string | null;
  details: number;
  open: number;
  laidOut: number;
  summaries: string[];
  inline: boolean;
  handlers: number;
  images: number;
  scripts: number;
  pwned: boolean;
  posted: unknown[];
}

function unescapeAttr(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

test('the scan report in headless Chromium: the first error and its fix on the first screen, the rest folded', (t) => {
  const chromium = browser();
  if (!chromium) {
    t.skip('no Chromium on this machine (chromium, chromium-browser, google-chrome or chrome on PATH)');
    return;
  }
  const diags = diagnosticsFromResult(JSON.parse(readFileSync(path.join(root, 'test', 'fixtures', 'scan-native.json'), 'utf8')));
  assert.ok(diags && diags.length);
  // A hostile finding last: its markup must stay text in the real DOM.
  const hostile: ReportDiagnostic = {
    code: 'abi-mismatch',
    severity: 'warning',
    message: '<img src=x onerror="window.__pwned=true"><script>window.__pwned=true</script>',
    package: '"><img src=x onerror="window.__pwned=true">',
    fixes: [{ title: '<img src=x onerror="window.__pwned=true">', preferred: true, commands: [['pip', 'install', '"><img src=x onerror="window.__pwned=true">']] }],
  };
  const { html, model } = reportHtml([...diags, hostile], { summary: 'scanned 24 libraries in /opt/app-root/lib64/python3.12/site-packages, /opt/app-root/lib/python3.12/site-packages, torch 2.10.0+cu128' }, NONCE);
  const page = html.replace('<head>', `<head>${STUB}`).replace('</body>', `${INLINE}${MEASURE}</body>`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'abidoc-report-'));
  try {
    const file = path.join(dir, 'scan-report.html');
    writeFileSync(file, page);
    const flags = ['--headless', '--no-sandbox', '--disable-gpu', `--window-size=${WIDTH},${HEIGHT}`, `--user-data-dir=${path.join(dir, 'profile')}`];
    const dom = execFileSync(chromium, [...flags, '--dump-dom', pathToFileURL(file).href], { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'ignore'] });
    const m = /data-check="([^"]*)"/.exec(dom);
    assert.ok(m, `the measuring script did not run:\n${dom.slice(0, 2000)}`);
    const check = JSON.parse(unescapeAttr(m[1] ?? '')) as Check;
    const seen = JSON.stringify(check, null, 1);

    // The first block is the first error, wholly on the first screen with its fix.
    assert.equal(check.blocks.length, model.blocks.length, seen);
    assert.equal(check.blocks[0]?.cls, 'block error', seen);
    const first = check.blocks[0]!.box;
    assert.ok(first.top >= 0 && first.bottom <= check.height, `first block at ${first.top}–${first.bottom} of ${check.height}: ${seen}`);
    assert.ok(check.firstFix && check.firstFix.bottom <= check.height, seen);
    assert.ok(check.firstHead?.includes(model.blocks[0]!.diagnostics[0]!.message.slice(0, 40)), seen);
    // The first command to copy is on the first screen too, and is that block's preferred fix.
    assert.ok(check.copy && check.copy.top >= 0 && check.copy.bottom <= check.height, `copy button: ${seen}`);
    const copyFix = model.fixes[model.blocks[check.copyBlock]!.fix!]!;
    const line = renderCommandLine(copyFix.commands, copyFix.env ?? {});
    assert.ok('line' in line && check.copyText === line.line, seen);
    // Errors above warnings, in the page's vertical order.
    const tops = check.blocks.map((b) => b.box.top);
    assert.deepEqual([...tops].sort((a, b) => a - b), tops, seen);
    const lastError = check.blocks.map((b) => b.cls).lastIndexOf('block error');
    assert.ok(check.blocks.slice(lastError + 1).every((b) => b.cls === 'block warning') && lastError < check.blocks.length - 1, seen);
    // Folded: every <details> closed, nothing in them laid out; the count lines as the CLI's.
    assert.ok(check.details > model.blocks.length, seen);
    assert.equal(check.open, 0, seen);
    assert.equal(check.laidOut, 0, seen);
    assert.deepEqual(check.summaries, model.folded.map((f) => f.line));
    // The policy held and the hostile finding stayed text.
    assert.equal(check.inline, false, 'an inline script without the nonce ran: the policy is not in force');
    assert.equal(check.handlers, 0, seen);
    assert.equal(check.images, 0, seen);
    assert.equal(check.pwned, false, seen);
    assert.equal(check.scripts, 4, 'the stub, the page\'s, the inline one and the measuring one');
    assert.ok(check.scrollWidth <= check.width, `nothing wider than the window: ${seen}`);
    // The click posted the fix's index, which the extension turns into the command.
    assert.equal(check.posted.length, 1, seen);
    assert.deepEqual(reportAction(model.fixes, check.posted[0]), { kind: 'clipboard', text: check.copyText, what: 'the command' });

    // The screenshot, kept as an artifact.
    const artifacts = path.join(root, 'out', 'artifacts');
    mkdirSync(artifacts, { recursive: true });
    const shot = path.join(artifacts, 'scan-report.png');
    rmSync(shot, { force: true });
    execFileSync(chromium, [...flags, `--screenshot=${shot}`, pathToFileURL(file).href], { timeout: 120_000, stdio: 'ignore' });
    const png = readFileSync(shot);
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [WIDTH, HEIGHT], 'the screenshot has the window\'s size');
    const keep = process.env.ABIDOC_KEEP_SCREENSHOTS;
    if (keep) {
      mkdirSync(keep, { recursive: true });
      copyFileSync(shot, path.join(keep, 'vscode-scan-report.png'));
    }
    t.diagnostic(`screenshot: ${shot}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
