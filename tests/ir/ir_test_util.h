#pragma once
// Small graphs built by hand, shared by the IR tests.

#include <gtest/gtest.h>

#include <string>

#include "xport/core/error.h"
#include "xport/ir/ir.h"

namespace xport::ir::testing {

inline sym::ExprPtr s0() { return sym::symbol("s0"); }
inline sym::ExprPtr c(int64_t v) { return sym::integer(v); }
inline TensorSpec f32(std::vector<sym::ExprPtr> sizes) {
  return TensorSpec::contiguous(DType::Float32, std::move(sizes));
}

/// x : f32[s0, 3] -> relu(addmm(bias, x, t(weight))), like nn::Linear(3, 10) then ReLU.
inline Graph linear_relu_graph() {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({s0(), c(3)}));
  const Node* w = g.add_placeholder("p_fc_weight", f32({c(10), c(3)}));
  const Node* b = g.add_placeholder("p_fc_bias", f32({c(10)}));
  TensorSpec t_spec = f32({c(3), c(10)});
  t_spec.strides = {c(1), c(3)};
  const Node* t = g.add_call(find_op("aten::t"), {w->out()}, {t_spec});
  const Node* addmm =
      g.add_call(find_op("aten::addmm"), {b->out(), x->out(), t->out(), 1, 1}, {f32({s0(), c(10)})},
                 {.source = "model.cpp:12", .module_path = "fc"});
  const Node* relu = g.add_call(find_op("aten::relu"), {addmm->out()}, {f32({s0(), c(10)})},
                                {.source = "model.cpp:13"});
  g.set_output({relu->out()});
  return g;
}

/// Runs `fn`, expecting an xport::Error of `kind` whose message contains `text`.
template <class Fn>
void expect_error(Fn&& fn, ErrorKind kind, const std::string& text) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << text;
  }
}

}  // namespace xport::ir::testing
