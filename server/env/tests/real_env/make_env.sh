#!/usr/bin/env bash
# Builds a REAL broken environment from PyPI and compares `abidoc scan` with the real loader.
# NOT run in CI: it downloads several GB (torch 2.10 with its CUDA wheels). See README.md.
#
#   server/env/tests/real_env/make_env.sh WORKDIR [ABIDOC_BINARY]
#
# WORKDIR/venv      torch 2.10.0 (from PyPI), then torchvision 0.20.1 and torchaudio 2.5.1
#                   (built for torch 2.5.1) installed with --no-deps, so pip does not "fix" them.
# WORKDIR/scan.json `abidoc scan --python WORKDIR/venv/bin/python --format json`
# WORKDIR/loader.json the real loader's verdict per library (ctypes.CDLL after `import torch`)
# Exit status: 0 when abidoc and the loader agree on every library, 1 otherwise.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 WORKDIR [ABIDOC_BINARY]" >&2
    exit 2
fi
WORK=$(mkdir -p "$1" && cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
ABIDOC=${2:-}
PYTHON=${PYTHON:-python3}
TORCH_VERSION=${TORCH_VERSION:-2.10.0}
OLD_TORCH=${OLD_TORCH:-2.5.1}
TORCHVISION_VERSION=${TORCHVISION_VERSION:-0.20.1}
TORCHAUDIO_VERSION=${TORCHAUDIO_VERSION:-2.5.1}

if [[ ! -x "$WORK/venv/bin/python" ]]; then
    "$PYTHON" -m venv "$WORK/venv"
fi
VPY="$WORK/venv/bin/python"
"$VPY" -m pip install --upgrade pip
# The new torch, with its dependencies (nvidia-* wheels, triton …).
"$VPY" -m pip install "torch==$TORCH_VERSION"
# The old companions, built against torch $OLD_TORCH: --no-deps keeps pip from replacing torch.
"$VPY" -m pip install --no-deps "torchvision==$TORCHVISION_VERSION" "torchaudio==$TORCHAUDIO_VERSION"
"$VPY" -m pip list --format=freeze >"$WORK/pip-freeze.txt"

if [[ -z "$ABIDOC" ]]; then
    (cd "$ROOT" && cargo build --release -p abidoc)
    ABIDOC="$ROOT/target/release/abidoc"
fi

# abidoc exits 1 when it finds errors; that is expected here.
set +e
"$ABIDOC" scan --python "$VPY" --format json >"$WORK/scan.json"
status=$?
set -e
if [[ $status -ge 2 ]]; then
    echo "abidoc scan could not run (exit $status)" >&2
    exit 2
fi

"$VPY" "$HERE/real_loader.py" "$WORK/loader.json"
"$VPY" "$HERE/compare.py" "$WORK/scan.json" "$WORK/loader.json"
