#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time each, seeding corpora from the real
# fixtures. Usage: scripts/fuzz.sh [SECONDS_PER_TARGET=60] [TARGET...]
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Exits non-zero on the
# first crash; the crashing input is left in fuzz/artifacts/TARGET/. Extra libFuzzer flags come
# from FUZZ_ARGS (e.g. FUZZ_ARGS="-fork=1 -ignore_crashes=1" keeps going past crashes).
# FUZZ_BIN_DIR=DIR runs prebuilt target binaries from DIR instead of `cargo fuzz run` (no rebuild
# while the sources change under a long run).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${1:-60}
shift || true
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then
    TARGETS=(scan clean notebook elf demangle diagnose framing)
fi

if [[ -z ${FUZZ_BIN_DIR:-} ]] && ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "error: cargo-fuzz on the nightly toolchain is needed: rustup toolchain install nightly && cargo install cargo-fuzz" >&2
    exit 2
fi

# Seeds: real tracebacks/logs/notebooks for the text targets, real ELF files for the binary ones.
seed() {
    local target=$1 dir="$ROOT/fuzz/corpus/$1"
    mkdir -p "$dir"
    case $target in
        scan | clean | diagnose)
            find "$ROOT/tests/fixtures" "$ROOT/examples" -type f \( -name '*.txt' -o -name '*.log' -o -name '*.ipynb' \) \
                -size -256k -exec cp -n {} "$dir/" \; ;;
        notebook)
            find "$ROOT/tests/fixtures" "$ROOT/examples" -type f -name '*.ipynb' -exec cp -n {} "$dir/" \; ;;
        elf)
            local native="$ROOT/fuzz/target/native"
            if [[ ! -d $native/site-packages ]]; then
                "$ROOT/tests/native/build.sh" "$native" >/dev/null 2>&1 || echo "note: native fixtures not built; elf seeds from system libraries only" >&2
            fi
            { find "$native" -type f \( -name '*.so*' -o -path '*/hostile/*' \) -size -512k 2>/dev/null
              ls /usr/lib/x86_64-linux-gnu/libm.so.6 /usr/lib/x86_64-linux-gnu/libz.so.1 2>/dev/null; } |
                while read -r f; do cp -n "$f" "$dir/$(echo "$f" | sha1sum | cut -c1-16)" 2>/dev/null || true; done ;;
        demangle)
            # One mangled name per seed, taken from the corpus texts.
            grep -ohE '_Z[A-Za-z0-9_]{4,300}' -r "$ROOT/tests/fixtures" 2>/dev/null | sort -u | head -300 |
                while read -r s; do printf '%s' "$s" >"$dir/$(printf '%s' "$s" | sha1sum | cut -c1-16)"; done ;;
        framing)
            printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}' >"$dir/init"
            printf '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.log","languageId":"log","version":1,"text":"x"}}}' >"$dir/open"
            printf '{"jsonrpc":"2.0","id":7,"result":null}' >"$dir/response"
            printf '{"jsonrpc":"1.0","id":"a"}' >"$dir/badver" ;;
    esac
}

for t in "${TARGETS[@]}"; do
    seed "$t"
    echo "== fuzz $t for ${SECS}s"
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    flags=(-max_total_time="$SECS" -max_len=262144 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 ${FUZZ_ARGS:-})
    if [[ -n ${FUZZ_BIN_DIR:-} ]]; then
        mkdir -p "$ROOT/fuzz/artifacts/$t"
        (cd "$ROOT/fuzz" && "$FUZZ_BIN_DIR/$t" -artifact_prefix="$ROOT/fuzz/artifacts/$t/" "${flags[@]}" "corpus/$t")
    else
        (cd "$ROOT/fuzz" && cargo +nightly fuzz run "$t" "corpus/$t" -- "${flags[@]}")
    fi
done
