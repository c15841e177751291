#!/usr/bin/env bash
# Prepares the real benchmark data set under bench/data/ (cached: each step is skipped when done).
# NOT run in CI: it downloads several GB from PyPI.
#
# bench/data/venv   a recent torch (default PyPI wheel, with its nvidia-* dependencies), then
#                   torchvision / torchaudio built for an older torch and xformers, all installed
#                   with --no-deps so pip does not "fix" the mismatch; numpy and scipy.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DATA="$HERE/data"
PYTHON=${PYTHON:-python3}
TORCH_VERSION=${TORCH_VERSION:-2.10.0}
TORCHVISION_VERSION=${TORCHVISION_VERSION:-0.20.1}   # built for torch 2.5.1
TORCHAUDIO_VERSION=${TORCHAUDIO_VERSION:-2.5.1}
XFORMERS_VERSION=${XFORMERS_VERSION:-0.0.28.post3}   # built for torch 2.5.1
mkdir -p "$DATA"
if [[ ! -f "$DATA/venv/.ready" ]]; then
    [[ -x "$DATA/venv/bin/python" ]] || "$PYTHON" -m venv "$DATA/venv"
    VPY="$DATA/venv/bin/python"
    "$VPY" -m pip install -q --upgrade pip
    "$VPY" -m pip install -q "torch==$TORCH_VERSION" numpy scipy
    "$VPY" -m pip install -q --no-deps "torchvision==$TORCHVISION_VERSION" \
        "torchaudio==$TORCHAUDIO_VERSION" "xformers==$XFORMERS_VERSION"
    "$VPY" -m pip list --format=freeze >"$DATA/pip-freeze.txt"
    touch "$DATA/venv/.ready"
fi
