#!/usr/bin/env bash
# Installs the build tree into a scratch prefix and builds a consumer project against it with
# find_package(xport CONFIG REQUIRED), as a user would.
set -euo pipefail
build_dir=$1
source_dir=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source_dir/consumer" -B "$scratch/build" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build" >/dev/null
(cd "$scratch" && "$scratch/build/consumer")
"$scratch/build/runtime_consumer"
(cd "$scratch" && "$scratch/build/libtorch_habits")
(cd "$scratch" && "$scratch/build/control_flow")
(cd "$scratch" && "$scratch/build/onnx_export")
for program in guard_lines guard_lines_debug guard_lines_no_debug_info; do
  "$scratch/build/$program"
done
test -x "$scratch/prefix/bin/xport"
# The installed tool loads a custom-op library built against the installed headers.
# (grep reads it all: `grep -q` would stop at the match, and the tool's write into the closed pipe
# would fail the pipeline.)
"$scratch/prefix/bin/xport" ops --ops "$scratch/build/libconsumer_ops.so" |
  grep -F "consumer::double_it(Tensor x) -> Tensor  custom" >/dev/null
echo "install check passed"
