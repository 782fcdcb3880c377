#include <cmath>
#include <limits>

#include "ops/op_table.h"

namespace xport::testing {

Rows pointwise_samples() {
  Rows rows;
  // ---- unary ----
  for (const char* op : {"aten::exp", "aten::expm1", "aten::sin", "aten::cos", "aten::tan",
                         "aten::tanh", "aten::sigmoid", "aten::erf", "aten::reciprocal"}) {
    add_unary(rows, op);
  }
  for (const char* op : {"aten::log", "aten::log1p", "aten::log2", "aten::sqrt", "aten::rsqrt"}) {
    add_unary(rows, op, /*floating_only=*/false, /*positive_only=*/true);
    rows.push_back({op, "negative and zero inputs", [](Gen& g) { return Args{g.edge()}; }});
  }
  for (const char* op : {"aten::neg", "aten::abs", "aten::sign", "aten::relu", "aten::floor",
                         "aten::ceil", "aten::round", "aten::trunc"}) {
    add_unary(rows, op);
  }
  // Inverse trigonometric and hyperbolic functions: randn's values fall inside and outside
  // acosh's and atanh's domains, so NaN results are compared too.
  for (const char* op : {"aten::acos", "aten::asin", "aten::atan", "aten::acosh", "aten::asinh",
                         "aten::atanh", "aten::cosh", "aten::sinh"}) {
    add_unary(rows, op);
  }
  add_unary(rows, "aten::log10", /*floating_only=*/false, /*positive_only=*/true);
  rows.push_back(
      {"aten::log10", "negative and zero inputs", [](Gen& g) { return Args{g.edge()}; }});
  for (const char* op : {"aten::elu", "aten::leaky_relu"}) {
    add_unary(rows, op, /*floating_only=*/true);
  }
  add_unary(rows, "aten::hardtanh", false, false, true, /*ints=*/false);
  rows.push_back({"aten::hardtanh", "uint8 with the default negative limit refused",
                  [](Gen& g) {
                    return Args{g.ints({3}, 1, 200, DType::UInt8)};
                  },
                  -1, -1, true});
  rows.push_back({"aten::hardtanh", "uint8 with limits 2 and 100", [](Gen& g) {
                    return Args{g.ints({5}, 0, 200, DType::UInt8), int64_t{2}, int64_t{100}};
                  }});
  rows.push_back({"aten::elu", "alpha, scale and input_scale", [](Gen& g) {
                    return Args{g.randn({4, 6}), 0.5, 1.0507, 2.0};
                  }});
  rows.push_back({"aten::elu", "f64 integer alpha", [](Gen& g) {
                    return Args{g.randn({9}, DType::Float64), int64_t{2}};
                  }});
  rows.push_back({"aten::leaky_relu", "slope 0.2, f16", [](Gen& g) {
                    return Args{g.randn({3, 5}, DType::Float16), 0.2};
                  }});
  rows.push_back({"aten::hardtanh", "relu6 bounds", [](Gen& g) {
                    return Args{g.randn({40}) * 4.0, 0.0, 6.0};
                  }});
  rows.push_back({"aten::hardtanh", "int64 with int bounds", [](Gen& g) {
                    return Args{g.ints({7}, -9, 9), int64_t{-3}, int64_t{4}};
                  }});
  add_unary(rows, "aten::silu", /*floating_only=*/true);
  add_unary(rows, "aten::gelu", /*floating_only=*/true, /*positive_only=*/false,
            /*edge_values=*/false);
  // PyTorch 2.13's vectorized float32 gelu gives nan at +inf (its scalar path and float64 give
  // inf, the limit); xport gives inf. So +inf is compared in float64 only.
  rows.push_back({"aten::gelu", "edge values but +inf", [](Gen&) {
                    const double inf = std::numeric_limits<double>::infinity();
                    const std::vector<double> v = {0.0, -0.0, 1.0,  -inf,  std::nan(""), 1e-8,
                                                   -1e-8, 20.0, -20.0, 100.0, -100.0, -2.5};
                    return Args{from_vector(v, {12}).to(DType::Float32)};
                  }});
  rows.push_back({"aten::gelu", "edge values f64", [](Gen& g) {
                    return Args{g.edge(DType::Float64)};
                  }});
  rows.push_back({"aten::gelu", "tanh approximation", [](Gen& g) {
                    return Args{g.randn({5, 7}), "tanh"};
                  }});
  rows.push_back({"aten::gelu", "tanh approximation, large", [](Gen& g) {
                    return Args{g.randn({70000}), "tanh"};
                  }});
  rows.push_back({"aten::gelu", "bad approximation refused",
                  [](Gen& g) {
                    return Args{g.randn({3}), "fast"};
                  },
                  -1, -1, true});
  rows.push_back(
      {"aten::neg", "bool refused", [](Gen& g) { return Args{g.bools({3})}; }, -1, -1, true});
  for (const char* op : {"aten::logical_not", "aten::isnan", "aten::isinf"}) {
    add_unary(rows, op);
    rows.push_back({op, "bool", [op](Gen& g) { return Args{g.bools({5})}; }});
  }
  rows.push_back({"aten::bitwise_not", "int64", [](Gen& g) { return Args{g.ints({5}, -9, 9)}; }});
  rows.push_back({"aten::bitwise_not", "uint8",
                  [](Gen& g) { return Args{g.ints({5}, 0, 255, DType::UInt8)}; }});
  rows.push_back({"aten::bitwise_not", "bool", [](Gen& g) { return Args{g.bools({5})}; }});
  rows.push_back({"aten::bitwise_not", "float refused", [](Gen& g) { return Args{g.randn({5})}; },
                  -1, -1, true});

  // ---- binary ----
  add_binary(rows, "aten::add.Tensor");
  add_binary(rows, "aten::sub.Tensor");
  add_binary(rows, "aten::mul.Tensor");
  add_binary(rows, "aten::div.Tensor", false, /*positive_rhs=*/true);
  add_binary(rows, "aten::maximum");
  add_binary(rows, "aten::minimum");
  add_binary(rows, "aten::min.other");
  add_binary(rows, "aten::max.other");
  add_binary(rows, "aten::atan2");
  // The out= overload writes the result into `out`, cast to its dtype.
  rows.push_back({"aten::atan2.out", "f32 broadcast into f32 out", [](Gen& g) {
                    return Args{g.randn({3, 4}), g.randn({4}), zeros({3, 4})};
                  }});
  rows.push_back({"aten::atan2.out", "int64 into f64 out", [](Gen& g) {
                    return Args{g.ints({5}, -3, 3), g.ints({5}, -3, 3),
                                zeros({5}, DType::Float64)};
                  }});
  rows.push_back({"aten::atan2.out", "float into int64 out refused",
                  [](Gen& g) {
                    return Args{g.randn({3}), g.randn({3}), zeros({3}, DType::Int64)};
                  },
                  -1, -1, true});
  add_binary(rows, "aten::remainder.Tensor", false, true);
  add_binary(rows, "aten::pow.Tensor_Tensor", false, true);
  // fmod's remainder takes the dividend's sign (randn's negatives), remainder's the divisor's.
  add_binary(rows, "aten::fmod.Tensor", false, /*positive_rhs=*/true);
  rows.push_back({"aten::fmod.Tensor", "negative divisors, edge dividends", [](Gen& g) {
                    return Args{g.edge(), g.uniform({16}, -3.0, -0.5)};
                  }});
  rows.push_back({"aten::fmod.Tensor", "int64 by zero refused", [](Gen& g) {
                    return Args{g.ints({3}, 1, 9), g.ints({3}, 0, 0)};
                  },
                  -1, -1, true});
  rows.push_back({"aten::fmod.Scalar", "f32 by 2.5", [](Gen& g) {
                    return Args{g.randn({5, 4}) * 10.0, 2.5};
                  }});
  rows.push_back({"aten::fmod.Scalar", "int64 by int", [](Gen& g) {
                    return Args{g.ints({9}, -20, 20), int64_t{3}};
                  }});
  rows.push_back({"aten::fmod.Scalar", "int64 by float becomes float", [](Gen& g) {
                    return Args{g.ints({9}, -20, 20), 2.5};
                  }});
  rows.push_back({"aten::fmod.Scalar", "empty", [](Gen& g) {
                    return Args{g.randn({0, 2}), 2.0};
                  }});
  rows.push_back({"aten::pow.Scalar", "2 ** f32", [](Gen& g) {
                    return Args{2.0, g.randn({3, 4})};
                  }});
  rows.push_back({"aten::pow.Scalar", "int ** int64", [](Gen& g) {
                    return Args{int64_t{3}, g.ints({6}, 0, 9)};
                  }});
  rows.push_back({"aten::pow.Scalar", "float ** int64 becomes float", [](Gen& g) {
                    return Args{2.5, g.ints({6}, 0, 5)};
                  }});
  rows.push_back({"aten::pow.Scalar", "f64 edge exponents", [](Gen& g) {
                    return Args{0.5, g.edge(DType::Float64)};
                  }});
  for (const char* op : {"aten::eq.Tensor", "aten::ne.Tensor", "aten::lt.Tensor", "aten::le.Tensor",
                         "aten::gt.Tensor", "aten::ge.Tensor", "aten::logical_and",
                         "aten::logical_or", "aten::logical_xor"}) {
    add_binary(rows, op);
    rows.push_back({op, "bool x bool", [](Gen& g) { return Args{g.bools({6}), g.bools({6})}; }});
  }
  for (const char* op : {"aten::bitwise_and.Tensor", "aten::bitwise_or.Tensor",
                         "aten::bitwise_xor.Tensor", "aten::__and__.Tensor", "aten::__or__.Tensor"}) {
    rows.push_back({op, "int64", [](Gen& g) {
                      return Args{g.ints({6}, -50, 50), g.ints({6}, -50, 50)};
                    }});
    rows.push_back(
        {op, "uint8 x int16 broadcast", [](Gen& g) {
           return Args{g.ints({2, 3}, 0, 255, DType::UInt8), g.ints({3}, -99, 99, DType::Int16)};
         }});
    rows.push_back({op, "bool", [](Gen& g) { return Args{g.bools({6}), g.bools({6})}; }});
    rows.push_back({op, "float refused",
                    [](Gen& g) {
                      return Args{g.randn({2}), g.randn({2})};
                    },
                    -1, -1, true});
  }
  for (const char* op : {"aten::bitwise_and.Scalar", "aten::bitwise_or.Scalar",
                         "aten::bitwise_xor.Scalar", "aten::__and__.Scalar", "aten::__or__.Scalar"}) {
    rows.push_back({op, "int32 with int", [](Gen& g) {
                      return Args{g.ints({6}, -50, 50, DType::Int32), int64_t{6}};
                    }});
  }
  rows.push_back({"aten::add.Tensor", "alpha", [](Gen& g) {
                    return Args{g.randn({4}), g.randn({4}), 2.5};
                  }});
  rows.push_back({"aten::add.Tensor", "int alpha", [](Gen& g) {
                    return Args{g.ints({4}, -5, 5), g.ints({4}, -5, 5), int64_t{3}};
                  }});
  rows.push_back({"aten::add.Tensor", "float alpha with ints refused",
                  [](Gen& g) {
                    return Args{g.ints({4}, -5, 5), g.ints({4}, -5, 5), 0.5};
                  },
                  -1, -1, true});
  rows.push_back({"aten::add.Tensor", "bool + bool", [](Gen& g) {
                    return Args{g.bools({5}), g.bools({5})};
                  }});
  rows.push_back({"aten::sub.Tensor", "bool - bool refused",
                  [](Gen& g) {
                    return Args{g.bools({5}), g.bools({5})};
                  },
                  -1, -1, true});
  rows.push_back({"aten::sub.Tensor", "alpha", [](Gen& g) {
                    return Args{g.randn({4}), g.randn({4}), 0.5};
                  }});
  rows.push_back({"aten::div.Tensor", "int / int is float", [](Gen& g) {
                    return Args{g.ints({6}, -9, 9), g.ints({6}, 1, 4)};
                  }});
  rows.push_back({"aten::div.Tensor", "division by zero", [](Gen& g) {
                    return Args{g.edge(), g.edge().mul(0.0)};
                  }});
  for (const char* mode : {"trunc", "floor"}) {
    const std::string m = mode;
    rows.push_back({"aten::div.Tensor_mode", m + " f32", [m](Gen& g) {
                      return Args{g.randn({50}) * 10.0, g.randn({50}), m};
                    }});
    rows.push_back(
        {"aten::div.Tensor_mode", m + " f64", [m](Gen& g) {
           return Args{g.randn({20}, DType::Float64) * 10.0, g.randn({20}, DType::Float64), m};
         }});
    rows.push_back({"aten::div.Tensor_mode", m + " int", [m](Gen& g) {
                      return Args{g.ints({20}, -20, 20), g.ints({20}, 1, 6) * int64_t{-1}, m};
                    }});
    rows.push_back({"aten::div.Tensor_mode", m + " int by zero refused",
                    [m](Gen& g) {
                      return Args{g.ints({3}, 1, 5), zeros({3}, DType::Int64), m};
                    },
                    -1, -1, true});
    rows.push_back({"aten::div.Scalar_mode", m + " int by int", [m](Gen& g) {
                      return Args{g.ints({20}, -20, 20), int64_t{-3}, m};
                    }});
    rows.push_back({"aten::div.Scalar_mode", m + " f32 by float", [m](Gen& g) {
                      return Args{g.randn({20}) * 10.0, 1.5, m};
                    }});
  }
  rows.push_back({"aten::div.Tensor_mode", "None mode is true division", [](Gen& g) {
                    return Args{g.ints({5}, 1, 9), g.ints({5}, 1, 3), Value()};
                  }});
  rows.push_back({"aten::remainder.Tensor", "negative ints", [](Gen& g) {
                    return Args{g.ints({20}, -20, 20), g.ints({20}, -6, -1)};
                  }});
  rows.push_back({"aten::remainder.Tensor", "negative floats", [](Gen& g) {
                    return Args{g.randn({20}) * 10.0, g.randn({20})};
                  }});
  rows.push_back({"aten::remainder.Scalar", "f32 by int", [](Gen& g) {
                    return Args{g.randn({20}) * 10.0, int64_t{3}};
                  }});
  rows.push_back({"aten::pow.Tensor_Tensor", "int", [](Gen& g) {
                    return Args{g.ints({8}, -4, 4), g.ints({8}, 0, 5)};
                  }});
  rows.push_back({"aten::pow.Tensor_Tensor", "int negative exponents truncate", [](Gen& g) {
                    return Args{g.ints({12}, -2, 2), g.ints({12}, -3, -1)};
                  }});
  rows.push_back({"aten::pow.Tensor_Scalar", "int ^ negative int refused",
                  [](Gen& g) {
                    return Args{g.ints({3}, 1, 4), int64_t{-2}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::pow.Tensor_Scalar", "f32 ^ 2", [](Gen& g) {
                    return Args{g.randn({9}), int64_t{2}};
                  }});
  rows.push_back({"aten::pow.Tensor_Scalar", "f32 ^ 0.5", [](Gen& g) {
                    return Args{g.positive({9}), 0.5};
                  }});
  rows.push_back({"aten::pow.Tensor_Scalar", "int ^ 3", [](Gen& g) {
                    return Args{g.ints({9}, -5, 5), int64_t{3}};
                  }});
  rows.push_back({"aten::pow.Tensor_Scalar", "int ^ 0.5 is float", [](Gen& g) {
                    return Args{g.ints({9}, 0, 9), 0.5};
                  }});
  rows.push_back({"aten::maximum", "nan propagates", [](Gen& g) {
                    return Args{g.edge(), g.randn({16})};
                  }});

  // Scalar overloads: a number takes part in promotion weakly.
  for (const char* op :
       {"aten::add.Scalar", "aten::sub.Scalar", "aten::mul.Scalar", "aten::div.Scalar",
        "aten::eq.Scalar", "aten::ne.Scalar", "aten::lt.Scalar", "aten::le.Scalar",
        "aten::gt.Scalar", "aten::ge.Scalar"}) {
    rows.push_back({op, "f32 with float", [](Gen& g) { return Args{g.randn({3, 4}), 0.25}; }});
    rows.push_back({op, "f16 with float stays f16", [](Gen& g) {
                      return Args{g.randn({5}, DType::Float16), 1.5};
                    }});
    rows.push_back({op, "int32 with int stays int32", [](Gen& g) {
                      return Args{g.ints({5}, -5, 5, DType::Int32), int64_t{2}};
                    }});
    rows.push_back({op, "int64 with float is float32", [](Gen& g) {
                      return Args{g.ints({5}, -5, 5), 1.5};
                    }});
    rows.push_back({op, "0-dim", [](Gen& g) { return Args{g.randn({}), int64_t{3}}; }});
  }
  // In place: the result is cast into self.
  rows.push_back({"aten::relu_", "f32 [3,4]", [](Gen& g) { return Args{g.randn({3, 4})}; }});
  rows.push_back({"aten::relu_", "int64", [](Gen& g) { return Args{g.ints({6}, -5, 5)}; }});
  rows.push_back(
      {"aten::relu_", "bool refused", [](Gen& g) { return Args{g.bools({3})}; }, -1, -1, true});
  rows.push_back({"aten::add_.Tensor", "f32 += f32", [](Gen& g) {
                    return Args{g.randn({3, 4}), g.randn({4})};
                  }});
  rows.push_back({"aten::add_.Tensor", "f32 += f64", [](Gen& g) {
                    return Args{g.randn({3}), g.randn({3}, DType::Float64)};
                  }});
  rows.push_back({"aten::add_.Tensor", "int += float refused",
                  [](Gen& g) {
                    return Args{g.ints({3}, 0, 5), g.randn({3})};
                  },
                  -1, -1, true});
  rows.push_back({"aten::add_.Tensor", "broadcast that grows self refused",
                  [](Gen& g) {
                    return Args{g.randn({4}), g.randn({3, 4})};
                  },
                  -1, -1, true});
  rows.push_back({"aten::add_.Scalar", "f32 += 2", [](Gen& g) {
                    return Args{g.randn({3}), int64_t{2}};
                  }});
  rows.push_back({"aten::sub_.Tensor", "f32 -= f32", [](Gen& g) {
                    return Args{g.randn({3}), g.randn({3})};
                  }});
  rows.push_back({"aten::sub_.Scalar", "f32 -= 2", [](Gen& g) {
                    return Args{g.randn({3}), int64_t{2}};
                  }});
  rows.push_back({"aten::mul_.Tensor", "f32 *= f32", [](Gen& g) {
                    return Args{g.transposed({3, 4}), g.randn({4})};
                  }});
  rows.push_back({"aten::mul_.Scalar", "int *= 3", [](Gen& g) {
                    return Args{g.ints({3}, 0, 5), int64_t{3}};
                  }});
  rows.push_back({"aten::div_.Tensor", "f32 /= f32", [](Gen& g) {
                    return Args{g.randn({3}), g.positive({3})};
                  }});
  rows.push_back({"aten::div_.Scalar", "f64 /= 4", [](Gen& g) {
                    return Args{g.randn({3}, DType::Float64), int64_t{4}};
                  }});

  // ---- where, clamp, masked_fill ----
  rows.push_back({"aten::where.self", "broadcast", [](Gen& g) {
                    return Args{g.bools({3, 1}), g.randn({4}), g.randn({3, 4})};
                  }});
  rows.push_back({"aten::where.self", "promotes int and float", [](Gen& g) {
                    return Args{g.bools({5}), g.ints({5}, 0, 9), g.randn({5})};
                  }});
  rows.push_back({"aten::where.self", "0-dim other", [](Gen& g) {
                    return Args{g.bools({2, 3}), g.randn({2, 3}), g.randn({}, DType::Float64)};
                  }});
  rows.push_back({"aten::where.self", "float condition refused",
                  [](Gen& g) {
                    return Args{g.randn({3}), g.randn({3}), g.randn({3})};
                  },
                  -1, -1, true});
  // masked_scatter(self, mask, source): the true places take source's elements in order.
  const std::string ms = "aten::masked_scatter";
  rows.push_back({ms, "f32", [](Gen& g) {
                    return Args{g.randn({3, 4}), g.bools({3, 4}), g.randn({12})};
                  }});
  rows.push_back({ms, "mask broadcasts over rows, 2-D source", [](Gen& g) {
                    return Args{g.randn({3, 4}), g.bools({4}), g.randn({4, 5})};
                  }});
  rows.push_back({ms, "self broadcasts to the mask", [](Gen& g) {
                    return Args{g.ints({4}, 0, 9), g.bools({2, 4}), g.ints({8}, 10, 19)};
                  }});
  rows.push_back({ms, "empty", [](Gen& g) {
                    return Args{g.randn({0, 2}), g.bools({0, 2}), g.randn({3})};
                  }});
  rows.push_back({ms, "source too small refused",
                  [](Gen& g) {
                    return Args{g.randn({4}), full({4}, true).to(DType::Bool), g.randn({3})};
                  },
                  -1, -1, true});
  rows.push_back({ms, "source dtype differs refused",
                  [](Gen& g) {
                    return Args{g.randn({4}), g.bools({4}), g.randn({4}, DType::Float64)};
                  },
                  -1, -1, true});
  // where with a number: the number promotes as a wrapped scalar.
  rows.push_back({"aten::where.ScalarOther", "f32, float other", [](Gen& g) {
                    return Args{g.bools({3, 4}), g.randn({3, 4}), 0.5};
                  }});
  rows.push_back({"aten::where.ScalarOther", "int self, float other gives float32", [](Gen& g) {
                    return Args{g.bools({5}), g.ints({5}, 0, 9), -1.5};
                  }});
  rows.push_back({"aten::where.ScalarOther", "f16 self keeps f16", [](Gen& g) {
                    return Args{g.bools({2, 3}), g.randn({2, 3}, DType::Float16), int64_t{2}};
                  }});
  rows.push_back({"aten::where.ScalarOther", "empty", [](Gen& g) {
                    return Args{g.bools({0, 3}), g.randn({0, 3}), 1.0};
                  }});
  rows.push_back({"aten::where.ScalarSelf", "broadcast condition", [](Gen& g) {
                    return Args{g.bools({3, 1}), 1.5, g.randn({4})};
                  }});
  rows.push_back({"aten::where.Scalar", "two ints give int64", [](Gen& g) {
                    return Args{g.bools({4}), int64_t{1}, int64_t{0}};
                  }});
  rows.push_back({"aten::where.Scalar", "float and int give float32", [](Gen& g) {
                    return Args{g.bools({2, 2}), 1.0, int64_t{0}};
                  }});
  rows.push_back({"aten::where.ScalarOther", "float condition refused",
                  [](Gen& g) {
                    return Args{g.randn({3}), g.randn({3}), 0.0};
                  },
                  -1, -1, true});
  rows.push_back({"aten::clamp", "min and max", [](Gen& g) {
                    return Args{g.randn({50}), -0.5, 0.5};
                  }});
  rows.push_back({"aten::clamp", "min only", [](Gen& g) { return Args{g.randn({50}), -0.5}; }});
  rows.push_back({"aten::clamp", "max only, ints", [](Gen& g) {
                    return Args{g.ints({20}, -9, 9), Value(), int64_t{3}};
                  }});
  rows.push_back({"aten::clamp", "nan stays", [](Gen& g) { return Args{g.edge(), -1.0, 1.0}; }});
  rows.push_back({"aten::clamp", "no bounds refused", [](Gen& g) { return Args{g.randn({3})}; }, -1,
                  -1, true});
  rows.push_back({"aten::clamp.Tensor", "tensor bounds broadcast", [](Gen& g) {
                    return Args{g.randn({3, 4}), g.randn({4}) - 0.5, g.randn({3, 1}) + 0.5};
                  }});
  rows.push_back({"aten::masked_fill.Scalar", "broadcast mask", [](Gen& g) {
                    return Args{g.randn({3, 4}), g.bools({4}), -1e9};
                  }});
  rows.push_back({"aten::masked_fill.Scalar", "int tensor", [](Gen& g) {
                    return Args{g.ints({6}, 0, 9), g.bools({6}), int64_t{-1}};
                  }});
  rows.push_back({"aten::masked_fill.Tensor", "0-dim value", [](Gen& g) {
                    return Args{g.randn({2, 3}), g.bools({2, 3}), g.randn({})};
                  }});
  rows.push_back({"aten::masked_fill_.Scalar", "broadcast mask", [](Gen& g) {
                    return Args{g.randn({3, 4}), g.bools({4}), -1e9};
                  }});
  rows.push_back({"aten::masked_fill_.Tensor", "0-dim int value into f32", [](Gen& g) {
                    return Args{g.randn({2, 3}), g.bools({2, 3}), g.ints({}, 0, 9)};
                  }});
  return rows;
}

}  // namespace xport::testing
