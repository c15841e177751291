#!/usr/bin/env bash
# abidoc fix laboratory: real broken environments from PyPI, the preferred fix applied in a
# hard-link copy, the dynamic loader as referee. NOT run in CI (downloads several GB).
#
#   lab/run.sh [--only NAME]... [--abidoc PATH] [--keep] [--list]
#
# Idempotent: environments under $LAB_ENVS (default /work/lab-envs) are reused when their recipe
# has not changed; pip downloads are cached in $PIP_CACHE_DIR (default /work/lab-cache/pip).
# Writes lab/results.json and docs/fixes-verified.md (rows of scenarios not re-run are kept).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export LAB_ENVS=${LAB_ENVS:-/work/lab-envs}
export PIP_CACHE_DIR=${PIP_CACHE_DIR:-/work/lab-cache/pip}
# The base environments are made with this interpreter (the wheels' cp tag must match: 3.11).
export LAB_PYTHON=${LAB_PYTHON:-python3.11}
command -v "$LAB_PYTHON" >/dev/null || LAB_PYTHON=python3
exec python3 "$HERE/lab.py" "$@"
