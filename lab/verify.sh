#!/usr/bin/env bash
# `abidoc verify` checked by the real loader on real PyPI wheels (lab/verify.py). NOT run in CI.
#
#   lab/verify.sh [--only NAME]... [--abidoc PATH] [--keep] [--list]
#   lab/verify.sh --index [--only NAME]... [--abidoc PATH] [--list]   # offline index, no env
#
# Reuses the lab's base environments ($LAB_ENVS) and pip cache; wheels go to $LAB_CACHE/wheels.
# Writes lab/verify-results.json and docs/verify-verified.md (--index: lab/verify-index-results.json).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export LAB_ENVS=${LAB_ENVS:-/work/lab-envs}
export PIP_CACHE_DIR=${PIP_CACHE_DIR:-/work/lab-cache/pip}
export LAB_PYTHON=${LAB_PYTHON:-python3.11}
command -v "$LAB_PYTHON" >/dev/null || LAB_PYTHON=python3
exec python3 "$HERE/verify.py" "$@"
