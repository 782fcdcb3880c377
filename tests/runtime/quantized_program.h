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
#include "xport/ops/functions.h"

namespace xport::test_support {

/// What PT2E's programs are built of: int8 weights with per-channel scales, their dequantize,
/// convolutions, and quantize / dequantize pairs over a whole 8-bit range.
struct QuantizedGraphBuilder : GraphBuilder {
  using Argument = ir::Argument;
  using Sizes = std::vector<sym::ExprPtr>;

  static Tensor int8_weights(std::vector<int64_t> sizes, uint64_t seed) {
    return clamp(randn(sizes, seed) * 40.0, -127, 127).to(DType::Int8);
  }
  static Tensor scales(int64_t n, uint64_t seed) { return randn({n}, seed).abs() * 0.002 + 0.001; }
  static ir::TensorSpec specs(DType dtype, Sizes sizes) {
    return ir::TensorSpec::contiguous(dtype, std::move(sizes));
  }
  /// Arguments scale, zero_point, quant_min, quant_max, dtype of a whole 8-bit range.
  static std::vector<Argument> range(double scale, int64_t zero_point, DType dtype) {
    const bool u8 = dtype == DType::UInt8;
    return {scale, Argument(zero_point), Argument(u8 ? 0 : -128), Argument(u8 ? 255 : 127),
            dtype};
  }
  static std::vector<Argument> with(std::vector<Argument> head, const std::vector<Argument>& tail) {
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  }

  ir::ValueRef call(const char* op, std::vector<Argument> args, ir::TensorSpec spec) {
    return graph.add_call(find_op(op), std::move(args), {std::move(spec)})->out();
  }
  ir::ValueRef per_channel(const ir::ValueRef& w, const ir::ValueRef& s, Argument z, Sizes sizes) {
    return call("quantized_decomposed::dequantize_per_channel",
                {w, s, std::move(z), Argument(0), Argument(-128), Argument(127), DType::Int8,
                 Argument()},
                specs(DType::Float32, std::move(sizes)));
  }
  /// int8 weights [out, in, 3, 3] and their scales made from `seed` (parameters: make them
  /// before the user inputs).
  struct ConvWeights {
    ir::ValueRef weight, scales;
    int64_t out_channels, in_channels;
  };
  ConvWeights conv_weights(const std::string& name, int64_t out_channels, int64_t in_channels,
                           uint64_t seed) {
    return {parameter(name + ".weight", int8_weights({out_channels, in_channels, 3, 3}, seed)),
            parameter(name + ".scales", scales(out_channels, seed + 1)), out_channels,
            in_channels};
  }
  /// A 3x3 convolution (stride 1, padding 1) of `in` by the weights dequantized per channel.
  ir::ValueRef conv3x3(const ir::ValueRef& in, const ConvWeights& w, Argument bias,
                       const Sizes& out_sizes) {
    const ir::ValueRef dw = per_channel(w.weight, w.scales, Argument(),
                                        {n(w.out_channels), n(w.in_channels), n(3), n(3)});
    const std::vector<Argument> one = {Argument(1), Argument(1)};
    return call("aten::convolution",
                {in, dw, std::move(bias), one, one, one, false,
                 std::vector<Argument>{Argument(0), Argument(0)}, Argument(1)},
                specs(DType::Float32, out_sizes));
  }
  ir::ValueRef quantize(const ir::ValueRef& x, double scale, int64_t zero_point, DType dtype,
                        const Sizes& sizes) {
    return call("quantized_decomposed::quantize_per_tensor",
                with({x}, range(scale, zero_point, dtype)), specs(dtype, sizes));
  }
  ir::ValueRef dequantize(const ir::ValueRef& q, double scale, int64_t zero_point, DType dtype,
                          const Sizes& sizes) {
    return call("quantized_decomposed::dequantize_per_tensor",
                with(with({q}, range(scale, zero_point, dtype)), {Argument()}),
                specs(DType::Float32, sizes));
  }
};

inline ExportedProgram quantized_program() {
  using ir::Argument;
  using B = QuantizedGraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  B builder;
  ir::Graph& g = builder.graph;
  const ir::ValueRef w1 = builder.parameter("conv1.weight", B::int8_weights({32, 8, 3, 3}, 1));
  const ir::ValueRef s1 = builder.parameter("conv1.scales", B::scales(32, 2));
  const ir::ValueRef z1 = builder.parameter("conv1.zero_points", zeros({32}, DType::Int64));
  const ir::ValueRef b1 = builder.parameter("conv1.bias", randn({32}, 3) * 0.1);
  const B::ConvWeights wa = builder.conv_weights("conv1b", 32, 32, 11);
  const B::ConvWeights wb = builder.conv_weights("block", 32, 32, 9);
  const B::ConvWeights w2 = builder.conv_weights("conv2", 16, 32, 4);
  const ir::ValueRef w3 = builder.parameter("fc.weight", B::int8_weights({10, 1024}, 6));
  const ir::ValueRef s3 = builder.parameter("fc.scales", B::scales(10, 7));
  const ir::ValueRef b3 = builder.parameter("fc.bias", randn({10}, 8) * 0.1);
  std::vector<InputContract> contract;
  const ir::ValueRef x = builder.user_input("x", {s0, B::n(8), B::n(8), B::n(8)}, contract);
  const auto specs = B::specs;
  const auto call = [&](const char* op, std::vector<Argument> args, ir::TensorSpec spec) {
    return builder.call(op, std::move(args), std::move(spec));
  };
  const std::vector<sym::ExprPtr> image = {s0, B::n(8), B::n(8), B::n(8)};
  const DType u8 = DType::UInt8;
  // conv1 -> relu -> quantize
  const ir::ValueRef q0 = builder.quantize(x, 0.02, 128, u8, image);
  const ir::ValueRef d0 = builder.dequantize(q0, 0.02, 128, u8, image);
  const std::vector<sym::ExprPtr> wide = {s0, B::n(32), B::n(8), B::n(8)};
  const std::vector<Argument> one = {Argument(1), Argument(1)};
  const ir::ValueRef c1 = call(
      "aten::convolution",
      {d0, builder.per_channel(w1, s1, z1, {B::n(32), B::n(8), B::n(3), B::n(3)}), b1, one, one,
       one, false, std::vector<Argument>{Argument(0), Argument(0)}, Argument(1)},
      specs(DType::Float32, wide));
  const ir::ValueRef r1 = call("aten::relu", {c1}, specs(DType::Float32, wide));
  const ir::ValueRef q1 = builder.quantize(r1, 0.03, 0, u8, wide);
  // conv1b -> relu -> quantize; block: conv, add_ of q1 dequantized, relu, quantize
  const ir::ValueRef d1 = builder.dequantize(q1, 0.03, 0, u8, wide);
  const ir::ValueRef ca = builder.conv3x3(d1, wa, Argument(), wide);
  const ir::ValueRef ra = call("aten::relu", {ca}, specs(DType::Float32, wide));
  const ir::ValueRef qa = builder.quantize(ra, 0.05, 0, u8, wide);
  const ir::ValueRef da = builder.dequantize(qa, 0.05, 0, u8, wide);
  const ir::ValueRef cb = builder.conv3x3(da, wb, Argument(), wide);
  const ir::ValueRef db = builder.dequantize(q1, 0.03, 0, u8, wide);
  const ir::ValueRef added =
      call("aten::add_.Tensor", {cb, db, Argument(1)}, specs(DType::Float32, wide));
  const ir::ValueRef rb = call("aten::relu", {added}, specs(DType::Float32, wide));
  const ir::ValueRef qb = builder.quantize(rb, 0.04, 0, u8, wide);
  // conv2, float result
  const ir::ValueRef d2 = builder.dequantize(qb, 0.04, 0, u8, wide);
  const std::vector<sym::ExprPtr> narrow = {s0, B::n(16), B::n(8), B::n(8)};
  const ir::ValueRef c2 = builder.conv3x3(d2, w2, Argument(), narrow);
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
                               B::with({f}, dynamic), specs(DType::UInt8, flat));
  const ir::ValueRef df =
      call("quantized_decomposed::dequantize_per_tensor.tensor",
           B::with(B::with({qf}, dynamic), {Argument()}), specs(DType::Float32, flat));
  const ir::ValueRef dw3 = builder.per_channel(w3, s3, Argument(), {B::n(10), B::n(1024)});
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

/// XNNPACKQuantizer's residual blocks (int8 activations, each convolution quantizing its own
/// result, then the sum of two dequantized values quantized again):
///
///   x: f32[s0, 8, 8, 8]    s0 in [1, 64]
///   conv1 [32, 8]: quantize(x) -> dequantize -> convolution -> relu -> quantize     t1
///   dequantize(t1) -> max_pool2d(3, stride 1, padding 1) -> quantize as t1           p1
///   conv2 [32, 32] of p1 -> quantize; add_(its dequantize, t1's) -> relu -> quantize  t2
///   conv3 [32, 32] of t2 -> quantize; add(its dequantize, t2's) -> quantize to uint8  t3
///   dequantize(t3) -> dropout(train=False) -> quantize as t3 -> dequantize -> gelu ->
///     quantize to int8                                                                 t4
///   conv4 [16, 32] of t4, float result
///   return (conv4's result,), or (conv4's result, t1 dequantized) with `t1_out`
///
/// The first add goes into conv2's post-ops (t1 its residual); the second, its sum of another
/// dtype than its operands, becomes xport::quantized_add. The dropout goes
/// (quantize(dequantize(t3)) is t3), and the GELU between a dequantize and a quantize becomes
/// a table of 256 values (xport::quantized_lookup); the pool runs on the integers. t1 to t4,
/// p1 and conv3's result stay NHWC (only integer convolutions, the pool, the quantized add and
/// the lookup read them). With t1 an output, t1 and p1 are NCHW.
inline ExportedProgram xnnpack_block_program(bool t1_out = false) {
  using ir::Argument;
  using B = QuantizedGraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  B b;
  std::vector<InputContract> contract;
  const std::vector<sym::ExprPtr> image = {s0, B::n(8), B::n(8), B::n(8)};
  const std::vector<sym::ExprPtr> wide = {s0, B::n(32), B::n(8), B::n(8)};
  const std::vector<sym::ExprPtr> narrow = {s0, B::n(16), B::n(8), B::n(8)};
  const DType i8 = DType::Int8;
  const B::ConvWeights w1 = b.conv_weights("conv1", 32, 8, 1);
  const ir::ValueRef bias = b.parameter("conv1.bias", randn({32}, 3) * 0.1);
  const B::ConvWeights w2 = b.conv_weights("conv2", 32, 32, 11);
  const B::ConvWeights w3 = b.conv_weights("conv3", 32, 32, 21);
  const B::ConvWeights w4 = b.conv_weights("conv4", 16, 32, 31);
  const ir::ValueRef x = b.user_input("x", image, contract);
  const ir::ValueRef d0 = b.dequantize(b.quantize(x, 0.02, 0, i8, image), 0.02, 0, i8, image);
  const ir::ValueRef c1 = b.conv3x3(d0, w1, bias, wide);
  const ir::ValueRef t1 =
      b.quantize(b.call("aten::relu", {c1}, B::specs(DType::Float32, wide)), 0.03, -128, i8, wide);
  const std::vector<Argument> three = {Argument(3), Argument(3)}, one = {Argument(1), Argument(1)};
  const ir::ValueRef pooled = b.quantize(
      b.call("aten::max_pool2d",
             {b.dequantize(t1, 0.03, -128, i8, wide), three, one, one, one, Argument(false)},
             B::specs(DType::Float32, wide)),
      0.03, -128, i8, wide);
  const ir::ValueRef c2 =
      b.conv3x3(b.dequantize(pooled, 0.03, -128, i8, wide), w2, Argument(), wide);
  const ir::ValueRef q2 = b.quantize(c2, 0.05, 3, i8, wide);
  const ir::ValueRef sum1 = b.call(
      "aten::add_.Tensor",
      {b.dequantize(q2, 0.05, 3, i8, wide), b.dequantize(t1, 0.03, -128, i8, wide), Argument(1)},
      B::specs(DType::Float32, wide));
  const ir::ValueRef t2 =
      b.quantize(b.call("aten::relu", {sum1}, B::specs(DType::Float32, wide)), 0.04, -128, i8,
                 wide);
  const ir::ValueRef c3 =
      b.conv3x3(b.dequantize(t2, 0.04, -128, i8, wide), w3, Argument(), wide);
  const ir::ValueRef q3 = b.quantize(c3, 0.06, -5, i8, wide);
  const ir::ValueRef sum2 = b.call(
      "aten::add.Tensor",
      {b.dequantize(q3, 0.06, -5, i8, wide), b.dequantize(t2, 0.04, -128, i8, wide), Argument(1)},
      B::specs(DType::Float32, wide));
  const DType u8 = DType::UInt8;
  const ir::ValueRef t3 = b.quantize(sum2, 0.05, 130, u8, wide);
  const ir::ValueRef kept = b.call("aten::dropout",
                                   {b.dequantize(t3, 0.05, 130, u8, wide), 0.1, Argument(false)},
                                   B::specs(DType::Float32, wide));
  const ir::ValueRef t3_again = b.quantize(kept, 0.05, 130, u8, wide);
  const ir::ValueRef gelu =
      b.call("aten::gelu", {b.dequantize(t3_again, 0.05, 130, u8, wide), std::string("none")},
             B::specs(DType::Float32, wide));
  const ir::ValueRef t4 = b.quantize(gelu, 0.02, -100, i8, wide);
  const ir::ValueRef c4 =
      b.conv3x3(b.dequantize(t4, 0.02, -100, i8, wide), w4, Argument(), narrow);
  if (t1_out) {
    b.outputs({c4, b.dequantize(t1, 0.03, -128, i8, wide)});
  } else {
    b.outputs({c4});
  }
  return ExportedProgram(std::move(b.graph), std::move(b.signature), contract,
                         {SymbolSpec{"s0", "x.size(0)", "batch", sym::Range{1, 64}, false}},
                         std::move(b.state));
}

}  // namespace xport::test_support
