// The verdict of the real `abidoc verify` on real wheels: two torch extensions compiled against
// the fake torch 2.10 of the Python tests (extensions/python/tests/fakeenv.py and wheels.py; one
// built for its signature, one for the signature before 2.10), read by this extension's own
// modules as the code lens reads them. Needs the binary (ABIDOC_TEST_BINARY, else the workspace's
// target/debug/abidoc), python3 and a C++ compiler; skipped, saying so, without them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cellInstalls, requirementsFileNames } from '../src/installLines';
import { lensTitle, readVerdict, verifyFileRun, verifyRuns } from '../src/verdict';

const repo = path.join(__dirname, '..', '..', '..', '..');
const binary = process.env.ABIDOC_TEST_BINARY || path.join(repo, 'target', 'debug', 'abidoc');

const BUILD = `
import json, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from fakeenv import build_fake_site
from wheels import CURRENT, OLDER, build_wheel
work = Path(sys.argv[2])
site = build_fake_site(work / "lib" / "python3.11")
lib = site.libc10.parent
print(json.dumps({"site": str(site.root), "good": str(build_wheel(work, "goodext", CURRENT, lib)), "bad": str(build_wheel(work, "oldext", OLDER, lib))}))
`;

function fixtures(): { site: string; good: string; bad: string; work: string } | string {
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    return `no abidoc binary at ${binary} (cargo build -p abidoc, or set ABIDOC_TEST_BINARY)`;
  }
  const work = mkdtempSync(path.join(tmpdir(), 'abidoc-verdict-'));
  try {
    const out = execFileSync('python3', ['-c', BUILD, path.join(repo, 'extensions', 'python', 'tests'), work], { encoding: 'utf8', timeout: 120_000 });
    return { ...JSON.parse(out), work };
  } catch (e) {
    rmSync(work, { recursive: true, force: true });
    return `could not build the wheels (python3 and a C++ compiler): ${String(e).split('\n')[0]}`;
  }
}

function verify(argv: string[]): string {
  try {
    return execFileSync(binary, argv, { encoding: 'utf8', timeout: 60_000 });
  } catch (e) {
    // Exit 1: something would not load; its JSON is on stdout all the same.
    const err = e as { status?: number; stdout?: string };
    assert.equal(err.status, 1, String(e));
    return err.stdout ?? '';
  }
}

const built = fixtures();

test('a notebook line installing both wheels: the lens names the one that would not load', { skip: typeof built === 'string' ? built : false }, () => {
  const f = built as Exclude<typeof built, string>;
  const env = { sitePackages: [f.site] };
  const [bad] = cellInstalls(`%pip install ${path.basename(f.good)} ./${path.basename(f.bad)}`);
  const v = readVerdict(verifyRuns(bad, f.work, env).map(verify));
  assert.ok(v);
  assert.equal(lensTitle(v), 'abidoc: ✖ oldext would not load [abi-mismatch]');
  assert.equal(v.loads.length, 1);
  assert.match(v.loads[0], /^goodext 1\.0\.0 loads/);
  assert.match(v.failures[0].fixCommand ?? '', /pip install .*oldext/);

  const [good] = cellInstalls(`!pip install ${f.good}`);
  assert.equal(lensTitle(readVerdict(verifyRuns(good, f.work, env).map(verify))!), 'abidoc: ✔ the wheel loads');
});

test('a requirements file: the failure lands on the line of its wheel', { skip: typeof built === 'string' ? built : false }, () => {
  const f = built as Exclude<typeof built, string>;
  const file = path.join(f.work, 'requirements.txt');
  const text = `# lock\n./${path.basename(f.good)}\n./${path.basename(f.bad)}\n`;
  writeFileSync(file, text);
  const v = readVerdict([verify(verifyFileRun(file, { sitePackages: [f.site] }))]);
  assert.ok(v);
  assert.deepEqual(v.failures.map((x) => x.package), ['oldext']);
  assert.equal(requirementsFileNames(text).get(v.failures[0].package), 2);
});

test.after(() => {
  if (typeof built !== 'string') rmSync(built.work, { recursive: true, force: true });
});
