#pragma once
// A program as PyTorch's PT2E convert_pt2e writes one (float ops between quantize_decomposed
// calls, int8 weights with per-channel scales), in both of the spellings the quantized fusion
// takes, and both kinds of quantization:
//
//   x: f32[s0, 8, 8, 8]    s0 in [1, 64]
//   conv1: int8 [32, 8, 3, 3], static: dequantize(quantize(x)) -> convolution -> relu ->
//          quantize                          one xport::requantized_conv2d
//   conv1b: int8 [32, 32, 3, 3], static, of conv1's result -> relu -> quantize
//   block: int8 [32, 32, 3, 3], static: convolution of conv1b's result, add_ (in place, as the
//          training IR keeps `+=`) of conv1's result dequantized, relu, quantize: one
//          requantized_conv2d with its residual, written over it (its last reader); the
//          results of conv1, conv1b and the block stay NHWC (integer convolutions read them)
//   conv2: int8 [16, 32, 3, 3], static: dequantize -> convolution (no bias)   quantized_conv2d
//   fc:    int8 [10, 1024], dynamic: choose_qparams -> quantize.tensor -> dequantize.tensor,
//          addmm(bias, view(...), permute(dequantize_per_channel(fc))) (core ATen's linear)
//                                                                        quantized_linear.tensor
//   return (fc's result,)
// Weights are large enough (over 4 KiB as float32) not to be folded to float at load.

#include <cstdint>
#include <vector>

#include "runtime/graph_building.h"

namespace xport::test_support {

inline ExportedProgram quantized_program() {
  using ir::Argument;
  using B = GraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  GraphBuilder builder;
  ir::Graph& g = builder.graph;
  const auto int8_weights = [](std::vector<int64_t> sizes, uint64_t seed) {
    return clamp(randn(sizes, seed) * 40.0, -127, 127).to(DType::Int8);
  };
  const auto scales = [](int64_t n, uint64_t seed) {
    return randn({n}, seed).abs() * 0.002 + 0.001;
  };
  const ir::ValueRef w1 = builder.parameter("conv1.weight", int8_weights({32, 8, 3, 3}, 1));
  const ir::ValueRef s1 = builder.parameter("conv1.scales", scales(32, 2));
  const ir::ValueRef z1 = builder.parameter("conv1.zero_points", zeros({32}, DType::Int64));
  const ir::ValueRef b1 = builder.parameter("conv1.bias", randn({32}, 3) * 0.1);
  const ir::ValueRef wa = builder.parameter("conv1b.weight", int8_weights({32, 32, 3, 3}, 11));
  const ir::ValueRef sa = builder.parameter("conv1b.scales", scales(32, 12));
  const ir::ValueRef wb = builder.parameter("block.weight", int8_weights({32, 32, 3, 3}, 9));
  const ir::ValueRef sb = builder.parameter("block.scales", scales(32, 10));
  const ir::ValueRef w2 = builder.parameter("conv2.weight", int8_weights({16, 32, 3, 3}, 4));
  const ir::ValueRef s2 = builder.parameter("conv2.scales", scales(16, 5));
  const ir::ValueRef w3 = builder.parameter("fc.weight", int8_weights({10, 1024}, 6));
  const ir::ValueRef s3 = builder.parameter("fc.scales", scales(10, 7));
  const ir::ValueRef b3 = builder.parameter("fc.bias", randn({10}, 8) * 0.1);
  std::vector<InputContract> contract;
  const ir::ValueRef x = builder.user_input("x", {s0, B::n(8), B::n(8), B::n(8)}, contract);
  const auto specs = [](DType dtype, std::vector<sym::ExprPtr> sizes) {
    return ir::TensorSpec::contiguous(dtype, std::move(sizes));
  };
  const auto call = [&](const char* op, std::vector<Argument> args, ir::TensorSpec spec) {
    return g.add_call(find_op(op), std::move(args), {std::move(spec)})->out();
  };
  const std::vector<sym::ExprPtr> image = {s0, B::n(8), B::n(8), B::n(8)};
  const auto u8 = [](double scale, int64_t zero_point) {
    return std::vector<Argument>{scale, Argument(zero_point), Argument(0), Argument(255),
                                 DType::UInt8};
  };
  const auto with = [](std::vector<Argument> head, const std::vector<Argument>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  const auto per_channel = [&](const ir::ValueRef& w, const ir::ValueRef& s, Argument z,
                               std::vector<sym::ExprPtr> sizes) {
    return call("quantized_decomposed::dequantize_per_channel",
                {w, s, std::move(z), Argument(0), Argument(-128), Argument(127), DType::Int8,
                 Argument()},
                specs(DType::Float32, std::move(sizes)));
  };
  const auto conv = [&](const ir::ValueRef& in, const ir::ValueRef& w, Argument bias,
                        std::vector<sym::ExprPtr> sizes) {
    const std::vector<Argument> one = {Argument(1), Argument(1)};
    return call("aten::convolution",
                {in, w, std::move(bias), one, one, one, false,
                 std::vector<Argument>{Argument(0), Argument(0)}, Argument(1)},
                specs(DType::Float32, std::move(sizes)));
  };
  // conv1 -> relu -> quantize
  const char* quantize = "quantized_decomposed::quantize_per_tensor";
  const char* dequantize = "quantized_decomposed::dequantize_per_tensor";
  const ir::ValueRef q0 = call(quantize, with({x}, u8(0.02, 128)), specs(DType::UInt8, image));
  const ir::ValueRef d0 = call(dequantize, with(with({q0}, u8(0.02, 128)), {Argument()}),
                               specs(DType::Float32, image));
  const std::vector<sym::ExprPtr> wide = {s0, B::n(32), B::n(8), B::n(8)};
  const ir::ValueRef c1 =
      conv(d0, per_channel(w1, s1, z1, {B::n(32), B::n(8), B::n(3), B::n(3)}), b1, wide);
  const ir::ValueRef r1 = call("aten::relu", {c1}, specs(DType::Float32, wide));
  const ir::ValueRef q1 = call(quantize, with({r1}, u8(0.03, 0)), specs(DType::UInt8, wide));
  // conv1b -> relu -> quantize; block: conv, add_ of q1 dequantized, relu, quantize
  const ir::ValueRef d1 = call(dequantize, with(with({q1}, u8(0.03, 0)), {Argument()}),
                               specs(DType::Float32, wide));
  const ir::ValueRef ca =
      conv(d1, per_channel(wa, sa, Argument(), {B::n(32), B::n(32), B::n(3), B::n(3)}),
           Argument(), wide);
  const ir::ValueRef ra = call("aten::relu", {ca}, specs(DType::Float32, wide));
  const ir::ValueRef qa = call(quantize, with({ra}, u8(0.05, 0)), specs(DType::UInt8, wide));
  const ir::ValueRef da = call(dequantize, with(with({qa}, u8(0.05, 0)), {Argument()}),
                               specs(DType::Float32, wide));
  const ir::ValueRef cb =
      conv(da, per_channel(wb, sb, Argument(), {B::n(32), B::n(32), B::n(3), B::n(3)}),
           Argument(), wide);
  const ir::ValueRef db = call(dequantize, with(with({q1}, u8(0.03, 0)), {Argument()}),
                               specs(DType::Float32, wide));
  const ir::ValueRef added =
      call("aten::add_.Tensor", {cb, db, Argument(1)}, specs(DType::Float32, wide));
  const ir::ValueRef rb = call("aten::relu", {added}, specs(DType::Float32, wide));
  const ir::ValueRef qb = call(quantize, with({rb}, u8(0.04, 0)), specs(DType::UInt8, wide));
  // conv2, float result
  const ir::ValueRef d2 = call(dequantize, with(with({qb}, u8(0.04, 0)), {Argument()}),
                               specs(DType::Float32, wide));
  const std::vector<sym::ExprPtr> narrow = {s0, B::n(16), B::n(8), B::n(8)};
  const ir::ValueRef c2 =
      conv(d2, per_channel(w2, s2, Argument(), {B::n(16), B::n(32), B::n(3), B::n(3)}), Argument(),
           narrow);
  // fc, dynamically quantized, in core ATen's spelling
  const std::vector<sym::ExprPtr> flat = {s0, B::n(1024)};
  const ir::ValueRef f = call("aten::view", {c2, std::vector<Argument>{s0, Argument(1024)}},
                              specs(DType::Float32, flat));
  const ir::Node* qparams =
      g.add_call(find_op("quantized_decomposed::choose_qparams.tensor"),
                 {f, Argument(0), Argument(255), 1.1920928955078125e-07, DType::UInt8},
                 {specs(DType::Float64, {B::n(1)}), specs(DType::Int64, {B::n(1)})});
  const std::vector<Argument> dynamic = {qparams->out(0), qparams->out(1), Argument(0),
                                         Argument(255), DType::UInt8};
  const ir::ValueRef qf = call("quantized_decomposed::quantize_per_tensor.tensor",
                               with({f}, dynamic), specs(DType::UInt8, flat));
  const ir::ValueRef df =
      call("quantized_decomposed::dequantize_per_tensor.tensor",
           with(with({qf}, dynamic), {Argument()}), specs(DType::Float32, flat));
  const ir::ValueRef dw3 = per_channel(w3, s3, Argument(), {B::n(10), B::n(1024)});
  const ir::ValueRef t3 =
      g.add_call(find_op("aten::permute"), {dw3, std::vector<Argument>{Argument(1), Argument(0)}},
                 {ir::TensorSpec{DType::Float32, {B::n(1024), B::n(10)}, {B::n(1), B::n(1024)},
                                 nullptr}})
          ->out();
  const ir::ValueRef y = call("aten::addmm", {b3, df, t3, Argument(1), Argument(1)},
                              specs(DType::Float32, {s0, B::n(10)}));
  builder.outputs({y});
  return ExportedProgram(std::move(builder.graph), std::move(builder.signature), contract,
                         {SymbolSpec{"s0", "x.size(0)", "batch", sym::Range{1, 64}, false}},
                         std::move(builder.state));
}

}  // namespace xport::test_support
