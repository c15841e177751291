#!/usr/bin/env bash
# abidoc vs nm / ldd -r / c++filt / grep on a real environment. NOT run in CI (downloads GBs).
#
#   bench/run.sh [STEP...]     STEP: exports one_extension whole_env demangle check lsp (default: all)
#
# Prepares bench/data/ (cached), builds abidoc and the bench-only helper (bench/tools, not a
# workspace member), runs every comparison with medians over repeated runs, and writes
# bench/out/results.json, docs/benchmarks.md and docs/benchmarks.json.
# BENCH_QUICK=1 uses fewer repetitions. BENCH_LOG_BYTES / BENCH_NOTEBOOK_BYTES change the input sizes.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
mkdir -p "$HERE/out"

"$HERE/prepare.sh"
(cd "$ROOT" && cargo build --release -p abidoc)
# A private copy: the target directory is shared, another build must not swap the binary mid-run.
cp "$ROOT/target/release/abidoc" "$HERE/out/abidoc"
git -C "$ROOT" rev-parse HEAD >"$HERE/out/abidoc.commit"
export ABIDOC="$HERE/out/abidoc"
(cd "$HERE/tools" && CARGO_TARGET_DIR="$ROOT/target/bench-tools" cargo build --release)

VPY="$HERE/data/venv/bin/python"
# The real loader's verdict per library (one child process per library: import torch, then
# dlopen with RTLD_NOW), the ground truth for false positives. Slow, so cached.
if [[ ! -f "$HERE/data/loader.json" ]]; then
    "$VPY" "$ROOT/server/env/tests/real_env/real_loader.py" "$HERE/data/loader.json.tmp" 2>/dev/null
    mv "$HERE/data/loader.json.tmp" "$HERE/data/loader.json"
fi

python3 "$HERE/bench.py" "$@"
python3 "$HERE/report.py" "$HERE/out/results.json" "$ROOT/docs/benchmarks.md" "$ROOT/docs/benchmarks.json"
