#include <cmath>
#include <limits>

#include "ops/op_table.h"

namespace xport::testing {
namespace {

using S = std::vector<int64_t>;

void add_row(Rows& rows, const std::string& op, const std::string& label,
             std::function<Args(Gen&)> make) {
  rows.push_back({op, label, std::move(make)});
}
void add_error(Rows& rows, const std::string& op, const std::string& label,
               std::function<Args(Gen&)> make) {
  rows.push_back({op, label, std::move(make), -1, -1, true});
}
// GEMMs with a long inner dimension: the BLAS libraries sum in different orders.
void add_long_k(Rows& rows, const std::string& op, const std::string& label,
                std::function<Args(Gen&)> make) {
  rows.push_back({op, label, std::move(make), 1e-5, 1e-4});
}

// bfloat16 GEMMs: PyTorch 1.13's CPU kernel rounds every product and partial sum to bfloat16; ours
// accumulates in float32 and rounds once, so the two differ by a few bfloat16 ulps of the sums.
void add_bf16(Rows& rows, const std::string& op, const std::string& label,
              std::function<Args(Gen&)> make) {
  rows.push_back({op, label, std::move(make), 2e-2, 5e-2});
}

Tensor nans(S shape) { return full(shape, std::nan("")); }

void mm_rows(Rows& rows) {
  const std::string op = "aten::mm";
  add_row(rows, op, "f32", [](Gen& g) { return Args{g.randn({3, 4}), g.randn({4, 5})}; });
  add_row(rows, op, "f32 1x1", [](Gen& g) { return Args{g.randn({1, 1}), g.randn({1, 1})}; });
  add_row(rows, op, "f32 vector shapes", [](Gen& g) {
    return Args{g.randn({1, 7}), g.randn({7, 1})};
  });
  add_long_k(rows, op, "f32 large", [](Gen& g) {
    return Args{g.randn({65, 300}), g.randn({300, 47})};
  });
  add_row(rows, op, "transposed self", [](Gen& g) {
    return Args{g.transposed({4, 3}), g.randn({3, 5})};
  });
  add_row(rows, op, "transposed mat2", [](Gen& g) {
    return Args{g.randn({4, 3}), g.transposed({3, 5})};
  });
  add_row(rows, op, "both transposed", [](Gen& g) {
    return Args{g.transposed({4, 3}), g.transposed({3, 5})};
  });
  add_row(rows, op, "strided slices", [](Gen& g) {
    return Args{g.randn({6, 8}).slice(1, 0, 8, 2), g.randn({8, 5}).slice(0, 0, 8, 2)};
  });
  add_row(rows, op, "row slice (leading dim > cols)", [](Gen& g) {
    return Args{g.randn({4, 9}).slice(1, 2, 5), g.randn({3, 6}).slice(1, 1, 5)};
  });
  add_row(rows, op, "expanded operand", [](Gen& g) {
    return Args{g.randn({1, 4}).expand({3, 4}), g.randn({4, 2})};
  });
  add_row(rows, op, "K = 0 gives zeros", [](Gen& g) {
    return Args{g.randn({3, 0}), g.randn({0, 4})};
  });
  add_row(rows, op, "M = 0", [](Gen& g) { return Args{g.randn({0, 3}), g.randn({3, 4})}; });
  add_row(rows, op, "N = 0", [](Gen& g) { return Args{g.randn({2, 3}), g.randn({3, 0})}; });
  add_row(rows, op, "f64", [](Gen& g) {
    return Args{g.randn({5, 6}, DType::Float64), g.randn({6, 3}, DType::Float64)};
  });
  add_row(rows, op, "f64 transposed", [](Gen& g) {
    return Args{g.transposed({5, 6}, DType::Float64), g.transposed({6, 3}, DType::Float64)};
  });
  add_row(rows, op, "int64", [](Gen& g) {
    return Args{g.ints({4, 5}, -9, 9), g.ints({5, 3}, -9, 9)};
  });
  add_row(rows, op, "int32 transposed", [](Gen& g) {
    return Args{g.ints({5, 4}, -9, 9, DType::Int32).t(), g.ints({5, 3}, -9, 9, DType::Int32)};
  });
  add_row(rows, op, "uint8 wraps", [](Gen& g) {
    return Args{g.ints({3, 6}, 0, 255, DType::UInt8), g.ints({6, 2}, 0, 255, DType::UInt8)};
  });
  add_bf16(rows, op, "bf16", [](Gen& g) {
    return Args{g.randn({4, 8}, DType::BFloat16), g.randn({8, 3}, DType::BFloat16)};
  });
  add_row(rows, op, "f16", [](Gen& g) {
    return Args{g.randn({4, 8}, DType::Float16), g.randn({8, 3}, DType::Float16)};
  });
  add_error(rows, op, "inner sizes differ", [](Gen& g) {
    return Args{g.randn({2, 3}), g.randn({4, 4})};
  });
  add_error(rows, op, "1-D self", [](Gen& g) { return Args{g.randn({3}), g.randn({3, 4})}; });
  add_error(rows, op, "3-D mat2", [](Gen& g) { return Args{g.randn({2, 3}), g.randn({1, 3, 4})}; });
  add_error(rows, op, "dtypes differ", [](Gen& g) {
    return Args{g.randn({2, 3}), g.randn({3, 4}, DType::Float64)};
  });
  add_error(rows, op, "bool", [](Gen& g) { return Args{g.bools({2, 3}), g.bools({3, 4})}; });
}

// torchao's dynamic int8 programs: uint8 (shifted) or int8 activations by int8 weights, the
// weights passed as the transpose of a [N, K] matrix; int32 sums that wrap. The weights lie in
// [-64, 63]: PyTorch multiplies through oneDNN, whose AVX2 kernels (no VNNI) sum pairs of
// 8-bit products in saturating int16, so with full-range weights the oracle itself would be
// wrong on such CPUs (255 * 64 * 2 still fits). xport's sums are exact for any weights.
void int_mm_rows(Rows& rows) {
  const std::string op = "aten::_int_mm";
  const auto weights = [](Gen& g, int64_t rows, int64_t cols) {
    return g.ints({rows, cols}, -64, 63, DType::Int8);
  };
  add_row(rows, op, "uint8 by int8", [weights](Gen& g) {
    return Args{g.ints({4, 37}, 0, 255, DType::UInt8), weights(g, 37, 9)};
  });
  add_row(rows, op, "int8 by transposed weight", [weights](Gen& g) {
    return Args{g.ints({3, 64}, -128, 127, DType::Int8), weights(g, 17, 64).t()};
  });
  add_row(rows, op, "uint8 by transposed weight, one row", [weights](Gen& g) {
    return Args{g.ints({1, 256}, 0, 255, DType::UInt8), weights(g, 33, 256).t()};
  });
  add_row(rows, op, "strided slices", [weights](Gen& g) {
    return Args{g.ints({5, 16}, 0, 255, DType::UInt8).slice(1, 0, 16, 2),
                weights(g, 8, 12).slice(1, 0, 12, 3)};
  });
  add_row(rows, op, "sums past int32 wrap", [](Gen&) {
    return Args{full({1, 140000}, 255).to(DType::UInt8), full({140000, 2}, -64).to(DType::Int8)};
  });
  add_row(rows, op, "M = 0", [weights](Gen& g) {
    return Args{g.ints({0, 8}, 0, 255, DType::UInt8), weights(g, 8, 3)};
  });
  add_row(rows, op, "K = 0 gives zeros", [weights](Gen& g) {
    return Args{g.ints({2, 0}, -128, 127, DType::Int8), weights(g, 0, 3)};
  });
  add_error(rows, op, "uint8 weights", [](Gen& g) {
    return Args{g.ints({2, 3}, 0, 255, DType::UInt8), g.ints({3, 4}, 0, 255, DType::UInt8)};
  });
  add_error(rows, op, "float self", [weights](Gen& g) {
    return Args{g.randn({2, 3}), weights(g, 3, 4)};
  });
  add_error(rows, op, "inner sizes differ", [weights](Gen& g) {
    return Args{g.ints({2, 3}, -128, 127, DType::Int8), weights(g, 4, 4)};
  });
}

void bmm_rows(Rows& rows) {
  const std::string op = "aten::bmm";
  add_row(rows, op, "f32", [](Gen& g) { return Args{g.randn({2, 3, 4}), g.randn({2, 4, 5})}; });
  add_row(rows, op, "many small matrices", [](Gen& g) {
    return Args{g.randn({64, 8, 16}), g.randn({64, 16, 8})};
  });
  add_long_k(rows, op, "large matrices", [](Gen& g) {
    return Args{g.randn({3, 70, 260}), g.randn({3, 260, 40})};
  });
  add_row(rows, op, "transposed matrices", [](Gen& g) {
    return Args{g.randn({2, 4, 3}).transpose(1, 2), g.randn({2, 5, 4}).transpose(1, 2)};
  });
  add_row(rows, op, "fully transposed (copied)", [](Gen& g) {
    return Args{g.transposed({2, 3, 4}), g.transposed({2, 4, 5})};
  });
  add_row(rows, op, "batch-first permuted", [](Gen& g) {
    return Args{g.randn({3, 2, 4}).transpose(0, 1), g.randn({2, 4, 5})};
  });
  add_row(rows, op, "expanded batch", [](Gen& g) {
    return Args{g.randn({1, 3, 4}).expand({5, 3, 4}), g.randn({5, 4, 2})};
  });
  add_row(rows, op, "batch 0", [](Gen& g) { return Args{g.randn({0, 3, 4}), g.randn({0, 4, 5})}; });
  add_row(rows, op, "K = 0 gives zeros", [](Gen& g) {
    return Args{g.randn({2, 3, 0}), g.randn({2, 0, 5})};
  });
  add_row(rows, op, "f64", [](Gen& g) {
    return Args{g.randn({3, 4, 5}, DType::Float64), g.randn({3, 5, 2}, DType::Float64)};
  });
  add_row(rows, op, "int64", [](Gen& g) {
    return Args{g.ints({2, 3, 4}, -9, 9), g.ints({2, 4, 5}, -9, 9)};
  });
  add_bf16(rows, op, "bf16", [](Gen& g) {
    return Args{g.randn({2, 3, 8}, DType::BFloat16), g.randn({2, 8, 4}, DType::BFloat16)};
  });
  add_error(rows, op, "batch sizes differ (no broadcasting)", [](Gen& g) {
    return Args{g.randn({1, 2, 3}), g.randn({2, 3, 4})};
  });
  add_error(rows, op, "inner sizes differ", [](Gen& g) {
    return Args{g.randn({2, 2, 3}), g.randn({2, 4, 4})};
  });
  add_error(rows, op, "2-D operand", [](Gen& g) {
    return Args{g.randn({2, 3}), g.randn({2, 3, 4})};
  });
  add_error(rows, op, "dtypes differ", [](Gen& g) {
    return Args{g.randn({2, 2, 3}), g.randn({2, 3, 4}, DType::Float64)};
  });
}

void addmm_rows(Rows& rows) {
  const std::string op = "aten::addmm";
  add_row(rows, op, "vector bias", [](Gen& g) {
    return Args{g.randn({5}), g.randn({3, 4}), g.randn({4, 5})};
  });
  add_row(rows, op, "matrix self", [](Gen& g) {
    return Args{g.randn({3, 5}), g.randn({3, 4}), g.randn({4, 5})};
  });
  add_row(rows, op, "column self [3, 1]", [](Gen& g) {
    return Args{g.randn({3, 1}), g.randn({3, 4}), g.randn({4, 5})};
  });
  add_row(rows, op, "0-dim self", [](Gen& g) {
    return Args{g.randn({}), g.randn({3, 4}), g.randn({4, 5})};
  });
  add_row(rows, op, "beta and alpha", [](Gen& g) {
    return Args{g.randn({5}), g.randn({3, 4}), g.randn({4, 5}), 0.5, 2.0};
  });
  add_row(rows, op, "beta 0 ignores NaN self", [](Gen& g) {
    return Args{nans({3, 5}), g.randn({3, 4}), g.randn({4, 5}), 0.0};
  });
  add_row(rows, op, "linear layout (transposed weight)", [](Gen& g) {
    return Args{g.randn({6}), g.randn({4, 8}), g.randn({6, 8}).t()};
  });
  add_long_k(rows, op, "large", [](Gen& g) {
    return Args{g.randn({40}), g.randn({33, 500}), g.randn({40, 500}).t()};
  });
  add_row(rows, op, "K = 0 gives beta * self", [](Gen& g) {
    return Args{g.randn({5}), g.randn({3, 0}), g.randn({0, 5}), 3.0};
  });
  add_row(rows, op, "empty rows", [](Gen& g) {
    return Args{g.randn({5}), g.randn({0, 4}), g.randn({4, 5})};
  });
  add_row(rows, op, "f64", [](Gen& g) {
    return Args{g.randn({5}, DType::Float64), g.randn({3, 4}, DType::Float64),
                g.randn({4, 5}, DType::Float64), 0.5, -1.5};
  });
  add_row(rows, op, "int64 with integer beta and alpha", [](Gen& g) {
    return Args{g.ints({5}, -9, 9), g.ints({3, 4}, -9, 9), g.ints({4, 5}, -9, 9), int64_t{2},
                int64_t{-3}};
  });
  add_bf16(rows, op, "bf16", [](Gen& g) {
    return Args{g.randn({5}, DType::BFloat16), g.randn({3, 8}, DType::BFloat16),
                g.randn({8, 5}, DType::BFloat16)};
  });
  add_error(rows, op, "self does not broadcast", [](Gen& g) {
    return Args{g.randn({3}), g.randn({2, 3}), g.randn({3, 4})};
  });
  add_error(rows, op, "3-D self", [](Gen& g) {
    return Args{g.randn({2, 2, 4}), g.randn({2, 3}), g.randn({3, 4})};
  });
  add_error(rows, op, "self dtype differs", [](Gen& g) {
    return Args{g.randn({4}, DType::Float64), g.randn({2, 3}), g.randn({3, 4})};
  });
  add_error(rows, op, "inner sizes differ", [](Gen& g) {
    return Args{g.randn({4}), g.randn({2, 3}), g.randn({2, 4})};
  });
}

void baddbmm_rows(Rows& rows) {
  const std::string op = "aten::baddbmm";
  add_row(rows, op, "vector self", [](Gen& g) {
    return Args{g.randn({5}), g.randn({2, 3, 4}), g.randn({2, 4, 5})};
  });
  add_row(rows, op, "full self", [](Gen& g) {
    return Args{g.randn({2, 3, 5}), g.randn({2, 3, 4}), g.randn({2, 4, 5})};
  });
  add_row(rows, op, "beta and alpha (attention scaling)", [](Gen& g) {
    return Args{g.randn({1, 3, 5}), g.randn({4, 3, 8}), g.randn({4, 5, 8}).transpose(1, 2), 0.5,
                0.125};
  });
  add_row(rows, op, "beta 0 ignores NaN self", [](Gen& g) {
    return Args{nans({2, 3, 5}), g.randn({2, 3, 4}), g.randn({2, 4, 5}), 0.0};
  });
  add_row(rows, op, "f64", [](Gen& g) {
    return Args{g.randn({3, 1}, DType::Float64), g.randn({2, 3, 4}, DType::Float64),
                g.randn({2, 4, 5}, DType::Float64), 2.0, 0.5};
  });
  add_row(rows, op, "int64", [](Gen& g) {
    return Args{g.ints({5}, -9, 9), g.ints({2, 3, 4}, -9, 9), g.ints({2, 4, 5}, -9, 9), int64_t{2},
                int64_t{3}};
  });
  add_bf16(rows, op, "bf16", [](Gen& g) {
    return Args{g.randn({5}, DType::BFloat16), g.randn({2, 3, 8}, DType::BFloat16),
                g.randn({2, 8, 5}, DType::BFloat16)};
  });
  add_error(rows, op, "self does not broadcast", [](Gen& g) {
    return Args{g.randn({3, 3, 5}), g.randn({2, 3, 4}), g.randn({2, 4, 5})};
  });
  add_error(rows, op, "batch sizes differ", [](Gen& g) {
    return Args{g.randn({5}), g.randn({2, 3, 4}), g.randn({3, 4, 5})};
  });
}

void dot_rows(Rows& rows) {
  const std::string op = "aten::dot";
  add_row(rows, op, "f32", [](Gen& g) { return Args{g.randn({7}), g.randn({7})}; });
  add_long_k(rows, op, "f32 long", [](Gen& g) { return Args{g.randn({5000}), g.randn({5000})}; });
  add_row(rows, op, "strided", [](Gen& g) {
    return Args{g.randn({12}).slice(0, 0, 12, 3), g.randn({4, 2}).select(1, 1)};
  });
  add_row(rows, op, "empty gives 0", [](Gen& g) { return Args{g.randn({0}), g.randn({0})}; });
  add_row(rows, op, "f64", [](Gen& g) {
    return Args{g.randn({9}, DType::Float64), g.randn({9}, DType::Float64)};
  });
  add_row(rows, op, "int64", [](Gen& g) { return Args{g.ints({9}, -9, 9), g.ints({9}, -9, 9)}; });
  add_bf16(rows, op, "bf16", [](Gen& g) {
    return Args{g.randn({9}, DType::BFloat16), g.randn({9}, DType::BFloat16)};
  });
  add_error(rows, op, "sizes differ", [](Gen& g) { return Args{g.randn({3}), g.randn({4})}; });
  add_error(rows, op, "2-D", [](Gen& g) { return Args{g.randn({2, 3}), g.randn({3})}; });
  add_error(rows, op, "dtypes differ", [](Gen& g) {
    return Args{g.randn({3}), g.randn({3}, DType::Float64)};
  });
}

void matmul_rows(Rows& rows) {
  const std::string op = "aten::matmul";
  struct Case {
    const char* label;
    S a, b;
  };
  for (const Case& c : std::vector<Case>{
           {"1-D x 1-D (dot)", {5}, {5}},
           {"2-D x 1-D", {3, 5}, {5}},
           {"1-D x 2-D", {5}, {5, 4}},
           {"2-D x 2-D", {3, 5}, {5, 4}},
           {"3-D x 1-D", {2, 3, 5}, {5}},
           {"1-D x 3-D", {5}, {2, 5, 4}},
           {"3-D x 2-D (folded)", {2, 3, 5}, {5, 4}},
           {"4-D x 2-D (folded)", {2, 2, 3, 5}, {5, 4}},
           {"2-D x 3-D", {3, 5}, {2, 5, 4}},
           {"3-D x 3-D", {2, 3, 5}, {2, 5, 4}},
           {"batch broadcast [2,1,3,5] x [4,5,2]", {2, 1, 3, 5}, {4, 5, 2}},
           {"batch broadcast [1,3,5] x [2,1,5,4]", {1, 3, 5}, {2, 1, 5, 4}},
           {"batch broadcast [3,1,2,5] x [1,4,5,2]", {3, 1, 2, 5}, {1, 4, 5, 2}},
           {"4-D x 1-D", {2, 2, 3, 5}, {5}},
           {"1-D x 4-D", {5}, {2, 2, 5, 3}},
           {"empty batch", {0, 3, 5}, {5, 4}},
           {"K = 0", {2, 3, 0}, {2, 0, 4}},
           {"[3, 5, 0] x [0, 0]", {3, 5, 0}, {0, 0}},
           {"1-D empty", {0}, {0}},
       }) {
    const S a = c.a, b = c.b;
    add_row(rows, op, std::string("f32 ") + c.label, [a, b](Gen& g) {
      return Args{g.randn(a), g.randn(b)};
    });
  }
  add_row(rows, op, "transposed 2-D x 2-D", [](Gen& g) {
    return Args{g.transposed({3, 5}), g.transposed({5, 4})};
  });
  add_row(rows, op, "non-contiguous 3-D x 2-D (copied fold)", [](Gen& g) {
    return Args{g.randn({3, 2, 5}).transpose(0, 1), g.transposed({5, 4})};
  });
  add_row(rows, op, "transposed batches", [](Gen& g) {
    return Args{g.transposed({2, 3, 5}), g.randn({2, 4, 5}).transpose(1, 2)};
  });
  add_long_k(rows, op, "large 3-D x 2-D", [](Gen& g) {
    return Args{g.randn({4, 32, 256}), g.randn({256, 48})};
  });
  add_row(rows, op, "f64 batched broadcast", [](Gen& g) {
    return Args{g.randn({2, 1, 3, 4}, DType::Float64), g.randn({3, 4, 2}, DType::Float64)};
  });
  add_row(rows, op, "int64 3-D x 2-D", [](Gen& g) {
    return Args{g.ints({2, 3, 4}, -9, 9), g.ints({4, 2}, -9, 9)};
  });
  add_bf16(rows, op, "bf16 batched", [](Gen& g) {
    return Args{g.randn({2, 3, 8}, DType::BFloat16), g.randn({2, 8, 4}, DType::BFloat16)};
  });
  add_error(rows, op, "0-dim operand", [](Gen& g) { return Args{g.randn({}), g.randn({3})}; });
  add_error(rows, op, "1-D sizes differ", [](Gen& g) { return Args{g.randn({3}), g.randn({4})}; });
  add_error(rows, op, "inner sizes differ", [](Gen& g) {
    return Args{g.randn({2, 3}), g.randn({4, 2})};
  });
  add_error(rows, op, "batched inner sizes differ", [](Gen& g) {
    return Args{g.randn({2, 2, 3}), g.randn({2, 4, 2})};
  });
  add_error(rows, op, "batch dims do not broadcast", [](Gen& g) {
    return Args{g.randn({2, 2, 3}), g.randn({3, 3, 2})};
  });
  add_error(rows, op, "dtypes differ", [](Gen& g) {
    return Args{g.randn({2, 3}), g.randn({3, 2}, DType::Float64)};
  });
}

void linear_rows(Rows& rows) {
  const std::string op = "aten::linear";
  add_row(rows, op, "2-D with bias", [](Gen& g) {
    return Args{g.randn({4, 6}), g.randn({3, 6}), g.randn({3})};
  });
  add_row(rows, op, "2-D without bias", [](Gen& g) {
    return Args{g.randn({4, 6}), g.randn({3, 6})};
  });
  add_row(rows, op, "3-D with bias (flattened)", [](Gen& g) {
    return Args{g.randn({2, 4, 6}), g.randn({3, 6}), g.randn({3})};
  });
  add_row(rows, op, "4-D without bias", [](Gen& g) {
    return Args{g.randn({2, 2, 4, 6}), g.randn({3, 6}), Value()};
  });
  add_row(rows, op, "non-contiguous 3-D input", [](Gen& g) {
    return Args{g.randn({4, 2, 6}).transpose(0, 1), g.randn({3, 6}), g.randn({3})};
  });
  add_row(rows, op, "1-D input", [](Gen& g) {
    return Args{g.randn({6}), g.randn({3, 6}), g.randn({3})};
  });
  add_row(rows, op, "1-D weight", [](Gen& g) {
    return Args{g.randn({4, 6}), g.randn({6}), Value()};
  });
  add_row(rows, op, "1-D weight, 4-D input, bias", [](Gen& g) {
    return Args{g.randn({2, 2, 4, 6}), g.randn({6}), g.randn({})};
  });
  add_row(rows, op, "0-dim bias", [](Gen& g) {
    return Args{g.randn({4, 6}), g.randn({3, 6}), g.randn({})};
  });
  add_row(rows, op, "2-D bias", [](Gen& g) {
    return Args{g.randn({4, 6}), g.randn({3, 6}), g.randn({4, 3})};
  });
  add_row(rows, op, "2-D bias, 4-D input", [](Gen& g) {
    return Args{g.randn({2, 2, 4, 6}), g.randn({3, 6}), g.randn({4, 3})};
  });
  add_row(rows, op, "2-D bias, non-contiguous 3-D input", [](Gen& g) {
    return Args{g.randn({4, 2, 6}).transpose(0, 1), g.randn({3, 6}), g.randn({4, 3})};
  });
  add_row(rows, op, "empty batch", [](Gen& g) {
    return Args{g.randn({0, 6}), g.randn({3, 6}), g.randn({3})};
  });
  add_long_k(rows, op, "large", [](Gen& g) {
    return Args{g.randn({8, 16, 384}), g.randn({96, 384}), g.randn({96})};
  });
  add_row(rows, op, "f64", [](Gen& g) {
    return Args{g.randn({2, 4, 6}, DType::Float64), g.randn({3, 6}, DType::Float64),
                g.randn({3}, DType::Float64)};
  });
  add_row(rows, op, "int64", [](Gen& g) {
    return Args{g.ints({4, 6}, -9, 9), g.ints({3, 6}, -9, 9), g.ints({3}, -9, 9)};
  });
  add_bf16(rows, op, "bf16", [](Gen& g) {
    return Args{g.randn({4, 8}, DType::BFloat16), g.randn({3, 8}, DType::BFloat16),
                g.randn({3}, DType::BFloat16)};
  });
  add_error(rows, op, "in_features differ", [](Gen& g) {
    return Args{g.randn({4, 6}), g.randn({3, 5}), g.randn({3})};
  });
  add_error(rows, op, "bias size differs", [](Gen& g) {
    return Args{g.randn({4, 6}), g.randn({3, 6}), g.randn({4})};
  });
  // ATen folds a 1-D bias into one addmm over the flattened rows of a contiguous input, which
  // needs a 2-D weight; other biases are added after the matmul, in place.
  add_row(rows, op, "1-D weight with contiguous 3-D input and 0-dim bias", [](Gen& g) {
    return Args{g.randn({2, 4, 6}), g.randn({6}), g.randn({})};
  });
  add_error(rows, op, "1-D weight with contiguous 3-D input and 1-D bias", [](Gen& g) {
    return Args{g.randn({2, 4, 6}), g.randn({6}), g.randn({1})};
  });
  add_row(rows, op, "1-D weight with non-contiguous 3-D input and 1-D bias", [](Gen& g) {
    return Args{g.randn({4, 2, 6}).transpose(0, 1), g.randn({6}), g.randn({1})};
  });
  add_error(rows, op, "bias that would enlarge the output", [](Gen& g) {
    return Args{g.randn({6}), g.randn({3, 6}), g.randn({2, 3})};
  });
  add_error(rows, op, "1-D weight with 2-D input and bias", [](Gen& g) {
    return Args{g.randn({4, 6}), g.randn({6}), g.randn({})};
  });
  add_row(rows, op, "2-D bias, contiguous 3-D input", [](Gen& g) {
    return Args{g.randn({2, 4, 6}), g.randn({3, 6}), g.randn({4, 3})};
  });
  add_row(rows, op, "1-D input, 1-D weight and bias", [](Gen& g) {
    return Args{g.randn({6}), g.randn({6}), g.randn({})};
  });
  add_error(rows, op, "3-D weight", [](Gen& g) {
    return Args{g.randn({4, 6}), g.randn({2, 3, 6}), Value()};
  });
}

// convolution's positional arguments after input, weight and bias.
Args conv_args(Tensor x, Tensor w, Value bias, S stride, S padding, S dilation, int64_t groups) {
  return Args{x, w, bias, stride, padding, dilation, false, S{0, 0}, groups};
}

// Transposed convolution (nn.ConvTranspose1d/2d): weight [C, O / groups, k...], and
// output_padding.
Args transposed_args(Tensor x, Tensor w, Value bias, S stride, S padding, S dilation,
                     S output_padding, int64_t groups) {
  return Args{x, w, bias, stride, padding, dilation, true, output_padding, groups};
}

void transposed_convolution_rows(Rows& rows) {
  const std::string op = "aten::convolution";
  add_row(rows, op, "transposed 3x3 stride 2, output_padding 1, bias", [](Gen& g) {
    return transposed_args(g.randn({2, 4, 5, 5}), g.randn({4, 3, 3, 3}), g.randn({3}), {2, 2},
                           {1, 1}, {1, 1}, {1, 1}, 1);
  });
  add_row(rows, op, "transposed groups 2, dilation 2, asymmetric", [](Gen& g) {
    return transposed_args(g.randn({1, 4, 4, 6}), g.randn({4, 3, 3, 2}), Value(), {1, 2}, {2, 0},
                           {2, 1}, {0, 1}, 2);
  });
  add_row(rows, op, "transposed 2x2 stride 2 (U-Net upsampling), f64", [](Gen& g) {
    return transposed_args(g.randn({1, 6, 3, 4}, DType::Float64),
                           g.randn({6, 2, 2, 2}, DType::Float64), g.randn({2}, DType::Float64),
                           {2, 2}, {0, 0}, {1, 1}, {0, 0}, 1);
  });
  add_row(rows, op, "transposed 1-D", [](Gen& g) {
    return transposed_args(g.randn({2, 3, 7}), g.randn({3, 5, 4}), g.randn({5}), {3}, {1}, {1},
                           {2}, 1);
  });
  // PyTorch's bf16 result depends on the CPU: with AVX-512 its oneDNN kernel accumulates in
  // float32, elsewhere (AVX2) its slow path adds the overlapping taps in bf16, rounding partial
  // sums of up to ~10 (bf16 steps of 0.06) so that outputs near 0 are off by up to ~0.02. Ours
  // accumulates in float32 everywhere; atol is bf16's rounding at the output's scale.
  rows.push_back({op, "transposed bf16",
                  [](Gen& g) {
                    return transposed_args(g.randn({1, 2, 4, 4}, DType::BFloat16),
                                           g.randn({2, 3, 3, 3}, DType::BFloat16), Value(), {2, 2},
                                           {1, 1}, {1, 1}, {0, 0}, 1);
                  },
                  -1, 0.04});
  add_error(rows, op, "transposed output_padding not below stride or dilation", [](Gen& g) {
    return transposed_args(g.randn({1, 2, 4, 4}), g.randn({2, 3, 3, 3}), Value(), {1, 1}, {0, 0},
                           {1, 1}, {1, 1}, 1);
  });
  add_error(rows, op, "transposed input channels differ", [](Gen& g) {
    return transposed_args(g.randn({1, 3, 4, 4}), g.randn({2, 3, 3, 3}), Value(), {1, 1}, {0, 0},
                           {1, 1}, {0, 0}, 1);
  });

  add_row(rows, "aten::conv_transpose2d.input", "stride 2, output_padding 1", [](Gen& g) {
    return Args{g.randn({2, 4, 5, 5}), g.randn({4, 3, 3, 3}), g.randn({3}), S{2, 2}, S{1, 1},
                S{1, 1}};
  });
  add_row(rows, "aten::conv_transpose2d.input", "unbatched, groups 2, dilation 2", [](Gen& g) {
    return Args{g.randn({4, 3, 3}), g.randn({4, 1, 2, 2}), Value(), S{1, 1}, S{0, 0}, S{0, 0},
                int64_t{2}, S{2, 2}};
  });
  add_row(rows, "aten::conv_transpose1d", "defaults", [](Gen& g) {
    return Args{g.randn({2, 3, 7}), g.randn({3, 2, 4})};
  });

  // convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
  // transposed, output_padding, groups, output_mask): grad_output has the convolution's shape.
  const std::string bw = "aten::convolution_backward";
  using M = std::vector<bool>;
  add_row(rows, bw, "all three, stride 2, padding 1", [](Gen& g) {
    return Args{g.randn({2, 4, 4, 4}), g.randn({2, 3, 8, 8}), g.randn({4, 3, 3, 3}), S{4},
                S{2, 2}, S{1, 1}, S{1, 1}, false, S{0, 0}, int64_t{1}, M{true, true, true}};
  });
  add_row(rows, bw, "groups 2, dilation 2, no input gradient", [](Gen& g) {
    return Args{g.randn({1, 6, 5, 5}), g.randn({1, 4, 9, 9}), g.randn({6, 2, 3, 3}), Value(),
                S{1, 1}, S{0, 0}, S{2, 2}, false, S{0, 0}, int64_t{2}, M{false, true, true}};
  });
  add_row(rows, bw, "input gradient only, strided windows that skip pixels", [](Gen& g) {
    return Args{g.randn({2, 3, 3, 3}), g.randn({2, 2, 8, 8}), g.randn({3, 2, 2, 2}), Value(),
                S{3, 3}, S{0, 0}, S{1, 1}, false, S{0, 0}, int64_t{1}, M{true, false, false}};
  });
  add_row(rows, bw, "1-D, f64", [](Gen& g) {
    return Args{g.randn({2, 4, 6}, DType::Float64), g.randn({2, 2, 11}, DType::Float64),
                g.randn({4, 2, 3}, DType::Float64), S{4}, S{2}, S{1}, S{1}, false, S{0},
                int64_t{1}, M{true, true, true}};
  });
  add_row(rows, bw, "transposed, stride 2, output_padding 1", [](Gen& g) {
    return Args{g.randn({2, 3, 10, 10}), g.randn({2, 4, 5, 5}), g.randn({4, 3, 3, 3}), S{3},
                S{2, 2}, S{1, 1}, S{1, 1}, true, S{1, 1}, int64_t{1}, M{true, true, true}};
  });
  add_row(rows, bw, "transposed groups 2, weight gradient only", [](Gen& g) {
    return Args{g.randn({1, 6, 6, 6}), g.randn({1, 4, 4, 4}), g.randn({4, 3, 3, 3}), Value(),
                S{1, 1}, S{0, 0}, S{1, 1}, true, S{0, 0}, int64_t{2}, M{false, true, false}};
  });
  add_row(rows, bw, "empty batch", [](Gen& g) {
    return Args{g.randn({0, 3, 3, 3}), g.randn({0, 2, 5, 5}), g.randn({3, 2, 3, 3}), S{3},
                S{1, 1}, S{0, 0}, S{1, 1}, false, S{0, 0}, int64_t{1}, M{true, true, true}};
  });
  add_error(rows, bw, "grad_output of the wrong shape", [](Gen& g) {
    return Args{g.randn({2, 4, 5, 5}), g.randn({2, 3, 8, 8}), g.randn({4, 3, 3, 3}), S{4},
                S{1, 1}, S{0, 0}, S{1, 1}, false, S{0, 0}, int64_t{1}, M{true, true, true}};
  });
}

void convolution_rows(Rows& rows) {
  const std::string op = "aten::convolution";
  add_row(rows, op, "3x3 with bias", [](Gen& g) {
    return conv_args(g.randn({2, 3, 8, 8}), g.randn({4, 3, 3, 3}), g.randn({4}), {1, 1}, {0, 0},
                     {1, 1}, 1);
  });
  add_row(rows, op, "no bias, stride 2, padding 1", [](Gen& g) {
    return conv_args(g.randn({1, 3, 9, 9}), g.randn({5, 3, 3, 3}), Value(), {2, 2}, {1, 1}, {1, 1},
                     1);
  });
  add_row(rows, op, "single-value lists", [](Gen& g) {
    return conv_args(g.randn({1, 2, 7, 7}), g.randn({3, 2, 3, 3}), g.randn({3}), {2}, {1}, {1}, 1);
  });
  add_row(rows, op, "dilation 2", [](Gen& g) {
    return conv_args(g.randn({3, 2, 10, 9}), g.randn({4, 2, 3, 3}), g.randn({4}), {1, 1}, {2, 2},
                     {2, 2}, 1);
  });
  add_row(rows, op, "asymmetric stride, padding, kernel", [](Gen& g) {
    return conv_args(g.randn({2, 3, 11, 8}), g.randn({4, 3, 5, 2}), g.randn({4}), {3, 1}, {2, 0},
                     {1, 2}, 1);
  });
  add_row(rows, op, "groups 2", [](Gen& g) {
    return conv_args(g.randn({2, 4, 6, 6}), g.randn({6, 2, 3, 3}), g.randn({6}), {1, 1}, {1, 1},
                     {1, 1}, 2);
  });
  add_row(rows, op, "depthwise", [](Gen& g) {
    return conv_args(g.randn({2, 8, 7, 7}), g.randn({8, 1, 3, 3}), g.randn({8}), {1, 1}, {1, 1},
                     {1, 1}, 8);
  });
  add_row(rows, op, "depthwise stride 2, channel multiplier 2", [](Gen& g) {
    return conv_args(g.randn({1, 4, 9, 9}), g.randn({8, 1, 3, 3}), Value(), {2, 2}, {1, 1}, {1, 1},
                     4);
  });
  add_row(rows, op, "1x1", [](Gen& g) {
    return conv_args(g.randn({3, 16, 5, 5}), g.randn({8, 16, 1, 1}), g.randn({8}), {1, 1}, {0, 0},
                     {1, 1}, 1);
  });
  add_row(rows, op, "7x7 stride 2 (ResNet stem, small)", [](Gen& g) {
    return conv_args(g.randn({1, 3, 32, 32}), g.randn({16, 3, 7, 7}), Value(), {2, 2}, {3, 3},
                     {1, 1}, 1);
  });
  add_long_k(rows, op, "many input channels", [](Gen& g) {
    return conv_args(g.randn({1, 64, 10, 10}), g.randn({32, 64, 3, 3}), g.randn({32}), {1, 1},
                     {1, 1}, {1, 1}, 1);
  });
  add_row(rows, op, "non-contiguous input and weight", [](Gen& g) {
    return conv_args(g.transposed({2, 3, 6, 6}), g.transposed({4, 3, 3, 3}), g.randn({4}), {1, 1},
                     {1, 1}, {1, 1}, 1);
  });
  add_row(rows, op, "kernel equals padded input", [](Gen& g) {
    return conv_args(g.randn({1, 2, 3, 3}), g.randn({2, 2, 5, 5}), g.randn({2}), {1, 1}, {1, 1},
                     {1, 1}, 1);
  });
  add_row(rows, op, "batch 0", [](Gen& g) {
    return conv_args(g.randn({0, 2, 5, 5}), g.randn({3, 2, 3, 3}), Value(), {1, 1}, {0, 0}, {1, 1},
                     1);
  });
  add_row(rows, op, "f64", [](Gen& g) {
    return conv_args(g.randn({2, 4, 7, 6}, DType::Float64), g.randn({6, 2, 3, 2}, DType::Float64),
                     g.randn({6}, DType::Float64), {2, 1}, {1, 1}, {1, 2}, 2);
  });
  add_row(rows, op, "f64 input, f32 bias", [](Gen& g) {
    return conv_args(g.randn({1, 2, 5, 5}, DType::Float64), g.randn({3, 2, 3, 3}, DType::Float64),
                     g.randn({3}), {1, 1}, {0, 0}, {1, 1}, 1);
  });
  add_row(rows, op, "int64", [](Gen& g) {
    return conv_args(g.ints({1, 2, 5, 5}, -9, 9), g.ints({3, 2, 3, 3}, -9, 9), g.ints({3}, -9, 9),
                     {1, 1}, {1, 1}, {1, 1}, 1);
  });
  add_row(rows, op, "bf16", [](Gen& g) {
    return conv_args(g.randn({1, 4, 6, 6}, DType::BFloat16), g.randn({4, 4, 3, 3}, DType::BFloat16),
                     g.randn({4}, DType::BFloat16), {1, 1}, {1, 1}, {1, 1}, 1);
  });
  add_row(rows, op, "f16", [](Gen& g) {
    return conv_args(g.randn({1, 4, 6, 6}, DType::Float16), g.randn({4, 4, 3, 3}, DType::Float16),
                     g.randn({4}, DType::Float16), {1, 1}, {1, 1}, {1, 1}, 1);
  });
  add_error(rows, op, "3-D input", [](Gen& g) {
    return conv_args(g.randn({2, 5, 5}), g.randn({3, 2, 3, 3}), Value(), {1, 1}, {0, 0}, {1, 1}, 1);
  });
  add_error(rows, op, "channels differ", [](Gen& g) {
    return conv_args(g.randn({1, 3, 5, 5}), g.randn({4, 2, 3, 3}), Value(), {1, 1}, {0, 0}, {1, 1},
                     1);
  });
  add_error(rows, op, "out channels not divisible by groups", [](Gen& g) {
    return conv_args(g.randn({1, 4, 5, 5}), g.randn({3, 2, 3, 3}), Value(), {1, 1}, {0, 0}, {1, 1},
                     2);
  });
  add_error(rows, op, "bias size differs", [](Gen& g) {
    return conv_args(g.randn({1, 2, 5, 5}), g.randn({3, 2, 3, 3}), g.randn({4}), {1, 1}, {0, 0},
                     {1, 1}, 1);
  });
  add_error(rows, op, "kernel larger than padded input", [](Gen& g) {
    return conv_args(g.randn({1, 2, 2, 2}), g.randn({3, 2, 3, 3}), Value(), {1, 1}, {0, 0}, {1, 1},
                     1);
  });
  add_error(rows, op, "negative padding", [](Gen& g) {
    return conv_args(g.randn({1, 2, 5, 5}), g.randn({3, 2, 3, 3}), Value(), {1, 1}, {-1, 0}, {1, 1},
                     1);
  });
  add_error(rows, op, "stride 0", [](Gen& g) {
    return conv_args(g.randn({1, 2, 5, 5}), g.randn({3, 2, 3, 3}), Value(), {0, 1}, {0, 0}, {1, 1},
                     1);
  });
  add_error(rows, op, "weight dtype differs", [](Gen& g) {
    return conv_args(g.randn({1, 2, 5, 5}, DType::Float64), g.randn({3, 2, 3, 3}), Value(), {1, 1},
                     {0, 0}, {1, 1}, 1);
  });
  add_error(rows, op, "three strides", [](Gen& g) {
    return conv_args(g.randn({1, 2, 5, 5}), g.randn({3, 2, 3, 3}), Value(), {1, 1, 1}, {0, 0},
                     {1, 1}, 1);
  });
  // 1-D: [N, C, L] input, [O, C / groups, k] weight.
  add_row(rows, op, "1-D with bias, stride, padding, dilation, groups", [](Gen& g) {
    return Args{g.randn({2, 4, 12}), g.randn({6, 2, 3}), g.randn({6}), S{2}, S{1}, S{2}, false,
                S{0}, int64_t{2}};
  });
  add_row(rows, op, "1-D no bias, non-contiguous input", [](Gen& g) {
    return Args{g.transposed({2, 3, 9}), g.randn({4, 3, 4}), Value(), S{1}, S{0}, S{1}, false,
                S{0}, int64_t{1}};
  });
  add_error(rows, op, "1-D weight with 4-D input", [](Gen& g) {
    return Args{g.randn({1, 3, 5, 5}), g.randn({4, 3, 3}), Value(), S{1}, S{0}, S{1}, false,
                S{0}, int64_t{1}};
  });
  transposed_convolution_rows(rows);
}

// conv1d, and padding given as "valid" or "same" (an even kernel pads one more on the right).
void conv1d_and_padding_rows(Rows& rows) {
  std::string op = "aten::conv1d";
  add_row(rows, op, "defaults", [](Gen& g) {
    return Args{g.randn({2, 3, 10}), g.randn({4, 3, 3})};
  });
  add_row(rows, op, "bias, stride 2, padding 1", [](Gen& g) {
    return Args{g.randn({2, 3, 11}), g.randn({5, 3, 3}), g.randn({5}), S{2}, S{1}};
  });
  add_row(rows, op, "unbatched", [](Gen& g) { return Args{g.randn({3, 8}), g.randn({2, 3, 2})}; });
  add_error(rows, op, "4-D input", [](Gen& g) {
    return Args{g.randn({1, 3, 4, 8}), g.randn({2, 3, 2})};
  });
  op = "aten::conv1d.padding";
  add_row(rows, op, "same, odd kernel", [](Gen& g) {
    return Args{g.randn({2, 3, 10}), g.randn({4, 3, 3}), g.randn({4}), S{1}, std::string("same")};
  });
  add_row(rows, op, "same, even kernel", [](Gen& g) {
    return Args{g.randn({2, 3, 9}), g.randn({4, 3, 4}), Value(), S{1}, std::string("same")};
  });
  add_row(rows, op, "same, dilation 3", [](Gen& g) {
    return Args{g.randn({1, 2, 9}), g.randn({3, 2, 2}), Value(), S{1}, std::string("same"), S{3}};
  });
  add_row(rows, op, "valid", [](Gen& g) {
    return Args{g.randn({2, 3, 9}), g.randn({4, 3, 4}), g.randn({4}), S{2},
                std::string("valid")};
  });
  add_error(rows, op, "same with stride 2", [](Gen& g) {
    return Args{g.randn({2, 3, 9}), g.randn({4, 3, 3}), Value(), S{2}, std::string("same")};
  });
  add_error(rows, op, "unknown mode", [](Gen& g) {
    return Args{g.randn({2, 3, 9}), g.randn({4, 3, 3}), Value(), S{1}, std::string("full")};
  });
  op = "aten::conv2d.padding";
  add_row(rows, op, "same, 3x2 kernel", [](Gen& g) {
    return Args{g.randn({1, 3, 7, 6}), g.randn({4, 3, 3, 2}), g.randn({4}), S{1, 1},
                std::string("same")};
  });
  add_row(rows, op, "same, depthwise", [](Gen& g) {
    return Args{g.randn({2, 4, 5, 5}), g.randn({4, 1, 3, 3}), Value(), S{1, 1},
                std::string("same"), S{1, 1}, int64_t{4}};
  });
  add_row(rows, op, "valid", [](Gen& g) {
    return Args{g.randn({1, 2, 6, 6}), g.randn({3, 2, 3, 3}), Value(), S{1, 1},
                std::string("valid")};
  });
}

void conv2d_rows(Rows& rows) {
  const std::string op = "aten::conv2d";
  add_row(rows, op, "defaults", [](Gen& g) {
    return Args{g.randn({2, 3, 6, 6}), g.randn({4, 3, 3, 3})};
  });
  add_row(rows, op, "bias, stride, padding, dilation", [](Gen& g) {
    return Args{g.randn({3, 3, 9, 8}),
                g.randn({4, 3, 3, 3}),
                g.randn({4}),
                S{2, 1},
                S{1, 2},
                S{1, 2},
                int64_t{1}};
  });
  add_row(rows, op, "integer stride and padding", [](Gen& g) {
    return Args{g.randn({1, 3, 9, 9}), g.randn({4, 3, 3, 3}), g.randn({4}), int64_t{2}, int64_t{1}};
  });
  add_row(rows, op, "depthwise", [](Gen& g) {
    return Args{g.randn({1, 6, 8, 8}),
                g.randn({6, 1, 3, 3}),
                g.randn({6}),
                S{1, 1},
                S{1, 1},
                S{1, 1},
                int64_t{6}};
  });
  add_row(rows, op, "groups 3", [](Gen& g) {
    return Args{g.randn({2, 6, 5, 5}),
                g.randn({9, 2, 3, 3}),
                Value(),
                S{1, 1},
                S{0, 0},
                S{1, 1},
                int64_t{3}};
  });
  add_row(rows, op, "unbatched 3-D input", [](Gen& g) {
    return Args{g.randn({3, 6, 6}), g.randn({4, 3, 3, 3}), g.randn({4})};
  });
  add_row(rows, op, "f64", [](Gen& g) {
    return Args{g.randn({1, 2, 6, 6}, DType::Float64), g.randn({3, 2, 3, 3}, DType::Float64),
                g.randn({3}, DType::Float64)};
  });
  add_row(rows, op, "bf16", [](Gen& g) {
    return Args{g.randn({1, 2, 6, 6}, DType::BFloat16), g.randn({3, 2, 3, 3}, DType::BFloat16)};
  });
  add_error(rows, op, "2-D input", [](Gen& g) {
    return Args{g.randn({6, 6}), g.randn({4, 3, 3, 3})};
  });
  add_error(rows, op, "5-D input", [](Gen& g) {
    return Args{g.randn({1, 1, 3, 6, 6}), g.randn({4, 3, 3, 3})};
  });
  add_error(rows, op, "channels differ", [](Gen& g) {
    return Args{g.randn({1, 2, 6, 6}), g.randn({4, 3, 3, 3})};
  });
}

}  // namespace

// The fused ops the shared fusion pass writes (ops/fused/fused_ops.cpp); PyTorch's reference
// definitions are in tests/ops/torch_fused_ops.py.
void fused_rows(Rows& rows) {
  const auto fused_conv = [](Gen& g, Value residual, bool relu) {
    Args a = conv_args(g.randn({2, 3, 8, 8}), g.randn({4, 3, 3, 3}), g.randn({4}), {1, 1},
                       {1, 1}, {1, 1}, 1);
    a.push_back(std::move(residual));
    a.emplace_back(relu);
    return a;
  };
  std::string op = "xport::fused_conv2d";
  add_row(rows, op, "residual and relu",
          [&](Gen& g) { return fused_conv(g, g.randn({2, 4, 8, 8}), true); });
  add_row(rows, op, "no residual, no relu",
          [&](Gen& g) { return fused_conv(g, Value(), false); });
  add_row(rows, op, "relu only, stride 2, no bias", [](Gen& g) {
    Args a = conv_args(g.randn({1, 4, 9, 9}), g.randn({6, 4, 3, 3}), Value(), {2, 2}, {1, 1},
                       {1, 1}, 1);
    a.emplace_back(Value());
    a.emplace_back(true);
    return a;
  });
  add_error(rows, op, "residual of another shape",
            [&](Gen& g) { return fused_conv(g, g.randn({2, 4, 7, 8}), true); });
  op = "xport::fused_conv2d_";
  add_row(rows, op, "written over the residual",
          [&](Gen& g) { return fused_conv(g, g.randn({2, 4, 8, 8}), true); });
  add_error(rows, op, "residual of another shape",
            [&](Gen& g) { return fused_conv(g, g.randn({2, 4, 8, 9}), false); });
  op = "xport::fused_linear";
  for (const char* act : {"none", "relu", "gelu", "gelu_tanh"}) {
    add_row(rows, op, std::string("bias, ") + act,
            [act](Gen& g) { return Args{g.randn({5, 16}), g.randn({16, 8}), g.randn({8}), act}; });
  }
  add_row(rows, op, "no bias, transposed weight",
          [](Gen& g) { return Args{g.randn({3, 6}), g.transposed({6, 4}), Value(), "relu"}; });
  add_error(rows, op, "inner sizes differ",
            [](Gen& g) { return Args{g.randn({3, 6}), g.randn({5, 4}), Value(), "none"}; });
  add_error(rows, op, "unknown activation",
            [](Gen& g) { return Args{g.randn({3, 6}), g.randn({6, 4}), Value(), "swish"}; });
}

// _cdist_forward(x1, x2, p, compute_mode) and _pdist_forward(self, p).
void distance_rows(Rows& rows) {
  std::string op = "aten::_cdist_forward";
  add_row(rows, op, "p=2", [](Gen& g) {
    return Args{g.randn({4, 3}), g.randn({5, 3}), 2.0, Value()};
  });
  add_row(rows, op, "p=1, batched", [](Gen& g) {
    return Args{g.randn({2, 4, 3}), g.randn({2, 6, 3}), 1.0, Value()};
  });
  add_row(rows, op, "p=0, batch broadcast", [](Gen& g) {
    return Args{g.ints({1, 3, 2}, 0, 2).to(DType::Float32), g.ints({2, 4, 2}, 0, 2)
                                                                 .to(DType::Float32),
                0.0, Value()};
  });
  add_row(rows, op, "p=inf f64", [](Gen& g) {
    return Args{g.randn({3, 5}, DType::Float64), g.randn({2, 5}, DType::Float64),
                std::numeric_limits<double>::infinity(), Value()};
  });
  add_row(rows, op, "p=3, non-contiguous", [](Gen& g) {
    return Args{g.transposed({4, 3}), g.randn({2, 3}), 3.0, Value()};
  });
  add_row(rows, op, "empty set", [](Gen& g) {
    return Args{g.randn({0, 3}), g.randn({2, 3}), 2.0, Value()};
  });
  add_error(rows, op, "features differ", [](Gen& g) {
    return Args{g.randn({2, 3}), g.randn({2, 4}), 2.0, Value()};
  });
  add_error(rows, op, "negative p", [](Gen& g) {
    return Args{g.randn({2, 3}), g.randn({2, 3}), -1.0, Value()};
  });
  op = "aten::_pdist_forward";
  add_row(rows, op, "p=2", [](Gen& g) { return Args{g.randn({5, 3})}; });
  add_row(rows, op, "p=1 f64", [](Gen& g) {
    return Args{g.randn({4, 6}, DType::Float64), 1.0};
  });
  add_row(rows, op, "p=inf, one row", [](Gen& g) {
    return Args{g.randn({1, 3}), std::numeric_limits<double>::infinity()};
  });
  add_error(rows, op, "1-D refused", [](Gen& g) { return Args{g.randn({6})}; });
}

// A complex tensor of `shape`: random (real, imaginary) pairs.
Tensor complex_randn(Gen& g, SymIntList shape, DType dtype = DType::Complex64) {
  std::vector<SymInt> parts = shape.vec();
  parts.emplace_back(2);
  return call_op("aten::view_as_complex", {g.randn(parts, complex_part(dtype))}).to_tensor();
}

// The FFT ops against PyTorch's pocketfft, and the views between complex and real.
void fft_rows(Rows& rows) {
  using I = int64_t;
  const std::string r2c = "aten::_fft_r2c";
  add_row(rows, r2c, "[4,8] last dim, one-sided", [](Gen& g) {
    return Args{g.randn({4, 8}), S{1}, I{0}, true};
  });
  add_row(rows, r2c, "[3,5,6] two dims by 1/n, odd length", [](Gen& g) {
    return Args{g.randn({3, 5, 6}), S{1, 2}, I{2}, true};
  });
  // (PyTorch 2.13's two-sided r2c fails an internal assert when dim is given as -1.)
  add_row(rows, r2c, "f64 prime length 13 by 1/sqrt(n), two-sided", [](Gen& g) {
    return Args{g.randn({2, 13}, DType::Float64), S{1}, I{1}, false};
  });
  add_row(rows, r2c, "dims [2, 0], one-sided along dim 0", [](Gen& g) {
    return Args{g.randn({4, 3, 6}), S{2, 0}, I{0}, true};
  });
  add_error(rows, r2c, "int64 refused", [](Gen& g) {
    return Args{g.ints({4}, -3, 3), S{0}, I{0}, true};
  });
  const std::string c2r = "aten::_fft_c2r";
  add_row(rows, c2r, "5 entries to 8 values", [](Gen& g) {
    return Args{complex_randn(g, {4, 5}), S{1}, I{2}, I{8}};
  });
  add_row(rows, c2r, "complex128, 5 entries to 9 values", [](Gen& g) {
    return Args{complex_randn(g, {3, 5}, DType::Complex128), S{1}, I{0}, I{9}};
  });
  add_row(rows, c2r, "two dims by 1/sqrt(n)", [](Gen& g) {
    return Args{complex_randn(g, {4, 3, 4}), S{0, 2}, I{1}, I{6}};
  });
  const std::string c2c = "aten::_fft_c2c";
  add_row(rows, c2c, "forward over two dims", [](Gen& g) {
    return Args{complex_randn(g, {4, 6}), S{0, 1}, I{0}, true};
  });
  add_row(rows, c2c, "complex128 inverse by 1/n", [](Gen& g) {
    return Args{complex_randn(g, {5, 7}, DType::Complex128), S{1}, I{2}, false};
  });
  add_row(rows, "aten::view_as_real", "complex64 [3,4]", [](Gen& g) {
    return Args{complex_randn(g, {3, 4})};
  });
  add_row(rows, "aten::view_as_complex", "f64 [3,4,2]", [](Gen& g) {
    return Args{g.randn({3, 4, 2}, DType::Float64)};
  });
  add_error(rows, "aten::view_as_complex", "last dim 3 refused", [](Gen& g) {
    return Args{g.randn({3, 3})};
  });
  const std::string rfft = "aten::fft_rfft";
  add_row(rows, rfft, "defaults", [](Gen& g) { return Args{g.randn({4, 10})}; });
  add_row(rows, rfft, "n 16 pads, dim 0, ortho", [](Gen& g) {
    return Args{g.randn({10, 3}), I{16}, I{0}, "ortho"};
  });
  add_row(rows, rfft, "n 6 cuts, forward", [](Gen& g) {
    return Args{g.randn({2, 9}), I{6}, I{-1}, "forward"};
  });
  const std::string irfft = "aten::fft_irfft";
  add_row(rows, irfft, "defaults", [](Gen& g) { return Args{complex_randn(g, {4, 6})}; });
  add_row(rows, irfft, "n 11, forward", [](Gen& g) {
    return Args{complex_randn(g, {3, 4}), I{11}, I{-1}, "forward"};
  });
}

Rows linalg_samples() {
  Rows rows;
  mm_rows(rows);
  int_mm_rows(rows);
  bmm_rows(rows);
  addmm_rows(rows);
  baddbmm_rows(rows);
  dot_rows(rows);
  matmul_rows(rows);
  linear_rows(rows);
  convolution_rows(rows);
  conv2d_rows(rows);
  conv1d_and_padding_rows(rows);
  distance_rows(rows);
  fused_rows(rows);
  fft_rows(rows);
  return rows;
}

}  // namespace xport::testing
