// Drives code-server in headless Chromium through the user-visible path of the abidoc extension:
// server found and started, notebook with the seed-000 error -> diagnostic on the cell -> quick fix
// inserts the `%pip uninstall` cell above it (after a confirmation showing it); pip log -> pip-log
// language and diagnostics; a second code-server with workspace trust on opens an untrusted folder
// whose settings name a binary and an interpreter that must never run.
// Each step saves a screenshot in E2E_ARTIFACTS. Prints "N passed, N failed" last.

import { chromium } from 'playwright-core';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const { E2E_URL, E2E_ARTIFACTS, E2E_PROFILE, E2E_NOTEBOOK, E2E_LOG, E2E_WS, E2E_MACHINE_SETTINGS, E2E_SITE_PACKAGES, E2E_UNTRUSTED_URL, E2E_MARKERS, E2E_USER_ABIDOC, E2E_CLIENT_MESSAGES } = process.env;
const STEPS = 9;
const results = [];
let page;
let shot = 0;

async function screenshot(name) {
  shot += 1;
  const file = join(E2E_ARTIFACTS, `${String(shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file }).catch(() => {});
  return file;
}

async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    const file = await screenshot(name);
    results.push([true, name]);
    console.log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s) ${file}`);
    return true;
  } catch (e) {
    const file = await screenshot(`${name}-FAILED`);
    results.push([false, name]);
    console.log(`FAIL ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s) ${file}\n     ${String(e && e.message ? e.message : e).split('\n').slice(0, 6).join('\n     ')}`);
    return false;
  }
}

async function waitFor(what, fn, timeout = 30_000, every = 500) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await page.waitForTimeout(every);
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
}

async function runCommand(title, timeout = 30_000) {
  // Extensions' commands appear in the palette only once the extension host has scanned them,
  // which can be after the workbench is drawn: retry until the exact entry is listed.
  const pattern = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'i');
  const end = Date.now() + timeout;
  for (;;) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    if (!(await input.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false))) {
      // A focused terminal can keep F1 for itself: move focus to the editor area and retry.
      await page.locator('.part.editor').first().click({ position: { x: 5, y: 5 } }).catch(() => {});
      await page.keyboard.press('Control+Shift+P');
      await input.waitFor({ state: 'visible', timeout: 10_000 });
    }
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: pattern }) }).first();
    try {
      await row.waitFor({ timeout: 3_000 });
      await row.click();
      return;
    } catch (e) {
      await page.keyboard.press('Escape');
      if (Date.now() > end) throw new Error(`command "${title}" not in the palette`);
      await page.waitForTimeout(1000);
    }
  }
}

/** Waits for the abidoc output channel to match `pattern` (`squeeze`: with all whitespace removed). */
async function serverInOutput(what, pattern, squeeze = false) {
  await runCommand('abidoc: Show output');
  return waitFor(`the abidoc output channel to name ${what}`, async () => {
    // Long lines wrap in the output editor: compare with whitespace collapsed (or removed).
    const t = await page.evaluate(() => (document.querySelector('.output-view, .panel .monaco-editor')?.innerText ?? '').replace(/\s+/g, ' '));
    return pattern.test(squeeze ? t.replace(/ /g, '') : t) ? t : false;
  });
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The first LSP message in a capture of what the client wrote: the initialize request. */
function firstMessage(file) {
  const raw = readFileSync(file, 'utf8');
  const m = /^Content-Length: (\d+)\r\n(?:[^\r\n]+\r\n)*\r\n/.exec(raw);
  if (!m) throw new Error(`no LSP header at the start of ${file}`);
  return JSON.parse(Buffer.from(raw.slice(m[0].length), 'utf8').subarray(0, Number(m[1])).toString('utf8'));
}

async function openFile(name) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15_000 });
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
}

async function problemsText() {
  return page.evaluate(() => {
    const panel = document.querySelector('.markers-panel');
    return panel ? panel.innerText.replace(/\u00a0/g, ' ') : '';
  });
}

async function showProblems() {
  await runCommand('View: Focus Problems (Errors, Warnings, Infos)');
  await page.locator('.markers-panel').waitFor({ timeout: 10_000 });
}

function savedNotebook() {
  const nb = JSON.parse(readFileSync(join(E2E_WS, E2E_NOTEBOOK), 'utf8'));
  return nb.cells.map((c) => ({ type: c.cell_type, source: Array.isArray(c.source) ? c.source.join('') : c.source }));
}

const context = await chromium.launchPersistentContext(E2E_PROFILE, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1600, height: 1000 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
page = context.pages()[0] ?? (await context.newPage());
page.setDefaultTimeout(30_000);
const before = savedNotebook();
const failingIndex = before.findIndex((c) => c.source.includes('lora_sft('));

try {
  await step('workbench-loads-and-extension-finds-bundled-server', async () => {
    await page.goto(E2E_URL);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 30_000 }).catch(() => {});
    const text = await serverInOutput('the bundled server', /using \S+\/server\/abidoc \(bundled\) ?: abidoc \d+\.\d+\.\d+/);
    if (/failed to start|no working abidoc binary/.test(text)) throw new Error(`server did not start:\n${text}`);
  });

  const notebookOpen = await step('notebook-opens-with-saved-seed-000-error', async () => {
    await openFile(E2E_NOTEBOOK);
    await page.locator('.notebook-editor').first().waitFor({ timeout: 30_000 });
    // Outputs render inside the notebook's webview iframe.
    await waitFor('the saved traceback in the cell output', async () => {
      for (const f of page.frames()) {
        const t = await f.evaluate(() => document.body?.innerText ?? '').catch(() => '');
        if (t.includes('undefined symbol: _ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib')) return true;
      }
      return false;
    });
  });

  const diagnosed = await step('diagnostic-on-the-failing-cell', async () => {
    if (!notebookOpen) throw new Error('skipped: the notebook did not open');
    await showProblems();
    const text = await waitFor('an abi-mismatch problem on the notebook', async () => {
      const t = await problemsText();
      return /abi-mismatch/.test(t) && t.includes(E2E_NOTEBOOK) ? t : false;
    }, 45_000);
    if (!/mamba-ssm|selective_scan_cuda/.test(text)) throw new Error(`the problem does not name mamba-ssm/selective_scan_cuda:\n${text}`);
    // Going to the problem reveals the failing cell; the squiggle must be in its editor.
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'abi-mismatch' }).first().dblclick();
    await waitFor('an error squiggle in the failing cell', () =>
      page.evaluate(() =>
        [...document.querySelectorAll('.notebook-editor .code-cell-row')].some(
          (row) => row.innerText.includes('lora_sft(') && row.querySelector('.squiggly-error, .squiggly-warning'),
        ),
      ),
    );
  });

  await step('quick-fix-inserts-pip-uninstall-cell-above', async () => {
    if (!diagnosed) throw new Error('skipped: no diagnostic on the cell to take the quick fix from');
    // Go to the problem (puts the cursor in the failing cell), then open the quick fix menu.
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'abi-mismatch' }).first();
    await row.dblclick();
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+.');
    const item = page.locator('.action-widget .monaco-list-row', { hasText: /mamba-ssm/i }).first();
    await item.waitFor({ timeout: 15_000 });
    await screenshot('quick-fix-menu');
    await item.click();
    // The cell's text is shown before it is inserted; nothing is inserted until confirmed.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 10_000 });
    const shown = (await dialog.innerText()).replace(/\u00a0/g, ' ');
    if (!/%pip uninstall -y mamba-ssm\b/.test(shown)) throw new Error(`the confirmation does not show the cell:\n${shown}`);
    await screenshot('insert-cell-confirmation');
    await dialog.getByRole('button', { name: 'Insert Cell' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForTimeout(1000);
    await runCommand('File: Save');
    const after = await waitFor('the saved notebook to hold the new cell', async () => {
      const cells = savedNotebook();
      return cells.length === before.length + 1 ? cells : false;
    }, 15_000);
    const inserted = after[failingIndex];
    if (inserted.type !== 'code' || !/^%pip uninstall -y mamba-ssm\b/.test(inserted.source)) {
      throw new Error(`cell ${failingIndex} should be the %pip uninstall cell, got ${JSON.stringify(after.map((c) => c.source.slice(0, 60)))}`);
    }
    if (!after[failingIndex + 1].source.includes('lora_sft(')) throw new Error('the failing cell should follow the inserted cell');
  });

  const logDiagnosed = await step('pip-log-opens-as-pip-log-with-diagnostics', async () => {
    await openFile(E2E_LOG);
    await waitFor('the pip Log language mode', () =>
      page.evaluate(() => [...document.querySelectorAll('.statusbar-item')].some((e) => e.innerText.trim() === 'pip Log')),
    );
    // The grammar colours the failure line (a token carrying a theme colour class).
    await showProblems();
    await waitFor('a build-isolation problem on the log', async () => {
      const t = await problemsText();
      return /build-isolation/.test(t) && t.includes(E2E_LOG);
    }, 45_000);
  });

  await step('run-in-terminal-shows-exact-command-and-asks', async () => {
    if (!logDiagnosed) throw new Error('skipped: no diagnostic on the pip log');
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'build-isolation' }).first().dblclick();
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+.');
    const item = page.locator('.action-widget .monaco-list-row', { hasText: /flash-attn|torch/i }).first();
    await item.waitFor({ timeout: 15_000 });
    await item.click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 10_000 });
    const text = (await dialog.innerText()).replace(/\u00a0/g, ' ');
    if (!text.includes('This will run in a new terminal:')) throw new Error(`dialog text:\n${text}`);
    // The exact POSIX command line: argv joined, pip run through the interpreter, nothing else.
    const line = text.split('\n').find((l) => l.startsWith('python -m pip '));
    if (!line || !/--no-build-isolation flash-attn/.test(line)) throw new Error(`no exact command line in the dialog:\n${text}`);
    await screenshot('run-in-terminal-confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForTimeout(1500);
    const terminals = await page.evaluate(() => document.querySelectorAll('.xterm').length);
    if (terminals !== 0) throw new Error(`a terminal was opened although the user cancelled (${terminals})`);
  });

  await step('failed-terminal-command-gets-a-diagnosis-notification', async () => {
    // Shell integration reports the command, its exit code and its output; the extension sends
    // failures to the server, whose abidoc/terminalDiagnosis becomes a notification with the fix.
    await runCommand('Terminal: Create New Terminal');
    await page.locator('.xterm').first().waitFor({ timeout: 20_000 });
    await waitFor('shell integration in the terminal', () =>
      page.evaluate(() => !!document.querySelector('.terminal-command-decoration, .xterm-decoration-overview-ruler, .codicon-terminal-decoration-incomplete, .codicon-terminal-decoration-success')),
      15_000,
    ).catch(() => {});
    // Typing before the shell has drawn its prompt runs the command before shell integration is
    // active (nothing is reported then): give bash time to start.
    await page.waitForTimeout(3000);
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'build-isolation' }).first();
    // Shell integration can still be starting when the first command runs (bash then reports
    // nothing), the more so on a loaded 2-core machine: like a user, run it again if no
    // diagnosis came.
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.type(`cat ${E2E_LOG}; false\n`, { delay: 20 });
      if (await toast.waitFor({ timeout: 25_000 }).then(() => true, () => false)) break;
      if (attempt === 3) throw new Error('no abidoc notification after the failed command (three times)');
    }
    const text = await toast.innerText();
    if (!/Install torch first|flash-attn/i.test(text)) throw new Error(`the notification offers no fix:\n${text}`);
  });

  await step('scan-environment-problems-and-report', async () => {
    if (!E2E_SITE_PACKAGES) throw new Error('skipped: no native fixtures (tests/native/build.sh) to scan');
    // Set abidoc.sitePackages the way a user does, in the Settings editor (it writes through
    // VS Code's configuration service): this also checks that the server follows the change.
    await runCommand('Preferences: Open User Settings');
    // The settings editor opens with its search box focused.
    await page.locator('.settings-editor .settings-header').first().waitFor({ timeout: 15_000 });
    await page.waitForTimeout(1000);
    await page.keyboard.insertText('abidoc.sitePackages');
    // Paths are machine-overridable settings: in a remote window (code-server) they belong to the
    // Remote scope, where the files are.
    await page.locator('.settings-editor .settings-tabs-widget .action-label', { hasText: /^Remote/ }).first().click();
    const addItem = page.locator('.settings-editor .setting-item-list', { hasText: 'site-packages' }).getByRole('button', { name: /Add Item/i }).first();
    await addItem.waitFor({ timeout: 15_000 });
    await addItem.click();
    const edit = page.locator('.settings-editor .setting-list-edit-row input').first();
    await edit.waitFor({ timeout: 10_000 });
    await edit.fill(E2E_SITE_PACKAGES);
    await page.keyboard.press('Enter');
    await waitFor('the remote settings file to hold abidoc.sitePackages', () => {
      try {
        return JSON.parse(readFileSync(E2E_MACHINE_SETTINGS, 'utf8'))['abidoc.sitePackages']?.[0] === E2E_SITE_PACKAGES;
      } catch {
        return false;
      }
    }, 10_000);
    await screenshot('settings-editor');
    await page.keyboard.press('Escape');
    await runCommand('View: Close Editor', 5_000).catch(() => page.keyboard.press('Escape'));
    await page.waitForTimeout(1000);
    await runCommand('abidoc: Scan environment');
    // The report is a webview (an iframe inside an iframe): find the frame that shows it.
    const so = 'selective_scan_cuda.cpython-312-x86_64-linux-gnu.so';
    const reportFrame = async () => {
      for (const f of page.frames()) {
        if (f === page.mainFrame()) continue;
        const t = await f.evaluate(() => document.body?.innerText ?? '').catch(() => '');
        if (t.includes('abidoc environment scan') && t.includes(so)) return f;
      }
      return false;
    };
    const frame = await waitFor('the report webview', reportFrame, 60_000);
    const report = await frame.evaluate(() => document.body.innerText);
    await screenshot('scan-report');
    // Answers first: the blocks are errors then warnings, every <details> closed, mamba-ssm's
    // block gives abi-mismatch with its version and a command to copy.
    const layout = await frame.evaluate(() => ({
      blocks: [...document.querySelectorAll('section.block')].map((b) => b.className),
      open: [...document.querySelectorAll('details')].filter((d) => d.open).length,
      folded: [...document.querySelectorAll('details.folded > summary')].map((s) => s.textContent),
    }));
    const lastError = layout.blocks.lastIndexOf('block error');
    if (lastError < 0 || layout.blocks.slice(0, lastError).some((c) => c !== 'block error') || layout.open !== 0) {
      throw new Error(`the report is not errors first with everything else folded: ${JSON.stringify(layout)}`);
    }
    if (!/scanned \d+ libraries/.test(report)) throw new Error(`the report does not give the scan's summary:\n${report.slice(0, 600)}`);
    const mamba = frame.locator('section.block', { hasText: so });
    const block = await mamba.innerText();
    if (!/abi-mismatch/.test(block) || !/mamba-ssm 2\.3\.0/.test(block)) throw new Error(`the report does not give ${so} as abi-mismatch of mamba-ssm 2.3.0:\n${block}`);
    // Its copy button asks the extension, which copies the command it rendered and says so.
    const copy = mamba.locator('button.copy').first();
    await copy.click();
    await waitFor('the copy button to be acknowledged', async () => (await copy.innerText()) === 'Copied', 10_000);
    await screenshot('scan-report-copied');
    await showProblems();
    await waitFor(`a problem on ${so}`, async () => (await problemsText()).includes(so), 15_000);
  });

  await step('untrusted-folder-settings-choose-no-program', async () => {
    // A second code-server with workspace trust on, opened on a folder it does not trust, whose
    // .vscode/settings.json sets abidoc.path and abidoc.python to scripts that leave a marker
    // file when run (the fake abidoc even answers --version as abidoc would). The user's own
    // abidoc.path (remote settings) names a wrapper that records the client's messages and runs
    // the bundled binary: user values still apply, the workspace's do not.
    if (!E2E_UNTRUSTED_URL) throw new Error('skipped: no second code-server');
    await page.goto(E2E_UNTRUSTED_URL);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await waitFor('the Restricted Mode indicator (the folder is not trusted)', () =>
      page.evaluate(() => [...document.querySelectorAll('.statusbar-item')].some((e) => /Restricted Mode/.test(e.innerText || e.getAttribute('aria-label') || ''))),
    );
    const text = await serverInOutput("the user's abidoc.path", new RegExp(`using${escapeRegExp(E2E_USER_ABIDOC)}\\(settingabidoc\\.path\\):abidoc\\d+\\.\\d+\\.\\d+`), true);
    if (/fake-abidoc/.test(text)) throw new Error(`the workspace's abidoc.path was used:\n${text}`);
    // The client advertised the commands it carries out (rust-analyzer style), nothing else there.
    const init = firstMessage(E2E_CLIENT_MESSAGES);
    const commands = init.method === 'initialize' ? init.params?.capabilities?.experimental?.commands : undefined;
    if (JSON.stringify(commands) !== JSON.stringify({ commands: ['abidoc.runInTerminal', 'abidoc.insertCell'] })) {
      throw new Error(`initialize carries experimental.commands = ${JSON.stringify(commands)}`);
    }
    // Nor did the server get the workspace's interpreter.
    if (JSON.stringify(init.params?.initializationOptions ?? {}).includes('fake-python')) throw new Error(`initializationOptions carry the workspace's abidoc.python: ${JSON.stringify(init.params.initializationOptions)}`);
    // The real server works there: the log in the folder gets its diagnosis.
    await openFile(E2E_LOG);
    await showProblems();
    await waitFor('a build-isolation problem on the log (untrusted folder)', async () => {
      const t = await problemsText();
      return /build-isolation/.test(t) && t.includes(E2E_LOG);
    }, 45_000);
    const markers = existsSync(E2E_MARKERS) ? readdirSync(E2E_MARKERS) : [];
    if (markers.length) throw new Error(`the workspace's programs ran: ${markers.join(', ')}`);
  });
} finally {
  await context.close();
  const passed = results.filter(([ok]) => ok).length;
  console.log(`\n${passed} passed, ${results.length - passed} failed`);
  process.exitCode = passed === results.length && results.length === STEPS ? 0 : 1;
}
