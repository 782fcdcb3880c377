#!/usr/bin/env bash
# What a user does: a fresh virtual environment, `pip install` of the package's wheel (with NumPy
# from the test environment's wheelhouse: nothing downloads), then a script that loads a .pt2
# PyTorch wrote, runs it on NumPy inputs and matches PyTorch's outputs, in an environment where
# torch cannot be imported at all.
# Usage: fresh_venv_check.sh BUILD_DIR TEST_PYTHON
set -euo pipefail
build=$(realpath "$1")
test_python=$2
base=$("$test_python" -c 'import sys; print(sys._base_executable)')
venv="$build/python/fresh-venv"
rm -rf "$venv"
"$base" -m venv "$venv"
wheelhouse="$(dirname "$(dirname "$test_python")")/wheelhouse"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index \
  --find-links "$wheelhouse" "$build"/python/wheel/xport-*.whl
cd "$build/torch_pt2/gpt2_dynamic"
"$venv/bin/python" - <<'PY'
import importlib.util, sys
import numpy as np
import xport
assert importlib.util.find_spec("torch") is None, "torch is installed in the fresh environment"
program = xport.load("model.pt2")
for run in range(3):
    tokens = np.load("run%d_in0.npy" % run)
    logits = program(tokens)
    expected = np.load("run%d_out0.npy" % run)
    logits = logits[0] if isinstance(logits, tuple) else logits
    err = float(np.max(np.abs(logits - expected)))
    assert err <= 1e-4 * max(1.0, float(np.max(np.abs(expected)))), err
    print("GPT-2 (torch.export.save), tokens %s: max |xport - torch| = %.2g" % (tokens.shape, err))
assert "torch" not in sys.modules
print("fresh environment: %s without torch" % xport.__file__)
PY
