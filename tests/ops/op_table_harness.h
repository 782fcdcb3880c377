#pragma once
// What the op table's tests share: how a case's values travel to PyTorch (tests/ops/
// torch_oracle.py and torch_gradients.py read them) and how results are compared.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "xport/xport.h"

namespace xport::testing {

/// A tensor as a .npy file in `dir` (bfloat16 as float32 with its dtype named; a permuted
/// tensor as its contiguous base plus the permutation, so PyTorch sees the same strides).
nlohmann::json encode_tensor(const Tensor& t, const std::filesystem::path& dir,
                             const std::string& name);
/// Any argument value; tensors as encode_tensor writes them.
nlohmann::json encode(const Value& v, const std::filesystem::path& dir, const std::string& name);
/// torch.testing.assert_close's default (rtol, atol) for a dtype.
std::pair<double, double> default_tolerance(DType dtype);
/// Empty when `ours` and `expected` agree within the tolerance (NaN equal to NaN); else the
/// count and the first few mismatches.
std::string compare(const Tensor& ours, const Tensor& expected, double rtol, double atol);

}  // namespace xport::testing
