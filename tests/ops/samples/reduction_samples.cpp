#include <cmath>
#include <limits>

#include "ops/op_table.h"

namespace xport::testing {
namespace {

using L = std::vector<int64_t>;
constexpr double kInf = std::numeric_limits<double>::infinity();

void add(Rows& rows, const std::string& op, const std::string& label,
         std::function<Args(Gen&)> make) {
  rows.push_back({op, label, std::move(make)});
}
void add_error(Rows& rows, const std::string& op, const std::string& label,
               std::function<Args(Gen&)> make) {
  rows.push_back({op, label, std::move(make), -1, -1, true});
}

// Rows with -inf and +inf mixed in, and a row that is all -inf (a fully masked row).
Tensor with_infinities() {
  return from_vector<double>(
      {-kInf, -kInf, -kInf, -kInf, 1.0, -kInf, 2.0, 0.5, kInf, 1.0, 3.0, -kInf}, {3, 4},
      DType::Float32);
}

void sum_mean_samples(Rows& rows) {
  const std::string s = "aten::sum.dim_IntList";
  add(rows, s, "f32 dim 1", [](Gen& g) { return Args{g.randn({3, 4}), L{1}}; });
  add(rows, s, "f32 dims [0, 2] keepdim", [](Gen& g) {
    return Args{g.randn({3, 4, 5}), L{0, 2}, true};
  });
  add(rows, s, "negative dim", [](Gen& g) { return Args{g.randn({3, 4}), L{-1}}; });
  add(rows, s, "None means every dim", [](Gen& g) { return Args{g.randn({3, 4}), Value()}; });
  add(rows, s, "[] means every dim, keepdim", [](Gen& g) {
    return Args{g.randn({2, 3}), L{}, true};
  });
  add(rows, s, "one int as the dim list", [](Gen& g) { return Args{g.randn({2, 3}), int64_t{0}}; });
  add(rows, s, "f64", [](Gen& g) { return Args{g.randn({5, 6}, DType::Float64), L{0}}; });
  add(rows, s, "f16", [](Gen& g) { return Args{g.randn({4, 6}, DType::Float16), L{1}}; });
  add(rows, s, "bf16", [](Gen& g) { return Args{g.randn({4, 6}, DType::BFloat16), L{1}}; });
  add(rows, s, "int32 sums to int64", [](Gen& g) {
    return Args{g.ints({3, 4}, -9, 9, DType::Int32), L{0}};
  });
  add(rows, s, "uint8 sums to int64", [](Gen& g) {
    return Args{g.ints({3, 40}, 0, 255, DType::UInt8), L{1}};
  });
  add(rows, s, "bool sums to int64", [](Gen& g) { return Args{g.bools({3, 4}), L{1}}; });
  add(rows, s, "dtype float64", [](Gen& g) {
    return Args{g.randn({3, 4}), L{1}, false, DType::Float64};
  });
  add(rows, s, "int with dtype float32", [](Gen& g) {
    return Args{g.ints({3, 4}, -9, 9), L{1}, false, DType::Float32};
  });
  add(rows, s, "float with dtype int32 truncates first", [](Gen& g) {
    return Args{g.randn({3, 4}) * 3.0, L{1}, false, DType::Int32};
  });
  add(rows, s, "0-dim", [](Gen& g) { return Args{g.randn({}), L{0}}; });
  add(rows, s, "0-dim keepdim dim -1", [](Gen& g) { return Args{g.randn({}), L{-1}, true}; });
  add(rows, s, "empty reduced dim gives 0", [](Gen& g) { return Args{g.randn({0, 3}), L{0}}; });
  add(rows, s, "empty kept dim", [](Gen& g) { return Args{g.randn({0, 3}), L{1}}; });
  add(rows, s, "non-contiguous dim 0", [](Gen& g) { return Args{g.transposed({4, 5}), L{0}}; });
  add(rows, s, "non-contiguous dim 1", [](Gen& g) { return Args{g.transposed({4, 5}), L{1}}; });
  add(rows, s, "middle block [1, 2]", [](Gen& g) { return Args{g.randn({4, 5, 6, 7}), L{1, 2}}; });
  add(rows, s, "separated dims [0, 2]", [](Gen& g) { return Args{g.randn({4, 5, 6}), L{0, 2}}; });
  // Sums of 1500-3000 values: PyTorch's float accumulation is itself off by up to ~2e-5 from the
  // exact sum (checked against float64), ours by less; atol covers both.
  rows.push_back({s, "outer dim of many rows",
                  [](Gen& g) {
                    return Args{g.randn({3000, 40}), L{0}};
                  },
                  -1, 5e-5});
  rows.push_back({s, "outer dims, 300 columns",
                  [](Gen& g) {
                    return Args{g.randn({5, 300, 300}), L{0, 1}};
                  },
                  -1, 5e-5});
  rows.push_back({s, "long rows",
                  [](Gen& g) {
                    return Args{g.randn({4, 30000}), L{1}};
                  },
                  -1, 1e-3});
  // Summation order differs from PyTorch's: float32 sums of 30k-100k N(0, 1) values may differ
  // by ~sqrt(n) * eps * 100 in absolute terms, whatever the sum's own size (here and above).
  rows.push_back({s, "100k elements, split across threads",
                  [](Gen& g) {
                    return Args{g.randn({100000}), Value()};
                  },
                  -1, 1e-3});
  add(rows, s, "f64 200k elements, split across threads", [](Gen& g) {
    return Args{g.randn({200000}, DType::Float64), Value()};
  });
  add_error(rows, s, "dim out of range refused", [](Gen& g) {
    return Args{g.randn({3, 4}), L{2}};
  });
  add_error(rows, s, "repeated dim refused", [](Gen& g) {
    return Args{g.randn({3, 4}), L{0, -2}};
  });

  const std::string sd = "aten::sum";
  add(rows, sd, "f32", [](Gen& g) { return Args{g.randn({3, 4})}; });
  add(rows, sd, "int32 sums to int64", [](Gen& g) {
    return Args{g.ints({3, 4}, -9, 9, DType::Int32)};
  });
  add(rows, sd, "bool", [](Gen& g) { return Args{g.bools({7})}; });
  add(rows, sd, "dtype float64", [](Gen& g) { return Args{g.randn({3, 4}), DType::Float64}; });
  add(rows, sd, "f16", [](Gen& g) { return Args{g.randn({10}, DType::Float16)}; });
  add(rows, sd, "0-dim", [](Gen& g) { return Args{g.randn({})}; });
  add(rows, sd, "empty", [](Gen& g) { return Args{g.randn({2, 0})}; });
  add(rows, sd, "non-contiguous", [](Gen& g) { return Args{g.transposed({6, 7})}; });

  const std::string m = "aten::mean.dim";
  add(rows, m, "f32 dim 1", [](Gen& g) { return Args{g.randn({3, 4}), L{1}}; });
  add(rows, m, "f32 dims [0, 2] keepdim", [](Gen& g) {
    return Args{g.randn({3, 4, 5}), L{0, 2}, true};
  });
  add(rows, m, "None means every dim", [](Gen& g) { return Args{g.randn({3, 4}), Value()}; });
  add(rows, m, "negative dim", [](Gen& g) { return Args{g.randn({3, 4}), L{-2}}; });
  add(rows, m, "f64", [](Gen& g) { return Args{g.randn({5, 6}, DType::Float64), L{0}}; });
  add(rows, m, "f16", [](Gen& g) { return Args{g.randn({4, 6}, DType::Float16), L{1}}; });
  add(rows, m, "bf16", [](Gen& g) { return Args{g.randn({4, 6}, DType::BFloat16), L{1}}; });
  add(rows, m, "int with dtype float64", [](Gen& g) {
    return Args{g.ints({3, 4}, -9, 9), L{0}, false, DType::Float64};
  });
  add(rows, m, "non-contiguous", [](Gen& g) { return Args{g.transposed({4, 5}), L{0}}; });
  add(rows, m, "outer dims", [](Gen& g) { return Args{g.randn({64, 3, 8}), L{0}}; });
  add(rows, m, "empty reduced dim is nan", [](Gen& g) { return Args{g.randn({0, 3}), L{0}}; });
  add(rows, m, "0-dim", [](Gen& g) { return Args{g.randn({}), Value()}; });
  add_error(rows, m, "int refused", [](Gen& g) { return Args{g.ints({3, 4}, 0, 9), L{0}}; });
  add_error(rows, m, "bool refused", [](Gen& g) { return Args{g.bools({3}), L{0}}; });
  add_error(rows, m, "int dtype refused", [](Gen& g) {
    return Args{g.randn({3, 4}), L{0}, false, DType::Int64};
  });

  const std::string md = "aten::mean";
  add(rows, md, "f32", [](Gen& g) { return Args{g.randn({3, 4})}; });
  add(rows, md, "f64 non-contiguous", [](Gen& g) {
    return Args{g.transposed({5, 3}, DType::Float64)};
  });
  add(rows, md, "int with dtype float32", [](Gen& g) {
    return Args{g.ints({6}, 0, 9), DType::Float32};
  });
  add(rows, md, "f16", [](Gen& g) { return Args{g.randn({9}, DType::Float16)}; });
  add_error(rows, md, "int refused", [](Gen& g) { return Args{g.ints({3}, 0, 9)}; });
}

void prod_samples(Rows& rows) {
  const std::string p = "aten::prod";
  add(rows, p, "f32", [](Gen& g) { return Args{g.uniform({3, 4}, 0.5, 1.5)}; });
  add(rows, p, "f64", [](Gen& g) { return Args{g.uniform({10}, 0.5, 1.5, DType::Float64)}; });
  add(rows, p, "int32 to int64", [](Gen& g) { return Args{g.ints({6}, -4, 4, DType::Int32)}; });
  add(rows, p, "bool to int64", [](Gen& g) { return Args{g.bools({4})}; });
  add(rows, p, "dtype float64", [](Gen& g) {
    return Args{g.uniform({5}, 0.5, 1.5), DType::Float64};
  });
  add(rows, p, "0-dim", [](Gen& g) { return Args{g.randn({})}; });
  add(rows, p, "empty is 1", [](Gen& g) { return Args{g.randn({0})}; });
  add(rows, p, "non-contiguous", [](Gen& g) { return Args{g.transposed({3, 2})}; });

  const std::string pd = "aten::prod.dim_int";
  add(rows, pd, "f32 dim 1", [](Gen& g) { return Args{g.uniform({3, 4}, 0.5, 1.5), int64_t{1}}; });
  add(rows, pd, "keepdim, negative dim", [](Gen& g) {
    return Args{g.uniform({3, 4, 2}, 0.5, 1.5), int64_t{-2}, true};
  });
  add(rows, pd, "f64", [](Gen& g) {
    return Args{g.uniform({3, 4}, 0.5, 1.5, DType::Float64), int64_t{0}};
  });
  add(rows, pd, "f16", [](Gen& g) {
    return Args{g.uniform({3, 4}, 0.5, 1.5, DType::Float16), int64_t{0}};
  });
  add(rows, pd, "int32 to int64", [](Gen& g) {
    return Args{g.ints({3, 4}, -5, 5, DType::Int32), int64_t{1}};
  });
  add(rows, pd, "dtype float64", [](Gen& g) {
    return Args{g.randn({3, 4}), int64_t{1}, false, DType::Float64};
  });
  add(rows, pd, "non-contiguous", [](Gen& g) { return Args{g.transposed({3, 4}), int64_t{0}}; });
  add(rows, pd, "0-dim", [](Gen& g) { return Args{g.randn({}), int64_t{0}, true}; });
  add(rows, pd, "empty reduced dim is 1", [](Gen& g) { return Args{g.randn({0, 3}), int64_t{0}}; });
  add_error(rows, pd, "dim out of range refused", [](Gen& g) {
    return Args{g.randn({3}), int64_t{1}};
  });
}

// amax/amin and max/min (full): NaN wins; empty reductions refused.
void amax_samples(Rows& rows) {
  for (const std::string op : {"aten::amax", "aten::amin"}) {
    add(rows, op, "f32 dim 1", [](Gen& g) { return Args{g.randn({3, 4}), L{1}}; });
    add(rows, op, "default [] means every dim", [](Gen& g) { return Args{g.randn({3, 4})}; });
    add(rows, op, "dims [0, 2] keepdim", [](Gen& g) {
      return Args{g.randn({3, 4, 5}), L{0, 2}, true};
    });
    add(rows, op, "negative dim", [](Gen& g) { return Args{g.randn({3, 4}), L{-2}}; });
    add(rows, op, "f64", [](Gen& g) { return Args{g.randn({5, 6}, DType::Float64), L{1}}; });
    add(rows, op, "f16", [](Gen& g) { return Args{g.randn({4, 6}, DType::Float16), L{1}}; });
    add(rows, op, "bf16", [](Gen& g) { return Args{g.randn({4, 6}, DType::BFloat16), L{0}}; });
    add(rows, op, "int64", [](Gen& g) { return Args{g.ints({4, 6}, -50, 50), L{1}}; });
    add(rows, op, "int8", [](Gen& g) { return Args{g.ints({4, 6}, -50, 50, DType::Int8), L{0}}; });
    add(rows, op, "bool", [](Gen& g) { return Args{g.bools({4, 6}), L{1}}; });
    add(rows, op, "nan and inf", [](Gen& g) { return Args{g.edge().reshape({4, 4}), L{1}}; });
    add(rows, op, "nan, every dim", [](Gen& g) { return Args{g.edge()}; });
    add(rows, op, "nan, outer dim", [](Gen& g) { return Args{g.edge().reshape({4, 4}), L{0}}; });
    add(rows, op, "non-contiguous", [](Gen& g) { return Args{g.transposed({5, 7}), L{1}}; });
    add(rows, op, "long rows", [](Gen& g) { return Args{g.randn({3, 5000}), L{1}}; });
    add(rows, op, "one long row split across threads", [](Gen& g) {
      return Args{g.randn({1, 140000}), L{1}};
    });
    add(rows, op, "0-dim", [](Gen& g) { return Args{g.randn({}), L{0}}; });
    add(rows, op, "empty kept dim", [](Gen& g) { return Args{g.randn({0, 3}), L{1}}; });
    add_error(rows, op, "empty reduced dim refused", [](Gen& g) {
      return Args{g.randn({0, 3}), L{0}};
    });
    add_error(rows, op, "repeated dim refused", [](Gen& g) {
      return Args{g.randn({3, 4}), L{1, 1}};
    });
  }
  for (const std::string op : {"aten::max", "aten::min"}) {
    add(rows, op, "f32", [](Gen& g) { return Args{g.randn({3, 4})}; });
    add(rows, op, "int32", [](Gen& g) { return Args{g.ints({7}, -9, 9, DType::Int32)}; });
    add(rows, op, "bool", [](Gen& g) { return Args{g.bools({5})}; });
    add(rows, op, "f16", [](Gen& g) { return Args{g.randn({5}, DType::Float16)}; });
    add(rows, op, "nan wins", [](Gen& g) { return Args{g.edge()}; });
    add(rows, op, "0-dim", [](Gen& g) { return Args{g.randn({})}; });
    add(rows, op, "non-contiguous", [](Gen& g) { return Args{g.transposed({4, 3})}; });
    add_error(rows, op, "empty refused", [](Gen& g) { return Args{g.randn({0, 2})}; });
  }
}

// max.dim/min.dim and argmax/argmin: first occurrence on ties, the first NaN wins.
void arg_samples(Rows& rows) {
  for (const std::string op : {"aten::max.dim", "aten::min.dim"}) {
    add(rows, op, "f32 dim 1", [](Gen& g) { return Args{g.randn({3, 4}), int64_t{1}}; });
    add(rows, op, "keepdim, dim 0", [](Gen& g) { return Args{g.randn({3, 4}), int64_t{0}, true}; });
    add(rows, op, "negative dim, 3-d", [](Gen& g) {
      return Args{g.randn({3, 4, 5}), int64_t{-2}};
    });
    add(rows, op, "ties take the first", [](Gen& g) {
      return Args{g.ints({6, 8}, 0, 2), int64_t{1}};
    });
    add(rows, op, "f32 ties take the first", [](Gen& g) {
      return Args{g.ints({6, 8}, 0, 2, DType::Float32), int64_t{1}};
    });
    add(rows, op, "nan and inf", [](Gen& g) { return Args{g.edge().reshape({4, 4}), int64_t{1}}; });
    add(rows, op, "nan and inf, dim 0", [](Gen& g) {
      return Args{g.edge().reshape({4, 4}), int64_t{0}};
    });
    add(rows, op, "f64", [](Gen& g) { return Args{g.randn({5, 6}, DType::Float64), int64_t{1}}; });
    add(rows, op, "f16", [](Gen& g) { return Args{g.randn({4, 6}, DType::Float16), int64_t{1}}; });
    add(rows, op, "int8", [](Gen& g) {
      return Args{g.ints({4, 6}, -9, 9, DType::Int8), int64_t{0}};
    });
    add(rows, op, "bool", [](Gen& g) { return Args{g.bools({4, 6}), int64_t{1}}; });
    add(rows, op, "non-contiguous", [](Gen& g) { return Args{g.transposed({5, 7}), int64_t{1}}; });
    add(rows, op, "0-dim", [](Gen& g) { return Args{g.randn({}), int64_t{0}}; });
    add(rows, op, "empty kept dim", [](Gen& g) { return Args{g.randn({0, 3}), int64_t{1}}; });
    add_error(rows, op, "empty reduced dim refused", [](Gen& g) {
      return Args{g.randn({0, 3}), int64_t{0}};
    });
    add_error(rows, op, "dim out of range refused", [](Gen& g) {
      return Args{g.randn({3, 4}), int64_t{2}};
    });
  }
  for (const std::string op : {"aten::argmax", "aten::argmin"}) {
    add(rows, op, "f32 flattened", [](Gen& g) { return Args{g.randn({3, 4})}; });
    add(rows, op, "f32 dim 1", [](Gen& g) { return Args{g.randn({3, 4}), int64_t{1}}; });
    add(rows, op, "flattened keepdim", [](Gen& g) { return Args{g.randn({3, 4}), Value(), true}; });
    add(rows, op, "dim keepdim", [](Gen& g) { return Args{g.randn({3, 4}), int64_t{0}, true}; });
    add(rows, op, "negative dim", [](Gen& g) { return Args{g.randn({3, 4, 5}), int64_t{-1}}; });
    add(rows, op, "ties take the first", [](Gen& g) {
      return Args{g.ints({6, 8}, 0, 2), int64_t{1}};
    });
    add(rows, op, "f32 ties take the first", [](Gen& g) {
      return Args{g.ints({6, 8}, 0, 2, DType::Float32), int64_t{1}};
    });
    add(rows, op, "nan wins, flattened", [](Gen& g) { return Args{g.edge()}; });
    add(rows, op, "nan wins, dim 0", [](Gen& g) {
      return Args{g.edge().reshape({4, 4}), int64_t{0}};
    });
    add(rows, op, "f64", [](Gen& g) { return Args{g.randn({5, 6}, DType::Float64), int64_t{1}}; });
    add(rows, op, "f16", [](Gen& g) { return Args{g.randn({4, 6}, DType::Float16), int64_t{1}}; });
    add(rows, op, "int32", [](Gen& g) {
      return Args{g.ints({4, 6}, -9, 9, DType::Int32), int64_t{0}};
    });
    add(rows, op, "non-contiguous flattened", [](Gen& g) { return Args{g.transposed({5, 7})}; });
    add(rows, op, "non-contiguous dim 0", [](Gen& g) {
      return Args{g.transposed({5, 7}), int64_t{0}};
    });
    add(rows, op, "rows with nan, ties and -0", [](Gen&) {
      return Args{from_vector<double>({0.0, -0.0, 1.0, 1.0, std::nan(""), 2.0, std::nan(""), -1.0,
                                       -0.0, 0.0, -1.0, -1.0},
                                      {3, 4}, DType::Float32),
                  int64_t{1}};
    });
    add(rows, op, "long flattened, split across threads", [](Gen& g) {
      return Args{g.randn({300, 500})};
    });
    add(rows, op, "0-dim", [](Gen& g) { return Args{g.randn({})}; });
    add(rows, op, "0-dim keepdim", [](Gen& g) { return Args{g.randn({}), Value(), true}; });
    add(rows, op, "empty kept dim", [](Gen& g) { return Args{g.randn({0, 3}), int64_t{1}}; });
    add_error(rows, op, "bool refused", [](Gen& g) { return Args{g.bools({4})}; });
    add_error(rows, op, "empty flattened refused", [](Gen& g) { return Args{g.randn({0, 3})}; });
    add_error(rows, op, "empty reduced dim refused", [](Gen& g) {
      return Args{g.randn({0, 3}), int64_t{0}};
    });
  }
}

void var_std_samples(Rows& rows) {
  for (const std::string op : {"aten::var.correction", "aten::std.correction"}) {
    // Arguments: self, dim, correction (keyword), keepdim (keyword).
    add(rows, op, "f32 dim 1, correction None", [](Gen& g) {
      return Args{g.randn({3, 8}), L{1}, Value()};
    });
    add(rows, op, "correction 0", [](Gen& g) { return Args{g.randn({3, 8}), L{1}, int64_t{0}}; });
    add(rows, op, "correction 2, keepdim", [](Gen& g) {
      return Args{g.randn({3, 8}), L{0}, int64_t{2}, true};
    });
    add(rows, op, "fractional correction 0.5", [](Gen& g) {
      return Args{g.randn({3, 8}), L{1}, 0.5};
    });
    add(rows, op, "only self (dim and correction default to None)", [](Gen& g) {
      return Args{g.randn({3, 8})};
    });
    add(rows, op, "correction beyond n gives inf", [](Gen& g) {
      return Args{g.randn({2, 3}), L{0}, int64_t{3}};
    });
    add(rows, op, "None means every dim", [](Gen& g) {
      return Args{g.randn({3, 4}), Value(), int64_t{1}};
    });
    add(rows, op, "[] means every dim, keepdim", [](Gen& g) {
      return Args{g.randn({3, 4}), L{}, int64_t{1}, true};
    });
    add(rows, op, "dims [0, 2]", [](Gen& g) { return Args{g.randn({3, 4, 5}), L{0, 2}, Value()}; });
    add(rows, op, "f64", [](Gen& g) {
      return Args{g.randn({5, 6}, DType::Float64), L{1}, Value()};
    });
    add(rows, op, "f16", [](Gen& g) {
      return Args{g.randn({4, 6}, DType::Float16), L{1}, Value()};
    });
    add(rows, op, "bf16", [](Gen& g) {
      return Args{g.randn({4, 6}, DType::BFloat16), L{1}, Value()};
    });
    add(rows, op, "non-contiguous", [](Gen& g) {
      return Args{g.transposed({5, 7}), L{1}, Value()};
    });
    add(rows, op, "offset mean (two passes stay accurate)", [](Gen& g) {
      return Args{g.randn({4, 1000}) + 1000.0, L{1}, Value()};
    });
    add(rows, op, "100k elements", [](Gen& g) { return Args{g.randn({100000}), L{0}, Value()}; });
    add(rows, op, "0-dim is nan", [](Gen& g) { return Args{g.randn({}), Value(), Value()}; });
    add(rows, op, "0-dim correction 0", [](Gen& g) {
      return Args{g.randn({}), Value(), int64_t{0}};
    });
    add(rows, op, "empty is nan", [](Gen& g) { return Args{g.randn({0, 3}), L{0}, Value()}; });
    add_error(rows, op, "int refused", [](Gen& g) {
      return Args{g.ints({3, 4}, 0, 9), L{1}, Value()};
    });
    add_error(rows, op, "repeated dim refused", [](Gen& g) {
      return Args{g.randn({3, 4}), L{1, -1}, Value()};
    });
  }
}

void var_dim_samples(Rows& rows) {
  const std::string op = "aten::var.dim";  // self, dim, unbiased, keepdim
  add(rows, op, "f32 dim 1, unbiased", [](Gen& g) { return Args{g.randn({3, 8}), L{1}}; });
  add(rows, op, "biased, keepdim", [](Gen& g) {
    return Args{g.randn({3, 8}), L{0}, false, true};
  });
  add(rows, op, "None means every dim", [](Gen& g) { return Args{g.randn({3, 4}), Value()}; });
  add(rows, op, "dims [0, 2], f64", [](Gen& g) {
    return Args{g.randn({3, 4, 5}, DType::Float64), L{0, 2}};
  });
  add(rows, op, "one element is nan unbiased", [](Gen& g) { return Args{g.randn({1, 3}), L{0}}; });
  add(rows, op, "non-contiguous", [](Gen& g) { return Args{g.transposed({5, 7}), L{1}}; });
  add_error(rows, op, "int refused", [](Gen& g) { return Args{g.ints({3, 4}, 0, 9), L{1}}; });
}

void any_dims_samples(Rows& rows) {
  const std::string op = "aten::any.dims";  // self, dim=None, keepdim=False
  add(rows, op, "bool dims [0, 1]", [](Gen& g) { return Args{g.bools({4, 5, 3}), L{0, 1}}; });
  add(rows, op, "keepdim, negative dim", [](Gen& g) {
    return Args{g.bools({4, 5}), L{-1}, true};
  });
  add(rows, op, "None means every dim", [](Gen& g) { return Args{g.bools({4, 5})}; });
  add(rows, op, "[] means no dim", [](Gen& g) {
    return Args{g.ints({4, 5}, -1, 1, DType::Float32), L{}};
  });
  add(rows, op, "nan counts as true", [](Gen& g) { return Args{g.edge().reshape({4, 4}), L{1}}; });
  add(rows, op, "uint8 gives uint8", [](Gen& g) {
    return Args{g.ints({4, 5}, 0, 1, DType::UInt8), L{0}};
  });
  add(rows, op, "empty reduced dim", [](Gen& g) { return Args{g.bools({0, 3}), L{0}}; });
  add_error(rows, op, "dim out of range refused", [](Gen& g) { return Args{g.bools({3}), L{1}}; });
}

void any_all_samples(Rows& rows) {
  for (const std::string op : {"aten::any.dim", "aten::all.dim"}) {
    add(rows, op, "bool dim 1", [](Gen& g) { return Args{g.bools({4, 5}), int64_t{1}}; });
    add(rows, op, "bool keepdim, negative dim", [](Gen& g) {
      return Args{g.bools({4, 5}), int64_t{-2}, true};
    });
    add(rows, op, "f32 with zeros", [](Gen& g) {
      return Args{g.ints({4, 5}, 0, 1, DType::Float32), int64_t{1}};
    });
    add(rows, op, "nan counts as true", [](Gen& g) {
      return Args{g.edge().reshape({4, 4}), int64_t{1}};
    });
    add(rows, op, "int64", [](Gen& g) { return Args{g.ints({4, 5}, 0, 1), int64_t{0}}; });
    add(rows, op, "uint8 gives uint8", [](Gen& g) {
      return Args{g.ints({4, 5}, 0, 1, DType::UInt8), int64_t{1}};
    });
    add(rows, op, "f16", [](Gen& g) {
      return Args{g.ints({4, 5}, 0, 1, DType::Float16), int64_t{1}};
    });
    add(rows, op, "non-contiguous", [](Gen& g) {
      return Args{g.ints({6, 5}, 0, 1).t(), int64_t{1}};
    });
    add(rows, op, "0-dim", [](Gen& g) { return Args{g.bools({}), int64_t{0}}; });
    add(rows, op, "empty reduced dim", [](Gen& g) { return Args{g.bools({0, 3}), int64_t{0}}; });
    add_error(rows, op, "dim out of range refused", [](Gen& g) {
      return Args{g.bools({3}), int64_t{1}};
    });
  }
  for (const std::string op : {"aten::any", "aten::all"}) {
    add(rows, op, "bool", [](Gen& g) { return Args{g.bools({4, 5})}; });
    add(rows, op, "all true", [](Gen& g) { return Args{g.ints({6}, 1, 1, DType::Bool)}; });
    add(rows, op, "all false", [](Gen& g) { return Args{g.ints({6}, 0, 0, DType::Bool)}; });
    add(rows, op, "f32", [](Gen& g) { return Args{g.ints({4, 5}, 0, 1, DType::Float32)}; });
    add(rows, op, "int32", [](Gen& g) { return Args{g.ints({7}, -1, 1, DType::Int32)}; });
    add(rows, op, "uint8 gives uint8",
        [](Gen& g) { return Args{g.ints({7}, 0, 1, DType::UInt8)}; });
    add(rows, op, "nan counts as true", [](Gen& g) { return Args{g.edge()}; });
    add(rows, op, "0-dim", [](Gen& g) { return Args{g.randn({})}; });
    add(rows, op, "empty", [](Gen& g) { return Args{g.bools({0})}; });
    add(rows, op, "large, split across threads",
        [](Gen& g) { return Args{g.ints({100000}, 0, 1, DType::Bool)}; });
  }
}

void cumsum_logsumexp_samples(Rows& rows) {
  const std::string c = "aten::cumsum";
  add(rows, c, "f32 dim 1", [](Gen& g) { return Args{g.randn({3, 4}), int64_t{1}}; });
  add(rows, c, "f32 dim 0", [](Gen& g) { return Args{g.randn({3, 4}), int64_t{0}}; });
  add(rows, c, "middle dim, 3-d", [](Gen& g) { return Args{g.randn({3, 4, 300}), int64_t{1}}; });
  add(rows, c, "negative dim", [](Gen& g) { return Args{g.randn({3, 4}), int64_t{-1}}; });
  add(rows, c, "f64", [](Gen& g) { return Args{g.randn({5, 6}, DType::Float64), int64_t{1}}; });
  add(rows, c, "f16", [](Gen& g) { return Args{g.randn({5, 6}, DType::Float16), int64_t{1}}; });
  add(rows, c, "int32 to int64", [](Gen& g) {
    return Args{g.ints({3, 4}, -9, 9, DType::Int32), int64_t{1}};
  });
  add(rows, c, "bool to int64", [](Gen& g) { return Args{g.bools({9}), int64_t{0}}; });
  add(rows, c, "dtype float64", [](Gen& g) {
    return Args{g.randn({3, 4}), int64_t{1}, DType::Float64};
  });
  add(rows, c, "float with dtype int32", [](Gen& g) {
    return Args{g.randn({3, 4}) * 4.0, int64_t{0}, DType::Int32};
  });
  add(rows, c, "non-contiguous", [](Gen& g) { return Args{g.transposed({5, 7}), int64_t{1}}; });
  add(rows, c, "100k elements", [](Gen& g) { return Args{g.randn({100000}), int64_t{0}}; });
  add(rows, c, "0-dim", [](Gen& g) { return Args{g.randn({}), int64_t{0}}; });
  add(rows, c, "0-dim int", [](Gen& g) { return Args{g.ints({}, 0, 9), int64_t{-1}}; });
  add(rows, c, "empty", [](Gen& g) { return Args{g.randn({0, 3}), int64_t{0}}; });
  add_error(rows, c, "dim out of range refused", [](Gen& g) {
    return Args{g.randn({3, 4}), int64_t{2}};
  });

  const std::string l = "aten::logsumexp";
  add(rows, l, "f32 dim 1", [](Gen& g) { return Args{g.randn({3, 4}), L{1}}; });
  add(rows, l, "dims [0, 1] keepdim", [](Gen& g) {
    return Args{g.randn({3, 4, 2}), L{0, 1}, true};
  });
  add(rows, l, "negative dim", [](Gen& g) { return Args{g.randn({3, 4}), L{-2}}; });
  add(rows, l, "large values stay finite", [](Gen& g) {
    return Args{g.randn({3, 40}) * 100.0, L{1}};
  });
  add(rows, l, "f64", [](Gen& g) { return Args{g.randn({5, 6}, DType::Float64), L{1}}; });
  add(rows, l, "f16", [](Gen& g) { return Args{g.randn({4, 6}, DType::Float16), L{1}}; });
  add(rows, l, "long rows", [](Gen& g) { return Args{g.randn({2, 20000}), L{1}}; });
  add(rows, l, "middle dim", [](Gen& g) { return Args{g.randn({3, 5, 7}), L{1}}; });
  add(rows, l, "nan", [](Gen& g) { return Args{g.edge().reshape({4, 4}), L{1}}; });
  add(rows, l, "int computes in float32", [](Gen& g) { return Args{g.ints({3, 4}, -5, 5), L{1}}; });
  add(rows, l, "infinite rows", [](Gen&) { return Args{with_infinities(), L{1}}; });
  add(rows, l, "non-contiguous", [](Gen& g) { return Args{g.transposed({5, 7}), L{0}}; });
  add(rows, l, "0-dim", [](Gen& g) { return Args{g.randn({}), L{0}}; });
  add(rows, l, "empty is -inf", [](Gen& g) { return Args{g.randn({0, 3}), L{0}}; });
  add_error(rows, l, "dim out of range refused", [](Gen& g) {
    return Args{g.randn({3, 4}), L{3}};
  });
}

void softmax_samples(Rows& rows) {
  for (const std::string op : {"aten::_softmax", "aten::_log_softmax"}) {
    add(rows, op, "f32 last dim", [](Gen& g) { return Args{g.randn({3, 5}), int64_t{1}, false}; });
    add(rows, op, "f32 dim 0", [](Gen& g) { return Args{g.randn({3, 5}), int64_t{0}, false}; });
    add(rows, op, "middle dim, 300 columns", [](Gen& g) {
      return Args{g.randn({2, 7, 300}), int64_t{1}, false};
    });
    add(rows, op, "negative dim", [](Gen& g) {
      return Args{g.randn({2, 3, 4}), int64_t{-1}, false};
    });
    add(rows, op, "large values", [](Gen& g) {
      return Args{g.randn({4, 9}) * 100.0, int64_t{1}, false};
    });
    add(rows, op, "many rows", [](Gen& g) {
      return Args{g.randn({64, 4, 77}), int64_t{2}, false};
    });
    add(rows, op, "f64 last dim", [](Gen& g) {
      return Args{g.randn({5, 6}, DType::Float64), int64_t{1}, false};
    });
    add(rows, op, "f64 dim 0", [](Gen& g) {
      return Args{g.randn({5, 6}, DType::Float64), int64_t{0}, false};
    });
    add(rows, op, "f16", [](Gen& g) {
      return Args{g.randn({4, 6}, DType::Float16), int64_t{1}, false};
    });
    add(rows, op, "bf16", [](Gen& g) {
      return Args{g.randn({4, 6}, DType::BFloat16), int64_t{1}, false};
    });
    add(rows, op, "masked rows with -inf", [](Gen&) {
      return Args{with_infinities(), int64_t{1}, false};
    });
    add(rows, op, "masked columns with -inf", [](Gen&) {
      return Args{with_infinities(), int64_t{0}, false};
    });
    add(rows, op, "nan", [](Gen& g) { return Args{g.edge().reshape({4, 4}), int64_t{1}, false}; });
    add(rows, op, "non-contiguous", [](Gen& g) {
      return Args{g.transposed({5, 7}), int64_t{1}, false};
    });
    add(rows, op, "0-dim", [](Gen& g) { return Args{g.randn({}), int64_t{0}, false}; });
    add(rows, op, "empty", [](Gen& g) { return Args{g.randn({0, 3}), int64_t{1}, false}; });
    add_error(rows, op, "int refused", [](Gen& g) {
      return Args{g.ints({3, 4}, 0, 9), int64_t{1}, false};
    });
    add_error(rows, op, "half_to_float with float32 refused", [](Gen& g) {
      return Args{g.randn({3, 4}), int64_t{1}, true};
    });
    add_error(rows, op, "dim out of range refused", [](Gen& g) {
      return Args{g.randn({3, 4}), int64_t{2}, false};
    });
  }
  for (const std::string op : {"aten::softmax.int", "aten::log_softmax.int"}) {
    add(rows, op, "f32", [](Gen& g) { return Args{g.randn({3, 5}), int64_t{1}}; });
    add(rows, op, "negative dim", [](Gen& g) { return Args{g.randn({3, 5}), int64_t{-2}}; });
    add(rows, op, "dtype float64", [](Gen& g) {
      return Args{g.randn({3, 5}), int64_t{1}, DType::Float64};
    });
    add(rows, op, "int with dtype float32", [](Gen& g) {
      return Args{g.ints({3, 5}, -5, 5), int64_t{1}, DType::Float32};
    });
    add(rows, op, "bf16", [](Gen& g) {
      return Args{g.randn({3, 5}, DType::BFloat16), int64_t{0}};
    });
    add(rows, op, "0-dim", [](Gen& g) { return Args{g.randn({}), int64_t{0}}; });
    add_error(rows, op, "int without dtype refused", [](Gen& g) {
      return Args{g.ints({3, 4}, 0, 9), int64_t{1}};
    });
  }
}

}  // namespace

void vector_norm_samples(Rows& rows) {
  const std::string op = "aten::linalg_vector_norm";
  add(rows, op, "2-norm of everything", [](Gen& g) { return Args{g.randn({3, 4})}; });
  add(rows, op, "1-norm dim 1 keepdim", [](Gen& g) {
    return Args{g.randn({3, 4}), 1.0, L{1}, true};
  });
  add(rows, op, "inf-norm dims [0, 2]", [](Gen& g) {
    return Args{g.randn({2, 3, 4}), kInf, L{0, 2}};
  });
  add(rows, op, "-inf-norm", [](Gen& g) { return Args{g.randn({5, 2}), -kInf, L{0}}; });
  add(rows, op, "0-norm counts nonzeros", [](Gen&) {
    return Args{from_vector<float>({0, 1, -2, 0, 0, 3}, {2, 3}), int64_t{0}, L{1}};
  });
  add(rows, op, "3-norm, negative dim", [](Gen& g) {
    return Args{g.randn({3, 4}), 3.0, L{-1}};
  });
  add(rows, op, "f32 computed as f64", [](Gen& g) {
    return Args{g.randn({6}), 2.0, Value(), false, DType::Float64};
  });
  add(rows, op, "non-finite values", [](Gen& g) { return Args{g.edge()}; });
  add(rows, op, "empty", [](Gen& g) { return Args{g.randn({0, 3}), 2.0, L{0}}; });
  add_error(rows, op, "int64 refused", [](Gen& g) { return Args{g.ints({3}, 0, 5)}; });
}

Rows reduction_samples() {
  Rows rows;
  sum_mean_samples(rows);
  prod_samples(rows);
  amax_samples(rows);
  arg_samples(rows);
  var_std_samples(rows);
  var_dim_samples(rows);
  any_dims_samples(rows);
  any_all_samples(rows);
  cumsum_logsumexp_samples(rows);
  softmax_samples(rows);
  vector_norm_samples(rows);
  return rows;
}

}  // namespace xport::testing
