// Reading `pip install` lines (notebook cells) and requirements files without running pip: what
// `abidoc verify` can judge of them. The same rules as the IPython extension's reader
// (extensions/python/python/abidoc/_pipline.py): local wheels, NAME and NAME==VERSION, a torch
// pin, `-r` files; anything uncertain (IPython {expressions}, $variables, other specifiers, an
// install into another target) is left out, never guessed. Pure: unit-tested without VS Code.

import * as path from 'node:path';

/** One thing an install names that verify can judge. */
export interface Requirement {
  name?: string;
  /** The exact version of an `==` pin; absent: what pip picks (the newest). */
  version?: string;
  /** A local wheel path as written (resolved by the caller against the kernel's directory). */
  wheel?: string;
}

/** One install line of a cell: where it is and what it names. */
export interface InstallLine {
  /** 0-based line of the command's first line. */
  line: number;
  /** The line after its command's last continuation (exclusive). */
  endLine: number;
  requirements: Requirement[];
  requirementFiles: string[];
  /** `torch==X` on the line (torch is the target, not a package). */
  torch?: string;
}

const MAX_TEXT = 64 * 1024;
const MAX_REQUIREMENTS = 64;

// PEP 508 names and the PEP 440 spellings the binary's --package/--torch accept: anything else
// would make it refuse the whole command line, so it never reaches it.
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,126}[A-Za-z0-9])?$/;
const VERSION = /^(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:(?:a|b|rc)[0-9]+)?(?:\.post[0-9]+)?(?:\.dev[0-9]+)?(?:\+[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)?$/;
const REQ = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[A-Za-z0-9._,\s-]*\])?(.*)$/;

const WITH_VALUE = new Set([
  '-r', '--requirement', '-c', '--constraint', '-e', '--editable', '-i', '--index-url', '--extra-index-url',
  '-f', '--find-links', '-t', '--target', '--prefix', '--root', '--platform', '--python-version',
  '--implementation', '--abi', '--no-binary', '--only-binary', '--progress-bar', '--upgrade-strategy', '--src',
  '--report', '-C', '--config-settings', '--global-option', '--build-option', '--install-option', '--trusted-host',
  '--proxy', '--retries', '--timeout', '--cert', '--client-cert', '--cache-dir', '--log', '--log-file',
  '--exists-action', '--python', '--keyring-provider', '--root-user-action', '--group', '--index-strategy',
  '--extra', '--resolution', '--prerelease', '-p', '--override',
]);
// Installs somewhere else or for another machine: not what the kernel's environment will hold.
const ELSEWHERE = new Set(['-t', '--target', '--prefix', '--root', '--platform', '--python-version', '--implementation', '--abi']);
const SHELL_OPERATORS = new Set(['&&', '||', ';', '|', '&', '>', '>>', '<', '2>', '2>&1', '&>']);

/** PEP 503 normalization. */
export function normalize(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
}

/**
 * POSIX shell words (quotes, backslashes, `#` comments), or undefined when the quoting is
 * unbalanced: what pip would get is then unclear.
 */
export function shellWords(text: string): string[] | undefined {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return undefined;
      cur += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && j + 1 < text.length && '"\\$`'.includes(text[j + 1])) j++;
        cur += text[j];
      }
      if (j >= text.length) return undefined;
      inWord = true;
      i = j;
    } else if (c === '\\') {
      if (i + 1 < text.length) cur += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else if (c === '#' && !inWord) {
      break;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

function isPython(word: string): boolean {
  // IPython expands {sys.executable} to the kernel's interpreter: the usual notebook spelling.
  if (word === '{sys.executable}' || word === '$sys.executable') return true;
  return /^python(?:[0-9](?:\.[0-9]+)?)?$/.test(path.posix.basename(word));
}

/** The words after `install` when the line is a pip install command, else undefined. */
export function installArgs(line: string): string[] | undefined {
  const s = line.trim();
  let rest: string;
  if (s.startsWith('%pip')) rest = s.slice(4);
  else if (s.startsWith('!')) rest = s.slice(1);
  else if (s.startsWith('pip ')) rest = s; // IPython's automagic for %pip
  else return undefined;
  let words = shellWords(rest);
  if (!words) return undefined;
  if (words[0] === 'uv' && words[1] === 'pip') words = words.slice(1);
  else if (words.length >= 3 && isPython(words[0]) && words[1] === '-m' && words[2] === 'pip') words = words.slice(2);
  if (s.startsWith('%pip')) words = ['pip', ...words];
  if (words.length < 2 || !['pip', 'pip3'].includes(path.posix.basename(words[0])) || words[1] !== 'install') return undefined;
  const args: string[] = [];
  for (const w of words.slice(2)) {
    if (SHELL_OPERATORS.has(w)) break;
    args.push(w);
  }
  return args;
}

/** A word IPython or the shell would rewrite before pip sees it. */
function unsure(word: string): boolean {
  return /[{}$`*?]/.test(word) || (word.startsWith('~') && !word.includes('/'));
}

/** One requirement word as verify can judge it (a wheel path is kept as written). */
export function requirementOf(word: string): Requirement | undefined {
  word = word.trim();
  if (!word || unsure(word)) return undefined;
  const at = word.indexOf('@');
  if (at >= 0 && word.slice(at + 1).includes('://')) {
    const url = word.slice(at + 1).trim();
    const name = word.slice(0, at).trim();
    if (url.startsWith('file://') && url.endsWith('.whl')) {
      return { ...(NAME.test(name) ? { name } : {}), wheel: url.slice('file://'.length) };
    }
    return undefined;
  }
  if (word.includes('://')) {
    return word.startsWith('file://') && word.endsWith('.whl') ? { wheel: word.slice('file://'.length) } : undefined;
  }
  if (word.endsWith('.whl')) return { wheel: word };
  // A source directory or an sdist path: built by pip, not judged here.
  if (word.includes('/') || word.startsWith('.')) return undefined;
  const m = REQ.exec(word.split(';')[0].trim());
  if (!m || !NAME.test(m[1])) return undefined;
  const spec = m[2].trim();
  if (!spec) return { name: m[1] };
  if (spec.startsWith('==') && !spec.startsWith('===') && !spec.includes(',')) {
    const version = spec.slice(2).trim();
    if (VERSION.test(version)) return { name: m[1], version };
  }
  // >=, ~=, <, wildcards: which release pip picks is not known here.
  return undefined;
}

function readArgs(args: string[]): { requirements: Requirement[]; files: string[]; elsewhere: boolean } {
  const requirements: Requirement[] = [];
  const files: string[] = [];
  for (let i = 0; i < args.length; ) {
    let word = args[i++];
    if (word === '--') continue;
    if (i + 1 < args.length && args[i] === '@') {
      // `name @ file:///x.whl` unquoted: one PEP 508 direct reference in three words.
      word = `${word} @ ${args[i + 1]}`;
      i += 2;
    }
    if (word.startsWith('-')) {
      const eq = word.indexOf('=');
      let option = eq >= 0 ? word.slice(0, eq) : word;
      let value: string | undefined = eq >= 0 ? word.slice(eq + 1) : undefined;
      if (ELSEWHERE.has(option)) return { requirements: [], files: [], elsewhere: true };
      let takes = WITH_VALUE.has(option);
      if (value === undefined && !takes && word.length > 2 && ['-r', '-c', '-e', '-i', '-f', '-t'].includes(word.slice(0, 2))) {
        // `-rreqs.txt`: a short option glued to its value.
        option = word.slice(0, 2);
        value = word.slice(2);
        takes = true;
        if (option === '-t') return { requirements: [], files: [], elsewhere: true };
      }
      if (takes && value === undefined) value = args[i++] ?? '';
      if ((option === '-r' || option === '--requirement') && value && !unsure(value)) files.push(value);
      continue;
    }
    const r = requirementOf(word);
    if (r) requirements.push(r);
  }
  return { requirements, files, elsewhere: false };
}

/** The install lines of a cell (or any text run by IPython), continuation lines joined. */
export function cellInstalls(text: string): InstallLine[] {
  if (text.length > MAX_TEXT || !text.includes('install')) return [];
  const lines = text.split(/\r?\n/);
  const out: InstallLine[] = [];
  for (let start = 0; start < lines.length; ) {
    let joined = lines[start];
    let end = start + 1;
    while (/\\\s*$/.test(joined) && end < lines.length) {
      joined = joined.replace(/\\\s*$/, ' ') + lines[end];
      end++;
    }
    const args = installArgs(joined);
    if (args) {
      const { requirements, files, elsewhere } = readArgs(args);
      if (!elsewhere) {
        const torchPins = requirements.filter((r) => r.name && !r.wheel && normalize(r.name) === 'torch');
        const rest = requirements.filter((r) => !torchPins.includes(r)).slice(0, MAX_REQUIREMENTS);
        const versions = new Set(torchPins.map((r) => r.version).filter((v): v is string => !!v));
        const line: InstallLine = { line: start, endLine: end, requirements: rest, requirementFiles: files };
        if (versions.size === 1) line.torch = [...versions][0];
        if (rest.length || files.length || line.torch) out.push(line);
      }
    }
    start = end;
  }
  return out;
}

/**
 * The distribution each line of a requirements file names (normalized), for placing verify's
 * diagnostics, which name the package, on the line that installs it: `name==v`, `name @ url`,
 * or a wheel file's own name.
 */
export function requirementsFileNames(text: string): Map<string, number> {
  const out = new Map<string, number>();
  if (text.length > 16 * MAX_TEXT) return out;
  text.split(/\r?\n/).forEach((raw, n) => {
    const line = raw.split(' #')[0].trim();
    if (!line || line.startsWith('#') || line.startsWith('-')) return;
    const direct = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*@/.exec(line);
    const wheel = /([A-Za-z0-9_.]+)-[0-9][^-/]*(?:-[0-9][^-/]*)?-[^-/]+-[^-/]+-[^-/]+\.whl$/.exec(line.split(';')[0].trim());
    const pin = REQ.exec(line);
    const name = direct?.[1] ?? wheel?.[1] ?? pin?.[1];
    if (name && NAME.test(name) && !out.has(normalize(name))) out.set(normalize(name), n);
  });
  return out;
}
