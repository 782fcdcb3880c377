#!/usr/bin/env bash
# Builds the Python package (python/) as `pip` builds it, against this build of the runtime:
# installs the build tree into BUILD/python/prefix, builds the wheel into BUILD/python/wheel with
# scikit-build-core (from the test environment, no build isolation: nothing downloads), and
# installs it into the test environment.
# Usage: build_package.sh BUILD_DIR PYTHON
set -euo pipefail
build=$(realpath "$1")
python=$2
source=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$build/python/prefix" "$build/python/wheel"
cmake --install "$build" --prefix "$build/python/prefix" >/dev/null
"$python" -m pip wheel --quiet --disable-pip-version-check --no-build-isolation --no-deps \
  --wheel-dir "$build/python/wheel" "$source/python" \
  -Ccmake.define.CMAKE_PREFIX_PATH="$build/python/prefix" -Cbuild-dir="$build/python/cmake"
"$python" -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall \
  "$build"/python/wheel/xport-*.whl
ls -l "$build"/python/wheel/xport-*.whl
