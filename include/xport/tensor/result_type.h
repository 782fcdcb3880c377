#pragma once
/// \file PyTorch's result_type (type promotion across tensors and Python-style numbers).

#include <optional>

#include "xport/tensor/tensor.h"

namespace xport {

/// Accumulates operands and gives the dtype an op computes in: tensors with dims first, then
/// 0-dim tensors, then numbers, each class taking part only when its category
/// (bool < integer < floating) is higher than the classes before it.
class ResultType {
 public:
  ResultType& tensor(const Tensor& t);
  /// A tensor known by its dtype and whether it has dims (a graph value's metadata).
  ResultType& tensor(DType dtype, bool has_dims);
  /// A number as a Python scalar: a float counts as float32 (the default dtype), not float64.
  ResultType& scalar(const Scalar& s);
  DType get() const;

 private:
  std::optional<DType> dim_, zero_dim_, wrapped_;
};

}  // namespace xport
