// PyTorch's decomposed quantization ops (quantized_decomposed::*), as PT2E programs call them.
// Integer results must equal PyTorch's exactly: ties round half to even, NaN and out-of-range
// values convert as x86 does, and every step keeps PyTorch's precision.
#include "ops/op_table.h"

namespace xport::testing {
namespace {

using I = int64_t;
constexpr const char* kNs = "quantized_decomposed::";

std::string op(const std::string& name) { return kNs + name; }

Tensor floats(std::vector<float> v) {
  const auto n = static_cast<int64_t>(v.size());
  return from_vector<float>(std::move(v), {n});
}

Tensor longs(std::vector<int64_t> v) {
  const auto n = static_cast<int64_t>(v.size());
  return from_vector<int64_t>(std::move(v), {n});
}

void quantize_per_tensor_samples(Rows& rows) {
  // quantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype)
  const std::string q = op("quantize_per_tensor");
  rows.push_back({q, "f32 to uint8", [](Gen& g) {
                    return Args{g.randn({4, 5}) * 3.0, 0.030419139191508293, I{143}, I{0}, I{255},
                                DType::UInt8};
                  }});
  rows.push_back({q, "ties round half to even", [](Gen&) {
                    return Args{floats({-1.25f, -0.75f, -0.25f, 0.25f, 0.75f, 1.25f, 2.5f}), 0.5,
                                I{0}, I{-128}, I{127}, DType::Int8};
                  }});
  rows.push_back({q, "edge values to int8", [](Gen& g) {
                    return Args{g.edge(), 0.25, I{3}, I{-128}, I{127}, DType::Int8};
                  }});
  rows.push_back({q, "edge values to int32 (inf converts as x86 does)", [](Gen& g) {
                    return Args{g.edge(), 0.5, I{0}, I{-2147483648}, I{2147483647},
                                DType::Int32};
                  }});
  rows.push_back({q, "narrow range int16", [](Gen& g) {
                    return Args{g.randn({3, 7}) * 100.0, 0.125, I{-5}, I{-1000}, I{1000},
                                DType::Int16};
                  }});
  rows.push_back({q, "bf16 input widened", [](Gen& g) {
                    return Args{g.randn({6}, DType::BFloat16), 0.02, I{128}, I{0}, I{255},
                                DType::UInt8};
                  }});
  rows.push_back({q, "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({4, 6}), 0.05, I{-2}, I{-128}, I{127}, DType::Int8};
                  }});
  rows.push_back({q, "0-dim", [](Gen& g) {
                    return Args{g.randn({}), 0.1, I{0}, I{-128}, I{127}, DType::Int8};
                  }});
  rows.push_back({q, "empty", [](Gen& g) {
                    return Args{g.randn({0, 3}), 0.1, I{0}, I{0}, I{255}, DType::UInt8};
                  }});
  rows.push_back({q, "f64 input refused",
                  [](Gen& g) {
                    return Args{g.randn({3}, DType::Float64), 0.1, I{0}, I{-128}, I{127},
                                DType::Int8};
                  },
                  -1, -1, true});
  rows.push_back({q, "quant_max past int8 refused",
                  [](Gen& g) {
                    return Args{g.randn({3}), 0.1, I{0}, I{-128}, I{255}, DType::Int8};
                  },
                  -1, -1, true});
  // .tensor: scale and zero point as one-element tensors (what choose_qparams gives).
  const std::string qt = op("quantize_per_tensor.tensor");
  rows.push_back({qt, "f64 scale, int64 zero point", [](Gen& g) {
                    return Args{g.randn({3, 4}), from_vector<double>({0.0123}, {1}), longs({7}),
                                I{0}, I{255}, DType::UInt8};
                  }});
  rows.push_back({qt, "0-dim f32 scale", [](Gen& g) {
                    return Args{g.randn({5}), from_vector<float>({0.04f}, {}),
                                from_vector<int64_t>({0}, {}), I{-128}, I{127}, DType::Int8};
                  }});
  rows.push_back({qt, "two scales refused",
                  [](Gen& g) {
                    return Args{g.randn({5}), floats({0.1f, 0.2f}), longs({0}), I{-128}, I{127},
                                DType::Int8};
                  },
                  -1, -1, true});
  const std::string qt2 = op("quantize_per_tensor.tensor2");
  rows.push_back({qt2, "bounds as tensors", [](Gen& g) {
                    return Args{g.randn({3, 4}) * 4.0, from_vector<double>({0.05}, {1}),
                                longs({2}), longs({-100}), longs({100}), DType::Int8};
                  }});
}

void dequantize_per_tensor_samples(Rows& rows) {
  // dequantize_per_tensor(input, scale, zero_point, quant_min, quant_max, dtype, *, out_dtype)
  const std::string d = op("dequantize_per_tensor");
  rows.push_back({d, "uint8", [](Gen& g) {
                    return Args{g.ints({4, 5}, 0, 255, DType::UInt8), 0.030419139191508293,
                                I{143}, I{0}, I{255}, DType::UInt8, Value()};
                  }});
  rows.push_back({d, "int8 to f64", [](Gen& g) {
                    return Args{g.ints({6}, -128, 127, DType::Int8), 0.0123, I{-3}, I{-128},
                                I{127}, DType::Int8, DType::Float64};
                  }});
  rows.push_back({d, "int8 to bf16 rounds twice", [](Gen& g) {
                    return Args{g.ints({12}, -128, 127, DType::Int8), 0.0123, I{-3}, I{-128},
                                I{127}, DType::Int8, DType::BFloat16};
                  }});
  rows.push_back({d, "int32", [](Gen& g) {
                    return Args{g.ints({5}, -100000, 100000, DType::Int32), 1e-4, I{17},
                                I{-2147483648}, I{2147483647}, DType::Int32, Value()};
                  }});
  rows.push_back({d, "non-contiguous", [](Gen& g) {
                    return Args{g.ints({4, 6}, -128, 127, DType::Int8).transpose(0, 1), 0.5, I{0},
                                I{-128}, I{127}, DType::Int8, Value()};
                  }});
  rows.push_back({d, "empty", [](Gen& g) {
                    return Args{g.ints({0}, 0, 255, DType::UInt8), 0.5, I{0}, I{0}, I{255},
                                DType::UInt8, Value()};
                  }});
  rows.push_back({d, "input dtype other than dtype refused",
                  [](Gen& g) {
                    return Args{g.ints({3}, 0, 9, DType::UInt8), 0.5, I{0}, I{-128}, I{127},
                                DType::Int8, Value()};
                  },
                  -1, -1, true});
  const std::string dt = op("dequantize_per_tensor.tensor");
  rows.push_back({dt, "f64 scale, int64 zero point", [](Gen& g) {
                    return Args{g.ints({3, 4}, 0, 255, DType::UInt8),
                                from_vector<double>({0.0123}, {1}), longs({7}), I{0}, I{255},
                                DType::UInt8, Value()};
                  }});
  const std::string dt2 = op("dequantize_per_tensor.tensor2");
  rows.push_back({dt2, "bounds as tensors", [](Gen& g) {
                    return Args{g.ints({3, 4}, -100, 100, DType::Int8),
                                from_vector<double>({0.05}, {1}), longs({2}), longs({-100}),
                                longs({100}), DType::Int8, Value()};
                  }});
}

void per_channel_samples(Rows& rows) {
  // quantize_per_channel(input, scales, zero_points, axis, quant_min, quant_max, dtype)
  const std::string q = op("quantize_per_channel");
  rows.push_back({q, "conv weight along axis 0", [](Gen& g) {
                    return Args{g.randn({4, 3, 2, 2}), g.uniform({4}, 0.005, 0.05),
                                longs({0, 0, 0, 0}), I{0}, I{-128}, I{127}, DType::Int8};
                  }});
  rows.push_back({q, "axis 1 with zero points", [](Gen& g) {
                    return Args{g.randn({2, 3, 5}) * 2.0, g.uniform({3}, 0.01, 0.03),
                                longs({128, 120, 135}), I{1}, I{0}, I{255}, DType::UInt8};
                  }});
  rows.push_back({q, "f64 scales, axis -1", [](Gen& g) {
                    return Args{g.randn({5, 3}), g.uniform({3}, 0.01, 0.03, DType::Float64),
                                longs({0, 1, -1}), I{-1}, I{-128}, I{127}, DType::Int8};
                  }});
  rows.push_back({q, "non-contiguous", [](Gen& g) {
                    return Args{g.transposed({6, 4}), g.uniform({6}, 0.01, 0.03),
                                longs({0, 0, 0, 0, 0, 0}), I{0}, I{-128}, I{127}, DType::Int8};
                  }});
  rows.push_back({q, "scales of the wrong length refused",
                  [](Gen& g) {
                    return Args{g.randn({4, 3}), g.uniform({3}, 0.01, 0.03), longs({0, 0, 0}),
                                I{0}, I{-128}, I{127}, DType::Int8};
                  },
                  -1, -1, true});
  // dequantize_per_channel(input, scales, zero_points?, axis, quant_min, quant_max, dtype, *,
  //                        out_dtype)
  const std::string d = op("dequantize_per_channel");
  rows.push_back({d, "int8 conv weight", [](Gen& g) {
                    return Args{g.ints({8, 3, 3, 3}, -128, 127, DType::Int8),
                                g.uniform({8}, 0.001, 0.01), longs({0, 0, 0, 0, 0, 0, 0, 0}),
                                I{0}, I{-128}, I{127}, DType::Int8, Value()};
                  }});
  rows.push_back({d, "uint8 along axis 1 with zero points", [](Gen& g) {
                    return Args{g.ints({2, 3, 4}, 0, 255, DType::UInt8),
                                g.uniform({3}, 0.01, 0.03), longs({128, 120, 135}), I{1}, I{0},
                                I{255}, DType::UInt8, Value()};
                  }});
  rows.push_back({d, "no zero points, f64 scales to f32", [](Gen& g) {
                    return Args{g.ints({3, 5}, -128, 127, DType::Int8),
                                g.uniform({3}, 0.001, 0.01, DType::Float64), Value(), I{0},
                                I{-128}, I{127}, DType::Int8, Value()};
                  }});
  rows.push_back({d, "out_dtype bf16", [](Gen& g) {
                    return Args{g.ints({4, 5}, -128, 127, DType::Int8),
                                g.uniform({4}, 0.001, 0.01), longs({1, 2, 3, 4}), I{0}, I{-128},
                                I{127}, DType::Int8, DType::BFloat16};
                  }});
}

void per_channel_group_samples(Rows& rows) {
  // quantize_per_channel_group(input, scales, zero_points, quant_min, quant_max, dtype,
  //                            group_size): int4 values in int8, the zero point added before
  //                            rounding
  const std::string q = op("quantize_per_channel_group");
  rows.push_back({q, "int4 in groups of 4", [](Gen& g) {
                    return Args{g.randn({3, 8}) * 2.0, g.uniform({3, 2}, 0.1, 0.4),
                                g.ints({3, 2}, -8, 7, DType::Int32), I{-8}, I{7}, DType::Int8,
                                I{4}};
                  }});
  rows.push_back({q, "ties after the zero point", [](Gen&) {
                    return Args{from_vector<float>({0.25f, 0.75f, -0.25f, -1.25f}, {1, 4}),
                                floats({0.5f}), longs({3}), I{-8}, I{7}, DType::Int8, I{4}};
                  }});
  rows.push_back({q, "a group wider than the row is the row", [](Gen& g) {
                    return Args{g.randn({2, 6}), g.uniform({2, 1}, 0.1, 0.2),
                                longs({0, 1}), I{-8}, I{7}, DType::Int8, I{128}};
                  }});
  rows.push_back({q, "a group that does not divide the row refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 6}), g.uniform({4}, 0.1, 0.2), longs({0, 0, 0, 0}),
                                I{-8}, I{7}, DType::Int8, I{4}};
                  },
                  -1, -1, true});
  // dequantize_per_channel_group(input, scales, zero_points?, quant_min, quant_max, dtype,
  //                              group_size, output_dtype)
  const std::string d = op("dequantize_per_channel_group");
  rows.push_back({d, "int4 with zero points", [](Gen& g) {
                    return Args{g.ints({4, 8}, -8, 7, DType::Int8), g.uniform({4, 2}, 0.01, 0.1),
                                g.ints({4, 2}, -8, 7, DType::Int32), I{-8}, I{7}, DType::Int8,
                                I{4}, DType::Float32};
                  }});
  rows.push_back({d, "no zero points, flat scales", [](Gen& g) {
                    return Args{g.ints({2, 6}, -8, 7, DType::Int8), g.uniform({6}, 0.01, 0.1),
                                Value(), I{-8}, I{7}, DType::Int8, I{2}, DType::Float32};
                  }});
  rows.push_back({d, "to bf16", [](Gen& g) {
                    return Args{g.ints({2, 4}, -128, 127, DType::Int8),
                                g.uniform({2, 2}, 0.01, 0.1), Value(), I{-128}, I{127},
                                DType::Int8, I{2}, DType::BFloat16};
                  }});
}

void choose_qparams_samples(Rows& rows) {
  // choose_qparams.tensor(input, quant_min, quant_max, eps, dtype) -> (scale, zero_point)
  for (const char* name : {"choose_qparams.tensor", "choose_qparams_symmetric.tensor"}) {
    const std::string c = op(name);
    rows.push_back({c, "uint8", [](Gen& g) {
                      return Args{g.randn({16, 8}) * 2.0, I{0}, I{255}, 1.1920928955078125e-07,
                                  DType::UInt8};
                    }});
    rows.push_back({c, "int8", [](Gen& g) {
                      return Args{g.randn({33}), I{-128}, I{127}, 1.1920928955078125e-07,
                                  DType::Int8};
                    }});
    rows.push_back({c, "all positive", [](Gen& g) {
                      return Args{g.positive({7}), I{0}, I{255}, 1.1920928955078125e-07,
                                  DType::UInt8};
                    }});
    rows.push_back({c, "all zero: eps is the scale", [](Gen&) {
                      return Args{floats({0, 0, 0}), I{0}, I{255}, 1e-5, DType::UInt8};
                    }});
    rows.push_back({c, "bf16 input", [](Gen& g) {
                      return Args{g.randn({9}, DType::BFloat16) * 3.0, I{-128}, I{127},
                                  1.1920928955078125e-07, DType::Int8};
                    }});
    rows.push_back({c, "empty refused",
                    [](Gen& g) {
                      return Args{g.randn({0}), I{0}, I{255}, 1e-5, DType::UInt8};
                    },
                    -1, -1, true});
    rows.push_back({c, "a range without 0 refused",
                    [](Gen& g) {
                      return Args{g.randn({4}), I{1}, I{255}, 1e-5, DType::UInt8};
                    },
                    -1, -1, true});
  }
}

// xport::weight_only_linear: integer weights, float activations (int8 per channel, packed int4
// per group).
void weight_only_linear_samples(Rows& rows) {
  // weight_only_linear(input, weight, bits, scales, zero_points?, group_size, bias=None)
  const std::string w = "xport::weight_only_linear";
  rows.push_back({w, "int8 per channel, bias, one row",
                  [](Gen& g) {
                    return Args{g.randn({1, 40}), g.ints({9, 40}, -128, 127, DType::Int8), I{8},
                                g.uniform({9, 1}, 0.001, 0.01), Value(), I{40}, g.randn({9})};
                  },
                  1e-5, 1e-5});
  rows.push_back({w, "int8 with zero points in groups, 3-d input",
                  [](Gen& g) {
                    return Args{g.randn({2, 3, 64}), g.ints({6, 64}, -128, 127, DType::Int8),
                                I{8}, g.uniform({6, 2}, 0.001, 0.01),
                                g.ints({6, 2}, -4, 4, DType::Float32), I{32}, Value()};
                  },
                  1e-5, 1e-5});
  rows.push_back({w, "packed int4 in groups of 32, many rows",
                  [](Gen& g) {
                    return Args{g.randn({7, 256}), g.ints({5, 128}, 0, 255, DType::UInt8), I{4},
                                g.uniform({5, 8}, 0.01, 0.1),
                                g.ints({5, 8}, -8, 7, DType::Float32), I{32}, g.randn({5})};
                  },
                  1e-5, 1e-5});
  // One row with groups of whole runs (a decode step): two weight rows at a time, an odd count
  // leaving one.
  rows.push_back({w, "packed int4 in groups of 128, one row, zero points, bias",
                  [](Gen& g) {
                    return Args{g.randn({1, 256}), g.ints({5, 128}, 0, 255, DType::UInt8), I{4},
                                g.uniform({5, 2}, 0.01, 0.1),
                                g.ints({5, 2}, -8, 7, DType::Float32), I{128}, g.randn({5})};
                  },
                  1e-5, 1e-5});
  rows.push_back({w, "packed int4 in groups of 32, one row, zero points",
                  [](Gen& g) {
                    return Args{g.randn({1, 256}), g.ints({5, 128}, 0, 255, DType::UInt8), I{4},
                                g.uniform({5, 8}, 0.01, 0.1),
                                g.ints({5, 8}, -8, 7, DType::Float32), I{32}, g.randn({5})};
                  },
                  1e-5, 1e-5});
  rows.push_back({w, "packed int4 in groups of 16, one row",
                  [](Gen& g) {
                    return Args{g.randn({1, 128}), g.ints({2, 64}, 0, 255, DType::UInt8), I{4},
                                g.uniform({2, 8}, 0.01, 0.1), Value(), I{16}, Value()};
                  },
                  1e-5, 1e-5});
  // The int4 kernel sums x * (1 + u / 16) and takes 1.5 * sum(x) away: over 512 values the two
  // are about 100 times the result, and float32's rounding of them shows at 1e-5.
  rows.push_back({w, "packed int4 in groups of 256, one row",
                  [](Gen& g) {
                    return Args{g.randn({1, 512}), g.ints({4, 256}, 0, 255, DType::UInt8), I{4},
                                g.uniform({4, 2}, 0.01, 0.1), Value(), I{256}, Value()};
                  },
                  1e-4, 1e-4});
  rows.push_back({w, "packed int4, one group of 16 then a run of 128", [](Gen& g) {
                    return Args{g.randn({2, 128}), g.ints({3, 64}, 0, 255, DType::UInt8), I{4},
                                g.uniform({3, 8}, 0.01, 0.1), Value(), I{16}, Value()};
                  },
                  1e-5, 1e-5});
  rows.push_back({w, "int4 group not a multiple of 16 refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 128}), g.ints({5, 64}, 0, 255, DType::UInt8), I{4},
                                g.uniform({5, 16}, 0.01, 0.1), Value(), I{8}, Value()};
                  },
                  -1, -1, true});
}

// xport::bf16_linear: bfloat16 weights, float32 compute (or bfloat16, as autocast).
void bf16_linear_samples(Rows& rows) {
  const std::string b = "xport::bf16_linear";
  rows.push_back({b, "one row, bias",
                  [](Gen& g) {
                    return Args{g.randn({1, 70}), g.randn({9, 70}, DType::BFloat16), g.randn({9})};
                  },
                  1e-5, 1e-5});
  rows.push_back({b, "3-d input, many rows, no bias",
                  [](Gen& g) {
                    return Args{g.randn({2, 5, 64}), g.randn({6, 64}, DType::BFloat16), Value()};
                  },
                  1e-5, 1e-5});
  // bf16_compute: torch.autocast's rounding of the input and the result. The kernel sums in
  // another order than the decomposition's GEMM, so a result on a rounding boundary may land one
  // bfloat16 step (2^-8 relative) apart.
  rows.push_back({b, "bf16 compute, one row, K with a tail, bias",
                  [](Gen& g) {
                    return Args{g.randn({1, 300}), g.randn({33, 300}, DType::BFloat16),
                                g.randn({33}), true};
                  },
                  1e-2, 1e-2});
  rows.push_back({b, "bf16 compute, one row, weight rows over the threads",
                  [](Gen& g) {
                    return Args{g.randn({1, 256}), g.randn({700, 256}, DType::BFloat16),
                                g.randn({700}), true};
                  },
                  1e-2, 1e-2});
  rows.push_back({b, "bf16 compute, 3 rows, K of whole steps",
                  [](Gen& g) {
                    return Args{g.randn({3, 256}), g.randn({17, 256}, DType::BFloat16), Value(),
                                true};
                  },
                  1e-2, 1e-2});
  rows.push_back({b, "bf16 compute, many rows",
                  [](Gen& g) {
                    return Args{g.randn({2, 9, 40}), g.randn({5, 40}, DType::BFloat16),
                                g.randn({5}), true};
                  },
                  1e-2, 1e-2});
  rows.push_back({b, "float32 weights refused",
                  [](Gen& g) { return Args{g.randn({1, 8}), g.randn({4, 8}), Value()}; },
                  -1, -1, true});
}

// xport::quantized_linear: what the quantized fusion writes for PT2E's linear layers.
void quantized_linear_samples(Rows& rows) {
  // quantized_linear(input, input_scale, input_zero_point, weight, weight_scales, bias=None)
  const std::string q = "xport::quantized_linear";
  rows.push_back({q, "uint8 input with a zero point and bias",
                  [](Gen& g) {
                    return Args{g.ints({5, 48}, 0, 255, DType::UInt8), 0.05, I{128},
                                g.ints({8, 48}, -127, 127, DType::Int8),
                                g.uniform({8}, 0.001, 0.01), g.randn({8})};
                  },
                  1e-5, 1e-5});
  rows.push_back({q, "int8 input, no bias, float64 scales",
                  [](Gen& g) {
                    return Args{g.ints({33, 20}, -128, 127, DType::Int8), 0.02, I{-3},
                                g.ints({7, 20}, -127, 127, DType::Int8),
                                g.uniform({7}, 0.001, 0.01, DType::Float64), Value()};
                  },
                  1e-5, 1e-5});
  rows.push_back({q, "no rows", [](Gen& g) {
                    return Args{g.ints({0, 16}, 0, 255, DType::UInt8), 0.05, I{0},
                                g.ints({4, 16}, -127, 127, DType::Int8),
                                g.uniform({4}, 0.001, 0.01), Value()};
                  }});
  rows.push_back({q, "float input refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 16}), 0.05, I{0},
                                g.ints({4, 16}, -127, 127, DType::Int8),
                                g.uniform({4}, 0.001, 0.01), Value()};
                  },
                  -1, -1, true});
  // requantized_linear(..., activation, output_scale, output_zero_point, output_dtype): values
  // may differ from PyTorch's by one step where the float result lies on a step's boundary
  // (atol 1).
  const std::string rq = "xport::requantized_linear";
  for (const char* activation : {"none", "relu", "gelu", "gelu_tanh"}) {
    rows.push_back({rq, std::string("uint8 in and out, ") + activation,
                    [activation](Gen& g) {
                      return Args{g.ints({9, 40}, 0, 255, DType::UInt8), 0.05, I{131},
                                  g.ints({12, 40}, -127, 127, DType::Int8),
                                  g.uniform({12}, 0.001, 0.01), g.randn({12}), activation, 0.02,
                                  I{17}, DType::UInt8};
                    },
                    0, 1});
  }
  rows.push_back({rq, "int8 in and out, no bias",
                  [](Gen& g) {
                    return Args{g.ints({4, 24}, -128, 127, DType::Int8), 0.03, I{-2},
                                g.ints({6, 24}, -127, 127, DType::Int8),
                                g.uniform({6}, 0.001, 0.01), Value(), "relu", 0.01, I{-5},
                                DType::Int8};
                  },
                  0, 1});
  rows.push_back({rq, "unknown activation refused",
                  [](Gen& g) {
                    return Args{g.ints({4, 24}, 0, 255, DType::UInt8), 0.03, I{0},
                                g.ints({6, 24}, -127, 127, DType::Int8),
                                g.uniform({6}, 0.001, 0.01), Value(), "swish", 0.01, I{0},
                                DType::UInt8};
                  },
                  -1, -1, true});
  const std::string qt = "xport::quantized_linear.tensor";
  rows.push_back({qt, "dynamic: scale and zero point as tensors",
                  [](Gen& g) {
                    return Args{g.ints({6, 32}, 0, 255, DType::UInt8),
                                from_vector<double>({0.031}, {1}), longs({101}),
                                g.ints({9, 32}, -127, 127, DType::Int8),
                                g.uniform({9}, 0.001, 0.01), g.randn({9})};
                  },
                  1e-5, 1e-5});
}

// xport::quantized_conv2d: what the quantized fusion writes for PT2E's convolutions.
void quantized_conv2d_samples(Rows& rows) {
  // quantized_conv2d(input, input_scale, input_zero_point, weight, weight_scales, bias, stride,
  //                  padding, dilation, groups)
  using L = std::vector<int64_t>;
  const std::string q = "xport::quantized_conv2d";
  rows.push_back({q, "uint8 3x3 padded, with bias",
                  [](Gen& g) {
                    return Args{g.ints({2, 8, 6, 6}, 0, 255, DType::UInt8), 0.05, I{128},
                                g.ints({4, 8, 3, 3}, -127, 127, DType::Int8),
                                g.uniform({4}, 0.001, 0.01), g.randn({4}), L{1, 1}, L{1, 1},
                                L{1, 1}, I{1}};
                  },
                  1e-5, 1e-5});
  rows.push_back({q, "int8 strided, dilated, 2 groups, no bias",
                  [](Gen& g) {
                    return Args{g.ints({1, 4, 9, 9}, -128, 127, DType::Int8), 0.02, I{-5},
                                g.ints({6, 2, 3, 3}, -127, 127, DType::Int8),
                                g.uniform({6}, 0.001, 0.01, DType::Float64), Value(), L{2, 2},
                                L{0, 0}, L{2, 2}, I{2}};
                  },
                  1e-5, 1e-5});
  rows.push_back({q, "float input refused",
                  [](Gen& g) {
                    return Args{g.randn({1, 2, 4, 4}), 0.05, I{0},
                                g.ints({2, 2, 1, 1}, -127, 127, DType::Int8),
                                g.uniform({2}, 0.001, 0.01), Value(), L{1, 1}, L{0, 0}, L{1, 1},
                                I{1}};
                  },
                  -1, -1, true});
  // requantized_conv2d(..., relu, output_scale, output_zero_point, output_dtype): quantized
  // values may differ from PyTorch's by one step where the float result lies on a step's
  // boundary within rounding (atol 1).
  const std::string rq = "xport::requantized_conv2d";
  rows.push_back({rq, "uint8 in, ReLU, uint8 out",
                  [](Gen& g) {
                    return Args{g.ints({2, 8, 6, 6}, 0, 255, DType::UInt8), 0.05, I{128},
                                g.ints({4, 8, 3, 3}, -127, 127, DType::Int8),
                                g.uniform({4}, 0.001, 0.01), g.randn({4}), L{1, 1}, L{1, 1},
                                L{1, 1}, I{1}, true, 0.07, I{3}, DType::UInt8};
                  },
                  0, 1});
  rows.push_back({rq, "int8 in and out, no ReLU, no bias, strided",
                  [](Gen& g) {
                    return Args{g.ints({1, 4, 9, 9}, -128, 127, DType::Int8), 0.02, I{-5},
                                g.ints({6, 4, 3, 3}, -127, 127, DType::Int8),
                                g.uniform({6}, 0.001, 0.01), Value(), L{2, 2}, L{1, 1},
                                L{1, 1}, I{1}, false, 0.05, I{-2}, DType::Int8};
                  },
                  0, 1});
  // With a residual added before the ReLU (ResNet's block end), uint8 as ResNet's shortcut is
  // (zero point 129), and int8.
  rows.push_back({rq, "uint8 residual added, ReLU",
                  [](Gen& g) {
                    return Args{g.ints({2, 8, 6, 6}, 0, 255, DType::UInt8), 0.05, I{0},
                                g.ints({4, 8, 3, 3}, -127, 127, DType::Int8),
                                g.uniform({4}, 0.001, 0.01), g.randn({4}), L{1, 1}, L{1, 1},
                                L{1, 1}, I{1}, true, 0.07, I{3}, DType::UInt8,
                                g.ints({2, 4, 6, 6}, 0, 255, DType::UInt8), 0.03, I{129}};
                  },
                  0, 1});
  rows.push_back({rq, "int8 residual added, no ReLU, 1x1",
                  [](Gen& g) {
                    return Args{g.ints({1, 6, 5, 5}, -128, 127, DType::Int8), 0.02, I{-5},
                                g.ints({8, 6, 1, 1}, -127, 127, DType::Int8),
                                g.uniform({8}, 0.001, 0.01), g.randn({8}), L{1, 1}, L{0, 0},
                                L{1, 1}, I{1}, false, 0.06, I{-2}, DType::Int8,
                                g.ints({1, 8, 5, 5}, -128, 127, DType::Int8), 0.04, I{7}};
                  },
                  0, 1});
  // XNNPACK's block end: the convolution's result quantized (int8) and dequantized, then the
  // residual added, ReLU, quantized; as uint8 after unsigned_activations.h moves it. The first
  // row's conv steps are five output steps (its rounding shows), the second's results go far
  // past the conv dtype's range (its clip shows).
  rows.push_back({rq, "conv result quantized first, int8 residual, ReLU",
                  [](Gen& g) {
                    return Args{g.ints({1, 6, 5, 5}, -128, 127, DType::Int8), 0.02, I{-5},
                                g.ints({8, 6, 3, 3}, -127, 127, DType::Int8),
                                g.uniform({8}, 0.001, 0.01), g.randn({8}), L{1, 1}, L{1, 1},
                                L{1, 1}, I{1}, true, 0.02, I{-128}, DType::Int8,
                                g.ints({1, 8, 5, 5}, -128, 127, DType::Int8), 0.04, I{7}, 0.1,
                                I{3}, DType::Int8};
                  },
                  0, 1});
  rows.push_back({rq, "conv result quantized first to uint8, uint8 residual, no ReLU",
                  [](Gen& g) {
                    return Args{g.ints({2, 4, 6, 6}, 0, 255, DType::UInt8), 0.05, I{0},
                                g.ints({8, 4, 1, 1}, -127, 127, DType::Int8),
                                g.uniform({8}, 0.001, 0.01), Value(), L{1, 1}, L{0, 0},
                                L{1, 1}, I{1}, false, 0.07, I{130}, DType::UInt8,
                                g.ints({2, 8, 6, 6}, 0, 255, DType::UInt8), 0.03, I{128}, 0.02,
                                I{120}, DType::UInt8};
                  },
                  0, 1});
  rows.push_back({rq, "conv_scale without conv_dtype refused",
                  [](Gen& g) {
                    return Args{g.ints({1, 6, 5, 5}, 0, 255, DType::UInt8), 0.02, I{0},
                                g.ints({8, 6, 1, 1}, -127, 127, DType::Int8),
                                g.uniform({8}, 0.001, 0.01), Value(), L{1, 1}, L{0, 0},
                                L{1, 1}, I{1}, true, 0.06, I{0}, DType::UInt8, Value(), 1.0,
                                I{0}, 0.05, I{3}, Value()};
                  },
                  -1, -1, true});
  rows.push_back({rq, "residual of another shape refused",
                  [](Gen& g) {
                    return Args{g.ints({1, 6, 5, 5}, 0, 255, DType::UInt8), 0.02, I{0},
                                g.ints({8, 6, 1, 1}, -127, 127, DType::Int8),
                                g.uniform({8}, 0.001, 0.01), Value(), L{1, 1}, L{0, 0},
                                L{1, 1}, I{1}, true, 0.06, I{0}, DType::UInt8,
                                g.ints({1, 8, 4, 5}, 0, 255, DType::UInt8), 0.04, I{7}};
                  },
                  -1, -1, true});
  const std::string rq_ = "xport::requantized_conv2d_";
  rows.push_back({rq_, "written over its uint8 residual",
                  [](Gen& g) {
                    return Args{g.ints({2, 8, 6, 6}, 0, 255, DType::UInt8), 0.05, I{0},
                                g.ints({4, 8, 3, 3}, -127, 127, DType::Int8),
                                g.uniform({4}, 0.001, 0.01), g.randn({4}), L{1, 1}, L{1, 1},
                                L{1, 1}, I{1}, true, 0.07, I{3}, DType::UInt8,
                                g.ints({2, 4, 6, 6}, 0, 255, DType::UInt8), 0.03, I{129}};
                  },
                  0, 1});
  const std::string qt = "xport::quantized_conv2d.tensor";
  rows.push_back({qt, "dynamic: scale and zero point as tensors",
                  [](Gen& g) {
                    return Args{g.ints({1, 3, 5, 5}, 0, 255, DType::UInt8),
                                from_vector<double>({0.031}, {1}), longs({101}),
                                g.ints({5, 3, 2, 2}, -127, 127, DType::Int8),
                                g.uniform({5}, 0.001, 0.01), g.randn({5}), L{1, 1}, L{1, 1},
                                L{1, 1}, I{1}};
                  },
                  1e-5, 1e-5});
}

void quantized_add_samples(Rows& rows) {
  // quantized_add(self, self_scale, self_zero_point, other, other_scale, other_zero_point, relu,
  //               output_scale, output_zero_point, output_dtype): exact, as the ops it fuses.
  const std::string q = "xport::quantized_add";
  rows.push_back({q, "int8, ReLU, XNNPACK's block end (odd count: the vector tail)",
                  [](Gen& g) {
                    return Args{g.ints({1, 7, 5, 11}, -128, 127, DType::Int8), 0.031, I{-12},
                                g.ints({1, 7, 5, 11}, -128, 127, DType::Int8), 0.017, I{3}, true,
                                0.05, I{-128}, DType::Int8};
                  },
                  0, 0});
  // Scales of 0.5 and 0.25 into steps of 1: a quarter of the sums lie halfway between two steps,
  // which round half to even.
  rows.push_back({q, "uint8, no ReLU, ties between steps",
                  [](Gen& g) {
                    return Args{g.ints({4, 96}, 0, 255, DType::UInt8), 0.5, I{128},
                                g.ints({4, 96}, 0, 255, DType::UInt8), 0.25, I{7}, false, 1.0,
                                I{100}, DType::UInt8};
                  },
                  0, 0});
  rows.push_back({q, "uint8 and int8 into int8, saturating",
                  [](Gen& g) {
                    return Args{g.ints({3, 33}, 0, 255, DType::UInt8), 0.2, I{0},
                                g.ints({3, 33}, -128, 127, DType::Int8), 0.3, I{5}, false, 0.01,
                                I{0}, DType::Int8};
                  },
                  0, 0});
  rows.push_back({q, "operands of two shapes refused (no broadcasting)",
                  [](Gen& g) {
                    return Args{g.ints({2, 8}, 0, 255, DType::UInt8), 0.2, I{0},
                                g.ints({1, 8}, 0, 255, DType::UInt8), 0.3, I{5}, false, 0.1,
                                I{0}, DType::UInt8};
                  },
                  -1, -1, true});
  rows.push_back({q, "float operand refused",
                  [](Gen& g) {
                    return Args{g.randn({2, 8}), 0.2, I{0},
                                g.ints({2, 8}, 0, 255, DType::UInt8), 0.3, I{5}, false, 0.1,
                                I{0}, DType::UInt8};
                  },
                  -1, -1, true});
}

void quantized_lookup_samples(Rows& rows) {
  // quantized_lookup(self, table): table[self], int8 self offset by 128.
  const std::string q = "xport::quantized_lookup";
  rows.push_back({q, "int8 values, int8 table (odd count: the vector tail)",
                  [](Gen& g) {
                    return Args{g.ints({3, 67}, -128, 127, DType::Int8),
                                g.ints({256}, -128, 127, DType::Int8)};
                  },
                  0, 0});
  rows.push_back({q, "uint8 values, uint8 table, every value once and more",
                  [](Gen& g) {
                    return Args{g.ints({2, 4, 129}, 0, 255, DType::UInt8),
                                g.ints({256}, 0, 255, DType::UInt8)};
                  },
                  0, 0});
  rows.push_back({q, "uint8 values into an int8 table",
                  [](Gen& g) {
                    return Args{g.ints({130}, 0, 255, DType::UInt8),
                                g.ints({256}, -128, 127, DType::Int8)};
                  },
                  0, 0});
  rows.push_back({q, "a table of 255 refused",
                  [](Gen& g) {
                    return Args{g.ints({8}, 0, 255, DType::UInt8),
                                g.ints({255}, 0, 255, DType::UInt8)};
                  },
                  -1, -1, true});
}

}  // namespace

Rows quant_samples() {
  Rows rows;
  quantize_per_tensor_samples(rows);
  dequantize_per_tensor_samples(rows);
  per_channel_samples(rows);
  per_channel_group_samples(rows);
  choose_qparams_samples(rows);
  weight_only_linear_samples(rows);
  bf16_linear_samples(rows);
  quantized_linear_samples(rows);
  quantized_conv2d_samples(rows);
  quantized_add_samples(rows);
  quantized_lookup_samples(rows);
  return rows;
}

}  // namespace xport::testing
