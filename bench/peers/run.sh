#!/usr/bin/env bash
# The peer benchmark: one program exported by PyTorch 2.13 per row (the reference MLP, Hugging
# Face's ResNet-50, BERT-base and GPT-2), run by PyTorch eager, torch.compile, AOTInductor, ONNX
# Runtime, OpenVINO, ExecuTorch (where it imports), the xport runtime and `xport compile`'s
# library, 2 threads each, interleaved; prints a table of latencies and one of peak RSS
# (bench/peers/peers.py describes them). Options go to peers.py:
#   bench/peers/run.sh [--rows REGEX] [--rounds R] [--runs K] [--min-time S] [--quick] ...
# BUILD (default build) is the configured release build; the xport tool and xport_peer_bench must
# be built. PYTHON (default BUILD/venv/bin/python, made by `make venv`) has PyTorch 2.13,
# transformers, onnxruntime and openvino.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$root" && realpath -m "${BUILD:-build}")
python=${PYTHON:-$build/venv/bin/python}

if [ ! -x "$python" ]; then
  echo "run.sh: $python is missing; run make venv" >&2
  exit 1
fi
for f in "$build/xport" "$build/bench/xport_peer_bench"; do
  if [ ! -x "$f" ]; then
    echo "run.sh: $f is missing; run make build (or cmake --build $build --target xport" \
      "xport_peer_bench)" >&2
    exit 1
  fi
done
PYTHON=$python exec "$python" "$root/bench/peers/peers.py" --build "$build" "$@"
