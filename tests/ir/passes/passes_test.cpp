// The backend-neutral passes on their own, without the runtime: what they leave is a graph of
// registered ops that verifies, checks against its ops' meta functions and, run by the
// interpreter with the fused ops' own kernels, gives what the original graph gave.
#include <gtest/gtest.h>

#include "ir/passes/constant_folding.h"
#include "ir/passes/fusion.h"
#include "ir/passes/memory_planning.h"
#include "ir/passes/quantized_fusion.h"
#include "ir/passes/unsigned_activations.h"
#include "runtime/conv_block_program.h"
#include "runtime/linear_program.h"
#include "runtime/pointwise_program.h"
#include "runtime/quantized_program.h"
#include "serde/round_trip.h"

namespace xport::ir::passes {
namespace {

using Symbols = std::unordered_map<sym::ExprPtr, int64_t>;

// The program's graph with its weights as constants (user inputs undefined).
ConstantGraph with_constants(const ExportedProgram& program) {
  ConstantGraph g{program.graph().clone(), {}};
  for (const InputSpec& spec : program.signature().inputs) {
    const bool user = spec.kind == InputSpec::Kind::UserInput;
    g.constants.push_back(user ? Tensor() : program.state().at(spec.target));
  }
  return g;
}

// Runs a graph of `g`'s kind: constants where it has them, `user` in order where not.
std::vector<Tensor> run(const ConstantGraph& g, const std::vector<Tensor>& user,
                        const Symbols& symbols) {
  std::vector<Tensor> inputs = g.constants;
  size_t next = 0;
  for (Tensor& t : inputs) {
    if (!t.defined()) t = user.at(next++);
  }
  return interpret(g.graph, inputs, symbols);
}

size_t count_calls(const Graph& graph, const std::string& op) {
  return graph.find_nodes(op).size();
}

TEST(FusionPass, ConvolutionBlocksBecomeFusedCallsThatComputeWhatTheGraphDid) {
  const ExportedProgram program = test_support::conv_block_program();
  const ConstantGraph before = with_constants(program);
  ConstantGraph after = with_constants(program);
  const FusionStats stats = fuse_operators(after);
  EXPECT_EQ(stats.convolutions, 4);
  EXPECT_EQ(stats.batch_norms, 2);
  EXPECT_EQ(count_calls(after.graph, "xport::fused_conv2d"), 4u);
  EXPECT_EQ(count_calls(after.graph, "aten::convolution"), 0u);
  EXPECT_EQ(count_calls(after.graph, "aten::_native_batch_norm_legit_no_training"), 0u);
  // The folded weights and biases of the two batch norms became constants of the graph.
  EXPECT_EQ(after.constants.size(), before.constants.size() + 4);
  EXPECT_EQ(after.graph.placeholders().size(), after.constants.size());
  after.graph.verify();
  const sym::ExprPtr s0 = sym::symbol("s0");
  for (int64_t batch : {1, 5}) {
    EXPECT_TRUE(verify_metadata(after.graph, {{s0, batch}}));
    const Tensor x = randn({batch, 8, 10, 10}, 60 + static_cast<uint64_t>(batch));
    const std::vector<Tensor> want = run(before, {x}, {{s0, batch}});
    const std::vector<Tensor> got = run(after, {x}, {{s0, batch}});
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      const double scale = want[i].abs().max().item<float>();
      EXPECT_LT((got[i] - want[i]).abs().max().item<float>() / scale, 1e-5) << "output " << i;
    }
  }
}

// XNNPACK's int8 activations carried as uint8 (each value + 128, each zero point + 128) are the
// same real numbers: the fused graph gives the same bits with and without it, whether its
// integer convolutions run on oneDNN's kernels or (capped, no VNNI) in float.
TEST(FusionPass, Int8ResultsCarriedAsUint8GiveTheSameBits) {
  for (const bool t1_out : {false, true}) {
    const ExportedProgram program = test_support::xnnpack_block_program(t1_out);
    ConstantGraph signed_graph = with_constants(program);
    const QuantizedFusionStats stats = fuse_quantized_layers(signed_graph);
    EXPECT_EQ(stats.adds.adds, 2);
    EXPECT_EQ(stats.adds.into_convolutions, 1);
    EXPECT_EQ(stats.chains.lookups, 1);
    ConstantGraph unsigned_graph{signed_graph.graph.clone(), signed_graph.constants};
    EXPECT_EQ(carry_int8_as_uint8(unsigned_graph), 6);
    unsigned_graph.graph.verify();
    size_t int8_results = 0;  // of calls: the weights stay int8
    for (const auto& node : unsigned_graph.graph.nodes()) {
      if (node->kind() != NodeKind::Call) continue;
      for (const TensorSpec& spec : node->outputs()) int8_results += spec.dtype == DType::Int8;
    }
    EXPECT_EQ(int8_results, 0u) << "t1_out " << t1_out;
    const sym::ExprPtr s0 = sym::symbol("s0");
    for (int64_t batch : {1, 3}) {
      const Tensor x = randn({batch, 8, 8, 8}, 80 + static_cast<uint64_t>(batch));
      const std::vector<Tensor> want = run(signed_graph, {x}, {{s0, batch}});
      const std::vector<Tensor> got = run(unsigned_graph, {x}, {{s0, batch}});
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_TRUE(allclose(got[i], want[i], 0, 0)) << "output " << i << ", batch " << batch;
      }
    }
  }
}

TEST(FusionPass, AnElementwiseChainBecomesOneCallWithTheChainAsItsSubgraph) {
  const ExportedProgram program = test_support::pointwise_program();
  const ConstantGraph before = with_constants(program);
  ConstantGraph after = with_constants(program);
  const FusionStats stats = fuse_operators(after);
  EXPECT_EQ(stats.pointwise_chains, 2);
  EXPECT_EQ(stats.pointwise_ops, 6);
  const std::vector<Node*> fused = after.graph.find_nodes("xport::fused_pointwise");
  ASSERT_EQ(fused.size(), 2u);
  const Graph& body = *std::get<SubgraphRef>(fused[0]->args()[0].value).graph;
  // e = sigmoid(x * y + 2 * x) * 3 reads x and y: two inputs, four calls.
  EXPECT_EQ(body.placeholders().size(), 2u);
  EXPECT_EQ(body.nodes().size(), 2u + 4u + 1u);
  const std::string text = after.graph.to_string();
  EXPECT_NE(text.find("xport::fused_pointwise(pointwise_body_0, [%x, %y])"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pointwise_body_0:"), std::string::npos) << text;
  const sym::ExprPtr s0 = sym::symbol("s0");
  EXPECT_TRUE(verify_metadata(after.graph, {{s0, 7}}));
  const std::vector<Tensor> in = {randn({7, 16}, 1), randn({7, 16}, 2)};
  const std::vector<Tensor> want = run(before, in, {{s0, 7}});
  const std::vector<Tensor> got = run(after, in, {{s0, 7}});
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(test_support::bitwise_equal(got[i], want[i])) << "output " << i;
  }
}

TEST(FusionPass, MatrixProductsWithConstantWeightsOnly) {
  ConstantGraph g = with_constants(test_support::linear_program());
  EXPECT_EQ(fold_constants(g), 3);  // t(w1), t(w2) and its slice
  const FusionStats stats = fuse_operators(g);
  EXPECT_EQ(stats.linears, 2);
  EXPECT_EQ(stats.activations, 2);
  const std::vector<Node*> fused = g.graph.find_nodes("xport::fused_linear");
  ASSERT_EQ(fused.size(), 2u);
  EXPECT_EQ(std::get<std::string>(fused[0]->args()[3].value), "gelu_tanh");
  EXPECT_EQ(std::get<std::string>(fused[1]->args()[3].value), "gelu");
  // mm by the weight given as an input is left alone.
  EXPECT_EQ(count_calls(g.graph, "aten::mm"), 1u);
}

TEST(ConstantFolding, FoldsCallsOnConstantsThatDoNotGrowTheWeights) {
  test_support::GraphBuilder b;
  Graph& graph = b.graph;
  const Tensor weight = randn({32, 64}, 3);
  const ValueRef w = b.parameter("w", weight);
  std::vector<InputContract> contract;
  const ValueRef x = b.user_input("x", {sym::integer(64), sym::integer(32)}, contract);
  using B = test_support::GraphBuilder;
  const Node* t = graph.add_call(find_op("aten::transpose.int"), {w, Argument(0), Argument(1)},
                                 {B::transposed(64, 32)});
  const Node* doubled =
      graph.add_call(find_op("aten::mul.Scalar"), {t->out(), 2.0}, {B::transposed(64, 32)});
  // Twenty times the weight's bytes (8 KiB): stays a call.
  const Node* tiled =
      graph.add_call(find_op("aten::repeat"), {w, Argument(std::vector<Argument>{20, 1})},
                     {B::spec({B::n(640), B::n(64)})});
  const Node* on_input = graph.add_call(find_op("aten::add.Tensor"), {x, doubled->out(), 1},
                                        {B::spec({B::n(64), B::n(32)})});
  b.outputs({on_input->out(), tiled->out()});
  ConstantGraph g{std::move(b.graph), {weight, Tensor()}};
  EXPECT_EQ(fold_constants(g), 2);
  g.graph.verify();
  EXPECT_EQ(count_calls(g.graph, "aten::transpose.int"), 0u);
  EXPECT_EQ(count_calls(g.graph, "aten::mul.Scalar"), 0u);
  EXPECT_EQ(count_calls(g.graph, "aten::repeat"), 1u);
  EXPECT_EQ(count_calls(g.graph, "aten::add.Tensor"), 1u);
  // The transposed view shares the weight's memory; its spec says how it lies.
  ASSERT_EQ(g.constants.size(), 4u);
  EXPECT_EQ(g.constants[2].storage(), weight.storage());
  const Node* folded_view = g.graph.placeholders()[2];
  EXPECT_EQ(folded_view->outputs()[0].strides, B::transposed(64, 32).strides);
  const Tensor input = randn({64, 32}, 9);
  const std::vector<Tensor> got = interpret(g.graph, {weight, input, g.constants[2],
                                                      g.constants[3]}, {});
  EXPECT_TRUE(test_support::bitwise_equal(got[0], input + weight.t() * 2.0));
}

// x -> a = relu(x) -> v = view(a) -> c = neg(v) -> e = neg(c) -> f = add(e, x), returned.
TEST(MemoryPlanning, FollowsViewsAndKeepsGraphOutputsOutOfTheArena) {
  using B = test_support::GraphBuilder;
  B b;
  Graph& graph = b.graph;
  std::vector<InputContract> contract;
  const ValueRef x = b.user_input("x", {B::n(5), B::n(5)}, contract);
  const auto call = [&](const char* op, std::vector<Argument> args,
                        std::vector<sym::ExprPtr> sizes) {
    return graph.add_call(find_op(op), std::move(args), {B::spec(std::move(sizes))});
  };
  const Node* a = call("aten::relu", {x}, {B::n(5), B::n(5)});
  const Node* v = call("aten::view", {a->out(), Argument(std::vector<Argument>{25})}, {B::n(25)});
  const Node* c = call("aten::neg", {v->out()}, {B::n(25)});
  const Node* e = call("aten::neg", {c->out()}, {B::n(25)});
  const Node* f = call("aten::add.Tensor", {e->out(), c->out(), 1}, {B::n(25)});
  b.outputs({f->out()});
  const GraphMemoryPlan plan =
      plan_graph_memory(graph, [](const Node&, size_t) { return std::optional<int64_t>(100); });
  const auto offset = [&](const Node* n) { return plan.offsets[n->position()][0]; };
  EXPECT_EQ(plan.owner[v->position()][0], a->out());
  EXPECT_EQ(offset(v), -1);  // in a's buffer
  EXPECT_EQ(offset(f), -1);  // returned
  EXPECT_EQ(plan.arena_values, 3);
  // a is read (through v) by c's step, so a and c are live together; so are c and e.
  EXPECT_NE(offset(a), offset(c));
  EXPECT_NE(offset(c), offset(e));
  EXPECT_GE(offset(a), 0);
  EXPECT_EQ(plan.arena.lower_bound_bytes, 2 * 128);
  EXPECT_EQ(plan.arena.arena_bytes, 2 * 128);  // e reuses a's bytes
}

}  // namespace
}  // namespace xport::ir::passes
