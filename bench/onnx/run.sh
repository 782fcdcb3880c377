#!/usr/bin/env bash
# ONNX export beside PyTorch's (bench/onnx/compare_onnx.py describes the table):
#   bench/onnx/run.sh [--rows REGEX] [--rounds R] [--exports E] [--tolerance T] [--quick]
# BUILD (default build) is the configured release build with the xport tool and
# xport_peer_bench built; PYTHON (default BUILD/venv/bin/python) has PyTorch 2.13, onnxscript
# and onnxruntime.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$root" && realpath -m "${BUILD:-build}")
python=${PYTHON:-$build/venv/bin/python}
for f in "$python" "$build/xport" "$build/bench/xport_peer_bench"; do
  if [ ! -x "$f" ]; then
    echo "run.sh: $f is missing; run make build venv" >&2
    exit 1
  fi
done
PYTHON=$python exec "$python" "$root/bench/onnx/compare_onnx.py" --build "$build" "$@"
