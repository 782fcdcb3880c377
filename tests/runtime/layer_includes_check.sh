#!/usr/bin/env bash
# Fails when a file of one layer includes a header of a layer it may not depend on (DESIGN.md
# §1: a lower layer never includes or links a higher one), or names a public header by its old
# flat path (include/xport/NAME.h, kept only to forward to the layer's folder).
#   layer_includes_check.sh SOURCE_DIR
# Checked: src/ (a layer per folder, ir/passes its own), include/xport/LAYER/, exportdb/ and the
# Python package's bindings. A header's layer is its folder: "xport/LAYER/..." or a private
# "LAYER/..." under src/; xport/runtime.h is the runtime's umbrella, xport/xport.h everything's,
# xport/aten.h (typed eager ops) and xport/kernels.h (typed kernels) are generated.
set -euo pipefail
root=$1
source "$(dirname "${BASH_SOURCE[0]}")/layers.sh"
allowed[python]="core tensor kernels ops text ir ir/passes program serde runtime"
cd "$root"

layer_of_file() {
  case "$1" in
    src/ir/passes/*) echo ir/passes ;;
    src/*) cut -d/ -f2 <<<"$1" ;;
    include/xport/*/*) cut -d/ -f3 <<<"$1" ;;
    exportdb/*) echo exportdb ;;
    python/*) echo python ;;
  esac
}

layer_of_include() {
  case "$1" in
    xport/xport.h) echo all ;;
    xport/runtime.h) echo runtime ;;
    xport/aten.h) echo ops ;;
    xport/kernels.h) echo kernels ;;
    xport/*/*) cut -d/ -f2 <<<"$1" ;;
    xport/*) echo flat ;;
    src/ir/passes/*) echo ir/passes ;;
    src/*) cut -d/ -f2 <<<"$1" ;;
    ir/passes/*) echo ir/passes ;;
    */*) local first=${1%%/*}; [[ -n "${allowed[$first]+x}" ]] && echo "$first" ;;
  esac
  return 0
}

status=0
files=0
includes=0
while IFS= read -r f; do
  layer=$(layer_of_file "$f")
  if [[ -z "${allowed[$layer]+x}" ]]; then
    echo "$f is in no known layer ($layer): update tests/runtime/layers.sh"
    status=1
    continue
  fi
  files=$((files + 1))
  while IFS=: read -r line header; do
    target=$(layer_of_include "$header")
    [[ -z "$target" ]] && continue
    includes=$((includes + 1))
    if [[ "$target" == flat ]]; then
      echo "$f:$line: includes $header, the old path; include its layer's header (xport/LAYER/...)"
      status=1
    elif [[ "$target" == all && "$layer" != exportdb ]]; then
      echo "$f:$line: includes xport/xport.h (every layer); include the headers it uses"
      status=1
    elif [[ "$target" != all && "$target" != "$layer" && " ${allowed[$layer]} " != *" $target "* ]]
    then
      echo "$f:$line: layer '$layer' includes $header of layer '$target', which it may not use"
      status=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$f" |
           paste -d: <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$f" | cut -d: -f1) -)
done < <(find src include/xport exportdb python/bindings -type f \( -name '*.h' -o -name '*.cpp' \) \
           ! -path 'include/xport/*.h' -o -type f -path 'include/xport/*/*.h' | sort -u)
[[ $status == 0 ]] && echo "$files files, $includes includes of xport's headers: each uses only its layer and those below"
exit $status
