#include <cmath>

#include "ops/op_table.h"

namespace xport::testing {
namespace {

using TL = std::vector<Tensor>;
using IL = std::vector<int64_t>;
constexpr DType F16 = DType::Float16, BF16 = DType::BFloat16, F64 = DType::Float64,
                I64 = DType::Int64, I32 = DType::Int32;

void error_row(Rows& rows, const std::string& op, const std::string& label,
               std::function<Args(Gen&)> make) {
  rows.push_back({op, label, std::move(make), -1, -1, /*expect_error=*/true});
}

// Distinct indices along `dim`: the order that sorts random values (a random
// permutation per row), first `k` of them. Scatter and index_put without
// accumulate need them: with repeats, which write wins is unspecified.
Tensor permutation(Gen& g, SymIntList shape, int64_t dim, int64_t k) {
  return sort(g.randn(shape), dim).second.slice(dim, 0, k);
}

void cat_rows(Rows& rows) {
  const std::string cat = "aten::cat";
  rows.push_back({cat, "f32 dim 0", [](Gen& g) {
                    return Args{TL{g.randn({2, 3}), g.randn({4, 3})}};
                  }});
  rows.push_back({cat, "f32 dim 1 three inputs", [](Gen& g) {
                    return Args{TL{g.randn({2, 3}), g.randn({2, 1}), g.randn({2, 5})}, 1};
                  }});
  rows.push_back({cat, "negative dim", [](Gen& g) {
                    return Args{TL{g.randn({2, 3, 2}), g.randn({2, 3, 4})}, -1};
                  }});
  rows.push_back({cat, "f64", [](Gen& g) {
                    return Args{TL{g.randn({3}, F64), g.randn({2}, F64)}};
                  }});
  rows.push_back({cat, "bf16", [](Gen& g) {
                    return Args{TL{g.randn({2, 2}, BF16), g.randn({1, 2}, BF16)}};
                  }});
  rows.push_back({cat, "f16 dim 1", [](Gen& g) {
                    return Args{TL{g.randn({2, 2}, F16), g.randn({2, 3}, F16)}, 1};
                  }});
  rows.push_back({cat, "int64", [](Gen& g) {
                    return Args{TL{g.ints({2, 2}, -9, 9), g.ints({2, 2}, -9, 9)}, 1};
                  }});
  rows.push_back({cat, "bool", [](Gen& g) { return Args{TL{g.bools({3}), g.bools({4})}}; }});
  rows.push_back({cat, "promotes bool and int32", [](Gen& g) {
                    return Args{TL{g.bools({2}), g.ints({2}, -5, 5, I32)}};
                  }});
  rows.push_back({cat, "promotes int and f64", [](Gen& g) {
                    return Args{TL{g.ints({2, 2}, -5, 5), g.randn({1, 2}, F64)}};
                  }});
  rows.push_back({cat, "non-contiguous inputs", [](Gen& g) {
                    return Args{TL{g.transposed({3, 4}), g.randn({3, 2}), g.transposed({3, 5})}, 1};
                  }});
  rows.push_back({cat, "one input", [](Gen& g) { return Args{TL{g.randn({2, 3})}, 1}; }});
  rows.push_back({cat, "empty along dim", [](Gen& g) {
                    return Args{TL{g.randn({0, 3}), g.randn({2, 3})}};
                  }});
  rows.push_back({cat, "legacy 1-D empty is skipped", [](Gen& g) {
                    return Args{TL{g.randn({0}, F64), g.ints({2, 3}, 0, 9)}, 1};
                  }});
  rows.push_back({cat, "all legacy empty", [](Gen& g) {
                    return Args{TL{g.randn({0}), g.randn({0})}};
                  }});
  rows.push_back({cat, "large, parallel", [](Gen& g) {
                    return Args{TL{g.randn({300, 200}), g.randn({300, 100})}, 1};
                  }});
  error_row(rows, cat, "0-dim refused", [](Gen& g) { return Args{TL{g.randn({}), g.randn({})}}; });
  error_row(rows, cat, "empty list refused", [](Gen&) { return Args{TL{}}; });
  error_row(rows, cat, "mismatched sizes refused", [](Gen& g) {
    return Args{TL{g.randn({2, 3}), g.randn({2, 4})}};
  });
  error_row(rows, cat, "mismatched ranks refused", [](Gen& g) {
    return Args{TL{g.randn({2, 3}), g.randn({3})}};
  });
  error_row(rows, cat, "dim out of range refused", [](Gen& g) {
    return Args{TL{g.randn({2, 3}), g.randn({2, 3})}, 2};
  });

  const std::string stack = "aten::stack";
  rows.push_back({stack, "f32 dim 0", [](Gen& g) {
                    return Args{TL{g.randn({2, 3}), g.randn({2, 3})}};
                  }});
  rows.push_back({stack, "last dim", [](Gen& g) {
                    return Args{TL{g.randn({2, 3}), g.transposed({2, 3})}, -1};
                  }});
  rows.push_back({stack, "middle dim, int64", [](Gen& g) {
                    return Args{TL{g.ints({2, 3}, 0, 9), g.ints({2, 3}, 0, 9)}, 1};
                  }});
  rows.push_back({stack, "0-dim", [](Gen& g) {
                    return Args{TL{g.randn({}), g.randn({}), g.randn({})}};
                  }});
  rows.push_back({stack, "promotes", [](Gen& g) {
                    return Args{TL{g.randn({2}), g.randn({2}, F64)}};
                  }});
  rows.push_back({stack, "bool", [](Gen& g) { return Args{TL{g.bools({4}), g.bools({4})}}; }});
  rows.push_back({stack, "empty", [](Gen& g) {
                    return Args{TL{g.randn({0, 2}), g.randn({0, 2})}, 2};
                  }});
  error_row(rows, stack, "unequal shapes refused", [](Gen& g) {
    return Args{TL{g.randn({2}), g.randn({3})}};
  });
  error_row(rows, stack, "empty list refused", [](Gen&) { return Args{TL{}}; });
}

void split_rows(Rows& rows) {
  const std::string split = "aten::split.Tensor";
  rows.push_back({split, "uneven", [](Gen& g) { return Args{g.randn({7, 2}), int64_t{3}}; }});
  rows.push_back({split, "dim 1 negative", [](Gen& g) {
                    return Args{g.randn({2, 6}), int64_t{2}, -1};
                  }});
  rows.push_back({split, "larger than the dim", [](Gen& g) {
                    return Args{g.ints({4}, 0, 9), int64_t{5}};
                  }});
  rows.push_back({split, "non-contiguous bf16", [](Gen& g) {
                    return Args{g.transposed({4, 5}, BF16), int64_t{2}, 1};
                  }});
  rows.push_back({split, "0 of an empty dim", [](Gen& g) {
                    return Args{g.randn({0}), int64_t{0}};
                  }});
  error_row(rows, split, "negative size refused", [](Gen& g) {
    return Args{g.randn({4}), int64_t{-1}};
  });
  error_row(rows, split, "0 of a non-empty dim refused", [](Gen& g) {
    return Args{g.randn({4}), int64_t{0}};
  });
  error_row(rows, split, "0-dim refused", [](Gen& g) { return Args{g.randn({}), int64_t{1}}; });

  const std::string sws = "aten::split_with_sizes";
  rows.push_back({sws, "f32", [](Gen& g) { return Args{g.randn({6, 2}), IL{1, 2, 3}}; }});
  rows.push_back({sws, "zero-size part, dim -1", [](Gen& g) {
                    return Args{g.randn({2, 4}, F64), IL{0, 4}, -1};
                  }});
  rows.push_back({sws, "bool non-contiguous", [](Gen& g) {
                    return Args{g.bools({5, 3}).t(), IL{2, 3}, 1};
                  }});
  error_row(rows, sws, "sizes not summing to the dim refused", [](Gen& g) {
    return Args{g.randn({4}), IL{1, 2}};
  });
  error_row(rows, sws, "negative size refused", [](Gen& g) {
    return Args{g.randn({4}), IL{5, -1}};
  });

  const std::string chunk = "aten::chunk";
  rows.push_back({chunk, "3 of 7", [](Gen& g) { return Args{g.randn({7}), int64_t{3}}; }});
  rows.push_back({chunk, "4 of 6 gives 3", [](Gen& g) {
                    return Args{g.ints({2, 6}, 0, 5), int64_t{4}, 1};
                  }});
  rows.push_back({chunk, "empty dim gives all chunks", [](Gen& g) {
                    return Args{g.randn({0, 2}), int64_t{3}};
                  }});
  rows.push_back({chunk, "non-contiguous, negative dim", [](Gen& g) {
                    return Args{g.transposed({3, 4}), int64_t{2}, -2};
                  }});
  error_row(rows, chunk, "0 chunks refused", [](Gen& g) { return Args{g.randn({4}), int64_t{0}}; });

  const std::string unbind = "aten::unbind.int";
  rows.push_back({unbind, "dim 0", [](Gen& g) { return Args{g.randn({3, 2})}; }});
  rows.push_back({unbind, "dim -1 int64", [](Gen& g) { return Args{g.ints({2, 3}, 0, 9), -1}; }});
  rows.push_back({unbind, "empty dim gives none", [](Gen& g) { return Args{g.randn({0, 3})}; }});
  rows.push_back({unbind, "non-contiguous f16", [](Gen& g) {
                    return Args{g.transposed({2, 3}, F16), 1};
                  }});
  error_row(rows, unbind, "0-dim refused", [](Gen& g) { return Args{g.randn({})}; });
}

void index_rows(Rows& rows) {
  const std::string is = "aten::index_select";
  rows.push_back({is, "dim 0", [](Gen& g) { return Args{g.randn({5, 3}), 0, g.ints({4}, 0, 4)}; }});
  rows.push_back({is, "dim 1 int32 index", [](Gen& g) {
                    return Args{g.randn({3, 5}), 1, g.ints({6}, 0, 4, I32)};
                  }});
  rows.push_back({is, "negative dim, 3-D", [](Gen& g) {
                    return Args{g.randn({2, 3, 4}, F64), -2, g.ints({2}, 0, 2)};
                  }});
  rows.push_back({is, "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({4, 6}), 0, g.ints({3}, 0, 3)};
                  }});
  rows.push_back({is, "bool", [](Gen& g) { return Args{g.bools({5}), 0, g.ints({7}, 0, 4)}; }});
  rows.push_back({is, "bf16 0-dim index", [](Gen& g) {
                    return Args{g.randn({4, 2}, BF16), 0, g.ints({}, 0, 3)};
                  }});
  rows.push_back({is, "0-dim self", [](Gen& g) {
                    return Args{g.randn({}), 0, g.ints({1}, 0, 0)};
                  }});
  rows.push_back({is, "empty index", [](Gen& g) {
                    return Args{g.randn({3, 2}), 0, g.ints({0}, 0, 0)};
                  }});
  rows.push_back({is, "large", [](Gen& g) {
                    return Args{g.randn({1000, 64}), 0, g.ints({2000}, 0, 999)};
                  }});
  error_row(rows, is, "index out of range refused", [](Gen& g) {
    return Args{g.randn({3}), 0, g.ints({2}, 3, 3)};
  });
  error_row(rows, is, "negative index refused", [](Gen& g) {
    return Args{g.randn({3}), 0, g.ints({2}, -1, -1)};
  });
  error_row(rows, is, "2-D index refused", [](Gen& g) {
    return Args{g.randn({3}), 0, g.ints({1, 1}, 0, 0)};
  });
  error_row(rows, is, "float index refused", [](Gen& g) {
    return Args{g.randn({3}), 0, g.randn({1})};
  });

  const std::string gather = "aten::gather";
  rows.push_back({gather, "dim 1", [](Gen& g) {
                    return Args{g.randn({3, 4}), 1, g.ints({3, 6}, 0, 3)};
                  }});
  rows.push_back({gather, "dim 0 smaller index", [](Gen& g) {
                    return Args{g.randn({4, 5}, F64), 0, g.ints({2, 3}, 0, 3)};
                  }});
  rows.push_back({gather, "negative dim 3-D", [](Gen& g) {
                    return Args{g.randn({2, 3, 4}), -1, g.ints({2, 3, 2}, 0, 3)};
                  }});
  rows.push_back({gather, "non-contiguous self and index", [](Gen& g) {
                    return Args{g.transposed({4, 3}), 0, g.ints({3, 4}, 0, 3).t()};
                  }});
  rows.push_back({gather, "int64 self", [](Gen& g) {
                    return Args{g.ints({3, 3}, -9, 9), 1, g.ints({3, 2}, 0, 2)};
                  }});
  rows.push_back({gather, "bool self", [](Gen& g) {
                    return Args{g.bools({6}), 0, g.ints({4}, 0, 5)};
                  }});
  rows.push_back({gather, "f16", [](Gen& g) {
                    return Args{g.randn({5}, F16), 0, g.ints({3}, 0, 4)};
                  }});
  rows.push_back({gather, "0-dim", [](Gen& g) { return Args{g.randn({}), 0, g.ints({}, 0, 0)}; }});
  rows.push_back({gather, "empty index", [](Gen& g) {
                    return Args{g.randn({2, 3}), 1, g.ints({2, 0}, 0, 0)};
                  }});
  error_row(rows, gather, "index out of range refused", [](Gen& g) {
    return Args{g.randn({5}), 0, g.ints({2}, 5, 5)};
  });
  error_row(rows, gather, "negative index refused", [](Gen& g) {
    return Args{g.randn({5}), 0, g.ints({2}, -1, -1)};
  });
  rows.push_back({gather, "int32 index", [](Gen& g) {
                    return Args{g.randn({5}), 0, g.ints({2}, 0, 4, I32)};
                  }});
  error_row(rows, gather, "int16 index refused", [](Gen& g) {
    return Args{g.randn({5}), 0, g.ints({2}, 0, 1, DType::Int16)};
  });
  error_row(rows, gather, "index larger than self refused", [](Gen& g) {
    return Args{g.randn({2, 3}), 0, g.ints({1, 4}, 0, 1)};
  });
  error_row(rows, gather, "rank mismatch refused", [](Gen& g) {
    return Args{g.randn({2, 2}), 0, g.ints({2}, 0, 1)};
  });

  const std::string index = "aten::index.Tensor";
  rows.push_back({index, "first dim", [](Gen& g) {
                    return Args{g.randn({5, 3}), TL{g.ints({4}, 0, 4)}};
                  }});
  rows.push_back({index, "negative indices wrap", [](Gen& g) {
                    return Args{g.randn({5, 3}), TL{g.ints({4}, -5, 4)}};
                  }});
  rows.push_back({index, "None then index (last dim)", [](Gen& g) {
                    return Args{g.randn({3, 6}), TL{Tensor(), g.ints({2, 2}, 0, 5)}};
                  }});
  rows.push_back(
      {index, "adjacent indices broadcast", [](Gen& g) {
         return Args{g.randn({2, 3, 4}), TL{Tensor(), g.ints({2, 1}, 0, 2), g.ints({3}, 0, 3)}};
       }});
  rows.push_back(
      {index, "non-adjacent indices go first", [](Gen& g) {
         return Args{g.randn({2, 3, 4}, F64), TL{g.ints({2}, 0, 1), Tensor(), g.ints({2}, 0, 3)}};
       }});
  rows.push_back({index, "all dims", [](Gen& g) {
                    return Args{g.ints({3, 4}, -9, 9), TL{g.ints({5}, 0, 2), g.ints({5}, 0, 3)}};
                  }});
  rows.push_back({index, "0-dim index", [](Gen& g) {
                    return Args{g.randn({3, 4}), TL{g.ints({}, 0, 2)}};
                  }});
  rows.push_back({index, "non-contiguous self, bool values", [](Gen& g) {
                    return Args{g.bools({4, 3}).t(), TL{g.ints({2}, 0, 2)}};
                  }});
  rows.push_back({index, "non-contiguous self and index", [](Gen& g) {
                    return Args{g.transposed({3, 4}, BF16), TL{Tensor(), g.ints({3, 2}, 0, 2).t()}};
                  }});
  rows.push_back({index, "empty index", [](Gen& g) {
                    return Args{g.randn({3, 4}), TL{g.ints({0}, 0, 0)}};
                  }});
  rows.push_back({index, "bool mask", [](Gen& g) {
                    return Args{g.randn({4, 3}), TL{g.bools({4})}};
                  }});
  rows.push_back({index, "2-D bool mask", [](Gen& g) {
                    return Args{g.randn({3, 4, 2}), TL{g.bools({3, 4})}};
                  }});
  rows.push_back({index, "mask after None", [](Gen& g) {
                    return Args{g.randn({2, 5}), TL{Tensor(), g.bools({5})}};
                  }});
  rows.push_back({index, "large rows", [](Gen& g) {
                    return Args{g.randn({500, 128}), TL{g.ints({1000}, 0, 499)}};
                  }});
  error_row(rows, index, "index out of range refused", [](Gen& g) {
    return Args{g.randn({2, 3}), TL{g.ints({1}, 2, 2)}};
  });
  error_row(rows, index, "too-negative index refused", [](Gen& g) {
    return Args{g.randn({2, 3}), TL{g.ints({1}, -3, -3)}};
  });
  error_row(rows, index, "too many indices refused", [](Gen& g) {
    return Args{g.randn({2}), TL{g.ints({1}, 0, 0), g.ints({1}, 0, 0)}};
  });
  error_row(rows, index, "indices that do not broadcast refused", [](Gen& g) {
    return Args{g.randn({3, 3}), TL{g.ints({2}, 0, 1), g.ints({3}, 0, 1)}};
  });
  error_row(rows, index, "mask of the wrong shape refused", [](Gen& g) {
    return Args{g.randn({2, 3}), TL{g.bools({3})}};
  });
  error_row(rows, index, "float index refused", [](Gen& g) {
    return Args{g.randn({2, 3}), TL{g.randn({1})}};
  });

  const std::string put = "aten::index_put";
  rows.push_back({put, "rows from a 0-dim value", [](Gen& g) {
                    return Args{g.randn({4, 3}), TL{permutation(g, {4}, 0, 2)}, g.randn({})};
                  }});
  rows.push_back(
      {put, "rows, broadcast values", [](Gen& g) {
         return Args{g.randn({4, 3}, F64), TL{permutation(g, {4}, 0, 3)}, g.randn({3}, F64)};
       }});
  rows.push_back({put, "elements, negative indices", [](Gen& g) {
                    return Args{g.ints({5}, 0, 9), TL{permutation(g, {5}, 0, 3) - int64_t{5}},
                                g.ints({3}, -9, 0)};
                  }});
  rows.push_back({"aten::index_put_", "rows in place", [](Gen& g) {
                    return Args{g.randn({4, 3}), TL{permutation(g, {4}, 0, 2)}, g.randn({2, 3})};
                  }});
  rows.push_back({"aten::index_put_", "accumulate in place", [](Gen& g) {
                    return Args{g.randn({3, 2}), TL{g.ints({6}, 0, 2)}, g.randn({6, 2}), true};
                  }});
  const std::string copy = "aten::index_copy";
  // A KV cache's update: new positions along dim 2 of [batch, heads, positions, head dim].
  rows.push_back({copy, "positions of a cache", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 3}), int64_t{2}, permutation(g, {6}, 0, 2),
                                g.randn({1, 2, 2, 3})};
                  }});
  rows.push_back({copy, "dim 0, int64, negative dim", [](Gen& g) {
                    return Args{g.ints({4, 3}, 0, 9), int64_t{-2}, permutation(g, {4}, 0, 3),
                                g.ints({3, 3}, 0, 9)};
                  }});
  rows.push_back({copy, "non-contiguous self", [](Gen& g) {
                    return Args{g.transposed({3, 5}), int64_t{1}, permutation(g, {5}, 0, 2),
                                g.randn({3, 2})};
                  }});
  rows.push_back({copy, "1-D, 0-dim index", [](Gen& g) {
                    return Args{g.randn({5}), int64_t{0}, from_vector<int64_t>({3}, {}),
                                g.randn({1})};
                  }});
  rows.push_back({copy, "index out of range refused",
                  [](Gen& g) {
                    return Args{g.randn({4, 3}), int64_t{0}, from_vector<int64_t>({4}, {1}),
                                g.randn({1, 3})};
                  },
                  -1, -1, true});
  rows.push_back({copy, "source of the wrong shape refused",
                  [](Gen& g) {
                    return Args{g.randn({4, 3}), int64_t{0}, from_vector<int64_t>({1, 2}, {2}),
                                g.randn({2, 4})};
                  },
                  -1, -1, true});
  rows.push_back({copy, "dtype mismatch refused",
                  [](Gen& g) {
                    return Args{g.randn({4, 3}), int64_t{0}, from_vector<int64_t>({1}, {1}),
                                g.randn({1, 3}, F64)};
                  },
                  -1, -1, true});
  rows.push_back({"aten::index_copy_", "positions of a cache in place", [](Gen& g) {
                    return Args{g.randn({1, 2, 6, 3}), int64_t{2}, permutation(g, {6}, 0, 2),
                                g.randn({1, 2, 2, 3})};
                  }});
  rows.push_back({put, "accumulate repeats", [](Gen& g) {
                    return Args{g.randn({3, 2}), TL{g.ints({6}, 0, 2)}, g.randn({6, 2}), true};
                  }});
  rows.push_back({put, "accumulate int, last dim", [](Gen& g) {
                    return Args{g.ints({2, 4}, 0, 5), TL{Tensor(), g.ints({5}, 0, 3)},
                                g.ints({2, 5}, 0, 5), true};
                  }});
  rows.push_back({put, "non-adjacent indices", [](Gen& g) {
                    return Args{g.randn({2, 3, 4}),
                                TL{permutation(g, {2}, 0, 2), Tensor(), permutation(g, {4}, 0, 2)},
                                g.randn({2, 3})};
                  }});
  rows.push_back({put, "bool mask", [](Gen& g) {
                    return Args{g.randn({4, 3}), TL{g.bools({4})}, g.randn({3})};
                  }});
  rows.push_back({put, "non-contiguous self, bool values", [](Gen& g) {
                    return Args{g.bools({3, 4}).t(), TL{permutation(g, {4}, 0, 2)}, g.bools({3})};
                  }});
  rows.push_back(
      {put, "bf16", [](Gen& g) {
         return Args{g.randn({6}, BF16), TL{permutation(g, {6}, 0, 4)}, g.randn({4}, BF16)};
       }});
  error_row(rows, put, "index out of range refused", [](Gen& g) {
    return Args{g.randn({3}), TL{g.ints({1}, 3, 3)}, g.randn({1})};
  });
  error_row(rows, put, "values of another dtype refused", [](Gen& g) {
    return Args{g.randn({3}), TL{g.ints({1}, 0, 0)}, g.randn({1}, F64)};
  });
  error_row(rows, put, "values that do not broadcast refused", [](Gen& g) {
    return Args{g.randn({3, 4}), TL{g.ints({2}, 0, 1)}, g.randn({3})};
  });
  error_row(rows, put, "values not matching the mask refused", [](Gen& g) {
    return Args{g.randn({3, 4}), TL{g.bools({3})}, g.randn({5, 4})};
  });

  const std::string nz = "aten::nonzero";
  rows.push_back({nz, "f32 2-D", [](Gen& g) { return Args{g.randn({4, 5}).relu()}; }});
  rows.push_back({nz, "bool 3-D", [](Gen& g) { return Args{g.bools({2, 3, 4})}; }});
  rows.push_back({nz, "int64 non-contiguous", [](Gen& g) {
                    return Args{g.ints({4, 3}, -1, 1).t()};
                  }});
  rows.push_back({nz, "f64 1-D with nan and -0", [](Gen& g) { return Args{g.edge(F64)}; }});
  rows.push_back({nz, "bf16", [](Gen& g) { return Args{g.randn({6}, BF16).relu()}; }});
  rows.push_back({nz, "0-dim", [](Gen& g) { return Args{g.randn({})}; }});
  rows.push_back({nz, "0-dim zero", [](Gen& g) { return Args{g.randn({}).mul(0.0)}; }});
  rows.push_back({nz, "empty", [](Gen& g) { return Args{g.randn({0, 3})}; }});
  rows.push_back({nz, "all zero", [](Gen& g) { return Args{g.randn({3, 2}).mul(0.0)}; }});
  rows.push_back({nz, "large", [](Gen& g) { return Args{g.randn({300, 400}).relu()}; }});

  const std::string ms = "aten::masked_select";
  rows.push_back({ms, "mask of self's shape", [](Gen& g) {
                    return Args{g.randn({3, 4}), g.bools({3, 4})};
                  }});
  rows.push_back({ms, "mask broadcast", [](Gen& g) { return Args{g.randn({3, 4}), g.bools({4})}; }});
  rows.push_back({ms, "self broadcast to the mask", [](Gen& g) {
                    return Args{g.ints({4}, -3, 3), g.bools({2, 4})};
                  }});
  rows.push_back({ms, "nothing selected", [](Gen& g) {
                    return Args{g.randn({5}), zeros({5}, DType::Bool)};
                  }});
  error_row(rows, ms, "non-bool mask refused", [](Gen& g) {
    return Args{g.randn({3}), g.ints({3}, 0, 1)};
  });

  // item: a one-element tensor's value (a 0-dim tensor of its dtype here; a Scalar in PyTorch).
  const std::string item = "aten::item";
  rows.push_back({item, "f32 one element", [](Gen& g) { return Args{g.randn({1, 1})}; }});
  rows.push_back({item, "i64 0-dim", [](Gen& g) { return Args{g.ints({}, -9, 9)}; }});
  rows.push_back({item, "bool", [](Gen& g) { return Args{g.bools({1})}; }});
  error_row(rows, item, "two elements refused", [](Gen& g) { return Args{g.randn({2})}; });
  const std::string dense = "aten::_local_scalar_dense";
  rows.push_back({dense, "f64 one element", [](Gen& g) {
                    return Args{g.randn({1}, DType::Float64)};
                  }});
  rows.push_back({dense, "i32 0-dim", [](Gen& g) {
                    return Args{g.ints({}, -9, 9, DType::Int32)};
                  }});
  error_row(rows, dense, "empty refused", [](Gen& g) { return Args{g.randn({0})}; });

  // The size queries: an int64 0-dim tensor here, an int in PyTorch.
  rows.push_back({"aten::sym_size.int", "dim 1", [](Gen& g) {
                    return Args{g.randn({3, 5}), int64_t{1}};
                  }});
  rows.push_back({"aten::sym_size.int", "dim -3 of a 0-size tensor", [](Gen& g) {
                    return Args{g.ints({0, 2, 4}, 0, 3), int64_t{-3}};
                  }});
  error_row(rows, "aten::sym_size.int", "dim out of range refused", [](Gen& g) {
    return Args{g.randn({3}), int64_t{1}};
  });
  rows.push_back({"aten::sym_stride.int", "dim 0 of [4, 3, 2]", [](Gen& g) {
                    return Args{g.randn({4, 3, 2}), int64_t{0}};
                  }});
  rows.push_back({"aten::sym_numel", "[2, 3, 4]", [](Gen& g) {
                    return Args{g.randn({2, 3, 4})};
                  }});
  rows.push_back({"aten::sym_numel", "empty", [](Gen& g) { return Args{g.randn({3, 0})}; }});
  rows.push_back({"aten::sym_storage_offset", "contiguous", [](Gen& g) {
                    return Args{g.bools({5})};
                  }});

  // Python's operators on floats (item_float() arithmetic under capture): a float64 0-dim result.
  for (const char* op : {"_operator::add", "_operator::sub", "_operator::mul",
                         "_operator::truediv"}) {
    rows.push_back({op, "floats", [](Gen&) { return Args{2.5, -0.375}; }});
    rows.push_back({op, "float and int", [](Gen&) { return Args{1e-3, 7}; }});
  }
  rows.push_back({"_operator::neg", "float", [](Gen&) { return Args{0.1}; }});

  const std::string assert_scalar = "aten::_assert_scalar";
  rows.push_back({assert_scalar, "holds", [](Gen&) { return Args{true, "never raised"}; }});
  rows.push_back({assert_scalar, "holds (nonzero int)", [](Gen&) { return Args{3, "never"}; }});
  error_row(rows, assert_scalar, "fails", [](Gen&) { return Args{false, "u0 >= 0 failed"}; });
}

void scatter_rows(Rows& rows) {
  for (const char* op : {"aten::scatter.src", "aten::scatter_add"}) {
    const std::string s = op;
    rows.push_back(
        {s, "dim 0", [](Gen& g) {
           return Args{g.randn({4, 3}), 0, permutation(g, {4, 3}, 0, 2), g.randn({3, 3})};
         }});
    rows.push_back({s, "dim -1 f64", [](Gen& g) {
                      return Args{g.randn({3, 5}, F64), -1, permutation(g, {3, 5}, 1, 3),
                                  g.randn({3, 4}, F64)};
                    }});
    rows.push_back({s, "int64, smaller index", [](Gen& g) {
                      return Args{g.ints({4, 4}, -9, 9), 1, permutation(g, {2, 4}, 1, 2),
                                  g.ints({3, 3}, -9, 9)};
                    }});
    rows.push_back(
        {s, "non-contiguous self and src", [](Gen& g) {
           return Args{g.transposed({3, 4}), 0, permutation(g, {3, 4}, 0, 3), g.transposed({3, 4})};
         }});
    rows.push_back({s, "0-dim", [](Gen& g) {
                      return Args{g.randn({}), 0, g.ints({}, 0, 0), g.randn({})};
                    }});
    rows.push_back({s, "empty index", [](Gen& g) {
                      return Args{g.randn({2, 3}), 1, g.ints({2, 0}, 0, 0), g.randn({2, 2})};
                    }});
    error_row(rows, s, "index out of range refused", [](Gen& g) {
      return Args{g.randn({3}), 0, g.ints({1}, 3, 3), g.randn({1})};
    });
    error_row(rows, s, "negative index refused", [](Gen& g) {
      return Args{g.randn({3}), 0, g.ints({1}, -1, -1), g.randn({1})};
    });
    error_row(rows, s, "src of another dtype refused", [](Gen& g) {
      return Args{g.randn({3}), 0, g.ints({1}, 0, 0), g.randn({1}, F64)};
    });
    error_row(rows, s, "index larger than src refused", [](Gen& g) {
      return Args{g.randn({5}), 0, g.ints({2}, 0, 1), g.randn({1})};
    });
    rows.push_back({s, "int32 index", [](Gen& g) {
                      return Args{g.randn({5}), 0, g.ints({1}, 0, 4, I32), g.randn({1})};
                    }});
    error_row(rows, s, "int16 index refused", [](Gen& g) {
      return Args{g.randn({5}), 0, g.ints({1}, 0, 1, DType::Int16), g.randn({1})};
    });
  }
  rows.push_back({"aten::scatter_add", "repeated indices add up", [](Gen& g) {
                    return Args{g.randn({3, 2}), 0, g.ints({6, 2}, 0, 2), g.randn({6, 2})};
                  }});
  rows.push_back(
      {"aten::scatter_add", "large",
       [](Gen& g) {
         return Args{g.randn({200, 300}), 1, g.ints({200, 400}, 0, 299), g.randn({200, 400})};
       },
       1e-5, 1e-5});  // repeated indices: additions in another order
  rows.push_back({"aten::scatter.src", "bool", [](Gen& g) {
                    return Args{g.bools({5}), 0, permutation(g, {5}, 0, 3), g.bools({3})};
                  }});
  rows.push_back(
      {"aten::scatter.src", "bf16", [](Gen& g) {
         return Args{g.randn({5}, BF16), 0, permutation(g, {5}, 0, 3), g.randn({3}, BF16)};
       }});
  // scatter_reduce.two(self, dim, index, src, reduce, include_self): repeated indices combine.
  const std::string sr = "aten::scatter_reduce.two";
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    for (const bool include_self : {true, false}) {
      const std::string how = std::string(reduce) + (include_self ? "" : ", without self");
      rows.push_back({sr, how, [reduce, include_self](Gen& g) {
                        return Args{g.randn({3, 4}), 0, g.ints({5, 4}, 0, 2), g.randn({5, 4}),
                                    std::string(reduce), include_self};
                      }});
      rows.push_back({sr, how + ", int64 dim 1", [reduce, include_self](Gen& g) {
                        return Args{g.ints({2, 5}, -9, 9), 1, g.ints({2, 7}, 0, 4),
                                    g.ints({2, 7}, -9, 9), std::string(reduce), include_self};
                      }});
    }
  }
  rows.push_back({sr, "amax keeps NaN", [](Gen& g) {
                    return Args{g.randn({4}), 0, from_vector<int64_t>({0, 0, 1}, {3}),
                                from_vector<float>({std::nanf(""), 1.0f, 2.0f}, {3}),
                                std::string("amax")};
                  }});
  // ATen sums half types in float: 1 + 4 x 0.0004 is 1.0019 in float16, not 1.
  for (const std::string op : {"aten::scatter_add", "aten::scatter_reduce.two"}) {
    rows.push_back({op, "f16 accumulates in float", [op](Gen&) {
                      Args args{full({1}, 0.0).to(DType::Float16), 0, full({5}, int64_t{0}),
                                from_vector<float>({1.0f, 4e-4f, 4e-4f, 4e-4f, 4e-4f}, {5})
                                    .to(DType::Float16)};
                      if (op == "aten::scatter_reduce.two") args.emplace_back(std::string("sum"));
                      return args;
                    }});
  }
  rows.push_back({sr, "mean f16", [](Gen& g) {
                    return Args{g.randn({4}, DType::Float16), 0, g.ints({6}, 0, 3),
                                g.randn({6}, DType::Float16), std::string("mean")};
                  }});
  rows.push_back({sr, "\"min\" is amin", [](Gen& g) {
                    return Args{g.randn({3}), 0, g.ints({4}, 0, 2), g.randn({4}),
                                std::string("min"), false};
                  }});
  error_row(rows, sr, "unknown reduction", [](Gen& g) {
    return Args{g.randn({3}), 0, g.ints({2}, 0, 2), g.randn({2}), std::string("add")};
  });
  const std::string sv = "aten::scatter.value";
  rows.push_back({sv, "f32", [](Gen& g) {
                    return Args{g.randn({4, 3}), 1, permutation(g, {4, 3}, 1, 2), 2.5};
                  }});
  rows.push_back({sv, "float into int64 truncates", [](Gen& g) {
                    return Args{g.ints({5}, 0, 3), 0, permutation(g, {5}, 0, 2), 2.7};
                  }});
  rows.push_back({sv, "int into bool", [](Gen& g) {
                    return Args{g.bools({5}), 0, permutation(g, {5}, 0, 2), int64_t{2}};
                  }});
  rows.push_back({sv, "f16 non-contiguous", [](Gen& g) {
                    return Args{g.transposed({3, 4}, F16), 0, permutation(g, {3, 4}, 0, 2), -1.0};
                  }});
  error_row(rows, sv, "index out of range refused", [](Gen& g) {
    return Args{g.randn({3}), 0, g.ints({1}, 4, 4), 1.0};
  });
  error_row(rows, sv, "rank mismatch refused", [](Gen& g) {
    return Args{g.randn({2, 2}), 0, g.ints({1}, 0, 0), 1.0};
  });

  const std::string ss = "aten::slice_scatter";
  rows.push_back({ss, "dim 0 range", [](Gen& g) {
                    return Args{g.randn({5, 3}), g.randn({2, 3}), 0, 1, 3};
                  }});
  rows.push_back({ss, "dim 1 with step", [](Gen& g) {
                    return Args{g.randn({3, 6}), g.randn({3, 3}), 1, 0, Value(), 2};
                  }});
  rows.push_back({ss, "negative dim and bounds", [](Gen& g) {
                    return Args{g.randn({3, 6}, F64), g.randn({3, 2}, F64), -1, -3, -1};
                  }});
  rows.push_back({ss, "src converts to self's dtype", [](Gen& g) {
                    return Args{g.randn({4}), g.randn({2}, F64), 0, 0, 2};
                  }});
  rows.push_back({ss, "non-contiguous self and src, int64", [](Gen& g) {
                    return Args{g.ints({4, 3}, 0, 9).t(), g.ints({2, 3}, 0, 9).t(), 1, 2};
                  }});
  rows.push_back({ss, "bool, empty slice", [](Gen& g) {
                    return Args{g.bools({4}), g.bools({0}), 0, 2, 2};
                  }});
  error_row(rows, ss, "src of the wrong shape refused", [](Gen& g) {
    return Args{g.randn({4, 3}), g.randn({3}), 0, 0, 2};
  });

  const std::string sel = "aten::select_scatter";
  rows.push_back({sel, "row", [](Gen& g) { return Args{g.randn({4, 3}), g.randn({3}), 0, 1}; }});
  rows.push_back({sel, "negative index and dim", [](Gen& g) {
                    return Args{g.randn({4, 3}, BF16), g.randn({4}, BF16), -1, -1};
                  }});
  rows.push_back({sel, "int src into f32", [](Gen& g) {
                    return Args{g.transposed({4, 3}), g.ints({3}, 0, 9), 0, 3};
                  }});
  rows.push_back({sel, "1-D into 0-dim src", [](Gen& g) {
                    return Args{g.ints({5}, 0, 9), g.ints({}, 0, 9), 0, 2};
                  }});
  error_row(rows, sel, "index out of range refused", [](Gen& g) {
    return Args{g.randn({4, 3}), g.randn({3}), 0, 4};
  });
  error_row(rows, sel, "src of the wrong shape refused", [](Gen& g) {
    return Args{g.randn({4, 3}), g.randn({4}), 0, 0};
  });
}

void layout_rows(Rows& rows) {
  const std::string ri = "aten::repeat_interleave.self_int";
  rows.push_back({ri, "dim 1", [](Gen& g) {
                    return Args{g.randn({2, 3}), int64_t{2}, int64_t{1}};
                  }});
  rows.push_back({ri, "no dim flattens", [](Gen& g) { return Args{g.randn({2, 3}), int64_t{3}}; }});
  rows.push_back({ri, "negative dim, int64", [](Gen& g) {
                    return Args{g.ints({2, 2, 3}, 0, 9), int64_t{2}, int64_t{-2}};
                  }});
  rows.push_back({ri, "zero repeats", [](Gen& g) {
                    return Args{g.randn({2, 3}), int64_t{0}, int64_t{0}};
                  }});
  rows.push_back({ri, "output_size given", [](Gen& g) {
                    return Args{g.randn({2, 3}), int64_t{2}, int64_t{0}, int64_t{4}};
                  }});
  rows.push_back({ri, "negative repeats refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 3}), int64_t{-1}, int64_t{0}};
                  },
                  -1, -1, true});
  const std::string rep = "aten::repeat";
  rows.push_back({rep, "2-D", [](Gen& g) { return Args{g.randn({2, 3}), IL{2, 3}}; }});
  rows.push_back({rep, "new leading dims", [](Gen& g) {
                    return Args{g.randn({3}, F64), IL{2, 1, 2}};
                  }});
  rows.push_back({rep, "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({2, 3}), IL{1, 2}};
                  }});
  rows.push_back({rep, "int64 and zero repeats", [](Gen& g) {
                    return Args{g.ints({2, 2}, 0, 9), IL{0, 2}};
                  }});
  rows.push_back({rep, "bool", [](Gen& g) { return Args{g.bools({3}), IL{3}}; }});
  rows.push_back({rep, "0-dim", [](Gen& g) { return Args{g.randn({}), IL{}}; }});
  rows.push_back({rep, "0-dim to 2-D f16", [](Gen& g) {
                    return Args{g.randn({}, F16), IL{2, 3}};
                  }});
  rows.push_back({rep, "large", [](Gen& g) { return Args{g.randn({64, 100}), IL{8, 4}}; }});
  error_row(rows, rep, "fewer repeats than dims refused", [](Gen& g) {
    return Args{g.randn({2, 3}), IL{2}};
  });
  error_row(rows, rep, "negative repeat refused", [](Gen& g) {
    return Args{g.randn({2, 3}), IL{2, -1}};
  });

  const std::string tile = "aten::tile";
  rows.push_back({tile, "fewer dims than self", [](Gen& g) {
                    return Args{g.randn({2, 3}), IL{2}};
                  }});
  rows.push_back({tile, "more dims", [](Gen& g) { return Args{g.ints({3}, 0, 9), IL{2, 2}}; }});
  rows.push_back({tile, "non-contiguous bf16", [](Gen& g) {
                    return Args{g.transposed({2, 3}, BF16), IL{2, 1}};
                  }});
  error_row(rows, tile, "negative refused", [](Gen& g) { return Args{g.randn({2, 3}), IL{-2}}; });

  const std::string flip = "aten::flip";
  rows.push_back({flip, "last dim", [](Gen& g) { return Args{g.randn({3, 4}), IL{-1}}; }});
  rows.push_back({flip, "both dims", [](Gen& g) { return Args{g.randn({3, 4}, F64), IL{0, 1}}; }});
  rows.push_back({flip, "middle dim int64", [](Gen& g) {
                    return Args{g.ints({2, 3, 4}, -9, 9), IL{1}};
                  }});
  rows.push_back({flip, "non-contiguous bool", [](Gen& g) {
                    return Args{g.bools({3, 5}).t(), IL{0}};
                  }});
  rows.push_back({flip, "no dims", [](Gen& g) { return Args{g.randn({3}), IL{}}; }});
  rows.push_back({flip, "0-dim", [](Gen& g) { return Args{g.randn({}), IL{0}}; }});
  rows.push_back({flip, "empty", [](Gen& g) { return Args{g.randn({0, 3}), IL{0}}; }});
  rows.push_back({flip, "f16 large", [](Gen& g) {
                    return Args{g.randn({300, 300}, F16), IL{0, 1}};
                  }});
  error_row(rows, flip, "repeated dim refused", [](Gen& g) {
    return Args{g.randn({2, 3}), IL{0, -2}};
  });
  error_row(rows, flip, "dim out of range refused", [](Gen& g) {
    return Args{g.randn({2, 3}), IL{2}};
  });

  const std::string diff = "aten::diff";
  rows.push_back({diff, "last dim", [](Gen& g) { return Args{g.randn({3, 5})}; }});
  rows.push_back({diff, "n=2 along dim 0", [](Gen& g) {
                    return Args{g.randn({5, 3}), int64_t{2}, int64_t{0}};
                  }});
  rows.push_back({diff, "prepend and append", [](Gen& g) {
                    return Args{g.randn({2, 4}), int64_t{1}, int64_t{-1}, g.randn({2, 1}),
                                g.randn({2, 2})};
                  }});
  rows.push_back({diff, "int64", [](Gen& g) { return Args{g.ints({6}, -9, 9)}; }});
  rows.push_back({diff, "bool is xor", [](Gen& g) { return Args{g.bools({7})}; }});
  rows.push_back({diff, "n past the length gives an empty dim", [](Gen& g) {
                    return Args{g.randn({2, 3}), int64_t{5}};
                  }});
  rows.push_back({diff, "n=0", [](Gen& g) { return Args{g.randn({4}), int64_t{0}}; }});
  error_row(rows, diff, "0-dim refused", [](Gen& g) { return Args{g.randn({})}; });
  error_row(rows, diff, "negative n refused", [](Gen& g) {
    return Args{g.randn({4}), int64_t{-1}};
  });
  const std::string roll = "aten::roll";
  rows.push_back({roll, "one dim", [](Gen& g) { return Args{g.randn({5, 3}), IL{2}, IL{0}}; }});
  rows.push_back({roll, "two dims, negative shift", [](Gen& g) {
                    return Args{g.randn({4, 5}, F64), IL{-1, 7}, IL{0, -1}};
                  }});
  rows.push_back({roll, "flattened", [](Gen& g) { return Args{g.ints({2, 3}, 0, 9), IL{1}}; }});
  rows.push_back({roll, "non-contiguous bool", [](Gen& g) {
                    return Args{g.bools({3, 4}).t(), IL{1}, IL{1}};
                  }});
  rows.push_back({roll, "zero shift", [](Gen& g) { return Args{g.randn({3}), IL{3}, IL{0}}; }});
  rows.push_back({roll, "0-dim", [](Gen& g) { return Args{g.randn({}), IL{1}}; }});
  rows.push_back({roll, "empty", [](Gen& g) { return Args{g.randn({0, 3}), IL{1}, IL{0}}; }});
  error_row(rows, roll, "shifts and dims of different lengths refused", [](Gen& g) {
    return Args{g.randn({2, 3}), IL{1, 2}, IL{0}};
  });
  error_row(rows, roll, "two shifts without dims refused", [](Gen& g) {
    return Args{g.randn({2, 3}), IL{1, 2}};
  });

  for (const char* op : {"aten::triu", "aten::tril"}) {
    const std::string t = op;
    rows.push_back({t, "square", [](Gen& g) { return Args{g.randn({4, 4})}; }});
    rows.push_back({t, "wide, positive diagonal", [](Gen& g) {
                      return Args{g.randn({3, 5}, F64), 1};
                    }});
    rows.push_back({t, "tall, negative diagonal", [](Gen& g) {
                      return Args{g.randn({5, 3}), -2};
                    }});
    rows.push_back({t, "batched non-contiguous", [](Gen& g) {
                      return Args{g.randn({2, 3, 4}).transpose(1, 2)};
                    }});
    rows.push_back({t, "int64", [](Gen& g) { return Args{g.ints({3, 3}, -9, 9)}; }});
    rows.push_back({t, "bool", [](Gen& g) { return Args{g.bools({3, 3})}; }});
    rows.push_back({t, "bf16 far diagonal", [](Gen& g) { return Args{g.randn({3, 3}, BF16), 5}; }});
    rows.push_back({t, "empty", [](Gen& g) { return Args{g.randn({0, 3})}; }});
    error_row(rows, t, "1-D refused", [](Gen& g) { return Args{g.randn({3})}; });
  }

  const std::string cp = "aten::constant_pad_nd";
  rows.push_back({cp, "last dim", [](Gen& g) { return Args{g.randn({2, 3}), IL{1, 2}}; }});
  rows.push_back({cp, "two dims with value", [](Gen& g) {
                    return Args{g.randn({2, 3}, F64), IL{1, 0, 2, 1}, 1.5};
                  }});
  rows.push_back({cp, "negative crops", [](Gen& g) {
                    return Args{g.randn({4, 5}), IL{-1, 2, 1, -2}};
                  }});
  rows.push_back({cp, "float value into int64", [](Gen& g) {
                    return Args{g.ints({3}, 0, 9), IL{1, 1}, 1.7};
                  }});
  rows.push_back({cp, "bool", [](Gen& g) { return Args{g.bools({3}), IL{1, 1}, int64_t{1}}; }});
  rows.push_back({cp, "non-contiguous f16", [](Gen& g) {
                    return Args{g.transposed({3, 4}, F16), IL{2, 2}, -1.0};
                  }});
  rows.push_back({cp, "0-dim, no pad", [](Gen& g) { return Args{g.randn({}), IL{}}; }});
  rows.push_back({cp, "cropped to nothing", [](Gen& g) { return Args{g.randn({3}), IL{-3, 0}}; }});
  rows.push_back({cp, "empty input grows", [](Gen& g) {
                    return Args{g.randn({0, 2}), IL{1, 1, 1, 1}};
                  }});
  rows.push_back({cp, "large", [](Gen& g) { return Args{g.randn({8, 64, 64}), IL{1, 1, 1, 1}}; }});
  error_row(rows, cp, "odd length refused", [](Gen& g) { return Args{g.randn({3}), IL{1}}; });
  error_row(rows, cp, "too long refused", [](Gen& g) {
    return Args{g.randn({3}), IL{1, 1, 1, 1}};
  });
  error_row(rows, cp, "negative size refused", [](Gen& g) {
    return Args{g.randn({3}), IL{-2, -2}};
  });

  const std::string pad = "aten::pad";
  rows.push_back({pad, "constant with value", [](Gen& g) {
                    return Args{g.randn({1, 3}), IL{1, 1}, "constant", 2.0};
                  }});
  rows.push_back({pad, "constant default value int", [](Gen& g) {
                    return Args{g.ints({3}, 0, 9), IL{2, 1}};
                  }});
  rows.push_back({pad, "float value into int64", [](Gen& g) {
                    return Args{g.ints({2, 3}, 0, 9), IL{1, 1, 1, 0}, "constant", 2.5};
                  }});
  error_row(rows, pad, "odd length refused", [](Gen& g) { return Args{g.randn({3}), IL{1}}; });
  rows.push_back({pad, "reflect 2 dims", [](Gen& g) {
                    return Args{g.randn({1, 2, 4, 5}), IL{1, 2, 3, 0}, "reflect"};
                  }});
  rows.push_back({pad, "replicate 1 dim", [](Gen& g) {
                    return Args{g.randn({2, 3, 4}), IL{3, 1}, "replicate"};
                  }});
  rows.push_back({pad, "replicate 3 dims", [](Gen& g) {
                    return Args{g.randn({1, 2, 3, 3, 3}), IL{1, 1, 0, 2, 2, 0}, "replicate"};
                  }});
  error_row(rows, pad, "reflect by the dim's size refused", [](Gen& g) {
    return Args{g.randn({1, 2, 3}), IL{3, 0}, "reflect"};
  });

  // reflection_pad{1,2,3}d and replication_pad{1,2,3}d: [C, *] or [N, C, *].
  for (const std::string mode : {"reflection", "replication"}) {
    const std::string p1 = "aten::" + mode + "_pad1d", p2 = "aten::" + mode + "_pad2d",
                      p3 = "aten::" + mode + "_pad3d";
    rows.push_back({p1, "[N,C,W]", [](Gen& g) { return Args{g.randn({2, 3, 5}), IL{2, 3}}; }});
    rows.push_back({p1, "[C,W] int64", [](Gen& g) {
                      return Args{g.ints({2, 4}, -9, 9), IL{3, 1}};
                    }});
    rows.push_back({p1, "negative crops", [](Gen& g) {
                      return Args{g.randn({1, 2, 6}), IL{-2, 1}};
                    }});
    rows.push_back({p2, "[N,C,H,W]", [](Gen& g) {
                      return Args{g.randn({2, 3, 5, 6}), IL{1, 2, 3, 4}};
                    }});
    rows.push_back({p2, "[C,H,W] f64 non-contiguous", [](Gen& g) {
                      return Args{g.randn({3, 6, 5}, F64).transpose(1, 2), IL{2, 0, 0, 2}};
                    }});
    rows.push_back({p2, "bf16", [](Gen& g) {
                      return Args{g.randn({1, 2, 4, 4}, BF16), IL{1, 1, 1, 1}};
                    }});
    rows.push_back({p2, "batch of 0", [](Gen& g) {
                      return Args{g.randn({0, 2, 4, 4}), IL{1, 1, 1, 1}};
                    }});
    rows.push_back({p2, "large", [](Gen& g) {
                      return Args{g.randn({2, 16, 64, 64}), IL{3, 3, 3, 3}};
                    }});
    rows.push_back({p3, "[N,C,D,H,W]", [](Gen& g) {
                      return Args{g.randn({1, 2, 3, 4, 5}), IL{1, 2, 2, 1, 0, 1}};
                    }});
    rows.push_back({p3, "[C,D,H,W]", [](Gen& g) {
                      return Args{g.randn({2, 3, 3, 3}), IL{1, 1, 1, 1, 1, 1}};
                    }});
    error_row(rows, p2, "1-d input refused", [](Gen& g) {
      return Args{g.randn({5}), IL{1, 1, 1, 1}};
    });
    error_row(rows, p2, "empty channel refused", [](Gen& g) {
      return Args{g.randn({1, 0, 4, 4}), IL{1, 1, 1, 1}};
    });
  }
  error_row(rows, "aten::reflection_pad2d", "padding as large as the dim refused", [](Gen& g) {
    return Args{g.randn({1, 2, 4, 4}), IL{4, 0, 0, 0}};
  });
  rows.push_back({"aten::replication_pad2d", "padding past the dim's size", [](Gen& g) {
                    return Args{g.randn({1, 2, 3, 3}), IL{5, 0, 4, 0}};
                  }});
}

void sort_rows(Rows& rows) {
  // Ties order unspecified without stable=True: values are random floats or
  // distinct ints.
  const std::string sort = "aten::sort";
  rows.push_back({sort, "last dim", [](Gen& g) { return Args{g.randn({4, 7})}; }});
  rows.push_back({sort, "dim 0 descending", [](Gen& g) {
                    return Args{g.randn({6, 3}, F64), 0, true};
                  }});
  rows.push_back({sort, "non-contiguous", [](Gen& g) { return Args{g.transposed({5, 4}), 1}; }});
  rows.push_back({sort, "distinct int64", [](Gen& g) {
                    return Args{permutation(g, {3, 6}, 1, 6) - int64_t{3}};
                  }});
  rows.push_back({sort, "nan last, first when descending",
                  [](Gen& g) { return Args{g.edge().slice(0, 2, 8)}; }});
  rows.push_back({sort, "nan descending", [](Gen& g) {
                    return Args{g.edge().slice(0, 2, 8), -1, true};
                  }});
  rows.push_back({sort, "f16", [](Gen& g) { return Args{g.randn({9}, F16)}; }});
  rows.push_back({sort, "0-dim", [](Gen& g) { return Args{g.randn({})}; }});
  rows.push_back({sort, "empty", [](Gen& g) { return Args{g.randn({3, 0})}; }});
  rows.push_back({sort, "large rows", [](Gen& g) {
                    // float32 normals repeat within 2000 draws; the ramp keeps the values
                    // distinct.
                    return Args{g.randn({64, 2000}, F64) + arange(2000, F64) * 1e-4};
                  }});
  error_row(rows, sort, "dim out of range refused", [](Gen& g) { return Args{g.randn({3}), 1}; });

  const std::string stable = "aten::sort.stable";
  rows.push_back({stable, "ties keep order", [](Gen& g) {
                    return Args{g.ints({4, 9}, 0, 3), true};
                  }});
  rows.push_back({stable, "ties keep order descending dim 0", [](Gen& g) {
                    return Args{g.ints({9, 2}, 0, 2, I32), true, 0, true};
                  }});
  rows.push_back({stable, "bool", [](Gen& g) { return Args{g.bools({10}), true, -1, true}; }});
  rows.push_back({stable, "bf16 ties", [](Gen& g) {
                    return Args{g.ints({12}, -2, 2).to(BF16), true};
                  }});

  const std::string topk = "aten::topk";
  rows.push_back({topk, "largest 3", [](Gen& g) { return Args{g.randn({4, 10}), int64_t{3}}; }});
  rows.push_back({topk, "smallest 2 along dim 0", [](Gen& g) {
                    return Args{g.randn({6, 3}, F64), int64_t{2}, 0, false};
                  }});
  rows.push_back({topk, "all, non-contiguous", [](Gen& g) {
                    return Args{g.transposed({5, 4}), int64_t{4}};
                  }});
  rows.push_back({topk, "distinct int64", [](Gen& g) {
                    return Args{permutation(g, {2, 8}, 1, 8), int64_t{3}};
                  }});
  rows.push_back({topk, "k 0", [](Gen& g) { return Args{g.randn({3, 4}), int64_t{0}}; }});
  rows.push_back({topk, "unsorted k 1", [](Gen& g) {
                    return Args{g.randn({3, 4}), int64_t{1}, -1, true, false};
                  }});
  rows.push_back({topk, "nan is largest", [](Gen& g) {
                    return Args{g.edge().slice(0, 2, 8), int64_t{2}};
                  }});
  rows.push_back({topk, "nan smallest", [](Gen& g) {
                    return Args{g.edge().slice(0, 2, 8), int64_t{2}, -1, false};
                  }});
  rows.push_back({topk, "0-dim", [](Gen& g) { return Args{g.randn({}), int64_t{1}}; }});
  rows.push_back({topk, "f16", [](Gen& g) { return Args{g.randn({8}, F16), int64_t{3}}; }});
  rows.push_back({topk, "large", [](Gen& g) { return Args{g.randn({32, 5000}), int64_t{10}}; }});
  error_row(rows, topk, "k too large refused", [](Gen& g) {
    return Args{g.randn({3}), int64_t{4}};
  });
  error_row(rows, topk, "negative k refused", [](Gen& g) {
    return Args{g.randn({3}), int64_t{-1}};
  });
  error_row(rows, topk, "bool refused", [](Gen& g) { return Args{g.bools({3}), int64_t{1}}; });
}

}  // namespace

Rows shape_samples() {
  Rows rows;
  cat_rows(rows);
  split_rows(rows);
  index_rows(rows);
  scatter_rows(rows);
  layout_rows(rows);
  sort_rows(rows);
  return rows;
}

}  // namespace xport::testing
