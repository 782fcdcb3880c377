#pragma once
// A small program built directly as a graph (no capture code), so tests that link only the
// runtime library have something realistic to run: two linear layers with a residual, softmax,
// weight views, a view output and an intermediate that is also an output.
//
//   x: f32[s0, 32]    s0 (batch) in [2, 1024]
//   h = relu(addmm(b1, x, t(w1)))              f32[s0, 64]
//   y = softmax(addmm(b2, h, t(w2)) + x, 1)    f32[s0, 32]
//   return (y, y.view({32 * s0}), h); t(w) is transpose(w, 0, 1)

#include "xport/runtime.h"

namespace xport::test_support {

inline ExportedProgram small_program() {
  using ir::Argument;
  using ir::TensorSpec;
  const DType f32 = DType::Float32;
  const sym::ExprPtr s0 = sym::symbol("s0");
  auto n = [](int64_t v) { return sym::integer(v); };
  auto spec = [&](std::vector<sym::ExprPtr> sizes) { return TensorSpec::contiguous(f32, sizes); };
  auto transposed = [&](int64_t rows, int64_t cols) {  // t() of a contiguous [cols, rows]
    return TensorSpec{f32, {n(rows), n(cols)}, {n(1), n(rows)}, nullptr};
  };

  ir::Graph g;
  const ir::Node* w1 = g.add_placeholder("p_fc1_weight", spec({n(64), n(32)}));
  const ir::Node* b1 = g.add_placeholder("p_fc1_bias", spec({n(64)}));
  const ir::Node* w2 = g.add_placeholder("p_fc2_weight", spec({n(32), n(64)}));
  const ir::Node* b2 = g.add_placeholder("p_fc2_bias", spec({n(32)}));
  const ir::Node* x = g.add_placeholder("x", spec({s0, n(32)}));
  const ir::Node* t1 = g.add_call(find_op("aten::transpose.int"),
                                  {w1->out(), Argument(0), Argument(1)}, {transposed(32, 64)});
  const ir::Node* mm1 =
      g.add_call(find_op("aten::addmm"), {b1->out(), x->out(), t1->out(), Argument(1), Argument(1)},
                 {spec({s0, n(64)})});
  const ir::Node* h = g.add_call(find_op("aten::relu"), {mm1->out()}, {spec({s0, n(64)})});
  const ir::Node* t2 = g.add_call(find_op("aten::transpose.int"),
                                  {w2->out(), Argument(0), Argument(1)}, {transposed(64, 32)});
  const ir::Node* mm2 =
      g.add_call(find_op("aten::addmm"), {b2->out(), h->out(), t2->out(), Argument(1), Argument(1)},
                 {spec({s0, n(32)})});
  const ir::Node* sum = g.add_call(find_op("aten::add.Tensor"), {mm2->out(), x->out(), Argument(1)},
                                   {spec({s0, n(32)})});
  const ir::Node* y =
      g.add_call(find_op("aten::_softmax"), {sum->out(), Argument(1), false}, {spec({s0, n(32)})});
  const sym::ExprPtr flat = sym::mul(n(32), s0);
  const ir::Node* flat_y = g.add_call(
      find_op("aten::view"), {y->out(), Argument(std::vector<Argument>{flat})}, {spec({flat})});
  g.set_output({y->out(), flat_y->out(), h->out()});

  GraphSignature signature;
  for (const char* target : {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}) {
    std::string name = std::string("p_") + target;
    for (char& c : name) c = c == '.' ? '_' : c;
    signature.inputs.push_back({InputSpec::Kind::Parameter, name, target});
  }
  signature.inputs.push_back({InputSpec::Kind::UserInput, "x", ""});
  for (const char* out : {"_softmax", "view", "relu"}) {
    signature.outputs.push_back({OutputSpec::Kind::UserOutput, out});
  }
  InputContract contract;
  contract.name = "x";
  contract.sizes = {s0, n(32)};
  std::map<std::string, Tensor> state = {{"fc1.weight", randn({64, 32}, 1) * 0.2},
                                         {"fc1.bias", randn({64}, 2) * 0.1},
                                         {"fc2.weight", randn({32, 64}, 3) * 0.2},
                                         {"fc2.bias", randn({32}, 4) * 0.1}};
  return ExportedProgram(std::move(g), std::move(signature), {contract},
                         {SymbolSpec{"s0", "x.size(0)", "batch", sym::Range{2, 1024}}},
                         std::move(state));
}

}  // namespace xport::test_support
