#!/usr/bin/env bash
# Fails when an object file of one layer uses a symbol defined by a layer it may not depend on
# (DESIGN.md §1: a lower layer never includes or links a higher one).
#   layer_links_check.sh NM "OBJECTS;OBJECTS;..." (the objects of xport_runtime and xport)
# An object's layer is the folder under src/ it was built from (ir/passes is a layer of its own).
# A symbol counts when one layer's
# objects leave it undefined and another layer's objects define it (inline functions and
# templates, defined wherever they are used, never count).
set -euo pipefail
nm_tool=$1
IFS=';' read -ra objects <<<"$2"
source "$(dirname "${BASH_SOURCE[0]}")/layers.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A seen=()
for o in "${objects[@]}"; do
  layer=$(sed -n 's|.*/src/\(ir/passes\)/.*|\1|p; t; s|.*/src/\([^/]*\)/.*|\1|p' <<<"$o")
  if [[ -z "$layer" || -z "${allowed[$layer]+x}" ]]; then
    echo "object $o is in no known layer: update this check"
    exit 1
  fi
  seen[$layer]=1
  "$nm_tool" -C --defined-only "$o" | awk '$2 ~ /^[TDBR]$/ { $1 = ""; $2 = ""; print substr($0, 3) }' \
    >>"$work/def_${layer//\//_}"
  "$nm_tool" -C -u "$o" | sed 's/^ *U //' >>"$work/und_${layer//\//_}"
done
status=0
for layer in "${!seen[@]}"; do
  sort -u -o "$work/und_${layer//\//_}" "$work/und_${layer//\//_}"
  sort -u -o "$work/def_${layer//\//_}" "$work/def_${layer//\//_}"
done
for layer in "${!seen[@]}"; do
  for other in "${!seen[@]}"; do
    [[ "$other" == "$layer" || " ${allowed[$layer]} " == *" $other "* ]] && continue
    if hits=$(comm -12 "$work/und_${layer//\//_}" "$work/def_${other//\//_}" | grep .); then
      echo "layer '$layer' uses layer '$other', which it may not depend on:"
      head -5 <<<"$hits" | sed 's/^/  /'
      status=1
    fi
  done
done
# Functions a layer may link but must not call: the runtime (and the code it generates, aot)
# runs execution plans, and the interpreter stays the reference they are checked against.
declare -A forbidden=(
  [runtime]="xport::ir::interpret("
  [aot]="xport::ir::interpret("
)
for layer in "${!forbidden[@]}"; do
  if ! grep -qF -- "${forbidden[$layer]}" "$work/def_ir"; then
    echo "'${forbidden[$layer]}' is defined nowhere in layer ir: update this check"
    status=1
  fi
  if hits=$(grep -F -- "${forbidden[$layer]}" "$work/und_${layer//\//_}"); then
    echo "layer '$layer' calls ${forbidden[$layer]}...), which only the reference engine may:"
    head -5 <<<"$hits" | sed 's/^/  /'
    status=1
  fi
done
[[ $status == 0 ]] && echo "${#seen[@]} layers, ${#objects[@]} objects: each uses only the layers below it"
exit $status
