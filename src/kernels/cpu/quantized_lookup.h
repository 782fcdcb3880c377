#pragma once
// An elementwise function of 8-bit values as a table of its 256 results: what a chain of
// elementwise ops between a dequantize and a quantize computes (XNNPACK's quantized GELU: the
// product quantized, dequantized, GELU, quantized again), looked up per value.

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// out[i] = table[self[i]] for uint8 self, table[self[i] + 128] for int8 (the table holds the
/// results of -128 to 127 in order); table: 256 values of out's dtype (uint8 or int8).
void quantized_lookup_out(const Tensor& self, const Tensor& table, const Tensor& out);

}  // namespace xport::kernels::cpu
