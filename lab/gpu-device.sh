#!/usr/bin/env bash
# On-demand, on a machine with an NVIDIA GPU and nvcc (not CI): proves abidoc's GPU-side
# readings against the real thing. A tiny CUDA kernel is built three ways (an sm_80 cubin, an
# sm_90 cubin, sm_80 PTX only), each launched for real (ctypes) and each judged by abidoc without
# running anything: `explain` (its fat binary), `verify` of a wheel holding it (for the GPU the
# driver's files name, and for `--gpu` with the capability nvidia-smi reports). Then `scan` and
# `explain` of the machine's own torch environment, and every distribution with a shared object
# imported for real (lab/import_referee.py) against what the scan put at error. Writes
# $OUT/report.txt, $OUT/scan.txt, $OUT/imports.txt/json,
# $OUT/scan.json.
#   ABIDOC=target/devbin/abidoc OUT=/tmp/out lab/gpu-device.sh
set -u
A=$(realpath "${ABIDOC:-target/devbin/abidoc}")
OUT=${OUT:-/tmp/abidoc-gpu-out}
mkdir -p "$OUT"
W=$(mktemp -d)
PY=${PYTHON:-python3}
exec > >(tee "$OUT/report.txt") 2>&1
echo "## machine ($(date -u +%Y-%m-%dT%H:%MZ))"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' ')
nvcc --version | tail -2
echo "## /proc/driver/nvidia (what abidoc reads; it never runs nvidia-smi)"
head -3 /proc/driver/nvidia/version 2>&1
cat /proc/driver/nvidia/gpus/*/information 2>&1 | head -3
cat > "$W/k.cu" <<'EOF'
#include <cuda_runtime.h>
__global__ void k(int *p) { *p = 42; }
extern "C" const char *run(void) {
  int *d = 0, h = 0;
  if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) return "cudaMalloc failed";
  k<<<1, 1>>>(d);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return cudaGetErrorString(e);
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  return h == 42 ? "kernel ran" : "kernel ran, wrong result";
}
EOF
mkdir -p "$W/empty"
for v in "sm80:-gencode=arch=compute_80,code=sm_80" "sm90:-gencode=arch=compute_90,code=sm_90" "ptx80:-gencode=arch=compute_80,code=compute_80"; do
  name=${v%%:*}; flags=${v#*:}
  d="$W/$name/tree/kk$name"; mkdir -p "$d"
  echo; echo "## $name ($flags)"
  nvcc -shared -Xcompiler -fPIC $flags -o "$d/libk.so" "$W/k.cu" || { echo "nvcc failed"; continue; }
  echo -n "real launch: "
  timeout 60 $PY -c 'import ctypes,sys; l=ctypes.CDLL(sys.argv[1]); l.run.restype=ctypes.c_char_p; print(l.run().decode())' "$d/libk.so"
  echo -n "abidoc explain: "; "$A" explain --no-env --color never "$d/libk.so" | grep -i "GPU code"
  whl="$W/$name/kk$name-1.0-py3-none-linux_x86_64.whl"
  $PY - "$W/$name/tree" "$whl" "kk$name" <<'EOF'
import sys, zipfile, os
tree, out, name = sys.argv[1:4]
di = f"{name}-1.0.dist-info"
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk(tree):
        for f in files:
            p = os.path.join(root, f)
            z.write(p, os.path.relpath(p, tree))
    z.writestr(f"{di}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    z.writestr(f"{di}/WHEEL", "Wheel-Version: 1.0\nGenerator: abidoc-lab\nRoot-Is-Purelib: false\nTag: py3-none-linux_x86_64\n")
    z.writestr(f"{di}/RECORD", "")
EOF
  echo "abidoc verify (GPU from the driver's files):"
  "$A" verify --site-packages "$W/empty" --color never "$whl" 2>&1 | grep -v "^$" | head -6; echo "exit ${PIPESTATUS[0]}"
  echo "abidoc verify --gpu $CAP:"
  "$A" verify --site-packages "$W/empty" --color never --gpu "$CAP" "$whl" 2>&1 | grep -v "^$" | head -6; echo "exit ${PIPESTATUS[0]}"
done
echo; echo "## the machine's torch environment"
TP=$($PY -c 'import sys; print(sys.executable)')
$PY -c 'import torch; print("torch", torch.__version__, "arch list", torch.cuda.get_arch_list())' 2>&1 | tail -1
TL=$($PY -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null)
echo -n "abidoc explain libtorch_cuda.so: "; "$A" explain --no-env --color never "$TL/libtorch_cuda.so" 2>&1 | grep -i "GPU code"
start=$(date +%s%N)
timeout 300 "$A" scan --python "$TP" --no-cache --color never > "$OUT/scan.txt" 2>&1; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "abidoc scan --python $TP: exit $rc, $(wc -l < "$OUT/scan.txt") lines, ${ms} ms"
head -60 "$OUT/scan.txt"
timeout 300 "$A" scan --python "$TP" --no-cache --format json > "$OUT/scan.json" 2>/dev/null
$PY - "$OUT/scan.json" <<'EOF'
import json, sys, collections
d = json.load(open(sys.argv[1]))
c = collections.Counter((x["severity"], x["code"]) for x in d.get("diagnostics", []))
for (s, code), n in sorted(c.items()):
    print(f"  {s:12} {code:28} {n}")
EOF
echo; echo "## the real import as referee (lab/import_referee.py)"
timeout 600 $PY "$(dirname "$0")/import_referee.py" "$OUT/scan.json" "$OUT/imports"
