#pragma once
// torchao's weight-only programs, as run_decompositions() leaves them (core ATen; the weights
// plain int8 parameters with their scales), spell dequantization as arithmetic:
//   IntxWeightOnlyConfig (int4 or int8 in groups, per channel):
//     view(mul(sub(_to_copy(view(Q, [N, G, g]), f32), _to_copy(view(Z, [N, G, 1]), f32)),
//              view(S, [N, G, 1])), [N, K])                 ->  dequantize_per_channel_group
//   Int8WeightOnlyConfig (per row):
//     mul(mm(x, _to_copy(permute(Q, [1, 0]), f32)), view(S, [N]))
//                                 ->  mm(x, permute(dequantize_per_channel(Q, S, axis 0)))
// with Q, Z and S constants (views of constants fold to constants before this runs). Written as
// PyTorch's quantized_decomposed ops, the quantized fusion that follows runs them on
// xport::weight_only_linear. Results are the same values: (q - z) * s in float32 either way,
// and x @ q^T times s per column is what the weight-only kernel computes.

#include "ir/passes/constant_graph.h"

namespace xport::ir::passes {

/// Rewrites `g` in place; returns how many weights it rewrote. The ops it replaces are left
/// for dead code elimination.
int recognize_torchao_weights(ConstantGraph& g);

}  // namespace xport::ir::passes
