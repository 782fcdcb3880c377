#pragma once
// Dropout's random mask: a counter-based generator (SplitMix64 of a stream and an element
// index), so chunks fill in parallel and a seed gives the same masks on every platform. Each
// call draws a new stream from a process-wide counter that manual_seed() resets.

#include <cstdint>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// out = input * mask / (1 - p) and mask (bool) = an element kept with probability 1 - p, over a
/// stream of its own; p = 1 drops everything.
void dropout_out(const Tensor& input, double p, const Tensor& out, const Tensor& mask);

}  // namespace xport::kernels::cpu
