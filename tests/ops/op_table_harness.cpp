// What the op table's tests share (op_table_harness.h).
#include "ops/op_table_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace xport::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The permutation that makes `t` contiguous, when it is a permuted contiguous tensor (how
// samples make non-contiguous inputs); empty otherwise.
std::vector<int64_t> permutation_to_contiguous(const Tensor& t) {
  std::vector<int64_t> order(t.dim());
  for (int64_t d = 0; d < t.dim(); ++d) order[d] = d;
  const std::vector<int64_t> strides = t.int_strides();
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return strides[a] > strides[b]; });
  if (t.is_contiguous() || !t.permute(order).is_contiguous()) return {};
  return order;
}

}  // namespace

json encode_tensor(const Tensor& t, const fs::path& dir, const std::string& name) {
  // NumPy has no bfloat16: such tensors travel as float32, with their dtype named.
  // A permuted tensor travels as its contiguous base plus the permutation, so PyTorch sees the
  // same strides (view semantics depend on them).
  const std::vector<int64_t> order = permutation_to_contiguous(t);
  const Tensor base = order.empty() ? t : t.permute(order);
  const Tensor saved = base.dtype() == DType::BFloat16 ? base.to(DType::Float32) : base;
  save_npy(saved, (dir / name).string());
  json encoded = {{"file", name}, {"dtype", dtype_name(t.dtype())}};
  if (!order.empty()) {
    std::vector<int64_t> inverse(order.size());
    for (size_t i = 0; i < order.size(); ++i) inverse[order[i]] = static_cast<int64_t>(i);
    encoded["permute"] = inverse;
  }
  return {{"t", encoded}};
}

json encode(const Value& v, const fs::path& dir, const std::string& name) {
  if (v.is_none()) return nullptr;
  if (v.is_tensor()) return encode_tensor(v.to_tensor(), dir, name);
  if (v.is_list()) {
    json list = json::array();
    int i = 0;
    for (const Tensor& t : v.to_tensor_list()) {
      list.push_back(t.defined() ? encode_tensor(t, dir, name + "_" + std::to_string(i)) : json());
      ++i;
    }
    return {{"tl", list}};
  }
  if (v.is_bool()) return {{"b", v.to_bool()}};
  if (v.is_int()) return {{"i", v.to_int()}};
  if (v.is_double()) {
    const double d = v.to_double();
    if (std::isnan(d)) return {{"f", "nan"}};
    if (std::isinf(d)) return {{"f", d > 0 ? "inf" : "-inf"}};
    return {{"f", d}};
  }
  if (v.is_string()) return {{"s", v.to_string_value()}};
  if (v.is_dtype()) return {{"dtype", dtype_name(v.to_dtype())}};
  if (v.is_int_list()) return {{"il", v.to_int_list()}};
  if (v.is_double_list()) return {{"fl", v.to_double_list()}};
  if (v.is_bool_list()) {
    return {{"bl", std::vector<bool>(v.to_bool_list().begin(), v.to_bool_list().end())}};
  }
  ADD_FAILURE() << "cannot encode a value of type " << v.type_name();
  return nullptr;
}

// torch.testing.assert_close's default tolerances for a dtype.
std::pair<double, double> default_tolerance(DType dtype) {
  if (is_complex(dtype)) return default_tolerance(complex_part(dtype));  // per part
  switch (dtype) {
    case DType::Float16:
      return {1e-3, 1e-5};
    case DType::BFloat16:
      return {1.6e-2, 1e-5};
    case DType::Float32:
      return {1.3e-6, 1e-5};
    case DType::Float64:
      return {1e-7, 1e-7};
    default:
      return {0, 0};
  }
}

// Empty string when close; else a description of the first mismatches.
std::string compare(const Tensor& ours, const Tensor& expected, double rtol, double atol) {
  if (ours.int_sizes() != expected.int_sizes()) return "shapes differ";
  if (is_complex(ours.dtype()) && is_complex(expected.dtype())) {
    // Part by part: the real and imaginary parts as the last dim.
    return compare(Tensor::make(ours.storage(), complex_as_real(ours.meta())),
                   Tensor::make(expected.storage(), complex_as_real(expected.meta())), rtol, atol);
  }
  const std::vector<double> a = ours.to_vector<double>();
  const std::vector<double> b = expected.to_vector<double>();
  std::ostringstream out;
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool both_nan = std::isnan(a[i]) && std::isnan(b[i]);
    const bool equal = a[i] == b[i];
    const bool close = std::fabs(a[i] - b[i]) <= atol + rtol * std::fabs(b[i]);
    if (both_nan || equal || close) continue;
    if (bad++ < 5) out << "\n    [" << i << "] xport " << a[i] << " vs torch " << b[i];
  }
  if (bad == 0) return "";
  return std::to_string(bad) + " of " + std::to_string(a.size()) + " elements differ:" + out.str();
}

}  // namespace xport::testing
