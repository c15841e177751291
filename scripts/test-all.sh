#!/usr/bin/env bash
# Runs every test suite of the project. This is the README's test command and what CI runs.
# It installs what the suites need (npm and PyPI packages) into project-local directories.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TERM_COLOR=never
# insta must fail on a changed snapshot in CI instead of writing a .snap.new.
export INSTA_UPDATE=no

results=()
failed=0
run() {
  local name=$1; shift
  local start=$SECONDS
  echo "::: $name"
  if "$@"; then
    results+=("ok    $name ($((SECONDS - start)) s)")
  else
    results+=("FAIL  $name ($((SECONDS - start)) s)")
    failed=$((failed + 1))
  fi
}

run "cargo fmt --check" cargo fmt --all -- --check
run "cargo clippy (all targets, -D warnings)" cargo clippy --workspace --all-targets --locked -- -D warnings
run "cargo test" cargo test --workspace --locked
[ -x extensions/vscode/test.sh ] && run "vscode extension + grammars" extensions/vscode/test.sh
[ -x extensions/python/test.sh ] && run "python wheel + notebook" extensions/python/test.sh
[ -x tests/nvim/run.sh ] && run "neovim LSP client" tests/nvim/run.sh
# The real-VS-Code end-to-end test takes minutes: run it when the client side changed, or on demand.
if [ -x tests/e2e-vscode/run.sh ]; then
  if [ "${ABIDOC_E2E:-}" = 1 ] || ! git -C "$root" diff --quiet HEAD~1 -- extensions grammars tests/e2e-vscode 2>/dev/null; then
    run "vscode end-to-end (code-server)" tests/e2e-vscode/run.sh
  else
    echo "::: vscode end-to-end skipped (extensions/ and grammars/ unchanged since the previous commit; ABIDOC_E2E=1 forces it)"
  fi
fi

echo
echo "Suites:"
printf '  %s\n' "${results[@]}"
passed=$(( ${#results[@]} - failed ))
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
