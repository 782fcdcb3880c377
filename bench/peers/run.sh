#!/usr/bin/env bash
# The peer benchmark: MLP, ResNet-50, BERT-base and GPT-2 with the same weights in PyTorch eager,
# TorchScript, ONNX Runtime (onnxruntime-node) and the xport runtime, 2 threads each, interleaved;
# prints one table (bench/peers/peers.py describes it). Options go to peers.py:
#   bench/peers/run.sh [--rows REGEX] [--rounds R] [--runs K] [--min-time S] [--quick] ...
# BUILD (default build) is the configured release build; xport_peer_bench must be built.
# Installs onnxruntime-node into BUILD/peers/node_modules when it is missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$root" && realpath -m "${BUILD:-build}")
peers=$build/peers
ort_version=1.30.0
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}  # OpenBLAS misdetects this CPU otherwise

installed=$(node -p "require('$peers/node_modules/onnxruntime-node/package.json').version" \
  2>/dev/null || true)
if [ "$installed" != "$ort_version" ]; then
  echo "run.sh: installing onnxruntime-node@$ort_version into $peers/node_modules" >&2
  mkdir -p "$peers"
  [ -f "$peers/package.json" ] || echo '{"private": true}' > "$peers/package.json"
  # The package's install script downloads GPU libraries (and fails offline); the CPU library
  # ships inside the package.
  (cd "$peers" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund \
    --loglevel=error "onnxruntime-node@$ort_version")
fi

if [ ! -x "$build/bench/xport_peer_bench" ]; then
  echo "run.sh: $build/bench/xport_peer_bench is missing; run make build (or" \
    "cmake --build $build --target xport_peer_bench)" >&2
  exit 1
fi
exec /usr/bin/python3 "$root/bench/peers/peers.py" --build "$build" "$@"
