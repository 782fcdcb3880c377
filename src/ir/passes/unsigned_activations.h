#pragma once
// int8 activations carried as uint8. XNNPACKQuantizer quantizes activations to int8, X86's to
// uint8; oneDNN's integer kernels multiply uint8 by int8 natively (VNNI's vpdpbusd) and take
// int8 inputs only with a compensation for the shift to uint8 (and older, slower kernels for
// 3x3 convolutions). An int8 value v with zero point z is the uint8 value v + 128 with zero
// point z + 128: the same real number, to the bit, for every op here. So where every reader of
// an int8 result of the integer kernels takes uint8 as well, the result is written as uint8
// (v ^ 0x80) and each reader's zero point moves by 128: after a ReLU, XNNPACK's zero point of
// -128 becomes 0, and the convolution runs exactly as on X86's programs.
//
// Results: of xport::requantized_conv2d, quantized_add and quantized_lookup, of a
// quantize_per_tensor (static, whole range) and of a max pool of them. Readers:
// requantized_conv2d and quantized_conv2d (input, residual), quantized_add (both operands),
// quantized_lookup and the max pool (their operand), a static dequantize_per_tensor. A
// convolution adding a residual writes the residual's dtype, a max pool its input's: each flips
// with it or not at all.

#include "ir/passes/constant_graph.h"

namespace xport::ir::passes {

/// Rewrites `g` in place; returns how many int8 results now are uint8.
int carry_int8_as_uint8(ConstantGraph& g);

}  // namespace xport::ir::passes
