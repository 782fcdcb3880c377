#include "ops/op_table.h"

namespace xport::testing {

Rows creation_samples() {
  Rows rows;
  // ---- factories ----
  // Random factories: shapes and dtypes against PyTorch; their distributions are checked in
  // tests/ops/random_ops_test.cpp.
  using IL = std::vector<int64_t>;
  rows.push_back({"aten::rand", "f32", [](Gen&) { return Args{IL{3, 4}}; }, -1, -1, false, false});
  rows.push_back({"aten::rand", "f64, empty", [](Gen&) { return Args{IL{0, 5}, DType::Float64}; },
                  -1, -1, false, false});
  rows.push_back({"aten::rand", "int64 refused", [](Gen&) { return Args{IL{3}, DType::Int64}; },
                  -1, -1, true});
  rows.push_back({"aten::randn", "f32", [](Gen&) { return Args{IL{5, 2}}; }, -1, -1, false,
                  false});
  rows.push_back({"aten::randn", "f16, odd count", [](Gen&) {
                    return Args{IL{7}, DType::Float16};
                  },
                  -1, -1, false, false});
  rows.push_back({"aten::randperm", "int64", [](Gen&) { return Args{int64_t{10}}; }, -1, -1,
                  false, false});
  rows.push_back({"aten::randperm", "f32, n = 0", [](Gen&) {
                    return Args{int64_t{0}, DType::Float32};
                  },
                  -1, -1, false, false});
  rows.push_back({"aten::randperm", "negative n refused", [](Gen&) { return Args{int64_t{-1}}; },
                  -1, -1, true});
  rows.push_back({"aten::empty.memory_format", "f32",
                  [](Gen&) {
                    return Args{std::vector<int64_t>{2, 3}};
                  },
                  -1, -1, false, /*compare_values=*/false});
  rows.push_back({"aten::empty_strided", "column-major [3,4]",
                  [](Gen&) {
                    return Args{std::vector<int64_t>{3, 4}, std::vector<int64_t>{1, 3}};
                  },
                  -1, -1, false, /*compare_values=*/false});
  rows.push_back({"aten::empty_strided", "f64 with gaps",
                  [](Gen&) {
                    return Args{std::vector<int64_t>{2, 2}, std::vector<int64_t>{8, 2},
                                DType::Float64};
                  },
                  -1, -1, false, false});
  rows.push_back({"aten::empty_strided", "more strides than sizes refused",
                  [](Gen&) {
                    return Args{std::vector<int64_t>{2}, std::vector<int64_t>{1, 1}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::empty.memory_format", "int32",
                  [](Gen&) {
                    return Args{std::vector<int64_t>{4}, DType::Int32};
                  },
                  -1, -1, false, false});
  rows.push_back({"aten::full", "float fill gives f32", [](Gen&) {
                    return Args{std::vector<int64_t>{2, 3}, 1.5};
                  }});
  rows.push_back({"aten::full", "int fill gives int64", [](Gen&) {
                    return Args{std::vector<int64_t>{3}, int64_t{7}};
                  }});
  // A bool fill with no dtype gives bool, as torch.full does (1.13's aten-level op says int64).
  rows.push_back({"aten::full", "bool fill", [](Gen&) {
                    return Args{std::vector<int64_t>{2}, true, DType::Bool};
                  }});
  rows.push_back({"aten::full", "dtype given", [](Gen&) {
                    return Args{std::vector<int64_t>{2, 2}, 2.75, DType::BFloat16};
                  }});
  rows.push_back({"aten::full", "negative size refused",
                  [](Gen&) {
                    return Args{std::vector<int64_t>{-1}, 1.0};
                  },
                  -1, -1, true});
  rows.push_back({"aten::zeros", "f64", [](Gen&) {
                    return Args{std::vector<int64_t>{2, 3}, DType::Float64};
                  }});
  rows.push_back({"aten::zeros", "0-dim", [](Gen&) { return Args{std::vector<int64_t>{}}; }});
  rows.push_back({"aten::ones", "int8", [](Gen&) {
                    return Args{std::vector<int64_t>{4}, DType::Int8};
                  }});
  rows.push_back({"aten::zeros_like", "keeps dtype", [](Gen& g) {
                    return Args{g.ints({2, 3}, 0, 9, DType::Int16)};
                  }});
  rows.push_back({"aten::ones_like", "dtype given", [](Gen& g) {
                    return Args{g.randn({3}), DType::Float64};
                  }});
  rows.push_back({"aten::full_like", "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({2, 3}), -2.5};
                  }});
  // new_*: self, size, [fill_value,] then keyword-only dtype.
  rows.push_back({"aten::new_zeros", "self's dtype", [](Gen& g) {
                    return Args{g.ints({2}, 0, 9), std::vector<int64_t>{2, 3}};
                  }});
  rows.push_back({"aten::new_ones", "given dtype", [](Gen& g) {
                    return Args{g.randn({2}), std::vector<int64_t>{3}, DType::Float64};
                  }});
  rows.push_back({"aten::new_full", "float fill, self's dtype", [](Gen& g) {
                    return Args{g.randn({1}), std::vector<int64_t>{2, 2}, 2.5};
                  }});
  rows.push_back({"aten::new_empty", "shape only",
                  [](Gen& g) {
                    return Args{g.randn({1}, DType::Float64), std::vector<int64_t>{4, 0, 2}};
                  },
                  -1, -1, false, false});
  rows.push_back({"aten::empty_like", "shape only",
                  [](Gen& g) {
                    return Args{g.randn({3, 2})};
                  },
                  -1, -1, false, false});
  rows.push_back({"aten::scalar_tensor", "float", [](Gen&) { return Args{3.25}; }});
  rows.push_back({"aten::scalar_tensor", "int as f64", [](Gen&) {
                    return Args{int64_t{3}, DType::Float64};
                  }});
  rows.push_back({"aten::arange.start_step", "ints", [](Gen&) {
                    return Args{int64_t{2}, int64_t{17}, int64_t{3}};
                  }});
  rows.push_back({"aten::arange.start_step", "negative step", [](Gen&) {
                    return Args{int64_t{5}, int64_t{-5}, int64_t{-2}};
                  }});
  rows.push_back({"aten::arange.start_step", "floats", [](Gen&) { return Args{0.5, 3.0, 0.25}; }});
  rows.push_back({"aten::arange.start_step", "int range as f64", [](Gen&) {
                    return Args{int64_t{0}, int64_t{5}, int64_t{1}, DType::Float64};
                  }});
  rows.push_back({"aten::arange.start_step", "zero step refused",
                  [](Gen&) {
                    return Args{int64_t{0}, int64_t{5}, int64_t{0}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::arange.start_step", "wrong direction refused",
                  [](Gen&) {
                    return Args{int64_t{5}, int64_t{0}, int64_t{1}};
                  },
                  -1, -1, true});
  rows.push_back({"aten::arange.start", "ints", [](Gen&) {
                    return Args{int64_t{-3}, int64_t{4}};
                  }});
  rows.push_back({"aten::arange", "end only", [](Gen&) { return Args{int64_t{6}}; }});
  rows.push_back({"aten::arange", "float end", [](Gen&) { return Args{2.5}; }});
  rows.push_back({"aten::linspace", "f32", [](Gen&) { return Args{-1.0, 2.0, int64_t{7}}; }});
  rows.push_back({"aten::linspace", "f64", [](Gen&) {
                    return Args{0.0, 1.0, int64_t{11}, DType::Float64};
                  }});
  rows.push_back({"aten::linspace", "one step", [](Gen&) { return Args{3.0, 5.0, int64_t{1}}; }});
  rows.push_back({"aten::linspace", "zero steps", [](Gen&) { return Args{3.0, 5.0, int64_t{0}}; }});
  rows.push_back({"aten::eye", "square", [](Gen&) { return Args{int64_t{4}}; }});
  rows.push_back({"aten::eye.m", "rectangular int", [](Gen&) {
                    return Args{int64_t{2}, int64_t{5}, DType::Int64};
                  }});

  // ---- copies and conversions ----
  rows.push_back({"aten::_to_copy", "f32 to f16", [](Gen& g) {
                    return Args{g.randn({3, 4}), DType::Float16};
                  }});
  rows.push_back({"aten::_to_copy", "f32 to int32 truncates", [](Gen& g) {
                    return Args{g.randn({20}) * 10.0, DType::Int32};
                  }});
  rows.push_back({"aten::_to_copy", "f32 to bool", [](Gen& g) {
                    return Args{g.edge(), DType::Bool};
                  }});
  rows.push_back({"aten::_to_copy", "int64 to uint8 wraps", [](Gen& g) {
                    return Args{g.ints({10}, -300, 300), DType::UInt8};
                  }});
  rows.push_back({"aten::_to_copy", "bf16 to f64", [](Gen& g) {
                    return Args{g.randn({5}, DType::BFloat16), DType::Float64};
                  }});
  rows.push_back({"aten::_to_copy", "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({3, 5}), DType::Float64};
                  }});
  rows.push_back({"aten::type_as", "f32 as int64 truncates", [](Gen& g) {
                    return Args{g.randn({3, 4}) * 3.0, g.ints({2}, 0, 1)};
                  }});
  rows.push_back({"aten::type_as", "int as f16", [](Gen& g) {
                    return Args{g.ints({5}, -9, 9), g.randn({}, DType::Float16)};
                  }});
  rows.push_back({"aten::type_as", "same dtype", [](Gen& g) {
                    return Args{g.transposed({3, 2}), g.randn({1})};
                  }});
  rows.push_back({"aten::to.dtype", "f64 to f32", [](Gen& g) {
                    return Args{g.randn({4}, DType::Float64), DType::Float32};
                  }});
  rows.push_back({"aten::to.dtype", "same dtype", [](Gen& g) {
                    return Args{g.randn({4}), DType::Float32};
                  }});
  // to.dtype_layout: self, then keyword-only dtype, layout, device, pin_memory, non_blocking, copy.
  rows.push_back({"aten::to.dtype_layout", "f32 to f64", [](Gen& g) {
                    return Args{g.randn({2, 3}), DType::Float64};
                  }});
  rows.push_back({"aten::to.dtype_layout", "no dtype", [](Gen& g) {
                    return Args{g.randn({3}), Value()};
                  }});
  rows.push_back({"aten::to.dtype_layout", "same dtype, copy", [](Gen& g) {
                    return Args{g.randn({3}), DType::Float32, Value(), Value(), Value(), false, true};
                  }});
  rows.push_back({"aten::to.device", "cpu, f32 to int64", [](Gen& g) {
                    return Args{g.randn({2, 3}), "cpu", DType::Int64};
                  }});
  rows.push_back({"aten::to.device", "cpu, same dtype", [](Gen& g) {
                    return Args{g.randn({3}), "cpu", DType::Float32};
                  }});
  rows.push_back({"aten::lift_fresh_copy", "f32", [](Gen& g) { return Args{g.randn({2, 3})}; }});
  rows.push_back({"aten::lift_fresh_copy", "int64 non-contiguous", [](Gen& g) {
                    return Args{g.ints({3, 2}, 0, 9).t()};
                  }});
  rows.push_back({"aten::clone", "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({3, 4}, DType::Int64)};
                  }});
  rows.push_back({"aten::clone", "0-dim bool", [](Gen& g) { return Args{g.bools({})}; }});
  rows.push_back({"aten::clone", "f32", [](Gen& g) { return Args{g.randn({2, 5})}; }});
  rows.push_back({"aten::copy", "broadcast and convert", [](Gen& g) {
                    return Args{g.randn({3, 4}), g.ints({4}, 0, 9)};
                  }});
  rows.push_back({"aten::copy_", "into a transposed tensor", [](Gen& g) {
                    return Args{g.transposed({3, 4}), g.randn({3, 4}, DType::Float64)};
                  }});
  rows.push_back({"aten::copy_", "broadcast source", [](Gen& g) {
                    return Args{g.randn({2, 3}), g.randn({3})};
                  }});
  rows.push_back({"aten::copy_", "non-broadcastable refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 3}), g.randn({2})};
                  },
                  -1, -1, true});
  rows.push_back({"aten::fill.Scalar", "f32", [](Gen& g) { return Args{g.randn({2, 3}), 4.5}; }});
  rows.push_back({"aten::fill_.Scalar", "int into f16", [](Gen& g) {
                    return Args{g.randn({3}, DType::Float16), int64_t{-2}};
                  }});
  rows.push_back({"aten::fill.Tensor", "0-dim f32 into int64", [](Gen& g) {
                    return Args{g.ints({2, 3}, 0, 9), g.randn({}) * 4.0};
                  }});
  rows.push_back({"aten::fill.Tensor", "1-dim value refused",
                  [](Gen& g) { return Args{g.randn({2, 3}), g.randn({1})}; }, -1, -1, true});
  rows.push_back({"aten::fill_.Tensor", "0-dim int64 into f32", [](Gen& g) {
                    return Args{g.randn({3, 2}), g.ints({}, 0, 9)};
                  }});
  rows.push_back({"aten::zero_", "int64", [](Gen& g) { return Args{g.ints({4}, 1, 9)}; }});
  return rows;
}

}  // namespace xport::testing
