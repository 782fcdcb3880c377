#!/usr/bin/env bash
# Fails when the runtime library holds capture code; reports its size on disk.
#   runtime_symbols_check.sh NM libxport_runtime.a libxport.a
# Every symbol the runtime archive defines or references is matched against what only capture
# (and the nn layer above it) provides. Each pattern must match in the capture library, so the
# check cannot pass because a pattern went stale.
set -euo pipefail
nm_tool=$1 runtime_lib=$2 capture_lib=$3
patterns=(
  'xport::capture::'       # tracer, ShapeEnv, guards, call sites
  'xport::export_program'  # the capture entry points
  'xport::Dim::'           # dynamic dims exist only at capture time
  'run_decompositions'     # decomposition replays the tracer
  'xport::nn::'            # modules and layers (eager model code)
  'dwfl_'                  # libdw, the call-site symbolizer's dependency
)
runtime_symbols=$("$nm_tool" -C "$runtime_lib")
capture_symbols=$("$nm_tool" -C "$capture_lib")
status=0
for p in "${patterns[@]}"; do
  if ! grep -qF -- "$p" <<<"$capture_symbols"; then
    echo "pattern '$p' matches nothing in $capture_lib: update this check"
    status=1
  fi
  if hits=$(grep -F -- "$p" <<<"$runtime_symbols"); then
    echo "capture code in the runtime ($p):"
    head -5 <<<"$hits"
    status=1
  fi
done
if [[ $status -eq 0 ]]; then
  echo "runtime library $runtime_lib: $(( $(stat -c %s "$runtime_lib") / 1024 )) KiB on disk," \
       "$(wc -l <<<"$runtime_symbols") symbol lines, no capture code;" \
       "capture and nn ($capture_lib) add $(( $(stat -c %s "$capture_lib") / 1024 )) KiB"
fi
exit $status
