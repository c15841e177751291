#!/usr/bin/env bash
# Builds the abidoc wheel with maturin, installs it into a virtualenv with a Jupyter kernel, and
# runs tests/ (a real notebook executed by a real kernel, plus the pure helpers).
#
# Needs: python3 (3.8+, 3.11 preferred) with venv + pip, cargo, a C++ compiler, and PyPI.
# Caches: the build venv (maturin) and the test venv live under $CARGO_TARGET_DIR (default
# target/) and are reused while their requirements and interpreter are unchanged; the wheel is
# rebuilt (incrementally, sharing cargo's target dir) and reinstalled on every run.
#
# Environment: ABIDOC_TEST_PYTHON (interpreter), ABIDOC_WHEEL_PROFILE=dev|release (default dev,
# at the test profile's opt-level so it reuses what `cargo test` compiled), ABIDOC_KEEP_NOTEBOOK=
# FILE (keep the executed notebook). Extra arguments go to pytest.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
python=${ABIDOC_TEST_PYTHON:-$(command -v python3.11 || command -v python3)}
profile=${ABIDOC_WHEEL_PROFILE:-dev}
build_venv=$target/py-build-venv
test_venv=$target/py-test-venv
wheel_dir=$target/py-wheels
started=$(date +%s)

say() { echo "[abidoc test.sh +$(($(date +%s) - started))s] $*" >&2; }

# ensure_venv DIR KEY PIP_ARGS...: (re)create DIR unless it was made by this interpreter with the
# same KEY and PIP_ARGS.
ensure_venv() {
    local dir=$1 extra=$2
    shift 2
    local key
    key=$({ "$python" -c 'import sys; print(sys.version, sys.executable)'; printf '%s\n' "$extra" "$@"; } | sha256sum | cut -c1-16)
    if [[ -f $dir/.abidoc-key && $(cat "$dir/.abidoc-key") == "$key" ]] && "$dir/bin/python" -c '' 2>/dev/null; then
        say "reusing $dir"
        return
    fi
    say "creating $dir"
    rm -rf "$dir"
    if ! "$python" -m venv "$dir"; then
        say "$python cannot create a virtualenv (on Debian/Ubuntu: apt-get install python3-venv)"
        exit 1
    fi
    "$dir/bin/python" -m pip install -q --disable-pip-version-check "$@"
    echo "$key" >"$dir/.abidoc-key"
}

mkdir -p "$target"
ensure_venv "$build_venv" "" "maturin>=1.5,<2"
# The requirements file's content is part of the key, so editing it rebuilds the venv.
ensure_venv "$test_venv" "$(cat "$here/tests/requirements.txt")" -r "$here/tests/requirements.txt"

say "building the wheel (profile $profile)"
rm -rf "$wheel_dir"
# --locked: like the workspace's own test command, never rewrite the shared Cargo.lock.
build_args=(build --locked --out "$wheel_dir")
if [[ $profile == release ]]; then
    build_args+=(--release)
else
    # The workspace's test profile is the dev profile at opt-level 1; cargo's artifact hashes
    # ignore the profile's name, so matching it here reuses everything `cargo test --workspace`
    # already compiled instead of building the whole tree a second time.
    export CARGO_PROFILE_DEV_OPT_LEVEL=${CARGO_PROFILE_DEV_OPT_LEVEL:-1}
fi
build_log=$target/py-wheel-build.log
if ! (cd "$here" && CARGO_TARGET_DIR=$target "$build_venv/bin/maturin" "${build_args[@]}") >"$build_log" 2>&1; then
    tail -n 40 "$build_log" >&2
    say "maturin build failed (full log: $build_log)"
    exit 1
fi
wheel=$(find "$wheel_dir" -name 'abidoc-*.whl' | head -n1)
[[ -n $wheel ]] || { say "maturin produced no wheel (log: $build_log)"; exit 1; }

say "installing $(basename "$wheel")"
"$test_venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"

say "running the tests"
status=0
(cd "$here" && PYTHONDONTWRITEBYTECODE=1 "$test_venv/bin/python" -m pytest -q "$@") || status=$?
say "done in $(($(date +%s) - started))s (pytest exit $status)"
exit $status
