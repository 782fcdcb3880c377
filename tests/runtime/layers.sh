# The layers of DESIGN.md §1 and what each may use: sourced by layer_links_check.sh (symbols)
# and layer_includes_check.sh (includes). A layer is a folder under src/ (ir/passes is a layer
# of its own) and its public headers' folder under include/xport/.
# shellcheck shell=bash disable=SC2034
declare -A allowed=(
  [core]=""
  [tensor]="core"
  [kernels]="core tensor"
  [ops]="core tensor kernels"
  [text]="core tensor kernels ops"
  [ir]="core tensor kernels ops"
  [ir/passes]="core tensor kernels ops ir"
  [program]="core tensor kernels ops ir"
  [serde]="core tensor kernels ops ir program"
  [runtime]="core tensor kernels ops text ir ir/passes program serde"
  [nn]="core tensor kernels ops"
  [capture]="core tensor kernels ops ir program nn"
  [quant]="core tensor kernels ops ir program"
  # train re-traces programs (capture's replay) to append their backward pass
  [train]="core tensor kernels ops ir program nn capture"
  # aot decomposes PyTorch's composite ops (aten::linear, ...) by re-tracing: capture's
  # ExportedProgram::run_decompositions, as ONNX export does
  [aot]="core tensor kernels ops ir ir/passes program serde runtime capture"
  [onnx]="core tensor kernels ops ir ir/passes program serde capture"
  [exportdb]="core tensor kernels ops text ir ir/passes program serde runtime nn capture quant aot"
)
