#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time each, seeding corpora from the real
# fixtures. Usage: scripts/fuzz.sh [SECONDS_PER_TARGET=60] [TARGET...]
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`). Uses the nightly toolchain when rustup
# has one, else the default (stable) toolchain with RUSTC_BOOTSTRAP=1 (cargo-fuzz passes -Z flags).
# All targets are built once, then each binary runs with -jobs=1 semantics (one process). Exits
# non-zero on the first crash; the crashing input is left in fuzz/artifacts/TARGET/.
# Environment:
#   FUZZ_ARGS="..."       extra libFuzzer flags (e.g. "-fork=1 -ignore_crashes=1" keeps going)
#   FUZZ_BIN_DIR=DIR      run prebuilt target binaries from DIR (no rebuild while sources change)
#   FUZZ_SANITIZER=none   build without AddressSanitizer (faster; CI's short pass uses it)
#   FUZZ_TOOLCHAIN=stable force the default toolchain + RUSTC_BOOTSTRAP=1 even if nightly exists
# Prints a summary line per target with libFuzzer's executions count.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-60}
shift || true
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then
    TARGETS=(scan clean notebook elf fatbin demangle diagnose framing metadata record direct_url version_py render wheel)
fi
TRIPLE=x86_64-unknown-linux-gnu

if [[ -z ${FUZZ_BIN_DIR:-} ]]; then
    if [[ ${FUZZ_TOOLCHAIN:-} != stable ]] && cargo +nightly --version >/dev/null 2>&1; then
        cargo_fuzz=(cargo +nightly fuzz)
    else
        export RUSTC_BOOTSTRAP=1
        cargo_fuzz=(cargo fuzz)
    fi
    if ! "${cargo_fuzz[@]}" --version >/dev/null 2>&1; then
        echo "error: cargo-fuzz is needed: cargo install cargo-fuzz --locked" >&2
        exit 2
    fi
    build_flags=(--release --debug-assertions -s "${FUZZ_SANITIZER:-address}")
    echo "== build ${TARGETS[*]} (${cargo_fuzz[*]} build ${build_flags[*]})"
    start=$SECONDS
    for t in "${TARGETS[@]}"; do
        (cd "$ROOT/fuzz" && "${cargo_fuzz[@]}" build "${build_flags[@]}" "$t")
    done
    echo "== built in $((SECONDS - start)) s"
    FUZZ_BIN_DIR="$ROOT/fuzz/target/$TRIPLE/release"
fi

# Seeds: real tracebacks/logs/notebooks for the text targets, real ELF files for the binary ones,
# real LSP messages carrying the fixtures for the frame guard, the env fixtures' METADATA, RECORD,
# direct_url.json and manifests (checked-in and native) for the environment readers.
fixture_texts() {
    find "$ROOT/tests/fixtures" "$ROOT/examples" "$ROOT/server/lsp/tests/data" -type f \
        \( -name '*.txt' -o -name '*.log' -o -name '*.ipynb' \) -size -256k 2>/dev/null
}
# The native fixture environments (tests/native/build.sh), built once into fuzz/target/native.
native_fixtures() {
    local native="$ROOT/fuzz/target/native"
    if [[ ! -d $native/site-packages ]]; then
        "$ROOT/tests/native/build.sh" "$native" >/dev/null 2>&1 || echo "note: native fixtures not built; seeds from the checked-in fixtures only" >&2
    fi
    echo "$native"
}
# Environment files named like one of "$@" (find -name patterns) from the checked-in env fixtures
# and the native fixture environments, each copied under a hash of its path.
seed_env_files() {
    local dir=$1 native
    shift
    native=$(native_fixtures)
    local expr=()
    for n in "$@"; do expr+=(-o -name "$n"); done
    find "$ROOT/server/env/tests/data" "$native" -type f \( "${expr[@]:1}" \) -size -256k 2>/dev/null |
        while read -r f; do cp -n "$f" "$dir/$(echo "$f" | sha1sum | cut -c1-16)" 2>/dev/null || true; done
}
seed() {
    local target=$1 dir="$ROOT/fuzz/corpus/$1"
    mkdir -p "$dir"
    case $target in
        metadata)
            seed_env_files "$dir" METADATA PKG-INFO requires.txt
            printf 'Metadata-Version: 2.1\nName: torchvision\nVersion: 0.20.1+\xc3\xa9cu121\nRequires-Dist: torch (==2.5.1) ; extra == "x"\n' >"$dir/non-ascii" ;;
        record)
            seed_env_files "$dir" RECORD installed-files.txt SOURCES.txt
            printf '"a,b/c""d.so",sha256=x,1\r\n../../bin/\xc3\xa9,,\n/abs/path.so,,\n' >"$dir/quoted" ;;
        direct_url)
            seed_env_files "$dir" direct_url.json
            printf '{"url": "https://x/flash_attn-2.6.3%%2Bcu12torch2.5\xc3\xa9-cp312-cp312-linux_x86_64.whl", "dir_info": {"editable": true}}' >"$dir/non-ascii" ;;
        version_py)
            seed_env_files "$dir" version.py cpp_lib.json git_version_info_installed.py pyvenv.cfg
            printf "__version__ = '2.5.0+\xc3\xa9'\ncuda: Optional[str] = '12.1'\n" >"$dir/non-ascii" ;;
        render)
            # Fields separated by \x1f: name, version, URL, path (see fuzz_targets/render.rs).
            printf 'torch\x1f2.5.1+cu124\x1fhttps://github.com/x/y/releases/download/v1/a-1-cp312-linux_x86_64.whl\x1f/opt/conda/bin/python3' >"$dir/plain"
            printf "\$(id)\x1f1.0+\xc3\xa9\x1f{os.system('id')}\x1f/tmp/a b'c" >"$dir/hostile"
            printf 'CUDA_HOME\x1f/usr/local/cuda-12.4\x1f/usr/lib/wsl/lib/libcuda.so.1\x1f/home/u/.local/lib/libcuda.so' >"$dir/env" ;;
        scan | clean | diagnose)
            fixture_texts | while read -r f; do cp -n "$f" "$dir/" 2>/dev/null || true; done ;;
        notebook)
            find "$ROOT/tests/fixtures" "$ROOT/examples" "$ROOT/server/lsp/tests/data" -type f -name '*.ipynb' \
                -exec cp -n {} "$dir/" \; 2>/dev/null || true ;;
        fatbin)
            # A hand-built container holding one sm_80 cubin, and the ELF seeds.
            { printf '\x50\xed\x55\xba\x01\x00\x10\x00\x48\x00\x00\x00\x00\x00\x00\x00'
              printf '\x02\x00\x01\x01\x40\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00'
              head -c 12 /dev/zero; printf '\x50\x00\x00\x00'; head -c 32 /dev/zero; printf 'ABCDEFGH'; } >"$dir/one-cubin"
            seed elf; cp -n "$ROOT/fuzz/corpus/elf/"* "$dir/" 2>/dev/null || true ;;
        elf)
            local native
            native=$(native_fixtures)
            { find "$native" -type f \( -name '*.so*' -o -path '*/hostile/*' \) -size -512k 2>/dev/null
              ls /usr/lib/x86_64-linux-gnu/libm.so.6 /usr/lib/x86_64-linux-gnu/libz.so.1 2>/dev/null; } |
                while read -r f; do cp -n "$f" "$dir/$(echo "$f" | sha1sum | cut -c1-16)" 2>/dev/null || true; done ;;
        wheel)
            # Small real wheels: the native fixtures' extensions zipped with their dist-info.
            local native
            native=$(native_fixtures)
            if command -v python3 >/dev/null 2>&1 && [[ -d $native/site-packages ]]; then
                python3 - "$native/site-packages" "$dir" <<'PY' || true
import os, sys, zipfile
sp, out = sys.argv[1:3]
for di in sorted(os.listdir(sp)):
    if not di.endswith(".dist-info"):
        continue
    rows = [l.split(",")[0] for l in open(os.path.join(sp, di, "RECORD")) if l.strip()]
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        with zipfile.ZipFile(os.path.join(out, "%s-%d.whl" % (di, method)), "w", method) as z:
            for r in rows:
                p = os.path.join(sp, r)
                if os.path.isfile(p) and os.path.getsize(p) < 256 << 10:
                    z.write(p, r)
PY
            fi ;;
        demangle)
            # One mangled name per seed, taken from the corpus texts.
            grep -ohE '_Z[A-Za-z0-9_]{4,300}' -r "$ROOT/tests/fixtures" 2>/dev/null | sort -u | head -300 |
                while read -r s; do printf '%s' "$s" >"$dir/$(printf '%s' "$s" | sha1sum | cut -c1-16)"; done
            # The names that made cpp_demangle backtrack for seconds, and the deepest real ones.
            { grep -v '^#' "$ROOT/server/elf/tests/data/demangle_hostile.txt"
              grep -v '^#' "$ROOT/server/elf/tests/data/deep_fallback.tsv" | cut -f1; } | grep . |
                while read -r s; do printf '%s' "$s" >"$dir/$(printf '%s' "$s" | sha1sum | cut -c1-16)"; done ;;
        framing)
            printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}' >"$dir/init"
            printf '{"jsonrpc":"2.0","id":7,"result":null}' >"$dir/response"
            printf '{"jsonrpc":"1.0","id":"a"}' >"$dir/badver"
            printf '{"jsonrpc":"2.0","id":3,"method":"$/setTrace","params":{"value":"off"}}' >"$dir/dollar"
            # didOpen and cellOutputs messages carrying each fixture text, as an editor sends them.
            if command -v python3 >/dev/null 2>&1; then
                fixture_texts | python3 -c '
import hashlib, json, os, sys
out = sys.argv[1]
for path in sys.stdin.read().split("\n"):
    if not path:
        continue
    text = open(path, encoding="utf-8", errors="replace").read()
    msgs = [
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///w/" + os.path.basename(path), "languageId": "log", "version": 1, "text": text}}},
        {"jsonrpc": "2.0", "method": "abidoc/cellOutputs", "params": {"notebookUri": "file:///w/n.ipynb", "cells": [{"cellUri": "vscode-notebook-cell:/w/n.ipynb#C1", "outputs": [{"mime": "application/vnd.code.notebook.stderr", "text": text}]}]}},
    ]
    for m in msgs:
        body = json.dumps(m, ensure_ascii=False).encode()
        with open(os.path.join(out, hashlib.sha1(body).hexdigest()[:16]), "wb") as f:
            f.write(body)
' "$dir"
            fi ;;
    esac
}

summary=()
for t in "${TARGETS[@]}"; do
    seed "$t"
    echo "== fuzz $t for ${SECS}s ($(find "$ROOT/fuzz/corpus/$t" -type f | wc -l) corpus files)"
    mkdir -p "$ROOT/fuzz/artifacts/$t"
    log="$ROOT/fuzz/artifacts/$t.log"
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    flags=(-max_total_time="$SECS" -max_len=262144 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 ${FUZZ_ARGS:-})
    status=0
    (cd "$ROOT/fuzz" && "$FUZZ_BIN_DIR/$t" -artifact_prefix="$ROOT/fuzz/artifacts/$t/" "${flags[@]}" "corpus/$t") >"$log" 2>&1 || status=$?
    execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
    if [[ $status -ne 0 ]]; then
        tail -n 60 "$log" >&2
        echo "== $t: CRASH (exit $status) after ${execs:-?} executions; input in fuzz/artifacts/$t/, log in $log" >&2
        exit 1
    fi
    tail -n 3 "$log"
    summary+=("$t: ${execs:-?} executions in ${SECS}s, no crash")
done
echo "== fuzz summary"
printf '  %s\n' "${summary[@]}"
