#include <cmath>
#include <functional>
#include <limits>

#include "ops/op_table.h"

namespace xport::testing {
namespace {

using IL = std::vector<int64_t>;
constexpr double kInf = std::numeric_limits<double>::infinity();

void pool_samples(Rows& rows) {
  // ---- max_pool2d_with_indices(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode)
  // ----
  const std::string mpi = "aten::max_pool2d_with_indices";
  rows.push_back({mpi, "f32 k2, default stride", [](Gen& g) {
                    return Args{g.randn({2, 3, 8, 8}), IL{2, 2}};
                  }});
  rows.push_back({mpi, "single int kernel", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 6}), int64_t{3}};
                  }});
  rows.push_back({mpi, "k3 s2 p1", [](Gen& g) {
                    return Args{g.randn({1, 4, 9, 9}), IL{3, 3}, IL{2, 2}, IL{1, 1}};
                  }});
  rows.push_back({mpi, "dilation 2", [](Gen& g) {
                    return Args{g.randn({2, 2, 10, 11}), IL{3, 3}, IL{1, 1}, IL{1, 1}, IL{2, 2}};
                  }});
  rows.push_back({mpi, "asymmetric kernel, stride, padding, dilation", [](Gen& g) {
                    return Args{g.randn({1, 3, 9, 12}), IL{2, 3}, IL{1, 2}, IL{1, 0}, IL{2, 1}};
                  }});
  rows.push_back(
      {mpi, "ceil_mode", [](Gen& g) {
         return Args{g.randn({1, 2, 7, 7}), IL{2, 2}, IL{2, 2}, IL{0, 0}, IL{1, 1}, true};
       }});
  rows.push_back(
      {mpi, "ceil_mode with padding", [](Gen& g) {
         return Args{g.randn({1, 1, 6, 6}), IL{3, 3}, IL{2, 2}, IL{1, 1}, IL{1, 1}, true};
       }});
  rows.push_back({mpi, "3-D input", [](Gen& g) { return Args{g.randn({3, 6, 6}), IL{2, 2}}; }});
  rows.push_back(
      {mpi, "f64", [](Gen& g) {
         return Args{g.randn({2, 2, 5, 5}, DType::Float64), IL{3, 3}, IL{1, 1}, IL{1, 1}};
       }});
  rows.push_back({mpi, "bf16", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 6}, DType::BFloat16), IL{2, 2}};
                  }});
  rows.push_back({mpi, "f16", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 6}, DType::Float16), IL{2, 2}};
                  }});
  rows.push_back({mpi, "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({2, 3, 6, 7}), IL{3, 2}, IL{1, 2}};
                  }});
  rows.push_back({mpi, "empty batch", [](Gen& g) {
                    return Args{g.randn({0, 3, 4, 4}), IL{2, 2}};
                  }});
  rows.push_back({mpi, "large", [](Gen& g) {
                    return Args{g.randn({8, 16, 32, 32}), IL{3, 3}, IL{2, 2}, IL{1, 1}};
                  }});
  rows.push_back({mpi, "nan and inf", [](Gen& g) {
                    return Args{g.edge().view({1, 4, 4}), IL{2, 2}, IL{1, 1}};
                  }});
  rows.push_back({mpi, "-inf everywhere with padding", [](Gen&) {
                    return Args{full({1, 3, 3}, -kInf), IL{2, 2}, IL{2, 2}, IL{1, 1}};
                  }});
  rows.push_back({mpi, "int64", [](Gen& g) {
                    return Args{g.ints({1, 2, 4, 4}, -9, 9), IL{2, 2}};
                  }});
  rows.push_back({mpi, "uint8 with padding", [](Gen& g) {
                    return Args{g.ints({1, 2, 5, 5}, 0, 200, DType::UInt8), IL{3, 3}, IL{2, 2},
                                IL{1, 1}};
                  }});
  rows.push_back({mpi, "bool refused",
                  [](Gen& g) {
                    return Args{g.bools({1, 2, 4, 4}), IL{2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({mpi, "2-D input refused",
                  [](Gen& g) {
                    return Args{g.randn({4, 4}), IL{2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({mpi, "5-D input refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 1, 2, 4, 4}), IL{2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({mpi, "padding over half the kernel refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 6}), IL{2, 2}, IL{1, 1}, IL{2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({mpi, "output too small refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 2, 5, 5}), IL{6, 6}};
                  },
                  -1, -1, true});
  rows.push_back({mpi, "zero channels refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 0, 4, 4}), IL{2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({mpi, "zero kernel refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 2, 4, 4}), IL{0, 2}};
                  },
                  -1, -1, true});
  rows.push_back({mpi, "zero dilation refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 2, 4, 4}), IL{2, 2}, IL{1, 1}, IL{0, 0}, IL{0, 1}};
                  },
                  -1, -1, true});
  rows.push_back({mpi, "three strides refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 2, 4, 4}), IL{2, 2}, IL{1, 1, 1}};
                  },
                  -1, -1, true});

  // ---- max_pool2d ----
  const std::string mp = "aten::max_pool2d";
  rows.push_back({mp, "f32 k2", [](Gen& g) { return Args{g.randn({2, 3, 8, 8}), IL{2, 2}}; }});
  rows.push_back({mp, "int32 k2", [](Gen& g) {
                    return Args{g.ints({2, 3, 6, 6}, -50, 50, DType::Int32), IL{2, 2}};
                  }});
  rows.push_back(
      {mp, "k3 s2 p1 ceil_mode", [](Gen& g) {
         return Args{g.randn({2, 3, 8, 8}), IL{3, 3}, IL{2, 2}, IL{1, 1}, IL{1, 1}, true};
       }});
  // NaN wins wherever a window holds one (the values-only kernel's branch-free max).
  rows.push_back({mp, "k3 s2 p1 with NaNs", [](Gen& g) {
                    const Tensor x = g.randn({2, 3, 12, 12});
                    const Tensor holes = g.uniform({2, 3, 12, 12}, 0, 1).gt(0.9);
                    return Args{where(holes, full({2, 3, 12, 12}, std::nan("")), x), IL{3, 3},
                                IL{2, 2}, IL{1, 1}};
                  }});
  rows.push_back({mp, "dilation", [](Gen& g) {
                    return Args{g.randn({1, 2, 9, 9}), IL{2, 2}, IL{1, 1}, IL{1, 1}, IL{3, 3}};
                  }});
  rows.push_back({mp, "3-D f64", [](Gen& g) {
                    return Args{g.randn({2, 5, 5}, DType::Float64), IL{2, 2}};
                  }});
  rows.push_back({mp, "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({1, 2, 6, 6}), IL{2, 2}};
                  }});
  rows.push_back({mp, "bf16", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 6}, DType::BFloat16), IL{3, 3}, IL{1, 1}};
                  }});
  rows.push_back({mp, "5-D refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 1, 2, 4, 4}), IL{2, 2}};
                  },
                  -1, -1, true});

  // ---- avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
  // divisor_override) ----
  const std::string ap = "aten::avg_pool2d";
  rows.push_back({ap, "f32 k2", [](Gen& g) { return Args{g.randn({2, 3, 8, 8}), IL{2, 2}}; }});
  rows.push_back({ap, "k3 s2 p1 counts padding", [](Gen& g) {
                    return Args{g.randn({1, 4, 9, 9}), IL{3, 3}, IL{2, 2}, IL{1, 1}};
                  }});
  rows.push_back({ap, "k3 s2 p1 without padding in the count", [](Gen& g) {
                    return Args{g.randn({1, 4, 9, 9}), IL{3, 3}, IL{2, 2}, IL{1, 1}, false, false};
                  }});
  rows.push_back({ap, "ceil_mode, padding counted", [](Gen& g) {
                    return Args{g.randn({1, 2, 8, 7}), IL{3, 3}, IL{2, 2}, IL{1, 1}, true, true};
                  }});
  rows.push_back({ap, "ceil_mode, padding not counted", [](Gen& g) {
                    return Args{g.randn({1, 2, 8, 7}), IL{3, 3}, IL{2, 2}, IL{1, 1}, true, false};
                  }});
  rows.push_back(
      {ap, "divisor_override", [](Gen& g) {
         return Args{g.randn({1, 2, 6, 6}), IL{2, 3}, IL{2, 1}, IL{1, 1}, false, true, int64_t{3}};
       }});
  rows.push_back({ap, "int64 truncates", [](Gen& g) {
                    return Args{g.ints({1, 2, 6, 6}, -20, 20), IL{2, 2}};
                  }});
  rows.push_back({ap, "3-D f64", [](Gen& g) {
                    return Args{g.randn({3, 5, 5}, DType::Float64), IL{2, 2}, IL{1, 1}};
                  }});
  rows.push_back({ap, "bf16", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 6}, DType::BFloat16), IL{2, 2}};
                  }});
  rows.push_back({ap, "f16", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 6}, DType::Float16), IL{2, 2}};
                  }});
  rows.push_back({ap, "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({2, 3, 7, 6}), IL{3, 3}, IL{1, 1}, IL{1, 1}};
                  }});
  rows.push_back({ap, "empty batch", [](Gen& g) { return Args{g.randn({0, 3, 4, 4}), IL{2, 2}}; }});
  rows.push_back({ap, "large", [](Gen& g) {
                    return Args{g.randn({8, 16, 32, 32}), IL{3, 3}, IL{2, 2}, IL{1, 1}};
                  }});
  rows.push_back(
      {ap, "zero divisor refused",
       [](Gen& g) {
         return Args{g.randn({1, 2, 4, 4}), IL{2, 2}, IL{2, 2}, IL{0, 0}, false, true, int64_t{0}};
       },
       -1, -1, true});
  rows.push_back({ap, "bool refused",
                  [](Gen& g) {
                    return Args{g.bools({1, 2, 4, 4}), IL{2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({ap, "int32 refused",
                  [](Gen& g) {
                    return Args{g.ints({1, 2, 4, 4}, 0, 9, DType::Int32), IL{2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({ap, "padding over half the kernel refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 6}), IL{2, 2}, IL{1, 1}, IL{2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({ap, "zero channels refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 0, 4, 4}), IL{2, 2}};
                  },
                  -1, -1, true});

  // ---- _adaptive_avg_pool2d / adaptive_avg_pool2d ----
  const std::string aap = "aten::_adaptive_avg_pool2d";
  rows.push_back({aap, "f32 7x9 -> 3x4", [](Gen& g) {
                    return Args{g.randn({2, 3, 7, 9}), IL{3, 4}};
                  }});
  rows.push_back({aap, "upsampling 3x3 -> 5x4", [](Gen& g) {
                    return Args{g.randn({2, 3, 3, 3}), IL{5, 4}};
                  }});
  rows.push_back({aap, "global 1x1", [](Gen& g) { return Args{g.randn({2, 3, 6, 5}), IL{1, 1}}; }});
  rows.push_back({aap, "zero output size", [](Gen& g) {
                    return Args{g.randn({2, 3, 6, 5}), IL{0, 2}};
                  }});
  rows.push_back({aap, "3-D f64", [](Gen& g) {
                    return Args{g.randn({3, 10, 7}, DType::Float64), IL{4, 3}};
                  }});
  rows.push_back({aap, "bf16", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 6}, DType::BFloat16), IL{4, 4}};
                  }});
  rows.push_back({aap, "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({2, 3, 7, 9}), IL{2, 3}};
                  }});
  rows.push_back({aap, "empty batch", [](Gen& g) {
                    return Args{g.randn({0, 3, 4, 4}), IL{2, 2}};
                  }});
  rows.push_back({aap, "large", [](Gen& g) { return Args{g.randn({8, 32, 28, 28}), IL{7, 7}}; }});
  rows.push_back({aap, "2-D input refused",
                  [](Gen& g) {
                    return Args{g.randn({4, 4}), IL{2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({aap, "zero height refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 3, 0, 4}), IL{2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({aap, "int64 refused",
                  [](Gen& g) {
                    return Args{g.ints({1, 2, 4, 4}, 0, 9), IL{2, 2}};
                  },
                  -1, -1, true});
  const std::string aap_nc = "aten::adaptive_avg_pool2d";
  rows.push_back({aap_nc, "f32 7x9 -> 3x4", [](Gen& g) {
                    return Args{g.randn({2, 3, 7, 9}), IL{3, 4}};
                  }});
  rows.push_back({aap_nc, "global 1x1", [](Gen& g) {
                    return Args{g.randn({2, 3, 6, 5}), IL{1, 1}};
                  }});
  rows.push_back({aap_nc, "3-D non-contiguous", [](Gen& g) {
                    return Args{g.transposed({3, 8, 6}), IL{3, 3}};
                  }});
  rows.push_back({aap_nc, "negative output size refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 3, 4, 4}), IL{-1, 2}};
                  },
                  -1, -1, true});
  const std::string aap1 = "aten::adaptive_avg_pool1d";
  rows.push_back({aap1, "f32 10 -> 4", [](Gen& g) { return Args{g.randn({2, 3, 10}), IL{4}}; }});
  rows.push_back({aap1, "unbatched, global", [](Gen& g) { return Args{g.randn({3, 7}), IL{1}}; }});
  rows.push_back({aap1, "non-contiguous, upsampling", [](Gen& g) {
                    return Args{g.transposed({2, 5, 3}), IL{7}};
                  }});
  rows.push_back({aap1, "4-D refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 2, 3, 4}), IL{2}};
                  },
                  -1, -1, true});
}

void group_norm_samples(Rows& rows) {
  // ---- native_group_norm(input, weight, bias, N, C, HxW, group, eps) ----
  const std::string ngn = "aten::native_group_norm";
  using I = int64_t;
  rows.push_back({ngn, "f32 [2,6,5] 3 groups with weight and bias", [](Gen& g) {
                    return Args{g.randn({2, 6, 5}), g.randn({6}), g.randn({6}), I{2}, I{6}, I{5},
                                I{3}, 1e-5};
                  }});
  rows.push_back({ngn, "[2,8,4,4] no affine, one group", [](Gen& g) {
                    return Args{g.randn({2, 8, 4, 4}) * 3.0 + 2.0, Value(), Value(), I{2}, I{8},
                                I{16}, I{1}, 1e-5};
                  }});
  rows.push_back({ngn, "group per channel, f64", [](Gen& g) {
                    return Args{g.randn({3, 4, 7}, DType::Float64), g.randn({4}, DType::Float64),
                                Value(), I{3}, I{4}, I{7}, I{4}, 1e-3};
                  }});
  rows.push_back({ngn, "[1,32,8,8] 8 groups (diffusion block)", [](Gen& g) {
                    return Args{g.randn({1, 32, 8, 8}), g.randn({32}), g.randn({32}), I{1}, I{32},
                                I{64}, I{8}, 1e-6};
                  }});
  rows.push_back({ngn, "channels not divisible refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 6, 5}), Value(), Value(), I{2}, I{6}, I{5}, I{4},
                                1e-5};
                  },
                  -1, -1, true});
  // ---- group_norm(input, num_groups, weight=None, bias=None, eps=1e-05) ----
  const std::string gn = "aten::group_norm";
  rows.push_back({gn, "[2,6,3,3] 2 groups", [](Gen& g) {
                    return Args{g.randn({2, 6, 3, 3}), I{2}, g.randn({6}), g.randn({6})};
                  }});
  rows.push_back({gn, "[4,4] (no spatial dims)", [](Gen& g) {
                    return Args{g.randn({4, 4}), I{2}};
                  }});
}

// The backward ops of layer and group norm (training graphs), on random statistics: their
// gradient formulas hold for any mean and rstd. output_mask's unrequested results are None.
void norm_backward_samples(Rows& rows) {
  using I = int64_t;
  using M = std::vector<bool>;
  const std::string lnb = "aten::native_layer_norm_backward";
  const auto stats = [](Gen& g, SymIntList shape, DType dtype = DType::Float32) {
    return std::pair{g.randn(shape, dtype), g.uniform(shape, 0.5, 2.0, dtype)};
  };
  rows.push_back({lnb, "f32 [2,3,8] all three", [=](Gen& g) {
                    auto [mean, rstd] = stats(g, {2, 3, 1});
                    return Args{g.randn({2, 3, 8}), g.randn({2, 3, 8}), IL{8}, mean, rstd,
                                g.randn({8}), g.randn({8}), M{true, true, true}};
                  }});
  rows.push_back({lnb, "two normalized dims, no weight gradient", [=](Gen& g) {
                    auto [mean, rstd] = stats(g, {4, 1, 1});
                    return Args{g.randn({4, 3, 5}), g.randn({4, 3, 5}), IL{3, 5}, mean, rstd,
                                g.randn({3, 5}), g.randn({3, 5}), M{true, false, true}};
                  }});
  rows.push_back({lnb, "f64 no affine, input gradient only", [=](Gen& g) {
                    auto [mean, rstd] = stats(g, {6, 1}, DType::Float64);
                    return Args{g.randn({6, 7}, DType::Float64), g.randn({6, 7}, DType::Float64),
                                IL{7}, mean, rstd, Value(), Value(), M{true, false, false}};
                  }});
  rows.push_back({lnb, "parameter gradients only", [=](Gen& g) {
                    auto [mean, rstd] = stats(g, {5, 1});
                    return Args{g.randn({5, 4}), g.randn({5, 4}), IL{4}, mean, rstd,
                                g.randn({4}), g.randn({4}), M{false, true, true}};
                  }});
  rows.push_back({lnb, "empty batch", [=](Gen& g) {
                    auto [mean, rstd] = stats(g, {0, 1});
                    return Args{g.randn({0, 4}), g.randn({0, 4}), IL{4}, mean, rstd,
                                g.randn({4}), g.randn({4}), M{true, true, true}};
                  }});
  rows.push_back({lnb, "weight gradient without weight refused",
                  [=](Gen& g) {
                    auto [mean, rstd] = stats(g, {2, 1});
                    return Args{g.randn({2, 4}), g.randn({2, 4}), IL{4}, mean, rstd, Value(),
                                Value(), M{true, true, false}};
                  },
                  -1, -1, true});
  const std::string gnb = "aten::native_group_norm_backward";
  rows.push_back({gnb, "f32 [2,6,5] 3 groups all three", [=](Gen& g) {
                    auto [mean, rstd] = stats(g, {2, 3});
                    return Args{g.randn({2, 6, 5}), g.randn({2, 6, 5}), mean, rstd, g.randn({6}),
                                I{2}, I{6}, I{5}, I{3}, M{true, true, true}};
                  }});
  rows.push_back({gnb, "[2,4,3,3] 2 groups, no weight gradient", [=](Gen& g) {
                    auto [mean, rstd] = stats(g, {2, 2});
                    return Args{g.randn({2, 4, 3, 3}), g.randn({2, 4, 3, 3}), mean, rstd,
                                g.randn({4}), I{2}, I{4}, I{9}, I{2}, M{true, false, true}};
                  }});
  rows.push_back({gnb, "f64 no weight, input gradient only", [=](Gen& g) {
                    auto [mean, rstd] = stats(g, {3, 4}, DType::Float64);
                    return Args{g.randn({3, 4, 7}, DType::Float64),
                                g.randn({3, 4, 7}, DType::Float64), mean, rstd, Value(), I{3},
                                I{4}, I{7}, I{4}, M{true, false, false}};
                  }});
  rows.push_back({gnb, "bias gradient without weight refused",
                  [=](Gen& g) {
                    auto [mean, rstd] = stats(g, {2, 3});
                    return Args{g.randn({2, 6, 5}), g.randn({2, 6, 5}), mean, rstd, Value(), I{2},
                                I{6}, I{5}, I{3}, M{true, false, true}};
                  },
                  -1, -1, true});
}

void pool3d_samples(Rows& rows) {
  // max_pool3d_with_indices(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode)
  const std::string mpi = "aten::max_pool3d_with_indices";
  rows.push_back({mpi, "k2, default stride", [](Gen& g) {
                    return Args{g.randn({2, 3, 4, 6, 6}), IL{2, 2, 2}};
                  }});
  rows.push_back({mpi, "single int kernel, unbatched", [](Gen& g) {
                    return Args{g.randn({2, 5, 5, 5}), int64_t{3}};
                  }});
  rows.push_back({mpi, "asymmetric kernel, stride, padding, dilation", [](Gen& g) {
                    return Args{g.randn({1, 2, 7, 8, 9}), IL{3, 2, 3}, IL{2, 1, 2}, IL{1, 0, 1},
                                IL{1, 2, 1}};
                  }});
  rows.push_back({mpi, "ceil mode, NaN and ties", [](Gen& g) {
                    const Tensor x = g.ints({1, 1, 3, 5, 5}, 0, 2).to(DType::Float32);
                    const Tensor nan_places = g.uniform({1, 1, 3, 5, 5}, 0, 1).gt(0.85);
                    return Args{masked_fill(x, nan_places, std::nan("")), IL{2, 2, 2},
                                IL{2, 2, 2}, IL{0, 0, 0}, IL{1, 1, 1}, true};
                  }});
  rows.push_back({mpi, "int64", [](Gen& g) {
                    return Args{g.ints({1, 2, 4, 4, 4}, -9, 9), IL{2, 2, 2}};
                  }});
  rows.push_back({mpi, "f64 non-contiguous", [](Gen& g) {
                    return Args{g.transposed({1, 2, 4, 5, 6}, DType::Float64), IL{2, 2, 2}};
                  }});
  rows.push_back({mpi, "3-D refused",
                  [](Gen& g) {
                    return Args{g.randn({3, 6, 6}), IL{2, 2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::max_pool3d", "k3 s2 p1", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 7, 7}), IL{3, 3, 3}, IL{2, 2, 2}, IL{1, 1, 1}};
                  }});
  rows.push_back({"aten::max_pool3d", "default stride", [](Gen& g) {
                    return Args{g.randn({2, 4, 4, 4}), IL{2, 2, 2}};
                  }});
  // avg_pool3d(self, kernel_size, stride=[], padding=0, ceil_mode, count_include_pad,
  // divisor_override)
  const std::string ap = "aten::avg_pool3d";
  rows.push_back({ap, "k2", [](Gen& g) { return Args{g.randn({2, 3, 4, 6, 6}), IL{2, 2, 2}}; }});
  rows.push_back({ap, "k3 s2 p1, padding counted", [](Gen& g) {
                    return Args{g.randn({1, 2, 5, 7, 7}), IL{3, 3, 3}, IL{2, 2, 2}, IL{1, 1, 1}};
                  }});
  rows.push_back({ap, "padding not counted, ceil mode", [](Gen& g) {
                    return Args{g.randn({1, 2, 5, 7, 6}), IL{3, 3, 2}, IL{2, 2, 2}, IL{1, 1, 1},
                                true, false};
                  }});
  rows.push_back({ap, "divisor override, unbatched f64", [](Gen& g) {
                    return Args{g.randn({2, 4, 4, 4}, DType::Float64), IL{2, 2, 2}, IL{},
                                IL{0, 0, 0}, false, true, int64_t{3}};
                  }});
  rows.push_back({ap, "int64 truncates", [](Gen& g) {
                    return Args{g.ints({1, 2, 4, 4, 4}, -9, 9), IL{2, 2, 2}};
                  }});
  rows.push_back({ap, "zero divisor refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 1, 4, 4, 4}), IL{2, 2, 2}, IL{}, IL{0, 0, 0}, false,
                                true, int64_t{0}};
                  },
                  -1, -1, true});
  // _adaptive_avg_pool3d(self, output_size)
  const std::string aap = "aten::_adaptive_avg_pool3d";
  rows.push_back({aap, "7x9x5 -> 3x4x2", [](Gen& g) {
                    return Args{g.randn({2, 3, 7, 9, 5}), IL{3, 4, 2}};
                  }});
  rows.push_back({aap, "global, unbatched", [](Gen& g) {
                    return Args{g.randn({3, 4, 5, 6}), IL{1, 1, 1}};
                  }});
  rows.push_back({aap, "upsampling f64", [](Gen& g) {
                    return Args{g.randn({1, 2, 2, 3, 2}, DType::Float64), IL{3, 4, 5}};
                  }});
  rows.push_back({aap, "int64 refused",
                  [](Gen& g) {
                    return Args{g.ints({1, 1, 4, 4, 4}, 0, 9), IL{2, 2, 2}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::adaptive_avg_pool3d", "8x8x8 -> 2x2x2", [](Gen& g) {
                    return Args{g.randn({1, 2, 8, 8, 8}), IL{2, 2, 2}};
                  }});
}

// grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners): grids reach
// past the edges ([-1.3, 1.3)) so that every padding mode matters.
void grid_sample_samples(Rows& rows) {
  const std::string op = "aten::grid_sampler_2d";
  const char* const modes[] = {"bilinear", "nearest", "bicubic"};
  const char* const paddings[] = {"zeros", "border", "reflection"};
  for (int64_t mode = 0; mode < 3; ++mode) {
    for (int64_t padding = 0; padding < 3; ++padding) {
      for (const bool align : {false, true}) {
        const std::string label = std::string(modes[mode]) + ", " + paddings[padding] +
                                  (align ? ", align_corners" : "");
        rows.push_back({op, label, [mode, padding, align](Gen& g) {
                          return Args{g.randn({2, 3, 5, 6}), g.uniform({2, 4, 7, 2}, -1.3, 1.3),
                                      mode, padding, align};
                        }});
      }
    }
  }
  rows.push_back({op, "f64, 1x1 image", [](Gen& g) {
                    return Args{g.randn({1, 2, 1, 1}, DType::Float64),
                                g.uniform({1, 3, 3, 2}, -1, 1, DType::Float64), int64_t{0},
                                int64_t{2}, false};
                  }});
  rows.push_back({op, "non-contiguous input, empty grid", [](Gen& g) {
                    return Args{g.transposed({1, 2, 4, 4}), g.uniform({1, 0, 3, 2}, -1, 1),
                                int64_t{1}, int64_t{0}, true};
                  }});
  rows.push_back({op, "grid of 3 coordinates refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 2, 4, 4}), g.uniform({1, 2, 2, 3}, -1, 1), int64_t{0},
                                int64_t{0}, false};
                  },
                  -1, -1, true});
  rows.push_back({op, "batch sizes differ refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 2, 4, 4}), g.uniform({1, 2, 2, 2}, -1, 1), int64_t{0},
                                int64_t{0}, false};
                  },
                  -1, -1, true});
}

// col2im(self, output_size, kernel_size, dilation, padding, stride): F.fold.
void fold_samples(Rows& rows) {
  const std::string op = "aten::col2im";
  rows.push_back({op, "3x3 windows, stride 1", [](Gen& g) {
                    return Args{g.randn({2, 2 * 9, 4 * 5}), IL{6, 7}, IL{3, 3}, IL{1, 1},
                                IL{0, 0}, IL{1, 1}};
                  }});
  rows.push_back({op, "padding, stride 2, dilation 2, unbatched", [](Gen& g) {
                    // Windows: (7 + 2 - 2 * 1 - 1) / 2 + 1 = 4 and (8 + 2 - 2 * 2 - 1) / 2 + 1 = 3.
                    return Args{g.randn({3 * 2 * 3, 4 * 3}), IL{7, 8}, IL{2, 3}, IL{2, 2},
                                IL{1, 1}, IL{2, 2}};
                  }});
  rows.push_back({op, "f64 non-overlapping", [](Gen& g) {
                    return Args{g.randn({1, 4, 9}, DType::Float64), IL{6, 6}, IL{2, 2}, IL{1, 1},
                                IL{0, 0}, IL{2, 2}};
                  }});
  rows.push_back({op, "window count differs refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 9, 10}), IL{6, 7}, IL{3, 3}, IL{1, 1}, IL{0, 0},
                                IL{1, 1}};
                  },
                  -1, -1, true});
}

// The gradients of pooling and embedding (training graphs). Max pooling's indices come from the
// forward op on the same input.
void backward_samples(Rows& rows) {
  auto max_indices = [](const Tensor& x, IL kernel, IL stride, IL padding) {
    return call_tensors(find_op("aten::max_pool2d_with_indices"),
                        {x, kernel, stride, padding, IL{1, 1}, false})[1];
  };
  const std::string mb = "aten::max_pool2d_with_indices_backward";
  rows.push_back({mb, "k2 s2", [max_indices](Gen& g) {
                    const Tensor x = g.randn({2, 3, 6, 6});
                    return Args{g.randn({2, 3, 3, 3}), x, IL{2, 2}, IL{2, 2}, IL{0, 0}, IL{1, 1},
                                false, max_indices(x, {2, 2}, {2, 2}, {0, 0})};
                  }});
  rows.push_back({mb, "overlapping windows add up, padding", [max_indices](Gen& g) {
                    const Tensor x = g.ints({1, 2, 5, 5}, 0, 3).to(DType::Float32);
                    return Args{g.randn({1, 2, 5, 5}), x, IL{3, 3}, IL{1, 1}, IL{1, 1}, IL{1, 1},
                                false, max_indices(x, {3, 3}, {1, 1}, {1, 1})};
                  }});
  const std::string ab = "aten::avg_pool2d_backward";
  rows.push_back({ab, "k2 s2", [](Gen& g) {
                    return Args{g.randn({2, 3, 3, 3}), g.randn({2, 3, 6, 6}), IL{2, 2}, IL{2, 2},
                                IL{0, 0}, false, true, Value()};
                  }});
  rows.push_back({ab, "k3 s2 p1, padding not counted, ceil mode", [](Gen& g) {
                    return Args{g.randn({1, 2, 4, 4}), g.randn({1, 2, 7, 7}), IL{3, 3}, IL{2, 2},
                                IL{1, 1}, true, false, Value()};
                  }});
  rows.push_back({ab, "divisor override, f64 unbatched", [](Gen& g) {
                    return Args{g.randn({2, 2, 2}, DType::Float64),
                                g.randn({2, 4, 4}, DType::Float64), IL{2, 2}, IL{2, 2}, IL{0, 0},
                                false, true, int64_t{3}};
                  }});
  rows.push_back({ab, "grad of the wrong shape refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 1, 2, 2}), g.randn({1, 1, 6, 6}), IL{2, 2}, IL{2, 2},
                                IL{0, 0}, false, true, Value()};
                  },
                  -1, -1, true});
  const std::string aab = "aten::_adaptive_avg_pool2d_backward";
  rows.push_back({aab, "7x9 from 3x4", [](Gen& g) {
                    return Args{g.randn({2, 3, 3, 4}), g.randn({2, 3, 7, 9})};
                  }});
  rows.push_back({aab, "upsampled 2x2 from 3x5, unbatched", [](Gen& g) {
                    return Args{g.randn({2, 3, 5}), g.randn({2, 2, 2})};
                  }});
  const std::string eb = "aten::embedding_dense_backward";
  rows.push_back({eb, "repeated indices add up", [](Gen& g) {
                    return Args{g.randn({4, 5, 3}), g.ints({4, 5}, 0, 6), int64_t{7}, int64_t{-1},
                                false};
                  }});
  rows.push_back({eb, "padding_idx, scaled by frequency, int32", [](Gen& g) {
                    return Args{g.randn({6, 4}), g.ints({6}, 0, 3, DType::Int32), int64_t{5},
                                int64_t{2}, true};
                  }});
  rows.push_back({eb, "f64, no indices", [](Gen& g) {
                    return Args{g.randn({0, 3}, DType::Float64), g.ints({0}, 0, 1), int64_t{4},
                                int64_t{-1}, false};
                  }});
}

void upsample_samples(Rows& rows) {
  // ---- upsample_{nearest,bilinear}2d.vec(input, output_size, [align_corners,] scale_factors) --
  const std::string nn = "aten::upsample_nearest2d.vec", bl = "aten::upsample_bilinear2d.vec";
  using FL = std::vector<double>;
  rows.push_back({nn, "scale 2", [](Gen& g) {
                    return Args{g.randn({2, 3, 4, 5}), Value(), FL{2.0, 2.0}};
                  }});
  rows.push_back({nn, "to size 7x3 (down and up)", [](Gen& g) {
                    return Args{g.randn({1, 2, 5, 6}), IL{7, 3}, Value()};
                  }});
  rows.push_back({nn, "scale 1.5 and 0.5", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 8}), Value(), FL{1.5, 0.5}};
                  }});
  rows.push_back({nn, "uint8", [](Gen& g) {
                    return Args{g.ints({1, 1, 3, 3}, 0, 255, DType::UInt8), Value(), FL{3.0, 2.0}};
                  }});
  rows.push_back({nn, "f64 non-contiguous", [](Gen& g) {
                    return Args{g.randn({1, 2, 5, 4}, DType::Float64).transpose(2, 3), IL{8, 9},
                                Value()};
                  }});
  rows.push_back({nn, "batch of 0", [](Gen& g) {
                    return Args{g.randn({0, 2, 4, 4}), IL{3, 3}, Value()};
                  }});
  rows.push_back({nn, "both size and factors refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 2, 4, 4}), IL{3, 3}, FL{2.0, 2.0}};
                  },
                  -1, -1, true});
  rows.push_back({nn, "int64 refused",
                  [](Gen& g) {
                    return Args{g.ints({1, 1, 2, 2}, 0, 9), Value(), FL{2.0, 2.0}};
                  },
                  -1, -1, true});
  for (const bool align : {false, true}) {
    const std::string a = align ? ", align_corners" : "";
    rows.push_back({bl, "scale 2" + a, [align](Gen& g) {
                      return Args{g.randn({2, 3, 4, 5}), Value(), align, FL{2.0, 2.0}};
                    }});
    rows.push_back({bl, "to size 7x3" + a, [align](Gen& g) {
                      return Args{g.randn({1, 2, 5, 6}), IL{7, 3}, align, Value()};
                    }});
    rows.push_back({bl, "scale 1.7 and 0.6" + a, [align](Gen& g) {
                      return Args{g.randn({1, 2, 6, 8}), Value(), align, FL{1.7, 0.6}};
                    }});
    rows.push_back({bl, "to size 1x1" + a, [align](Gen& g) {
                      return Args{g.randn({1, 2, 4, 4}), IL{1, 1}, align, Value()};
                    }});
  }
  rows.push_back({bl, "f64 large", [](Gen& g) {
                    return Args{g.randn({1, 4, 32, 32}, DType::Float64), IL{75, 50}, false,
                                Value()};
                  }});
  rows.push_back({bl, "bf16", [](Gen& g) {
                    return Args{g.randn({1, 2, 4, 4}, DType::BFloat16), Value(), false,
                                FL{2.0, 2.0}};
                  }});
  rows.push_back({bl, "3-d input refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 4, 4}), IL{8, 8}, false, Value()};
                  },
                  -1, -1, true});
}

void norm_samples(Rows& rows) {
  upsample_samples(rows);
  group_norm_samples(rows);
  norm_backward_samples(rows);
  // ---- native_layer_norm(input, normalized_shape, weight, bias, eps) ----
  // _weight_norm(v, g, dim): v * (g / the norm of v over every dim but dim).
  const std::string wn = "aten::_weight_norm";
  rows.push_back({wn, "dim 2 (wav2vec2's positional conv)", [](Gen& g) {
                    return Args{g.randn({4, 3, 5}), g.randn({1, 1, 5}), int64_t{2}};
                  }});
  rows.push_back({wn, "dim 0", [](Gen& g) {
                    return Args{g.randn({4, 3}), g.randn({4, 1}), int64_t{0}};
                  }});
  rows.push_back({wn, "dim -1: the whole tensor", [](Gen& g) {
                    return Args{g.randn({4, 3}), g.randn({}), int64_t{-1}};
                  }});
  rows.push_back({wn, "f64 1-D", [](Gen& g) {
                    return Args{g.randn({5}, DType::Float64), g.randn({5}, DType::Float64),
                                int64_t{0}};
                  }});
  const std::string nln = "aten::native_layer_norm";
  rows.push_back({nln, "f32 with weight and bias", [](Gen& g) {
                    return Args{g.randn({4, 8}), IL{8}, g.randn({8}), g.randn({8}), 1e-5};
                  }});
  rows.push_back({nln, "no weight or bias", [](Gen& g) {
                    return Args{g.randn({2, 3, 16}), IL{16}, Value(), Value(), 1e-5};
                  }});
  rows.push_back({nln, "two normalized dims", [](Gen& g) {
                    return Args{g.randn({2, 3, 4}), IL{3, 4}, g.randn({3, 4}), Value(), 1e-3};
                  }});
  rows.push_back(
      {nln, "whole tensor, odd width", [](Gen& g) {
         return Args{g.randn({5, 37}) * 3.0 + 1.0, IL{5, 37}, Value(), g.randn({5, 37}), 1e-5};
       }});
  rows.push_back({nln, "f64", [](Gen& g) {
                    return Args{g.randn({3, 10}, DType::Float64), IL{10},
                                g.randn({10}, DType::Float64), g.randn({10}, DType::Float64), 1e-5};
                  }});
  // PyTorch 1.13 keeps bf16 layer-norm statistics in bf16 (errors ~1e-2); we accumulate in float.
  rows.push_back({nln, "bf16",
                  [](Gen& g) {
                    return Args{g.randn({3, 16}, DType::BFloat16), IL{16},
                                g.randn({16}, DType::BFloat16), Value(), 1e-5};
                  },
                  1.6e-2, 2e-2});
  rows.push_back({nln, "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({6, 5}), IL{5}, g.randn({5}), g.randn({5}), 1e-5};
                  }});
  rows.push_back({nln, "empty rows", [](Gen& g) {
                    return Args{g.randn({0, 4}), IL{4}, Value(), Value(), 1e-5};
                  }});
  rows.push_back({nln, "empty normalized dim", [](Gen& g) {
                    return Args{g.randn({3, 0}), IL{0}, Value(), Value(), 1e-5};
                  }});
  // Long rows: PyTorch accumulates the moments in a different order.
  rows.push_back(
      {nln, "large [32,128,768]",
       [](Gen& g) {
         return Args{g.randn({32, 128, 768}), IL{768}, g.randn({768}), g.randn({768}), 1e-5};
       },
       1e-5, 1e-5});
  rows.push_back({nln, "empty normalized_shape refused",
                  [](Gen& g) {
                    return Args{g.randn({3, 4}), IL{}, Value(), Value(), 1e-5};
                  },
                  -1, -1, true});
  rows.push_back({nln, "shape mismatch refused",
                  [](Gen& g) {
                    return Args{g.randn({3, 4}), IL{5}, Value(), Value(), 1e-5};
                  },
                  -1, -1, true});
  rows.push_back({nln, "weight shape mismatch refused",
                  [](Gen& g) {
                    return Args{g.randn({3, 4}), IL{4}, g.randn({5}), Value(), 1e-5};
                  },
                  -1, -1, true});
  rows.push_back(
      {nln, "weight dtype mismatch refused",
       [](Gen& g) {
         return Args{g.randn({3, 4}), IL{4}, g.randn({4}, DType::Float64), Value(), 1e-5};
       },
       -1, -1, true});
  rows.push_back({nln, "int64 refused",
                  [](Gen& g) {
                    return Args{g.ints({3, 4}, 0, 9), IL{4}, Value(), Value(), 1e-5};
                  },
                  -1, -1, true});
  rows.push_back({nln, "0-dim refused",
                  [](Gen& g) {
                    return Args{g.randn({}), IL{1}, Value(), Value(), 1e-5};
                  },
                  -1, -1, true});

  const std::string ln = "aten::layer_norm";
  rows.push_back({ln, "defaults", [](Gen& g) { return Args{g.randn({4, 8}), IL{8}}; }});
  rows.push_back(
      {ln, "weight, bias, eps", [](Gen& g) {
         return Args{g.randn({2, 3, 8}), IL{3, 8}, g.randn({3, 8}), g.randn({3, 8}), 1e-3};
       }});
  rows.push_back({ln, "f64", [](Gen& g) { return Args{g.randn({4, 6}, DType::Float64), IL{6}}; }});
  rows.push_back({ln, "shape mismatch refused",
                  [](Gen& g) {
                    return Args{g.randn({3, 4}), IL{3}};
                  },
                  -1, -1, true});

  // ---- batch norm in inference mode ----
  // (input, weight, bias, running_mean, running_var, momentum, eps)
  const std::string bnl = "aten::_native_batch_norm_legit_no_training";
  auto stats = [](Gen& g, int64_t c, DType dtype) {
    return Args{g.randn({c}, dtype), g.randn({c}, dtype), g.randn({c}, dtype),
                g.positive({c}, dtype)};
  };
  auto with = [](Tensor x, Args params, std::vector<Value> tail) {
    Args a{std::move(x)};
    a.insert(a.end(), params.begin(), params.end());
    a.insert(a.end(), tail.begin(), tail.end());
    return a;
  };
  rows.push_back({bnl, "f32 [4,3,5,5]", [=](Gen& g) {
                    return with(g.randn({4, 3, 5, 5}), stats(g, 3, DType::Float32), {0.1, 1e-5});
                  }});
  rows.push_back({bnl, "no weight or bias", [](Gen& g) {
                    return Args{g.randn({2, 4, 3, 3}), Value(), Value(), g.randn({4}),
                                g.positive({4}),       0.1,     1e-3};
                  }});
  rows.push_back({bnl, "2-D [8,5]", [=](Gen& g) {
                    return with(g.randn({8, 5}), stats(g, 5, DType::Float32), {0.1, 1e-5});
                  }});
  rows.push_back({bnl, "3-D [2,3,7]", [=](Gen& g) {
                    return with(g.randn({2, 3, 7}), stats(g, 3, DType::Float32), {0.1, 1e-5});
                  }});
  rows.push_back({bnl, "f64", [=](Gen& g) {
                    return with(g.randn({2, 3, 4, 4}, DType::Float64), stats(g, 3, DType::Float64),
                                {0.1, 1e-5});
                  }});
  rows.push_back({bnl, "bf16", [=](Gen& g) {
                    return with(g.randn({2, 3, 4, 4}, DType::BFloat16),
                                stats(g, 3, DType::BFloat16), {0.1, 1e-5});
                  }});
  rows.push_back({bnl, "bf16 input, f32 parameters", [=](Gen& g) {
                    return with(g.randn({2, 3, 4, 4}, DType::BFloat16), stats(g, 3, DType::Float32),
                                {0.1, 1e-5});
                  }});
  rows.push_back(
      {bnl, "non-contiguous", [=](Gen& g) {
         return with(g.transposed({2, 3, 4, 5}), stats(g, 3, DType::Float32), {0.1, 1e-5});
       }});
  rows.push_back(
      {bnl, "large", [=](Gen& g) {
         return with(g.randn({8, 32, 16, 16}), stats(g, 32, DType::Float32), {0.1, 1e-5});
       }});
  rows.push_back({bnl, "int64 refused",
                  [=](Gen& g) {
                    return with(g.ints({2, 3}, 0, 9), stats(g, 3, DType::Float32), {0.1, 1e-5});
                  },
                  -1, -1, true});
  // (input, weight, bias, running_mean, running_var, training, momentum, eps): training
  // mode normalises with the batch's statistics and updates the running ones.
  for (const std::string op :
       {"aten::_native_batch_norm_legit", "aten::_native_batch_norm_legit_functional"}) {
    rows.push_back(
        {op, "training f32 [4,3,5,5]", [=](Gen& g) {
           return with(g.randn({4, 3, 5, 5}), stats(g, 3, DType::Float32), {true, 0.1, 1e-5});
         }});
    rows.push_back({op, "training f64 3-D, no weight", [](Gen& g) {
                      return Args{g.randn({2, 3, 7}, DType::Float64), Value(), Value(),
                                  g.randn({3}, DType::Float64), g.positive({3}, DType::Float64),
                                  true, 0.3, 1e-3};
                    }});
    rows.push_back(
        {op, "training non-contiguous", [=](Gen& g) {
           return with(g.transposed({2, 3, 4, 5}), stats(g, 3, DType::Float32), {true, 0.1, 1e-5});
         }});
    rows.push_back(
        {op, "eval f32", [=](Gen& g) {
           return with(g.randn({4, 3, 5, 5}), stats(g, 3, DType::Float32), {false, 0.1, 1e-5});
         }});
  }
  // (input, weight, bias, training, momentum, eps): the batch's statistics, none kept. PyTorch
  // 2.13 crashes on training=False here, so that refusal is not compared with it.
  const std::string nostats = "aten::_native_batch_norm_legit.no_stats";
  rows.push_back({nostats, "f32 [4,3,5,5] with weight and bias", [](Gen& g) {
                    return Args{g.randn({4, 3, 5, 5}), g.randn({3}), g.randn({3}), true, 0.1,
                                1e-5};
                  }});
  rows.push_back({nostats, "f64 3-D, no weight", [](Gen& g) {
                    return Args{g.randn({2, 3, 7}, DType::Float64), Value(), Value(), true, 0.3,
                                1e-3};
                  }});
  rows.push_back({nostats, "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({2, 3, 4, 5}), Value(), g.randn({3}), true, 0.1,
                                1e-5};
                  }});
  const std::string nbn = "aten::native_batch_norm";
  rows.push_back(
      {nbn, "training f32", [=](Gen& g) {
         return with(g.randn({4, 3, 5, 5}), stats(g, 3, DType::Float32), {true, 0.1, 1e-5});
       }});
  rows.push_back(
      {nbn, "eval f32", [=](Gen& g) {
         return with(g.randn({4, 3, 5, 5}), stats(g, 3, DType::Float32), {false, 0.1, 1e-5});
       }});
  rows.push_back({nbn, "eval f64 3-D", [=](Gen& g) {
                    return with(g.randn({2, 3, 7}, DType::Float64), stats(g, 3, DType::Float64),
                                {false, 0.1, 1e-5});
                  }});
  rows.push_back(
      {nbn, "eval non-contiguous", [=](Gen& g) {
         return with(g.transposed({2, 3, 4, 5}), stats(g, 3, DType::Float32), {false, 0.1, 1e-5});
       }});
  // (input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)
  const std::string bn = "aten::batch_norm";
  rows.push_back(
      {bn, "training f32", [=](Gen& g) {
         return with(g.randn({4, 3, 5, 5}), stats(g, 3, DType::Float32), {true, 0.1, 1e-5, true});
       }});
  rows.push_back(
      {bn, "eval f32", [=](Gen& g) {
         return with(g.randn({4, 3, 5, 5}), stats(g, 3, DType::Float32), {false, 0.1, 1e-5, true});
       }});
  rows.push_back({bn, "eval 2-D f64", [=](Gen& g) {
                    return with(g.randn({6, 4}, DType::Float64), stats(g, 4, DType::Float64),
                                {false, 0.1, 1e-5, false});
                  }});
  rows.push_back(
      {bn, "eval empty batch", [=](Gen& g) {
         return with(g.randn({0, 3, 2}), stats(g, 3, DType::Float32), {false, 0.1, 1e-5, true});
       }});
  rows.push_back({bn, "running_mean size refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 3, 4}),
                                Value(),
                                Value(),
                                g.randn({4}),
                                g.positive({4}),
                                false,
                                0.1,
                                1e-5,
                                true};
                  },
                  -1, -1, true});
  rows.push_back({bn, "weight size refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 3, 4}),
                                g.randn({4}),
                                Value(),
                                g.randn({3}),
                                g.positive({3}),
                                false,
                                0.1,
                                1e-5,
                                true};
                  },
                  -1, -1, true});
}

void embedding_and_dropout_samples(Rows& rows) {
  // ---- embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False) ----
  const std::string emb = "aten::embedding";
  rows.push_back({emb, "f32 [10,4] by int64 [2,3]", [](Gen& g) {
                    return Args{g.randn({10, 4}), g.ints({2, 3}, 0, 9)};
                  }});
  rows.push_back({emb, "int32 indices", [](Gen& g) {
                    return Args{g.randn({10, 4}), g.ints({5}, 0, 9, DType::Int32)};
                  }});
  rows.push_back({emb, "0-dim index", [](Gen& g) {
                    return Args{g.randn({10, 4}), g.ints({}, 0, 9)};
                  }});
  rows.push_back({emb, "empty indices", [](Gen& g) {
                    return Args{g.randn({10, 4}), g.ints({0}, 0, 9)};
                  }});
  rows.push_back({emb, "padding_idx does not change the lookup", [](Gen& g) {
                    return Args{g.randn({10, 4}), g.ints({6}, 0, 9), int64_t{0}};
                  }});
  rows.push_back({emb, "f64 weight", [](Gen& g) {
                    return Args{g.randn({7, 3}, DType::Float64), g.ints({4}, 0, 6)};
                  }});
  rows.push_back({emb, "bf16 weight", [](Gen& g) {
                    return Args{g.randn({7, 3}, DType::BFloat16), g.ints({4}, 0, 6)};
                  }});
  rows.push_back({emb, "int64 weight", [](Gen& g) {
                    return Args{g.ints({7, 3}, -9, 9), g.ints({4}, 0, 6)};
                  }});
  rows.push_back({emb, "non-contiguous weight and indices", [](Gen& g) {
                    return Args{g.transposed({9, 5}), g.ints({4, 3}, 0, 8).t()};
                  }});
  rows.push_back({emb, "large", [](Gen& g) {
                    return Args{g.randn({1000, 64}), g.ints({32, 128}, 0, 999)};
                  }});
  rows.push_back({emb, "index out of range refused",
                  [](Gen& g) {
                    return Args{g.randn({4, 3}), from_vector<int64_t>({1, 4}, {2})};
                  },
                  -1, -1, true});
  rows.push_back({emb, "negative index refused",
                  [](Gen& g) {
                    return Args{g.randn({4, 3}), from_vector<int64_t>({-1}, {1})};
                  },
                  -1, -1, true});
  rows.push_back({emb, "float indices refused",
                  [](Gen& g) {
                    return Args{g.randn({4, 3}), g.randn({2})};
                  },
                  -1, -1, true});
  rows.push_back({emb, "1-D weight refused",
                  [](Gen& g) {
                    return Args{g.randn({4}), g.ints({2}, 0, 3)};
                  },
                  -1, -1, true});

  // ---- _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
  // per_sample_weights, include_last_offset, padding_idx) ----
  const std::string bag = "aten::_embedding_bag";
  auto offsets = [](std::vector<int64_t> v, DType dtype = DType::Int64) {
    return from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}).to(dtype);
  };
  const char* const bag_modes[] = {"sum", "mean", "max"};
  for (int64_t mode = 0; mode < 3; ++mode) {
    rows.push_back({bag, std::string(bag_modes[mode]) + ", an empty bag", [mode, offsets](Gen& g) {
                      return Args{g.randn({10, 3}), g.ints({8}, 0, 9), offsets({0, 3, 3}), false,
                                  mode};
                    }});
    rows.push_back({bag, std::string(bag_modes[mode]) + ", padding_idx, include_last_offset",
                    [mode, offsets](Gen& g) {
                      return Args{g.randn({10, 4}), g.ints({9}, 0, 4), offsets({0, 2, 6, 9}),
                                  false, mode, false, Value(), true, int64_t{2}};
                    }});
    rows.push_back({bag, std::string(bag_modes[mode]) + ", f64, int32 indices",
                    [mode, offsets](Gen& g) {
                      return Args{g.randn({6, 2}, DType::Float64),
                                  g.ints({5}, 0, 5, DType::Int32), offsets({0, 1}, DType::Int32),
                                  false, mode};
                    }});
  }
  rows.push_back({bag, "sum with per_sample_weights", [offsets](Gen& g) {
                    return Args{g.randn({10, 3}), g.ints({7}, 0, 9), offsets({0, 4}), false,
                                int64_t{0}, false, g.randn({7})};
                  }});
  rows.push_back({bag, "max, tied rows", [offsets](Gen& g) {
                    return Args{g.ints({5, 3}, 0, 1).to(DType::Float32), g.ints({6}, 0, 4),
                                offsets({0, 3}), false, int64_t{2}};
                  }});
  rows.push_back({bag, "per_sample_weights with mean refused",
                  [offsets](Gen& g) {
                    return Args{g.randn({10, 3}), g.ints({4}, 0, 9), offsets({0, 2}), false,
                                int64_t{1}, false, g.randn({4})};
                  },
                  -1, -1, true});
  rows.push_back({bag, "index out of range refused",
                  [offsets](Gen& g) {
                    return Args{g.randn({4, 3}), g.ints({4}, 4, 6), offsets({0, 2}), false,
                                int64_t{0}};
                  },
                  -1, -1, true});

  // ---- dropout(input, p, train) ----
  const std::string dr = "aten::dropout";
  rows.push_back({dr, "eval f32", [](Gen& g) { return Args{g.randn({3, 4}), 0.5, false}; }});
  rows.push_back({dr, "train with p=0", [](Gen& g) { return Args{g.randn({3, 4}), 0.0, true}; }});
  rows.push_back({dr, "eval f64 non-contiguous", [](Gen& g) {
                    return Args{g.transposed({4, 5}, DType::Float64), 0.1, false};
                  }});
  rows.push_back({dr, "eval 0-dim", [](Gen& g) { return Args{g.randn({}), 0.2, false}; }});
  rows.push_back({dr, "eval empty", [](Gen& g) { return Args{g.randn({0, 3}), 0.2, false}; }});
  rows.push_back({dr, "eval int64", [](Gen& g) { return Args{g.ints({5}, 0, 9), 0.2, false}; }});
  rows.push_back({dr, "p > 1 refused",
                  [](Gen& g) {
                    return Args{g.randn({3}), 1.5, false};
                  },
                  -1, -1, true});
  // dropout_(self, p, train): in evaluation self, untouched.
  const std::string dr_ = "aten::dropout_";
  rows.push_back({dr_, "eval f32", [](Gen& g) { return Args{g.randn({3, 4}), 0.5, false}; }});
  rows.push_back({dr_, "train with p=0", [](Gen& g) { return Args{g.randn({3, 4}), 0.0, true}; }});
  rows.push_back({dr_, "p > 1 refused",
                  [](Gen& g) {
                    return Args{g.randn({3}), 1.5, false};
                  },
                  -1, -1, true});
  // native_dropout(input, p, train) -> (output, mask): masks are random, so the values of a
  // training call with 0 < p < 1 are checked for shape and dtype only.
  const std::string nd = "aten::native_dropout";
  rows.push_back({nd, "eval f32", [](Gen& g) { return Args{g.randn({3, 4}), 0.5, false}; }});
  rows.push_back({nd, "train p=0", [](Gen& g) { return Args{g.randn({3, 4}), 0.0, true}; }});
  rows.push_back({nd, "train p=1", [](Gen& g) { return Args{g.randn({5}), 1.0, true}; }});
  rows.push_back({nd, "train f64 non-contiguous",
                  [](Gen& g) { return Args{g.transposed({4, 5}, DType::Float64), 0.3, true}; },
                  -1, -1, false, false});
  rows.push_back({nd, "p < 0 refused",
                  [](Gen& g) {
                    return Args{g.randn({3}), -0.5, true};
                  },
                  -1, -1, true});
}

void attention_samples(Rows& rows) {
  // scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
  //                              is_causal=False, *, scale=None)
  // GEMM accumulation order differs from PyTorch's matmul: f32 rows allow 1e-5.
  const std::string sdpa = "aten::scaled_dot_product_attention";
  auto f32 = [&rows, &sdpa](const std::string& label, std::function<Args(Gen&)> make) {
    rows.push_back({sdpa, label, std::move(make), 1e-5, 1e-5});
  };
  f32("f32 [2,4,8,16], S=10, Ev=12", [](Gen& g) {
    return Args{g.randn({2, 4, 8, 16}), g.randn({2, 4, 10, 16}), g.randn({2, 4, 10, 12})};
  });
  f32("3-D", [](Gen& g) {
    return Args{g.randn({3, 5, 8}), g.randn({3, 7, 8}), g.randn({3, 7, 8})};
  });
  f32("2-D", [](Gen& g) { return Args{g.randn({5, 8}), g.randn({6, 8}), g.randn({6, 4})}; });
  f32("bool mask, broadcast", [](Gen& g) {
    // Every query keeps key 0, so no row is fully masked (that would give NaN rows).
    Tensor mask = g.bools({8, 10});
    mask.select(1, 0).fill_(true);
    return Args{g.randn({2, 4, 8, 16}), g.randn({2, 4, 10, 16}), g.randn({2, 4, 10, 16}), mask};
  });
  f32("float mask [2,1,8,10]", [](Gen& g) {
    return Args{g.randn({2, 4, 8, 16}), g.randn({2, 4, 10, 16}), g.randn({2, 4, 10, 16}),
                g.randn({2, 1, 8, 10})};
  });
  f32("float mask [10] broadcast over rows", [](Gen& g) {
    return Args{g.randn({2, 8, 16}), g.randn({2, 10, 16}), g.randn({2, 10, 16}), g.randn({10})};
  });
  f32("causal L == S", [](Gen& g) {
    return Args{
        g.randn({2, 3, 9, 8}), g.randn({2, 3, 9, 8}), g.randn({2, 3, 9, 8}), Value(), 0.0, true};
  });
  f32("causal L < S", [](Gen& g) {
    return Args{g.randn({2, 6, 8}), g.randn({2, 9, 8}), g.randn({2, 9, 8}), Value(), 0.0, true};
  });
  f32("causal L > S", [](Gen& g) {
    return Args{g.randn({2, 9, 8}), g.randn({2, 5, 8}), g.randn({2, 5, 8}), Value(), 0.0, true};
  });
  f32("scale", [](Gen& g) {
    return Args{
        g.randn({2, 5, 8}), g.randn({2, 6, 8}), g.randn({2, 6, 8}), Value(), 0.0, false, 0.3};
  });
  f32("enable_gqa: 8 query heads over 2 key/value heads", [](Gen& g) {
    return Args{g.randn({2, 8, 5, 16}), g.randn({2, 2, 7, 16}), g.randn({2, 2, 7, 12}),
                Value(), 0.0, false, Value(), true};
  });
  f32("enable_gqa with a float mask", [](Gen& g) {
    return Args{g.randn({6, 4, 8}), g.randn({3, 5, 8}), g.randn({3, 5, 8}), g.randn({4, 5}), 0.0,
                false, Value(), true};
  });
  rows.push_back({sdpa, "enable_gqa with heads that do not divide refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 6, 4, 8}), g.randn({1, 4, 5, 8}),
                                g.randn({1, 4, 5, 8}), Value(), 0.0, false, Value(), true};
                  },
                  -1, -1, true});
  f32("broadcast batch (key and value shared across heads)", [](Gen& g) {
    return Args{g.randn({2, 4, 5, 8}), g.randn({2, 1, 6, 8}), g.randn({1, 6, 8})};
  });
  f32("non-contiguous", [](Gen& g) {
    return Args{g.randn({2, 8, 4, 16}).transpose(1, 2), g.randn({2, 10, 4, 16}).transpose(1, 2),
                g.transposed({2, 4, 10, 16})};
  });
  f32("q, k, v split from one projection and transposed: rows read where they lie", [](Gen& g) {
    // PyTorch's Hugging Face programs: view(split(qkv, 768, 2)[i], [B, L, H, E]).transpose(1, 2)
    const Tensor qkv = g.randn({2, 9, 3 * 4 * 16});
    const auto head = [&qkv](int64_t i) {
      return qkv.narrow(2, i * 64, 64).view({2, 9, 4, 16}).transpose(1, 2);
    };
    return Args{head(0), head(1), head(2), g.randn({2, 1, 1, 9})};
  });
  f32("no keys", [](Gen& g) {
    return Args{g.randn({2, 3, 4}), g.randn({2, 0, 4}), g.randn({2, 0, 5})};
  });
  f32("no queries", [](Gen& g) {
    return Args{g.randn({2, 0, 4}), g.randn({2, 5, 4}), g.randn({2, 5, 3})};
  });
  f32("empty batch", [](Gen& g) {
    return Args{g.randn({0, 3, 4}), g.randn({0, 5, 4}), g.randn({0, 5, 4})};
  });
  f32("large, several query blocks", [](Gen& g) {
    return Args{g.randn({2, 4, 200, 64}), g.randn({2, 4, 200, 64}), g.randn({2, 4, 200, 64})};
  });
  f32("large causal", [](Gen& g) {
    return Args{g.randn({2, 4, 200, 64}),
                g.randn({2, 4, 200, 64}),
                g.randn({2, 4, 200, 64}),
                Value(),
                0.0,
                true};
  });
  rows.push_back({sdpa, "f64", [](Gen& g) {
                    return Args{
                        g.randn({2, 5, 8}, DType::Float64), g.randn({2, 6, 8}, DType::Float64),
                        g.randn({2, 6, 8}, DType::Float64), g.randn({5, 6}, DType::Float64)};
                  }});
  // PyTorch computes bf16 attention with bf16 intermediates; we keep them in float.
  rows.push_back({sdpa, "bf16",
                  [](Gen& g) {
                    return Args{g.randn({2, 5, 8}, DType::BFloat16),
                                g.randn({2, 6, 8}, DType::BFloat16),
                                g.randn({2, 6, 8}, DType::BFloat16)};
                  },
                  3e-2, 3e-2});
  // PyTorch adds the mask to the scores in place, so a mask may not add batch dims.
  rows.push_back({sdpa, "mask with more batch dims than query refused",
                  [](Gen& g) {
                    return Args{g.randn({4, 8}), g.randn({6, 8}), g.randn({6, 8}),
                                g.randn({3, 4, 6})};
                  },
                  -1, -1, true});
  rows.push_back({sdpa, "1-D query refused",
                  [](Gen& g) {
                    return Args{g.randn({8}), g.randn({6, 8}), g.randn({6, 8})};
                  },
                  -1, -1, true});
  rows.push_back({sdpa, "mixed dtypes refused",
                  [](Gen& g) {
                    return Args{g.randn({5, 8}), g.randn({6, 8}, DType::Float64), g.randn({6, 8})};
                  },
                  -1, -1, true});
  rows.push_back({sdpa, "key features mismatch refused",
                  [](Gen& g) {
                    return Args{g.randn({5, 8}), g.randn({6, 7}), g.randn({6, 8})};
                  },
                  -1, -1, true});
  rows.push_back(
      {sdpa, "mask with is_causal refused",
       [](Gen& g) {
         return Args{g.randn({5, 8}), g.randn({5, 8}), g.randn({5, 8}), g.bools({5, 5}), 0.0, true};
       },
       -1, -1, true});
  rows.push_back(
      {sdpa, "int64 mask refused",
       [](Gen& g) {
         return Args{g.randn({5, 8}), g.randn({6, 8}), g.randn({6, 8}), g.ints({5, 6}, 0, 1)};
       },
       -1, -1, true});
}

}  // namespace

Rows nn_samples() {
  Rows rows;
  pool_samples(rows);
  pool3d_samples(rows);
  grid_sample_samples(rows);
  fold_samples(rows);
  backward_samples(rows);
  norm_samples(rows);
  embedding_and_dropout_samples(rows);
  attention_samples(rows);
  // Review findings: an empty batch is valid input.
  rows.push_back({"aten::batch_norm", "empty batch", [](Gen& g) {
                    return Args{g.randn({0, 3, 2, 2}), g.randn({3}), g.randn({3}), g.randn({3}),
                                g.positive({3}), false, 0.1, 1e-5, false};
                  }});
  rows.push_back({"aten::embedding", "no indices, no rows", [](Gen& g) {
                    return Args{g.randn({0, 4}), g.ints({0}, 0, 0)};
                  }});
  return rows;
}

}  // namespace xport::testing
