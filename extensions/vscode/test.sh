#!/usr/bin/env bash
# Tests of the VS Code extension and the TextMate grammars: typecheck, unit tests of the pure
# modules (node --test), grammar assertion tests and grammar snapshots. Needs node >= 20 and npm.
#   --update-snapshots   rewrite grammars/tests/snap/*.snap (read the diff before committing)
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
update=""
[ "${1:-}" = "--update-snapshots" ] && update="--updateSnapshot"

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
bin=node_modules/.bin
grammars=(-g "$root/grammars/python-traceback.tmLanguage.json" -g "$root/grammars/pip-log.tmLanguage.json")

echo "--- tsc --noEmit"
"$bin/tsc" -p . --noEmit

echo "--- bundle (esbuild)"
npm run -s bundle >/dev/null

echo "--- grammar tests"
"$bin/vscode-tmgrammar-test" "${grammars[@]}" "$root/grammars/tests/*.test.*"

echo "--- grammar snapshots"
"$bin/vscode-tmgrammar-snap" $update "${grammars[@]}" -s source.python-traceback "$root/grammars/tests/snap/*.traceback"
"$bin/vscode-tmgrammar-snap" $update "${grammars[@]}" -s text.pip-log "$root/grammars/tests/snap/*.pip-log"

echo "--- unit tests (node --test)"
rm -rf out
"$bin/tsc" -p .
# Last so that node's test runner prints the closing summary the CI reads.
node --test out/test/
