#pragma once
// Weight initialisation and training-mode dropout for the layers. Initial weights follow
// PyTorch's distributions; the values come from a per-process counter of seeds, so two runs of
// the same program build the same model.

#include <cstdint>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport::nn::detail {

/// A fresh seed for the next initialised tensor.
uint64_t next_seed();
/// U(-bound, bound) of `shape`.
Tensor uniform(const std::vector<int64_t>& shape, double bound);
/// N(0, std^2) of `shape`.
Tensor normal(const std::vector<int64_t>& shape, double std);
/// Zeroes each element of `x` with probability p and scales the rest by 1 / (1 - p), from a

}  // namespace xport::nn::detail
