// POSIX shell quoting of argument vectors: the exact text shown to the user before a fix runs is
// the exact text typed into the terminal. The text is typed into an interactive shell, whose line
// editor acts on control characters before the shell parses anything (Ctrl-U erases the line up to
// the cursor, Ctrl-C abandons it, a newline runs what came before it), so quoting cannot make them
// safe: an argument holding one is refused, and everything else is single-quoted.

/** Arguments that need no quotes: what a shell never interprets. */
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * What an argument must not contain: C0 controls (tab, newline and carriage return included),
 * DEL and C1 controls (`\p{Cc}`), format characters such as bidirectional overrides and
 * zero-width characters that make the confirmation dialog show something other than what runs
 * (`\p{Cf}`), line and paragraph separators (`\p{Zl}`, `\p{Zp}`), and lone surrogates, which
 * are not text and would be replaced when written to the terminal (`\p{Cs}`).
 */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** The first forbidden character of `s`, described (`U+0015`), or undefined if there is none. */
export function forbiddenChar(s: string): string | undefined {
  const m = FORBIDDEN.exec(s);
  if (!m) return undefined;
  const cp = m[0].codePointAt(0) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * `s` with every forbidden character written as `<U+XXXX>`, cut at `max` characters (200 by
 * default): for messages, and for any text of a report shown to the user.
 */
export function visible(s: string, max = 200): string {
  const shown = s.replace(new RegExp(FORBIDDEN.source, 'gu'), (c) => `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`);
  return shown.length > max ? shown.slice(0, max) + '…' : shown;
}

/** An argument (or environment value) that cannot be typed into a terminal safely. */
export class UnsafeArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeArgumentError';
  }
}

/** Quotes one argument for a POSIX shell (sh, bash, zsh, dash); throws UnsafeArgumentError. */
export function quoteArg(arg: string): string {
  const bad = forbiddenChar(arg);
  if (bad) throw new UnsafeArgumentError(`the argument "${visible(arg)}" contains ${bad}, a control or invisible character, which a terminal would act on or hide`);
  if (arg === '') return "''";
  if (SAFE.test(arg)) return arg;
  // Single quotes keep everything literal; a single quote itself is closed, escaped, reopened.
  return "'" + arg.replace(/'/g, `'\\''`) + "'";
}

/** One command line from an argument vector. */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map(quoteArg).join(' ');
}

/** `NAME=value` assignments are prefixed to each command so they hold for that command only. */
export function envPrefix(env: Readonly<Record<string, string>>): string {
  return Object.keys(env)
    .sort()
    .map((k) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new UnsafeArgumentError(`invalid environment variable name "${visible(k)}"`);
      return `${k}=${quoteArg(env[k] ?? '')}`;
    })
    .join(' ');
}

/**
 * The full shell text for a fix: commands joined with `&&` so a failing step stops the rest,
 * each carrying the fix's environment. Throws UnsafeArgumentError when any argument or value
 * holds a character the terminal would act on: nothing of such a fix may be typed.
 */
export function commandLine(commands: readonly (readonly string[])[], env: Readonly<Record<string, string>> = {}): string {
  const prefix = envPrefix(env);
  return commands.map((argv) => (prefix ? prefix + ' ' : '') + quoteArgv(argv)).join(' && ');
}

/** commandLine, or the reason it cannot be rendered. */
export function renderCommandLine(commands: readonly (readonly string[])[], env: Readonly<Record<string, string>> = {}): { line: string } | { error: string } {
  try {
    return { line: commandLine(commands, env) };
  } catch (e) {
    if (e instanceof UnsafeArgumentError) return { error: e.message };
    throw e;
  }
}

/** Shells that parse the quoting above as POSIX sh does. */
const POSIX_SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash']);

/**
 * Whether the user's shell (a path, as `vscode.env.shell` gives it) reads POSIX quoting as sh
 * does. fish keeps `\\` inside single quotes as one backslash, csh and tcsh expand `!` inside
 * them, PowerShell and cmd quote otherwise: the fix then runs in `/bin/sh` instead.
 */
export function isPosixShell(shell: string | undefined): boolean {
  const base = (shell ?? '').split(/[\\/]/).pop() ?? '';
  return POSIX_SHELLS.has(base.replace(/^-/, ''));
}
