// POSIX shell quoting of argument vectors: the exact text shown to the user before a fix runs is
// the exact text sent to the terminal, so quoting must be total (any byte string round-trips).

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one argument for a POSIX shell (sh, bash, zsh, dash). */
export function quoteArg(arg: string): string {
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
    .map((k) => `${k}=${quoteArg(env[k] ?? '')}`)
    .join(' ');
}

/**
 * The full shell text for a fix: commands joined with `&&` so a failing step stops the rest,
 * each carrying the fix's environment.
 */
export function commandLine(commands: readonly (readonly string[])[], env: Readonly<Record<string, string>> = {}): string {
  const prefix = envPrefix(env);
  return commands.map((argv) => (prefix ? prefix + ' ' : '') + quoteArgv(argv)).join(' && ');
}
