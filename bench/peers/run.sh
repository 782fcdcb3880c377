#!/usr/bin/env bash
# The peer benchmark: MLP, ResNet-50, BERT-base and GPT-2 with the same weights in PyTorch eager,
# torch.compile, AOTInductor, ONNX Runtime and the xport runtime, 2 threads each, interleaved;
# prints one table (bench/peers/peers.py describes it). Options go to peers.py:
#   bench/peers/run.sh [--rows REGEX] [--rounds R] [--runs K] [--min-time S] [--quick] ...
# BUILD (default build) is the configured release build; xport_peer_bench must be built. PYTHON
# (default BUILD/venv/bin/python, made by `make venv`) has PyTorch 2.13 and onnxruntime.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$root" && realpath -m "${BUILD:-build}")
python=${PYTHON:-$build/venv/bin/python}

if [ ! -x "$python" ]; then
  echo "run.sh: $python is missing; run make venv" >&2
  exit 1
fi
if [ ! -x "$build/bench/xport_peer_bench" ]; then
  echo "run.sh: $build/bench/xport_peer_bench is missing; run make build (or" \
    "cmake --build $build --target xport_peer_bench)" >&2
  exit 1
fi
PYTHON=$python exec "$python" "$root/bench/peers/peers.py" --build "$build" "$@"
