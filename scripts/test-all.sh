#!/usr/bin/env bash
# Runs every test suite of the project. This is the README's test command and what CI runs.
# It installs what the suites need (npm and PyPI packages) into project-local directories.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TERM_COLOR=never
# A CI tree is built once: incremental caches would only add gigabytes to its disk.
[ "${CI:-}" = true ] && export CARGO_INCREMENTAL=0
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
# A short coverage-guided fuzz pass: every cargo-fuzz target in fuzz/ for ABIDOC_FUZZ_SECONDS
# (default 15) on seeds from the real fixtures, built without ASan at opt-level 1 so the build
# stays short; a crash fails the suite (the input is kept in fuzz/artifacts/TARGET/). cargo-fuzz
# is installed into target/tools when missing (about a minute on 2 cores). ABIDOC_FUZZ=0 skips it.
fuzz_pass() {
  if ! cargo fuzz --version >/dev/null 2>&1; then
    if [ ! -x "$root/target/tools/bin/cargo-fuzz" ]; then
      cargo install cargo-fuzz --locked --root "$root/target/tools" || return 1
    fi
    export PATH="$root/target/tools/bin:$PATH"
  fi
  FUZZ_TOOLCHAIN=stable FUZZ_SANITIZER=none CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
    CARGO_PROFILE_RELEASE_DEBUG=line-tables-only scripts/fuzz.sh "${ABIDOC_FUZZ_SECONDS:-15}"
}
[ "${ABIDOC_FUZZ:-1}" != 0 ] && run "fuzz (short pass, every target)" fuzz_pass
# The screenshot tests (the VS Code scan report, the Jupyter display) lay pages out in a headless
# Chromium: Debian's, installed here when missing, as the end-to-end test installs it. Where it
# cannot be installed (no apt, no root) those two tests skip, saying so. ABIDOC_CHROMIUM=0 skips this.
ensure_chromium() {
  command -v chromium >/dev/null && return 0
  command -v apt-get >/dev/null || return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo -n true 2>/dev/null || return 0
    sudo="sudo -n"
  fi
  echo "::: apt-get install chromium (for the screenshot tests)"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null; } \
    || echo "::: chromium could not be installed: the screenshot tests skip"
}
[ "${ABIDOC_CHROMIUM:-1}" != 0 ] && ensure_chromium
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
