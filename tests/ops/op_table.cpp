#include "ops/op_table.h"

#include <cmath>
#include <limits>

namespace xport::testing {

Tensor Gen::randn(SymIntList shape, DType dtype) {
  const Tensor t = xport::randn(shape, next(), DType::Float64);
  if (is_floating(dtype)) return t.to(dtype);
  if (dtype == DType::Bool) return t.gt(0.0);
  return xport::round(t * 5.0).to(dtype);
}

Tensor Gen::uniform(SymIntList shape, double lo, double hi, DType dtype) {
  return (xport::rand(shape, next(), DType::Float64) * (hi - lo) + lo).to(dtype);
}

Tensor Gen::positive(SymIntList shape, DType dtype) { return uniform(shape, 0.1, 4.0, dtype); }

Tensor Gen::ints(SymIntList shape, int64_t lo, int64_t hi, DType dtype) {
  const Tensor u = xport::rand(shape, next(), DType::Float64);
  return xport::floor(u * static_cast<double>(hi - lo + 1) + static_cast<double>(lo)).to(dtype);
}

Tensor Gen::bools(SymIntList shape) { return xport::rand(shape, next(), DType::Float64).gt(0.5); }

Tensor Gen::edge(DType dtype) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {0.0,   -0.0, 1.0,   -1.0,  inf,    -inf, std::nan(""), 1e-8,
                                 -1e-8, 20.0, -20.0, 100.0, -100.0, 0.5,  2.5,          -2.5};
  return from_vector(v, {static_cast<int64_t>(v.size())}).to(dtype);
}

Tensor Gen::transposed(SymIntList shape, DType dtype) {
  std::vector<SymInt> s = shape.vec();
  std::reverse(s.begin(), s.end());
  std::vector<int64_t> dims(s.size());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = static_cast<int64_t>(dims.size() - 1 - i);
  return randn(s, dtype).permute(dims);
}

void add_unary(Rows& rows, const std::string& op, bool floating_only, bool positive_only,
               bool edge_values, bool ints) {
  auto input = [positive_only](Gen& g, SymIntList shape, DType dtype) {
    return positive_only ? g.positive(shape, dtype) : g.randn(shape, dtype);
  };
  rows.push_back({op, "f32 [3,4]", [=](Gen& g) { return Args{input(g, {3, 4}, DType::Float32)}; }});
  rows.push_back(
      {op, "f32 large [70000]", [=](Gen& g) { return Args{input(g, {70000}, DType::Float32)}; }});
  rows.push_back({op, "f64 [5]", [=](Gen& g) { return Args{input(g, {5}, DType::Float64)}; }});
  rows.push_back({op, "f16 [2,3]", [=](Gen& g) { return Args{input(g, {2, 3}, DType::Float16)}; }});
  rows.push_back({op, "bf16 [4]", [=](Gen& g) { return Args{input(g, {4}, DType::BFloat16)}; }});
  rows.push_back({op, "0-dim", [=](Gen& g) { return Args{input(g, {}, DType::Float32)}; }});
  rows.push_back({op, "empty [0,3]", [=](Gen& g) {
                    return Args{input(g, {0, 3}, DType::Float32)};
                  }});
  rows.push_back({op, "non-contiguous [4,5]", [=](Gen& g) {
                    const Tensor t = positive_only ? g.positive({5, 4}).t() : g.transposed({4, 5});
                    return Args{t};
                  }});
  if (edge_values) rows.push_back({op, "edge values", [](Gen& g) { return Args{g.edge()}; }});
  if (ints) {
    if (floating_only) {
      rows.push_back({op, "int64 refused", [](Gen& g) { return Args{g.ints({3}, 1, 5)}; }, -1, -1,
                      /*expect_error=*/true});
    } else {
      rows.push_back({op, "int64 [6]", [](Gen& g) { return Args{g.ints({6}, 1, 9)}; }});
      rows.push_back({op, "int32 [2,2]", [](Gen& g) {
                        return Args{g.ints({2, 2}, 1, 9, DType::Int32)};
                      }});
      rows.push_back(
          {op, "uint8 [3]", [](Gen& g) { return Args{g.ints({3}, 1, 200, DType::UInt8)}; }});
    }
  }
}

void add_binary(Rows& rows, const std::string& op, bool floating_only, bool positive_rhs,
                bool ints) {
  auto rhs = [positive_rhs](Gen& g, SymIntList shape, DType dtype) {
    return positive_rhs ? g.positive(shape, dtype) : g.randn(shape, dtype);
  };
  rows.push_back({op, "f32 same shape", [=](Gen& g) {
                    return Args{g.randn({3, 4}), rhs(g, {3, 4}, DType::Float32)};
                  }});
  rows.push_back({op, "f32 large", [=](Gen& g) {
                    return Args{g.randn({300, 257}), rhs(g, {300, 257}, DType::Float32)};
                  }});
  rows.push_back({op, "broadcast [3,1]x[4]", [=](Gen& g) {
                    return Args{g.randn({3, 1}), rhs(g, {4}, DType::Float32)};
                  }});
  rows.push_back({op, "broadcast [2,1,5]x[3,1]", [=](Gen& g) {
                    return Args{g.randn({2, 1, 5}), rhs(g, {3, 1}, DType::Float32)};
                  }});
  rows.push_back({op, "f64", [=](Gen& g) {
                    return Args{g.randn({5}, DType::Float64), rhs(g, {5}, DType::Float64)};
                  }});
  rows.push_back({op, "f16 x f32 promotes", [=](Gen& g) {
                    return Args{g.randn({4}, DType::Float16), rhs(g, {4}, DType::Float32)};
                  }});
  rows.push_back({op, "bf16", [=](Gen& g) {
                    return Args{g.randn({4}, DType::BFloat16), rhs(g, {4}, DType::BFloat16)};
                  }});
  rows.push_back({op, "f32 x 0-dim f64 stays f32", [=](Gen& g) {
                    return Args{g.randn({3}), rhs(g, {}, DType::Float64)};
                  }});
  rows.push_back({op, "empty", [=](Gen& g) {
                    return Args{g.randn({0, 2}), rhs(g, {2}, DType::Float32)};
                  }});
  rows.push_back({op, "non-contiguous", [=](Gen& g) {
                    return Args{g.transposed({4, 3}), rhs(g, {4, 3}, DType::Float32)};
                  }});
  rows.push_back({op, "mismatched shapes refused",
                  [](Gen& g) {
                    return Args{g.randn({3}), g.randn({4})};
                  },
                  -1, -1, /*expect_error=*/true});
  if (ints && !floating_only) {
    rows.push_back({op, "int64", [](Gen& g) {
                      return Args{g.ints({6}, -9, 9), g.ints({6}, 1, 5)};
                    }});
    rows.push_back({op, "int32 x int64", [](Gen& g) {
                      return Args{g.ints({2, 3}, -9, 9, DType::Int32), g.ints({3}, 1, 5)};
                    }});
    rows.push_back({op, "uint8 x int8", [](Gen& g) {
                      return Args{g.ints({4}, 0, 20, DType::UInt8), g.ints({4}, 1, 5, DType::Int8)};
                    }});
    rows.push_back({op, "int x float promotes", [=](Gen& g) {
                      return Args{g.ints({4}, -5, 5), rhs(g, {4}, DType::Float32)};
                    }});
  }
}

const std::vector<OpSample>& op_table() {
  static const std::vector<OpSample> table = [] {
    std::vector<OpSample> all;
    for (Rows (*family)() : {pointwise_samples, creation_samples, view_samples, reduction_samples,
                             linalg_samples, nn_samples, shape_samples, quant_samples}) {
      Rows rows = family();
      all.insert(all.end(), rows.begin(), rows.end());
    }
    return all;
  }();
  return table;
}

}  // namespace xport::testing
