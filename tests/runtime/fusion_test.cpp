// Load-time fusion: convolutions absorb the batch norm, residual add and ReLU after them and run
// on packed weights; results stay within float rounding of the unfused graph.
#include <gtest/gtest.h>

#include <thread>

#include "kernels/cpu/cpu_isa.h"
#include "runtime/conv_block_program.h"
#include "runtime/gelu_program.h"
#include "runtime/linear_program.h"
#include "runtime/pointwise_program.h"
#include "runtime/quantized_program.h"
#include "runtime/training_ir_program.h"
#include "serde/round_trip.h"
#include "xport/ops/functions.h"
#include "xport/runtime.h"

namespace xport {
namespace {

using runtime::Options;
using runtime::Program;

#if defined(__SANITIZE_THREAD__)
constexpr int kKernelThreads = 1;  // libgomp is not instrumented for ThreadSanitizer
#else
constexpr int kKernelThreads = 2;
#endif

Options with_fusion(bool fuse) {
  Options o;
  o.num_threads = kKernelThreads;
  o.fuse = fuse;
  return o;
}

// max |a - b| / max |b| over every output.
double worst_relative_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double scale = b[i].abs().max().item<float>();
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<float>() / scale);
  }
  return worst;
}

TEST(RuntimeFusion, StaysWithinRoundingOfTheUnfusedGraph) {
  const Program fused =
      Program::from_exported(test_support::conv_block_program(), with_fusion(true));
  const Program unfused =
      Program::from_exported(test_support::conv_block_program(), with_fusion(false));
  for (int64_t batch : {1, 3, 64}) {
    const Tensor x = randn({batch, 8, 10, 10}, 10 + static_cast<uint64_t>(batch));
    const std::vector<Tensor> want = unfused.run({x});
    const std::vector<Tensor> got = fused.run({x});
    ASSERT_EQ(got.size(), 4u);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].int_sizes(), want[i].int_sizes()) << "output " << i;
    }
    EXPECT_LT(worst_relative_difference(got, want), 1e-5) << "batch " << batch;
    // The unfused runtime is the program itself, bit for bit.
    const std::vector<Tensor> program = fused.program().run({x});
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(0, (want[i] - program[i]).abs().max().item<float>()) << "output " << i;
    }
  }
}

TEST(RuntimeFusion, AbsorbsEveryPatternAndLeavesGraphOutputsAlone) {
  const Program fused =
      Program::from_exported(test_support::conv_block_program(), with_fusion(true));
  const Program unfused =
      Program::from_exported(test_support::conv_block_program(), with_fusion(false));
  const std::vector<Value> in = {randn({2, 8, 10, 10}, 7)};
  const runtime::PlanStats f = fused.plan_stats(in);
  const runtime::PlanStats u = unfused.plan_stats(in);
  // Unfused: 4 convolutions, 2 batch norms, 2 adds, 4 ReLUs. Fused: the 4 convolutions and the
  // ReLU of c3, which cannot be absorbed because c3 itself is returned. r1 reaches only
  // convolutions (conv2's input, conv4's input and residual), so it stays channels-last.
  EXPECT_EQ(u.kernel_steps, 12);
  EXPECT_EQ(f.kernel_steps, 5);
  EXPECT_EQ(f.fusion,
            "4 convolutions on packed weights (2 batch norms folded in, 2 residual adds and 3 "
            "ReLUs in their epilogues, 0 written over their residual; 1 results passed on in "
            "oneDNN's layout)");
  EXPECT_EQ(u.fusion, "");
  EXPECT_LE(f.arena_bytes, u.arena_bytes);
}

// ResNet's stem pool between convolutions pools their layout as it is (oneDNN's channel blocks,
// or channels-last): no reorder out of it and back.
TEST(RuntimeFusion, MaxPoolBetweenConvolutionsKeepsTheirLayout) {
  for (int64_t channels : {16, 12}) {
    SCOPED_TRACE(std::to_string(channels) + " channels");
    const Program fused = Program::from_exported(
        test_support::pool_between_convolutions_program(channels), with_fusion(true));
    const Program unfused = Program::from_exported(
        test_support::pool_between_convolutions_program(channels), with_fusion(false));
    for (int64_t batch : {1, 5}) {
      const Tensor x = randn({batch, channels, 12, 12}, 30 + static_cast<uint64_t>(batch));
      EXPECT_LT(worst_relative_difference(fused.run({x}), unfused.run({x})), 1e-5)
          << "batch " << batch;
    }
    EXPECT_EQ(fused.plan_stats({randn({2, channels, 12, 12}, 1)}).fusion,
              "3 convolutions on packed weights (0 batch norms folded in, 0 residual adds and 1 "
              "ReLUs in their epilogues, 0 written over their residual; 1 results passed on in "
              "oneDNN's layout); 1 max pools in the convolutions' layout");
  }
}

TEST(RuntimeFusion, ThreadsShareThePackedWeights) {
  const Program fused =
      Program::from_exported(test_support::conv_block_program(), with_fusion(true));
  const Tensor x = randn({4, 8, 10, 10}, 3);
  const std::vector<Tensor> want = fused.run({x});
  constexpr int kThreads = 4, kRuns = 20;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Half the threads start with a new batch size, so packing races with running.
      const Tensor mine = t % 2 ? randn({1 + t, 8, 10, 10}, 40 + t) : x;
      for (int r = 0; r < kRuns; ++r) {
        const std::vector<Tensor> got = fused.run({mine});
        if (t % 2 == 0) {
          for (size_t i = 0; i < got.size(); ++i) {
            mismatches[t] += (got[i] - want[i]).abs().max().item<float>() != 0;
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(RuntimeFusion, MatrixProductsWithConstantWeightsRunPacked) {
  const Program fused = Program::from_exported(test_support::linear_program(), with_fusion(true));
  const Program unfused =
      Program::from_exported(test_support::linear_program(), with_fusion(false));
  const Tensor w = randn({8, 16}, 5);
  for (int64_t batch : {1, 7, 256}) {
    const std::vector<Tensor> in = {randn({batch, 16}, 20 + static_cast<uint64_t>(batch)), w};
    const std::vector<Tensor> want = unfused.run(in);
    const std::vector<Tensor> got = fused.run(in);
    ASSERT_EQ(got.size(), 4u);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].int_sizes(), want[i].int_sizes()) << "output " << i;
    }
    EXPECT_LT(worst_relative_difference(got, want), 1e-5) << "batch " << batch;
  }
  // Fused: addmm + view + gelu (tanh), and mm + gelu on a sliced transposed weight. Left alone:
  // the beta = 2 addmm with its relu, and mm by a weight given as an input.
  const runtime::PlanStats f = fused.plan_stats({randn({3, 16}, 1), w});
  // t(w1), t(w2) and its slice are views of weights: folded at load, not run per call.
  // The transpose of the weight given as an input (a composite op) becomes a permute.
  EXPECT_EQ(f.fusion,
            "3 calls on constants folded; 2 matrix products on packed weights (2 activations in "
            "their epilogues); 1 composite ops expanded into the calls they make");
  EXPECT_EQ(f.composite_steps, 0);
  EXPECT_EQ(f.kernel_steps, 5);  // 2 fused products, addmm, relu, mm
  EXPECT_EQ(unfused.plan_stats({randn({3, 16}, 1), w}).kernel_steps, 7);
}

// PyTorch's training IR keeps composite ops (aten::linear, aten::conv2d, aten::batch_norm):
// unfused, each runs as its decomposition, a step of the plan; fused, they run on packed
// weights as the core IR's products and convolutions do.
TEST(RuntimeFusion, PyTorchsCompositeLinearAndConvolutionRunPacked) {
  const Program fused =
      Program::from_exported(test_support::training_ir_program(), with_fusion(true));
  const Program unfused =
      Program::from_exported(test_support::training_ir_program(), with_fusion(false));
  for (int64_t batch : {1, 5, 64}) {
    const auto seed = static_cast<uint64_t>(batch);
    const std::vector<Tensor> in = {randn({1, batch, 16}, 30 + seed),
                                    randn({batch, 3, 6, 6}, 40 + seed)};
    const std::vector<Tensor> want = unfused.run(in);
    const std::vector<Tensor> got = fused.run(in);
    ASSERT_EQ(got.size(), 2u);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].int_sizes(), want[i].int_sizes()) << "output " << i;
    }
    EXPECT_LT(worst_relative_difference(got, want), 1e-5) << "batch " << batch;
    // Unfused, the runtime gives what the program's own eager run gives, bit for bit.
    const std::vector<Tensor> program =
        fused.program().run(std::vector<Value>(in.begin(), in.end()));
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(0, (want[i] - program[i]).abs().max().item<float>()) << "output " << i;
    }
  }
  const std::vector<Value> in = {randn({1, 3, 16}, 1), randn({3, 3, 6, 6}, 2)};
  const runtime::PlanStats u = unfused.plan_stats(in);
  EXPECT_TRUE(u.planned) << u.unplanned_reason;
  EXPECT_EQ(u.composite_steps, 5);  // two linears, the convolutions and the batch norm
  const runtime::PlanStats f = fused.plan_stats(in);
  EXPECT_EQ(f.composite_steps, 0) << f.str();
  // The transpose of x (a composite op, PyTorch's aten::transpose.int) becomes a permute.
  // The add_ and relu_ that update the batch norm's result go into its convolution's epilogue.
  EXPECT_EQ(f.fusion,
            "2 convolutions on packed weights (1 batch norms folded in, 1 residual adds and 1 "
            "ReLUs in their epilogues, 0 written over their residual; 1 results passed on in "
            "oneDNN's layout); 2 matrix products on packed weights (1 activations in their "
            "epilogues); 1 composite ops expanded into the calls they make");
}

TEST(RuntimeFusion, ElementwiseChainsRunInOnePassWithTheOpsOwnResults) {
  const Program fused =
      Program::from_exported(test_support::pointwise_program(), with_fusion(true));
  const Program unfused =
      Program::from_exported(test_support::pointwise_program(), with_fusion(false));
  // 3000 x 16 elements: three chunks of 16384, the last one partial.
  for (int64_t batch : {1, 3, 3000}) {
    const std::vector<Tensor> in = {randn({batch, 16}, 30 + static_cast<uint64_t>(batch)),
                                    randn({batch, 16}, 31)};
    const std::vector<Tensor> want = unfused.run(in);
    const std::vector<Tensor> got = fused.run(in);
    ASSERT_EQ(got.size(), 3u);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(test_support::bitwise_equal(got[i], want[i]))
          << "output " << i << " batch " << batch;
    }
  }
  const std::vector<Value> in = {randn({3, 16}, 1), randn({3, 16}, 2)};
  const runtime::PlanStats f = fused.plan_stats(in);
  EXPECT_EQ(f.fusion, "2 chains of elementwise ops in one pass (6 ops)");
  EXPECT_EQ(f.kernel_steps, 5);  // the two chains, the broadcasting add, tanh, k * k
  EXPECT_EQ(unfused.plan_stats(in).kernel_steps, 9);
}

// GELU written out (Hugging Face's gelu_new in GPT-2, the erf form) runs as one aten::gelu, in
// the epilogue of the product before it; a formula with another constant, or one whose input
// is updated in place halfway, is left as it is.
TEST(RuntimeFusion, GeluWrittenOutElementwiseRunsAsOneGelu) {
  const Program fused = Program::from_exported(test_support::gelu_program(), with_fusion(true));
  const Program unfused =
      Program::from_exported(test_support::gelu_program(), with_fusion(false));
  for (int64_t batch : {1, 7, 512}) {
    const Tensor x = randn({batch, 16}, 50 + static_cast<uint64_t>(batch)) * 2.0;
    const std::vector<Tensor> want = unfused.run({x});
    const std::vector<Tensor> got = fused.run({x});
    ASSERT_EQ(got.size(), 4u);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].int_sizes(), want[i].int_sizes()) << "output " << i;
      const double scale = want[i].abs().max().item<float>();
      EXPECT_LT((got[i] - want[i]).abs().max().item<float>() / scale, 1e-6)
          << "output " << i << " batch " << batch;
    }
    // The formulas are GELU: PyTorch's own gelu of the same values, within float rounding.
    EXPECT_LT((got[1] - gelu(x)).abs().max().item<float>(), 1e-6) << "batch " << batch;
  }
  const std::vector<Value> in = {randn({3, 16}, 1)};
  const runtime::PlanStats f = fused.plan_stats(in);
  // The transpose of the weight is folded at load. c's ops run as two chains (x is read by
  // three); d's seven ops after the add_ as one, y * 0.5 (before it) alone: no chain reads y
  // across the update.
  EXPECT_EQ(f.fusion,
            "1 calls on constants folded; 2 GELUs written out elementwise taken as aten::gelu; "
            "1 matrix products on packed weights (1 activations in their epilogues); 3 chains "
            "of elementwise ops in one pass (15 ops)");
  EXPECT_EQ(f.kernel_steps, 8) << f.str();
  // addmm; a's 8 ops, b's 5, c's 8; y, d's 8 and the add_.
  EXPECT_EQ(unfused.plan_stats(in).kernel_steps, 32);
}

// PT2E's quantized layers run on integer kernels: each as one fused call (the convolution before
// a ReLU and a quantize writing its result quantized, a residual add included), equal to the
// program run op by op (the reference kernels: PyTorch's formulas) within a quantization step of
// the output.
TEST(RuntimeFusion, QuantizedLayersMultiplyIntegers) {
  const Program fused =
      Program::from_exported(test_support::quantized_program(), with_fusion(true));
  const Program unfused =
      Program::from_exported(test_support::quantized_program(), with_fusion(false));
  for (int64_t batch : {1, 5, 64}) {
    const Tensor x = randn({batch, 8, 8, 8}, 70 + static_cast<uint64_t>(batch));
    const Tensor want = unfused.run({x}).at(0);
    const Tensor got = fused.run({x}).at(0);
    ASSERT_EQ(got.int_sizes(), want.int_sizes());
    const double scale = want.abs().max().item<float>();
    EXPECT_LT((got - want).abs().max().item<float>() / scale, 1e-2) << "batch " << batch;
  }
  const std::vector<Value> in = {randn({2, 8, 8, 8}, 1)};
  // Without VNNI the integer convolutions compute in float, on NCHW.
  const std::string nhwc = kernels::cpu::onednn_exact_int8() ? "3" : "0";
  EXPECT_EQ(fused.plan_stats(in).fusion,
            "4 convolutions on int8 weights (PT2E's quantized layers; 3 quantizing their own "
            "results, 1 adding their residual (1 written over it); " + nhwc + " results passed "
            "on in NHWC); 1 matrix products on int8 weights (PT2E's quantized layers; 0 "
            "quantizing their own results)");
}

// XNNPACKQuantizer's residual blocks: a sum of two dequantized values, quantized, goes into the
// post-ops of the convolution whose result it adds (that result quantized first, as the
// program does), or where it cannot (a sum of another dtype) is one xport::quantized_add; a
// dequantize, dropout and quantize of one scale is nothing, and a max pool between them pools
// the integers (NHWC, by a kernel of its own); a GELU between a dequantize and a quantize is a
// table; the 8-bit values between the integer convolutions, the pool, the add and the table
// stay NHWC (the elementwise calls pass their operands' layout on); every int8 result is
// carried as uint8, zero points moved by 128.
TEST(RuntimeFusion, XnnpackBlocksAddQuantizedValuesInTheirConvolutionOrInOnePass) {
  // Without VNNI the integer convolutions compute in float, on NCHW, and so do the adds.
  const bool nhwc = kernels::cpu::onednn_exact_int8();
  for (const bool t1_out : {false, true}) {
    SCOPED_TRACE(t1_out ? "t1 an output: t1 NCHW" : "NHWC between the layers");
    const Program fused = Program::from_exported(test_support::xnnpack_block_program(t1_out),
                                                 with_fusion(true));
    const Program unfused = Program::from_exported(test_support::xnnpack_block_program(t1_out),
                                                   with_fusion(false));
    for (int64_t batch : {1, 3, 64}) {
      const Tensor x = randn({batch, 8, 8, 8}, 170 + static_cast<uint64_t>(batch));
      const std::vector<Tensor> want = unfused.run({x});
      EXPECT_LT(worst_relative_difference(fused.run({x}), want), 3e-2) << "batch " << batch;
    }
    const std::vector<Value> in = {randn({2, 8, 8, 8}, 1)};
    const auto count = [nhwc](int n) { return std::to_string(nhwc ? n : 0); };
    EXPECT_EQ(fused.plan_stats(in).fusion,
              std::string("4 convolutions on int8 weights (PT2E's quantized layers; 3 "
                          "quantizing their own results, 1 adding their residual (") +
                  (t1_out ? "0" : "1") +
                  " written over it); " + count(t1_out ? 2 : 3) +
                  " results passed on in NHWC); 2 quantized adds (dequantize, add, [ReLU,] "
                  "quantize: 1 in the convolution before them, the others in one pass; " +
                  count(1) + " results passed on in NHWC); 2 views, copies and max pools on "
                  "8-bit integers (between a dequantize and a quantize of one scale); " +
                  (nhwc && !t1_out ? "1 max pools in the convolutions' layout; " : "") +
                  "1 elementwise chains on 8-bit integers as tables of 256 (" + count(1) +
                  " results passed on in NHWC); 6 int8 results carried as uint8 (the value + "
                  "128, its zero point + 128)");
    EXPECT_EQ(fused.plan_stats(in).kernel_steps, t1_out ? 9 : 8);
  }
}

// The packed integer kernels (their primitives made per shape on first use) serve many threads
// at once: each run gives what it gives alone.
TEST(RuntimeFusion, QuantizedProgramServesManyThreadsAtOnce) {
  const Program program = Program::from_exported(test_support::quantized_program());
  std::vector<Tensor> inputs, alone;
  for (int i = 0; i < 4; ++i) inputs.push_back(randn({1 + 3 * i, 8, 8, 8}, 90 + i));
  const Program reference = Program::from_exported(test_support::quantized_program());
  for (const Tensor& x : inputs) alone.push_back(reference.run({x}).at(0));
  std::vector<Tensor> together(inputs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < inputs.size(); ++i) {
    threads.emplace_back([&, i] { together[i] = program.run({inputs[i]}).at(0); });
  }
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_TRUE(allclose(together[i], alone[i], 0, 0)) << "thread " << i;
  }
}

}  // namespace
}  // namespace xport
