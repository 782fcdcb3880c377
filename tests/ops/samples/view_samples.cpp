#include "ops/op_table.h"

namespace xport::testing {

Rows view_samples() {
  Rows rows;
  rows.push_back({"aten::view", "infer -1", [](Gen& g) {
                    return Args{g.randn({2, 3, 4}), std::vector<int64_t>{6, -1}};
                  }});
  rows.push_back({"aten::view", "to 0-dim", [](Gen& g) {
                    return Args{g.randn({1, 1}), std::vector<int64_t>{}};
                  }});
  rows.push_back({"aten::view", "empty", [](Gen& g) {
                    return Args{g.randn({0, 4}), std::vector<int64_t>{2, 0, 2}};
                  }});
  rows.push_back({"aten::view", "split a dim of a transposed tensor", [](Gen& g) {
                    return Args{g.transposed({4, 6}), std::vector<int64_t>{2, 2, 6}};
                  }});
  rows.push_back({"aten::view", "incompatible strides refused",
                  [](Gen& g) {
                    return Args{g.transposed({4, 6}), std::vector<int64_t>{24}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::view", "wrong numel refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 3}), std::vector<int64_t>{4}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::view", "two -1 refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 3}), std::vector<int64_t>{-1, -1}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::reshape", "copies a transposed tensor", [](Gen& g) {
                    return Args{g.transposed({4, 6}), std::vector<int64_t>{-1}};
                  }});
  rows.push_back({"aten::reshape", "views a contiguous tensor", [](Gen& g) {
                    return Args{g.randn({4, 6}, DType::Float64), std::vector<int64_t>{3, 8}};
                  }});
  rows.push_back({"aten::alias", "f32", [](Gen& g) { return Args{g.randn({3})}; }});
  rows.push_back({"aten::detach", "f32", [](Gen& g) { return Args{g.randn({2, 3})}; }});
  rows.push_back({"aten::detach_", "f32", [](Gen& g) { return Args{g.randn({2, 3})}; }});
  rows.push_back({"aten::detach_", "int64", [](Gen& g) { return Args{g.ints({4}, 0, 9)}; }});
  rows.push_back({"aten::permute", "3-D", [](Gen& g) {
                    return Args{g.randn({2, 3, 4}), std::vector<int64_t>{2, 0, 1}};
                  }});
  rows.push_back({"aten::permute", "negative dims", [](Gen& g) {
                    return Args{g.ints({2, 3}, 0, 9), std::vector<int64_t>{-1, -2}};
                  }});
  rows.push_back({"aten::permute", "repeated dim refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 3}), std::vector<int64_t>{0, 0}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::transpose.int", "negative dims", [](Gen& g) {
                    return Args{g.randn({2, 3, 4}), int64_t{-1}, int64_t{0}};
                  }});
  rows.push_back({"aten::transpose.int", "out of range refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 3}), int64_t{0}, int64_t{2}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::numpy_T", "3-D", [](Gen& g) { return Args{g.randn({2, 3, 4})}; }});
  rows.push_back({"aten::numpy_T", "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({3, 5})};
                  }});
  rows.push_back({"aten::numpy_T", "0-dim", [](Gen& g) { return Args{g.randn({})}; }});
  rows.push_back({"aten::t", "2-D", [](Gen& g) { return Args{g.randn({2, 5})}; }});
  rows.push_back({"aten::t", "1-D", [](Gen& g) { return Args{g.randn({5})}; }});
  rows.push_back({"aten::t", "3-D refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 2, 2})};
                  },
                  -1, -1, true});
  rows.push_back({"aten::slice.Tensor", "start end step", [](Gen& g) {
                    return Args{g.randn({10, 3}), int64_t{0}, int64_t{1}, int64_t{9}, int64_t{3}};
                  }});
  rows.push_back({"aten::slice.Tensor", "negative bounds clamp", [](Gen& g) {
                    return Args{g.randn({4, 10}), int64_t{-1}, int64_t{-7}, int64_t{100}};
                  }});
  rows.push_back({"aten::slice.Tensor", "None bounds", [](Gen& g) {
                    return Args{g.randn({4, 5}), int64_t{1}, Value(), Value(), int64_t{2}};
                  }});
  rows.push_back({"aten::slice.Tensor", "empty result", [](Gen& g) {
                    return Args{g.randn({4}), int64_t{0}, int64_t{3}, int64_t{1}};
                  }});
  rows.push_back({"aten::select.int", "negative index", [](Gen& g) {
                    return Args{g.randn({3, 4}), int64_t{1}, int64_t{-1}};
                  }});
  rows.push_back({"aten::select.int", "to 0-dim", [](Gen& g) {
                    return Args{g.ints({5}, 0, 9), int64_t{0}, int64_t{2}};
                  }});
  rows.push_back({"aten::select.int", "out of range refused",
                  [](Gen& g) {
                    return Args{g.randn({3, 4}), int64_t{0}, int64_t{3}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::narrow", "middle", [](Gen& g) {
                    return Args{g.randn({3, 8}), int64_t{1}, int64_t{2}, int64_t{5}};
                  }});
  rows.push_back({"aten::narrow", "too long refused",
                  [](Gen& g) {
                    return Args{g.randn({3, 8}), int64_t{1}, int64_t{5}, int64_t{5}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::expand", "size-1 dims and new leading dim", [](Gen& g) {
                    return Args{g.randn({3, 1}), std::vector<int64_t>{2, 3, 4}};
                  }});
  rows.push_back({"aten::expand", "-1 keeps", [](Gen& g) {
                    return Args{g.randn({3, 1}), std::vector<int64_t>{-1, 5}};
                  }});
  rows.push_back({"aten::expand", "non-1 dim refused",
                  [](Gen& g) {
                    return Args{g.randn({3, 2}), std::vector<int64_t>{3, 4}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::expand_as", "broadcast", [](Gen& g) {
                    return Args{g.randn({1, 4}), g.randn({3, 4})};
                  }});
  rows.push_back({"aten::unsqueeze", "middle", [](Gen& g) {
                    return Args{g.randn({2, 3}), int64_t{1}};
                  }});
  rows.push_back({"aten::unsqueeze", "end, negative", [](Gen& g) {
                    return Args{g.randn({2, 3}), int64_t{-1}};
                  }});
  rows.push_back({"aten::unsqueeze", "0-dim", [](Gen& g) {
                    return Args{g.randn({}), int64_t{0}};
                  }});
  rows.push_back({"aten::squeeze", "all size-1 dims", [](Gen& g) {
                    return Args{g.randn({1, 3, 1, 2})};
                  }});
  rows.push_back({"aten::squeeze.dim", "one dim", [](Gen& g) {
                    return Args{g.randn({1, 3, 1}), int64_t{-1}};
                  }});
  rows.push_back({"aten::squeeze.dim", "non-1 dim unchanged", [](Gen& g) {
                    return Args{g.randn({2, 3}), int64_t{0}};
                  }});
  rows.push_back({"aten::squeeze.dims", "listed dims", [](Gen& g) {
                    return Args{g.randn({1, 3, 1, 1}), std::vector<int64_t>{0, 2}};
                  }});
  rows.push_back({"aten::flatten.using_ints", "middle dims", [](Gen& g) {
                    return Args{g.randn({2, 3, 4, 5}), int64_t{1}, int64_t{2}};
                  }});
  rows.push_back({"aten::flatten.using_ints", "0-dim", [](Gen& g) { return Args{g.randn({})}; }});
  rows.push_back({"aten::flatten.using_ints", "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({3, 4})};
                  }});
  rows.push_back({"aten::unflatten.int", "with -1", [](Gen& g) {
                    return Args{g.randn({2, 12}), int64_t{1}, std::vector<int64_t>{3, -1}};
                  }});
  rows.push_back(
      {"aten::as_strided", "overlapping windows", [](Gen& g) {
         return Args{g.randn({10}), std::vector<int64_t>{4, 3}, std::vector<int64_t>{2, 1}};
       }});
  rows.push_back({"aten::as_strided", "with offset", [](Gen& g) {
                    return Args{g.randn({10}), std::vector<int64_t>{2, 2},
                                std::vector<int64_t>{1, 2}, int64_t{3}};
                  }});
  rows.push_back({"aten::as_strided", "past the storage refused",
                  [](Gen& g) {
                    return Args{g.randn({4}), std::vector<int64_t>{4}, std::vector<int64_t>{2}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::diagonal", "main", [](Gen& g) { return Args{g.randn({4, 5})}; }});
  rows.push_back({"aten::diagonal", "offsets and dims", [](Gen& g) {
                    return Args{g.randn({3, 4, 5}), int64_t{-1}, int64_t{2}, int64_t{0}};
                  }});
  rows.push_back({"aten::diagonal", "offset past the end", [](Gen& g) {
                    return Args{g.randn({3, 3}), int64_t{5}};
                  }});
  rows.push_back({"aten::contiguous", "transposed", [](Gen& g) {
                    return Args{g.transposed({3, 4})};
                  }});
  rows.push_back({"aten::as_strided", "negative offset refused", [](Gen& g) {
                    return Args{g.randn({4}), std::vector<int64_t>{2}, std::vector<int64_t>{1}, int64_t{-1}};
                  }, -1, -1, true});
  return rows;
}

}  // namespace xport::testing
